/**
 * ObjectMeta validation as the API server runs it on every write (apimachinery's
 * ValidateObjectMetaAccessor): the name, labels, finalizers and owner references, in its words.
 */
import type { Resource } from './resources.js';
import type { FieldErr } from '../../apiserver/structural.js';
import { type Obj, isObj } from '../../apiserver/json.js';
import {
  byteLength,
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  TOTAL_ANNOTATION_SIZE_LIMIT_B,
} from '../../util/apimachinery/validation.js';
import { GoStructJSON } from '../../util/apimachinery/field.js';

// apimachinery's rules and messages: one implementation (src/util/apimachinery/validation.ts).
const subdomainErrors = isDNS1123Subdomain;
const labelErrors = isDNS1123Label;
const dns1035Errors = isDNS1035Label;
/** OwnerReferences as Go prints the []metav1.OwnerReference value: struct fields in order, empty optional ones left out. */
function ownerReferencesAsGo(refs: unknown[]): GoStructJSON {
  const fields = ['apiVersion', 'kind', 'name', 'uid', 'controller', 'blockOwnerDeletion'];
  const one = (r: unknown) => {
    const o = (isObj(r) ? r : {}) as Obj;
    const out: Obj = {};
    for (const f of fields) if (f in o && o[f] !== undefined && o[f] !== null) out[f] = o[f];
    for (const f of ['apiVersion', 'kind', 'name', 'uid']) out[f] ??= '';
    return Object.fromEntries(fields.filter((f) => f in out).map((f) => [f, out[f]]));
  };
  return new GoStructJSON(JSON.stringify(refs.map(one)));
}

/** Label keys, finalizer names (apimachinery's IsLabelKey). */
export const qualifiedNameErrors = isQualifiedName;
const labelValueErrors = isValidLabelValue;

/** The name rule of a resource: DNS-1123 label for Namespaces, DNS-1035 for Services, else subdomain. */
function nameErrors(r: Resource, name: string): string[] {
  // core/v1 Event names are not validated (legacy events take any name); events.k8s.io ones are.
  if (r.storageKey === '/events' && r.group === '') return [];
  if (!r.group && r.kind === 'Namespace') return labelErrors(name);
  if (!r.group && r.kind === 'Service') return dns1035Errors(name);
  if (name === '.' || name === '..') return [`may not be '${name}'`];
  // RBAC objects' names are path segments (ValidateRBACName): anything but '/' and '%'.
  if (r.group === 'rbac.authorization.k8s.io')
    return name.includes('/') || name.includes('%') ? [`may not contain '${name.includes('/') ? '/' : '%'}'`] : [];
  if (!r.custom && (name.includes('/') || name.includes('%')))
    return [`may not contain '${name.includes('/') ? '/' : '%'}'`];
  return subdomainErrors(name);
}

const STANDARD_FINALIZERS = new Set(['kubernetes', 'orphan', 'foregroundDeletion']);

/**
 * The warnings a custom resource's finalizers get (apiextensions' WarningsOnCreate/Update): a name
 * without a domain path may collide with another writer's.
 */
export function finalizerWarnings(o: Obj): string[] {
  const m = (isObj(o.metadata) ? o.metadata : {}) as Obj;
  if (!Array.isArray(m.finalizers)) return [];
  return m.finalizers
    .filter(
      (f) => typeof f === 'string' && !f.includes('/') && !STANDARD_FINALIZERS.has(f) && !qualifiedNameErrors(f).length,
    )
    .map(
      (f) =>
        `metadata.finalizers: ${JSON.stringify(f)}: prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers`,
    );
}

/** The warning a Deployment gets on create when its name is no DNS label (its pods are named after it). */
export function nameWarnings(r: Resource, o: Obj): string[] {
  if (r.group !== 'apps' || r.kind !== 'Deployment') return [];
  const m = (isObj(o.metadata) ? o.metadata : {}) as Obj;
  const errs = typeof m.name === 'string' && m.name ? labelErrors(m.name) : [];
  if (!errs.length) return [];
  return [
    `metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: [${errs.join(', ')}]`,
  ];
}

/** Pod specs (of a Pod, or a workload's template) the server warns of: a negative grace period. */
export function podTemplateWarnings(r: Resource, o: Obj): string[] {
  const templated = ['apps/Deployment', 'apps/ReplicaSet', 'apps/StatefulSet', 'apps/DaemonSet', 'batch/Job'];
  const at = templated.includes(`${r.group}/${r.kind}`)
    ? 'spec.template.spec'
    : r.group === '' && r.kind === 'Pod'
      ? 'spec'
      : '';
  if (!at) return [];
  let spec: unknown = o;
  for (const k of at.split('.')) spec = isObj(spec) ? spec[k] : undefined;
  const grace = isObj(spec) ? spec.terminationGracePeriodSeconds : undefined;
  if ((typeof grace === 'number' || typeof grace === 'bigint') && grace < 0)
    return [`${at}.terminationGracePeriodSeconds: must be >= 0; negative values are invalid and will be treated as 1`];
  return [];
}

export function validateMetadata(r: Resource, o: Obj, old: Obj | undefined): FieldErr[] {
  const m = (isObj(o.metadata) ? o.metadata : {}) as Obj;
  const errs: FieldErr[] = [];
  const name = typeof m.name === 'string' ? m.name : '';
  // generateName is validated as a name prefix (a trailing '-' allowed) on create.
  const gn = typeof m.generateName === 'string' ? m.generateName : '';
  if (!old && gn)
    for (const msg of nameErrors(r, gn.length > 1 && gn.endsWith('-') ? `${gn.slice(0, -1)}a` : gn))
      errs.push({ type: 'FieldValueInvalid', field: 'metadata.generateName', value: gn, detail: msg });
  if (!name)
    errs.push({ type: 'FieldValueRequired', field: 'metadata.name', detail: 'name or generateName is required' });
  else if (!old)
    for (const msg of nameErrors(r, name))
      errs.push({ type: 'FieldValueInvalid', field: 'metadata.name', value: name, detail: msg });
  if (isObj(m.labels)) {
    for (const [k, v] of Object.entries(m.labels)) {
      for (const msg of qualifiedNameErrors(k))
        errs.push({ type: 'FieldValueInvalid', field: 'metadata.labels', value: k, detail: msg });
      for (const msg of labelValueErrors(String(v)))
        errs.push({ type: 'FieldValueInvalid', field: 'metadata.labels', value: v, detail: msg });
    }
  }
  if (isObj(m.annotations)) {
    let size = 0;
    for (const [k, v] of Object.entries(m.annotations)) {
      size += byteLength(k) + byteLength(String(v));
      for (const msg of qualifiedNameErrors(k.toLowerCase()))
        errs.push({ type: 'FieldValueInvalid', field: 'metadata.annotations', value: k, detail: msg });
    }
    if (size > TOTAL_ANNOTATION_SIZE_LIMIT_B)
      errs.push({
        type: 'FieldValueTooLong',
        field: 'metadata.annotations',
        detail: `may not be more than ${TOTAL_ANNOTATION_SIZE_LIMIT_B} bytes`,
      });
  }
  if (Array.isArray(m.finalizers)) {
    m.finalizers.forEach((f, i) => {
      const msgs = qualifiedNameErrors(String(f));
      for (const msg of msgs)
        errs.push({ type: 'FieldValueInvalid', field: 'metadata.finalizers', value: f, detail: msg });
      // Built-in Kinds (validateKubeFinalizerName): a name without a '/' must be a standard one.
      if (
        !r.custom &&
        !(r.storageKey === '/events' && r.group === '') &&
        !String(f).includes('/') &&
        !STANDARD_FINALIZERS.has(String(f)) &&
        // The one apiextensions' strategy adds to a CRD being deleted.
        !(r.kind === 'CustomResourceDefinition' && f === 'customresourcecleanup.apiextensions.k8s.io')
      )
        errs.push({
          type: 'FieldValueInvalid',
          field: `metadata.finalizers[${i}]`,
          value: f,
          detail: 'name is neither a standard finalizer name nor is it fully qualified',
        });
    });
  }
  if (Array.isArray(m.ownerReferences)) {
    let controller = '';
    m.ownerReferences.forEach((ref: unknown, i: number) => {
      const o = (isObj(ref) ? ref : {}) as Obj;
      const at = `metadata.ownerReferences[${i}]`;
      const apiVersion = String(o.apiVersion ?? '');
      if (!apiVersion)
        errs.push({ type: 'FieldValueRequired', field: `${at}.apiVersion`, detail: 'must not be empty' });
      else if (apiVersion.split('/').length > 2 || apiVersion.endsWith('/'))
        errs.push({
          type: 'FieldValueInvalid',
          field: `${at}.apiVersion`,
          value: apiVersion,
          detail: 'must be <group>/<version> or <version>',
        });
      for (const k of ['kind', 'name', 'uid'])
        if (!o[k]) errs.push({ type: 'FieldValueRequired', field: `${at}.${k}`, detail: 'must not be empty' });
      if (o.controller === true) {
        const cur = `${String(o.kind)}/${String(o.name)}`;
        if (controller)
          errs.push({
            type: 'FieldValueInvalid',
            field: 'metadata.ownerReferences',
            value: ownerReferencesAsGo(m.ownerReferences as unknown[]),
            detail: `Only one reference can have Controller set to true. Found "true" in references for ${controller} and ${cur}`,
          });
        else controller = cur;
      }
    });
  }
  return errs;
}
