/**
 * `npm run bench:runtime`: what does kubeforge/runtime cost compared with hand-written
 * client-node code, on a real kube-apiserver (started here from KUBEBUILDER_ASSETS)?
 *
 * (a) Throughput. 2,000 custom resources are created (with client-node, `c` concurrent
 *     creators) and each gets `status.observedGeneration` written:
 *       operator  a kubeforge Manager + controller (maxConcurrentReconciles = c) reconciles each
 *                 object from its cache and writes the status subresource;
 *       baseline  a plain loop of `c` workers doing create + status write per object directly
 *                 with client-node's CustomObjectsApi.
 *     Both measured from the first create until the last status write is acknowledged, at c = 1
 *     and c = 8, in the same run (fresh namespace each). ratio = operator / baseline (target <= 1.3).
 *     Also printed, for transparency: the same pair with every request over kubeforge's keep-alive
 *     client (client-node opens a new TLS connection per request, which dominates the ratio above).
 *     vs controller-runtime: right next to that last kubeforge run (first at c = 1, second at
 *     c = 8), the Go operator in bench/go-operator (controller-runtime at the version Kubebuilder
 *     pins, a typed Gizmo, ctrl.NewManager with the cache on its namespace, MaxConcurrentReconciles
 *     = c, the same cached Get then Status().Update of observedGeneration) runs in its own process
 *     on a fresh namespace of the same API server: c goroutines create the same N objects with a
 *     controller-runtime client (as kubeforge's run creates them with kubeforge's client, in the
 *     operator's process), timed from the first create until the last status write is
 *     acknowledged, after the manager started and its Gizmo informer synced (process start and
 *     manager start excluded on both sides). ratio = kubeforge's time / the Go operator's. Both
 *     wait mostly on the API server and etcd (which share the machine's cores), so the CPU time
 *     each operator's process used over that interval (user + system) is printed beside it.
 * (b) Memory. A child process starts only the informer cache on a namespace holding 10,000
 *     objects; peak RSS minus its RSS before the cache started, divided by 10,000. Peak RSS is
 *     /proc/self/status VmHWM, reset to the current RSS (clear_refs) just before the cache
 *     starts, read once it synced (not getrusage's maxRSS, which Linux carries from the parent
 *     across fork + exec: a child would start with the bench process's RSS as its peak).
 *     vs controller-runtime: the Go operator's cache-only mode on the same namespace, measured
 *     the same way in its own process (VmHWM once synced minus VmRSS before the cache started,
 *     after a full GC and with the REST mapping warmed on both sides);
 *     its typed Gizmo is compared (what Kubebuilder scaffolds), unstructured is printed too.
 *     Neither side strips managedFields (both frameworks' default). ratio = kubeforge / Go.
 * (c) Latency. 100 objects, one spec update every 10 ms (100/s) for 10 s round-robin. Reported:
 *     watch event arrival (an informer handler registered before the controller's) -> reconcile
 *     start (the runtime's own latency: handler, predicates, queue, worker; used in the last
 *     line), and end to end from the update request being sent (includes the API server and etcd).
 *
 * (d) Memory, full vs metadata-only. 20,000 Secrets (about 840 bytes of JSON each, like the Gizmos
 *     of (b)) are created in one namespace; a child process caches them as (b) does, once full
 *     (V1Secret) and once metadata-only (metadataOnly(V1Secret), the PartialObjectMetadata
 *     informer), each in its own process, in the same run. Printed as
 *     `bytes_per_object full=<n> metadata_only=<n>` (peak RSS minus RSS before the cache started,
 *     divided by the number of objects, as (b)).
 *
 * (e) Failover with warm replicas (bench/failover.ts): 2,000 ConfigMaps; from a standby's election
 *     to its first and last reconcile, cold vs `enableWarmup`.
 * (f) Read-your-own-writes (bench/ownwrites.ts): a reconcile that writes its object twice, 2,000
 *     ConfigMaps; conflicts and reconciles without and with `client.readYourOwnWrites`.
 *     (e) and (f) print their own lines, as `npm run bench:failover` / `bench:ownwrites` do.
 *
 * (g) Spans (issue #42, bench/tracing.ts): the operator of (a) at concurrency 8 built without the
 *     spans (the commit before them), with them and no provider, and with the OpenTelemetry SDK
 *     exporting over OTLP to a collector sink, without a context manager (on, as the generated
 *     src/tracing.ts) and with AsyncLocalStorage (on_async); three rounds in rotating order.
 *     tracing_off, tracing_on and tracing_on_async are the summed times over the build without the spans'.
 *
 * Last line: `bench:runtime ratio=<x>x rss_per_object=<KB>KB p99=<ms>ms
 * vs_controller_runtime=<x>x(time),<x>x(cpu),<x>x(memory) tracing_off=<x>x tracing_on=<x>x tracing_on_async=<x>x`:
 * the time and CPU ratios (the operator process's CPU time over the run) are the worse of c = 1
 * and c = 8 (issue #45).
 * The Go operator is built from Go modules once per machine (cached by a hash of its files under
 * ${XDG_CACHE_HOME:-~/.cache}/kubeforge/bench/bin); without Go, or if it fails, a note is printed
 * and its figures print as n/a.
 * KUBEFORGE_BENCH_N (default 2000), KUBEFORGE_BENCH_CACHE_N (default 10000) and
 * KUBEFORGE_BENCH_SECRETS_N (default 20000) shrink a run; KUBEFORGE_BENCH_PARTS=a,b,c,d,e,f,g picks parts
 * (figures of skipped parts print as NaN); KUBEFORGE_BENCH_PROFILE=<dir> writes a CPU profile of each
 * run of kubeforge's operator in (a) and (g).
 */
import { spawn } from 'node:child_process';
import { failoverLine, runFailoverBench } from './failover.js';
import { ownWritesLine, runOwnWritesBench } from './ownwrites.js';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CustomObjectsApi, KubeConfig, V1Secret } from '@kubernetes/client-node';
import type { KubernetesObject } from '@kubernetes/client-node';
import pino from 'pino';
import { TestEnvironment } from '../src/testing/index.js';
import { newManager } from '../src/runtime/manager/index.js';
import { metadataOnly, newClient } from '../src/runtime/client/index.js';
import { RestClient } from '../src/runtime/client/rest.js';
import { newCache } from '../src/runtime/cache/index.js';
import { controllerManagedBy } from '../src/runtime/controller/index.js';
import type { Client } from '../src/runtime/contracts.js';
import { findGo } from '../src/envtest/go-build.js';
import { BASE_COMMIT, importBuild, registerSdk, startCollectorSink, tracingFigures, unregisterSdk } from './tracing.js';

const GROUP = 'bench.kubeforge.io';
const VERSION = 'v1';
const PLURAL = 'gizmos';

class Gizmo implements KubernetesObject {
  static readonly gvk = { group: GROUP, version: VERSION, kind: 'Gizmo' };
  static readonly plural = PLURAL;
  static readonly namespaced = true;
  apiVersion?: string;
  kind?: string;
  metadata?: KubernetesObject['metadata'];
  spec?: { size: number; image: string; tier: string; replicas: number; message: string };
  status?: { observedGeneration?: number; phase?: string };
}

const CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${PLURAL}.${GROUP}` },
  spec: {
    group: GROUP,
    names: { kind: 'Gizmo', listKind: 'GizmoList', plural: PLURAL, singular: 'gizmo' },
    scope: 'Namespaced',
    versions: [
      {
        name: VERSION,
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  size: { type: 'integer' },
                  image: { type: 'string' },
                  tier: { type: 'string' },
                  replicas: { type: 'integer' },
                  message: { type: 'string' },
                },
              },
              status: {
                type: 'object',
                properties: { observedGeneration: { type: 'integer', format: 'int64' }, phase: { type: 'string' } },
              },
            },
          },
        },
      },
    ],
  },
};

function gizmo(ns: string, i: number): Gizmo {
  return {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: 'Gizmo',
    metadata: {
      namespace: ns,
      name: `g-${String(i).padStart(5, '0')}`,
      labels: { app: 'bench', shard: String(i % 16) },
      annotations: { 'bench.kubeforge.io/note': 'a typical small custom resource' },
    },
    spec: {
      size: i,
      image: 'registry.example.com/team/app:1.2.3',
      tier: i % 2 ? 'frontend' : 'backend',
      replicas: 3,
      message: 'hello from the benchmark',
    },
  };
}

const now = () => performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------
// The controller-runtime peer: bench/go-operator, built once per machine.

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const goOperatorDir = join(repo, 'bench/go-operator');

/** controller-runtime's version as bench/go-operator/go.mod requires it (Kubebuilder's pin). */
function controllerRuntimeVersion(): string {
  return (
    /sigs\.k8s\.io\/controller-runtime (v\S+)/.exec(readFileSync(join(goOperatorDir, 'go.mod'), 'utf8'))?.[1] ?? '?'
  );
}

/**
 * Builds bench/go-operator into ${XDG_CACHE_HOME:-~/.cache}/kubeforge/bench/bin/go-operator-<hash
 * of the module's files>, unless that binary is there. Progress on stderr. No Go, or a failed
 * build: a note on stdout and undefined (the peer is skipped, its figures print as n/a).
 */
async function goOperator(log: (s: string) => void): Promise<string | undefined> {
  const hash = createHash('sha256');
  for (const f of readdirSync(goOperatorDir)
    .filter((f) => /\.go$|^go\.(mod|sum)$/.test(f))
    .sort())
    hash
      .update(`${f}\0`)
      .update(readFileSync(join(goOperatorDir, f)))
      .update('\0');
  const bin = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'kubeforge', 'bench', 'bin');
  const target = join(bin, `go-operator-${hash.digest('hex').slice(0, 16)}`);
  if (existsSync(target)) return target;
  const go = await findGo();
  if (!go) {
    log('note: no Go on this machine: the controller-runtime operator (the vs_controller_runtime peer) not measured');
    return undefined;
  }
  mkdirSync(bin, { recursive: true });
  const tmp = mkdtempSync(join(bin, '.go-operator-'));
  try {
    process.stderr.write(
      `bench:runtime: building bench/go-operator (controller-runtime ${controllerRuntimeVersion()}) from Go modules (once per machine)\n`,
    );
    const started = now();
    let compiled = 0;
    const tick = setInterval(
      () =>
        process.stderr.write(
          `bench:runtime: building bench/go-operator: ${compiled} packages compiled, ${Math.round((now() - started) / 1000)} s\n`,
        ),
      10_000,
    );
    const r = await new Promise<{ code: number | null; err: string }>((done) => {
      const p = spawn(go, ['build', '-v', '-o', join(tmp, 'go-operator'), '.'], {
        cwd: goOperatorDir,
        env: { ...process.env, CGO_ENABLED: '0', GOFLAGS: '-buildvcs=false' },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let err = '';
      p.stderr.setEncoding('utf8').on('data', (d: string) => {
        err = (err + d).slice(-4000);
        compiled += d.split('\n').filter((l) => l && !l.startsWith('go: ') && !l.startsWith('#')).length;
      });
      p.on('error', (e) => done({ code: -1, err: String(e) }));
      p.on('close', (code) => done({ code, err }));
    });
    clearInterval(tick);
    if (r.code !== 0) {
      log(
        `note: building bench/go-operator failed (exit ${r.code}): the vs_controller_runtime peer not measured\n${r.err.trim()}`,
      );
      return undefined;
    }
    renameSync(join(tmp, 'go-operator'), target);
    process.stderr.write(`bench:runtime: built bench/go-operator in ${((now() - started) / 1000).toFixed(0)} s\n`);
    return target;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** Runs the Go peer; resolves with its last stdout line parsed as JSON. */
function runGoOperator<T>(bin: string, args: string[]): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const p = spawn(bin, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let s = '';
    p.stdout.setEncoding('utf8').on('data', (d: string) => (s += d));
    p.on('error', reject);
    p.on('exit', (code) =>
      code === 0
        ? resolve(JSON.parse(s.trim().split('\n').at(-1) ?? '') as T)
        : reject(new Error(`go-operator ${args[0]} exited ${code}`)),
    );
  });
}

/** The Go peer of (a): its own process creates the objects and reconciles them; the wall and CPU time it reports. */
async function goOperatorRun(
  bin: string,
  kubeconfigPath: string,
  ns: string,
  n: number,
  c: number,
): Promise<{ ms: number; cpuMs: number }> {
  return runGoOperator<{ ms: number; cpuMs: number }>(bin, [
    'reconcile',
    '--kubeconfig',
    kubeconfigPath,
    '--namespace',
    ns,
    '--n',
    String(n),
    '--c',
    String(c),
  ]);
}

async function pool<T>(n: number, items: T[], fn: (x: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) await fn(items[next++]);
    }),
  );
}

function silent() {
  return pino({ level: 'silent' });
}

async function newNamespace(client: Client, name: string): Promise<string> {
  await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  return name;
}

/** What operatorRun uses of kubeforge/runtime: this build's, or another build's (part g). */
interface RuntimeEntry {
  newManager: typeof newManager;
  newClient: typeof newClient;
  controllerManagedBy: typeof controllerManagedBy;
}
const thisRuntime: RuntimeEntry = { newManager, newClient, controllerManagedBy };

/**
 * KUBEFORGE_BENCH_PROFILE=<dir>: a V8 CPU profile of each run of kubeforge's operator (the
 * creates and the reconciles, the window its CPU time is measured over), written to
 * <dir>/<name>.cpuprofile (open it in Chrome DevTools). Returns the function that stops and writes it.
 */
async function startProfile(): Promise<((name: string) => Promise<void>) | undefined> {
  const dir = process.env.KUBEFORGE_BENCH_PROFILE;
  if (!dir) return undefined;
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
  return async (name) => {
    const { profile } = await session.post('Profiler.stop');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  };
}

/** Operator variant of (a). */
async function operatorRun(
  config: KubeConfig,
  ns: string,
  n: number,
  c: number,
  creator: 'client-node' | 'kubeforge',
  { newManager, newClient, controllerManagedBy }: RuntimeEntry = thisRuntime,
): Promise<{ ms: number; cpuMs: number }> {
  const api = config.makeApiClient(CustomObjectsApi);
  const kf = newClient(config, {});
  const mgr = newManager(config, { logger: silent(), cache: { defaultNamespaces: [ns] } });
  const done = new Set<string>();
  let finish!: () => void;
  const allDone = new Promise<void>((r) => (finish = r));
  controllerManagedBy(mgr)
    .for(Gizmo)
    .withOptions({ maxConcurrentReconciles: c })
    .complete(async (req, ctx) => {
      const g = await mgr.getClient().get(Gizmo, req);
      if (g.status?.observedGeneration === g.metadata?.generation) return;
      g.status = { observedGeneration: g.metadata?.generation, phase: 'Ready' };
      // With ctx.signal, as a generated controller sends its requests: traced (g) without a context manager.
      await mgr.getClient().status().update(g, { signal: ctx.signal });
      done.add(req.name);
      if (done.size === n) finish();
    });
  const ac = new AbortController();
  const running = mgr.start(ac.signal);
  await mgr.elected();
  const ids = Array.from({ length: n }, (_, i) => i);
  const profile = creator === 'kubeforge' ? await startProfile() : undefined;
  const t0 = now();
  const cpu0 = process.cpuUsage();
  await pool(c, ids, async (i) => {
    if (creator === 'kubeforge') await kf.create(gizmo(ns, i));
    else
      await api.createNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace: ns,
        plural: PLURAL,
        body: gizmo(ns, i),
      });
  });
  await allDone;
  const elapsed = now() - t0;
  const cpu = process.cpuUsage(cpu0);
  await profile?.(`operator-c${c}-${ns}`);
  ac.abort();
  await running;
  return { ms: elapsed, cpuMs: (cpu.user + cpu.system) / 1000 };
}

/**
 * (g) What the spans cost (bench/tracing.ts): the operator of (a) (kubeforge's creates,
 * concurrency 8) run four ways, nospans (the commit before the spans), off (no provider), on
 * (the SDK exporting over OTLP to a collector sink, as the generated src/tracing.ts registers it)
 * and on_async (the same with the AsyncLocalStorage context manager), ROUNDS rounds in rotating order, each on a
 * fresh namespace, after a warm-up run of each. Ratios of the summed times to nospans'; CPU time of
 * this process beside them.
 */
async function tracingRun(
  config: KubeConfig,
  admin: Client,
  n: number,
  log: (s: string) => void,
): Promise<{ off: number; on: number; onAsync: number }> {
  const rounds = 3;
  const c = 8;
  // Both from dist/, as tsconfig.build.json compiles them (see bench/tracing.ts).
  const old = await importBuild<RuntimeEntry>('nospans', repo, 'runtime/index.js');
  const cur = await importBuild<RuntimeEntry>('current', repo, 'runtime/index.js');
  const sink = await startCollectorSink();
  const time = { nospans: 0, off: 0, on: 0, on_async: 0 };
  const cpu = { nospans: 0, off: 0, on: 0, on_async: 0 };
  const register = (which: keyof typeof time) =>
    which === 'on' || which === 'on_async' ? registerSdk(sink.url, 'bench-runtime', which === 'on_async') : undefined;
  try {
    const order = ['nospans', 'off', 'on', 'on_async'] as const;
    // A warm-up run of each build first (JIT): nospans's code is a module graph of its own.
    for (const which of order) {
      const provider = register(which);
      await operatorRun(
        config,
        await newNamespace(admin, `trace-warm-${which}`),
        Math.ceil(n / 4),
        c,
        'kubeforge',
        which === 'nospans' ? old : cur,
      );
      if (provider) await unregisterSdk(provider);
    }
    for (let r = 0; r < rounds; r++) {
      for (let k = 0; k < order.length; k++) {
        const which = order[(k + r) % order.length];
        const ns = await newNamespace(admin, `trace-${which}-${r}`);
        const provider = register(which);
        try {
          const got = await operatorRun(config, ns, n, c, 'kubeforge', which === 'nospans' ? old : cur);
          time[which] += got.ms;
          cpu[which] += got.cpuMs;
        } finally {
          if (provider) await unregisterSdk(provider);
        }
      }
    }
  } finally {
    sink.stop();
  }
  const off = time.off / time.nospans;
  const on = time.on / time.nospans;
  const onAsync = time.on_async / time.nospans;
  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  const cpuX = (w: keyof typeof cpu) => `${s(cpu[w])} (${(cpu[w] / cpu.nospans).toFixed(3)}x)`;
  log(
    `(g) spans, ${rounds} rounds of ${n} objects at concurrency ${c}: nospans (${BASE_COMMIT.slice(0, 7)}) ${s(time.nospans)}, ` +
      `off (no provider) ${s(time.off)} -> ${off.toFixed(3)}x, on (SDK, OTLP to a collector) ${s(time.on)} -> ${on.toFixed(3)}x, ` +
      `on_async (the same with the AsyncLocalStorage context manager) ${s(time.on_async)} -> ${onAsync.toFixed(3)}x; ` +
      `CPU time of the operator's process: ${s(cpu.nospans)}, ${cpuX('off')}, ${cpuX('on')}, ${cpuX('on_async')}`,
  );
  return { off, on, onAsync };
}

/** client-node baseline of (a): create then write status, per object, c workers. */
async function baselineRun(config: KubeConfig, ns: string, n: number, c: number): Promise<number> {
  const api = config.makeApiClient(CustomObjectsApi);
  const ids = Array.from({ length: n }, (_, i) => i);
  const t0 = now();
  await pool(c, ids, async (i) => {
    const created = (await api.createNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace: ns,
      plural: PLURAL,
      body: gizmo(ns, i),
    })) as Gizmo;
    created.status = { observedGeneration: created.metadata?.generation, phase: 'Ready' };
    const name = created.metadata?.name;
    if (!name) throw new Error('bench runtime: the API server answered a create without a name');
    await api.replaceNamespacedCustomObjectStatus({
      group: GROUP,
      version: VERSION,
      namespace: ns,
      plural: PLURAL,
      name,
      body: created,
    });
  });
  return now() - t0;
}

/** The same loop over kubeforge's keep-alive client (for context only). */
async function keepAliveRun(config: KubeConfig, ns: string, n: number, c: number): Promise<number> {
  const client = newClient(config, {});
  const ids = Array.from({ length: n }, (_, i) => i);
  const t0 = now();
  await pool(c, ids, async (i) => {
    const created = await client.create(gizmo(ns, i));
    created.status = { observedGeneration: created.metadata?.generation, phase: 'Ready' };
    await client.status().update(created);
  });
  return now() - t0;
}

/**
 * The process's peak RSS: /proc/self/status VmHWM (the Go peer reads the same). Not getrusage's
 * maxRSS: Linux carries that across fork + exec, so a child starts with its parent's RSS as peak.
 */
function peakRss(): number {
  try {
    const kb = /^VmHWM:\s*(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    if (kb) return Number(kb) * 1024;
  } catch {
    /* not Linux */
  }
  return process.resourceUsage().maxRSS * 1024;
}

/** Resets VmHWM to the current RSS (Linux 4.0+), so that the peak read later is this phase's. */
function resetPeakRss(): void {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
  } catch {
    /* not Linux, or not allowed: the peak may then include start-up's */
  }
}

/** A Secret of about the size of (b)'s Gizmos as JSON (840 bytes, once the server added its metadata). */
function benchSecret(ns: string, i: number): V1Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      namespace: ns,
      name: `s-${String(i).padStart(5, '0')}`,
      labels: { app: 'bench', shard: String(i % 16) },
      annotations: { 'bench.kubeforge.io/note': 'a typical small secret' },
    },
    type: 'Opaque',
    stringData: {
      username: `user-${i}`,
      password: 'correct-horse-battery-staple',
      config: 'endpoint=https://db.example.com:5432;pool=10',
    },
  };
}

/** What a child of (b)/(d) caches. */
const CHILD_TYPES = { gizmo: Gizmo, secret: V1Secret, 'secret-metadata': metadataOnly(V1Secret) } as const;

/** (b)/(d) child process: start a cache on `ns`, wait for `expected` objects of `what`, print memory figures. */
async function childCache(
  kubeconfigPath: string,
  ns: string,
  expected: number,
  what: keyof typeof CHILD_TYPES = 'gizmo',
): Promise<void> {
  const type = CHILD_TYPES[what];
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  const cache = newCache(kc, { namespaces: [ns], logger: silent() });
  const client = newClient(kc, {});
  await client.resolve(type); // warm the modules and a connection before measuring
  (globalThis as { gc?: () => void }).gc?.();
  await sleep(100);
  const beforeMax = peakRss();
  resetPeakRss();
  const before = process.memoryUsage().rss;
  const heapBefore = process.memoryUsage().heapUsed;
  const ac = new AbortController();
  const t0 = now();
  const run = cache.start(ac.signal);
  await cache.getInformer(type);
  await cache.waitForCacheSync();
  const peak = peakRss(); // high-water mark: read before anything else allocates
  const syncMs = now() - t0;
  let held = 0;
  for (const _key of (await cache.informerFor(type)).store.list()) held++;
  if (held !== expected) throw new Error(`cache holds ${held} objects, expected ${expected}`);
  (globalThis as { gc?: () => void }).gc?.();
  await sleep(200);
  const after = process.memoryUsage().rss;
  const heapAfter = process.memoryUsage().heapUsed;
  const bytes = JSON.stringify(
    await cache.get(type, { namespace: ns, name: what === 'gizmo' ? 'g-00000' : 's-00000' }),
  ).length;
  process.stdout.write(
    `${JSON.stringify({ before, beforeMax, after, peak, bytes, heap: heapAfter - heapBefore, syncMs })}\n`,
  );
  ac.abort();
  await run;
}

/** Runs childCache in a fresh process (`node --expose-gc`) and returns its figures. */
async function cacheChild(
  kubeconfigPath: string,
  ns: string,
  n: number,
  what: keyof typeof CHILD_TYPES,
): Promise<MemFigures> {
  const script = fileURLToPath(import.meta.url);
  const out = await new Promise<string>((resolve, reject) => {
    const p = spawn(process.execPath, ['--expose-gc', script, '--child-cache', kubeconfigPath, ns, String(n), what], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let s = '';
    p.stdout.on('data', (d) => (s += d));
    p.on('exit', (code) => (code === 0 ? resolve(s) : reject(new Error(`cache child (${what}) exited ${code}`))));
  });
  return JSON.parse(out.trim().split('\n').at(-1) ?? '') as MemFigures;
}

interface MemFigures {
  before: number;
  beforeMax: number;
  after: number;
  peak: number;
  bytes: number;
  heap: number;
  /** (d): from the cache's start until it synced. */
  syncMs?: number;
}

function describeMemory(m: MemFigures, n: number, heap: string): string {
  return (
    `peak RSS ${(m.peak / 1048576).toFixed(1)} MiB, before cache ${(m.before / 1048576).toFixed(1)} MiB -> ` +
    `${((m.peak - m.before) / n / 1024).toFixed(2)} KB per object at peak, ${((m.after - m.before) / n / 1024).toFixed(2)} KB RSS retained after GC, ${(m.heap / n / 1024).toFixed(2)} KB of ${heap}`
  );
}

async function latencyRun(
  config: KubeConfig,
  ns: string,
): Promise<{ lat: number[]; fromAck: number[]; fromEvent: number[] }> {
  const client = newClient(config, { fieldOwner: 'bench' });
  const objects = 100;
  await pool(
    8,
    Array.from({ length: objects }, (_, i) => i),
    async (i) => {
      await client.create(gizmo(ns, i));
    },
  );
  const sent = new Map<number, number>();
  const acked = new Map<number, number>();
  const lat: number[] = [];
  const fromAck: number[] = [];
  const arrived = new Map<number, number>();
  const fromEvent: number[] = [];
  const mgr = newManager(config, { logger: silent(), cache: { defaultNamespaces: [ns] } });
  controllerManagedBy(mgr)
    .for(Gizmo)
    .withOptions({ maxConcurrentReconciles: 4 })
    .complete(async (req) => {
      const t = now();
      const g = await mgr.getClient().get(Gizmo, req);
      const seq = Number(g.metadata?.annotations?.['bench.kubeforge.io/seq'] ?? -1);
      const s = sent.get(seq);
      if (s !== undefined) {
        sent.delete(seq);
        lat.push(t - s);
        const a = acked.get(seq);
        // the watch event may beat the PATCH response: count that as 0
        fromAck.push(a === undefined ? 0 : Math.max(0, t - a));
        const e = arrived.get(seq);
        if (e !== undefined) fromEvent.push(t - e);
      }
    });
  // Registered before the controller's own handler: records when the watch event reached the process.
  const inf = await mgr.getCache().getInformer(Gizmo);
  inf.addEventHandler({
    onUpdate: (_old, obj) => {
      const seq = Number(obj.metadata?.annotations?.['bench.kubeforge.io/seq'] ?? -1);
      if (seq >= 0 && !arrived.has(seq)) arrived.set(seq, now());
    },
  });
  const ac = new AbortController();
  const running = mgr.start(ac.signal);
  await mgr.elected();
  await sleep(500); // initial reconciles of the 100 objects
  const rest = new RestClient(config);
  const total = 1000;
  const t0 = now();
  const writes: Promise<unknown>[] = [];
  for (let seq = 0; seq < total; seq++) {
    const target = t0 + seq * 10;
    const wait = target - now();
    if (wait > 0) await sleep(wait);
    const name = `g-${String(seq % objects).padStart(5, '0')}`;
    sent.set(seq, now());
    writes.push(
      rest
        .request('PATCH', `/apis/${GROUP}/${VERSION}/namespaces/${ns}/${PLURAL}/${name}`, {
          body: { metadata: { annotations: { 'bench.kubeforge.io/seq': String(seq) } }, spec: { size: seq } },
          contentType: 'application/merge-patch+json',
        })
        .then(() => acked.set(seq, now())),
    );
  }
  await Promise.all(writes);
  const deadline = now() + 10_000;
  while (lat.length < total && now() < deadline) await sleep(20);
  ac.abort();
  await running;
  rest.close();
  if (lat.length < total)
    process.stderr.write(`latency: ${total - lat.length} of ${total} updates were coalesced or not observed\n`);
  return { lat, fromAck, fromEvent };
}

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

async function main(): Promise<void> {
  if (process.argv[2] === '--child-cache') {
    await childCache(
      process.argv[3],
      process.argv[4],
      Number(process.argv[5]),
      (process.argv[6] ?? 'gizmo') as keyof typeof CHILD_TYPES,
    );
    return;
  }
  const N = Number(process.env.KUBEFORGE_BENCH_N ?? 2000);
  const CACHE_N = Number(process.env.KUBEFORGE_BENCH_CACHE_N ?? 10_000);
  const SECRETS_N = Number(process.env.KUBEFORGE_BENCH_SECRETS_N ?? 20_000);
  const parts = (process.env.KUBEFORGE_BENCH_PARTS ?? 'a,b,c,d,e,f,g').split(',');
  // Like `npm test`: default to where `npm run setup-envtest` puts the binaries.
  const defaultAssets = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'kubeforge/envtest/bin');
  if (!process.env.KUBEBUILDER_ASSETS && existsSync(join(defaultAssets, 'kube-apiserver')))
    process.env.KUBEBUILDER_ASSETS = defaultAssets;
  const env = new TestEnvironment({ crds: [CRD] });
  const config = await env.start();
  try {
    const admin = newClient(config, {});
    const log = (s: string) => process.stdout.write(`${s}\n`);
    log(`bench:runtime: kube-apiserver ${env.serverURL}, ${N} objects per run`);

    // The controller-runtime peer (bench/go-operator), built before it is needed.
    const crVersion = controllerRuntimeVersion();
    const peer = parts.includes('a') || parts.includes('b') ? await goOperator(log) : undefined;
    const peerFailed = (what: string, e: unknown) =>
      log(
        `note: the controller-runtime operator failed in ${what} (${e instanceof Error ? e.message : String(e)}): its figure is n/a`,
      );

    // (a)
    const ratios: number[] = [];
    const vsGo: number[] = [];
    /** kubeforge's operator CPU over controller-runtime's, per concurrency. */
    const vsGoCpu: number[] = [];
    for (const c of parts.includes('a') ? [1, 8] : []) {
      const base = await baselineRun(config, await newNamespace(admin, `base-${c}`), N, c);
      const op = (await operatorRun(config, await newNamespace(admin, `op-${c}`), N, c, 'client-node')).ms;
      const ka = await keepAliveRun(config, await newNamespace(admin, `ka-${c}`), N, c);
      // kubeforge's operator and the Go one, each creating with its own framework's client;
      // which of the two goes first alternates with c (etcd grows by N objects a run).
      let opKa = NaN;
      let opKaCpu = NaN;
      let goMs = NaN;
      let goCpu = NaN;
      const ours = async () =>
        ({ ms: opKa, cpuMs: opKaCpu } = await operatorRun(
          config,
          await newNamespace(admin, `opka-${c}`),
          N,
          c,
          'kubeforge',
        ));
      const theirs = async () => {
        if (!peer) return;
        const ns = await newNamespace(admin, `cr-${c}`);
        ({ ms: goMs, cpuMs: goCpu } = await goOperatorRun(peer, env.kubeconfigPath, ns, N, c).catch((e: unknown) => {
          peerFailed(`(a) at concurrency ${c}`, e);
          return { ms: NaN, cpuMs: NaN };
        }));
      };
      if (c === 1) await ours().then(theirs);
      else await theirs().then(ours);
      const ratio = op / base;
      ratios.push(ratio);
      log(
        `(a) concurrency ${c}: operator ${(op / 1000).toFixed(2)} s vs client-node loop ${(base / 1000).toFixed(2)} s -> ratio ${ratio.toFixed(2)}x; ` +
          `with keep-alive creates: operator ${(opKa / 1000).toFixed(2)} s vs keep-alive loop ${(ka / 1000).toFixed(2)} s -> ${(opKa / ka).toFixed(2)}x`,
      );
      vsGo.push(opKa / goMs);
      vsGoCpu.push(opKaCpu / goCpu);
      log(
        `    vs controller-runtime ${crVersion} (each operator creating with its own framework's client): kubeforge ${(opKa / 1000).toFixed(2)} s, ` +
          `controller-runtime ${peer && Number.isFinite(goMs) ? `${(goMs / 1000).toFixed(2)} s -> kubeforge/controller-runtime ${(opKa / goMs).toFixed(2)}x` : 'n/a'}; ` +
          `CPU time of the operator's process over the run: kubeforge ${(opKaCpu / 1000).toFixed(2)} s, controller-runtime ${Number.isFinite(goCpu) ? `${(goCpu / 1000).toFixed(2)} s -> ${(opKaCpu / goCpu).toFixed(2)}x` : 'n/a'}`,
      );
    }

    // (b)
    let perObjKB = NaN;
    let goPerObjKB = NaN;
    if (parts.includes('b')) {
      const memNs = await newNamespace(admin, 'mem');
      const fast = newClient(config, {});
      await pool(
        16,
        Array.from({ length: CACHE_N }, (_, i) => i),
        async (i) => {
          await fast.create(gizmo(memNs, i));
        },
      );
      const m = await cacheChild(env.kubeconfigPath, memNs, CACHE_N, 'gizmo');
      perObjKB = (m.peak - m.before) / CACHE_N / 1024;
      log(`(b) ${CACHE_N} cached objects (${m.bytes} B of JSON each): ${describeMemory(m, CACHE_N, 'JS heap')}`);
      // The Go peer, measured the same way: its own process, peak RSS (getrusage maxrss) minus RSS
      // before the cache started. Typed (the Gizmo struct, as Kubebuilder scaffolds) is the figure
      // compared; unstructured is printed for context.
      if (peer)
        for (const object of ['typed', 'unstructured']) {
          try {
            const g = await runGoOperator<MemFigures>(peer, [
              'cache',
              '--kubeconfig',
              env.kubeconfigPath,
              '--namespace',
              memNs,
              '--expected',
              String(CACHE_N),
              '--object',
              object,
            ]);
            const kb = (g.peak - g.before) / CACHE_N / 1024;
            if (object === 'typed') goPerObjKB = kb;
            log(`    controller-runtime ${crVersion} cache, ${object} Gizmo: ${describeMemory(g, CACHE_N, 'Go heap')}`);
          } catch (e) {
            peerFailed(`(b), ${object}`, e);
          }
        }
      if (Number.isFinite(goPerObjKB))
        log(
          `    vs controller-runtime (typed): kubeforge ${perObjKB.toFixed(2)} KB / controller-runtime ${goPerObjKB.toFixed(2)} KB per object at peak -> ${(perObjKB / goPerObjKB).toFixed(2)}x`,
        );
    }

    // (d)
    let fullBytes = NaN;
    let metaBytes = NaN;
    if (parts.includes('d')) {
      const secNs = await newNamespace(admin, 'secrets');
      const fast = newClient(config, {});
      let created = 0;
      const started = now();
      const tick = setInterval(
        () =>
          process.stderr.write(
            `bench:runtime: (d) ${created} of ${SECRETS_N} Secrets created, ${Math.round((now() - started) / 1000)} s\n`,
          ),
        10_000,
      );
      try {
        await pool(
          16,
          Array.from({ length: SECRETS_N }, (_, i) => i),
          async (i) => {
            await fast.create(benchSecret(secNs, i));
            created++;
          },
        );
      } finally {
        clearInterval(tick);
      }
      const full = await cacheChild(env.kubeconfigPath, secNs, SECRETS_N, 'secret');
      const meta = await cacheChild(env.kubeconfigPath, secNs, SECRETS_N, 'secret-metadata');
      fullBytes = (full.peak - full.before) / SECRETS_N;
      metaBytes = (meta.peak - meta.before) / SECRETS_N;
      log(
        `(d) ${SECRETS_N} cached Secrets, full (${full.bytes} B of JSON each): ${describeMemory(full, SECRETS_N, 'JS heap')}; synced in ${((full.syncMs ?? NaN) / 1000).toFixed(2)} s`,
      );
      log(
        `    metadata-only (PartialObjectMetadata, ${meta.bytes} B of JSON each): ${describeMemory(meta, SECRETS_N, 'JS heap')}; synced in ${((meta.syncMs ?? NaN) / 1000).toFixed(2)} s`,
      );
    }

    // (c)
    let p99 = NaN;
    if (parts.includes('c')) {
      const { lat, fromAck, fromEvent } = await latencyRun(config, await newNamespace(admin, 'lat'));
      p99 = pct(fromEvent, 99);
      log(
        `(c) at 100 updates/s, ${fromEvent.length} samples: watch event -> reconcile start p50 ${pct(fromEvent, 50).toFixed(2)} ms, p99 ${p99.toFixed(2)} ms, max ${Math.max(...fromEvent).toFixed(2)} ms; ` +
          `end to end (update sent -> reconcile start, includes the API server) p50 ${pct(lat, 50).toFixed(1)} ms, p99 ${pct(lat, 99).toFixed(1)} ms; ` +
          `from update acknowledged p50 ${pct(fromAck, 50).toFixed(1)} ms, p99 ${pct(fromAck, 99).toFixed(1)} ms`,
      );
    }

    const worst = ratios.length ? Math.max(...ratios) : NaN;
    // kubeforge over controller-runtime: time, the worse of c = 1 and c = 8; memory per cached object at peak.
    const x = (v: number) => (Number.isFinite(v) ? `${v.toFixed(2)}x` : 'n/a');
    const vsTime = vsGo.length ? Math.max(...vsGo) : NaN;
    const vsCpu = vsGoCpu.length ? Math.max(...vsGoCpu) : NaN;
    if (parts.includes('e')) {
      log('(e) failover to a warm replica (bench/failover.ts)');
      log(failoverLine(await runFailoverBench(config)));
    }
    if (parts.includes('f')) {
      log('(f) read-your-own-writes (bench/ownwrites.ts)');
      log(ownWritesLine(await runOwnWritesBench(config)));
    }
    const tracing = parts.includes('g') ? await tracingRun(config, admin, N, log) : { off: NaN, on: NaN, onAsync: NaN };
    log(`bytes_per_object full=${Math.round(fullBytes)} metadata_only=${Math.round(metaBytes)}`);
    log(
      `bench:runtime ratio=${worst.toFixed(2)}x rss_per_object=${perObjKB.toFixed(2)}KB p99=${p99.toFixed(1)}ms vs_controller_runtime=${x(vsTime)}(time),${x(vsCpu)}(cpu),${x(perObjKB / goPerObjKB)}(memory) ${tracingFigures(tracing.off, tracing.on, tracing.onAsync)}`,
    );
  } finally {
    await env.stop();
  }
}

main().catch((e) => {
  process.stderr.write(`bench:runtime failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exitCode = 1;
});
