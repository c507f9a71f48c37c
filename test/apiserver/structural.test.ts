// src/apiserver/structural.ts: the API server's pruning, defaulting and value validation of a
// structural schema, the one implementation the fake API server and the manifests check share
// (the fake's answers are judged by the real server in test/fake/differential.test.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyDefaults, errorString, prune, type Schema, validate } from '../../src/apiserver/structural.js';
import { validateValue } from '../../src/manifests/crdcheck/value.js';
import type { JSONSchemaProps } from '../../src/schema/jsonschema.js';

const spec: JSONSchemaProps & Schema = {
  type: 'object',
  properties: {
    name: { type: 'string', pattern: '(?i)^abc$' },
    size: { type: 'integer', default: 3 },
    any: { type: 'string', anyOf: [{ maxLength: 2 }, { pattern: '^x' }] },
  },
  required: ['name'],
};

describe('structural value validation', () => {
  it('matches a pattern as RE2 (the fake once skipped patterns JavaScript cannot compile)', () => {
    assert.deepEqual(validate({ name: 'ABC' }, spec, 'spec'), []);
    assert.deepEqual(
      validate({ name: 'xyz' }, spec, 'spec').map((e) => errorString(e)),
      [`spec.name: Invalid value: "xyz": spec.name in body should match '(?i)^abc$'`],
    );
  });

  it("checks anyOf as kube-openapi: a composite error without a field, and the first alternative's errors", () => {
    assert.deepEqual(validate({ name: 'abc', any: 'xyz' }, spec, 'spec'), []);
    assert.deepEqual(
      validate({ name: 'abc', any: 'abc' }, spec, 'spec').map((e) => errorString(e)),
      [
        '<nil>: Invalid value: "": "spec.any" must validate at least one schema (anyOf)',
        'spec.any: Too long: may not be more than 2 bytes',
      ],
    );
  });

  it('prunes unknown fields and defaults missing ones', () => {
    const v: Record<string, unknown> = { name: 'abc', extra: 1 };
    const dropped: string[] = [];
    prune(v, spec, 'spec', dropped);
    applyDefaults(v, spec);
    assert.deepEqual(dropped, ['spec.extra']);
    assert.deepEqual(v, { name: 'abc', size: 3 });
  });

  it('is what the manifests check reports for a default, in the same words', () => {
    assert.deepEqual(
      validateValue({ name: 'xyz', extra: 1 }, spec).map((p) => [p.path, p.pruned ?? false]),
      [
        ['default.extra', true],
        ['default.name', false],
      ],
    );
    assert.deepEqual(
      validateValue({ name: 'xyz' }, spec).map((p) => p.message),
      validate({ name: 'xyz' }, spec, 'default').map((e) => errorString(e)),
    );
  });
});
