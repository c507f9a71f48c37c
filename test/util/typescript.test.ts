// The TypeScript compiler API is loaded once with V8's code cache: written by the first process,
// used by the next, rejected (and written again) when it does not fit; the API is the same; the
// caches of older installs are pruned.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const module = resolve(fileURLToPath(import.meta.url), '../../../src/util/typescript.cjs');
const probe = `const m = require(${JSON.stringify(module)}); const sf = m.ts.createSourceFile('a.ts', 'class A { x?: number }', m.ts.ScriptTarget.ES2022); console.log(JSON.stringify([m.codeCacheStatus(), m.ts.SyntaxKind[sf.statements[0].kind]]));`;

function load(cache: string, env: NodeJS.ProcessEnv = {}): [string, string] {
  const r = spawnSync(process.execPath, ['-e', probe], {
    encoding: 'utf8',
    env: { ...process.env, XDG_CACHE_HOME: cache, KUBEFORGE_NO_CODE_CACHE: '', ...env },
  });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as [string, string];
}

describe('typescript.js through the V8 code cache', () => {
  it('the first process compiles and writes the cache, the next compiles from it, a damaged one is rejected and replaced', () => {
    const cache = mkdtempSync(join(tmpdir(), 'kf-v8-'));
    try {
      assert.deepEqual(load(cache), ['compiled', 'ClassDeclaration']);
      const files = readdirSync(join(cache, 'kubeforge/v8'));
      assert.equal(files.length, 1, files.join(', '));
      assert.match(files[0], /^typescript-.+\.bin$/);
      assert.deepEqual(load(cache), ['from-cache', 'ClassDeclaration']);
      writeFileSync(join(cache, 'kubeforge/v8', files[0]), 'not a code cache');
      assert.deepEqual(load(cache), ['rejected', 'ClassDeclaration']);
      assert.deepEqual(load(cache), ['from-cache', 'ClassDeclaration'], 'the rejected cache was written again');
      assert.deepEqual(load(cache, { KUBEFORGE_NO_CODE_CACHE: '1' }), ['off', 'ClassDeclaration']);
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });

  it("keeps the three newest caches when it writes one (other installs' caches are not kept forever)", () => {
    const cache = mkdtempSync(join(tmpdir(), 'kf-v8-'));
    try {
      const dir = join(cache, 'kubeforge/v8');
      mkdirSync(dir, { recursive: true });
      const others = [0, 1, 2, 3].map((i) => `typescript-0-x-${i}-0.bin`);
      others.forEach((f, i) => {
        writeFileSync(join(dir, f), 'an older install');
        utimesSync(join(dir, f), new Date(1_000_000 + i * 1000), new Date(1_000_000 + i * 1000));
      });
      writeFileSync(join(dir, 'unrelated.bin'), 'not ours');
      assert.deepEqual(load(cache), ['compiled', 'ClassDeclaration']);
      const left = readdirSync(dir).sort();
      const mine = left.filter((f) => f.startsWith('typescript-') && !others.includes(f));
      assert.equal(mine.length, 1, left.join(', '));
      assert.deepEqual(left, [...mine, others[2], others[3], 'unrelated.bin'].sort());
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });

  it("loads only the compiler, the very module behind ts-morph's `ts`", () => {
    const probe = `const m = require(${JSON.stringify(module)});
const loaded = () => Object.keys(require.cache).filter((f) => /[\\/](ts-morph|minimatch|tinyglobby)[\\/]/.test(f) || /ts-morph-common.js$/.test(f));
const before = loaded();
const morph = require('ts-morph').ts;
const same = morph.createSourceFile === m.ts.createSourceFile && morph.SyntaxKind === m.ts.SyntaxKind && morph.ScriptTarget === m.ts.ScriptTarget;
console.log(JSON.stringify({ before, same }));`;
    const r = spawnSync(process.execPath, ['-e', probe], {
      encoding: 'utf8',
      env: { ...process.env, KUBEFORGE_NO_CODE_CACHE: '1' },
    });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { before: [], same: true });
  });
});
