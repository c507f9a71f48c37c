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
 * Unit tests of the Admiral webhooks: the classes called directly, as the webhook server calls
 * them for an admission (or conversion) review. They need no API server: `npm run test:unit` runs
 * them alone, in seconds, and `npm test` runs them before admiral_webhook.test.ts, where a real
 * kube-apiserver calls the webhooks as config/webhook/manifests.yaml says (kubeforge/testing's
 * FakeAPIServer calls no webhooks).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { type AdmissionContext, newLogger } from 'kubeforge/runtime';
import { Admiral } from '../../../src/api/v1/admiral_types.js';
import { AdmiralCustomDefaulter, AdmiralCustomValidator } from '../../../src/webhook/v1/admiral_webhook.js';

describe('Admiral webhook, called directly', () => {
  // What the classes log goes to the test output; errors only.
  const logger = newLogger({ development: true, level: 'error' });

  /** The Admiral `name`, as a user would create it. */
  const newAdmiral = (name: string): Admiral => ({
    apiVersion: 'crew.testproject.org/v1',
    kind: 'Admiral',
    metadata: { name },
    // TODO(user): specify other spec details if needed.
    spec: { foo: 'bar' },
  });

  /** What the webhook server hands the defaulter and the validator for a request about `obj`. */
  const admission = (operation: 'CREATE' | 'UPDATE' | 'DELETE', obj: Admiral): AdmissionContext => ({
    request: {
      uid: randomUUID(),
      kind: { group: 'crew.testproject.org', version: 'v1', kind: 'Admiral' },
      resource: { group: 'crew.testproject.org', version: 'v1', resource: 'admirales' },
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

  it('AdmiralCustomDefaulter sets the defaults', async () => {
    const obj = newAdmiral('defaulted');
    await new AdmiralCustomDefaulter().default(obj, admission('CREATE', obj));
    // TODO(user): assert on the defaults your defaulter sets.
    assert.equal(obj.metadata?.name, 'defaulted');
  });

  it('AdmiralCustomValidator allows a valid Admiral', async () => {
    const obj = newAdmiral('valid');
    assert.equal(await new AdmiralCustomValidator().validateCreate(obj, admission('CREATE', obj)), undefined);
    assert.equal(await new AdmiralCustomValidator().validateUpdate(obj, obj, admission('UPDATE', obj)), undefined);
    assert.equal(await new AdmiralCustomValidator().validateDelete(obj, admission('DELETE', obj)), undefined);
    // TODO(user): check that an invalid Admiral is refused, e.g.
    //   assert.throws(() => new AdmiralCustomValidator().validateCreate(bad, admission('CREATE', bad)), FieldErrors);
  });

  // +kubebuilder:scaffold:webhook-tests
});
