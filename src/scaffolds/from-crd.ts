/**
 * `create api --from-crd`: a CustomResourceDefinition someone else ships (cert-manager's
 * Certificate, a Crossplane provider's Kinds) turned into the TypeScript classes, with
 * kubeforge's markers, from which `kubeforge manifests` writes the same CRD back.
 *
 * Each served version becomes one types file (`<kind>_types.ts` in the version's folder): the
 * Kind's class with its Kind-level markers (@Resource, subresources, printer columns,
 * @StorageVersion, ...), and one class per nested object schema. Where a schema sits decides where
 * its markers go:
 * - a field of an object: decorators on the property, its description as the property's JSDoc;
 * - the items of an array or the values of a map: a named type of its own, a class (decorators
 *   and JSDoc on the class) or a type alias (JSDoc tags), when it has markers or a description;
 *   otherwise the bare type inline.
 * Nested classes are named as a Go author of the API would name them: the Kind, then the field
 * path in PascalCase (`CertificatePrivateKey`, `CertificatePrivateKeyRotation`), an array's item
 * type singular (`IssuerSolver`), numbered only when two paths would share a name.
 *
 * What the markers cannot express (allOf / oneOf / anyOf other than int-or-string, `not`, a
 * default on an array's items, properties beside additionalProperties, ...) is reported as an
 * error naming the schema's path; what they express only approximately (a description that a
 * JSDoc comment cannot hold verbatim, apiVersion / kind / metadata described otherwise than
 * Kubernetes' TypeMeta) is a warning. No ts-morph: the text is written directly, deterministically.
 */
import { LineCounter, parseAllDocuments } from 'yaml';
import { type Diagnostic, error, warning } from '../diagnostics/index.js';
import { pluralize } from '../project/plural.js';
import { RESERVED_WORDS } from './identifiers.js';

type Obj = Record<string, unknown>;

/** The CRD's versions as types files, and what could not be carried over. */
export interface CrdImport {
  group: string;
  kind: string;
  plural: string;
  namespaced: boolean;
  /** One per version of the CRD (served or not), in the CRD's order. */
  versions: ImportedVersion[];
  /** Errors: constructs no marker expresses. Warnings: what is carried over only approximately. */
  problems: Diagnostic[];
}

export interface ImportedVersion {
  version: string;
  served: boolean;
  storage: boolean;
  /** The types file's text (without a license header). */
  text: string;
}

export interface FromCrdOptions {
  /** The file the CRD came from (for the diagnostics' location). */
  file: string;
  /** Only these versions (default: all of them). */
  versions?: readonly string[];
  /** Where a value of the CRD is in its file (from {@link readCrdText}), for the diagnostics' line. */
  locate?: Locate;
}

/** The line and column of the value at `keys` in the CRD's file, when known. */
export type Locate = (keys: readonly (string | number)[]) => { line: number; column: number } | undefined;

const CODE = 'KF1100';

const API_VERSION_DESCRIPTION =
  'APIVersion defines the versioned schema of this representation of an object.\nServers should convert recognized schemas to the latest internal value, and\nmay reject unrecognized values.\nMore info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources';
const KIND_DESCRIPTION =
  'Kind is a string value representing the REST resource this object represents.\nServers may infer this from the endpoint the client submits requests to.\nCannot be updated.\nIn CamelCase.\nMore info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';

/** Names a nested type may not take: TypeScript's globals and the types files' own imports. */
const TAKEN_GLOBALS = [
  'Array',
  'ArrayBuffer',
  'BigInt',
  'Boolean',
  'DataView',
  'Date',
  'Error',
  'Exclude',
  'Extract',
  'Function',
  'Generator',
  'Intl',
  'Iterator',
  'JSON',
  'Map',
  'Math',
  'NonNullable',
  'Number',
  'Object',
  'Omit',
  'Partial',
  'Pick',
  'Promise',
  'Proxy',
  'Readonly',
  'ReadonlyArray',
  'Record',
  'Reflect',
  'RegExp',
  'Required',
  'Set',
  'String',
  'Symbol',
  'Uint8Array',
  'WeakMap',
  'WeakSet',
  'V1ObjectMeta',
  'IntOrString',
  'Quantity',
  'Time',
  'int',
  'int32',
  'int64',
];

/** Every marker this module may import from kubeforge/markers (reserved as names of nested types). */
const MARKER_NAMES = [
  'Default',
  'DeprecatedVersion',
  'EmbeddedResource',
  'Enum',
  'ExclusiveMaximum',
  'ExclusiveMinimum',
  'Example',
  'ExternalDocs',
  'Format',
  'IntOrString',
  'ListMapKey',
  'ListType',
  'MapType',
  'MaxItems',
  'MaxLength',
  'MaxProperties',
  'Maximum',
  'Metadata',
  'MinItems',
  'MinLength',
  'MinProperties',
  'Minimum',
  'MultipleOf',
  'Optional',
  'Pattern',
  'PreserveUnknownFields',
  'PrintColumn',
  'Required',
  'Resource',
  'Root',
  'Schemaless',
  'SelectableField',
  'StorageVersion',
  'StructType',
  'SubresourceScale',
  'SubresourceStatus',
  'Title',
  'Type',
  'UniqueItems',
  'UnservedVersion',
  'XValidation',
];

/** Reads a CRD out of YAML text (the one CustomResourceDefinition of the file, or the one of `kind`). */
export function readCrdText(
  text: string,
  file: string,
  kind?: string,
): { crd?: Obj; locate?: Locate; problems: Diagnostic[] } {
  const lineCounter = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter });
  const crds: { crd: Obj; line: number; locate: Locate }[] = [];
  for (const d of Array.isArray(docs) ? docs : [docs]) {
    if (d.errors.length) {
      const e = d.errors[0];
      return {
        problems: [
          error(CODE, `--from-crd ${file} is not valid YAML: ${e.message.split('\n')[0]}`, {
            file,
            line: e.linePos?.[0]?.line,
            column: e.linePos?.[0]?.col,
            hint: 'pass the YAML file of a CustomResourceDefinition (apiextensions.k8s.io/v1)',
          }),
        ],
      };
    }
    const v = d.toJS() as unknown;
    if (v && typeof v === 'object' && (v as Obj).kind === 'CustomResourceDefinition') {
      const line = d.contents?.range ? text.slice(0, d.contents.range[0]).split('\n').length : 1;
      const locate: Locate = (keys) => {
        for (let n = keys.length; n >= 0; n--) {
          const node = d.getIn(keys.slice(0, n), true) as { range?: [number, number, number] } | undefined;
          if (node?.range) {
            const pos = lineCounter.linePos(node.range[0]);
            return { line: pos.line, column: pos.col };
          }
        }
        return undefined;
      };
      crds.push({ crd: v as Obj, line, locate });
    }
  }
  const matching =
    kind === undefined
      ? crds
      : crds.filter((c) => (c.crd.spec as Obj | undefined)?.names && ((c.crd.spec as Obj).names as Obj).kind === kind);
  if (matching.length === 1) {
    const { crd, line, locate } = matching[0];
    if (crd.apiVersion !== 'apiextensions.k8s.io/v1')
      return {
        problems: [
          error(
            CODE,
            `--from-crd ${file}: the CRD is ${String(crd.apiVersion)}; kubeforge imports apiextensions.k8s.io/v1`,
            {
              file,
              line,
              hint: 'convert it to apiextensions.k8s.io/v1 first (the API server has served only v1 since Kubernetes 1.22)',
            },
          ),
        ],
      };
    return { crd, locate, problems: [] };
  }
  const kinds = crds.map((c) => String(((c.crd.spec as Obj | undefined)?.names as Obj | undefined)?.kind));
  return {
    problems: [
      error(
        CODE,
        crds.length === 0
          ? `--from-crd ${file} holds no CustomResourceDefinition`
          : matching.length === 0
            ? `--from-crd ${file} holds no CRD of Kind ${kind} (it holds ${kinds.join(', ')})`
            : `--from-crd ${file} holds several CRDs (${kinds.join(', ')})`,
        {
          file,
          hint:
            crds.length === 0
              ? 'pass the YAML file of a CustomResourceDefinition (apiextensions.k8s.io/v1)'
              : `pick one with --kind (${kinds.join(', ')})`,
        },
      ),
    ],
  };
}

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** PascalCase of a field name: `privateKey` -> `PrivateKey`, `x-kubernetes-foo` -> `XKubernetesFoo`. */
export function pascal(name: string): string {
  const parts = name.split(/[^A-Za-z0-9]+/).filter(Boolean);
  const out = parts.map((p) => p[0].toUpperCase() + p.slice(1)).join('');
  return /^[A-Za-z]/.test(out) ? out : `X${out}`;
}

/** A list field's item type name, as Go authors name the element type: `solvers` -> `Solver`. */
export function singular(name: string): string {
  if (/ies$/.test(name) && name.length > 4) return `${name.slice(0, -3)}y`;
  if (/(ss|x|ch|sh|us)es$/.test(name)) return name.slice(0, -2);
  if (/ss$/.test(name) || /us$/.test(name) || /is$/.test(name)) return name;
  if (/s$/.test(name) && name.length > 1) return name.slice(0, -1);
  return name;
}

/** A JavaScript string literal in single quotes. */
function quote(s: string): string {
  return `'${s
    .replace(/\\/g, '\\\\')
    .replace(/'/g, "\\'")
    .replace(/\n/g, '\\n')
    .replace(/\r/g, '\\r')
    .replace(/\t/g, '\\t')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029')}'`;
}

/** A JSON value as a TypeScript literal (strings single-quoted, keys bare where they can be). */
function literal(v: unknown): string {
  if (typeof v === 'string') return quote(v);
  if (Array.isArray(v)) return `[${v.map(literal).join(', ')}]`;
  if (isObj(v)) {
    const entries = Object.entries(v).map(([k, x]) => `${propertyName(k)}: ${literal(x)}`);
    return entries.length ? `{ ${entries.join(', ')} }` : '{}';
  }
  return JSON.stringify(v);
}

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function propertyName(k: string): string {
  return IDENT.test(k) ? k : quote(k);
}

/** Lines of a JSDoc comment for `description`, and why kubeforge would read back another text (if it would). */
function docLines(description: string): { lines: string[]; why?: string } {
  const raw = description.split('\n');
  let why: string | undefined;
  let inCode = false;
  for (const l of raw) {
    if (l.startsWith('```') || l.startsWith('~~~')) inCode = !inCode;
    if (/\s$/.test(l)) why ??= 'a line ends in spaces';
    if (/^\s*@/.test(l)) why ??= 'a line starts with @ (a JSDoc tag)';
    if (l.includes('*/')) why ??= 'it holds "*/"';
    if (!inCode && l.startsWith('TODO')) why ??= 'a line starts with TODO (dropped, as controller-gen drops it)';
    if (!inCode && l.startsWith('---')) why ??= 'a line starts with --- (ends a description, as in controller-gen)';
  }
  if (raw[0] === '' || raw[raw.length - 1] === '') why ??= 'it starts or ends with a blank line';
  if (/\n\n\n/.test(description)) why ??= 'it has two blank lines in a row (one paragraph break is kept)';
  const lines = raw.map((l) => l.replace(/\*\//g, '*\\/').replace(/\r/g, ''));
  return { lines, why };
}

/** Where a schema sits: a field of an object, or a named slot (an array's items, a map's values). */
type Slot = 'field' | 'named';

interface Emitted {
  /** The TypeScript type expression. */
  type: string;
  /** Decorators (field slot only), in order. */
  decorators: string[];
}

interface Decl {
  name: string;
  text: string;
}

class VersionWriter {
  private readonly decls: Decl[] = [];
  /** The field segment of each nested class's name (`PrivateKey` for CertificatePrivateKey). */
  private readonly segments = new Map<string, string>();
  /** Named types already declared, by their schema (see emit). */
  private readonly shared = new Map<string, string>();
  private readonly taken = new Set<string>();
  readonly usedMarkers = new Set<string>();
  readonly typeImports = new Set<string>();
  constructor(
    private readonly kind: string,
    private readonly version: string,
    private readonly file: string,
    private readonly problems: Diagnostic[],
    /** `spec.versions[i]` of this version, and the CRD's locator. */
    private readonly versionIndex = 0,
    private readonly locate?: Locate,
  ) {
    for (const n of [...RESERVED_WORDS, ...TAKEN_GLOBALS, ...MARKER_NAMES]) this.taken.add(n);
    this.taken.add(kind);
  }

  /** A fresh type name: the preferred one when free, else the alternatives, else numbered. */
  claim(...candidates: string[]): string {
    let name = candidates.find((c) => !this.taken.has(c));
    const base = candidates[candidates.length - 1];
    for (let i = 2; name === undefined; i++) if (!this.taken.has(`${base}${i}`)) name = `${base}${i}`;
    this.taken.add(name);
    return name;
  }

  /** Where the schema at `path` (`openAPIV3Schema.spec.foo[*]`), or its keyword `key`, is in the file. */
  private where(path: string, key?: string): { file: string; line?: number; column?: number } {
    const keys: (string | number)[] = ['spec', 'versions', this.versionIndex, 'schema'];
    for (const m of path.matchAll(/(\[\*\])|(\{\*\})|\.?([^.[{]+)/g)) {
      if (m[1]) keys.push('items');
      else if (m[2]) keys.push('additionalProperties');
      else if (keys.length === 4) keys.push(m[3]);
      else keys.push('properties', m[3]);
    }
    if (key !== undefined) keys.push(key);
    return { file: this.file, ...this.locate?.(keys) };
  }

  fail(path: string, message: string, hint: string, key?: string): void {
    this.problems.push(
      error(CODE, `${this.kind} ${this.version}: ${path}: ${message}`, { ...this.where(path, key), hint }),
    );
  }

  warn(path: string, message: string, hint: string, key?: string): void {
    this.problems.push(
      warning(CODE, `${this.kind} ${this.version}: ${path}: ${message}`, { ...this.where(path, key), hint }),
    );
  }

  marker(name: string, args = ''): string {
    this.usedMarkers.add(name);
    return `@${name === this.kind ? `${name}Marker` : name}(${args})`;
  }

  /** A type imported from kubeforge/markers, by the name the file gives it. */
  typeRef(name: string): string {
    this.typeImports.add(name);
    return name === this.kind ? `${name}Type` : name;
  }

  doc(description: string | undefined, path: string, indent: string, tags: string[] = []): string {
    if (description === undefined && tags.length === 0) return '';
    const out: string[] = [`${indent}/**`];
    if (description !== undefined) {
      const { lines, why } = docLines(description);
      if (why)
        this.warn(
          path,
          `its description cannot be written verbatim as a JSDoc comment (${why}): the CRD kubeforge writes describes it slightly differently`,
          'edit the comment in the types file if the difference matters',
        );
      for (const l of lines) out.push(l === '' ? `${indent} *` : `${indent} * ${l}`);
      if (tags.length) out.push(`${indent} *`);
    }
    for (const t of tags) out.push(`${indent} * ${t}`);
    out.push(`${indent} */`);
    return `${out.join('\n')}\n`;
  }

  /**
   * The type of `s` at `path` and, in a field slot, the decorators of its markers. In a named slot
   * (items, map values) a schema with markers or a description becomes a named type.
   */
  emit(s: unknown, path: string, slot: Slot, nameHint: string[]): Emitted {
    if (!isObj(s)) {
      this.fail(path, 'is not a schema object', 'fix the CRD');
      return { type: 'unknown', decorators: [] };
    }
    const keys = new Set(Object.keys(s));
    const take = (k: string) => {
      keys.delete(k);
      return s[k];
    };
    const markers: { name: string; args: string; tag: string }[] = [];
    const add = (name: string, args: string, tag: string) => markers.push({ name, args, tag });
    const description = take('description') as string | undefined;
    if (description !== undefined && typeof description !== 'string')
      this.fail(path, 'has a description that is not a string', 'fix the CRD');
    const nullable = take('nullable') === true;
    keys.delete('nullable');
    const schemaType = take('type');
    const t = this.typeOf(s, schemaType, keys, take, add, path, slot, nameHint);
    let type = t.type;
    const { objectClass, reused, needsPreserve } = t;
    keys.delete('required');
    if (s.required !== undefined && objectClass === undefined && (s.required as unknown[]).length > 0)
      this.fail(path, 'lists required fields but has no properties', 'drop required, or declare the fields');
    const kw = this.keywords(s, keys, path, slot, { type, isClass: objectClass !== undefined, needsPreserve });
    markers.push(...kw.markers);
    type = kw.type;
    if (nullable) type = `${type} | null`;
    if (slot === 'field')
      return {
        type,
        decorators: markers.map((m) => this.marker(m.name, m.args)),
      };
    return this.namedSlot(s, { type, objectClass, reused, description, nullable, markers, path, nameHint });
  }

  /** The TypeScript type of a schema by its `type` (and int-or-string), and the class it made. */
  private typeOf(
    s: Record<string, unknown>,
    schemaType: unknown,
    keys: Set<string>,
    take: (k: string) => unknown,
    add: (name: string, args: string, tag: string) => void,
    path: string,
    slot: Slot,
    nameHint: string[],
  ): { type: string; objectClass?: string; reused: boolean; needsPreserve: boolean } {
    let type: string;
    const intOrString = s['x-kubernetes-int-or-string'] === true;
    const anyOf = s.anyOf;
    let needsPreserve = false;
    let objectClass: string | undefined;
    let reused = false;
    if (intOrString && Array.isArray(anyOf) && isIntOrStringAnyOf(anyOf) && schemaType === undefined) {
      take('anyOf');
      take('x-kubernetes-int-or-string');
      if (s.pattern === QUANTITY_PATTERN) take('pattern');
      type = this.typeRef(s.pattern === QUANTITY_PATTERN ? 'Quantity' : 'IntOrString');
    } else if (intOrString) {
      take('x-kubernetes-int-or-string');
      add('IntOrString', '', '@intOrString');
      if (schemaType === undefined) {
        type = this.typeRef('IntOrString');
        add('Schemaless', '', '@schemaless');
      } else type = schemaType === 'integer' ? this.typeRef('int') : 'string';
    } else {
      switch (schemaType) {
        case 'string': {
          const format = s.format;
          if (format === 'date-time') {
            take('format');
            type = this.typeRef('Time');
          } else type = 'string';
          break;
        }
        case 'integer': {
          const format = s.format;
          if (format === 'int32' || format === 'int64') {
            take('format');
            type = this.typeRef(format);
          } else type = this.typeRef('int');
          break;
        }
        case 'number':
          type = 'number';
          break;
        case 'boolean':
          type = 'boolean';
          break;
        case 'array': {
          const items = take('items');
          if (items === undefined) {
            this.fail(path, 'is an array without items', 'give the array an items schema');
            type = 'unknown[]';
          } else if (Array.isArray(items)) {
            this.fail(path, 'has a list of item schemas (a tuple)', 'use one items schema');
            type = 'unknown[]';
          } else {
            const item = this.emit(items, `${path}[*]`, 'named', nameHint.map(singular));
            type = /[|&]/.test(item.type) ? `(${item.type})[]` : `${item.type}[]`;
          }
          break;
        }
        case 'object': {
          ({ type, objectClass, reused, needsPreserve } = this.objectType(s, keys, take, path, slot, nameHint));
          break;
        }
        case undefined:
          if (s['x-kubernetes-preserve-unknown-fields'] === true) {
            type = 'unknown';
            needsPreserve = true;
          } else {
            type = 'unknown';
            add('Schemaless', '', '@schemaless');
          }
          break;
        default:
          this.fail(
            path,
            `has type ${JSON.stringify(schemaType)}`,
            'use string, integer, number, boolean, array or object',
          );
          type = 'unknown';
      }
    }
    return { type, objectClass, reused, needsPreserve };
  }

  /** The type of an object schema: a record, a class (one per distinct object), or a free object. */
  private objectType(
    s: Record<string, unknown>,
    keys: Set<string>,
    take: (k: string) => unknown,
    path: string,
    slot: Slot,
    nameHint: string[],
  ): { type: string; objectClass?: string; reused: boolean; needsPreserve: boolean } {
    let type: string;
    let objectClass: string | undefined;
    let reused = false;
    let needsPreserve = false;
    const props = take('properties');
    const additional = take('additionalProperties');
    const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
    if (props !== undefined && additional !== undefined) {
      this.fail(
        path,
        'has both properties and additionalProperties',
        'a TypeScript class is either an object of fields or a record: split the schema',
      );
      type = 'unknown';
    } else if (additional !== undefined) {
      if (additional === true || additional === false || !isObj(additional)) {
        this.fail(
          path,
          `has additionalProperties: ${JSON.stringify(additional)}`,
          'give additionalProperties a schema (structural schemas have no boolean additionalProperties)',
        );
        type = 'unknown';
      } else {
        const v = this.emit(
          additional,
          `${path}{*}`,
          'named',
          nameHint.map((n) => `${n}Value`),
        );
        type = `Record<string, ${v.type}>`;
      }
    } else if (isObj(props) && Object.keys(props).length > 0) {
      // One class per distinct object (as a Go API reuses one struct): a field's object is
      // its properties (the field carries the rest); an item's, its whole schema.
      const shareKey = `${slot}:${JSON.stringify(sortKeys(slot === 'field' ? { props, required: s.required } : s))}`;
      objectClass = this.shared.get(shareKey);
      if (objectClass) reused = true;
      else {
        objectClass = this.claim(...nameHint);
        this.shared.set(shareKey, objectClass);
        this.segments.set(objectClass, nameHint[0].slice(this.kind.length));
        this.objectClass(objectClass, s, props, path);
      }
      keys.delete('required');
      type = objectClass;
    } else if (preserve) {
      type = 'object';
      needsPreserve = true;
    } else {
      type = this.emptyObject();
      keys.delete('required');
    }
    return { type, objectClass, reused, needsPreserve };
  }

  /** The type of a named slot (an array item, a map value): markers and a description need a named type. */
  private namedSlot(
    s: Record<string, unknown>,
    e: {
      type: string;
      objectClass?: string;
      reused: boolean;
      description?: string;
      nullable: boolean;
      markers: { name: string; args: string; tag: string }[];
      path: string;
      nameHint: string[];
    },
  ): Emitted {
    const { type, objectClass, reused, description, nullable, markers, path, nameHint } = e;
    if (!markers.length && description === undefined) return { type, decorators: [] };
    if (objectClass) {
      // The class itself carries them (a reused one has them already).
      if (reused) return { type, decorators: [] };
      this.decorateClass(
        objectClass,
        description,
        markers.map((m) => this.marker(m.name, m.args)),
        path,
      );
      return { type, decorators: [] };
    }
    for (const m of markers)
      if (m.tag.includes('*/'))
        this.fail(
          path,
          `its ${m.name} holds "*/", which would end the JSDoc comment of the type alias that carries it`,
          'kubeforge writes the markers of an array item or map value that is not an object as JSDoc tags: change the value in the CRD (e.g. [*]/ for */ in a pattern)',
        );
    const aliasKey = `alias:${JSON.stringify(sortKeys(s))}`;
    const known = this.shared.get(aliasKey);
    if (known) return { type: nullable ? `${known} | null` : known, decorators: [] };
    const alias = this.claim(...nameHint);
    this.shared.set(aliasKey, alias);
    const base = nullable ? type.replace(/ \| null$/, '') : type;
    this.decls.push({
      name: alias,
      text: `${this.doc(
        description,
        path,
        '',
        markers.map((m) => m.tag),
      )}export type ${alias} = ${base};\n`,
    });
    return { type: nullable ? `${alias} | null` : alias, decorators: [] };
  }

  /** The markers of a schema's validation keywords (those left in `keys`); refuses the keywords no marker writes. */
  keywords(
    s: Obj,
    keys: Set<string>,
    path: string,
    slot: Slot,
    state: { type: string; isClass: boolean; needsPreserve: boolean },
  ): { markers: { name: string; args: string; tag: string }[]; type: string } {
    const take = (k: string) => {
      keys.delete(k);
      return s[k];
    };
    const markers: { name: string; args: string; tag: string }[] = [];
    const add = (name: string, args: string, tag: string) => markers.push({ name, args, tag });
    let { type } = state;
    const { needsPreserve, isClass: objectClass } = state;
    // Validation keywords, in the order controller-gen's markers write them.
    const num = (k: string, name: string) => {
      if (keys.has(k)) {
        const v = take(k);
        add(name, JSON.stringify(v), `@${lowerFirst(name)} ${JSON.stringify(v)}`);
      }
    };
    if (keys.has('format')) {
      const f = take('format') as string;
      add('Format', quote(f), `@format ${f}`);
    }
    num('maximum', 'Maximum');
    if (keys.has('exclusiveMaximum')) {
      if (take('exclusiveMaximum') === true) add('ExclusiveMaximum', '', '@exclusiveMaximum');
      else this.fail(path, 'has exclusiveMaximum: false', 'drop it (false is the default)');
    }
    num('minimum', 'Minimum');
    if (keys.has('exclusiveMinimum')) {
      if (take('exclusiveMinimum') === true) add('ExclusiveMinimum', '', '@exclusiveMinimum');
      else this.fail(path, 'has exclusiveMinimum: false', 'drop it (false is the default)');
    }
    num('multipleOf', 'MultipleOf');
    num('maxLength', 'MaxLength');
    num('minLength', 'MinLength');
    if (keys.has('pattern')) {
      const p = take('pattern') as string;
      add('Pattern', quote(p), `@pattern ${p}`);
      if (p !== p.trim() || p.includes('\n'))
        if (slot === 'named')
          this.fail(path, 'has a pattern with spaces at its ends or a line break', 'a JSDoc tag cannot hold it');
    }
    num('maxItems', 'MaxItems');
    num('minItems', 'MinItems');
    if (keys.has('uniqueItems')) {
      if (take('uniqueItems') === true) add('UniqueItems', '', '@uniqueItems');
      else this.fail(path, 'has uniqueItems: false', 'drop it (false is the default)');
    }
    num('maxProperties', 'MaxProperties');
    num('minProperties', 'MinProperties');
    if (keys.has('enum')) {
      const values = take('enum') as unknown[];
      add('Enum', values.map(literal).join(', '), `@enum ${JSON.stringify(values)}`);
      if (slot === 'field' && values.length && values.every((v) => typeof v === 'string') && type === 'string')
        type = values.map((v) => quote(v as string)).join(' | ');
    }
    if (keys.has('title')) {
      const t = take('title') as string;
      add('Title', quote(t), `@title ${t}`);
    }
    if (keys.has('externalDocs')) {
      const d = take('externalDocs');
      add('ExternalDocs', literal(d), `@externalDocs ${JSON.stringify(d)}`);
    }
    this.extensionKeywords(s, keys, path, slot, add, { isClass: objectClass, needsPreserve });
    return { markers, type };
  }

  /** The markers of a schema's Kubernetes extensions, default and example (after the validation keywords); refuses the rest. */
  private extensionKeywords(
    s: Obj,
    keys: Set<string>,
    path: string,
    slot: Slot,
    add: (name: string, args: string, tag: string) => void,
    state: { isClass: boolean; needsPreserve: boolean },
  ): void {
    const take = (k: string) => {
      keys.delete(k);
      return s[k];
    };
    let { needsPreserve } = state;
    const objectClass = state.isClass;
    if (keys.has('x-kubernetes-preserve-unknown-fields')) {
      if (take('x-kubernetes-preserve-unknown-fields') === true) needsPreserve = true;
      else this.fail(path, 'has x-kubernetes-preserve-unknown-fields: false', 'drop it (false is the default)');
    }
    if (needsPreserve) add('PreserveUnknownFields', '', '@preserveUnknownFields');
    if (keys.has('x-kubernetes-embedded-resource')) {
      if (take('x-kubernetes-embedded-resource') === true) add('EmbeddedResource', '', '@embeddedResource');
      else this.fail(path, 'has x-kubernetes-embedded-resource: false', 'drop it (false is the default)');
    }
    if (keys.has('x-kubernetes-list-type')) {
      const t = take('x-kubernetes-list-type') as string;
      add('ListType', quote(t), `@listType ${t}`);
    }
    if (keys.has('x-kubernetes-list-map-keys')) {
      const k = take('x-kubernetes-list-map-keys') as string[];
      add('ListMapKey', k.map(quote).join(', '), `@listMapKey ${JSON.stringify(k)}`);
    }
    if (keys.has('x-kubernetes-map-type')) {
      const t = take('x-kubernetes-map-type') as string;
      const name = objectClass ? 'StructType' : 'MapType';
      add(name, quote(t), `@${lowerFirst(name)} ${t}`);
    }
    if (keys.has('x-kubernetes-validations')) {
      for (const r of take('x-kubernetes-validations') as unknown[]) {
        const rule = isObj(r) ? r : {};
        const args: Obj = {};
        for (const k of ['rule', 'message', 'messageExpression', 'reason', 'fieldPath', 'optionalOldSelf'])
          if (rule[k] !== undefined) args[k] = rule[k];
        add('XValidation', literal(args), `@xValidation ${JSON.stringify(args)}`);
      }
    }
    if (keys.has('default')) {
      const d = take('default');
      if (slot === 'named')
        this.fail(
          path,
          'has a default on an array item or map value',
          'kubeforge takes defaults on fields only (@Default)',
        );
      else add('Default', literal(d), '');
    }
    if (keys.has('example')) {
      const d = take('example');
      if (slot === 'named')
        this.fail(
          path,
          'has an example on an array item or map value',
          'kubeforge takes examples on fields only (@Example)',
        );
      else add('Example', literal(d), '');
    }
    for (const k of [...keys].sort())
      this.fail(
        path,
        `uses ${k}, which no kubeforge marker writes`,
        k === 'allOf' || k === 'anyOf' || k === 'oneOf' || k === 'not'
          ? 'express the constraint as a CEL rule (x-kubernetes-validations), which @XValidation writes'
          : 'remove it from the CRD, or add it to the generated CRD with a kustomize patch',
        k,
      );
  }

  private emptyName: string | undefined;
  /** The class of objects without fields (`type: object` alone), declared once per file. */
  private emptyObject(): string {
    if (this.emptyName) return this.emptyName;
    const name = this.claim('EmptyObject', `${this.kind}EmptyObject`);
    this.emptyName = name;
    this.decls.push({
      name,
      // A line comment, not JSDoc: a type's JSDoc would describe every field of this type without a description.
      text: `// An object without fields of its own (\`type: object\`).\nexport class ${name} {}\n`,
    });
    return name;
  }

  private readonly classes = new Map<string, { head: string; body: string }>();

  /** Declares the class `name` for an object schema's properties. */
  objectClass(name: string, s: Obj, props: Obj, path: string): void {
    const entry = { head: '', body: '' };
    this.classes.set(name, entry);
    const decl: Decl = { name, text: '' };
    this.decls.push(decl);
    entry.body = this.fields(s, props, path, name);
    Object.defineProperty(decl, 'text', {
      get: () => `${entry.head}export class ${name} {\n${entry.body}}\n`,
    });
  }

  decorateClass(name: string, description: string | undefined, decorators: string[], path: string): void {
    const entry = this.classes.get(name);
    if (!entry) throw new Error(`from-crd: decorating ${name}, which objectClass has not declared`);
    entry.head = `${this.doc(description, path, '')}${decorators.map((d) => `${d}\n`).join('')}`;
  }

  /** The fields of an object schema, as class members. */
  fields(s: Obj, props: Obj, path: string, owner: string): string {
    const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
    for (const r of required) {
      if (path === 'openAPIV3Schema' && (r === 'apiVersion' || r === 'kind' || r === 'metadata')) continue;
      if (!(r in props)) this.fail(path, `lists "${r}" as required, which is not one of its properties`, 'fix the CRD');
    }
    const out: string[] = [];
    for (const key of Object.keys(props).sort()) {
      const child = props[key];
      const fpath = `${path}.${key}`;
      if (key === 'constructor' || key === '__proto__')
        this.fail(fpath, `a class cannot declare a field named ${key}`, 'kubeforge cannot import this field');
      // As a Go author names a nested struct: the Kind and the field (CertificatePrivateKey); where
      // that name is taken, the Kind, the parent's field and the field (IssuerLabelSelectorMatchExpression);
      // then the parent's name and the field.
      const seg = pascal(key);
      const hints = [`${this.kind}${seg}`, `${this.kind}${this.segments.get(owner) ?? ''}${seg}`, `${owner}${seg}`];
      const e = this.emit(child, fpath, 'field', hints);
      const description = isObj(child) && typeof child.description === 'string' ? child.description : undefined;
      const opt = required.has(key) ? '!' : '?';
      out.push(
        `${out.length ? '\n' : ''}${this.doc(description, fpath, '  ')}${e.decorators.map((d) => `  ${d}\n`).join('')}  ${propertyName(key)}${opt}: ${e.type};\n`,
      );
    }
    return out.join('');
  }

  declarations(): string {
    return this.decls.map((d) => d.text).join('\n');
  }
}

const QUANTITY_PATTERN =
  '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$';

function isIntOrStringAnyOf(anyOf: unknown[]): boolean {
  return (
    anyOf.length === 2 &&
    isObj(anyOf[0]) &&
    isObj(anyOf[1]) &&
    Object.keys(anyOf[0]).length === 1 &&
    Object.keys(anyOf[1]).length === 1 &&
    anyOf[0].type === 'integer' &&
    anyOf[1].type === 'string'
  );
}

function lowerFirst(s: string): string {
  return s[0].toLowerCase() + s.slice(1);
}

/**
 * The types files of a CRD: one per version (all of them, or `options.versions`). Never throws on
 * a CRD's content: what cannot be imported is in `problems`.
 */
export function typesFromCrd(crd: Obj, options: FromCrdOptions): CrdImport {
  const problems: Diagnostic[] = [];
  const file = options.file;
  const spec = isObj(crd.spec) ? crd.spec : {};
  const names = isObj(spec.names) ? spec.names : {};
  const kind = String(names.kind ?? '');
  const group = String(spec.group ?? '');
  const plural = String(names.plural ?? '');
  const namespaced = spec.scope !== 'Cluster';
  const result: CrdImport = { group, kind, plural, namespaced, versions: [], problems };
  if (!/^[A-Z][A-Za-z0-9]*$/.test(kind)) {
    problems.push(
      error(CODE, `--from-crd ${file}: spec.names.kind "${kind}" is not a PascalCase Kind`, {
        file,
        hint: 'pass a CRD of a Kind such as Certificate',
      }),
    );
    return result;
  }
  if (names.listKind !== undefined && names.listKind !== `${kind}List`)
    problems.push(
      error(CODE, `${kind}: spec.names.listKind is ${String(names.listKind)}; kubeforge writes ${kind}List`, {
        file,
        ...options.locate?.(['spec', 'names', 'listKind']),
        hint: 'kubeforge (as controller-gen) names the list Kind <Kind>List',
      }),
    );
  const conversion = isObj(spec.conversion) ? spec.conversion : undefined;
  if (conversion && conversion.strategy !== 'None' && conversion.strategy !== undefined)
    problems.push(
      warning(CODE, `${kind}: spec.conversion (strategy ${String(conversion.strategy)}) is not imported`, {
        file,
        ...options.locate?.(['spec', 'conversion']),
        hint: 'add @ConversionWebhook() to the hub version, or run `kubeforge create webhook --conversion`',
      }),
    );
  if (spec.preserveUnknownFields === true)
    problems.push(
      error(CODE, `${kind}: spec.preserveUnknownFields: true is not a structural CRD`, {
        file,
        ...options.locate?.(['spec', 'preserveUnknownFields']),
        hint: 'set x-kubernetes-preserve-unknown-fields on the schemas that keep unknown fields instead',
      }),
    );
  const versions = Array.isArray(spec.versions) ? (spec.versions as Obj[]) : [];
  const multi = versions.length > 1;
  const resourceArgs: string[] = [];
  if (plural !== pluralize(kind)) resourceArgs.push(`path: ${quote(plural)}`);
  if (Array.isArray(names.shortNames) && names.shortNames.length)
    resourceArgs.push(`shortName: ${literal(names.shortNames)}`);
  if (Array.isArray(names.categories) && names.categories.length)
    resourceArgs.push(`categories: ${literal(names.categories)}`);
  if (names.singular !== undefined && names.singular !== kind.toLowerCase())
    resourceArgs.push(`singular: ${quote(String(names.singular))}`);
  if (!namespaced) resourceArgs.push("scope: 'Cluster'");
  const metadata = isObj(crd.metadata) ? crd.metadata : {};
  const annotations = Object.fromEntries(
    Object.entries(isObj(metadata.annotations) ? metadata.annotations : {}).filter(
      ([k]) => k !== 'controller-gen.kubebuilder.io/version' && k !== 'kubeforge.io/version',
    ),
  );
  const labels = isObj(metadata.labels) ? metadata.labels : {};
  const storageName = versions.find((v) => v.storage === true)?.name;
  for (const v of versions) {
    const version = String(v.name);
    if (options.versions && !options.versions.includes(version)) continue;
    const w = new VersionWriter(kind, version, file, problems, versions.indexOf(v), options.locate);
    const kindMarkers = kindMarkersOf(w, v, { version, multi, storageName, resourceArgs, annotations, labels });
    const schema = isObj(v.schema) && isObj(v.schema.openAPIV3Schema) ? v.schema.openAPIV3Schema : undefined;
    if (!schema) w.fail('openAPIV3Schema', 'is missing', 'give the version a schema');
    const body = schema ? kindBody(w, schema, kind) : { doc: '', markers: [], fields: '' };
    // A Kind that requires apiVersion, kind or metadata (cert-manager's Challenge requires metadata).
    const rootRequired = schema && Array.isArray(schema.required) ? (schema.required as unknown[]) : [];
    const req = (f: string) => (rootRequired.includes(f) ? `  ${w.marker('Required')}\n` : '');
    const statics = [
      `  /** The handle kubeforge/runtime addresses this Kind by: \`client.get(${kind}, ...)\`, \`for(${kind})\`. */`,
      `  static readonly gvk = { group: ${quote(group)}, version: ${quote(version)}, kind: ${quote(kind)} } as const;`,
      `  static readonly plural = ${quote(plural)};`,
      `  static readonly namespaced = ${namespaced};`,
      '',
      `${req('apiVersion')}  apiVersion?: string = ${quote(group ? `${group}/${version}` : version)};`,
      `${req('kind')}  kind?: string = ${quote(kind)};`,
      '',
      '  /** metadata is a standard object metadata */',
      `${req('metadata')}  metadata?: V1ObjectMeta;`,
    ].join('\n');
    const kindClass = `${body.doc}${[...kindMarkers, ...body.markers].map((d) => `${d}\n`).join('')}export class ${kind} {\n${statics}\n${body.fields ? `\n${body.fields}` : ''}}\n`;
    const markerImports = [...w.usedMarkers].sort().map((n) => (n === kind ? `${n} as ${n}Marker` : n));
    const typeImports = [...w.typeImports].sort().map((n) => `type ${n === kind ? `${n} as ${n}Type` : n}`);
    const metaImport = kind === 'V1ObjectMeta' ? 'V1ObjectMeta as K8sV1ObjectMeta' : 'V1ObjectMeta';
    const text = [
      `import type { ${metaImport} } from '@kubernetes/client-node';`,
      `import { ${[...markerImports, ...typeImports].join(', ')} } from 'kubeforge/markers';`,
      '',
      `// The ${kind} API (${group}/${version}), imported from its CustomResourceDefinition by`,
      '// `kubeforge create api --from-crd`: `kubeforge manifests` writes that CRD back from these classes.',
      '',
      kindClass,
      w.declarations(),
    ]
      .join('\n')
      .replace(/\n{3,}/g, '\n\n')
      .replace(/\n*$/, '\n');
    result.versions.push({
      version,
      served: v.served !== false,
      storage: v.storage === true,
      text: kind === 'V1ObjectMeta' ? text.replace('metadata?: V1ObjectMeta;', 'metadata?: K8sV1ObjectMeta;') : text,
    });
  }
  return result;
}

/** The markers on a version's Kind class: root, subresources, resource names, columns, version flags, CRD metadata. */
function kindMarkersOf(
  w: VersionWriter,
  v: Obj,
  o: {
    version: string;
    multi: boolean;
    storageName: unknown;
    resourceArgs: string[];
    annotations: Obj;
    labels: Obj;
  },
): string[] {
  const { version, multi, storageName, resourceArgs, annotations, labels } = o;
  const kindMarkers: string[] = [w.marker('Root')];
  const subresources = isObj(v.subresources) ? v.subresources : {};
  if (subresources.status !== undefined) kindMarkers.push(w.marker('SubresourceStatus'));
  if (isObj(subresources.scale)) {
    const sc = subresources.scale;
    const args: Obj = { specpath: sc.specReplicasPath, statuspath: sc.statusReplicasPath };
    if (sc.labelSelectorPath !== undefined) args.selectorpath = sc.labelSelectorPath;
    kindMarkers.push(w.marker('SubresourceScale', literal(args)));
  }
  if (resourceArgs.length) kindMarkers.push(w.marker('Resource', `{ ${resourceArgs.join(', ')} }`));
  for (const c of Array.isArray(v.additionalPrinterColumns) ? (v.additionalPrinterColumns as Obj[]) : []) {
    const args: Obj = { name: c.name, type: c.type, jsonPath: c.jsonPath };
    for (const k of ['description', 'format', 'priority']) if (c[k] !== undefined) args[k] = c[k];
    kindMarkers.push(w.marker('PrintColumn', literal(args)));
  }
  for (const f of Array.isArray(v.selectableFields) ? (v.selectableFields as Obj[]) : [])
    kindMarkers.push(w.marker('SelectableField', literal({ jsonPath: f.jsonPath })));
  if (multi && v.storage === true) kindMarkers.push(w.marker('StorageVersion'));
  if (v.served === false) kindMarkers.push(w.marker('UnservedVersion'));
  if (v.deprecated === true)
    kindMarkers.push(
      w.marker(
        'DeprecatedVersion',
        v.deprecationWarning !== undefined ? literal({ warning: v.deprecationWarning }) : '',
      ),
    );
  if ((version === storageName || !multi) && (Object.keys(annotations).length || Object.keys(labels).length)) {
    const args: Obj = {};
    if (Object.keys(annotations).length) args.annotations = annotations;
    if (Object.keys(labels).length) args.labels = labels;
    kindMarkers.push(w.marker('Metadata', literal(args)));
  }
  return kindMarkers;
}

/** The Kind's own schema: apiVersion, kind and metadata as kubeforge writes them, its other fields, its markers. */
function kindBody(w: VersionWriter, schema: Obj, kind: string): { doc: string; markers: string[]; fields: string } {
  const props = isObj(schema.properties) ? { ...schema.properties } : {};
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  const checks: [string, unknown][] = [
    ['apiVersion', { description: API_VERSION_DESCRIPTION, type: 'string' }],
    ['kind', { description: KIND_DESCRIPTION, type: 'string' }],
    ['metadata', { type: 'object' }],
  ];
  for (const [name, expected] of checks) {
    const got = props[name];
    if (!same(sortKeys(got), sortKeys(expected)))
      w.warn(
        `openAPIV3Schema.${name}`,
        got === undefined
          ? `is not declared, and kubeforge writes it (${JSON.stringify(expected)})`
          : `differs from the schema kubeforge writes for ${name} (${JSON.stringify(expected)})`,
        `kubeforge writes ${name} as controller-gen does for Kubernetes' ${name === 'metadata' ? 'ObjectMeta' : 'TypeMeta'}`,
      );
    delete props[name];
  }
  // The Kind's own markers (validation rules and such): the keywords beside its fields.
  const keys = new Set(
    Object.keys(schema).filter((k) => !['description', 'type', 'properties', 'required'].includes(k)),
  );
  if (schema.type !== 'object') w.fail('openAPIV3Schema', 'is not of type object', 'a Kind is an object');
  const kw = w.keywords(schema, keys, 'openAPIV3Schema', 'field', { type: kind, isClass: true, needsPreserve: false });
  const markers = kw.markers.map((m) => w.marker(m.name, m.args));
  const fields = w.fields(schema, props, 'openAPIV3Schema', kind);
  const doc = w.doc(typeof schema.description === 'string' ? schema.description : undefined, 'openAPIV3Schema', '');
  return { doc, markers, fields };
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (isObj(v))
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortKeys(v[k])]),
    );
  return v;
}
