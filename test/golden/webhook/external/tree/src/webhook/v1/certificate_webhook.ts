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
 * The webhooks of Certificate (cert-manager.io/v1). src/main.ts registers them with the manager's
 * webhook server (unless ENABLE_WEBHOOKS=false); the @Webhook decorators below become
 * config/webhook/manifests.yaml when you run `npm run manifests`.
 *
 * EDIT THIS FILE! It is scaffolding for you to own: `kubeforge create webhook` only adds a
 * class, a builder line and imports for a webhook type this Kind does not have yet.
 */
import type { Certificate as CertificateObject } from '@acme/cert-manager-types/v1';
import { type AdmissionContext, type CustomValidator, type Manager, type TypeDescriptor, type Warnings, webhookManagedBy } from 'kubeforge/runtime';
import { Webhook } from 'kubeforge/markers';

/** The Kind of another project these webhooks handle (its CRD comes with that project). */
export const Certificate: TypeDescriptor = { apiVersion: 'cert-manager.io/v1', kind: 'Certificate' };

/** Registers the webhooks of Certificate with the manager's webhook server. Throws on misuse (see complete()). */
export function setupCertificateWebhookWithManager(mgr: Manager): void {
  webhookManagedBy(mgr)
    .for<CertificateObject>(Certificate)
    .withValidator(new CertificateCustomValidator())
    // +kubebuilder:scaffold:webhook-builder
    .complete();
}

/**
 * CertificateCustomValidator validates Certificate objects when they are created, updated or deleted.
 * Returning (optionally with warnings) allows the request; throwing denies it, with the
 * message of the error (a FieldErrors names the fields, as the API server's own errors do).
 */
// TODO(user): add 'delete' to verbs to have validateDelete called on deletion.
// NOTE: to serve this webhook at another path, pass --validation-path to kubeforge create webhook.
@Webhook({
  path: '/validate-cert-manager-io-v1-certificate',
  mutating: false,
  failurePolicy: 'Fail',
  sideEffects: 'None',
  groups: ['cert-manager.io'],
  resources: ['certificates'],
  verbs: ['create', 'update'],
  versions: ['v1'],
  name: 'vcertificate-v1.kb.io',
  admissionReviewVersions: ['v1'],
})
export class CertificateCustomValidator implements CustomValidator<CertificateObject> {
  // TODO(user): add what the validation needs (settings, a client) as constructor parameters.

  /** Validates a Certificate being created. */
  validateCreate(obj: CertificateObject, ctx: AdmissionContext): Warnings | void {
    ctx.logger.info({ name: obj.metadata?.name }, 'validation for Certificate upon creation');

    // TODO(user): fill in your validation logic upon object creation, e.g. (with FieldErrors
    // and field imported from 'kubeforge/runtime'):
    //   if (!obj.metadata?.labels?.app) {
    //     throw new FieldErrors([field.invalid('metadata.labels.app', obj.metadata?.labels?.app, 'must not be empty')]);
    //   }
    //   return ['metadata.labels.app is deprecated'];   // allowed, with a warning for the user
  }

  /** Validates a Certificate being updated to `newObj` (from `_oldObj`: drop the underscore once your logic reads it). */
  validateUpdate(_oldObj: CertificateObject, newObj: CertificateObject, ctx: AdmissionContext): Warnings | void {
    ctx.logger.info({ name: newObj.metadata?.name }, 'validation for Certificate upon update');

    // TODO(user): fill in your validation logic upon object update, e.g. refuse a change of
    // an immutable field with field.forbidden('metadata.labels.app', 'is immutable').
  }

  /** Validates a Certificate being deleted (called only with 'delete' in the verbs above). */
  validateDelete(obj: CertificateObject, ctx: AdmissionContext): Warnings | void {
    ctx.logger.info({ name: obj.metadata?.name }, 'validation for Certificate upon deletion');

    // TODO(user): fill in your validation logic upon object deletion.
  }
}

// +kubebuilder:scaffold:webhook
