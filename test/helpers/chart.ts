// What a kubeforge chart renders (helm template, default values) is compared with what
// `kubectl kustomize config/default` builds: the listed differences are applied to the kustomize
// output, then the two must be equal.
import { parseAllDocuments } from 'yaml';

// biome-ignore lint/suspicious/noExplicitAny: rendered YAML of any shape, compared by the tests without a schema
export type Obj = Record<string, any>;

/** The objects of a multi-document YAML stream. */
export const docs = (yaml: string): Obj[] =>
  parseAllDocuments(yaml)
    .map((d) => d.toJS() as Obj)
    .filter((o) => o && typeof o === 'object');

/** kind/namespace/name of an object. */
export const key = (o: Obj): string => `${o.kind}/${o.metadata?.namespace ?? ''}/${o.metadata?.name}`;

/**
 * The differences between `helm template <project> --namespace <project>-system` (default values)
 * and `kubectl kustomize config/default`, each with its reason.
 */
export const DIFFERENCES = {
  namespace:
    'the Namespace object is not in the chart: Helm installs into the release namespace (helm install --create-namespace)',
  managedBy: 'app.kubernetes.io/managed-by is the release service (Helm), not kustomize',
  helmLabels:
    'every object carries app.kubernetes.io/instance (the release) and helm.sh/chart (<chart>-<version>) labels, as Helm charts do',
  keepCrd:
    'CRDs carry helm.sh/resource-policy: keep (crd.keep: true), so uninstalling the release does not delete every custom resource',
};

/** The kustomize output as the chart renders it (release `release`, chart version 0.1.0): DIFFERENCES applied. */
export function asChartRendersIt(
  objects: Obj[],
  release: string,
): { objects: Obj[]; applied: Set<keyof typeof DIFFERENCES> } {
  const applied = new Set<keyof typeof DIFFERENCES>();
  const out: Obj[] = [];
  for (const o of structuredClone(objects)) {
    if (o.kind === 'Namespace') {
      applied.add('namespace');
      continue;
    }
    o.metadata.labels ??= {};
    if (o.metadata.labels['app.kubernetes.io/managed-by'] === 'kustomize') {
      o.metadata.labels['app.kubernetes.io/managed-by'] = 'Helm';
      applied.add('managedBy');
    }
    o.metadata.labels['app.kubernetes.io/instance'] = release;
    o.metadata.labels['helm.sh/chart'] = `${release}-0.1.0`;
    applied.add('helmLabels');
    if (o.kind === 'CustomResourceDefinition') {
      o.metadata.annotations = { 'helm.sh/resource-policy': 'keep', ...(o.metadata.annotations ?? {}) };
      applied.add('keepCrd');
    }
    out.push(o);
  }
  return { objects: out, applied };
}
