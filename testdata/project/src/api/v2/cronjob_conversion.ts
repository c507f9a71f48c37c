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
 * How CronJob v2 (a spoke) converts to and from v1, the hub: the version stored in etcd
 * (@StorageVersion). The API server asks the manager's webhook server to convert every CronJob
 * it reads or writes in another version than the stored one; each conversion goes through the
 * hub (spoke -> hub -> other spoke). v1 writes the schedule as one string, v2 as its five fields.
 */
import type { Conversion } from 'kubeforge/runtime';
import type { CronJob as CronJobV1 } from '../v1/cronjob_types.js';
import type { CronJob, CronSchedule } from './cronjob_types.js';

/** The fields of a v2 schedule in the order a cron expression writes them. */
const SCHEDULE_FIELDS = ['minute', 'hour', 'dayOfMonth', 'month', 'dayOfWeek'] as const;

/** Registered by src/webhook/v1/cronjob_webhook.ts with `.withConversion(...)`. */
export const cronJobConversion: Conversion<CronJob, CronJobV1> = {
  /** Converts a CronJob v2 to the hub version (v1): the fields joined, `*` for an absent one. */
  convertTo(src: CronJob): CronJobV1 {
    const { schedule, ...rest } = src.spec;
    return {
      apiVersion: 'batch.tutorial.kubebuilder.io/v1',
      kind: 'CronJob',
      metadata: src.metadata,
      spec: { ...rest, schedule: SCHEDULE_FIELDS.map((f) => schedule[f] ?? '*').join(' ') },
      status: src.status && { ...src.status },
    };
  },

  /**
   * Converts the hub version (v1) to a CronJob v2: the schedule split at spaces. Throws (the
   * API server then fails the request) when it does not have five fields.
   */
  convertFrom(src: CronJobV1): CronJob {
    const { schedule, ...rest } = src.spec;
    const parts = schedule.trim().split(/\s+/);
    if (parts.length !== SCHEDULE_FIELDS.length) {
      throw new Error(`couldn't convert schedule ${JSON.stringify(schedule)}: expected 5 fields, found ${parts.length}`);
    }
    const fields: CronSchedule = {};
    SCHEDULE_FIELDS.forEach((f, i) => {
      fields[f] = parts[i];
    });
    return {
      apiVersion: 'batch.tutorial.kubebuilder.io/v2',
      kind: 'CronJob',
      metadata: src.metadata,
      spec: { ...rest, schedule: fields },
      status: src.status && { ...src.status },
    };
  },
};
