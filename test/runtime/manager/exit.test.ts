// A generated operator's main() ends when mgr.start() resolves: nothing the Manager started may
// keep the process alive afterwards (timers, sockets, servers).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { must } from '../../helpers/must.js';

const root = process.env.KUBEFORGE_REPO_ROOT ?? resolve(fileURLToPath(import.meta.url), '../../../../..');

describe('Manager shutdown', () => {
  it('leaves no timer, socket or server behind once start() resolved (default lease timings)', () => {
    const script = `
      const { TestEnvironment } = await import(${JSON.stringify(join(root, 'build/src/testing/index.js'))});
      const rt = await import(${JSON.stringify(join(root, 'build/src/runtime/index.js'))});
      const env = new TestEnvironment({ useExistingCluster: false });
      const config = await env.start();
      const mgr = rt.newManager(config, {
        healthProbeBindAddress: '127.0.0.1:0',
        metrics: { bindAddress: '127.0.0.1:0', secureServing: true },
        leaderElection: true, leaderElectionID: 'exit-test', leaderElectionNamespace: 'default',
      });
      rt.controllerManagedBy(mgr).for({ apiVersion: 'v1', kind: 'ConfigMap' }).complete(() => {});
      const ac = new AbortController();
      const done = mgr.start(ac.signal);
      await mgr.elected();
      const cm = await mgr.getClient().create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'exit', namespace: 'default' } });
      mgr.getEventRecorder('exit-test').eventf(cm, null, 'Normal', 'Seen', 'Observe', 'seen');
      await fetch('http://127.0.0.1:' + mgr.getHealthProbeAddress().port + '/readyz');
      ac.abort();
      await done;
      await env.stop();
      await new Promise((r) => setTimeout(r, 300)); // let closing file streams settle
      console.log(JSON.stringify(process.getActiveResourcesInfo()));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 120_000,
      env: { ...process.env, LOG_LEVEL: 'silent' },
    });
    assert.equal(r.status, 0, r.stderr);
    const resources: string[] = JSON.parse(
      must(r.stdout.trim().split('\n').pop(), "r.stdout.trim().split('\\n').pop()"),
    );
    const left = resources.filter((x) => x !== 'TTYWrap' && x !== 'PipeWrap' && x !== 'ProcessWrap');
    assert.deepEqual(left, [], `still active: ${resources.join(', ')}`);
  });
});
