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

import type { Certificate as CertificateObject } from '../external/certmanager/v1.js';
import { type Client, controllerManagedBy, type EventRecorder, isNoKindMatch, isNotFound, type Manager, type ReconcileContext, type Request, type Result, type TypeDescriptor } from 'kubeforge/runtime';
import { Rbac } from 'kubeforge/markers';

/**
 * The Kind of another project this controller reconciles (its CRD comes with that project, not
 * from this one's manifests; kubeforge/runtime finds its resource by discovery).
 */
export const Certificate: TypeDescriptor = { apiVersion: 'cert-manager.io/v1', kind: 'Certificate' };

/** CertificateReconciler reconciles a Certificate object. */
@Rbac({ groups: ['cert-manager.io'], resources: ['certificates'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] })
@Rbac({ groups: ['cert-manager.io'], resources: ['certificates/status'], verbs: ['get', 'update', 'patch'] })
@Rbac({ groups: ['cert-manager.io'], resources: ['certificates/finalizers'], verbs: ['update'] })
@Rbac({ groups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] })
export class CertificateReconciler {
  /**
   * @param client the manager's client (`mgr.getClient()`): reads from its cache, writes to the API server
   * @param recorder records events.k8s.io Events (`mgr.getEventRecorder('certificate-controller')`;
   *   the `@Rbac` marker above for events.k8s.io grants it)
   */
  constructor(
    readonly client: Client,
    readonly recorder: EventRecorder,
  ) {}

  /**
   * Part of the main Kubernetes reconciliation loop: moves the current state of the cluster
   * closer to the desired state described by the Certificate named in `request`.
   * TODO(user): compare the state specified by the Certificate object against the actual cluster
   * state, then perform operations to make the cluster state reflect the state the user asked for.
   *
   * Throwing requeues the request with back-off (a TerminalError does not); return
   * `{ requeueAfterSeconds: 60 }` to come back later. More: kubeforge/runtime's Result and Reconciler.
   */
  async reconcile(request: Request, ctx: ReconcileContext): Promise<Result> {
    let certificate: CertificateObject;
    try {
      certificate = await this.client.get<CertificateObject>(Certificate, request, { signal: ctx.signal });
    } catch (err) {
      // Deleted after the event was queued: nothing to do. (A Kind the API server does not serve,
      // its CRD not installed, is an error: it is retried with back-off, and logged.)
      if (isNotFound(err) && !isNoKindMatch(err)) return {};
      throw err;
    }
    ctx.logger.debug({ generation: certificate.metadata?.generation }, 'reconciling Certificate');

    // TODO(user): your logic here

    return {};
  }

  /**
   * Sets up the controller with the Manager: reconcile on every change to a Certificate. Add
   * `.owns(Type)` for the objects it creates with an owner reference to the Certificate (a
   * Deployment, a ConfigMap...): their changes then reconcile their owner.
   */
  setupWithManager(mgr: Manager): void {
    controllerManagedBy(mgr).for(Certificate).named('certificate').complete(this);
  }
}
