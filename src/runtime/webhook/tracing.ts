/**
 * The webhook span (see docs/observability.md): one per admission or conversion request the
 * webhook server dispatches, a child of the span the API server's call carries in `traceparent`
 * (kube-apiserver sends it when its tracing is on), active while the handler runs (its client
 * requests and log lines join it). A refusal records its reason and causes.
 */
import { context, type Context, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { Tracer } from '@opentelemetry/api';
import { bindTraceContext, extractTraceContext, safely } from '../tracing.js';

/** Attribute names of the webhook span. */
export const WEBHOOK_ATTRS = {
  path: 'kubeforge.webhook.path',
  type: 'kubeforge.webhook.type',
  statusCode: 'http.response.status_code',
  uid: 'kubeforge.admission.uid',
  operation: 'kubeforge.admission.operation',
  kind: 'kubeforge.admission.kind',
  resource: 'kubeforge.admission.resource',
  subresource: 'kubeforge.admission.subresource',
  namespace: 'kubeforge.admission.namespace',
  name: 'kubeforge.admission.name',
  dryRun: 'kubeforge.admission.dry_run',
  user: 'kubeforge.admission.user',
  allowed: 'kubeforge.admission.allowed',
  patched: 'kubeforge.admission.patched',
  reason: 'kubeforge.admission.reason',
  code: 'kubeforge.admission.code',
  message: 'kubeforge.admission.message',
  causes: 'kubeforge.admission.causes',
  warnings: 'kubeforge.admission.warnings',
  desiredAPIVersion: 'kubeforge.conversion.desired_api_version',
  objects: 'kubeforge.conversion.objects',
  conversionStatus: 'kubeforge.conversion.status',
} as const;

type Obj = Record<string, unknown>;

/** The webhook span of one request, started once its body is parsed. */
export class WebhookSpan {
  readonly span: Span;
  private readonly ctx: Context;

  constructor(tracer: Tracer, path: string, headers: Record<string, string | string[] | undefined>, body: unknown) {
    const a = WEBHOOK_ATTRS;
    const parent = extractTraceContext(headers);
    const review = (body ?? {}) as Obj;
    const type = review.kind === 'ConversionReview' ? 'conversion' : 'admission';
    const attributes: Record<string, string | number | boolean> = { [a.path]: path, [a.type]: type };
    const r = (review.request ?? {}) as Obj;
    if (type === 'admission') {
      const k = r.kind as Obj | undefined;
      const res = r.resource as Obj | undefined;
      if (typeof r.uid === 'string') attributes[a.uid] = r.uid;
      if (typeof r.operation === 'string') attributes[a.operation] = r.operation;
      if (k) attributes[a.kind] = [k.group ? `${k.group}/${k.version}` : k.version, k.kind].join(', ');
      if (res) attributes[a.resource] = res.group ? `${res.resource}.${res.group}` : String(res.resource);
      if (r.subResource) attributes[a.subresource] = String(r.subResource);
      if (r.namespace) attributes[a.namespace] = String(r.namespace);
      if (r.name) attributes[a.name] = String(r.name);
      if (r.dryRun !== undefined) attributes[a.dryRun] = r.dryRun === true;
      const username = (r.userInfo as Obj | undefined)?.username;
      if (typeof username === 'string') attributes[a.user] = username;
    } else {
      if (typeof r.uid === 'string') attributes[a.uid] = r.uid;
      if (typeof r.desiredAPIVersion === 'string') attributes[a.desiredAPIVersion] = r.desiredAPIVersion;
      if (Array.isArray(r.objects)) attributes[a.objects] = r.objects.length;
    }
    const name = type === 'admission' && r.operation ? `admission ${path} ${r.operation}` : `${type} ${path}`;
    this.span = tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, parent);
    this.ctx = trace.setSpan(parent, this.span);
  }

  /** Runs `fn` with the span active. */
  run<T>(fn: () => T): T {
    return context.with(this.ctx, fn);
  }

  /** Binds the span to the request's signal: requests a handler sends with it are its children without a context manager. */
  bind(signal: AbortSignal): void {
    bindTraceContext(signal, this.ctx);
  }

  /** `trace_id` and `span_id` for the handler's logger when no context manager made the span active; undefined when one did. */
  logIds(): { trace_id: string; span_id: string } | undefined {
    if (trace.getSpan(context.active()) === this.span) return undefined;
    const sc = this.span.spanContext();
    return { trace_id: sc.traceId, span_id: sc.spanId };
  }

  /** The handler answered `answer` (a review); records the decision, then the span ends with `statusCode`. */
  answered(answer: unknown): void {
    safely(() => this.record(answer));
  }

  private record(answer: unknown): void {
    const a = WEBHOOK_ATTRS;
    const resp = ((answer ?? {}) as Obj).response as Obj | undefined;
    if (!resp) return;
    if (typeof resp.allowed === 'boolean') {
      this.span.setAttribute(a.allowed, resp.allowed);
      if (resp.patch) this.span.setAttribute(a.patched, true);
      if (Array.isArray(resp.warnings) && resp.warnings.length)
        this.span.setAttribute(a.warnings, resp.warnings.map(String));
      const st = resp.status as Obj | undefined;
      if (!resp.allowed) {
        const listed = (st?.details as Obj | undefined)?.causes;
        const causes = Array.isArray(listed)
          ? (listed as Obj[]).map((c) => [c.field, c.message].filter(Boolean).join(': '))
          : [];
        const event: Record<string, string | number | string[]> = {};
        if (st?.code !== undefined) event[a.code] = Number(st.code);
        if (st?.reason) event[a.reason] = String(st.reason);
        if (st?.message) event[a.message] = String(st.message);
        if (causes.length) event[a.causes] = causes;
        for (const [k, v] of Object.entries(event)) this.span.setAttribute(k, v);
        this.span.addEvent('admission denied', event);
      }
    } else if (resp.result && typeof resp.result === 'object') {
      const result = resp.result as Obj;
      if (result.status) this.span.setAttribute(a.conversionStatus, String(result.status));
      if (result.status === 'Failure')
        this.span.setStatus({
          code: SpanStatusCode.ERROR,
          message: typeof result.message === 'string' ? result.message : undefined,
        });
    }
  }

  /** The handler threw, or its answer could not be encoded: recorded as the span's error (ended by {@link end}). */
  failed(err: unknown): void {
    const e = err instanceof Error ? err : new Error(String(err));
    safely(() => {
      this.span.recordException(e);
      this.span.setStatus({ code: SpanStatusCode.ERROR, message: e.message });
    });
  }

  private ended = false;

  /** The response was written with `statusCode` (or the request timed out, or its client left): ends the span once. */
  end(statusCode: number): void {
    if (this.ended) return;
    this.ended = true;
    safely(() => {
      this.span.setAttribute(WEBHOOK_ATTRS.statusCode, statusCode);
      if (statusCode >= 500) this.span.setStatus({ code: SpanStatusCode.ERROR });
      this.span.end();
    });
  }
}
