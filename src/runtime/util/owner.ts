/** Owner references (controller-runtime's controllerutil.SetControllerReference / SetOwnerReference). */
import type { KubernetesObject, V1OwnerReference } from '@kubernetes/client-node';
import { checkOptions } from '../options.js';

/** Thrown when an object already has a different controller (controllerutil.AlreadyOwnedError). */
export class AlreadyOwnedError extends Error {
  readonly owner: V1OwnerReference;
  constructor(object: KubernetesObject, owner: V1OwnerReference) {
    super(
      `Object ${object.metadata?.namespace ? `${object.metadata.namespace}/` : ''}${object.metadata?.name} is already owned by another ${owner.kind} controller ${owner.name}`,
    );
    this.name = 'AlreadyOwnedError';
    this.owner = owner;
  }
}

/** Options of {@link setOwnerReference} / {@link setControllerReference}. */
export interface OwnerReferenceOptions {
  /** Set blockOwnerDeletion (default: true for controller references, unset otherwise). */
  blockOwnerDeletion?: boolean;
}

const groupOf = (apiVersion: string) => (apiVersion.includes('/') ? apiVersion.split('/')[0] : '');

function sameOwner(a: V1OwnerReference, b: V1OwnerReference): boolean {
  return groupOf(a.apiVersion) === groupOf(b.apiVersion) && a.kind === b.kind && a.name === b.name;
}

function referenceTo(owner: KubernetesObject, object: KubernetesObject): V1OwnerReference {
  const { apiVersion, kind } = owner;
  const name = owner.metadata?.name;
  const uid = owner.metadata?.uid;
  if (!apiVersion || !kind || !name || !uid) {
    const missing = [
      ...(apiVersion ? [] : ['apiVersion']),
      ...(kind ? [] : ['kind']),
      ...(name ? [] : ['metadata.name']),
      ...(uid ? [] : ['metadata.uid']),
    ];
    throw new Error(
      `owner reference: the owner lacks ${missing.join(', ')} (use the object as read from the API server)`,
    );
  }
  const ownerNs = owner.metadata?.namespace;
  const objNs = object.metadata?.namespace;
  if (ownerNs) {
    if (!objNs)
      throw new Error(`cluster-scoped resource must not have a namespace-scoped owner, owner's namespace ${ownerNs}`);
    if (ownerNs !== objNs)
      throw new Error(
        `cross-namespace owner references are disallowed, owner's namespace ${ownerNs}, obj's namespace ${objNs}`,
      );
  }
  return { apiVersion, kind, name, uid };
}

function upsert(object: KubernetesObject, ref: V1OwnerReference): void {
  object.metadata ??= {};
  object.metadata.ownerReferences ??= [];
  const refs = object.metadata.ownerReferences;
  const i = refs.findIndex((r) => sameOwner(r, ref));
  if (i >= 0) refs[i] = ref;
  else refs.push(ref);
}

/**
 * Makes `owner` the managing controller of `object` (controller: true, blockOwnerDeletion: true),
 * so that deleting the owner garbage-collects the object and `owns()` watches map its events to
 * the owner. Replaces an existing reference to the same owner. Mutates `object` only; write it
 * afterwards. Throws AlreadyOwnedError when another controller owns it, and an Error for a
 * cross-namespace or namespaced-owner-of-cluster-scoped reference or an owner not read from the server.
 */
export function setControllerReference(
  owner: KubernetesObject,
  object: KubernetesObject,
  options: OwnerReferenceOptions = {},
): void {
  checkOptions('setControllerReference', options, { blockOwnerDeletion: true });
  const ref = referenceTo(owner, object);
  ref.controller = true;
  ref.blockOwnerDeletion = options.blockOwnerDeletion ?? true;
  const existing = object.metadata?.ownerReferences?.find((r) => r.controller);
  if (existing && !sameOwner(existing, ref)) throw new AlreadyOwnedError(object, existing);
  upsert(object, ref);
}

/**
 * Adds (or replaces) a non-controller owner reference to `owner` on `object`. Same errors as
 * setControllerReference except AlreadyOwnedError. A controller flag on an existing reference to
 * the same owner is kept.
 */
export function setOwnerReference(
  owner: KubernetesObject,
  object: KubernetesObject,
  options: OwnerReferenceOptions = {},
): void {
  checkOptions('setOwnerReference', options, { blockOwnerDeletion: true });
  const ref = referenceTo(owner, object);
  const existing = object.metadata?.ownerReferences?.find((r) => sameOwner(r, ref));
  if (existing?.controller) ref.controller = true;
  const block = options.blockOwnerDeletion ?? existing?.blockOwnerDeletion;
  if (block !== undefined) ref.blockOwnerDeletion = block;
  upsert(object, ref);
}

/** The controller owner reference of `object`, if any. */
export function getControllerOf(object: KubernetesObject): V1OwnerReference | undefined {
  return object.metadata?.ownerReferences?.find((r) => r.controller);
}

/** Removes the owner reference to `owner` from `object`. Returns true when one was removed. */
export function removeOwnerReference(owner: KubernetesObject, object: KubernetesObject): boolean {
  const refs = object.metadata?.ownerReferences;
  if (!refs || !owner.apiVersion || !owner.kind || !owner.metadata?.name) return false;
  const probe = { apiVersion: owner.apiVersion, kind: owner.kind, name: owner.metadata.name, uid: '' };
  const i = refs.findIndex((r) => sameOwner(r, probe));
  if (i < 0) return false;
  refs.splice(i, 1);
  return true;
}

/** True when `object` has a reference (controller or not) to `owner`. */
export function hasOwnerReference(owner: KubernetesObject, object: KubernetesObject): boolean {
  if (!owner.apiVersion || !owner.kind || !owner.metadata?.name) return false;
  const probe = { apiVersion: owner.apiVersion, kind: owner.kind, name: owner.metadata.name, uid: '' };
  return !!object.metadata?.ownerReferences?.some((r) => sameOwner(r, probe));
}
