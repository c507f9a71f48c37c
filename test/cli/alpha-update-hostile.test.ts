/**
 * `kubeforge alpha update` under hostile use: flags it cannot honour are refused before anything
 * is done (`--output-branch` with `--in-place`; a `--restore-path` outside the project or naming
 * nothing), a file of the result that is a symbolic link (or under one) on the user's branch is
 * refused instead of written through, and SIGINT, while the scaffolds are made or while the
 * result is written, leaves the project (work tree, index, branches) as it was and no temporary
 * scaffold behind, with exit 130. Each refusal: exit 1, its KF code, the disk as it was.
 *
 * The old kubeforge is this one with its Makefile template changed and hack/set-image.mjs written as
 * hack/set-image-old.mjs, so that the upgrade changes a file, removes one and adds one.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { run } from '../../src/cli/index.js';
import { packageRoot } from '../../src/util/package-root.js';
import { treeHash } from '../helpers/tree.js';
import { copyKubeforge } from '../helpers/kubeforge-copy.js';

const repo = packageRoot();
const BIN = join(repo, 'bin', 'kubeforge.js');
const root = mkdtempSync(join(tmpdir(), 'kf-cli-update-hostile-'));
after(() => rmSync(root, { recursive: true, force: true }));
const old = join(root, 'old-kubeforge');

async function kubeforge(cwd: string, ...args: string[]) {
  let out = '';
  let err = '';
  const code = await run(['node', 'kubeforge', ...args], {
    cwd,
    color: false,
    out: (t) => {
      out += t;
    },
    err: (t) => {
      err += t;
    },
  });
  return { code, out, err };
}

function git(cwd: string, ...args: string[]): string {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8' });
  assert.equal(r.status, 0, `git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

/** Everything a user could lose: the files (with .git's refs and index), the branches, HEAD, the status. */
function state(dir: string): string {
  return JSON.stringify({
    files: treeHash(dir, ['node_modules', '.git']),
    branches: git(dir, 'for-each-ref', '--format=%(refname) %(objectname)', 'refs/heads'),
    head: git(dir, 'rev-parse', '--symbolic-full-name', 'HEAD'),
    index: git(dir, 'ls-files', '-s'),
    status: git(dir, 'status', '--porcelain', '--ignored'),
  });
}

let count = 0;
/** A project the old kubeforge made, committed on main; `edit` changes it before the commit. */
function project(edit: (dir: string) => void = () => {}): string {
  const dir = join(root, `p${count++}`);
  mkdirSync(dir);
  const r = spawnSync(
    process.execPath,
    [
      join(old, 'bin', 'kubeforge.js'),
      'init',
      '--domain',
      'example.com',
      '--project-name',
      'guestbook',
      '--skip-install',
      '--kubeforge-source',
      'registry',
    ],
    { cwd: dir, encoding: 'utf8' },
  );
  assert.equal(r.status, 0, r.stderr);
  edit(dir);
  git(dir, 'init', '--quiet', '-b', 'main');
  git(dir, 'config', 'user.name', 'test');
  git(dir, 'config', 'user.email', 'test@example.com');
  git(dir, 'add', '-A');
  git(dir, 'commit', '--quiet', '-m', 'the user project');
  return dir;
}

before(() => {
  mkdirSync(old);
  copyKubeforge(repo, old);
  symlinkSync(join(repo, 'node_modules'), join(old, 'node_modules'), 'dir');
  const makefile = join(old, 'templates/init/Makefile.hbs');
  writeFileSync(makefile, readFileSync(makefile, 'utf8').replace(/\n/, '\n# (as the old kubeforge wrote it)\n'));
  const init = join(old, 'dist/scaffolds/init.js');
  const text = readFileSync(init, 'utf8');
  assert.ok(
    text.includes("['hack/set-image.mjs', 'hack/set-image.mjs.hbs']"),
    'the old kubeforge is made by renaming hack/set-image.mjs',
  );
  writeFileSync(
    init,
    text.replace(
      "['hack/set-image.mjs', 'hack/set-image.mjs.hbs']",
      "['hack/set-image-old.mjs', 'hack/set-image.mjs.hbs']",
    ),
  );
});

describe('kubeforge alpha update under hostile use', { timeout: 10 * 60_000 }, () => {
  it('the old kubeforge and this one differ in the Makefile, hack/set-image-old.mjs and hack/set-image.mjs: an update writes them', async () => {
    const dir = project();
    const r = await kubeforge(dir, 'alpha', 'update', '--from-version', old, '--in-place');
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(
      git(dir, 'status', '--porcelain')
        .split('\n')
        .map((l) => l.trim())
        .sort(),
      ['?? hack/set-image.mjs', 'D hack/set-image-old.mjs', 'M Makefile'],
    );
  });

  it('--output-branch with --in-place: KF1325, nothing done', async () => {
    const dir = project();
    const before = state(dir);
    const r = await kubeforge(dir, 'alpha', 'update', '--from-version', old, '--in-place', '--output-branch', 'up');
    assert.equal(r.code, 1);
    assert.match(r.err, /KF1325 +--output-branch up and --in-place/);
    assert.doesNotMatch(r.err, /Scaffolding/, 'refused before any work');
    assert.equal(state(dir), before);
  });

  it('--restore-path outside the project, the whole project, empty, or naming nothing on the branch: KF1327, nothing done', async () => {
    const dir = project();
    const before = state(dir);
    for (const [path, said] of [
      ['../elsewhere', /outside the project/],
      [join(root, 'other'), /outside the project/],
      ['Makefile/../..', /outside the project/],
      ['.', /the whole project/],
      ['', /an empty path/],
      ['config/no-such-folder', /no such file or folder committed on main/],
      ['Makefil', /no such file or folder committed on main/],
      ['hack/set-image.mjs', /no such file or folder committed on main/],
      ['dist/chart', /alpha update never merges .*dist/],
    ] as const) {
      const r = await kubeforge(dir, 'alpha', 'update', '--from-version', old, '--restore-path', 'Makefile', path);
      assert.equal(r.code, 1, `${path}: ${r.err}`);
      assert.match(r.err, /KF1327/, path);
      assert.match(r.err, said, path);
      assert.doesNotMatch(r.err, /Scaffolding/, `${path}: refused before any work`);
      assert.equal(state(dir), before, path);
    }
    // A path given with ./ or a trailing slash, or absolute inside the project, is one.
    const ok = await kubeforge(
      dir,
      'alpha',
      'update',
      '--from-version',
      old,
      '--restore-path',
      './Makefile',
      `${join(dir, 'hack')}/`,
    );
    assert.equal(ok.code, 0, ok.err);
    assert.match(ok.out, /Nothing to update/);
  });

  it('a symbolic link on the branch (a file, or a folder) is never written through: KF1328 naming it, nothing done; --restore-path keeps it', async () => {
    const shared = join(root, 'shared');
    mkdirSync(join(shared, 'hack'), { recursive: true });
    const dir = project((d) => {
      writeFileSync(join(shared, 'Makefile'), readFileSync(join(d, 'Makefile')));
      rmSync(join(d, 'Makefile'));
      symlinkSync('../shared/Makefile', join(d, 'Makefile'));
      cpSync(join(d, 'hack'), join(shared, 'hack'), { recursive: true });
      rmSync(join(d, 'hack'), { recursive: true });
      symlinkSync('../shared/hack', join(d, 'hack'));
    });
    // The project sits next to shared/ (../shared from it), so the links resolve.
    const before = state(dir);
    const outside = treeHash(shared);
    const r = await kubeforge(dir, 'alpha', 'update', '--from-version', old);
    assert.equal(r.code, 1, r.err);
    assert.match(
      r.err,
      /KF1328 +Makefile is a symbolic link \(to \.\.\/shared\/Makefile\): alpha update does not write through it/,
    );
    assert.match(r.err, /KF1328 +hack\/set-image\.mjs is under hack, a symbolic link \(to \.\.\/shared\/hack\)/);
    assert.match(r.err, /--restore-path Makefile/);
    assert.equal(state(dir), before);
    assert.equal(treeHash(shared), outside, 'nothing written where the links point');

    const kept = await kubeforge(
      dir,
      'alpha',
      'update',
      '--from-version',
      old,
      '--in-place',
      '--restore-path',
      'Makefile',
      'hack',
    );
    assert.equal(kept.code, 0, kept.err);
    assert.equal(state(dir), before);
    assert.equal(treeHash(shared), outside);
  });

  /** Runs alpha update in a child; sends SIGINT when stderr shows `when`, `delay` ms later. */
  function interrupted(dir: string, when: RegExp, delay: number, env: Record<string, string> = {}) {
    const tmp = mkdtempSync(join(root, 'tmp-'));
    return new Promise<{ code: number | null; err: string; tmp: string[] }>((resolve) => {
      const child = spawn(process.execPath, [BIN, 'alpha', 'update', '--from-version', old], {
        cwd: dir,
        env: { ...process.env, NO_COLOR: '1', TMPDIR: tmp, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let err = '';
      let sent = false;
      child.stdout.resume();
      child.stderr.on('data', (d: Buffer) => {
        err += d.toString('utf8');
        if (!sent && when.test(err)) {
          sent = true;
          setTimeout(() => child.kill('SIGINT'), delay);
        }
      });
      child.on('close', (code) => resolve({ code, err, tmp: readdirSync(tmp) }));
    });
  }

  it('SIGINT while the scaffolds are made: exit 130 (KF1112), the project as it was, no temporary scaffold left', async () => {
    const dir = project();
    const before = state(dir);
    const r = await interrupted(dir, /Scaffolding the ancestor/, 50);
    assert.equal(r.code, 130, r.err);
    assert.match(r.err, /KF1112 +interrupted \(SIGINT\): nothing was changed/);
    assert.equal(state(dir), before);
    assert.deepEqual(r.tmp, [], 'the temporary scaffolds are removed');
  });

  it('SIGINT while the result is written: the branch, the files and the index are taken back; exit 130', async () => {
    const dir = project();
    const before = state(dir);
    // Each file written waits 1.5 s: the signal lands while the result is written, after the branch is made.
    const r = await interrupted(dir, /Writing the result to branch kubeforge-update-from-\S+\.\.\.\n/, 200, {
      KUBEFORGE_TEST_COMMIT_DELAY_MS: '1500',
    });
    assert.equal(r.code, 130, r.err);
    assert.match(r.err, /KF1112 +interrupted \(SIGINT\): the result was taken back: nothing was changed/);
    assert.equal(state(dir), before);
    assert.deepEqual(r.tmp, []);
  });
});
