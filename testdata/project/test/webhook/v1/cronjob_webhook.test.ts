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
 * Tests of the CronJob webhooks: the defaulter, the validator and the v1 <-> v2 conversion, called
 * directly and through a real kube-apiserver (kubeforge/testing installs config/webhook and the
 * CRD's conversion webhook, pointed at the manager's webhook server run by this test).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type AdmissionContext, type Client, FieldErrors, type Manager, newClient, newManager, newWebhookServer } from 'kubeforge/runtime';
import { TestEnvironment } from 'kubeforge/testing';
import { CronJob } from '../../../src/api/v1/cronjob_types.js';
import { CronJobCustomDefaulter, CronJobCustomValidator, setupCronJobWebhookWithManager } from '../../../src/webhook/v1/cronjob_webhook.js';
import { CronJob as CronJobV2 } from '../../../src/api/v2/cronjob_types.js';
import { cronJobConversion as cronJobConversionV2 } from '../../../src/api/v2/cronjob_conversion.js';

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
  let logger: AdmissionContext['logger'];

  before(async () => {
    const config = await env.start();
    client = newClient(config);
    // The webhook server listens where the API server was told to call (env.webhookServerOptions()).
    mgr = newManager(config, { webhookServer: newWebhookServer(env.webhookServerOptions()) });
    logger = mgr.getLogger();
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

  /** What the webhook server hands the defaulter and the validator for a request about `obj`. */
  const admission = (operation: 'CREATE' | 'UPDATE' | 'DELETE', obj: CronJob): AdmissionContext => ({
    request: {
      uid: randomUUID(),
      kind: { group: 'batch.tutorial.kubebuilder.io', version: 'v1', kind: 'CronJob' },
      resource: { group: 'batch.tutorial.kubebuilder.io', version: 'v1', resource: 'cronjobs' },
      name: obj.metadata?.name,
      namespace: obj.metadata?.namespace,
      operation,
      userInfo: { username: 'test' },
      object: obj,
      dryRun: false,
    },
    dryRun: false,
    logger,
    signal: AbortSignal.timeout(10_000),
  });

  /** The fields a FieldErrors thrown by `fn` names. */
  function deniedFields(fn: () => unknown): string[] {
    try {
      fn();
    } catch (err) {
      assert.ok(err instanceof FieldErrors, `expected FieldErrors, got ${String(err)}`);
      return err.errors.map((e) => e.field);
    }
    assert.fail('expected the validator to throw');
  }

  it('CronJobCustomDefaulter sets the defaults and keeps what the user set', async () => {
    const obj = newCronJob('defaulted');
    await new CronJobCustomDefaulter().default(obj, admission('CREATE', obj));
    assert.equal(obj.spec.concurrencyPolicy, 'Allow');
    assert.equal(obj.spec.suspend, false);
    assert.equal(obj.spec.successfulJobsHistoryLimit, 3);
    assert.equal(obj.spec.failedJobsHistoryLimit, 1);

    const set = newCronJob('set');
    set.spec.concurrencyPolicy = 'Forbid';
    set.spec.successfulJobsHistoryLimit = 0;
    await new CronJobCustomDefaulter().default(set, admission('CREATE', set));
    assert.equal(set.spec.concurrencyPolicy, 'Forbid');
    assert.equal(set.spec.successfulJobsHistoryLimit, 0);
  });

  it('CronJobCustomValidator allows a valid CronJob', async () => {
    const obj = newCronJob('valid', '0 9-17 * * 1-5');
    assert.equal(await new CronJobCustomValidator().validateCreate(obj, admission('CREATE', obj)), undefined);
    assert.equal(await new CronJobCustomValidator().validateUpdate(obj, obj, admission('UPDATE', obj)), undefined);
    assert.equal(await new CronJobCustomValidator().validateDelete(obj, admission('DELETE', obj)), undefined);
  });

  it('CronJobCustomValidator refuses a schedule that is not a cron expression', () => {
    const validator = new CronJobCustomValidator();
    for (const schedule of ['*/1 * * *', 'every minute', '61 * * * *', '* * * * * *']) {
      const obj = newCronJob('bad-schedule', schedule);
      assert.deepEqual(deniedFields(() => validator.validateCreate(obj, admission('CREATE', obj))), ['spec.schedule'], schedule);
    }
  });

  it('CronJobCustomValidator refuses a name longer than 52 characters, on create and update', () => {
    const validator = new CronJobCustomValidator();
    const ok = newCronJob('a'.repeat(52));
    assert.equal(validator.validateCreate(ok, admission('CREATE', ok)), undefined);
    const long = newCronJob('a'.repeat(53));
    assert.deepEqual(deniedFields(() => validator.validateCreate(long, admission('CREATE', long))), ['metadata.name']);
    assert.deepEqual(deniedFields(() => validator.validateUpdate(long, long, admission('UPDATE', long))), ['metadata.name']);
  });

  it('cronJobConversion (v2) round-trips v1 -> v2 -> v1 and splits the schedule into its fields', async () => {
    const hub = newCronJob('converted', '*/5 0 1 * 1-5');
    hub.spec.concurrencyPolicy = 'Replace';
    hub.status = { lastScheduleTime: '2026-01-01T00:05:00Z' };
    const spoke = await cronJobConversionV2.convertFrom(hub);
    assert.deepEqual(spoke.spec.schedule, { minute: '*/5', hour: '0', dayOfMonth: '1', month: '*', dayOfWeek: '1-5' });
    assert.equal(spoke.spec.concurrencyPolicy, 'Replace');
    const back = await cronJobConversionV2.convertTo(spoke);
    assert.deepEqual(back.spec, hub.spec);
    assert.deepEqual(back.status, hub.status);
  });

  it('cronJobConversion (v2) writes an absent field as *', async () => {
    const spoke: CronJobV2 = {
      apiVersion: 'batch.tutorial.kubebuilder.io/v2',
      kind: 'CronJob',
      metadata: { name: 'sparse' },
      spec: { schedule: { minute: '0', hour: '12' }, jobTemplate: {} },
    };
    assert.equal((await cronJobConversionV2.convertTo(spoke)).spec.schedule, '0 12 * * *');
  });

  // +kubebuilder:scaffold:webhook-tests

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
