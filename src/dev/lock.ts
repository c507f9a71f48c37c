/**
 * One `kubeforge dev` per project, and nothing left running after it, however it ends.
 *
 * The session holds `.kubeforge/dev/lock`: a JSON record of its pid and of every process it
 * started (etcd, kube-apiserver, the manager of the moment), rewritten as they change. A second
 * session in the same project finds the lock held by a live process and stops before it touches
 * anything (KF1409): it would otherwise delete the first one's kubeconfig and plane data on exit.
 *
 * A session killed with SIGKILL runs no exit handler, so a small watchdog process (reaper.ts),
 * started detached beside the session, polls the session's pid; when it is gone, the watchdog
 * kills the processes the lock lists, removes the plane data, the kubeconfig and the lock, and
 * exits. A lock left by a session that died with its watchdog (a machine reboot) is found stale
 * by the next session, whose start does the same clean-up first.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface LockRecord {
  /** The session's pid. */
  pid: number;
  /** When it started (ISO time). */
  started: string;
  /**
   * Processes it started that must not outlive it: pid, the program they run and when they
   * started (clock ticks since boot, /proc/<pid>/stat), so that a pid reused by another process
   * (after a reboot, or much later) is never taken for one of them.
   */
  children: { pid: number; program: string; started?: string }[];
}

export const LOCK_FILE = 'lock';

/** The dev folders whose lock a session of this process holds (two sessions in one process: tests, benches). */
const heldHere = new Set<string>();

/** Whether `pid` runs (a zombie, dead but not yet waited for by its parent, does not). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    // /proc/<pid>/stat: "pid (comm) state ...": the state follows the last ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}

/** The program a live pid runs (Linux /proc), to tell a recorded child from a process that reused its pid. */
function programOf(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0];
  } catch {
    return undefined;
  }
}

/** When a pid started (field 22 of /proc/<pid>/stat, clock ticks since boot). */
function startedOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

export function readLock(devDir: string): LockRecord | undefined {
  try {
    const rec = JSON.parse(readFileSync(join(devDir, LOCK_FILE), 'utf8')) as LockRecord;
    return typeof rec.pid === 'number' ? rec : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Kills what a dead session left running (each recorded child still running the same program) and
 * removes its plane data and kubeconfig. Returns the pids killed.
 */
export function reapStale(devDir: string, rec: LockRecord): number[] {
  const killed: number[] = [];
  for (const c of rec.children) {
    if (!alive(c.pid)) continue;
    const program = programOf(c.pid);
    if (program !== undefined && c.program !== '' && program !== c.program) continue;
    const started = startedOf(c.pid);
    if (started !== undefined && c.started !== undefined && started !== c.started) continue;
    try {
      process.kill(c.pid, 'SIGKILL');
      killed.push(c.pid);
    } catch {
      /* gone meanwhile */
    }
  }
  rmSync(join(devDir, 'plane'), { recursive: true, force: true });
  rmSync(join(devDir, 'kubeconfig'), { force: true });
  return killed;
}

export class SessionLock {
  private record: LockRecord;
  private readonly file: string;

  private constructor(readonly devDir: string) {
    this.file = join(devDir, LOCK_FILE);
    this.record = { pid: process.pid, started: new Date().toISOString(), children: [] };
  }

  /**
   * Takes the lock of `devDir` (which must exist). Throws `held` with the other session's record
   * when a live session holds it; a stale lock is reaped first (`onStale` says what was killed).
   */
  static acquire(devDir: string, onStale: (rec: LockRecord, killed: number[]) => void): SessionLock {
    const lock = new SessionLock(devDir);
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        writeFileSync(lock.file, JSON.stringify(lock.record), { flag: 'wx' });
        heldHere.add(lock.file);
        return lock;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      const other = readLock(devDir);
      if (other && (other.pid === process.pid ? heldHere.has(lock.file) : alive(other.pid))) throw new LockHeld(other);
      if (other) onStale(other, reapStale(devDir, other));
      rmSync(lock.file, { force: true });
    }
    throw new Error(`could not take ${lock.file}: another session keeps re-creating it`);
  }

  /** Records the processes that must not outlive the session (replacing the previous list). */
  setChildren(pids: (number | undefined)[]): void {
    this.record.children = pids
      .filter((pid): pid is number => pid !== undefined && alive(pid))
      .map((pid) => ({ pid, program: programOf(pid) ?? '', started: startedOf(pid) }));
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(this.record));
    renameSync(tmp, this.file);
  }

  /** Starts the watchdog that cleans up if this process dies without stopping the session. */
  startReaper(): void {
    const reaper = fileURLToPath(new URL('./reaper.js', import.meta.url));
    const child = spawn(process.execPath, [reaper, String(process.pid), this.devDir], {
      detached: true,
      stdio: 'ignore',
    });
    child.unref();
  }

  release(): void {
    const rec = readLock(this.devDir);
    if (rec?.pid === process.pid) rmSync(this.file, { force: true });
    heldHere.delete(this.file);
  }
}

export class LockHeld extends Error {
  constructor(readonly other: LockRecord) {
    super(`another kubeforge dev (pid ${other.pid}, started ${other.started}) runs in this project`);
  }
}

export function lockExists(devDir: string): boolean {
  return existsSync(join(devDir, LOCK_FILE));
}
