// Hostile input, family 8: a CEL rule nested past cel-go's limit (250) is refused with a message,
// never a stack overflow. The thresholds are the API server's (test/cel/server-verdicts.test.ts
// asks it about the same rules).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileRule } from '../src/index.js';

const spec = { type: 'object', properties: { n: { type: 'integer' } } };
const chain = (n: number) => `${Array.from({ length: n }, () => 'self.n').join(' + ')} > 0`;
const parens = (n: number) => `${'('.repeat(n)}1${')'.repeat(n)} > 0`;

describe('CEL nesting limits', () => {
  it('a chain of 1,500 + terms is refused, not a crash; 249 terms compile', () => {
    assert.deepEqual(compileRule({ rule: chain(249) }, spec).problems, []);
    for (const n of [250, 1500, 20_000])
      assert.match(
        compileRule({ rule: chain(n) }, spec).problems[0]?.message ?? '',
        /max recursion depth exceeded/,
        `${n} terms`,
      );
  });
  it('parentheses nested 250 deep are refused before parsing; 249 compile', () => {
    assert.deepEqual(compileRule({ rule: parens(249) }, spec).problems, []);
    for (const n of [250, 100_000])
      assert.match(
        compileRule({ rule: parens(n) }, spec).problems[0]?.message ?? '',
        /expression recursion limit exceeded: 250/,
        `${n} parentheses`,
      );
    // Brackets inside string literals are text.
    assert.deepEqual(compileRule({ rule: `self.n > 0 || "${'('.repeat(300)}" == ""` }, spec).problems, []);
  });
});
