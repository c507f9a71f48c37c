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
 * Unit tests of the Captain webhooks: the classes called directly, as the webhook server calls
 * them for an admission (or conversion) review. They need no API server: `npm run test:unit` runs
 * them alone, in seconds, and `npm test` runs them before captain_webhook.test.ts, where a real
 * kube-apiserver calls the webhooks as config/webhook/manifests.yaml says (kubeforge/testing's
 * FakeAPIServer calls no webhooks).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { type AdmissionContext, newLogger } from 'kubeforge/runtime';
import { Captain } from '../../../src/api/v1/captain_types.js';
import { CaptainCustomDefaulter, CaptainCustomValidator } from '../../../src/webhook/v1/captain_webhook.js';

describe('Captain webhook, called directly', () => {
  // What the classes log goes to the test output; errors only.
  const logger = newLogger({ development: true, level: 'error' });

  /** The Captain `name`, as a user would create it. */
  const newCaptain = (name: string): Captain => ({
    apiVersion: 'crew.testproject.org/v1',
    kind: 'Captain',
    metadata: { name, namespace: 'default' },
    // TODO(user): specify other spec details if needed.
    spec: { foo: 'bar' },
  });

  /** What the webhook server hands the defaulter and the validator for a request about `obj`. */
  const admission = (operation: 'CREATE' | 'UPDATE' | 'DELETE', obj: Captain): AdmissionContext => ({
    request: {
      uid: randomUUID(),
      kind: { group: 'crew.testproject.org', version: 'v1', kind: 'Captain' },
      resource: { group: 'crew.testproject.org', version: 'v1', resource: 'captains' },
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

  it('CaptainCustomDefaulter sets the defaults', async () => {
    const obj = newCaptain('defaulted');
    await new CaptainCustomDefaulter().default(obj, admission('CREATE', obj));
    // TODO(user): assert on the defaults your defaulter sets.
    assert.equal(obj.metadata?.name, 'defaulted');
  });

  it('CaptainCustomValidator allows a valid Captain', async () => {
    const obj = newCaptain('valid');
    assert.equal(await new CaptainCustomValidator().validateCreate(obj, admission('CREATE', obj)), undefined);
    assert.equal(await new CaptainCustomValidator().validateUpdate(obj, obj, admission('UPDATE', obj)), undefined);
    assert.equal(await new CaptainCustomValidator().validateDelete(obj, admission('DELETE', obj)), undefined);
    // TODO(user): check that an invalid Captain is refused, e.g.
    //   assert.throws(() => new CaptainCustomValidator().validateCreate(bad, admission('CREATE', bad)), FieldErrors);
  });

  // +kubebuilder:scaffold:webhook-tests
});
