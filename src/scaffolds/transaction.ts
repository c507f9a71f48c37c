/**
 * How `create api` and `create webhook` make their manifests part of the scaffold: the manifests
 * step plans the CRDs, role.yaml and webhook manifests into the scaffold's own virtual tree (the
 * analysis reads the planned files through the loader's overlay), before anything is written.
 * The command runner then validates and commits scaffold and manifests together, PROJECT last:
 * a manifests step that fails stops the command with nothing written.
 */
import { DiagnosticError, error, formatDiagnostics, type Reporter } from '../diagnostics/index.js';
import { type Change, type CommandContext, DiskHost, type Tree } from '../scaffold/index.js';
import type { ScaffoldEnvironment } from './environment.js';

/** The manifests planned into a scaffold's tree. */
export interface PlannedManifests {
  /** What `kubeforge manifests` prints for them (warnings, then its plan), shown after the commit. */
  output: string;
  /** The manifests' own changes. */
  changes: Change[];
  /** Records the no-change cache; called once the commit succeeded. */
  recordCache?: () => void;
}

/** Plans the manifests of the project in `dir` into `tree` (which holds the scaffold); writes nothing. */
export type ManifestsStep = (tree: Tree, dir: string, reporter: Reporter) => Promise<PlannedManifests>;

/** The folder to lock for a command on `env`: its disk folder, or none for a memory host. */
export function lockRoot(env: ScaffoldEnvironment): string | undefined {
  if (env.host === undefined) return env.cwd;
  return env.host instanceof DiskHost ? env.host.root : undefined;
}

/** Runs `kubeforge manifests` in-process over the scaffold's tree (loaded lazily: it brings ts-morph). */
export async function defaultManifestsStep(tree: Tree, dir: string, reporter: Reporter): Promise<PlannedManifests> {
  const { planManifestsRun } = await import('../manifests/generate.js');
  const { formatPlan } = await import('../manifests/writer.js');
  const run = await planManifestsRun({ projectDir: dir, reporter }, undefined, tree);
  const warnings = run.warnings.length ? formatDiagnostics(run.warnings, { cwd: dir }) : '';
  return { output: warnings + (run.changes.length ? formatPlan(run.changes) : 'manifests are up to date\n'), changes: run.changes, recordCache: run.recordCache };
}

export interface ScaffoldManifests {
  /** The step (undefined: none, e.g. a memory host) and whether to run it (`--make`). */
  step: ManifestsStep | undefined;
  make: boolean | undefined;
  /** The KF1050 message when the step fails: `what` was not scaffolded. */
  failure: string;
}

/**
 * The manifests step of a scaffold that writes (not on --dry-run): planned into `tree` after the
 * scaffold; a failure is KF1050 with the step's own diagnostics, and nothing has been written.
 * Returns undefined when the step does not run.
 */
export async function planScaffoldManifests(tree: Tree, ctx: CommandContext, m: ScaffoldManifests): Promise<PlannedManifests | undefined> {
  if (!m.step || m.make === false || ctx.dryRun) return undefined;
  ctx.err('Generating manifests (kubeforge manifests)...\n');
  try {
    return await m.step(tree, ctx.cwd, ctx.reporter);
  } catch (e) {
    const diagnostics = e instanceof DiagnosticError ? [...e.diagnostics] : [error('KF1050', (e as Error).message)];
    diagnostics.push(
      error('KF1050', m.failure, {
        hint: 'fix the problems reported above and run the command again; or pass --make=false to scaffold now and run `npm run manifests` once they are fixed',
      }),
    );
    throw new DiagnosticError(diagnostics);
  }
}

/** After the commit: what the manifests step prints (or why it did not run); records its cache. */
export function reportScaffoldManifests(planned: PlannedManifests | undefined, ctx: CommandContext, m: ScaffoldManifests): boolean {
  if (!m.step) return false;
  if (m.make === false) {
    ctx.err('Skipped kubeforge manifests (--make=false): run `npm run manifests` before building.\n');
    return false;
  }
  if (!planned) return false;
  planned.recordCache?.();
  ctx.out(planned.output);
  return true;
}
