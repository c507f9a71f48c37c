/**
 * Unit tests of the Destroyer webhooks: the classes called directly, as the webhook server calls
 * them for an admission (or conversion) review. They need no API server: `npm run test:unit` runs
 * them alone, in seconds, and `npm test` runs them before destroyer_webhook.test.ts, where a real
 * kube-apiserver calls the webhooks as config/webhook/manifests.yaml says (kubeforge/testing's
 * FakeAPIServer calls no webhooks).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { type AdmissionContext, newLogger } from 'kubeforge/runtime';
import { Destroyer } from '../../../../src/api/ship/v1/destroyer_types.js';
import { DestroyerCustomDefaulter } from '../../../../src/webhook/ship/v1/destroyer_webhook.js';
import { Destroyer as DestroyerV1beta1 } from '../../../../src/api/ship/v1beta1/destroyer_types.js';
import { destroyerConversion as destroyerConversionV1beta1 } from '../../../../src/api/ship/v1beta1/destroyer_conversion.js';

describe('Destroyer webhook, called directly', () => {
  // What the classes log goes to the test output; errors only.
  const logger = newLogger({ development: true, level: 'error' });

  /** The Destroyer `name`, as a user would create it. */
  const newDestroyer = (name: string): Destroyer => ({
    apiVersion: 'ship.testproject.org/v1',
    kind: 'Destroyer',
    metadata: { name },
    // TODO(user): specify other spec details if needed.
    spec: { foo: 'bar' },
  });

  /** What the webhook server hands the defaulter and the validator for a request about `obj`. */
  const admission = (operation: 'CREATE' | 'UPDATE' | 'DELETE', obj: Destroyer): AdmissionContext => ({
    request: {
      uid: randomUUID(),
      kind: { group: 'ship.testproject.org', version: 'v1', kind: 'Destroyer' },
      resource: { group: 'ship.testproject.org', version: 'v1', resource: 'destroyers' },
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

  it('DestroyerCustomDefaulter sets the defaults', async () => {
    const obj = newDestroyer('defaulted');
    await new DestroyerCustomDefaulter().default(obj, admission('CREATE', obj));
    // TODO(user): assert on the defaults your defaulter sets.
    assert.equal(obj.metadata?.name, 'defaulted');
  });

  it('destroyerConversion (v1beta1) converts to the hub and back without losing the spec', async () => {
    const spoke: DestroyerV1beta1 = { apiVersion: 'ship.testproject.org/v1beta1', kind: 'Destroyer', metadata: { name: 'converted' }, spec: { foo: 'bar' } };
    const hub = await destroyerConversionV1beta1.convertTo(spoke);
    assert.equal(hub.metadata?.name, 'converted');
    const back = await destroyerConversionV1beta1.convertFrom(hub);
    assert.deepEqual(back.spec, spoke.spec);
  });

  // +kubebuilder:scaffold:webhook-tests
});
