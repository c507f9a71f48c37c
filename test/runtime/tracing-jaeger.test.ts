// One trace from the reconcile to the API server and its webhook call and back (issue #42), judged
// by the real things: Jaeger all-in-one v1.76.0 (built from Go modules once per machine, OTLP
// receiver, memory store) collects the spans of kube-apiserver 1.37 (started with a
// TracingConfiguration exporting to Jaeger's OTLP gRPC port, every request sampled) and of a
// manager in this process (the OpenTelemetry SDK with an OTLP/HTTP exporter, as an application
// registers it). A reconcile of a ConfigMap creates a Widget, which the API server sends to the
// manager's validating webhook; the trace is read back through Jaeger's HTTP query API and must
// hold the reconcile span, its client span, the API server's spans and the webhook's span, each
// the child of the one before. A refused create records the webhook's causes in the same way.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { controllerManagedBy } from '../../src/runtime/controller/index.js';
import type { Manager } from '../../src/runtime/manager/index.js';
import { FieldErrors, field, newWebhookServer, webhookManagedBy } from '../../src/runtime/webhook/index.js';
import { eventually, newTestManager, TestEnvironment } from '../../src/testing/index.js';
import { JAEGER_VERSION, jaegerAllInOne } from '../oracle/tools.js';
import { quiet } from './webhook/helpers.js';
import { must } from '../helpers/must.js';

const GROUP = 'tracing.kubeforge.io';
const SERVICE = 'kubeforge-tracing-e2e';
const VALIDATE = `/validate-${GROUP.replaceAll('.', '-')}-v1-widget`;

interface Widget extends KubernetesObject {
  spec?: { size?: number };
}
const WidgetType = { apiVersion: `${GROUP}/v1`, kind: 'Widget' };
const CM = { apiVersion: 'v1', kind: 'ConfigMap' };

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `widgets.${GROUP}` },
  spec: {
    group: GROUP,
    names: { kind: 'Widget', listKind: 'WidgetList', plural: 'widgets', singular: 'widget' },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } },
          },
        },
      },
    ],
  },
};

/** A port free now on 127.0.0.1. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Jaeger's JSON trace model (its query API's /api/traces answers). */
interface JaegerSpan {
  traceID: string;
  spanID: string;
  operationName: string;
  references?: { refType: string; traceID: string; spanID: string }[];
  processID: string;
  tags: { key: string; value: unknown }[];
}
interface JaegerTrace {
  traceID: string;
  spans: JaegerSpan[];
  processes: Record<string, { serviceName: string }>;
}

class Jaeger {
  private child?: ChildProcess;
  private output = '';
  query = '';
  otlpGrpc = '';
  otlpHttp = '';

  async start(bin: string): Promise<void> {
    const [grpc, http, query, queryGrpc, admin, collGrpc, collHttp] = await Promise.all(
      Array.from({ length: 7 }, () => freePort()),
    );
    this.otlpGrpc = `127.0.0.1:${grpc}`;
    this.otlpHttp = `http://127.0.0.1:${http}`;
    this.query = `http://127.0.0.1:${query}`;
    this.child = spawn(
      bin,
      [
        `--collector.otlp.grpc.host-port=127.0.0.1:${grpc}`,
        `--collector.otlp.http.host-port=127.0.0.1:${http}`,
        `--query.http-server.host-port=127.0.0.1:${query}`,
        `--query.grpc-server.host-port=127.0.0.1:${queryGrpc}`,
        `--admin.http.host-port=127.0.0.1:${admin}`,
        `--collector.grpc-server.host-port=127.0.0.1:${collGrpc}`,
        `--collector.http-server.host-port=127.0.0.1:${collHttp}`,
        '--memory.max-traces=100000',
      ],
      { env: { ...process.env, SPAN_STORAGE_TYPE: 'memory' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const keep = (c: Buffer) => (this.output = (this.output + c.toString('utf8')).slice(-20_000));
    must(this.child.stdout, 'this.child.stdout').on('data', keep);
    must(this.child.stderr, 'this.child.stderr').on('data', keep);
    await eventually(
      async () => {
        if (this.child?.exitCode !== null) throw new Error(`Jaeger exited:\n${this.output}`);
        const r = await fetch(`${this.query}/api/services`);
        return r.ok;
      },
      { timeout: 60_000, interval: 250, message: 'Jaeger answers its query API' },
    );
  }

  async get<T>(path: string): Promise<T> {
    const r = await fetch(`${this.query}${path}`);
    if (!r.ok) throw new Error(`Jaeger ${path}: ${r.status} ${await r.text()}`);
    return ((await r.json()) as { data: T }).data;
  }

  /** The traces of `service` holding an operation `operation` (Jaeger's search). */
  search(service: string, operation: string): Promise<JaegerTrace[]> {
    const q = new URLSearchParams({ service, operation, limit: '50', lookback: '1h' });
    return this.get<JaegerTrace[]>(`/api/traces?${q}`);
  }

  async trace(id: string): Promise<JaegerTrace> {
    return (await this.get<JaegerTrace[]>(`/api/traces/${id}`))[0];
  }

  stop(): void {
    this.child?.kill('SIGTERM');
  }
}

const tag = (s: JaegerSpan, key: string) => s.tags.find((t) => t.key === key)?.value;
const parentOf = (s: JaegerSpan) => s.references?.find((r) => r.refType === 'CHILD_OF')?.spanID;

/** The spans from `s` up to the root, each with its service. */
function ancestry(t: JaegerTrace, s: JaegerSpan): { op: string; service: string }[] {
  const byId = new Map(t.spans.map((x) => [x.spanID, x]));
  const out: { op: string; service: string }[] = [];
  for (let cur: JaegerSpan | undefined = s; cur; cur = byId.get(parentOf(cur) ?? '')) {
    out.push({ op: cur.operationName, service: t.processes[cur.processID]?.serviceName });
    if (out.length > 50) break;
  }
  return out;
}

describe(`one trace through Jaeger ${JAEGER_VERSION}: reconcile, client, kube-apiserver, webhook`, () => {
  const jaeger = new Jaeger();
  const dir = mkdtempSync(join(tmpdir(), 'kf-tracing-'));
  let env: TestEnvironment;
  let provider: TracerProvider;
  let kc: KubeConfig;
  let mgr: Manager;
  const stop = new AbortController();
  let running: Promise<void>;

  before(async () => {
    await jaeger.start(await jaegerAllInOne());
    const config = join(dir, 'tracing.yaml');
    writeFileSync(
      config,
      [
        'apiVersion: apiserver.config.k8s.io/v1',
        'kind: TracingConfiguration',
        `endpoint: ${jaeger.otlpGrpc}`,
        'samplingRatePerMillion: 1000000',
        '',
      ].join('\n'),
    );
    // The application's part: the SDK, an OTLP exporter, a context manager (issue #42's scaffold registers the same).
    provider = new TracerProvider({
      resource: resourceFromAttributes({ 'service.name': SERVICE }),
      spanProcessors: [
        new SimpleSpanProcessor({ exporter: new OTLPTraceExporter({ url: `${jaeger.otlpHttp}/v1/traces` }) }),
      ],
    });
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    trace.setGlobalTracerProvider(provider);

    env = new TestEnvironment({
      crds: [crd] as never,
      apiServerFlags: [`--tracing-config-file=${config}`],
      webhookInstallOptions: {
        validatingWebhooks: [
          {
            apiVersion: 'admissionregistration.k8s.io/v1',
            kind: 'ValidatingWebhookConfiguration',
            metadata: { name: 'tracing-validating' },
            webhooks: [
              {
                name: 'vwidget-v1.tracing.kubeforge.io',
                admissionReviewVersions: ['v1'],
                sideEffects: 'None',
                failurePolicy: 'Fail',
                clientConfig: { service: { name: 'webhook-service', namespace: 'system', path: VALIDATE } },
                rules: [{ apiGroups: [GROUP], apiVersions: ['v1'], operations: ['CREATE'], resources: ['widgets'] }],
              },
            ],
          },
        ],
      },
    } as never);
    kc = await env.start();
    mgr = newTestManager(kc, {
      webhookServer: newWebhookServer({ ...env.webhookServerOptions(), logger: quiet() }),
      logger: quiet(),
    });
    webhookManagedBy(mgr)
      .for<Widget>(WidgetType as never)
      .withValidator({
        validateCreate: (w: Widget) => {
          if ((w.spec?.size ?? 0) < 0)
            throw new FieldErrors([field.invalid('spec.size', w.spec?.size, 'must be at least 0')], {
              kind: 'Widget',
              group: GROUP,
              name: w.metadata?.name,
            });
          return [];
        },
        validateUpdate: () => [],
        validateDelete: () => [],
      })
      .complete();
    // A ConfigMap `widget-<n>` asks for a Widget of size n (`widget-minus` for -1, which the webhook refuses).
    controllerManagedBy(mgr)
      .for(CM)
      .named('widget-maker')
      .withOptions({ needLeaderElection: false })
      .complete(async (req) => {
        if (!req.name.startsWith('widget-')) return {};
        const size = req.name === 'widget-minus' ? -1 : 1;
        await mgr
          .getClient()
          .create<Widget>({ ...WidgetType, metadata: { name: req.name, namespace: req.namespace }, spec: { size } })
          .catch((e: { code?: number }) => {
            if (e.code !== 409) throw e;
          });
        return {};
      });
    running = mgr.start(stop.signal);
    await mgr.getWebhookServer().whenStarted();
  });

  after(async () => {
    stop.abort();
    await running?.catch(() => undefined);
    await env?.stop();
    await provider?.shutdown().catch(() => undefined);
    trace.disable();
    context.disable();
    jaeger.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Creates ConfigMap `name`, then waits until Jaeger holds its reconcile's trace with `until` true. */
  async function traceOf(name: string, until: (t: JaegerTrace) => boolean, exactlyOne: boolean): Promise<JaegerTrace> {
    await mgr.getClient().create({ ...CM, metadata: { name, namespace: 'default' } });
    let last: JaegerTrace | undefined;
    try {
      const found = await eventually(
        async (): Promise<JaegerTrace | false> => {
          await provider.forceFlush();
          const found = (await jaeger.search(SERVICE, 'reconcile widget-maker')).filter((t) =>
            t.spans.some(
              (s) => s.operationName === 'reconcile widget-maker' && tag(s, 'kubeforge.reconcile.name') === name,
            ),
          );
          if (exactlyOne ? found.length !== 1 : found.length === 0) return false;
          // The API server batches its exports (every 5 s): read the whole trace until its spans arrived.
          for (const f of found) {
            last = await jaeger.trace(f.traceID);
            if (until(last)) return last;
          }
          return false;
        },
        { timeout: 60_000, interval: 1000, message: `the trace of the reconcile of ${name} in Jaeger` },
      );
      return found as JaegerTrace;
    } catch (e) {
      const spans = last?.spans.map(
        (s) => `${must(last, 'last').processes[s.processID]?.serviceName}: ${s.operationName}`,
      );
      throw new Error(`${(e as Error).message}\nlast trace read: ${JSON.stringify(spans)}`);
    }
  }

  /** The webhook span's chain of parents is complete up to the reconcile span (the API server's batch arrived). */
  const complete = (t: JaegerTrace) => {
    const hook = webhookSpan(t);
    return hook !== undefined && ancestry(t, hook).at(-1)?.op === 'reconcile widget-maker';
  };
  const webhookSpan = (t: JaegerTrace) =>
    t.spans.find(
      (s) => s.operationName === `admission ${VALIDATE} CREATE` && t.processes[s.processID].serviceName === SERVICE,
    );

  it('a reconcile that creates an object: one trace, reconcile > client request > API server > webhook', async (tc) => {
    const t = await traceOf('widget-1', complete, true);
    const svc = (s: JaegerSpan) => t.processes[s.processID].serviceName;
    assert.ok(
      t.spans.every((s) => s.traceID === t.traceID),
      'one trace',
    );
    const reconciles = t.spans.filter((s) => s.operationName === 'reconcile widget-maker');
    assert.equal(reconciles.length, 1, 'one reconcile span');
    const reconcile = reconciles[0];
    assert.equal(parentOf(reconcile), undefined, 'the reconcile span is the root');
    assert.equal(tag(reconcile, 'kubeforge.reconcile.kind'), 'ConfigMap');
    assert.equal(tag(reconcile, 'kubeforge.reconcile.namespace'), 'default');
    assert.equal(tag(reconcile, 'kubeforge.reconcile.result'), 'success');
    const create = t.spans.find((s) => s.operationName === 'create widgets');
    assert.ok(create, 'the client request span');
    assert.equal(svc(create), SERVICE);
    assert.equal(parentOf(create), reconcile.spanID, 'the client span is a child of the reconcile span');
    assert.equal(tag(create, 'http.response.status_code'), 201);
    assert.equal(tag(create, 'kubeforge.client.group'), GROUP);
    // The API server's own spans, under the client span.
    const apiserver = t.spans.filter((s) => svc(s) === 'apiserver');
    assert.ok(apiserver.length >= 2, `API server spans: ${apiserver.map((s) => s.operationName).join(', ')}`);
    const entry = apiserver.find((s) => parentOf(s) === create.spanID);
    assert.ok(entry, "an API server span is the client span's child");
    assert.match(entry.operationName, /^POST \/apis\/tracing\.kubeforge\.io\/v1\/namespaces\/\{:namespace\}\/widgets$/);
    assert.ok(
      apiserver.some((s) => s.operationName === 'Call validating webhook'),
      apiserver.map((s) => s.operationName).join(', '),
    );
    // The webhook's span, under the API server's call.
    const hook = must(webhookSpan(t), 'webhookSpan(t)');
    assert.equal(tag(hook, 'kubeforge.admission.allowed'), true);
    assert.equal(tag(hook, 'kubeforge.admission.operation'), 'CREATE');
    const chain = ancestry(t, hook);
    tc.diagnostic(`webhook span's ancestry: ${chain.map((c) => `${c.service}: ${c.op}`).join(' < ')}`);
    tc.diagnostic(`trace: ${t.spans.map((x) => `${svc(x)}: ${x.operationName}`).join(' | ')}`);
    assert.equal(
      chain[1].service,
      'apiserver',
      `the webhook span's parent is the API server's: ${JSON.stringify(chain)}`,
    );
    assert.ok(
      chain.some((c) => c.op === 'Call validating webhook'),
      JSON.stringify(chain),
    );
    assert.deepEqual(chain.slice(-2), [
      { op: 'create widgets', service: SERVICE },
      { op: 'reconcile widget-maker', service: SERVICE },
    ]);
  });

  it('a refused create: the webhook span records the causes, the client span the 422, the reconcile span the error', async () => {
    const t = await traceOf('widget-minus', complete, false);
    const hook = must(webhookSpan(t), 'webhookSpan(t)');
    assert.equal(tag(hook, 'kubeforge.admission.allowed'), false);
    assert.equal(tag(hook, 'kubeforge.admission.reason'), 'Invalid');
    assert.match(
      String(tag(hook, 'kubeforge.admission.causes')),
      /spec\.size: Invalid value: -1: must be at least 0|spec\.size/,
    );
    const create = must(
      t.spans.find((s) => s.operationName === 'create widgets'),
      "t.spans.find((s) => s.operationName === 'create widgets')",
    );
    assert.equal(tag(create, 'http.response.status_code'), 422);
    const reconcile = must(
      t.spans.find((s) => s.operationName === 'reconcile widget-maker'),
      "t.spans.find((s) => s.operationName === 'reconcile widget-maker')",
    );
    assert.equal(tag(reconcile, 'kubeforge.reconcile.result'), 'error');
    assert.equal(tag(reconcile, 'error'), true);
    assert.deepEqual(ancestry(t, hook).slice(-2), [
      { op: 'create widgets', service: 'kubeforge-tracing-e2e' },
      { op: 'reconcile widget-maker', service: 'kubeforge-tracing-e2e' },
    ]);
  });
});
