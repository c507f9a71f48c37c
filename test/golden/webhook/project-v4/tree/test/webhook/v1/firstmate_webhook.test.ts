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
 * Tests of the FirstMate webhooks served to a real kube-apiserver (kubeforge/testing) that calls
 * them as config/webhook/manifests.yaml says (`npm run manifests` writes it), with the CRDs of
 * config/crd/bases installed. The classes are called directly, with no API server, in
 * firstmate_webhook.unit.test.ts (`npm run test:unit`; `npm test` runs it first).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Client, type Manager, newClient, newManager, newWebhookServer } from 'kubeforge/runtime';
import { TestEnvironment } from 'kubeforge/testing';
import { FirstMate } from '../../../src/api/v1/firstmate_types.js';
import { setupFirstMateWebhookWithManager } from '../../../src/webhook/v1/firstmate_webhook.js';
import { FirstMate as FirstMateV2 } from '../../../src/api/v2/firstmate_types.js';

describe('FirstMate webhook', () => {
  const env = new TestEnvironment({
    crdDirectoryPaths: ['config/crd/bases'],
    errorIfCRDPathMissing: true,
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
    setupFirstMateWebhookWithManager(mgr);
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

  /** The FirstMate `name`, as a user would create it. */
  const newFirstMate = (name: string): FirstMate => ({
    apiVersion: 'crew.testproject.org/v1',
    kind: 'FirstMate',
    metadata: { name, namespace: 'default' },
    // TODO(user): specify other spec details if needed.
    spec: { foo: 'bar' },
  });

  it('a FirstMate created through the API server passes the webhooks (their failurePolicy is Fail)', async () => {
    const created = await client.create(newFirstMate('test-resource'));
    assert.ok(created.metadata?.uid, 'the API server stored the FirstMate');
    // TODO(user): assert on what your defaulter set, or that your validator refuses a bad FirstMate:
    //   await assert.rejects(client.create(badFirstMate), /must not be empty/);
    await client.delete(created);
  });

  it('a FirstMate v2 created through the API server is converted to v1 (the stored version) by the webhook', async () => {
    const spoke: FirstMateV2 = { apiVersion: 'crew.testproject.org/v2', kind: 'FirstMate', metadata: { name: 'from-v2', namespace: 'default' }, spec: { foo: 'bar' } };
    const created = await client.create(spoke);
    assert.ok(created.metadata?.uid, 'the API server converted and stored it');
    const hub = await client.get(FirstMate, { namespace: 'default', name: 'from-v2' });
    assert.equal(hub.apiVersion, 'crew.testproject.org/v1');
    await client.delete(created);
  });

  // +kubebuilder:scaffold:webhook-server-tests
});
