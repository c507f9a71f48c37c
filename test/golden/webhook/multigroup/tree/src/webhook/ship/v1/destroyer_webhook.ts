/**
 * The webhooks of Destroyer (ship.testproject.org/v1). src/main.ts registers them with the manager's
 * webhook server (unless ENABLE_WEBHOOKS=false); the @Webhook decorators below become
 * config/webhook/manifests.yaml when you run `npm run manifests`.
 *
 * EDIT THIS FILE! It is scaffolding for you to own: `kubeforge create webhook` only adds a
 * class, a builder line and imports for a webhook type this Kind does not have yet.
 */
import { type AdmissionContext, type CustomDefaulter, type Manager, webhookManagedBy } from 'kubeforge/runtime';
import { Webhook } from 'kubeforge/markers';
import { Destroyer } from '../../../api/ship/v1/destroyer_types.js';
import { Destroyer as DestroyerV1beta1 } from '../../../api/ship/v1beta1/destroyer_types.js';
import { destroyerConversion as destroyerConversionV1beta1 } from '../../../api/ship/v1beta1/destroyer_conversion.js';

/** Registers the webhooks of Destroyer with the manager's webhook server. Throws on misuse (see complete()). */
export function setupDestroyerWebhookWithManager(mgr: Manager): void {
  webhookManagedBy(mgr)
    .for(Destroyer)
    .withDefaulter(new DestroyerCustomDefaulter())
    .withConversion(DestroyerV1beta1, destroyerConversionV1beta1)
    // +kubebuilder:scaffold:webhook-builder
    .complete();
}

/**
 * DestroyerCustomDefaulter sets default values on Destroyer objects when they are created or
 * updated. The webhook server passes a copy of the object and answers the API server with the
 * difference (a JSON patch) between that copy before and after `default`.
 */
@Webhook({
  path: '/mutate-ship-testproject-org-v1-destroyer',
  mutating: true,
  failurePolicy: 'Fail',
  sideEffects: 'None',
  groups: ['ship.testproject.org'],
  resources: ['destroyers'],
  verbs: ['create', 'update'],
  versions: ['v1'],
  name: 'mdestroyer-v1.kb.io',
  admissionReviewVersions: ['v1'],
})
export class DestroyerCustomDefaulter implements CustomDefaulter<Destroyer> {
  // TODO(user): add what the defaulting needs (settings, a client) as constructor parameters.

  /** Sets the defaults of a Destroyer being created or updated. Throwing denies the request. */
  default(obj: Destroyer, ctx: AdmissionContext): void {
    ctx.logger.info({ name: obj.metadata?.name }, 'defaulting for Destroyer');

    // TODO(user): fill in your defaulting logic, e.g.
    //   obj.spec.foo ??= 'bar';
  }
}

// +kubebuilder:scaffold:webhook
