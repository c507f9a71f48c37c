/**
 * `init --license-file` and `edit --license-file` (issue #43 point 2), as Kubebuilder 4.16's: the
 * file's header is copied to hack/boilerplate.ts.txt as it is, and every file scaffolded from it
 * starts with it, each standalone `YEAR` replaced by the current year.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { run } from '../../src/cli/index.js';

const root = mkdtempSync(join(tmpdir(), 'kf-license-file-'));
after(() => rmSync(root, { recursive: true, force: true }));
const YEAR = String(new Date().getFullYear());
const HEADER = '/*\nCopyright YEAR Acme Corp. All rights reserved.\n\nYEARS and MYYEAR stay as they are.\n*/\n';
const EXPECTED = `/*\nCopyright ${YEAR} Acme Corp. All rights reserved.\n\nYEARS and MYYEAR stay as they are.\n*/\n\n`;

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

const INIT = ['init', '--domain', 'example.com', '--skip-install', '--kubeforge-source', 'link'];
const read = (dir: string, f: string) => readFileSync(join(dir, f), 'utf8');

function folder(name: string): string {
  const dir = join(root, name);
  mkdirSync(dir);
  return dir;
}

describe('--license-file', () => {
  it('init copies the header to hack/boilerplate.ts.txt (YEAR kept) and heads every scaffolded TypeScript file with it (YEAR replaced)', async () => {
    writeFileSync(join(root, 'header.txt'), HEADER);
    const dir = folder('acme');
    const r = await kubeforge(dir, ...INIT, '--license-file', '../header.txt');
    assert.equal(r.code, 0, r.err);
    assert.equal(read(dir, 'hack/boilerplate.ts.txt'), HEADER);
    for (const f of ['src/main.ts', 'test/suite.test.ts']) assert.ok(read(dir, f).startsWith(EXPECTED), f);
    // Not Apache's: package.json does not claim a license, the README has no Apache section.
    assert.equal((JSON.parse(read(dir, 'package.json')) as { license: string }).license, 'UNLICENSED');
    assert.doesNotMatch(read(dir, 'README.md'), /Apache License/);
    const api = await kubeforge(
      dir,
      ...['create', 'api', '--group', 'webapp', '--version', 'v1', '--kind', 'Guestbook'],
      ...['--resource', '--controller', '--make=false'],
    );
    assert.equal(api.code, 0, api.err);
    assert.ok(read(dir, 'src/api/v1/guestbook_types.ts').startsWith(EXPECTED));
    assert.ok(read(dir, 'src/controller/guestbook_controller.ts').startsWith(EXPECTED));
  });

  it("edit --namespaced re-renders init's files with the project's own header (no conflict with main.ts)", async () => {
    const dir = join(root, 'acme');
    const r = await kubeforge(dir, 'edit', '--namespaced', '--make=false');
    assert.equal(r.code, 0, r.err);
    assert.ok(read(dir, 'src/main.ts').startsWith(EXPECTED));
  });

  it('edit --license-file replaces the header of the files scaffolded from then on', async () => {
    const dir = folder('switch');
    assert.equal((await kubeforge(dir, ...INIT)).code, 0);
    assert.match(read(dir, 'hack/boilerplate.ts.txt'), /Apache License/);
    writeFileSync(join(dir, 'mine.txt'), '/* (c) YEAR Me */\n');
    const r = await kubeforge(dir, 'edit', '--license-file', 'mine.txt');
    assert.equal(r.code, 0, r.err);
    assert.equal(read(dir, 'hack/boilerplate.ts.txt'), '/* (c) YEAR Me */\n');
    const api = await kubeforge(
      dir,
      ...['create', 'api', '--group', 'webapp', '--version', 'v1', '--kind', 'Memo'],
      ...['--resource', '--controller=false', '--make=false'],
    );
    assert.equal(api.code, 0, api.err);
    assert.ok(read(dir, 'src/api/v1/memo_types.ts').startsWith(`/* (c) ${YEAR} Me */\n\n`));
  });

  for (const [name, content, args, message] of [
    ['a missing file', undefined, [], /--license-file .*: cannot be read \(ENOENT\)/],
    ['text that is not a block comment', '// Copyright YEAR\n', [], /is not one block comment/],
    ['code after the comment', '/* a */ export const x = 1; /* b */\n', [], /is not one block comment/],
    ['--license none', '/* x */\n', ['--license', 'none'], /and --license none/],
    ['--owner', '/* x */\n', ['--owner', 'Acme'], /and --owner/],
  ] as const) {
    it(`init refuses ${name} (KF1006) and writes nothing`, async () => {
      const dir = folder(`bad-${name.replace(/\W+/g, '-')}`);
      const file = join(root, `${name.replace(/\W+/g, '-')}.txt`);
      if (content !== undefined) writeFileSync(file, content);
      const r = await kubeforge(dir, ...INIT, '--license-file', file, ...args);
      assert.equal(r.code, 1);
      assert.match(r.err, /KF1006/);
      assert.match(r.err, message);
      assert.ok(!existsSync(join(dir, 'PROJECT')));
    });
  }
});
