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
 * Tests of the CronJob controller, one body for both tiers of `npm test`: on kubeforge/testing's
 * FakeAPIServer in the unit tier (no etcd or kube-apiserver: `npm run test:unit`), then on a real
 * kube-apiserver and etcd from $KUBEBUILDER_ASSETS; startTestAPI() gives the file its tier's
 * server, with the CRDs of config/crd/bases installed (`npm run manifests` writes them). The
 * reconciler is given a fixed clock (`now`), so each test says exactly which run is due; no Job
 * controller runs on either server, so the tests set the Jobs' status themselves, as the book's do.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { format } from 'node:util';
import { EventsV1Event, V1Job } from '@kubernetes/client-node';
import { type Client, type EventRecorder, type Manager, newManager, type ReconcileContext, setControllerReference } from 'kubeforge/runtime';
import { eventually, startTestAPI, type TestAPI } from 'kubeforge/testing';
import { CronJob, type CronJobSpec } from '../../src/api/v1/cronjob_types.js';
import { CronJobReconciler, cronJobNameLabel, scheduledTimeAnnotation } from '../../src/controller/cronjob_controller.js';

const namespace = 'default';
const minute = 60_000;
const every5Minutes = '*/5 * * * *';

describe('CronJob controller', () => {
  let api: TestAPI;
  let client: Client;
  let logger: ReconcileContext['logger'];

  before(async () => {
    // The fake API server in the unit tier, the shared kube-apiserver in the full one.
    api = await startTestAPI({ crdDirectoryPaths: ['config/crd/bases'], errorIfCRDPathMissing: true });
    client = api.client();
    logger = newManager(api.config).getLogger();
  });

  after(async () => {
    await api.stop();
  });

  const context = (): ReconcileContext => ({ signal: AbortSignal.timeout(30_000), logger, reconcileID: randomUUID() });

  /** Creates the CronJob `name` with the book's job template and `spec` over it. */
  async function createCronJob(name: string, spec: Partial<CronJobSpec> = {}): Promise<CronJob> {
    return client.create<CronJob>({
      apiVersion: 'batch.tutorial.kubebuilder.io/v1',
      kind: 'CronJob',
      metadata: { name, namespace },
      spec: {
        schedule: every5Minutes,
        jobTemplate: {
          spec: {
            template: {
              spec: { restartPolicy: 'OnFailure', containers: [{ name: 'hello', image: 'busybox:1.36', args: ['echo', 'hello'] }] },
            },
          },
        },
        ...spec,
      },
    });
  }

  /** The API server's creation time of `obj`. */
  function createdAt(obj: CronJob): Date {
    const t = obj.metadata?.creationTimestamp;
    assert.ok(t instanceof Date, 'the API server set creationTimestamp');
    return t;
  }

  /** The first run of a CronJob scheduled every 5 minutes: the first 5-minute boundary after its creation. */
  function firstRun(cronJob: CronJob): Date {
    return new Date((Math.floor(createdAt(cronJob).getTime() / (5 * minute)) + 1) * 5 * minute);
  }

  /** What the reconcilers of these tests recorded: `<type> <reason>: <note>` by CronJob name. */
  const events = new Map<string, string[]>();
  const recorder: EventRecorder = {
    eventf(regarding, _related, type, reason, _action, note, ...args) {
      const name = regarding.metadata?.name ?? '';
      events.set(name, [...(events.get(name) ?? []), `${type} ${reason}: ${format(note, ...args)}`]);
    },
    flush: async () => {},
  };
  const eventsOf = (name: string) => events.get(name) ?? [];

  /** A reconciler whose clock reads `now`. */
  const reconcilerAt = (now: Date) => new CronJobReconciler(client, recorder, { now: () => now });

  /** Reconciles the CronJob `name` at `now`. */
  const reconcileAt = (name: string, now: Date) => reconcilerAt(now).reconcile({ namespace, name }, context());

  /** The names of the Jobs of the CronJob `name`, sorted. */
  async function jobNames(name: string): Promise<string[]> {
    const jobs = await client.list(V1Job, { namespace, labelSelector: { [cronJobNameLabel]: name } });
    return jobs.items.map((j) => j.metadata?.name ?? '').sort();
  }

  /** The name the controller gives the Job of the run at `t`. */
  const jobName = (cronJob: CronJob, t: Date) => `${cronJob.metadata?.name}-${t.getTime() / 1000}`;

  /**
   * Creates a Job controlled by `cronJob`, as if the controller had created it for the run at
   * `scheduled`, in state `state` (the test sets the status: no Job controller runs here).
   */
  async function createJob(cronJob: CronJob, name: string, scheduled: Date, state: 'active' | 'Complete' | 'Failed', started = scheduled): Promise<V1Job> {
    const job: V1Job = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: {
        name,
        namespace,
        labels: { [cronJobNameLabel]: cronJob.metadata?.name ?? '' },
        annotations: { [scheduledTimeAnnotation]: scheduled.toISOString() },
      },
      spec: cronJob.spec.jobTemplate.spec,
    };
    setControllerReference(cronJob, job);
    const created = await client.create(job);
    // As the Job controller finishes a Job: the API server (1.31+) takes Complete=True only beside
    // SuccessCriteriaMet=True, Failed=True only beside FailureTarget=True, both with their times.
    const finished = (type: string) => ({ type, status: 'True' });
    created.status =
      state === 'active'
        ? { startTime: started, active: 1 }
        : state === 'Complete'
          ? { startTime: started, completionTime: started, succeeded: 1, conditions: [finished('SuccessCriteriaMet'), finished('Complete')] }
          : { startTime: started, failed: 1, conditions: [finished('FailureTarget'), finished('Failed')] };
    return client.status().update(created);
  }

  it('waits for the scheduled time, then creates the Job of the run with a controller reference', async () => {
    const cronJob = await createCronJob('due');
    const run = firstRun(cronJob);

    // Before the first run: nothing to do, come back when it is due.
    const early = new Date(run.getTime() - minute);
    assert.deepEqual(await reconcileAt('due', early), { requeueAfterSeconds: minute / 1000 });
    assert.deepEqual(await jobNames('due'), []);

    // Two minutes after it: the Job of that run, and come back at the next one.
    const now = new Date(run.getTime() + 2 * minute);
    assert.deepEqual(await reconcileAt('due', now), { requeueAfterSeconds: (3 * minute) / 1000 });
    assert.deepEqual(await jobNames('due'), [jobName(cronJob, run)]);

    const job = await client.get(V1Job, { namespace, name: jobName(cronJob, run) });
    const owner = job.metadata?.ownerReferences?.[0];
    assert.equal(owner?.kind, 'CronJob');
    assert.equal(owner?.uid, cronJob.metadata?.uid);
    assert.equal(owner?.controller, true);
    assert.equal(job.metadata?.annotations?.[scheduledTimeAnnotation], run.toISOString().replace('.000Z', 'Z'));
    assert.equal(job.spec?.template.spec?.containers[0]?.image, 'busybox:1.36');
    assert.deepEqual(eventsOf('due'), [`Normal SuccessfulCreate: Created job ${jobName(cronJob, run)}`]);

    // The next reconcile records it as active and the run as the last one; it creates nothing more.
    assert.deepEqual(await reconcileAt('due', now), { requeueAfterSeconds: (3 * minute) / 1000 });
    const status = (await client.get(CronJob, { namespace, name: 'due' })).status;
    assert.deepEqual(status?.active?.map((r) => r.name), [jobName(cronJob, run)]);
    assert.equal(status?.lastScheduleTime, run.toISOString().replace('.000Z', 'Z'));
    assert.deepEqual(await jobNames('due'), [jobName(cronJob, run)]);
  });

  it('starts only the most recent of several missed runs', async () => {
    const cronJob = await createCronJob('missed');
    const run = firstRun(cronJob);
    await reconcileAt('missed', new Date(run.getTime() + 21 * minute));
    assert.deepEqual(await jobNames('missed'), [jobName(cronJob, new Date(run.getTime() + 20 * minute))]);
  });

  it('deletes the finished Jobs beyond the history limits, oldest first', async () => {
    const cronJob = await createCronJob('history', { successfulJobsHistoryLimit: 1, failedJobsHistoryLimit: 1, suspend: true });
    const run = firstRun(cronJob);
    const at = (i: number) => new Date(run.getTime() + i * 5 * minute);
    await createJob(cronJob, 'history-ok-1', at(0), 'Complete');
    await createJob(cronJob, 'history-ok-2', at(1), 'Complete');
    await createJob(cronJob, 'history-ok-3', at(2), 'Complete');
    await createJob(cronJob, 'history-failed-1', at(3), 'Failed');
    await createJob(cronJob, 'history-failed-2', at(4), 'Failed');
    await createJob(cronJob, 'history-running', at(5), 'active');

    await reconcileAt('history', at(6));
    assert.deepEqual(await jobNames('history'), ['history-failed-2', 'history-ok-3', 'history-running']);
    const status = (await client.get(CronJob, { namespace, name: 'history' })).status;
    assert.deepEqual(status?.active?.map((r) => r.name), ['history-running']);
    assert.deepEqual(eventsOf('history'), [
      'Normal SuccessfulDelete: Deleted job history-failed-1',
      'Normal SuccessfulDelete: Deleted job history-ok-1',
      'Normal SuccessfulDelete: Deleted job history-ok-2',
    ]);
  });

  it('creates nothing while suspended', async () => {
    const cronJob = await createCronJob('suspended', { suspend: true });
    const run = firstRun(cronJob);
    assert.deepEqual(await reconcileAt('suspended', new Date(run.getTime() + minute)), {});
    assert.deepEqual(await jobNames('suspended'), []);
  });

  it('skips a run missed by more than startingDeadlineSeconds', async () => {
    const late = await createCronJob('too-late', { startingDeadlineSeconds: 60 });
    await reconcileAt('too-late', new Date(firstRun(late).getTime() + 2 * minute));
    assert.deepEqual(await jobNames('too-late'), []);

    const inTime = await createCronJob('in-time', { startingDeadlineSeconds: 180 });
    await reconcileAt('in-time', new Date(firstRun(inTime).getTime() + 2 * minute));
    assert.deepEqual(await jobNames('in-time'), [jobName(inTime, firstRun(inTime))]);
  });

  describe('concurrencyPolicy, with the previous run still active', () => {
    /** Reconciles a CronJob with `policy` whose previous run still runs when the next is due. */
    async function nextRunWith(name: string, policy: 'Allow' | 'Forbid' | 'Replace') {
      const cronJob = await createCronJob(name, { concurrencyPolicy: policy });
      const previous = firstRun(cronJob);
      const next = new Date(previous.getTime() + 5 * minute);
      await createJob(cronJob, jobName(cronJob, previous), previous, 'active');
      const result = await reconcileAt(name, new Date(next.getTime() + minute));
      return { result, previous: jobName(cronJob, previous), next: jobName(cronJob, next) };
    }

    it('Allow: starts the next run beside it', async () => {
      const { result, previous, next } = await nextRunWith('allow', 'Allow');
      assert.deepEqual(result, { requeueAfterSeconds: (4 * minute) / 1000 });
      assert.deepEqual(await jobNames('allow'), [previous, next].sort());
    });

    it('Forbid: skips the next run while it is active', async () => {
      const { result, previous } = await nextRunWith('forbid', 'Forbid');
      assert.deepEqual(result, { requeueAfterSeconds: (4 * minute) / 1000 });
      assert.deepEqual(await jobNames('forbid'), [previous]);
      assert.deepEqual(eventsOf('forbid'), ['Normal JobAlreadyActive: Not starting job because prior execution is running and concurrency policy is Forbid']);
    });

    it('Replace: deletes it and starts the next run', async () => {
      const { result, previous, next } = await nextRunWith('replace', 'Replace');
      assert.deepEqual(result, { requeueAfterSeconds: (4 * minute) / 1000 });
      assert.deepEqual(await jobNames('replace'), [next]);
      assert.deepEqual(eventsOf('replace'), [`Normal SuccessfulDelete: Deleted job ${previous}`, `Normal SuccessfulCreate: Created job ${next}`]);
    });
  });

  it('refuses to count more than 100 missed runs', async () => {
    const cronJob = await createCronJob('stale');
    await assert.rejects(reconcileAt('stale', new Date(createdAt(cronJob).getTime() + 24 * 60 * minute)), /Too many missed start times \(> 100\)/);
  });

  it('ignores a CronJob that no longer exists', async () => {
    assert.deepEqual(await reconcileAt('does-not-exist', new Date()), {});
  });

  it('in a running manager, records the Jobs it controls in status.active (the book’s test)', async () => {
    const mgr: Manager = newManager(api.config);
    new CronJobReconciler(mgr.getClient()).setupWithManager(mgr);
    const stop = new AbortController();
    const running = mgr.start(stop.signal);
    try {
      // Suspended, and with the real clock: the controller only records the Job that exists.
      const cronJob = await createCronJob('with-manager', { suspend: true });
      await createJob(cronJob, 'with-manager-job', createdAt(cronJob), 'active');
      await eventually(async (signal) => {
        const status = (await client.get(CronJob, { namespace, name: 'with-manager' }, { signal })).status;
        assert.deepEqual(status?.active?.map((r) => r.name), ['with-manager-job']);
      });
    } finally {
      stop.abort();
      await running;
    }
  });

  it('in a running manager, creates the Job of a due run and records an Event about it', async () => {
    const cronJob = await createCronJob('manager-run');
    const run = firstRun(cronJob);
    const mgr: Manager = newManager(api.config);
    // The clock reads one minute after the first run; the events go to the manager's recorder.
    new CronJobReconciler(mgr.getClient(), undefined, { now: () => new Date(run.getTime() + minute) }).setupWithManager(mgr);
    const stop = new AbortController();
    const running = mgr.start(stop.signal);
    try {
      await eventually(async () => assert.deepEqual(await jobNames('manager-run'), [jobName(cronJob, run)]));
      const event = await eventually(async (signal) => {
        const list = await client.list(EventsV1Event, { namespace, signal });
        const found = list.items.find((e) => e.regarding?.name === 'manager-run' && e.reason === 'SuccessfulCreate');
        assert.ok(found, 'a SuccessfulCreate event about the CronJob');
        return found;
      });
      assert.equal(event.note, `Created job ${jobName(cronJob, run)}`);
      assert.equal(event.related?.name, jobName(cronJob, run));
      assert.equal(event.reportingController, 'cronjob-controller');
    } finally {
      stop.abort();
      await running;
    }
  });
});
