// What the cache holds, chosen per type (controller-runtime's cache.Options DefaultLabelSelector,
// DefaultFieldSelector and ByObject, and the client's CacheOptions.DisableFor), on a real
// kube-apiserver: the selectors go with the informer's list and watch, so objects outside them
// are never cached, and an object leaving its selector leaves the cache.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { V1ConfigMap, V1Secret, type KubeConfig } from '@kubernetes/client-node';
import type { TestEnvironment } from '../../../src/testing/index.js';
import { isNotFound, mergePatch, newClient } from '../../../src/runtime/client/index.js';
import { newManager, type Manager, type ManagerOptions } from '../../../src/runtime/manager/index.js';
import type { Client } from '../../../src/runtime/contracts.js';
import { startEnv, testLogger, waitFor } from '../controller/harness.js';

let env: TestEnvironment;
let config: KubeConfig;
let live: Client;
const ns = 'selectors';

before(async () => {
  ({ env, config } = await startEnv());
  live = newClient(config);
  await live.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  const cm = (name: string, labels?: Record<string, string>): V1ConfigMap => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: ns, labels },
    data: { a: '1' },
  });
  for (const o of [cm('web', { app: 'web' }), cm('db', { app: 'db' }), cm('plain')]) await live.create(o);
  for (const name of ['s1', 's2'])
    await live.create<V1Secret>({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace: ns, labels: { app: 'db' } },
      stringData: { k: 'v' },
    });
});
after(async () => {
  await env?.stop();
});

async function started(options: ManagerOptions): Promise<{ mgr: Manager; stop: () => Promise<void> }> {
  const mgr = newManager(config, { logger: testLogger(), ...options });
  const ac = new AbortController();
  const done = mgr.start(ac.signal);
  await mgr.started();
  return {
    mgr,
    stop: async () => {
      ac.abort();
      await done;
    },
  };
}

const names = (items: { metadata?: { name?: string } }[]) => items.map((i) => i.metadata?.name).sort();

describe('cache selectors per type (real API server)', () => {
  it('caches only what the default and per-type selectors select; a label change moves an object out', async () => {
    const { mgr, stop } = await started({
      cache: {
        defaultLabelSelector: 'app=web',
        byObject: [
          {
            object: V1Secret,
            labelSelector: '',
            fieldSelector: 'metadata.name=s2',
            transform: (o) => ({ ...o, metadata: { ...o.metadata, annotations: { cached: 'yes' } } }),
          },
        ],
      },
    });
    try {
      const c = mgr.getClient();
      assert.deepEqual(
        names((await c.list(V1ConfigMap, { namespace: ns })).items),
        ['web'],
        'the default label selector',
      );
      await assert.rejects(c.get(V1ConfigMap, { namespace: ns, name: 'db' }), (e: unknown) => isNotFound(e));
      const secrets = (await c.list(V1Secret, { namespace: ns })).items;
      assert.deepEqual(names(secrets), ['s2'], "the Secret's own selector, not the default");
      assert.equal(secrets[0].metadata?.annotations?.cached, 'yes', "the Secret's own transform");

      await live.create<V1ConfigMap>({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'web-2', namespace: ns, labels: { app: 'web' } },
      });
      await waitFor('a new object in the selector is cached', async () =>
        names((await c.list(V1ConfigMap, { namespace: ns })).items).includes('web-2'),
      );
      await live.patch(
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web', namespace: ns } },
        mergePatch({ metadata: { labels: { app: 'gone' } } }),
      );
      await waitFor(
        'an object leaving the selector leaves the cache',
        async () => !names((await c.list(V1ConfigMap, { namespace: ns })).items).includes('web'),
      );
      await live.patch(
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web', namespace: ns } },
        mergePatch({ metadata: { labels: { app: 'web' } } }),
      );
    } finally {
      await stop();
    }
  });

  it("reads types of client.cache.disableFor from the API server, past the cache's selector", async () => {
    const { mgr, stop } = await started({
      cache: { defaultLabelSelector: 'app=web' },
      client: { cache: { disableFor: [{ apiVersion: 'v1', kind: 'ConfigMap' }] } },
    });
    try {
      const c = mgr.getClient();
      assert.deepEqual(
        names((await c.list(V1ConfigMap, { namespace: ns })).items),
        ['db', 'plain', 'web', 'web-2'],
        'a live list',
      );
      assert.equal((await c.get(V1ConfigMap, { namespace: ns, name: 'db' })).metadata?.name, 'db');
      // Other types still come from the cache, with its selector.
      assert.deepEqual(names((await c.list(V1Secret, { namespace: ns })).items), []);
    } finally {
      await stop();
    }
  });
});
