/**
 * The generated manager's OpenTelemetry switch (issue #42): a project scaffolded with the real CLI
 * (init, then a controller for ConfigMaps), compiled with tsc, its `build/src/main.js` started as
 * a user starts it, against the fake API server:
 * - with OTEL_EXPORTER_OTLP_ENDPOINT pointed at an OTLP/HTTP sink, the reconcile span of a created
 *   ConfigMap arrives there (decoded from the protobuf export), under the project's service name,
 *   and the reconcile's log line (on stderr, where the manager logs) carries the span's trace id,
 *   with no AsyncLocalStorage context manager loaded (the runtime hands the span on itself);
 * - without it, the process loads no OpenTelemetry SDK module (a module loader hook lists every
 *   `@opentelemetry/*` module resolved), reconciles all the same, and exports nothing;
 * - `--help` never loads the SDK, and a protocol it cannot speak is an error, not silence.
 * kubeforge is this repository (its dist/), the SDK packages its own node_modules.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { run } from '../../src/cli/index.js';
import { GENERATED_VERSIONS } from '../../src/scaffolds/init.js';
import { FakeAPIServer } from '../../src/testing/fake/index.js';
import { packageRoot } from '../../src/util/package-root.js';
import { must } from '../helpers/must.js';

const repo = packageRoot();
const work = mkdtempSync(join(tmpdir(), 'kf-tracing-main-'));
const dir = join(work, 'traced-operator');
const PROJECT = 'traced-operator';

async function kubeforge(cwd: string, args: string[]): Promise<void> {
  let err = '';
  const code = await run(['node', 'kubeforge', ...args], {
    cwd,
    color: false,
    out: () => {},
    err: (t) => {
      err += t;
    },
  });
  assert.equal(code, 0, `kubeforge ${args.join(' ')}:\n${err}`);
}

// --- OTLP protobuf, read by hand (opentelemetry/proto/collector/trace/v1 ExportTraceServiceRequest) ---

type Field = { no: number; bytes?: Buffer; int?: bigint };

function varint(buf: Buffer, at: number): [bigint, number] {
  let v = 0n;
  let shift = 0n;
  for (;;) {
    const b = buf[at++];
    v |= BigInt(b & 0x7f) << shift;
    if (b < 0x80) return [v, at];
    shift += 7n;
  }
}

function fields(buf: Buffer): Field[] {
  const out: Field[] = [];
  let at = 0;
  while (at < buf.length) {
    const [key, next] = varint(buf, at);
    at = next;
    const no = Number(key >> 3n);
    switch (Number(key & 7n)) {
      case 0: {
        const [v, n] = varint(buf, at);
        out.push({ no, int: v });
        at = n;
        break;
      }
      case 1:
        out.push({ no, bytes: buf.subarray(at, at + 8) });
        at += 8;
        break;
      case 2: {
        const [len, n] = varint(buf, at);
        out.push({ no, bytes: buf.subarray(n, n + Number(len)) });
        at = n + Number(len);
        break;
      }
      case 5:
        out.push({ no, bytes: buf.subarray(at, at + 4) });
        at += 4;
        break;
      default:
        throw new Error(`unexpected wire type in OTLP export: key ${key}`);
    }
  }
  return out;
}

const sub = (f: Field[], no: number) =>
  f.filter((x) => x.no === no).map((x) => fields(must(x.bytes, `the bytes of field ${no}`)));
const str = (f: Field[], no: number) => f.find((x) => x.no === no)?.bytes?.toString('utf8');
const hex = (f: Field[], no: number) => f.find((x) => x.no === no)?.bytes?.toString('hex');

/** KeyValue list -> record (string, int and bool values). */
function attributes(kvs: Field[][]): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const kv of kvs) {
    const value = sub(kv, 2)[0] ?? [];
    const s = value.find((x) => x.no === 1);
    const b = value.find((x) => x.no === 2);
    const i = value.find((x) => x.no === 3);
    const key = must(str(kv, 1), 'the attribute key');
    if (s) out[key] = must(s.bytes, `the string value of ${key}`).toString('utf8');
    else if (b) out[key] = b.int === 1n;
    else out[key] = Number(i?.int);
  }
  return out;
}

interface ExportedSpan {
  service: string | number | boolean | undefined;
  scope: string | undefined;
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: Record<string, string | number | boolean>;
}

function decodeExport(body: Buffer): ExportedSpan[] {
  const spans: ExportedSpan[] = [];
  for (const rs of sub(fields(body), 1)) {
    const resource = attributes(sub(sub(rs, 1)[0] ?? [], 1));
    for (const ss of sub(rs, 2)) {
      const scope = str(sub(ss, 1)[0] ?? [], 1);
      for (const s of sub(ss, 2)) {
        const parent = hex(s, 4);
        spans.push({
          service: resource['service.name'],
          scope,
          name: must(str(s, 5), 'the span name'),
          traceId: must(hex(s, 1), 'the trace id'),
          spanId: must(hex(s, 2), 'the span id'),
          parentSpanId: parent || undefined,
          attributes: attributes(sub(s, 9)),
        });
      }
    }
  }
  return spans;
}

// --- the collector stand-in and the manager process ---

const exported: ExportedSpan[] = [];
let exports = 0;
let sink: Server;
let sinkUrl: string;
let fake: FakeAPIServer;
let kubeconfig: string;
const hooks = join(work, 'otel-modules-hook.mjs');

/** Runs the generated manager; `modules` is the file its loader hook lists `@opentelemetry/*` modules in. */
function startManager(
  name: string,
  env: Record<string, string>,
  args: string[] = [],
): {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  modules: () => string[];
  exit: Promise<number | null>;
} {
  const modules = join(work, `${name}.modules`);
  writeFileSync(modules, '');
  const base: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(base)) if (k.startsWith('OTEL_') || k === 'NODE_TEST_CONTEXT') delete base[k];
  const child = spawn(
    process.execPath,
    [
      '--import',
      pathToFileURL(join(work, 'register-hook.mjs')).href,
      'build/src/main.js',
      `--kubeconfig=${kubeconfig}`,
      '--health-probe-bind-address=127.0.0.1:0',
      '--zap-log-level=debug',
      ...args,
    ],
    { cwd: dir, env: { ...base, KF_TEST_MODULES_FILE: modules, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  must(child.stdout, 'child.stdout').on('data', (c) => (out += c));
  must(child.stderr, 'child.stderr').on('data', (c) => (err += c));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    out: () => out,
    err: () => err,
    modules: () =>
      readFileSync(modules, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((u) => /\/(@opentelemetry\/[^/]+)\//.exec(u)?.[1] ?? u),
    exit,
  };
}

async function until<T>(
  what: string,
  f: () => T | undefined,
  proc?: { out: () => string; err: () => string },
): Promise<T> {
  for (let i = 0; i < 1200; i++) {
    const v = f();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`gave up waiting for ${what}${proc ? `\nstdout:\n${proc.out()}\nstderr:\n${proc.err()}` : ''}`);
}

function logLine(out: string, msg: string, name: string): Record<string, unknown> | undefined {
  for (const line of out.split('\n')) {
    if (!line.startsWith('{')) continue;
    const l = JSON.parse(line) as Record<string, unknown>;
    if (l.msg === msg && l.name === name) return l;
  }
  return undefined;
}

const SDK_MODULES = [
  '@opentelemetry/sdk-trace',
  '@opentelemetry/exporter-trace-otlp-proto',
  '@opentelemetry/context-async-hooks',
  '@opentelemetry/resources',
];

describe('the generated manager exports traces when OTEL_EXPORTER_OTLP_ENDPOINT is set, and loads no SDK when not', () => {
  before(async () => {
    assert.ok(existsSync(join(repo, 'dist/runtime/index.js')), 'dist/ is needed: npx tsc -p tsconfig.build.json');
    mkdirSync(dir);
    await kubeforge(dir, ['init', '--domain', 'example.com', '--skip-install', '--kubeforge-source', 'link']);
    await kubeforge(dir, [
      'create',
      'api',
      '--group',
      'core',
      '--version',
      'v1',
      '--kind',
      'ConfigMap',
      '--resource=false',
      '--controller',
    ]);
    const modules = join(dir, 'node_modules');
    mkdirSync(modules);
    for (const name of readdirSync(join(repo, 'node_modules'))) {
      if (name !== 'kubeforge' && !name.startsWith('.'))
        symlinkSync(join(repo, 'node_modules', name), join(modules, name));
    }
    symlinkSync(repo, join(modules, 'kubeforge'));
    const tsc = spawnSync(process.execPath, [join(repo, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], {
      cwd: dir,
      encoding: 'utf8',
    });
    assert.equal(tsc.status, 0, `tsc in the generated project:\n${tsc.stdout}${tsc.stderr}`);

    // A loader hook listing every @opentelemetry module the process resolves (ESM; the SDK's
    // packages resolve to their ESM builds).
    writeFileSync(
      hooks,
      `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  if (r.url.includes('/@opentelemetry/')) appendFileSync(process.env.KF_TEST_MODULES_FILE, r.url + '\\n');
  return r;
}
`,
    );
    writeFileSync(
      join(work, 'register-hook.mjs'),
      `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
    );

    sink = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        let body = Buffer.concat(chunks);
        if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
        if (req.url === '/v1/traces') {
          exports++;
          exported.push(...decodeExport(body));
        }
        res.writeHead(200, { 'Content-Type': 'application/x-protobuf' });
        res.end();
      });
    });
    await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
    sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;

    fake = await FakeAPIServer.start({
      objects: [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'traced' } }],
    });
    kubeconfig = join(work, 'kubeconfig');
    writeFileSync(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        `- name: fake\n  cluster:\n    server: ${fake.url}\n    insecure-skip-tls-verify: true`,
        'users:',
        '- name: fake\n  user: {}',
        'contexts:',
        '- name: fake\n  context:\n    cluster: fake\n    user: fake',
        'current-context: fake',
        '',
      ].join('\n'),
    );
  });

  after(async () => {
    await fake?.stop();
    sink?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it("asks for the OpenTelemetry versions kubeforge's own tests and benches run with", () => {
    const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as Record<string, Record<string, string>>;
    const ours = { ...pkg.devDependencies, ...pkg.dependencies };
    const generated = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    assert.equal(GENERATED_VERSIONS.otelApi, ours['@opentelemetry/api']);
    assert.equal(GENERATED_VERSIONS.otelSdk, ours['@opentelemetry/sdk-trace']);
    assert.equal(GENERATED_VERSIONS.otelExporter, ours['@opentelemetry/exporter-trace-otlp-proto']);
    for (const name of ['api', 'context-async-hooks', 'exporter-trace-otlp-proto', 'resources', 'sdk-trace'])
      assert.equal(generated.dependencies[`@opentelemetry/${name}`], ours[`@opentelemetry/${name}`], name);
  });

  it('with OTEL_EXPORTER_OTLP_ENDPOINT: the reconcile span reaches the collector, and the log line carries its trace id', async () => {
    const m = startManager('on', { OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl, OTEL_BSP_SCHEDULE_DELAY: '100' });
    try {
      await until('the manager to start', () => (/starting manager/.test(m.err()) ? true : undefined), m);
      await fake
        .client()
        .create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'traced-1', namespace: 'traced' } });
      const span = await until(
        'the reconcile span of traced-1 at the collector',
        () =>
          exported.find(
            (s) => s.name === 'reconcile configmap' && s.attributes['kubeforge.reconcile.name'] === 'traced-1',
          ),
        m,
      );
      assert.equal(span.service, PROJECT, 'service.name defaults to the project name');
      assert.equal(span.scope, 'kubeforge');
      assert.equal(span.attributes['kubeforge.reconcile.namespace'], 'traced');
      assert.equal(span.attributes['kubeforge.reconcile.result'], 'success');
      assert.equal(span.parentSpanId, undefined, 'a reconcile is a root span');
      const line = await until(
        'the reconcile log line',
        () => logLine(m.err(), 'reconciling ConfigMap', 'traced-1'),
        m,
      );
      assert.equal(line.trace_id, span.traceId);
      assert.equal(line.span_id, span.spanId);
      assert.equal(line.reconcileID, span.attributes['kubeforge.reconcile.id']);
      m.child.kill('SIGTERM');
      assert.equal(await m.exit, 0, m.err());
      for (const sdk of SDK_MODULES.filter((x) => x !== '@opentelemetry/context-async-hooks'))
        assert.ok(m.modules().includes(sdk), `${sdk} loaded: ${m.modules().join(', ')}`);
      // No context manager by default (src/tracing.ts ASYNC_CONTEXT): the runtime passes the span on itself.
      assert.ok(!m.modules().includes('@opentelemetry/context-async-hooks'));
    } finally {
      m.child.kill('SIGKILL');
    }
  });

  it('without it: no SDK module is loaded, the reconcile runs, nothing is exported', async () => {
    const before = exports;
    const m = startManager('off', {});
    try {
      await until('the manager to start', () => (/starting manager/.test(m.err()) ? true : undefined), m);
      await fake
        .client()
        .create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'untraced-1', namespace: 'traced' } });
      const line = await until(
        'the reconcile log line',
        () => logLine(m.err(), 'reconciling ConfigMap', 'untraced-1'),
        m,
      );
      assert.equal(line.trace_id, undefined);
      m.child.kill('SIGTERM');
      assert.equal(await m.exit, 0, m.err());
      const loaded = m.modules();
      assert.ok(
        loaded.includes('@opentelemetry/api'),
        `the hook sees kubeforge's @opentelemetry/api: ${loaded.join(', ')}`,
      );
      assert.deepEqual(
        loaded.filter((x) => SDK_MODULES.includes(x)),
        [],
      );
      assert.equal(exports, before, 'no export from a manager without the variable');
    } finally {
      m.child.kill('SIGKILL');
    }
  });

  it('--help loads no SDK even with the variable set; an unsupported protocol is refused before anything starts', async () => {
    const help = startManager('help', { OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl }, ['--help']);
    assert.equal(await help.exit, 0, help.err());
    assert.match(help.out(), /OTEL_EXPORTER_OTLP_ENDPOINT/);
    assert.deepEqual(
      help.modules().filter((x) => SDK_MODULES.includes(x)),
      [],
    );

    const grpc = startManager('grpc', { OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' });
    assert.equal(await grpc.exit, 2);
    assert.match(grpc.err(), /OTEL_EXPORTER_OTLP_PROTOCOL "grpc" is not supported: .*OTLP\/HTTP port/);
    assert.doesNotMatch(grpc.err(), /starting manager/);
    assert.deepEqual(
      grpc.modules().filter((x) => SDK_MODULES.includes(x)),
      [],
    );

    const sampler = startManager('sampler', { OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl, OTEL_TRACES_SAMPLER: 'sometimes' });
    assert.equal(await sampler.exit, 2);
    assert.match(sampler.err(), /OTEL_TRACES_SAMPLER "sometimes" is not supported: use one of always_on/);
  });
});
