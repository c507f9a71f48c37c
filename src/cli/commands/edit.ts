// `kubeforge edit`: flags declared here cheaply; the scaffold is imported lazily inside the action.
import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { addFlags, type FlagTable, flagValues } from '../flags.js';

/** The flags of `edit`, in the help's order. */
export const EDIT_FLAGS = {
  license: {
    type: 'string',
    value: '<license>',
    choices: ['apache2', 'none'],
    description: 'license header of the files scaffolded from now on (hack/boilerplate.ts.txt)',
  },
  owner: { type: 'string', value: '<owner>', description: 'copyright owner in the license header' },
  licenseFile: {
    type: 'string',
    value: '<file>',
    description:
      'a file holding the license header of the files scaffolded from now on (one /* ... */ comment; YEAR becomes the year), copied to hack/boilerplate.ts.txt',
  },
  plugins: {
    type: 'list',
    value: '<plugins...>',
    description:
      'plugins to add (comma or space separated): grafana (grafana.kubebuilder.io/v1-alpha), helm/v2-alpha (helm.kubebuilder.io/v2-alpha); run again to regenerate their files',
  },
  manifests: {
    type: 'string',
    value: '<file>',
    description:
      'helm/v2-alpha: make the chart from this kustomize output (e.g. dist/install.yaml) instead of `kubectl kustomize config/default`',
  },
  outputDir: {
    type: 'string',
    value: '<dir>',
    description: 'helm/v2-alpha: write the chart to <dir>/chart (default dist, or the folder PROJECT recorded)',
  },
  dryRun: {
    type: 'switch',
    default: false,
    description: 'print the plan (CREATE/UPDATE/DELETE lines) and write nothing',
  },
  force: {
    type: 'switch',
    default: false,
    description:
      "replace scaffolded files that differ: a plugin's, or (--namespaced, --sharded) files whose changes collide with the switch",
  },
  multigroup: {
    type: 'bool',
    description: 'lay new APIs out by group (src/api/<group>/<version>); --multigroup=false switches back',
  },
  namespaced: {
    type: 'bool',
    description:
      'make the manager namespace-scoped (only its own namespace; Role and RoleBinding); --namespaced=false makes it cluster-scoped again',
  },
  sharded: {
    type: 'optional',
    value: '<replicas>',
    description:
      'shard the manager: config/manager/manager.yaml runs <replicas> replicas (default 3, or what PROJECT records) with --shard-ring=<project name>; --sharded=false goes back to one leader-elected replica',
  },
  make: {
    type: 'bool',
    description:
      'after --namespaced, run kubeforge manifests so config/rbac/role.yaml follows the scope (default true); --make=false skips it',
  },
} as const satisfies FlagTable;

export function registerEdit(program: Command, ctx: CliContext): void {
  const edit = addFlags(
    program
      .command('edit')
      .description(
        "change a project after init: its layout, the manager's scope or sharding, license header or plugins (PROJECT records them)",
      ),
    EDIT_FLAGS,
  );
  edit
    .addHelpText(
      'after',
      `
Existing APIs are not moved by --multigroup: the command says what to move, as Kubebuilder does.
--namespaced switches src/main.ts, config/manager/manager.yaml, config/rbac (role_binding.yaml,
each Kind's roles, role.yaml through kubeforge manifests), README.md and AGENTS.md, keeping your own
changes in them; a file whose changes collide with the switch is an error unless --force.
--sharded switches config/manager/manager.yaml (replicas, --shard-ring or --leader-elect) the same way.

Examples:
  $ kubeforge edit --multigroup
  $ kubeforge edit --multigroup=false
  $ kubeforge edit --namespaced               # watch and manage only the manager's own namespace
  $ kubeforge edit --namespaced=false         # back to every namespace
  $ kubeforge edit --sharded=5                # 5 replicas, each reconciling its share of the objects
  $ kubeforge edit --sharded=false            # back to one leader-elected replica
  $ kubeforge edit --license apache2 --owner "Example Corp"
  $ kubeforge edit --plugins grafana          # grafana/ dashboards; again after editing grafana/custom-metrics/config.yaml
  $ kubeforge edit --plugins helm/v2-alpha     # dist/chart from config/default (kubectl kustomize); again after changing config/`,
    )
    .action(async (opts: Record<string, unknown>) => {
      const { runEdit } = await import('../../scaffolds/edit.js');
      await runEdit(flagValues(EDIT_FLAGS, opts), ctx);
    });
}
