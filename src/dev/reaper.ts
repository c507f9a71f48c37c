/**
 * The watchdog of a `kubeforge dev` session (lock.ts): `node reaper.js <session pid> <dev folder>`,
 * started detached. Every 250 ms it checks the session: once the session's pid is gone and its lock
 * still names it (it did not stop cleanly), it kills the processes the lock lists, removes the plane
 * data, the kubeconfig and the lock, and exits. It exits as well when the lock no longer names the
 * session (a clean stop released it).
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { alive, LOCK_FILE, readLock, reapStale } from './lock.js';

const sessionPid = Number(process.argv[2]);
const devDir = process.argv[3] ?? '';

const timer = setInterval(() => {
  const rec = readLock(devDir);
  if (!rec || rec.pid !== sessionPid) {
    clearInterval(timer);
    return;
  }
  if (alive(sessionPid)) return;
  clearInterval(timer);
  reapStale(devDir, rec);
  rmSync(join(devDir, LOCK_FILE), { force: true });
}, 250);
