/**
 * The generators behind `kubeforge manifests`, one interface for all: each reads the analysis and
 * returns the managed files it owns, reporting problems to the reporter passed in. New outputs
 * (conversion, CEL checks) are new generators; the pipeline (pipeline.ts) runs them in order and
 * never looks inside.
 */
import { type Diagnostic, error, Reporter } from '../diagnostics/index.js';
import { type Analysis, markerUses } from '../analysis/analyze.js';
import type { MarkerName } from '../markers/definitions.js';
import { type CRDManifest, generateCRDs } from './crd.js';
import { checkGeneratedCRDs, loadRuleCheck } from './crdcheck/index.js';
import { generateRbac } from './rbac.js';
import { generateWebhooks } from './webhook.js';
import { CRD_DIR, type ManagedPaths, type OutputFile, RBAC_FILE, WEBHOOK_FILE, output } from './managed-files.js';
import { YamlWriter, toYamlDocuments } from './yaml.js';

/** What every generator receives: the analysis' findings (a type-only view; no ts-morph). */
export type GeneratorInput = Pick<Analysis, 'kinds' | 'markers' | 'generatorVersion' | 'rel'> & {
  /**
   * Set for a namespace-scoped project (PROJECT `namespaced: true`): the manager's namespace, where
   * `manager-role` is a Role instead of a ClusterRole (see generateRbac).
   */
  managerNamespace?: string;
  /** `--check-compat`: called with every generated CRD (their origins recorded) before any file is made; reports to the reporter. */
  checkCRDs?: (crds: readonly CRDManifest[], reporter: Reporter) => void;
};

export interface Generator {
  /** Short name (`crd`, `rbac`, `webhook`). */
  readonly name: string;
  /**
   * The paths it manages: those it produced before and no longer produces are removed (with our
   * header only). Without it, nothing it made is ever removed as stale.
   */
  readonly manages?: ManagedPaths;
  /**
   * The class-level markers it reads from the marker index (`markerUses(input.markers, ...)`):
   * the analysis indexes those of the generators that run, and nothing else reads them.
   */
  readonly markers?: readonly MarkerName[];
  /**
   * The files this generator owns; problems go to the reporter. Never writes. The problems are
   * found when `generate` is called; the files may be produced lazily, one at a time, as the
   * caller iterates (so that they need not all be in memory at once).
   */
  generate(input: GeneratorInput, reporter: Reporter): Iterable<OutputFile>;
  /** Loads what `generate` needs for this input and is too costly to load for every run (awaited first). */
  prepare?(input: GeneratorInput): Promise<void>;
  /**
   * Everything this generator's files and problems depend on, as text. An incremental run
   * compares its hash with the last run's: when it is the same and the generator's files are on
   * disk as that run wrote them, they are kept and its problems of then are reported again,
   * without calling `generate` (role.yaml from 2,000 controllers costs 0.1 s to make again).
   * Without it the generator runs every time.
   */
  inputKey?(input: GeneratorInput): string;
}

function crdName(crd: CRDManifest): string {
  return `${crd.spec.names.kind} (${crd.spec.group})`;
}

/** Where a CRD is written: `config/crd/bases/<group>_<plural>.yaml`. */
function crdPath(crd: CRDManifest): string {
  return `${CRD_DIR}/${crd.spec.group}_${crd.spec.names.plural}.yaml`;
}

function reportDuplicate(
  reporter: Reporter,
  path: string,
  first: string | CRDManifest,
  second: string | CRDManifest,
): void {
  const a = typeof first === 'string' ? first : crdName(first);
  const b = typeof second === 'string' ? second : crdName(second);
  reporter.report(
    error('KF4502', `two CustomResourceDefinitions would be written to ${path}: ${a} and ${b}`, {
      hint: 'give the Kinds different plural names with @Resource({ path })',
    }),
  );
}

/**
 * One file per CRD, `config/crd/bases/<group>_<plural>.yaml`. One YAML writer for every CRD, so
 * subtrees they share (embedded Kubernetes types) are written once. Two CRDs for one path: KF4502.
 */
export function crdFiles(crds: readonly CRDManifest[], reporter: Reporter): OutputFile[] {
  return [...crdFileStream(crds, reporter)];
}

/**
 * {@link crdFiles} one at a time: each CRD's YAML is made when the caller asks for it, so only
 * one is in memory at a time. The writer interns every CRD as it goes and reuses the text of a
 * subtree it has met before (the bytes are the same as writing every node).
 */
export function* crdFileStream(
  crds: readonly CRDManifest[],
  reporter: Reporter,
  extrasOf?: (crd: CRDManifest) => Pick<OutputFile, 'sources' | 'warnings'>,
): IterableIterator<OutputFile> {
  const byPath = new Map<string, string>();
  const yaml = new YamlWriter();
  for (const crd of crds) {
    const path = crdPath(crd);
    const name = crdName(crd);
    const previous = byPath.get(path);
    if (previous !== undefined) {
      reportDuplicate(reporter, path, previous, name);
      continue;
    }
    byPath.set(path, name);
    yaml.add(crd);
    const file = output(path, yaml.document(crd));
    yield extrasOf ? { ...file, ...extrasOf(crd) } : file;
  }
}

/** The options the generators take (the project's manifests settings, or the flags of a run). */
export interface GeneratorOptions {
  /** `--max-desc-len`: descriptions in CRD schemas cut to this many bytes (0: none); undefined keeps them whole. */
  maxDescLen?: number;
  /**
   * `--k8s-version` (`1.36`): the Kubernetes minor the CRDs are checked for and the webhooks'
   * matchConditions are compiled for (CEL libraries by version); undefined: the newest.
   */
  k8sVersion?: string;
}

/** The minor number of a `1.N` version (undefined: the newest). */
const minorOf = (version: string | undefined) => (version === undefined ? undefined : Number(version.split('.')[1]));

/**
 * The CRDs, each checked against the API server's own rules before anything is written
 * (crdcheck/): a CRD it would refuse is an error at the marker or field that caused it. A line
 * where the analysis or generation already reported an error gets no second report. It owns
 * `maxDescLen` and `k8sVersion`.
 */
export function crdGeneratorFor(options: GeneratorOptions = {}): Generator {
  const { maxDescLen, k8sVersion } = options;
  return {
    name: 'crd',
    manages: { dirs: [CRD_DIR] },
    // CEL is loaded only when a schema has rules (most projects' runs never need it).
    prepare: (input) => loadRuleCheck(input.kinds.map((k) => k.schema)),
    generate: (input, reporter) => generateCrdFiles(input, reporter, maxDescLen, minorOf(k8sVersion)),
  };
}

/** The CRD generator with every option at its default. */
export const crdGenerator: Generator = crdGeneratorFor();

function generateCrdFiles(
  input: GeneratorInput,
  reporter: Reporter,
  maxDescLen: number | undefined,
  k8sMinor: number | undefined,
): Iterable<OutputFile> {
  // What the analysis already reported (same reporter) and what generation reports now.
  const analysed = reporter.diagnostics();
  const scratch = new Reporter();
  const crds = generateCRDs(input.kinds, input.generatorVersion, scratch, input.rel, maxDescLen);
  const generated = scratch.diagnostics();
  for (const d of generated) reporter.report(d);
  // Each CRD carries its own warnings (an incremental run that keeps the CRD reports them again).
  const warningsOf = new Map<CRDManifest, Diagnostic[]>();
  checkGeneratedCRDs(crds, [...analysed, ...generated], { k8sMinor }).forEach((found, i) => {
    for (const d of found) reporter.report(d);
    const warnings = found.filter((d) => d.severity !== 'error');
    if (warnings.length) warningsOf.set(crds[i], warnings);
  });
  input.checkCRDs?.(crds, reporter);
  // Duplicate paths (KF4502) are found before any YAML is made.
  const byPath = new Map<string, CRDManifest>();
  for (const crd of crds) {
    const path = crdPath(crd);
    const first = byPath.get(path);
    if (first === undefined) byPath.set(path, crd);
    else reportDuplicate(reporter, path, first, crd);
  }
  // Which files declare each Kind's versions (an incremental run keeps a CRD while they are unchanged).
  const sources = new Map<string, Set<string>>();
  for (const k of input.kinds) {
    const gk = `${k.kind}.${k.group}`;
    const files = sources.get(gk) ?? new Set();
    sources.set(gk, files);
    files.add(k.at.file);
  }
  return crdFileStream([...byPath.values()], reporter, (crd) => {
    const files = sources.get(`${crd.spec.names.kind}.${crd.spec.group}`);
    const warnings = warningsOf.get(crd);
    return { ...(files && { sources: [...files].sort() }), ...(warnings && { warnings }) };
  });
}

export const rbacGenerator: Generator = {
  name: 'rbac',
  manages: { files: [RBAC_FILE] },
  markers: ['Rbac'],
  inputKey: (input) => JSON.stringify([input.managerNamespace ?? null, markerUses(input.markers, 'Rbac')]),
  generate: (input, reporter) => [
    output(
      RBAC_FILE,
      toYamlDocuments(
        generateRbac(markerUses(input.markers, 'Rbac'), reporter, { managerNamespace: input.managerNamespace }).objects,
      ),
    ),
  ],
};

/** The webhook configurations; it owns `k8sVersion` (which CEL functions matchConditions may use). */
export function webhookGeneratorFor(options: Pick<GeneratorOptions, 'k8sVersion'> = {}): Generator {
  const { k8sVersion } = options;
  return {
    name: 'webhook',
    manages: { files: [WEBHOOK_FILE] },
    markers: ['Webhook', 'WebhookConfiguration'],
    inputKey: (input) =>
      JSON.stringify([
        markerUses(input.markers, 'Webhook'),
        markerUses(input.markers, 'WebhookConfiguration'),
        k8sVersion ?? null,
      ]),
    generate: (input, reporter) => {
      const objects = generateWebhooks(
        markerUses(input.markers, 'Webhook'),
        markerUses(input.markers, 'WebhookConfiguration'),
        reporter,
        minorOf(k8sVersion),
      );
      return objects.length > 0 ? [output(WEBHOOK_FILE, toYamlDocuments(objects))] : [];
    },
  };
}

/** The webhook generator with every option at its default. */
export const webhookGenerator: Generator = webhookGeneratorFor();

/** The class-level markers the generators read: what the analysis indexes for them. */
export function indexedMarkers(generators: readonly Generator[]): Set<MarkerName> {
  return new Set(generators.flatMap((g) => g.markers ?? []));
}

/** The generators `kubeforge manifests` runs, in this order, each given the options it owns. */
export function defaultGenerators(options: GeneratorOptions = {}): readonly Generator[] {
  return [crdGeneratorFor(options), rbacGenerator, webhookGeneratorFor(options)];
}

/** {@link defaultGenerators} with every option at its default. */
export const DEFAULT_GENERATORS: readonly Generator[] = defaultGenerators();

async function prepare(input: GeneratorInput, generators: readonly Generator[]): Promise<void> {
  for (const g of generators) await g.prepare?.(input);
}

/** Runs the generators; their files sorted by path. */
export async function runGenerators(
  input: GeneratorInput,
  reporter: Reporter,
  generators: readonly Generator[] = DEFAULT_GENERATORS,
): Promise<OutputFile[]> {
  await prepare(input, generators);
  return generators
    .flatMap((g) => [...g.generate(input, reporter)])
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * Runs the generators and hands their files to `emit` one at a time, as they are made (not
 * sorted). Every generator's problems are reported before the first file is emitted.
 */
export async function streamGenerators(
  input: GeneratorInput,
  reporter: Reporter,
  generators: readonly Generator[],
  emit: (file: OutputFile) => void,
): Promise<void> {
  await prepare(input, generators);
  const streams = generators.map((g) => g.generate(input, reporter));
  for (const stream of streams) for (const file of stream) emit(file);
}
