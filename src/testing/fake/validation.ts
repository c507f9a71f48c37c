/**
 * The validation of built-in Kinds beyond their metadata, for the rules operators' tests meet
 * most (pkg/apis/apps/validation, pkg/apis/core/validation, pkg/apis/rbac/validation, in the
 * server's words): a Deployment's selector (required, non-empty, matching the template's labels,
 * immutable), its replicas, its pod template (containers required, their names DNS labels given
 * once, restartPolicy Always, no activeDeadlineSeconds); a ClusterRole's aggregationRule; the
 * total size of a ConfigMap's or a Secret's values. Other Kinds' and other fields' validation is
 * not done (docs/testing.md).
 */
import type { Resource } from './resources.js';
import { equalJSON, type FieldErr } from '../../apiserver/structural.js';
import { type Obj, isObj } from '../../apiserver/json.js';
import { isDNS1123Label } from '../../util/apimachinery/validation.js';
import { goRegexpError } from '#cel/re2';

/** An internal metav1.LabelSelector as a field error prints it (its JSON: Go field order, empty fields left out). */
function selectorValue(sel: Obj): Obj {
  const out: Obj = {};
  if (isObj(sel.matchLabels) && Object.keys(sel.matchLabels).length) {
    const labels: Obj = {};
    for (const k of Object.keys(sel.matchLabels).sort()) labels[k] = sel.matchLabels[k];
    out.matchLabels = labels;
  }
  if (Array.isArray(sel.matchExpressions) && sel.matchExpressions.length) out.matchExpressions = sel.matchExpressions;
  return out;
}

/**
 * Whether a label selector selects `labels` (metav1.LabelSelectorAsSelector): a nil selector
 * selects nothing, an empty one everything.
 */
function selects(sel: unknown, labels: Obj): boolean {
  if (sel === undefined || sel === null) return false;
  if (!isObj(sel)) return true;
  const has = (k: string) => Object.hasOwn(labels, k);
  for (const [k, v] of Object.entries(isObj(sel.matchLabels) ? sel.matchLabels : {}))
    if (!has(k) || labels[k] !== v) return false;
  for (const e of Array.isArray(sel.matchExpressions) ? sel.matchExpressions : []) {
    if (!isObj(e) || typeof e.key !== 'string') continue;
    const values = Array.isArray(e.values) ? e.values : [];
    const v = labels[e.key];
    switch (e.operator) {
      case 'In':
        if (!has(e.key) || !values.includes(v)) return false;
        break;
      case 'NotIn':
        if (has(e.key) && values.includes(v)) return false;
        break;
      case 'Exists':
        if (!has(e.key)) return false;
        break;
      case 'DoesNotExist':
        if (has(e.key)) return false;
        break;
    }
  }
  return true;
}

const isEmptySelector = (sel: Obj) =>
  !(isObj(sel.matchLabels) && Object.keys(sel.matchLabels).length) &&
  !(Array.isArray(sel.matchExpressions) && sel.matchExpressions.length);

/** ValidateDeploymentSpec's rules above (and ValidateDeploymentUpdate's immutable selector). */
function deploymentErrors(o: Obj, old: Obj | undefined): FieldErr[] {
  const errs: FieldErr[] = [];
  const spec = isObj(o.spec) ? o.spec : {};
  const replicas = spec.replicas;
  if ((typeof replicas === 'number' || typeof replicas === 'bigint') && replicas < 0)
    errs.push({
      type: 'FieldValueInvalid',
      field: 'spec.replicas',
      value: replicas,
      detail: 'must be greater than or equal to 0',
    });
  const sel = spec.selector;
  if (sel === undefined || sel === null) errs.push({ type: 'FieldValueRequired', field: 'spec.selector' });
  else if (isObj(sel) && isEmptySelector(sel))
    errs.push({
      type: 'FieldValueInvalid',
      field: 'spec.selector',
      value: selectorValue(sel),
      detail: 'empty selector is invalid for deployment',
    });
  const template = isObj(spec.template) ? spec.template : {};
  const tmeta = isObj(template.metadata) ? template.metadata : {};
  const labels = isObj(tmeta.labels) ? tmeta.labels : undefined;
  const everything = isObj(sel) && isEmptySelector(sel);
  if (!everything && !selects(sel, labels ?? {}))
    errs.push({
      type: 'FieldValueInvalid',
      field: 'spec.template.metadata.labels',
      value: labels ?? null,
      detail: '`selector` does not match template `labels`',
    });
  const pod = isObj(template.spec) ? template.spec : {};
  if (!Array.isArray(pod.containers) || pod.containers.length === 0)
    errs.push({ type: 'FieldValueRequired', field: 'spec.template.spec.containers' });
  else {
    // validateContainers: each name required, a DNS-1123 label, and given once.
    const seen = new Set<string>();
    for (const [i, c] of pod.containers.entries()) {
      const field = `spec.template.spec.containers[${i}].name`;
      const name = isObj(c) && typeof c.name === 'string' ? c.name : '';
      if (name === '') {
        errs.push({ type: 'FieldValueRequired', field });
        continue;
      }
      for (const msg of isDNS1123Label(name)) errs.push({ type: 'FieldValueInvalid', field, value: name, detail: msg });
      if (seen.has(name)) errs.push({ type: 'FieldValueDuplicate', field, value: name });
      seen.add(name);
    }
  }
  const ads = pod.activeDeadlineSeconds;
  if (ads !== undefined && ads !== null) {
    if ((typeof ads === 'number' || typeof ads === 'bigint') && (ads < 1 || ads > 2147483647))
      errs.push({
        type: 'FieldValueInvalid',
        field: 'spec.template.spec.activeDeadlineSeconds',
        value: ads,
        detail: 'must be between 1 and 2147483647, inclusive',
      });
  }
  if (typeof pod.restartPolicy === 'string' && pod.restartPolicy !== 'Always')
    errs.push({
      type: 'FieldValueNotSupported',
      field: 'spec.template.spec.restartPolicy',
      value: pod.restartPolicy,
      detail: 'supported values: "Always"',
    });
  if (ads !== undefined && ads !== null)
    errs.push({
      type: 'FieldValueForbidden',
      field: 'spec.template.spec.activeDeadlineSeconds',
      detail: 'activeDeadlineSeconds in ReplicaSet is not Supported',
    });
  if (old) {
    const before = isObj(old.spec) ? old.spec.selector : undefined;
    const norm = (s: unknown) => (isObj(s) ? JSON.stringify(selectorValue(s)) : 'null');
    if (norm(sel) !== norm(before))
      errs.push({
        type: 'FieldValueInvalid',
        field: 'spec.selector',
        value: isObj(sel) ? selectorValue(sel) : null,
        detail: 'field is immutable',
      });
  }
  return errs;
}

/** core.MaxSecretSize: the most a ConfigMap's or a Secret's values may hold together. */
const MAX_SIZE = 1024 * 1024;

/** The bytes of a map's values (base64 ones decoded). */
function valuesSize(v: unknown, base64: boolean): number {
  let n = 0;
  if (isObj(v))
    for (const x of Object.values(v))
      if (typeof x === 'string') n += base64 ? Buffer.from(x, 'base64').length : Buffer.byteLength(x);
  return n;
}

const tooLong = (field: string): FieldErr => ({
  type: 'FieldValueTooLong',
  field,
  detail: `may not be more than ${MAX_SIZE} bytes`,
});

/** The validation errors of a built-in object beyond its metadata (none for Kinds not covered). */
export function builtinErrors(r: Resource, o: Obj, old: Obj | undefined): FieldErr[] {
  switch (`${r.group}/${r.kind}`) {
    // ValidateConfigMap / ValidateSecret: the values' total size ("" names the whole ConfigMap).
    case '/ConfigMap':
      return valuesSize(o.data, false) + valuesSize(o.binaryData, true) > MAX_SIZE ? [tooLong('[]')] : [];
    case '/Secret':
      return valuesSize(o.data, true) > MAX_SIZE ? [tooLong('data')] : [];
    case 'apps/Deployment':
      return deploymentErrors(o, old);
    case 'apiextensions.k8s.io/CustomResourceDefinition':
      return crdPatternErrors(o);
    case 'rbac.authorization.k8s.io/ClusterRole': {
      const rule = o.aggregationRule;
      if (rule === undefined || rule === null) return [];
      const selectors = isObj(rule) ? rule.clusterRoleSelectors : undefined;
      if (Array.isArray(selectors) && selectors.length) return [];
      return [
        {
          type: 'FieldValueRequired',
          field: 'aggregationRule.clusterRoleSelectors',
          detail: 'at least one clusterRoleSelector required if aggregationRule is non-nil',
        },
      ];
    }
  }
  return [];
}

/**
 * apiextensions' schema validation of a CRD, its pattern part: every `pattern` must compile as Go's
 * regexp (RE2) does (`validateValueValidation`). The rest of a CRD's validation is not the fake's.
 */
function crdPatternErrors(crd: Obj): FieldErr[] {
  const errs: FieldErr[] = [];
  const walk = (s: unknown, field: string) => {
    if (!isObj(s)) return;
    if (typeof s.pattern === 'string' && s.pattern.length) {
      const err = goRegexpError(s.pattern);
      if (err)
        errs.push({
          type: 'FieldValueInvalid',
          field: `${field}.pattern`,
          value: s.pattern,
          detail: `must be a valid regular expression, but isn't: ${err}`,
        });
    }
    if (isObj(s.properties)) for (const [k, v] of Object.entries(s.properties)) walk(v, `${field}.properties[${k}]`);
    walk(s.items, `${field}.items`);
    walk(s.additionalProperties, `${field}.additionalProperties`);
    for (const key of ['allOf', 'anyOf', 'oneOf'] as const)
      if (Array.isArray(s[key])) for (const [i, v] of (s[key] as unknown[]).entries()) walk(v, `${field}.${key}[${i}]`);
    walk(s.not, `${field}.not`);
  };
  const versions = isObj(crd.spec) && Array.isArray(crd.spec.versions) ? crd.spec.versions : [];
  const schemas = versions.map((v: unknown) => (isObj(v) && isObj(v.schema) ? v.schema.openAPIV3Schema : undefined));
  // The internal CRD keeps a schema every version shares once, as spec.validation: errors name that path.
  if (schemas.length && schemas.every((x) => equalJSON(x, schemas[0])))
    walk(schemas[0], 'spec.validation.openAPIV3Schema');
  else for (const [i, x] of schemas.entries()) walk(x, `spec.versions[${i}].schema.openAPIV3Schema`);
  return errs;
}
