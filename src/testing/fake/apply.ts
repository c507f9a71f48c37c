/**
 * Server-side apply for the fake API server: field sets as structured-merge-diff computes them
 * (fields of objects, list-map items by their keys, set items by value, atomic lists whole),
 * ownership per field manager and operation kept in `metadata.managedFields`, conflicts in the API
 * server's words, and fields a manager stops applying removed when no one else owns them. Updates
 * (create, update, patch) move the fields they change to their manager, as the server does.
 */
import { type Resource, scaleOf } from './resources.js';
import { equalJSON, type Schema } from '../../apiserver/structural.js';
import { ApiStatus } from './status.js';
import { apiVersionOf } from '../../runtime/client/types.js';
import { type Obj, clone, isObj } from '../../apiserver/json.js';

/** One step of a field path: a field, a list-map item by its keys, a set item by its value. */
export type Step = { f: string } | { k: Obj } | { v: unknown };

/** A field path and its identity. */
interface FieldPath {
  steps: Step[];
  id: string;
}

/** Merge keys of built-in lists (a schema-less Kind's lists are atomic but for these). */
const BUILTIN_LIST_KEYS: Record<string, string> = {
  containers: 'name',
  initContainers: 'name',
  env: 'name',
  volumes: 'name',
  volumeMounts: 'mountPath',
  ports: 'containerPort',
  ownerReferences: 'uid',
  conditions: 'type',
  imagePullSecrets: 'name',
};
/**
 * Fields of built-in Kinds whose value structured-merge-diff takes whole (`+structType=atomic`,
 * `+mapType=atomic`): label selectors, object references, a Pod's node selector.
 */
const BUILTIN_ATOMIC = new Set([
  'selector',
  'labelSelector',
  'namespaceSelector',
  'objectSelector',
  'nodeSelector',
  'involvedObject',
  'regarding',
  'related',
]);

/** A map (or struct) that is owned whole, not field by field. */
/** A built-in list's merge keys by its field's name (undefined: not a list-map). */
export function builtinListKeys(field: string): string[] | undefined {
  return field === 'finalizers' ? undefined : BUILTIN_LIST_KEYS[field] ? [BUILTIN_LIST_KEYS[field]] : undefined;
}

const atomicMap = (r: Resource, s: Schema | undefined, field: string) =>
  s?.['x-kubernetes-map-type'] === 'atomic' || (!r.custom && BUILTIN_ATOMIC.has(field));

const METADATA_PROPERTIES: Record<string, Schema> = {
  labels: { type: 'object', additionalProperties: { type: 'string' } },
  annotations: { type: 'object', additionalProperties: { type: 'string' } },
  finalizers: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
  ownerReferences: {
    type: 'array',
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['uid'],
    items: { type: 'object' },
  },
};
const METADATA_SCHEMA: Schema = { type: 'object', properties: METADATA_PROPERTIES };

function childSchema(s: Schema | undefined, key: string): Schema | undefined {
  if (!s) return undefined;
  if (s.properties?.[key]) return s.properties[key];
  if (isObj(s.additionalProperties)) return s.additionalProperties;
  return undefined;
}

function listType(
  s: Schema | undefined,
  field: string,
  custom: boolean,
): { type: 'map'; keys: string[] } | { type: 'set' } | { type: 'atomic' } {
  const lt = s?.['x-kubernetes-list-type'];
  if (lt === 'map') return { type: 'map', keys: s?.['x-kubernetes-list-map-keys'] ?? [] };
  if (lt === 'set') return { type: 'set' };
  if (lt || custom) return { type: 'atomic' };
  if (BUILTIN_LIST_KEYS[field]) return { type: 'map', keys: [BUILTIN_LIST_KEYS[field]] };
  return { type: 'atomic' };
}

function keyOf(item: unknown, keys: string[]): Obj {
  const k: Obj = {};
  if (isObj(item)) for (const key of keys) if (item[key] !== undefined) k[key] = item[key];
  return k;
}

const pathId = (steps: Step[]) => JSON.stringify(steps);

/**
 * The fields `obj` sets, as field paths (leaves, list-map items, set items). With `nodes`, every
 * path structured-merge-diff's comparison visits: the fields holding a map or a list too, which an
 * Update owns when it creates them (the `"."` of a `fieldsV1` map).
 */
export function fieldSet(
  r: Resource,
  obj: Obj,
  sub: string | undefined,
  dups?: string[],
  nodes = false,
): Map<string, FieldPath> {
  const out = new Map<string, FieldPath>();
  const add = (steps: Step[]) => {
    const id = pathId(steps);
    // structured-merge-diff refuses an applied list-map or set with an item twice.
    if (dups && out.has(id) && steps.length) {
      const last = steps[steps.length - 1];
      if ('k' in last) dups.push(`${pathString(steps.slice(0, -1))}: duplicate entries for key ${pathString([last])}`);
      else if ('v' in last)
        dups.push(`${pathString(steps.slice(0, -1))}: duplicate entries for value ${stringifyKey(last.v)}`);
    }
    out.set(id, { steps, id });
  };
  // A custom resource's field its schema does not declare (under x-kubernetes-preserve-unknown-fields,
  // additionalProperties) is in an applied set itself, whatever it holds (toFieldSet).
  const walk = (v: unknown, s: Schema | undefined, steps: Step[], field: string, declared = true) => {
    const own = nodes || (r.custom && !declared);
    if (isObj(v) && !atomicMap(r, s, field) && Object.keys(v).length > 0) {
      if (own && steps.length > 0) add(steps);
      for (const [k, x] of Object.entries(v)) walk(x, childSchema(s, k), [...steps, { f: k }], k, !!s?.properties?.[k]);
      return;
    }
    if (Array.isArray(v) && v.length > 0) {
      const lt = listType(s, field, r.custom);
      if (own && lt.type !== 'atomic') add(steps);
      if (lt.type === 'map') {
        for (const item of v) {
          const itemSteps: Step[] = [...steps, { k: keyOf(item, lt.keys) }];
          add(itemSteps);
          if (isObj(item))
            for (const [k, x] of Object.entries(item))
              walk(x, childSchema(s?.items, k), [...itemSteps, { f: k }], k, !!s?.items?.properties?.[k]);
        }
        return;
      }
      if (lt.type === 'set') {
        for (const item of v) add([...steps, { v: item }]);
        return;
      }
    }
    add(steps);
  };
  const schema = r.schema;
  for (const [k, v] of Object.entries(obj)) {
    if (k === 'apiVersion' || k === 'kind') continue;
    if (k === 'metadata') {
      if (isObj(v))
        for (const mk of ['generateName', 'labels', 'annotations', 'finalizers', 'ownerReferences'])
          if (v[mk] !== undefined) walk(v[mk], METADATA_PROPERTIES[mk], [{ f: 'metadata' }, { f: mk }], mk);
      continue;
    }
    const isStatus = k === 'status';
    if (r.status && (sub === 'status') !== isStatus) continue;
    walk(v, childSchema(schema, k), [{ f: k }], k, !!schema?.properties?.[k]);
  }
  return out;
}

function stringifyKey(v: unknown): string {
  return typeof v === 'bigint' ? String(v) : JSON.stringify(v);
}

/** The errors structured-merge-diff gives converting an applied configuration: its duplicate list items. */
export function duplicateItems(r: Resource, cfg: Obj, sub: string | undefined): string[] {
  const dups: string[] = [];
  fieldSet(r, cfg, sub, dups);
  return [...new Set(dups)];
}

/** structured-merge-diff's String() of a path: `.spec.ports[name="http"].port`, `.spec.tags[="a"]`. */
export function pathString(steps: Step[]): string {
  return steps
    .map((s) => {
      if ('f' in s) return `.${s.f}`;
      if ('k' in s)
        return `[${Object.keys(s.k)
          .sort()
          .map((k) => `${k}=${JSON.stringify(s.k[k])}`)
          .join(',')}]`;
      return `[=${JSON.stringify(s.v)}]`;
    })
    .join('');
}

/** The value at a path, or undefined. */
function valueAt(obj: unknown, steps: Step[]): unknown {
  let cur = obj;
  for (const s of steps) {
    if ('f' in s) cur = isObj(cur) ? cur[s.f] : undefined;
    else if ('k' in s)
      cur = Array.isArray(cur)
        ? cur.find((x) => Object.entries(s.k).every(([k, v]) => isObj(x) && equalJSON(x[k], v)))
        : undefined;
    else cur = Array.isArray(cur) && cur.some((x) => equalJSON(x, s.v)) ? s.v : undefined;
    if (cur === undefined) return undefined;
  }
  return cur;
}

/** Removes the field, item or set member at a path (in place). */
function removeAt(obj: Obj, steps: Step[]): void {
  let cur: unknown = obj;
  for (let i = 0; i < steps.length - 1; i++) {
    const s = steps[i];
    if ('f' in s) cur = isObj(cur) ? cur[s.f] : undefined;
    else if ('k' in s)
      cur = Array.isArray(cur)
        ? cur.find((x) => Object.entries(s.k).every(([k, v]) => isObj(x) && equalJSON(x[k], v)))
        : undefined;
    else return;
    if (cur === undefined) return;
  }
  const last = steps[steps.length - 1];
  const parentSteps = steps.slice(0, -1);
  if ('f' in last) {
    if (isObj(cur)) delete cur[last.f];
  } else if (Array.isArray(cur)) {
    const i =
      'k' in last
        ? cur.findIndex((x) => Object.entries(last.k).every(([k, v]) => isObj(x) && equalJSON(x[k], v)))
        : cur.findIndex((x) => equalJSON(x, last.v));
    if (i >= 0) cur.splice(i, 1);
  }
  void parentSteps;
}

/** Merges an applied configuration into the live object: maps by key, list-maps by item key, sets by value, the rest replaced. */
function mergeApplied(r: Resource, live: unknown, cfg: unknown, s: Schema | undefined, field: string): unknown {
  if (isObj(cfg)) {
    if (atomicMap(r, s, field)) return clone(cfg);
    const out: Obj = isObj(live) ? live : {};
    for (const [k, v] of Object.entries(cfg)) {
      const cs =
        field === '' && k === 'metadata'
          ? METADATA_SCHEMA
          : field === 'metadata'
            ? METADATA_SCHEMA.properties?.[k]
            : childSchema(s, k);
      out[k] = mergeApplied(r, out[k], v, cs, k);
    }
    return out;
  }
  if (Array.isArray(cfg)) {
    const lt = listType(s, field, r.custom);
    const cur = Array.isArray(live) ? live : [];
    if (lt.type === 'set') return [...cur, ...cfg.filter((x) => !cur.some((y) => equalJSON(x, y)))];
    if (lt.type === 'map') {
      const out = [...cur];
      for (const item of cfg) {
        const k = keyOf(item, lt.keys);
        const i = out.findIndex((x) => equalJSON(keyOf(x, lt.keys), k));
        if (i >= 0) out[i] = mergeApplied(r, out[i], item, s?.items, '');
        else out.push(clone(item));
      }
      return out;
    }
  }
  return clone(cfg);
}

/** One managedFields entry, with its field set. */
interface Entry {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time: string;
  subresource?: string;
  fields: Map<string, FieldPath>;
}

function readEntries(obj: Obj | undefined): Entry[] {
  const meta = obj?.metadata;
  const m = isObj(meta) ? meta : {};
  const list = Array.isArray(m.managedFields) ? (m.managedFields as Obj[]) : [];
  return list.map((e) => ({
    manager: String(e.manager ?? ''),
    operation: e.operation === 'Apply' ? 'Apply' : 'Update',
    apiVersion: String(e.apiVersion ?? ''),
    time: String(e.time ?? ''),
    ...(e.subresource ? { subresource: String(e.subresource) } : {}),
    fields: fromFieldsV1(e.fieldsV1),
  }));
}

/** FieldsV1 (`{"f:spec":{"f:size":{}}}`) to paths, and back. */
function fromFieldsV1(v: unknown, steps: Step[] = [], out = new Map<string, FieldPath>()): Map<string, FieldPath> {
  if (!isObj(v)) return out;
  for (const [k, child] of Object.entries(v)) {
    if (k === '.') {
      out.set(pathId(steps), { steps, id: pathId(steps) });
      continue;
    }
    const step: Step | undefined = k.startsWith('f:')
      ? { f: k.slice(2) }
      : k.startsWith('k:')
        ? { k: JSON.parse(k.slice(2)) as Obj }
        : k.startsWith('v:')
          ? { v: JSON.parse(k.slice(2)) }
          : undefined;
    if (!step) continue;
    const next = [...steps, step];
    if (isObj(child) && Object.keys(child).length === 0) out.set(pathId(next), { steps: next, id: pathId(next) });
    else fromFieldsV1(child, next, out);
  }
  return out;
}

function toFieldsV1(fields: Map<string, FieldPath>): Obj {
  const root: Obj = {};
  const ids = [...fields.values()].sort((a, b) => (a.id < b.id ? -1 : 1));
  for (const { steps } of ids) {
    let cur = root;
    for (const s of steps) {
      const key = 'f' in s ? `f:${s.f}` : 'k' in s ? `k:${JSON.stringify(s.k)}` : `v:${JSON.stringify(s.v)}`;
      cur[key] ??= {};
      cur = cur[key] as Obj;
    }
    if (Object.keys(cur).length > 0 || isItem(steps)) cur['.'] = {};
  }
  return dotFirst(root);
}

/** A field set's map as the server encodes it: a node's own `"."` before its children. */
function dotFirst(o: Obj): Obj {
  const out: Obj = '.' in o ? { '.': {} } : {};
  for (const [k, v] of Object.entries(o)) if (k !== '.') out[k] = dotFirst(v as Obj);
  return out;
}

const isItem = (steps: Step[]) => steps.length > 0 && 'k' in steps[steps.length - 1];

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function writeEntries(obj: Obj, entries: Entry[]): void {
  if (!isObj(obj.metadata)) obj.metadata = {};
  const m = obj.metadata as Obj;
  // The server writes them sorted (sortEncodedManagedFields): Apply before Update, then by time,
  // manager and subresource.
  const kept = entries
    .filter((e) => e.fields.size > 0)
    .sort(
      (a, b) =>
        cmp(a.operation, b.operation) ||
        cmp(a.time ?? '', b.time ?? '') ||
        cmp(a.manager, b.manager) ||
        cmp(a.subresource ?? '', b.subresource ?? ''),
    );
  if (!kept.length) {
    delete m.managedFields;
    return;
  }
  m.managedFields = kept.map((e) => ({
    manager: e.manager,
    operation: e.operation,
    apiVersion: e.apiVersion,
    // An entry without a time (one sent by a client, a no-op apply) stays without.
    time: e.time || undefined,
    fieldsType: 'FieldsV1',
    fieldsV1: toFieldsV1(e.fields),
    ...(e.subresource ? { subresource: e.subresource } : {}),
  }));
}

/** RFC 3339 to the second, as metav1.Time serialises. */
export const now = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');
const sameEntry = (e: Entry, manager: string, operation: string, sub: string | undefined) =>
  e.manager === manager && e.operation === operation && (e.subresource ?? '') === (sub ?? '');

/** How the API server names a manager in a conflict (apimachinery's printManager). */
function printManager(e: Entry): string {
  let s = JSON.stringify(e.manager);
  if (e.subresource) s += ` with subresource ${JSON.stringify(e.subresource)}`;
  // A conflict's manager is encoded without its time, so the server never prints one.
  if (e.operation === 'Update') s += ` using ${e.apiVersion}`;
  return s;
}

/**
 * Applies `cfg` as `manager` onto `live` (undefined: the object does not exist): returns the
 * object to store, its managedFields set. Throws the API server's 409 on conflicts unless `force`.
 */
export function applyConfiguration(
  r: Resource,
  live: Obj | undefined,
  cfg: Obj,
  manager: string,
  force: boolean,
  sub: string | undefined,
): Obj {
  const entries = readEntries(live);
  const cfgSet = fieldSet(r, cfg, sub);
  const conflicts: { entry: Entry; path: FieldPath }[] = [];
  for (const e of entries) {
    if (sameEntry(e, manager, 'Apply', sub)) continue;
    for (const p of cfgSet.values()) {
      if (!e.fields.has(p.id) || isItem(p.steps)) continue;
      if (!equalJSON(valueAt(live, p.steps), valueAt(cfg, p.steps))) conflicts.push({ entry: e, path: p });
    }
  }
  if (conflicts.length && !force) throw conflictError(conflicts);
  for (const c of conflicts) c.entry.fields.delete(c.path.id);
  const mine = entries.find((e) => sameEntry(e, manager, 'Apply', sub));
  const others = new Set<string>();
  for (const e of entries) if (e !== mine) for (const id of e.fields.keys()) others.add(id);
  const merged = clone(live ?? {}) as Obj;
  // Whole items before their fields (a field removed first would take the item's key with it).
  const dropped = [...(mine?.fields.values() ?? [])]
    .filter((p) => !cfgSet.has(p.id) && !others.has(p.id))
    .sort((a, b) => a.steps.length - b.steps.length);
  for (const p of dropped) removeAt(merged, p.steps);
  const out = mergeApplied(r, merged, withoutTypeAndName(cfg), r.schema, '') as Obj;
  const entry: Entry = mine ?? {
    manager,
    operation: 'Apply',
    apiVersion: apiVersionOf(r),
    time: now(),
    ...(sub ? { subresource: sub } : {}),
    fields: new Map(),
  };
  entry.fields = cfgSet;
  entry.time = now();
  entry.apiVersion = apiVersionOf(r);
  writeEntries(out, mine ? entries : [...entries, entry]);
  return out;
}

function withoutTypeAndName(cfg: Obj): Obj {
  const c = clone(cfg);
  delete c.apiVersion;
  delete c.kind;
  if (isObj(c.metadata)) {
    for (const k of ['name', 'namespace', 'managedFields', 'resourceVersion', 'uid', 'generation', 'creationTimestamp'])
      delete c.metadata[k];
  }
  return c;
}

function conflictError(conflicts: { entry: Entry; path: FieldPath }[]): ApiStatus {
  const causes = conflicts.map((c) => ({
    reason: 'FieldManagerConflict',
    message: `conflict with ${printManager(c.entry)}`,
    field: pathString(c.path.steps),
  }));
  let message: string;
  if (conflicts.length === 1)
    message = `Apply failed with 1 conflict: conflict with ${printManager(conflicts[0].entry)}: ${pathString(conflicts[0].path.steps)}`;
  else {
    const by = new Map<string, string[]>();
    for (const c of conflicts) {
      const k = printManager(c.entry);
      by.set(k, [...(by.get(k) ?? []), pathString(c.path.steps)]);
    }
    const lines: string[] = [];
    for (const [k, paths] of [...by].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      lines.push(`conflicts with ${k}:`, ...paths.map((p) => `- ${p}`));
    message = `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
  }
  return new ApiStatus(409, 'Conflict', message, { causes });
}

/** A pod template's fields its Go struct always prints (structs that are not pointers; `containers` as null). */
const TEMPLATE = ['template', 'template.metadata', 'template.spec', 'template.spec.containers'];

/**
 * The fields a built-in Kind's empty Go object has (structs that are not pointers, slices and maps
 * without omitempty): the typed object an Update is compared with holds them even when the stored
 * JSON does not, so creating one under them owns its children, not the field itself. An empty
 * struct (`{}`) unless marked `=null` (a metav1.Time, which prints as null).
 */
const ZERO_FIELDS: Record<string, string[]> = {
  'apps/Deployment': ['spec', ...TEMPLATE.map((p) => `spec.${p}`), 'spec.strategy', 'status'],
  'apps/StatefulSet': ['spec', ...TEMPLATE.map((p) => `spec.${p}`), 'spec.updateStrategy', 'status'],
  'apps/DaemonSet': ['spec', ...TEMPLATE.map((p) => `spec.${p}`), 'spec.updateStrategy', 'status'],
  'apps/ReplicaSet': ['spec', ...TEMPLATE.map((p) => `spec.${p}`), 'status'],
  'batch/Job': ['spec', ...TEMPLATE.map((p) => `spec.${p}`), 'status'],
  'batch/CronJob': [
    'spec',
    'spec.jobTemplate',
    'spec.jobTemplate.metadata',
    'spec.jobTemplate.spec',
    ...TEMPLATE.map((p) => `spec.jobTemplate.spec.${p}`),
    'status',
  ],
  '/Pod': ['spec', 'spec.containers', 'status'],
  '/Service': ['spec', 'status', 'status.loadBalancer'],
  '/PersistentVolumeClaim': ['spec', 'spec.resources', 'status'],
  '/Namespace': ['spec', 'status'],
  '/Event': ['involvedObject', 'source', 'firstTimestamp=null', 'lastTimestamp=null', 'eventTime=null'],
  'events.k8s.io/Event': [
    'regarding',
    'deprecatedSource',
    'eventTime=null',
    'deprecatedFirstTimestamp=null',
    'deprecatedLastTimestamp=null',
  ],
  'rbac.authorization.k8s.io/RoleBinding': ['roleRef'],
  'rbac.authorization.k8s.io/ClusterRoleBinding': ['roleRef'],
  'networking.k8s.io/Ingress': ['spec', 'status', 'status.loadBalancer'],
};

/** The paths of {@link ZERO_FIELDS} for the Kind, with their empty values (none for a custom resource: its empty object is `{}`). */
function zeroFields(r: Resource, sub: string | undefined): Map<string, unknown> {
  const out = new Map<string, unknown>();
  if (r.custom) return out;
  for (const z of ZERO_FIELDS[`${r.group}/${r.kind}`] ?? []) {
    const [p, empty] = z.split('=');
    const steps = p.split('.').map((f) => ({ f }));
    if (r.status && (sub === 'status') !== (steps[0].f === 'status')) continue;
    out.set(pathId(steps), empty === 'null' ? null : {});
  }
  return out;
}

/**
 * After a create, update or patch by `manager`, as structured-merge-diff's Updater does: the fields
 * that were added or changed move to its Update entry (and leave every other entry), the fields and
 * maps it created included (the `"."` of a map or list it made); fields that are gone leave every
 * entry.
 */
export function trackUpdate(
  r: Resource,
  old: Obj | undefined,
  next: Obj,
  manager: string,
  sub: string | undefined,
): void {
  const entries = readEntries(old);
  if (sub === 'scale' && r.scale) {
    trackScale(r, old, next, manager, entries);
    return;
  }
  const zero = zeroFields(r, sub);
  const before = old ? fieldSet(r, old, sub, undefined, true) : new Map<string, FieldPath>();
  const after = fieldSet(r, next, sub, undefined, true);
  const leavesBefore = old ? fieldSet(r, old, sub) : new Map<string, FieldPath>();
  const leavesAfter = fieldSet(r, next, sub);
  // A field of the empty Go object holds its empty value there.
  const oldValue = (p: FieldPath) => valueAt(old, p.steps) ?? zero.get(p.id);
  const changed = [...after.values()].filter((p) =>
    !before.has(p.id) && !zero.has(p.id)
      ? true
      : leavesAfter.has(p.id) &&
        !isItem(p.steps) &&
        (leavesBefore.has(p.id) || zero.has(p.id)) &&
        !equalJSON(oldValue(p), valueAt(next, p.steps)),
  );
  const gone = [...before.keys()].filter((id) => !after.has(id) && !zero.has(id));
  for (const e of entries) {
    if (sub === undefined ? e.subresource !== undefined && r.status : (e.subresource ?? '') !== sub) continue;
    for (const id of gone) e.fields.delete(id);
    for (const p of changed) e.fields.delete(p.id);
  }
  if (changed.length) {
    let mine = entries.find((e) => sameEntry(e, manager, 'Update', sub));
    if (!mine) {
      mine = {
        manager,
        operation: 'Update',
        apiVersion: apiVersionOf(r),
        time: now(),
        ...(sub ? { subresource: sub } : {}),
        fields: new Map(),
      };
      entries.push(mine);
    }
    for (const p of changed) mine.fields.set(p.id, p);
    mine.time = now();
  }
  writeEntries(next, entries);
}

/**
 * After a write of the scale subresource, as the server's ScaleHandler maps it: the Scale's only
 * field is the replicas path, so when the write changed it, every entry (of any subresource) that
 * owned it loses it and the writer's scale entry gets it; else nothing changes. Times are the
 * parent's: a new scale entry has none.
 */
function trackScale(r: Resource, old: Obj | undefined, next: Obj, manager: string, entries: Entry[]): void {
  const steps: Step[] = scaleOf(r)
    .specReplicasPath.replace(/^\./, '')
    .split('.')
    .map((f) => ({ f }));
  const id = pathId(steps);
  // Compared as the Scale shows them: its replicas are omitempty, so 0 is no field (removed from
  // every entry, owned by none).
  const replicas = (o: Obj | undefined) => {
    const v = valueAt(o, steps);
    return v === 0 || v === null ? undefined : v;
  };
  if (!equalJSON(replicas(old), replicas(next))) {
    for (const e of entries) e.fields.delete(id);
  }
  if (replicas(next) !== undefined && !equalJSON(replicas(old), replicas(next))) {
    let mine = entries.find((e) => sameEntry(e, manager, 'Update', 'scale'));
    if (!mine) {
      // The handler maps entries back with the parent's times: a new one has none.
      mine = {
        manager,
        operation: 'Update',
        apiVersion: apiVersionOf(r),
        time: '',
        subresource: 'scale',
        fields: new Map(),
      };
      entries.push(mine);
    }
    mine.fields.set(id, { steps, id });
  }
  writeEntries(next, entries);
}

/**
 * Server-side apply of a custom resource's Scale, which kube-apiserver cannot do (it fails
 * converting the Scale back to the custom resource's version: 500), in the order its field
 * manager meets the failure: with no entry owning the replicas path (the Scale's own managed
 * fields are empty) it converts the live object first and fails there; else a conflict with
 * another owner of the replicas (a different value, not forced) is the 409 a built-in's gets;
 * else it fails converting the new object. Always throws.
 */
export function refuseCustomScaleApply(
  r: Resource,
  live: Obj,
  manager: string,
  force: boolean,
  applied: unknown,
  where: string,
): never {
  const steps: Step[] = scaleOf(r)
    .specReplicasPath.replace(/^\./, '')
    .split('.')
    .map((f) => ({ f }));
  const id = pathId(steps);
  const entries = readEntries(live);
  const owners = entries.filter((e) => e.fields.has(id));
  const cannot = 'to proper version: request to convert CR to an invalid group/version: autoscaling/v1';
  if (!owners.length)
    throw new ApiStatus(
      500,
      '',
      `failed to create manager for existing fields: failed to convert live object (/; autoscaling/v1, Kind=Scale) ${cannot}`,
    );
  const mine = entries.find((e) => sameEntry(e, manager, 'Apply', 'scale'));
  const others = owners.filter((e) => e !== mine);
  if (
    applied !== undefined &&
    applied !== null &&
    String(valueAt(live, steps)) !== String(applied) &&
    others.length &&
    !force
  )
    throw conflictError(others.map((e) => ({ entry: { ...e, apiVersion: 'autoscaling/v1' }, path: { steps, id } })));
  throw new ApiStatus(500, '', `failed to convert new object (${where}; autoscaling/v1, Kind=Scale) ${cannot}`);
}

/**
 * Server-side apply of a built-in's Scale (the ScaleHandler over the Scale's field manager): the
 * writer's Apply entry of the scale subresource owns the replicas path when the configuration sets
 * it (`applied`); when that differs from the live value, every other entry loses it (409 unless forced, the owners named with
 * the Scale's apiVersion, as the handler maps them). `next` gets the entries.
 */
export function applyScale(r: Resource, live: Obj, next: Obj, manager: string, force: boolean, applied: unknown): void {
  const sets = applied !== undefined && applied !== null;
  const steps: Step[] = scaleOf(r)
    .specReplicasPath.replace(/^\./, '')
    .split('.')
    .map((f) => ({ f }));
  const id = pathId(steps);
  const entries = readEntries(live);
  const mine = entries.find((e) => sameEntry(e, manager, 'Apply', 'scale'));
  // Compared in the Scale, before the value is converted into the object's int32 field.
  if (sets && String(valueAt(live, steps)) !== String(applied)) {
    const owners = entries.filter((e) => e !== mine && e.fields.has(id));
    if (owners.length && !force)
      throw conflictError(owners.map((e) => ({ entry: { ...e, apiVersion: 'autoscaling/v1' }, path: { steps, id } })));
    for (const e of owners) e.fields.delete(id);
  }
  if (sets) {
    const entry = mine ?? {
      manager,
      operation: 'Apply' as const,
      apiVersion: apiVersionOf(r),
      // The handler maps entries back with the parent's times: a new one has none.
      time: '',
      subresource: 'scale',
      fields: new Map(),
    };
    entry.fields = new Map([[id, { steps, id }]]);
    if (!mine) entries.push(entry);
  } else mine?.fields.clear();
  writeEntries(next, entries);
}
