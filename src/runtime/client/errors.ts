/**
 * Typed API errors, after apimachinery's `k8s.io/apimachinery/pkg/api/errors`: every failed API
 * call rejects with a `StatusError` (or a subclass picked from the HTTP code and Status reason),
 * so callers can write `if (isNotFound(err)) return;`.
 */

/** The `Status` object the API server returns with a failure. */
export interface Status {
  kind?: 'Status';
  apiVersion?: string;
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    causes?: { reason?: string; message?: string; field?: string }[];
    retryAfterSeconds?: number;
  };
}

/**
 * Any non-2xx answer from the API server. `code` is the HTTP status, `reason` the Status reason
 * (`NotFound`, `Conflict`, `AlreadyExists`, `Invalid`, `Forbidden`, ...), `status` the full body.
 */
export class StatusError extends Error {
  readonly code: number;
  readonly reason: string;
  readonly status: Status;
  constructor(code: number, status: Status, what?: string) {
    const reason = status.reason || reasonForCode(code);
    super(`${what ? `${what}: ` : ''}${status.message || `HTTP ${code} ${reason}`}`);
    this.name = 'StatusError';
    this.code = code;
    this.reason = reason;
    this.status = status;
  }
}

/** 404 NotFound: the object (or its kind) does not exist. */
export class NotFoundError extends StatusError {
  constructor(code: number, status: Status, what?: string) {
    super(code, status, what);
    this.name = 'NotFoundError';
  }
}

/** 409 Conflict: the object changed since it was read (stale resourceVersion); re-read and retry. */
export class ConflictError extends StatusError {
  constructor(code: number, status: Status, what?: string) {
    super(code, status, what);
    this.name = 'ConflictError';
  }
}

/** 409 AlreadyExists: create of a name that is taken. */
export class AlreadyExistsError extends StatusError {
  constructor(code: number, status: Status, what?: string) {
    super(code, status, what);
    this.name = 'AlreadyExistsError';
  }
}

/**
 * The API server does not serve a kind: discovery does not know its group/version or kind, or a
 * list of its resource path answered 404 (a class whose `static gvk` / `plural` do not match its
 * CRD, or a CRD that is not installed). A NotFoundError, so `isNotFound` is true as well;
 * `isNoKindMatch` tells it apart from a missing object.
 */
export class NoKindMatchError extends NotFoundError {
  constructor(message: string) {
    super(404, { kind: 'Status', status: 'Failure', reason: 'NotFound', code: 404, message });
    this.name = 'NoKindMatchError';
  }
}

/** True when the kind itself is not served (see NoKindMatchError), not just one object missing. */
export function isNoKindMatch(err: unknown): err is NoKindMatchError {
  return err instanceof NoKindMatchError;
}

function reasonForCode(code: number): string {
  switch (code) {
    case 400:
      return 'BadRequest';
    case 401:
      return 'Unauthorized';
    case 403:
      return 'Forbidden';
    case 404:
      return 'NotFound';
    case 405:
      return 'MethodNotAllowed';
    case 409:
      return 'Conflict';
    case 410:
      return 'Expired';
    case 415:
      return 'UnsupportedMediaType';
    case 422:
      return 'Invalid';
    case 429:
      return 'TooManyRequests';
    case 500:
      return 'InternalError';
    case 503:
      return 'ServiceUnavailable';
    case 504:
      return 'Timeout';
    default:
      return 'Unknown';
  }
}

/** Builds the right StatusError subclass for an HTTP code and (possibly empty) body. */
export function statusErrorFrom(code: number, body: unknown, what?: string): StatusError {
  const status: Status =
    body && typeof body === 'object' && (body as Status).kind === 'Status'
      ? (body as Status)
      : { code, message: typeof body === 'string' && body ? body.slice(0, 500) : undefined };
  if (code === 404) return new NotFoundError(code, status, what);
  if (code === 409)
    return status.reason === 'AlreadyExists'
      ? new AlreadyExistsError(code, status, what)
      : new ConflictError(code, status, what);
  return new StatusError(code, status, what);
}

/** The Status reason of an error thrown by the client ('' if it is not an API error). */
export function reasonOf(err: unknown): string {
  return err instanceof StatusError ? err.reason : '';
}
/** True for 404 NotFound. */
export function isNotFound(err: unknown): err is StatusError {
  return err instanceof StatusError && err.code === 404;
}
/** True for 409 Conflict (stale resourceVersion), false for AlreadyExists. */
export function isConflict(err: unknown): err is StatusError {
  return err instanceof StatusError && err.code === 409 && err.reason !== 'AlreadyExists';
}
/** True for 409 AlreadyExists. */
export function isAlreadyExists(err: unknown): err is StatusError {
  return err instanceof StatusError && err.reason === 'AlreadyExists';
}
/** True for 422 Invalid (schema or validation failure). */
export function isInvalid(err: unknown): err is StatusError {
  return err instanceof StatusError && (err.code === 422 || err.reason === 'Invalid');
}
/** True for 400 BadRequest (a body the server cannot decode, or a field refused under fieldValidation Strict). */
export function isBadRequest(err: unknown): err is StatusError {
  return err instanceof StatusError && (err.code === 400 || err.reason === 'BadRequest');
}
/** True for 403 Forbidden. */
export function isForbidden(err: unknown): err is StatusError {
  return err instanceof StatusError && err.code === 403;
}
/** True for 410 Gone / Expired (e.g. a watch resourceVersion too old). */
export function isGone(err: unknown): err is StatusError {
  return err instanceof StatusError && (err.code === 410 || err.reason === 'Expired' || err.reason === 'Gone');
}
/** Like apimachinery's IgnoreNotFound: returns undefined for NotFound, the error otherwise. */
export function ignoreNotFound(err: unknown): unknown {
  return isNotFound(err) ? undefined : err;
}
