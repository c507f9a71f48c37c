// `kubeforge init`: flags declared here cheaply; the scaffold (handlebars, execa) is imported in the action.
import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { addFlags, type FlagTable, flagValues } from '../flags.js';

/** The flags of `init`, in the help's order. */
export const INIT_FLAGS = {
  domain: {
    type: 'string',
    value: '<domain>',
    description: 'domain of the API groups, e.g. example.com (required; DNS-1123 subdomain)',
  },
  projectName: {
    type: 'string',
    value: '<name>',
    description: 'project name (DNS-1123 label; default: the folder name)',
  },
  owner: {
    type: 'string',
    value: '<owner>',
    description: 'copyright owner in the license header (default: "The <project> Authors")',
  },
  license: {
    type: 'string',
    value: '<license>',
    choices: ['apache2', 'none'],
    default: 'apache2',
    description: 'license header of the generated files',
  },
  licenseFile: {
    type: 'string',
    value: '<file>',
    description:
      'a file holding the license header instead (one /* ... */ comment; YEAR becomes the current year in each file), copied to hack/boilerplate.ts.txt',
  },
  packageName: {
    type: 'string',
    value: '<name>',
    description: 'npm package name of the project (default: the project name)',
  },
  multigroup: { type: 'switch', default: false, description: 'lay APIs out by group (src/api/<group>/<version>)' },
  namespaced: {
    type: 'switch',
    default: false,
    description:
      'a namespace-scoped manager: it watches only its own namespace (WATCH_NAMESPACE), with a Role and RoleBinding instead of cluster-wide RBAC',
  },
  sharded: {
    type: 'optional',
    value: '<replicas>',
    description:
      'a sharded manager: config/manager/manager.yaml runs <replicas> replicas (default 3) with --shard-ring=<project name> instead of one with --leader-elect, each reconciling its share of the objects',
  },
  plugins: {
    type: 'list',
    value: '<plugins...>',
    description:
      'plugins to add (comma or space separated): grafana (grafana.kubebuilder.io/v1-alpha dashboards); helm/v2-alpha is accepted and its chart made later by edit',
  },
  packageManager: {
    type: 'string',
    value: '<npm|pnpm|yarn|bun>',
    description:
      'the package manager of the project: its Makefile, CI workflows, Dockerfile, lockfile and install step use it; PROJECT records it (default: the one that ran kubeforge, else npm)',
  },
  skipInstall: { type: 'switch', default: false, description: 'do not install the dependencies afterwards' },
  dryRun: { type: 'switch', default: false, description: 'print the plan (CREATE/UPDATE lines) and write nothing' },
  force: { type: 'switch', default: false, description: 'scaffold into a non-empty folder; replace files that differ' },
  kubeforgeSource: {
    type: 'string',
    value: '<source>',
    default: 'tarball',
    description:
      'how the project depends on kubeforge: tarball (pack this kubeforge into .kubeforge/), link (file: its folder), registry, or a .tgz path',
  },
} as const satisfies FlagTable;

export function registerInit(program: Command, ctx: CliContext): void {
  addFlags(
    program.command('init').description('scaffold a new TypeScript operator project in the current folder'),
    INIT_FLAGS,
  )
    .addHelpText(
      'after',
      `
Examples:
  $ mkdir guestbook && cd guestbook
  $ kubeforge init --domain example.com
  $ kubeforge init --domain example.com --project-name guestbook --owner "Example Corp" --dry-run
  $ kubeforge init --domain my-org.io --license none --skip-install
  $ kubeforge init --domain my-org.io --license-file ./header.txt   # e.g. /* Copyright YEAR My Org. */
  $ kubeforge init --domain example.com --namespaced   # manages only the namespace it is deployed to
  $ kubeforge init --domain example.com --sharded=5    # 5 replicas, each reconciling its share of the objects
  $ kubeforge init --domain example.com --package-manager pnpm   # pnpm install, pnpm-lock.yaml, pnpm in CI
  $ kubeforge init --domain example.com --kubeforge-source ../kubeforge-0.1.0.tgz`,
    )
    .action(async (opts: Record<string, unknown>) => {
      const { runInit } = await import('../../scaffolds/init.js');
      await runInit(flagValues(INIT_FLAGS, opts), ctx);
    });
}
