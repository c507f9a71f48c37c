// Marker application on schemas: preconditions with controller-gen's wording, Type first,
// items markers, and allOf hoisting when a field's constraint conflicts with its type's.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { getMarkerDefinition } from '../../src/markers/definitions.js';
import type { MarkerValue } from '../../src/analysis/collector.js';
import { applyMarkers } from '../../src/schema/apply.js';
import type { JSONSchemaProps } from '../../src/schema/jsonschema.js';

function mk(name: string, args?: unknown): MarkerValue {
  return { name, def: getMarkerDefinition(name)!, args, source: 'decorator', file: 'f.ts', line: 1, column: 1 } as MarkerValue;
}

function run(schema: JSONSchemaProps, markers: MarkerValue[], base?: JSONSchemaProps): { schema: JSONSchemaProps; errors: string[] } {
  const errors: string[] = [];
  applyMarkers(schema, markers, (m, msg) => errors.push(`${m.name}: ${msg}`), base);
  return { schema, errors };
}

describe('applyMarkers', () => {
  it('rejects markers whose precondition fails, in controller-gen words', () => {
    assert.deepEqual(run({ type: 'string' }, [mk('Maximum', 3)]).errors, ['Maximum: must apply maximum to a numeric value, found string']);
    assert.deepEqual(run({ type: 'integer' }, [mk('MinLength', 3)]).errors, ['MinLength: must apply minlength to a textual value, found type "integer"']);
    assert.deepEqual(run({ type: 'string' }, [mk('MaxItems', 3)]).errors, ['MaxItems: must apply maxitem to an array']);
    assert.deepEqual(run({ type: 'array', items: { type: 'string' } }, [mk('MinProperties', 1)]).errors, ['MinProperties: must apply minproperties to an object']);
    assert.deepEqual(run({ type: 'integer' }, [mk('Maximum', 1.5)]).errors, ['Maximum: cannot apply non-integral maximum validation (1.5) to integer value']);
    assert.deepEqual(run({ type: 'string' }, [mk('ListType', 'set')]).errors, ['ListType: must apply listType to an array, found string']);
    assert.deepEqual(run({ type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } }, [mk('ListMapKey', ['name'])]).errors, [
      'ListMapKey: must apply listMapKey to an associative-list',
    ]);
    assert.deepEqual(run({ type: 'string' }, [mk('Items.MaxLength', 3)]).errors, ['Items.MaxLength: must apply items markers to an array, found string']);
  });

  it('applies @Type first, whatever the order written', () => {
    const { schema, errors } = run({ type: 'object', properties: { a: { type: 'string' } } }, [mk('MaxLength', 4), mk('Type', 'string')]);
    assert.deepEqual(errors, []);
    assert.deepEqual(schema, { type: 'string', maxLength: 4 });
  });

  it('accepts string and numeric validations on int-or-string', () => {
    const { errors } = run({ anyOf: [{ type: 'integer' }, { type: 'string' }], 'x-kubernetes-int-or-string': true }, [mk('Maximum', 3), mk('Pattern', '^\\d+%?$')]);
    assert.deepEqual(errors, []);
  });

  it('hoists a conflicting field validation and its type one into allOf, keeps agreeing ones', () => {
    const base: JSONSchemaProps = { type: 'string', minLength: 1, maxLength: 63 };
    const { schema } = run(structuredClone(base), [mk('MinLength', 5), mk('MaxLength', 63)], base);
    assert.deepEqual(schema, { type: 'string', maxLength: 63, allOf: [{ minLength: 5 }, { minLength: 1 }] });
  });

  it('puts the one-of family after the XValidation rules, whatever the order written', () => {
    const { schema } = run({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } } }, [mk('AtLeastOneOf', ['a', 'b']), mk('XValidation', { rule: 'true' })]);
    assert.deepEqual(
      schema['x-kubernetes-validations']?.map((v) => v.rule),
      ['true', '[has(self.a),has(self.b)].filter(x,x==true).size() >= 1'],
    );
  });

  it('appends CEL rules (the type ones first) and the one-of family', () => {
    const base: JSONSchemaProps = { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } }, 'x-kubernetes-validations': [{ rule: 'true' }] };
    const { schema, errors } = run(structuredClone(base), [mk('XValidation', { rule: 'has(self.a)', message: 'a' }), mk('ExactlyOneOf', ['a', 'b'])], base);
    assert.deepEqual(errors, []);
    assert.deepEqual(schema['x-kubernetes-validations'], [
      { rule: 'true' },
      { message: 'a', rule: 'has(self.a)' },
      { message: 'exactly one of the fields in [a b] must be set', rule: '[has(self.a),has(self.b)].filter(x,x==true).size() == 1' },
    ]);
    assert.deepEqual(run(structuredClone(base), [mk('AtMostOneOf', ['a', 'c'])]).errors, ["AtMostOneOf: names 'c', which is not a field of this type"]);
  });
});
