/**
 * A request's context, as kube-apiserver's handlers carry it through a write: its options
 * (dryRun, fieldManager, fieldValidation, force), the caller (User-Agent, traceparent), the
 * warnings it collects for the answer's Warning headers, and its body, read the way the server's
 * decoder reads it (./request.ts, ./wire.ts). Built once per request by ./server.ts and passed to
 * the strategies (./strategy.ts), the body pipeline (./pipeline.ts) and the store (./store.ts).
 */
import type http from 'node:http';
import type { Obj } from '../../apiserver/json.js';
import { badRequest } from './status.js';
import { bodyError, checkBodySize, checkPatchType, checkWriteOptions, decodeBody, duplicateFields } from './request.js';
import type { Resource } from './resources.js';

export interface WriteContext {
  dryRun: boolean;
  fieldManager?: string;
  /** The manager of a write without fieldManager: the User-Agent's product (apiserver's prefixFromUserAgent). */
  userAgent?: string;
  /** The request body as sent (a create's or update's), for errors that quote it. */
  rawBody?: string;
  /** Set by apply: managedFields are already computed. */
  applied?: boolean;
  /** The request's W3C `traceparent`, passed on to the admission webhooks it calls (as kube-apiserver does). */
  traceparent?: string;
  /** Set by apply: structured-merge-diff saw a change the stored object does not show (an integer the converter wrapped, a namespace dropped). */
  appliedConverted?: boolean;
  /** Warnings for the answer's Warning headers. */
  warnings: string[];
  /** The duplicate keys of the request's body (`duplicate field "x"`), warned when it decodes. */
  duplicates?: string[];
  /** The YAML decoder's warnings of an apply body, given when the apply succeeds. */
  applyWarnings?: string[];
  /** Set by apply when it created the object (the answer is 201). */
  created?: boolean;
  /** The request's fieldValidation: Strict refuses unknown fields, Ignore drops them without a warning (default Warn). */
  fieldValidation?: string;
  /** Admission (./admission.ts), called where kube-apiserver runs it; none: the write is admitted as is. */
  admit?: AdmissionHooks;
  /** An apply's `force=true`. */
  force?: boolean;
}

/**
 * Where a write meets admission, as in kube-apiserver: `mutate` gets the decoded, defaulted object
 * (and the stored one on update) before the strategy and validation, and returns what to go on
 * with; `validate` gets the object about to be stored (undefined for a delete) after validation.
 */
export interface AdmissionHooks {
  mutate(o: Obj, old: Obj | undefined): Obj;
  validate(o: Obj | undefined, old: Obj | undefined): void;
}

/** Who a write without fieldManager is recorded under. */
export function manager(ctx: WriteContext): string {
  return (
    ctx.fieldManager ||
    (ctx.userAgent ?? '')
      .split('/')[0]
      .replace(/[^\x20-\x7e]/g, '')
      .slice(0, 128)
  );
}

/** One request to a resource: its route, its options and its body, read on demand. */
export interface RequestContext {
  method: string;
  r: Resource;
  namespace?: string;
  name?: string;
  sub?: string;
  query: URLSearchParams;
  /** The Content-Type the body was sent with. */
  contentType: string;
  ctx: WriteContext;
  /** The body as the server's decoder reads it (undefined: none); refusals in the verb's words. */
  body(): unknown;
  req: http.IncomingMessage;
  res: http.ServerResponse;
}

/** The name of a request to one object (its route has one). */
export function objectName(c: RequestContext): string {
  if (c.name === undefined) throw new Error(`fake API server: a ${c.method} of one ${c.r.kind} without a name`);
  return c.name;
}

/** The request's context: its write options from the query, its caller from the headers. */
export function requestContext(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  route: { r: Resource; namespace?: string; name?: string; sub?: string },
  q: URLSearchParams,
  raw: string | undefined,
  warnings: string[],
): RequestContext {
  const method = req.method ?? 'GET';
  const ctx: WriteContext = {
    dryRun: q.getAll('dryRun').includes('All'),
    fieldManager: q.get('fieldManager') ?? undefined,
    userAgent: String(req.headers['user-agent'] ?? ''),
    warnings,
    traceparent: typeof req.headers.traceparent === 'string' ? req.headers.traceparent : undefined,
    force: q.get('force') === 'true',
    fieldValidation: q.get('fieldValidation') ?? undefined,
  };
  const contentType = String(req.headers['content-type'] ?? '');
  return {
    method,
    ...route,
    query: q,
    contentType,
    ctx,
    req,
    res,
    body: () => readRequestBody(method, route.r, q, req, raw, ctx),
  };
}

/** The body's checks in the server's order (patch type, size, write options), then its decoding. */
function readRequestBody(
  method: string,
  r: Resource,
  q: URLSearchParams,
  req: http.IncomingMessage,
  raw: string | undefined,
  ctx: WriteContext,
): unknown {
  const type = String(req.headers['content-type'] ?? 'application/json');
  if (method === 'PATCH') checkPatchType(type, r.custom);
  if (raw !== undefined) checkBodySize(raw);
  if (method === 'POST' || method === 'PUT' || method === 'PATCH') checkWriteOptions(method, q, type);
  if (raw === '' && method === 'PATCH' && !type.startsWith('application/apply-patch+yaml'))
    throw badRequest('invalid JSON patch');
  if (raw === undefined || raw === '') return undefined;
  // A built-in's create or update body is decoded into its Go struct (keys given twice merge).
  const body = decodeBody(raw, type, !r.custom && (method === 'POST' || method === 'PUT'));
  if (body.error !== undefined) throw bodyError(method, type, r.kind, raw, body.error);
  if (method !== 'PATCH') {
    ctx.duplicates = duplicateFields(body.duplicates);
    ctx.rawBody = raw;
  }
  if (body.warnings) ctx.applyWarnings = body.warnings;
  return body.value;
}
