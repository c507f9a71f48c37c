/**
 * Tests of the Destroyer webhooks served to a real kube-apiserver (kubeforge/testing) that calls
 * them as config/webhook/manifests.yaml says (`npm run manifests` writes it), with the CRDs of
 * config/crd/bases installed. The classes are called directly, with no API server, in
 * destroyer_webhook.unit.test.ts (`npm run test:unit`; `npm test` runs it first).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Client, type Manager, newClient, newManager, newWebhookServer } from 'kubeforge/runtime';
import { TestEnvironment } from 'kubeforge/testing';
import { Destroyer } from '../../../../src/api/ship/v1/destroyer_types.js';
import { setupDestroyerWebhookWithManager } from '../../../../src/webhook/ship/v1/destroyer_webhook.js';
import { Destroyer as DestroyerV1beta1 } from '../../../../src/api/ship/v1beta1/destroyer_types.js';

describe('Destroyer webhook', () => {
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
    setupDestroyerWebhookWithManager(mgr);
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

  /** The Destroyer `name`, as a user would create it. */
  const newDestroyer = (name: string): Destroyer => ({
    apiVersion: 'ship.testproject.org/v1',
    kind: 'Destroyer',
    metadata: { name },
    // TODO(user): specify other spec details if needed.
    spec: { foo: 'bar' },
  });

  it('a Destroyer created through the API server passes the webhooks (their failurePolicy is Fail)', async () => {
    const created = await client.create(newDestroyer('test-resource'));
    assert.ok(created.metadata?.uid, 'the API server stored the Destroyer');
    // TODO(user): assert on what your defaulter set, or that your validator refuses a bad Destroyer:
    //   await assert.rejects(client.create(badDestroyer), /must not be empty/);
    await client.delete(created);
  });

  it('a Destroyer v1beta1 created through the API server is converted to v1 (the stored version) by the webhook', async () => {
    const spoke: DestroyerV1beta1 = { apiVersion: 'ship.testproject.org/v1beta1', kind: 'Destroyer', metadata: { name: 'from-v1beta1' }, spec: { foo: 'bar' } };
    const created = await client.create(spoke);
    assert.ok(created.metadata?.uid, 'the API server converted and stored it');
    const hub = await client.get(Destroyer, { name: 'from-v1beta1' });
    assert.equal(hub.apiVersion, 'ship.testproject.org/v1');
    await client.delete(created);
  });

  // +kubebuilder:scaffold:webhook-server-tests
});
