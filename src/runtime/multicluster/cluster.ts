/**
 * One cluster a multi-cluster manager works on (controller-runtime's cluster.Cluster, as
 * multicluster-runtime hands it around): its own connection, RESTMapper, informer cache and
 * client, built with the same machinery as the manager's own (newCache, newClient, RESTMapper).
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import pino from 'pino';
import { newCache, type CacheOptions } from '../cache/index.js';
import { newClient } from '../client/client.js';
import { RestClient } from '../client/rest.js';
import { RESTMapper } from '../client/restmapper.js';
import type { Cache, Client, FieldValidation, Reader } from '../contracts.js';
import { checkOptions } from '../options.js';

/**
 * A cluster: what `mgr.getCluster(req.clusterName)` returns. `name` is '' for the manager's own
 * (host) cluster. Its client reads from its cache and writes to its API server.
 */
export interface Cluster {
  /** The name its provider engaged it under ('' for the host cluster). */
  readonly name: string;
  /** The KubeConfig it talks to its API server with. */
  readonly config: KubeConfig;
  /** Reads from this cluster's cache (informers start on first use), writes to its API server. */
  readonly client: Client;
  /** Reads live from this cluster's API server (no cache). */
  readonly apiReader: Reader;
  /** This cluster's informer cache. */
  readonly cache: Cache;
  /** This cluster's RESTMapper (discovery of this cluster's API server, its own registrations). */
  readonly restMapper: RESTMapper;
}

/** A cluster made by {@link newCluster}: runs its cache until the signal given to start() aborts. */
export interface RunnableCluster extends Cluster {
  /** Starts the cache; resolves once it stopped (the signal aborted) and the connection closed. */
  start(signal: AbortSignal): Promise<void>;
}

/** Options of {@link newCluster}. */
export interface ClusterOptions {
  /** Cache options (as newCache's; its transport and mapper are the cluster's own). */
  cache?: Omit<CacheOptions, 'rest' | 'mapper' | 'logger'>;
  /** Field manager of the client's writes (default "kubeforge-manager"). */
  fieldOwner?: string;
  /** Field validation of the client's writes (default: the server's). */
  fieldValidation?: FieldValidation;
  /** Logger of the cache (default: silent). */
  logger?: Logger;
}

/**
 * Builds a cluster on `config`: a connection, a RESTMapper, an informer cache and a client of its
 * own. Nothing is listed until `start(signal)`; aborting the signal stops every informer of the
 * cluster and closes its connection.
 */
export function newCluster(name: string, config: KubeConfig, options: ClusterOptions = {}): RunnableCluster {
  checkOptions('newCluster', options, { cache: true, fieldOwner: true, fieldValidation: true, logger: true });
  const rest = new RestClient(config);
  const restMapper = new RESTMapper(rest);
  const logger = options.logger ?? pino({ level: 'silent' });
  const cache = newCache(config, {
    ...options.cache,
    rest,
    mapper: restMapper,
    logger: logger.child({ cluster: name }),
  });
  const client = newClient(config, {
    cache,
    rest,
    mapper: restMapper,
    fieldOwner: options.fieldOwner ?? 'kubeforge-manager',
    fieldValidation: options.fieldValidation,
  });
  let started = false;
  return {
    name,
    config,
    client,
    apiReader: client.apiReader(),
    cache,
    restMapper,
    async start(signal: AbortSignal) {
      if (started) throw new Error(`kubeforge/runtime: cluster ${JSON.stringify(name)} already started`);
      started = true;
      try {
        await cache.start(signal);
      } finally {
        rest.close();
      }
    },
  };
}
