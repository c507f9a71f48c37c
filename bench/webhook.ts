/**
 * `npm run bench:webhook`: what does kubeforge's webhook server cost compared with a minimal
 * hand-written `node:https` admission handler?
 *
 *   ours      a WebhookServer with a Widget defaulter (sets two absent fields: a JSON Patch is
 *             computed and sent) and a validator (checks the spec, allows), both registered
 *             through webhookManagedBy; requests alternate between /mutate-... and /validate-...
 *   baseline  `https.createServer` reading the body, parsing it and answering
 *             `{ response: { uid, allowed: true } }`.
 *
 * Each server runs in its own child process (so the load generator does not share its event
 * loop); the client sends the same AdmissionReviews (a ~2 KB custom resource, as the API server
 * sends it with managedFields) over keep-alive connections, at concurrency 1 and 16, after a
 * warm-up (JIT): N requests per round, three rounds, sent in chunks of 500 that alternate between
 * the two servers in ABBA order, so that drift and bursts of other processes on the machine hit
 * both alike. ratio = our total time / baseline total time for the same requests, the worse of the
 * two concurrencies (target <= 1.5). p99 = our server-side handling time, measured inside the
 * server from the end of the request body to the response handed to the socket (target < 5 ms),
 * the worse of the two concurrencies. Also printed: each server's CPU time per request (user +
 * system of its process), a figure that other load on the machine disturbs much less than time.
 *
 * Then the spans' cost (issue #42, bench/tracing.ts): our server built without the spans, with them
 * and no provider, and with the OpenTelemetry SDK exporting to a collector, every request carrying
 * a traceparent; tracing_off and tracing_on are the summed times over the build without the spans'.
 *
 * Last line: `bench:webhook ratio=<x>x p99=<ms>ms tracing_off=<x>x tracing_on=<x>x tracing_on_async=<x>x`.
 * KUBEFORGE_BENCH_N (default 4000) sets N.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { Registry } from 'prom-client';
import { generateSelfSignedCert } from '../src/runtime/manager/selfsigned.js';
import { newWebhookServer, webhookManagedBy, FieldErrors, field } from '../src/runtime/webhook/index.js';
import type { Manager } from '../src/runtime/manager/types.js';
import { importBuild, registerSdk, startCollectorSink, tracingFigures } from './tracing.js';

const thisWebhook: WebhookEntry = { newWebhookServer, webhookManagedBy, FieldErrors, field };
const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

const N = Number(process.env.KUBEFORGE_BENCH_N ?? 4000);
const WARMUP = 2000;
const ROUNDS = 3;
const CHUNK = 500;
const MUTATE = '/mutate-bench-kubeforge-io-v1-widget';
const VALIDATE = '/validate-bench-kubeforge-io-v1-widget';

interface WidgetSpec {
  size?: number;
  image?: string;
  tier?: string;
  replicas?: number;
  message?: string;
}
interface Widget {
  metadata?: { name?: string };
  spec?: WidgetSpec;
}

class WidgetType {
  static readonly gvk = { group: 'bench.kubeforge.io', version: 'v1', kind: 'Widget' };
  metadata?: Widget['metadata'];
  spec?: WidgetSpec;
}

function widget(i: number): Record<string, unknown> {
  return {
    apiVersion: 'bench.kubeforge.io/v1',
    kind: 'Widget',
    metadata: {
      name: `w-${String(i).padStart(5, '0')}`,
      namespace: 'bench',
      uid: `5d2c3a1e-0000-4000-8000-${String(i).padStart(12, '0')}`,
      generation: 1,
      creationTimestamp: '2024-05-01T10:00:00Z',
      labels: { app: 'bench', shard: String(i % 16), 'app.kubernetes.io/managed-by': 'kubeforge' },
      annotations: {
        'bench.kubeforge.io/note': 'a typical small custom resource',
        'kubectl.kubernetes.io/last-applied-configuration':
          '{"apiVersion":"bench.kubeforge.io/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"size":3}}',
      },
      managedFields: [
        {
          manager: 'kubectl-client-side-apply',
          operation: 'Update',
          apiVersion: 'bench.kubeforge.io/v1',
          time: '2024-05-01T10:00:00Z',
          fieldsType: 'FieldsV1',
          fieldsV1: {
            'f:metadata': {
              'f:annotations': { '.': {}, 'f:kubectl.kubernetes.io/last-applied-configuration': {} },
              'f:labels': { '.': {}, 'f:app': {}, 'f:shard': {} },
            },
            'f:spec': { '.': {}, 'f:size': {}, 'f:image': {}, 'f:message': {} },
          },
        },
      ],
    },
    spec: {
      size: i % 10,
      image: 'registry.example.com/team/app:1.2.3',
      message: 'hello from the benchmark',
      ports: [
        { name: 'http', port: 8080 },
        { name: 'metrics', port: 9090 },
      ],
    },
  };
}

function review(i: number): string {
  return JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: `9a6f0e1c-1111-4222-8333-${String(i).padStart(12, '0')}`,
      kind: { group: 'bench.kubeforge.io', version: 'v1', kind: 'Widget' },
      resource: { group: 'bench.kubeforge.io', version: 'v1', resource: 'widgets' },
      requestKind: { group: 'bench.kubeforge.io', version: 'v1', kind: 'Widget' },
      requestResource: { group: 'bench.kubeforge.io', version: 'v1', resource: 'widgets' },
      name: `w-${i}`,
      namespace: 'bench',
      operation: 'CREATE',
      userInfo: { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] },
      object: widget(i),
      oldObject: null,
      dryRun: false,
      options: { apiVersion: 'meta.k8s.io/v1', kind: 'CreateOptions', fieldManager: 'kubectl-client-side-apply' },
    },
  });
}

// ------------------------------------------------------------------------------------------------
// Child: one server.

/** ours: this build (build/); nospans, untraced, traced: the spans' comparison (dist/ builds, see bench/tracing.ts). */
type Which = 'ours' | 'baseline' | 'nospans' | 'untraced' | 'traced' | 'traced-async';
type WebhookEntry = Pick<
  typeof import('../src/runtime/webhook/index.js'),
  'newWebhookServer' | 'webhookManagedBy' | 'FieldErrors' | 'field'
>;

async function serve(which: Which, certDir: string, collectorUrl?: string): Promise<void> {
  const handled: number[] = [];
  let recording = false;
  let port: number;
  if (which !== 'baseline') {
    // nospans: the build before the spans; traced: this build with the SDK exporting to a collector.
    const { newWebhookServer, webhookManagedBy, FieldErrors, field } =
      which === 'ours'
        ? thisWebhook
        : await importBuild<WebhookEntry>(
            which === 'nospans' ? 'nospans' : 'current',
            repo,
            'runtime/webhook/index.js',
          );
    if (which === 'traced' || which === 'traced-async') {
      if (!collectorUrl) throw new Error(`bench webhook: ${which} needs a collector URL`);
      registerSdk(collectorUrl, 'bench-webhook', which === 'traced-async');
    }
    const server = newWebhookServer({
      host: '127.0.0.1',
      port: 0,
      certDir,
      logger: pino({ level: 'silent' }),
      registry: new Registry(),
      onHandled: (_path, _status, ms) => {
        if (recording) handled.push(ms);
      },
    });
    const mgr = { getWebhookServer: () => server } as unknown as Manager;
    webhookManagedBy(mgr)
      .for(WidgetType)
      .withDefaulter({
        default(w: WidgetType) {
          w.spec ??= {};
          w.spec.tier ??= 'backend';
          w.spec.replicas ??= 1;
        },
      })
      .withValidator({
        validateCreate(w: WidgetType) {
          if ((w.spec?.size ?? 0) < 0)
            throw new FieldErrors([field.invalid('spec.size', w.spec?.size, 'must be >= 0')]);
        },
        validateUpdate() {},
        validateDelete() {},
      })
      .complete();
    void server.start(new AbortController().signal);
    await server.whenStarted();
    const served = server.port;
    if (served === undefined) throw new Error('bench webhook: the server started without a port');
    port = served;
  } else {
    const { readFileSync } = await import('node:fs');
    const srv = https.createServer(
      { cert: readFileSync(join(certDir, 'tls.crt')), key: readFileSync(join(certDir, 'tls.key')) },
      (req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          const out = JSON.stringify({
            apiVersion: 'admission.k8s.io/v1',
            kind: 'AdmissionReview',
            response: { uid: body.request.uid, allowed: true },
          });
          res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(out) });
          res.end(out);
        });
      },
    );
    srv.keepAliveTimeout = 120_000;
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    port = (srv.address() as { port: number }).port;
  }
  const send = process.send?.bind(process);
  if (!send) throw new Error('bench webhook: the server child runs without an IPC channel (it is forked)');
  let cpu = process.cpuUsage();
  process.on('message', (m: { cmd: string }) => {
    if (m.cmd === 'record') {
      handled.length = 0;
      recording = true;
      cpu = process.cpuUsage();
      send({ ok: true });
    } else if (m.cmd === 'stats') {
      recording = false;
      const used = process.cpuUsage(cpu);
      send({ handled, cpuMicros: used.user + used.system });
    } else if (m.cmd === 'exit') process.exit(0);
  });
  send({ port });
}

// ------------------------------------------------------------------------------------------------
// Parent: load generator.

interface Child {
  proc: ChildProcess;
  port: number;
  ask<T>(cmd: string): Promise<T>;
}

function startChild(which: Which, certDir: string, collectorUrl = ''): Promise<Child> {
  const proc = fork(fileURLToPath(import.meta.url), ['--serve', which, certDir, collectorUrl], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    proc.once('error', reject);
    proc.once('exit', (code) => reject(new Error(`${which} server exited with ${code}`)));
    proc.once('message', (m: { port: number }) => {
      resolve({
        proc,
        port: m.port,
        ask: <T>(cmd: string) =>
          new Promise<T>((res) => {
            proc.once('message', (x) => res(x as T));
            proc.send({ cmd });
          }),
      });
    });
  });
}

function post(
  agent: https.Agent,
  port: number,
  path: string,
  body: string,
  extra: Record<string, string> = {},
): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        agent,
        rejectUnauthorized: false,
        headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), ...extra },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          if (res.statusCode !== 200)
            return reject(new Error(`HTTP ${res.statusCode} from ${path}: ${Buffer.concat(chunks).toString('utf8')}`));
          const r = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          if (!r.response?.allowed) return reject(new Error(`not allowed by ${path}: ${JSON.stringify(r)}`));
          resolve();
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Sends `bodies` with `c` concurrent clients over `agent` (keep-alive); resolves the elapsed ms. */
async function load(
  agent: https.Agent,
  port: number,
  bodies: string[],
  c: number,
  headers?: (i: number) => Record<string, string>,
): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: c }, async () => {
      while (next < bodies.length) {
        const i = next++;
        await post(agent, port, i % 2 ? VALIDATE : MUTATE, bodies[i], headers?.(i));
      }
    }),
  );
  return performance.now() - t0;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] : NaN;
};

async function main(): Promise<void> {
  const log = (s: string) => process.stdout.write(`${s}\n`);
  const certDir = mkdtempSync(join(tmpdir(), 'kf-bench-webhook-'));
  const { cert, key } = generateSelfSignedCert({ hosts: ['127.0.0.1'] });
  writeFileSync(join(certDir, 'tls.crt'), cert);
  writeFileSync(join(certDir, 'tls.key'), key);
  const ours = await startChild('ours', certDir);
  const base = await startChild('baseline', certDir);
  try {
    const bodies = Array.from({ length: N }, (_, i) => review(i));
    const warm = Array.from({ length: WARMUP }, (_, i) => bodies[i % N]);
    log(`bench:webhook: ${N} AdmissionReviews of ${Buffer.byteLength(bodies[0])} bytes per run, keep-alive clients`);
    const ratios: number[] = [];
    const p99s: number[] = [];
    for (const c of [1, 16]) {
      const agents = {
        ours: new https.Agent({ keepAlive: true, maxSockets: c }),
        baseline: new https.Agent({ keepAlive: true, maxSockets: c }),
      };
      await load(agents.ours, ours.port, warm, c);
      await load(agents.baseline, base.port, warm, c);
      const time = { ours: 0, baseline: 0 };
      const cpu = { ours: 0, baseline: 0 };
      const pairRatios: number[] = [];
      const handled: number[] = [];
      await ours.ask('record');
      await base.ask('record');
      // ABBA order over chunks, so that drift and other processes' bursts hit both servers alike.
      for (let round = 0; round < ROUNDS; round++) {
        for (let k = 0; k < N; k += CHUNK) {
          const chunk = bodies.slice(k, k + CHUNK);
          const order: ('ours' | 'baseline')[] = (k / CHUNK + round) % 2 ? ['ours', 'baseline'] : ['baseline', 'ours'];
          const pair = { ours: 0, baseline: 0 };
          for (const which of order)
            pair[which] = await load(agents[which], which === 'ours' ? ours.port : base.port, chunk, c);
          time.ours += pair.ours;
          time.baseline += pair.baseline;
          pairRatios.push(pair.ours / pair.baseline);
        }
      }
      const st = await ours.ask<{ handled: number[]; cpuMicros: number }>('stats');
      handled.push(...st.handled);
      cpu.ours = st.cpuMicros / (N * ROUNDS);
      cpu.baseline = (await base.ask<{ cpuMicros: number }>('stats')).cpuMicros / (N * ROUNDS);
      agents.ours.destroy();
      agents.baseline.destroy();
      const ratio = time.ours / time.baseline;
      ratios.push(ratio);
      p99s.push(pct(handled, 99));
      const total = N * ROUNDS;
      log(
        `concurrency ${String(c).padStart(2)}: ${total} requests each: ours ${time.ours.toFixed(0)} ms (${((total / time.ours) * 1000).toFixed(0)} req/s), ` +
          `baseline ${time.baseline.toFixed(0)} ms (${((total / time.baseline) * 1000).toFixed(0)} req/s), ratio ${ratio.toFixed(2)}x ` +
          `(per ${CHUNK}-request pair: median ${pct(pairRatios, 50).toFixed(2)}x, min ${Math.min(...pairRatios).toFixed(2)}x, max ${Math.max(...pairRatios).toFixed(2)}x); ` +
          `server CPU per request ours ${cpu.ours.toFixed(0)} us, baseline ${cpu.baseline.toFixed(0)} us; ` +
          `our server-side handling p50 ${pct(handled, 50).toFixed(3)} ms, p99 ${pct(handled, 99).toFixed(3)} ms, max ${Math.max(...handled).toFixed(3)} ms (${handled.length} samples)`,
      );
    }
    const tracing = await tracingPart(certDir, log);
    log(
      `bench:webhook ratio=${Math.max(...ratios).toFixed(2)}x p99=${Math.max(...p99s).toFixed(2)}ms ${tracingFigures(tracing.off, tracing.on, tracing.onAsync)}`,
    );
  } finally {
    ours.proc.removeAllListeners('exit');
    base.proc.removeAllListeners('exit');
    ours.proc.kill();
    base.proc.kill();
    rmSync(certDir, { recursive: true, force: true });
  }
}

/**
 * The spans' cost (bench/tracing.ts): our server built without the spans (nospans), with them and
 * no provider (off), and with the SDK exporting to a collector sink (on), each from dist/; every request
 * carries a sampled traceparent, as kube-apiserver with tracing on sends it. At concurrency 16,
 * ROUNDS rounds of N requests in chunks rotating the order of the three. Ratios of the summed
 * times to nospans'; server CPU per request beside them.
 */
async function tracingPart(
  certDir: string,
  log: (s: string) => void,
): Promise<{ off: number; on: number; onAsync: number }> {
  const sink = await startCollectorSink();
  const nospans = await startChild('nospans', certDir);
  const untraced = await startChild('untraced', certDir);
  const traced = await startChild('traced', certDir, sink.url);
  const tracedAsync = await startChild('traced-async', certDir, sink.url);
  const servers = { nospans, off: untraced, on: traced, onAsync: tracedAsync };
  const c = 16;
  const agents = {
    nospans: new https.Agent({ keepAlive: true, maxSockets: c }),
    off: new https.Agent({ keepAlive: true, maxSockets: c }),
    on: new https.Agent({ keepAlive: true, maxSockets: c }),
    onAsync: new https.Agent({ keepAlive: true, maxSockets: c }),
  };
  const hex = (i: number, n: number) => i.toString(16).padStart(n, '0');
  const traceparent = (i: number) => ({ traceparent: `00-${hex(i + 1, 32)}-${hex(i + 1, 16)}-01` });
  try {
    const bodies = Array.from({ length: N }, (_, i) => review(i));
    const warm = Array.from({ length: WARMUP }, (_, i) => bodies[i % N]);
    const order = ['nospans', 'off', 'on', 'onAsync'] as const;
    for (const w of order) await load(agents[w], servers[w].port, warm, c, traceparent);
    for (const w of order) await servers[w].ask('record');
    const time = { nospans: 0, off: 0, on: 0, onAsync: 0 };
    let chunkNo = 0;
    for (let round = 0; round < ROUNDS; round++)
      for (let k = 0; k < N; k += CHUNK, chunkNo++) {
        const chunk = bodies.slice(k, k + CHUNK);
        for (let j = 0; j < order.length; j++) {
          const w = order[(j + chunkNo) % order.length];
          time[w] += await load(agents[w], servers[w].port, chunk, c, (i) => traceparent(k + i));
        }
      }
    const cpu = { nospans: 0, off: 0, on: 0, onAsync: 0 };
    for (const w of order) cpu[w] = (await servers[w].ask<{ cpuMicros: number }>('stats')).cpuMicros / (N * ROUNDS);
    const off = time.off / time.nospans;
    const on = time.on / time.nospans;
    const onAsync = time.onAsync / time.nospans;
    const cpuX = (w: keyof typeof cpu) => `${cpu[w].toFixed(0)} us (${(cpu[w] / cpu.nospans).toFixed(3)}x)`;
    log(
      `spans, concurrency ${c}, ${N * ROUNDS} requests each with a traceparent: nospans ${time.nospans.toFixed(0)} ms, ` +
        `off (no provider) ${time.off.toFixed(0)} ms -> ${off.toFixed(3)}x, on (SDK, OTLP to a collector) ${time.on.toFixed(0)} ms -> ${on.toFixed(3)}x, ` +
        `on_async (the same with the AsyncLocalStorage context manager) ${time.onAsync.toFixed(0)} ms -> ${onAsync.toFixed(3)}x; ` +
        `server CPU per request ${cpu.nospans.toFixed(0)} us, ${cpuX('off')}, ${cpuX('on')}, ${cpuX('onAsync')}`,
    );
    return { off, on, onAsync };
  } finally {
    for (const a of Object.values(agents)) a.destroy();
    for (const ch of [nospans, untraced, traced, tracedAsync]) {
      ch.proc.removeAllListeners('exit');
      ch.proc.kill();
    }
    sink.stop();
  }
}

if (process.argv[2] === '--serve') {
  serve(process.argv[3] as Which, process.argv[4], process.argv[5] || undefined).catch((e) => {
    process.stderr.write(`bench:webhook server failed: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  });
} else {
  main().catch((e) => {
    process.stderr.write(`bench:webhook failed: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exitCode = 1;
  });
}
