// Metadata-only informers (controller-runtime's builder.OnlyMetadata / metav1.PartialObjectMetadata)
// and unsafeDisableDeepCopy, against a real kube-apiserver.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { V1ConfigMap, V1Secret, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import type { TestEnvironment } from '../../../src/testing/index.js';
import { newCache, type InformerCache } from '../../../src/runtime/cache/index.js';
import { mergePatch, metadataOnly, newClient, type PartialObjectMetadata } from '../../../src/runtime/client/index.js';
import { RestClient } from '../../../src/runtime/client/rest.js';
import { controllerManagedBy } from '../../../src/runtime/controller/index.js';
import { setControllerReference } from '../../../src/runtime/util/index.js';
import type { Client } from '../../../src/runtime/contracts.js';
import { MiniManager, Widget, startEnv, testLogger, waitFor, widget } from '../controller/harness.js';
import { must } from '../../helpers/must.js';

let env: TestEnvironment;
let config: KubeConfig;
let live: Client;

before(async () => {
  ({ env, config } = await startEnv());
  live = newClient(config, { fieldOwner: 'metadata-test' });
  for (const ns of ['m1', 'm2', 'm3'])
    await live.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
});
after(async () => {
  await env?.stop();
});

async function withCache<T>(opts: Parameters<typeof newCache>[1], fn: (c: InformerCache) => Promise<T>): Promise<T> {
  const cache = newCache(config, { logger: testLogger(), initialBackoffMs: 100, maxBackoffMs: 1000, ...opts });
  const ac = new AbortController();
  const run = cache.start(ac.signal);
  try {
    return await fn(cache);
  } finally {
    ac.abort();
    await run;
  }
}

function secret(ns: string, name: string, labels: Record<string, string>): V1Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { namespace: ns, name, labels, annotations: { note: `of ${name}` } },
    type: 'Opaque',
    stringData: { password: `pw-${name}` },
  };
}

/** The metadata fields a PartialObjectMetadata must carry, as the server has them. */
function metaOf(o: KubernetesObject): Record<string, unknown> {
  const m = must(o.metadata, 'o.metadata');
  return {
    name: m.name,
    namespace: m.namespace,
    uid: m.uid,
    resourceVersion: m.resourceVersion,
    labels: m.labels,
    annotations: m.annotations,
    ownerReferences: m.ownerReferences,
  };
}

describe('metadata-only informers (real API server)', () => {
  it('the server answers PartialObjectMetadataList to the Accept header the informer sends', async () => {
    await live.create(secret('m1', 'raw', { app: 'x' }));
    const rest = new RestClient(config);
    const list = await rest.request<{ apiVersion: string; kind: string; items: Record<string, unknown>[] }>(
      'GET',
      '/api/v1/namespaces/m1/secrets',
      {
        accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1',
      },
    );
    rest.close();
    assert.equal(list.apiVersion, 'meta.k8s.io/v1');
    assert.equal(list.kind, 'PartialObjectMetadataList');
    const item = must(
      list.items.find((i) => (i.metadata as { name: string }).name === 'raw'),
      "list.items.find((i) => (i.metadata as { name: string }).name === 'r...",
    );
    assert.deepEqual(Object.keys(item).sort(), ['apiVersion', 'kind', 'metadata']);
    assert.equal(item.kind, 'PartialObjectMetadata');
  });

  it('get/list return PartialObjectMetadata (the type kept, labels, annotations, ownerReferences; no data) and follow updates', async () => {
    const owner = await live.create(widget('m1', 'owner'));
    const s1 = secret('m1', 's1', { app: 'web' });
    setControllerReference(owner, s1);
    await live.create(s1);
    await live.create(secret('m1', 's2', { app: 'db' }));
    await withCache({}, async (cache) => {
      const got = await cache.get(metadataOnly(V1Secret), { namespace: 'm1', name: 's1' });
      const server = await live.get(V1Secret, { namespace: 'm1', name: 's1' });
      assert.equal(got.apiVersion, 'v1');
      assert.equal(got.kind, 'Secret');
      assert.deepEqual(Object.keys(got).sort(), ['apiVersion', 'kind', 'metadata']);
      assert.deepEqual(metaOf(got), metaOf(server));
      assert.equal(got.metadata.ownerReferences?.[0]?.name, 'owner');
      assert.ok(got.metadata.creationTimestamp instanceof Date, 'timestamps are Dates, as on full objects');
      // The same object through the live client's metadata read.
      const direct = await live.get(metadataOnly(V1Secret), { namespace: 'm1', name: 's1' });
      assert.deepEqual(direct, got);

      const web = await cache.list(metadataOnly(V1Secret), { namespace: 'm1', labelSelector: 'app=web' });
      assert.deepEqual(
        web.items.map((i) => i.metadata.name),
        ['s1'],
      );
      assert.equal(web.kind, 'SecretList');
      const liveList = await live.list(metadataOnly(V1Secret), { namespace: 'm1', labelSelector: 'app=web' });
      assert.deepEqual(liveList.items, web.items);

      // A separate informer from the full one: the full one has the data.
      const [metaInf] = await cache.informersFor(metadataOnly(V1Secret));
      const [fullInf] = await cache.informersFor(V1Secret);
      assert.notEqual(metaInf, fullInf);
      assert.equal(metaInf.isMetadataOnly(), true);
      const full = await cache.get(V1Secret, { namespace: 'm1', name: 's1' });
      assert.equal(Buffer.from(must(full.data, 'full.data').password, 'base64').toString(), 'pw-s1');

      // Updates arrive through the metadata watch, to handlers too.
      const seen: PartialObjectMetadata[] = [];
      (await cache.getInformer(metadataOnly(V1Secret))).addEventHandler({ onUpdate: (_o, n) => seen.push(n) });
      await live.patch(server, mergePatch({ metadata: { labels: { app: 'web', tier: 'gold' } } }));
      const updated = await waitFor('the label change in the metadata cache', async () => {
        const o = await cache.get(metadataOnly(V1Secret), { namespace: 'm1', name: 's1' });
        return o.metadata.labels?.tier === 'gold' ? o : undefined;
      });
      assert.deepEqual(Object.keys(updated).sort(), ['apiVersion', 'kind', 'metadata']);
      await waitFor('an update event', () => seen.some((o) => o.metadata.labels?.tier === 'gold'));
      const ev = must(
        seen.find((o) => o.metadata.labels?.tier === 'gold'),
        "seen.find((o) => o.metadata.labels?.tier === 'gold')",
      );
      assert.deepEqual(Object.keys(ev).sort(), ['apiVersion', 'kind', 'metadata']);
      assert.equal(ev.kind, 'Secret');
      assert.equal(
        (await cache.list(metadataOnly(V1Secret), { namespace: 'm1', labelSelector: 'tier=gold' })).items.length,
        1,
      );

      await live.delete(server);
      await waitFor('the delete in the metadata cache', async () =>
        (await cache.list(metadataOnly(V1Secret), { namespace: 'm1' })).items.every((i) => i.metadata.name !== 's1'),
      );
    });
  });

  it('an empty namespace: the server says items: null, the cache and the client answer an empty list', async () => {
    await live.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'm-empty' } });
    const rest = new RestClient(config);
    const raw = await rest.request<{ items: unknown }>('GET', '/api/v1/namespaces/m-empty/configmaps', {
      accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1',
      query: { labelSelector: 'none=none' },
    });
    rest.close();
    assert.equal(raw.items, null);
    assert.deepEqual(
      (await live.list(metadataOnly(V1ConfigMap), { namespace: 'm-empty', labelSelector: 'none=none' })).items,
      [],
    );
    await withCache(
      { namespaces: ['m-empty'], defaultLabelSelector: 'none=none', syncTimeoutMs: 10_000 },
      async (cache) => {
        assert.deepEqual((await cache.list(metadataOnly(V1ConfigMap), { namespace: 'm-empty' })).items, []);
      },
    );
  });

  it('owns(V1Secret, { metadataOnly: true }): an owned Secret change triggers the owner, events carry metadata only', async () => {
    const mgr = new MiniManager(config, { namespaces: ['m2'] });
    const reconciled: string[] = [];
    const events: KubernetesObject[] = [];
    controllerManagedBy(mgr)
      .for(Widget)
      .owns(V1Secret, {
        metadataOnly: true,
        predicates: [
          {
            update: (e) => {
              events.push(e.objectNew);
              return true;
            },
          },
        ],
      })
      .complete(async (req) => {
        reconciled.push(req.name);
      });
    const ac = new AbortController();
    const run = mgr.start(ac.signal);
    try {
      const owner = await live.create(widget('m2', 'w'));
      const s = secret('m2', 'owned', { app: 'a' });
      setControllerReference(owner, s);
      const created = await live.create(s);
      await waitFor('the initial reconcile', () => reconciled.includes('w'));
      await waitFor(
        'the Secret in the metadata cache',
        async () => (await mgr.cache.list(metadataOnly(V1Secret), { namespace: 'm2' })).items.length === 1,
      );
      const before = reconciled.length;
      await live.patch(created, mergePatch({ metadata: { annotations: { touched: 'yes' } } }));
      await waitFor(
        'a reconcile of the owner after the Secret changed',
        () => reconciled.length > before && events.some((o) => o.metadata?.annotations?.touched === 'yes'),
      );
      const ev = must(
        events.find((o) => o.metadata?.annotations?.touched === 'yes'),
        "events.find((o) => o.metadata?.annotations?.touched === 'yes')",
      );
      assert.deepEqual(Object.keys(ev).sort(), ['apiVersion', 'kind', 'metadata']);
      assert.equal(ev.kind, 'Secret');
      assert.equal(reconciled.at(-1), 'w');
    } finally {
      ac.abort();
      await run;
    }
  });
});

describe('unsafeDisableDeepCopy (real API server)', () => {
  it('cache-wide: reads return the same instance, and a mutation is visible to every later read (the danger)', async () => {
    await live.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { namespace: 'm3', name: 'c1' },
      data: { k: 'v' },
    } as V1ConfigMap);
    await withCache({ unsafeDisableDeepCopy: true }, async (cache) => {
      const a = await cache.get(V1ConfigMap, { namespace: 'm3', name: 'c1' });
      const b = await cache.get(V1ConfigMap, { namespace: 'm3', name: 'c1' });
      assert.equal(a, b, 'the very same object');
      const [fromList] = (await cache.list(V1ConfigMap, { namespace: 'm3' })).items;
      assert.equal(fromList, a);
      assert.equal(Object.isFrozen(a), false);
      must(a.data, 'a.data').k = 'changed by a careless reader';
      assert.equal(
        must(
          (await cache.get(V1ConfigMap, { namespace: 'm3', name: 'c1' })).data,
          "(await cache.get(V1ConfigMap, { namespace: 'm3', name: 'c1' })).data",
        ).k,
        'changed by a careless reader',
      );
      // The server still has the old value: the cache now disagrees with it until the next event.
      assert.equal(
        must(
          (await live.get(V1ConfigMap, { namespace: 'm3', name: 'c1' })).data,
          "(await live.get(V1ConfigMap, { namespace: 'm3', name: 'c1' })).data",
        ).k,
        'v',
      );
      await live.patch(a, mergePatch({ data: { other: 'x' } }));
      await waitFor(
        'the next event replacing the object',
        async () => (await cache.get(V1ConfigMap, { namespace: 'm3', name: 'c1' })).data?.other === 'x',
      );
      assert.equal(
        must(
          (await cache.get(V1ConfigMap, { namespace: 'm3', name: 'c1' })).data,
          "(await cache.get(V1ConfigMap, { namespace: 'm3', name: 'c1' })).data",
        ).k,
        'v',
      );
    });
  });

  it('by default, and per byObject: copies unless the type asks otherwise', async () => {
    await live.create(secret('m3', 'sec', {}));
    await withCache({ byObject: [{ object: V1ConfigMap, unsafeDisableDeepCopy: true }] }, async (cache) => {
      const s1 = await cache.get(V1Secret, { namespace: 'm3', name: 'sec' });
      const s2 = await cache.get(V1Secret, { namespace: 'm3', name: 'sec' });
      assert.notEqual(s1, s2);
      must(s1.metadata, 's1.metadata').labels = { mutated: 'yes' };
      assert.equal(
        must(
          (await cache.get(V1Secret, { namespace: 'm3', name: 'sec' })).metadata,
          "(await cache.get(V1Secret, { namespace: 'm3', name: 'sec' })).metadata",
        ).labels,
        undefined,
      );
      const c1 = await cache.get(V1ConfigMap, { namespace: 'm3', name: 'c1' });
      assert.equal(await cache.get(V1ConfigMap, { namespace: 'm3', name: 'c1' }), c1);
    });
  });
});
