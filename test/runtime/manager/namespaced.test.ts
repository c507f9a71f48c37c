// A namespace-scoped manager (what `kubeforge init --namespaced` generates: cache.defaultNamespaces
// from WATCH_NAMESPACE, a Role and RoleBinding instead of cluster-wide RBAC) on a real API server:
// it reconciles the objects of its namespace and never sees another's, running as a user that
// holds only the namespace's Role (leader election included), which a cluster-wide list or
// watch would be refused.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeConfig } from '@kubernetes/client-node';
import { TestEnvironment } from '../../../src/testing/index.js';
import { RestClient } from '../../../src/runtime/client/rest.js';
import { NamespaceNotWatchedError } from '../../../src/runtime/cache/index.js';
import { newManager, type Manager } from '../../../src/runtime/manager/index.js';
import { controllerManagedBy } from '../../../src/runtime/controller/index.js';
import { eventually, quiet } from './helpers.js';

const env = new TestEnvironment({
  useExistingCluster: false,
  users: [{ name: 'scoped-manager' }, { name: 'secrets-in-a' }],
});
let config: KubeConfig;
let rest: RestClient;

const A = 'tenant-a';
const B = 'tenant-b';

before(async () => {
  config = await env.start();
  rest = new RestClient(config);
  for (const ns of [A, B])
    await rest.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
    });
  // The rules a generated namespaced project grants in its namespace: manager-role (here: the
  // ConfigMaps it reconciles) and leader-election-role (Leases, Events), bound to the manager.
  await rest.request('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${A}/roles`, {
    body: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'manager-role' },
      rules: [
        {
          apiGroups: [''],
          resources: ['configmaps'],
          verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
        },
        {
          apiGroups: ['coordination.k8s.io'],
          resources: ['leases'],
          verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
        },
        { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
      ],
    },
  });
  await rest.request('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${A}/rolebindings`, {
    body: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'manager-rolebinding' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'manager-role' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'scoped-manager' }],
    },
  });
});
after(async () => {
  rest?.close();
  await env.stop();
});

const configMap = (namespace: string, name: string) =>
  rest.request('POST', `/api/v1/namespaces/${namespace}/configmaps`, {
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } },
  });

/** A manager with a ConfigMap controller that records every request of ours (`ns/name` of names starting with `scope-`). */
function managerWithLog(
  kubeconfig: KubeConfig,
  options: Parameters<typeof newManager>[1],
): { mgr: Manager; seen: string[] } {
  const mgr = newManager(kubeconfig, { logger: quiet(), ...options });
  const seen: string[] = [];
  controllerManagedBy(mgr)
    .for({ apiVersion: 'v1', kind: 'ConfigMap' })
    .named('scope')
    .complete(async (req) => {
      if (req.name.startsWith('scope-')) seen.push(`${req.namespace}/${req.name}`);
    });
  return { mgr, seen };
}

describe('a namespace-scoped manager', () => {
  it('reconciles only the objects of its namespace, with only a Role there (leader election included)', async () => {
    const user = env.userConfig('scoped-manager');
    const asUser = new RestClient(user);
    try {
      // The user can read ConfigMaps in its namespace only: a cluster-wide list is refused.
      await assert.rejects(asUser.request('GET', '/api/v1/configmaps'), /forbidden|403/i);
      await asUser.request('GET', `/api/v1/namespaces/${A}/configmaps`);
    } finally {
      asUser.close();
    }

    await configMap(A, 'scope-early');
    await configMap(B, 'scope-early');
    // What the generated main.ts does with WATCH_NAMESPACE=tenant-a; the lease lives there too.
    const scoped = managerWithLog(user, {
      cache: { defaultNamespaces: [A] },
      leaderElection: true,
      leaderElectionID: 'scope-test',
      leaderElectionNamespace: A,
    });
    // A cluster-wide manager next to it (admin), to show what the scoped one is spared.
    const everywhere = managerWithLog(config, {});
    const ac = new AbortController();
    const runs = [scoped.mgr.start(ac.signal), everywhere.mgr.start(ac.signal)];
    for (const r of runs) r.catch(() => undefined);
    try {
      await eventually(
        () => scoped.seen.includes(`${A}/scope-early`),
        'the scoped manager leads and reconciles its namespace',
      );
      await eventually(
        () => everywhere.seen.includes(`${A}/scope-early`) && everywhere.seen.includes(`${B}/scope-early`),
        'the cluster-wide manager synced',
      );

      // Created in this order: one watch of every namespace delivers B's object before A's
      // marker, and a controller's single worker reconciles in that order (the cluster-wide
      // manager shows it), so once the scoped manager reconciled the marker it would have seen B's.
      await configMap(B, 'scope-late');
      await configMap(A, 'scope-marker');
      await eventually(() => everywhere.seen.includes(`${A}/scope-marker`), 'the cluster-wide manager saw the marker');
      assert.ok(
        everywhere.seen.indexOf(`${B}/scope-late`) >= 0 &&
          everywhere.seen.indexOf(`${B}/scope-late`) < everywhere.seen.indexOf(`${A}/scope-marker`),
        everywhere.seen.join(', '),
      );
      await eventually(() => scoped.seen.includes(`${A}/scope-marker`), 'the scoped manager saw the marker');
      assert.deepEqual(scoped.seen, [`${A}/scope-early`, `${A}/scope-marker`], 'nothing of tenant-b');

      // Its cached client: lists hold its namespace only; a read elsewhere is refused, not sent.
      const names = (await scoped.mgr.getClient().list({ apiVersion: 'v1', kind: 'ConfigMap' })).items
        .map((c) => `${c.metadata?.namespace}/${c.metadata?.name}`)
        .filter((n) => n.includes('/scope-'));
      assert.deepEqual(names, [`${A}/scope-early`, `${A}/scope-marker`]);
      await assert.rejects(
        scoped.mgr.getClient().get({ apiVersion: 'v1', kind: 'ConfigMap' }, { namespace: B, name: 'scope-late' }),
        NamespaceNotWatchedError,
      );
    } finally {
      ac.abort();
      await Promise.allSettled(runs);
    }
  });
});

describe('a per-type cache scope (byObject namespaces)', () => {
  it('caches Secrets of one namespace with a Role there and no cluster-wide Secret RBAC, each namespace with its own selector', async () => {
    // The user may list ConfigMaps everywhere (a ClusterRole) but Secrets only in tenant-a (a Role).
    const bind = async (path: string, kind: 'ClusterRole' | 'Role', name: string, rules: unknown[]) => {
      await rest.request('POST', `${path}/${kind === 'Role' ? 'roles' : 'clusterroles'}`, {
        body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind, metadata: { name }, rules },
      });
      await rest.request('POST', `${path}/${kind === 'Role' ? 'rolebindings' : 'clusterrolebindings'}`, {
        body: {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: `${kind}Binding`,
          metadata: { name },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind, name },
          subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'secrets-in-a' }],
        },
      });
    };
    await bind('/apis/rbac.authorization.k8s.io/v1', 'ClusterRole', 'configmaps-everywhere', [
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] },
    ]);
    await bind(`/apis/rbac.authorization.k8s.io/v1/namespaces/${A}`, 'Role', 'secrets-here', [
      { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list', 'watch'] },
    ]);
    const secret = (namespace: string, name: string, labels: Record<string, string> = {}) =>
      rest.request('POST', `/api/v1/namespaces/${namespace}/secrets`, {
        body: { apiVersion: 'v1', kind: 'Secret', metadata: { name, labels }, stringData: { k: 'v' } },
      });
    await secret(A, 'cred-picked', { team: 'x' });
    await secret(A, 'cred-unlabelled');
    await secret(B, 'cred-elsewhere', { team: 'x' });

    const user = env.userConfig('secrets-in-a');
    const Secret = { apiVersion: 'v1', kind: 'Secret' };
    const { mgr, seen } = managerWithLog(user, {
      cache: { byObject: [{ object: Secret, namespaces: { [A]: { labelSelector: 'team=x' } } }] },
    });
    const ac = new AbortController();
    const run = mgr.start(ac.signal);
    run.catch(() => undefined);
    try {
      await configMap(B, 'scope-with-secrets');
      await eventually(() => seen.includes(`${B}/scope-with-secrets`), 'ConfigMaps reconciled everywhere');
      // Secrets: tenant-a's labelled one only, from a cache that never listed Secrets cluster-wide.
      const names = (await mgr.getClient().list(Secret)).items.map(
        (x) => `${x.metadata?.namespace}/${x.metadata?.name}`,
      );
      assert.deepEqual(names, [`${A}/cred-picked`]);
      const got = await mgr.getClient().get(Secret, { namespace: A, name: 'cred-picked' });
      assert.equal(got.metadata?.name, 'cred-picked');
      await assert.rejects(
        mgr.getClient().get(Secret, { namespace: B, name: 'cred-elsewhere' }),
        (e: unknown) => e instanceof NamespaceNotWatchedError && e.namespace === B && e.watched.join() === A,
      );
    } finally {
      ac.abort();
      await run.catch(() => undefined);
    }
  });
});
