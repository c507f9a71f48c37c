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
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { type Diagnostic, DiagnosticError, error, formatDiagnostics, hasErrors, Reporter } from '../diagnostics/index.js';
import { CommandGuard } from '../scaffold/guard.js';
import { DiskHost, type Host } from '../scaffold/host.js';
import { packageVersion } from '../util/package-root.js';
import type { Analysis, AnalyzeOptions, RootResult } from '../analysis/analyze.js';
import { type CacheKeyParts, checkCache, incrementalBase, enumerateSourceFiles, type InputSnapshot, snapshotInputs, writeCache } from './cache.js';
import { DEFAULT_GENERATORS, type Generator, type GeneratorInput, streamGenerators } from './generators.js';
import { OutputPlanner, type PlannedChange } from './stage.js';
import { type IncrementalRecord, IncrementalPlanner, type Selection } from './incremental.js';
import type { MarkerUse } from './markeruse.js';
import { type Change, CRD_DIR, formatPlan, MANIFESTS_TOOL, managedLocations } from './writer.js';

export type { AnalyzeOptions };

/** What an analyzer returns: the generators' input and the files it read (a type-only view: the analysis and ts-morph load lazily, below). */
export type AnalysisResult = GeneratorInput & Pick<Analysis, 'inputFiles' | 'byRoot'>;

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
}

/** Loads the real analysis lazily: ts-morph is only imported when the fast path misses. */
async function defaultAnalyzer(options: AnalyzeOptions, reporter: Reporter): Promise<AnalysisResult> {
  const { analyzeProject } = await import('../analysis/analyze.js');
  return analyzeProject(options, reporter);
}

function resolveGeneratorVersion(flag?: string): string {
  return flag || process.env.KUBEFORGE_GENERATOR_VERSION || packageVersion();
}

/** Runs the whole pipeline. Throws DiagnosticError (nothing written) when any error is found. */
export async function runManifests(options: ManifestsOptions, analyzer: Analyzer = defaultAnalyzer): Promise<ManifestsRun> {
  const projectDir = resolve(options.projectDir);
  const host = options.host ?? new DiskHost(projectDir);
  if (host.kind('') !== 'directory') {
    throw new DiagnosticError(error('KF4503', `project folder ${projectDir} does not exist`, { hint: 'pass the folder holding tsconfig.json with --project' }));
  }
  const tsconfigPath = options.tsconfigPath ? resolve(projectDir, options.tsconfigPath) : resolve(projectDir, 'tsconfig.json');
  const tsconfigRel = relative(projectDir, tsconfigPath);
  const tsconfigInside = tsconfigRel !== '' && !tsconfigRel.startsWith('..') && !isAbsolute(tsconfigRel);
  if (tsconfigInside ? host.kind(tsconfigRel.split(sep).join('/')) === undefined : !existsSync(tsconfigPath)) {
    throw new DiagnosticError(error('KF4504', `no tsconfig.json in ${projectDir}`, { file: tsconfigPath, hint: 'run kubeforge manifests from the project root, or pass --project <dir>' }));
  }
  const generatorVersion = resolveGeneratorVersion(options.generatorVersion);
  const paths = options.paths?.map((p) => (isAbsolute(p) ? p : resolve(projectDir, p)));
  const keyParts: CacheKeyParts = {
    kubeforgeVersion: packageVersion(),
    generatorVersion,
    paths,
    tsconfigPath: options.tsconfigPath ? tsconfigPath : undefined,
  };

  const useCache = host instanceof DiskHost && host.root === projectDir;
  // Hashed before the analysis reads them, so that an edit saved during the run is seen next
  // time; the fast path checks with the same hashes.
  const snapshot: InputSnapshot | undefined = useCache && !options.check && !options.dryRun ? snapshotInputs(projectDir, tsconfigPath) : undefined;
  let cacheMiss: string | undefined = 'disabled';
  if (!options.noCache && useCache) {
    const check = checkCache(projectDir, tsconfigPath, keyParts, snapshot?.hashes);
    if (check.hit) return { changes: [], warnings: check.record.warnings, cached: true, written: false };
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

  const reporter = new Reporter();
  const analysis = await analyzer(
    { projectDir, tsconfigPath, paths, generatorVersion, selectRoots: inc && ((roots, tools) => inc.select(roots, tools)), texts: snapshot?.texts },
    reporter,
  );
  const selection = analysis.byRoot ? inc?.selection : undefined;
  let input: GeneratorInput = analysis;
  let kept: Set<string> = new Set();
  if (selection && inc) {
    // A changed root now declaring a Kind that an unchanged root declares: the CRD needs both, so
    // the run starts again cold (rare: a version added or moved).
    const cleanKinds = inc.cleanKinds();
    for (const r of analysis.byRoot!.values()) {
      if (r.kinds.some((k) => cleanKinds.has(`${k.kind}.${k.group}`))) return runManifests({ ...options, cold: true }, analyzer);
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
    input = { ...analysis, rbac: rbac.sort(byPosition), webhooks: webhooks.sort(byPosition), webhookConfigurations: webhookConfigurations.sort(byPosition) };
    kept = new Set(selection.keptCrds);
  }

  // Each output is planned (and, for a run that writes on disk, staged) as soon as it is made,
  // so the outputs are never all in memory; nothing reaches the project before the commit.
  const writes = !options.check && !options.dryRun;
  const planner = new OutputPlanner(host, { tool: MANIFESTS_TOOL, mode: !writes ? 'none' : host instanceof DiskHost ? 'stage' : 'memory' });
  const crdSources = new Map<string, string[]>();
  let collision = false;
  try {
    for (const path of kept) planner.keep(path);
    let failed = false;
    let looked = -1;
    streamGenerators(input, reporter, options.generators ?? DEFAULT_GENERATORS, (file) => {
      if (partial && !file.path.startsWith(`${CRD_DIR}/`)) return;
      if (kept.has(file.path)) collision = true;
      if (collision) return;
      if (file.sources) crdSources.set(file.path, file.sources);
      // Once an error is known nothing will be written: the rest is only made for its diagnostics.
      if (!failed && reporter.count !== looked) {
        looked = reporter.count;
        failed = hasErrors(reporter.diagnostics());
      }
      if (!failed) planner.accept(file.path, file.content);
    });
    // A changed Kind writing the path of a CRD that was kept: start again cold (KF4502, or a renamed Kind).
    if (collision) {
      planner.discard();
      return runManifests({ ...options, cold: true }, analyzer);
    }
    const diagnostics = reporter.diagnostics();
    if (hasErrors(diagnostics)) throw new DiagnosticError(diagnostics);
    const warnings = diagnostics.filter((d) => d.severity !== 'error');
    const foreign = planner.foreignFiles();
    if (foreign.length) throw new DiagnosticError(foreign);
    if (!partial) planner.removeStale(managedLocations(host));
    const changes = planner.plan();
    if (!writes) return { changes, warnings, cached: false, cacheMiss, written: false };
    refuseBlindDeletion(changes, projectDir, tsconfigPath, partial);
    await options.beforeCommit?.();
    planner.commit();
    if (!partial && useCache) {
      const record = selection && inc ? incrementalRecord(inc, selection, analysis.byRoot!, kept, crdSources) : undefined;
      writeCache(projectDir, tsconfigPath, keyParts, [...new Set([...analysis.inputFiles, ...outsideInputs])], planner.producedPaths(), warnings, snapshot, record);
    }
    return { changes, warnings, cached: false, cacheMiss, written: true };
  } finally {
    planner.discard();
  }
}

/** The order of marker uses in an analysis: by file, line, column. */
function byPosition(a: MarkerUse, b: MarkerUse): number {
  return a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || a.column - b.column;
}

/** The per-file results to record: new ones for the roots analysed, the kept ones for the others. */
function incrementalRecord(inc: IncrementalPlanner, selection: Selection, byRoot: ReadonlyMap<string, RootResult>, kept: ReadonlySet<string>, crdSources: ReadonlyMap<string, string[]>): IncrementalRecord {
  const roots: IncrementalRecord['roots'] = {};
  for (const [root, key] of [...selection.keys].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const fresh = byRoot.get(root);
    const result: RootResult | undefined = selection.dirty.has(root)
      ? fresh && { ...fresh, warnings: fresh.warnings.filter((d) => d.severity !== 'error') }
      : inc.entry(root);
    roots[inc.display(root)] = { key, ...(result ?? { kinds: [], rbac: [], webhooks: [], webhookConfigurations: [], warnings: [] }) };
  }
  const crds: IncrementalRecord['crds'] = {};
  for (const path of kept) crds[path] = inc.previousCrd(path);
  for (const [path, sources] of crdSources) crds[path] = sources.map((f) => inc.display(f));
  return { roots, crds };
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

/** What the CLI hands to the command (kept structural so this module does not import src/cli). */
export interface CommandIo {
  cwd: string;
  color: boolean;
  out: (text: string) => void;
  err: (text: string) => void;
}

export interface ManifestsFlags {
  check?: boolean;
  dryRun?: boolean;
  paths?: string[];
  project?: string;
  tsconfig?: string;
  generatorVersion?: string;
  cache?: boolean;
}

function readSource(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** The `kubeforge manifests` action: prints the plan, throws DiagnosticError to exit 1. */
export async function manifestsCommand(flags: ManifestsFlags, io: CommandIo, analyzer?: Analyzer, generators?: readonly Generator[]): Promise<void> {
  const projectDir = resolve(io.cwd, flags.project ?? '.');
  // A run that writes holds the project's lock (one kubeforge command at a time) and stops
  // before its commit when interrupted.
  const writes = !flags.check && !flags.dryRun;
  const guard = writes ? await CommandGuard.enter(existsSync(projectDir) ? projectDir : undefined, 'manifests') : undefined;
  try {
    await manifests(flags, io, projectDir, guard, analyzer, generators);
  } finally {
    guard?.release();
  }
}

async function manifests(flags: ManifestsFlags, io: CommandIo, projectDir: string, guard: CommandGuard | undefined, analyzer?: Analyzer, generators?: readonly Generator[]): Promise<void> {
  const run = await runManifests(
    {
      projectDir,
      tsconfigPath: flags.tsconfig ? resolve(io.cwd, flags.tsconfig) : undefined,
      paths: flags.paths?.map((p) => resolve(io.cwd, p)),
      generatorVersion: flags.generatorVersion,
      check: flags.check,
      dryRun: flags.dryRun,
      noCache: flags.cache === false,
      generators,
      beforeCommit: guard && (() => guard.checkpoint('nothing was written')),
    },
    analyzer,
  );
  if (run.warnings.length > 0) io.err(formatDiagnostics(run.warnings, { color: io.color, cwd: io.cwd, readSource }));
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
  if (run.changes.length === 0) {
    io.out(flags.dryRun ? 'nothing to do: manifests are up to date\n' : 'manifests are up to date\n');
    return;
  }
  io.out(plan);
}
