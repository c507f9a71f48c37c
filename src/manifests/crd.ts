/**
 * The CRD generator: one apiextensions.k8s.io/v1 CustomResourceDefinition per group-kind, with
 * every version of that Kind, built from each version's schema and kind-level markers. Returns
 * plain objects (keys in controller-gen's order, which is alphabetical); never writes.
 *
 * As controller-gen: versions sorted by name; a single version is the storage version
 * implicitly; several versions need exactly one @StorageVersion(); names default to the
 * lower-cased Kind and its plural.
 *
 * Conversion: a Kind whose root class (any version; conventionally the hub) carries
 * @ConversionWebhook() gets `spec.conversion` with strategy Webhook, pointing at the manager's
 * webhook Service (`webhook-service` in `system`, path `/convert`, review versions `[v1]`): what
 * Kubebuilder's `config/crd/patches/webhook_in_<plural>.yaml` kustomize patch produces.
 */
import { error, type Reporter } from '../diagnostics/index.js';
import type { KindVersion } from '../analysis/analyze.js';
import type { Location, MarkerValue } from '../analysis/collector.js';
import type { MarkerName } from '../markers/definitions.js';
import { pluralize } from '../project/plural.js';
import { setCRDOrigin } from '../schema/origin.js';
import { truncateSchemaDescriptions } from './desc.js';

/** The default resource name of a Kind; defined with the rest of resource naming in src/project. */
export { pluralize };

export type { KindVersion };

const VERSION_ANNOTATION = 'kubeforge.io/version';

function markersNamed<N extends MarkerName>(v: KindVersion, name: N): Extract<MarkerValue, { name: N }>[] {
  return v.markers.filter((m): m is Extract<MarkerValue, { name: N }> => m.name === name);
}

/**
 * Recursively sorts object keys (arrays keep their order): controller-gen's key order.
 * `openAPIV3Schema` subtrees are left as built (the formatter sorts properties; the YAML writer
 * sorts every mapping): re-building schemas of embedded Kubernetes types would cost more than
 * the rest of the analysis.
 */
export function sortKeys<T>(v: T): T {
  if (Array.isArray(v)) return v.map(sortKeys) as T;
  if (v && typeof v === 'object') {
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, k === 'openAPIV3Schema' ? (v as Record<string, unknown>)[k] : sortKeys((v as Record<string, unknown>)[k])]),
    ) as T;
  }
  return v;
}

function at(m: MarkerValue | Location): Location {
  return { file: m.file, line: m.line, column: m.column };
}

export function generateCRDs(
  kinds: readonly KindVersion[],
  generatorVersion: string,
  reporter: Reporter,
  /** How file paths appear inside messages (the analysis passes project-relative). */
  rel: (file: string) => string = (f) => f,
  /** controller-gen's crd:maxDescLen (desc.ts): undefined keeps descriptions whole. */
  maxDescLen?: number,
): Record<string, unknown>[] {
  const byGroupKind = new Map<string, KindVersion[]>();
  for (const k of kinds) {
    const key = `${k.kind}.${k.group}`;
    const list = byGroupKind.get(key) ?? [];
    const dup = list.find((x) => x.version === k.version);
    if (dup) {
      reporter.report(
        error('KF4006', `Kind ${k.kind} is declared twice in ${k.group}/${k.version} (also at ${rel(dup.at.file)}:${dup.at.line})`, {
          ...k.at,
          hint: 'each group-version may declare a Kind once: rename or remove one of them',
        }),
      );
      continue;
    }
    list.push(k);
    byGroupKind.set(key, list);
  }
  const out: Record<string, unknown>[] = [];
  // One memo for every CRD: the shared (frozen) schemas of Kubernetes types are truncated once.
  const memo = new WeakMap<object, Record<string, unknown>>();
  const schemaOf = (s: Record<string, unknown>) => (maxDescLen === undefined ? s : truncateSchemaDescriptions(s, maxDescLen, memo));
  for (const [groupKind, all] of byGroupKind) {
    const crd = generateOne(groupKind, all, generatorVersion, reporter, rel, schemaOf);
    if (crd) out.push(crd);
  }
  out.sort((a, b) => ((a.metadata as { name: string }).name < (b.metadata as { name: string }).name ? -1 : 1));
  return out;
}

function generateOne(
  groupKind: string,
  all: KindVersion[],
  generatorVersion: string,
  reporter: Reporter,
  rel: (file: string) => string,
  schemaOf: (s: Record<string, unknown>) => Record<string, unknown>,
): Record<string, unknown> | undefined {
  const versions = all.filter((v) => markersNamed(v, 'SkipVersion').length === 0).sort((a, b) => (a.version < b.version ? -1 : a.version > b.version ? 1 : 0));
  if (versions.length === 0) return undefined;
  const { kind, group } = versions[0];

  // Names and scope: @Resource may sit on any version; versions must agree.
  const resource: Record<string, unknown> = {};
  const resourceFrom: Record<string, MarkerValue> = {};
  for (const v of versions) {
    for (const m of markersNamed(v, 'Resource')) {
      for (const [k, val] of Object.entries(m.args)) {
        if (resource[k] !== undefined && JSON.stringify(resource[k]) !== JSON.stringify(val)) {
          reporter.report(
            error('KF4007', `@Resource ${k} of ${groupKind} differs between versions (${JSON.stringify(resource[k])} at ${rel(resourceFrom[k].file)}:${resourceFrom[k].line}, ${JSON.stringify(val)} here)`, {
              ...at(m),
              hint: 'give every version the same resource names, or set them on one version only',
            }),
          );
          continue;
        }
        resource[k] = val;
        resourceFrom[k] = m;
      }
    }
  }
  const lower = kind.toLowerCase();
  const plural = (resource.path as string | undefined) ?? pluralize(kind);
  const names: Record<string, unknown> = { kind, listKind: `${kind}List`, plural, singular: (resource.singular as string | undefined) ?? lower };
  if (resource.shortName) names.shortNames = resource.shortName;
  if (resource.categories) names.categories = resource.categories;

  // Storage version.
  const storage = versions.filter((v) => markersNamed(v, 'StorageVersion').length > 0);
  if (versions.length > 1 && storage.length === 0) {
    reporter.report(
      error('KF4004', `CRD for ${groupKind} has no storage version: versions ${versions.map((v) => v.version).join(', ')} and none is marked`, {
        ...versions[versions.length - 1].at,
        hint: 'add @StorageVersion() to the root class of exactly one version (conventionally the hub)',
      }),
    );
  }
  if (storage.length > 1) {
    for (const v of storage.slice(1)) {
      const m = markersNamed(v, 'StorageVersion')[0];
      reporter.report(
        error('KF4003', `CRD for ${groupKind} has more than one storage version: ${storage.map((s) => s.version).join(', ')}`, {
          ...at(m),
          hint: `keep @StorageVersion() on one version only (also on ${storage[0].version} at ${rel(storage[0].at.file)}:${storage[0].at.line})`,
        }),
      );
    }
  }

  const annotations: Record<string, string> = { [VERSION_ANNOTATION]: generatorVersion };
  const labels: Record<string, string> = {};
  let conversion: Record<string, unknown> | undefined;
  let conversionFrom: MarkerValue | undefined;
  const versionObjects: Record<string, unknown>[] = [];
  for (const v of versions) {
    const ver: Record<string, unknown> = {
      name: v.version,
      schema: { openAPIV3Schema: schemaOf(v.schema as Record<string, unknown>) },
      served: markersNamed(v, 'UnservedVersion').length === 0,
      storage: versions.length === 1 || storage[0] === v,
    };
    const dep = markersNamed(v, 'DeprecatedVersion')[0];
    if (dep) {
      ver.deprecated = true;
      const w = dep.args.warning;
      if (w !== undefined) ver.deprecationWarning = w;
    }
    const subresources: Record<string, unknown> = {};
    if (markersNamed(v, 'SubresourceStatus').length) subresources.status = {};
    const scale = markersNamed(v, 'SubresourceScale')[0];
    if (scale) {
      const a = scale.args;
      const s: Record<string, unknown> = { specReplicasPath: a.specpath, statusReplicasPath: a.statuspath };
      if (a.selectorpath) s.labelSelectorPath = a.selectorpath;
      subresources.scale = s;
    }
    if (Object.keys(subresources).length) ver.subresources = subresources;
    const cols = markersNamed(v, 'PrintColumn').map((m) => {
      const a = m.args;
      const col: Record<string, unknown> = { jsonPath: a.jsonPath, name: a.name, type: a.type };
      for (const k of ['description', 'format', 'priority'] as const) if (a[k] !== undefined) col[k] = a[k];
      return col;
    });
    if (cols.length) ver.additionalPrinterColumns = cols;
    const sel = markersNamed(v, 'SelectableField').map((m) => ({ jsonPath: m.args.jsonPath }));
    if (sel.length) ver.selectableFields = sel;
    for (const m of markersNamed(v, 'Metadata')) {
      const a = m.args;
      Object.assign(annotations, a.annotations ?? {});
      Object.assign(labels, a.labels ?? {});
    }
    for (const m of markersNamed(v, 'ConversionWebhook')) {
      const a = m.args;
      const service: Record<string, unknown> = { name: a.serviceName ?? 'webhook-service', namespace: a.serviceNamespace ?? 'system', path: a.path ?? '/convert' };
      if (a.servicePort !== undefined) service.port = a.servicePort;
      const c = { strategy: 'Webhook', webhook: { clientConfig: { service }, conversionReviewVersions: a.conversionReviewVersions ?? ['v1'] } };
      if (conversion && JSON.stringify(conversion) !== JSON.stringify(c)) {
        reporter.report(
          error('KF4008', `@ConversionWebhook of ${groupKind} differs between versions (also at ${rel(conversionFrom!.file)}:${conversionFrom!.line})`, {
            ...at(m),
            hint: 'declare @ConversionWebhook() once, on the hub (storage) version',
          }),
        );
      }
      conversion ??= c;
      conversionFrom ??= m;
    }
    versionObjects.push(ver);
  }
  if (!versionObjects.some((v) => v.served)) {
    reporter.report(
      error('KF4005', `CRD for ${groupKind} does not serve any version (${versions.map((v) => v.version).join(', ')} are all @UnservedVersion())`, {
        ...versions[0].at,
        hint: 'remove @UnservedVersion() from at least one version',
      }),
    );
  }
  const metadata: Record<string, unknown> = { annotations, name: `${plural}.${group}` };
  if (Object.keys(labels).length) metadata.labels = labels;
  const spec: Record<string, unknown> = { group, names, scope: (resource.scope as string | undefined) ?? 'Namespaced', versions: versionObjects };
  if (conversion) spec.conversion = conversion;
  const crd = sortKeys({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata, spec });
  return setCRDOrigin(crd, { versions }); // for the CRD check (src/manifests/crdcheck)
}
