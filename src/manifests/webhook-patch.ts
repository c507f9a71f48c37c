/**
 * The parts of a generated webhook that select what it is called for (controller-tools v0.22):
 * `namespaceSelector`, `objectSelector` and `matchConditions` on `@Webhook`, and `patch`, a
 * strategic merge patch applied to the webhook last, as controller-gen's `patch=` applies it
 * (k8s.io/apimachinery strategicpatch over admissionregistration/v1's MutatingWebhook or
 * ValidatingWebhook). Each is checked as the API server (or controller-gen) would check it, so
 * that a problem is a located error of `kubeforge manifests`, not a refusal at `make deploy`.
 *
 * The patch, by the type's own tags: maps merge key by key and `null` removes a key; lists are
 * replaced whole, except `matchConditions`, merged by `name` (an item `{ name, $patch: 'delete' }`
 * removes one); `$patch: replace` replaces a map, `$patch: delete` removes it;
 * `$setElementOrder/matchConditions` orders the merged list. Unknown fields are refused (controller-gen
 * decodes strictly), before and after the merge.
 */
import { type CelT, T, checkExpression } from '#cel';
import { fieldErrorString } from '../util/apimachinery/field.js';
import { isQualifiedName, validateLabelSelector } from '../util/apimachinery/validation.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The shape of a webhook's fields: what strict decoding accepts, and how lists merge. */
type Shape =
  | { t: 'string' | 'int' | 'bool' }
  | { t: 'struct'; fields: Record<string, Shape> }
  | { t: 'map'; value: Shape }
  | { t: 'list'; item: Shape; mergeKey?: string };

const STR: Shape = { t: 'string' };
const INT: Shape = { t: 'int' };
const STRS: Shape = { t: 'list', item: STR };
const LABEL_SELECTOR: Shape = {
  t: 'struct',
  fields: {
    matchLabels: { t: 'map', value: STR },
    matchExpressions: {
      t: 'list',
      item: { t: 'struct', fields: { key: STR, operator: STR, values: STRS } },
    },
  },
};

function webhookShape(mutating: boolean): Shape {
  const fields: Record<string, Shape> = {
    name: STR,
    clientConfig: {
      t: 'struct',
      fields: {
        url: STR,
        service: { t: 'struct', fields: { namespace: STR, name: STR, path: STR, port: INT } },
        caBundle: STR,
      },
    },
    rules: {
      t: 'list',
      item: {
        t: 'struct',
        fields: { operations: STRS, apiGroups: STRS, apiVersions: STRS, resources: STRS, scope: STR },
      },
    },
    failurePolicy: STR,
    matchPolicy: STR,
    namespaceSelector: LABEL_SELECTOR,
    objectSelector: LABEL_SELECTOR,
    sideEffects: STR,
    timeoutSeconds: INT,
    admissionReviewVersions: STRS,
    matchConditions: {
      t: 'list',
      item: { t: 'struct', fields: { name: STR, expression: STR } },
      mergeKey: 'name',
    },
  };
  if (mutating) fields.reinvocationPolicy = STR;
  return { t: 'struct', fields };
}

/** Problems of a value against a shape, as strict decoding reports them (`unknown field "x"`, wrong types). */
function shapeProblems(v: unknown, shape: Shape, path: string): string[] {
  if (v === null || v === undefined) return [];
  switch (shape.t) {
    case 'string':
      return typeof v === 'string' ? [] : [`${path}: expected a string, got ${JSON.stringify(v)}`];
    case 'int':
      return Number.isInteger(v) ? [] : [`${path}: expected an integer, got ${JSON.stringify(v)}`];
    case 'bool':
      return typeof v === 'boolean' ? [] : [`${path}: expected true or false, got ${JSON.stringify(v)}`];
    case 'map':
      if (!isObj(v)) return [`${path}: expected an object, got ${JSON.stringify(v)}`];
      return Object.entries(v).flatMap(([k, x]) => shapeProblems(x, shape.value, `${path}.${k}`));
    case 'list':
      if (!Array.isArray(v)) return [`${path}: expected a list, got ${JSON.stringify(v)}`];
      return v.flatMap((x, i) => shapeProblems(x, shape.item, `${path}[${i}]`));
    case 'struct': {
      if (!isObj(v)) return [`${path}: expected an object, got ${JSON.stringify(v)}`];
      const out: string[] = [];
      for (const [k, x] of Object.entries(v)) {
        if (k.startsWith('$')) continue;
        const f = shape.fields[k];
        if (!f) out.push(`unknown field "${path ? `${path}.` : ''}${k}"`);
        else out.push(...shapeProblems(x, f, path ? `${path}.${k}` : k));
      }
      return out;
    }
  }
}

/** Directives a patch may hold at a struct level (strategicpatch's). */
function directiveProblems(patch: Obj, shape: Shape, path: string): string[] {
  const out: string[] = [];
  if (shape.t !== 'struct') return out;
  for (const [k, v] of Object.entries(patch)) {
    const at = path ? `${path}.${k}` : k;
    if (k === '$patch') {
      if (v !== 'replace' && v !== 'delete' && v !== 'merge')
        out.push(`${at}: unknown patch directive ${JSON.stringify(v)} (use "replace" or "delete")`);
    } else if (k.startsWith('$setElementOrder/')) {
      const f = shape.fields[k.slice('$setElementOrder/'.length)];
      if (f?.t !== 'list') out.push(`${at}: $setElementOrder names no list field of the webhook`);
      else if (!Array.isArray(v)) out.push(`${at}: $setElementOrder takes a list`);
    } else if (k.startsWith('$')) {
      out.push(`${at}: directive ${k} is not supported here (kubeforge applies $patch and $setElementOrder)`);
    } else if (isObj(v) && shape.fields[k]?.t === 'struct') out.push(...directiveProblems(v, shape.fields[k], at));
    else if (Array.isArray(v) && shape.fields[k]?.t === 'list') {
      const item = (shape.fields[k] as { item: Shape }).item;
      for (const [i, x] of v.entries()) if (isObj(x)) out.push(...directiveProblems(x, item, `${at}[${i}]`));
    }
  }
  return out;
}

/** Applies a strategic merge patch to `target` (not changed) under `shape`. */
function merge(target: unknown, patch: unknown, shape: Shape): unknown {
  if (patch === null) return undefined;
  if (shape.t === 'list' && Array.isArray(patch)) {
    if (!shape.mergeKey || !Array.isArray(target)) return patch.filter((x) => !(isObj(x) && x.$patch === 'delete'));
    const key = shape.mergeKey;
    const out = target.map((x) => (isObj(x) ? { ...x } : x)) as unknown[];
    for (const p of patch) {
      if (!isObj(p)) continue;
      const i = out.findIndex((x) => isObj(x) && x[key] === p[key]);
      if (p.$patch === 'delete') {
        if (i >= 0) out.splice(i, 1);
        continue;
      }
      if (i >= 0) out[i] = merge(out[i], p, shape.item);
      else out.push(merge(undefined, p, shape.item));
    }
    return out;
  }
  if ((shape.t === 'struct' || shape.t === 'map') && isObj(patch)) {
    if (patch.$patch === 'delete') return undefined;
    const replace = patch.$patch === 'replace';
    const out: Obj = !replace && isObj(target) ? { ...target } : {};
    for (const [k, v] of Object.entries(patch)) {
      if (k === '$patch' || k.startsWith('$setElementOrder/')) continue;
      const f = shape.t === 'struct' ? shape.fields[k] : shape.value;
      const merged = f ? merge(out[k], v, f) : v === null ? undefined : v;
      if (merged === undefined) delete out[k];
      else out[k] = merged;
    }
    for (const [k, order] of Object.entries(patch)) {
      if (!k.startsWith('$setElementOrder/') || !Array.isArray(order)) continue;
      const field = k.slice('$setElementOrder/'.length);
      const list = out[field];
      const f = shape.t === 'struct' ? shape.fields[field] : undefined;
      if (!Array.isArray(list) || f?.t !== 'list' || !f.mergeKey) continue;
      const mk = f.mergeKey;
      const rank = (x: unknown) => {
        const i = order.findIndex((o) => isObj(o) && isObj(x) && o[mk] === x[mk]);
        return i < 0 ? order.length : i;
      };
      out[field] = [...list].sort((a, b) => rank(a) - rank(b));
    }
    return out;
  }
  return patch;
}

/** Keys sorted at every level, as controller-gen's YAML (JSON through a map) writes them. */
export function sortKeysDeep<T>(v: T): T {
  if (Array.isArray(v)) return v.map(sortKeysDeep) as T;
  if (!isObj(v)) return v;
  return Object.fromEntries(
    Object.keys(v)
      .sort()
      .map((k) => [k, sortKeysDeep(v[k])]),
  ) as T;
}

/**
 * Applies `@Webhook`'s `patch` to the webhook built from the other arguments, as controller-gen
 * v0.22 does; the problems (invalid JSON, not an object, unknown fields, bad directives, a result
 * that does not decode) instead of a result when there are any.
 */
export function applyWebhookPatch(
  hook: Obj,
  patchText: string,
  mutating: boolean,
): { hook: Obj; problems: [] } | { hook?: undefined; problems: string[] } {
  let patch: unknown;
  try {
    patch = JSON.parse(patchText);
  } catch (e) {
    return { problems: [`patch is not JSON: ${(e as Error).message}`] };
  }
  if (!isObj(patch)) return { problems: ['patch must be a JSON object (the webhook fields to change)'] };
  const shape = webhookShape(mutating);
  const before = [...directiveProblems(patch, shape, ''), ...shapeProblems(patch, shape, '')];
  if (before.length) return { problems: before };
  const merged = merge(hook, patch, shape);
  const after = isObj(merged) ? shapeProblems(merged, shape, '') : ['the patch removed the whole webhook'];
  if (after.length) return { problems: after };
  return { hook: merged as Obj, problems: [] };
}

/** A LabelSelector's problems, as the API server words them (metav1 validation). */
export function labelSelectorProblems(value: unknown, fieldName: string): string[] {
  const shape = shapeProblems(value, LABEL_SELECTOR, fieldName);
  if (shape.length) return shape;
  if (!isObj(value)) return [];
  return validateLabelSelector(value as never, fieldName).map(fieldErrorString);
}

/** What the API server's admission CEL environment declares (k8s.io/apiserver admission/plugin/cel). */
function admissionVariables(): Record<string, CelT> {
  const obj = (name: string, fields: Record<string, CelT>): CelT => ({
    kind: 'object',
    name,
    fields: new Map(Object.entries(fields)),
  });
  const gvk = obj('kubernetes.GroupVersionKind', { group: T.string, version: T.string, kind: T.string });
  const gvr = obj('kubernetes.GroupVersionResource', { group: T.string, version: T.string, resource: T.string });
  const userInfo = obj('kubernetes.UserInfo', {
    username: T.string,
    uid: T.string,
    groups: T.list(T.string),
    extra: T.map(T.string, T.list(T.string)),
  });
  return {
    object: T.dyn,
    oldObject: T.dyn,
    // A Namespace object type on the server; kubeforge checks its fields no further.
    namespaceObject: T.dyn,
    request: obj('kubernetes.AdmissionRequest', {
      kind: gvk,
      resource: gvr,
      subResource: T.string,
      requestKind: gvk,
      requestResource: gvr,
      requestSubResource: T.string,
      name: T.string,
      namespace: T.string,
      operation: T.string,
      userInfo,
      dryRun: T.bool,
      options: T.dyn,
    }),
  };
}

/**
 * `matchConditions` problems, as the API server reports them when it creates the configuration
 * (admissionregistration validation): at most 64, each with a qualified `name` (unique) and a CEL
 * `expression` that compiles in the admission environment and evaluates to bool. An expression
 * that uses `authorizer` is parsed but not type-checked (kubeforge does not model the
 * authorization library): the API server judges it.
 */
export function matchConditionProblems(value: unknown, k8sMinor?: number): string[] {
  const shape: Shape = { t: 'list', item: { t: 'struct', fields: { name: STR, expression: STR } } };
  const problems = shapeProblems(value, shape, 'matchConditions');
  if (problems.length || !Array.isArray(value)) return problems;
  if (value.length > 64) problems.push(`matchConditions: Too many: ${value.length}: must have at most 64 items`);
  const names = new Set<string>();
  for (const [i, c] of (value as { name?: string; expression?: string }[]).entries()) {
    const at = `matchConditions[${i}]`;
    const expression = (c.expression ?? '').trim();
    if (!expression) problems.push(`${at}.expression: Required value`);
    else {
      const usesAuthorizer = /\bauthorizer\b/.test(expression);
      const vars = admissionVariables();
      if (usesAuthorizer) vars.authorizer = T.dyn;
      const checked = checkExpression(expression, vars, { k8sMinor });
      const issues = usesAuthorizer
        ? checked.issues.filter((x) => !/undeclared reference|found no matching overload/.test(x.message))
        : checked.issues;
      if (issues.length)
        problems.push(
          `${at}.expression: Invalid value: ${JSON.stringify(c.expression)}: compilation failed: ERROR: ${issues.map((x) => x.message).join('\n')}`,
        );
      else if (!usesAuthorizer && checked.type && checked.type.kind !== 'bool' && checked.type.kind !== 'dyn')
        problems.push(`${at}.expression: Invalid value: ${JSON.stringify(c.expression)}: must evaluate to bool`);
    }
    if (!c.name) problems.push(`${at}.name: Required value`);
    else {
      for (const msg of isQualifiedName(c.name))
        problems.push(`${at}.name: Invalid value: ${JSON.stringify(c.name)}: ${msg}`);
      if (names.has(c.name)) problems.push(`${at}.name: Duplicate value: ${JSON.stringify(c.name)}`);
      names.add(c.name);
    }
  }
  return problems;
}
