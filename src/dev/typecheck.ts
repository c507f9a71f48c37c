/**
 * The project's own TypeScript compiler, as `kubeforge dev` runs it: the `tsc` of the project's
 * node_modules (TypeScript 7 in a generated project: a native binary, a whole project in a second
 * or two), started as a process.
 *   - `check()`: `tsc --noEmit`, the type-check that runs beside each restart. A newer check
 *     cancels the one still running (its answer would be about files already saved again).
 *   - `build()`: a whole build into the dev build folder, at start and when a file-by-file
 *     transpile (transpile.ts) produced code that does not load.
 * Errors come back as tsc prints them (`src/x.ts(3,5): error TS2322: ...`), located.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** `kubeforge dev --type-check`: when the type-check runs, and whether a type error holds the restart. */
export const TYPE_CHECK_MODES = ['async', 'strict', 'off'] as const;
export type TypeCheckMode = (typeof TYPE_CHECK_MODES)[number];

export interface TscResult {
  ok: boolean;
  /** tsc's report (errors), empty when ok. */
  text: string;
  ms: number;
  /** A newer check took its place: the result says nothing. */
  cancelled?: boolean;
}

/** The project's tsc: its node_modules/.bin/tsc, else TypeScript's bin script run by this Node. */
export function projectTsc(projectDir: string): { command: string; args: string[] } | undefined {
  const bin = join(projectDir, 'node_modules/.bin/tsc');
  if (existsSync(bin)) return { command: bin, args: [] };
  const script = join(projectDir, 'node_modules/typescript/bin/tsc');
  if (existsSync(script)) return { command: process.execPath, args: [script] };
  return undefined;
}

export class ProjectTsc {
  private current?: ChildProcess;

  constructor(
    readonly projectDir: string,
    readonly outDir: string,
  ) {}

  get available(): boolean {
    return projectTsc(this.projectDir) !== undefined;
  }

  /** Type-checks the whole project, emitting nothing; cancels a check still running. */
  check(): Promise<TscResult> {
    return this.run(['--noEmit']);
  }

  /** Builds the whole project into the dev build folder; with `strict`, nothing is written on an error. */
  build(strict: boolean): Promise<TscResult> {
    return this.run([
      '--outDir',
      this.outDir,
      '--noEmit',
      'false',
      '--noEmitOnError',
      String(strict),
      '--declaration',
      'false',
      '--declarationMap',
      'false',
      '--incremental',
      'false',
    ]);
  }

  /** Stops a check or build still running. */
  cancel(): void {
    this.current?.kill('SIGKILL');
    this.current = undefined;
  }

  private run(extra: string[]): Promise<TscResult> {
    const tsc = projectTsc(this.projectDir);
    const t = Date.now();
    if (!tsc)
      return Promise.resolve({
        ok: false,
        text: `the project has no TypeScript compiler (no node_modules/.bin/tsc in ${this.projectDir}): run npm install\n`,
        ms: 0,
      });
    this.cancel();
    const child = spawn(
      tsc.command,
      [...tsc.args, '-p', join(this.projectDir, 'tsconfig.json'), '--pretty', 'false', ...extra],
      {
        cwd: this.projectDir,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    this.current = child;
    let text = '';
    const collect = (c: string) => {
      text += c;
    };
    child.stdout?.setEncoding('utf8').on('data', collect);
    child.stderr?.setEncoding('utf8').on('data', collect);
    return new Promise((resolve) => {
      child.on('error', (e) => resolve({ ok: false, text: `tsc did not start: ${e.message}\n`, ms: Date.now() - t }));
      child.on('close', (code, signal) => {
        if (this.current === child) this.current = undefined;
        if (signal) resolve({ ok: false, text: '', ms: Date.now() - t, cancelled: true });
        else resolve({ ok: code === 0, text: code === 0 ? '' : text, ms: Date.now() - t });
      });
    });
  }
}
