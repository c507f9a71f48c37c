/**
 * Where a piece of generated output came from, so that a check of the finished CRD can point
 * at the marker or field that caused a problem.
 *
 * The origin rides on the object itself as a non-enumerable symbol property: JSON, YAML,
 * `Object.keys` and object spread never see it, and it lives exactly as long as the object.
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

const SCHEMA_ORIGIN = Symbol('kubeforge.schemaOrigin');
const CRD_ORIGIN = Symbol('kubeforge.crdOrigin');

function attach<T extends object>(obj: T, key: symbol, value: unknown): T {
  Object.defineProperty(obj, key, { value, enumerable: false, configurable: true, writable: true });
  return obj;
}

export function setSchemaOrigin<T extends object>(schema: T, origin: SchemaOrigin): T {
  return attach(schema, SCHEMA_ORIGIN, origin);
}

export function schemaOriginOf(schema: object | undefined): SchemaOrigin | undefined {
  return schema ? ((schema as Record<symbol, unknown>)[SCHEMA_ORIGIN] as SchemaOrigin | undefined) : undefined;
}

export function setCRDOrigin<T extends object>(crd: T, origin: CRDOrigin): T {
  return attach(crd, CRD_ORIGIN, origin);
}

export function crdOriginOf(crd: object): CRDOrigin | undefined {
  return (crd as Record<symbol, unknown>)[CRD_ORIGIN] as CRDOrigin | undefined;
}
