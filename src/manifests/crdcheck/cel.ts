/**
 * The CEL part of the CRD check: every `x-kubernetes-validations` rule of a version's schema is
 * compiled (src/cel) against the schema node it is attached to, as the API server compiles it
 * when the CRD is created, and its cost is estimated against the server's budgets. Returns
 * violations in the schema walk's shape (chain and steps), located by the caller.
 */
import { compileRule, lineCol, multiplyCapped, sizeOf, schemaType, STATIC_ESTIMATED_COST_LIMIT, STATIC_ESTIMATED_CRD_COST_LIMIT, type RuleSchema, type ValidationRule } from '../../cel/index.js';
import type { JSONSchemaProps } from '../../schema/jsonschema.js';
import { CODES } from './codes.js';
import { hasRules } from './rules.js';
import { checkRE2 } from './re2.js';
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

const HINT_BOUNDS = 'add @MaxItems to the lists, @MaxLength to the strings and @MaxProperties to the maps the rule walks (or that hold the field the rule is on)';

function hintFor(message: string): string {
  if (/undefined field/.test(message)) return 'name a field the schema declares (its JSON name; names with - . / are written __dash__ __dot__ __slash__), or guard optional fields with has()';
  if (/undeclared reference/.test(message)) return 'use self (the field the rule is on), oldSelf (its previous value, update only) or a function of CEL or the Kubernetes libraries';
  if (/no matching overload/.test(message)) return 'the operand types do not fit: convert with int(), string(), double(), or compare values of one type';
  if (/Syntax error/.test(message)) return 'fix the CEL syntax (strings in single or double quotes, && || !, has(self.x))';
  if (/must evaluate to a bool/.test(message)) return 'a rule is a condition: compare the value, e.g. self.x > 0';
  if (/must evaluate to a string/.test(message)) return "a messageExpression builds the message text, e.g. 'x is ' + string(self.x)";
  return 'see https://kubernetes.io/docs/reference/using-api/cel/';
}

/** Rules of one version's schema; `total` receives each rule's cost times its cardinality. */
export function checkRules(root: JSONSchemaProps, options: { k8sMinor?: number } = {}): RuleViolation[] {
  const out: RuleViolation[] = [];
  const costs: { chain: JSONSchemaProps[]; steps: string[]; rule: ValidationRule; cost: number }[] = [];
  const walk = (s: JSONSchemaProps, chain: JSONSchemaProps[], steps: string[], cardinality: number, isRoot: boolean) => {
    // Subtrees without rules (most of an embedded PodTemplateSpec) need no CEL types at all.
    if (!hasRules(s)) return;
    const rules = [...(s['x-kubernetes-validations'] ?? []), ...(s.allOf ?? []).flatMap((a) => a['x-kubernetes-validations'] ?? [])] as ValidationRule[];
    for (const rule of rules) {
      if (!rule.rule?.trim()) continue; // reported by the schema check (KF4611)
      const c = compileRule(rule, s as RuleSchema, isRoot, options);
      for (const p of c.problems) {
        const part = p.part === 'rule' ? `rule ${JSON.stringify(rule.rule)}` : `messageExpression ${JSON.stringify(rule.messageExpression)}`;
        out.push({ code: p.part === 'rule' ? CEL_CODES.rule : CEL_CODES.messageExpression, severity: 'error', chain: [...chain], steps: [...steps], keyword: 'x-kubernetes-validations', rule, message: `${part} does not compile: ${p.message}`, hint: hintFor(p.message) });
      }
      // literal patterns are compiled (RE2) when the rule is, as cel-go does
      for (const [part, checked] of [['rule', c.checked], ['messageExpression', c.messageChecked]] as const) {
        for (const bad of badPatterns(checked)) {
          const text = part === 'rule' ? rule.rule : rule.messageExpression;
          out.push({ code: part === 'rule' ? CEL_CODES.rule : CEL_CODES.messageExpression, severity: 'error', chain: [...chain], steps: [...steps], keyword: 'x-kubernetes-validations', rule, message: `${part} ${JSON.stringify(text)} does not compile: ${bad}`, hint: 'write the pattern in RE2 syntax (Go regexp): no lookarounds, backreferences, possessive or atomic forms' });
          c.problems.push({ part, message: bad, offset: 0 });
        }
      }
      if (c.problems.length) continue;
      const cost = multiplyCapped(c.cost, cardinality);
      costs.push({ chain: [...chain], steps: [...steps], rule, cost: cost + multiplyCapped(c.messageExpressionCost, cardinality) });
      if (cost > STATIC_ESTIMATED_COST_LIMIT) {
        out.push({ code: CEL_CODES.cost, severity: 'warning', chain: [...chain], steps: [...steps], keyword: 'x-kubernetes-validations', rule, message: `rule ${JSON.stringify(rule.rule)}: estimated cost ${cost.toExponential(2)}${cardinality > 1 ? ` (${c.cost} per evaluation, run up to ${cardinality} times)` : ''} exceeds the API server's per-rule budget of ${STATIC_ESTIMATED_COST_LIMIT} by a factor of ${(cost / STATIC_ESTIMATED_COST_LIMIT).toFixed(1)}: the API server refuses the CRD`, hint: `${HINT_BOUNDS}${unboundedAt(s, chain, steps)}` });
      }
    }
    const props = Object.entries(s.properties ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    for (const [k, p] of props) walk(p, [...chain, p], [...steps, `properties.${k}`], cardinality, false);
    // The size bound of this list or map multiplies the cost of the rules below it.
    const items = s.items && hasRules(s.items) ? s.items : undefined;
    const values = typeof s.additionalProperties === 'object' && hasRules(s.additionalProperties) ? s.additionalProperties : undefined;
    if (!items && !values) return;
    const self = schemaType(s as RuleSchema, isRoot);
    if (items) walk(items, [...chain, items], [...steps, 'items'], multiplyCapped(cardinality, sizeOf(self)), items['x-kubernetes-embedded-resource'] === true);
    if (values) walk(values, [...chain, values], [...steps, 'additionalProperties'], multiplyCapped(cardinality, sizeOf(self)), false);
  };
  walk(root, [root], [], 1, true);
  const total = costs.reduce((a, c) => a + c.cost, 0);
  // Over the total with no single rule over its own budget (else the bound to add is already named).
  if (total > STATIC_ESTIMATED_CRD_COST_LIMIT && !out.some((v) => v.code === CEL_CODES.cost)) {
    const worst = [...costs].sort((a, b) => b.cost - a.cost)[0];
    out.push({ code: CEL_CODES.cost, severity: 'warning', chain: worst.chain, steps: worst.steps, keyword: 'x-kubernetes-validations', rule: worst.rule, message: `the rules of this schema have an estimated total cost of ${total.toExponential(2)}, over the API server's per-CRD budget of ${STATIC_ESTIMATED_CRD_COST_LIMIT}; the most expensive is ${JSON.stringify(worst.rule.rule)} (${worst.cost.toExponential(2)})`, hint: HINT_BOUNDS });
  }
  return out;
}

/** Names the unbounded lists, maps and strings at and below the rule's node, and the lists above it. */
function unboundedAt(s: JSONSchemaProps, chain: JSONSchemaProps[], steps: string[]): string {
  const found: string[] = [];
  const look = (n: JSONSchemaProps, path: string, depth: number) => {
    if (depth > 3 || found.length >= 4) return;
    if (n.type === 'array' && n.maxItems === undefined) found.push(`maxItems on ${path || 'the field itself'}`);
    if (n.type === 'string' && n.maxLength === undefined && !n.enum && !n.format) found.push(`maxLength on ${path || 'the field itself'}`);
    if (typeof n.additionalProperties === 'object' && n.maxProperties === undefined) found.push(`maxProperties on ${path || 'the field itself'}`);
    for (const [k, p] of Object.entries(n.properties ?? {})) look(p, `${path}.${k}`, depth + 1);
    if (n.items) look(n.items, `${path}[*]`, depth + 1);
  };
  look(s, '', 0);
  for (let i = chain.length - 2; i >= 0; i--) {
    if (steps[i] === 'items' && chain[i].maxItems === undefined) found.push(`maxItems on the list ${schemaPath(steps.slice(0, i))}`);
  }
  return found.length ? ` (unbounded here: ${found.join(', ')})` : '';
}

type CheckedExpr = NonNullable<ReturnType<typeof compileRule>['messageChecked']>;
type Node = NonNullable<CheckedExpr['ast']>;

/** `<input>:1:9: invalid regular expression ...` for each literal pattern of matches / find / findAll that RE2 refuses. */
function badPatterns(checked: CheckedExpr | undefined): string[] {
  const out: string[] = [];
  const visit = (e: Node | undefined): void => {
    if (!e) return;
    const k = e.exprKind;
    switch (k.case) {
      case 'selectExpr':
        return visit(k.value.operand);
      case 'listExpr':
        return k.value.elements.forEach(visit);
      case 'structExpr':
        return k.value.entries.forEach((x) => {
          if (x.keyKind.case === 'mapKey') visit(x.keyKind.value as Node | undefined);
          visit(x.value);
        });
      case 'comprehensionExpr':
        for (const x of [k.value.iterRange, k.value.accuInit, k.value.loopCondition, k.value.loopStep, k.value.result]) visit(x);
        return;
      case 'callExpr': {
        visit(k.value.target);
        k.value.args.forEach(visit);
        const fn = k.value.function;
        if (fn !== 'matches' && fn !== 'find' && fn !== 'findAll') return;
        const pattern = k.value.target ? k.value.args[0] : k.value.args[1];
        const c = pattern?.exprKind;
        if (c?.case !== 'constExpr' || c.value.constantKind.case !== 'stringValue') return;
        const problem = checkRE2(String(c.value.constantKind.value));
        if (!problem) return;
        const { line, column } = lineCol(checked!.source, checked!.positions.get(pattern!.id) ?? 0);
        out.push(`<input>:${line}:${column}: invalid regular expression ${JSON.stringify(String(c.value.constantKind.value))}: ${problem.message} (RE2, as the API server compiles it)`);
        return;
      }
      default:
    }
  };
  if (checked?.ast && !checked.issues.length) visit(checked.ast);
  return out;
}
