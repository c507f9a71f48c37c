/**
 * Tests of the CronJob controller against a real kube-apiserver and etcd started by
 * kubeforge/testing from $KUBEBUILDER_ASSETS, with the CRDs of config/crd/bases installed
 * (`npm run manifests` writes them).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { type Client, newClient, newManager, type ReconcileContext } from 'kubeforge/runtime';
import { TestEnvironment } from 'kubeforge/testing';
import { CronJob } from '../../src/api/v1/cronjob_types.js';
import { CronJobReconciler } from '../../src/controller/cronjob_controller.js';

describe('CronJob controller', () => {
  const env = new TestEnvironment({ crdDirectoryPaths: ['config/crd/bases'], errorIfCRDPathMissing: true });
  const resourceName = 'test-resource';
  const request = { namespace: 'default', name: resourceName }; // TODO(user): modify as needed
  let client: Client;
  let reconciler: CronJobReconciler;
  let context: () => ReconcileContext;

  before(async () => {
    const config = await env.start();
    client = newClient(config);
    reconciler = new CronJobReconciler(client);
    const logger = newManager(config).getLogger();
    context = () => ({ signal: AbortSignal.timeout(30_000), logger, reconcileID: randomUUID() });
  });

  after(async () => {
    await env.stop();
  });

  it('reconciles a created CronJob', async () => {
    const cronJob: CronJob = {
      apiVersion: 'batch.tutorial.kubebuilder.io/v1',
      kind: 'CronJob',
      metadata: { name: resourceName, namespace: request.namespace },
      spec: {
        schedule: '*/1 * * * *',
        concurrencyPolicy: 'Forbid',
        jobTemplate: {
          spec: {
            template: {
              spec: { restartPolicy: 'OnFailure', containers: [{ name: 'hello', image: 'busybox:1.36', args: ['echo', 'hello'] }] },
            },
          },
        },
      },
    };
    const created = await client.create(cronJob);
    assert.ok(created.metadata?.uid, 'the API server stored the CronJob');
    assert.equal(created.spec.jobTemplate.spec?.template.spec?.containers[0]?.image, 'busybox:1.36', 'the embedded JobTemplateSpec survived pruning');

    const result = await reconciler.reconcile(request, context());
    assert.deepEqual(result, {});
    // TODO(user): add assertions on what your reconcile changes, e.g. a status condition:
    //   const after = await client.get(CronJob, request);
    //   assert.equal(after.status?.conditions?.[0]?.type, 'Available');

    await client.delete(created);
  });

  it('ignores a CronJob that no longer exists', async () => {
    const result = await reconciler.reconcile({ ...request, name: 'does-not-exist' }, context());
    assert.deepEqual(result, {});
  });
});
