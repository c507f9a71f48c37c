/**
 * Event handlers turn events into reconcile requests (controller-runtime's pkg/handler).
 * A handler that throws is logged by the controller and the event dropped for that handler.
 */
import type { KubernetesObject, V1OwnerReference } from '@kubernetes/client-node';
import type { TypeRef } from '../contracts.js';
import { resolveStatic, splitAPIVersion, type TypeTable } from '../client/types.js';
import type { CreateEvent, DeleteEvent, GenericEvent, UpdateEvent } from './predicate.js';
import type { Request } from './reconcile.js';
import { checkOptions } from '../options.js';

/** How a handler queues a request: its priority (higher first; default 0, see LOW_PRIORITY). */
export interface AddOptions {
  priority?: number;
}

/** The part of the work queue handlers use. Adds after shutdown are ignored. */
export interface RequestQueue {
  add(r: Request, options?: AddOptions): void;
  addAfter(r: Request, delayMs: number, options?: AddOptions): void;
  addRateLimited(r: Request, options?: AddOptions): void;
}

/**
 * What the controller gives a handler when its watch starts: the signal that ends with the watch
 * (the controller's shutdown, or the watch removed) and where a failure that happens later (an
 * async map function that rejects) is reported: logged by the controller and counted in
 * `kubeforge_event_handler_errors_total{controller}`.
 */
export interface HandlerContext {
  signal: AbortSignal;
  onError(err: unknown, event: 'create' | 'update' | 'delete' | 'generic'): void;
}

/** Maps events to requests. Absent methods ignore that event kind. */
export interface EventHandler<T extends KubernetesObject = KubernetesObject> {
  create?(e: CreateEvent<T>, q: RequestQueue): void;
  update?(e: UpdateEvent<T>, q: RequestQueue): void;
  delete?(e: DeleteEvent<T>, q: RequestQueue): void;
  generic?(e: GenericEvent<T>, q: RequestQueue): void;
  /** Called once when the watch starts, before any event (see HandlerContext). */
  bind?(ctx: HandlerContext): void;
}

function requestFor(o: KubernetesObject | undefined): Request | undefined {
  const meta = o?.metadata;
  return meta?.name ? { namespace: meta.namespace ?? '', name: meta.name } : undefined;
}

/**
 * The event functions of a handler that maps an event's object to requests: an update enqueues
 * the requests of both the old and the new object, each distinct request once.
 */
function perObject<T extends KubernetesObject>(
  requestsOf: (o: T) => Iterable<Request>,
): Required<Pick<EventHandler<T>, 'create' | 'update' | 'delete' | 'generic'>> {
  const add = (objects: readonly (T | undefined)[], q: RequestQueue) => {
    const seen = new Set<string>();
    for (const o of objects) {
      if (!o) continue;
      for (const r of requestsOf(o)) {
        const key = `${r.namespace}/${r.name}`;
        if (seen.has(key)) continue;
        seen.add(key);
        q.add(r);
      }
    }
  };
  return {
    create: (e, q) => add([e.object], q),
    update: (e, q) => add([e.objectOld, e.objectNew], q),
    delete: (e, q) => add([e.object], q),
    generic: (e, q) => add([e.object], q),
  };
}

/** Enqueues the object of the event itself (what `for()` uses). */
export function enqueueRequestForObject<T extends KubernetesObject = KubernetesObject>(): EventHandler<T> {
  const add = (o: KubernetesObject | undefined, q: RequestQueue) => {
    const r = requestFor(o);
    if (r) q.add(r);
  };
  return {
    create: (e, q) => add(e.object, q),
    update: (e, q) => add(e.objectNew ?? e.objectOld, q),
    delete: (e, q) => add(e.object, q),
    generic: (e, q) => add(e.object, q),
  };
}

/** Where an owner type's scope comes from: `mgr.getRESTMapper()` (or any object that resolves types). */
export interface OwnerScopeMapper {
  resolve(type: TypeRef): Promise<{ namespaced: boolean }>;
}

/** Options of enqueueRequestForOwner. */
export interface EnqueueForOwnerOptions {
  /** Only follow the owner reference with `controller: true` (default true, as `owns()` does). */
  onlyControllerOwner?: boolean;
  /**
   * Resolves the owner type's scope when the type does not say it (a descriptor without
   * `namespaced` whose kind is neither built in nor registered): pass `mgr.getRESTMapper()`, as
   * controller-runtime's EnqueueRequestForOwner takes the manager's RESTMapper. Until the first
   * answer (the mapper caches discovery) an event's requests wait for it, in event order; a
   * failed lookup is logged and counted as an event handler error and that event's requests are
   * dropped. Without a mapper, an owner type of unknown scope is refused when the handler is made.
   */
  mapper?: OwnerScopeMapper;
}

/**
 * Enqueues the owners (of type `ownerType`) named in the object's ownerReferences (what
 * `owns()` uses). By default only the controller reference counts; pass
 * `{ onlyControllerOwner: false }` for all owners of that type. Owners are matched on API group
 * and kind (any version), as controller-runtime does; a cluster-scoped owner is requested without
 * a namespace. Updates enqueue owners of old and new object. The owner's scope comes from the
 * type (class statics, a descriptor's `namespaced`, the built-in kinds) or from `mapper`; with
 * neither, this throws a TypeError naming both.
 */
export function enqueueRequestForOwner<T extends KubernetesObject = KubernetesObject>(
  ownerType: TypeRef,
  opts: EnqueueForOwnerOptions = {},
): EventHandler<T> {
  checkOptions(
    'enqueueRequestForOwner',
    opts,
    { onlyControllerOwner: true, mapper: true },
    { isController: 'onlyControllerOwner' },
  );
  return ownerHandler<T>(ownerType, opts);
}

/**
 * enqueueRequestForOwner, with the owner type resolved through `table` first (a manager's
 * registrations: the builder's `owns()`) and its scope, when still unknown, through `opts.mapper`.
 */
export function ownerHandler<T extends KubernetesObject = KubernetesObject>(
  ownerType: TypeRef,
  opts: EnqueueForOwnerOptions,
  table?: TypeTable,
): EventHandler<T> {
  const s = resolveStatic(ownerType, table);
  const group = splitAPIVersion(s.apiVersion).group;
  const kind = s.kind;
  const only = opts.onlyControllerOwner ?? true;
  const requestsOf = (o: KubernetesObject, ownerNamespaced: boolean): Request[] => {
    const requests: Request[] = [];
    for (const ref of o.metadata?.ownerReferences ?? ([] as V1OwnerReference[])) {
      if (only && !ref.controller) continue;
      if (ref.kind !== kind || splitAPIVersion(ref.apiVersion).group !== group) continue;
      requests.push({ namespace: ownerNamespaced ? (o.metadata?.namespace ?? '') : '', name: ref.name });
    }
    return requests;
  };
  // The scope as the type says it (a plural is not needed for that) or as the table knows it.
  const declared = (ownerType as { namespaced?: unknown }).namespaced;
  const known =
    typeof declared === 'boolean'
      ? declared
      : 'namespaced' in s && typeof s.namespaced === 'boolean'
        ? s.namespaced
        : undefined;
  if (known !== undefined) return perObject<T>((o) => requestsOf(o, known));
  const mapper = opts.mapper;
  if (!mapper)
    throw new TypeError(
      `enqueueRequestForOwner: the scope of owner ${s.apiVersion} ${kind} is not known: pass { mapper: mgr.getRESTMapper() }, ` +
        'or a type that says it (a class with static namespaced, or namespaced in the descriptor)',
    );
  // The scope, once the mapper answered: later events map synchronously.
  let namespaced: boolean | undefined;
  return enqueueRequestsFromMapFunc<T>((o) =>
    namespaced !== undefined
      ? requestsOf(o, namespaced)
      : mapper.resolve(ownerType).then((r) => {
          namespaced = r.namespaced;
          return requestsOf(o, namespaced);
        }),
  );
}

/** What a map function gets beside the object: the signal that aborts when the controller stops (or the watch is removed). */
export interface MapContext {
  signal: AbortSignal;
}

/**
 * Maps an object to the requests to enqueue (may be empty): synchronously, or asynchronously (a
 * map function that reads the cache: `async (ns, { signal }) => (await client.list(Parent, { signal })).items...`).
 */
export type MapFunc<T extends KubernetesObject = KubernetesObject> = (
  obj: T,
  ctx: MapContext,
) => Request[] | Promise<Request[]>;

/** A handler whose pending async work can be awaited (tests: the requests of the events delivered so far are queued). */
export interface MapFuncHandler<T extends KubernetesObject = KubernetesObject> extends EventHandler<T> {
  /**
   * Resolves once every event delivered so far has been mapped and its requests queued (or its
   * error reported). Outside a controller, rejects with the first error of those mappings.
   */
  idle(): Promise<void>;
}

/**
 * Enqueues whatever `fn` returns for the event's object (for updates: for old and new object,
 * deduplicated) (controller-runtime's EnqueueRequestsFromMapFunc, whose MapFunc gets a context).
 *
 * `fn` may return a promise: the requests are queued when it resolves, the requests of one
 * object's events in the order of the events (a later event waits for an earlier one's mapping);
 * a rejection (or a throw) is logged by the controller and counted
 * (`kubeforge_event_handler_errors_total`), and that event's requests are dropped. On shutdown
 * (the watch's signal, which `fn` gets as `ctx.signal`) mappings still pending queue nothing.
 * A synchronous `fn` queues at once, as before.
 */
export function enqueueRequestsFromMapFunc<T extends KubernetesObject = KubernetesObject>(
  fn: MapFunc<T>,
): MapFuncHandler<T> {
  /** Outside a controller (a unit test calling the handler): errors are kept for idle() to reject with. */
  const failures: unknown[] = [];
  let ctx: HandlerContext = { signal: new AbortController().signal, onError: (err) => void failures.push(err) };
  /** The last pending mapping of each object (namespace/name), which the next one of that object waits for. */
  const pending = new Map<string, Promise<void>>();
  const queue = (lists: (Request[] | undefined)[], q: RequestQueue) => {
    const seen = new Set<string>();
    for (const list of lists)
      for (const r of list ?? []) {
        const req = { namespace: r.namespace ?? '', name: r.name };
        const key = `${req.namespace}/${req.name}`;
        if (seen.has(key)) continue;
        seen.add(key);
        q.add(req);
      }
  };
  const handle = (event: 'create' | 'update' | 'delete' | 'generic', objects: (T | undefined)[], q: RequestQueue) => {
    const results = objects.filter((o): o is T => o !== undefined).map((o) => fn(o, { signal: ctx.signal }));
    const key = (() => {
      const o = objects[objects.length - 1] ?? objects[0];
      return `${o?.metadata?.namespace ?? ''}/${o?.metadata?.name ?? ''}`;
    })();
    const before = pending.get(key);
    if (!before && !results.some((r) => r instanceof Promise)) return queue(results as Request[][], q);
    const next: Promise<void> = (before ?? Promise.resolve())
      .then(() => Promise.all(results))
      .then((lists) => {
        if (!ctx.signal.aborted) queue(lists, q);
      })
      .catch((err: unknown) => {
        if (!ctx.signal.aborted) ctx.onError(err, event);
      })
      .finally(() => {
        if (pending.get(key) === next) pending.delete(key);
      });
    pending.set(key, next);
  };
  return {
    bind(c) {
      ctx = c;
    },
    create: (e, q) => handle('create', [e.object], q),
    update: (e, q) => handle('update', [e.objectOld, e.objectNew], q),
    delete: (e, q) => handle('delete', [e.object], q),
    generic: (e, q) => handle('generic', [e.object], q),
    async idle() {
      while (pending.size) await Promise.all(pending.values());
      if (failures.length) throw failures.splice(0)[0];
    },
  };
}

/** A handler from plain functions (controller-runtime's handler.Funcs). */
export function handlerFuncs<T extends KubernetesObject = KubernetesObject>(funcs: EventHandler<T>): EventHandler<T> {
  return funcs;
}
