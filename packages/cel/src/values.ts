/**
 * CEL values as the API server builds them from objects (k8s.io/apiserver/pkg/cel/common's
 * unstructured values), on top of @bufbuild/cel's: lists remember their schema's
 * `x-kubernetes-list-type` (a `set` compares as a set, a `map` by its keys, and `+` merges
 * them), objects remember the fields their schema does not declare (kept by
 * `x-kubernetes-preserve-unknown-fields`, compared as JSON), and lists remember their element
 * type (an empty list of durations sums to a duration). Equality follows cel-go: the left
 * operand's kind decides. The side tables are weak maps keyed by the CEL list and map objects,
 * which @bufbuild/cel passes through unchanged.
 */
import {
  celList,
  celMap,
  celUint,
  isCelList,
  isCelMap,
  isCelType,
  isCelUint,
  type CelList,
  type CelMap,
  type CelValue,
} from '@bufbuild/cel';
import { create, isMessage } from '@bufbuild/protobuf';
import { isReflectMessage } from '@bufbuild/protobuf/reflect';
import { DurationSchema, TimestampSchema } from '@bufbuild/protobuf/wkt';

export type ListSemantics = { type: 'set' } | { type: 'map'; keys: readonly string[] };

export interface ListInfo {
  semantics?: ListSemantics;
  /** The element type the schema gives (`duration`, `timestamp`, `int`, `double`...), when known. */
  elem?: string;
}

const LISTS = new WeakMap<object, ListInfo>();
/** An object's JSON, and which of its fields its schema declares. */
const RAW = new WeakMap<object, { json: Record<string, unknown>; known: ReadonlySet<string> }>();

/** A list with its schema's list type and element type. */
export function typedList(items: unknown[], info: ListInfo): CelList {
  const l = celList(items as never);
  if (info.semantics || info.elem) LISTS.set(l, info);
  return l;
}

export const listInfo = (l: unknown): ListInfo | undefined =>
  typeof l === 'object' && l !== null ? LISTS.get(l) : undefined;

/**
 * An object value: `fields` (its declared properties as CEL values, by escaped name), and the
 * object's JSON with the set of declared property names (the others, kept by
 * preserve-unknown-fields, compare as JSON; map-list keys are read from the JSON, as the API
 * server reads them, so keys whose names CEL cannot spell still count).
 */
export function objectValue(
  fields: Record<string, unknown>,
  json?: Record<string, unknown>,
  known?: ReadonlySet<string>,
): CelMap {
  const m = celMap(new Map(Object.entries(fields)) as never);
  if (json) RAW.set(m, { json, known: known ?? new Set(Object.keys(json)) });
  return m;
}

/** The undeclared fields of an object value, as JSON. */
function unknownFields(m: object): Record<string, unknown> | undefined {
  const r = RAW.get(m);
  if (!r) return undefined;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(r.json)) if (!r.known.has(k)) out[k] = v;
  return Object.keys(out).length ? out : undefined;
}

// ---- timestamps and durations ----

export interface Wkt {
  type: 'google.protobuf.Timestamp' | 'google.protobuf.Duration';
  seconds: bigint;
  nanos: number;
}

/** The seconds and nanos of a timestamp or duration value, else undefined. */
export function wkt(v: unknown): Wkt | undefined {
  const m = isReflectMessage(v) ? (v.message as unknown) : isMessage(v) ? v : undefined;
  const t = (m as { $typeName?: string } | undefined)?.$typeName;
  if (t !== 'google.protobuf.Timestamp' && t !== 'google.protobuf.Duration') return undefined;
  const x = m as { seconds: bigint; nanos: number };
  return { type: t, seconds: x.seconds, nanos: x.nanos };
}

export const isDuration = (v: unknown) => wkt(v)?.type === 'google.protobuf.Duration';
export const isTimestamp = (v: unknown) => wkt(v)?.type === 'google.protobuf.Timestamp';

/** Nanoseconds of a duration or timestamp, as one bigint. */
export const nanosOf = (w: Wkt) => w.seconds * 1_000_000_000n + BigInt(w.nanos);

/** cel-go's duration range: ±(2^63 - 1) ns (about 292 years). */
const MAX_DURATION_NANOS = 9223372036854775807n;

export function durationFromNanos(n: bigint) {
  if (n > MAX_DURATION_NANOS || n < -MAX_DURATION_NANOS) throw new Error('duration out of range');
  return create(DurationSchema, { seconds: n / 1_000_000_000n, nanos: Number(n % 1_000_000_000n) });
}

/** The UTC offset (minutes) a timestamp was written with: cel-go keeps it, and string() shows it. */
const OFFSETS = new WeakMap<object, number>();

/** A timestamp from an RFC 3339 text (nanosecond precision, the offset kept); undefined when it is not one. */
export function timestampFromText(text: string) {
  const m = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}:\d{2})(?:\.(\d+))?([Zz]|[+-]\d{2}:\d{2})$/.exec(text);
  if (!m) return undefined;
  const ms = Date.parse(`${m[1]}T${m[2]}${m[4].toUpperCase()}`);
  if (Number.isNaN(ms)) return undefined;
  const t = create(TimestampSchema, {
    seconds: BigInt(Math.floor(ms / 1000)),
    nanos: Number((m[3] ?? '').slice(0, 9).padEnd(9, '0')),
  });
  const offset = /^[Zz]$/.test(m[4])
    ? 0
    : (m[4][0] === '-' ? -1 : 1) * (Number(m[4].slice(1, 3)) * 60 + Number(m[4].slice(4, 6)));
  if (offset) OFFSETS.set(t, offset);
  return t;
}

/** The offset a timestamp value was written with (0 for UTC). */
export function timestampOffset(v: unknown): number {
  const m = isReflectMessage(v) ? (v.message as object) : isMessage(v) ? v : undefined;
  return (m && OFFSETS.get(m)) ?? 0;
}

export function timestampFromNanos(n: bigint) {
  let seconds = n / 1_000_000_000n;
  let nanos = Number(n % 1_000_000_000n);
  if (nanos < 0) {
    seconds -= 1n;
    nanos += 1_000_000_000;
  }
  // 0001-01-01T00:00:00Z .. 9999-12-31T23:59:59.999999999Z
  if (seconds < -62135596800n || seconds > 253402300799n) throw new Error('timestamp out of range');
  return create(TimestampSchema, { seconds, nanos });
}

// ---- comparison and equality ----

const isNum = (v: unknown): v is bigint | number => typeof v === 'bigint' || typeof v === 'number';
const numOf = (v: unknown): bigint | number | undefined => (isCelUint(v) ? v.value : isNum(v) ? v : undefined);

function compareNumbers(a: bigint | number, b: bigint | number): number {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  const x = Number(a);
  const y = Number(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  return a.length - b.length;
}

/**
 * CEL's ordering (the `<` family and the lists library's min, max, isSorted): numbers across
 * int, uint and double, strings, bools, bytes, timestamps, durations. Throws cel-go's
 * "no such overload" for anything else or for mixed kinds.
 */
export function compareValues(a: unknown, b: unknown): number {
  const x = numOf(a);
  const y = numOf(b);
  if (x !== undefined && y !== undefined) return compareNumbers(x, y);
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (a instanceof Uint8Array && b instanceof Uint8Array) return compareBytes(a, b);
  const wa = wkt(a);
  const wb = wkt(b);
  if (wa && wb && wa.type === wb.type) {
    const d = nanosOf(wa) - nanosOf(wb);
    return d < 0n ? -1 : d > 0n ? 1 : 0;
  }
  throw new Error('no such overload');
}

function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b))
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return (
      ka.length === kb.length &&
      ka.every(
        (k) => k in (b as object) && jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
      )
    );
  }
  return false;
}

/** The key fields of a map-list element, for matching elements across lists (read from the JSON when there is one). */
function sameKeys(a: unknown, b: unknown, keys: readonly string[]): boolean {
  if (!isCelMap(a) || !isCelMap(b)) return false;
  const ra = RAW.get(a)?.json;
  const rb = RAW.get(b)?.json;
  return keys.every((k) => {
    // as the API server's map lists do: the JSON field named by the key's escaped name
    if (ra && rb) return jsonEqual(ra[k], rb[k]);
    const x = a.get(k);
    const y = b.get(k);
    return x === undefined || y === undefined ? x === y : celEquals(x, y);
  });
}

/**
 * CEL equality as the API server's values implement it: the left operand decides (a `set` list
 * compares as a set, a `map` list by its elements' keys, an object with preserved unknown fields
 * compares those as JSON); numbers compare across types, NaN equals nothing.
 */
export function celEquals(a: unknown, b: unknown): boolean {
  if (a === b) return typeof a !== 'number' || !Number.isNaN(a);
  const x = numOf(a);
  const y = numOf(b);
  if (x !== undefined || y !== undefined)
    return (
      x !== undefined &&
      y !== undefined &&
      compareNumbers(x, y) === 0 &&
      !Number.isNaN(Number(x)) &&
      !Number.isNaN(Number(y))
    );
  if (isCelList(a)) {
    if (!isCelList(b) || a.size !== b.size) return false;
    const info = LISTS.get(a)?.semantics;
    const left = [...a];
    const right = [...b];
    if (info?.type === 'set')
      return (
        right.every((r) => left.some((l) => celEquals(l, r))) && left.every((l) => right.some((r) => celEquals(l, r)))
      );
    if (info?.type === 'map') {
      return right.every((r) => {
        const l = left.find((e) => sameKeys(e, r, info.keys));
        return l !== undefined && celEquals(l, r);
      });
    }
    return left.every((l, i) => celEquals(l, right[i]));
  }
  if (isCelMap(a)) {
    if (!isCelMap(b)) return false;
    const ua = unknownFields(a);
    const ub = unknownFields(b);
    if (ua || ub) {
      // declared fields as CEL values, undeclared ones as JSON
      if (!ua || !ub || Object.keys(ua).length !== Object.keys(ub).length) return false;
      if (!Object.entries(ua).every(([k, v]) => k in ub && jsonEqual(v, ub[k]))) return false;
    }
    if (a.size !== b.size) return false;
    for (const [k, v] of a) {
      const w = b.get(k as never);
      if (w === undefined || !celEquals(v, w)) return false;
    }
    return true;
  }
  if (a instanceof Uint8Array) return b instanceof Uint8Array && compareBytes(a, b) === 0;
  if (isCelType(a)) return isCelType(b) && a.kind === b.kind && a.name === b.name;
  const wa = wkt(a);
  const wb = wkt(b);
  if (wa || wb) return !!wa && !!wb && wa.type === wb.type && nanosOf(wa) === nanosOf(wb);
  return false;
}

/** `+` on lists: a `set` list adds the elements it does not hold, a `map` list replaces elements by key. */
export function concatLists(a: CelList, b: CelList): CelList {
  const info = LISTS.get(a);
  const sem = info?.semantics;
  const out: CelValue[] = [...a];
  if (info && sem?.type === 'set') {
    for (const x of b) if (!out.some((y) => celEquals(y, x))) out.push(x);
    return typedList(out, info);
  }
  if (info && sem?.type === 'map') {
    for (const x of b) {
      const i = out.findIndex((y) => sameKeys(y, x, sem.keys));
      if (i >= 0) out[i] = x;
      else out.push(x);
    }
    return typedList(out, info);
  }
  return celList([...out, ...b] as never);
}

export { celUint };
