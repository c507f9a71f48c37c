/**
 * kubeforge/runtime/multicluster: one operator over many clusters, after multicluster-runtime
 * (sigs.k8s.io/multicluster-runtime v0.24). A provider engages and disengages clusters at run
 * time; each engaged cluster has its own cache, client and RESTMapper; controllers built with
 * `controllerManagedBy(mgr)` on a multi-cluster manager run on every engaged cluster, and their
 * requests carry `clusterName`.
 *
 * ```ts
 * const provider = new KubeconfigProvider({ namespace: 'fleet-system' });
 * const mgr = newMultiClusterManager(getConfigOrDie(), provider, { ... });
 * controllerManagedBy(mgr).for(V1ConfigMap).complete(async (req) => {
 *   const { client } = mgr.getCluster(req.clusterName);
 *   ...
 * });
 * await mgr.start(setupSignalHandler());
 * ```
 */
export { newMultiClusterManager, withMultiCluster } from './manager.js';
export type { MultiClusterManager, MultiClusterOptions } from './manager.js';
export { newCluster } from './cluster.js';
export type { Cluster, ClusterOptions, RunnableCluster } from './cluster.js';
export { ClusterNotFoundError, isClusterNotFound } from './provider.js';
export type { Aware, Provider, ProviderContext } from './provider.js';
export {
  KubeconfigProvider,
  kubeconfigSecret,
  DEFAULT_KUBECONFIG_SECRET_KEY,
  DEFAULT_KUBECONFIG_SECRET_LABEL,
} from './kubeconfig.js';
export type { KubeconfigProviderOptions, KubeconfigSecretOptions } from './kubeconfig.js';
export { StaticProvider } from './static.js';
export type { StaticProviderOptions } from './static.js';
