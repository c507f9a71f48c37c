#!/usr/bin/env node
// `npm run generate:testdata`: regenerates testdata/project, the Kubebuilder book's CronJob
// tutorial as a kubeforge project, with the real CLI (bin/kubeforge.js, built first when dist/ is
// missing or older than src/) in a fresh temporary folder:
//   1. kubeforge init / create api v1 / create webhook (defaulting, validation) / create api v2
//      (no controller) / create webhook --conversion --spoke v2: the commands of the book;
//   2. the user-owned code of the book laid over what they scaffolded: testdata/overlay/ (types of
//      v1 and v2, the reconciler, the webhooks, the conversion, their tests, the samples) and the
//      cron parser the sample depends on;
//   3. kubeforge manifests; then the project copied to testdata/project (or --out <dir>), without
//      what its .gitignore leaves out (node_modules, build, .kubeforge/cache).
// Deterministic: the same kubeforge and overlay give the same bytes (a test regenerates and
// compares: test/e2e/testdata.test.ts).
//
// The project depends on kubeforge from the registry (`--kubeforge-source registry`, "kubeforge":
// "^<version>"): a tarball source would commit a binary .kubeforge/kubeforge-<version>-<hash>.tgz
// that changes with every change to kubeforge, and a link source a path of this machine. To run the
// sample against this checkout, point the dependency at `npm pack`'s tarball in a copy (the test does).
//
//   node scripts/generate-testdata.mjs [--out <dir>] [--quiet]
// @ts-check
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(import.meta.url), '../..');
const kubeforge = join(root, 'bin/kubeforge.js');
const overlay = join(root, 'testdata/overlay');

/** What the sample depends on beyond what `init` writes (as `npm install <name>` would add it). */
const extraDependencies = { 'cron-parser': '^5.10.5' };

/** The CLI runs of the tutorial, in order (each after the previous one, in the project folder). */
const commands = [
  [
    'init',
    '--domain',
    'tutorial.kubebuilder.io',
    '--project-name',
    'project',
    '--owner',
    'The Kubernetes authors',
    '--kubeforge-source',
    'registry',
    '--skip-install',
  ],
  ['create', 'api', '--group', 'batch', '--version', 'v1', '--kind', 'CronJob'],
  [
    'create',
    'webhook',
    '--group',
    'batch',
    '--version',
    'v1',
    '--kind',
    'CronJob',
    '--defaulting',
    '--programmatic-validation',
  ],
  ['create', 'api', '--group', 'batch', '--version', 'v2', '--kind', 'CronJob', '--controller=false'],
  ['create', 'webhook', '--group', 'batch', '--version', 'v1', '--kind', 'CronJob', '--conversion', '--spoke', 'v2'],
];

/** Paths (relative to the project) left out of the copy: what the project's .gitignore ignores. */
const excluded = new Set(['node_modules', 'build', '.kubeforge/cache', '.kubeforge/lock']);

const { values: flags } = parseArgs({
  options: {
    out: { type: 'string', default: join(root, 'testdata/project') },
    quiet: { type: 'boolean', default: false },
  },
  strict: true,
});
const out = resolve(flags.out ?? join(root, 'testdata/project'));

/** @param {string} line */
function say(line) {
  if (!flags.quiet) process.stdout.write(`${line}\n`);
}

/**
 * Runs one command; throws with its output when it fails.
 * @param {string} cmd
 * @param {string[]} args
 * @param {string} cwd
 * @param {NodeJS.ProcessEnv} [env]
 */
function run(cmd, args, cwd, env = process.env) {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) {
    throw new Error(
      `generate-testdata: '${[cmd, ...args].join(' ')}' failed in ${cwd} (exit ${r.status ?? r.signal}):\n${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? String(r.error) : ''}`,
    );
  }
  return r.stdout;
}

/**
 * The environment of the CLI runs: only what a shell needs, so that nothing of this machine's
 * (KUBEFORGE_* settings, npm's variables when run by `npm run`, colours) reaches the output.
 * @returns {NodeJS.ProcessEnv}
 */
function cliEnv() {
  /** @type {NodeJS.ProcessEnv} */
  const env = { NO_COLOR: '1', LANG: 'C', TZ: 'UTC' };
  for (const name of ['PATH', 'HOME', 'TMPDIR', 'SYSTEMROOT']) {
    if (process.env[name] !== undefined) env[name] = process.env[name];
  }
  return env;
}

/**
 * Copies `from` into `to` except the excluded paths; files and folders in sorted order.
 * @param {string} from
 * @param {string} to
 * @param {string} [rel]
 */
function copyProject(from, to, rel = '') {
  mkdirSync(join(to, rel), { recursive: true });
  for (const entry of readdirSync(join(from, rel), { withFileTypes: true }).sort((a, b) =>
    a.name < b.name ? -1 : 1,
  )) {
    const path = rel ? `${rel}/${entry.name}` : entry.name;
    if (excluded.has(path)) continue;
    if (entry.isDirectory()) copyProject(from, to, path);
    else cpSync(join(from, path), join(to, path));
  }
}

/**
 * Lays testdata/overlay over the project: each of its files replaces (or adds) the project's file
 * at the same path. Returns the paths laid over.
 * @param {string} project
 * @returns {string[]}
 */
function applyOverlay(project) {
  const files = readdirSync(overlay, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(overlay, join(e.parentPath, e.name)).split('\\').join('/'))
    .sort();
  for (const file of files) {
    mkdirSync(join(project, file, '..'), { recursive: true });
    cpSync(join(overlay, file), join(project, file));
  }
  return files;
}

/**
 * Adds `extraDependencies` to the project's package.json, keys sorted as npm writes them.
 * @param {string} project
 */
function addDependencies(project) {
  const file = join(project, 'package.json');
  const pkg = JSON.parse(readFileSync(file, 'utf8'));
  /** @type {Record<string, string>} */
  const deps = { ...pkg.dependencies, ...extraDependencies };
  pkg.dependencies = Object.fromEntries(Object.entries(deps).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  writeFileSync(file, `${JSON.stringify(pkg, null, 2)}\n`);
}

/**
 * Why dist/ must be built before the CLI runs (it is missing, or older than a file of src/), or
 * undefined when it is up to date. templates/ are read from the source tree, so they need no build.
 * @returns {string | undefined}
 */
function buildNeeded() {
  let built;
  try {
    built = statSync(join(root, 'dist/cli/index.js')).mtimeMs;
  } catch {
    return 'dist/ is missing';
  }
  const newer = readdirSync(join(root, 'src'), { recursive: true, withFileTypes: true }).find(
    (e) => e.isFile() && statSync(join(e.parentPath, e.name)).mtimeMs > built,
  );
  return newer ? `${relative(root, join(newer.parentPath, newer.name))} is newer than dist/` : undefined;
}

function main() {
  const why = buildNeeded();
  if (why) {
    say(`==> build kubeforge (${why})`);
    run('npm', ['run', 'build'], root);
  }
  const work = mkdtempSync(join(tmpdir(), 'kf-testdata-'));
  const project = join(work, 'project');
  mkdirSync(project);
  try {
    const env = cliEnv();
    for (const args of commands) {
      say(`==> kubeforge ${args.map((w) => (/\s/.test(w) ? JSON.stringify(w) : w)).join(' ')}`);
      run(process.execPath, [kubeforge, ...args, '--no-color'], project, env);
    }
    const laid = applyOverlay(project);
    say(`==> the book's code: ${laid.length} files from ${relative(root, overlay)}`);
    addDependencies(project);
    say(`==> package.json: ${Object.keys(extraDependencies).join(', ')}`);
    say('==> kubeforge manifests');
    run(process.execPath, [kubeforge, 'manifests', '--no-color'], project, env);

    rmSync(out, { recursive: true, force: true });
    copyProject(project, out);
    say(`==> ${relative(process.cwd(), out) || '.'}`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

try {
  main();
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
}
