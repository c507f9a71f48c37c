/**
 * Tests of the Frigate controller against a real kube-apiserver and etcd started by
 * kubeforge/testing from $KUBEBUILDER_ASSETS, with the CRDs of config/crd/bases installed
 * (`npm run manifests` writes them). `npm test` runs every test file against one control plane
 * (kubeforge test), so each file works in a namespace of its own, and its manager caches
 * that namespace only: a manager here never reconciles another test file's objects.
 * frigate_controller.unit.test.ts runs the same assertions on kubeforge/testing's FakeAPIServer, with no
 * control plane (`npm run test:unit`; `npm test` runs it first).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { EventsV1Event, type KubeConfig } from '@kubernetes/client-node';
import { type Client, findStatusCondition, newClient, newLogger, newManager, type ReconcileContext } from 'kubeforge/runtime';
import { eventually, TestEnvironment } from 'kubeforge/testing';
import { Frigate } from '../../../src/api/ship/v1beta1/frigate_types.js';
import { FrigateReconciler } from '../../../src/controller/ship/frigate_controller.js';

describe('Frigate controller', () => {
  const env = new TestEnvironment({ crdDirectoryPaths: ['config/crd/bases'], errorIfCRDPathMissing: true });
  const suffix = randomUUID().slice(0, 8);
  const namespace = `test-${suffix}`;
  const resourceName = 'test-resource';
  const request = { namespace, name: resourceName }; // TODO(user): modify as needed
  let config: KubeConfig;
  let client: Client;
  let reconciler: FrigateReconciler;
  let context: () => ReconcileContext;

  before(async () => {
    config = await env.start();
    client = newClient(config);
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    const mgr = newManager(config);
    reconciler = new FrigateReconciler(client, mgr.getEventRecorder('ship-frigate-controller'));
    const logger = mgr.getLogger();
    context = () => ({ signal: AbortSignal.timeout(30_000), logger, reconcileID: randomUUID() });
  });

  after(async () => {
    await env.stop();
  });

  /** A Frigate as a user would create it. */
  function sample(name: string): Frigate {
    return {
      apiVersion: 'ship.example.com/v1beta1',
      kind: 'Frigate',
      metadata: { name, namespace },
      // TODO(user): specify other spec details if needed.
      spec: { foo: 'bar' },
    };
  }

  it('reconciles a created Frigate', async () => {
    const created = await client.create(sample(resourceName));
    assert.ok(created.metadata?.uid, 'the API server stored the Frigate');

    const result = await reconciler.reconcile(request, context());
    assert.deepEqual(result, {});
    // TODO(user): add assertions on what your reconcile changes.
    const frigate = await client.get(Frigate, request);
    const available = findStatusCondition(frigate.status?.conditions, 'Available');
    assert.equal(available?.status, 'True');
    assert.equal(available?.observedGeneration, frigate.metadata?.generation);

    await client.delete(created);
  });

  it('runs in a manager: a created or changed Frigate is reconciled and reported in an event', async () => {
    // As the Kubebuilder book's suite does with k8sManager: the controller runs in a manager
    // whose watches (and, with `.owns()`, those of the owned objects) trigger reconciles.
    // Errors only in the test output; `level: 'debug'` follows every reconcile.
    const mgr = newManager(config, { logger: newLogger({ development: true, level: 'error' }), cache: { defaultNamespaces: [namespace] } });
    new FrigateReconciler(mgr.getClient(), mgr.getEventRecorder('ship-frigate-controller')).setupWithManager(mgr);
    const stop = new AbortController();
    const running = mgr.start(stop.signal);
    try {
      const key = { namespace, name: `${resourceName}-managed` };
      const frigate = await client.create(sample(key.name));
      const observed = (generation: number | undefined) =>
        eventually(
          async () => {
            const got = await client.get(Frigate, key);
            assert.equal(findStatusCondition(got.status?.conditions, 'Available')?.observedGeneration, generation);
          },
          { timeout: 30_000, message: `the Frigate is reconciled at generation ${generation}` },
        );
      await observed(frigate.metadata?.generation);

      // A change of the spec is a new generation: the watch reconciles it too. (Read the latest
      // version first: the controller has written the status since the create.)
      const latest = await client.get(Frigate, key);
      latest.spec = { ...latest.spec, foo: 'baz' };
      await client.update(latest);
      await observed(latest.metadata?.generation);

      // The reconciler reported both in events.k8s.io Events about the Frigate.
      await eventually(
        async () => {
          const events = await client.list(EventsV1Event, { namespace });
          const notes = events.items.filter((e) => e.regarding?.uid === frigate.metadata?.uid && e.reason === 'Reconciled').map((e) => e.note);
          assert.deepEqual(notes.sort(), ['generation 1 reconciled', 'generation 2 reconciled']);
        },
        { timeout: 30_000, message: 'the reconciler records an event per generation' },
      );
      await client.delete(frigate);
    } finally {
      stop.abort();
      await running;
    }
  });

  it('ignores a Frigate that no longer exists', async () => {
    const result = await reconciler.reconcile({ ...request, name: 'does-not-exist' }, context());
    assert.deepEqual(result, {});
  });
});
