/** The cache's typed errors. */

/**
 * A read waited longer than the sync timeout (`syncTimeoutMs`, Manager option
 * `cache.syncTimeoutMs`) for an informer's first list, or a controller's sources did not sync
 * within its `cacheSyncTimeoutMs`. Usually RBAC (the list is forbidden) or an unreachable server;
 * a kind that is not served fails at once with a NoKindMatchError instead.
 */
export class CacheSyncTimeoutError extends Error {
  constructor(
    message: string,
    /** The kinds that had not synced. */
    readonly kinds: string[],
    readonly timeoutMs: number,
  ) {
    super(message);
    this.name = 'CacheSyncTimeoutError';
  }
}

/**
 * A cached read of a namespace the cache does not watch (its `defaultNamespaces` /
 * WATCH_NAMESPACE leave it out). Read it with the API reader, or add the namespace.
 */
export class NamespaceNotWatchedError extends Error {
  constructor(
    readonly namespace: string,
    readonly watched: readonly string[],
    kind: string,
  ) {
    super(
      `kubeforge/runtime: the cache only watches ${watched.length === 1 ? 'namespace' : 'namespaces'} ${watched.map((n) => `"${n}"`).join(', ')}; cannot read ${kind} in "${namespace}" (use the API reader, or add it to cache.defaultNamespaces)`,
    );
    this.name = 'NamespaceNotWatchedError';
  }
}

/**
 * A cached list with a field selector on a field that has no index: register one with
 * `cache.indexField(type, field, extractor)` before the cache starts.
 */
export class MissingIndexError extends Error {
  constructor(
    readonly kind: string,
    readonly field: string,
  ) {
    super(
      `kubeforge/runtime: field selector "${field}" on ${kind} needs an index: call cache.indexField(${kind}, '${field}', extractor) before starting (or use metadata.name / metadata.namespace)`,
    );
    this.name = 'MissingIndexError';
  }
}
