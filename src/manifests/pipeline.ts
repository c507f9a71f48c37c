/**
 * The manifests pipeline, one for every caller (`kubeforge manifests`, `kubeforge dev`, the
 * scaffolds' manifests step): loader -> analysis -> generators -> YAML -> a sink -> plan ->
 * (check | dry run | write). The command around it is src/cli/commands/manifests.ts.
 *
 * Order of work, so that a failing run leaves the disk as it was:
 *   1. no-change fast path (hashes only; ts-morph is not loaded);
 *   2. the incremental pre-pass (incremental.ts): which root files' results are kept;
 *   3. loader and analysis (part of the project's TypeScript, through ts-morph, loaded lazily
 *      here); after an edit, only the root files whose results can have changed;
 *   4. every generator's problems reported (to one Reporter), then its files made one at a time
 *      and handed to the sink (stage.ts): a scaffold's tree, the stage `.kubeforge/stage-<pid>/`
 *      for a run that writes on disk, memory for another host, or nothing but the plan;
 *   5. on any error diagnostic: throw them all, the sink discarded, nothing written;
 *   6. `--check` / `--dry-run` stop at the plan; otherwise every path is validated and the staged
 *      files renamed into place at once (rollback on failure).
 */
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { type Diagnostic, DiagnosticError, error, hasErrors, Reporter, TeeReporter } from '../diagnostics/index.js';
import { DiskHost, type Host } from '../machinery/host.js';
import { Tree } from '../machinery/tree.js';
import { packageVersion } from '../util/package-root.js';
import type { Analysis, AnalyzeOptions, ClassInfo, RootResult } from '../analysis/analyze.js';
import type { SourceOverlay } from '../loader/program.js';
import {
  type CacheKeyParts,
  checkCache,
  incrementalBase,
  enumerateSourceFiles,
  type InputSnapshot,
  sha256,
  snapshotInputs,
  writeCache,
} from './cache.js';
// The generators bring the CRD check (and, for schemas with rules, its CEL compiler): loaded after the fast path misses.
import type { Generator, GeneratorInput } from './generators.js';
import { OutputPlanner, type OutputSink, type PlannedChange, TreeSink } from './stage.js';
import { type GeneratorEntry, type IncrementalRecord, IncrementalPlanner, type Selection } from './incremental.js';
import type { MarkerUse } from './markeruse.js';
import { checkGivenSettings, type ManifestsSettings, recordedSettings } from './settings.js';
import { type Change, CRD_DIR, MANIFESTS_TOOL, managedLocations } from './managed-files.js';
import type { CompatBase, CompatOptions } from './compat.js';

export type { AnalyzeOptions };

/** What an analyzer returns: the generators' input and the files it read (a type-only view: the analysis and ts-morph load lazily, below). */
export type AnalysisResult = GeneratorInput &
  Pick<Analysis, 'inputFiles' | 'byRoot'> &
  Partial<Pick<Analysis, 'classes'>>;

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
   * many bytes at a sentence or word boundary (desc.ts); 0 drops them. A number, or the flag's
   * text; checked once as the run's options settle (KF1093; checkGivenSettings). Unset: what
   * the project records (settings.ts). Part of the cache key.
   */
  maxDescLen?: number | string;
  /**
   * controller-gen's `crd:generateEmbeddedObjectMeta`: an ObjectMeta below a Kind's top (a pod
   * template's metadata) keeps name, namespace, labels, annotations and finalizers in the schema,
   * instead of a bare object the API server prunes. Part of the cache key.
   */
  embeddedObjectMeta?: boolean;
  /**
   * The Kubernetes minor whose types embedded Kubernetes types follow (`1.36`; default the newest
   * supported). A value kubeforge has no data for is KF1097 (KF1098 when PROJECT's manifests
   * record holds it). Part of the cache key.
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
  compat?: { base: CompatBase; allow: ReadonlySet<string>; onFinding?: CompatOptions['onFinding'] };
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
function runSettings(options: SettledOptions, host: Host, tree?: Tree) {
  const projectDir = resolve(options.projectDir);
  if (host.kind('') !== 'directory') {
    throw new DiagnosticError(
      error('KF4503', `project folder ${projectDir} does not exist`, {
        hint: 'pass the folder holding tsconfig.json with --project',
      }),
    );
  }
  const tsconfigPath = options.tsconfigPath
    ? resolve(projectDir, options.tsconfigPath)
    : resolve(projectDir, 'tsconfig.json');
  const tsconfigRel = relative(projectDir, tsconfigPath).split(sep).join('/');
  const tsconfigInside = tsconfigRel !== '' && !tsconfigRel.startsWith('..') && !isAbsolute(tsconfigRel);
  const planned = tree?.exists(tsconfigRel) ?? false;
  if (tsconfigInside ? !planned && host.kind(tsconfigRel) === undefined : !existsSync(tsconfigPath)) {
    throw new DiagnosticError(
      error('KF4504', `no tsconfig.json in ${projectDir}`, {
        file: tsconfigPath,
        hint: 'run kubeforge manifests from the project root, or pass --project <dir>',
      }),
    );
  }
  const generatorVersion = resolveGeneratorVersion(options.generatorVersion);
  const paths = options.paths?.map((p) => (isAbsolute(p) ? p : resolve(projectDir, p)));
  const { k8sVersion } = options;
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

const PROJECT_FILE = 'PROJECT';

/**
 * The manager's namespace when PROJECT says the project is namespace-scoped (`namespaced: true`),
 * else undefined (no PROJECT: a cluster-scoped manager). A PROJECT that does not parse is its
 * located error (KF1010 / KF1011).
 */
async function managerNamespaceOf(projectText: Buffer | undefined, projectDir: string): Promise<string | undefined> {
  if (projectText === undefined) return undefined;
  const [{ managerNamespace }, { ProjectFile }] = await Promise.all([
    import('../project/config.js'),
    import('../project/file.js'),
  ]);
  const { config } = ProjectFile.parse(projectText.toString('utf8'), join(projectDir, PROJECT_FILE));
  return config.namespaced ? managerNamespace(config) : undefined;
}

/** The chart `manifests` keeps in step (helm plugin recorded and its Chart.yaml there), else undefined. */
async function chartSyncFor(
  projectText: Buffer,
  projectDir: string,
  read: (path: string) => string | undefined,
  list: (dir: string) => string[],
): Promise<import('./helm.js').ChartSync | undefined> {
  const { ProjectFile } = await import('../project/file.js');
  const { config } = ProjectFile.parse(projectText.toString('utf8'), join(projectDir, PROJECT_FILE));
  const { chartSyncOf } = await import('./helm.js');
  return chartSyncOf(config, read, list);
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
 * the one pipeline ({@link planRun}) with the command's tree as its sink (default: a tree of its
 * own over the host), all in memory (no stage, no incremental reuse). The analysis reads the
 * project as that tree has it: its pending files laid over the disk (the loader's overlay), so
 * the manifests of a Kind not yet written are planned with it, and one commit writes both.
 * Writes nothing; throws DiagnosticError when any error is found.
 */
export async function planManifestsRun(
  options: ManifestsOptions,
  analyzer: Analyzer = defaultAnalyzer,
  given?: Tree,
): Promise<ManifestsPlan> {
  const tree = given ?? new Tree(options.host ?? new DiskHost(resolve(options.projectDir)));
  const run = await planRun(options, analyzer, { tree, overlay: given !== undefined });
  const { changes, warnings, cached, cacheMiss, recordCache } = run;
  return { tree, changes: changes.map(({ summary: _, ...c }) => c), warnings, cached, cacheMiss, recordCache };
}

/** The pending changes of a tree over the disk, as the loader's overlay (absolute paths). */
function overlayOf(tree: Tree, projectDir: string): SourceOverlay | undefined {
  const files = new Map<string, string | null>();
  for (const [path, data] of tree.planned())
    files.set(join(projectDir, path), data === null ? null : data.toString('utf8'));
  return files.size ? { files } : undefined;
}

/** A run planned, nothing in the project written yet: see {@link planRun}. */
export interface RunPlan {
  changes: PlannedChange[];
  warnings: Diagnostic[];
  cached: boolean;
  cacheMiss?: string;
  /** Applies the sink's plan (staged files renamed into place, rollback on failure) and records the cache. */
  commit(): void;
  /** Drops what the sink prepared (also after a commit; idempotent). */
  discard(): void;
  /** For a tree sink: records the no-change cache once the caller committed the tree. */
  recordCache?: () => void;
  /** The project's sources as the run read them (absolute path -> text), for the warnings' code frames. */
  sources?: ReadonlyMap<string, string>;
  /** With --check-compat: the line saying what was compared (compat.ts). */
  compatSummary?: string;
  /** The options the caller gave, checked (what `kubeforge manifests` records in PROJECT). */
  given?: ManifestsSettings;
}

const NOTHING = () => {};

/** Runs the whole pipeline on the project. Throws DiagnosticError (nothing written) when any error is found. */
export async function runManifests(
  options: ManifestsOptions,
  analyzer: Analyzer = defaultAnalyzer,
): Promise<ManifestsRun> {
  const plan = await planRun(options, analyzer);
  try {
    const { changes, warnings, cached, cacheMiss, compatSummary } = plan;
    if (cached || options.check || options.dryRun)
      return { changes, warnings, cached, cacheMiss, written: false, compatSummary };
    await options.beforeCommit?.();
    plan.commit();
    return { changes, warnings, cached: false, cacheMiss, written: true, compatSummary };
  } finally {
    plan.discard();
  }
}

/**
 * The options the project records (settings.ts: PROJECT's manifests record, under the flags an
 * older project's package.json `manifests` script still passes) for those not given: every entry
 * (a plain `kubeforge manifests`, `--check`, `kubeforge dev`, the manifests step of create api /
 * webhook / edit, alpha generate) makes the files `make manifests` makes, so `--check`'s hint
 * never rewrites the CRDs at another minor. A value given wins. A bad recorded value is its
 * located error (KF1098 in PROJECT, KF1097 in package.json), even when a flag overrides it.
 */
function withRecordedOptions(options: ManifestsOptions, project: Pick<Host, 'read'>): SettledOptions {
  const given = checkGivenSettings(options);
  const recorded = recordedSettings({
    read: (path) => project.read(path)?.toString('utf8'),
    projectDir: resolve(options.projectDir),
  });
  return {
    ...options,
    given,
    k8sVersion: given.k8sVersion ?? recorded.k8sVersion,
    maxDescLen: given.maxDescLen ?? recorded.maxDescLen,
    embeddedObjectMeta: given.embeddedObjectMeta ?? recorded.embeddedObjectMeta,
  };
}

/** A run's options settled: the given ones checked (kept as `given`), the recorded ones under them. */
export type SettledOptions = Omit<ManifestsOptions, keyof ManifestsSettings> &
  ManifestsSettings & {
    /** What the caller gave (checked), without what the project records. */
    given: ManifestsSettings;
  };

/** What a run settles before it analyses: its settings, the sink's target, the inputs' snapshot. */
interface RunContext extends ReturnType<typeof runSettings> {
  options: SettledOptions;
  host: Host;
  /** The caller's tree (the sink), or undefined: an {@link OutputPlanner} on the host. */
  tree?: Tree;
  overlay?: SourceOverlay;
  /** The no-change cache describes this host (a DiskHost on the project). */
  useCache: boolean;
  /** Not --check / --dry-run. */
  writes: boolean;
  /** With --paths the analysis saw part of the project (see {@link planRun}). */
  partial: boolean;
  /** The inputs hashed (and read) before the analysis, for a run that writes on disk. */
  snapshot?: InputSnapshot;
  cacheMiss?: string;
}

/**
 * The one manifests pipeline: settings, no-change fast path, incremental pre-pass, analysis,
 * generators streamed into a sink, plan. The sink is the caller's tree (a scaffold), the stage
 * (a run that writes on disk), memory (another host) or nothing but the plan (--check /
 * --dry-run). Throws DiagnosticError (the sink discarded) when any error is found.
 *
 * The incremental pre-pass keeps the results of the root files that did not change; when the
 * new results cannot be joined to them (a Kind now declared by a changed and an unchanged file,
 * a changed Kind writing the path of a kept CRD), the run is planned once more without reuse:
 * a second, cold attempt, never a third.
 */
export async function planRun(
  given: ManifestsOptions,
  analyzer: Analyzer = defaultAnalyzer,
  target?: { tree: Tree; overlay: boolean },
): Promise<RunPlan> {
  const tree = target?.tree;
  const host = tree?.host ?? given.host ?? new DiskHost(resolve(given.projectDir));
  // Every CRD must be generated to be compared with the base: no fast path, no kept CRDs.
  const options = withRecordedOptions(given.compat ? { ...given, noCache: true } : given, tree ?? host);
  const settings = runSettings(options, host, target?.overlay ? tree : undefined);
  const { projectDir, tsconfigPath, keyParts } = settings;
  // The planned changes of the caller's tree, laid over the disk for the analysis.
  const overlay = target?.overlay && tree ? overlayOf(tree, projectDir) : undefined;
  const useCache = host instanceof DiskHost && host.root === projectDir;
  const writes = !options.check && !options.dryRun;
  // Hashed before the analysis reads them, so that an edit saved during the run is seen next
  // time; the fast path checks with the same hashes; planned files count with the text the
  // analysis reads (what the commit will write).
  const snapshot: InputSnapshot | undefined = useCache && writes ? snapshotInputs(projectDir, tsconfigPath) : undefined;
  if (snapshot && overlay) {
    for (const [abs, text] of overlay.files) {
      if (text === null) snapshot.hashes.delete(abs);
      else snapshot.hashes.set(abs, sha256(text));
    }
  }
  let cacheMiss: string | undefined = 'disabled';
  // The record describes the disk; a tree with planned changes is not the disk.
  if (!options.noCache && useCache && !overlay) {
    const check = checkCache(projectDir, tsconfigPath, keyParts, snapshot);
    if (check.hit)
      return {
        given: options.given,
        changes: [],
        warnings: check.record.warnings,
        cached: true,
        commit: NOTHING,
        discard: NOTHING,
        sources: snapshot?.texts,
      };
    cacheMiss = check.reason;
  }
  const ctx: RunContext = {
    ...settings,
    options,
    host,
    tree,
    overlay,
    useCache,
    writes,
    partial: settings.paths !== undefined,
    snapshot,
    cacheMiss,
  };
  const plan = (await attempt(ctx, analyzer, options.cold ?? false)) ?? (await attempt(ctx, analyzer, true));
  // Only an incremental attempt steps back (undefined); the cold one always plans.
  if (!plan) throw new Error('manifests: the cold run returned no plan');
  return { ...plan, given: options.given };
}

/** The incremental pre-pass: for a run that writes on disk, the last run's record, unless cold (incremental.ts). */
function incrementalPrepass(
  ctx: RunContext,
  cold: boolean,
): { inc: IncrementalPlanner; outsideInputs: string[] } | undefined {
  const { snapshot, options, projectDir, keyParts } = ctx;
  // A scaffold's tree and a partial run analyse what they see, with no reuse.
  if (!snapshot || ctx.partial || ctx.tree) return undefined;
  const base = options.noCache || cold ? undefined : incrementalBase(projectDir, keyParts, snapshot);
  const inc = new IncrementalPlanner(
    projectDir,
    base?.record ?? { roots: {}, crds: {} },
    snapshot.hashes,
    base?.touchedOutputs ?? new Set(),
  );
  return { inc, outsideInputs: base?.outsideInputs ?? [] };
}

/** The generators' input: the analysis, the PROJECT's scope, the --check-compat hook (their options are their own). */
async function generatorInput(
  ctx: RunContext,
  analysis: AnalysisResult,
  compatSummary: { line?: string },
): Promise<GeneratorInput> {
  const managerNamespace = await managerNamespaceOf(ctx.projectText, ctx.projectDir);
  const compat = ctx.options.compat;
  let checkCRDs: GeneratorInput['checkCRDs'];
  if (compat) {
    const { checkCompat, compatSummary: summary } = await import('./compat.js');
    checkCRDs = (crds, r) => {
      const found = checkCompat(compat.base, crds, {
        allow: compat.allow,
        partial: ctx.partial,
        onFinding: compat.onFinding,
      });
      for (const d of found) r.report(d);
      compatSummary.line = summary(compat.base, crds, found);
    };
  }
  return {
    ...analysis,
    managerNamespace,
    ...(checkCRDs && { checkCRDs }),
  };
}

/** The per-root results an incremental selection is made from (the analysis sets byRoot whenever there is a selection). */
function rootsOf(analysis: Pick<AnalysisResult, 'byRoot'>): ReadonlyMap<string, RootResult> {
  if (!analysis.byRoot) throw new Error('manifests: an incremental selection without the analysis results per root');
  return analysis.byRoot;
}

/**
 * The kept roots' marker uses joined to the new ones, and their warnings reported again; the
 * CRDs kept. Undefined when a changed root now declares a Kind an unchanged root declares (the
 * CRD needs both: the run is planned cold).
 */
function joinKept(
  inc: IncrementalPlanner,
  selection: Selection,
  analysis: AnalysisResult,
  input: GeneratorInput,
  reporter: Reporter,
): { input: GeneratorInput; kept: Set<string> } | undefined {
  const cleanKinds = inc.cleanKinds();
  for (const r of rootsOf(analysis).values()) {
    if (r.kinds.some((k) => cleanKinds.has(`${k.kind}.${k.group}`))) return undefined;
  }
  const uses = [...analysis.markers.class];
  for (const root of selection.clean) {
    const e = inc.entry(root);
    if (!e) continue;
    uses.push(...e.markers);
    for (const w of e.warnings) reporter.report(w);
  }
  return {
    input: { ...input, markers: { ...analysis.markers, class: uses.sort(byPosition) } },
    kept: new Set(selection.keptCrds),
  };
}

/** The helm chart whose templates follow the manifests (helm plugin recorded in PROJECT), else undefined. */
async function chartOf(ctx: RunContext) {
  if (ctx.partial || ctx.projectText === undefined) return undefined;
  const sync = await chartSyncFor(
    ctx.projectText,
    ctx.projectDir,
    (p) => (ctx.tree ?? ctx.host).read(p)?.toString('utf8'),
    (d) => (ctx.host.kind(d) === 'directory' ? ctx.host.list(d) : []),
  );
  if (!sync) return undefined;
  const helm = await import('./helm.js');
  return {
    sync,
    tool: helm.CHART_TOOL,
    files: helm.chartFilesFor,
    crdPath: helm.chartCrdPathOf,
    candidates: helm.chartCrdCandidates,
  };
}

/** The sink of a run: the caller's tree, else a planner on the host (stage, memory or none). */
function sinkOf(ctx: RunContext, chartTool: string | undefined): OutputSink {
  if (ctx.tree) return new TreeSink(ctx.tree, MANIFESTS_TOOL, chartTool);
  return new OutputPlanner(ctx.host, {
    tool: MANIFESTS_TOOL,
    mode: !ctx.writes ? 'none' : ctx.host instanceof DiskHost ? 'stage' : 'memory',
  });
}

/**
 * One attempt of {@link planRun}, in three steps that each return data: {@link analyse} (the
 * changed roots only, after the pre-pass), {@link produce} (the generators streamed into the
 * sink), {@link planOf} (checks, stale files, the plan and its commit). Undefined when the kept
 * results cannot be joined to the new ones (then the run is planned cold).
 */
async function attempt(ctx: RunContext, analyzer: Analyzer, cold: boolean): Promise<RunPlan | undefined> {
  const analysed = await analyse(ctx, analyzer, cold);
  if (!analysed) return undefined;
  const produced = await produce(ctx, analysed);
  if (!produced) return undefined;
  try {
    return planOf(ctx, analysed, produced);
  } catch (e) {
    produced.sink.discard();
    throw e;
  }
}

/** What {@link analyse} returns: the analysis joined to the kept results, and the generators' input. */
interface Analysed {
  pre?: ReturnType<typeof incrementalPrepass>;
  reporter: Reporter;
  /** The run's generators, each holding the options it owns. */
  generators: readonly Generator[];
  analysis: AnalysisResult;
  selection?: Selection;
  input: GeneratorInput;
  /** The CRDs the incremental pre-pass keeps. */
  kept: Set<string>;
  /** With --check-compat: the line saying what was compared, once the CRDs are generated. */
  compat: { line?: string };
}

/** The analysis and the generators' input; undefined when a changed root joins a kept Kind (then plan cold). */
async function analyse(ctx: RunContext, analyzer: Analyzer, cold: boolean): Promise<Analysed | undefined> {
  const { options, projectDir, tsconfigPath, snapshot } = ctx;
  const pre = incrementalPrepass(ctx, cold);
  const inc = pre?.inc;
  const reporter = options.reporter ?? new Reporter();
  const { defaultGenerators, indexedMarkers } = await import('./generators.js');
  // Each generator holds the options it owns (the CRD generator maxDescLen and k8sVersion).
  const generators =
    options.generators ?? defaultGenerators({ maxDescLen: options.maxDescLen, k8sVersion: ctx.k8sVersion });
  const analysis = await analyzer(
    {
      projectDir,
      tsconfigPath,
      paths: ctx.paths,
      generatorVersion: ctx.generatorVersion,
      embeddedObjectMeta: options.embeddedObjectMeta,
      k8sVersion: ctx.k8sVersion,
      ...(ctx.overlay && { overlay: ctx.overlay }),
      selectRoots: inc && ((roots, tools) => inc.select(roots, tools)),
      texts: snapshot?.texts,
      indexMarkers: indexedMarkers(generators),
    },
    reporter,
  );
  const selection = analysis.byRoot ? inc?.selection : undefined;
  const compat: { line?: string } = {};
  let input = await generatorInput(ctx, analysis, compat);
  let kept = new Set<string>();
  if (selection && inc) {
    const joined = joinKept(inc, selection, analysis, input, reporter);
    if (!joined) return undefined;
    ({ input, kept } = joined);
  }
  return { pre, reporter, generators, analysis, selection, input, kept, compat };
}

/** What {@link produce} returns: the sink holding the files, the chart they follow, what was made. */
interface Produced {
  sink: OutputSink;
  chart?: Chart;
  made: Made;
}

/** The generators' files streamed into a new sink; undefined (the sink discarded) when a changed Kind writes a kept CRD's path. */
async function produce(ctx: RunContext, a: Analysed): Promise<Produced | undefined> {
  const chart = await chartOf(ctx);
  const sink = sinkOf(ctx, chart?.tool);
  const { input, kept, reporter, generators, selection } = a;
  try {
    const made = await fill(ctx, { sink, chart, inc: a.pre?.inc, selection, kept, input, reporter, generators });
    if (!made) {
      sink.discard();
      return undefined;
    }
    return { sink, chart, made };
  } catch (e) {
    sink.discard();
    throw e;
  }
}

/**
 * The plan of what was produced: errors thrown (the caller discards the sink), stale files
 * removed, the changes; for a run that writes, its commit and the cache record.
 */
function planOf(ctx: RunContext, a: Analysed, p: Produced): RunPlan {
  const { projectDir, tsconfigPath, snapshot, partial } = ctx;
  const { sink, chart, made } = p;
  const diagnostics = a.reporter.diagnostics();
  if (hasErrors(diagnostics)) throw new DiagnosticError(diagnostics);
  const warnings = diagnostics.filter((d) => d.severity !== 'error');
  const foreign = sink.foreignFiles();
  if (foreign.length) throw new DiagnosticError(foreign);
  const manages = a.generators.map((g) => g.manages);
  if (!partial) sink.removeStale(managedLocations(ctx.host, manages));
  if (chart)
    sink.removeStale(
      chart.candidates(chart.sync, (d) => ctx.host.list(d)),
      chart.tool,
    );
  const changes = sink.plan();
  // Said for this run's deletions only: not recorded with the warnings a no-change run repeats.
  const reported = [...warnings, ...crdsOfUnrootedKinds(changes, a.analysis.classes ?? [], projectDir)];
  const common = { changes, warnings: reported, cached: false, cacheMiss: ctx.cacheMiss, compatSummary: a.compat.line };
  if (!ctx.writes) {
    sink.discard();
    return { ...common, commit: NOTHING, discard: NOTHING };
  }
  refuseBlindDeletion(changes, projectDir, tsconfigPath, partial);
  const inc = a.pre?.inc;
  const recordCache =
    !partial && ctx.useCache && snapshot
      ? () => {
          const record =
            a.selection && inc
              ? incrementalRecord(inc, a.selection, rootsOf(a.analysis), a.kept, made, made.generatorEntries)
              : undefined;
          writeCache(
            projectDir,
            tsconfigPath,
            ctx.keyParts,
            [...new Set([...a.analysis.inputFiles, ...(a.pre?.outsideInputs ?? [])])],
            sink.producedPaths(),
            warnings,
            manages,
            snapshot,
            record,
          );
        }
      : undefined;
  return {
    ...common,
    commit: () => {
      sink.commit();
      recordCache?.();
    },
    discard: () => sink.discard(),
    // A tree sink's caller commits the tree, then records the cache.
    ...(ctx.tree && { recordCache }),
    sources: snapshot?.texts,
  };
}

type Chart = NonNullable<Awaited<ReturnType<typeof chartOf>>>;

/** What {@link fill} made, for the incremental record: each CRD's sources and warnings, each generator's files. */
interface Made {
  sources: Map<string, string[]>;
  warnings: Map<string, Diagnostic[]>;
  generatorEntries: Map<string, GeneratorEntry>;
}

/**
 * Streams the generators' files into the sink, one at a time as they are made (never all in
 * memory; nothing reaches the project before the commit), with the chart templates that follow
 * them. Generators and CRDs the incremental pre-pass keeps are counted as produced, not made.
 * Undefined when a changed Kind writes the path of a kept CRD (KF4502, or a renamed Kind).
 */
async function fill(
  ctx: RunContext,
  run: {
    sink: OutputSink;
    chart?: Chart;
    inc?: IncrementalPlanner;
    selection?: Selection;
    kept: ReadonlySet<string>;
    input: GeneratorInput;
    reporter: Reporter;
    generators: readonly Generator[];
  },
): Promise<Made | undefined> {
  const { sink, chart, inc, selection, kept, input, reporter } = run;
  const made: Made = { sources: new Map(), warnings: new Map(), generatorEntries: new Map() };
  const acceptChart = (path: string, content: string) => {
    if (chart)
      for (const f of chart.files(chart.sync, { path, content }))
        if (!sink.has(f.path)) sink.accept(f.path, f.text, chart.tool);
  };
  // A file kept as it is: the chart templates that follow it are still made from it, so a chart edited by hand is brought back.
  const keep = (path: string) => {
    sink.keep(path);
    if (!chart || sink.has(chart.crdPath(chart.sync, path) ?? '')) return;
    const text = ctx.host.read(path)?.toString('utf8');
    if (text !== undefined) acceptChart(path, text);
  };
  const { streamGenerators } = await import('./generators.js');
  // Generators whose input is the last run's exactly keep their files and warnings (incremental.ts);
  // the others run, and what they make is recorded for the next run.
  const generators: Generator[] = [];
  for (const g of run.generators) {
    const key = selection && inc && g.inputKey ? sha256(g.inputKey(input)) : undefined;
    const same = inc && key !== undefined ? inc.keptGenerator(g.name, key) : undefined;
    if (same) {
      for (const f of same.files) keep(f);
      for (const w of same.warnings) reporter.report(w);
      made.generatorEntries.set(g.name, same);
    } else generators.push(key === undefined ? g : recorded(g, key, made.generatorEntries));
  }
  for (const path of kept) {
    keep(path);
    // Kept paths come from an incremental plan: inc is set whenever kept is not empty.
    for (const w of inc?.previousCrdWarnings(path) ?? []) reporter.report(w);
  }
  let collision = false;
  let failed = false;
  let looked = -1;
  await streamGenerators(input, reporter, generators, (file) => {
    if (ctx.partial && !file.path.startsWith(`${CRD_DIR}/`)) return;
    if (kept.has(file.path)) collision = true;
    if (collision) return;
    if (file.sources) made.sources.set(file.path, file.sources);
    if (file.warnings) made.warnings.set(file.path, file.warnings);
    // Once an error is known nothing will be written: the rest is only made for its diagnostics.
    if (!failed && reporter.count !== looked) {
      looked = reporter.count;
      failed = hasErrors(reporter.diagnostics());
    }
    if (failed) return;
    sink.accept(file.path, file.content);
    acceptChart(file.path, file.content);
  });
  return collision ? undefined : made;
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
      const files = g.generate(
        input,
        new TeeReporter(reporter, (d) => {
          if (d.severity !== 'error') entry.warnings.push(d);
        }),
      );
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
    roots[inc.display(root)] = { key, ...(result ?? { kinds: [], markers: [], warnings: [] }) };
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
  const sortedWarnings = Object.fromEntries(
    Object.entries(crdWarnings).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
  return {
    roots,
    crds,
    ...(Object.keys(crdWarnings).length > 0 && { crdWarnings: sortedWarnings }),
    ...(generatorEntries.size > 0 && { generators }),
  };
}

/**
 * KF4016: a CRD deleted because the class of its Kind lost `@Root()` (the class is still there,
 * under the CRD's Kind name, without it). Deleting is right for a Kind removed on purpose; for a
 * decorator removed by mistake it would silently uninstall the resource, so it is said.
 */
function crdsOfUnrootedKinds(
  changes: readonly Change[],
  classes: readonly ClassInfo[],
  projectDir: string,
): Diagnostic[] {
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
function refuseBlindDeletion(
  changes: readonly Change[],
  projectDir: string,
  tsconfigPath: string,
  partial: boolean,
): void {
  const deleted = changes.filter((c) => c.kind === 'delete').map((c) => c.path);
  if (partial || deleted.length === 0 || !existsSync(tsconfigPath)) return;
  const src = resolve(projectDir, 'src') + sep;
  if (enumerateSourceFiles(projectDir, tsconfigPath).files.some((f) => resolve(projectDir, f).startsWith(src))) return;
  throw new DiagnosticError(
    error(
      'KF4506',
      `${relative(projectDir, tsconfigPath) || 'tsconfig.json'} includes no file under src/, so kubeforge manifests found no API there and would delete ${deleted.join(', ')}; nothing was written`,
      {
        file: tsconfigPath,
        hint: 'make its "include" (or "files") cover src/ again, e.g. "include": ["src/**/*.ts", "test/**/*.ts"]; to remove generated manifests on purpose, delete them yourself',
      },
    ),
  );
}
