// `kubeforge alpha ...`: experimental commands, as Kubebuilder's alpha group. The implementation is imported lazily.
import type { Command } from 'commander';
import type { CliContext } from '../context.js';

export function registerAlpha(program: Command, ctx: CliContext): void {
  const alpha = program.command('alpha').description('experimental commands (Kubebuilder: kubebuilder alpha)');
  alpha
    .command('generate')
    .description("re-scaffold a project from its PROJECT file with this kubeforge into a new folder, copying your code over (the upgrade path)")
    .requiredOption('--output-dir <dir>', 'folder for the new project (must not exist, or be empty)')
    .option('--input-dir <dir>', 'the project to re-scaffold', '.')
    .option('--skip-install', 'do not run npm install and manifests in the new project', false)
    .option('--kubeforge-source <source>', 'how the new project depends on kubeforge (as init --kubeforge-source)', 'tarball')
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
    .action(async (opts: { outputDir: string; inputDir?: string; skipInstall?: boolean; kubeforgeSource?: string }) => {
      const { runGenerate } = await import('../../scaffolds/generate.js');
      await runGenerate({ outputDir: opts.outputDir, inputDir: opts.inputDir, skipInstall: Boolean(opts.skipInstall), kubeforgeSource: opts.kubeforgeSource }, ctx);
    });
  alpha
    .command('update')
    .description("upgrade the project's scaffold to this kubeforge: a three-way merge (old scaffold, your project, new scaffold) with git, on a new branch")
    .option('--from-version <version|path>', "the kubeforge that made the project: a version (default: PROJECT's cliVersion; found in .kubeforge/, else with npm) or a path to a kubeforge package folder or .tgz")
    .option('--to-version <version|path>', 'the kubeforge to upgrade to, as --from-version (default: this kubeforge)')
    .option('--from-branch <branch>', 'the branch holding your project (default: the current branch)')
    .option('--output-branch <branch>', 'the branch the result goes on (default: kubeforge-update-from-<from>-to-<to>)')
    .option('--force', 'commit the result even when files have conflicts (markers committed, files listed)', false)
    .option('--in-place', 'write the result into the current work tree instead of a new branch (nothing committed)', false)
    .option('--restore-path <path...>', 'files or folders kept exactly as on your branch, never merged (repeatable)')
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
    .action(
      async (opts: { fromVersion?: string; toVersion?: string; fromBranch?: string; outputBranch?: string; force?: boolean; inPlace?: boolean; restorePath?: string[] }) => {
        const { runUpdate } = await import('../../scaffolds/update.js');
        await runUpdate(
          {
            fromVersion: opts.fromVersion,
            toVersion: opts.toVersion,
            fromBranch: opts.fromBranch,
            outputBranch: opts.outputBranch,
            force: Boolean(opts.force),
            inPlace: Boolean(opts.inPlace),
            restorePath: opts.restorePath,
          },
          ctx,
        );
      },
    );
}
