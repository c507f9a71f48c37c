/**
 * apimachinery's field errors (`k8s.io/apimachinery/pkg/util/validation/field`): a path, one
 * error per offending field, and their text exactly as Go prints them (`spec.ports[0].name:
 * Invalid value: "x": must be ...`). The one implementation: kubeforge/runtime's webhook
 * `field` and `FieldErrors`, its label selectors and the validation helpers all print through
 * it. Imports nothing.
 */

/** The cause types of apimachinery (`field.ErrorType`), as they appear in `details.causes[].reason`. */
export type FieldErrorType =
  | 'FieldValueRequired'
  | 'FieldValueInvalid'
  | 'FieldValueTypeInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueDuplicate'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'FieldValueNotFound';

/** One problem with one field. `field` is the path (`spec.replicas`, `spec.ports[0].name`). */
export interface FieldError {
  type: FieldErrorType;
  field: string;
  /** The offending value; absent when the message should not show one. */
  badValue?: unknown;
  detail?: string;
}

/** apimachinery's `field.ErrorList`: what a validation function returns (empty: valid). */
export type ErrorList = FieldError[];

/**
 * A field path (apimachinery's `*field.Path`): `newPath('spec').child('ports').index(0).key('k')`
 * prints `spec.ports[0][k]`. Immutable: each step returns a new path.
 */
export class Path {
  private constructor(
    private readonly name: string,
    private readonly subscript: string | undefined,
    private readonly parent: Path | undefined,
  ) {}

  /** `field.NewPath(name, moreNames...)`. */
  static of(name: string, ...moreNames: string[]): Path {
    let p = new Path(name, undefined, undefined);
    for (const n of moreNames) p = new Path(n, undefined, p);
    return p;
  }

  /** A field under this one (`.name`), more names for deeper fields. */
  child(name: string, ...moreNames: string[]): Path {
    let p = new Path(name, undefined, this);
    for (const n of moreNames) p = new Path(n, undefined, p);
    return p;
  }

  /** A list item (`[i]`). */
  index(i: number): Path {
    return new Path('', String(i), this);
  }

  /** A map entry (`[key]`, the key unquoted, as Go prints it). */
  key(key: string): Path {
    return new Path('', key, this);
  }

  /** The root of this path. */
  root(): Path {
    let p: Path = this;
    while (p.parent) p = p.parent;
    return p;
  }

  /** `spec.ports[0].name`. */
  toString(): string {
    const elems: Path[] = [];
    for (let p: Path | undefined = this; p; p = p.parent) elems.push(p);
    let out = '';
    for (let i = elems.length - 1; i >= 0; i--) {
      const p = elems[i];
      if (p.parent && p.name.length > 0) out += '.';
      out += p.name.length > 0 ? p.name : `[${p.subscript}]`;
    }
    return out;
  }
}

/** `field.NewPath(name, moreNames...)`. */
export function newPath(name: string, ...moreNames: string[]): Path {
  return Path.of(name, ...moreNames);
}

/** A path given as a Path or as its printed text; Go's nil path prints `<nil>`. */
export type PathLike = Path | string;
const pathText = (p: PathLike | undefined | null): string => (p === undefined || p === null ? '<nil>' : String(p));

/** The human text of each type, as apimachinery prints it. */
const TYPE_TEXT: Record<FieldErrorType, string> = {
  FieldValueRequired: 'Required value',
  FieldValueInvalid: 'Invalid value',
  FieldValueTypeInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  FieldValueNotFound: 'Not found',
};

/** Types whose message never shows the value (apimachinery omits it for these). */
const NO_VALUE = new Set<FieldErrorType>(['FieldValueRequired', 'FieldValueForbidden', 'FieldValueTooLong']);

const OMIT = Symbol('omitted value');

/** A bad value the message leaves out (apimachinery's field.OmitValueType), for errors built by hand. */
export const OMITTED_VALUE: unknown = OMIT;

/** Go's strconv.IsPrint for one code point (the Unicode classes L, M, N, P, S and the ASCII space). */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** A string as Go's `%q` / strconv.Quote prints it. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0) ?? 0; // ch is one code point, never empty
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (c < 0x80 && c >= 0x20 && c !== 0x7f) out += ch;
    else if (c === 0x07) out += '\\a';
    else if (c === 0x08) out += '\\b';
    else if (c === 0x0c) out += '\\f';
    else if (c === 0x0a) out += '\\n';
    else if (c === 0x0d) out += '\\r';
    else if (c === 0x09) out += '\\t';
    else if (c === 0x0b) out += '\\v';
    else if (c >= 0xd800 && c <= 0xdfff) out += '\\ufffd';
    else if (c >= 0x80 && PRINTABLE.test(ch)) out += ch;
    else if (c < 0x80) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else if (c <= 0xffff) out += `\\u${c.toString(16).padStart(4, '0')}`;
    else out += `\\U${c.toString(16).padStart(8, '0')}`;
  }
  return `${out}"`;
}

/**
 * A value whose JSON text is given as Go wrote it: a Go struct's fields come in their declared
 * order, which a plain object cannot tell from a map's (whose keys goJSON sorts).
 */
export class GoStructJSON {
  constructor(readonly text: string) {}
}

/**
 * JSON as Go's encoding/json writes an unstructured value: object keys sorted in byte order (a Go
 * map's are; JSON.stringify would put integer-like keys first), `<`, `>`, `&`, U+2028 and U+2029
 * escaped. Values with a toJSON (Dates, boxed strings) are written as it returns.
 */
export function goJSON(v: unknown): string | undefined {
  const write = (x: unknown): string | undefined => {
    if (x instanceof GoStructJSON) return x.text;
    if (x !== null && typeof x === 'object' && typeof (x as { toJSON?: unknown }).toJSON === 'function')
      x = (x as { toJSON(): unknown }).toJSON();
    if (x instanceof String || x instanceof Number || x instanceof Boolean) x = x.valueOf();
    if (x === null || typeof x !== 'object') return JSON.stringify(x);
    if (Array.isArray(x)) return `[${x.map((e) => write(e) ?? 'null').join(',')}]`;
    const o = x as Record<string, unknown>;
    const parts: string[] = [];
    for (const k of Object.keys(o).sort(compareCodePoints)) {
      const w = write(o[k]);
      if (w !== undefined) parts.push(`${JSON.stringify(k)}:${w}`);
    }
    return `{${parts.join(',')}}`;
  };
  return write(v)?.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * A number as Go's `%v` prints an int64 (an integer) or a float64 (shortest digits, with an
 * exponent of at least two digits below 1e-4 and from 1e6 on: `1.5e+06`, `2.5e-05`).
 */
function goNumber(n: number): string {
  if (Number.isInteger(n)) return Math.abs(n) < 1e21 ? BigInt(n).toString() : String(n);
  if (!Number.isFinite(n)) return Number.isNaN(n) ? 'NaN' : n > 0 ? '+Inf' : '-Inf';
  const [mantissa, e] = n.toExponential().split('e');
  const x = Number(e);
  if (x < -4 || x >= 6) return `${mantissa}e${x < 0 ? '-' : '+'}${String(Math.abs(x)).padStart(2, '0')}`;
  return String(n);
}

/** UTF-8 byte order (code point order), as Go sorts map keys. */
function compareCodePoints(a: string, b: string): number {
  const x = [...a].map((c) => c.codePointAt(0) ?? 0);
  const y = [...b].map((c) => c.codePointAt(0) ?? 0);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
}

/** A value as apimachinery prints it: numbers and booleans bare, strings quoted (`%q`), the rest as JSON. */
function printValue(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'number') return goNumber(v);
  if (typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (typeof v === 'string') return goQuote(v);
  try {
    return goJSON(v) ?? String(v);
  } catch {
    return String(v);
  }
}

/**
 * The message of one error without its field (Go's `ErrorBody()`): `Invalid value: 3: must be
 * even`, `Required value`, `Unsupported value: "x": supported values: "a", "b"`.
 */
export function fieldErrorBody(e: FieldError): string {
  let s = TYPE_TEXT[e.type] ?? String(e.type);
  if (!NO_VALUE.has(e.type) && 'badValue' in e && e.badValue !== OMIT) s += `: ${printValue(e.badValue)}`;
  if (e.detail) s += `: ${e.detail}`;
  return s;
}

/** `spec.a: Invalid value: 3: must be even` (apimachinery's `Error.Error()`). */
export function fieldErrorString(e: FieldError): string {
  return `${e.field}: ${fieldErrorBody(e)}`;
}

/**
 * apimachinery's `ErrorList.ToAggregate().Error()`: one error as is, several as `[a, b]`, a
 * message that repeats an earlier one left out; undefined for an empty list.
 */
export function aggregateString(errors: readonly FieldError[]): string | undefined {
  const seen = new Set<string>();
  const parts: string[] = [];
  for (const e of errors) {
    const m = fieldErrorString(e);
    if (seen.has(m)) continue;
    seen.add(m);
    parts.push(m);
  }
  if (!parts.length) return undefined;
  return parts.length === 1 ? parts[0] : `[${parts.join(', ')}]`;
}

/**
 * Constructors with apimachinery's names and wording (`field.Required`, `field.Invalid`, ...).
 * A path is a {@link Path} (`field.newPath('spec', 'size')`) or its text. They never throw.
 */
export const field = {
  /** `field.NewPath`: `field.newPath('spec').child('ports').index(0)`. */
  newPath(name: string, ...moreNames: string[]): Path {
    return Path.of(name, ...moreNames);
  },
  /** A required field is missing: `Required value[: detail]`. */
  required(path: PathLike, detail?: string): FieldError {
    return { type: 'FieldValueRequired', field: pathText(path), ...(detail ? { detail } : {}) };
  },
  /** A value is malformed or out of range: `Invalid value: <value>: <detail>`. */
  invalid(path: PathLike, value: unknown, detail: string): FieldError {
    return { type: 'FieldValueInvalid', field: pathText(path), badValue: value, detail };
  },
  /** A value of the wrong type: `Invalid value: <value>: <detail>` (reason FieldValueTypeInvalid). */
  typeInvalid(path: PathLike, value: unknown, detail: string): FieldError {
    return { type: 'FieldValueTypeInvalid', field: pathText(path), badValue: value, detail };
  },
  /** A value is not one of an enumeration: `Unsupported value: "x": supported values: "a", "b"`. */
  notSupported(path: PathLike, value: unknown, valid: readonly string[]): FieldError {
    const detail = valid.length ? `supported values: ${valid.map((v) => goQuote(v)).join(', ')}` : undefined;
    return { type: 'FieldValueNotSupported', field: pathText(path), badValue: value, ...(detail ? { detail } : {}) };
  },
  /** The field may not be set (here, or by this user): `Forbidden: <detail>`. */
  forbidden(path: PathLike, detail: string): FieldError {
    return { type: 'FieldValueForbidden', field: pathText(path), detail };
  },
  /** A value that must be unique appears twice: `Duplicate value: <value>`. */
  duplicate(path: PathLike, value: unknown): FieldError {
    return { type: 'FieldValueDuplicate', field: pathText(path), badValue: value };
  },
  /** A string is longer than allowed: `Too long: may not be more than <max> bytes` (the value is not shown). */
  tooLong(path: PathLike, value: unknown, max: number): FieldError {
    const detail = max >= 0 ? `may not be more than ${max} ${max === 1 ? 'byte' : 'bytes'}` : 'value is too long';
    return { type: 'FieldValueTooLong', field: pathText(path), badValue: value, detail };
  },
  /** A list has too many items: `Too many: <actual>: must have at most <max> items`. */
  tooMany(path: PathLike, actual: number, max: number): FieldError {
    const detail = max >= 0 ? `must have at most ${max} ${max === 1 ? 'item' : 'items'}` : 'has too many items';
    return { type: 'FieldValueTooMany', field: pathText(path), badValue: actual >= 0 ? actual : OMIT, detail };
  },
  /** A referenced thing does not exist: `Not found: <value>`. */
  notFound(path: PathLike, value: unknown): FieldError {
    return { type: 'FieldValueNotFound', field: pathText(path), badValue: value };
  },
};
