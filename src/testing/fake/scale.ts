/**
 * The scale subresource's object, autoscaling/v1 Scale, read from the object at the paths its
 * resource names, and a PATCH of it (merge or JSON patch, as the server patches a Scale before
 * writing its replicas back).
 */
import { requireFastJsonPatch } from '../../runtime/client/lazy-require.cjs';
import type { Operation } from 'fast-json-patch';
import type { Resource } from './resources.js';
import { ApiStatus, badRequest, unsupportedMediaType } from './status.js';
import { type Obj, clone, isObj } from './json.js';
import { mergePatch } from './store.js';

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
