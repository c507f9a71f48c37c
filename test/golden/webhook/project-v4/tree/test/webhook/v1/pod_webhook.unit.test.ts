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
 * Unit tests of the Pod webhooks: the classes called directly, as the webhook server calls
 * them for an admission (or conversion) review. They need no API server: `npm run test:unit` runs
 * them alone, in seconds, and `npm test` runs them before pod_webhook.test.ts, where a real
 * kube-apiserver calls the webhooks as config/webhook/manifests.yaml says (kubeforge/testing's
 * FakeAPIServer calls no webhooks).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import type { V1Pod } from '@kubernetes/client-node';
import { type AdmissionContext, newLogger } from 'kubeforge/runtime';
import { PodCustomDefaulter } from '../../../src/webhook/v1/pod_webhook.js';

describe('Pod webhook, called directly', () => {
  // What the classes log goes to the test output; errors only.
  const logger = newLogger({ development: true, level: 'error' });

  /** The Pod `name`, as a user would create it. */
  const newPod = (name: string): V1Pod => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    // TODO(user): specify other spec details if needed.
    spec: { automountServiceAccountToken: false, containers: [{ name: 'test', image: 'busybox' }] },
  });

  /** What the webhook server hands the defaulter and the validator for a request about `obj`. */
  const admission = (operation: 'CREATE' | 'UPDATE' | 'DELETE', obj: V1Pod): AdmissionContext => ({
    request: {
      uid: randomUUID(),
      kind: { group: '', version: 'v1', kind: 'Pod' },
      resource: { group: '', version: 'v1', resource: 'pods' },
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

  it('PodCustomDefaulter sets the defaults', async () => {
    const obj = newPod('defaulted');
    await new PodCustomDefaulter().default(obj, admission('CREATE', obj));
    // TODO(user): assert on the defaults your defaulter sets.
    assert.equal(obj.metadata?.name, 'defaulted');
  });

  // +kubebuilder:scaffold:webhook-tests
});
