/**
 * One build of a Kubernetes version at a time. `setup-envtest` run twice at once (two terminals,
 * `npm test` beside `kubeforge dev`, two CI jobs on one cache) would otherwise compile the same
 * 2,000 packages twice and rename its result over a folder the other may be running binaries
 * from. The lock is a file created exclusively beside the version's folder, holding the owner's
 * pid; a second run waits for it (saying so), then takes the first one's result. A lock whose
 * process is gone (killed mid-build) is taken over.
 */
import { closeSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';

export interface BuildLockOptions {
  /** Progress lines while waiting. */
  log: (line: string) => void;
  signal?: AbortSignal;
  /** How often to look again, in ms (default 2,000). */
  pollMs?: number;
  /** How often to say it still waits, in ms (default 30,000). */
  sayEveryMs?: number;
}

/** Whether a process with this pid exists (ours or another user's). */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, owned by someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function holder(lockPath: string): number | undefined {
  try {
    return Number.parseInt(readFileSync(lockPath, 'utf8'), 10);
  } catch {
    return undefined; // gone between the failed create and this read
  }
}

function mtimeMs(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return Date.now();
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Runs `build` holding the lock at `lockPath`. While another live process holds it, first waits
 * for it and then calls `done()`: when that says the other process's result is there, returns
 * `undefined` without building; otherwise (the other one failed) takes the lock and builds.
 */
export async function withBuildLock<T>(
  lockPath: string,
  what: string,
  done: () => boolean,
  build: () => Promise<T>,
  options: BuildLockOptions,
): Promise<T | undefined> {
  const pollMs = options.pollMs ?? 2000;
  const sayEvery = options.sayEveryMs ?? 30_000;
  let waitedSince: number | undefined;
  let saidAt = 0;
  for (;;) {
    let fd: number | undefined;
    try {
      fd = openSync(lockPath, 'wx');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    if (fd !== undefined) {
      try {
        writeSync(fd, `${process.pid}\n`);
      } finally {
        closeSync(fd);
      }
      try {
        // The other process may have finished between our look and our lock.
        if (waitedSince !== undefined && done()) return undefined;
        return await build();
      } finally {
        rmSync(lockPath, { force: true });
      }
    }
    const pid = holder(lockPath);
    // An empty lock is one being written this instant (created, pid not yet in it): wait, unless
    // it has been empty for a minute (its writer died in between).
    const stale =
      pid !== undefined && (Number.isNaN(pid) ? Date.now() - mtimeMs(lockPath) > 60_000 : !processAlive(pid));
    if (stale) {
      options.log(
        `a ${what} by process ${pid} stopped before it finished (its lock ${lockPath} is stale); taking over`,
      );
      rmSync(lockPath, { force: true });
      continue;
    }
    const now = Date.now();
    waitedSince ??= now;
    if (now - saidAt >= sayEvery) {
      saidAt = now;
      const s = Math.round((now - waitedSince) / 1000);
      options.log(
        `waiting for the ${what} that ${pid === undefined || Number.isNaN(pid) ? 'another process' : `process ${pid}`} is running (lock ${lockPath}${s > 0 ? `, ${s} s so far` : ''})`,
      );
    }
    await sleep(pollMs, options.signal);
    if (done() && holder(lockPath) === undefined) return undefined;
  }
}
