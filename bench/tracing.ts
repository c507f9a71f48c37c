/**
 * What the OpenTelemetry spans (issue #42) cost, shared by bench:runtime (part g) and bench:webhook.
 * Three builds of the same work, in the same run:
 *   nospans  kubeforge at BASE_COMMIT, the last commit before the spans (built from this
 *            repository's history once per machine, test/oracle/tools.ts kubeforgeAt);
 *   off      this build, no TracerProvider registered (what every operator that does not trace runs);
 *            both from dist/, as tsconfig.build.json compiles them (what ships);
 *   on       this build with the OpenTelemetry SDK registered as the generated src/tracing.ts
 *            registers it: a BatchSpanProcessor and the OTLP/HTTP (protobuf) exporter sending to a
 *            collector, here a sink in its own process that reads each export and answers 200
 *            (what an OpenTelemetry collector's receiver does before its pipeline), and no context
 *            manager (the runtime hands each span on through ctx.signal);
 *   on_async the same with the AsyncLocalStorage context manager (src/tracing.ts's ASYNC_CONTEXT,
 *            and what `on` was until the runtime handed spans on itself).
 * Printed as `tracing_off=<off/nospans>x tracing_on=<on/nospans>x tracing_on_async=<on_async/nospans>x`
 * (issue #42's goals: off <= 1.02x, on <= 1.10x).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { kubeforgeAt } from '../test/oracle/tools.js';

/** The last commit before the runtime's spans: the "build without the spans". */
export const BASE_COMMIT = 'f968d1e7d10a25e7445b6e09537b0cd66d47a235';

/** The folder of kubeforge at BASE_COMMIT (its dist/), built once per machine. */
export function baselineBuild(repoRoot: string): string {
  return kubeforgeAt(BASE_COMMIT, repoRoot);
}

/** A module of this build (`runtime/index.js`) or of the baseline build, by its dist-relative path. */
export async function importBuild<T>(which: 'nospans' | 'current', repoRoot: string, rel: string): Promise<T> {
  // dist/ (tsconfig.build.json) on both sides: build/ (tsconfig.json, for the tests) compiles differently.
  const file = join(which === 'current' ? repoRoot : baselineBuild(repoRoot), 'dist', rel);
  return (await import(pathToFileURL(file).href)) as T;
}

/** A collector stand-in in its own process: reads each OTLP export, answers 200. Its URL and a stop. */
export async function startCollectorSink(): Promise<{ url: string; stop(): void; child: ChildProcess }> {
  const script = `
    const http = require('node:http');
    let exports = 0, bytes = 0;
    const s = http.createServer((req, res) => {
      req.on('data', (c) => (bytes += c.length));
      req.on('end', () => { exports++; res.writeHead(200, { 'Content-Type': 'application/x-protobuf' }); res.end(); });
    });
    s.keepAliveTimeout = 120000;
    s.listen(0, '127.0.0.1', () => process.send({ port: s.address().port }));
    process.on('message', (m) => { if (m === 'stats') process.send({ exports, bytes }); });
  `;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('message', (m: { port: number }) => resolve(m.port));
  });
  return { url: `http://127.0.0.1:${port}/v1/traces`, stop: () => child.kill(), child };
}

/**
 * Registers the SDK as the generated src/tracing.ts does (with `asyncContext`, as it does with
 * ASYNC_CONTEXT on); returns the provider (shut it down to unregister with `unregisterSdk`).
 */
export function registerSdk(collectorUrl: string, serviceName: string, asyncContext = false): TracerProvider {
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName }),
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: collectorUrl }) })],
  });
  if (asyncContext) context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
  return provider;
}

/** Flushes and removes the SDK registered by {@link registerSdk}. */
export async function unregisterSdk(provider: TracerProvider): Promise<void> {
  await provider.forceFlush();
  await provider.shutdown();
  trace.disable();
  context.disable();
}

/** The line both benches end with. */
export function tracingFigures(off: number, on: number, onAsync: number): string {
  return `tracing_off=${off.toFixed(3)}x tracing_on=${on.toFixed(3)}x tracing_on_async=${onAsync.toFixed(3)}x`;
}
