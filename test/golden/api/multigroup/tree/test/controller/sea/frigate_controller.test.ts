/**
 * Tests of the Frigate controller against a real kube-apiserver and etcd started by
 * kubeforge/testing from $KUBEBUILDER_ASSETS, with the CRDs of config/crd/bases installed
 * (`npm run manifests` writes them).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { type Client, newClient, newManager, type ReconcileContext } from 'kubeforge/runtime';
import { TestEnvironment } from 'kubeforge/testing';
import { Frigate } from '../../../src/api/sea/v1/frigate_types.js';
import { FrigateReconciler } from '../../../src/controller/sea/frigate_controller.js';

describe('Frigate controller', () => {
  const env = new TestEnvironment({ crdDirectoryPaths: ['config/crd/bases'], errorIfCRDPathMissing: true });
  const resourceName = 'test-resource';
  const request = { namespace: 'default', name: resourceName }; // TODO(user): modify as needed
  let client: Client;
  let reconciler: FrigateReconciler;
  let context: () => ReconcileContext;

  before(async () => {
    const config = await env.start();
    client = newClient(config);
    reconciler = new FrigateReconciler(client);
    const logger = newManager(config).getLogger();
    context = () => ({ signal: AbortSignal.timeout(30_000), logger, reconcileID: randomUUID() });
  });

  after(async () => {
    await env.stop();
  });

  it('reconciles a created Frigate', async () => {
    const frigate: Frigate = {
      apiVersion: 'sea.example.com/v1',
      kind: 'Frigate',
      metadata: { name: resourceName, namespace: request.namespace },
      // TODO(user): specify other spec details if needed.
      spec: { foo: 'bar' },
    };
    const created = await client.create(frigate);
    assert.ok(created.metadata?.uid, 'the API server stored the Frigate');

    const result = await reconciler.reconcile(request, context());
    assert.deepEqual(result, {});
    // TODO(user): add assertions on what your reconcile changes, e.g. a status condition:
    //   const after = await client.get(Frigate, request);
    //   assert.equal(after.status?.conditions?.[0]?.type, 'Available');

    await client.delete(created);
  });

  it('ignores a Frigate that no longer exists', async () => {
    const result = await reconciler.reconcile({ ...request, name: 'does-not-exist' }, context());
    assert.deepEqual(result, {});
  });
});
