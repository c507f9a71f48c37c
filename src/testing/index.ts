/**
 * kubeforge/testing: a real kube-apiserver + etcd for tests (envtest for TypeScript).
 *
 * ```ts
 * const env = new TestEnvironment({ crdDirectoryPaths: ['config/crd/bases'] });
 * const config = await env.start();
 * try { ... } finally { await env.stop(); }
 * ```
 *
 * With `webhookInstallOptions: { paths: ['config/webhook'] }` the webhook configurations are
 * installed too, pointed at `env.webhookServerOptions()` (host, port, certificate folder).
 *
 * A test driver shares one control plane with every test file of a run through
 * `startSharedTestEnvironment()` (`kubeforge test` does).
 *
 * One test body for both tiers of `kubeforge test` (a `*.both.test.js` file): `startTestAPI()`
 * gives it the FakeAPIServer in the unit tier and the shared control plane in the full one, and
 * `api.tier` says which.
 */
export { TestEnvironment, TestEnvironmentError, SHARED_KUBECONFIG_ENV } from './environment.js';
export { startSharedTestEnvironment, stopSharedTestEnvironment } from './shared.js';
export { startTestAPI, testTier, TEST_TIER_ENV } from './tier.js';
export type { TestAPI, TestAPIOptions, TestTier } from './tier.js';
export type { TestEnvironmentOptions, TestUser } from './environment.js';
export { installCRDs, uninstallCRDs, readCRDFiles, parseCRDFile, CRDInstallError } from './crds.js';
export type { CRDObject, CRDInstallOptions } from './crds.js';
export {
  WebhookInstallError,
  collectWebhookConfigurations,
  installWebhookConfigurations,
  parseWebhookFile,
  readWebhookFiles,
  rewriteWebhookClientConfig,
  uninstallWebhookConfigurations,
  withConversionWebhook,
} from './webhooks.js';
export type {
  WebhookConfigurationObject,
  WebhookInstallOptions,
  WebhookObject,
  WebhookServingInfo,
  WebhookServingOptions,
} from './webhooks.js';
export { runningControlPlanePids } from './process.js';
export { eventually, consistently, WaitError } from './wait.js';
export type { EventuallyOptions, ConsistentlyOptions } from './wait.js';
export { FakeAPIServer, newFakeClient } from './fake/index.js';
export type { FakeAPIServerOptions, FakeClient, TracedRequest } from './fake/index.js';
export { withInterceptors, RecordingEventRecorder, reconcileContext, newTestManager } from './fake/helpers.js';
export type { Interceptors, RecordedEvent } from './fake/helpers.js';
export { startFakeClusters, startTestClusters } from './multicluster.js';
export type { TestCluster, TestClusters, TestClustersProviderOptions } from './multicluster.js';
export { SpanRecorder, recordSpans } from './tracing.js';
export type { RecordedSpan } from './tracing.js';
