/**
 * The kubeconfig provider (multicluster-runtime's providers/kubeconfig, v0.24): Secrets in one
 * namespace of the host cluster, labelled `sigs.k8s.io/multicluster-runtime-kubeconfig: "true"`,
 * each holding a kubeconfig under the data key `kubeconfig`, are clusters named after the Secret.
 * The same Secrets serve a Go operator on multicluster-runtime and a kubeforge one. A Secret
 * created engages its cluster; one whose kubeconfig changes (a different SHA-256) re-engages it
 * on a new cluster; one deleted (or being deleted) disengages it.
 */
import { createHash } from 'node:crypto';
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { newCache } from '../cache/index.js';
import { isNotFound } from '../client/errors.js';
import { newKubeConfig } from '../client/kubeconfig.js';
import { registerInto } from '../client/prom.js';
import { RestClient } from '../client/rest.js';
import { Controller } from '../controller/controller.js';
import { enqueueRequestForObject } from '../controller/handler.js';
import type { Request } from '../controller/reconcile.js';
import { kindSource } from '../controller/source.js';
import { checkOptions } from '../options.js';
import { newCluster, type Cluster, type ClusterOptions, type RunnableCluster } from './cluster.js';
import { ClusterNotFoundError, type Provider, type ProviderContext } from './provider.js';

/** multicluster-runtime's DefaultKubeconfigSecretLabel: the label (value "true") that marks a kubeconfig Secret. */
export const DEFAULT_KUBECONFIG_SECRET_LABEL = 'sigs.k8s.io/multicluster-runtime-kubeconfig';
/** multicluster-runtime's DefaultKubeconfigSecretKey: the Secret data key holding the kubeconfig. */
export const DEFAULT_KUBECONFIG_SECRET_KEY = 'kubeconfig';

/** Options of {@link KubeconfigProvider} (multicluster-runtime's kubeconfig.Options). */
export interface KubeconfigProviderOptions {
  /**
   * The namespace of the host cluster holding the kubeconfig Secrets. Required: multicluster-runtime
   * has no default either (its empty Namespace matches no Secret).
   */
  namespace: string;
  /** The label marking kubeconfig Secrets, with the value "true" (default {@link DEFAULT_KUBECONFIG_SECRET_LABEL}). */
  kubeconfigSecretLabel?: string;
  /** The data key of the kubeconfig (default {@link DEFAULT_KUBECONFIG_SECRET_KEY}). */
  kubeconfigSecretKey?: string;
  /** Options of each cluster's cache and client. */
  clusterOptions?: ClusterOptions;
  /**
   * Changes each cluster's KubeConfig before it is used (multicluster-runtime's RESTOptions); a
   * throw fails that Secret's reconcile (retried with back-off).
   */
  configure?: (config: KubeConfig, clusterName: string) => void;
}

interface Active {
  cluster: RunnableCluster;
  ac: AbortController;
  hash: string;
  done: Promise<void>;
}

const SECRET = { apiVersion: 'v1', kind: 'Secret' };

/** See the module comment. Give it to `newMultiClusterManager(config, provider)`; it runs when the manager starts. */
export class KubeconfigProvider implements Provider {
  private readonly options: Required<Omit<KubeconfigProviderOptions, 'clusterOptions' | 'configure'>> &
    KubeconfigProviderOptions;
  private readonly clusters = new Map<string, Active>();
  private log?: Logger;

  constructor(options: KubeconfigProviderOptions) {
    checkOptions('KubeconfigProvider', options, {
      namespace: true,
      kubeconfigSecretLabel: true,
      kubeconfigSecretKey: true,
      clusterOptions: true,
      configure: true,
    });
    if (!options?.namespace)
      throw new Error('kubeforge/runtime: KubeconfigProvider needs the namespace of its Secrets');
    this.options = {
      ...options,
      kubeconfigSecretLabel: options.kubeconfigSecretLabel || DEFAULT_KUBECONFIG_SECRET_LABEL,
      kubeconfigSecretKey: options.kubeconfigSecretKey || DEFAULT_KUBECONFIG_SECRET_KEY,
    };
  }

  get(name: string): Cluster {
    const a = this.clusters.get(name);
    if (!a) throw new ClusterNotFoundError(name);
    return a.cluster;
  }

  list(): string[] {
    return [...this.clusters.keys()].sort();
  }

  /**
   * Watches the Secrets (a cache of its own on the host, restricted to the namespace and the label,
   * so it needs only list and watch of Secrets there) and reconciles each with a controller named
   * "kubeconfig-provider", until `signal` aborts; then every cluster it engaged stops.
   */
  async start(signal: AbortSignal, mgr: ProviderContext): Promise<void> {
    const host = mgr.getLocalManager();
    const logger = host.getLogger().child({ logger: 'kubeconfig-provider' });
    this.log = logger;
    const o = this.options;
    logger.info(
      { namespace: o.namespace, label: o.kubeconfigSecretLabel, key: o.kubeconfigSecretKey },
      'starting kubeconfig provider',
    );
    const rest = new RestClient(host.getConfig());
    const cache = newCache(host.getConfig(), {
      rest,
      namespaces: [o.namespace],
      defaultLabelSelector: `${o.kubeconfigSecretLabel}=true`,
      logger: logger.child({ logger: 'cache' }),
    });
    const controller = new Controller(
      'kubeconfig-provider',
      (req) => this.reconcile(req, cache, mgr, signal),
      { cache, logger: host.getLogger(), registry: registerInto(host), forKind: { group: '', kind: 'Secret' } },
      { needLeaderElection: false },
    );
    controller.watch(kindSource(cache, SECRET), enqueueRequestForObject());
    try {
      await Promise.all([cache.start(signal), controller.start(signal)]);
    } finally {
      const running = [...this.clusters.keys()].map((name) => this.remove(name));
      await Promise.all(running);
      rest.close();
    }
  }

  private async reconcile(
    req: Request,
    cache: { get<T extends KubernetesObject>(t: unknown, k: { namespace: string; name: string }): Promise<T> },
    mgr: ProviderContext,
    signal: AbortSignal,
  ): Promise<void> {
    const o = this.options;
    let secret: KubernetesObject & { data?: Record<string, string> };
    try {
      secret = await cache.get(SECRET, { namespace: req.namespace, name: req.name });
    } catch (e) {
      if (!isNotFound(e)) throw e;
      await this.remove(req.name);
      return;
    }
    const name = secret.metadata?.name ?? req.name;
    if (secret.metadata?.deletionTimestamp || secret.metadata?.labels?.[o.kubeconfigSecretLabel] !== 'true') {
      await this.remove(name);
      return;
    }
    const encoded = secret.data?.[o.kubeconfigSecretKey];
    if (!encoded) {
      this.log?.error(
        { cluster: name, secret: `${req.namespace}/${req.name}`, key: o.kubeconfigSecretKey },
        'Secret does not contain kubeconfig data, skipping',
      );
      return;
    }
    const data = Buffer.from(encoded, 'base64');
    const hash = createHash('sha256').update(data).digest('hex');
    const existing = this.clusters.get(name);
    if (existing?.hash === hash) return;
    if (existing) {
      this.log?.info({ cluster: name }, 'kubeconfig changed: replacing the cluster');
      await this.remove(name);
    }
    const config = newKubeConfig();
    config.loadFromString(data.toString('utf8'));
    o.configure?.(config, name);
    const cluster = newCluster(name, config, {
      logger: this.log?.child({ logger: 'cache' }),
      ...o.clusterOptions,
    });
    const ac = new AbortController();
    const stop = () => ac.abort();
    signal.addEventListener('abort', stop, { once: true });
    const done = cluster
      .start(ac.signal)
      .catch((e: unknown) =>
        this.log?.error({ cluster: name, err: (e as Error)?.message ?? String(e) }, 'cluster stopped'),
      )
      .finally(() => signal.removeEventListener('abort', stop));
    const active: Active = { cluster, ac, hash, done };
    this.clusters.set(name, active);
    try {
      await mgr.engage(ac.signal, name, cluster);
    } catch (e) {
      await this.remove(name);
      throw e;
    }
    this.log?.info({ cluster: name }, 'engaged cluster from kubeconfig Secret');
  }

  /** Disengages and stops a cluster; resolves once its informers stopped. */
  private async remove(name: string): Promise<void> {
    const a = this.clusters.get(name);
    if (!a) return;
    this.clusters.delete(name);
    a.ac.abort();
    await a.done;
    this.log?.info({ cluster: name }, 'removed cluster');
  }
}

/** Options of {@link kubeconfigSecret}. */
export interface KubeconfigSecretOptions {
  /** The label to set to "true" (default {@link DEFAULT_KUBECONFIG_SECRET_LABEL}). */
  kubeconfigSecretLabel?: string;
  /** The data key (default {@link DEFAULT_KUBECONFIG_SECRET_KEY}). */
  kubeconfigSecretKey?: string;
}

/**
 * The Secret that makes cluster `name` known to a {@link KubeconfigProvider} (or to
 * multicluster-runtime's) watching `namespace`: labelled, its kubeconfig (YAML or JSON text)
 * under the data key. Create it with any client.
 */
export function kubeconfigSecret(
  name: string,
  namespace: string,
  kubeconfig: string,
  options: KubeconfigSecretOptions = {},
): KubernetesObject & { data: Record<string, string>; type: string } {
  checkOptions('kubeconfigSecret', options, { kubeconfigSecretLabel: true, kubeconfigSecretKey: true });
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name,
      namespace,
      labels: { [options.kubeconfigSecretLabel || DEFAULT_KUBECONFIG_SECRET_LABEL]: 'true' },
    },
    type: 'Opaque',
    data: {
      [options.kubeconfigSecretKey || DEFAULT_KUBECONFIG_SECRET_KEY]: Buffer.from(kubeconfig).toString('base64'),
    },
  };
}
