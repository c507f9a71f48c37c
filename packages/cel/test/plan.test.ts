// What cel-go refuses after the type check (packages/cel/src/plan.ts): the literal validators of the API
// server's environment and program planning's constant folds. The expected messages and
// positions are cel-go's, as packages/cel/test/corpus records them (cel-spec's timestamps, conversions
// and fields tables; apiextensions' validation_test.go); test/cel/server-verdicts.test.ts has
// the real API server judge the same kinds of rules.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkExpression, compileRule, T, type RuleSchema } from '../src/index.js';
import { goParseDuration, goParseRFC3339, goRegexpError } from '../src/plan.js';

const issues = (src: string) => checkExpression(src, {}).issues.map((i) => i.message);
const planned = (src: string) => checkExpression(src, {}).programError;

describe("cel-go's literal validators", () => {
  it('refuse a duration() literal Go does not parse, at the literal (timestamps.textproto duration_range)', () => {
    assert.deepEqual(issues("duration('320000000000s')"), ['<input>:1:10: invalid duration argument']);
    assert.deepEqual(issues("duration('200000000000s') + duration('200000000000s')"), [
      '<input>:1:10: invalid duration argument',
      '<input>:1:38: invalid duration argument',
    ]);
    assert.deepEqual(issues("duration('1us') < duration('1nns')"), ['<input>:1:28: invalid duration argument']);
    for (const bad of ['1', '1d', '', '.s', '1.5'])
      assert.deepEqual(issues(`duration('${bad}') > duration('0s')`), ['<input>:1:10: invalid duration argument'], bad);
    for (const good of ['0', '1us', '1µs', '-1.5h', '1h2m3.5s', '+3ms', '2562047h'])
      assert.deepEqual(issues(`duration('${good}') > duration('0s')`), [], good);
  });

  it('refuse a timestamp() literal out of RFC 3339 or of range (date-time format, timestamp_range)', () => {
    for (const bad of [
      "'0000-01-01T00:00:00Z'",
      "'10000-01-01T00:00:00Z'",
      "'1000-00-00T00:00:00Z'",
      "'1000-01-01T00:00:00ZZ'",
      "'2021-02-29T00:00:00Z'",
      '-62135596801',
      '253402300800',
    ]) {
      assert.deepEqual(issues(`timestamp(${bad}) > timestamp(0)`), ['<input>:1:11: invalid timestamp argument'], bad);
    }
    for (const good of [
      "'2020-02-29T23:59:59.5+01:00'",
      "'0001-01-01T00:00:00Z'",
      "'9999-12-31T23:59:59Z'",
      '-62135596800',
      '253402300799',
    ]) {
      assert.deepEqual(issues(`timestamp(${good}) > timestamp(0)`), [], good);
    }
  });

  it("refuse a literal pattern of matches() RE2 refuses (cel-go checks the call's first argument)", () => {
    assert.deepEqual(
      checkExpression("s.matches('x++')", { s: T.string }).issues.map((i) => i.message),
      ['<input>:1:11: invalid matches argument'],
    );
    assert.deepEqual(checkExpression("s.matches('(?<n>a)')", { s: T.string }).issues, []);
  });

  it('leave a validated rule no type, so the server reports the literal, not the result type (duration format/errors)', () => {
    const r = compileRule({ rule: "duration('1d')" }, { type: 'object' } as RuleSchema);
    assert.deepEqual(
      r.problems.map((p) => p.message),
      ['<input>:1:10: invalid duration argument'],
    );
  });
});

describe("cel-go's program planning (OptOptimize)", () => {
  it('folds a conversion of a constant, with its error (conversions.textproto)', () => {
    assert.equal(planned('int(18446744073709551615u)'), 'integer overflow');
    assert.equal(planned('int(9223372036854775807.0)'), 'integer overflow');
    assert.equal(planned('int(-9223372036854775808.0)'), 'integer overflow');
    assert.equal(planned('int(1e99)'), 'integer overflow');
    assert.equal(planned('uint(-1)'), 'unsigned integer overflow');
    assert.equal(planned('uint(6.022e23)'), 'unsigned integer overflow');
    assert.equal(planned("bool('TrUe')"), "type conversion error from 'string' to 'bool'");
    assert.equal(planned("string(b'\\000\\xff')"), 'invalid UTF-8 in bytes, cannot convert to string');
    assert.equal(planned("double('1e400')"), "type conversion error from 'string' to 'double'");
    assert.equal(planned('int(uint(-1))'), 'unsigned integer overflow');
    for (const ok of [
      'int(9.2e18)',
      "int('-12')",
      "uint('12')",
      "bool('True')",
      "double('-Infinity')",
      "string(b'abc')",
      'int(-9.2e18)',
    ])
      assert.equal(planned(ok), undefined, ok);
  });

  it('makes a qualifier of a constant index: only strings, ints, uints, bools and doubles (fields.textproto map_bad_key_type)', () => {
    assert.equal(planned("{0:1,2:2,5:3}[dyn(b'')]"), 'invalid qualifier type: types.Bytes');
    assert.equal(planned("dyn({0:1,2:2,5:3}[dyn(b'')]) || true"), 'invalid qualifier type: types.Bytes');
    assert.equal(planned('{null:false}[null]'), 'invalid qualifier type: types.Null');
    assert.equal(planned('{1:2}[1] == 2 && {"a": 1}["a"] == 1 && {1.0: 1}[1.0] == 1'), undefined);
  });

  it('compiles a constant pattern of find() / findAll() (stdlib regex functions/errors)', () => {
    const vars = { s: T.string };
    assert.equal(checkExpression("s.find(')') == ''", vars).programError, 'error parsing regexp: unexpected ): `)`');
    assert.equal(
      checkExpression("s.findAll(')', 1) == []", vars).programError,
      'error parsing regexp: unexpected ): `)`',
    );
    assert.equal(checkExpression("s.find('[a-z]+') == ''", vars).programError, undefined);
    const r = compileRule({ rule: "self.find(')') == ''" }, { type: 'string' } as RuleSchema);
    assert.deepEqual(
      r.problems.map((p) => p.message),
      ['program instantiation failed: error parsing regexp: unexpected ): `)`'],
    );
    assert.equal(r.maxCost, 0n, 'a rule whose program does not build is not costed');
  });

  it("plans a messageExpression only when the rule's program builds, in apiextensions' words", () => {
    const r = compileRule({ rule: 'self > 0', messageExpression: 'string(int(1e99))' }, {
      type: 'integer',
    } as RuleSchema);
    assert.deepEqual(r.problems, [
      { part: 'messageExpression', message: 'messageExpression instantiation failed: integer overflow', offset: 0 },
    ]);
  });
});

describe("Go's parsers, as cel-go uses them", () => {
  it('time.ParseDuration', () => {
    assert.equal(goParseDuration('1h2m3.5s'), 3723500000000n);
    assert.equal(goParseDuration('-1.5h'), -5400000000000n);
    assert.equal(goParseDuration('9223372036854775807ns'), 9223372036854775807n);
    assert.equal(goParseDuration('9223372036854775808ns'), undefined);
    assert.equal(goParseDuration('-9223372036854775808ns'), -9223372036854775808n);
    assert.equal(goParseDuration('1nns'), undefined);
  });
  it('time.Parse(time.RFC3339)', () => {
    assert.equal(goParseRFC3339('1970-01-01T00:00:00Z'), 0n);
    assert.equal(goParseRFC3339('2000-03-01T01:00:00+01:00'), 951868800n);
    assert.equal(goParseRFC3339('0001-01-01T00:00:00Z'), -62135596800n);
    assert.equal(goParseRFC3339('1970-01-01 00:00:00Z'), undefined);
  });
  it("regexp.Compile's error text", () => {
    assert.equal(goRegexpError('x++'), 'error parsing regexp: invalid nested repetition operator: `++`');
    assert.equal(goRegexpError('(?P<n>a)|\\d'), undefined);
  });
});

describe("cel-go's homogeneous literals and format validator (checker)", () => {
  it('counts null as a type of its own in a list or map literal (comparisons.textproto eq_literal)', () => {
    assert.deepEqual(issues('[1, 2, null] == [1, null, 3]'), [
      "<input>:1:8: expected type 'int' but found 'null'",
      "<input>:1:21: expected type 'int' but found 'null'",
    ]);
    assert.deepEqual(issues("{1:'hello', 2:'world'} == {1:'goodbye', 2:null}"), [
      "<input>:1:43: expected type 'string' but found 'null'",
    ]);
    // a list reports its first mismatch only; a map each
    assert.deepEqual(issues("[1, 'a', 2.0].size() == 3"), ["<input>:1:5: expected type 'int' but found 'string'"]);
    assert.deepEqual(issues("{1: 'a', 'b': 2}.size() == 2"), [
      "<input>:1:10: expected type 'int' but found 'string'",
      "<input>:1:15: expected type 'string' but found 'int'",
    ]);
    assert.deepEqual(issues('[null, null].size() == 2'), []);
  });

  it('counts dyn as a type of its own, and each schema object as its own (the API server names it by its path)', () => {
    assert.deepEqual(issues('[dyn(1), 2].size() == 2'), ["<input>:1:10: expected type 'dyn' but found 'int'"]);
    assert.deepEqual(issues('[dyn(1), dyn("a")].size() == 2'), []);
    const obj = compileRule({ rule: '[self.a, self.b].size() == 2 && [self.a, self.a].size() == 2' }, {
      type: 'object',
      properties: {
        a: { type: 'object', properties: { x: { type: 'integer' } } },
        b: { type: 'object', properties: { x: { type: 'integer' } } },
      },
    } as RuleSchema);
    assert.equal(obj.problems.length, 1);
    assert.equal(
      obj.problems[0].message,
      "<input>:1:14: expected type 'object' but found 'object' (the objects of two schema nodes are two types)",
    );
  });

  it("lets an empty literal take its neighbours' type (cel-go's type variables)", () => {
    for (const ok of [
      '[[], [1]].size() == 2',
      '[{}, {"a": 1}].size() == 2',
      '[[1], []].size() == 2',
      '[?optional.of(42), ?optional.none()].size() == 1',
      '[optional.none(), optional.of(1)].size() == 2',
      '[[].sum(), 1].size() == 2',
    ])
      assert.deepEqual(issues(ok), [], ok);
    assert.deepEqual(issues('[optional.of("a"), optional.of(1)].size() == 2'), [
      "<input>:1:31: expected type 'optional_type(string)' but found 'optional_type(int)'",
    ]);
  });

  it('exempts every literal under a call of format (string_ext.textproto format)', () => {
    assert.deepEqual(issues('"%s".format([["abc", 3.14, null, [9, 8, 7, 6], timestamp("2023-02-03T23:31:20Z")]])'), []);
    assert.deepEqual(issues('"%s".format([{1: "value1", uint(2): "value2", true: double("NaN")}])'), []);
    assert.deepEqual(issues('"%s".format([dyn([6, 4.2, "a string"])])'), []);
  });

  it("checks a literal format's clauses against its literal arguments, at the argument (cel-go places a call at its parenthesis)", () => {
    assert.deepEqual(issues('"%d".format([double("NaN")])'), [
      '<input>:1:20: error during formatting: decimal clause can only be used on integers, was given double',
    ]);
    assert.deepEqual(issues('"%x".format([[1]])'), [
      '<input>:1:14: error during formatting: only integers, byte buffers, and strings can be formatted as hex, was given list',
    ]);
    assert.deepEqual(issues('"%d %d".format([1])'), ['<input>:1:15: index 1 out of range']);
    assert.deepEqual(issues('"%d".format([1, 2])'), [
      '<input>:1:12: too many arguments supplied to string.format (expected 1, got 2)',
    ]);
    assert.deepEqual(issues('"%q".format([1])'), [
      '<input>:1:12: could not parse formatting clause: unrecognized formatting clause "q"',
    ]);
    assert.deepEqual(issues('"%.2f %s %o %%".format([1.5, [1, "a"], 8u])'), []);
  });

  it('reports a call where cel-go does: its opening parenthesis', () => {
    assert.deepEqual(
      checkExpression("s.charAt('a') == ''", { s: T.string }).issues.map((i) => i.message),
      ["<input>:1:9: found no matching overload for 'charAt' applied to 'string.(string)'"],
    );
    assert.deepEqual(issues('size(1) == 1'), ["<input>:1:5: found no matching overload for 'size' applied to '(int)'"]);
  });
});

describe('the Kubernetes lists library: sum() of numbers and durations, isSorted() / min() / max() of comparable elements (lists.go)', () => {
  it("refuses other element types in cel-go's words (stdlib list functions/errors)", () => {
    assert.deepEqual(issues("['a', 'b'].sum() == 'c'"), [
      "<input>:1:15: found no matching overload for 'sum' applied to 'list(string).()'",
    ]);
    assert.deepEqual(issues('[[1], [2]].min() == [1]'), [
      "<input>:1:15: found no matching overload for 'min' applied to 'list(list(int)).()'",
    ]);
    assert.deepEqual(issues("[{'a': 1}, {'b': 2}].max() == {'b': 2}"), [
      "<input>:1:25: found no matching overload for 'max' applied to 'list(map(string, int)).()'",
    ]);
    assert.deepEqual(issues('[true].isSorted() && [[1]].size() == 1'), []);
    assert.deepEqual(issues('[[1]].isSorted()'), [
      "<input>:1:15: found no matching overload for 'isSorted' applied to 'list(list(int)).()'",
    ]);
  });
  it('takes the summable and comparable ones, and a list of dyn', () => {
    for (const ok of [
      '[1, 2].sum() == 3',
      '[1u].sum() == 1u',
      '[1.5].sum() == 1.5',
      "[duration('1s')].sum() == duration('1s')",
      "['a'].min() == 'a'",
      "[b'a'].max() == b'a'",
      '[true].max()',
      'dyn([1]).sum() == 1',
    ])
      assert.deepEqual(issues(ok), [], ok);
  });
});
