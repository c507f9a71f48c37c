/**
 * A provider of clusters given in code: KubeConfig objects or kubeconfig files, added and removed
 * at run time (tests, a fixed fleet, files mounted from Secrets). kubeforge/testing hands one over
 * its control planes or fake API servers.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { newKubeConfig } from '../client/kubeconfig.js';
import { checkOptions } from '../options.js';
import { newCluster, type Cluster, type ClusterOptions, type RunnableCluster } from './cluster.js';
import { ClusterNotFoundError, type Provider, type ProviderContext } from './provider.js';

/** Options of {@link StaticProvider}. */
export interface StaticProviderOptions {
  /** The clusters to engage when the manager starts: a KubeConfig, or the path of a kubeconfig file, by name. */
  clusters?: Record<string, KubeConfig | string>;
  /** Options of each cluster's cache and client. */
  clusterOptions?: ClusterOptions;
}

interface Active {
  cluster: RunnableCluster;
  ac: AbortController;
  done: Promise<void>;
}

/** See the module comment. */
export class StaticProvider implements Provider {
  private readonly pending = new Map<string, KubeConfig>();
  private readonly clusters = new Map<string, Active>();
  private mgr?: ProviderContext;
  private signal?: AbortSignal;
  private log?: Logger;

  constructor(private readonly options: StaticProviderOptions = {}) {
    checkOptions('StaticProvider', options, { clusters: true, clusterOptions: true });
    for (const [name, c] of Object.entries(options.clusters ?? {})) this.pending.set(name, load(c));
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
   * Adds a cluster (a KubeConfig or a kubeconfig file): engaged at once when the manager runs,
   * else when it starts. A name already present is replaced (disengaged, then engaged anew).
   */
  async add(name: string, config: KubeConfig | string): Promise<void> {
    if (!name)
      throw new Error("kubeforge/runtime: StaticProvider.add: a cluster needs a name ('' is the host cluster)");
    const kc = load(config);
    await this.remove(name);
    if (!this.mgr || !this.signal || this.signal.aborted) {
      this.pending.set(name, kc);
      return;
    }
    await this.engage(name, kc, this.mgr, this.signal);
  }

  /** Removes a cluster: disengaged, its informers stopped; resolves once they are. Unknown names are ignored. */
  async remove(name: string): Promise<void> {
    this.pending.delete(name);
    const a = this.clusters.get(name);
    if (!a) return;
    this.clusters.delete(name);
    a.ac.abort();
    await a.done;
  }

  /** Engages the clusters given so far, then those added, until `signal` aborts; then stops them all. */
  async start(signal: AbortSignal, mgr: ProviderContext): Promise<void> {
    this.mgr = mgr;
    this.signal = signal;
    this.log = mgr.getLocalManager().getLogger().child({ logger: 'static-provider' });
    try {
      for (const [name, kc] of [...this.pending]) {
        this.pending.delete(name);
        await this.engage(name, kc, mgr, signal);
      }
      if (!signal.aborted) await new Promise<void>((r) => signal.addEventListener('abort', () => r(), { once: true }));
    } finally {
      await Promise.all([...this.clusters.keys()].map((n) => this.remove(n)));
    }
  }

  private async engage(name: string, kc: KubeConfig, mgr: ProviderContext, signal: AbortSignal): Promise<void> {
    const cluster = newCluster(name, kc, {
      logger: this.log?.child({ logger: 'cache' }),
      ...this.options.clusterOptions,
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
    this.clusters.set(name, { cluster, ac, done });
    try {
      await mgr.engage(ac.signal, name, cluster);
    } catch (e) {
      await this.remove(name);
      throw e;
    }
  }
}

function load(c: KubeConfig | string): KubeConfig {
  if (typeof c !== 'string') return c;
  const kc = newKubeConfig();
  kc.loadFromFile(c);
  return kc;
}
