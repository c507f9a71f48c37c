/**
 * Supply chain of `alpha update`: an old kubeforge it cannot find in the project is fetched with
 * `npm pack kubeforge@<version>` only when something recorded says what that package must be,
 * and run only when it is that package.
 *
 * - `init`, run by a kubeforge that npm installed, records npm's integrity of it in PROJECT
 *   (`cliIntegrity`, next to `cliVersion`); a kubeforge npm did not install records none.
 * - `alpha update` checks the fetched tarball's sha512 against PROJECT's cliIntegrity (or the
 *   committed package-lock.json's): another package under that name and version is KF1329 and
 *   never runs; with nothing recorded the registry is not even asked (KF1329) unless
 *   `--allow-unverified-cli`; a cliVersion that is not an exact version is never handed to npm.
 *
 * The registry is a fake `npm` on PATH that serves a tarball the test chooses and logs its
 * arguments; the "old" kubeforge is this one, as version 0.0.9 with its Makefile template changed.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { run } from '../../src/cli/index.js';
import { packageRoot } from '../../src/util/package-root.js';
import { treeHash } from '../helpers/tree.js';
import { copyKubeforge } from '../helpers/kubeforge-copy.js';

const repo = packageRoot();
const root = mkdtempSync(join(tmpdir(), 'kf-cli-update-integrity-'));
after(() => rmSync(root, { recursive: true, force: true }));
const OLD = '0.0.9';
/** Where npm "installed" the old kubeforge: <install>/node_modules/kubeforge, with npm's hidden lockfile. */
const install = join(root, 'install');
const oldDir = join(install, 'node_modules', 'kubeforge');
const fakeBin = join(root, 'bin');
const served = join(root, 'served.tgz');
const npmLog = join(root, 'npm.log');
const marker = join(root, 'hostile-ran');
let genuine = '';

const sri = (data: Buffer) => `sha512-${createHash('sha512').update(data).digest('base64')}`;

function tgzOf(dir: string, out: string): Buffer {
  const stage = mkdtempSync(join(root, 'pack-'));
  cpSync(dir, join(stage, 'package'), { recursive: true, filter: (p) => !p.endsWith('node_modules') });
  const r = spawnSync('tar', ['-czf', out, '-C', stage, 'package']);
  assert.equal(r.status, 0, r.stderr?.toString());
  rmSync(stage, { recursive: true, force: true });
  return readFileSync(out);
}

async function kubeforge(cwd: string, ...args: string[]) {
  let out = '';
  let err = '';
  const path = process.env.PATH;
  process.env.PATH = `${fakeBin}:${path}`;
  try {
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
  } finally {
    process.env.PATH = path;
  }
}

function git(cwd: string, ...args: string[]): string {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8' });
  assert.equal(r.status, 0, `git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

const state = (dir: string) =>
  JSON.stringify([
    treeHash(dir, ['node_modules', '.git']),
    git(dir, 'for-each-ref', 'refs/heads'),
    git(dir, 'status', '--porcelain'),
  ]);

let count = 0;
/** A project the npm-installed old kubeforge made (registry source), committed; `edit` changes it first. */
function project(edit: (dir: string) => void = () => {}): string {
  const dir = join(root, `p${count++}`);
  mkdirSync(dir);
  const r = spawnSync(
    process.execPath,
    [
      join(oldDir, 'bin/kubeforge.js'),
      'init',
      '--domain',
      'example.com',
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

const npmCalls = () => (existsSync(npmLog) ? readFileSync(npmLog, 'utf8').trim().split('\n').filter(Boolean) : []);

before(() => {
  mkdirSync(oldDir, { recursive: true });
  copyKubeforge(repo, oldDir);
  const pkg = JSON.parse(readFileSync(join(oldDir, 'package.json'), 'utf8'));
  writeFileSync(join(oldDir, 'package.json'), `${JSON.stringify({ ...pkg, version: OLD }, null, 2)}\n`);
  const makefile = join(oldDir, 'templates/init/Makefile.hbs');
  writeFileSync(makefile, readFileSync(makefile, 'utf8').replace(/\n/, '\n# (as kubeforge 0.0.9 wrote it)\n'));
  const genuineTgz = tgzOf(oldDir, join(root, 'genuine.tgz'));
  genuine = sri(genuineTgz);
  symlinkSync(join(repo, 'node_modules'), join(oldDir, 'node_modules'), 'dir');
  writeFileSync(
    join(install, 'node_modules', '.package-lock.json'),
    JSON.stringify({
      name: 'install',
      lockfileVersion: 3,
      packages: { 'node_modules/kubeforge': { version: OLD, resolved: 'kubeforge-0.0.9.tgz', integrity: genuine } },
    }),
  );
  // The fake registry: `npm pack kubeforge@<v> --pack-destination <dir> ...` copies served.tgz there.
  mkdirSync(fakeBin);
  writeFileSync(
    join(fakeBin, 'npm'),
    `#!/bin/sh
echo "$*" >> ${JSON.stringify(npmLog)}
[ "$1" = pack ] || exit 1
dest=""
prev=""
for a in "$@"; do [ "$prev" = "--pack-destination" ] && dest="$a"; prev="$a"; done
cp ${JSON.stringify(served)} "$dest/kubeforge-${OLD}.tgz" && echo kubeforge-${OLD}.tgz
`,
  );
  chmodSync(join(fakeBin, 'npm'), 0o755);
});

/** The registry serves `tgz` from now on; the log is emptied. */
function serve(tgz: string): void {
  cpSync(tgz, served);
  rmSync(npmLog, { force: true });
}

describe('alpha update fetches an old kubeforge only verified', { timeout: 10 * 60_000 }, () => {
  it('init by an npm-installed kubeforge records npm integrity of it in PROJECT; one npm did not install records none', async () => {
    const dir = project();
    const config = parse(readFileSync(join(dir, 'PROJECT'), 'utf8'));
    assert.equal(config.cliVersion, OLD);
    assert.equal(config.cliIntegrity, genuine);
    const clone = join(root, 'clone-init');
    mkdirSync(clone);
    const r = await kubeforge(
      clone,
      'init',
      '--domain',
      'example.com',
      '--skip-install',
      '--kubeforge-source',
      'registry',
    );
    assert.equal(r.code, 0, r.err);
    assert.equal(parse(readFileSync(join(clone, 'PROJECT'), 'utf8')).cliIntegrity, undefined);
  });

  it('the package PROJECT records: fetched with scripts off, verified, run; the result records no stale integrity', async () => {
    serve(join(root, 'genuine.tgz'));
    const dir = project();
    const r = await kubeforge(dir, 'alpha', 'update');
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(npmCalls(), [
      `pack kubeforge@${OLD} --pack-destination ${npmCalls()[0].split(' ')[3]} --silent --ignore-scripts`,
    ]);
    assert.match(r.out, /from kubeforge 0\.0\.9 \(npm, integrity as PROJECT \(cliIntegrity\) records\)/);
    assert.match(git(dir, 'show', 'HEAD:Makefile'), /^IMG \?=/m);
    assert.doesNotMatch(git(dir, 'show', 'HEAD:Makefile'), /0\.0\.9 wrote it/);
    // This kubeforge runs from a clone (npm did not install it): the new PROJECT has no integrity, not the old one.
    const updated = parse(git(dir, 'show', 'HEAD:PROJECT'));
    assert.notEqual(updated.cliVersion, OLD);
    assert.equal(updated.cliIntegrity, undefined);
  });

  it('another package under that name and version: KF1329, never run, nothing changed', async () => {
    const hostile = join(root, 'hostile');
    cpSync(oldDir, hostile, { recursive: true, filter: (p) => !p.endsWith('node_modules') });
    writeFileSync(
      join(hostile, 'bin/kubeforge.js'),
      `#!/usr/bin/env node\nrequire('node:fs').writeFileSync(${JSON.stringify(marker)}, 'ran');\n`,
    );
    tgzOf(hostile, join(root, 'hostile.tgz'));
    serve(join(root, 'hostile.tgz'));
    const dir = project();
    const before = state(dir);
    for (const args of [[], ['--allow-unverified-cli']]) {
      const r = await kubeforge(dir, 'alpha', 'update', ...args);
      assert.equal(r.code, 1, r.err);
      assert.match(
        r.err,
        /KF1329 +kubeforge 0\.0\.9 from the registry is not the package PROJECT \(cliIntegrity\) records/,
      );
      assert.ok(r.err.includes(genuine), 'the recorded integrity is named');
      assert.equal(existsSync(marker), false, 'the hostile package never ran');
      assert.equal(state(dir), before);
    }
  });

  it('nothing recorded: the registry is not asked (KF1329) unless --allow-unverified-cli; the committed package-lock.json counts as a record', async () => {
    serve(join(root, 'genuine.tgz'));
    const bare = project((d) => {
      const p = join(d, 'PROJECT');
      writeFileSync(p, readFileSync(p, 'utf8').replace(/^cliIntegrity: .*\n/m, ''));
    });
    const before = state(bare);
    const refused = await kubeforge(bare, 'alpha', 'update');
    assert.equal(refused.code, 1);
    assert.match(
      refused.err,
      /KF1329 +kubeforge 0\.0\.9 is not in the project \(\.kubeforge\/\), and nothing recorded says what its package must be/,
    );
    assert.match(refused.err, /--allow-unverified-cli/);
    assert.deepEqual(npmCalls(), [], 'npm was not run');
    assert.equal(state(bare), before);

    const allowed = await kubeforge(bare, 'alpha', 'update', '--allow-unverified-cli');
    assert.equal(allowed.code, 0, allowed.err);
    assert.match(
      allowed.err,
      /warning: kubeforge 0\.0\.9 from the registry is run unverified \(--allow-unverified-cli\); its integrity is sha512-/,
    );

    serve(join(root, 'genuine.tgz'));
    const locked = project((d) => {
      const p = join(d, 'PROJECT');
      writeFileSync(p, readFileSync(p, 'utf8').replace(/^cliIntegrity: .*\n/m, ''));
      writeFileSync(
        join(d, 'package-lock.json'),
        JSON.stringify({
          lockfileVersion: 3,
          packages: { 'node_modules/kubeforge': { version: OLD, integrity: genuine } },
        }),
      );
    });
    const r = await kubeforge(locked, 'alpha', 'update');
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /integrity as package-lock\.json records/);
  });

  it('a cliVersion that is not an exact version is never handed to npm (a git or URL spec would be fetched and built)', async () => {
    serve(join(root, 'genuine.tgz'));
    for (const v of ['git+https://example.com/x.git', '^0.0.9', 'latest']) {
      const dir = project((d) => {
        const p = join(d, 'PROJECT');
        writeFileSync(p, readFileSync(p, 'utf8').replace(/^cliVersion: .*$/m, `cliVersion: ${JSON.stringify(v)}`));
      });
      const r = await kubeforge(dir, 'alpha', 'update', '--allow-unverified-cli');
      assert.equal(r.code, 1, v);
      // A spec with a slash reads as a path (none there); the others as what they are: not a version.
      assert.match(
        r.err,
        v.includes('/') ? /KF1323 .*no such file or folder/ : /KF1323 .*is not a version \(x\.y\.z\)/,
        v,
      );
      assert.deepEqual(npmCalls(), [], v);
    }
  });
});
