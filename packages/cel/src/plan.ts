/**
 * What the API server's cel-go refuses after the type check, before a rule ever runs:
 *
 * - the environment's AST validators (k8s.io/apiserver's base environment turns on cel-go's
 *   ValidateDurationLiterals, ValidateTimestampLiterals and ValidateRegexLiterals): a literal
 *   argument of `duration()` / `timestamp()` that does not convert, or a literal first argument of
 *   `matches()` that RE2 does not compile, is a compile error at that argument
 *   (`invalid duration argument`);
 * - program planning (`env.Program`, with the base environment's OptOptimize): cel-go folds a
 *   type conversion of a constant (`int(1e99)`, `bool('TrUe')`, `string(b'\xff')`), builds list
 *   and map literals of constants, makes a qualifier of a constant index (only strings, ints,
 *   uints, bools and doubles are qualifiers: `m[b'']` is `invalid qualifier type: types.Bytes`)
 *   and compiles a constant pattern of `matches()`, and of the Kubernetes regex library's
 *   `find()` / `findAll()`. An error there fails the CRD's rule as `program instantiation
 *   failed: <error>`.
 *
 * Both are ported from cel-go v0.29 (cel/validator.go, interpreter/decorators.go, planner.go,
 * attributes.go, common/types conversions) with Go's own parsers of durations
 * (time.ParseDuration), RFC 3339 times (time.Parse), numbers (strconv) and RE2 patterns.
 */
import { goRegexpError } from './re2.js';
import type { CelIssue, Expr } from './syntax.js';

/** A constant as cel-go's planner holds it; only what the folds below need. */
type Const =
  | { k: 'int' | 'uint'; v: bigint }
  | { k: 'double'; v: number }
  | { k: 'string'; v: string }
  | { k: 'bytes'; v: Uint8Array }
  | { k: 'bool'; v: boolean }
  | { k: 'null' }
  | { k: 'duration'; ns: bigint }
  | { k: 'timestamp'; s: bigint }
  | { k: 'list' | 'map' | 'type' };

/** A failed constant conversion (the message cel-go's error carries). */
class Refused {
  constructor(readonly message: string) {}
}

const INT_MAX = 9223372036854775807n;
const INT_MIN = -9223372036854775808n;
const UINT_MAX = 18446744073709551615n;
/** cel-go's timestamp range: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z, in Unix seconds. */
const MIN_UNIX = -62135596800n;
const MAX_UNIX = 253402300799n;
/** Go's type names of the values a constant index can hold (`%T` in the planner's error). */
const GO_VALUE_TYPE: Partial<Record<Const['k'], string>> = {
  bytes: 'types.Bytes',
  null: 'types.Null',
  duration: 'types.Duration',
  timestamp: 'types.Timestamp',
};
const CEL_TYPE: Record<string, string> = {
  int: 'int',
  uint: 'uint',
  double: 'double',
  bool: 'bool',
  string: 'string',
  bytes: 'bytes',
  duration: 'google.protobuf.Duration',
  timestamp: 'google.protobuf.Timestamp',
};
const CONVERSIONS = new Set([
  'bool',
  'bytes',
  'double',
  'duration',
  'dyn',
  'int',
  'string',
  'timestamp',
  'type',
  'uint',
]);

function constOf(e: Expr): Const | undefined {
  if (e.exprKind.case !== 'constExpr') return undefined;
  const c = e.exprKind.value.constantKind;
  switch (c.case) {
    case 'int64Value':
      return { k: 'int', v: BigInt(c.value as bigint) };
    case 'uint64Value':
      return { k: 'uint', v: BigInt(c.value as bigint) };
    case 'doubleValue':
      return { k: 'double', v: Number(c.value) };
    case 'stringValue':
      return { k: 'string', v: String(c.value) };
    case 'bytesValue':
      return { k: 'bytes', v: c.value as Uint8Array };
    case 'boolValue':
      return { k: 'bool', v: Boolean(c.value) };
    case 'nullValue':
      return { k: 'null' };
    default:
      return undefined;
  }
}

const conversionError = (from: string, to: string) =>
  new Refused(`type conversion error from '${from}' to '${CEL_TYPE[to] ?? to}'`);

/**
 * cel-go's conversion `fn(v)` of a constant: the value, a Refused, or undefined where this port
 * does not follow the value (cel-go still folds it; nothing is refused that cel-go takes).
 */
function convert(fn: string, v: Const): Const | Refused | undefined {
  if (fn === 'dyn') return v;
  if (fn === 'type') return { k: 'type' };
  if (v.k === fn) return v;
  switch (fn) {
    case 'int':
      if (v.k === 'uint') return v.v > INT_MAX ? new Refused('integer overflow') : { k: 'int', v: v.v };
      if (v.k === 'double')
        return !Number.isFinite(v.v) || v.v <= -(2 ** 63) || v.v >= 2 ** 63
          ? new Refused('integer overflow')
          : { k: 'int', v: BigInt(Math.trunc(v.v)) };
      if (v.k === 'string') {
        const n = /^[+-]?\d+$/.test(v.v) ? BigInt(v.v) : undefined;
        return n === undefined || n > INT_MAX || n < INT_MIN ? conversionError('string', 'int') : { k: 'int', v: n };
      }
      if (v.k === 'timestamp') return { k: 'int', v: v.s };
      if (v.k === 'duration') return { k: 'int', v: v.ns };
      return undefined;
    case 'uint':
      if (v.k === 'int') return v.v < 0n ? new Refused('unsigned integer overflow') : { k: 'uint', v: v.v };
      if (v.k === 'double')
        return !Number.isFinite(v.v) || v.v < 0 || v.v >= 2 ** 64
          ? new Refused('unsigned integer overflow')
          : { k: 'uint', v: BigInt(Math.trunc(v.v)) };
      if (v.k === 'string') {
        const n = /^\d+$/.test(v.v) ? BigInt(v.v) : undefined;
        return n === undefined || n > UINT_MAX ? conversionError('string', 'uint') : { k: 'uint', v: n };
      }
      return undefined;
    case 'double':
      if (v.k === 'int' || v.k === 'uint') return { k: 'double', v: Number(v.v) };
      if (v.k === 'string') {
        const d = goParseFloat(v.v);
        return d === null ? conversionError('string', 'double') : d === undefined ? undefined : { k: 'double', v: d };
      }
      return undefined;
    case 'bool':
      if (v.k === 'string') {
        if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v.v)) return { k: 'bool', v: true };
        if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(v.v)) return { k: 'bool', v: false };
        return conversionError('string', 'bool');
      }
      return undefined;
    case 'string':
      if (v.k === 'bytes') {
        try {
          return { k: 'string', v: new TextDecoder('utf-8', { fatal: true }).decode(v.v) };
        } catch {
          return new Refused('invalid UTF-8 in bytes, cannot convert to string');
        }
      }
      return undefined;
    case 'bytes':
      return v.k === 'string' ? { k: 'bytes', v: new TextEncoder().encode(v.v) } : undefined;
    case 'duration':
      if (v.k === 'string') {
        const ns = goParseDuration(v.v);
        return ns === undefined ? conversionError('string', 'duration') : { k: 'duration', ns };
      }
      return undefined;
    case 'timestamp':
      if (v.k === 'int')
        return v.v < MIN_UNIX || v.v > MAX_UNIX ? new Refused('timestamp overflow') : { k: 'timestamp', s: v.v };
      if (v.k === 'string') {
        const s = goParseRFC3339(v.v);
        if (s === undefined) return conversionError('string', 'timestamp');
        return s < MIN_UNIX || s > MAX_UNIX ? new Refused('timestamp overflow') : { k: 'timestamp', s };
      }
      return undefined;
  }
  return undefined;
}

/**
 * Go's time.ParseDuration: nanoseconds, or undefined where Go refuses the text (no unit, an
 * unknown unit, beyond int64 nanoseconds).
 */
export function goParseDuration(text: string): bigint | undefined {
  const units: Record<string, bigint> = {
    ns: 1n,
    us: 1000n,
    µs: 1000n,
    μs: 1000n,
    ms: 1000000n,
    s: 1000000000n,
    m: 60000000000n,
    h: 3600000000000n,
  };
  let s = text;
  let neg = false;
  if (s[0] === '-' || s[0] === '+') {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return 0n;
  if (s === '') return undefined;
  const LIMIT = 1n << 63n;
  let d = 0n;
  while (s !== '') {
    const m = /^(\d*)(?:\.(\d*))?/.exec(s);
    if (!m) return undefined; // never: every part of the pattern may be empty
    const [whole, int, frac] = m;
    if (!int && !frac) return undefined;
    s = s.slice(whole.length);
    const unitText = /^[^\d.]*/.exec(s)?.[0];
    if (!unitText) return undefined;
    const unit = units[unitText];
    if (unit === undefined) return undefined;
    s = s.slice(unitText.length);
    let v = int ? BigInt(int) : 0n;
    if (v > LIMIT / unit) return undefined;
    v *= unit;
    if (frac) {
      // Go scales the fraction in floating point (leadingFraction keeps what fits)
      const f = Number(`0.${frac}`);
      v += BigInt(Math.trunc(f * Number(unit)));
      if (v > LIMIT) return undefined;
    }
    d += v;
    if (d > LIMIT) return undefined;
  }
  if (neg) return -d;
  return d > LIMIT - 1n ? undefined : d;
}

const daysIn = (month: number, year: number) =>
  month === 2
    ? year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
      ? 29
      : 28
    : [4, 6, 9, 11].includes(month)
      ? 30
      : 31;

/**
 * Go's time.Parse(time.RFC3339, text): the Unix seconds of the instant, or undefined where Go
 * refuses the text (layout, or a field out of its range).
 */
export function goParseRFC3339(text: string): bigint | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{1,2}):(\d{2}):(\d{2})(?:[.,]\d+)?(?:Z|([+-])(\d{2}):(\d{2}))$/.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  if (month < 1 || month > 12 || day < 1 || day > daysIn(month, year) || hour > 23 || minute > 59 || second > 59)
    return undefined;
  let offset = 0;
  if (m[7]) {
    const oh = Number(m[8]);
    const om = Number(m[9]);
    if (oh > 24 || om > 60) return undefined;
    offset = (m[7] === '-' ? -1 : 1) * (oh * 3600 + om * 60);
  }
  // days from 1970-01-01 in the proleptic Gregorian calendar (years 0000-9999)
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  const days = era * 146097 + doe - 719468;
  return BigInt(days) * 86400n + BigInt(hour * 3600 + minute * 60 + second - offset);
}

/**
 * Go's strconv.ParseFloat(text, 64): the number, null where Go refuses it (syntax, or beyond
 * the doubles), undefined for the forms this port does not read (hexadecimal, underscores).
 */
function goParseFloat(text: string): number | null | undefined {
  const t = text.replace(/^[+-]/, '');
  if (/^(inf|infinity|nan)$/i.test(t)) return /^nan$/i.test(t) ? NaN : text.startsWith('-') ? -Infinity : Infinity;
  if (/^(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t)) {
    const n = Number(text);
    return Number.isFinite(n) ? n : null;
  }
  if (/^0[xX]|_/.test(t)) return undefined;
  return null;
}

export { goRegexpError };

function children(e: Expr): Expr[] {
  const k = e.exprKind;
  switch (k.case) {
    case 'selectExpr':
      return k.value.operand ? [k.value.operand] : [];
    case 'callExpr':
      return [...(k.value.target ? [k.value.target] : []), ...k.value.args];
    case 'listExpr':
      return k.value.elements;
    case 'structExpr':
      return k.value.entries.flatMap((x) => [
        ...(x.keyKind.case === 'mapKey' ? [x.keyKind.value as Expr] : []),
        ...(x.value ? [x.value] : []),
      ]);
    case 'comprehensionExpr':
      return [k.value.iterRange, k.value.accuInit, k.value.loopCondition, k.value.loopStep, k.value.result].filter(
        (x): x is Expr => !!x,
      );
    default:
      return [];
  }
}

/**
 * cel-go's literal validators of the API server's environment: the issues (located at the
 * literal argument, in source order) for `duration('1d')`, `timestamp('10000-01-01T00:00:00Z')`,
 * `s.matches('x++')`. `at` gives a node's `<input>:line:col` prefix and offset.
 */
export function literalIssues(root: Expr, at: (e: Expr) => { prefix: string; offset: number }): CelIssue[] {
  const out: CelIssue[] = [];
  const stack = [root];
  for (let e = stack.pop(); e; e = stack.pop()) {
    stack.push(...children(e));
    if (e.exprKind.case !== 'callExpr') continue;
    const { function: fn, args } = e.exprKind.value;
    if (fn !== 'duration' && fn !== 'timestamp' && fn !== 'matches') continue;
    // cel-go's FunctionMatcher: any call of that name; its first argument (the receiver is no argument)
    const lit = args[0] && constOf(args[0]);
    if (!lit) continue;
    const bad =
      fn === 'matches' ? lit.k === 'string' && goRegexpError(lit.v) !== undefined : convert(fn, lit) instanceof Refused;
    if (!bad) continue;
    const { prefix, offset } = at(args[0]);
    out.push({ message: `${prefix}invalid ${fn} argument`, offset });
  }
  return out.sort((a, b) => a.offset - b.offset);
}

/**
 * The error cel-go's program planning (with OptOptimize) gives the expression, or undefined when
 * it plans. The first in cel-go's order (depth first, operands before the call).
 */
export function planError(root: Expr): string | undefined {
  try {
    fold(root);
    return undefined;
  } catch (e) {
    if (e instanceof Refused) return e.message;
    throw e;
  }
}

/** Plans `e` as cel-go does: its constant value when cel-go folds it; throws a Refused. */
function fold(e: Expr): Const | undefined {
  const k = e.exprKind;
  const folded = children(e).map(fold);
  switch (k.case) {
    case 'constExpr':
      return constOf(e);
    case 'listExpr':
      return folded.every((x) => x) ? { k: 'list' } : undefined;
    case 'structExpr':
      return !k.value.messageName && folded.every((x) => x) ? { k: 'map' } : undefined;
    case 'callExpr': {
      const { function: fn, target } = k.value;
      const args = folded; // the receiver first, as cel-go's interpretable holds them
      if ((fn === '_[_]' || fn === '_[?_]') && !target && args.length === 2 && args[1]) {
        const goType = GO_VALUE_TYPE[args[1].k];
        if (goType) throw new Refused(`invalid qualifier type: ${goType}`);
        return undefined;
      }
      // the regex optimizations: cel-go's matches, the Kubernetes regex library's find and findAll
      if ((fn === 'matches' || fn === 'find' || fn === 'findAll') && args.length >= 2 && args[1]?.k === 'string') {
        const err = goRegexpError(args[1].v);
        if (err) throw new Refused(err);
        return undefined;
      }
      if (CONVERSIONS.has(fn) && !target && args.length === 1 && args[0]) {
        const r = convert(fn, args[0]);
        if (r instanceof Refused) throw r;
        return r;
      }
      return undefined;
    }
    default:
      return undefined;
  }
}
