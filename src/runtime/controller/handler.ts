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

/** Maps events to requests. Absent methods ignore that event kind. */
export interface EventHandler<T extends KubernetesObject = KubernetesObject> {
  create?(e: CreateEvent<T>, q: RequestQueue): void;
  update?(e: UpdateEvent<T>, q: RequestQueue): void;
  delete?(e: DeleteEvent<T>, q: RequestQueue): void;
  generic?(e: GenericEvent<T>, q: RequestQueue): void;
  /** Called once before the source starts (e.g. to resolve a type through discovery). Rejecting fails the controller start. */
  prepare?(resolve: (type: TypeRef) => Promise<{ namespaced: boolean }>): Promise<void>;
}

function requestFor(o: KubernetesObject | undefined): Request | undefined {
  const name = o?.metadata?.name;
  return name ? { namespace: o!.metadata!.namespace ?? '', name } : undefined;
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

/** Options of enqueueRequestForOwner. */
export interface EnqueueForOwnerOptions {
  /** Only follow the owner reference with `controller: true` (default true, as `owns()` does). */
  onlyControllerOwner?: boolean;
}

/**
 * Enqueues the owners (of type `ownerType`) named in the object's ownerReferences (what
 * `owns()` uses). By default only the controller reference counts; pass
 * `{ onlyControllerOwner: false }` for all owners of that type. Owners are matched on API group
 * and kind (any version), as controller-runtime does. Updates enqueue owners of old and new object.
 */
export function enqueueRequestForOwner<T extends KubernetesObject = KubernetesObject>(
  ownerType: TypeRef,
  opts: EnqueueForOwnerOptions = {},
): EventHandler<T> {
  checkOptions('enqueueRequestForOwner', opts, { onlyControllerOwner: true }, { isController: 'onlyControllerOwner' });
  return ownerHandler<T>(ownerType, opts);
}

/** enqueueRequestForOwner, resolving the owner type through a manager's registrations (the builder's `owns()`). */
export function ownerHandler<T extends KubernetesObject = KubernetesObject>(
  ownerType: TypeRef,
  opts: EnqueueForOwnerOptions,
  table?: TypeTable,
): EventHandler<T> {
  const s = resolveStatic(ownerType, table);
  const group = splitAPIVersion(s.apiVersion).group;
  const kind = s.kind;
  let ownerNamespaced: boolean | undefined =
    'namespaced' in s && typeof s.namespaced === 'boolean' ? s.namespaced : undefined;
  const only = opts.onlyControllerOwner ?? true;
  const handler = perObject<T>((o) => {
    const requests: Request[] = [];
    for (const ref of o.metadata?.ownerReferences ?? ([] as V1OwnerReference[])) {
      if (only && !ref.controller) continue;
      if (ref.kind !== kind || splitAPIVersion(ref.apiVersion).group !== group) continue;
      requests.push({ namespace: ownerNamespaced === false ? '' : (o.metadata?.namespace ?? ''), name: ref.name });
    }
    return requests;
  });
  return {
    async prepare(resolve) {
      if (ownerNamespaced === undefined) ownerNamespaced = (await resolve(ownerType)).namespaced;
    },
    ...handler,
  };
}

/** Maps an object to the requests to enqueue (may be empty). */
export type MapFunc<T extends KubernetesObject = KubernetesObject> = (obj: T) => Request[];

/**
 * Enqueues whatever `fn` returns for the event's object (for updates: for old and new object,
 * deduplicated) (controller-runtime's EnqueueRequestsFromMapFunc).
 */
export function enqueueRequestsFromMapFunc<T extends KubernetesObject = KubernetesObject>(
  fn: MapFunc<T>,
): EventHandler<T> {
  return perObject<T>((o) => (fn(o) ?? []).map((r) => ({ namespace: r.namespace ?? '', name: r.name })));
}

/** A handler from plain functions (controller-runtime's handler.Funcs). */
export function handlerFuncs<T extends KubernetesObject = KubernetesObject>(funcs: EventHandler<T>): EventHandler<T> {
  return funcs;
}
