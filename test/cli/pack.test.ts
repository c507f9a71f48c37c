// What the published package holds (issue #44, "a CLI you can install"): `npm pack` of this
// repository carries the CLI, the built libraries behind every `exports` entry, the templates and
// the docs, and nothing else (no sources, tests, build output or source maps), within a size a
// reader can check against; and the CLI installed from that tarball into a clean prefix runs and
// scaffolds a project whose package.json names no folder of this machine.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { packageRoot } from '../../src/util/package-root.js';
import { must } from '../helpers/must.js';

const root = packageRoot();
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  bin: Record<string, string>;
  exports: Record<string, string | { types?: string; default?: string }>;
};

/** What may be in the package: each entry a prefix or a file, with why. */
const ALLOWED: [RegExp, string][] = [
  [/^package\.json$/, 'the manifest'],
  [/^(README|CHANGELOG|ARCHITECTURE)\.md$|^LICENSE$/, 'what a user reads first'],
  [/^bin\/kubeforge\.js$/, 'the CLI'],
  [/^bin\/package\.json$/, 'makes bin/kubeforge.js CommonJS (fast start-up, scripts/bundle-cli.mjs)'],
  [/^dist\/.+\.(js|d\.ts|cjs|d\.cts)$/, 'the built CLI and libraries'],
  [/^templates\//, 'the scaffolds'],
  [/^schemas\/output\.schema\.json$/, 'the JSON Schema of --json output'],
  [/^docs\/[^/]+\.md$/, 'the docs the README and diagnostics link to'],
  [/^bench\/README\.md$/, 'the figures docs link to'],
  [
    /^(src\/(scaffolds|manifests|runtime)|test|packages\/cel)\/README\.md$/,
    'the design notes ARCHITECTURE.md links to',
  ],
  [/^scripts\/setup-envtest\.sh$/, 'setup-envtest for projects without Node tooling'],
  [
    /^packages\/cel\/(package\.json|dist\/.+\.(js|d\.ts))$/,
    'kubeforge\'s CEL, the workspace package @kubeforge/cel, reached as #cel (package.json "imports")',
  ],
  [
    /^src\/schema\/k8s\/data\/models(\.shape|\.[0-9.]+\.patch)?\.json$/,
    'the Kubernetes models the schema and the fake API server read',
  ],
];

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function npm(args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env) {
  return spawnSync('npm', args, { cwd, encoding: 'utf8', env, timeout: 10 * 60_000, maxBuffer: 64 * 1024 * 1024 });
}

describe('the packed package', () => {
  const r = npm(['pack', '--dry-run', '--json', '--ignore-scripts'], root);
  const packed = JSON.parse(r.stdout) as {
    size: number;
    unpackedSize: number;
    files: { path: string; size: number }[];
  }[];
  const files = packed[0].files.map((f) => f.path).sort();

  it('holds only what a user needs, and every entry point it declares', (t) => {
    const extra = files.filter((f) => !ALLOWED.some(([re]) => re.test(f)));
    assert.deepEqual(extra, [], 'files outside the allowed list (sources, tests, build output, maps)');
    for (const [sub, target] of Object.entries(pkg.exports)) {
      const paths = typeof target === 'string' ? [target] : [target.types, target.default].filter(Boolean);
      for (const p of paths)
        assert.ok(files.includes(must(p, 'p').replace(/^\.\//, '')), `exports["${sub}"] -> ${p} is packed`);
    }
    for (const bin of Object.values(pkg.bin))
      assert.ok(files.includes(bin.replace(/^\.\//, '')), `bin ${bin} is packed`);
    // The start-up bundle and what makes the bin CommonJS (scripts/bundle-cli.mjs): without them
    // the CLI still runs, from the ES modules, but starts slower.
    for (const f of ['dist/cli/start.cjs', 'bin/package.json']) assert.ok(files.includes(f), `${f} is packed`);
    assert.ok(
      files.some((f) => f.startsWith('templates/init/')),
      'the init templates are packed',
    );
    t.diagnostic(
      `${files.length} files, ${(packed[0].size / 2 ** 20).toFixed(2)} MiB packed, ${(packed[0].unpackedSize / 2 ** 20).toFixed(2)} MiB unpacked`,
    );
    // A bound that catches a folder packed by mistake (today: about 1.4 MiB packed, 5.3 unpacked).
    assert.ok(packed[0].size < 3 * 2 ** 20, `packed size ${packed[0].size}`);
    assert.ok(packed[0].unpackedSize < 10 * 2 ** 20, `unpacked size ${packed[0].unpackedSize}`);
  });

  it('installed from the tarball into a clean prefix, the CLI runs and scaffolds a project that names no folder of this machine', () => {
    const work = mkdtempSync(join(tmpdir(), 'kf-pack-'));
    dirs.push(work);
    const pack = npm(['pack', '--ignore-scripts', '--pack-destination', work], root);
    assert.equal(pack.status, 0, pack.stderr);
    const tgz = join(work, must(pack.stdout.trim().split('\n').at(-1), "pack.stdout.trim().split('\\n').at(-1)"));
    const prefix = join(work, 'prefix');
    const install = npm(['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', tgz], work);
    assert.equal(install.status, 0, install.stderr);
    const bin = join(prefix, 'bin', 'kubeforge');
    const version = spawnSync(bin, ['--version'], { encoding: 'utf8' });
    assert.equal(version.status, 0, version.stderr);
    assert.equal(version.stdout.trim(), pkg.version);
    const project = join(work, 'guestbook');
    spawnSync('mkdir', [project]);
    const init = spawnSync(bin, ['init', '--domain', 'example.com', '--skip-install'], {
      cwd: project,
      encoding: 'utf8',
    });
    assert.equal(init.status, 0, init.stderr);
    const text = readFileSync(join(project, 'package.json'), 'utf8');
    for (const machinePath of [work, root, prefix, tmpdir()])
      assert.ok(!text.includes(machinePath), `package.json names ${machinePath}:\n${text}`);
    assert.match(JSON.parse(text).dependencies.kubeforge, /^file:\.kubeforge\/kubeforge-.+\.tgz$/);
  });
});
