/**
 * Compiling one `x-kubernetes-validations` entry as the API server does when a CRD is created
 * (apiextensions-apiserver's schema/cel Compile): the rule must check to a bool with `self`
 * (and `oldSelf`, a transition rule) typed from the schema it is attached to; a messageExpression
 * must check to a string. Returns the problems with cel-go's wording and the estimated cost.
 */
import { checkExpression, type Checked } from './check.js';
import { estimateCostRange } from './cost.js';
import {
  schemaDecl,
  schemaType,
  T,
  typeName,
  unboundedCardinality,
  type CelT,
  type RuleSchema,
  type ValidationRule,
} from './types.js';

export interface RuleProblem {
  /** Which expression of the rule is wrong. */
  part: 'rule' | 'messageExpression';
  /** cel-go style message, `<input>:1:6: undefined field 'foo'` or `must evaluate to a bool`. */
  message: string;
  /** 0-based offset in that expression. */
  offset: number;
}

export interface CompiledRule {
  rule: ValidationRule;
  problems: RuleProblem[];
  /** True when the rule reads `oldSelf` (a transition rule: evaluated on update only). */
  usesOldSelf: boolean;
  /**
   * Estimated worst-case cost of the rule (one evaluation) and of its messageExpression, as the
   * API server estimates them (numbers: exact up to 2^53; the `max*` fields are exact).
   */
  cost: number;
  messageExpressionCost: number;
  /** The server's MaxCost of the rule and of its messageExpression (0 when it does not compile, as on the server). */
  maxCost: bigint;
  messageExpressionMaxCost: bigint;
  /**
   * How many times the rule may run when a list or map above its node has no bound: the
   * compilation's estimate from the node's smallest JSON form (apiextensions' MaxCardinality).
   */
  unboundedCardinality: bigint;
  checked: Checked;
  messageChecked?: Checked;
}

/** The variables of a rule on `schema`. `isRoot`: the Kind's root (apiVersion, kind, metadata.name are declared). */
export function ruleVariables(schema: RuleSchema, isRoot: boolean, optionalOldSelf = false): Record<string, CelT> {
  const self = schemaType(schema, isRoot || schema['x-kubernetes-embedded-resource'] === true) ?? T.dyn;
  // optionalOldSelf: oldSelf is an optional (none on create): oldSelf.hasValue(), oldSelf.value()
  return { self, oldSelf: optionalOldSelf ? T.optional(self) : self };
}

export interface CompileOptions {
  /** The Kubernetes minor whose API server judges the rule (library.ts CEL_VERSIONS); default the newest. */
  k8sMinor?: number;
}

export function compileRule(
  rule: ValidationRule,
  schema: RuleSchema,
  isRoot = false,
  options: CompileOptions = {},
): CompiledRule {
  const vars = ruleVariables(schema, isRoot, rule.optionalOldSelf === true);
  const problems: RuleProblem[] = [];
  // a blank rule compiles to nothing to run (apiextensions' Compile: no error, no program)
  const checked = (rule.rule ?? '').trim()
    ? checkExpression(rule.rule ?? '', vars, options)
    : checkExpression('true', vars, options);
  for (const i of checked.issues) problems.push({ part: 'rule', message: i.message, offset: i.offset });
  if (checked.type && checked.type.kind !== 'bool' && checked.type.kind !== 'dyn') {
    problems.push({
      part: 'rule',
      message: `cel expression must evaluate to a bool (it is ${typeName(checked.type)})`,
      offset: 0,
    });
  }
  // cel-go plans the program of a rule that compiled to a bool (apiextensions' compilation.go wording)
  if (!problems.length && checked.programError)
    problems.push({ part: 'rule', message: `program instantiation failed: ${checked.programError}`, offset: 0 });
  let messageChecked: Checked | undefined;
  if (rule.messageExpression?.trim()) {
    messageChecked = checkExpression(rule.messageExpression, vars, options);
    for (const i of messageChecked.issues)
      problems.push({ part: 'messageExpression', message: i.message, offset: i.offset });
    if (messageChecked.type && messageChecked.type.kind !== 'string' && messageChecked.type.kind !== 'dyn') {
      problems.push({
        part: 'messageExpression',
        message: `messageExpression must evaluate to a string (it is ${typeName(messageChecked.type)})`,
        offset: 0,
      });
    }
    if (!problems.some((p) => p.part === 'messageExpression') && messageChecked.programError)
      problems.push({
        part: 'messageExpression',
        message: `messageExpression instantiation failed: ${messageChecked.programError}`,
        offset: 0,
      });
  }
  const decl = schemaDecl(schema, isRoot || schema['x-kubernetes-embedded-resource'] === true);
  // The server estimates a rule that compiled, and its messageExpression only then.
  const ruleOk = !problems.some((p) => p.part === 'rule');
  const maxCost = ruleOk ? estimateCostRange(checked, decl).max : 0n;
  const messageOk = ruleOk && messageChecked && !problems.some((p) => p.part === 'messageExpression');
  const messageExpressionMaxCost = messageOk && messageChecked ? estimateCostRange(messageChecked, decl).max : 0n;
  return {
    rule,
    problems,
    usesOldSelf: checked.usesOldSelf,
    cost: Number(maxCost),
    messageExpressionCost: Number(messageExpressionMaxCost),
    maxCost,
    messageExpressionMaxCost,
    unboundedCardinality: decl ? BigInt(unboundedCardinality(decl)) : 0n,
    checked,
    messageChecked,
  };
}
