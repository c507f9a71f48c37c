// Backquoted field names (cel-go 0.29's ESC_IDENTIFIER, parsed by Kubernetes 1.37): kubeforge's
// scan (packages/cel/src/syntax.ts) stands an identifier of the same length in for each, so that
// @bufbuild/cel parses the rule and every position stays the user's. Cases from cel-spec's
// fields.textproto quoted_map_fields (packages/cel/test/corpus); the API server judges more in
// test/cel/server-verdicts.test.ts (rule-corpus.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkExpression, compileRule, evaluateExpression, T, type RuleSchema } from '../src/index.js';

describe('backquoted field names', () => {
  it('select and test map entries whose keys are no identifiers, and evaluate', () => {
    const cases: [string, unknown][] = [
      ["{'/api/v1': true, '/api/v2': false}.`/api/v1`", true],
      ["{'foo.txt': 32, 'bar.csv': 1024}.`foo.txt`", 32n],
      ["has({'foo.txt': 32, 'bar.csv': 1024}.`foo.txt`)", true],
      ["has({'/api/v1': true, '/api/v2': false}.`/api/v3`)", false],
      ["{'a b': 1}.?`a b`.orValue(0) == 1", true],
    ];
    for (const [src, want] of cases) {
      assert.deepEqual(checkExpression(src, {}).issues, [], src);
      assert.equal(evaluateExpression(src, {}).value, want, src);
    }
  });

  it("report errors where the user wrote them (cel-go's position)", () => {
    assert.deepEqual(
      checkExpression(
        "{'content-type': 'application/json', 'content-length': 145}.`content-type` == 'application/json'",
        {},
      ).issues.map((i) => i.message),
      ["<input>:1:56: expected type 'string' but found 'int'"],
    );
    const schema: RuleSchema = { type: 'object', properties: { 'x-y': { type: 'string' }, s: { type: 'string' } } };
    // an object's field is its declared (escaped) name: the API server refuses self.`x-y` too
    assert.deepEqual(
      compileRule({ rule: 'self.`s` == "a" && self.`x-y` == "a"' }, schema).problems.map((p) => p.message),
      ["<input>:1:24: undefined field 'x-y'"],
    );
  });

  it('a stand-in never takes the name of a field the rule also uses', () => {
    const m = T.map(T.string, T.string);
    // `a-bc` is 6 characters with its backquotes, as the first stand-in _0____ is
    const src = 'm.`a-bc` == "x" && m._0____ == "y"';
    assert.deepEqual(checkExpression(src, { m }).issues, []);
    assert.equal(evaluateExpression(src, { m: { 'a-bc': 'x', _0____: 'y' } }).value, true);
    assert.equal(evaluateExpression(src, { m: { 'a-bc': 'y', _0____: 'x' } }).value, false);
  });

  it('are refused when the project targets Kubernetes 1.36 or older (cel-go 0.26 refuses the backquote)', () => {
    const m = T.map(T.string, T.int);
    assert.match(
      checkExpression('m.`a-b` == 1', { m }, { k8sMinor: 36 }).issues[0]?.message ?? '',
      /^<input>:1:3: Syntax error: backquoted field names .*1\.37.*targets 1\.36$/,
    );
    assert.deepEqual(checkExpression('m.`a-b` == 1', { m }, { k8sMinor: 37 }).issues, []);
  });

  it('outside a selection stay a syntax error', () => {
    assert.match(checkExpression('`a` == 1', {}).issues[0]?.message ?? '', /Syntax error/);
  });
});
