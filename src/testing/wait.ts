/**
 * Gomega's Eventually and Consistently for node:test: the waits every controller test needs
 * (a reconcile happens some time after a write). Assert inside the function with node:assert;
 * a throw or a `false` return is "not yet" (eventually) or "broken" (consistently).
 */
import { checkOptions, type OptionNames } from '../runtime/options.js';

/** Options of {@link eventually}. Durations are milliseconds. */
export interface EventuallyOptions {
  /** Give up after this long (default 10 000, the Kubebuilder book's timeout). */
  timeout?: number;
  /** Wait between attempts (default 250). */
  interval?: number;
  /** Prefix of the failure message, e.g. "the Deployment gets 3 replicas". */
  message?: string;
}

/** Options of {@link consistently}. Durations are milliseconds. */
export interface ConsistentlyOptions {
  /** How long the function must keep passing (default 2 000). */
  duration?: number;
  /** Wait between attempts (default 250). */
  interval?: number;
  /** Prefix of the failure message. */
  message?: string;
}

const EVENTUALLY_OPTION_NAMES: OptionNames<EventuallyOptions> = { timeout: true, interval: true, message: true };
const CONSISTENTLY_OPTION_NAMES: OptionNames<ConsistentlyOptions> = { duration: true, interval: true, message: true };

/** Thrown by {@link eventually} and {@link consistently}; `cause` is the last error, `lastValue` the last value returned. */
export class WaitError extends Error {
  constructor(
    message: string,
    readonly attempts: number,
    readonly lastValue?: unknown,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'WaitError';
  }
}

/**
 * An abort signal that fires after `ms`. Unlike AbortSignal.timeout, its timer keeps the process
 * alive: a test awaiting a hung attempt must still time out, not end with "promise pending".
 */
function deadline(ms: number): { signal: AbortSignal; clear: () => void } {
  const ac = new AbortController();
  const t = setTimeout(() => ac.abort(new Error(`timed out after ${ms} ms`)), ms);
  return { signal: ac.signal, clear: () => clearTimeout(t) };
}

/**
 * Waits `ms`, or until `signal` aborts. Its abort listener goes when the wait ends either way:
 * left on a signal that outlives it, one per attempt, a poll of more than ten attempts printed
 * MaxListenersExceededWarning.
 */
const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });

function describe(value: unknown): string {
  if (value instanceof Error) return value.message;
  try {
    const text = JSON.stringify(value);
    if (text !== undefined) return text.length > 2000 ? `${text.slice(0, 2000)}...` : text;
  } catch {
    // fall through
  }
  return String(value);
}

type Outcome<T> = { ok: true; value: T } | { ok: false; error?: unknown; value?: unknown; timedOut?: boolean };

/** One attempt, bounded by `until` (an attempt that hangs past it counts as failed). */
async function attempt<T>(fn: (signal: AbortSignal) => T | Promise<T>, signal: AbortSignal): Promise<Outcome<T>> {
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<Outcome<T>>((resolve) => {
    onAbort = () => resolve({ ok: false, timedOut: true });
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  const run = (async (): Promise<Outcome<T>> => {
    try {
      const value = await fn(signal);
      return value === false ? { ok: false, value } : { ok: true, value };
    } catch (error) {
      return { ok: false, error };
    }
  })();
  try {
    return await Promise.race([run, aborted]);
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}

/**
 * Calls `fn` until it passes (returns anything but `false` without throwing), then resolves with
 * what it returned. `fn` gets a signal aborted at the timeout: pass it to client calls.
 * On timeout: rejects with a WaitError naming the attempts and the last error or value (the
 * last error is its `cause`). Never resolves after the timeout.
 */
export async function eventually<T>(
  fn: (signal: AbortSignal) => T | Promise<T>,
  options: EventuallyOptions = {},
): Promise<T> {
  checkOptions('eventually', options, EVENTUALLY_OPTION_NAMES, {
    timeoutMs: 'timeout',
    intervalMs: 'interval',
    pollingInterval: 'interval',
  });
  const timeout = options.timeout ?? 10_000;
  const interval = options.interval ?? 250;
  const { signal, clear } = deadline(timeout);
  const started = Date.now();
  let attempts = 0;
  let last: Extract<Outcome<T>, { ok: false }> | undefined;
  try {
    for (;;) {
      attempts++;
      const outcome = await attempt(fn, signal);
      if (outcome.ok) return outcome.value;
      if (!outcome.timedOut) last = outcome;
      if (signal.aborted) break;
      await sleep(interval, signal);
      if (signal.aborted) break;
    }
  } finally {
    clear();
  }
  const prefix = options.message ? `${options.message}: ` : '';
  const lastWords = !last
    ? 'the first attempt had not finished'
    : last.error !== undefined
      ? `last error: ${describe(last.error)}`
      : `last value: ${describe(last.value)}`;
  throw new WaitError(
    `${prefix}eventually timed out after ${Date.now() - started} ms (${attempts} attempt${attempts === 1 ? '' : 's'}); ${lastWords}`,
    attempts,
    last?.value,
    {
      cause: last?.error,
    },
  );
}

/**
 * Calls `fn` every `interval` for `duration` and requires every call to pass (Gomega's
 * Consistently: "this stays true", e.g. nothing is created while suspended). Resolves with the
 * last value; rejects at the first failure with a WaitError saying when it failed and why.
 */
export async function consistently<T>(
  fn: (signal: AbortSignal) => T | Promise<T>,
  options: ConsistentlyOptions = {},
): Promise<T> {
  checkOptions('consistently', options, CONSISTENTLY_OPTION_NAMES, {
    durationMs: 'duration',
    timeout: 'duration',
    intervalMs: 'interval',
    pollingInterval: 'interval',
  });
  const duration = options.duration ?? 2_000;
  const interval = options.interval ?? 250;
  const started = Date.now();
  const { signal, clear } = deadline(duration + interval);
  const prefix = options.message ? `${options.message}: ` : '';
  let attempts = 0;
  try {
    for (;;) {
      attempts++;
      const outcome = await attempt(fn, signal);
      const elapsed = Date.now() - started;
      if (!outcome.ok) {
        const why = outcome.timedOut
          ? 'the attempt did not finish in time'
          : outcome.error !== undefined
            ? describe(outcome.error)
            : `returned ${describe(outcome.value)}`;
        throw new WaitError(
          `${prefix}consistently failed after ${elapsed} ms (attempt ${attempts}): ${why}`,
          attempts,
          outcome.value,
          { cause: outcome.error },
        );
      }
      if (elapsed >= duration) return outcome.value;
      await sleep(Math.min(interval, duration - elapsed));
    }
  } finally {
    clear();
  }
}
