/**
 * Marker application: each schema marker applies itself to a JSONSchemaProps, with
 * controller-gen's preconditions (and its wording: "must apply maximum to a numeric value").
 * Which markers apply, and in what order, is the marker table's `schema.priority` (controller-
 * tools' ApplyPriority); what each does is its entry in {@link APPLY} (controller-tools'
 * ApplyToSchema), typed by the marker's own arguments. A marker the table marks as a schema
 * marker without an applier here does not compile.
 *
 * A field's markers are applied on top of the schema of its type. Where that type is named (a
 * type alias, class, interface or enum, a Kubernetes type: a `$ref` in controller-gen), the
 * keywords the field's markers set are folded into the type's schema as controller-gen's
 * flattener folds a field into the type it refers to (see flatten.ts): the field's rules
 * before the type's, and a value validation both set (an alias with `@minLength 4`, a field
 * with `@MinLength(5)`, or the same number on both, which Go holds by pointer) into an `allOf`,
 * the type's value first. The same holds for a named type over another named type (an alias of
 * an alias), and for the items of an array whose item type is named.
 */
import type { JSONSchemaProps } from './jsonschema.js';
import type { MarkerValue } from '../collector/collector.js';
import type { MarkerArgs, SchemaMarkerName } from '../markers/definitions.js';
import { flattenInto, NOT_MERGED } from './flatten.js';

export type Report = (marker: MarkerValue, message: string, hint?: string) => void;

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** Keywords markers add to rather than set: a marker sees (and extends) only what its own level added. */
const ADDED_TO = new Set(['x-kubernetes-validations', 'x-kubernetes-list-map-keys']);

type Schema = Record<string, unknown>;

/**
 * What markers write at one level (the field's top, or its items), kept apart from the schema
 * they are written on (`base`, never changed). Markers read `view`: the base with their own
 * writes over it, so their preconditions see the field's whole type.
 */
class Level {
  readonly own: Schema = {};
  readonly deleted = new Set<string>();
  readonly view: JSONSchemaProps;
  constructor(readonly base: JSONSchemaProps) {
    const own = this.own;
    const deleted = this.deleted;
    this.view = new Proxy(base as Schema, {
      get: (b, k) =>
        typeof k !== 'string' ? undefined : k in own ? own[k] : deleted.has(k) || ADDED_TO.has(k) ? undefined : b[k],
      has: (b, k) => typeof k === 'string' && (k in own || (!deleted.has(k) && k in b)),
      set: (_, k, v) => {
        if (typeof k !== 'string') return false;
        own[k] = v;
        deleted.delete(k);
        return true;
      },
      deleteProperty: (_, k) => {
        if (typeof k !== 'string') return false;
        delete own[k];
        deleted.add(k);
        return true;
      },
    }) as JSONSchemaProps;
  }

  /**
   * The schema of this level: the base with the markers' writes, folded into it as
   * controller-gen's flattener does when `fold` (the base is a named type's schema), else
   * laid over it (rules and list-map keys appended).
   */
  settle(fold: boolean): JSONSchemaProps {
    const out: Schema = { ...(this.base as Schema) };
    for (const k of this.deleted) delete out[k];
    if (!fold) {
      for (const [k, v] of Object.entries(this.own))
        out[k] = ADDED_TO.has(k) ? [...((out[k] as unknown[] | undefined) ?? []), ...(v as unknown[])] : v;
      return out as JSONSchemaProps;
    }
    const folded: Schema = {};
    for (const [k, v] of Object.entries(this.own)) {
      if (NOT_MERGED.has(k)) out[k] = v;
      else folded[k] = v;
    }
    flattenInto(out as JSONSchemaProps, folded as JSONSchemaProps);
    return out as JSONSchemaProps;
  }
}

const isNumeric = (s: JSONSchemaProps) =>
  s.type === 'integer' || s.type === 'number' || s['x-kubernetes-int-or-string'] === true;
const isString = (s: JSONSchemaProps) => s.type === 'string' || s['x-kubernetes-int-or-string'] === true;
const found = (s: JSONSchemaProps) =>
  s.type ?? (s['x-kubernetes-int-or-string'] ? 'int-or-string' : 'a schema without a type');

/**
 * How a field's markers combine with the schema of its type: `top` when the type is named (the
 * markers' keywords are folded into it), `items` when the array's item type is named.
 */
export interface Fold {
  top?: boolean;
  items?: boolean;
}

/**
 * Applies the schema markers in `markers` to `schema` (changed in place; its nested schemas
 * are not). `fold` says where the schema is a named type's, into which the markers' keywords
 * are folded rather than written.
 */
export function applyMarkers(
  schema: JSONSchemaProps,
  markers: readonly MarkerValue[],
  report: Report,
  fold: Fold = {},
  warning?: Report,
): void {
  const list = markers.filter((m) => m.def.schema !== undefined);
  if (list.length === 0) return;
  const ordered = [0, 1, 2].flatMap((r) => list.filter((m) => m.def.schema?.priority === r));
  const top = new Level({ ...schema });
  let items: Level | undefined;
  for (const m of ordered) {
    if (m.name.startsWith('Items.')) {
      const s = top.view;
      if (s.type !== 'array' || !s.items) {
        report(
          m,
          `must apply items markers to an array, found ${found(s)}`,
          `@${m.name} validates each item of an array: remove it or use @${m.name.slice(6)}`,
        );
        continue;
      }
      items ??= new Level(s.items);
      applyOne(m.name.slice(6) as SchemaMarkerName, m, items, report, warning);
    } else applyOne(m.name as SchemaMarkerName, m, top, report, warning);
  }
  const enumDropped = (l: Level | undefined, where: string) => {
    const m = ordered.find((x) => x.name === `${where}Enum`);
    if (l && m && fold[where ? 'items' : 'top'] && l.base.enum && l.own.enum && !deepEqual(l.base.enum, l.own.enum)) {
      warning?.(
        m,
        `the ${where ? "items' " : ''}type already has an enum (${l.base.enum.map((e) => JSON.stringify(e)).join(', ')}), which stays: controller-gen keeps a type's enum over its field's`,
        'narrow the values with a type of their own (an enum or a union of literals) and use it instead',
      );
    }
  };
  enumDropped(top, '');
  enumDropped(items, 'Items.');
  const settled = top.settle(fold.top === true);
  if (items) settled.items = items.settle(fold.items === true);
  for (const k of Object.keys(schema)) delete (schema as Schema)[k];
  Object.assign(schema, settled);
  for (const m of ordered) {
    if (m.name === 'Default') {
      const problem = defaultProblem(m.args, schema);
      if (problem)
        report(
          m,
          `default value ${JSON.stringify(m.args)} ${problem}`,
          'the API server refuses a CRD whose default does not validate: fix the value or the field type',
        );
    }
    if (m.name === 'ListMapKey' && top.view['x-kubernetes-list-type'] !== 'map') {
      report(
        m,
        'must apply listMapKey to an associative-list',
        "add @ListType('map') to the field (listMapKey names the keys of a map-type list)",
      );
    }
  }
}

/** Why a default cannot validate against the (final) schema, for the common mistakes. */
function defaultProblem(value: unknown, s: JSONSchemaProps): string | undefined {
  if (value === null) return s.nullable ? undefined : 'is null, but the field is not nullable';
  if (s['x-kubernetes-int-or-string'])
    return typeof value === 'string' || Number.isInteger(value) ? undefined : 'is neither an integer nor a string';
  const is: Record<string, (v: unknown) => boolean> = {
    string: (v) => typeof v === 'string',
    integer: (v) => Number.isInteger(v),
    number: (v) => typeof v === 'number',
    boolean: (v) => typeof v === 'boolean',
    array: (v) => Array.isArray(v),
    object: (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
  };
  if (s.type && !is[s.type](value)) return `is not of the field's type (${s.type})`;
  if (s.enum && !s.enum.some((e) => deepEqual(e, value)))
    return `is not one of the allowed values (${s.enum.map((e) => JSON.stringify(e)).join(', ')})`;
  return undefined;
}

interface ApplyCtx {
  /** The marker as written (for its name and place in messages). */
  m: MarkerValue;
  /** The schema as the marker sees it (its type's, with what this level's markers wrote); writes are this level's. */
  s: JSONSchemaProps;
  fail(message: string, hint?: string): void;
  warn(message: string, hint?: string): void;
}

type Applier<N extends SchemaMarkerName> = (args: MarkerArgs<N>, c: ApplyCtx) => void;

const numeric =
  (key: 'maximum' | 'minimum' | 'multipleOf', word: string): Applier<'Maximum' | 'Minimum' | 'MultipleOf'> =>
  (a, { m, s, fail }) => {
    if (!isNumeric(s))
      return fail(
        `must apply ${word} to a numeric value, found ${found(s)}`,
        `@${m.name} needs a number field (number, int32, int64): remove it or use a string marker such as @MaxLength`,
      );
    if (s.type === 'integer' && !Number.isInteger(a))
      return fail(`cannot apply non-integral ${word} validation (${String(a)}) to integer value`, 'use an integer');
    s[key] = a;
  };
const textual =
  (key: 'maxLength' | 'minLength' | 'pattern', word: string): Applier<'MaxLength' | 'MinLength' | 'Pattern'> =>
  (a, { m, s, fail }) => {
    if (!isString(s))
      return fail(
        `must apply ${word} to a textual value, found type "${s.type ?? ''}"`,
        `@${m.name} needs a string field: remove it${s.type === 'array' ? ` or use @Items.${m.name} for the items` : ''}`,
      );
    (s as Schema)[key] = a;
  };
const list =
  (key: 'maxItems' | 'minItems', word: string): Applier<'MaxItems' | 'MinItems'> =>
  (a, { m, s, fail }) => {
    if (s.type !== 'array')
      return fail(`must apply ${word} to an array`, `@${m.name} needs an array field, found ${found(s)}`);
    s[key] = a;
  };
const properties =
  (key: 'maxProperties' | 'minProperties', word: string): Applier<'MaxProperties' | 'MinProperties'> =>
  (a, { m, s, fail }) => {
    if (s.type !== 'object')
      return fail(`must apply ${word} to an object`, `@${m.name} needs an object or record field, found ${found(s)}`);
    s[key] = a;
  };
const oneOfRule =
  (
    rule: (fields: readonly string[]) => string,
    message: (fields: string) => string,
  ): Applier<'AtMostOneOf' | 'ExactlyOneOf' | 'AtLeastOneOf'> =>
  (fields, { s, fail }) => {
    const props = s.properties ?? {};
    const missing = fields.filter((f) => !(f in props));
    if (missing.length)
      return fail(
        `names ${missing.map((x) => `'${x}'`).join(', ')}, which ${missing.length === 1 ? 'is not a field' : 'are not fields'} of this type`,
        `fields: ${Object.keys(props).sort().join(', ')}`,
      );
    s['x-kubernetes-validations'] = [
      ...(s['x-kubernetes-validations'] ?? []),
      { message: message(fields.join(' ')), rule: rule(fields) },
    ];
  };
/** How many of `fields` are set, in controller-gen's (v0.22) form: a sum of conditionals, cheap to evaluate. */
const countSet = (fields: readonly string[]) => fields.map((f) => `(has(self.${f})?1:0)`).join('+');

/** What each schema marker does to the schema it is on (controller-tools' ApplyToSchema). */
const APPLY: { readonly [N in SchemaMarkerName]: Applier<N> } = {
  Maximum: numeric('maximum', 'maximum'),
  Minimum: numeric('minimum', 'minimum'),
  MultipleOf: numeric('multipleOf', 'multipleof'),
  ExclusiveMaximum: (_, { s, fail }) => {
    if (!isNumeric(s))
      return fail(
        `must apply exclusivemaximum to a numeric value, found ${found(s)}`,
        '@ExclusiveMaximum needs a number field (number, int32, int64) with @Maximum: remove it',
      );
    s.exclusiveMaximum = true;
  },
  ExclusiveMinimum: (_, { s, fail }) => {
    if (!isNumeric(s))
      return fail(
        `must apply exclusiveminimum to a numeric value, found ${found(s)}`,
        '@ExclusiveMinimum needs a number field (number, int32, int64) with @Minimum: remove it',
      );
    s.exclusiveMinimum = true;
  },
  MaxLength: textual('maxLength', 'maxlength'),
  MinLength: textual('minLength', 'minlength'),
  Pattern: textual('pattern', 'pattern'),
  MaxItems: list('maxItems', 'maxitem'),
  MinItems: list('minItems', 'minitems'),
  UniqueItems: (_, { m, s, fail }) => {
    if (s.type !== 'array')
      return fail('must apply uniqueitems to an array', `@${m.name} needs an array field, found ${found(s)}`);
    // The API server refuses uniqueItems; the CRD check (src/manifests/crdcheck) reports it as an error.
    s.uniqueItems = true;
  },
  MaxProperties: properties('maxProperties', 'maxproperties'),
  MinProperties: properties('minProperties', 'minproperties'),
  Enum: (a, { s, warn }) => {
    // The API server takes repeated values (and controller-gen writes them as given): kept, said.
    const seen = new Set<string>();
    for (const v of a as unknown[]) {
      const key = JSON.stringify(v);
      if (seen.has(key)) warn(`the value ${key} is given more than once`, 'remove the repeated value');
      seen.add(key);
    }
    s.enum = a as unknown[];
  },
  Format: (a, { s }) => {
    s.format = a;
  },
  Type: (a, { s }) => {
    // Only the type, as controller-gen: what the derived type added (properties, items) stays,
    // and means nothing to a value of another type.
    s.type = a;
  },
  Title: (a, { s }) => {
    s.title = a;
  },
  ExternalDocs: (a, { s }) => {
    s.externalDocs = a;
  },
  Default: (a, { s }) => {
    s.default = a;
  },
  Example: (a, { s }) => {
    s.example = a;
  },
  Nullable: (_, { s }) => {
    s.nullable = true;
  },
  PreserveUnknownFields: (_, { s }) => {
    s['x-kubernetes-preserve-unknown-fields'] = true;
  },
  EmbeddedResource: (_, { s, fail }) => {
    if (s.type !== undefined && s.type !== 'object')
      return fail(`must apply EmbeddedResource to an object, found ${found(s)}`);
    s['x-kubernetes-embedded-resource'] = true;
  },
  IntOrString: (_, { s, fail }) => {
    if (s.type && s.type !== 'string' && s.type !== 'integer')
      return fail(
        `must apply XIntOrString to an integer or a string, found ${found(s)}`,
        "use IntOrString (from 'kubeforge/markers') as the field's type",
      );
    // The flag alone, as controller-gen writes it: the API server then takes an integer or a
    // string whatever `type` says (the IntOrString type's schema is the anyOf form).
    s['x-kubernetes-int-or-string'] = true;
  },
  XValidation: (r, { s }) => {
    const rule: Record<string, unknown> = {};
    for (const k of ['fieldPath', 'message', 'messageExpression', 'optionalOldSelf', 'reason', 'rule'] as const)
      if (r[k] !== undefined) rule[k] = r[k];
    s['x-kubernetes-validations'] = [...(s['x-kubernetes-validations'] ?? []), rule as { rule: string }];
  },
  Immutable: (_, { s }) => {
    // An optional field also gets a rule on its object (that it stays set): see SchemaFormatter.
    s['x-kubernetes-validations'] = [
      ...(s['x-kubernetes-validations'] ?? []),
      { message: 'field is immutable', rule: 'self == oldSelf' },
    ];
  },
  ListType: (a, { s, fail }) => {
    if (s.type !== 'array')
      return fail(`must apply listType to an array, found ${found(s)}`, '@ListType applies to array fields');
    s['x-kubernetes-list-type'] = a;
  },
  ListMapKey: (keys, { s, fail }) => {
    if (s.type !== 'array')
      return fail(`must apply listMapKey to an array, found ${found(s)}`, '@ListMapKey applies to array fields');
    const itemProps = s.items?.properties;
    for (const k of keys) {
      if (itemProps && !(k in itemProps))
        return fail(
          `listMapKey '${k}' is not a field of the list's items (fields: ${Object.keys(itemProps).sort().join(', ')})`,
          'name fields of the item type',
        );
    }
    s['x-kubernetes-list-map-keys'] = [...(s['x-kubernetes-list-map-keys'] ?? []), ...keys];
  },
  MapType: (a, { s, fail }) => {
    if (s.type !== 'object')
      return fail('must apply mapType to an object', `@MapType applies to records and objects, found ${found(s)}`);
    s['x-kubernetes-map-type'] = a;
  },
  StructType: (a, { s, fail }) => {
    if (s.type !== undefined && s.type !== 'object')
      return fail(
        'must apply structType to an object; either explicitly set or defaulted through an empty schema type',
        `@StructType applies to object fields, found ${found(s)}`,
      );
    s['x-kubernetes-map-type'] = a;
  },
  AtMostOneOf: oneOfRule(
    (f) => `${countSet(f)} <= 1`,
    (f) => `at most one of the fields in [${f}] may be set`,
  ),
  ExactlyOneOf: oneOfRule(
    (f) => `${countSet(f)} == 1`,
    (f) => `exactly one of the fields in [${f}] must be set`,
  ),
  AtLeastOneOf: oneOfRule(
    (f) => f.map((x) => `has(self.${x})`).join('||'),
    (f) => `at least one of the fields in [${f}] must be set`,
  ),
};

function applyOne(name: SchemaMarkerName, m: MarkerValue, level: Level, report: Report, warn?: Report): void {
  const apply = APPLY[name] as Applier<SchemaMarkerName>;
  apply(m.args as never, {
    m,
    s: level.view,
    fail: (msg, hint) => report(m, msg, hint),
    warn: (msg, hint) => warn?.(m, msg, hint),
  });
}
