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
 * Unit tests of the ClusterIssuer controller on kubeforge/testing's FakeAPIServer: the Kubernetes API
 * served from memory over HTTP on 127.0.0.1 by this test process, with the CRDs of the folders
 * below that exist. It needs no etcd or kube-apiserver: `npm run test:unit` runs these tests
 * alone, in seconds, and `npm test` runs them before clusterissuer_controller.test.ts (the same
 * tests against a real API server).
 *
 * Like the API server, the fake keeps resourceVersion, generation, finalizers and deletion, the
 * status subresource, selectors, patches and server-side apply, and watches, and applies the
 * CRDs' schemas (pruning, defaults, validation, CEL rules): the client, and a whole manager with
 * its watches, run on it unchanged. It does not run admission or conversion webhooks, garbage
 * collection (an owned object stays when its owner goes), or most of the validation of built-in
 * Kinds beyond their metadata and field types (it applies their defaults and a few of their
 * rules, a Deployment's selector and containers among them, as the server does): test what
 * depends on those against the real API server.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { type Client, isNoKindMatch, newManager, type ReconcileContext } from 'kubeforge/runtime';
import { FakeAPIServer } from 'kubeforge/testing';
import { ClusterIssuer, ClusterIssuerReconciler } from '../../src/controller/clusterissuer_controller.js';

describe('ClusterIssuer controller on the fake API server', () => {
  // ClusterIssuer (cert-manager.io/v1) belongs to another project: `npm run manifests` makes no CRD for it.
  // Put its CRD in config/crd/external (from the release of the project that owns it) for the
  // tests below to run against it; without one they say so and are skipped.
  const crdDirectoryPaths = ['config/crd/bases', 'config/crd/external'].filter((path) => existsSync(path));
  const namespace = ''; // ClusterIssuer is cluster-scoped
  const resourceName = 'test-resource';
  const request = { namespace, name: resourceName }; // TODO(user): modify as needed
  let fake: FakeAPIServer;
  let client: Client;
  let reconciler: ClusterIssuerReconciler;
  let context: () => ReconcileContext;

  before(async () => {
    // A server of this file's own: no other test file's objects, no namespace to share.
    fake = await FakeAPIServer.start({ crdDirectoryPaths });
    client = fake.client();
    const mgr = newManager(fake.config);
    reconciler = new ClusterIssuerReconciler(client, mgr.getEventRecorder('clusterissuer-controller'));
    const logger = mgr.getLogger();
    context = () => ({ signal: AbortSignal.timeout(30_000), logger, reconcileID: randomUUID() });
  });

  after(async () => {
    await fake.stop();
  });

  it('ignores a ClusterIssuer that no longer exists', async (t) => {
    const missing = { ...request, name: 'does-not-exist' };
    const served = await client.list(ClusterIssuer).then(
      () => true,
      (err: unknown) => {
        if (isNoKindMatch(err)) return false;
        throw err;
      },
    );
    if (!served) {
      // Without its CRD the reconcile fails (and is retried), it does not pass silently.
      await assert.rejects(reconciler.reconcile(missing, context()), isNoKindMatch);
      t.skip('cert-manager.io/v1 ClusterIssuer is not served: put its CRD in config/crd/external to run this test');
      return;
    }
    const result = await reconciler.reconcile(missing, context());
    assert.deepEqual(result, {});
  });

  // TODO(user): create a ClusterIssuer, reconcile it, and assert on what your reconcile changes.
});
