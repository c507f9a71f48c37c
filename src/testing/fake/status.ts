/**
 * Refusals of the fake API server, worded as apimachinery's `apierrors` constructors word them
 * (NewNotFound, NewAlreadyExists, NewConflict, NewInvalid, NewForbidden, NewBadRequest...).
 */
import type { Resource } from './resources.js';
import { errorBody, errorString, type FieldErr } from '../../apiserver/structural.js';

export interface Cause {
  reason?: string;
  message?: string;
  field?: string;
}

/** A non-2xx answer: the HTTP code and the metav1.Status body. */
export class ApiStatus extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: { name?: string; group?: string; kind?: string; causes?: Cause[] },
  ) {
    super(message);
  }

  body(): Record<string, unknown> {
    const b: Record<string, unknown> = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
    };
    // An error that is no API error (a Go error the server passes on) has no reason.
    if (this.reason) b.reason = this.reason;
    if (this.details) b.details = this.details;
    b.code = this.code;
    return b;
  }
}

type Named = Pick<Resource, 'group' | 'plural' | 'kind'>;

const qualified = (r: Named) => (r.group ? `${r.plural}.${r.group}` : r.plural);

export function notFound(r: Named, name: string): ApiStatus {
  return new ApiStatus(404, 'NotFound', `${qualified(r)} "${name}" not found`, {
    name,
    group: r.group || undefined,
    kind: r.plural,
  });
}

export function alreadyExists(r: Named, name: string): ApiStatus {
  return new ApiStatus(409, 'AlreadyExists', `${qualified(r)} "${name}" already exists`, {
    name,
    group: r.group || undefined,
    kind: r.plural,
  });
}

/** `group` overrides the resource's (the delete preconditions name the Kind as resource). */
export function conflict(r: Named, name: string, why: string, group = r.group): ApiStatus {
  const q = group ? `${r.plural}.${group}` : r.plural;
  return new ApiStatus(409, 'Conflict', `Operation cannot be fulfilled on ${q} "${name}": ${why}`, {
    name,
    group: group || undefined,
    kind: r.plural,
  });
}

export function invalid(r: Pick<Resource, 'group' | 'kind'>, name: string, errs: FieldErr[]): ApiStatus {
  const qk = r.group ? `${r.kind}.${r.group}` : r.kind;
  // field.ErrorList.ToAggregate: the message names each distinct error once; the causes keep them all.
  const list = [...new Set(errs.map(errorString))];
  const message = `${qk} "${name}" is invalid: ${list.length === 1 ? list[0] : `[${list.join(', ')}]`}`;
  return new ApiStatus(422, 'Invalid', message, {
    name: name || undefined,
    group: r.group || undefined,
    kind: r.kind,
    causes: errs.map((e) => ({ reason: e.type, message: errorBody(e), field: e.field })),
  });
}

export function forbidden(r: Named, name: string, why: string, o: { cause?: Cause } = {}): ApiStatus {
  return new ApiStatus(403, 'Forbidden', `${qualified(r)} "${name}" is forbidden: ${why}`, {
    name,
    group: r.group || undefined,
    kind: r.plural,
    ...(o.cause ? { causes: [o.cause] } : {}),
  });
}

export function badRequest(message: string): ApiStatus {
  return new ApiStatus(400, 'BadRequest', message);
}

export function unsupportedMediaType(type: string): ApiStatus {
  void type;
  return new ApiStatus(
    415,
    'UnsupportedMediaType',
    'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
  );
}

export function methodNotAllowed(): ApiStatus {
  return new ApiStatus(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
}
