/**
 * The controller work queue (client-go's rate-limiting, delaying work queue):
 * - a key is queued at most once however often it is added (dedup);
 * - a key is never handed to two workers at once: adding a key that is being processed marks it
 *   dirty, and it is queued again when the worker calls `done`;
 * - `addAfter` delays an add (the earliest pending time wins), `addRateLimited` asks the rate
 *   limiter for the delay, `forget` clears a key's failure history;
 * - `shutDown` stops it: adds are ignored, queued and delayed keys are dropped, waiting `get`s
 *   resolve with `shutdown: true`; `shutDownWithDrain` additionally waits until every key being
 *   processed is `done`. (Dropping the queued keys is deliberate: informers replay every object
 *   on the next start, so nothing is lost, and shutdown does not run stale work.)
 * - `setGate` installs a check asked synchronously right before every hand-out (the manager's
 *   leadership): once it answers false the queue shuts down instead of handing the key out.
 * - Priorities (controller-runtime 0.23's priority queue, on by default there): every add may
 *   carry a priority (default 0); the highest is handed out first, in the order added within one
 *   priority. Adding a queued key with a higher priority raises it (a lower one never lowers it).
 */
import type { Clock } from './clock.js';
import { realClock } from './clock.js';
import type { RateLimiter } from './ratelimiter.js';
import { defaultControllerRateLimiter } from './ratelimiter.js';

/** Hooks a queue reports to (see metrics.ts for the Prometheus implementation). */
export interface WorkQueueMetrics {
  add(): void;
  /** A key left the queue for a worker, after waiting `queuedMs`. */
  get(queuedMs: number): void;
  /** A worker finished a key after `workMs`. */
  done(workMs: number): void;
  retry(): void;
  /** The queue length changed. */
  depth(n: number): void;
  /** `delta` keys of one priority joined (or, negative, left) the queue (controller-runtime's depth by priority). */
  priorityDepth?(priority: number, delta: number): void;
  /** Registers a function giving the start times of keys being processed (for unfinished-work gauges). */
  trackProcessing?(startTimes: () => Iterable<number>, clock: Clock): void;
}

/** What `get` resolves with: the item and the priority it was queued with. */
export type GetResult<T> =
  | {
      item: T;
      priority: number;
      shutdown: false;
      /** How long the item waited in the queue, from its (latest) add to this hand-out, in ms. */
      queuedMs: number;
    }
  | { item?: undefined; priority?: undefined; shutdown: true };

/** The priority controller-runtime gives events of the initial list and of resyncs (handler.LowPriority). */
export const LOW_PRIORITY = -100;

/** One priority's keys, first in first out. */
interface Bucket {
  /** Keys with the number of the enqueue that put them here (an entry is live while it is its key's latest). */
  keys: { key: string; seq: number }[];
  head: number;
}

/** Options of a WorkQueue. */
export interface WorkQueueOptions<T> {
  /** For metrics and logs. */
  name?: string;
  /** Identity of an item (dedup). Default: the item itself if a string, else JSON. */
  keyOf?: (item: T) => string;
  clock?: Clock;
  /** Default: controller-runtime's default controller rate limiter. */
  rateLimiter?: RateLimiter;
  metrics?: WorkQueueMetrics;
}

interface Delayed<T> {
  key: string;
  item: T;
  at: number;
  priority: number;
}

/** See the module comment. */
export class WorkQueue<T = string> {
  readonly name: string;
  private readonly keyOf: (item: T) => string;
  private readonly clock: Clock;
  private readonly rateLimiter: RateLimiter;
  private readonly metrics?: WorkQueueMetrics;
  /** Queued keys by priority; `queued` says which entries are live (a raised key leaves a stale one behind). */
  private readonly buckets = new Map<number, Bucket>();
  /** The priorities that have a bucket, highest first. */
  private order: number[] = [];
  /** Keys in a bucket now -> the number of their live entry. */
  private readonly queued = new Map<string, number>();
  /** Keys in a bucket now -> the priority of their live entry, and the count of live keys per priority. */
  private readonly queuedPriority = new Map<string, number>();
  private readonly depthByPriority = new Map<number, number>();
  private seq = 0;
  /** Keys wanting processing (queued, or re-added while processing), with their latest item. */
  private readonly dirty = new Map<string, T>();
  /** The priority of each dirty key. */
  private readonly priorityOf = new Map<string, number>();
  /** Keys being processed -> start time. */
  private readonly processing = new Map<string, number>();
  private readonly addedAt = new Map<string, number>();
  private waiters: ((r: GetResult<T>) => void)[] = [];
  private readonly delayed = new Map<string, Delayed<T>>();
  private timer: unknown;
  private timerAt = Infinity;
  private shutting = false;
  private drainWaiters: (() => void)[] = [];
  private gate?: () => boolean;
  private onGateClosed?: () => void;
  private admit?: (item: T) => boolean;

  constructor(opts: WorkQueueOptions<T> = {}) {
    this.name = opts.name ?? '';
    this.keyOf = opts.keyOf ?? ((x: T) => (typeof x === 'string' ? x : JSON.stringify(x)));
    this.clock = opts.clock ?? realClock;
    this.rateLimiter = opts.rateLimiter ?? defaultControllerRateLimiter(this.clock);
    this.metrics = opts.metrics;
    this.metrics?.trackProcessing?.(() => this.processing.values(), this.clock);
  }

  /** Keys waiting in the queue (not counting delayed or in-process ones). */
  len(): number {
    return this.queued.size;
  }

  /** Keys waiting for a delayed add. */
  delayedLen(): number {
    return this.delayed.size;
  }

  /** True after shutDown. */
  shuttingDown(): boolean {
    return this.shutting;
  }

  /**
   * Queues the item unless already queued (then a higher `priority` raises it); if it is being
   * processed, it runs again after `done`. Ignored after shutdown.
   */
  add(item: T, priority = 0): void {
    if (this.shutting || (this.admit && !this.admit(item))) return;
    const key = this.keyOf(item);
    if (this.dirty.has(key)) {
      this.dirty.set(key, item);
      if (priority > (this.priorityOf.get(key) ?? 0)) {
        this.priorityOf.set(key, priority);
        if (this.queued.has(key)) this.enqueue(key, priority);
      }
      return;
    }
    this.metrics?.add();
    this.dirty.set(key, item);
    this.priorityOf.set(key, priority);
    if (this.processing.has(key)) return;
    this.push(key);
  }

  private enqueue(key: string, priority: number): void {
    let b = this.buckets.get(priority);
    if (!b) {
      b = { keys: [], head: 0 };
      this.buckets.set(priority, b);
      this.order = [...this.buckets.keys()].sort((x, y) => y - x);
    }
    const seq = ++this.seq;
    b.keys.push({ key, seq });
    this.queued.set(key, seq);
    const old = this.queuedPriority.get(key);
    if (old !== undefined) this.countDepth(old, -1);
    this.queuedPriority.set(key, priority);
    this.countDepth(priority, 1);
  }

  private countDepth(priority: number, delta: number): void {
    const n = (this.depthByPriority.get(priority) ?? 0) + delta;
    this.depthByPriority.set(priority, n);
    this.metrics?.priorityDepth?.(priority, delta);
  }

  /** The next live key, highest priority first (undefined when none). */
  private pop(): string | undefined {
    for (const p of this.order) {
      const b = this.buckets.get(p);
      if (!b) continue;
      while (b.head < b.keys.length) {
        const { key, seq } = b.keys[b.head++];
        if (this.queued.get(key) === seq) {
          if (b.head > 1024 && b.head * 2 > b.keys.length) {
            b.keys = b.keys.slice(b.head);
            b.head = 0;
          }
          this.queued.delete(key);
          const p = this.queuedPriority.get(key);
          if (p !== undefined) this.countDepth(p, -1);
          this.queuedPriority.delete(key);
          return key;
        }
      }
      b.keys = [];
      b.head = 0;
    }
    return undefined;
  }

  /**
   * Installs a check asked synchronously before every hand-out. When it answers false the queue
   * shuts down (as `shutDown`) and `onClosed` runs once; the key stays unprocessed.
   */
  setGate(gate: () => boolean, onClosed?: () => void): void {
    this.gate = gate;
    this.onGateClosed = onClosed;
  }

  /** False (after shutting down) when the gate closed. */
  private gateOpen(): boolean {
    if (!this.gate || this.gate()) return true;
    if (!this.shutting) {
      this.shutDown();
      this.onGateClosed?.();
    }
    return false;
  }

  private push(key: string): void {
    this.addedAt.set(key, this.clock.now());
    if (this.waiters.length > 0 && this.gateOpen()) {
      const waiter = this.waiters.shift();
      if (waiter) {
        this.handOut(key, waiter);
        return;
      }
    }
    if (this.shutting) return;
    this.enqueue(key, this.priorityOf.get(key) ?? 0);
    this.metrics?.depth(this.len());
  }

  private handOut(key: string, resolve: (r: GetResult<T>) => void): void {
    const item = this.dirty.get(key);
    if (item === undefined) throw new Error(`kubeforge/runtime: workqueue hands out ${key}, which it does not hold`);
    const priority = this.priorityOf.get(key) ?? 0;
    this.dirty.delete(key);
    this.priorityOf.delete(key);
    const now = this.clock.now();
    this.processing.set(key, now);
    const queuedMs = now - (this.addedAt.get(key) ?? now);
    this.metrics?.get(queuedMs);
    this.addedAt.delete(key);
    resolve({ item, priority, shutdown: false, queuedMs });
  }

  /**
   * Waits for the next item; the caller must call `done(item)` when finished with it. Resolves
   * with `{ shutdown: true }` once the queue is shut down.
   */
  get(): Promise<GetResult<T>> {
    if (this.shutting) return Promise.resolve({ shutdown: true });
    if (this.len() > 0) {
      if (!this.gateOpen()) return Promise.resolve({ shutdown: true });
      const key = this.pop();
      if (key !== undefined) {
        this.metrics?.depth(this.len());
        return new Promise((resolve) => this.handOut(key, resolve));
      }
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Marks the item finished; if it was re-added meanwhile, it is queued again now. */
  done(item: T): void {
    const key = this.keyOf(item);
    const started = this.processing.get(key);
    if (started === undefined) return;
    this.processing.delete(key);
    this.metrics?.done(this.clock.now() - started);
    if (this.dirty.has(key) && !this.shutting) this.push(key);
    if (this.processing.size === 0 && this.drainWaiters.length) {
      const w = this.drainWaiters;
      this.drainWaiters = [];
      for (const f of w) f();
    }
  }

  /** Adds the item after `delayMs` (immediately if <= 0). A pending earlier time for the same key wins; the higher priority stays. */
  addAfter(item: T, delayMs: number, priority = 0): void {
    if (this.shutting || (this.admit && !this.admit(item))) return;
    if (delayMs <= 0) {
      this.add(item, priority);
      return;
    }
    const key = this.keyOf(item);
    const at = this.clock.now() + delayMs;
    const cur = this.delayed.get(key);
    if (cur && cur.at <= at) {
      if (priority > cur.priority) cur.priority = priority;
      return;
    }
    this.delayed.set(key, { key, item, at, priority: Math.max(priority, cur?.priority ?? priority) });
    this.arm();
  }

  private arm(): void {
    let next = Infinity;
    for (const d of this.delayed.values()) if (d.at < next) next = d.at;
    if (next === this.timerAt) return;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = next;
    if (next === Infinity) return;
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Infinity;
      const now = this.clock.now();
      const due = [...this.delayed.values()].filter((d) => d.at <= now).sort((a, b) => a.at - b.at);
      for (const d of due) {
        this.delayed.delete(d.key);
        this.add(d.item, d.priority);
      }
      this.arm();
    }, next - this.clock.now());
  }

  /** Adds the item after the rate limiter's delay for it (one more failure); counted as a retry. */
  addRateLimited(item: T, priority = 0): void {
    if (this.shutting || (this.admit && !this.admit(item))) return;
    this.metrics?.retry();
    this.addAfter(item, this.rateLimiter.when(this.keyOf(item)), priority);
  }

  /** Clears the item's failure history (call after a success). */
  forget(item: T): void {
    this.rateLimiter.forget(this.keyOf(item));
  }

  /** Failures of the item since its last forget. */
  numRequeues(item: T): number {
    return this.rateLimiter.numRequeues(this.keyOf(item));
  }

  /**
   * Installs a filter asked by every add (`add`, `addAfter`, `addRateLimited`, and a delayed
   * item when its time comes): an item it refuses is ignored (the requests of a cluster a
   * multi-cluster manager disengaged). Undefined removes it.
   */
  setAdmission(admit?: (item: T) => boolean): void {
    this.admit = admit;
  }

  /**
   * Drops the queued and delayed items `match` selects, and those re-added while being processed
   * (the one being processed still runs to `done`), forgetting their failure history; returns how
   * many it dropped.
   */
  dropWhere(match: (item: T) => boolean): number {
    let n = 0;
    for (const [key, item] of [...this.dirty]) {
      if (!match(item)) continue;
      n++;
      this.dirty.delete(key);
      this.priorityOf.delete(key);
      this.addedAt.delete(key);
      if (this.queued.delete(key)) {
        const p = this.queuedPriority.get(key);
        if (p !== undefined) this.countDepth(p, -1);
        this.queuedPriority.delete(key);
      }
      this.rateLimiter.forget(key);
    }
    for (const [key, d] of [...this.delayed]) {
      if (!match(d.item)) continue;
      n++;
      this.delayed.delete(key);
      this.rateLimiter.forget(key);
    }
    this.arm();
    this.metrics?.depth(this.len());
    return n;
  }

  /** Stops the queue: adds are ignored, queued and delayed items dropped, `get` resolves with shutdown. */
  shutDown(): void {
    if (this.shutting) return;
    this.shutting = true;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
    this.delayed.clear();
    for (const k of this.queued.keys()) {
      this.dirty.delete(k);
      this.priorityOf.delete(k);
    }
    this.queued.clear();
    this.queuedPriority.clear();
    for (const [p, n] of this.depthByPriority) this.countDepth(p, -n);
    this.buckets.clear();
    this.order = [];
    this.metrics?.depth(0);
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f({ shutdown: true });
  }

  /** shutDown, then resolves once every item being processed has been marked `done`. */
  shutDownWithDrain(): Promise<void> {
    this.shutDown();
    if (this.processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }
}
