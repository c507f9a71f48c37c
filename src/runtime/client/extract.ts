/**
 * What one field manager owns of an object, as an apply configuration (client-go's
 * `Extract<Kind>` / controller-runtime's `client.ExtractApplyConfiguration`): read from the
 * object's `metadata.managedFields`, the entry of that manager's Apply operation. A controller
 * that applies only what it means to own starts from this, changes it, and applies it again,
 * without taking fields others own (an `update` of the whole object would).
 *
 * The FieldsV1 set is walked over the object: `f:<name>` a field, `k:{...}` the item of a list
 * that is a map with those key values, `v:<json>` an item of a set, `.` the node itself.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { ApplyConfiguration } from '../contracts.js';

import { isJSONObject as isObj } from './types.js';

type Obj = Record<string, unknown>;

interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  subresource?: string;
  fieldsType?: string;
  fieldsV1?: Obj;
}

/**
 * The fields `fieldManager` applied to `obj` (of its main resource, or of `subresource` such as
 * 'status'), with `apiVersion`, `kind`, `metadata.name` and `metadata.namespace`; undefined when
 * the manager never applied to it. Values are the object's current ones (Dates as JSON strings).
 */
export function extractApplyConfiguration<T extends KubernetesObject>(
  obj: T,
  fieldManager: string,
  subresource = '',
): ApplyConfiguration<T> | undefined {
  const plain = JSON.parse(JSON.stringify(obj)) as Obj;
  const meta = (plain.metadata ?? {}) as Obj;
  const entries = (Array.isArray(meta.managedFields) ? meta.managedFields : []) as ManagedFieldsEntry[];
  const entry = entries.find(
    (e) => e.manager === fieldManager && e.operation === 'Apply' && (e.subresource ?? '') === subresource,
  );
  if (entry?.fieldsType !== 'FieldsV1' || !isObj(entry.fieldsV1)) return undefined;
  const out = (pick(plain, entry.fieldsV1) ?? {}) as Obj;
  const outMeta = isObj(out.metadata) ? out.metadata : {};
  out.apiVersion = plain.apiVersion;
  out.kind = plain.kind;
  out.metadata = { ...outMeta, name: meta.name, ...(meta.namespace ? { namespace: meta.namespace } : {}) };
  return out as unknown as ApplyConfiguration<T>;
}

/** The parts of `value` the field set names. */
function pick(value: unknown, set: Obj): unknown {
  if (Array.isArray(value)) {
    const items: unknown[] = [];
    for (const [k, sub] of Object.entries(set)) {
      if (k.startsWith('k:')) {
        const key = JSON.parse(k.slice(2)) as Obj;
        const item = value.find(
          (it) => isObj(it) && Object.entries(key).every(([kk, kv]) => JSON.stringify(it[kk]) === JSON.stringify(kv)),
        );
        if (item === undefined) continue;
        // The key fields identify the item: always part of it.
        items.push({ ...key, ...((isObj(sub) ? pick(item, sub) : {}) as Obj) });
      } else if (k.startsWith('v:')) {
        items.push(JSON.parse(k.slice(2)));
      } else if (k.startsWith('i:')) {
        const item = value[Number(k.slice(2))];
        if (item !== undefined)
          items.push(isObj(sub) && Object.keys(sub).some((s) => s !== '.') ? pick(item, sub) : item);
      }
    }
    return items;
  }
  if (!isObj(value)) return value;
  const out: Obj = {};
  for (const [k, sub] of Object.entries(set)) {
    if (!k.startsWith('f:')) continue;
    const name = k.slice(2);
    if (!(name in value)) continue;
    const v = value[name];
    // A leaf (or an atomic value): owned whole. Otherwise only the parts named below it.
    const children = isObj(sub) ? Object.keys(sub).filter((s) => s !== '.') : [];
    out[name] = children.length === 0 ? v : pick(v, sub as Obj);
  }
  return out;
}
