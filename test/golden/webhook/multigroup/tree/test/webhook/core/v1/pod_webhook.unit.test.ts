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
import { PodCustomValidator } from '../../../../src/webhook/core/v1/pod_webhook.js';

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

  it('PodCustomValidator allows a valid Pod', async () => {
    const obj = newPod('valid');
    assert.equal(await new PodCustomValidator().validateCreate(obj, admission('CREATE', obj)), undefined);
    assert.equal(await new PodCustomValidator().validateUpdate(obj, obj, admission('UPDATE', obj)), undefined);
    assert.equal(await new PodCustomValidator().validateDelete(obj, admission('DELETE', obj)), undefined);
    // TODO(user): check that an invalid Pod is refused, e.g.
    //   assert.throws(() => new PodCustomValidator().validateCreate(bad, admission('CREATE', bad)), FieldErrors);
  });

  // +kubebuilder:scaffold:webhook-tests
});
