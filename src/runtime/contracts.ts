/**
 * Contracts between the parts of kubeforge/runtime, fixed first so that the Manager and the
 * cache / client / controller can be built side by side. Names follow controller-runtime.
 */
import type { Selector } from '../util/apimachinery/labels.js';
import type { KubernetesObject } from '@kubernetes/client-node';

/**
 * What the Manager hands the runnables that need a leader: a synchronous check of leadership.
 * Ask it right before starting each unit of work (controllers ask before every dequeue): after a
 * stall (a frozen process, a long pause) it answers false before any timer has run.
 */
export interface Leadership {
  /**
   * True while this replica may do leader-only work: it holds the lease and, by its own monotonic
   * clock, its last renewal is younger than the renew deadline. Always true without leader
   * election. Once false it stays false (the Manager is then stopping).
   */
  isLeading(): boolean;
  /**
   * A sharded Manager's split (ManagerOptions.sharding): which objects this replica reconciles
   * now. Controllers hand a request out only while `gate.allows()` says yes for its object's hash
   * point. Absent without sharding.
   */
  shard?: ShardContext;
}

/** What a sharded Manager gives its controllers: the field objects are hashed by, and the gate. */
export interface ShardContext {
  /** What the ring hashes by default: `uid` (object.metadata.uid) or `namespace`. */
  field: 'uid' | 'namespace';
  gate: ShardGate;
  /** Calls `listener` with the ranges this replica just took (after the gate allows them). */
  onOpened?(listener: (ranges: readonly { start: bigint; end: bigint }[]) => void): void;
}

/** A replica's share of the hash space, asked before and during each reconcile (see ShardMember). */
export interface ShardGate {
  /** True while this replica may reconcile an object whose hash is `point`. */
  allows(point: bigint): boolean;
  /**
   * Records a reconcile of `point` as running (call in the same synchronous step as `allows`);
   * the function returned records its end. `abort` is called when the range is being given up
   * and the reconcile outlived the drain timeout.
   */
  track(point: bigint, abort?: () => void): () => void;
}

/** Something the Manager starts and stops: controllers, the cache, servers, user tasks. */
export interface Runnable {
  /**
   * Runs until `signal` aborts, then stops and resolves. Rejecting reports a fatal error:
   * the Manager then stops everything else and its own start() rejects with that error.
   * Runnables that need a leader also receive `leadership`; `signal` aborts when it is lost.
   */
  start(signal: AbortSignal, leadership?: Leadership): Promise<void>;
  /** Only run on the elected leader (controllers: true; cache and servers: false). Default true. */
  needLeaderElection?(): boolean;
  /**
   * Called by the Manager for leader-only runnables once the caches synced, before leader
   * election (controller-runtime's WarmupRunnable): a controller with `enableWarmup` starts its
   * sources there. `signal` aborts when the Manager stops.
   */
  warmup?(signal: AbortSignal): Promise<void>;
  /**
   * A short description for shutdown reports, e.g. `controller "cm" (reconciling default/a)`.
   * Optional; the Manager falls back to the class name.
   */
  describe?(): string;
}

/** A Kind the runtime can list, watch and address: client-node model class or a CRD type. */
export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/**
 * A type handle: what `for(Kind)`, `owns(Kind)`, `client.get(Kind, ...)` take. Generated API
 * classes carry `static readonly gvk` and `static readonly plural` (and namespaced), so the
 * class itself is the handle; client-node models are mapped by the runtime's own table.
 */
export interface ObjectType<T extends KubernetesObject = KubernetesObject> {
  new (...args: never[]): T;
  readonly gvk?: GroupVersionKind;
  readonly plural?: string;
  readonly namespaced?: boolean;
}

// ---------------------------------------------------------------------------------------------
// Added by the client / cache / controller part (additive only).
// ---------------------------------------------------------------------------------------------

/**
 * A type given as data instead of a class: `{ apiVersion: 'apps/v1', kind: 'Deployment' }`.
 * The plural and scope come from the built-in table, or from API discovery (cached per client)
 * for kinds the table does not know. Discovery failures surface as errors from the call.
 */
export interface TypeDescriptor {
  apiVersion: string;
  kind: string;
  /** Skip discovery when known. */
  plural?: string;
  namespaced?: boolean;
}

/** What every runtime call that takes a type accepts: a class handle or a descriptor. */
export type TypeRef<T extends KubernetesObject = KubernetesObject> = ObjectType<T> | TypeDescriptor;

/** Everything the runtime needs to address a resource over REST. */
export interface ResourceInfo extends GroupVersionKind {
  /** `apps/v1`, or `v1` for the core group. */
  apiVersion: string;
  plural: string;
  namespaced: boolean;
}

/** Namespace + name of one object (controller-runtime's client.ObjectKey / types.NamespacedName). */
export interface ObjectKey {
  /** Empty or absent for cluster-scoped objects. */
  namespace?: string;
  name: string;
}

/** A list result, shaped like a Kubernetes List: `items` plus list metadata. */
export interface ObjectList<T extends KubernetesObject = KubernetesObject> {
  apiVersion?: string;
  kind?: string;
  metadata: { resourceVersion?: string; continue?: string };
  items: T[];
}

/**
 * Options for `list` and `deleteAllOf`. Selectors take Kubernetes' string syntax or a map of
 * equalities; a label selector also a Selector (`labelSelectorAsSelector(spec.selector)`).
 */
export interface ListOptions {
  /** Restrict to one namespace (ignored for cluster-scoped types). */
  namespace?: string;
  /**
   * `app=web,tier!=db,env in (a,b),!legacy`, `{ app: 'web' }`, or a Selector (sent as its
   * `toString()`). `nothing()` (an absent metav1.LabelSelector) is refused with an Error: Go's
   * client would send `""` and list, or delete, everything.
   */
  labelSelector?: string | Record<string, string> | Selector;
  /**
   * `metadata.name=x`, or a field registered with `cache.indexField` (exact match only when
   * served from the cache; the API server's own field selectors when read live).
   */
  fieldSelector?: string | Record<string, string>;
  /** Live reads only: page size; the cache returns everything. */
  limit?: number;
  /** Live reads only: continue token from a previous page. */
  continue?: string;
  /**
   * Aborts the request (the reconcile's `ctx.signal`): the call then rejects with an AbortError
   * and nothing more is sent. Cached reads stop waiting for their informer's first list.
   */
  signal?: AbortSignal;
}

/** Options of `get`. */
export interface GetOptions {
  /**
   * Aborts the request (the reconcile's `ctx.signal`): the call then rejects with an AbortError
   * and nothing more is sent. Cached reads stop waiting for their informer's first list.
   */
  signal?: AbortSignal;
}

/** Reads objects: from the cache (the manager's client) or live from the API server (the API reader). */
export interface Reader {
  /**
   * Fetches one object. Rejects with `NotFoundError` (check with `isNotFound`) when it does not
   * exist, with `StatusError` for other API failures. Cache-backed readers start (and wait for)
   * an informer for the type on first use; the returned object is the caller's own copy.
   */
  get<T extends KubernetesObject>(type: TypeRef<T>, key: ObjectKey, options?: GetOptions): Promise<T>;
  /** Lists objects matching the options. Same error behaviour as `get`. */
  list<T extends KubernetesObject>(type: TypeRef<T>, options?: ListOptions): Promise<ObjectList<T>>;
}

/** A notification about one object, as informers deliver it to handlers. */
export type WatchEventType = 'create' | 'update' | 'delete' | 'generic';

/** Callbacks an informer calls, in order, for each change it observes. */
export interface ResourceEventHandler<T extends KubernetesObject = KubernetesObject> {
  /** A new object, or (isInInitialList) one already there when the handler was added. */
  onAdd?(obj: T, isInInitialList: boolean): void;
  onUpdate?(oldObj: T, newObj: T): void;
  /** `obj` is the last state the informer knew; `finalStateUnknown` if the delete was inferred by a relist. */
  onDelete?(obj: T, finalStateUnknown: boolean): void;
}

/** Handle returned by `Informer.addEventHandler`, to remove it or ask whether its initial replay is done. */
export interface HandlerRegistration {
  /** True once the handler has received every object of the initial list. */
  hasSynced(): boolean;
}

/** One shared list+watch of one type (client-go's SharedIndexInformer, reduced). */
export interface Informer<T extends KubernetesObject = KubernetesObject> {
  /**
   * Adds a handler. If the informer already holds objects, the handler first receives an `onAdd`
   * for each of them (isInInitialList = true). Exceptions thrown by the handler are logged and
   * swallowed: one bad handler does not stop delivery to the others.
   */
  addEventHandler(handler: ResourceEventHandler<T>): HandlerRegistration;
  /** Stops delivering to that handler. Safe to call twice. */
  removeEventHandler(registration: HandlerRegistration): void;
  /** True once the first full list has been stored. */
  hasSynced(): boolean;
  /**
   * Resolves true once the first full list has been stored (handlers registered before then have
   * received it), false if `signal` aborts first. Rejects with a NoKindMatchError when the type
   * is not served.
   */
  waitForSync(signal?: AbortSignal): Promise<boolean>;
  /** Resource information of the watched type. */
  readonly resource: ResourceInfo;
}

/** Computes the values of a field index for one object (e.g. `spec.nodeName`). Return [] for none. */
export type IndexExtractor<T extends KubernetesObject = KubernetesObject> = (obj: T) => string[];

/**
 * The informer cache (controller-runtime's cache.Cache). A Runnable the Manager starts before
 * controllers (needLeaderElection() is false). Reads through it are served from memory.
 */
export interface Cache extends Reader, Runnable {
  /**
   * Resolves true once every informer started so far has listed its type; false if `signal`
   * aborts first (or the cache is stopped). Never rejects.
   */
  waitForCacheSync(signal?: AbortSignal): Promise<boolean>;
  /**
   * The shared informer for the type, created (and, once the cache is started, started) on first
   * request: one list+watch per type however many callers ask. Resolves without waiting for sync.
   */
  getInformer<T extends KubernetesObject>(type: TypeRef<T>): Promise<Informer<T>>;
  /**
   * Registers a field index usable in `list({ fieldSelector: { [field]: value } })`. Must be
   * called before the informer for the type starts; later calls reject with an Error.
   */
  indexField<T extends KubernetesObject>(type: TypeRef<T>, field: string, extractor: IndexExtractor<T>): Promise<void>;
}

/** Options of `delete`. */
export interface DeleteOptions {
  /** `Foreground`, `Background` (default for most kinds on the server), or `Orphan`. */
  propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  gracePeriodSeconds?: number;
  /** Only delete if the object still has this resourceVersion / uid (409 Conflict otherwise). */
  preconditions?: { resourceVersion?: string; uid?: string };
  dryRun?: boolean;
  /**
   * Aborts the request (the reconcile's `ctx.signal`): the call then rejects with an AbortError
   * and nothing more is sent. Cached reads stop waiting for their informer's first list.
   */
  signal?: AbortSignal;
}

/**
 * What the API server does with fields of a written object that its type does not have (or that
 * appear twice): `Strict` refuses the write (400, `strict decoding error: unknown field "spec.x"`),
 * `Warn` drops them and says so in a warning, `Ignore` drops them silently. The server's default
 * is `Warn` (controller-runtime's `client.FieldValidation`).
 */
export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

/** Options of `create` / `update`. */
export interface WriteOptions {
  /** Overrides the client's fieldOwner (`fieldManager` query parameter). */
  fieldManager?: string;
  /** Overrides the client's fieldValidation (`fieldValidation` query parameter). */
  fieldValidation?: FieldValidation;
  dryRun?: boolean;
  /**
   * Aborts the request (the reconcile's `ctx.signal`): the call then rejects with an AbortError
   * and nothing more is sent. Cached reads stop waiting for their informer's first list.
   */
  signal?: AbortSignal;
}

/** A patch to send with `patch`: see `mergeFrom`, `MergePatch`, `JSONPatch`, `Apply` in kubeforge/runtime. */
export interface Patch {
  /** Content type: merge, strategic-merge, json-patch or apply. */
  readonly type:
    | 'application/merge-patch+json'
    | 'application/strategic-merge-patch+json'
    | 'application/json-patch+json'
    | 'application/apply-patch+yaml';
  /** The request body for the object being patched. */
  data(obj: KubernetesObject): unknown;
}

/** Every field optional, all the way down (arrays of partial items; Dates as they are). */
export type DeepPartial<T> = T extends Date
  ? T
  : T extends readonly (infer U)[]
    ? DeepPartial<U>[]
    : T extends object
      ? { [K in keyof T]?: DeepPartial<T[K]> }
      : T;

/**
 * A server-side apply configuration of a Kind `T`: the fields this field manager wants to own,
 * nothing else (controller-runtime's generated ApplyConfigurations, as a type): `apiVersion`,
 * `kind` and `metadata.name` are required, every other field optional at any depth. Lists that
 * are maps by key (a pod's containers by name) merge with other managers' items by that key.
 */
export type ApplyConfiguration<T extends KubernetesObject = KubernetesObject> = DeepPartial<
  Omit<T, 'apiVersion' | 'kind' | 'metadata'>
> & {
  apiVersion: string;
  kind: string;
  metadata: DeepPartial<
    Omit<NonNullable<T['metadata']>, 'managedFields' | 'resourceVersion' | 'uid' | 'creationTimestamp'>
  > & { name: string; namespace?: string };
};

/** Options of `apply`. */
export interface ApplyOptions extends WriteOptions {
  /** The field manager applying (controller-runtime's client.FieldOwner); default the client's fieldOwner. */
  fieldOwner?: string;
  /** Take fields another manager owns instead of failing with 409 Conflict (client.ForceOwnership). */
  force?: boolean;
}

/** Options of `patch`. */
export interface PatchOptions extends WriteOptions {
  /** Server-side apply only: take ownership of conflicting fields. */
  force?: boolean;
}

/**
 * Writes objects. Every method rejects with a typed StatusError subclass on API errors.
 * `create`, `update` and `patch` refresh the object passed in from the server's answer, as
 * controller-runtime does (new resourceVersion, defaulted fields, status), and resolve with that
 * same object, so `update(obj)` then `status().update(obj)` works without a 409 Conflict. An
 * object that cannot change (frozen, as event handlers receive them) is left as it is and the
 * answer returned instead. Timestamps in answers are Dates, as client-node's types declare.
 */
export interface Writer {
  /** Creates the object; resolves with the stored object. `AlreadyExistsError` on 409 AlreadyExists. */
  create<T extends KubernetesObject>(obj: T, options?: WriteOptions): Promise<T>;
  /**
   * Replaces the object (PUT). Rejects with `ConflictError` when `metadata.resourceVersion` is
   * stale, `NotFoundError` when it is gone.
   */
  update<T extends KubernetesObject>(obj: T, options?: WriteOptions): Promise<T>;
  /** Patches the object (`patch.type` decides merge / JSON / apply). */
  patch<T extends KubernetesObject>(obj: T, patch: Patch, options?: PatchOptions): Promise<T>;
  /**
   * Server-side apply of `config` (controller-runtime's `client.Apply`): the server merges it with
   * what other managers own and records this manager as the owner of its fields; a field it stops
   * applying is removed. Resolves with the whole object as stored. 409 ConflictError when another
   * manager owns a field it sets differently, unless `force`.
   */
  apply<T extends KubernetesObject>(config: ApplyConfiguration<T>, options?: ApplyOptions): Promise<T>;
  /** Deletes the object; `NotFoundError` when already gone. Resolves once the API server accepted it. */
  delete(obj: KubernetesObject, options?: DeleteOptions): Promise<void>;
  /** Deletes every object of the type matching the options (a DELETE on the collection). */
  deleteAllOf(type: TypeRef, options?: ListOptions & DeleteOptions): Promise<void>;
}

/** Writes the status subresource only (`client.status()`). */
export interface StatusWriter {
  /**
   * PUT .../status; same errors as `Writer.update`. Changes outside `status` are ignored by the
   * server; `obj` is refreshed from its answer like `Writer.update`.
   */
  update<T extends KubernetesObject>(obj: T, options?: WriteOptions): Promise<T>;
  /** PATCH .../status; same errors as `Writer.patch`. */
  patch<T extends KubernetesObject>(obj: T, patch: Patch, options?: PatchOptions): Promise<T>;
  /** Server-side apply of the status subresource; as `Writer.apply`. */
  apply<T extends KubernetesObject>(config: ApplyConfiguration<T>, options?: ApplyOptions): Promise<T>;
}

/**
 * A subresource of objects (`client.subResource('scale')`, controller-runtime 0.25's
 * `SubResourceClient`): requests go to `<object path>/<subresource>` and answer the
 * subresource's own object (a `Scale` for `scale`), which is returned as the server sent it. Only
 * `subResource('status')` refreshes the object given, as `status()` does.
 */
export interface SubResourceClient {
  /** GET `<object>/<subresource>` (live, never from the cache). */
  get<S extends KubernetesObject = KubernetesObject>(obj: KubernetesObject, options?: GetOptions): Promise<S>;
  /** POST `<object>/<subresource>` with `subResource` as the body (e.g. an Eviction, a TokenRequest). */
  create<S extends KubernetesObject = KubernetesObject>(
    obj: KubernetesObject,
    subResource: KubernetesObject,
    options?: WriteOptions,
  ): Promise<S>;
  /** PUT `<object>/<subresource>` with `subResourceBody` (default: the object itself). */
  update<S extends KubernetesObject = KubernetesObject>(
    obj: KubernetesObject,
    options?: WriteOptions & { subResourceBody?: KubernetesObject },
  ): Promise<S>;
  /** PATCH `<object>/<subresource>`. */
  patch<S extends KubernetesObject = KubernetesObject>(
    obj: KubernetesObject,
    patch: Patch,
    options?: PatchOptions,
  ): Promise<S>;
  /**
   * Server-side apply of the subresource: `config` is its apply configuration (for `scale`,
   * `{ apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name, namespace }, spec: { replicas } }`),
   * sent to `<obj>/<subresource>`.
   */
  apply<S extends KubernetesObject = KubernetesObject>(
    obj: KubernetesObject,
    config: ApplyConfiguration<S>,
    options?: ApplyOptions,
  ): Promise<S>;
}

/** The client controllers use: reads from the cache (if given one), writes to the API server. */
export interface Client extends Reader, Writer {
  /** Status subresource writer. */
  status(): StatusWriter;
  /** A client of one subresource of objects (`'scale'`, `'status'`, `'eviction'`...). */
  subResource(name: string): SubResourceClient;
  /** A reader that always reads live from the API server (mgr.getAPIReader()). */
  apiReader(): Reader;
  /** Resolves the REST information of a type (built-in table, class statics, then discovery). */
  resolve(type: TypeRef | KubernetesObject): Promise<ResourceInfo>;
  /**
   * With read-your-own-writes on: whether `obj` (an event's object) is at the resourceVersion
   * this client's own last write of it made (see `ignoreOwnWrites`). Always false without it.
   */
  isOwnWrite?(obj: KubernetesObject): boolean;
  /** With read-your-own-writes on: while a write of `obj` is unanswered, when it will be; else undefined. */
  ownWritesSettled?(obj: KubernetesObject): Promise<void> | undefined;
}
