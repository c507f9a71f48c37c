/**
 * An in-memory span recorder for tests: a small TracerProvider on `@opentelemetry/api` alone (no
 * SDK), with the AsyncLocalStorage context manager and the W3C trace-context propagator it needs,
 * so that a test can register it, run a reconcile or a webhook call, and assert on the spans the
 * runtime started (docs/observability.md, "Testing"). Not an exporter: nothing leaves the process.
 *
 * ```ts
 * const spans = recordSpans();
 * try {
 *   await reconcile();
 *   const r = spans.find('reconcile my-controller');
 *   assert.equal(spans.childrenOf(r)[0].attributes['kubeforge.client.verb'], 'create');
 * } finally {
 *   spans.unregister();
 * }
 * ```
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import {
  type Attributes,
  type AttributeValue,
  type Context,
  type ContextManager,
  context,
  type Exception,
  isSpanContextValid,
  type Link,
  propagation,
  ROOT_CONTEXT,
  type Span,
  type SpanAttributes,
  type SpanContext,
  SpanKind,
  type SpanOptions,
  type SpanStatus,
  SpanStatusCode,
  type TextMapGetter,
  type TextMapPropagator,
  type TextMapSetter,
  type TimeInput,
  trace,
  TraceFlags,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';
import { formatTraceparent, parseTraceparent } from '../runtime/tracing.js';

/** One span as recorded: plain data to assert on. */
export interface RecordedSpan {
  name: string;
  kind: SpanKind;
  /** The instrumentation scope (`kubeforge` for the runtime's spans). */
  scope: string;
  traceId: string;
  spanId: string;
  /** The parent's span id (undefined: a root span); the parent may be remote (an incoming traceparent). */
  parentSpanId?: string;
  attributes: Record<string, AttributeValue>;
  events: { name: string; attributes: Record<string, AttributeValue>; timeMs: number }[];
  links: SpanContext[];
  status: SpanStatus;
  startMs: number;
  /** Undefined while the span runs. */
  endMs?: number;
}

const timeMs = (t: TimeInput | undefined): number =>
  t === undefined
    ? performance.timeOrigin + performance.now()
    : t instanceof Date
      ? t.getTime()
      : Array.isArray(t)
        ? t[0] * 1000 + t[1] / 1e6
        : t;

function cleanAttributes(a: Attributes | undefined): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const [k, v] of Object.entries(a ?? {})) if (v !== undefined) out[k] = v;
  return out;
}

class RecordingSpan implements Span {
  readonly data: RecordedSpan;
  private readonly sc: SpanContext;

  constructor(
    private readonly recorder: SpanRecorder,
    name: string,
    scope: string,
    options: SpanOptions,
    parent: SpanContext | undefined,
  ) {
    this.sc = {
      traceId: parent?.traceId ?? randomBytes(16).toString('hex'),
      spanId: randomBytes(8).toString('hex'),
      traceFlags: TraceFlags.SAMPLED,
    };
    this.data = {
      name,
      kind: options.kind ?? SpanKind.INTERNAL,
      scope,
      traceId: this.sc.traceId,
      spanId: this.sc.spanId,
      parentSpanId: parent?.spanId,
      attributes: cleanAttributes(options.attributes),
      events: [],
      links: (options.links ?? []).map((l) => l.context),
      status: { code: SpanStatusCode.UNSET },
      startMs: timeMs(options.startTime),
    };
    recorder.started(this.data);
  }

  spanContext(): SpanContext {
    return this.sc;
  }
  setAttribute(key: string, value: AttributeValue): this {
    if (this.isRecording() && value !== undefined) this.data.attributes[key] = value;
    return this;
  }
  setAttributes(attributes: SpanAttributes): this {
    if (this.isRecording()) Object.assign(this.data.attributes, cleanAttributes(attributes));
    return this;
  }
  addEvent(name: string, attributesOrTime?: SpanAttributes | TimeInput, time?: TimeInput): this {
    if (!this.isRecording()) return this;
    const isTime =
      typeof attributesOrTime === 'number' || attributesOrTime instanceof Date || Array.isArray(attributesOrTime);
    this.data.events.push({
      name,
      attributes: isTime ? {} : cleanAttributes(attributesOrTime as SpanAttributes | undefined),
      timeMs: timeMs(isTime ? (attributesOrTime as TimeInput) : time),
    });
    return this;
  }
  addLink(link: Link): this {
    if (this.isRecording()) this.data.links.push(link.context);
    return this;
  }
  addLinks(links: Link[]): this {
    for (const l of links) this.addLink(l);
    return this;
  }
  setStatus(status: SpanStatus): this {
    if (this.isRecording()) this.data.status = { ...status };
    return this;
  }
  updateName(name: string): this {
    if (this.isRecording()) this.data.name = name;
    return this;
  }
  end(endTime?: TimeInput): void {
    if (!this.isRecording()) return;
    this.data.endMs = timeMs(endTime);
    this.recorder.spanEnded();
  }
  isRecording(): boolean {
    return this.data.endMs === undefined;
  }
  recordException(exception: Exception, time?: TimeInput): void {
    const e =
      typeof exception === 'string'
        ? { message: exception }
        : (exception as { name?: string; message?: string; stack?: string });
    const attributes: SpanAttributes = { 'exception.message': e.message ?? '' };
    if ('name' in e && e.name) attributes['exception.type'] = e.name;
    if ('stack' in e && e.stack) attributes['exception.stacktrace'] = e.stack;
    this.addEvent('exception', attributes, time);
  }
}

/** The active context per async flow (as @opentelemetry/context-async-hooks' AsyncLocalStorageContextManager). */
class AsyncLocalContextManager implements ContextManager {
  private readonly storage = new AsyncLocalStorage<Context>();
  active(): Context {
    return this.storage.getStore() ?? ROOT_CONTEXT;
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    ctx: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return this.storage.run(ctx, () => fn.apply(thisArg, args));
  }
  bind<T>(ctx: Context, target: T): T {
    if (typeof target !== 'function') return target;
    const f = target as unknown as (...a: unknown[]) => unknown;
    return ((...a: unknown[]) => this.with(ctx, f, undefined, ...a)) as unknown as T;
  }
  enable(): this {
    return this;
  }
  disable(): this {
    this.storage.disable();
    return this;
  }
}

/** W3C `traceparent` only (what kube-apiserver reads and writes). */
const w3c: TextMapPropagator = {
  inject(ctx: Context, carrier: unknown, setter: TextMapSetter): void {
    const sc = trace.getSpanContext(ctx);
    if (sc && isSpanContextValid(sc)) setter.set(carrier, 'traceparent', formatTraceparent(sc));
  },
  extract(ctx: Context, carrier: unknown, getter: TextMapGetter): Context {
    const sc = parseTraceparent(getter.get(carrier, 'traceparent'));
    return sc ? trace.setSpanContext(ctx, sc) : ctx;
  },
  fields: () => ['traceparent'],
};

/**
 * A TracerProvider that keeps every span in memory (see the module comment). `register()` makes
 * it the global provider, with a context manager and the W3C propagator; `unregister()` undoes it.
 */
export class SpanRecorder implements TracerProvider {
  /** Every span started, in start order (running ones have no `endMs`). */
  readonly spans: RecordedSpan[] = [];
  private waiters: (() => void)[] = [];
  private registered = false;

  getTracer(name: string): Tracer {
    const startSpan = (spanName: string, options: SpanOptions = {}, ctx: Context = context.active()): Span => {
      const parent = options.root ? undefined : trace.getSpanContext(ctx);
      return new RecordingSpan(
        this,
        spanName,
        name,
        options,
        parent && isSpanContextValid(parent) ? parent : undefined,
      );
    };
    const startActiveSpan = (spanName: string, ...rest: unknown[]): unknown => {
      const fn = rest.pop() as (span: Span) => unknown;
      const [options, ctx] = rest as [SpanOptions | undefined, Context | undefined];
      const parentCtx = ctx ?? context.active();
      const span = startSpan(spanName, options, parentCtx);
      return context.with(trace.setSpan(parentCtx, span), fn, undefined, span);
    };
    return { startSpan, startActiveSpan } as Tracer;
  }

  /** Makes this the global TracerProvider (with a context manager and the W3C propagator). Throws when another one is registered. */
  register(): this {
    if (!trace.setGlobalTracerProvider(this))
      throw new Error(
        'kubeforge/testing: a TracerProvider is already registered in this process; unregister it (trace.disable()) before recordSpans()',
      );
    context.setGlobalContextManager(new AsyncLocalContextManager());
    propagation.setGlobalPropagator(w3c);
    this.registered = true;
    return this;
  }

  /** Removes the global TracerProvider, context manager and propagator (whoever registered them). */
  unregister(): void {
    if (!this.registered) return;
    this.registered = false;
    trace.disable();
    context.disable();
    propagation.disable();
  }

  /** Forgets the spans recorded so far. */
  reset(): void {
    this.spans.length = 0;
  }

  /** Spans whose name is `name` (or that `match` accepts), ended or not. */
  filter(match: string | ((s: RecordedSpan) => boolean)): RecordedSpan[] {
    return this.spans.filter(typeof match === 'string' ? (s) => s.name === match : match);
  }

  /** The first span `match` names or accepts; throws, listing the recorded names, when there is none. */
  find(match: string | ((s: RecordedSpan) => boolean)): RecordedSpan {
    const s = this.filter(match)[0];
    if (!s)
      throw new Error(
        `no recorded span ${typeof match === 'string' ? JSON.stringify(match) : 'matches'}; recorded: ${this.spans.map((x) => x.name).join(', ') || 'none'}`,
      );
    return s;
  }

  /** The spans whose parent is `span`. */
  childrenOf(span: RecordedSpan): RecordedSpan[] {
    return this.spans.filter((s) => s.traceId === span.traceId && s.parentSpanId === span.spanId);
  }

  /** The parent of `span` when it was recorded here (undefined for a root, or a remote parent). */
  parentOf(span: RecordedSpan): RecordedSpan | undefined {
    return span.parentSpanId === undefined
      ? undefined
      : this.spans.find((s) => s.traceId === span.traceId && s.spanId === span.parentSpanId);
  }

  /** The spans of one trace, in start order. */
  trace(traceId: string): RecordedSpan[] {
    return this.spans.filter((s) => s.traceId === traceId);
  }

  /**
   * Resolves once a span `match` names or accepts has ended (spans end after the work they time:
   * a reconcile span after the reconciler returned), or rejects after `timeoutMs` (default 10 s).
   */
  async ended(match: string | ((s: RecordedSpan) => boolean), timeoutMs = 10_000): Promise<RecordedSpan> {
    const pick = () => this.filter(match).find((s) => s.endMs !== undefined);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const s = pick();
      if (s) return s;
      const left = deadline - Date.now();
      if (left <= 0) {
        const names = this.spans.map((x) => `${x.name}${x.endMs === undefined ? ' (running)' : ''}`);
        throw new Error(
          `no span ${typeof match === 'string' ? JSON.stringify(match) : 'that matches'} ended within ${timeoutMs} ms; recorded: ${names.join(', ') || 'none'}`,
        );
      }
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  /** @internal */
  started(s: RecordedSpan): void {
    this.spans.push(s);
  }

  /** @internal */
  spanEnded(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }
}

/** A new {@link SpanRecorder}, registered as the global TracerProvider. Call `unregister()` when done. */
export function recordSpans(): SpanRecorder {
  return new SpanRecorder().register();
}
