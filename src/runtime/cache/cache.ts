/**
 * The informer cache (controller-runtime's cache.Cache): one SharedInformer per type, created on
 * first use, all started by `start(signal)`, reads served from memory.
 */
import { setMaxListeners } from 'node:events';
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import pino from 'pino';
import type { Logger } from 'pino';
import type {
  Cache,
  GetOptions,
  HandlerRegistration,
  IndexExtractor,
  Informer,
  ListOptions,
  ObjectKey,
  ObjectList,
  ResourceEventHandler,
  ResourceInfo,
  TypeRef,
} from '../contracts.js';
import { NotFoundError } from '../client/errors.js';
import { RESTMapper } from '../client/restmapper.js';
import { RestClient } from '../client/rest.js';
import { matchesLabels, parseFieldSelector, parseLabelSelector, selectorString } from '../client/selector.js';
import type { Selector } from '../../util/apimachinery/labels.js';
import { fullType, isMetadataOnly } from '../client/types.js';
import { SharedInformer, nameOfKey, objectKey } from './informer.js';
import { CacheSyncTimeoutError, MissingIndexError, NamespaceNotWatchedError } from './errors.js';
import { checkOptions, type OptionNames } from '../options.js';
import { GET_NAMES, LIST_NAMES } from '../client/client.js';
export { CacheSyncTimeoutError, MissingIndexError, NamespaceNotWatchedError } from './errors.js';
import type { InformerStore, StoreEntry } from './informer.js';
import type { SharedInformerOptions } from './informer.js';
import type { HashRange, ShardField, ShardSpec } from '../sharding/index.js';
import { untraced } from '../tracing.js';

/** Options of `newCache`. */
export interface CacheOptions {
  /**
   * Restrict namespaced types to these namespaces (controller-runtime's DefaultNamespaces,
   * WATCH_NAMESPACE): one list+watch per namespace and type; `list` without a namespace merges
   * them. Reads of other namespaces reject with an Error. Cluster-scoped types are always watched
   * cluster-wide. Empty or absent: all namespaces.
   */
  namespaces?: string[];
  /** Logger for informer warnings (default: silent). */
  logger?: Logger;
  /** How long `get`/`list` wait for a new informer's first list before rejecting (ms). Default 120 000. */
  syncTimeoutMs?: number;
  /**
   * Applied to every object before caching (e.g. strip metadata.managedFields to save memory).
   * It sees the object as the server sent it (timestamps still strings); readers and handlers then
   * get Dates where client-node declares them.
   */
  transform?: (obj: KubernetesObject) => KubernetesObject;
  /** Share an existing transport. */
  rest?: RestClient;
  /** The RESTMapper types resolve through (the Manager's); default: a new one of this cache's own. */
  mapper?: RESTMapper;
  /**
   * Re-deliver every cached object to handlers as an update this often (ms, jittered); controllers
   * then reconcile everything again (unless a predicate such as GenerationChangedPredicate drops
   * it). controller-runtime's SyncPeriod; default 10 hours; 0 disables.
   */
  syncPeriodMs?: number;
  /**
   * Cache only objects matching this label selector (`app=web,tier!=db`), for every type without
   * its own in `byObject` (controller-runtime's DefaultLabelSelector). Reads of other objects find
   * nothing: a `get` of one is NotFound. A string or a Selector (`parseSelector`, `labelSelectorAsSelector`).
   */
  defaultLabelSelector?: string | Selector;
  /** The same with a field selector (controller-runtime's DefaultFieldSelector), e.g. `metadata.name!=x`. */
  defaultFieldSelector?: string;
  /**
   * Per-type settings over the defaults (controller-runtime's ByObject): what to cache of one
   * type (`labelSelector`, `fieldSelector`), how to `transform` it, and its `syncPeriodMs`.
   */
  byObject?: CacheByObject[];
  /**
   * Reads (`get`, `list`) and event handlers receive the cached object itself instead of a copy
   * (controller-runtime's cache.Options.DefaultUnsafeDisableDeepCopy / UnsafeDisableDeepCopy).
   * Saves the parse of every read, and the informer keeps parsed objects instead of their JSON
   * text (more memory per object). Dangerous: mutating an object you read changes the cache for
   * every reader and handler (until the next event of that object replaces it), and the change is
   * not sent to the API server. Copy first (`structuredClone(obj)`) when you must change one.
   * Default false; `byObject[].unsafeDisableDeepCopy` overrides it per type.
   */
  unsafeDisableDeepCopy?: boolean;
  /** Informer back-off tuning (tests). */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /**
   * @internal A sharded Manager's choice of which types the cache holds one shard of, and by
   * which field (undefined: the whole type). Their informers start with the ranges last given to
   * `setShardRanges` (none: they hold nothing until then). A type's own `byObject[].shard` wins.
   */
  shardOf?: (resource: ResourceInfo, metadataOnly: boolean) => ShardField | undefined;
}

/** The cache settings of one type (see CacheOptions.byObject). */
export interface CacheByObject {
  /**
   * The type: a class with static gvk, a client-node model class, or `{ apiVersion, kind }`; or
   * `metadataOnly(type)` for the settings of that type's metadata-only informer (otherwise the
   * type's entry applies to both).
   */
  object: TypeRef;
  /** Cache only these objects of the type (instead of defaultLabelSelector): a string or a Selector. */
  labelSelector?: string | Selector;
  /** Cache only these objects of the type (instead of defaultFieldSelector). */
  fieldSelector?: string;
  /** Applied to this type's objects before caching (instead of the cache's transform). */
  transform?: (obj: KubernetesObject) => KubernetesObject;
  /** This type's resync period (instead of syncPeriodMs). */
  syncPeriodMs?: number;
  /** Hand out cached objects without copying for this type (instead of the cache's unsafeDisableDeepCopy). */
  unsafeDisableDeepCopy?: boolean;
  /**
   * Cache this (namespaced) type in these namespaces only, each with its own settings over the
   * type's (controller-runtime's `ByObject.Namespaces map[string]cache.Config`): `{ 'team-a': {} }`
   * caches the type's objects of team-a alone, instead of the cache's `namespaces` (or all). A
   * list and watch per namespace, so the manager needs RBAC for the type in those namespaces only:
   * a Role there (`@Rbac({ ..., namespace: 'team-a' })`), no ClusterRole. Reads of another
   * namespace reject with NamespaceNotWatchedError. Ignored for a cluster-scoped type.
   */
  namespaces?: Record<string, CacheNamespaceSettings>;
  /**
   * @internal Cache one shard of this type: the objects whose uid or namespace hashes into the
   * given ranges (see SharedInformerOptions.shard). Internal until issue #39's membership and
   * hand-over exist.
   */
  shard?: ShardSpec;
}

/** The settings of one namespace of a type's `byObject[].namespaces` (absent ones: the type's). */
export interface CacheNamespaceSettings {
  labelSelector?: string;
  fieldSelector?: string;
  transform?: (obj: KubernetesObject) => KubernetesObject;
  unsafeDisableDeepCopy?: boolean;
}

/** The keys of `o` whose value is not undefined (a namespace's settings laid over its type's). */
function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** Thrown by reads before `start()` was called (controller-runtime's ErrCacheNotStarted). */
export class CacheNotStartedError extends Error {
  constructor() {
    super('kubeforge/runtime: the cache is not started; reads need Manager.start() (or cache.start()) first');
    this.name = 'CacheNotStartedError';
  }
}

/** The names {@link CacheOptions} takes (any other is refused). */
const CACHE_OPTION_NAMES: OptionNames<CacheOptions> = {
  namespaces: true,
  logger: true,
  syncTimeoutMs: true,
  transform: true,
  rest: true,
  mapper: true,
  syncPeriodMs: true,
  defaultLabelSelector: true,
  defaultFieldSelector: true,
  byObject: true,
  unsafeDisableDeepCopy: true,
  initialBackoffMs: true,
  maxBackoffMs: true,
  shardOf: true,
};

/** The names {@link CacheByObject} takes. */
export const CACHE_BY_OBJECT_NAMES: OptionNames<CacheByObject> = {
  object: true,
  labelSelector: true,
  fieldSelector: true,
  transform: true,
  syncPeriodMs: true,
  unsafeDisableDeepCopy: true,
  namespaces: true,
  shard: true,
};

/** Refuses unknown names in `options` and its byObject entries (see ../options.ts). */
function checkCacheOptions(options: CacheOptions): void {
  checkOptions('newCache', options, CACHE_OPTION_NAMES, {
    namespace: 'namespaces',
    defaultNamespaces: 'namespaces',
    syncPeriod: 'syncPeriodMs',
    syncTimeout: 'syncTimeoutMs',
  });
  for (const [i, entry] of (Array.isArray(options.byObject) ? options.byObject : []).entries()) {
    checkOptions(`newCache: byObject[${i}]`, entry, CACHE_BY_OBJECT_NAMES, { syncPeriod: 'syncPeriodMs' });
    for (const [ns, settings] of Object.entries(entry?.namespaces ?? {}))
      checkOptions(`newCache: byObject[${i}].namespaces[${JSON.stringify(ns)}]`, settings, CACHE_NAMESPACE_NAMES);
  }
}

/** The names {@link CacheNamespaceSettings} takes. */
const CACHE_NAMESPACE_NAMES: OptionNames<CacheNamespaceSettings> = {
  labelSelector: true,
  fieldSelector: true,
  transform: true,
  unsafeDisableDeepCopy: true,
};

/**
 * Creates the informer cache. Nothing is listed until `start(signal)`; informers requested later
 * start immediately. On shutdown (signal aborted) every watch is closed and start() resolves.
 * List/watch failures never reject start(): informers log and retry with back-off.
 */
export function newCache(config: KubeConfig, options: CacheOptions = {}): InformerCache {
  checkCacheOptions(options);
  return new InformerCache(options.rest ?? new RestClient(config), options);
}

/** See `newCache`. */
export class InformerCache implements Cache {
  /** `apiVersion/kind` (cluster-wide or one namespace) or `apiVersion/kind@namespace` (several). */
  private readonly informers = new Map<string, SharedInformer>();
  /** The ranges informers chosen by `shardOf` hold (see setShardRanges). */
  private shardRanges: readonly HashRange[] = [];
  /** Informers sharded by their type's own `byObject[].shard` (fixed ranges; setShardRanges leaves them). */
  private readonly byObjectShard = new Set<string>();
  private readonly resolver: RESTMapper;
  private readonly logger: Logger;
  /** Sorted; empty means all namespaces. */
  private readonly namespaces: string[];
  private signal?: AbortSignal;
  private readonly runs: Promise<void>[] = [];

  constructor(
    private readonly rest: RestClient,
    private readonly options: CacheOptions,
  ) {
    this.resolver = options.mapper ?? new RESTMapper(rest);
    this.logger = options.logger ?? pino({ level: 'silent' });
    const ns = options.namespaces ?? [];
    this.namespaces = [...new Set(ns.filter(Boolean))].sort();
  }

  /** The cache needs no leader: every replica keeps its own. */
  needLeaderElection(): boolean {
    return false;
  }

  /** Starts all informers and runs until `signal` aborts; then resolves after every watch closed. */
  async start(signal: AbortSignal): Promise<void> {
    if (this.signal) throw new Error('kubeforge/runtime: cache already started');
    this.signal = signal;
    for (const inf of this.informers.values()) this.runs.push(inf.run(signal));
    await new Promise<void>((resolve) => {
      if (signal.aborted) return resolve();
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
    await Promise.all(this.runs);
  }

  /** True once `start` has been called. */
  isStarted(): boolean {
    return this.signal !== undefined;
  }

  /** The namespaces namespaced types are restricted to (empty: all). */
  getNamespaces(): readonly string[] {
    return this.namespaces;
  }

  async waitForCacheSync(signal?: AbortSignal): Promise<boolean> {
    const all = [...this.informers.values()];
    const results = await Promise.all(all.map((i) => i.waitForSync(anySignal(signal, this.signal))));
    return results.every(Boolean);
  }

  /** Resolves the REST coordinates of a type (shared discovery cache). */
  resolve(type: TypeRef | KubernetesObject): Promise<ResourceInfo> {
    return this.resolver.resolve(type);
  }

  /**
   * The shared informer of the type; with several namespaces and a namespaced type, one informer
   * that fans handlers out to the informer of each namespace (controller-runtime's
   * multiNamespaceInformer).
   */
  async getInformer<T extends KubernetesObject>(type: TypeRef<T>): Promise<Informer<T>> {
    const infs = await this.informersFor(type);
    return (infs.length === 1 ? infs[0] : new MultiNamespaceInformer(infs)) as unknown as Informer<T>;
  }

  /**
   * Like getInformer, typed as kubeforge's SharedInformer (stats, store). With several
   * namespaces, a namespaced type has one informer per namespace: this throws, use informersFor.
   */
  async informerFor(type: TypeRef | KubernetesObject): Promise<SharedInformer> {
    const infs = await this.informersFor(type);
    if (infs.length !== 1)
      throw new Error(
        `kubeforge/runtime: ${infs[0].resource.kind} is watched in ${infs.length} namespaces; use informersFor()`,
      );
    return infs[0];
  }

  /** The informers of a type: one, or one per namespace (sorted by namespace) for a namespaced type with several. */
  async informersFor(type: TypeRef | KubernetesObject): Promise<SharedInformer[]> {
    // metadataOnly(type): a separate informer of the same kind (controller-runtime keys its
    // informers by GVK and by whether they hold PartialObjectMetadata).
    const meta = isMetadataOnly(type);
    const r = await this.resolver.resolve(meta ? fullType(type) : type);
    const own = await this.settingsOf(r, meta);
    const k = `${meta ? 'metadata:' : ''}${r.apiVersion}/${r.kind}`;
    const namespaces = this.namespacesOf(r, own);
    if (!r.namespaced || namespaces.length === 0) return [this.informerIn(r, undefined, k, own, meta)];
    const inNamespace = (n: string): CacheByObject | undefined =>
      own?.namespaces?.[n] ? { ...own, ...definedOnly(own.namespaces[n]) } : own;
    if (namespaces.length === 1) return [this.informerIn(r, namespaces[0], k, inNamespace(namespaces[0]), meta)];
    return namespaces.map((n) => this.informerIn(r, n, `${k}@${n}`, inNamespace(n), meta));
  }

  /** The namespaces a namespaced type is cached in (sorted; empty: all): its byObject entry's, else the cache's. */
  private namespacesOf(r: ResourceInfo, own: CacheByObject | undefined): string[] {
    if (!r.namespaced) return [];
    return own?.namespaces ? Object.keys(own.namespaces).sort() : this.namespaces;
  }

  /** byObject's entries by `apiVersion/kind`, resolved once. */
  private byObject?: Promise<Map<string, CacheByObject>>;

  private settingsOf(r: ResourceInfo, metadata: boolean): Promise<CacheByObject | undefined> {
    this.byObject ??= Promise.all(
      (this.options.byObject ?? []).map(async (b) => [await this.resolver.resolve(fullType(b.object)), b] as const),
    ).then(
      (entries) =>
        new Map(
          entries.map(([info, b]) => [
            `${isMetadataOnly(b.object) ? 'metadata:' : ''}${info.apiVersion}/${info.kind}`,
            b,
          ]),
        ),
    );
    return this.byObject.then(
      (m) => (metadata ? m.get(`metadata:${r.apiVersion}/${r.kind}`) : undefined) ?? m.get(`${r.apiVersion}/${r.kind}`),
    );
  }

  private informerIn(
    r: ResourceInfo,
    namespace: string | undefined,
    k: string,
    own: CacheByObject | undefined,
    metadataOnly: boolean,
  ): SharedInformer {
    let inf = this.informers.get(k);
    if (!inf) {
      const o: SharedInformerOptions = {
        namespace,
        logger: this.logger,
        transform: own?.transform ?? this.options.transform,
        initialBackoffMs: this.options.initialBackoffMs,
        maxBackoffMs: this.options.maxBackoffMs,
        resyncPeriodMs: own?.syncPeriodMs ?? this.options.syncPeriodMs,
        mapper: this.resolver,
        labelSelector: selectorString(own?.labelSelector ?? this.options.defaultLabelSelector),
        fieldSelector: own?.fieldSelector ?? this.options.defaultFieldSelector,
        metadataOnly,
        unsafeDisableDeepCopy: own?.unsafeDisableDeepCopy ?? this.options.unsafeDisableDeepCopy ?? false,
        shard: own?.shard ?? this.autoShard(r, metadataOnly),
      };
      if (own?.shard) this.byObjectShard.add(k);
      inf = new SharedInformer(this.rest, r, o);
      this.informers.set(k, inf);
      // Outside the span of the read that asked for it (a reconcile's): the informer outlives it.
      const signal = this.signal;
      if (signal && !signal.aborted) {
        const started = inf;
        this.runs.push(untraced(() => started.run(signal)));
      }
    }
    return inf;
  }

  private autoShard(r: ResourceInfo, metadataOnly: boolean): ShardSpec | undefined {
    const field = this.options.shardOf?.(r, metadataOnly);
    return field ? { field, ranges: this.shardRanges } : undefined;
  }

  /**
   * @internal Moves every informer the `shardOf` option shards to these ranges (a sharded
   * Manager's replica took or gave up ranges); informers created later start with them.
   */
  setShardRanges(ranges: readonly HashRange[]): void {
    this.shardRanges = ranges;
    for (const [k, inf] of this.informers) {
      const own = inf.shardRanges();
      if (own === undefined) continue;
      if (!this.byObjectShard.has(k)) inf.setShardRanges(ranges);
    }
  }

  /**
   * @internal Asks `shardOf` again for every informer made so far that is not running yet (made
   * before the Manager started, e.g. by indexField before the controllers were built): the plan is
   * final only once every controller is known. Informers already running keep what they have.
   */
  replanShards(): void {
    for (const [k, inf] of this.informers) {
      if (this.byObjectShard.has(k) || inf.isRunning()) continue;
      const field = this.options.shardOf?.(inf.resource, inf.isMetadataOnly());
      inf.resetShard(field ? { field, ranges: this.shardRanges } : undefined);
    }
  }

  /** @internal Objects held by the informers `shardOf` shards (the kubeforge_shard_objects gauge). */
  shardedObjectCount(): number {
    let n = 0;
    for (const [k, inf] of this.informers)
      if (inf.shardRanges() !== undefined && !this.byObjectShard.has(k)) n += inf.size();
    return n;
  }

  async indexField<T extends KubernetesObject>(
    type: TypeRef<T>,
    field: string,
    extractor: IndexExtractor<T>,
  ): Promise<void> {
    for (const inf of await this.informersFor(type)) inf.addIndexer(field, extractor as IndexExtractor);
  }

  /** The informers that hold `namespace` (all of the type when undefined), once synced. */
  private async synced(
    type: TypeRef,
    namespace: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<SharedInformer[]> {
    if (!this.signal) throw new CacheNotStartedError();
    signal?.throwIfAborted();
    let infs = await this.informersFor(type);
    const r = infs[0].resource;
    const meta = isMetadataOnly(type);
    const namespaces = this.namespacesOf(r, await this.settingsOf(r, meta));
    if (r.namespaced && namespace && namespaces.length > 0) {
      if (!namespaces.includes(namespace)) {
        throw new NamespaceNotWatchedError(namespace, namespaces, r.kind);
      }
      if (infs.length > 1) infs = [infs[namespaces.indexOf(namespace)]];
    }
    for (const inf of infs) {
      if (inf.hasSynced()) continue;
      const timeoutMs = this.options.syncTimeoutMs ?? 120_000;
      const ok = await inf.waitForSync(anySignal(AbortSignal.timeout(timeoutMs), this.signal, signal));
      signal?.throwIfAborted();
      if (!ok)
        throw new CacheSyncTimeoutError(
          `kubeforge/runtime: timed out after ${timeoutMs} ms waiting for the ${inf.resource.kind} informer to sync (is the list allowed by RBAC and the API server reachable?)`,
          [inf.resource.kind],
          timeoutMs,
        );
    }
    return infs;
  }

  /**
   * Reads one object from memory; the result is the caller's own copy (the cached instance with
   * unsafeDisableDeepCopy). NotFoundError if absent. `metadataOnly(type)` reads the type's
   * metadata-only informer: a PartialObjectMetadata.
   */
  async get<T extends KubernetesObject>(type: TypeRef<T>, key: ObjectKey, o: GetOptions = {}): Promise<T> {
    checkOptions('cache.get', o, GET_NAMES);
    const infs = await this.synced(type, key.namespace, o.signal);
    const r = infs[0].resource;
    const k = objectKey(r.namespaced ? key.namespace : undefined, key.name);
    for (const { store } of infs) {
      const e = store.get(k);
      if (e) return store.object(e) as T;
    }
    throw new NotFoundError(404, {
      reason: 'NotFound',
      message: `${r.plural}${r.group ? `.${r.group}` : ''} "${key.name}" not found${r.namespaced && key.namespace ? ` in namespace "${key.namespace}"` : ''}`,
      details: { name: key.name, group: r.group, kind: r.plural },
    });
  }

  /**
   * Lists from memory (copies, or the cached instances with unsafeDisableDeepCopy), sorted by namespace/name (across every watched namespace when none is
   * given). Field selectors need an index registered with `indexField` (or metadata.name /
   * metadata.namespace); others reject with an Error.
   */
  async list<T extends KubernetesObject>(type: TypeRef<T>, o: ListOptions = {}): Promise<ObjectList<T>> {
    checkOptions('cache.list', o, LIST_NAMES, { labels: 'labelSelector' });
    const infs = await this.synced(type, o.namespace, o.signal);
    const r = infs[0].resource;
    const labels = parseLabelSelector(o.labelSelector);
    const fields = parseFieldSelector(o.fieldSelector);
    for (const f of fields) {
      if (
        f.field !== 'metadata.name' &&
        f.field !== 'metadata.namespace' &&
        !infs[0].store.byIndex({ field: f.field }, f.value)
      ) {
        throw new MissingIndexError(r.kind, f.field);
      }
    }
    const namespace = r.namespaced ? o.namespace || undefined : undefined;
    const found: { key: string; store: InformerStore; e: StoreEntry }[] = [];
    for (const { store } of infs) {
      // Narrow the candidates with the smallest matching index: field indexes, the label index for
      // equality requirements, the namespace index; every requirement is still checked below.
      let candidates: ReadonlySet<string> | undefined;
      const consider = (set: ReadonlySet<string> | undefined) => {
        if (set && (!candidates || set.size < candidates.size)) candidates = set;
      };
      for (const f of fields) if (f.op === '=') consider(store.byIndex({ field: f.field }, f.value));
      for (const l of labels)
        if (l.op === '=' || (l.op === 'in' && l.values.length === 1))
          consider(store.byIndex('label', `${l.key}=${l.values[0]}`));
      // (An informer of one namespace keeps no namespace index: it holds nothing else; every entry is checked below.)
      if (namespace) consider(store.byIndex('namespace', namespace));
      const keys = candidates ? [...candidates] : [...store.list()];
      for (const key of keys) {
        const e = store.get(key);
        if (!e) continue;
        if (namespace && e.namespace !== namespace) continue;
        if (labels.length && !matchesLabels(labels, e.labels)) continue;
        let ok = true;
        for (const f of fields) {
          const values =
            f.field === 'metadata.name'
              ? [nameOfKey(key, e.namespace)]
              : f.field === 'metadata.namespace'
                ? [e.namespace]
                : (e.index?.[f.field] ?? []);
          const has = values.includes(f.value);
          if ((f.op === '=') !== has) {
            ok = false;
            break;
          }
        }
        if (ok) found.push({ key, store, e });
      }
    }
    found.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const items = found.map(({ store, e }) => store.object(e) as T);
    // One informer: its resourceVersion; several: none is the list's (as controller-runtime's multi-namespace cache).
    return {
      apiVersion: r.apiVersion,
      kind: `${r.kind}List`,
      metadata: infs.length === 1 ? { resourceVersion: infs[0].lastResourceVersion() } : {},
      items,
    };
  }
}

/** One handler registration over the informers of several namespaces. */
class MultiRegistration implements HandlerRegistration {
  constructor(readonly parts: HandlerRegistration[]) {}
  hasSynced(): boolean {
    return this.parts.every((p) => p.hasSynced());
  }
}

/**
 * The informers of one namespaced type in several namespaces, seen as one: handlers are added to
 * each; synced once all are. Errors and shutdown as SharedInformer.
 */
export class MultiNamespaceInformer<T extends KubernetesObject = KubernetesObject> implements Informer<T> {
  readonly resource: ResourceInfo;
  constructor(readonly informers: SharedInformer<T>[]) {
    this.resource = informers[0].resource;
  }
  addEventHandler(handler: ResourceEventHandler<T>): HandlerRegistration {
    return new MultiRegistration(this.informers.map((i) => i.addEventHandler(handler)));
  }
  removeEventHandler(registration: HandlerRegistration): void {
    if (!(registration instanceof MultiRegistration)) return;
    registration.parts.forEach((p, i) => {
      this.informers[i].removeEventHandler(p);
    });
  }
  hasSynced(): boolean {
    return this.informers.every((i) => i.hasSynced());
  }
  /** Resolves true once every namespace's informer synced; false if `signal` aborts first. */
  async waitForSync(signal?: AbortSignal): Promise<boolean> {
    const r = await Promise.all(this.informers.map((i) => i.waitForSync(signal)));
    return r.every(Boolean);
  }
}

/** An AbortSignal that aborts when any given one does. */
function anySignal(...signals: (AbortSignal | undefined)[]): AbortSignal | undefined {
  const s = signals.filter((x): x is AbortSignal => x !== undefined);
  if (s.length === 0) return undefined;
  if (s.length === 1) return s[0];
  const any = AbortSignal.any(s);
  setMaxListeners(0, any); // one listener per informer
  return any;
}
