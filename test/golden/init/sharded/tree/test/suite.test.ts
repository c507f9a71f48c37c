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
 * Tests run against a real kube-apiserver and etcd started by kubeforge/testing from the
 * binaries in $KUBEBUILDER_ASSETS (`make setup-envtest` prints that folder). The CRDs under
 * config/crd/bases are installed first, once `kubeforge create api` and `npm run manifests`
 * have written some.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { TestEnvironment } from 'kubeforge/testing';
// +kubebuilder:scaffold:test-imports

describe('guestbook', () => {
  const env = new TestEnvironment({ crdDirectoryPaths: ['config/crd/bases'], errorIfCRDPathMissing: false });
  let config: KubeConfig;

  before(async () => {
    config = await env.start();
  });

  after(async () => {
    await env.stop();
  });

  it('talks to the test API server', async () => {
    const core = config.makeApiClient(CoreV1Api);
    const created = await core.createNamespace({ body: { metadata: { name: 'suite-smoke' } } });
    assert.equal(created.metadata?.name, 'suite-smoke');
    const read = await core.readNamespace({ name: 'suite-smoke' });
    assert.equal(read.status?.phase, 'Active');
  });

  // +kubebuilder:scaffold:tests
});
