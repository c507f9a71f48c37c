/**
 * Runs the kubeforge CLI in this process, as the tests of its commands do.
 */
import { mkdirSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { run } from '../../src/cli/index.js';

export interface CliResult {
  code: number;
  out: string;
  err: string;
}

/** `kubeforge <args>` in the folder `cwd`, without colour; what it printed is returned, not shown. */
export async function kubeforgeIn(cwd: string, ...args: string[]): Promise<CliResult> {
  let out = '';
  let err = '';
  const code = await run(['node', 'kubeforge', ...args], {
    cwd,
    color: false,
    out: (t) => {
      out += t;
    },
    err: (t) => {
      err += t;
    },
  });
  return { code, out, err };
}

/**
 * Links what a fixture project under test needs to build and run `kubeforge manifests` from the
 * repository `repo`: client-node's types, @types, and kubeforge itself (as node_modules/kubeforge).
 */
export function linkKubeforgeDependencies(repo: string, dir: string): void {
  for (const [target, at] of [
    [join(repo, 'node_modules/@kubernetes'), 'node_modules/@kubernetes'],
    [join(repo, 'node_modules/@types'), 'node_modules/@types'],
    [repo, 'node_modules/kubeforge'],
  ]) {
    mkdirSync(dirname(join(dir, at)), { recursive: true });
    symlinkSync(target, join(dir, at), 'dir');
  }
}
