#!/usr/bin/env node
// `npm test`: build kubeforge (dist/ for the CLI and packing; build/ for the tests), provision the
// test API server (`kubeforge setup-envtest`), then run every test file with
// Node's test runner. `npm test -- test/runtime` runs the tests under that folder only.
// @ts-check
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(import.meta.url), '../..');
process.chdir(root);

/**
 * @param {string} cmd
 * @param {string[]} args
 * @param {import('node:child_process').SpawnSyncOptions} [opts]
 */
function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...opts });
  if (r.status !== 0) {
    console.error(`test: '${cmd} ${args.join(' ')}' failed (exit ${r.status ?? r.signal})`);
    process.exit(r.status || 1);
  }
  return r;
}

const tsc = join(root, 'node_modules/.bin/tsc');
run(tsc, ['-p', 'tsconfig.build.json']);
run(tsc, ['-p', 'tsconfig.json']);

// The test control plane: `kubeforge setup-envtest` (KUBEBUILDER_ASSETS when it holds the default
// minor, else a download, else a build from Go modules, else the legacy Debian v1.20 build).
// Its progress goes to stderr; the last line of stdout is the folder.
{
  const r = spawnSync(process.execPath, [join(root, 'bin/kubeforge.js'), 'setup-envtest'], { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  if (r.status !== 0) {
    console.error('test: setup-envtest failed; see above. Set KUBEBUILDER_ASSETS to a folder holding etcd and kube-apiserver to skip it.');
    process.exit(1);
  }
  process.env.KUBEBUILDER_ASSETS = r.stdout.trim().split('\n').at(-1);
}
console.error(`test: KUBEBUILDER_ASSETS=${process.env.KUBEBUILDER_ASSETS}`);
{
  const v = spawnSync(join(process.env.KUBEBUILDER_ASSETS ?? '', 'kube-apiserver'), ['--version'], { encoding: 'utf8' });
  console.error(`test: kube-apiserver ${(v.stdout ?? '').trim() || 'version unknown'}`);
}

/**
 * @param {string} path
 * @param {string[]} out
 * @returns {string[]}
 */
function collect(path, out) {
  const st = statSync(path);
  if (st.isDirectory()) {
    for (const name of readdirSync(path).sort()) {
      if (name === 'fixtures' || name === 'golden' || name === 'node_modules') continue;
      collect(join(path, name), out);
    }
  } else if (path.endsWith('.test.js') && existsSync(join(root, relative('build', path)).replace(/\.js$/, '.ts'))) {
    // Only tests whose source still exists: a deleted test's compiled file lingers in build/.
    out.push(path);
  }
  return out;
}

const selected = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const flags = process.argv.slice(2).filter((a) => a.startsWith('-'));
const roots = (selected.length ? selected : ['test']).map((p) => join('build', relative(root, resolve(p)).replace(/\.ts$/, '.js')));
const files = roots.flatMap((p) => (existsSync(p) ? collect(p, []) : []));
if (files.length === 0) {
  console.error(`test: no test files under ${roots.join(', ')}`);
  process.exit(1);
}
// Every test must run: a skipped or todo test is a claim not checked, so it fails the run (a
// `--test-name-pattern` run skips by design and is exempt). Node's runner writes a TAP copy of
// its report to a file beside the reporter the terminal sees; its SKIP / TODO lines are counted.
const filtered = flags.some((f) => f.startsWith('--test-name-pattern') || f.startsWith('--test-skip-pattern') || f.startsWith('--test-only'));
const tap = join(root, 'build', 'test-report.tap');
const reporter = flags.some((f) => f.startsWith('--test-reporter')) ? [] : ['--test-reporter', process.stdout.isTTY ? 'spec' : 'tap', '--test-reporter-destination', 'stdout', '--test-reporter', 'tap', '--test-reporter-destination', tap];
rmSync(tap, { force: true });
const r = spawnSync(process.execPath, ['--enable-source-maps', '--test', '--test-concurrency=1', ...reporter, ...flags, ...files], {
  stdio: 'inherit',
  env: { ...process.env, KUBEFORGE_REPO_ROOT: root },
});
if (r.status === 0 && !filtered && existsSync(tap)) {
  const notRun = readFileSync(tap, 'utf8')
    .split('\n')
    .filter((l) => /^\s*ok \d+ - .* # (SKIP|TODO)\b/.test(l))
    .map((l) => l.trim());
  if (notRun.length) {
    console.error(`test: ${notRun.length} test(s) did not run (skipped or todo); every test must run:\n  ${notRun.join('\n  ')}`);
    process.exit(1);
  }
  console.error('test: 0 skipped, 0 todo');
}
process.exit(r.status ?? 1);
