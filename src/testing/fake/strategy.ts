/**
 * Per-resource strategies, as kube-apiserver's registries have them (`rest.RESTCreateStrategy`,
 * `RESTUpdateStrategy`, `RESTDeleteStrategy`): what a create starts from (PrepareForCreate: the
 * status reset, the Go defaults), what the admission plugins of a test control plane add, what a
 * create gets once it has its uid, what an update keeps of the stored object (PrepareForUpdate: the
 * status subresource's reset rules), the validation of the object (Validate, ValidateUpdate, and
 * for a custom resource its schema and scale paths), the warnings, whether an update may create
 * (AllowCreateOnUpdate), what bumps the generation, and how a delete marks the object.
 *
 * Built-in Kinds are registered from the one table of them (src/apiserver/builtin-kinds.ts), each
 * with the rules of ./builtin.ts, ./validation.ts and ./events.ts that concern it; a CRD's objects
 * get {@link customResourceStrategy}, the CRD itself the apiextensions strategy (./crdstrategy.ts).
 * The body pipeline (./pipeline.ts) and the store (./store.ts) call these in the server's order.
 */
import { BUILTIN_KINDS } from '../../apiserver/builtin-kinds.js';
import { equalJSON, validate, valueAt, type FieldErr } from '../../apiserver/structural.js';
import { childObject, type Obj, clone, goFloat, isObj } from '../../apiserver/json.js';
import {
  admitBuiltinCreate,
  defaultBuiltin,
  prepareBuiltinCreate,
  prepareBuiltinUpdate,
  resetStatusOnCreate,
  type Admission,
} from './builtin.js';
import { crdStrategy } from './crdstrategy.js';
import { eventErrors, eventUpdateErrors } from './events.js';
import { finalizerWarnings, nameWarnings, podTemplateWarnings, validateMetadata } from './metadata.js';
import { fullGroup, type Resource } from './resources.js';
import { builtinErrors } from './validation.js';
import { stringifyWire } from './wire.js';
import { now } from './apply.js';

/** How a delete the registry handles itself leaves the object: `write` false when nothing changes. */
export interface Marked {
  object: Obj;
  write: boolean;
}

/** A resource's strategy. Each method changes `o` in place unless it says it returns a new object. */
export interface Strategy {
  /** The strategy's name ('custom', 'builtin', 'namespace', 'crd', 'event'), for tests and errors. */
  readonly name: string;
  /** An update of a missing object creates it (AllowCreateOnUpdate: Events, RBAC objects). */
  readonly allowCreateOnUpdate: boolean;
  /** A delete's propagation policy adds its finalizer (false: Events, which no collector follows). */
  readonly garbageCollected: boolean;
  /**
   * PrepareForCreate, before validation: the status the create starts from, the Go defaults again,
   * empty labels and annotations dropped. `named`: the name was sent (not generated).
   */
  prepareForCreate(o: Obj, named: boolean): void;
  /** The admission plugins of a test control plane on a create, after validation (may refuse). */
  admitCreate(o: Obj, env: Admission): void;
  /** What a create gets once it has its uid and creation time (a Job's selector, a Service's IP). */
  finishCreate(o: Obj, env: Admission): void;
  /**
   * PrepareForUpdate: the status subresource's rules (`sub` 'status' keeps all but status, the main
   * resource keeps the stored status) and what the Kind keeps of the stored object. A new object.
   */
  prepareForUpdate(o: Obj, old: Obj, sub: string | undefined): Obj;
  /** Validate (`old` undefined) or ValidateUpdate; `statusOnly`: the status subresource's. */
  validate(o: Obj, old: Obj | undefined, statusOnly: boolean): FieldErr[];
  /** WarningsOnCreate (`old` undefined) or WarningsOnUpdate. */
  warnings(o: Obj, old: Obj | undefined): string[];
  /** Whether an update changed what bumps metadata.generation (all but metadata and a status). */
  specChanged(o: Obj, old: Obj): boolean;
  /** A delete the registry handles itself (Namespaces, CRDs); undefined: the store's own. */
  markForDeletion?(old: Obj, finalizers: string[]): Marked;
}

const meta = (o: Obj): Obj => childObject(o, 'metadata');

/** Empty labels and annotations are dropped (the Go maps are nil). */
function dropEmptyMaps(m: Obj): void {
  if (isObj(m.labels) && Object.keys(m.labels).length === 0) delete m.labels;
  if (isObj(m.annotations) && Object.keys(m.annotations).length === 0) delete m.annotations;
}

/** The status rules of an update: the status subresource writes status alone, the main resource all but it. */
function resetStatusForUpdate(r: Resource, o: Obj, old: Obj, sub: string | undefined): Obj {
  if (sub === 'status') {
    const status = o.status;
    const next = clone(old);
    if (status === undefined) delete next.status;
    else next.status = status;
    return next;
  }
  if (r.status) {
    if (old.status === undefined) delete o.status;
    else o.status = clone(old.status);
  }
  return o;
}

/** ObjectMeta's validation and, on update, the finalizers a deleting object may not gain. */
function metadataErrors(r: Resource, o: Obj, old: Obj | undefined): FieldErr[] {
  const errs = validateMetadata(r, o, old);
  if (old) errs.push(...newFinalizerErrors(o, old));
  return errs;
}

/** The strategy every resource starts from: a built-in Kind with no rules of its own. */
function baseStrategy(r: Resource): Strategy {
  return {
    name: 'builtin',
    allowCreateOnUpdate: false,
    garbageCollected: true,
    prepareForCreate(o) {
      resetStatusOnCreate(r, o);
      defaultBuiltin(r, o);
      dropEmptyMaps(meta(o));
    },
    admitCreate: (o, env) => admitBuiltinCreate(r, o, env),
    finishCreate: (o, env) => prepareBuiltinCreate(r, o, env),
    prepareForUpdate(o, old, sub) {
      const next = resetStatusForUpdate(r, o, old, sub);
      if (sub !== 'status') prepareBuiltinUpdate(r, next, old);
      return next;
    },
    validate: (o, old, statusOnly) => [
      ...metadataErrors(r, o, old),
      // The main resource's validation (a status write validates the status only).
      ...(statusOnly ? [] : builtinErrors(r, o, old)),
    ],
    warnings: (o, old) => [...(old ? [] : nameWarnings(r, o)), ...podTemplateWarnings(r, o)],
    specChanged: (o, old) => !equalJSON(specOf(o, true), specOf(old, true)),
  };
}

/** An object as what bumps its generation sees it: no metadata, type or (`withoutStatus`) status. */
function specOf(x: Obj, withoutStatus: boolean): Obj {
  const c = { ...x };
  delete c.metadata;
  if (withoutStatus) delete c.status;
  delete c.apiVersion;
  delete c.kind;
  return c;
}

/** The core Namespace: its name label, its finalizer and phase, and a delete that only marks it Terminating. */
function namespaceStrategy(r: Resource): Strategy {
  const base = baseStrategy(r);
  return {
    ...base,
    name: 'namespace',
    prepareForCreate(o, named) {
      base.prepareForCreate(o, named);
      // A Namespace's name label is defaulted, so validated with the rest (a generated name gets it later).
      const m = meta(o);
      if (named) m.labels = { ...(isObj(m.labels) ? m.labels : {}), 'kubernetes.io/metadata.name': m.name };
    },
    finishCreate(o, env) {
      base.finishCreate(o, env);
      const m = meta(o);
      o.spec = { finalizers: ['kubernetes'], ...(isObj(o.spec) ? o.spec : {}) };
      o.status = { phase: 'Active' };
      m.labels = { ...(isObj(m.labels) ? m.labels : {}), 'kubernetes.io/metadata.name': m.name };
    },
    /**
     * Namespaces wait for the namespace controller (which a test control plane does not run):
     * Terminating, with the finalizer of the propagation policy (`finalizers`) as for any object.
     */
    markForDeletion(old, finalizers) {
      const o = clone(old);
      const m = meta(o);
      if (m.deletionTimestamp) return { object: old, write: false };
      m.deletionTimestamp = now();
      if (finalizers.length) m.finalizers = finalizers;
      o.status = { ...(isObj(o.status) ? o.status : {}), phase: 'Terminating' };
      return { object: o, write: true };
    },
  };
}

/** Events (core/v1, and events.k8s.io/v1 viewing the same storage): their own validation; never collected. */
function eventStrategy(r: Resource): Strategy {
  const base = baseStrategy(r);
  const events = r.group === 'events.k8s.io';
  return {
    ...base,
    name: 'event',
    allowCreateOnUpdate: true,
    garbageCollected: false,
    validate: (o, old, statusOnly) => [
      ...eventErrors(o, events, !old, String(meta(o).namespace ?? '')),
      ...base.validate(o, old, statusOnly),
      ...(old && events ? eventUpdateErrors(o, old) : []),
    ],
  };
}

/** RBAC's Roles and Bindings: an update of a missing one creates it. */
function createOnUpdateStrategy(r: Resource): Strategy {
  return { ...baseStrategy(r), allowCreateOnUpdate: true };
}

/** The built-in Kinds whose strategy differs from {@link baseStrategy}, by `group/Kind` (the core group empty). */
const KIND_STRATEGIES: Record<string, (r: Resource) => Strategy> = {
  '/Namespace': namespaceStrategy,
  'apiextensions.k8s.io/CustomResourceDefinition': (r) => crdStrategy(baseStrategy(r)),
  '/Event': eventStrategy,
  'events.k8s.io/Event': eventStrategy,
  'rbac.authorization.k8s.io/Role': createOnUpdateStrategy,
  'rbac.authorization.k8s.io/ClusterRole': createOnUpdateStrategy,
  'rbac.authorization.k8s.io/RoleBinding': createOnUpdateStrategy,
  'rbac.authorization.k8s.io/ClusterRoleBinding': createOnUpdateStrategy,
};

/** Every built-in Kind the server serves, with its strategy: registered from the built-in Kinds table. */
const BUILTIN_STRATEGIES: ReadonlyMap<string, (r: Resource) => Strategy> = new Map(
  BUILTIN_KINDS.map((row) => {
    const gk = `${fullGroup(row.group)}/${row.kind}`;
    return [gk, KIND_STRATEGIES[gk] ?? baseStrategy] as const;
  }),
);

/**
 * A custom resource's strategy (apiextensions' customResourceStrategy): the status subresource's
 * reset rules, its schema's validation with ratcheting on update, the scale subresource's paths,
 * and the finalizer warnings. Its CEL rules are the pipeline's last check (./pipeline.ts).
 */
export function customResourceStrategy(r: Resource): Strategy {
  return {
    name: 'custom',
    allowCreateOnUpdate: false,
    garbageCollected: true,
    prepareForCreate(o) {
      if (r.status) delete o.status;
      dropEmptyMaps(meta(o));
    },
    admitCreate() {},
    finishCreate() {},
    prepareForUpdate: (o, old, sub) => resetStatusForUpdate(r, o, old, sub),
    validate: (o, old, statusOnly) => [...metadataErrors(r, o, old), ...schemaErrors(r, o, old, statusOnly)],
    warnings: (o, old) => [...(old ? [] : nameWarnings(r, o)), ...podTemplateWarnings(r, o), ...finalizerWarnings(o)],
    specChanged: (o, old) => !equalJSON(specOf(o, r.status), specOf(old, r.status)),
  };
}

/**
 * A custom resource's schema errors (the status subresource validates status alone); on update,
 * errors on values that did not change are dropped (validation ratcheting). Then the scale paths.
 */
function schemaErrors(r: Resource, o: Obj, old: Obj | undefined, statusOnly: boolean): FieldErr[] {
  if (!r.schema) return [];
  const schema = statusOnly ? { type: 'object', properties: { status: r.schema.properties?.status ?? {} } } : r.schema;
  const target = statusOnly ? (o.status === undefined ? {} : { status: o.status }) : o;
  let errs = validate(target, schema, '', []);
  if (old)
    errs = errs.filter(
      (e) => !e.at || !equalJSON(valueAt(o, e.at), valueAt(old, e.at)) || e.type === 'FieldValueRequired',
    );
  if (r.scale && !statusOnly) errs.push(...scaleErrors(o, r.scale.specReplicasPath));
  if (r.scale) errs.push(...scaleErrors(o, r.scale.statusReplicasPath));
  return errs;
}

const strategies = new WeakMap<Resource, Strategy>();

/** The strategy of a served resource (one per Resource, made on first use). */
export function strategyFor(r: Resource): Strategy {
  let s = strategies.get(r);
  if (s) return s;
  if (r.custom) s = customResourceStrategy(r);
  else {
    const make = BUILTIN_STRATEGIES.get(`${r.group}/${r.kind}`);
    if (!make) throw new Error(`no strategy for the built-in ${r.group}/${r.kind}: not in the built-in Kinds table`);
    s = make(r);
  }
  strategies.set(r, s);
  return s;
}

/** The replicas paths of the scale subresource must lead to an integer when present (customResourceValidator). */
export function scaleErrors(o: Obj, path: string): FieldErr[] {
  let cur: unknown = o;
  const steps = path.replace(/^\./, '').split('.');
  for (let i = 0; i < steps.length; i++) {
    if (!isObj(cur)) return [accessorError(path, cur, 'map[string]interface{}')];
    cur = cur[steps[i]];
    if (cur === undefined) return [];
  }
  // An integer past int64 is a float64 in an unstructured object (a number beyond 2^53 here).
  if (typeof cur === 'bigint' || (typeof cur === 'number' && Number.isSafeInteger(cur))) {
    if (cur < 0)
      return [{ type: 'FieldValueInvalid', field: path, value: cur, detail: 'should be a non-negative integer' }];
    // The Scale's replicas are an int32.
    if (cur > 2147483647)
      return [
        { type: 'FieldValueInvalid', field: path, value: cur, detail: 'should be less than or equal to 2147483647' },
      ];
    return [];
  }
  return [accessorError(path, cur, 'int64')];
}

function accessorError(path: string, cur: unknown, expected: string): FieldErr {
  return {
    type: 'FieldValueInvalid',
    field: path,
    value: 0,
    detail: `${path} accessor error: ${goPrint(cur)} is of the type ${goType(cur)}, expected ${expected}`,
  };
}

/** How Go's %v prints a JSON value in an accessor error. */
function goPrint(v: unknown): string {
  if (typeof v === 'number' && !Number.isSafeInteger(v)) return goFloat(v);
  return typeof v === 'string' ? v : stringifyWire(v);
}

function goType(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isSafeInteger(v) ? 'int64' : 'float64';
  if (typeof v === 'bigint') return 'int64';
  if (Array.isArray(v)) return '[]interface {}';
  return 'map[string]interface {}';
}

/** No finalizer may be added once deletion started; the server reports it twice (metadata and strategy). */
function newFinalizerErrors(o: Obj, old: Obj): FieldErr[] {
  const om = meta(old);
  const nm = meta(o);
  if (!om.deletionTimestamp || !Array.isArray(nm.finalizers)) return [];
  const before = new Set(Array.isArray(om.finalizers) ? (om.finalizers as string[]) : []);
  const added = [...new Set((nm.finalizers as string[]).filter((f) => !before.has(f)))].sort();
  if (!added.length) return [];
  const e: FieldErr = {
    type: 'FieldValueForbidden',
    field: 'metadata.finalizers',
    detail: `no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(', ')}}`,
  };
  return [e, { ...e }];
}
