/**
 * The client: reads from the informer cache when given one (else live), writes to the API server.
 * controller-runtime's client.Client, over a keep-alive REST transport.
 */
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import type {
  Cache,
  Client,
  ApplyConfiguration,
  ApplyOptions,
  DeleteOptions,
  FieldValidation,
  GetOptions,
  ListOptions,
  ObjectKey,
  ObjectList,
  Patch,
  PatchOptions,
  Reader,
  ResourceInfo,
  StatusWriter,
  SubResourceClient,
  TypeRef,
  WriteOptions,
} from '../contracts.js';
import { RESTMapper } from './restmapper.js';
import { RestClient } from './rest.js';
import { selectorString } from './selector.js';
import { Apply } from './patch.js';
import {
  METADATA_ACCEPT,
  METADATA_LIST_ACCEPT,
  asPartialObjectMetadata,
  isMetadataOnly,
  resourcePath,
  withTypeMeta,
} from './types.js';
import { reviveDates } from './dates.js';
import { OwnWrites, READ_FROM_SERVER, objectKey } from './ownwrites.js';
import { isNotFound } from './errors.js';
import { checkOptions, type OptionNames } from '../options.js';

/** Options of `newClient`. */
export interface ClientOptions {
  /** Serve `get`/`list` from this cache. Without it every read goes to the API server. */
  cache?: Cache;
  /** Default field manager for writes (`fieldManager` query parameter; required by server-side apply). */
  fieldOwner?: string;
  /**
   * Default field validation of creates, updates and patches (`fieldValidation` query parameter):
   * `Strict` makes a field the type does not have an error instead of a warning. Default: the
   * server's (`Warn`).
   */
  fieldValidation?: FieldValidation;
  /**
   * Called with the text of every warning the API server sends (an unknown field dropped, a
   * deprecated API), on the transport this client creates (not on a shared `rest`). Default: ignored.
   */
  warningHandler?: (message: string) => void;
  /**
   * Types whose reads go to the API server even though `cache` is set (controller-runtime's
   * client CacheOptions.DisableFor): no informer is started for them.
   */
  cacheDisableFor?: TypeRef[];
  /**
   * Read your own writes (with `cache`): a cached `get` of an object this client just wrote
   * returns the write's answer until the cache has caught up, instead of the older version
   * (./ownwrites.ts). Default false.
   */
  readYourOwnWrites?: boolean;
  /** Share an existing transport (keep-alive connections, auth) instead of creating one. */
  rest?: RestClient;
  /** The RESTMapper types resolve through (the Manager's); default: a new one of this client's own. */
  mapper?: RESTMapper;
}

/** The names each call's options take (any other is refused: a misspelt `propagationPolicy` deleted in the background). */
export const GET_NAMES: OptionNames<GetOptions> = { signal: true };
export const LIST_NAMES: OptionNames<ListOptions> = {
  namespace: true,
  labelSelector: true,
  fieldSelector: true,
  limit: true,
  continue: true,
  signal: true,
};
const WRITE_NAMES: OptionNames<WriteOptions> = {
  fieldManager: true,
  fieldValidation: true,
  dryRun: true,
  signal: true,
};
const PATCH_NAMES: OptionNames<PatchOptions> = { ...WRITE_NAMES, force: true };
const APPLY_NAMES: OptionNames<ApplyOptions> = { ...WRITE_NAMES, fieldOwner: true, force: true };
const DELETE_NAMES: OptionNames<DeleteOptions> = {
  propagationPolicy: true,
  gracePeriodSeconds: true,
  preconditions: true,
  dryRun: true,
  signal: true,
};
const DELETE_ALL_OF_NAMES: OptionNames<ListOptions & DeleteOptions> = { ...LIST_NAMES, ...DELETE_NAMES };
/** controller-runtime's names of the same options. */
const CALL_RENAMES = { gracePeriod: 'gracePeriodSeconds', propagation: 'propagationPolicy', labels: 'labelSelector' };
/** `fieldOwner` is apply's name (and the client's); the other writes take `fieldManager`. */
const WRITE_RENAMES = { fieldOwner: 'fieldManager' };

/** The names {@link ClientOptions} takes (any other is refused). */
const CLIENT_OPTION_NAMES: OptionNames<ClientOptions> = {
  cache: true,
  fieldOwner: true,
  fieldValidation: true,
  warningHandler: true,
  cacheDisableFor: true,
  readYourOwnWrites: true,
  rest: true,
  mapper: true,
};

/**
 * Creates a client for the KubeConfig's current context. `get`/`list` use `options.cache` when
 * given (the manager's client) and read live otherwise (the API reader). Errors: every call rejects
 * with a StatusError subclass on API errors (`isNotFound`, `isConflict`, `isAlreadyExists`) and
 * with the network Error when the server cannot be reached; nothing is retried.
 */
export function newClient(config: KubeConfig, options: ClientOptions = {}): Client {
  checkOptions('newClient', options, CLIENT_OPTION_NAMES, { disableFor: 'cacheDisableFor' });
  let rest = options.rest;
  if (!rest) {
    rest = new RestClient(config);
    rest.setWarningHandler(options.warningHandler);
  }
  return new KubeClient(rest, options);
}

function ns(r: ResourceInfo, namespace: string | undefined): string | undefined {
  return r.namespaced ? namespace || undefined : undefined;
}

function describe(r: ResourceInfo, namespace?: string, name?: string): string {
  return `${r.apiVersion} ${r.kind}${name !== undefined ? ` ${namespace ? `${namespace}/` : ''}${name}` : ''}`;
}

class LiveReader implements Reader {
  constructor(
    protected readonly rest: RestClient,
    protected readonly resolver: RESTMapper,
  ) {}

  async get<T extends KubernetesObject>(type: TypeRef<T>, key: ObjectKey, o: GetOptions = {}): Promise<T> {
    checkOptions('get', o, GET_NAMES);
    o.signal?.throwIfAborted();
    const r = await this.resolver.resolve(type);
    const meta = isMetadataOnly(type);
    const obj = await this.rest.request<T>('GET', resourcePath(r, ns(r, key.namespace), key.name), {
      what: `get ${meta ? 'metadata of ' : ''}${describe(r, key.namespace, key.name)}`,
      signal: o.signal,
      accept: meta ? METADATA_ACCEPT : undefined,
    });
    return reviveDates(meta ? (asPartialObjectMetadata(obj, r) as KubernetesObject as T) : withTypeMeta(obj, r), r);
  }

  async list<T extends KubernetesObject>(type: TypeRef<T>, o: ListOptions = {}): Promise<ObjectList<T>> {
    checkOptions('list', o, LIST_NAMES, CALL_RENAMES);
    o.signal?.throwIfAborted();
    const r = await this.resolver.resolve(type);
    const meta = isMetadataOnly(type);
    const list = await this.rest.request<ObjectList<T>>('GET', resourcePath(r, ns(r, o.namespace)), {
      query: {
        labelSelector: selectorString(o.labelSelector),
        fieldSelector: selectorString(o.fieldSelector),
        limit: o.limit,
        continue: o.continue,
      },
      what: `list ${meta ? 'metadata of ' : ''}${describe(r)}`,
      signal: o.signal,
      accept: meta ? METADATA_LIST_ACCEPT : undefined,
    });
    list.items ??= []; // a metadata-only list with no items says null
    for (let i = 0; i < list.items.length; i++) {
      const it = list.items[i];
      const typed = meta
        ? (asPartialObjectMetadata(it, r) as KubernetesObject as T)
        : !it.apiVersion || !it.kind
          ? ({ ...it, apiVersion: r.apiVersion, kind: r.kind } as T)
          : it;
      list.items[i] = reviveDates(typed, r);
    }
    if (meta) Object.assign(list, { apiVersion: r.apiVersion, kind: `${r.kind}List` });
    return list;
  }
}

class KubeClient extends LiveReader implements Client {
  private readonly cache?: Cache;
  private readonly fieldOwner?: string;
  private readonly fieldValidation?: FieldValidation;
  private readonly live: LiveReader;
  private readonly uncached: TypeRef[];
  /** `apiVersion/kind` of the uncached types, resolved on first use. */
  private uncachedKeys?: Promise<Set<string>>;
  private readonly statusWriter: StatusWriter;
  /** Read-your-own-writes: the answers of writes the cache has not seen yet. */
  private readonly own?: OwnWrites;

  constructor(rest: RestClient, options: ClientOptions) {
    super(rest, options.mapper ?? new RESTMapper(rest));
    this.cache = options.cache;
    this.own = options.readYourOwnWrites && options.cache ? new OwnWrites() : undefined;
    this.fieldOwner = options.fieldOwner;
    this.fieldValidation = options.fieldValidation;
    this.uncached = options.cacheDisableFor ?? [];
    this.live = new LiveReader(rest, this.resolver);
    this.statusWriter = {
      update: (obj, o) => this.put(obj, o, 'status'),
      patch: async (obj, p, o) =>
        this.sendPatch(obj, p, checkOptions('status().patch', o, PATCH_NAMES, WRITE_RENAMES), 'status'),
      apply: (config, o) => this.sendApply(config, o, 'status'),
    };
  }

  resolve(type: TypeRef | KubernetesObject): Promise<ResourceInfo> {
    return this.resolver.resolve(type);
  }

  override async get<T extends KubernetesObject>(type: TypeRef<T>, key: ObjectKey, o?: GetOptions): Promise<T> {
    checkOptions('get', o, GET_NAMES);
    if (!this.cache || (await this.isUncached(type))) return super.get(type, key, o);
    if (!this.own) return this.cache.get(type, key, o);
    const r = await this.resolver.resolve(type);
    const k = objectKey(r.apiVersion, r.kind, ns(r, key.namespace), key.name);
    if (!this.own.has(k)) return this.cache.get(type, key, o);
    let cached: T | undefined;
    let notFound: unknown;
    try {
      cached = await this.cache.get(type, key, o);
    } catch (e) {
      if (!isNotFound(e)) throw e;
      notFound = e;
    }
    const newer = this.own.newer(k, cached);
    if (newer === READ_FROM_SERVER) return this.refreshOwnWrite(this.own, k, type, key, o);
    if (newer !== undefined) return reviveDates(withTypeMeta(newer as T, r), r);
    if (cached === undefined) throw notFound;
    return cached;
  }

  /**
   * A read from the API server for an object whose own write the cache has not caught up with
   * after PENDING_TTL_MS (a watch gone silent without closing): the cache would answer with an
   * older version. The answer stands in for the cache from then on (./ownwrites.ts).
   */
  private async refreshOwnWrite<T extends KubernetesObject>(
    own: OwnWrites,
    k: string,
    type: TypeRef<T>,
    key: ObjectKey,
    o: GetOptions | undefined,
  ): Promise<T> {
    try {
      const live = await super.get(type, key, o);
      // Metadata only is no stand-in for a full read of the same object: keep asking the server.
      if (!isMetadataOnly(type)) own.refreshed(k, live);
      return live;
    } catch (e) {
      if (isNotFound(e)) own.refreshed(k, undefined);
      throw e;
    }
  }

  /** The read-your-own-writes key of an event's object. */
  private eventKey(obj: KubernetesObject): string | undefined {
    const m = obj.metadata;
    return obj.apiVersion && obj.kind && m?.name
      ? objectKey(obj.apiVersion, obj.kind, m.namespace || undefined, m.name)
      : undefined;
  }

  /** Whether `obj` (an event's object) is at the version this client's last write of it made. */
  isOwnWrite(obj: KubernetesObject): boolean {
    if (!this.own) return false;
    const k = this.eventKey(obj);
    return k !== undefined && this.own.isOwn(k, obj.metadata?.resourceVersion);
  }

  /** While a write of `obj` by this client is unanswered: when it will be (its event may come first). */
  ownWritesSettled(obj: KubernetesObject): Promise<void> | undefined {
    if (!this.own) return undefined;
    const k = this.eventKey(obj);
    return k === undefined ? undefined : this.own.settled(k);
  }

  /**
   * Sends a write with read-your-own-writes bookkeeping: the object is marked in flight while the
   * request is out, and the answer recorded before that mark is lifted.
   */
  private async tracked<T extends KubernetesObject>(
    r: ResourceInfo,
    namespace: string | undefined,
    name: string,
    o: WriteOptions | undefined,
    send: () => Promise<T>,
  ): Promise<T> {
    if (!this.own || o?.dryRun || !name) return send();
    const k = objectKey(r.apiVersion, r.kind, namespace, name);
    this.own.begin(k);
    try {
      const answer = await send();
      if (answer?.metadata?.name) this.own.record(k, answer);
      return answer;
    } finally {
      this.own.end(k);
    }
  }

  override async list<T extends KubernetesObject>(type: TypeRef<T>, o?: ListOptions): Promise<ObjectList<T>> {
    checkOptions('list', o, LIST_NAMES, CALL_RENAMES);
    return this.cache && !(await this.isUncached(type)) ? this.cache.list(type, o) : super.list(type, o);
  }

  /** Whether reads of `type` skip the cache (cacheDisableFor). */
  private async isUncached(type: TypeRef): Promise<boolean> {
    if (this.uncached.length === 0) return false;
    this.uncachedKeys ??= Promise.all(this.uncached.map((t) => this.resolver.resolve(t))).then(
      (rs) => new Set(rs.map((r) => `${r.apiVersion}/${r.kind}`)),
    );
    const r = await this.resolver.resolve(type);
    return (await this.uncachedKeys).has(`${r.apiVersion}/${r.kind}`);
  }

  apiReader(): Reader {
    return this.live;
  }

  status(): StatusWriter {
    return this.statusWriter;
  }

  subResource(sub: string): SubResourceClient {
    if (typeof sub !== 'string' || !/^[a-z][a-z0-9-]*$/.test(sub))
      throw new TypeError(
        `kubeforge/runtime: subResource(${JSON.stringify(sub)}): a subresource name is lowercase letters, digits and '-'`,
      );
    if (sub === 'status') {
      // The status subresource answers the object itself: refresh it, as status() does.
      return {
        get: (obj, o) => this.subRequest('GET', obj, sub, undefined, o),
        create: (obj, body, o) => this.subRequest('POST', obj, sub, body, o),
        update: (obj, o) => {
          const { subResourceBody, ...rest } = o ?? {};
          return (
            subResourceBody ? this.subRequest('PUT', obj, sub, subResourceBody, rest) : this.put(obj, rest, sub)
          ) as never;
        },
        patch: (obj, p, o) => this.statusWriter.patch(obj, p, o) as never,
        apply: (_obj, config, o) => this.sendApply(config, o, sub) as never,
      };
    }
    return {
      get: (obj, o) => this.subRequest('GET', obj, sub, undefined, o),
      create: (obj, body, o) => this.subRequest('POST', obj, sub, body, o),
      update: (obj, o) => {
        const { subResourceBody, ...rest } = o ?? {};
        return this.subRequest('PUT', obj, sub, subResourceBody ?? obj, rest);
      },
      patch: (obj, p, o) => this.subPatch(obj, sub, p, o),
      apply: (obj, config, o) => {
        checkOptions(`subResource('${sub}').apply`, o, APPLY_NAMES);
        const c = config as unknown as KubernetesObject;
        if (!c || typeof c !== 'object' || !c.apiVersion || !c.kind)
          throw new Error(
            `kubeforge/runtime: subResource('${sub}').apply needs the subresource's apply configuration with apiVersion and kind (for scale: autoscaling/v1 Scale)`,
          );
        return this.subPatch(obj, sub, Apply, { ...o, fieldManager: o?.fieldOwner ?? o?.fieldManager }, c);
      },
    };
  }

  /** A request to `<obj>/<sub>` whose answer is the subresource's object, returned as sent. */
  private async subRequest<S extends KubernetesObject>(
    method: 'GET' | 'POST' | 'PUT',
    obj: KubernetesObject,
    sub: string,
    body: KubernetesObject | undefined,
    o: (WriteOptions & GetOptions) | undefined,
  ): Promise<S> {
    checkOptions(
      `subResource('${sub}').${method === 'GET' ? 'get' : method === 'POST' ? 'create' : 'update'}`,
      o,
      method === 'GET' ? GET_NAMES : WRITE_NAMES,
      method === 'GET' ? undefined : WRITE_RENAMES,
    );
    o?.signal?.throwIfAborted();
    const { r, namespace, name } = await this.target(obj);
    return this.rest.request<S>(method, resourcePath(r, namespace, name, sub), {
      body,
      query: method === 'GET' ? undefined : this.writeQuery(o),
      what: `${method === 'GET' ? 'get' : method === 'POST' ? 'create' : 'update'} ${describe(r, namespace, name)} ${sub}`,
      signal: o?.signal,
    });
  }

  /** PATCH `<obj>/<sub>`; `body` is what the patch is made of (the object itself by default). */
  private async subPatch<S extends KubernetesObject>(
    obj: KubernetesObject,
    sub: string,
    patch: Patch,
    o: PatchOptions | undefined,
    body?: KubernetesObject,
  ): Promise<S> {
    if (patch.type !== 'application/apply-patch+yaml')
      checkOptions(`subResource('${sub}').patch`, o, PATCH_NAMES, WRITE_RENAMES);
    o?.signal?.throwIfAborted();
    const { r, namespace, name } = await this.target(obj);
    const isApply = patch.type === 'application/apply-patch+yaml';
    const query = this.patchQuery(o, isApply);
    return this.rest.request<S>('PATCH', resourcePath(r, namespace, name, sub), {
      body: patch.data(body ?? obj),
      contentType: patch.type,
      query,
      what: `patch ${describe(r, namespace, name)} ${sub}`,
      signal: o?.signal,
    });
  }

  private async target(obj: KubernetesObject): Promise<{ r: ResourceInfo; namespace?: string; name: string }> {
    const r = await this.resolver.resolve(obj);
    const name = obj.metadata?.name;
    if (!name && !obj.metadata?.generateName)
      throw new Error(`kubeforge/runtime: ${r.kind} object has no metadata.name`);
    const namespace = ns(r, obj.metadata?.namespace);
    if (r.namespaced && !namespace)
      throw new Error(`kubeforge/runtime: ${r.kind} ${name ?? ''} is namespaced but metadata.namespace is empty`);
    return { r, namespace, name: name ?? '' };
  }

  /** A PATCH's query: the write options, and for server-side apply the field manager it needs and force. */
  private patchQuery(o: PatchOptions | undefined, isApply: boolean): Record<string, string | undefined> {
    const query = this.writeQuery(o);
    if (isApply) {
      if (!query.fieldManager)
        throw new Error(
          'kubeforge/runtime: server-side apply needs a field manager: set fieldOwner on the client or pass { fieldManager }',
        );
      if (o?.force) query.force = 'true';
    }
    return query;
  }

  private writeQuery(o: WriteOptions | undefined): Record<string, string | undefined> {
    return {
      fieldManager: o?.fieldManager ?? this.fieldOwner,
      fieldValidation: o?.fieldValidation ?? this.fieldValidation,
      dryRun: o?.dryRun ? 'All' : undefined,
    };
  }

  async create<T extends KubernetesObject>(obj: T, o?: WriteOptions): Promise<T> {
    checkOptions('create', o, WRITE_NAMES, WRITE_RENAMES);
    o?.signal?.throwIfAborted();
    const { r, namespace } = await this.target(obj);
    const answer = await this.tracked(r, namespace, obj.metadata?.name ?? '', o, () =>
      this.rest.request<T>('POST', resourcePath(r, namespace), {
        body: withTypeMeta(obj, r),
        query: this.writeQuery(o),
        what: `create ${describe(r, namespace, obj.metadata?.name ?? obj.metadata?.generateName)}`,
        signal: o?.signal,
      }),
    );
    return refresh(obj, answer, r);
  }

  update<T extends KubernetesObject>(obj: T, o?: WriteOptions): Promise<T> {
    return this.put(obj, o, undefined);
  }

  private async put<T extends KubernetesObject>(
    obj: T,
    o: WriteOptions | undefined,
    sub: string | undefined,
  ): Promise<T> {
    checkOptions(sub ? `${sub}().update` : 'update', o, WRITE_NAMES, WRITE_RENAMES);
    o?.signal?.throwIfAborted();
    const { r, namespace, name } = await this.target(obj);
    const answer = await this.tracked(r, namespace, name, o, () =>
      this.rest.request<T>('PUT', resourcePath(r, namespace, name, sub), {
        body: withTypeMeta(obj, r),
        query: this.writeQuery(o),
        what: `update ${describe(r, namespace, name)}${sub ? ` ${sub}` : ''}`,
        signal: o?.signal,
      }),
    );
    return refresh(obj, answer, r);
  }

  async patch<T extends KubernetesObject>(obj: T, patch: Patch, o?: PatchOptions): Promise<T> {
    checkOptions('patch', o, PATCH_NAMES, WRITE_RENAMES);
    return this.sendPatch(obj, patch, o, undefined);
  }

  apply<T extends KubernetesObject>(config: ApplyConfiguration<T>, o?: ApplyOptions): Promise<T> {
    return this.sendApply(config, o, undefined);
  }

  private async sendApply<T extends KubernetesObject>(
    config: ApplyConfiguration<T>,
    o: ApplyOptions | undefined,
    sub: string | undefined,
  ): Promise<T> {
    checkOptions(sub ? `${sub}().apply` : 'apply', o, APPLY_NAMES);
    const obj = config as unknown as KubernetesObject;
    if (!obj || typeof obj !== 'object' || !obj.apiVersion || !obj.kind || !obj.metadata?.name) {
      throw new Error('kubeforge/runtime: apply needs a configuration with apiVersion, kind and metadata.name');
    }
    const answer = await this.sendPatch(
      { ...obj },
      Apply,
      { ...o, fieldManager: o?.fieldOwner ?? o?.fieldManager },
      sub,
    );
    return answer as T;
  }

  private async sendPatch<T extends KubernetesObject>(
    obj: T,
    patch: Patch,
    o: PatchOptions | undefined,
    sub: string | undefined,
  ): Promise<T> {
    o?.signal?.throwIfAborted();
    const { r, namespace, name } = await this.target(obj);
    const isApply = patch.type === 'application/apply-patch+yaml';
    const query = this.patchQuery(o, isApply);
    const body = patch.data(isApply ? withTypeMeta(obj, r) : obj);
    const answer = await this.tracked(r, namespace, name, o, () =>
      this.rest.request<T>('PATCH', resourcePath(r, namespace, name, sub), {
        body,
        contentType: patch.type,
        query,
        what: `patch ${describe(r, namespace, name)}${sub ? ` ${sub}` : ''}`,
        signal: o?.signal,
      }),
    );
    return refresh(obj, answer, r);
  }

  async delete(obj: KubernetesObject, o: DeleteOptions = {}): Promise<void> {
    checkOptions('delete', o, DELETE_NAMES, CALL_RENAMES);
    o.signal?.throwIfAborted();
    const { r, namespace, name } = await this.target(obj);
    await this.rest.request('DELETE', resourcePath(r, namespace, name), {
      body: deleteBody(o),
      query: { dryRun: o.dryRun ? 'All' : undefined },
      what: `delete ${describe(r, namespace, name)}`,
      signal: o.signal,
    });
    if (!o.dryRun) this.own?.forget(objectKey(r.apiVersion, r.kind, namespace, name));
  }

  async deleteAllOf(type: TypeRef, o: ListOptions & DeleteOptions = {}): Promise<void> {
    checkOptions('deleteAllOf', o, DELETE_ALL_OF_NAMES, CALL_RENAMES);
    const r = await this.resolver.resolve(type);
    const namespace = ns(r, o.namespace);
    if (r.namespaced && !namespace)
      throw new Error(
        `kubeforge/runtime: deleteAllOf(${r.kind}) needs { namespace } (the API server deletes collections per namespace)`,
      );
    o.signal?.throwIfAborted();
    await this.rest.request('DELETE', resourcePath(r, namespace), {
      body: deleteBody(o),
      query: {
        labelSelector: selectorString(o.labelSelector),
        fieldSelector: selectorString(o.fieldSelector),
        dryRun: o.dryRun ? 'All' : undefined,
      },
      what: `deleteAllOf ${describe(r, namespace)}`,
      signal: o.signal,
    });
  }
}

/**
 * controller-runtime decodes a write's answer into the object passed in; so do we: `obj` gets the
 * server's state (new resourceVersion, defaults, status), keeping its prototype, and is returned.
 * A frozen object (one an event handler received) cannot change: the answer is returned instead.
 */
function refresh<T extends KubernetesObject>(obj: T, answer: T, r: ResourceInfo): T {
  const fresh = reviveDates(withTypeMeta(answer, r), r);
  if (!fresh || typeof fresh !== 'object' || Object.isFrozen(obj)) return fresh;
  const target = obj as Record<string, unknown>;
  for (const k of Object.keys(target)) if (!(k in fresh)) delete target[k];
  Object.assign(target, fresh);
  return obj;
}

function deleteBody(o: DeleteOptions): Record<string, unknown> {
  const b: Record<string, unknown> = { apiVersion: 'v1', kind: 'DeleteOptions' };
  if (o.propagationPolicy) b.propagationPolicy = o.propagationPolicy;
  if (o.gracePeriodSeconds !== undefined) b.gracePeriodSeconds = o.gracePeriodSeconds;
  if (o.preconditions) b.preconditions = o.preconditions;
  // With a body the API server reads DeleteOptions from it and ignores the dryRun query parameter.
  if (o.dryRun) b.dryRun = ['All'];
  return b;
}
