// `kubeforge create api` and `create webhook`: flags declared here cheaply; the scaffold
// (handlebars, and ts-morph for the manifests step) is imported lazily inside the action.
import { type Command, Option } from 'commander';
import { type CliContext, UsageError } from '../context.js';

/**
 * A Go-style boolean flag: `--resource`, `--resource=false`, `--resource false` and
 * `--no-resource` all work, as Kubebuilder users type them.
 */
function parseBool(flag: string) {
  return (value: string): boolean => {
    const v = value.toLowerCase();
    if (['true', '1', 't', 'yes', 'y'].includes(v)) return true;
    if (['false', '0', 'f', 'no', 'n'].includes(v)) return false;
    throw new UsageError(`invalid value "${value}" for --${flag}: expected true or false`, `e.g. --${flag}=false, or --no-${flag}`);
  };
}

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
        if (next.done) throw new UsageError(`no answer to "${question}"`, 'pass --resource / --controller (true or false) to run without questions');
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

export function boolOption(program: Command, flag: string, description: string): void {
  program.addOption(new Option(`--${flag} [bool]`, description).argParser(parseBool(flag)));
  program.addOption(new Option(`--no-${flag}`).hideHelp());
}

/** The --external-api-* flags, on `create api` and `create webhook`. */
function externalOptions(cmd: Command): void {
  cmd
    .option('--external-api-path <path>', 'for a Kind another project owns (with --resource=false): where its TypeScript type is, a file of the project (src/external/certmanager/v1.ts) or a module specifier inside --external-api-module; anything else (a Go import path) is recorded, and the code uses an untyped KubernetesObject')
    .option('--external-api-domain <domain>', 'domain of the external Kind\'s group (io for cert-manager.io; default: the project\'s): the RBAC markers and webhook rules name <group>.<domain>')
    .option('--external-api-module <module>', 'npm package (name[@version]) the type at --external-api-path comes from: added to package.json\'s dependencies');
}

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

  const api = create
    .command('api')
    .description('scaffold a Kind: its API types, a controller, samples and roles; then generate its CRD')
    .option('--group <group>', 'API group without the domain, e.g. batch or data.storage (a DNS-1123 subdomain; the full group is <group>.<domain>)')
    .option('--version <version>', 'API version, e.g. v1, v1beta1, v2alpha3')
    .option('--kind <kind>', 'Kind, in PascalCase, e.g. CronJob')
    .option('--plural <plural>', 'resource name (default: the plural of the Kind, lower-cased, as kubeforge manifests and controller-gen derive it)');
  boolOption(api, 'namespaced', 'namespaced Kind (default true); --namespaced=false or --no-namespaced makes it cluster-scoped');
  boolOption(api, 'resource', 'scaffold the API types (default true; asked on a terminal); --resource=false skips them');
  boolOption(api, 'controller', 'scaffold the controller (default true; asked on a terminal); --controller=false skips it');
  boolOption(api, 'make', 'run kubeforge manifests afterwards, so the CRD exists (default true); --make=false skips it');
  boolOption(api, 'ssa', "(alpha, as in Kubebuilder) server-side apply: the controller writes the status it owns with client.status().apply as its field manager, merged by the API server; PROJECT records api.ssa. TypeScript needs no generated apply configurations (ApplyConfiguration<T> is the Kind's type made partial)");
  externalOptions(api);
  api
    .option('--plugins <plugins...>', 'plugins of create api (comma or space separated): deploy-image/v1-alpha (deploy-image.go.kubebuilder.io/v1-alpha), a controller that runs --image in a Deployment')
    .option('--image <image>', 'deploy-image: the image the controller deploys (required with the plugin), e.g. memcached:1.6.26-alpine3.19')
    .option('--image-container-command <command>', 'deploy-image: the container command, comma-separated, e.g. "memcached,--memory-limit=64,-o,modern,-v"')
    .option('--image-container-port <port>', 'deploy-image: the container port (1-65535); adds spec.containerPort to the Kind')
    .option('--run-as-user <uid>', "deploy-image: the user id the container runs as (securityContext.runAsUser)")
    .option('--controller-name <name>', 'name of the controller (DNS-1123 label, e.g. captain-backup): a further controller for the Kind, in <name>_controller.ts with the class <Name>Reconciler (default: the lower-cased Kind)')
    .option('--force', 'scaffold even if the Kind exists in PROJECT; replace files that differ', false)
    .option('--dry-run', 'print the plan (CREATE/UPDATE lines) and write nothing', false)
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
      // --no-x sets x to false; --x without a value sets it to true.
      const bool = (v: unknown) => (v === undefined ? undefined : v !== false);
      const interactive = Boolean(process.stdin.isTTY && process.stdout.isTTY);
      let resource = bool(opts.resource);
      let controller = bool(opts.controller);
      if (interactive && (resource === undefined || controller === undefined)) {
        const asked = [resource === undefined && 'Create Resource', controller === undefined && 'Create Controller'].filter((q): q is string => q !== false);
        const answers = await askAll(asked, ctx);
        if (resource === undefined) resource = answers.shift();
        if (controller === undefined) controller = answers.shift();
      }
      await runCreateApi(
        {
          group: opts.group as string | undefined,
          version: opts.version as string | undefined,
          kind: opts.kind as string | undefined,
          plural: opts.plural as string | undefined,
          namespaced: bool(opts.namespaced),
          resource,
          controller,
          force: Boolean(opts.force),
          dryRun: Boolean(opts.dryRun),
          make: bool(opts.make),
          ssa: bool(opts.ssa),
          plugins: opts.plugins as string[] | undefined,
          image: opts.image as string | undefined,
          imageContainerCommand: opts.imageContainerCommand as string | undefined,
          imageContainerPort: opts.imageContainerPort as string | undefined,
          runAsUser: opts.runAsUser as string | undefined,
          controllerName: opts.controllerName as string | undefined,
          externalApiPath: opts.externalApiPath as string | undefined,
          externalApiDomain: opts.externalApiDomain as string | undefined,
          externalApiModule: opts.externalApiModule as string | undefined,
        },
        ctx,
      );
    });

  const webhook = create
    .command('webhook')
    .description('scaffold webhooks for a Kind: a defaulter, a validator and/or conversion between its versions; then generate the webhook manifests')
    .option('--group <group>', 'API group of the Kind, without the domain (core, apps, batch, ... for a built-in Kind)')
    .option('--version <version>', 'API version of the Kind; with --conversion, the hub (the storage version)')
    .option('--kind <kind>', 'Kind, in PascalCase, e.g. CronJob')
    .option('--plural <plural>', 'resource name (default: the one PROJECT records for the Kind, else its plural)');
  boolOption(webhook, 'defaulting', 'scaffold a mutating webhook with a CustomDefaulter');
  boolOption(webhook, 'programmatic-validation', 'scaffold a validating webhook with a CustomValidator');
  boolOption(webhook, 'conversion', 'scaffold conversion between the versions of the Kind (needs --spoke)');
  webhook
    .option('--spoke <versions>', 'with --conversion: the versions converted to and from the hub, comma-separated (e.g. v2 or v2,v3)')
    .option('--defaulting-path <path>', 'serve the defaulting webhook at this path (default /mutate-<group>-<version>-<kind>)')
    .option('--validation-path <path>', 'serve the validating webhook at this path (default /validate-<group>-<version>-<kind>)');
  externalOptions(webhook);
  boolOption(webhook, 'make', 'run kubeforge manifests afterwards (default true); --make=false skips it');
  webhook
    .option('--force', 'scaffold a webhook type PROJECT already records; replace files that differ (code already in the webhook file is kept)', false)
    .option('--dry-run', 'print the plan (CREATE/UPDATE lines) and write nothing', false)
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
      const bool = (v: unknown) => (v === undefined ? undefined : v !== false);
      const spoke = typeof opts.spoke === 'string' ? opts.spoke.split(',').map((s) => s.trim()).filter(Boolean) : undefined;
      await runCreateWebhook(
        {
          group: opts.group as string | undefined,
          version: opts.version as string | undefined,
          kind: opts.kind as string | undefined,
          plural: opts.plural as string | undefined,
          defaulting: bool(opts.defaulting),
          programmaticValidation: bool(opts.programmaticValidation),
          conversion: bool(opts.conversion),
          spoke,
          defaultingPath: opts.defaultingPath as string | undefined,
          validationPath: opts.validationPath as string | undefined,
          externalApiPath: opts.externalApiPath as string | undefined,
          externalApiDomain: opts.externalApiDomain as string | undefined,
          externalApiModule: opts.externalApiModule as string | undefined,
          force: Boolean(opts.force),
          dryRun: Boolean(opts.dryRun),
          make: bool(opts.make),
        },
        ctx,
      );
    });
}
