/**
 * The Manager (controller-runtime's manager.Manager): owns the client, cache, controllers,
 * metrics and probe servers and leader election; starts them in order and stops them in reverse
 * on an AbortSignal, letting in-flight work finish within a grace period.
 */
import { DiscoveryClient } from '../client/discovery.js';
import { setMaxListeners } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import pino, { type Logger } from 'pino';
import { Gauge, Registry, collectDefaultMetrics, registryToRegisterInto } from '../client/prom.js';
import type { Manager } from './types.js';
import type { Selector } from '../../util/apimachinery/labels.js';

export type { Manager };
import type { Cache, Client, FieldValidation, Leadership, Reader, Runnable, TypeRef } from '../contracts.js';
import { newCache, type CacheByObject } from '../cache/index.js';
import { newClient } from '../client/client.js';
import { LeadershipLostError } from '../client/fence.js';
import { RestClient } from '../client/rest.js';
import { RESTMapper } from '../client/restmapper.js';
import { restClientRequestMetrics } from '../client/requestmetrics.js';
import { inClusterNamespace } from './config.js';
import { EventBroadcaster, type AnnotatedEventRecorder } from './events.js';
import { serveChecks, type Checker } from './healthz.js';
import { LeaderElector } from './leaderelection.js';
import { ShardMember } from './membership.js';
import { namedPoint } from '../sharding/ring.js';
import {
  DelegatingAuth,
  close,
  listen,
  metricsServer,
  parseBindAddress,
  servingCert,
  type AnyHttpServer,
  type MetricsServerOptions,
} from './servers.js';
import {
  WEBHOOK_SERVER_OPTION_NAMES,
  WebhookServer,
  newWebhookServer,
  type WebhookServerOptions,
} from '../webhook/server.js';
import { CACHE_BY_OBJECT_NAMES } from '../cache/cache.js';
import { checkOptions, type OptionNames, type OptionRenames } from '../options.js';
import { traceMixin } from '../tracing.js';

/** Options of {@link newManager}. Durations are milliseconds. */
export interface ManagerOptions {
  /** Metrics server; disabled unless `bindAddress` is set to something other than "0". */
  metrics?: MetricsServerOptions;
  /** Probe server address (":8081" in Kubebuilder's main; "127.0.0.1:0" in tests); "0" or unset disables it. */
  healthProbeBindAddress?: string;
  /**
   * Profiling server address (controller-runtime's PprofBindAddress): `/debug/pprof/profile`
   * (a CPU profile) and `/debug/pprof/heap` (a heap snapshot) in Node's formats (./profiling.ts).
   * Unset or "0" (the default): off. It has no authentication: bind it to 127.0.0.1.
   */
  pprofBindAddress?: string;
  /** Run leader runnables (controllers) only while holding a Lease (default false). */
  leaderElection?: boolean;
  /**
   * Lease name; required with leaderElection (Kubebuilder: `<hash>.<domain>`). Must be a
   * lowercase DNS-1123 subdomain: newManager throws otherwise.
   */
  leaderElectionID?: string;
  /**
   * Labels set on the leader election Lease by the replica that creates or takes it
   * (controller-runtime's LeaderElectionLabels); the Lease's other labels stay.
   */
  leaderElectionLabels?: Record<string, string>;
  /** Lease namespace (a DNS-1123 label); default: the pod's namespace when in-cluster (required otherwise). */
  leaderElectionNamespace?: string;
  /** This candidate's identity (default `<hostname>_<uuid>`). */
  leaderElectionIdentity?: string;
  /**
   * Give the lease up when stopping so another replica takes over at once (default true). The
   * lease is released only once every leader runnable has returned (no reconcile running); if
   * some outlive the grace period it is left to expire.
   */
  leaderElectionReleaseOnCancel?: boolean;
  /** Lease validity without renewal, ms (default 15 000). */
  leaseDurationMs?: number;
  /** How long the leader retries renewing before it gives up, ms (default 10 000). */
  renewDeadlineMs?: number;
  /** Wait between lease attempts, ms (default 2 000). */
  retryPeriodMs?: number;
  /**
   * Total time stop() waits for runnables to return after the signal (default 30 000).
   * 0 stops without waiting; a negative value waits forever. After leadership is lost it is 0,
   * as in controller-runtime: start() rejects at once, without waiting for running reconciles.
   */
  gracefulShutdownTimeoutMs?: number;
  /** Options of the Manager's informer cache (controller-runtime's cache.Options). */
  cache?: ManagerCacheOptions;
  /** Field manager of the client's writes (default "kubeforge-manager"). */
  fieldOwner?: string;
  /** Options of the client (`getClient()`): types it does not read from the cache. */
  client?: ManagerClientOptions;
  /**
   * Field validation of the client's writes (controller-runtime's `client.WithFieldValidation`):
   * `Strict` refuses a write with a field its type does not have. Default: the server's (`Warn`).
   * Either way the API server's warnings are logged once each (logger "KubeAPIWarningLogger").
   */
  fieldValidation?: FieldValidation;
  /** Root logger (default: pino to stderr at level LOG_LEVEL or "info"). */
  logger?: Logger;
  /**
   * The webhook server, or options to build one (default: default options, port 9443, certificates
   * in `${os.tmpdir()}/k8s-webhook-server/serving-certs`). Started with the servers, before the
   * caches, only if webhooks are registered on it when start() is called; stopped last.
   */
  webhookServer?: WebhookServer | WebhookServerOptions;
  /**
   * Run this operator as N replicas that split the work (docs/scaling.md): each replica joins a
   * ring of Leases, owns the hash ranges consistent hashing gives it among the live members, and
   * caches and reconciles only the objects whose uid (or namespace) hashes into them. Controllers
   * start on every replica without an election; leaseDurationMs, renewDeadlineMs and
   * retryPeriodMs time the member Leases. An alternative to leaderElection (not both); a
   * controller that must run on one replica only says `withOptions({ sharding: false })`.
   */
  sharding?: ShardingOptions;
}

/** The `sharding` part of {@link ManagerOptions}. */
export interface ShardingOptions {
  /**
   * The ring's name: a DNS-1123 label, the same on every replica of the operator (the value of
   * the Leases' `sharding.kubeforge.io/ring` label and their name prefix).
   */
  ring: string;
  /**
   * What places an object on the ring: `uid` (default; even shares whatever the namespaces) or
   * `namespace` (everything of a namespace on one replica). See docs/scaling.md.
   */
  field?: 'uid' | 'namespace';
  /** Namespace of the member Leases (default: leaderElectionNamespace, else the pod's namespace in-cluster). */
  namespace?: string;
  /** This replica's identity (default: leaderElectionIdentity, else `<hostname>_<uuid>`). */
  identity?: string;
  /** Tokens per member on the ring (default 128). */
  virtualNodes?: number;
  /**
   * How long a range being handed over waits for its running reconciles before their
   * `ctx.signal` is aborted (ms, default 5 000). It is handed over only once they have ended.
   */
  drainTimeoutMs?: number;
}

const SHARDING_OPTION_NAMES: OptionNames<ShardingOptions> = {
  ring: true,
  field: true,
  namespace: true,
  identity: true,
  virtualNodes: true,
  drainTimeoutMs: true,
};

/** The cache part of {@link ManagerOptions}. */
export interface ManagerCacheOptions {
  /**
   * Restricts namespaced watches to these namespaces (one list+watch per namespace and type;
   * cached reads elsewhere reject with NamespaceNotWatchedError); default env WATCH_NAMESPACE
   * (comma-separated); none: all namespaces.
   */
  defaultNamespaces?: string[] | Record<string, unknown>;
  /** How long cached reads wait for a new informer's first list, ms (default 120 000; then CacheSyncTimeoutError). */
  syncTimeoutMs?: number;
  /**
   * Every this many ms (jittered), every cached object is handed to the controllers again
   * (controller-runtime's SyncPeriod; default 10 hours; 0 disables).
   */
  syncPeriodMs?: number;
  /**
   * Applied to every object before it is cached (e.g. drop metadata.managedFields to save
   * memory); sees the object as the server sent it (timestamps still strings). It must not throw:
   * a throw fails that list or watch like a server error (logged, retried with back-off).
   */
  transform?: (obj: KubernetesObject) => KubernetesObject;
  /** Cache only objects matching this label selector (a string or a Selector), for types without their own in byObject (DefaultLabelSelector). */
  defaultLabelSelector?: string | Selector;
  /** Cache only objects matching this field selector, for types without their own in byObject (DefaultFieldSelector). */
  defaultFieldSelector?: string;
  /** Per-type selectors, transform and sync period (controller-runtime's ByObject). */
  byObject?: CacheByObject[];
  /**
   * Cached reads hand out the cached object itself, not a copy (controller-runtime's
   * DefaultUnsafeDisableDeepCopy): never mutate what you read. See CacheOptions.unsafeDisableDeepCopy.
   */
  unsafeDisableDeepCopy?: boolean;
}

/** Options of the Manager's client (controller-runtime's client.Options). */
export interface ManagerClientOptions {
  cache?: {
    /** Types the client reads from the API server, not from the cache (DisableFor): no informer for them. */
    disableFor?: TypeRef[];
  };
  /**
   * Read your own writes: a cached `get` of an object this client just wrote returns the write's
   * answer until the informer has caught up (no stale read, no needless 409). Default false.
   */
  readYourOwnWrites?: boolean;
}

const MANAGER_OPTION_NAMES: OptionNames<ManagerOptions> = {
  metrics: true,
  healthProbeBindAddress: true,
  pprofBindAddress: true,
  leaderElection: true,
  leaderElectionID: true,
  leaderElectionLabels: true,
  leaderElectionNamespace: true,
  leaderElectionIdentity: true,
  leaderElectionReleaseOnCancel: true,
  leaseDurationMs: true,
  renewDeadlineMs: true,
  retryPeriodMs: true,
  gracefulShutdownTimeoutMs: true,
  cache: true,
  fieldOwner: true,
  client: true,
  fieldValidation: true,
  logger: true,
  webhookServer: true,
  sharding: true,
};

/** Names ManagerOptions had before (the durations without their unit, until 0.1.0) and controller-runtime's for the same. */
export const MANAGER_RENAMES: OptionRenames = {
  gracefulShutdownTimeout: 'gracefulShutdownTimeoutMs',
  leaseDuration: 'leaseDurationMs',
  renewDeadline: 'renewDeadlineMs',
  retryPeriod: 'retryPeriodMs',
  syncPeriod: 'cache.syncPeriodMs',
  syncPeriodMs: 'cache.syncPeriodMs',
  syncTimeout: 'cache.syncTimeoutMs',
  namespace: 'cache.defaultNamespaces',
  namespaces: 'cache.defaultNamespaces',
  metricsBindAddress: 'metrics.bindAddress',
  certDir: 'webhookServer.certDir',
  port: 'webhookServer.port',
};

const MANAGER_CACHE_OPTION_NAMES: OptionNames<ManagerCacheOptions> = {
  defaultNamespaces: true,
  syncTimeoutMs: true,
  syncPeriodMs: true,
  transform: true,
  defaultLabelSelector: true,
  defaultFieldSelector: true,
  byObject: true,
  unsafeDisableDeepCopy: true,
};

const METRICS_OPTION_NAMES: OptionNames<MetricsServerOptions> = {
  bindAddress: true,
  secureServing: true,
  certDir: true,
  certName: true,
  keyName: true,
  authenticate: true,
  extraHandlers: true,
  enableHttp2: true,
};

/**
 * Refuses options under names the manager does not know (see ../options.ts), nested ones too:
 * an ignored option keeps its default without a word (`gracefulShutdownTimeout: 1000` kept 30 s).
 */
function checkManagerOptions(options: ManagerOptions): void {
  checkOptions('newManager', options, MANAGER_OPTION_NAMES, MANAGER_RENAMES);
  checkOptions('newManager: cache', options.cache, MANAGER_CACHE_OPTION_NAMES, {
    syncPeriod: 'syncPeriodMs',
    syncTimeout: 'syncTimeoutMs',
    namespaces: 'defaultNamespaces',
    namespace: 'defaultNamespaces',
  });
  for (const [i, entry] of (Array.isArray(options.cache?.byObject) ? options.cache.byObject : []).entries())
    checkOptions(`newManager: cache.byObject[${i}]`, entry, CACHE_BY_OBJECT_NAMES, { syncPeriod: 'syncPeriodMs' });
  checkOptions('newManager: client', options.client, { cache: true, readYourOwnWrites: true });
  checkOptions('newManager: client.cache', options.client?.cache, { disableFor: true });
  checkOptions('newManager: metrics', options.metrics, METRICS_OPTION_NAMES);
  checkOptions('newManager: sharding', options.sharding, SHARDING_OPTION_NAMES);
  if (options.webhookServer !== undefined && !isWebhookServer(options.webhookServer))
    checkOptions('newManager: webhookServer', options.webhookServer, WEBHOOK_SERVER_OPTION_NAMES);
}

type GroupName = 'servers' | 'caches' | 'others' | 'leader';

interface Running {
  runnable: Runnable;
  done: Promise<void>;
  settled: boolean;
}

interface Group {
  name: GroupName;
  runnables: Runnable[];
  ac: AbortController;
  running: Running[];
  started: boolean;
  stopping: boolean;
}

/** How long runnables told to stop after the grace period ran out get before being reported (ms). */
const SETTLE_MS = 50;

/** What a shutdown report calls a runnable. */
function describeRunnable(r: Runnable, index: number): string {
  if (typeof r.describe === 'function') {
    try {
      return r.describe();
    } catch {
      /* fall through */
    }
  }
  const ctor = (r as { constructor?: { name?: string } }).constructor?.name;
  return ctor && ctor !== 'Object' ? ctor : `runnable #${index + 1}`;
}

function isCacheLike(r: Runnable): r is Runnable & { waitForCacheSync(signal?: AbortSignal): Promise<boolean> } {
  return typeof (r as { waitForCacheSync?: unknown }).waitForCacheSync === 'function';
}

function isWebhookServer(x: unknown): x is WebhookServer {
  if (x instanceof WebhookServer) return true;
  const o = x as Partial<WebhookServer> | undefined;
  return (
    !!o && typeof o.register === 'function' && typeof o.start === 'function' && typeof o.hasHandlers === 'function'
  );
}

function defaultLogger(): Logger {
  return pino({ level: process.env.LOG_LEVEL ?? 'info', mixin: traceMixin }, pino.destination({ dest: 2, sync: true }));
}

/**
 * The error start() rejects with when runnables outlive the grace period; `pending` names them,
 * `<group>: <runnable>` (controllers with the requests they were reconciling).
 */
export class GracefulShutdownTimeoutError extends Error {
  constructor(
    graceMs: number,
    readonly pending: string[],
  ) {
    super(
      `failed waiting for all runnables to end within grace period of ${graceMs}ms${pending.length ? `: still running: ${pending.join(', ')}` : ''}`,
    );
    this.name = 'GracefulShutdownTimeoutError';
  }
}

/**
 * The error start() rejects with when leadership is lost (the process should exit and restart):
 * at once, without waiting for reconciles still running (no new one started after the loss).
 */
export class LeaderElectionLostError extends Error {
  constructor(
    lease: string,
    readonly reason?: string,
  ) {
    super(`leader election lost (lease ${lease})${reason ? `: ${reason}` : ''}`);
    this.name = 'LeaderElectionLostError';
  }
}

/**
 * Creates a Manager. Throws (synchronously) on invalid options: leader election without an ID or
 * namespace, with an ID or namespace the API server would refuse (LeaderElectionError) or with
 * impossible timings, or a malformed bind address.
 */
export function newManager(config: KubeConfig, options: ManagerOptions = {}): Manager {
  return new ControllerManager(config, options);
}

/** The Manager `newManager` builds (controller-runtime's controllerManager); kubeforge/runtime exports only its interface. */
export class ControllerManager implements Manager {
  private readonly config: KubeConfig;
  private readonly options: ManagerOptions;
  private readonly logger: Logger;
  private readonly log: Logger;
  private readonly registry = new Registry();
  private defaultMetrics = false;
  private readonly clientRest: RestClient;
  private readonly mapper: RESTMapper;
  private discovery?: DiscoveryClient;
  private readonly ownRest: RestClient;
  private readonly cache: Cache & Runnable;
  private readonly client: Client;
  private readonly broadcaster: EventBroadcaster;
  private readonly recorders = new Map<string, AnnotatedEventRecorder>();
  private readonly healthChecks = new Map<string, Checker>();
  private readonly readyChecks = new Map<string, Checker>();
  private readonly groups: Record<GroupName, Group>;
  private readonly leaderGauge?: Gauge<string>;
  private readonly leaseNamespace?: string;
  private readonly grace: number;
  private startCalled = false;
  private stopAC = manySubscribers(new AbortController());
  private fatal?: unknown;
  private probeServer?: http.Server;
  private metricsSrv?: AnyHttpServer;
  private probeAddr?: AddressInfo;
  private pprofServer?: http.Server;
  private pprofAddr?: AddressInfo;
  private metricsAddr?: AddressInfo;
  private metricsCert?: string;
  private electedResolve!: () => void;
  private readonly electedPromise: Promise<void>;
  private startedResolve!: () => void;
  private startedReject!: (e: unknown) => void;
  private readonly startedPromise: Promise<void>;
  private readonly elector?: LeaderElector;
  private lostReason?: string;
  private readonly lostAC = manySubscribers(new AbortController());
  private readonly leadership: Leadership;
  private readonly webhookServer: WebhookServer;
  /** This replica's ring membership, with `sharding`. */
  private readonly member?: ShardMember;
  /** Per type (`<apiVersion>/<kind>`), how the cache holds it under sharding (computed at first use). */
  private shardPlan?: Map<string, 'uid' | 'namespace'>;

  constructor(config: KubeConfig, options: ManagerOptions = {}) {
    checkManagerOptions(options);
    this.config = config;
    this.options = options;
    this.logger = options.logger ?? defaultLogger();
    this.log = this.logger.child({ logger: 'manager' });
    this.grace = options.gracefulShutdownTimeoutMs ?? 30_000;
    // Validate addresses now: bad options fail at construction, like controller-runtime's New().
    parseBindAddress(options.healthProbeBindAddress, 'healthProbeBindAddress');
    parseBindAddress(options.pprofBindAddress, 'pprofBindAddress');
    parseBindAddress(options.metrics?.bindAddress, 'metrics.bindAddress');
    if (options.sharding && options.leaderElection)
      throw new Error(
        'sharding and leaderElection are alternatives: a sharded manager runs its controllers on every replica, each on its share of the objects; a controller that must run on one replica only takes withOptions({ sharding: false })',
      );
    if (options.leaderElection) {
      if (!options.leaderElectionID) throw new Error('leaderElectionID must be set when leaderElection is true');
      this.leaseNamespace = options.leaderElectionNamespace ?? inClusterNamespace();
      if (!this.leaseNamespace) {
        throw new Error(
          'unable to find the leader election namespace: not running in-cluster; set leaderElectionNamespace',
        );
      }
    }
    const namespaces = cacheNamespaces(options);

    // The default process metrics (collectDefaultMetrics) are registered when the registry is
    // first read: see withDefaultMetrics.
    if (options.leaderElection) {
      this.leaderGauge = new Gauge({
        name: 'leader_election_master_status',
        help: "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease. Please make sure to group by name.",
        labelNames: ['name'],
        registers: [this.registry],
      });
    }
    this.ownRest = new RestClient(config);
    this.elector = this.newElector(options);
    const elector = this.elector;
    this.member = this.newShardMember(options);
    const member = this.member;
    this.leadership = member
      ? {
          isLeading: () => member.isAlive(),
          shard: { field: options.sharding?.field ?? 'uid', gate: member, onOpened: (l) => member.onOpened(l) },
        }
      : { isLeading: () => (elector ? elector.isLeading() : true) };
    this.clientRest = new RestClient(config);
    // client-go's rest_client_requests_total, shared by both transports.
    const observeRequest = restClientRequestMetrics(this.registry);
    this.clientRest.setRequestObserver(observeRequest);
    this.ownRest.setRequestObserver(observeRequest);
    this.fenceWrites();
    // One RESTMapper per Manager: registrations and discovery never leak into another Manager.
    this.mapper = new RESTMapper(this.clientRest);
    this.cache = newCache(config, {
      namespaces,
      logger: this.logger.child({ logger: 'cache' }),
      rest: this.clientRest,
      mapper: this.mapper,
      syncTimeoutMs: options.cache?.syncTimeoutMs,
      syncPeriodMs: options.cache?.syncPeriodMs,
      transform: options.cache?.transform,
      defaultLabelSelector: options.cache?.defaultLabelSelector,
      defaultFieldSelector: options.cache?.defaultFieldSelector,
      byObject: options.cache?.byObject,
      unsafeDisableDeepCopy: options.cache?.unsafeDisableDeepCopy,
      shardOf: member ? (r) => this.shardFieldOf(r) : undefined,
    });
    if (member && options.sharding) this.followShards(member, options.sharding.ring);
    this.client = newClient(config, {
      cache: this.cache,
      rest: this.clientRest,
      mapper: this.mapper,
      fieldOwner: options.fieldOwner ?? 'kubeforge-manager',
      fieldValidation: options.fieldValidation,
      cacheDisableFor: options.client?.cache?.disableFor,
      readYourOwnWrites: options.client?.readYourOwnWrites,
    });
    this.logWarningsOnce();
    this.broadcaster = new EventBroadcaster({ rest: this.ownRest, logger: this.logger.child({ logger: 'events' }) });
    this.groups = {
      servers: group('servers'),
      caches: group('caches'),
      others: group('others'),
      leader: group('leader'),
    };
    this.groups.caches.runnables.push(this.cache);
    const ws = options.webhookServer;
    // Duck-typed: a server from another copy of kubeforge/runtime is still a server.
    this.webhookServer = isWebhookServer(ws) ? ws : newWebhookServer(ws);
    this.webhookServer.useDefaults({ logger: this.logger.child({ logger: 'webhook' }), registry: this.registry });
    this.electedPromise = new Promise((r) => (this.electedResolve = r));
    this.startedPromise = new Promise((res, rej) => {
      this.startedResolve = res;
      this.startedReject = rej;
    });
    this.startedPromise.catch(() => undefined);
  }

  /** With `leaderElection`: the elector of this manager's Lease (its loss stops the manager). */
  private newElector(options: ManagerOptions): LeaderElector | undefined {
    // The constructor has checked that both are set when leaderElection is.
    const namespace = this.leaseNamespace;
    const name = options.leaderElectionID;
    if (!options.leaderElection || !namespace || !name) return undefined;
    const elector = new LeaderElector({
      rest: this.ownRest,
      namespace,
      name,
      identity: options.leaderElectionIdentity,
      leaseDurationMs: options.leaseDurationMs,
      renewDeadlineMs: options.renewDeadlineMs,
      retryPeriodMs: options.retryPeriodMs,
      logger: this.logger.child({ logger: 'leaderelection' }),
      gauge: this.leaderGauge,
      labels: options.leaderElectionLabels,
    });
    elector.onLost((reason) => this.leadershipLost(reason));
    return elector;
  }

  /** With `sharding`: this replica's ring membership (its options checked; its loss stops the manager). */
  private newShardMember(options: ManagerOptions): ShardMember | undefined {
    const sh = options.sharding;
    if (!sh) return undefined;
    if (typeof sh.ring !== 'string' || !sh.ring)
      throw new Error('sharding.ring must be set (a DNS-1123 label, the same on every replica)');
    if (sh.field !== undefined && sh.field !== 'uid' && sh.field !== 'namespace')
      throw new Error(`sharding.field must be "uid" or "namespace" (got ${JSON.stringify(sh.field)})`);
    const namespace = sh.namespace ?? options.leaderElectionNamespace ?? inClusterNamespace();
    if (!namespace)
      throw new Error('unable to find the sharding namespace: not running in-cluster; set sharding.namespace');
    const member = new ShardMember({
      rest: this.ownRest,
      namespace,
      ring: sh.ring,
      identity: sh.identity ?? options.leaderElectionIdentity,
      leaseDurationMs: options.leaseDurationMs,
      renewDeadlineMs: options.renewDeadlineMs,
      retryPeriodMs: options.retryPeriodMs,
      virtualNodes: sh.virtualNodes,
      field: sh.field ?? 'uid',
      drainTimeoutMs: sh.drainTimeoutMs,
      logger: this.logger.child({ logger: 'sharding' }),
      registry: this.registry,
    });
    member.onLost((reason) => this.leadershipLost(reason));
    return member;
  }

  /**
   * Refuses the client's writes unsent once this replica may no longer make them: after a lost
   * election (see fence.ts), or once a shard member's renewals stopped (frozen past its renew
   * deadline, or its Lease taken away: another replica may own its objects by now).
   */
  private fenceWrites(): void {
    const fenced = this.elector;
    if (fenced)
      this.clientRest.setWriteFence((what) => {
        if (fenced.hasLost()) throw new LeadershipLostError(what, fenced.lostBecause());
      });
    const member = this.member;
    if (member)
      this.clientRest.setWriteFence((what) => {
        if (member.fenced())
          throw new LeadershipLostError(
            what,
            `sharding membership lost: ${member.lostBecause() ?? 'not renewed in time'}`,
          );
      });
  }

  /** The cache follows the ring's ranges; the shard's object count is a gauge, its settling a readiness check. */
  private followShards(member: ShardMember, ring: string): void {
    member.onChange((open) => (this.cache as unknown as { setShardRanges(r: typeof open): void }).setShardRanges(open));
    const cache = this.cache as unknown as { shardedObjectCount(): number };
    new Gauge({
      name: 'kubeforge_shard_objects',
      help: "Objects this replica caches of the types it holds one shard of (under uid sharding: the controllers' for() types).",
      labelNames: ['ring'],
      registers: [this.registry],
      collect() {
        this.set({ ring }, cache.shardedObjectCount());
      },
    });
    this.readyChecks.set('shard-ring', () => {
      if (!member.settled())
        throw new Error(
          `this replica does not yet own its share of ring ${ring} (${member.liveMembers().length} live members)`,
        );
    });
  }

  /** As controller-runtime's KubeAPIWarningLogger: each distinct API warning logged once. */
  private logWarningsOnce(): void {
    const warned = new Set<string>();
    const warningLog = this.logger.child({ logger: 'KubeAPIWarningLogger' });
    this.clientRest.setWarningHandler((message) => {
      if (warned.has(message)) return;
      if (warned.size >= 1000) warned.clear(); // bounded: a long-lived manager may meet many
      warned.add(message);
      warningLog.info(message);
    });
  }

  getConfig(): KubeConfig {
    return this.config;
  }

  getClient(): Client {
    return this.client;
  }

  getAPIReader(): Reader {
    return this.client.apiReader();
  }

  getRESTMapper(): RESTMapper {
    return this.mapper;
  }

  getDiscoveryClient(): DiscoveryClient {
    this.discovery ??= new DiscoveryClient(this.clientRest);
    return this.discovery;
  }

  getCache(): Cache {
    return this.cache;
  }

  getLogger(): Logger {
    return this.logger;
  }

  getMetricsRegistry(): Registry {
    return this.withDefaultMetrics();
  }

  /** The registry to register metrics into, the default metrics not loaded (see client/prom.ts). */
  [registryToRegisterInto](): Registry {
    return this.registry;
  }

  /**
   * The registry, with prom-client's default process metrics registered first, as they were
   * when the registry was made. Loading them costs 60-200 ms, so a manager whose metrics nobody
   * reads or serves (most tests) never does; the first reader (getMetricsRegistry, the metrics
   * server) registers them ahead of the metrics registered so far, keeping the exposition order.
   * Their GC and event-loop observations start then, not at newManager.
   */
  private withDefaultMetrics(): Registry {
    if (this.defaultMetrics) return this.registry;
    this.defaultMetrics = true;
    const names = this.registry.getMetricsAsArray().map((m) => m.name);
    const registered = names.flatMap((name) => this.registry.getSingleMetric(name) ?? []);
    for (const name of names) this.registry.removeSingleMetric(name);
    collectDefaultMetrics({ register: this.registry });
    for (const m of registered) this.registry.registerMetric(m);
    return this.registry;
  }

  getWebhookServer(): WebhookServer {
    return this.webhookServer;
  }

  getEventRecorder(name: string): AnnotatedEventRecorder {
    let r = this.recorders.get(name);
    if (!r) {
      r = this.broadcaster.recorder(name);
      this.recorders.set(name, r);
    }
    return r;
  }

  /**
   * Under sharding, how the cache holds a type: one shard by `namespace` or `uid`, or whole
   * (undefined). Decided from the controllers' watches the first time an informer is made (they
   * are added before start): a type is sharded only when every controller that watches it agrees
   * (uid: the for() types of uid-sharded controllers; namespace: every namespaced type of
   * namespace-sharded controllers); a type some controller needs whole is cached whole.
   */
  private shardFieldOf(r: { apiVersion: string; kind: string; namespaced: boolean }): 'uid' | 'namespace' | undefined {
    if (!this.shardPlan) {
      const field = this.options.sharding?.field ?? 'uid';
      const votes = new Map<string, Set<string>>();
      for (const g of [this.groups.leader, this.groups.others])
        for (const c of g.runnables) {
          const shardVotes = (c as { shardVotes?: (f: 'uid' | 'namespace') => { type: string; vote: string }[] })
            .shardVotes;
          if (typeof shardVotes !== 'function') continue;
          const mine =
            g.name === 'leader'
              ? shardVotes.call(c, field)
              : shardVotes.call(c, field).map((v) => ({ ...v, vote: 'whole' }));
          for (const v of mine) {
            let set = votes.get(v.type);
            if (!set) {
              set = new Set();
              votes.set(v.type, set);
            }
            set.add(v.vote);
          }
        }
      this.shardPlan = new Map();
      for (const [type, set] of votes) {
        const only = set.size === 1 ? [...set][0] : undefined;
        if (only === 'uid' || only === 'namespace') this.shardPlan.set(type, only);
        else if (set.size > 1)
          this.log.info(
            { type, wanted: [...set].sort() },
            'sharding: controllers disagree on how to split this type; it is cached whole',
          );
      }
    }
    const f = this.shardPlan.get(`${r.apiVersion}/${r.kind}`);
    return f === 'namespace' && !r.namespaced ? undefined : f;
  }

  addHealthzCheck(name: string, check: Checker): void {
    if (this.healthChecks.has(name)) throw new Error(`healthz check ${JSON.stringify(name)} already exists`);
    this.healthChecks.set(name, check);
  }

  addReadyzCheck(name: string, check: Checker): void {
    if (this.readyChecks.has(name)) throw new Error(`readyz check ${JSON.stringify(name)} already exists`);
    this.readyChecks.set(name, check);
  }

  add(runnable: Runnable): void {
    const name: GroupName = isCacheLike(runnable)
      ? 'caches'
      : runnable.needLeaderElection?.() === false
        ? 'others'
        : 'leader';
    const g = this.groups[name];
    if (g.stopping) throw new Error('cannot add a runnable: the manager is shutting down');
    g.runnables.push(runnable);
    if (g.started) this.run(g, runnable);
  }

  elected(): Promise<void> {
    return this.electedPromise;
  }

  started(): Promise<void> {
    return this.startedPromise;
  }

  getHealthProbeAddress(): AddressInfo | undefined {
    return this.probeAddr;
  }

  getPprofAddress(): AddressInfo | undefined {
    return this.pprofAddr;
  }

  getMetricsAddress(): AddressInfo | undefined {
    return this.metricsAddr;
  }

  getMetricsServingCert(): string | undefined {
    return this.metricsCert;
  }

  getLeaderElectionIdentity(): string | undefined {
    return this.elector?.identity;
  }

  /**
   * @internal Under sharding, this replica's ring membership as kubeforge/runtime/multicluster
   * uses it (each replica engages the clusters whose name's point it owns); undefined otherwise.
   */
  shardMembership(): { allows(point: bigint): boolean; onChange(listener: () => void): void } | undefined {
    const m = this.member;
    return m ? { allows: (p) => m.allows(p), onChange: (l) => m.onChange(() => l()) } : undefined;
  }

  private run(g: Group, r: Runnable): void {
    const entry: Running = { runnable: r, done: Promise.resolve(), settled: false };
    const singleton =
      g.name === 'leader' && this.member && typeof (r as { shardVotes?: unknown }).shardVotes !== 'function';
    const index = g.runnables.indexOf(r);
    entry.done = (async () => {
      try {
        if (singleton) await this.runOnRing(g, r, index);
        else await (g.name === 'leader' ? r.start(g.ac.signal, this.leadership) : r.start(g.ac.signal));
      } catch (e) {
        if (g.ac.signal.aborted && (e as Error)?.name === 'AbortError') return;
        this.fail(e, `runnable in group ${g.name} failed`);
      } finally {
        entry.settled = true;
      }
    })();
    g.running.push(entry);
  }

  /**
   * Under sharding, a leader runnable that is not a controller (a user's task added with
   * `mgr.add()`) runs on one replica at a time: the owner of one point of the ring (from its
   * place among the runnables, the same on every replica). It starts when this replica takes
   * that point, and is stopped (its signal aborted, then awaited) when the point is handed over;
   * the hand-over waits for it, as for a reconcile.
   */
  private async runOnRing(g: Group, r: Runnable, index: number): Promise<void> {
    const member = this.member;
    if (!member) throw new Error('kubeforge/runtime: a runnable runs on the ring of a manager that is not sharded');
    const point = namedPoint(`runnable:${index}`);
    const signal = g.ac.signal;
    const pause = (ms: number) =>
      new Promise<void>((resolve) => {
        const t = setTimeout(done, ms);
        function done() {
          clearTimeout(t);
          signal.removeEventListener('abort', done);
          resolve();
        }
        signal.addEventListener('abort', done, { once: true });
      });
    while (!signal.aborted) {
      if (!member.allows(point)) {
        await pause(100);
        continue;
      }
      const ac = new AbortController();
      const onStop = () => ac.abort(signal.reason);
      signal.addEventListener('abort', onStop, { once: true });
      const end = member.track(point, () => ac.abort(new Error('handed over')));
      const watch = setInterval(() => {
        if (!member.allows(point)) ac.abort(new Error('handed over'));
      }, 100);
      try {
        await r.start(ac.signal, this.leadership);
      } catch (e) {
        if (!ac.signal.aborted) throw e;
      } finally {
        clearInterval(watch);
        signal.removeEventListener('abort', onStop);
        end();
      }
      if (!ac.signal.aborted) return; // it returned by itself: done, as any runnable
    }
  }

  /**
   * Leadership ended (see LeaderElector.isLeading): runs synchronously inside the check that
   * noticed it, so controllers stop before anything else happens; then the Manager stops.
   */
  private leadershipLost(reason: string): void {
    if (this.lostReason !== undefined) return;
    this.lostReason = reason;
    const leader = this.groups.leader;
    leader.stopping = true;
    leader.ac.abort();
    this.lostAC.abort();
    this.fail(
      this.member
        ? new LeaderElectionLostError(`${this.member.leaseName} (sharding ring ${this.options.sharding?.ring})`, reason)
        : new LeaderElectionLostError(`${this.leaseNamespace}/${this.options.leaderElectionID}`, reason),
      this.member ? 'sharding membership lost' : 'leader election lost',
    );
  }

  private startGroup(g: Group): void {
    g.started = true;
    for (const r of g.runnables) this.run(g, r);
  }

  private fail(e: unknown, msg: string): void {
    this.log.error({ err: e instanceof Error ? e.message : String(e) }, msg);
    if (this.fatal === undefined) this.fatal = e ?? new Error(msg);
    this.stopAC.abort();
  }

  /**
   * Waits for a group's runnables until the deadline (past it, a few ms so that runnables that
   * stop at once are not reported) or until `cut` aborts; returns the descriptions of those
   * still running (empty when all returned).
   */
  private async waitGroup(g: Group, deadline: number, cut?: AbortSignal): Promise<string[]> {
    const all = Promise.allSettled(g.running.map((e) => e.done)).then(() => true);
    if (deadline === Infinity && !cut) await all;
    else {
      const left = deadline === Infinity ? 2 ** 31 - 1 : Math.max(SETTLE_MS, deadline - Date.now());
      let t: NodeJS.Timeout | undefined;
      let onCut = (): void => {};
      const timeout = new Promise<boolean>((r) => {
        t = setTimeout(() => r(false), left);
        onCut = () => r(false);
        if (cut?.aborted) r(false);
        cut?.addEventListener('abort', onCut, { once: true });
      });
      await Promise.race([all, timeout]);
      clearTimeout(t);
      cut?.removeEventListener('abort', onCut);
    }
    return g.running.flatMap((e, i) => (e.settled ? [] : [describeRunnable(e.runnable, i)]));
  }

  private async startServers(): Promise<void> {
    const probeBind = parseBindAddress(this.options.healthProbeBindAddress, 'healthProbeBindAddress');
    if (probeBind) {
      const log = this.logger.child({ logger: 'healthz' });
      const srv = http.createServer(async (req, res) => {
        try {
          const onFailure = (name: string, err: string) => log.info({ checker: name, err }, 'healthz check failed');
          if (await serveChecks('/healthz', this.healthChecks, req, res, onFailure)) return;
          if (await serveChecks('/readyz', this.readyChecks, req, res, onFailure)) return;
          res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('404 page not found\n');
        } catch (e) {
          if (!res.headersSent) res.writeHead(500).end();
          log.error({ err: (e as Error).message }, 'probe request failed');
        }
      });
      this.probeServer = srv;
      this.probeAddr = await listen(srv, probeBind);
      this.log.info({ addr: `${this.probeAddr.address}:${this.probeAddr.port}` }, 'starting health probe server');
    }
    const pprofBind = parseBindAddress(this.options.pprofBindAddress, 'pprofBindAddress');
    if (pprofBind) {
      const { profilingHandler } = await import('./profiling.js');
      this.pprofServer = http.createServer(profilingHandler());
      this.pprofAddr = await listen(this.pprofServer, pprofBind);
      this.log.info(
        { addr: `${this.pprofAddr.address}:${this.pprofAddr.port}` },
        'starting pprof server (CPU profiles and heap snapshots)',
      );
    }
    const m = this.options.metrics ?? {};
    const metricsBind = parseBindAddress(m.bindAddress, 'metrics.bindAddress');
    if (metricsBind) {
      let tls: { cert: string; key: string } | undefined;
      let auth: DelegatingAuth | undefined;
      if (m.secureServing) {
        const c = servingCert(m);
        tls = c;
        this.metricsCert = c.cert;
        if (c.generated) this.log.info('metrics server: no certDir given, serving a self-signed certificate');
        if (m.authenticate !== false) auth = new DelegatingAuth(this.ownRest, this.logger.child({ logger: 'metrics' }));
      }
      const srv = metricsServer(m, this.withDefaultMetrics(), this.logger.child({ logger: 'metrics' }), auth, tls);
      this.metricsSrv = srv;
      this.metricsAddr = await listen(srv, metricsBind);
      this.log.info(
        { addr: `${this.metricsAddr.address}:${this.metricsAddr.port}`, secure: !!m.secureServing },
        'starting metrics server',
      );
    }
  }

  async start(signal?: AbortSignal): Promise<void> {
    if (this.startCalled) throw new Error('manager already started');
    this.startCalled = true;
    const onAbort = () => this.stopAC.abort();
    if (signal?.aborted) onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    const leAC = new AbortController();
    let leDone: Promise<void> = Promise.resolve();
    try {
      try {
        await this.startServers();
      } catch (e) {
        this.fail(e, 'failed to start servers');
      }
      if (this.webhookServer.hasHandlers()) this.groups.servers.runnables.push(this.webhookServer);
      else
        this.webhookServer.closeRegistration(
          'the manager started without webhooks, so this server is not serving; register webhooks before mgr.start()',
        );
      if (!this.stopAC.signal.aborted) {
        this.startGroup(this.groups.servers);
        if (this.webhookServer.hasHandlers()) {
          // Serve webhooks before the caches sync: the API server may call them at any time.
          await Promise.race([
            this.webhookServer.whenStarted().catch(() => undefined),
            new Promise((r) => this.stopAC.signal.addEventListener('abort', r, { once: true })),
          ]);
        }
      }
      if (!this.stopAC.signal.aborted) {
        if (this.member) {
          // Every controller is known now: decide the sharding plan (again, if an informer was
          // made before, e.g. by indexField) before any informer runs.
          this.shardPlan = undefined;
          (this.cache as unknown as { replanShards(): void }).replanShards();
        }
        this.startGroup(this.groups.caches);
        const stop = this.stopAC.signal;
        await Promise.all(this.groups.caches.runnables.filter(isCacheLike).map((c) => c.waitForCacheSync(stop)));
      }
      if (!this.stopAC.signal.aborted) {
        this.startGroup(this.groups.others);
        // Warm leader-only runnables (controllers with enableWarmup) before the election.
        for (const r of this.groups.leader.runnables) {
          if (r.warmup)
            void r
              .warmup(this.stopAC.signal)
              .catch((e: unknown) => this.log.error({ err: (e as Error)?.message ?? String(e) }, 'warmup failed'));
        }
        this.startedResolve();
        this.log.info('manager started');
        const elector = this.elector;
        const member = this.member;
        if (member) {
          leDone = (async () => {
            try {
              await member.join(leAC.signal);
              if (this.stopAC.signal.aborted) return;
              this.electedResolve();
              this.startGroup(this.groups.leader);
              await member.run(leAC.signal);
            } catch (e) {
              if (!leAC.signal.aborted) this.fail(e, 'sharding failed');
            }
          })();
        } else if (elector) {
          leDone = (async () => {
            try {
              if (!(await elector.acquire(leAC.signal))) return;
              if (this.stopAC.signal.aborted) return;
              this.electedResolve();
              this.startGroup(this.groups.leader);
              // A loss is reported synchronously through onLost (leadershipLost).
              await elector.hold(leAC.signal);
            } catch (e) {
              this.fail(e, 'leader election failed');
            }
          })();
        } else {
          this.electedResolve();
          this.startGroup(this.groups.leader);
        }
      } else {
        this.startedReject(this.fatal ?? new Error('manager stopped before it started'));
      }
      if (!this.stopAC.signal.aborted)
        await new Promise<void>((r) => this.stopAC.signal.addEventListener('abort', () => r(), { once: true }));
    } finally {
      signal?.removeEventListener('abort', onAbort);
      await this.shutdown(leAC, leDone);
    }
  }

  private async shutdown(leAC: AbortController, leDone: Promise<void>): Promise<void> {
    // A stopping replica takes no new range while its controllers drain.
    this.member?.stopClaiming();
    this.startedReject(this.fatal ?? new Error('manager stopped before it started'));
    // controller-runtime skips the graceful wait once leadership is lost: another replica may
    // already lead, and nothing the old leader still runs should delay its exit.
    const grace = this.lostReason !== undefined ? 0 : this.grace;
    let deadline = grace < 0 ? Infinity : Date.now() + grace;
    this.log.info({ gracePeriodMs: grace }, 'stopping and waiting for runnables');
    const pending: string[] = [];
    const stopGroup = async (g: Group, cut?: AbortSignal) => {
      g.stopping = true;
      g.ac.abort();
      const left = await this.waitGroup(g, deadline, cut);
      pending.push(...left.map((d) => `${g.name}: ${d}`));
      return left;
    };
    // Controllers first: their in-flight reconciles finish while we still hold (and renew) the
    // lease; losing it meanwhile ends the wait.
    const leaderLeft = await stopGroup(
      this.groups.leader,
      this.elector || this.member ? this.lostAC.signal : undefined,
    );
    if (this.lostReason !== undefined) {
      deadline = Math.min(deadline, Date.now());
      if (leaderLeft.length)
        this.log.error(
          { stillRunning: leaderLeft },
          'leadership lost: not waiting for the leader runnables still running (no new work is handed out)',
        );
    }
    leAC.abort();
    await leDone;
    // A sharded replica leaves its ring once no reconcile runs: the others take its ranges at once.
    if (this.member && this.lostReason === undefined) {
      if (leaderLeft.length === 0) await this.member.leave();
      else
        this.log.warn(
          { stillRunning: leaderLeft },
          'not leaving the sharding ring: controllers outlived the grace period; the member Lease expires after leaseDurationMs',
        );
    }
    if (this.elector && this.options.leaderElectionReleaseOnCancel !== false) {
      // Released only when no reconcile runs any more: a standby could start beside it otherwise.
      if (leaderLeft.length === 0) await this.elector.release();
      else if (this.lostReason === undefined)
        this.log.warn(
          { stillRunning: leaderLeft },
          'not releasing the leader lease: leader runnables outlived the grace period; it expires after leaseDurationMs',
        );
    }
    await stopGroup(this.groups.others);
    await stopGroup(this.groups.caches);
    // Pending events are written while the client still works.
    const left = deadline === Infinity ? 5_000 : Math.max(0, deadline - Date.now());
    if (left > 0) {
      let flushTimer: NodeJS.Timeout | undefined;
      await Promise.race([
        this.broadcaster.flush(),
        new Promise((r) => (flushTimer = setTimeout(r, Math.min(left, 5_000)))),
      ]);
      clearTimeout(flushTimer);
    }
    await stopGroup(this.groups.servers);
    const closeMs = deadline === Infinity ? 1_000 : Math.min(1_000, Math.max(0, deadline - Date.now()));
    await Promise.all([
      this.probeServer ? close(this.probeServer, closeMs) : undefined,
      this.pprofServer ? close(this.pprofServer, closeMs) : undefined,
      this.metricsSrv ? close(this.metricsSrv, closeMs) : undefined,
    ]);
    this.ownRest.close();
    this.clientRest.close();
    this.log.info('all runnables stopped');
    if (this.fatal !== undefined) throw this.fatal;
    if (pending.length) throw new GracefulShutdownTimeoutError(grace, pending);
  }
}

/**
 * A manager-wide signal is listened to by every informer, controller and server it runs: more than
 * Node's default of ten is the design, not a leak, so the warning is turned off for it.
 */
function manySubscribers(ac: AbortController): AbortController {
  setMaxListeners(0, ac.signal);
  return ac;
}

/** A runnable group, empty and not started. */
function group(name: GroupName): Group {
  return {
    name,
    runnables: [],
    ac: manySubscribers(new AbortController()),
    running: [],
    started: false,
    stopping: false,
  };
}

/** The namespaces the manager's cache watches: cache.defaultNamespaces, else WATCH_NAMESPACE (comma-separated); none is all. */
function cacheNamespaces(options: ManagerOptions): string[] {
  const dn = options.cache?.defaultNamespaces;
  return (dn === undefined ? (process.env.WATCH_NAMESPACE ?? '').split(',') : Array.isArray(dn) ? dn : Object.keys(dn))
    .map((n) => n.trim())
    .filter(Boolean);
}
