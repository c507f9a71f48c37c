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
 * The webhooks of Pod (v1). src/main.ts registers them with the manager's
 * webhook server (unless ENABLE_WEBHOOKS=false); the @Webhook decorators below become
 * config/webhook/manifests.yaml when you run `npm run manifests`.
 *
 * EDIT THIS FILE! It is scaffolding for you to own: `kubeforge create webhook` only adds a
 * class, a builder line and imports for a webhook type this Kind does not have yet.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { type AdmissionContext, type CustomDefaulter, type Manager, type TypeDescriptor, webhookManagedBy } from 'kubeforge/runtime';
import { Webhook } from 'kubeforge/markers';

/** The built-in Kind these webhooks handle (kubeforge/runtime finds its resource by discovery). */
export const Pod: TypeDescriptor = { apiVersion: 'v1', kind: 'Pod' };

/** Registers the webhooks of Pod with the manager's webhook server. Throws on misuse (see complete()). */
export function setupPodWebhookWithManager(mgr: Manager): void {
  webhookManagedBy(mgr)
    .for<V1Pod>(Pod)
    .withDefaulter(new PodCustomDefaulter())
    // +kubebuilder:scaffold:webhook-builder
    .complete();
}

/**
 * PodCustomDefaulter sets default values on Pod objects when they are created or
 * updated. The webhook server passes a copy of the object and answers the API server with the
 * difference (a JSON patch) between that copy before and after `default`.
 */
@Webhook({
  path: '/mutate--v1-pod',
  mutating: true,
  failurePolicy: 'Fail',
  sideEffects: 'None',
  groups: [''],
  resources: ['pods'],
  verbs: ['create', 'update'],
  versions: ['v1'],
  name: 'mpod-v1.kb.io',
  admissionReviewVersions: ['v1'],
})
export class PodCustomDefaulter implements CustomDefaulter<V1Pod> {
  // TODO(user): add what the defaulting needs (settings, a client) as constructor parameters.

  /** Sets the defaults of a Pod being created or updated. Throwing denies the request. */
  default(obj: V1Pod, ctx: AdmissionContext): void {
    ctx.logger.info({ name: obj.metadata?.name }, 'defaulting for Pod');

    // TODO(user): fill in your defaulting logic, e.g.
    //   obj.metadata!.labels = { ...obj.metadata?.labels, 'example.com/defaulted': 'true' };
  }
}

// +kubebuilder:scaffold:webhook
