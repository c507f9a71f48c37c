// Runs one case of the CEL corpus (packages/cel/test/corpus, made by packages/cel/test/oracle/celcorpus) through
// kubeforge's CEL and says whether kubeforge agrees with what Kubernetes' test, or cel-go in the
// API server's environment, expects. The case kinds and the value encoding are described in
// packages/cel/test/corpus/README.md.
//
// A `validate` case runs the API server's pipeline on kubeforge's parts: every rule the object
// reaches is compiled by kubeforge's checker (compileRule) for its schema node, a rule that does
// not compile is an error at each value it would have judged (as the server reports it: `rule
// compile error: ...`) and is not evaluated, and the rest are evaluated by the test kit's
// evaluator (validateObject). The errors are printed as apimachinery prints them, with paths
// starting at `root` as in the Go tests.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { celUint, isCelList, isCelMap, isCelType, isCelUint, type CelMap } from '@bufbuild/cel';
import { create, isMessage, type Message } from '@bufbuild/protobuf';
import { DurationSchema, TimestampSchema } from '@bufbuild/protobuf/wkt';
import {
  checkExpression,
  compileRule,
  estimateCost,
  evaluateExpression,
  T,
  validateObject,
  type CelT,
  type CompiledRule,
  type RuleSchema,
  type ValidationRule,
} from '../src/index.js';
import {
  fieldErrorString,
  OMITTED_VALUE,
  type FieldError,
  type FieldErrorType,
} from '../../../src/util/apimachinery/field.js';
import { must } from '../../../test/helpers/must.js';

// ---- the corpus files ----

export type CelJSON = Record<string, unknown>;

export interface ErrorExpect {
  type?: string;
  field?: string;
  contains?: string;
}

export interface Case {
  id: string;
  source: string;
  kind: 'validate' | 'compile' | 'cost' | 'expr';
  schema?: string;
  rule?: ValidationRule;
  isRoot?: boolean;
  object?: string;
  oldObject?: string;
  expr?: string;
  decls?: Record<string, string>;
  bindings?: Record<string, CelJSON>;
  disableCheck?: boolean;
  expect: Record<string, unknown>;
  [other: string]: unknown;
}

export interface CorpusFile {
  file: string;
  source: string;
  excluded: { where: string; count: number; reason: string }[];
  schemas: Record<string, RuleSchema>;
  objects: Record<string, unknown>;
  cases: Case[];
}

export function loadCorpus(dir: string): CorpusFile[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => {
      const c = JSON.parse(readFileSync(join(dir, f), 'utf8')) as Omit<CorpusFile, 'file'>;
      return { file: f, ...c, schemas: c.schemas ?? {}, objects: c.objects ?? {} };
    });
}

export interface Verdict {
  agree: boolean;
  /** What Kubernetes expects and what kubeforge did, for the report. */
  want: string;
  got: string;
}

export function runCase(c: Case, file: CorpusFile): Verdict {
  switch (c.kind) {
    case 'validate':
      return runValidate(c, file);
    case 'compile':
      return runCompile(c, file);
    case 'cost':
      return runCost(c, file);
    case 'expr':
      return runExpr(c, file);
  }
}

const clip = (s: string, n = 300) => (s.length > n ? `${s.slice(0, n)}...` : s);
const show = (v: unknown) => clip(JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? `${x}n` : x)) ?? 'undefined');

// ---- validate ----

interface ErrorRecord {
  type: string;
  field: string;
  text: string;
}

/** A kubeforge field path (`spec.x`, `[0]`, `<nil>`) as a Go test's, under `root`. */
const rootPath = (p: string) => (p === '<nil>' || p === '' ? 'root' : p.startsWith('[') ? `root${p}` : `root.${p}`);

/** The server's message for a rule that does not compile (apiextensions' Compile and the validator's wrapper). */
function compileErrorDetail(r: CompiledRule): string | undefined {
  const rule = r.problems.filter((p) => p.part === 'rule');
  if (!rule.length) return undefined;
  // checker issues come as `compilation failed: ERROR: <input>:l:c: ...`; the rest (a result that is not a bool) bare
  return rule.some((p) => p.message.startsWith('<input>'))
    ? `compilation failed: ${rule.map((p) => `ERROR: ${p.message}`).join('\n')}`
    : rule.map((p) => p.message).join('\n');
}

function isObj(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

/**
 * Compiles every rule the value reaches (validation rules may sit in allOf, typed by the node
 * they apply to, as the API server's validator does); records an error per value for each rule
 * that does not compile and drops that rule from `validation`, so that it is not evaluated.
 */
function compileWalk(
  validation: RuleSchema,
  node: RuleSchema,
  value: unknown,
  path: string,
  isRoot: boolean,
  out: ErrorRecord[],
  cache: Map<ValidationRule, CompiledRule>,
): void {
  if (value === null || value === undefined) return;
  const rules = validation['x-kubernetes-validations'];
  if (rules?.length) {
    const kept: ValidationRule[] = [];
    for (const rule of rules) {
      const r = cache.get(rule) ?? compileRule(rule, node, isRoot);
      cache.set(rule, r);
      const detail = compileErrorDetail(r);
      // a messageExpression that does not compile leaves the rule its message (the server runs no messageExpression then)
      if (detail === undefined) kept.push(r.problems.length ? { ...rule, messageExpression: undefined } : rule);
      else
        out.push({
          type: 'FieldValueInvalid',
          field: rootPath(path),
          text: fieldErrorString({
            type: 'FieldValueInvalid',
            field: rootPath(path),
            badValue: node.type ?? '',
            detail: `rule compile error: ${detail}`,
          }),
        });
    }
    validation['x-kubernetes-validations'] = kept;
  }
  for (const a of validation.allOf ?? []) compileWalk(a, node, value, path, isRoot, out, cache);
  const join = (k: string) => (path === '<nil>' ? k : `${path}.${k}`);
  if (validation.properties && isObj(value)) {
    for (const [k, v] of Object.entries(validation.properties)) {
      const n = node.properties?.[k];
      if (n) compileWalk(v, n, value[k], join(k), n['x-kubernetes-embedded-resource'] === true, out, cache);
    }
  }
  const items = validation.items;
  const nodeItems = node.items;
  if (items && nodeItems && Array.isArray(value)) {
    for (const [i, x] of value.entries())
      compileWalk(
        items,
        nodeItems,
        x,
        `${path === '<nil>' ? '' : path}[${i}]`,
        nodeItems['x-kubernetes-embedded-resource'] === true,
        out,
        cache,
      );
  }
  if (isObj(validation.additionalProperties) && isObj(node.additionalProperties) && isObj(value)) {
    const a = validation.additionalProperties;
    const n = node.additionalProperties;
    for (const k of Object.keys(value))
      compileWalk(
        a,
        n,
        value[k],
        `${path === '<nil>' ? '' : path}[${k}]`,
        n['x-kubernetes-embedded-resource'] === true,
        out,
        cache,
      );
  }
}

function validateErrors(c: Case, file: CorpusFile): ErrorRecord[] {
  const schema = structuredClone(file.schemas[must(c.schema, `${c.id}'s schema`)]);
  if (c.rule) schema['x-kubernetes-validations'] = [c.rule];
  const object = structuredClone(file.objects[must(c.object, `${c.id}'s object`)]);
  const old = c.oldObject === undefined ? undefined : structuredClone(file.objects[c.oldObject]);
  const out: ErrorRecord[] = [];
  // the rules are compiled for the schema as it is (the typing), and dropped from a copy
  const validation = structuredClone(schema);
  compileWalk(validation, schema, object, '<nil>', c.isRoot === true, out, new Map());
  for (const f of validateObject(validation, object, old, [], { isRoot: c.isRoot === true })) {
    const field = rootPath(f.field);
    const e: FieldError = { type: f.type as FieldErrorType, field };
    if (f.type !== 'FieldValueDuplicate') e.detail = f.detail;
    if (f.type === 'FieldValueInvalid' || f.type === 'FieldValueDuplicate')
      e.badValue = f.omitted ? OMITTED_VALUE : f.value;
    out.push({ type: f.type, field, text: fieldErrorString(e) });
  }
  return out;
}

function matches(e: ErrorRecord, x: ErrorExpect): boolean {
  return (
    (x.type === undefined || x.type === e.type) &&
    (x.field === undefined || x.field === e.field) &&
    (x.contains === undefined || e.text.includes(x.contains))
  );
}

function runValidate(c: Case, file: CorpusFile): Verdict {
  const errors = validateErrors(c, file);
  const got = errors.length ? errors.map((e) => e.text).join(' | ') : 'no error';
  const exp = c.expect as { pass?: boolean; mode?: string; errors?: ErrorExpect[] };
  const want = exp.pass ? 'no error' : `${exp.mode}: ${show(exp.errors)}`;
  let agree: boolean;
  const wanted = exp.errors ?? [];
  switch (exp.pass ? 'pass' : exp.mode) {
    case 'pass':
      agree = errors.length === 0;
      break;
    case 'each':
      agree = errors.length > 0 && errors.every((e) => matches(e, wanted[0]));
      break;
    case 'one':
      agree = errors.length === 1 && matches(errors[0], wanted[0]);
      break;
    case 'match': {
      // as the Go tests do: each error, in turn, takes the first expectation it matches
      const left = [...wanted];
      agree = errors.every((e) => {
        const i = left.findIndex((x) => matches(e, x));
        if (i < 0) return false;
        left.splice(i, 1);
        return true;
      });
      agree &&= left.length === 0;
      break;
    }
    case 'exact': {
      const key = (x: { type?: string; field?: string }) => `${x.type} ${x.field}`;
      agree = JSON.stringify(errors.map(key).sort()) === JSON.stringify(wanted.map(key).sort());
      break;
    }
    default:
      throw new Error(`${c.id}: unknown expectation ${show(exp)}`);
  }
  return { agree, want, got: clip(got, 600) };
}

// ---- compile ----

/** A value of the schema's type, for running a rule once. */
function sampleOf(s: RuleSchema): unknown {
  switch (s.type) {
    case 'object':
      return {};
    case 'array':
      return [];
    case 'string':
      return '';
    case 'integer':
    case 'number':
      return 0;
    case 'boolean':
      return false;
    default:
      return {};
  }
}

function runCompile(c: Case, file: CorpusFile): Verdict {
  const schema = file.schemas[must(c.schema, `${c.id}'s schema`)];
  const rule = must(c.rule, `${c.id}'s rule`);
  const r = compileRule(rule, schema, c.isRoot === true);
  const exp = c.expect as {
    ok?: boolean;
    transition?: boolean;
    error?: string;
    messageExpressionError?: string;
    noProgram?: boolean;
  };
  const ruleText = r.problems
    .filter((p) => p.part === 'rule')
    .map((p) => (p.message.startsWith('<input>') ? `compilation failed: ERROR: ${p.message}` : p.message));
  const msgText = r.problems
    .filter((p) => p.part === 'messageExpression')
    .map((p) => `messageExpression compilation failed: ERROR: ${p.message}`);
  const checks: boolean[] = [];
  if (exp.ok) checks.push(ruleText.length === 0);
  if (exp.transition !== undefined) checks.push(r.usesOldSelf === exp.transition);
  const { error, messageExpressionError } = exp;
  if (error !== undefined) checks.push(ruleText.some((t) => t.includes(error)));
  if (messageExpressionError !== undefined) checks.push(msgText.some((t) => t.includes(messageExpressionError)));
  if (exp.noProgram) {
    // nothing to run: no value fails the rule
    const s = { ...schema, 'x-kubernetes-validations': [rule] };
    checks.push(validateObject(s, sampleOf(schema), undefined, [], { isRoot: c.isRoot === true }).length === 0);
  }
  if (!checks.length) throw new Error(`${c.id}: nothing to check in ${show(exp)}`);
  const got = `${[...ruleText, ...msgText].join(' | ') || 'no error'}; transition: ${r.usesOldSelf}`;
  return { agree: checks.every(Boolean), want: show(exp), got: clip(got, 600) };
}

// ---- cost ----

function runCost(c: Case, file: CorpusFile): Verdict {
  let cost: number;
  let compiles: boolean;
  let problems: string;
  if (c.expr !== undefined) {
    const checked = checkExpression(c.expr, {});
    compiles = checked.issues.length === 0;
    problems = checked.issues.map((i) => i.message).join(' | ');
    cost = compiles ? estimateCost(checked) : NaN;
  } else {
    const r = compileRule(
      must(c.rule, `${c.id}'s rule`),
      file.schemas[must(c.schema, `${c.id}'s schema`)],
      c.isRoot === true,
    );
    const ruleProblems = r.problems.filter((p) => p.part === 'rule');
    compiles = ruleProblems.length === 0;
    problems = ruleProblems.map((p) => p.message).join(' | ');
    cost = compiles ? r.cost : NaN;
  }
  const exp = c.expect as {
    compiles?: boolean;
    cost?: number;
    max?: number;
    atLeast?: number;
    above?: number;
    atMost?: number;
  };
  const checks: boolean[] = [];
  if (exp.compiles || exp.max !== undefined || exp.cost !== undefined) checks.push(compiles);
  if (exp.cost !== undefined) checks.push(cost === exp.cost);
  // kubeforge estimates the worst case only: cel-go's max is what the budgets are checked against
  if (exp.max !== undefined) checks.push(cost === exp.max);
  if (exp.atLeast !== undefined) checks.push(cost >= exp.atLeast);
  if (exp.above !== undefined) checks.push(cost > exp.above);
  if (exp.atMost !== undefined) checks.push(cost <= exp.atMost);
  return {
    agree: checks.every(Boolean),
    want: show(exp),
    got: compiles ? `cost ${cost}` : `compile error: ${clip(problems)}`,
  };
}

// ---- expr ----

/** A type as cel-go spells it (`int`, `list(string)`, `map(string, dyn)`), as a checker type. */
export function parseType(s: string): CelT {
  let i = 0;
  const read = (): CelT => {
    const m = must(/^\s*([A-Za-z_.]+)/.exec(s.slice(i)), `a type name at ${i} of ${s}`);
    i += m[0].length;
    const args: CelT[] = [];
    if (s[i] === '(') {
      i++;
      args.push(read());
      while (s[i] === ',') {
        i++;
        args.push(read());
      }
      i++;
    }
    switch (m[1]) {
      case 'list':
        return T.list(args[0]);
      case 'map':
        return T.map(args[0], args[1]);
      case 'null_type':
        return T.null;
      case 'int':
      case 'uint':
      case 'double':
      case 'bool':
      case 'string':
      case 'bytes':
      case 'timestamp':
      case 'duration':
      case 'type':
      case 'dyn':
        return { kind: m[1] } as CelT;
      default:
        return T.dyn;
    }
  };
  return read();
}

const OPTIONAL = '@kubeforge.optional';
const num = (v: unknown): number =>
  v === 'NaN' ? NaN : v === 'Infinity' ? Infinity : v === '-Infinity' ? -Infinity : v === '-0' ? -0 : Number(v);

/** A corpus value as an input of the evaluator. */
export function toInput(v: CelJSON): unknown {
  const [k, x] = Object.entries(v)[0];
  switch (k) {
    case 'int':
      return BigInt(x as string);
    case 'uint':
      return celUint(BigInt(x as string));
    case 'double':
      return num(x);
    case 'string':
      return x;
    case 'bytes':
      return Uint8Array.from(Buffer.from(x as string, 'base64'));
    case 'bool':
      return x;
    case 'null':
      return null;
    case 'list':
      return (x as CelJSON[]).map(toInput);
    case 'map':
      return new Map((x as [CelJSON, CelJSON][]).map(([a, b]) => [toInput(a), toInput(b)]));
    case 'timestamp': {
      const ms = Date.parse(x as string);
      const frac = /\.(\d+)Z$/.exec(x as string)?.[1] ?? '';
      return create(TimestampSchema, {
        seconds: BigInt(Math.floor(ms / 1000)),
        nanos: Number(frac.padEnd(9, '0').slice(0, 9)),
      });
    }
    case 'duration': {
      const m = must(/^(-?)(\d+)(?:\.(\d+))?s$/.exec(x as string), `a duration in ${String(x)}`);
      const sign = m[1] ? -1 : 1;
      return create(DurationSchema, {
        seconds: BigInt(sign) * BigInt(m[2]),
        nanos: sign * Number((m[3] ?? '').padEnd(9, '0')),
      });
    }
    case 'optional':
      return { [OPTIONAL]: true, value: toInput(x as CelJSON) };
    case 'optionalNone':
      return { [OPTIONAL]: true };
  }
  throw new Error(`no input for ${show(v)}`);
}

/** Go's time.RFC3339Nano in UTC: fraction without trailing zeros. */
function rfc3339(seconds: bigint, nanos: number): string {
  const base = new Date(Number(seconds) * 1000).toISOString().slice(0, 19);
  const frac = nanos ? `.${String(nanos).padStart(9, '0').replace(/0+$/, '')}` : '';
  return `${base}${frac}Z`;
}

function durationText(seconds: bigint, nanos: number): string {
  const neg = seconds < 0n || nanos < 0;
  const s = seconds < 0n ? -seconds : seconds;
  const n = Math.abs(nanos);
  return `${neg ? '-' : ''}${s}${n ? `.${String(n).padStart(9, '0').replace(/0+$/, '')}` : ''}s`;
}

/** Nano-units (a decimal string) as a plain decimal: "12582912000000000" -> "12582912". */
function nanosToDecimal(nanos: string): string {
  let n = BigInt(nanos);
  const neg = n < 0n;
  if (neg) n = -n;
  const whole = n / 1_000_000_000n;
  const frac = (n % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '');
  return `${neg ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`;
}

/** Go's inf.Dec strings carry trailing zeros ("0.200"): compare amounts. */
function decimalEqual(a: string, b: string): boolean {
  const norm = (s: string) => {
    let [w, f = ''] = s.replace(/^\+/, '').split('.');
    f = f.replace(/0+$/, '');
    const neg = w.startsWith('-');
    w = w.replace(/^-/, '').replace(/^0+(?=\d)/, '');
    const out = f ? `${w}.${f}` : w;
    return out === '0' ? '0' : `${neg ? '-' : ''}${out}`;
  };
  return norm(a) === norm(b);
}

/** An evaluator value in the corpus's encoding. */
export function fromValue(v: unknown): CelJSON {
  if (v === null || v === undefined) return { null: true };
  switch (typeof v) {
    case 'boolean':
      return { bool: v };
    case 'bigint':
      return { int: v.toString() };
    case 'number':
      return {
        double: Number.isNaN(v)
          ? 'NaN'
          : v === Infinity
            ? 'Infinity'
            : v === -Infinity
              ? '-Infinity'
              : Object.is(v, -0)
                ? '-0'
                : v,
      };
    case 'string':
      return { string: v };
  }
  if (v instanceof Uint8Array) return { bytes: Buffer.from(v).toString('base64') };
  if (isCelUint(v)) return { uint: v.value.toString() };
  if (isCelList(v)) return { list: [...v].map(fromValue) };
  if (isCelType(v)) return { type: v.name };
  if (isCelMap(v)) return fromMap(v);
  const msg = (v as { message?: unknown }).message;
  const m = (isMessage(v) ? v : msg && isMessage(msg) ? msg : undefined) as
    | (Message & { seconds?: bigint; nanos?: number })
    | undefined;
  if (m?.$typeName === 'google.protobuf.Timestamp') return { timestamp: rfc3339(m.seconds ?? 0n, m.nanos ?? 0) };
  if (m?.$typeName === 'google.protobuf.Duration') return { duration: durationText(m.seconds ?? 0n, m.nanos ?? 0) };
  return { other: String(v) };
}

// The evaluator's values of the Kubernetes types are maps with one marker key (packages/cel/src/k8slib.ts).
const TAGS: Record<string, (m: CelMap, tag: string) => CelJSON> = {
  '@kubeforge.Quantity': (m, t) => ({ quantity: '', decimal: nanosToDecimal(String(m.get(t))) }),
  '@kubeforge.URL': (m, t) => ({ url: String(m.get(t)) }),
  '@kubeforge.IP': (m, t) => ({ ip: String(m.get(t)) }),
  '@kubeforge.CIDR': (m, t) => ({ cidr: String(m.get(t)) }),
  '@kubeforge.Semver': (m, t) => ({ semver: String(m.get(t)) }),
  '@kubeforge.Format': (m, t) => ({ format: String(m.get(t)) }),
  [OPTIONAL]: (m) => (m.has('value') ? { optional: fromValue(m.get('value')) } : { optionalNone: true }),
};

function fromMap(m: CelMap): CelJSON {
  for (const [tag, f] of Object.entries(TAGS)) if (m.has(tag)) return f(m, tag);
  return { map: [...m.entries()].map(([k, x]) => [fromValue(k), fromValue(x)]) };
}

/** CEL equality of two encoded values (maps regardless of order, quantities by amount, doubles by value). */
export function sameValue(a: CelJSON, b: CelJSON): boolean {
  const [ka, xa] = Object.entries(a)[0] ?? [];
  const [kb, xb] = Object.entries(b)[0] ?? [];
  if (ka === 'quantity' || kb === 'quantity')
    return 'decimal' in a && 'decimal' in b && decimalEqual(String(a.decimal), String(b.decimal));
  if (ka !== kb) return false;
  switch (ka) {
    case 'double': {
      const x = num(xa);
      const y = num(xb);
      return (Number.isNaN(x) && Number.isNaN(y)) || x === y;
    }
    case 'list': {
      const la = xa as CelJSON[];
      const lb = xb as CelJSON[];
      return la.length === lb.length && la.every((x, i) => sameValue(x, lb[i]));
    }
    case 'map': {
      const ma = xa as [CelJSON, CelJSON][];
      const mb = xb as [CelJSON, CelJSON][];
      return ma.length === mb.length && ma.every(([k, x]) => mb.some(([k2, y]) => sameValue(k, k2) && sameValue(x, y)));
    }
    case 'optional':
      return sameValue(xa as CelJSON, xb as CelJSON);
    default:
      return JSON.stringify(xa) === JSON.stringify(xb);
  }
}

type Outcome = { value: CelJSON } | { evalError: string } | { compileError: string[] };

/** `<input>:1:12: ...` -> `1:12` */
const location = (m: string) => /<input>:(-?\d+:\d+):/.exec(m)?.[1];

function runExpr(c: Case, file: CorpusFile): Verdict {
  const vars: Record<string, CelT> = {};
  for (const [k, t] of Object.entries(c.decls ?? {})) vars[k] = parseType(t);
  let outcome: Outcome | undefined;
  const expr = must(c.expr, `${c.id}'s expression`);
  const checked = checkExpression(expr, vars);
  // The library tests compile in environments of their own (no homogeneous-literal rule, every
  // library version), which kubeforge's checker does not model: their results and runtime errors
  // are compared, and kubeforge's compile verdict only where the test expects a compile error.
  const libraryResult = file.file === 'k8s-library.json' && c.expect.compileErrors === undefined;
  // without type checking, only what the parser refuses is a compile error
  const issues =
    c.disableCheck || libraryResult
      ? checked.issues.filter((i) => /Syntax error|recursion/.test(i.message))
      : checked.issues;
  if (issues.length) outcome = { compileError: issues.map((i) => i.message) };
  // cel-go plans the program (env.Program) before it evaluates: what planning refuses is the case's compile error
  else if (checked.programError && !libraryResult) outcome = { compileError: [checked.programError] };
  else {
    const bindings: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(c.bindings ?? {})) bindings[k] = toInput(x);
    const r = evaluateExpression(expr, bindings);
    outcome = r.error !== undefined ? { evalError: r.error } : { value: fromValue(r.value) };
  }
  const exp = c.expect as {
    value?: CelJSON;
    evaluates?: boolean;
    evalError?: string;
    evalErrorMatches?: string;
    compileError?: string;
    compileErrors?: string[];
  };
  let agree = false;
  if (exp.value !== undefined) agree = 'value' in outcome && sameValue(exp.value, outcome.value);
  else if (exp.evaluates) agree = 'value' in outcome;
  else if (exp.evalError !== undefined)
    agree = 'evalError' in outcome && (exp.evalError === '' || outcome.evalError === exp.evalError);
  else if (exp.evalErrorMatches !== undefined)
    agree = 'evalError' in outcome && new RegExp(exp.evalErrorMatches).test(outcome.evalError);
  else if (exp.compileError !== undefined) {
    // refused, and where cel-go says (its first error's line and column)
    const at = location(exp.compileError);
    agree = 'compileError' in outcome && (at === undefined || location(outcome.compileError[0]) === at);
  } else if (exp.compileErrors !== undefined) {
    // each pattern matches an error's message, and each error is matched (the library tests' rule)
    if ('compileError' in outcome) {
      const messages = outcome.compileError.map((m) => m.replace(/^<input>:-?\d+:\d+: /, ''));
      const res = exp.compileErrors.map((p) => new RegExp(p));
      agree =
        res.every((re) => messages.some((m) => re.test(m))) && messages.every((m) => res.some((re) => re.test(m)));
    }
  } else throw new Error(`${c.id}: unknown expectation ${show(exp)}`);
  return { agree, want: show(exp), got: show(outcome) };
}
