/**
 * The controller builder (controller-runtime's pkg/builder):
 *
 *   controllerManagedBy(mgr).for(Memcached).owns(V1Deployment).complete(reconciler)
 *
 * Mistakes (no for(), for() twice, a bad type, a duplicate name, bad options, complete() twice)
 * are recorded as the chain is built and reported together by complete()/build(), which throw a
 * BuilderError listing every problem; nothing is registered with the manager in that case.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Cache, TypeRef } from '../contracts.js';
import type { Manager } from '../manager/types.js';
import { metadataOnlyIn, resolveStatic, type TypeTable } from '../client/types.js';
import { registerInto } from '../client/prom.js';
import { CONTROLLER_OPTION_NAMES, CONTROLLER_RENAMES, Controller } from './controller.js';
import type { ControllerOptions } from './controller.js';
import { clusterEngagementOf, type AddWatch } from './engage.js';
import { unknownOptions } from '../options.js';
import { enqueueRequestForObject, ownerHandler } from './handler.js';
import type { EventHandler, OwnerScopeMapper } from './handler.js';
import type { Predicate } from './predicate.js';
import type { Reconciler, Request } from './reconcile.js';
import { isNotFound } from '../client/errors.js';
import { isSource, kindSource } from './source.js';
import type { Source } from './source.js';

/** Thrown by complete()/build() (of the controller and the webhook builder) with every problem found in the builder chain. */
export class BuilderError extends Error {
  constructor(
    readonly controllerName: string,
    readonly problems: string[],
    /** What was being built: 'controller' (default) or 'webhook'. */
    readonly what: 'controller' | 'webhook' = 'controller',
  ) {
    super(
      `kubeforge/runtime: cannot build ${what} ${controllerName ? `"${controllerName}"` : '(unnamed)'}:\n${problems.map((p) => `  - ${p}`).join('\n')}`,
    );
    this.name = 'BuilderError';
  }
}

/** Options of `for()`. */
export interface ForOptions {
  predicates?: Predicate[];
  /**
   * Watch metadata only (controller-runtime's builder.OnlyMetadata): the cache lists and watches
   * PartialObjectMetadata of the type (a separate informer), so events carry only apiVersion, kind
   * and metadata, and memory holds no spec, status or data. Read the same objects in the reconciler
   * with `client.get(metadataOnly(Type), key)` to stay on that informer.
   */
  metadataOnly?: boolean;
}
/** Options of `owns()`. */
export interface OwnsOptions {
  predicates?: Predicate[];
  /** Follow only controller owner references (default true). */
  onlyControllerOwner?: boolean;
  /**
   * Watch metadata only (controller-runtime's builder.OnlyMetadata): the cache lists and watches
   * PartialObjectMetadata of the type (a separate informer), so events carry only apiVersion, kind
   * and metadata, and memory holds no spec, status or data. Read the same objects in the reconciler
   * with `client.get(metadataOnly(Type), key)` to stay on that informer.
   */
  metadataOnly?: boolean;
}
/** Options of `watches()`. */
export interface WatchesOptions {
  predicates?: Predicate[];
  /**
   * Watch metadata only (controller-runtime's builder.OnlyMetadata): the cache lists and watches
   * PartialObjectMetadata of the type (a separate informer), so events carry only apiVersion, kind
   * and metadata, and memory holds no spec, status or data. Read the same objects in the reconciler
   * with `client.get(metadataOnly(Type), key)` to stay on that informer.
   */
  metadataOnly?: boolean;
}

const namesPerManager = new WeakMap<object, Set<string>>();

/** The owner type of owns(): the for() type (build() reports owns() without for()). */
function ownerTypeOf(forType: TypeRef | undefined, name: string | undefined): TypeRef {
  if (!forType) throw new BuilderError(name ?? '', ['owns() needs for(): the owner type is the for() type']);
  return forType;
}

interface PendingWatch {
  target: TypeRef | Source;
  handler: EventHandler | 'owner';
  predicates: Predicate[];
  onlyControllerOwner?: boolean;
}

function typeLabel(t: unknown): string {
  if (typeof t === 'function') return t.name || '(anonymous class)';
  if (t && typeof t === 'object' && 'kind' in t) return String((t as { kind: unknown }).kind);
  return String(t);
}

/** See the module comment. */
export class Builder {
  private forType?: TypeRef;
  /** for()'s type as watched (metadataOnly(forType) with its option). */
  private forWatched?: TypeRef;
  private forPredicates: Predicate[] = [];
  private forCalls = 0;
  private readonly pending: PendingWatch[] = [];
  private readonly globalPredicates: Predicate[] = [];
  private options: ControllerOptions = {};
  private name?: string;
  private readonly problems: string[] = [];
  private done = false;

  constructor(private readonly mgr: Manager) {
    if (!mgr || typeof mgr.getCache !== 'function' || typeof mgr.add !== 'function')
      this.problems.push(
        'controllerManagedBy(mgr) needs a manager (getCache, getClient, getLogger, getMetricsRegistry, add)',
      );
  }

  /** The manager's type registrations, when it has a RESTMapper. */
  private table(): TypeTable | undefined {
    const m = this.mgr as Partial<Manager> | undefined;
    return typeof m?.getRESTMapper === 'function' ? m.getRESTMapper().types() : undefined;
  }

  private checkType(t: unknown, where: string): boolean {
    try {
      resolveStatic(t as TypeRef, this.table());
      return true;
    } catch (e) {
      this.problems.push(`${where}: ${(e as Error).message.replace(/^kubeforge\/runtime: /, '')}`);
      return false;
    }
  }

  /** The type as watched: `metadataOnly(type)` when the option asks for it (after checkType passed). */
  private asWatched(type: TypeRef, opts: { metadataOnly?: boolean }): TypeRef {
    return opts?.metadataOnly ? metadataOnlyIn(type, this.table()) : type;
  }

  private checkPredicates(ps: unknown, where: string): Predicate[] {
    if (ps === undefined) return [];
    if (!Array.isArray(ps)) {
      this.problems.push(`${where}: predicates must be an array`);
      return [];
    }
    ps.forEach((p, i) => {
      if (!p || typeof p !== 'object')
        this.problems.push(`${where}: predicate #${i + 1} is not a predicate object (got ${String(p)})`);
    });
    return ps.filter((p) => p && typeof p === 'object');
  }

  /** The type this controller reconciles; its events enqueue the object itself. Call once. */
  for<T extends KubernetesObject>(type: TypeRef<T>, opts: ForOptions = {}): this {
    this.forCalls++;
    this.problems.push(...unknownOptions('for()', opts, { predicates: true, metadataOnly: true }));
    if (this.forCalls > 1) {
      this.problems.push(
        `for() may only be called once (called again with ${typeLabel(type)}); use watches() for more types`,
      );
      return this;
    }
    if (this.checkType(type, 'for()')) {
      this.forType = type;
      this.forWatched = this.asWatched(type, opts);
    }
    this.forPredicates = this.checkPredicates(opts.predicates, 'for()');
    return this;
  }

  /** A type this controller creates; its events enqueue the owner (of the for() type) named in controller owner references. */
  owns<T extends KubernetesObject>(type: TypeRef<T>, opts: OwnsOptions = {}): this {
    this.problems.push(
      ...unknownOptions(`owns(${typeLabel(type)})`, opts, {
        predicates: true,
        onlyControllerOwner: true,
        metadataOnly: true,
      }),
    );
    if (this.checkType(type, `owns(${typeLabel(type)})`)) {
      this.pending.push({
        target: this.asWatched(type, opts),
        handler: 'owner',
        predicates: this.checkPredicates(opts.predicates, 'owns()'),
        onlyControllerOwner: opts.onlyControllerOwner,
      });
    }
    return this;
  }

  /** Any other type or source, with the handler mapping its events to requests. */
  watches<T extends KubernetesObject>(
    target: TypeRef<T> | Source,
    handler: EventHandler<T>,
    opts: WatchesOptions = {},
  ): this {
    this.problems.push(...unknownOptions('watches()', opts, { predicates: true, metadataOnly: true }));
    if (!handler || typeof handler !== 'object') {
      this.problems.push(
        `watches(${isSource(target) ? String(target) : typeLabel(target)}): needs an event handler (e.g. enqueueRequestsFromMapFunc(fn))`,
      );
      return this;
    }
    if (!isSource(target) && !this.checkType(target, `watches(${typeLabel(target)})`)) return this;
    this.pending.push({
      target: isSource(target) ? target : this.asWatched(target, opts),
      handler: handler as EventHandler,
      predicates: this.checkPredicates(opts.predicates, 'watches()'),
    });
    return this;
  }

  /** A predicate applied to every watch of this controller (for, owns and watches). */
  withEventFilter(p: Predicate): this {
    if (!p || typeof p !== 'object')
      this.problems.push(`withEventFilter(): expected a predicate object, got ${String(p)}`);
    else this.globalPredicates.push(p);
    return this;
  }

  /** Controller options (merged over earlier calls); an unknown name is reported by complete(). */
  withOptions(o: ControllerOptions): this {
    const unknown = unknownOptions('withOptions()', o, CONTROLLER_OPTION_NAMES, CONTROLLER_RENAMES);
    if (unknown.length > 0) {
      this.problems.push(...unknown);
      return this;
    }
    if (
      o.maxConcurrentReconciles !== undefined &&
      (!Number.isInteger(o.maxConcurrentReconciles) || o.maxConcurrentReconciles < 1)
    ) {
      this.problems.push(
        `withOptions(): maxConcurrentReconciles must be a positive integer (got ${o.maxConcurrentReconciles})`,
      );
    }
    if (o.reconciliationTimeoutMs !== undefined && !(o.reconciliationTimeoutMs > 0))
      this.problems.push(`withOptions(): reconciliationTimeoutMs must be > 0 ms (got ${o.reconciliationTimeoutMs})`);
    if (o.cacheSyncTimeoutMs !== undefined && !(o.cacheSyncTimeoutMs > 0))
      this.problems.push(`withOptions(): cacheSyncTimeoutMs must be > 0 ms (got ${o.cacheSyncTimeoutMs})`);
    if (o.rateLimiter !== undefined && (typeof o.rateLimiter !== 'object' || typeof o.rateLimiter.when !== 'function'))
      this.problems.push('withOptions(): rateLimiter must implement when/forget/numRequeues');
    this.options = { ...this.options, ...o };
    return this;
  }

  /** The controller's name (metrics label, logs). Default: the for() kind in lower case. Must be unique per manager. */
  named(name: string): this {
    if (typeof name !== 'string' || !/^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(name)) {
      this.problems.push(
        `named(): "${String(name)}" is not a valid controller name (letters, digits, '-', '_', '.'; starting and ending alphanumeric)`,
      );
    } else this.name = name;
    return this;
  }

  /** Builds the controller and adds it to the manager; throws BuilderError listing every problem. */
  complete(reconciler: Reconciler): Controller {
    return this.build(reconciler);
  }

  /** Like complete(), returning the Controller (e.g. to add watches later). */
  build(reconciler: Reconciler): Controller {
    const problems = [...this.problems];
    if (this.done) problems.push('complete()/build() was already called on this builder');
    this.done = true;
    if (
      !reconciler ||
      (typeof reconciler !== 'function' && typeof (reconciler as { reconcile?: unknown }).reconcile !== 'function')
    ) {
      problems.push(
        'complete() needs a reconciler: a function (request, ctx) => Result, or an object with reconcile(request, ctx)',
      );
    }
    if (!this.forType && this.forCalls === 0) {
      if (!this.name)
        problems.push(
          'must provide an object for reconciliation with for(), or name the controller with named() when it only uses watches()',
        );
      else if (this.pending.length === 0)
        problems.push(`controller "${this.name}" watches nothing: add for(), owns() or watches()`);
    }
    if (this.pending.some((w) => w.handler === 'owner') && !this.forType && this.forCalls === 0)
      problems.push('owns() needs for(): the owner type is the for() type');
    let name = this.name;
    if (!name && this.forType) {
      try {
        name = resolveStatic(this.forType, this.table()).kind.toLowerCase();
      } catch {
        /* reported above */
      }
    }
    if (name && this.mgr && typeof this.mgr === 'object') {
      let names = namesPerManager.get(this.mgr);
      if (!names) {
        names = new Set();
        namesPerManager.set(this.mgr, names);
      }
      if (names.has(name))
        problems.push(
          `a controller named "${name}" already exists in this manager: give this one another name with named()`,
        );
    }
    if (problems.length) throw new BuilderError(name ?? '', problems);
    // Without for() the name comes from named(), whose absence is a problem above.
    if (!name) throw new BuilderError('', ['the controller has no name: name it with named()']);

    const mgr = this.mgr;
    const cache = mgr.getCache();
    let forKind: { group: string; kind: string } | undefined;
    if (this.forType) {
      const r = resolveStatic(this.forType, this.table());
      const slash = r.apiVersion.indexOf('/');
      forKind = { group: slash < 0 ? '' : r.apiVersion.slice(0, slash), kind: r.kind };
    }
    // For a sharded Manager: which types this controller watches, and how to read its for() object.
    const typeName = (t: TypeRef) => {
      const r = resolveStatic(t, this.table());
      return `${r.apiVersion}/${r.kind}`;
    };
    const watchedTypes = [
      ...(this.forType ? [{ type: typeName(this.forType), for: true }] : []),
      ...this.pending.flatMap((w) => (isSource(w.target) ? [] : [{ type: typeName(w.target), for: false }])),
    ];
    const forType = this.forWatched ?? this.forType;
    const getForObject = forType
      ? (req: Request) =>
          cache
            .get(forType, { namespace: req.namespace || undefined, name: req.name })
            .catch((e: unknown) => (isNotFound(e) ? undefined : Promise.reject(e)))
      : undefined;
    const controller = new Controller(
      name,
      reconciler,
      {
        cache,
        logger: mgr.getLogger(),
        registry: registerInto(mgr),
        forKind,
        watchedTypes,
        getForObject,
        listForObjects: forType ? async () => (await cache.list(forType)).items : undefined,
      },
      this.options,
    );
    // The kind watches on one cache (and, with `sources`, the given Source watches too).
    const wire = (c: typeof cache, add: AddWatch, kinds = true, sources = true) => {
      if (this.forType && kinds)
        add(
          kindSource(c, this.forWatched ?? this.forType),
          enqueueRequestForObject(),
          ...this.globalPredicates,
          ...this.forPredicates,
        );
      for (const w of this.pending) {
        if (isSource(w.target) ? !sources : !kinds) continue;
        const source = isSource(w.target) ? w.target : kindSource(c, w.target);
        const handler =
          w.handler === 'owner'
            ? ownerHandler(
                ownerTypeOf(this.forType, this.name),
                { onlyControllerOwner: w.onlyControllerOwner, mapper: scopeMapper(c) },
                this.table(),
              )
            : w.handler;
        add(source, handler, ...this.globalPredicates, ...w.predicates);
      }
    };
    const direct: AddWatch = (source, handler, ...predicates) => controller.watch(source, handler, ...predicates);
    // A multi-cluster manager sets the kinds up on each cluster it engages (kubeforge/runtime/multicluster).
    const engagement = clusterEngagementOf(mgr);
    if (engagement) {
      wire(cache, direct, false, true);
      engagement.adopt(controller, (c, add) => wire(c, add, true, false));
    } else wire(cache, direct);
    namesPerManager.set(mgr, (namesPerManager.get(mgr) ?? new Set()).add(name));
    mgr.add(controller);
    return controller;
  }
}

/**
 * Where `owns()` learns the scope of a for-type that does not say it: the cache of the cluster
 * the watch is on (its RESTMapper: the manager's, or an engaged cluster's own), else the type's
 * informer.
 */
function scopeMapper(c: Cache): OwnerScopeMapper {
  const resolver = c as Cache & { resolve?: (t: TypeRef) => Promise<{ namespaced: boolean }> };
  return {
    resolve: (t) =>
      typeof resolver.resolve === 'function' ? resolver.resolve(t) : c.getInformer(t).then((i) => i.resource),
  };
}

/** Starts a builder for a controller managed by `mgr` (controller-runtime's builder.ControllerManagedBy). */
export function controllerManagedBy(mgr: Manager): Builder {
  return new Builder(mgr);
}
