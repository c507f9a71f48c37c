/**
 * What structured-merge-diff's typed conversion says of an applied configuration's values of the
 * wrong type (typed/validate.go: `.data.n: expected string, got &value.valueUnstructured{Value:1}`),
 * with the Go formatting its messages use (%#v, %v and %T of the values an unstructured decode
 * holds: int64, float64, string, bool, nil, map[string]interface {}, []interface {}). The types are
 * the built-in Kind's Go types (src/schema/k8s models, as ./decode.ts reads them) or the custom
 * resource's schema.
 */
import { k8sModelShape, type DataNode } from '../../schema/k8s/index.js';
import type { Resource } from './resources.js';
import type { Schema } from '../../apiserver/structural.js';
import { builtinListKeys } from './apply.js';
import { type Obj, goFloat, isObj } from '../../apiserver/json.js';

const MIN_INT64 = -(2n ** 63n);
const MAX_INT64 = 2n ** 63n - 1n;

/**
 * An integer the decoder keeps as int64 (a larger one is a float64; so is a number beyond 2^53
 * here, as integers there are BigInts).
 */
const isInt64 = (v: unknown): boolean =>
  (typeof v === 'bigint' && v >= MIN_INT64 && v <= MAX_INT64) || (typeof v === 'number' && Number.isSafeInteger(v));

/** A number as the decoder holds it, printed by %v: an int64 exactly, else a float64. */
function goNumber(v: number | bigint): string {
  if (isInt64(v)) return String(v);
  return goFloat(Number(v));
}

/** strconv.Quote, near enough: JSON's escapes, with Go's \x escapes for control characters. */
function goQuote(s: string): string {
  return JSON.stringify(s).replace(/\\u00([0-7][0-9a-f])/g, '\\x$1');
}

/** %#v of a value held in an interface{}. */
export function goSyntax(v: unknown): string {
  if (v === null || v === undefined) return 'interface {}(nil)';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number' || typeof v === 'bigint') return goNumber(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[]interface {}{${v.map(goSyntax).join(', ')}}`;
  const o = v as Obj;
  return `map[string]interface {}{${Object.keys(o)
    .sort()
    .map((k) => `${goQuote(k)}:${goSyntax(o[k])}`)
    .join(', ')}}`;
}

/** %v of a value held in an interface{}. */
export function goValue(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'bigint') return goNumber(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(goValue).join(' ')}]`;
  const o = v as Obj;
  return `map[${Object.keys(o)
    .sort()
    .map((k) => `${k}:${goValue(o[k])}`)
    .join(' ')}]`;
}

/** %T of a value held in an interface{}. */
export function goTypeOf(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number' || typeof v === 'bigint') return isInt64(v) ? 'int64' : 'float64';
  return Array.isArray(v) ? '[]interface {}' : 'map[string]interface {}';
}

type Scalar = 'string' | 'numeric' | 'boolean' | 'untyped';

/** One node of the type: a scalar, a map of fields or of values, a list, or anything (deduced). */
interface TypeNode {
  scalar?: Scalar;
  fields?: (key: string) => TypeNode | undefined;
  values?: TypeNode;
  items?: TypeNode;
  /** A list's item keys (a list-map), or `set` (items by value); else items by index. */
  keys?: string[] | 'set';
  any?: boolean;
}

const ANY: TypeNode = { any: true };

function fromModel(node: DataNode): TypeNode {
  if (node.$model || node.$special === 'ObjectMeta') {
    const model = k8sModelShape(node.$model ?? 'V1ObjectMeta');
    if (!model) return ANY;
    return { fields: (k) => (model.properties[k] ? fromModel(model.properties[k]) : undefined) };
  }
  switch (node.$special) {
    case 'RawExtension':
    case 'JSON':
      return ANY;
    case 'IntOrString':
    case 'Quantity':
      return { scalar: 'untyped' };
  }
  return fromProps(node, fromModel);
}

function fromSchema(s: Schema): TypeNode {
  if (s['x-kubernetes-int-or-string']) return { scalar: 'untyped' };
  if (s['x-kubernetes-preserve-unknown-fields'] && !s.properties && !s.additionalProperties && !s.type) return ANY;
  return fromProps(s as DataNode, (x) => fromSchema(x as Schema));
}

function fromProps(s: DataNode, next: (s: DataNode) => TypeNode): TypeNode {
  switch (s.type) {
    case 'string':
      return { scalar: 'string' };
    case 'integer':
    case 'number':
      return { scalar: 'numeric' };
    case 'boolean':
      return { scalar: 'boolean' };
    case 'array': {
      const lt = (s as Schema)['x-kubernetes-list-type'];
      const keys =
        lt === 'map' ? ((s as Schema)['x-kubernetes-list-map-keys'] ?? []) : lt === 'set' ? 'set' : undefined;
      return { items: s.items ? next(s.items) : ANY, ...(keys ? { keys } : {}) };
    }
    case 'object': {
      const props = s.properties as Record<string, DataNode> | undefined;
      const values = isObj(s.additionalProperties) ? next(s.additionalProperties as DataNode) : undefined;
      const open = (s as Schema)['x-kubernetes-preserve-unknown-fields'] === true;
      return {
        fields: (k) => (props?.[k] ? next(props[k]) : (values ?? (open ? ANY : undefined))),
        ...(values ? { values } : {}),
      };
    }
  }
  return ANY;
}

/** structured-merge-diff's path element of a list item: `[name="c"]`, `[="a"]`, `[0]`. */
function itemPath(keys: string[] | 'set' | undefined, v: unknown, i: number): string {
  if (keys === 'set') return `[=${JSON.stringify(v)}]`;
  if (!keys || !isObj(v)) return `[${i}]`;
  return `[${keys
    .filter((k) => v[k] !== undefined)
    .sort()
    .map((k) => `${k}=${JSON.stringify(v[k])}`)
    .join(',')}]`;
}

/** The type of the Kind's objects: its Go struct's model, or the custom resource's schema. */
function rootType(r: Resource): TypeNode | undefined {
  if (r.custom) {
    if (!r.schema) return undefined;
    const root = fromSchema(r.schema);
    // metadata is ObjectMeta's, whatever the schema says of it.
    return {
      fields: (k) => (k === 'metadata' ? fromModel({ $special: 'ObjectMeta' } as DataNode) : root.fields?.(k)),
    };
  }
  if (!r.model || !k8sModelShape(r.model)) return undefined;
  return fromModel({ $model: r.model } as DataNode);
}

/**
 * The errors of values of the wrong type in `body`, each with its path (`.spec.replicas: expected
 * numeric (int or float), got string`); `item` names a list item for the path (its keys or index).
 */
export function typeErrors(r: Resource, body: Obj): string[] {
  const root = rootType(r);
  if (!root) return [];
  const errs: string[] = [];
  const wrapped = (v: unknown) => `&value.valueUnstructured{Value:${goSyntax(v)}}`;
  const walk = (v: unknown, t: TypeNode, path: string, field: string) => {
    if (t.any || v === null || v === undefined) return;
    if (t.scalar) {
      const isNum = typeof v === 'number' || typeof v === 'bigint';
      if (t.scalar === 'numeric' && !isNum) errs.push(`${path}: expected numeric (int or float), got ${goTypeOf(v)}`);
      else if (t.scalar === 'string' && typeof v !== 'string') errs.push(`${path}: expected string, got ${wrapped(v)}`);
      else if (t.scalar === 'boolean' && typeof v !== 'boolean')
        errs.push(`${path}: expected boolean, got &{${goValue(v)}}`);
      else if (t.scalar === 'untyped' && (isObj(v) || Array.isArray(v)))
        errs.push(`${path}: expected any scalar, got &{${goValue(v)}}`);
      return;
    }
    if (t.items) {
      if (!Array.isArray(v)) return void errs.push(`${path}: expected list, got &{${goValue(v)}}`);
      const keys = t.keys ?? (r.custom ? undefined : builtinListKeys(field));
      const items = t.items;
      for (const [i, x] of v.entries()) walk(x, items, `${path}${itemPath(keys, x, i)}`, '');
      return;
    }
    if (t.fields) {
      if (!isObj(v)) return void errs.push(`${path}: expected map, got &{${goValue(v)}}`);
      for (const [k, x] of Object.entries(v)) {
        const ct = t.fields(k);
        if (ct) walk(x, ct, `${path}.${k}`, k);
      }
    }
  };
  for (const [k, v] of Object.entries(body)) {
    if (k === 'apiVersion' || k === 'kind') continue;
    const t = root.fields?.(k);
    if (t) walk(v, t, `.${k}`, k);
  }
  return errs;
}
