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
 * Unit tests of the Sailor webhooks: the classes called directly, as the webhook server calls
 * them for an admission (or conversion) review. They need no API server: `npm run test:unit` runs
 * them alone, in seconds, and `npm test` runs them before sailor_webhook.test.ts, where a real
 * kube-apiserver calls the webhooks as config/webhook/manifests.yaml says (kubeforge/testing's
 * FakeAPIServer calls no webhooks).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { type AdmissionContext, newLogger } from 'kubeforge/runtime';
import { Sailor } from '../../../src/api/v1/sailor_types.js';
import { SailorCustomDefaulter, SailorCustomValidator } from '../../../src/webhook/v1/sailor_webhook.js';

describe('Sailor webhook, called directly', () => {
  // What the classes log goes to the test output; errors only.
  const logger = newLogger({ development: true, level: 'error' });

  /** The Sailor `name`, as a user would create it. */
  const newSailor = (name: string): Sailor => ({
    apiVersion: 'crew.testproject.org/v1',
    kind: 'Sailor',
    metadata: { name, namespace: 'default' },
    // TODO(user): specify other spec details if needed.
    spec: { foo: 'bar' },
  });

  /** What the webhook server hands the defaulter and the validator for a request about `obj`. */
  const admission = (operation: 'CREATE' | 'UPDATE' | 'DELETE', obj: Sailor): AdmissionContext => ({
    request: {
      uid: randomUUID(),
      kind: { group: 'crew.testproject.org', version: 'v1', kind: 'Sailor' },
      resource: { group: 'crew.testproject.org', version: 'v1', resource: 'sailors' },
      name: obj.metadata?.name,
      namespace: obj.metadata?.namespace,
      operation,
      userInfo: { username: 'test' },
      object: obj,
      dryRun: false,
    },
    dryRun: false,
    logger,
    signal: AbortSignal.timeout(10_000),
  });

  it('SailorCustomDefaulter sets the defaults', async () => {
    const obj = newSailor('defaulted');
    await new SailorCustomDefaulter().default(obj, admission('CREATE', obj));
    // TODO(user): assert on the defaults your defaulter sets.
    assert.equal(obj.metadata?.name, 'defaulted');
  });

  it('SailorCustomValidator allows a valid Sailor', async () => {
    const obj = newSailor('valid');
    assert.equal(await new SailorCustomValidator().validateCreate(obj, admission('CREATE', obj)), undefined);
    assert.equal(await new SailorCustomValidator().validateUpdate(obj, obj, admission('UPDATE', obj)), undefined);
    assert.equal(await new SailorCustomValidator().validateDelete(obj, admission('DELETE', obj)), undefined);
    // TODO(user): check that an invalid Sailor is refused, e.g.
    //   assert.throws(() => new SailorCustomValidator().validateCreate(bad, admission('CREATE', bad)), FieldErrors);
  });

  // +kubebuilder:scaffold:webhook-tests
});
