/**
 * `npm run bench:dev`: how long from a save to the new code reconciling under `kubeforge dev`?
 *
 * Two projects, each made by the CLI as a user makes it (node_modules linked back to this
 * repository), with one object of the measured Kind in the cluster:
 *   - `dev-20`: `kubeforge init` and `create api` 20 times (bench/out/dev-20);
 *   - `operator`: shaped like a real operator (bench/out/dev-operator): three Kinds, a webhook,
 *     and the files of bench/fixtures/dev-operator: a controller split over several files that
 *     import shared helpers (labels, naming, conditions, owner references), `.owns(V1ConfigMap)`,
 *     and a second cache (`newCache` + `mgr.add`).
 * `kubeforge dev`'s session runs in this process on a local control plane (KUBEBUILDER_ASSETS).
 * Each save writes two files back to back, alternately in place and by rename (a temporary file
 * renamed over the original, as vim, JetBrains and formatters save): the types file gains a field
 * with a default (`@Default(n) benchN?: int32`), and the controller's reconcile logs a new marker
 * line. Measured: from the first write to the marker in the manager's output (the new manager
 * reconciling with the new code), the CRD on the server checked to hold the new field with its
 * default. A save not reconciled within 30 s counts as missed. KUBEFORGE_BENCH_SAVES (default 10)
 * saves per project; median and p95.
 *
 * In the same run, the cold path the loop replaces, per project: `kubeforge manifests --no-cache`
 * (a process) + the project's own `tsc -p tsconfig.json` (a whole build) + a manager process
 * started on the build until it reconciles (its marker line), KUBEFORGE_BENCH_COLD (default 2)
 * times, median.
 *
 * Last line: `bench:dev median=<ms> p95=<ms> real_median=<ms> real_p95=<ms> ratio=<x>
 * missed=<n> load=<1-min load average>`: median and p95 of dev-20, real_* of the operator-shaped
 * project, ratio the larger of the two projects' median / cold, missed over both.
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import { DevSession } from '../src/dev/session.js';
import { RestClient } from '../src/runtime/client/rest.js';
import { median } from './stats.js';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const kf = join(repo, 'bin/kubeforge.js');
const SAVE_TIMEOUT_MS = 30_000;

interface Fixture {
  name: string;
  dir: string;
  /** What the project is made of (a change remakes it). */
  recipe: string;
  make(): void;
  types: string;
  controller: string;
  kind: string;
  plural: string;
}

function run(args: string[], cwd: string): void {
  const r = spawnSync(process.execPath, [kf, ...args], { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`kubeforge ${args.join(' ')} failed:\n${r.stdout}\n${r.stderr}`);
}

function linkNodeModules(dir: string): void {
  mkdirSync(join(dir, 'node_modules'));
  const nm = join(repo, 'node_modules');
  for (const name of readdirSync(nm))
    if (name !== 'kubeforge') symlinkSync(join(nm, name), join(dir, 'node_modules', name));
  symlinkSync(repo, join(dir, 'node_modules/kubeforge'), 'dir');
}

const createApi = (kind: string, make: boolean) => [
  'create',
  'api',
  '--group',
  'fleet',
  '--version',
  'v1',
  '--kind',
  kind,
  '--resource',
  '--controller',
  `--make=${make}`,
];

/** The project, made once per recipe (a marker file records it). */
function generate(fx: Fixture): void {
  const marker = join(fx.dir, '.bench-recipe');
  if (existsSync(marker) && readFileSync(marker, 'utf8') === fx.recipe) return;
  rmSync(fx.dir, { recursive: true, force: true });
  mkdirSync(fx.dir, { recursive: true });
  process.stdout.write(`generating ${fx.name} in ${fx.dir} ...\n`);
  run(['init', '--domain', 'example.com', '--skip-install', '--project-name', `bench-${fx.name}`], fx.dir);
  linkNodeModules(fx.dir);
  fx.make();
  writeFileSync(marker, fx.recipe);
}

const dev20: Fixture = {
  name: 'dev-20',
  dir: join(repo, 'bench/out/dev-20'),
  recipe: '20 Kinds',
  make() {
    for (let i = 1; i <= 20; i++) run(createApi(`Widget${i}`, i === 20), this.dir);
  },
  types: 'src/api/v1/widget1_types.ts',
  controller: 'src/controller/widget1_controller.ts',
  kind: 'Widget1',
  plural: 'widget1s',
};

const operator: Fixture = {
  name: 'operator',
  dir: join(repo, 'bench/out/dev-operator'),
  recipe: `3 Kinds, a webhook, ${readdirSync(join(repo, 'bench/fixtures/dev-operator'), { recursive: true }).length} fixture files`,
  make() {
    for (const kind of ['Gadget', 'Gizmo']) run(createApi(kind, false), this.dir);
    run(createApi('Widget', false), this.dir);
    run(['create', 'webhook', '--group', 'fleet', '--version', 'v1', '--kind', 'Widget', '--defaulting'], this.dir);
    cpSync(join(repo, 'bench/fixtures/dev-operator'), join(this.dir, 'src'), { recursive: true });
    const main = join(this.dir, 'src/main.ts');
    const text = readFileSync(main, 'utf8')
      .replace(/\nimport /, "\nimport { setupSecondCache } from './internal/second-cache.js';\nimport ")
      .replace(/(\n\s*new WidgetReconciler\([^\n]*\n)/, "$1  setupSecondCache(mgr, 'default');\n");
    if (!text.includes('setupSecondCache(mgr')) throw new Error('the scaffold changed: cannot add the second cache');
    writeFileSync(main, text);
    run(['manifests'], this.dir);
  },
  types: 'src/api/v1/widget_types.ts',
  controller: 'src/controller/widget_controller.ts',
  kind: 'Widget',
  plural: 'widgets',
};

/** Writes `text` to `file` in place, or by rename (a temporary file renamed over it). */
function write(file: string, text: string, byRename: boolean): void {
  if (!byRename) {
    writeFileSync(file, text);
    return;
  }
  writeFileSync(`${file}.bench.tmp`, text);
  renameSync(`${file}.bench.tmp`, file);
}

/** The two edits of save `n`: a field with a default, and a reconcile that logs `bench-reconcile-<n>`. */
function save(fx: Fixture, n: number, pristine: { types: string; controller: string }, byRename: boolean): string {
  const marker = `bench-reconcile-${n}-${Date.now()}`;
  const types = pristine.types
    .replace(/import \{ /, 'import { Default, int32, ')
    .replace(
      '  foo?: string;\n',
      `  foo?: string;\n\n  /** bench${n} is a field added by bench:dev. */\n  @Default(${n})\n  bench${n}?: int32;\n`,
    );
  const controller = pristine.controller.replace(
    /(async reconcile\([^)]*\)[^{]*\{\n)/,
    `$1    console.log(${JSON.stringify(marker)});\n`,
  );
  if (types === pristine.types || controller === pristine.controller)
    throw new Error(`${fx.name}: the scaffold changed: bench:dev cannot place its edits`);
  write(join(fx.dir, fx.types), types, byRename);
  write(join(fx.dir, fx.controller), controller, byRename);
  return marker;
}

async function waitLine(lines: string[], marker: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!lines.some((l) => l.includes(marker))) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 5));
  }
  return true;
}

/** Cold: manifests --no-cache + the project's tsc + a manager process until it reconciles with the new code. */
async function cold(fx: Fixture, session: DevSession, pristine: { types: string; controller: string }, n: number) {
  const marker = save(fx, n, pristine, false);
  const t = Date.now();
  run(['manifests', '--no-cache'], fx.dir);
  const out = join(fx.dir, '.kubeforge/dev/bench-cold');
  const tsc = spawnSync(join(fx.dir, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.json', '--outDir', out], {
    cwd: fx.dir,
    encoding: 'utf8',
  });
  if (tsc.status !== 0) throw new Error(`tsc failed:\n${tsc.stdout}${tsc.stderr}`);
  const lines: string[] = [];
  const child = spawn(
    process.execPath,
    [
      join(out, 'src/main.js'),
      `--kubeconfig=${session.kubeconfigPath}`,
      '--health-probe-bind-address=0',
      '--metrics-bind-address=0',
    ],
    { cwd: fx.dir, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ENABLE_WEBHOOKS: 'false' } },
  );
  child.stdout.setEncoding('utf8').on('data', (c: string) => lines.push(...c.split('\n')));
  child.stderr.setEncoding('utf8').on('data', (c: string) => lines.push(...c.split('\n')));
  try {
    if (!(await waitLine(lines, marker, 120_000)))
      throw new Error(`${fx.name}: the cold manager never reconciled:\n${lines.join('\n')}`);
    return Date.now() - t;
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

function p95(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(0.95 * s.length) - 1)];
}

interface FixtureResult {
  median: number;
  p95: number;
  cold: number;
  missed: number;
}

async function measure(fx: Fixture, saves: number, colds: number): Promise<FixtureResult> {
  generate(fx);
  const pristine = {
    types: readFileSync(join(fx.dir, fx.types), 'utf8'),
    controller: readFileSync(join(fx.dir, fx.controller), 'utf8'),
  };
  const lines: string[] = [];
  let log = '';
  const session = new DevSession({ projectDir: fx.dir, out: (t) => (log += t), err: (t) => (log += t) });
  session.onManagerLine = (l) => lines.push(l.text);
  const results: number[] = [];
  const coldResults: number[] = [];
  let missed = 0;
  let rest: RestClient | undefined;
  try {
    process.stdout.write(`${fx.name}: starting kubeforge dev (local control plane) ...\n`);
    await session.start();
    const kc = new KubeConfig();
    const kubeconfig = session.kubeconfigPath;
    if (!kubeconfig) throw new Error('bench dev: the session started without a kubeconfig');
    kc.loadFromFile(kubeconfig);
    rest = new RestClient(kc);
    await rest.request('POST', `/apis/fleet.example.com/v1/namespaces/default/${fx.plural}`, {
      body: { apiVersion: 'fleet.example.com/v1', kind: fx.kind, metadata: { name: 'bench' }, spec: { foo: 'x' } },
    });
    await new Promise((r) => setTimeout(r, 2_000));
    for (let n = 1; n <= saves; n++) {
      const byRename = n % 2 === 1;
      const t = Date.now();
      const marker = save(fx, n, pristine, byRename);
      if (!(await waitLine(lines, marker, SAVE_TIMEOUT_MS))) {
        missed++;
        process.stdout.write(
          `${fx.name} save ${n} (${byRename ? 'by rename' : 'in place'}): MISSED (no reconcile with the new code within ${SAVE_TIMEOUT_MS} ms)\n`,
        );
        continue;
      }
      const ms = Date.now() - t;
      const crd = await rest.get(
        `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${fx.plural}.fleet.example.com`,
      );
      const field = crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties[`bench${n}`];
      if (field?.default !== n)
        throw new Error(`${fx.name} save ${n}: the CRD on the server has no bench${n} with default ${n}`);
      results.push(ms);
      process.stdout.write(
        `${fx.name} save ${n} (${byRename ? 'by rename' : 'in place'}): ${ms} ms to the new code reconciling\n`,
      );
      // Let the standby manager load before the next save, as between a user's saves.
      await new Promise((r) => setTimeout(r, 1_500));
    }
    // The cold baseline edits the same files: the session must not rebuild meanwhile.
    await session.pauseWatching();
    for (let i = 1; i <= colds; i++) {
      const ms = await cold(fx, session, pristine, 100 + i);
      coldResults.push(ms);
      process.stdout.write(
        `${fx.name} cold ${i}: ${ms} ms (manifests --no-cache + tsc + manager start to reconciling)\n`,
      );
    }
  } catch (e) {
    process.stdout.write(log);
    throw e;
  } finally {
    rest?.close();
    await session.stop();
    writeFileSync(join(fx.dir, fx.types), pristine.types);
    writeFileSync(join(fx.dir, fx.controller), pristine.controller);
  }
  process.stdout.write(
    `${log
      .split('\n')
      .filter((l) => / ready /.test(l))
      .join('\n')}\n`,
  );
  const r = { median: median(results), p95: p95(results), cold: median(coldResults), missed };
  process.stdout.write(
    `${fx.name}: median=${r.median}ms p95=${r.p95}ms cold=${r.cold}ms ratio=${(r.median / r.cold).toFixed(2)} missed=${missed}\n`,
  );
  return r;
}

async function main(): Promise<void> {
  if (!process.env.KUBEBUILDER_ASSETS)
    throw new Error(
      'KUBEBUILDER_ASSETS must name the folder holding etcd and kube-apiserver (kubeforge setup-envtest prints it)',
    );
  const saves = Number(process.env.KUBEFORGE_BENCH_SAVES ?? 10);
  const colds = Number(process.env.KUBEFORGE_BENCH_COLD ?? 2);
  const a = await measure(dev20, saves, colds);
  const b = await measure(operator, saves, colds);
  const ratio = Math.max(a.median / a.cold, b.median / b.cold);
  process.stdout.write(
    `bench:dev median=${a.median} p95=${a.p95} real_median=${b.median} real_p95=${b.p95} ratio=${ratio.toFixed(2)} missed=${a.missed + b.missed} load=${loadavg()[0].toFixed(1)}\n`,
  );
}

main().catch((e) => {
  process.stderr.write(`bench:dev: ${(e as Error).stack ?? e}\n`);
  process.exitCode = 1;
});
