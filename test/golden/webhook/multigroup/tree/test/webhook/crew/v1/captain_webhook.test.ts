/**
 * Tests of the Captain webhooks served to a real kube-apiserver (kubeforge/testing) that calls
 * them as config/webhook/manifests.yaml says (`npm run manifests` writes it), with the CRDs of
 * config/crd/bases installed. The classes are called directly, with no API server, in
 * captain_webhook.unit.test.ts (`npm run test:unit`; `npm test` runs it first).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Client, type Manager, newClient, newManager, newWebhookServer } from 'kubeforge/runtime';
import { TestEnvironment } from 'kubeforge/testing';
import { Captain } from '../../../../src/api/crew/v1/captain_types.js';
import { setupCaptainWebhookWithManager } from '../../../../src/webhook/crew/v1/captain_webhook.js';

describe('Captain webhook', () => {
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
    setupCaptainWebhookWithManager(mgr);
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

  /** The Captain `name`, as a user would create it. */
  const newCaptain = (name: string): Captain => ({
    apiVersion: 'crew.testproject.org/v1',
    kind: 'Captain',
    metadata: { name, namespace: 'default' },
    // TODO(user): specify other spec details if needed.
    spec: { foo: 'bar' },
  });

  it('a Captain created through the API server passes the webhooks (their failurePolicy is Fail)', async () => {
    const created = await client.create(newCaptain('test-resource'));
    assert.ok(created.metadata?.uid, 'the API server stored the Captain');
    // TODO(user): assert on what your defaulter set, or that your validator refuses a bad Captain:
    //   await assert.rejects(client.create(badCaptain), /must not be empty/);
    await client.delete(created);
  });

  // +kubebuilder:scaffold:webhook-server-tests
});
