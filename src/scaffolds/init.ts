/**
 * `kubeforge init`: a complete TypeScript operator project. Validates the flags, computes
 * every file in a virtual tree, then prints the plan (--dry-run) or commits it in one go and
 * runs `npm install` (unless --skip-install). Any problem stops it before the first write.
 */
import type { ScaffoldEnvironment } from './environment.js';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { DiagnosticError, type Diagnostic, error } from '../diagnostics/index.js';
import {
  KUBEFORGE_LAYOUT,
  newProjectConfig,
  ProjectFile,
  PROJECT_FILE,
  type ProjectConfig,
  serializeProject,
  validateDns1123Label,
  validateDns1123Subdomain,
  validateNpmPackageName,
  withoutPlugin,
  withPlugin,
} from '../project/index.js';
import {
  applySpecs,
  type Change,
  DiskHost,
  type FileSpec,
  type Host,
  formatPlan,
  hasManagedHeader,
  insertAtMarkers,
  InterruptedError,
  LOCK_FILE,
  runCommand,
  TemplateRenderer,
  Tree,
} from '../machinery/index.js';
import { packageRoot, packageVersion } from '../util/package-root.js';
import { HELM_PLUGIN } from '../manifests/helm.js';
import { AUTOUPDATE_PLUGIN, autoUpdateFiles } from './autoupdate.js';
import { CUSTOM_METRICS_CONFIG, GRAFANA_PLUGIN, grafanaFiles } from './grafana.js';
import { resolvePlugins } from './plugins.js';
import { DEFAULT_SHARD_REPLICAS, parseSharded, SHARDING_PLUGIN } from './sharding.js';
import { isKubeforgeTarball, resolveKubeforgeSource, TARBALL_DIR } from './kubeforge-source.js';
import { CLI_INTEGRITY_KEY, ownIntegrity } from './cli-integrity.js';
import { BOILERPLATE_FILE, headerFromBoilerplate } from './paths.js';
import { lockRoot, warnReplaced } from './manifests-step.js';
import {
  type PackageManager,
  packageManager,
  recordedPackageManager,
  resolvePackageManager,
} from './package-manager.js';
import { PACKAGE_MANAGER_PLUGIN } from '../project/plugins.js';

export { BOILERPLATE_FILE };

export interface InitOptions {
  domain?: string;
  projectName?: string;
  owner?: string;
  license?: string;
  /**
   * A file holding the license header of the generated files (a block comment; `YEAR` becomes the
   * year in each header), copied to hack/boilerplate.ts.txt; instead of --license and --owner.
   */
  licenseFile?: string;
  /** The header text itself, as --license-file would read it: how edit and alpha generate replay a project's own header. */
  licenseText?: string;
  packageName?: string;
  multigroup?: boolean;
  /** A namespace-scoped manager (PROJECT `namespaced: true`): Role + RoleBinding, WATCH_NAMESPACE. */
  namespaced?: boolean;
  /**
   * A sharded manager: config/manager/manager.yaml runs this many replicas (true: 3) with
   * `--shard-ring=<projectName>` instead of one with `--leader-elect`; PROJECT records it. The
   * text of `--sharded=<value>` is accepted too (a positive integer, true or false; else KF1082).
   */
  sharded?: boolean | number | string;
  skipInstall?: boolean;
  dryRun?: boolean;
  force?: boolean;
  /** tarball (default) | link | registry | path of a .tgz */
  kubeforgeSource?: string;
  /** Plugins to add (`grafana`). */
  plugins?: string[];
  /** npm | pnpm | yarn | bun (KF1008 otherwise); default: the one that ran kubeforge (npm_config_user_agent), else npm. */
  packageManager?: string;
}

export interface InitEnvironment extends ScaffoldEnvironment {
  /** Runs `npm install` in the new project; default: npm through execa. */
  install?: (dir: string, env: InitEnvironment) => Promise<void>;
}

export interface InitResult {
  changes: Change[];
  plan: string;
  installed: boolean;
}

export const LICENSES = ['apache2', 'none'] as const;

/** Versions the generated package.json asks for (the registry provides them). */
export const GENERATED_VERSIONS = {
  /**
   * Biome, run with `npx --yes @biomejs/biome@<this>` as Kubebuilder's Makefile downloads
   * golangci-lint at a pinned version: not a devDependency, so package-lock.json does not hold its
   * per-platform binaries (a lock written on one platform then fails `npm ci` in the image build
   * where the registry lacks the others). Exact: the formatter's output may change between releases.
   */
  biome: '2.6.8',
  c8: '^12.0.0',
  clientNode: '1.4.0',
  typesNode: '^20.19.0',
  esbuild: '^0.28.0',
  typescript: '^7.0.2',
  /**
   * src/tracing.ts: the OpenTelemetry API (the range kubeforge depends on, so both share one global
   * provider) and the trace SDK with its OTLP/HTTP exporter, loaded only when OTEL_EXPORTER_OTLP_ENDPOINT
   * is set. The versions kubeforge's own tracing tests and bench run with (test/scaffolds/tracing-main.test.ts
   * holds them equal to package.json). The SDK's 2.x line: 3.x declares Node.js 22.15 (yarn 1 refuses to
   * install it on Node.js 20, which projects support) and needs API 1.10, which 2.x refuses as a peer;
   * hence API 1.9.
   */
  otelApi: '~1.9.0',
  otelSdk: '^2.12.1',
  otelExporter: '^0.223.1',
};

/** Entries a folder may hold and still count as empty. */
const IGNORED_ENTRIES = new Set(['.git', '.DS_Store', '.idea', '.vscode']);

/** [path in the project, template under templates/init/] for every scaffolded text file. */
const INIT_FILES: ReadonlyArray<readonly [string, string]> = [
  ['.dockerignore', 'dockerignore.hbs'],
  ['.gitignore', 'gitignore.hbs'],
  ['AGENTS.md', 'AGENTS.md.hbs'],
  ['biome.json', 'biome.json.hbs'],
  ['Dockerfile', 'Dockerfile.hbs'],
  ['Makefile', 'Makefile.hbs'],
  ['README.md', 'README.md.hbs'],
  ['package.json', 'package.json.hbs'],
  ['tsconfig.json', 'tsconfig.json.hbs'],
  ['hack/set-image.mjs', 'hack/set-image.mjs.hbs'],
  ['test/e2e/manager.e2e.ts', 'test/e2e/manager.e2e.ts.hbs'],
  ['.devcontainer/devcontainer.json', 'devcontainer/devcontainer.json.hbs'],
  ['.devcontainer/post-create.sh', 'devcontainer/post-create.sh.hbs'],
  ['.github/workflows/test.yml', 'github/workflows/test.yml.hbs'],
  ['.github/workflows/lint.yml', 'github/workflows/lint.yml.hbs'],
  ['.github/workflows/test-e2e.yml', 'github/workflows/test-e2e.yml.hbs'],
  ['src/main.ts', 'src/main.ts.hbs'],
  ['src/tracing.ts', 'src/tracing.ts.hbs'],
  ['test/suite.test.ts', 'test/suite.test.ts.hbs'],
  ['config/default/kustomization.yaml', 'config/default/kustomization.yaml.hbs'],
  ['config/default/manager_metrics_patch.yaml', 'config/default/manager_metrics_patch.yaml.hbs'],
  ['config/default/metrics_service.yaml', 'config/default/metrics_service.yaml.hbs'],
  ['config/default/cert_metrics_manager_patch.yaml', 'config/default/cert_metrics_manager_patch.yaml.hbs'],
  ['config/default/manager_webhook_patch.yaml', 'config/default/manager_webhook_patch.yaml.hbs'],
  ['config/default/manager_tracing_patch.yaml', 'config/default/manager_tracing_patch.yaml.hbs'],
  ['config/manager/kustomization.yaml', 'config/manager/kustomization.yaml.hbs'],
  ['config/manager/manager.yaml', 'config/manager/manager.yaml.hbs'],
  ['config/rbac/kustomization.yaml', 'config/rbac/kustomization.yaml.hbs'],
  ['config/rbac/service_account.yaml', 'config/rbac/service_account.yaml.hbs'],
  ['config/rbac/role.yaml', 'config/rbac/role.yaml.hbs'],
  ['config/rbac/role_binding.yaml', 'config/rbac/role_binding.yaml.hbs'],
  ['config/rbac/leader_election_role.yaml', 'config/rbac/leader_election_role.yaml.hbs'],
  ['config/rbac/leader_election_role_binding.yaml', 'config/rbac/leader_election_role_binding.yaml.hbs'],
  ['config/rbac/metrics_auth_role.yaml', 'config/rbac/metrics_auth_role.yaml.hbs'],
  ['config/rbac/metrics_auth_role_binding.yaml', 'config/rbac/metrics_auth_role_binding.yaml.hbs'],
  ['config/rbac/metrics_reader_role.yaml', 'config/rbac/metrics_reader_role.yaml.hbs'],
  ['config/prometheus/kustomization.yaml', 'config/prometheus/kustomization.yaml.hbs'],
  ['config/prometheus/monitor.yaml', 'config/prometheus/monitor.yaml.hbs'],
  ['config/prometheus/monitor_tls_patch.yaml', 'config/prometheus/monitor_tls_patch.yaml.hbs'],
  ['config/network-policy/kustomization.yaml', 'config/network-policy/kustomization.yaml.hbs'],
  ['config/network-policy/allow-metrics-traffic.yaml', 'config/network-policy/allow-metrics-traffic.yaml.hbs'],
  ['config/network-policy/allow-webhook-traffic.yaml', 'config/network-policy/allow-webhook-traffic.yaml.hbs'],
  ['config/certmanager/kustomization.yaml', 'config/certmanager/kustomization.yaml.hbs'],
  ['config/certmanager/kustomizeconfig.yaml', 'config/certmanager/kustomizeconfig.yaml.hbs'],
  ['config/certmanager/issuer.yaml', 'config/certmanager/issuer.yaml.hbs'],
  ['config/certmanager/certificate-webhook.yaml', 'config/certmanager/certificate-webhook.yaml.hbs'],
  ['config/certmanager/certificate-metrics.yaml', 'config/certmanager/certificate-metrics.yaml.hbs'],
  ['config/webhook/kustomization.yaml', 'config/webhook/kustomization.yaml.hbs'],
  ['config/webhook/kustomizeconfig.yaml', 'config/webhook/kustomizeconfig.yaml.hbs'],
  ['config/webhook/service.yaml', 'config/webhook/service.yaml.hbs'],
];

/** The paths of the text files init scaffolds (its templates). */
export function initFilePaths(): string[] {
  return INIT_FILES.map(([path]) => path);
}

const MAIN_FILE = 'src/main.ts';
/** Seeded by init; regenerated by `kubeforge manifests` (its header says so) from then on. */
const ROLE_FILE = 'config/rbac/role.yaml';

/** `--license` and `--owner` as `init` and `edit` take them (KF1004, KF1005). */
export function checkLicenseAndOwner(license: string | undefined, owner: string | undefined): Diagnostic[] {
  const problems: Diagnostic[] = [];
  if (license !== undefined && !(LICENSES as readonly string[]).includes(license)) {
    problems.push(
      error('KF1004', `invalid --license "${license}": must be one of ${LICENSES.join(', ')}`, {
        hint: 'pass --license apache2 or --license none',
      }),
    );
  }
  if (owner !== undefined && /[\r\n]/.test(owner)) {
    problems.push(
      error('KF1005', 'invalid --owner: must be a single line', { hint: 'e.g. --owner "The Example Authors"' }),
    );
  }
  return problems;
}

/**
 * `--license-file`: the header text it holds (KF1006 when it cannot be read, is not one block
 * comment, or comes with `--license none` or `--owner`). A relative path is the working folder's.
 * An empty file is taken, as Kubebuilder takes it (the files then get no header).
 */
export function readLicenseFile(
  file: string,
  cwd: string,
  others: { license?: string; owner?: string },
): { text: string } | { problem: Diagnostic } {
  const flag = `--license-file ${file}`;
  const fail = (message: string, hint: string) => ({ problem: error('KF1006', `${flag}: ${message}`, { hint }) });
  if (others.license === 'none')
    return fail('and --license none: one says no header, the other a header', 'pass one of them');
  if (others.owner !== undefined)
    return fail(
      'and --owner: the file holds the whole header, owner included',
      'write the owner into the file, and leave out --owner',
    );
  let text: string;
  try {
    text = readFileSync(resolve(cwd, file.trim()), 'utf8');
  } catch (e) {
    return fail(
      `cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
      'name a readable text file holding the header',
    );
  }
  const body = text.trim();
  if (body === '') return { text: '' };
  const end = body.indexOf('*/');
  if (!body.startsWith('/*') || end !== body.length - 2)
    return fail(
      'is not one block comment: the header must start with /* and end with the only */ (text after it would be code in every file)',
      'wrap the header in /* ... */',
    );
  return { text: `${text.replace(/\r\n/g, '\n').replace(/^\n+/, '').replace(/\n*$/, '\n')}` };
}

/**
 * The init options that scaffold `boilerplate` (hack/boilerplate.ts.txt) again: none without one,
 * `--license apache2 --owner` for kubeforge's Apache header, else the text itself (a header of
 * the user's, from --license-file or edited).
 */
export function replayLicense(boilerplate: string | undefined): Pick<InitOptions, 'license' | 'owner' | 'licenseText'> {
  if (boilerplate === undefined) return { license: 'none' };
  const owner = ownerOfBoilerplate(boilerplate);
  if (owner !== undefined && /Licensed under the Apache License, Version 2\.0/.test(boilerplate))
    return { license: 'apache2', owner };
  return { licenseText: boilerplate };
}

/** The Apache 2.0 header naming `owner`, as hack/boilerplate.ts.txt holds it (one trailing newline). */
export async function renderLicenseHeader(renderer: TemplateRenderer, owner: string): Promise<string> {
  return `${await renderer.render('init/boilerplate.hbs', { owner: blockCommentText(owner) })}`.replace(/\n*$/, '\n');
}

/** The owner a boilerplate names ("Copyright <owner>."), undone from {@link blockCommentText}. */
export function ownerOfBoilerplate(text: string | undefined): string | undefined {
  return /^Copyright (.*)\.$/m.exec(text ?? '')?.[1].replace(/\*\\\//g, '*/');
}

/**
 * Text for the inside of a block comment: a star followed by a slash in user text (an --owner
 * such as "A *" + "/ B") would end the comment and turn the rest into code; a backslash between
 * the two keeps it text.
 */
export function blockCommentText(text: string): string {
  return text.replace(/\*\//g, '*\\/');
}

/** What every template of init sees. */
export interface InitTemplateData {
  projectName: string;
  domain: string;
  packageName: string;
  owner: string;
  /** package.json's license: Apache-2.0, or UNLICENSED with --license none. */
  licenseSpdx: string;
  licenseApache: boolean;
  /** The license header of generated TypeScript files, or ''. */
  licenseHeader: string;
  leaderElectionId: string;
  /** package.json's kubeforge dependency (see --kubeforge-source). */
  kubeforgeDependency: string;
  hasTarball: boolean;
  multigroup: boolean;
  namespaced: boolean;
  /** `--sharded`: manager.yaml runs {@link shardReplicas} replicas with --shard-ring. */
  sharded: boolean;
  shardReplicas: number;
  versions: typeof GENERATED_VERSIONS;
  /** The package manager's commands and lockfile (package-manager.ts). */
  pm: PackageManager;
}

interface ValidInit {
  domain: string;
  projectName: string;
  packageName: string;
  owner: string;
  license: (typeof LICENSES)[number];
  /** `--license-file`'s text (hack/boilerplate.ts.txt as it is written); undefined without the flag. */
  customHeader?: string;
  /** Replicas of a sharded manager; undefined when it is not sharded. */
  shardReplicas?: number;
}

/** Checks every flag and collects every problem before failing. */
export function validateInitOptions(options: InitOptions, folder: string): ValidInit {
  const problems: Diagnostic[] = [];
  const domain = options.domain;
  if (domain === undefined || domain === '') {
    problems.push(
      error('KF1000', 'missing --domain: the domain of the API groups (group.domain)', {
        hint: 'pass --domain, e.g. --domain example.com',
      }),
    );
  } else {
    const d = validateDns1123Subdomain(domain, 'domain', '--domain');
    if (d) problems.push(d);
  }
  const projectName = options.projectName ?? basename(folder);
  const p = validateDns1123Label(projectName, 'project name', '--project-name');
  if (p) {
    if (options.projectName === undefined) {
      p.message = `the folder name "${projectName}" cannot be the project name: ${p.message.replace(/^invalid project name "[^"]*": /, '')}`;
      p.hint = `pass --project-name with a DNS-1123 label such as "my-operator"`;
    }
    problems.push(p);
  }
  const packageName = options.packageName ?? projectName;
  if (!p || options.packageName !== undefined) {
    const n = validateNpmPackageName(packageName);
    if (n) problems.push(n);
  }
  const license = (options.license ?? 'apache2') as ValidInit['license'];
  problems.push(...checkLicenseAndOwner(options.license, options.owner));
  const sharded = parseSharded(options.sharded, 'init');
  if (sharded.problem) problems.push(sharded.problem);
  let customHeader = options.licenseText;
  if (options.licenseFile !== undefined) {
    const read = readLicenseFile(options.licenseFile, folder, options);
    if ('problem' in read) problems.push(read.problem);
    else customHeader = read.text;
  }
  if (problems.length) throw new DiagnosticError(problems);
  if (domain === undefined) throw new Error('init: --domain unset after its check');
  return {
    domain,
    projectName,
    packageName,
    owner: options.owner ?? `The ${projectName} Authors`,
    license,
    customHeader,
    shardReplicas: sharded.request ? (sharded.request.replicas ?? DEFAULT_SHARD_REPLICAS) : undefined,
  };
}

/** What planInit computes: the tree, and what it tells the user. */
export interface InitPlan {
  tree: Tree;
  changes: Change[];
  hasTarball: boolean;
  /** Files of the user's that --force replaces. */
  replaced: string[];
  warnings: string[];
  /** The package manager the project uses. */
  pm: PackageManager;
}

/**
 * An initialised project, or a folder with other files, needs --force (KF1002, KF1003); with
 * --force, the PROJECT already there, whose resources and plugins init keeps.
 */
function checkInitFolder(options: InitOptions, env: InitEnvironment, host: Host): ProjectConfig | undefined {
  // An initialised project, or a folder with other files, needs --force.
  let existing: ProjectConfig | undefined;
  const problems: Diagnostic[] = [];
  if (host.kind(PROJECT_FILE) !== undefined) {
    if (!options.force) {
      problems.push(
        error(
          'KF1002',
          `${join(env.cwd, PROJECT_FILE)} exists: this folder already holds a kubeforge (or Kubebuilder) project`,
          {
            hint: 'run init in an empty folder; pass --force to scaffold over it (files that differ are then replaced)',
          },
        ),
      );
    } else {
      const text = host.read(PROJECT_FILE)?.toString('utf8');
      if (text !== undefined) existing = ProjectFile.parse(text, join(env.cwd, PROJECT_FILE)).config;
    }
  } else if (!options.force) {
    // `.kubeforge/` holding only the lock of this very command does not count.
    const onlyLock = (e: string) => e === '.kubeforge' && host.list(e).every((n) => `${e}/${n}` === LOCK_FILE);
    const entries = host.list('').filter((e) => !IGNORED_ENTRIES.has(e) && !onlyLock(e));
    if (entries.length) {
      const shown = entries.slice(0, 5).join(', ') + (entries.length > 5 ? `, and ${entries.length - 5} more` : '');
      problems.push(
        error('KF1003', `${env.cwd} is not empty (${shown})`, {
          hint: 'run init in an empty folder, or pass --force to scaffold next to these files (with --force, files that differ are replaced)',
        }),
      );
    }
  }
  if (problems.length) throw new DiagnosticError(problems);
  return existing;
}

/** Computes init's virtual tree without writing anything. */
export async function planInit(options: InitOptions, env: InitEnvironment): Promise<InitPlan> {
  const valid = validateInitOptions(options, env.cwd);
  const pmName = resolvePackageManager(options.packageManager);
  const host = env.host ?? new DiskHost(env.cwd);
  const existing = checkInitFolder(options, env, host);

  const kubeforgeDir = env.kubeforgeDir ?? packageRoot();
  const source = resolveKubeforgeSource(options.kubeforgeSource, {
    kubeforge: new DiskHost(kubeforgeDir),
    kubeforgeDir,
    openHost: (dir) => new DiskHost(dir),
    cwd: env.cwd,
  });

  const renderer = new TemplateRenderer(new DiskHost(join(kubeforgeDir, 'templates')));
  const boilerplate =
    valid.customHeader ?? (valid.license === 'apache2' ? await renderLicenseHeader(renderer, valid.owner) : undefined);
  const licenseHeader = headerFromBoilerplate(boilerplate);
  // A header of the user's own: package.json says nothing of the license (npm's UNLICENSED), the README neither.
  const apache = valid.license === 'apache2' && valid.customHeader === undefined;
  const data: InitTemplateData = {
    projectName: valid.projectName,
    domain: valid.domain,
    packageName: valid.packageName,
    owner: valid.owner,
    licenseSpdx: apache ? 'Apache-2.0' : 'UNLICENSED',
    licenseApache: apache,
    licenseHeader,
    leaderElectionId: `${createHash('sha256').update(`${valid.domain}/${valid.projectName}`).digest('hex').slice(0, 8)}.${valid.domain}`,
    kubeforgeDependency: source.dependency,
    hasTarball: source.tarball !== undefined,
    multigroup: options.multigroup ?? false,
    namespaced: options.namespaced ?? false,
    sharded: valid.shardReplicas !== undefined,
    shardReplicas: valid.shardReplicas ?? 1,
    versions: GENERATED_VERSIONS,
    pm: packageManager(pmName),
  };

  const config = newProjectConfig({
    domain: valid.domain,
    projectName: valid.projectName,
    repo: valid.packageName,
    multigroup: options.multigroup,
    namespaced: options.namespaced,
  });
  config.resources = existing?.resources ?? [];
  if (existing?.extra) config.extra = existing.extra;
  // Kubebuilder's cliVersion: the kubeforge that scaffolded the project, which `alpha update` upgrades from.
  config.extra = { ...config.extra, cliVersion: packageVersion() };
  // And what makes it verifiable when alpha update fetches it from a registry (cli-integrity.ts):
  // recorded when npm installed this kubeforge; never one of another version left from before.
  const integrity = ownIntegrity(kubeforgeDir, packageVersion());
  if (integrity) config.extra[CLI_INTEGRITY_KEY] = integrity;
  else delete config.extra[CLI_INTEGRITY_KEY];
  const plugins = resolvePlugins(options.plugins, KUBEFORGE_LAYOUT);
  if (plugins.includes(GRAFANA_PLUGIN)) config.extra = withPlugin(config, GRAFANA_PLUGIN);
  if (plugins.includes(AUTOUPDATE_PLUGIN)) config.extra = withPlugin(config, AUTOUPDATE_PLUGIN);
  // As `namespaced`: what this init is asked for, whatever a PROJECT it runs over (--force) recorded.
  config.extra =
    valid.shardReplicas === undefined
      ? withoutPlugin(config, SHARDING_PLUGIN)
      : withPlugin(config, SHARDING_PLUGIN, { replicas: valid.shardReplicas });
  config.extra =
    pmName === 'npm'
      ? withoutPlugin(config, PACKAGE_MANAGER_PLUGIN)
      : withPlugin(config, PACKAGE_MANAGER_PLUGIN, { name: pmName });
  const specs: FileSpec[] = [
    { path: PROJECT_FILE, policy: 'managed', header: false, content: serializeProject(config) },
    ...INIT_FILES.filter(
      ([path]) => !(path === ROLE_FILE && hasManagedHeader(host, ROLE_FILE, 'kubeforge manifests')),
    ).map(([path, template]): FileSpec => ({ path, policy: 'scaffolded', template: `init/${template}` })),
  ];
  if (boilerplate !== undefined) specs.push({ path: BOILERPLATE_FILE, policy: 'scaffolded', content: boilerplate });
  // pnpm runs no dependency's install script unless allowed (and fails the install over it): esbuild's.
  if (pmName === 'pnpm')
    specs.push({ path: 'pnpm-workspace.yaml', policy: 'scaffolded', template: 'init/pnpm-workspace.yaml.hbs' });
  if (source.tarball)
    specs.push({ path: source.tarball.path, policy: 'managed', header: false, content: source.tarball.data });
  if (plugins.includes(GRAFANA_PLUGIN))
    specs.push(...grafanaFiles(valid.projectName, host.read(CUSTOM_METRICS_CONFIG)?.toString('utf8')));
  if (plugins.includes(AUTOUPDATE_PLUGIN)) specs.push(...autoUpdateFiles());

  const tree = new Tree(host);
  await applySpecs(tree, specs, renderer, { force: options.force, data, tool: 'kubeforge' });
  // init --force in a project with Kinds: what create api added for them is added again.
  const warnings = await keepApisInConfig(tree, config);
  warnings.push(...(await keepControllersWired(tree, config, renderer)));
  warnings.push(...(await keepImageVariables(tree, config)));
  // Kubebuilder's init takes the helm plugin and makes no chart; the chart is made from config/ by edit.
  if (plugins.includes(HELM_PLUGIN))
    warnings.push(
      'helm/v2-alpha makes its chart from config/default: run `kubeforge edit --plugins helm/v2-alpha` once the project has its APIs (after create api); init made no chart',
    );
  // Managed: kubeforge tarballs other than the one depended on now are stale.
  for (const name of host.list(TARBALL_DIR)) {
    const path = `${TARBALL_DIR}/${name}`;
    if (isKubeforgeTarball(name) && path !== source.tarball?.path) tree.delete(path);
  }
  const managed = new Set(specs.filter((sp) => sp.policy === 'managed').map((sp) => sp.path));
  const replaced = tree
    .changes()
    .filter((c) => c.kind === 'update' && !managed.has(c.path))
    .map((c) => c.path);
  return { tree, changes: tree.changes(), hasTarball: data.hasTarball, replaced, warnings, pm: data.pm };
}

/**
 * `init --force` in a project with APIs: fresh kustomizations would drop what `create api` added
 * for the Kinds PROJECT lists, so it is added again from PROJECT (the same idempotent edits):
 * each Kind's admin / editor / viewer roles in config/rbac/kustomization.yaml (those whose file
 * exists) and `- ../crd` in config/default/kustomization.yaml. config/crd/ and config/samples/ are
 * not init's files and stay as they are; config/rbac/role.yaml belongs to `kubeforge manifests`
 * once it carries its header, and is kept.
 */
async function keepApisInConfig(tree: Tree, config: ProjectConfig): Promise<string[]> {
  const apis = config.resources.filter((r) => r.api && !r.core && !r.external);
  if (apis.length === 0) return [];
  const [{ apiNames }, { RBAC_KUSTOMIZATION, roleFiles, roleInsertions, uncommentCrd }] = await Promise.all([
    import('./resource-names.js'),
    import('./api-wiring.js'),
  ]);
  const warnings: string[] = [];
  let rbac = tree.readText(RBAC_KUSTOMIZATION);
  if (rbac !== undefined) {
    for (const r of apis) {
      const names = apiNames(config, {
        group: r.group,
        version: r.version,
        kind: r.kind,
        plural: r.plural,
        namespaced: r.api?.namespaced ?? true,
      });
      const files = roleFiles(names).filter((f) => tree.exists(`config/rbac/${f}`));
      if (files.length) rbac = insertAtMarkers(rbac, roleInsertions(names, files), RBAC_KUSTOMIZATION).text;
    }
    tree.write(RBAC_KUSTOMIZATION, rbac);
  }
  const def = 'config/default/kustomization.yaml';
  const text = tree.readText(def);
  const updated = text === undefined ? undefined : uncommentCrd(text);
  if (updated === undefined)
    warnings.push(
      `${def}: no "#- ../crd" line to switch on; add "- ../crd" to its resources so that config/default installs the CRDs`,
    );
  else tree.write(def, updated);
  return warnings;
}

/**
 * `init --force` in a project with Kinds of the deploy-image plugin: a fresh manager.yaml would
 * drop their `<KIND>_IMAGE` variables, so they are set again from PROJECT's record of the plugin.
 */
async function keepImageVariables(tree: Tree, config: ProjectConfig): Promise<string[]> {
  const { deployImageResources, imageEnvName, MANAGER_FILE, setImageEnv } = await import('./deployimage.js');
  let text = tree.readText(MANAGER_FILE);
  const warnings: string[] = [];
  for (const r of deployImageResources(config)) {
    const image = r.options?.image;
    if (text === undefined || !image) continue;
    const set = setImageEnv(text, imageEnvName(r.kind), String(image));
    if (set.text !== undefined) text = set.text;
    else warnings.push(set.problem.message);
  }
  if (text !== undefined && text !== tree.readText(MANAGER_FILE)) tree.write(MANAGER_FILE, text);
  return warnings;
}

/**
 * `init --force` in a project with APIs: a fresh src/main.ts would drop the controllers PROJECT
 * lists, so their import and setup are inserted again (the same idempotent insertions as
 * `create api`). Returns warnings for what cannot be put back that way.
 */
async function keepControllersWired(tree: Tree, config: ProjectConfig, renderer: TemplateRenderer): Promise<string[]> {
  const { controllerNamesOf } = await import('./resource-names.js');
  const controllers = config.resources.filter((r) => controllerNamesOf(r).length > 0);
  const warnings: string[] = [];
  if (controllers.length > 0) {
    const [{ apiNames }, { mainControllerInsertions }] = await Promise.all([
      import('./resource-names.js'),
      import('./api-wiring.js'),
    ]);
    let text = tree.readText(MAIN_FILE);
    if (text !== undefined) {
      for (const r of controllers) {
        for (const name of controllerNamesOf(r)) {
          const controllerName = name === r.kind.toLowerCase() ? undefined : name;
          const names = apiNames(config, {
            group: r.group,
            version: r.version,
            kind: r.kind,
            plural: r.plural,
            namespaced: r.api?.namespaced ?? true,
            core: r.core,
            controllerName,
          });
          text = insertAtMarkers(text, await mainControllerInsertions(names, renderer), MAIN_FILE).text;
        }
      }
      tree.write(MAIN_FILE, text);
    }
  }
  // Webhooks are wired in src/main.ts and switched on in config/ (kustomizations, patches):
  // `create webhook --force` puts both back.
  const rewritten = [
    MAIN_FILE,
    'config/default/kustomization.yaml',
    'config/default/manager_webhook_patch.yaml',
    'config/network-policy/kustomization.yaml',
    'config/webhook/kustomization.yaml',
  ].filter((p) => {
    const onHost = tree.existsOnHost(p) ? tree.host.read(p) : undefined;
    return onHost !== undefined && !onHost.equals(tree.read(p) ?? Buffer.alloc(0));
  });
  const webhooks = config.resources.filter((r) => r.webhooks && rewritten.length > 0);
  if (webhooks.length) {
    warnings.push(
      `${rewritten.join(', ')} ${rewritten.length === 1 ? 'is' : 'are'} rewritten: the webhooks PROJECT lists for ${webhooks.map((r) => `${r.kind} ${r.version}`).join(', ')} are no longer set up there; run kubeforge create webhook --force for each (it adds, never rewrites)`,
    );
  }
  return warnings;
}

/**
 * Runs `kubeforge init` through the command runner (src/machinery/runner.ts): under the folder's
 * lock unless --dry-run; one commit, PROJECT last; then npm install.
 */
export async function runInit(options: InitOptions, env: InitEnvironment): Promise<InitResult> {
  const host = env.host ?? new DiskHost(env.cwd);
  type Plan = Awaited<ReturnType<typeof planInit>>;
  return runCommand<Plan, InitResult>(
    {
      name: 'init',
      lockRoot: lockRoot(env),
      // PROJECT last: a run killed part way never leaves a PROJECT naming files not written yet.
      last: [PROJECT_FILE],
      plan: async (ctx) => {
        const planned = await planInit(options, { ...env, host });
        for (const w of planned.warnings) ctx.err(`warning: ${w}\n`);
        return planned;
      },
      preview: (p, changes, ctx) => {
        const plan = formatPlan(changes, { color: ctx.color });
        ctx.out(plan);
        warnReplaced(ctx, p.replaced, 'would replace');
        return { changes, plan, installed: false };
      },
      // A signal during the commit is handled once it has written everything: init is complete then.
      interrupted: {
        keep: 'the project is scaffolded (every file written); the dependencies were not installed: run npm install (or your package manager) in the project folder',
      },
      committed: (p, changes, ctx) => {
        ctx.out(formatPlan(changes, { color: ctx.color }));
        warnReplaced(ctx, p.replaced, 'replaced');
      },
      after: async ({ pm }, changes, ctx) => {
        const plan = formatPlan(changes, { color: ctx.color });
        let installed = false;
        const hasModules = host.kind('node_modules') === 'directory';
        if (options.skipInstall) {
          ctx.err(`Skipped ${pm.name} install (--skip-install). Run \`${pm.name} install\` before building.\n`);
        } else if (changes.length === 0 && hasModules) {
          ctx.err(`Nothing changed and node_modules exists: skipped ${pm.name} install.\n`);
        } else {
          try {
            await (env.install ?? npmInstall)(env.cwd, env);
          } catch (e) {
            if (ctx.guard?.interrupted)
              throw new InterruptedError(
                ctx.guard.interrupted,
                `the project is scaffolded (every file written); ${pm.name} install was stopped: run it in the project folder`,
              );
            throw e;
          }
          installed = true;
        }
        ctx.err(nextSteps(pm));
        return { changes, plan, installed };
      },
    },
    env,
    { host, dryRun: options.dryRun, force: options.force },
  );
}

function nextSteps(pm: PackageManager): string {
  return [
    '',
    'Next:',
    `  ${pm.run} build   # compile (tsc --strict)`,
    '  make test       # tests against a real kube-apiserver and etcd',
    '  make run        # the manager against the cluster of your current kubeconfig',
    '  make help       # every target: manifests, docker-build, deploy, build-installer...',
    '',
  ].join('\n');
}

/**
 * The dependencies installed in the new project with the package manager PROJECT records (`npm
 * install`, `pnpm install`, ...), its output streamed to stderr; a failure says how to finish.
 */
export async function npmInstall(dir: string, env: InitEnvironment): Promise<void> {
  const { execa } = await import('execa');
  const host = new DiskHost(dir);
  const pm = packageManager(
    host.read(PROJECT_FILE) ? recordedPackageManager(ProjectFile.read(host, dir).config) : 'npm',
  );
  const [cmd, ...args] = pm.installArgv;
  env.err(`Installing dependencies: ${pm.install} (this can take a minute)...\n`);
  const started = Date.now();
  const timer = setInterval(
    () => env.err(`  still installing (${Math.round((Date.now() - started) / 1000)}s)\n`),
    15_000,
  );
  try {
    const child = execa(cmd, args, {
      cwd: dir,
      all: true,
      reject: false,
      stdin: 'ignore',
    });
    child.all?.on('data', (chunk: Buffer) => env.err(chunk.toString('utf8')));
    const result = await child;
    if (result.exitCode !== 0 || result.failed) {
      throw new DiagnosticError(
        error(
          'KF1030',
          `${cmd} install failed in ${dir} (${result.exitCode !== undefined ? `exit ${result.exitCode}` : result.shortMessage})`,
          {
            hint: `the project is scaffolded; finish by hand: cd ${dir} && ${cmd} install`,
          },
        ),
      );
    }
    env.err(`Dependencies installed in ${Math.round((Date.now() - started) / 1000)}s.\n`);
  } finally {
    clearInterval(timer);
  }
}
