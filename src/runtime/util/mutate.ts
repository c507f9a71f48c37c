/** createOrUpdate / createOrPatch (controller-runtime's controllerutil.CreateOrUpdate / CreateOrPatch). */
import { isDeepStrictEqual } from 'node:util';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Client, ObjectKey, TypeDescriptor } from '../contracts.js';
import { createMergePatch, isNotFound, mergePatch } from '../client/index.js';

/** What createOrUpdate / createOrPatch did. */
export type OperationResult = 'unchanged' | 'created' | 'updated' | 'updatedStatus' | 'updatedStatusOnly';

/** Sets the desired state on the object in place. Must not change its name or namespace. */
export type MutateFn = () => void | Promise<void>;

function keyOf(obj: KubernetesObject): ObjectKey {
  if (!obj.metadata?.name) throw new Error('createOrUpdate/createOrPatch: the object needs metadata.name');
  return { namespace: obj.metadata.namespace, name: obj.metadata.name };
}

function typeOf(obj: KubernetesObject): TypeDescriptor {
  if (!obj.apiVersion || !obj.kind)
    throw new Error('createOrUpdate/createOrPatch: the object needs apiVersion and kind');
  return { apiVersion: obj.apiVersion, kind: obj.kind };
}

/**
 * Replaces the own properties of `target` with a copy of those of `source` (keeps the target's
 * identity/class and the Dates the client returns). Nothing to do when the client's write already
 * refreshed `target` itself.
 */
function replaceContents(target: KubernetesObject, source: KubernetesObject): void {
  if (target === source) return;
  const apiVersion = target.apiVersion;
  const kind = target.kind;
  const copy = structuredClone({ ...source });
  for (const k of Object.keys(target)) delete (target as Record<string, unknown>)[k];
  Object.assign(target, copy);
  target.apiVersion ??= apiVersion;
  target.kind ??= kind;
}

async function mutateChecked(obj: KubernetesObject, key: ObjectKey, mutate: MutateFn): Promise<void> {
  await mutate();
  const after = keyOf(obj);
  if (after.name !== key.name || (after.namespace ?? '') !== (key.namespace ?? '')) {
    throw new Error('MutateFn cannot mutate object name and/or object namespace');
  }
}

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v ?? null)) as T;

/**
 * Reads the object named by `obj` (through `client`, i.e. the cache for the manager's client),
 * fills `obj` with it, applies `mutate`, and creates it when absent or updates it (PUT with the
 * read resourceVersion) when `mutate` changed anything. `obj` ends up holding the server's answer.
 * On error: rejects with the client's StatusError (a ConflictError when the object changed
 * between read and write: let the reconcile requeue), or an Error when `mutate` changed the key.
 */
export async function createOrUpdate<T extends KubernetesObject>(
  client: Client,
  obj: T,
  mutate: MutateFn,
): Promise<OperationResult> {
  const key = keyOf(obj);
  const type = typeOf(obj);
  const current = await getIfExists(client, type, key);
  if (current === undefined) {
    await mutateChecked(obj, key, mutate);
    replaceContents(obj, await client.create(obj));
    return 'created';
  }
  replaceContents(obj, current);
  const before = clone(obj);
  await mutateChecked(obj, key, mutate);
  if (isDeepStrictEqual(before, clone(obj))) return 'unchanged';
  replaceContents(obj, await client.update(obj));
  return 'updated';
}

/** The object, or undefined when the server (or cache) answers NotFound; other errors are thrown. */
async function getIfExists(
  client: Client,
  type: TypeDescriptor,
  key: ObjectKey,
): Promise<KubernetesObject | undefined> {
  try {
    return await client.get(type, key);
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

function isEmpty(p: unknown): boolean {
  return p === undefined || p === null || (typeof p === 'object' && Object.keys(p as object).length === 0);
}

/**
 * Like createOrUpdate, but writes JSON merge patches: one for everything except `status`, and one
 * to the status subresource when `mutate` changed the status (also right after a create when the
 * mutated object carries a status). Resolves 'updated', 'updatedStatus' (both), 'updatedStatusOnly'
 * or 'unchanged'/'created'. Patches carry no resourceVersion, so concurrent writers do not
 * conflict (last write wins per field). Rejects with the client's StatusError (NotFound for the
 * status patch when the type has no status subresource).
 */
export async function createOrPatch<T extends KubernetesObject>(
  client: Client,
  obj: T,
  mutate: MutateFn,
): Promise<OperationResult> {
  const key = keyOf(obj);
  const type = typeOf(obj);
  const statusOf = (o: KubernetesObject) => (o as { status?: unknown }).status;
  const current = await getIfExists(client, type, key);
  if (current === undefined) {
    await mutateChecked(obj, key, mutate);
    const wanted = clone(statusOf(obj));
    const created = await client.create(obj);
    replaceContents(obj, created);
    if (!isEmpty(wanted)) {
      const p = createMergePatch(statusOf(created) ?? {}, wanted);
      if (!isEmpty(p)) replaceContents(obj, await client.status().patch(obj, mergePatch({ status: p })));
    }
    return 'created';
  }
  replaceContents(obj, current);
  const before = clone(obj) as KubernetesObject & { status?: unknown };
  await mutateChecked(obj, key, mutate);
  const after = clone(obj) as KubernetesObject & { status?: unknown };
  // The status as the caller set it (Dates kept), put back after the main patch's answer.
  const wantedStatus = statusOf(obj) === undefined ? undefined : structuredClone(statusOf(obj));
  const beforeStatus = before.status;
  const afterStatus = after.status;
  delete before.status;
  delete after.status;
  const objPatch = createMergePatch(before, after);
  const statusPatch = createMergePatch(beforeStatus ?? {}, afterStatus ?? {});
  let result: OperationResult = 'unchanged';
  if (!isEmpty(objPatch)) {
    const patched = await client.patch(obj, mergePatch(objPatch));
    replaceContents(obj, patched);
    if (wantedStatus !== undefined) (obj as { status?: unknown }).status = wantedStatus;
    result = 'updated';
  }
  if (!isEmpty(statusPatch)) {
    replaceContents(obj, await client.status().patch(obj, mergePatch({ status: statusPatch })));
    result = result === 'updated' ? 'updatedStatus' : 'updatedStatusOnly';
  }
  return result;
}
