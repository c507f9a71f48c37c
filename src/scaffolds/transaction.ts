/**
 * How a scaffolding command writes: under the folder's lock, with SIGINT / SIGTERM turned into
 * checkpoints, PROJECT written last, and (for `create api` / `create webhook`) the manifests step
 * inside the same all-or-nothing unit: when it fails or a signal arrives before it commits, what
 * the scaffold wrote is taken back.
 *
 * The manifests are not planned in the scaffold's virtual tree: the analysis reads the project
 * through TypeScript's compiler host (tsconfig globs, module resolution), which sees the disk, so
 * the scaffold is committed first and reverted when the step does not complete.
 */
import { DiagnosticError, error } from '../diagnostics/index.js';
import { PROJECT_FILE } from '../project/index.js';
import { type Change, CommandGuard, commit, DiskHost, InterruptedError, revert, type Tree } from '../scaffold/index.js';
import type { ScaffoldEnvironment } from './environment.js';

/** What the manifests step may be asked between its planning and its commit. */
export interface ManifestsStepHooks {
  /** Called right before the step writes; throws to stop it (nothing written by the step). */
  beforeCommit?: () => Promise<void>;
}

/** Generates the manifests of the project in `dir`; returns what it printed. */
export type ManifestsStep = (dir: string, hooks?: ManifestsStepHooks) => Promise<string>;

/** The folder to lock for a command on `env`: its disk folder, or none for a memory host. */
export function lockRoot(env: ScaffoldEnvironment): string | undefined {
  if (env.host === undefined) return env.cwd;
  return env.host instanceof DiskHost ? env.host.root : undefined;
}

/** Runs `body` under the lock of the command's folder, with signals turned into checkpoints. */
export async function guarded<T>(env: ScaffoldEnvironment, command: string, body: (guard: CommandGuard) => Promise<T>): Promise<T> {
  const guard = await CommandGuard.enter(lockRoot(env), command);
  try {
    return await body(guard);
  } finally {
    guard.release();
  }
}

export interface ScaffoldCommit {
  tree: Tree;
  changes: readonly Change[];
  guard: CommandGuard;
  /** The printed plan, shown once the files are written. */
  plan: string;
  env: ScaffoldEnvironment;
  /** The step (undefined: none, e.g. a memory host) and whether to run it (`--make`). */
  step: ManifestsStep | undefined;
  make: boolean | undefined;
  /** The KF1050 message when the step fails: `what` was not scaffolded. */
  failure: (restored: string) => string;
}

/**
 * Commits the scaffold (PROJECT last), then runs the manifests step. When the step fails or a
 * signal arrives before it writes, the scaffold is reverted and the error (KF1050, or the
 * interruption KF1112) says so. Returns whether the step ran.
 */
export async function commitScaffold(c: ScaffoldCommit): Promise<boolean> {
  const { tree, env, guard } = c;
  const committed = commit(tree.host, c.changes, { last: [PROJECT_FILE] });
  const undo = () => revert(tree.host, committed);
  await guard.checkpoint('nothing was scaffolded (the files just written were taken back)', undo);
  env.out(c.plan);
  if (!c.step) return false;
  if (c.make === false) {
    env.err('Skipped kubeforge manifests (--make=false): run `npm run manifests` before building.\n');
    return false;
  }
  env.err('Generating manifests (kubeforge manifests)...\n');
  try {
    env.out(await c.step(env.cwd, { beforeCommit: () => guard.checkpoint('stopped before the manifests were written') }));
    return true;
  } catch (e) {
    // A command that fails leaves the disk as it was: the scaffold is taken back.
    const notRestored = undo();
    const restored = notRestored.length ? `could not restore ${notRestored.join(', ')}` : 'nothing was written';
    if (e instanceof InterruptedError) throw new InterruptedError(e.signal, `nothing was scaffolded: ${restored}`);
    const diagnostics = e instanceof DiagnosticError ? [...e.diagnostics] : [error('KF1050', (e as Error).message)];
    diagnostics.push(
      error('KF1050', c.failure(restored), {
        hint: 'fix the problems reported above and run the command again; or pass --make=false to scaffold now and run `npm run manifests` once they are fixed',
      }),
    );
    throw new DiagnosticError(diagnostics);
  }
}
