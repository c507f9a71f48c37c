/*
Copyright The Guestbook Authors.

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

import { type Client, controllerManagedBy, type EventRecorder, isNotFound, type Manager, type ReconcileContext, type Request, type Result, setStatusCondition } from 'kubeforge/runtime';
import { Rbac } from 'kubeforge/markers';
import { CronJob } from '../api/v1/cronjob_types.js';

/** CronJobReconciler reconciles a CronJob object. */
@Rbac({ groups: ['batch.example.com'], resources: ['cronjobs'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] })
@Rbac({ groups: ['batch.example.com'], resources: ['cronjobs/status'], verbs: ['get', 'update', 'patch'] })
@Rbac({ groups: ['batch.example.com'], resources: ['cronjobs/finalizers'], verbs: ['update'] })
@Rbac({ groups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] })
export class CronJobReconciler {
  /**
   * @param client the manager's client (`mgr.getClient()`): reads from its cache, writes to the API server
   * @param recorder records events.k8s.io Events (`mgr.getEventRecorder('cronjob-controller')`;
   *   the `@Rbac` marker above for events.k8s.io grants it)
   */
  constructor(
    readonly client: Client,
    readonly recorder: EventRecorder,
  ) {}

  /**
   * Part of the main Kubernetes reconciliation loop: moves the current state of the cluster
   * closer to the desired state described by the CronJob named in `request`.
   * TODO(user): compare the state specified by the CronJob object against the actual cluster
   * state, then perform operations to make the cluster state reflect the state the user asked for.
   *
   * Throwing requeues the request with back-off (a TerminalError does not); return
   * `{ requeueAfterSeconds: 60 }` to come back later. More: kubeforge/runtime's Result and Reconciler.
   */
  async reconcile(request: Request, ctx: ReconcileContext): Promise<Result> {
    let cronJob: CronJob;
    try {
      cronJob = await this.client.get(CronJob, request, { signal: ctx.signal });
    } catch (err) {
      // Deleted after the event was queued: nothing to do (owned objects are garbage collected).
      if (isNotFound(err)) return {};
      throw err;
    }
    ctx.logger.debug({ generation: cronJob.metadata?.generation }, 'reconciling CronJob');

    // TODO(user): your logic here

    // Report what was observed: the Available condition (with the generation it describes) and,
    // when it changes, an event. Replace it with the conditions of your own logic.
    cronJob.status ??= {};
    cronJob.status.conditions ??= [];
    const generation = cronJob.metadata?.generation;
    const changed = setStatusCondition(cronJob.status.conditions, {
      type: 'Available',
      status: 'True',
      reason: 'Reconciled',
      message: `generation ${generation} reconciled`,
      observedGeneration: generation,
    });
    if (changed) {
      // Refreshes cronJob from the answer; a 409 Conflict (a newer version exists) requeues.
      await this.client.status().update(cronJob, { signal: ctx.signal });
      this.recorder.eventf(cronJob, null, 'Normal', 'Reconciled', 'Reconcile', 'generation %d reconciled', generation);
    }

    return {};
  }

  /**
   * Sets up the controller with the Manager: reconcile on every change to a CronJob. Add
   * `.owns(Type)` for the objects it creates with an owner reference to the CronJob (a
   * Deployment, a ConfigMap...): their changes then reconcile their owner.
   */
  setupWithManager(mgr: Manager): void {
    controllerManagedBy(mgr).for(CronJob).named('cronjob').complete(this);
  }
}
