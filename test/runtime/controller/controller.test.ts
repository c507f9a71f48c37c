// Controllers on a real kube-apiserver, run by the real Manager, for the wiring: owned objects and
// owner enqueueing, status subresource, finalizers, conflicts, watch cut + API server restart,
// panic and terminal-error metrics, predicates, map-func watches, graceful shutdown and metrics.
// Timing behaviour (back-off, requeueAfter, concurrency, what is not retried) is checked on the
// fake clock in unit.test.ts.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { V1ConfigMap, V1Deployment, type KubeConfig } from '@kubernetes/client-node';
import type { TestEnvironment } from '../../../src/testing/index.js';
import { newManager, type Manager } from '../../../src/runtime/manager/index.js';
import { isConflict, isNotFound, mergePatch, newClient } from '../../../src/runtime/client/index.js';
import {
  GenerationChangedPredicate,
  ReconciliationTimeoutError,
  TerminalError,
  controllerManagedBy,
  enqueueRequestsFromMapFunc,
  kindSource,
  newPredicateFuncs,
  type Predicate,
  type ReconcileContext,
  type Request,
  type Result,
} from '../../../src/runtime/controller/index.js';
import type { Client } from '../../../src/runtime/contracts.js';
import { CuttableProxy } from '../cache/proxy.js';
import { Widget, sleep, startEnv, testLogger, waitFor, widget } from './harness.js';
import { must } from '../../helpers/must.js';

let env: TestEnvironment;
let config: KubeConfig;
let live: Client;
let nsSeq = 0;

before(async () => {
  ({ env, config } = await startEnv());
  live = newClient(config, { fieldOwner: 'controller-test' });
});
after(async () => {
  await env?.stop();
});

async function freshNamespace(): Promise<string> {
  const name = `t${++nsSeq}`;
  await live.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  return name;
}

interface Running {
  mgr: Manager;
  stop(): Promise<void>;
  done: Promise<void>;
}

/** Starts a Manager restricted to `ns` after `setup` registered controllers. */
async function runManager(
  kc: KubeConfig,
  ns: string,
  setup: (mgr: Manager) => void,
  opts: { gracefulShutdownTimeoutMs?: number } = {},
): Promise<Running> {
  const mgr = newManager(kc, {
    logger: testLogger(),
    cache: { defaultNamespaces: [ns] },
    gracefulShutdownTimeoutMs: opts.gracefulShutdownTimeoutMs ?? 10_000,
  });
  setup(mgr);
  const ac = new AbortController();
  const done = mgr.start(ac.signal);
  done.catch(() => undefined);
  await Promise.race([mgr.elected(), done]);
  return {
    mgr,
    done,
    stop: async () => {
      ac.abort();
      await done;
    },
  };
}

function deploymentFor(w: Widget): V1Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      namespace: must(w.metadata, 'w.metadata').namespace,
      name: `${must(w.metadata, 'w.metadata').name}-dep`,
      ownerReferences: [
        {
          apiVersion: 'test.kubeforge.io/v1',
          kind: 'Widget',
          name: must(must(w.metadata, 'w.metadata').name, 'w.metadata.name'),
          uid: must(must(w.metadata, 'w.metadata').uid, 'w.metadata.uid'),
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      replicas: w.spec?.replicas ?? 1,
      selector: { matchLabels: { widget: must(must(w.metadata, 'w.metadata').name, 'w.metadata.name') } },
      template: {
        metadata: { labels: { widget: must(must(w.metadata, 'w.metadata').name, 'w.metadata.name') } },
        spec: { containers: [{ name: 'app', image: 'busybox' }] },
      },
    },
  };
}

const FINALIZER = 'test.kubeforge.io/cleanup';

/** A typical operator reconcile: finalizer, owned Deployment kept at spec.replicas, status.observedGeneration. */
function widgetReconciler(mgr: Manager, record: { calls: Request[]; cleanups: string[]; gone: string[] }) {
  return async (req: Request, ctx: ReconcileContext): Promise<Result | void> => {
    record.calls.push(req);
    const c = mgr.getClient();
    let w: Widget;
    try {
      w = await c.get(Widget, req);
    } catch (e) {
      if (isNotFound(e)) {
        record.gone.push(req.name);
        return;
      }
      throw e;
    }
    if (w.metadata?.deletionTimestamp) {
      if (w.metadata.finalizers?.includes(FINALIZER)) {
        record.cleanups.push(req.name);
        w.metadata.finalizers = w.metadata.finalizers.filter((f) => f !== FINALIZER);
        await c.update(w);
      }
      return;
    }
    if (!w.metadata?.finalizers?.includes(FINALIZER)) {
      w.metadata = { ...w.metadata, finalizers: [...(w.metadata?.finalizers ?? []), FINALIZER] };
      w = await c.update(w);
    }
    const want = deploymentFor(w);
    let dep: V1Deployment | undefined;
    try {
      dep = await c.get(V1Deployment, {
        namespace: req.namespace,
        name: must(must(want.metadata, 'want.metadata').name, 'want.metadata.name'),
      });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
    if (!dep) await c.create(want);
    else if (dep.spec?.replicas !== must(want.spec, 'want.spec').replicas) {
      must(dep.spec, 'dep.spec').replicas = must(want.spec, 'want.spec').replicas;
      await c.update(dep);
    }
    if (w.status?.observedGeneration !== w.metadata?.generation) {
      w.status = { ...w.status, observedGeneration: must(w.metadata, 'w.metadata').generation, ready: true };
      await c.status().update(w);
    }
    ctx.logger.debug('reconciled');
  };
}

describe('controller on a real API server', () => {
  it('creates an owned Deployment, and a change to that Deployment enqueues its owner', async () => {
    const ns = await freshNamespace();
    const record = { calls: [] as Request[], cleanups: [] as string[], gone: [] as string[] };
    const run = await runManager(config, ns, (mgr) => {
      controllerManagedBy(mgr).for(Widget).owns(V1Deployment).complete(widgetReconciler(mgr, record));
    });
    try {
      await live.create(widget(ns, 'web', { replicas: 2 }));
      const dep = await waitFor('owned deployment', () =>
        live.get(V1Deployment, { namespace: ns, name: 'web-dep' }).catch(() => undefined),
      );
      assert.equal(dep.metadata?.ownerReferences?.[0].kind, 'Widget');
      assert.equal(dep.spec?.replicas, 2);
      await waitFor(
        'status.observedGeneration',
        async () => (await live.get(Widget, { namespace: ns, name: 'web' })).status?.observedGeneration === 1,
      );

      // Someone scales the Deployment by hand: the owner is reconciled and puts it back.
      const before = record.calls.length;
      await live.patch(dep, mergePatch({ spec: { replicas: 7 } }));
      await waitFor(
        'drift corrected through the owner',
        async () => (await live.get(V1Deployment, { namespace: ns, name: 'web-dep' })).spec?.replicas === 2,
      );
      assert.ok(record.calls.length > before);
      assert.ok(
        record.calls.slice(before).every((r) => r.name === 'web' && r.namespace === ns),
        'the Deployment event enqueued its owner Widget',
      );

      // A Deployment without a controller reference to a Widget enqueues nothing. The informer
      // delivers events in order: once a later change to the owned Deployment has been
      // reconciled, the stray Deployment's event has been handled too.
      const quiet = record.calls.length;
      await live.create({
        ...deploymentFor({ metadata: { namespace: ns, name: 'stray', uid: 'x' } } as Widget),
        metadata: { namespace: ns, name: 'stray-dep' },
      });
      await live.patch(
        await live.get(V1Deployment, { namespace: ns, name: 'web-dep' }),
        mergePatch({ metadata: { labels: { barrier: '1' } } }),
      );
      await waitFor('the owned Deployment change reconciled', () => record.calls.length > quiet);
      assert.ok(
        record.calls.slice(quiet).every((r) => r.name === 'web'),
        `only the owner was reconciled: ${record.calls
          .slice(quiet)
          .map((r) => r.name)
          .join(', ')}`,
      );

      // A spec change bumps generation; status follows through the status subresource.
      const w = await live.get(Widget, { namespace: ns, name: 'web' });
      w.spec = { replicas: 3 };
      await live.update(w);
      await waitFor(
        'observedGeneration 2',
        async () => (await live.get(Widget, { namespace: ns, name: 'web' })).status?.observedGeneration === 2,
      );
      assert.equal((await live.get(V1Deployment, { namespace: ns, name: 'web-dep' })).spec?.replicas, 3);
    } finally {
      await run.stop();
    }
  });

  it('runs the finalizer flow on delete', async () => {
    const ns = await freshNamespace();
    const record = { calls: [] as Request[], cleanups: [] as string[], gone: [] as string[] };
    const run = await runManager(config, ns, (mgr) => {
      controllerManagedBy(mgr).for(Widget).owns(V1Deployment).complete(widgetReconciler(mgr, record));
    });
    try {
      const created = await live.create(widget(ns, 'fin', { replicas: 1 }));
      await waitFor('finalizer added', async () =>
        (await live.get(Widget, { namespace: ns, name: 'fin' })).metadata?.finalizers?.includes(FINALIZER),
      );
      await live.delete(created);
      const dying = await live.get(Widget, { namespace: ns, name: 'fin' }).catch(() => undefined);
      if (dying) assert.ok(dying.metadata?.deletionTimestamp, 'held by the finalizer until cleanup');
      await waitFor('object gone after cleanup', () =>
        live.get(Widget, { namespace: ns, name: 'fin' }).then(
          () => false,
          (e) => isNotFound(e),
        ),
      );
      // Usually once; a second reconcile queued before the cache saw the finalizer removed may run
      // the (idempotent) cleanup again, exactly as with controller-runtime.
      assert.ok(
        record.cleanups.length >= 1 && record.cleanups.every((n) => n === 'fin'),
        `cleanups: ${record.cleanups.join(', ')}`,
      );
      await waitFor('a reconcile saw it gone', () => record.gone.includes('fin'));
    } finally {
      await run.stop();
    }
  });

  it('retries a reconcile that hit a conflict on a stale object', async () => {
    const ns = await freshNamespace();
    let attempts = 0;
    const errors: unknown[] = [];
    let mgrRef: Manager | undefined;
    const run = await runManager(config, ns, (mgr) => {
      mgrRef = mgr;
      controllerManagedBy(mgr)
        .for(Widget)
        .complete(async (req) => {
          attempts++;
          const w = await mgr.getClient().get(Widget, req);
          if (w.status?.message === 'done') return;
          if (attempts === 1) {
            // Another writer gets in between our read and our write.
            const other = await live.get(Widget, req);
            other.spec = { ...other.spec, message: 'other writer' };
            await live.update(other);
          }
          w.status = { ...w.status, message: 'done' };
          try {
            await mgr.getClient().status().update(w);
          } catch (e) {
            errors.push(e);
            throw e;
          }
        });
    });
    try {
      await live.create(widget(ns, 'race', {}));
      await waitFor(
        'eventual success',
        async () => (await live.get(Widget, { namespace: ns, name: 'race' })).status?.message === 'done',
      );
      assert.ok(errors.length >= 1 && isConflict(errors[0]), 'the stale write failed with ConflictError');
      const metrics = await must(mgrRef, 'the manager runManager started')
        .getMetricsRegistry()
        .getSingleMetricAsString('controller_runtime_reconcile_errors_total');
      assert.match(metrics, /controller_runtime_reconcile_errors_total\{controller="widget"\} [1-9]/);
    } finally {
      await run.stop();
    }
  });

  it('reconciles every change made while the watch was cut and the API server restarted', async () => {
    const ns = await freshNamespace();
    const proxy = CuttableProxy.for(config);
    await proxy.start();
    const seenGen = new Map<string, number>();
    const gone = new Set<string>();
    let mgrRef: Manager | undefined;
    const run = await runManager(proxy.kubeConfig(config), ns, (mgr) => {
      mgrRef = mgr;
      controllerManagedBy(mgr)
        .for(Widget)
        .complete(async (req) => {
          try {
            const w = await mgr.getClient().get(Widget, req);
            seenGen.set(req.name, must(must(w.metadata, 'w.metadata').generation, 'w.metadata.generation'));
            gone.delete(req.name);
          } catch (e) {
            if (!isNotFound(e)) throw e;
            seenGen.delete(req.name);
            gone.add(req.name);
          }
        });
    });
    try {
      for (let i = 0; i < 6; i++) await live.create(widget(ns, `w${i}`, { replicas: i }));
      await waitFor('initial reconciles', () => seenGen.size === 6);

      proxy.pause();
      await live.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: ns, name: 'bump' } });
      await env.restartAPIServer();
      // While the operator cannot see the server: create, change and delete.
      for (let i = 6; i < 10; i++) await live.create(widget(ns, `w${i}`, { replicas: i }));
      for (const i of [0, 1, 2]) {
        const w = await live.get(Widget, { namespace: ns, name: `w${i}` });
        w.spec = { replicas: 100 + i };
        await live.update(w);
      }
      for (const i of [3, 4]) await live.delete(await live.get(Widget, { namespace: ns, name: `w${i}` }));
      await sleep(200);
      proxy.resume();

      const server = async () =>
        new Map(
          (await live.list(Widget, { namespace: ns })).items.map((w) => [
            must(must(w.metadata, 'w.metadata').name, 'w.metadata.name'),
            must(must(w.metadata, 'w.metadata').generation, 'w.metadata.generation'),
          ]),
        );
      await waitFor(
        'every change reconciled',
        async () => {
          const s = await server();
          if (s.size !== seenGen.size) return false;
          for (const [n, g] of s) if (seenGen.get(n) !== g) return false;
          return gone.has('w3') && gone.has('w4');
        },
        40_000,
      );
      const s = await server();
      assert.deepEqual([...s.keys()].sort(), ['w0', 'w1', 'w2', 'w5', 'w6', 'w7', 'w8', 'w9']);
      assert.equal(s.get('w0'), 2);
      const cached = await must(mgrRef, 'the manager runManager started').getCache().list(Widget, { namespace: ns });
      assert.deepEqual(
        cached.items.map(
          (w) => `${must(w.metadata, 'w.metadata').name}@${must(w.metadata, 'w.metadata').resourceVersion}`,
        ),
        (await live.list(Widget, { namespace: ns })).items.map(
          (w) => `${must(w.metadata, 'w.metadata').name}@${must(w.metadata, 'w.metadata').resourceVersion}`,
        ),
        'the cache matches the server',
      );
    } finally {
      await run.stop();
      await proxy.stop();
    }
  });

  it('recovers from panics and counts them; terminal errors are not retried', async () => {
    const ns = await freshNamespace();
    const calls = new Map<string, number>();
    let mgrRef: Manager | undefined;
    const run = await runManager(config, ns, (mgr) => {
      mgrRef = mgr;
      controllerManagedBy(mgr)
        .for(Widget)
        .complete(async (req) => {
          const n = (calls.get(req.name) ?? 0) + 1;
          calls.set(req.name, n);
          if (req.name === 'panicky' && n === 1) {
            const o: { deep?: { x: number } } = {};
            return { requeueAfterSeconds: (o.deep as { x: number }).x }; // TypeError: a programming error
          }
          if (req.name === 'terminal') throw new TerminalError('spec can never work');
        });
    });
    try {
      await live.create(widget(ns, 'panicky'));
      await live.create(widget(ns, 'terminal'));
      // Wiring only: that terminal errors are not retried is checked on the fake clock (unit.test.ts).
      await waitFor('panicky retried after the panic', () => (calls.get('panicky') ?? 0) >= 2);
      await waitFor('terminal reconciled', () => calls.get('terminal') === 1);
      const reg = must(mgrRef, 'the manager runManager started').getMetricsRegistry();
      assert.match(
        await reg.getSingleMetricAsString('controller_runtime_reconcile_panics_total'),
        /\{controller="widget"\} 1\n?$/m,
      );
      assert.match(
        await reg.getSingleMetricAsString('controller_runtime_terminal_reconcile_errors_total'),
        /\{controller="widget"\} 1\n?$/m,
      );
      assert.match(
        await reg.getSingleMetricAsString('controller_runtime_reconcile_total'),
        /\{controller="widget",result="error"\} 2/,
      );
    } finally {
      await run.stop();
    }
  });

  it('aborts a reconcile that outlives reconciliationTimeoutMs, counts it, and retries it', async () => {
    const ns = await freshNamespace();
    const reasons: unknown[] = [];
    let calls = 0;
    let mgrRef: Manager | undefined;
    const run = await runManager(config, ns, (mgr) => {
      mgrRef = mgr;
      controllerManagedBy(mgr)
        .for(Widget)
        .withOptions({ reconciliationTimeoutMs: 200 })
        .complete(async (_req, ctx) => {
          calls++;
          if (calls > 1) return; // the retry is quick
          // A reconcile that waits on its signal (as a client call given ctx.signal does).
          await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
          reasons.push(ctx.signal.reason);
          throw ctx.signal.reason;
        });
    });
    try {
      await live.create(widget(ns, 'slow'));
      await waitFor('the timed-out reconcile retried', () => calls >= 2);
      assert.equal(reasons.length, 1);
      assert.ok(reasons[0] instanceof ReconciliationTimeoutError, String(reasons[0]));
      assert.equal((reasons[0] as ReconciliationTimeoutError).timeoutMs, 200);
      const reg = must(mgrRef, 'the manager runManager started').getMetricsRegistry();
      assert.match(
        await reg.getSingleMetricAsString('controller_runtime_reconcile_timeouts_total'),
        /\{controller="widget"\} 1\n?$/m,
      );
      assert.match(
        await reg.getSingleMetricAsString('controller_runtime_reconcile_total'),
        /\{controller="widget",result="error"\} 1/,
      );
    } finally {
      await run.stop();
    }
  });

  it('refuses a reconciliationTimeoutMs that is not positive', () => {
    const mgr = newManager(config, { logger: testLogger() });
    assert.throws(
      () =>
        controllerManagedBy(mgr)
          .for(Widget)
          .withOptions({ reconciliationTimeoutMs: 0 })
          .complete(async () => undefined),
      /reconciliationTimeoutMs must be > 0 ms \(got 0\)/,
    );
  });

  it('priority queue: a change made during the start-up list is reconciled before the unchanged objects; off, it waits its turn', async () => {
    for (const usePriorityQueue of [true, false]) {
      const ns = await freshNamespace();
      for (let i = 0; i < 20; i++) await live.create(widget(ns, `old-${String(i).padStart(2, '0')}`));
      const order: string[] = [];
      let created = false;
      const run = await runManager(config, ns, (mgr) => {
        controllerManagedBy(mgr)
          .for(Widget)
          .withOptions({ usePriorityQueue })
          .complete(async (req) => {
            order.push(req.name);
            // While the first of the initial list is reconciled, someone creates a new object.
            if (!created) {
              created = true;
              await live.create(widget(ns, 'new'));
              await waitFor('the new object is queued', () =>
                mgr
                  .getClient()
                  .get(Widget, { namespace: ns, name: 'new' })
                  .then(
                    () => true,
                    () => false,
                  ),
              );
              await sleep(300);
            }
            await sleep(10);
          });
      });
      try {
        await waitFor('all 21 reconciled', () => order.length >= 21);
        const at = order.indexOf('new');
        if (usePriorityQueue)
          assert.ok(
            at >= 1 && at <= 2,
            `with priorities, the new object runs next (position ${at}): ${order.join(' ')}`,
          );
        else assert.equal(at, 20, `first in, first out: the new object runs last: ${order.join(' ')}`);
      } finally {
        await run.stop();
      }
    }
  });

  it('stops the manager with the error when recoverPanic is off', async () => {
    const ns = await freshNamespace();
    const run = await runManager(config, ns, (mgr) => {
      controllerManagedBy(mgr)
        .for(Widget)
        .withOptions({ recoverPanic: false })
        .complete(() => {
          throw new TypeError('bug in reconcile');
        });
    });
    await live.create(widget(ns, 'boom'));
    await assert.rejects(run.done, /bug in reconcile/);
  });

  it('applies predicates and event filters, and map-func watches', async () => {
    const ns = await freshNamespace();
    const calls: string[] = [];
    // GenerationChangedPredicate, recording each update it decides on (event counting, no sleeps).
    const decisions: { resourceVersion?: string; pass: boolean }[] = [];
    const generationChanged: Predicate = {
      update: (e) => {
        const pass = must(GenerationChangedPredicate.update, 'GenerationChangedPredicate.update')(e);
        decisions.push({ resourceVersion: e.objectNew.metadata?.resourceVersion, pass });
        return pass;
      },
    };
    const run = await runManager(config, ns, (mgr) => {
      controllerManagedBy(mgr)
        .for(Widget, { predicates: [generationChanged] })
        .watches(
          V1ConfigMap,
          enqueueRequestsFromMapFunc((cm: V1ConfigMap) =>
            cm.metadata?.annotations?.widget
              ? [
                  {
                    namespace: must(cm.metadata.namespace, 'cm.metadata.namespace'),
                    name: cm.metadata.annotations.widget,
                  },
                ]
              : [],
          ),
        )
        .withEventFilter(newPredicateFuncs((o) => o.metadata?.labels?.ignore !== 'true'))
        .complete(async (req) => {
          calls.push(req.name);
        });
    });
    try {
      const w = await live.create(widget(ns, 'p1'));
      await live.create(widget(ns, 'ignored', {}, { ignore: 'true' }));
      await waitFor('create reconciled', () => calls.includes('p1'));
      // status-only change: generation unchanged -> filtered
      const n = calls.length;
      const patched = await live.status().patch(w, mergePatch({ status: { message: 'x' } }));
      const decision = await waitFor('the predicate saw the status update', () =>
        decisions.find((d) => d.resourceVersion === patched.metadata?.resourceVersion),
      );
      assert.equal(decision.pass, false, 'status-only update filtered by GenerationChangedPredicate');
      // spec change -> reconciled
      await live.patch(w, mergePatch({ spec: { replicas: 5 } }));
      await waitFor('spec change reconciled', () => calls.length > n);
      // a ConfigMap pointing at p1 enqueues p1
      const m = calls.length;
      await live.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { namespace: ns, name: 'ref', annotations: { widget: 'p1' } },
      });
      await waitFor('map func enqueue', () => calls.length > m && calls[calls.length - 1] === 'p1');
      assert.ok(!calls.includes('ignored'), 'event filter applied');
    } finally {
      await run.stop();
    }
  });

  it('adds a watch at run time and removes it: the informer stays, the controller stops hearing from it', async () => {
    const ns = await freshNamespace();
    const calls: string[] = [];
    let ctrl!: ReturnType<ReturnType<typeof controllerManagedBy>['complete']>;
    let manager!: Manager;
    const run = await runManager(config, ns, (mgr) => {
      manager = mgr;
      ctrl = controllerManagedBy(mgr)
        .for(Widget)
        .named('runtime-watches')
        .complete(async (req) => {
          calls.push(req.name);
        });
    });
    try {
      await live.create(widget(ns, 'w1'));
      await waitFor('the Widget reconciled', () => calls.includes('w1'));
      // a ConfigMap watch added while the manager runs
      const toWidget = enqueueRequestsFromMapFunc((cm: V1ConfigMap) =>
        cm.metadata?.annotations?.widget
          ? [{ namespace: must(cm.metadata.namespace, 'cm.metadata.namespace'), name: cm.metadata.annotations.widget }]
          : [],
      );
      const handle = ctrl.watch(kindSource(manager.getCache(), V1ConfigMap), toWidget);
      let n = calls.length;
      await live.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { namespace: ns, name: 'cm1', annotations: { widget: 'w1' } },
      });
      await waitFor('the new watch enqueued w1', () => calls.length > n);
      handle.remove();
      // the informer still runs (the cache reads it); the controller no longer hears its events
      n = calls.length;
      await live.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { namespace: ns, name: 'cm2', annotations: { widget: 'w1' } },
      });
      await waitFor(
        'the cache saw cm2',
        async () =>
          (await manager
            .getClient()
            .get(V1ConfigMap, { namespace: ns, name: 'cm2' })
            .catch(() => undefined)) !== undefined,
      );
      // a Widget event after the ConfigMap one: once it is reconciled, the ConfigMap event would have been too
      await live.create(widget(ns, 'w2'));
      await waitFor('w2 reconciled', () => calls.includes('w2'));
      assert.deepEqual(calls.slice(n), ['w2'], 'no reconcile of w1 from the removed watch');
    } finally {
      await run.stop();
    }
  });

  it('lets an in-flight reconcile finish on shutdown', async () => {
    const ns = await freshNamespace();
    let started = false;
    let finished = false;
    let sawAbort = false;
    const run = await runManager(config, ns, (mgr) => {
      controllerManagedBy(mgr)
        .for(Widget)
        .complete(async (req, ctx) => {
          started = true;
          // Still running when the manager is told to stop: it waits for this reconcile.
          await new Promise((r) => ctx.signal.addEventListener('abort', r, { once: true }));
          sawAbort = ctx.signal.aborted;
          const w = await live.get(Widget, req);
          w.status = { message: 'finished during shutdown' };
          await live.status().update(w);
          finished = true;
        });
    });
    await live.create(widget(ns, 'slow'));
    await waitFor('reconcile started', () => started);
    await run.stop();
    assert.equal(finished, true, 'manager stop waited for the reconcile');
    assert.equal(sawAbort, true, 'the reconcile saw its signal aborted');
    assert.equal((await live.get(Widget, { namespace: ns, name: 'slow' })).status?.message, 'finished during shutdown');
  });

  it('exports controller-runtime metrics', async () => {
    const ns = await freshNamespace();
    let mgrRef: Manager | undefined;
    const run = await runManager(config, ns, (mgr) => {
      mgrRef = mgr;
      controllerManagedBy(mgr)
        .for(Widget)
        .named('metered')
        .withOptions({ maxConcurrentReconciles: 2 })
        .complete(async () => {});
    });
    try {
      await live.create(widget(ns, 'm1'));
      const reg = must(mgrRef, 'the manager runManager started').getMetricsRegistry();
      await waitFor('a successful reconcile', async () =>
        /result="success"\} [1-9]/.test(await reg.getSingleMetricAsString('controller_runtime_reconcile_total')),
      );
      const text = await reg.metrics();
      for (const re of [
        /controller_runtime_reconcile_total\{controller="metered",result="success"\} [1-9]/,
        /controller_runtime_reconcile_errors_total\{controller="metered"\} 0/,
        /controller_runtime_reconcile_time_seconds_count\{controller="metered"\} [1-9]/,
        /controller_runtime_max_concurrent_reconciles\{controller="metered"\} 2/,
        /controller_runtime_active_workers\{controller="metered"\} 0/,
        /workqueue_adds_total\{controller="metered",name="metered"\} [1-9]/,
        // the priority queue: one series per priority (the initial list's events are low priority)
        /workqueue_depth\{controller="metered",name="metered",priority="-100"\} 0/,
        /workqueue_queue_duration_seconds_count\{controller="metered",name="metered"\} [1-9]/,
        /workqueue_work_duration_seconds_count\{controller="metered",name="metered"\} [1-9]/,
        /workqueue_retries_total\{controller="metered",name="metered"\} 0/,
        /workqueue_unfinished_work_seconds\{controller="metered",name="metered"\} 0/,
        /workqueue_longest_running_processor_seconds\{controller="metered",name="metered"\} 0/,
      ]) {
        assert.match(text, re);
      }
    } finally {
      await run.stop();
    }
  });
});
