/**
 * Marker application: each schema marker applies itself to a JSONSchemaProps, with
 * controller-gen's preconditions (and its wording: "must apply maximum to a numeric value").
 * `@Type` applies first, then the others in the order written.
 *
 * Field markers are applied on top of the schema of the field's type. When a field sets a
 * value validation its type already sets differently (an alias with `@minLength 4`, a field with
 * `@MinLength(5)`), both go into an `allOf`, as controller-gen's flattener does.
 */
import type { JSONSchemaProps } from './jsonschema.js';
import type { MarkerValue } from '../markers/collector.js';

/** Markers that do not touch the schema (kind-level, RBAC, webhooks, requiredness). */
const NOT_SCHEMA = new Set([
  'Root',
  'Resource',
  'SubresourceStatus',
  'SubresourceScale',
  'PrintColumn',
  'StorageVersion',
  'UnservedVersion',
  'DeprecatedVersion',
  'SkipVersion',
  'Metadata',
  'SelectableField',
  'ConversionWebhook',
  'Rbac',
  'Webhook',
  'WebhookConfiguration',
  'Optional',
  'Required',
  'Schemaless',
]);

/** Value validations that go into allOf when a field and its type disagree. */
const HOISTABLE = new Set([
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
  'enum',
  'format',
]);

export type Report = (marker: MarkerValue, message: string, hint?: string) => void;

export const QUANTITY_PATTERN = '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$';

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

class Target {
  readonly fieldVals: Record<string, unknown> = {};
  readonly typeVals: Record<string, unknown> = {};
  constructor(
    readonly schema: JSONSchemaProps,
    private readonly base: JSONSchemaProps | undefined,
  ) {}
  set(key: keyof JSONSchemaProps, value: unknown): void {
    const s = this.schema as Record<string, unknown>;
    const b = this.base as Record<string, unknown> | undefined;
    if (b && HOISTABLE.has(key) && b[key] !== undefined && !deepEqual(b[key], value)) {
      this.fieldVals[key] = value;
      this.typeVals[key] = b[key];
      delete s[key];
      return;
    }
    s[key] = value;
  }
  finish(): void {
    if (Object.keys(this.fieldVals).length) this.schema.allOf = [...(this.schema.allOf ?? []), this.fieldVals as JSONSchemaProps, this.typeVals as JSONSchemaProps];
  }
}

const isNumeric = (s: JSONSchemaProps) => s.type === 'integer' || s.type === 'number' || s['x-kubernetes-int-or-string'] === true;
const isString = (s: JSONSchemaProps) => s.type === 'string' || s['x-kubernetes-int-or-string'] === true;
const found = (s: JSONSchemaProps) => s.type ?? (s['x-kubernetes-int-or-string'] ? 'int-or-string' : 'a schema without a type');

/**
 * Applies the schema markers in `markers` to `schema` (mutated). `base` is the schema of the
 * field's type when `schema` is a field's copy of it (enables allOf hoisting).
 */
export function applyMarkers(schema: JSONSchemaProps, markers: readonly MarkerValue[], report: Report, base?: JSONSchemaProps, warning?: Report): void {
  const list = markers.filter((m) => !NOT_SCHEMA.has(m.name));
  if (list.length === 0) return;
  // controller-gen's priorities: Type, XIntOrString and ListType first (others check the type
  // they set), the one-of family after the XValidation rules; otherwise in the order written.
  const rank = (m: MarkerValue) => {
    const base = m.name.replace(/^Items\./, '');
    if (base === 'Type' || base === 'IntOrString' || base === 'ListType') return 0;
    if (base === 'AtMostOneOf' || base === 'ExactlyOneOf' || base === 'AtLeastOneOf') return 2;
    return 1;
  };
  const ordered = [0, 1, 2].flatMap((r) => list.filter((m) => rank(m) === r));
  const top = new Target(schema, base);
  let items: Target | undefined;
  for (const m of ordered) {
    if (m.name.startsWith('Items.')) {
      if (schema.type !== 'array' || !schema.items) {
        report(m, `must apply items markers to an array, found ${found(schema)}`, `@${m.name} validates each item of an array: remove it or use @${m.name.slice(6)}`);
        continue;
      }
      if (!items) {
        schema.items = { ...schema.items };
        items = new Target(schema.items, base?.items);
      }
      applyOne(m.name.slice(6), m, items, report, warning);
    } else applyOne(m.name, m, top, report, warning);
  }
  items?.finish();
  top.finish();
  for (const m of ordered) {
    if (m.name === 'Default') {
      const problem = defaultProblem(m.args, schema);
      if (problem) report(m, `default value ${JSON.stringify(m.args)} ${problem}`, 'the API server refuses a CRD whose default does not validate: fix the value or the field type');
    }
    if (m.name === 'ListMapKey' && schema['x-kubernetes-list-type'] !== 'map') {
      report(m, 'must apply listMapKey to an associative-list', "add @ListType('map') to the field (listMapKey names the keys of a map-type list)");
    }
  }
}

/** Why a default cannot validate against the (final) schema, for the common mistakes. */
function defaultProblem(value: unknown, s: JSONSchemaProps): string | undefined {
  if (value === null) return s.nullable ? undefined : 'is null, but the field is not nullable';
  if (s['x-kubernetes-int-or-string']) return typeof value === 'string' || Number.isInteger(value) ? undefined : 'is neither an integer nor a string';
  const is: Record<string, (v: unknown) => boolean> = {
    string: (v) => typeof v === 'string',
    integer: (v) => Number.isInteger(v),
    number: (v) => typeof v === 'number',
    boolean: (v) => typeof v === 'boolean',
    array: (v) => Array.isArray(v),
    object: (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
  };
  if (s.type && !is[s.type](value)) return `is not of the field's type (${s.type})`;
  if (s.enum && !s.enum.some((e) => deepEqual(e, value))) return `is not one of the allowed values (${s.enum.map((e) => JSON.stringify(e)).join(', ')})`;
  return undefined;
}

function applyOne(name: string, m: MarkerValue, t: Target, report: Report, warn?: Report): void {
  const s = t.schema;
  const a = m.args;
  const fail = (msg: string, hint?: string) => report(m, msg, hint);
  const numeric = (key: 'maximum' | 'minimum' | 'multipleOf', word: string) => {
    if (!isNumeric(s)) return fail(`must apply ${word} to a numeric value, found ${found(s)}`, `@${m.name} needs a number field (number, int32, int64): remove it or use a string marker such as @MaxLength`);
    if (s.type === 'integer' && !Number.isInteger(a)) return fail(`cannot apply non-integral ${word} validation (${String(a)}) to integer value`, 'use an integer');
    t.set(key, a);
  };
  const str = (key: 'maxLength' | 'minLength' | 'pattern', word: string) => {
    if (!isString(s)) return fail(`must apply ${word} to a textual value, found type "${s.type ?? ''}"`, `@${m.name} needs a string field: remove it${s.type === 'array' ? ` or use @Items.${m.name} for the items` : ''}`);
    t.set(key, a);
  };
  const arr = (key: 'maxItems' | 'minItems' | 'uniqueItems', word: string, value: unknown) => {
    if (s.type !== 'array') return fail(`must apply ${word} to an array`, `@${m.name} needs an array field, found ${found(s)}`);
    t.set(key, value);
  };
  const obj = (key: 'maxProperties' | 'minProperties', word: string) => {
    if (s.type !== 'object') return fail(`must apply ${word} to an object`, `@${m.name} needs an object or record field, found ${found(s)}`);
    t.set(key, a);
  };
  switch (name) {
    case 'Maximum':
      return numeric('maximum', 'maximum');
    case 'Minimum':
      return numeric('minimum', 'minimum');
    case 'MultipleOf':
      return numeric('multipleOf', 'multipleof');
    case 'ExclusiveMaximum':
      if (!isNumeric(s)) return fail(`must apply exclusivemaximum to a numeric value, found ${found(s)}`, '@ExclusiveMaximum needs a number field (number, int32, int64) with @Maximum: remove it');
      return t.set('exclusiveMaximum', true);
    case 'ExclusiveMinimum':
      if (!isNumeric(s)) return fail(`must apply exclusiveminimum to a numeric value, found ${found(s)}`, '@ExclusiveMinimum needs a number field (number, int32, int64) with @Minimum: remove it');
      return t.set('exclusiveMinimum', true);
    case 'MaxLength':
      return str('maxLength', 'maxlength');
    case 'MinLength':
      return str('minLength', 'minlength');
    case 'Pattern':
      return str('pattern', 'pattern');
    case 'MaxItems':
      return arr('maxItems', 'maxitem', a);
    case 'MinItems':
      return arr('minItems', 'minitems', a);
    case 'UniqueItems':
      // The API server refuses uniqueItems; the CRD check (src/manifests/crdcheck) reports it as an error.
      return arr('uniqueItems', 'uniqueitems', true);
    case 'MaxProperties':
      return obj('maxProperties', 'maxproperties');
    case 'MinProperties':
      return obj('minProperties', 'minproperties');
    case 'Enum':
      return t.set('enum', a);
    case 'Format':
      return t.set('format', a);
    case 'Type':
      s.type = a as JSONSchemaProps['type'];
      if (s.type !== 'array') delete s.items;
      if (s.type !== 'object') {
        delete s.properties;
        delete s.additionalProperties;
        delete s.required;
      }
      delete s.anyOf;
      delete s['x-kubernetes-int-or-string'];
      return;
    case 'Title':
      s.title = a as string;
      return;
    case 'ExternalDocs':
      s.externalDocs = a as JSONSchemaProps['externalDocs'];
      return;
    case 'Default':
      s.default = a;
      return;
    case 'Example':
      s.example = a;
      return;
    case 'Nullable':
      s.nullable = true;
      return;
    case 'PreserveUnknownFields':
      s['x-kubernetes-preserve-unknown-fields'] = true;
      return;
    case 'EmbeddedResource':
      if (s.type !== undefined && s.type !== 'object') return fail(`must apply EmbeddedResource to an object, found ${found(s)}`);
      s['x-kubernetes-embedded-resource'] = true;
      return;
    case 'IntOrString':
      if (s.type && s.type !== 'string' && s.type !== 'integer') return fail(`must apply XIntOrString to an integer or a string, found ${found(s)}`, "use IntOrString (from 'kubeforge/markers') as the field's type");
      delete s.type;
      delete s.format;
      s.anyOf = [{ type: 'integer' }, { type: 'string' }];
      s['x-kubernetes-int-or-string'] = true;
      return;
    case 'XValidation': {
      const r = a as Record<string, unknown>;
      const rule: Record<string, unknown> = {};
      for (const k of ['fieldPath', 'message', 'messageExpression', 'optionalOldSelf', 'reason', 'rule']) if (r[k] !== undefined) rule[k] = r[k];
      s['x-kubernetes-validations'] = [...(s['x-kubernetes-validations'] ?? []), rule as { rule: string }];
      return;
    }
    case 'Immutable':
      s['x-kubernetes-validations'] = [...(s['x-kubernetes-validations'] ?? []), { message: 'Value is immutable', rule: 'self == oldSelf' }];
      return;
    case 'ListType':
      if (s.type !== 'array') return fail(`must apply listType to an array, found ${found(s)}`, '@ListType applies to array fields');
      s['x-kubernetes-list-type'] = a as 'atomic' | 'set' | 'map';
      return;
    case 'ListMapKey': {
      if (s.type !== 'array') return fail(`must apply listMapKey to an array, found ${found(s)}`, '@ListMapKey applies to array fields');
      const keys = a as string[];
      const itemProps = s.items?.properties;
      for (const k of keys) {
        if (itemProps && !(k in itemProps)) return fail(`listMapKey '${k}' is not a field of the list's items (fields: ${Object.keys(itemProps).sort().join(', ')})`, 'name fields of the item type');
      }
      s['x-kubernetes-list-map-keys'] = [...(s['x-kubernetes-list-map-keys'] ?? []), ...keys];
      return;
    }
    case 'MapType':
      if (s.type !== 'object') return fail('must apply mapType to an object', `@MapType applies to records and objects, found ${found(s)}`);
      s['x-kubernetes-map-type'] = a as 'atomic' | 'granular';
      return;
    case 'StructType':
      if (s.type !== undefined && s.type !== 'object') return fail('must apply structType to an object; either explicitly set or defaulted through an empty schema type', `@StructType applies to object fields, found ${found(s)}`);
      s['x-kubernetes-map-type'] = a as 'atomic' | 'granular';
      return;
    case 'AtMostOneOf':
    case 'ExactlyOneOf':
    case 'AtLeastOneOf': {
      const fields = a as string[];
      const props = s.properties ?? {};
      const missing = fields.filter((f) => !(f in props));
      if (missing.length) return fail(`names ${missing.map((x) => `'${x}'`).join(', ')}, which ${missing.length === 1 ? 'is not a field' : 'are not fields'} of this type`, `fields: ${Object.keys(props).sort().join(', ')}`);
      const list = `[${fields.map((f) => `has(self.${f})`).join(',')}].filter(x,x==true).size()`;
      const [op, message] =
        name === 'AtMostOneOf'
          ? ['<= 1', `at most one of the fields in [${fields.join(' ')}] may be set`]
          : name === 'ExactlyOneOf'
            ? ['== 1', `exactly one of the fields in [${fields.join(' ')}] must be set`]
            : ['>= 1', `at least one of the fields in [${fields.join(' ')}] must be set`];
      s['x-kubernetes-validations'] = [...(s['x-kubernetes-validations'] ?? []), { message, rule: `${list} ${op}` }];
      return;
    }
  }
}
