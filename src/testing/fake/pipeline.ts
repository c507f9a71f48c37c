/**
 * The one body pipeline of a write, in kube-apiserver's order: decode (the body's apiVersion and
 * kind checked as the server's decoder checks them, a built-in read as its Go struct), prune (a
 * custom resource's fields its schema does not declare, ObjectMeta's unknown fields; warned of, or
 * refused under fieldValidation=Strict), default (the schema's defaults, or the built-in's Go
 * defaults), then, once admission and the resource's strategy (./strategy.ts) had their turn,
 * validate (the strategy's rules, a custom resource's schema) and CEL (a custom resource's rules,
 * not run after a blocking error, as apiextensions' validator does), and the store (./store.ts).
 * Creates, updates, patches and applies all go through it; so does the object a mutating webhook
 * returns (./admission.ts: pruned and defaulted again).
 */
import type { RuleFailure, RuleSchema } from '#cel';
import { applyDefaults, OBJECT_META, prune, type FieldErr } from '../../apiserver/structural.js';
import { type Obj, clone, isObj } from '../../apiserver/json.js';
import { apiVersionOf } from '../../runtime/client/types.js';
import { defaultBuiltin } from './builtin.js';
import type { WriteContext } from './context.js';
import { decodeBuiltin } from './decode.js';
import type { Resource } from './resources.js';
import { ApiStatus, badRequest, invalid } from './status.js';
import { strategyFor } from './strategy.js';
import { asUnstructured, stringifyWire } from './wire.js';

/** Evaluates the CEL rules of a schema on an object (and its old version on update). */
export type CelRules = (schema: RuleSchema, obj: unknown, old: unknown, warnings: string[]) => RuleFailure[];

/** fieldValidation Strict met fields the type does not have: 400, or (for a patch) 422 naming the patch. */
export class StrictDecodingError extends ApiStatus {
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

/** The metadata fields of `body` that ObjectMeta does not have, as `metadata.<field>`. */
export function unknownMetadata(body: Obj): string[] {
  return isObj(body.metadata)
    ? Object.keys(body.metadata)
        .filter((k) => !OBJECT_META.has(k))
        .map((k) => `metadata.${k}`)
    : [];
}

/**
 * decode → prune → default: the body of a create or an update (`patched`: a patch's result) as
 * the server's decoder leaves it, its warnings in `ctx`. A new object.
 */
export function decodeObject(r: Resource, body: Obj, ctx: WriteContext, patched: boolean): Obj {
  // Unstructured decoding prunes (and warns) before the type is checked; a typed one after.
  const early = !r.custom || otherType(r, body, ctx, patched);
  if (early) checkTypeMeta(r, body, patched, patched ? undefined : ctx.rawBody);
  const o = clone(body);
  if (r.custom) asUnstructured(o);
  o.apiVersion = apiVersionOf(r);
  o.kind = r.kind;
  const unknown = pruneUnknown(r, o);
  // The decoder's duplicate keys, noted when the body was read, are warned with its unknown fields.
  unknown.push(...(ctx.duplicates ?? []));
  if (unknown.length && ctx.fieldValidation === 'Strict') throw new StrictDecodingError(r, unknown, body);
  if (ctx.fieldValidation !== 'Ignore') ctx.warnings.push(...unknown);
  applyDefaultsOf(r, o);
  if (!early) checkTypeMeta(r, body, patched);
  return o;
}

/** prune: the fields the type does not have leave `o`; the decoder's warnings for them. */
function pruneUnknown(r: Resource, o: Obj): string[] {
  const unknown: string[] = [];
  if (!r.custom) {
    decodeBuiltin(r, r.model, o, unknown);
    return unknown;
  }
  // metadata is an ObjectMeta whatever the schema says: other fields are dropped.
  const dropped = unknownMetadata(o);
  for (const d of dropped) delete (o.metadata as Obj)[d.slice('metadata.'.length)];
  prune(o, r.schema, '', dropped, true);
  for (const d of dropped) unknown.push(`unknown field "${d}"`);
  return unknown;
}

/** default: the schema's defaults (custom resources) or the Go type's (built-ins). */
function applyDefaultsOf(r: Resource, o: Obj): void {
  if (r.custom) applyDefaults(o, r.schema);
  else defaultBuiltin(r, o);
}

/** prune and default again: what the server does to the object a mutating webhook returned. */
export function normalize(r: Resource, o: Obj): Obj {
  if (r.custom) prune(o, r.schema, '', [], true);
  applyDefaultsOf(r, o);
  return o;
}

/**
 * Whether a custom resource body names no kind, or another apiVersion: the server refuses it
 * before its schema prunes anything (no warnings of the schema's unknown fields), but after its
 * JSON and metadata were read (keys given twice and unknown metadata fields are warned of all the
 * same). A patch's result that names neither keeps the object's.
 */
function otherType(r: Resource, body: Obj, ctx: WriteContext, patched: boolean): boolean {
  if (patched && body.apiVersion === undefined && body.kind === undefined) return false;
  if (body.kind === undefined || body.kind === '') return true;
  if (body.apiVersion === apiVersionOf(r)) return false;
  if (ctx.fieldValidation !== 'Ignore') {
    for (const f of unknownMetadata(body)) ctx.warnings.push(`unknown field "${f}"`);
    ctx.warnings.push(...(ctx.duplicates ?? []));
  }
  return true;
}

/** Checks the body names the resource of the URL, as the server's decoder does (in its words). */
export function checkTypeMeta(r: Resource, body: Obj, patched = false, raw?: string): void {
  const want = apiVersionOf(r);
  if (r.custom) {
    checkUnstructuredTypeMeta(r, body, patched, raw);
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

/**
 * Unstructured decoding: both are required (a missing kind first), and must be the URL's. A
 * patch's result that has neither keeps the object's.
 */
function checkUnstructuredTypeMeta(r: Resource, body: Obj, patched: boolean, raw: string | undefined): void {
  const want = apiVersionOf(r);
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
}

/**
 * validate → CEL: the strategy's validation (metadata, the Kind's rules, a custom resource's
 * schema), then a custom resource's CEL rules, unless an error of a blocking type was found (the
 * server says so instead). A refusal is 422; else the strategy's warnings go to `ctx`.
 * `statusOnly`: the status subresource, whose update validates status alone.
 */
export function validateObject(
  r: Resource,
  o: Obj,
  old: Obj | undefined,
  ctx: WriteContext,
  statusOnly: boolean,
  celRules: CelRules | undefined,
): void {
  const strategy = strategyFor(r);
  const errs = strategy.validate(o, old, statusOnly);
  if (r.custom && r.schema && r.hasRules && celRules) errs.push(...celErrors(r, o, old, ctx, errs, celRules));
  // events.k8s.io Events are validated as the core Events they are: the kind is named without a group.
  const name = String((isObj(o.metadata) ? o.metadata : {}).name ?? '');
  if (errs.length) throw invalid(r.view ? { ...r, group: '' } : r, name, errs);
  ctx.warnings.push(...strategy.warnings(o, old));
}

/** The CEL step: the rules' failures, or the note that they were not run after a blocking error. */
function celErrors(
  r: Resource,
  o: Obj,
  old: Obj | undefined,
  ctx: WriteContext,
  errs: FieldErr[],
  celRules: CelRules,
): FieldErr[] {
  if (errs.some((e) => BLOCKING.has(e.type)))
    return [
      {
        type: 'FieldValueInvalid',
        field: '<nil>',
        value: null,
        detail:
          'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
      },
    ];
  return celRules(r.schema as RuleSchema, o, old, ctx.warnings).map((f) =>
    f.omitted
      ? { type: f.type, field: f.field, detail: f.detail }
      : { type: f.type, field: f.field, value: f.value, detail: f.detail },
  );
}

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
