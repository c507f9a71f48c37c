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
import type { Location, MarkerValue } from '../collector/collector.js';
import type { KindMarkerName, MarkerName } from '../markers/definitions.js';
import { pluralize } from '../project/plural.js';
import type { CRDConversion, CRDManifest, CRDPrinterColumn, CRDVersion } from '../schema/crd.js';
import type { JSONSchemaProps } from '../schema/jsonschema.js';
import { setCRDOrigin } from '../schema/origin.js';
import { truncateSchemaDescriptions } from './desc.js';

/** The default resource name of a Kind; defined with the rest of resource naming in src/project. */
export { pluralize };

export type { KindVersion };
export type { CRDConversion, CRDManifest, CRDPrinterColumn, CRDVersion } from '../schema/crd.js';

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
        .map((k) => [
          k,
          k === 'openAPIV3Schema' ? (v as Record<string, unknown>)[k] : sortKeys((v as Record<string, unknown>)[k]),
        ]),
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
): CRDManifest[] {
  const byGroupKind = new Map<string, KindVersion[]>();
  for (const k of kinds) {
    const key = `${k.kind}.${k.group}`;
    const list = byGroupKind.get(key) ?? [];
    const dup = list.find((x) => x.version === k.version);
    if (dup) {
      reporter.report(
        error(
          'KF4006',
          `Kind ${k.kind} is declared twice in ${k.group}/${k.version} (also at ${rel(dup.at.file)}:${dup.at.line})`,
          {
            ...k.at,
            hint: 'each group-version may declare a Kind once: rename or remove one of them',
          },
        ),
      );
      continue;
    }
    list.push(k);
    byGroupKind.set(key, list);
  }
  const out: CRDManifest[] = [];
  // One memo for every CRD: the shared (frozen) schemas of Kubernetes types are truncated once.
  const memo = new WeakMap<JSONSchemaProps, JSONSchemaProps>();
  const schemaOf = (s: JSONSchemaProps) =>
    maxDescLen === undefined ? s : truncateSchemaDescriptions(s, maxDescLen, memo);
  for (const [groupKind, all] of byGroupKind) {
    const crd = generateOne(groupKind, all, generatorVersion, reporter, rel, schemaOf);
    if (crd) out.push(crd);
  }
  out.sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
  return out;
}

/** What a Kind-level marker applies to: the CRD being built and the version its class declares. */
interface CRDTarget {
  crd: CRDManifest;
  version: CRDVersion;
  groupKind: string;
  reporter: Reporter;
  rel: (file: string) => string;
  /** Which marker set each `@Resource` argument (and to what), and `spec.conversion` (versions must agree). */
  setBy: Map<string, { marker: MarkerValue; value?: unknown }>;
}

/** How a Kind-level marker reaches the CRD: applied to it, or read by another part (and which). */
type CRDMarkerRule<N extends KindMarkerName> =
  | { apply: (m: MarkerValue<N>, to: CRDTarget) => void }
  | { readBy: string };

/**
 * Every Kind-level marker (markers/definitions.ts' `kind` category), and what it does to the CRD
 * (controller-tools' ApplyToCRD). Exhaustive by type: a marker added to that category does not
 * compile until it is given a rule here.
 */
const CRD_MARKERS: { readonly [N in KindMarkerName]: CRDMarkerRule<N> } = {
  Root: { readBy: 'the analysis: a @Root() class with a metadata field is a Kind' },
  SkipVersion: { readBy: 'generateOne: the version is left out of the CRD before any marker applies' },
  ExternalDocs: { readBy: "the schema formatter: externalDocs of the Kind's schema" },
  Resource: { apply: applyResource },
  StorageVersion: {
    apply: (_, { crd, version }) => {
      // Several storage versions are KF4003 (checkStorage); the first keeps the flag.
      if (!crd.spec.versions.some((v) => v.storage)) version.storage = true;
    },
  },
  UnservedVersion: {
    apply: (_, { version }) => {
      version.served = false;
    },
  },
  DeprecatedVersion: {
    apply: (m, { version }) => {
      if (version.deprecated) return;
      version.deprecated = true;
      const w = m.args?.warning;
      if (w !== undefined) version.deprecationWarning = w;
    },
  },
  SubresourceStatus: {
    apply: (_, { version }) => {
      version.subresources ??= {};
      version.subresources.status = {};
    },
  },
  SubresourceScale: {
    apply: (m, { version }) => {
      version.subresources ??= {};
      const subresources = version.subresources;
      if (subresources.scale) return;
      const a = m.args;
      subresources.scale = {
        specReplicasPath: a.specpath,
        statusReplicasPath: a.statuspath,
        ...(a.selectorpath ? { labelSelectorPath: a.selectorpath } : {}),
      };
    },
  },
  PrintColumn: {
    // controller-gen's PrintColumn.ApplyToCRD: Go's CustomResourceColumnDefinition leaves out a
    // zero description, format and priority (omitempty), and the marker gives the version an
    // empty `subresources: {}` when it has none.
    apply: (m, { version }) => {
      const a = m.args;
      const col: CRDPrinterColumn = { jsonPath: a.jsonPath, name: a.name, type: a.type };
      if (a.description) col.description = a.description;
      if (a.format) col.format = a.format;
      if (a.priority) col.priority = a.priority;
      version.subresources ??= {};
      version.additionalPrinterColumns ??= [];
      version.additionalPrinterColumns.push(col);
    },
  },
  SelectableField: {
    apply: (m, { version }) => {
      version.selectableFields ??= [];
      version.selectableFields.push({ jsonPath: m.args.jsonPath });
    },
  },
  Metadata: {
    apply: (m, { crd }) => {
      Object.assign(crd.metadata.annotations, m.args.annotations ?? {});
      const labels = m.args.labels ?? {};
      if (Object.keys(labels).length) {
        crd.metadata.labels ??= {};
        Object.assign(crd.metadata.labels, labels);
      }
    },
  },
  ConversionWebhook: { apply: applyConversionWebhook },
};

/** `@Resource`: names and scope; may sit on any version, and versions must agree (KF4007). */
function applyResource(m: MarkerValue<'Resource'>, to: CRDTarget): void {
  const { spec } = to.crd;
  const set = {
    path: (v: string) => {
      spec.names.plural = v;
    },
    singular: (v: string) => {
      spec.names.singular = v;
    },
    shortName: (v: string[]) => {
      spec.names.shortNames = v;
    },
    categories: (v: string[]) => {
      spec.names.categories = v;
    },
    scope: (v: 'Namespaced' | 'Cluster') => {
      spec.scope = v;
    },
  };
  for (const [k, val] of Object.entries(m.args) as [keyof typeof set, never][]) {
    if (val === undefined) continue;
    const from = to.setBy.get(`Resource.${k}`);
    if (from && JSON.stringify(from.value) !== JSON.stringify(val)) {
      to.reporter.report(
        error(
          'KF4007',
          `@Resource ${k} of ${to.groupKind} differs between versions (${JSON.stringify(from.value)} at ${to.rel(from.marker.file)}:${from.marker.line}, ${JSON.stringify(val)} here)`,
          {
            ...at(m),
            hint: 'give every version the same resource names, or set them on one version only',
          },
        ),
      );
      continue;
    }
    to.setBy.set(`Resource.${k}`, { marker: m, value: val });
    set[k](val);
  }
}

/** `@ConversionWebhook`: spec.conversion through the manager's webhook Service; versions must agree (KF4008). */
function applyConversionWebhook(m: MarkerValue<'ConversionWebhook'>, to: CRDTarget): void {
  const a = m.args ?? {};
  const service: CRDConversion['webhook']['clientConfig']['service'] = {
    name: a.serviceName ?? 'webhook-service',
    namespace: a.serviceNamespace ?? 'system',
    path: a.path ?? '/convert',
  };
  if (a.servicePort !== undefined) service.port = a.servicePort;
  const c: CRDConversion = {
    strategy: 'Webhook',
    webhook: { clientConfig: { service }, conversionReviewVersions: a.conversionReviewVersions ?? ['v1'] },
  };
  const spec = to.crd.spec;
  const from = to.setBy.get('ConversionWebhook');
  if (spec.conversion && from && JSON.stringify(spec.conversion) !== JSON.stringify(c)) {
    to.reporter.report(
      error(
        'KF4008',
        `@ConversionWebhook of ${to.groupKind} differs between versions (also at ${to.rel(from.marker.file)}:${from.marker.line})`,
        {
          ...at(m),
          hint: 'declare @ConversionWebhook() once, on the hub (storage) version',
        },
      ),
    );
  }
  if (!spec.conversion) {
    spec.conversion = c;
    to.setBy.set('ConversionWebhook', { marker: m });
  }
}

/** Applies one Kind-level marker through {@link CRD_MARKERS}; other markers (schema markers) are not the CRD's. */
function applyToCRD(m: MarkerValue, to: CRDTarget): void {
  const rule = (CRD_MARKERS as Record<string, CRDMarkerRule<KindMarkerName>>)[m.name];
  if (rule && 'apply' in rule) (rule.apply as (m: MarkerValue, to: CRDTarget) => void)(m, to);
}

function generateOne(
  groupKind: string,
  all: KindVersion[],
  generatorVersion: string,
  reporter: Reporter,
  rel: (file: string) => string,
  schemaOf: (s: JSONSchemaProps) => JSONSchemaProps,
): CRDManifest | undefined {
  const versions = all
    .filter((v) => markersNamed(v, 'SkipVersion').length === 0)
    .sort((a, b) => (a.version < b.version ? -1 : a.version > b.version ? 1 : 0));
  if (versions.length === 0) return undefined;
  const { kind, group } = versions[0];
  const crd: CRDManifest = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { annotations: { [VERSION_ANNOTATION]: generatorVersion }, name: '' },
    spec: {
      group,
      names: { kind, listKind: `${kind}List`, plural: pluralize(kind), singular: kind.toLowerCase() },
      scope: 'Namespaced',
      versions: [],
    },
  };
  const setBy: CRDTarget['setBy'] = new Map();
  for (const v of versions) {
    const version: CRDVersion = {
      name: v.version,
      schema: { openAPIV3Schema: schemaOf(v.schema) },
      served: true,
      storage: versions.length === 1,
    };
    crd.spec.versions.push(version);
    for (const m of v.markers) applyToCRD(m, { crd, version, groupKind, reporter, rel, setBy });
  }
  crd.metadata.name = `${crd.spec.names.plural}.${group}`;
  checkStorage(groupKind, versions, reporter, rel);
  if (!crd.spec.versions.some((v) => v.served)) {
    reporter.report(
      error(
        'KF4005',
        `CRD for ${groupKind} does not serve any version (${versions.map((v) => v.version).join(', ')} are all @UnservedVersion())`,
        {
          ...versions[0].at,
          hint: 'remove @UnservedVersion() from at least one version',
        },
      ),
    );
  }
  return setCRDOrigin(sortKeys(crd), { versions }); // for the CRD check (src/manifests/crdcheck)
}

/** Exactly one storage version when there are several (KF4004 none, KF4003 more than one). */
function checkStorage(
  groupKind: string,
  versions: readonly KindVersion[],
  reporter: Reporter,
  rel: (file: string) => string,
): void {
  const storage = versions.filter((v) => markersNamed(v, 'StorageVersion').length > 0);
  if (versions.length > 1 && storage.length === 0) {
    reporter.report(
      error(
        'KF4004',
        `CRD for ${groupKind} has no storage version: versions ${versions.map((v) => v.version).join(', ')} and none is marked`,
        {
          ...versions[versions.length - 1].at,
          hint: 'add @StorageVersion() to the root class of exactly one version (conventionally the hub)',
        },
      ),
    );
  }
  for (const v of storage.slice(1)) {
    const m = markersNamed(v, 'StorageVersion')[0];
    reporter.report(
      error(
        'KF4003',
        `CRD for ${groupKind} has more than one storage version: ${storage.map((s) => s.version).join(', ')}`,
        {
          ...at(m),
          hint: `keep @StorageVersion() on one version only (also on ${storage[0].version} at ${rel(storage[0].at.file)}:${storage[0].at.line})`,
        },
      ),
    );
  }
}
