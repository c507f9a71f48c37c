import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { describe, it } from 'node:test';
import { DiagnosticError } from '../../src/diagnostics/index.js';
import { MemoryHost } from '../../src/machinery/index.js';
import { packFileList, packKubeforge, resolveKubeforgeSource } from '../../src/scaffolds/kubeforge-source.js';
import { must } from '../helpers/must.js';

const PKG = {
  name: 'kubeforge',
  version: '1.2.3',
  bin: { kubeforge: 'bin/kubeforge.js' },
  main: './dist/index.js',
  files: ['dist', 'templates/', 'scripts/setup-envtest.sh'],
  scripts: { build: 'tsc', prepare: 'npm run build' },
};

function kubeforgeHost(pkg: object = PKG) {
  return new MemoryHost({
    'package.json': `${JSON.stringify(pkg, null, 2)}\n`,
    'README.md': '# kubeforge\n',
    LICENSE: 'Apache\n',
    'bin/kubeforge.js': '#!/usr/bin/env node\n',
    'dist/index.js': 'export {};\n',
    'dist/cli/index.js': 'export {};\n',
    'dist/node_modules/x.js': 'never packed\n',
    'templates/init/a.hbs': 'a\n',
    'scripts/setup-envtest.sh': 'echo\n',
    'scripts/other.sh': 'not listed\n',
    'src/index.ts': 'not listed\n',
    'node_modules/commander/index.js': 'never packed\n',
    '.git/HEAD': 'never packed\n',
    'package-lock.json': '{}\n',
  });
}

/** Entries of a tgz: path -> { mode, text }. */
function untar(tgz: Buffer): Map<string, { mode: number; text: string }> {
  const tar = gunzipSync(tgz);
  const out = new Map<string, { mode: number; text: string }>();
  for (let at = 0; at + 512 <= tar.length; ) {
    const h = tar.subarray(at, at + 512);
    if (h.every((b) => b === 0)) break;
    const str = (from: number, len: number) =>
      h
        .subarray(from, from + len)
        .toString('utf8')
        .replace(/\0.*$/s, '');
    const name = (str(345, 155) ? `${str(345, 155)}/` : '') + str(0, 100);
    const size = parseInt(str(124, 12), 8);
    const mode = parseInt(str(100, 8), 8);
    out.set(name, { mode, text: tar.subarray(at + 512, at + 512 + size).toString('utf8') });
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return out;
}

describe('packing kubeforge (as npm pack does)', () => {
  it('takes package.json, README, LICENSE, the files list, bin and main; never node_modules, .git or the lock file', () => {
    assert.deepEqual(packFileList(kubeforgeHost()), [
      'LICENSE',
      'README.md',
      'bin/kubeforge.js',
      'dist/cli/index.js',
      'dist/index.js',
      'package.json',
      'scripts/setup-envtest.sh',
      'templates/init/a.hbs',
    ]);
  });

  it("leaves out what a `!` entry of files names, as npm pack does (the compiler's build state in dist/)", () => {
    const host = kubeforgeHost({ ...PKG, files: ['dist', '!dist/.tsbuildinfo', '!dist/cli', 'templates/'] });
    host.write('dist/.tsbuildinfo', Buffer.from('{}'));
    const files = packFileList(host);
    assert.ok(files.includes('dist/index.js') && files.includes('templates/init/a.hbs'), files.join(' '));
    assert.deepEqual(
      files.filter((f) => f === 'dist/.tsbuildinfo' || f.startsWith('dist/cli/')),
      [],
    );
  });

  it('writes entries under package/, bin executable, and drops lifecycle scripts that would build on install', () => {
    const { name, data } = packKubeforge(kubeforgeHost());
    assert.equal(name, 'kubeforge-1.2.3.tgz');
    const entries = untar(data);
    assert.deepEqual(
      [...entries.keys()].sort(),
      packFileList(kubeforgeHost())
        .map((f) => `package/${f}`)
        .sort(),
    );
    assert.equal(must(entries.get('package/bin/kubeforge.js'), 'package/bin/kubeforge.js').mode, 0o755);
    assert.equal(must(entries.get('package/dist/index.js'), 'package/dist/index.js').mode, 0o644);
    const pkg = JSON.parse(must(entries.get('package/package.json'), 'package/package.json').text) as typeof PKG;
    assert.deepEqual(pkg.scripts, { build: 'tsc' });
    assert.equal(pkg.version, '1.2.3');
  });

  it('bundles its bundleDependencies (the @kubeforge/cel workspace package) by their own files list, as npm pack does', () => {
    const host = kubeforgeHost({ ...PKG, bundleDependencies: ['@kubeforge/cel'] });
    const cel = { name: '@kubeforge/cel', version: '0.1.0', files: ['dist', '!dist/.tsbuildinfo'] };
    host.write('node_modules/@kubeforge/cel/package.json', Buffer.from(JSON.stringify(cel)));
    host.write('node_modules/@kubeforge/cel/README.md', Buffer.from('# cel\n'));
    host.write('node_modules/@kubeforge/cel/dist/index.js', Buffer.from('export {};\n'));
    host.write('node_modules/@kubeforge/cel/dist/.tsbuildinfo', Buffer.from('{}'));
    host.write('node_modules/@kubeforge/cel/src/index.ts', Buffer.from('not listed\n'));
    assert.deepEqual(
      packFileList(host).filter((f) => f.startsWith('node_modules/')),
      [
        'node_modules/@kubeforge/cel/README.md',
        'node_modules/@kubeforge/cel/dist/index.js',
        'node_modules/@kubeforge/cel/package.json',
      ],
    );
    const entries = untar(packKubeforge(host).data);
    assert.equal(entries.get('package/node_modules/@kubeforge/cel/dist/index.js')?.text, 'export {};\n');
  });

  it('refuses to pack a kubeforge whose bundled dependency is not installed', () => {
    const host = kubeforgeHost({ ...PKG, bundleDependencies: ['@kubeforge/cel'] });
    assert.throws(
      () => packKubeforge(host),
      (e: unknown) =>
        e instanceof DiagnosticError &&
        e.diagnostics[0].code === 'KF1021' &&
        e.diagnostics[0].message.includes('node_modules/@kubeforge/cel'),
    );
  });

  it('refuses to pack a kubeforge without dist/', () => {
    const host = kubeforgeHost();
    for (const k of [...host.files.keys()]) if (k.startsWith('dist/')) host.files.delete(k);
    assert.throws(
      () => packKubeforge(host),
      (e: unknown) => e instanceof DiagnosticError && e.diagnostics[0].code === 'KF1021',
    );
  });
});

describe('--kubeforge-source', () => {
  const external = new MemoryHost({ 'kubeforge-1.2.3.tgz': Buffer.from([31, 139, 8, 0]) });
  const ctx = {
    kubeforge: kubeforgeHost(),
    kubeforgeDir: '/opt/kubeforge',
    openHost: (dir: string) => (dir === '/tmp/packs' ? external : new MemoryHost()),
    cwd: '/tmp/packs',
  };

  it('tarball (default): a file: spec to .kubeforge/<name>-<hash>.tgz', () => {
    const s = resolveKubeforgeSource(undefined, ctx);
    assert.match(s.dependency, /^file:\.kubeforge\/kubeforge-1\.2\.3-[0-9a-f]{8}\.tgz$/);
    assert.equal(must(s.tarball, 's.tarball').path, s.dependency.slice(5));
    assert.deepEqual(resolveKubeforgeSource('tarball', ctx), s, 'same bytes, same name');
  });

  it('link, registry and a tarball path', () => {
    // Relative to the project (here cwd, /tmp/packs): no folder of the machine in package.json.
    assert.deepEqual(resolveKubeforgeSource('link', ctx), { dependency: 'file:../../opt/kubeforge' });
    assert.deepEqual(resolveKubeforgeSource('link', { ...ctx, projectDir: '/opt/kubeforge/examples/p' }), {
      dependency: 'file:../..',
    });
    assert.deepEqual(resolveKubeforgeSource('registry', ctx), { dependency: '^1.2.3' });
    const given = resolveKubeforgeSource('kubeforge-1.2.3.tgz', ctx);
    assert.match(given.dependency, /^file:\.kubeforge\/kubeforge-1\.2\.3-[0-9a-f]{8}\.tgz$/);
    assert.deepEqual([...must(given.tarball, 'given.tarball').data], [31, 139, 8, 0]);
  });

  it('names a missing tarball and an unknown choice', () => {
    assert.throws(
      () => resolveKubeforgeSource('missing.tgz', ctx),
      /KF1022 --kubeforge-source: no tarball at \/tmp\/packs\/missing\.tgz/,
    );
    assert.throws(() => resolveKubeforgeSource('npm', ctx), /KF1023 --kubeforge-source: unknown value "npm"/);
  });
});
