/**
 * The informer cache (controller-runtime's cache.Cache): one SharedInformer per type, created on
 * first use, all started by `start(signal)`, reads served from memory.
 */
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import pino from 'pino';
import type { Logger } from 'pino';
import type { Cache, IndexExtractor, Informer, ListOptions, ObjectKey, ObjectList, ResourceInfo, TypeRef } from '../contracts.js';
import { NotFoundError } from '../client/errors.js';
import { Resolver } from '../client/resolver.js';
import { RestClient } from '../client/rest.js';
import { matchesLabels, parseFieldSelector, parseLabelSelector } from '../client/selector.js';
import { SharedInformer, objectKey } from './informer.js';
import type { SharedInformerOptions } from './informer.js';

/** Options of `newCache`. */
export interface CacheOptions {
  /**
   * Restrict namespaced types to one namespace (WATCH_NAMESPACE). Reads of other namespaces then
   * reject with an Error. Cluster-scoped types are always watched cluster-wide.
   */
  namespace?: string;
  /** Logger for informer warnings (default: silent). */
  logger?: Logger;
  /** How long `get`/`list` wait for a new informer's first list before rejecting (ms). Default 120 000. */
  syncTimeoutMs?: number;
  /** Applied to every object before caching (e.g. strip metadata.managedFields to save memory). */
  transform?: (obj: KubernetesObject) => KubernetesObject;
  /** Share an existing transport. */
  rest?: RestClient;
  /**
   * Re-deliver every cached object to handlers as an update this often (ms, jittered); controllers
   * then reconcile everything again (unless a predicate such as GenerationChangedPredicate drops
   * it). controller-runtime's SyncPeriod; default 10 hours; 0 disables.
   */
  syncPeriodMs?: number;
  /** Informer back-off tuning (tests). */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
}

/** Thrown by reads before `start()` was called (controller-runtime's ErrCacheNotStarted). */
export class CacheNotStartedError extends Error {
  constructor() {
    super('kubeforge/runtime: the cache is not started; reads need Manager.start() (or cache.start()) first');
    this.name = 'CacheNotStartedError';
  }
}

/**
 * Creates the informer cache. Nothing is listed until `start(signal)`; informers requested later
 * start immediately. On shutdown (signal aborted) every watch is closed and start() resolves.
 * List/watch failures never reject start(): informers log and retry with back-off.
 */
export function newCache(config: KubeConfig, options: CacheOptions = {}): InformerCache {
  return new InformerCache(options.rest ?? new RestClient(config), options);
}

/** See `newCache`. */
export class InformerCache implements Cache {
  private readonly informers = new Map<string, SharedInformer>();
  private readonly resolver: Resolver;
  private readonly logger: Logger;
  private signal?: AbortSignal;
  private readonly runs: Promise<void>[] = [];

  constructor(
    private readonly rest: RestClient,
    private readonly options: CacheOptions,
  ) {
    this.resolver = new Resolver(rest);
    this.logger = options.logger ?? pino({ level: 'silent' });
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

  async waitForCacheSync(signal?: AbortSignal): Promise<boolean> {
    const all = [...this.informers.values()];
    const results = await Promise.all(all.map((i) => i.waitForSync(anySignal(signal, this.signal))));
    return results.every(Boolean);
  }

  /** Resolves the REST coordinates of a type (shared discovery cache). */
  resolve(type: TypeRef | KubernetesObject): Promise<ResourceInfo> {
    return this.resolver.resolve(type);
  }

  async getInformer<T extends KubernetesObject>(type: TypeRef<T>): Promise<Informer<T>> {
    return (await this.informerFor(type)) as unknown as Informer<T>;
  }

  /** Like getInformer, typed as kubeforge's SharedInformer (stats, store). */
  async informerFor(type: TypeRef | KubernetesObject): Promise<SharedInformer> {
    const r = await this.resolver.resolve(type);
    const k = `${r.apiVersion}/${r.kind}`;
    let inf = this.informers.get(k);
    if (!inf) {
      const o: SharedInformerOptions = {
        namespace: this.options.namespace,
        logger: this.logger,
        transform: this.options.transform,
        initialBackoffMs: this.options.initialBackoffMs,
        maxBackoffMs: this.options.maxBackoffMs,
        resyncPeriodMs: this.options.syncPeriodMs,
      };
      inf = new SharedInformer(this.rest, r, o);
      this.informers.set(k, inf);
      if (this.signal && !this.signal.aborted) this.runs.push(inf.run(this.signal));
    }
    return inf;
  }

  async indexField<T extends KubernetesObject>(type: TypeRef<T>, field: string, extractor: IndexExtractor<T>): Promise<void> {
    const inf = await this.informerFor(type);
    inf.addIndexer(field, extractor as IndexExtractor);
  }

  private async synced(type: TypeRef): Promise<SharedInformer> {
    if (!this.signal) throw new CacheNotStartedError();
    const inf = await this.informerFor(type);
    if (!inf.hasSynced()) {
      const timeout = AbortSignal.timeout(this.options.syncTimeoutMs ?? 120_000);
      const ok = await inf.waitForSync(anySignal(timeout, this.signal));
      if (!ok) throw new Error(`kubeforge/runtime: timed out waiting for the ${inf.resource.kind} informer to sync (is the type served and readable?)`);
    }
    return inf;
  }

  private checkNamespace(r: ResourceInfo, namespace: string | undefined): void {
    if (r.namespaced && this.options.namespace && namespace && namespace !== this.options.namespace) {
      throw new Error(`kubeforge/runtime: the cache only watches namespace "${this.options.namespace}"; cannot read ${r.kind} in "${namespace}" (use the API reader)`);
    }
  }

  /** Reads one object from memory; the result is the caller's own copy. NotFoundError if absent. */
  async get<T extends KubernetesObject>(type: TypeRef<T>, key: ObjectKey): Promise<T> {
    const inf = await this.synced(type);
    const r = inf.resource;
    this.checkNamespace(r, key.namespace);
    const e = inf.store.get(objectKey(r.namespaced ? key.namespace : undefined, key.name));
    if (!e) {
      throw new NotFoundError(404, {
        reason: 'NotFound',
        message: `${r.plural}${r.group ? `.${r.group}` : ''} "${key.name}" not found${r.namespaced && key.namespace ? ` in namespace "${key.namespace}"` : ''}`,
        details: { name: key.name, group: r.group, kind: r.plural },
      });
    }
    return inf.parse(e) as T;
  }

  /**
   * Lists from memory, sorted by namespace/name. Field selectors need an index registered with
   * `indexField` (or metadata.name / metadata.namespace); others reject with an Error.
   */
  async list<T extends KubernetesObject>(type: TypeRef<T>, o: ListOptions = {}): Promise<ObjectList<T>> {
    const inf = await this.synced(type);
    const r = inf.resource;
    this.checkNamespace(r, o.namespace);
    const labels = parseLabelSelector(o.labelSelector);
    const fields = parseFieldSelector(o.fieldSelector);
    for (const f of fields) {
      if (f.field !== 'metadata.name' && f.field !== 'metadata.namespace' && !inf.indexers.has(f.field)) {
        throw new Error(`kubeforge/runtime: field selector "${f.field}" on ${r.kind} needs an index: call cache.indexField(${r.kind}, '${f.field}', extractor) before starting (or use metadata.name / metadata.namespace)`);
      }
    }
    const namespace = r.namespaced ? o.namespace || undefined : undefined;
    // Narrow the candidates with the smallest matching index: field indexes, the label index for
    // equality requirements, the namespace index; every requirement is still checked below.
    let candidates: Set<string> | undefined;
    const consider = (s: Set<string> | undefined) => {
      const set = s ?? new Set<string>();
      if (!candidates || set.size < candidates.size) candidates = set;
    };
    for (const f of fields) if (f.op === '=' && inf.indices.has(f.field)) consider(inf.indices.get(f.field)!.get(f.value));
    for (const l of labels) if (l.op === '=' || (l.op === 'in' && l.values.length === 1)) consider(inf.byLabel.get(`${l.key}=${l.values[0]}`));
    if (namespace) consider(inf.byNamespace.get(namespace));
    const keys = candidates ? [...candidates] : [...inf.store.keys()];
    keys.sort();
    const items: T[] = [];
    for (const key of keys) {
      const e = inf.store.get(key);
      if (!e) continue;
      if (namespace && e.namespace !== namespace) continue;
      if (labels.length && !matchesLabels(labels, e.labels)) continue;
      let ok = true;
      for (const f of fields) {
        const values = f.field === 'metadata.name' ? [e.name] : f.field === 'metadata.namespace' ? [e.namespace] : (e.index?.[f.field] ?? []);
        const has = values.includes(f.value);
        if ((f.op === '=') !== has) {
          ok = false;
          break;
        }
      }
      if (ok) items.push(inf.parse(e) as T);
    }
    return { apiVersion: r.apiVersion, kind: `${r.kind}List`, metadata: { resourceVersion: inf.lastResourceVersion() }, items };
  }
}

/** An AbortSignal that aborts when any given one does. */
function anySignal(...signals: (AbortSignal | undefined)[]): AbortSignal | undefined {
  const s = signals.filter((x): x is AbortSignal => x !== undefined);
  if (s.length === 0) return undefined;
  if (s.length === 1) return s[0];
  return AbortSignal.any(s);
}
