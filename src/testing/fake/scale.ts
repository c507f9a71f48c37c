/**
 * The scale subresource's object, autoscaling/v1 Scale, read from the object at the paths its
 * resource names, and a PATCH of it (merge or JSON patch, as the server patches a Scale before
 * writing its replicas back), and the subresource's handler.
 */
import { requireFastJsonPatch } from '../../runtime/client/lazy-require.cjs';
import type { Operation } from 'fast-json-patch';
import { type Resource, scaleOf } from './resources.js';
import { ApiStatus, badRequest, invalid, methodNotAllowed, unsupportedMediaType } from './status.js';
import { childObject, type Obj, clone, isObj } from '../../apiserver/json.js';
import { mergePatch, type Store } from './store.js';
import { objectName, type RequestContext } from './context.js';
import { refuseCustomScaleApply } from './apply.js';

type ScalePaths = NonNullable<Resource['scale']>;

const at = (o: Obj, p: string) =>
  p
    .replace(/^\./, '')
    .split('.')
    .reduce<unknown>((x, k) => (isObj(x) ? x[k] : undefined), o);

/** metav1.FormatLabelSelector of a built-in's spec.selector (matchLabels only; sorted). */
function formatSelector(sel: unknown): string | undefined {
  if (!isObj(sel)) return undefined;
  const labels = isObj(sel.matchLabels) ? sel.matchLabels : {};
  const parts = Object.keys(labels)
    .sort()
    .map((k) => `${k}=${String(labels[k])}`);
  return parts.join(',');
}

export function toScale(o: Obj, s: ScalePaths): Obj {
  const m = o.metadata as Obj;
  const selector =
    s.labelSelectorPath === '.spec.selector'
      ? formatSelector(at(o, '.spec.selector'))
      : s.labelSelectorPath
        ? at(o, s.labelSelectorPath)
        : undefined;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: {
      name: m.name,
      namespace: m.namespace,
      uid: m.uid,
      resourceVersion: m.resourceVersion,
      creationTimestamp: m.creationTimestamp,
    },
    // autoscaling/v1 ScaleSpec.replicas is omitempty.
    spec: Number(at(o, s.specReplicasPath) ?? 0) ? { replicas: Number(at(o, s.specReplicasPath)) } : {},
    status: {
      replicas: Number(at(o, s.statusReplicasPath) ?? 0),
      ...(selector !== undefined ? { selector } : {}),
    },
  };
}

/** The Scale after a PATCH of `contentType`. */
export function patchScale(scale: Obj, contentType: string, patch: unknown): Obj {
  const type = contentType.split(';')[0].trim();
  if (type === 'application/merge-patch+json' || type === 'application/strategic-merge-patch+json') {
    if (!isObj(patch)) throw badRequest('the body of the request is not a JSON object');
    return mergePatch(clone(scale), patch) as Obj;
  }
  if (type === 'application/json-patch+json') {
    if (!Array.isArray(patch)) throw badRequest('the server rejected our request due to an error in our request');
    try {
      return requireFastJsonPatch().applyPatch(clone(scale), clone(patch) as Operation[], true, true)
        .newDocument as Obj;
    } catch {
      throw new ApiStatus(422, 'Invalid', 'the server rejected our request due to an error in our request', {});
    }
  }
  throw unsupportedMediaType(type);
}

/** structured-merge-diff's words for a value that is not numeric (the Go type %T names). */
function goType(v: unknown): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return '[]interface {}';
  return 'map[string]interface {}';
}

/**
 * What the field manager refuses in an applied Scale, in its order: another apiVersion or kind,
 * managedFields set, then the typed conversion (autoscaling/v1 Scale's schema: fields it does not
 * declare, replicas that are not numbers; 500 in structured-merge-diff's words). A custom
 * resource's Scale then fails in the field manager (refuseCustomScaleApply: the server cannot
 * apply one).
 */
export function checkAppliedScale(body: unknown): Obj {
  if (!isObj(body)) throw badRequest('the body of the request is not a JSON object');
  if (body.apiVersion !== 'autoscaling/v1' || body.kind !== 'Scale') {
    const av = typeof body.apiVersion === 'string' ? body.apiVersion : '';
    throw badRequest(
      `invalid object type: ${av.includes('/') ? av : `/${av}`}, Kind=${typeof body.kind === 'string' ? body.kind : ''}`,
    );
  }
  const m = isObj(body.metadata) ? body.metadata : {};
  if (m.managedFields !== undefined && m.managedFields !== null) throw badRequest('metadata.managedFields must be nil');
  const errs: string[] = [];
  const numeric = (v: unknown, at: string) => {
    if (v !== null && v !== undefined && typeof v !== 'number' && typeof v !== 'bigint')
      errs.push(`${at}: expected numeric (int or float), got ${goType(v)}`);
  };
  for (const k of Object.keys(body))
    if (!['apiVersion', 'kind', 'metadata', 'spec', 'status'].includes(k))
      errs.push(`.${k}: field not declared in schema`);
  if (isObj(body.spec)) {
    for (const k of Object.keys(body.spec)) if (k !== 'replicas') errs.push(`.spec.${k}: field not declared in schema`);
    numeric(body.spec.replicas, '.spec.replicas');
  }
  if (isObj(body.status)) {
    for (const k of Object.keys(body.status))
      if (k !== 'replicas' && k !== 'selector') errs.push(`.status.${k}: field not declared in schema`);
    numeric(body.status.replicas, '.status.replicas');
  }
  const what = `${String(m.namespace ?? '')}/${String(m.name ?? '')}; autoscaling/v1, Kind=Scale`;
  if (errs.length)
    throw new ApiStatus(
      500,
      '',
      `failed to create typed patch object (${what}): ${errs.length === 1 ? errs[0] : `errors:\n  ${errs.join('\n  ')}`}`,
    );
  return body;
}

/** An applied replicas value as the converter sets it into the int32 field (an integer wraps). */
export function int32Of(v: number | bigint): number {
  return Number(BigInt.asIntN(32, typeof v === 'bigint' ? v : BigInt(Math.trunc(v))));
}

/**
 * The scale subresource's handler (autoscaling/v1 Scale): GET; PUT; PATCH of the Scale as the
 * server patches it; server-side apply of it. The replicas go to the object at its spec path.
 */
export function serveScale(store: Store, c: RequestContext): { body: unknown } {
  const { r, namespace, method, ctx, contentType } = c;
  const name = objectName(c);
  let body = c.body();
  const s = scaleOf(r);
  const current = store.read(r, namespace, name);
  if (method === 'GET') return { body: toScale(current, s) };
  if (method === 'PATCH' && contentType.split(';')[0].trim() === 'application/apply-patch+yaml')
    return { body: toScale(applyToScale(store, c, current, body), s) };
  if (method === 'PATCH') body = patchScale(toScale(current, s), contentType, body);
  else if (method !== 'PUT') throw methodNotAllowed();
  const replicas = isObj(body) && isObj(body.spec) ? body.spec.replicas : undefined;
  if (!r.custom) checkScaleReplicas(name, replicas);
  const next = clone(current);
  const steps = s.specReplicasPath.replace(/^\./, '').split('.');
  let cur: Obj = next;
  for (const k of steps.slice(0, -1)) cur = childObject(cur, k);
  cur[steps[steps.length - 1]] = replicas;
  const rv = isObj(body) && isObj(body.metadata) ? body.metadata.resourceVersion : undefined;
  if (rv) (next.metadata as Obj).resourceVersion = rv;
  return { body: toScale(store.update(r, namespace, name, next, 'scale', ctx, true), s) };
}

/** Server-side apply of a Scale: checked as the field manager checks it, then the store's applyScale. */
function applyToScale(store: Store, c: RequestContext, current: Obj, body: unknown): Obj {
  const { r, namespace, ctx } = c;
  const name = objectName(c);
  const applied = checkAppliedScale(body);
  const want = isObj(applied.spec) ? applied.spec.replicas : undefined;
  if (r.custom) {
    const m = isObj(applied.metadata) ? applied.metadata : {};
    refuseCustomScaleApply(
      r,
      current,
      ctx.fieldManager ?? '',
      ctx.force === true,
      want,
      `${String(m.namespace ?? '')}/${String(m.name ?? '')}`,
    );
  }
  const replicas = typeof want === 'number' || typeof want === 'bigint' ? int32Of(want) : undefined;
  checkScaleReplicas(name, replicas);
  return store.applyScale(r, namespace, name, applied, replicas, ctx);
}

/** A built-in's Scale is validated as autoscaling's Scale: no negative replicas. */
export function checkScaleReplicas(name: string, replicas: unknown): void {
  if ((typeof replicas === 'number' || typeof replicas === 'bigint') && replicas < 0)
    throw invalid({ group: 'autoscaling', kind: 'Scale' }, name, [
      {
        type: 'FieldValueInvalid',
        field: 'spec.replicas',
        value: Number(replicas),
        detail: 'must be greater than or equal to 0',
      },
    ]);
}
