/**
 * What keeps a writing command whole when something else happens to the process or the folder:
 *
 *  - **One command at a time per folder.** {@link acquireLock} creates `.kubeforge/lock` with
 *    O_EXCL, holding the pid, start time and command of the holder. A second command waits for it
 *    (up to `KUBEFORGE_LOCK_TIMEOUT_MS`, default 10 s) and then refuses with a message naming the
 *    holder (KF1110). A lock whose pid is gone (a killed run) is stale: it is taken over, and the
 *    temporary files that run left behind are removed.
 *  - **Signals.** {@link CommandGuard} listens to SIGINT and SIGTERM while the command runs, so
 *    that Node does not die between two writes. Writing is synchronous, so a signal is handled
 *    only once the commit has written every file; the command then asks {@link CommandGuard.checkpoint}
 *    and takes its writes back (or keeps them, when they were the whole command) and stops with
 *    {@link InterruptedError} (KF1112), which the CLI turns into exit code 130 / 143. A second
 *    signal ends the process at once (between two writes, never inside one).
 *
 * Knows nothing of Kubernetes.
 */
import {
  type Stats,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { DiagnosticError, error } from '../diagnostics/index.js';
import { isSystemError, systemErrorHint } from '../util/fs-errors.js';

/** The lock file, relative to the project folder. */
export const LOCK_FILE = '.kubeforge/lock';

/** What the lock file holds. */
export interface LockInfo {
  pid: number;
  /** ISO time the holder took the lock. */
  started: string;
  /** The command line of the holder, e.g. `create api`. */
  command: string;
}

/** A held lock; {@link release} removes the file (and the folders taking it created, when empty). */
export interface Lock {
  readonly path: string;
  release(): void;
}

/** `<file>.kubeforge-<pid>.tmp`: the temporary sibling {@link DiskHost.write} renames into place. */
export const TEMP_FILE = /\.kubeforge-(\d+)\.tmp$/;

/** Whether a process with this pid runs (EPERM: it does, as another user's). */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readLock(path: string): LockInfo | undefined {
  try {
    const info = JSON.parse(readFileSync(path, 'utf8')) as LockInfo;
    return typeof info.pid === 'number' ? info : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Removes `*.kubeforge-<pid>.tmp` files of processes that no longer run, below `root` (skipping
 * node_modules and .git). Returns the removed paths, relative to root, sorted.
 */
export function removeStaleTempFiles(root: string): string[] {
  const removed: string[] = [];
  const walk = (dir: string) => {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const name of names) {
      if (name === 'node_modules' || name === '.git') continue;
      const p = join(dir, name);
      const m = TEMP_FILE.exec(name);
      let st: Stats;
      try {
        st = statSync(p);
      } catch {
        continue;
      }
      if (st.isDirectory()) walk(p);
      else if (m && Number(m[1]) !== process.pid && !pidAlive(Number(m[1]))) {
        rmSync(p, { force: true });
        removed.push(relative(root, p).split('\\').join('/'));
      }
    }
  };
  walk(root);
  return removed.sort();
}

export interface LockOptions {
  /** Shown to a command that waits for this one. */
  command: string;
  /** How long to wait for another holder (default: KUBEFORGE_LOCK_TIMEOUT_MS, else 10 000 ms). */
  timeoutMs?: number;
  /** Asked between two tries; a true answer stops waiting (a signal arrived). */
  cancelled?: () => boolean;
}

function lockTimeout(): number {
  const v = Number(process.env.KUBEFORGE_LOCK_TIMEOUT_MS);
  return Number.isFinite(v) && v >= 0 ? v : 10_000;
}

/**
 * KF1101 when `.kubeforge` is a file: kubeforge keeps its lock, cache and
 * staging folder there, and the file is the user's to move; nothing is written.
 */
function refuseFileInTheWay(abs: string): void {
  const dir = join(abs, '.kubeforge');
  let isDir = true;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    return;
  }
  if (isDir) return;
  throw new DiagnosticError(
    error(
      'KF1101',
      `.kubeforge is a file, but kubeforge keeps its lock, cache and staging folder in a .kubeforge folder; nothing was written`,
      {
        file: dir,
        hint: 'move or remove the file .kubeforge (kubeforge makes the folder itself, and git-ignores it)',
      },
    ),
  );
}

/** Removes the folders a lock made, innermost first; a folder something was written into stays. */
function removeCreatedDirs(createdDirs: readonly string[]): void {
  for (const d of [...createdDirs].reverse()) {
    try {
      rmdirSync(d);
    } catch {
      /* not empty: left */
    }
  }
}

/**
 * Makes the lock's folder (and the project folder) exist, one folder at a time (recursive
 * mkdir spins on some file systems, such as /proc), recording each in `createdDirs` so that
 * release() removes them, innermost first. Asked again when the previous holder removed
 * `.kubeforge/` on release. False when nothing can be written here (read-only, no permission):
 * the commit's checks say so before any write, so there is nothing to guard.
 */
function ensureLockFolders(abs: string, createdDirs: string[]): boolean {
  const missing: string[] = [];
  for (let d = join(abs, '.kubeforge'); !existsSync(d) && dirname(d) !== d; d = dirname(d)) missing.unshift(d);
  for (const d of missing) {
    try {
      mkdirSync(d);
      createdDirs.push(d);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return false;
    }
  }
  return true;
}

/**
 * One try at creating the lock file with `info` in it: `taken`, `held` (it exists), `no-folder`
 * (`.kubeforge/` went away; thrown unless `folderMayGo`) or `unwritable` (read-only, no
 * permission). A lock that cannot be written in full (a full disk) is removed with its folders,
 * and is KF1102.
 */
function tryCreateLock(
  path: string,
  info: LockInfo,
  createdDirs: readonly string[],
  folderMayGo: boolean,
): 'taken' | 'held' | 'no-folder' | 'unwritable' {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o644);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? '';
    if (code === 'ENOENT' && folderMayGo) return 'no-folder';
    if (code === 'EEXIST') return 'held';
    if (['EACCES', 'EPERM', 'EROFS'].includes(code)) return 'unwritable';
    throw e;
  }
  try {
    writeSync(fd, `${JSON.stringify(info)}\n`);
  } catch (e) {
    // A full disk: the lock and the folders made for it go, and the command stops before
    // anything of the project is touched.
    closeSync(fd);
    rmSync(path, { force: true });
    removeCreatedDirs(createdDirs);
    throw new DiagnosticError(
      error('KF1102', `writing failed: cannot write the lock ${LOCK_FILE}: ${(e as Error).message}`, {
        file: path,
        hint: `${isSystemError(e) ? systemErrorHint(e, LOCK_FILE) : 'see the message'}; nothing in the project was changed`,
      }),
    );
  }
  closeSync(fd);
  return 'taken';
}

/**
 * The holder of an existing lock, or `stale` when the lock was removed because no one holds it
 * any more (junk older than 2 s, or a run that was killed: its temporary files go too), or
 * `gone` when it vanished meanwhile.
 */
function lockHolder(path: string, abs: string): LockInfo | 'stale' | 'gone' | undefined {
  const holder = readLock(path);
  if (holder === undefined) {
    // Being written by its holder right now (or unreadable junk: stale once it is old).
    let age = 0;
    try {
      age = Date.now() - statSync(path).mtimeMs;
    } catch {
      return 'gone';
    }
    if (age <= 2000) return undefined;
    rmSync(path, { force: true });
    return 'stale';
  }
  if (holder.pid !== process.pid && !pidAlive(holder.pid)) {
    // A run that was killed: its lock is stale, and it may have left temporary files.
    rmSync(path, { force: true });
    removeStaleTempFiles(abs);
    return 'stale';
  }
  return holder;
}

/**
 * Takes the lock of the folder `root` (creating it and `.kubeforge/` when missing). Waits while a
 * live process holds it; takes over a lock whose process is gone, and then removes the
 * temporary files that process left. Throws KF1110 (located at the lock file) after the timeout,
 * or {@link InterruptedError} when `cancelled` says so.
 */
export async function acquireLock(root: string, options: LockOptions): Promise<Lock> {
  const abs = resolve(root);
  const path = join(abs, ...LOCK_FILE.split('/'));
  const createdDirs: string[] = [];
  const unlocked: Lock = { path, release: () => undefined };
  if (!ensureLockFolders(abs, createdDirs)) return unlocked;
  refuseFileInTheWay(abs);
  const info: LockInfo = { pid: process.pid, started: new Date().toISOString(), command: options.command };
  const timeoutMs = options.timeoutMs ?? lockTimeout();
  const deadline = Date.now() + timeoutMs;
  let recreated = 0;
  for (;;) {
    const tried = tryCreateLock(path, info, createdDirs, recreated < 100);
    if (tried === 'taken') break;
    if (tried === 'unwritable') return unlocked;
    if (tried === 'no-folder') {
      // The previous holder removed `.kubeforge/` as it released the lock: make it again.
      recreated++;
      if (!ensureLockFolders(abs, createdDirs)) return unlocked;
      continue;
    }
    const holder = lockHolder(path, abs);
    if (holder === 'stale' || holder === 'gone') continue;
    if (options.cancelled?.())
      throw new InterruptedError('SIGINT', 'stopped while waiting for another kubeforge command; nothing was written');
    if (Date.now() >= deadline) {
      const who = holder
        ? `kubeforge ${holder.command} (pid ${holder.pid}, since ${holder.started})`
        : 'another kubeforge command';
      removeCreatedDirs(createdDirs);
      throw new DiagnosticError(
        error(
          'KF1110',
          `${who} is changing this project: ${options.command} waited ${Math.round(timeoutMs / 1000)} s and did not start; nothing was written`,
          {
            file: path,
            hint: 'run the command again when the other one has finished; if no kubeforge runs any more, remove the lock file',
          },
        ),
      );
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  let released = false;
  return {
    path,
    release() {
      if (released) return;
      released = true;
      if (readLock(path)?.pid === process.pid) rmSync(path, { force: true });
      removeCreatedDirs(createdDirs);
    },
  };
}

/** Stopped by a signal. `signal` gives the exit code (130 for SIGINT, 143 for SIGTERM). */
export class InterruptedError extends DiagnosticError {
  constructor(
    readonly signal: NodeJS.Signals,
    what: string,
  ) {
    super(error('KF1112', `interrupted (${signal}): ${what}`, { hint: 'run the command again' }));
    this.name = 'InterruptedError';
  }
}

/**
 * A writing command's guard: holds the folder's lock and turns SIGINT / SIGTERM into a flag the
 * command reads at its checkpoints. {@link release} (in a `finally`) gives both back.
 */
export class CommandGuard {
  private signal: NodeJS.Signals | undefined;
  private readonly onSignal = (s: NodeJS.Signals) => {
    if (this.signal === undefined) {
      this.signal = s;
      process.stderr.write(
        `kubeforge: ${s} received; stopping at the next safe point (send it again to stop at once)\n`,
      );
      return;
    }
    // A second signal: the user insists. Listeners run between two synchronous steps, never in
    // the middle of a write, so the disk holds whole files; the lock is given back, and the
    // signal's default action ends the process.
    this.release();
    process.kill(process.pid, s);
  };
  private lock: Lock | undefined;

  private constructor() {
    process.on('SIGINT', this.onSignal);
    process.on('SIGTERM', this.onSignal);
  }

  /**
   * Starts listening to signals, then takes the lock of `root` when given (a memory host has
   * none). On failure nothing is held.
   */
  static async enter(root: string | undefined, command: string): Promise<CommandGuard> {
    const g = new CommandGuard();
    try {
      if (root !== undefined) g.lock = await acquireLock(root, { command, cancelled: () => g.signal !== undefined });
      await g.checkpoint('nothing was written');
    } catch (e) {
      g.release();
      throw e;
    }
    return g;
  }

  /** The signal received, if any. */
  get interrupted(): NodeJS.Signals | undefined {
    return this.signal;
  }

  /**
   * Throws {@link InterruptedError} when a signal arrived; `undo` first takes back what the
   * command wrote (it returns the paths it could not restore), `state` says what is on disk then.
   * Yields to the event loop first: a signal that came during synchronous work (a commit) is
   * only handed to its listener when the loop polls, which two immediates in a row make sure of
   * (the first may run before this iteration's poll phase, the second runs after the next one).
   */
  async checkpoint(state: string, undo?: () => string[]): Promise<void> {
    for (let i = 0; i < 2; i++) await new Promise((r) => setImmediate(r));
    if (this.signal === undefined) return;
    const failed = undo?.() ?? [];
    throw new InterruptedError(
      this.signal,
      failed.length ? `${state}, except: could not restore ${failed.join(', ')}` : state,
    );
  }

  release(): void {
    process.off('SIGINT', this.onSignal);
    process.off('SIGTERM', this.onSignal);
    this.lock?.release();
    this.lock = undefined;
  }
}
