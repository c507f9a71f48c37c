// The CEL types the API server declares for a schema (apiserver's SchemaDeclType), as
// kubeforge's checker reads them (packages/cel/src/types.ts schemaType). Cases of apiextensions'
// validation_test.go "preserve unknown fields" (packages/cel/test/corpus); the API server judges the
// same forms in test/cel/server-verdicts.test.ts (rule-corpus.ts anyval, anylist, raw).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileRule, schemaType, type RuleSchema } from '../src/index.js';

const schema: RuleSchema = {
  type: 'object',
  properties: {
    anyvalField1: { 'x-kubernetes-preserve-unknown-fields': true },
    anyvalList: { type: 'array', items: { 'x-kubernetes-preserve-unknown-fields': true } },
    anyvalMap: { type: 'object', additionalProperties: { 'x-kubernetes-preserve-unknown-fields': true } },
    withUnknown: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    withUnknownList: { type: 'array', items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
  },
};
const problems = (rule: string) => compileRule({ rule }, schema).problems.map((p) => p.message);

describe('fields under x-kubernetes-preserve-unknown-fields', () => {
  it('a field without a type, and a list or map of such, is no CEL field (undefined field)', () => {
    assert.deepEqual(problems('has(self.anyvalField1)'), ["<input>:1:9: undefined field 'anyvalField1'"]);
    assert.deepEqual(problems('has(self.anyvalList)'), ["<input>:1:9: undefined field 'anyvalList'"]);
    assert.deepEqual(problems('has(self.anyvalMap)'), ["<input>:1:9: undefined field 'anyvalMap'"]);
  });
  it('an object that keeps unknown fields is an object of its declared fields only', () => {
    assert.deepEqual(problems('has(self.withUnknown) && self.withUnknownList.size() == 5'), []);
    assert.deepEqual(problems('has(self.withUnknown.field1)'), ["<input>:1:21: undefined field 'field1'"]);
  });
  it('a resource root without a type is an object all the same', () => {
    assert.equal(schemaType({ 'x-kubernetes-preserve-unknown-fields': true } as RuleSchema, true)?.kind, 'object');
    assert.equal(schemaType({ 'x-kubernetes-preserve-unknown-fields': true } as RuleSchema, false), undefined);
  });
});

describe('declared dotted variable names (cel-spec fields.textproto qualified_identifier_resolution)', () => {
  it('a.b.c is the variable a.b.c, or field c of a declared a.b: the longest declared prefix', async () => {
    const { checkExpression, T } = await import('../src/index.js');
    const typeOf = (vars: Record<string, import('../src/index.js').CelT>) => checkExpression('a.b.c', vars);
    assert.equal(typeOf({ 'a.b.c': T.string }).type?.kind, 'string');
    assert.equal(typeOf({ 'a.b': T.map(T.string, T.int) }).type?.kind, 'int');
    assert.equal(typeOf({ 'a.b': T.map(T.string, T.int), 'a.b.c': T.string }).type?.kind, 'string');
    assert.deepEqual(
      typeOf({ x: T.int }).issues.map((i) => i.message),
      ["<input>:1:1: undeclared reference to 'a' (in container '')"],
    );
  });
});
