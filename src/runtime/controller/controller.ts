/**
 * The controller (controller-runtime's internal controller): sources feed predicates and
 * handlers, handlers feed a rate-limited work queue, workers call the reconciler.
 */
import { setMaxListeners } from 'node:events';
import { CacheSyncTimeoutError } from '../cache/errors.js';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Registry } from 'prom-client';
import type { Cache, Leadership, Runnable, ShardContext } from '../contracts.js';
import { fnv1a64 } from '../sharding/hash.js';
import { namedPoint } from '../sharding/ring.js';
import type { Clock } from './clock.js';
import { realClock } from './clock.js';
import type { AddOptions, EventHandler, RequestQueue } from './handler.js';
import { controllerMetrics, workQueueMetrics } from './metrics.js';
import type { ControllerMetrics } from './metrics.js';
import type { Predicate } from './predicate.js';
import { allows } from './predicate.js';
import type { RateLimiter } from './ratelimiter.js';
import { defaultControllerRateLimiter } from './ratelimiter.js';
import { callReconciler, checkResult, isTerminalError, requestKey, requeueDelayMs } from './reconcile.js';
import type { ReconcileContext, Reconciler, Request, Result } from './reconcile.js';
import type { EventSink, Source } from './source.js';
import { LOW_PRIORITY, WorkQueue } from './workqueue.js';
import { activeTracer, safely } from '../tracing.js';
import { EnqueueLinks, ReconcileSpan } from './tracing.js';
import { checkOptions, type OptionNames, type OptionRenames } from '../options.js';

/** Tuning of one controller (controller-runtime's controller.Options). */
export interface ControllerOptions {
  /** Workers reconciling different objects in parallel. Default 1. The same object never runs twice at once. */
  maxConcurrentReconciles?: number;
  /** Delay policy for errors and `requeue: true`. Default: defaultControllerRateLimiter(). */
  rateLimiter?: RateLimiter;
  /**
   * Recover "panics": programming errors thrown from the reconciler (TypeError, ReferenceError,
   * RangeError, SyntaxError, or a thrown non-Error). On (default): logged with stack, counted in
   * controller_runtime_reconcile_panics_total and retried with back-off like any error. Off:
   * the controller stops and its start() rejects with the error (the manager then shuts down).
   */
  recoverPanic?: boolean;
  /**
   * Time allowed for the watched types' caches to sync at start (ms). Default 120 000; start()
   * then rejects with a CacheSyncTimeoutError. A kind the API server does not serve rejects at
   * once with a NoKindMatchError naming the likely cause.
   */
  cacheSyncTimeoutMs?: number;
  /** Run only on the elected leader (default true). */
  needLeaderElection?: boolean;
  /**
   * Time one reconcile may take (ms; controller-runtime's ReconciliationTimeout). When it passes,
   * the reconcile's `ctx.signal` is aborted with a {@link ReconciliationTimeoutError} (pass the
   * signal to the client and to your own waits so the reconcile stops), and
   * controller_runtime_reconcile_timeouts_total counts it. What the reconcile then returns or
   * throws is handled as always: an error is retried with back-off. Default: no timeout.
   */
  reconciliationTimeoutMs?: number;
  /**
   * Hand out requests by priority (controller-runtime's priority queue, the default since 0.23):
   * handlers and `Result.priority` may set one, and the events of a watch's initial list and of
   * resyncs (nothing changed) come last (LOW_PRIORITY), so a change made now is not stuck behind
   * a start-up's thousands of unchanged objects. Default true; false is a first-in-first-out queue.
   */
  usePriorityQueue?: boolean;
  /**
   * Start the watches before this replica leads (controller-runtime's EnableWarmup): the Manager
   * calls `warmup()` when it starts, so the informers list and watch, and the queue fills, while
   * another replica leads; on winning the lease the workers start on a synced cache and a full
   * queue instead of listing everything first. Costs the standby the memory and watch load of a
   * leader. Default false.
   */
  enableWarmup?: boolean;
  /** Time source for the work queue (tests). */
  clock?: Clock;
  /**
   * Under a sharded Manager (ManagerOptions.sharding), how this controller's requests are split
   * between the replicas. Default: the Manager's field. `{ field: 'namespace' }` or
   * `{ field: 'uid' }` hashes by that field instead; `false` puts all of this controller's
   * requests on one point of the ring, so exactly one replica runs it (a singleton, handed over
   * like any range) and its types are cached whole. Ignored without sharding.
   */
  sharding?: false | { field: 'uid' | 'namespace' };
}

/** The names {@link ControllerOptions} takes (any other is refused). */
export const CONTROLLER_OPTION_NAMES: OptionNames<ControllerOptions> = {
  maxConcurrentReconciles: true,
  rateLimiter: true,
  recoverPanic: true,
  cacheSyncTimeoutMs: true,
  needLeaderElection: true,
  reconciliationTimeoutMs: true,
  usePriorityQueue: true,
  enableWarmup: true,
  clock: true,
  sharding: true,
};

/** Names ControllerOptions had before (the durations without their unit, until 0.1.0) or has in controller-runtime. */
export const CONTROLLER_RENAMES: OptionRenames = {
  cacheSyncTimeout: 'cacheSyncTimeoutMs',
  reconciliationTimeout: 'reconciliationTimeoutMs',
};

/** The reason of a reconcile's `ctx.signal` when its controller's reconciliationTimeoutMs passed. */
export class ReconciliationTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`reconciliation timeout: the reconcile took longer than reconciliationTimeoutMs (${timeoutMs} ms)`);
    this.name = 'ReconciliationTimeoutError';
  }
}

/** The ring point of a cluster's name: where a sharded multi-cluster manager places the cluster. */
export function clusterPoint(name: string): bigint {
  return namedPoint(`cluster:${name}`);
}

/** What a Controller needs from its surroundings. */
export interface ControllerDeps {
  cache: Cache;
  logger: Logger;
  registry: Registry;
  /**
   * The group and kind of the `for()` type: logged as `controllerGroup` and `controllerKind` (and
   * the reconciled object under its kind), as controller-runtime's controller logger does.
   */
  forKind?: { group: string; kind: string };
  /**
   * The types this controller watches, as `<apiVersion>/<kind>` (`for` marks the for() type):
   * a sharded Manager decides from them which types its cache holds one shard of.
   */
  watchedTypes?: { type: string; for: boolean; namespaced?: boolean }[];
  /**
   * Reads an object of the for() type from the cache (its uid places a request on the ring under
   * uid sharding when no event said it); undefined when absent.
   */
  getForObject?: (req: Request) => Promise<KubernetesObject | undefined>;
  /** Lists the for() objects from the cache (a sharded controller's ranges just taken). */
  listForObjects?: () => Promise<KubernetesObject[]>;
}

interface Watch {
  source: Source;
  handler: EventHandler;
  predicates: Predicate[];
  /** Aborted by the watch's handle: the source stops delivering to this controller. */
  removed: AbortController;
  /** Whether its source was started. */
  started?: boolean;
}

/** What {@link Controller.watch} returns: the watch, to remove at run time. */
export interface WatchHandle {
  /**
   * Stops the watch: its source stops delivering (a Kind source unregisters its handler from the
   * shared informer, which keeps running for other users), and events already on the way are
   * dropped. Requests already queued stay queued. Idempotent.
   */
  remove(): void;
  /** True once removed. */
  readonly removed: boolean;
}

/** How many sub-second requeues of one request in a row make a controller warn. */
const SUB_SECOND_STREAK = 5;

const PANIC_TYPES = [TypeError, ReferenceError, RangeError, SyntaxError, EvalError, URIError];

/** True for errors treated as panics (programming errors) rather than reconcile failures. */
export function isPanic(err: unknown): boolean {
  return !(err instanceof Error) || PANIC_TYPES.some((t) => err.constructor === t);
}

/**
 * One controller: a Runnable the manager starts (on the leader only, by default).
 * - Errors thrown by the reconciler are logged, counted and requeued with back-off;
 *   TerminalError is not requeued; panics per `recoverPanic`.
 * - Shutdown (signal aborted): the queue stops handing out work, in-flight reconciles are awaited
 *   (their ctx.signal is aborted so they can stop early), then start() resolves.
 * - Leadership: given a `leadership` (the Manager passes one to leader-only controllers), the
 *   queue asks it before handing out every request; once it answers false nothing more starts
 *   (the Manager then aborts the signal and shuts down; its client refuses writes from then on).
 * - If the caches do not sync within cacheSyncTimeoutMs, start() rejects.
 */
export class Controller implements Runnable {
  readonly queue: WorkQueue<Request>;
  private readonly watches: Watch[] = [];
  private readonly log: Logger;
  private readonly metrics: ControllerMetrics;
  private readonly maxConcurrent: number;
  private readonly recoverPanic: boolean;
  private started = false;
  private signal?: AbortSignal;
  /** The signal the sources run under (the manager's, when warmed up before start), once started. */
  private sourcesSignal?: AbortSignal;
  private sourcesStarted?: Promise<void>;
  private fatal?: unknown;
  private stopWorkers?: () => void;
  /** Consecutive sub-second requeues per request key (see noteRequeue). */
  private readonly quickRequeues = new Map<string, number>();
  private warnedQuickRequeue = false;
  /** Requests being reconciled (for shutdown reports). */
  private readonly active = new Set<string>();
  /** Under a sharded Manager: the gate, and how this controller hashes its requests (see pointOf). */
  private shard?: { ctx: ShardContext; field: 'uid' | 'namespace' | 'singleton' };
  /**
   * Uid sharding: the hash point of a request, as the event that enqueued it said (see notePoint):
   * `own` when it is the uid of the request's own object.
   */
  private readonly points = new Map<string, { point: bigint; own: boolean }>();
  /** The point of each request being reconciled (put back for its requeue: see requeuePoint). */
  private readonly taken = new Map<string, bigint>();
  /** Requests a sharded controller dropped: not this replica's, or not placeable. */
  private readonly shardDropped: { inc(labels: { controller: string; reason: string }): void };
  /** The spans active when requests were enqueued: the links of their reconcile spans (tracing). */
  private readonly enqueueLinks = new EnqueueLinks();
  /** Metric children bound to this controller's labels (no label hashing per reconcile). */
  private readonly bound: {
    time: { observe(v: number): void };
    total: Record<'success' | 'error' | 'requeue' | 'requeue_after', { inc(): void }>;
    errors: { inc(): void };
    terminal: { inc(): void };
    panics: { inc(): void };
    timeouts: { inc(): void };
    active: { inc(): void; dec(): void };
  };

  constructor(
    readonly name: string,
    private readonly reconciler: Reconciler,
    private readonly deps: ControllerDeps,
    private readonly options: ControllerOptions = {},
  ) {
    checkOptions('Controller', options, CONTROLLER_OPTION_NAMES, CONTROLLER_RENAMES);
    this.log = deps.logger.child(
      deps.forKind
        ? { controller: name, controllerGroup: deps.forKind.group, controllerKind: deps.forKind.kind }
        : { controller: name },
    );
    this.metrics = controllerMetrics(deps.registry);
    this.shardDropped = this.metrics.shardDropped;
    this.maxConcurrent = options.maxConcurrentReconciles ?? 1;
    this.recoverPanic = options.recoverPanic ?? true;
    const clock = options.clock ?? realClock;
    this.queue = new WorkQueue<Request>({
      name,
      keyOf: requestKey,
      clock,
      rateLimiter: options.rateLimiter ?? defaultControllerRateLimiter(clock),
      metrics: workQueueMetrics(deps.registry, name, options.usePriorityQueue !== false),
    });
    this.metrics.maxConcurrentReconciles.set({ controller: name }, this.maxConcurrent);
    this.metrics.activeWorkers.set({ controller: name }, 0);
    for (const r of ['success', 'error', 'requeue', 'requeue_after'])
      this.metrics.reconcileTotal.inc({ controller: name, result: r }, 0);
    this.metrics.reconcileErrors.inc({ controller: name }, 0);
    this.metrics.terminalReconcileErrors.inc({ controller: name }, 0);
    this.metrics.reconcilePanics.inc({ controller: name }, 0);
    this.metrics.handlerErrors.inc({ controller: name }, 0);
    this.metrics.reconcileTimeouts.inc({ controller: name }, 0);
    const m = this.metrics;
    const l = { controller: name };
    this.bound = {
      time: m.reconcileTime.labels(l),
      total: {
        success: m.reconcileTotal.labels({ ...l, result: 'success' }),
        error: m.reconcileTotal.labels({ ...l, result: 'error' }),
        requeue: m.reconcileTotal.labels({ ...l, result: 'requeue' }),
        requeue_after: m.reconcileTotal.labels({ ...l, result: 'requeue_after' }),
      },
      errors: m.reconcileErrors.labels(l),
      terminal: m.terminalReconcileErrors.labels(l),
      panics: m.reconcilePanics.labels(l),
      timeouts: m.reconcileTimeouts.labels(l),
      active: m.activeWorkers.labels(l),
    };
  }

  needLeaderElection(): boolean {
    return this.options.needLeaderElection ?? true;
  }

  /** `controller "name"`, with the requests being reconciled if any (for shutdown reports). */
  describe(): string {
    const keys = [...this.active].sort();
    const shown = keys.slice(0, 5).join(', ') + (keys.length > 5 ? `, and ${keys.length - 5} more` : '');
    return `controller ${JSON.stringify(this.name)}${keys.length ? ` (reconciling ${shown})` : ''}`;
  }

  /**
   * Adds a watch. Before start it is recorded; after start the source starts at once (its sync is
   * not awaited). Throws if the controller has stopped. The handle removes it again, before or
   * after start (controller-runtime adds watches at run time; removing one is kubeforge's).
   */
  watch(source: Source, handler: EventHandler, ...predicates: Predicate[]): WatchHandle {
    if ((this.started && this.signal?.aborted) || this.sourcesSignal?.aborted)
      throw new Error(`kubeforge/runtime: controller ${this.name} is stopped; cannot add a watch`);
    const w: Watch = { source, handler, predicates, removed: new AbortController() };
    this.watches.push(w);
    if (this.sourcesSignal)
      void this.startWatch(w, this.sourcesSignal).catch((err) =>
        this.log.error({ err, source: String(source) }, 'failed to start watch'),
      );
    const watches = this.watches;
    return {
      remove: () => {
        if (w.removed.signal.aborted) return;
        w.removed.abort();
        const i = watches.indexOf(w);
        if (i >= 0) watches.splice(i, 1);
      },
      get removed() {
        return w.removed.signal.aborted;
      },
    };
  }

  /**
   * The queue a handler is given for one event: priorities as asked, else `fallback` (LOW_PRIORITY
   * for an unchanged object); all 0 without the priority queue.
   */
  private queueFor(fallback: number): RequestQueue {
    const q = this.queue;
    const prio = this.options.usePriorityQueue === false ? () => 0 : (o?: AddOptions) => o?.priority ?? fallback;
    return {
      add: (r, o) => q.add(r, prio(o)),
      addAfter: (r, d, o) => q.addAfter(r, d, prio(o)),
      addRateLimited: (r, o) => q.addRateLimited(r, prio(o)),
    };
  }

  private makeSink(w: Watch): EventSink {
    const normal = this.queueFor(0);
    const low = this.queueFor(LOW_PRIORITY);
    /** Events of an object held back until a predicate can judge them (see Predicate.settle), in order. */
    const held = new Map<string, Promise<void>>();
    const deliver = (kind: 'create' | 'update' | 'delete' | 'generic', e: unknown, resumed = false): void => {
      if (w.removed.signal.aborted) return;
      const obj = (e as { objectNew?: KubernetesObject }).objectNew ?? (e as { object?: KubernetesObject }).object;
      const key = obj?.metadata ? `${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}` : undefined;
      // behind an earlier held event of the same object, unless this is that event coming back
      let wait = key !== undefined && !resumed ? held.get(key) : undefined;
      for (const p of w.predicates) {
        if (wait) break;
        wait = p.settle?.(kind, e);
      }
      if (wait) {
        const next: Promise<void> = wait.then(() => {
          if (key !== undefined && held.get(key) === next) held.delete(key);
          deliver(kind, e, true);
        });
        if (key !== undefined) held.set(key, next);
        return;
      }
      try {
        for (const p of w.predicates) if (!allows(p, kind, e)) return;
        const f = w.handler[kind] as ((e: unknown, q: RequestQueue) => void) | undefined;
        const q = this.enqueueLinks.wrap(unchanged(kind, e) ? low : normal);
        f?.call(w.handler, e, this.shard?.field === 'uid' && obj ? this.recording(q, obj) : q);
      } catch (err) {
        this.metrics.handlerErrors.inc({ controller: this.name });
        this.log.error(
          { err, event: kind, source: String(w.source) },
          'event handler or predicate threw; event dropped',
        );
      }
    };
    return {
      create: (e) => deliver('create', e),
      update: (e) => deliver('update', e),
      delete: (e) => deliver('delete', e),
      generic: (e) => deliver('generic', e),
    };
  }

  private async startWatch(w: Watch, sources: AbortSignal): Promise<void> {
    if (w.started) return;
    w.started = true;
    const signal = AbortSignal.any([sources, w.removed.signal]);
    setMaxListeners(0, signal);
    w.handler.bind?.({
      signal,
      onError: (err, event) => {
        this.metrics.handlerErrors.inc({ controller: this.name });
        this.log.error(
          { err, event, source: String(w.source) },
          'event handler failed (async map function); event dropped',
        );
      },
    });
    await w.source.start(signal, this.makeSink(w));
  }

  /** Starts every watch's source once, under `signal`; later calls share the first. */
  private startSources(signal: AbortSignal): Promise<void> {
    if (!this.sourcesStarted) {
      this.sourcesSignal = signal;
      setMaxListeners(0, signal);
      this.sourcesStarted = (async () => {
        for (const w of [...this.watches]) await this.startWatch(w, signal);
      })();
    }
    return this.sourcesStarted;
  }

  /**
   * With `enableWarmup`, starts the sources now, before this replica leads (the Manager calls it
   * at start for leader-only controllers); they run until `signal` aborts. Without it, nothing.
   * A source that fails here fails start() later, as it would have then.
   */
  async warmup(signal: AbortSignal): Promise<void> {
    if (!this.options.enableWarmup || this.started) return;
    this.log.info('Starting EventSource (warmup, before leading)');
    await this.startSources(signal).catch(() => undefined);
  }

  /** See the class comment. */
  async start(signal: AbortSignal, leadership?: Leadership): Promise<void> {
    if (this.started) throw new Error(`kubeforge/runtime: controller ${this.name} was already started`);
    this.started = true;
    this.signal = signal;
    // Each watch listens on the signal (and on the sync signal below): as many as the controller
    // has watches, by design, so Node's warning past 10 listeners would be a false alarm.
    setMaxListeners(0, signal);
    const log = this.log;
    if (leadership?.shard) {
      const o = this.options.sharding;
      let field: 'uid' | 'namespace' | 'singleton' = o === false ? 'singleton' : (o?.field ?? leadership.shard.field);
      if (field === 'uid' && !this.deps.getForObject) {
        // No for(): nothing says which object, so which uid, a request is about.
        log.warn(
          "sharding: a controller without for() cannot be split by uid; it runs on one replica at a time (as withOptions({ sharding: false })); give it for(), or withOptions({ sharding: { field: 'namespace' } })",
        );
        field = 'singleton';
      }
      this.shard = { ctx: leadership.shard, field };
      leadership.shard.onOpened?.((ranges) => void this.enqueueOpened(ranges));
    }
    if (leadership) {
      this.queue.setGate(
        () => leadership.isLeading(),
        () => log.error('leadership lost: stopped handing out work'),
      );
    }
    if (!this.sourcesStarted) log.info('Starting EventSource');
    await this.startSources(signal);
    const timeoutMs = this.options.cacheSyncTimeoutMs ?? 120_000;
    // A referenced timer (AbortSignal.timeout's is unref'd and would let a quiet process exit).
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), timeoutMs);
    const syncSignal = AbortSignal.any([signal, timeout.signal]);
    setMaxListeners(0, syncSignal);
    let results: boolean[];
    try {
      results = await Promise.all(this.watches.map((w) => w.source.waitForSync(syncSignal))).finally(() =>
        clearTimeout(timer),
      );
    } catch (e) {
      // A source that cannot sync at all (a kind the server does not serve): fail now, say why.
      this.queue.shutDown();
      throw e;
    }
    if (signal.aborted) {
      this.queue.shutDown();
      return;
    }
    const unsynced = this.watches.filter((_, i) => !results[i]).map((w) => String(w.source));
    if (unsynced.length) {
      this.queue.shutDown();
      throw new CacheSyncTimeoutError(
        `kubeforge/runtime: controller ${this.name}: timed out after ${timeoutMs} ms waiting for caches to sync (${unsynced.join(', ')}); raise cacheSyncTimeoutMs or check RBAC / CRD installation`,
        unsynced,
        timeoutMs,
      );
    }
    log.info({ workerCount: this.maxConcurrent }, 'Starting workers');
    const workers: Promise<void>[] = [];
    for (let i = 0; i < this.maxConcurrent; i++) workers.push(this.worker(signal));
    const stopped = new Promise<void>((resolve) => {
      this.stopWorkers = resolve;
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
    await stopped;
    log.info('Shutdown signal received, waiting for all workers to finish');
    await this.queue.shutDownWithDrain();
    await Promise.all(workers);
    log.info('All workers finished');
    if (this.fatal !== undefined) throw this.fatal;
  }

  private async worker(signal: AbortSignal): Promise<void> {
    const active = this.bound.active;
    for (;;) {
      const next = await this.queue.get();
      if (next.shutdown) return;
      const req = next.item;
      const key = requestKey(req);
      let end: (() => void) | undefined;
      let reconcileSignal = signal;
      let unlink: (() => void) | undefined;
      if (this.shard) {
        // The point an event recorded is taken: one recorded while this reconcile runs is newer
        // and stays; a requeue of this one puts it back (see requeuePoint).
        const recorded = this.points.get(key);
        this.points.delete(key);
        const point = await this.pointOf(this.shard, req, recorded);
        // Asked and recorded in one synchronous step: a range being given up waits for this one.
        if (point === undefined || !this.shard.ctx.gate.allows(point)) {
          this.shardDropped.inc({ controller: this.name, reason: point === undefined ? 'unplaced' : 'not_owned' });
          this.log.debug(
            { request: req, reason: point === undefined ? 'unplaced' : 'not_owned' },
            point === undefined
              ? "sharding: request dropped: its for() object is not in this replica's cache (another replica owns it, or it is gone)"
              : "sharding: request dropped: its point is not in this replica's ranges",
          );
          this.queue.forget(req);
          this.queue.done(req);
          continue;
        }
        this.taken.set(key, point);
        // The reconcile's signal also aborts when its range is handed over and the drain times
        // out; linked by hand (AbortSignal.any per reconcile keeps memory on Node 20).
        const ac = new AbortController();
        const onStop = () => ac.abort(signal.reason);
        if (signal.aborted) ac.abort(signal.reason);
        else signal.addEventListener('abort', onStop, { once: true });
        unlink = () => signal.removeEventListener('abort', onStop);
        end = this.shard.ctx.gate.track(point, () =>
          ac.abort(new Error('the shard range of this object was handed over')),
        );
        reconcileSignal = ac.signal;
      }
      active.inc();
      this.active.add(key);
      try {
        await this.reconcileHandler(
          req,
          reconcileSignal,
          this.options.usePriorityQueue === false ? 0 : next.priority,
          next.queuedMs,
        );
      } catch (err) {
        // recoverPanic off: stop the controller with this error.
        this.fatal ??= err;
        this.stopWorkers?.();
      } finally {
        end?.();
        unlink?.();
        this.taken.delete(key);
        this.active.delete(key);
        this.queue.done(req);
        active.dec();
      }
    }
  }

  /**
   * Where a request lies on the sharding ring: the hash of its namespace, of its object's uid, or
   * (a singleton controller) of the controller's name. Under uid sharding the point comes from
   * the event that enqueued it (the object's own uid, or its controller owner's, see notePoint),
   * else from the for() object in the cache; undefined when neither knows it (the object is not
   * in this replica's shard, or gone without an event saying its uid).
   */
  private async pointOf(
    s: { ctx: ShardContext; field: 'uid' | 'namespace' | 'singleton' },
    req: Request,
    recorded?: { point: bigint; own: boolean },
  ): Promise<bigint | undefined> {
    // Many clusters and sharding compose by cluster: a cluster's requests are all on the point of
    // its name, on the replica that engaged it (see kubeforge/runtime/multicluster).
    if (req.clusterName) return clusterPoint(req.clusterName);
    if (s.field === 'singleton') return this.singletonPoint();
    if (s.field === 'namespace') return fnv1a64(req.namespace ?? '');
    // The object's own uid, from its own event: its point, even once it is gone (a deletion).
    if (recorded?.own) return recorded.point;
    // Otherwise the for() object this replica caches decides (an owner's uid from an
    // ownerReference may be that of an object deleted and made again under the same name, which
    // another replica owns now); not cached here: not this replica's.
    const obj = await this.deps.getForObject?.(req).catch(() => undefined);
    const uid = obj?.metadata?.uid;
    return uid ? fnv1a64(uid) : undefined;
  }

  /** The one point all of a singleton controller's requests take (`withOptions({ sharding: false })`). */
  private singletonPoint(): bigint {
    return namedPoint(`controller:${this.name}`);
  }

  /** Before a requeue of a sharded request: its point comes back unless an event recorded a newer one. */
  private requeuePoint(req: Request): void {
    const key = requestKey(req);
    const point = this.taken.get(key);
    if (point !== undefined && !this.points.has(key)) this.points.set(key, { point, own: true });
  }

  /**
   * A sharded controller's share of the hash space grew: its objects there are reconciled. Those
   * of a sharded informer arrive by themselves (it lists the new ranges); a for() type cached whole
   * (a singleton's, or a type another controller needs whole) is listed here.
   */
  private async enqueueOpened(ranges: readonly { start: bigint; end: bigint }[]): Promise<void> {
    const s = this.shard;
    if (!s || !this.deps.listForObjects) return;
    const inRanges = (p: bigint) => ranges.some((r) => p >= r.start && p < r.end);
    if (s.field === 'singleton' && !inRanges(this.singletonPoint())) return;
    let objects: KubernetesObject[];
    try {
      objects = await this.deps.listForObjects();
    } catch (err) {
      this.log.error({ err }, 'sharding: could not list the for() objects of ranges just taken');
      return;
    }
    const low = this.queueFor(LOW_PRIORITY);
    for (const o of objects) {
      const md = o.metadata ?? {};
      const req: Request = { namespace: md.namespace ?? '', name: md.name ?? '' };
      if (s.field === 'uid') {
        if (!md.uid || !inRanges(fnv1a64(md.uid))) continue;
        this.points.set(requestKey(req), { point: fnv1a64(md.uid), own: true });
      } else if (s.field === 'namespace' && !inRanges(fnv1a64(req.namespace))) continue;
      low.add(req);
    }
  }

  /** A queue that notes, for each request a handler adds, the uid the event object gives it. */
  private recording(q: RequestQueue, obj: KubernetesObject): RequestQueue {
    return {
      add: (r, o) => {
        this.notePoint(r, obj);
        q.add(r, o);
      },
      addAfter: (r, d, o) => {
        this.notePoint(r, obj);
        q.addAfter(r, d, o);
      },
      addRateLimited: (r, o) => {
        this.notePoint(r, obj);
        q.addRateLimited(r, o);
      },
    };
  }

  /**
   * The request is the event's own object (of the for() kind): its uid. The request names the
   * object's controller owner (an owns() watch, or a map function that maps to the owner): the
   * owner's uid from the ownerReference, so owned objects follow their owner's shard.
   */
  private notePoint(r: Request, obj: KubernetesObject): void {
    const md = obj.metadata;
    const forKind = this.deps.forKind;
    if (!md || !forKind) return;
    const group = (v: string | undefined) => (v?.includes('/') ? v.slice(0, v.indexOf('/')) : '');
    let uid: string | undefined;
    if (
      md.uid &&
      md.name === r.name &&
      (md.namespace ?? '') === (r.namespace ?? '') &&
      obj.kind === forKind.kind &&
      group(obj.apiVersion) === forKind.group
    )
      uid = md.uid;
    else {
      const owner = md.ownerReferences?.find(
        (o) => o.controller && o.kind === forKind.kind && group(o.apiVersion) === forKind.group && o.name === r.name,
      );
      if (owner && (md.namespace ?? '') === (r.namespace ?? '')) uid = owner.uid;
    }
    if (uid) this.points.set(requestKey(r), { point: fnv1a64(uid), own: uid === md.uid });
  }

  /**
   * The manager's sharding plan asks each controller how it wants its types cached: by `field`
   * (the controller's own, or the manager's), or whole.
   */
  shardVotes(managerField: 'uid' | 'namespace'): { type: string; vote: 'uid' | 'namespace' | 'whole' }[] {
    const o = this.options.sharding;
    const field = o === false ? undefined : (o?.field ?? managerField);
    return (this.deps.watchedTypes ?? []).map((t) => ({
      type: t.type,
      vote: field === undefined ? 'whole' : field === 'namespace' ? 'namespace' : t.for ? 'uid' : 'whole',
    }));
  }

  /**
   * Counts consecutive requeues under a second per request; at SUB_SECOND_STREAK in a row, warns
   * once per controller (a hot loop).
   */
  private noteRequeue(req: Request, delayMs: number): void {
    const key = requestKey(req);
    if (delayMs >= 1000) {
      this.quickRequeues.delete(key);
      return;
    }
    const n = (this.quickRequeues.get(key) ?? 0) + 1;
    this.quickRequeues.set(key, n);
    if (n >= SUB_SECOND_STREAK && !this.warnedQuickRequeue) {
      this.warnedQuickRequeue = true;
      this.log.warn(
        { namespace: req.namespace, name: req.name, requeueAfterSeconds: delayMs / 1000, times: n },
        `reconcile keeps asking to run again within a second (requeueAfterSeconds: ${delayMs / 1000}, i.e. ${delayMs} ms): ` +
          'this is a hot loop; return a longer delay or rely on watch events',
      );
    }
  }

  /** One reconcile; with a TracerProvider registered, inside its reconcile span (see tracing.ts). */
  private reconcileHandler(req: Request, signal: AbortSignal, queuedWith: number, queuedMs?: number): Promise<void> {
    const reconcileID = randomUUID();
    const tracer = activeTracer();
    const span =
      tracer &&
      safely(
        () =>
          new ReconcileSpan(tracer, {
            controller: this.name,
            forKind: this.deps.forKind,
            req,
            reconcileID,
            priority: queuedWith,
            queueWaitMs: queuedMs,
            links: this.enqueueLinks.take(requestKey(req)),
          }),
      );
    if (!span) return this.reconcileOnce(req, signal, queuedWith, reconcileID);
    const own = safely(() => span.ownSignal(signal));
    return span
      .run(() => this.reconcileOnce(req, own?.signal ?? signal, queuedWith, reconcileID, span))
      .finally(() => own?.done());
  }

  private async reconcileOnce(
    req: Request,
    signal: AbortSignal,
    queuedWith: number,
    reconcileID: string,
    span?: ReconcileSpan,
  ): Promise<void> {
    const b = this.bound;
    // The per-reconcile child logger is only built if someone logs.
    let child: Logger | undefined;
    const parent = this.log;
    const forKind = this.deps.forKind;
    // The timeout guardrail: the reconcile's own signal also aborts when the time is up.
    const timeoutMs = this.options.reconciliationTimeoutMs;
    let timedOut = false;
    let timer: NodeJS.Timeout | undefined;
    let reconcileSignal = signal;
    if (timeoutMs !== undefined && timeoutMs > 0) {
      const guard = new AbortController();
      timer = setTimeout(() => {
        timedOut = true;
        guard.abort(new ReconciliationTimeoutError(timeoutMs));
      }, timeoutMs);
      reconcileSignal = AbortSignal.any([signal, guard.signal]);
      if (span) safely(() => span.bind(reconcileSignal));
    }
    const traceIds = span && safely(() => span.logIds());
    const ctx: ReconcileContext = {
      signal: reconcileSignal,
      reconcileID,
      get logger(): Logger {
        const kind = forKind?.kind;
        // A request of another cluster than the host logs its cluster (kubeforge/runtime/multicluster).
        const cluster = req.clusterName ? { cluster: req.clusterName } : {};
        child ??= parent.child(
          kind
            ? {
                [kind]: { name: req.name, namespace: req.namespace },
                namespace: req.namespace,
                name: req.name,
                ...cluster,
                reconcileID,
                ...traceIds,
              }
            : { namespace: req.namespace, name: req.name, ...cluster, reconcileID, ...traceIds },
        );
        return child;
      },
    };
    const t0 = performance.now();
    let result: Result | void;
    try {
      result = await callReconciler(this.reconciler, req, ctx);
      checkResult(result);
    } catch (err) {
      clearTimeout(timer);
      // Counted only when the guardrail fired (not when the manager's shutdown aborted the signal).
      if (timedOut) b.timeouts.inc();
      b.time.observe((performance.now() - t0) / 1000);
      b.errors.inc();
      b.total.error.inc();
      span?.threw(err, {
        panic: isPanic(err),
        terminal: !isPanic(err) && isTerminalError(err),
        timedOut,
      });
      if (isPanic(err)) {
        b.panics.inc();
        if (!this.recoverPanic) {
          ctx.logger.error({ err }, 'Observed a panic in reconciler (recoverPanic is off): stopping the controller');
          throw err;
        }
        ctx.logger.error({ err }, 'Observed a panic in reconciler; recovered, requeueing with back-off');
        this.requeuePoint(req);
        this.queue.addRateLimited(req, queuedWith);
        return;
      }
      if (isTerminalError(err)) {
        b.terminal.inc();
        ctx.logger.error({ err }, 'Reconciler error (terminal, not requeued)');
        this.queue.forget(req);
        return;
      }
      ctx.logger.error({ err }, 'Reconciler error');
      this.quickRequeues.delete(requestKey(req));
      this.requeuePoint(req);
      this.queue.addRateLimited(req, queuedWith);
      return;
    }
    clearTimeout(timer);
    if (timedOut) b.timeouts.inc();
    b.time.observe((performance.now() - t0) / 1000);
    const delay = requeueDelayMs(result);
    span?.returned(result, delay, timedOut);
    const priority = this.options.usePriorityQueue === false ? 0 : (result?.priority ?? queuedWith);
    if (delay > 0) {
      this.noteRequeue(req, delay);
      this.queue.forget(req);
      this.requeuePoint(req);
      this.queue.addAfter(req, delay, priority);
      b.total.requeue_after.inc();
    } else if (result?.requeue) {
      this.quickRequeues.delete(requestKey(req));
      this.requeuePoint(req);
      this.queue.addRateLimited(req, priority);
      b.total.requeue.inc();
    } else {
      this.quickRequeues.delete(requestKey(req));
      this.queue.forget(req);
      b.total.success.inc();
    }
  }
}

/**
 * An event about an object that did not change: one of a watch's initial list, or a resync (an
 * update with the same resourceVersion). Its requests get LOW_PRIORITY (controller-runtime's
 * WithLowPriorityWhenUnchanged).
 */
function unchanged(kind: string, e: unknown): boolean {
  if (kind === 'create') return (e as { isInInitialList?: boolean }).isInInitialList === true;
  if (kind !== 'update') return false;
  const { objectOld, objectNew } = e as { objectOld?: KubernetesObject; objectNew?: KubernetesObject };
  const rv = objectNew?.metadata?.resourceVersion;
  return rv !== undefined && rv === objectOld?.metadata?.resourceVersion;
}
