/**
 * Admission webhooks (controller-runtime's pkg/webhook/admission): an `admission.k8s.io/v1` (or
 * `v1beta1`) AdmissionReview in, one of the same version out. A defaulter mutates a copy of the object and the
 * answer is the RFC 6902 JSON Patch from the object as sent to the object as defaulted; a
 * validator allows by returning (optionally with warnings) and denies by throwing.
 */
import { requireFastJsonPatch } from '../client/lazy-require.cjs';
import type { Logger } from 'pino';
import type { GroupVersionKind } from '../contracts.js';
import { StatusError } from '../client/errors.js';
import type { JSONPatchOperation } from '../client/patch.js';
import { reviveDates, toWireJSON } from '../client/dates.js';
import { FieldErrors } from './fielderrors.js';
import {
  describeThrown,
  isCrash,
  WebhookHttpError,
  type WebhookHandler,
  type WebhookHandlerContext,
} from './handler.js';
import { isJSONObject as isObject } from '../client/types.js';

/** One admission request, as the API server sends it (`AdmissionReview.request`). */
export interface AdmissionRequest<T = unknown> {
  /** Identifies this call; echoed in the response. */
  uid: string;
  /** The kind of `object` (as converted for this webhook's matchPolicy). */
  kind: GroupVersionKind;
  resource: { group: string; version: string; resource: string };
  subResource?: string;
  /** The kind of the original request (differs from `kind` after an equivalent-version conversion). */
  requestKind?: GroupVersionKind;
  name?: string;
  namespace?: string;
  operation: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  userInfo: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  /** The new object (CREATE, UPDATE); absent for DELETE. */
  object?: T;
  /** The existing object (UPDATE) or the object being deleted (DELETE). */
  oldObject?: T;
  /** The request will not be persisted: webhooks must have no side effects then. */
  dryRun: boolean;
  /** CreateOptions / UpdateOptions / DeleteOptions of the request. */
  options?: unknown;
}

/** What defaulters and validators get besides the object(s). */
export interface AdmissionContext {
  /** The whole request (treat as read-only). */
  request: AdmissionRequest;
  /** Same as `request.dryRun`. */
  dryRun: boolean;
  /** pino child with webhook, uid, namespace, name. */
  logger: Logger;
  /** Aborted on timeout / shutdown / client gone. */
  signal: AbortSignal;
}

/** Warnings shown to the client (kubectl prints them), returned on allow and deny alike. */
export type Warnings = string[];

/**
 * Sets defaults on an object (controller-runtime's admission.CustomDefaulter). Mutate `obj` in
 * place. Throwing (or rejecting) denies the request as a validator's throw does. Not called for
 * DELETE and CONNECT (the request is allowed unchanged).
 */
export interface CustomDefaulter<T> {
  default(obj: T, ctx: AdmissionContext): void | Promise<void>;
}

/**
 * Validates an object (controller-runtime's admission.CustomValidator). Return (optionally with
 * warnings) to allow; throw to deny: a {@link FieldErrors} gives 422 Invalid with field causes (as
 * Go's `apierrors.NewInvalid`), any other Error 403 Forbidden with its message (as Go's plain
 * error; use it for authorisation-like refusals). CONNECT requests are allowed without a call.
 */
export interface CustomValidator<T> {
  validateCreate(obj: T, ctx: AdmissionContext): Warnings | void | Promise<Warnings | void>;
  validateUpdate(oldObj: T, newObj: T, ctx: AdmissionContext): Warnings | void | Promise<Warnings | void>;
  /** Gets the object being deleted (the API server sends it as `oldObject`). */
  validateDelete(obj: T, ctx: AdmissionContext): Warnings | void | Promise<Warnings | void>;
}

/** The `status` of a response (a metav1.Status). */
export interface AdmissionStatus {
  /** 'Success' or 'Failure' when set. */
  status?: string;
  code?: number;
  reason?: string;
  message?: string;
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    causes?: { reason?: string; message?: string; field?: string }[];
  };
}

/** `AdmissionReview.response`. */
export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: AdmissionStatus;
  /** base64 of the JSON Patch. */
  patch?: string;
  patchType?: 'JSONPatch';
  warnings?: string[];
  auditAnnotations?: Record<string, string>;
}

/** What an {@link AdmissionHandler} returns: a response without the uid (the webhook sets it). */
export type AdmissionResult = Omit<AdmissionResponse, 'uid'>;

/**
 * A handler of decoded admission requests (controller-runtime's admission.Handler). Throws are
 * turned into denials by {@link AdmissionWebhook} (see there).
 */
export interface AdmissionHandler {
  handle(request: AdmissionRequest, ctx: AdmissionContext): AdmissionResult | Promise<AdmissionResult>;
}

const OPERATIONS = new Set(['CREATE', 'UPDATE', 'DELETE', 'CONNECT']);

/** The AdmissionReview versions served (the API server sends the first of the webhook's admissionReviewVersions it speaks). */
export const ADMISSION_VERSIONS: ReadonlySet<string> = new Set(['admission.k8s.io/v1', 'admission.k8s.io/v1beta1']);

/** An `Errored` result (controller-runtime): not allowed, with an HTTP-like code and a message. */
export function errored(code: number, message: string): AdmissionResult {
  return { allowed: false, status: { code, message } };
}

/** A `Denied` result: not allowed, 403 Forbidden with the message. */
export function denied(message: string, warnings?: string[]): AdmissionResult {
  const r: AdmissionResult = { allowed: false, status: { code: 403, reason: 'Forbidden', message } };
  if (warnings?.length) r.warnings = warnings;
  return r;
}

function warningsOf(v: unknown): string[] | undefined {
  if (typeof v === 'string') return [v];
  if (!Array.isArray(v)) return undefined;
  const w = v.filter((x): x is string => typeof x === 'string');
  return w.length ? w : undefined;
}

/** The denial for a throw from user code (see {@link AdmissionWebhook}). */
function denialFor(e: unknown, req: AdmissionRequest, ctx: WebhookHandlerContext): AdmissionResult {
  if (e instanceof FieldErrors) {
    const obj = (req.object ?? req.oldObject) as { metadata?: { name?: unknown } } | undefined;
    const kind = e.kind ?? req.kind?.kind;
    const group = e.group ?? req.kind?.group;
    const name = e.objectName ?? (req.name || (typeof obj?.metadata?.name === 'string' ? obj.metadata.name : ''));
    // controller-runtime answers a validator's apierrors.NewInvalid with its Status: 422 Invalid.
    const r: AdmissionResult = {
      allowed: false,
      status: {
        status: 'Failure',
        code: 422,
        reason: 'Invalid',
        message: FieldErrors.format(e.errors, kind, group, name),
        details: { name, group, kind, causes: e.causes() },
      },
    };
    if (e.warnings.length) r.warnings = [...e.warnings];
    return r;
  }
  if (e instanceof StatusError) {
    return {
      allowed: false,
      status: { ...e.status, code: e.code, reason: e.reason, message: e.status.message || e.message },
    };
  }
  if (isCrash(e)) {
    ctx.recordPanic?.(e);
    return errored(500, `panic: ${describeThrown(e)} [recovered]`);
  }
  return denied((e as Error).message);
}

/**
 * Serves one admission path: checks the AdmissionReview (`admission.k8s.io/v1` or `v1beta1`, a
 * request with a uid, else HTTP 400), calls the handler, answers an AdmissionReview of the
 * version asked whose response echoes the uid. On error: a {@link FieldErrors} denies with 422
 * Invalid, the apimachinery message
 * and `details.causes` (plus its warnings); a client `StatusError` denies with its own Status;
 * any other Error denies with 403 and its message; a throw that is not an Error, or an engine
 * error (TypeError, ReferenceError...), answers code 500 `panic: ... [recovered]`, is logged and
 * counted in `controller_runtime_webhook_panics_total`.
 */
export class AdmissionWebhook implements WebhookHandler {
  constructor(private readonly handler: AdmissionHandler) {}

  async handle(body: unknown, ctx: WebhookHandlerContext): Promise<unknown> {
    // v1beta1 has the same fields as v1; the answer is in the version asked (as controller-runtime).
    if (!isObject(body) || !ADMISSION_VERSIONS.has(body.apiVersion as string) || body.kind !== 'AdmissionReview') {
      const got = isObject(body)
        ? `${String(body.apiVersion ?? '<no apiVersion>')} ${String(body.kind ?? '<no kind>')}`
        : Array.isArray(body)
          ? 'an array'
          : typeof body;
      throw new WebhookHttpError(400, `expected an admission.k8s.io/v1 or v1beta1 AdmissionReview, got ${got}`);
    }
    const apiVersion = body.apiVersion as string;
    const raw = body.request;
    if (!isObject(raw)) throw new WebhookHttpError(400, 'the AdmissionReview has no request');
    if (typeof raw.uid !== 'string' || !raw.uid)
      throw new WebhookHttpError(400, 'the AdmissionReview request has no uid');
    const req = raw as unknown as AdmissionRequest;
    req.dryRun = raw.dryRun === true;
    if (!isObject(req.userInfo)) req.userInfo = {};
    let result: AdmissionResult;
    if (!OPERATIONS.has(req.operation)) result = errored(400, `unknown operation ${JSON.stringify(req.operation)}`);
    else {
      let logger: Logger | undefined;
      const actx: AdmissionContext = {
        request: req,
        dryRun: req.dryRun,
        get logger() {
          logger ??= ctx.logger.child({ uid: req.uid, namespace: req.namespace, name: req.name });
          return logger;
        },
        get signal() {
          return ctx.signal;
        },
      };
      try {
        result = await this.handler.handle(req, actx);
        if (!isObject(result))
          throw new TypeError(`the admission handler returned ${String(result)}, not a result object`);
      } catch (e) {
        result = denialFor(e, req, ctx);
        if (!isCrash(e)) actx.logger.debug({ err: (e as Error).message }, 'admission denied');
      }
    }
    return { apiVersion, kind: 'AdmissionReview', response: { uid: req.uid, ...result } };
  }
}

/** What reviveDates needs from a request's kind (tolerates a malformed one). */
function gvkInfo(kind: GroupVersionKind | undefined): {
  apiVersion: string;
  group: string;
  version: string;
  kind: string;
} {
  const group = typeof kind?.group === 'string' ? kind.group : '';
  const version = typeof kind?.version === 'string' ? kind.version : '';
  return {
    group,
    version,
    kind: typeof kind?.kind === 'string' ? kind.kind : '',
    apiVersion: group ? `${group}/${version}` : version,
  };
}

/** A deep copy of a value parsed from JSON (plain objects, arrays, primitives only). */
function cloneParsed<T>(v: T): T {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) {
    const a = new Array(v.length);
    for (let i = 0; i < v.length; i++) a[i] = cloneParsed(v[i]);
    return a as T;
  }
  const o: Record<string, unknown> = {};
  for (const k of Object.keys(v)) {
    const c = cloneParsed((v as Record<string, unknown>)[k]);
    // JSON.parse makes "__proto__" an own key; assigning it would set the prototype instead.
    if (k === '__proto__')
      Object.defineProperty(o, k, { value: c, enumerable: true, writable: true, configurable: true });
    else o[k] = c;
  }
  return o as T;
}

/** Stores `w` under `k`; JSON.parse makes "__proto__" an own key, which a store would turn into the prototype. */
function put(o: Record<string, unknown>, k: string, w: unknown): void {
  if (k === '__proto__')
    Object.defineProperty(o, k, { value: w, enumerable: true, writable: true, configurable: true });
  else o[k] = w;
}

/**
 * What `toWireJSON(v, before)` gives, sharing every subtree that is already plain JSON instead of
 * copying it: plain objects and arrays are walked, and copied only along the paths to a value
 * JSON.stringify would change (a Date, a non-finite number, an undefined, a function); anything
 * else (a class instance, a toJSON, an array with holes) goes through toWireJSON. A defaulted
 * object has Dates in its metadata only (the revived timestamps), so the patch compares the rest
 * as it is, with no copy. Nothing is mutated.
 */
function wireForm(v: unknown, before: unknown): unknown {
  if (v === null || typeof v !== 'object') return typeof v === 'number' && !Number.isFinite(v) ? null : v;
  const proto = Object.getPrototypeOf(v);
  if (typeof (v as { toJSON?: unknown }).toJSON === 'function') return toWireJSON(v, before);
  if (proto === Array.prototype) {
    const a = v as unknown[];
    const b = Array.isArray(before) ? before : undefined;
    let out: unknown[] | undefined;
    for (let i = 0; i < a.length; i++) {
      if (!(i in a)) return toWireJSON(v, before);
      const x = a[i];
      let w = wireForm(x, b?.[i]);
      if (w === undefined || typeof w === 'function' || typeof w === 'symbol') w = null;
      if (!out && w !== x) out = a.slice(0, i);
      out?.push(w);
    }
    return out ?? v;
  }
  if (proto !== Object.prototype && proto !== null) return toWireJSON(v, before);
  const o = v as Record<string, unknown>;
  const b =
    before && typeof before === 'object' && !Array.isArray(before) ? (before as Record<string, unknown>) : undefined;
  const keys = Object.keys(o);
  let out: Record<string, unknown> | undefined;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    const x = o[k];
    const skip = x === undefined || typeof x === 'function' || typeof x === 'symbol';
    const w = skip ? undefined : wireForm(x, b && Object.hasOwn(b, k) ? b[k] : undefined);
    if (!out && (skip || w !== x)) {
      out = {};
      for (let j = 0; j < i; j++) put(out, keys[j], o[keys[j]]);
    }
    if (out && !skip) put(out, k, w);
  }
  return out ?? v;
}

/**
 * The RFC 6902 patch turning `before` into `after` (both plain JSON; keys escaped per RFC 6901,
 * `~` as `~0` and `/` as `~1`). Arrays are compared index by index. Never throws on JSON input.
 */
export function createJSONPatch(before: unknown, after: unknown): JSONPatchOperation[] {
  return requireFastJsonPatch().compare(before as object, after as object) as JSONPatchOperation[];
}

/** True for a promise (or any thenable), which is awaited; other results are used as they are. */
function isThenable(v: unknown): v is PromiseLike<unknown> {
  return typeof (v as { then?: unknown } | null | undefined)?.then === 'function';
}

/** The defaulting handler of {@link withCustomDefaulter}. */
class DefaulterHandler<T> implements AdmissionHandler {
  constructor(private readonly defaulter: CustomDefaulter<T>) {}

  async handle(req: AdmissionRequest, ctx: AdmissionContext): Promise<AdmissionResult> {
    if (req.operation === 'DELETE' || req.operation === 'CONNECT') return { allowed: true };
    if (!isObject(req.object)) return errored(400, `the ${req.operation} request has no object`);
    const original = req.object;
    // Timestamps as the types declare them (Date), as the client hands them out; written back
    // in the form they came, so an untouched timestamp is no patch.
    const copy = reviveDates(cloneParsed(original), gvkInfo(req.kind)) as T;
    const pending = this.defaulter.default(copy, ctx);
    // A defaulter is usually synchronous: awaiting its undefined would cost a microtask turn.
    if (isThenable(pending)) await pending;
    const ops = createJSONPatch(original, wireForm(copy, original));
    if (ops.length === 0) return { allowed: true };
    return { allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(ops)).toString('base64') };
  }
}

/** The validating handler of {@link withCustomValidator}. */
class ValidatorHandler<T> implements AdmissionHandler {
  constructor(private readonly validator: CustomValidator<T>) {}

  async handle(req: AdmissionRequest, ctx: AdmissionContext): Promise<AdmissionResult> {
    let w: unknown;
    // Timestamps as the types declare them (Date), as the client hands them out.
    const r = gvkInfo(req.kind);
    if (isObject(req.object)) reviveDates(req.object, r);
    if (isObject(req.oldObject)) reviveDates(req.oldObject, r);
    switch (req.operation) {
      case 'CONNECT':
        return { allowed: true };
      case 'CREATE':
        if (!isObject(req.object)) return errored(400, 'the CREATE request has no object');
        w = this.validator.validateCreate(req.object as T, ctx);
        break;
      case 'UPDATE':
        if (!isObject(req.object)) return errored(400, 'the UPDATE request has no object');
        if (!isObject(req.oldObject)) return errored(400, 'the UPDATE request has no oldObject');
        w = this.validator.validateUpdate(req.oldObject as T, req.object as T, ctx);
        break;
      case 'DELETE':
        // The API server sends the object being deleted as oldObject (kubernetes#76346).
        if (!isObject(req.oldObject)) return errored(400, 'the DELETE request has no oldObject');
        w = this.validator.validateDelete(req.oldObject as T, ctx);
        break;
    }
    if (isThenable(w)) w = await w;
    const warnings = warningsOf(w);
    return warnings ? { allowed: true, warnings } : { allowed: true };
  }
}

/**
 * A mutating webhook for a defaulter (controller-runtime's WithCustomDefaulter). The defaulter
 * gets a deep copy of `request.object`; the response carries `patchType: 'JSONPatch'` and the
 * base64 RFC 6902 patch from the sent object to the defaulted one (no patch when equal).
 * DELETE and CONNECT are allowed without calling it. Errors: see {@link AdmissionWebhook}.
 */
export function withCustomDefaulter<T>(defaulter: CustomDefaulter<T>): AdmissionWebhook {
  if (!defaulter || typeof defaulter.default !== 'function')
    throw new Error('withCustomDefaulter: the defaulter has no default(obj, ctx) method');
  return new AdmissionWebhook(new DefaulterHandler(defaulter));
}

/**
 * A validating webhook for a validator (controller-runtime's WithCustomValidator): CREATE ->
 * validateCreate(object), UPDATE -> validateUpdate(oldObject, object), DELETE ->
 * validateDelete(oldObject); CONNECT is allowed. Returned warnings are passed on. Errors: see
 * {@link AdmissionWebhook}.
 */
export function withCustomValidator<T>(validator: CustomValidator<T>): AdmissionWebhook {
  const missing = ['validateCreate', 'validateUpdate', 'validateDelete'].filter(
    (m) => typeof (validator as unknown as Record<string, unknown>)?.[m] !== 'function',
  );
  if (missing.length) throw new Error(`withCustomValidator: the validator lacks ${missing.join(', ')}`);
  return new AdmissionWebhook(new ValidatorHandler(validator));
}
