/**
 * The client request span (see docs/observability.md): one per request the RestClient sends while
 * a span is active (a reconcile, a webhook call, the application's own span), a child of it, whose
 * context goes to the API server as `traceparent`, so the server's own spans join the trace.
 * Requests outside any span (informer lists, lease renewals, event writes) start no trace: a
 * manager's background traffic would otherwise make a new trace every few seconds.
 */
import { type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { activeTracer, injectTraceContext, requestParentContext } from '../tracing.js';

/** Attribute names of the client request span (the `http.*`, `url.*`, `server.*` ones are OpenTelemetry's). */
export const CLIENT_ATTRS = {
  method: 'http.request.method',
  statusCode: 'http.response.status_code',
  path: 'url.path',
  serverAddress: 'server.address',
  serverPort: 'server.port',
  resendCount: 'http.request.resend_count',
  errorType: 'error.type',
  verb: 'kubeforge.client.verb',
  group: 'kubeforge.client.group',
  version: 'kubeforge.client.version',
  resource: 'kubeforge.client.resource',
  subresource: 'kubeforge.client.subresource',
  namespace: 'kubeforge.client.namespace',
  name: 'kubeforge.client.name',
  retries: 'kubeforge.client.retries',
} as const;

/** What a Kubernetes API path names (`/api/v1/namespaces/ns/pods/name/status`). */
export interface ApiPath {
  group: string;
  version: string;
  namespace?: string;
  resource?: string;
  name?: string;
  subresource?: string;
}

/** Reads a resource path; undefined for anything else (`/readyz`, `/version`, discovery). */
export function parseApiPath(path: string): ApiPath | undefined {
  const q = path.indexOf('?');
  const parts = (q < 0 ? path : path.slice(0, q)).split('/').filter(Boolean);
  let i: number;
  let group: string;
  if (parts[0] === 'api') {
    group = '';
    i = 1;
  } else if (parts[0] === 'apis' && parts.length >= 3) {
    group = parts[1];
    i = 2;
  } else return undefined;
  const version = parts[i++];
  if (version === undefined) return undefined;
  const out: ApiPath = { group, version };
  let rest = parts.slice(i).map(decodeURIComponent);
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    out.namespace = rest[1];
    rest = rest.slice(2);
  }
  [out.resource, out.name, out.subresource] = rest;
  return out;
}

/** The Kubernetes verb of a request (what RBAC and the API server's audit name it). */
export function verbOf(method: string, p: ApiPath | undefined, query: string): string {
  switch (method) {
    case 'GET':
      // A named object, or no resource at all (discovery of a group version).
      if (p?.name !== undefined || p?.resource === undefined) return 'get';
      return /(^|[?&])watch=(true|1)(&|$)/.test(query) ? 'watch' : 'list';
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return p?.name !== undefined || p?.resource === 'namespaces' ? 'delete' : 'deletecollection';
    default:
      return method.toLowerCase();
  }
}

/**
 * Starts the span of one request when a recording span is active (or bound to the request's
 * `signal`, a reconcile's), and writes its trace context into `headers`; undefined otherwise
 * (nothing done).
 */
export function startRequestSpan(
  method: string,
  path: string,
  server: URL,
  headers: Record<string, string>,
  signal?: AbortSignal,
): Span | undefined {
  const tracer = activeTracer();
  if (!tracer) return undefined;
  const parent = requestParentContext(signal);
  const active = trace.getSpan(parent);
  if (!active) return undefined;
  if (!active.isRecording()) {
    // A span sampled out (or ended): its context still goes, so the API server follows the decision.
    injectTraceContext(parent, headers);
    return undefined;
  }
  const a = CLIENT_ATTRS;
  const q = path.indexOf('?');
  const bare = q < 0 ? path : path.slice(0, q);
  const p = parseApiPath(bare);
  const verb = verbOf(method, p, q < 0 ? '' : path.slice(q + 1));
  const attributes: Record<string, string | number> = {
    [a.method]: method,
    [a.path]: bare,
    [a.serverAddress]: server.hostname,
    [a.verb]: verb,
  };
  if (server.port) attributes[a.serverPort] = Number(server.port);
  if (p) {
    attributes[a.group] = p.group;
    attributes[a.version] = p.version;
    if (p.resource !== undefined) attributes[a.resource] = p.resource;
    if (p.subresource !== undefined) attributes[a.subresource] = p.subresource;
    if (p.namespace !== undefined) attributes[a.namespace] = p.namespace;
    if (p.name !== undefined) attributes[a.name] = p.name;
  }
  const what = p?.resource ? `${p.resource}${p.subresource ? `/${p.subresource}` : ''}` : bare;
  const span = tracer.startSpan(`${verb} ${what}`, { kind: SpanKind.CLIENT, attributes }, parent);
  injectTraceContext(trace.setSpan(parent, span), headers);
  return span;
}

/** Ends a request span with the answer's status code and the Retry-After resends. */
export function endRequestSpan(span: Span, statusCode: number, retries: number): void {
  span.setAttribute(CLIENT_ATTRS.statusCode, statusCode);
  if (retries > 0) {
    span.setAttribute(CLIENT_ATTRS.retries, retries);
    span.setAttribute(CLIENT_ATTRS.resendCount, retries);
  }
  if (statusCode >= 400) {
    span.setAttribute(CLIENT_ATTRS.errorType, String(statusCode));
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}

/** Ends a request span that got no answer (refused, reset, timed out, aborted). */
export function failRequestSpan(span: Span, err: unknown, retries: number): void {
  if (retries > 0) span.setAttribute(CLIENT_ATTRS.retries, retries);
  const e = err instanceof Error ? err : new Error(String(err));
  span.setAttribute(CLIENT_ATTRS.errorType, (e as { code?: string }).code ?? e.name);
  span.recordException(e);
  span.setStatus({ code: SpanStatusCode.ERROR, message: e.message });
  span.end();
}
