// The entry points that users' operators load (kubeforge/markers, kubeforge/runtime) must never
// load the CLI's heavy dependencies, and `kubeforge --help` must stay lazy. Checked two ways:
// statically (import lines in the sources) and at run time (a resolve hook in a fresh Node process
// records every package resolved while the entry point from dist/ loads).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';

const root = process.env.KUBEFORGE_REPO_ROOT ?? process.cwd();
const CLI_ONLY = ['ts-morph', '@ts-morph/common', 'handlebars', 'commander', 'execa', 'typescript'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const p = join(dir, name);
      return statSync(p).isDirectory() ? sourceFiles(p) : p.endsWith('.ts') ? [p] : [];
    });
}

function importedSpecifiers(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs: string[] = [];
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?from\s*['"]([^'"]+)['"]/g)) specs.push(m[1]);
  for (const m of text.matchAll(/(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g)) specs.push(m[1]);
  for (const m of text.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g)) specs.push(m[1]);
  return specs;
}

const packageOf = (spec: string) => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);

/** Runs `args` under Node with a resolve hook; returns the npm packages resolved, sorted. */
function packagesLoaded(args: string[]): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'kf-boundary-'));
  const log = join(dir, 'loaded.txt');
  const hooks = `
    import { appendFileSync } from 'node:fs';
    export async function resolve(spec, ctx, next) {
      const r = await next(spec, ctx);
      const tail = r.url.split('/node_modules/');
      if (tail.length > 1) {
        const p = tail[tail.length - 1].split('/');
        appendFileSync(${JSON.stringify(log)}, (p[0].startsWith('@') ? p[0] + '/' + p[1] : p[0]) + '\\n');
      }
      return r;
    }`;
  const register = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});`;
  // require() does not pass the ES module hooks: a CommonJS preload records what it resolves.
  const requireHook = join(dir, 'require-hook.cjs');
  writeFileSync(
    requireHook,
    `const Module = require('node:module');
    const { appendFileSync } = require('node:fs');
    const resolve = Module._resolveFilename;
    Module._resolveFilename = function (...a) {
      const file = resolve.apply(this, a);
      const tail = file.split('/node_modules/');
      if (tail.length > 1) {
        const p = tail[tail.length - 1].split('/');
        appendFileSync(${JSON.stringify(log)}, (p[0].startsWith('@') ? p[0] + '/' + p[1] : p[0]) + '\\n');
      }
      return file;
    };`,
  );
  try {
    const r = spawnSync(
      process.execPath,
      ['--require', requireHook, '--import', `data:text/javascript,${encodeURIComponent(register)}`, ...args],
      {
        cwd: root,
        encoding: 'utf8',
      },
    );
    assert.equal(r.status, 0, `node ${args.join(' ')} failed: ${r.stderr}`);
    let text = '';
    try {
      text = readFileSync(log, 'utf8');
    } catch {
      /* nothing from node_modules was loaded */
    }
    return [...new Set(text.split('\n').filter(Boolean))].sort();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const importEntry = (specifier: string) => ['--input-type=module', '-e', `await import(${JSON.stringify(specifier)})`];

describe('entry point boundaries', () => {
  it('kubeforge/markers imports nothing at run time (source: only the types of its definition table)', () => {
    const text = readFileSync(join(root, 'src/markers/index.ts'), 'utf8');
    const valueImports = [
      ...text.matchAll(/(?:^|\n)\s*(?:import|export)\s(?!type\s)[^;]*?from\s*['"]([^'"]+)['"]/g),
    ].map((m) => m[1]);
    assert.deepEqual(valueImports, []);
    assert.match(text, /\nimport type \{[^}]*\} from '\.\/definitions\.js';\n/);
    assert.doesNotMatch(
      readFileSync(join(root, 'dist/markers/index.js'), 'utf8'),
      /^\s*(import|export)\s[^;]*from\s|\brequire\(|\bimport\(/m,
    );
  });

  it('src/runtime and src/testing never import CLI-only packages (source)', () => {
    const offenders: string[] = [];
    for (const file of [...sourceFiles(join(root, 'src/runtime')), ...sourceFiles(join(root, 'src/testing'))]) {
      for (const spec of importedSpecifiers(file)) {
        if (spec.startsWith('.')) {
          // One file of schema is allowed: the shipped models (no ts-morph, no CLI package), with which the fake API server decodes built-in Kinds.
          if (/\/schema\/k8s\/index\.js$/.test(spec)) continue;
          if (/\/(cli|scaffold|scaffolds|markers\/collector|schema|manifests)\//.test(`/${spec}`))
            offenders.push(`${file}: ${spec}`);
        } else if (CLI_ONLY.includes(packageOf(spec))) offenders.push(`${file}: ${spec}`);
      }
    }
    assert.deepEqual(offenders, []);
  });

  it('loading kubeforge/markers resolves no npm package (run time)', () => {
    assert.deepEqual(packagesLoaded(importEntry('kubeforge/markers')), []);
  });

  it('loading kubeforge/runtime, its subpaths and kubeforge/testing never loads CLI-only packages (run time)', () => {
    const subpaths = ['cache', 'client', 'controller', 'manager', 'util', 'webhook'].map(
      (s) => `kubeforge/runtime/${s}`,
    );
    for (const entry of ['kubeforge/runtime', ...subpaths, 'kubeforge/testing']) {
      const loaded = packagesLoaded(importEntry(entry));
      assert.deepEqual(
        loaded.filter((p) => CLI_ONLY.includes(p)),
        [],
        `${entry} loaded ${loaded.join(', ')}`,
      );
    }
  });

  it('the hook sees packages, so the checks above can fail', () => {
    assert.ok(packagesLoaded(importEntry('yaml')).includes('yaml'));
  });

  it('the hook sees packages a CommonJS file requires too', () => {
    assert.ok(packagesLoaded(['-e', "require('yaml')"]).includes('yaml'));
  });

  it('kubeforge --help loads commander only: bundled into its start-up file, which holds no other package', () => {
    // bin/kubeforge.js requires dist/cli/start.cjs (scripts/bundle-cli.mjs), commander inside it.
    assert.deepEqual(packagesLoaded([join(root, 'bin/kubeforge.js'), '--help']), []);
    const bundled = readFileSync(join(root, 'dist/cli/start.cjs'), 'utf8').matchAll(
      /^\/\/ node_modules\/((?:@[^/]+\/)?[^/]+)\//gm,
    );
    assert.deepEqual([...new Set([...bundled].map((m) => m[1]))], ['commander']);
    // The ES modules it is made from (the path taken when the bundle is stale) load commander alone.
    const esm = `import(${JSON.stringify(join(root, 'dist/cli/index.js'))}).then((m) => m.run(['node', 'kubeforge', '--help']))`;
    assert.deepEqual(packagesLoaded(['--input-type=module', '-e', esm]), ['commander']);
  });
});
