// The runtime's values have the types they are declared with, against a real kube-apiserver:
// timestamps are Dates (cached read, live read, a write's answer), writes refresh the object
// passed in (a line-by-line port of the Memcached tutorial gets no 409), client calls stop on
// an aborted signal.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { V1ConfigMap, type KubeConfig } from '@kubernetes/client-node';
import type { TestEnvironment } from '../../../src/testing/index.js';
import { newClient } from '../../../src/runtime/client/index.js';
import { newCache } from '../../../src/runtime/cache/index.js';
import { findStatusCondition, setStatusCondition } from '../../../src/runtime/util/index.js';
import type { Client } from '../../../src/runtime/contracts.js';
import { Widget, startEnv, testLogger, waitFor, widget } from '../controller/harness.js';
import { must } from '../../helpers/must.js';

let env: TestEnvironment;
let config: KubeConfig;
let live: Client;
let cached: Client;
const stop = new AbortController();

before(async () => {
  ({ env, config } = await startEnv());
  live = newClient(config, { fieldOwner: 'truth-test' });
  const cache = newCache(config, { logger: testLogger() });
  void cache.start(stop.signal);
  cached = newClient(config, { cache, fieldOwner: 'truth-test' });
});
after(async () => {
  stop.abort();
  await env?.stop();
});

/** What a compiled use of the declared type does: must not throw. */
function age(obj: { metadata?: { creationTimestamp?: Date } }): number {
  return (
    Date.now() - must(must(obj.metadata, 'obj.metadata').creationTimestamp, 'obj.metadata.creationTimestamp').getTime()
  );
}

describe('timestamps are the Dates client-node declares', () => {
  it("in a write's answer, a live read and a cached read (built-in kind)", async () => {
    const cm: V1ConfigMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { namespace: 'default', name: 'dated' },
      data: { a: '1' },
    };
    const created = await live.create(cm);
    assert.ok(created.metadata?.creationTimestamp instanceof Date, 'create answer');
    assert.ok(age(created) >= -60_000);
    assert.ok(created.metadata?.managedFields?.[0].time instanceof Date, 'nested model dates too');

    const got = await live.get(V1ConfigMap, { namespace: 'default', name: 'dated' });
    assert.ok(got.metadata?.creationTimestamp instanceof Date, 'live get');
    assert.equal(got.metadata.creationTimestamp.getTime(), created.metadata.creationTimestamp.getTime());
    const listed = await live.list(V1ConfigMap, { namespace: 'default' });
    assert.ok(
      listed.items.every((i) => i.metadata?.creationTimestamp instanceof Date),
      'live list',
    );

    const fromCache = await waitFor('the cache to see the ConfigMap', () =>
      cached.get(V1ConfigMap, { namespace: 'default', name: 'dated' }).catch(() => undefined),
    );
    assert.ok(fromCache.metadata?.creationTimestamp instanceof Date, 'cached get');
    assert.ok(age(fromCache) >= -60_000);
    const cachedList = await cached.list(V1ConfigMap, { namespace: 'default' });
    assert.ok(
      cachedList.items.every((i) => i.metadata?.creationTimestamp instanceof Date),
      'cached list',
    );

    // A Date goes back to the server as RFC 3339: an update of what was read round-trips.
    fromCache.data = { a: '2' };
    const updated = await cached.update(fromCache);
    assert.ok(updated.metadata?.creationTimestamp instanceof Date);
    assert.equal(updated.metadata.creationTimestamp.getTime(), created.metadata.creationTimestamp.getTime());
  });

  it("of a custom resource's metadata and status.conditions", async () => {
    const w = await live.create(widget('default', 'dated-widget', { replicas: 1 }));
    assert.ok(w.metadata?.creationTimestamp instanceof Date);
    w.status ??= {};
    w.status.conditions ??= [];
    setStatusCondition(w.status.conditions, {
      type: 'Available',
      status: 'True',
      reason: 'Ok',
      message: 'up',
    });
    await live.status().update(w);
    const c = findStatusCondition(w.status?.conditions, 'Available');
    assert.ok(c?.lastTransitionTime instanceof Date, 'status answer');
    const again = await waitFor('the cache to see the status', async () => {
      const x = await cached.get(Widget, { namespace: 'default', name: 'dated-widget' }).catch(() => undefined);
      return x?.status?.conditions?.length ? x : undefined;
    });
    const cc = findStatusCondition(again.status?.conditions, 'Available');
    assert.ok(cc?.lastTransitionTime instanceof Date, 'cached read of a condition');
    assert.equal(
      cc.lastTransitionTime.getTime(),
      c.lastTransitionTime.getTime(),
      'whole seconds survive the round trip',
    );
  });
});

describe('writes refresh the object passed in', () => {
  it('update then status().update on the same object, as the Memcached tutorial does (no 409)', async () => {
    await live.create(widget('default', 'memcached-port', { replicas: 1 }));
    const m = await waitFor('the cache to see the Widget', () =>
      cached.get(Widget, { namespace: 'default', name: 'memcached-port' }).catch(() => undefined),
    );
    const rv0 = m.metadata?.resourceVersion;
    m.spec = { ...m.spec, replicas: 3 };
    const returned = await cached.update(m);
    assert.equal(returned, m, 'the same object is returned');
    assert.notEqual(m.metadata?.resourceVersion, rv0, 'obj carries the new resourceVersion');
    assert.equal(m.metadata?.generation, 2);
    m.status ??= {};
    m.status.conditions ??= [];
    setStatusCondition(m.status.conditions, {
      type: 'Available',
      status: 'True',
      reason: 'Reconciling',
      message: 'scaled to 3',
    });
    await cached.status().update(m);
    assert.equal(findStatusCondition(m.status?.conditions, 'Available')?.message, 'scaled to 3');
    // And once more: a second spec write after the status write.
    m.spec = { ...m.spec, message: 'done' };
    await cached.update(m);
    assert.equal(m.spec?.message, 'done');
    assert.ok(m instanceof Object && m.metadata?.creationTimestamp instanceof Date);
  });

  it('keeps the prototype of a class instance and drops fields the server removed', async () => {
    const w = Object.assign(new Widget(), {
      metadata: { namespace: 'default', name: 'classy' },
      spec: { replicas: 1 },
      extra: 'dropped by pruning',
    });
    await live.create(w);
    assert.ok(w instanceof Widget);
    assert.ok(w.metadata?.uid);
    assert.equal(
      (w as { extra?: string }).extra,
      undefined,
      'the server pruned the unknown field; obj shows what is stored',
    );
  });

  it('leaves a frozen object alone and returns the answer', async () => {
    const w = await live.create(widget('default', 'frozen', { replicas: 1 }));
    const frozen = Object.freeze({ ...w, spec: { replicas: 2 } });
    const answer = await live.update(frozen);
    assert.notEqual(answer, frozen);
    assert.equal(answer.spec?.replicas, 2);
    assert.equal(frozen.metadata, w.metadata);
  });
});

describe('client calls take an AbortSignal', () => {
  it('an aborted signal rejects reads and writes with an AbortError, and nothing is written', async () => {
    const ac = new AbortController();
    ac.abort();
    const isAbort = (e: unknown) => (e as Error).name === 'AbortError';
    await assert.rejects(
      live.get(V1ConfigMap, { namespace: 'default', name: 'dated' }, { signal: ac.signal }),
      isAbort,
    );
    await assert.rejects(
      cached.get(V1ConfigMap, { namespace: 'default', name: 'dated' }, { signal: ac.signal }),
      isAbort,
    );
    await assert.rejects(live.list(V1ConfigMap, { namespace: 'default', signal: ac.signal }), isAbort);
    await assert.rejects(live.create(widget('default', 'never', {}), { signal: ac.signal }), isAbort);
    await assert.rejects(
      live.get(Widget, { namespace: 'default', name: 'never' }),
      (e: unknown) => (e as { code?: number }).code === 404,
    );
  });

  it('aborting during a request stops it', async () => {
    const ac = new AbortController();
    // A list of every ConfigMap in the cluster is in flight when the signal aborts.
    const p = live.list(V1ConfigMap, { signal: ac.signal });
    queueMicrotask(() => ac.abort());
    await assert.rejects(p, (e: unknown) => (e as Error).name === 'AbortError');
  });
});
