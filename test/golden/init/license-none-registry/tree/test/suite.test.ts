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

describe('memcached-operator', () => {
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
