/**
 * Type resolution: turns a type handle (generated class with static gvk/plural/namespaced, a
 * client-node model class, a `{ apiVersion, kind }` descriptor, or an object) into the REST
 * coordinates the client and cache need.
 */
import type * as k8s from '@kubernetes/client-node';
import type { KubernetesObject } from '@kubernetes/client-node';
import { BUILTIN_KINDS, CORE_GROUPS } from '../../apiserver/builtin-kinds.js';
import type { GroupVersionKind, ObjectType, ResourceInfo, TypeDescriptor, TypeRef } from '../contracts.js';

type Row = [model: string, apiVersion: string, kind: string, plural: string, namespaced: boolean];

// The client-node models kubeforge knows without asking the API server, by class name: a class is
// recognised by its name and client-node's static attributeTypeMap, so that neither this table nor
// kubeforge/runtime's import loads client-node (test/runtime/client/client-node-tables.test.ts
// checks each name against client-node's exports). The rows are the one table of built-in Kinds
// (src/apiserver/builtin-kinds-data.ts, a real API server's discovery).
export const BUILTIN_ROWS: readonly Row[] = BUILTIN_KINDS.map((k) => [
  k.model,
  CORE_GROUPS[k.group] ? `${CORE_GROUPS[k.group]}/${k.version}` : k.version,
  k.kind,
  k.plural,
  k.namespaced,
]);

function info(apiVersion: string, kind: string, plural: string, namespaced: boolean): ResourceInfo {
  const { group, version } = splitAPIVersion(apiVersion);
  return Object.freeze({ group, version, kind, apiVersion, plural, namespaced });
}

/** The built-in table: read-only, shared by every mapper (what each registers is its own). */
const BUILTIN_BY_GVK = new Map<string, ResourceInfo>();
/**
 * The same built-in kinds by client-node model class name. Any copy of @kubernetes/client-node
 * matches (a project whose copy is another than kubeforge's: two versions in node_modules, or
 * kubeforge linked from a folder, hands in classes equal in all but identity).
 */
const BUILTIN_BY_NAME = new Map<string, ResourceInfo>();
const MODEL_BY_GVK = new Map<string, string>();
for (const [model, apiVersion, kind, plural, namespaced] of BUILTIN_ROWS) {
  const i = info(apiVersion, kind, plural, namespaced);
  MODEL_BY_GVK.set(`${apiVersion}/${kind}`, model);
  BUILTIN_BY_NAME.set(model, i);
  BUILTIN_BY_GVK.set(`${apiVersion}/${kind}`, i);
}

/** The client-node model class name of a built-in kind (`apps/v1`, `Deployment` -> V1Deployment), from the table. */
export function builtinModelOf(apiVersion: string, kind: string): string | undefined {
  return MODEL_BY_GVK.get(`${apiVersion}/${kind}`);
}

/** REST information of kinds someone registered or discovered: one table per RESTMapper. */
export class TypeTable {
  private readonly byClass = new Map<unknown, ResourceInfo>();
  private readonly byGVK = new Map<string, ResourceInfo>();

  /** Registers (or overrides) a kind, and the class that stands for it when given. */
  register(
    type: ObjectType | undefined,
    resource: { apiVersion: string; kind: string; plural: string; namespaced: boolean },
  ): ResourceInfo {
    const i = info(resource.apiVersion, resource.kind, resource.plural, resource.namespaced);
    if (type) this.byClass.set(type, i);
    this.byGVK.set(`${resource.apiVersion}/${resource.kind}`, i);
    return i;
  }

  byType(type: unknown): ResourceInfo | undefined {
    return this.byClass.get(type) ?? builtinModel(type);
  }

  byKind(apiVersion: string, kind: string): ResourceInfo | undefined {
    return this.byGVK.get(`${apiVersion}/${kind}`) ?? BUILTIN_BY_GVK.get(`${apiVersion}/${kind}`);
  }
}

/** A built-in model class of @kubernetes/client-node (any copy of it): its name, the model shape. */
function builtinModel(type: unknown): ResourceInfo | undefined {
  if (typeof type !== 'function' || !Array.isArray((type as { attributeTypeMap?: unknown }).attributeTypeMap))
    return undefined;
  return BUILTIN_BY_NAME.get(type.name);
}

/** A table holding the built-in kinds only (for code that has no mapper at hand). */
const BUILTIN_ONLY = new TypeTable();

/** Splits `apps/v1` into group `apps`, version `v1` (`v1` is the core group ''). */
export function splitAPIVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** `apps/v1` from a GVK (`v1` for the core group). */
export function apiVersionOf(gvk: Pick<GroupVersionKind, 'group' | 'version'>): string {
  return gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version;
}

/**
 * Resolves without network, from the class statics, the built-in table and what `table` holds:
 * returns `{ apiVersion, kind }` alone when discovery is needed. Throws on unusable handles.
 */
export function resolveStatic(
  ref: TypeRef | KubernetesObject,
  table: TypeTable = BUILTIN_ONLY,
): ResourceInfo | { apiVersion: string; kind: string } {
  if (typeof ref === 'function') {
    const known = table.byType(ref);
    if (known) return known;
    const t = ref as ObjectType;
    if (t.gvk) {
      const apiVersion = apiVersionOf(t.gvk);
      if (t.plural && t.namespaced !== undefined) return info(apiVersion, t.gvk.kind, t.plural, t.namespaced);
      return table.byKind(apiVersion, t.gvk.kind) ?? { apiVersion, kind: t.gvk.kind };
    }
    throw new Error(
      `kubeforge/runtime: cannot tell the Kubernetes kind of class ${t.name || '(anonymous)'}: ` +
        'give it `static readonly gvk`, `plural` and `namespaced` (kubeforge create api does), register it with mgr.getRESTMapper().register(), ' +
        "or pass a descriptor such as { apiVersion: 'example.com/v1', kind: 'Widget' }",
    );
  }
  const d = ref as TypeDescriptor & KubernetesObject;
  if (!d || typeof d !== 'object') throw new Error(`kubeforge/runtime: expected a type or object, got ${String(ref)}`);
  if (!d.apiVersion || !d.kind) {
    // An object built from a class without apiVersion/kind: use its constructor.
    const ctor = (d as object).constructor;
    if (ctor && ctor !== Object) return resolveStatic(ctor as ObjectType, table);
    throw new Error(
      `kubeforge/runtime: object ${d.metadata?.name ? `"${d.metadata.name}" ` : ''}has no apiVersion/kind; set them (e.g. apiVersion: 'apps/v1', kind: 'Deployment')`,
    );
  }
  const known = table.byKind(d.apiVersion, d.kind);
  if (known) return known;
  if (typeof d.plural === 'string' && typeof d.namespaced === 'boolean')
    return info(d.apiVersion, d.kind, d.plural, d.namespaced);
  return { apiVersion: d.apiVersion, kind: d.kind };
}

/** True when `resolveStatic` produced a full ResourceInfo. */
export function isResolved(x: ResourceInfo | { apiVersion: string; kind: string }): x is ResourceInfo {
  return typeof (x as ResourceInfo).plural === 'string';
}

/** Adds apiVersion/kind to an object that lacks them (objects from model constructors). */
export function withTypeMeta<T extends KubernetesObject>(obj: T, r: ResourceInfo): T {
  if (obj.apiVersion && obj.kind) return obj;
  return { ...obj, apiVersion: r.apiVersion, kind: r.kind };
}

/** The URL path of a collection or object: /api/v1/namespaces/ns/pods[/name][/sub]. */
export function resourcePath(
  r: ResourceInfo,
  namespace: string | undefined,
  name?: string,
  subresource?: string,
): string {
  let p = r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
  if (r.namespaced && namespace) p += `/namespaces/${encodeURIComponent(namespace)}`;
  p += `/${r.plural}`;
  if (name !== undefined) p += `/${encodeURIComponent(name)}`;
  if (subresource) p += `/${subresource}`;
  return p;
}

/** A JSON object: not an array, not null (what a decoded body or a managedFields set must be). */
export function isJSONObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * An object of which only the metadata is read (apimachinery's metav1.PartialObjectMetadata):
 * apiVersion and kind are those of the type it stands for (as controller-runtime sets them), the
 * rest of the object is absent.
 */
export interface PartialObjectMetadata extends KubernetesObject {
  apiVersion: string;
  kind: string;
  metadata: k8s.V1ObjectMeta;
}

const METADATA_ONLY = Symbol.for('kubeforge.metadataOnly');

/** What `metadataOnly(type)` returns: a type descriptor that reads metadata only. */
export interface MetadataOnlyType extends TypeDescriptor {
  readonly [METADATA_ONLY]: TypeRef;
}

/**
 * The metadata of `type` only (controller-runtime's `metav1.PartialObjectMetadata` with the type's
 * GVK, and `builder.OnlyMetadata` for watches): `cache.get(metadataOnly(V1Secret), key)` and
 * `client.get/list` answer PartialObjectMetadata objects; the cache keeps a separate
 * metadata-only informer for them (the server sends only metadata, so it costs far less memory
 * than the full objects). The full type's informer is another one: do not read the same kind both
 * ways unless you need both.
 */
export function metadataOnly<T extends KubernetesObject>(
  type: TypeRef<T>,
): MetadataOnlyType & TypeRef<PartialObjectMetadata> {
  return metadataOnlyIn(type);
}

/** `metadataOnly` resolving classes through a mapper's table too (the controller builder's). */
export function metadataOnlyIn(type: TypeRef, table?: TypeTable): MetadataOnlyType & TypeRef<PartialObjectMetadata> {
  if (isMetadataOnly(type)) return type;
  const r = resolveStatic(type, table);
  const d: MetadataOnlyType = { apiVersion: r.apiVersion, kind: r.kind, [METADATA_ONLY]: type };
  if (isResolved(r)) Object.assign(d, { plural: r.plural, namespaced: r.namespaced });
  return Object.freeze(d);
}

/** True for what `metadataOnly()` returns. */
export function isMetadataOnly(type: unknown): type is MetadataOnlyType {
  return typeof type === 'object' && type !== null && METADATA_ONLY in type;
}

/** The type a `metadataOnly()` descriptor stands for (the type itself otherwise). */
export function fullType(type: TypeRef | KubernetesObject): TypeRef | KubernetesObject {
  return isMetadataOnly(type) ? type[METADATA_ONLY] : type;
}

/** The Accept headers that make the API server answer PartialObjectMetadata(List) (what client-go's metadata client sends). */
export const METADATA_ACCEPT = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1';
export const METADATA_LIST_ACCEPT = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';

/** A PartialObjectMetadata as the server sent it, with the apiVersion/kind of the type it stands for. */
export function asPartialObjectMetadata(
  obj: KubernetesObject,
  r: { apiVersion: string; kind: string },
): PartialObjectMetadata {
  return { apiVersion: r.apiVersion, kind: r.kind, metadata: obj.metadata ?? {} };
}
