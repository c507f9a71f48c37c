/**
 * @kubernetes/client-node, loaded when it is needed rather than when kubeforge/runtime is imported.
 *
 * Importing client-node's index loads its whole generated API (~700 modules, about half a second;
 * even its config module alone pulls them in). kubeforge/runtime and kubeforge/testing need it
 * only to read a kubeconfig and to run its auth plugins (exec, OIDC, cloud providers), so the
 * package is required here, synchronously, the first time a KubeConfig is made: a unit test on
 * the FakeAPIServer never loads it (test/runtime/client/client-node-tables.test.ts checks the import
 * graph). Types are imported with `import type`, which the compiler erases. The require itself is
 * in lazy-require.cts, where a bundler sees it.
 *
 * The synchronous require of an ES module needs Node 20.19 or later (package.json's engines).
 */
import type * as ClientNode from '@kubernetes/client-node';
import type { Cluster, Context, KubeConfig, User } from '@kubernetes/client-node';
import { requireClientNode } from './lazy-require.cjs';

let loaded: typeof ClientNode | undefined;

/** The @kubernetes/client-node module, loaded on the first call. */
export function clientNode(): typeof ClientNode {
  try {
    loaded ??= requireClientNode();
  } catch (e) {
    if ((e as { code?: string }).code !== 'ERR_REQUIRE_ESM') throw e;
    throw new Error(
      `kubeforge/runtime needs Node.js 20.19 or later to load @kubernetes/client-node (this is ${process.version}): upgrade Node.js`,
      { cause: e },
    );
  }
  return loaded;
}

/** `new KubeConfig()` of @kubernetes/client-node, loading the package on the first call. */
export function newKubeConfig(): KubeConfig {
  return new (clientNode().KubeConfig)();
}

/** A kubeconfig given as data, as client-node's `KubeConfig.loadFromOptions` takes it. */
export interface KubeConfigData {
  clusters: Cluster[];
  users: User[];
  contexts: Context[];
  currentContext: string;
}

/**
 * A KubeConfig of `data` whose users carry no credentials (a local, unauthenticated server such
 * as the FakeAPIServer), that answers what kubeforge's REST client asks (the current context,
 * cluster and user, `applyToHTTPSOptions`) without loading client-node. Any other use (another
 * method, a write to a field, `instanceof KubeConfig`) makes the real KubeConfig from the same
 * data, and from then on every access goes to it: the object then behaves as the KubeConfig
 * `loadFromOptions(data)` makes, in every respect.
 */
export function localKubeConfig(data: KubeConfigData): KubeConfig {
  for (const u of data.users) {
    const credentials = Object.entries(u).filter(([k, v]) => k !== 'name' && v !== undefined);
    if (credentials.length > 0)
      throw new Error(
        `kubeforge/runtime: localKubeConfig: user ${u.name} has credentials (${credentials.map(([k]) => k).join(', ')}); use a KubeConfig`,
      );
  }
  let real: KubeConfig | undefined;
  const materialize = (): KubeConfig => {
    if (!real) {
      real = newKubeConfig();
      real.loadFromOptions(structuredClone(data));
    }
    return real;
  };
  const context = () => data.contexts.find((c) => c.name === data.currentContext) ?? null;
  const local: Record<string, unknown> = {
    getCurrentContext: () => data.currentContext,
    getContexts: () => data.contexts,
    getClusters: () => data.clusters,
    getUsers: () => data.users,
    getContextObject: (name: string) => data.contexts.find((c) => c.name === name) ?? null,
    getCluster: (name: string) => data.clusters.find((c) => c.name === name) ?? null,
    getUser: (name: string) => data.users.find((u) => u.name === name) ?? null,
    getCurrentCluster: () => data.clusters.find((c) => c.name === context()?.cluster) ?? null,
    getCurrentUser: () => data.users.find((u) => u.name === context()?.user) ?? null,
    // What client-node's applyToHTTPSOptions sets for a user without credentials: no auth
    // header (an empty header map), the cluster's TLS choices.
    applyToHTTPSOptions: async (opts: {
      headers?: Record<string, unknown>;
      rejectUnauthorized?: boolean;
      servername?: string;
    }) => {
      const cluster = local.getCurrentCluster as () => Cluster | null;
      if (!(local.getCurrentUser as () => User | null)()) return;
      const c = cluster();
      if (c?.skipTLSVerify) opts.rejectUnauthorized = false;
      if (c?.tlsServerName) opts.servername = c.tlsServerName;
      if (c?.caData || c?.caFile) return materialize().applyToHTTPSOptions(opts as never);
      opts.headers ??= {};
    },
  };
  const fields: Record<string, () => unknown> = {
    clusters: () => data.clusters,
    users: () => data.users,
    contexts: () => data.contexts,
    currentContext: () => data.currentContext,
  };
  return new Proxy({} as KubeConfig, {
    get(_t, prop) {
      if (!real && typeof prop === 'string') {
        if (Object.hasOwn(local, prop)) return local[prop];
        if (Object.hasOwn(fields, prop)) return fields[prop]();
      }
      // `then` is asked of every value awaited or returned from an async function: not a use.
      if (!real && prop === 'then') return undefined;
      const r = materialize();
      const v = Reflect.get(r, prop, r) as unknown;
      return typeof v === 'function' ? v.bind(r) : v;
    },
    set(_t, prop, value) {
      return Reflect.set(materialize(), prop, value);
    },
    has(_t, prop) {
      return Reflect.has(materialize(), prop);
    },
    ownKeys() {
      return Reflect.ownKeys(materialize());
    },
    getOwnPropertyDescriptor(_t, prop) {
      const d = Reflect.getOwnPropertyDescriptor(materialize(), prop);
      return d ? { ...d, configurable: true } : undefined;
    },
    getPrototypeOf() {
      return Reflect.getPrototypeOf(materialize());
    },
  });
}
