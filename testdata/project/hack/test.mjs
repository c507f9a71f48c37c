// `npm test`: runs the compiled tests (build/test/**/*.test.js, or the files given) with Node's
// test runner, each file in a process of its own, TAP on stdout, in two tiers:
//   1. the unit tier, *.unit.test.js: tests on kubeforge/testing's FakeAPIServer (the Kubernetes
//      API in memory, in the test's own process), or on no server at all. No control plane: they
//      run first, in seconds, and need no KUBEBUILDER_ASSETS. Each file starts its own fake
//      server, so the files run in parallel: one process per core, each running its share of the
//      files one after the other (a process per file would load Node and the libraries again for
//      every file, most of a unit test's time). Files that share a process share its globals
//      (process.env, module state): keep a unit test file independent of the others, or run
//      `node hack/test.mjs --isolate` (a process per file) to find one that is not;
//   2. every other test file, one at a time, against ONE control plane for the whole tier
//      (envtest's suite model): etcd and kube-apiserver start once here, after the unit tier,
//      every test file's TestEnvironment joins them (through KUBEFORGE_TEST_KUBECONFIG) and they
//      stop at the end.
// Each tier prints its own TAP summary; the run fails when a test of either fails.
// `npm run test:unit` (`node hack/test.mjs --unit`) runs the unit tier alone.
// (TAP from the unit tier's processes is merged into one stream, with one summary.)
// A test file run alone (`node --test build/test/...`) starts its own control plane when it needs one.
// A script rather than `node --test build/test/` because Node 20 searches a folder argument
// while Node 22 and later only take files and globs, and has no global setup.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { run } from 'node:test';
import { tap } from 'node:test/reporters';
import { finished } from 'node:stream/promises';

const root = 'build/test';
const args = process.argv.slice(2);
const unitOnly = args.includes('--unit');
const isolate = args.includes('--isolate');
let files = args.filter((a) => a !== '--unit' && a !== '--isolate');
const explicit = files.length > 0;
if (!explicit) {
  try {
    files = readdirSync(root, { recursive: true })
      .map(String)
      .filter((f) => f.endsWith('.test.js'))
      .map((f) => join(root, f))
      .sort();
  } catch {
    files = [];
  }
}
if (files.length === 0) {
  console.error(`no *.test.js files under ${root}: run npm run build first`);
  process.exit(1);
}

const isUnit = (f) => f.endsWith('.unit.test.js');
const unitFiles = files.filter(isUnit);
const serverFiles = unitOnly ? [] : files.filter((f) => !isUnit(f));

/** Runs the files of a tier, `concurrency` at a time, with TAP on stdout (in file order); a failing test fails the run. */
async function runTier(tier, concurrency) {
  // node --test's rule: a failing todo test (or a skipped one) does not fail the run.
  const stream = run({ files: tier, concurrency }).on('test:fail', (data) => {
    if (data.todo === undefined && data.skip === undefined) process.exitCode = 1;
  });
  const out = stream.compose(tap);
  out.pipe(process.stdout, { end: false });
  await finished(out);
}

if (unitFiles.length > 0) await runUnitTier(); else if (unitOnly) {
  console.error(`test: no unit test files (*.unit.test.js) ${explicit ? 'among the files given' : `under ${root}`}`);
}
if (serverFiles.length > 0) await runServerTier();

/**
 * Runs the unit test files in one process per core (or one per file with --isolate): each
 * process imports its share of the files, whose tests run one file after the other.
 */
async function runUnitTier() {
  const processes = isolate ? unitFiles.length : Math.min(unitFiles.length, availableParallelism());
  console.error(`test: unit tier: ${unitFiles.length} test file(s) in ${processes} process(es), no control plane`);
  if (isolate) return runTier(unitFiles, availableParallelism());
  const shares = Array.from({ length: processes }, () => []);
  for (const [i, f] of unitFiles.entries()) shares[i % processes].push(f);
  const dir = mkdtempSync(join(tmpdir(), 'unit-tier-'));
  try {
    const entries = shares.map((share, i) => {
      const entry = join(dir, `share-${i + 1}.mjs`);
      writeFileSync(entry, share.map((f) => `await import(${JSON.stringify(pathToFileURL(resolve(f)).href)});\n`).join(''));
      return entry;
    });
    await runTier(entries, processes);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Starts the control plane, runs the other test files against it, stops it. */
async function runServerTier() {
  const { startSharedTestEnvironment, stopSharedTestEnvironment } = await import('kubeforge/testing');
  let env;
  try {
    // The CRDs are installed once here; each file installs them again (a no-op when unchanged).
    env = await startSharedTestEnvironment({ crdDirectoryPaths: ['config/crd/bases'], errorIfCRDPathMissing: false });
  } catch (err) {
    console.error(`test: cannot start the test control plane: ${err instanceof Error ? err.message : err}`);
    process.exitCode = 1;
    return;
  }
  const { apiserver } = env.pids;
  console.error(
    apiserver === undefined
      ? `test: ${serverFiles.length} test file(s) against the existing cluster`
      : `test: one control plane (kube-apiserver pid ${apiserver}) for ${serverFiles.length} test file(s)`,
  );
  try {
    await runTier(serverFiles, 1);
  } finally {
    await stopSharedTestEnvironment(env);
  }
}
