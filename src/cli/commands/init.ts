// `kubeforge init`: flags declared here cheaply; the scaffold (handlebars, execa) is imported in the action.
import { type Command, Option } from 'commander';
import type { CliContext } from '../context.js';

export function registerInit(program: Command, ctx: CliContext): void {
  program
    .command('init')
    .description('scaffold a new TypeScript operator project in the current folder')
    .option('--domain <domain>', 'domain of the API groups, e.g. example.com (required; DNS-1123 subdomain)')
    .option('--project-name <name>', 'project name (DNS-1123 label; default: the folder name)')
    .option('--owner <owner>', 'copyright owner in the license header (default: "The <project> Authors")')
    .addOption(new Option('--license <license>', 'license header of the generated files').choices(['apache2', 'none']).default('apache2'))
    .option('--package-name <name>', 'npm package name of the project (default: the project name)')
    .option('--multigroup', 'lay APIs out by group (src/api/<group>/<version>)', false)
    .option('--namespaced', 'a namespace-scoped manager: it watches only its own namespace (WATCH_NAMESPACE), with a Role and RoleBinding instead of cluster-wide RBAC', false)
    .option('--plugins <plugins...>', 'plugins to add (comma or space separated): grafana (grafana.kubebuilder.io/v1-alpha dashboards); helm/v2-alpha is accepted and its chart made later by edit')
    .option('--skip-install', 'do not run npm install afterwards', false)
    .option('--dry-run', 'print the plan (CREATE/UPDATE lines) and write nothing', false)
    .option('--force', 'scaffold into a non-empty folder; replace files that differ', false)
    .option(
      '--kubeforge-source <source>',
      'how the project depends on kubeforge: tarball (pack this kubeforge into .kubeforge/), link (file: its folder), registry, or a .tgz path',
      'tarball',
    )
    .addHelpText(
      'after',
      `
Examples:
  $ mkdir guestbook && cd guestbook
  $ kubeforge init --domain example.com
  $ kubeforge init --domain example.com --project-name guestbook --owner "Example Corp" --dry-run
  $ kubeforge init --domain my-org.io --license none --skip-install
  $ kubeforge init --domain example.com --namespaced   # manages only the namespace it is deployed to
  $ kubeforge init --domain example.com --kubeforge-source ../kubeforge-0.1.0.tgz`,
    )
    .action(async (opts: Record<string, unknown>) => {
      const { runInit } = await import('../../scaffolds/init.js');
      await runInit(
        {
          domain: opts.domain as string | undefined,
          projectName: opts.projectName as string | undefined,
          owner: opts.owner as string | undefined,
          license: opts.license as string | undefined,
          packageName: opts.packageName as string | undefined,
          multigroup: Boolean(opts.multigroup),
          namespaced: Boolean(opts.namespaced),
          skipInstall: Boolean(opts.skipInstall),
          dryRun: Boolean(opts.dryRun),
          force: Boolean(opts.force),
          kubeforgeSource: opts.kubeforgeSource as string | undefined,
          plugins: opts.plugins as string[] | undefined,
        },
        ctx,
      );
    });
}
