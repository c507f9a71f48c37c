/**
 * What kube-apiserver's CustomResourceDefinition registry does to a CRD on write (the strategy's
 * PrepareForCreate/PrepareForUpdate, the registry's Delete): the CRD's strategy, registered with
 * the built-in Kinds' in ./strategy.ts; what its controllers do afterwards is ./crdapi.ts.
 */
import { storageVersion, type Resource } from './resources.js';
import { childObject, type Obj, clone } from '../../apiserver/json.js';
import { equalJSON } from '../../apiserver/structural.js';
import { now } from './apply.js';
import type { Admission } from './builtin.js';

export const CRD_CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

export const isCRD = (r: Pick<Resource, 'group' | 'kind'>): boolean =>
  r.group === 'apiextensions.k8s.io' && r.kind === 'CustomResourceDefinition';

/** What the CRD's strategy changes of the built-in one (./strategy.ts's Strategy). */
interface StrategyParts {
  name: string;
  finishCreate(o: Obj, env: Admission): void;
  prepareForUpdate(o: Obj, old: Obj, sub: string | undefined): Obj;
  markForDeletion?(old: Obj, finalizers: string[]): { object: Obj; write: boolean };
}

/**
 * apiextensions' CRD strategy over the built-in one (`base`): storedVersions (see {@link prepareCRD}),
 * and a delete that waits for the CRD's objects (./crdapi.ts): marked, with the cleanup finalizer.
 */
export function crdStrategy<S extends StrategyParts>(base: S): S {
  return {
    ...base,
    name: 'crd',
    finishCreate(o: Obj, env: Admission) {
      base.finishCreate(o, env);
      prepareCRD(o, undefined);
    },
    prepareForUpdate(o: Obj, old: Obj, sub: string | undefined) {
      const next = base.prepareForUpdate(o, old, sub);
      if (sub !== 'status') prepareCRD(next, old);
      return next;
    },
    markForDeletion(old: Obj) {
      const o = clone(old);
      const m = o.metadata as Obj;
      m.deletionTimestamp ??= now();
      markCRDForDeletion(o);
      return { object: o, write: !equalJSON(o, old) };
    },
  };
}

/** The CRD strategy on create and update: `storedVersions` gains the storage version (PrepareForCreate/Update). */
export function prepareCRD(o: Obj, old: Obj | undefined): void {
  const storage = storageVersion(o);
  const status = childObject(o, 'status');
  if (!old) {
    for (const k of Object.keys(status)) delete status[k];
    status.acceptedNames = { plural: '', kind: '' };
  }
  const stored = Array.isArray(status.storedVersions) ? (status.storedVersions as string[]) : [];
  if (storage && !stored.includes(storage)) status.storedVersions = [...stored, storage];
}

/** The CRD registry's Delete: the cleanup finalizer and a Terminating condition (no other change). */
export function markCRDForDeletion(o: Obj): void {
  const m = o.metadata as Obj;
  const finalizers = Array.isArray(m.finalizers) ? (m.finalizers as string[]) : [];
  if (!finalizers.includes(CRD_CLEANUP_FINALIZER)) m.finalizers = [...finalizers, CRD_CLEANUP_FINALIZER];
  const status = childObject(o, 'status');
  status.conditions = setCondition(status.conditions, {
    type: 'Terminating',
    status: 'True',
    reason: 'InstanceDeletionPending',
    message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
  });
}

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
}

/** apiextensions' SetCRDCondition: replaces the condition of that type, keeping its time when its status stays. */
export function setCondition(list: unknown, c: Condition): Obj[] {
  const conditions = Array.isArray(list) ? (clone(list) as Obj[]) : [];
  const i = conditions.findIndex((x) => x.type === c.type);
  const time = i >= 0 && conditions[i].status === c.status ? conditions[i].lastTransitionTime : now();
  const entry = { type: c.type, status: c.status, lastTransitionTime: time, reason: c.reason, message: c.message };
  if (i >= 0) conditions[i] = entry;
  else conditions.push(entry);
  return conditions;
}
