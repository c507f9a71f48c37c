/**
 * The multi-cluster manager (multicluster-runtime's mcmanager.Manager): a Manager on the host
 * cluster that also runs a cluster provider and engages, at run time, the clusters the provider
 * finds. Every controller built on it with `controllerManagedBy(mgr)` watches its kinds in each
 * engaged cluster (each cluster's own cache) and reconciles requests carrying `clusterName`;
 * disengaging a cluster removes those watches and the cluster's queued requests, nothing else.
 */
import type { AddressInfo } from 'node:net';
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { DiscoveryClient } from '../client/discovery.js';
import { registerInto, registryToRegisterInto } from '../client/prom.js';
import type { RESTMapper } from '../client/restmapper.js';
import type { Cache, Client, IndexExtractor, Reader, Runnable, TypeRef } from '../contracts.js';
import { type Controller, type WatchHandle, clusterPoint } from '../controller/controller.js';
import { MULTI_CLUSTER, type ClusterEngagement, type WireCluster } from '../controller/engage.js';
import type { EventHandler, RequestQueue } from '../controller/handler.js';
import type { Request } from '../controller/reconcile.js';
import type { Source } from '../controller/source.js';
import type { Checker } from '../manager/healthz.js';
import { newManager, type ManagerOptions } from '../manager/manager.js';
import type { AnnotatedEventRecorder } from '../manager/events.js';
import type { Manager } from '../manager/types.js';
import type { WebhookServer } from '../webhook/server.js';
import { checkOptions } from '../options.js';
import type { Cluster } from './cluster.js';
import { ClusterNotFoundError, type Aware, type Provider } from './provider.js';

/** Options of the multi-cluster part of {@link newMultiClusterManager} and {@link withMultiCluster}. */
export interface MultiClusterOptions {
  /**
   * Also run every controller on the host cluster (requests with `clusterName` ''), besides the
   * provider's clusters (multicluster-runtime's `WithEngageWithLocalCluster`). Default: false with
   * a provider, true without one, as multicluster-runtime's builder defaults it.
   */
  engageWithLocalCluster?: boolean;
}

/** A Manager that also works on the clusters a provider engages (see the module comment). */
export interface MultiClusterManager extends Manager, Aware {
  /**
   * The cluster of a request: `mgr.getCluster(req.clusterName)`. '' or undefined is the host
   * cluster (the manager's own client, cache and RESTMapper). Throws a ClusterNotFoundError for
   * a name that is not engaged (any more): a reconcile of a cluster just removed ends there.
   */
  getCluster(clusterName?: string): Cluster;
  /** The names of the engaged clusters (not the host), sorted. */
  listClusters(): string[];
  /** The host cluster's plain Manager (multicluster-runtime's GetLocalManager). */
  getLocalManager(): Manager;
  /** The provider, if any. */
  getProvider(): Provider | undefined;
  /**
   * Registers a field index on every engaged cluster's cache and on each cluster engaged later
   * (and on the host's with engageWithLocalCluster); see Cache.indexField.
   */
  indexField<T extends KubernetesObject>(type: TypeRef<T>, field: string, extractor: IndexExtractor<T>): Promise<void>;
}

/**
 * Creates a multi-cluster manager: `newManager(config, options)` for the host cluster plus
 * `provider` (multicluster-runtime's `mcmanager.New(config, provider, opts)`). The provider starts
 * with the manager, on the leader. `provider` may be undefined (clusters engaged by hand with
 * `mgr.engage`; controllers then also run on the host unless engageWithLocalCluster is false).
 */
export function newMultiClusterManager(
  config: KubeConfig,
  provider: Provider | undefined,
  options: ManagerOptions = {},
  multiClusterOptions: MultiClusterOptions = {},
): MultiClusterManager {
  return withMultiCluster(newManager(config, options), provider, multiClusterOptions);
}

/**
 * Makes a multi-cluster manager of an existing, not yet started Manager (multicluster-runtime's
 * `mcmanager.WithMultiCluster`). Build the controllers on the returned manager, and start it
 * (starting `mgr` itself would not start the provider's clusters' controllers any differently,
 * but controllers built on `mgr` directly run on the host only).
 */
export function withMultiCluster(
  mgr: Manager,
  provider: Provider | undefined,
  multiClusterOptions: MultiClusterOptions = {},
): MultiClusterManager {
  checkOptions('withMultiCluster', multiClusterOptions, { engageWithLocalCluster: true });
  return new MultiClusterManagerImpl(mgr, provider, multiClusterOptions);
}

/** A controller built on the manager, and how to set its kinds up on one cluster. */
interface Adopted {
  controller: Controller;
  wire: WireCluster;
  /** The binding of each handler the controller shares between clusters (see inCluster). */
  binds: WeakMap<EventHandler, Binding>;
}

/**
 * One handler object bound once for all the clusters it watches (a `watches()` handler is one
 * object however many clusters there are, and `bind` keeps one context): its signal aborts when
 * the last of its cluster watches is removed, not with the first. Requests of a cluster removed
 * meanwhile are refused by the queue's admission anyway.
 */
interface Binding {
  ac: AbortController;
  live: number;
}

/** An engaged cluster: its scope and the watches each controller has there. */
interface Engaged {
  name: string;
  cluster: Cluster;
  signal: AbortSignal;
  attached: Map<Adopted, WatchHandle[]>;
  off: () => void;
}

interface Index {
  type: TypeRef;
  field: string;
  extractor: IndexExtractor;
}

/** What a sharded host manager offers (ControllerManager.shardMembership). */
interface ShardMembership {
  allows(point: bigint): boolean;
  onChange(listener: () => void): void;
}

class MultiClusterManagerImpl implements MultiClusterManager {
  private readonly clusters = new Map<string, Engaged>();
  /** Under sharding: every cluster the provider engaged, engaged here or not. */
  private readonly offered = new Map<string, { signal: AbortSignal; cluster: Cluster }>();
  private readonly ring?: ShardMembership;
  private readonly adopted: Adopted[] = [];
  private readonly indexes: Index[] = [];
  private readonly log: Logger;
  private readonly local: Cluster;
  private readonly engageLocal: boolean;
  readonly [MULTI_CLUSTER]: ClusterEngagement;

  constructor(
    private readonly host: Manager,
    private readonly provider: Provider | undefined,
    options: MultiClusterOptions,
  ) {
    this.log = host.getLogger().child({ logger: 'multicluster' });
    this.local = {
      name: '',
      config: host.getConfig(),
      client: host.getClient(),
      apiReader: host.getAPIReader(),
      cache: host.getCache(),
      restMapper: host.getRESTMapper(),
    };
    this.engageLocal = options.engageWithLocalCluster ?? provider === undefined;
    this[MULTI_CLUSTER] = { adopt: (controller, wire) => this.adopt(controller, wire) };
    // A sharded host: every replica runs the provider and engages the clusters whose name's point
    // on the ring it owns (the others are kept as offered); its controllers place a cluster's
    // requests on that point, so a cluster is handed over as a range is, reconciles drained.
    this.ring = (host as { shardMembership?: () => ShardMembership | undefined }).shardMembership?.();
    this.ring?.onChange(() => this.rebalanceClusters());
    const start = provider?.start;
    if (start) {
      const runnable: Runnable = {
        start: (signal) => start.call(provider, signal, this),
        describe: () => 'cluster provider',
        ...(this.ring ? { needLeaderElection: () => false } : {}),
      };
      host.add(runnable);
    }
  }

  /** Under sharding: engages the offered clusters this replica owns, disengages the others. */
  private rebalanceClusters(): void {
    if (!this.ring) return;
    for (const [name, o] of this.offered) {
      if (o.signal.aborted) continue;
      const mine = this.ring.allows(clusterPoint(name));
      const engaged = this.clusters.get(name);
      if (mine && !engaged) void this.engageNow(o.signal, name, o.cluster);
      else if (!mine && engaged) {
        this.disengage(engaged);
        this.log.info({ cluster: name }, "sharding: the cluster's point moved to another replica; disengaged here");
      }
    }
  }

  // --- multi-cluster ---

  getCluster(clusterName = ''): Cluster {
    if (!clusterName) return this.local;
    const e = this.clusters.get(clusterName);
    if (e) return e.cluster;
    if (!this.provider) throw new ClusterNotFoundError(clusterName);
    return this.provider.get(clusterName);
  }

  listClusters(): string[] {
    return [...this.clusters.keys()].sort();
  }

  getLocalManager(): Manager {
    return this.host;
  }

  getProvider(): Provider | undefined {
    return this.provider;
  }

  async indexField<T extends KubernetesObject>(
    type: TypeRef<T>,
    field: string,
    extractor: IndexExtractor<T>,
  ): Promise<void> {
    const ix = { type, field, extractor } as Index;
    this.indexes.push(ix);
    if (this.engageLocal) await this.local.cache.indexField(type, field, extractor);
    for (const e of this.clusters.values()) await e.cluster.cache.indexField(type, field, extractor);
  }

  async engage(signal: AbortSignal, name: string, cluster: Cluster): Promise<void> {
    if (typeof name !== 'string' || !name)
      throw new Error("kubeforge/runtime: engage: a cluster needs a name ('' is the host cluster)");
    if (signal.aborted) return;
    if (this.ring) {
      const offer = { signal, cluster };
      this.offered.set(name, offer);
      signal.addEventListener('abort', () => this.offered.get(name) === offer && this.offered.delete(name), {
        once: true,
      });
      if (!this.ring.allows(clusterPoint(name))) {
        this.log.debug({ cluster: name }, 'sharding: cluster offered; another replica owns its point');
        return;
      }
    }
    await this.engageNow(signal, name, cluster);
  }

  private async engageNow(signal: AbortSignal, name: string, cluster: Cluster): Promise<void> {
    if (signal.aborted) return;
    const old = this.clusters.get(name);
    if (old) {
      if (old.cluster === cluster && !old.signal.aborted) return;
      this.disengage(old);
    }
    for (const ix of this.indexes) await cluster.cache.indexField(ix.type, ix.field, ix.extractor);
    if (signal.aborted) return;
    const again = this.clusters.get(name);
    if (again) this.disengage(again);
    const onAbort = () => this.disengage(e);
    const e: Engaged = {
      name,
      cluster,
      signal,
      attached: new Map(),
      off: () => signal.removeEventListener('abort', onAbort),
    };
    this.clusters.set(name, e);
    signal.addEventListener('abort', onAbort, { once: true });
    for (const a of this.adopted) this.attach(e, a);
    this.log.info({ cluster: name, controllers: this.adopted.length }, 'engaged cluster');
  }

  /** Removes a cluster's watches from every controller and drops its requests from their queues. */
  private disengage(e: Engaged): void {
    if (this.clusters.get(e.name) !== e) return;
    this.clusters.delete(e.name);
    e.off();
    let dropped = 0;
    for (const [a, handles] of e.attached) {
      for (const h of handles) h.remove();
      dropped += a.controller.queue.dropWhere((r) => r.clusterName === e.name);
    }
    e.attached.clear();
    this.log.info({ cluster: e.name, droppedRequests: dropped }, 'disengaged cluster');
  }

  private adopt(controller: Controller, wire: WireCluster): void {
    const a: Adopted = { controller, wire, binds: new WeakMap() };
    this.adopted.push(a);
    // Requests of a cluster no longer engaged (a requeue of a reconcile that was running when it
    // went, a delayed retry) are not queued again.
    controller.queue.setAdmission((r: Request) => !r.clusterName || this.clusters.has(r.clusterName));
    if (this.engageLocal) wire(this.local.cache, (source, handler, ...p) => controller.watch(source, handler, ...p));
    for (const e of this.clusters.values()) this.attach(e, a);
  }

  /** Sets a controller's kinds up on one engaged cluster. */
  private attach(e: Engaged, a: Adopted): void {
    const handles: WatchHandle[] = [];
    try {
      a.wire(e.cluster.cache, (source, handler, ...predicates) => {
        const failed = (err: unknown) =>
          this.log.error(
            {
              cluster: e.name,
              controller: a.controller.name,
              source: String(source),
              err: (err as Error)?.message ?? String(err),
            },
            'cannot watch in the engaged cluster',
          );
        const h = a.controller.watch(unblocking(source, failed), inCluster(handler, e.name, a.binds), ...predicates);
        handles.push(h);
        return h;
      });
    } catch (err) {
      for (const h of handles) h.remove();
      this.log.error(
        { cluster: e.name, controller: a.controller.name, err: (err as Error)?.message ?? String(err) },
        'cannot watch the engaged cluster',
      );
      return;
    }
    e.attached.set(a, handles);
  }

  // --- Manager, delegated to the host's ---

  getConfig(): KubeConfig {
    return this.host.getConfig();
  }
  getClient(): Client {
    return this.host.getClient();
  }
  getAPIReader(): Reader {
    return this.host.getAPIReader();
  }
  getRESTMapper(): RESTMapper {
    return this.host.getRESTMapper();
  }
  getDiscoveryClient(): DiscoveryClient {
    return this.host.getDiscoveryClient();
  }
  getCache(): Cache {
    return this.host.getCache();
  }
  getLogger(): Logger {
    return this.host.getLogger();
  }
  getMetricsRegistry(): Registry {
    return this.host.getMetricsRegistry();
  }
  [registryToRegisterInto](): Registry {
    return registerInto(this.host);
  }
  getWebhookServer(): WebhookServer {
    return this.host.getWebhookServer();
  }
  getEventRecorder(name: string): AnnotatedEventRecorder {
    return this.host.getEventRecorder(name);
  }
  addHealthzCheck(name: string, check: Checker): void {
    this.host.addHealthzCheck(name, check);
  }
  addReadyzCheck(name: string, check: Checker): void {
    this.host.addReadyzCheck(name, check);
  }
  add(runnable: Runnable): void {
    this.host.add(runnable);
  }
  elected(): Promise<void> {
    return this.host.elected();
  }
  started(): Promise<void> {
    return this.host.started();
  }
  getHealthProbeAddress(): AddressInfo | undefined {
    return this.host.getHealthProbeAddress();
  }
  getPprofAddress(): AddressInfo | undefined {
    return this.host.getPprofAddress();
  }
  getMetricsAddress(): AddressInfo | undefined {
    return this.host.getMetricsAddress();
  }
  getMetricsServingCert(): string | undefined {
    return this.host.getMetricsServingCert();
  }
  getLeaderElectionIdentity(): string | undefined {
    return this.host.getLeaderElectionIdentity();
  }
  start(signal?: AbortSignal): Promise<void> {
    return this.host.start(signal);
  }
}

/**
 * A cluster's source as the controller starts and waits for it: started and synced at once. A controller waits for its
 * sources before its workers start and fails after cacheSyncTimeoutMs; a cluster engaged before
 * then (or one that does not answer) must neither hold up nor fail the others. Its requests come
 * from its informer's events anyway, and a read of its cache waits for that informer's list.
 */
function unblocking(source: Source, onError: (err: unknown) => void): Source {
  return {
    // Nor does a source that cannot start there (its kind unknown to that cluster's discovery):
    // it is logged, and the controller's other watches go on.
    start: async (signal, sink) => {
      source.start(signal, sink).catch(onError);
    },
    waitForSync: async () => true,
    toString: () => String(source),
  };
}

/**
 * A handler for one cluster's watch: the requests it queues carry the cluster's name (unless the
 * handler named a cluster itself), and it is bound once for all clusters (see Binding). (An
 * owner handler `owns()` makes for the cluster resolves its type in that cluster's cache.)
 */
function inCluster(h: EventHandler, name: string, binds: WeakMap<EventHandler, Binding>): EventHandler {
  const stamp = (r: Request): Request => (r.clusterName === undefined ? { ...r, clusterName: name } : r);
  const stamped = new WeakMap<RequestQueue, RequestQueue>();
  const queue = (q: RequestQueue): RequestQueue => {
    let s = stamped.get(q);
    if (!s) {
      s = {
        add: (r, o) => q.add(stamp(r), o),
        addAfter: (r, d, o) => q.addAfter(stamp(r), d, o),
        addRateLimited: (r, o) => q.addRateLimited(stamp(r), o),
      };
      stamped.set(q, s);
    }
    return s;
  };
  const w: EventHandler = {};
  for (const k of ['create', 'update', 'delete', 'generic'] as const) {
    const f = h[k] as ((e: unknown, q: RequestQueue) => void) | undefined;
    if (f)
      (w as Record<string, unknown>)[k] = (e: unknown, q: RequestQueue) => {
        f.call(h, e, queue(q));
      };
  }
  const bind = h.bind;
  if (bind)
    w.bind = (ctx) => {
      let b = binds.get(h);
      if (!b || b.ac.signal.aborted) {
        b = { ac: new AbortController(), live: 0 };
        binds.set(h, b);
        bind.call(h, { signal: b.ac.signal, onError: ctx.onError });
      }
      const binding = b;
      binding.live++;
      const gone = () => {
        if (--binding.live === 0) binding.ac.abort();
      };
      if (ctx.signal.aborted) gone();
      else ctx.signal.addEventListener('abort', gone, { once: true });
    };
  return w;
}
