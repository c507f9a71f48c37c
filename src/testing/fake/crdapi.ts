/**
 * CustomResourceDefinitions written through the fake's API, served as kube-apiserver serves them:
 * a CRD created, updated or applied is served at once with its current versions and schemas
 * (apiextensions-apiserver's crdHandler), its status gets what the naming and establishing
 * controllers write (`acceptedNames`, `NamesAccepted` and `Established` True), and `storedVersions`
 * keeps every storage version (the CRD strategy, ./crdstrategy.ts). A CRD deleted gets the cleanup finalizer and a
 * `Terminating` condition (the CRD registry's Delete); its objects are then deleted (the
 * finalizing controller) and, once none is left, the CRD goes and its resources stop being served.
 */
import type { Resource } from './resources.js';
import type { Store } from './store.js';
import type { WriteContext } from './context.js';
import { type Obj, clone, isObj } from '../../apiserver/json.js';
import { CRD_CLEANUP_FINALIZER, setCondition } from './crdstrategy.js';

export { isCRD } from './crdstrategy.js';

/** What the CRD lifecycle needs of the server. */
export interface CRDHost {
  readonly store: Store;
  /** The apiextensions.k8s.io/v1 customresourcedefinitions resource. */
  crdResource(): Resource;
  /** Serves `crd`'s versions, replacing what the CRD of that name served before. */
  serve(crd: Obj): void;
  /** Stops serving what the CRD `name` served. */
  unserve(name: string): void;
  /** What the CRD `name` serves now. */
  servedBy(name: string): Resource[];
}

const quiet = (): WriteContext => ({ dryRun: false, warnings: [], fieldManager: 'kube-apiserver' });

/**
 * After a write of the CRD `name` (or of an object of a CRD being deleted): serves what it says
 * now, establishes it, or finishes its deletion.
 */
export function syncCRD(host: CRDHost, name: string): void {
  const crd = host.store.find(host.crdResource(), undefined, name);
  if (!crd) {
    host.unserve(name);
    return;
  }
  if ((crd.metadata as Obj).deletionTimestamp) {
    for (const r of host.servedBy(name)) r.terminating = true;
    finalize(host, crd);
    return;
  }
  host.serve(crd);
  establish(host, crd);
}

/** The naming and establishing controllers: names accepted as asked, the CRD established. */
function establish(host: CRDHost, crd: Obj): void {
  const status = isObj(crd.status) ? clone(crd.status) : {};
  const names = acceptedNames(crd);
  let conditions = setCondition(status.conditions, {
    type: 'NamesAccepted',
    status: 'True',
    reason: 'NoConflicts',
    message: 'no conflicts found',
  });
  conditions = setCondition(conditions, {
    type: 'Established',
    status: 'True',
    reason: 'InitialNamesAccepted',
    message: 'the initial names have been accepted',
  });
  const next = { ...status, acceptedNames: names, conditions };
  if (JSON.stringify(next) === JSON.stringify(crd.status)) return;
  const name = String((crd.metadata as Obj).name);
  host.store.update(host.crdResource(), undefined, name, { ...crd, status: next }, 'status', quiet());
}

/** spec.names with what the server defaults (singular, listKind), in the order the server prints them. */
function acceptedNames(crd: Obj): Obj {
  const n = (isObj(crd.spec) && isObj(crd.spec.names) ? crd.spec.names : {}) as Obj;
  const kind = String(n.kind ?? '');
  const out: Obj = { plural: n.plural ?? '', singular: n.singular ?? kind.toLowerCase() };
  if (Array.isArray(n.shortNames) && n.shortNames.length) out.shortNames = n.shortNames;
  out.kind = kind;
  out.listKind = n.listKind ?? `${kind}List`;
  if (Array.isArray(n.categories) && n.categories.length) out.categories = n.categories;
  return out;
}

/** The finalizing controller's first step: the Terminating condition says instances are being deleted. */
function inProgress(host: CRDHost, crd: Obj): Obj {
  const status = isObj(crd.status) ? crd.status : {};
  const conditions = setCondition(status.conditions, {
    type: 'Terminating',
    status: 'True',
    reason: 'InstanceDeletionInProgress',
    message: 'CustomResource deletion is in progress',
  });
  if (JSON.stringify(conditions) === JSON.stringify(status.conditions)) return crd;
  const name = String((crd.metadata as Obj).name);
  return host.store.update(
    host.crdResource(),
    undefined,
    name,
    { ...crd, status: { ...status, conditions } },
    'status',
    quiet(),
  );
}

/** The finalizing controller: deletes the CRD's objects; once none is left, removes its finalizer (the CRD goes). */
function finalize(host: CRDHost, given: Obj): void {
  const name = String((given.metadata as Obj).name);
  const crd = inProgress(host, given);
  const served = host.servedBy(name);
  const r = served[0];
  let left = 0;
  if (r) {
    for (const o of host.store.all(r)) {
      const m = o.metadata as Obj;
      if (!m.deletionTimestamp)
        host.store.delete(r, r.namespaced ? String(m.namespace) : undefined, String(m.name), {}, quiet());
    }
    left = host.store.all(r).length;
  }
  const m = crd.metadata as Obj;
  const finalizers = Array.isArray(m.finalizers) ? (m.finalizers as string[]) : [];
  if (left > 0 || !finalizers.includes(CRD_CLEANUP_FINALIZER)) return;
  const next = { ...crd, metadata: { ...m, finalizers: finalizers.filter((f) => f !== CRD_CLEANUP_FINALIZER) } };
  host.store.update(host.crdResource(), undefined, name, next, undefined, quiet());
  if (!host.store.find(host.crdResource(), undefined, name)) host.unserve(name);
}
