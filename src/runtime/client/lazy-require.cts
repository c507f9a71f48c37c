/**
 * The runtime's dependencies that are loaded on first use rather than at import, as CommonJS
 * `require` calls of literal names.
 *
 * Why CommonJS: an ES module can only load a package synchronously through `createRequire`, and
 * a bundler does not follow that. A generated project's production image is one esbuild bundle
 * (`npm run bundle`) that runs without node_modules, so every module the manager may load must be
 * in it. esbuild follows `require('<literal>')` in a CommonJS file: it puts the module in the
 * bundle and evaluates it at the first call, which keeps the loading lazy there too. Plain Node
 * runs these requires as written (an ES module such as client-node needs Node 20.19 or later).
 */
import type * as ClientNode from '@kubernetes/client-node';
import type * as FastJsonPatch from 'fast-json-patch';
import type * as Prom from 'prom-client';

/** @kubernetes/client-node (about 700 modules): only when a kubeconfig is read or an auth plugin runs. */
export function requireClientNode(): typeof ClientNode {
  return require('@kubernetes/client-node');
}

/** prom-client's metric classes, without its index (which loads the default metrics and more). */
export function requirePromClasses(): {
  Registry: typeof Prom.Registry;
  Counter: typeof Prom.Counter;
  Gauge: typeof Prom.Gauge;
  Histogram: typeof Prom.Histogram;
} {
  return {
    Registry: require('prom-client/lib/registry'),
    Counter: require('prom-client/lib/counter'),
    Gauge: require('prom-client/lib/gauge'),
    Histogram: require('prom-client/lib/histogram'),
  };
}

/** prom-client's collectDefaultMetrics: the process metrics, loaded when a registry is first read. */
export function requireCollectDefaultMetrics(): typeof Prom.collectDefaultMetrics {
  return require('prom-client/lib/defaultMetrics');
}

/**
 * fast-json-patch: when a JSON patch is made (a defaulting webhook's answer) or applied
 * (kubeforge/testing's fake API server), not in every process that imports the runtime.
 */
export function requireFastJsonPatch(): Pick<typeof FastJsonPatch, 'applyPatch' | 'compare'> {
  return require('fast-json-patch');
}
