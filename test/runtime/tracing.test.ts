// The runtime's OpenTelemetry spans (issue #42) on the fake API server, recorded by
// kubeforge/testing's SpanRecorder: the reconcile span and its client spans, the traceparent the
// server receives, the link to the span that enqueued a request, the webhook span under the
// caller's traceparent, trace ids in log lines, and nothing at all without a provider.
import assert from 'node:assert/strict';
import { after, afterEach, describe, it } from 'node:test';
import { context, SpanKind, trace } from '@opentelemetry/api';
import pino from 'pino';
import { ChannelSource, controllerManagedBy, enqueueRequestForObject } from '../../src/runtime/controller/index.js';
import { newLogger } from '../../src/runtime/manager/index.js';
import { LeaderElector } from '../../src/runtime/manager/leaderelection.js';
import { RestClient } from '../../src/runtime/client/rest.js';
import { parseApiPath, verbOf } from '../../src/runtime/client/tracing.js';
import { activeTracer, formatTraceparent, parseTraceparent } from '../../src/runtime/tracing.js';
import {
  eventually,
  newFakeClient,
  newTestManager,
  recordSpans,
  type RecordedSpan,
  type SpanRecorder,
} from '../../src/testing/index.js';
import { admissionReview, request, startServer } from './webhook/helpers.js';
import { must } from '../helpers/must.js';

/** The part of an AdmissionReview these handlers read. */
type ReviewRequest = { request: { uid: string } };

const CM = { apiVersion: 'v1', kind: 'ConfigMap' };
type ConfigMap = { apiVersion: string; kind: string; metadata: { name: string; namespace: string }; data?: object };

/** A manager whose controller copies ConfigMap `src-*` to `<name>-copy`; started; returns its stop. */
async function copier(
  c: Awaited<ReturnType<typeof newFakeClient>>,
  extra?: (b: ReturnType<typeof controllerManagedBy>) => void,
  log?: pino.Logger,
) {
  const mgr = newTestManager(c.server.config, log ? { logger: log } : {});
  const b = controllerManagedBy(mgr).for(CM).named('copier');
  extra?.(b);
  b.complete(async (req, ctx) => {
    if (!req.name.startsWith('src-')) return {};
    ctx.logger.info('copying');
    const client = mgr.getClient();
    const src = await client.get<ConfigMap>(CM, req);
    await client
      .create({ ...CM, metadata: { name: `${req.name}-copy`, namespace: req.namespace }, data: src.data })
      .catch((e: { code?: number }) => {
        if (e.code !== 409) throw e;
      });
    return {};
  });
  const stop = new AbortController();
  const running = mgr.start(stop.signal);
  return async () => {
    stop.abort();
    await running;
  };
}

const spanNamed = (spans: SpanRecorder, name: string, pred: (s: RecordedSpan) => boolean = () => true) =>
  spans.ended((s) => s.name === name && pred(s));

describe('tracing (issue #42)', () => {
  let spans: SpanRecorder | undefined;
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of closers.splice(0).reverse()) await c();
    spans?.unregister();
    spans = undefined;
  });
  after(() => trace.disable());

  it('reads and writes W3C traceparent; parses API paths into verbs and resources', () => {
    const sc = parseTraceparent('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
    assert.deepEqual(sc, {
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      traceFlags: 1,
      isRemote: true,
    });
    assert.equal(formatTraceparent(sc), '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
    for (const bad of [
      '00-00000000000000000000000000000000-b7ad6b7169203331-01',
      '00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01',
      'ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-extra',
      '00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01',
      'garbage',
    ])
      assert.equal(parseTraceparent(bad), undefined, bad);
    const p = parseApiPath('/apis/apps/v1/namespaces/team-a/deployments/web/scale');
    assert.deepEqual(p, {
      group: 'apps',
      version: 'v1',
      namespace: 'team-a',
      resource: 'deployments',
      name: 'web',
      subresource: 'scale',
    });
    assert.equal(verbOf('GET', p, ''), 'get');
    assert.equal(verbOf('GET', parseApiPath('/api/v1/pods'), 'watch=true'), 'watch');
    assert.equal(verbOf('GET', parseApiPath('/api/v1/namespaces/a/pods'), ''), 'list');
    assert.equal(verbOf('DELETE', parseApiPath('/api/v1/namespaces/a/pods'), ''), 'deletecollection');
    assert.equal(verbOf('POST', parseApiPath('/api/v1/namespaces/a/configmaps'), ''), 'create');
    assert.equal(verbOf('GET', parseApiPath('/apis/apps/v1'), ''), 'get', 'discovery');
    assert.equal(parseApiPath('/readyz'), undefined);
  });

  it('without a registered provider: no tracer, no traceparent sent, the reconcile still runs', async () => {
    assert.equal(activeTracer(), undefined);
    const c = await newFakeClient();
    closers.push(() => c.close());
    closers.push(await copier(c));
    await c.create({ ...CM, metadata: { name: 'src-a', namespace: 'default' }, data: { k: 'v' } });
    await eventually(() => c.get(CM, { namespace: 'default', name: 'src-a-copy' }));
    assert.deepEqual(c.server.tracedRequests(), []);
  });

  it('a reconcile span per reconcile, its client requests as children sending traceparent, ids in log lines', async () => {
    spans = recordSpans();
    const lines: string[] = [];
    const log = newLogger({ level: 'info', destination: { write: (l: string) => lines.push(l) } });
    const c = await newFakeClient();
    closers.push(() => c.close());
    closers.push(await copier(c, undefined, log));
    await c.create({ ...CM, metadata: { name: 'src-b', namespace: 'default' }, data: { k: 'v' } });
    const r = await spanNamed(spans, 'reconcile copier', (s) => s.attributes['kubeforge.reconcile.name'] === 'src-b');
    assert.equal(r.parentSpanId, undefined, 'a reconcile span is a root');
    assert.equal(r.scope, 'kubeforge');
    assert.equal(r.kind, SpanKind.INTERNAL);
    assert.equal(r.attributes['kubeforge.controller'], 'copier');
    assert.equal(r.attributes['kubeforge.reconcile.group'], '');
    assert.equal(r.attributes['kubeforge.reconcile.kind'], 'ConfigMap');
    assert.equal(r.attributes['kubeforge.reconcile.namespace'], 'default');
    assert.equal(r.attributes['kubeforge.reconcile.result'], 'success');
    assert.equal(typeof r.attributes['kubeforge.reconcile.id'], 'string');
    assert.equal(typeof r.attributes['kubeforge.reconcile.queue_wait_ms'], 'number');
    assert.equal(typeof r.attributes['kubeforge.reconcile.priority'], 'number');
    const children = spans.childrenOf(r);
    const create = children.find((s) => s.name === 'create configmaps');
    assert.ok(create, `children: ${children.map((s) => s.name).join(', ')}`);
    assert.equal(create.kind, SpanKind.CLIENT);
    assert.equal(create.attributes['kubeforge.client.verb'], 'create');
    assert.equal(create.attributes['kubeforge.client.resource'], 'configmaps');
    assert.equal(create.attributes['kubeforge.client.namespace'], 'default');
    assert.equal(create.attributes['http.request.method'], 'POST');
    assert.equal(create.attributes['http.response.status_code'], 201);
    // The fake API server got the client span's context.
    const sent = c.server.tracedRequests().filter((t) => t.method === 'POST');
    assert.deepEqual(
      sent.map((t) => t.traceparent),
      [`00-${create.traceId}-${create.spanId}-01`],
    );
    // The reconciler's log line carries the reconcile span's ids.
    const copying = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'copying' && l.name === 'src-b');
    assert.equal(copying?.trace_id, r.traceId);
    assert.equal(copying?.span_id, r.spanId);
    // Informer lists and watches, outside any span, start no trace.
    assert.ok(
      spans.spans.every((s) => s.name === 'reconcile copier' || s.parentSpanId !== undefined),
      spans.spans.map((s) => s.name).join(', '),
    );
  });

  it('without a context manager: requests sent with ctx.signal are children of the reconcile span, ctx.logger carries its ids', async () => {
    spans = recordSpans();
    // The SDK registered without AsyncLocalStorage (the generated src/tracing.ts's default): nothing
    // carries the active span across awaits, so only what the runtime passes explicitly joins it.
    context.disable();
    const lines: string[] = [];
    const log = newLogger({ level: 'info', destination: { write: (l: string) => lines.push(l) } });
    const c = await newFakeClient();
    closers.push(() => c.close());
    const mgr = newTestManager(c.server.config, { logger: log });
    controllerManagedBy(mgr)
      .for(CM)
      .named('explicit')
      .withOptions({ reconciliationTimeoutMs: 60_000 })
      .complete(async (req, ctx) => {
        if (!req.name.startsWith('src-')) return {};
        ctx.logger.info('copying');
        const client = mgr.getClient();
        await client.create(
          { ...CM, metadata: { name: `${req.name}-copy`, namespace: req.namespace } },
          { signal: ctx.signal },
        );
        // Without the signal the runtime cannot tell which reconcile sent it: no span, no traceparent.
        await client.create({ ...CM, metadata: { name: `${req.name}-other`, namespace: req.namespace } });
        return {};
      });
    const stop = new AbortController();
    const running = mgr.start(stop.signal);
    closers.push(async () => {
      stop.abort();
      await running;
    });
    await c.create({ ...CM, metadata: { name: 'src-x', namespace: 'default' } });
    const r = await spanNamed(spans, 'reconcile explicit', (s) => s.attributes['kubeforge.reconcile.name'] === 'src-x');
    const children = spans.childrenOf(r);
    assert.deepEqual(
      children.map((s) => [s.name, s.attributes['kubeforge.client.name']]),
      [['create configmaps', undefined]],
    );
    const sent = c.server.tracedRequests().filter((t) => t.method === 'POST');
    assert.deepEqual(
      sent.map((t) => t.traceparent),
      [`00-${children[0].traceId}-${children[0].spanId}-01`],
      'only the request sent with ctx.signal carries a traceparent',
    );
    const copying = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'copying' && l.name === 'src-x');
    assert.equal(copying.length, 1);
    assert.equal(copying[0].trace_id, r.traceId);
    assert.equal(copying[0].span_id, r.spanId);
    assert.ok(await c.get(CM, { namespace: 'default', name: 'src-x-other' }));
  });

  it('the webhook span without a context manager: the handler ctx.logger carries its ids', async () => {
    spans = recordSpans();
    context.disable();
    const lines: string[] = [];
    const srv = await startServer(
      (s) =>
        s.register('/validate', {
          handle: async (body: ReviewRequest, ctx: { logger: pino.Logger }) => {
            ctx.logger.info('validating');
            return {
              apiVersion: 'admission.k8s.io/v1',
              kind: 'AdmissionReview',
              response: { uid: body.request.uid, allowed: true },
            };
          },
        }),
      { logger: newLogger({ level: 'info', destination: { write: (l: string) => lines.push(l) } }) },
    );
    closers.push(() => srv.stop());
    const parent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const reply = await request(
      must(srv.server.port, 'srv.server.port'),
      '/validate',
      admissionReview('CREATE', { object: {} }),
      {
        headers: { traceparent: parent },
      },
    );
    assert.equal(reply.status, 200);
    const w = await spans.ended('admission /validate CREATE');
    const line = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'validating');
    assert.equal(line?.trace_id, w.traceId);
    assert.equal(line?.span_id, w.spanId);
  });

  it('a failed reconcile records the error; a request enqueued under a span links to it', async () => {
    spans = recordSpans();
    const c = await newFakeClient();
    closers.push(() => c.close());
    const channel = new ChannelSource<ConfigMap>();
    const mgr = newTestManager(c.server.config);
    let calls = 0;
    controllerManagedBy(mgr)
      .named('failing')
      .watches(channel, enqueueRequestForObject())
      .complete(async () => {
        calls++;
        throw new Error('boom');
      });
    const stop = new AbortController();
    const running = mgr.start(stop.signal);
    closers.push(async () => {
      stop.abort();
      await running;
    });
    const tracer = trace.getTracer('test');
    const caller = tracer.startSpan('webhook write');
    context.with(trace.setSpan(context.active(), caller), () =>
      channel.send({ ...CM, metadata: { name: 'x', namespace: 'default' } }),
    );
    caller.end();
    const r = await spanNamed(spans, 'reconcile failing');
    assert.ok(calls >= 1);
    assert.equal(r.attributes['kubeforge.reconcile.result'], 'error');
    assert.equal(r.attributes['kubeforge.reconcile.requeue'], true);
    assert.equal(r.status.code, 2);
    assert.equal(r.status.message, 'boom');
    assert.equal(r.events[0]?.name, 'exception');
    assert.deepEqual(
      r.links.map((l) => l.spanId),
      [caller.spanContext().spanId],
    );
    assert.notEqual(r.traceId, caller.spanContext().traceId, 'linked, not parented');
  });

  it('the webhook server makes its span a child of the caller traceparent; a refusal records the causes', async () => {
    spans = recordSpans();
    const srv = await startServer((s) =>
      s.register('/validate', {
        handle: async (body: ReviewRequest) => ({
          apiVersion: 'admission.k8s.io/v1',
          kind: 'AdmissionReview',
          response: {
            uid: body.request.uid,
            allowed: false,
            status: {
              code: 422,
              reason: 'Invalid',
              message: 'Widget.example.com "w1" is invalid: spec.size: Invalid value: 0: must be positive',
              details: { causes: [{ type: 'FieldValueInvalid', field: 'spec.size', message: 'must be positive' }] },
            },
          },
        }),
      }),
    );
    closers.push(() => srv.stop());
    const parent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const reply = await request(
      must(srv.server.port, 'srv.server.port'),
      '/validate',
      admissionReview('CREATE', { object: { spec: { size: 0 } } }),
      { headers: { traceparent: parent } },
    );
    assert.equal(reply.status, 200);
    const w = await spans.ended('admission /validate CREATE');
    assert.equal(w.kind, SpanKind.SERVER);
    assert.equal(w.traceId, '0af7651916cd43dd8448eb211c80319c');
    assert.equal(w.parentSpanId, 'b7ad6b7169203331');
    assert.equal(w.attributes['kubeforge.webhook.type'], 'admission');
    assert.equal(w.attributes['kubeforge.admission.operation'], 'CREATE');
    assert.equal(w.attributes['kubeforge.admission.kind'], 'example.com/v1, Widget');
    assert.equal(w.attributes['kubeforge.admission.resource'], 'widgets.example.com');
    assert.equal(w.attributes['kubeforge.admission.allowed'], false);
    assert.equal(w.attributes['kubeforge.admission.reason'], 'Invalid');
    assert.deepEqual(w.attributes['kubeforge.admission.causes'], ['spec.size: must be positive']);
    assert.equal(w.attributes['http.response.status_code'], 200);
    assert.equal(w.events[0]?.name, 'admission denied');
    // Without a traceparent: a root span of its own trace.
    await request(must(srv.server.port, 'srv.server.port'), '/validate', admissionReview('UPDATE', { object: {} }));
    const root = await spans.ended('admission /validate UPDATE');
    assert.equal(root.parentSpanId, undefined);
  });

  it('the fake API server passes the traceparent on to the webhooks a write calls: the webhook span joins the trace', async () => {
    spans = recordSpans();
    const srv = await startServer((s) =>
      s.register('/validate-cm', {
        handle: async (body: ReviewRequest) => ({
          apiVersion: 'admission.k8s.io/v1',
          kind: 'AdmissionReview',
          response: { uid: body.request.uid, allowed: true },
        }),
      }),
    );
    closers.push(() => srv.stop());
    const c = await newFakeClient();
    closers.push(() => c.close());
    await c.create({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'cm' },
      webhooks: [
        {
          name: 'cm.kubeforge.io',
          admissionReviewVersions: ['v1'],
          sideEffects: 'None',
          clientConfig: {
            url: `https://127.0.0.1:${srv.server.port}/validate-cm`,
            caBundle: Buffer.from(srv.ca).toString('base64'),
          },
          rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }],
        },
      ],
    } as never);
    const tracer = trace.getTracer('test');
    await tracer.startActiveSpan('test', async (root) => {
      await c.create({ ...CM, metadata: { name: 'hooked', namespace: 'default' } });
      root.end();
    });
    const hook = await spans.ended('admission /validate-cm CREATE');
    const create = spans.parentOf(hook);
    assert.equal(create?.name, 'create configmaps');
    assert.equal(spans.parentOf(create)?.name, 'test');
    assert.equal(hook.attributes['kubeforge.admission.allowed'], true);
  });

  it('a span sampled out: no client span, its traceparent still sent (flags 00) so the server follows the decision', async () => {
    spans = recordSpans();
    const c = await newFakeClient();
    closers.push(() => c.close());
    const sampledOut = trace.wrapSpanContext({
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      spanId: '00f067aa0ba902b7',
      traceFlags: 0,
    });
    await context.with(trace.setSpan(context.active(), sampledOut), () =>
      c.create({ ...CM, metadata: { name: 'unsampled', namespace: 'default' } }),
    );
    assert.deepEqual(
      c.server.tracedRequests().map((t) => t.traceparent),
      ['00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00'],
    );
    assert.deepEqual(spans.spans, []);
  });

  it('a provider that throws costs the spans, never the reconcile or the request', async () => {
    const broken = () => {
      throw new Error('broken tracer');
    };
    trace.setGlobalTracerProvider({ getTracer: () => ({ startSpan: broken, startActiveSpan: broken }) as never });
    closers.push(async () => {
      trace.disable();
    });
    const c = await newFakeClient();
    closers.push(() => c.close());
    closers.push(await copier(c));
    await c.create({ ...CM, metadata: { name: 'src-broken', namespace: 'default' }, data: { k: 'v' } });
    await eventually(() => c.get(CM, { namespace: 'default', name: 'src-broken-copy' }));
  });

  it('a conversion span records the desired version, the objects and a failure; log lines outside spans carry no ids', async () => {
    spans = recordSpans();
    const srv = await startServer((s) =>
      s.register('/convert', {
        handle: async (body: ReviewRequest) => ({
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'ConversionReview',
          response: { uid: body.request.uid, convertedObjects: [], result: { status: 'Failure', message: 'no way' } },
        }),
      }),
    );
    closers.push(() => srv.stop());
    await request(must(srv.server.port, 'srv.server.port'), '/convert', {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'ConversionReview',
      request: { uid: 'c1', desiredAPIVersion: 'example.com/v2', objects: [{}, {}] },
    });
    const conv = await spans.ended('conversion /convert');
    assert.equal(conv.attributes['kubeforge.webhook.type'], 'conversion');
    assert.equal(conv.attributes['kubeforge.conversion.desired_api_version'], 'example.com/v2');
    assert.equal(conv.attributes['kubeforge.conversion.objects'], 2);
    assert.equal(conv.attributes['kubeforge.conversion.status'], 'Failure');
    assert.equal(conv.status.code, 2);
    const lines: string[] = [];
    newLogger({ level: 'info', destination: { write: (l: string) => lines.push(l) } }).info('outside');
    assert.equal(JSON.parse(lines[0]).trace_id, undefined);
  });

  it('leader election: a span from the first attempt to the lease with the outcome as an event; a release as a span of its own', async () => {
    spans = recordSpans();
    const c = await newFakeClient();
    closers.push(() => c.close());
    const rest = new RestClient(c.server.config);
    closers.push(async () => rest.close());
    const elector = new LeaderElector({
      rest,
      namespace: 'default',
      name: 'tracing-le',
      identity: 'me',
      leaseDurationMs: 3000,
      renewDeadlineMs: 2000,
      retryPeriodMs: 500,
      logger: pino({ level: 'silent' }),
    });
    assert.equal(await elector.acquire(AbortSignal.timeout(10_000)), true);
    const won = await spans.ended('leader election');
    assert.equal(won.parentSpanId, undefined);
    assert.equal(won.attributes['kubeforge.lease'], 'default/tracing-le');
    assert.deepEqual(
      won.events.map((e) => e.name),
      ['acquired'],
    );
    assert.deepEqual(spans.childrenOf(won), [], 'the lease requests are not its children');
    await elector.release();
    const released = spans.filter('leader election').find((s) => s.events[0]?.name === 'released');
    assert.ok(released, spans.spans.map((s) => `${s.name}: ${s.events.map((e) => e.name)}`).join(', '));
  });
});
