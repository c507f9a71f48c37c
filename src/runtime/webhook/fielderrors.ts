/**
 * Field errors (apimachinery's `k8s.io/apimachinery/pkg/util/validation/field`): what a validator
 * throws to deny a request with one cause per offending field. The admission server turns a
 * thrown {@link FieldErrors} into a `Status` whose message and `details.causes` read exactly as
 * the API server's own validation errors do (`Widget.example.com "w" is invalid: spec.size:
 * Invalid value: 3: must be even`).
 */

/** The cause types of apimachinery (`metav1.CauseType`), as they appear in `details.causes[].reason`. */
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

/** A value as apimachinery prints it: numbers and booleans bare, strings quoted, the rest as JSON. */
function printValue(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (typeof v === 'string') return JSON.stringify(v);
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

/**
 * The message of one error without its field: `Invalid value: 3: must be even`,
 * `Required value`, `Unsupported value: "x": supported values: "a", "b"`.
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

const OMIT = Symbol('omitted value');

/** A bad value the message leaves out (apimachinery's field.OmitValueType), for errors built by hand. */
export const OMITTED_VALUE: unknown = OMIT;

/** Constructors with apimachinery's names and wording. They never throw. */
export const field = {
  /** A required field is missing: `Required value[: detail]`. */
  required(path: string, detail?: string): FieldError {
    return { type: 'FieldValueRequired', field: path, ...(detail ? { detail } : {}) };
  },
  /** A value is malformed or out of range: `Invalid value: <value>: <detail>`. */
  invalid(path: string, value: unknown, detail: string): FieldError {
    return { type: 'FieldValueInvalid', field: path, badValue: value, detail };
  },
  /** A value is not one of an enumeration: `Unsupported value: "x": supported values: "a", "b"`. */
  notSupported(path: string, value: unknown, valid: string[]): FieldError {
    const detail = valid.length ? `supported values: ${valid.map((v) => JSON.stringify(v)).join(', ')}` : undefined;
    return { type: 'FieldValueNotSupported', field: path, badValue: value, ...(detail ? { detail } : {}) };
  },
  /** The field may not be set (here, or by this user): `Forbidden: <detail>`. */
  forbidden(path: string, detail: string): FieldError {
    return { type: 'FieldValueForbidden', field: path, detail };
  },
  /** A value that must be unique appears twice: `Duplicate value: <value>`. */
  duplicate(path: string, value: unknown): FieldError {
    return { type: 'FieldValueDuplicate', field: path, badValue: value };
  },
  /** A string is longer than allowed: `Too long: may not be more than <max> bytes` (the value is not shown). */
  tooLong(path: string, value: unknown, max: number): FieldError {
    const detail = max >= 0 ? `may not be more than ${max} ${max === 1 ? 'byte' : 'bytes'}` : 'value is too long';
    return { type: 'FieldValueTooLong', field: path, badValue: value, detail };
  },
  /** A list has too many items: `Too many: <actual>: must have at most <max> items`. */
  tooMany(path: string, actual: number, max: number): FieldError {
    const detail = max >= 0 ? `must have at most ${max} ${max === 1 ? 'item' : 'items'}` : 'has too many items';
    return { type: 'FieldValueTooMany', field: path, badValue: actual >= 0 ? actual : OMIT, detail };
  },
  /** A referenced thing does not exist: `Not found: <value>`. */
  notFound(path: string, value: unknown): FieldError {
    return { type: 'FieldValueNotFound', field: path, badValue: value };
  },
};

/** apimachinery's aggregate: one error as is, several as `[a, b]`. */
function aggregate(errors: FieldError[]): string {
  const parts = errors.map(fieldErrorString);
  return parts.length === 1 ? parts[0] : `[${parts.join(', ')}]`;
}

/**
 * Throw from a validator (or defaulter) to deny the request with one cause per field. The
 * admission response gets `status.code` 422, reason `Invalid` (Go's `apierrors.NewInvalid`), `details.causes` (reason, message,
 * field) and the message `<Kind>[.<group>] "<name>" is invalid: <errors>`; kind, group and name
 * default to the request's when not given here. `warnings` are returned with the denial.
 */
export class FieldErrors extends Error {
  readonly errors: FieldError[];
  readonly warnings: string[];
  readonly kind?: string;
  readonly group?: string;
  readonly objectName?: string;

  constructor(
    errors: FieldError[],
    options: { kind?: string; group?: string; name?: string; warnings?: string[] } = {},
  ) {
    const list = [...(errors ?? [])];
    super(FieldErrors.format(list, options.kind, options.group, options.name));
    this.name = 'FieldErrors';
    this.errors = list;
    this.warnings = [...(options.warnings ?? [])];
    this.kind = options.kind;
    this.group = options.group;
    this.objectName = options.name;
  }

  /**
   * The apimachinery message: `Kind.group "name" is invalid: [a, b]`; without a kind only the
   * errors (`spec.a: Required value`).
   */
  static format(errors: FieldError[], kind?: string, group?: string, name?: string): string {
    const body = errors.length ? aggregate(errors) : 'invalid';
    if (!kind) return body;
    const qualified = group ? `${kind}.${group}` : kind;
    return `${qualified} ${JSON.stringify(name ?? '')} is invalid: ${body}`;
  }

  /** The `details.causes` of the Status: `{ reason, message, field }` per error. */
  causes(): { reason: FieldErrorType; message: string; field: string }[] {
    return this.errors.map((e) => ({ reason: e.type, message: fieldErrorBody(e), field: e.field }));
  }
}
