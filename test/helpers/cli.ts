/**
 * Runs the kubeforge CLI in this process, as the tests of its commands do.
 */
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
    out: (t) => void (out += t),
    err: (t) => void (err += t),
  });
  return { code, out, err };
}
