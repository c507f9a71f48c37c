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
 * The webhooks of Sailor (crew.testproject.org/v1). src/main.ts registers them with the manager's
 * webhook server (unless ENABLE_WEBHOOKS=false); the @Webhook decorators below become
 * config/webhook/manifests.yaml when you run `npm run manifests`.
 *
 * EDIT THIS FILE! It is scaffolding for you to own: `kubeforge create webhook` only adds a
 * class, a builder line and imports for a webhook type this Kind does not have yet.
 */
import { type AdmissionContext, type CustomDefaulter, type CustomValidator, type Manager, type Warnings, webhookManagedBy } from 'kubeforge/runtime';
import { Webhook } from 'kubeforge/markers';
import { Sailor } from '../../api/v1/sailor_types.js';

/** Registers the webhooks of Sailor with the manager's webhook server. Throws on misuse (see complete()). */
export function setupSailorWebhookWithManager(mgr: Manager): void {
  webhookManagedBy(mgr)
    .for(Sailor)
    .withDefaulter(new SailorCustomDefaulter())
    .withDefaulterCustomPath('/custom-mutate-sailor')
    .withValidator(new SailorCustomValidator())
    .withValidatorCustomPath('/custom-validate-sailor')
    // +kubebuilder:scaffold:webhook-builder
    .complete();
}

/**
 * SailorCustomDefaulter sets default values on Sailor objects when they are created or
 * updated. The webhook server passes a copy of the object and answers the API server with the
 * difference (a JSON patch) between that copy before and after `default`.
 */
@Webhook({
  path: '/custom-mutate-sailor',
  mutating: true,
  failurePolicy: 'Fail',
  sideEffects: 'None',
  groups: ['crew.testproject.org'],
  resources: ['sailors'],
  verbs: ['create', 'update'],
  versions: ['v1'],
  name: 'msailor-v1.kb.io',
  admissionReviewVersions: ['v1'],
})
export class SailorCustomDefaulter implements CustomDefaulter<Sailor> {
  // TODO(user): add what the defaulting needs (settings, a client) as constructor parameters.

  /** Sets the defaults of a Sailor being created or updated. Throwing denies the request. */
  default(obj: Sailor, ctx: AdmissionContext): void {
    ctx.logger.info({ name: obj.metadata?.name }, 'defaulting for Sailor');

    // TODO(user): fill in your defaulting logic, e.g.
    //   obj.spec.foo ??= 'bar';
  }
}

/**
 * SailorCustomValidator validates Sailor objects when they are created, updated or deleted.
 * Returning (optionally with warnings) allows the request; throwing denies it, with the
 * message of the error (a FieldErrors names the fields, as the API server's own errors do).
 */
// TODO(user): add 'delete' to verbs to have validateDelete called on deletion.
// NOTE: to serve this webhook at another path, pass --validation-path to kubeforge create webhook.
@Webhook({
  path: '/custom-validate-sailor',
  mutating: false,
  failurePolicy: 'Fail',
  sideEffects: 'None',
  groups: ['crew.testproject.org'],
  resources: ['sailors'],
  verbs: ['create', 'update'],
  versions: ['v1'],
  name: 'vsailor-v1.kb.io',
  admissionReviewVersions: ['v1'],
})
export class SailorCustomValidator implements CustomValidator<Sailor> {
  // TODO(user): add what the validation needs (settings, a client) as constructor parameters.

  /** Validates a Sailor being created. */
  validateCreate(obj: Sailor, ctx: AdmissionContext): Warnings | void {
    ctx.logger.info({ name: obj.metadata?.name }, 'validation for Sailor upon creation');

    // TODO(user): fill in your validation logic upon object creation, e.g. (with FieldErrors
    // and field imported from 'kubeforge/runtime'):
    //   if (!obj.spec.foo) {
    //     throw new FieldErrors([field.invalid('spec.foo', obj.spec.foo, 'must not be empty')]);
    //   }
    //   return ['spec.foo is deprecated'];   // allowed, with a warning for the user
  }

  /** Validates a Sailor being updated to `newObj` (from `_oldObj`: drop the underscore once your logic reads it). */
  validateUpdate(_oldObj: Sailor, newObj: Sailor, ctx: AdmissionContext): Warnings | void {
    ctx.logger.info({ name: newObj.metadata?.name }, 'validation for Sailor upon update');

    // TODO(user): fill in your validation logic upon object update, e.g. refuse a change of
    // an immutable field with field.forbidden('spec.foo', 'is immutable').
  }

  /** Validates a Sailor being deleted (called only with 'delete' in the verbs above). */
  validateDelete(obj: Sailor, ctx: AdmissionContext): Warnings | void {
    ctx.logger.info({ name: obj.metadata?.name }, 'validation for Sailor upon deletion');

    // TODO(user): fill in your validation logic upon object deletion.
  }
}

// +kubebuilder:scaffold:webhook
