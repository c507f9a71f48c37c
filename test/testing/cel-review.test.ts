// The CEL webhook's answers, without an API server: which requests it judges and the shape of
// a refusal (422 Invalid, apimachinery's message, causes), as a 1.25+ server answers.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RuleSchema } from '@kubeforge/cel';
import { celSchemas, celWebhookConfiguration } from '../../src/testing/cel.js';
import { reviewCEL } from '../../src/testing/cel-review.js';
import type { CRDObject } from '../../src/testing/index.js';

const schema: RuleSchema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        size: {
          type: 'integer',
          'x-kubernetes-validations': [
            { rule: 'self % 2 == 0', message: 'must be even' },
            { rule: 'self < 100', reason: 'FieldValueForbidden', message: 'too big' },
          ],
        },
        name: {
          type: 'string',
          'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'Value is immutable' }],
        },
      },
    },
  },
};
const crd = (withRules: boolean): CRDObject => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.demo.example.com' },
  spec: {
    group: 'demo.example.com',
    names: { kind: 'Widget', plural: 'widgets' },
    versions: [
      { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: withRules ? schema : { type: 'object' } } },
    ],
  },
});
const schemas = celSchemas([crd(true)]);
const review = (operation: string, object: unknown, oldObject?: unknown, kind = 'Widget') => ({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: {
    uid: 'u1',
    kind: { group: 'demo.example.com', version: 'v1', kind },
    operation,
    name: 'w',
    object,
    oldObject,
  },
});
type Answer = {
  response: {
    uid: string;
    allowed: boolean;
    status?: {
      code: number;
      reason: string;
      message: string;
      details: { causes: { reason: string; field: string; message: string }[] };
    };
  };
};

describe('CEL webhook answers', () => {
  it('only CRDs with rules are selected, for create and update of the resource and its status', () => {
    assert.deepEqual([...celSchemas([crd(false)]).keys()], []);
    assert.deepEqual([...schemas.keys()], ['demo.example.com/v1/Widget']);
    const cfg = celWebhookConfiguration([crd(true)], schemas, 'https://127.0.0.1:1/x', 'Q0E=') as unknown as {
      webhooks: { rules: unknown[]; failurePolicy: string }[];
    };
    assert.deepEqual(cfg.webhooks[0].rules, [
      {
        apiGroups: ['demo.example.com'],
        apiVersions: ['v1'],
        operations: ['CREATE', 'UPDATE'],
        resources: ['widgets', 'widgets/status'],
        scope: '*',
      },
    ]);
    assert.equal(cfg.webhooks[0].failurePolicy, 'Fail');
  });

  it('allows what holds, other kinds and deletes', () => {
    assert.equal(
      (reviewCEL(schemas, review('CREATE', { metadata: { name: 'w' }, spec: { size: 2 } })) as Answer).response.allowed,
      true,
    );
    assert.equal(
      (reviewCEL(schemas, review('CREATE', { spec: { size: 3 } }, undefined, 'Other')) as Answer).response.allowed,
      true,
    );
    assert.equal(
      (reviewCEL(schemas, review('DELETE', undefined, { spec: { size: 3 } })) as Answer).response.allowed,
      true,
    );
  });

  it('refuses with 422 Invalid, the message and causes of apimachinery', () => {
    const a = reviewCEL(
      schemas,
      review(
        'UPDATE',
        { metadata: { name: 'w' }, spec: { size: 101, name: 'b' } },
        { metadata: { name: 'w' }, spec: { size: 2, name: 'a' } },
      ),
    ) as Answer;
    assert.equal(a.response.uid, 'u1');
    assert.equal(a.response.allowed, false);
    assert.equal(a.response.status?.code, 422);
    assert.equal(a.response.status?.reason, 'Invalid');
    assert.equal(
      a.response.status?.message,
      'Widget.demo.example.com "w" is invalid: [spec.name: Invalid value: "b": Value is immutable, spec.size: Invalid value: 101: must be even, spec.size: Forbidden: too big]',
    );
    assert.deepEqual(
      a.response.status?.details.causes.map((c) => [c.reason, c.field]),
      [
        ['FieldValueInvalid', 'spec.name'],
        ['FieldValueInvalid', 'spec.size'],
        ['FieldValueForbidden', 'spec.size'],
      ],
    );
  });

  it('transition rules wait for an old value', () => {
    assert.equal((reviewCEL(schemas, review('CREATE', { spec: { name: 'b' } })) as Answer).response.allowed, true);
    assert.equal(
      (reviewCEL(schemas, review('UPDATE', { spec: { name: 'b' } }, { spec: {} })) as Answer).response.allowed,
      true,
    );
  });
});
