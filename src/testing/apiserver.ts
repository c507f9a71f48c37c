/**
 * The kube-apiserver of a test control plane (controller-runtime's
 * pkg/internal/testing/controlplane/apiserver.go): secure port on 127.0.0.1, static-token
 * authentication, RBAC, its certificates in the plane's folder; ready when /readyz answers and the
 * "default" namespace exists. It can be stopped and started again on the same port.
 */
import { join } from 'node:path';
import { apiServerMinor } from '../util/kube-version.js';
import { TestEnvironmentError } from './errors.js';
import { ControlPlaneProcess, httpGet, sleep } from './process.js';

/**
 * How long kube-apiserver gets between SIGTERM and SIGKILL (ms). Without open watches it exits in
 * about a second; with watches open it would wait for them (minutes), so stopping and restarting
 * it under load used to take the whole stop timeout.
 */
export const API_SERVER_STOP_MS = 1_000;

/** Whether the binary still has `--insecure-port` (before 1.24; assumed when its version is unknown). */
function legacyInsecurePort(binary: string): boolean {
  const minor = apiServerMinor(binary);
  return minor === undefined || minor < 24;
}

export interface APIServerOptions {
  binary: string;
  /** The control plane's folder: `certs/`, `tokens.csv`, `sa.key`/`sa.pub`, the log `kube-apiserver.log`. */
  dir: string;
  port: number;
  etcdURL: string;
  /** Extra flags (`--name=value`), after kubeforge's own. */
  extraFlags: string[];
  attachOutput: boolean;
  /** The token /readyz is asked with (a system:masters user of tokens.csv). */
  probeToken: string;
}

export class APIServer {
  readonly process: ControlPlaneProcess;
  readonly port: number;
  private readonly probeToken: string;

  constructor(o: APIServerOptions) {
    this.port = o.port;
    this.probeToken = o.probeToken;
    this.process = new ControlPlaneProcess({
      name: 'kube-apiserver',
      binary: o.binary,
      logFile: join(o.dir, 'kube-apiserver.log'),
      attachOutput: o.attachOutput,
      args: [
        `--etcd-servers=${o.etcdURL}`,
        '--bind-address=127.0.0.1',
        '--advertise-address=127.0.0.1',
        `--secure-port=${o.port}`,
        // Removed in 1.24; before it, the insecure port must be switched off explicitly.
        ...(legacyInsecurePort(o.binary) ? ['--insecure-port=0'] : []),
        `--cert-dir=${join(o.dir, 'certs')}`,
        `--token-auth-file=${join(o.dir, 'tokens.csv')}`,
        '--authorization-mode=RBAC',
        '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
        `--service-account-key-file=${join(o.dir, 'sa.pub')}`,
        `--service-account-signing-key-file=${join(o.dir, 'sa.key')}`,
        '--service-cluster-ip-range=10.96.0.0/24',
        '--endpoint-reconciler-type=none',
        '--profiling=false',
        ...o.extraFlags,
      ],
    });
  }

  /** https://127.0.0.1:<port> */
  get url(): string {
    return `https://127.0.0.1:${this.port}`;
  }

  /** Starts kube-apiserver and resolves once it is ready; rejects when it exits or `deadline` passes (`timeoutMs` is for the message). */
  async start(deadline: number, timeoutMs: number): Promise<void> {
    this.process.start();
    await this.waitReady(deadline, timeoutMs);
  }

  /**
   * Starts it again after stop(), on the same port with the same certificates; a port clash (the
   * old socket lingering) is retried until `deadline`.
   */
  async restart(deadline: number, timeoutMs: number): Promise<void> {
    if (this.process.running) return;
    for (;;) {
      this.process.start();
      try {
        await this.waitReady(deadline, timeoutMs);
        return;
      } catch (e) {
        if (!/address already in use/i.test(this.process.outputTail(50)) || Date.now() > deadline) throw e;
        await this.process.stop(1000);
        await sleep(200);
      }
    }
  }

  /** SIGTERM, then SIGKILL after `graceMs` (at most API_SERVER_STOP_MS). */
  stop(graceMs: number): Promise<void> {
    return this.process.stop(Math.min(graceMs, API_SERVER_STOP_MS));
  }

  private async waitReady(deadline: number, timeoutMs: number): Promise<void> {
    const probe = { headers: { Authorization: `Bearer ${this.probeToken}` }, rejectUnauthorized: false };
    for (;;) {
      try {
        const r = await httpGet(`${this.url}/readyz`, probe);
        // The API server creates the "default" namespace just after it turns ready; tests
        // expect it, so wait for it too.
        if (r.status === 200 && (await httpGet(`${this.url}/api/v1/namespaces/default`, probe)).status === 200) return;
      } catch {
        /* not listening yet */
      }
      const p = this.process;
      if (!p.running)
        throw new TestEnvironmentError(
          `kube-apiserver ${p.exitDescription ?? 'stopped'}; log ${p.spec.logFile}:\n${p.outputTail()}`,
        );
      if (Date.now() > deadline) {
        throw new TestEnvironmentError(
          `kube-apiserver not ready within ${timeoutMs} ms; log ${p.spec.logFile}:\n${p.outputTail()}`,
          'raise controlPlaneStartTimeoutMs on a slow machine',
        );
      }
      await sleep(100);
    }
  }
}
