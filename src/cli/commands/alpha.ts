// `kubeforge alpha ...`: experimental commands, as Kubebuilder's alpha group. The implementation is imported lazily.
import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { addFlags, type FlagTable, flagValues } from '../flags.js';

/** The flags of `alpha generate`, in the help's order. */
export const ALPHA_GENERATE_FLAGS = {
  outputDir: {
    type: 'string',
    value: '<dir>',
    required: true,
    description: 'folder for the new project (must not exist, or be empty)',
  },
  inputDir: { type: 'string', value: '<dir>', default: '.', description: 'the project to re-scaffold' },
  skipInstall: {
    type: 'switch',
    default: false,
    description: 'do not run npm install and manifests in the new project',
  },
  kubeforgeSource: {
    type: 'string',
    value: '<source>',
    default: 'tarball',
    description: 'how the new project depends on kubeforge (as init --kubeforge-source)',
  },
} as const satisfies FlagTable;

/** The flags of `alpha update`, in the help's order. */
export const ALPHA_UPDATE_FLAGS = {
  fromVersion: {
    type: 'string',
    value: '<version|path>',
    description:
      "the kubeforge that made the project: a version (default: PROJECT's cliVersion; found in .kubeforge/, else with npm) or a path to a kubeforge package folder or .tgz",
  },
  toVersion: {
    type: 'string',
    value: '<version|path>',
    description: 'the kubeforge to upgrade to, as --from-version (default: this kubeforge)',
  },
  fromBranch: {
    type: 'string',
    value: '<branch>',
    description: 'the branch holding your project (default: the current branch)',
  },
  outputBranch: {
    type: 'string',
    value: '<branch>',
    description: 'the branch the result goes on (default: kubeforge-update-from-<from>-to-<to>)',
  },
  force: {
    type: 'switch',
    default: false,
    description: 'commit the result even when files have conflicts (markers committed, files listed)',
  },
  inPlace: {
    type: 'switch',
    default: false,
    description: 'write the result into the current work tree instead of a new branch (nothing committed)',
  },
  restorePath: {
    type: 'list',
    value: '<path...>',
    description: 'files or folders kept exactly as on your branch, never merged (repeatable)',
  },
  allowUnverifiedCli: {
    type: 'switch',
    default: false,
    description:
      'run a kubeforge fetched from a package registry that nothing recorded vouches for (no cliIntegrity in PROJECT, none in package-lock.json): whoever holds the name decides what runs',
  },
} as const satisfies FlagTable;

export function registerAlpha(program: Command, ctx: CliContext): void {
  const alpha = program.command('alpha').description('experimental commands (Kubebuilder: kubebuilder alpha)');
  addFlags(
    alpha
      .command('generate')
      .description(
        're-scaffold a project from its PROJECT file with this kubeforge into a new folder, copying your code over (the upgrade path)',
      ),
    ALPHA_GENERATE_FLAGS,
  )
    .addHelpText(
      'after',
      `
Replays init, create api (every resource) and create webhook (every resource with webhooks) from
PROJECT, then copies src/api, src/controller, src/webhook, test, config/samples and the grafana
custom-metrics config from the old project, and lists the other files that differ, to merge by hand.

Example:
  $ kubeforge alpha generate --output-dir ../guestbook-upgraded
  $ diff -r --exclude=node_modules . ../guestbook-upgraded`,
    )
    .action(async (opts: Record<string, unknown>) => {
      const { runGenerate } = await import('../../scaffolds/alpha-generate.js');
      await runGenerate(flagValues(ALPHA_GENERATE_FLAGS, opts), ctx);
    });
  addFlags(
    alpha
      .command('update')
      .description(
        "upgrade the project's scaffold to this kubeforge: a three-way merge (old scaffold, your project, new scaffold) with git, on a new branch",
      ),
    ALPHA_UPDATE_FLAGS,
  )
    .addHelpText(
      'after',
      `
Re-scaffolds the project from PROJECT with the old kubeforge (the ancestor) and the new one (the
upgrade), each with its own \`alpha generate\`, and merges every file three ways with git merge-file:
your changes are kept, the scaffold's changes applied, and overlaps marked as git marks them and
listed. Needs git and a clean work tree; your branch is never changed.

Exit status: 0 when the result is committed; 1 when files need your merge (the result is left on
the new branch, not committed) unless --force.

Example:
  $ kubeforge alpha update
  $ kubeforge alpha update --from-version ../kubeforge-0.1.0.tgz --output-branch upgrade-kubeforge`,
    )
    .action(async (opts: Record<string, unknown>) => {
      const { runUpdate } = await import('../../scaffolds/update.js');
      await runUpdate(flagValues(ALPHA_UPDATE_FLAGS, opts), ctx);
    });
}
