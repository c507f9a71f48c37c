/**
 * kubeforge's programmatic API: what the CLI does, callable from code.
 * The decorators live in `kubeforge/markers`, the operator runtime in `kubeforge/runtime`,
 * the test API server in `kubeforge/testing`.
 */
export * from './diagnostics/index.js';
export { run as runCli } from './cli/index.js';
