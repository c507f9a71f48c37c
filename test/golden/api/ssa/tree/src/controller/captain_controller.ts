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
import { Captain } from '../api/v1/captain_types.js';

/** CaptainReconciler reconciles a Captain object. */
@Rbac({ groups: ['crew.example.com'], resources: ['captains'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] })
@Rbac({ groups: ['crew.example.com'], resources: ['captains/status'], verbs: ['get', 'update', 'patch'] })
@Rbac({ groups: ['crew.example.com'], resources: ['captains/finalizers'], verbs: ['update'] })
@Rbac({ groups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] })
export class CaptainReconciler {
  /**
   * @param client the manager's client (`mgr.getClient()`): reads from its cache, writes to the API server
   * @param recorder records events.k8s.io Events (`mgr.getEventRecorder('captain-controller')`;
   *   the `@Rbac` marker above for events.k8s.io grants it)
   */
  constructor(
    readonly client: Client,
    readonly recorder: EventRecorder,
  ) {}

  /**
   * Part of the main Kubernetes reconciliation loop: moves the current state of the cluster
   * closer to the desired state described by the Captain named in `request`.
   * TODO(user): compare the state specified by the Captain object against the actual cluster
   * state, then perform operations to make the cluster state reflect the state the user asked for.
   *
   * Throwing requeues the request with back-off (a TerminalError does not); return
   * `{ requeueAfterSeconds: 60 }` to come back later. More: kubeforge/runtime's Result and Reconciler.
   */
  async reconcile(request: Request, ctx: ReconcileContext): Promise<Result> {
    let captain: Captain;
    try {
      captain = await this.client.get(Captain, request, { signal: ctx.signal });
    } catch (err) {
      // Deleted after the event was queued: nothing to do (owned objects are garbage collected).
      if (isNotFound(err)) return {};
      throw err;
    }
    ctx.logger.debug({ generation: captain.metadata?.generation }, 'reconciling Captain');

    // TODO(user): your logic here

    // Report what was observed: the Available condition (with the generation it describes) and,
    // when it changes, an event. Replace it with the conditions of your own logic.
    const generation = captain.metadata?.generation;
    const conditions = [...(captain.status?.conditions ?? [])];
    const changed = setStatusCondition(conditions, {
      type: 'Available',
      status: 'True',
      reason: 'Reconciled',
      message: `generation ${generation} reconciled`,
      observedGeneration: generation,
    });
    if (changed) {
      // Server-side apply (create api --ssa): send only what this controller owns, its condition;
      // the API server merges it into status.conditions by type (a list-map key) and records the
      // field manager, so other writers' conditions stay. No resourceVersion: no 409 to retry.
      const available = conditions.find((c) => c.type === 'Available');
      await this.client.status().apply<Captain>(
        {
          apiVersion: `${Captain.gvk.group}/${Captain.gvk.version}`,
          kind: Captain.gvk.kind,
          metadata: { name: request.name, namespace: request.namespace || undefined },
          status: { conditions: available ? [available] : [] },
        },
        { fieldOwner: 'captain-controller', force: true, signal: ctx.signal },
      );
      this.recorder.eventf(captain, null, 'Normal', 'Reconciled', 'Reconcile', 'generation %d reconciled', generation);
    }

    return {};
  }

  /**
   * Sets up the controller with the Manager: reconcile on every change to a Captain. Add
   * `.owns(Type)` for the objects it creates with an owner reference to the Captain (a
   * Deployment, a ConfigMap...): their changes then reconcile their owner.
   */
  setupWithManager(mgr: Manager): void {
    controllerManagedBy(mgr).for(Captain).named('captain').complete(this);
  }
}
