/**
 * `kubeforge test` (src/testing/runner.ts) runs the unit tier's processes itself and merges their
 * TAP (not through node:test's run()). Judged against Node's own runner: for the same files,
 * `node --test` must count the same tests, passes, failures, skips and todos, and fail or pass
 * the run alike. The CLI runs as a user's project runs it (bin/kubeforge.js), in a folder of its own.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { packageRoot } from '../../src/util/package-root.js';
import { must } from '../helpers/must.js';

const repoRoot = packageRoot();
const BIN = join(repoRoot, 'bin', 'kubeforge.js');

const FILES: Record<string, string> = {
  'a.unit.test.js':
    "import { describe, it } from 'node:test';\ndescribe('a', () => { it('one', () => {}); it('two', () => {}); });\n",
  'b.unit.test.js':
    "import { it } from 'node:test';\nit('b one', () => {});\nit('b skipped', { skip: true }, () => {});\n",
  'c.unit.test.js':
    "import { it } from 'node:test';\nit('c todo', { todo: 'later' }, () => { throw new Error('not yet'); });\nit('c one', () => {});\n",
  'd.unit.test.js': "import { describe, it } from 'node:test';\ndescribe('d', () => { it('d one', () => {}); });\n",
};
const FAILING = "import { it } from 'node:test';\nit('fails', () => { throw new Error('on purpose'); });\n";
const CRASHING = "throw new Error('this file does not load');\n";

/** The summary counts of a TAP stream (its last `# key value` lines), and its top-level test lines. */
function summary(tap: string): { counts: Record<string, number>; topLevel: string[]; plans: string[] } {
  const counts: Record<string, number> = {};
  for (const m of tap.matchAll(/^# (tests|suites|pass|fail|cancelled|skipped|todo) (\d+)$/gm))
    counts[m[1]] = Number(m[2]);
  return {
    counts,
    topLevel: tap.split('\n').filter((l) => /^(not )?ok \d+/.test(l)),
    plans: tap.split('\n').filter((l) => /^1\.\.\d+$/.test(l)),
  };
}

describe("kubeforge test: the unit tier merges its processes' TAP as node --test counts it", () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'kf-hack-test-'));
    mkdirSync(join(dir, 'build/test'), { recursive: true });
    writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** Writes `files` as build/test (and nothing else). */
  function write(files: Record<string, string>) {
    rmSync(join(dir, 'build/test'), { recursive: true, force: true });
    mkdirSync(join(dir, 'build/test'), { recursive: true });
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, 'build/test', name), text);
  }

  /** Writes `files` as build/test (and nothing else), then runs kubeforge test and node --test on them. */
  function both(files: Record<string, string>, ...flags: string[]) {
    write(files);
    const paths = Object.keys(files).map((f) => `build/test/${f}`);
    const env: NodeJS.ProcessEnv = { ...process.env, KUBEBUILDER_ASSETS: '/nonexistent' };
    delete env.NODE_TEST_CONTEXT;
    const ours = spawnSync(process.execPath, [BIN, 'test', '--unit', ...flags], {
      cwd: dir,
      encoding: 'utf8',
      env,
    });
    const node = spawnSync(process.execPath, ['--test', '--test-reporter=tap', ...paths], {
      cwd: dir,
      encoding: 'utf8',
      env,
    });
    return { ours, node };
  }

  /** Runs kubeforge test --unit on `files` pinned to one CPU: one process for the whole unit tier. */
  function pinned(files: Record<string, string>) {
    write(files);
    const env: NodeJS.ProcessEnv = { ...process.env, KUBEBUILDER_ASSETS: '/nonexistent' };
    delete env.NODE_TEST_CONTEXT;
    const ours = spawnSync('taskset', ['-c', '0', process.execPath, BIN, 'test', '--unit'], {
      cwd: dir,
      encoding: 'utf8',
      env,
    });
    assert.equal(ours.error, undefined, 'taskset (util-linux) runs the script on one CPU');
    assert.match(ours.stderr, /^test: unit tier: \d+ test file\(s\) in 1 process\(es\)/m);
    return { ours };
  }

  for (const flags of [[], ['--isolate']]) {
    const how = flags.length ? 'a process per file (--isolate)' : 'one process per core';
    it(`passing, skipped and todo tests in ${how}: one stream, numbered through, the counts node --test gives, exit 0`, () => {
      const { ours, node } = both(FILES, ...flags);
      assert.equal(ours.status, 0, ours.stdout + ours.stderr);
      assert.equal(node.status, 0, node.stdout + node.stderr);
      assert.equal(ours.stdout.match(/^TAP version 13$/gm)?.length, 1, ours.stdout);
      const s = summary(ours.stdout);
      assert.deepEqual(s.counts, summary(node.stdout).counts);
      assert.deepEqual(s.counts, { tests: 7, suites: 2, pass: 5, fail: 0, cancelled: 0, skipped: 1, todo: 1 });
      assert.deepEqual(
        s.topLevel.map((l) => Number(must(/^(?:not )?ok (\d+)/.exec(l), `a test point in ${l}`)[1])),
        s.topLevel.map((_, i) => i + 1),
        'top-level tests numbered 1..n',
      );
      assert.deepEqual(s.plans, [`1..${s.topLevel.length}`], 'one plan, for all of them');
      assert.equal(s.topLevel.length, summary(node.stdout).topLevel.length);
      assert.match(ours.stderr, /^test: unit tier: 4 test file\(s\) in \d+ process\(es\), no control plane$/m);
    });

    it(`a failing test in ${how} fails the run, as node --test does`, () => {
      const { ours, node } = both({ ...FILES, 'e.unit.test.js': FAILING }, ...flags);
      assert.equal(ours.status, 1, ours.stdout);
      assert.equal(node.status, 1);
      assert.deepEqual(summary(ours.stdout).counts, summary(node.stdout).counts);
      assert.match(ours.stdout, /^not ok \d+ - fails$/m);
    });
  }

  it('a file that does not load fails the run, named in a failing test, the other files still run', () => {
    const { ours, node } = both({ ...FILES, 'z.unit.test.js': CRASHING }, '--isolate');
    assert.equal(ours.status, 1, ours.stdout);
    assert.equal(node.status, 1);
    assert.match(ours.stdout, /^not ok \d+ - build\/test\/z\.unit\.test\.js$/m);
    assert.match(ours.stdout, /test process exited with code 1/);
    const s = summary(ours.stdout);
    // node --test counts the file as one failing test too.
    assert.deepEqual(s.counts, summary(node.stdout).counts);
    assert.equal(s.counts.pass, 5);
  });

  // A test (or the code under test) that calls process.exit(0) ends its process with code 0: the
  // rest of its file, and the files after it in the same process, never run, and their TAP never
  // comes. Each file given must report, or be named in a failing test.
  const EXITING =
    "import { it } from 'node:test';\nit('b before', () => {});\nit('b exits', () => { process.exit(0); });\nit('b after', () => {});\n";
  const LATER = "import { it } from 'node:test';\nit('zz later', () => {});\n";

  /** The files named as not reported by a failing test of `tap`. */
  function unreportedIn(tap: string): string[] {
    const m = /error: 'test process exited with code 0 before th(?:is file|ese files) reported: (.*)'$/m.exec(tap);
    return m ? m[1].split(', ').sort() : [];
  }

  for (const [how, run] of [
    // One process for all the files: the files after the exiting one share its process.
    ['all files in one process', (files: Record<string, string>) => pinned(files)],
    ['a process per file (--isolate)', (files: Record<string, string>) => both(files, '--isolate')],
  ] as const) {
    it(`a test calling process.exit(0) in ${how}: the run fails and names each file that did not report`, () => {
      const { ours } = run({ ...FILES, 'b.unit.test.js': EXITING, 'zz.unit.test.js': LATER });
      assert.equal(ours.status, 1, ours.stdout + ours.stderr);
      const named = unreportedIn(ours.stdout);
      assert.ok(named.includes('build/test/b.unit.test.js'), `the exiting file is named:\n${ours.stdout}`);
      assert.doesNotMatch(ours.stdout, /^ok \d+ - b after$/m, 'the test after the exit never ran');
      // Every file either reported (its last test is in the stream) or is named; none is both.
      const last: Record<string, RegExp> = {
        'a.unit.test.js': /^ok \d+ - a$/m,
        'c.unit.test.js': /^ok \d+ - c one$/m,
        'd.unit.test.js': /^ok \d+ - d$/m,
        'zz.unit.test.js': /^ok \d+ - zz later$/m,
      };
      for (const [file, test] of Object.entries(last)) {
        const reported = test.test(ours.stdout);
        assert.notEqual(reported, named.includes(`build/test/${file}`), `${file}: reported xor named\n${ours.stdout}`);
      }
      if (how === 'all files in one process') {
        // The files after the exiting one never report. Whether `a` (before it) got its TAP out
        // before the exit depends on the machine's load: either way it is reported xor named (above).
        const after = [
          'build/test/b.unit.test.js',
          'build/test/c.unit.test.js',
          'build/test/d.unit.test.js',
          'build/test/zz.unit.test.js',
        ];
        assert.deepEqual(
          named.filter((f) => f !== 'build/test/a.unit.test.js'),
          after,
        );
      } else {
        assert.deepEqual(named, ['build/test/b.unit.test.js'], 'the other files, in processes of their own, ran');
      }
      const s = summary(ours.stdout);
      assert.equal(s.counts.fail, 1, ours.stdout);
    });
  }

  it('a file without tests reports nothing and fails nothing, in a process of its own too (it ran)', () => {
    for (const flags of [[], ['--isolate']]) {
      const { ours } = both({ ...FILES, 'y.unit.test.js': 'export const nothing = 1;\n' }, ...flags);
      assert.equal(ours.status, 0, ours.stdout + ours.stderr);
      assert.equal(summary(ours.stdout).counts.fail, 0);
      assert.doesNotMatch(ours.stdout, /did not report|before th(is file|ese files) reported/);
    }
  });

  // A test's own output on stdout (console.log) is not TAP: node --test makes each line of it a
  // comment, so a line that looks like TAP (a plan, a test line, a header) changes no count.
  const PRINTING =
    "import { it } from 'node:test';\nit('prints', () => { console.log('hello # there'); console.log('ok 99 - not a test'); console.log('TAP version 13'); console.log('1..1'); console.log('# fail 3'); });\n";
  for (const [how, run] of [
    ['all files in one process', (files: Record<string, string>) => both(files)],
    ['a process per file (--isolate)', (files: Record<string, string>) => both(files, '--isolate')],
  ] as const) {
    it(`what a test prints on stdout in ${how} becomes a TAP comment, as node --test makes it`, () => {
      const { ours, node } = run({ ...FILES, 'p.unit.test.js': PRINTING });
      assert.equal(ours.status, 0, ours.stdout + ours.stderr);
      const printed = ['# hello \\# there', '# ok 99 - not a test', '# TAP version 13', '# 1..1', '# \\# fail 3'];
      for (const line of printed) {
        assert.ok(node.stdout.split('\n').includes(line), `node --test writes ${line}:\n${node.stdout}`);
        assert.ok(ours.stdout.split('\n').includes(line), `${line}:\n${ours.stdout}`);
      }
      assert.equal(ours.stdout.match(/^TAP version 13$/gm)?.length, 1, ours.stdout);
      const s = summary(ours.stdout);
      assert.deepEqual(s.counts, summary(node.stdout).counts);
      assert.deepEqual(s.plans, [`1..${s.topLevel.length}`], ours.stdout);
      assert.doesNotMatch(ours.stdout, /^ok 99 /m);
    });
  }

  it('a file that does not load in a process shared with others: only that file is named, the others run', () => {
    const { ours } = pinned({ ...FILES, 'b2.unit.test.js': CRASHING });
    const { node } = both({ ...FILES, 'b2.unit.test.js': CRASHING });
    assert.equal(ours.status, 1, ours.stdout);
    const failing = ours.stdout.split('\n').filter((l) => /^not ok \d+/.test(l) && !/ # TODO /.test(l));
    assert.deepEqual(
      failing.map((l) => l.replace(/^not ok \d+ - /, '')),
      ['build/test/b2.unit.test.js'],
    );
    assert.match(
      ours.stdout,
      /error: 'test process exited with code 1: this file did not load: Error: this file does not load'/,
    );
    const s = summary(ours.stdout);
    assert.deepEqual(s.counts, summary(node.stdout).counts, 'node --test counts the file as one failing test too');
    assert.equal(s.counts.pass, 5, 'the files after it in the process ran');
  });

  it("a file name with a '#' is escaped as Node's TAP reporter does: the failure is not read as a TODO directive", () => {
    const { ours, node } = both({ ...FILES, 'z # TODO.unit.test.js': CRASHING }, '--isolate');
    assert.equal(ours.status, 1, ours.stdout);
    assert.match(ours.stdout, /^not ok \d+ - build\/test\/z \\# TODO\.unit\.test\.js$/m);
    assert.match(node.stdout, /^not ok \d+ - .*\/z \\# TODO\.unit\.test\.js$/m, 'node --test escapes it so');
    assert.deepEqual(summary(ours.stdout).counts, summary(node.stdout).counts);
  });
});

describe('kubeforge test: an interrupted unit tier', () => {
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    it(`${signal} stops its test processes, removes its share files and exits ${code}`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'kf-hack-test-int-'));
      try {
        mkdirSync(join(dir, 'build/test'), { recursive: true });
        mkdirSync(join(dir, 'tmp'));
        writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n');
        // Each test process writes its pid, then waits far longer than the test does.
        for (const name of ['a', 'b'])
          writeFileSync(
            join(dir, `build/test/${name}.unit.test.js`),
            "import { it } from 'node:test';\nimport { writeFileSync } from 'node:fs';\n" +
              `it('waits', async () => { writeFileSync('pid-${name}', String(process.pid)); await new Promise((r) => setTimeout(r, 60_000)); });\n`,
          );
        const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: join(dir, 'tmp') };
        delete env.NODE_TEST_CONTEXT;
        const child = spawn(process.execPath, [BIN, 'test', '--unit', '--isolate'], {
          cwd: dir,
          env,
          stdio: 'ignore',
        });
        const exited = new Promise<number | null>((done) => child.on('exit', (c) => done(c)));
        const pids = () => ['a', 'b'].map((n) => join(dir, `pid-${n}`)).filter((f) => existsSync(f));
        for (let i = 0; i < 300 && pids().length < 2; i++) await new Promise((r) => setTimeout(r, 50));
        assert.equal(pids().length, 2, 'both test processes started');
        assert.equal(readdirSync(join(dir, 'tmp')).length, 1, 'the share files are in a folder of their own');
        child.kill(signal);
        assert.equal(await exited, code);
        const alive = (pid: number) => {
          try {
            process.kill(pid, 0);
            return true;
          } catch {
            return false;
          }
        };
        const testPids = pids().map((f) => Number(readFileSync(f, 'utf8')));
        for (let i = 0; i < 100 && testPids.some(alive); i++) await new Promise((r) => setTimeout(r, 50));
        assert.deepEqual(testPids.filter(alive), [], 'no test process is left running');
        assert.deepEqual(readdirSync(join(dir, 'tmp')), [], 'the share files are removed');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

describe('kubeforge test: the command', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'kf-test-cmd-'));
    writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  function kubeforge(...args: string[]) {
    const env: NodeJS.ProcessEnv = { ...process.env, KUBEBUILDER_ASSETS: '/nonexistent' };
    delete env.NODE_TEST_CONTEXT;
    return spawnSync(process.execPath, [BIN, ...args], { cwd: dir, encoding: 'utf8', env });
  }

  it('nothing built: KF1500, exit 1, the hint says to build', () => {
    const r = kubeforge('test');
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /KF1500 +no compiled test files \(\*\.test\.js\) under build\/test/);
    assert.match(r.stderr, /npm run build/);
  });

  it('a file given that does not exist: KF1500, nothing run', () => {
    mkdirSync(join(dir, 'build/test'), { recursive: true });
    writeFileSync(join(dir, 'build/test/a.unit.test.js'), FILES['a.unit.test.js']);
    const r = kubeforge('test', 'build/test/a.unit.test.js', 'build/test/nope.test.js');
    assert.equal(r.status, 1);
    assert.match(r.stderr, /KF1500 +no such test file: build\/test\/nope\.test\.js/);
    assert.equal(r.stdout, '');
  });

  it('an unknown option is refused', () => {
    const r = kubeforge('test', '--units');
    assert.equal(r.status, 1);
    assert.match(r.stderr, /unknown option '--units'/);
  });

  it('--help names the tiers, --unit and --isolate', () => {
    const r = kubeforge('test', '--help');
    assert.equal(r.status, 0, r.stderr);
    for (const word of ['--unit', '--isolate', '--project', 'KUBEBUILDER_ASSETS', 'unit tier'])
      assert.ok(r.stdout.includes(word), word);
  });

  it('a failing unit test: KF1501 after the TAP; with --json the TAP goes to stderr and stdout is one document', () => {
    rmSync(join(dir, 'build'), { recursive: true, force: true });
    mkdirSync(join(dir, 'build/test'), { recursive: true });
    writeFileSync(join(dir, 'build/test/e.unit.test.js'), FAILING);
    const r = kubeforge('test', '--unit');
    assert.equal(r.status, 1);
    assert.match(r.stdout, /^not ok 1 - fails$/m);
    assert.match(r.stderr, /KF1501 +tests failed in the unit tier/);
    const j = kubeforge('test', '--unit', '--json');
    assert.equal(j.status, 1);
    const doc = JSON.parse(j.stdout);
    assert.equal(doc.command, 'test');
    assert.equal(doc.ok, false);
    assert.deepEqual(
      doc.diagnostics.map((d: { code: string }) => d.code),
      ['KF1501'],
    );
    assert.match(j.stderr, /^not ok 1 - fails$/m);
  });

  it('a test that is not a unit test with no control plane to start: KF1502, exit 1', () => {
    rmSync(join(dir, 'build'), { recursive: true, force: true });
    mkdirSync(join(dir, 'build/test'), { recursive: true });
    writeFileSync(join(dir, 'build/test/s.test.js'), "import { it } from 'node:test';\nit('server', () => {});\n");
    const r = kubeforge('test');
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.match(r.stderr, /KF1502 +cannot start the test control plane/);
    // --unit leaves it out: nothing to run in the unit tier is said, and is no failure.
    const u = kubeforge('test', '--unit');
    assert.equal(u.status, 0, u.stderr);
    assert.match(u.stderr, /no unit test files \(\*\.unit\.test\.js, \*\.both\.test\.js\) under build\/test/);
  });

  it('a failing unit tier and a control plane that cannot start: both said (KF1501 and KF1502)', () => {
    rmSync(join(dir, 'build'), { recursive: true, force: true });
    mkdirSync(join(dir, 'build/test'), { recursive: true });
    writeFileSync(join(dir, 'build/test/e.unit.test.js'), FAILING);
    writeFileSync(join(dir, 'build/test/s.test.js'), "import { it } from 'node:test';\nit('server', () => {});\n");
    const r = kubeforge('test');
    assert.equal(r.status, 1);
    assert.match(r.stderr, /KF1501 +tests failed in the unit tier/);
    assert.match(r.stderr, /KF1502 +cannot start the test control plane/);
  });

  it('an e2e file named (build/test/e2e/...) runs with no control plane, as go test ./test/e2e does', () => {
    rmSync(join(dir, 'build'), { recursive: true, force: true });
    mkdirSync(join(dir, 'build/test/e2e'), { recursive: true });
    writeFileSync(
      join(dir, 'build/test/e2e/manager.e2e.js'),
      "import { it } from 'node:test';\nit('deploys', () => {});\n",
    );
    // KUBEBUILDER_ASSETS names no binaries here: a control plane could not start.
    const r = kubeforge('test', 'build/test/e2e/manager.e2e.js');
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^ok 1 - deploys$/m);
    assert.match(r.stderr, /1 e2e test file\(s\), on the cluster they deploy to \(no control plane\)/);
    // Not run unless named: plain `kubeforge test` finds *.test.js only.
    writeFileSync(join(dir, 'build/test/e2e/manager.e2e.js'), FAILING);
    writeFileSync(join(dir, 'build/test/a.unit.test.js'), FILES['a.unit.test.js']);
    assert.equal(kubeforge('test').status, 0);
    const f = kubeforge('test', 'build/test/e2e/manager.e2e.js');
    assert.equal(f.status, 1);
    assert.match(f.stderr, /KF1501 +tests failed in the e2e files/);
  });

  it('the tiers write one TAP stream: one header, numbered through, one plan and one summary of them all', () => {
    rmSync(join(dir, 'build'), { recursive: true, force: true });
    mkdirSync(join(dir, 'build/test/e2e'), { recursive: true });
    writeFileSync(join(dir, 'build/test/a.unit.test.js'), FILES['a.unit.test.js']);
    writeFileSync(join(dir, 'build/test/b.unit.test.js'), FILES['b.unit.test.js']);
    writeFileSync(
      join(dir, 'build/test/e2e/manager.e2e.js'),
      "import { it } from 'node:test';\nit('deploys', () => {});\n",
    );
    const r = kubeforge(
      'test',
      'build/test/a.unit.test.js',
      'build/test/b.unit.test.js',
      'build/test/e2e/manager.e2e.js',
    );
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.equal(r.stdout.match(/^TAP version 13$/gm)?.length, 1, r.stdout);
    const s = summary(r.stdout);
    assert.deepEqual(
      s.topLevel.map((l) => l.replace(/ # .*$/, '')),
      ['ok 1 - a', 'ok 2 - b one', 'ok 3 - b skipped', 'ok 4 - deploys'],
    );
    assert.deepEqual(s.plans, ['1..4'], r.stdout);
    assert.equal(r.stdout.match(/^# tests \d+$/gm)?.length, 1, 'one summary');
    assert.deepEqual(s.counts, { tests: 5, suites: 1, pass: 4, fail: 0, cancelled: 0, skipped: 1, todo: 0 });
    // A control plane that cannot start: the stream still ends with one plan and summary.
    writeFileSync(join(dir, 'build/test/s.test.js'), "import { it } from 'node:test';\nit('server', () => {});\n");
    const f = kubeforge('test');
    assert.equal(f.status, 1);
    assert.equal(f.stdout.match(/^TAP version 13$/gm)?.length, 1, f.stdout);
    assert.deepEqual(summary(f.stdout).plans, ['1..3'], f.stdout);
  });

  it('a *.both.test.js file runs in the unit tier with KUBEFORGE_TEST_TIER=unit (--unit accepts it), then in the full tier', () => {
    rmSync(join(dir, 'build'), { recursive: true, force: true });
    mkdirSync(join(dir, 'build/test'), { recursive: true });
    writeFileSync(
      join(dir, 'build/test/t.both.test.js'),
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the source of a test file whose own template literal prints the tier it runs in
      "import { it } from 'node:test';\nit(`tier ${process.env.KUBEFORGE_TEST_TIER}`, () => {});\n",
    );
    const u = kubeforge('test', '--unit');
    assert.equal(u.status, 0, u.stdout + u.stderr);
    assert.match(u.stdout, /^ok 1 - tier unit$/m);
    assert.equal(kubeforge('test', '--unit', 'build/test/t.both.test.js').status, 0);
    // Without --unit it runs in the unit tier, then the full tier's control plane is wanted.
    const f = kubeforge('test');
    assert.equal(f.status, 1);
    assert.match(f.stdout, /^ok 1 - tier unit$/m);
    assert.match(f.stderr, /KF1502 +cannot start the test control plane/);
  });

  it('files given that are not compiled tests of the project, or not unit tests with --unit: KF1500, nothing run', () => {
    rmSync(join(dir, 'build'), { recursive: true, force: true });
    mkdirSync(join(dir, 'build/test'), { recursive: true });
    mkdirSync(join(dir, 'test'), { recursive: true });
    writeFileSync(join(dir, 'build/test/a.unit.test.js'), FILES['a.unit.test.js']);
    writeFileSync(join(dir, 'build/test/s.test.js'), "import { it } from 'node:test';\nit('server', () => {});\n");
    writeFileSync(join(dir, 'build/test/helper.js'), 'export {};\n');
    writeFileSync(join(dir, 'test/a.unit.test.ts'), 'export {};\n');
    const cases: [string[], RegExp][] = [
      [
        ['--unit', 'build/test/s.test.js'],
        /s\.test\.js: not a unit test file \(\*\.unit\.test\.js or \*\.both\.test\.js\), and --unit runs only those/,
      ],
      [['--unit', 'build/test/a.unit.test.js', 'build/test/s.test.js'], /s\.test\.js: not a unit test file/],
      [['--unit', 'test/a.unit.test.ts'], /a TypeScript source; give its compiled file/],
      [['build/test/helper.js'], /helper\.js: not a compiled test file/],
      [['build/test'], /build\/test: not a compiled test file/],
      [['/etc/hostname'], /\/etc\/hostname: outside the project/],
    ];
    for (const [args, message] of cases) {
      const r = kubeforge('test', ...args);
      assert.equal(r.status, 1, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /KF1500 +cannot run /, args.join(' '));
      assert.match(r.stderr, message, args.join(' '));
      assert.equal(r.stdout, '', `${args.join(' ')} ran something`);
    }
  });
});
