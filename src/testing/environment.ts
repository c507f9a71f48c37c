/**
 * TestEnvironment: a real etcd + kube-apiserver for tests (controller-runtime's envtest for
 * TypeScript), or an existing cluster when asked.
 */
import { existsSync, mkdtempSync, writeFileSync, accessSync, constants } from 'node:fs';
import { tmpdir, homedir } from 'node:os';
import { join, delimiter } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { newKubeConfig } from '../runtime/client/kubeconfig.js';
import { type ControlPlaneProcess, freePorts, removeTempDir, trackTempDir } from './process.js';
import { ControlPlane, type TestUser } from './control-plane.js';
import { TestEnvironmentError } from './errors.js';
import { installCRDs, readCRDFiles, type CRDObject } from './crds.js';
import {
  collectWebhookConfigurations,
  installWebhookConfigurations,
  rewriteWebhookClientConfig,
  uninstallWebhookConfigurations,
  withConversionWebhook,
  type WebhookConfigurationObject,
  type WebhookInstallOptions,
  type WebhookServingInfo,
  type WebhookServingOptions,
  waitForWebhooksActive,
} from './webhooks.js';
import { CEL_WEBHOOK_PATH, celSchemas, celWebhookConfiguration, startCELWebhookProcess } from './cel.js';
import { generateCACert, generateSignedCert } from '../runtime/manager/selfsigned.js';
import { apiServerMinor } from '../util/kube-version.js';
import { newClient, type ClientOptions } from '../runtime/client/index.js';
import type { Client } from '../runtime/contracts.js';
import { checkOptions, type OptionNames } from '../runtime/options.js';

/** Options of {@link TestEnvironment}. */
export interface TestEnvironmentOptions {
  /** Files or folders (non-recursive; *.yaml, *.yml, *.json) with CRDs to install on start. */
  crdDirectoryPaths?: string[];
  /** CRD objects to install on start. */
  crds?: CRDObject[];
  /** Fail start() when a crdDirectoryPaths entry does not exist (default false: skip it). */
  errorIfCRDPathMissing?: boolean;
  /** Folder with `etcd` and `kube-apiserver`. Default: env KUBEBUILDER_ASSETS. */
  binaryAssetsDirectory?: string;
  /** Use the cluster of KUBECONFIG (or ~/.kube/config) instead of starting one. Default: env USE_EXISTING_CLUSTER=true. */
  useExistingCluster?: boolean;
  /** How long start() waits for etcd and the API server to be ready, in ms (default 60 s). */
  controlPlaneStartTimeoutMs?: number;
  /**
   * How long stop() waits after SIGTERM before SIGKILL, in ms (default 10 s). kube-apiserver gets
   * at most 1 s of it: v1.20 does not exit on SIGTERM while watches are
   * open (it waits for them to end), and it keeps no state of its own (etcd does).
   */
  controlPlaneStopTimeoutMs?: number;
  /** How long start() waits for CRDs to be established, in ms (default 30 s). */
  crdInstallTimeoutMs?: number;
  /** @deprecated Use controlPlaneStartTimeoutMs. */
  controlPlaneStartTimeout?: number;
  /** @deprecated Use controlPlaneStopTimeoutMs. */
  controlPlaneStopTimeout?: number;
  /** @deprecated Use crdInstallTimeoutMs. */
  crdInstallTimeout?: number;
  /** Copy etcd and kube-apiserver output to this process's stderr (default false; it always goes to log files). */
  attachControlPlaneOutput?: boolean;
  /** Extra users (static tokens) with the given groups; get their config with {@link TestEnvironment.userConfig}. */
  users?: TestUser[];
  /** Extra kube-apiserver flags (`--name=value`), appended after kubeforge's own. */
  apiServerFlags?: string[];
  /**
   * kube-apiserver feature gates to switch on or off, e.g. `{ ShardedListAndWatch: true }` for
   * alpha APIs (what envtest's `APIServer.Configure().Append("feature-gates", ...)` does in Go).
   * They become one `--feature-gates` flag, merged with any in `apiServerFlags` (a gate named in
   * both takes the value given here). A gate the binary does not know stops it from starting, with
   * its log in the error. Set, the environment starts a control plane of its own instead of
   * joining a shared one; for an existing cluster (`useExistingCluster`) it is ignored, as
   * `apiServerFlags` is: that cluster's gates are what they are.
   */
  featureGates?: Record<string, boolean>;
  /**
   * Webhook configurations to install on start, pointed at a local HTTPS server the test runs
   * (see {@link TestEnvironment.webhookServerOptions}). start() always issues the serving
   * certificate and rewrites CRD conversion webhooks; this adds the admission webhooks.
   */
  webhookInstallOptions?: WebhookInstallOptions;
  /**
   * Enforce the CRDs' `x-kubernetes-validations` where the API server does not (kube-apiserver
   * before 1.25, such as the v1.20 build): start() then runs a validating webhook that evaluates
   * every rule on create and update as a 1.25+ server would (src/testing/cel.ts). Default true;
   * nothing is installed when the server enforces CEL itself, for an existing cluster, or when no
   * CRD has rules. A test file that joins the run's shared control plane gets it too. A rule that fails to evaluate refuses the object (as on a real server). The
   * webhook runs in a child process stopped by stop(); its configuration is listed in
   * {@link TestEnvironment.webhookConfigurations}.
   */
  celEnforcement?: boolean;
  /**
   * Join the control plane a test driver shares with every test file of a run (its kubeconfig
   * named by env {@link SHARED_KUBECONFIG_ENV}, set by {@link startSharedTestEnvironment}) instead
   * of starting one. Default true; ignored when the variable is unset, and off when the
   * environment needs a private plane (`users`, `apiServerFlags`, `featureGates`, `binaryAssetsDirectory`,
   * `useExistingCluster`).
   */
  joinSharedControlPlane?: boolean;
}

const TEST_ENVIRONMENT_OPTION_NAMES: OptionNames<TestEnvironmentOptions> = {
  featureGates: true,
  crdDirectoryPaths: true,
  crds: true,
  errorIfCRDPathMissing: true,
  binaryAssetsDirectory: true,
  useExistingCluster: true,
  controlPlaneStartTimeoutMs: true,
  controlPlaneStopTimeoutMs: true,
  crdInstallTimeoutMs: true,
  controlPlaneStartTimeout: true,
  controlPlaneStopTimeout: true,
  crdInstallTimeout: true,
  attachControlPlaneOutput: true,
  users: true,
  apiServerFlags: true,
  webhookInstallOptions: true,
  celEnforcement: true,
  joinSharedControlPlane: true,
};

const WEBHOOK_INSTALL_OPTION_NAMES: OptionNames<WebhookInstallOptions> = {
  paths: true,
  mutatingWebhooks: true,
  validatingWebhooks: true,
  localServingHost: true,
  localServingPort: true,
  errorIfPathMissing: true,
};

/** Refuses unknown names in TestEnvironment's options (see ../runtime/options.ts). */
function checkTestEnvironmentOptions(options: TestEnvironmentOptions): void {
  checkOptions('TestEnvironment', options, TEST_ENVIRONMENT_OPTION_NAMES, {
    // envtest's names
    crdDirectoryPath: 'crdDirectoryPaths',
    crdPaths: 'crdDirectoryPaths',
    binaryAssetsDir: 'binaryAssetsDirectory',
    webhookInstall: 'webhookInstallOptions',
  });
  checkOptions('TestEnvironment: webhookInstallOptions', options.webhookInstallOptions, WEBHOOK_INSTALL_OPTION_NAMES, {
    path: 'paths',
    directoryPaths: 'paths',
    ignoreErrorIfPathMissing: 'errorIfPathMissing',
  });
}

/**
 * The environment variable naming the kubeconfig of a control plane shared by the test files of
 * one run (envtest's suite model: one API server per `npm test`, not one per file).
 */
export const SHARED_KUBECONFIG_ENV = 'KUBEFORGE_TEST_KUBECONFIG';

export { apiServerMinor };

export { TestEnvironmentError };
export type { TestUser };
export { API_SERVER_STOP_MS } from './apiserver.js';

/**
 * What to run when the binaries are missing: commands a generated project has (kubeforge is its
 * dependency, so `npx kubeforge` is the installed CLI; `make test` runs setup-envtest itself).
 */
export const MISSING_ASSETS_HINT =
  'run `export KUBEBUILDER_ASSETS="$(npx kubeforge setup-envtest)"` (it downloads etcd and kube-apiserver, cached per version, and prints their folder), or `make test`, which does that and runs the tests';

function isExecutable(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * A Kubernetes API server for tests. `start()` launches etcd and kube-apiserver from
 * KUBEBUILDER_ASSETS on 127.0.0.1 (free ports, private temp folders, static-token admin in
 * system:masters, RBAC), installs the CRDs and returns a KubeConfig; `stop()` stops exactly the
 * processes it started and removes its folders.
 *
 * On error: start() rejects with TestEnvironmentError (missing assets, process died, not ready in
 * time, with the last lines of its log) or CRDInstallError, after stopping whatever it had started.
 * On shutdown: stop() is idempotent and safe from a failing test; if the test process exits or is
 * killed by SIGINT/SIGTERM/SIGHUP without calling stop(), an exit hook kills the children (SIGKILL).
 */
export class TestEnvironment {
  readonly options: TestEnvironmentOptions;
  private plane?: ControlPlane;
  private kc?: KubeConfig;
  private kubeconfigFile?: string;
  private stopping?: Promise<void>;
  private starting?: Promise<KubeConfig>;
  private installed: CRDObject[] = [];
  private serving?: WebhookServingInfo;
  private installedWebhooks: WebhookConfigurationObject[] = [];
  private celWebhook?: ControlPlaneProcess;
  private sharedPlane = false;

  constructor(options: TestEnvironmentOptions = {}) {
    checkTestEnvironmentOptions(options);
    // The deprecated names are read through the old fields below.
    this.options = {
      ...options,
      controlPlaneStartTimeout: options.controlPlaneStartTimeoutMs ?? options.controlPlaneStartTimeout,
      controlPlaneStopTimeout: options.controlPlaneStopTimeoutMs ?? options.controlPlaneStopTimeout,
      crdInstallTimeout: options.crdInstallTimeoutMs ?? options.crdInstallTimeout,
    };
  }

  /** Whether this environment uses an existing cluster (option or USE_EXISTING_CLUSTER=true). */
  get usesExistingCluster(): boolean {
    return this.options.useExistingCluster ?? process.env.USE_EXISTING_CLUSTER === 'true';
  }

  /**
   * The kubeconfig file of the shared control plane this environment joins on start(), or
   * undefined when it starts its own (see {@link TestEnvironmentOptions.joinSharedControlPlane}).
   */
  get sharedKubeconfig(): string | undefined {
    const file = process.env[SHARED_KUBECONFIG_ENV];
    if (!file || this.options.joinSharedControlPlane === false) return undefined;
    const o = this.options;
    if (
      o.users?.length ||
      o.apiServerFlags?.length ||
      Object.keys(o.featureGates ?? {}).length ||
      o.binaryAssetsDirectory ||
      o.useExistingCluster !== undefined
    )
      return undefined;
    return file;
  }

  /** Whether start() joined a control plane shared with other test files (stop() leaves it running). */
  get joinedSharedControlPlane(): boolean {
    return this.sharedPlane;
  }

  /** The admin KubeConfig; throws if start() has not completed. */
  get config(): KubeConfig {
    if (!this.kc) throw new TestEnvironmentError('TestEnvironment is not started', 'await env.start() first');
    return this.kc;
  }

  /** Path of a kubeconfig file for child processes (a generated operator, kubectl). Throws before start(). */
  get kubeconfigPath(): string {
    if (!this.kubeconfigFile)
      throw new TestEnvironmentError('TestEnvironment is not started', 'await env.start() first');
    return this.kubeconfigFile;
  }

  /** The CRDs installed by start() (conversion webhooks pointed at the local serving address). */
  get crds(): CRDObject[] {
    return [...this.installed];
  }

  /**
   * Where the API server sends webhook calls and the certificate to serve them with: host, port,
   * the private folder holding `tls.crt`/`tls.key`, and the CA's PEM (the API server trusts it).
   * Set by start() (for every environment, as envtest); throws TestEnvironmentError before.
   */
  get webhookInstallOptions(): WebhookServingInfo {
    if (!this.serving) throw new TestEnvironmentError('TestEnvironment is not started', 'await env.start() first');
    return { ...this.serving };
  }

  /** The webhook configurations start() installed, as the API server stored them. */
  get webhookConfigurations(): WebhookConfigurationObject[] {
    return [...this.installedWebhooks];
  }

  /**
   * `{ host, port, certDir }` for `newWebhookServer` (or `ManagerOptions.webhookServer`): a webhook
   * server built from it serves the issued certificate where the installed configurations point.
   * Throws TestEnvironmentError before start().
   */
  webhookServerOptions(): WebhookServingOptions {
    const s = this.webhookInstallOptions;
    return { host: s.localServingHost, port: s.localServingPort, certDir: s.localServingCertDir };
  }

  /** The API server's URL (https://127.0.0.1:<port>); throws before start(). */
  get serverURL(): string {
    const cluster = this.config.getCurrentCluster();
    if (!cluster) throw new TestEnvironmentError("the environment's kubeconfig has no current cluster");
    return cluster.server;
  }

  /** pids of the etcd and kube-apiserver processes this environment runs (empty for an existing cluster). */
  get pids(): { etcd?: number; apiserver?: number } {
    return { etcd: this.plane?.etcd.process.pid, apiserver: this.plane?.apiserver.process.pid };
  }

  /** Folder holding this environment's logs, certs and data (undefined for an existing cluster). */
  get dataDirectory(): string | undefined {
    return this.plane?.dir;
  }

  /**
   * Starts the control plane (or connects to the existing cluster), issues the webhook serving
   * certificate, installs CRDs (conversion webhooks rewritten) and webhook configurations (every
   * clientConfig rewritten to the local serving address), and resolves with the admin KubeConfig.
   * With env {@link SHARED_KUBECONFIG_ENV} set (a test driver's shared control plane) it joins that
   * server instead of starting one; installing CRDs there is idempotent (an existing CRD is replaced).
   * Calling it again while started resolves with the same config. Bad CRD or webhook files are
   * reported (CRDInstallError, WebhookInstallError) before anything is started.
   */
  start(): Promise<KubeConfig> {
    if (this.kc) return Promise.resolve(this.kc);
    // Concurrent calls share one start.
    this.starting ??= this.doStart().finally(() => (this.starting = undefined));
    return this.starting;
  }

  private async doStart(): Promise<KubeConfig> {
    if (this.stopping) await this.stopping.catch(() => {});
    this.stopping = undefined;
    // Read every input first: a bad file fails start() before a process is spawned.
    const crds = [
      ...(this.options.crds ?? []),
      ...readCRDFiles(this.options.crdDirectoryPaths ?? [], this.options.errorIfCRDPathMissing),
    ];
    const hooks = collectWebhookConfigurations(this.options.webhookInstallOptions ?? {});
    const port = this.options.webhookInstallOptions?.localServingPort;
    if (port !== undefined && (!Number.isInteger(port) || port < 1 || port > 65535)) {
      throw new TestEnvironmentError(`webhookInstallOptions.localServingPort ${port} is not a port (1-65535)`);
    }
    const shared = this.sharedKubeconfig;
    if (shared) {
      if (!existsSync(shared)) {
        throw new TestEnvironmentError(
          `${SHARED_KUBECONFIG_ENV} names ${shared}, which does not exist`,
          `unset ${SHARED_KUBECONFIG_ENV} to start a control plane for this file, or run the tests through the project's test driver (npm test)`,
        );
      }
      const kc = newKubeConfig();
      kc.loadFromFile(shared);
      this.kc = kc;
      this.kubeconfigFile = shared;
      this.sharedPlane = true;
    } else if (this.usesExistingCluster) {
      const kc = newKubeConfig();
      const files = (process.env.KUBECONFIG ?? '').split(delimiter).filter(Boolean);
      const file = files[0] ?? join(homedir(), '.kube', 'config');
      if (!existsSync(file)) {
        throw new TestEnvironmentError(
          `useExistingCluster is set but no kubeconfig was found (${file})`,
          'set KUBECONFIG to the cluster to test against',
        );
      }
      kc.loadFromDefault();
      this.kc = kc;
      this.kubeconfigFile = file;
    } else {
      await this.startControlPlane();
    }
    // Every branch above sets the kubeconfig.
    const kc = this.kc;
    if (!kc) throw new TestEnvironmentError('the environment has no kubeconfig after its start');
    try {
      const serving = await this.prepareWebhookServing();
      const { localServingHost: host, localServingPort: port } = serving;
      const caBundle = Buffer.from(serving.localServingCAData).toString('base64');
      this.installed = await installCRDs(kc, {
        crds: crds.map((c) => withConversionWebhook(c, host, port, caBundle)),
        timeoutMs: this.options.crdInstallTimeout,
      });
      const rewritten = hooks.map((h) => rewriteWebhookClientConfig(h, host, port, caBundle));
      const cel = await this.startCELEnforcement(crds, host, serving.localServingCertDir, caBundle);
      if (cel) rewritten.push(cel);
      // Recorded before the call: what was created before a failure is deleted by stop().
      this.installedWebhooks = rewritten;
      this.installedWebhooks = await installWebhookConfigurations(kc, rewritten);
      // Only once the API server calls them does a create in a test prove a webhook ran. (An
      // existing cluster usually cannot reach this machine's address: nothing to wait for there.)
      if (rewritten.length && (this.sharedPlane || !this.usesExistingCluster)) {
        await waitForWebhooksActive(kc, {
          host,
          port,
          cert: serving.leaf.cert,
          key: serving.leaf.key,
          caBundle,
        });
      }
    } catch (e) {
      // The start error is the one to report; a failing cleanup must not hide it.
      await this.stop().catch(() => {});
      throw e;
    }
    return kc;
  }

  /**
   * Starts the CEL webhook (its own port, the serving certificate) when the API server is older
   * than 1.25 and a CRD has rules; returns its configuration, to be installed with the others.
   */
  private async startCELEnforcement(
    crds: CRDObject[],
    host: string,
    certDir: string,
    caBundle: string,
  ): Promise<WebhookConfigurationObject | undefined> {
    // Our own plane, or the one a test driver shares (same binaries): never an existing cluster.
    if (this.options.celEnforcement === false || (!this.plane && !this.sharedPlane)) return undefined;
    const schemas = celSchemas(crds);
    if (!schemas.size) return undefined;
    const minor = apiServerMinor(this.assets().apiserver);
    if (minor !== undefined && minor >= 25) return undefined;
    const [celPort] = await freePorts(1);
    this.celWebhook = await startCELWebhookProcess(
      schemas,
      host,
      celPort,
      certDir,
      certDir,
      !!this.options.attachControlPlaneOutput,
    );
    return celWebhookConfiguration(
      crds,
      schemas,
      `https://${host.includes(':') ? `[${host}]` : host}:${celPort}${CEL_WEBHOOK_PATH}`,
      caBundle,
    );
  }

  /**
   * Issues a CA and a serving certificate for the host into a private folder and picks the port.
   * Also returns the certificate and key themselves (the sentinel probe serves them).
   */
  private async prepareWebhookServing(): Promise<WebhookServingInfo & { leaf: { cert: string; key: string } }> {
    const o = this.options.webhookInstallOptions ?? {};
    const host = o.localServingHost ?? '127.0.0.1';
    const port = o.localServingPort ?? (await freePorts(1))[0];
    const dir = mkdtempSync(join(tmpdir(), 'kubeforge-envtest-webhook-'));
    trackTempDir(dir);
    this.serving = { localServingHost: host, localServingPort: port, localServingCertDir: dir, localServingCAData: '' };
    const ca = generateCACert({ commonName: 'kubeforge-envtest-ca' });
    const hosts = [...new Set([host, 'localhost', '127.0.0.1'])];
    const leaf = generateSignedCert(ca, { hosts, commonName: host });
    writeFileSync(join(dir, 'tls.crt'), leaf.cert, { mode: 0o644 });
    writeFileSync(join(dir, 'tls.key'), leaf.key, { mode: 0o600 });
    this.serving.localServingCAData = ca.cert;
    return { ...this.serving, leaf };
  }

  private assets(): { etcd: string; apiserver: string } {
    const dir = this.options.binaryAssetsDirectory ?? process.env.KUBEBUILDER_ASSETS;
    const hint = MISSING_ASSETS_HINT;
    if (!dir)
      throw new TestEnvironmentError('KUBEBUILDER_ASSETS is not set: cannot find etcd and kube-apiserver', hint);
    const exe = process.platform === 'win32' ? '.exe' : '';
    const etcd = join(dir, `etcd${exe}`);
    const apiserver = join(dir, `kube-apiserver${exe}`);
    for (const [name, p] of [
      ['etcd', etcd],
      ['kube-apiserver', apiserver],
    ] as const) {
      if (!existsSync(p)) throw new TestEnvironmentError(`${name} not found in ${dir}`, hint);
      if (!isExecutable(p)) throw new TestEnvironmentError(`${p} is not executable`, hint);
    }
    return { etcd, apiserver };
  }

  private async startControlPlane(): Promise<void> {
    const plane = await ControlPlane.start({
      binaries: this.assets(),
      users: this.options.users ?? [],
      apiServerFlags: this.options.apiServerFlags ?? [],
      featureGates: this.options.featureGates,
      attachOutput: !!this.options.attachControlPlaneOutput,
      startTimeoutMs: this.options.controlPlaneStartTimeout ?? 60_000,
      stopTimeoutMs: this.options.controlPlaneStopTimeout ?? 10_000,
    });
    const kc = newKubeConfig();
    kc.loadFromString(plane.kubeconfigText(plane.adminToken, 'admin'));
    this.plane = plane;
    this.kc = kc;
    this.kubeconfigFile = plane.kubeconfigFile;
  }

  /**
   * A kubeforge/runtime client for the admin config, reading live from the API server (no cache).
   * Throws before start(); its calls reject with the client's StatusError subclasses.
   */
  getClient(options: Omit<ClientOptions, 'cache'> = {}): Client {
    return newClient(this.config, options);
  }

  /**
   * A KubeConfig authenticating as one of `options.users` (its token is static). Throws
   * TestEnvironmentError for an unknown user or before start(); not available for an existing cluster.
   */
  userConfig(name: string): KubeConfig {
    const plane = this.plane;
    if (!plane) throw new TestEnvironmentError('userConfig() needs a started local control plane');
    const tok = plane.userTokens.get(name);
    if (!tok)
      throw new TestEnvironmentError(
        `unknown test user ${JSON.stringify(name)}`,
        'declare it in the users option of TestEnvironment',
      );
    const kc = newKubeConfig();
    kc.loadFromString(plane.kubeconfigText(tok, name));
    return kc;
  }

  /** The bearer token of a user from `options.users`; throws like userConfig(). */
  userToken(name: string): string {
    const kc = this.userConfig(name);
    const token = kc.getCurrentUser()?.token;
    if (!token) throw new TestEnvironmentError(`user ${name} has no bearer token`);
    return token;
  }

  /**
   * Stops only the kube-apiserver (etcd and the data stay): SIGTERM, then SIGKILL after at most
   * 1 s. Watches and requests fail until startAPIServer(). Rejects when no
   * local control plane is running.
   */
  async stopAPIServer(): Promise<void> {
    const plane = this.plane;
    if (!plane) throw new TestEnvironmentError('stopAPIServer() needs a started local control plane');
    await plane.stopAPIServer();
  }

  /**
   * Starts the kube-apiserver again on the same port with the same certificates, so existing
   * KubeConfigs stay valid; resolves when /readyz answers. Rejects like start().
   */
  async startAPIServer(): Promise<void> {
    const plane = this.plane;
    if (!plane) throw new TestEnvironmentError('startAPIServer() needs a started local control plane');
    await plane.startAPIServer();
  }

  /** stopAPIServer() then startAPIServer(): every open watch is cut. */
  async restartAPIServer(): Promise<void> {
    await this.stopAPIServer();
    await this.startAPIServer();
  }

  /**
   * Stops the API server, then etcd (SIGTERM, SIGKILL after controlPlaneStopTimeout), and removes
   * the temp folders (the webhook certificate's too). Idempotent; concurrent calls share one stop.
   * For an existing cluster or a joined shared control plane it deletes the webhook configurations
   * start() installed (rejecting with WebhookInstallError if that fails, after the rest is cleaned
   * up), forgets the config and leaves the server running.
   */
  stop(): Promise<void> {
    if (!this.stopping) this.stopping = this.doStop();
    return this.stopping;
  }

  private async doStop(): Promise<void> {
    const plane = this.plane;
    const kc = this.kc;
    const serving = this.serving;
    const hooks = this.installedWebhooks;
    const cel = this.celWebhook;
    this.celWebhook = undefined;
    this.kc = undefined;
    this.kubeconfigFile = undefined;
    this.serving = undefined;
    this.installedWebhooks = [];
    await cel?.stop(2000);
    this.sharedPlane = false;
    try {
      // A private control plane takes its configurations with it; a shared cluster must not keep
      // webhooks pointing at a server that is gone.
      // The same goes for a plane shared with the test files that run after this one.
      if (!plane && kc && hooks.length) await uninstallWebhookConfigurations(kc, hooks);
    } finally {
      if (serving) removeTempDir(serving.localServingCertDir);
    }
    if (!plane) return;
    try {
      await plane.stop();
    } finally {
      this.plane = undefined;
    }
  }
}
