// Client against a real kube-apiserver: CRUD, typed errors, status subresource, patches, SSA,
// delete options, discovery of descriptor types, live vs cache-backed reads.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { V1ConfigMap, V1Deployment, type KubeConfig } from '@kubernetes/client-node';
import type { TestEnvironment } from '../../../src/testing/index.js';
import {
  Apply,
  AlreadyExistsError,
  ConflictError,
  NotFoundError,
  isAlreadyExists,
  isConflict,
  isNotFound,
  jsonPatch,
  mergeFrom,
  mergePatch,
  newClient,
} from '../../../src/runtime/client/index.js';
import { newCache } from '../../../src/runtime/cache/index.js';
import type { Client } from '../../../src/runtime/contracts.js';
import { Widget, startEnv, testLogger, waitFor, widget } from '../controller/harness.js';

let env: TestEnvironment;
let config: KubeConfig;
let c: Client;

before(async () => {
  ({ env, config } = await startEnv());
  c = newClient(config, { fieldOwner: 'client-test' });
});
after(async () => {
  await env?.stop();
});

describe('client (live)', () => {
  it('creates, reads, updates and deletes a custom resource with typed errors', async () => {
    const created = await c.create(widget('default', 'crud', { replicas: 1, message: 'hi' }));
    assert.equal(created.metadata?.name, 'crud');
    assert.ok(created.metadata?.uid);
    assert.equal(created.metadata?.generation, 1);

    const got = await c.get(Widget, { namespace: 'default', name: 'crud' });
    assert.equal(got.spec?.message, 'hi');
    assert.equal(got.apiVersion, 'test.kubeforge.io/v1');

    await assert.rejects(
      c.create(widget('default', 'crud')),
      (e: unknown) => e instanceof AlreadyExistsError && isAlreadyExists(e) && !isConflict(e),
    );

    const stale = structuredClone(got);
    got.spec = { ...got.spec, replicas: 2 };
    const updated = await c.update(got);
    assert.equal(updated.spec?.replicas, 2);
    assert.equal(updated.metadata?.generation, 2);

    // A copy taken before the update carries the old resourceVersion: a stale update is a 409 Conflict.
    stale.spec = { ...stale.spec, replicas: 3 };
    await assert.rejects(
      c.update(stale),
      (e: unknown) => e instanceof ConflictError && isConflict(e) && (e as ConflictError).code === 409,
    );

    await c.delete(updated);
    await assert.rejects(
      c.get(Widget, { namespace: 'default', name: 'crud' }),
      (e: unknown) => e instanceof NotFoundError && isNotFound(e),
    );
    await assert.rejects(c.delete(updated), (e: unknown) => isNotFound(e));
  });

  it('dry-run deletes leave the object in place (delete and deleteAllOf)', async () => {
    const obj = await c.create(widget('default', 'dry-delete', { replicas: 1 }));
    await c.delete(obj, { dryRun: true });
    assert.equal((await c.get(Widget, { namespace: 'default', name: 'dry-delete' })).metadata?.uid, obj.metadata?.uid);
    await c.deleteAllOf(Widget, { namespace: 'default', dryRun: true });
    assert.equal((await c.get(Widget, { namespace: 'default', name: 'dry-delete' })).metadata?.uid, obj.metadata?.uid);
    await c.delete(obj);
  });

  it('writes status only through the status subresource', async () => {
    const w = await c.create(widget('default', 'status', { replicas: 1 }));
    w.status = { observedGeneration: 1, ready: true };
    w.spec = { replicas: 99 };
    const s = await c.status().update(w);
    assert.deepEqual(s.status, { observedGeneration: 1, ready: true });
    assert.equal(s.spec?.replicas, 1, 'spec changes are ignored by the status endpoint');
    assert.equal(s.metadata?.generation, 1, 'status writes do not bump generation');

    // A plain update does not write status.
    const fresh = await c.get(Widget, { namespace: 'default', name: 'status' });
    fresh.status = { ready: false, observedGeneration: 7 };
    const u = await c.update(fresh);
    assert.equal(u.status?.observedGeneration, 1);

    const p = await c.status().patch(u, mergePatch({ status: { message: 'patched' } }));
    assert.equal(p.status?.message, 'patched');
    assert.equal(p.status?.observedGeneration, 1);
  });

  it('patches with merge-from diffs, JSON patches and server-side apply', async () => {
    const w = await c.create(widget('default', 'patch', { replicas: 1, message: 'a' }));
    const before = structuredClone(w);
    w.spec = { replicas: 5 }; // message removed -> null in the merge patch
    const p1 = await c.patch(w, mergeFrom(before));
    assert.deepEqual(p1.spec, { replicas: 5 });
    assert.equal(p1, w, 'patch refreshes and returns the object passed in');
    // What p1 was before the next patch refreshes it.
    const p1Then = structuredClone(p1);

    const p2 = await c.patch(p1, jsonPatch([{ op: 'replace', path: '/spec/replicas', value: 6 }]));
    assert.equal(p2.spec?.replicas, 6);

    // Optimistic lock: a merge patch based on a stale object fails with Conflict.
    const stale = structuredClone(p1Then);
    stale.spec = { replicas: 8 };
    await assert.rejects(c.patch(stale, mergeFrom(p1Then, { optimisticLock: true })), (e: unknown) => isConflict(e));

    // Server-side apply: owner "client-test" takes spec.message; another manager conflicts unless forced.
    const applied = await c.patch(widget('default', 'patch', { message: 'applied' }), Apply);
    assert.equal(applied.spec?.message, 'applied');
    assert.ok(applied.metadata?.managedFields?.some((f) => f.manager === 'client-test' && f.operation === 'Apply'));
    await assert.rejects(
      c.patch(widget('default', 'patch', { message: 'other' }), Apply, { fieldManager: 'someone-else' }),
      (e: unknown) => isConflict(e),
    );
    const forced = await c.patch(widget('default', 'patch', { message: 'other' }), Apply, {
      fieldManager: 'someone-else',
      force: true,
    });
    assert.equal(forced.spec?.message, 'other');

    const noOwner = newClient(config);
    await assert.rejects(noOwner.patch(widget('default', 'patch', {}), Apply), /field manager/);
  });

  it('resolves descriptors through discovery and reports unknown kinds', async () => {
    const ref = { apiVersion: 'test.kubeforge.io/v1', kind: 'Widget' };
    await c.create(widget('default', 'disco', { replicas: 1 }));
    const got = await c.get<Widget>(ref, { namespace: 'default', name: 'disco' });
    assert.equal(got.spec?.replicas, 1);
    const info = await c.resolve(ref);
    assert.deepEqual(
      { plural: info.plural, namespaced: info.namespaced, group: info.group },
      { plural: 'widgets', namespaced: true, group: 'test.kubeforge.io' },
    );
    await assert.rejects(
      c.get({ apiVersion: 'test.kubeforge.io/v1', kind: 'Gadget' }, { namespace: 'default', name: 'x' }),
      (e: unknown) => isNotFound(e) && /no matches for kind "Gadget"/.test(String(e)),
    );
    await assert.rejects(
      c.get({ apiVersion: 'nope.example.com/v1', kind: 'Thing' }, { name: 'x' }),
      (e: unknown) => isNotFound(e) && /no matches/.test(String(e)),
    );
  });

  it('handles client-node model classes, labels, deleteAllOf and propagation policy', async () => {
    const cm = Object.assign(new V1ConfigMap(), {
      metadata: { namespace: 'default', name: 'cm1', labels: { app: 'x' } },
      data: { a: '1' },
    });
    const created = await c.create(cm); // no apiVersion/kind: taken from the class
    assert.equal(created.data?.a, '1');
    await c.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { namespace: 'default', name: 'cm2', labels: { app: 'x', tier: 'db' } },
    });
    await c.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { namespace: 'default', name: 'cm3', labels: { app: 'y' } },
    });
    const xs = await c.list(V1ConfigMap, { namespace: 'default', labelSelector: { app: 'x' } });
    assert.deepEqual(xs.items.map((i) => i.metadata?.name).sort(), ['cm1', 'cm2']);
    assert.equal(xs.items[0].kind, 'ConfigMap');
    const notDb = await c.list(V1ConfigMap, { namespace: 'default', labelSelector: 'app in (x,y),tier!=db' });
    assert.deepEqual(notDb.items.map((i) => i.metadata?.name).sort(), ['cm1', 'cm3']);

    await c.deleteAllOf(V1ConfigMap, { namespace: 'default', labelSelector: 'app=x' });
    const left = await c.list(V1ConfigMap, { namespace: 'default', labelSelector: 'app' });
    assert.deepEqual(
      left.items.map((i) => i.metadata?.name),
      ['cm3'],
    );
    await assert.rejects(c.deleteAllOf(V1ConfigMap, {}), /needs \{ namespace \}/);

    const dep = await c.create({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { namespace: 'default', name: 'd1' },
      spec: {
        selector: { matchLabels: { a: 'b' } },
        template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
      },
    } as V1Deployment);
    // Foreground: the API server marks the object (deletionTimestamp + foregroundDeletion finalizer)
    // and leaves the removal to the garbage collector, which the test control plane does not run.
    await c.delete(dep, { propagationPolicy: 'Foreground' });
    const dying = await c.get(V1Deployment, { namespace: 'default', name: 'd1' });
    assert.ok(dying.metadata?.deletionTimestamp);
    assert.deepEqual(dying.metadata?.finalizers, ['foregroundDeletion']);
  });
});

describe('client (cache-backed)', () => {
  it('reads from the cache once started, and the API reader reads live', async () => {
    const cache = newCache(config, { logger: testLogger() });
    const cc = newClient(config, { cache, fieldOwner: 'client-test' });
    await assert.rejects(cc.get(Widget, { namespace: 'default', name: 'x' }), /not started/);
    const ac = new AbortController();
    const run = cache.start(ac.signal);
    try {
      await cc.create(widget('default', 'cached', { message: 'one' }));
      const seen = await waitFor('cache to see the widget', () =>
        cc.get(Widget, { namespace: 'default', name: 'cached' }).catch(() => undefined),
      );
      assert.equal(seen.spec?.message, 'one');
      // Mutating what the cache returned does not change the cache.
      seen.spec.message = 'mutated locally';
      const again = await cc.get(Widget, { namespace: 'default', name: 'cached' });
      assert.equal(again.spec?.message, 'one');
      // Live read through the API reader sees a write before the cache does or at the same time.
      const live = await cc.apiReader().get(Widget, { namespace: 'default', name: 'cached' });
      assert.equal(live.metadata?.resourceVersion, again.metadata?.resourceVersion);
    } finally {
      ac.abort();
      await run;
    }
  });
});
