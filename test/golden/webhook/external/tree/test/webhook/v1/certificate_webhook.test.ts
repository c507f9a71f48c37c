/*
Copyright The Kubernetes authors.

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
 * Tests of the Certificate webhooks served to a real kube-apiserver (kubeforge/testing) that calls
 * them as config/webhook/manifests.yaml says (`npm run manifests` writes it), with the CRDs of
 * config/crd/bases installed. The classes are called directly, with no API server, in
 * certificate_webhook.unit.test.ts (`npm run test:unit`; `npm test` runs it first).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Certificate as CertificateObject } from '@acme/cert-manager-types/v1';
import { type Client, isNoKindMatch, type Manager, newClient, newManager, newWebhookServer } from 'kubeforge/runtime';
import { TestEnvironment } from 'kubeforge/testing';
import { setupCertificateWebhookWithManager } from '../../../src/webhook/v1/certificate_webhook.js';

describe('Certificate webhook', () => {
  const env = new TestEnvironment({
    // Certificate (cert-manager.io/v1) belongs to another project: `npm run manifests` makes no CRD for it.
    // Put its CRD in config/crd/external for the test through the API server to run.
    crdDirectoryPaths: ['config/crd/bases', 'config/crd/external'],
    errorIfCRDPathMissing: false,
    webhookInstallOptions: { paths: ['config/webhook'] },
  });
  const stop = new AbortController();
  let client: Client;
  let mgr: Manager;
  let running: Promise<void>;

  before(async () => {
    const config = await env.start();
    client = newClient(config);
    // The webhook server listens where the API server was told to call (env.webhookServerOptions()).
    mgr = newManager(config, { webhookServer: newWebhookServer(env.webhookServerOptions()) });
    setupCertificateWebhookWithManager(mgr);
    running = mgr.start(stop.signal);
    await mgr.started();
    for (let i = 0; mgr.getWebhookServer().port === undefined; i++) {
      if (i === 200) throw new Error('the webhook server did not start listening within 10 s');
      await sleep(50);
    }
  });

  after(async () => {
    stop.abort();
    await running;
    await env.stop();
  });

  /** The Certificate `name`, as a user would create it. */
  const newCertificate = (name: string): CertificateObject => ({
    apiVersion: 'cert-manager.io/v1',
    kind: 'Certificate',
    metadata: { name, namespace: 'default' },
    // TODO(user): the fields its CRD requires (spec...).
  });

  it('a Certificate created through the API server passes the webhooks (their failurePolicy is Fail)', async (t) => {
    const served = await client.list({ apiVersion: 'cert-manager.io/v1', kind: 'Certificate' }, { namespace: 'default' }).then(
      () => true,
      (err: unknown) => {
        if (isNoKindMatch(err)) return false;
        throw err;
      },
    );
    if (!served) {
      t.skip('cert-manager.io/v1 Certificate is not served: put its CRD in config/crd/external to run this test');
      return;
    }
    const created = await client.create(newCertificate('test-resource'));
    assert.ok(created.metadata?.uid, 'the API server stored the Certificate');
    // TODO(user): assert on what your defaulter set, or that your validator refuses a bad Certificate:
    //   await assert.rejects(client.create(badCertificate), /must not be empty/);
    await client.delete(created);
  });

  // +kubebuilder:scaffold:webhook-server-tests
});
