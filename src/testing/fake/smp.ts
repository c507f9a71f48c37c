/**
 * Strategic merge patch for built-in Kinds, for the lists kubeforge's users patch: lists with a
 * merge key in Kubernetes' types (containers by name, ports by containerPort or port, ...) merge
 * item by item, `finalizers` merge as a set, other lists are replaced; `$patch: delete|replace`,
 * `$deleteFromPrimitiveList/<field>`, `$setElementOrder/<field>` (the merged list's order) and
 * `$retainKeys` (the keys a map keeps) are understood. Kinds and
 * fields outside this table behave as a JSON merge patch (see docs/testing.md, "Testing without an API server").
 */
import { type Obj, clone, isObj } from '../../apiserver/json.js';

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
  // The lists a $setElementOrder reorders, as the object had them (the merge changes `out` in place).
  const serverOrders = new Map<string, unknown[]>();
  for (const k of Object.keys(patch))
    if (k.startsWith('$setElementOrder/')) {
      const field = k.slice('$setElementOrder/'.length);
      serverOrders.set(field, Array.isArray(out[field]) ? [...(out[field] as unknown[])] : []);
    }
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
  // $retainKeys: the map keeps only the keys listed (the server clears the others first).
  if (Array.isArray(patch.$retainKeys)) {
    const keep = new Set(patch.$retainKeys as unknown[]);
    for (const k of Object.keys(out)) if (!keep.has(k)) delete out[k];
  }
  for (const [field, serverOrder] of serverOrders) {
    const order = patch[`$setElementOrder/${field}`];
    if (Array.isArray(out[field]) && Array.isArray(order))
      out[field] = orderList(field, out[field] as unknown[], order, serverOrder);
  }
  return out;
}

/**
 * `$setElementOrder/<field>` as apimachinery's strategicpatch orders a merged list: the items the
 * order names come in its order; the others (the object's own, not named) keep their place
 * relative to those, by the object's order before the patch (its mergeSortedSlice).
 */
function orderList(field: string, merged: unknown[], order: unknown[], serverOrder: unknown[]): unknown[] {
  const rule = MERGE_KEYS[field];
  const keyOf = (x: unknown): unknown =>
    isObj(x) && rule ? x[typeof rule === 'string' ? rule : rule(x)] : isObj(x) ? JSON.stringify(x) : x;
  const indexIn = (list: unknown[], x: unknown) => list.findIndex((y) => keyOf(y) === keyOf(x));
  const named = merged.filter((x) => indexIn(order, x) >= 0).sort((a, b) => indexIn(order, a) - indexIn(order, b));
  const others = merged
    .filter((x) => indexIn(order, x) < 0)
    .sort((a, b) => (indexIn(serverOrder, a) >>> 0) - (indexIn(serverOrder, b) >>> 0));
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < named.length || j < others.length) {
    if (i >= named.length) out.push(others[j++]);
    else if (j >= others.length) out.push(named[i++]);
    else {
      const li = indexIn(serverOrder, named[i]);
      const ri = indexIn(serverOrder, others[j]);
      if (li >= 0 && ri >= 0 && li < ri) out.push(named[i++]);
      else out.push(others[j++]);
    }
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
