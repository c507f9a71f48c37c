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
 * The webhooks of CronJob (batch.tutorial.kubebuilder.io/v1), as the Kubebuilder book writes them
 * (https://book.kubebuilder.io/cronjob-tutorial/webhook-implementation): defaults for the optional
 * fields, validation of the name and of the schedule, and the conversion from and to v2.
 * src/main.ts registers them with the manager's webhook server (unless ENABLE_WEBHOOKS=false);
 * the @Webhook decorators below become config/webhook/manifests.yaml (`npm run manifests`).
 */
import { CronExpressionParser } from 'cron-parser';
import {
  type AdmissionContext,
  type CustomDefaulter,
  type CustomValidator,
  type FieldError,
  FieldErrors,
  field,
  type Manager,
  type Warnings,
  webhookManagedBy,
} from 'kubeforge/runtime';
import { Webhook } from 'kubeforge/markers';
import { CronJob } from '../../api/v1/cronjob_types.js';
import { CronJob as CronJobV2 } from '../../api/v2/cronjob_types.js';
import { cronJobConversion as cronJobConversionV2 } from '../../api/v2/cronjob_conversion.js';

/** Registers the webhooks of CronJob with the manager's webhook server. Throws on misuse (see complete()). */
export function setupCronJobWebhookWithManager(mgr: Manager): void {
  webhookManagedBy(mgr)
    .for(CronJob)
    .withDefaulter(new CronJobCustomDefaulter())
    .withValidator(new CronJobCustomValidator())
    .withConversion(CronJobV2, cronJobConversionV2)
    // +kubebuilder:scaffold:webhook-builder
    .complete();
}

/** The defaults of the optional fields of a CronJob. */
export interface CronJobDefaults {
  concurrencyPolicy: 'Allow' | 'Forbid' | 'Replace';
  suspend: boolean;
  successfulJobsHistoryLimit: number;
  failedJobsHistoryLimit: number;
}

/**
 * CronJobCustomDefaulter sets default values on CronJob objects when they are created or
 * updated. The webhook server passes a copy of the object and answers the API server with the
 * difference (a JSON patch) between that copy before and after `default`.
 */
@Webhook({
  path: '/mutate-batch-tutorial-kubebuilder-io-v1-cronjob',
  mutating: true,
  failurePolicy: 'Fail',
  sideEffects: 'None',
  groups: ['batch.tutorial.kubebuilder.io'],
  resources: ['cronjobs'],
  verbs: ['create', 'update'],
  versions: ['v1'],
  name: 'mcronjob-v1.kb.io',
  admissionReviewVersions: ['v1'],
})
export class CronJobCustomDefaulter implements CustomDefaulter<CronJob> {
  constructor(
    readonly defaults: CronJobDefaults = { concurrencyPolicy: 'Allow', suspend: false, successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1 },
  ) {}

  /** Sets the fields the user left out to their defaults. */
  default(obj: CronJob, ctx: AdmissionContext): void {
    ctx.logger.info({ name: obj.metadata?.name }, 'defaulting for CronJob');
    obj.spec.concurrencyPolicy ??= this.defaults.concurrencyPolicy;
    obj.spec.suspend ??= this.defaults.suspend;
    obj.spec.successfulJobsHistoryLimit ??= this.defaults.successfulJobsHistoryLimit;
    obj.spec.failedJobsHistoryLimit ??= this.defaults.failedJobsHistoryLimit;
  }
}

/**
 * CronJobCustomValidator validates CronJob objects when they are created or updated: the name
 * must leave room for the suffix of the Jobs it creates, and the schedule must parse. Throwing a
 * FieldErrors denies the request and names the fields, as the API server's own errors do.
 */
@Webhook({
  path: '/validate-batch-tutorial-kubebuilder-io-v1-cronjob',
  mutating: false,
  failurePolicy: 'Fail',
  sideEffects: 'None',
  groups: ['batch.tutorial.kubebuilder.io'],
  resources: ['cronjobs'],
  verbs: ['create', 'update'],
  versions: ['v1'],
  name: 'vcronjob-v1.kb.io',
  admissionReviewVersions: ['v1'],
})
export class CronJobCustomValidator implements CustomValidator<CronJob> {
  /** Validates a CronJob being created. */
  validateCreate(obj: CronJob, ctx: AdmissionContext): Warnings | void {
    ctx.logger.info({ name: obj.metadata?.name }, 'validation for CronJob upon creation');
    validateCronJob(obj);
  }

  /** Validates a CronJob being updated to `newObj` (the old object, `_oldObj`, is not needed here). */
  validateUpdate(_oldObj: CronJob, newObj: CronJob, ctx: AdmissionContext): Warnings | void {
    ctx.logger.info({ name: newObj.metadata?.name }, 'validation for CronJob upon update');
    validateCronJob(newObj);
  }

  /** Validates a CronJob being deleted (not called: 'delete' is not in the verbs above). */
  validateDelete(obj: CronJob, ctx: AdmissionContext): Warnings | void {
    ctx.logger.info({ name: obj.metadata?.name }, 'validation for CronJob upon deletion');
  }
}

/**
 * The longest CronJob name: a Job name is a DNS-1035 label (at most 63 characters), and the
 * controller appends `-` and the scheduled time in seconds (11 characters) to the CronJob's name.
 */
export const maxCronJobNameLength = 63 - 11;

/** Throws a FieldErrors listing every problem of `cronJob`; returns when there is none. */
export function validateCronJob(cronJob: CronJob): void {
  const errors: FieldError[] = [];
  const name = cronJob.metadata?.name ?? '';
  if (name.length > maxCronJobNameLength) {
    errors.push(field.invalid('metadata.name', name, `must be no more than ${maxCronJobNameLength} characters`));
  }
  const scheduleError = validateScheduleFormat(cronJob.spec.schedule);
  if (scheduleError) errors.push(field.invalid('spec.schedule', cronJob.spec.schedule, scheduleError));
  if (errors.length > 0) throw new FieldErrors(errors, { kind: 'CronJob', group: 'batch.tutorial.kubebuilder.io', name });
}

/**
 * Why `schedule` is not a standard cron expression (five fields: minute, hour, day of month,
 * month, day of week), or undefined when it is one.
 */
export function validateScheduleFormat(schedule: string): string | undefined {
  const fields = schedule.trim().split(/\s+/).filter(Boolean);
  if (fields.length !== 5) return `expected exactly 5 fields, found ${fields.length}: ${JSON.stringify(schedule)}`;
  try {
    CronExpressionParser.parse(schedule, { tz: 'UTC' });
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

// +kubebuilder:scaffold:webhook
