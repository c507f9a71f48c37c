/**
 * cel-go's strings extension at the version the API server enables (ext.Strings version 2):
 * positions count code points (not UTF-16 units), `split` and `replace` with a limit keep Go's
 * strings.SplitN / strings.Replace meaning, out-of-range offsets of `indexOf` give -1, and
 * `format` writes numbers as Go's formatter does for the en_US locale (`%f` with thousands
 * separators, `%e` as `1.052033×10⁰³`). Also Go's shortest float text (`string(1e21)`).
 */
import {
  celFunc,
  celMethod,
  CelScalar,
  isCelList,
  isCelMap,
  isCelType,
  isCelUint,
  listType,
  objectType,
  type CelFunc,
  type CelList,
  type CelValue,
} from '@bufbuild/cel';
import { isDuration, isTimestamp, timestampOffset, wkt } from './values.js';

const { STRING, INT, DYN } = CelScalar;
const LIST_STRING = listType(STRING);
const LIST_DYN = listType(DYN);

const cps = (s: string) => [...s];

function charAt(s: string, i: bigint): string {
  const r = cps(s);
  if (i < 0n || i > BigInt(r.length)) throw new Error(`index out of range: ${i}`);
  return r[Number(i)] ?? '';
}

function indexOf(s: string, sub: string, offset: bigint): bigint {
  if (offset < 0n) throw new Error(`index out of range: ${offset}`);
  const r = cps(s);
  const off = Number(offset);
  if (sub === '') return BigInt(Math.min(off, r.length));
  const n = cps(sub);
  if (off >= r.length) return -1n;
  for (let i = off; i < r.length - (n.length - 1); i++) if (n.every((c, j) => r[i + j] === c)) return BigInt(i);
  return -1n;
}

function lastIndexOf(s: string, sub: string, offset?: bigint): bigint {
  const r = cps(s);
  if (offset === undefined) {
    if (sub === '') return BigInt(r.length);
    if (Buffer.byteLength(s) < Buffer.byteLength(sub)) return -1n;
    offset = BigInt(r.length - 1);
  }
  if (offset < 0n) throw new Error(`index out of range: ${offset}`);
  let off = Number(offset);
  if (sub === '') return BigInt(Math.min(off, r.length));
  const n = cps(sub);
  if (off >= r.length) return -1n;
  if (off > r.length - n.length) off = r.length - n.length;
  for (let i = off; i >= 0; i--) if (n.every((c, j) => r[i + j] === c)) return BigInt(i);
  return -1n;
}

/** Go's strings.Replace: n < 0 replaces all; an empty `old` matches before each code point and at the end. */
function replace(s: string, old: string, repl: string, n: bigint): string {
  if (n === 0n || old === repl) return s;
  let left = n < 0n ? Infinity : Number(n);
  if (old === '') {
    const r = cps(s);
    let out = '';
    for (let i = 0; i <= r.length; i++) {
      if (left > 0) {
        out += repl;
        left--;
      }
      if (i < r.length) out += r[i];
    }
    return out;
  }
  let out = '';
  let i = 0;
  while (left > 0) {
    const j = s.indexOf(old, i);
    if (j < 0) break;
    out += s.slice(i, j) + repl;
    i = j + old.length;
    left--;
  }
  return out + s.slice(i);
}

/** Go's strings.SplitN: n == 0 gives [], n < 0 splits at every separator, else at most n parts (the last holds the rest). */
function splitN(s: string, sep: string, n: bigint): string[] {
  if (n === 0n) return [];
  const max = n < 0n ? Infinity : Number(n);
  if (sep === '') {
    const r = cps(s);
    if (r.length <= max) return r;
    return [...r.slice(0, max - 1), r.slice(max - 1).join('')];
  }
  const out: string[] = [];
  let i = 0;
  while (out.length < max - 1) {
    const j = s.indexOf(sep, i);
    if (j < 0) break;
    out.push(s.slice(i, j));
    i = j + sep.length;
  }
  out.push(s.slice(i));
  return out;
}

function substring(s: string, start: bigint, end?: bigint): string {
  const r = cps(s);
  const l = BigInt(r.length);
  if (end !== undefined && start > end) throw new Error(`invalid substring range. start: ${start}, end: ${end}`);
  if (start < 0n || start > l) throw new Error(`index out of range: ${start}`);
  if (end !== undefined && (end < 0n || end > l)) throw new Error(`index out of range: ${end}`);
  return r.slice(Number(start), end === undefined ? undefined : Number(end)).join('');
}

/** Go's unicode.IsSpace. */
const SPACE =
  /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g;

const asciiCase = (s: string, upper: boolean) =>
  s.replace(upper ? /[a-z]+/g : /[A-Z]+/g, (m) => (upper ? m.toUpperCase() : m.toLowerCase()));

function join(l: CelList, sep: string): string {
  const parts: string[] = [];
  for (const x of l) {
    if (typeof x !== 'string') throw new Error(`join: invalid input: ${String(x)}`);
    parts.push(x);
  }
  return parts.join(sep);
}

/** Go's strconv.Quote-like quoting of strings.quote (invalid code points become U+FFFD). */
function quote(s: string): string {
  const esc: Record<string, string> = {
    '\x07': '\\a',
    '\b': '\\b',
    '\f': '\\f',
    '\n': '\\n',
    '\r': '\\r',
    '\t': '\\t',
    '\v': '\\v',
    '\\': '\\\\',
    '"': '\\"',
  };
  const wellFormed = s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
  return `"${[...wellFormed].map((c) => esc[c] ?? c).join('')}"`;
}

// ---- Go's float formatting ----

/** The exact decimal digits of a finite double: digits (no leading zeros) and the decimal point position. */
function exactDigits(x: number): { digits: string; point: number } {
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, Math.abs(x));
  const bits = buf.getBigUint64(0);
  const expBits = Number((bits >> 52n) & 0x7ffn);
  let mant = bits & ((1n << 52n) - 1n);
  let e2: number;
  if (expBits === 0) e2 = -1074;
  else {
    mant |= 1n << 52n;
    e2 = expBits - 1075;
  }
  if (mant === 0n) return { digits: '0', point: 1 };
  // value = mant * 2^e2 = (mant * 5^-e2) / 10^-e2 when e2 < 0
  if (e2 >= 0) {
    const s = (mant << BigInt(e2)).toString();
    return { digits: s, point: s.length };
  }
  const s = (mant * 5n ** BigInt(-e2)).toString();
  return { digits: s, point: s.length + e2 };
}

/** Rounds exact decimal digits to `keep` digits after the point, half to even (Go's strconv). */
function roundDigits(d: { digits: string; point: number }, keepAfterPoint: number): { digits: string; point: number } {
  const n = d.point + keepAfterPoint; // digits to keep
  if (n >= d.digits.length) return d;
  if (n < 0) return { digits: '0', point: 1 };
  const head = d.digits.slice(0, n);
  const rest = d.digits.slice(n);
  const half =
    rest[0] > '5' ||
    (rest[0] === '5' && (/[1-9]/.test(rest.slice(1)) || (head.length > 0 && Number(head[head.length - 1]) % 2 === 1)));
  if (!half) return { digits: head || '0', point: head ? d.point : 1 };
  const up = (BigInt(head || '0') + 1n).toString();
  const padded = head.length ? up.padStart(head.length, '0') : up;
  return { digits: padded, point: d.point + (padded.length - head.length) };
}

/** Go's %.<prec>f of a finite double (no grouping). */
export function goFixed(x: number, prec: number): string {
  const neg = x < 0 || Object.is(x, -0);
  const r = roundDigits(exactDigits(x), prec);
  let int = r.point > 0 ? r.digits.slice(0, r.point).padEnd(r.point, '0') : '0';
  int = int.replace(/^0+(?=\d)/, '');
  let frac = r.point >= 0 ? r.digits.slice(r.point) : '0'.repeat(-r.point) + r.digits;
  frac = frac.padEnd(prec, '0').slice(0, prec);
  const out = prec > 0 ? `${int}.${frac}` : int;
  return neg && /[1-9]/.test(out) ? `-${out}` : out;
}

/** Go's strconv.FormatFloat(x, 'g', -1, 64): the shortest digits, exponent form below 1e-4 or from 1e21... (eprec 6 rule). */
export function goFloatString(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return '+Inf';
  if (x === -Infinity) return '-Inf';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const [m, e] = x.toExponential().split('e');
  const exp = Number(e);
  const digits = m.replace(/^-/, '').replace('.', '');
  const sign = x < 0 ? '-' : '';
  if (
    exp < -4 ||
    exp >= Math.max(digits.length, 21) ||
    (exp >= 6 && exp >= digits.length) ||
    (exp >= 6 && digits.length <= exp)
  ) {
    return `${sign}${digits[0]}${digits.length > 1 ? `.${digits.slice(1)}` : ''}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  if (exp >= 6)
    return `${sign}${digits[0]}${digits.length > 1 ? `.${digits.slice(1)}` : ''}e+${String(exp).padStart(2, '0')}`;
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  const int = digits.slice(0, exp + 1).padEnd(exp + 1, '0');
  const frac = digits.slice(exp + 1);
  return `${sign}${int}${frac ? `.${frac}` : ''}`;
}

const group = (int: string) => int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/** `%.<p>f` as cel-go's formatter prints it for en_US: thousands separators, ∞ for the infinities. */
function fixedEnUS(x: number, prec: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? '∞' : '-∞';
  const s = goFixed(x, prec);
  const neg = s.startsWith('-');
  const [int, frac] = s.replace(/^-/, '').split('.');
  return `${neg ? '-' : ''}${group(int)}${frac !== undefined ? `.${frac}` : ''}`;
}

const SUPER: Record<string, string> = {
  '0': '⁰',
  '1': '¹',
  '2': '²',
  '3': '³',
  '4': '⁴',
  '5': '⁵',
  '6': '⁶',
  '7': '⁷',
  '8': '⁸',
  '9': '⁹',
  '-': '⁻',
};

/** `%e` as cel-go's formatter prints it for en_US (`2.718280×10⁰⁰`; the clause's precision is read as a width of 6). */
function scientificEnUS(x: number): string {
  const pad = (s: string) => s.padStart(6, ' ');
  if (Number.isNaN(x)) return pad('NaN');
  if (!Number.isFinite(x)) return pad(x > 0 ? '∞' : '-∞');
  if (x === 0) return '0.000000×10⁰⁰';
  const d = exactDigits(x);
  let exp = d.point - 1;
  let r = roundDigits({ digits: d.digits, point: 1 }, 6);
  if (r.point > 1) {
    exp += r.point - 1;
    r = { digits: r.digits, point: 1 };
  }
  const mant = `${r.digits[0]}.${r.digits.slice(1).padEnd(6, '0').slice(0, 6)}`;
  const e = `${exp < 0 ? '-' : ''}${String(Math.abs(exp)).padStart(2, '0')}`;
  return `${x < 0 ? '-' : ''}${mant}×10${[...e].map((c) => SUPER[c]).join('')}`;
}

// ---- format ----

const typeName = (v: CelValue): string => {
  if (typeof v === 'bigint') return 'int';
  if (isCelUint(v)) return 'uint';
  if (typeof v === 'number') return 'double';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (v === null) return 'null_type';
  if (v instanceof Uint8Array) return 'bytes';
  if (isCelList(v)) return 'list';
  if (isCelMap(v)) return 'map';
  if (isCelType(v)) return 'type';
  return wkt(v)?.type ?? 'unknown';
};

const fmtError = (msg: string) => new Error(`error during formatting: ${msg}`);

/** Go's %q (strconv.Quote) for the string forms of lists and maps. */
function goQuote(s: string): string {
  return JSON.stringify(s).replace(
    /[\u007f-\u009f\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** A value as `string(x)` gives it (the `%s` clause of scalars). */
export function toStringValue(v: CelValue): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'bigint') return v.toString();
  if (isCelUint(v)) return v.value.toString();
  if (typeof v === 'number') return goFloatString(v);
  if (typeof v === 'boolean') return String(v);
  if (v instanceof Uint8Array) {
    const s = new TextDecoder('utf-8', { fatal: true });
    try {
      return s.decode(v);
    } catch {
      throw new Error('invalid UTF-8 in bytes, cannot convert to string');
    }
  }
  if (isCelType(v)) return v.name;
  const w = wkt(v);
  if (w?.type === 'google.protobuf.Duration') return durationString(w.seconds, w.nanos);
  if (w?.type === 'google.protobuf.Timestamp') return timestampString(w.seconds, w.nanos, timestampOffset(v));
  throw new Error(`no such overload: string(${typeName(v)})`);
}

export function durationString(seconds: bigint, nanos: number): string {
  const neg = seconds < 0n || nanos < 0;
  const s = seconds < 0n ? -seconds : seconds;
  const n = Math.abs(nanos);
  return `${neg ? '-' : ''}${s}${n ? `.${String(n).padStart(9, '0').replace(/0+$/, '')}` : ''}s`;
}

/** RFC 3339 with the fraction's trailing zeros dropped (Go's time.RFC3339Nano), at the given UTC offset (minutes). */
export function timestampString(seconds: bigint, nanos: number, offset = 0): string {
  const base = new Date((Number(seconds) + offset * 60) * 1000).toISOString().slice(0, 19);
  const zone = offset
    ? `${offset < 0 ? '-' : '+'}${String(Math.trunc(Math.abs(offset) / 60)).padStart(2, '0')}:${String(Math.abs(offset) % 60).padStart(2, '0')}`
    : 'Z';
  return `${base}${nanos ? `.${String(nanos).padStart(9, '0').replace(/0+$/, '')}` : ''}${zone}`;
}

/** An element of a list or map in the `%s` form: strings quoted, doubles with 6 decimals. */
function formatMember(v: CelValue): string {
  if (typeof v === 'string') return goQuote(v);
  if (v instanceof Uint8Array) return `b${goQuote(toStringValue(v))}`;
  if (typeof v === 'number') return Number.isFinite(v) ? goFixed(v, 6) : goQuote(goFloatString(v));
  if (isCelList(v) || isCelMap(v)) return formatString(v);
  if (isDuration(v)) return `duration(${goQuote(toStringValue(v))})`;
  if (isTimestamp(v)) return `timestamp(${goQuote(toStringValue(v))})`;
  if (v === null) return 'null';
  if (isCelType(v)) return `type(${v.name})`;
  return toStringValue(v);
}

function formatString(v: CelValue): string {
  if (isCelList(v)) return `[${[...v].map(formatMember).join(', ')}]`;
  if (isCelMap(v)) {
    const entries = [...v.entries()].map(([k, x]) => {
      if (typeof k !== 'string' && typeof k !== 'boolean' && typeof k !== 'bigint' && !isCelUint(k))
        throw fmtError(`no formatting function for map key of type ${typeName(k as CelValue)}`);
      return [typeof k === 'string' ? goQuote(k) : toStringValue(k as CelValue), formatMember(x)];
    });
    entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    return `{${entries.map(([k, x]) => `${k}:${x}`).join(', ')}}`;
  }
  if (v === null) return 'null';
  return toStringValue(v);
}

/** `<string>.format(<list>)` of cel-go's strings extension version 2. */
export function format(fmt: string, args: CelList): string {
  let out = '';
  let arg = 0;
  for (let i = 0; i < fmt.length; i++) {
    const c = fmt[i];
    if (c !== '%') {
      out += c;
      continue;
    }
    if (fmt[i + 1] === '%') {
      out += '%';
      i++;
      continue;
    }
    if (arg >= args.size) throw new Error(`index ${arg} out of range`);
    const v = args.get(arg++);
    if (v === undefined) throw new Error(`index ${arg - 1} out of range`); // never: checked against size above
    let j = i + 1;
    let prec: number | undefined;
    if (fmt[j] === '.') {
      const m = /^\.(\d+)/.exec(fmt.slice(j));
      if (!m)
        throw new Error(
          'could not parse formatting clause: error while parsing precision: could not find end of precision specifier',
        );
      prec = Number(m[1]);
      j += m[0].length;
    }
    const verb = fmt[j];
    if (verb === undefined) throw new Error('unexpected end of string');
    const t = typeName(v);
    const numericString = t === 'string' && (v === 'NaN' || v === 'Infinity' || v === '-Infinity');
    switch (verb) {
      case 's':
        out += formatString(v);
        break;
      case 'd':
        if (t !== 'int' && t !== 'uint') throw fmtError(`decimal clause can only be used on integers, was given ${t}`);
        out += toStringValue(v);
        break;
      case 'f':
        if (t !== 'double' && !numericString)
          throw fmtError(`fixed-point clause can only be used on doubles, was given ${t}`);
        out += fixedEnUS(Number(v), prec ?? 6);
        break;
      case 'e':
        if (t !== 'double' && !numericString)
          throw fmtError(`scientific clause can only be used on doubles, was given ${t}`);
        out += scientificEnUS(Number(v));
        break;
      case 'b':
        if (t === 'bool') out += v ? '1' : '0';
        else if (t === 'int' || t === 'uint') out += (isCelUint(v) ? v.value : (v as bigint)).toString(2);
        else throw fmtError(`only integers and bools can be formatted as binary, was given ${t}`);
        break;
      case 'o':
        if (t !== 'int' && t !== 'uint') throw fmtError(`octal clause can only be used on integers, was given ${t}`);
        out += (isCelUint(v) ? v.value : (v as bigint)).toString(8);
        break;
      case 'x':
      case 'X': {
        let h: string;
        if (t === 'int' || t === 'uint') {
          const n = isCelUint(v) ? v.value : (v as bigint);
          h = n < 0n ? `-${(-n).toString(16)}` : n.toString(16);
        } else if (t === 'string') h = Buffer.from(v as string, 'utf8').toString('hex');
        else if (t === 'bytes') h = Buffer.from(v as Uint8Array).toString('hex');
        else throw fmtError(`only integers, byte buffers, and strings can be formatted as hex, was given ${t}`);
        out += verb === 'X' ? h.toUpperCase() : h;
        break;
      }
      default:
        throw new Error(`could not parse formatting clause: unrecognized formatting clause "${verb}"`);
    }
    i = j;
  }
  return out;
}

/** The functions, replacing @bufbuild/cel's own strings extension and `string(x)` conversions. */
export const STRINGS_V2: CelFunc[] = [
  celMethod('charAt', STRING, [INT], STRING, function (i) {
    return charAt(this, i);
  }),
  celMethod('indexOf', STRING, [STRING], INT, function (sub) {
    return indexOf(this, sub, 0n);
  }),
  celMethod('indexOf', STRING, [STRING, INT], INT, function (sub, off) {
    return indexOf(this, sub, off);
  }),
  celMethod('lastIndexOf', STRING, [STRING], INT, function (sub) {
    return lastIndexOf(this, sub);
  }),
  celMethod('lastIndexOf', STRING, [STRING, INT], INT, function (sub, off) {
    return lastIndexOf(this, sub, off);
  }),
  celMethod('lowerAscii', STRING, [], STRING, function () {
    return asciiCase(this, false);
  }),
  celMethod('upperAscii', STRING, [], STRING, function () {
    return asciiCase(this, true);
  }),
  celMethod('replace', STRING, [STRING, STRING], STRING, function (old, repl) {
    return replace(this, old, repl, -1n);
  }),
  celMethod('replace', STRING, [STRING, STRING, INT], STRING, function (old, repl, n) {
    return replace(this, old, repl, n);
  }),
  celMethod('split', STRING, [STRING], LIST_STRING, function (sep) {
    return splitN(this, sep, -1n) as never;
  }),
  celMethod('split', STRING, [STRING, INT], LIST_STRING, function (sep, n) {
    return splitN(this, sep, n) as never;
  }),
  celMethod('substring', STRING, [INT], STRING, function (start) {
    return substring(this, start);
  }),
  celMethod('substring', STRING, [INT, INT], STRING, function (start, end) {
    return substring(this, start, end);
  }),
  celMethod('trim', STRING, [], STRING, function () {
    return this.replace(SPACE, '');
  }),
  celMethod('join', LIST_DYN, [], STRING, function () {
    return join(this, '');
  }),
  celMethod('join', LIST_DYN, [STRING], STRING, function (sep) {
    return join(this, sep);
  }),
  celMethod('format', STRING, [LIST_DYN], STRING, function (args) {
    return format(this, args);
  }),
  celFunc('strings.quote', [STRING], STRING, quote),
  celFunc('string', [CelScalar.DOUBLE], STRING, (x) => goFloatString(x)),
  celFunc('string', [CelScalar.BYTES], STRING, (x) => toStringValue(x)),
  celFunc('string', [objectType('google.protobuf.Timestamp')], STRING, (x) => toStringValue(x as CelValue)),
  celFunc('string', [objectType('google.protobuf.Duration')], STRING, (x) => toStringValue(x as CelValue)),
];
