// Requeue delays with explicit units, the warning on a sub-second requeue loop, and
// controller-runtime's log keys, at unit level: a channel source, a fake clock, no API server.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import { Registry } from 'prom-client';
import type { Cache } from '../../../src/runtime/contracts.js';
import {
  ChannelSource,
  Controller,
  FakeClock,
  enqueueRequestForObject,
  type Result,
} from '../../../src/runtime/controller/index.js';
import { checkResult, requeueDelayMs } from '../../../src/runtime/controller/reconcile.js';
import { must } from '../../helpers/must.js';

function setup(reconcile: (n: number) => Result | void) {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'debug' }, { write: (l: string) => void lines.push(JSON.parse(l)) });
  const clock = new FakeClock(0);
  const calls: number[] = [];
  const c = new Controller(
    'memcached',
    (_req, ctx) => {
      calls.push(clock.now());
      ctx.logger.info('reconciling');
      return reconcile(calls.length);
    },
    {
      cache: {} as Cache,
      logger,
      registry: new Registry(),
      forKind: { group: 'cache.example.com', kind: 'Memcached' },
    },
    { clock },
  );
  const src = new ChannelSource();
  c.watch(src, enqueueRequestForObject());
  const ac = new AbortController();
  const done = c.start(ac.signal);
  src.send({
    apiVersion: 'cache.example.com/v1alpha1',
    kind: 'Memcached',
    metadata: { namespace: 'default', name: 'sample' },
  });
  /** Lets the worker run until it waits for the queue again. */
  const settle = async () => {
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
  };
  return {
    lines,
    clock,
    calls,
    settle,
    stop: async () => {
      ac.abort();
      return await done;
    },
  };
}

describe('requeue delays', () => {
  it('requeueDelayMs reads requeueAfterSeconds, the one spelling of a delay', () => {
    assert.equal(requeueDelayMs({ requeueAfterSeconds: 60 }), 60_000);
    assert.equal(requeueDelayMs({ requeueAfterSeconds: 0.25 }), 250);
    // @ts-expect-error no unitless requeueAfter: a port of Go's RequeueAfter says seconds
    assert.equal(requeueDelayMs({ requeueAfter: 60 }), 0);
    assert.equal(requeueDelayMs({ requeue: true }), 0);
    assert.equal(requeueDelayMs(undefined), 0);
  });

  it('requeueAfterSeconds: 60 comes back after 60 s of the clock, without a warning', async () => {
    const t = setup((n) => (n < 3 ? { requeueAfterSeconds: 60 } : undefined));
    await t.settle();
    assert.deepEqual(t.calls, [0]);
    t.clock.step(59_999);
    await t.settle();
    assert.deepEqual(t.calls, [0]);
    t.clock.step(1);
    await t.settle();
    t.clock.step(60_000);
    await t.settle();
    assert.deepEqual(t.calls, [0, 60_000, 120_000]);
    await t.stop();
    assert.equal(t.lines.filter((l) => l.level === 40).length, 0);
  });

  it('requeueAfterMs is gone: a type error in TypeScript, a TypeError naming its replacement at run time', () => {
    // @ts-expect-error requeueAfterMs was removed from Result
    const stale: Result = { requeueAfterMs: 250 };
    assert.throws(
      () => checkResult(stale),
      (e: Error) =>
        e instanceof TypeError &&
        e.message ===
          "reconcile returned { requeueAfterMs: 250 }: return { requeueAfterSeconds: 0.25 } instead (requeueAfterMs was removed; the delay is in seconds, as controller-runtime's RequeueAfter)",
    );
    checkResult({ requeueAfterSeconds: 1 });
    checkResult(undefined);
  });

  it('a JavaScript reconcile still returning requeueAfterMs panics (a TypeError): logged for its request and retried with back-off', async () => {
    const t = setup((n) => (n === 1 ? ({ requeueAfterMs: 250 } as Result) : undefined));
    await t.settle();
    assert.deepEqual(t.calls, [0]);
    // Not after 250 ms (the old meaning) but after the rate limiter's first back-off (5 ms).
    t.clock.step(5);
    await t.settle();
    assert.deepEqual(t.calls, [0, 5]);
    await t.stop();
    const errors = t.lines.filter((l) => l.level === 50);
    assert.equal(errors.length, 1, JSON.stringify(errors));
    assert.equal(errors[0].msg, 'Observed a panic in reconciler; recovered, requeueing with back-off');
    assert.equal(errors[0].controller, 'memcached');
    assert.equal(errors[0].name, 'sample');
    assert.match(String((errors[0].err as { message?: string }).message), /requeueAfterMs.*requeueAfterSeconds: 0\.25/);
  });

  it('a reconcile that keeps returning requeueAfterSeconds: 0.06 warns once per controller', async () => {
    const t = setup(() => ({ requeueAfterSeconds: 0.06 }));
    await t.settle();
    for (let i = 0; i < 12; i++) {
      t.clock.step(60);
      await t.settle();
    }
    assert.equal(t.calls.length, 13);
    await t.stop();
    const warnings = t.lines.filter((l) => l.level === 40);
    assert.equal(warnings.length, 1, JSON.stringify(warnings));
    assert.match(
      String(warnings[0].msg),
      /within a second \(requeueAfterSeconds: 0\.06, i\.e\. 60 ms\): this is a hot loop; return a longer delay or rely on watch events/,
    );
    assert.equal(warnings[0].controller, 'memcached');
  });

  it('logs with controller-runtime keys', async () => {
    const t = setup(() => undefined);
    await t.settle();
    await t.stop();
    const line = must(
      t.lines.find((l) => l.msg === 'reconciling'),
      "t.lines.find((l) => l.msg === 'reconciling')",
    );
    assert.equal(line.controller, 'memcached');
    assert.equal(line.controllerGroup, 'cache.example.com');
    assert.equal(line.controllerKind, 'Memcached');
    assert.equal(line.namespace, 'default');
    assert.equal(line.name, 'sample');
    assert.deepEqual(line.Memcached, { name: 'sample', namespace: 'default' });
    assert.match(String(line.reconcileID), /^[0-9a-f-]{36}$/);
  });
});
