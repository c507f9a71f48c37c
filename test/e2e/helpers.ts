/**
 * Shared by the e2e tests: run commands as a user would (in a generated project, with the
 * environment of this test process), pack kubeforge as npm would publish it, and init a
 * project that installs that tarball.
 */
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../src/util/package-root.js';
import { must } from '../helpers/must.js';

export const repo = packageRoot();
export const MINUTES = 60_000;

/** Runs a command; its output is returned, not printed. */
export function sh(
  cmd: string,
  args: string[],
  cwd: string,
  extraEnv: NodeJS.ProcessEnv = {},
): SpawnSyncReturns<string> {
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
  return sh(
    process.execPath,
    [join(repo, 'bin/kubeforge.js'), 'init', '--domain', 'example.com', '--kubeforge-source', tarball, ...extraArgs],
    dir,
  );
}

/** `kubeforge test` as a generated project's npm scripts run it: its installed kubeforge's CLI (args for node, in the project). */
export const KUBEFORGE_TEST = ['node_modules/kubeforge/bin/kubeforge.js', 'test'] as const;

/**
 * The TAP summaries of a generated project's test run, one per tier `kubeforge test` ran (the unit
 * tier, then the tests on the control plane): asserts there is one and every one says `# fail 0`,
 * and returns the tests passed in all of them.
 */
export function assertAllPassed(out: string, what = 'the test run'): number {
  const fails = [...out.matchAll(/^# fail (\d+)$/gm)].map((m) => Number(m[1]));
  assert.ok(fails.length > 0, `${what} printed no TAP summary:\n${out}`);
  assert.deepEqual(
    fails.filter((n) => n !== 0),
    [],
    `${what} had failing tests:\n${out}`,
  );
  return [...out.matchAll(/^# pass (\d+)$/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
}

/**
 * A KUBEBUILDER_ASSETS folder whose kube-apiserver is a wrapper that appends a line to
 * `starts.log` for every server it starts (not for `--version`), then runs the real one: the
 * e2e counts the control planes a test run starts without trusting the project's own output.
 */
export function countingAssets(dir: string): { assets: string; starts: () => number } {
  const real = must(process.env.KUBEBUILDER_ASSETS, 'process.env.KUBEBUILDER_ASSETS');
  mkdirSync(dir, { recursive: true });
  symlinkSync(join(real, 'etcd'), join(dir, 'etcd'));
  const log = join(dir, 'starts.log');
  writeFileSync(log, '');
  writeFileSync(
    join(dir, 'kube-apiserver'),
    `#!/bin/sh\ncase " $* " in *" --version "*) ;; *) echo "$$" >> '${log}' ;; esac\nexec '${join(real, 'kube-apiserver')}' "$@"\n`,
  );
  chmodSync(join(dir, 'kube-apiserver'), 0o755);
  return { assets: dir, starts: () => readFileSync(log, 'utf8').split('\n').filter(Boolean).length };
}
