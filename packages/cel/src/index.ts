/**
 * CEL for `x-kubernetes-validations`: checking rules against the schema they are attached to
 * (what `kubeforge manifests` does before writing a CRD) and evaluating them on objects (what
 * `kubeforge/testing` does where the API server does not). No ts-morph, no CLI packages: the
 * testing library loads this module. The package's other entries: `@kubeforge/cel/re2` (Go's
 * regexp, which the API server compiles patterns and CEL regexes with) and
 * `@kubeforge/cel/apimachinery` (the string validators CEL's `format` library calls).
 */
export { checkExpression, lineCol, type Checked, type CelIssue } from './check.js';
export { compileRule, ruleVariables, type CompileOptions, type CompiledRule, type RuleProblem } from './compile.js';
export { ruleImpliedBy } from './implies.js';
export {
  estimateCost,
  estimateCostRange,
  multiplyCapped,
  addSat,
  costFactorText,
  MAX_UINT64,
  STATIC_ESTIMATED_COST_LIMIT,
  STATIC_ESTIMATED_CRD_COST_LIMIT,
  type Range,
} from './cost.js';
export {
  schemaType,
  schemaDecl,
  unboundedCardinality,
  escapeProperty,
  unescapeProperty,
  typeName,
  T,
  type CelT,
  type RuleSchema,
  type ValidationRule,
  type Decl,
} from './types.js';
export {
  validateObject,
  toCel,
  evaluateExpression,
  type RuleFailure,
  type RuleErrorType,
  type ValidateOptions,
} from './eval.js';
export { CEL_VERSIONS, NEWEST_CEL_TARGET, OLDEST_CEL_TARGET, type Overload } from './library.js';
export type { Expr } from './syntax.js';
export { CEL_GO_VERSIONS } from './versions.js';
