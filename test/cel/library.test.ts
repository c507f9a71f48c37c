// packages/cel: the rule checker, the Kubernetes libraries and the evaluator, on cases from
// Kubernetes' own tests (k8s.io/apiserver/pkg/cel: escaping_test.go, library/cost_test.go) and
// controller-tools' CronJob test type (pkg/crd/testdata/cronjob_types.go).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileRule, escapeProperty, evaluateExpression, validateObject, type RuleSchema } from '@kubeforge/cel';
import { checkRules } from '../../src/manifests/crdcheck/cel.js';
import type { JSONSchemaProps } from '../../src/schema/jsonschema.js';

describe('property names in CEL (escaping_test.go)', () => {
  const cases: [string, string | undefined][] = [
    ['a.a', 'a__dot__a'],
    ['a-a', 'a__dash__a'],
    ['a__a', 'a__underscores__a'],
    ['a.-/__a', 'a__dot____dash____slash____underscores__a'],
    ['a._a', 'a__dot___a'],
    ['a__.__a', 'a__underscores____dot____underscores__a'],
    ['a___a', 'a__underscores___a'],
    ['a____a', 'a__underscores____underscores__a'],
    ['a__dot__a', 'a__underscores__dot__underscores__a'],
    ['true', '__true__'],
    ['in', '__in__'],
    ['namespace', '__namespace__'],
    ['while', '__while__'],
    ['@', undefined],
    ['1up', undefined],
    ['👑', undefined],
    ['has', 'has'],
    ['exists_one', 'exists_one'],
    ['size', 'size'],
  ];
  for (const [name, escaped] of cases)
    it(`${name} -> ${escaped ?? '(not accessible)'}`, () => assert.equal(escapeProperty(name), escaped));
});

// controller-tools' CronJob test type: the CEL constructs it uses.
const cronJobSpec: RuleSchema = {
  type: 'object',
  'x-kubernetes-validations': [
    {
      rule: 'has(oldSelf.forbiddenInt) || !has(self.forbiddenInt)',
      message: 'forbiddenInt is not allowed',
      fieldPath: '.forbiddenInt',
      reason: 'FieldValueForbidden',
    },
  ],
  properties: {
    schedule: { type: 'string' },
    forbiddenInt: { type: 'integer' },
    stringWithEvenLength: {
      type: 'string',
      'x-kubernetes-validations': [
        { rule: 'self.size() % 2 == 0', message: 'must have even length' },
        { rule: 'true' },
      ],
    },
    stringWithEvenLengthAndMessageExpression: {
      type: 'string',
      'x-kubernetes-validations': [
        { rule: 'self.size() % 2 == 0', messageExpression: "self + ' has odd length, must be even'" },
      ],
    },
    stringWithEvenLengthAndGoodPrefix: {
      type: 'string',
      'x-kubernetes-validations': [
        { rule: "self.startsWith('good-')", message: 'must have good prefix' },
        { rule: 'self.size() % 2 == 0', message: 'must have even length' },
      ],
    },
    onlyAllowSettingOnUpdate: {
      type: 'integer',
      'x-kubernetes-validations': [
        {
          rule: 'oldSelf.hasValue() || self == 0',
          message: 'must be set to 0 on creation. can be set to any value on an update.',
          optionalOldSelf: true,
        },
      ],
    },
  },
};
const cronJob: RuleSchema = {
  type: 'object',
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object' },
    spec: cronJobSpec,
  },
};

describe("controller-tools' CronJob rules", () => {
  it('every rule compiles against its field', () => {
    const all: [RuleSchema, NonNullable<RuleSchema['x-kubernetes-validations']>[number]][] = [];
    const walk = (s: RuleSchema) => {
      for (const r of s['x-kubernetes-validations'] ?? []) all.push([s, r]);
      for (const p of Object.values(s.properties ?? {})) walk(p);
    };
    walk(cronJob);
    assert.equal(all.length, 7);
    for (const [s, r] of all) assert.deepEqual(compileRule(r, s).problems, [], r.rule);
    assert.equal(compileRule(all[0][1], all[0][0]).usesOldSelf, true);
  });

  it('evaluates as a current server: create (the value in the message, as 1.28+)', () => {
    const spec = {
      schedule: '*',
      forbiddenInt: 1,
      stringWithEvenLength: 'abc',
      stringWithEvenLengthAndMessageExpression: 'abc',
      stringWithEvenLengthAndGoodPrefix: 'bad-',
      onlyAllowSettingOnUpdate: 3,
    };
    assert.deepEqual(validateObject(cronJob, { spec }), [
      {
        type: 'FieldValueInvalid',
        field: 'spec.onlyAllowSettingOnUpdate',
        value: 3,
        detail: 'must be set to 0 on creation. can be set to any value on an update.',
      },
      { type: 'FieldValueInvalid', field: 'spec.stringWithEvenLength', value: 'abc', detail: 'must have even length' },
      {
        type: 'FieldValueInvalid',
        field: 'spec.stringWithEvenLengthAndGoodPrefix',
        value: 'bad-',
        detail: 'must have good prefix',
      },
      {
        type: 'FieldValueInvalid',
        field: 'spec.stringWithEvenLengthAndMessageExpression',
        value: 'abc',
        detail: 'abc has odd length, must be even',
      },
    ]);
    assert.deepEqual(
      validateObject(cronJob, {
        spec: { stringWithEvenLength: 'ab', stringWithEvenLengthAndGoodPrefix: 'good-x', onlyAllowSettingOnUpdate: 0 },
      }),
      [],
    );
  });

  it('evaluates as a current server: update (transition rules, optionalOldSelf; an object value omitted)', () => {
    const old = { spec: { onlyAllowSettingOnUpdate: 0 } };
    assert.deepEqual(validateObject(cronJob, { spec: { forbiddenInt: 2, onlyAllowSettingOnUpdate: 5 } }, old), [
      {
        type: 'FieldValueForbidden',
        field: 'spec.forbiddenInt',
        value: undefined,
        omitted: true,
        detail: 'forbiddenInt is not allowed',
      },
    ]);
    assert.deepEqual(validateObject(cronJob, { spec: { forbiddenInt: 2 } }, { spec: { forbiddenInt: 1 } }), []);
  });

  it('a rule failing to evaluate refuses with the error and the rule', () => {
    const s: RuleSchema = {
      type: 'object',
      properties: {
        a: {
          type: 'object',
          properties: { x: { type: 'integer' } },
          'x-kubernetes-validations': [{ rule: 'self.x > 0' }],
        },
      },
    };
    const [f] = validateObject(s, { a: {} });
    assert.equal(f.field, 'a');
    assert.match(f.detail, /evaluating rule: self.x > 0$/);
  });
});

describe('Kubernetes libraries: evaluation (cases of library/cost_test.go)', () => {
  const cases: [string, unknown][] = [
    ["'ABCDEFGHIJ abcdefghij'.lowerAscii()", 'abcdefghij abcdefghij'],
    ["'ABCDEFGHIJ abcdefghij'.upperAscii()", 'ABCDEFGHIJ ABCDEFGHIJ'],
    ["'abc 123 def 123'.replace('123', '456')", 'abc 456 def 456'],
    ["'abc 123 def 123'.replace('123', '456', 1)", 'abc 456 def 123'],
    ["'abc 123 def 123'.replace('123', '')", 'abc  def '],
    ["'abc 123 def 123'.split(' ')", ['abc', '123', 'def', '123']],
    ["'abc 123 def 123'.split(' ', 1)", ['abc 123 def 123']],
    ["'abc 123 def 123'.substring(5)", '23 def 123'],
    ["'abc 123 def 123'.substring(5, 8)", '23 '],
    ["'  abc 123 def 123  '.trim()", 'abc 123 def 123'],
    ["['aa', 'bb', 'cc', 'd'].join(' ')", 'aa bb cc d'],
    ["['aa', 'bb', 'cc', 'd'].join()", 'aabbccd'],
    ["'abc'.charAt(1)", 'b'],
    ["'abcabc'.indexOf('c')", 2n],
    ["'abcabc'.lastIndexOf('c')", 5n],
    ["'abc 123 def 123'.find('123')", '123'],
    ["'abc 123 def 123'.find('xyz')", ''],
    ["'abc 123 def 123'.findAll('123')", ['123', '123']],
    ["'abc 123 def 123'.findAll('123', 1)", ['123']],
    ['[1, 2, 3].isSorted()', true],
    ["['b', 'a'].isSorted()", false],
    ['[1, 2, 3].sum()', 6n],
    ['[1.5, 2.0].sum()', 3.5],
    ['[3, 1, 2].min()', 1n],
    ['[3, 1, 2].max()', 3n],
    ['[1, 2, 2, 3].indexOf(2)', 1n],
    ['[1, 2, 2, 3].lastIndexOf(2)', 2n],
    ['[1, 2].indexOf(5)', -1n],
    ["'abc'.matches('^a.c$')", true],
  ];
  const plainOf = (v: unknown): unknown =>
    v && typeof v === 'object' && Symbol.iterator in v ? [...(v as Iterable<unknown>)] : v;
  for (const [expr, want] of cases) {
    it(expr, () => {
      const r = evaluateExpression(expr);
      assert.equal(r.error, undefined);
      assert.deepEqual(plainOf(r.value), want);
      assert.deepEqual(
        compileRule({ rule: `${expr} == ${expr}` }, { type: 'string' }).problems,
        [],
        'and it type-checks',
      );
    });
  }
});

describe('Kubernetes libraries: type checks', () => {
  const ok = [
    'quantity("12Mi").isGreaterThan(quantity("1M"))',
    'isQuantity("20M")',
    'quantity("50k").add(quantity("20")) == quantity("50.02k")',
    'quantity("1").asInteger() > 0',
    'isURL("https://x.io") && url("https://x.io/a?b=c").getQuery()["b"][0] == "c"',
    'url(self).getScheme() == "https"',
    'ip("10.0.0.1").family() == 4',
    'isIP(self) && ip(self).isLoopback()',
    'cidr("10.0.0.0/8").containsIP("10.1.2.3")',
    'cidr("10.0.0.0/8").containsCIDR(cidr("10.1.0.0/16"))',
    'ip.isCanonical("::1")',
    'semver("1.2.3").major() == 1',
    'semver("1.0.0").isLessThan(semver("1.1.0"))',
    'isSemver(self, true)',
    '!format.dns1123Label().validate(self).hasValue()',
    "format.named('uuid').hasValue()",
    "self.format([1]) != ''",
    "strings.quote(self) != ''",
    'type(self) == string',
    'self.size() > 0 ? true : false',
    'timestamp("2020-01-01T00:00:00Z") + duration("1h") > timestamp("2020-01-01T00:00:00Z")',
  ];
  for (const rule of ok)
    it(`compiles: ${rule}`, () => assert.deepEqual(compileRule({ rule }, { type: 'string' }).problems, []));
  const bad: [string, RegExp][] = [
    ['quantity(1)', /'quantity' applied to '\(int\)'/],
    ['url(self).getPort() == 80', /'_==_' applied to '\(string, int\)'/],
    ['semver("1.0.0").isLessThan("1.1.0")', /'isLessThan' applied to 'kubernetes.Semver.\(string\)'/],
    ['ip(self).containsIP("x")', /'containsIP' applied to 'net.IP.\(string\)'/],
  ];
  for (const [rule, re] of bad)
    it(`refuses: ${rule}`, () =>
      assert.match(compileRule({ rule }, { type: 'string' }).problems[0]?.message ?? '', re));
});

describe('types from the schema', () => {
  const s: RuleSchema = {
    type: 'object',
    properties: {
      when: { type: 'string', format: 'date-time' },
      period: { type: 'string', format: 'duration' },
      data: { type: 'string', format: 'byte' },
      ios: { 'x-kubernetes-int-or-string': true },
      m: { type: 'object', additionalProperties: { type: 'integer' } },
      open: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      'dash-ed': { type: 'string' },
      ratio: { type: 'number' },
    },
  };
  const ok = [
    'self.when < timestamp("2030-01-01T00:00:00Z")',
    'self.period > duration("1s")',
    'size(self.data) > 0',
    "type(self.ios) == string ? self.ios.endsWith('%') : self.ios > 1",
    'self.m.all(k, self.m[k] > 0)',
    "self.m['x'] == 1",
    "self.dash__dash__ed == 'x'",
    'self.ratio > 1.5',
    'self.ratio > 1',
    'self.metadata.name != ""',
  ];
  for (const rule of ok) it(`compiles: ${rule}`, () => assert.deepEqual(compileRule({ rule }, s, true).problems, []));
  it('fields of preserve-unknown-fields objects are not declared', () =>
    assert.match(compileRule({ rule: 'self.open.x == 1' }, s).problems[0].message, /undefined field 'x'/));
  it('metadata beyond name and generateName is not declared', () =>
    assert.match(
      compileRule({ rule: "self.metadata.namespace == ''" }, s, true).problems[0].message,
      /undefined field 'namespace'/,
    ));
  it('duration and timestamp values are converted for evaluation', () => {
    const schema: RuleSchema = {
      ...s,
      'x-kubernetes-validations': [{ rule: 'self.when + self.period > timestamp("2020-01-01T01:00:00Z")' }],
    };
    assert.deepEqual(validateObject(schema, { when: '2020-01-01T00:00:00Z', period: '2h' }), []);
    assert.equal(validateObject(schema, { when: '2020-01-01T00:00:00Z', period: '30m' }).length, 1);
  });
});

describe('cost', () => {
  it('bounded rules are cheap, unbounded lists of strings are not', () => {
    const bounded = compileRule(
      { rule: "self.all(x, x.matches('^[a-z]+$'))" },
      { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 20 } },
    );
    const unbounded = compileRule(
      { rule: "self.all(x, x.matches('^[a-z]+$'))" },
      { type: 'array', items: { type: 'string' } },
    );
    assert.ok(bounded.cost < 1000, String(bounded.cost));
    assert.ok(unbounded.cost > 10_000_000, String(unbounded.cost));
  });

  it('the per-CRD total is an error when no single rule is over (the server refuses the CRD)', () => {
    const rules = Array.from({ length: 14 }, (_, i) => ({
      rule: `self.matches('^[a-z]+[0-9]*[a-z]*[0-9]*[a-z]*[0-9]*${i}$')`,
    }));
    const root: JSONSchemaProps = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            l: {
              type: 'array',
              maxItems: 100,
              items: { type: 'string', maxLength: 20000, 'x-kubernetes-validations': rules },
            },
          },
        },
      },
    };
    const v = checkRules(root);
    assert.equal(v.length, 1, v.map((x) => x.message).join('\n'));
    assert.equal(v[0].severity, 'error');
    assert.match(v[0].message, /estimated total cost of .* over the API server's per-CRD budget of 100000000/);
  });
});

describe('Kubernetes typed libraries: evaluation (cases of quantity_test.go, semver_test.go, ip_test.go, cidr_test.go, format_test.go, urls)', () => {
  const cases: [string, unknown][] = [
    ['isQuantity("20")', true],
    ['isQuantity("20M")', true],
    ['isQuantity("20Mi")', true],
    ['isQuantity("20Mo")', false],
    ['isQuantity("10Mm")', false],
    ['quantity("200M") == quantity("200M")', true],
    ['quantity("200M") == quantity("0.2G") && quantity("0.2G") == quantity("200M")', true],
    [
      'quantity("2M") == quantity("0.002G") && quantity("2000k") == quantity("2M") && quantity("0.002G") == quantity("2000k")',
      true,
    ],
    ['quantity("200M") == quantity("0.3G")', false],
    ['quantity("50M").isLessThan(quantity("50Mi"))', true],
    ['quantity("50M").isLessThan(quantity("100M"))', true],
    ['quantity("100M").isLessThan(quantity("50M"))', false],
    ['quantity("50Mi").isGreaterThan(quantity("50M"))', true],
    ['quantity("150Mi").isGreaterThan(quantity("100Mi"))', true],
    ['quantity("50M").isGreaterThan(quantity("100M"))', false],
    ['quantity("200M").compareTo(quantity("0.2G"))', 0n],
    ['quantity("50M").compareTo(quantity("50Mi"))', -1n],
    ['quantity("50Mi").compareTo(quantity("50M"))', 1n],
    ['quantity("50k").add(quantity("20")) == quantity("50.02k")', true],
    ['quantity("50k").add(20).isLessThan(quantity("50020"))', false],
    ['quantity("50k").sub(quantity("20")) == quantity("49.98k")', true],
    ['quantity("50k").sub(20) == quantity("49980")', true],
    ['quantity("50k").add(20).sub(quantity("100k")).asInteger()', -49980n],
    ['quantity("50k").add(20).sub(quantity("100k")).sub(-50000).asInteger()', 20n],
    ['quantity("50k").asInteger()', 50000n],
    ['quantity("9999999999999999999999999999999999999G").isInteger()', false],
    ['quantity("50").isInteger()', true],
    ['quantity("50.5").isInteger()', false],
    ['quantity("50.5").asApproximateFloat()', 50.5],
    ['quantity("1e3").asInteger()', 1000n],
    ['isSemver("1.2.3-beta.1+build.1")', true],
    ['isSemver("")', false],
    ['isSemver("v1.0.0")', false],
    ['isSemver(" 1.0.0")', false],
    ['isSemver("1. 0.0")', false],
    ['isSemver("1.0.0 ")', false],
    ['isSemver("01.01.01")', false],
    ['isSemver("1")', false],
    ['isSemver("1.1")', false],
    ['isSemver("", true)', false],
    ['isSemver(" 1.0.0", true)', false],
    ['isSemver("v1.0.0", true)', true],
    ['isSemver("01.01.01", true)', true],
    ['isSemver("1", true)', true],
    ['isSemver("1.1", true)', true],
    ['semver("v01.01", true) == semver("1.1.0")', true],
    ['semver("1.2.3") == semver("1.2.3")', true],
    ['semver("1.2.3") == semver("1.0.0")', false],
    ['semver("1.0.0").isLessThan(semver("1.2.3"))', true],
    ['semver("1.0.0").isLessThan(semver("1.0.0"))', false],
    ['semver("1.2.3").isGreaterThan(semver("1.0.0"))', true],
    ['semver("1.2.3").compareTo(semver("1.2.3"))', 0n],
    ['semver("1.0.0").compareTo(semver("1.2.3"))', -1n],
    ['semver("1.2.3").compareTo(semver("1.0.0"))', 1n],
    ['semver("1.2.3").major()', 1n],
    ['semver("1.2.3").minor()', 2n],
    ['semver("1.2.3").patch()', 3n],
    ['semver("1.0.0-alpha").isLessThan(semver("1.0.0"))', true],
    ['isIP("192.168.0.1")', true],
    ['isIP("192.168.0.1.0")', false],
    ['ip.isCanonical("127.0.0.1")', true],
    ['ip("192.168.0.1").family()', 4n],
    ['ip("0.0.0.0").isUnspecified()', true],
    ['ip("127.0.0.1").isUnspecified()', false],
    ['ip("127.0.0.1").isLoopback()', true],
    ['ip("1.2.3.4").isLoopback()', false],
    ['ip("224.0.0.1").isLinkLocalMulticast()', true],
    ['ip("224.0.1.1").isLinkLocalMulticast()', false],
    ['ip("169.254.169.254").isLinkLocalUnicast()', true],
    ['ip("192.168.0.1").isLinkLocalUnicast()', false],
    ['ip("192.168.0.1").isGlobalUnicast()', true],
    ['ip("255.255.255.255").isGlobalUnicast()', false],
    ['isIP("2001:db8::68")', true],
    ['isIP("2001:db8:::68")', false],
    ['ip.isCanonical("2001:db8::68")', true],
    ['ip.isCanonical("2001:DB8::68")', false],
    ['ip("2001:db8::68").family()', 6n],
    ['ip("::").isUnspecified()', true],
    ['ip("::1").isUnspecified()', false],
    ['ip("::1").isLoopback()', true],
    ['cidr("192.168.0.0/24").containsIP(ip("192.168.0.1"))', true],
    ['cidr("192.168.0.0/24").containsIP(ip("192.168.1.1"))', false],
    ['cidr("192.168.0.0/24").containsIP("192.168.0.1")', true],
    ['cidr("192.168.0.0/24").containsIP("192.168.1.1")', false],
    ['cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.0/25"))', true],
    ['cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.1/32"))', true],
    ['cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.0/23"))', false],
    ['cidr("192.168.0.0/24").containsCIDR(cidr("192.169.0.1/32"))', false],
    ['cidr("192.168.0.0/24").containsCIDR("192.168.0.0/25")', true],
    ['cidr("192.168.0.0/24").containsCIDR("192.168.0.0/23")', false],
    ['cidr("192.168.0.0/24").ip() == ip("192.168.0.0")', true],
    ['cidr("192.168.0.1/24").masked() == cidr("192.168.0.0/24")', true],
    ['cidr("192.168.0.0/24").prefixLength()', 24n],
    ['cidr("2001:db8::/32").containsIP(ip("2001:db8::1"))', true],
    ['cidr("2001:db8::/32").containsIP(ip("2001:dc8::1"))', false],
    ['cidr("2001:db8::/32").containsCIDR(cidr("2001:db8::/33"))', true],
    ['cidr("2001:db8::/32").containsCIDR("2001:db8::/31")', false],
    ['cidr("2001:db8:1::/32").masked() == cidr("2001:db8::/32")', true],
    ['string(cidr("192.168.0.0/24"))', '192.168.0.0/24'],
    ['string(ip("2001:DB8::68"))', '2001:db8::68'],
    ['format.dns1123Label().validate("my-label-name").hasValue()', false],
    ['format.dns1123Subdomain().validate("apiextensions.k8s.io").hasValue()', false],
    ['format.qualifiedName().validate("apiextensions.k8s.io/v1beta1").hasValue()', false],
    ['format.dns1123LabelPrefix().validate("my-label-prefix-").hasValue()', false],
    ['format.dns1123SubdomainPrefix().validate("mysubdomain.prefix.-").hasValue()', false],
    ['format.dns1035LabelPrefix().validate("my-label-prefix-").hasValue()', false],
    ['format.uri().validate("http://example.com").hasValue()', false],
    ['format.uuid().validate("123e4567-e89b-12d3-a456-426614174000").hasValue()', false],
    ['format.byte().validate("aGVsbG8=").hasValue()', false],
    ['format.date().validate("2021-01-01").hasValue()', false],
    ['format.datetime().validate("2021-01-01T00:00:00Z").hasValue()', false],
    // apimachinery's message, with its examples and expression (validation_test.go "format")
    [
      'format.dns1123Label().validate("contains a space").value()[0]',
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    ],
    ['format.byte().validate("aGVsbG8").value()', ['invalid base64']],
    ['format.date().validate("2020-01-32").value()', ['invalid date']],
    ['format.datetime().validate("2020-01-32T00:00:00Z").value()', ['invalid datetime']],
    ['format.named("unknown").hasValue()', false],
    ['format.named("dns1123Label").value().validate("x").hasValue()', false],
    ['format.labelValue().validate("my-cool-label-Value").hasValue()', false],
    ['isURL("https://example.com:80/path?query=val#fragment")', true],
    ['isURL("/absolute-path")', true],
    ['isURL("relative")', false],
    ['url("https://example.com:80/path").getScheme()', 'https'],
    ['url("https://example.com:80/path").getHost()', 'example.com:80'],
    ['url("https://[::1]:80/path").getHostname()', '::1'],
    ['url("https://example.com:8080/path").getPort()', '8080'],
    ['url("https://example.com/a%20b").getEscapedPath()', '/a%20b'],
    ['url("https://example.com/path?k1=a&k2=b&k2=c").getQuery()["k2"]', ['b', 'c']],
    ['url("/path").getScheme()', ''],
  ];
  const plainOf = (v: unknown): unknown =>
    v && typeof v === 'object' && Symbol.iterator in v ? [...(v as Iterable<unknown>)] : v;
  for (const [expr, want] of cases) {
    it(expr, () => {
      const r = evaluateExpression(expr);
      assert.equal(r.error, undefined);
      assert.deepEqual(plainOf(r.value), want);
      assert.deepEqual(
        compileRule({ rule: `(${expr}) == (${expr})` }, { type: 'string' }).problems,
        [],
        'and it type-checks',
      );
    });
  }
  it('quantity().sign() is in the library source but not offered to CRD rules by a current server: refused, as the server refuses it', () => {
    assert.match(
      compileRule({ rule: 'quantity("-1").sign() == -1' }, { type: 'string' }).problems[0]?.message ?? '',
      /undeclared reference to 'sign'/,
    );
  });
  for (const [expr, err] of [
    ['quantity("10Mo")', /quantities must match/],
    ['quantity("9999999999999999999999999999999999999G").asInteger()', /cannot convert/],
    // blang/semver's and Go's net/netip's words, as semver_test.go and ip_test.go expect them
    ['semver("v1.0")', /No Major.Minor.Patch elements found/],
    ['ip("192.168.0.1.0")', /ParseAddr\("192.168.0.1.0"\): IPv4 address too long/],
    ['ip("2001:db8:::68")', /each colon-separated field must have at least one digit \(at ":68"\)/],
    ['cidr("192.168.0.0/")', /netip.ParsePrefix\("192.168.0.0\/"\): bad bits after slash: ""/],
    ['url("relative")', /invalid URI/],
  ] as const) {
    it(`${expr} fails`, () => assert.match(evaluateExpression(expr).error ?? '', err));
  }
});

describe("cost: the API server's own estimates (apiextensions compilation_test.go, TestCostEstimation)", () => {
  const arrayOf = (type: string, max?: number): RuleSchema => ({
    type: 'array',
    maxItems: max,
    items: type === 'array' ? { type: 'array', items: { type: 'number' } } : { type },
  });
  const mapOf = (type: string, max?: number): RuleSchema => ({
    type: 'object',
    maxProperties: max,
    additionalProperties: { type },
  });
  const str = (max?: number): RuleSchema => ({ type: 'string', maxLength: max });
  const cases: [string, (max?: number) => RuleSchema, string, number, number, number][] = [
    ['number array with all', (m) => arrayOf('number', m), 'self.all(x, true)', 4718591, 10, 32],
    ['string array with all', (m) => arrayOf('string', m), 'self.all(x, true)', 3145727, 20, 62],
    ['boolean array with all', (m) => arrayOf('boolean', m), 'self.all(x, true)', 1887437, 5, 17],
    ['array of number arrays with all', (m) => arrayOf('array', m), 'self.all(x, true)', 3145727, 100, 302],
    ['map of numbers with all', (m) => mapOf('number', m), 'self.all(x, true)', 1348169, 10, 32],
    ['map of strings with all', (m) => mapOf('string', m), 'self.all(x, true)', 1179647, 3, 11],
    ['map of booleans with all', (m) => mapOf('boolean', m), 'self.all(x, true)', 943718, 100, 302],
    ['string with contains', str, "self.contains('test')", 314574, 10, 5],
    ['string with startsWith', str, "self.startsWith('test')", 2, 15, 2],
    ['string with endsWith', str, "self.endsWith('test')", 2, 30, 2],
    ['concat string', str, 'size(self + "hello") > size("hello")', 314578, 4, 7],
    ['index of array with numbers', (m) => arrayOf('number', m), 'self[1] == 0.0', 2, 5000, 2],
    ['regex matches simple', str, 'self.matches("x")', 314574, 50, 22],
    ['regex matches empty string', str, '"".matches("(((((((((())))))))))[0-9]")', 7, 10, 7],
    ['regex matches empty regex', str, 'self.matches("")', 1, 100, 1],
    ['set string maxLength to zero', str, 'self == "x"', 2, 0, 1],
  ];
  for (const [name, gen, rule, unbounded, max, bounded] of cases) {
    it(`${name}: ${unbounded} unbounded, ${bounded} with a bound of ${max}`, () => {
      assert.equal(compileRule({ rule }, gen()).cost, unbounded);
      assert.equal(compileRule({ rule }, gen(max)).cost, bounded);
    });
  }
});

describe('optional syntax', () => {
  const obj: RuleSchema = {
    type: 'object',
    properties: {
      x: { type: 'integer' },
      o: { type: 'object', properties: { a: { type: 'string', maxLength: 10 } } },
      l: { type: 'array', maxItems: 5, items: { type: 'string', maxLength: 5 } },
      m: { type: 'object', maxProperties: 5, additionalProperties: { type: 'integer' } },
    },
  };
  const problems = (rule: string, optionalOldSelf = false) =>
    compileRule({ rule, optionalOldSelf }, obj).problems.map((p) => p.message);
  it('is checked like cel-go: selections, indexes and literals give and take optionals', () => {
    for (const ok of [
      'self.?x.orValue(1) > 0',
      'self.?o.?a.orValue("") == ""',
      'self.?o.a.hasValue()',
      'self.l[?0].orValue("") != "x"',
      'self.m[?"k"].orValue(0) >= 0',
      '[?self.?x, 1].size() > 0',
      '{"a": 1, ?"b": self.?x}.size() > 0',
      'self.?o.optMap(v, v.a).orValue("") == ""',
      'self.?o.optFlatMap(v, v.?a).hasValue()',
      'oldSelf.?x.orValue(0) <= self.x',
      'self.?x.or(optional.of(2)).value() > 0',
      'self.x > 0 ? true : false',
      'self.?x.orValue(1) > 0 ? [?self.?x][0] > 0 : true',
    ])
      assert.deepEqual(problems(ok, ok.startsWith('oldSelf')), [], ok);
  });
  it('refuses what cel-go refuses, where cel-go does', () => {
    assert.deepEqual(problems('self.?nope.hasValue()'), ["<input>:1:5: undefined field 'nope'"]);
    assert.match(
      problems('self.?x.orValue("a") == "a"').join(),
      /^<input>:1:\d+: found no matching overload for 'orValue' applied to 'optional_type\(int\)\.\(string\)'$/,
    );
    assert.deepEqual(problems('[?self.x].size() > 0'), [
      "<input>:1:7: expected type 'optional_type(int)' but found 'int'",
    ]);
    assert.deepEqual(problems('self.?x > 0'), [
      "<input>:1:9: found no matching overload for '_>_' applied to '(optional_type(int), int)'",
    ]);
    assert.match(problems('size(self, ?1) > 0')[0] ?? '', /Syntax error/);
  });
  it('string escapes: only those cel-go lexes', () => {
    assert.deepEqual(problems('self.?o.a.orValue("") == "\\\\p{L}"'), []);
    assert.deepEqual(problems('"\\x41\\u0042\\U00000043\\101\\n" != ""'), []);
    assert.deepEqual(problems('r"\\p" != ""'), []);
    assert.deepEqual(problems('self.?o.a.orValue("").matches("\\p{L}")'), [
      "<input>:1:31: Syntax error: token recognition error at: '\"\\p'",
    ]);
  });
  it('is evaluated in tests, as a 1.29+ API server evaluates it', () => {
    const warnings: string[] = [];
    const s: RuleSchema = {
      type: 'object',
      'x-kubernetes-validations': [{ rule: 'self.?x.orValue(1) > 0' }],
      properties: { x: { type: 'integer' } },
    };
    assert.deepEqual(validateObject(s, { x: 0 }, undefined, warnings), [
      {
        type: 'FieldValueInvalid',
        field: '<nil>',
        value: undefined,
        omitted: true,
        detail: 'failed rule: self.?x.orValue(1) > 0',
      },
    ]);
    assert.deepEqual(validateObject(s, {}, undefined, warnings), []);
    assert.deepEqual(warnings, []);
  });
  it('optional.of and optional.none work', () => {
    assert.equal(
      evaluateExpression(
        'optional.of(1).hasValue() && !optional.none().hasValue() && optional.none().orValue(2) == 2 && !optional.ofNonZeroValue("").hasValue()',
      ).value,
      true,
    );
    assert.deepEqual(compileRule({ rule: 'optional.of(self).hasValue()' }, { type: 'string' }).problems, []);
  });
});

describe('rules as the Kubernetes documentation writes them compile (no false positives)', () => {
  const realistic: RuleSchema = {
    type: 'object',
    properties: {
      minReplicas: { type: 'integer' },
      replicas: { type: 'integer' },
      maxReplicas: { type: 'integer' },
      prefix: { type: 'string' },
      set1: { type: 'array', items: { type: 'string' } },
      set2: { type: 'array', items: { type: 'string' } },
      map1: { type: 'object', additionalProperties: { type: 'string' } },
      map2: { type: 'object', additionalProperties: { type: 'string' } },
      envars: {
        type: 'array',
        items: { type: 'object', properties: { name: { type: 'string' }, value: { type: 'string' } } },
      },
      created: { type: 'string', format: 'date-time' },
      expired: { type: 'string', format: 'date-time' },
      ttl: { type: 'string', format: 'duration' },
      health: { type: 'string' },
      ios: { 'x-kubernetes-int-or-string': true },
      image: { type: 'string' },
      x: { type: 'string' },
      ports: {
        type: 'array',
        items: { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer' } } },
      },
      timeout: { type: 'string' },
      data: { type: 'string', format: 'byte' },
      labels: { type: 'object', additionalProperties: { type: 'string' } },
      ratio: { type: 'number' },
      nested: {
        type: 'object',
        properties: { deep: { type: 'array', items: { type: 'array', items: { type: 'integer' } } } },
      },
    },
  };
  const realisticRules = [
    'self.minReplicas <= self.replicas && self.replicas <= self.maxReplicas',
    'self.metadata.name.startsWith(self.prefix)',
    'self.set1.all(e, !(e in self.set2))',
    'self.map1.all(key, self.map2.exists(k2, k2 == key))',
    'self.set1 == self.set2',
    "self.envars.filter(e, e.name == 'MY_ENV').all(e, e.value.matches('^[a-zA-Z]*$'))",
    'has(self.expired) && self.created + self.ttl < self.expired',
    "self.health.startsWith('ok')",
    "type(self.ios) == string ? self.ios == '100%' : self.ios == 1000",
    "self.metadata.name == 'singleton'",
    'size(self.set1) == size(self.map1) && self.set1.all(n, n in self.map1)',
    'self.replicas >= oldSelf.replicas',
    '!has(self.x) || self.x.size() > 0',
    "self.image.split(':').size() == 2",
    'self.x.lowerAscii() == self.x',
    "quantity(self.ios).isLessThan(quantity('1Gi'))",
    "self.map1.all(k, k.startsWith('a'))",
    "self.x.matches('^[0-9]+$') && int(self.x) < 100",
    'self.ports.map(p, p.port).isSorted()',
    'self.ports.exists_one(p, p.name == "http")',
    "duration(self.timeout) < duration('1h')",
    'self.expired > self.created',
    'self.data.size() > 0',
    'self.x in self.set1',
    "self.labels['app'] == 'x'",
    "'app' in self.labels",
    'self.replicas * 2 > 10',
    'self.ratio * 2.0 > 1.0',
    'self.ratio > 1',
    'self.nested.deep.all(row, row.all(v, v >= 0))',
    'self.ports.map(p, p.name).join(",") != ""',
    'self.ports.all(p, p.port > 0 && p.port < 65536)',
    "self.set1.exists(s, s == 'a') ? self.replicas > 1 : true",
    'self.ports.filter(p, has(p.name)).size() == self.ports.size()',
    "self.map1.map(k, self.map1[k]).all(v, v != '')",
    'self.set1.map(s, s.size()).max() < 10',
    "self.x.indexOf('a') >= 0",
    'self.envars.map(e, e.name).isSorted()',
    "string(self.replicas) + 'x' != ''",
    'dyn(self.replicas) == 1',
    "self.ios.matches('x')",
    'double(self.replicas) / 2.0 > 0.5',
    'self.created.getFullYear() >= 2020',
    '[1, 2, 3].all(i, i > 0)',
    "{'a': 1}.exists(k, k == 'a')",
    'self.x.size() > 0 || !has(self.x)',
    'self.ports.all(p, self.ports.exists_one(q, q.name == p.name))',
  ];
  for (const rule of realisticRules)
    it(rule, () => assert.deepEqual(compileRule({ rule }, realistic, true).problems, []));
});

describe('CEL libraries by the Kubernetes version the project targets (library.ts CEL_VERSIONS)', () => {
  const obj: RuleSchema = {
    type: 'object',
    properties: {
      ls: { type: 'array', maxItems: 5, items: { type: 'string', maxLength: 5 } },
      s: { type: 'string', maxLength: 10 },
      x: { type: 'integer' },
    },
  };
  const problems = (rule: string, k8sMinor: number) =>
    compileRule({ rule }, obj, false, { k8sMinor }).problems.map((p) => p.message);
  // [rule, first minor whose API server takes it in a new rule]
  const cases: [string, number][] = [
    ['self.?x.orValue(0) >= 0', 29],
    ['quantity("1Gi").isInteger()', 29],
    ['sets.contains(self.ls, ["a"])', 30],
    ['isIP("1.2.3.4")', 31],
    ['format.dns1123Label().validate(self.s).hasValue()', 32],
    ['self.ls.all(i, v, v != "")', 33],
    ['isSemver("1.0.0")', 34],
    ['self.ls.sortBy(e, e).size() >= 0', 35],
    ['self.ls.first().hasValue()', 35],
    ['lists.range(3).size() == 3', 35],
    ['self.ls.includes("a")', 38],
  ];
  for (const [rule, since] of cases) {
    it(`${rule}: refused before 1.${since}, with the version that has it; taken from 1.${since}`, () => {
      const before = problems(rule, since - 1);
      assert.ok(before.length >= 1, 'refused');
      assert.match(before[0], new RegExp(`from Kubernetes 1\\.${since}\\b.*the project targets 1\\.${since - 1}$`));
      assert.deepEqual(problems(rule, since), []);
    });
  }
  it('the default target is the newest minor the test control plane runs (1.37)', () => {
    assert.deepEqual(compileRule({ rule: 'self.ls.sortBy(e, e).size() >= 0' }, obj).problems, []);
    assert.match(
      compileRule({ rule: 'self.ls.includes("a")' }, obj).problems[0]?.message ?? '',
      /undeclared reference to 'includes' .*1\.38/,
    );
  });
});
