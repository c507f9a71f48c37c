/**
 * A built-in Kind's body read as the API server reads it: into the Kind's Go types, with the
 * JSON decoder's rules (sigs.k8s.io/json over encoding/json). Two outcomes:
 *  - a value of the wrong JSON type is refused with 400 BadRequest and the decoder's words
 *    (`json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type
 *    int32`): the first such error in the body's order, unless a custom decoder (Quantity) fails
 *    first, which stops the decoding at once;
 *  - a field the Go type does not have is dropped, with the `unknown field "spec.x"` warning of
 *    the server's default field validation (Warn).
 * The types come from the schema data of the newest supported Kubernetes minor (src/schema/k8s, the
 * schemas `manifests` embeds by default), whose `$model` references name the Go struct each field
 * belongs to.
 */
import { k8sModelShape, type DataModel, type DataNode } from '../../schema/k8s/index.js';
import type { Resource } from './resources.js';
import { badRequest } from './status.js';
import { type Obj, isObj } from '../../apiserver/json.js';
import { OBJECT_META_FIELDS } from '../../apiserver/structural.js';

/** resource.Quantity's parse errors name this expression (ErrFormatWrong). */
const QUANTITY_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
/** What ParseQuantity accepts: a signed decimal, then a binary or decimal suffix or an exponent. */
const QUANTITY = /^[+-]?(\d+(\.\d*)?|\.\d+)(([KMGTPE]i)|[numkMGTPE]|([eE][+-]?(\d+(\.\d*)?|\.\d+)))?$/;

/** A decoding error that stops the decoder at once (a custom UnmarshalJSON failed). */
class Abort extends Error {}

/**
 * The Go package alias and struct name of a model: `V1DeploymentSpec` -> `v1.DeploymentSpec`; a Go
 * struct client-node has no model for is named by its package path: `k8s.io/api/core/v1.PodSchedulingGroup`
 * -> `v1.PodSchedulingGroup`.
 */
export function goTypeName(model: string): { pkg: string; name: string } {
  const go = /^[\w.-]+(?:\/[\w.-]+)*\/(\w+)\.(\w+)$/.exec(model);
  if (go) return { pkg: go[1], name: go[2] };
  const m = /^([A-Z][a-z]+)?(V\d+(?:alpha\d+|beta\d+)?)([A-Z]\w*)$/.exec(model);
  if (!m) return { pkg: 'v1', name: model };
  return { pkg: m[2].toLowerCase(), name: m[3] };
}

/** The Go type a schema node decodes into, as the decoder names it in an error. */
function goType(node: DataNode): string {
  if (node.$model) {
    const t = goTypeName(node.$model);
    return `${t.pkg}.${t.name}`;
  }
  switch (node.$special) {
    case 'ObjectMeta':
      return 'v1.ObjectMeta';
    case 'IntOrString':
      return 'int32';
    case 'Quantity':
      return 'resource.Quantity';
    case 'RawExtension':
      return 'runtime.RawExtension';
    case 'JSON':
      return 'v1.JSON';
  }
  if (node.type === 'array') return `[]${node.items ? goType(node.items) : 'interface {}'}`;
  if (node.type === 'object')
    return `map[string]${node.additionalProperties ? goType(node.additionalProperties) : 'interface {}'}`;
  if (node.type === 'integer') return node.format === 'int32' ? 'int32' : 'int64';
  if (node.type === 'number') return 'float64';
  if (node.type === 'boolean') return 'bool';
  if (node.type === 'string' && node.format === 'byte') return '[]uint8';
  return 'string';
}

/** How the decoder names a JSON value's type: string, number, bool, object, array. */
function jsonType(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number' || typeof v === 'bigint') return 'number';
  if (typeof v === 'boolean') return 'bool';
  return Array.isArray(v) ? 'array' : 'object';
}

interface Walk {
  /** The first saved error (decoding goes on after it). */
  error?: string;
  warnings: string[];
}

/**
 * Decodes `o` (changed in place: unknown fields removed) as the built-in Kind `r` whose model is
 * `model`; throws the API server's 400 when a value cannot be decoded. Kinds without a model pass.
 */
export function decodeBuiltin(r: Resource, model: string | undefined, o: Obj, warnings: string[]): void {
  if (!model) return;
  const root = k8sModelShape(model);
  if (!root) return;
  const w: Walk = { warnings };
  try {
    walkStruct(o, root, goTypeName(model).name, '', '', w);
  } catch (e) {
    if (!(e instanceof Abort)) throw e;
    w.error = e.message;
  }
  if (w.error) throw badRequest(`${r.kind} in version "${r.version}" cannot be handled as a ${r.kind}: ${w.error}`);
}

/** The fields of a struct: `path` the JSON path from the root without indices (for errors), `at` with them (for warnings). */
function walkStruct(o: Obj, model: DataModel, struct: string, path: string, at: string, w: Walk): void {
  for (const key of Object.keys(o)) {
    const node = model.properties[key];
    const fieldAt = at ? `${at}.${key}` : key;
    if (!node) {
      w.warnings.push(`unknown field "${fieldAt}"`);
      delete o[key];
      continue;
    }
    walkValue(o[key], node, struct, path ? `${path}.${key}` : key, fieldAt, w);
  }
}

function save(w: Walk, message: string): void {
  w.error ??= message;
}

function typeError(w: Walk, v: unknown, struct: string, path: string, type: string, withValue = false): void {
  save(
    w,
    `json: cannot unmarshal ${jsonType(v)}${withValue ? ` ${String(v)}` : ''} into Go struct field ${struct}.${path} of type ${type}`,
  );
}

function walkValue(v: unknown, node: DataNode, struct: string, path: string, at: string, w: Walk): void {
  if (v === null || v === undefined) return;
  if (node.$model || node.$special === 'ObjectMeta') {
    const name = node.$model ?? 'V1ObjectMeta';
    const model = k8sModelShape(name);
    if (!isObj(v)) {
      typeError(w, v, struct, path, goType(node));
      return;
    }
    if (model) walkStruct(v, model, goTypeName(name).name, path, at, w);
    return;
  }
  switch (node.$special) {
    case 'RawExtension':
    case 'JSON':
      return;
    case 'Quantity':
      if (typeof v === 'number' || (typeof v === 'string' && QUANTITY.test(v.trim()))) return;
      throw new Abort(QUANTITY_ERROR);
    case 'IntOrString':
      if (typeof v === 'string') return;
      if (typeof v === 'number' || typeof v === 'bigint') {
        if (typeof v === 'bigint' || !Number.isInteger(v) || v > 2147483647 || v < -2147483648)
          typeError(w, v, struct, path, 'int32', true);
        return;
      }
      typeError(w, v, struct, path, 'int32');
      return;
  }
  switch (node.type) {
    case 'array': {
      if (!Array.isArray(v)) {
        typeError(w, v, struct, path, goType(node));
        return;
      }
      const items = node.items;
      if (items) for (const [i, item] of v.entries()) walkValue(item, items, struct, path, `${at}[${i}]`, w);
      return;
    }
    case 'object': {
      if (!isObj(v)) {
        typeError(w, v, struct, path, goType(node));
        return;
      }
      const values = node.additionalProperties;
      if (values) for (const k of Object.keys(v)) walkValue(v[k], values, struct, path, `${at}[${k}]`, w);
      else if (node.properties)
        walkStruct(v, { properties: node.properties as Record<string, DataNode> }, struct, path, at, w);
      return;
    }
    case 'integer': {
      const bits = node.format === 'int32' ? 31 : 63;
      // An integer beyond 2^53 is a BigInt (./wire.ts): exact, and within int64 by construction.
      if (typeof v === 'bigint') {
        if (bits === 31 || v >= 2n ** 63n || v < -(2n ** 63n)) typeError(w, v, struct, path, goType(node), true);
        return;
      }
      if (typeof v !== 'number') {
        typeError(w, v, struct, path, goType(node));
        return;
      }
      if (!Number.isInteger(v) || Math.abs(v) >= 2 ** bits) typeError(w, v, struct, path, goType(node), true);
      return;
    }
    case 'number':
      if (typeof v !== 'number' && typeof v !== 'bigint') typeError(w, v, struct, path, 'float64');
      return;
    case 'boolean':
      if (typeof v !== 'boolean') typeError(w, v, struct, path, 'bool');
      return;
    case 'string':
      if (typeof v !== 'string') {
        typeError(w, v, struct, path, goType(node));
        return;
      }
      if (node.format === 'byte') {
        const bad = base64Error(v);
        if (bad !== undefined) save(w, `illegal base64 data at input byte ${bad}`);
      }
      return;
  }
}

/** Where Go's base64.StdEncoding stops on `s` (undefined: it decodes). Line breaks are skipped, as Go skips them. */
function base64Error(s: string): number | undefined {
  let data = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '\r' || c === '\n') continue;
    if (c === '=') {
      // Padding: one or two, only at the end of a quantum of four.
      const rest = s.slice(i).replace(/[\r\n]/g, '');
      const quantum = data % 4;
      if (quantum < 2 || !/^={1,2}$/.test(rest) || quantum + rest.length !== 4) return i;
      return undefined;
    }
    if (!/[A-Za-z0-9+/]/.test(c)) return i;
    data++;
  }
  if (data % 4 === 1) return s.length - 1;
  return data % 4 === 0 ? undefined : s.length;
}

/** A strategic merge patch's result the unstructured converter cannot set into the Go object: its message. */
export class ConvertError extends Error {}

const MIN_INT64 = -(2n ** 63n);
const MAX_INT64 = 2n ** 63n - 1n;

/** The reflect.Kind of a value an unstructured map holds (util/json: integers as int64 when they fit, else float64). */
function goKind(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'bigint') return v >= MIN_INT64 && v <= MAX_INT64 ? 'int64' : 'float64';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  return Array.isArray(v) ? 'slice' : 'map';
}

/**
 * Non-pointer integer fields with omitempty that a conversion can leave 0 (then not printed):
 * `Struct.field` of the Go type.
 */
const OMITTED_ZERO = new Set(['Event.count', 'Event.deprecatedCount']);

/** reflect's Convert of a number into an integer of `bits`: through int64 (out of range: the minimum), then wrapped. */
function toInt(v: number | bigint, bits: 32 | 64): number | bigint {
  let i: bigint;
  if (typeof v === 'bigint' && v >= MIN_INT64 && v <= MAX_INT64) i = v;
  else {
    const f = Number(v);
    i = f >= -(2 ** 63) && f < 2 ** 63 ? BigInt(Math.trunc(f)) : MIN_INT64;
  }
  const out = BigInt.asIntN(bits, i);
  return out >= -(2n ** 53n) && out <= 2n ** 53n ? Number(out) : out;
}

/**
 * A strategic merge patch's result as runtime.DefaultUnstructuredConverter sets it into the Kind's
 * Go struct (the patch handler's applyPatchToObject): integers converted into the field's size
 * (wrapped, as Go converts; one beyond int64 is a float64 first), and a value that cannot be set
 * refused with the converter's words (ConvertError: `cannot restore slice from map`,
 * `unrecognized type: string`). `o` is changed in place.
 */
export function convertPatched(model: string | undefined, o: Obj): void {
  const root = model ? k8sModelShape(model) : undefined;
  if (model && root) convertStruct(o, root, goTypeName(model).name);
}

function convertStruct(o: Obj, model: DataModel, struct: string): void {
  for (const key of Object.keys(o)) {
    const node = model.properties[key];
    if (!node) continue;
    const v = convertValue(o[key], node, `${struct}.${key}`);
    if (v === 0 && OMITTED_ZERO.has(`${struct}.${key}`)) delete o[key];
    else o[key] = v;
  }
}

function convertValue(v: unknown, node: DataNode, field: string): unknown {
  if (v === null || v === undefined) return v;
  const kind = goKind(v);
  if (node.$model || node.$special === 'ObjectMeta') {
    const name = node.$model ?? 'V1ObjectMeta';
    const model = k8sModelShape(name);
    if (!isObj(v)) throw new ConvertError(`cannot restore struct from: ${kind}`);
    if (model) convertStruct(v, model, goTypeName(name).name);
    return v;
  }
  // Types with their own conversion (IntOrString, Quantity, RawExtension, JSON, Time).
  if (node.$special || node.format === 'date-time') return v;
  switch (node.type) {
    case 'array': {
      if (!Array.isArray(v)) throw new ConvertError(`cannot restore slice from ${kind}`);
      const items = node.items;
      return items ? v.map((x) => convertValue(x, items, field)) : v;
    }
    case 'object': {
      if (!isObj(v)) throw new ConvertError(`cannot restore map from ${kind}`);
      const values = node.additionalProperties;
      if (values) for (const k of Object.keys(v)) v[k] = convertValue(v[k], values, field);
      else if (node.properties) convertStruct(v, { properties: node.properties as Record<string, DataNode> }, field);
      return v;
    }
    case 'integer': {
      const t = node.format === 'int32' ? 'int32' : 'int64';
      if (kind === 'int64') return toInt(v as number | bigint, t === 'int32' ? 32 : 64);
      if (kind === 'float64') {
        const f = Number(v);
        if (f !== Math.trunc(f)) throw new ConvertError(`cannot convert float64 to ${t}`);
        return toInt(v as number | bigint, t === 'int32' ? 32 : 64);
      }
      throw new ConvertError(`unrecognized type: ${t}`);
    }
    case 'number':
      if (kind === 'int64' || kind === 'float64') return v;
      throw new ConvertError('unrecognized type: float64');
    case 'boolean':
      if (kind === 'bool') return v;
      throw new ConvertError('unrecognized type: bool');
    case 'string':
      if (node.format === 'byte') {
        if (kind === 'string') return v;
        throw new ConvertError(`cannot restore slice from ${kind}`);
      }
      if (kind === 'string') return v;
      // An integer converts to a string in Go's reflect, which the converter refuses by name.
      if (kind === 'int64') throw new ConvertError('cannot convert int64 to string');
      throw new ConvertError('unrecognized type: string');
  }
  return v;
}

/**
 * The Go field order of the structs the fake's built-in Kinds hold most (k8s.io/api 1.37's types):
 * the order the server's codec writes their JSON in. Structs not listed keep the fake's order.
 */
const GO_FIELD_ORDER: Record<string, readonly string[]> = {
  ObjectReference: ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath'],
  EventSource: ['component', 'host'],
  PodTemplateSpec: ['metadata', 'spec'],
  PodSpec: [
    'volumes',
    'initContainers',
    'containers',
    'ephemeralContainers',
    'restartPolicy',
    'terminationGracePeriodSeconds',
    'activeDeadlineSeconds',
    'dnsPolicy',
    'nodeSelector',
    'serviceAccountName',
    'serviceAccount',
    'automountServiceAccountToken',
    'nodeName',
    'hostNetwork',
    'hostPID',
    'hostIPC',
    'shareProcessNamespace',
    'securityContext',
    'imagePullSecrets',
    'hostname',
    'subdomain',
    'affinity',
    'schedulerName',
    'tolerations',
    'hostAliases',
    'priorityClassName',
    'priority',
    'dnsConfig',
    'readinessGates',
    'runtimeClassName',
    'enableServiceLinks',
    'preemptionPolicy',
    'overhead',
    'topologySpreadConstraints',
    'setHostnameAsFQDN',
    'os',
    'hostUsers',
    'schedulingGates',
    'resourceClaims',
    'resources',
    'hostnameOverride',
    'schedulingGroup',
    'evictionResponders',
  ],
  Container: [
    'name',
    'image',
    'command',
    'args',
    'workingDir',
    'ports',
    'envFrom',
    'env',
    'resources',
    'resizePolicy',
    'restartPolicy',
    'restartPolicyRules',
    'volumeMounts',
    'volumeDevices',
    'livenessProbe',
    'readinessProbe',
    'startupProbe',
    'lifecycle',
    'terminationMessagePath',
    'terminationMessagePolicy',
    'imagePullPolicy',
    'securityContext',
    'stdin',
    'stdinOnce',
    'tty',
  ],
  ResourceRequirements: ['limits', 'requests', 'claims'],
  PodSecurityContext: [
    'seLinuxOptions',
    'windowsOptions',
    'runAsUser',
    'runAsGroup',
    'runAsNonRoot',
    'supplementalGroups',
    'supplementalGroupsPolicy',
    'fsGroup',
    'sysctls',
    'fsGroupChangePolicy',
    'seccompProfile',
    'appArmorProfile',
    'seLinuxChangePolicy',
  ],
  NamespaceSpec: ['finalizers'],
  NamespaceStatus: ['phase', 'conditions'],
  ContainerPort: ['name', 'hostPort', 'containerPort', 'protocol', 'hostIP'],
  EnvVar: ['name', 'value', 'valueFrom'],
  DeploymentSpec: [
    'replicas',
    'selector',
    'template',
    'strategy',
    'minReadySeconds',
    'revisionHistoryLimit',
    'paused',
    'progressDeadlineSeconds',
  ],
  DeploymentStrategy: ['type', 'rollingUpdate'],
  RollingUpdateDeployment: ['maxUnavailable', 'maxSurge'],
  DeploymentStatus: [
    'observedGeneration',
    'replicas',
    'updatedReplicas',
    'readyReplicas',
    'availableReplicas',
    'unavailableReplicas',
    'terminatingReplicas',
    'conditions',
    'collisionCount',
  ],
  ObjectMeta: OBJECT_META_FIELDS,
  ManagedFieldsEntry: ['manager', 'operation', 'apiVersion', 'time', 'fieldsType', 'fieldsV1', 'subresource'],
  OwnerReference: ['apiVersion', 'kind', 'name', 'uid', 'controller', 'blockOwnerDeletion'],
  LabelSelector: ['matchLabels', 'matchExpressions'],
  LabelSelectorRequirement: ['key', 'operator', 'values'],
  PolicyRule: ['verbs', 'apiGroups', 'resources', 'resourceNames', 'nonResourceURLs'],
  AggregationRule: ['clusterRoleSelectors'],
};

/**
 * The object as the server's codec writes it: the listed structs' fields in Go order, a Go map's
 * keys sorted (encoding/json), everything else in the fake's order. A new object.
 */
export function goOrder(model: string | undefined, o: Obj): Obj {
  const root = model ? k8sModelShape(model) : undefined;
  return model && root ? orderStruct(o, root, goTypeName(model).name) : o;
}

function orderStruct(o: Obj, model: DataModel, struct: string): Obj {
  const order = GO_FIELD_ORDER[struct] ?? [];
  const keys = [...order.filter((k) => k in o), ...Object.keys(o).filter((k) => !order.includes(k))];
  const out: Obj = {};
  for (const k of keys) out[k] = model.properties[k] ? orderValue(o[k], model.properties[k]) : o[k];
  return out;
}

function orderValue(v: unknown, node: DataNode): unknown {
  if (node.$model || node.$special === 'ObjectMeta') {
    const name = node.$model ?? 'V1ObjectMeta';
    const model = k8sModelShape(name);
    return isObj(v) && model ? orderStruct(v, model, goTypeName(name).name) : v;
  }
  if (node.$special) return v;
  const items = node.items;
  if (Array.isArray(v) && items) return v.map((x) => orderValue(x, items));
  if (isObj(v) && node.additionalProperties) {
    const out: Obj = {};
    for (const k of Object.keys(v).sort()) out[k] = orderValue(v[k], node.additionalProperties);
    return out;
  }
  if (isObj(v) && node.properties)
    return orderStruct(v, { properties: node.properties as Record<string, DataNode> }, '');
  return v;
}
