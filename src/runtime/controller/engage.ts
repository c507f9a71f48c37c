/**
 * How the builder hands a controller to a multi-cluster manager (kubeforge/runtime/multicluster):
 * a manager that carries {@link MULTI_CLUSTER} is given the controller and a function that sets
 * up its `for()`/`owns()`/`watches()` kinds on one cluster's cache; the manager calls it for every
 * cluster it engages and removes those watches when the cluster is disengaged. The symbol lives
 * here, in the controller part, so that the builder needs nothing of the multicluster part.
 */
import type { Cache } from '../contracts.js';
import type { Controller, WatchHandle } from './controller.js';
import type { EventHandler } from './handler.js';
import type { Predicate } from './predicate.js';
import type { Source } from './source.js';

/** Adds one watch (what `controller.watch` takes). */
export type AddWatch = (source: Source, handler: EventHandler, ...predicates: Predicate[]) => WatchHandle;

/** Sets up a controller's kind watches on one cluster's cache through `add`. */
export type WireCluster = (cache: Cache, add: AddWatch) => void;

/** What a multi-cluster manager offers the builder under {@link MULTI_CLUSTER}. */
export interface ClusterEngagement {
  /** Takes a built controller: its kind watches are set up on every engaged cluster by `wire`. */
  adopt(controller: Controller, wire: WireCluster): void;
}

/** The key of a manager's {@link ClusterEngagement} (Symbol.for: two copies of kubeforge agree). */
export const MULTI_CLUSTER: unique symbol = Symbol.for('kubeforge.runtime.multicluster') as never;

/** The manager's ClusterEngagement, if it is a multi-cluster manager. */
export function clusterEngagementOf(mgr: unknown): ClusterEngagement | undefined {
  const e = (mgr as { [MULTI_CLUSTER]?: ClusterEngagement } | undefined)?.[MULTI_CLUSTER];
  return e && typeof e.adopt === 'function' ? e : undefined;
}
