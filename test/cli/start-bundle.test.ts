// The CLI's start-up bundle (scripts/bundle-cli.mjs -> dist/cli/start.cjs, required by the
// CommonJS bin/kubeforge.js): it must answer exactly as the ES modules it is made from, meet the
// errors of the commands it imports lazily as their own (another copy of DiagnosticError and
// UsageError), be rebuilt byte for byte from the same dist/, and never run when older than dist/.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { Command } from 'commander';
import { buildProgram } from '../../src/cli/index.js';
import { UsageError } from '../../src/cli/context.js';
import { DiagnosticError } from '../../src/diagnostics/index.js';
import { InterruptedError } from '../../src/machinery/guard.js';
import { packageRoot } from '../../src/util/package-root.js';

const root = packageRoot();
const bin = join(root, 'bin/kubeforge.js');
const esm = join(root, 'dist/cli/index.js');
const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'kf-start-'));
  dirs.push(d);
  return d;
};

/** The CLI through the bin (the bundle) or through dist/cli/index.js (the ES modules). */
function kubeforge(how: 'bundle' | 'esm', args: string[], cwd = root) {
  const argv =
    how === 'bundle'
      ? [bin, ...args]
      : [
          '--input-type=module',
          '-e',
          `import(${JSON.stringify(esm)}).then((m) => m.run([process.argv[0], 'kubeforge', ...process.argv.slice(1)])).then((c) => { process.exitCode = c; })`,
          '--',
          ...args,
        ];
  const r = spawnSync(process.execPath, argv, { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Every command path of the program (`create api`, `alpha update`, ...). */
function commandPaths(cmd: Command, prefix: string[] = []): string[][] {
  return cmd.commands.flatMap((c) => [[...prefix, c.name()], ...commandPaths(c, [...prefix, c.name()])]);
}

describe('the CLI start-up bundle', () => {
  it('prints the help of every command byte for byte as the ES modules do', () => {
    const paths = [[], ...commandPaths(buildProgram({ out: () => {}, err: () => {}, color: false } as never))];
    assert.ok(paths.length > 10, `${paths.length} command paths`);
    for (const p of paths) {
      const a = kubeforge('bundle', [...p, '--help']);
      const b = kubeforge('esm', [...p, '--help']);
      assert.equal(a.status, 0, `${p.join(' ')} --help: ${a.stderr}`);
      assert.deepEqual(a, b, `kubeforge ${p.join(' ')} --help`);
    }
  });

  it('reports a lazily imported command’s DiagnosticError and a usage error as the ES modules do', () => {
    const cwd = tmp();
    for (const args of [
      ['manifests', '--project', join(cwd, 'missing')], // KF4503 from the manifests command
      ['manifests', '--json', '--project', join(cwd, 'missing')],
      ['create', 'api', '--group', 'x', '--version', 'v1', '--kind', 'Foo'], // no PROJECT here
      ['init', '--bogus'],
      ['init', '--domain', 'Not A Domain'],
      ['version'],
    ]) {
      const a = kubeforge('bundle', args, cwd);
      assert.deepEqual(a, kubeforge('esm', args, cwd), `kubeforge ${args.join(' ')}`);
      if (args[0] === 'manifests' && args[1] !== '--json') {
        assert.equal(a.status, 1);
        assert.match(a.stderr, /KF4503 {2}project folder .* does not exist/);
      }
    }
  });

  it('is rebuilt byte for byte from the same dist/, and dist/cli/start.cjs is that build', () => {
    const out = tmp();
    const build = (file: string) => {
      const r = spawnSync(process.execPath, [join(root, 'scripts/bundle-cli.mjs'), '--outfile', file], {
        encoding: 'utf8',
      });
      assert.equal(r.status, 0, r.stderr);
      return readFileSync(file);
    };
    const first = build(join(out, 'a.cjs'));
    assert.deepEqual(build(join(out, 'b.cjs')), first);
    assert.deepEqual(
      readFileSync(join(root, 'dist/cli/start.cjs')),
      first,
      'dist/cli/start.cjs is stale: npm run build',
    );
  });

  it('runs only when present and not older than the last tsc build of dist/', () => {
    // A package of the bin and two stand-ins for the bundle and the ES modules.
    const pkg = tmp();
    mkdirSync(join(pkg, 'bin'));
    mkdirSync(join(pkg, 'dist/cli'), { recursive: true });
    copyFileSync(bin, join(pkg, 'bin/kubeforge.js'));
    copyFileSync(join(root, 'bin/package.json'), join(pkg, 'bin/package.json'));
    writeFileSync(join(pkg, 'package.json'), '{"type":"module"}\n');
    writeFileSync(join(pkg, 'dist/cli/index.js'), 'export function run() { console.log("esm"); }\n');
    const which = () =>
      spawnSync(process.execPath, [join(pkg, 'bin/kubeforge.js')], { encoding: 'utf8' }).stdout.trim();
    assert.equal(which(), 'esm', 'no bundle');
    writeFileSync(join(pkg, 'dist/cli/start.cjs'), 'exports.run = () => console.log("bundle");\n');
    assert.equal(which(), 'bundle', 'a bundle and no tsc build info (a packed package)');
    writeFileSync(join(pkg, 'dist/.tsbuildinfo'), '{}');
    utimesSync(join(pkg, 'dist/cli/start.cjs'), new Date(1_000_000), new Date(1_000_000));
    assert.equal(which(), 'esm', 'a bundle older than the last tsc build');
    utimesSync(join(pkg, 'dist/.tsbuildinfo'), new Date(500_000), new Date(500_000));
    assert.equal(which(), 'bundle', 'a bundle made after the last tsc build');
  });

  it('meets DiagnosticError and UsageError of another copy of their modules', async () => {
    // A query makes Node load a second instance of the same ES module, as the bundle holds one.
    const copy = (await import(
      `../../src/diagnostics/index.js?copy=${Date.now()}`
    )) as typeof import('../../src/diagnostics/index.js');
    const ctx = (await import(
      `../../src/cli/context.js?copy=${Date.now()}`
    )) as typeof import('../../src/cli/context.js');
    assert.notEqual(copy.DiagnosticError, DiagnosticError);
    const d = new copy.DiagnosticError({ code: 'KF0000', severity: 'error', message: 'x' });
    assert.ok(d instanceof DiagnosticError);
    assert.ok(new DiagnosticError([]) instanceof copy.DiagnosticError);
    assert.ok(!(new Error('x') instanceof DiagnosticError));
    assert.ok(!((null as unknown as object) instanceof DiagnosticError));
    // Subclasses keep the ordinary check.
    assert.ok(!(d instanceof InterruptedError));
    assert.ok(!(new DiagnosticError([]) instanceof InterruptedError));
    assert.ok(new ctx.UsageError('u') instanceof UsageError);
    assert.ok(!(new ctx.UsageError('u') instanceof DiagnosticError));
    assert.ok(!(d instanceof UsageError));
  });
});
