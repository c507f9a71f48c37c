/**
 * Shared by the e2e tests: run commands as a user would (in a generated project, with the
 * environment of this test process), pack kubeforge as npm would publish it, and init a
 * project that installs that tarball.
 */
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { join } from 'node:path';
import { packageRoot } from '../../src/util/package-root.js';

export const repo = packageRoot();
export const MINUTES = 60_000;

/** Runs a command; its output is returned, not printed. */
export function sh(cmd: string, args: string[], cwd: string, extraEnv: NodeJS.ProcessEnv = {}): SpawnSyncReturns<string> {
  // NODE_TEST_CONTEXT would make the project's own `node --test` report to this runner instead of printing.
  const env: NodeJS.ProcessEnv = { ...process.env, ...extraEnv };
  delete env.NODE_TEST_CONTEXT;
  return spawnSync(cmd, args, { cwd, encoding: 'utf8', env, maxBuffer: 64 * 1024 * 1024 });
}

/** Asserts exit 0 (showing both streams otherwise) and returns stdout. */
export function ok(r: SpawnSyncReturns<string>, what: string): string {
  assert.equal(r.status, 0, `${what} failed (exit ${r.status ?? r.signal}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/** `npm pack` of this kubeforge into `dir`; returns the tarball's path. */
export function packKubeforge(dir: string): string {
  const packed = ok(sh('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], repo), 'npm pack');
  const [{ filename }] = JSON.parse(packed.slice(packed.indexOf('['))) as { filename: string }[];
  return join(dir, filename);
}

/** `kubeforge init` (the repository's CLI) in `dir`, depending on `tarball`; runs npm install. */
export function initProject(dir: string, tarball: string, extraArgs: string[] = []): SpawnSyncReturns<string> {
  return sh(process.execPath, [join(repo, 'bin/kubeforge.js'), 'init', '--domain', 'example.com', '--kubeforge-source', tarball, ...extraArgs], dir);
}
