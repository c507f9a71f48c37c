/**
 * Evaluating `x-kubernetes-validations` on objects as a 1.25+ API server does
 * (apiextensions-apiserver's schema/cel validation.go), for kubeforge/testing where the API
 * server is older: every rule of every schema node the object holds is evaluated with `self`
 * (and, on update, `oldSelf` where old and new values correlate: object fields, map keys,
 * map-list items by their keys), rules under `allOf` included. A rule that is false, or fails to
 * evaluate, is a field error in the words of a current API server: `spec.x: Invalid value:
 * "abc": <message>` (servers before 1.28 showed the schema type, `"string"`, where the value
 * stands now).
 *
 * Evaluation uses @bufbuild/cel's interpreter with the environment the API server gives rules:
 * the standard library with cel-go's equality and ordering, the strings extension version 2
 * (./strings.ts), the Kubernetes lists, regex and sets libraries, cel-go's lists extension
 * version 3, two-variable comprehensions and optional values (./rewrite.ts turns the macros and
 * the optional syntax @bufbuild/cel does not know into what it runs), and the typed Kubernetes
 * libraries of ./k8slib.ts (quantity, url, ip, cidr, semver, format). Values keep their schema's
 * list type and unknown fields (./values.ts). There is no runtime cost budget.
 */
import {
  celEnv,
  celFunc,
  celList,
  celMap,
  celMethod,
  celUint,
  CelScalar,
  isCelError,
  isCelList,
  isCelMap,
  isCelUint,
  listType,
  mapType,
  objectType,
  parse,
  plan,
  type CelFunc,
  type CelList,
  type CelMap,
  type CelValue,
} from '@bufbuild/cel';
import { create } from '@bufbuild/protobuf';
import { DurationSchema, timestampFromMs } from '@bufbuild/protobuf/wkt';
import { re2Find, re2FindAll, re2Matches } from './re2.js';
import type { Expr } from './check.js';
import { K8S_TYPED_FUNCS, OPTIONAL_KEY, optional, typeOfTagged } from './k8slib.js';
import { rewrite } from './rewrite.js';
import { STRINGS_V2 } from './strings.js';
import { markOptionals, positionsOf, scanSource } from './syntax.js';
import { escapeProperty, RESERVED, type RuleSchema, type ValidationRule } from './types.js';
import {
  celEquals,
  compareValues,
  concatLists,
  durationFromNanos,
  isDuration,
  listInfo,
  nanosOf,
  objectValue,
  timestampFromText,
  typedList,
  wkt,
  type ListSemantics,
} from './values.js';

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

const { BOOL, INT, DYN, STRING, DOUBLE, UINT } = CelScalar;
const LIST = listType(DYN);
const MAP = mapType(DYN, DYN);
const DURATION = objectType('google.protobuf.Duration');

const noSuchOverload = () => new Error('no such overload');

// ---- optionals (values of k8slib's optional form: a map with a marker key) ----

const isOptional = (v: unknown): v is CelMap => isCelMap(v) && v.has(OPTIONAL_KEY);
const opt = (v?: CelValue): CelValue => optional(v) as unknown as CelValue;
const optValue = (o: CelMap): CelValue | undefined => o.get('value');

/** Whether map `m` has key `k` (@bufbuild/cel's `has` misses keys whose value is null). */
function mapHas(m: CelMap, k: CelValue): boolean {
  if (m.get(k as never) !== undefined) return true;
  for (const key of m.keys()) if (celEquals(key, k)) return true;
  return false;
}

/** Selects field `f` of `x` (an object or a map); a reserved word also finds its escaped property. */
function lookup(x: CelValue, f: CelValue): CelValue | undefined {
  if (isCelMap(x)) {
    if (mapHas(x, f)) return x.get(f as never) ?? null;
    if (typeof f === 'string' && RESERVED.has(f) && x.has(`__${f}__`)) return x.get(`__${f}__`);
    return undefined;
  }
  if (isCelList(x)) {
    const n =
      typeof f === 'bigint'
        ? f
        : isCelUint(f)
          ? f.value
          : typeof f === 'number' && Number.isInteger(f)
            ? BigInt(f)
            : undefined;
    if (n === undefined) throw new Error('unsupported index type');
    return n >= 0n && n < BigInt(x.size) ? x.get(Number(n)) : undefined;
  }
  throw noSuchOverload();
}

const missing = (x: CelValue, f: CelValue) =>
  new Error(isCelList(x) ? `index out of bounds: ${String(f)}` : `no such key: ${String(f)}`);

/** `x.?f` and `x[?k]`: an optional of the field, none when absent (an optional operand is looked into). */
function optAccess(x: CelValue, f: CelValue): never {
  if (isOptional(x)) {
    const inner = optValue(x);
    return (inner === undefined || (!isCelMap(inner) && !isCelList(inner)) ? opt() : optAccess(inner, f)) as never;
  }
  return opt(lookup(x, f)) as never;
}

/** `x.f` and `x[k]` where `x` may be an optional: inside an optional the result is an optional. */
function access(x: CelValue, f: CelValue): never {
  if (isOptional(x)) return optAccess(x, f);
  const v = lookup(x, f);
  if (v === undefined) throw missing(x, f);
  return v as never;
}

const isZero = (v: CelValue): boolean => {
  if (v === null || v === false || v === '' || v === 0n || v === 0) return true;
  if (isCelUint(v)) return v.value === 0n;
  if (v instanceof Uint8Array) return v.length === 0;
  if (isCelList(v)) return v.size === 0;
  if (isCelMap(v)) return !v.has(OPTIONAL_KEY) && v.size === 0;
  const w = wkt(v);
  if (w?.type === 'google.protobuf.Duration') return nanosOf(w) === 0n;
  if (w?.type === 'google.protobuf.Timestamp') return w.seconds === -62135596800n && w.nanos === 0;
  return false;
};

// ---- the Kubernetes lists library and cel-go's lists extension ----

function sum(this: CelList): never {
  return sumOf(this) as never;
}

/** The whole nanoseconds of a duration (a value isDuration accepts). */
function durationNanos(v: unknown): bigint {
  const w = wkt(v);
  if (!w) throw new Error(`not a duration: ${String(v)}`);
  return nanosOf(w);
}

/** The lists library's sum: numbers of one kind, or durations; an empty list sums to its element type's zero. */
function sumOf(list: CelList): CelValue {
  const xs = [...list];
  if (!xs.length) {
    const elem = listInfo(list)?.elem;
    return (elem === 'duration'
      ? create(DurationSchema, {})
      : elem === 'double'
        ? 0
        : elem === 'uint'
          ? celUint(0n)
          : 0n) as unknown as CelValue;
  }
  if (xs.every(isDuration))
    return durationFromNanos(xs.reduce<bigint>((a, x) => a + durationNanos(x), 0n)) as unknown as CelValue;
  if (xs.every((x) => typeof x === 'bigint')) {
    const s = (xs as bigint[]).reduce((a, b) => a + b, 0n);
    if (s > 9223372036854775807n || s < -9223372036854775808n) throw new Error('integer overflow');
    return s;
  }
  if (xs.every(isCelUint)) return celUint(xs.reduce<bigint>((a, x) => a + (x as { value: bigint }).value, 0n));
  if (xs.every((x) => typeof x === 'number')) return (xs as number[]).reduce((a, b) => a + b, 0);
  throw noSuchOverload();
}

function extreme(name: string, prefer: number) {
  return function (this: CelList): never {
    let best: CelValue | undefined;
    for (const x of this) if (best === undefined || compareValues(best, x) === prefer) best = x;
    if (best === undefined) throw new Error(`${name} called on empty list`);
    return best as never;
  };
}

function sortByKeys(list: CelList, keys: CelList): never {
  if (list.size !== keys.size)
    throw new Error(
      `@sortByAssociatedKeys() expected a list of the same size as the associated keys list, but got ${list.size} and ${keys.size} elements respectively`,
    );
  const xs = [...list];
  const ks = [...keys];
  if (!xs.length) return list as never;
  const kind = (v: CelValue) =>
    isCelUint(v) ? 'uint' : (wkt(v)?.type ?? (v instanceof Uint8Array ? 'bytes' : typeof v));
  const k0 = kind(ks[0]);
  if (
    ![
      'bigint',
      'uint',
      'number',
      'string',
      'boolean',
      'bytes',
      'google.protobuf.Timestamp',
      'google.protobuf.Duration',
    ].includes(k0)
  )
    throw new Error('list elements must be comparable');
  if (ks.some((k) => kind(k) !== k0)) throw new Error('list elements must have the same type');
  const order = xs.map((_, i) => i).sort((a, b) => compareValues(ks[a], ks[b]));
  return celList(order.map((i) => xs[i]) as never) as never;
}

function flatten(l: CelList, depth: bigint): CelValue[] {
  if (depth < 0n) throw new Error('level must be non-negative');
  const out: CelValue[] = [];
  for (const x of l) {
    if (isCelList(x) && depth > 0n) out.push(...flatten(x, depth - 1n));
    else out.push(x);
  }
  return out;
}

const contains = (l: CelList, v: CelValue) => [...l].some((x) => celEquals(x, v));

/** Functions beyond @bufbuild/cel's standard library (same-signature ones replace its own). */
const EVAL_FUNCS: CelFunc[] = [
  // cel-go's equality (the left operand decides: set and map lists, preserved unknown fields)
  celFunc('_==_', [DYN, DYN], BOOL, celEquals),
  celFunc('_!=_', [DYN, DYN], BOOL, (a, b) => !celEquals(a, b)),
  celFunc('@in', [DYN, LIST], BOOL, (v, l) => contains(l, v)),
  ...[STRING, DOUBLE, INT, BOOL, UINT, DYN].map((t) =>
    celFunc('@in', [t, MAP], BOOL, (k: CelValue, m: CelMap) => mapHas(m, k)),
  ),
  celFunc('_+_', [LIST, LIST], LIST, (a, b) => concatLists(a, b)),
  // durations: cel-go's getters give the whole duration in the unit
  celMethod('getMilliseconds', DURATION, [], INT, function () {
    return durationNanos(this) / 1_000_000n;
  }),
  // the Kubernetes lists library
  celMethod('isSorted', LIST, [], BOOL, function () {
    const xs = [...this];
    return xs.every((x, i) => i === 0 || compareValues(xs[i - 1], x) <= 0);
  }),
  celMethod('sum', LIST, [], DYN, sum),
  celMethod('min', LIST, [], DYN, extreme('min', 1)),
  celMethod('max', LIST, [], DYN, extreme('max', -1)),
  celMethod('indexOf', LIST, [DYN], INT, function (v) {
    return BigInt([...this].findIndex((x) => celEquals(x, v)));
  }),
  celMethod('lastIndexOf', LIST, [DYN], INT, function (v) {
    const xs = [...this];
    for (let i = xs.length - 1; i >= 0; i--) if (celEquals(xs[i], v)) return BigInt(i);
    return -1n;
  }),
  ...[LIST, DYN].map((t) =>
    celMethod('includes', t, [DYN], BOOL, function (this: CelValue, v: CelValue) {
      return isCelList(this) ? contains(this, v) : celEquals(this, v);
    }),
  ),
  // the Kubernetes regex library
  // RE2 as Go's regexp reads it (packages/cel/src/re2.ts), for the standard `matches` too
  celMethod('matches', STRING, [STRING], BOOL, function (re) {
    return re2Matches(re, this);
  }),
  celFunc('matches', [STRING, STRING], BOOL, (s, re) => re2Matches(re, s)),
  celMethod('find', STRING, [STRING], STRING, function (re) {
    return re2Find(re, this);
  }),
  celMethod('findAll', STRING, [STRING], LIST, function (re) {
    return celList(re2FindAll(re, this));
  }),
  celMethod('findAll', STRING, [STRING, INT], LIST, function (re, n) {
    return celList(re2FindAll(re, this, n < 0n ? -1 : Number(n)));
  }),
  // cel-go's sets extension
  celFunc('sets.contains', [LIST, LIST], BOOL, (a, b) => [...b].every((x) => contains(a, x))),
  celFunc(
    'sets.equivalent',
    [LIST, LIST],
    BOOL,
    (a, b) => [...b].every((x) => contains(a, x)) && [...a].every((x) => contains(b, x)),
  ),
  celFunc('sets.intersects', [LIST, LIST], BOOL, (a, b) => [...a].some((x) => contains(b, x))),
  // cel-go's lists extension, version 3
  celFunc('lists.range', [INT], LIST, (n) => {
    if (n < 0n) throw new Error(`lists.range: size must be non-negative, got ${n}`);
    return celList(Array.from({ length: Number(n) }, (_, i) => BigInt(i)));
  }),
  celMethod('reverse', LIST, [], LIST, function () {
    return celList([...this].reverse() as never);
  }),
  celMethod('slice', LIST, [INT, INT], LIST, function (start, end) {
    if (start < 0n || end < 0n) throw new Error(`cannot slice(${start}, ${end}), negative indexes not supported`);
    if (start > end)
      throw new Error(`cannot slice(${start}, ${end}), start index must be less than or equal to end index`);
    if (BigInt(this.size) < end) throw new Error(`cannot slice(${start}, ${end}), list is length ${this.size}`);
    return celList([...this].slice(Number(start), Number(end)) as never);
  }),
  celMethod('flatten', LIST, [], LIST, function () {
    return celList(flatten(this, 1n) as never);
  }),
  celMethod('flatten', LIST, [INT], LIST, function (depth) {
    return celList(flatten(this, depth) as never);
  }),
  celMethod('distinct', LIST, [], LIST, function () {
    const out: CelValue[] = [];
    for (const x of this) if (!out.some((y) => celEquals(x, y))) out.push(x);
    return celList(out as never);
  }),
  celMethod('sort', LIST, [], LIST, function () {
    return sortByKeys(this, this);
  }),
  celMethod('first', LIST, [], MAP, function () {
    return opt(this.size ? this.get(0) : undefined) as never;
  }),
  celMethod('last', LIST, [], MAP, function () {
    return opt(this.size ? this.get(this.size - 1) : undefined) as never;
  }),
  celFunc('@kf.sortByKeys', [LIST, LIST], LIST, sortByKeys),
  // two-variable comprehensions (./rewrite.ts): what a fold iterates, and the maps they build
  celFunc('@kf.keysOf', [DYN], DYN, (x) => {
    if (isCelList(x)) return celList(Array.from({ length: x.size }, (_, i) => BigInt(i)));
    if (isCelMap(x)) return x;
    throw noSuchOverload();
  }),
  celFunc('@kf.mapInsert', [MAP, DYN, DYN], MAP, (m, k, v) =>
    celMap(new Map([...m.entries(), [k as never, v]]) as never),
  ),
  celFunc('@kf.mapMerge', [MAP, MAP], MAP, (m, add) => {
    const out = new Map(m.entries());
    for (const [k, v] of add) {
      if (out.has(k)) throw new Error(`insert failed: key ${String(k)} already exists`);
      out.set(k, v);
    }
    return celMap(out as never);
  }),
  // optional values and CEL's optional syntax (./rewrite.ts)
  celFunc('@kf.optSelect', [DYN, STRING], MAP, optAccess),
  celFunc('@kf.optIndex', [DYN, DYN], MAP, optAccess),
  celFunc('@kf.select', [DYN, STRING], DYN, access),
  celFunc('@kf.has', [DYN, STRING], BOOL, (x, f) => {
    if (isOptional(x)) {
      const inner = optValue(x);
      return inner !== undefined && isCelMap(inner) && lookup(inner, f) !== undefined;
    }
    if (!isCelMap(x)) throw noSuchOverload();
    return lookup(x, f) !== undefined;
  }),
  celFunc('@kf.index', [DYN, DYN], DYN, access),
  celFunc('@kf.optList', [LIST, LIST], LIST, (xs, opt) => {
    const flags = [...opt];
    const out: CelValue[] = [];
    for (const [i, x] of [...xs].entries()) {
      if (!flags[i]) out.push(x);
      else if (!isOptional(x))
        throw new Error(`found no matching overload for 'optional element' applied to '${String(x)}'`);
      else {
        const value = optValue(x);
        if (value !== undefined) out.push(value);
      }
    }
    return celList(out as never);
  }),
  celFunc('@kf.optMap', [LIST, LIST, LIST], MAP, (keys, values, opt) => {
    const ks = [...keys];
    const vs = [...values];
    const flags = [...opt];
    const out = new Map<unknown, CelValue>();
    ks.forEach((k, i) => {
      let v: CelValue | undefined = vs[i];
      if (flags[i]) {
        if (!isOptional(v)) throw new Error('optional entry value is not an optional');
        v = optValue(v);
      }
      if (v === undefined) return;
      if (out.has(k)) throw new Error(`map key conflict: ${String(k)}`);
      out.set(k, v);
    });
    return celMap(out as never);
  }),
  celMethod('hasValue', MAP, [], BOOL, function () {
    if (!isOptional(this)) throw noSuchOverload();
    return optValue(this) !== undefined;
  }),
  celMethod('value', MAP, [], DYN, function () {
    if (!isOptional(this)) throw noSuchOverload();
    const v = optValue(this);
    if (v === undefined) throw new Error('optional.none() dereference');
    return v as never;
  }),
  celMethod('orValue', MAP, [DYN], DYN, function (d) {
    if (!isOptional(this)) throw noSuchOverload();
    return (optValue(this) ?? d) as never;
  }),
  celMethod('or', MAP, [MAP], MAP, function (other) {
    if (!isOptional(this) || !isOptional(other)) throw noSuchOverload();
    return (optValue(this) !== undefined ? this : other) as never;
  }),
  celFunc('optional.ofNonZeroValue', [DYN], MAP, (v) => opt(isZero(v) ? undefined : v) as never),
  // type(x) of the Kubernetes types and optionals
  celFunc('type', [DYN], CelScalar.TYPE, (v) => typeOfTagged(v)),
  // conversions as cel-go words them
  celFunc('bool', [STRING], BOOL, (s) => {
    if (['true', 'True', 'TRUE', 't', '1'].includes(s)) return true;
    if (['false', 'False', 'FALSE', 'f', '0'].includes(s)) return false;
    throw new Error(`type conversion error from 'string' to 'bool'`);
  }),
  celFunc('double', [UINT], DOUBLE, (u) => Number(u.value)),
];

const env = celEnv({ funcs: [...STRINGS_V2, ...K8S_TYPED_FUNCS, ...EVAL_FUNCS] });

/** The type identifiers of the Kubernetes types, which @bufbuild/cel's scope does not know. */
const TYPE_VARIABLES: Record<string, unknown> = Object.fromEntries(
  [
    'net.IP',
    'net.CIDR',
    'kubernetes.Quantity',
    'kubernetes.URL',
    'kubernetes.Semver',
    'kubernetes.NamedFormat',
    'optional_type',
  ].map((n) => [n, objectType(n)]),
);

/** cel-go's words for the errors @bufbuild/cel words its own way (the API server shows them in field errors). */
function celGoMessage(m: string): string {
  return m
    .replace(/^int overflow during .*$/, 'integer overflow')
    .replace(/^uint overflow during .*$/, 'unsigned integer overflow')
    .replace(/^int divide by zero$/, 'division by zero')
    .replace(/^int modulus by zero$/, 'modulus by zero')
    .replace(/^field not found: (.*)$/, 'no such key: $1')
    .replace(/^index (-?\d+) out of bounds \[0, -?\d+\)$/, 'index out of bounds: $1');
}

interface Program {
  run(vars: Record<string, unknown>): { value?: unknown; error?: string };
}
const programs = new Map<string, Program>();

/** Parses `source` as cel-go does (optional syntax included) and plans it; `optionalVars` hold optionals (oldSelf). */
function program(source: string, optionalVars: string[] = []): Program {
  const key = `${optionalVars.join(',')}\u0000${source}`;
  let p = programs.get(key);
  if (!p) {
    try {
      const scanned = scanSource(source);
      if (scanned.error) throw new Error(scanned.error.message);
      const parsed = parse(scanned.text);
      const next = markOptionals(parsed.expr as unknown as Expr, scanned, positionsOf(parsed.sourceInfo as never));
      parsed.expr = rewrite(parsed.expr as never, { next }, new Set(optionalVars)) as never;
      const fn = plan(env, parsed);
      p = {
        run: (vars) => {
          try {
            const r = fn({ ...TYPE_VARIABLES, ...vars } as never);
            if (isCelError(r)) return { error: celGoMessage(r.message) };
            return { value: r };
          } catch (e) {
            return { error: celGoMessage((e as Error).message) };
          }
        },
      };
    } catch (e) {
      const message = (e as Error).message;
      p = { run: () => ({ error: `compilation failed: ${message}` }) };
    }
    programs.set(key, p);
  }
  return p;
}

// ---- objects to CEL values ----

const GO_DURATION = /^([-+]?)((?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|ms|s|m|h))+$/;
function parseDuration(s: string): unknown {
  if (s === '0') return create(DurationSchema, {});
  if (!GO_DURATION.test(s)) return s;
  const unit: Record<string, number> = { ns: 1e-9, us: 1e-6, µs: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };
  let secs = 0;
  for (const m of s.matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/g)) secs += Number(m[1]) * unit[m[2]];
  if (s.startsWith('-')) secs = -secs;
  const whole = Math.trunc(secs);
  return create(DurationSchema, { seconds: BigInt(whole), nanos: Math.round((secs - whole) * 1e9) });
}

/** The element type a list's schema gives, for an empty list's sum. */
function elemType(s: RuleSchema | undefined): string | undefined {
  if (!s) return undefined;
  if (s.type === 'string' && s.format === 'duration') return 'duration';
  if (s.type === 'string' && (s.format === 'date' || s.format === 'date-time')) return 'timestamp';
  if (s.type === 'number') return 'double';
  if (s.type === 'integer') return 'int';
  return s.type;
}

function listSemantics(s: RuleSchema): ListSemantics | undefined {
  if (s['x-kubernetes-list-type'] === 'set') return { type: 'set' };
  if (s['x-kubernetes-list-type'] === 'map')
    return { type: 'map', keys: (s['x-kubernetes-list-map-keys'] ?? []).map((k) => escapeProperty(k) ?? k) };
  return undefined;
}

/** A JSON value as the CEL value the API server builds from it for this schema node. */
export function toCel(v: unknown, s: RuleSchema | undefined, isRoot = false): unknown {
  if (v === null || v === undefined) return null;
  if (!s) return plain(v);
  if (s['x-kubernetes-int-or-string']) return typeof v === 'number' && Number.isInteger(v) ? BigInt(v) : v;
  if (Array.isArray(v))
    return typedList(
      v.map((x) => toCel(x, s.items, s.items?.['x-kubernetes-embedded-resource'] === true)),
      { semantics: listSemantics(s), elem: elemType(s.items) },
    );
  switch (typeof v) {
    case 'number':
      return s.type === 'integer' && Number.isInteger(v)
        ? BigInt(v)
        : s.type === 'number'
          ? v
          : Number.isInteger(v)
            ? BigInt(v)
            : v;
    case 'string':
      if (s.format === 'date-time') {
        // RFC 3339 (the offset kept); other forms strfmt takes, as JavaScript reads them
        const t = timestampFromText(v);
        const ms = t ? 0 : Date.parse(v);
        return t ?? (Number.isNaN(ms) ? v : timestampFromMs(ms));
      }
      if (s.format === 'date') {
        const ms = /^\d{4}-\d{2}-\d{2}$/.test(v) ? Date.parse(`${v}T00:00:00Z`) : NaN;
        return Number.isNaN(ms) ? v : timestampFromMs(ms);
      }
      if (s.format === 'duration') return parseDuration(v);
      if (s.format === 'byte') return Uint8Array.from(Buffer.from(v, 'base64'));
      return v;
    case 'object': {
      const o = v as Record<string, unknown>;
      if (typeof s.additionalProperties === 'object') {
        const out: Record<string, unknown> = {};
        for (const [k, x] of Object.entries(o))
          out[k] = toCel(x, s.additionalProperties, s.additionalProperties['x-kubernetes-embedded-resource'] === true);
        return celMap(new Map(Object.entries(out)) as never);
      }
      if (!s.type && !s.properties && s['x-kubernetes-preserve-unknown-fields']) return plain(v);
      const out: Record<string, unknown> = {};
      const known = new Set<string>();
      for (const [k, x] of Object.entries(o)) {
        const p = s.properties?.[k];
        const name = escapeProperty(k);
        if (p) known.add(k);
        if (p && name && x !== null) out[name] = toCel(x, p, p['x-kubernetes-embedded-resource'] === true);
      }
      if (isRoot || s['x-kubernetes-embedded-resource']) {
        if (typeof o.apiVersion === 'string') out.apiVersion = o.apiVersion;
        if (typeof o.kind === 'string') out.kind = o.kind;
        for (const k of ['apiVersion', 'kind', 'metadata']) known.add(k);
        const meta = (o.metadata ?? {}) as Record<string, unknown>;
        const m: Record<string, unknown> = {};
        const declared = out.metadata;
        if (isCelMap(declared)) for (const [k, x] of declared) m[k as string] = x;
        if (typeof meta.name === 'string') m.name = meta.name;
        if (typeof meta.generateName === 'string') m.generateName = meta.generateName;
        out.metadata = objectValue(m, meta, new Set(Object.keys(meta)));
      }
      return objectValue(out, o, known);
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

const REASONS = new Set<RuleErrorType>([
  'FieldValueInvalid',
  'FieldValueForbidden',
  'FieldValueRequired',
  'FieldValueDuplicate',
]);

/** The longest message a messageExpression may give (apiextensions' MaxEvaluatedMessageExpressionSizeBytes). */
const MAX_MESSAGE_EXPRESSION_LENGTH = 5 * 1024;

export interface ValidateOptions {
  /**
   * Whether `schema` is a resource's root, where `apiVersion`, `kind` and `metadata.name` are
   * declared (default true: the version's openAPIV3Schema). False validates a value of any node.
   */
  isRoot?: boolean;
}

/**
 * Evaluates every rule the object reaches in `schema` (the version's openAPIV3Schema).
 * `old` is the stored object on update (undefined on create); `warnings` is kept for callers
 * (no rule is left unevaluated today). Returns the failures in the order the API server finds
 * them (a node's own rules, its allOf entries' rules, then its properties in name order,
 * items, map values).
 */
export function validateObject(
  schema: RuleSchema,
  obj: unknown,
  old?: unknown,
  warnings: string[] = [],
  options: ValidateOptions = {},
): RuleFailure[] {
  void warnings;
  const out: RuleFailure[] = [];
  walk(schema, schema, obj, old, '<nil>', options.isRoot ?? true, out);
  return out;
}

const join = (base: string, key: string) => (base === '<nil>' ? key : `${base}.${key}`);

/**
 * The API server's validator: the rules of `validation` are judged on `v`, typed by `node` (they
 * differ under allOf, whose entries carry rules but take their types from the node they apply to).
 */
function walk(
  validation: RuleSchema,
  node: RuleSchema,
  v: unknown,
  old: unknown,
  path: string,
  isRoot: boolean,
  out: RuleFailure[],
): void {
  if (v === undefined || v === null) return;
  const rules = validation['x-kubernetes-validations'] ?? [];
  if (rules.length) {
    const self = toCel(v, node, isRoot);
    const oldSelf = old === undefined || old === null ? undefined : toCel(old, node, isRoot);
    for (const rule of rules) evaluateRule(rule, node, v, self, oldSelf, path, out);
  }
  for (const a of validation.allOf ?? []) walk(a, node, v, old, path, isRoot, out);
  if (Array.isArray(v)) {
    const items = node.items;
    const itemValidation = validation.items;
    if (!items || !itemValidation) return;
    const keys = node['x-kubernetes-list-type'] === 'map' ? (node['x-kubernetes-list-map-keys'] ?? []) : undefined;
    const olds = Array.isArray(old) ? (old as Record<string, unknown>[]) : [];
    v.forEach((x, i) => {
      const o =
        keys && x && typeof x === 'object'
          ? olds.find(
              (y) =>
                y &&
                typeof y === 'object' &&
                keys.every(
                  (k) =>
                    JSON.stringify((y as Record<string, unknown>)[k]) ===
                    JSON.stringify((x as Record<string, unknown>)[k]),
                ),
            )
          : undefined;
      walk(
        itemValidation,
        items,
        x,
        o,
        `${path === '<nil>' ? '' : path}[${i}]`,
        items['x-kubernetes-embedded-resource'] === true,
        out,
      );
    });
    return;
  }
  if (typeof v !== 'object') return;
  const o = v as Record<string, unknown>;
  const oo = old && typeof old === 'object' ? (old as Record<string, unknown>) : undefined;
  if (typeof node.additionalProperties === 'object') {
    if (typeof validation.additionalProperties !== 'object') return;
    const ap = node.additionalProperties;
    for (const k of Object.keys(o).sort())
      walk(
        validation.additionalProperties,
        ap,
        o[k],
        oo?.[k],
        `${path === '<nil>' ? '' : path}[${k}]`,
        ap['x-kubernetes-embedded-resource'] === true,
        out,
      );
    return;
  }
  const properties = validation.properties ?? {};
  for (const k of Object.keys(properties).sort()) {
    const p = node.properties?.[k];
    if (!p || (k === 'metadata' && isRoot)) continue;
    walk(properties[k], p, o[k], oo?.[k], join(path, k), p['x-kubernetes-embedded-resource'] === true, out);
  }
}

function evaluateRule(
  rule: ValidationRule,
  s: RuleSchema,
  raw: unknown,
  self: unknown,
  oldSelf: unknown,
  path: string,
  out: RuleFailure[],
): void {
  const source = rule.rule ?? '';
  if (!source.trim()) return; // an empty rule: nothing to run
  const usesOldSelf = /\boldSelf\b/.test(source);
  const type = s.type ?? '';
  const vars: Record<string, unknown> = { self };
  const optionalVars: string[] = [];
  if (usesOldSelf) {
    if (rule.optionalOldSelf) {
      vars.oldSelf = oldSelf === undefined ? { [OPTIONAL_KEY]: true } : { [OPTIONAL_KEY]: true, value: oldSelf };
      optionalVars.push('oldSelf');
    } else if (oldSelf === undefined)
      return; // a transition rule: update only, and only where an old value exists
    else vars.oldSelf = oldSelf;
  }
  const r = program(source, optionalVars).run(vars);
  if (r.error !== undefined) {
    const detail = r.error.startsWith('no such overload')
      ? `'${r.error}': call arguments did not match a supported operator, function or macro signature for rule: ${ruleErrorString(rule)}`
      : `${r.error} evaluating rule: ${ruleErrorString(rule)}`;
    out.push({ type: 'FieldValueInvalid', field: path, value: type, detail });
    return;
  }
  if (r.value === true) return;
  if (typeof r.value !== 'boolean') {
    out.push({
      type: 'FieldValueInvalid',
      field: path,
      value: type,
      detail: `rule ${source} evaluated to a non-boolean value`,
    });
    return;
  }
  const field = rule.fieldPath ? childPath(path, rule.fieldPath) : path;
  let detail: string | undefined;
  if (rule.messageExpression?.trim()) {
    const m = program(rule.messageExpression, optionalVars).run(vars);
    if (
      typeof m.value === 'string' &&
      m.value.trim() &&
      !/[\r\n]/.test(m.value) &&
      m.value.length <= MAX_MESSAGE_EXPRESSION_LENGTH
    )
      detail = m.value;
  }
  detail ??= rule.message?.trim() ? rule.message.trim() : `failed rule: ${ruleErrorString(rule)}`;
  const reason =
    rule.reason && REASONS.has(rule.reason as RuleErrorType) ? (rule.reason as RuleErrorType) : 'FieldValueInvalid';
  // The value itself, except for objects and arrays, whose value the API server leaves out.
  out.push(
    type === 'object' || type === 'array'
      ? { type: reason, field, value: undefined, omitted: true, detail }
      : { type: reason, field, value: raw, detail },
  );
}

/** True when `v` is a list value of the evaluator (exported for tests of conversions). */
export const isList = (v: unknown): boolean => isCelList(v);

/** Evaluates one expression with already converted variables (see {@link toCel}); for tests and tools. */
export function evaluateExpression(
  source: string,
  vars: Record<string, unknown> = {},
): { value?: unknown; error?: string } {
  return program(source).run(vars);
}
