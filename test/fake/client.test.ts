// kubeforge/testing's fake API server as a reconciler test uses it: seeded objects (status kept),
// the client's typed errors, validate/validateUpdate, interceptors, a recording event recorder,
// and a whole manager whose watches reconcile, all without etcd or kube-apiserver binaries.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ConflictError, isConflict, isInvalid, isNotFound, type StatusError } from '../../src/runtime/client/errors.js';
import { controllerManagedBy } from '../../src/runtime/controller/index.js';
import {
  FakeAPIServer,
  newFakeClient,
  newTestManager,
  reconcileContext,
  RecordingEventRecorder,
  withInterceptors,
} from '../../src/testing/index.js';

const root = process.env.KUBEFORGE_REPO_ROOT ?? process.cwd();
const crdDir = join(root, 'test/fixtures/fake');
const W = { apiVersion: 'fake.kubeforge.io/v1', kind: 'Widget' };
type Widget = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; resourceVersion?: string; generation?: number };
  spec: Record<string, unknown>;
  status?: Record<string, unknown>;
};
const widget = (
  name: string,
  spec: Record<string, unknown> = { size: 2 },
  status?: Record<string, unknown>,
): Widget => ({ ...W, metadata: { name, namespace: 'team-a' }, spec, ...(status ? { status } : {}) });

describe('the fake client', () => {
  const closers: (() => Promise<void>)[] = [];
  after(async () => {
    for (const c of closers) await c();
  });

  it('needs no control plane: it starts without KUBEBUILDER_ASSETS', async () => {
    const saved = process.env.KUBEBUILDER_ASSETS;
    delete process.env.KUBEBUILDER_ASSETS;
    try {
      const c = await newFakeClient({ crdDirectoryPaths: [crdDir] });
      closers.push(() => c.close());
      assert.equal(
        (await c.list({ apiVersion: 'v1', kind: 'Namespace' })).items.some((n) => n.metadata?.name === 'default'),
        true,
      );
    } finally {
      if (saved !== undefined) process.env.KUBEBUILDER_ASSETS = saved;
    }
  });

  it('seeds objects with their status, creating their namespace; defaults applied', async () => {
    const c = await newFakeClient({
      crdDirectoryPaths: [crdDir],
      objects: [widget('seeded', { size: 2 }, { ready: true })],
    });
    closers.push(() => c.close());
    const got = await c.get<Widget>(W, { namespace: 'team-a', name: 'seeded' });
    assert.deepEqual(got.status, { ready: true });
    assert.equal(got.spec.mode, 'Fast');
    assert.equal(got.metadata.generation, 1);
  });

  it('refuses a seed object the API server would refuse, naming it', async () => {
    await assert.rejects(
      newFakeClient({ crdDirectoryPaths: [crdDir], objects: [widget('bad', { size: 99 })] }),
      /Widget bad: Widget\.fake\.kubeforge\.io "bad" is invalid: spec\.size/,
    );
  });

  it("answers with the client's typed errors: NotFound, Conflict, Invalid", async () => {
    const c = await newFakeClient({ crdDirectoryPaths: [crdDir], objects: [widget('w')] });
    closers.push(() => c.close());
    await assert.rejects(c.get(W, { namespace: 'team-a', name: 'nope' }), (e) => isNotFound(e));
    const a = await c.get<Widget>(W, { namespace: 'team-a', name: 'w' });
    const b = structuredClone(a);
    a.spec.size = 3;
    await c.update(a);
    b.spec.size = 4;
    await assert.rejects(c.update(b), (e) => isConflict(e) && e instanceof ConflictError);
    await assert.rejects(
      c.create(widget('x', { size: 0 })),
      (e) => isInvalid(e) && (e as StatusError).status.details?.causes?.[0]?.field === 'spec.size',
    );
  });

  it('validate and validateUpdate say what the API server would, without storing', async () => {
    const server = await FakeAPIServer.start({
      crdDirectoryPaths: [crdDir],
      objects: [widget('w', { size: 2, frozen: 'ice' })],
    });
    closers.push(() => server.stop());
    assert.equal(server.validate(widget('ok')), undefined);
    const refused = server.validate(widget('bad', { size: 3, minReplicas: 5 }));
    assert.ok(refused && isInvalid(refused));
    // As the API server words a failed rule on an object: the value is left out.
    assert.match(refused.message, /spec\.minReplicas: Invalid value: minReplicas must not exceed replicas$/);
    const update = server.validateUpdate(
      widget('w', { size: 2, frozen: 'ice' }),
      widget('w', { size: 2, frozen: 'water' }),
    );
    assert.ok(update && isInvalid(update));
    assert.match(update.message, /frozen is immutable/);
    assert.equal(
      server.validateUpdate(widget('w', { size: 2, frozen: 'ice' }), widget('w', { size: 5, frozen: 'ice' })),
      undefined,
    );
    assert.equal(
      (await server.client().get<Widget>(W, { namespace: 'team-a', name: 'w' })).spec.size,
      2,
      'nothing was stored',
    );
  });

  it('withInterceptors injects faults and passes the rest through', async () => {
    const c = await newFakeClient({ crdDirectoryPaths: [crdDir], objects: [widget('w')] });
    closers.push(() => c.close());
    let updates = 0;
    const flaky = withInterceptors(c, {
      update: async (obj, o, next) => {
        if (updates++ === 0) throw new ConflictError(409, { reason: 'Conflict', message: 'injected' });
        return next.update(obj, o);
      },
    });
    const w = await flaky.get<Widget>(W, { namespace: 'team-a', name: 'w' });
    w.spec.size = 5;
    await assert.rejects(flaky.update(w), /injected/);
    const saved = await flaky.update(w);
    assert.equal(saved.spec.size, 5);
    assert.equal(updates, 2);
  });

  it('a manager on the fake server reconciles what the watches see, and the recorder keeps the events', async () => {
    const c = await newFakeClient({ crdDirectoryPaths: [crdDir] });
    closers.push(() => c.close());
    await c.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } });
    const mgr = newTestManager(c.server.config);
    const recorder = new RecordingEventRecorder();
    controllerManagedBy(mgr)
      .for(W)
      .complete({
        async reconcile(req) {
          const w = await mgr.getClient().get<Widget>(W, req);
          w.status = { ready: true, replicas: Number(w.spec.replicas) };
          await mgr.getClient().status().update(w);
          recorder.eventf(
            w,
            null,
            'Normal',
            'Reconciled',
            'Reconcile',
            'generation %d reconciled',
            w.metadata.generation,
          );
          return {};
        },
      });
    const stop = new AbortController();
    const running = mgr.start(stop.signal);
    try {
      await c.create(widget('m', { size: 2, replicas: 3 }));
      for (let i = 0; i < 200; i++) {
        const got = await c.get<Widget>(W, { namespace: 'team-a', name: 'm' });
        if (got.status?.ready) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      const got = await c.get<Widget>(W, { namespace: 'team-a', name: 'm' });
      assert.deepEqual(got.status, { ready: true, replicas: 3 });
      assert.ok(recorder.lines().includes('Normal Reconciled generation 1 reconciled'), recorder.lines().join('\n'));
    } finally {
      stop.abort();
      await running;
    }
  });

  it('reconcileContext gives what reconcile() is called with', () => {
    const ctx = reconcileContext();
    assert.equal(typeof ctx.reconcileID, 'string');
    assert.equal(ctx.signal.aborted, false);
    assert.equal(typeof ctx.logger.info, 'function');
  });

  it('a CRD created through the API with CEL rules has them enforced from its first object on', async () => {
    // The CEL engine is loaded only when a served schema has rules: here, after the server started with none.
    const c = await newFakeClient();
    closers.push(() => c.close());
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gadgets.late.kubeforge.io' },
      spec: {
        group: 'late.kubeforge.io',
        scope: 'Namespaced',
        names: { kind: 'Gadget', plural: 'gadgets', singular: 'gadget', listKind: 'GadgetList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: {
                    type: 'object',
                    properties: { min: { type: 'integer' }, max: { type: 'integer' } },
                    'x-kubernetes-validations': [{ rule: 'self.min <= self.max', message: 'min must not exceed max' }],
                  },
                },
              },
            },
          },
        ],
      },
    };
    await c.create(crd);
    const G = { apiVersion: 'late.kubeforge.io/v1', kind: 'Gadget' };
    await c.create({ ...G, metadata: { name: 'fine', namespace: 'default' }, spec: { min: 1, max: 2 } });
    await assert.rejects(
      c.create({ ...G, metadata: { name: 'upside-down', namespace: 'default' }, spec: { min: 3, max: 2 } }),
      (e: unknown) => {
        assert.ok(isInvalid(e), String(e));
        assert.match((e as StatusError).message, /is invalid: spec: Invalid value: .*min must not exceed max/);
        return true;
      },
    );
  });
});
