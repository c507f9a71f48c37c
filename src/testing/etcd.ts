/**
 * The etcd of a test control plane (controller-runtime's pkg/internal/testing/controlplane/etcd.go):
 * one member on 127.0.0.1, its data in a private folder, ready when /health says so.
 */
import { join } from 'node:path';
import { TestEnvironmentError } from './errors.js';
import { ControlPlaneProcess, httpGet, sleep } from './process.js';

export interface EtcdOptions {
  binary: string;
  /** The control plane's folder: the data goes to `etcd-data`, the log to `etcd.log`. */
  dir: string;
  /** Client and peer ports on 127.0.0.1. */
  port: number;
  peerPort: number;
  attachOutput: boolean;
}

export class Etcd {
  readonly process: ControlPlaneProcess;
  readonly port: number;

  constructor(o: EtcdOptions) {
    this.port = o.port;
    this.process = new ControlPlaneProcess({
      name: 'etcd',
      binary: o.binary,
      logFile: join(o.dir, 'etcd.log'),
      attachOutput: o.attachOutput,
      args: [
        '--name=kubeforge',
        `--data-dir=${join(o.dir, 'etcd-data')}`,
        `--listen-client-urls=http://127.0.0.1:${o.port}`,
        `--advertise-client-urls=http://127.0.0.1:${o.port}`,
        `--listen-peer-urls=http://127.0.0.1:${o.peerPort}`,
        `--initial-advertise-peer-urls=http://127.0.0.1:${o.peerPort}`,
        `--initial-cluster=kubeforge=http://127.0.0.1:${o.peerPort}`,
        '--initial-cluster-state=new',
      ],
    });
  }

  /** The client URL the API server is given. */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Starts etcd and resolves once it reports healthy; rejects when it exits or `deadline` passes (`timeoutMs` is for the message). */
  async start(deadline: number, timeoutMs: number): Promise<void> {
    this.process.start();
    for (;;) {
      try {
        const r = await httpGet(`${this.url}/health`);
        if (r.status === 200 && /"health":\s*"true"/.test(r.body)) return;
      } catch {
        /* not listening yet */
      }
      const p = this.process;
      if (!p.running)
        throw new TestEnvironmentError(
          `etcd ${p.exitDescription ?? 'stopped'}; log ${p.spec.logFile}:\n${p.outputTail()}`,
        );
      if (Date.now() > deadline) {
        throw new TestEnvironmentError(
          `etcd not healthy within ${timeoutMs} ms; log ${p.spec.logFile}:\n${p.outputTail()}`,
          'raise controlPlaneStartTimeoutMs on a slow machine',
        );
      }
      await sleep(50);
    }
  }

  /** SIGTERM, then SIGKILL after `graceMs`. */
  stop(graceMs: number): Promise<void> {
    return this.process.stop(graceMs);
  }
}
