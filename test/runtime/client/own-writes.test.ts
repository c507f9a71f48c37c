// Read-your-own-writes on a real kube-apiserver: with `client.readYourOwnWrites`, the Manager's
// cache-backed client answers a get right after its own write with what it wrote (never an
// older version, never NotFound after its create) until the informer catches up, and then with the
// cache again (a later write by someone else wins); `ignoreOwnWrites` drops the watch events of the
// controller's own writes and lets everyone else's through.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { V1ConfigMap, type KubeConfig } from '@kubernetes/client-node';
import type { TestEnvironment } from '../../../src/testing/index.js';
import { newClient, mergePatch } from '../../../src/runtime/client/index.js';
import { PENDING_TTL_MS } from '../../../src/runtime/client/ownwrites.js';
import { newCache } from '../../../src/runtime/cache/index.js';
import { CuttableProxy } from '../cache/proxy.js';
import { newManager, type Manager } from '../../../src/runtime/manager/index.js';
import { controllerManagedBy, ignoreOwnWrites } from '../../../src/runtime/controller/index.js';
import { startEnv, testLogger, waitFor } from '../controller/harness.js';

let env: TestEnvironment;
let config: KubeConfig;

before(async () => {
  ({ env, config } = await startEnv());
});
after(async () => {
  await env?.stop();
});

async function running(
  setup: (mgr: Manager) => void,
  ns: string,
): Promise<{ mgr: Manager; stop: () => Promise<void> }> {
  const mgr = newManager(config, {
    logger: testLogger(),
    cache: { defaultNamespaces: [ns] },
    client: { readYourOwnWrites: true },
  });
  setup(mgr);
  const ac = new AbortController();
  const done = mgr.start(ac.signal);
  done.catch(() => undefined);
  await mgr.elected();
  return {
    mgr,
    stop: async () => {
      ac.abort();
      await done;
    },
  };
}

async function namespace(prefix: string): Promise<string> {
  const name = `${prefix}-${Date.now().toString(36)}`;
  await newClient(config).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  return name;
}

describe('read-your-own-writes (real API server)', () => {
  it('a get right after each write returns that write: after a create, 30 updates, a patch and a status-less apply', async () => {
    const ns = await namespace('ryow');
    const { mgr, stop } = await running(() => {}, ns);
    try {
      const c = mgr.getClient();
      await c.list(V1ConfigMap, { namespace: ns }); // start the informer
      const created = await c.create<V1ConfigMap>({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'cm', namespace: ns },
        data: { n: '0' },
      });
      let read = await c.get(V1ConfigMap, { namespace: ns, name: 'cm' });
      assert.equal(
        read.metadata?.resourceVersion,
        created.metadata?.resourceVersion,
        'no NotFound, no older version after the create',
      );
      for (let i = 1; i <= 30; i++) {
        read.data = { n: String(i) };
        const wrote = await c.update(read);
        read = await c.get(V1ConfigMap, { namespace: ns, name: 'cm' });
        assert.equal(read.metadata?.resourceVersion, wrote.metadata?.resourceVersion, `update ${i} read back`);
        assert.equal(read.data?.n, String(i));
      }
      const patched = await c.patch(read, mergePatch({ metadata: { labels: { patched: 'yes' } } }));
      read = await c.get(V1ConfigMap, { namespace: ns, name: 'cm' });
      assert.equal(read.metadata?.labels?.patched, 'yes');
      assert.equal(read.metadata?.resourceVersion, patched.metadata?.resourceVersion);
      const applied = await c.apply<V1ConfigMap>(
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: ns }, data: { applied: 'yes' } },
        { fieldOwner: 'ryow-test', force: true },
      );
      read = await c.get(V1ConfigMap, { namespace: ns, name: 'cm' });
      assert.equal(read.metadata?.resourceVersion, applied.metadata?.resourceVersion);
      assert.equal(read.data?.applied, 'yes');
    } finally {
      await stop();
    }
  });

  it('once the cache has caught up it answers again: a later write by another client is what a get returns', async () => {
    const ns = await namespace('ryow-other');
    const { mgr, stop } = await running(() => {}, ns);
    try {
      const c = mgr.getClient();
      const other = newClient(config);
      await c.list(V1ConfigMap, { namespace: ns });
      const mine = await c.create<V1ConfigMap>({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'shared', namespace: ns },
        data: { by: 'me' },
      });
      const theirs = await other.patch(mine, mergePatch({ data: { by: 'them' } }));
      await waitFor(
        "the other client's later write is read",
        async () => (await c.get(V1ConfigMap, { namespace: ns, name: 'shared' })).data?.by === 'them',
      );
      assert.equal(
        (await c.get(V1ConfigMap, { namespace: ns, name: 'shared' })).metadata?.resourceVersion,
        theirs.metadata?.resourceVersion,
      );
      // a delete drops the stand-in: the object is gone for the reader as soon as the cache says so
      await c.delete(theirs);
      await waitFor(
        'gone after the delete',
        async () => (await c.get(V1ConfigMap, { namespace: ns, name: 'shared' }).catch(() => undefined)) === undefined,
      );
    } finally {
      await stop();
    }
  });

  it(`a watch gone silent without closing for longer than PENDING_TTL_MS: a get reads the server, not the stale cache`, async () => {
    // The cache reads through a proxy that then goes silent (its watch stays open and hears
    // nothing); the client writes and reads the API server directly. Before, the kept answer of
    // the own write expired after PENDING_TTL_MS and the get returned the cache's old version.
    const ns = await namespace('ryow-silent');
    const proxy = CuttableProxy.for(config);
    await proxy.start();
    const cache = newCache(proxy.kubeConfig(config), { namespaces: [ns], logger: testLogger() });
    const ac = new AbortController();
    const running = cache.start(ac.signal);
    try {
      const other = newClient(config);
      const first = await other.create<V1ConfigMap>({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'silent', namespace: ns },
        data: { by: 'first' },
      });
      const c = newClient(config, { cache, readYourOwnWrites: true, fieldOwner: 'me' });
      const key = { namespace: ns, name: 'silent' };
      await waitFor('the cache has it', async () => (await c.get(V1ConfigMap, key).catch(() => undefined))?.data?.by);
      proxy.freeze();
      const mine = await c.patch(first, mergePatch({ data: { by: 'me' } }));
      assert.equal((await c.get(V1ConfigMap, key)).data?.by, 'me', 'the own write, read back at once');
      const theirs = await other.patch(mine, mergePatch({ data: { by: 'them' } }));
      await new Promise((r) => setTimeout(r, PENDING_TTL_MS + 500));
      assert.equal(
        (await cache.get(V1ConfigMap, key)).data?.by,
        'first',
        'the cache is still behind (the watch is silent)',
      );
      const read = await c.get(V1ConfigMap, key);
      assert.notEqual(read.data?.by, 'first', "the stale cache's version");
      assert.equal(read.metadata?.resourceVersion, theirs.metadata?.resourceVersion, "the server's current version");
    } finally {
      ac.abort();
      proxy.cut();
      await running.catch(() => undefined);
      await proxy.stop();
    }
  });

  it("ignoreOwnWrites: the controller is not woken by its own update, and is by anyone else's", async () => {
    const ns = await namespace('ryow-pred');
    const reconciles: string[] = [];
    const { stop } = await running((m) => {
      const c = m.getClient();
      controllerManagedBy(m)
        .for(V1ConfigMap, { predicates: [ignoreOwnWrites(c)] })
        .named('own-writes')
        .complete(async (req) => {
          const cm = await c.get(V1ConfigMap, req);
          reconciles.push(`${req.name}:${cm.data?.seen ?? '-'}`);
          if (cm.data?.seen !== 'yes') await c.update({ ...cm, data: { ...cm.data, seen: 'yes' } });
        });
    }, ns);
    try {
      const other = newClient(config);
      await other.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: ns } });
      await waitFor('a reconciled', () => reconciles.includes('a:-'));
      // The controller's own update of a makes an event it drops; a write to b by another client
      // after it is reconciled, and b's event comes after a's on the same watch.
      await waitFor(
        'a updated by the controller',
        async () => (await other.get(V1ConfigMap, { namespace: ns, name: 'a' })).data?.seen === 'yes',
      );
      await other.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b', namespace: ns } });
      await waitFor('b reconciled', () => reconciles.includes('b:-'));
      assert.deepEqual(
        reconciles.filter((r) => r.startsWith('a:')),
        ['a:-'],
        'a was not reconciled again after its own update',
      );
      // someone else's update of a does wake it
      const a = await other.get(V1ConfigMap, { namespace: ns, name: 'a' });
      await other.patch(a, mergePatch({ data: { external: '1' } }));
      await waitFor(
        'an external write of a is reconciled',
        () => reconciles.filter((r) => r.startsWith('a:')).length === 2,
      );
    } finally {
      await stop();
    }
  });
});
