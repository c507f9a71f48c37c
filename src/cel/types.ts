/**
 * CEL types as the Kubernetes API server declares them for `x-kubernetes-validations`
 * (k8s.io/apiserver/pkg/cel/common/schemas.go, SchemaDeclType): `self` is typed from the
 * structural schema the rule is attached to. Each type also carries the worst-case size the
 * cost estimator uses (maxLength, maxItems, maxProperties, or the estimate from the request size
 * limit when there is no bound).
 */

/** A CEL type. `param` only appears in overload signatures (type parameters A, B, K, V). */
export type CelT =
  | { kind: 'int' | 'uint' | 'double' | 'bool' | 'null' | 'dyn' | 'timestamp' | 'duration' | 'type' }
  | { kind: 'string' | 'bytes'; max?: number }
  | { kind: 'list'; elem: CelT; max?: number }
  | { kind: 'map'; key: CelT; value: CelT; max?: number }
  | { kind: 'object'; name: string; fields: ReadonlyMap<string, CelT>; max?: number }
  | { kind: 'opaque'; name: string; params?: CelT[] }
  | { kind: 'param'; name: string };

export const T = {
  int: { kind: 'int' } as CelT,
  uint: { kind: 'uint' } as CelT,
  double: { kind: 'double' } as CelT,
  bool: { kind: 'bool' } as CelT,
  null: { kind: 'null' } as CelT,
  dyn: { kind: 'dyn' } as CelT,
  string: { kind: 'string' } as CelT,
  bytes: { kind: 'bytes' } as CelT,
  timestamp: { kind: 'timestamp' } as CelT,
  duration: { kind: 'duration' } as CelT,
  type: { kind: 'type' } as CelT,
  list: (elem: CelT, max?: number): CelT => ({ kind: 'list', elem, max }),
  map: (key: CelT, value: CelT, max?: number): CelT => ({ kind: 'map', key, value, max }),
  opaque: (name: string, params?: CelT[]): CelT => (params ? { kind: 'opaque', name, params } : { kind: 'opaque', name }),
  /** `optional_type(T)`: optional selections and indexes, `optionalOldSelf`, `optional.of(x)`. */
  optional: (elem: CelT): CelT => ({ kind: 'opaque', name: 'optional_type', params: [elem] }),
};

/** cel-go's spelling of a type in messages: `int`, `list(string)`, `map(string, int)`, `object`. */
export function typeName(t: CelT): string {
  switch (t.kind) {
    case 'list':
      return `list(${typeName(t.elem)})`;
    case 'map':
      return `map(${typeName(t.key)}, ${typeName(t.value)})`;
    case 'object':
      return t.name;
    case 'opaque':
      return t.params?.length ? `${t.name}(${t.params.map(typeName).join(', ')})` : t.name;
    case 'param':
      return t.name;
    case 'null':
      return 'null_type';
    case 'timestamp':
      return 'google.protobuf.Timestamp';
    case 'duration':
      return 'google.protobuf.Duration';
    default:
      return t.kind;
  }
}

/** The subset of JSONSchemaProps the type mapping reads (kept local: src/cel imports nothing of kubeforge's CLI side). */
export interface RuleSchema {
  type?: string;
  format?: string;
  enum?: unknown[];
  maxLength?: number;
  maxItems?: number;
  maxProperties?: number;
  properties?: Record<string, RuleSchema>;
  additionalProperties?: RuleSchema | boolean;
  items?: RuleSchema;
  required?: string[];
  nullable?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: string;
  'x-kubernetes-validations'?: ValidationRule[];
  allOf?: RuleSchema[];
}

export interface ValidationRule {
  rule?: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

/** The API server's request size limit, from which unbounded sizes are estimated (apiserver's maxRequestSizeBytes). */
export const MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024;

/** CEL's reserved words, which the API server spells `__word__` as field names. */
export const RESERVED = new Set(['true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while']);

/**
 * The name a property has in CEL (apiserver's cel.Escape): reserved words become `__word__`,
 * `__` `.` `-` `/` are spelled `__underscores__` `__dot__` `__dash__` `__slash__`; a name with any
 * other character is not accessible as a field (undefined is returned).
 */
export function escapeProperty(name: string): string | undefined {
  if (RESERVED.has(name)) return `__${name}__`;
  if (!/^[a-zA-Z_.\-/][a-zA-Z0-9_.\-/]*$/.test(name)) return undefined;
  return name.replace(/__|\.|-|\//g, (m) => (m === '__' ? '__underscores__' : m === '.' ? '__dot__' : m === '-' ? '__dash__' : '__slash__'));
}

/** The property a CEL field name stands for (the inverse of {@link escapeProperty}). */
export function unescapeProperty(name: string): string {
  const m = /^__(\w+)__$/.exec(name);
  if (m && RESERVED.has(m[1])) return m[1];
  return name.replace(/__(underscores|dot|dash|slash)__/g, (_, w: string) => ({ underscores: '__', dot: '.', dash: '-', slash: '/' })[w] ?? w);
}

/** Smallest serialized size of a value of the type (apiserver's MinSerializedSize), for unbounded estimates. */
function minSize(t: CelT): number {
  switch (t.kind) {
    case 'string':
      return 2; // ""
    case 'list':
    case 'map':
    case 'object':
      return 2; // [] {}
    case 'bool':
      return 4;
    case 'timestamp':
      return 22;
    case 'duration':
      return 4;
    default:
      return 1;
  }
}

/** Worst-case element count of a list with no maxItems: as many minimal items (plus a comma) as fit in a request. */
const maxItemsFor = (elem: CelT) => Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (minSize(elem) + 1));

/**
 * The CEL type of a schema node (SchemaDeclType). `isRoot`: a resource root (the Kind, or an
 * embedded resource), where `apiVersion`, `kind` and `metadata.name` / `metadata.generateName`
 * are always accessible. Returns undefined where the API server declares no type (an array
 * without items): such a node cannot be reached from CEL.
 */
export function schemaType(s: RuleSchema, isRoot = false): CelT | undefined {
  if (s['x-kubernetes-int-or-string']) return T.dyn;
  const type = s.type ?? (s['x-kubernetes-preserve-unknown-fields'] || isRoot ? 'object' : undefined);
  switch (type) {
    case 'array': {
      if (!s.items) return undefined;
      const elem = schemaType(s.items, s.items['x-kubernetes-embedded-resource'] === true);
      if (!elem) return undefined;
      return T.list(elem, s.maxItems ?? maxItemsFor(elem));
    }
    case 'object': {
      if (typeof s.additionalProperties === 'object') {
        const value = schemaType(s.additionalProperties, s.additionalProperties['x-kubernetes-embedded-resource'] === true);
        if (!value) return undefined;
        // an entry is at least `"":` plus the value and a comma (apiserver: minSize + 6)
        return T.map(T.string, value, s.maxProperties ?? Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (minSize(value) + 6)));
      }
      const fields = new Map<string, CelT>();
      for (const [name, prop] of Object.entries(s.properties ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
        const escaped = escapeProperty(name);
        const ft = schemaType(prop, prop['x-kubernetes-embedded-resource'] === true);
        if (escaped && ft) fields.set(escaped, ft);
      }
      if (isRoot) {
        if (!fields.has('apiVersion')) fields.set('apiVersion', { kind: 'string', max: 316 });
        if (!fields.has('kind')) fields.set('kind', { kind: 'string', max: 63 });
        const meta = fields.get('metadata');
        const mf = new Map<string, CelT>(meta?.kind === 'object' ? meta.fields : []);
        mf.set('name', { kind: 'string', max: 253 });
        mf.set('generateName', { kind: 'string', max: 253 });
        fields.set('metadata', { kind: 'object', name: 'object', fields: mf });
      }
      return { kind: 'object', name: 'object', fields, max: s.maxProperties };
    }
    case 'string': {
      if (s.format === 'byte') return { kind: 'bytes', max: s.maxLength };
      if (s.format === 'duration') return T.duration;
      if (s.format === 'date' || s.format === 'date-time') return T.timestamp;
      // maxLength counts code points, CEL sizes bytes: up to 4 per code point (as the API server assumes)
      let max = s.maxLength === undefined ? undefined : s.maxLength * 4;
      if (max === undefined && s.enum?.length) max = Math.max(...s.enum.map((e) => Buffer.byteLength(String(e))));
      return { kind: 'string', max: max ?? MAX_REQUEST_SIZE_BYTES - 2 };
    }
    case 'boolean':
      return T.bool;
    case 'number':
      return T.double;
    case 'integer':
      return T.int;
    default:
      return undefined;
  }
}
