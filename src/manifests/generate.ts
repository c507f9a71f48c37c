/**
 * `kubeforge manifests`: loader -> analysis -> generators -> YAML -> plan -> (check | dry run | write).
 *
 * Order of work, so that a failing run leaves the disk as it was:
 *   1. no-change fast path (hashes only; ts-morph is not loaded);
 *   2. loader and analysis (part of the project's TypeScript, through ts-morph, loaded lazily
 *      here); after an edit, only the root files whose results can have changed (incremental.ts);
 *   3. every generator's problems reported (to one Reporter made here), then its files made one
 *      at a time, each compared with the host and, for a run that writes on disk, staged in
 *      `.kubeforge/stage-<pid>/` (stage.ts) as soon as it is complete;
 *   4. on any error diagnostic: throw them all, the stage removed, nothing written;
 *   5. `--check` / `--dry-run` stop at the plan; otherwise every path is validated and the staged
 *      files renamed into place at once (rollback on failure).
 */
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { type Diagnostic, DiagnosticError, error, formatDiagnostics, hasErrors, Reporter, TeeReporter } from '../diagnostics/index.js';
import { DiskHost, type Host } from '../scaffold/host.js';
import { type CommandIo, runCommand } from '../scaffold/runner.js';
import { Tree } from '../scaffold/tree.js';
import { packageVersion } from '../util/package-root.js';
import type { Analysis, AnalyzeOptions, ClassInfo, RootResult } from '../analysis/analyze.js';
import type { SourceOverlay } from '../loader/program.js';
import { type CacheKeyParts, checkCache, incrementalBase, enumerateSourceFiles, type InputSnapshot, sha256, snapshotInputs, writeCache } from './cache.js';
// The generators bring the CRD check (and, for schemas with rules, its CEL compiler): loaded after the fast path misses.
import type { Generator, GeneratorInput } from './generators.js';
import { OutputPlanner, type PlannedChange } from './stage.js';
import { type GeneratorEntry, type IncrementalRecord, IncrementalPlanner, type Selection } from './incremental.js';
import type { MarkerUse } from './markeruse.js';
import { EMBEDDED_OBJECT_META_FLAG, recordedK8sVersion, recordManifestsOptions } from './script.js';
import { type K8sVersion, parseK8sVersion } from './k8s-version.js';
import { type Change, CRD_DIR, formatPlan, MANIFESTS_TOOL, managedLocations, type OutputFile, planManifests } from './writer.js';
import type { CompatBase } from './compat.js';

export type { AnalyzeOptions };

/** What an analyzer returns: the generators' input and the files it read (a type-only view: the analysis and ts-morph load lazily, below). */
export type AnalysisResult = GeneratorInput & Pick<Analysis, 'inputFiles' | 'byRoot'> & Partial<Pick<Analysis, 'classes'>>;

/** Runs the analysis, reporting its problems to the reporter it is given. */
export type Analyzer = (options: AnalyzeOptions, reporter: Reporter) => Promise<AnalysisResult>;

export interface ManifestsOptions {
  projectDir: string;
  /**
   * Where the managed files are read, planned against and written: a DiskHost on `projectDir`
   * by default (a MemoryHost in unit tests). The no-change cache describes the disk, so it is
   * used only with a DiskHost on `projectDir`.
   */
  host?: Host;
  tsconfigPath?: string;
  /**
   * Limit the analysis to these files or folders (absolute). Only the CRDs of the Kinds found are
   * updated; role.yaml, the webhook manifests and stale files are left as they are.
   */
  paths?: string[];
  generatorVersion?: string;
  /**
   * controller-gen's `crd:maxDescLen`: every description in the CRD schemas cut to at most this
   * many bytes at a sentence or word boundary (desc.ts); 0 drops them. Part of the cache key.
   */
  maxDescLen?: number;
  /**
   * controller-gen's `crd:generateEmbeddedObjectMeta`: an ObjectMeta below a Kind's top (a pod
   * template's metadata) keeps name, namespace, labels, annotations and finalizers in the schema,
   * instead of a bare object the API server prunes. Part of the cache key.
   */
  embeddedObjectMeta?: boolean;
  /**
   * The Kubernetes minor whose types embedded Kubernetes types follow (`1.36`; default the newest
   * supported). A value kubeforge has no data for is KF1097, located at package.json's manifests
   * script when that is where it is recorded. Part of the cache key.
   */
  k8sVersion?: string;
  /** Write nothing; report the plan. */
  check?: boolean;
  dryRun?: boolean;
  /** Skip the no-change fast path and the incremental reuse (always analyse everything). */
  noCache?: boolean;
  /** Analyse everything (the incremental reuse off), keeping the record up to date. */
  cold?: boolean;
  /** The generators to run (default: CRD, RBAC, webhook). */
  generators?: readonly Generator[];
  /**
   * Called after planning, right before the commit (not with --check / --dry-run); throws to
   * stop the run with nothing written (a command that was interrupted).
   */
  beforeCommit?: () => Promise<void>;
  /** Where every stage reports (default: a reporter of the run's own). */
  reporter?: Reporter;
  /**
   * `--check-compat`: the generated CRDs compared with this base (compat.ts); an error finding
   * fails the run with nothing written. Turns the no-change cache and the incremental reuse off
   * (every CRD must be generated to be compared).
   */
  compat?: { base: CompatBase; allow: ReadonlySet<string> };
}

export interface ManifestsRun {
  /** The plan, sorted by path; each change carries its plan line (`summary`), its bytes only when the host is not the disk. */
  changes: PlannedChange[];
  /** Warnings (errors are thrown). */
  warnings: Diagnostic[];
  /** True when the no-change fast path answered. */
  cached: boolean;
  /** Why the fast path did not answer. */
  cacheMiss?: string;
  written: boolean;
  /** With --check-compat: the line saying what was compared. */
  compatSummary?: string;
}

/** Loads the real analysis lazily: ts-morph is only imported when the fast path misses. */
async function defaultAnalyzer(options: AnalyzeOptions, reporter: Reporter): Promise<AnalysisResult> {
  const { analyzeProject } = await import('../analysis/analyze.js');
  return analyzeProject(options, reporter);
}

function resolveGeneratorVersion(flag?: string): string {
  return flag || process.env.KUBEFORGE_GENERATOR_VERSION || packageVersion();
}

/** What both pipelines settle first: the project folder, its tsconfig (KF4503 / KF4504), the flags, the cache key. */
function runSettings(options: ManifestsOptions, host: Host, tree?: Tree) {
  const projectDir = resolve(options.projectDir);
  if (host.kind('') !== 'directory') {
    throw new DiagnosticError(error('KF4503', `project folder ${projectDir} does not exist`, { hint: 'pass the folder holding tsconfig.json with --project' }));
  }
  const tsconfigPath = options.tsconfigPath ? resolve(projectDir, options.tsconfigPath) : resolve(projectDir, 'tsconfig.json');
  const tsconfigRel = relative(projectDir, tsconfigPath).split(sep).join('/');
  const tsconfigInside = tsconfigRel !== '' && !tsconfigRel.startsWith('..') && !isAbsolute(tsconfigRel);
  const planned = tree?.exists(tsconfigRel) ?? false;
  if (tsconfigInside ? !planned && host.kind(tsconfigRel) === undefined : !existsSync(tsconfigPath)) {
    throw new DiagnosticError(error('KF4504', `no tsconfig.json in ${projectDir}`, { file: tsconfigPath, hint: 'run kubeforge manifests from the project root, or pass --project <dir>' }));
  }
  const generatorVersion = resolveGeneratorVersion(options.generatorVersion);
  const paths = options.paths?.map((p) => (isAbsolute(p) ? p : resolve(projectDir, p)));
  if (options.maxDescLen !== undefined && !(Number.isInteger(options.maxDescLen) && options.maxDescLen >= 0)) {
    throw new DiagnosticError(error('KF1093', `invalid --max-desc-len ${options.maxDescLen}: expected a whole number of bytes, 0 or more`, { hint: 'e.g. --max-desc-len 0 (no descriptions) or --max-desc-len 80' }));
  }
  const k8sVersion = options.k8sVersion === undefined ? undefined : k8sVersionOf(options.k8sVersion, (tree ?? host).read('package.json')?.toString('utf8'), projectDir);
  // PROJECT (as a scaffold's tree has it) scopes role.yaml: hashed into the cache key here, read
  // only once the fast path misses (managerNamespaceOf), so the fast path never loads YAML.
  const projectText = (tree ?? host).read(PROJECT_FILE);
  const keyParts: CacheKeyParts = {
    kubeforgeVersion: packageVersion(),
    generatorVersion,
    maxDescLen: options.maxDescLen,
    embeddedObjectMeta: options.embeddedObjectMeta,
    k8sVersion,
    paths,
    tsconfigPath: options.tsconfigPath ? tsconfigPath : undefined,
    project: projectText && sha256(projectText),
  };
  return { projectDir, tsconfigPath, generatorVersion, paths, keyParts, projectText, k8sVersion };
}

/**
 * A `--k8s-version` given to the pipeline as a supported minor; KF1097 otherwise, located at
 * package.json's manifests script when it records that very value (create api, alpha generate).
 */
function k8sVersionOf(value: string, packageJson: string | undefined, projectDir: string): K8sVersion {
  const recorded = recordedK8sVersion(packageJson);
  return parseK8sVersion(value, recorded?.value === value ? { file: join(projectDir, 'package.json'), line: recorded.line } : { flag: true });
}

const PROJECT_FILE = 'PROJECT';

/**
 * The manager's namespace when PROJECT says the project is namespace-scoped (`namespaced: true`),
 * else undefined (no PROJECT: a cluster-scoped manager). A PROJECT that does not parse is its
 * located error (KF1010 / KF1011).
 */
async function managerNamespaceOf(projectText: Buffer | undefined, projectDir: string): Promise<string | undefined> {
  if (projectText === undefined) return undefined;
  const [{ managerNamespace }, { ProjectFile }] = await Promise.all([import('../project/config.js'), import('../project/file.js')]);
  const { config } = ProjectFile.parse(projectText.toString('utf8'), join(projectDir, PROJECT_FILE));
  return config.namespaced ? managerNamespace(config) : undefined;
}

/**
 * With the helm plugin recorded in PROJECT, the chart's CRD and manager-role templates follow the
 * files this run generates (see syncChart in ./helm.ts): planned in the same tree, so `--check`
 * reports a chart out of step and one commit writes both.
 */
async function planChartSync(tree: Tree, projectText: Buffer, projectDir: string, outputs: readonly OutputFile[]): Promise<void> {
  const sync = await chartSyncFor(projectText, projectDir, (p) => tree.read(p)?.toString('utf8'));
  if (!sync) return;
  const { CHART_TOOL, chartCrdCandidates, chartFilesFor } = await import('./helm.js');
  const { withManagedHeader, hasManagedHeader } = await import('../scaffold/spec.js');
  const produced = new Set<string>();
  for (const o of outputs) {
    for (const f of chartFilesFor(sync, { path: o.path, content: String(o.content ?? '') })) {
      produced.add(f.path);
      if (tree.read(f.path) !== undefined && !hasManagedHeader(tree.host, f.path, CHART_TOOL)) continue;
      const text = Buffer.from(withManagedHeader(f.path, f.text, CHART_TOOL));
      if (!tree.read(f.path)?.equals(text)) tree.write(f.path, text);
    }
  }
  for (const p of chartCrdCandidates(sync, (d) => tree.host.list(d))) {
    if (!produced.has(p) && hasManagedHeader(tree.host, p, CHART_TOOL)) tree.delete(p);
  }
}

/** The chart `manifests` keeps in step (helm plugin recorded and its Chart.yaml there), else undefined. */
async function chartSyncFor(projectText: Buffer, projectDir: string, read: (path: string) => string | undefined): Promise<import('./helm.js').ChartSync | undefined> {
  const { ProjectFile } = await import('../project/file.js');
  const { config } = ProjectFile.parse(projectText.toString('utf8'), join(projectDir, PROJECT_FILE));
  const { chartSyncOf } = await import('./helm.js');
  return chartSyncOf(config, read);
}

/** The pipeline's plan, nothing written yet: see {@link planManifestsRun}. */
export interface ManifestsPlan {
  /** The tree the manifests were planned into (the caller's, or one of its own over the host). */
  tree: Tree;
  /** The manifests' own changes (sorted by path). */
  changes: Change[];
  /** Warnings (errors are thrown). */
  warnings: Diagnostic[];
  /** True when the no-change fast path answered (the tree holds nothing). */
  cached: boolean;
  /** Why the fast path did not answer. */
  cacheMiss?: string;
  /**
   * Records the no-change cache of what the analysis read, once the tree is committed (undefined
   * when there is none to record: a memory host, --paths, a run that writes nothing). Never call
   * it when the commit did not happen: the record would describe files that are not on disk.
   */
  recordCache?: () => void;
}

/**
 * The pipeline for a command that plans more than the manifests (`create api`, `create webhook`):
 * loader, analysis and generators, then the managed files planned into `tree` (default: a tree
 * of its own over the host), all in memory (no stage, no incremental reuse). Given a tree holding a
 * command's planned changes (a scaffold), the analysis reads the project as that tree has it: its
 * pending files laid over the disk (the loader's overlay), so the manifests of a Kind not yet
 * written are planned with it, and one commit writes both. Writes nothing; throws
 * DiagnosticError when any error is found.
 */
export async function planManifestsRun(options: ManifestsOptions, analyzer: Analyzer = defaultAnalyzer, given?: Tree): Promise<ManifestsPlan> {
  const host = given?.host ?? options.host ?? new DiskHost(resolve(options.projectDir));
  const tree = given ?? new Tree(host);
  const { projectDir, tsconfigPath, generatorVersion, paths, keyParts, projectText, k8sVersion } = runSettings(options, host, given);

  // The planned changes of the caller's tree, laid over the disk for the analysis.
  const overlay = given ? overlayOf(tree, projectDir) : undefined;
  const useCache = host instanceof DiskHost && host.root === projectDir;
  let cacheMiss: string | undefined = 'disabled';
  // The record describes the disk; a tree with planned changes is not the disk.
  if (!options.noCache && useCache && !overlay) {
    const check = checkCache(projectDir, tsconfigPath, keyParts);
    if (check.hit) return { tree, changes: [], warnings: check.record.warnings, cached: true };
    cacheMiss = check.reason;
  }
  // Hashed before the analysis reads them, so that an edit saved during the run is seen next
  // time; planned files count with the text the analysis reads (what the commit will write).
  const snapshot: InputSnapshot | undefined = useCache && !options.check && !options.dryRun ? snapshotInputs(projectDir, tsconfigPath) : undefined;
  if (snapshot && overlay) {
    for (const [abs, text] of overlay.files) {
      if (text === null) snapshot.hashes.delete(abs);
      else snapshot.hashes.set(abs, sha256(text));
    }
  }

  const reporter = options.reporter ?? new Reporter();
  const analysis = await analyzer({ projectDir, tsconfigPath, paths, generatorVersion, embeddedObjectMeta: options.embeddedObjectMeta, k8sVersion, ...(overlay && { overlay }) }, reporter);
  const { DEFAULT_GENERATORS, runGenerators } = await import('./generators.js');
  const managerNamespace = await managerNamespaceOf(projectText, projectDir);
  const files = await runGenerators({ ...analysis, managerNamespace, maxDescLen: options.maxDescLen, k8sVersion }, reporter, options.generators ?? DEFAULT_GENERATORS);
  const diagnostics = reporter.diagnostics();
  if (hasErrors(diagnostics)) throw new DiagnosticError(diagnostics);
  const warnings = diagnostics.filter((d) => d.severity !== 'error');

  // With --paths the analysis saw part of the project: only the CRDs of the Kinds it found are
  // updated. role.yaml and the webhook manifests gather markers from the whole project, so a
  // partial view would drop rules; they are left as they are, and nothing stale is removed.
  const partial = paths !== undefined;
  const outputs = partial ? files.filter((o) => o.path.startsWith(`${CRD_DIR}/`)) : files;
  const planned = new Set(given ? tree.changes().map((c) => c.path) : []);
  if (!partial && projectText !== undefined) await planChartSync(tree, projectText, projectDir, outputs);
  const changes = (await planManifests(tree, outputs, { removeStale: !partial })).filter((c) => !planned.has(c.path));
  if (!options.check && !options.dryRun) refuseBlindDeletion(changes, projectDir, tsconfigPath, partial);
  const recordCache =
    !partial && snapshot
      ? () => writeCache(projectDir, tsconfigPath, keyParts, analysis.inputFiles, outputs.map((o) => o.path), warnings, snapshot)
      : undefined;
  // Said for this run's deletions only: not recorded with the warnings a no-change run repeats.
  return { tree, changes, warnings: [...warnings, ...crdsOfUnrootedKinds(changes, analysis.classes ?? [], projectDir)], cached: false, cacheMiss, recordCache };
}

/** The pending changes of a tree over the disk, as the loader's overlay (absolute paths). */
function overlayOf(tree: Tree, projectDir: string): SourceOverlay | undefined {
  const files = new Map<string, string | null>();
  for (const [path, data] of tree.planned()) files.set(join(projectDir, path), data === null ? null : data.toString('utf8'));
  return files.size ? { files } : undefined;
}

/** A run planned on the host, its files staged, nothing in the project written yet: see {@link planDiskRun}. */
interface DiskPlan {
  changes: PlannedChange[];
  warnings: Diagnostic[];
  cached: boolean;
  cacheMiss?: string;
  /** Renames the staged files into place (rollback on failure) and records the cache. */
  commit(): void;
  /** Removes the stage (also after a commit; idempotent). */
  discard(): void;
  /** The project's sources as the run read them (absolute path -> text), for the warnings' code frames. */
  sources?: ReadonlyMap<string, string>;
  /** With --check-compat: the line saying what was compared (compat.ts). */
  compatSummary?: string;
}

const NOTHING = () => {};

/** Runs the whole pipeline. Throws DiagnosticError (nothing written) when any error is found. */
export async function runManifests(options: ManifestsOptions, analyzer: Analyzer = defaultAnalyzer): Promise<ManifestsRun> {
  const plan = await planDiskRun(options, analyzer);
  try {
    const { changes, warnings, cached, cacheMiss, compatSummary } = plan;
    if (cached || options.check || options.dryRun) return { changes, warnings, cached, cacheMiss, written: false, compatSummary };
    await options.beforeCommit?.();
    plan.commit();
    return { changes, warnings, cached: false, cacheMiss, written: true, compatSummary };
  } finally {
    plan.discard();
  }
}

/**
 * The pipeline up to the commit, for a run on the project itself: fast path, incremental
 * analysis, generators streamed into the stage. Throws DiagnosticError (the stage removed) when
 * any error is found.
 */
async function planDiskRun(given: ManifestsOptions, analyzer: Analyzer): Promise<DiskPlan> {
  // Every CRD must be generated to be compared with the base: no fast path, no kept CRDs.
  const options = given.compat ? { ...given, noCache: true } : given;
  const host = options.host ?? new DiskHost(resolve(options.projectDir));
  const { projectDir, tsconfigPath, generatorVersion, paths, keyParts, projectText, k8sVersion } = runSettings(options, host);

  const useCache = host instanceof DiskHost && host.root === projectDir;
  // Hashed before the analysis reads them, so that an edit saved during the run is seen next
  // time; the fast path checks with the same hashes.
  const snapshot: InputSnapshot | undefined = useCache && !options.check && !options.dryRun ? snapshotInputs(projectDir, tsconfigPath) : undefined;
  let cacheMiss: string | undefined = 'disabled';
  if (!options.noCache && useCache) {
    const check = checkCache(projectDir, tsconfigPath, keyParts, snapshot);
    if (check.hit) return { changes: [], warnings: check.record.warnings, cached: true, commit: NOTHING, discard: NOTHING, sources: snapshot?.texts };
    cacheMiss = check.reason;
  }

  // With --paths the analysis saw part of the project: only the CRDs of the Kinds it found are
  // updated. role.yaml and the webhook manifests gather markers from the whole project, so a
  // partial view would drop rules; they are left as they are, and nothing stale is removed.
  const partial = paths !== undefined;

  // A run that writes keys every root file (incremental.ts); after an edit, the roots whose keys
  // are unchanged keep their results from the record and are not analysed again.
  let inc: IncrementalPlanner | undefined;
  let outsideInputs: string[] = [];
  if (snapshot && !partial) {
    const base = options.noCache || options.cold ? undefined : incrementalBase(projectDir, tsconfigPath, keyParts, snapshot);
    inc = new IncrementalPlanner(projectDir, base?.record ?? { roots: {}, crds: {} }, snapshot.hashes, base?.touchedOutputs ?? new Set());
    outsideInputs = base?.outsideInputs ?? [];
  }

  const reporter = options.reporter ?? new Reporter();
  const analysis = await analyzer(
    {
      projectDir,
      tsconfigPath,
      paths,
      generatorVersion,
      embeddedObjectMeta: options.embeddedObjectMeta,
      k8sVersion,
      selectRoots: inc && ((roots, tools) => inc.select(roots, tools)),
      texts: snapshot?.texts,
    },
    reporter,
  );
  const selection = analysis.byRoot ? inc?.selection : undefined;
  const managerNamespace = await managerNamespaceOf(projectText, projectDir);
  let compatSummary: string | undefined;
  const compat = options.compat;
  const checkCRDs = compat
    ? async () => {
        const { checkCompat, compatSummary: summary } = await import('./compat.js');
        return (crds: readonly Record<string, unknown>[], r: Reporter) => {
          const found = checkCompat(compat.base, crds, { allow: compat.allow, partial });
          for (const d of found) r.report(d);
          compatSummary = summary(compat.base, crds, found);
        };
      }
    : undefined;
  let input: GeneratorInput = { ...analysis, managerNamespace, maxDescLen: options.maxDescLen, k8sVersion, ...(checkCRDs && { checkCRDs: await checkCRDs() }) };
  let kept: Set<string> = new Set();
  if (selection && inc) {
    // A changed root now declaring a Kind that an unchanged root declares: the CRD needs both, so
    // the run starts again cold (rare: a version added or moved).
    const cleanKinds = inc.cleanKinds();
    for (const r of analysis.byRoot!.values()) {
      if (r.kinds.some((k) => cleanKinds.has(`${k.kind}.${k.group}`))) return planDiskRun({ ...options, cold: true }, analyzer);
    }
    const rbac = [...analysis.rbac];
    const webhooks = [...analysis.webhooks];
    const webhookConfigurations = [...analysis.webhookConfigurations];
    for (const root of selection.clean) {
      const e = inc.entry(root);
      if (!e) continue;
      rbac.push(...e.rbac);
      webhooks.push(...e.webhooks);
      webhookConfigurations.push(...e.webhookConfigurations);
      for (const w of e.warnings) reporter.report(w);
    }
    input = { ...input, rbac: rbac.sort(byPosition), webhooks: webhooks.sort(byPosition), webhookConfigurations: webhookConfigurations.sort(byPosition) };
    kept = new Set(selection.keptCrds);
  }

  // Each output is planned (and, for a run that writes on disk, staged) as soon as it is made,
  // so the outputs are never all in memory; nothing reaches the project before the commit.
  const writes = !options.check && !options.dryRun;
  // With the helm plugin recorded, the chart's CRD and manager-role templates are planned with the files they follow.
  const chartSync = !partial && projectText !== undefined ? await chartSyncFor(projectText, projectDir, (p) => host.read(p)?.toString('utf8')) : undefined;
  const helmChart = chartSync ? await import('./helm.js') : undefined;
  const chart = chartSync && helmChart ? { sync: chartSync, tool: helmChart.CHART_TOOL, files: helmChart.chartFilesFor, crdPath: helmChart.chartCrdPathOf, candidates: helmChart.chartCrdCandidates } : undefined;
  const { DEFAULT_GENERATORS, streamGenerators } = await import('./generators.js');
  // A file kept as it is (incremental run): the chart templates that follow it are still made from it, so a chart edited by hand is brought back.
  const acceptChartOf = (path: string) => {
    if (!chart || planner.has(chart.crdPath(chart.sync, path) ?? '')) return;
    const text = host.read(path)?.toString('utf8');
    if (text !== undefined) for (const f of chart.files(chart.sync, { path, content: text })) if (!planner.has(f.path)) planner.accept(f.path, f.text, chart.tool);
  };
  const planner = new OutputPlanner(host, { tool: MANIFESTS_TOOL, mode: !writes ? 'none' : host instanceof DiskHost ? 'stage' : 'memory' });
  const crdSources = new Map<string, string[]>();
  const crdWarnings = new Map<string, Diagnostic[]>();
  let collision = false;
  // Generators whose input is the last run's exactly keep their files and warnings (incremental.ts);
  // the others run, and what they make is recorded for the next run.
  const generatorEntries = new Map<string, GeneratorEntry>();
  const generators: Generator[] = [];
  for (const g of options.generators ?? DEFAULT_GENERATORS) {
    const key = selection && inc && g.inputKey ? sha256(g.inputKey(input)) : undefined;
    const same = key !== undefined ? inc!.keptGenerator(g.name, key) : undefined;
    if (same) {
      for (const f of same.files) {
        planner.keep(f);
        acceptChartOf(f);
      }
      for (const w of same.warnings) reporter.report(w);
      generatorEntries.set(g.name, same);
    } else generators.push(key === undefined ? g : recorded(g, key, generatorEntries));
  }
  try {
    for (const path of kept) {
      planner.keep(path);
      acceptChartOf(path);
      for (const w of inc!.previousCrdWarnings(path)) reporter.report(w);
    }
    let failed = false;
    let looked = -1;
    await streamGenerators(input, reporter, generators, (file) => {
      if (partial && !file.path.startsWith(`${CRD_DIR}/`)) return;
      if (kept.has(file.path)) collision = true;
      if (collision) return;
      if (file.sources) crdSources.set(file.path, file.sources);
      if (file.warnings) crdWarnings.set(file.path, file.warnings);
      // Once an error is known nothing will be written: the rest is only made for its diagnostics.
      if (!failed && reporter.count !== looked) {
        looked = reporter.count;
        failed = hasErrors(reporter.diagnostics());
      }
      if (!failed) planner.accept(file.path, file.content);
      if (!failed && chart) for (const f of chart.files(chart.sync, { path: file.path, content: file.content })) if (!planner.has(f.path)) planner.accept(f.path, f.text, chart.tool);
    });
    // A changed Kind writing the path of a CRD that was kept: start again cold (KF4502, or a renamed Kind).
    if (collision) {
      planner.discard();
      return planDiskRun({ ...options, cold: true }, analyzer);
    }
    const diagnostics = reporter.diagnostics();
    if (hasErrors(diagnostics)) throw new DiagnosticError(diagnostics);
    const warnings = diagnostics.filter((d) => d.severity !== 'error');
    const foreign = planner.foreignFiles();
    if (foreign.length) throw new DiagnosticError(foreign);
    if (!partial) planner.removeStale(managedLocations(host));
    if (chart) planner.removeStale(chart.candidates(chart.sync, (d) => host.list(d)), chart.tool);
    const changes = planner.plan();
    // Said for this run's deletions only: not recorded with the warnings a no-change run repeats.
    const reported = [...warnings, ...crdsOfUnrootedKinds(changes, analysis.classes ?? [], projectDir)];
    if (!writes) {
      planner.discard();
      return { changes, warnings: reported, cached: false, cacheMiss, commit: NOTHING, discard: NOTHING, compatSummary };
    }
    refuseBlindDeletion(changes, projectDir, tsconfigPath, partial);
    return {
      changes,
      warnings: reported,
      cached: false,
      cacheMiss,
      commit: () => {
        planner.commit();
        if (!partial && useCache) {
          const record = selection && inc ? incrementalRecord(inc, selection, analysis.byRoot!, kept, { sources: crdSources, warnings: crdWarnings }, generatorEntries) : undefined;
          writeCache(projectDir, tsconfigPath, keyParts, [...new Set([...analysis.inputFiles, ...outsideInputs])], planner.producedPaths(), warnings, snapshot, record);
        }
      },
      discard: () => planner.discard(),
      sources: snapshot?.texts,
      compatSummary,
    };
  } catch (e) {
    planner.discard();
    throw e;
  }
}

/** The order of marker uses in an analysis: by file, line, column. */
function byPosition(a: MarkerUse, b: MarkerUse): number {
  return a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || a.column - b.column;
}

/** A generator that records, in `into`, the files it makes and the warnings it reports under `key`. */
function recorded(g: Generator, key: string, into: Map<string, GeneratorEntry>): Generator {
  return {
    ...g,
    generate(input, reporter) {
      const entry: GeneratorEntry = { key, files: [], warnings: [] };
      into.set(g.name, entry);
      const files = g.generate(input, new TeeReporter(reporter, (d) => {
        if (d.severity !== 'error') entry.warnings.push(d);
      }));
      return (function* () {
        for (const f of files) {
          entry.files.push(f.path);
          yield f;
        }
      })();
    },
  };
}

/** The per-file results to record: new ones for the roots analysed, the kept ones for the others. */
function incrementalRecord(
  inc: IncrementalPlanner,
  selection: Selection,
  byRoot: ReadonlyMap<string, RootResult>,
  kept: ReadonlySet<string>,
  made: { sources: ReadonlyMap<string, string[]>; warnings: ReadonlyMap<string, Diagnostic[]> },
  generatorEntries: ReadonlyMap<string, GeneratorEntry>,
): IncrementalRecord {
  const roots: IncrementalRecord['roots'] = {};
  for (const [root, key] of [...selection.keys].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const fresh = byRoot.get(root);
    const result: RootResult | undefined = selection.dirty.has(root)
      ? fresh && { ...fresh, warnings: fresh.warnings.filter((d) => d.severity !== 'error') }
      : inc.entry(root);
    roots[inc.display(root)] = { key, ...(result ?? { kinds: [], rbac: [], webhooks: [], webhookConfigurations: [], warnings: [] }) };
  }
  const crds: IncrementalRecord['crds'] = {};
  const crdWarnings: Record<string, Diagnostic[]> = {};
  for (const path of kept) {
    crds[path] = inc.previousCrd(path);
    const warnings = inc.previousCrdWarnings(path);
    if (warnings.length) crdWarnings[path] = warnings;
  }
  for (const [path, sources] of made.sources) crds[path] = sources.map((f) => inc.display(f));
  for (const [path, warnings] of made.warnings) crdWarnings[path] = warnings;
  const generators = Object.fromEntries([...generatorEntries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const sortedWarnings = Object.fromEntries(Object.entries(crdWarnings).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { roots, crds, ...(Object.keys(crdWarnings).length > 0 && { crdWarnings: sortedWarnings }), ...(generatorEntries.size > 0 && { generators }) };
}

/**
 * KF4016: a CRD deleted because the class of its Kind lost `@Root()` (the class is still there,
 * under the CRD's Kind name, without it). Deleting is right for a Kind removed on purpose; for a
 * decorator removed by mistake it would silently uninstall the resource, so it is said.
 */
function crdsOfUnrootedKinds(changes: readonly Change[], classes: readonly ClassInfo[], projectDir: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  if (!classes.some((k) => !k.isRoot)) return out;
  for (const c of changes) {
    if (c.kind !== 'delete' || !c.path.startsWith(`${CRD_DIR}/`)) continue;
    let text: string;
    try {
      text = c.previous?.toString('utf8') ?? readFileSync(join(projectDir, c.path), 'utf8');
    } catch {
      continue;
    }
    const kind = /^ {4}kind: ['"]?([A-Za-z0-9]+)['"]?\s*$/m.exec(text)?.[1];
    const cls = kind && classes.find((k) => k.name === kind && !k.isRoot);
    if (!cls) continue;
    out.push({
      code: 'KF4016',
      severity: 'warning',
      message: `${c.path} is deleted: class ${kind} has no @Root() any more, so it is not a Kind and gets no CRD`,
      hint: `if ${kind} is still a Kind, put @Root() back on the class; if it is gone on purpose, nothing to do`,
      ...cls.at,
    });
  }
  return out;
}

/**
 * A tsconfig that includes no file under src/ makes the analysis find nothing, and the plan then
 * deletes every generated manifest. That is a broken tsconfig, not a project without APIs:
 * KF4506, nothing written.
 */
function refuseBlindDeletion(changes: readonly Change[], projectDir: string, tsconfigPath: string, partial: boolean): void {
  const deleted = changes.filter((c) => c.kind === 'delete').map((c) => c.path);
  if (partial || deleted.length === 0 || !existsSync(tsconfigPath)) return;
  const src = resolve(projectDir, 'src') + sep;
  if (enumerateSourceFiles(projectDir, tsconfigPath).files.some((f) => resolve(projectDir, f).startsWith(src))) return;
  throw new DiagnosticError(
    error('KF4506', `${relative(projectDir, tsconfigPath) || 'tsconfig.json'} includes no file under src/, so kubeforge manifests found no API there and would delete ${deleted.join(', ')}; nothing was written`, {
      file: tsconfigPath,
      hint: 'make its "include" (or "files") cover src/ again, e.g. "include": ["src/**/*.ts", "test/**/*.ts"]; to remove generated manifests on purpose, delete them yourself',
    }),
  );
}

export type { CommandIo };

export interface ManifestsFlags {
  check?: boolean;
  dryRun?: boolean;
  paths?: string[];
  project?: string;
  tsconfig?: string;
  generatorVersion?: string;
  cache?: boolean;
  /** `--max-desc-len`, as typed (checked here: a whole number, 0 or more; KF1093). */
  maxDescLen?: string | number;
  generateEmbeddedObjectMeta?: boolean;
  /** `--k8s-version`, as typed (checked here against the supported minors; KF1097). */
  k8sVersion?: string;
  /** `--check-compat <git-ref|dir>`: the base the generated CRDs are compared with (compat.ts). */
  checkCompat?: string;
  /** `--allow <rule>` (repeatable): compatibility rules whose errors become warnings and whose warnings are dropped. */
  allow?: string[];
}

/** `--max-desc-len` as a number; KF1093 for anything but a whole number, 0 or more. */
function parseMaxDescLen(value: string | number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number' ? Number.isInteger(value) && value >= 0 : /^\d+$/.test(value.trim())) return Number(value);
  throw new DiagnosticError(error('KF1093', `invalid --max-desc-len "${value}": expected a whole number of bytes, 0 or more`, { hint: 'e.g. --max-desc-len 0 (no descriptions) or --max-desc-len 80' }));
}

function readSource(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * The `kubeforge manifests` action, through the command runner: a run that writes holds the
 * project's lock (one kubeforge command at a time) and stops before its commit when interrupted
 * (the stage removed, nothing written). Prints the plan; throws DiagnosticError to exit 1.
 */
export async function manifestsCommand(flags: ManifestsFlags, io: CommandIo, analyzer?: Analyzer, generators?: readonly Generator[]): Promise<void> {
  const projectDir = resolve(io.cwd, flags.project ?? '.');
  const maxDescLen = parseMaxDescLen(flags.maxDescLen);
  // Recorded in the manifests script like --max-desc-len (which make manifests runs).
  const embeddedObjectMeta = flags.generateEmbeddedObjectMeta === true || undefined;
  const k8sVersion = flags.k8sVersion === undefined ? undefined : parseK8sVersion(flags.k8sVersion, { flag: true });
  let compat: ManifestsOptions['compat'];
  if (flags.allow?.length && flags.checkCompat === undefined) {
    throw new DiagnosticError(error('KF4703', '--allow names compatibility rules and needs --check-compat <git-ref|dir>', { hint: 'e.g. kubeforge manifests --check-compat v1.0.0 --allow field-removed' }));
  }
  if (flags.checkCompat !== undefined) {
    const { loadCompatBase, parseAllow } = await import('./compat.js');
    const allow = parseAllow(flags.allow);
    compat = { base: loadCompatBase(flags.checkCompat, projectDir, io.cwd), allow };
  }
  // --max-desc-len is recorded in package.json's `manifests` script (script.ts), so that
  // `make manifests` keeps using it: planned with the run, written after its commit.
  let record: { text: string; script: string } | undefined;
  const printRecord = () => {
    if (record) io.out(`UPDATE package.json (scripts.manifests: ${record.script})\n`);
  };
  const printWarnings = (run: DiskPlan) => {
    if (run.warnings.length > 0) io.err(formatDiagnostics(run.warnings, { color: io.color, cwd: io.cwd, readSource: (f) => run.sources?.get(f) ?? readSource(f) }));
  };
  let staged: DiskPlan | undefined;
  try {
    await runCommand<{ tree: Tree; run: DiskPlan }, void>(
      {
        name: 'manifests',
        lockRoot: existsSync(projectDir) ? projectDir : undefined,
        plan: async (ctx) => {
          staged = await planDiskRun(
            {
              projectDir,
              tsconfigPath: flags.tsconfig ? resolve(io.cwd, flags.tsconfig) : undefined,
              paths: flags.paths?.map((p) => resolve(io.cwd, p)),
              generatorVersion: flags.generatorVersion,
              maxDescLen,
              embeddedObjectMeta,
              k8sVersion,
              check: flags.check,
              dryRun: flags.dryRun,
              noCache: flags.cache === false,
              generators,
              reporter: ctx.reporter,
              compat,
            },
            analyzer ?? defaultAnalyzer,
          );
          if ((maxDescLen !== undefined || embeddedObjectMeta || k8sVersion !== undefined) && !flags.check) {
            const pkg = ctx.host.read('package.json')?.toString('utf8');
            const text = pkg === undefined ? undefined : recordManifestsOptions(pkg, { maxDescLen, embeddedObjectMeta, k8sVersion });
            const given = [
              ...(maxDescLen !== undefined ? [`--max-desc-len ${maxDescLen}`] : []),
              ...(embeddedObjectMeta ? [EMBEDDED_OBJECT_META_FLAG] : []),
              ...(k8sVersion !== undefined ? [`--k8s-version ${k8sVersion}`] : []),
            ].join(' ');
            if (text === undefined) {
              io.err(`warning: no package.json "manifests" script running kubeforge manifests to record ${given} in: pass it to every run yourself\n`);
            } else if (text !== pkg) {
              record = { text, script: (JSON.parse(text) as { scripts: Record<string, string> }).scripts.manifests };
            }
          }
          // The files are staged by the pipeline, not planned in a tree: the runner's tree stays empty.
          return { tree: new Tree(ctx.host), run: staged };
        },
        preview: ({ run }) => {
          printWarnings(run);
          if (run.compatSummary) io.out(run.compatSummary);
          const plan = formatPlan(run.changes, { color: io.color });
          if (flags.check) {
            if (run.changes.length === 0) {
              io.out('manifests are up to date\n');
              return;
            }
            io.out(plan);
            const n = run.changes.length;
            throw new DiagnosticError(
              error('KF4501', `${n} generated manifest file${n === 1 ? ' is' : 's are'} out of date`, {
                hint: 'run `kubeforge manifests` (npm run manifests) and commit the result',
              }),
            );
          }
          io.out(run.changes.length === 0 ? 'nothing to do: manifests are up to date\n' : plan);
          printRecord();
        },
        commit: ({ run }, ctx) => {
          run.commit();
          if (record) ctx.host.write('package.json', Buffer.from(record.text));
        },
        // The staged files are renamed into place synchronously, so a signal is seen once all are.
        interrupted: { keep: 'the manifests were written (every file)' },
        after: async ({ run }) => {
          printWarnings(run);
          if (run.compatSummary) io.out(run.compatSummary);
          io.out(run.changes.length === 0 ? 'manifests are up to date\n' : formatPlan(run.changes, { color: io.color }));
          printRecord();
        },
      },
      io,
      { host: new DiskHost(projectDir), dryRun: Boolean(flags.check || flags.dryRun) },
    );
  } finally {
    staged?.discard();
  }
}
