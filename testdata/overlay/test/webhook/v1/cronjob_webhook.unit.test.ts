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
 * Unit tests of the CronJob webhooks: the defaulter, the validator and the v1 <-> v2 conversion
 * called directly, as the webhook server calls them. No API server: `npm run test:unit` runs them
 * alone, and `npm test` runs them before cronjob_webhook.test.ts, where a real kube-apiserver
 * calls the webhooks (kubeforge/testing's FakeAPIServer calls none).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { type AdmissionContext, FieldErrors, newLogger } from 'kubeforge/runtime';
import { CronJob } from '../../../src/api/v1/cronjob_types.js';
import { CronJobCustomDefaulter, CronJobCustomValidator } from '../../../src/webhook/v1/cronjob_webhook.js';
import { CronJob as CronJobV2 } from '../../../src/api/v2/cronjob_types.js';
import { cronJobConversion as cronJobConversionV2 } from '../../../src/api/v2/cronjob_conversion.js';

describe('CronJob webhook, called directly', () => {
  // What the classes log goes to the test output; errors only.
  const logger = newLogger({ development: true, level: 'error' });

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
});
