// `kubeforge create api` and `create webhook`: flags declared here cheaply; the scaffold
// (handlebars, and ts-morph for the manifests step) is imported lazily inside the action.
import type { Command } from 'commander';
import { type CliContext, UsageError } from '../context.js';
import { addFlags, type FlagTable, flagValues } from '../flags.js';

/**
 * Kubebuilder asks "Create Resource [y/n]" and "Create Controller [y/n]" when the flag is not
 * given; so do we, but only on an interactive terminal: scripts and CI get the default (yes).
 */
async function askAll(questions: string[], ctx: CliContext): Promise<boolean[]> {
  const { createInterface } = await import('node:readline');
  const rl = createInterface({ input: process.stdin, terminal: false });
  // The iterator buffers lines typed (or pasted) ahead of the question.
  const lines = rl[Symbol.asyncIterator]();
  const answers: boolean[] = [];
  try {
    for (const question of questions) {
      for (;;) {
        ctx.out(`${question} [y/n]\n`);
        const next = await lines.next();
        if (next.done)
          throw new UsageError(
            `no answer to "${question}"`,
            'pass --resource / --controller (true or false) to run without questions',
          );
        const answer = String(next.value).trim().toLowerCase();
        if (answer === '' || answer === 'y' || answer === 'yes') answers.push(true);
        else if (answer === 'n' || answer === 'no') answers.push(false);
        else {
          ctx.err('please answer y or n\n');
          continue;
        }
        break;
      }
    }
  } finally {
    rl.close();
  }
  return answers;
}

/** --group, --version, --kind and --plural of `create api` and `create webhook`, each described for its command. */
function gvkFlags(describe: { group: string; version: string; plural: string }) {
  return {
    group: { type: 'string', value: '<group>', description: describe.group },
    version: { type: 'string', value: '<version>', description: describe.version },
    kind: { type: 'string', value: '<kind>', description: 'Kind, in PascalCase, e.g. CronJob' },
    plural: { type: 'string', value: '<plural>', description: describe.plural },
  } as const satisfies FlagTable;
}

/** The --external-api-* flags, on `create api` and `create webhook`. */
const EXTERNAL_API_FLAGS = {
  externalApiPath: {
    type: 'string',
    value: '<path>',
    description:
      'for a Kind another project owns (with --resource=false): where its TypeScript type is, a file of the project (src/external/certmanager/v1.ts) or a module specifier inside --external-api-module; anything else (a Go import path) is recorded, and the code uses an untyped KubernetesObject',
  },
  externalApiDomain: {
    type: 'string',
    value: '<domain>',
    description:
      "domain of the external Kind's group (io for cert-manager.io; default: the project's): the RBAC markers and webhook rules name <group>.<domain>",
  },
  externalApiModule: {
    type: 'string',
    value: '<module>',
    description:
      "npm package (name[@version]) the type at --external-api-path comes from: added to package.json's dependencies",
  },
} as const satisfies FlagTable;

/** The flags of `create api`, in the help's order. */
export const CREATE_API_FLAGS = {
  ...gvkFlags({
    group:
      'API group without the domain, e.g. batch or data.storage (a DNS-1123 subdomain; the full group is <group>.<domain>)',
    version: 'API version, e.g. v1, v1beta1, v2alpha3',
    plural:
      'resource name (default: the plural of the Kind, lower-cased, as kubeforge manifests and controller-gen derive it)',
  }),
  namespaced: {
    type: 'bool',
    description: 'namespaced Kind (default true); --namespaced=false or --no-namespaced makes it cluster-scoped',
  },
  resource: {
    type: 'bool',
    description: 'scaffold the API types (default true; asked on a terminal); --resource=false skips them',
  },
  controller: {
    type: 'bool',
    description: 'scaffold the controller (default true; asked on a terminal); --controller=false skips it',
  },
  make: {
    type: 'bool',
    description: 'run kubeforge manifests afterwards, so the CRD exists (default true); --make=false skips it',
  },
  ssa: {
    type: 'bool',
    description:
      "(alpha, as in Kubebuilder) server-side apply: the controller writes the status it owns with client.status().apply as its field manager, merged by the API server; PROJECT records api.ssa. TypeScript needs no generated apply configurations (ApplyConfiguration<T> is the Kind's type made partial)",
  },
  ...EXTERNAL_API_FLAGS,
  fromCrd: {
    type: 'string',
    value: '<file>',
    description:
      "a CRD's YAML file (cert-manager's Certificate, a Crossplane provider's Kind): its schema becomes the types (classes with markers) from which kubeforge manifests writes it back; group, Kind, plural and scope come from it, and each of its versions gets a types file (--version: that one only); no controller unless --controller; with --resource=false the classes go to --external-api-path",
  },
  plugins: {
    type: 'list',
    value: '<plugins...>',
    description:
      'plugins of create api (comma or space separated): deploy-image/v1-alpha (deploy-image.go.kubebuilder.io/v1-alpha), a controller that runs --image in a Deployment',
  },
  image: {
    type: 'string',
    value: '<image>',
    description:
      'deploy-image: the image the controller deploys (required with the plugin), e.g. memcached:1.6.26-alpine3.19',
  },
  imageContainerCommand: {
    type: 'string',
    value: '<command>',
    description:
      'deploy-image: the container command, comma-separated, e.g. "memcached,--memory-limit=64,-o,modern,-v"',
  },
  imageContainerPort: {
    type: 'string',
    value: '<port>',
    description: 'deploy-image: the container port (1-65535); adds spec.containerPort to the Kind',
  },
  runAsUser: {
    type: 'string',
    value: '<uid>',
    description: 'deploy-image: the user id the container runs as (securityContext.runAsUser)',
  },
  controllerName: {
    type: 'string',
    value: '<name>',
    description:
      'name of the controller (DNS-1123 label, e.g. captain-backup): a further controller for the Kind, in <name>_controller.ts with the class <Name>Reconciler (default: the lower-cased Kind)',
  },
  force: {
    type: 'switch',
    default: false,
    description: 'scaffold even if the Kind exists in PROJECT; replace files that differ',
  },
  dryRun: { type: 'switch', default: false, description: 'print the plan (CREATE/UPDATE lines) and write nothing' },
} as const satisfies FlagTable;

/** The flags of `create webhook`, in the help's order. */
export const CREATE_WEBHOOK_FLAGS = {
  ...gvkFlags({
    group: 'API group of the Kind, without the domain (core, apps, batch, ... for a built-in Kind)',
    version: 'API version of the Kind; with --conversion, the hub (the storage version)',
    plural: 'resource name (default: the one PROJECT records for the Kind, else its plural)',
  }),
  defaulting: { type: 'bool', description: 'scaffold a mutating webhook with a CustomDefaulter' },
  programmaticValidation: { type: 'bool', description: 'scaffold a validating webhook with a CustomValidator' },
  conversion: { type: 'bool', description: 'scaffold conversion between the versions of the Kind (needs --spoke)' },
  spoke: {
    type: 'string',
    value: '<versions>',
    description: 'with --conversion: the versions converted to and from the hub, comma-separated (e.g. v2 or v2,v3)',
  },
  defaultingPath: {
    type: 'string',
    value: '<path>',
    description: 'serve the defaulting webhook at this path (default /mutate-<group>-<version>-<kind>)',
  },
  validationPath: {
    type: 'string',
    value: '<path>',
    description: 'serve the validating webhook at this path (default /validate-<group>-<version>-<kind>)',
  },
  ...EXTERNAL_API_FLAGS,
  make: { type: 'bool', description: 'run kubeforge manifests afterwards (default true); --make=false skips it' },
  force: {
    type: 'switch',
    default: false,
    description:
      'scaffold a webhook type PROJECT already records; replace files that differ (code already in the webhook file is kept)',
  },
  dryRun: { type: 'switch', default: false, description: 'print the plan (CREATE/UPDATE lines) and write nothing' },
} as const satisfies FlagTable;

export function registerCreate(program: Command, ctx: CliContext): void {
  const create = program
    .command('create')
    .description('scaffold a new API (Kind) or webhook in the current project')
    .addHelpText(
      'after',
      `
Examples:
  $ kubeforge create api --group batch --version v1 --kind CronJob
  $ kubeforge create webhook --group batch --version v1 --kind CronJob --defaulting --programmatic-validation
  $ kubeforge create webhook --group batch --version v1 --kind CronJob --conversion --spoke v2
  $ kubeforge create webhook --group core --version v1 --kind Pod --defaulting`,
    );

  addFlags(
    create
      .command('api')
      .description('scaffold a Kind: its API types, a controller, samples and roles; then generate its CRD'),
    CREATE_API_FLAGS,
  )
    .addHelpText(
      'after',
      `
Examples:
  $ kubeforge create api --group batch --version v1 --kind CronJob
  $ kubeforge create api --group infra --version v1alpha1 --kind Cluster --namespaced=false
  $ kubeforge create api --group batch --version v2 --kind CronJob --controller=false
  $ kubeforge create api --group batch --version v1 --kind Person --plural persons --dry-run
  $ kubeforge create api --group apps --version v1 --kind Deployment --resource=false   # controller for a built-in Kind
  $ kubeforge create api --group example.com --version v1alpha1 --kind Memcached --plugins deploy-image/v1-alpha \\
      --image memcached:1.6.26-alpine3.19 --image-container-command "memcached,--memory-limit=64,-o,modern,-v" \\
      --image-container-port 11211 --run-as-user 1001          # a controller that deploys the image
  $ kubeforge create api --group batch --version v1 --kind CronJob --resource=false --controller-name cronjob-backup   # a second controller
  $ kubeforge create api --group cert-manager --version v1 --kind Certificate --resource=false \\
      --external-api-path src/external/certmanager/v1.ts --external-api-domain io   # a Kind of another project
  $ kubeforge create webhook --group batch --version v1 --kind CronJob --defaulting   # then its webhooks`,
    )
    .action(async (opts: Record<string, unknown>) => {
      const { runCreateApi } = await import('../../scaffolds/api.js');
      const flags = flagValues(CREATE_API_FLAGS, opts);
      const interactive = Boolean(process.stdin.isTTY && process.stdout.isTTY);
      let { resource, controller } = flags;
      if (interactive && (resource === undefined || controller === undefined)) {
        const asked = [
          resource === undefined && 'Create Resource',
          controller === undefined && 'Create Controller',
        ].filter((q): q is string => q !== false);
        const answers = await askAll(asked, ctx);
        if (resource === undefined) resource = answers.shift();
        if (controller === undefined) controller = answers.shift();
      }
      await runCreateApi({ ...flags, resource, controller }, ctx);
    });

  addFlags(
    create
      .command('webhook')
      .description(
        'scaffold webhooks for a Kind: a defaulter, a validator and/or conversion between its versions; then generate the webhook manifests',
      ),
    CREATE_WEBHOOK_FLAGS,
  )
    .addHelpText(
      'after',
      `
Examples:
  $ kubeforge create webhook --group batch --version v1 --kind CronJob --defaulting --programmatic-validation
  $ kubeforge create webhook --group batch --version v1 --kind CronJob --conversion --spoke v2
  $ kubeforge create webhook --group crew --version v1 --kind Sailor --defaulting --defaulting-path=/custom-mutate-sailor
  $ kubeforge create webhook --group core --version v1 --kind Pod --defaulting            # a built-in Kind
  $ kubeforge create webhook --group apps --version v1 --kind Deployment --programmatic-validation --dry-run
  $ kubeforge create webhook --group cert-manager --version v1 --kind Issuer --defaulting \\
      --external-api-path github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1 --external-api-domain io   # a Kind of another project`,
    )
    .action(async (opts: Record<string, unknown>) => {
      const { runCreateWebhook } = await import('../../scaffolds/webhook.js');
      const flags = flagValues(CREATE_WEBHOOK_FLAGS, opts);
      const spoke = flags.spoke
        ?.split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      await runCreateWebhook({ ...flags, spoke }, ctx);
    });
}
