// A leader frozen past its lease (SIGSTOP) and then resumed must start no reconcile: by the time
// it runs again another replica leads. The stalled leader is a child process (stall-child.ts) with
// work queued behind a busy worker; this process runs the standby that takes over.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { KubeConfig } from '@kubernetes/client-node';
import { TestEnvironment } from '../../../src/testing/index.js';
import { RestClient } from '../../../src/runtime/client/rest.js';
import { newManager } from '../../../src/runtime/manager/index.js';
import { controllerManagedBy } from '../../../src/runtime/controller/index.js';
import { eventually, quiet } from './helpers.js';
import { must } from '../../helpers/must.js';

const env = new TestEnvironment({ useExistingCluster: false });
let config: KubeConfig;
let rest: RestClient;
const childJs = fileURLToPath(new URL('./stall-child.js', import.meta.url));

before(async () => {
  config = await env.start();
  rest = new RestClient(config);
});
after(async () => {
  rest?.close();
  await env.stop();
});

const configMap = (name: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default', labels: { stall: 'yes' } },
});

describe('a stalled leader', () => {
  it('resumed after its lease expired, starts no reconcile, sends no write and exits', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'kf-stall-'));
    const goFile = join(dir, 'go');
    const child = spawn(process.execPath, [childJs], {
      env: { ...process.env, KF_KUBECONFIG: env.kubeconfigPath, KF_GO_FILE: goFile, KF_LEASE: 'stall-test' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const lines: string[] = [];
    let buf = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      buf += c;
      const parts = buf.split('\n');
      buf = must(parts.pop(), 'parts.pop()');
      lines.push(...parts);
    });
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    const standby = newManager(config, {
      leaderElection: true,
      leaderElectionID: 'stall-test',
      leaderElectionNamespace: 'default',
      leaderElectionIdentity: 'standby',
      leaseDurationMs: 3000,
      renewDeadlineMs: 2000,
      retryPeriodMs: 500,
      logger: quiet(),
    });
    const standbyDid = new Set<string>();
    controllerManagedBy(standby)
      .for({ apiVersion: 'v1', kind: 'ConfigMap' })
      .named('standby')
      .complete((req) => void (req.name.startsWith('o') && standbyDid.add(req.name)));
    const ac = new AbortController();
    let standbyDone: Promise<void> | undefined;
    try {
      await eventually(() => lines.includes('elected'), 'the child leads');
      standbyDone = standby.start(ac.signal);
      await standby.started();

      // o1 occupies the child's only worker; o2..o4 wait in its queue.
      await rest.request('POST', '/api/v1/namespaces/default/configmaps', { body: configMap('o1') });
      await eventually(() => lines.some((l) => l.startsWith('start o1 ')), 'o1 reconciling in the child');
      for (const n of ['o2', 'o3', 'o4'])
        await rest.request('POST', '/api/v1/namespaces/default/configmaps', { body: configMap(n) });
      await eventually(
        () => ['o2', 'o3', 'o4'].every((n) => lines.includes(`event ${n}`)),
        'o2..o4 queued in the child',
      );

      process.kill(must(child.pid, 'child.pid'), 'SIGSTOP');
      // The standby leads only after the child's lease expired (by the standby's clock, which is
      // also the child's: one machine, one monotonic clock).
      await standby.elected();
      await eventually(
        () => ['o1', 'o2', 'o3', 'o4'].every((n) => standbyDid.has(n)),
        'the new leader reconciled everything',
      );
      // A write the stalled leader will see when it resumes.
      await rest.request('POST', '/api/v1/namespaces/default/configmaps', { body: configMap('o5') });
      writeFileSync(goFile, 'go'); // o1's reconcile can end once the child runs again
      const resumedAt = process.hrtime.bigint();
      process.kill(must(child.pid, 'child.pid'), 'SIGCONT');
      const code = await exited;

      const starts = lines.filter((l) => l.startsWith('start ')).map((l) => l.split(' '));
      assert.deepEqual(
        starts.map((s) => s[1]),
        ['o1'],
        `only o1 ever started in the stalled leader; its output:\n${lines.join('\n')}`,
      );
      assert.ok(
        starts.every((s) => BigInt(s[2]) < resumedAt),
        'nothing started after the resume',
      );
      const exit = must(
        lines.find((l) => l.startsWith('exit ')),
        "lines.find((l) => l.startsWith('exit '))",
      ).split(' ');
      assert.match(exit.slice(2).join(' '), /^leader election lost \(lease default\/stall-test\): /);
      assert.equal(code, 1);
      // o1's reconcile was running through the stall: its write after the resume is not sent.
      assert.ok(
        lines.includes('write refused LeadershipLostError'),
        `the running reconcile's write was refused; output:\n${lines.join('\n')}`,
      );
      const o1 = await rest.get('/api/v1/namespaces/default/configmaps/o1');
      assert.equal(o1.metadata.annotations?.['written-by'], undefined);
      t.diagnostic(
        `stalled leader exited ${Number(BigInt(exit[1]) - resumedAt) / 1e6} ms after SIGCONT, starting no reconcile`,
      );
      await eventually(() => standbyDid.has('o5'), 'the new leader reconciles the write made during the stall');
    } finally {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGCONT');
        child.kill('SIGKILL');
      }
      ac.abort();
      await standbyDone?.catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
