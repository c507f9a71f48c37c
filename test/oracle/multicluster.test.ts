// multicluster-runtime judges the kubeconfig provider's Secret format (issue #39, "Many
// clusters"): a Go operator built on sigs.k8s.io/multicluster-runtime v0.24.1 and its kubeconfig
// provider (test/oracle/multicluster/main.go, built once per machine and per source into
// ~/.cache/kubeforge/oracle/bin) and a kubeforge operator run side by side on the same kubeconfig
// Secrets in a host control plane, over three kube-apiservers: both engage the same clusters under
// the same names, both stop reconciling a cluster whose Secret is deleted, both go on with the
// others. Test infrastructure only: a machine without Go fails here with a message saying so.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { findGo } from '../../src/envtest/go-build.js';
import { controllerManagedBy, type Request } from '../../src/runtime/controller/index.js';
import { newLogger } from '../../src/runtime/manager/logging.js';
import { KubeconfigProvider, kubeconfigSecret, newMultiClusterManager } from '../../src/runtime/multicluster/index.js';
import { startTestClusters, type TestClusters } from '../../src/testing/multicluster.js';
import { consistently, eventually } from '../../src/testing/wait.js';
import { must } from '../helpers/must.js';

const root = process.env.KUBEFORGE_REPO_ROOT ?? process.cwd();
const SRC = join(root, 'test', 'oracle', 'multicluster');
const NS = 'fleet-system';

/** Builds the Go operator once per machine and per source (the name carries a hash of go.mod, go.sum, main.go). */
async function goOperator(): Promise<string> {
  const hash = createHash('sha256');
  for (const f of ['go.mod', 'go.sum', 'main.go']) hash.update(readFileSync(join(SRC, f)));
  const bin = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'kubeforge', 'oracle', 'bin');
  const target = join(bin, `multicluster-${hash.digest('hex').slice(0, 16)}`);
  if (existsSync(target)) return target;
  const go = await findGo();
  if (!go)
    throw new Error(
      'the multicluster-runtime oracle needs Go 1.26+ (go on PATH or /usr/local/go/bin/go): it runs a Go operator on the same kubeconfig Secrets',
    );
  mkdirSync(bin, { recursive: true });
  const tmp = mkdtempSync(join(bin, '.multicluster-'));
  try {
    const r = spawnSync(go, ['build', '-o', join(tmp, 'multicluster'), '.'], {
      cwd: SRC,
      env: { ...process.env, CGO_ENABLED: '0', GOFLAGS: '-mod=mod -buildvcs=false' },
      encoding: 'utf8',
      timeout: 20 * 60_000,
    });
    if (r.status !== 0)
      throw new Error(`go build of the multicluster oracle failed (exit ${r.status ?? r.signal}):\n${r.stderr}`);
    renameSync(join(tmp, 'multicluster'), target);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return target;
}

const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' } });

/** The clusters in which `name` (in default) was reconciled, sorted. */
function clustersOf(seen: Request[], name: string): string[] {
  return [
    ...new Set(seen.filter((r) => r.namespace === 'default' && r.name === name).map((r) => r.clusterName ?? '')),
  ].sort();
}

describe('kubeconfig Secrets: multicluster-runtime v0.24.1 (Go) and kubeforge engage the same clusters', () => {
  let fleet: TestClusters | undefined;
  let bin: string;
  before(async () => {
    // One after the other: a Go build beside three starting kube-apiservers starves them on a small machine.
    bin = await goOperator();
    fleet = await startTestClusters(['east', 'west', 'north']);
  });
  after(async () => {
    await fleet?.stop();
  });

  it('both reconcile each cluster under its Secret’s name, and both drop a cluster whose Secret is deleted', async () => {
    const [host, west, north] = must(fleet, 'fleet').clusters;
    await host.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    for (const c of must(fleet, 'fleet').clusters) await c.client.create(cm('same'));

    const fromGo: Request[] = [];
    let goErr = '';
    const go = spawn(bin, ['-namespace', NS], {
      env: { ...process.env, KUBECONFIG: must(host.environment, 'host.environment').kubeconfigPath },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let buffered = '';
    go.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const l of lines) {
        if (!l.trim()) continue;
        const o = JSON.parse(l) as { cluster: string; namespace: string; name: string };
        fromGo.push({ clusterName: o.cluster, namespace: o.namespace, name: o.name });
      }
    });
    go.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      goErr = (goErr + chunk).slice(-20_000);
    });
    const goExit = new Promise<number | null>((r) => go.on('exit', (code) => r(code)));

    const fromKubeforge: Request[] = [];
    const mgr = newMultiClusterManager(host.config, new KubeconfigProvider({ namespace: NS }), {
      logger: newLogger({ level: 'error' }),
      metrics: { bindAddress: '0' },
      healthProbeBindAddress: '0',
    });
    controllerManagedBy(mgr)
      .for({ apiVersion: 'v1', kind: 'ConfigMap' })
      .complete((req) => {
        fromKubeforge.push(req);
      });
    const stop = new AbortController();
    const running = mgr.start(stop.signal);
    try {
      for (const c of must(fleet, 'fleet').clusters)
        await host.client.create(kubeconfigSecret(c.name, NS, c.kubeconfig));
      const all = ['east', 'north', 'west'];
      await eventually(
        () => {
          assert.deepEqual(clustersOf(fromKubeforge, 'same'), all, 'kubeforge');
          assert.deepEqual(clustersOf(fromGo, 'same'), all, 'multicluster-runtime');
        },
        { timeout: 60_000, message: `Go operator's stderr:\n${goErr.slice(-3000)}` },
      );

      await host.client.delete(kubeconfigSecret(north.name, NS, ''));
      await eventually(() => assert.deepEqual(mgr.listClusters(), ['east', 'west']), { timeout: 30_000 });
      // Go disengages on its reconcile of the deleted Secret; give it the same moment.
      await new Promise((r) => setTimeout(r, 2000));
      for (const c of must(fleet, 'fleet').clusters) await c.client.create(cm('after'));
      await eventually(
        () => {
          assert.deepEqual(clustersOf(fromKubeforge, 'after'), ['east', 'west'], 'kubeforge');
          assert.deepEqual(clustersOf(fromGo, 'after'), ['east', 'west'], 'multicluster-runtime');
        },
        { timeout: 30_000 },
      );
      await consistently(
        () => {
          assert.deepEqual(clustersOf(fromKubeforge, 'after'), ['east', 'west']);
          assert.deepEqual(clustersOf(fromGo, 'after'), ['east', 'west']);
        },
        { duration: 2000 },
      );
      assert.equal(west.name, 'west');
    } finally {
      stop.abort();
      go.kill('SIGTERM');
      await running;
      await goExit;
    }
  });
});
