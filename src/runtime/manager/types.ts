/**
 * The manager as the builders see it: what \`controllerManagedBy(mgr)\` and \`webhookManagedBy(mgr)\`
 * need. Kept out of contracts.ts, which the parts it names (discovery, the webhook server, the
 * recorders) import themselves.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { DiscoveryClient } from '../client/discovery.js';
import type { RESTMapper } from '../client/restmapper.js';
import type { Cache, Client, Runnable } from '../contracts.js';
import type { WebhookServer } from '../webhook/server.js';
import type { EventRecorder, LegacyEventRecorder } from './events.js';

/**
 * What the controller builder needs from a manager. The kubeforge Manager implements it; tests
 * may hand-roll one.
 */
export interface ControllerManagerLike {
  /** The KubeConfig the manager talks to the cluster with (controller-runtime's GetConfig). */
  getConfig(): KubeConfig;
  /** A discovery client: server version, API groups, resources of a group/version (GetDiscoveryClient). */
  getDiscoveryClient(): DiscoveryClient;
  getCache(): Cache;
  /**
   * The manager's RESTMapper (optional for hand-written managers): the builders resolve `for()`,
   * `owns()` and webhook types through it, so kinds registered on it need no statics.
   */
  getRESTMapper?(): RESTMapper;
  getClient(): Client;
  getLogger(): Logger;
  getMetricsRegistry(): Registry;
  add(runnable: Runnable): void;
  /**
   * The manager's webhook server (always one; started with the manager's servers only if
   * webhooks are registered on it). What `webhookManagedBy(mgr)` registers on.
   */
  getWebhookServer(): WebhookServer;
  /**
   * A recorder of events.k8s.io/v1 Events reporting as `name` (controller-runtime 0.23's
   * GetEventRecorder): `eventf(regarding, related, type, reason, action, note, ...args)`.
   * Needs RBAC `@Rbac({ groups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] })`.
   */
  getEventRecorder(name: string): EventRecorder;
  /**
   * @deprecated Use getEventRecorder. A recorder of core/v1 Events (controller-runtime's
   * GetEventRecorderFor, client-go's record.EventRecorder); needs
   * `@Rbac({ groups: ['core'], resources: ['events'], verbs: ['create', 'patch'] })`.
   */
  getEventRecorderFor(name: string): LegacyEventRecorder;
}
