// `npm test`: runs the compiled tests (build/test/**/*.test.js, or the files given) with Node's
// test runner, one file at a time, TAP on stdout, against ONE control plane for the whole run
// (envtest's suite model): etcd and kube-apiserver start once here, every test file's
// TestEnvironment joins them (through KUBEFORGE_TEST_KUBECONFIG) and they stop at the end.
// A test file run alone (`node --test build/test/...`) starts its own.
// A script rather than `node --test build/test/` because Node 20 searches a folder argument
// while Node 22 and later only take files and globs, and has no global setup.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { run } from 'node:test';
import { tap } from 'node:test/reporters';
import { finished } from 'node:stream/promises';
import { startSharedTestEnvironment, stopSharedTestEnvironment } from 'kubeforge/testing';

const root = 'build/test';
let files = process.argv.slice(2);
if (files.length === 0) {
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

let env;
try {
  // The CRDs are installed once here; each file installs them again (a no-op when unchanged).
  env = await startSharedTestEnvironment({ crdDirectoryPaths: ['config/crd/bases'], errorIfCRDPathMissing: false });
} catch (err) {
  console.error(`test: cannot start the test control plane: ${err instanceof Error ? err.message : err}`);
  process.exit(1);
}
const { apiserver } = env.pids;
console.error(
  apiserver === undefined
    ? `test: ${files.length} test file(s) against the existing cluster`
    : `test: one control plane (kube-apiserver pid ${apiserver}) for ${files.length} test file(s)`,
);

try {
  // node --test's rule: a failing todo test (or a skipped one) does not fail the run.
  const stream = run({ files, concurrency: 1 }).on('test:fail', (data) => {
    if (data.todo === undefined && data.skip === undefined) process.exitCode = 1;
  });
  const out = stream.compose(tap);
  out.pipe(process.stdout);
  await finished(out);
} finally {
  await stopSharedTestEnvironment(env);
}
