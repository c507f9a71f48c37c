/**
 * TestEnvironment: a real etcd + kube-apiserver for tests (controller-runtime's envtest for
 * TypeScript), or an existing cluster when asked.
 */
import { existsSync, mkdtempSync, writeFileSync, readFileSync, accessSync, constants, mkdirSync, chmodSync } from 'node:fs';
import { tmpdir, homedir } from 'node:os';
import { join, delimiter } from 'node:path';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';
import { ControlPlaneProcess, freePorts, removeTempDir, trackTempDir } from './process.js';
import { installCRDs, type CRDObject } from './crds.js';
import { newClient, type ClientOptions } from '../runtime/client/index.js';
import type { Client } from '../runtime/contracts.js';

/** A user known to the test API server besides the admin (static token authentication). */
export interface TestUser {
  name: string;
  /** Groups of the user; no group means RBAC gives it nothing until you bind a role. */
  groups?: string[];
}

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
  controlPlaneStartTimeout?: number;
  /**
   * How long stop() waits after SIGTERM before SIGKILL, in ms (default 10 s). kube-apiserver gets
   * at most 1 s of it: v1.20 does not exit on SIGTERM while watches are
   * open (it waits for them to end), and it keeps no state of its own (etcd does).
   */
  controlPlaneStopTimeout?: number;
  /** How long start() waits for CRDs to be established, in ms (default 30 s). */
  crdInstallTimeout?: number;
  /** Copy etcd and kube-apiserver output to this process's stderr (default false; it always goes to log files). */
  attachControlPlaneOutput?: boolean;
  /** Extra users (static tokens) with the given groups; get their config with {@link TestEnvironment.userConfig}. */
  users?: TestUser[];
  /** Extra kube-apiserver flags (`--name=value`), appended after kubeforge's own. */
  apiServerFlags?: string[];
}

/** Thrown by TestEnvironment for setup problems; `hint` says how to fix them. */
export class TestEnvironmentError extends Error {
  readonly hint?: string;
  constructor(message: string, hint?: string) {
    super(hint ? `${message}\n  hint: ${hint}` : message);
    this.name = 'TestEnvironmentError';
    this.hint = hint;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * How long kube-apiserver gets between SIGTERM and SIGKILL (ms). Without open watches it exits in
 * about a second; with watches open it would wait for them (minutes), so stopping and restarting
 * it under load used to take the whole stop timeout.
 */
export const API_SERVER_STOP_MS = 1_000;

function isExecutable(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function httpGet(url: string, opts: https.RequestOptions = {}): Promise<{ status: number; body: string }> {
  const mod = url.startsWith('https:') ? https : http;
  return new Promise((resolve, reject) => {
    const req = mod.get(url, { ...opts, timeout: 2000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
  });
}

interface Plane {
  dir: string;
  etcd: ControlPlaneProcess;
  apiserver: ControlPlaneProcess;
  apiserverPort: number;
  etcdPort: number;
  adminToken: string;
  userTokens: Map<string, string>;
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
  private plane?: Plane;
  private kc?: KubeConfig;
  private kubeconfigFile?: string;
  private stopping?: Promise<void>;
  private starting?: Promise<KubeConfig>;
  private installed: CRDObject[] = [];

  constructor(options: TestEnvironmentOptions = {}) {
    this.options = options;
  }

  /** Whether this environment uses an existing cluster (option or USE_EXISTING_CLUSTER=true). */
  get usesExistingCluster(): boolean {
    return this.options.useExistingCluster ?? process.env.USE_EXISTING_CLUSTER === 'true';
  }

  /** The admin KubeConfig; throws if start() has not completed. */
  get config(): KubeConfig {
    if (!this.kc) throw new TestEnvironmentError('TestEnvironment is not started', 'await env.start() first');
    return this.kc;
  }

  /** Path of a kubeconfig file for child processes (a generated operator, kubectl). Throws before start(). */
  get kubeconfigPath(): string {
    if (!this.kubeconfigFile) throw new TestEnvironmentError('TestEnvironment is not started', 'await env.start() first');
    return this.kubeconfigFile;
  }

  /** The CRDs installed by start(). */
  get crds(): CRDObject[] {
    return [...this.installed];
  }

  /** The API server's URL (https://127.0.0.1:<port>); throws before start(). */
  get serverURL(): string {
    return this.config.getCurrentCluster()!.server;
  }

  /** pids of the etcd and kube-apiserver processes this environment runs (empty for an existing cluster). */
  get pids(): { etcd?: number; apiserver?: number } {
    return { etcd: this.plane?.etcd.pid, apiserver: this.plane?.apiserver.pid };
  }

  /** Folder holding this environment's logs, certs and data (undefined for an existing cluster). */
  get dataDirectory(): string | undefined {
    return this.plane?.dir;
  }

  /**
   * Starts the control plane (or connects to the existing cluster), installs CRDs and resolves
   * with the admin KubeConfig. Calling it again while started resolves with the same config.
   */
  start(): Promise<KubeConfig> {
    if (this.kc) return Promise.resolve(this.kc);
    // Concurrent calls share one start.
    this.starting ??= this.doStart().finally(() => (this.starting = undefined));
    return this.starting;
  }

  private async doStart(): Promise<KubeConfig> {
    if (this.stopping) await this.stopping;
    this.stopping = undefined;
    if (this.usesExistingCluster) {
      const kc = new KubeConfig();
      const files = (process.env.KUBECONFIG ?? '').split(delimiter).filter(Boolean);
      const file = files[0] ?? join(homedir(), '.kube', 'config');
      if (!existsSync(file)) {
        throw new TestEnvironmentError(`useExistingCluster is set but no kubeconfig was found (${file})`, 'set KUBECONFIG to the cluster to test against');
      }
      kc.loadFromDefault();
      this.kc = kc;
      this.kubeconfigFile = file;
    } else {
      await this.startControlPlane();
    }
    try {
      this.installed = await installCRDs(this.kc!, {
        paths: this.options.crdDirectoryPaths,
        crds: this.options.crds,
        errorIfPathMissing: this.options.errorIfCRDPathMissing,
        timeoutMs: this.options.crdInstallTimeout,
      });
    } catch (e) {
      await this.stop();
      throw e;
    }
    return this.kc!;
  }

  private assets(): { etcd: string; apiserver: string } {
    const dir = this.options.binaryAssetsDirectory ?? process.env.KUBEBUILDER_ASSETS;
    const hint = 'run `npm run setup-envtest` and set KUBEBUILDER_ASSETS to the folder it prints (it holds etcd and kube-apiserver)';
    if (!dir) throw new TestEnvironmentError('KUBEBUILDER_ASSETS is not set: cannot find etcd and kube-apiserver', hint);
    const etcd = join(dir, 'etcd');
    const apiserver = join(dir, 'kube-apiserver');
    for (const [name, p] of [['etcd', etcd], ['kube-apiserver', apiserver]] as const) {
      if (!existsSync(p)) throw new TestEnvironmentError(`${name} not found in ${dir}`, hint);
      if (!isExecutable(p)) throw new TestEnvironmentError(`${p} is not executable`, hint);
    }
    return { etcd, apiserver };
  }

  private async startControlPlane(): Promise<void> {
    const bins = this.assets();
    const dir = mkdtempSync(join(tmpdir(), 'kubeforge-envtest-'));
    trackTempDir(dir);
    try {
      mkdirSync(join(dir, 'certs'));
      mkdirSync(join(dir, 'etcd-data'), { mode: 0o700 });
      // Service-account signing keys, generated here (no openssl needed).
      const { privateKey, publicKey } = generateKeyPairSync('rsa', {
        modulusLength: 2048,
        publicKeyEncoding: { type: 'spki', format: 'pem' },
        privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
      });
      writeFileSync(join(dir, 'sa.key'), privateKey, { mode: 0o600 });
      writeFileSync(join(dir, 'sa.pub'), publicKey);
      const adminToken = randomBytes(24).toString('hex');
      const userTokens = new Map<string, string>();
      const lines = [`${adminToken},admin,admin-uid,"system:masters"`];
      for (const u of this.options.users ?? []) {
        if (!/^[^,"\n]+$/.test(u.name)) throw new TestEnvironmentError(`invalid test user name ${JSON.stringify(u.name)}`);
        const tok = randomBytes(24).toString('hex');
        userTokens.set(u.name, tok);
        lines.push(`${tok},${u.name},${u.name}-uid${u.groups?.length ? `,"${u.groups.join(',')}"` : ''}`);
      }
      writeFileSync(join(dir, 'tokens.csv'), lines.join('\n') + '\n', { mode: 0o600 });

      const timeout = this.options.controlPlaneStartTimeout ?? 60_000;
      const deadline = Date.now() + timeout;
      let lastError: Error | undefined;
      // Ports are picked by binding port 0 and releasing it; another process may grab one in
      // between, so a bind failure is retried with fresh ports.
      for (let attempt = 1; attempt <= 4; attempt++) {
        const [etcdPort, peerPort, apiserverPort] = await freePorts(3);
        const etcd = new ControlPlaneProcess({
          name: 'etcd',
          binary: bins.etcd,
          logFile: join(dir, 'etcd.log'),
          attachOutput: !!this.options.attachControlPlaneOutput,
          args: [
            '--name=kubeforge',
            `--data-dir=${join(dir, 'etcd-data')}`,
            `--listen-client-urls=http://127.0.0.1:${etcdPort}`,
            `--advertise-client-urls=http://127.0.0.1:${etcdPort}`,
            `--listen-peer-urls=http://127.0.0.1:${peerPort}`,
            `--initial-advertise-peer-urls=http://127.0.0.1:${peerPort}`,
            `--initial-cluster=kubeforge=http://127.0.0.1:${peerPort}`,
            '--initial-cluster-state=new',
          ],
        });
        const apiserver = new ControlPlaneProcess({
          name: 'kube-apiserver',
          binary: bins.apiserver,
          logFile: join(dir, 'kube-apiserver.log'),
          attachOutput: !!this.options.attachControlPlaneOutput,
          args: [
            `--etcd-servers=http://127.0.0.1:${etcdPort}`,
            '--bind-address=127.0.0.1',
            '--advertise-address=127.0.0.1',
            `--secure-port=${apiserverPort}`,
            '--insecure-port=0',
            `--cert-dir=${join(dir, 'certs')}`,
            `--token-auth-file=${join(dir, 'tokens.csv')}`,
            '--authorization-mode=RBAC',
            '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
            `--service-account-key-file=${join(dir, 'sa.pub')}`,
            `--service-account-signing-key-file=${join(dir, 'sa.key')}`,
            '--service-cluster-ip-range=10.96.0.0/24',
            '--endpoint-reconciler-type=none',
            '--profiling=false',
            ...(this.options.apiServerFlags ?? []),
          ],
        });
        const plane: Plane = { dir, etcd, apiserver, apiserverPort, etcdPort, adminToken, userTokens };
        this.plane = plane;
        try {
          etcd.start();
          await this.waitEtcd(plane, deadline);
          apiserver.start();
          await this.waitAPIServer(plane, deadline);
          lastError = undefined;
          break;
        } catch (e) {
          lastError = e as Error;
          const stopMs = this.options.controlPlaneStopTimeout ?? 10_000;
          await apiserver.stop(Math.min(stopMs, API_SERVER_STOP_MS));
          await etcd.stop(stopMs);
          const portClash = /address already in use/i.test(etcd.outputTail(50) + apiserver.outputTail(50));
          if (!portClash || Date.now() > deadline) break;
          // A fresh etcd data folder for the next attempt.
          removeTempDir(join(dir, 'etcd-data'));
          trackTempDir(dir);
          mkdirSync(join(dir, 'etcd-data'), { mode: 0o700 });
        }
      }
      if (lastError) throw lastError;
      this.writeKubeconfig();
    } catch (e) {
      this.plane = undefined;
      removeTempDir(dir);
      throw e;
    }
  }

  private async waitEtcd(plane: Plane, deadline: number): Promise<void> {
    for (;;) {
      try {
        const r = await httpGet(`http://127.0.0.1:${plane.etcdPort}/health`);
        if (r.status === 200 && /"health":\s*"true"/.test(r.body)) return;
      } catch {
        /* not listening yet */
      }
      if (!plane.etcd.running) {
        throw new TestEnvironmentError(`etcd ${plane.etcd.exitDescription ?? 'stopped'}; log ${plane.etcd.spec.logFile}:\n${plane.etcd.outputTail()}`);
      }
      if (Date.now() > deadline) {
        throw new TestEnvironmentError(`etcd not healthy within ${this.options.controlPlaneStartTimeout ?? 60_000} ms; log ${plane.etcd.spec.logFile}:\n${plane.etcd.outputTail()}`, 'raise controlPlaneStartTimeout on a slow machine');
      }
      await sleep(50);
    }
  }

  private async waitAPIServer(plane: Plane, deadline: number): Promise<void> {
    for (;;) {
      try {
        const r = await httpGet(`https://127.0.0.1:${plane.apiserverPort}/readyz`, {
          headers: { Authorization: `Bearer ${plane.adminToken}` },
          rejectUnauthorized: false,
        });
        if (r.status === 200) {
          // The API server creates the "default" namespace just after it turns ready; tests
          // expect it, so wait for it too.
          const ns = await httpGet(`https://127.0.0.1:${plane.apiserverPort}/api/v1/namespaces/default`, {
            headers: { Authorization: `Bearer ${plane.adminToken}` },
            rejectUnauthorized: false,
          });
          if (ns.status === 200) return;
        }
      } catch {
        /* not listening yet */
      }
      if (!plane.apiserver.running) {
        throw new TestEnvironmentError(
          `kube-apiserver ${plane.apiserver.exitDescription ?? 'stopped'}; log ${plane.apiserver.spec.logFile}:\n${plane.apiserver.outputTail()}`,
        );
      }
      if (Date.now() > deadline) {
        throw new TestEnvironmentError(
          `kube-apiserver not ready within ${this.options.controlPlaneStartTimeout ?? 60_000} ms; log ${plane.apiserver.spec.logFile}:\n${plane.apiserver.outputTail()}`,
          'raise controlPlaneStartTimeout on a slow machine',
        );
      }
      await sleep(100);
    }
  }

  private kubeconfigText(token: string, user: string): string {
    const plane = this.plane!;
    const ca = readFileSync(join(plane.dir, 'certs', 'apiserver.crt')).toString('base64');
    return [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: envtest',
      '  cluster:',
      `    server: https://127.0.0.1:${plane.apiserverPort}`,
      `    certificate-authority-data: ${ca}`,
      'users:',
      `- name: ${user}`,
      '  user:',
      `    token: ${token}`,
      'contexts:',
      '- name: envtest',
      '  context:',
      '    cluster: envtest',
      `    user: ${user}`,
      '    namespace: default',
      'current-context: envtest',
      '',
    ].join('\n');
  }

  private writeKubeconfig(): void {
    const plane = this.plane!;
    const text = this.kubeconfigText(plane.adminToken, 'admin');
    const file = join(plane.dir, 'kubeconfig');
    writeFileSync(file, text, { mode: 0o600 });
    chmodSync(file, 0o600);
    const kc = new KubeConfig();
    kc.loadFromString(text);
    this.kc = kc;
    this.kubeconfigFile = file;
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
    if (!tok) throw new TestEnvironmentError(`unknown test user ${JSON.stringify(name)}`, 'declare it in the users option of TestEnvironment');
    const kc = new KubeConfig();
    kc.loadFromString(this.kubeconfigText(tok, name));
    return kc;
  }

  /** The bearer token of a user from `options.users`; throws like userConfig(). */
  userToken(name: string): string {
    const kc = this.userConfig(name);
    return kc.getCurrentUser()!.token!;
  }

  /**
   * Stops only the kube-apiserver (etcd and the data stay): SIGTERM, then SIGKILL after at most
   * 1 s. Watches and requests fail until startAPIServer(). Rejects when no
   * local control plane is running.
   */
  async stopAPIServer(): Promise<void> {
    const plane = this.plane;
    if (!plane) throw new TestEnvironmentError('stopAPIServer() needs a started local control plane');
    await plane.apiserver.stop(this.apiServerStopMs());
  }

  private apiServerStopMs(): number {
    return Math.min(this.options.controlPlaneStopTimeout ?? 10_000, API_SERVER_STOP_MS);
  }

  /**
   * Starts the kube-apiserver again on the same port with the same certificates, so existing
   * KubeConfigs stay valid; resolves when /readyz answers. Rejects like start().
   */
  async startAPIServer(): Promise<void> {
    const plane = this.plane;
    if (!plane) throw new TestEnvironmentError('startAPIServer() needs a started local control plane');
    if (plane.apiserver.running) return;
    const deadline = Date.now() + (this.options.controlPlaneStartTimeout ?? 60_000);
    for (;;) {
      plane.apiserver.start();
      try {
        await this.waitAPIServer(plane, deadline);
        return;
      } catch (e) {
        // The old socket may linger for a moment; retry a port clash until the deadline.
        if (!/address already in use/i.test(plane.apiserver.outputTail(50)) || Date.now() > deadline) throw e;
        await plane.apiserver.stop(1000);
        await sleep(200);
      }
    }
  }

  /** stopAPIServer() then startAPIServer(): every open watch is cut. */
  async restartAPIServer(): Promise<void> {
    await this.stopAPIServer();
    await this.startAPIServer();
  }

  /**
   * Stops the API server, then etcd (SIGTERM, SIGKILL after controlPlaneStopTimeout), and removes
   * the temp folder. Idempotent; concurrent calls share one stop. For an existing cluster it only
   * forgets the config.
   */
  stop(): Promise<void> {
    if (!this.stopping) this.stopping = this.doStop();
    return this.stopping;
  }

  private async doStop(): Promise<void> {
    const plane = this.plane;
    this.kc = undefined;
    this.kubeconfigFile = undefined;
    if (!plane) return;
    const grace = this.options.controlPlaneStopTimeout ?? 10_000;
    try {
      await plane.apiserver.stop(this.apiServerStopMs());
      await plane.etcd.stop(grace);
    } finally {
      this.plane = undefined;
      removeTempDir(plane.dir);
    }
  }
}
