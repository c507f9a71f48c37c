// Work queue and rate limiters at unit level, driven by a fake clock (no real waiting).
import { describe, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import {
  BucketRateLimiter,
  FakeClock,
  ItemExponentialFailureRateLimiter,
  ItemFastSlowRateLimiter,
  MaxOfRateLimiter,
  defaultControllerRateLimiter,
} from '../../../src/runtime/controller/index.js';
import { WorkQueue } from '../../../src/runtime/controller/workqueue.js';
import { workQueueMetrics } from '../../../src/runtime/controller/metrics.js';
import { Registry } from 'prom-client';
import { MAX_TIMER_MS, realClock } from '../../../src/runtime/controller/clock.js';
import { must } from '../../helpers/must.js';

const tick = () => new Promise((r) => setImmediate(r));

describe('WorkQueue', () => {
  it('deduplicates keys waiting in the queue', async () => {
    const q = new WorkQueue<string>();
    q.add('a');
    q.add('b');
    q.add('a');
    assert.equal(q.len(), 2);
    assert.deepEqual((await q.get()).item, 'a');
    assert.deepEqual((await q.get()).item, 'b');
    assert.equal(q.len(), 0);
  });

  it('never hands the same key to two workers, and re-runs a key re-added while processing', async () => {
    const q = new WorkQueue<string>();
    q.add('a');
    const first = await q.get();
    assert.equal(first.item, 'a');
    q.add('a'); // re-added while processing: held back
    q.add('a');
    assert.equal(q.len(), 0, 'a key being processed is not queued again yet');
    let second: string | undefined;
    const waiting = q.get().then((r) => (second = r.item));
    await tick();
    assert.equal(second, undefined, 'a second worker does not get the key while the first holds it');
    q.done('a');
    await waiting;
    assert.equal(second, 'a', 'the key runs again (once) after done');
    q.done('a');
    assert.equal(q.len(), 0);
  });

  it('serves waiting workers in order and keeps other keys flowing', async () => {
    const q = new WorkQueue<string>();
    const got: string[] = [];
    const w1 = q.get().then((r) => got.push(must(r.item, 'r.item')));
    const w2 = q.get().then((r) => got.push(must(r.item, 'r.item')));
    q.add('x');
    q.add('y');
    await Promise.all([w1, w2]);
    assert.deepEqual(got, ['x', 'y']);
  });

  it('addAfter delays with the clock, keeping the earliest time for a key', async () => {
    const clock = new FakeClock(1000);
    const q = new WorkQueue<string>({ clock });
    q.addAfter('a', 100);
    q.addAfter('a', 500); // later: ignored
    q.addAfter('b', 50);
    q.addAfter('a', 80); // earlier: wins
    assert.equal(q.len(), 0);
    assert.equal(q.delayedLen(), 2);
    clock.step(49);
    assert.equal(q.len(), 0);
    clock.step(1);
    assert.equal(q.len(), 1);
    assert.equal((await q.get()).item, 'b');
    clock.step(29);
    assert.equal(q.len(), 0);
    clock.step(1);
    assert.equal((await q.get()).item, 'a');
    assert.equal(q.delayedLen(), 0);
    q.addAfter('c', 0);
    assert.equal(q.len(), 1, 'a zero delay adds immediately');
  });

  it('addRateLimited backs off exponentially per key and forget resets it', async () => {
    const clock = new FakeClock(0);
    const q = new WorkQueue<string>({ clock, rateLimiter: new ItemExponentialFailureRateLimiter(5, 1_000_000) });
    const readyAfter = (key: string): number => {
      q.addRateLimited(key);
      let waited = 0;
      while (q.len() === 0) {
        clock.step(1);
        waited++;
        if (waited > 10_000) throw new Error('never became ready');
      }
      return waited;
    };
    const delays: number[] = [];
    for (let i = 0; i < 6; i++) {
      delays.push(readyAfter('k'));
      const r = await q.get();
      q.done(must(r.item, 'r.item'));
    }
    assert.deepEqual(delays, [5, 10, 20, 40, 80, 160]);
    assert.equal(q.numRequeues('k'), 6);
    q.forget('k');
    assert.equal(q.numRequeues('k'), 0);
  });

  it('shutDown drops queued and delayed keys and releases waiting workers', async () => {
    const clock = new FakeClock();
    const q = new WorkQueue<string>({ clock });
    const waiting = q.get();
    q.shutDown();
    assert.deepEqual(await waiting, { shutdown: true });
    q.add('a');
    q.addAfter('b', 10);
    assert.equal(q.len(), 0);
    assert.equal(clock.pendingTimers(), 0);
    assert.deepEqual(await q.get(), { shutdown: true });
  });

  it('shutDownWithDrain waits for keys being processed', async () => {
    const q = new WorkQueue<string>();
    q.add('a');
    q.add('b');
    const a = await q.get();
    let drained = false;
    const d = q.shutDownWithDrain().then(() => (drained = true));
    await tick();
    assert.equal(drained, false, 'still processing a');
    assert.deepEqual(await q.get(), { shutdown: true }, 'b is not handed out after shutdown');
    q.done(must(a.item, 'a.item'));
    await d;
    assert.equal(drained, true);
  });
});

describe("WorkQueue priorities (controller-runtime's priority queue)", () => {
  const drain = async (q: WorkQueue<string>) => {
    const out: string[] = [];
    while (q.len() > 0) {
      const r = await q.get();
      out.push(`${r.item}@${r.priority}`);
      q.done(must(r.item, 'r.item'));
    }
    return out;
  };

  it('hands out the highest priority first, in the order added within one', async () => {
    const q = new WorkQueue<string>();
    q.add('low-1', -100);
    q.add('a');
    q.add('low-2', -100);
    q.add('urgent', 10);
    q.add('b');
    assert.deepEqual(await drain(q), ['urgent@10', 'a@0', 'b@0', 'low-1@-100', 'low-2@-100']);
  });

  it('a queued key added again with a higher priority moves up (after those already there); a lower one never lowers it', async () => {
    const q = new WorkQueue<string>();
    q.add('x', -100);
    q.add('y', 5);
    q.add('z');
    q.add('x', 5);
    q.add('y', -100);
    assert.equal(q.len(), 3, 'still one entry per key');
    assert.deepEqual(await drain(q), ['y@5', 'x@5', 'z@0']);
  });

  it('a key re-added while processing runs again with the highest priority it was added with', async () => {
    const q = new WorkQueue<string>();
    q.add('a');
    q.add('b');
    const a = await q.get();
    q.add('a', -100);
    q.add('a', 7);
    q.done(must(a.item, 'a.item'));
    assert.deepEqual(await drain(q), ['a@7', 'b@0']);
  });

  it('workqueue_depth counts queued keys per priority, as controller-runtime 0.23+ labels it', async () => {
    const registry = new Registry();
    const q = new WorkQueue<string>({ metrics: workQueueMetrics(registry, 'prio') });
    const depth = async () =>
      Object.fromEntries(
        (
          await must(registry.getSingleMetric('workqueue_depth'), "registry.getSingleMetric('workqueue_depth')").get()
        ).values
          .filter((v) => v.labels.name === 'prio')
          .map((v) => [String(v.labels.priority), v.value]),
      );
    q.add('low-1', -100);
    q.add('low-2', -100);
    q.add('a');
    assert.deepEqual(await depth(), { '-100': 2, '0': 1 });
    q.add('low-1', 5); // raised: moves from -100 to 5
    assert.deepEqual(await depth(), { '-100': 1, '0': 1, '5': 1 });
    await drain(q);
    assert.deepEqual(await depth(), { '-100': 0, '0': 0, '5': 0 });
    q.add('b', 1);
    q.shutDown();
    assert.deepEqual(await depth(), { '-100': 0, '0': 0, '1': 0, '5': 0 });
  });

  it('without the priority queue, workqueue_depth has one series with an empty priority', async () => {
    const registry = new Registry();
    const q = new WorkQueue<string>({ metrics: workQueueMetrics(registry, 'plain', false) });
    q.add('a');
    q.add('b');
    const values = (
      await must(registry.getSingleMetric('workqueue_depth'), "registry.getSingleMetric('workqueue_depth')").get()
    ).values.filter((v) => v.labels.name === 'plain');
    assert.deepEqual(
      values.map((v) => [v.labels.priority, v.value]),
      [['', 2]],
    );
  });

  it('more than 25 distinct priorities are counted under exceeded_cardinality_limit', async () => {
    const registry = new Registry();
    const q = new WorkQueue<string>({ metrics: workQueueMetrics(registry, 'many') });
    for (let i = 0; i < 30; i++) q.add(`k${i}`, i);
    const values = (
      await must(registry.getSingleMetric('workqueue_depth'), "registry.getSingleMetric('workqueue_depth')").get()
    ).values.filter((v) => v.labels.name === 'many');
    assert.equal(values.length, 26);
    assert.equal(values.find((v) => v.labels.priority === 'exceeded_cardinality_limit')?.value, 5);
  });

  it('a delayed add keeps its priority, the higher of two', async () => {
    const clock = new FakeClock();
    const q = new WorkQueue<string>({ clock });
    q.addAfter('later', 1000, -100);
    q.addAfter('later', 2000, 3);
    q.add('now');
    clock.step(1000);
    await tick();
    assert.deepEqual(await drain(q), ['later@3', 'now@0']);
  });
});

describe('rate limiters', () => {
  it('item exponential: 5 ms doubling, capped at 1000 s', () => {
    const l = new ItemExponentialFailureRateLimiter(5, 1_000_000);
    const d = Array.from({ length: 30 }, () => l.when('x'));
    assert.deepEqual(d.slice(0, 5), [5, 10, 20, 40, 80]);
    assert.equal(d[17], 5 * 2 ** 17); // 655.36 s
    assert.equal(d[18], 1_000_000); // 1310.72 s capped to 1000 s
    assert.equal(d[29], 1_000_000);
    assert.equal(l.when('other'), 5, 'per key');
  });

  it('token bucket: burst free, then 1/qps apart, refilling with time', () => {
    const clock = new FakeClock(0);
    const b = new BucketRateLimiter(10, 100, clock);
    for (let i = 0; i < 100; i++) assert.equal(b.when(`k${i}`), 0);
    assert.equal(b.when('k100'), 100);
    assert.equal(b.when('k101'), 200);
    clock.step(1000); // +10 tokens, debt of 2 paid
    for (let i = 0; i < 8; i++) assert.equal(b.when(`r${i}`), 0);
    assert.ok(Math.abs(b.when('r8') - 100) < 1e-6);
  });

  it('default controller limiter is the max of both', () => {
    const clock = new FakeClock(0);
    const l = defaultControllerRateLimiter(clock);
    assert.ok(l instanceof MaxOfRateLimiter);
    assert.equal(l.when('a'), 5);
    assert.equal(l.when('a'), 10);
    // burn the bucket: 98 tokens left after two calls
    for (let i = 0; i < 98; i++) l.when(`b${i}`);
    // the next key's own back-off is 5 ms, but the bucket says 100 ms: max wins
    assert.equal(l.when('fresh'), 100);
    assert.equal(l.numRequeues('a'), 2);
    l.forget('a');
    assert.equal(l.numRequeues('a'), 0);
  });

  it('fast-slow limiter switches after maxFastAttempts', () => {
    const l = new ItemFastSlowRateLimiter(10, 1000, 2);
    assert.deepEqual([l.when('a'), l.when('a'), l.when('a')], [10, 10, 1000]);
  });
});

describe('realClock', () => {
  it('asks Node for at most 2^31-1 ms (a longer timer would fire at once, and a yearly requeue would spin)', () => {
    const calls = mock.method(globalThis, 'setTimeout');
    try {
      const year = 365 * 24 * 3600 * 1000;
      const t = realClock.setTimeout(() => assert.fail('must not fire'), year);
      realClock.clearTimeout(t);
      const short = realClock.setTimeout(() => {}, 5);
      realClock.clearTimeout(short);
      assert.deepEqual(
        calls.mock.calls.map((c) => c.arguments[1]),
        [MAX_TIMER_MS, 5],
      );
    } finally {
      calls.mock.restore();
    }
  });

  it('a requeue a year away arms one timer, not a loop of immediate ones', async () => {
    const calls = mock.method(globalThis, 'setTimeout');
    const q = new WorkQueue<string>();
    try {
      q.addAfter('yearly', 365 * 24 * 3600 * 1000);
      await new Promise((r) => setImmediate(r));
      const armed = calls.mock.calls.filter((c) => c.arguments[1] === MAX_TIMER_MS).length;
      assert.equal(armed, 1);
      assert.equal(q.len(), 0);
    } finally {
      q.shutDown();
      calls.mock.restore();
    }
  });
});
