// eventually / consistently: Gomega's waits for node:test.
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { describe, it } from 'node:test';
import { consistently, eventually, WaitError } from '../../src/testing/index.js';

describe('eventually', () => {
  it('retries until the function passes and resolves with its value', async () => {
    let calls = 0;
    const value = await eventually(
      () => {
        calls++;
        assert.ok(calls >= 3, `not yet (${calls})`);
        return { ready: true, calls };
      },
      { interval: 5 },
    );
    assert.deepEqual(value, { ready: true, calls: 3 });
  });

  it('treats false as not yet, and awaits promises', async () => {
    let n = 0;
    assert.equal(await eventually(async () => ++n >= 2, { interval: 1 }), true);
    assert.equal(n, 2);
  });

  it('times out with the attempts, the last error as message and cause', async () => {
    let n = 0;
    const err = await eventually(
      () => {
        n++;
        throw new Error(`replicas is ${n}, want 3`);
      },
      { timeout: 120, interval: 20, message: 'the Deployment scales' },
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof WaitError);
    assert.match(
      err.message,
      /^the Deployment scales: eventually timed out after \d+ ms \(\d+ attempts\); last error: replicas is \d+, want 3$/,
    );
    assert.equal(err.attempts, n);
    assert.ok(n >= 2);
    assert.equal((err.cause as Error).message, `replicas is ${n}, want 3`);
  });

  it('reports the last value when the function kept returning false', async () => {
    await assert.rejects(
      eventually(() => false, { timeout: 50, interval: 10 }),
      /last value: false$/,
    );
  });

  it('gives the function a signal aborted at the timeout, and does not wait for a hung attempt', async () => {
    let seen: AbortSignal | undefined;
    const started = Date.now();
    await assert.rejects(
      eventually(
        (signal) => {
          seen = signal;
          return new Promise(() => {}); // never settles
        },
        { timeout: 80 },
      ),
      /the first attempt had not finished/,
    );
    assert.ok(Date.now() - started < 5_000);
    assert.equal(seen?.aborted, true);
  });
});

describe('consistently', () => {
  it('passes when every attempt over the duration passes, and returns the last value', async () => {
    let calls = 0;
    const started = Date.now();
    const v = await consistently(() => ++calls, { duration: 60, interval: 10 });
    assert.equal(v, calls);
    // Timers only ever fire late: how many attempts fit depends on the machine's load, but it
    // polls more than once and not for less than the duration.
    assert.ok(calls >= 2, `only ${calls} attempt(s)`);
    assert.ok(Date.now() - started >= 60, `returned after ${Date.now() - started} ms`);
  });

  it('fails at the first failing attempt, saying when and why', async () => {
    let calls = 0;
    const err = await consistently(
      () => {
        calls++;
        if (calls === 3) throw new Error('a Job was created while suspended');
      },
      { duration: 10_000, interval: 5, message: 'nothing runs' },
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof WaitError);
    assert.match(
      err.message,
      /^nothing runs: consistently failed after \d+ ms \(attempt 3\): a Job was created while suspended$/,
    );
    assert.equal(calls, 3, 'no attempt after the failure');
  });

  it('a false return is a failure', async () => {
    await assert.rejects(
      consistently(() => false, { duration: 50 }),
      /attempt 1\): returned false/,
    );
  });
});

describe('eventually / consistently: no listener left behind', () => {
  /** Runs `poll`, collecting the process warnings it prints. */
  async function warningsOf(poll: () => Promise<unknown>): Promise<string[]> {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    try {
      await poll();
      // Warnings are emitted on the next tick.
      await new Promise((r) => setImmediate(r));
    } finally {
      process.off('warning', onWarning);
    }
    return warnings;
  }

  it('a 50-attempt eventually keeps one abort listener on its signal (the attempt’s own) and leaves none', async () => {
    let signal: AbortSignal | undefined;
    const during: number[] = [];
    let n = 0;
    const warnings = await warningsOf(() =>
      eventually(
        (s) => {
          signal = s;
          during.push(getEventListeners(s, 'abort').length);
          return ++n >= 50;
        },
        { interval: 1, timeout: 30_000 },
      ),
    );
    assert.equal(n, 50);
    assert.deepEqual(warnings, []);
    assert.deepEqual(new Set(during), new Set([1]), `abort listeners at each attempt: ${during.join(',')}`);
    assert.ok(signal);
    assert.equal(getEventListeners(signal, 'abort').length, 0, 'no listener left after the wait');
    assert.deepEqual(warnings, []);
  });

  it('a 50-attempt consistently keeps one abort listener on its signal and leaves none', async () => {
    let signal: AbortSignal | undefined;
    const during: number[] = [];
    // 50 attempts that pass, then one that fails: the count does not depend on the machine's speed.
    const warnings = await warningsOf(() =>
      consistently(
        (s) => {
          signal = s;
          during.push(getEventListeners(s, 'abort').length);
          return during.length <= 50;
        },
        { interval: 1, duration: 60_000 },
      ).then(
        () => assert.fail('the 51st attempt fails'),
        (e: unknown) => assert.ok(e instanceof WaitError),
      ),
    );
    assert.equal(during.length, 51);
    assert.deepEqual(new Set(during), new Set([1]), `abort listeners at each attempt: ${during.join(',')}`);
    assert.ok(signal);
    assert.equal(getEventListeners(signal, 'abort').length, 0, 'no listener left after the wait');
    assert.deepEqual(warnings, []);
  });
});
