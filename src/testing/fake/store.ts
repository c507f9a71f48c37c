/**
 * The fake API server's storage and the API server's semantics for each verb: resourceVersion
 * and generation as the server keeps them, optimistic concurrency, finalizers and
 * deletionTimestamp, the status subresource, generateName, namespaces that must exist, and for
 * custom resources the CRD's schema (pruning, defaults, value validations, CEL rules with oldSelf).
 * Every refusal is a Status as the API server words it (see ./status.ts).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Operation } from 'fast-json-patch';
import { requireFastJsonPatch } from '../../runtime/client/lazy-require.cjs';
import { applyDefaults, equalJSON, prune } from '../../apiserver/structural.js';
import { type Resource, scaleOf } from './resources.js';
import {
  alreadyExists,
  badRequest,
  conflict,
  forbidden,
  invalid,
  notFound,
  ApiStatus,
  unsupportedMediaType,
} from './status.js';
import { ConvertError, convertPatched, decodeBuiltin, goOrder } from './decode.js';
import type { Admission } from './builtin.js';
import { strategicMerge } from './smp.js';
import { applyConfiguration, applyScale, duplicateItems, now, trackUpdate } from './apply.js';
import { goValue, typeErrors } from './typed.js';
import { apiVersionOf } from '../../runtime/client/types.js';
import { childObject, type Obj, clone, isObj } from '../../apiserver/json.js';
import { sortKeysDeep } from '../../util/json.js';
import { stringifyWire } from './wire.js';
import { printCoreEvent } from './events.js';
import { manager, type WriteContext } from './context.js';
import {
  checkTypeMeta,
  decodeObject,
  StrictDecodingError,
  unknownMetadata,
  validateObject,
  type CelRules,
} from './pipeline.js';
import { strategyFor } from './strategy.js';

export type { CelRules } from './pipeline.js';
export type { AdmissionHooks, WriteContext } from './context.js';

const meta = (o: Obj): Obj => childObject(o, 'metadata');

/** A watch event as the API server streams it. */
export interface StoredEvent {
  rv: number;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  storageKey: string;
  namespace: string;
  object: Obj;
  /** The object before this event (MODIFIED and DELETED), for watches with selectors. */
  prev?: Obj;
}

const GENERATE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** What a watch subscriber gets. */
export type Subscriber = (e: StoredEvent) => void;

const EVENT_WINDOW = 10_000;

export class Store {
  private rv = 1;
  private readonly data = new Map<string, Map<string, Obj>>();
  private readonly events: StoredEvent[] = [];
  private readonly subscribers = new Set<Subscriber>();
  /** Namespaced resources whose namespace must exist; the Namespace resource itself. */
  /**
   * `celRules` evaluates a schema's CEL rules (packages/cel's validateObject), handed in (by
   * {@link useCelRules}) once a served schema has rules, so that neither importing
   * kubeforge/testing nor a fake server of CRDs without rules loads the CEL engine.
   */
  private celRules?: CelRules;
  /** What built-in Kinds' admission looks up and allocates on create (./builtin.ts). */
  private readonly admission: Admission;
  private lastClusterIP = 1;

  /** `resourceOf` finds a served resource by apiVersion and kind (the ServiceAccount a Pod needs). */
  constructor(
    private readonly namespaces: Resource,
    resourceOf: (apiVersion: string, kind: string) => Resource | undefined = () => undefined,
  ) {
    this.admission = {
      find: (kind, namespace, name) => {
        const r = resourceOf('v1', kind);
        return r ? this.find(r, namespace, name) : undefined;
      },
      // The service range of a test control plane is 10.0.0.0/24, 10.0.0.1 the kubernetes Service's.
      allocateClusterIP: () => {
        this.lastClusterIP = (this.lastClusterIP % 253) + 2;
        return `10.0.0.${this.lastClusterIP}`;
      },
    };
    for (const ns of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
      this.put(
        namespaces,
        {
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name: ns, labels: { 'kubernetes.io/metadata.name': ns } },
          spec: { finalizers: ['kubernetes'] },
          status: { phase: 'Active' },
        },
        'ADDED',
      );
    }
  }

  /** Runs `rules` for the CEL rules of schemas from now on. */
  useCelRules(rules: CelRules): void {
    this.celRules = rules;
  }

  currentRV(): number {
    return this.rv;
  }

  oldestRV(): number {
    return this.events.length ? this.events[0].rv - 1 : this.rv;
  }

  eventsAfter(rv: number): StoredEvent[] {
    return this.events.filter((e) => e.rv > rv);
  }

  subscribe(s: Subscriber): () => void {
    this.subscribers.add(s);
    return () => this.subscribers.delete(s);
  }

  private bucket(r: Resource): Map<string, Obj> {
    let b = this.data.get(r.storageKey);
    if (!b) {
      b = new Map();
      this.data.set(r.storageKey, b);
    }
    return b;
  }

  private key(namespace: string | undefined, name: string): string {
    return `${namespace ?? ''}/${name}`;
  }

  /** Writes `obj` with a new resourceVersion and tells the watchers. */
  private put(r: Resource, obj: Obj, type: StoredEvent['type']): Obj {
    const m = meta(obj);
    this.rv++;
    m.resourceVersion = String(this.rv);
    const k = this.key(m.namespace as string | undefined, String(m.name));
    const prev = this.bucket(r).get(k);
    // `obj` is in r's version; a view of another resource's storage (events.k8s.io) is stored converted.
    const stored = r.view ? r.view.toStorage(obj) : obj;
    if (type === 'DELETED') this.bucket(r).delete(k);
    else this.bucket(r).set(k, stored);
    const ev: StoredEvent = {
      rv: this.rv,
      type,
      storageKey: r.storageKey,
      namespace: String(m.namespace ?? ''),
      object: stored,
      prev,
    };
    this.events.push(ev);
    if (this.events.length > EVENT_WINDOW) this.events.splice(0, this.events.length - EVENT_WINDOW);
    for (const s of this.subscribers) s(ev);
    // Events answer as they read back (the Go struct's fields that are never omitted).
    return this.printed(r, obj);
  }

  /** An object as the answer prints it: Events with their Go struct's fields that are never omitted. */
  private printed(r: Resource, o: Obj): Obj {
    return r.storageKey === '/events' ? this.asVersion(r, r.view ? r.view.toStorage(o) : o) : o;
  }

  /** The stored object (a copy, in `r`'s version), or undefined. */
  find(r: Resource, namespace: string | undefined, name: string): Obj | undefined {
    const o = this.bucket(r).get(this.key(r.namespaced ? namespace : undefined, name));
    return o ? this.asVersion(r, o) : undefined;
  }

  /** A stored object as `r`'s version reads it: apiVersion, and the version's defaults. */
  asVersion(r: Resource, o: Obj): Obj {
    let c = clone(o);
    if (r.storageKey === '/events') c = printCoreEvent(c);
    if (r.view) c = r.view.fromStorage(c);
    c.apiVersion = apiVersionOf(r);
    // As read from storage: the storage version's defaults, then the version asked for.
    if (r.custom && r.storageSchema && r.storageSchema !== r.schema) applyDefaults(c, r.storageSchema);
    if (r.custom) applyDefaults(c, r.schema);
    return c;
  }

  /** All objects of a resource (in `namespace` when given), in the server's key order. */
  all(r: Resource, namespace?: string): Obj[] {
    const out: [string, Obj][] = [];
    for (const [k, o] of this.bucket(r)) if (namespace === undefined || k.startsWith(`${namespace}/`)) out.push([k, o]);
    out.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    return out.map(([, o]) => this.asVersion(r, o));
  }

  private get(r: Resource, namespace: string | undefined, name: string): Obj {
    const o = this.find(r, namespace, name);
    if (!o) throw notFound(r, name);
    return o;
  }

  read(r: Resource, namespace: string | undefined, name: string): Obj {
    return this.get(r, namespace, name);
  }

  /** The namespace must exist, and not be terminating (`creating`: the new object's name). */
  private checkNamespace(r: Resource, namespace: string | undefined, creating: string | false): void {
    if (!r.namespaced) return;
    const ns = this.find(this.namespaces, undefined, namespace ?? '');
    if (!ns) throw notFound(this.namespaces, namespace ?? '');
    if (creating !== false && isObj(ns.metadata) && ns.metadata.deletionTimestamp)
      throw forbidden(
        r,
        creating,
        `unable to create new content in namespace ${namespace} because it is being terminated`,
        {
          cause: {
            reason: 'NamespaceTerminating',
            message: `namespace ${namespace} is being terminated`,
            field: 'metadata.namespace',
          },
        },
      );
  }

  /**
   * POST: the body through the pipeline (./pipeline.ts) and the strategy (./strategy.ts) in the
   * server's order (rest.BeforeCreate, then the storage), admission where the server runs it.
   */
  create(r: Resource, namespace: string | undefined, body: unknown, ctx: WriteContext): Obj {
    if (!isObj(body)) throw badRequest('the body of the request is not a JSON object');
    const strategy = strategyFor(r);
    const decoded = decodeObject(r, body, ctx, false);
    placeInNamespace(r, meta(decoded), namespace);
    if (r.terminating)
      throw forbidden(
        r,
        String(meta(decoded).name ?? ''),
        'create not allowed while custom resource definition is terminating',
      );
    // The NamespaceLifecycle admission plugin runs before the webhooks and the strategy's validation.
    this.checkNamespace(r, namespace, String(meta(decoded).name ?? ''));
    const o = ctx.admit ? ctx.admit.mutate(decoded, undefined) : decoded;
    const m = meta(o);
    // A mutating webhook may not move the object to another namespace (rest.BeforeCreate).
    placeInNamespace(r, m, namespace);
    // A Namespace's name label is a default: set before a generated name is (by the strategy then).
    const named = typeof m.name === 'string' && m.name !== '';
    if (!m.name && typeof m.generateName === 'string' && m.generateName) m.name = generatedName(m.generateName);
    const presetRV = m.resourceVersion !== undefined && m.resourceVersion !== '';
    const givenRV = m.resourceVersion;
    for (const k of CREATE_CLEARED) delete m[k];
    strategy.prepareForCreate(o, named);
    // The field manager records the object as decoded and defaulted (a Namespace's name label is a
    // default), before the admission plugins and the strategy's PrepareForCreate add theirs (a
    // Namespace's finalizer, a Service's cluster IP).
    const tracked = ctx.applied ? undefined : clone(o);
    validateObject(r, o, undefined, ctx, false, this.celRules);
    // The storage refuses it after validation: a Go error, 500 without a reason.
    if (presetRV && !ctx.dryRun)
      throw new ApiStatus(500, '', 'resourceVersion should not be set on objects to be created');
    strategy.admitCreate(o, this.admission);
    if (this.find(r, namespace, String(m.name))) throw alreadyExists(r, String(m.name));
    m.uid = randomUUID();
    m.creationTimestamp = now();
    if (r.generation) m.generation = 1;
    strategy.finishCreate(o, this.admission);
    if (tracked) trackCreate(r, o, tracked, ctx);
    ctx.admit?.validate(o, undefined);
    // A dry run never reaches the storage's check: the preset resourceVersion is answered as given.
    if (ctx.dryRun && presetRV) m.resourceVersion = givenRV;
    if (ctx.dryRun) return this.printed(r, o);
    const stored = this.put(r, o, 'ADDED');
    // A custom resource read back through a version that is not the storage one: its defaults too.
    return r.custom ? this.asVersion(r, stored) : clone(stored);
  }

  /**
   * PUT: the whole object (`sub` 'status' for the status subresource). `patched` (a patch's
   * result): a missing resourceVersion is no error, and the update never creates.
   */
  update(
    r: Resource,
    namespace: string | undefined,
    name: string,
    body: unknown,
    sub: string | undefined,
    ctx: WriteContext,
    patched = false,
  ): Obj {
    if (!isObj(body)) throw badRequest('the body of the request is not a JSON object');
    const strategy = strategyFor(r);
    let o = decodeObject(r, body, ctx, patched);
    const m = meta(o);
    if (m.name !== undefined && m.name !== name)
      throw badRequest(`the name of the object (${String(m.name)}) does not match the name on the URL (${name})`);
    if (r.namespaced && m.namespace !== undefined && m.namespace !== '' && m.namespace !== namespace)
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    const rv = m.resourceVersion;
    // The storage parses the precondition (a Go error: 500 without a reason) after it read the
    // object, or before it creates one (Events and RBAC objects: AllowCreateOnUpdate).
    if (strategy.allowCreateOnUpdate && !patched && sub === undefined) {
      checkRVSyntax(rv);
      if (!this.find(r, namespace, name)) return this.createOnUpdate(r, namespace, body, rv, ctx);
    }
    this.get(r, namespace, name);
    checkRVSyntax(rv);
    const old = this.get(r, namespace, name);
    if (ctx.admit) o = ctx.admit.mutate(o, old);
    checkUpdatePreconditions(r, namespace, name, rv, meta(o), meta(old), patched);
    const applied = ctx.applied ? meta(o).managedFields : undefined;
    const nm = meta(o);
    nm.name = name;
    // A cluster-scoped object has no namespace, whatever the body says (it was stored under it).
    if (r.namespaced) nm.namespace = namespace;
    else delete nm.namespace;
    o = strategy.prepareForUpdate(o, old, sub);
    keepSystemFields(r, o, old, sub);
    this.trackUpdateFields(r, o, old, ctx, sub, applied);
    validateObject(r, o, old, ctx, sub === 'status', this.celRules);
    if (ctx.applied && !ctx.appliedConverted) noOpApplyTime(o, old, ctx.fieldManager);
    ctx.admit?.validate(o, old);
    return this.commitUpdate(r, o, old, ctx);
  }

  /** An update of a missing object that creates it (AllowCreateOnUpdate). */
  private createOnUpdate(r: Resource, namespace: string | undefined, body: Obj, rv: unknown, ctx: WriteContext): Obj {
    // Its decoding warnings were given by this update already.
    // A dry run answers with the resourceVersion the body gave (nothing checks it).
    const created = this.create(
      r,
      namespace,
      { ...body, metadata: { ...meta(body), resourceVersion: undefined } },
      { ...ctx, warnings: [] },
    );
    if (ctx.dryRun && typeof rv === 'string' && rv !== '') meta(created).resourceVersion = rv;
    ctx.created = true;
    return created;
  }

  /** managedFields: apply's own, or the field manager's Update entry (valid ones sent reset the record). */
  private trackUpdateFields(
    r: Resource,
    o: Obj,
    old: Obj,
    ctx: WriteContext,
    sub: string | undefined,
    applied: unknown,
  ): void {
    const nm = meta(o);
    const om = meta(old);
    // Ownership follows the old object's managedFields (what a client sends back is not trusted).
    if (ctx.applied) {
      nm.managedFields = applied;
      return;
    }
    // Valid managedFields other than the stored ones reset the record (an empty list clears it).
    const given = validManagedFields(nm.managedFields);
    const reset = given !== undefined && !equalJSON(given, om.managedFields ?? []);
    if (om.managedFields === undefined) delete nm.managedFields;
    else nm.managedFields = clone(om.managedFields);
    trackUpdate(r, reset ? { ...old, metadata: { ...om, managedFields: given } } : old, o, manager(ctx), sub);
  }

  /** The storage's part of an update: a deleting object without finalizers goes; no change, no write. */
  private commitUpdate(r: Resource, o: Obj, old: Obj, ctx: WriteContext): Obj {
    const nm = meta(o);
    if (meta(old).deletionTimestamp && !(Array.isArray(nm.finalizers) && nm.finalizers.length)) {
      // The server deletes the stored object (the watch sees it, finalizers and all, at the
      // deletion's revision) and answers with the update as sent, at the stored revision.
      if (!ctx.dryRun) this.put(r, clone(old), 'DELETED');
      return o;
    }
    const same = equalJSON(withoutManagedFields(this.printed(r, o)), withoutManagedFields(old));
    if (same || ctx.dryRun) return same ? old : this.printed(r, o);
    const stored = this.put(r, o, 'MODIFIED');
    return r.custom ? this.asVersion(r, stored) : clone(stored);
  }

  /** PATCH by content type: merge, JSON patch, strategic merge (built-ins), apply. */
  patch(
    r: Resource,
    namespace: string | undefined,
    name: string,
    contentType: string,
    body: unknown,
    sub: string | undefined,
    ctx: WriteContext & { force?: boolean },
  ): Obj {
    const type = contentType.split(';')[0].trim();
    if (type === 'application/apply-patch+yaml') return this.apply(r, namespace, name, body, sub, ctx);
    if (type === 'application/strategic-merge-patch+json' && r.custom) throw unsupportedMediaType(type);
    if (
      ![
        'application/merge-patch+json',
        'application/json-patch+json',
        'application/strategic-merge-patch+json',
      ].includes(type)
    )
      throw unsupportedMediaType(type);
    const current = this.get(r, namespace, name);
    let next: Obj;
    if (type === 'application/json-patch+json') {
      if (!Array.isArray(body)) throw badRequest('the server rejected our request due to an error in our request');
      // An operation on the whole document ("") is refused (the server's JSON patch does not apply it).
      if (body.some((op) => isObj(op) && op.path === '')) throw invalidPatch();
      try {
        next = requireFastJsonPatch().applyPatch(clone(current), clone(body) as Operation[], true, true)
          .newDocument as Obj;
      } catch (e) {
        void e;
        throw invalidPatch();
      }
    } else if (type === 'application/merge-patch+json') {
      if (!isObj(body)) throw badRequest('the body of the request is not a JSON object');
      next = mergePatch(clone(current), body) as Obj;
    } else {
      if (!isObj(body)) throw badRequest('the body of the request is not a JSON object');
      next = strategicMerge(clone(current), body) as Obj;
      // A strategic merge patch does not change the object's type (the server ignores apiVersion and kind in it).
      if (isObj(next)) {
        next.apiVersion = current.apiVersion;
        next.kind = current.kind;
        // The result goes into the Go object by the unstructured converter, which quotes the patch (%+v) when it cannot.
        try {
          convertPatched(r.model, next);
        } catch (e) {
          if (!(e instanceof ConvertError)) throw e;
          const detail = `Invalid value: ${JSON.stringify(goValue(body))}: ${e.message}`;
          throw new ApiStatus(422, 'Invalid', ` "" is invalid: patch: ${detail}`, {
            causes: [{ reason: 'FieldValueInvalid', message: detail, field: 'patch' }],
          });
        }
      }
    }
    if (!isObj(next)) throw badRequest('the patch does not produce an object');
    // A custom resource patched into another kind (same apiVersion) is validated as one: 422.
    if (
      r.custom &&
      typeof next.kind === 'string' &&
      next.kind !== '' &&
      next.kind !== r.kind &&
      next.apiVersion === current.apiVersion
    )
      throw invalid({ group: r.group, kind: next.kind }, name, [
        { type: 'FieldValueInvalid', field: 'kind', value: next.kind, detail: `must be ${r.kind}` },
      ]);
    // A patch that set no resourceVersion is unconditional; one that did is a precondition.
    try {
      return this.update(r, namespace, name, next, sub, ctx, true);
    } catch (e) {
      // A JSON or merge patch whose result the decoder refuses: the server says the patch is invalid,
      // quoting the patched object as JSON (patchedAsServer).
      const decodeError =
        !r.custom &&
        type !== 'application/strategic-merge-patch+json' &&
        e instanceof ApiStatus &&
        !(e instanceof StrictDecodingError) &&
        e.code === 400
          ? / cannot be handled as a \w+: (.*)$/s.exec(e.message)?.[1]
          : undefined;
      if (decodeError !== undefined) {
        const text = stringifyWire(patchedAsServer(goOrder(r.model, next), type, body));
        const detail = `Invalid value: ${JSON.stringify(text)}: ${decodeError}`;
        throw new ApiStatus(422, 'Invalid', ` "" is invalid: patch: ${detail}`, {
          causes: [{ reason: 'FieldValueInvalid', message: detail, field: 'patch' }],
        });
      }
      // The server reports a strict decoding error of a patch as an invalid patch, quoting the patched object.
      if (e instanceof StrictDecodingError) {
        // A built-in's patched object as the patch handler wrote it (a custom resource's is a Go map:
        // sorted); a strategic merge patch is quoted as its Go map prints.
        const quoted =
          type === 'application/strategic-merge-patch+json'
            ? goValue(body)
            : stringifyWire(r.custom ? sortKeysDeep(e.patched) : patchedAsServer(goOrder(r.model, next), type, body));
        const detail = `Invalid value: ${JSON.stringify(quoted)}: strict decoding error: ${e.unknown.join(', ')}`;
        throw new ApiStatus(422, 'Invalid', ` "" is invalid: patch: ${detail}`, {
          causes: [{ reason: 'FieldValueInvalid', message: detail, field: 'patch' }],
        });
      }
      throw e;
    }
  }

  /**
   * Server-side apply of a built-in's scale subresource (the Scale checked by the caller): the
   * replicas it sets go to the object, owned by the manager's Apply entry of the subresource.
   */
  applyScale(
    r: Resource,
    namespace: string | undefined,
    name: string,
    body: Obj,
    replicas: number | undefined,
    ctx: WriteContext & { force?: boolean },
  ): Obj {
    const existing = this.get(r, namespace, name);
    checkAppliedName(r, namespace, name, body, true);
    const next = clone(existing);
    if (replicas !== undefined) {
      const steps = scaleOf(r).specReplicasPath.replace(/^\./, '').split('.');
      let cur: Obj = next;
      for (const k of steps.slice(0, -1)) cur = childObject(cur, k);
      cur[steps[steps.length - 1]] = replicas;
    }
    const applied = isObj(body.spec) ? body.spec.replicas : undefined;
    applyScale(r, existing, next, ctx.fieldManager ?? '', ctx.force === true, applied);
    return this.update(r, namespace, name, next, 'scale', { ...ctx, applied: true }, true);
  }

  /** Server-side apply (./apply.ts): field ownership per manager, conflicts unless forced. */
  private apply(
    r: Resource,
    namespace: string | undefined,
    name: string,
    body: unknown,
    sub: string | undefined,
    ctx: WriteContext & { force?: boolean },
  ): Obj {
    if (!ctx.fieldManager)
      throw invalid({ group: 'meta.k8s.io', kind: 'PatchOptions' }, '', [
        { type: 'FieldValueRequired', field: 'fieldManager', detail: 'is required for apply patch' },
      ]);
    if (!isObj(body)) throw badRequest('the body of the request is not a JSON object');
    checkApplied(r, body, sub);
    // Under Strict a key given twice is an error (after the typed conversion), not a warning.
    if (ctx.fieldValidation === 'Strict' && ctx.applyWarnings?.length)
      throw badRequest(
        `error strict decoding patch: error converting YAML to JSON: yaml: unmarshal errors:\n  ${ctx.applyWarnings.join('\n  ')}`,
      );
    checkTypeMeta(r, body);
    const existing = this.find(r, namespace, name);
    const applied = applyConfiguration(r, existing, body, ctx.fieldManager, ctx.force === true, sub);
    // The YAML decoder's strict warnings are given once the field manager applied the body.
    if (ctx.fieldValidation !== 'Ignore') ctx.warnings.push(...(ctx.applyWarnings ?? []));
    checkAppliedName(r, namespace, name, body, existing !== undefined);
    const next = { ...applied, apiVersion: body.apiVersion ?? apiVersionOf(r), kind: r.kind };
    // The applied object goes into the Go struct by the unstructured converter (integers wrapped
    // into their field's size); its type errors were refused above.
    // A value the conversion changes, or a namespace a cluster-scoped object drops, was a change to
    // structured-merge-diff: the apply is no no-op (its entry is timed).
    const bodyNs = isObj(body.metadata) ? body.metadata.namespace : undefined;
    let converted = !r.namespaced && typeof bodyNs === 'string' && bodyNs !== '';
    if (!r.custom)
      try {
        const before = stringifyWire(next);
        convertPatched(r.model, next);
        converted ||= stringifyWire(next) !== before;
      } catch (e) {
        if (!(e instanceof ConvertError)) throw e;
      }
    const m = meta(next);
    m.name = name;
    if (r.namespaced) m.namespace = namespace;
    if (!existing) {
      if (sub) throw notFound(r, name);
      const created = this.create(r, namespace, next, { ...ctx, applied: true });
      ctx.created = true;
      return created;
    }
    const wanted = isObj(body.metadata) ? body.metadata.resourceVersion : undefined;
    // A resourceVersion in the applied configuration is a precondition.
    if (typeof wanted === 'string' && wanted !== '' && wanted !== meta(existing).resourceVersion)
      throw conflict(
        r,
        name,
        'the object has been modified; please apply your changes to the latest version and try again',
      );
    m.resourceVersion = meta(existing).resourceVersion;
    return this.update(r, namespace, name, next, sub, { ...ctx, applied: true, appliedConverted: converted }, true);
  }

  delete(
    r: Resource,
    namespace: string | undefined,
    name: string,
    options: Obj,
    ctx: WriteContext,
  ): { object: Obj; gone: boolean } {
    const old = this.get(r, namespace, name);
    const om = meta(old);
    checkDeletePreconditions(r, name, isObj(options.preconditions) ? options.preconditions : {}, om);
    ctx.admit?.validate(undefined, old);
    const strategy = strategyFor(r);
    // Events are not garbage collected (their strategy): a propagation policy adds no finalizer.
    const policy = strategy.garbageCollected ? options.propagationPolicy : undefined;
    const finalizers = Array.isArray(om.finalizers) ? [...(om.finalizers as string[])] : [];
    if (policy === 'Foreground' && !finalizers.includes('foregroundDeletion')) finalizers.push('foregroundDeletion');
    if (policy === 'Orphan' && !finalizers.includes('orphan')) finalizers.push('orphan');
    if (strategy.markForDeletion) {
      const { object, write } = strategy.markForDeletion(old, finalizers);
      if (!write || ctx.dryRun) return { object, gone: false };
      return { object: clone(this.put(r, object, 'MODIFIED')), gone: false };
    }
    if (finalizers.length) {
      if (om.deletionTimestamp && equalJSON(finalizers, om.finalizers ?? [])) return { object: old, gone: false };
      const o = clone(old);
      const m = meta(o);
      if (!m.deletionTimestamp && m.generation !== undefined) m.generation = Number(m.generation) + 1;
      m.deletionTimestamp ??= now();
      m.deletionGracePeriodSeconds = 0;
      m.finalizers = finalizers;
      if (ctx.dryRun) return { object: o, gone: false };
      return { object: clone(this.put(r, o, 'MODIFIED')), gone: false };
    }
    if (!ctx.dryRun) this.put(r, clone(old), 'DELETED');
    return { object: old, gone: true };
  }
}

/**
 * What server-side apply refuses in an applied configuration (the field manager's checks, in its
 * order): another apiVersion, managedFields set, items given twice in a list-map or set; then a
 * name other than the URL's (the patch handler's checkName).
 */
function checkApplied(r: Resource, body: Obj, sub: string | undefined): void {
  const want = apiVersionOf(r);
  const m = isObj(body.metadata) ? body.metadata : {};
  if (body.apiVersion !== want || body.kind !== r.kind) {
    const av = typeof body.apiVersion === 'string' ? body.apiVersion : '';
    const gv = av.includes('/') ? av : `/${av}`;
    throw badRequest(`invalid object type: ${gv}, Kind=${typeof body.kind === 'string' ? body.kind : ''}`);
  }
  if (m.managedFields !== undefined && m.managedFields !== null) throw badRequest('metadata.managedFields must be nil');
  const dups = duplicateItems(r, body, sub);
  // The typed conversion refuses fields the Kind's schema does not declare.
  const unknown: string[] = [];
  if (!r.custom) {
    const warned: string[] = [];
    try {
      decodeBuiltin(r, r.model, clone(body), warned);
    } catch {
      /* type errors are the update's to report */
    }
    unknown.push(...warned.map((u) => JSON.parse(u.slice('unknown field '.length)) as string));
  } else {
    const c = clone(body);
    unknown.push(...unknownMetadata(c));
    prune(c, r.schema, '', unknown, true);
  }
  dups.unshift(...unknown.map((u) => `.${u}: field not declared in schema`), ...typeErrors(r, body));
  if (dups.length) {
    const gvk = `${want.includes('/') ? want : `/${want}`}, Kind=${String(body.kind ?? '')}`;
    const what = `${String(m.namespace ?? '')}/${String(m.name ?? '')}; ${gvk}`;
    // A Go error the handler passes on: 500 without a reason.
    throw new ApiStatus(
      500,
      '',
      `failed to create typed patch object (${what}): ${dups.length === 1 ? dups[0] : `errors:\n  ${dups.join('\n  ')}`}`,
    );
  }
}

/** After the field manager applied the body: its namespace and name must be the URL's (no name: the URL's). */
function checkAppliedName(r: Resource, namespace: string | undefined, name: string, body: Obj, exists: boolean): void {
  const m = isObj(body.metadata) ? body.metadata : {};
  const objName = typeof m.name === 'string' ? m.name : '';
  // The namespace is checked first, then the name.
  if (r.namespaced && typeof m.namespace === 'string' && m.namespace !== '' && m.namespace !== namespace)
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  // A new object needs its name in the body (an existing one keeps its own).
  if (objName === '' && !exists)
    throw badRequest(`the name of the object (${name} based on URL) was undeterminable: name must be provided`);
  if (objName !== '' && objName !== name)
    throw badRequest(`the name of the object (${objName}) does not match the name on the URL (${name})`);
}

/**
 * An apply that changes nothing but managedFields does not time its entry: a new entry has no
 * time, an existing one keeps its own (the field manager's no-op handling).
 */
function noOpApplyTime(o: Obj, old: Obj, manager: string | undefined): void {
  const strip = (x: Obj) => ({ ...x, metadata: { ...meta(x), managedFields: undefined, resourceVersion: undefined } });
  if (!equalJSON(JSON.parse(stringifyWire(strip(o))), JSON.parse(stringifyWire(strip(old))))) return;
  const entries = meta(o).managedFields;
  if (!Array.isArray(entries)) return;
  const before = Array.isArray(meta(old).managedFields) ? (meta(old).managedFields as Obj[]) : [];
  for (const e of entries as Obj[]) {
    if (e.manager !== manager || e.operation !== 'Apply') continue;
    const prev = before.find(
      (b) => b.manager === manager && b.operation === 'Apply' && b.subresource === e.subresource,
    );
    if (prev?.time !== undefined) e.time = prev.time;
    else delete e.time;
  }
}

/**
 * managedFields the server would decode (every entry with a manager, an Apply or Update operation
 * and FieldsV1), else undefined: the server ignores a list it cannot decode.
 */
function validManagedFields(v: unknown): Obj[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const ok = v.every(
    (e) =>
      isObj(e) &&
      typeof e.manager === 'string' &&
      (e.operation === 'Apply' || e.operation === 'Update') &&
      e.fieldsType === 'FieldsV1' &&
      isObj(e.fieldsV1),
  );
  return ok ? clone(v as Obj[]) : undefined;
}

/** The object with its managedFields' times blanked: a write that changes only those is no write (IgnoreManagedFieldsTimestampsTransformer). */
function withoutManagedFields(o: Obj): Obj {
  const c = { ...o, metadata: { ...meta(o) } };
  const mf = (c.metadata as Obj).managedFields;
  if (Array.isArray(mf)) (c.metadata as Obj).managedFields = mf.map((e) => (isObj(e) ? { ...e, time: undefined } : e));
  return c;
}

/** RFC 7386. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObj(patch)) return clone(patch);
  const out: Obj = isObj(target) ? target : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/** A JSON patch that cannot be applied: the API server answers 422 without saying why. */
function invalidPatch(): ApiStatus {
  return new ApiStatus(422, 'Invalid', 'the server rejected our request due to an error in our request', {});
}

/** A JSON value with every object's keys in order, as Go's encoding/json writes a map. */

/**
 * A patched object as the patch handler's JSON text of it (evanphx/json-patch v4 over the codec's
 * JSON): the containers the patch went into are decoded and written again with sorted keys (the
 * top level always; for a merge patch, every object it merged into and every value it added; for a
 * JSON patch, the containers along each operation's path), the rest as the codec wrote it (`o`,
 * in Go order). A new object.
 */
function patchedAsServer(o: Obj, type: string, patch: unknown): Obj {
  const sorted = (x: Obj): Obj => {
    const out: Obj = {};
    for (const k of Object.keys(x).sort()) out[k] = x[k];
    return out;
  };
  const deepSorted = (x: unknown): unknown => (Array.isArray(x) ? x.map(deepSorted) : isObj(x) ? sortKeysDeep(x) : x);
  if (type === 'application/merge-patch+json') {
    const merge = (doc: Obj, p: Obj): Obj => {
      const out = sorted(doc);
      for (const [k, v] of Object.entries(p)) {
        if (!(k in out)) continue;
        out[k] = isObj(v) && isObj(doc[k]) ? merge(doc[k] as Obj, v) : deepSorted(out[k]);
      }
      return out;
    };
    return isObj(patch) ? merge(o, patch) : sorted(o);
  }
  const out = sorted(o);
  for (const op of Array.isArray(patch) ? patch : []) {
    for (const path of [isObj(op) ? op.path : undefined, isObj(op) ? op.from : undefined]) {
      if (typeof path !== 'string') continue;
      const tokens = path
        .split('/')
        .slice(1, -1)
        .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
      let parent: unknown = out;
      for (const t of tokens) {
        if (!isObj(parent) && !Array.isArray(parent)) break;
        const container = parent as Record<string, unknown>;
        const child = container[t];
        if (isObj(child)) container[t] = sorted(child);
        parent = container[t];
      }
    }
  }
  return out;
}

/** System fields a create starts without (FillObjectMetaSystemFields sets them again). */
const CREATE_CLEARED = [
  'uid',
  'resourceVersion',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'generation',
  'selfLink',
];

/** A namespaced object is in the URL's namespace (another in the body is refused); a cluster-scoped one in none. */
function placeInNamespace(r: Resource, m: Obj, namespace: string | undefined): void {
  if (!r.namespaced) {
    delete m.namespace;
    return;
  }
  if (m.namespace !== undefined && m.namespace !== '' && m.namespace !== namespace)
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  m.namespace = namespace;
}

/** names.SimpleNameGenerator: the base is cut to 58 characters, so the name fits 63. */
function generatedName(base: string): string {
  let suffix = '';
  for (const b of randomBytes(5)) suffix += GENERATE_ALPHABET[b % GENERATE_ALPHABET.length];
  return `${base.slice(0, 58)}${suffix}`;
}

/** The field manager's record of a create: valid managedFields sent with the object are its start; others are ignored. */
function trackCreate(r: Resource, o: Obj, tracked: Obj, ctx: WriteContext): void {
  const m = meta(o);
  const given = validManagedFields(m.managedFields);
  delete meta(tracked).managedFields;
  trackUpdate(r, given ? { metadata: { managedFields: given } } : undefined, tracked, manager(ctx), undefined);
  if (meta(tracked).managedFields === undefined) delete m.managedFields;
  else m.managedFields = meta(tracked).managedFields;
}

/** The storage parses a resourceVersion precondition: a Go error (500 without a reason) when it is no number. */
function checkRVSyntax(rv: unknown): void {
  if (typeof rv === 'string' && rv !== '' && !/^\d+$/.test(rv))
    throw new ApiStatus(500, '', `strconv.ParseUint: parsing ${JSON.stringify(rv)}: invalid syntax`);
}

/** An update's preconditions: its resourceVersion (required unless the strategy allows none), its uid. */
function checkUpdatePreconditions(
  r: Resource,
  namespace: string | undefined,
  name: string,
  rv: unknown,
  m: Obj,
  om: Obj,
  patched: boolean,
): void {
  if (rv === undefined || rv === '' || rv === null) {
    if (!r.unconditionalUpdate && !patched)
      throw invalid({ ...r, kind: r.plural }, name, [
        {
          type: 'FieldValueInvalid',
          field: 'metadata.resourceVersion',
          value: 0,
          detail: 'must be specified for an update',
        },
      ]);
  } else if (String(rv) !== om.resourceVersion) {
    throw conflict(
      r,
      name,
      'the object has been modified; please apply your changes to the latest version and try again',
    );
  }
  if (m.uid !== undefined && m.uid !== '' && m.uid !== om.uid) {
    const key = `/registry/${r.group ? `${r.group}/` : ''}${r.plural}/${r.namespaced ? `${namespace}/` : ''}${name}`;
    throw conflict(
      r,
      name,
      `StorageError: invalid object, Code: 4, Key: ${key}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: ${String(m.uid)}, UID in object meta: ${String(om.uid)}`,
    );
  }
}

/** An update keeps the stored system fields; empty maps are dropped; a spec change bumps the generation. */
function keepSystemFields(r: Resource, o: Obj, old: Obj, sub: string | undefined): void {
  const nm = meta(o);
  const om = meta(old);
  for (const k of ['uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'generation']) {
    if (om[k] === undefined) delete nm[k];
    else nm[k] = om[k];
  }
  nm.resourceVersion = om.resourceVersion;
  if (isObj(nm.labels) && Object.keys(nm.labels).length === 0) delete nm.labels;
  if (isObj(nm.annotations) && Object.keys(nm.annotations).length === 0) delete nm.annotations;
  if (Array.isArray(nm.finalizers) && nm.finalizers.length === 0) delete nm.finalizers;
  if (r.generation && om.generation !== undefined && sub !== 'status' && strategyFor(r).specChanged(o, old))
    nm.generation = Number(om.generation) + 1;
}

/** A delete's preconditions (uid, resourceVersion), in the storage's words (the namespace storage's own first). */
function checkDeletePreconditions(r: Resource, name: string, pre: Obj, om: Obj): void {
  const uidDiffers = pre.uid !== undefined && pre.uid !== null && pre.uid !== om.uid;
  const rvDiffers =
    pre.resourceVersion !== undefined && pre.resourceVersion !== null && pre.resourceVersion !== om.resourceVersion;
  if (r.kind === 'Namespace' && r.group === '') {
    // The namespace storage checks preconditions itself, in other words.
    if (uidDiffers)
      throw conflict(
        r,
        name,
        `Precondition failed: UID in precondition: ${String(pre.uid)}, UID in object meta: ${String(om.uid)}`,
      );
    if (rvDiffers)
      throw conflict(
        r,
        name,
        `Precondition failed: ResourceVersion in precondition: ${String(pre.resourceVersion)}, ResourceVersion in object meta: ${String(om.resourceVersion)}`,
      );
  }
  if (uidDiffers)
    throw conflict(
      { ...r, plural: r.kind },
      name,
      `the UID in the precondition (${String(pre.uid)}) does not match the UID in record (${String(om.uid)}). The object might have been deleted and then recreated`,
      // events.k8s.io Events are core Events to the storage: the kind is named without a group.
      r.view ? '' : r.group,
    );
  if (rvDiffers)
    throw conflict(
      { ...r, plural: r.kind },
      name,
      `the ResourceVersion in the precondition (${String(pre.resourceVersion)}) does not match the ResourceVersion in record (${String(om.resourceVersion)}). The object might have been modified`,
      r.view ? '' : r.group,
    );
}
