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
 * The webhooks of FirstMate (crew.testproject.org/v1). src/main.ts registers them with the manager's
 * webhook server (unless ENABLE_WEBHOOKS=false); the @Webhook decorators below become
 * config/webhook/manifests.yaml when you run `npm run manifests`.
 *
 * EDIT THIS FILE! It is scaffolding for you to own: `kubeforge create webhook` only adds a
 * class, a builder line and imports for a webhook type this Kind does not have yet.
 */
import { type Manager, webhookManagedBy } from 'kubeforge/runtime';
import { FirstMate } from '../../api/v1/firstmate_types.js';
import { FirstMate as FirstMateV2 } from '../../api/v2/firstmate_types.js';
import { firstMateConversion as firstMateConversionV2 } from '../../api/v2/firstmate_conversion.js';

/** Registers the webhooks of FirstMate with the manager's webhook server. Throws on misuse (see complete()). */
export function setupFirstMateWebhookWithManager(mgr: Manager): void {
  webhookManagedBy(mgr)
    .for(FirstMate)
    .withConversion(FirstMateV2, firstMateConversionV2)
    // +kubebuilder:scaffold:webhook-builder
    .complete();
}

// +kubebuilder:scaffold:webhook
