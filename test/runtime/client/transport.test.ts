// One transport, one error family, one RESTMapper per manager, against a real kube-apiserver:
// errors of leader election, events and kubeforge/testing are StatusErrors the predicates know;
// two managers in one process resolve types each their own way; a Kind the server does not serve
// fails with its likely cause at once instead of after the cache sync timeout.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { V1ConfigMap, type KubeConfig, type KubernetesObject, type V1ObjectMeta } from '@kubernetes/client-node';
import pino from 'pino';
import { installCRDs, CRDInstallError, TestEnvironment } from '../../../src/testing/index.js';
import {
  NoKindMatchError,
  NotFoundError,
  StatusError,
  isAlreadyExists,
  isConflict,
  isForbidden,
  isInvalid,
  isNoKindMatch,
  isNotFound,
  newClient,
} from '../../../src/runtime/client/index.js';
import { RestClient } from '../../../src/runtime/client/rest.js';
import {
  CacheSyncTimeoutError,
  MissingIndexError,
  NamespaceNotWatchedError,
  newCache,
  type SharedInformer,
} from '../../../src/runtime/cache/index.js';
import { BuilderError, controllerManagedBy } from '../../../src/runtime/controller/index.js';
import { newManager } from '../../../src/runtime/manager/index.js';
import { LeaderElectionError, LeaderElector } from '../../../src/runtime/manager/leaderelection.js';
import { EventBroadcaster } from '../../../src/runtime/manager/events.js';
import { Widget, crdDir, testLogger, widget } from '../controller/harness.js';
import { must } from '../../helpers/must.js';

let env: TestEnvironment;
let config: KubeConfig;
let rest: RestClient;

before(async () => {
  env = new TestEnvironment({ crdDirectoryPaths: [crdDir], errorIfCRDPathMissing: true, users: [{ name: 'nobody' }] });
  config = await env.start();
  rest = new RestClient(config);
});
after(async () => {
  rest?.close();
  await env?.stop();
});

const leases = '/apis/coordination.k8s.io/v1/namespaces/default/leases';
const lease = (name: string, rv?: string, holderIdentity = 'a') => ({
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  metadata: { name, namespace: 'default', resourceVersion: rv },
  spec: { holderIdentity },
});

describe('one error family', () => {
  it('the transport leader election, events and testing use rejects with StatusErrors', async () => {
    await assert.rejects(
      rest.get(`${leases}/missing`),
      (e: unknown) =>
        e instanceof NotFoundError && isNotFound(e) && /GET \/apis\/coordination/.test((e as Error).message),
    );
    const created = await rest.request('POST', leases, { body: lease('family') });
    await assert.rejects(
      rest.request('POST', leases, { body: lease('family') }),
      (e: unknown) => isAlreadyExists(e) && !isConflict(e),
    );
    await rest.request('PUT', `${leases}/family`, { body: lease('family', created.metadata.resourceVersion, 'b') });
    // The first resourceVersion is stale now: 409 Conflict.
    await assert.rejects(
      rest.request('PUT', `${leases}/family`, { body: lease('family', created.metadata.resourceVersion, 'c') }),
      (e: unknown) => isConflict(e),
    );
    await assert.rejects(
      rest.request('POST', leases, { body: { ...lease('Not_A_Name') } }),
      (e: unknown) => isInvalid(e) && e instanceof StatusError && e.code === 422,
    );
  });

  it('leader election: a lease namespace that does not exist is a LeaderElectionError caused by a NotFound', async () => {
    const elector = new LeaderElector({
      rest,
      namespace: 'no-such-namespace',
      name: 'le',
      identity: 'me',
      logger: testLogger(),
      leaseDurationMs: 3000,
      renewDeadlineMs: 2000,
      retryPeriodMs: 500,
    });
    const err = await elector.acquire(AbortSignal.timeout(20_000)).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof LeaderElectionError, String(err));
    assert.ok(isNotFound(err.cause), `cause: ${String(err.cause)}`);
    assert.match(err.message, /does namespace "no-such-namespace" exist/);
  });

  it('events: a forbidden write is recognised as Forbidden (logged once with the @Rbac marker)', async () => {
    const lines: { msg: string; rbac?: string }[] = [];
    const logger = pino({ level: 'debug' }, { write: (s: string) => lines.push(JSON.parse(s)) });
    const denied = new RestClient(env.userConfig('nobody'));
    const broadcaster = new EventBroadcaster({ rest: denied, logger });
    const recorder = broadcaster.recorder('family-test');
    const cm = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'x', namespace: 'default', uid: 'u' },
    } as KubernetesObject;
    recorder.eventf(cm, undefined, 'Normal', 'Tested', 'Test', 'first');
    recorder.eventf(cm, undefined, 'Normal', 'Other', 'Test', 'second');
    await broadcaster.flush();
    denied.close();
    const errors = lines.filter((l) => /events are not recorded: the API server forbids/.test(l.msg));
    assert.equal(errors.length, 1, JSON.stringify(lines));
    assert.match(errors[0].rbac ?? '', /events\.k8s\.io/);
    assert.equal(lines.filter((l) => l.msg === 'event dropped: forbidden').length, 1);
  });

  it('kubeforge/testing: an invalid CRD fails with a CRDInstallError caused by a 422 Invalid', async () => {
    const bad = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'bads.test.kubeforge.io' },
      spec: { group: 'test.kubeforge.io', names: { kind: 'Bad', plural: 'bads' }, scope: 'Namespaced', versions: [] },
    };
    const err = await installCRDs(config, { crds: [bad as never] }).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof CRDInstallError, String(err));
    assert.ok(isInvalid(err.cause), `cause: ${String(err.cause)}`);
  });

  it('a forbidden read through the transport is Forbidden', async () => {
    const r = new RestClient(env.userConfig('nobody'));
    try {
      await assert.rejects(
        r.get('/api/v1/namespaces'),
        (e: unknown) => isForbidden(e) && /"nobody"/.test((e as Error).message),
      );
    } finally {
      r.close();
    }
  });
});

/** A Kind class without statics: it resolves only where someone registered it. */
class Gizmo implements KubernetesObject {
  apiVersion?: string;
  kind?: string;
  metadata?: V1ObjectMeta;
}

describe('one RESTMapper per manager', () => {
  it('registrations and discovery of one manager never reach another', async () => {
    await newClient(config).create(widget('default', 'mapped', { message: 'm' }));
    const a = newManager(config, { logger: testLogger() });
    const b = newManager(config, { logger: testLogger() });
    a.getRESTMapper().register(Gizmo, {
      apiVersion: 'test.kubeforge.io/v1',
      kind: 'Widget',
      plural: 'widgets',
      namespaced: true,
    });
    // A descriptor alias only b knows.
    b.getRESTMapper().register(undefined, {
      apiVersion: 'test.kubeforge.io/v1',
      kind: 'Doohickey',
      plural: 'widgets',
      namespaced: true,
    });

    const viaA = await a.getAPIReader().get(Gizmo, { namespace: 'default', name: 'mapped' });
    assert.equal((viaA as Widget).spec?.message, 'm');
    await assert.rejects(
      b.getAPIReader().get(Gizmo, { namespace: 'default', name: 'mapped' }),
      /cannot tell the Kubernetes kind of class Gizmo/,
    );

    const doohickey = { apiVersion: 'test.kubeforge.io/v1', kind: 'Doohickey' };
    const viaB = await b.getAPIReader().get(doohickey, { namespace: 'default', name: 'mapped' });
    assert.equal(viaB.metadata?.name, 'mapped');
    await assert.rejects(
      a.getAPIReader().get(doohickey, { namespace: 'default', name: 'mapped' }),
      (e: unknown) => isNoKindMatch(e) && /no matches for kind "Doohickey"/.test(String(e)),
    );

    // The builders resolve through the manager's mapper too.
    controllerManagedBy(a)
      .for(Gizmo)
      .owns(V1ConfigMap)
      .complete(async () => ({}));
    assert.throws(
      () =>
        controllerManagedBy(b)
          .for(Gizmo)
          .owns(V1ConfigMap)
          .complete(async () => ({})),
      (e: unknown) => e instanceof BuilderError && /Gizmo/.test((e as Error).message),
    );

    // Registrations and discovery results stay in their own mapper.
    assert.equal(
      b.getRESTMapper().types().byKind('test.kubeforge.io/v1', 'Widget'),
      undefined,
      'a registered Widget for Gizmo; b must not see it',
    );
    const c = newManager(config, { logger: testLogger() });
    await c
      .getAPIReader()
      .get({ apiVersion: 'test.kubeforge.io/v1', kind: 'Widget' }, { namespace: 'default', name: 'mapped' });
    assert.equal(
      c.getRESTMapper().types().byKind('test.kubeforge.io/v1', 'Widget')?.plural,
      'widgets',
      'c discovered Widget',
    );
    assert.equal(
      b.getRESTMapper().types().byKind('test.kubeforge.io/v1', 'Widget'),
      undefined,
      'what c discovered stays in c',
    );
  });
});

/** Classes whose statics drift from the CRD (test.kubeforge.io/v1 Widget, plural widgets). */
// biome-ignore lint/complexity/noStaticOnlyClass: a kind reference is a class whose statics name the kind, as the API takes it
class WrongPlural {
  static readonly gvk = { group: 'test.kubeforge.io', version: 'v1', kind: 'Widget' };
  static readonly plural = 'widgetz';
  static readonly namespaced = true;
}
// biome-ignore lint/complexity/noStaticOnlyClass: a kind reference is a class whose statics name the kind, as the API takes it
class WrongKind {
  static readonly gvk = { group: 'test.kubeforge.io', version: 'v1', kind: 'Wodget' };
  static readonly plural = 'wodgets';
  static readonly namespaced = true;
}
// biome-ignore lint/complexity/noStaticOnlyClass: a kind reference is a class whose statics name the kind, as the API takes it
class NotInstalled {
  static readonly gvk = { group: 'absent.kubeforge.io', version: 'v1', kind: 'Thing' };
  static readonly plural = 'things';
  static readonly namespaced = true;
}

describe('a Kind the API server does not serve', () => {
  it('cached reads reject at once with the likely cause, not a sync timeout', async () => {
    const cache = newCache(config, {
      logger: testLogger(),
      syncTimeoutMs: 600_000,
      initialBackoffMs: 50,
      maxBackoffMs: 200,
    });
    const ac = new AbortController();
    const run = cache.start(ac.signal);
    try {
      const check = async (type: unknown, pattern: RegExp) => {
        const err = await cache.get(type as typeof Widget, { namespace: 'default', name: 'x' }).then(
          () => undefined,
          (e: unknown) => e,
        );
        assert.ok(err instanceof NoKindMatchError, `expected NoKindMatchError, got ${String(err)}`);
        assert.ok(!(err instanceof CacheSyncTimeoutError));
        assert.ok(isNotFound(err) && isNoKindMatch(err));
        assert.match(err.message, pattern);
      };
      await check(
        WrongPlural,
        /serves Widget as plural "widgets", but the class says plural "widgetz".*static plural is out of sync/,
      );
      await check(
        WrongKind,
        /test\.kubeforge\.io\/v1 is served but has no kind Wodget \(it serves Widget \(widgets\)\).*make install/,
      );
      await check(
        NotInstalled,
        /does not serve absent\.kubeforge\.io\/v1 at all: the CRD of Thing is not installed \(`make install`\)/,
      );
    } finally {
      ac.abort();
      await run;
    }
  });

  it('a manager whose controller watches such a Kind stops with that error', async () => {
    const mgr = newManager(config, { logger: testLogger(), gracefulShutdownTimeoutMs: 5_000 });
    controllerManagedBy(mgr)
      .for(WrongPlural as never)
      .complete(async () => ({}));
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(), 60_000);
    try {
      await assert.rejects(
        mgr.start(ac.signal),
        (e: unknown) => e instanceof NoKindMatchError && /plural "widgetz"/.test((e as Error).message),
      );
    } finally {
      clearTimeout(timer);
    }
  });
});

describe('cache options through the Manager', () => {
  it('cache.transform shapes what the manager caches, and typed errors name namespace and index problems', async () => {
    await newClient(config).create(widget('default', 'shaped', { message: 'keep' }));
    const mgr = newManager(config, {
      logger: testLogger(),
      cache: {
        defaultNamespaces: ['default'],
        syncPeriodMs: 0,
        transform: (o) => {
          const copy = { ...o, metadata: { ...o.metadata } };
          delete copy.metadata.managedFields;
          copy.metadata.annotations = { ...copy.metadata.annotations, transformed: 'yes' };
          return copy;
        },
      },
    });
    const ac = new AbortController();
    const done = mgr.start(ac.signal);
    try {
      await mgr.started();
      const w = await mgr.getClient().get(Widget, { namespace: 'default', name: 'shaped' });
      assert.equal(w.metadata?.annotations?.transformed, 'yes');
      assert.equal(w.metadata?.managedFields, undefined);
      assert.equal(w.spec?.message, 'keep');
      // The informer's storage is read through its Indexer: copies, sorted, with the transform applied.
      const inf = (await mgr.getCache().getInformer(Widget)) as unknown as SharedInformer<Widget>;
      const indexer = inf.getIndexer();
      assert.ok(indexer.listKeys().includes('default/shaped'));
      const one = must(indexer.getByKey('default/shaped'), "indexer.getByKey('default/shaped')");
      assert.equal(one.metadata?.annotations?.transformed, 'yes');
      must(one.spec, 'one.spec').message = 'changed by the caller';
      assert.equal(
        must(indexer.getByKey('default/shaped'), "indexer.getByKey('default/shaped')").spec?.message,
        'keep',
        'every read is a fresh copy',
      );
      assert.deepEqual(
        indexer.byIndex('namespace', 'default').map((x) => x.metadata?.name),
        indexer.list().map((x) => x.metadata?.name),
      );
      assert.throws(() => indexer.byIndex('spec.message', 'keep'), MissingIndexError);
      await assert.rejects(
        mgr.getClient().get(Widget, { namespace: 'elsewhere', name: 'x' }),
        (e: unknown) => e instanceof NamespaceNotWatchedError && e.namespace === 'elsewhere',
      );
      await assert.rejects(
        mgr.getClient().list(Widget, { fieldSelector: 'spec.message=keep' }),
        (e: unknown) => e instanceof MissingIndexError && e.field === 'spec.message',
      );
    } finally {
      ac.abort();
      await done;
    }
  });
});
