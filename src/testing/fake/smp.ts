/**
 * Strategic merge patch for built-in Kinds, for the lists kubeforge's users patch: lists with a
 * merge key in Kubernetes' types (containers by name, ports by containerPort or port, ...) merge
 * item by item, `finalizers` merge as a set, other lists are replaced; `$patch: delete|replace`,
 * `$deleteFromPrimitiveList/<field>` and `$setElementOrder/<field>` are understood. Kinds and
 * fields outside this table behave as a JSON merge patch (see docs/testing.md, "Testing without an API server").
 */
import { type Obj, clone, isObj } from './json.js';

/** Merge keys of list fields (k8s.io/api's patchMergeKey tags), by field name. */
const MERGE_KEYS: Record<string, string | ((item: Obj) => string)> = {
  containers: 'name',
  initContainers: 'name',
  ephemeralContainers: 'name',
  env: 'name',
  volumes: 'name',
  volumeMounts: 'mountPath',
  volumeDevices: 'devicePath',
  imagePullSecrets: 'name',
  ownerReferences: 'uid',
  conditions: 'type',
  hostAliases: 'ip',
  ports: (item) => ('containerPort' in item ? 'containerPort' : 'port'),
  resourceClaims: 'name',
  readinessGates: 'conditionType',
};
/** Lists of scalars merged as sets. */
const SET_LISTS = new Set(['finalizers']);

export function strategicMerge(target: unknown, patch: unknown): unknown {
  if (!isObj(patch)) return clone(patch);
  if (patch.$patch === 'replace') {
    const { $patch: _p, ...rest } = patch;
    return clone(rest);
  }
  if (patch.$patch === 'delete') return undefined;
  const out: Obj = isObj(target) ? target : {};
  for (const [k, v] of Object.entries(patch)) {
    if (k === '$patch' || k.startsWith('$setElementOrder/') || k === '$retainKeys') continue;
    if (k.startsWith('$deleteFromPrimitiveList/')) {
      const f = k.slice('$deleteFromPrimitiveList/'.length);
      if (Array.isArray(out[f]) && Array.isArray(v)) out[f] = (out[f] as unknown[]).filter((x) => !v.includes(x));
      continue;
    }
    if (v === null) {
      delete out[k];
      continue;
    }
    if (Array.isArray(v)) {
      out[k] = mergeList(k, out[k], v);
      continue;
    }
    const merged = strategicMerge(out[k], v);
    if (merged === undefined) delete out[k];
    else out[k] = merged;
  }
  return out;
}

/**
 * As the API server merges: items the object does not have yet come first, in the patch's order;
 * then the object's items in their own order, merged with the patch's item of the same key.
 */
function mergeList(field: string, current: unknown, patch: unknown[]): unknown[] {
  const cur = Array.isArray(current) ? current : [];
  if (SET_LISTS.has(field)) return [...patch.filter((x) => !cur.includes(x)), ...cur];
  const rule = MERGE_KEYS[field];
  if (!rule || !patch.every(isObj)) return clone(patch);
  if (patch.some((p) => (p as Obj).$patch === 'replace'))
    return clone(patch.filter((p) => (p as Obj).$patch !== 'replace'));
  const keyOf = (item: Obj) => (typeof rule === 'string' ? rule : rule(item));
  // Items of the patch with the same key are merged one after the other (the later fields win),
  // as the server merges each into the list the earlier ones made.
  const byKey = new Map<unknown, Obj>();
  for (const item of patch as Obj[]) {
    const k = item[keyOf(item)];
    const prev = byKey.get(k);
    byKey.set(k, prev === undefined || prev.$patch === 'delete' ? item : (strategicMerge(clone(prev), item) as Obj));
  }
  const added = [...byKey.values()]
    .filter((item) => item.$patch !== 'delete' && !cur.some((x) => isObj(x) && x[keyOf(item)] === item[keyOf(item)]))
    .map((item) => strategicMerge({}, item));
  const kept: unknown[] = [];
  for (const x of cur) {
    const p = isObj(x) ? byKey.get(x[keyOf(x)]) : undefined;
    if (p === undefined) kept.push(x);
    else if (p.$patch !== 'delete') kept.push(strategicMerge(clone(x), p));
  }
  return [...added, ...kept];
}
