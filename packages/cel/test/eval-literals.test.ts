// Map literals in the test kit's evaluator as cel-go evaluates them (cel-spec fields.textproto
// map_value_repeat_key, in packages/cel/test/corpus): a repeated key keeps its last value.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { evaluateExpression } from '../src/index.js';

describe('map literals with a repeated key', () => {
  it('keep the last value, as cel-go does', () => {
    assert.deepEqual(evaluateExpression('{true:1,false:2,true:3}[true]', {}), { value: 3n });
    assert.deepEqual(evaluateExpression("{'a': 1, 'b': 2, 'a': 3}.size()", {}), { value: 2n });
    assert.deepEqual(evaluateExpression("{'a': 1, 'b': 2, 'a': 3}.a", {}), { value: 3n });
  });
  it('still evaluate every value: an earlier value that fails fails the literal', () => {
    assert.deepEqual(evaluateExpression("{'a': 1/0, 'a': 2}.a", {}), { error: 'division by zero' });
  });
});
