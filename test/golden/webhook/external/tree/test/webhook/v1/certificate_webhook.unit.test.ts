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
 * Unit tests of the Certificate webhooks: the classes called directly, as the webhook server calls
 * them for an admission (or conversion) review. They need no API server: `npm run test:unit` runs
 * them alone, in seconds, and `npm test` runs them before certificate_webhook.test.ts, where a real
 * kube-apiserver calls the webhooks as config/webhook/manifests.yaml says (kubeforge/testing's
 * FakeAPIServer calls no webhooks).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import type { Certificate as CertificateObject } from '@acme/cert-manager-types/v1';
import { type AdmissionContext, newLogger } from 'kubeforge/runtime';
import { CertificateCustomValidator } from '../../../src/webhook/v1/certificate_webhook.js';

describe('Certificate webhook, called directly', () => {
  // What the classes log goes to the test output; errors only.
  const logger = newLogger({ development: true, level: 'error' });

  /** The Certificate `name`, as a user would create it. */
  const newCertificate = (name: string): CertificateObject => ({
    apiVersion: 'cert-manager.io/v1',
    kind: 'Certificate',
    metadata: { name, namespace: 'default' },
    // TODO(user): the fields its CRD requires (spec...).
  });

  /** What the webhook server hands the defaulter and the validator for a request about `obj`. */
  const admission = (operation: 'CREATE' | 'UPDATE' | 'DELETE', obj: CertificateObject): AdmissionContext => ({
    request: {
      uid: randomUUID(),
      kind: { group: 'cert-manager.io', version: 'v1', kind: 'Certificate' },
      resource: { group: 'cert-manager.io', version: 'v1', resource: 'certificates' },
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

  it('CertificateCustomValidator allows a valid Certificate', async () => {
    const obj = newCertificate('valid');
    assert.equal(await new CertificateCustomValidator().validateCreate(obj, admission('CREATE', obj)), undefined);
    assert.equal(await new CertificateCustomValidator().validateUpdate(obj, obj, admission('UPDATE', obj)), undefined);
    assert.equal(await new CertificateCustomValidator().validateDelete(obj, admission('DELETE', obj)), undefined);
    // TODO(user): check that an invalid Certificate is refused, e.g.
    //   assert.throws(() => new CertificateCustomValidator().validateCreate(bad, admission('CREATE', bad)), FieldErrors);
  });

  // +kubebuilder:scaffold:webhook-tests
});
