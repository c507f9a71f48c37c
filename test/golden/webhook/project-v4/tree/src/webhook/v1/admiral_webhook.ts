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
 * The webhooks of Admiral (crew.testproject.org/v1). src/main.ts registers them with the manager's
 * webhook server (unless ENABLE_WEBHOOKS=false); the @Webhook decorators below become
 * config/webhook/manifests.yaml when you run `npm run manifests`.
 *
 * EDIT THIS FILE! It is scaffolding for you to own: `kubeforge create webhook` only adds a
 * class, a builder line and imports for a webhook type this Kind does not have yet.
 */
import { type AdmissionContext, type CustomDefaulter, type CustomValidator, type Manager, type Warnings, webhookManagedBy } from 'kubeforge/runtime';
import { Webhook } from 'kubeforge/markers';
import { Admiral } from '../../api/v1/admiral_types.js';

/** Registers the webhooks of Admiral with the manager's webhook server. Throws on misuse (see complete()). */
export function setupAdmiralWebhookWithManager(mgr: Manager): void {
  webhookManagedBy(mgr)
    .for(Admiral)
    .withDefaulter(new AdmiralCustomDefaulter())
    .withValidator(new AdmiralCustomValidator())
    .withValidatorCustomPath('/custom-validate-admiral')
    // +kubebuilder:scaffold:webhook-builder
    .complete();
}

/**
 * AdmiralCustomDefaulter sets default values on Admiral objects when they are created or
 * updated. The webhook server passes a copy of the object and answers the API server with the
 * difference (a JSON patch) between that copy before and after `default`.
 */
@Webhook({
  path: '/mutate-crew-testproject-org-v1-admiral',
  mutating: true,
  failurePolicy: 'Fail',
  sideEffects: 'None',
  groups: ['crew.testproject.org'],
  resources: ['admirales'],
  verbs: ['create', 'update'],
  versions: ['v1'],
  name: 'madmiral-v1.kb.io',
  admissionReviewVersions: ['v1'],
})
export class AdmiralCustomDefaulter implements CustomDefaulter<Admiral> {
  // TODO(user): add what the defaulting needs (settings, a client) as constructor parameters.

  /** Sets the defaults of an Admiral being created or updated. Throwing denies the request. */
  default(obj: Admiral, ctx: AdmissionContext): void {
    ctx.logger.info({ name: obj.metadata?.name }, 'defaulting for Admiral');

    // TODO(user): fill in your defaulting logic, e.g.
    //   obj.spec.foo ??= 'bar';
  }
}

/**
 * AdmiralCustomValidator validates Admiral objects when they are created, updated or deleted.
 * Returning (optionally with warnings) allows the request; throwing denies it, with the
 * message of the error (a FieldErrors names the fields, as the API server's own errors do).
 */
// TODO(user): add 'delete' to verbs to have validateDelete called on deletion.
// NOTE: to serve this webhook at another path, pass --validation-path to kubeforge create webhook.
@Webhook({
  path: '/custom-validate-admiral',
  mutating: false,
  failurePolicy: 'Fail',
  sideEffects: 'None',
  groups: ['crew.testproject.org'],
  resources: ['admirales'],
  verbs: ['create', 'update'],
  versions: ['v1'],
  name: 'vadmiral-v1.kb.io',
  admissionReviewVersions: ['v1'],
})
export class AdmiralCustomValidator implements CustomValidator<Admiral> {
  // TODO(user): add what the validation needs (settings, a client) as constructor parameters.

  /** Validates an Admiral being created. */
  validateCreate(obj: Admiral, ctx: AdmissionContext): Warnings | void {
    ctx.logger.info({ name: obj.metadata?.name }, 'validation for Admiral upon creation');

    // TODO(user): fill in your validation logic upon object creation, e.g. (with FieldErrors
    // and field imported from 'kubeforge/runtime'):
    //   if (!obj.spec.foo) {
    //     throw new FieldErrors([field.invalid('spec.foo', obj.spec.foo, 'must not be empty')]);
    //   }
    //   return ['spec.foo is deprecated'];   // allowed, with a warning for the user
  }

  /** Validates an Admiral being updated to `newObj` (from `_oldObj`: drop the underscore once your logic reads it). */
  validateUpdate(_oldObj: Admiral, newObj: Admiral, ctx: AdmissionContext): Warnings | void {
    ctx.logger.info({ name: newObj.metadata?.name }, 'validation for Admiral upon update');

    // TODO(user): fill in your validation logic upon object update, e.g. refuse a change of
    // an immutable field with field.forbidden('spec.foo', 'is immutable').
  }

  /** Validates an Admiral being deleted (called only with 'delete' in the verbs above). */
  validateDelete(obj: Admiral, ctx: AdmissionContext): Warnings | void {
    ctx.logger.info({ name: obj.metadata?.name }, 'validation for Admiral upon deletion');

    // TODO(user): fill in your validation logic upon object deletion.
  }
}

// +kubebuilder:scaffold:webhook
