/**
 * Tests of the Captain controller against a real kube-apiserver and etcd started by
 * kubeforge/testing from $KUBEBUILDER_ASSETS, with the CRDs of config/crd/bases installed
 * (`npm run manifests` writes them). `npm test` runs every test file against one control plane
 * (kubeforge test), so each file works in a namespace of its own, and its manager caches
 * that namespace only: a manager here never reconciles another test file's objects.
 * captain_backup_controller.unit.test.ts runs the same assertions on kubeforge/testing's FakeAPIServer, with no
 * control plane (`npm run test:unit`; `npm test` runs it first).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { EventsV1Event, type KubeConfig } from '@kubernetes/client-node';
import { type Client, findStatusCondition, newClient, newLogger, newManager, type ReconcileContext } from 'kubeforge/runtime';
import { eventually, TestEnvironment } from 'kubeforge/testing';
import { Captain } from '../../../src/api/crew/v1/captain_types.js';
import { CaptainBackupReconciler } from '../../../src/controller/crew/captain_backup_controller.js';

describe('Captain controller', () => {
  const env = new TestEnvironment({ crdDirectoryPaths: ['config/crd/bases'], errorIfCRDPathMissing: true });
  const suffix = randomUUID().slice(0, 8);
  const namespace = `test-${suffix}`;
  const resourceName = 'test-resource';
  const request = { namespace, name: resourceName }; // TODO(user): modify as needed
  let config: KubeConfig;
  let client: Client;
  let reconciler: CaptainBackupReconciler;
  let context: () => ReconcileContext;

  before(async () => {
    config = await env.start();
    client = newClient(config);
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    const mgr = newManager(config);
    reconciler = new CaptainBackupReconciler(client, mgr.getEventRecorder('crew-captain-backup-controller'));
    const logger = mgr.getLogger();
    context = () => ({ signal: AbortSignal.timeout(30_000), logger, reconcileID: randomUUID() });
  });

  after(async () => {
    await env.stop();
  });

  /** A Captain as a user would create it. */
  function sample(name: string): Captain {
    return {
      apiVersion: 'crew.example.com/v1',
      kind: 'Captain',
      metadata: { name, namespace },
      // TODO(user): specify other spec details if needed.
      spec: { foo: 'bar' },
    };
  }

  it('reconciles a created Captain', async () => {
    const created = await client.create(sample(resourceName));
    assert.ok(created.metadata?.uid, 'the API server stored the Captain');

    const result = await reconciler.reconcile(request, context());
    assert.deepEqual(result, {});
    // TODO(user): add assertions on what your reconcile changes.
    const captain = await client.get(Captain, request);
    const available = findStatusCondition(captain.status?.conditions, 'Available');
    assert.equal(available?.status, 'True');
    assert.equal(available?.observedGeneration, captain.metadata?.generation);

    await client.delete(created);
  });

  it('runs in a manager: a created or changed Captain is reconciled and reported in an event', async () => {
    // As the Kubebuilder book's suite does with k8sManager: the controller runs in a manager
    // whose watches (and, with `.owns()`, those of the owned objects) trigger reconciles.
    // Errors only in the test output; `level: 'debug'` follows every reconcile.
    const mgr = newManager(config, { logger: newLogger({ development: true, level: 'error' }), cache: { defaultNamespaces: [namespace] } });
    new CaptainBackupReconciler(mgr.getClient(), mgr.getEventRecorder('crew-captain-backup-controller')).setupWithManager(mgr);
    const stop = new AbortController();
    const running = mgr.start(stop.signal);
    try {
      const key = { namespace, name: `${resourceName}-managed` };
      const captain = await client.create(sample(key.name));
      const observed = (generation: number | undefined) =>
        eventually(
          async () => {
            const got = await client.get(Captain, key);
            assert.equal(findStatusCondition(got.status?.conditions, 'Available')?.observedGeneration, generation);
          },
          { timeout: 30_000, message: `the Captain is reconciled at generation ${generation}` },
        );
      await observed(captain.metadata?.generation);

      // A change of the spec is a new generation: the watch reconciles it too. (Read the latest
      // version first: the controller has written the status since the create.)
      const latest = await client.get(Captain, key);
      latest.spec = { ...latest.spec, foo: 'baz' };
      await client.update(latest);
      await observed(latest.metadata?.generation);

      // The reconciler reported both in events.k8s.io Events about the Captain.
      await eventually(
        async () => {
          const events = await client.list(EventsV1Event, { namespace });
          const notes = events.items.filter((e) => e.regarding?.uid === captain.metadata?.uid && e.reason === 'Reconciled').map((e) => e.note);
          assert.deepEqual(notes.sort(), ['generation 1 reconciled', 'generation 2 reconciled']);
        },
        { timeout: 30_000, message: 'the reconciler records an event per generation' },
      );
      await client.delete(captain);
    } finally {
      stop.abort();
      await running;
    }
  });

  it('ignores a Captain that no longer exists', async () => {
    const result = await reconciler.reconcile({ ...request, name: 'does-not-exist' }, context());
    assert.deepEqual(result, {});
  });
});
