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
 * Tests of the Pod controller against a real kube-apiserver and etcd started by
 * kubeforge/testing from $KUBEBUILDER_ASSETS, with the CRDs of config/crd/bases installed
 * (`npm run manifests` writes them). `npm test` runs every test file against one control plane
 * (kubeforge test), so each file works in a namespace of its own, and its manager caches
 * that namespace only: a manager here never reconciles another test file's objects.
 * pod_controller.unit.test.ts runs the same assertions on kubeforge/testing's FakeAPIServer, with no
 * control plane (`npm run test:unit`; `npm test` runs it first).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { type Client, newClient, newManager, type ReconcileContext } from 'kubeforge/runtime';
import { TestEnvironment } from 'kubeforge/testing';
import { PodReconciler } from '../../src/controller/pod_controller.js';

describe('Pod controller', () => {
  const env = new TestEnvironment({ crdDirectoryPaths: ['config/crd/bases'], errorIfCRDPathMissing: false });
  const suffix = randomUUID().slice(0, 8);
  const namespace = `test-${suffix}`;
  const resourceName = 'test-resource';
  const request = { namespace, name: resourceName }; // TODO(user): modify as needed
  let client: Client;
  let reconciler: PodReconciler;
  let context: () => ReconcileContext;

  before(async () => {
    const config = await env.start();
    client = newClient(config);
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    const mgr = newManager(config);
    reconciler = new PodReconciler(client, mgr.getEventRecorder('pod-controller'));
    const logger = mgr.getLogger();
    context = () => ({ signal: AbortSignal.timeout(30_000), logger, reconcileID: randomUUID() });
  });

  after(async () => {
    await env.stop();
  });

  it('ignores a Pod that no longer exists', async () => {
    const result = await reconciler.reconcile({ ...request, name: 'does-not-exist' }, context());
    assert.deepEqual(result, {});
  });

  // TODO(user): create a Pod, reconcile it, and assert on what your reconcile changes.
});
