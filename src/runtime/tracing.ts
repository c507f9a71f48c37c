/**
 * OpenTelemetry in the runtime, on `@opentelemetry/api` only: the runtime starts spans (reconciles,
 * client requests under a span, webhook requests) through the global TracerProvider, which is a
 * no-op until the application registers one (an SDK). Until then every hot path asks
 * {@link activeTracer} once (one global lookup) and does nothing else: no span object, no attribute.
 *
 * Trace context travels as W3C `traceparent` (what kube-apiserver reads and sends to webhooks):
 * written and read here even when the application registered no propagator, and through the
 * global propagator as well when it did (baggage, tracestate, another format).
 */
import {
  type Context,
  context,
  isSpanContextValid,
  propagation,
  ProxyTracerProvider,
  ROOT_CONTEXT,
  type SpanContext,
  trace,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';

/** The instrumentation scope of every span the runtime starts. */
export const TRACER_NAME = 'kubeforge';

let seenProvider: TracerProvider | undefined;
let seenTracer: Tracer | undefined;

/**
 * The runtime's tracer, or undefined while no TracerProvider is registered (then the caller
 * skips all tracing work). Re-read when the global provider changes (a test registering and
 * disabling providers).
 */
export function activeTracer(): Tracer | undefined {
  // The global is a ProxyTracerProvider whose delegate is the registered provider: asked again
  // (one property read) until it has one.
  const p = trace.getTracerProvider();
  if (p !== seenProvider || seenTracer === undefined) {
    seenProvider = p;
    seenTracer = p instanceof ProxyTracerProvider ? p.getDelegateTracer(TRACER_NAME) : p.getTracer(TRACER_NAME);
  }
  return seenTracer;
}

/**
 * Runs `f`, a tracing step; undefined when it throws. Tracing must never fail the work it observes:
 * a provider or exporter of the application that throws costs the span, not the reconcile.
 */
export function safely<T>(f: () => T): T | undefined {
  try {
    return f();
  } catch {
    return undefined;
  }
}

/**
 * A moment of a long-running part (leader election) as a span of its own: a root span holding one
 * event, ended at once; nothing without a provider.
 */
export function recordMoment(name: string, event: string, attributes: Record<string, string | number>): void {
  const tracer = activeTracer();
  if (!tracer) return;
  safely(() => {
    const span = tracer.startSpan(name, { root: true, attributes });
    span.addEvent(event, attributes);
    span.end();
  });
}

/** The span context of the active span (ended or not), when there is one with a valid context. */
export function activeSpanContext(): SpanContext | undefined {
  const sc = trace.getSpan(context.active())?.spanContext();
  return sc && isSpanContextValid(sc) ? sc : undefined;
}

/** Trace contexts bound to the AbortSignal of a unit of work (a reconcile's `ctx.signal`). */
const signalContexts = new WeakMap<AbortSignal, Context>();

/**
 * Binds `ctx` (holding a reconcile's span) to that reconcile's own signal: a request sent with
 * `{ signal: ctx.signal }` becomes a child of the span even when no context manager carries the
 * span across awaits (an application that registered the SDK without AsyncLocalStorage, which on
 * Node 20 slows every promise of the process). Forgotten with the signal.
 */
export function bindTraceContext(signal: AbortSignal, ctx: Context): void {
  signalContexts.set(signal, ctx);
}

/**
 * The parent of a request's span: the active context when it holds a span (a context manager
 * carried it here), else the context bound to the request's signal ({@link bindTraceContext}),
 * else the active one.
 */
export function requestParentContext(signal: AbortSignal | undefined): Context {
  const active = context.active();
  if (signal === undefined || trace.getSpan(active)) return active;
  return signalContexts.get(signal) ?? active;
}

/** Runs `fn` outside any span: long-lived loops (informers) must not inherit the span that started them. */
export function untraced<T>(fn: () => T): T {
  return context.with(ROOT_CONTEXT, fn);
}

const HEX32 = /^[0-9a-f]{32}$/;
const HEX16 = /^[0-9a-f]{16}$/;

/** A span context as a W3C `traceparent` header value (version 00). */
export function formatTraceparent(sc: SpanContext): string {
  return `00-${sc.traceId}-${sc.spanId}-${(sc.traceFlags & 1 ? 1 : 0).toString(16).padStart(2, '0')}`;
}

/** The span context of a W3C `traceparent` value, marked remote; undefined when it does not parse or is all zeros. */
export function parseTraceparent(value: string | string[] | undefined): SpanContext | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (typeof v !== 'string') return undefined;
  const parts = v.trim().split('-');
  if (parts.length < 4 || !/^[0-9a-f]{2}$/.test(parts[0]) || parts[0] === 'ff') return undefined;
  if (parts[0] === '00' && parts.length !== 4) return undefined;
  const [, traceId, spanId, flags] = parts;
  if (!HEX32.test(traceId) || !HEX16.test(spanId) || !/^[0-9a-f]{2}$/.test(flags)) return undefined;
  const sc: SpanContext = { traceId, spanId, traceFlags: Number.parseInt(flags, 16) & 1, isRemote: true };
  return isSpanContextValid(sc) ? sc : undefined;
}

/**
 * Writes the trace context of `ctx` into outgoing HTTP headers: the global propagator's fields,
 * and `traceparent` in any case when `ctx` holds a valid span.
 */
export function injectTraceContext(ctx: Context, headers: Record<string, string>): void {
  propagation.inject(ctx, headers);
  if (headers.traceparent === undefined) {
    const sc = trace.getSpanContext(ctx);
    if (sc && isSpanContextValid(sc)) headers.traceparent = formatTraceparent(sc);
  }
}

/**
 * The context an incoming request's headers carry: the global propagator's reading, else its
 * `traceparent`; the root context when neither gives a span.
 */
export function extractTraceContext(headers: Record<string, string | string[] | undefined>): Context {
  const ctx = propagation.extract(ROOT_CONTEXT, headers);
  if (trace.getSpanContext(ctx)) return ctx;
  const sc = parseTraceparent(headers.traceparent);
  return sc ? trace.setSpanContext(ctx, sc) : ctx;
}

/**
 * A pino `mixin` adding `trace_id` and `span_id` of the active span to each line, so logs and
 * traces join (the logs of a reconcile or webhook call carry its trace). `newLogger` and the
 * Manager's default logger have it; add it to a logger of your own with `pino({ mixin: traceMixin })`.
 */
export function traceMixin(): Record<string, string> {
  const span = trace.getSpan(context.active());
  if (!span) return {};
  const sc = span.spanContext();
  return isSpanContextValid(sc) ? { trace_id: sc.traceId, span_id: sc.spanId } : {};
}
