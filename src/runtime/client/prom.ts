/**
 * prom-client's Registry and metric classes, loaded without its index. The index also loads the
 * default process metrics (and, through them, @opentelemetry/api), Summary with its t-digest,
 * the Pushgateway and the cluster aggregator: 60-200 ms per process, more than half of
 * prom-client's load time, paid by every program that imports kubeforge/runtime, unit tests
 * included, even when no metric is ever served. The classes here are the very ones the index
 * exports (same files, same module instances), so a user's `import { Registry } from
 * 'prom-client'` and these mix freely; `collectDefaultMetrics` loads the default metrics on its
 * first call (the Manager's when its registry is first read or served).
 */
import type * as Prom from 'prom-client';
import { requireCollectDefaultMetrics, requirePromClasses } from './lazy-require.cjs';

const classes = requirePromClasses();

export type Registry = Prom.Registry;
export const Registry = classes.Registry;
export type Counter<T extends string = string> = Prom.Counter<T>;
export const Counter = classes.Counter;
export type Gauge<T extends string = string> = Prom.Gauge<T>;
export const Gauge = classes.Gauge;
export type Histogram<T extends string = string> = Prom.Histogram<T>;
export const Histogram = classes.Histogram;

/** prom-client's collectDefaultMetrics, its module loaded on the first call. */
export function collectDefaultMetrics(
  config?: Prom.DefaultMetricsCollectorConfiguration<Prom.RegistryContentType>,
): void {
  requireCollectDefaultMetrics()(config);
}

/**
 * A kubeforge Manager's method giving its registry to register metrics into (the controller
 * builder's use) without counting as a read: getMetricsRegistry() hands the registry out, so it
 * registers the default metrics first. Managers without it are asked getMetricsRegistry().
 */
export const registryToRegisterInto = Symbol('kubeforge.registryToRegisterInto');

/** `mgr`'s registry for registering metrics: see registryToRegisterInto. */
export function registerInto(mgr: { getMetricsRegistry(): Registry }): Registry {
  const own = (mgr as { [registryToRegisterInto]?: () => Registry })[registryToRegisterInto];
  return own ? own.call(mgr) : mgr.getMetricsRegistry();
}
