/**
 * kubeforge/runtime: the controller-runtime of TypeScript. What generated operators import.
 * Depends on @kubernetes/client-node, prom-client and pino only.
 */
export * from './contracts.js';
export * from './manager/index.js';
export * from './client/index.js';
export * from './cache/index.js';
export * from './controller/index.js';
export * from './util/index.js';
export * from './webhook/index.js';
