/**
 * One control plane for a whole test run (envtest's suite model). Node's test runner runs each
 * file in its own process and has no global setup, so a test driver starts the environment,
 * publishes its kubeconfig in {@link SHARED_KUBECONFIG_ENV} for the test processes it spawns, and
 * stops it at the end; every `TestEnvironment` of those files joins it on start() (installing its
 * CRDs idempotently) and leaves it running on stop(). A file run alone starts its own.
 */
import { SHARED_KUBECONFIG_ENV, TestEnvironment, type TestEnvironmentOptions } from './environment.js';

/**
 * Starts a TestEnvironment (never joining another shared one) and, when it runs a local control
 * plane, sets `process.env[SHARED_KUBECONFIG_ENV]` to its kubeconfig file so that child processes
 * started afterwards (the test runner's) join it. With USE_EXISTING_CLUSTER=true nothing is
 * published: each file connects to that cluster itself.
 *
 * On error: rejects like {@link TestEnvironment.start} (missing binaries, CRD files that do not
 * parse) with nothing left running. On shutdown: `stop()` of the returned environment stops the
 * plane; call {@link stopSharedTestEnvironment} instead to also unpublish the variable.
 */
export async function startSharedTestEnvironment(options: TestEnvironmentOptions = {}): Promise<TestEnvironment> {
  const env = new TestEnvironment({ ...options, joinSharedControlPlane: false });
  await env.start();
  if (!env.usesExistingCluster) process.env[SHARED_KUBECONFIG_ENV] = env.kubeconfigPath;
  return env;
}

/** Unpublishes the shared kubeconfig (when it is `env`'s) and stops `env`; rejects like `env.stop()`. */
export async function stopSharedTestEnvironment(env: TestEnvironment): Promise<void> {
  let published = false;
  try {
    published = process.env[SHARED_KUBECONFIG_ENV] === env.kubeconfigPath;
  } catch {
    /* never started */
  }
  if (published) delete process.env[SHARED_KUBECONFIG_ENV];
  await env.stop();
}
