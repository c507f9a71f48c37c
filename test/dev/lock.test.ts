/**
 * One `kubeforge dev` per project, and nothing left running after it (src/dev/lock.ts,
 * src/dev/reaper.ts): a lock held by a live session is refused; a stale lock's processes are
 * killed and its plane data removed, but not a process that reused a recorded pid; a session
 * killed with SIGKILL is cleaned up after by its watchdog.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { alive, LockHeld, readLock, SessionLock } from '../../src/dev/lock.js';
import { packageRoot } from '../../src/util/package-root.js';
import { must } from '../helpers/must.js';

const work = mkdtempSync(join(tmpdir(), 'kf-dev-lock-'));
const started: ChildProcess[] = [];

function sleeper(): ChildProcess {
  const c = spawn('sleep', ['120'], { stdio: 'ignore' });
  started.push(c);
  return c;
}

async function until(what: string, f: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!f()) {
    if (Date.now() > deadline) assert.fail(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function devDir(name: string): string {
  const d = join(work, name, '.kubeforge/dev');
  mkdirSync(join(d, 'plane'), { recursive: true });
  writeFileSync(join(d, 'kubeconfig'), 'apiVersion: v1\n');
  return d;
}

describe('dev: the session lock and its watchdog', () => {
  after(() => {
    for (const c of started) c.kill('SIGKILL');
    rmSync(work, { recursive: true, force: true });
  });

  it('refuses a lock that a live session holds, and leaves its files alone', () => {
    const dir = devDir('held');
    const other = sleeper();
    writeFileSync(join(dir, 'lock'), JSON.stringify({ pid: other.pid, started: 'then', children: [] }));
    assert.throws(
      () => SessionLock.acquire(dir, () => assert.fail('not stale')),
      (e: unknown) =>
        e instanceof LockHeld && e.other.pid === other.pid && /another kubeforge dev \(pid \d+/.test(e.message),
    );
    assert.ok(existsSync(join(dir, 'kubeconfig')) && existsSync(join(dir, 'plane')));
    assert.equal(readLock(dir)?.pid, other.pid);
  });

  it('takes over a stale lock: kills what it recorded, removes its plane data, spares a reused pid', async () => {
    const dir = devDir('stale');
    const dead = spawn('true');
    await new Promise((r) => dead.on('exit', r));
    const left = sleeper();
    // A recorded pid now running another program, or the same program started at another time:
    // not the session's, so not killed.
    const reused = sleeper();
    const restarted = sleeper();
    writeFileSync(
      join(dir, 'lock'),
      JSON.stringify({
        pid: dead.pid,
        started: 'then',
        children: [
          { pid: left.pid, program: 'sleep' },
          { pid: reused.pid, program: '/some/etcd' },
          { pid: restarted.pid, program: 'sleep', started: '1' },
        ],
      }),
    );
    let reported: number[] = [];
    const lock = SessionLock.acquire(dir, (_rec, killed) => (reported = killed));
    assert.deepEqual(reported, [left.pid]);
    await until('the recorded process is gone', () => !alive(must(left.pid, 'left.pid')));
    assert.ok(alive(must(reused.pid, 'reused.pid')), 'a process that reused a recorded pid runs on');
    assert.ok(alive(must(restarted.pid, 'restarted.pid')), 'so does one of the same program started later');
    assert.equal(existsSync(join(dir, 'plane')), false);
    assert.equal(existsSync(join(dir, 'kubeconfig')), false);
    assert.equal(readLock(dir)?.pid, process.pid);
    lock.release();
    assert.equal(readLock(dir), undefined);
  });

  it('cleans up after a session killed with SIGKILL: its recorded processes, plane data, kubeconfig and lock', async () => {
    const dir = devDir('killed');
    const child = sleeper();
    const lockModule = join(packageRoot(), 'build/src/dev/lock.js');
    // A stand-in session: takes the lock, starts the watchdog, records a child, then waits to be killed.
    const session = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { SessionLock } = await import(${JSON.stringify(lockModule)});
         const lock = SessionLock.acquire(${JSON.stringify(dir)}, () => {});
         lock.startReaper();
         lock.setChildren([${child.pid}]);
         console.log('locked');
         setInterval(() => {}, 1000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    started.push(session);
    await new Promise<void>((r) => session.stdout.on('data', (c) => String(c).includes('locked') && r()));
    assert.equal(readLock(dir)?.pid, session.pid);
    assert.deepEqual(
      readLock(dir)?.children.map((c) => c.pid),
      [child.pid],
    );
    session.kill('SIGKILL');
    await until('the watchdog stops the recorded process', () => !alive(must(child.pid, 'child.pid')));
    await until('and removes the lock', () => !existsSync(join(dir, 'lock')));
    assert.equal(existsSync(join(dir, 'plane')), false);
    assert.equal(existsSync(join(dir, 'kubeconfig')), false);
  });

  it('a clean release ends the watchdog without touching anything', async () => {
    const dir = devDir('clean');
    const lock = SessionLock.acquire(dir, () => assert.fail('not stale'));
    lock.startReaper();
    const child = sleeper();
    lock.setChildren([child.pid]);
    assert.match(readFileSync(join(dir, 'lock'), 'utf8'), new RegExp(`"pid":${child.pid}`));
    lock.release();
    await new Promise((r) => setTimeout(r, 600));
    assert.ok(alive(must(child.pid, 'child.pid')), 'the watchdog of a released lock kills nothing');
    assert.ok(existsSync(join(dir, 'kubeconfig')));
  });
});
