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
import type { RuleFailure, RuleSchema } from '../../cel/index.js';
import { applyDefaults, equalJSON, prune, validate, valueAt, type FieldErr } from '../../apiserver/structural.js';
import type { Resource } from './resources.js';
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
import { finalizerWarnings, nameWarnings, podTemplateWarnings, validateMetadata } from './metadata.js';
import { ConvertError, convertPatched, decodeBuiltin, goOrder } from './decode.js';
import {
  admitBuiltinCreate,
  defaultBuiltin,
  prepareBuiltinCreate,
  prepareBuiltinUpdate,
  resetStatusOnCreate,
  type Admission,
} from './builtin.js';
import { strategicMerge } from './smp.js';
import { isCRD, markCRDForDeletion, prepareCRD } from './crdstrategy.js';
import { applyConfiguration, applyScale, duplicateItems, now, trackUpdate } from './apply.js';
import { goValue, typeErrors } from './typed.js';
import { builtinErrors } from './validation.js';
import { apiVersionOf } from '../../runtime/client/types.js';
import { type Obj, clone, goFloat, isObj } from '../../apiserver/json.js';
import { sortKeysDeep } from '../../util/json.js';
import { asUnstructured, stringifyWire } from './wire.js';
import { eventErrors, eventUpdateErrors, printCoreEvent } from './events.js';

/** Evaluates the CEL rules of a schema on an object (and its old version on update). */
export type CelRules = (schema: RuleSchema, obj: unknown, old: unknown, warnings: string[]) => RuleFailure[];
const meta = (o: Obj): Obj => (isObj(o.metadata) ? o.metadata : (o.metadata = {}));

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

export interface WriteContext {
  dryRun: boolean;
  fieldManager?: string;
  /** The manager of a write without fieldManager: the User-Agent's product (apiserver's prefixFromUserAgent). */
  userAgent?: string;
  /** The request body as sent (a create's or update's), for errors that quote it. */
  rawBody?: string;
  /** Set by apply: managedFields are already computed. */
  applied?: boolean;
  /** The request's W3C `traceparent`, passed on to the admission webhooks it calls (as kube-apiserver does). */
  traceparent?: string;
  /** Set by apply: structured-merge-diff saw a change the stored object does not show (an integer the converter wrapped, a namespace dropped). */
  appliedConverted?: boolean;
  /** Warnings for the answer's Warning headers. */
  warnings: string[];
  /** The duplicate keys of the request's body (`duplicate field "x"`), warned when it decodes. */
  duplicates?: string[];
  /** The YAML decoder's warnings of an apply body, given when the apply succeeds. */
  applyWarnings?: string[];
  /** Set by apply when it created the object (the answer is 201). */
  created?: boolean;
  /** The request's fieldValidation: Strict refuses unknown fields, Ignore drops them without a warning (default Warn). */
  fieldValidation?: string;
  /** Admission (./admission.ts), called where kube-apiserver runs it; none: the write is admitted as is. */
  admit?: AdmissionHooks;
}

/**
 * Where a write meets admission, as in kube-apiserver: `mutate` gets the decoded, defaulted object
 * (and the stored one on update) before the strategy and validation, and returns what to go on
 * with; `validate` gets the object about to be stored (undefined for a delete) after validation.
 */
export interface AdmissionHooks {
  mutate(o: Obj, old: Obj | undefined): Obj;
  validate(o: Obj | undefined, old: Obj | undefined): void;
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
   * `celRules` evaluates a schema's CEL rules (src/cel's validateObject), handed in (by
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
      allocateClusterIP: () => `10.0.0.${(this.lastClusterIP = (this.lastClusterIP % 253) + 2)}`,
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
    if (!b) this.data.set(r.storageKey, (b = new Map()));
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

  /** Checks the body names the resource of the URL, as the server's decoder does (in its words). */
  /**
   * Whether a custom resource body names no kind, or another apiVersion: the server refuses it
   * before its schema prunes anything (no warnings of the schema's unknown fields), but after its
   * JSON and metadata were read (keys given twice and unknown metadata fields are warned of all the
   * same). A patch's result that
   * names neither keeps the object's.
   */
  private otherType(r: Resource, body: Obj, ctx: WriteContext, patched: boolean): boolean {
    if (patched && body.apiVersion === undefined && body.kind === undefined) return false;
    if (body.kind === undefined || body.kind === '') return true;
    if (body.apiVersion === apiVersionOf(r)) return false;
    if (ctx.fieldValidation !== 'Ignore') {
      if (isObj(body.metadata))
        for (const k of Object.keys(body.metadata))
          if (!OBJECT_META.has(k)) ctx.warnings.push(`unknown field "metadata.${k}"`);
      ctx.warnings.push(...(ctx.duplicates ?? []));
    }
    return true;
  }

  private checkTypeMeta(r: Resource, body: Obj, patched = false, raw?: string): void {
    const want = apiVersionOf(r);
    if (r.custom) {
      // Unstructured decoding: both are required (a missing kind first), and must be the URL's. A
      // patch's result that has neither keeps the object's.
      if (patched && body.apiVersion === undefined && body.kind === undefined) return;
      if (body.kind === undefined || body.kind === '') {
        // The decoder quotes the request's own bytes (a key given twice as sent).
        raw ??= stringifyWire(body);
        throw badRequest(
          `the object provided is unrecognized (must be of type ${r.kind}): Object 'Kind' is missing in '${raw}' (${raw.length > 30 ? `${raw.slice(0, 30)} ...` : raw})`,
        );
      }
      if (body.apiVersion !== want)
        throw badRequest(
          `the API version in the data (${typeof body.apiVersion === 'string' ? body.apiVersion : ''}) does not match the expected API version (${want})`,
        );
      if (body.kind !== r.kind)
        throw badRequest(`the kind in the data (${String(body.kind)}) does not match the expected kind (${r.kind})`);
      return;
    }
    const apiVersion = typeof body.apiVersion === 'string' && body.apiVersion ? body.apiVersion : want;
    const kind = typeof body.kind === 'string' && body.kind ? body.kind : r.kind;
    const version = apiVersion.includes('/') ? apiVersion.slice(apiVersion.indexOf('/') + 1) : apiVersion;
    const scheme = 'in scheme "pkg/runtime/scheme.go:111"';
    const handled = `${kind} in version ${JSON.stringify(version)} cannot be handled as a ${r.kind}`;
    if (apiVersion === want && kind === r.kind) return;
    // A core/v1 Kind the scheme knows (Pod) converts to nothing else; any other is not registered there.
    if (apiVersion === want && r.group === '' && CORE_KINDS.has(kind))
      throw badRequest(`${handled}: converting (v1.${kind}) to (core.${r.kind}): unknown conversion`);
    throw badRequest(
      `${handled}: no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(apiVersion)} ${scheme}`,
    );
  }

  /** Pruning and defaulting of a custom resource's body (what decoding does). */
  private decode(r: Resource, body: Obj, ctx: WriteContext): Obj {
    const o = clone(body);
    if (r.custom) asUnstructured(o);
    o.apiVersion = apiVersionOf(r);
    o.kind = r.kind;
    const unknown: string[] = [];
    if (r.custom) {
      const dropped: string[] = [];
      // metadata is an ObjectMeta whatever the schema says: other fields are dropped.
      if (isObj(o.metadata))
        for (const k of Object.keys(o.metadata))
          if (!OBJECT_META.has(k)) {
            delete o.metadata[k];
            dropped.push(`metadata.${k}`);
          }
      prune(o, r.schema, '', dropped, true);
      for (const d of dropped) unknown.push(`unknown field "${d}"`);
    } else decodeBuiltin(r, r.model, o, unknown);
    // The decoder's duplicate keys, noted when the body was read, are warned with its unknown fields.
    unknown.push(...(ctx.duplicates ?? []));
    if (unknown.length && ctx.fieldValidation === 'Strict') throw new StrictDecodingError(r, unknown, body);
    if (ctx.fieldValidation !== 'Ignore') ctx.warnings.push(...unknown);
    if (r.custom) applyDefaults(o, r.schema);
    else defaultBuiltin(r, o);
    return o;
  }

  /**
   * Metadata, schema and CEL validation in the API server's order (customResourceStrategy): when
   * an error of a blocking type exists, CEL rules are not run and the server says so. On update,
   * schema errors on values that did not change are dropped (validation ratcheting). `statusOnly`:
   * the status subresource, whose update validates status alone.
   */
  private validateObject(r: Resource, o: Obj, old: Obj | undefined, ctx: WriteContext, statusOnly = false): void {
    const errs: FieldErr[] = validateMetadata(r, o, old);
    if (old) errs.push(...newFinalizerErrors(o, old));
    // The main resource's validation (a status write validates the status only).
    if (!r.custom && !statusOnly) errs.push(...builtinErrors(r, o, old));
    if (r.storageKey === '/events') {
      const events = r.group === 'events.k8s.io';
      errs.unshift(...eventErrors(o, events, !old, String(meta(o).namespace ?? '')));
      if (old && events) errs.push(...eventUpdateErrors(o, old));
    }
    if (r.custom && r.schema) {
      const schema = statusOnly
        ? { type: 'object', properties: { status: r.schema.properties?.status ?? {} } }
        : r.schema;
      const target = statusOnly ? (o.status === undefined ? {} : { status: o.status }) : o;
      let schemaErrs = validate(target, schema, '', []);
      if (old)
        schemaErrs = schemaErrs.filter(
          (e) => !e.at || !equalJSON(valueAt(o, e.at), valueAt(old, e.at)) || e.type === 'FieldValueRequired',
        );
      errs.push(...schemaErrs);
      if (r.scale && !statusOnly) errs.push(...scaleErrors(o, r.scale.specReplicasPath));
      if (r.scale) errs.push(...scaleErrors(o, r.scale.statusReplicasPath));
      if (r.hasRules && this.celRules) {
        if (errs.some((e) => BLOCKING.has(e.type))) {
          errs.push({
            type: 'FieldValueInvalid',
            field: '<nil>',
            value: null,
            detail:
              'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
          });
        } else {
          const failures = this.celRules(r.schema as RuleSchema, o, old, ctx.warnings);
          for (const f of failures)
            errs.push(
              f.omitted
                ? { type: f.type, field: f.field, detail: f.detail }
                : { type: f.type, field: f.field, value: f.value, detail: f.detail },
            );
        }
      }
    }
    // events.k8s.io Events are validated as the core Events they are: the kind is named without a group.
    if (errs.length) throw invalid(r.view ? { ...r, group: '' } : r, String(meta(o).name ?? ''), errs);
    if (!old) ctx.warnings.push(...nameWarnings(r, o));
    ctx.warnings.push(...podTemplateWarnings(r, o));
    if (r.custom) ctx.warnings.push(...finalizerWarnings(o));
  }

  create(r: Resource, namespace: string | undefined, body: unknown, ctx: WriteContext): Obj {
    if (!isObj(body)) throw badRequest('the body of the request is not a JSON object');
    // Unstructured decoding prunes (and warns) before the type is checked; a typed one after.
    const early = !r.custom || this.otherType(r, body, ctx, false);
    if (early) this.checkTypeMeta(r, body, false, ctx.rawBody);
    const decoded = this.decode(r, body, ctx);
    if (!early) this.checkTypeMeta(r, body);
    const dm = meta(decoded);
    if (r.namespaced) {
      if (dm.namespace !== undefined && dm.namespace !== '' && dm.namespace !== namespace)
        throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
      dm.namespace = namespace;
    } else delete dm.namespace;
    if (r.terminating)
      throw forbidden(r, String(dm.name ?? ''), 'create not allowed while custom resource definition is terminating');
    // The NamespaceLifecycle admission plugin runs before the webhooks and the strategy's validation.
    this.checkNamespace(r, namespace, String(dm.name ?? ''));
    const o = ctx.admit ? ctx.admit.mutate(decoded, undefined) : decoded;
    const m = meta(o);
    if (r.namespaced) {
      // A mutating webhook may not move the object to another namespace (rest.BeforeCreate).
      if (m.namespace !== undefined && m.namespace !== '' && m.namespace !== namespace)
        throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
      m.namespace = namespace;
    } else delete m.namespace;
    // A Namespace's name label is a default: set before a generated name is (by the strategy then).
    const namedLabel = r.kind === 'Namespace' && r.group === '' && typeof m.name === 'string' && m.name !== '';
    if (!m.name && typeof m.generateName === 'string' && m.generateName) {
      let suffix = '';
      const bytes = randomBytes(5);
      for (const b of bytes) suffix += GENERATE_ALPHABET[b % GENERATE_ALPHABET.length];
      // names.SimpleNameGenerator: the base is cut to 58 characters, so the name fits 63.
      m.name = `${m.generateName.slice(0, 58)}${suffix}`;
    }
    const presetRV = m.resourceVersion !== undefined && m.resourceVersion !== '';
    const givenRV = m.resourceVersion;
    for (const k of [
      'uid',
      'resourceVersion',
      'creationTimestamp',
      'deletionTimestamp',
      'deletionGracePeriodSeconds',
      'generation',
      'selfLink',
    ])
      delete m[k];
    if (r.status && r.custom) delete o.status;
    if (!r.custom) {
      resetStatusOnCreate(r, o);
      defaultBuiltin(r, o);
    }
    if (isObj(m.labels) && Object.keys(m.labels).length === 0) delete m.labels;
    if (isObj(m.annotations) && Object.keys(m.annotations).length === 0) delete m.annotations;
    // The field manager records the object as decoded and defaulted (a Namespace's name label is a
    // default), before the admission plugins and the strategy's PrepareForCreate add theirs (a
    // Namespace's finalizer, a Service's cluster IP).
    // A Namespace's name label is defaulted, so validated with the rest.
    if (namedLabel) m.labels = { ...(isObj(m.labels) ? m.labels : {}), 'kubernetes.io/metadata.name': m.name };
    const tracked = ctx.applied ? undefined : clone(o);
    this.validateObject(r, o, undefined, ctx);
    // The storage refuses it after validation: a Go error, 500 without a reason.
    if (presetRV && !ctx.dryRun)
      throw new ApiStatus(500, '', 'resourceVersion should not be set on objects to be created');
    if (!r.custom) admitBuiltinCreate(r, o, this.admission);
    if (this.find(r, namespace, String(m.name))) throw alreadyExists(r, String(m.name));
    m.uid = randomUUID();
    m.creationTimestamp = now();
    if (r.generation) m.generation = 1;
    if (!r.custom) prepareBuiltinCreate(r, o, this.admission);
    if (isCRD(r)) prepareCRD(o, undefined);
    if (r.kind === 'Namespace' && r.group === '') {
      o.spec = { finalizers: ['kubernetes'], ...(isObj(o.spec) ? o.spec : {}) };
      o.status = { phase: 'Active' };
      m.labels = { ...(isObj(m.labels) ? m.labels : {}), 'kubernetes.io/metadata.name': m.name };
    }
    if (tracked) {
      // Valid managedFields sent with the object are taken as its starting record; others are ignored.
      const given = validManagedFields(m.managedFields);
      delete meta(tracked).managedFields;
      trackUpdate(r, given ? { metadata: { managedFields: given } } : undefined, tracked, manager(ctx), undefined);
      if (meta(tracked).managedFields === undefined) delete m.managedFields;
      else m.managedFields = meta(tracked).managedFields;
    }
    ctx.admit?.validate(o, undefined);
    // A dry run never reaches the storage's check: the preset resourceVersion is answered as given.
    if (ctx.dryRun && presetRV) m.resourceVersion = givenRV;
    if (ctx.dryRun) return this.printed(r, o);
    const stored = this.put(r, this.toStorage(r, o), 'ADDED');
    // A custom resource read back through a version that is not the storage one: its defaults too.
    return r.custom ? this.asVersion(r, stored) : clone(stored);
  }

  /** Objects are kept in one version per resource; conversion between versions is None (apiVersion only). */
  private toStorage(r: Resource, o: Obj): Obj {
    return o;
  }

  /**
   * PUT: the whole object (`sub` 'status' for the status subresource). `base` given (a patch):
   * the object the patch was applied to, whose resourceVersion stands when the patch set none.
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
    const early = !r.custom || this.otherType(r, body, ctx, patched);
    if (early) this.checkTypeMeta(r, body, patched, patched ? undefined : ctx.rawBody);
    let o = this.decode(r, body, ctx);
    if (!early) this.checkTypeMeta(r, body, patched);
    const m = meta(o);
    if (m.name !== undefined && m.name !== name)
      throw badRequest(`the name of the object (${String(m.name)}) does not match the name on the URL (${name})`);
    if (r.namespaced && m.namespace !== undefined && m.namespace !== '' && m.namespace !== namespace)
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    const rv = m.resourceVersion;
    // The storage parses the precondition (a Go error: 500 without a reason) after it read the
    // object, or before it creates one (Events and RBAC objects: AllowCreateOnUpdate).
    const badRV = () => {
      if (typeof rv === 'string' && rv !== '' && !/^\d+$/.test(rv))
        throw new ApiStatus(500, '', `strconv.ParseUint: parsing ${JSON.stringify(rv)}: invalid syntax`);
    };
    if (CREATE_ON_UPDATE.has(r.storageKey) && !patched && sub === undefined) {
      badRV();
      if (!this.find(r, namespace, name)) {
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
    }
    this.get(r, namespace, name);
    badRV();
    const old = this.get(r, namespace, name);
    const om = meta(old);
    if (ctx.admit) o = ctx.admit.mutate(o, old);
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
    const m2 = meta(o);
    if (m2.uid !== undefined && m2.uid !== '' && m2.uid !== om.uid) {
      const key = `/registry/${r.group ? `${r.group}/` : ''}${r.plural}/${r.namespaced ? `${namespace}/` : ''}${name}`;
      throw conflict(
        r,
        name,
        `StorageError: invalid object, Code: 4, Key: ${key}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: ${String(m2.uid)}, UID in object meta: ${String(om.uid)}`,
      );
    }
    const applied = ctx.applied ? m2.managedFields : undefined;
    if (sub === 'status') {
      const status = o.status;
      o = clone(old);
      if (status === undefined) delete o.status;
      else o.status = status;
    } else if (r.status) {
      if (old.status === undefined) delete o.status;
      else o.status = clone(old.status);
    }
    const nm = meta(o);
    nm.name = name;
    // A cluster-scoped object has no namespace, whatever the body says (it was stored under it).
    if (r.namespaced) nm.namespace = namespace;
    else delete nm.namespace;
    if (!r.custom && sub !== 'status') prepareBuiltinUpdate(r, o, old);
    if (isCRD(r) && sub !== 'status') prepareCRD(o, old);
    for (const k of ['uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'generation']) {
      if (om[k] === undefined) delete nm[k];
      else nm[k] = om[k];
    }
    nm.resourceVersion = om.resourceVersion;
    if (isObj(nm.labels) && Object.keys(nm.labels).length === 0) delete nm.labels;
    if (isObj(nm.annotations) && Object.keys(nm.annotations).length === 0) delete nm.annotations;
    if (Array.isArray(nm.finalizers) && nm.finalizers.length === 0) delete nm.finalizers;
    if (r.generation && om.generation !== undefined && sub !== 'status') {
      const strip = (x: Obj) => {
        const c = { ...x };
        delete c.metadata;
        if (r.status || !r.custom) delete c.status;
        delete c.apiVersion;
        delete c.kind;
        return c;
      };
      if (!equalJSON(strip(o), strip(old))) nm.generation = Number(om.generation) + 1;
    }
    // Ownership follows the old object's managedFields (what a client sends back is not trusted).
    if (ctx.applied) nm.managedFields = applied;
    else {
      // Valid managedFields other than the stored ones reset the record (an empty list clears it).
      const given = validManagedFields(nm.managedFields);
      const reset = given !== undefined && !equalJSON(given, om.managedFields ?? []);
      if (om.managedFields === undefined) delete nm.managedFields;
      else nm.managedFields = clone(om.managedFields);
      trackUpdate(r, reset ? { ...old, metadata: { ...om, managedFields: given } } : old, o, manager(ctx), sub);
    }
    this.validateObject(r, o, old, ctx, sub === 'status');
    if (ctx.applied && !ctx.appliedConverted) noOpApplyTime(o, old, ctx.fieldManager);
    ctx.admit?.validate(o, old);
    if (om.deletionTimestamp && !(Array.isArray(nm.finalizers) && nm.finalizers.length)) {
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
      const steps = r.scale!.specReplicasPath.replace(/^\./, '').split('.');
      let cur: Obj = next;
      for (const k of steps.slice(0, -1)) cur = (isObj(cur[k]) ? cur[k] : (cur[k] = {})) as Obj;
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
    this.checkTypeMeta(r, body);
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
    const pre = isObj(options.preconditions) ? options.preconditions : {};
    if (r.kind === 'Namespace' && r.group === '') {
      // The namespace storage checks preconditions itself, in other words.
      if (pre.uid !== undefined && pre.uid !== null && pre.uid !== om.uid)
        throw conflict(
          r,
          name,
          `Precondition failed: UID in precondition: ${String(pre.uid)}, UID in object meta: ${String(om.uid)}`,
        );
      if (
        pre.resourceVersion !== undefined &&
        pre.resourceVersion !== null &&
        pre.resourceVersion !== om.resourceVersion
      )
        throw conflict(
          r,
          name,
          `Precondition failed: ResourceVersion in precondition: ${String(pre.resourceVersion)}, ResourceVersion in object meta: ${String(om.resourceVersion)}`,
        );
    }
    if (pre.uid !== undefined && pre.uid !== null && pre.uid !== om.uid)
      throw conflict(
        { ...r, plural: r.kind },
        name,
        `the UID in the precondition (${String(pre.uid)}) does not match the UID in record (${String(om.uid)}). The object might have been deleted and then recreated`,
        // events.k8s.io Events are core Events to the storage: the kind is named without a group.
        r.view ? '' : r.group,
      );
    if (pre.resourceVersion !== undefined && pre.resourceVersion !== null && pre.resourceVersion !== om.resourceVersion)
      throw conflict(
        { ...r, plural: r.kind },
        name,
        `the ResourceVersion in the precondition (${String(pre.resourceVersion)}) does not match the ResourceVersion in record (${String(om.resourceVersion)}). The object might have been modified`,
        r.view ? '' : r.group,
      );
    ctx.admit?.validate(undefined, old);
    // Events are not garbage collected (their strategy): a propagation policy adds no finalizer.
    const policy = r.storageKey === '/events' ? undefined : options.propagationPolicy;
    const finalizers = Array.isArray(om.finalizers) ? [...(om.finalizers as string[])] : [];
    if (policy === 'Foreground' && !finalizers.includes('foregroundDeletion')) finalizers.push('foregroundDeletion');
    if (policy === 'Orphan' && !finalizers.includes('orphan')) finalizers.push('orphan');
    if (r.kind === 'Namespace' && r.group === '')
      return { object: this.deleteNamespace(old, ctx, finalizers), gone: false };
    if (isCRD(r)) return { object: this.deleteCRD(r, old, ctx), gone: false };
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

  /** A CRD waits for its objects to go (./crdapi.ts): marked, with the cleanup finalizer. */
  private deleteCRD(r: Resource, old: Obj, ctx: WriteContext): Obj {
    const o = clone(old);
    meta(o).deletionTimestamp ??= now();
    markCRDForDeletion(o);
    if (ctx.dryRun || equalJSON(o, old)) return o;
    return clone(this.put(r, o, 'MODIFIED'));
  }

  /**
   * Namespaces wait for the namespace controller (which a test control plane does not run):
   * Terminating, with the finalizer of the propagation policy (`finalizers`) as for any object.
   */
  private deleteNamespace(old: Obj, ctx: WriteContext, finalizers: string[]): Obj {
    const o = clone(old);
    const m = meta(o);
    if (m.deletionTimestamp) return old;
    m.deletionTimestamp = now();
    if (finalizers.length) m.finalizers = finalizers;
    o.status = { ...(isObj(o.status) ? o.status : {}), phase: 'Terminating' };
    if (ctx.dryRun) return o;
    return clone(this.put(this.namespaces, o, 'MODIFIED'));
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
    if (isObj(c.metadata))
      for (const k of Object.keys(c.metadata)) if (!OBJECT_META.has(k)) unknown.push(`metadata.${k}`);
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

/** Resources whose update of a missing object creates it (AllowCreateOnUpdate). */
const CREATE_ON_UPDATE = new Set([
  '/events',
  'rbac.authorization.k8s.io/roles',
  'rbac.authorization.k8s.io/clusterroles',
  'rbac.authorization.k8s.io/rolebindings',
  'rbac.authorization.k8s.io/clusterrolebindings',
]);

/** The fields of metav1.ObjectMeta. */
const OBJECT_META = new Set([
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
]);

/** core/v1 Kinds of the server's scheme a body may name by mistake (a decode converts them, and fails). */
const CORE_KINDS = new Set(['Pod', 'Service', 'ConfigMap', 'Secret', 'Namespace', 'Event', 'Node', 'ServiceAccount']);

/** Error types after which the API server does not run CEL rules (apiextensions' hasBlockingErr). */
const BLOCKING = new Set<FieldErr['type']>([
  'FieldValueNotSupported',
  'FieldValueRequired',
  'FieldValueTooLong',
  'FieldValueTooMany',
  'FieldValueTypeInvalid',
]);

/** The replicas paths of the scale subresource must lead to an integer when present (customResourceValidator). */
function scaleErrors(o: Obj, path: string): FieldErr[] {
  let cur: unknown = o;
  const steps = path.replace(/^\./, '').split('.');
  for (let i = 0; i < steps.length; i++) {
    if (!isObj(cur))
      return [
        {
          type: 'FieldValueInvalid',
          field: path,
          value: 0,
          detail: `${path} accessor error: ${goPrint(cur)} is of the type ${goType(cur)}, expected map[string]interface{}`,
        },
      ];
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
  return [
    {
      type: 'FieldValueInvalid',
      field: path,
      value: 0,
      detail: `${path} accessor error: ${goPrint(cur)} is of the type ${goType(cur)}, expected int64`,
    },
  ];
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

/** Who a write without fieldManager is recorded under. */
function manager(ctx: WriteContext): string {
  return (
    ctx.fieldManager ||
    (ctx.userAgent ?? '')
      .split('/')[0]
      .replace(/[^\x20-\x7e]/g, '')
      .slice(0, 128)
  );
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

/** fieldValidation Strict met fields the type does not have: 400, or (for a patch) 422 naming the patch. */
class StrictDecodingError extends ApiStatus {
  constructor(
    r: Resource,
    readonly unknown: string[],
    readonly patched: unknown,
  ) {
    super(
      400,
      'BadRequest',
      `${r.kind} in version "${r.version}" cannot be handled as a ${r.kind}: strict decoding error: ${unknown.join(', ')}`,
    );
  }
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
