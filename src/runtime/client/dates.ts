/**
 * Timestamps as client-node's model types declare them. The models type every metav1.Time and
 * MicroTime field as `Date` (`metadata.creationTimestamp`, a condition's `lastTransitionTime`);
 * JSON brings strings. client-node's own API turns them into Dates with its ObjectSerializer, which
 * also drops every field its models do not know (a newer API server's fields would then be lost by
 * the next update). We walk the same attribute tables client-node generates
 * (`getAttributeTypeMap()`), copied into ./client-node-dates.ts by
 * scripts/gen-client-node-tables.mjs (a test compares the copy with client-node, so importing
 * kubeforge/runtime need not load client-node), and replace only the `Date`-typed strings, in
 * place, keeping every other field as it came: a value then has the type it is declared with, and
 * a write sends it back (Date's toJSON is RFC 3339).
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { ResourceInfo } from '../contracts.js';
import { DATE_STEPS } from './client-node-dates.js';
import { builtinModelOf } from './types.js';

/** A step of a revival plan: which attribute, and what is under it. */
type Step = { key: string; kind: 'date' } | { key: string; kind: 'object' | 'array' | 'map'; sub: Plan };
type Plan = Step[];

const plans = new Map<string, Plan | null>();
const DATE_ELEMENT: Plan = [{ key: '', kind: 'date' }];

/** The Date paths under a model (null when it has none), from the generated table. */
function planFor(model: string): Plan | null {
  const known = plans.get(model);
  if (known !== undefined) return known;
  const steps = Object.hasOwn(DATE_STEPS, model) ? DATE_STEPS[model] : undefined;
  const plan: Plan | null = steps
    ? steps.map(([key, kind, element]): Step => {
        if (kind === 'date') return { key, kind };
        const sub = element === 'Date' ? DATE_ELEMENT : planFor(element);
        // The table lists a step only for an element that has Date paths under it.
        if (!sub)
          throw new Error(`kubeforge/runtime: date table: ${model}.${key} names ${element}, which has no dates`);
        return { key, kind, sub };
      })
    : null;
  plans.set(model, plan);
  return plan;
}

function toDate(v: unknown): unknown {
  if (typeof v !== 'string' || v === '') return v;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? v : d;
}

function apply(value: unknown, plan: Plan): void {
  if (!value || typeof value !== 'object') return;
  const o = value as Record<string, unknown>;
  for (const step of plan) {
    const v = o[step.key];
    if (v === undefined || v === null) continue;
    if (step.kind === 'date') o[step.key] = toDate(v);
    else if (step.kind === 'object') apply(v, step.sub);
    else if (step.kind === 'array' && Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        if (step.sub[0].kind === 'date' && step.sub[0].key === '') v[i] = toDate(v[i]);
        else apply(v[i], step.sub);
      }
    } else if (step.kind === 'map' && typeof v === 'object') {
      const m = v as Record<string, unknown>;
      for (const k of Object.keys(m)) {
        if (step.sub[0].kind === 'date' && step.sub[0].key === '') m[k] = toDate(m[k]);
        else apply(m[k], step.sub);
      }
    }
  }
}

function isBuiltInGroup(group: string): boolean {
  return group === '' || !group.includes('.') || group.endsWith('.k8s.io');
}

/**
 * client-node's model class name of a built-in kind, if it has one: the one table of built-in
 * Kinds names it (core/v1 Event is CoreV1Event); other Kubernetes groups' kinds (APIService, the
 * beta versions) by client-node's rule, version then Kind (`apiregistration.k8s.io/v1 APIService` -> V1APIService).
 */
function modelName(r: Pick<ResourceInfo, 'apiVersion' | 'group' | 'version' | 'kind'>): string | undefined {
  const listed = builtinModelOf(r.apiVersion, r.kind);
  if (listed) return listed;
  if (!isBuiltInGroup(r.group)) return undefined;
  const name = r.version.charAt(0).toUpperCase() + r.version.slice(1) + r.kind;
  return Object.hasOwn(DATE_STEPS, name) ? name : undefined;
}

const CONDITION_PLAN: Plan = [{ key: 'lastTransitionTime', kind: 'date' }];

/**
 * Replaces, in place, the timestamp strings of an object read from the API server with Dates
 * where client-node's model types declare `Date`, and returns the object. Built-in kinds follow
 * their client-node model; other kinds (custom resources) get `metadata` as a V1ObjectMeta and
 * `status.conditions[].lastTransitionTime` as in V1Condition (what `kubeforge create api`
 * declares). Strings that are not timestamps are left alone. Never throws.
 */
export function reviveDates<T>(obj: T, r: Pick<ResourceInfo, 'apiVersion' | 'group' | 'version' | 'kind'>): T {
  if (!obj || typeof obj !== 'object') return obj;
  const name = modelName(r);
  const plan = name ? planFor(name) : null;
  if (plan) {
    apply(obj, plan);
    return obj;
  }
  const o = obj as KubernetesObject & { status?: { conditions?: unknown } };
  const meta = planFor('V1ObjectMeta');
  if (meta && o.metadata) apply(o.metadata, meta);
  const conditions = o.status && typeof o.status === 'object' ? o.status.conditions : undefined;
  if (Array.isArray(conditions)) for (const c of conditions) apply(c, CONDITION_PLAN);
  return obj;
}

/** Formats a Date as a Kubernetes MicroTime (RFC 3339 with exactly six fractional digits). */
export function microTime(d: Date = new Date()): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** Formats a Date as a Kubernetes Time (RFC 3339, whole seconds). */
export function rfc3339(d: Date = new Date()): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * A JSON copy of `after` for the wire, Dates written back as the API server writes timestamps:
 * a Date equal to the string at the same place in `before` (the object as received) keeps that
 * string exactly (so an untouched timestamp is no change in a patch); any other Date is written as
 * JSON.stringify writes it (toISOString, as the client sends Dates). Other values are copied as
 * JSON.stringify would.
 */
export function toWireJSON(after: unknown, before?: unknown): unknown {
  if (after instanceof Date) {
    if (Number.isNaN(after.getTime())) return null;
    if (typeof before === 'string' && new Date(before).getTime() === after.getTime()) return before;
    return after.toISOString();
  }
  if (typeof after === 'number') return Number.isFinite(after) ? after : null;
  if (after === null || typeof after !== 'object') return after;
  const withToJSON = after as { toJSON?: () => unknown };
  if (typeof withToJSON.toJSON === 'function') return JSON.parse(JSON.stringify(after));
  if (Array.isArray(after)) {
    const b = Array.isArray(before) ? before : [];
    return after.map((v, i) => {
      const w = toWireJSON(v, b[i]);
      return w === undefined || typeof w === 'function' || typeof w === 'symbol' ? null : w;
    });
  }
  const b = before && typeof before === 'object' && !Array.isArray(before) ? (before as Record<string, unknown>) : {};
  const out: Record<string, unknown> = {};
  const src = after as Record<string, unknown>;
  // Object.keys and plain stores: a webhook's defaulted object goes through here on every request,
  // and defineProperty on every key made it the defaulter's largest cost (and its copies slow
  // dictionary-mode objects for the patch that compares them).
  const keys = Object.keys(src);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    const v = src[k];
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    const w = toWireJSON(v, Object.hasOwn(b, k) ? b[k] : undefined);
    // JSON.parse makes "__proto__" an own key; define it so it stays one (a store would set the prototype).
    if (k === '__proto__')
      Object.defineProperty(out, k, { value: w, enumerable: true, writable: true, configurable: true });
    else out[k] = w;
  }
  return out;
}
