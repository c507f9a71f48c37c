/**
 * Child processes of a test control plane (etcd, kube-apiserver): start, wait for health,
 * stop with SIGTERM then SIGKILL, and a process-wide exit hook so a crashed test run does not
 * leave them behind.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, rmSync, type WriteStream } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';

/** Everything started by any TestEnvironment in this process and not yet stopped. */
const live = new Set<ControlPlaneProcess>();
const tempDirs = new Set<string>();
let hooksInstalled = false;

function killAllSync(): void {
  for (const p of live) p.killSync();
  for (const d of tempDirs) {
    try {
      rmSync(d, { recursive: true, force: true });
    } catch {
      /* best effort at exit */
    }
  }
}

function installHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on('exit', killAllSync);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = () => {
      // Someone else handles this signal (e.g. a Manager's signal handler): they will exit, and
      // the 'exit' hook then cleans up. Alone, behave like the default action after cleaning up.
      if (process.listenerCount(sig) > 1) return;
      killAllSync();
      process.removeListener(sig, onSignal);
      process.kill(process.pid, sig);
    };
    process.on(sig, onSignal);
  }
}

/** Registers a temp folder to be removed at process exit if nobody removed it before. */
export function trackTempDir(dir: string): void {
  installHooks();
  tempDirs.add(dir);
}

/** Removes a temp folder now and forgets it. */
export function removeTempDir(dir: string): void {
  tempDirs.delete(dir);
  rmSync(dir, { recursive: true, force: true });
}

/** Options for one child process. */
export interface ProcessSpec {
  name: string;
  binary: string;
  args: string[];
  logFile: string;
  /** Copy the child's output to this process's stderr. */
  attachOutput: boolean;
}

/** One etcd or kube-apiserver child. */
export class ControlPlaneProcess {
  readonly spec: ProcessSpec;
  private child?: ChildProcess;
  private exited?: Promise<void>;
  private tail = '';
  private log?: WriteStream;
  private exitInfo?: string;

  constructor(spec: ProcessSpec) {
    this.spec = spec;
  }

  /** The pid of the running child, or undefined. */
  get pid(): number | undefined {
    return this.child && this.exitInfo === undefined ? this.child.pid : undefined;
  }

  /** Whether the child is running. */
  get running(): boolean {
    return this.child !== undefined && this.exitInfo === undefined;
  }

  /** Last output lines of the child (for error messages). */
  outputTail(lines = 25): string {
    return this.tail.split('\n').slice(-lines).join('\n');
  }

  /** Why the child ended, if it did. */
  get exitDescription(): string | undefined {
    return this.exitInfo;
  }

  /** Spawns the child. Throws if it cannot be spawned (missing binary: ENOENT). */
  start(): void {
    installHooks();
    this.tail = '';
    this.exitInfo = undefined;
    this.log = createWriteStream(this.spec.logFile, { flags: 'a' });
    const child = spawn(this.spec.binary, this.spec.args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    live.add(this);
    const onData = (b: Buffer) => {
      this.log?.write(b);
      this.tail = (this.tail + b.toString('utf8')).slice(-16_384);
      if (this.spec.attachOutput) process.stderr.write(b);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    this.exited = new Promise<void>((resolve) => {
      child.once('error', (e) => {
        this.exitInfo = `failed to start: ${e.message}`;
        live.delete(this);
        resolve();
      });
      child.once('exit', (code, signal) => {
        this.exitInfo = signal ? `killed by ${signal}` : `exited with code ${code}`;
        live.delete(this);
        this.log?.end();
        resolve();
      });
    });
  }

  /** Resolves when the child has exited (immediately if it is not running). */
  async waitExit(): Promise<void> {
    await this.exited;
  }

  /**
   * Sends SIGTERM, waits up to `graceMs`, then SIGKILL; resolves once the child is gone.
   * Safe to call when not running.
   */
  async stop(graceMs: number): Promise<void> {
    const child = this.child;
    if (!child || this.exitInfo !== undefined) return;
    child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      (this.exited ?? Promise.resolve()).then(() => false),
      new Promise<boolean>((r) => (timer = setTimeout(() => r(true), graceMs))),
    ]);
    clearTimeout(timer);
    if (timedOut) {
      child.kill('SIGKILL');
      await this.exited;
    }
  }

  /** Synchronous SIGKILL, for the process exit hook. */
  killSync(): void {
    if (this.child && this.exitInfo === undefined) {
      try {
        this.child.kill('SIGKILL');
      } catch {
        /* already gone */
      }
    }
    live.delete(this);
  }
}

/** The pids of every control-plane child of this process still running (for leak checks). */
export function runningControlPlanePids(): number[] {
  return [...live].map((p) => p.pid).filter((p): p is number => p !== undefined);
}

/**
 * Finds a free TCP port on `host` by binding port 0 and releasing it. Another process can take
 * it before we use it; callers retry on "address already in use".
 */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen({ host, port: 0, exclusive: true }, () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Distinct free ports. */
export async function freePorts(n: number, host = '127.0.0.1'): Promise<number[]> {
  const out: number[] = [];
  while (out.length < n) {
    const p = await freePort(host);
    if (!out.includes(p)) out.push(p);
  }
  return out;
}

/** A GET with a 2 s timeout, answering status and body (the readiness probes of etcd and kube-apiserver). */
export function httpGet(url: string, opts: https.RequestOptions = {}): Promise<{ status: number; body: string }> {
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

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
