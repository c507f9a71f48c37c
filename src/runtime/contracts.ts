/**
 * Contracts between the parts of kubeforge/runtime, fixed first so that the Manager and the
 * cache / client / controller can be built side by side. Names follow controller-runtime.
 */
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';

/** Something the Manager starts and stops: controllers, the cache, servers, user tasks. */
export interface Runnable {
  /**
   * Runs until `signal` aborts, then stops and resolves. Rejecting reports a fatal error:
   * the Manager then stops everything else and its own start() rejects with that error.
   */
  start(signal: AbortSignal): Promise<void>;
  /** Only run on the elected leader (controllers: true; cache and servers: false). Default true. */
  needLeaderElection?(): boolean;
}

/** A Kind the runtime can list, watch and address: client-node model class or a CRD type. */
export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/**
 * A type handle: what `for(Kind)`, `owns(Kind)`, `client.get(Kind, ...)` take. Generated API
 * classes carry `static readonly gvk` and `static readonly plural` (and namespaced), so the
 * class itself is the handle; client-node models are mapped by the runtime's own table.
 */
export interface ObjectType<T extends KubernetesObject = KubernetesObject> {
  new (...args: never[]): T;
  readonly gvk?: GroupVersionKind;
  readonly plural?: string;
  readonly namespaced?: boolean;
}

export interface ManagerContracts {
  getConfig(): KubeConfig;
  add(runnable: Runnable): void;
}
