/**
 * `kubeforge alpha generate`: Kubebuilder's upgrade path. Re-scaffolds a project from its PROJECT
 * file into a new folder with the running kubeforge (init, then `create api` for every resource,
 * then `create webhook` for every resource with webhooks: the order Kubebuilder replays; a Kind of
 * the deploy-image plugin with the flags PROJECT recorded for it), copies
 * the user's own code over (API types, controllers, webhooks, conversions, tests, samples, the
 * custom-metrics config), keeps PROJECT's keys of other tools, and lists the scaffolded files
 * that differ from the old project, to merge by hand.
 */
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
} from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { DiagnosticError, error } from '../diagnostics/index.js';
import {
  pluginsOf,
  PROJECT_FILE,
  type ProjectConfig,
  ProjectFile,
  type ProjectResource,
  serializeProject,
} from '../project/index.js';
import { MANIFESTS_PLUGIN, recordedSettings, recordOf } from '../manifests/settings.js';
import { describeFlags, recordedManifestsOptions } from '../manifests/script.js';
import { DiskHost, InterruptedError } from '../machinery/index.js';
import { CLI_INTEGRITY_KEY } from './cli-integrity.js';
import { runCreateApi } from './api.js';
import { externalTypeSource } from './external-api.js';
import { controllerNamesOf } from './resource-names.js';
import type { ScaffoldEnvironment } from './environment.js';
import { DEPLOY_IMAGE_PLUGIN, deployImageResources, flagsOf } from './deployimage.js';
import { HELM_PLUGIN, helmConfigOf } from '../manifests/helm.js';
import { AUTOUPDATE_PLUGIN } from './autoupdate.js';
import { CUSTOM_METRICS_CONFIG, GRAFANA_PLUGIN } from './grafana.js';
import { BOILERPLATE_FILE, type InitEnvironment, npmInstall, replayLicense, runInit } from './init.js';
import { runCreateWebhook } from './webhook.js';
import { recordedPackageManager } from './package-manager.js';
import { recordedShardReplicas } from './sharding.js';

export interface GenerateOptions {
  /** The project to re-scaffold (default: the current folder). */
  inputDir?: string;
  /** Where to write the new project (must not exist, or be empty). */
  outputDir: string;
  /** Do not run npm install and `manifests` in the new project. */
  skipInstall?: boolean;
  /** How the new project depends on kubeforge (as `init --kubeforge-source`). */
  kubeforgeSource?: string;
}

export interface GenerateResult {
  /** User files copied from the old project. */
  copied: string[];
  /** Scaffolded files that differ between the old project and the new one. */
  differ: string[];
}

/** The folders and files that hold the user's own code: copied over the re-scaffolded ones. */
const USER_CODE = [
  'src/api',
  'src/controller',
  'src/webhook',
  'test',
  'config/samples',
  'config/crd/external',
  CUSTOM_METRICS_CONFIG,
];
/** Not compared: dependencies, build output, kubeforge's own state. */
const IGNORED = new Set(['node_modules', 'build', 'dist', '.kubeforge', '.git']);

function files(dir: string, under = ''): string[] {
  const full = join(dir, under);
  if (!existsSync(full)) return [];
  if (statSync(full).isFile()) return [under];
  const out: string[] = [];
  for (const name of readdirSync(full).sort()) {
    if (!under && IGNORED.has(name)) continue;
    out.push(...files(dir, under ? `${under}/${name}` : name));
  }
  return out;
}

/** The `create api` commands that made a resource: the API with its first controller, then one per further named controller. */
function createApiArgs(r: ProjectResource, config: ProjectConfig): Parameters<typeof runCreateApi>[0][] {
  const resource = r.api !== undefined && !r.core && !r.external;
  const [first, ...more] = controllerNamesOf(r);
  const controller = first !== undefined;
  if (!resource && !controller) return [];
  // A Kind the deploy-image plugin scaffolded: the same plugin, with the flags PROJECT recorded.
  const deployImage =
    resource && controller
      ? deployImageResources(config).find((d) => d.group === r.group && d.version === r.version && d.kind === r.kind)
      : undefined;
  const base = {
    group: r.group === '' && r.core ? 'core' : r.group,
    version: r.version,
    kind: r.kind,
    plural: r.plural,
    // PROJECT omits namespaced for a cluster-scoped Kind (Kubebuilder writes Go's zero value so);
    // it records no scope for a built-in or external Kind.
    namespaced: r.api ? r.api.namespaced === true : undefined,
    ...externalArgs(r),
    make: false,
  };
  return [
    {
      ...base,
      ...(deployImage ? { plugins: [DEPLOY_IMAGE_PLUGIN], ...flagsOf(deployImage) } : {}),
      resource,
      controller,
      controllerName: first,
    },
    ...more.map((name) => ({ ...base, resource: false, controller: true, controllerName: name })),
  ];
}

/** The --external-api-* flags that recorded an external Kind. */
function externalArgs(r: ProjectResource): {
  externalApiPath?: string;
  externalApiDomain?: string;
  externalApiModule?: string;
} {
  if (!r.external || !r.path) return {};
  return { externalApiPath: r.path, externalApiDomain: r.domain, externalApiModule: r.module };
}

/** Re-scaffolds `inputDir`'s project into `outputDir`. */
export async function runGenerate(
  options: GenerateOptions,
  io: ScaffoldEnvironment & Pick<InitEnvironment, 'install'>,
): Promise<GenerateResult> {
  const input = resolve(io.cwd, options.inputDir ?? '.');
  const output = resolve(io.cwd, options.outputDir);
  const { config } = ProjectFile.read(new DiskHost(input), input);
  if (existsSync(output) && readdirSync(output).length > 0) {
    throw new DiagnosticError(
      error('KF1073', `${output} is not empty: alpha generate writes a new project there`, {
        hint: 'pass --output-dir with a folder that does not exist yet (or is empty)',
      }),
    );
  }
  if (output === input)
    throw new DiagnosticError(
      error('KF1073', 'the output folder is the project itself', { hint: 'pass --output-dir <another folder>' }),
    );
  // The new project is made in a sibling folder and renamed into place once whole: a replayed
  // command that fails (a PROJECT value it refuses) leaves the output folder as it was.
  const stage = join(dirname(output), `.${basename(output)}.kubeforge-${process.pid}.tmp`);
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });
  let result: GenerateResult;
  try {
    // The replayed commands' own plans are not this command's result (its result is the new project).
    result = await scaffoldInto(stage, input, config, options, { ...io, report: undefined }, output);
    if (existsSync(output)) rmdirSync(output);
    renameSync(stage, output);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
  if (options.skipInstall) {
    io.err(
      'Skipped npm install and manifests (--skip-install): run `npm install && npm run manifests` in the new project.\n',
    );
  } else {
    await (io.install ?? npmInstall)(output, { ...io, cwd: output, host: undefined, report: undefined });
    const { runManifests } = await import('../manifests/pipeline.js');
    await runManifests({ projectDir: output }, undefined);
  }
  // The helm plugin's chart is made from the new project's config/default, which needs its CRDs (the manifests step).
  const helm = helmConfigOf(config);
  if (helm && options.skipInstall) {
    io.err(
      'Skipped the Helm chart (--skip-install): run `kubeforge edit --plugins helm/v2-alpha` in the new project after `npm run manifests`.\n',
    );
  } else if (helm) {
    const { runEdit } = await import('./edit.js');
    await runEdit(
      { plugins: [HELM_PLUGIN], outputDir: helm.output, helmMakefile: true },
      { ...io, cwd: output, host: undefined, out: () => {}, manifests: false, report: undefined },
    );
  }
  io.report?.recordChanges(
    'result',
    output,
    files(output).map((path) => ({ kind: 'create' as const, path })),
  );
  return { copied: result.copied, differ: result.differ };
}

/**
 * Where a PROJECT value made a replayed command fail: the command's diagnostics about its
 * arguments (errors with no file of their own, or PROJECT's), located at the resource's entry in PROJECT and
 * worded with its keys (the user typed no flags here). An interruption (SIGINT, SIGTERM), or a
 * problem located in a file, is passed on as it is.
 */
function atProjectEntry(e: unknown, input: string, r: ProjectResource, command: string): unknown {
  if (!(e instanceof DiagnosticError) || e instanceof InterruptedError) return e;
  const line = ProjectFile.parse(readFileSync(join(input, PROJECT_FILE), 'utf8')).lineOf(r);
  const what = `${r.group || 'core'}/${r.version} ${r.kind}`;
  const keys = (s: string | undefined) =>
    s?.replace(
      /--(external-api-[a-z]+|[a-z][a-z-]*)/g,
      (_, flag: string) => `the "${flag.replace(/-([a-z])/g, (_m: string, c: string) => c.toUpperCase())}" key`,
    );
  return new DiagnosticError(
    e.diagnostics.map((d) =>
      d.severity === 'error' && (d.file === undefined || basename(d.file) === PROJECT_FILE)
        ? {
            ...d,
            message: `PROJECT resource ${what} cannot be re-scaffolded (${command}): ${keys(d.message)}`,
            file: join(input, PROJECT_FILE),
            line,
            column: undefined,
            hint: `${keys(d.hint) ?? 'fix the entry'} in PROJECT's entry for ${what}; nothing was written`,
          }
        : d,
    ),
  );
}

/**
 * PROJECT's extra keys of the new project: what the commands recorded, plus the keys of other
 * tools the old one held; the integrity goes with cliVersion (the old one never stays next to
 * the new version).
 */
function keptExtra(old: ProjectConfig, regenerated: ProjectConfig): Record<string, unknown> {
  const mergedPlugins = { ...pluginsOf(old), ...pluginsOf(regenerated) };
  const extra: Record<string, unknown> = {
    ...(old.extra ?? {}),
    ...(regenerated.extra ?? {}),
    ...(Object.keys(mergedPlugins).length ? { plugins: mergedPlugins } : {}),
  };
  if (!(CLI_INTEGRITY_KEY in (regenerated.extra ?? {}))) delete extra[CLI_INTEGRITY_KEY];
  return extra;
}

/**
 * The manifests options the old project generated with: its PROJECT record, under the flags an
 * older project's package.json `manifests` script passed (`moved`: those flags, '' for none). The
 * new project records them all in PROJECT (its script is the plain `kubeforge manifests`), so it
 * generates the same manifests.
 */
function manifestsOptionsOf(input: string): { recorded: Record<string, unknown>; moved: string } {
  const inputHost = new DiskHost(input);
  const read = (p: string) => inputHost.read(p)?.toString('utf8');
  return {
    recorded: recordOf(recordedSettings({ read, projectDir: input })),
    moved: describeFlags(recordedManifestsOptions(read('package.json'))),
  };
}

/**
 * The new project's PROJECT: what the replayed commands recorded, plus the keys of other tools the
 * old one held and the manifests options it generated with. Returns the script flags moved ('' for none).
 */
function writeProject(output: string, input: string, config: ProjectConfig): string {
  const host = new DiskHost(output);
  const { recorded, moved } = manifestsOptionsOf(input);
  const written = host.read(PROJECT_FILE);
  if (!written) throw new Error(`alpha generate: the regenerated project in ${output} has no ${PROJECT_FILE}`);
  const regenerated = ProjectFile.parse(written.toString('utf8')).config;
  const extra = keptExtra(config, regenerated);
  if (Object.keys(recorded).length)
    extra.plugins = { ...((extra.plugins as Record<string, unknown>) ?? {}), [MANIFESTS_PLUGIN]: recorded };
  host.write(
    PROJECT_FILE,
    Buffer.from(serializeProject({ ...regenerated, extra: Object.keys(extra).length ? extra : undefined })),
  );
  return moved;
}

/** Init, the replayed commands and the user's code, into `output` (a new, empty folder). */
async function scaffoldInto(
  output: string,
  input: string,
  config: ProjectConfig,
  options: GenerateOptions,
  io: ScaffoldEnvironment & Pick<InitEnvironment, 'install'>,
  /** The output folder as the user named it (`output` is its stage). */
  finalOutput: string,
): Promise<GenerateResult> {
  const boilerplate = existsSync(join(input, BOILERPLATE_FILE))
    ? readFileSync(join(input, BOILERPLATE_FILE), 'utf8')
    : undefined;
  // The plugins init takes (the others are replayed by their own commands); autoupdate's workflow
  // comes back from the new kubeforge's template (its pinned actions with it).
  const plugins = Object.keys(pluginsOf(config)).filter((p) => p === GRAFANA_PLUGIN || p === AUTOUPDATE_PLUGIN);
  const env = { ...io, cwd: output, host: undefined };
  // The replayed commands' plans, hints and notes are not the user's to act on (they throw their errors).
  const quiet = { ...env, out: () => {}, err: () => {} };
  await runInit(
    {
      domain: config.domain,
      projectName: config.projectName,
      packageName: config.repo,
      multigroup: config.multigroup,
      namespaced: config.namespaced,
      // A sharded manager (PROJECT's sharding.kubeforge.io/v1-alpha record): its replicas again.
      sharded: recordedShardReplicas(config, input, readFileSync(join(input, PROJECT_FILE), 'utf8')) ?? false,
      ...replayLicense(boilerplate),
      plugins,
      skipInstall: true,
      kubeforgeSource: options.kubeforgeSource,
      packageManager: recordedPackageManager(config),
    },
    quiet,
  );
  // The TypeScript types of external Kinds that are files of the project: create api / webhook import them.
  const copied: string[] = [];
  for (const r of config.resources) {
    const source = r.external && r.path ? externalTypeSource({ path: r.path, module: r.module }) : undefined;
    if (source?.kind !== 'file' || copied.includes(source.file) || !existsSync(join(input, source.file))) continue;
    mkdirSync(join(output, source.file, '..'), { recursive: true });
    cpSync(join(input, source.file), join(output, source.file));
    copied.push(source.file);
  }
  // As Kubebuilder replays: every API first (a conversion webhook needs its spokes), then the webhooks.
  for (const r of config.resources) {
    for (const args of createApiArgs(r, config)) {
      try {
        await runCreateApi(args, quiet);
      } catch (e) {
        throw atProjectEntry(e, input, r, 'create api');
      }
    }
  }
  for (const r of config.resources) {
    const w = r.webhooks;
    if (!w || !(w.defaulting || w.validation || w.conversion)) continue;
    await runCreateWebhook(
      {
        group: r.group === '' && r.core ? 'core' : r.group,
        version: r.version,
        kind: r.kind,
        plural: r.plural,
        defaulting: w.defaulting,
        programmaticValidation: w.validation,
        conversion: w.conversion,
        spoke: w.spoke,
        defaultingPath: w.defaultingPath,
        validationPath: w.validationPath,
        ...externalArgs(r),
        make: false,
      },
      quiet,
    ).catch((e: unknown) => {
      throw atProjectEntry(e, input, r, 'create webhook');
    });
  }

  const moved = writeProject(output, input, config);

  for (const path of USER_CODE.flatMap((p) => files(input, p))) {
    mkdirSync(join(output, path, '..'), { recursive: true });
    cpSync(join(input, path), join(output, path));
    copied.push(path);
  }
  const differ = files(output).filter(
    (p) =>
      !copied.includes(p) &&
      p !== PROJECT_FILE &&
      existsSync(join(input, p)) &&
      !readFileSync(join(input, p)).equals(readFileSync(join(output, p))),
  );
  const added = files(output).filter((p) => !existsSync(join(input, p)));

  io.out(
    `Re-scaffolded ${config.projectName} into ${relative(io.cwd, finalOutput) || '.'} with ${config.resources.length} resource${config.resources.length === 1 ? '' : 's'} from PROJECT.\n`,
  );
  io.out(
    `Copied your code (${copied.length} file${copied.length === 1 ? '' : 's'}): ${USER_CODE.filter((p) => existsSync(join(input, p))).join(', ')}.\n`,
  );
  if (moved)
    io.out(
      `Moved ${moved} from package.json's "manifests" script into PROJECT (plugins.${MANIFESTS_PLUGIN}), where kubeforge manifests reads it.\n`,
    );
  if (added.length) io.out(`New in this kubeforge: ${added.join(', ')}\n`);
  if (differ.length)
    io.out(
      `Review (scaffolded files that differ from your project; merge your own changes by hand): ${differ.join(', ')}\n`,
    );
  return { copied, differ };
}
