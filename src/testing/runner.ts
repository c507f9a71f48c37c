/**
 * `kubeforge test`: a generated project's test runner, shipped in the package (it was the
 * project's own `hack/test.mjs`, which only `alpha update` could fix). It runs the compiled tests
 * (build/test/**\/*.test.js, or the files given) with Node's test runner in child processes, TAP
 * on `out`, in up to three tiers:
 *   1. the unit tier, *.unit.test.js and *.both.test.js: tests on kubeforge/testing's FakeAPIServer (the Kubernetes
 *      API in memory, in the test's own process), or on no server at all. No control plane: they
 *      run first, in seconds, and need no KUBEBUILDER_ASSETS. Each file starts its own fake
 *      server, so the files run in parallel: one process per core, each running its share of the
 *      files one after the other (a process per file would load Node and the libraries again for
 *      every file, most of a unit test's time). Files that share a process share its globals
 *      (process.env, module state): keep a unit test file independent of the others, or run
 *      `kubeforge test --unit --isolate` (a process per file) to find one that is not;
 *   2. every other test file (*.both.test.js again among them), one at a time, against ONE
 *      control plane for the whole tier (envtest's suite model): etcd and kube-apiserver start
 *      once here, after the unit tier, every test file's TestEnvironment joins them (through
 *      KUBEFORGE_TEST_KUBECONFIG) and they stop at the end;
 *   3. e2e files, only when named (build/test/e2e/..., see {@link isE2e}): one at a time, with no
 *      control plane, since they deploy to a cluster of their own.
 * A *.both.test.js file is one test body for both tiers: the runner sets KUBEFORGE_TEST_TIER
 * (`unit`, then `full`) in its processes, and kubeforge/testing's startTestAPI() gives the file the
 * fake or the real API server accordingly (src/testing/tier.ts).
 * The tiers write one TAP stream: numbered through, one plan and one summary at the end (what a
 * test prints on stdout becomes a `#` comment in it, as node --test does). The run fails when a
 * test of any tier fails, or when a file
 * given did not report (a test that calls process.exit(0) ends its process early: a failing test
 * names the files whose tests did not all run). The test processes run with source maps on.
 * A test file run alone (`node --test build/test/...`) starts its own control plane when it needs one.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { TEST_TIER_ENV, type TestTier } from './tier.js';

/** Where the compiled tests are, relative to the project. */
export const TEST_ROOT = 'build/test';

export interface RunTestsOptions {
  /** The project folder: build/test and config/crd/bases are read from it, the tests run in it. */
  cwd: string;
  /** The compiled test files to run, relative to cwd (default: every *.test.js under build/test). */
  files?: readonly string[];
  /** The unit tier alone (*.unit.test.js, and *.both.test.js on the fake API server). */
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

/** A file of one test body for both tiers (kubeforge/testing's startTestAPI): the unit tier runs it, then the full one. */
export const isBothTiers = (f: string) => f.endsWith('.both.test.js');

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
    if (unit && !isUnit(f) && !isBothTiers(f))
      return [`${f}: not a unit test file (*.unit.test.js or *.both.test.js), and --unit runs only those`];
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
  const unitFiles = files.filter((f) => isUnit(f) || isBothTiers(f));
  const serverFiles = options.unit ? [] : files.filter((f) => !isUnit(f) && (isBothTiers(f) || !isE2e(f)));
  const e2eFiles = options.unit ? [] : files.filter((f) => !isUnit(f) && !isBothTiers(f) && isE2e(f));
  const result: RunTestsResult = { failed: false, unitFiles, serverFiles, e2eFiles };
  // One TAP stream for every tier, as node --test writes one for all its files.
  const started = Date.now();
  const tap = new MergedTap(options.out);
  if (unitFiles.length > 0) {
    const unit = await runUnitTier(unitFiles, options, tap);
    result.unitTotals = unit.totals;
    if (unit.totals.fail > 0) result.failed = true;
    if (unit.interrupted) {
      result.interrupted = unit.interrupted;
      result.failed = true;
      return result;
    }
  } else if (options.unit) {
    err(
      `test: no unit test files (*.unit.test.js, *.both.test.js) ${explicit ? 'among the files given' : `under ${TEST_ROOT}`}\n`,
    );
  }
  if (serverFiles.length > 0) {
    const server = await runServerTier(serverFiles, options, tap);
    if (server.error !== undefined) result.controlPlaneError = server.error;
    else result.serverFailures = server.failures;
    if (server.error !== undefined || server.failures > 0) result.failed = true;
  }
  if (e2eFiles.length > 0) {
    options.err(`test: ${e2eFiles.length} e2e test file(s), on the cluster they deploy to (no control plane)\n`);
    result.e2eFailures = await runTier(e2eFiles, 1, options, tap, undefined);
    if (result.e2eFailures > 0) result.failed = true;
  }
  tap.end(Date.now() - started);
  return result;
}

/**
 * The environment of a test process: TAP (not the parent's test context), source maps on, and
 * the tier it runs in (kubeforge/testing's testTier() reads it; none for e2e files).
 */
function childEnv(tier: TestTier | undefined): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT; // set when the runner itself runs under node --test: children would not speak TAP
  if (tier === undefined) delete env[TEST_TIER_ENV];
  else env[TEST_TIER_ENV] = tier;
  const nodeOptions = env.NODE_OPTIONS ?? '';
  if (!/(^|\s)--enable-source-maps(\s|$)/.test(nodeOptions) && !process.execArgv.includes('--enable-source-maps'))
    env.NODE_OPTIONS = `${nodeOptions} --enable-source-maps`.trim();
  return env;
}

/**
 * Runs the files of a tier `concurrency` at a time with node:test's run(), its TAP into the
 * run's one stream (in file order); the failing tests.
 */
async function runTier(
  files: readonly string[],
  concurrency: number,
  options: RunTestsOptions,
  merged: MergedTap,
  tier: TestTier | undefined,
): Promise<number> {
  const [{ run }, { tap }] = await Promise.all([import('node:test'), import('node:test/reporters')]);
  // run() starts each file's process with this process's environment: source maps on, TAP, the tier.
  const saved = {
    NODE_OPTIONS: process.env.NODE_OPTIONS,
    NODE_TEST_CONTEXT: process.env.NODE_TEST_CONTEXT,
    [TEST_TIER_ENV]: process.env[TEST_TIER_ENV],
  };
  const env = childEnv(tier);
  const restore = (name: keyof typeof saved) => {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  };
  let failures = 0;
  const report = merged.report();
  try {
    for (const name of ['NODE_OPTIONS', TEST_TIER_ENV] as const) {
      if (env[name] === undefined) delete process.env[name];
      else process.env[name] = env[name];
    }
    // node --test's rule: a failing todo test (or a skipped one) does not fail the run.
    const stream = run({ files: files.map((f) => resolve(options.cwd, f)), concurrency }).on('test:fail', (data) => {
      if (data.todo === undefined && data.skip === undefined) failures++;
    });
    let rest = '';
    for await (const chunk of stream.compose(tap)) {
      const lines = (rest + String(chunk)).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) report.line(line);
    }
    if (rest) report.line(rest);
  } finally {
    report.exit(files, undefined, [], []);
    restore('NODE_OPTIONS');
    restore('NODE_TEST_CONTEXT');
    restore(TEST_TIER_ENV);
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
  merged: MergedTap,
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
    const before = { ...merged.totals };
    // The shares' reports, in the order of the shares (taken before any runs).
    const queue = shares.map((files) => ({ files, report: merged.report() }));
    // What marks the TAP reporter's lines in a share's stdout (anything else there the tests printed).
    const mark = `\u001bkubeforge-tap-${randomBytes(6).toString('hex')}:`;
    let n = 0;
    const worker = async () => {
      for (let job = queue.shift(); job && interrupted === undefined; job = queue.shift()) {
        const share = join(dir, `share-${++n}`);
        writeFileSync(`${share}.mjs`, shareEntry(`${share}.progress`, job.files, options.cwd));
        writeFileSync(`${share}.reporter.mjs`, progressReporter(`${share}.progress`));
        writeFileSync(`${share}.tap.mjs`, markedTapReporter(mark));
        await runShare(share, job.files, job.report, children, options.cwd, mark);
      }
    };
    await Promise.all(Array.from({ length: Math.min(processes, availableParallelism()) }, worker));
    const totals = Object.fromEntries(
      Object.entries(merged.totals).map(([k, v]) => [k, v - before[k as keyof TestTotals]]),
    ) as unknown as TestTotals;
    return { totals, ...(interrupted !== undefined && { interrupted }) };
  } finally {
    process.off('SIGINT', onInt).off('SIGTERM', onTerm);
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The source of a share's entry: it imports the files one after the other, and appends `drained`
 * to `progress` when the process runs out of work (Node's 'beforeExit', which a process.exit()
 * never reaches): every file ran, even one without tests (the reporter never starts then). A file
 * that does not load is recorded in `progress` with its error (the failing test names it, and it
 * alone) and fails the process; the files after it still run, as under node --test.
 */
function shareEntry(progress: string, files: readonly string[], cwd: string): string {
  const out = JSON.stringify(progress);
  const head = `import { appendFileSync } from 'node:fs';
process.once('beforeExit', () => appendFileSync(${out}, 'drained\\n'));
const load = async (file, url) => {
  try {
    await import(url);
  } catch (error) {
    const message = error instanceof Error ? \`\${error.name}: \${error.message}\` : String(error);
    appendFileSync(${out}, \`\${JSON.stringify(['load:fail', file, message])}\\n\`);
    console.error(error);
    process.exitCode = 1;
  }
};
`;
  return (
    head +
    files
      .map((f) => `await load(${JSON.stringify(f)}, ${JSON.stringify(pathToFileURL(resolve(cwd, f)).href)});\n`)
      .join('')
  );
}

/**
 * The source of a share's TAP reporter: node:test's, each line of it marked with `mark`, so that
 * what the tests themselves print on stdout (console.log) is told from it and becomes a TAP
 * comment, as node --test makes it.
 */
function markedTapReporter(mark: string): string {
  return `import { tap } from 'node:test/reporters';
export default async function* marked(source) {
  let rest = '';
  for await (const chunk of tap(source)) {
    const lines = (rest + chunk).split('\\n');
    rest = lines.pop();
    if (lines.length > 0) yield lines.map((line) => ${JSON.stringify(mark)} + line + '\\n').join('');
  }
  if (rest) yield ${JSON.stringify(mark)} + rest + '\\n';
}
`;
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

/** A file of a share that did not load, and its error. */
interface LoadFailure {
  file: string;
  error: string;
}

/**
 * What a share's progress says: the files that did not load, and those that did not report:
 * none when its process ran to the end; otherwise those with a top-level test queued and not
 * ended, or with no test seen at all (a process that exits early, even with code 0 (a test
 * calling process.exit(0)), ends the files after it unrun).
 */
function shareProgress(
  progress: string,
  files: readonly string[],
  cwd: string,
): { missing: string[]; loadFailures: LoadFailure[] } {
  let lines: string[] = [];
  try {
    lines = readFileSync(progress, 'utf8').split('\n').filter(Boolean);
  } catch {
    // the process never started its reporter
  }
  const loadFailures: LoadFailure[] = [];
  for (const line of lines) {
    if (!line.startsWith('["load:fail"')) continue;
    const [, file, error] = JSON.parse(line) as [string, string, string];
    loadFailures.push({ file, error });
  }
  const failedToLoad = new Set(loadFailures.map((f) => f.file));
  if (lines.includes('end') || lines.includes('drained')) return { missing: [], loadFailures };
  const open = new Map<string, number>();
  const seen = new Set<string>();
  for (const line of lines) {
    if (line === 'end' || line === 'drained' || line.startsWith('["load:fail"')) continue;
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
  const missing = files.filter((f) => !failedToLoad.has(f) && (!seen.has(real(f)) || open.get(real(f)) !== 0));
  return { missing, loadFailures };
}

interface ShareReport {
  line(line: string): void;
  exit(
    files: readonly string[],
    failure: string | undefined,
    missing: readonly string[],
    loadFailures: readonly LoadFailure[],
  ): void;
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
  mark: string,
): Promise<void> {
  const reporters = [
    `--test-reporter=${pathToFileURL(`${share}.tap.mjs`).href}`,
    '--test-reporter-destination=stdout',
    `--test-reporter=${pathToFileURL(`${share}.reporter.mjs`).href}`,
    '--test-reporter-destination=stderr',
  ];
  const child = spawn(process.execPath, [...process.execArgv, ...reporters, `${share}.mjs`], {
    cwd,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: childEnv('unit'),
  });
  children.add(child);
  let rest = '';
  // A line of the TAP reporter is marked; anything else (or before the mark) the tests printed.
  const line = (text: string) => {
    const at = text.indexOf(mark);
    if (at !== 0 && text !== '') report.line(`# ${tapEscape(at < 0 ? text : text.slice(0, at))}`);
    if (at >= 0) report.line(text.slice(at + mark.length));
  };
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop() ?? '';
    for (const l of lines) line(l);
  });
  return new Promise((done) => {
    // A process that could not start (no file descriptor left...) may never emit 'close'.
    child.on('error', (err) => {
      children.delete(child);
      report.exit(files, err.message, files, []);
      done();
    });
    child.on('close', (code, signal) => {
      children.delete(child);
      if (rest) line(rest);
      const failure = code === 0 ? undefined : signal ? `signal ${signal}` : `code ${code}`;
      const { missing, loadFailures } = shareProgress(`${share}.progress`, files, cwd);
      report.exit(files, failure, missing, loadFailures);
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
   * The report of the next process (or tier) in the stream's order: its lines, then how it exited
   * (undefined when with code 0), which of its files did not report and which did not load.
   */
  report(): ShareReport {
    const i = this.pending.length;
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
      exit: (files, failure, missing, loadFailures) => {
        if (own.done) return;
        // Each file that did not load: a failing test named after it alone, as node --test reports it.
        for (const { file, error } of loadFailures) {
          this.failure(
            own,
            [file],
            `test process exited with ${failure ?? 'code 1'}: this file did not load: ${error}`,
          );
          own.failed++;
        }
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
          this.failure(own, named, error);
        }
        own.done = true;
        if (this.head === i) this.flush();
      },
    };
  }

  /** A failing top-level test named after `files`, with `error`, counted. */
  private failure(own: Pending, files: readonly string[], error: string): void {
    this.totals.tests++;
    this.totals.fail++;
    own.lines.push(
      `not ok 1 - ${tapEscape(files.join(', '))}`,
      '  ---',
      "  failureType: 'testCodeFailure'",
      `  error: '${error.replace(/\s*\n[\s\S]*$/, '').replaceAll("'", "''")}'`,
      "  code: 'ERR_TEST_FAILURE'",
      '  ...',
    );
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

  /** The plan and the summary of all the processes (call once, when every report has exited). */
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
  tap: MergedTap,
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
    return { failures: await runTier(serverFiles, 1, options, tap, 'full') };
  } finally {
    await stopSharedTestEnvironment(env);
  }
}

/** `path` of the project: relative when the project is the current folder (as the TestEnvironment reads it), else absolute. */
function relativeOrAbsolute(cwd: string, path: string): string {
  return relative(process.cwd(), resolve(cwd)) === '' ? path : resolve(cwd, path);
}
