/**
 * `kubeforge init` through the CLI: every invalid input exits 1 with a clear message and
 * leaves the folder exactly as it was; --dry-run writes nothing; a second --force run is empty.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { packageRoot } from '../../src/util/package-root.js';
import { after, describe, it } from 'node:test';
import { run } from '../../src/cli/index.js';
import { snapshot } from '../helpers/tree.js';

const roots: string[] = [];
after(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

function folder(name = 'guestbook', files: Record<string, string> = {}): string {
  const root = mkdtempSync(join(tmpdir(), 'kf-cli-init-'));
  roots.push(root);
  const dir = join(root, name);
  mkdirSync(dir);
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(join(dir, p, '..'), { recursive: true });
    writeFileSync(join(dir, p), text);
  }
  return dir;
}

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

/** Runs init with bad input and checks exit 1, the message, and the folder untouched. */
async function rejects(dir: string, args: string[], ...expected: RegExp[]) {
  const before = snapshot(dir);
  const r = await kubeforge(dir, 'init', '--skip-install', ...args);
  assert.equal(r.code, 1, `exit code (stderr: ${r.err})`);
  for (const e of expected) assert.match(r.err, e);
  assert.equal(r.out, '', 'no plan printed');
  assert.deepEqual(snapshot(dir), before, 'folder unchanged');
  return r;
}

describe('kubeforge init: bad input', () => {
  it('missing --domain', async () => {
    await rejects(folder(), [], /KF1000 {2}missing --domain/, /hint: pass --domain, e\.g\. --domain example\.com/);
  });

  it('a domain with upper case names the rule and a valid example', async () => {
    await rejects(
      folder(),
      ['--domain', 'Example.com'],
      /KF1001 {2}invalid domain "Example\.com": a DNS-1123 subdomain must consist of lower-case letters, digits, '-' and '\.'; found upper-case "E" at position 1/,
      /hint: --domain needs a DNS-1123 subdomain such as "example\.com"/,
    );
  });

  it('a domain starting with a dash', async () => {
    await rejects(folder(), ['--domain', '-example.com'], /must start and end with a letter or digit/);
  });

  it('an invalid --project-name', async () => {
    await rejects(
      folder(),
      ['--domain', 'example.com', '--project-name', 'My_Operator'],
      /invalid project name "My_Operator": a DNS-1123 label/,
      /"my-operator"/,
    );
  });

  it('a folder name that is no DNS-1123 label asks for --project-name', async () => {
    await rejects(
      folder('My_Project'),
      ['--domain', 'example.com'],
      /the folder name "My_Project" cannot be the project name/,
      /hint: pass --project-name/,
    );
  });

  it('an invalid --package-name', async () => {
    await rejects(
      folder(),
      ['--domain', 'example.com', '--package-name', 'Guest Book'],
      /invalid npm package name "Guest Book": must be lower case/,
    );
  });

  it('an unknown --license', async () => {
    await rejects(
      folder(),
      ['--domain', 'example.com', '--license', 'mit'],
      /argument 'mit' is invalid\. Allowed choices are apache2, none/,
    );
  });

  it('all flag problems at once', async () => {
    const r = await rejects(
      folder(),
      ['--domain', 'BAD', '--project-name', 'x.y'],
      /invalid domain/,
      /invalid project name/,
    );
    assert.match(r.err, /2 errors/);
  });

  it('an existing PROJECT file', async () => {
    await rejects(
      folder('guestbook', { PROJECT: 'domain: example.com\n' }),
      ['--domain', 'example.com'],
      /KF1002 {2}.*PROJECT exists: this folder already holds a kubeforge \(or Kubebuilder\) project/,
    );
  });

  it('a non-empty folder without --force', async () => {
    await rejects(
      folder('guestbook', { 'notes.txt': 'mine\n', 'src/x.ts': '' }),
      ['--domain', 'example.com'],
      /KF1003 {2}.*guestbook is not empty \(notes\.txt, src\)/,
      /--force/,
    );
  });

  it('an unwritable path (a file where config/ must go) fails before writing anything', async () => {
    await rejects(
      folder('guestbook', { config: 'not a folder\n' }),
      ['--domain', 'example.com', '--force'],
      /KF1101 {2}cannot create config\/default\/kustomization\.yaml: .*config is a file/,
      /nothing was written/,
    );
  });

  it('a folder on a read-only file system', async (t) => {
    // /proc refuses new files even to root, which access(W_OK) does not tell.
    const dir = '/proc/self/fdinfo';
    try {
      statSync(dir);
    } catch {
      t.skip('no /proc');
      return;
    }
    const r = await kubeforge(
      dir,
      'init',
      '--skip-install',
      '--force',
      '--domain',
      'example.com',
      '--project-name',
      'x',
    );
    assert.equal(r.code, 1);
    assert.match(r.err, /KF1101 {2}cannot create .*is not writable/);
  });

  it('a --kubeforge-source tarball that does not exist', async () => {
    await rejects(
      folder(),
      ['--domain', 'example.com', '--kubeforge-source', 'nope/kubeforge-9.9.9.tgz'],
      /KF1022 {2}--kubeforge-source: no tarball at .*nope\/kubeforge-9\.9\.9\.tgz/,
    );
  });

  it('an unknown --kubeforge-source', async () => {
    await rejects(
      folder(),
      ['--domain', 'example.com', '--kubeforge-source', 'git'],
      /KF1023 {2}--kubeforge-source: unknown value "git"/,
    );
  });
});

describe('kubeforge init: writing', () => {
  it('--dry-run prints the sorted plan and writes nothing', async () => {
    const dir = folder();
    const r = await kubeforge(dir, 'init', '--domain', 'example.com', '--dry-run');
    assert.equal(r.code, 0, r.err);
    const lines = r.out.trim().split('\n');
    assert.ok(lines.length > 40);
    assert.ok(
      lines.every((l) => /^CREATE \S+ \((\+\d+ lines?|binary, .+)\)$/.test(l)),
      r.out,
    );
    assert.deepEqual([...lines].sort(), lines);
    assert.ok(lines.includes('CREATE PROJECT (+10 lines)'));
    assert.deepEqual(readdirSync(dir), []);
  });

  it('writes the project, and a second run with --force and the same flags changes nothing', async () => {
    const dir = folder();
    const first = await kubeforge(dir, 'init', '--domain', 'example.com', '--skip-install');
    assert.equal(first.code, 0, first.err);
    assert.match(first.out, /^CREATE \.devcontainer\/devcontainer\.json/);
    assert.match(first.err, /Skipped npm install \(--skip-install\)/);
    assert.ok(statSync(join(dir, 'src/main.ts')).isFile());
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      name: string;
      dependencies: Record<string, string>;
    };
    assert.equal(pkg.name, 'guestbook');
    assert.match(pkg.dependencies.kubeforge, /^file:\.kubeforge\/kubeforge-\d+\.\d+\.\d+.*-[0-9a-f]{8}\.tgz$/);
    assert.ok(statSync(join(dir, pkg.dependencies.kubeforge.slice(5))).size > 10_000);
    const before = snapshot(dir);
    const second = await kubeforge(dir, 'init', '--domain', 'example.com', '--skip-install', '--force');
    assert.equal(second.code, 0, second.err);
    assert.equal(second.out, 'Nothing to change.\n');
    assert.deepEqual(snapshot(dir), before);
    // A changed user file is replaced only with --force, and shows as UPDATE.
    writeFileSync(join(dir, 'Makefile'), 'mine\n');
    const dry = await kubeforge(dir, 'init', '--domain', 'example.com', '--force', '--dry-run');
    assert.match(dry.out, /^UPDATE Makefile \(\+\d+ -1 lines\)$/m);
    assert.match(dry.err, /^warning: --force would replace 1 existing file that differed: Makefile$/m);
    assert.equal(readFileSync(join(dir, 'Makefile'), 'utf8'), 'mine\n');
    const forced = await kubeforge(dir, 'init', '--domain', 'example.com', '--force', '--skip-install');
    assert.match(forced.err, /^warning: --force replaced 1 existing file that differed: Makefile$/m);
    assert.notEqual(readFileSync(join(dir, 'Makefile'), 'utf8'), 'mine\n');
  });

  it('a folder holding only .git counts as empty', async () => {
    const dir = folder('guestbook', { '.git/HEAD': 'ref: refs/heads/main\n' });
    const r = await kubeforge(dir, 'init', '--domain', 'example.com', '--skip-install');
    assert.equal(r.code, 0, r.err);
    assert.ok(statSync(join(dir, 'PROJECT')).isFile());
    assert.equal(readFileSync(join(dir, '.git/HEAD'), 'utf8'), 'ref: refs/heads/main\n');
  });

  it('colours the plan only when the context asks for colour', async () => {
    const dir = folder();
    let out = '';
    const code = await run(['node', 'kubeforge', 'init', '--domain', 'example.com', '--dry-run'], {
      cwd: dir,
      color: true,
      out: (t) => {
        out += t;
      },
      err: () => {},
    });
    assert.equal(code, 0);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the terminal's colour escape is what this asserts
    assert.match(out, /\u001b\[32mCREATE\u001b\[0m PROJECT/);
  });
});

describe('kubeforge help', () => {
  it('--kubeforge-source link writes a file: spec relative to the project, naming no folder of this machine', async () => {
    const dir = folder('linked');
    const r = await kubeforge(dir, 'init', '--skip-install', '--domain', 'example.com', '--kubeforge-source', 'link');
    assert.equal(r.code, 0, r.err);
    const spec = (
      JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }
    ).dependencies.kubeforge;
    assert.match(spec, /^file:\.\.?\//, spec);
    assert.ok(!spec.includes(tmpdir()) && !spec.slice(5).startsWith('/'), `no absolute path: ${spec}`);
    assert.equal(resolve(dir, spec.slice('file:'.length)), packageRoot(), 'it names the running kubeforge');
  });

  it('init --help lists the flags and examples', async () => {
    const r = await kubeforge(folder(), 'init', '--help');
    assert.equal(r.code, 0);
    for (const flag of [
      '--domain',
      '--project-name',
      '--owner',
      '--license',
      '--package-name',
      '--multigroup',
      '--skip-install',
      '--dry-run',
      '--force',
      '--kubeforge-source',
    ]) {
      assert.ok(r.out.includes(flag), flag);
    }
    assert.match(r.out, /Examples:\n {2}\$ mkdir guestbook && cd guestbook/);
  });

  it('completion --help has examples; an unknown shell is a usage error', async () => {
    const h = await kubeforge(folder(), 'completion', '--help');
    assert.match(h.out, /Examples:/);
    const bad = await kubeforge(folder(), 'completion', 'tcsh');
    assert.equal(bad.code, 1);
    assert.match(bad.err, /error: unknown shell "tcsh" for completion\nhint: use one of: bash, zsh, fish/);
  });
});
