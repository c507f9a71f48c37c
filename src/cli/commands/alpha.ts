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
}
