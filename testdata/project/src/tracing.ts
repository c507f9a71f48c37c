/*
Copyright The Kubernetes authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

/**
 * OpenTelemetry tracing, switched on by the standard environment variables and off without them.
 *
 * kubeforge's runtime starts spans (reconciles, its requests to the API server, webhook calls,
 * leader election, shard hand-overs) through `@opentelemetry/api`; they cost nothing until a
 * TracerProvider is registered. {@link startTracing} registers one when OTEL_EXPORTER_OTLP_ENDPOINT
 * or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set: the OpenTelemetry trace SDK, a batch span
 * processor and the OTLP/HTTP (protobuf) exporter, which reads OTEL_EXPORTER_OTLP_HEADERS,
 * _TIMEOUT, _COMPRESSION, _CERTIFICATE and their _TRACES_ forms itself. Without them it loads no
 * SDK module at all (they are imported dynamically), so the manager starts as fast as before.
 *
 * Also read: OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (default service.name: "project"),
 * OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG (default parentbased_always_on, as every
 * OpenTelemetry SDK), OTEL_BSP_SCHEDULE_DELAY, OTEL_BSP_MAX_QUEUE_SIZE,
 * OTEL_BSP_MAX_EXPORT_BATCH_SIZE, OTEL_BSP_EXPORT_TIMEOUT; OTEL_SDK_DISABLED=true or
 * OTEL_TRACES_EXPORTER=none turn it off. OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf (the
 * default): point the endpoint at the OTLP/HTTP port of Jaeger, Tempo or an OpenTelemetry
 * collector, usually 4318.
 */
import type { Sampler } from '@opentelemetry/sdk-trace';

/**
 * Whether to install the AsyncLocalStorage context manager (off by default). Off, the runtime
 * hands each reconcile's and webhook call's span on explicitly, as Go passes a context.Context:
 * the requests a reconciler sends with `{ signal: ctx.signal }` are children of its reconcile
 * span, and `ctx.logger` lines carry its trace_id and span_id; nothing else in the process pays
 * for tracing. On, the active span also follows every await: spans you start with
 * `tracer.startActiveSpan` nest, requests sent without `ctx.signal` join the reconcile, the
 * reconcile of a request enqueued under a span links to it, and loggers of your own made with
 * kubeforge's `traceMixin` get the ids; on Node 20 that slows every promise of the process
 * (AsyncLocalStorage's promise hooks; measured in kubeforge's bench/README.md).
 */
const ASYNC_CONTEXT = false;

type Env = Record<string, string | undefined>;

/** Whether the environment asks for traces (an OTLP endpoint, and nothing turning them off). */
export function tracingRequested(env: Env = process.env): boolean {
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? 'otlp').split(',').map((e) => e.trim().toLowerCase());
  if (exporters.includes('none')) return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT);
}

/**
 * What in the environment this manager cannot honour, as a message for the user; undefined when
 * it can (checked before anything starts, so a typo is an error and not silently no traces).
 */
export function tracingConfigError(env: Env = process.env): string | undefined {
  if (!tracingRequested(env)) return undefined;
  const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf').trim();
  if (protocol !== 'http/protobuf') {
    return `OTEL_EXPORTER_OTLP_PROTOCOL "${protocol}" is not supported: this manager exports OTLP over HTTP (http/protobuf); unset it and point OTEL_EXPORTER_OTLP_ENDPOINT at the collector's OTLP/HTTP port (usually 4318)`;
  }
  const exporters = (env.OTEL_TRACES_EXPORTER ?? 'otlp').split(',').map((e) => e.trim().toLowerCase());
  const unknown = exporters.filter((e) => e !== 'otlp');
  if (unknown.length > 0) {
    return `OTEL_TRACES_EXPORTER "${unknown.join(',')}" is not supported: use otlp (the default) or none`;
  }
  const sampler = samplerSpec(env);
  if (typeof sampler === 'string') return sampler;
  for (const name of ['OTEL_BSP_SCHEDULE_DELAY', 'OTEL_BSP_MAX_QUEUE_SIZE', 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE', 'OTEL_BSP_EXPORT_TIMEOUT']) {
    const v = env[name];
    if (v !== undefined && v.trim() !== '' && !/^\d+$/.test(v.trim())) return `${name} "${v}" is not a number of milliseconds or spans`;
  }
  return undefined;
}

const SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'];

/** OTEL_TRACES_SAMPLER and its ratio, or the message when they do not parse. */
function samplerSpec(env: Env): { name: string; ratio: number } | string {
  const name = (env.OTEL_TRACES_SAMPLER ?? 'parentbased_always_on').trim().toLowerCase();
  if (!SAMPLERS.includes(name)) return `OTEL_TRACES_SAMPLER "${name}" is not supported: use one of ${SAMPLERS.join(', ')}`;
  const arg = env.OTEL_TRACES_SAMPLER_ARG?.trim();
  const ratio = arg ? Number(arg) : 1;
  if (name.endsWith('traceidratio') && !(ratio >= 0 && ratio <= 1)) {
    return `OTEL_TRACES_SAMPLER_ARG "${arg}" is not a ratio between 0 and 1`;
  }
  return { name, ratio };
}

function numberOf(env: Env, name: string): number | undefined {
  const v = env[name]?.trim();
  return v ? Number(v) : undefined;
}

/**
 * Registers the SDK when {@link tracingRequested}; returns what flushes and stops it (call it
 * after the manager stopped, so the last spans are exported), or undefined when tracing is off.
 * Call {@link tracingConfigError} first.
 */
export async function startTracing(env: Env = process.env): Promise<(() => Promise<void>) | undefined> {
  if (!tracingRequested(env)) return undefined;
  const spec = samplerSpec(env);
  if (typeof spec === 'string') throw new Error(spec);
  const [api, sdk, { OTLPTraceExporter }, resources] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/exporter-trace-otlp-proto'),
    import('@opentelemetry/resources'),
  ]);
  const ratio = new sdk.TraceIdRatioBasedSampler(spec.ratio);
  const root: Record<string, Sampler> = {
    always_on: new sdk.AlwaysOnSampler(),
    always_off: new sdk.AlwaysOffSampler(),
    traceidratio: ratio,
  };
  const base = spec.name.replace(/^parentbased_/, '');
  const sampler = base === spec.name ? root[base] : new sdk.ParentBasedSampler({ root: root[base] });
  const resource = resources
    .resourceFromAttributes({ 'service.name': 'project' })
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const provider = new sdk.TracerProvider({
    resource,
    sampler,
    spanProcessors: [
      new sdk.BatchSpanProcessor({
        exporter: new OTLPTraceExporter(),
        scheduledDelayMillis: numberOf(env, 'OTEL_BSP_SCHEDULE_DELAY'),
        maxQueueSize: numberOf(env, 'OTEL_BSP_MAX_QUEUE_SIZE'),
        maxExportBatchSize: numberOf(env, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE'),
        exportTimeoutMillis: numberOf(env, 'OTEL_BSP_EXPORT_TIMEOUT'),
      }),
    ],
  });
  if (ASYNC_CONTEXT) {
    const { AsyncLocalStorageContextManager } = await import('@opentelemetry/context-async-hooks');
    api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  }
  api.trace.setGlobalTracerProvider(provider);
  return async () => {
    await provider.shutdown();
  };
}
