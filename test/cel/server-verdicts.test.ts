// The API server judges kubeforge's CEL verdicts. Every rule of the corpus below is put on a
// schema in a CRD and the CRD is created on the real kube-apiserver with dryRun=All (the server
// compiles each rule and estimates its cost then); kubeforge's CRD check (checkCRD) gives its own
// verdict on the same CRD. "written" (no error; warnings allowed) must equal "created", and
// "refused" must equal "refused". Rules cover the Kubernetes CEL libraries (lists, sets, regex,
// url, ip/cidr, quantity, semver, format), the cel-go extensions (strings, two-variable
// comprehensions, ext lists), optional syntax, transition rules, messageExpression, reserved-word
// and escaped field names, type errors and costs near the budgets. The server decides what is
// right; the test never says so itself.
//
// Disagreements are listed in KNOWN below with the reason, and asserted: a case that starts to
// agree, or a new disagreement, fails the test. On a server older than 1.25 (no CEL) the file
// has nothing to judge and says so by failing: it runs in the suite on the current server only.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { checkCRD, loadRuleCheck } from '../../src/manifests/crdcheck/index.js';
import { RestClient } from '../../src/runtime/client/rest.js';
import { StatusError } from '../../src/runtime/client/errors.js';
import { apiServerMinor } from '../../src/testing/environment.js';
import { TestEnvironment } from '../../src/testing/index.js';

type Obj = Record<string, unknown>;

const str = (maxLength?: number): Obj => (maxLength === undefined ? { type: 'string' } : { type: 'string', maxLength });
/** The schema every rule sits on (as `spec`, so `self` is this object). */
const SPEC: Obj = {
  type: 'object',
  properties: {
    s: str(64),
    su: str(),
    n: { type: 'integer' },
    d: { type: 'number' },
    b: { type: 'boolean' },
    ls: { type: 'array', maxItems: 10, items: str(32) },
    lsu: { type: 'array', items: str() },
    li: { type: 'array', maxItems: 10, items: { type: 'integer' } },
    set: { type: 'array', maxItems: 10, 'x-kubernetes-list-type': 'set', items: str(16) },
    mlist: {
      type: 'array',
      maxItems: 10,
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      items: { type: 'object', required: ['name'], properties: { name: str(16), v: { type: 'integer' } } },
    },
    m: { type: 'object', maxProperties: 10, additionalProperties: str(16) },
    q: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
    dur: { type: 'string', format: 'duration' },
    ts: { type: 'string', format: 'date-time' },
    opt: { type: 'object', properties: { a: str(10), b: { type: 'integer' } } },
    namespace: str(10),
    'x-y': str(10),
    raw: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
  },
};

/** [rule, messageExpression?, optionalOldSelf?] */
type Case = { rule: string; messageExpression?: string; optionalOldSelf?: boolean };
const r = (rule: string, extra: Omit<Case, 'rule'> = {}): Case => ({ rule, ...extra });

const CASES: Case[] = [
  // basics and type errors
  r('self.s.size() < 10'),
  r('self.n > 0'),
  r('self.d > 1.5'),
  r('self.b'),
  r('self.n + self.s'),
  r('self.s'),
  r('self.nope > 0'),
  r('foo > 0'),
  r('self.n > 0 &&'),
  r('self.s.startsWith(1)'),
  r('self.n.size() > 0'),
  r('self.ls.name == "x"'),
  r('self.d % 2.0 == 0.0'),
  r('self.s > 1'),
  r('self.s == 1'),
  r('self.s * 2 == "x"'),
  r('self.s.matches(1)'),
  r('int(self.s) > 0'),
  r('double(self.n) > 1.0'),
  r('string(self.n) == "1"'),
  r('uint(self.n) > 0u'),
  r('self.n == 1u'),
  r('self.n == 1.0'),
  r('dyn(self.n) == 1.0'),
  r('type(self.n) == int'),
  r('self.b ? self.n > 0 : self.n < 0'),
  r('has(self.s)'),
  r('has(self.opt.a)'),
  r('has(self.nope)'),
  r('!has(self.opt) || self.opt.b > 0'),
  r('self.opt.a.size() > 0'),
  r('self.opt.c == 1'),
  r('self.raw.anything == 1'),
  r('has(self.raw.x)'),
  r('self.__namespace__ == "x"'),
  r('self.namespace == "x"'),
  r('self.x__dash__y == "x"'),
  r('self.apiVersion == "v1"'),
  r('self.metadata.name == "x"'),
  // strings (cel-go ext strings, the versions Kubernetes enables)
  r('self.s.charAt(0) == "a"'),
  r('self.s.indexOf("a") >= 0'),
  r('self.s.indexOf("a", 1) >= 0'),
  r('self.s.lastIndexOf("a") >= 0'),
  r('self.s.lowerAscii() == self.s'),
  r('self.s.upperAscii() == self.s'),
  r('self.s.replace("a", "b") != ""'),
  r('self.s.replace("a", "b", 1) != ""'),
  r('self.s.split(",").size() > 0'),
  r('self.s.split(",", 2).size() > 0'),
  r('self.s.substring(1) != ""'),
  r('self.s.substring(1, 2) != ""'),
  r('self.s.trim() == self.s'),
  r('self.ls.join(",") != ""'),
  r('self.ls.join() != ""'),
  r('self.s.reverse() == self.s'),
  r('strings.quote(self.s) != ""'),
  r('self.s.format([1]) != ""'),
  r('"%s".format([self.s]) != ""'),
  r('self.s.contains("a")'),
  r('self.s.endsWith("a")'),
  r('self.s.startsWith("a")'),
  r('self.s.matches("^a+$")'),
  r('self.s.matches("(")'),
  r('self.s.size() == size(self.s)'),
  // lists library
  r('self.li.isSorted()'),
  r('self.ls.isSorted()'),
  r('self.li.sum() > 0'),
  r('self.li.min() > 0'),
  r('self.li.max() > 0'),
  r('self.ls.indexOf("a") >= 0'),
  r('self.ls.lastIndexOf("a") >= 0'),
  r('self.li.sum() == 0.0'),
  r('[1, 2].isSorted()'),
  r('self.ls.all(x, x.size() > 0)'),
  r('self.ls.exists(x, x == "a")'),
  r('self.ls.exists_one(x, x == "a")'),
  r('self.ls.map(x, x + "a").size() > 0'),
  r('self.ls.filter(x, x != "").size() > 0'),
  r('self.ls.map(x, x != "", x).size() > 0'),
  r('self.mlist.all(e, e.v > 0)'),
  r('self.mlist.exists(e, e.name == "a")'),
  r('self.m.all(k, self.m[k] != "")'),
  r('self.m.exists(k, k == "a")'),
  r('"a" in self.ls'),
  r('"a" in self.m'),
  r('self.ls[0] == "a"'),
  r('self.m["a"] == "b"'),
  r('self.ls + ["a"] != []'),
  r('self.ls.size() <= 10'),
  // ext lists (the versions Kubernetes enables)
  r('self.ls.slice(0, 1).size() == 1'),
  r('lists.range(3).size() == 3'),
  r('self.ls.distinct().size() > 0'),
  r('self.ls.reverse().size() > 0'),
  r('self.ls.sort().size() > 0'),
  r('[[1], [2]].flatten().size() == 2'),
  r('self.mlist.sortBy(e, e.v).size() > 0'),
  r('self.ls.first().hasValue()'),
  r('self.ls.last().hasValue()'),
  // sets library
  r('sets.contains(self.ls, ["a"])'),
  r('sets.equivalent(self.ls, ["a"])'),
  r('sets.intersects(self.ls, ["a"])'),
  r('sets.contains(self.li, [1])'),
  r('sets.contains(self.li, ["a"])'),
  // two-variable comprehensions
  r('self.m.all(k, v, v != "")'),
  r('self.m.exists(k, v, k == v)'),
  r('self.ls.all(i, v, i >= 0 && v != "")'),
  r('self.ls.exists(i, v, i == 0)'),
  r('self.m.transformMap(k, v, v + "x").size() >= 0'),
  r('self.ls.transformList(i, v, v + "x").size() >= 0'),
  r('self.m.transformMapEntry(k, v, {v: k}).size() >= 0'),
  r('self.ls.existsOne(i, v, v == "a")'),
  // optional syntax and optionals
  r('self.?opt.?a.orValue("") == ""'),
  r('self.?opt.a.hasValue()'),
  r('self.m[?"a"].orValue("") == ""'),
  r('self.ls[?0].orValue("") == ""'),
  r('optional.of(1).value() == 1'),
  r('optional.none().hasValue() == false'),
  r('optional.ofNonZeroValue(self.s).hasValue()'),
  r('self.?opt.?a.or(optional.of("x")).value() != ""'),
  r('self.ls[?0].orValue("") != "x"'),
  r('self.m[?"k"].orValue("") != "x"'),
  r('[?self.?opt.?b, 1].size() > 0'),
  r('[?self.n].size() > 0'),
  r('{"a": 1, ?"b": self.?opt.?b}.size() > 0'),
  r('{"a": 1, ?"b": self.n}.size() > 0'),
  r('self.?opt.optMap(o, o.a).orValue("") == ""'),
  r('self.?opt.optFlatMap(o, o.?a).hasValue()'),
  r('self.?opt.optFlatMap(o, o.a).hasValue()'),
  r('self.?n > 0'),
  r('self.?opt.?b.orValue("x") == "x"'),
  r('self.?opt.?a.value() == "x"'),
  r('self.?ls.orValue([]).size() >= 0'),
  r('self.ls.first().orValue("") != "x"'),
  r('self.n > 0 ? true : self.?opt.hasValue()'),
  r('size(self.ls, ?1) > 0'),
  r('self.?namespace.orValue("") == ""'),
  r('self.?x__dash__y.hasValue()'),
  r('self.ls.includes("a")'),
  r('self.ls.first().hasValue() && lists.range(2).size() == 2'),
  r('"\\x41\\u0042\\101" != self.s'),
  r('self.s != "\\d"'),
  r('self.s != r"\\d"'),
  r("self.s != '''a\\qb'''"),
  r('self.s != b"\\z".string()'),
  r('self.?nope.hasValue()'),
  // regex library
  r('self.s.find("[0-9]+") != ""'),
  r('self.s.findAll("[0-9]+").size() > 0'),
  r('self.s.findAll("[0-9]+", 2).size() > 0'),
  r('self.s.find("(") != ""'),
  // url
  r('isURL(self.s)'),
  r('url(self.s).getScheme() == "https"'),
  r('url(self.s).getHost() != ""'),
  r('url(self.s).getHostname() != ""'),
  r('url(self.s).getPort() != ""'),
  r('url(self.s).getEscapedPath() != ""'),
  r('url(self.s).getQuery().size() >= 0'),
  r('url("https://x") != url("https://y")'),
  // ip and cidr (1.30+)
  r('isIP(self.s)'),
  r('ip(self.s).family() == 4'),
  r('ip(self.s).isLoopback()'),
  r('ip(self.s).isUnspecified()'),
  r('ip(self.s).isLinkLocalMulticast()'),
  r('ip(self.s).isLinkLocalUnicast()'),
  r('ip(self.s).isGlobalUnicast()'),
  r('ip.isCanonical(self.s)'),
  r('isCIDR(self.s)'),
  r('cidr(self.s).containsIP(ip("10.0.0.1"))'),
  r('cidr(self.s).containsIP("10.0.0.1")'),
  r('cidr(self.s).containsCIDR("10.0.0.0/24")'),
  r('cidr(self.s).ip().family() == 4'),
  r('cidr(self.s).masked() == cidr(self.s)'),
  r('cidr(self.s).prefixLength() > 8'),
  r('ip(self.s) == ip("10.0.0.1")'),
  r('string(ip(self.s)) != ""'),
  r('type(ip(self.s)) == net.IP'),
  r('type(cidr(self.s)) == net.CIDR'),
  // quantity (1.29+)
  r('isQuantity(self.s)'),
  r('quantity(self.s).isInteger()'),
  r('quantity(self.s).asInteger() > 0'),
  r('quantity(self.s).asApproximateFloat() > 0.0'),
  r('quantity(self.s).sign() >= 0'),
  r('quantity(self.s).add(quantity("1")).isGreaterThan(quantity("1"))'),
  r('quantity(self.s).add(1).isLessThan(quantity("10"))'),
  r('quantity(self.s).sub(quantity("1")).compareTo(quantity("0")) >= 0'),
  r('quantity(self.s).sub(1).asInteger() >= 0'),
  r('quantity(self.s) == quantity("1")'),
  // semver (1.33+)
  r('isSemver(self.s)'),
  r('isSemver(self.s, true)'),
  r('semver(self.s).major() >= 1'),
  r('semver(self.s).minor() >= 0'),
  r('semver(self.s).patch() >= 0'),
  r('semver(self.s).isGreaterThan(semver("1.0.0"))'),
  r('semver(self.s).isLessThan(semver("2.0.0"))'),
  r('semver(self.s).compareTo(semver("1.0.0")) >= 0'),
  r('semver(self.s, true).major() >= 0'),
  // format (1.31+)
  r('!format.dns1123Label().validate(self.s).hasValue()'),
  r('!format.dns1123Subdomain().validate(self.s).hasValue()'),
  r('!format.dns1035Label().validate(self.s).hasValue()'),
  r('!format.qualifiedName().validate(self.s).hasValue()'),
  r('!format.dns1123LabelPrefix().validate(self.s).hasValue()'),
  r('!format.dns1123SubdomainPrefix().validate(self.s).hasValue()'),
  r('!format.dns1035LabelPrefix().validate(self.s).hasValue()'),
  r('!format.labelValue().validate(self.s).hasValue()'),
  r('!format.uri().validate(self.s).hasValue()'),
  r('!format.uuid().validate(self.s).hasValue()'),
  r('!format.byte().validate(self.s).hasValue()'),
  r('!format.date().validate(self.s).hasValue()'),
  r('!format.datetime().validate(self.s).hasValue()'),
  r('!format.named("dns1123Label").hasValue() || true'),
  r('!format.nope().validate(self.s).hasValue()'),
  // time
  r('self.dur > duration("1s")'),
  r('self.ts > timestamp("2020-01-01T00:00:00Z")'),
  r('self.ts.getFullYear() > 2000'),
  r('self.ts.getHours("UTC") >= 0'),
  r('self.dur.getSeconds() > 0'),
  r('duration("1h").getMinutes() == 60'),
  r('self.ts - self.ts == duration("0s")'),
  r('self.ts + self.dur > self.ts'),
  r('self.ts < 1'),
  r('timestamp(self.s) > self.ts'),
  r('int(self.ts) > 0'),
  r('string(self.dur) != ""'),
  // math ext (1.30+: math.greatest etc.; abs/ceil later)
  r('math.greatest(self.n, 1) > 0'),
  r('math.least(self.n, 1) > 0'),
  r('math.greatest([1, 2]) == 2'),
  r('math.abs(self.n) >= 0'),
  r('math.ceil(self.d) >= 0.0'),
  r('math.sqrt(self.d) >= 0.0'),
  r('math.isNaN(self.d) == false'),
  r('math.bitOr(self.n, 1) > 0'),
  // encoders
  r('base64.encode(bytes(self.s)) != ""'),
  r('base64.decode("YQ==") == b"a"'),
  // protobuf type names
  r('type(self.ts) == google.protobuf.Timestamp'),
  r('type(self.dur) == google.protobuf.Duration'),
  r('google.protobuf.Timestamp{seconds: 1} < self.ts'),
  // transition rules and optionalOldSelf
  r('self.s == oldSelf.s'),
  r('self.n >= oldSelf.n'),
  r('oldSelf.hasValue()', { optionalOldSelf: true }),
  r('!oldSelf.hasValue() || self.n >= oldSelf.value().n', { optionalOldSelf: true }),
  r('oldSelf.?opt.?a.orValue("") == self.?opt.?a.orValue("")', { optionalOldSelf: true }),
  r('self.n >= oldSelf.value().n'),
  r('oldSelf.hasValue()'),
  r('self.s == oldSelf', {}),
  // messageExpression
  r('self.n > 0', { messageExpression: '"n is " + string(self.n)' }),
  r('self.n > 0', { messageExpression: 'self.n' }),
  r('self.n > 0', { messageExpression: '"n is " + self.n' }),
  r('self.n > 0', { messageExpression: 'self.s + self.ls.join(",")' }),
  r('self.n > 0', { messageExpression: '"x".format([self.n])' }),
  r('self.n > 0', { messageExpression: 'self.nope' }),
  // costs near the budgets (unbounded strings and lists)
  r('self.lsu.all(x, x.size() < 10)'),
  r('self.lsu.all(x, x.matches("^[a-z]+$"))'),
  r('self.lsu.join(" ") != ""'),
  r('self.lsu.isSorted()'),
  r('self.lsu.all(x, self.lsu.all(y, x != y))'),
  r('self.lsu.exists(x, x == self.su)'),
  r('self.su.matches("^[a-z]+$")'),
  r('self.su.split(",").all(x, x != "")'),
  r('self.su.findAll("[a-z]").size() > 0'),
  r('self.ls.all(x, self.ls.all(y, x != y))'),
  r('self.mlist.all(e, self.mlist.all(f, e.name != f.name || e == f))'),
  r('self.m.all(k, self.m.all(j, k == j || self.m[k] != self.m[j]))'),
  r('sets.equivalent(self.lsu, self.lsu)'),
  r('self.lsu.map(x, x + x).all(y, y.size() > 0)'),
  r('self.su.lowerAscii().upperAscii() != ""'),
  r('self.su.replace("a", "bb").size() > 0'),
  r('self.lsu.sort().size() >= 0'),
  r('self.lsu.distinct().size() >= 0'),
  r('self.su == self.su'),
  r('self.lsu == self.lsu'),
  // macros and literals
  r('[1, 2, 3].all(x, x > 0)'),
  r('{"a": 1}.all(k, k == "a")'),
  r('self.ls.size() == 0 || self.ls[0] != ""'),
  r('b"abc".size() == 3'),
  r('"abc".size() == 3u'),
  r('null == null'),
  r('self.opt == null'),
  r('[1, "a"].size() == 2'),
  r('{1: 2, "a": 3}.size() == 2'),
  r('1 / 0 == 1'),
  r('self.n / 0 == 1'),
  r('0x10 == 16'),
  r('1e3 == 1000.0'),
  r("'single' == \"single\""),
  r('r"raw\\d" != ""'),
  r('"""triple""" != ""'),
  r('self.s in ["a", "b"]'),
  r('self.n in [1, 2]'),
  r('self.n in ["a"]'),
  r('cel.bind(x, self.n, x > 0)'),
  r('cel.bind(x, self.n)'),
  r('self.ls.map(x, x).map(x, x).size() >= 0'),
  // more of each library, on other operand types
  r('self.li.all(x, x > 0)'),
  r('self.li.exists(x, x == 1)'),
  r('self.li.map(x, x * 2).sum() > 0'),
  r('self.li.filter(x, x > 0).size() >= 0'),
  r('self.li.indexOf(1) >= 0'),
  r('self.li.lastIndexOf(1) >= 0'),
  r('self.li.min() < self.li.max()'),
  r('self.li.isSorted() || self.li.size() > 1'),
  r('self.set.all(x, x != "")'),
  r('self.set.isSorted()'),
  r('self.mlist.map(e, e.name).isSorted()'),
  r('self.mlist.filter(e, e.v > 0).size() >= 0'),
  r('self.mlist.exists_one(e, e.v == 1)'),
  r('self.m.map(k, k).size() >= 0'),
  r('self.m.filter(k, self.m[k] == "x").size() >= 0'),
  r('self.m.size() <= 10'),
  r('size(self.m) <= 10'),
  r('self.s.lowerAscii().startsWith("a")'),
  r('self.s.split("/").size() <= 2'),
  r('self.s.substring(0, self.s.size()) == self.s'),
  r('self.s.indexOf("") == 0'),
  r('self.s.charAt(self.s.size()) == ""'),
  r('self.s.matches("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")'),
  r('self.s.matches("[[:alpha:]]")'),
  r('self.s.matches("\\p{L}")'),
  r('self.s.matches("(?i)abc")'),
  r('self.s.matches("a{2,3}")'),
  r('self.s.matches("(?P<name>a)")'),
  r('self.s.find("a") == self.s.find("a")'),
  r('isURL(self.s) && url(self.s).getScheme() in ["http", "https"]'),
  r('isIP(self.s) && ip(self.s).family() in [4, 6]'),
  r('isCIDR(self.s) && cidr(self.s).prefixLength() <= 32'),
  r('isQuantity(self.s) && quantity(self.s).isLessThan(quantity("10Gi"))'),
  r('isSemver(self.s) && semver(self.s).major() < 100'),
  r('self.n >= 0 && self.n <= 100'),
  r('self.n % 2 == 0'),
  r('self.d >= 0.0 && self.d <= 1.0'),
  r('self.n < 9223372036854775807'),
  r('self.n < 9223372036854775808'),
  r('-self.n < 0'),
  r('!self.b || self.n > 0'),
  r('self.b == true'),
  r('self.b == 1'),
  r('self.s != null'),
  r('self.ls != null'),
  r('self.opt.a == self.opt.a'),
  r('has(self.opt) && has(self.opt.a)'),
  r('has(self.m.a)'),
  r('has(self.ls)'),
  r('self.q == 1 || self.q == "1"'),
  r('type(self.q) == int || type(self.q) == string'),
  r('int(self.q) > 0'),
  r('self.dur < duration("1h")'),
  r('self.ts.getDayOfWeek() >= 0'),
  r('self.ts.getMonth() < 12'),
  r('timestamp("2020-01-01T00:00:00Z") + duration("1h") > timestamp("2020-01-01T00:00:00Z")'),
  r('duration("1m") == duration("60s")'),
  r('self.mlist.all(e, has(e.v) ? e.v > 0 : true)'),
  r('self.mlist.map(e, e.name).exists(n, n == "a")'),
  // nesting at cel-go's limit (250): a chain of `+`, and parentheses
  r(`${Array.from({ length: 249 }, () => 'self.n').join(' + ')} > 0`),
  r(`${Array.from({ length: 250 }, () => 'self.n').join(' + ')} > 0`),
  r(`${Array.from({ length: 1500 }, () => 'self.n').join(' + ')} > 0`),
  r(`${'('.repeat(249)}1${')'.repeat(249)} > 0`),
  r(`${'('.repeat(250)}1${')'.repeat(250)} > 0`),
];

/**
 * Where kubeforge's verdict is not the API server's today, with the reason. Asserted: a case
 * that starts to agree, or a new disagreement, fails the test. Each is work for the issue on
 * verdicts (CEL libraries, costs).
 */
const COST = "the cost estimate is not yet the server's (cel-go's estimator): under-estimated, so written with a warning at most";
const KNOWN: Record<string, string> = {
  'self.lsu.all(x, self.lsu.all(y, x != y))': COST,
  'self.lsu.all(x, x.matches("^[a-z]+$"))': COST,
  'self.lsu.distinct().size() >= 0': COST,
  'self.lsu.exists(x, x == self.su)': COST,
  'self.lsu.isSorted()': COST,
  'self.lsu.join(" ") != ""': COST,
  'self.lsu.map(x, x + x).all(y, y.size() > 0)': COST,
  'self.lsu.sort().size() >= 0': COST,
  'self.mlist.map(e, e.name).isSorted()': `${COST} (cel-go loses the element size through map())`,
  'self.su.split(",").all(x, x != "")': COST,
  'sets.equivalent(self.lsu, self.lsu)': COST,
  'self.n > 0 | messageExpression "n is " + string(self.n)': `${COST} (string(int) is sized as an unbounded string)`,
  'oldSelf.?opt.?a.orValue("") == self.?opt.?a.orValue("") | optionalOldSelf': COST,
};

function crdFor(c: Case, i: number): Obj {
  const rule: Obj = { rule: c.rule, message: `rule ${i}` };
  if (c.messageExpression) rule.messageExpression = c.messageExpression;
  if (c.optionalOldSelf) rule.optionalOldSelf = true;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `rules${i}.cel.verdicts.kubeforge.io` },
    spec: {
      group: 'cel.verdicts.kubeforge.io',
      names: { kind: `Rules${i}`, listKind: `Rules${i}List`, plural: `rules${i}`, singular: `rules${i}` },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: { type: 'object' }, spec: { ...SPEC, 'x-kubernetes-validations': [rule] } } } },
        },
      ],
    },
  };
}

describe('the API server judges kubeforge CEL verdicts', () => {
  const minor = apiServerMinor(join(process.env.KUBEBUILDER_ASSETS ?? '', 'kube-apiserver')) ?? 0;
  const env = new TestEnvironment({ useExistingCluster: false });
  let rest: RestClient;
  /** Case index -> [kubeforge, server, what each said]. */
  const verdicts = new Map<number, { ours: 'written' | 'refused'; server: 'created' | 'refused'; why: string }>();

  before(async () => {
    assert.ok(minor >= 25, `this corpus needs an API server that compiles CEL (1.25+), not 1.${minor}`);
    await env.start();
    rest = new RestClient(env.config);
    await loadRuleCheck();
    for (const [i, c] of CASES.entries()) {
      const crd = crdFor(c, i);
      const errors = checkCRD(crd).filter((d) => d.severity === 'error');
      let server: 'created' | 'refused' = 'created';
      let said = '';
      try {
        await rest.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { body: crd, query: { dryRun: 'All' } });
      } catch (e) {
        if (!(e instanceof StatusError) || e.code !== 422) throw e;
        server = 'refused';
        said = e.message;
      }
      verdicts.set(i, { ours: errors.length ? 'refused' : 'written', server, why: errors.length ? errors.map((d) => `${d.code} ${d.message}`).join('; ') : said });
    }
  });
  after(async () => {
    rest?.close();
    await env.stop();
  });

  it(`has a corpus of at least 300 rules (${CASES.length})`, () => {
    assert.ok(CASES.length >= 300, `${CASES.length} rules`);
  });

  it('every rule: written by kubeforge if and only if the API server creates the CRD (listed exceptions aside)', () => {
    const disagreements: Record<string, string> = {};
    for (const [i, v] of verdicts) {
      if ((v.ours === 'written') !== (v.server === 'created')) {
        const c = CASES[i];
        disagreements[`${c.rule}${c.messageExpression ? ` | messageExpression ${c.messageExpression}` : ''}${c.optionalOldSelf ? ' | optionalOldSelf' : ''}`] = `kubeforge ${v.ours}, server ${v.server}: ${v.why.slice(0, 300)}`;
      }
    }
    const unexpected = Object.fromEntries(Object.entries(disagreements).filter(([k]) => !(k in KNOWN)));
    const resolved = Object.keys(KNOWN).filter((k) => !(k in disagreements));
    assert.deepEqual({ unexpected, resolved }, { unexpected: {}, resolved: [] });
  });

  it('both sides refuse some rules and write others (the corpus tells them apart)', () => {
    const refused = [...verdicts.values()].filter((v) => v.server === 'refused').length;
    assert.ok(refused >= 30 && refused <= CASES.length - 100, `${refused} of ${CASES.length} refused by the server`);
  });
});
