/**
 * Field errors (apimachinery's `k8s.io/apimachinery/pkg/util/validation/field`): what a validator
 * throws to deny a request with one cause per offending field. Build them with `field.required`,
 * `field.invalid`, ... on a path (`field.newPath('spec', 'ports').index(0)` or its text), or take
 * them from the validation helpers (`isDNS1123Label`, `validateLabels`, ...). The admission server turns a
 * thrown {@link FieldErrors} into a `Status` whose message and `details.causes` read exactly as
 * the API server's own validation errors do (`Widget.example.com "w" is invalid: spec.size:
 * Invalid value: 3: must be even`).
 */

import { type FieldError, aggregateString, fieldErrorBody } from '../../util/apimachinery/field.js';
import type { FieldErrorType } from '../../util/apimachinery/field.js';

// One implementation of apimachinery's field errors (src/util/apimachinery/field.ts): the
// constructors, the path, and the text as Go prints it.
export {
  type ErrorList,
  type FieldError,
  type FieldErrorType,
  type PathLike,
  Path,
  field,
  fieldErrorBody,
  fieldErrorString,
  aggregateString,
  OMITTED_VALUE,
} from '../../util/apimachinery/field.js';

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
    const body = aggregateString(errors) ?? 'invalid';
    if (!kind) return body;
    const qualified = group ? `${kind}.${group}` : kind;
    return `${qualified} ${JSON.stringify(name ?? '')} is invalid: ${body}`;
  }

  /** The `details.causes` of the Status: `{ reason, message, field }` per error. */
  causes(): { reason: FieldErrorType; message: string; field: string }[] {
    return this.errors.map((e) => ({ reason: e.type, message: fieldErrorBody(e), field: e.field }));
  }
}
