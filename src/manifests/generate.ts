/**
 * `kubeforge manifests`: analysis -> objects -> YAML -> plan -> (check | dry run | write).
 *
 * Order of work, so that a failing run leaves the disk as it was:
 *   1. no-change fast path (hashes only; ts-morph is not loaded);
 *   2. analysis (part of the project's TypeScript, through ts-morph, loaded lazily here);
 *   3. every output computed in memory (CRDs, role.yaml, webhook manifests) and validated;
 *   4. on any error diagnostic: throw them all, nothing written;
 *   5. plan in the scaffold engine's virtual tree over the host (the project folder on disk by
 *      default); `--check` / `--dry-run` stop there; otherwise the engine validates every path
 *      and commits once (atomic writes, rollback on failure), as for `init` and `create api`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { type Diagnostic, DiagnosticError, error, formatDiagnostics, hasErrors } from '../diagnostics/index.js';
import { commit } from '../scaffold/commit.js';
import { DiskHost, type Host } from '../scaffold/host.js';
import { Tree } from '../scaffold/tree.js';
import { packageVersion } from '../util/package-root.js';
import type { AnalyzeOptions, ProjectAnalysis } from './analyze.js';
import { checkGeneratedCRDs } from './crdcheck/index.js';
import { type CacheKeyParts, checkCache, type InputSnapshot, snapshotInputs, writeCache } from './cache.js';
import { ARGUMENT_SHAPE_CODE, type MarkerUse } from './markeruse.js';
import { generateRbac } from './rbac.js';
import { generateWebhooks } from './webhook.js';
import { type Change, CRD_DIR, type OutputFile, RBAC_FILE, WEBHOOK_FILE, formatPlan, output, planManifests } from './writer.js';
import { YamlWriter, toYamlDocuments } from './yaml.js';

/** What the analysis returns (a type-only import: analyze.ts and ts-morph load lazily, below). */
export type AnalysisResult = ProjectAnalysis;
export type { AnalyzeOptions };

export type Analyzer = (options: AnalyzeOptions) => Promise<AnalysisResult>;

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
  /** Skip the no-change fast path (always analyse). */
  noCache?: boolean;
}

export interface ManifestsRun {
  changes: Change[];
  /** Warnings (errors are thrown). */
  warnings: Diagnostic[];
  /** True when the no-change fast path answered. */
  cached: boolean;
  /** Why the fast path did not answer. */
  cacheMiss?: string;
  written: boolean;
}

/** Loads the real analysis lazily: ts-morph is only imported when the fast path misses. */
async function defaultAnalyzer(options: AnalyzeOptions): Promise<AnalysisResult> {
  const { analyzeProject } = await import('./analyze.js');
  return analyzeProject(options);
}

/** Turns an analysis into the managed files, with the diagnostics of the RBAC and webhook generators. */
export function buildOutputs(analysis: AnalysisResult): { outputs: OutputFile[]; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const outputs: OutputFile[] = [];
  const byPath = new Map<string, string>();
  // One writer for every CRD: subtrees they share (embedded Kubernetes types) are written once.
  const yaml = new YamlWriter();
  for (const crd of analysis.crds) yaml.add(crd);
  for (const crd of analysis.crds) {
    const spec = (crd.spec ?? {}) as { group?: string; names?: { plural?: string; kind?: string } };
    const path = `${CRD_DIR}/${spec.group}_${spec.names?.plural}.yaml`;
    const name = `${spec.names?.kind ?? '?'} (${spec.group})`;
    const previous = byPath.get(path);
    if (previous !== undefined) {
      diagnostics.push(error('KF4502', `two CustomResourceDefinitions would be written to ${path}: ${previous} and ${name}`, { hint: 'give the Kinds different plural names with @Resource({ path })' }));
      continue;
    }
    byPath.set(path, name);
    outputs.push(output(path, yaml.document(crd)));
  }
  // Every CRD is checked against the API server's rules before anything is written.
  diagnostics.push(...checkGeneratedCRDs(analysis.crds, analysis.diagnostics));
  const rbac = generateRbac(analysis.rbac);
  diagnostics.push(...rbac.diagnostics);
  outputs.push(output(RBAC_FILE, toYamlDocuments(rbac.objects)));
  const webhooks = generateWebhooks([...analysis.webhooks, ...analysis.webhookConfigurations]);
  diagnostics.push(...webhooks.diagnostics);
  if (webhooks.objects.length > 0) outputs.push(output(WEBHOOK_FILE, toYamlDocuments(webhooks.objects)));
  outputs.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { outputs, diagnostics };
}

/**
 * The analysis checks every marker's arguments against the marker table (missing, unknown, wrong
 * type), locating each problem at the argument itself. Our own argument-shape reports repeat
 * those checks for hand-made input; they are dropped for files where the analysis already
 * reported errors, so each problem is reported once.
 */
function mergeDiagnostics(analysis: readonly Diagnostic[], ours: readonly Diagnostic[]): Diagnostic[] {
  const filesWithErrors = new Set(analysis.filter((d) => d.severity === 'error').map((d) => d.file));
  return [...analysis, ...ours.filter((d) => !(d.code === ARGUMENT_SHAPE_CODE && filesWithErrors.has(d.file)))];
}

export function resolveGeneratorVersion(flag?: string): string {
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
  let cacheMiss: string | undefined = 'disabled';
  if (!options.noCache && useCache) {
    const check = checkCache(projectDir, tsconfigPath, keyParts);
    if (check.hit) return { changes: [], warnings: check.record.warnings, cached: true, written: false };
    cacheMiss = check.reason;
  }
  // Hashed before the analysis reads them, so that an edit saved during the run is seen next time.
  const snapshot: InputSnapshot | undefined = useCache && !options.check && !options.dryRun ? snapshotInputs(projectDir, tsconfigPath) : undefined;

  const analysis = await analyzer({ projectDir, tsconfigPath, paths, generatorVersion });
  const built = buildOutputs(analysis);
  const diagnostics = mergeDiagnostics(analysis.diagnostics, built.diagnostics);
  if (hasErrors(diagnostics)) throw new DiagnosticError(diagnostics);
  const warnings = diagnostics.filter((d) => d.severity !== 'error');

  // With --paths the analysis saw part of the project: only the CRDs of the Kinds it found are
  // updated. role.yaml and the webhook manifests gather markers from the whole project, so a
  // partial view would drop rules; they are left as they are, and nothing stale is removed.
  const partial = paths !== undefined;
  const outputs = partial ? built.outputs.filter((o) => o.path.startsWith(`${CRD_DIR}/`)) : built.outputs;
  const tree = new Tree(host);
  const changes = await planManifests(tree, outputs, { removeStale: !partial });
  if (options.check || options.dryRun) return { changes, warnings, cached: false, cacheMiss, written: false };
  commit(host, changes);
  if (!partial && useCache) {
    writeCache(projectDir, tsconfigPath, keyParts, analysis.inputFiles, outputs.map((o) => o.path), warnings, snapshot);
  }
  return { changes, warnings, cached: false, cacheMiss, written: true };
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
export async function manifestsCommand(flags: ManifestsFlags, io: CommandIo, analyzer?: Analyzer): Promise<void> {
  const projectDir = resolve(io.cwd, flags.project ?? '.');
  const run = await runManifests(
    {
      projectDir,
      tsconfigPath: flags.tsconfig ? resolve(io.cwd, flags.tsconfig) : undefined,
      paths: flags.paths?.map((p) => resolve(io.cwd, p)),
      generatorVersion: flags.generatorVersion,
      check: flags.check,
      dryRun: flags.dryRun,
      noCache: flags.cache === false,
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
