/**
 * The webhooks of Captain (crew.testproject.org/v1). src/main.ts registers them with the manager's
 * webhook server (unless ENABLE_WEBHOOKS=false); the @Webhook decorators below become
 * config/webhook/manifests.yaml when you run `npm run manifests`.
 *
 * EDIT THIS FILE! It is scaffolding for you to own: `kubeforge create webhook` only adds a
 * class, a builder line and imports for a webhook type this Kind does not have yet.
 */
import { type AdmissionContext, type CustomDefaulter, type CustomValidator, type Manager, type Warnings, webhookManagedBy } from 'kubeforge/runtime';
import { Webhook } from 'kubeforge/markers';
import { Captain } from '../../../api/crew/v1/captain_types.js';

/** Registers the webhooks of Captain with the manager's webhook server. Throws on misuse (see complete()). */
export function setupCaptainWebhookWithManager(mgr: Manager): void {
  webhookManagedBy(mgr)
    .for(Captain)
    .withDefaulter(new CaptainCustomDefaulter())
    .withValidator(new CaptainCustomValidator())
    // +kubebuilder:scaffold:webhook-builder
    .complete();
}

/**
 * CaptainCustomDefaulter sets default values on Captain objects when they are created or
 * updated. The webhook server passes a copy of the object and answers the API server with the
 * difference (a JSON patch) between that copy before and after `default`.
 */
@Webhook({
  path: '/mutate-crew-testproject-org-v1-captain',
  mutating: true,
  failurePolicy: 'Fail',
  sideEffects: 'None',
  groups: ['crew.testproject.org'],
  resources: ['captains'],
  verbs: ['create', 'update'],
  versions: ['v1'],
  name: 'mcaptain-v1.kb.io',
  admissionReviewVersions: ['v1'],
})
export class CaptainCustomDefaulter implements CustomDefaulter<Captain> {
  // TODO(user): add what the defaulting needs (settings, a client) as constructor parameters.

  /** Sets the defaults of a Captain being created or updated. Throwing denies the request. */
  default(obj: Captain, ctx: AdmissionContext): void {
    ctx.logger.info({ name: obj.metadata?.name }, 'defaulting for Captain');

    // TODO(user): fill in your defaulting logic, e.g.
    //   obj.spec.foo ??= 'bar';
  }
}

/**
 * CaptainCustomValidator validates Captain objects when they are created, updated or deleted.
 * Returning (optionally with warnings) allows the request; throwing denies it, with the
 * message of the error (a FieldErrors names the fields, as the API server's own errors do).
 */
// TODO(user): add 'delete' to verbs to have validateDelete called on deletion.
// NOTE: to serve this webhook at another path, pass --validation-path to kubeforge create webhook.
@Webhook({
  path: '/validate-crew-testproject-org-v1-captain',
  mutating: false,
  failurePolicy: 'Fail',
  sideEffects: 'None',
  groups: ['crew.testproject.org'],
  resources: ['captains'],
  verbs: ['create', 'update'],
  versions: ['v1'],
  name: 'vcaptain-v1.kb.io',
  admissionReviewVersions: ['v1'],
})
export class CaptainCustomValidator implements CustomValidator<Captain> {
  // TODO(user): add what the validation needs (settings, a client) as constructor parameters.

  /** Validates a Captain being created. */
  validateCreate(obj: Captain, ctx: AdmissionContext): Warnings | void {
    ctx.logger.info({ name: obj.metadata?.name }, 'validation for Captain upon creation');

    // TODO(user): fill in your validation logic upon object creation, e.g. (with FieldErrors
    // and field imported from 'kubeforge/runtime'):
    //   if (!obj.spec.foo) {
    //     throw new FieldErrors([field.invalid('spec.foo', obj.spec.foo, 'must not be empty')]);
    //   }
    //   return ['spec.foo is deprecated'];   // allowed, with a warning for the user
  }

  /** Validates a Captain being updated to `newObj` (from `_oldObj`: drop the underscore once your logic reads it). */
  validateUpdate(_oldObj: Captain, newObj: Captain, ctx: AdmissionContext): Warnings | void {
    ctx.logger.info({ name: newObj.metadata?.name }, 'validation for Captain upon update');

    // TODO(user): fill in your validation logic upon object update, e.g. refuse a change of
    // an immutable field with field.forbidden('spec.foo', 'is immutable').
  }

  /** Validates a Captain being deleted (called only with 'delete' in the verbs above). */
  validateDelete(obj: Captain, ctx: AdmissionContext): Warnings | void {
    ctx.logger.info({ name: obj.metadata?.name }, 'validation for Captain upon deletion');

    // TODO(user): fill in your validation logic upon object deletion.
  }
}

// +kubebuilder:scaffold:webhook
