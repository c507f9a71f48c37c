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
 * Tests of the Certificate controller, one body for both tiers of `npm test` (kubeforge test runs a
 * *.both.test.js file twice):
 *   - the unit tier (`npm run test:unit`, first): kubeforge/testing's FakeAPIServer, the
 *     Kubernetes API in memory in this test process, no etcd or kube-apiserver, seconds;
 *   - the full tier: a real kube-apiserver and etcd from $KUBEBUILDER_ASSETS, one control plane
 *     shared by every test file of the run.
 * startTestAPI() gives the file the API server of its tier, with the CRDs of config/crd/bases
 * installed (`npm run manifests` writes them). Each run works in a namespace of its own, and its
 * manager caches that namespace only: a manager here never reconciles another test file's objects.
 *
 * The fake keeps resourceVersion, generation, finalizers and deletion, the status subresource,
 * selectors, patches and server-side apply, and watches, and applies the CRDs' schemas; it does
 * not run conversion webhooks or garbage collection (an owned object stays when its owner goes),
 * nor most of the validation of built-in Kinds. Assert what depends on those in the full tier
 * only, and say so: `if (api.tier === 'full') { ... }`.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { type Client, isNoKindMatch, newManager, type ReconcileContext } from 'kubeforge/runtime';
import { startTestAPI, type TestAPI } from 'kubeforge/testing';
import { Certificate, CertificateReconciler } from '../../src/controller/certificate_controller.js';

describe('Certificate controller', () => {
  // Certificate (cert-manager.io/v1) belongs to another project: `npm run manifests` makes no CRD for it.
  // Put its CRD in config/crd/external (from the release of the project that owns it) for the
  // tests below to run against it; without one they say so and are skipped.
  const crds = { crdDirectoryPaths: ['config/crd/bases', 'config/crd/external'], errorIfCRDPathMissing: false };
  const suffix = randomUUID().slice(0, 8);
  const namespace = `test-${suffix}`;
  const resourceName = 'test-resource';
  const request = { namespace, name: resourceName }; // TODO(user): modify as needed
  let api: TestAPI;
  let client: Client;
  let reconciler: CertificateReconciler;
  let context: () => ReconcileContext;

  before(async () => {
    // The fake API server in the unit tier, the shared kube-apiserver in the full one.
    api = await startTestAPI(crds);
    client = api.client();
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    const mgr = newManager(api.config);
    reconciler = new CertificateReconciler(client, mgr.getEventRecorder('certificate-controller'));
    const logger = mgr.getLogger();
    context = () => ({ signal: AbortSignal.timeout(30_000), logger, reconcileID: randomUUID() });
  });

  after(async () => {
    await api.stop();
  });

  it('ignores a Certificate that no longer exists', async (t) => {
    const missing = { ...request, name: 'does-not-exist' };
    const served = await client.list(Certificate, { namespace }).then(
      () => true,
      (err: unknown) => {
        if (isNoKindMatch(err)) return false;
        throw err;
      },
    );
    if (!served) {
      // Without its CRD the reconcile fails (and is retried), it does not pass silently.
      await assert.rejects(reconciler.reconcile(missing, context()), isNoKindMatch);
      t.skip('cert-manager.io/v1 Certificate is not served: put its CRD in config/crd/external to run this test');
      return;
    }
    const result = await reconciler.reconcile(missing, context());
    assert.deepEqual(result, {});
  });

  // TODO(user): create a Certificate, reconcile it, and assert on what your reconcile changes.
});
