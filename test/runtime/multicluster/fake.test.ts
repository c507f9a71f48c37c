// kubeforge/runtime/multicluster on fake API servers (the unit tier, no binaries): the
// kubeconfig-Secret scenario of scenario.ts; a StaticProvider over startFakeClusters with owns(),
// the host engaged too, clusters added and removed at run time; the work queue's cluster drop.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubernetesObject } from '@kubernetes/client-node';
import {
  controllerManagedBy,
  enqueueRequestForObject,
  enqueueRequestsFromMapFunc,
  type Request,
} from '../../../src/runtime/controller/index.js';
import { requestKey } from '../../../src/runtime/controller/reconcile.js';
import { WorkQueue } from '../../../src/runtime/controller/workqueue.js';
import { newLogger } from '../../../src/runtime/manager/logging.js';
import {
  ClusterNotFoundError,
  KubeconfigProvider,
  kubeconfigSecret,
  newMultiClusterManager,
} from '../../../src/runtime/multicluster/index.js';
import { localKubeConfig } from '../../../src/runtime/client/kubeconfig.js';
import { FakeAPIServer } from '../../../src/testing/fake/index.js';
import { startFakeClusters, type TestClusters } from '../../../src/testing/multicluster.js';
import { consistently, eventually } from '../../../src/testing/wait.js';
import { kubeconfigSecretScenario } from './scenario.js';
import { must } from '../../helpers/must.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' };
const SECRET = { apiVersion: 'v1', kind: 'Secret' };

describe('multi-cluster manager on fake API servers', () => {
  it('kubeconfig Secrets created, changed and deleted at run time engage, re-engage and disengage clusters', async () => {
    const fleet = await startFakeClusters(['alpha', 'beta', 'gamma']);
    try {
      await kubeconfigSecretScenario(fleet, { timeout: 10_000, quiet: 1500 });
    } finally {
      await fleet.stop();
    }
  });

  describe('StaticProvider over startFakeClusters', () => {
    let fleet: TestClusters;
    let host: FakeAPIServer;
    before(async () => {
      fleet = await startFakeClusters(2);
      host = await FakeAPIServer.start();
    });
    after(async () => {
      await fleet.stop();
      await host.stop();
    });

    it('runs for()/owns() in each cluster and on the host, and follows add() and remove()', async () => {
      const seen: Request[] = [];
      const mgr = newMultiClusterManager(
        host.config,
        fleet.provider,
        { logger: newLogger({ level: 'error' }), metrics: { bindAddress: '0' }, healthProbeBindAddress: '0' },
        { engageWithLocalCluster: true },
      );
      controllerManagedBy(mgr)
        .for(CM)
        .owns(SECRET)
        .complete((req) => {
          seen.push(req);
        });
      const has = (cluster: string | undefined, name: string) =>
        seen.some((r) => (r.clusterName ?? '') === (cluster ?? '') && r.name === name);
      const stop = new AbortController();
      const running = mgr.start(stop.signal);
      try {
        await mgr.started();
        await eventually(() => assert.deepEqual(mgr.listClusters(), ['cluster-0', 'cluster-1']));
        const [c0, c1] = fleet.clusters;
        const parent = await c0.client.create<KubernetesObject>({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'parent', namespace: 'default' },
        });
        await eventually(() => assert.ok(has('cluster-0', 'parent')));
        const before = seen.filter((r) => r.clusterName === 'cluster-0' && r.name === 'parent').length;
        // An owned Secret in cluster-0 enqueues its owner in cluster-0.
        await c0.client.create({
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: {
            name: 'child',
            namespace: 'default',
            ownerReferences: [
              {
                apiVersion: 'v1',
                kind: 'ConfigMap',
                name: 'parent',
                uid: must(must(parent.metadata, 'parent.metadata').uid, 'parent.metadata.uid'),
                controller: true,
              },
            ],
          },
        });
        await eventually(() =>
          assert.ok(seen.filter((r) => r.clusterName === 'cluster-0' && r.name === 'parent').length > before),
        );
        // The host runs too (engageWithLocalCluster), its requests without a cluster name.
        await host
          .client()
          .create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'h', namespace: 'default' } });
        await eventually(() => assert.ok(has(undefined, 'h')));
        assert.equal(mgr.getCluster().name, '');

        // remove(): disengaged once its informers stopped.
        await fleet.provider.remove('cluster-1');
        assert.deepEqual(mgr.listClusters(), ['cluster-0']);
        assert.throws(() => mgr.getCluster('cluster-1'), ClusterNotFoundError);
        await c1.client.create({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'gone', namespace: 'default' },
        });
        await consistently(() => assert.ok(!has('cluster-1', 'gone')), { duration: 800 });

        // add() at run time, under a new name.
        await fleet.provider.add('again', c1.config);
        await eventually(() => assert.ok(has('again', 'gone')));
        assert.deepEqual(mgr.listClusters(), ['again', 'cluster-0']);
      } finally {
        stop.abort();
        await running;
      }
      assert.deepEqual(fleet.provider.list(), []);
    });
  });

  it('a watches() handler shared by the clusters (an async map function) keeps mapping after one cluster goes', async () => {
    const fleet = await startFakeClusters(['one', 'two']);
    const host = await FakeAPIServer.start();
    const seen: Request[] = [];
    const mgr = newMultiClusterManager(host.config, fleet.provider, {
      logger: newLogger({ level: 'error' }),
      metrics: { bindAddress: '0' },
      healthProbeBindAddress: '0',
    });
    controllerManagedBy(mgr)
      .for(CM)
      .watches(
        SECRET,
        enqueueRequestsFromMapFunc(async (s: KubernetesObject, { signal }) => {
          await new Promise((r) => setTimeout(r, 5));
          signal.throwIfAborted();
          const parent = s.metadata?.labels?.parent;
          return parent ? [{ namespace: 'default', name: parent }] : [];
        }),
      )
      .complete((req) => {
        seen.push(req);
      });
    const stop = new AbortController();
    const running = mgr.start(stop.signal);
    try {
      await eventually(() => assert.deepEqual(mgr.listClusters(), ['one', 'two']));
      const secret = (_cluster: string, name: string) => ({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name, namespace: 'default', labels: { parent: `p-${name}` } },
      });
      // 'late' is engaged while the controller runs, so its watch is bound last: a handler holding
      // only its last binding would stop mapping for every cluster when 'late' goes.
      await fleet.provider.add('late', fleet.get('two').config);
      await fleet.get('two').client.create(secret('two', 's1'));
      await eventually(() => assert.ok(seen.some((r) => r.clusterName === 'late' && r.name === 'p-s1')));
      await fleet.provider.remove('late');
      await fleet.get('one').client.create(secret('one', 's2'));
      await eventually(() => assert.ok(seen.some((r) => r.clusterName === 'one' && r.name === 'p-s2')));
      assert.ok(seen.some((r) => r.clusterName === 'two' && r.name === 'p-s1'));
    } finally {
      stop.abort();
      await running;
      await fleet.stop();
      await host.stop();
    }
  });

  it('a cluster that does not answer neither holds up nor fails the controller', async () => {
    const fleet = await startFakeClusters(['up']);
    const host = await FakeAPIServer.start();
    const down = localKubeConfig({
      clusters: [{ name: 'down', server: 'http://127.0.0.1:9', skipTLSVerify: true }],
      users: [{ name: 'down' }],
      contexts: [{ name: 'down', cluster: 'down', user: 'down' }],
      currentContext: 'down',
    });
    // Engaged first, before the controller starts.
    await fleet.provider.add('down', down);
    const seen: Request[] = [];
    const mgr = newMultiClusterManager(host.config, fleet.provider, {
      logger: newLogger({ level: 'silent' }),
      metrics: { bindAddress: '0' },
      healthProbeBindAddress: '0',
    });
    controllerManagedBy(mgr)
      .for(CM)
      // A kind no cluster serves: its watch fails to start in each, which is logged, not fatal.
      .watches({ apiVersion: 'example.com/v1', kind: 'Widget' }, enqueueRequestForObject())
      .withOptions({ cacheSyncTimeoutMs: 300 })
      .complete((req) => {
        seen.push(req);
      });
    const stop = new AbortController();
    const running = mgr.start(stop.signal);
    let failed: unknown;
    running.catch((e) => (failed = e));
    try {
      await fleet
        .get('up')
        .client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'default' } });
      await eventually(() => assert.ok(seen.some((r) => r.clusterName === 'up' && r.name === 'x')));
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(failed, undefined, 'the manager runs on');
      assert.deepEqual(mgr.listClusters(), ['down', 'up']);
    } finally {
      stop.abort();
      await running.catch(() => undefined);
      await fleet.stop();
      await host.stop();
    }
  });

  it('KubeconfigProvider: its own label and key, a Secret without a kubeconfig, a broken one fixed later', async () => {
    const fleet = await startFakeClusters(['member']);
    const host = await FakeAPIServer.start({
      objects: [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'clusters' } }],
    });
    const opts = { kubeconfigSecretLabel: 'example.com/cluster', kubeconfigSecretKey: 'config' };
    const configured: string[] = [];
    const provider = new KubeconfigProvider({
      namespace: 'clusters',
      ...opts,
      configure: (_config, name) => void configured.push(name),
    });
    const mgr = newMultiClusterManager(host.config, provider, {
      logger: newLogger({ level: 'silent' }),
      metrics: { bindAddress: '0' },
      healthProbeBindAddress: '0',
    });
    controllerManagedBy(mgr)
      .for(CM)
      .complete(() => undefined);
    const stop = new AbortController();
    const running = mgr.start(stop.signal);
    const live = host.client();
    try {
      await mgr.started();
      const secret = kubeconfigSecret('member', 'clusters', fleet.get('member').kubeconfig, opts);
      assert.deepEqual(secret.metadata?.labels, { 'example.com/cluster': 'true' });
      assert.deepEqual(Object.keys(secret.data), ['config']);
      // The default label and key are not this provider's: ignored.
      await live.create(kubeconfigSecret('default-format', 'clusters', fleet.get('member').kubeconfig));
      // Labelled, but the kubeconfig is under another key: logged and skipped.
      await live.create({
        ...secret,
        metadata: { ...secret.metadata, name: 'no-key' },
        data: { other: secret.data.config },
      });
      // A kubeconfig that does not parse: the reconcile fails and is retried.
      await live.create({ ...secret, data: { config: Buffer.from('{not a kubeconfig').toString('base64') } });
      await consistently(() => assert.deepEqual(mgr.listClusters(), []), { duration: 600 });
      const broken = await live.get<KubernetesObject & { data: Record<string, string> }>(SECRET, {
        namespace: 'clusters',
        name: 'member',
      });
      broken.data = secret.data;
      await live.update(broken);
      await eventually(() => assert.deepEqual(mgr.listClusters(), ['member']));
      assert.deepEqual(configured, ['member']);
      assert.deepEqual(provider.list(), ['member']);
      assert.equal(provider.get('member'), mgr.getCluster('member'));
    } finally {
      stop.abort();
      await running;
      await fleet.stop();
      await host.stop();
    }
    assert.throws(() => new KubeconfigProvider({ namespace: '' }), /needs the namespace/);
  });

  it('refuses a cluster without a name and reports an unknown one', async () => {
    const fake = await FakeAPIServer.start();
    try {
      const mgr = newMultiClusterManager(fake.config, undefined, { logger: newLogger({ level: 'error' }) });
      await assert.rejects(mgr.engage(new AbortController().signal, '', mgr.getCluster()), /needs a name/);
      assert.throws(
        () => mgr.getCluster('nope'),
        (e: Error) => e instanceof ClusterNotFoundError && /"nope"/.test(e.message),
      );
    } finally {
      await fake.stop();
    }
  });
});

describe('requests of many clusters in the work queue', () => {
  it('keys a request by its cluster', () => {
    assert.equal(requestKey({ namespace: 'ns', name: 'a' }), 'ns/a');
    assert.equal(requestKey({ namespace: 'ns', name: 'a', clusterName: '' }), 'ns/a');
    assert.equal(requestKey({ namespace: 'ns', name: 'a', clusterName: 'east' }), 'cluster://east/ns/a');
    assert.equal(requestKey({ namespace: '', name: 'n', clusterName: 'east' }), 'cluster://east/n');
  });

  it('drops one cluster’s queued, delayed and re-added requests, and admits none of it afterwards', async () => {
    const q = new WorkQueue<Request>({ keyOf: requestKey });
    q.add({ namespace: 'd', name: 'x', clusterName: 'east' });
    q.add({ namespace: 'd', name: 'x', clusterName: 'west' });
    q.addAfter({ namespace: 'd', name: 'y', clusterName: 'east' }, 60_000);
    const got = await q.get();
    assert.equal(got.shutdown, false);
    const first = (got as { item: Request }).item;
    assert.equal(first.clusterName, 'east');
    q.add(first); // re-added while processing
    assert.equal(
      q.dropWhere((r) => r.clusterName === 'east'),
      2,
    );
    assert.equal(q.delayedLen(), 0);
    q.setAdmission((r) => r.clusterName !== 'east');
    q.add({ namespace: 'd', name: 'z', clusterName: 'east' });
    q.addRateLimited({ namespace: 'd', name: 'z', clusterName: 'east' });
    q.done(first);
    assert.equal(q.len(), 1, 'only west is left');
    const next = await q.get();
    assert.equal((next as { item: Request }).item.clusterName, 'west');
    q.shutDown();
  });
});
