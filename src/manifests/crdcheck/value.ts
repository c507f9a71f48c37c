/**
 * Validates a JSON value against a structural schema as the API server does for a CRD's
 * defaults: the value must survive pruning (no field the schema does not know) and must pass
 * the schema's value validations (types, enum, bounds, lengths, patterns, required fields,
 * formats the server checks, set and map list uniqueness). CEL rules are not evaluated.
 */
import type { JSONSchemaProps } from '../../schema/jsonschema.js';
import { deepEqual } from '../../schema/apply.js';
import { checkRE2 } from '../../cel/re2.js';

export interface ValueProblem {
  /** `.a.b[0]` inside the value ('' for the value itself). */
  path: string;
  message: string;
  /** The value would lose this field to pruning. */
  pruned?: boolean;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Formats whose values the API server checks (the others are documentation). */
function formatProblem(format: string | undefined, v: string): string | undefined {
  switch (format) {
    case 'date-time':
      return RFC3339.test(v) && !Number.isNaN(Date.parse(v.replace(' ', 'T')))
        ? undefined
        : 'is not an RFC 3339 date-time (2006-01-02T15:04:05Z)';
    case 'date':
      return DATE.test(v) ? undefined : 'is not a date (2006-01-02)';
    case 'byte':
      return BASE64.test(v) ? undefined : 'is not base64';
    default:
      return undefined;
  }
}

/** A JavaScript reading of an RE2 pattern, when both languages read it alike; else undefined. */
function jsPattern(p: string): RegExp | undefined {
  if (checkRE2(p)) return undefined;
  if (/\(\?[imsU-]|\\[AzQEpP]|\[\[:/.test(p)) return undefined;
  try {
    return new RegExp(p, 'u');
  } catch {
    return undefined;
  }
}

export function validateValue(v: unknown, s: JSONSchemaProps, path = ''): ValueProblem[] {
  const out: ValueProblem[] = [];
  const fail = (message: string, at = path, pruned = false) =>
    out.push({ path: at, message, pruned: pruned || undefined });
  if (v === null) {
    if (!s.nullable) fail('is null, but the schema is not nullable');
    return out;
  }
  const t = typeOf(v);
  if (s['x-kubernetes-int-or-string']) {
    if (t !== 'integer' && t !== 'string')
      fail(`is ${t === 'object' ? 'an object' : `a ${t}`}, but must be an integer or a string`);
  } else if (s.type) {
    const ok = s.type === t || (s.type === 'number' && t === 'integer');
    if (!ok) {
      fail(
        `is ${t === 'object' || t === 'array' || t === 'integer' ? `an ${t}` : `a ${t}`}, but the schema's type is ${s.type}`,
      );
      return out;
    }
  }
  if (s.enum && !s.enum.some((e) => deepEqual(e, v)))
    fail(`is not one of the allowed values ${s.enum.map((e) => JSON.stringify(e)).join(', ')}`);
  if (typeof v === 'string') {
    const len = [...v].length;
    if (s.maxLength !== undefined && len > s.maxLength) fail(`is longer than maxLength ${s.maxLength}`);
    if (s.minLength !== undefined && len < s.minLength) fail(`is shorter than minLength ${s.minLength}`);
    if (s.pattern !== undefined) {
      const re = jsPattern(s.pattern);
      if (re && !re.test(v)) fail(`does not match the pattern ${s.pattern}`);
    }
    const fp = formatProblem(s.format, v);
    if (fp) fail(fp);
  }
  if (typeof v === 'number') {
    if (s.maximum !== undefined && (s.exclusiveMaximum ? v >= s.maximum : v > s.maximum))
      fail(`is above the maximum ${s.maximum}${s.exclusiveMaximum ? ' (exclusive)' : ''}`);
    if (s.minimum !== undefined && (s.exclusiveMinimum ? v <= s.minimum : v < s.minimum))
      fail(`is below the minimum ${s.minimum}${s.exclusiveMinimum ? ' (exclusive)' : ''}`);
    if (s.multipleOf !== undefined && s.multipleOf > 0 && !Number.isInteger(v / s.multipleOf))
      fail(`is not a multiple of ${s.multipleOf}`);
  }
  if (Array.isArray(v)) {
    if (s.maxItems !== undefined && v.length > s.maxItems) fail(`has more than maxItems ${s.maxItems} items`);
    if (s.minItems !== undefined && v.length < s.minItems) fail(`has fewer than minItems ${s.minItems} items`);
    if (s.items) v.forEach((x, i) => out.push(...validateValue(x, s.items!, `${path}[${i}]`)));
    const lt = s['x-kubernetes-list-type'];
    if (lt === 'set') {
      for (let i = 0; i < v.length; i++)
        for (let j = 0; j < i; j++)
          if (deepEqual(v[i], v[j]))
            fail(`has a duplicate item ${JSON.stringify(v[i])} in a set list`, `${path}[${i}]`);
    }
    if (lt === 'map') {
      const keys = s['x-kubernetes-list-map-keys'] ?? [];
      const seen = new Set<string>();
      v.forEach((x, i) => {
        if (!isObject(x)) return;
        const k = JSON.stringify(keys.map((name) => x[name] ?? s.items?.properties?.[name]?.default ?? null));
        if (seen.has(k)) fail(`has a duplicate entry for the map keys ${keys.join(', ')}`, `${path}[${i}]`);
        seen.add(k);
      });
    }
  }
  if (isObject(v) && (s.type === 'object' || s.properties || s.additionalProperties)) {
    const n = Object.keys(v).length;
    if (s.maxProperties !== undefined && n > s.maxProperties)
      fail(`has more than maxProperties ${s.maxProperties} properties`);
    if (s.minProperties !== undefined && n < s.minProperties)
      fail(`has fewer than minProperties ${s.minProperties} properties`);
    for (const r of s.required ?? []) if (!(r in v)) fail(`has no '${r}', which the schema requires`);
    const embedded = s['x-kubernetes-embedded-resource'];
    for (const [k, x] of Object.entries(v)) {
      const sub = `${path}.${k}`;
      const prop = s.properties?.[k];
      if (prop) out.push(...validateValue(x, prop, sub));
      else if (typeof s.additionalProperties === 'object') out.push(...validateValue(x, s.additionalProperties, sub));
      else if (s.additionalProperties === true || s['x-kubernetes-preserve-unknown-fields']) continue;
      else if (embedded && (k === 'apiVersion' || k === 'kind' || k === 'metadata')) continue;
      else fail(`is a field the schema does not declare: the server would prune it`, sub, true);
    }
  }
  for (const sub of s.allOf ?? []) out.push(...validateValue(v, sub, path));
  if (s.anyOf && !s['x-kubernetes-int-or-string'] && !s.anyOf.some((sub) => validateValue(v, sub, path).length === 0))
    fail('matches none of the anyOf schemas');
  if (s.oneOf && s.oneOf.filter((sub) => validateValue(v, sub, path).length === 0).length !== 1)
    fail('does not match exactly one of the oneOf schemas');
  if (s.not && validateValue(v, s.not, path).length === 0) fail('matches the schema under not');
  return out;
}
