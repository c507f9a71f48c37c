/**
 * End to end: a generated project's unit tier needs no API server binaries. Pack kubeforge,
 * `kubeforge init`, then with the installed CLI `create api` for a namespaced Kind, a
 * cluster-scoped one, the built-in Deployment and a deploy-image Kind, and `create webhook` for
 * defaulting, validation and a conversion (and for the built-in Pod). create api's controllers,
 * the deploy-image one included, get one `*.both.test.ts` (run on both tiers); every webhook gets a
 * `*.unit.test.ts` beside its test. `npm run test:unit` then passes with KUBEBUILDER_ASSETS
 * unset and a PATH on which no etcd or kube-apiserver can be found, and no such process is ever
 * a descendant of the run (the process table is sampled while it runs). `npm test` still passes,
 * the unit tier first, then the rest on exactly one kube-apiserver. The wall times of both are
 * reported as test diagnostics.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  assertAllPassed,
  countingAssets,
  initProject,
  MINUTES,
  ok,
  packKubeforge,
  sh,
  KUBEFORGE_TEST,
} from './helpers.js';

const work = mkdtempSync(join(tmpdir(), 'kf-e2e-unit-tier-'));
const project = join(work, 'shipyard');

const api = (...a: string[]) => ['create', 'api', ...a];
const webhook = (...a: string[]) => ['create', 'webhook', ...a];
const fleet = (kind: string, version = 'v1') => ['--group', 'fleet', '--version', version, '--kind', kind];

const COMMANDS: string[][] = [
  api(...fleet('Frigate')),
  api(...fleet('Harbor'), '--namespaced=false'),
  api('--group', 'apps', '--version', 'v1', '--kind', 'Deployment', '--resource=false'),
  api(
    ...fleet('Tender', 'v1alpha1'),
    '--plugins',
    'deploy-image/v1-alpha',
    '--image',
    'busybox:1.36',
    '--image-container-port',
    '8080',
  ),
  webhook(...fleet('Frigate'), '--defaulting', '--programmatic-validation'),
  api(...fleet('Frigate', 'v2'), '--controller=false'),
  webhook(...fleet('Frigate'), '--conversion', '--spoke', 'v2'),
  webhook('--group', 'core', '--version', 'v1', '--kind', 'Pod', '--defaulting'),
];

/** create api's controllers (the deploy-image plugin's too): one test body for both tiers (`*.both.test.ts`). */
const BOTH = [
  'test/controller/frigate_controller',
  'test/controller/harbor_controller',
  'test/controller/deployment_controller',
  'test/controller/tender_controller',
];
/** The webhooks': a unit test beside the real-server test. */
const PAIRS = ['test/webhook/v1/frigate_webhook', 'test/webhook/v1/pod_webhook'];
/** The Kinds of BOTH: the suite each file names after its controller. */
const BOTH_KINDS = ['Frigate', 'Harbor', 'Deployment', 'Tender'];
/** The files of the unit tier. */
const UNIT_FILES = BOTH.length + PAIRS.length;

/** The command name of every process below `root` (from /proc: pid -> parent, name). */
function descendants(root: number): string[] {
  const parent = new Map<number, number>();
  const name = new Map<number, string>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid ...: comm may hold spaces and parentheses, so split after the last ')'.
      const close = stat.lastIndexOf(')');
      parent.set(Number(entry), Number(stat.slice(close + 2).split(' ')[1]));
      const argv0 = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0')[0];
      name.set(Number(entry), argv0.split('/').pop() || stat.slice(stat.indexOf('(') + 1, close));
    } catch {
      // gone since the listing
    }
  }
  const out: string[] = [];
  for (const [pid, n] of name) {
    for (let p = parent.get(pid); p !== undefined && p > 1; p = parent.get(p)) {
      if (p === root) {
        out.push(n);
        break;
      }
    }
  }
  return out;
}

/**
 * Runs a command to its end while sampling its process tree every 50 ms; returns its output, exit
 * code, wall time and every command name seen below it.
 */
function watched(
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ status: number | null; stdout: string; stderr: string; ms: number; seen: Set<string> }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(cmd, args, { cwd: project, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const seen = new Set<string>();
    const sample = setInterval(() => {
      // No pid: the spawn failed, and its 'error' event rejects below.
      if (child.pid === undefined) return;
      for (const n of descendants(child.pid)) seen.add(n);
    }, 50);
    child.on('error', reject);
    child.on('close', (status) => {
      clearInterval(sample);
      resolve({ status, stdout, stderr, ms: Date.now() - started, seen });
    });
  });
}

/** The environment of this process without what NODE_TEST_CONTEXT would redirect (as sh()). */
function baseEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.NODE_TEST_CONTEXT;
  return env;
}

/** `# duration_ms` of each TAP summary in `out`, in order (kubeforge test writes one for all its tiers). */
const tierDurations = (out: string) =>
  [...out.matchAll(/^# duration_ms ([\d.]+)$/gm)].map((m) => Math.round(Number(m[1])));

describe('e2e: a generated project runs its unit tier with no API server binaries, and npm test runs it first', {
  timeout: 25 * MINUTES,
}, () => {
  const kubeforge = (args: string[]) => sh(join(project, 'node_modules/.bin/kubeforge'), args, project);

  before(() => {
    assert.ok(
      process.env.KUBEBUILDER_ASSETS,
      'KUBEBUILDER_ASSETS must name the folder holding etcd and kube-apiserver (npm test sets it)',
    );
    const tarball = packKubeforge(work);
    mkdirSync(project);
    ok(initProject(project, tarball), 'kubeforge init');
  });

  after(() => {
    rmSync(work, { recursive: true, force: true });
  });

  it('create api and create webhook put a unit-tier test beside every controller and webhook test', {
    timeout: 10 * MINUTES,
  }, () => {
    for (const args of COMMANDS) {
      const r = kubeforge(args);
      ok(r, `kubeforge ${args.join(' ')}`);
      assert.doesNotMatch(r.stderr, /KF\d{4}/, `${args.join(' ')}: no diagnostic`);
    }
    for (const base of PAIRS) {
      assert.ok(existsSync(join(project, `${base}.test.ts`)), `${base}.test.ts`);
      assert.ok(existsSync(join(project, `${base}.unit.test.ts`)), `${base}.unit.test.ts`);
    }
    for (const base of BOTH) {
      assert.ok(existsSync(join(project, `${base}.both.test.ts`)), `${base}.both.test.ts`);
      assert.ok(!existsSync(join(project, `${base}.test.ts`)), `no ${base}.test.ts`);
      assert.ok(!existsSync(join(project, `${base}.unit.test.ts`)), `no ${base}.unit.test.ts`);
    }
    const pkg = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    assert.equal(pkg.scripts['test:unit'], 'npm run build && kubeforge test --unit');
  });

  it('npm run test:unit passes without KUBEBUILDER_ASSETS and with no etcd or kube-apiserver on PATH, and starts neither', {
    timeout: 5 * MINUTES,
  }, async (t) => {
    // A PATH of node, npm and the shell npm runs scripts with, nothing else: a machine may keep
    // etcd next to node in /usr/bin.
    const bin = join(work, 'bin-without-control-plane');
    mkdirSync(bin);
    symlinkSync(process.execPath, join(bin, 'node'));
    for (const tool of ['npm', 'sh'])
      symlinkSync(realpathSync(sh('sh', ['-c', `command -v ${tool}`], project).stdout.trim()), join(bin, tool));
    const env = baseEnv();
    delete env.KUBEBUILDER_ASSETS;
    delete env.KUBEFORGE_TEST_KUBECONFIG;
    env.PATH = bin;
    for (const tool of ['etcd', 'kube-apiserver']) {
      assert.ok(
        !env.PATH.split(delimiter).some((dir) => existsSync(join(dir, tool))),
        `no ${tool} on the PATH of the run`,
      );
    }

    const r = await watched(join(bin, 'npm'), ['run', 'test:unit'], env);
    assert.equal(r.status, 0, `npm run test:unit failed:\n${r.stdout}\n${r.stderr}`);
    const pass = assertAllPassed(r.stdout, 'npm run test:unit');
    assert.match(
      r.stderr,
      new RegExp(`^test: unit tier: ${UNIT_FILES} test file\\(s\\) in \\d+ process\\(es\\), no control plane$`, 'm'),
    );
    assert.doesNotMatch(r.stderr, /control plane \(kube-apiserver|cannot start the test control plane/);
    // create api's controllers: their one *.both.test.js file, once, on the fake API server.
    for (const kind of BOTH_KINDS)
      assert.equal(
        r.stdout.match(new RegExp(`^ok \\d+ - ${kind} controller$`, 'gm'))?.length,
        1,
        `${kind}: the unit tier only`,
      );
    for (const kind of ['Frigate', 'Pod'])
      assert.match(r.stdout, new RegExp(`^ok \\d+ - ${kind} webhook, called directly$`, 'm'));
    for (const name of [
      'reconciles a created Frigate',
      'runs in a manager: a created or changed Harbor is reconciled and reported in an event',
      'runs in a manager: follows spec.size, and a deleted Tender goes once its finalizer ran',
      'FrigateCustomValidator allows a valid Frigate',
      'frigateConversion \\(v2\\) converts to the hub and back without losing the spec',
    ]) {
      assert.match(r.stdout, new RegExp(`^\\s*ok \\d+ - ${name}$`, 'm'), name);
    }
    // Not a real-server test among them: none of the files only the control plane runs.
    for (const kind of ['Frigate', 'Pod'])
      assert.doesNotMatch(
        r.stdout,
        new RegExp(`^ok \\d+ - ${kind} webhook$`, 'm'),
        `${kind} webhook: the full tier only`,
      );
    const started = [...r.seen].filter((n) => /^(etcd|kube-apiserver)$/.test(n));
    assert.deepEqual(started, [], 'no etcd or kube-apiserver ran below npm run test:unit');
    assert.ok(r.seen.has('node'), `the sampling saw the run's processes: ${[...r.seen].join(', ')}`);
    t.diagnostic(
      `npm run test:unit: ${pass} tests in ${(r.ms / 1000).toFixed(1)} s wall (build included); unit tier ${tierDurations(r.stdout).join(', ')} ms`,
    );
  });

  it('a failing unit test fails the run though its file shares a process with passing ones; --isolate runs a process per file', {
    timeout: 5 * MINUTES,
  }, () => {
    // After test:unit's build: a file of the unit tier with one failing test, beside the passing ones.
    const failing = join(project, 'build/test/zz_failing.unit.test.js');
    writeFileSync(
      failing,
      "import { it } from 'node:test';\nimport assert from 'node:assert/strict';\nit('fails on purpose', () => assert.equal(1, 2));\n",
    );
    try {
      const env = { ...baseEnv(), KUBEBUILDER_ASSETS: '/nonexistent' };
      const shared = sh(process.execPath, [...KUBEFORGE_TEST, '--unit'], project, env);
      assert.equal(shared.status, 1, `the run fails:\n${shared.stdout}\n${shared.stderr}`);
      assert.match(
        shared.stderr,
        new RegExp(
          `^test: unit tier: ${UNIT_FILES + 1} test file\\(s\\) in \\d+ process\\(es\\), no control plane$`,
          'm',
        ),
      );
      assert.match(shared.stdout, /^not ok \d+ - fails on purpose$/m);
      assert.match(shared.stdout, /^ok \d+ - Frigate controller$/m, 'the files sharing its process still ran');
      assert.match(shared.stdout, /^# fail 1$/m);

      const isolated = sh(process.execPath, [...KUBEFORGE_TEST, '--unit', '--isolate'], project, env);
      assert.equal(isolated.status, 1, `the run fails:\n${isolated.stdout}\n${isolated.stderr}`);
      assert.match(
        isolated.stderr,
        new RegExp(
          `^test: unit tier: ${UNIT_FILES + 1} test file\\(s\\) in ${UNIT_FILES + 1} process\\(es\\), no control plane$`,
          'm',
        ),
      );
      assert.match(isolated.stdout, /^# fail 1$/m);
      assert.match(isolated.stdout, /^# pass \d+$/m);
    } finally {
      rmSync(failing, { force: true });
    }
  });

  it('npm test runs the unit tier first, then the rest on one control plane, and passes', {
    timeout: 10 * MINUTES,
  }, async (t) => {
    const counter = countingAssets(join(work, 'assets'));
    const env = { ...baseEnv(), KUBEBUILDER_ASSETS: counter.assets };
    const r = await watched('npm', ['test'], env);
    assert.equal(r.status, 0, `npm test failed:\n${r.stdout}\n${r.stderr}`);
    assertAllPassed(r.stdout, 'npm test');
    const unit = r.stderr.search(/^test: unit tier: \d+ test file\(s\) in \d+ process\(es\), no control plane$/m);
    const plane = r.stderr.search(/^test: one control plane \(kube-apiserver pid \d+\) for 7 test file\(s\)$/m);
    assert.ok(
      unit >= 0 && plane > unit,
      `the unit tier, then one control plane for the suite and the six real-server tests:\n${r.stderr}`,
    );
    assert.equal([...r.stdout.matchAll(/^# fail 0$/gm)].length, 1, 'one TAP summary for both tiers');
    // create api's controllers: one test body, run on each tier.
    for (const kind of BOTH_KINDS)
      assert.equal(
        r.stdout.match(new RegExp(`^ok \\d+ - ${kind} controller$`, 'gm'))?.length,
        2,
        `${kind}: both tiers`,
      );
    assert.ok(
      r.stdout.search(/^ok \d+ - Frigate webhook, called directly$/m) < r.stdout.search(/^ok \d+ - Frigate webhook$/m),
      'the unit tier ran first',
    );
    assert.equal(counter.starts(), 1, 'npm test started exactly one kube-apiserver');
    // The sampling that saw none under npm run test:unit sees them here.
    for (const tool of ['etcd', 'kube-apiserver'])
      assert.ok(r.seen.has(tool), `${tool} seen below npm test: ${[...r.seen].join(', ')}`);
    const [ms] = tierDurations(r.stdout);
    t.diagnostic(
      `npm test: ${(r.ms / 1000).toFixed(1)} s wall (build, coverage, control plane start included); both tiers ${ms} ms (TAP duration_ms)`,
    );
  });

  it('the wall time of each tier alone (kubeforge test, built): the unit tier, and the real-server tier with its control plane', {
    timeout: 5 * MINUTES,
  }, async (t) => {
    const env = { ...baseEnv(), KUBEBUILDER_ASSETS: process.env.KUBEBUILDER_ASSETS };
    const unit = await watched(process.execPath, [...KUBEFORGE_TEST, '--unit'], env);
    assert.equal(unit.status, 0, unit.stdout + unit.stderr);
    // The real-server files alone (a *.both.test.js file named would run in the unit tier too).
    const files = PAIRS.map((base) => `build/${base}.test.js`).concat('build/test/suite.test.js');
    const server = await watched(process.execPath, [...KUBEFORGE_TEST, ...files], env);
    assert.equal(server.status, 0, server.stdout + server.stderr);
    assertAllPassed(server.stdout, 'the real-server tier');
    assert.doesNotMatch(server.stderr, /unit tier/);
    t.diagnostic(
      `unit tier ${(unit.ms / 1000).toFixed(1)} s wall (${UNIT_FILES} files); real-server tier ${(server.ms / 1000).toFixed(1)} s wall (${files.length} files, one control plane started and stopped); ratio ${(unit.ms / server.ms).toFixed(2)}`,
    );
  });
});
