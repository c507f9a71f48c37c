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
export const Deployment: TypeDescriptor = { apiVersion: 'apps/v1', kind: 'Deployment' };

/** DeploymentReconciler reconciles a Deployment object. */
@Rbac({ groups: ['apps'], resources: ['deployments'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] })
@Rbac({ groups: ['apps'], resources: ['deployments/status'], verbs: ['get', 'update', 'patch'] })
@Rbac({ groups: ['apps'], resources: ['deployments/finalizers'], verbs: ['update'] })
@Rbac({ groups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] })
export class DeploymentReconciler {
  /**
   * @param client the manager's client (`mgr.getClient()`): reads from its cache, writes to the API server
   * @param recorder records events.k8s.io Events (`mgr.getEventRecorder('deployment-controller')`;
   *   the `@Rbac` marker above for events.k8s.io grants it)
   */
  constructor(
    readonly client: Client,
    readonly recorder: EventRecorder,
  ) {}

  /**
   * Part of the main Kubernetes reconciliation loop: moves the current state of the cluster
   * closer to the desired state described by the Deployment named in `request`.
   * TODO(user): compare the state specified by the Deployment object against the actual cluster
   * state, then perform operations to make the cluster state reflect the state the user asked for.
   *
   * Throwing requeues the request with back-off (a TerminalError does not); return
   * `{ requeueAfterSeconds: 60 }` to come back later. More: kubeforge/runtime's Result and Reconciler.
   */
  async reconcile(request: Request, ctx: ReconcileContext): Promise<Result> {
    let deployment: KubernetesObject;
    try {
      deployment = await this.client.get(Deployment, request, { signal: ctx.signal });
    } catch (err) {
      // Deleted after the event was queued: nothing to do (owned objects are garbage collected).
      if (isNotFound(err)) return {};
      throw err;
    }
    ctx.logger.debug({ generation: deployment.metadata?.generation }, 'reconciling Deployment');

    // TODO(user): your logic here

    return {};
  }

  /**
   * Sets up the controller with the Manager: reconcile on every change to a Deployment. Add
   * `.owns(Type)` for the objects it creates with an owner reference to the Deployment (a
   * Deployment, a ConfigMap...): their changes then reconcile their owner.
   */
  setupWithManager(mgr: Manager): void {
    controllerManagedBy(mgr).for(Deployment).named('deployment').complete(this);
  }
}
