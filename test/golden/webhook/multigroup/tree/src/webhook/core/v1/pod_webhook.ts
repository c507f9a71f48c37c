/**
 * The webhooks of Pod (v1). src/main.ts registers them with the manager's
 * webhook server (unless ENABLE_WEBHOOKS=false); the @Webhook decorators below become
 * config/webhook/manifests.yaml when you run `npm run manifests`.
 *
 * EDIT THIS FILE! It is scaffolding for you to own: `kubeforge create webhook` only adds a
 * class, a builder line and imports for a webhook type this Kind does not have yet.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { type AdmissionContext, type CustomValidator, type Manager, type TypeDescriptor, type Warnings, webhookManagedBy } from 'kubeforge/runtime';
import { Webhook } from 'kubeforge/markers';

/** The built-in Kind these webhooks handle (kubeforge/runtime finds its resource by discovery). */
export const Pod: TypeDescriptor = { apiVersion: 'v1', kind: 'Pod' };

/** Registers the webhooks of Pod with the manager's webhook server. Throws on misuse (see complete()). */
export function setupPodWebhookWithManager(mgr: Manager): void {
  webhookManagedBy(mgr)
    .for<V1Pod>(Pod)
    .withValidator(new PodCustomValidator())
    // +kubebuilder:scaffold:webhook-builder
    .complete();
}

/**
 * PodCustomValidator validates Pod objects when they are created, updated or deleted.
 * Returning (optionally with warnings) allows the request; throwing denies it, with the
 * message of the error (a FieldErrors names the fields, as the API server's own errors do).
 */
// TODO(user): add 'delete' to verbs to have validateDelete called on deletion.
// NOTE: to serve this webhook at another path, pass --validation-path to kubeforge create webhook.
@Webhook({
  path: '/validate--v1-pod',
  mutating: false,
  failurePolicy: 'Fail',
  sideEffects: 'None',
  groups: [''],
  resources: ['pods'],
  verbs: ['create', 'update'],
  versions: ['v1'],
  name: 'vpod-v1.kb.io',
  admissionReviewVersions: ['v1'],
})
export class PodCustomValidator implements CustomValidator<V1Pod> {
  // TODO(user): add what the validation needs (settings, a client) as constructor parameters.

  /** Validates a Pod being created. */
  validateCreate(obj: V1Pod, ctx: AdmissionContext): Warnings | void {
    ctx.logger.info({ name: obj.metadata?.name }, 'validation for Pod upon creation');

    // TODO(user): fill in your validation logic upon object creation, e.g. (with FieldErrors
    // and field imported from 'kubeforge/runtime'):
    //   if (!obj.metadata?.labels?.app) {
    //     throw new FieldErrors([field.invalid('metadata.labels.app', obj.metadata?.labels?.app, 'must not be empty')]);
    //   }
    //   return ['metadata.labels.app is deprecated'];   // allowed, with a warning for the user
  }

  /** Validates a Pod being updated to `newObj` (from `_oldObj`: drop the underscore once your logic reads it). */
  validateUpdate(_oldObj: V1Pod, newObj: V1Pod, ctx: AdmissionContext): Warnings | void {
    ctx.logger.info({ name: newObj.metadata?.name }, 'validation for Pod upon update');

    // TODO(user): fill in your validation logic upon object update, e.g. refuse a change of
    // an immutable field with field.forbidden('metadata.labels.app', 'is immutable').
  }

  /** Validates a Pod being deleted (called only with 'delete' in the verbs above). */
  validateDelete(obj: V1Pod, ctx: AdmissionContext): Warnings | void {
    ctx.logger.info({ name: obj.metadata?.name }, 'validation for Pod upon deletion');

    // TODO(user): fill in your validation logic upon object deletion.
  }
}

// +kubebuilder:scaffold:webhook
