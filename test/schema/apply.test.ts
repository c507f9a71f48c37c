// Marker application on schemas: preconditions with controller-gen's wording, Type first,
// items markers, and allOf hoisting when a field's constraint conflicts with its type's.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { getMarkerDefinition } from '../../src/markers/definitions.js';
import type { MarkerValue } from '../../src/collector/collector.js';
import { applyMarkers, type Fold } from '../../src/schema/apply.js';
import type { JSONSchemaProps } from '../../src/schema/jsonschema.js';
import { must } from '../helpers/must.js';

function mk(name: string, args?: unknown): MarkerValue {
  return {
    name,
    def: must(getMarkerDefinition(name), 'getMarkerDefinition(name)'),
    args,
    source: 'decorator',
    file: 'f.ts',
    line: 1,
    column: 1,
  } as MarkerValue;
}

function run(
  schema: JSONSchemaProps,
  markers: MarkerValue[],
  fold?: Fold,
): { schema: JSONSchemaProps; errors: string[] } {
  const errors: string[] = [];
  applyMarkers(schema, markers, (m, msg) => errors.push(`${m.name}: ${msg}`), fold);
  return { schema, errors };
}

describe('applyMarkers', () => {
  it('rejects markers whose precondition fails, in controller-gen words', () => {
    assert.deepEqual(run({ type: 'string' }, [mk('Maximum', 3)]).errors, [
      'Maximum: must apply maximum to a numeric value, found string',
    ]);
    assert.deepEqual(run({ type: 'integer' }, [mk('MinLength', 3)]).errors, [
      'MinLength: must apply minlength to a textual value, found type "integer"',
    ]);
    assert.deepEqual(run({ type: 'string' }, [mk('MaxItems', 3)]).errors, ['MaxItems: must apply maxitem to an array']);
    assert.deepEqual(run({ type: 'array', items: { type: 'string' } }, [mk('MinProperties', 1)]).errors, [
      'MinProperties: must apply minproperties to an object',
    ]);
    assert.deepEqual(run({ type: 'integer' }, [mk('Maximum', 1.5)]).errors, [
      'Maximum: cannot apply non-integral maximum validation (1.5) to integer value',
    ]);
    assert.deepEqual(run({ type: 'string' }, [mk('ListType', 'set')]).errors, [
      'ListType: must apply listType to an array, found string',
    ]);
    assert.deepEqual(
      run({ type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } }, [
        mk('ListMapKey', ['name']),
      ]).errors,
      ['ListMapKey: must apply listMapKey to an associative-list'],
    );
    assert.deepEqual(run({ type: 'string' }, [mk('Items.MaxLength', 3)]).errors, [
      'Items.MaxLength: must apply items markers to an array, found string',
    ]);
  });

  it('applies @Type first, whatever the order written; it sets the type only, as controller-gen does', () => {
    const { schema, errors } = run({ type: 'object', properties: { a: { type: 'string' } } }, [
      mk('MaxLength', 4),
      mk('Type', 'string'),
    ]);
    assert.deepEqual(errors, []);
    assert.deepEqual(schema, { type: 'string', maxLength: 4, properties: { a: { type: 'string' } } });
  });

  it('accepts string and numeric validations on int-or-string', () => {
    const { errors } = run({ anyOf: [{ type: 'integer' }, { type: 'string' }], 'x-kubernetes-int-or-string': true }, [
      mk('Maximum', 3),
      mk('Pattern', '^\\d+%?$'),
    ]);
    assert.deepEqual(errors, []);
  });

  it("folds a field's validations into its named type's as controller-gen does: both values in allOf, the type's first, even when equal", () => {
    const base: JSONSchemaProps = {
      type: 'string',
      minLength: 1,
      maxLength: 63,
      pattern: '^a',
      'x-kubernetes-validations': [{ rule: 'type' }],
    };
    const { schema } = run(
      { ...base },
      [mk('MinLength', 5), mk('MaxLength', 63), mk('Pattern', '^a'), mk('XValidation', { rule: 'field' })],
      { top: true },
    );
    assert.deepEqual(schema, {
      type: 'string',
      pattern: '^a',
      allOf: [
        { minLength: 1, maxLength: 63 },
        { minLength: 5, maxLength: 63 },
      ],
      'x-kubernetes-validations': [{ rule: 'field' }, { rule: 'type' }],
    });
    assert.deepEqual(
      base,
      { type: 'string', minLength: 1, maxLength: 63, pattern: '^a', 'x-kubernetes-validations': [{ rule: 'type' }] },
      "the type's schema is unchanged",
    );
  });

  it("writes over a schema that is not a named type's, rules after its own", () => {
    const { schema } = run({ type: 'string', minLength: 1, 'x-kubernetes-validations': [{ rule: 'a' }] }, [
      mk('MinLength', 5),
      mk('XValidation', { rule: 'b' }),
    ]);
    assert.deepEqual(schema, {
      type: 'string',
      minLength: 5,
      'x-kubernetes-validations': [{ rule: 'a' }, { rule: 'b' }],
    });
  });

  it('folds items markers into a named item type', () => {
    const { schema } = run(
      { type: 'array', items: { type: 'string', maxLength: 10 } },
      [mk('Items.MaxLength', 6), mk('MinItems', 1)],
      { items: true },
    );
    assert.deepEqual(schema, {
      type: 'array',
      minItems: 1,
      items: { type: 'string', allOf: [{ maxLength: 10 }, { maxLength: 6 }] },
    });
  });

  it('puts the one-of family after the XValidation rules, whatever the order written', () => {
    const { schema } = run({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } } }, [
      mk('AtLeastOneOf', ['a', 'b']),
      mk('XValidation', { rule: 'true' }),
    ]);
    assert.deepEqual(
      schema['x-kubernetes-validations']?.map((v) => v.rule),
      ['true', 'has(self.a)||has(self.b)'],
    );
  });

  it("puts a field's CEL rules (and the one-of family) before its named type's, as controller-gen does", () => {
    const base: JSONSchemaProps = {
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'string' } },
      'x-kubernetes-validations': [{ rule: 'true' }],
    };
    const { schema, errors } = run(
      structuredClone(base),
      [mk('XValidation', { rule: 'has(self.a)', message: 'a' }), mk('ExactlyOneOf', ['a', 'b'])],
      { top: true },
    );
    assert.deepEqual(errors, []);
    assert.deepEqual(schema['x-kubernetes-validations'], [
      { message: 'a', rule: 'has(self.a)' },
      { message: 'exactly one of the fields in [a b] must be set', rule: '(has(self.a)?1:0)+(has(self.b)?1:0) == 1' },
      { rule: 'true' },
    ]);
    assert.deepEqual(run(structuredClone(base), [mk('AtMostOneOf', ['a', 'c'])]).errors, [
      "AtMostOneOf: names 'c', which is not a field of this type",
    ]);
  });
});
