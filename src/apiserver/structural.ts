/**
 * What the API server does with a value from a CRD's structural schema: pruning of unknown fields,
 * defaulting, and the OpenAPI value validations in apiextensions-apiserver's words (kube-openapi's
 * messages turned into field errors). The one implementation: the fake API server runs it on custom
 * resources' bodies, the manifests check on a CRD's defaults. CEL rules run separately (packages/cel's
 * validateObject). Validation ratcheting on update (the fake's) drops an error on a value that did
 * not change, from the `at` of each error.
 */
import {
  type FieldErrorType,
  fieldErrorBody,
  GoStructJSON,
  goQuote,
  OMITTED_VALUE,
} from '../util/apimachinery/field.js';
import { re2Matches, goRegexpError } from '#cel/re2';
import { type Obj, clone, goFloat, isObj } from './json.js';

/** The part of JSONSchemaProps the server acts on. */
export interface Schema {
  type?: string;
  format?: string;
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  items?: Schema;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  nullable?: boolean;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minProperties?: number;
  maxProperties?: number;
  allOf?: Schema[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  not?: Schema;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: string;
  'x-kubernetes-validations'?: unknown[];
}

/** One field error, as apimachinery's field.Error (type is the cause reason). */
export interface FieldErr {
  type: FieldErrorType;
  field: string;
  /** Absent: the message shows no value. */
  value?: unknown;
  detail?: string;
  /** Set by the path walker: the value's location, for ratcheting. */
  at?: (string | number)[];
}

/** `Invalid value: 0: spec.replicas in body should be ...` (field.Error.ErrorBody, the runtime's FieldErrors wording). */
export function errorBody(e: FieldErr): string {
  return fieldErrorBody({
    type: e.type,
    field: e.field,
    badValue: 'value' in e ? e.value : OMITTED_VALUE,
    detail: e.detail,
  });
}

export function errorString(e: FieldErr): string {
  return `${e.field}: ${errorBody(e)}`;
}

/** Items of `allOf` etc. do not prune or default (structural schemas keep them value-only). */
function propSchema(s: Schema | undefined, key: string): Schema | undefined {
  if (!s) return undefined;
  if (s.properties && key in s.properties) return s.properties[key];
  if (isObj(s.additionalProperties)) return s.additionalProperties;
  return undefined;
}

const ROOT_KEEP = new Set(['apiVersion', 'kind', 'metadata']);

/**
 * Drops fields the schema does not know (in place); returns the dropped paths (`spec.foo`) for
 * the `unknown field` warnings. The root and embedded resources keep apiVersion, kind and metadata.
 */
export function prune(v: unknown, s: Schema | undefined, path: string, dropped: string[], root = false): void {
  if (!s) return;
  if (isObj(v)) {
    const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
    const embedded = root || s['x-kubernetes-embedded-resource'] === true;
    for (const k of Object.keys(v)) {
      const child = path ? `${path}.${k}` : k;
      if (embedded && ROOT_KEEP.has(k)) {
        const m = v[k];
        if (k === 'metadata' && !root && isObj(m)) pruneEmbeddedMetadata(m, child, dropped);
        continue;
      }
      const cs = propSchema(s, k);
      if (cs) prune(v[k], cs, child, dropped);
      else if (s.additionalProperties === true) continue;
      else if (!preserve) {
        delete v[k];
        dropped.push(child);
      }
    }
  } else if (Array.isArray(v) && s.items) {
    for (const [i, x] of v.entries()) prune(x, s.items, `${path}[${i}]`, dropped);
  }
}

/** The fields of metav1.ObjectMeta, in the Go struct's order: what a `metadata` keeps (the rest is pruned). */
export const OBJECT_META_FIELDS: readonly string[] = [
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
];

/** {@link OBJECT_META_FIELDS} as a set. */
export const OBJECT_META: ReadonlySet<string> = new Set(OBJECT_META_FIELDS);

function pruneEmbeddedMetadata(m: Obj, path: string, dropped: string[]): void {
  for (const k of Object.keys(m)) {
    if (!OBJECT_META.has(k)) {
      delete m[k];
      dropped.push(`${path}.${k}`);
    }
  }
}

/**
 * Applies defaults in place, as the API server does when it reads a body or a stored object:
 * a missing field with a default gets it; a null in a field that is not nullable is dropped first
 * (and so defaulted when it has a default).
 */
export function applyDefaults(v: unknown, s: Schema | undefined): void {
  if (!s) return;
  if (isObj(v)) {
    if (s.properties) {
      for (const [k, ps] of Object.entries(s.properties)) {
        // A null where the schema does not allow one is dropped (and then defaulted, or missing).
        if (v[k] === null && !ps.nullable) delete v[k];
        if (v[k] === undefined && ps.default !== undefined) v[k] = clone(ps.default);
      }
    }
    for (const k of Object.keys(v)) {
      const cs = propSchema(s, k);
      if (cs) applyDefaults(v[k], cs);
    }
  } else if (Array.isArray(v) && s.items) {
    for (const x of v) applyDefaults(x, s.items);
  }
}

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  // An integer past int64 was decoded as a float64 (./wire.ts asUnstructured): a number.
  if (typeof v === 'number') return Number.isInteger(v) && Math.abs(v) < 2 ** 63 ? 'integer' : 'number';
  if (typeof v === 'bigint') return 'integer';
  if (typeof v === 'object') return 'object';
  return typeof v;
}

function equalJSON(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => equalJSON(x, b[i]));
  if (!isObj(a) || !isObj(b)) return false;
  const ak = Object.keys(a);
  const bk = Object.keys(b);
  return ak.length === bk.length && ak.every((k) => k in b && equalJSON(a[k], b[k]));
}

export { equalJSON };

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Formats the API server checks (kube-openapi's strfmt registry, as apiextensions configures it). */
function formatOK(format: string, v: string): boolean {
  switch (format) {
    case 'date-time':
    case 'datetime':
      return RFC3339.test(v) && !Number.isNaN(Date.parse(v));
    case 'date':
      return DATE.test(v) && !Number.isNaN(Date.parse(v));
    case 'byte':
      return /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(v);
    case 'uuid':
      return /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(v);
    default:
      return true;
  }
}

/** A number as Go's %v prints a float64 bound (1, 1.5, 1e+21). */
function goNumber(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return String(n);
  return String(n)
    .replace(/e\+?(-?)(\d)$/, 'e$1+0$2')
    .replace('e-+', 'e-');
}

/**
 * The OpenAPI value validations of `s` on `v` at `path` (`spec.replicas`), in the API server's
 * words. `at` is the same location as steps, kept on each error for ratcheting.
 */
export function validate(
  v: unknown,
  s: Schema | undefined,
  path: string,
  at: (string | number)[] = [],
  out: FieldErr[] = [],
): FieldErr[] {
  if (!s) return out;
  const name = path || '.';
  const push = (e: FieldErr) => out.push({ ...e, at });
  const where = (p: string) => p || '<nil>';
  if (v === null) {
    if (s.type && !s.nullable)
      push({
        type: 'FieldValueTypeInvalid',
        field: where(path),
        value: 'null',
        detail: `${name} in body must be of type ${s.type}: "null"`,
      });
    return out;
  }
  const t = jsonType(v);
  const intOrString = s['x-kubernetes-int-or-string'] === true;
  if (intOrString) {
    if (t !== 'integer' && t !== 'string')
      push({
        type: 'FieldValueTypeInvalid',
        field: where(path),
        value: t,
        detail: `${name} in body must be of type integer,string: "${t}"`,
      });
  } else if (s.type && !(s.type === t || (s.type === 'number' && t === 'integer'))) {
    // A fraction where an integer is wanted also fails kube-openapi's range check, reported without a field.
    if (s.type === 'integer' && t === 'number')
      push({
        type: 'FieldValueInvalid',
        field: '<nil>',
        value: '',
        detail: `Checked value must be of type integer (default format) in ${name}`,
      });
    push({
      type: 'FieldValueTypeInvalid',
      field: where(path),
      value: t,
      detail: `${name} in body must be of type ${s.type}: "${t}"`,
    });
    // An integer past int64 (a float64 to the server) is still judged against the bounds, and
    // printed as the float it is.
    if (s.type === 'integer' && typeof v === 'number' && Number.isInteger(v))
      numberErrors(v, new GoStructJSON(goFloat(v)), s, name, where(path), push);
    return out;
  }
  if (typeof v === 'string') stringErrors(v, s, name, where(path), intOrString, push);
  if (typeof v === 'number' || typeof v === 'bigint') numberErrors(v, v, s, name, where(path), push);
  if (Array.isArray(v)) arrayErrors(v, s, name, where(path), push);
  if (s.enum && !s.enum.some((e) => equalJSON(e, v))) {
    push({
      type: 'FieldValueNotSupported',
      field: where(path),
      value: v,
      detail: `supported values: ${s.enum.map((e) => (typeof e === 'string' ? JSON.stringify(e) : JSON.stringify(JSON.stringify(e)).slice(1, -1))).join(', ')}`,
    });
  }
  if (isObj(v)) {
    propertyCountErrors(v, s, name, where(path), push);
    for (const [k, x] of Object.entries(v)) {
      const cs = s.properties?.[k] ?? (isObj(s.additionalProperties) ? s.additionalProperties : undefined);
      if (cs && !(path === '' && (k === 'metadata' || k === 'apiVersion' || k === 'kind')))
        validate(x, cs, path ? `${path}.${k}` : k, [...at, k], out);
    }
    for (const r of s.required ?? [])
      if (!(r in v)) out.push({ type: 'FieldValueRequired', field: path ? `${path}.${r}` : r, at: [...at, r] });
  }
  if (Array.isArray(v) && s.items)
    for (const [i, x] of v.entries()) validate(x, s.items, `${path}[${i}]`, [...at, i], out);
  if (Array.isArray(v)) listTypeErrors(v, s, path, at, out);
  combinatorErrors(v, s, path, at, out);
  return out;
}

/** maxLength, minLength, pattern and format of a string value. */
function stringErrors(
  v: string,
  s: Schema,
  name: string,
  field: string,
  intOrString: boolean,
  push: (e: FieldErr) => void,
): void {
  const len = [...v].length;
  if (s.maxLength !== undefined && len > s.maxLength)
    push({
      type: 'FieldValueTooLong',
      field,
      detail: `may not be more than ${s.maxLength} ${s.maxLength === 1 ? 'byte' : 'bytes'}`,
    });
  if (s.minLength !== undefined && len < s.minLength)
    push({
      type: 'FieldValueInvalid',
      field,
      value: v,
      detail: `${name} in body should be at least ${s.minLength} chars long`,
    });
  if (s.pattern !== undefined) {
    // A pattern RE2 refuses never reaches here on a server (the CRD is refused); skip it as a fake of one.
    if (goRegexpError(s.pattern) === undefined && !re2Matches(s.pattern, v))
      push({
        type: 'FieldValueInvalid',
        field,
        value: v,
        detail: `${name} in body should match '${s.pattern}'`,
      });
  }
  if (s.format && !intOrString && !formatOK(s.format, v))
    push({
      type: 'FieldValueTypeInvalid',
      field,
      value: v,
      detail: `${name} in body must be of type ${s.format}: ${JSON.stringify(v)}`,
    });
}

/** maxItems, minItems and uniqueItems of an array value. */
function arrayErrors(v: unknown[], s: Schema, name: string, field: string, push: (e: FieldErr) => void): void {
  if (s.maxItems !== undefined && v.length > s.maxItems)
    push({
      type: 'FieldValueTooMany',
      field,
      value: v.length,
      detail: `must have at most ${s.maxItems} ${s.maxItems === 1 ? 'item' : 'items'}`,
    });
  if (s.minItems !== undefined && v.length < s.minItems)
    push({
      type: 'FieldValueInvalid',
      field,
      value: v.length,
      detail: `${name} in body should have at least ${s.minItems} items`,
    });
  if (s.uniqueItems && v.some((x, i) => v.findIndex((y) => equalJSON(x, y)) !== i))
    push({
      type: 'FieldValueInvalid',
      field,
      value: v,
      detail: `${name} in body shouldn't contain duplicates`,
    });
}

/** maxProperties and minProperties of an object value. */
function propertyCountErrors(
  v: Record<string, unknown>,
  s: Schema,
  name: string,
  field: string,
  push: (e: FieldErr) => void,
): void {
  const n = Object.keys(v).length;
  if (s.maxProperties !== undefined && n > s.maxProperties)
    push({
      type: 'FieldValueTooMany',
      field,
      value: n,
      detail: `must have at most ${s.maxProperties} ${s.maxProperties === 1 ? 'item' : 'items'}`,
    });
  if (s.minProperties !== undefined && n < s.minProperties)
    push({
      type: 'FieldValueInvalid',
      field,
      value: n,
      detail: `${name} in body should have at least ${s.minProperties} properties`,
    });
}

/**
 * allOf, anyOf, oneOf, not, as kube-openapi's schema props validator: a failed quantor is a
 * composite error (no field of its own: `<nil>`, the path quoted in the message) with, for anyOf
 * and oneOf, the errors of a failing alternative (the first; kube-openapi keeps the one with most
 * passing checks), for allOf the errors of every alternative. The int-or-string anyOf (integer |
 * string) is the type check above.
 */
function combinatorErrors(v: unknown, s: Schema, path: string, at: (string | number)[], out: FieldErr[]): void {
  const composite = (detail: string) =>
    out.push({ type: 'FieldValueInvalid', field: '<nil>', value: '', detail: `${goQuote(path)} ${detail}`, at });
  const results = (subs: Schema[]) => subs.map((sub) => validate(v, sub, path, at));
  if (s.anyOf && !s['x-kubernetes-int-or-string']) {
    const r = results(s.anyOf);
    if (!r.some((e) => e.length === 0)) {
      composite('must validate at least one schema (anyOf)');
      out.push(...(r[0] ?? []));
    }
  }
  if (s.oneOf) {
    const r = results(s.oneOf);
    const valid = r.filter((e) => e.length === 0).length;
    if (valid !== 1) {
      composite(
        `must validate one and only one schema (oneOf). ${valid ? `Found ${valid} valid alternatives` : 'Found none valid'}`,
      );
      if (!valid) out.push(...(r[0] ?? []));
    }
  }
  if (s.allOf) {
    const r = results(s.allOf);
    for (const e of r) out.push(...e);
    const valid = r.filter((e) => e.length === 0).length;
    if (valid !== r.length) composite(`must validate all the schemas (allOf)${valid ? '' : '. None validated'}`);
  }
  if (s.not && validate(v, s.not, path, at).length === 0) composite('must not validate the schema (not)');
}

/** kube-openapi's number validations (maximum, minimum, multipleOf); `shown` is the value as an error prints it. */
function numberErrors(
  v: number | bigint,
  shown: unknown,
  s: Schema,
  name: string,
  field: string,
  push: (e: FieldErr) => void,
): void {
  if (s.maximum !== undefined) {
    if (s.exclusiveMaximum ? v >= s.maximum : v > s.maximum)
      push({
        type: 'FieldValueInvalid',
        field,
        value: shown,
        detail: `${name} in body should be less than ${s.exclusiveMaximum ? '' : 'or equal to '}${goNumber(s.maximum)}`,
      });
  }
  if (s.minimum !== undefined) {
    if (s.exclusiveMinimum ? v <= s.minimum : v < s.minimum)
      push({
        type: 'FieldValueInvalid',
        field,
        value: shown,
        detail: `${name} in body should be greater than ${s.exclusiveMinimum ? '' : 'or equal to '}${goNumber(s.minimum)}`,
      });
  }
  if (s.multipleOf !== undefined) {
    // kube-openapi checks an integer value against the factor truncated to an integer.
    const factor = typeof v === 'bigint' || Number.isInteger(v) ? Math.trunc(s.multipleOf) : s.multipleOf;
    if (factor <= 0)
      push({
        type: 'FieldValueInvalid',
        field,
        value: factor,
        detail: `factor MultipleOf declared for ${name} must be positive: ${goNumber(factor)}`,
      });
    else if (typeof v === 'bigint' ? v % BigInt(factor) !== 0n : !Number.isInteger(v / factor))
      push({
        type: 'FieldValueInvalid',
        field,
        value: shown,
        detail: `${name} in body should be a multiple of ${goNumber(factor)}`,
      });
  }
}

/** x-kubernetes-list-type set and map: duplicates (apiextensions' listtype validation). */
function listTypeErrors(v: unknown[], s: Schema, path: string, at: (string | number)[], out: FieldErr[]): void {
  const lt = s['x-kubernetes-list-type'];
  if (lt === 'set') {
    v.forEach((x, i) => {
      if (v.findIndex((y) => equalJSON(x, y)) !== i)
        out.push({ type: 'FieldValueDuplicate', field: `${path}[${i}]`, value: x, at: [...at, i] });
    });
  } else if (lt === 'map') {
    const keys = s['x-kubernetes-list-map-keys'] ?? [];
    const keyOf = (x: unknown) => JSON.stringify(keys.map((k) => (isObj(x) ? (k in x ? x[k] : '\u0000absent') : null)));
    const seen = new Set<string>();
    v.forEach((x, i) => {
      const k = keyOf(x);
      if (seen.has(k)) {
        const m: Obj = {};
        for (const key of keys) if (isObj(x) && x[key] !== undefined) m[key] = x[key];
        out.push({ type: 'FieldValueDuplicate', field: `${path}[${i}]`, value: m, at: [...at, i] });
      }
      seen.add(k);
    });
  }
}

/** The value at `at` inside `root`, or undefined. */
export function valueAt(root: unknown, at: readonly (string | number)[]): unknown {
  let cur = root;
  for (const step of at) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = Reflect.get(cur, step);
  }
  return cur;
}
