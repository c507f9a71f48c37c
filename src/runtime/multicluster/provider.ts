/**
 * The cluster provider contract (multicluster-runtime's multicluster.Provider, Aware and
 * ProviderRunnable): a provider finds clusters (kubeconfig Secrets, files, a fleet API) and
 * engages each with the manager while it exists. Engagement is scoped by an AbortSignal, as Go
 * scopes it by a context: aborting it disengages the cluster.
 */
import type { Cluster } from './cluster.js';
import type { Manager } from '../manager/types.js';

/** What a provider engages clusters with (the multi-cluster manager; multicluster.Aware). */
export interface Aware {
  /**
   * Engages `cluster` under `name` until `signal` aborts: every controller built with
   * `controllerManagedBy(mgr)` watches its kinds there and reconciles with `req.clusterName ===
   * name`. Engaging a name again with another cluster replaces the first (disengaged first).
   * Rejects if the name is not usable ('' is the host's).
   */
  engage(signal: AbortSignal, name: string, cluster: Cluster): Promise<void>;
}

/** What a provider runs against: the multi-cluster manager, seen from the provider. */
export interface ProviderContext extends Aware {
  /** The host cluster's Manager (its config, logger, metrics registry). */
  getLocalManager(): Manager;
}

/** A source of clusters (multicluster.Provider plus ProviderRunnable). */
export interface Provider {
  /** The cluster engaged under `name`; throws a {@link ClusterNotFoundError} if none is. */
  get(name: string): Cluster;
  /** The names of the clusters it has engaged now. */
  list(): string[];
  /**
   * Runs the provider until `signal` aborts: it engages clusters through `mgr.engage` as it finds
   * them and aborts their signals as they go. The manager calls it once, on the leader, when it
   * starts; a rejection stops the manager. Optional: a provider without it is driven by its user.
   */
  start?(signal: AbortSignal, mgr: ProviderContext): Promise<void>;
}

/** No cluster of that name is engaged (multicluster.ErrClusterNotFound). */
export class ClusterNotFoundError extends Error {
  constructor(readonly clusterName: string) {
    super(`cluster ${JSON.stringify(clusterName)} not found`);
    this.name = 'ClusterNotFoundError';
  }
}

/** True for a ClusterNotFoundError (or an error whose cause chain holds one). */
export function isClusterNotFound(err: unknown): boolean {
  for (let e = err, depth = 0; e && depth < 10; e = (e as { cause?: unknown }).cause, depth++)
    if (e instanceof ClusterNotFoundError || (e as Error).name === 'ClusterNotFoundError') return true;
  return false;
}
