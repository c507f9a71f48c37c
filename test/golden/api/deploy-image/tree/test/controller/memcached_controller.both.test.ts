/*
Copyright The Guestbook Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

/**
 * Tests of the Memcached controller, one body for both tiers of `npm test` (kubeforge test runs a
 * *.both.test.js file twice):
 *   - the unit tier (`npm run test:unit`, first): kubeforge/testing's FakeAPIServer, the
 *     Kubernetes API in memory in this test process, no etcd or kube-apiserver, seconds;
 *   - the full tier: a real kube-apiserver and etcd from $KUBEBUILDER_ASSETS, one control plane
 *     shared by every test file of the run.
 * startTestAPI() gives the file the API server of its tier, with the CRDs of config/crd/bases
 * installed (`npm run manifests` writes them). Each run works in a namespace of its own, and its
 * manager caches that namespace only: a manager here never reconciles another test file's objects.
 *
 * Neither tier runs the controllers of Kubernetes: the Deployment is created, but no Pod runs, and
 * no garbage collector deletes the Deployment when its Memcached goes. The fake keeps
 * resourceVersion, generation, finalizers and deletion, the status subresource, selectors, patches
 * and server-side apply, and watches, and applies the CRDs' schemas; it does not run admission or
 * conversion webhooks, nor the validation of built-in Kinds beyond their metadata and field types
 * (the Deployment gets the server's defaults, but a selector that does not match its template is
 * stored). Every assertion below holds on both; assert what depends on the real server's rules in
 * the full tier only, and say so: `if (api.tier === 'full') { ... }`.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { EventsV1Event, V1Deployment } from '@kubernetes/client-node';
import { type Client, findStatusCondition, isNotFound, newLogger, newManager, type ReconcileContext, TerminalError } from 'kubeforge/runtime';
import { eventually, startTestAPI, type TestAPI } from 'kubeforge/testing';
import { Memcached } from '../../src/api/v1alpha1/memcached_types.js';
import { MemcachedReconciler } from '../../src/controller/memcached_controller.js';

/** The variable config/manager/manager.yaml sets for the manager: the image to deploy. */
const IMAGE_ENV = 'MEMCACHED_IMAGE';
const IMAGE = 'example.com/image:test';

describe('Memcached controller', () => {
  const namespace = `test-${randomUUID().slice(0, 8)}`;
  const resourceName = 'test-memcached';
  const request = { namespace, name: resourceName };
  const imageBefore = process.env[IMAGE_ENV];
  let api: TestAPI;
  let client: Client;
  let reconciler: MemcachedReconciler;
  let context: () => ReconcileContext;

  before(async () => {
    // The fake API server in the unit tier, the shared kube-apiserver in the full one.
    api = await startTestAPI({ crdDirectoryPaths: ['config/crd/bases'], errorIfCRDPathMissing: true });
    client = api.client();
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    // Errors only in the test output; `level: 'debug'` follows every reconcile.
    const mgr = newManager(api.config, { logger: newLogger({ development: true, level: 'error' }) });
    reconciler = new MemcachedReconciler(client, mgr.getEventRecorder('memcached-controller'));
    const logger = mgr.getLogger();
    context = () => ({ signal: AbortSignal.timeout(30_000), logger, reconcileID: randomUUID() });
    process.env[IMAGE_ENV] = IMAGE;
  });

  after(async () => {
    if (imageBefore === undefined) delete process.env[IMAGE_ENV];
    else process.env[IMAGE_ENV] = imageBefore;
    await api.stop();
  });

  /** A Memcached as config/samples has it. */
  function sample(name: string, size = 1): Memcached {
    return {
      apiVersion: 'example.com.example.com/v1alpha1',
      kind: 'Memcached',
      metadata: { name, namespace },
      spec: { size, containerPort: 11211 },
    };
  }

  it('reconciles a created Memcached: a Deployment of the image with spec.size replicas, owned by it, then Available', async () => {
    const created = await client.create(sample(resourceName));
    assert.ok(created.metadata?.uid, 'the API server stored the Memcached');

    // The first reconcile adds the finalizer and creates the Deployment.
    assert.deepEqual(await reconciler.reconcile(request, context()), { requeueAfterSeconds: 60 });
    const deployment = await client.get(V1Deployment, request);
    assert.equal(deployment.spec?.replicas, 1);
    const container = deployment.spec?.template.spec?.containers[0];
    assert.equal(container?.image, IMAGE);
    assert.deepEqual(container?.command, ['memcached', '--memory-limit=64', '-o', 'modern', '-v']);
    assert.equal(container?.ports?.[0]?.containerPort, 11211);
    assert.equal(container?.securityContext?.runAsNonRoot, true);
    assert.equal(container?.securityContext?.runAsUser, 1001);
    assert.equal(container?.securityContext?.allowPrivilegeEscalation, false);
    assert.deepEqual(container?.securityContext?.capabilities?.drop, ['ALL']);
    assert.equal(deployment.spec?.template.spec?.securityContext?.seccompProfile?.type, 'RuntimeDefault');
    const owner = deployment.metadata?.ownerReferences?.[0];
    assert.equal(owner?.uid, created.metadata?.uid);
    assert.equal(owner?.controller, true);

    // The second finds the Deployment as it should be and reports it.
    assert.deepEqual(await reconciler.reconcile(request, context()), {});
    const memcached = await client.get(Memcached, request);
    const available = findStatusCondition(memcached.status?.conditions, 'Available');
    assert.equal(available?.status, 'True');
    assert.equal(available?.reason, 'Reconciling');
    assert.equal(memcached.status?.conditions?.filter((c) => c.type === 'Available').length, 1);
    assert.deepEqual(memcached.metadata?.finalizers, ['example.com.example.com/finalizer']);
  });

  it('reports Available False, and does not retry, when MEMCACHED_IMAGE is not set', async () => {
    const key = { namespace, name: `${resourceName}-no-image` };
    await client.create(sample(key.name));
    delete process.env[IMAGE_ENV];
    try {
      await assert.rejects(reconciler.reconcile(key, context()), (err) => err instanceof TerminalError && /MEMCACHED_IMAGE/.test(err.message));
    } finally {
      process.env[IMAGE_ENV] = IMAGE;
    }
    const memcached = await client.get(Memcached, key);
    assert.equal(findStatusCondition(memcached.status?.conditions, 'Available')?.status, 'False');
    await assert.rejects(client.get(V1Deployment, key), (err) => isNotFound(err));
  });

  it('runs in a manager: follows spec.size, and a deleted Memcached goes once its finalizer ran', async () => {
    // As the Kubebuilder book's suite does with k8sManager: the controller runs in a manager
    // whose watches (of the Memcached and, with owns(), of its Deployment) trigger reconciles.
    // Its cache holds this file's namespace only: it never reconciles another test file's objects.
    const mgr = newManager(api.config, { logger: newLogger({ development: true, level: 'error' }), cache: { defaultNamespaces: [namespace] } });
    new MemcachedReconciler(mgr.getClient(), mgr.getEventRecorder('memcached-controller')).setupWithManager(mgr);
    const stop = new AbortController();
    const running = mgr.start(stop.signal);
    // The fake answers at once: poll it often, and give up sooner than on a real API server.
    const waits = api.tier === 'unit' ? { timeout: 10_000, interval: 10 } : { timeout: 30_000 };
    try {
      const key = { namespace, name: `${resourceName}-managed` };
      await client.create(sample(key.name, 1));
      await eventually(async () => assert.equal(findStatusCondition((await client.get(Memcached, key)).status?.conditions, 'Available')?.status, 'True'), {
        ...waits,
        message: 'the Memcached becomes Available',
      });

      const latest = await client.get(Memcached, key);
      latest.spec = { ...latest.spec, size: 2 };
      await client.update(latest);
      await eventually(async () => assert.equal((await client.get(V1Deployment, key)).spec?.replicas, 2), { ...waits, message: 'the Deployment follows spec.size' });

      await client.delete(await client.get(Memcached, key));
      await eventually(async () => assert.rejects(client.get(Memcached, key), (err) => isNotFound(err)), { ...waits, message: 'the Memcached is deleted once its finalizer ran' });
      await eventually(
        async () => {
          const events = await client.list(EventsV1Event, { namespace });
          assert.ok(events.items.some((e) => e.regarding?.name === key.name && e.reason === 'Deleting'), 'a Deleting event about the Memcached');
        },
        { ...waits, message: 'the finalizer records an event' },
      );
    } finally {
      stop.abort();
      await running;
    }
  });

  it('ignores a Memcached that no longer exists', async () => {
    assert.deepEqual(await reconciler.reconcile({ namespace, name: 'does-not-exist' }, context()), {});
  });
});
