/**
 * Rate limiters deciding how long a requeued key waits (client-go's workqueue rate limiters).
 * They are keyed by the work queue's string key ("namespace/name").
 */
import type { Clock } from './clock.js';
import { realClock } from './clock.js';

/** How long to wait before the next attempt of a key. */
export interface RateLimiter {
  /** Delay (ms) before `key` may be processed again; counts as one more failure of it. */
  when(key: string): number;
  /** Clears the failure history of `key` (call on success). */
  forget(key: string): void;
  /** Failures recorded for `key` since its last forget. */
  numRequeues(key: string): number;
}

/** Per-key exponential back-off: base * 2^failures, capped (client-go's ItemExponentialFailureRateLimiter). */
export class ItemExponentialFailureRateLimiter implements RateLimiter {
  private readonly failures = new Map<string, number>();
  constructor(
    readonly baseDelayMs: number,
    readonly maxDelayMs: number,
  ) {}

  when(key: string): number {
    const exp = this.failures.get(key) ?? 0;
    this.failures.set(key, exp + 1);
    const d = this.baseDelayMs * 2 ** exp;
    return !Number.isFinite(d) || d > this.maxDelayMs ? this.maxDelayMs : d;
  }
  forget(key: string): void {
    this.failures.delete(key);
  }
  numRequeues(key: string): number {
    return this.failures.get(key) ?? 0;
  }
}

/** A few fast retries, then slow ones (client-go's ItemFastSlowRateLimiter). */
export class ItemFastSlowRateLimiter implements RateLimiter {
  private readonly failures = new Map<string, number>();
  constructor(
    readonly fastDelayMs: number,
    readonly slowDelayMs: number,
    readonly maxFastAttempts: number,
  ) {}
  when(key: string): number {
    const n = (this.failures.get(key) ?? 0) + 1;
    this.failures.set(key, n);
    return n <= this.maxFastAttempts ? this.fastDelayMs : this.slowDelayMs;
  }
  forget(key: string): void {
    this.failures.delete(key);
  }
  numRequeues(key: string): number {
    return this.failures.get(key) ?? 0;
  }
}

/**
 * Overall token bucket: `qps` tokens per second, at most `burst` saved (golang.org/x/time/rate
 * reservations, as client-go's BucketRateLimiter). Not per key: forget/numRequeues do nothing.
 */
export class BucketRateLimiter implements RateLimiter {
  private tokens: number;
  private last: number;
  constructor(
    readonly qps: number,
    readonly burst: number,
    private readonly clock: Clock = realClock,
  ) {
    this.tokens = burst;
    this.last = clock.now();
  }
  when(_key: string): number {
    const now = this.clock.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.qps) * 1000;
  }
  forget(_key: string): void {}
  numRequeues(_key: string): number {
    return 0;
  }
}

/** The longest delay of several limiters (client-go's MaxOfRateLimiter). */
export class MaxOfRateLimiter implements RateLimiter {
  readonly limiters: RateLimiter[];
  constructor(...limiters: RateLimiter[]) {
    this.limiters = limiters;
  }
  when(key: string): number {
    let max = 0;
    for (const l of this.limiters) max = Math.max(max, l.when(key));
    return max;
  }
  forget(key: string): void {
    for (const l of this.limiters) l.forget(key);
  }
  numRequeues(key: string): number {
    let max = 0;
    for (const l of this.limiters) max = Math.max(max, l.numRequeues(key));
    return max;
  }
}

/**
 * controller-runtime's default: max(per-key exponential 5 ms doubling to 1000 s, overall token
 * bucket 10 qps with burst 100).
 */
export function defaultControllerRateLimiter(clock: Clock = realClock): RateLimiter {
  return new MaxOfRateLimiter(
    new ItemExponentialFailureRateLimiter(5, 1_000_000),
    new BucketRateLimiter(10, 100, clock),
  );
}
