// Shared by the hostile-input suites that drive the real CLI (bin/kubeforge.js over dist/, which
// `npm test` builds): spawn it, watch a project folder, and fingerprint the folder.
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const root = process.env.KUBEFORGE_REPO_ROOT ?? process.cwd();
export const BIN = join(root, 'bin/kubeforge.js');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
  err: string;
}

export interface Running {
  child: ChildProcess;
  done: Promise<CliResult>;
}

/** Starts the real CLI in `cwd`. `env` is laid over this process' environment. */
export function start(cwd: string, args: readonly string[], env: Record<string, string> = {}): Running {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd,
    env: { ...process.env, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
  child.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
  const done = new Promise<CliResult>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, out, err })),
  );
  return { child, done };
}

/** Runs the real CLI to its end. */
export function cli(cwd: string, args: readonly string[], env: Record<string, string> = {}): Promise<CliResult> {
  return start(cwd, args, env).done;
}

/** Fails the test with the CLI's output unless it exited 0. */
export function ok(r: CliResult, what: string): CliResult {
  if (r.code !== 0) throw new Error(`${what} exited ${r.code ?? r.signal}\n--- stdout\n${r.out}\n--- stderr\n${r.err}`);
  return r;
}

/** Every folder (`dir/`) and file (its sha256) below `dir`, node_modules left out: equal maps mean byte-identical trees. */
export function fingerprint(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  // While a command runs (whenCommitting polls), entries can vanish between readdir and stat
  // (the engine's writability probes, renamed temporary files): those are skipped.
  const gone = (e: unknown) => (e as NodeJS.ErrnoException).code === 'ENOENT';
  const walk = (d: string) => {
    let names: string[];
    try {
      names = readdirSync(d).sort();
    } catch (e) {
      if (gone(e)) return;
      throw e;
    }
    for (const name of names) {
      if (name === 'node_modules') continue;
      const p = join(d, name);
      const rel = relative(dir, p);
      try {
        if (statSync(p).isDirectory()) {
          out[`${rel}/`] = 'dir';
          walk(p);
        } else out[rel] = createHash('sha256').update(readFileSync(p)).digest('hex');
      } catch (e) {
        if (!gone(e)) throw e;
      }
    }
  };
  walk(dir);
  return out;
}

/** Paths (relative) of the commit's temporary files below `dir`. */
export function tempFiles(dir: string): string[] {
  return Object.keys(fingerprint(dir)).filter((p) => /\.kubeforge-\d+\.tmp$/.test(p));
}

/**
 * Resolves once a temporary file of a commit exists below `dir` (the CLI is part way through
 * writing), or rejects when the process ends first.
 */
export async function whenCommitting(dir: string, run: Running): Promise<string> {
  let ended = false;
  void run.done.then(() => (ended = true));
  for (;;) {
    const found = tempFiles(dir);
    if (found.length) return found[0];
    if (ended) {
      const r = await run.done;
      throw new Error(`the command ended (${r.code ?? r.signal}) before a commit was seen\n${r.err}`);
    }
    await new Promise((r) => setTimeout(r, 5));
  }
}

const made: string[] = [];
/** A path `<tmp>/kf-hostile-XXXXXX/<name>` (not created), removed by {@link cleanup}. */
export function freshFolder(name = 'demo'): string {
  const parent = mkdtempSync(join(tmpdir(), 'kf-hostile-'));
  made.push(parent);
  return join(parent, name);
}

export function cleanup(): void {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** `kubeforge init` (no npm install; kubeforge linked, not packed) in a new folder; `extra` are init's flags. */
export async function initProject(extra: string[] = []): Promise<string> {
  const dir = freshFolder();
  mkdirSync(dir, { recursive: true });
  ok(
    await cli(dir, ['init', '--domain', 'example.com', '--skip-install', '--kubeforge-source', 'link', ...extra]),
    'kubeforge init',
  );
  return dir;
}
