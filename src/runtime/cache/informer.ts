/**
 * kubeforge's own shared informer: list, then watch from the list's resourceVersion, resume
 * watches from the last seen resourceVersion (bookmarks keep it fresh), relist on 410 Gone, and
 * back off (800 ms doubling to 30 s, jittered) when the connection drops or the server errs.
 * A back-off that follows an unreachable server ends as soon as the server answers again (a
 * request of the same client, or its /readyz probe): after an outage, watches resume within half a
 * second of the server's return instead of after up to a minute of back-off.
 *
 * Why not client-node's makeInformer (1.4.0, cache.js): on a dropped connection or any watch
 * error other than 410 it emits `error` and stops for good, leaving restart and back-off to the
 * caller; it never asks for bookmarks (so resuming after a quiet period tends to hit 410); it lists
 * in one unpaginated request; and handlers receive the very objects it stores, so one careless
 * handler corrupts every reader. Controllers need the client-go reflector behaviour instead.
 *
 * Storage: each cached object is kept as its JSON text plus a few extracted fields (namespace,
 * resourceVersion, labels, index values). Reads parse the text, so every caller gets its own copy
 * and can never corrupt the cache (controller-runtime deep-copies for the same reason); and the
 * text is several times smaller in memory than the parsed object. To keep an entry small, the text
 * leaves out apiVersion and kind (the informer's own, put back on read), the name is read from the
 * key, and namespaces and label strings are shared between entries (see `StoreEntry`). Objects
 * handed to event handlers are deep-frozen: they are shared by all handlers of one event.
 *
 * Two modes change that (controller-runtime's names in brackets):
 * - metadata-only [builder.OnlyMetadata, metav1.PartialObjectMetadata]: the list and watch ask the
 *   server for PartialObjectMetadata (`Accept: application/json;as=PartialObjectMetadataList;
 *   g=meta.k8s.io;v=v1`), so only metadata travels and is cached; objects carry the watched
 *   type's apiVersion/kind, as controller-runtime sets them.
 * - unsafeDisableDeepCopy [cache.Options.UnsafeDisableDeepCopy]: the parsed object is stored and
 *   every read and event hands out that same instance (not frozen). Faster reads, no copies; but a
 *   caller that mutates what it read changes the cache for everyone until the next event replaces
 *   the object.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type {
  HandlerRegistration,
  IndexExtractor,
  Informer,
  ResourceEventHandler,
  ResourceInfo,
} from '../contracts.js';
import { NoKindMatchError, StatusError, isGone, isNotFound, statusErrorFrom } from '../client/errors.js';
import type { RESTMapper } from '../client/restmapper.js';
import { MissingIndexError } from './errors.js';
import type { RestClient } from '../client/rest.js';
import { METADATA_ACCEPT, METADATA_LIST_ACCEPT, asPartialObjectMetadata, resourcePath } from '../client/types.js';
import { reviveDates } from '../client/dates.js';
import {
  type HashRange,
  ShardMatcher,
  type ShardSpec,
  sameRanges,
  shardSelector,
  subtractRanges,
} from '../sharding/ranges.js';

/**
 * One cached object, a fixed-shape class so that V8 keeps its fields in-object (no per-entry
 * dictionary). Exactly one of `json` / `obj` is set. The name is not stored: it is the key's last
 * part (see `nameOfKey`).
 */
export class StoreEntry {
  constructor(
    /** The object as JSON text without its leading apiVersion and kind (see `typeMetaStripped`). */
    readonly json: string | undefined,
    /** unsafeDisableDeepCopy: the object itself, handed out as is. */
    readonly obj: KubernetesObject | undefined,
    /** Shared between entries of one namespace. */
    readonly namespace: string,
    readonly resourceVersion: string,
    /** metadata.labels, rebuilt from shared strings; undefined when there are none. */
    readonly labels: Readonly<Record<string, string>> | undefined,
    /** Values per field index. */
    public index: Record<string, string[]> | undefined,
    /** False when the JSON text still holds apiVersion and kind (they differ from the informer's). */
    readonly typeMetaStripped: boolean,
  ) {}
}

/** The index of a field added by addIndexers (every caller reads a field it indexes). */
function indexOf(indices: Map<string, Map<string, Set<string>>>, field: string): Map<string, Set<string>> {
  const m = indices.get(field);
  if (!m) throw new Error(`kubeforge/runtime: informer has no index for field ${JSON.stringify(field)}`);
  return m;
}

/** The name part of a store key (`namespace/name` or `name`). */
export function nameOfKey(key: string, namespace: string): string {
  return namespace ? key.slice(namespace.length + 1) : key;
}

/** At most this many distinct strings are shared per informer; rarer ones beyond it are kept as they come. */
const MAX_SHARED_STRINGS = 50_000;

/** Counters exposed for tests and debugging. */
export interface InformerStats {
  /** Fetches of the whole state: paginated lists and streaming lists together. */
  lists: number;
  /** Of `lists`, the streaming ones (one watch that sends the state first, see `watchList`). */
  streamedLists: number;
  watches: number;
  relistsAfterGone: number;
  watchErrors: number;
  events: number;
  /** Back-off waits cut short because the server answered again. */
  recoveries: number;
  /** Shard ranges given up (none taken) without listing again: the watch went on with the narrower selector. */
  shardRewatches: number;
}

/** `namespace/name`, or `name` for cluster-scoped objects (client-go's MetaNamespaceKeyFunc). */
export function objectKey(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

/** Freezes an object graph in place and returns it. */
export function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object' && !Object.isFrozen(o)) {
    Object.freeze(o);
    for (const v of Object.values(o as object)) deepFreeze(v);
  }
  return o;
}

class Registration implements HandlerRegistration {
  synced = false;
  constructor(readonly handler: ResourceEventHandler) {}
  hasSynced(): boolean {
    return this.synced;
  }
}

class GoneError extends Error {}

/**
 * What an informer holds, read-only (client-go's cache.Indexer, read side). Keys are
 * `namespace/name` (`name` for cluster-scoped objects). Every object returned is the caller's own
 * copy.
 */
export interface Indexer<T extends KubernetesObject = KubernetesObject> {
  /** The object under `key`, or undefined. */
  getByKey(key: string): T | undefined;
  /** Every key, sorted. */
  listKeys(): string[];
  /** Every object, sorted by key. */
  list(): T[];
  /**
   * The objects whose index `indexName` (a field given to `cache.indexField`, or `namespace`)
   * has `value`, sorted by key. Throws MissingIndexError for an index nobody registered.
   */
  byIndex(indexName: string, value: string): T[];
  /** The indexes this informer keeps. */
  indexNames(): string[];
}

/** An index of an informer's store: a field index (`cache.indexField`), the label index (values `key=value`) or the namespace index. */
export type StoreIndex = { field: string } | 'label' | 'namespace';

/**
 * How the cache reads what an informer holds (the side of client-go's cache.Indexer a cached read
 * needs): entries by key, every key, the keys under one value of an index. Entries stay encoded
 * until `object()`, so that a read filters on an entry's namespace, labels and index values first.
 * Sets returned are the store's own: copy them before the informer may change.
 */
export interface InformerStore<T extends KubernetesObject = KubernetesObject> {
  /** The entry under `key` (`namespace/name`, or `name` for cluster-scoped objects), or undefined. */
  get(key: string): StoreEntry | undefined;
  /** Every key, in no order. */
  list(): Iterable<string>;
  /**
   * The keys whose `index` has `value` (empty when none); undefined when this store keeps no such
   * index: a field nobody registered, or the namespace of an informer that watches one namespace.
   */
  byIndex(index: StoreIndex, value: string): ReadonlySet<string> | undefined;
  /** The caller's object for an entry: a fresh copy with Dates revived, or the cached instance with unsafeDisableDeepCopy. */
  object(entry: StoreEntry): T;
}

const NONE: ReadonlySet<string> = new Set();

/** Options of a SharedInformer. */
export interface SharedInformerOptions {
  /** Watch only this namespace (namespaced types only). */
  namespace?: string;
  logger: Logger;
  /** Applied to every object before it is stored and delivered (e.g. drop managedFields). */
  transform?: (obj: KubernetesObject) => KubernetesObject;
  /** First back-off delay after a failure (ms). Default 800. */
  initialBackoffMs?: number;
  /** Largest back-off delay (ms). Default 30 000. */
  maxBackoffMs?: number;
  /**
   * Page size of lists. Default 100 (client-go's reflector asks for 500): a page's response text,
   * its buffers and its parsed objects are alive together while it is stored, and with 500 of the
   * bench's 840-byte objects that transient pushed the cache's peak RSS from 1.45 to 1.9 KB per
   * object (`bench:runtime` (b)); the price is five times as many list requests.
   */
  pageSize?: number;
  /**
   * Fill the cache from one watch stream instead of paginated lists (client-go's WatchListClient,
   * default on since client-go 1.35; KEP-3157): the server sends every object as an ADDED event,
   * then a bookmark that ends the initial state, and the same stream goes on as the watch. The
   * API server serves it from its watch cache with no per-page cost (a list of 20,000 ConfigMaps
   * in pages of 100 cost it 5-6x the CPU), and the client holds one object at a time instead of
   * a page. A server without it (the WatchList gate off, before 1.27) refuses the request, and
   * the informer lists as before from then on. Default true.
   */
  watchList?: boolean;
  /**
   * Every this many ms (jittered +-10 %), every cached object is delivered again as an update
   * with old === new (client-go's resync; controller-runtime's SyncPeriod, default 10 hours).
   * 0 disables it.
   */
  resyncPeriodMs?: number;
  /** Used to explain a 404 on the list (kind not served); without it the error says less. */
  mapper?: RESTMapper;
  /** Cache only objects matching these selectors (sent with the list and the watch). */
  labelSelector?: string;
  fieldSelector?: string;
  /**
   * List and watch PartialObjectMetadata only (controller-runtime's metadata informer): cached
   * objects hold apiVersion, kind (the watched type's) and metadata, nothing else.
   */
  metadataOnly?: boolean;
  /**
   * Store the parsed objects and hand out the stored instance on every read and event, without a
   * copy (controller-runtime's UnsafeDisableDeepCopy). Never mutate what you read: the change
   * would be visible to every reader and handler.
   */
  unsafeDisableDeepCopy?: boolean;
  /**
   * @internal Hold only one shard of the objects (issue #39's split; internal until membership
   * and hand-over exist): those whose uid or namespace hashes, by the API server's FNV-1a, into
   * `ranges`. Where the server serves KEP-5866's `shardSelector` (kube-apiserver 1.36+ with the
   * ShardedListAndWatch gate) the list and watch carry it and only the shard travels; elsewhere
   * the informer drops the other objects as they arrive. Which one is decided by asking the server
   * once, before the first list, and logged. Either way the informer holds the same objects.
   */
  shard?: ShardSpec;
}

/** @internal How a sharded informer gets its share: the server filters (`shardSelector`), or the informer does. */
export type ShardMode = 'server' | 'client';

/**
 * One list+watch of one type, shared by all handlers. `run(signal)` keeps it going until the
 * signal aborts: errors never end it (they are logged and retried with back-off); on shutdown
 * the watch connection is closed and run() resolves.
 */
export class SharedInformer<T extends KubernetesObject = KubernetesObject> implements Informer<T> {
  /** The objects as JSON text, by `namespace/name` (read through `store` and getIndexer()). */
  private readonly entries = new Map<string, StoreEntry>();
  /** field -> value -> keys */
  private readonly indices = new Map<string, Map<string, Set<string>>>();
  /**
   * namespace -> keys; kept only by an informer of all namespaces (one of a single namespace holds
   * nothing else: see `oneNamespace`).
   */
  private readonly byNamespace = new Map<string, Set<string>>();
  /** `key=value` label pair -> keys (the label index that narrows equality selectors). */
  private readonly byLabel = new Map<string, Set<string>>();
  /** field -> extractor */
  private readonly indexers = new Map<string, IndexExtractor>();
  /** @internal What the cache reads this informer through. */
  readonly store: InformerStore<T> = {
    get: (key) => this.entries.get(key),
    list: () => this.entries.keys(),
    byIndex: (index, value) => {
      if (index === 'label') return this.byLabel.get(value) ?? NONE;
      if (index === 'namespace')
        return this.oneNamespace() === undefined ? (this.byNamespace.get(value) ?? NONE) : undefined;
      const values = this.indices.get(index.field);
      return values ? (values.get(value) ?? NONE) : undefined;
    },
    object: (entry) => this.parse(entry),
  };
  private readonly registrations = new Set<Registration>();
  private synced = false;
  private syncWaiters: { resolve: () => void; reject: (e: Error) => void }[] = [];
  /** Set while the list answers 404 (the kind is not served); waiters reject with it. */
  private notServed?: NoKindMatchError;
  private lastRV = '';
  private running = false;
  private readonly stats_: InformerStats = {
    lists: 0,
    streamedLists: 0,
    watches: 0,
    relistsAfterGone: 0,
    watchErrors: 0,
    events: 0,
    recoveries: 0,
    shardRewatches: 0,
  };
  private readonly log: Logger;
  /** Namespaces, label keys and values shared between entries. */
  private readonly shared = new Map<string, string>();
  /** `{"apiVersion":...,"kind":...,` as JSON.stringify writes them first. */
  private readonly typeMetaPrefix: string;
  /** The shard's membership test (opts.shard), applied to everything received in either mode. */
  private shardMatcher?: ShardMatcher;
  /** The selector sent in server mode (undefined when the shard has no ranges). */
  private shardSelectorText?: string;
  /** Aborted to end the current list or watch and list again (the shard's ranges changed). */
  private restartAC?: AbortController;
  /** The shard's ranges changed since the last list: the next round lists (whatever it was doing). */
  private relistRequested = false;
  private shardMode_?: ShardMode;
  /** Objects received and dropped because they are outside the shard. */
  private shardDropped = 0;
  /** False once the server refused a streaming list (see `watchList`); lists are paginated from then on. */
  private watchListServed: boolean;
  /** While a streaming list's initial events arrive: the keys they named, and `initial` for the handlers. */
  private initialEvents?: { seen: Set<string>; initial: boolean };
  /** Whether the current (or last) streaming list's initial events ended with their bookmark. */
  private streamListed = false;

  constructor(
    private readonly rest: RestClient,
    readonly resource: ResourceInfo,
    private readonly opts: SharedInformerOptions,
  ) {
    this.log = opts.logger.child({
      informer: `${opts.metadataOnly ? 'metadata ' : ''}${resource.apiVersion}/${resource.kind}`,
    });
    this.typeMetaPrefix = `${JSON.stringify({ apiVersion: resource.apiVersion, kind: resource.kind }).slice(0, -1)},`;
    this.watchListServed = opts.watchList !== false;
    if (opts.shard) {
      this.shardMatcher = new ShardMatcher(opts.shard);
      if (this.shardMatcher.ranges.length > 0) this.shardSelectorText = shardSelector(opts.shard);
    }
  }

  /**
   * @internal For a sharded informer, how it gets its share: `server` (the API server filters by
   * `shardSelector`), `client` (it filters what it receives); undefined before the first list or
   * without a shard.
   */
  shardMode(): ShardMode | undefined {
    return this.shardMode_;
  }

  /**
   * @internal Moves a sharded informer to other ranges (a sharded Manager's replica took or gave
   * up ranges): objects outside the new ranges leave the store at once without a delete event
   * (they were not deleted: another replica holds them now). When ranges were added, the
   * informer lists again with the new selector, so objects of ranges just taken arrive as adds.
   * When ranges were only given up (a member joined: consistent hashing only ever takes ranges
   * from the others), what it holds is already complete: it watches on from the resourceVersion
   * it had, with the narrower selector, and lists nothing. With no ranges it holds nothing and
   * lists nothing.
   */
  setShardRanges(ranges: readonly HashRange[]): void {
    const spec = this.opts.shard;
    if (!spec || !this.shardMatcher)
      throw new Error('kubeforge/runtime: setShardRanges on an informer without a shard');
    if (sameRanges(ranges, this.shardMatcher.ranges)) return;
    const next = new ShardMatcher({ field: spec.field, ranges });
    const hadSelector = this.shardSelectorText !== undefined;
    // Only given up: nothing new to list (see above). Ranges added, or none held before: list.
    const shrinkOnly = hadSelector && subtractRanges(next.ranges, this.shardMatcher.ranges).length === 0;
    this.shardMatcher = next;
    this.shardSelectorText =
      next.ranges.length > 0 ? shardSelector({ field: spec.field, ranges: next.ranges }) : undefined;
    // A mode decided without a selector (nothing owned) was not asked of the server: ask now.
    if (!hadSelector) this.shardMode_ = undefined;
    for (const [key, e] of [...this.entries])
      if (!next.matches(this.parse(e))) this.remove(key, undefined, false, false);
    if (!shrinkOnly) this.relistRequested = true;
    else this.stats_.shardRewatches++;
    // A watch with the old selector would go on sending the ranges given up (filtered out on
    // arrival, but sent): restart it with the new one. Filtering client-side, it asks for all anyway.
    if (!shrinkOnly || this.shardMode_ !== 'client') this.restartAC?.abort();
  }

  /** True while run() runs. */
  isRunning(): boolean {
    return this.running;
  }

  /** @internal Gives an informer that has not run yet another shard (or none). */
  resetShard(spec: ShardSpec | undefined): void {
    if (this.running) throw new Error('kubeforge/runtime: resetShard on a running informer');
    (this.opts as { shard?: ShardSpec }).shard = spec;
    const matcher = spec ? new ShardMatcher(spec) : undefined;
    this.shardMatcher = matcher;
    this.shardSelectorText =
      spec && matcher && matcher.ranges.length > 0
        ? shardSelector({ field: spec.field, ranges: spec.ranges })
        : undefined;
    this.shardMode_ = undefined;
  }

  /** How many objects the informer holds. */
  size(): number {
    return this.entries.size;
  }

  /** @internal The ranges a sharded informer holds now. */
  shardRanges(): readonly HashRange[] | undefined {
    return this.shardMatcher?.ranges;
  }

  /** @internal Objects a sharded informer received and dropped as outside its shard (0 when the server filters). */
  shardDroppedCount(): number {
    return this.shardDropped;
  }

  /**
   * Asks the server once whether it filters by `shardSelector`: a list of at most one object with
   * the selector. A server that applied it says so in the list's `metadata.shardInfo.selector` (the
   * selector echoed back, KEP-5866); one without the gate (or older than 1.36) ignores the
   * parameter and answers an ordinary list. A server that refuses the selector as invalid (a
   * syntax of another version) is filtered for client-side as well.
   */
  private async detectShardMode(signal: AbortSignal, matcher: ShardMatcher): Promise<ShardMode> {
    const info = { field: matcher.field, ranges: matcher.ranges.length };
    if (!this.shardSelectorText) {
      this.log.info({ shard: { ...info, mode: 'client' } }, 'sharded informer owns no hash range; it caches nothing');
      return 'client';
    }
    let echoed: string | undefined;
    try {
      const probe = await this.rest.request<{ metadata?: { shardInfo?: { selector?: string } } }>(
        'GET',
        this.collectionPath(),
        {
          query: {
            limit: 1,
            shardSelector: this.shardSelectorText,
            labelSelector: this.opts.labelSelector,
            fieldSelector: this.opts.fieldSelector,
          },
          signal,
          what: `list ${this.resource.apiVersion} ${this.resource.kind} with a shardSelector`,
        },
      );
      echoed = probe.metadata?.shardInfo?.selector;
    } catch (err) {
      if (!(err instanceof StatusError) || err.code === 404 || !/shard selector/i.test(err.status.message ?? ''))
        throw err;
      this.log.warn(
        { shard: { ...info, mode: 'client' }, err: err.message },
        'the API server refused the shardSelector; filtering client-side',
      );
      return 'client';
    }
    const mode: ShardMode = echoed ? 'server' : 'client';
    if (echoed && echoed !== this.shardSelectorText)
      this.log.warn({ sent: this.shardSelectorText, echoed }, 'the API server echoed a different shardSelector');
    this.log.info(
      { shard: { ...info, mode } },
      mode === 'server'
        ? 'sharded informer: the API server filters by shardSelector (only this shard is listed and watched)'
        : 'sharded informer: the API server does not serve shardSelector (ShardedListAndWatch off or before 1.36); filtering client-side',
    );
    return mode;
  }

  /** The shardSelector query parameter of lists and watches (only when the server filters). */
  private shardQuery(): string | undefined {
    return this.shardMode_ === 'server' ? this.shardSelectorText : undefined;
  }

  /** The namespace every object of this informer is in, when it watches one namespace of a namespaced type. */
  oneNamespace(): string | undefined {
    return this.resource.namespaced ? this.opts.namespace || undefined : undefined;
  }

  /** True for a metadata-only informer (PartialObjectMetadata). */
  isMetadataOnly(): boolean {
    return this.opts.metadataOnly === true;
  }

  /** True when reads and events hand out the stored instances (unsafeDisableDeepCopy). */
  isDeepCopyDisabled(): boolean {
    return this.opts.unsafeDisableDeepCopy === true;
  }

  /** One shared instance of an often repeated string (bounded: past the limit, `s` itself). */
  private share(s: string): string {
    const have = this.shared.get(s);
    if (have !== undefined) return have;
    if (this.shared.size >= MAX_SHARED_STRINGS) return s;
    this.shared.set(s, s);
    return s;
  }

  /** Counters (lists, watches, relists after 410, watch errors, events). */
  stats(): InformerStats {
    return { ...this.stats_ };
  }

  /** The resourceVersion the next watch resumes from. */
  lastResourceVersion(): string {
    return this.lastRV;
  }

  hasSynced(): boolean {
    return this.synced;
  }

  /**
   * Resolves once synced, or when `signal` aborts (then with false). Rejects with a
   * NoKindMatchError, naming the likely cause, when the list answers 404 (the kind is not served:
   * CRD not installed, or the class's static gvk / plural out of sync with it) instead of waiting
   * for a sync timeout; the informer keeps retrying, so a later call can still succeed.
   */
  waitForSync(signal?: AbortSignal): Promise<boolean> {
    if (this.synced) return Promise.resolve(true);
    if (this.notServed) return Promise.reject(this.notServed);
    if (signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve, reject) => {
      const onAbort = () => resolve(false);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.syncWaiters.push({
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve(true);
        },
        reject: (e) => {
          signal?.removeEventListener('abort', onAbort);
          reject(e);
        },
      });
    });
  }

  /**
   * The list answered 404: find out from discovery why (group/version not served, kind missing,
   * plural different from the class's) and fail the current sync waiters with it.
   */
  private async explainNotServed(): Promise<void> {
    const r = this.resource;
    const cls = `${r.kind} (static gvk ${r.group || 'core'}/${r.version} ${r.kind}, plural "${r.plural}")`;
    let why = `the API server does not serve ${this.collectionPath()} (404)`;
    if (this.opts.mapper) {
      try {
        this.opts.mapper.reset(r.apiVersion);
        const resources = await this.opts.mapper.serverResources(r.apiVersion);
        const same = resources.find((x) => x.kind === r.kind && !x.name.includes('/'));
        const top = resources.filter((x) => !x.name.includes('/'));
        why = same
          ? `the CRD serves ${r.kind} as plural "${same.name}", but the class says plural "${r.plural}": the class's static plural is out of sync with the CRD (run \`kubeforge manifests\` and \`make install\`, or fix the static)`
          : `${r.apiVersion} is served but has no kind ${r.kind} (it serves ${
              top
                .map((x) => `${x.kind} (${x.name})`)
                .sort()
                .join(', ') || 'nothing'
            }): the class's static gvk is out of sync with the CRD, or its CRD is not installed (\`make install\`)`;
      } catch (e) {
        if (!isNotFound(e)) return; // discovery failed for another reason: keep retrying quietly
        why = `the API server does not serve ${r.apiVersion} at all: the CRD of ${r.kind} is not installed (\`make install\`), or the class's static gvk names the wrong group/version`;
      }
    }
    this.notServed = new NoKindMatchError(`cannot list ${cls}: ${why}`);
    const waiters = this.syncWaiters;
    this.syncWaiters = [];
    for (const w of waiters) w.reject(this.notServed);
  }

  addEventHandler(handler: ResourceEventHandler<T>): HandlerRegistration {
    const reg = new Registration(handler as ResourceEventHandler);
    this.registrations.add(reg);
    if (this.synced) {
      for (const e of this.entries.values()) this.call(reg, 'onAdd', this.forHandlers(this.parse(e)), true);
      reg.synced = true;
    }
    return reg;
  }

  removeEventHandler(registration: HandlerRegistration): void {
    this.registrations.delete(registration as Registration);
  }

  /** Adds a field index, computing it for objects already stored. */
  addIndexer(field: string, extractor: IndexExtractor): void {
    if (this.indexers.has(field))
      throw new Error(`kubeforge/runtime: an index for field "${field}" of ${this.resource.kind} already exists`);
    this.indexers.set(field, extractor);
    this.indices.set(field, new Map());
    for (const [key, e] of this.entries) {
      const values = this.extract(extractor, this.parse(e), field);
      e.index ??= {};
      e.index[field] = values;
      this.indexAdd(field, values, key);
    }
  }

  /**
   * Read access to what this informer holds (client-go's Indexer, read side): every object
   * returned is a fresh copy the caller owns, with Dates revived. Never throws; empty before sync.
   */
  getIndexer(): Indexer<T> {
    const copies = (keys: Iterable<string>): T[] => {
      const out: T[] = [];
      for (const k of [...keys].sort()) {
        const e = this.entries.get(k);
        if (e) out.push(this.parse(e));
      }
      return out;
    };
    return {
      getByKey: (key) => {
        const e = this.entries.get(key);
        return e ? this.parse(e) : undefined;
      },
      listKeys: () => [...this.entries.keys()].sort(),
      list: () => copies(this.entries.keys()),
      byIndex: (indexName, value) => {
        if (indexName === 'namespace') {
          const one = this.oneNamespace();
          if (one !== undefined) return value === one ? copies(this.entries.keys()) : [];
          return copies(this.byNamespace.get(value) ?? []);
        }
        const index = this.indices.get(indexName);
        if (!index) throw new MissingIndexError(this.resource.kind, indexName);
        return copies(index.get(value) ?? []);
      },
      indexNames: () => ['namespace', ...[...this.indexers.keys()].sort()],
    };
  }

  /** A stored entry as an object: a fresh copy (Dates revived), or with unsafeDisableDeepCopy the stored instance itself. */
  private parse(e: StoreEntry): T {
    if (e.obj) return e.obj as T;
    const json = e.json;
    if (json === undefined) throw new Error('kubeforge/runtime: a cache entry holds neither JSON nor an object');
    const text = !e.typeMetaStripped
      ? json
      : json === '{}'
        ? `${this.typeMetaPrefix.slice(0, -1)}}`
        : this.typeMetaPrefix + json.slice(1);
    // Timestamps become the Dates client-node's types declare (see client/dates.ts).
    return reviveDates(JSON.parse(text) as T, this.resource);
  }

  /** Objects given to handlers: frozen (shared by all handlers), unless they are the cache's own instances. */
  private forHandlers(obj: KubernetesObject): KubernetesObject {
    return this.opts.unsafeDisableDeepCopy ? obj : deepFreeze(obj);
  }

  /** The JSON text to store: without apiVersion/kind when they are the informer's (put back by parse). */
  private encode(obj: KubernetesObject): { json: string; stripped: boolean } {
    const stripped = obj.apiVersion === this.resource.apiVersion && obj.kind === this.resource.kind;
    let json: string;
    if (stripped) {
      const { apiVersion: _a, kind: _k, ...rest } = obj;
      json = JSON.stringify(rest);
    } else json = JSON.stringify(obj);
    // V8 builds JSON.stringify's result as a rope of chunks (a cons string of 32, 64, 128 ...
    // character parts): about 190 bytes more than the text for an 840-byte object, for as long as
    // it is kept. Reading a character makes V8 flatten it into one contiguous string, once, here.
    json.charCodeAt(0);
    return { json, stripped };
  }

  /** metadata.labels rebuilt from shared strings (undefined when empty). */
  private sharedLabels(labels: Record<string, string> | undefined): Record<string, string> | undefined {
    if (!labels) return undefined;
    let out: Record<string, string> | undefined;
    for (const k in labels) {
      out ??= {};
      out[this.share(k)] = this.share(String(labels[k]));
    }
    return out;
  }

  private extract(extractor: IndexExtractor, obj: KubernetesObject, field: string): string[] {
    try {
      const v = extractor(obj);
      return Array.isArray(v) ? v.map(String) : [];
    } catch (err) {
      this.log.error({ err, field }, 'index extractor threw; object not indexed');
      return [];
    }
  }

  private indexAdd(field: string, values: string[], key: string): void {
    const m = indexOf(this.indices, field);
    for (const v of values) {
      let s = m.get(v);
      if (!s) {
        s = new Set();
        m.set(v, s);
      }
      s.add(key);
    }
  }

  private indexRemove(field: string, values: string[], key: string): void {
    const m = indexOf(this.indices, field);
    for (const v of values) {
      const s = m.get(v);
      if (s) {
        s.delete(key);
        if (s.size === 0) m.delete(v);
      }
    }
  }

  private labelsAdd(labels: Record<string, string>, key: string): void {
    for (const k in labels) {
      const lk = `${k}=${labels[k]}`;
      let s = this.byLabel.get(lk);
      if (!s) {
        s = new Set();
        this.byLabel.set(lk, s);
      }
      s.add(key);
    }
  }

  private labelsRemove(labels: Record<string, string>, key: string): void {
    for (const k in labels) {
      const lk = `${k}=${labels[k]}`;
      const s = this.byLabel.get(lk);
      if (s) {
        s.delete(key);
        if (s.size === 0) this.byLabel.delete(lk);
      }
    }
  }

  private call(reg: Registration, fn: 'onAdd' | 'onUpdate' | 'onDelete', a: unknown, b: unknown): void {
    const f = reg.handler[fn] as ((x: unknown, y: unknown) => void) | undefined;
    if (!f) return;
    try {
      f.call(reg.handler, a, b);
    } catch (err) {
      this.log.error({ err }, `event handler ${fn} threw; continuing`);
    }
  }

  private upsert(obj: KubernetesObject, initial: boolean): void {
    // uid and namespace never change, so an object outside the shard never enters it: drop it
    // before anything else is done with it (in server mode the server already did: count it, say so).
    if (this.shardMatcher && !this.shardMatcher.matches(obj)) {
      if (this.shardDropped++ === 0 && this.shardMode_ === 'server')
        this.log.warn(
          { uid: obj.metadata?.uid, namespace: obj.metadata?.namespace },
          'the API server sent an object outside the shard; dropped',
        );
      return;
    }
    // A metadata-only informer's objects arrive as meta.k8s.io/v1 PartialObjectMetadata; like
    // controller-runtime, they are stored as the type they stand for.
    if (this.opts.metadataOnly) obj = asPartialObjectMetadata(obj, this.resource);
    if (this.opts.transform) obj = this.opts.transform(obj);
    const md = obj.metadata ?? {};
    const namespace = this.share(md.namespace ?? '');
    const name = md.name ?? '';
    const key = objectKey(namespace, name);
    const old = this.entries.get(key);
    const rv = md.resourceVersion ?? '';
    if (old && old.resourceVersion === rv) return;
    if (!obj.apiVersion || !obj.kind) obj = { ...obj, apiVersion: this.resource.apiVersion, kind: this.resource.kind };
    const enc = this.opts.unsafeDisableDeepCopy ? undefined : this.encode(obj);
    // Indexers, handlers and (unsafeDisableDeepCopy) readers see the types client-node declares
    // (Dates), as readers of copies do; when none of them will see this object, skip the work.
    if (!enc || this.indexers.size > 0 || this.registrations.size > 0) reviveDates(obj, this.resource);
    let index: Record<string, string[]> | undefined;
    if (this.indexers.size > 0) {
      index = {};
      for (const [field, ex] of this.indexers) index[field] = this.extract(ex, obj, field);
    }
    const entry = new StoreEntry(
      enc?.json,
      enc ? undefined : obj,
      namespace,
      rv,
      this.sharedLabels(md.labels),
      index,
      enc?.stripped ?? false,
    );
    const oldObj = old && this.registrations.size > 0 ? this.forHandlers(this.parse(old)) : undefined;
    if (old?.index) for (const [f, v] of Object.entries(old.index)) this.indexRemove(f, v, key);
    if (entry.index) for (const [f, v] of Object.entries(entry.index)) this.indexAdd(f, v, key);
    if (old?.labels) this.labelsRemove(old.labels, key);
    if (entry.labels) this.labelsAdd(entry.labels, key);
    this.entries.set(key, entry);
    if (!old && this.oneNamespace() === undefined) {
      let s = this.byNamespace.get(namespace);
      if (!s) {
        s = new Set();
        this.byNamespace.set(namespace, s);
      }
      s.add(key);
    }
    if (this.registrations.size === 0) return;
    const frozen = this.forHandlers(obj);
    for (const reg of this.registrations) {
      if (old) this.call(reg, 'onUpdate', oldObj, frozen);
      else this.call(reg, 'onAdd', frozen, initial);
    }
  }

  private remove(key: string, last: KubernetesObject | undefined, finalStateUnknown: boolean, notify = true): void {
    const old = this.entries.get(key);
    if (!old) return;
    this.entries.delete(key);
    if (old.index) for (const [f, v] of Object.entries(old.index)) this.indexRemove(f, v, key);
    if (old.labels) this.labelsRemove(old.labels, key);
    const s = this.byNamespace.get(old.namespace);
    if (s) {
      s.delete(key);
      if (s.size === 0) this.byNamespace.delete(old.namespace);
    }
    if (this.registrations.size === 0 || !notify) return;
    const obj = this.forHandlers(last ? reviveDates(last, this.resource) : this.parse(old));
    for (const reg of this.registrations) this.call(reg, 'onDelete', obj, finalStateUnknown);
  }

  private collectionPath(): string {
    return resourcePath(this.resource, this.resource.namespaced ? this.opts.namespace : undefined);
  }

  /**
   * Lists everything (paginated) and reconciles the store with it; returns the list's
   * resourceVersion. Pages are applied as they arrive (each object only ever moves to a newer
   * version, so a failure half-way leaves a usable store); objects missing from a complete list
   * are deleted at the end (delivered with finalStateUnknown). Holding one page at a time keeps
   * the peak memory of a relist small.
   */
  private async listAndReplace(signal: AbortSignal): Promise<string> {
    this.stats_.lists++;
    const seen = new Set<string>();
    let cont: string | undefined;
    let rv = '';
    const initial = !this.synced;
    do {
      const page = await this.rest.request<{
        metadata: { resourceVersion: string; continue?: string };
        items: KubernetesObject[];
      }>('GET', this.collectionPath(), {
        query: {
          limit: this.opts.pageSize ?? 100,
          continue: cont,
          labelSelector: this.opts.labelSelector,
          fieldSelector: this.opts.fieldSelector,
          shardSelector: this.shardQuery(),
        },
        signal,
        accept: this.opts.metadataOnly ? METADATA_LIST_ACCEPT : undefined,
        what: `list ${this.opts.metadataOnly ? 'metadata of ' : ''}${this.resource.apiVersion} ${this.resource.kind}`,
      });
      // A metadata-only list with no items says `items: null` (a Go nil slice).
      for (const it of page.items ?? []) {
        seen.add(objectKey(it.metadata?.namespace, it.metadata?.name ?? ''));
        this.upsert(it, initial);
      }
      cont = page.metadata.continue || undefined;
      rv = page.metadata.resourceVersion;
    } while (cont);
    for (const key of [...this.entries.keys()]) if (!seen.has(key)) this.remove(key, undefined, true);
    return rv;
  }

  /**
   * Watches from `rv` until the server ends the stream (resolves), the stream fails (rejects with
   * the network error), the server reports 410 (rejects with GoneError) or `signal` aborts.
   */
  private async watchOnce(signal: AbortSignal, streamList = false): Promise<void> {
    this.stats_.watches++;
    const timeoutSeconds = 300 + Math.floor(Math.random() * 300);
    if (streamList) {
      this.initialEvents = { seen: new Set(), initial: !this.synced };
      this.streamListed = false;
    }
    const { res, req } = await this.rest.stream(this.collectionPath(), {
      query: {
        watch: 'true',
        // A streaming list asks for the current state (a consistent read, as a list with no
        // resourceVersion is), then goes on watching from it.
        resourceVersion: streamList ? undefined : this.lastRV,
        sendInitialEvents: streamList ? 'true' : undefined,
        resourceVersionMatch: streamList ? 'NotOlderThan' : undefined,
        allowWatchBookmarks: 'true',
        timeoutSeconds,
        labelSelector: this.opts.labelSelector,
        fieldSelector: this.opts.fieldSelector,
        shardSelector: this.shardQuery(),
      },
      signal,
      accept: this.opts.metadataOnly ? METADATA_ACCEPT : undefined,
      what: `watch ${this.opts.metadataOnly ? 'metadata of ' : ''}${this.resource.apiVersion} ${this.resource.kind}`,
    });
    if (streamList) {
      this.stats_.lists++;
      this.stats_.streamedLists++;
    }
    req.socket?.setKeepAlive(true, 30_000);
    res.setEncoding('utf8');
    let buf = '';
    await new Promise<void>((resolve, reject) => {
      let done = false;
      const finish = (err?: unknown) => {
        if (done) return;
        done = true;
        if (err) {
          req.destroy();
          reject(err);
        } else resolve();
      };
      // The server ends every watch after timeoutSeconds; if nothing at all arrives well past that,
      // the connection died silently (no RST): give up on it and reconnect.
      const watchdog = setTimeout(
        () => finish(Object.assign(new Error('watch stalled past its timeout'), { code: 'ETIMEDOUT' })),
        (timeoutSeconds + 30) * 1000,
      );
      watchdog.unref();
      res.on('close', () => clearTimeout(watchdog));
      res.on('data', (chunk: string) => {
        buf += chunk;
        for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          if (!line.trim()) continue;
          try {
            this.handleWatchLine(line);
          } catch (err) {
            finish(err);
            return;
          }
        }
      });
      res.on('end', () => finish());
      res.on('aborted', () => finish(Object.assign(new Error('watch connection aborted'), { code: 'ECONNRESET' })));
      res.on('error', (err) => finish(err));
      req.on('error', (err) => finish(err));
      res.on('close', () =>
        finish(
          signal.aborted
            ? undefined
            : res.complete
              ? undefined
              : Object.assign(new Error('watch connection closed'), { code: 'ECONNRESET' }),
        ),
      );
    });
  }

  private handleWatchLine(line: string): void {
    const ev = JSON.parse(line) as { type: string; object: KubernetesObject & { code?: number; reason?: string } };
    this.stats_.events++;
    const listing = this.initialEvents;
    switch (ev.type) {
      case 'ADDED':
      case 'MODIFIED':
        if (listing) {
          // The initial state, in key order: each object with its own resourceVersion, which is
          // not where the watch resumes (the end bookmark says that).
          listing.seen.add(objectKey(ev.object.metadata?.namespace, ev.object.metadata?.name ?? ''));
          this.upsert(ev.object, listing.initial);
          return;
        }
        this.upsert(ev.object, false);
        break;
      case 'DELETED': {
        let last: KubernetesObject = ev.object;
        if (this.opts.metadataOnly) last = asPartialObjectMetadata(last, this.resource);
        this.remove(
          objectKey(last.metadata?.namespace, last.metadata?.name ?? ''),
          this.opts.transform ? this.opts.transform(last) : last,
          false,
        );
        break;
      }
      case 'BOOKMARK':
        if (listing) {
          if (ev.object.metadata?.annotations?.[INITIAL_EVENTS_END] !== 'true')
            // Only a server that ignored sendInitialEvents bookmarks before the end of the state.
            throw new WatchListNotServedError('a bookmark came before the end of the initial events');
          this.endInitialEvents(listing);
        }
        break;
      case 'ERROR': {
        const code = ev.object.code ?? 500;
        if (code === 410 || ev.object.reason === 'Expired' || ev.object.reason === 'Gone')
          throw new GoneError(String((ev.object as { message?: string }).message ?? 'resourceVersion too old'));
        throw statusErrorFrom(code, ev.object, `watch ${this.resource.kind}`);
      }
      default:
        this.log.warn({ type: ev.type }, 'unknown watch event type; ignored');
        return;
    }
    const rv = ev.object.metadata?.resourceVersion;
    if (rv) this.lastRV = rv;
  }

  /** The end of a streaming list's initial state: what it did not name is gone (as after a list). */
  private endInitialEvents(listing: { seen: Set<string> }): void {
    this.initialEvents = undefined;
    this.streamListed = true;
    for (const key of [...this.entries.keys()]) if (!listing.seen.has(key)) this.remove(key, undefined, true);
    this.notServed = undefined;
    this.markSynced();
  }

  private markSynced(): void {
    if (this.synced) return;
    this.synced = true;
    for (const reg of this.registrations) reg.synced = true;
    const w = this.syncWaiters;
    this.syncWaiters = [];
    for (const f of w) f.resolve();
  }

  /** Delivers every cached object to every handler as an update with old === new. */
  resync(): void {
    if (!this.synced || this.registrations.size === 0) return;
    for (const e of [...this.entries.values()]) {
      const obj = this.forHandlers(this.parse(e));
      for (const reg of this.registrations) this.call(reg, 'onUpdate', obj, obj);
    }
  }

  /** A shard with no ranges: nothing to hold, nothing to ask the server for; waits for ranges. */
  private async holdNothing(round: AbortSignal): Promise<void> {
    for (const key of [...this.entries.keys()]) this.remove(key, undefined, false, false);
    this.markSynced();
    await sleep(2 ** 31 - 1, round);
  }

  /**
   * One streaming list, going on as the watch until it ends or fails; `streamListed` says
   * afterwards whether its initial events ended (the state is then held: watch on from lastRV).
   * 'ended-early': the stream ended before its end bookmark (a server that ignored the request
   * and sent no bookmark); the next list is paginated, as client-go's reflector falls back.
   */
  private async streamList(round: AbortSignal): Promise<'ended' | 'ended-early'> {
    try {
      await this.watchOnce(round, true);
    } finally {
      this.initialEvents = undefined;
    }
    return this.streamListed || round.aborted ? 'ended' : 'ended-early';
  }

  /** Runs the list/watch loop until `signal` aborts. Never rejects; failures are logged and retried. */
  async run(signal: AbortSignal): Promise<void> {
    if (this.running) throw new Error(`kubeforge/runtime: informer for ${this.resource.kind} already running`);
    this.running = true;
    const initialBackoff = this.opts.initialBackoffMs ?? 800;
    const maxBackoff = this.opts.maxBackoffMs ?? 30_000;
    let backoff = initialBackoff;
    let needList = true;
    /** The next list is paginated even where streaming lists are served (see below). */
    let pagedOnce = false;
    let healthySince = 0;
    const period = this.opts.resyncPeriodMs ?? 10 * 60 * 60 * 1000;
    let resyncTimer: NodeJS.Timeout | undefined;
    const scheduleResync = () => {
      if (period <= 0 || signal.aborted) return;
      resyncTimer = setTimeout(
        () => {
          this.resync();
          scheduleResync();
        },
        period * (0.9 + Math.random() * 0.2),
      );
      resyncTimer.unref();
    };
    scheduleResync();
    signal.addEventListener('abort', () => clearTimeout(resyncTimer), { once: true });
    try {
      while (!signal.aborted) {
        // A sharded informer's ranges may change under it (setShardRanges): that aborts this
        // round's list or watch and lists again.
        const restart = new AbortController();
        this.restartAC = restart;
        const round = this.shardMatcher ? AbortSignal.any([signal, restart.signal]) : signal;
        let streaming = false;
        if (this.relistRequested) {
          // The ranges changed (maybe during a back-off): list with the new selector, not watch on.
          this.relistRequested = false;
          needList = true;
        }
        try {
          if (this.shardMatcher && this.shardMatcher.ranges.length === 0) {
            await this.holdNothing(round);
            needList = true;
            continue;
          }
          if (needList && this.shardMatcher && this.shardMode_ === undefined)
            this.shardMode_ = await this.detectShardMode(round, this.shardMatcher);
          if (needList && this.watchListServed && !pagedOnce) {
            healthySince = Date.now();
            streaming = true;
            try {
              pagedOnce = (await this.streamList(round)) === 'ended-early';
            } finally {
              if (this.streamListed) needList = false;
            }
            backoff = initialBackoff;
            continue;
          }
          pagedOnce = false;
          if (needList) {
            this.lastRV = await this.listAndReplace(round);
            needList = false;
            this.notServed = undefined;
            this.markSynced();
          }
          healthySince = Date.now();
          await this.watchOnce(round);
          backoff = initialBackoff;
        } catch (err) {
          if (signal.aborted) break;
          if (streaming && needList && watchListRefused(err)) {
            // The server does not stream lists: list in pages from now on, at once.
            this.watchListServed = false;
            this.log.info(
              { reason: err instanceof Error ? err.message : String(err) },
              'the API server does not serve streaming lists (WatchList); listing in pages',
            );
            continue;
          }
          // The ranges changed (setShardRanges): a list cut short is still needed (needList was
          // not cleared); a watch cut short goes on from lastRV, unless a relist was requested.
          if (restart.signal.aborted) continue;
          if (err instanceof GoneError || isGone(err)) {
            this.stats_.relistsAfterGone++;
            this.log.info({ resourceVersion: this.lastRV }, 'watch resourceVersion expired (410 Gone); relisting');
            needList = true;
            continue;
          }
          this.stats_.watchErrors++;
          if (!this.synced && isNotFound(err)) await this.explainNotServed();
          // A watch that ran fine for a while resets the back-off (client-go resets after 2 min).
          if (healthySince && Date.now() - healthySince > 120_000) backoff = initialBackoff;
          const delay = Math.min(maxBackoff, backoff) * (1 + Math.random());
          backoff = Math.min(maxBackoff, backoff * 2);
          this.log.warn(
            {
              err: err instanceof StatusError ? err.message : String((err as Error)?.message ?? err),
              retryInMs: Math.round(delay),
              relist: needList,
            },
            'list/watch failed; retrying',
          );
          // A change of the shard's ranges (which aborts `round`) ends the wait: they are listed at once.
          if ((await this.rest.waitForRetry(delay, round, err)) === 'recovered') {
            // The server is back: start again from the first step, spread over 100 ms so that
            // many informers do not list in the same instant.
            this.stats_.recoveries++;
            backoff = initialBackoff;
            this.log.info('API server reachable again; resuming list/watch');
            await sleep(Math.random() * 100, signal);
          }
        }
      }
    } finally {
      this.running = false;
    }
  }
}

/** The annotation of the bookmark that ends a streaming list's initial events. */
const INITIAL_EVENTS_END = 'k8s.io/initial-events-end';

/** A stream that did not behave as a streaming list (a server that ignored sendInitialEvents). */
class WatchListNotServedError extends Error {}

/**
 * Whether a streaming list failed because the server does not serve it: the WatchList gate off
 * (`sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled`), or a
 * server older than 1.27 (`resourceVersionMatch is forbidden for watch`), both 422 Invalid; or a
 * stream that ignored the request.
 */
function watchListRefused(err: unknown): boolean {
  if (err instanceof WatchListNotServedError) return true;
  return (
    err instanceof StatusError &&
    (err.code === 422 || err.code === 400) &&
    /sendInitialEvents|resourceVersionMatch|allowWatchBookmarks/.test(err.status.message ?? '')
  );
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      resolve();
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
