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
// Each tier prints its own TAP summary; the run fails when a test of either fails, or when a file
// given did not report (a test that calls process.exit(0) ends its process early: a failing test
// names the files whose tests did not all run).
// `npm run test:unit` (`node hack/test.mjs --unit`) runs the unit tier alone.
// (TAP from the unit tier's processes is merged into one stream, with one summary.)
// A test file run alone (`node --test build/test/...`) starts its own control plane when it needs one.
// A script rather than `node --test build/test/` because Node 20 searches a folder argument
// while Node 22 and later only take files and globs, and has no global setup.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

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
  const [{ run }, { tap }, { finished }] = await Promise.all([import('node:test'), import('node:test/reporters'), import('node:stream/promises')]);
  // node --test's rule: a failing todo test (or a skipped one) does not fail the run.
  const stream = run({ files: tier, concurrency }).on('test:fail', (data) => {
    if (data.todo === undefined && data.skip === undefined) process.exitCode = 1;
  });
  const out = stream.compose(tap);
  out.pipe(process.stdout, { end: false });
  await finished(out);
}

/**
 * Runs the unit test files in one process per core (or one per file with --isolate): each
 * process imports its share of the files, whose tests run one file after the other, and reports
 * TAP. This script starts them itself rather than through node:test's run(), whose runner here
 * took about a sixth of a small unit tier's time; their reports become one TAP stream, in the
 * order of the shares: numbered through, with one plan and one summary.
 */
async function runUnitTier() {
  const processes = isolate ? unitFiles.length : Math.min(unitFiles.length, availableParallelism());
  console.error(`test: unit tier: ${unitFiles.length} test file(s) in ${processes} process(es), no control plane`);
  const shares = Array.from({ length: processes }, () => []);
  for (const [i, f] of unitFiles.entries()) shares[i % processes].push(f);
  const dir = mkdtempSync(join(tmpdir(), 'unit-tier-'));
  const children = new Set();
  // Interrupted (Ctrl-C, a CI job cancelled): stop the processes, remove the share files, exit as
  // the signal would have.
  const interrupted = (signal, code) => {
    for (const child of children) child.kill(signal);
    rmSync(dir, { recursive: true, force: true });
    process.exit(code);
  };
  const onInt = () => interrupted('SIGINT', 130);
  const onTerm = () => interrupted('SIGTERM', 143);
  process.once('SIGINT', onInt).once('SIGTERM', onTerm);
  try {
    const started = Date.now();
    const merged = new MergedTap();
    const queue = shares.map((files, i) => ({ files, i }));
    const worker = async () => {
      for (let job = queue.shift(); job; job = queue.shift()) {
        const share = join(dir, `share-${job.i + 1}`);
        writeFileSync(`${share}.mjs`, shareEntry(`${share}.progress`, job.files));
        writeFileSync(`${share}.reporter.mjs`, progressReporter(`${share}.progress`));
        await runShare(share, job.files, merged.report(job.i), children);
      }
    };
    await Promise.all(Array.from({ length: Math.min(processes, availableParallelism()) }, worker));
    merged.end(Date.now() - started);
  } finally {
    process.off('SIGINT', onInt).off('SIGTERM', onTerm);
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The source of a share's entry: it imports the files one after the other, and appends `drained`
 * to `progress` when the process runs out of work (Node's 'beforeExit', which a process.exit()
 * never reaches): every file ran, even one without tests (the reporter never starts then).
 */
function shareEntry(progress, files) {
  const drained = `import { appendFileSync } from 'node:fs';\nprocess.once('beforeExit', () => appendFileSync(${JSON.stringify(progress)}, 'drained\\n'));\n`;
  return drained + files.map((f) => `await import(${JSON.stringify(pathToFileURL(resolve(f)).href)});\n`).join('');
}

/**
 * The source of a second reporter for a share's process: it appends to `progress`, synchronously
 * (so a line written survives a process.exit()), each top-level test as it is queued and as it
 * ends, with the file that declared it, then `end` when the run ends as it should.
 */
function progressReporter(progress) {
  return `import { openSync, writeSync } from 'node:fs';
const fd = openSync(${JSON.stringify(progress)}, 'a');
export default async function* progress(source) {
  for await (const { type, data } of source) {
    if (data?.nesting !== 0 || data.file === undefined) continue;
    if (type === 'test:enqueue' || type === 'test:pass' || type === 'test:fail') {
      writeSync(fd, \`\${JSON.stringify([type, data.file])}\\n\`);
    }
  }
  writeSync(fd, 'end\\n');
}
`;
}

/**
 * The files of a share that did not report: none when its process ran to the end; otherwise
 * those with a top-level test queued and not ended, or with no test seen at all (a process that
 * exits early, even with code 0 (a test calling process.exit(0)), ends the files after it unrun).
 */
function unreported(progress, files) {
  let lines = [];
  try {
    lines = readFileSync(progress, 'utf8').split('\n').filter(Boolean);
  } catch {
    // the process never started its reporter
  }
  if (lines.includes('end') || lines.includes('drained')) return [];
  const open = new Map();
  const seen = new Set();
  for (const line of lines) {
    if (line === 'end') continue;
    const [type, file] = JSON.parse(line);
    const path = file.startsWith('file:') ? fileURLToPath(file) : file;
    seen.add(path);
    open.set(path, (open.get(path) ?? 0) + (type === 'test:enqueue' ? 1 : -1));
  }
  const real = (f) => {
    try {
      return realpathSync(f);
    } catch {
      return resolve(f);
    }
  };
  return files.filter((f) => !seen.has(real(f)) || open.get(real(f)) !== 0);
}

/**
 * Runs one share's files in a Node process of its own with the TAP reporter, and the progress
 * reporter that tells which files reported (kept in `children` while it runs); resolves when it
 * exits, or could not start.
 */
function runShare(share, files, report, children) {
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT; // set when this script itself runs under node --test: children would not speak TAP
  const reporters = [
    '--test-reporter=tap',
    '--test-reporter-destination=stdout',
    `--test-reporter=${pathToFileURL(`${share}.reporter.mjs`).href}`,
    '--test-reporter-destination=stderr',
  ];
  const child = spawn(process.execPath, [...process.execArgv, ...reporters, `${share}.mjs`], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env,
  });
  children.add(child);
  let rest = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop();
    for (const line of lines) report.line(line);
  });
  return new Promise((done) => {
    // A process that could not start (no file descriptor left...) may never emit 'close'.
    child.on('error', (err) => {
      children.delete(child);
      report.exit(files, err.message, files);
      done();
    });
    child.on('close', (code, signal) => {
      children.delete(child);
      if (rest) report.line(rest);
      const failure = code === 0 ? undefined : signal ? `signal ${signal}` : `code ${code}`;
      report.exit(files, failure, unreported(`${share}.progress`, files));
      done();
    });
  });
}

/** A name or message as Node's TAP reporter writes it: `#` (a directive) and control characters escaped. */
function tapEscape(text) {
  const escapes = { '\\': '\\\\', '#': '\\#', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f', '\v': '\\v' };
  return text.replace(/[\\#\n\r\t\b\f\v]/g, (c) => escapes[c]);
}

/**
 * The TAP of several processes as one stream: the first unfinished process's lines go out as they
 * come, the others' wait their turn. Top-level test numbers continue from the processes before;
 * each process's own header, plan and summary are left out, and one plan and summary end the stream.
 */
class MergedTap {
  static SUMMARY = /^# (tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) (\S+)$/;
  totals = { tests: 0, suites: 0, pass: 0, fail: 0, cancelled: 0, skipped: 0, todo: 0 };
  numbered = 0;
  head = 0;
  pending = [];

  constructor() {
    process.stdout.write('TAP version 13\n');
  }

  /**
   * The report of the i-th process: its lines, then how it exited (undefined when with code 0)
   * and which of its files did not report.
   */
  report(i) {
    const own = { lines: [], done: false, planned: false, failed: 0 };
    this.pending[i] = own;
    return {
      line: (line) => {
        if (line === 'TAP version 13') return;
        if (/^1\.\.\d+$/.test(line)) {
          own.planned = true;
          return;
        }
        const summary = own.planned && MergedTap.SUMMARY.exec(line);
        if (summary) {
          if (summary[1] === 'fail') own.failed += Number(summary[2]);
          if (summary[1] !== 'duration_ms') this.totals[summary[1]] += Number(summary[2]);
          return;
        }
        own.lines.push(line);
        if (this.head === i) this.flush();
      },
      exit: (files, failure, missing) => {
        if (own.done) return;
        if (missing.length > 0 || (failure !== undefined && own.failed === 0)) {
          // A process that failed outside its tests (a file that does not load, an error after
          // the tests), or ended before some of its files reported (a process.exit(0) in a test
          // leaves the files after it unrun): a failing test named after those files (or all its
          // files), as node --test reports a file.
          const named = missing.length > 0 ? missing : files;
          const error =
            missing.length > 0
              ? `test process exited with ${failure ?? 'code 0'} before ${named.length === 1 ? 'this file' : 'these files'} reported: ${named.join(', ')}`
              : `test process exited with ${failure}`;
          this.totals.tests++;
          this.totals.fail++;
          own.lines.push(
            `not ok 1 - ${tapEscape(named.join(', '))}`,
            '  ---',
            "  failureType: 'testCodeFailure'",
            `  error: '${error.replaceAll("'", "''")}'`,
            "  code: 'ERR_TEST_FAILURE'",
            '  ...',
          );
        }
        own.done = true;
        if (this.head === i) this.flush();
      },
    };
  }

  /** Writes what the processes from the head on have ready, moving the head past those that exited. */
  flush() {
    while (this.head < this.pending.length) {
      const own = this.pending[this.head];
      if (!own) return;
      for (const line of own.lines) process.stdout.write(`${this.renumber(line)}\n`);
      own.lines = [];
      if (!own.done) return;
      this.head++;
    }
  }

  /** A top-level test line numbered after the tests of the processes before. */
  renumber(line) {
    const m = /^(not ok|ok) (\d+)(.*)$/.exec(line);
    return m ? `${m[1]} ${++this.numbered}${m[3]}` : line;
  }

  /** The plan and the summary of all the processes; a failing test fails the run. */
  end(ms) {
    const t = this.totals;
    process.stdout.write(`1..${this.numbered}\n`);
    for (const [k, v] of Object.entries(t)) process.stdout.write(`# ${k} ${v}\n`);
    process.stdout.write(`# duration_ms ${ms}\n`);
    if (t.fail > 0) process.exitCode = 1;
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

if (unitFiles.length > 0) await runUnitTier();
else if (unitOnly) {
  console.error(`test: no unit test files (*.unit.test.js) ${explicit ? 'among the files given' : `under ${root}`}`);
}
if (serverFiles.length > 0) await runServerTier();
