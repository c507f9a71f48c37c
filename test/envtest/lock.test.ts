// withBuildLock (src/envtest/lock.ts): two setup-envtest runs building one Kubernetes version
// at once build it once; a lock left by a killed build is taken over; a failed build lets the
// waiter build.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { withBuildLock } from '../../src/envtest/lock.js';

const fast = { pollMs: 10, sayEveryMs: 0 };

describe('envtest build lock', () => {
  it('a second build of the same version waits for the first, says so, and takes its result', async () => {
    const lock = join(mkdtempSync(join(tmpdir(), 'kf-lock-')), '1.37.2.lock');
    let built = 0;
    let done = false;
    const logs: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const first = withBuildLock(
      lock,
      'build',
      () => done,
      async () => {
        await gate;
        built++;
        done = true;
        return 'first';
      },
      { ...fast, log: (l) => logs.push(l) },
    );
    const second = withBuildLock(
      lock,
      'build',
      () => done,
      async () => {
        built++;
        return 'second';
      },
      { ...fast, log: (l) => logs.push(l) },
    );
    await new Promise((r) => setTimeout(r, 50));
    assert.ok(existsSync(lock), 'the first build holds the lock');
    assert.match(logs.join('\n'), new RegExp(`waiting for the build that process ${process.pid} is running`));
    release();
    assert.equal(await first, 'first');
    assert.equal(await second, undefined, 'the waiter does not build again');
    assert.equal(built, 1);
    assert.ok(!existsSync(lock), 'the lock is removed');
  });

  it('a lock whose process is gone is taken over, and the build runs', async () => {
    const lock = join(mkdtempSync(join(tmpdir(), 'kf-lock-')), '1.37.2.lock');
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    writeFileSync(lock, `${dead.stdout}\n`);
    const logs: string[] = [];
    const r = await withBuildLock(
      lock,
      'build',
      () => false,
      async () => 'built',
      { ...fast, log: (l) => logs.push(l) },
    );
    assert.equal(r, 'built');
    assert.match(logs.join('\n'), new RegExp(`by process ${dead.stdout} stopped before it finished .*taking over`));
    assert.ok(!existsSync(lock));
  });

  it('when the first build fails, the waiter builds', async () => {
    const lock = join(mkdtempSync(join(tmpdir(), 'kf-lock-')), '1.37.2.lock');
    let fail!: () => void;
    const gate = new Promise<void>((r) => (fail = r));
    const first = withBuildLock(
      lock,
      'build',
      () => false,
      async () => {
        await gate;
        throw new Error('compile error');
      },
      { ...fast, log: () => undefined },
    );
    const second = withBuildLock(
      lock,
      'build',
      () => false,
      async () => 'second',
      { ...fast, log: () => undefined },
    );
    await new Promise((r) => setTimeout(r, 30));
    fail();
    await assert.rejects(first, /compile error/);
    assert.equal(await second, 'second');
  });

  it('an abort while waiting rejects and leaves the holder its lock', async () => {
    const lock = join(mkdtempSync(join(tmpdir(), 'kf-lock-')), '1.37.2.lock');
    writeFileSync(lock, `${process.pid}\n`);
    const ac = new AbortController();
    const waiting = withBuildLock(
      lock,
      'build',
      () => false,
      async () => 'never',
      {
        ...fast,
        log: () => undefined,
        signal: ac.signal,
      },
    );
    setTimeout(() => ac.abort(new Error('stopped')), 30);
    await assert.rejects(waiting, /stopped/);
    assert.ok(existsSync(lock));
  });
});
