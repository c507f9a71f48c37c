// The kubeconfig-Secret scenario of issue #39 ("Many clusters"), run by kubeconfig.test.ts on
// three kube-apiservers and by fake.test.ts on three fake API servers: one multi-cluster manager
// whose KubeconfigProvider watches Secrets in the host (the first cluster, also a member under its
// own name), one ConfigMap reconciler; Secrets created, changed and deleted at run time.
import assert from 'node:assert/strict';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { InformerCache } from '../../../src/runtime/cache/cache.js';
import { isNotFound } from '../../../src/runtime/client/errors.js';
import { mergePatch } from '../../../src/runtime/client/patch.js';
import { controllerManagedBy, type Request } from '../../../src/runtime/controller/index.js';
import { newLogger } from '../../../src/runtime/manager/logging.js';
import {
  ClusterNotFoundError,
  KubeconfigProvider,
  kubeconfigSecret,
  newMultiClusterManager,
} from '../../../src/runtime/multicluster/index.js';
import type { TestClusters } from '../../../src/testing/multicluster.js';
import { consistently, eventually } from '../../../src/testing/wait.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' };
const SECRET = { apiVersion: 'v1', kind: 'Secret' };
const NS = 'fleet-system';
const MARK = 'kubeforge.test/reconciled-in';

type CMObject = KubernetesObject & { data?: Record<string, string> };

function cm(name: string): CMObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: { k: name } };
}

export interface ScenarioTimes {
  /** eventually's timeout (ms). */
  timeout: number;
  /** consistently's duration (ms). */
  quiet: number;
}

/** Runs the scenario; `fleet` has three clusters, the first the host. */
export async function kubeconfigSecretScenario(fleet: TestClusters, times: ScenarioTimes): Promise<void> {
  const [a, b, c] = fleet.clusters;
  const host = a;
  const seen: Request[] = [];
  const count = (cluster: string) => seen.filter((r) => r.clusterName === cluster).length;

  await host.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  // The same name in every cluster: three objects, three requests.
  for (const x of fleet.clusters) await x.client.create(cm('same'));

  const provider = new KubeconfigProvider({ namespace: NS });
  const mgr = newMultiClusterManager(host.config, provider, {
    logger: newLogger({ level: process.env.MC_TEST_LOG ?? 'error' }),
    metrics: { bindAddress: '0' },
    healthProbeBindAddress: '0',
    gracefulShutdownTimeoutMs: 10_000,
  });
  const controller = controllerManagedBy(mgr)
    .for(CM)
    .complete(async (req, ctx) => {
      seen.push(req);
      const { client } = mgr.getCluster(req.clusterName);
      let obj: CMObject;
      try {
        obj = await client.get<CMObject>(CM, req, { signal: ctx.signal });
      } catch (e) {
        if (isNotFound(e)) return;
        throw e;
      }
      if (obj.metadata?.annotations?.[MARK] !== req.clusterName)
        await client.patch(obj, mergePatch({ metadata: { annotations: { [MARK]: req.clusterName ?? '' } } }), {
          signal: ctx.signal,
        });
      // Come back often: after a cluster is disengaged, nothing of it may come back.
      return { requeueAfterSeconds: 0.2 };
    });
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  running.catch(() => undefined);
  const marked = async (x: (typeof fleet.clusters)[number], name: string) =>
    (await x.client.get<CMObject>(CM, { namespace: 'default', name })).metadata?.annotations?.[MARK];
  try {
    await mgr.started();
    assert.deepEqual(mgr.listClusters(), [], 'no Secret, no cluster');
    assert.equal(mgr.getCluster('').name, '', "'' is the host");
    assert.throws(() => mgr.getCluster(b.name), ClusterNotFoundError);

    // Secrets created at run time engage their clusters.
    for (const x of fleet.clusters) await host.client.create(kubeconfigSecret(x.name, NS, x.kubeconfig));
    // A Secret without the label is not a cluster.
    await host.client.create({
      ...kubeconfigSecret('unlabelled', NS, a.kubeconfig),
      metadata: { name: 'unlabelled', namespace: NS },
    });
    await eventually(() => assert.deepEqual(mgr.listClusters(), [a.name, b.name, c.name].sort()), {
      timeout: times.timeout,
    });
    for (const x of fleet.clusters)
      await eventually(async () => assert.equal(await marked(x, 'same'), x.name), { timeout: times.timeout });
    assert.equal(count(''), 0, 'the host is reconciled only as the member it is registered as');
    assert.ok(
      seen.every((r) => fleet.clusters.some((x) => x.name === r.clusterName)),
      'every request names an engaged cluster',
    );
    for (const x of fleet.clusters) assert.equal(mgr.getCluster(x.name).name, x.name);

    // The Secret of c is deleted: c is disengaged, its informers stop, nothing of it runs again.
    const cInformer = await (mgr.getCluster(c.name).cache as InformerCache).informerFor(CM);
    await host.client.delete(kubeconfigSecret(c.name, NS, ''));
    await eventually(() => assert.deepEqual(mgr.listClusters(), [a.name, b.name].sort()), { timeout: times.timeout });
    assert.throws(() => mgr.getCluster(c.name), ClusterNotFoundError);
    await c.client.create(cm('after-removal'));
    const eventsThen = cInformer.stats().events;
    const cCount = count(c.name);
    await consistently(
      () => {
        assert.equal(count(c.name), cCount, 'no reconcile of the removed cluster');
        assert.equal(cInformer.stats().events, eventsThen, "the removed cluster's informer receives nothing");
      },
      { duration: times.quiet },
    );
    assert.equal(await marked(c, 'after-removal'), undefined);
    assert.equal(
      controller.queue.dropWhere((r) => r.clusterName === c.name),
      0,
      'no request of the removed cluster is queued',
    );
    // The others go on: a new object in b is reconciled as b's.
    await b.client.create(cm('after-removal'));
    await eventually(async () => assert.equal(await marked(b, 'after-removal'), b.name), { timeout: times.timeout });
    const aBefore = count(a.name);
    await eventually(() => assert.ok(count(a.name) > aBefore + 2, 'a is still reconciled (requeues)'), {
      timeout: times.timeout,
    });

    // b's Secret now holds c's kubeconfig: b is re-engaged on c's API server.
    const secret = await host.client.get<KubernetesObject & { data: Record<string, string> }>(SECRET, {
      namespace: NS,
      name: b.name,
    });
    secret.data = kubeconfigSecret(b.name, NS, c.kubeconfig).data;
    await host.client.update(secret);
    await eventually(async () => assert.equal(await marked(c, 'after-removal'), b.name), { timeout: times.timeout });
    assert.equal(
      mgr.getCluster(b.name).config.getCurrentCluster()?.server,
      c.config.getCurrentCluster()?.server,
      "b's cluster now talks to c's API server",
    );
    assert.deepEqual(mgr.listClusters(), [a.name, b.name].sort());

    // Deleting the last Secrets disengages everything; the manager stops cleanly.
    await host.client.delete(kubeconfigSecret(a.name, NS, ''));
    await host.client.delete(kubeconfigSecret(b.name, NS, ''));
    await eventually(() => assert.deepEqual(mgr.listClusters(), []), { timeout: times.timeout });
    const total = seen.length;
    await consistently(() => assert.equal(seen.length, total, 'no reconcile without clusters'), {
      duration: Math.min(times.quiet, 1000),
    });
  } finally {
    stop.abort();
    await running;
  }
  assert.deepEqual(provider.list(), [], 'the provider stopped every cluster');
}
