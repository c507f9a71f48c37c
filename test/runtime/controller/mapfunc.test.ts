// enqueueRequestsFromMapFunc with map functions that read (async): requests queued when the
// mapping resolves, one object's events in event order, a rejection logged, counted and dropped
// (the other events go on), nothing queued after shutdown and the function's signal aborted.
// Issue #40 item 1: before, a map function had to be synchronous, so the common secondary-watch
// idiom (on a Namespace event, list the parents from the cache) needed a hand-written handler.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubernetesObject } from '@kubernetes/client-node';
import pino from 'pino';
import { Registry } from 'prom-client';
import type { Cache } from '../../../src/runtime/contracts.js';
import {
  ChannelSource,
  Controller,
  enqueueRequestsFromMapFunc,
  type MapContext,
  type Request,
  type RequestQueue,
} from '../../../src/runtime/controller/index.js';
import { must } from '../../helpers/must.js';

function obj(name: string, labels: Record<string, string> = {}): KubernetesObject {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } };
}

function recorder(): { q: RequestQueue; got: Request[] } {
  const got: Request[] = [];
  const q: RequestQueue = { add: (r) => got.push(r), addAfter: () => undefined, addRateLimited: () => undefined };
  return { q, got };
}

function gate<T>(): { promise: Promise<T>; open: (v: T) => void; fail: (e: unknown) => void } {
  let open!: (v: T) => void;
  let fail!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    open = res;
    fail = rej;
  });
  return { promise, open, fail };
}

async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
}

describe('enqueueRequestsFromMapFunc with an async map function', () => {
  it("queues one object's requests in the order of its events, whatever order the mappings resolve in", async () => {
    const gates = [gate<Request[]>(), gate<Request[]>()];
    let call = 0;
    // The create's mapping takes the first gate; the update's two (old and new object) the second.
    const h = enqueueRequestsFromMapFunc(() => gates[Math.min(call++, 1)].promise);
    const { q, got } = recorder();
    must(h.create, 'h.create')({ object: obj('team-a') }, q);
    must(h.update, 'h.update')({ objectOld: obj('team-a'), objectNew: obj('team-a', { v: '2' }) }, q);
    // The update's mapping resolves first.
    gates[1].open([{ namespace: 'x', name: 'second' }]);
    await settle();
    assert.equal(got.length, 0, "the update waits for the create's mapping");
    gates[0].open([{ namespace: 'x', name: 'first' }]);
    await h.idle();
    assert.deepEqual(
      got.map((r) => r.name),
      ['first', 'second'],
    );
  });

  it("does not hold one object's events behind another's", async () => {
    const slow = gate<Request[]>();
    const h = enqueueRequestsFromMapFunc((o) =>
      must(o.metadata, 'o.metadata').name === 'slow'
        ? slow.promise
        : Promise.resolve([{ namespace: '', name: `for-${must(o.metadata, 'o.metadata').name}` }]),
    );
    const { q, got } = recorder();
    must(h.create, 'h.create')({ object: obj('slow') }, q);
    must(h.create, 'h.create')({ object: obj('fast') }, q);
    await settle();
    assert.deepEqual(got, [{ namespace: '', name: 'for-fast' }]);
    slow.open([{ namespace: '', name: 'for-slow' }]);
    await h.idle();
    assert.deepEqual(got.length, 2);
  });

  it('outside a controller, idle() rejects with the mapping error', async () => {
    const h = enqueueRequestsFromMapFunc(async () => {
      throw new Error('cache not synced');
    });
    const { q, got } = recorder();
    must(h.create, 'h.create')({ object: obj('a') }, q);
    await assert.rejects(h.idle(), /cache not synced/);
    assert.deepEqual(got, []);
    await h.idle();
  });

  it('in a controller: a rejection is logged and counted, the event dropped, the other events reconciled; shutdown queues nothing and aborts the signal', async () => {
    const registry = new Registry();
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'info' }, { write: (l: string) => void lines.push(JSON.parse(l)) });
    const reconciled: string[] = [];
    const c = new Controller(
      'parents',
      async (req) => {
        reconciled.push(req.name);
        return {};
      },
      { cache: {} as Cache, logger, registry, forKind: { group: 'example.com', kind: 'Parent' } },
    );
    // "List the parents that select this namespace": an async read, as from the cache.
    const parents: Record<string, string[]> = { 'team-a': ['p1', 'p2'], 'team-b': ['p3'] };
    const hanging = gate<Request[]>();
    let seenSignal: AbortSignal | undefined;
    const src = new ChannelSource();
    c.watch(
      src,
      enqueueRequestsFromMapFunc(async (ns: KubernetesObject, { signal }: MapContext) => {
        const name = must(must(ns.metadata, 'ns.metadata').name, 'ns.metadata.name');
        if (name === 'broken') throw new Error('list failed');
        if (name === 'hang') {
          seenSignal = signal;
          return hanging.promise;
        }
        await new Promise((r) => setTimeout(r, 5));
        return (parents[name] ?? []).map((p) => ({ namespace: 'default', name: p }));
      }),
    );
    const ac = new AbortController();
    const done = c.start(ac.signal);
    src.send(obj('team-a'));
    src.send(obj('broken'));
    src.send(obj('team-b'));
    src.send(obj('hang'));
    for (const deadline = Date.now() + 5_000; reconciled.length < 3; ) {
      assert.ok(Date.now() < deadline, `reconciled: ${reconciled}`);
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.deepEqual(reconciled.sort(), ['p1', 'p2', 'p3']);
    const metric = (await registry.getSingleMetricAsString('kubeforge_event_handler_errors_total'))
      .split('\n')
      .filter((l) => !l.startsWith('#'));
    assert.deepEqual(metric, ['kubeforge_event_handler_errors_total{controller="parents"} 1']);
    assert.ok(
      lines.some(
        (l) => /async map function/.test(String(l.msg)) && (l.err as { message?: string })?.message === 'list failed',
      ),
      'the error is logged with its message',
    );
    ac.abort();
    await done;
    assert.equal(seenSignal?.aborted, true, "the map function's signal aborts on shutdown");
    hanging.open([{ namespace: 'default', name: 'after-shutdown' }]);
    await settle();
    assert.ok(!reconciled.includes('after-shutdown'));
  });
});
