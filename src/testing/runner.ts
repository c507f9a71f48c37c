/**
 * `kubeforge test`: a generated project's test runner, shipped in the package (it was the
 * project's own `hack/test.mjs`, which only `alpha update` could fix). It runs the compiled tests
 * (build/test/**\/*.test.js, or the files given) with Node's test runner in child processes, TAP
 * on `out`, in up to three tiers:
 *   1. the unit tier, *.unit.test.js: tests on kubeforge/testing's FakeAPIServer (the Kubernetes
 *      API in memory, in the test's own process), or on no server at all. No control plane: they
 *      run first, in seconds, and need no KUBEBUILDER_ASSETS. Each file starts its own fake
 *      server, so the files run in parallel: one process per core, each running its share of the
 *      files one after the other (a process per file would load Node and the libraries again for
 *      every file, most of a unit test's time). Files that share a process share its globals
 *      (process.env, module state): keep a unit test file independent of the others, or run
 *      `kubeforge test --unit --isolate` (a process per file) to find one that is not;
 *   2. every other test file, one at a time, against ONE control plane for the whole tier
 *      (envtest's suite model): etcd and kube-apiserver start once here, after the unit tier,
 *      every test file's TestEnvironment joins them (through KUBEFORGE_TEST_KUBECONFIG) and they
 *      stop at the end;
 *   3. e2e files, only when named (build/test/e2e/..., see {@link isE2e}): one at a time, with no
 *      control plane, since they deploy to a cluster of their own.
 * Each tier prints its own TAP summary; the run fails when a test of any fails, or when a file
 * given did not report (a test that calls process.exit(0) ends its process early: a failing test
 * names the files whose tests did not all run). The test processes run with source maps on.
 * A test file run alone (`node --test build/test/...`) starts its own control plane when it needs one.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** Where the compiled tests are, relative to the project. */
export const TEST_ROOT = 'build/test';

export interface RunTestsOptions {
  /** The project folder: build/test and config/crd/bases are read from it, the tests run in it. */
  cwd: string;
  /** The compiled test files to run, relative to cwd (default: every *.test.js under build/test). */
  files?: readonly string[];
  /** The unit tier alone (*.unit.test.js). */
  unit?: boolean;
  /** A process per unit test file rather than one per core. */
  isolate?: boolean;
  /** Where TAP goes. */
  out: (text: string) => void;
  /** Where progress lines go. */
  err: (text: string) => void;
}

/** The TAP summary counts of a run (both tiers added up). */
export interface TestTotals {
  tests: number;
  suites: number;
  pass: number;
  fail: number;
  cancelled: number;
  skipped: number;
  todo: number;
}

export interface RunTestsResult {
  /** A test failed (not a todo or skipped one), a file did not report, or the control plane did not start. */
  failed: boolean;
  /** The files run, per tier. */
  unitFiles: string[];
  serverFiles: string[];
  /** e2e files given (see {@link isE2e}): run last, one at a time, with no control plane. */
  e2eFiles: string[];
  /** The e2e files' failing tests (undefined when none ran). */
  e2eFailures?: number;
  /** The unit tier's summary (undefined when it did not run). */
  unitTotals?: TestTotals;
  /** The server tier's failing tests (undefined when it did not run). */
  serverFailures?: number;
  /** Why the control plane did not start (the server tier then ran no test). */
  controlPlaneError?: string;
  /** The signal (SIGINT, SIGTERM) that stopped the unit tier's processes. */
  interrupted?: NodeJS.Signals;
}

/** No compiled test file to run: `files` are under `root`, none found. */
export class NoTestFilesError extends Error {
  constructor(readonly root: string) {
    super(`no *.test.js files under ${root}`);
    this.name = 'NoTestFilesError';
  }
}

/** The compiled test files under build/test of `cwd`, sorted; none when it does not exist. */
export function findTestFiles(cwd: string): string[] {
  try {
    return readdirSync(join(cwd, TEST_ROOT), { recursive: true })
      .map(String)
      .filter((f) => f.endsWith('.test.js'))
      .map((f) => join(TEST_ROOT, f))
      .sort();
  } catch {
    return [];
  }
}

const isUnit = (f: string) => f.endsWith('.unit.test.js');

/**
 * An e2e test (build/test/e2e/..., as the scaffold's `manager.e2e.js`): it deploys to a real
 * cluster of its own (Kind), so it runs with no control plane, as Kubebuilder's `go test ./test/e2e`
 * does, and only when named (`npm run test:e2e`).
 */
export const isE2e = (f: string) => /(^|[\\/])e2e[\\/]/.test(f) || /\.e2e(\.test)?\.js$/.test(f);

/**
 * Why each of the files given cannot be run, if any: a test file is compiled JavaScript
 * (`*.test.js`, or an e2e file) inside the project; with `unit`, a unit test file.
 */
export function unrunnableFiles(cwd: string, files: readonly string[], unit: boolean): string[] {
  const root = resolve(cwd);
  return files.flatMap((f) => {
    const abs = resolve(root, f);
    const rel = relative(root, abs);
    if (rel.startsWith('..') || isAbsolute(rel)) return [`${f}: outside the project (${root})`];
    if (/\.(c|m)?tsx?$/.test(f))
      return [`${f}: a TypeScript source; give its compiled file (${TEST_ROOT}/... .js, after npm run build)`];
    if (!f.endsWith('.test.js') && !isE2e(f)) return [`${f}: not a compiled test file (*.test.js)`];
    if (unit && !isUnit(f)) return [`${f}: not a unit test file (*.unit.test.js), and --unit runs only those`];
    return [];
  });
}

/**
 * Runs the tests of a project (see the module's comment). Resolves with what failed, never
 * rejects for a failing test; throws {@link NoTestFilesError} when there is nothing to run.
 */
export async function runTests(options: RunTestsOptions): Promise<RunTestsResult> {
  const { cwd, err } = options;
  const explicit = (options.files?.length ?? 0) > 0;
  const files = explicit ? [...(options.files ?? [])] : findTestFiles(cwd);
  if (files.length === 0) throw new NoTestFilesError(TEST_ROOT);
  const unitFiles = files.filter(isUnit);
  const serverFiles = options.unit ? [] : files.filter((f) => !isUnit(f) && !isE2e(f));
  const e2eFiles = options.unit ? [] : files.filter((f) => !isUnit(f) && isE2e(f));
  const result: RunTestsResult = { failed: false, unitFiles, serverFiles, e2eFiles };
  if (unitFiles.length > 0) {
    const unit = await runUnitTier(unitFiles, options);
    result.unitTotals = unit.totals;
    if (unit.totals.fail > 0) result.failed = true;
    if (unit.interrupted) {
      result.interrupted = unit.interrupted;
      result.failed = true;
      return result;
    }
  } else if (options.unit) {
    err(`test: no unit test files (*.unit.test.js) ${explicit ? 'among the files given' : `under ${TEST_ROOT}`}\n`);
  }
  if (serverFiles.length > 0) {
    const server = await runServerTier(serverFiles, options);
    if (server.error !== undefined) result.controlPlaneError = server.error;
    else result.serverFailures = server.failures;
    if (server.error !== undefined || server.failures > 0) result.failed = true;
  }
  if (e2eFiles.length > 0) {
    options.err(`test: ${e2eFiles.length} e2e test file(s), on the cluster they deploy to (no control plane)\n`);
    result.e2eFailures = await runTier(e2eFiles, 1, options);
    if (result.e2eFailures > 0) result.failed = true;
  }
  return result;
}

/** The environment of a test process: TAP (not the parent's test context) and source maps on. */
function childEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT; // set when the runner itself runs under node --test: children would not speak TAP
  const nodeOptions = env.NODE_OPTIONS ?? '';
  if (!/(^|\s)--enable-source-maps(\s|$)/.test(nodeOptions) && !process.execArgv.includes('--enable-source-maps'))
    env.NODE_OPTIONS = `${nodeOptions} --enable-source-maps`.trim();
  return env;
}

/** Runs the files of a tier `concurrency` at a time with node:test's run(), TAP on `out` (in file order); the failing tests. */
async function runTier(files: readonly string[], concurrency: number, options: RunTestsOptions): Promise<number> {
  const [{ run }, { tap }] = await Promise.all([import('node:test'), import('node:test/reporters')]);
  // run() starts each file's process with this process's environment: source maps on, TAP.
  const saved = { NODE_OPTIONS: process.env.NODE_OPTIONS, NODE_TEST_CONTEXT: process.env.NODE_TEST_CONTEXT };
  const env = childEnv();
  const restore = (name: keyof typeof saved) => {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  };
  let failures = 0;
  try {
    if (env.NODE_OPTIONS === undefined) delete process.env.NODE_OPTIONS;
    else process.env.NODE_OPTIONS = env.NODE_OPTIONS;
    // node --test's rule: a failing todo test (or a skipped one) does not fail the run.
    const stream = run({ files: files.map((f) => resolve(options.cwd, f)), concurrency }).on('test:fail', (data) => {
      if (data.todo === undefined && data.skip === undefined) failures++;
    });
    for await (const chunk of stream.compose(tap)) options.out(String(chunk));
  } finally {
    restore('NODE_OPTIONS');
    restore('NODE_TEST_CONTEXT');
  }
  return failures;
}

/**
 * Runs the unit test files in one process per core (or one per file with `isolate`): each
 * process imports its share of the files, whose tests run one file after the other, and reports
 * TAP. The runner starts them itself rather than through node:test's run(), whose runner took
 * about a sixth of a small unit tier's time; their reports become one TAP stream, in the order of
 * the shares: numbered through, with one plan and one summary.
 */
async function runUnitTier(
  unitFiles: readonly string[],
  options: RunTestsOptions,
): Promise<{ totals: TestTotals; interrupted?: NodeJS.Signals }> {
  const processes = options.isolate ? unitFiles.length : Math.min(unitFiles.length, availableParallelism());
  options.err(`test: unit tier: ${unitFiles.length} test file(s) in ${processes} process(es), no control plane\n`);
  const shares: string[][] = Array.from({ length: processes }, () => []);
  for (const [i, f] of unitFiles.entries()) shares[i % processes].push(f);
  const dir = mkdtempSync(join(tmpdir(), 'unit-tier-'));
  const children = new Set<ChildProcess>();
  // Interrupted (Ctrl-C, a CI job cancelled): stop the processes, start no other, remove the
  // share files; the caller reports the signal. A second signal kills what still runs.
  let interrupted: NodeJS.Signals | undefined;
  const stop = (signal: NodeJS.Signals) => {
    const again = interrupted !== undefined;
    interrupted ??= signal;
    for (const child of children) child.kill(again ? 'SIGKILL' : signal);
  };
  const onInt = () => stop('SIGINT');
  const onTerm = () => stop('SIGTERM');
  process.on('SIGINT', onInt).on('SIGTERM', onTerm);
  try {
    const started = Date.now();
    const merged = new MergedTap(options.out);
    const queue = shares.map((files, i) => ({ files, i }));
    const worker = async () => {
      for (let job = queue.shift(); job && interrupted === undefined; job = queue.shift()) {
        const share = join(dir, `share-${job.i + 1}`);
        writeFileSync(`${share}.mjs`, shareEntry(`${share}.progress`, job.files, options.cwd));
        writeFileSync(`${share}.reporter.mjs`, progressReporter(`${share}.progress`));
        await runShare(share, job.files, merged.report(job.i), children, options.cwd);
      }
    };
    await Promise.all(Array.from({ length: Math.min(processes, availableParallelism()) }, worker));
    if (interrupted === undefined) merged.end(Date.now() - started);
    return { totals: merged.totals, ...(interrupted !== undefined && { interrupted }) };
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
function shareEntry(progress: string, files: readonly string[], cwd: string): string {
  const drained = `import { appendFileSync } from 'node:fs';\nprocess.once('beforeExit', () => appendFileSync(${JSON.stringify(progress)}, 'drained\\n'));\n`;
  return drained + files.map((f) => `await import(${JSON.stringify(pathToFileURL(resolve(cwd, f)).href)});\n`).join('');
}

/**
 * The source of a second reporter for a share's process: it appends to `progress`, synchronously
 * (so a line written survives a process.exit()), each top-level test as it is queued and as it
 * ends, with the file that declared it, then `end` when the run ends as it should.
 */
function progressReporter(progress: string): string {
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
function unreported(progress: string, files: readonly string[], cwd: string): string[] {
  let lines: string[] = [];
  try {
    lines = readFileSync(progress, 'utf8').split('\n').filter(Boolean);
  } catch {
    // the process never started its reporter
  }
  if (lines.includes('end') || lines.includes('drained')) return [];
  const open = new Map<string, number>();
  const seen = new Set<string>();
  for (const line of lines) {
    if (line === 'end') continue;
    const [type, file] = JSON.parse(line) as [string, string];
    const path = file.startsWith('file:') ? fileURLToPath(file) : file;
    seen.add(path);
    open.set(path, (open.get(path) ?? 0) + (type === 'test:enqueue' ? 1 : -1));
  }
  const real = (f: string) => {
    try {
      return realpathSync(resolve(cwd, f));
    } catch {
      return resolve(cwd, f);
    }
  };
  return files.filter((f) => !seen.has(real(f)) || open.get(real(f)) !== 0);
}

interface ShareReport {
  line(line: string): void;
  exit(files: readonly string[], failure: string | undefined, missing: readonly string[]): void;
}

/**
 * Runs one share's files in a Node process of its own with the TAP reporter, and the progress
 * reporter that tells which files reported (kept in `children` while it runs); resolves when it
 * exits, or could not start.
 */
function runShare(
  share: string,
  files: readonly string[],
  report: ShareReport,
  children: Set<ChildProcess>,
  cwd: string,
): Promise<void> {
  const reporters = [
    '--test-reporter=tap',
    '--test-reporter-destination=stdout',
    `--test-reporter=${pathToFileURL(`${share}.reporter.mjs`).href}`,
    '--test-reporter-destination=stderr',
  ];
  const child = spawn(process.execPath, [...process.execArgv, ...reporters, `${share}.mjs`], {
    cwd,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: childEnv(),
  });
  children.add(child);
  let rest = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop() ?? '';
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
      report.exit(files, failure, unreported(`${share}.progress`, files, cwd));
      done();
    });
  });
}

/** A name or message as Node's TAP reporter writes it: `#` (a directive) and control characters escaped. */
function tapEscape(text: string): string {
  const escapes: Record<string, string> = {
    '\\': '\\\\',
    '#': '\\#',
    '\n': '\\n',
    '\r': '\\r',
    '\t': '\\t',
    '\b': '\\b',
    '\f': '\\f',
    '\v': '\\v',
  };
  return text.replace(/[\\#\n\r\t\b\f\v]/g, (c) => escapes[c]);
}

interface Pending {
  lines: string[];
  done: boolean;
  planned: boolean;
  failed: number;
}

/**
 * The TAP of several processes as one stream: the first unfinished process's lines go out as they
 * come, the others' wait their turn. Top-level test numbers continue from the processes before;
 * each process's own header, plan and summary are left out, and one plan and summary end the stream.
 */
class MergedTap {
  static readonly SUMMARY = /^# (tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) (\S+)$/;
  readonly totals: TestTotals = { tests: 0, suites: 0, pass: 0, fail: 0, cancelled: 0, skipped: 0, todo: 0 };
  private numbered = 0;
  private head = 0;
  private readonly pending: Pending[] = [];

  constructor(private readonly out: (text: string) => void) {
    out('TAP version 13\n');
  }

  /**
   * The report of the i-th process: its lines, then how it exited (undefined when with code 0)
   * and which of its files did not report.
   */
  report(i: number): ShareReport {
    const own: Pending = { lines: [], done: false, planned: false, failed: 0 };
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
          const key = summary[1] as keyof TestTotals | 'duration_ms';
          if (key === 'fail') own.failed += Number(summary[2]);
          if (key !== 'duration_ms') this.totals[key] += Number(summary[2]);
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
  private flush(): void {
    while (this.head < this.pending.length) {
      const own = this.pending[this.head];
      if (!own) return;
      for (const line of own.lines) this.out(`${this.renumber(line)}\n`);
      own.lines = [];
      if (!own.done) return;
      this.head++;
    }
  }

  /** A top-level test line numbered after the tests of the processes before. */
  private renumber(line: string): string {
    const m = /^(not ok|ok) (\d+)(.*)$/.exec(line);
    return m ? `${m[1]} ${++this.numbered}${m[3]}` : line;
  }

  /** The plan and the summary of all the processes. */
  end(ms: number): void {
    this.out(`1..${this.numbered}\n`);
    for (const [k, v] of Object.entries(this.totals)) this.out(`# ${k} ${v}\n`);
    this.out(`# duration_ms ${ms}\n`);
  }
}

/** Starts the control plane, runs the other test files against it, stops it; the failing tests, or why it did not start. */
async function runServerTier(
  serverFiles: readonly string[],
  options: RunTestsOptions,
): Promise<{ failures: number; error?: string }> {
  const { startSharedTestEnvironment, stopSharedTestEnvironment } = await import('./shared.js');
  let env: Awaited<ReturnType<typeof startSharedTestEnvironment>>;
  try {
    // The CRDs are installed once here; each file installs them again (a no-op when unchanged).
    env = await startSharedTestEnvironment({
      crdDirectoryPaths: [relativeOrAbsolute(options.cwd, 'config/crd/bases')],
      errorIfCRDPathMissing: false,
    });
  } catch (err) {
    return { failures: 0, error: err instanceof Error ? err.message : String(err) };
  }
  const { apiserver } = env.pids;
  options.err(
    apiserver === undefined
      ? `test: ${serverFiles.length} test file(s) against the existing cluster\n`
      : `test: one control plane (kube-apiserver pid ${apiserver}) for ${serverFiles.length} test file(s)\n`,
  );
  try {
    return { failures: await runTier(serverFiles, 1, options) };
  } finally {
    await stopSharedTestEnvironment(env);
  }
}

/** `path` of the project: relative when the project is the current folder (as the TestEnvironment reads it), else absolute. */
function relativeOrAbsolute(cwd: string, path: string): string {
  return relative(process.cwd(), resolve(cwd)) === '' ? path : resolve(cwd, path);
}
