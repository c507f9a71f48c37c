/**
 * Evaluating `x-kubernetes-validations` on objects as a 1.25+ API server does
 * (apiextensions-apiserver's schema/cel validation.go), for kubeforge/testing where the API
 * server is older: every rule of every schema node the object holds is evaluated with `self`
 * (and, on update, `oldSelf` where old and new values correlate: object fields, map keys,
 * map-list items by their keys). A rule that is false, or fails to evaluate, is a field error in
 * the words of a current API server: `spec.x: Invalid value: "abc": <message>` (servers before
 * 1.28 showed the schema type, `"string"`, where the value stands now).
 *
 * Evaluation uses @bufbuild/cel (standard library and strings ext) plus the Kubernetes lists and
 * regex libraries written here and the typed ones of ./k8slib.ts (quantity, url, ip, cidr,
 * semver, format). There is no runtime cost budget.
 */
import { celEnv, celMethod, celList, CelScalar, isCelError, isCelList, listType, mapType, parse, plan, type CelFunc, type CelMap, type CelValue } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { create } from '@bufbuild/protobuf';
import { DurationSchema, timestampFromMs } from '@bufbuild/protobuf/wkt';
import { OPTIONAL_SYNTAX } from './check.js';
import { K8S_TYPED_FUNCS, OPTIONAL_KEY } from './k8slib.js';
import { escapeProperty, type RuleSchema, type ValidationRule } from './types.js';

export type RuleErrorType = 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate';

/** One failed rule, as the API server reports it. */
export interface RuleFailure {
  type: RuleErrorType;
  /** Field path (`spec.x`, `spec.items[0]`), `<nil>` for the root (the API server's nil path). */
  field: string;
  /**
   * The bad value as a current API server shows it: the value itself for a scalar (`"abc"`, `3`),
   * `omitted` for an object or array (no value in the message); the schema type (`"string"`) for
   * a rule that failed to evaluate.
   */
  value: unknown;
  /** True where the message shows no value (objects and arrays). */
  omitted?: boolean;
  detail: string;
}

const LIST_DYN = listType(CelScalar.DYN);
const MAP_DYN = mapType(CelScalar.STRING, CelScalar.DYN);

function compare(a: CelValue, b: CelValue): number {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  if ((typeof a === 'number' || typeof a === 'bigint') && (typeof b === 'number' || typeof b === 'bigint')) return Number(a) - Number(b);
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  throw new Error(`no such overload: compare ${typeof a} with ${typeof b}`);
}
const same = (a: CelValue, b: CelValue) => {
  try {
    return compare(a, b) === 0;
  } catch {
    return false;
  }
};

/** The Kubernetes lists and regex libraries, and the methods of optionalOldSelf's optional. */
const K8S_FUNCS: CelFunc[] = [
  celMethod('isSorted', LIST_DYN, [], CelScalar.BOOL, function () {
    const xs = [...this];
    return xs.every((x, i) => i === 0 || compare(xs[i - 1], x) <= 0);
  }),
  celMethod('sum', LIST_DYN, [], CelScalar.DYN, function () {
    const xs = [...this];
    if (!xs.length) return 0n;
    if (xs.every((x) => typeof x === 'bigint')) return (xs as bigint[]).reduce((a, b) => a + b, 0n);
    return xs.reduce<number>((a, b) => a + Number(b), 0);
  }),
  celMethod('min', LIST_DYN, [], CelScalar.DYN, function () {
    const xs = [...this];
    if (!xs.length) throw new Error('min called on empty list');
    return xs.reduce((a, b) => (compare(b, a) < 0 ? b : a)) as never;
  }),
  celMethod('max', LIST_DYN, [], CelScalar.DYN, function () {
    const xs = [...this];
    if (!xs.length) throw new Error('max called on empty list');
    return xs.reduce((a, b) => (compare(b, a) > 0 ? b : a)) as never;
  }),
  celMethod('indexOf', LIST_DYN, [CelScalar.DYN], CelScalar.INT, function (v) {
    return BigInt([...this].findIndex((x) => same(x, v)));
  }),
  celMethod('lastIndexOf', LIST_DYN, [CelScalar.DYN], CelScalar.INT, function (v) {
    const xs = [...this];
    for (let i = xs.length - 1; i >= 0; i--) if (same(xs[i], v)) return BigInt(i);
    return -1n;
  }),
  celMethod('find', CelScalar.STRING, [CelScalar.STRING], CelScalar.STRING, function (re) {
    return new RegExp(re, 'u').exec(this)?.[0] ?? '';
  }),
  celMethod('findAll', CelScalar.STRING, [CelScalar.STRING], LIST_DYN, function (re) {
    return celList([...this.matchAll(new RegExp(re, 'gu'))].map((m) => m[0]));
  }),
  celMethod('findAll', CelScalar.STRING, [CelScalar.STRING, CelScalar.INT], LIST_DYN, function (re, n) {
    const all = [...this.matchAll(new RegExp(re, 'gu'))].map((m) => m[0]);
    return celList(n < 0n ? all : all.slice(0, Number(n)));
  }),
  celMethod('hasValue', MAP_DYN, [], CelScalar.BOOL, function () {
    return optionalOf(this).has;
  }),
  celMethod('value', MAP_DYN, [], CelScalar.DYN, function () {
    const o = optionalOf(this);
    if (!o.has) throw new Error('optional.none() dereference');
    return o.value as never;
  }),
  celMethod('orValue', MAP_DYN, [CelScalar.DYN], CelScalar.DYN, function (d) {
    const o = optionalOf(this);
    return (o.has ? o.value : d) as never;
  }),
];

function optionalOf(m: CelMap): { has: boolean; value?: CelValue } {
  if (!m.has(OPTIONAL_KEY)) throw new Error('no such overload');
  return { has: m.has('value'), value: m.get('value') };
}

const env = celEnv({ funcs: [...strings, ...K8S_FUNCS, ...K8S_TYPED_FUNCS] });

interface Program {
  run(vars: Record<string, unknown>): { value?: unknown; error?: string };
}
const programs = new Map<string, Program>();

function program(source: string): Program {
  let p = programs.get(source);
  if (!p) {
    try {
      const fn = plan(env, parse(source));
      p = {
        run: (vars) => {
          try {
            const r = fn(vars as never);
            if (isCelError(r)) return { error: r.message };
            return { value: r };
          } catch (e) {
            return { error: (e as Error).message };
          }
        },
      };
    } catch (e) {
      const message = (e as Error).message;
      p = { run: () => ({ error: `compilation failed: ${message}` }) };
    }
    programs.set(source, p);
  }
  return p;
}

const GO_DURATION = /^([-+]?)((?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|ms|s|m|h))+$/;
function parseDuration(s: string): unknown {
  if (s === '0') return create(DurationSchema, {});
  if (!GO_DURATION.test(s)) return s;
  const unit: Record<string, number> = { ns: 1e-9, us: 1e-6, 'µs': 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };
  let secs = 0;
  for (const m of s.matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/g)) secs += Number(m[1]) * unit[m[2]];
  if (s.startsWith('-')) secs = -secs;
  const whole = Math.trunc(secs);
  return create(DurationSchema, { seconds: BigInt(whole), nanos: Math.round((secs - whole) * 1e9) });
}

/** A JSON value as the CEL value the API server builds from it for this schema node. */
export function toCel(v: unknown, s: RuleSchema | undefined, isRoot = false): unknown {
  if (v === null || v === undefined) return null;
  if (!s) return plain(v);
  if (s['x-kubernetes-int-or-string']) return typeof v === 'number' && Number.isInteger(v) ? BigInt(v) : v;
  if (Array.isArray(v)) return v.map((x) => toCel(x, s.items, s.items?.['x-kubernetes-embedded-resource'] === true));
  switch (typeof v) {
    case 'number':
      return s.type === 'integer' && Number.isInteger(v) ? BigInt(v) : s.type === 'number' ? v : Number.isInteger(v) ? BigInt(v) : v;
    case 'string':
      if (s.format === 'date-time' || s.format === 'date') {
        const ms = Date.parse(s.format === 'date' ? `${v}T00:00:00Z` : v);
        return Number.isNaN(ms) ? v : timestampFromMs(ms);
      }
      if (s.format === 'duration') return parseDuration(v);
      if (s.format === 'byte') return Uint8Array.from(Buffer.from(v, 'base64'));
      return v;
    case 'object': {
      const o = v as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      if (typeof s.additionalProperties === 'object') {
        for (const [k, x] of Object.entries(o)) out[k] = toCel(x, s.additionalProperties, s.additionalProperties['x-kubernetes-embedded-resource'] === true);
        return out;
      }
      for (const [k, x] of Object.entries(o)) {
        const p = s.properties?.[k];
        const name = escapeProperty(k);
        if (p && name && x !== null) out[name] = toCel(x, p, p['x-kubernetes-embedded-resource'] === true);
      }
      if (isRoot || s['x-kubernetes-embedded-resource']) {
        if (typeof o.apiVersion === 'string') out.apiVersion = o.apiVersion;
        if (typeof o.kind === 'string') out.kind = o.kind;
        const meta = (o.metadata ?? {}) as Record<string, unknown>;
        const m: Record<string, unknown> = typeof out.metadata === 'object' && out.metadata ? { ...(out.metadata as object) } : {};
        if (typeof meta.name === 'string') m.name = meta.name;
        if (typeof meta.generateName === 'string') m.generateName = meta.generateName;
        out.metadata = m;
      }
      return out;
    }
    default:
      return v;
  }
}

function plain(v: unknown): unknown {
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  if (Array.isArray(v)) return v.map(plain);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return v;
}

function ruleErrorString(rule: ValidationRule): string {
  return rule.message?.trim() ? rule.message.trim() : (rule.rule ?? '').trim();
}

/** `.a['b.c']` -> path children, as apiextensions' ValidFieldPath normalises a rule's fieldPath. */
function childPath(base: string, fieldPath: string): string {
  let out = base === '<nil>' ? '' : base;
  for (const m of fieldPath.matchAll(/\.([A-Za-z_][A-Za-z0-9_]*)|\['((?:[^'\\]|\\.)*)'\]/g)) {
    const key = m[1] ?? m[2].replace(/\\(.)/g, '$1');
    out = out ? `${out}.${key}` : key;
  }
  return out || '<nil>';
}

const REASONS = new Set<RuleErrorType>(['FieldValueInvalid', 'FieldValueForbidden', 'FieldValueRequired', 'FieldValueDuplicate']);

/**
 * Evaluates every rule the object reaches in `schema` (the version's openAPIV3Schema).
 * `old` is the stored object on update (undefined on create); `warnings` receives rules that
 * could not be evaluated (optional syntax). Returns the failures in the order
 * the API server finds them (a node's own rules, then its properties in name order, items, map values).
 */
export function validateObject(schema: RuleSchema, obj: unknown, old?: unknown, warnings: string[] = []): RuleFailure[] {
  const out: RuleFailure[] = [];
  walk(schema, obj, old, '<nil>', true, out, warnings);
  return out;
}

const join = (base: string, key: string) => (base === '<nil>' ? key : `${base}.${key}`);

function walk(s: RuleSchema, v: unknown, old: unknown, path: string, isRoot: boolean, out: RuleFailure[], warnings: string[]): void {
  if (v === undefined || v === null) return;
  const rules = [...(s['x-kubernetes-validations'] ?? []), ...(s.allOf ?? []).flatMap((a) => a['x-kubernetes-validations'] ?? [])];
  if (rules.length) {
    const self = toCel(v, s, isRoot);
    const oldSelf = old === undefined || old === null ? undefined : toCel(old, s, isRoot);
    for (const rule of rules) evaluateRule(rule, s, v, self, oldSelf, path, out, warnings);
  }
  if (Array.isArray(v)) {
    const items = s.items;
    if (!items) return;
    const keys = s['x-kubernetes-list-type'] === 'map' ? s['x-kubernetes-list-map-keys'] ?? [] : undefined;
    const olds = Array.isArray(old) ? (old as Record<string, unknown>[]) : [];
    v.forEach((x, i) => {
      const o = keys && x && typeof x === 'object' ? olds.find((y) => y && typeof y === 'object' && keys.every((k) => JSON.stringify((y as Record<string, unknown>)[k]) === JSON.stringify((x as Record<string, unknown>)[k]))) : undefined;
      walk(items, x, o, `${path === '<nil>' ? '' : path}[${i}]`, items['x-kubernetes-embedded-resource'] === true, out, warnings);
    });
    return;
  }
  if (typeof v !== 'object') return;
  const o = v as Record<string, unknown>;
  const oo = old && typeof old === 'object' ? (old as Record<string, unknown>) : undefined;
  if (typeof s.additionalProperties === 'object') {
    for (const k of Object.keys(o).sort()) walk(s.additionalProperties, o[k], oo?.[k], `${path === '<nil>' ? '' : path}[${k}]`, s.additionalProperties['x-kubernetes-embedded-resource'] === true, out, warnings);
    return;
  }
  for (const k of Object.keys(s.properties ?? {}).sort()) {
    if (k === 'metadata' && isRoot) continue;
    walk(s.properties![k], o[k], oo?.[k], join(path, k), s.properties![k]['x-kubernetes-embedded-resource'] === true, out, warnings);
  }
}

function evaluateRule(rule: ValidationRule, s: RuleSchema, raw: unknown, self: unknown, oldSelf: unknown, path: string, out: RuleFailure[], warnings: string[]): void {
  const source = rule.rule ?? '';
  const unreadable = (src: string) => OPTIONAL_SYNTAX.test(src) && program(src).run({}).error?.startsWith('compilation failed') === true;
  if (unreadable(source) || (rule.messageExpression !== undefined && unreadable(rule.messageExpression))) {
    warnings.push(`${path}: rule ${JSON.stringify(source)} was not evaluated: kubeforge/testing does not read CEL's optional syntax (.?field, [?key]); a 1.29+ API server enforces it`);
    return;
  }
  const usesOldSelf = /\boldSelf\b/.test(source);
  const type = s.type ?? '';
  const vars: Record<string, unknown> = { self };
  if (usesOldSelf) {
    if (rule.optionalOldSelf) vars.oldSelf = oldSelf === undefined ? { [OPTIONAL_KEY]: true } : { [OPTIONAL_KEY]: true, value: oldSelf };
    else if (oldSelf === undefined) return; // a transition rule: update only, and only where an old value exists
    else vars.oldSelf = oldSelf;
  }
  const r = program(source).run(vars);
  if (r.error !== undefined) {
    const detail = `${r.error} evaluating rule: ${ruleErrorString(rule)}`;
    out.push({ type: 'FieldValueInvalid', field: path, value: type, detail });
    return;
  }
  if (r.value === true) return;
  if (typeof r.value !== 'boolean') {
    out.push({ type: 'FieldValueInvalid', field: path, value: type, detail: `rule ${source} evaluated to a non-boolean value` });
    return;
  }
  const field = rule.fieldPath ? childPath(path, rule.fieldPath) : path;
  let detail: string | undefined;
  if (rule.messageExpression?.trim()) {
    const m = program(rule.messageExpression).run(vars);
    if (typeof m.value === 'string' && m.value.trim() && !/[\r\n]/.test(m.value)) detail = m.value;
  }
  detail ??= rule.message?.trim() ? rule.message.trim() : `failed rule: ${ruleErrorString(rule)}`;
  const reason = rule.reason && REASONS.has(rule.reason as RuleErrorType) ? (rule.reason as RuleErrorType) : 'FieldValueInvalid';
  // The value itself, except for objects and arrays, whose value the API server leaves out.
  out.push(type === 'object' || type === 'array' ? { type: reason, field, value: undefined, omitted: true, detail } : { type: reason, field, value: raw, detail });
}

/** True when `v` is a list value of the evaluator (exported for tests of conversions). */
export const isList = (v: unknown): boolean => isCelList(v);

/** Evaluates one expression with already converted variables (see {@link toCel}); for tests and tools. */
export function evaluateExpression(source: string, vars: Record<string, unknown> = {}): { value?: unknown; error?: string } {
  return program(source).run(vars);
}
