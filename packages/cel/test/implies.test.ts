// ruleImpliedBy: a rule that the rules it replaces imply is no new constraint (a loosened rule),
// and anything it cannot prove looser is not implied: it must never call a tighter rule looser.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ruleImpliedBy } from '../src/index.js';

describe('ruleImpliedBy', () => {
  it('implied: the same rule however written, a relaxed bound, a dropped conjunct, an added alternative', () => {
    for (const [after, before] of [
      ['self.size <= 10', ['self.size <= 8']],
      ['(self.size) <= 8', ['self.size <= 8']],
      ['self.size < 9', ['self.size <= 8']],
      ['self.size <= 8', ['self.size < 8']],
      ['10 >= self.size', ['self.size <= 8']],
      ['self.size > 0', ['self.size >= 1']],
      ['self.size >= -1.5', ['self.size >= 1']],
      ['self.x.size() <= 64', ['self.x.size() <= 63 && self.x.startsWith("a")']],
      ['self.a == "x"', ['self.size <= 8', 'self.a == "x" && self.b']],
      ['self.size <= 10 || has(self.y)', ['self.size <= 10']],
      ['self.a && self.b', ['self.b && self.a']],
    ] as const) {
      assert.equal(ruleImpliedBy(after, before), true, `${before.join(' ; ')} => ${after}`);
    }
  });

  it('not implied: tightened, another expression, a new conjunct, a rule that does not parse or uses optionals', () => {
    for (const [after, before] of [
      ['self.size <= 7', ['self.size <= 8']],
      ['self.size < 8', ['self.size <= 8']],
      ['self.size >= 2', ['self.size >= 1']],
      ['self.other <= 10', ['self.size <= 8']],
      ['self.size <= 10 && self.size != 3', ['self.size <= 8']],
      ['self.size <= 10', []],
      ['self.size <= 10', ['self.size <=']],
      ['self.?size.orValue(0) <= 10', ['self.size <= 8']],
      ['self.size <= 8 || self.size <= 20', ['self.size <= 30']],
      ['!(self.size <= 8)', ['self.size <= 8']],
    ] as const) {
      assert.equal(ruleImpliedBy(after, before), false, `${before.join(' ; ')} =/=> ${after}`);
    }
  });
});
