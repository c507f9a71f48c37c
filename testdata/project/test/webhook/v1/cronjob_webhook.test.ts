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
 * Tests of the CronJob webhooks through a real kube-apiserver: kubeforge/testing installs
 * config/webhook and the CRD's conversion webhook, pointed at the manager's webhook server run by
 * this test. cronjob_webhook.unit.test.ts calls the classes directly, with no API server.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Client, type Manager, newClient, newManager, newWebhookServer } from 'kubeforge/runtime';
import { TestEnvironment } from 'kubeforge/testing';
import { CronJob } from '../../../src/api/v1/cronjob_types.js';
import { setupCronJobWebhookWithManager } from '../../../src/webhook/v1/cronjob_webhook.js';
import { CronJob as CronJobV2 } from '../../../src/api/v2/cronjob_types.js';

describe('CronJob webhook', () => {
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
    setupCronJobWebhookWithManager(mgr);
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

  /** The CronJob `name`, as a user would create it: only the required fields. */
  const newCronJob = (name: string, schedule = '*/1 * * * *'): CronJob => ({
    apiVersion: 'batch.tutorial.kubebuilder.io/v1',
    kind: 'CronJob',
    metadata: { name, namespace: 'default' },
    spec: {
      schedule,
      jobTemplate: {
        spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'hello', image: 'busybox:1.36', args: ['echo', 'hello'] }] } } },
      },
    },
  });

  it('a CronJob created through the API server is defaulted by the webhook', async () => {
    const created = await client.create(newCronJob('test-resource'));
    assert.ok(created.metadata?.uid, 'the API server stored the CronJob');
    assert.equal(created.spec.concurrencyPolicy, 'Allow');
    assert.equal(created.spec.suspend, false);
    assert.equal(created.spec.successfulJobsHistoryLimit, 3);
    assert.equal(created.spec.failedJobsHistoryLimit, 1);
    await client.delete(created);
  });

  it('the API server refuses a CronJob the validator denies, with the fields named', async () => {
    await assert.rejects(client.create(newCronJob('bad-schedule', 'not a schedule')), /spec\.schedule: Invalid value: "not a schedule"/);
    await assert.rejects(client.create(newCronJob('n'.repeat(53))), /metadata\.name: Invalid value: "n{53}": must be no more than 52 characters/);
  });

  it('a CronJob v2 created through the API server is converted to v1 (the stored version) by the webhook', async () => {
    const spoke: CronJobV2 = {
      apiVersion: 'batch.tutorial.kubebuilder.io/v2',
      kind: 'CronJob',
      metadata: { name: 'from-v2', namespace: 'default' },
      spec: {
        schedule: { minute: '*/10', hour: '8' },
        jobTemplate: { spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'hello', image: 'busybox:1.36' }] } } } },
      },
    };
    const created = await client.create(spoke);
    assert.ok(created.metadata?.uid, 'the API server converted and stored it');
    const hub = await client.get(CronJob, { namespace: 'default', name: 'from-v2' });
    assert.equal(hub.apiVersion, 'batch.tutorial.kubebuilder.io/v1');
    assert.equal(hub.spec.schedule, '*/10 8 * * *');
    // The defaulter (v1) ran on the converted object too.
    assert.equal(hub.spec.concurrencyPolicy, 'Allow');
    await client.delete(created);
  });

  it('a CronJob v1 read as v2 through the API server has its schedule split by the webhook', async () => {
    const created = await client.create(newCronJob('read-as-v2', '30 6 * * 0'));
    const spoke = await client.get(CronJobV2, { namespace: 'default', name: 'read-as-v2' });
    assert.equal(spoke.apiVersion, 'batch.tutorial.kubebuilder.io/v2');
    assert.deepEqual(spoke.spec.schedule, { minute: '30', hour: '6', dayOfMonth: '*', month: '*', dayOfWeek: '0' });
    await client.delete(created);
  });

  // +kubebuilder:scaffold:webhook-server-tests
});
