/**
 * The intermediate form between TypeScript and OpenAPI. The parser (parse.ts) builds it from
 * TypeScript syntax; the formatter (format.ts) turns it into structural JSONSchemaProps. The
 * two never touch each other's inputs: the IR carries markers and descriptions, not TS nodes.
 */
import type { Location, MarkerValue } from '../collector/collector.js';

export type IRType =
  | { kind: 'primitive'; type: 'string' | 'number' | 'integer' | 'boolean'; format?: string }
  | { kind: 'enum'; type: 'string' | 'integer' | 'number' | 'boolean'; values: (string | number | boolean)[] }
  | { kind: 'array'; items: IRType }
  | { kind: 'map'; values: IRType }
  /**
   * `embedded`: the named types merged in (intersection members, base classes: Go's embedded
   * structs), in order, whose type-level markers the formatter flattens into this object as
   * controller-gen does. Absent when none of them carries markers.
   */
  | { kind: 'object'; properties: IRProperty[]; embedded?: IRType[] }
  /** Types with a fixed schema: Quantity, IntOrString, date-time, Duration, byte strings, ObjectMeta. */
  | { kind: 'builtin'; name: 'Quantity' | 'IntOrString' | 'DateTime' | 'Duration' | 'Bytes' | 'ObjectMeta' }
  /** A @kubernetes/client-node model class, by name (V1PodTemplateSpec). */
  | { kind: 'k8s'; name: string; at: Location }
  /** any / unknown / object: valid only under @Schemaless or @PreserveUnknownFields. */
  | { kind: 'unknown'; what: 'any' | 'unknown' | 'object'; at: Location }
  /** A named declaration (class, interface, type alias, enum) and its type-level markers. */
  | { kind: 'named'; name: string; target: IRType; markers: MarkerValue[]; description?: string }
  | { kind: 'nullable'; target: IRType }
  /** Already reported; formats to an empty schema. */
  | { kind: 'error' };

export interface IRProperty {
  name: string;
  type: IRType;
  /** `?` or `| undefined` */
  optional: boolean;
  /** fieldsOptionalByDefault of the declaring file's group-version. */
  optionalByDefault: boolean;
  markers: MarkerValue[];
  description?: string;
  /** `FooSpec.count`, for messages. */
  owner: string;
  at: Location;
  /**
   * The fields of the same name in the intersection members before this one's (`A & B` both
   * declaring it), first first. Go's embedded structs that both have the field each bring its
   * schema, and controller-gen folds them into one (both bounds kept, in allOf): the formatter
   * folds theirs and this one's the same way (flatten.ts), instead of keeping only the last.
   */
  shadowed?: IRProperty[];
}

/** Strips named and nullable layers. */
export function irResolve(t: IRType): IRType {
  while (t.kind === 'named' || t.kind === 'nullable') t = t.target;
  return t;
}

/** Whether a type merged into an object brings type-level markers with it (its own, or of what it embeds). */
export function carriesMarkers(t: IRType): boolean {
  if (t.kind === 'nullable') return carriesMarkers(t.target);
  if (t.kind === 'named') return t.markers.length > 0 || carriesMarkers(t.target);
  return t.kind === 'object' && !!t.embedded?.length;
}

/** The parts of `t` that bring markers when it is merged into an object (see {@link carriesMarkers}). */
export function embeddedParts(t: IRType): IRType[] {
  if (t.kind === 'named' || t.kind === 'nullable') return carriesMarkers(t) ? [t] : [];
  return t.kind === 'object' ? [...(t.embedded ?? [])] : [];
}
