/**
 * `npm run bench:dev`: how long from a save to the new code reconciling under `kubeforge dev`?
 *
 * A 20-Kind project made by the CLI as a user makes it (`kubeforge init`, then `create api` 20
 * times; bench/out/dev-20, its node_modules linked back to this repository), one Widget1 object in
 * the cluster. `kubeforge dev`'s session runs in this process on a local control plane
 * (KUBEBUILDER_ASSETS). Each save writes two files back to back: widget1_types.ts gains a new
 * field with a default (`@Default(n) benchN?: int32`), and widget1_controller.ts's reconcile logs
 * a new marker line. Measured: from the first write to the marker in the manager's output (the new
 * manager reconciling Widget1 with the new code), and the CRD on the server checked to hold the new
 * field with its default. KUBEFORGE_BENCH_SAVES (default 5) saves; the median is reported.
 *
 * In the same run, the cold path the loop replaces: `kubeforge manifests --no-cache` (a process)
 * + the project's own `tsc -p tsconfig.json` (full build) + a manager process started on the
 * build until it reconciles (its marker line), once per KUBEFORGE_BENCH_COLD (default 2) run, median.
 *
 * Last line: `bench:dev saves=<n> median=<ms>ms cold=<ms>ms ratio=<median/cold> goal=1500ms cpu=<ms>ms load=<1-min load average>`.
 * `cpu` is the median CPU time kubeforge dev's process (manifests on the main thread, the compiler's
 * worker thread) spent per save, a figure other load on the machine does not inflate; the load
 * average is printed because every other figure here is wall time.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import { RestClient } from '../src/runtime/client/rest.js';
import { DevSession } from '../src/dev/session.js';
import { median } from './stats.js';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const KINDS = 20;
const dir = join(repo, 'bench/out/dev-20');
const kf = join(repo, 'bin/kubeforge.js');

function run(args: string[], cwd: string): void {
  const r = spawnSync(process.execPath, [kf, ...args], { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`kubeforge ${args.join(' ')} failed:\n${r.stdout}\n${r.stderr}`);
}

/** The project, made once (a marker file records the KINDS it was made with). */
function generate(): void {
  const marker = join(dir, '.bench-kinds');
  if (existsSync(marker) && readFileSync(marker, 'utf8') === String(KINDS)) return;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  process.stdout.write(`generating a ${KINDS}-Kind project in ${dir} (kubeforge init + create api x${KINDS}) ...\n`);
  run(['init', '--domain', 'example.com', '--skip-install', '--project-name', 'benchdev'], dir);
  // The project's dependencies: this repository's node_modules, and kubeforge itself.
  mkdirSync(join(dir, 'node_modules'));
  const nm = join(repo, 'node_modules');
  for (const name of readdirSync(nm))
    if (name !== 'kubeforge') symlinkSync(join(nm, name), join(dir, 'node_modules', name));
  symlinkSync(repo, join(dir, 'node_modules/kubeforge'), 'dir');
  for (let i = 1; i <= KINDS; i++) {
    // The manifests once at the end, not after each Kind.
    run(
      [
        'create',
        'api',
        '--group',
        'fleet',
        '--version',
        'v1',
        '--kind',
        `Widget${i}`,
        '--resource',
        '--controller',
        `--make=${i === KINDS}`,
      ],
      dir,
    );
    process.stdout.write(`  Widget${i}\r`);
  }
  writeFileSync(marker, String(KINDS));
  process.stdout.write('\n');
}

const TYPES = 'src/api/v1/widget1_types.ts';
const CONTROLLER = 'src/controller/widget1_controller.ts';

/** The two edits of save `n`: a field with a default, and a reconcile that logs `bench-reconcile-<n>`. */
function save(n: number, pristine: { types: string; controller: string }): string {
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
    throw new Error('the scaffold changed: bench:dev cannot place its edits');
  writeFileSync(join(dir, TYPES), types);
  writeFileSync(join(dir, CONTROLLER), controller);
  return marker;
}

function waitLine(lines: string[], marker: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((res, rej) => {
    const tick = () => {
      if (lines.some((l) => l.includes(marker))) return res();
      if (Date.now() > deadline) return rej(new Error(`no ${marker} within ${timeoutMs} ms`));
      setTimeout(tick, 5);
    };
    tick();
  });
}

/** Cold: manifests --no-cache + tsc + a manager process until it reconciles with the new code. */
async function cold(session: DevSession, pristine: { types: string; controller: string }, n: number): Promise<number> {
  const marker = save(n, pristine);
  const t = Date.now();
  run(['manifests', '--no-cache'], dir);
  const out = join(dir, '.kubeforge/dev/bench-cold');
  const tsc = spawnSync(join(dir, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.json', '--outDir', out], {
    cwd: dir,
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
    { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout.setEncoding('utf8').on('data', (c: string) => lines.push(...c.split('\n')));
  child.stderr.setEncoding('utf8').on('data', (c: string) => lines.push(...c.split('\n')));
  try {
    await waitLine(lines, marker, 120_000);
    return Date.now() - t;
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

async function main(): Promise<void> {
  if (!process.env.KUBEBUILDER_ASSETS)
    throw new Error(
      'KUBEBUILDER_ASSETS must name the folder holding etcd and kube-apiserver (kubeforge setup-envtest prints it)',
    );
  generate();
  const pristine = {
    types: readFileSync(join(dir, TYPES), 'utf8'),
    controller: readFileSync(join(dir, CONTROLLER), 'utf8'),
  };
  const saves = Number(process.env.KUBEFORGE_BENCH_SAVES ?? 5);
  const colds = Number(process.env.KUBEFORGE_BENCH_COLD ?? 2);
  const lines: string[] = [];
  let log = '';
  const session = new DevSession({ projectDir: dir, out: (t) => (log += t), err: (t) => (log += t) });
  session.onManagerLine = (l) => lines.push(l.text);
  const results: number[] = [];
  const cpus: number[] = [];
  const coldResults: number[] = [];
  let rest: RestClient | undefined;
  try {
    process.stdout.write('starting kubeforge dev (local control plane) ...\n');
    await session.start();
    const kc = new KubeConfig();
    kc.loadFromFile(session.kubeconfigPath!);
    rest = new RestClient(kc);
    await rest.request('POST', '/apis/fleet.example.com/v1/namespaces/default/widget1s', {
      body: { apiVersion: 'fleet.example.com/v1', kind: 'Widget1', metadata: { name: 'bench' }, spec: { foo: 'x' } },
    });
    // The first save after start is not special (the compiler primed itself); wait for that to finish.
    await new Promise((r) => setTimeout(r, 2_000));
    for (let n = 1; n <= saves; n++) {
      const t = Date.now();
      const cpu0 = process.cpuUsage();
      const marker = save(n, pristine);
      await waitLine(lines, marker, 120_000);
      const ms = Date.now() - t;
      const used = process.cpuUsage(cpu0);
      cpus.push(Math.round((used.user + used.system) / 1000));
      const crd = await rest.get('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widget1s.fleet.example.com');
      const field = crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties[`bench${n}`];
      if (field?.default !== n) throw new Error(`save ${n}: the CRD on the server has no bench${n} with default ${n}`);
      results.push(ms);
      process.stdout.write(
        `save ${n}: ${ms} ms to the new code reconciling (CRD field bench${n} default ${n} on the server); CPU of kubeforge dev (manifests + compile threads) ${cpus[cpus.length - 1]} ms\n`,
      );
      // Let the standby manager load before the next save, as between a user's saves.
      await new Promise((r) => setTimeout(r, 1_500));
    }
    // The cold baseline edits the same files: the session must not rebuild meanwhile.
    session.pauseWatching();
    for (let i = 1; i <= colds; i++) {
      const ms = await cold(session, pristine, 100 + i);
      coldResults.push(ms);
      process.stdout.write(`cold ${i}: ${ms} ms (manifests --no-cache + tsc + manager start to reconciling)\n`);
    }
  } catch (e) {
    process.stdout.write(log);
    throw e;
  } finally {
    rest?.close();
    await session.stop();
    writeFileSync(join(dir, TYPES), pristine.types);
    writeFileSync(join(dir, CONTROLLER), pristine.controller);
  }
  const med = median(results);
  const coldMed = median(coldResults);
  process.stdout.write(
    `rebuild lines:\n${log
      .split('\n')
      .filter((l) => / ready /.test(l))
      .join('\n')}\n`,
  );
  process.stdout.write(
    `bench:dev saves=${results.length} median=${med}ms cold=${coldMed}ms ratio=${(med / coldMed).toFixed(2)} goal=1500ms cpu=${median(cpus)}ms load=${loadavg()[0].toFixed(1)}\n`,
  );
}

main().catch((e) => {
  process.stderr.write(`bench:dev: ${(e as Error).stack ?? e}\n`);
  process.exitCode = 1;
});
