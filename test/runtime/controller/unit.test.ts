// The controller's own behaviour at unit level: a ChannelSource feeds it, a FakeClock drives the
// work queue and rate limiter, reconcilers block on promises the test releases. Nothing waits on
// wall-clock time, so "it did not happen" is checked after the clock passed the moment it would
// have happened (retries, requeues), not after a sleep. The API server tests (controller.test.ts)
// cover the wiring: informers, owners, status, restarts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import { Registry } from 'prom-client';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Cache } from '../../../src/runtime/contracts.js';
import {
  ChannelSource,
  Controller,
  FakeClock,
  TerminalError,
  enqueueRequestForObject,
  newPredicateFuncs,
  type ControllerOptions,
  type ReconcileContext,
  type Request,
  type Result,
} from '../../../src/runtime/controller/index.js';
import { must } from '../../helpers/must.js';

type ReconcileImpl = (req: Request, ctx: ReconcileContext) => Promise<Result | void> | Result | void;

function obj(name: string, labels?: Record<string, string>): KubernetesObject {
  return { apiVersion: 'test.kubeforge.io/v1', kind: 'Widget', metadata: { namespace: 'default', name, labels } };
}

/** Resolves once every promise callback queued so far (and those they queue) has run. */
async function settle(): Promise<void> {
  for (let i = 0; i < 30; i++) await new Promise((r) => setImmediate(r));
}

/** A promise the test resolves. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((r) => (open = r));
  return { promise, open };
}

function harness(
  reconcile: ReconcileImpl,
  options: ControllerOptions = {},
  predicates: Parameters<Controller['watch']>[2][] = [],
) {
  const clock = new FakeClock(1_000_000);
  const registry = new Registry();
  const calls: { name: string; at: number }[] = [];
  const c = new Controller(
    'unit',
    (req, ctx) => {
      calls.push({ name: req.name, at: clock.now() });
      return reconcile(req, ctx);
    },
    {
      cache: {} as Cache,
      logger: pino({ level: 'silent' }),
      registry,
      forKind: { group: 'test.kubeforge.io', kind: 'Widget' },
    },
    { clock, ...options },
  );
  const src = new ChannelSource();
  c.watch(src, enqueueRequestForObject(), ...predicates);
  const ac = new AbortController();
  const done = c.start(ac.signal);
  done.catch(() => undefined);
  const metric = async (name: string) =>
    (await registry.getSingleMetricAsString(name))
      .split('\n')
      .filter((l) => !l.startsWith('#'))
      .join('\n');
  return {
    c,
    clock,
    calls,
    src,
    done,
    metric,
    names: () => calls.map((x) => x.name),
    stop: async () => {
      ac.abort();
      await done;
    },
  };
}

describe('controller (fake clock, channel source)', () => {
  it('retries an error with per-key exponential back-off (5 ms, 10 ms, 20 ms), on the clock', async () => {
    let failures = 3;
    const t = harness(() => {
      if (failures-- > 0) throw new Error('transient');
    });
    t.src.send(obj('a'));
    await settle();
    assert.equal(t.calls.length, 1);
    // Each retry comes exactly when its back-off step is due, not a millisecond before.
    for (const step of [5, 10, 20]) {
      t.clock.step(step - 1);
      await settle();
      const before: number = t.calls.length;
      t.clock.step(1);
      await settle();
      assert.equal(t.calls.length, before + 1, `retry after ${step} ms`);
    }
    const start = t.calls[0].at;
    assert.deepEqual(
      t.calls.map((c) => c.at - start),
      [0, 5, 15, 35],
    );
    // Succeeded: nothing more, however far the clock goes.
    t.clock.step(3_600_000);
    await settle();
    assert.equal(t.calls.length, 4);
    await t.stop();
    assert.match(await t.metric('controller_runtime_reconcile_total'), /result="error"\} 3/);
    assert.match(await t.metric('controller_runtime_reconcile_total'), /result="success"\} 1/);
  });

  it('does not retry a TerminalError; recovers a panic and retries it', async () => {
    let panicked = false;
    const t = harness((req) => {
      if (req.name === 'terminal') throw new TerminalError('spec can never work');
      if (req.name === 'panicky' && !panicked) {
        panicked = true;
        const o: { deep?: { x: number } } = {};
        return { requeueAfterSeconds: (o.deep as { x: number }).x }; // TypeError: a programming error
      }
    });
    t.src.send(obj('terminal'));
    t.src.send(obj('panicky'));
    await settle();
    assert.deepEqual(t.names().sort(), ['panicky', 'terminal']);
    // Far past every back-off step the default limiter would use for a first failure.
    t.clock.step(60_000);
    await settle();
    assert.deepEqual(
      t.names().sort(),
      ['panicky', 'panicky', 'terminal'],
      'the panic was retried, the terminal error was not',
    );
    await t.stop();
    assert.match(await t.metric('controller_runtime_reconcile_panics_total'), /\{controller="unit"\} 1$/m);
    assert.match(await t.metric('controller_runtime_terminal_reconcile_errors_total'), /\{controller="unit"\} 1$/m);
  });

  it('requeueAfter waits that long on the clock; requeue: true goes through the rate limiter', async () => {
    const results: (Result | undefined)[] = [
      { requeueAfterSeconds: 0.2 },
      { requeueAfterSeconds: 0.2 },
      { requeue: true },
      { requeue: true },
      undefined,
    ];
    const t = harness(() => results.shift());
    t.src.send(obj('timer'));
    await settle();
    for (let i = 0; i < 50; i++) {
      t.clock.step(10);
      await settle();
    }
    const start = t.calls[0].at;
    // 0, +200, +200, then rate-limited requeues after 5 ms and 10 ms.
    assert.deepEqual(
      t.calls.map((c) => c.at - start),
      [0, 200, 400, 410, 420],
    );
    t.clock.step(3_600_000);
    await settle();
    assert.equal(t.calls.length, 5, 'the last reconcile returned nothing: no more requeues');
    await t.stop();
  });

  it('runs different keys concurrently, never one key twice at once; events during a reconcile run it once more after', async () => {
    const gates = new Map<string, ReturnType<typeof gate>[]>();
    const active = new Set<string>();
    let overlap = false;
    let maxInFlight = 0;
    const t = harness(
      async (req) => {
        if (active.has(req.name)) overlap = true;
        active.add(req.name);
        maxInFlight = Math.max(maxInFlight, active.size);
        const g = gate();
        gates.set(req.name, [...(gates.get(req.name) ?? []), g]);
        await g.promise;
        active.delete(req.name);
      },
      { maxConcurrentReconciles: 3 },
    );
    for (const n of ['a', 'b', 'c', 'd']) t.src.send(obj(n));
    await settle();
    assert.deepEqual([...active].sort(), ['a', 'b', 'c'], 'three workers, three keys in flight');
    // More events for a key in flight: queued once, run after it finishes.
    t.src.send(obj('a'));
    t.src.send(obj('a'));
    await settle();
    assert.equal(t.names().filter((n) => n === 'a').length, 1);
    must(gates.get('a'), "gates.get('a')")[0].open();
    await settle();
    // The freed worker takes the next key in line: d, then a again (queued while in flight).
    assert.ok(active.has('d'));
    must(gates.get('b'), "gates.get('b')")[0].open();
    await settle();
    assert.equal(t.names().filter((n) => n === 'a').length, 2, 'a ran once more for the events during its reconcile');
    for (const list of gates.values()) for (const g of list) g.open();
    await settle();
    for (const list of gates.values()) for (const g of list) g.open();
    await settle();
    assert.equal(overlap, false);
    assert.equal(maxInFlight, 3);
    assert.deepEqual(t.names().sort(), ['a', 'a', 'b', 'c', 'd']);
    await t.stop();
  });

  it('counts what predicates drop: a dropped event is never reconciled', async () => {
    let decisions = 0;
    const dropIgnored = newPredicateFuncs((o) => {
      decisions++;
      return o.metadata?.labels?.ignore !== 'true';
    });
    const t = harness(() => undefined, {}, [dropIgnored]);
    t.src.send(obj('ignored', { ignore: 'true' }));
    t.src.send(obj('kept'));
    await settle();
    assert.equal(decisions, 2, 'both events reached the predicate');
    t.clock.step(3_600_000);
    await settle();
    assert.deepEqual(t.names(), ['kept']);
    await t.stop();
  });

  it('adds a watch at run time and removes it again: after remove(), its events reach no handler', async () => {
    const t = harness(() => undefined);
    await settle();
    const late = new ChannelSource();
    const handle = t.c.watch(late, enqueueRequestForObject());
    late.send(obj('added-at-run-time'));
    await settle();
    assert.deepEqual(t.names(), ['added-at-run-time']);
    assert.equal(handle.removed, false);
    handle.remove();
    handle.remove(); // idempotent
    assert.equal(handle.removed, true);
    late.send(obj('after-remove'));
    t.src.send(obj('other-watch'));
    await settle();
    t.clock.step(3_600_000);
    await settle();
    assert.deepEqual(
      t.names(),
      ['added-at-run-time', 'other-watch'],
      'the removed watch delivers nothing; the others still do',
    );
    await t.stop();
    assert.throws(() => t.c.watch(new ChannelSource(), enqueueRequestForObject()), /is stopped; cannot add a watch/);
  });

  it('a watch removed before start never starts', async () => {
    const clock = new FakeClock(1_000_000);
    const seen: string[] = [];
    const c = new Controller(
      'unit-pre',
      (req) => void seen.push(req.name),
      {
        cache: {} as Cache,
        logger: pino({ level: 'silent' }),
        registry: new Registry(),
        forKind: { group: 'test.kubeforge.io', kind: 'Widget' },
      },
      { clock },
    );
    const kept = new ChannelSource();
    const dropped = new ChannelSource();
    c.watch(kept, enqueueRequestForObject());
    c.watch(dropped, enqueueRequestForObject()).remove();
    dropped.send(obj('dropped'));
    kept.send(obj('kept'));
    const ac = new AbortController();
    const done = c.start(ac.signal);
    await settle();
    assert.deepEqual(seen, ['kept']);
    ac.abort();
    await done;
  });

  it('lets an in-flight reconcile finish on shutdown, with its signal aborted', async () => {
    const g = gate();
    let sawAbort = false;
    let finished = false;
    const t = harness(async (_req, ctx) => {
      await g.promise;
      sawAbort = ctx.signal.aborted;
      finished = true;
    });
    t.src.send(obj('slow'));
    await settle();
    assert.equal(t.calls.length, 1);
    const stopped = t.stop();
    await settle();
    assert.equal(finished, false, 'stop waits for the reconcile');
    g.open();
    await stopped;
    assert.equal(finished, true);
    assert.equal(sawAbort, true);
  });
});
