/**
 * A private control plane for tests (controller-runtime's pkg/internal/testing/controlplane/plane.go):
 * an Etcd and an APIServer on free ports of 127.0.0.1, sharing a temporary folder with the
 * service-account keys, the static tokens (an admin in system:masters, the test users) and the
 * logs. TestEnvironment starts one unless it joins a shared plane or an existing cluster.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { APIServer } from './apiserver.js';
import { TestEnvironmentError } from './errors.js';
import { Etcd } from './etcd.js';
import { freePorts, removeTempDir, trackTempDir } from './process.js';

/** A user known to the test API server besides the admin (static token authentication). */
export interface TestUser {
  name: string;
  /** Groups of the user; no group means RBAC gives it nothing until you bind a role. */
  groups?: string[];
}

export interface ControlPlaneOptions {
  binaries: { etcd: string; apiserver: string };
  users: TestUser[];
  apiServerFlags: string[];
  /** kube-apiserver feature gates, folded into one `--feature-gates` flag (see withFeatureGates). */
  featureGates?: Readonly<Record<string, boolean>>;
  attachOutput: boolean;
  startTimeoutMs: number;
  stopTimeoutMs: number;
}

/**
 * kube-apiserver's flags with `gates` folded into one `--feature-gates` flag: the gates named in
 * `--feature-gates` entries of `flags` first, then `gates` over them (a gate in both takes
 * `gates`' value), sorted by name, so that the server sees each gate once whatever it makes of a
 * repeated flag. Without gates and without such flags, `flags` unchanged.
 */
export function withFeatureGates(flags: readonly string[], gates: Readonly<Record<string, boolean>> = {}): string[] {
  const merged = new Map<string, string>();
  const rest: string[] = [];
  for (const f of flags) {
    const m = /^--feature-gates=(.*)$/.exec(f);
    if (!m) {
      rest.push(f);
      continue;
    }
    for (const part of m[1].split(',')) {
      if (!part.trim()) continue;
      const eq = part.indexOf('=');
      if (eq < 0) throw new TestEnvironmentError(`apiServerFlags: ${f} has a gate without a value (${part})`);
      merged.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
    }
  }
  for (const [name, on] of Object.entries(gates)) {
    if (!/^[A-Za-z][A-Za-z0-9]*$/.test(name))
      throw new TestEnvironmentError(`featureGates: ${JSON.stringify(name)} is not a feature gate name`);
    if (typeof on !== 'boolean')
      throw new TestEnvironmentError(`featureGates: ${name} must be true or false, got ${JSON.stringify(on)}`);
    merged.set(name, String(on));
  }
  if (merged.size === 0) return rest;
  const value = [...merged]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
  return [...rest, `--feature-gates=${value}`];
}

/** Ports are picked by binding port 0 and releasing it: a clash with another process is retried this many times with fresh ports. */
const PORT_ATTEMPTS = 4;

export class ControlPlane {
  private constructor(
    readonly dir: string,
    readonly etcd: Etcd,
    readonly apiserver: APIServer,
    readonly adminToken: string,
    readonly userTokens: ReadonlyMap<string, string>,
    /** The admin kubeconfig file (mode 0600). */
    readonly kubeconfigFile: string,
    private readonly options: ControlPlaneOptions,
  ) {}

  /** Starts etcd, then kube-apiserver; on failure stops what it started and removes the folder. */
  static async start(options: ControlPlaneOptions): Promise<ControlPlane> {
    const dir = mkdtempSync(join(tmpdir(), 'kubeforge-envtest-'));
    trackTempDir(dir);
    try {
      const { adminToken, userTokens } = writeCredentials(dir, options.users);
      const { etcd, apiserver } = await startProcesses(dir, adminToken, options);
      const file = join(dir, 'kubeconfig');
      const plane = new ControlPlane(dir, etcd, apiserver, adminToken, userTokens, file, options);
      writeFileSync(file, plane.kubeconfigText(adminToken, 'admin'), { mode: 0o600 });
      chmodSync(file, 0o600);
      return plane;
    } catch (e) {
      removeTempDir(dir);
      throw e;
    }
  }

  /** A kubeconfig (YAML) for the API server, as `user` with bearer `token`, trusting its certificate. */
  kubeconfigText(token: string, user: string): string {
    const ca = readFileSync(join(this.dir, 'certs', 'apiserver.crt')).toString('base64');
    return [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: envtest',
      '  cluster:',
      `    server: ${this.apiserver.url}`,
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

  stopAPIServer(): Promise<void> {
    return this.apiserver.stop(this.options.stopTimeoutMs);
  }

  startAPIServer(): Promise<void> {
    return this.apiserver.restart(Date.now() + this.options.startTimeoutMs, this.options.startTimeoutMs);
  }

  /** Stops the API server, then etcd, and removes the folder. */
  async stop(): Promise<void> {
    try {
      await this.apiserver.stop(this.options.stopTimeoutMs);
      await this.etcd.stop(this.options.stopTimeoutMs);
    } finally {
      removeTempDir(this.dir);
    }
  }
}

/** The service-account signing keys (generated here: no openssl needed) and tokens.csv. */
function writeCredentials(dir: string, users: TestUser[]): { adminToken: string; userTokens: Map<string, string> } {
  mkdirSync(join(dir, 'certs'));
  mkdirSync(join(dir, 'etcd-data'), { mode: 0o700 });
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
  for (const u of users) {
    if (!/^[^,"\n]+$/.test(u.name)) throw new TestEnvironmentError(`invalid test user name ${JSON.stringify(u.name)}`);
    const tok = randomBytes(24).toString('hex');
    userTokens.set(u.name, tok);
    lines.push(`${tok},${u.name},${u.name}-uid${u.groups?.length ? `,"${u.groups.join(',')}"` : ''}`);
  }
  writeFileSync(join(dir, 'tokens.csv'), `${lines.join('\n')}\n`, { mode: 0o600 });
  return { adminToken, userTokens };
}

/** etcd then kube-apiserver on fresh ports, retrying a port clash until the start deadline. */
async function startProcesses(
  dir: string,
  adminToken: string,
  o: ControlPlaneOptions,
): Promise<{ etcd: Etcd; apiserver: APIServer }> {
  const deadline = Date.now() + o.startTimeoutMs;
  let lastError: Error | undefined;
  for (let attempt = 1; attempt <= PORT_ATTEMPTS; attempt++) {
    const [etcdPort, peerPort, apiserverPort] = await freePorts(3);
    const etcd = new Etcd({ binary: o.binaries.etcd, dir, port: etcdPort, peerPort, attachOutput: o.attachOutput });
    const apiserver = new APIServer({
      binary: o.binaries.apiserver,
      dir,
      port: apiserverPort,
      etcdURL: etcd.url,
      extraFlags: withFeatureGates(o.apiServerFlags, o.featureGates),
      attachOutput: o.attachOutput,
      probeToken: adminToken,
    });
    try {
      await etcd.start(deadline, o.startTimeoutMs);
      await apiserver.start(deadline, o.startTimeoutMs);
      return { etcd, apiserver };
    } catch (e) {
      lastError = e as Error;
      await apiserver.stop(o.stopTimeoutMs);
      await etcd.stop(o.stopTimeoutMs);
      const portClash = /address already in use/i.test(etcd.process.outputTail(50) + apiserver.process.outputTail(50));
      if (!portClash || Date.now() > deadline) break;
      // A fresh etcd data folder for the next attempt.
      removeTempDir(join(dir, 'etcd-data'));
      trackTempDir(dir);
      mkdirSync(join(dir, 'etcd-data'), { mode: 0o700 });
    }
  }
  throw lastError;
}
