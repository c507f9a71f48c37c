/**
 * The fan-out example (./fanout.ts: an async map function, a label selector, a namespace-scoped
 * cache) run the same way on kubeforge/testing's fake API server and on a real kube-apiserver:
 * a Fanout picking `team=blue` namespaces copies the source Secret into a ConfigMap in each, says
 * in its status which selector it used (as apimachinery prints it) and which namespaces it picked;
 * a namespace labelled later is picked up through the Namespace watch's async map function; the
 * manager runs as a user with Secret RBAC in the source namespace only.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeConfig } from '@kubernetes/client-node';
import { RestClient } from '../../src/runtime/client/rest.js';
import { newManager } from '../../src/runtime/manager/index.js';
import { newLogger } from '../../src/runtime/manager/logging.js';
import { FakeAPIServer, TestEnvironment } from '../../src/testing/index.js';
import { CACHE_OPTIONS, FANOUT_CRD, FanoutReconciler, GROUP, SOURCE_NAMESPACE, type Fanout } from './fanout.js';

async function until<T>(what: string, f: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await f();
      if (v !== undefined) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline)
      assert.fail(`${what}: not within ${timeoutMs} ms${last ? ` (${(last as Error).message})` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The scenario, on any API server: `admin` sets it up, the manager runs with `managerConfig`. */
async function scenario(admin: KubeConfig, managerConfig: KubeConfig): Promise<void> {
  const rest = new RestClient(admin);
  const post = (path: string, body: unknown) => rest.request('POST', path, { body });
  try {
    for (const [name, labels] of [
      [SOURCE_NAMESPACE, {}],
      ['blue-one', { team: 'blue' }],
      ['blue-two', { team: 'blue', tier: 'dev' }],
      ['red-one', { team: 'red' }],
    ] as const)
      await post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } }).catch(
        (e: { code?: number }) => {
          if (e.code !== 409) throw e; // made already, for its Role
        },
      );
    await post(`/api/v1/namespaces/${SOURCE_NAMESPACE}/secrets`, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'shared' },
      stringData: { greeting: 'hello' },
    });
    const mgr = newManager(managerConfig, {
      logger: newLogger({ level: 'error' }),
      metrics: { bindAddress: '0' },
      healthProbeBindAddress: '0',
      cache: CACHE_OPTIONS,
    });
    new FanoutReconciler(mgr.getClient()).setupWithManager(mgr);
    const ac = new AbortController();
    const run = mgr.start(ac.signal);
    run.catch(() => undefined);
    try {
      await post(`/apis/${GROUP}/v1/fanouts`, {
        apiVersion: `${GROUP}/v1`,
        kind: 'Fanout',
        metadata: { name: 'greet' },
        spec: {
          namespaceSelector: {
            matchLabels: { team: 'blue' },
            matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['prod'] }],
          },
          secretName: 'shared',
        },
      });
      const status = await until('the Fanout reports its namespaces', async () => {
        const f = (await rest.get(`/apis/${GROUP}/v1/fanouts/greet`)) as Fanout;
        return f.status?.namespaces?.length === 2 ? f.status : undefined;
      });
      assert.deepEqual(status, { selector: 'team=blue,tier notin (prod)', namespaces: ['blue-one', 'blue-two'] });
      for (const ns of ['blue-one', 'blue-two']) {
        const cm = await rest.get(`/api/v1/namespaces/${ns}/configmaps/fanout-greet`);
        assert.equal(cm.data.greeting, 'aGVsbG8=', "the source Secret's data (base64 'hello')");
      }
      // A namespace labelled later: the Namespace watch's async map function enqueues the Fanout.
      await rest.request('PATCH', '/api/v1/namespaces/red-one', {
        body: { metadata: { labels: { team: 'blue' } } },
        contentType: 'application/merge-patch+json',
      });
      await until('the relabelled namespace is picked up', async () => {
        const f = (await rest.get(`/apis/${GROUP}/v1/fanouts/greet`)) as Fanout;
        return f.status?.namespaces?.includes('red-one') ? true : undefined;
      });
      await rest.get('/api/v1/namespaces/red-one/configmaps/fanout-greet');
    } finally {
      ac.abort();
      await run.catch(() => undefined);
    }
  } finally {
    rest.close();
  }
}

describe('the fan-out example (async map function, label selector, namespace-scoped cache)', {
  timeout: 180_000,
}, () => {
  it('runs on the fake API server', async () => {
    const fake = await FakeAPIServer.start({ crds: [FANOUT_CRD as never] });
    try {
      await scenario(fake.config, fake.config);
    } finally {
      await fake.stop();
    }
  });

  describe('on a real kube-apiserver, as a user with Secret RBAC in the source namespace only', () => {
    const env = new TestEnvironment({
      useExistingCluster: false,
      crds: [FANOUT_CRD as never],
      users: [{ name: 'fanout-manager' }],
    });
    let admin: KubeConfig;
    before(async () => {
      admin = await env.start();
    });
    after(() => env.stop());

    it('runs the same', async () => {
      const rest = new RestClient(admin);
      const role = (kind: 'ClusterRole' | 'Role', path: string, rules: unknown[]) =>
        Promise.all([
          rest.request('POST', `${path}/${kind.toLowerCase()}s`, {
            body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind, metadata: { name: 'fanout' }, rules },
          }),
          rest.request('POST', `${path}/${kind.toLowerCase()}bindings`, {
            body: {
              apiVersion: 'rbac.authorization.k8s.io/v1',
              kind: `${kind}Binding`,
              metadata: { name: 'fanout' },
              roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind, name: 'fanout' },
              subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'fanout-manager' }],
            },
          }),
        ]);
      try {
        await rest.request('POST', '/api/v1/namespaces', {
          body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: SOURCE_NAMESPACE } },
        });
        await role('ClusterRole', '/apis/rbac.authorization.k8s.io/v1', [
          { apiGroups: [GROUP], resources: ['fanouts', 'fanouts/status'], verbs: ['get', 'list', 'watch', 'update'] },
          { apiGroups: [''], resources: ['namespaces'], verbs: ['get', 'list', 'watch'] },
          { apiGroups: [''], resources: ['configmaps'], verbs: ['create'] },
        ]);
        await role('Role', `/apis/rbac.authorization.k8s.io/v1/namespaces/${SOURCE_NAMESPACE}`, [
          { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list', 'watch'] },
        ]);
      } finally {
        rest.close();
      }
      await scenario(admin, env.userConfig('fanout-manager'));
    });
  });
});
