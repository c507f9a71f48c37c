/**
 * The reconcile span (see docs/observability.md): one per reconcile, started by the controller's
 * reconcileHandler when a TracerProvider is registered, active while the reconciler runs (its
 * client requests and log lines join it), linked to the spans that were active when its request
 * was enqueued.
 */
import {
  context,
  isSpanContextValid,
  type Link,
  type Span,
  SpanKind,
  type SpanContext,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import type { Tracer } from '@opentelemetry/api';
import { activeSpanContext, bindTraceContext, safely } from '../tracing.js';
import type { RequestQueue } from './handler.js';
import type { Request, Result } from './reconcile.js';
import { requestKey } from './reconcile.js';

/** Attribute names of the reconcile span. */
export const RECONCILE_ATTRS = {
  controller: 'kubeforge.controller',
  group: 'kubeforge.reconcile.group',
  kind: 'kubeforge.reconcile.kind',
  namespace: 'kubeforge.reconcile.namespace',
  name: 'kubeforge.reconcile.name',
  id: 'kubeforge.reconcile.id',
  priority: 'kubeforge.reconcile.priority',
  queueWaitMs: 'kubeforge.reconcile.queue_wait_ms',
  result: 'kubeforge.reconcile.result',
  requeue: 'kubeforge.reconcile.requeue',
  requeueDelayMs: 'kubeforge.reconcile.requeue_after_ms',
  terminal: 'kubeforge.reconcile.terminal',
  panic: 'kubeforge.reconcile.panic',
  timedOut: 'kubeforge.reconcile.timed_out',
} as const;

/** The most links one request keeps (the first events that enqueued it). */
const MAX_LINKS = 8;
/** The most requests holding links at once; past it the oldest are dropped. */
const MAX_LINKED_REQUESTS = 10_000;

/**
 * The span contexts that were active when requests were enqueued (a channel source fed from a
 * webhook or from another reconcile, a map function called under a span), by request key, until
 * the reconcile of the request takes them as links. Watch events carry no trace context, so
 * requests they enqueue have none.
 */
export class EnqueueLinks {
  private readonly byKey = new Map<string, SpanContext[]>();

  /** `q` itself when no recording span is active (nothing to note), else a queue noting it on every add. */
  wrap(q: RequestQueue): RequestQueue {
    const sc = activeSpanContext();
    if (!sc) return q;
    const note = (r: Request) => this.note(requestKey(r), sc);
    return {
      add: (r, o) => {
        note(r);
        q.add(r, o);
      },
      addAfter: (r, d, o) => {
        note(r);
        q.addAfter(r, d, o);
      },
      addRateLimited: (r, o) => {
        note(r);
        q.addRateLimited(r, o);
      },
    };
  }

  private note(key: string, sc: SpanContext): void {
    let list = this.byKey.get(key);
    if (!list) {
      if (this.byKey.size >= MAX_LINKED_REQUESTS) {
        const oldest = this.byKey.keys().next();
        if (!oldest.done) this.byKey.delete(oldest.value);
      }
      list = [];
      this.byKey.set(key, list);
    }
    if (list.length < MAX_LINKS && !list.some((l) => l.spanId === sc.spanId)) list.push(sc);
  }

  /** The links of a request, forgotten once taken. */
  take(key: string): Link[] | undefined {
    const list = this.byKey.get(key);
    if (!list) return undefined;
    this.byKey.delete(key);
    return list.map((sc) => ({ context: sc }));
  }
}

/** What the reconcile span is started with. */
export interface ReconcileSpanStart {
  controller: string;
  forKind?: { group: string; kind: string };
  req: Request;
  reconcileID: string;
  priority: number;
  queueWaitMs?: number;
  links?: Link[];
}

/** The reconcile span of one reconcile; the handler reports the outcome, then it ends. */
export class ReconcileSpan {
  readonly span: Span;

  constructor(tracer: Tracer, s: ReconcileSpanStart) {
    const a = RECONCILE_ATTRS;
    const attributes: Record<string, string | number> = {
      [a.controller]: s.controller,
      [a.name]: s.req.name,
      [a.id]: s.reconcileID,
      [a.priority]: s.priority,
    };
    if (s.req.namespace) attributes[a.namespace] = s.req.namespace;
    if (s.forKind) {
      attributes[a.group] = s.forKind.group;
      attributes[a.kind] = s.forKind.kind;
    }
    if (s.queueWaitMs !== undefined) attributes[a.queueWaitMs] = Math.round(s.queueWaitMs * 1000) / 1000;
    // A root span: a reconcile is caused by events, which it links, not called by them.
    this.span = tracer.startSpan(
      `reconcile ${s.controller}`,
      { kind: SpanKind.INTERNAL, attributes, links: s.links, root: true },
      context.active(),
    );
  }

  /** Runs `fn` with the span active (client requests become its children, log lines carry its ids). */
  run<T>(fn: () => T): T {
    return context.with(trace.setSpan(context.active(), this.span), fn);
  }

  /**
   * A signal of the reconcile's own, following `signal` and bound to this span, so that the
   * requests the reconciler sends with `ctx.signal` are the span's children even when no context
   * manager carries the span across awaits; `done()` unlinks it from `signal`.
   */
  ownSignal(signal: AbortSignal): { signal: AbortSignal; done(): void } {
    const ac = new AbortController();
    const onStop = () => ac.abort(signal.reason);
    if (signal.aborted) ac.abort(signal.reason);
    else signal.addEventListener('abort', onStop, { once: true });
    this.bind(ac.signal);
    return { signal: ac.signal, done: () => signal.removeEventListener('abort', onStop) };
  }

  /** Binds this span to `signal` (one derived from the reconcile's own, e.g. with its timeout). */
  bind(signal: AbortSignal): void {
    bindTraceContext(signal, trace.setSpan(context.active(), this.span));
  }

  /**
   * `trace_id` and `span_id` for the reconcile's logger when no context manager made the span
   * active (then the logger's mixin cannot see it); undefined when one did.
   */
  logIds(): { trace_id: string; span_id: string } | undefined {
    if (trace.getSpan(context.active()) === this.span) return undefined;
    const sc = this.span.spanContext();
    return isSpanContextValid(sc) ? { trace_id: sc.traceId, span_id: sc.spanId } : undefined;
  }

  /** The reconciler returned `result`: success, requeue or requeue_after. */
  returned(result: Result | void, delayMs: number, timedOut: boolean): void {
    safely(() => this.endReturned(result, delayMs, timedOut));
  }

  private endReturned(result: Result | void, delayMs: number, timedOut: boolean): void {
    const a = RECONCILE_ATTRS;
    if (delayMs > 0) {
      this.span.setAttribute(a.result, 'requeue_after');
      this.span.setAttribute(a.requeueDelayMs, delayMs);
    } else if (result?.requeue) {
      this.span.setAttribute(a.result, 'requeue');
      this.span.setAttribute(a.requeue, true);
    } else this.span.setAttribute(a.result, 'success');
    if (timedOut) this.span.setAttribute(a.timedOut, true);
    this.span.end();
  }

  /** The reconciler threw: recorded as the span's error, with whether it is requeued. */
  threw(err: unknown, how: { terminal?: boolean; panic?: boolean; timedOut?: boolean }): void {
    safely(() => this.endThrew(err, how));
  }

  private endThrew(err: unknown, how: { terminal?: boolean; panic?: boolean; timedOut?: boolean }): void {
    const a = RECONCILE_ATTRS;
    this.span.setAttribute(a.result, 'error');
    this.span.setAttribute(a.requeue, !how.terminal);
    if (how.terminal) this.span.setAttribute(a.terminal, true);
    if (how.panic) this.span.setAttribute(a.panic, true);
    if (how.timedOut) this.span.setAttribute(a.timedOut, true);
    const e = err instanceof Error ? err : new Error(String(err));
    this.span.recordException(e);
    this.span.setStatus({ code: SpanStatusCode.ERROR, message: e.message });
    this.span.end();
  }
}
