/**
 * ObjectMeta validation as the API server runs it on every write (apimachinery's
 * ValidateObjectMetaAccessor): the name, labels, finalizers and owner references, in its words.
 */
import type { Resource } from './resources.js';
import type { FieldErr } from './schema.js';
import { type Obj, isObj } from './json.js';
import {
  byteLength,
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  TOTAL_ANNOTATION_SIZE_LIMIT_B,
} from '../../util/apimachinery/validation.js';

// apimachinery's rules and messages: one implementation (src/util/apimachinery/validation.ts).
const subdomainErrors = isDNS1123Subdomain;
const labelErrors = isDNS1123Label;
const dns1035Errors = isDNS1035Label;
/** Label keys, finalizer names (apimachinery's IsLabelKey). */
export const qualifiedNameErrors = isQualifiedName;
const labelValueErrors = isValidLabelValue;

/** The name rule of a resource: DNS-1123 label for Namespaces, DNS-1035 for Services, else subdomain. */
function nameErrors(r: Resource, name: string): string[] {
  if (!r.group && r.kind === 'Namespace') return labelErrors(name);
  if (!r.group && r.kind === 'Service') return dns1035Errors(name);
  if (name === '.' || name === '..') return [`may not be '${name}'`];
  if (!r.custom && (name.includes('/') || name.includes('%')))
    return [`may not contain '${name.includes('/') ? '/' : '%'}'`];
  return subdomainErrors(name);
}

export function validateMetadata(r: Resource, o: Obj, old: Obj | undefined): FieldErr[] {
  const m = (isObj(o.metadata) ? o.metadata : {}) as Obj;
  const errs: FieldErr[] = [];
  const name = typeof m.name === 'string' ? m.name : '';
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
    m.finalizers.forEach((f) => {
      for (const msg of qualifiedNameErrors(String(f)))
        errs.push({ type: 'FieldValueInvalid', field: 'metadata.finalizers', value: f, detail: msg });
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
            value: m.ownerReferences,
            detail: `Only one reference can have Controller set to true. Found "true" in references for ${controller} and ${cur}`,
          });
        else controller = cur;
      }
    });
  }
  return errs;
}
