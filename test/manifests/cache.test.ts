import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  type CacheKeyParts,
  checkCache,
  enumerateSourceFiles,
  readTsconfig,
  writeCache,
} from '../../src/manifests/cache.js';
import { GENERATED_HEADER } from '../../src/manifests/managed-files.js';
import { DEFAULT_GENERATORS } from '../../src/manifests/generators.js';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'kf-cache-'));
  dirs.push(dir);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(dir, rel, '..'), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  return dir;
}

const parts: CacheKeyParts = { kubeforgeVersion: '0.0.0', generatorVersion: 'test' };

describe('no-change cache', () => {
  it('reads tsconfig with comments, trailing commas and an extends chain', () => {
    const dir = tree({
      'tsconfig.base.json':
        '{\n  // shared\n  "compilerOptions": { "outDir": "out", },\n  "include": ["lib/**/*.ts", "src"],\n}\n',
      'tsconfig.json':
        '{ "extends": "./tsconfig.base.json", /* no include here */ "compilerOptions": { "strict": true } }\n',
    });
    const view = readTsconfig(join(dir, 'tsconfig.json'));
    assert.deepEqual(view.include, ['lib/**/*.ts', 'src']);
    assert.equal(view.outDir, join(dir, 'out'));
    assert.deepEqual(view.chain, [join(dir, 'tsconfig.json'), join(dir, 'tsconfig.base.json')]);
  });

  it('enumerates the TypeScript sources the globs could match, skipping node_modules, dot folders, outDir and config/', () => {
    const dir = tree({
      'tsconfig.json': '{ "compilerOptions": { "outDir": "build" }, "include": ["src/**/*.ts", "test"] }',
      'src/a.ts': '',
      'src/api/v1/b.mts': '',
      'src/c.tsx': '',
      'src/readme.md': '',
      'src/node_modules/x.ts': '',
      'src/.hidden/y.ts': '',
      'test/t.cts': '',
      'build/out.d.ts': '',
      'other/ignored.ts': '',
    });
    const { files } = enumerateSourceFiles(dir, join(dir, 'tsconfig.json'));
    assert.deepEqual(
      files.map((f) => f.slice(dir.length + 1)),
      ['src/a.ts', 'src/api/v1/b.mts', 'src/c.tsx', 'test/t.cts'],
    );
  });

  it('hits only while inputs, flags and managed outputs are as recorded', () => {
    const dir = tree({
      'tsconfig.json': '{ "include": ["src/**/*.ts"] }',
      'package.json': '{}',
      'src/a.ts': 'export const a = 1;\n',
      'config/rbac/role.yaml': `${GENERATED_HEADER}---\nkind: ClusterRole\n`,
    });
    const tsconfig = join(dir, 'tsconfig.json');
    assert.deepEqual(checkCache(dir, tsconfig, parts), { hit: false, reason: 'no cache record' });
    // The paths `kubeforge manifests`' generators declare they manage.
    const managed = DEFAULT_GENERATORS.map((g) => g.manages);
    writeCache(dir, tsconfig, parts, [], ['config/rbac/role.yaml'], [], managed);
    assert.equal(checkCache(dir, tsconfig, parts).hit, true);
    assert.deepEqual(checkCache(dir, tsconfig, { ...parts, generatorVersion: 'other' }), {
      hit: false,
      reason: 'flags, versions or tsconfig changed',
    });
    writeFileSync(join(dir, 'src/b.ts'), '');
    assert.deepEqual(checkCache(dir, tsconfig, parts), { hit: false, reason: 'source files added' });
    rmSync(join(dir, 'src/b.ts'));
    writeFileSync(join(dir, 'src/a.ts'), 'export const a = 2;\n');
    assert.deepEqual(checkCache(dir, tsconfig, parts), { hit: false, reason: 'input changed: src/a.ts' });
    writeFileSync(join(dir, 'src/a.ts'), 'export const a = 1;\n');
    assert.equal(checkCache(dir, tsconfig, parts).hit, true);
    mkdirSync(join(dir, 'config/crd/bases'), { recursive: true });
    writeFileSync(join(dir, 'config/crd/bases/user.yaml'), '# mine\n');
    assert.equal(checkCache(dir, tsconfig, parts).hit, true, 'a user file without our header is not ours');
    writeFileSync(join(dir, 'config/crd/bases/x_ys.yaml'), `${GENERATED_HEADER}---\n`);
    assert.deepEqual(checkCache(dir, tsconfig, parts), { hit: false, reason: 'managed files added or removed' });
    rmSync(join(dir, 'config/crd/bases/x_ys.yaml'));
    writeFileSync(join(dir, 'config/rbac/role.yaml'), `${GENERATED_HEADER}---\nkind: Role\n`);
    assert.deepEqual(checkCache(dir, tsconfig, parts), { hit: false, reason: 'output changed: config/rbac/role.yaml' });
  });
});
