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
 * Unit tests of the FirstMate webhooks: the classes called directly, as the webhook server calls
 * them for an admission (or conversion) review. They need no API server: `npm run test:unit` runs
 * them alone, in seconds, and `npm test` runs them before firstmate_webhook.test.ts, where a real
 * kube-apiserver calls the webhooks as config/webhook/manifests.yaml says (kubeforge/testing's
 * FakeAPIServer calls no webhooks).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { type AdmissionContext, newLogger } from 'kubeforge/runtime';
import { FirstMate } from '../../../src/api/v1/firstmate_types.js';
import { FirstMate as FirstMateV2 } from '../../../src/api/v2/firstmate_types.js';
import { firstMateConversion as firstMateConversionV2 } from '../../../src/api/v2/firstmate_conversion.js';

describe('FirstMate webhook, called directly', () => {
  // What the classes log goes to the test output; errors only.
  const logger = newLogger({ development: true, level: 'error' });

  /** The FirstMate `name`, as a user would create it. */
  const newFirstMate = (name: string): FirstMate => ({
    apiVersion: 'crew.testproject.org/v1',
    kind: 'FirstMate',
    metadata: { name, namespace: 'default' },
    // TODO(user): specify other spec details if needed.
    spec: { foo: 'bar' },
  });

  /** What the webhook server hands the defaulter and the validator for a request about `obj`. */
  const admission = (operation: 'CREATE' | 'UPDATE' | 'DELETE', obj: FirstMate): AdmissionContext => ({
    request: {
      uid: randomUUID(),
      kind: { group: 'crew.testproject.org', version: 'v1', kind: 'FirstMate' },
      resource: { group: 'crew.testproject.org', version: 'v1', resource: 'firstmates' },
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

  it('firstMateConversion (v2) converts to the hub and back without losing the spec', async () => {
    const spoke: FirstMateV2 = { apiVersion: 'crew.testproject.org/v2', kind: 'FirstMate', metadata: { name: 'converted' }, spec: { foo: 'bar' } };
    const hub = await firstMateConversionV2.convertTo(spoke);
    assert.equal(hub.metadata?.name, 'converted');
    const back = await firstMateConversionV2.convertFrom(hub);
    assert.deepEqual(back.spec, spoke.spec);
  });

  // +kubebuilder:scaffold:webhook-tests
});
