/** Finalizer helpers (controllerutil.AddFinalizer / RemoveFinalizer / ContainsFinalizer). */
import type { KubernetesObject } from '@kubernetes/client-node';

/**
 * Adds `finalizer` to `object.metadata.finalizers` if absent. Returns true when it changed the
 * object (write it with update/patch then). Never throws.
 */
export function addFinalizer(object: KubernetesObject, finalizer: string): boolean {
  object.metadata ??= {};
  object.metadata.finalizers ??= [];
  const list = object.metadata.finalizers;
  if (list.includes(finalizer)) return false;
  list.push(finalizer);
  return true;
}

/**
 * Removes every occurrence of `finalizer`. Returns true when it changed the object. Once the
 * last finalizer is gone and the object is being deleted, the API server deletes it.
 */
export function removeFinalizer(object: KubernetesObject, finalizer: string): boolean {
  const meta = object.metadata;
  const list = meta?.finalizers;
  if (!meta || !list?.includes(finalizer)) return false;
  meta.finalizers = list.filter((f) => f !== finalizer);
  return true;
}

/** True when `object` carries `finalizer`. */
export function containsFinalizer(object: KubernetesObject, finalizer: string): boolean {
  return !!object.metadata?.finalizers?.includes(finalizer);
}
