/**
 * Patch builders for `client.patch(obj, patch)`, named after controller-runtime's client.Patch
 * implementations. A patch is only computed when the client sends it.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Patch } from '../contracts.js';

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => deepEqual(x, bb[i]));
  }
  const ak = Object.keys(a as object).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const bk = Object.keys(b as object).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  if (ak.length !== bk.length) return false;
  return ak.every((k) => deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** RFC 7386 JSON merge patch turning `from` into `to` (arrays are replaced whole). */
export function createMergePatch(from: unknown, to: unknown): Json {
  const a = JSON.parse(JSON.stringify(from ?? {})) as Json;
  const b = JSON.parse(JSON.stringify(to ?? {})) as Json;
  return diff(a, b) ?? {};
}

function diff(a: Json, b: Json): Json | undefined {
  if (!isPlainObject(a) || !isPlainObject(b)) return deepEqual(a, b) ? undefined : b;
  const out: Record<string, Json> = {};
  for (const k of Object.keys(a)) if (!(k in b)) out[k] = null;
  for (const k of Object.keys(b)) {
    if (!(k in a)) {
      out[k] = b[k] as Json;
      continue;
    }
    const d = diff(a[k] as Json, b[k] as Json);
    if (d !== undefined) out[k] = d;
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

/**
 * A JSON merge patch from `original` to the object passed to `patch()` (controller-runtime's
 * client.MergeFrom). With `optimisticLock`, the patch carries the original resourceVersion so
 * the server answers 409 Conflict if the object changed meanwhile.
 */
export function mergeFrom<T extends KubernetesObject>(original: T, opts: { optimisticLock?: boolean } = {}): Patch {
  const snapshot = JSON.parse(JSON.stringify(original)) as T;
  return {
    type: 'application/merge-patch+json',
    data(obj: KubernetesObject) {
      const p = createMergePatch(snapshot, obj) as Record<string, Json>;
      if (opts.optimisticLock) {
        const md = (p.metadata ?? {}) as Record<string, Json>;
        md.resourceVersion = snapshot.metadata?.resourceVersion ?? null;
        p.metadata = md;
      }
      return p;
    },
  };
}

/** A literal JSON merge patch (RFC 7386): `client.patch(obj, mergePatch({ spec: { replicas: 3 } }))`. */
export function mergePatch(data: unknown): Patch {
  return { type: 'application/merge-patch+json', data: () => data };
}

/** A literal strategic merge patch (built-in kinds only; custom resources reject it with 415). */
export function strategicMergePatch(data: unknown): Patch {
  return { type: 'application/strategic-merge-patch+json', data: () => data };
}

/** One RFC 6902 operation. */
export interface JSONPatchOperation {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  path: string;
  value?: unknown;
  from?: string;
}

/** An RFC 6902 JSON patch: `client.patch(obj, jsonPatch([{ op: 'replace', path: '/spec/replicas', value: 3 }]))`. */
export function jsonPatch(ops: JSONPatchOperation[]): Patch {
  return { type: 'application/json-patch+json', data: () => ops };
}

/**
 * Server-side apply: the object passed to `patch()` is the applied configuration (it must carry
 * apiVersion, kind and name). Needs a field manager (the client's fieldOwner or `fieldManager`);
 * pass `{ force: true }` to take over fields owned by other managers instead of getting 409.
 */
export const Apply: Patch = {
  type: 'application/apply-patch+yaml',
  data(obj: KubernetesObject) {
    // managedFields must not be sent in an apply configuration.
    if (obj.metadata && 'managedFields' in obj.metadata) {
      const { managedFields: _drop, ...metadata } = obj.metadata as Record<string, unknown>;
      return { ...obj, metadata };
    }
    return obj;
  },
};
