/**
 * Many clusters for a test: N fake API servers (unit tier) or N control planes (kube-apiserver and
 * etcd each), and a provider over them, so that a multi-cluster reconciler runs in a test as in
 * production:
 *
 * ```ts
 * const fleet = await startFakeClusters(['east', 'west']);
 * const host = await FakeAPIServer.start();
 * const mgr = newMultiClusterManager(host.config, fleet.provider, { ... });
 * ...
 * await fleet.stop();
 * ```
 */
import { readFileSync } from 'node:fs';
import type { KubeConfig } from '@kubernetes/client-node';
import { newClient } from '../runtime/client/client.js';
import type { Client } from '../runtime/contracts.js';
import { StaticProvider, type StaticProviderOptions } from '../runtime/multicluster/static.js';
import { TestEnvironment, type TestEnvironmentOptions } from './environment.js';
import { FakeAPIServer, type FakeAPIServerOptions } from './fake/index.js';

/** One cluster of a {@link TestClusters}. */
export interface TestCluster {
  /** Its name (what the provider engages it under, and `req.clusterName`). */
  readonly name: string;
  /** The admin KubeConfig. */
  readonly config: KubeConfig;
  /** A client reading live from it (to arrange and assert; not the reconciler's). */
  readonly client: Client;
  /** A kubeconfig of it as text, to put in a kubeconfig Secret (`kubeconfigSecret(name, ns, text)`). */
  readonly kubeconfig: string;
  /** The fake API server, for {@link startFakeClusters}. */
  readonly fake?: FakeAPIServer;
  /** The control plane, for {@link startTestClusters}. */
  readonly environment?: TestEnvironment;
}

/** What {@link startFakeClusters} and {@link startTestClusters} return. */
export interface TestClusters {
  /** The clusters, in the order named. */
  readonly clusters: TestCluster[];
  /** A StaticProvider over all of them (engaged when the manager starts; `add`/`remove` to change). */
  readonly provider: StaticProvider;
  /** The cluster of that name; throws for an unknown one. */
  get(name: string): TestCluster;
  /** Stops every server (the provider's manager should be stopped first). */
  stop(): Promise<void>;
}

/** Options of the provider the helpers build. */
export type TestClustersProviderOptions = Omit<StaticProviderOptions, 'clusters'>;

function namesOf(names: number | string[]): string[] {
  const list = typeof names === 'number' ? Array.from({ length: names }, (_, i) => `cluster-${i}`) : names;
  if (list.length === 0 || list.some((n) => !n) || new Set(list).size !== list.length)
    throw new Error('kubeforge/testing: clusters need distinct, non-empty names');
  return list;
}

function fleet(clusters: TestCluster[], options: TestClustersProviderOptions, stop: () => Promise<void>): TestClusters {
  const provider = new StaticProvider({
    ...options,
    clusters: Object.fromEntries(clusters.map((c) => [c.name, c.config])),
  });
  return {
    clusters,
    provider,
    get(name) {
      const c = clusters.find((x) => x.name === name);
      if (!c) throw new Error(`kubeforge/testing: no cluster named ${JSON.stringify(name)}`);
      return c;
    },
    stop,
  };
}

/**
 * Starts a fake API server per name (`n` of them named `cluster-0`...), each with `options` (CRDs,
 * objects), and a StaticProvider over them. No binaries needed: the unit tier.
 */
export async function startFakeClusters(
  names: number | string[],
  options: FakeAPIServerOptions = {},
  providerOptions: TestClustersProviderOptions = {},
): Promise<TestClusters> {
  const list = namesOf(names);
  const fakes = await Promise.all(list.map(() => FakeAPIServer.start(options)));
  const clusters = fakes.map(
    (fake, i): TestCluster => ({
      name: list[i],
      config: fake.config,
      client: fake.client(),
      kubeconfig: JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: list[i], cluster: { server: fake.url, 'insecure-skip-tls-verify': true } }],
        users: [{ name: list[i], user: {} }],
        contexts: [{ name: list[i], context: { cluster: list[i], user: list[i], namespace: 'default' } }],
        'current-context': list[i],
      }),
      fake,
    }),
  );
  return fleet(clusters, providerOptions, async () => {
    await Promise.all(fakes.map((f) => f.stop()));
  });
}

/**
 * Starts a control plane (kube-apiserver and etcd, from KUBEBUILDER_ASSETS) per name, each a
 * TestEnvironment of its own with `options` (CRDs...), and a StaticProvider over them. If one
 * fails to start, those started are stopped and the error is thrown.
 */
export async function startTestClusters(
  names: number | string[],
  options: TestEnvironmentOptions = {},
  providerOptions: TestClustersProviderOptions = {},
): Promise<TestClusters> {
  const list = namesOf(names);
  const envs = list.map(() => new TestEnvironment({ ...options, joinSharedControlPlane: false }));
  const started = await Promise.allSettled(envs.map((e) => e.start()));
  const failed = started.find((r) => r.status === 'rejected');
  if (failed) {
    await Promise.allSettled(envs.map((e) => e.stop()));
    throw (failed as PromiseRejectedResult).reason;
  }
  const clusters = envs.map(
    (env, i): TestCluster => ({
      name: list[i],
      config: env.config,
      client: newClient(env.config),
      kubeconfig: readFileSync(env.kubeconfigPath, 'utf8'),
      environment: env,
    }),
  );
  return fleet(clusters, providerOptions, async () => {
    await Promise.all(envs.map((e) => e.stop()));
  });
}
