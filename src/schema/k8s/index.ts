/**
 * Structural schemas of the Kubernetes types a kubeforge API may embed (`V1PodTemplateSpec`,
 * `V1Condition`, `V1LabelSelector`, ... any `@kubernetes/client-node` model), fully inlined,
 * in the forms controller-gen emits for the same `k8s.io/api` types, at each supported Kubernetes
 * minor ({@link K8S_VERSIONS}; `manifests --k8s-version`, default the newest).
 *
 * Nothing here is hand-written: `scripts/gen-k8s-schemas.mjs` builds the data from
 *  - the Go modules `k8s.io/api` and `k8s.io/apimachinery` at each supported minor (pinned
 *    releases, read from the Go module cache), read the way controller-gen reads them: every
 *    client-node model that is one of their structs gets the struct's fields and shapes, its doc
 *    comments as descriptions (line breaks kept), required fields by controller-gen's rule,
 *    `+listType` / `+listMapKey` / `+mapType` / `+structType`, `+default`, and
 *    `+kubebuilder:validation:*` markers (metav1.Condition's maxLength, pattern, enum, ...); Go
 *    structs newer than client-node become models of their own;
 *  - `@kubernetes/client-node` (the models users embed): the model names, and all the data of
 *    models no Go struct stands for (apiextensions, apiregistration), with `kubernetes-types` for
 *    their Quantity / RawExtension fields and paragraph breaks.
 * `data/models.json` holds the newest minor; `data/models.<minor>.patch.json` turns it into an
 * older minor's (a JSON merge patch). `data/go-types-report.md` lists, per minor, what the Go types
 * changed and where they could not apply.
 *
 * Importing this module is cheap: it never imports client-node, and reads `models.json` (and a
 * minor's patch) only on the first schema request for that minor. Each model's inlined schema is
 * built once per minor and description mode and cached; every call returns a fresh copy that the
 * caller owns (no object is shared between two results, so a YAML writer never sees aliases).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JSONSchemaProps } from '../jsonschema.js';
import { packageRoot } from '../../util/package-root.js';
import { K8S_NEWEST_VERSION, K8S_VERSIONS, MODEL_NAMES, SOURCE } from './data/source.js';

export { K8S_NEWEST_VERSION, K8S_VERSIONS };

/** A supported Kubernetes minor (`1.37`). */
export type K8sVersion = (typeof K8S_VERSIONS)[number];

/** Whether `v` is a supported Kubernetes minor. */
export function isK8sVersion(v: string): v is K8sVersion {
  return (K8S_VERSIONS as readonly string[]).includes(v);
}

/** An npm package the schemas are generated from, and the Kubernetes release its data is of. */
export interface K8sSchemaSourcePackage {
  package: string;
  version: string;
  kubernetesVersion: string;
}

/**
 * Where the schemas come from: the npm package and Kubernetes release of the model names (and of
 * the data of models no Go struct stands for); under `auxiliary` the package that tells Quantity and
 * RawExtension fields of those apart; under `goTypes`, per supported minor, the Go modules the models
 * are built from.
 */
export const k8sSchemaSource: K8sSchemaSourcePackage & {
  auxiliary: { package: string; version: string };
  goTypes: Readonly<Record<K8sVersion, readonly string[]>>;
} = {
  package: SOURCE.package,
  version: SOURCE.version,
  kubernetesVersion: SOURCE.kubernetesVersion,
  auxiliary: { package: SOURCE.auxiliary.package, version: SOURCE.auxiliary.version },
  goTypes: SOURCE.goTypes,
};

/** The special apimachinery types, written in the forms controller-gen uses for them. */
type Special = 'Quantity' | 'IntOrString' | 'RawExtension' | 'JSON' | 'ObjectMeta';

/** A node of models.json: a schema whose model-typed parts are references. */
export interface DataNode extends JSONSchemaProps {
  $model?: string;
  $special?: Special;
  items?: DataNode;
  additionalProperties?: DataNode;
}

export interface DataModel {
  description?: string;
  properties: Record<string, DataNode>;
  required?: string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  /** CEL rules on the type (controller-gen's for its optional `+k8s:immutable` fields). */
  'x-kubernetes-validations'?: JSONSchemaProps['x-kubernetes-validations'];
}

interface Data {
  models: Record<string, DataModel>;
}

/** controller-gen's pattern for resource.Quantity (the string form it accepts). */
export const QUANTITY_PATTERN =
  '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$';

/**
 * client-node exports that are not generated models but stand for apimachinery types:
 * `IntOrString` (intstr.IntOrString) and `V1MicroTime` (metav1.MicroTime).
 */
const EXTRA: Record<string, () => JSONSchemaProps> = {
  IntOrString: () => intOrStringSchema(),
  V1MicroTime: () => ({ format: 'date-time', type: 'string' }),
};

const modelNames: ReadonlySet<string> = new Set([...MODEL_NAMES, ...Object.keys(EXTRA)]);

/**
 * Whether `name` is a `@kubernetes/client-node` model class name this module has a schema for
 * (every generated model, plus client-node's `IntOrString` and `V1MicroTime`).
 */
export function isK8sModelName(name: string): boolean {
  return modelNames.has(name);
}

/** controller-gen's schema for resource.Quantity: an integer or a string in Quantity syntax. */
export function quantitySchema(): JSONSchemaProps {
  return {
    anyOf: [{ type: 'integer' }, { type: 'string' }],
    pattern: QUANTITY_PATTERN,
    'x-kubernetes-int-or-string': true,
  };
}

/** controller-gen's schema for intstr.IntOrString. */
export function intOrStringSchema(): JSONSchemaProps {
  return { anyOf: [{ type: 'integer' }, { type: 'string' }], 'x-kubernetes-int-or-string': true };
}

/** What one minor's data gives: the models, and the schemas built from them (per mode). */
interface Minor {
  data: Data;
  /**
   * Built schemas, per mode (see {@link slot}). Internal only: they share subtrees, and are copied
   * on the way out.
   */
  built: Map<string, JSONSchemaProps>[];
  /** Deep-frozen built schemas handed out by {@link k8sModelSchemaShared}, per mode. */
  frozen: Map<string, JSONSchemaProps>[];
}

const minors = new Map<K8sVersion, Minor>();

/** The path of models.json (beside the sources, shipped with the package): the newest minor's data. */
export function k8sSchemaDataPath(): string {
  return join(packageRoot(), 'src', 'schema', 'k8s', 'data', 'models.json');
}

/** The path of an older minor's patch over models.json. */
export function k8sSchemaPatchPath(version: K8sVersion): string {
  return join(packageRoot(), 'src', 'schema', 'k8s', 'data', `models.${version}.patch.json`);
}

/**
 * A JSON merge patch (RFC 7396) applied to `target` without changing it: the result shares every
 * subtree the patch does not touch.
 */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> =
    target !== null && typeof target === 'object' && !Array.isArray(target)
      ? { ...(target as Record<string, unknown>) }
      : {};
  for (const [k, v] of Object.entries(patch as Record<string, unknown>)) {
    if (v === null) delete out[k];
    else out[k] = applyMergePatch(Object.hasOwn(out, k) ? out[k] : undefined, v);
  }
  return out;
}

function readJson(path: string): unknown {
  return JSON.parse(readFileSync(path, 'utf8'));
}

function minor(version: K8sVersion = K8S_NEWEST_VERSION): Minor {
  let m = minors.get(version);
  if (!m) {
    if (!isK8sVersion(version))
      throw new Error(
        `kubeforge: no schema data for Kubernetes ${String(version)} (supported: ${K8S_VERSIONS.join(', ')})`,
      );
    let data: Data;
    if (version === K8S_NEWEST_VERSION) data = { models: (readJson(k8sSchemaDataPath()) as Data).models };
    else
      data = {
        models: applyMergePatch(
          minor(K8S_NEWEST_VERSION).data.models,
          readJson(k8sSchemaPatchPath(version)),
        ) as Data['models'],
      };
    m = {
      data,
      built: [new Map(), new Map(), new Map(), new Map()],
      frozen: [new Map(), new Map(), new Map(), new Map()],
    };
    minors.set(version, m);
  }
  return m;
}

/**
 * A model as the data keeps it: properties whose model-typed parts are references (`$model`,
 * `$special`), not inlined. What kubeforge/testing's fake API server decodes built-in Kinds with
 * (it needs the Go struct each field belongs to). Shared: do not change it.
 */
export function k8sModelSource(name: string, version?: K8sVersion): DataModel | undefined {
  const models = minor(version).data.models;
  return Object.hasOwn(models, name) ? models[name] : undefined;
}

/** The path of models.shape.json: the newest minor's models without their descriptions. */
export function k8sShapeDataPath(): string {
  return join(packageRoot(), 'src', 'schema', 'k8s', 'data', 'models.shape.json');
}

let shapes: Record<string, DataModel> | undefined;

/**
 * A model of the newest minor as {@link k8sModelSource} gives it, without its descriptions. Read
 * from models.shape.json, a sixth the size of models.json: kubeforge/testing's fake API server
 * decodes built-in Kinds with it in every unit-test process, and parsing models.json was ~25 ms of
 * such a process. Shared: do not change it.
 */
export function k8sModelShape(name: string): DataModel | undefined {
  shapes ??= (readJson(k8sShapeDataPath()) as Data).models;
  return Object.hasOwn(shapes, name) ? shapes[name] : undefined;
}

/** How a model is built: with descriptions, and with embedded ObjectMeta's allow-listed fields. */
interface Mode {
  descriptions: boolean;
  objectMeta: boolean;
}

/** The cache of a mode: `descriptions` is bit 0, `objectMeta` bit 1. */
const slot = (m: Mode) => (m.descriptions ? 1 : 0) + (m.objectMeta ? 2 : 0);

/**
 * Options of the model schemas: `embeddedObjectMeta` is controller-gen's
 * `crd:generateEmbeddedObjectMeta`; `kubernetesVersion` the minor whose types are used (default
 * the newest supported).
 */
export interface K8sSchemaOptions {
  descriptions?: boolean;
  embeddedObjectMeta?: boolean;
  kubernetesVersion?: K8sVersion;
}

const modeOf = (o?: K8sSchemaOptions): Mode => ({
  descriptions: o?.descriptions !== false,
  objectMeta: o?.embeddedObjectMeta === true,
});

/**
 * An ObjectMeta that is not a Kind's own metadata: a bare object, or with
 * `crd:generateEmbeddedObjectMeta` the fields controller-gen allows there (name, namespace,
 * labels, annotations, finalizers), so that the API server keeps them in a pod template.
 */
export function embeddedObjectMetaSchema(generate: boolean): JSONSchemaProps {
  if (!generate) return { type: 'object' };
  const strings = (): JSONSchemaProps => ({ additionalProperties: { type: 'string' }, type: 'object' });
  return {
    properties: {
      annotations: strings(),
      finalizers: { items: { type: 'string' }, type: 'array' },
      labels: strings(),
      name: { type: 'string' },
      namespace: { type: 'string' },
    },
    type: 'object',
  };
}
/** How many recursive references have been cut so far (a model built across a cut is not cached). */
let cuts = 0;

/**
 * The fully inlined structural schema of a `@kubernetes/client-node` model, as controller-gen
 * emits the `k8s.io/api` type it stands for: `type`, `format` (int32, int64, byte, date-time),
 * sorted `required`, descriptions (unless `descriptions: false`), Quantity and IntOrString in
 * controller-gen's `anyOf` forms, nested `ObjectMeta` as `type: object`, `RawExtension` as an
 * object that keeps unknown fields. No `$ref` anywhere. `undefined` for an unknown name.
 *
 * The result is a new object on every call; the caller may change it.
 */
export function k8sModelSchema(name: string, options?: K8sSchemaOptions): JSONSchemaProps | undefined {
  if (!modelNames.has(name)) return undefined;
  if (Object.hasOwn(EXTRA, name)) return EXTRA[name]();
  const mode = modeOf(options);
  const m = minor(options?.kubernetesVersion);
  const cache = m.built[slot(mode)];
  let schema = cache.get(name);
  if (!schema) {
    schema = buildModel(m, name, mode, []);
    cache.set(name, schema);
  }
  return copy(schema);
}

function deepFreeze<T>(value: T, seen: Set<object>): T {
  if (value !== null && typeof value === 'object' && !seen.has(value)) {
    seen.add(value);
    for (const v of Object.values(value)) deepFreeze(v, seen);
    Object.freeze(value);
  }
  return value;
}

/**
 * {@link k8sModelSchema} without the deep copy: a new top-level object whose subtrees are shared
 * (deep-frozen) with every other call. What the analysis uses: a Kind only changes the top level
 * of a field's schema (markers, description), and every CRD embedding V1PodTemplateSpec then
 * shares one tree of a few thousand nodes, which the YAML writer and the CRD check recognise by
 * identity instead of walking it again (a deep copy per Kind was most of the memory at scale).
 */
export function k8sModelSchemaShared(name: string, options?: K8sSchemaOptions): JSONSchemaProps | undefined {
  if (!modelNames.has(name)) return undefined;
  if (Object.hasOwn(EXTRA, name)) return EXTRA[name]();
  const cache = minor(options?.kubernetesVersion).frozen[slot(modeOf(options))];
  let schema = cache.get(name);
  if (!schema) {
    const built = k8sModelSchema(name, options);
    if (!built) return undefined;
    schema = deepFreeze(copy(built), new Set());
    cache.set(name, schema);
  }
  return { ...schema };
}

function buildModel(d: Minor, name: string, mode: Mode, stack: string[]): JSONSchemaProps {
  const withDescriptions = mode.descriptions;
  const model = Object.hasOwn(d.data.models, name) ? d.data.models[name] : undefined;
  if (!model)
    throw new Error(`kubeforge: no schema data for Kubernetes model ${name} (regenerate src/schema/k8s/data)`);
  if (name === 'V1ObjectMeta') {
    // controller-gen writes an ObjectMeta that is not a Kind's own metadata as a bare object
    // (with crd:generateEmbeddedObjectMeta, its allow-listed fields), without the type's
    // description (a field's own description still applies).
    return embeddedObjectMetaSchema(mode.objectMeta);
  }
  const out: JSONSchemaProps = {};
  if (withDescriptions && model.description) out.description = model.description;
  const names = Object.keys(model.properties).sort();
  if (names.length) {
    const properties: Record<string, JSONSchemaProps> = {};
    stack.push(name);
    for (const prop of names) properties[prop] = buildNode(d, model.properties[prop], mode, stack);
    stack.pop();
    out.properties = properties;
  }
  if (model.required?.length) out.required = [...model.required].sort();
  out.type = 'object';
  if (model['x-kubernetes-map-type']) out['x-kubernetes-map-type'] = model['x-kubernetes-map-type'];
  if (model['x-kubernetes-validations']?.length)
    out['x-kubernetes-validations'] = copy(model['x-kubernetes-validations']);
  return out;
}

/**
 * The keywords a data node may carry beside its shape (from the Go types' markers: topology
 * extensions, `+default`, `+kubebuilder:validation:*`), copied as they are.
 */
const NODE_KEYWORDS = [
  'default',
  'enum',
  'exclusiveMaximum',
  'exclusiveMinimum',
  'format',
  'maxItems',
  'maxLength',
  'maxProperties',
  'maximum',
  'minItems',
  'minLength',
  'minProperties',
  'minimum',
  'multipleOf',
  'pattern',
  'uniqueItems',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-list-type',
  'x-kubernetes-map-type',
  'x-kubernetes-validations',
] as const;

function buildNode(d: Minor, node: DataNode, mode: Mode, stack: string[]): JSONSchemaProps {
  const withDescriptions = mode.descriptions;
  const description = withDescriptions ? node.description : undefined;
  const own = NODE_KEYWORDS.filter((k) => node[k] !== undefined);
  let base: JSONSchemaProps;
  if (node.$model) {
    const cache = d.built[slot(mode)];
    if (stack.includes(node.$model)) {
      // A type that contains itself (apiextensions JSONSchemaProps): it cannot be inlined;
      // keep the value, unvalidated.
      cuts++;
      base = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
    } else {
      const cached = cache.get(node.$model);
      if (cached) base = cached;
      else {
        const before = cuts;
        base = buildModel(d, node.$model, mode, stack);
        if (cuts === before) cache.set(node.$model, base);
      }
    }
    // Shared with the cache: returned as is only when nothing is added (copied on the way out).
    if (description === undefined && !own.length) return base;
  } else if (node.$special) {
    base = special(node.$special, mode);
  } else {
    base = {};
    if (node.additionalProperties) base.additionalProperties = buildNode(d, node.additionalProperties, mode, stack);
    if (node.items) base.items = buildNode(d, node.items, mode, stack);
    if (node.type) base.type = node.type;
  }
  // A field's own description replaces its type's, as controller-gen does; the field's own
  // keywords join the type's, its CEL rules before the type's.
  const merged: Record<string, unknown> = { ...base };
  for (const k of own)
    merged[k] = k === 'x-kubernetes-validations' && base[k] ? [...(copy(node[k]) ?? []), ...base[k]] : copy(node[k]);
  if (description !== undefined) merged.description = description;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(merged).sort()) out[k] = merged[k];
  return out as JSONSchemaProps;
}

function special(kind: Special, mode: Mode): JSONSchemaProps {
  switch (kind) {
    case 'Quantity':
      return quantitySchema();
    case 'IntOrString':
      return intOrStringSchema();
    case 'RawExtension':
      return { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
    case 'JSON':
      return { 'x-kubernetes-preserve-unknown-fields': true };
    case 'ObjectMeta':
      return embeddedObjectMetaSchema(mode.objectMeta);
  }
}

/** A deep copy of a JSON value made of plain objects, arrays and scalars. */
function copy<T>(value: T): T {
  if (Array.isArray(value)) return value.map(copy) as T;
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value)) out[k] = copy((value as Record<string, unknown>)[k]);
    return out as T;
  }
  return value;
}
