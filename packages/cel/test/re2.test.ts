// packages/cel/src/re2.ts: the one RE2 engine (CRD patterns, CEL matches/find/findAll, the checks).
// Go's own verdicts and error texts are compared in packages/cel/test/oracle/goregexp.test.ts; the API server's
// answers for CRD patterns and CEL matches() in test/fake/differential.test.ts (RE2 scenarios).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkRE2, goRegexpError, re2Find, re2FindAll, re2Matches } from '../src/re2.js';

describe('RE2 matching, as Go reads the pattern', () => {
  const cases: [pattern: string, input: string, matches: boolean][] = [
    // flags JavaScript has no inline syntax for
    ['(?i)^abc$', 'ABC', true],
    ['(?i)^abc$', 'xyz', false],
    ['^(?i:a)b$', 'Ab', true],
    ['^(?i:a)b$', 'AB', false],
    // Unicode classes in RE2's spelling
    ['^\\pL+$', 'héllo', true],
    ['^\\pL+$', 'h3llo', false],
    ['^\\p{Greek}+$', 'αβγ', true],
    ['^\\p{Greek}+$', 'abc', false],
    ['^\\PL+$', '123', true],
    // POSIX classes
    ['^[[:alpha:]]+$', 'abc', true],
    ['^[[:alpha:]]+$', 'ab1', false],
    ['^[[:^digit:]]+$', 'ab', true],
    // \z is the end of the text; $ without (?m) is too
    ['a\\z', 'ba', true],
    ['a\\z', 'ab', false],
    // \Q..\E quotes
    ['^\\Qa.b\\E$', 'a.b', true],
    ['^\\Qa.b\\E$', 'axb', false],
    // unanchored: anywhere in the input
    ['b', 'abc', true],
  ];
  for (const [p, s, want] of cases)
    it(`${JSON.stringify(p)} ${want ? 'matches' : 'does not match'} ${JSON.stringify(s)}`, () =>
      assert.equal(re2Matches(p, s), want));

  it('find and findAll are Go FindString / FindAllString (an empty match next to a match is skipped)', () => {
    assert.equal(re2Find('[0-9]+', 'ab12cd345'), '12');
    assert.equal(re2Find('z', 'abc'), '');
    assert.deepEqual(re2FindAll('a*', 'baaac'), ['', 'aaa', '']);
    assert.deepEqual(re2FindAll('[0-9]', 'a1b2c3', 2), ['1', '2']);
    assert.deepEqual(re2FindAll('z', 'abc'), []);
  });

  it('a capture name used twice compiles, as in Go', () => {
    assert.equal(goRegexpError('(?P<n>a)(?P<n>b)'), undefined);
    assert.equal(re2Matches('^(?P<n>a)(?P<n>b)$', 'ab'), true);
  });

  it("throws Go's compile error for a pattern RE2 refuses", () => {
    assert.throws(() => re2Matches('(?=a)', 'a'), {
      message: 'error parsing regexp: invalid or unsupported Perl syntax: `(?=`',
    });
  });
});

describe("RE2 refusals, in Go's words with a hint", () => {
  const cases: [pattern: string, go: string, hint: RegExp | undefined][] = [
    ['(?=a)', 'invalid or unsupported Perl syntax: `(?=`', /lookahead/],
    ['(?<=a)b', 'invalid named capture: `(?<=a)b`', /lookbehind/],
    ['(a)\\1', 'invalid escape sequence: `\\1`', /backreferences/],
    ['\\u0041', 'invalid escape sequence: `\\u`', /\\x\{hhhh\}/],
    ['a*+', 'invalid nested repetition operator: `*+`', /possessive/],
    ['a{1001}', 'invalid repeat count: `{1001}`', /at most 1000/],
    ['\\', 'trailing backslash at end of expression: ``', undefined],
  ];
  for (const [p, go, hint] of cases)
    it(`refuses ${JSON.stringify(p)}`, () => {
      assert.equal(goRegexpError(p), `error parsing regexp: ${go}`);
      const r = checkRE2(p);
      assert.ok(r);
      assert.ok(r.message.startsWith(go));
      if (hint) assert.match(r.message, hint);
      else assert.equal(r.message, go);
    });

  it('points at the part Go names', () => {
    assert.equal(checkRE2('^ab(?=c)')?.offset, 3);
  });
});
