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

import { V1Job, type V1ObjectReference } from '@kubernetes/client-node';
import { CronExpressionParser } from 'cron-parser';
import {
  type Client,
  controllerManagedBy,
  type EventRecorder,
  getControllerOf,
  isNotFound,
  type Manager,
  type ReconcileContext,
  type Request,
  type Result,
  setControllerReference,
} from 'kubeforge/runtime';
import { Rbac } from 'kubeforge/markers';
import { CronJob } from '../api/v1/cronjob_types.js';

// The CronJob controller of the Kubebuilder book (https://book.kubebuilder.io/cronjob-tutorial/controller-implementation),
// in TypeScript.

/** The annotation on each Job: the time it was scheduled for (RFC 3339). */
export const scheduledTimeAnnotation = 'batch.tutorial.kubebuilder.io/scheduled-at';
/** The label on each Job: the name of the CronJob that created it (the Jobs are listed by it). */
export const cronJobNameLabel = 'batch.tutorial.kubebuilder.io/cronjob';

/** The most missed runs the controller will count before it gives up on a CronJob. */
const maxMissedRuns = 100;

/** Options of the CronJobReconciler. */
export interface CronJobReconcilerOptions {
  /** The clock: the current time (default `new Date()`). Tests pass a fixed time. */
  now?: () => Date;
}

/** CronJobReconciler reconciles a CronJob object: it runs its Jobs on its schedule. */
@Rbac({ groups: ['batch.tutorial.kubebuilder.io'], resources: ['cronjobs'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] })
@Rbac({ groups: ['batch.tutorial.kubebuilder.io'], resources: ['cronjobs/status'], verbs: ['get', 'update', 'patch'] })
@Rbac({ groups: ['batch.tutorial.kubebuilder.io'], resources: ['cronjobs/finalizers'], verbs: ['update'] })
@Rbac({ groups: ['batch'], resources: ['jobs'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] })
@Rbac({ groups: ['batch'], resources: ['jobs/status'], verbs: ['get'] })
@Rbac({ groups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] })
export class CronJobReconciler {
  private readonly now: () => Date;
  private recorder: EventRecorder | undefined;

  /**
   * `recorder` records what the controller does to the Jobs (SuccessfulCreate, SuccessfulDelete,
   * JobAlreadyActive, MissSchedule, as Kubernetes' own CronJob controller); setupWithManager
   * takes the manager's when none is given, and without either nothing is recorded.
   */
  constructor(
    readonly client: Client,
    recorder?: EventRecorder,
    options: CronJobReconcilerOptions = {},
  ) {
    this.now = options.now ?? (() => new Date());
    this.recorder = recorder;
  }

  /**
   * Brings the Jobs of the CronJob named in `request` in line with its schedule: records the
   * running ones in its status, deletes finished ones beyond the history limits, starts the most
   * recent missed run (unless suspended, too late or forbidden by the concurrency policy) and
   * asks to come back at the next scheduled time. Throwing requeues the request with back-off.
   */
  async reconcile(request: Request, ctx: ReconcileContext): Promise<Result> {
    const log = ctx.logger;

    // 1. Load the CronJob by name.
    let cronJob: CronJob;
    try {
      cronJob = await this.client.get(CronJob, request, { signal: ctx.signal });
    } catch (err) {
      // Deleted after the event was queued: nothing to do (its Jobs are garbage collected).
      if (isNotFound(err)) return {};
      throw err;
    }

    // 2. List its Jobs and sort them into active, successful and failed ones.
    const jobs = await this.client.list(V1Job, {
      namespace: request.namespace,
      labelSelector: { [cronJobNameLabel]: request.name },
      signal: ctx.signal,
    });
    const active: V1Job[] = [];
    const successful: V1Job[] = [];
    const failed: V1Job[] = [];
    let mostRecentTime: Date | undefined;
    for (const job of jobs.items) {
      // A Job with the label that another object (or a former CronJob of that name) controls is not ours.
      if (getControllerOf(job)?.uid !== cronJob.metadata?.uid) continue;
      const finished = finishedType(job);
      if (finished === undefined) active.push(job);
      else if (finished === 'Complete') successful.push(job);
      else failed.push(job);

      // The scheduled time is on the Job, so the CronJob's status can be rebuilt from its Jobs.
      const scheduledAt = scheduledTimeOf(job);
      if (scheduledAt && (!mostRecentTime || scheduledAt > mostRecentTime)) mostRecentTime = scheduledAt;
    }

    // 3. Update the status: the running Jobs and the last scheduled time.
    cronJob.status = { ...cronJob.status, active: active.map(referenceTo) };
    if (mostRecentTime) cronJob.status.lastScheduleTime = rfc3339(mostRecentTime);
    else delete cronJob.status.lastScheduleTime;
    log.debug({ active: active.length, successful: successful.length, failed: failed.length }, 'job count');
    await this.client.status().update(cronJob, { signal: ctx.signal });

    // 4. Delete the finished Jobs beyond the history limits, oldest first.
    await this.deleteOldest(cronJob, failed, cronJob.spec.failedJobsHistoryLimit, ctx);
    await this.deleteOldest(cronJob, successful, cronJob.spec.successfulJobsHistoryLimit, ctx);

    // 5. A suspended CronJob runs nothing.
    if (cronJob.spec.suspend) {
      log.debug('cronjob suspended, skipping');
      return {};
    }

    // 6. Find the next run, and the most recent one missed.
    const now = this.now();
    const { lastMissed, next } = this.getNextSchedule(cronJob, now);
    const scheduledResult: Result = { requeueAfterSeconds: (next.getTime() - now.getTime()) / 1000 };
    log.debug({ now: now.toISOString(), nextRun: next.toISOString() }, 'next run');
    if (!lastMissed) {
      log.debug('no upcoming scheduled times, sleeping until next');
      return scheduledResult;
    }

    // 7. Run it unless it is too late, or the concurrency policy forbids it.
    const deadline = cronJob.spec.startingDeadlineSeconds;
    if (deadline !== undefined && lastMissed.getTime() + deadline * 1000 < now.getTime()) {
      log.debug({ missedRun: lastMissed.toISOString() }, 'missed starting deadline for last run, sleeping till next');
      this.recorder?.eventf(cronJob, null, 'Warning', 'MissSchedule', 'Skip', 'Missed scheduled time to start a job: %s', rfc3339(lastMissed));
      return scheduledResult;
    }
    const policy = cronJob.spec.concurrencyPolicy ?? 'Allow';
    if (policy === 'Forbid' && active.length > 0) {
      log.debug({ active: active.length }, 'concurrency policy blocks concurrent runs, skipping');
      this.recorder?.eventf(cronJob, null, 'Normal', 'JobAlreadyActive', 'Skip', 'Not starting job because prior execution is running and concurrency policy is Forbid');
      return scheduledResult;
    }
    if (policy === 'Replace') {
      for (const job of active) await this.deleteJob(cronJob, job, ctx);
    }

    // 8. Create the Job of the missed run, controlled by the CronJob.
    const job = this.constructJobForCronJob(cronJob, lastMissed);
    await this.client.create(job, { signal: ctx.signal });
    log.info({ job: job.metadata?.name, scheduledAt: lastMissed.toISOString() }, 'created Job for CronJob run');
    this.recorder?.eventf(cronJob, job, 'Normal', 'SuccessfulCreate', 'Create', 'Created job %s', job.metadata?.name);

    // 9. Come back at the next scheduled time (or when a Job changes).
    return scheduledResult;
  }

  /**
   * The most recent scheduled time at or before `now` that has not run yet (none when every run
   * since the last one is in the future), and the next scheduled time after `now`. Throws on a
   * schedule that does not parse, and after more than 100 missed runs (set or lower
   * startingDeadlineSeconds, or check the clock).
   */
  getNextSchedule(cronJob: CronJob, now: Date): { lastMissed: Date | undefined; next: Date } {
    const parse = (from: Date) => CronExpressionParser.parse(cronJob.spec.schedule, { currentDate: from, tz: 'UTC' });

    // Start from the last run, or from the creation of the CronJob if it never ran.
    const lastScheduleTime = cronJob.status?.lastScheduleTime;
    let earliest = lastScheduleTime ? new Date(lastScheduleTime) : (cronJob.metadata?.creationTimestamp ?? now);
    const deadline = cronJob.spec.startingDeadlineSeconds;
    if (deadline !== undefined) {
      // Runs older than the deadline cannot start any more: no need to look at them.
      const schedulingDeadline = new Date(now.getTime() - deadline * 1000);
      if (schedulingDeadline > earliest) earliest = schedulingDeadline;
    }
    const next = parse(now).next().toDate();
    if (earliest > now) return { lastMissed: undefined, next };

    let lastMissed: Date | undefined;
    let starts = 0;
    const times = parse(earliest);
    for (let t = times.next().toDate(); t <= now; t = times.next().toDate()) {
      lastMissed = t;
      // An object created long ago, or a clock that jumped, would make this loop long.
      if (++starts > maxMissedRuns) {
        throw new Error(`Too many missed start times (> ${maxMissedRuns}). Set or decrease .spec.startingDeadlineSeconds or check clock skew.`);
      }
    }
    return { lastMissed, next };
  }

  /** The Job of the run scheduled at `scheduledTime`: the template, named after the CronJob and the time. */
  private constructJobForCronJob(cronJob: CronJob, scheduledTime: Date): V1Job {
    const template = cronJob.spec.jobTemplate;
    // A name per run, so that a run is created once however often we reconcile.
    const name = `${cronJob.metadata?.name}-${Math.floor(scheduledTime.getTime() / 1000)}`;
    const job: V1Job = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: {
        name,
        namespace: cronJob.metadata?.namespace,
        labels: { ...template.metadata?.labels, [cronJobNameLabel]: cronJob.metadata?.name ?? '' },
        annotations: { ...template.metadata?.annotations, [scheduledTimeAnnotation]: rfc3339(scheduledTime) },
      },
      spec: structuredClone(template.spec),
    };
    setControllerReference(cronJob, job);
    return job;
  }

  /** Deletes the oldest of `jobs` (by start time) until at most `limit` are left; no limit keeps all. */
  private async deleteOldest(cronJob: CronJob, jobs: V1Job[], limit: number | undefined, ctx: ReconcileContext): Promise<void> {
    if (limit === undefined) return;
    const byStart = [...jobs].sort((a, b) => startOf(a) - startOf(b));
    for (const job of byStart.slice(0, Math.max(0, byStart.length - limit))) {
      await this.deleteJob(cronJob, job, ctx);
    }
  }

  /**
   * Deletes a Job of the CronJob; gone already is fine. Background: the garbage collector deletes
   * its Pods after it.
   */
  private async deleteJob(cronJob: CronJob, job: V1Job, ctx: ReconcileContext): Promise<void> {
    try {
      await this.client.delete(job, { propagationPolicy: 'Background', signal: ctx.signal });
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    ctx.logger.debug({ job: job.metadata?.name }, 'deleted job');
    this.recorder?.eventf(cronJob, job, 'Normal', 'SuccessfulDelete', 'Delete', 'Deleted job %s', job.metadata?.name);
  }

  /**
   * Sets up the controller with the Manager: reconcile on every change to a CronJob or to a Job
   * it controls. Events are recorded with the manager's recorder unless one was given.
   */
  setupWithManager(mgr: Manager): void {
    this.recorder ??= mgr.getEventRecorder('cronjob-controller');
    controllerManagedBy(mgr).for(CronJob).owns(V1Job).named('cronjob').complete(this);
  }
}

/** `Complete` or `Failed` when a condition of that type is true; undefined while the Job runs. */
function finishedType(job: V1Job): 'Complete' | 'Failed' | undefined {
  for (const c of job.status?.conditions ?? []) {
    if ((c.type === 'Complete' || c.type === 'Failed') && c.status === 'True') return c.type;
  }
  return undefined;
}

/** The time a Job was scheduled for, from its annotation; undefined when absent or unreadable. */
function scheduledTimeOf(job: V1Job): Date | undefined {
  const raw = job.metadata?.annotations?.[scheduledTimeAnnotation];
  if (!raw) return undefined;
  const t = new Date(raw);
  return Number.isNaN(t.getTime()) ? undefined : t;
}

/** A Job's start time in ms (its creation when it has not started; 0 for neither). */
function startOf(job: V1Job): number {
  return (job.status?.startTime ?? job.metadata?.creationTimestamp)?.getTime() ?? 0;
}

/** The reference a CronJob's status keeps to one of its Jobs. */
function referenceTo(job: V1Job): V1ObjectReference {
  return {
    apiVersion: job.apiVersion ?? 'batch/v1',
    kind: job.kind ?? 'Job',
    name: job.metadata?.name,
    namespace: job.metadata?.namespace,
    uid: job.metadata?.uid,
    resourceVersion: job.metadata?.resourceVersion,
  };
}

/** RFC 3339 at second precision, as Kubernetes writes times (`2026-01-01T00:05:00Z`). */
function rfc3339(t: Date): string {
  return `${t.toISOString().slice(0, 19)}Z`;
}
