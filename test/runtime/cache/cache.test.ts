// The informer cache against a real kube-apiserver: sync, reads, selectors, indexes, namespace
// restriction, copy-on-read, handler replay, the streaming list (WatchList) and its fallback to
// paginated lists, watch resume after a cut, relist after 410 Gone.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { V1ConfigMap, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { TestEnvironment } from '../../../src/testing/index.js';
import { newCache, type InformerCache, type SharedInformer } from '../../../src/runtime/cache/index.js';
import { isNotFound, mergePatch, newClient } from '../../../src/runtime/client/index.js';
import type { Client } from '../../../src/runtime/contracts.js';
import { Widget, startEnv, testLogger, waitFor, widget } from '../controller/harness.js';
import { CuttableProxy } from './proxy.js';
import { must } from '../../helpers/must.js';

let env: TestEnvironment;
let config: KubeConfig;
let live: Client;

before(async () => {
  ({ env, config } = await startEnv());
  live = newClient(config, { fieldOwner: 'cache-test' });
  for (const ns of ['a', 'b']) await live.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
});
after(async () => {
  await env?.stop();
});

async function withCache<T>(
  kc: KubeConfig,
  opts: Parameters<typeof newCache>[1],
  fn: (c: InformerCache) => Promise<T>,
): Promise<T> {
  const cache = newCache(kc, { logger: testLogger(), initialBackoffMs: 100, maxBackoffMs: 1000, ...opts });
  const ac = new AbortController();
  const run = cache.start(ac.signal);
  try {
    return await fn(cache);
  } finally {
    ac.abort();
    await run;
  }
}

/** name -> resourceVersion of every Widget, live from the server. */
async function serverState(ns: string): Promise<Map<string, string>> {
  const l = await live.list(Widget, { namespace: ns });
  return new Map(
    l.items.map((w) => [
      must(must(w.metadata, 'w.metadata').name, 'w.metadata.name'),
      must(must(w.metadata, 'w.metadata').resourceVersion, 'w.metadata.resourceVersion'),
    ]),
  );
}
async function cacheState(cache: InformerCache, ns: string): Promise<Map<string, string>> {
  const l = await cache.list(Widget, { namespace: ns });
  return new Map(
    l.items.map((w) => [
      must(must(w.metadata, 'w.metadata').name, 'w.metadata.name'),
      must(must(w.metadata, 'w.metadata').resourceVersion, 'w.metadata.resourceVersion'),
    ]),
  );
}

describe('informer cache', () => {
  it('syncs, serves get/list with label and field selectors and indexes, and returns copies', async () => {
    await live.create(widget('a', 'w1', { owner: 'alice' }, { app: 'web', tier: 'fe' }));
    await live.create(widget('a', 'w2', { owner: 'bob' }, { app: 'web', tier: 'be' }));
    await live.create(widget('b', 'w3', { owner: 'alice' }, { app: 'db' }));
    await withCache(config, {}, async (cache) => {
      await cache.indexField(Widget, 'spec.owner', (w: Widget) => (w.spec?.owner ? [w.spec.owner] : []));
      await cache.getInformer(Widget);
      assert.equal(await cache.waitForCacheSync(), true);

      const w1 = await cache.get(Widget, { namespace: 'a', name: 'w1' });
      assert.equal(w1.spec?.owner, 'alice');
      assert.equal(w1.kind, 'Widget');
      await assert.rejects(cache.get(Widget, { namespace: 'a', name: 'nope' }), (e: unknown) => isNotFound(e));

      const names = (l: { items: KubernetesObject[] }) =>
        l.items.map((i) => `${i.metadata?.namespace}/${i.metadata?.name}`);
      assert.deepEqual(names(await cache.list(Widget)), ['a/w1', 'a/w2', 'b/w3']);
      assert.deepEqual(names(await cache.list(Widget, { namespace: 'a' })), ['a/w1', 'a/w2']);
      assert.deepEqual(names(await cache.list(Widget, { labelSelector: 'app=web,tier!=be' })), ['a/w1']);
      assert.deepEqual(names(await cache.list(Widget, { labelSelector: { app: 'db' } })), ['b/w3']);
      assert.deepEqual(names(await cache.list(Widget, { fieldSelector: { 'spec.owner': 'alice' } })), ['a/w1', 'b/w3']);
      assert.deepEqual(names(await cache.list(Widget, { namespace: 'b', fieldSelector: 'spec.owner=alice' })), [
        'b/w3',
      ]);
      assert.deepEqual(names(await cache.list(Widget, { fieldSelector: 'metadata.name=w2' })), ['a/w2']);
      await assert.rejects(cache.list(Widget, { fieldSelector: 'spec.message=x' }), /needs an index/);

      // What those reads go through: the informer's store (get, list, byIndex, object).
      const { store } = await cache.informerFor(Widget);
      assert.deepEqual([...store.list()].sort(), ['a/w1', 'a/w2', 'b/w3']);
      assert.deepEqual([...must(store.byIndex('namespace', 'a'), "store.byIndex('namespace', 'a')")].sort(), [
        'a/w1',
        'a/w2',
      ]);
      assert.deepEqual([...must(store.byIndex('label', 'app=web'), "store.byIndex('label', 'app=web')")].sort(), [
        'a/w1',
        'a/w2',
      ]);
      assert.deepEqual(
        [
          ...must(store.byIndex({ field: 'spec.owner' }, 'alice'), "store.byIndex({ field: 'spec.owner' }, 'alice')"),
        ].sort(),
        ['a/w1', 'b/w3'],
      );
      assert.equal(store.byIndex({ field: 'spec.owner' }, 'nobody')?.size, 0);
      assert.equal(store.byIndex('label', 'app=nothing')?.size, 0);
      assert.equal(store.byIndex({ field: 'spec.message' }, 'x'), undefined, 'an index nobody registered');
      assert.equal(store.get('a/nope'), undefined);
      const entry = must(store.get('a/w1'), "store.get('a/w1')");
      assert.equal(entry.namespace, 'a');
      assert.deepEqual(entry.labels, { app: 'web', tier: 'fe' });
      assert.notEqual(store.object(entry), store.object(entry), 'a fresh copy per call');
      assert.equal((store.object(entry) as Widget).spec?.owner, 'alice');

      // Copies: mutating a read object leaves the cache alone.
      w1.spec.owner = 'mallory';
      assert.equal((await cache.get(Widget, { namespace: 'a', name: 'w1' })).spec?.owner, 'alice');

      // Updates flow in and re-index.
      const cur = await live.get(Widget, { namespace: 'a', name: 'w2' });
      cur.spec = { ...cur.spec, owner: 'alice' };
      await live.update(cur);
      await waitFor(
        'index update',
        async () => (await cache.list(Widget, { fieldSelector: { 'spec.owner': 'alice' } })).items.length === 3,
      );
      assert.deepEqual(names(await cache.list(Widget, { fieldSelector: { 'spec.owner': 'bob' } })), []);

      // Label changes move objects in the label index.
      await live.patch(
        await live.get(Widget, { namespace: 'a', name: 'w1' }),
        mergePatch({ metadata: { labels: { app: 'api' } } }),
      );
      await waitFor(
        'label index update',
        async () => (await cache.list(Widget, { labelSelector: 'app=api' })).items.length === 1,
      );
      assert.deepEqual(names(await cache.list(Widget, { labelSelector: 'app=web' })), ['a/w2']);
      assert.deepEqual(names(await cache.list(Widget, { labelSelector: 'app in (api),tier=fe' })), ['a/w1']);
      await live.patch(
        await live.get(Widget, { namespace: 'a', name: 'w1' }),
        mergePatch({ metadata: { labels: { app: 'web' } } }),
      );
      await waitFor(
        'label restored',
        async () => (await cache.list(Widget, { labelSelector: 'app=web' })).items.length === 2,
      );
    });
  });

  it('shares one informer per type and replays existing objects to late handlers, frozen', async () => {
    await withCache(config, {}, async (cache) => {
      const i1 = await cache.getInformer(Widget);
      const i2 = await cache.getInformer({ apiVersion: 'test.kubeforge.io/v1', kind: 'Widget' });
      assert.equal(i1, i2, 'class and descriptor share the informer');
      await cache.waitForCacheSync();
      const seen: Widget[] = [];
      let initial = 0;
      const reg = i1.addEventHandler({
        onAdd: (o, isInitial) => {
          seen.push(o);
          if (isInitial) initial++;
        },
      });
      assert.equal(reg.hasSynced(), true);
      assert.equal(initial, 3);
      assert.ok(Object.isFrozen(seen[0]) && Object.isFrozen(seen[0].metadata), 'handlers get frozen objects');
      assert.throws(() => {
        (seen[0].metadata as { name?: string }).name = 'x';
      }, TypeError);
      // A throwing handler does not stop delivery to others.
      const got: string[] = [];
      i1.addEventHandler({
        onAdd: () => {
          throw new Error('boom');
        },
      });
      i1.addEventHandler({
        onAdd: (o, isInitial) => {
          if (!isInitial) got.push(must(must(o.metadata, 'o.metadata').name, 'o.metadata.name'));
        },
      });
      await live.create(widget('a', 'w4'));
      await waitFor('late add', () => got.includes('w4'));
      i1.removeEventHandler(reg);
    });
  });

  it('re-delivers cached objects every sync period', async () => {
    await withCache(config, { syncPeriodMs: 300, namespaces: ['a'] }, async (cache) => {
      const inf = await cache.getInformer(Widget);
      await cache.waitForCacheSync();
      const resynced = new Set<string>();
      inf.addEventHandler({
        onUpdate: (o, n) => {
          if (o === n) resynced.add(must(must(n.metadata, 'n.metadata').name, 'n.metadata.name'));
        },
      });
      const expected = (await cache.list(Widget)).items
        .map((w) => must(must(w.metadata, 'w.metadata').name, 'w.metadata.name'))
        .sort();
      await waitFor('a resync of every object', () => resynced.size === expected.length, 5_000);
      assert.deepEqual([...resynced].sort(), expected);
    });
  });

  it('restricts namespaced types to the cache namespace', async () => {
    await withCache(config, { namespaces: ['a'] }, async (cache) => {
      const l = await cache.list(Widget);
      assert.ok(l.items.length > 0);
      assert.ok(l.items.every((w) => w.metadata?.namespace === 'a'));
      await assert.rejects(cache.get(Widget, { namespace: 'b', name: 'w3' }), /only watches namespace "a"/);
      // Its one informer holds namespace "a" only: its store keeps no namespace index.
      const { store } = await cache.informerFor(Widget);
      assert.equal(store.byIndex('namespace', 'a'), undefined);
      assert.ok([...store.list()].every((key) => key.startsWith('a/')));
      // cluster-scoped types are still visible
      const nss = await cache.list({ apiVersion: 'v1', kind: 'Namespace' });
      assert.ok(nss.items.some((n) => n.metadata?.name === 'b'));
    });
  });

  it('watches several namespaces: merged sorted lists, one handler over all, reads elsewhere refused', async () => {
    await live.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'c' } });
    await live.create(widget('c', 'w-in-c', {}, { app: 'web' }));
    await live.create(widget('b', 'w-multi', {}, { app: 'web' }));
    await withCache(config, { namespaces: ['b', 'a'] }, async (cache) => {
      await cache.indexField(Widget, 'spec.owner', (w: Widget) => (w.spec?.owner ? [w.spec.owner] : []));
      const seen: string[] = [];
      const inf = await cache.getInformer(Widget);
      const reg = inf.addEventHandler({ onAdd: (w) => seen.push(`${w.metadata?.namespace}/${w.metadata?.name}`) });
      assert.equal(await cache.waitForCacheSync(), true);
      await waitFor('the handler to sync', () => reg.hasSynced());
      const all = (await cache.list(Widget)).items.map((w) => `${w.metadata?.namespace}/${w.metadata?.name}`);
      assert.ok(all.includes('a/w1') && all.includes('b/w3') && all.includes('b/w-multi'), all.join(' '));
      assert.ok(
        all.every((k) => k.startsWith('a/') || k.startsWith('b/')),
        'nothing from namespace c',
      );
      assert.deepEqual(all, [...all].sort(), 'sorted across namespaces');
      assert.deepEqual([...seen].sort(), all, 'the handler saw both namespaces');
      const web = (await cache.list(Widget, { labelSelector: { app: 'web' } })).items.map(
        (w) => `${w.metadata?.namespace}/${w.metadata?.name}`,
      );
      assert.ok(web.includes('b/w-multi') && !web.includes('c/w-in-c'));
      const alice = (await cache.list(Widget, { fieldSelector: { 'spec.owner': 'alice' } })).items.map(
        (w) => `${w.metadata?.namespace}/${w.metadata?.name}`,
      );
      assert.ok(alice.includes('a/w1') && alice.includes('b/w3'), 'indexes on every namespace');
      assert.equal((await cache.get(Widget, { namespace: 'b', name: 'w3' })).metadata?.name, 'w3');
      assert.deepEqual(
        (await cache.list(Widget, { namespace: 'a' })).items.map((w) => w.metadata?.namespace).filter((n) => n !== 'a'),
        [],
      );
      await assert.rejects(cache.get(Widget, { namespace: 'c', name: 'w-in-c' }), /only watches namespaces "a", "b"/);
      // A new object in a watched namespace reaches the one handler.
      await live.create(widget('a', 'w-late'));
      await waitFor('the late add', () => seen.includes('a/w-late'));
      // cluster-scoped types are watched cluster-wide
      const nss = await cache.list({ apiVersion: 'v1', kind: 'Namespace' });
      assert.ok(nss.items.some((n) => n.metadata?.name === 'c'));
    });
  });

  it('fills the cache from one streaming list (WatchList) and watches on in the same stream', async () => {
    await withCache(config, {}, async (cache) => {
      const inf = (await cache.getInformer(Widget)) as unknown as SharedInformer;
      await cache.waitForCacheSync();
      const synced = inf.stats();
      assert.equal(synced.streamedLists, 1, `one streaming list (stats ${JSON.stringify(synced)})`);
      assert.equal(synced.lists, 1, 'and no paginated list');
      for (const ns of ['a', 'b']) assert.deepEqual([...(await cacheState(cache, ns))], [...(await serverState(ns))]);
      await live.create(widget('a', 'streamed-after-sync', { replicas: 1 }));
      await waitFor('the change after the end bookmark', () =>
        cache.get(Widget, { namespace: 'a', name: 'streamed-after-sync' }).catch(() => undefined),
      );
      assert.equal(inf.stats().watches, 1, 'the change came on the stream that listed');
      await live.delete(await live.get(Widget, { namespace: 'a', name: 'streamed-after-sync' }));
    });
  });

  it('lists in pages where the server does not stream lists (the WatchList gate off)', async () => {
    const off = new TestEnvironment({ featureGates: { WatchList: false } });
    const kc = await off.start();
    try {
      const c = newClient(kc, { fieldOwner: 'cache-test' });
      for (let i = 0; i < 3; i++)
        await c.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'default', name: `paged-${i}` } });
      await withCache(kc, {}, async (cache) => {
        const inf = (await cache.getInformer(V1ConfigMap)) as unknown as SharedInformer;
        await cache.waitForCacheSync();
        const st = inf.stats();
        assert.equal(st.streamedLists, 0, `refused, so no streaming list (stats ${JSON.stringify(st)})`);
        assert.equal(st.lists, 1, 'one paginated list');
        assert.equal(st.watchErrors, 0, 'the refusal is not a failure to back off from');
        const names = (await cache.list(V1ConfigMap, { namespace: 'default' })).items.map((o) => o.metadata?.name);
        assert.deepEqual(
          names.filter((n) => n?.startsWith('paged-')),
          ['paged-0', 'paged-1', 'paged-2'],
        );
        await c.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'default', name: 'paged-3' } });
        await waitFor('the watch after the paginated list', () =>
          cache.get(V1ConfigMap, { namespace: 'default', name: 'paged-3' }).catch(() => undefined),
        );
      });
    } finally {
      await off.stop();
    }
  });

  it('resumes the watch from its resourceVersion after the connection is cut', async () => {
    const proxy = CuttableProxy.for(config);
    await proxy.start();
    try {
      await withCache(proxy.kubeConfig(config), {}, async (cache) => {
        const inf = (await cache.getInformer(V1ConfigMap)) as unknown as SharedInformer;
        await cache.waitForCacheSync();
        const before = inf.stats();
        proxy.pause();
        // Changes while the informer cannot reach the server.
        await live.create({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { namespace: 'a', name: 'cut-1' },
          data: { v: '1' },
        });
        const cm2 = await live.create({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { namespace: 'a', name: 'cut-2' },
        });
        await live.delete(cm2);
        await new Promise((r) => setTimeout(r, 300));
        proxy.resume();
        await waitFor('cache to see cut-1', () =>
          cache.get(V1ConfigMap, { namespace: 'a', name: 'cut-1' }).catch(() => undefined),
        );
        await assert.rejects(cache.get(V1ConfigMap, { namespace: 'a', name: 'cut-2' }), (e: unknown) => isNotFound(e));
        const after = inf.stats();
        assert.ok(after.watches > before.watches, 'a new watch was opened');
        assert.equal(after.lists, before.lists, 'resumed from the resourceVersion without relisting');
        assert.ok(after.watchErrors > before.watchErrors, 'the cut was noticed');
      });
    } finally {
      await proxy.stop();
    }
  });

  it('relists after 410 Gone (API server restarted while unreachable) and ends equal to the server', async () => {
    const proxy = CuttableProxy.for(config);
    await proxy.start();
    try {
      await withCache(proxy.kubeConfig(config), {}, async (cache) => {
        const inf = (await cache.getInformer(Widget)) as unknown as SharedInformer;
        await cache.waitForCacheSync();
        const deletes: { name: string; unknown: boolean }[] = [];
        inf.addEventHandler({
          onDelete: (o, unknown) =>
            deletes.push({ name: must(must(o.metadata, 'o.metadata').name, 'o.metadata.name'), unknown }),
        });
        const before = inf.stats();
        proxy.pause();
        // A write elsewhere moves etcd's revision past the informer's resourceVersion; the restarted
        // API server's watch cache then starts above it, so resuming gets 410 Gone.
        await live.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'a', name: 'bump' } });
        await env.restartAPIServer();
        for (let i = 0; i < 5; i++) await live.create(widget('b', `gone-${i}`, { replicas: i }));
        const w1 = await live.get(Widget, { namespace: 'a', name: 'w1' });
        w1.spec = { ...w1.spec, message: 'changed while away' };
        await live.update(w1);
        await live.delete(await live.get(Widget, { namespace: 'b', name: 'w3' }));
        proxy.resume();
        await waitFor(
          'cache to match the server',
          async () => {
            const [s, c] = [await serverState('a'), await cacheState(cache, 'a')];
            const [s2, c2] = [await serverState('b'), await cacheState(cache, 'b')];
            return (
              JSON.stringify([...s]) === JSON.stringify([...c]) && JSON.stringify([...s2]) === JSON.stringify([...c2])
            );
          },
          30_000,
        );
        const after = inf.stats();
        assert.ok(
          after.relistsAfterGone > before.relistsAfterGone,
          `expected a relist after 410 (stats ${JSON.stringify(after)})`,
        );
        assert.deepEqual(
          deletes,
          [{ name: 'w3', unknown: true }],
          'the delete missed during the outage is inferred by the relist',
        );
        assert.equal((await cache.get(Widget, { namespace: 'a', name: 'w1' })).spec?.message, 'changed while away');
      });
    } finally {
      await proxy.stop();
    }
  });
});
