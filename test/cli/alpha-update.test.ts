/**
 * `kubeforge alpha update` (issue #28 part 2): a project made by an EARLIER kubeforge, with the
 * user's edits in main.ts, a controller, the API types and the Makefile, upgraded to this one.
 *
 * The fixture test/fixtures/alpha-update/guestbook is what kubeforge a2987c0 (2026-11-23) wrote
 * for `init --domain example.com --project-name guestbook --kubeforge-source registry` and
 * `create api --group webapp --version v1 --kind Guestbook --resource --controller --make=false`,
 * then the user's edits (its history in this repository shows them as one commit). The old
 * kubeforge itself is built from this repository's history (test/oracle/tools.ts kubeforgeAt).
 *
 * The judge is git: the same three trees merged by a real `git merge` (ancestor commit, the user's
 * branch, the upgrade's branch; the upgrade made by init + create api of this kubeforge, not by
 * alpha generate) must give the same files, conflict markers included (only their labels differ).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { run } from '../../src/cli/index.js';
import { packageRoot, packageVersion } from '../../src/util/package-root.js';
import { kubeforgeAt } from '../oracle/tools.js';
import { treeHash } from '../helpers/tree.js';

const repo = packageRoot();
const OLD_COMMIT = 'a2987c0';
const FIXTURE = join(repo, 'test/fixtures/alpha-update/guestbook');
const VERSION = packageVersion();
const BRANCH = `kubeforge-update-from-${VERSION}-to-${VERSION}`;
const INIT = [
  'init',
  '--domain',
  'example.com',
  '--project-name',
  'guestbook',
  '--skip-install',
  '--kubeforge-source',
  'registry',
];
const CREATE_API = [
  'create',
  'api',
  '--group',
  'webapp',
  '--version',
  'v1',
  '--kind',
  'Guestbook',
  '--resource',
  '--controller',
  '--make=false',
];

const root = mkdtempSync(join(tmpdir(), 'kf-cli-update-'));
after(() => rmSync(root, { recursive: true, force: true }));
let old: string;
before(() => {
  old = kubeforgeAt(OLD_COMMIT, repo);
});

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
  const r = spawnSync(
    'git',
    [
      '-c',
      'user.name=test',
      '-c',
      'user.email=test@example.com',
      '-c',
      'init.defaultBranch=main',
      '-c',
      'commit.gpgsign=false',
      ...args,
    ],
    { cwd, encoding: 'utf8' },
  );
  assert.equal(r.status, 0, `git ${args.join(' ')}:\n${r.stdout}${r.stderr}`);
  return r.stdout.trim();
}

/** A git repository holding a copy of `from`, committed on main. */
function repoOf(from: string, name: string): string {
  const dir = join(root, name);
  cpSync(from, dir, { recursive: true });
  git(dir, 'init', '--quiet');
  git(dir, 'config', 'user.name', 'test');
  git(dir, 'config', 'user.email', 'test@example.com');
  git(dir, 'add', '-A');
  git(dir, 'commit', '--quiet', '-m', 'the user project');
  return dir;
}

function files(dir: string, under = ''): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(dir, under)).sort()) {
    if (!under && ['.git', 'node_modules', 'build'].includes(name)) continue;
    const rel = under ? `${under}/${name}` : name;
    if (statSync(join(dir, rel)).isDirectory()) out.push(...files(dir, rel));
    else out.push(rel);
  }
  return out;
}

/** A CLI (`bin`) run in `dir`: exits 0. */
function cli(bin: string, dir: string, args: string[]) {
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: dir, encoding: 'utf8' });
  assert.equal(r.status, 0, `${bin} ${args.join(' ')}:\n${r.stdout}${r.stderr}`);
}

/** The two commands that made the fixture, run by the kubeforge at `pkg` into a new folder. */
function scaffold(pkg: string, name: string): string {
  const dir = join(root, name);
  mkdirSync(dir);
  cli(join(pkg, 'bin/kubeforge.js'), dir, INIT);
  cli(join(pkg, 'bin/kubeforge.js'), dir, CREATE_API);
  return dir;
}

const read = (dir: string, f: string) => readFileSync(join(dir, f), 'utf8');
/** Conflict markers without their labels (git names the sides after its branches, alpha update after the versions). */
const unlabelled = (text: string) => text.replace(/^(<<<<<<<|>>>>>>>|\|\|\|\|\|\|\|) .*$/gm, '$1');

describe('kubeforge alpha update', () => {
  it(`upgrades a project made by kubeforge ${OLD_COMMIT}: user edits kept, scaffold changes applied, the overlap marked and listed; as git merge does`, async () => {
    // The fixture is the old scaffold plus the user's edits: the old kubeforge writes the rest byte for byte.
    const ancestor = scaffold(old, 'ancestor');
    const edited = [
      'Makefile',
      'src/api/v1/guestbook_types.ts',
      'src/controller/guestbook_controller.ts',
      'src/main.ts',
    ];
    assert.deepEqual(files(FIXTURE), files(ancestor));
    for (const f of files(FIXTURE)) {
      if (edited.includes(f)) assert.notEqual(read(FIXTURE, f), read(ancestor, f), `${f} carries the user's edit`);
      else assert.equal(read(FIXTURE, f), read(ancestor, f), `${f} is as kubeforge ${OLD_COMMIT} scaffolded it`);
    }

    const project = repoOf(FIXTURE, 'project');
    const before = git(project, 'rev-parse', 'HEAD');
    const r = await kubeforge(project, 'alpha', 'update', '--from-version', old);
    // One conflict: the Makefile's `test` target line, which both the user and the new scaffold reworded.
    assert.equal(r.code, 1, r.out + r.err);
    assert.match(r.out, /Conflicts \(1\):\n {2}Makefile\n/);
    assert.match(r.err, /Makefile:\d+ {2}KF1326 {2}Makefile: your changes and kubeforge .*'s overlap/);
    assert.match(r.err, /KF1326 {2}1 file needs your merge; the result is in branch kubeforge-update-from-/);
    assert.match(
      r.err,
      /Scaffolding the ancestor with kubeforge .*\nScaffolding the upgrade with kubeforge .*\nMerging\.\.\./,
      'progress on stderr',
    );
    // The user's branch is untouched; the result waits on the new branch, not committed.
    assert.equal(git(project, 'rev-parse', 'main'), before);
    assert.equal(git(project, 'rev-parse', '--abbrev-ref', 'HEAD'), BRANCH);
    assert.equal(git(project, 'rev-parse', 'HEAD'), before);

    // The user's edits are kept.
    assert.match(read(project, 'src/main.ts'), /setupLog\.info\(`guestbook operator, watching/);
    assert.match(
      read(project, 'src/controller/guestbook_controller.ts'),
      /const owner = guestbook\.metadata\?\.labels\?\.\['example\.com\/owner'\]/,
    );
    assert.match(read(project, 'src/api/v1/guestbook_types.ts'), /\n {2}size\?: number;\n/);
    assert.match(read(project, 'Makefile'), /\nseed: ## Create the sample Guestbook/);
    // The new scaffold's changes are applied, in files the user edited and in others.
    const upgrade = scaffold(repo, 'upgrade');
    assert.match(read(project, 'Makefile'), /\ndocs: manifests ##/);
    assert.match(read(project, 'Makefile'), /\ntest-unit: manifests ##/);
    // The test runner the old kubeforge wrote into the project (hack/test.mjs) is gone, unedited;
    // the scripts run the one kubeforge ships.
    assert.ok(existsSync(join(FIXTURE, 'hack/test.mjs')) && !existsSync(join(project, 'hack/test.mjs')));
    const scripts = JSON.parse(read(project, 'package.json')).scripts;
    assert.equal(scripts.test, 'npm run build && c8 kubeforge test');
    assert.equal(scripts['test:unit'], 'npm run build && kubeforge test --unit');
    assert.equal(scripts['test:e2e'], 'npm run build && kubeforge test build/test/e2e/manager.e2e.js');
    assert.notEqual(
      read(project, 'src/api/v1/guestbook_types.ts'),
      read(FIXTURE, 'src/api/v1/guestbook_types.ts'),
      "the types file took the new scaffold's changes",
    );
    for (const f of files(upgrade).filter((f) => !edited.includes(f)))
      assert.equal(read(project, f), read(upgrade, f), `${f}: unedited, so as this kubeforge scaffolds it`);
    assert.match(read(project, 'PROJECT'), new RegExp(`\ncliVersion: ${VERSION.replace(/\./g, '\\.')}\n`));
    // The overlap, marked as git marks it.
    const makefile = read(project, 'Makefile');
    assert.match(
      makefile,
      /\n<<<<<<< original \(main\):Makefile\ntest: manifests ## Run the tests against a real kube-apiserver and etcd; our CI runs this target on every pull request\.\n=======\ntest: manifests ## .*\n>>>>>>> upgrade \(kubeforge [^)]*\):Makefile\n/,
    );

    // git merge of the same three trees gives the same files.
    const oracle = join(root, 'git-merge');
    mkdirSync(oracle);
    git(oracle, 'init', '--quiet');
    git(oracle, 'config', 'user.name', 'test');
    git(oracle, 'config', 'user.email', 'test@example.com');
    const commitTree = (from: string, message: string) => {
      for (const f of files(oracle)) rmSync(join(oracle, f));
      cpSync(from, oracle, { recursive: true });
      git(oracle, 'add', '-A');
      git(oracle, 'commit', '--quiet', '--allow-empty', '-m', message);
    };
    commitTree(ancestor, 'ancestor');
    git(oracle, 'checkout', '--quiet', '-b', 'upgrade');
    commitTree(upgrade, 'upgrade');
    git(oracle, 'checkout', '--quiet', '-b', 'original', 'main');
    commitTree(FIXTURE, 'original');
    const merge = spawnSync('git', ['merge', '--no-edit', 'upgrade'], { cwd: oracle, encoding: 'utf8' });
    assert.equal(merge.status, 1, `git merge reports the conflict:\n${merge.stdout}`);
    assert.equal(git(oracle, 'diff', '--name-only', '--diff-filter=U'), 'Makefile');
    assert.deepEqual(files(project), files(oracle));
    for (const f of files(oracle))
      assert.equal(unlabelled(read(project, f)), unlabelled(read(oracle, f)), `${f}: as git merge merges it`);

    // The TypeScript has no conflict: the project builds (its dependencies: this checkout's, kubeforge itself as this repository).
    mkdirSync(join(project, 'node_modules'));
    for (const name of readdirSync(join(repo, 'node_modules')))
      if (name !== 'kubeforge') symlinkSync(join(repo, 'node_modules', name), join(project, 'node_modules', name));
    symlinkSync(repo, join(project, 'node_modules', 'kubeforge'));
    const tsc = spawnSync(process.execPath, [join(repo, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], {
      cwd: project,
      encoding: 'utf8',
    });
    assert.equal(tsc.status, 0, `tsc:\n${tsc.stdout}${tsc.stderr}`);
    rmSync(join(project, 'node_modules'), { recursive: true });
    rmSync(join(project, 'build'), { recursive: true, force: true });
  });

  it(`upgrades testdata/project as this repository had it at ${OLD_COMMIT} (the book's code over that scaffold) to today's, but where the book's code and the scaffold both changed`, async () => {
    const dir = join(root, 'book');
    mkdirSync(dir);
    const archive = spawnSync('git', ['-C', repo, 'archive', '--format=tar', OLD_COMMIT, 'testdata/project'], {
      maxBuffer: 256 * 1024 * 1024,
    });
    assert.equal(archive.status, 0, archive.stderr?.toString());
    assert.equal(spawnSync('tar', ['-x', '-C', dir, '--strip-components=2'], { input: archive.stdout }).status, 0);
    git(dir, 'init', '--quiet');
    git(dir, 'add', '-A');
    git(dir, 'commit', '--quiet', '-m', `testdata/project at ${OLD_COMMIT}`);
    const r = await kubeforge(dir, 'alpha', 'update', '--from-version', old);
    assert.equal(r.code, 1, r.out + r.err);
    // The book's doc comments on the types and the tests' headers reword lines the scaffold reworded
    // too; the controller's and the webhook's import lines, where the book imports more than the
    // scaffold, name the manager's type (ControllerManagerLike then, Manager now). package.json: the
    // book's cron-parser and the scaffold's OpenTelemetry packages (issue #42) are both inserted
    // between @kubernetes/client-node and kubeforge.
    const conflicts = [
      'package.json',
      'src/api/v1/cronjob_types.ts',
      'src/api/v2/cronjob_types.ts',
      'src/controller/cronjob_controller.ts',
      'src/webhook/v1/cronjob_webhook.ts',
      'test/controller/cronjob_controller.test.ts',
      'test/webhook/v1/cronjob_webhook.test.ts',
    ];
    assert.match(
      r.out,
      new RegExp(
        `Conflicts \\(${conflicts.length}\\):\n${conflicts.map((c) => `  ${c.replace(/\./g, '\\.')}\n`).join('')}`,
      ),
    );
    // Every other file is today's testdata/project, but the book's own code that changed since
    // (testdata/overlay) and the CRDs `manifests` writes from the types.
    const overlayChanged = git(repo, 'diff', '--name-only', OLD_COMMIT, 'HEAD', '--', 'testdata/overlay')
      .split('\n')
      .map((f) => f.replace('testdata/overlay/', ''));
    const today = git(repo, 'ls-files', '--', 'testdata/project')
      .split('\n')
      .map((f) => f.replace('testdata/project/', ''));
    // The book's controller test, <kind>_controller.test.ts, is one the scaffold no longer writes
    // (one body for both tiers, cronjob_controller.both.test.ts, now): edited by the user, it is
    // kept (a listed conflict), beside the new file.
    const kept = 'test/controller/cronjob_controller.test.ts';
    assert.deepEqual(
      files(dir),
      today.flatMap((f) => (f === 'test/controller/cronjob_controller.both.test.ts' ? [f, kept] : [f])),
    );
    assert.equal(
      read(dir, kept).trimEnd(),
      git(repo, 'show', `${OLD_COMMIT}:testdata/project/${kept}`).trimEnd(),
      `${kept}: the user's`,
    );
    const compared = today.filter(
      (f) => !conflicts.includes(f) && !overlayChanged.includes(f) && !f.startsWith('config/crd/bases/'),
    );
    assert.ok(compared.length > 60, `${compared.length} files compared`);
    for (const f of compared)
      assert.equal(read(dir, f), read(join(repo, 'testdata/project'), f), `${f}: as in today's testdata/project`);
  });

  it('a hack/test.mjs the user edited is kept, with a warning; the scripts run kubeforge test all the same', async () => {
    const project = repoOf(FIXTURE, 'edited-runner');
    writeFileSync(join(project, 'hack/test.mjs'), `${read(project, 'hack/test.mjs')}// my own change\n`);
    git(project, 'commit', '--quiet', '-am', 'my change to the test runner');
    const r = await kubeforge(project, 'alpha', 'update', '--from-version', old, '--force');
    assert.equal(r.code, 0, r.out + r.err);
    assert.match(
      r.err,
      /KF1326 {2}hack\/test\.mjs: you changed it and kubeforge .* no longer scaffolds it; kept as yours/,
    );
    assert.match(read(project, 'hack/test.mjs'), /\/\/ my own change\n$/);
    assert.equal(JSON.parse(read(project, 'package.json')).scripts.test, 'npm run build && c8 kubeforge test');
  });

  it(`deploy-image Kinds of a project made by kubeforge ${OLD_COMMIT}: their one both-tier test replaces the real-server one, which is removed unedited and kept edited`, async () => {
    // What that kubeforge wrote for two deploy-image Kinds: a controller test each, on the real
    // server alone (<kind>_controller.test.ts); today's writes <kind>_controller.both.test.ts.
    const deployImage = (kind: string, image: string) => [
      'create',
      'api',
      '--group',
      'cache',
      '--version',
      'v1alpha1',
      '--kind',
      kind,
      '--plugins',
      'deploy-image/v1-alpha',
      '--image',
      image,
      '--make=false',
    ];
    const made = (pkg: string, name: string) => {
      const dir = join(root, name);
      mkdirSync(dir);
      for (const args of [INIT, deployImage('Memcached', 'memcached:1.6'), deployImage('Busybox', 'busybox:1.36')])
        cli(join(pkg, 'bin/kubeforge.js'), dir, args);
      return dir;
    };
    const project = repoOf(made(old, 'deploy-image-old'), 'deploy-image');
    const tests = (dir: string) => files(dir).filter((f) => f.startsWith('test/controller/'));
    assert.deepEqual(tests(project), [
      'test/controller/busybox_controller.test.ts',
      'test/controller/memcached_controller.test.ts',
    ]);
    // The user edits Busybox's test, not Memcached's.
    const edited = 'test/controller/busybox_controller.test.ts';
    writeFileSync(join(project, edited), `${read(project, edited)}// my own check\n`);
    git(project, 'commit', '--quiet', '-am', 'my change to the Busybox test');

    const r = await kubeforge(project, 'alpha', 'update', '--from-version', old);
    assert.equal(r.code, 1, r.out + r.err);
    assert.match(r.out, /Conflicts \(1\):\n {2}test\/controller\/busybox_controller\.test\.ts\n/);
    assert.match(
      r.err,
      /KF1326 {2}test\/controller\/busybox_controller\.test\.ts: you changed it and kubeforge .* no longer scaffolds it; kept as yours/,
    );
    const upgrade = made(repo, 'deploy-image-upgrade');
    assert.deepEqual(tests(upgrade), [
      'test/controller/busybox_controller.both.test.ts',
      'test/controller/memcached_controller.both.test.ts',
    ]);
    // Memcached's unedited test is gone; Busybox's edited one stays, the user's, beside the new file.
    assert.deepEqual(tests(project), [...tests(upgrade), edited].sort());
    assert.match(read(project, edited), /\/\/ my own check\n$/);
    for (const f of tests(upgrade))
      assert.equal(read(project, f), read(upgrade, f), `${f}: as this kubeforge scaffolds it`);
  });

  it("migrates the user's own code to today's API (names moved out of the runtime root, renamed types and options) and lists it", async () => {
    const project = repoOf(FIXTURE, 'migrated');
    const mine = 'src/controller/extra.ts';
    writeFileSync(
      join(project, mine),
      "import { controllerManagedBy, type ControllerManagerLike, enqueueRequestForOwner, mergePatch } from 'kubeforge/runtime';\n\n" +
        'export function setupExtra(mgr: ControllerManagerLike): void {\n' +
        '  void enqueueRequestForOwner;\n  void mergePatch;\n' +
        '  controllerManagedBy(mgr).withOptions({ reconciliationTimeout: 5000 }).complete(() => undefined);\n}\n',
    );
    git(project, 'add', '-A');
    git(project, 'commit', '--quiet', '-m', 'a controller of my own, on the old API');
    const r = await kubeforge(project, 'alpha', 'update', '--from-version', old, '--force');
    assert.equal(r.code, 0, r.out + r.err);
    assert.match(r.out, /Your code, migrated to kubeforge .*'s API \(1 file\):\n {2}src\/controller\/extra\.ts: /);
    assert.match(r.out, /moved enqueueRequestForOwner to kubeforge\/runtime\/controller/);
    const text = read(project, mine);
    assert.match(
      text,
      /^import \{ controllerManagedBy, type Manager as ControllerManagerLike \} from 'kubeforge\/runtime';$/m,
    );
    assert.match(text, /^import \{ mergePatch \} from 'kubeforge\/runtime\/client';$/m);
    assert.match(text, /^import \{ enqueueRequestForOwner \} from 'kubeforge\/runtime\/controller';$/m);
    assert.match(text, /withOptions\(\{ reconciliationTimeoutMs: 5000 \}\)/);
  });

  it('--force commits the result, markers and all, and lists the conflicts; --restore-path keeps a file as the user has it', async () => {
    const forced = repoOf(FIXTURE, 'forced');
    const r = await kubeforge(
      forced,
      'alpha',
      'update',
      '--from-version',
      old,
      '--force',
      '--output-branch',
      'upgrade-kubeforge',
    );
    assert.equal(r.code, 0, r.out + r.err);
    assert.match(r.out, /on branch upgrade-kubeforge \(committed\)/);
    assert.match(r.err, /Makefile:\d+ {2}warning KF1326|Makefile:\d+ {2}KF1326/);
    assert.equal(git(forced, 'status', '--porcelain'), '');
    assert.match(git(forced, 'log', '-1', '--format=%B'), /Conflicts \(markers committed, --force\):\n {2}Makefile/);
    assert.match(git(forced, 'show', 'HEAD:Makefile'), /^<<<<<<< original \(main\):Makefile$/m);
    assert.equal(git(forced, 'rev-list', '--count', 'main..upgrade-kubeforge'), '1');

    const restored = repoOf(FIXTURE, 'restored');
    const k = await kubeforge(restored, 'alpha', 'update', '--from-version', old, '--restore-path', 'Makefile');
    assert.equal(k.code, 0, k.out + k.err);
    assert.equal(read(restored, 'Makefile'), read(FIXTURE, 'Makefile'));
    assert.equal(git(restored, 'status', '--porcelain'), '');
    assert.doesNotMatch(k.out, /Conflicts/);
  });

  it('--in-place writes the result into the work tree of the current branch, nothing committed', async () => {
    const dir = repoOf(FIXTURE, 'in-place');
    const head = git(dir, 'rev-parse', 'HEAD');
    const r = await kubeforge(
      dir,
      'alpha',
      'update',
      '--from-version',
      old,
      '--in-place',
      '--restore-path',
      'Makefile',
    );
    assert.equal(r.code, 0, r.out + r.err);
    assert.match(r.out, /on the work tree \(not committed\)/);
    assert.equal(git(dir, 'rev-parse', '--abbrev-ref', 'HEAD'), 'main');
    assert.equal(git(dir, 'rev-parse', 'HEAD'), head);
    assert.match(git(dir, 'status', '--porcelain'), / M src\/api\/v1\/guestbook_types\.ts/);
    assert.equal(git(dir, 'branch', '--list', 'kubeforge-update-*'), '');
  });

  it(`carries the manifests options a project made by kubeforge ${OLD_COMMIT} passes in its package.json script into PROJECT: the same manifests`, async () => {
    const made = scaffold(old, 'maxdesc-old');
    // `kubeforge manifests --max-desc-len 0` as that kubeforge recorded it: a flag of the manifests script.
    writeFileSync(
      join(made, 'package.json'),
      read(made, 'package.json').replace('"kubeforge manifests"', '"kubeforge manifests --max-desc-len 0"'),
    );
    const CRD = 'config/crd/bases/webapp.example.com_guestbooks.yaml';
    /** `kubeforge manifests` in `dir` (this checkout's dependencies linked for the run): the CRD it writes. */
    const manifests = async (dir: string) => {
      mkdirSync(join(dir, 'node_modules'));
      for (const name of ['@kubernetes', '@types'])
        symlinkSync(join(repo, 'node_modules', name), join(dir, 'node_modules', name));
      symlinkSync(repo, join(dir, 'node_modules', 'kubeforge'));
      try {
        const r = await kubeforge(dir, 'manifests', '--generator-version', 'test');
        assert.equal(r.code, 0, r.out + r.err);
        assert.doesNotMatch(r.out, /PROJECT|package\.json/, 'a plain run records nothing');
        return read(dir, CRD);
      } finally {
        rmSync(join(dir, 'node_modules'), { recursive: true });
      }
    };
    const copy = join(root, 'maxdesc-before');
    cpSync(made, copy, { recursive: true });
    const before = await manifests(copy);
    assert.doesNotMatch(before, /description:/, "the old project's script flag is read");

    const project = repoOf(made, 'maxdesc-repo');
    const r = await kubeforge(project, 'alpha', 'update', '--from-version', old, '--force');
    assert.equal(r.code, 0, r.out + r.err);
    assert.equal(git(project, 'rev-parse', '--abbrev-ref', 'HEAD'), BRANCH);
    // The option moved: PROJECT records it, the script is the plain one this kubeforge scaffolds.
    assert.match(read(project, 'PROJECT'), /\n {2}manifests\.kubeforge\.io\/v1-alpha:\n {4}maxDescLen: 0\n/);
    assert.match(read(project, 'package.json'), /"manifests": "kubeforge manifests",/);
    // The new scaffold's types file reworded its comments: without the option they would show.
    assert.notEqual(read(project, 'src/api/v1/guestbook_types.ts'), read(made, 'src/api/v1/guestbook_types.ts'));
    assert.equal(await manifests(project), before);
  });

  it('a project this kubeforge made records its cliVersion, and has nothing to update', async () => {
    const made = scaffold(repo, 'current');
    assert.match(read(made, 'PROJECT'), new RegExp(`\ncliVersion: ${VERSION.replace(/\./g, '\\.')}\n`));
    const dir = repoOf(made, 'current-repo');
    const r = await kubeforge(dir, 'alpha', 'update');
    assert.equal(r.code, 0, r.out + r.err);
    assert.match(r.out, /Nothing to update/);
    assert.equal(git(dir, 'branch', '--list'), '* main');
  });

  it('refuses, located, with a code and a hint, and changes nothing: no git, a dirty tree, no cliVersion, a missing kubeforge, an existing branch', async () => {
    // Not a git repository.
    const plain = join(root, 'plain');
    cpSync(FIXTURE, plain, { recursive: true });
    let hash = treeHash(plain);
    let r = await kubeforge(plain, 'alpha', 'update', '--from-version', old);
    assert.equal(r.code, 1);
    assert.match(r.err, /KF1320 {2}.* is not in a git repository[\s\S]*hint: .*git init/);
    assert.equal(treeHash(plain), hash);

    const dir = repoOf(FIXTURE, 'refusals');
    // Uncommitted and untracked work.
    writeFileSync(join(dir, 'src/main.ts'), `${read(dir, 'src/main.ts')}// not committed\n`);
    writeFileSync(join(dir, 'notes.txt'), 'mine\n');
    hash = treeHash(dir, ['.git']);
    r = await kubeforge(dir, 'alpha', 'update', '--from-version', old);
    assert.equal(r.code, 1);
    assert.match(
      r.err,
      /KF1321 {2}the work tree has changes that are not committed \(src\/main\.ts, notes\.txt\)[\s\S]*hint: commit or stash them first/,
    );
    assert.equal(treeHash(dir, ['.git']), hash);
    git(dir, 'checkout', '--quiet', '--', '.');
    rmSync(join(dir, 'notes.txt'));

    // The fixture's PROJECT predates cliVersion.
    r = await kubeforge(dir, 'alpha', 'update');
    assert.equal(r.code, 1);
    assert.match(
      r.err,
      /PROJECT:1 {2}KF1322 {2}PROJECT does not record the kubeforge version[\s\S]*hint: pass --from-version/,
    );

    // A kubeforge that is not there, or not a kubeforge.
    r = await kubeforge(dir, 'alpha', 'update', '--from-version', './no/such/kubeforge');
    assert.match(r.err, /KF1323 {2}--from-version \.\/no\/such\/kubeforge: no such file or folder/);
    r = await kubeforge(dir, 'alpha', 'update', '--from-version', join(dir, 'src'));
    assert.match(r.err, /KF1323 {2}--from-version .*: not a kubeforge package/);
    r = await kubeforge(dir, 'alpha', 'update', '--from-version', old, '--from-branch', 'nope');
    assert.match(r.err, /KF1325 {2}--from-branch nope: no such branch/);

    // The output branch exists already.
    git(dir, 'branch', BRANCH);
    r = await kubeforge(dir, 'alpha', 'update', '--from-version', old);
    assert.equal(r.code, 1);
    assert.match(r.err, new RegExp(`KF1325 {2}branch ${BRANCH} already exists[\\s\\S]*hint: delete it`));
    assert.equal(git(dir, 'rev-parse', '--abbrev-ref', 'HEAD'), 'main');
    assert.equal(git(dir, 'status', '--porcelain'), '');
  });

  it('a file the user deleted stays deleted; one the new scaffold changed too is a listed conflict, as git merge calls it', async () => {
    const dir = repoOf(FIXTURE, 'deleted');
    git(dir, 'rm', '--quiet', 'AGENTS.md', '.dockerignore');
    git(dir, 'commit', '--quiet', '-m', 'we keep neither');
    const r = await kubeforge(dir, 'alpha', 'update', '--from-version', old, '--force', '--restore-path', 'Makefile');
    assert.equal(r.code, 0, r.out + r.err);
    assert.match(r.out, /Conflicts \(1\):\n {2}AGENTS\.md\n/);
    assert.match(
      r.err,
      /AGENTS\.md {2}KF1326 {2}AGENTS\.md: you deleted it and kubeforge \S+ changed it; left deleted/,
    );
    assert.equal(existsSync(join(dir, 'AGENTS.md')), false);
    assert.equal(existsSync(join(dir, '.dockerignore')), false);
  });

  it('a project in a sub-folder of its repository: the other folders are left alone', async () => {
    const top = join(root, 'mono');
    mkdirSync(join(top, 'ops'), { recursive: true });
    cpSync(FIXTURE, join(top, 'ops/guestbook'), { recursive: true });
    writeFileSync(join(top, 'README.md'), 'the monorepo\n');
    git(top, 'init', '--quiet');
    git(top, 'add', '-A');
    git(top, 'commit', '--quiet', '-m', 'monorepo');
    const project = join(top, 'ops/guestbook');
    const r = await kubeforge(project, 'alpha', 'update', '--from-version', old, '--restore-path', 'Makefile');
    assert.equal(r.code, 0, r.out + r.err);
    const changed = git(top, 'diff', '--name-only', 'main', 'HEAD').split('\n');
    assert.ok(changed.length > 3 && changed.every((f) => f.startsWith('ops/guestbook/')), changed.join(', '));
    assert.ok(changed.includes('ops/guestbook/src/api/v1/guestbook_types.ts'));
    assert.match(read(project, 'src/api/v1/guestbook_types.ts'), /\n {2}size\?: number;\n/);
  });

  it('--from-branch merges the project of another branch, leaving the current one alone', async () => {
    const dir = repoOf(FIXTURE, 'from-branch');
    git(dir, 'checkout', '--quiet', '-b', 'other');
    writeFileSync(join(dir, 'scratch.txt'), 'another branch\n');
    git(dir, 'add', '-A');
    git(dir, 'commit', '--quiet', '-m', 'other');
    const r = await kubeforge(
      dir,
      'alpha',
      'update',
      '--from-version',
      old,
      '--from-branch',
      'main',
      '--restore-path',
      'Makefile',
    );
    assert.equal(r.code, 0, r.out + r.err);
    assert.equal(git(dir, 'rev-parse', `${BRANCH}^`), git(dir, 'rev-parse', 'main'));
    assert.equal(existsSync(join(dir, 'scratch.txt')), false, "the result is main's project, not other's");
  });
});
