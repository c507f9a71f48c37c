/**
 * controller-gen's allOf flattening, for the type-level keywords of embedded types. In Go an
 * embedded struct's schema joins its parent's as an allOf member, embedded types first and the
 * parent's own schema last, and the flattener (controller-tools pkg/crd/flatten.go) folds them
 * together. kubeforge merges the properties of intersection members and base classes while
 * parsing; what is left is the keywords their type-level markers set, folded here by the same
 * rules:
 *   - title, description, example, externalDocs are not merged (the parent's own stay);
 *   - x-kubernetes-validations: the later member's rules go before the earlier ones (so the
 *     parent's own come first, then the embedded types' in reverse order);
 *   - x-kubernetes-preserve-unknown-fields, x-kubernetes-map-type, and (since controller-tools
 *     v0.23) x-kubernetes-list-type and x-kubernetes-list-map-keys: the later member wins (a
 *     field's listType over its named list type's);
 *   - enum: kept from the first member that has one;
 *   - any other keyword set by two members: both values move into `allOf` (one entry per side),
 *     even when they are equal where Go holds them as pointers (numbers, lists, defaults); equal
 *     strings and booleans, and (since controller-tools v0.22) equal minProperties and
 *     maxProperties, are one value.
 */
import type { JSONSchemaProps } from './jsonschema.js';

/** Keywords the properties and types of the merge already account for, or that are not merged. */
export const NOT_MERGED = new Set([
  'properties',
  'required',
  'type',
  'title',
  'description',
  'example',
  'externalDocs',
  'items',
  'additionalProperties',
]);
/** Keywords Go holds as plain strings or booleans: equal values are one value. */
const BY_VALUE = new Set([
  'format',
  'pattern',
  'exclusiveMaximum',
  'exclusiveMinimum',
  'uniqueItems',
  'nullable',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-int-or-string',
  'minProperties',
  'maxProperties',
]);

/** Keywords where the later member's value replaces the earlier one's. */
const LATER_WINS = new Set([
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-map-type',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
]);

type Schema = Record<string, unknown>;

/** The keywords of a schema the flattening folds (a copy; the schema is unchanged). */
export function foldableKeywords(s: JSONSchemaProps): JSONSchemaProps {
  const out: Schema = {};
  for (const [k, v] of Object.entries(s)) if (!NOT_MERGED.has(k) && v !== undefined) out[k] = v;
  return out as JSONSchemaProps;
}

/** Folds `src` into `dst` as controller-gen's flattenAllOfInto does (see the module comment). */
export function flattenInto(dst: JSONSchemaProps, src: JSONSchemaProps): void {
  const d = dst as Schema;
  const srcAll = (src as Schema).allOf as JSONSchemaProps[] | undefined;
  for (const member of srcAll ?? []) flattenInto(dst, member);
  const dstRemainder: Schema = {};
  const srcRemainder: Schema = {};
  let hoisted = false;
  for (const [k, v] of Object.entries(src as Schema)) {
    if (k === 'allOf' || NOT_MERGED.has(k) || v === undefined) continue;
    if (k === 'enum') {
      if (!d.enum) d.enum = v;
      continue;
    }
    if (d[k] === undefined) {
      d[k] = v;
      continue;
    }
    if (BY_VALUE.has(k) && d[k] === v) continue;
    if (k === 'x-kubernetes-validations') d[k] = [...(v as unknown[]), ...(d[k] as unknown[])];
    else if (LATER_WINS.has(k)) d[k] = v;
    else {
      hoisted = true;
      srcRemainder[k] = v;
      dstRemainder[k] = d[k];
      delete d[k];
    }
  }
  if (hoisted) d.allOf = [...((d.allOf as Schema[] | undefined) ?? []), dstRemainder, srcRemainder];
}

/**
 * Sets on `schema` the keywords of its embedded types (`parts`, each formatted whole) and its
 * own, folded in Go's order: the embedded types first, the schema's own keywords last. A Kind's
 * own schema (`root`) is not a reference: controller-gen folds the embedded types into it, so
 * its own keywords come first there (and its rules after theirs).
 */
export function flattenEmbedded(schema: JSONSchemaProps, parts: readonly JSONSchemaProps[], root = false): void {
  const own = foldableKeywords(schema);
  const s = schema as Schema;
  for (const k of Object.keys(own)) delete s[k];
  const dst: JSONSchemaProps = root ? own : {};
  for (const p of parts) flattenInto(dst, foldableKeywords(p));
  if (!root) flattenInto(dst, own);
  Object.assign(schema, dst);
}

/**
 * Folds the whole schema `src` into `dst` as controller-gen's flattenAllOfInto does for the same
 * field of two embedded structs (TypeScript: two intersection members declaring it): what only
 * one side has is taken; properties of both are folded the same way, one by one; required lists
 * are joined (sorted, once each); the type stays `dst`'s, and so do the docs (title, description,
 * example, externalDocs: never taken from `src`); an
 * additionalProperties schema is folded into `dst`'s; every other keyword follows
 * {@link flattenInto} (the two values of a bound both kept, in `allOf`).
 */
export function flattenSchemaInto(dst: JSONSchemaProps, src: JSONSchemaProps): void {
  const d = dst as Schema;
  const rest: Schema = {};
  for (const [k, v] of Object.entries(src as Schema)) {
    if (v === undefined) continue;
    // The docs stay dst's, even when it has none (controller-gen merges them before, per field).
    if (DOCS.has(k)) continue;
    if (d[k] === undefined) {
      if (!FOLDED_AS_PROPERTY.has(k)) rest[k] = v;
      else d[k] = k === 'required' ? [...new Set(v as string[])].sort() : v;
    } else if (k === 'properties') d.properties = foldedProperties(d.properties, v as Record<string, JSONSchemaProps>);
    else if (k === 'required') d.required = [...new Set([...(d.required as string[]), ...(v as string[])])].sort();
    else if ((k === 'items' || k === 'additionalProperties') && typeof v === 'object' && typeof d[k] === 'object') {
      // Go hoists two item schemas into allOf; a structural schema needs items at the top, so
      // they are folded as properties are.
      if (JSON.stringify(d[k]) === JSON.stringify(v)) continue;
      const folded = { ...(d[k] as JSONSchemaProps) };
      flattenSchemaInto(folded, v as JSONSchemaProps);
      d[k] = folded;
    } else if (!FOLDED_AS_PROPERTY.has(k)) rest[k] = v;
  }
  flattenInto(dst, rest as JSONSchemaProps);
}

/** Keywords {@link flattenSchemaInto} never takes from `src`. */
const DOCS = new Set(['title', 'description', 'example', 'externalDocs']);

/** Keywords {@link flattenSchemaInto} takes from `src` only where `dst` has none (or folds itself). */
const FOLDED_AS_PROPERTY = new Set([
  'type',
  'title',
  'description',
  'example',
  'externalDocs',
  'properties',
  'required',
  'items',
  'additionalProperties',
]);

/** `dst`'s properties with `src`'s folded in, by name (sorted). */
function foldedProperties(dst: unknown, src: Record<string, JSONSchemaProps>): Record<string, JSONSchemaProps> {
  const props = { ...((dst as Record<string, JSONSchemaProps> | undefined) ?? {}) };
  for (const [name, schema] of Object.entries(src)) {
    if (props[name] === undefined) props[name] = schema;
    else {
      const folded = { ...props[name] };
      flattenSchemaInto(folded, schema);
      props[name] = folded;
    }
  }
  return Object.fromEntries(Object.entries(props).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
