// The command guard: one kubeforge command per folder (the lock), signals as checkpoints, and the
// commit's order. The CLI-level behaviour (real signals, two processes) is in test/hostile/atomic.test.ts.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DiagnosticError } from '../../src/diagnostics/index.js';
import {
  acquireLock,
  applySpecs,
  CommandGuard,
  commit,
  InterruptedError,
  LOCK_FILE,
  MemoryHost,
  removeStaleTempFiles,
  Tree,
} from '../../src/machinery/index.js';

const folder = () => mkdtempSync(join(tmpdir(), 'kf-guard-'));

/** The pid of a process that has ended. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

describe('the project lock', () => {
  it('holds pid, start time and command; release removes it and the .kubeforge folder it made', async () => {
    const dir = folder();
    const lock = await acquireLock(dir, { command: 'create api' });
    const info = JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8'));
    assert.equal(info.pid, process.pid);
    assert.equal(info.command, 'create api');
    assert.ok(!Number.isNaN(Date.parse(info.started)));
    lock.release();
    assert.equal(existsSync(join(dir, '.kubeforge')), false);
  });

  it('a second command waits for the first, and runs once it is released', async () => {
    const dir = folder();
    const first = await acquireLock(dir, { command: 'create api' });
    let tries = 0;
    // `cancelled` is asked between two tries: the first ask means the second command is waiting.
    const second = await acquireLock(dir, {
      command: 'manifests',
      timeoutMs: 60_000,
      cancelled: () => {
        if (++tries === 1) first.release();
        return false;
      },
    });
    assert.equal(tries, 1);
    assert.equal(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')).command, 'manifests');
    second.release();
  });

  it('refuses after the timeout with a located message naming the live holder', async () => {
    const dir = folder();
    mkdirSync(join(dir, '.kubeforge'));
    writeFileSync(
      join(dir, LOCK_FILE),
      JSON.stringify({ pid: process.pid, started: '2026-01-01T00:00:00.000Z', command: 'init' }),
    );
    await assert.rejects(acquireLock(dir, { command: 'create api', timeoutMs: 0 }), (e: unknown) => {
      assert.ok(e instanceof DiagnosticError);
      const [d] = e.diagnostics;
      assert.equal(d.code, 'KF1110');
      assert.equal(d.file, join(dir, LOCK_FILE));
      assert.match(
        d.message,
        new RegExp(
          `^kubeforge init \\(pid ${process.pid}, since 2026-01-01T00:00:00\\.000Z\\) is changing this project`,
        ),
      );
      return true;
    });
  });

  it('takes over the lock of a process that is gone and removes the temporary files it left', async () => {
    const dir = folder();
    const dead = deadPid();
    mkdirSync(join(dir, '.kubeforge'));
    mkdirSync(join(dir, 'src/api'), { recursive: true });
    writeFileSync(
      join(dir, LOCK_FILE),
      JSON.stringify({ pid: dead, started: '2026-01-01T00:00:00.000Z', command: 'create api' }),
    );
    writeFileSync(join(dir, `src/api/x.ts.kubeforge-${dead}.tmp`), 'half');
    writeFileSync(join(dir, `PROJECT.kubeforge-${process.pid}.tmp`), 'ours, being written');
    const lock = await acquireLock(dir, { command: 'manifests', timeoutMs: 0 });
    assert.equal(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')).pid, process.pid);
    assert.equal(existsSync(join(dir, `src/api/x.ts.kubeforge-${dead}.tmp`)), false);
    assert.equal(
      existsSync(join(dir, `PROJECT.kubeforge-${process.pid}.tmp`)),
      true,
      'a live process keeps its temporary file',
    );
    assert.deepEqual(removeStaleTempFiles(dir), []);
    lock.release();
  });
});

describe('CommandGuard', () => {
  it('turns SIGINT into a checkpoint that undoes, and removes its listeners on release', async () => {
    const listeners = process.listenerCount('SIGINT');
    const guard = await CommandGuard.enter(undefined, 'create api');
    assert.equal(process.listenerCount('SIGINT'), listeners + 1);
    await guard.checkpoint('not reached', () => assert.fail('no signal yet: nothing to undo'));
    process.emit('SIGINT', 'SIGINT');
    let undone = 0;
    await assert.rejects(
      guard.checkpoint('nothing was scaffolded', () => {
        undone++;
        return ['PROJECT'];
      }),
      (e: unknown) => {
        assert.ok(e instanceof InterruptedError);
        assert.equal(e.signal, 'SIGINT');
        assert.equal(e.diagnostics[0].code, 'KF1112');
        assert.equal(
          e.diagnostics[0].message,
          'interrupted (SIGINT): nothing was scaffolded, except: could not restore PROJECT',
        );
        return true;
      },
    );
    assert.equal(undone, 1);
    guard.release();
    assert.equal(process.listenerCount('SIGINT'), listeners);
  });
});

describe('commit order and --force reporting', () => {
  it('writes the `last` paths after every other change', () => {
    const order: string[] = [];
    const host = new (class extends MemoryHost {
      override write(path: string, data: Buffer): void {
        order.push(path);
        super.write(path, data);
      }
    })();
    const tree = new Tree(host);
    for (const p of ['PROJECT', 'a.txt', 'src/x.ts']) tree.write(p, `${p}\n`);
    commit(host, tree.changes(), { last: ['PROJECT'] });
    assert.deepEqual(order, ['a.txt', 'src/x.ts', 'PROJECT']);
  });

  it('applySpecs returns the scaffolded files --force replaces (on the host, with other bytes)', async () => {
    const host = new MemoryHost({ 'mine.txt': 'edited\n', 'same.txt': 'same\n' });
    const replaced = await applySpecs(
      new Tree(host),
      [
        { path: 'mine.txt', policy: 'scaffolded', content: 'template\n' },
        { path: 'same.txt', policy: 'scaffolded', content: 'same\n' },
        { path: 'new.txt', policy: 'scaffolded', content: 'new\n' },
      ],
      undefined,
      { force: true },
    );
    assert.deepEqual(replaced, ['mine.txt']);
  });
});
