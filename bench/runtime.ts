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
 * (b) Memory. A child process starts only the informer cache on a namespace holding 10,000
 *     objects; peak RSS (maxRSS) minus its RSS before the cache started, divided by 10,000.
 * (c) Latency. 100 objects, one spec update every 10 ms (100/s) for 10 s round-robin. Reported:
 *     watch event arrival (an informer handler registered before the controller's) -> reconcile
 *     start (the runtime's own latency: handler, predicates, queue, worker; used in the last
 *     line), and end to end from the update request being sent (includes the API server and etcd).
 *
 * Last line: `bench:runtime ratio=<x>x rss_per_object=<KB>KB p99=<ms>ms`.
 * KUBEFORGE_BENCH_N (default 2000) and KUBEFORGE_BENCH_CACHE_N (default 10000) shrink a run;
 * KUBEFORGE_BENCH_PARTS=a,b,c picks parts (figures of skipped parts print as NaN).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import type { KubernetesObject } from '@kubernetes/client-node';
import pino from 'pino';
import { TestEnvironment } from '../src/testing/index.js';
import { newManager } from '../src/runtime/manager/index.js';
import { newClient } from '../src/runtime/client/index.js';
import { RestClient } from '../src/runtime/client/rest.js';
import { newCache } from '../src/runtime/cache/index.js';
import { controllerManagedBy } from '../src/runtime/controller/index.js';
import type { Client } from '../src/runtime/contracts.js';

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
                properties: { size: { type: 'integer' }, image: { type: 'string' }, tier: { type: 'string' }, replicas: { type: 'integer' }, message: { type: 'string' } },
              },
              status: { type: 'object', properties: { observedGeneration: { type: 'integer', format: 'int64' }, phase: { type: 'string' } } },
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
    metadata: { namespace: ns, name: `g-${String(i).padStart(5, '0')}`, labels: { app: 'bench', shard: String(i % 16) }, annotations: { 'bench.kubeforge.io/note': 'a typical small custom resource' } },
    spec: { size: i, image: 'registry.example.com/team/app:1.2.3', tier: i % 2 ? 'frontend' : 'backend', replicas: 3, message: 'hello from the benchmark' },
  };
}

const now = () => performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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

/** Operator variant of (a). */
async function operatorRun(config: KubeConfig, ns: string, n: number, c: number, creator: 'client-node' | 'kubeforge'): Promise<number> {
  const api = config.makeApiClient(CustomObjectsApi);
  const kf = newClient(config, {});
  const mgr = newManager(config, { logger: silent(), cache: { defaultNamespaces: [ns] } });
  const done = new Set<string>();
  let finish!: () => void;
  const allDone = new Promise<void>((r) => (finish = r));
  controllerManagedBy(mgr)
    .for(Gizmo)
    .withOptions({ maxConcurrentReconciles: c })
    .complete(async (req) => {
      const g = await mgr.getClient().get(Gizmo, req);
      if (g.status?.observedGeneration === g.metadata?.generation) return;
      g.status = { observedGeneration: g.metadata!.generation, phase: 'Ready' };
      await mgr.getClient().status().update(g);
      done.add(req.name);
      if (done.size === n) finish();
    });
  const ac = new AbortController();
  const running = mgr.start(ac.signal);
  await mgr.elected();
  const ids = Array.from({ length: n }, (_, i) => i);
  const t0 = now();
  await pool(c, ids, async (i) => {
    if (creator === 'kubeforge') await kf.create(gizmo(ns, i));
    else await api.createNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: ns, plural: PLURAL, body: gizmo(ns, i) });
  });
  await allDone;
  const elapsed = now() - t0;
  ac.abort();
  await running;
  return elapsed;
}

/** client-node baseline of (a): create then write status, per object, c workers. */
async function baselineRun(config: KubeConfig, ns: string, n: number, c: number): Promise<number> {
  const api = config.makeApiClient(CustomObjectsApi);
  const ids = Array.from({ length: n }, (_, i) => i);
  const t0 = now();
  await pool(c, ids, async (i) => {
    const created = (await api.createNamespacedCustomObject({ group: GROUP, version: VERSION, namespace: ns, plural: PLURAL, body: gizmo(ns, i) })) as Gizmo;
    created.status = { observedGeneration: created.metadata!.generation, phase: 'Ready' };
    await api.replaceNamespacedCustomObjectStatus({ group: GROUP, version: VERSION, namespace: ns, plural: PLURAL, name: created.metadata!.name!, body: created });
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
    created.status = { observedGeneration: created.metadata!.generation, phase: 'Ready' };
    await client.status().update(created);
  });
  return now() - t0;
}

/** (b) child process: start a cache on `ns`, wait for `expected` objects, print memory figures. */
async function childCache(kubeconfigPath: string, ns: string, expected: number): Promise<void> {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  const cache = newCache(kc, { namespace: ns, logger: silent() });
  const client = newClient(kc, {});
  await client.resolve(Gizmo); // warm the modules and a connection before measuring
  (globalThis as { gc?: () => void }).gc?.();
  await sleep(100);
  const before = process.memoryUsage().rss;
  const heapBefore = process.memoryUsage().heapUsed;
  const beforeMax = process.resourceUsage().maxRSS * 1024;
  const ac = new AbortController();
  const run = cache.start(ac.signal);
  await cache.getInformer(Gizmo);
  await cache.waitForCacheSync();
  const peak = process.resourceUsage().maxRSS * 1024; // high-water mark: read before anything else allocates
  const held = (await cache.informerFor(Gizmo)).store.size;
  if (held !== expected) throw new Error(`cache holds ${held} objects, expected ${expected}`);
  (globalThis as { gc?: () => void }).gc?.();
  await sleep(200);
  const after = process.memoryUsage().rss;
  const heapAfter = process.memoryUsage().heapUsed;
  const bytes = JSON.stringify(await cache.get(Gizmo, { namespace: ns, name: 'g-00000' })).length;
  process.stdout.write(JSON.stringify({ before, beforeMax, after, peak, bytes, heap: heapAfter - heapBefore }) + '\n');
  ac.abort();
  await run;
}

async function latencyRun(config: KubeConfig, ns: string): Promise<{ lat: number[]; fromAck: number[]; fromEvent: number[] }> {
  const client = newClient(config, { fieldOwner: 'bench' });
  const objects = 100;
  await pool(8, Array.from({ length: objects }, (_, i) => i), async (i) => {
    await client.create(gizmo(ns, i));
  });
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
  if (lat.length < total) process.stderr.write(`latency: ${total - lat.length} of ${total} updates were coalesced or not observed\n`);
  return { lat, fromAck, fromEvent };
}

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

async function main(): Promise<void> {
  if (process.argv[2] === '--child-cache') {
    await childCache(process.argv[3], process.argv[4], Number(process.argv[5]));
    return;
  }
  const N = Number(process.env.KUBEFORGE_BENCH_N ?? 2000);
  const CACHE_N = Number(process.env.KUBEFORGE_BENCH_CACHE_N ?? 10_000);
  const parts = (process.env.KUBEFORGE_BENCH_PARTS ?? 'a,b,c').split(',');
  // Like `npm test`: default to where `npm run setup-envtest` puts the binaries.
  const defaultAssets = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'kubeforge/envtest/bin');
  if (!process.env.KUBEBUILDER_ASSETS && existsSync(join(defaultAssets, 'kube-apiserver'))) process.env.KUBEBUILDER_ASSETS = defaultAssets;
  const env = new TestEnvironment({ crds: [CRD] });
  const config = await env.start();
  try {
    const admin = newClient(config, {});
    const log = (s: string) => process.stdout.write(s + '\n');
    log(`bench:runtime: kube-apiserver ${env.serverURL}, ${N} objects per run`);

    // (a)
    const ratios: number[] = [];
    for (const c of parts.includes('a') ? [1, 8] : []) {
      const base = await baselineRun(config, await newNamespace(admin, `base-${c}`), N, c);
      const op = await operatorRun(config, await newNamespace(admin, `op-${c}`), N, c, 'client-node');
      const ka = await keepAliveRun(config, await newNamespace(admin, `ka-${c}`), N, c);
      const opKa = await operatorRun(config, await newNamespace(admin, `opka-${c}`), N, c, 'kubeforge');
      const ratio = op / base;
      ratios.push(ratio);
      log(
        `(a) concurrency ${c}: operator ${(op / 1000).toFixed(2)} s vs client-node loop ${(base / 1000).toFixed(2)} s -> ratio ${ratio.toFixed(2)}x; ` +
          `with keep-alive creates: operator ${(opKa / 1000).toFixed(2)} s vs keep-alive loop ${(ka / 1000).toFixed(2)} s -> ${(opKa / ka).toFixed(2)}x`,
      );
    }

    // (b)
    let perObjKB = NaN;
    if (parts.includes('b')) {
    const memNs = await newNamespace(admin, 'mem');
    const fast = newClient(config, {});
    await pool(16, Array.from({ length: CACHE_N }, (_, i) => i), async (i) => {
      await fast.create(gizmo(memNs, i));
    });
    const script = fileURLToPath(import.meta.url);
    const out = await new Promise<string>((resolve, reject) => {
      const p = spawn(process.execPath, ['--expose-gc', script, '--child-cache', env.kubeconfigPath, memNs, String(CACHE_N)], { stdio: ['ignore', 'pipe', 'inherit'] });
      let s = '';
      p.stdout.on('data', (d) => (s += d));
      p.on('exit', (code) => (code === 0 ? resolve(s) : reject(new Error(`cache child exited ${code}`))));
    });
    const m = JSON.parse(out.trim().split('\n').pop()!) as { before: number; beforeMax: number; after: number; peak: number; bytes: number; heap: number };
    perObjKB = (m.peak - m.before) / CACHE_N / 1024;
    const retainedKB = (m.after - m.before) / CACHE_N / 1024;
    log(
      `(b) ${CACHE_N} cached objects (${m.bytes} B of JSON each): peak RSS ${(m.peak / 1048576).toFixed(1)} MiB, before cache ${(m.before / 1048576).toFixed(1)} MiB -> ` +
        `${perObjKB.toFixed(2)} KB per object at peak, ${retainedKB.toFixed(2)} KB RSS retained after GC, ${(m.heap / CACHE_N / 1024).toFixed(2)} KB of JS heap`,
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
    log(`bench:runtime ratio=${worst.toFixed(2)}x rss_per_object=${perObjKB.toFixed(2)}KB p99=${p99.toFixed(1)}ms`);
  } finally {
    await env.stop();
  }
}

main().catch((e) => {
  process.stderr.write(`bench:runtime failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exitCode = 1;
});
