/**
 * client-go's `rest_client_requests_total{code, method, host}`: every request either of the
 * runtime's REST transports sends (the client's and the Manager's own: leases, events, reviews)
 * counts here, once its answer's status line arrived (`code` "200", "404"...) or once it failed
 * without one (`code` "<error>").
 */
import type { Registry } from 'prom-client';
import { Counter } from './prom.js';

/** Called once per request: status code (or "<error>"), HTTP method, `host:port` of the API server. */
export type RequestObserver = (code: string, method: string, host: string) => void;

const NAME = 'rest_client_requests_total';

/**
 * The observer counting into `registry`'s `rest_client_requests_total` (registered on first call;
 * a registry that already has it, from another caller, is shared). Never throws when counting.
 */
export function restClientRequestMetrics(registry: Registry): RequestObserver {
  const existing = registry.getSingleMetric(NAME) as Counter<'code' | 'method' | 'host'> | undefined;
  const counter =
    existing ??
    new Counter({
      name: NAME,
      help: 'Number of HTTP requests, partitioned by status code, method, and host.',
      labelNames: ['code', 'method', 'host'],
      registers: [registry],
    });
  return (code, method, host) => {
    try {
      counter.inc({ code, method, host });
    } catch {
      /* counting never breaks a request */
    }
  };
}
