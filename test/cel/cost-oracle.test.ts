// The API server's own code judges kubeforge's CEL cost estimates. The Go oracle
// (test/oracle/celcost, built from k8s.io/apiextensions-apiserver) compiles every rule as the
// server does when a CRD is created and reports its estimated cost (MaxCost), the cardinality the
// compilation estimates for its node, the cardinality the CRD validation derives from the bounds
// above it, the messageExpression's cost, and the CRD validation's errors (the verdicts and the
// cost-limit messages). kubeforge's figures (src/manifests/crdcheck ruleCosts) must be equal,
// rule by rule, and its CRD check must refuse for cost exactly the CRDs the server refuses for
// cost, naming the same rules, with the same factor over the per-CRD budget.
//
// The corpus: the server-verdicts rules (test/cel/rule-corpus.ts) on their schema, and the CRDs
// below: required fields and defaults, nested lists and maps (bounded, unbounded, mixed), enums,
// formats, int-or-string, an embedded resource, rules at the root, string functions, regex,
// comprehensions inside comprehensions, two-variable comprehensions, ext lists, sets, quantity,
// ip/cidr, semver, url, format, optionals, messageExpression, and costs on both sides of the
// per-rule and per-CRD budgets.
//
// Differences are listed in KNOWN with the reason, and asserted: a difference that goes away, or
// a new one, fails the test.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { costFactorText, STATIC_ESTIMATED_COST_LIMIT, STATIC_ESTIMATED_CRD_COST_LIMIT } from '@kubeforge/cel';
import { ruleCosts, type RuleCost } from '../../src/manifests/crdcheck/cel.js';
import { checkCRD, loadRuleCheck } from '../../src/manifests/crdcheck/index.js';
import type { JSONSchemaProps } from '../../src/schema/jsonschema.js';
import { celCostOracle, runCelCostOracle } from '../oracle/tools.js';
import { CASES, crdFor, type Obj } from './rule-corpus.js';
import { must } from '../helpers/must.js';

const root = process.env.KUBEFORGE_REPO_ROOT ?? process.cwd();

/** What the oracle says of one CRD. */
interface OracleRule {
  version: string;
  path: string;
  index: number;
  rule: string;
  error?: string;
  cost: string;
  cardinality: string;
  contextCardinality: string | null;
  messageExpressionError?: string;
  messageExpressionCost: string;
  messageExpressionCompiled: boolean;
}
interface OracleCRD {
  name: string;
  errors: string[];
  rules: OracleRule[];
}

// ---- schema helpers ----
const str = (maxLength?: number, extra: Obj = {}): Obj => ({
  type: 'string',
  ...(maxLength === undefined ? {} : { maxLength }),
  ...extra,
});
const int = (): Obj => ({ type: 'integer' });
const list = (items: Obj, maxItems?: number, extra: Obj = {}): Obj => ({
  type: 'array',
  items,
  ...(maxItems === undefined ? {} : { maxItems }),
  ...extra,
});
const map = (values: Obj, maxProperties?: number, extra: Obj = {}): Obj => ({
  type: 'object',
  additionalProperties: values,
  ...(maxProperties === undefined ? {} : { maxProperties }),
  ...extra,
});
const obj = (properties: Record<string, Obj>, extra: Obj = {}): Obj => ({ type: 'object', properties, ...extra });
const rules = (...rs: (string | Obj)[]): Obj => ({
  'x-kubernetes-validations': rs.map((r, i) =>
    typeof r === 'string' ? { rule: r, message: `m${i}` } : { message: `m${i}`, ...r },
  ),
});
const intOrString = (extra: Obj = {}): Obj => ({
  'x-kubernetes-int-or-string': true,
  anyOf: [{ type: 'integer' }, { type: 'string' }],
  ...extra,
});

/** A CRD named `<name>s.costs.kubeforge.io` with `schema` as its openAPIV3Schema. */
function crd(name: string, schema: Obj): Obj {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${name}s.costs.kubeforge.io` },
    spec: {
      group: 'costs.kubeforge.io',
      names: {
        kind: name[0].toUpperCase() + name.slice(1),
        listKind: `${name[0].toUpperCase() + name.slice(1)}List`,
        plural: `${name}s`,
        singular: name,
      },
      scope: 'Namespaced',
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }],
    },
  };
}
const resource = (spec: Obj, extra: Obj = {}): Obj => ({
  type: 'object',
  properties: { apiVersion: str(), kind: str(), metadata: { type: 'object' }, spec },
  ...extra,
});

/** A worker: an object of a list, with required fields (one with a default) that size its smallest form. */
const WORKER = obj(
  {
    name: str(63),
    image: str(),
    port: int(),
    enabled: { type: 'boolean' },
    replicas: { type: 'integer', default: 1 },
    labels: map(str(63)),
    env: list(obj({ name: str(32), value: str(256) }, { required: ['name'] }), 20),
  },
  {
    required: ['name', 'image', 'port', 'enabled', 'replicas'],
    ...rules(
      'self.name.startsWith("w")',
      'self.image.contains(self.name)',
      'self.port > 0 && self.port < 65536',
      'self.env.all(e, e.name != self.name)',
    ),
  },
);

const MAIN = resource(
  obj(
    {
      workers: list(WORKER),
      groups: list(
        list(obj({ id: str(8) }, { required: ['id'], ...rules('self.id != ""', 'self.id.matches("^[a-z]+$")') }), 4),
        5,
      ),
      grid: list(list(int(), undefined, rules('self.all(x, x >= 0)', 'self.size() < 100'))),
      tags: map(list(str(16), undefined, rules('self.size() <= 3', 'self.all(t, t.size() > 1)'))),
      limits: map(
        obj(
          { cpu: intOrString(), memory: intOrString({ maxLength: 16 }) },
          rules('!has(self.memory) || isQuantity(string(self.memory))', 'has(self.cpu)'),
        ),
        8,
      ),
      zones: list(map(str(10), 4, rules('self.all(k, self[k] != k)')), 3),
      none: list(obj({ a: str() }, rules('self.a.size() > 0')), 0),
      host: str(),
      hostB: str(253),
      ver: str(32),
      cidrs: list(str(43), 16),
      quant: intOrString(),
      uri: str(2048),
      mode: { type: 'string', enum: ['fast', 'slow', 'balanced'] },
      raw: { type: 'string', format: 'byte' },
      rawB: { type: 'string', format: 'byte', maxLength: 100 },
      day: { type: 'string', format: 'date' },
      ttl: { type: 'string', format: 'duration' },
      created: { type: 'string', format: 'date-time' },
      opt: str(20),
      template: {
        type: 'object',
        'x-kubernetes-embedded-resource': true,
        'x-kubernetes-preserve-unknown-fields': true,
        properties: { spec: obj({ replicas: int() }) },
        ...rules(
          'self.metadata.name != ""',
          'self.kind.size() > 0',
          'self.apiVersion == "v1"',
          'self.spec.replicas > 0',
        ),
      },
    },
    rules(
      // comprehensions inside comprehensions, over objects with required fields
      'self.workers.all(w, self.workers.exists(v, v.name == w.name))',
      'self.workers.all(w, w.labels.all(k, v, k.size() + v.size() < 100))',
      'self.workers.all(w, w.labels.all(k, k.matches("^[a-z]+$")))',
      'self.groups.all(g, g.all(x, x.id.matches("^[a-z]+$")))',
      'self.grid.all(row, row.all(c, c < 100))',
      'self.tags.all(k, self.tags[k].all(t, t != k))',
      'self.zones.all(z, z.all(k, v, k != v))',
      // macros and their result sizes
      'self.workers.map(w, w.name).join(",").size() < 1000',
      'self.workers.filter(w, w.enabled).size() <= 3',
      'self.workers.exists_one(w, w.port == 80)',
      'self.workers.map(w, w.labels).all(m, m.size() < 5)',
      'self.workers.map(w, w.port).all(p, p > 0)',
      'self.workers.map(w, w.enabled, w.name).all(n, n.size() > 0)',
      '[self.hostB, self.ver].all(x, x.size() > 0)',
      '{"a": self.hostB}.all(k, k.size() > 0)',
      // ext lists and sets
      'self.workers.sortBy(w, w.name).size() >= 0',
      'self.workers.sortBy(w, w.port)[0].port >= 0',
      'self.workers.map(w, w.port).sort().size() >= 0',
      'self.cidrs.sort().size() >= 0',
      'self.workers.transformMap(i, w, w.name).size() >= 0',
      'self.workers.transformList(i, w, w.enabled, w.name).size() >= 0',
      'self.tags.transformMapEntry(k, v, {k: v.size()}).size() >= 0',
      'self.tags.transformMap(k, v, v.size() > 0, v.size()).size() >= 0',
      'self.workers.existsOne(i, w, w.port == 80)',
      'sets.intersects(self.workers.map(w, w.name), ["a", "b"])',
      'sets.contains(self.cidrs, self.cidrs)',
      'sets.equivalent(self.cidrs, ["a"])',
      'self.workers.map(w, w.image).distinct().size() > 0',
      'self.cidrs.distinct().size() > 0',
      'self.cidrs.reverse().size() > 0',
      'lists.range(10).all(i, i < 10)',
      'lists.range(self.cidrs.size()).size() >= 0',
      'self.grid.flatten().size() >= 0',
      '[[1, 2], [3]].flatten(1).size() == 3',
      'self.workers.slice(1, 2).size() == 1',
      'self.cidrs.slice(0, self.cidrs.size()).size() >= 0',
      'self.cidrs.first().orValue("") != "x"',
      // Kubernetes lists library
      'self.cidrs.isSorted()',
      'self.workers.map(w, w.port).isSorted()',
      'self.workers.map(w, w.port).sum() > 0',
      'self.cidrs.min() != "" && self.cidrs.max() != ""',
      'self.cidrs.indexOf("a") >= 0 || self.cidrs.lastIndexOf("b") >= 0',
      'self.hostB.indexOf("x") >= 0 || self.hostB.lastIndexOf("y") >= 0',
      // strings
      'self.host.split(".").all(p, p.size() <= 63)',
      'self.hostB.split(".", 3).size() <= 3',
      'self.hostB.split(".", -1).size() <= 3',
      'self.hostB.replace("-", "").size() > 0',
      'self.hostB.replace("", "-").size() > 0',
      'self.hostB.replace("ab", "xyz").size() > 0',
      'self.hostB.replace(self.ver, self.opt, 2).size() > 0',
      'self.hostB.substring(0, 3) == "abc"',
      'self.hostB.trim().size() > 0',
      'self.hostB.charAt(0) == "a"',
      'self.hostB.upperAscii().startsWith("A")',
      'self.hostB.lowerAscii().endsWith(self.ver)',
      'self.hostB + "." + self.ver != ""',
      'self.hostB.contains(self.ver)',
      'self.host.contains("x")',
      'self.hostB.matches(self.ver)',
      'matches(self.hostB, "^[a-z]+$")',
      'self.host.matches("^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")',
      'self.hostB.find("[a-z]+") != ""',
      'self.hostB.findAll("[a-z]", 3).size() < 3',
      'self.host.findAll("[a-z]").size() < 3',
      'self.hostB < self.ver || self.hostB >= "m"',
      'self.mode in ["fast", "slow"]',
      'self.mode == "fast"',
      'self.mode.size() < 10',
      'bytes(self.hostB).size() > 0',
      'string(self.raw).size() > 0',
      'string(self.rawB) == "x"',
      'self.raw.size() < 10 && self.rawB < b"zz"',
      'self.rawB + self.rawB != b""',
      'strings.quote(self.hostB) != ""',
      '"%s-%d".format([self.hostB, self.workers.size()]) != ""',
      '"%s-%s".format([self.hostB, string(self.workers.size())]) != ""',
      'self.ver.format([self.hostB]) != ""',
      // ip, cidr, quantity, semver, url, format
      'self.cidrs.all(c, isCIDR(c) && cidr(c).containsIP("10.0.0.1"))',
      'self.cidrs.exists(c, cidr(c).containsCIDR(cidr("10.0.0.0/8")))',
      'cidr(self.cidrs[0]).containsCIDR("10.0.0.0/16")',
      'cidr(self.cidrs[0]).containsIP(ip("10.0.0.1"))',
      'cidr(self.cidrs[0]).ip() == ip("10.0.0.1")',
      'cidr(self.cidrs[0]) == cidr("10.0.0.0/8")',
      'ip(self.hostB).isLoopback() || ip.isCanonical(self.hostB)',
      'isIP(self.host)',
      'isQuantity(self.ver) && quantity("1Gi").isGreaterThan(quantity(self.ver))',
      'quantity(self.ver) == quantity("1")',
      'semver(self.ver, true).isGreaterThan(semver("1.0.0"))',
      'semver(self.ver) == semver("1.2.3")',
      'isSemver(self.host)',
      'url(self.uri).getHost() == self.hostB',
      'url(self.uri) == url("https://a")',
      'url(self.host) == url(self.uri)',
      'url(self.uri) != url("https://a")',
      'isURL(self.uri)',
      '!format.dns1123Subdomain().validate(self.hostB).hasValue()',
      '!format.labelValue().validate(self.host).hasValue()',
      'format.named("uuid").hasValue() && !format.named("uuid").value().validate(self.ver).hasValue()',
      'format.dns1123Label() == format.dns1123Label()',
      // times
      'self.day < self.created',
      'self.ttl > duration("1h")',
      'self.created + self.ttl > self.created',
      'self.created == self.created',
      // indexes, maps, optionals, dyn
      'self.workers.size() == 0 || self.workers[0].name.size() > 0',
      'self.groups[0][0].id == "a"',
      'self.limits.all(k, k.startsWith("x"))',
      '"cpu" in self.limits',
      'self.limits.exists(k, v, v.cpu == 1)',
      'self.limits["cpu"].memory == "1"',
      'self.?hostB.orValue("") == self.ver',
      'self.workers[?0].?name.orValue("") != ""',
      'self.?limits.optMap(l, l.size()).orValue(0) < 5',
      'self.?opt.optFlatMap(o, o.size() > 0 ? optional.of(o) : optional.none()).hasValue()',
      'dyn(self.hostB).size() > 0',
      'self.quant == 1 || self.quant == "1"',
      'size(self.quant) > 0',
      'self.quant in [1, "1"]',
      '(self.mode == "fast" ? self.hostB : self.ver).size() > 0',
      '(self.mode == "fast" ? self.workers : []).size() > 0',
      'has(self.opt) ? self.opt.size() > 0 : true',
      'self.workers == self.workers',
      'self.cidrs + self.cidrs != []',
      'self.workers.map(w, w.name) == ["a"]',
      'type(self.quant) == string',
      'int(self.ver) > 0 && double(self.hostB) > 0.0 && uint(self.opt) > 0u',
      'self.template.metadata.name != self.hostB',
      // messageExpressions
      { rule: 'self.hostB != ""', messageExpression: 'self.hostB + " is bad"' },
      { rule: 'self.workers.size() < 100', messageExpression: '"workers: " + self.workers.map(w, w.name).join(", ")' },
      { rule: 'self.workers.size() < 100', messageExpression: '"n: " + string(self.workers.size())' },
      { rule: 'self.ver != ""', messageExpression: 'self.ver.upperAscii()' },
      { rule: 'self.opt != ""', messageExpression: 'self.opt' },
    ),
  ),
  rules(
    'self.metadata.name.size() < 64',
    'self.metadata.name.matches("^[a-z]+$")',
    'self.kind == "Main"',
    'self.apiVersion.startsWith("costs")',
    'self.spec.workers.all(w, w.name != self.metadata.name)',
    'self.metadata.generateName.size() < 10',
  ),
);

/** A root that declares kind, apiVersion and metadata.name / generateName itself (the server keeps its bounds). */
const DECLARED = {
  type: 'object',
  properties: {
    apiVersion: str(20),
    kind: str(10),
    metadata: obj({ name: str(30), generateName: str(300) }),
    spec: obj({ a: str(5) }, rules('self.a.size() > 0')),
  },
  ...rules(
    'self.metadata.name.size() < 20',
    'self.kind == self.apiVersion',
    'self.metadata.generateName.startsWith(self.spec.a)',
  ),
};

/** A root whose metadata declares a longer name than the server allows (capped at 253 characters). */
const CAPPED = resource(obj({ a: str(5) }), {
  properties: { apiVersion: str(), kind: str(), metadata: obj({ name: str(1000) }), spec: obj({ a: str(5) }) },
  ...rules('self.metadata.name.contains("x")'),
});

/** Rules whose cost is near the per-rule budget: a pairwise comparison over a list of `n` strings (the budget is crossed between 816 and 817). */
const pairwise = (n: number, len: number) =>
  resource(obj({ l: list(str(len), n) }, rules('self.l.all(x, self.l.all(y, x == y || x != y))')));
/** A rule on the items of a list of `n` objects (cardinality `n`): the per-rule budget is crossed between 20491 and 20492. */
const perItem = (n: number) =>
  resource(obj({ l: list(obj({ s: str(200) }, rules('self.s.matches("^[a-z]+([-.][a-z0-9]+)*$")')), n) }));
/** `k` rules of the same cost on one node: with 92500 strings, 10 are within the per-CRD budget and 11 over it. */
const many = (k: number, n: number) =>
  resource(
    obj(
      { l: list(str(64), n) },
      rules(
        ...Array.from(
          { length: k },
          (_, i) => `self.l.all(x, x.matches("^[a-z]+[0-9]*${String.fromCharCode(97 + i)}$"))`,
        ),
      ),
    ),
  );
/** A map of lists of objects: the rule's cardinality is the product of both bounds, or unbounded. */
const nested = (mp: number | undefined, mi: number | undefined) =>
  resource(obj({ m: map(list(obj({ v: str(10) }, { required: ['v'], ...rules('self.v.size() > 1') }), mi), mp) }));

const EXTRA: Obj[] = [
  crd('main', MAIN),
  crd('declared', DECLARED),
  crd('capped', CAPPED),
  ...[100, 300, 800, 816, 817, 1000, 3000].map((n) => crd(`pairwise${n}`, pairwise(n, 10))),
  ...[200, 20491, 20492, 50000].map((n) => crd(`peritem${n}`, perItem(n))),
  ...[
    [10, 3000],
    [10, 92500],
    [11, 92500],
    [20, 50000],
  ].map(([k, n]) => crd(`many${k}x${n}`, many(k, n))),
  ...[
    [4, 5],
    [undefined, 5],
    [4, undefined],
    [0, 7],
  ].map(([mp, mi], i) => crd(`nested${i}`, nested(mp, mi))),
];

/**
 * Where kubeforge's figures are not the server's today, with the reason. Asserted: a difference
 * that goes away, or a new one, fails the test.
 */
const KNOWN: Record<string, string> = {};

/** The server's field path of a node's rule: `spec.validation.openAPIV3Schema.properties[spec].items.x-kubernetes-validations[0].rule`. */
function fieldPath(steps: string[], index: number, part: 'rule' | 'messageExpression'): string {
  const node = steps
    .map((s) => (s.startsWith('properties.') ? `.properties[${s.slice('properties.'.length)}]` : `.${s}`))
    .join('');
  return `spec.validation.openAPIV3Schema${node}.x-kubernetes-validations[${index}].${part}`;
}

describe('the API server judges kubeforge CEL cost estimates (Go oracle from apiextensions-apiserver)', () => {
  const crds: Obj[] = [...CASES.map((c, i) => crdFor(c, i)), ...EXTRA];
  let oracle: OracleCRD[] = [];
  const ours = new Map<string, { rules: RuleCost[]; total: bigint }>();

  before(async () => {
    const bin = await celCostOracle(root);
    oracle = runCelCostOracle<OracleCRD>(bin, crds);
    await loadRuleCheck();
    for (const c of crds) {
      const schema = ((c.spec as Obj).versions as Obj[])[0].schema as { openAPIV3Schema: JSONSchemaProps };
      ours.set(String((c.metadata as Obj).name), ruleCosts(schema.openAPIV3Schema));
    }
  });

  it('the oracle answers for every CRD, and the corpus is large (rules of every kind, costs on both sides of the budgets)', () => {
    assert.equal(oracle.length, crds.length);
    const all = oracle.flatMap((o) => o.rules);
    const compiled = all.filter((r) => !r.error);
    assert.ok(all.length >= 500, `${all.length} rules`);
    assert.ok(compiled.length >= 420, `${compiled.length} rules compile on the server`);
    const over = oracle.filter((o) => o.errors.some((e) => /estimated rule cost exceeds budget/.test(e)));
    const overTotal = oracle.filter((o) =>
      o.errors.some((e) => /estimated rule cost total for entire OpenAPIv3 schema exceeds budget/.test(e)),
    );
    assert.ok(over.length >= 10 && over.length <= crds.length - 300, `${over.length} CRDs over the per-rule budget`);
    assert.ok(overTotal.length >= 5, `${overTotal.length} CRDs over the per-CRD budget`);
    // costs near the budgets: within a factor of two on either side
    const near = compiled.filter((r) => {
      const cost = Number(BigInt(r.cost) * BigInt(r.contextCardinality ?? r.cardinality));
      return cost > STATIC_ESTIMATED_COST_LIMIT / 2 && cost < STATIC_ESTIMATED_COST_LIMIT * 2;
    });
    assert.ok(near.length >= 4, `${near.length} rules near the per-rule budget`);
  });

  it("every rule: kubeforge's cost, messageExpression cost and cardinalities are the server's (listed exceptions aside)", () => {
    const differences: Record<string, string> = {};
    let compared = 0;
    for (const o of oracle) {
      const mine = must(ours.get(o.name), `kubeforge's estimate of ${o.name}`);
      for (const r of o.rules) {
        const key = `${o.name}${r.path}[${r.index}] ${r.rule}`;
        const k = mine.rules.find((x) => x.steps.map((s) => `.${s}`).join('') === r.path && x.index === r.index);
        if (!k) {
          differences[key] = 'kubeforge has no such rule';
          continue;
        }
        compared++;
        const server = {
          compiled: !r.error,
          cost: r.cost,
          messageCompiled: r.messageExpressionCompiled,
          messageCost: r.messageExpressionCost,
          cardinality: r.contextCardinality,
          unboundedCardinality: r.cardinality,
        };
        const kubeforge = {
          compiled: k.compiled,
          cost: String(k.maxCost),
          messageCompiled: k.messageCompiled,
          messageCost: String(k.messageExpressionMaxCost),
          cardinality: k.cardinality === undefined ? null : String(k.cardinality),
          unboundedCardinality: String(k.unboundedCardinality),
        };
        // a rule neither side compiles has no cardinality on the server (the compilation is not run)
        if (!server.compiled && !kubeforge.compiled) continue;
        if (JSON.stringify(server) !== JSON.stringify(kubeforge))
          differences[key] =
            `server ${JSON.stringify(server)}, kubeforge ${JSON.stringify(kubeforge)}${r.error ? ` (${r.error.slice(0, 200)})` : ''}`;
      }
    }
    assert.ok(compared >= 500, `${compared} rules compared`);
    const unexpected = Object.fromEntries(Object.entries(differences).filter(([k]) => !(k in KNOWN)));
    const resolved = Object.keys(KNOWN).filter((k) => !(k in differences));
    assert.deepEqual({ unexpected, resolved }, { unexpected: {}, resolved: [] });
  });

  it('every CRD: refused for cost by kubeforge exactly when by the server, for the same rules and messageExpressions', () => {
    const differences: Record<string, string> = {};
    for (const [i, c] of crds.entries()) {
      const o = oracle[i];
      const serverOver = new Set(
        o.errors
          .filter((e) => /: Forbidden: estimated (rule|messageExpression) cost exceeds budget/.test(e))
          .map((e) => e.slice(0, e.indexOf(': Forbidden'))),
      );
      const mine = must(ours.get(o.name), `kubeforge's estimate of ${o.name}`);
      const ourOver = new Set<string>();
      for (const r of mine.rules) {
        if (r.index < 0) continue;
        if (r.cost > BigInt(STATIC_ESTIMATED_COST_LIMIT)) ourOver.add(fieldPath(r.steps, r.index, 'rule'));
        if (r.messageExpressionMaxCost > BigInt(STATIC_ESTIMATED_COST_LIMIT))
          ourOver.add(fieldPath(r.steps, r.index, 'messageExpression'));
      }
      const serverRefused = o.errors.some((e) => /estimated (rule|messageExpression) cost/.test(e));
      const checked = checkCRD(c).filter((d) => d.code === 'KF4614');
      const ourRefused = checked.some((d) => d.severity === 'error');
      const same =
        serverRefused === ourRefused &&
        [...serverOver].sort().join() === [...ourOver].sort().join() &&
        checked.every((d) => d.severity === 'error');
      if (!same)
        differences[o.name] =
          `server ${JSON.stringify([...serverOver])}${serverRefused ? ' refused' : ''}; kubeforge ${JSON.stringify([...ourOver])}${ourRefused ? ' refused' : ''} ${checked
            .map((d) => d.message)
            .join(' | ')
            .slice(0, 300)}`;
    }
    assert.deepEqual(differences, {});
  });

  it("every CRD: the sum of its rules' costs is over the per-CRD budget for kubeforge exactly when for the server, by the factor the server names", () => {
    const differences: Record<string, string> = {};
    let over = 0;
    for (const o of oracle) {
      const total = must(ours.get(o.name), `kubeforge's estimate of ${o.name}`).total;
      const said = o.errors
        .map(
          (e) =>
            /x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of (.+?) \(try/.exec(
              e,
            )?.[1],
        )
        .find((x) => x);
      const mine =
        total > BigInt(STATIC_ESTIMATED_CRD_COST_LIMIT)
          ? costFactorText(total, STATIC_ESTIMATED_CRD_COST_LIMIT)
          : undefined;
      if (said) over++;
      if (said !== mine)
        differences[o.name] =
          `server ${said ?? 'within the budget'}, kubeforge ${mine ?? 'within the budget'} (${total})`;
    }
    assert.ok(over >= 5, `${over} CRDs over the per-CRD budget`);
    assert.deepEqual(differences, {});
  });
});
