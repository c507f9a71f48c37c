/**
 * The Manager interface (controller-runtime's manager.Manager): what `newManager` returns, what
 * `setupWithManager(mgr)` and the builders (`controllerManagedBy`, `webhookManagedBy`) take. Kept
 * out of contracts.ts, which the parts it names (discovery, the webhook server, the recorders)
 * import themselves.
 */
import type { AddressInfo } from 'node:net';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { DiscoveryClient } from '../client/discovery.js';
import type { RESTMapper } from '../client/restmapper.js';
import type { Cache, Client, Reader, Runnable } from '../contracts.js';
import type { WebhookServer } from '../webhook/server.js';
import type { AnnotatedEventRecorder } from './events.js';
import type { Checker } from './healthz.js';

/**
 * Owns the client, cache, controllers, metrics and probe servers and leader election (built by
 * `newManager`). Lifecycle: `start(signal)` starts, in order, the probe and metrics
 * servers (and webhook server), the caches (waiting for their sync), the runnables that need no
 * leader, then, once elected (immediately without leader election), the leader runnables
 * (controllers). On abort it stops them in reverse order: controllers first (their in-flight
 * reconciles finish), then the lease is released (only if they all did), then the rest; all
 * within `gracefulShutdownTimeoutMs`.
 * On error: a runnable that rejects stops everything the same way and start() rejects with that
 * error. Lost leadership (another holder, or no renewal within the renew deadline by this
 * process's monotonic clock) first stops handing out work (controllers ask the lease before every
 * dequeue) and the client refuses writes (LeadershipLostError, unsent), then stops everything
 * without a grace period and start() rejects with a LeaderElectionLostError; a non-retryable
 * lease API answer rejects with a LeaderElectionError.
 * On requeue: not the Manager's business (controllers requeue).
 */
export interface Manager {
  /** The KubeConfig the Manager talks to the cluster with (controller-runtime's GetConfig). */
  getConfig(): KubeConfig;

  /**
   * The client: reads from the cache (informers start on first use), writes to the API server.
   * Reads before start() reject with CacheNotStartedError.
   */
  getClient(): Client;

  /** A reader that always reads live from the API server (no cache, works before start()). */
  getAPIReader(): Reader;

  /**
   * This Manager's RESTMapper (its client and cache resolve types through it): register kinds
   * whose classes carry no statics with `register()`; discovery results are kept here, never
   * shared with another Manager.
   */
  getRESTMapper(): RESTMapper;

  /**
   * A discovery client on the Manager's connection (GetDiscoveryClient; client-go's DiscoveryClient):
   * the server's version, its API groups and the resources of a group/version. Each call asks the server.
   */
  getDiscoveryClient(): DiscoveryClient;

  /** The shared informer cache (started by start(), before the controllers). */
  getCache(): Cache;

  /** The root pino logger; controllers derive `logger.child({ controller, namespace, name, reconcileID })`. */
  getLogger(): Logger;

  /** This Manager's prom-client Registry (not the global one), served on /metrics. */
  getMetricsRegistry(): Registry;

  /**
   * The webhook server: the one given in the options, or one built from the given (or default)
   * options. Register webhooks on it (`webhookManagedBy(mgr)`) before start(); a server without
   * handlers is not started.
   */
  getWebhookServer(): WebhookServer;

  /**
   * A recorder of events.k8s.io/v1 Events whose `reportingController` is `name`
   * (controller-runtime 0.23's GetEventRecorder): `eventf(regarding, related, type, reason,
   * action, note, ...args)`. Recording is fire-and-forget: errors are logged (a 403 once, at error
   * level, with the missing `@Rbac({ groups: ['events.k8s.io'], resources: ['events'], verbs:
   * ['create', 'patch'] })`); the Manager flushes pending events on shutdown. One recorder per name.
   */
  getEventRecorder(name: string): AnnotatedEventRecorder;

  /**
   * Adds a health check served on /healthz and /healthz/<name>. Throws if the name is taken.
   * A failing check makes /healthz answer 500 (the kubelet then restarts the pod).
   */
  addHealthzCheck(name: string, check: Checker): void;

  /**
   * Adds a readiness check served on /readyz and /readyz/<name>. Throws if the name is taken.
   * A failing check makes /readyz answer 500 (the pod leaves its Services' endpoints).
   */
  addReadyzCheck(name: string, check: Checker): void;

  /**
   * Adds a runnable. Objects with `waitForCacheSync` join the caches; `needLeaderElection()`
   * false runs on every replica; anything else (controllers) only on the leader. Added after
   * start(), it starts at once if its group is running. Throws once shutdown has begun.
   */
  add(runnable: Runnable): void;

  /** Resolves once this replica leads (at once after start() without leader election). Never rejects. */
  elected(): Promise<void>;

  /**
   * Resolves once the servers listen, the caches are synced and the non-leader runnables run
   * (the probe and metrics addresses are then known). Rejects if start() fails before that.
   */
  started(): Promise<void>;

  /** The probe server's bound address after it started (undefined if disabled or not started). */
  getHealthProbeAddress(): AddressInfo | undefined;

  /** The profiling server's bound address after it started (undefined if disabled or not started). */
  getPprofAddress(): AddressInfo | undefined;

  /** The metrics server's bound address after it started (undefined if disabled or not started). */
  getMetricsAddress(): AddressInfo | undefined;

  /** The PEM certificate the secure metrics server serves (self-signed unless certDir was given). */
  getMetricsServingCert(): string | undefined;

  /** The leader elector's identity, when leader election is on. */
  getLeaderElectionIdentity(): string | undefined;

  /**
   * Runs everything until `signal` aborts, then shuts down in order (see the class comment).
   * Resolves after a clean shutdown. Rejects with: the first runnable's error; a
   * LeaderElectionLostError; a GracefulShutdownTimeoutError when runnables outlive
   * `gracefulShutdownTimeoutMs`; or a listen error (port in use) before anything else started.
   * Calling it twice rejects.
   */
  start(signal?: AbortSignal): Promise<void>;
}
