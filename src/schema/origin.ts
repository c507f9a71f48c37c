/**
 * Where a piece of generated output came from, so that a check of the finished CRD can point
 * at the marker or field that caused a problem.
 *
 * Origins are kept in side tables (WeakMaps keyed by the object), never on the object: the
 * objects stay exactly the typed JSON they are written as (JSON, YAML, `Object.keys`, spread and
 * `structuredClone` see only their fields), and an origin lives exactly as long as its object. A
 * copy of an object has no origin until {@link copyOrigins} gives it the original's.
 * A node without an origin (part of a Kubernetes model type, an `items` copy) is located through
 * its nearest ancestor that has one: the user's field that uses it.
 */
import type { Location, MarkerValue } from '../collector/collector.js';

export interface SchemaOrigin {
  /** `field "size" of FooSpec`, `type Word`, `Kind Foo`: for messages. */
  where: string;
  /** The field's declaration (absent for a type or a Kind's root, located by their markers or the Kind). */
  at?: Location;
  /** Markers written on this field (or type, or Kind root class). */
  markers: readonly MarkerValue[];
  /** The origin of the named type the field's schema was built from, when there is one. */
  type?: SchemaOrigin;
}

/** Kinds (one per version) a generated CRD was built from. */
export interface CRDOrigin {
  versions: readonly { version: string; kind: string; group: string; markers: readonly MarkerValue[]; at: Location }[];
}

const SCHEMA_ORIGINS = new WeakMap<object, SchemaOrigin>();
const CRD_ORIGINS = new WeakMap<object, CRDOrigin>();

export function setSchemaOrigin<T extends object>(schema: T, origin: SchemaOrigin): T {
  SCHEMA_ORIGINS.set(schema, origin);
  return schema;
}

export function schemaOriginOf(schema: object | undefined): SchemaOrigin | undefined {
  return schema ? SCHEMA_ORIGINS.get(schema) : undefined;
}

export function setCRDOrigin<T extends object>(crd: T, origin: CRDOrigin): T {
  CRD_ORIGINS.set(crd, origin);
  return crd;
}

export function crdOriginOf(crd: object): CRDOrigin | undefined {
  return CRD_ORIGINS.get(crd);
}

/** Gives `copy` the origins `original` has (a schema node copied to change one keyword, desc.ts). */
export function copyOrigins<T extends object>(original: object, copy: T): T {
  const schema = SCHEMA_ORIGINS.get(original);
  if (schema) SCHEMA_ORIGINS.set(copy, schema);
  const crd = CRD_ORIGINS.get(original);
  if (crd) CRD_ORIGINS.set(copy, crd);
  return copy;
}
