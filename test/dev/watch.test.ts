/**
 * `kubeforge dev`'s watcher (src/dev/watch.ts) on a real file system, saving files the ways
 * editors and tools save them: in place, by rename (vim with backupcopy=no, JetBrains' safe write,
 * `sed -i`, write-file-atomic), deleted and re-created, in a folder made after the start, and a
 * `git checkout` of several files. Every save must reach the watcher (the recursive `fs.watch` it
 * replaced lost a file for good after its first rename save), and editors' temporary files never.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { isEditorTemp, isWatchedSource, SourceWatcher, type SourceChanges } from '../../src/dev/watch.js';

const dir = mkdtempSync(join(tmpdir(), 'kf-watch-'));
const batches: SourceChanges[] = [];
let watcher: SourceWatcher;

/** The saves editors make, each ending with `text` in `file`. */
const savers: Record<string, (file: string, text: string) => void> = {
  'in place': (file, text) => writeFileSync(file, text),
  'vim (backupcopy=no)': (file, text) => {
    renameSync(file, `${file}~`);
    writeFileSync(file, text);
    unlinkSync(`${file}~`);
  },
  'JetBrains safe write': (file, text) => {
    writeFileSync(`${file}___jb_tmp___`, text);
    renameSync(file, `${file}___jb_old___`);
    renameSync(`${file}___jb_tmp___`, file);
    unlinkSync(`${file}___jb_old___`);
  },
  'sed -i': (file, text) => {
    const tmp = join(file, '..', `sedAb3xYz`);
    writeFileSync(tmp, text);
    renameSync(tmp, file);
  },
  'write-file-atomic': (file, text) => {
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, text);
    renameSync(tmp, file);
  },
};

/** Resolves with the first batch after `from` that holds `file` (project-relative) as `kind`. */
async function seen(
  file: string,
  kind: 'changed' | 'deleted',
  from: number,
  timeoutMs = 10_000,
): Promise<SourceChanges> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const b = batches.slice(from).find((x) => x.get(file) === kind);
    if (b) return b;
    if (Date.now() > deadline)
      assert.fail(
        `${file} ${kind} not seen within ${timeoutMs} ms; batches: ${JSON.stringify(batches.slice(from).map((x) => [...x]))}`,
      );
    await new Promise((r) => setTimeout(r, 20));
  }
}

function allPaths(): string[] {
  return batches.flatMap((b) => [...b.keys()]);
}

describe('dev: the source watcher', () => {
  before(async () => {
    mkdirSync(join(dir, 'src/controller'), { recursive: true });
    writeFileSync(join(dir, 'src/main.ts'), 'export const a = 0;\n');
    writeFileSync(join(dir, 'src/controller/c.ts'), 'export const c = 0;\n');
    watcher = new SourceWatcher({
      projectDir: dir,
      folders: ['src'],
      debounceMs: 30,
      onBatch: (changes) => batches.push(changes),
    });
    await watcher.start();
  });

  after(async () => {
    await watcher.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sees 20 successive saves of one file, alternating rename and in-place saves of every kind', async () => {
    const file = join(dir, 'src/controller/c.ts');
    const kinds = Object.keys(savers);
    for (let i = 0; i < 20; i++) {
      // Rename saves on even turns, in place on odd ones; the rename save cycles through the editors.
      const how = i % 2 === 1 ? 'in place' : kinds[1 + ((i / 2) % (kinds.length - 1))];
      const from = batches.length;
      const text = `export const c = ${i + 1}; // ${how}\n`;
      savers[how](file, text);
      await seen('src/controller/c.ts', 'changed', from);
      assert.equal(readFileSync(file, 'utf8'), text);
    }
  });

  it('sees a delete and the re-create, and a file in a folder made after the start', async () => {
    const file = join(dir, 'src/main.ts');
    let from = batches.length;
    unlinkSync(file);
    await seen('src/main.ts', 'deleted', from);
    from = batches.length;
    writeFileSync(file, 'export const a = 2;\n');
    await seen('src/main.ts', 'changed', from);
    from = batches.length;
    mkdirSync(join(dir, 'src/webhook/v1'), { recursive: true });
    writeFileSync(join(dir, 'src/webhook/v1/w.ts'), 'export const w = 1;\n');
    await seen('src/webhook/v1/w.ts', 'changed', from);
    // And a save of it by rename afterwards.
    from = batches.length;
    savers['write-file-atomic'](join(dir, 'src/webhook/v1/w.ts'), 'export const w = 2;\n');
    await seen('src/webhook/v1/w.ts', 'changed', from);
  });

  it('sees every file of a git checkout', async () => {
    const git = (...args: string[]) => {
      const r = spawnSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], {
        cwd: dir,
        encoding: 'utf8',
      });
      assert.equal(r.status, 0, `git ${args.join(' ')}: ${r.stderr}`);
    };
    const files = ['src/g1.ts', 'src/g2.ts', 'src/controller/g3.ts', 'src/controller/g4.ts', 'src/webhook/v1/g5.ts'];
    git('init', '-q', '-b', 'main');
    for (const f of files) writeFileSync(join(dir, f), `export const v = 'main';\n`);
    git('add', '-A');
    git('commit', '-qm', 'main');
    git('checkout', '-q', '-b', 'other');
    for (const f of files) writeFileSync(join(dir, f), `export const v = 'other';\n`);
    git('commit', '-qam', 'other');
    // Wait for the writes above to be reported, then switch branches: five files change at once.
    await seen('src/webhook/v1/g5.ts', 'changed', 0);
    await new Promise((r) => setTimeout(r, 100));
    const from = batches.length;
    git('checkout', '-q', 'main');
    for (const f of files) await seen(f, 'changed', from);
    assert.ok(batches.length - from <= 3, `one save of five files comes in few batches (${batches.length - from})`);
  });

  it("never reports editors' temporary files, nor files that are not TypeScript or JSON", () => {
    const reported = allPaths();
    assert.ok(reported.length > 20);
    for (const p of reported) assert.ok(isWatchedSource(p), `${p} is a source`);
    for (const name of [
      'c.ts~',
      '.c.ts.swp',
      '4913',
      'c.ts___jb_tmp___',
      'c.ts___jb_old___',
      '.#c.ts',
      '#c.ts#',
      'c.ts.123.tmp',
    ])
      assert.equal(isEditorTemp(`src/${name}`), true, name);
    assert.equal(isWatchedSource('src/x.ts'), true);
    assert.equal(isWatchedSource('src/x.json'), true);
    assert.equal(isWatchedSource('src/x.md'), false);
    assert.equal(isWatchedSource('src/sedAb3xYz'), false);
  });
});
