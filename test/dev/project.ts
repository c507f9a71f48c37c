/**
 * The project the `kubeforge dev` tests run on, made by the CLI as a user makes it (init
 * --skip-install, create api, create webhook with defaulting and validation for ship/v1 Frigate),
 * and its dependencies linked to this repository's node_modules (kubeforge itself to the repository).
 */
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../../src/cli/index.js';
import { packageRoot } from '../../src/util/package-root.js';

/** The CLI commands that make the project. */
export const FRIGATE_PROJECT: readonly string[][] = [
  ['init', '--domain', 'example.com', '--skip-install'],
  ['create', 'api', '--group', 'ship', '--version', 'v1', '--kind', 'Frigate', '--resource', '--controller'],
  [
    'create',
    'webhook',
    '--group',
    'ship',
    '--version',
    'v1',
    '--kind',
    'Frigate',
    '--defaulting',
    '--programmatic-validation',
  ],
];

/** Makes the project in `project` (a folder that does not exist yet). */
export async function scaffoldFrigateProject(project: string): Promise<void> {
  mkdirSync(project);
  for (const args of FRIGATE_PROJECT) {
    let out = '';
    const code = await run(['node', 'kubeforge', ...args], {
      cwd: project,
      color: false,
      out: (t) => {
        out += t;
      },
      err: (t) => {
        out += t;
      },
    });
    assert.equal(code, 0, `kubeforge ${args.join(' ')}:\n${out}`);
  }
}

/** Links the project's node_modules to this repository's (what `npm install` would give it). */
export function linkDependencies(project: string): void {
  const repo = packageRoot();
  const nm = join(repo, 'node_modules');
  mkdirSync(join(project, 'node_modules'));
  for (const name of readdirSync(nm))
    if (name !== 'kubeforge') symlinkSync(join(nm, name), join(project, 'node_modules', name));
  symlinkSync(repo, join(project, 'node_modules/kubeforge'), 'dir');
}
