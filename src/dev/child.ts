/**
 * The manager `kubeforge dev` runs: a child process started ahead (bootstrap.ts loads the
 * project's dependencies), which runs the project's compiled entry (<out>/src/main.js) with the dev
 * kubeconfig, webhook certificate and port when launch() is called. Its JSON log lines are handed to
 * `onLine` parsed; `whenRunning` resolves at its "manager started" line (the caches synced, the
 * webhook server serving), and rejects when it exits before that.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export interface ManagerLine {
  /** The parsed JSON object, or undefined for a line that is not JSON (console.log, a stack). */
  json?: Record<string, unknown>;
  text: string;
  stream: 'stdout' | 'stderr';
}

export interface ManagerChildOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  onLine: (line: ManagerLine) => void;
}

export class ManagerChild {
  readonly process: ChildProcess;
  readonly whenRunning: Promise<void>;
  readonly whenExited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private exited = false;
  /** Set by stop(): an exit that follows was asked for. */
  stopping = false;
  /** The last lines it wrote (for the message when it dies before running). */
  readonly tail: string[] = [];

  constructor(readonly options: ManagerChildOptions) {
    // bootstrap.js loads the dependencies now and runs the entry when launch() names it.
    const bootstrap = fileURLToPath(new URL('./bootstrap.js', import.meta.url));
    const child = spawn(process.execPath, ['--enable-source-maps', bootstrap], {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      // Its own process group: Ctrl-C in the terminal reaches kubeforge dev only, which stops the
      // manager itself (one SIGTERM, not a SIGINT and then a SIGTERM it would take as "now").
      detached: true,
    });
    this.process = child;
    // Whatever way kubeforge dev ends, the manager does not outlive it.
    const killAtExit = () => {
      if (!this.exited) child.kill('SIGKILL');
    };
    process.on('exit', killAtExit);
    child.on('exit', () => process.removeListener('exit', killAtExit));
    let running: () => void;
    let failed: (e: Error) => void;
    this.whenRunning = new Promise<void>((res, rej) => {
      running = res;
      failed = rej;
    });
    // Handled by whoever awaits it; never an unhandled rejection when nobody does.
    this.whenRunning.catch(() => {});
    this.whenExited = new Promise((res) => {
      child.on('exit', (code, signal) => {
        this.exited = true;
        failed(
          new Error(
            `the manager exited (${signal ?? `code ${code}`}) before it was running${this.tail.length ? `; its last lines:\n${this.tail.join('\n')}` : ''}`,
          ),
        );
        res({ code, signal });
      });
    });
    child.on('error', (e) => failed(e));
    // Spawned with stdio 'pipe' (both streams exist).
    for (const [name, stream] of [
      ['stdout', child.stdout],
      ['stderr', child.stderr],
    ] as const) {
      if (!stream) continue;
      createInterface({ input: stream }).on('line', (text) => {
        let json: Record<string, unknown> | undefined;
        if (text.startsWith('{')) {
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
        }
        this.tail.push(text);
        if (this.tail.length > 20) this.tail.shift();
        if (json && (json.msg ?? json.message) === 'manager started') running();
        options.onLine({ json, text, stream: name });
      });
    }
  }

  /** Runs the manager: `node <entry> <args...>` in this already started process, with `env` added to its environment. */
  launch(entry: string, args: string[], env: Record<string, string> = {}): void {
    this.launched = true;
    this.process.send({ entry, args, env });
  }

  launched = false;

  get pid(): number | undefined {
    return this.process.pid;
  }

  get running(): boolean {
    return !this.exited;
  }

  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it has exited. */
  async stop(graceMs = 5_000): Promise<void> {
    this.stopping = true;
    if (this.exited) return;
    this.process.kill('SIGTERM');
    const timer = setTimeout(() => {
      if (!this.exited) this.process.kill('SIGKILL');
    }, graceMs);
    await this.whenExited;
    clearTimeout(timer);
  }
}
