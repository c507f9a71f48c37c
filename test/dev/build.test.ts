/**
 * `kubeforge dev`'s build on a project made by the CLI (init --skip-install, create api, create
 * webhook; node_modules linked to this repository's): the file-by-file transpile (the restart's
 * path) judged by the project's own tsc, which `npm run build` runs: every file's JavaScript is
 * byte for byte what tsc writes; a syntax error is located and writes nothing; a type error does
 * not stop the transpile but fails the type-check, located; a deleted source's output is removed;
 * a save of the same bytes writes nothing; a newer type-check cancels the one still running.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Transpiler } from '../../src/dev/transpile.js';
import { ProjectTsc } from '../../src/dev/typecheck.js';
import { linkDependencies, scaffoldFrigateProject } from './project.js';

const work = mkdtempSync(join(tmpdir(), 'kf-dev-build-'));
const project = join(work, 'fleet');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : [p];
  });
}

describe("dev: the transpiled build, judged by the project's tsc", { timeout: 5 * 60_000 }, () => {
  before(async () => {
    await scaffoldFrigateProject(project);
    linkDependencies(project);
  });

  after(() => rmSync(work, { recursive: true, force: true }));

  it("writes, file by file, the JavaScript the project's own tsc writes", async () => {
    const byTsc = join(work, 'tsc-out');
    const r = await new ProjectTsc(project, byTsc).build(true);
    assert.equal(r.ok, true, r.text);
    const out = join(work, 'tr-out');
    const sources = files(join(project, 'src')).map((f) => relative(project, f));
    assert.ok(sources.length >= 5);
    const t = new Transpiler(project, out).build(sources, []);
    assert.equal(t.errors, '');
    const js = files(join(byTsc, 'src')).filter((f) => f.endsWith('.js'));
    assert.equal(js.length, sources.length);
    for (const f of js) {
      const mine = join(out, relative(byTsc, f));
      assert.equal(
        readFileSync(mine, 'utf8'),
        readFileSync(f, 'utf8'),
        `${relative(byTsc, f)}: the same bytes as tsc's`,
      );
      // Source maps name the same source (stack traces point at src/), mappings may differ by compiler version.
      const [a, b] = [JSON.parse(readFileSync(`${mine}.map`, 'utf8')), JSON.parse(readFileSync(`${f}.map`, 'utf8'))];
      assert.deepEqual(a.sources, b.sources);
      assert.equal(a.file, b.file);
    }
  });

  it('locates a syntax error and writes nothing; a type error transpiles but fails the type-check, located', async () => {
    const out = join(work, 'tr-errors');
    const t = new Transpiler(project, out);
    const tsc = new ProjectTsc(project, out);
    const file = join(project, 'src/controller/frigate_controller.ts');
    const pristine = readFileSync(file, 'utf8');
    try {
      writeFileSync(file, pristine.replace('    return {};\n  }\n', '    return {;\n  }\n'));
      const bad = t.build(['src/controller/frigate_controller.ts', 'src/main.ts'], []);
      assert.match(bad.errors, /^src\/controller\/frigate_controller\.ts\(\d+,\d+\): error TS1\d\d\d: /m);
      assert.deepEqual(bad.written, []);
      assert.equal(existsSync(join(out, 'src/main.js')), false, 'nothing is written when one file has a syntax error');

      writeFileSync(
        file,
        pristine.replace('    return {};\n  }\n', "    const n: number = 'x';\n    void n;\n    return {};\n  }\n"),
      );
      const typed = t.build(['src/controller/frigate_controller.ts'], []);
      assert.equal(typed.errors, '');
      assert.deepEqual(typed.written, [
        '../tr-errors/src/controller/frigate_controller.js',
        '../tr-errors/src/controller/frigate_controller.js.map',
      ]);
      assert.match(readFileSync(join(out, 'src/controller/frigate_controller.js'), 'utf8'), /const n = 'x';/);
      const check = await tsc.check();
      assert.equal(check.ok, false);
      assert.match(
        check.text,
        /^src\/controller\/frigate_controller\.ts\(\d+,\d+\): error TS2322: Type 'string' is not assignable to type 'number'\./m,
      );
      const again = t.build(['src/controller/frigate_controller.ts'], []);
      assert.deepEqual(again.written, [], 'the same bytes saved again write nothing');
      assert.equal(again.unchanged, 2);
    } finally {
      writeFileSync(file, pristine);
    }
    const fixed = await tsc.check();
    assert.equal(fixed.ok, true, fixed.text);
  });

  it('removes the output of a deleted source', () => {
    const out = join(work, 'tr-delete');
    const t = new Transpiler(project, out);
    const extra = join(project, 'src/extra.ts');
    writeFileSync(extra, 'export const extra = 1;\n');
    try {
      assert.deepEqual(t.build(['src/extra.ts'], []).written, [
        '../tr-delete/src/extra.js',
        '../tr-delete/src/extra.js.map',
      ]);
    } finally {
      rmSync(extra);
    }
    const r = t.build([], ['src/extra.ts']);
    assert.deepEqual(r.removed.sort(), ['../tr-delete/src/extra.js', '../tr-delete/src/extra.js.map']);
    assert.equal(existsSync(join(out, 'src/extra.js')), false);
  });

  it('cancels a type-check still running when a newer one starts', async () => {
    const tsc = new ProjectTsc(project, join(work, 'unused'));
    const first = tsc.check();
    const second = tsc.check();
    const [a, b] = await Promise.all([first, second]);
    assert.equal(a.cancelled, true);
    assert.equal(b.ok, true, b.text);
  });
});
