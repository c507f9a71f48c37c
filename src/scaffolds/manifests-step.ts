/**
 * How `create api` and `create webhook` make their manifests part of the scaffold: the manifests
 * step plans the CRDs, role.yaml and webhook manifests into the scaffold's own virtual tree (the
 * analysis reads the planned files through the loader's overlay), before anything is written.
 * The command runner then validates and commits scaffold and manifests together, PROJECT last:
 * a manifests step that fails stops the command with nothing written.
 */
import { DiagnosticError, error, formatDiagnostics, type Reporter } from '../diagnostics/index.js';
import { PROJECT_FILE } from '../project/index.js';
import {
  type Change,
  type CommandContext,
  type CommandIo,
  type CommandSteps,
  DiskHost,
  formatPlan,
  type Tree,
} from '../machinery/index.js';
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
  const { planManifestsRun } = await import('../manifests/pipeline.js');
  const { formatPlan } = await import('../manifests/managed-files.js');
  // The pipeline reads the options the project records (PROJECT, as the tree has it), as make manifests does.
  const run = await planManifestsRun({ projectDir: dir, reporter }, undefined, tree);
  const warnings = run.warnings.length ? formatDiagnostics(run.warnings, { cwd: dir }) : '';
  return {
    output: warnings + (run.changes.length ? formatPlan(run.changes) : 'manifests are up to date\n'),
    changes: run.changes,
    recordCache: run.recordCache,
  };
}

export interface ScaffoldManifests {
  /** The step (undefined: none, e.g. a memory host) and whether to run it (`--make`). */
  step: ManifestsStep | undefined;
  make: boolean | undefined;
  /** The KF1050 message when the step fails: `what` was not scaffolded. */
  failure: string;
}

/**
 * The manifests step of a scaffold: planned into `tree` after the scaffold, on --dry-run too (the
 * dry run is the real plan: the CRD, role.yaml and webhook manifests included, and it fails where
 * the real run fails); a failure is KF1050 with the step's own diagnostics, and nothing has been
 * written. Returns undefined when the step does not run.
 */
export async function planScaffoldManifests(
  tree: Tree,
  ctx: CommandContext,
  m: ScaffoldManifests,
): Promise<PlannedManifests | undefined> {
  if (!m.step || m.make === false) return undefined;
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

/** On --dry-run: what the manifests step would write (its plan and warnings), or why it would not run. */
export function previewScaffoldManifests(
  planned: PlannedManifests | undefined,
  ctx: CommandContext,
  m: ScaffoldManifests,
): void {
  if (!m.step) return;
  if (m.make === false) ctx.err('Would skip kubeforge manifests (--make=false).\n');
  else if (planned) ctx.out(planned.output);
}

/** After the commit: what the manifests step prints (or why it did not run); records its cache. */
export function reportScaffoldManifests(
  planned: PlannedManifests | undefined,
  ctx: CommandContext,
  m: ScaffoldManifests,
): boolean {
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

/** `warning: --force replaced N existing files that differed: ...` (verb: `replaced`, `would replace`). */
export function warnReplaced(ctx: CommandIo, replaced: readonly string[] | undefined, verb: string): void {
  if (replaced?.length)
    ctx.err(
      `warning: --force ${verb} ${replaced.length} existing file${replaced.length === 1 ? '' : 's'} that differed: ${replaced.join(', ')}\n`,
    );
}

/** What a scaffold's planner returns. */
export interface ScaffoldPlan {
  tree: Tree;
  /** The scaffold's own changes (printed as its plan). */
  changes: Change[];
  warnings: string[];
  /** Files of the user's that --force replaces. */
  replaced?: string[];
}

/** A scaffold's plan with its manifests planned into the same tree. */
export type WithManifests<P extends ScaffoldPlan> = P & { manifests?: PlannedManifests; m: ScaffoldManifests };

/**
 * The runner steps of `create api` and `create webhook`: plan the scaffold, then its manifests
 * into the same tree; print the scaffold's plan (and, once committed, the manifests' output);
 * a signal during the commit takes it back. PROJECT is committed last.
 */
export function scaffoldSteps<P extends ScaffoldPlan, R>(s: {
  name: string;
  env: ScaffoldEnvironment & { manifests?: ManifestsStep | false };
  make: boolean | undefined;
  plan: () => Promise<P>;
  /** The KF1050 message when the manifests step fails. */
  failure: (p: P) => string;
  result: (p: P, manifests: boolean) => R;
  nextSteps: (p: P) => string;
}): CommandSteps<WithManifests<P>, R> {
  return {
    name: s.name,
    lockRoot: lockRoot(s.env),
    last: [PROJECT_FILE],
    plan: async (ctx) => {
      const planned = await s.plan();
      for (const w of planned.warnings) ctx.err(`warning: ${w}\n`);
      const m: ScaffoldManifests = {
        step: s.env.manifests === undefined ? defaultManifestsStep : s.env.manifests || undefined,
        make: s.make,
        failure: s.failure(planned),
      };
      return { ...planned, m, manifests: await planScaffoldManifests(planned.tree, ctx, m) };
    },
    preview: (p, _changes, ctx) => {
      ctx.out(formatPlan(p.changes, { color: ctx.color }));
      previewScaffoldManifests(p.manifests, ctx, p.m);
      warnReplaced(ctx, p.replaced, 'would replace');
      return s.result(p, false);
    },
    interrupted: { revert: 'nothing was scaffolded (the files just written were taken back)' },
    after: async (p, _changes, ctx) => {
      ctx.out(formatPlan(p.changes, { color: ctx.color }));
      const ran = reportScaffoldManifests(p.manifests, ctx, p.m);
      warnReplaced(ctx, p.replaced, 'replaced');
      ctx.err(s.nextSteps(p));
      return s.result(p, ran);
    },
  };
}
