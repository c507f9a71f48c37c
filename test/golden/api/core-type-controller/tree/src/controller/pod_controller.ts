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

import type { KubernetesObject } from '@kubernetes/client-node';
import { type Client, controllerManagedBy, type EventRecorder, isNotFound, type Manager, type ReconcileContext, type Request, type Result, type TypeDescriptor } from 'kubeforge/runtime';
import { Rbac } from 'kubeforge/markers';

/** The built-in Kind this controller reconciles (kubeforge/runtime finds its resource by discovery). */
export const Pod: TypeDescriptor = { apiVersion: 'v1', kind: 'Pod' };

/** PodReconciler reconciles a Pod object. */
@Rbac({ groups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] })
@Rbac({ groups: [''], resources: ['pods/status'], verbs: ['get', 'update', 'patch'] })
@Rbac({ groups: [''], resources: ['pods/finalizers'], verbs: ['update'] })
@Rbac({ groups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] })
export class PodReconciler {
  /**
   * @param client the manager's client (`mgr.getClient()`): reads from its cache, writes to the API server
   * @param recorder records events.k8s.io Events (`mgr.getEventRecorder('pod-controller')`;
   *   the `@Rbac` marker above for events.k8s.io grants it)
   */
  constructor(
    readonly client: Client,
    readonly recorder: EventRecorder,
  ) {}

  /**
   * Part of the main Kubernetes reconciliation loop: moves the current state of the cluster
   * closer to the desired state described by the Pod named in `request`.
   * TODO(user): compare the state specified by the Pod object against the actual cluster
   * state, then perform operations to make the cluster state reflect the state the user asked for.
   *
   * Throwing requeues the request with back-off (a TerminalError does not); return
   * `{ requeueAfterSeconds: 60 }` to come back later. More: kubeforge/runtime's Result and Reconciler.
   */
  async reconcile(request: Request, ctx: ReconcileContext): Promise<Result> {
    let pod: KubernetesObject;
    try {
      pod = await this.client.get(Pod, request, { signal: ctx.signal });
    } catch (err) {
      // Deleted after the event was queued: nothing to do (owned objects are garbage collected).
      if (isNotFound(err)) return {};
      throw err;
    }
    ctx.logger.debug({ generation: pod.metadata?.generation }, 'reconciling Pod');

    // TODO(user): your logic here

    return {};
  }

  /**
   * Sets up the controller with the Manager: reconcile on every change to a Pod. Add
   * `.owns(Type)` for the objects it creates with an owner reference to the Pod (a
   * Deployment, a ConfigMap...): their changes then reconcile their owner.
   */
  setupWithManager(mgr: Manager): void {
    controllerManagedBy(mgr).for(Pod).named('pod').complete(this);
  }
}
