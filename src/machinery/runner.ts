/**
 * The command runner every writing command goes through (`init`, `create api`, `create webhook`,
 * `manifests`): take the folder's lock (runs that write only), plan every change in one virtual
 * tree, validate them all, then print the plan (a run that writes nothing: --dry-run, --check)
 * or commit it in one go, then run the post-steps (npm install, the no-change cache). A command
 * supplies the steps; the runner owns the order, the lock, the signal checkpoints and the one
 * {@link CommandContext} they all receive.
 */
import { DiagnosticError, Reporter } from '../diagnostics/index.js';
import { commit, revert, validateChanges } from './commit.js';
import { CommandGuard } from './guard.js';
import type { Host } from './host.js';
import type { CommandReport } from './report.js';
import type { Change, Tree } from './tree.js';

/** Where a command runs and prints: what the CLI hands to every command (tests pass their own). */
export interface CommandIo {
  /** The folder the command was started in. */
  cwd: string;
  /** Colour in printed plans and diagnostics. */
  color?: boolean;
  /** Standard output (plans, results). */
  out: (text: string) => void;
  /** Standard error (warnings, progress, next steps). */
  err: (text: string) => void;
  /** With --json: where the command's plan, result, diagnostics and findings are gathered (report.ts). */
  report?: CommandReport;
}

/** What every step of a running command receives: one type for every command. */
export interface CommandContext extends CommandIo {
  /** Where files are read and committed. */
  host: Host;
  /** --force: replace files that differ. */
  force: boolean;
  /** Nothing is written (--dry-run, or manifests --check): the plan is printed. */
  dryRun: boolean;
  /** One reporter for the whole run: every stage reports its diagnostics here. */
  reporter: Reporter;
  /** The folder's lock and the signal checkpoints; undefined when nothing is written. */
  guard?: CommandGuard;
}

/** A command's plan: its virtual tree, plus whatever its later steps need. */
export interface Planned {
  tree: Tree;
}

export interface CommandSteps<P extends Planned, R> {
  /** Named in the lock, shown to a command that waits for this one (`create api`). */
  name: string;
  /** The folder to lock; undefined: none (a memory host). */
  lockRoot: string | undefined;
  /** Computes every change in the tree; writes nothing; throws DiagnosticError. */
  plan(ctx: CommandContext): Promise<P>;
  /** Paths committed after every other change (PROJECT: a killed run never leaves it naming missing files). */
  last?: readonly string[];
  /** A run that writes nothing: prints the plan, returns the result. */
  preview(planned: P, changes: Change[], ctx: CommandContext): R | Promise<R>;
  /**
   * A signal that arrived during the commit (writes are synchronous: the commit finishes its
   * files first): `revert` takes the commit back, `keep` keeps the complete result. The text says
   * what is on disk then (KF1112).
   */
  interrupted: { revert: string } | { keep: string };
  /**
   * Writes the plan itself instead of the runner committing the tree (a pipeline that staged its
   * files elsewhere: `manifests`); nothing is reverted then, so pair it with `interrupted.keep`.
   */
  commit?(planned: P, ctx: CommandContext): void;
  /** Right after the commit, before the signal checkpoint: what is printed even when a signal then stops the command (init's plan: its files are all written). */
  committed?(planned: P, changes: Change[], ctx: CommandContext): void;
  /** After the commit: prints, runs the post-steps, returns the result. */
  after(planned: P, changes: Change[], ctx: CommandContext): Promise<R>;
}

export interface RunFlags {
  host: Host;
  dryRun?: boolean;
  force?: boolean;
  reporter?: Reporter;
}

/**
 * Runs a command's steps: plan → validate → preview (nothing written) or commit → after.
 * Throws DiagnosticError with the disk as it was when planning or validating fails; a write that
 * fails part way is rolled back by the commit (KF1102).
 */
export async function runCommand<P extends Planned, R>(
  steps: CommandSteps<P, R>,
  io: CommandIo,
  flags: RunFlags,
): Promise<R> {
  const dryRun = flags.dryRun ?? false;
  const guard = dryRun ? undefined : await CommandGuard.enter(steps.lockRoot, steps.name);
  const ctx: CommandContext = {
    cwd: io.cwd,
    color: io.color,
    out: io.out,
    err: io.err,
    host: flags.host,
    force: flags.force ?? false,
    dryRun,
    reporter: flags.reporter ?? new Reporter(),
    guard,
    report: io.report,
  };
  const root = flags.host.root;
  try {
    const planned = await steps.plan(ctx);
    const changes = planned.tree.changes();
    // A dry run fails where the real run would: the writes are checked before the preview too.
    const problems = validateChanges(ctx.host, changes);
    if (problems.length) throw new DiagnosticError(problems);
    if (!guard) {
      const previewed = await steps.preview(planned, changes, ctx);
      io.report?.recordChanges('plan', root, changes, planned.tree.kept());
      return previewed;
    }
    await guard.checkpoint('nothing was written');
    let committed: ReturnType<typeof commit> | undefined;
    if (steps.commit) steps.commit(planned, ctx);
    else committed = commit(ctx.host, changes, { last: steps.last });
    const { interrupted } = steps;
    steps.committed?.(planned, changes, ctx);
    if ('revert' in interrupted)
      await guard.checkpoint(interrupted.revert, () => (committed ? revert(ctx.host, committed) : []));
    else await guard.checkpoint(interrupted.keep);
    io.report?.recordChanges('result', root, changes, planned.tree.kept());
    return await steps.after(planned, changes, ctx);
  } finally {
    // Warnings every stage reported (the errors that stop a run are reported with its DiagnosticError).
    io.report?.addDiagnostics(ctx.reporter.diagnostics().filter((d) => d.severity === 'warning'));
    guard?.release();
  }
}
