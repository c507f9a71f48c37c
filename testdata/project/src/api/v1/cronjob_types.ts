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

import type { V1JobTemplateSpec, V1ObjectMeta, V1ObjectReference } from '@kubernetes/client-node';
import {
  ConversionWebhook,
  MinLength,
  Minimum,
  Optional,
  PrintColumn,
  Resource,
  Root,
  StorageVersion,
  SubresourceStatus,
  type int32,
  type int64,
  type Time,
} from 'kubeforge/markers';

// The CronJob of the Kubebuilder book's tutorial (https://book.kubebuilder.io/cronjob-tutorial/api-design),
// in TypeScript. v1 is the hub of the conversion: the version stored in etcd.

/**
 * ConcurrencyPolicy describes how the job will be handled.
 * Only one of the following concurrent policies may be specified.
 * If none of the following policies is specified, the default one
 * is AllowConcurrent.
 */
export type ConcurrencyPolicy = 'Allow' | 'Forbid' | 'Replace';

/** CronJobSpec defines the desired state of CronJob. */
export class CronJobSpec {
  /** The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron. */
  @MinLength(0)
  schedule!: string;

  /**
   * Optional deadline in seconds for starting the job if it misses scheduled
   * time for any reason.  Missed jobs executions will be counted as failed ones.
   */
  @Minimum(0)
  startingDeadlineSeconds?: int64;

  /**
   * Specifies how to treat concurrent executions of a Job.
   * Valid values are:
   * - "Allow" (default): allows CronJobs to run concurrently;
   * - "Forbid": forbids concurrent runs, skipping next run if previous run hasn't finished yet;
   * - "Replace": cancels currently running job and replaces it with a new one
   */
  concurrencyPolicy?: ConcurrencyPolicy;

  /**
   * This flag tells the controller to suspend subsequent executions, it does
   * not apply to already started executions.  Defaults to false.
   */
  suspend?: boolean;

  /** Specifies the job that will be created when executing a CronJob. */
  jobTemplate!: V1JobTemplateSpec;

  /**
   * The number of successful finished jobs to retain.
   * This is a pointer to distinguish between explicit zero and not specified.
   */
  @Minimum(0)
  successfulJobsHistoryLimit?: int32;

  /**
   * The number of failed finished jobs to retain.
   * This is a pointer to distinguish between explicit zero and not specified.
   */
  @Minimum(0)
  failedJobsHistoryLimit?: int32;
}

/** CronJobStatus defines the observed state of CronJob. */
export class CronJobStatus {
  /** A list of pointers to currently running jobs. */
  @Optional()
  active?: V1ObjectReference[];

  /** Information when was the last time the job was successfully scheduled. */
  @Optional()
  lastScheduleTime?: Time;
}

/** CronJob is the Schema for the cronjobs API. */
@Root()
@SubresourceStatus()
@StorageVersion()
@ConversionWebhook()
@Resource({ shortName: ['cj'], categories: ['all'] })
@PrintColumn({ name: 'Schedule', type: 'string', jsonPath: '.spec.schedule' })
@PrintColumn({ name: 'Suspend', type: 'boolean', jsonPath: '.spec.suspend' })
@PrintColumn({ name: 'Last Schedule', type: 'date', jsonPath: '.status.lastScheduleTime' })
export class CronJob {
  /** The handle kubeforge/runtime addresses this Kind by: `client.get(CronJob, ...)`, `for(CronJob)`. */
  static readonly gvk = { group: 'batch.tutorial.kubebuilder.io', version: 'v1', kind: 'CronJob' } as const;
  static readonly plural = 'cronjobs';
  static readonly namespaced = true;

  apiVersion?: string = 'batch.tutorial.kubebuilder.io/v1';
  kind?: string = 'CronJob';

  /** metadata is a standard object metadata. */
  metadata?: V1ObjectMeta;

  /** spec defines the desired state of CronJob. */
  spec!: CronJobSpec;

  /** status defines the observed state of CronJob. */
  status?: CronJobStatus;
}
