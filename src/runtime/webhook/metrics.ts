/**
 * Webhook metrics with controller-runtime's names, labels and buckets (`webhook` is the path), so
 * its dashboards work unchanged. Registered once per prom-client Registry, shared by every
 * webhook server using it; registering into a registry that already holds an incompatible
 * metric of the same name throws from prom-client.
 */
import { Counter, Gauge, Histogram } from '../client/prom.js';
import type { Registry } from 'prom-client';

// 10 ns .. 1000 s, exponential by 10 (controller-runtime's ExponentialBuckets(10e-9, 10, 12)).
const LATENCY_BUCKETS = Array.from({ length: 12 }, (_, i) => 1e-8 * 10 ** i);

/** The webhook metric set of one registry. */
export interface WebhookMetrics {
  requestTotal: Counter<'webhook' | 'code'>;
  latency: Histogram<'webhook'>;
  inFlight: Gauge<'webhook'>;
  panics: Counter<string>;
}

/** Per-path handles, curried once so that a request costs no label lookups. */
export interface PathMetrics {
  /** Counts one answered request with its HTTP status and observes its latency (seconds). */
  done(code: number, seconds: number): void;
  inc(): void;
  dec(): void;
}

const perRegistry = new WeakMap<Registry, WebhookMetrics>();

/** Gets (creating on first use) the webhook metrics registered in `registry`. */
export function webhookMetrics(registry: Registry): WebhookMetrics {
  let m = perRegistry.get(registry);
  if (m) return m;
  const registers = [registry];
  m = {
    requestTotal: new Counter({
      name: 'controller_runtime_webhook_requests_total',
      help: 'Total number of admission requests by HTTP status code.',
      labelNames: ['webhook', 'code'],
      registers,
    }),
    latency: new Histogram({
      name: 'controller_runtime_webhook_latency_seconds',
      help: 'Histogram of the latency of processing admission requests',
      labelNames: ['webhook'],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    inFlight: new Gauge({
      name: 'controller_runtime_webhook_requests_in_flight',
      help: 'Current number of admission requests being served.',
      labelNames: ['webhook'],
      registers,
    }),
    panics: new Counter({
      name: 'controller_runtime_webhook_panics_total',
      help: 'Total number of webhook panics',
      registers,
    }),
  };
  m.panics.inc(0);
  perRegistry.set(registry, m);
  return m;
}

/** The curried metrics of one path; initialises the `200` and `500` series as controller-runtime does. */
export function pathMetrics(m: WebhookMetrics, path: string): PathMetrics {
  const labels = { webhook: path };
  m.requestTotal.inc({ webhook: path, code: '200' }, 0);
  m.requestTotal.inc({ webhook: path, code: '500' }, 0);
  m.inFlight.set(labels, 0);
  const latency = m.latency.labels(labels);
  const inFlight = m.inFlight.labels(labels);
  const byCode = new Map<number, { inc(): void }>();
  return {
    done(code, seconds) {
      let c = byCode.get(code);
      if (!c) {
        c = m.requestTotal.labels({ webhook: path, code: String(code) });
        byCode.set(code, c);
      }
      c.inc();
      latency.observe(seconds);
    },
    inc: () => inFlight.inc(),
    dec: () => inFlight.dec(),
  };
}
