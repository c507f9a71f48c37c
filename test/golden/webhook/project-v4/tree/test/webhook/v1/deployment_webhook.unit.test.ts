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
 * Unit tests of the Deployment webhooks: the classes called directly, as the webhook server calls
 * them for an admission (or conversion) review. They need no API server: `npm run test:unit` runs
 * them alone, in seconds, and `npm test` runs them before deployment_webhook.test.ts, where a real
 * kube-apiserver calls the webhooks as config/webhook/manifests.yaml says (kubeforge/testing's
 * FakeAPIServer calls no webhooks).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import type { V1Deployment } from '@kubernetes/client-node';
import { type AdmissionContext, newLogger } from 'kubeforge/runtime';
import { DeploymentCustomDefaulter, DeploymentCustomValidator } from '../../../src/webhook/v1/deployment_webhook.js';

describe('Deployment webhook, called directly', () => {
  // What the classes log goes to the test output; errors only.
  const logger = newLogger({ development: true, level: 'error' });

  /** The Deployment `name`, as a user would create it. */
  const newDeployment = (name: string): V1Deployment => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'default' },
    // TODO(user): specify other spec details if needed.
    spec: { selector: { matchLabels: { app: 'test' } }, template: { metadata: { labels: { app: 'test' } }, spec: { containers: [{ name: 'test', image: 'busybox' }] } } },
  });

  /** What the webhook server hands the defaulter and the validator for a request about `obj`. */
  const admission = (operation: 'CREATE' | 'UPDATE' | 'DELETE', obj: V1Deployment): AdmissionContext => ({
    request: {
      uid: randomUUID(),
      kind: { group: 'apps', version: 'v1', kind: 'Deployment' },
      resource: { group: 'apps', version: 'v1', resource: 'deployments' },
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

  it('DeploymentCustomDefaulter sets the defaults', async () => {
    const obj = newDeployment('defaulted');
    await new DeploymentCustomDefaulter().default(obj, admission('CREATE', obj));
    // TODO(user): assert on the defaults your defaulter sets.
    assert.equal(obj.metadata?.name, 'defaulted');
  });

  it('DeploymentCustomValidator allows a valid Deployment', async () => {
    const obj = newDeployment('valid');
    assert.equal(await new DeploymentCustomValidator().validateCreate(obj, admission('CREATE', obj)), undefined);
    assert.equal(await new DeploymentCustomValidator().validateUpdate(obj, obj, admission('UPDATE', obj)), undefined);
    assert.equal(await new DeploymentCustomValidator().validateDelete(obj, admission('DELETE', obj)), undefined);
    // TODO(user): check that an invalid Deployment is refused, e.g.
    //   assert.throws(() => new DeploymentCustomValidator().validateCreate(bad, admission('CREATE', bad)), FieldErrors);
  });

  // +kubebuilder:scaffold:webhook-tests
});
