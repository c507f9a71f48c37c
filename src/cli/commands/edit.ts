// `kubeforge edit`: flags declared here cheaply; the scaffold is imported lazily inside the action.
import { type Command, Option } from 'commander';
import type { CliContext } from '../context.js';
import { boolOption } from './create.js';

export function registerEdit(program: Command, ctx: CliContext): void {
  const edit = program
    .command('edit')
    .description("change a project after init: its layout, license header or plugins (PROJECT records them)")
    .addOption(new Option('--license <license>', 'license header of the files scaffolded from now on (hack/boilerplate.ts.txt)').choices(['apache2', 'none']))
    .option('--owner <owner>', 'copyright owner in the license header')
    .option('--plugins <plugins...>', 'plugins to add (comma or space separated): grafana (grafana.kubebuilder.io/v1-alpha); run again to regenerate their files')
    .option('--dry-run', 'print the plan (CREATE/UPDATE/DELETE lines) and write nothing', false)
    .option('--force', 'replace scaffolded files of a plugin that differ', false);
  boolOption(edit, 'multigroup', 'lay new APIs out by group (src/api/<group>/<version>); --multigroup=false switches back');
  edit
    .addHelpText(
      'after',
      `
Existing APIs are not moved by --multigroup: the command says what to move, as Kubebuilder does.

Examples:
  $ kubeforge edit --multigroup
  $ kubeforge edit --multigroup=false
  $ kubeforge edit --license apache2 --owner "Example Corp"
  $ kubeforge edit --plugins grafana          # grafana/ dashboards; again after editing grafana/custom-metrics/config.yaml`,
    )
    .action(async (opts: Record<string, unknown>) => {
      const { runEdit } = await import('../../scaffolds/edit.js');
      await runEdit(
        {
          multigroup: opts.multigroup as boolean | undefined,
          license: opts.license as string | undefined,
          owner: opts.owner as string | undefined,
          plugins: opts.plugins as string[] | undefined,
          dryRun: Boolean(opts.dryRun),
          force: Boolean(opts.force),
        },
        ctx,
      );
    });
}
