/**
 * The generated project as Kubebuilder 4.16's (issue #43 point 2): the dev container
 * (.devcontainer/devcontainer.json and its post-create script) and GitHub Actions pinned by commit.
 *
 * No container engine here: the post-create script runs in a clean shell whose PATH holds only the
 * basic tools and stand-ins for curl, npm, npx, make and sudo that record their calls and write
 * small executables, so that every command of the script runs and what it downloads is checked.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parse } from 'yaml';
import { MemoryHost } from '../../src/machinery/index.js';
import { GENERATED_VERSIONS, runInit } from '../../src/scaffolds/init.js';
import { packageRoot } from '../../src/util/package-root.js';
import { unpinned } from '../helpers/workflows.js';

const root = mkdtempSync(join(tmpdir(), 'kf-devcontainer-'));
after(() => rmSync(root, { recursive: true, force: true }));

async function scaffold(): Promise<MemoryHost> {
  const host = new MemoryHost();
  await runInit(
    { domain: 'example.com', skipInstall: true, plugins: ['autoupdate/v1-alpha'] },
    { cwd: '/projects/guestbook', host, out: () => {}, err: () => {} },
  );
  return host;
}

const text = (host: MemoryHost, path: string) => {
  const data = host.files.get(path);
  assert.ok(data, `${path} is scaffolded`);
  return data.toString('utf8');
};

describe('GitHub Actions pinned by commit', () => {
  it('every uses: of every workflow init writes (with autoupdate) is a commit SHA with its version', async () => {
    const host = await scaffold();
    const workflows = [...host.files.keys()].filter((p) => p.startsWith('.github/workflows/'));
    assert.deepEqual(workflows.sort(), [
      '.github/workflows/auto_update.yml',
      '.github/workflows/lint.yml',
      '.github/workflows/test-e2e.yml',
      '.github/workflows/test.yml',
    ]);
    for (const w of workflows) {
      const yaml = text(host, w);
      assert.doesNotThrow(() => parse(yaml), w);
      assert.ok(yaml.includes('uses:'), `${w} uses actions`);
      assert.deepEqual(unpinned(yaml), [], `${w}: unpinned actions`);
    }
  });

  it("every uses: in kubeforge's workflow templates (the helm chart's too) is pinned, to the SHAs Kubebuilder 4.16 pins", () => {
    const dir = join(packageRoot(), 'templates');
    const found: string[] = [];
    const walk = (d: string) => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        if (e.isDirectory()) walk(join(d, e.name));
        else if (/\.ya?ml\.hbs$/.test(e.name)) {
          const t = readFileSync(join(d, e.name), 'utf8');
          for (const l of t.split('\n')) if (/^\s*-?\s*uses:/.test(l)) found.push(l.trim());
          assert.deepEqual(unpinned(t), [], e.name);
        }
      }
    };
    walk(dir);
    assert.ok(found.length >= 8);
    // Kubebuilder v4.16.0's templates pin actions/checkout v6.0.2 at this commit (its github/*.go).
    for (const l of found.filter((l) => l.includes('actions/checkout@')))
      assert.equal(l, 'uses: actions/checkout@de0fac2e4500dabe0009e67214ff5f5447ce83dd # v6.0.2');
    assert.ok(!found.some((l) => l.includes('azure/setup-helm')), 'Helm is installed by its own script');
  });
});

describe('.devcontainer', () => {
  it('devcontainer.json is JSON naming a Node.js 20+ image and the post-create script init writes', async () => {
    const host = await scaffold();
    const json = JSON.parse(text(host, '.devcontainer/devcontainer.json')) as Record<string, unknown>;
    const image = String(json.image);
    const node = /typescript-node:(\d+)/.exec(image);
    assert.ok(node && Number(node[1]) >= 20, image);
    assert.equal(json.postCreateCommand, 'bash .devcontainer/post-create.sh');
    text(host, '.devcontainer/post-create.sh');
  });

  it('the post-create script runs in a clean shell: installs kubectl and kind, npm ci, make setup-envtest', async () => {
    const host = await scaffold();
    const project = join(root, 'project');
    for (const [path, data] of host.files) {
      mkdirSync(dirname(join(project, path)), { recursive: true });
      writeFileSync(join(project, path), data);
    }
    const bin = join(root, 'bin');
    const installDir = join(root, 'install');
    const home = join(root, 'home');
    const log = join(root, 'calls.log');
    for (const d of [bin, installDir, home]) mkdirSync(d, { recursive: true });
    // The basic tools a fresh image has; nothing else (kubectl and kind may be on this machine's PATH).
    for (const tool of ['bash', 'sh', 'id', 'uname', 'chmod', 'mv', 'mkdir', 'cat', 'env', 'node', 'rm', 'dirname']) {
      const found = spawnSync('bash', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim();
      if (found) symlinkSync(found, join(bin, tool));
    }
    const stub = (name: string, body: string) => {
      writeFileSync(join(bin, name), `#!/bin/bash\necho "${name} $*" >> "${log}"\n${body}\n`);
      chmodSync(join(bin, name), 0o755);
    };
    // curl: stable.txt answers a version; a download (-o <file> <url>) writes an executable that says its name.
    stub(
      'curl',
      `out=""; url=""
while [ $# -gt 0 ]; do case "$1" in -o|-fsSLo) out="$2"; shift 2;; -*) shift;; *) url="$1"; shift;; esac; done
if [ -z "$out" ]; then echo v1.35.0; exit 0; fi
printf '#!/bin/bash\\necho "%s $*"\\n' "$(basename "$out")" > "$out"`,
    );
    stub('basename', `echo "\${1##*/}"`);
    stub('npm', 'case "$1" in --version) echo 10.0.0;; esac');
    stub('npx', 'exit 1');
    stub('make', '');
    stub('sudo', '"$@"');
    const r = spawnSync(join(bin, 'bash'), ['.devcontainer/post-create.sh'], {
      cwd: project,
      env: { PATH: `${bin}:${installDir}`, HOME: home, INSTALL_DIR: installDir },
      encoding: 'utf8',
    });
    assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
    const calls = readFileSync(log, 'utf8').split('\n');
    const arch = process.arch === 'arm64' ? 'arm64' : 'amd64';
    assert.ok(
      calls.some((c) => c.includes(`https://dl.k8s.io/release/v1.35.0/bin/linux/${arch}/kubectl`)),
      calls.join('\n'),
    );
    assert.ok(calls.some((c) => c.includes(`https://kind.sigs.k8s.io/dl/latest/kind-linux-${arch}`)));
    assert.ok(calls.includes('npm ci --no-audit --no-fund'));
    assert.ok(calls.includes('make setup-envtest'));
    assert.ok(existsSync(join(installDir, 'kubectl')) && existsSync(join(installDir, 'kind')));
    assert.match(r.stdout, /kubectl version --client/);
    assert.match(r.stdout, /post-create: done/);
    // Run again: both are on PATH now and are kept.
    const again = spawnSync(join(bin, 'bash'), ['.devcontainer/post-create.sh'], {
      cwd: project,
      env: { PATH: `${bin}:${installDir}`, HOME: home, INSTALL_DIR: installDir },
      encoding: 'utf8',
    });
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stdout, /kubectl is installed/);
    assert.match(again.stdout, /kind is installed/);
  });

  it('the post-create script passes bash -n, and every make target it calls is in the Makefile', async () => {
    const host = await scaffold();
    const script = text(host, '.devcontainer/post-create.sh');
    const r = spawnSync('bash', ['-n'], { input: script, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const makefile = text(host, 'Makefile');
    for (const m of script.matchAll(/^\s*make ([\w-]+)/gm)) assert.match(makefile, new RegExp(`^${m[1]}:`, 'm'));
  });
});

describe('make lint-config', () => {
  it("runs Biome's configuration check: the scaffolded biome.json passes, one with an unknown key fails", async () => {
    const host = await scaffold();
    const makefile = text(host, 'Makefile');
    const recipe = /^lint-config:.*\n\t(.+)$/m.exec(makefile)?.[1];
    assert.equal(recipe, `npx --yes @biomejs/biome@${GENERATED_VERSIONS.biome} lint biome.json`);
    // This repository's own Biome, at the version the recipe names (no registry needed).
    const biome = join(packageRoot(), 'node_modules/.bin/biome');
    const version = spawnSync(biome, ['--version'], { encoding: 'utf8' }).stdout;
    assert.match(version, new RegExp(`\\b${GENERATED_VERSIONS.biome.replace(/\./g, '\\.')}\\b`));
    const dir = join(root, 'lint-config');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'biome.json'), text(host, 'biome.json'));
    // biome.json reads .gitignore through git, as in a project.
    writeFileSync(join(dir, '.gitignore'), text(host, '.gitignore'));
    spawnSync('git', ['init', '--quiet'], { cwd: dir });
    const ok = spawnSync(biome, ['lint', 'biome.json'], { cwd: dir, encoding: 'utf8' });
    assert.equal(ok.status, 0, ok.stdout + ok.stderr);
    const bad = JSON.parse(text(host, 'biome.json')) as Record<string, Record<string, unknown>>;
    bad.linter = { ...bad.linter, rulez: {} };
    writeFileSync(join(dir, 'biome.json'), JSON.stringify(bad));
    const fails = spawnSync(biome, ['lint', 'biome.json'], { cwd: dir, encoding: 'utf8' });
    assert.notEqual(fails.status, 0);
    assert.match(fails.stdout + fails.stderr, /unknown key `rulez`/);
  });
});
