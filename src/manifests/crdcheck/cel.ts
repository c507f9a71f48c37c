/**
 * The CEL part of the CRD check: every `x-kubernetes-validations` rule of a version's schema is
 * compiled (packages/cel) against the schema node it is attached to, as the API server compiles it
 * when the CRD is created, and its cost is estimated against the server's budgets. Returns
 * violations in the schema walk's shape (chain and steps), located by the caller.
 */
import {
  addSat,
  compileRule,
  costFactorText,
  lineCol,
  multiplyCapped,
  NEWEST_CEL_TARGET,
  STATIC_ESTIMATED_COST_LIMIT,
  STATIC_ESTIMATED_CRD_COST_LIMIT,
  type RuleSchema,
  type ValidationRule,
} from '#cel';
import type { JSONSchemaProps } from '../../schema/jsonschema.js';
import { CODES } from './codes.js';
import { hasRules } from './rules.js';
import { checkRE2 } from '#cel/re2';
import { schemaPath } from './schema.js';

export interface RuleViolation {
  code: string;
  severity: 'error' | 'warning';
  chain: JSONSchemaProps[];
  steps: string[];
  keyword: string;
  rule: ValidationRule;
  message: string;
  hint: string;
}

const CEL_CODES = { rule: CODES.celRule, messageExpression: CODES.celMessage, cost: CODES.celCost } as const;

const HINT_BOUNDS =
  'add @MaxItems to the lists, @MaxLength to the strings and @MaxProperties to the maps the rule walks (or that hold the field the rule is on)';

function hintFor(message: string): string {
  if (/undefined field/.test(message))
    return 'name a field the schema declares (its JSON name; names with - . / are written __dash__ __dot__ __slash__), or guard optional fields with has()';
  if (/undeclared reference/.test(message))
    return 'use self (the field the rule is on), oldSelf (its previous value, update only) or a function of CEL or the Kubernetes libraries';
  if (/no matching overload/.test(message))
    return 'the operand types do not fit: convert with int(), string(), double(), or compare values of one type';
  if (/Syntax error/.test(message))
    return 'fix the CEL syntax (strings in single or double quotes, && || !, has(self.x))';
  if (/invalid matches argument|error parsing regexp/.test(message))
    return 'write the pattern in RE2 syntax (Go regexp): no lookarounds, backreferences, possessive or atomic forms';
  if (/must evaluate to a bool/.test(message)) return 'a rule is a condition: compare the value, e.g. self.x > 0';
  if (/must evaluate to a string/.test(message))
    return "a messageExpression builds the message text, e.g. 'x is ' + string(self.x)";
  return 'see https://kubernetes.io/docs/reference/using-api/cel/';
}

/**
 * How many elements a node gives each of its children at most (apiextensions'
 * extractMaxElements): a list its maxItems, a map its maxProperties, an object 1; undefined
 * when a list or map has no bound.
 */
function maxElements(s: JSONSchemaProps): bigint | undefined {
  const bound = (n: number | undefined) => (n === undefined ? undefined : BigInt(Math.max(0, n)));
  if (s.type === 'object') return s.additionalProperties !== undefined ? bound(s.maxProperties) : 1n;
  if (s.type === 'array') return bound(s.maxItems);
  return 1n;
}

/** One rule's figures as the API server computes them when it validates the CRD. */
export interface RuleCost {
  /** The node's schema path (`properties.spec`, `items`, `additionalProperties`). */
  steps: string[];
  /** The rule's index in the node's x-kubernetes-validations (-1: a rule of an allOf entry, which the server does not compile). */
  index: number;
  rule: ValidationRule;
  /** Whether the rule, and its messageExpression, compiled (the server costs only what compiled). */
  compiled: boolean;
  messageCompiled: boolean;
  /** The estimated cost of one evaluation (MaxCost) and of the messageExpression. */
  maxCost: bigint;
  messageExpressionMaxCost: bigint;
  /** The product of the maxItems / maxProperties above the node; undefined when one is missing. */
  cardinality?: bigint;
  /** The compilation's estimate used instead when `cardinality` is undefined. */
  unboundedCardinality: bigint;
  /** maxCost times the cardinality (saturating): what the server compares with the per-rule budget. */
  cost: bigint;
}

/**
 * The cost figures of every rule of one version's schema, and their sum as the server adds them
 * up against the per-CRD budget (each rule's cost, plus each messageExpression's, unmultiplied).
 */
export function ruleCosts(
  root: JSONSchemaProps,
  options: { k8sMinor?: number } = {},
): { rules: RuleCost[]; total: bigint } {
  const { costs, total } = analyse(root, options);
  return { rules: costs.map((c) => c.figures), total };
}

/**
 * Rules of one version's schema, with the API server's cost verdicts: a rule whose estimated
 * cost times the number of times it may run (the product of the maxItems / maxProperties above
 * it; when one is missing, the compilation's estimate from the node's smallest JSON form) is over
 * the per-rule budget, a messageExpression over it, or all of them over the per-CRD budget, is an
 * error, as the server refuses such a CRD.
 */
export function checkRules(root: JSONSchemaProps, options: { k8sMinor?: number } = {}): RuleViolation[] {
  return analyse(root, options).out;
}

/** One rule's cost, with where it is. */
interface CostEntry {
  chain: JSONSchemaProps[];
  steps: string[];
  rule: ValidationRule;
  cost: bigint;
  figures: RuleCost;
}

/** What the walk over one version's schema gathers. */
interface RuleWalk {
  options: { k8sMinor?: number };
  out: RuleViolation[];
  costs: CostEntry[];
  total: bigint;
  /** A rule (or messageExpression) is over its own budget. */
  overRule: boolean;
}

/** A schema node on the walk: its path, and how many times its rules may run (undefined: no bound). */
interface RuleNode {
  s: JSONSchemaProps;
  chain: JSONSchemaProps[];
  steps: string[];
  cardinality: bigint | undefined;
  isRoot: boolean;
}

type CompiledRule = ReturnType<typeof compileRule>;

function analyse(root: JSONSchemaProps, options: { k8sMinor?: number }) {
  const w: RuleWalk = { options, out: [], costs: [], total: 0n, overRule: false };
  walkRules(w, { s: root, chain: [root], steps: [], cardinality: 1n, isRoot: true });
  // Over the total with no single rule over its own budget (else the bound to add is already named).
  if (w.total > BigInt(STATIC_ESTIMATED_CRD_COST_LIMIT) && !w.overRule) {
    const worst = [...w.costs].sort((a, b) => (b.cost > a.cost ? 1 : b.cost < a.cost ? -1 : 0))[0];
    w.out.push({
      code: CEL_CODES.cost,
      severity: 'error',
      chain: worst.chain,
      steps: worst.steps,
      keyword: 'x-kubernetes-validations',
      rule: worst.rule,
      message: `the rules of this schema have an estimated total cost of ${big(w.total)}, over the API server's per-CRD budget of ${STATIC_ESTIMATED_CRD_COST_LIMIT} (by a factor of ${costFactorText(w.total, STATIC_ESTIMATED_CRD_COST_LIMIT)}): the API server refuses the CRD; the most expensive is ${JSON.stringify(worst.rule.rule)} (${big(worst.cost)})`,
      hint: HINT_BOUNDS,
    });
  }
  return { out: w.out, costs: w.costs, total: w.total };
}

/** Compiles and costs the rules of a node, then of the nodes below it. */
function walkRules(w: RuleWalk, at: RuleNode): void {
  const { s, chain, steps, cardinality } = at;
  // Subtrees without rules (most of an embedded PodTemplateSpec) need no CEL types at all.
  if (!hasRules(s)) return;
  const own = (s['x-kubernetes-validations'] ?? []) as ValidationRule[];
  const rules = [...own, ...(s.allOf ?? []).flatMap((a) => a['x-kubernetes-validations'] ?? [])] as ValidationRule[];
  for (const [index, rule] of rules.entries()) {
    if (!rule.rule?.trim()) continue; // reported by the schema check (KF4611)
    const c = compileRule(rule, s as RuleSchema, at.isRoot, w.options);
    reportCompileProblems(w, at, rule, c);
    costRule(w, at, rule, c, index < own.length ? index : -1);
  }
  const props = Object.entries(s.properties ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  // The bound of this list or map multiplies the runs of the rules below it.
  const factor = maxElements(s);
  const below = cardinality === undefined || factor === undefined ? undefined : multiplyCapped(cardinality, factor);
  for (const [k, p] of props)
    walkRules(w, {
      s: p,
      chain: [...chain, p],
      steps: [...steps, `properties.${k}`],
      cardinality: below,
      isRoot: false,
    });
  if (s.items && hasRules(s.items))
    walkRules(w, {
      s: s.items,
      chain: [...chain, s.items],
      steps: [...steps, 'items'],
      cardinality: below,
      isRoot: s.items['x-kubernetes-embedded-resource'] === true,
    });
  if (typeof s.additionalProperties === 'object' && hasRules(s.additionalProperties))
    walkRules(w, {
      s: s.additionalProperties,
      chain: [...chain, s.additionalProperties],
      steps: [...steps, 'additionalProperties'],
      cardinality: below,
      isRoot: false,
    });
}

/** What does not compile in a rule or its messageExpression, with RE2's reasons for literal patterns. */
function reportCompileProblems(w: RuleWalk, { chain, steps }: RuleNode, rule: ValidationRule, c: CompiledRule): void {
  for (const p of c.problems) {
    const part =
      p.part === 'rule'
        ? `rule ${JSON.stringify(rule.rule)}`
        : `messageExpression ${JSON.stringify(rule.messageExpression)}`;
    // cel-go's words for a literal pattern RE2 refuses, and kubeforge's on what RE2 does not take
    const why = /invalid matches argument|error parsing regexp/.test(p.message)
      ? badPatterns(p.part === 'rule' ? c.checked : c.messageChecked, true).map((b) =>
          b.replace(/^<input>:\d+:\d+: /, ''),
        )
      : [];
    const message = `${part} does not compile: ${p.message}${why.length ? ` (${why.join('; ')})` : ''}`;
    w.out.push({
      code: p.part === 'rule' ? CEL_CODES.rule : CEL_CODES.messageExpression,
      severity: 'error',
      chain: [...chain],
      steps: [...steps],
      keyword: 'x-kubernetes-validations',
      rule,
      message,
      hint: hintFor(p.message),
    });
  }
  // literal patterns are compiled (RE2) when the rule is, as cel-go does
  for (const [part, checked] of [
    ['rule', c.checked],
    ['messageExpression', c.messageChecked],
  ] as const) {
    // compileRule already refused it (a literal pattern of matches, or one program planning
    // compiles: packages/cel/src/plan.ts, which reads (?<name>) as the Go 1.22 that builds Kubernetes
    // 1.30 and later does); for older servers RE2 as checkRE2 reads it still judges
    if (c.problems.some((p) => p.part === part) || (w.options.k8sMinor ?? NEWEST_CEL_TARGET) >= 30) continue;
    for (const bad of badPatterns(checked)) {
      const text = part === 'rule' ? rule.rule : rule.messageExpression;
      w.out.push({
        code: part === 'rule' ? CEL_CODES.rule : CEL_CODES.messageExpression,
        severity: 'error',
        chain: [...chain],
        steps: [...steps],
        keyword: 'x-kubernetes-validations',
        rule,
        message: `${part} ${JSON.stringify(text)} does not compile: ${bad}`,
        hint: 'write the pattern in RE2 syntax (Go regexp): no lookarounds, backreferences, possessive or atomic forms',
      });
      c.problems.push({ part, message: bad, offset: 0 });
    }
  }
}

/** A compiled rule's cost as the server estimates it, and the budget it is over, if any. */
function costRule(w: RuleWalk, at: RuleNode, rule: ValidationRule, c: CompiledRule, index: number): void {
  const { s, chain, steps, cardinality } = at;
  // The server costs a rule that compiled (and its messageExpression when that compiled too).
  const compiled = !c.problems.some((p) => p.part === 'rule');
  const messageCompiled = compiled && !!c.messageChecked && !c.problems.some((p) => p.part === 'messageExpression');
  const times = cardinality ?? c.unboundedCardinality;
  const cost = compiled ? multiplyCapped(c.maxCost, times) : 0n;
  const figures: RuleCost = {
    steps: [...steps],
    index,
    rule,
    compiled,
    messageCompiled,
    maxCost: compiled ? c.maxCost : 0n,
    messageExpressionMaxCost: messageCompiled ? c.messageExpressionMaxCost : 0n,
    cardinality,
    unboundedCardinality: c.unboundedCardinality,
    cost,
  };
  w.costs.push({
    chain: [...chain],
    steps: [...steps],
    rule,
    cost: cost + figures.messageExpressionMaxCost,
    figures,
  });
  if (!compiled) return;
  w.total = addSat(w.total, cost);
  if (cost > BigInt(STATIC_ESTIMATED_COST_LIMIT)) {
    w.overRule = true;
    const per =
      times > 1n
        ? ` (${c.maxCost} per evaluation, run up to ${times} times${cardinality === undefined ? ', as many as fit in a request: a list or map above has no bound' : ''})`
        : '';
    w.out.push({
      code: CEL_CODES.cost,
      severity: 'error',
      chain: [...chain],
      steps: [...steps],
      keyword: 'x-kubernetes-validations',
      rule,
      message: `rule ${JSON.stringify(rule.rule)}: estimated cost ${big(cost)}${per} exceeds the API server's per-rule budget of ${STATIC_ESTIMATED_COST_LIMIT} by a factor of ${costFactorText(cost, STATIC_ESTIMATED_COST_LIMIT)}: the API server refuses the CRD`,
      hint: `${HINT_BOUNDS}${unboundedAt(s, chain, steps)}`,
    });
  }
  if (!messageCompiled) return;
  // a messageExpression runs once per failure of its rule: its cost is not multiplied
  const messageCost = c.messageExpressionMaxCost;
  w.total = addSat(w.total, messageCost);
  if (messageCost > BigInt(STATIC_ESTIMATED_COST_LIMIT)) {
    w.overRule = true;
    w.out.push({
      code: CEL_CODES.cost,
      severity: 'error',
      chain: [...chain],
      steps: [...steps],
      keyword: 'x-kubernetes-validations',
      rule,
      message: `messageExpression ${JSON.stringify(rule.messageExpression)}: estimated cost ${big(messageCost)} exceeds the API server's per-expression budget of ${STATIC_ESTIMATED_COST_LIMIT} by a factor of ${costFactorText(messageCost, STATIC_ESTIMATED_COST_LIMIT)}: the API server refuses the CRD`,
      hint: 'bound what the message reads (string(x) of a number has no known length: prefer a fixed message, or a field with @MaxLength)',
    });
  }
}

/** A cost for a message: exact below a million, else in exponent form. */
function big(n: bigint): string {
  return n < 1_000_000n ? String(n) : Number(n).toExponential(2);
}

/** Names the unbounded lists, maps and strings at and below the rule's node, and the lists above it. */
function unboundedAt(s: JSONSchemaProps, chain: JSONSchemaProps[], steps: string[]): string {
  const found: string[] = [];
  const look = (n: JSONSchemaProps, path: string, depth: number) => {
    if (depth > 3 || found.length >= 4) return;
    if (n.type === 'array' && n.maxItems === undefined) found.push(`maxItems on ${path || 'the field itself'}`);
    if (n.type === 'string' && n.maxLength === undefined && !n.enum && !n.format)
      found.push(`maxLength on ${path || 'the field itself'}`);
    if (typeof n.additionalProperties === 'object' && n.maxProperties === undefined)
      found.push(`maxProperties on ${path || 'the field itself'}`);
    for (const [k, p] of Object.entries(n.properties ?? {})) look(p, `${path}.${k}`, depth + 1);
    if (n.items) look(n.items, `${path}[*]`, depth + 1);
  };
  look(s, '', 0);
  for (let i = chain.length - 2; i >= 0; i--) {
    if (steps[i] === 'items' && chain[i].maxItems === undefined)
      found.push(`maxItems on the list ${schemaPath(steps.slice(0, i))}`);
  }
  return found.length ? ` (unbounded here: ${found.join(', ')})` : '';
}

type CheckedExpr = NonNullable<ReturnType<typeof compileRule>['messageChecked']>;
type Node = NonNullable<CheckedExpr['ast']>;

/** `<input>:1:9: invalid regular expression ...` for each literal pattern of matches / find / findAll that RE2 refuses. */
function badPatterns(checked: CheckedExpr | undefined, evenIfRefused = false): string[] {
  const out: string[] = [];
  if (!checked?.ast || !(evenIfRefused || !checked.issues.length)) return out;
  const { source, positions } = checked;
  const visit = (e: Node | undefined): void => {
    if (!e) return;
    const k = e.exprKind;
    switch (k.case) {
      case 'selectExpr':
        visit(k.value.operand);
        return;
      case 'listExpr':
        for (const x of k.value.elements) visit(x);
        return;
      case 'structExpr':
        for (const x of k.value.entries) {
          if (x.keyKind.case === 'mapKey') visit(x.keyKind.value as Node | undefined);
          visit(x.value);
        }
        return;
      case 'comprehensionExpr':
        for (const x of [k.value.iterRange, k.value.accuInit, k.value.loopCondition, k.value.loopStep, k.value.result])
          visit(x);
        return;
      case 'callExpr': {
        visit(k.value.target);
        k.value.args.forEach(visit);
        const fn = k.value.function;
        if (fn !== 'matches' && fn !== 'find' && fn !== 'findAll') return;
        const pattern = k.value.target ? k.value.args[0] : k.value.args[1];
        if (!pattern) return;
        const c = pattern.exprKind;
        if (c.case !== 'constExpr' || c.value.constantKind.case !== 'stringValue') return;
        const problem = checkRE2(String(c.value.constantKind.value));
        if (!problem) return;
        const { line, column } = lineCol(source, positions.get(pattern.id) ?? 0);
        out.push(
          `<input>:${line}:${column}: invalid regular expression ${JSON.stringify(String(c.value.constantKind.value))}: ${problem.message} (RE2, as the API server compiles it)`,
        );
        return;
      }
      default:
    }
  };
  visit(checked.ast);
  return out;
}
