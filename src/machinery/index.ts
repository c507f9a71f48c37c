/**
 * The scaffold engine: virtual tree over an injected host, handlebars templates, typed file
 * specs with two policies, idempotent marker-anchored insertions, a printed plan, one commit.
 * Knows nothing of Kubernetes.
 */
export * from './host.js';
export * from './tree.js';
export * from './render.js';
export * from './insert.js';
export * from './plan.js';
export * from './commit.js';
export * from './guard.js';
export * from './spec.js';
export * from './diff.js';
export * from './tar.js';
export * from './runner.js';
export * from './report.js';
