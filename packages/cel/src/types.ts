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
  opaque: (name: string, params?: CelT[]): CelT =>
    params ? { kind: 'opaque', name, params } : { kind: 'opaque', name },
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
      return 'null';
    case 'timestamp':
      return 'google.protobuf.Timestamp';
    case 'duration':
      return 'google.protobuf.Duration';
    default:
      return t.kind;
  }
}

/** The subset of JSONSchemaProps the type mapping reads (kept local: packages/cel imports nothing of kubeforge's CLI side). */
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
  default?: unknown;
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
export const RESERVED = new Set([
  'true',
  'false',
  'null',
  'in',
  'as',
  'break',
  'const',
  'continue',
  'else',
  'for',
  'function',
  'if',
  'import',
  'let',
  'loop',
  'package',
  'namespace',
  'return',
  'var',
  'void',
  'while',
]);

/**
 * The name a property has in CEL (apiserver's cel.Escape): reserved words become `__word__`,
 * `__` `.` `-` `/` are spelled `__underscores__` `__dot__` `__dash__` `__slash__`; a name with any
 * other character is not accessible as a field (undefined is returned).
 */
export function escapeProperty(name: string): string | undefined {
  if (RESERVED.has(name)) return `__${name}__`;
  if (!/^[a-zA-Z_.\-/][a-zA-Z0-9_.\-/]*$/.test(name)) return undefined;
  return name.replace(/__|\.|-|\//g, (m) =>
    m === '__' ? '__underscores__' : m === '.' ? '__dot__' : m === '-' ? '__dash__' : '__slash__',
  );
}

/** The property a CEL field name stands for (the inverse of {@link escapeProperty}). */
export function unescapeProperty(name: string): string {
  const m = /^__(\w+)__$/.exec(name);
  if (m && RESERVED.has(m[1])) return m[1];
  return name.replace(
    /__(underscores|dot|dash|slash)__/g,
    (_, w: string) => ({ underscores: '__', dot: '.', dash: '-', slash: '/' })[w] ?? w,
  );
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
  // A node without a type (x-kubernetes-preserve-unknown-fields alone) has no CEL type, and so
  // a list or map of such nodes none, and an object no such field (apiserver's SchemaDeclType);
  // a resource root is an object.
  const type = s.type ?? (isRoot ? 'object' : undefined);
  switch (type) {
    case 'array': {
      if (!s.items) return undefined;
      const elem = schemaType(s.items, s.items['x-kubernetes-embedded-resource'] === true);
      if (!elem) return undefined;
      return T.list(elem, s.maxItems ?? maxItemsFor(elem));
    }
    case 'object': {
      if (typeof s.additionalProperties === 'object') {
        const value = schemaType(
          s.additionalProperties,
          s.additionalProperties['x-kubernetes-embedded-resource'] === true,
        );
        if (!value) return undefined;
        // an entry is at least `"":` plus the value and a comma (apiserver: minSize + 6)
        return T.map(
          T.string,
          value,
          s.maxProperties ?? Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (minSize(value) + 6)),
        );
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

/**
 * What the API server's cost estimator knows of a schema node (apiserver's DeclType as
 * SchemaDeclType builds it): the most elements a value can have (`maxElements`: characters of
 * a string, items of a list, entries of a map; 0 for objects and numbers) and the fewest bytes
 * it takes in JSON (`minSize`), from which unbounded sizes and cardinalities are estimated.
 * Fields are keyed by their CEL names (escaped); a map's key is a string of no known size.
 */
export interface Decl {
  kind: 'object' | 'list' | 'map' | 'string' | 'bytes' | 'duration' | 'timestamp' | 'bool' | 'int' | 'double' | 'dyn';
  maxElements: number;
  minSize: number;
  fields?: ReadonlyMap<string, Decl>;
  elem?: Decl;
  key?: Decl;
}

/** The request size the API server estimates unbounded sizes from (apiserver's DefaultMaxRequestSizeBytes). */
const REQUEST_BYTES = 3 * 1024 * 1024;
/** Longest JSON form of a duration and of a date-time, and the length of a date (apiserver's limits). */
const MAX_DURATION_JSON = 32;
const MAX_DATETIME_JSON = 32;
const DATE_JSON = 12;
/** The longest object name (DNS-1123 subdomain), which caps metadata.name at a resource root. */
const NAME_MAX_LENGTH = 253;
/** A map's key: a string the estimator has no bound for (it reports 0, as the server's shared string type does). */
const MAP_KEY: Decl = { kind: 'string', maxElements: 0, minSize: 2 };

const nonNegative = (n: number) => Math.max(n, 0);

/**
 * The schema a resource root is typed from: `kind`, `apiVersion` and `metadata` with only `name`
 * and `generateName` (capped at the name length) are declared whatever the schema says, unless
 * the schema already declares all of them as strings and an object.
 */
function withTypeAndObjectMeta(s: RuleSchema): RuleSchema {
  const p = s.properties;
  const meta = p?.metadata;
  if (
    p?.kind?.type === 'string' &&
    p.apiVersion?.type === 'string' &&
    meta?.type === 'object' &&
    meta.properties &&
    meta.properties.name?.type === 'string' &&
    meta.properties.generateName?.type === 'string'
  )
    return s;
  const capped = (existing: RuleSchema | undefined, max: number): RuleSchema => ({
    type: 'string',
    maxLength: existing?.maxLength !== undefined && existing.maxLength < max ? existing.maxLength : max,
  });
  return {
    ...s,
    properties: {
      ...p,
      kind: { type: 'string' },
      apiVersion: { type: 'string' },
      metadata: {
        type: 'object',
        properties: {
          name: capped(meta?.properties?.name, NAME_MAX_LENGTH),
          generateName: capped(meta?.properties?.generateName, NAME_MAX_LENGTH - 1),
        },
      },
    },
  };
}

/**
 * The size model of a schema node (apiserver's common.SchemaDeclType). `isRoot`: a resource root
 * (the Kind, or an embedded resource). Undefined where the server declares no CEL type.
 */
export function schemaDecl(s: RuleSchema, isRoot = false): Decl | undefined {
  if (s['x-kubernetes-int-or-string']) {
    return {
      kind: 'dyn',
      minSize: 1,
      maxElements: s.maxLength !== undefined ? nonNegative(s.maxLength) * 4 : REQUEST_BYTES - 2,
    };
  }
  if (isRoot) s = withTypeAndObjectMeta(s);
  switch (s.type) {
    case 'array': {
      if (!s.items) return undefined;
      const elem = schemaDecl(s.items, s.items['x-kubernetes-embedded-resource'] === true);
      if (!elem) return undefined;
      // unbounded: as many of the smallest items (and a comma each) as fit between [ and ]
      const maxElements =
        s.maxItems !== undefined ? nonNegative(s.maxItems) : Math.floor((REQUEST_BYTES - 2) / (elem.minSize + 1));
      return { kind: 'list', elem, maxElements, minSize: 2 };
    }
    case 'object': {
      if (typeof s.additionalProperties === 'object') {
        const ap = s.additionalProperties;
        const elem = schemaDecl(ap, ap['x-kubernetes-embedded-resource'] === true);
        if (!elem) return undefined;
        // unbounded: entries of the smallest value with a one-character key ("k":v,) between { and }
        const maxElements =
          s.maxProperties !== undefined
            ? nonNegative(s.maxProperties)
            : Math.floor((REQUEST_BYTES - 2) / (elem.minSize + 6));
        return { kind: 'map', key: MAP_KEY, elem, maxElements, minSize: 2 };
      }
      const required = new Set(s.required ?? []);
      const fields = new Map<string, Decl>();
      let minSize = 2; // {}
      for (const [name, prop] of Object.entries(s.properties ?? {})) {
        const ft = schemaDecl(prop, prop['x-kubernetes-embedded-resource'] === true);
        if (!ft) continue;
        const escaped = escapeProperty(name);
        if (escaped) fields.set(escaped, ft);
        // a required field without a default is always written: "name": value and a comma
        if (required.has(name) && (prop.default === undefined || prop.default === null))
          minSize += Buffer.byteLength(name) + ft.minSize + 4;
      }
      return { kind: 'object', fields, maxElements: 0, minSize };
    }
    case 'string':
      switch (s.format) {
        case 'byte':
          return {
            kind: 'bytes',
            minSize: 2,
            maxElements: s.maxLength !== undefined ? nonNegative(s.maxLength) : REQUEST_BYTES - 2,
          };
        case 'duration':
          return { kind: 'duration', minSize: 3, maxElements: MAX_DURATION_JSON };
        case 'date':
          return { kind: 'timestamp', minSize: DATE_JSON, maxElements: DATE_JSON };
        case 'date-time':
          return { kind: 'timestamp', minSize: 21, maxElements: MAX_DATETIME_JSON };
        default: {
          // maxLength counts code points; the estimator sizes bytes, up to 4 per code point
          let maxElements = REQUEST_BYTES - 2;
          if (s.maxLength !== undefined) maxElements = nonNegative(s.maxLength) * 4;
          else if (s.enum?.length)
            maxElements = Math.max(0, ...s.enum.map((e) => (typeof e === 'string' ? Buffer.byteLength(e) : 0)));
          return { kind: 'string', minSize: 2, maxElements };
        }
      }
    case 'boolean':
      return { kind: 'bool', maxElements: 0, minSize: 4 };
    case 'number':
      return { kind: 'double', maxElements: 0, minSize: 1 };
    case 'integer':
      return { kind: 'int', maxElements: 0, minSize: 1 };
    default:
      return undefined;
  }
}

/**
 * How many times a rule on a node may run at most, as the rule compilation estimates it when a
 * list or map above the node has no bound: as many copies of the node's smallest JSON form
 * (and a comma each) as fit in a request (apiextensions' maxCardinality).
 */
export function unboundedCardinality(d: Decl): number {
  return Math.floor(REQUEST_BYTES / (d.minSize + 1));
}
