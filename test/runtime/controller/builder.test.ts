// Builder misuse reporting, predicates and handlers at unit level (no API server needed: the
// builder only records watches, the cache is never started).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { KubeConfig, V1Deployment, type KubernetesObject } from '@kubernetes/client-node';
import {
  AnnotationChangedPredicate,
  BuilderError,
  ChannelSource,
  GenerationChangedPredicate,
  LabelChangedPredicate,
  ResourceVersionChangedPredicate,
  controllerManagedBy,
  enqueueRequestForObject,
  enqueueRequestForOwner,
  enqueueRequestsFromMapFunc,
  newPredicateFuncs,
  type MapFuncHandler,
  type Request,
  type RequestQueue,
} from '../../../src/runtime/controller/index.js';
import {
  andPredicates as and,
  notPredicate as not,
  orPredicates as or,
} from '../../../src/runtime/controller/predicate.js';
import { MiniManager, Widget } from './harness.js';
import { must } from '../../helpers/must.js';

function offlineConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: 'https://127.0.0.1:1', skipTLSVerify: true }],
    users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kc;
}

function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof BuilderError, `expected BuilderError, got ${String(e)}`);
    return e.problems;
  }
  assert.fail('expected complete() to throw');
}

const noop = async () => {};

describe('builder', () => {
  it('builds and registers a controller named after the for() kind', () => {
    const mgr = new MiniManager(offlineConfig());
    const added: unknown[] = [];
    const add = mgr.add.bind(mgr);
    mgr.add = (r) => {
      added.push(r);
      add(r);
    };
    const c = controllerManagedBy(mgr).for(Widget).owns(V1Deployment).complete(noop);
    assert.equal(c.name, 'widget');
    assert.deepEqual(added, [c]);
    assert.equal(c.needLeaderElection(), true);
  });

  it('reports every misuse at once from complete()', () => {
    const mgr = new MiniManager(offlineConfig());
    class NoStatics {}
    const problems = problemsOf(() =>
      controllerManagedBy(mgr)
        .for(Widget)
        .for(V1Deployment)
        .owns(NoStatics as never)
        .withOptions({ maxConcurrentReconciles: 0, cacheSyncTimeoutMs: -1 })
        .withEventFilter(null as never)
        .named('bad name!')
        .complete(undefined as never),
    );
    assert.equal(problems.length, 7, problems.join('\n'));
    assert.match(problems.join('\n'), /for\(\) may only be called once/);
    assert.match(problems.join('\n'), /cannot tell the Kubernetes kind of class NoStatics/);
    assert.match(problems.join('\n'), /maxConcurrentReconciles must be a positive integer/);
    assert.match(problems.join('\n'), /cacheSyncTimeoutMs must be > 0/);
    assert.match(problems.join('\n'), /withEventFilter\(\): expected a predicate/);
    assert.match(problems.join('\n'), /not a valid controller name/);
    assert.match(problems.join('\n'), /needs a reconciler/);
  });

  it('requires for() or named()+watches(), rejects duplicate names and a second complete()', () => {
    const mgr = new MiniManager(offlineConfig());
    assert.match(
      problemsOf(() => controllerManagedBy(mgr).complete(noop)).join(),
      /must provide an object for reconciliation/,
    );
    assert.match(problemsOf(() => controllerManagedBy(mgr).named('lonely').complete(noop)).join(), /watches nothing/);
    assert.match(
      problemsOf(() => controllerManagedBy(mgr).named('o').owns(V1Deployment).complete(noop)).join(),
      /owns\(\) needs for\(\)/,
    );
    // watches-only controllers are fine when named
    const src = new ChannelSource();
    controllerManagedBy(mgr).named('channel').watches(src, enqueueRequestForObject()).complete(noop);

    const b = controllerManagedBy(mgr).for(Widget);
    b.complete(noop);
    assert.match(problemsOf(() => b.complete(noop)).join(), /already called/);
    assert.match(
      problemsOf(() => controllerManagedBy(mgr).for(Widget).complete(noop)).join(),
      /a controller named "widget" already exists/,
    );
    controllerManagedBy(mgr).for(Widget).named('widget-2').complete(noop);
    // another manager has its own names
    controllerManagedBy(new MiniManager(offlineConfig())).for(Widget).complete({ reconcile: noop });
  });
});

function recorder(): { q: RequestQueue; got: Request[] } {
  const got: Request[] = [];
  const q: RequestQueue = { add: (r) => got.push(r), addAfter: (r) => got.push(r), addRateLimited: (r) => got.push(r) };
  return { q, got };
}

const obj = (md: KubernetesObject['metadata']): KubernetesObject => ({ apiVersion: 'v1', kind: 'X', metadata: md });

describe('predicates', () => {
  it('generation, resourceVersion, labels and annotations changed', () => {
    const a = obj({ name: 'a', generation: 1, resourceVersion: '1', labels: { x: '1' }, annotations: { y: '1' } });
    const sameGen = obj({
      name: 'a',
      generation: 1,
      resourceVersion: '2',
      labels: { x: '1' },
      annotations: { y: '1' },
    });
    const newLabels = obj({
      name: 'a',
      generation: 1,
      resourceVersion: '3',
      labels: { x: '2' },
      annotations: { y: '1' },
    });
    const newAnn = obj({
      name: 'a',
      generation: 2,
      resourceVersion: '4',
      labels: { x: '1' },
      annotations: { y: '1', z: '2' },
    });
    assert.equal(
      must(
        GenerationChangedPredicate.update,
        'GenerationChangedPredicate.update',
      )({ objectOld: a, objectNew: sameGen }),
      false,
    );
    assert.equal(
      must(GenerationChangedPredicate.update, 'GenerationChangedPredicate.update')({ objectOld: a, objectNew: newAnn }),
      true,
    );
    assert.equal(GenerationChangedPredicate.create, undefined, 'creates pass');
    assert.equal(
      must(
        ResourceVersionChangedPredicate.update,
        'ResourceVersionChangedPredicate.update',
      )({ objectOld: a, objectNew: a }),
      false,
    );
    assert.equal(
      must(
        ResourceVersionChangedPredicate.update,
        'ResourceVersionChangedPredicate.update',
      )({ objectOld: a, objectNew: sameGen }),
      true,
    );
    assert.equal(
      must(LabelChangedPredicate.update, 'LabelChangedPredicate.update')({ objectOld: a, objectNew: sameGen }),
      false,
    );
    assert.equal(
      must(LabelChangedPredicate.update, 'LabelChangedPredicate.update')({ objectOld: a, objectNew: newLabels }),
      true,
    );
    assert.equal(
      must(
        AnnotationChangedPredicate.update,
        'AnnotationChangedPredicate.update',
      )({ objectOld: a, objectNew: newLabels }),
      false,
    );
    assert.equal(
      must(AnnotationChangedPredicate.update, 'AnnotationChangedPredicate.update')({ objectOld: a, objectNew: newAnn }),
      true,
    );
  });

  it('and / or / not / newPredicateFuncs', () => {
    const isA = newPredicateFuncs((o) => o.metadata?.name === 'a');
    const a = obj({ name: 'a', generation: 1 });
    const b = obj({ name: 'b', generation: 1 });
    const b2 = obj({ name: 'b', generation: 2 });
    assert.equal(must(isA.create, 'isA.create')({ object: a }), true);
    assert.equal(must(isA.delete, 'isA.delete')({ object: b, deleteStateUnknown: false }), false);
    assert.equal(must(not(isA).generic, 'not(isA).generic')({ object: b }), true);
    assert.equal(
      must(
        and(isA, GenerationChangedPredicate).update,
        'and(isA, GenerationChangedPredicate).update',
      )({ objectOld: b, objectNew: b2 }),
      false,
    );
    assert.equal(
      must(
        or(isA, GenerationChangedPredicate).update,
        'or(isA, GenerationChangedPredicate).update',
      )({ objectOld: b, objectNew: b2 }),
      true,
    );
    assert.equal(
      must(
        or(isA, GenerationChangedPredicate).update,
        'or(isA, GenerationChangedPredicate).update',
      )({ objectOld: b, objectNew: b }),
      false,
    );
    assert.equal(must(and().create, 'and().create')({ object: a }), true);
    assert.equal(must(or().create, 'or().create')({ object: a }), false);
  });
});

describe('handlers', () => {
  it('enqueueRequestForObject', () => {
    const { q, got } = recorder();
    const h = enqueueRequestForObject();
    must(h.create, 'h.create')({ object: obj({ namespace: 'n', name: 'a' }) }, q);
    must(h.update, 'h.update')(
      { objectOld: obj({ namespace: 'n', name: 'a' }), objectNew: obj({ namespace: 'n', name: 'a' }) },
      q,
    );
    must(h.delete, 'h.delete')({ object: obj({ name: 'cluster' }), deleteStateUnknown: true }, q);
    assert.deepEqual(got, [
      { namespace: 'n', name: 'a' },
      { namespace: 'n', name: 'a' },
      { namespace: '', name: 'cluster' },
    ]);
  });

  it('enqueueRequestForOwner follows controller references of the owner kind (any version)', () => {
    const refs = [
      { apiVersion: 'test.kubeforge.io/v1', kind: 'Widget', name: 'ctrl', uid: '1', controller: true },
      { apiVersion: 'test.kubeforge.io/v2', kind: 'Widget', name: 'plain', uid: '2' },
      { apiVersion: 'other.io/v1', kind: 'Widget', name: 'othergroup', uid: '3', controller: true },
      { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: '4' },
    ];
    const o = obj({ namespace: 'n', name: 'child', ownerReferences: refs });
    let { q, got } = recorder();
    must(enqueueRequestForOwner(Widget).create, 'enqueueRequestForOwner(Widget).create')({ object: o }, q);
    assert.deepEqual(got, [{ namespace: 'n', name: 'ctrl' }]);
    ({ q, got } = recorder());
    must(
      enqueueRequestForOwner(
        { apiVersion: 'test.kubeforge.io/v1', kind: 'Widget', namespaced: true },
        { onlyControllerOwner: false },
      ).create,
      "enqueueRequestForOwner( { apiVersion: 'test.kubeforge.io/v1', kind:...",
    )({ object: o }, q);
    assert.deepEqual(got, [
      { namespace: 'n', name: 'ctrl' },
      { namespace: 'n', name: 'plain' },
    ]);
    // updates enqueue owners of the old and the new object, once each
    ({ q, got } = recorder());
    const moved = obj({ namespace: 'n', name: 'child', ownerReferences: [{ ...refs[0], name: 'new-owner' }] });
    must(enqueueRequestForOwner(Widget).update, 'enqueueRequestForOwner(Widget).update')(
      { objectOld: o, objectNew: moved },
      q,
    );
    assert.deepEqual(got, [
      { namespace: 'n', name: 'ctrl' },
      { namespace: 'n', name: 'new-owner' },
    ]);
  });

  it("enqueueRequestForOwner takes an owner's unknown scope from its mapper, up front, and refuses to guess without one", async () => {
    const owned = obj({
      namespace: 'n',
      name: 'child',
      ownerReferences: [{ apiVersion: 'other.io/v1', kind: 'Tenant', name: 't', uid: '1', controller: true }],
    });
    const tenant = { apiVersion: 'other.io/v1', kind: 'Tenant' };
    assert.throws(
      () => enqueueRequestForOwner(tenant),
      /^TypeError: enqueueRequestForOwner: the scope of owner other\.io\/v1 Tenant is not known: pass \{ mapper: mgr\.getRESTMapper\(\) \}/,
    );
    for (const namespaced of [true, false]) {
      let lookups = 0;
      const mapper = {
        resolve: async () => {
          lookups++;
          return { namespaced };
        },
      };
      const h = enqueueRequestForOwner(tenant, { mapper }) as MapFuncHandler;
      const { q, got } = recorder();
      must(h.create, 'h.create')({ object: owned }, q);
      must(h.create, 'h.create')({ object: owned }, q);
      await h.idle();
      must(h.update, 'h.update')({ objectOld: owned, objectNew: owned }, q);
      const want = { namespace: namespaced ? 'n' : '', name: 't' };
      assert.deepEqual(got, [want, want, want], 'a cluster-scoped owner is requested without a namespace');
      assert.ok(lookups <= 2, 'once the mapper answered, events map without asking it again');
    }
  });

  it('enqueueRequestsFromMapFunc dedups old/new results', () => {
    const { q, got } = recorder();
    const h = enqueueRequestsFromMapFunc((o) => [
      { namespace: 'n', name: must(must(o.metadata, 'o.metadata').labels, 'o.metadata.labels').target },
    ]);
    must(h.update, 'h.update')(
      {
        objectOld: obj({ name: 'x', labels: { target: 'a' } }),
        objectNew: obj({ name: 'x', labels: { target: 'a' } }),
      },
      q,
    );
    assert.deepEqual(got, [{ namespace: 'n', name: 'a' }]);
  });
});

describe('controller without an API server', () => {
  it('reconciles generic events from a channel source and stops cleanly', async () => {
    const mgr = new MiniManager(offlineConfig());
    const src = new ChannelSource();
    const seen: Request[] = [];
    const c = controllerManagedBy(mgr)
      .named('chan')
      .watches(src, enqueueRequestForObject())
      .complete(async (req) => {
        seen.push(req);
      });
    src.send(obj({ namespace: 'n', name: 'buffered' })); // before start: buffered
    const ac = new AbortController();
    const run = c.start(ac.signal);
    src.send(obj({ namespace: 'n', name: 'live' }));
    for (let i = 0; i < 100 && seen.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(seen, [
      { namespace: 'n', name: 'buffered' },
      { namespace: 'n', name: 'live' },
    ]);
    ac.abort();
    await run;
    src.send(obj({ namespace: 'n', name: 'after' }));
    assert.equal(seen.length, 2, 'nothing after shutdown');
  });

  it('rejects start() when a source does not sync within cacheSyncTimeoutMs', async () => {
    const mgr = new MiniManager(offlineConfig());
    const never = {
      start: async () => {},
      waitForSync: (signal: AbortSignal) =>
        new Promise<boolean>((r) => signal.addEventListener('abort', () => r(false))),
      toString: () => 'never-syncing source',
    };
    const c = controllerManagedBy(mgr)
      .named('slow')
      .watches(never, enqueueRequestForObject())
      .withOptions({ cacheSyncTimeoutMs: 50 })
      .complete(async () => {});
    await assert.rejects(
      c.start(new AbortController().signal),
      /timed out after 50 ms waiting for caches to sync \(never-syncing source\)/,
    );
  });
});
