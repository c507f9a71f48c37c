/** Helpers shared by the k8s schema tests: structural checks and a schema diff. */
import type { JSONSchemaProps } from '../../../src/schema/jsonschema.js';

export interface Difference {
  /** JSON-pointer-like path of the node, e.g. `/properties/ports/items`. */
  path: string;
  /** The schema keyword that differs. */
  key: string;
  kind: 'missing' | 'extra' | 'different';
  ours?: unknown;
  theirs?: unknown;
}

const SUBSCHEMA_MAPS = new Set(['properties']);
const SUBSCHEMAS = new Set(['items', 'additionalProperties', 'not']);
const SUBSCHEMA_LISTS = new Set(['anyOf', 'allOf', 'oneOf']);

/** Every difference between two schemas, keyword by keyword, recursing into subschemas. */
export function diffSchemas(ours: JSONSchemaProps, theirs: JSONSchemaProps, path = ''): Difference[] {
  const out: Difference[] = [];
  const keys = new Set([...Object.keys(ours), ...Object.keys(theirs)]);
  for (const key of [...keys].sort()) {
    const a = (ours as Record<string, unknown>)[key];
    const b = (theirs as Record<string, unknown>)[key];
    if (a === undefined) {
      out.push({ path, key, kind: 'missing', theirs: b });
      continue;
    }
    if (b === undefined) {
      out.push({ path, key, kind: 'extra', ours: a });
      continue;
    }
    if (SUBSCHEMA_MAPS.has(key)) {
      const am = a as Record<string, JSONSchemaProps>;
      const bm = b as Record<string, JSONSchemaProps>;
      for (const name of [...new Set([...Object.keys(am), ...Object.keys(bm)])].sort()) {
        if (!am[name]) out.push({ path: `${path}/${key}`, key: name, kind: 'missing', theirs: bm[name] });
        else if (!bm[name]) out.push({ path: `${path}/${key}`, key: name, kind: 'extra', ours: am[name] });
        else out.push(...diffSchemas(am[name], bm[name], `${path}/${key}/${name}`));
      }
    } else if (SUBSCHEMAS.has(key) && typeof a === 'object' && typeof b === 'object') {
      out.push(...diffSchemas(a as JSONSchemaProps, b as JSONSchemaProps, `${path}/${key}`));
    } else if (SUBSCHEMA_LISTS.has(key) && Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
      for (const [i, s] of a.entries())
        out.push(...diffSchemas(s as JSONSchemaProps, b[i] as JSONSchemaProps, `${path}/${key}/${i}`));
    } else if (JSON.stringify(a) !== JSON.stringify(b)) {
      out.push({ path, key, kind: 'different', ours: a, theirs: b });
    }
  }
  return out;
}

/** Visits every subschema of a schema (itself included) with its path. */
export function walkSchema(
  schema: JSONSchemaProps,
  visit: (node: JSONSchemaProps, path: string) => void,
  path = '',
): void {
  visit(schema, path);
  for (const [name, sub] of Object.entries(schema.properties ?? {}))
    walkSchema(sub, visit, `${path}/properties/${name}`);
  if (schema.items) walkSchema(schema.items, visit, `${path}/items`);
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object')
    walkSchema(schema.additionalProperties, visit, `${path}/additionalProperties`);
  for (const key of ['anyOf', 'allOf', 'oneOf'] as const)
    for (const [i, s] of (schema[key] ?? []).entries()) walkSchema(s, visit, `${path}/${key}/${i}`);
  if (schema.not) walkSchema(schema.not, visit, `${path}/not`);
}

/** The keys a node of apiextensions.k8s.io/v1 JSONSchemaProps may have (the shared type's keys). */
export const SCHEMA_KEYS = new Set([
  'description',
  'type',
  'format',
  'title',
  'default',
  'example',
  'enum',
  'nullable',
  'maximum',
  'minimum',
  'exclusiveMaximum',
  'exclusiveMinimum',
  'multipleOf',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'maxProperties',
  'minProperties',
  'required',
  'items',
  'properties',
  'additionalProperties',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'externalDocs',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-int-or-string',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-list-type',
  'x-kubernetes-map-type',
  'x-kubernetes-validations',
]);

/**
 * Problems that make a schema non-structural (in the sense of apiextensions.k8s.io/v1) or that
 * kubeforge must never emit: `$ref`s and unknown keys, nodes without a type, anyOf members with
 * more than a type, arrays without items, required names that are not properties; and topology
 * extensions the API server rejects: a list type on a non-array, a map type on a non-object,
 * set items that are neither scalars nor atomic, list-map keys that are not scalar item
 * properties, either required or defaulted.
 */
export function structuralProblems(schema: JSONSchemaProps): string[] {
  const problems: string[] = [];
  walkSchema(schema, (node, path) => {
    for (const key of Object.keys(node)) if (!SCHEMA_KEYS.has(key)) problems.push(`${path}: unexpected key ${key}`);
    const inAnyOf = /\/(anyOf|allOf|oneOf)\/\d+$/.test(path);
    if (inAnyOf) {
      const extra = Object.keys(node).filter((k) => k !== 'type' && k !== 'format');
      if (extra.length) problems.push(`${path}: anyOf member has ${extra.join(', ')}`);
      return;
    }
    if (!node.type && !node['x-kubernetes-int-or-string'] && !node['x-kubernetes-preserve-unknown-fields'])
      problems.push(`${path}: no type`);
    if (node.type === 'array' && !node.items) problems.push(`${path}: array without items`);
    if (node.anyOf && !node['x-kubernetes-int-or-string']) problems.push(`${path}: anyOf outside int-or-string`);
    for (const r of node.required ?? [])
      if (!node.properties?.[r]) problems.push(`${path}: required ${r} is not a property`);
    if (node.properties && node.additionalProperties)
      problems.push(`${path}: both properties and additionalProperties`);
    const listType = node['x-kubernetes-list-type'];
    if (listType !== undefined && node.type !== 'array')
      problems.push(`${path}: x-kubernetes-list-type on a ${node.type ?? 'typeless'} node`);
    if (listType !== undefined && !['atomic', 'set', 'map'].includes(listType))
      problems.push(`${path}: x-kubernetes-list-type ${listType}`);
    const mapType = node['x-kubernetes-map-type'];
    if (mapType !== undefined && (node.type !== 'object' || !['atomic', 'granular'].includes(mapType)))
      problems.push(`${path}: x-kubernetes-map-type ${mapType} on a ${node.type ?? 'typeless'} node`);
    const keys = node['x-kubernetes-list-map-keys'];
    if (keys !== undefined && listType !== 'map')
      problems.push(`${path}: x-kubernetes-list-map-keys without x-kubernetes-list-type map`);
    if (listType === 'set' && node.items) {
      const it = node.items;
      const ok =
        (it.type !== 'object' && it.type !== 'array' && it.type !== undefined) ||
        (it.type === 'object' && it['x-kubernetes-map-type'] === 'atomic') ||
        (it.type === 'array' && it['x-kubernetes-list-type'] === 'atomic');
      if (!ok) problems.push(`${path}: set items are neither scalars nor atomic`);
    }
    if (listType === 'map') {
      if (!keys?.length) problems.push(`${path}: list-map without keys`);
      const item = node.items;
      for (const key of keys ?? []) {
        const prop = item?.properties?.[key];
        if (!prop) problems.push(`${path}: list-map key ${key} is not an item property`);
        else if (prop.type === 'object' || prop.type === 'array' || !prop.type)
          problems.push(`${path}: list-map key ${key} is not a scalar`);
        else if (!item.required?.includes(key) && prop.default === undefined)
          problems.push(`${path}: list-map key ${key} is neither required nor defaulted`);
      }
    }
  });
  return problems;
}

/** Finds repeated object identities inside one value (a YAML writer would turn them into aliases). */
export function sharedObjects(value: unknown): number {
  const seen = new Set<object>();
  let shared = 0;
  const visit = (v: unknown): void => {
    if (v === null || typeof v !== 'object') return;
    if (seen.has(v)) {
      shared++;
      return;
    }
    seen.add(v);
    for (const child of Array.isArray(v) ? v : Object.values(v)) visit(child);
  };
  visit(value);
  return shared;
}
