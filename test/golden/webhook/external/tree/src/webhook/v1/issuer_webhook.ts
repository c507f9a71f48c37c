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
 * The webhooks of Issuer (cert-manager.io/v1). src/main.ts registers them with the manager's
 * webhook server (unless ENABLE_WEBHOOKS=false); the @Webhook decorators below become
 * config/webhook/manifests.yaml when you run `npm run manifests`.
 *
 * EDIT THIS FILE! It is scaffolding for you to own: `kubeforge create webhook` only adds a
 * class, a builder line and imports for a webhook type this Kind does not have yet.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { type AdmissionContext, type CustomDefaulter, type CustomValidator, type Manager, type TypeDescriptor, type Warnings, webhookManagedBy } from 'kubeforge/runtime';
import { Webhook } from 'kubeforge/markers';

/** The Kind of another project these webhooks handle (its CRD comes with that project). */
export const Issuer: TypeDescriptor = { apiVersion: 'cert-manager.io/v1', kind: 'Issuer' };

/** Registers the webhooks of Issuer with the manager's webhook server. Throws on misuse (see complete()). */
export function setupIssuerWebhookWithManager(mgr: Manager): void {
  webhookManagedBy(mgr)
    .for<KubernetesObject>(Issuer)
    .withDefaulter(new IssuerCustomDefaulter())
    .withValidator(new IssuerCustomValidator())
    // +kubebuilder:scaffold:webhook-builder
    .complete();
}

/**
 * IssuerCustomDefaulter sets default values on Issuer objects when they are created or
 * updated. The webhook server passes a copy of the object and answers the API server with the
 * difference (a JSON patch) between that copy before and after `default`.
 */
@Webhook({
  path: '/mutate-cert-manager-io-v1-issuer',
  mutating: true,
  failurePolicy: 'Fail',
  sideEffects: 'None',
  groups: ['cert-manager.io'],
  resources: ['issuers'],
  verbs: ['create', 'update'],
  versions: ['v1'],
  name: 'missuer-v1.kb.io',
  admissionReviewVersions: ['v1'],
})
export class IssuerCustomDefaulter implements CustomDefaulter<KubernetesObject> {
  // TODO(user): add what the defaulting needs (settings, a client) as constructor parameters.

  /** Sets the defaults of an Issuer being created or updated. Throwing denies the request. */
  default(obj: KubernetesObject, ctx: AdmissionContext): void {
    ctx.logger.info({ name: obj.metadata?.name }, 'defaulting for Issuer');

    // TODO(user): fill in your defaulting logic, e.g.
    //   obj.metadata!.labels = { ...obj.metadata?.labels, 'example.com/defaulted': 'true' };
  }
}

/**
 * IssuerCustomValidator validates Issuer objects when they are created, updated or deleted.
 * Returning (optionally with warnings) allows the request; throwing denies it, with the
 * message of the error (a FieldErrors names the fields, as the API server's own errors do).
 */
// TODO(user): add 'delete' to verbs to have validateDelete called on deletion.
// NOTE: to serve this webhook at another path, pass --validation-path to kubeforge create webhook.
@Webhook({
  path: '/validate-cert-manager-io-v1-issuer',
  mutating: false,
  failurePolicy: 'Fail',
  sideEffects: 'None',
  groups: ['cert-manager.io'],
  resources: ['issuers'],
  verbs: ['create', 'update'],
  versions: ['v1'],
  name: 'vissuer-v1.kb.io',
  admissionReviewVersions: ['v1'],
})
export class IssuerCustomValidator implements CustomValidator<KubernetesObject> {
  // TODO(user): add what the validation needs (settings, a client) as constructor parameters.

  /** Validates an Issuer being created. */
  validateCreate(obj: KubernetesObject, ctx: AdmissionContext): Warnings | void {
    ctx.logger.info({ name: obj.metadata?.name }, 'validation for Issuer upon creation');

    // TODO(user): fill in your validation logic upon object creation, e.g. (with FieldErrors
    // and field imported from 'kubeforge/runtime'):
    //   if (!obj.metadata?.labels?.app) {
    //     throw new FieldErrors([field.invalid('metadata.labels.app', obj.metadata?.labels?.app, 'must not be empty')]);
    //   }
    //   return ['metadata.labels.app is deprecated'];   // allowed, with a warning for the user
  }

  /** Validates an Issuer being updated to `newObj` (from `_oldObj`: drop the underscore once your logic reads it). */
  validateUpdate(_oldObj: KubernetesObject, newObj: KubernetesObject, ctx: AdmissionContext): Warnings | void {
    ctx.logger.info({ name: newObj.metadata?.name }, 'validation for Issuer upon update');

    // TODO(user): fill in your validation logic upon object update, e.g. refuse a change of
    // an immutable field with field.forbidden('metadata.labels.app', 'is immutable').
  }

  /** Validates an Issuer being deleted (called only with 'delete' in the verbs above). */
  validateDelete(obj: KubernetesObject, ctx: AdmissionContext): Warnings | void {
    ctx.logger.info({ name: obj.metadata?.name }, 'validation for Issuer upon deletion');

    // TODO(user): fill in your validation logic upon object deletion.
  }
}

// +kubebuilder:scaffold:webhook
