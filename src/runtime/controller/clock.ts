/**
 * Time source for the work queue and rate limiters, injectable so that requeue and back-off
 * timings can be tested without waiting (client-go's clock.Clock / testing.FakeClock).
 */

/** Milliseconds clock with timers. */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The longest delay Node's setTimeout honours. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** The real clock (Date.now, setTimeout). Timers are unref'd: a pending requeue never keeps the process alive. */
export const realClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => {
    // Node fires a timer over 2^31-1 ms (24.8 days) at once; the queue re-arms for what is left.
    const t = setTimeout(fn, Math.min(Math.max(0, ms), MAX_TIMER_MS));
    t.unref?.();
    return t;
  },
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

interface FakeTimer {
  id: number;
  at: number;
  fn: () => void;
}

/**
 * A clock that only moves when told (`step`, `setTime`). Due timers fire synchronously inside
 * `step`, in time order. For tests.
 */
export class FakeClock implements Clock {
  private t: number;
  private seq = 0;
  private timers: FakeTimer[] = [];

  constructor(start = 0) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const timer = { id: ++this.seq, at: this.t + Math.max(0, ms), fn };
    this.timers.push(timer);
    return timer.id;
  }

  clearTimeout(handle: unknown): void {
    this.timers = this.timers.filter((x) => x.id !== handle);
  }

  /** Number of timers waiting. */
  pendingTimers(): number {
    return this.timers.length;
  }

  /** Advances time by `ms`, firing every timer that falls due (including ones they schedule). */
  step(ms: number): void {
    this.setTime(this.t + ms);
  }

  /** Moves time to `t` (never backwards), firing due timers in order. */
  setTime(t: number): void {
    for (;;) {
      let next: FakeTimer | undefined;
      for (const x of this.timers)
        if (x.at <= t && (!next || x.at < next.at || (x.at === next.at && x.id < next.id))) next = x;
      if (!next) break;
      this.timers = this.timers.filter((x) => x !== next);
      this.t = Math.max(this.t, next.at);
      next.fn();
    }
    this.t = Math.max(this.t, t);
  }
}
