/**
 * Strategic merge patch for built-in Kinds, for the lists kubeforge's users patch: lists with a
 * merge key in Kubernetes' types (containers by name, ports by containerPort or port, ...) merge
 * item by item, `finalizers` merge as a set, other lists are replaced; `$patch: delete|replace`,
 * `$deleteFromPrimitiveList/<field>` and `$setElementOrder/<field>` are understood. Kinds and
 * fields outside this table behave as a JSON merge patch (see README, "Testing without an API server").
 */
type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

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

/** Patch items come first, in the patch's order, then the items of the object the patch does not name. */
function mergeList(field: string, current: unknown, patch: unknown[]): unknown[] {
  const cur = Array.isArray(current) ? current : [];
  if (SET_LISTS.has(field)) return [...patch, ...cur.filter((x) => !patch.includes(x))];
  const rule = MERGE_KEYS[field];
  if (!rule || !patch.every(isObj)) return clone(patch);
  if (patch.some((p) => (p as Obj).$patch === 'replace')) return clone(patch.filter((p) => (p as Obj).$patch !== 'replace'));
  const keyOf = (item: Obj) => (typeof rule === 'string' ? rule : rule(item));
  const named = new Set<unknown>();
  const out: unknown[] = [];
  for (const item of patch as Obj[]) {
    const key = keyOf(item);
    named.add(item[key]);
    const existing = cur.find((x) => isObj(x) && x[key] === item[key]);
    if (item.$patch === 'delete') continue;
    out.push(strategicMerge(existing === undefined ? {} : clone(existing), item));
  }
  for (const x of cur) if (!(isObj(x) && named.has(x[keyOf(x)]))) out.push(x);
  return out;
}
