#!/usr/bin/env node
// `npm test`: build kubeforge (packages/cel/dist, then dist/ for the CLI and packing; build/ for
// the tests, all incremental), then run the tests with Node's test runner in three lanes:
//   1. the fast lane, the files listed in test/fast-lane.txt: no kube-apiserver, etcd, Go or kubectl
//      (KUBEBUILDER_ASSETS is removed from their environment, so a fast file that starts a control
//      plane fails), run in parallel, one process per core;
//   2. the server lane, every other file outside test/e2e, one at a time: the real API server
//      (`kubeforge setup-envtest` provisions it first), the real tools as oracles;
//   3. the e2e lane, test/e2e: generated projects built, installed and run, one at a time.
// `npm test -- test/runtime` runs the tests under that folder only; `npm run test:fast`
// (`--fast`) runs the fast lane alone and needs no binaries. Each lane prints its time.
// @ts-check
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
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
run(tsc, ['-p', 'packages/cel/tsconfig.json']);
run(tsc, ['-p', 'tsconfig.build.json']);
run(process.execPath, [join(root, 'scripts/bundle-cli.mjs')]);
run(tsc, ['-p', 'tsconfig.json']);

// The test control plane: `kubeforge setup-envtest` (KUBEBUILDER_ASSETS when it holds the default
// minor, else a download, else a build from Go modules, else the legacy Debian v1.20 build).
// Its progress goes to stderr; the last line of stdout is the folder.
function provisionControlPlane() {
  const r = spawnSync(process.execPath, [join(root, 'bin/kubeforge.js'), 'setup-envtest'], {
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
  });
  if (r.status !== 0) {
    console.error(
      'test: setup-envtest failed; see above. Set KUBEBUILDER_ASSETS to a folder holding etcd and kube-apiserver to skip it.',
    );
    process.exit(1);
  }
  process.env.KUBEBUILDER_ASSETS = r.stdout.trim().split('\n').at(-1);
  console.error(`test: KUBEBUILDER_ASSETS=${process.env.KUBEBUILDER_ASSETS}`);
  const v = spawnSync(join(process.env.KUBEBUILDER_ASSETS ?? '', 'kube-apiserver'), ['--version'], {
    encoding: 'utf8',
  });
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

const args = process.argv.slice(2);
const fastOnly = args.includes('--fast');
const selected = args.filter((a) => !a.startsWith('-'));
const flags = args.filter((a) => a.startsWith('-') && a !== '--fast');
// The workspace package's own tests (packages/cel/test) run with kubeforge's, in the same lanes.
const roots = (selected.length ? selected : ['test', 'packages/cel/test']).map((p) =>
  join('build', relative(root, resolve(p)).replace(/\.ts$/, '.js')),
);
const files = roots.flatMap((p) => (existsSync(p) ? collect(p, []) : []));
if (files.length === 0) {
  console.error(`test: no test files under ${roots.join(', ')}`);
  process.exit(1);
}

// The fast lane's list: test files (as test/....test.ts), one per line, `#` comments.
const laneFile = join(root, 'test/fast-lane.txt');
const listed = readFileSync(laneFile, 'utf8')
  .split('\n')
  .map((l) => l.replace(/#.*/, '').trim())
  .filter(Boolean);
const missing = listed.filter((f) => !existsSync(join(root, f)));
if (missing.length) {
  console.error(`test: test/fast-lane.txt lists files that do not exist:\n  ${missing.join('\n  ')}`);
  process.exit(1);
}
const fastSet = new Set(listed.map((f) => join('build', f.replace(/\.ts$/, '.js'))));
const fast = files.filter((f) => fastSet.has(f));
const isE2e = (/** @type {string} */ f) => f.startsWith(`${join('build', 'test', 'e2e')}/`);
const server = fastOnly ? [] : files.filter((f) => !fastSet.has(f) && !isE2e(f));
const e2e = fastOnly ? [] : files.filter((f) => !fastSet.has(f) && isE2e(f));
if (fastOnly && fast.length === 0) {
  console.error(`test: no fast-lane file under ${roots.join(', ')} (test/fast-lane.txt lists them)`);
  process.exit(1);
}

// Every test must run: a skipped or todo test is a claim not checked, so it fails the run (a
// `--test-name-pattern` run skips by design and is exempt). Node's runner writes a TAP copy of
// its report to a file beside the reporter the terminal sees; its SKIP / TODO lines are counted.
const filtered = flags.some(
  (f) => f.startsWith('--test-name-pattern') || f.startsWith('--test-skip-pattern') || f.startsWith('--test-only'),
);
/** @type {string[]} */
const times = [];
/** @type {string[]} */
const summaries = [];

/**
 * One lane's counts and its failures, from its TAP copy, printed again after the last lane: a log
 * read from its tail (CI's) then names what failed in an early lane. Each failed test is listed
 * (not the suites holding it: their failureType is subtestsFailed) with its file and the first line
 * of its error.
 * @param {string} lane
 * @param {string} text
 */
function summarize(lane, text) {
  const lines = text.split('\n');
  const count = (/** @type {string} */ name) => lines.find((l) => l.startsWith(`# ${name} `))?.slice(name.length + 3);
  /** @type {string[]} */
  const failures = [];
  for (let i = 0; i < lines.length; i++) {
    const m = /^\s*not ok \d+ - (.*)$/.exec(lines[i]);
    if (!m) continue;
    let where = '';
    let error = '';
    let suite = false;
    for (let j = i + 1; j < lines.length && !/^\s*(?:not )?ok \d+ - /.test(lines[j]); j++) {
      if (/^\s*failureType: 'subtestsFailed'$/.test(lines[j])) suite = true;
      const loc = /^\s*location: '(.*)'$/.exec(lines[j]);
      if (loc && !where) where = relative(root, loc[1].replace(/^file:\/\//, ''));
      const err = /^\s*error: (.*)$/.exec(lines[j]);
      if (err && !error) {
        error = err[1] === '|-' || err[1] === '>-' ? (lines[j + 1] ?? '').trim() : err[1];
      }
    }
    if (suite) continue;
    failures.push(`  ${m[1]}${where ? `\n    at ${where}` : ''}${error ? `\n    ${error.slice(0, 300)}` : ''}`);
  }
  const head = `test: ${lane} lane: pass ${count('pass') ?? '?'}, fail ${count('fail') ?? '?'}, cancelled ${count('cancelled') ?? '?'}`;
  const more =
    failures.length > 40
      ? `\n  ...and ${failures.length - 40} more (see ${lane}'s TAP copy, build/test-report-${lane}.tap)`
      : '';
  return failures.length ? `${head}; failed:\n${failures.slice(0, 40).join('\n')}${more}` : head;
}
let failed = false;

/**
 * Runs one lane's files; its TAP copy goes to build/test-report-<lane>.tap.
 * @param {string} lane
 * @param {string[]} laneFiles
 * @param {number} concurrency
 * @param {NodeJS.ProcessEnv} env
 */
function runLane(lane, laneFiles, concurrency, env) {
  const tap = join(root, 'build', `test-report-${lane}.tap`);
  const reporter = flags.some((f) => f.startsWith('--test-reporter'))
    ? []
    : [
        '--test-reporter',
        process.stdout.isTTY ? 'spec' : 'tap',
        '--test-reporter-destination',
        'stdout',
        '--test-reporter',
        'tap',
        '--test-reporter-destination',
        tap,
      ];
  rmSync(tap, { force: true });
  console.error(`test: ${lane} lane: ${laneFiles.length} file(s), ${concurrency} at a time`);
  const started = Date.now();
  const r = spawnSync(
    process.execPath,
    ['--enable-source-maps', '--test', `--test-concurrency=${concurrency}`, ...reporter, ...flags, ...laneFiles],
    { stdio: 'inherit', env },
  );
  const seconds = (Date.now() - started) / 1000;
  times.push(`${lane} ${Math.floor(seconds / 60)}m${Math.round(seconds % 60)}s (${laneFiles.length} files)`);
  if (existsSync(tap)) summaries.push(summarize(lane, readFileSync(tap, 'utf8')));
  if (r.status !== 0) {
    failed = true;
    return;
  }
  if (!filtered && existsSync(tap)) {
    const notRun = readFileSync(tap, 'utf8')
      .split('\n')
      .filter((l) => /^\s*ok \d+ - .* # (SKIP|TODO)\b/.test(l))
      .map((l) => l.trim());
    if (notRun.length) {
      console.error(
        `test: ${notRun.length} test(s) did not run in the ${lane} lane (skipped or todo); every test must run:\n  ${notRun.join('\n  ')}`,
      );
      failed = true;
    }
  }
}

if (fast.length > 0) {
  /** @type {NodeJS.ProcessEnv} */
  const env = { ...process.env, KUBEFORGE_REPO_ROOT: root, KUBEFORGE_TEST_LANE: 'fast' };
  delete env.KUBEBUILDER_ASSETS;
  runLane('fast', fast, Math.max(1, availableParallelism()), env);
}
if (server.length + e2e.length > 0) provisionControlPlane();
if (server.length > 0) runLane('server', server, 1, { ...process.env, KUBEFORGE_REPO_ROOT: root });
if (e2e.length > 0) runLane('e2e', e2e, 1, { ...process.env, KUBEFORGE_REPO_ROOT: root });
for (const summary of summaries) console.error(summary);
console.error(`test: lane times: ${times.join(', ') || 'no test file selected'}`);
if (!failed && !filtered) console.error('test: 0 skipped, 0 todo');
process.exit(failed ? 1 : 0);
