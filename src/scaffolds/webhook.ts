/**
 * `kubeforge create webhook`: admission webhooks (a defaulter, a validator) and conversion for a
 * Kind, as Kubebuilder's go/v4 plugin scaffolds them: `src/webhook/<version>/<kind>_webhook.ts`
 * with `setup<Kind>WebhookWithManager` and the decorated classes, its tests (the classes called
 * directly in `<kind>_webhook.unit.test.ts`, the unit tier; the webhooks served to a real API
 * server in `<kind>_webhook.test.ts`), one `<kind>_conversion.ts` per spoke
 * with `@StorageVersion()` / `@ConversionWebhook()` on the hub, the call in src/main.ts, the
 * config/ pieces switched on (webhook, cert-manager, CA injection, network policy) and the
 * `webhooks:` entry in PROJECT. A second run for a webhook type the Kind lacks adds that type to
 * the existing files (marker-comment insertions; ts-morph for imports and decorators), never
 * rewriting what the user wrote. Everything, the webhook manifests `kubeforge manifests` makes of
 * it included, is validated and computed in one virtual tree first, then committed in one go (or
 * printed with --dry-run).
 */
import type { ScaffoldEnvironment } from './environment.js';
import { join, posix } from 'node:path';
import { DiagnosticError, type Diagnostic, error } from '../diagnostics/index.js';
import { placeholderBody, validBody } from './builtin-bodies.js';
import { pluralize } from '../project/plural.js';
import {
  PROJECT_FILE,
  ProjectFile,
  type ProjectConfig,
  type ProjectResource,
  checkGvkFlags,
  refusedKind,
  type ResourceWebhooks,
  validateDns1123Label,
  validateVersion,
} from '../project/index.js';
import {
  applyInserters,
  applySpecs,
  type Change,
  DiskHost,
  type FileInserter,
  type FileSpec,
  formatPlan,
  type Host,
  type Insertion,
  insertAtMarkers,
  runCommand,
  TemplateRenderer,
  Tree,
} from '../machinery/index.js';
import { packageRoot } from '../util/package-root.js';
import {
  addExternalDependency,
  type ExternalApi,
  externalObjectImport,
  externalTypeSource,
  validateExternalApi,
} from './external-api.js';
import {
  type ApiNames,
  apiNames,
  CORE_GROUPS,
  importSpecifier,
  pascal,
  requireBuiltinKind,
  requireKubeforgeLayout,
  sameGVK,
  typesFileOf,
} from './resource-names.js';
import type { BuiltinKind } from '../apiserver/builtin-kinds.js';
import { ensureStorageVersion } from './storage-version.js';
import { uncommentBlock, uncommentLines } from './comments.js';
import { deployImageSpecExample } from './deployimage.js';
import { BOILERPLATE_FILE, headerFromBoilerplate } from './paths.js';
import { importKind, lowerFirst, PLACEHOLDER_KIND, Scope, templateNames } from './identifiers.js';
import { type ManifestsStep, scaffoldSteps } from './manifests-step.js';
import { TsEditor } from './tsedit.js';

export interface CreateWebhookOptions {
  group?: string;
  version?: string;
  kind?: string;
  /** Resource name (default: the one PROJECT records, else the plural of the Kind). */
  plural?: string;
  /** A mutating webhook with a CustomDefaulter. */
  defaulting?: boolean;
  /** A validating webhook with a CustomValidator (Kubebuilder's --programmatic-validation). */
  programmaticValidation?: boolean;
  /** A conversion webhook: `version` is the hub, `spoke` the versions converted to and from it. */
  conversion?: boolean;
  spoke?: string[];
  /** Custom path of the mutating webhook (default `/mutate-<group>-<version>-<kind>`). */
  defaultingPath?: string;
  /** Custom path of the validating webhook (default `/validate-<group>-<version>-<kind>`). */
  validationPath?: string;
  /** A Kind another project owns: see create api's --external-api-path. */
  externalApiPath?: string;
  externalApiDomain?: string;
  externalApiModule?: string;
  /** Scaffold a webhook type PROJECT already records (files that differ are replaced; code already in the webhook file is kept). */
  force?: boolean;
  /** Print the plan, write nothing, skip the manifests step. */
  dryRun?: boolean;
  /** Run `kubeforge manifests` afterwards (default true). */
  make?: boolean;
}

export interface CreateWebhookEnvironment extends ScaffoldEnvironment {
  /** Plans `kubeforge manifests` into the scaffold's tree before the commit; default the real one; `false` skips it. */
  manifests?: ManifestsStep | false;
}

export interface CreateWebhookResult {
  changes: Change[];
  plan: string;
  /** The entry now in PROJECT. */
  resource: ProjectResource;
  manifests: boolean;
}

const DEFAULT_KUSTOMIZATION = 'config/default/kustomization.yaml';
const WEBHOOK_PATCH = 'config/default/manager_webhook_patch.yaml';

/** Everything about the webhooks of one Kind. */
export interface WebhookNames extends ApiNames {
  webhookFile: string;
  /** The test through a real API server that calls the webhooks. */
  webhookTestFile: string;
  /** The unit tier: the classes called directly, no API server (`npm run test:unit`). */
  webhookUnitTestFile: string;
  defaultingPath: string;
  validationPath: string;
  /** client-node's model of a built-in Kind (`V1Pod`), or the Kind. */
  objType: string;
}

/** `/mutate-<group with . -> ->-<version>-<kind>`, controller-runtime's default path. */
export function defaultWebhookPath(
  kind: 'mutate' | 'validate',
  qualifiedGroup: string,
  version: string,
  k: string,
): string {
  return `/${kind}-${qualifiedGroup.replace(/\./g, '-')}-${version}-${k.toLowerCase()}`;
}

/** A webhook path: absolute, URL path characters only. */
function validatePath(value: string, flag: string): Diagnostic | undefined {
  if (!value.startsWith('/'))
    return error('KF1065', `invalid ${flag} "${value}": a webhook path must start with "/"`, {
      hint: `e.g. ${flag}=/custom-mutate-sailor`,
    });
  if (!/^\/[A-Za-z0-9\-._~/]*$/.test(value) || value.includes('//')) {
    return error(
      'KF1065',
      `invalid ${flag} "${value}": only letters, digits and - . _ ~ / may appear in a webhook path`,
      { hint: `e.g. ${flag}=/custom-mutate-sailor` },
    );
  }
  if (value === '/convert')
    return error('KF1065', `invalid ${flag} "${value}": /convert is the conversion webhook's path`, {
      hint: 'pick another path',
    });
  return undefined;
}

interface ValidWebhook {
  config: ProjectConfig;
  names: WebhookNames;
  existing?: ProjectResource;
  defaulting: boolean;
  validation: boolean;
  conversion: boolean;
  spokes: ProjectResource[];
  /** The entry after this command. */
  entry: ProjectResource;
  /** A Kind another project owns. */
  external?: ExternalApi;
}

/** create webhook's flags, each checked on its own (before PROJECT's Kinds are looked at). */
interface WebhookFlags {
  group: string;
  version: string;
  kind: string;
  defaulting: boolean;
  validation: boolean;
  conversion: boolean;
  spokes: string[];
}

/** The Kind the flags name, as PROJECT and Kubernetes know it. */
interface WebhookKind {
  existing?: ProjectResource;
  /** An API of this project. */
  ours: boolean;
  external?: ExternalApi;
  core: boolean;
  builtin?: BuiltinKind;
  /** `Kind (group/version)` for messages. */
  gvText: string;
}

/**
 * Checks every flag against the rules and PROJECT; collects every problem before failing.
 * `exists` tells whether a file --external-api-path names exists.
 */
export function validateCreateWebhook(
  options: CreateWebhookOptions,
  project: ProjectFile,
  exists: (file: string) => boolean = () => true,
): ValidWebhook {
  const { config } = project;
  requireKubeforgeLayout(config, 'create webhook');
  const flags = checkWebhookFlags(options);
  const problems: Diagnostic[] = [];
  const kind = resolveWebhookKind(options, project, flags, exists, problems);
  checkWebhookPlural(options, project, flags, kind, problems);
  const names = webhookNames(options, config, flags, kind);
  if (flags.defaulting && flags.validation && names.defaultingPath === names.validationPath) {
    problems.push(
      error('KF1065', `the defaulting and the validating webhook would share the path ${names.defaultingPath}`, {
        hint: 'give them different paths',
      }),
    );
  }
  checkWebhookTypes(options, project, flags, kind, names, problems);
  const spokes = flags.conversion ? conversionSpokes(project, flags, kind, problems) : [];
  if (problems.length) throw new DiagnosticError(problems);
  const entry = webhookEntry(options, flags, kind, names, spokes);
  const { defaulting, validation, conversion } = flags;
  return {
    config,
    names,
    existing: kind.existing,
    defaulting,
    validation,
    conversion,
    spokes,
    entry,
    external: kind.external,
  };
}

/** The GVK, the webhook types, their paths and the spokes; throws on any problem. */
function checkWebhookFlags(options: CreateWebhookOptions): WebhookFlags {
  const problems: Diagnostic[] = [];
  const {
    group,
    version,
    kind,
    problems: flagProblems,
  } = checkGvkFlags(
    options,
    {
      group: error('KF1041', 'missing --group: the API group of the Kind, without the domain', {
        hint: 'pass --group, e.g. --group batch (or core, apps for a built-in Kind)',
      }),
      version: error('KF1041', 'missing --version: the API version of the Kind', {
        hint: 'pass --version, e.g. --version v1',
      }),
      kind: error('KF1041', 'missing --kind: the Kind the webhooks handle', {
        hint: 'pass --kind in PascalCase, e.g. --kind CronJob',
      }),
    },
    (k) => refusedKind(k),
  );
  problems.push(...flagProblems);
  const defaulting = options.defaulting === true;
  const validation = options.programmaticValidation === true;
  const conversion = options.conversion === true;
  if (!defaulting && !validation && !conversion) {
    problems.push(
      error('KF1060', 'no webhook type chosen: pass --defaulting, --programmatic-validation and/or --conversion', {
        hint: `e.g. kubeforge create webhook --group ${group || 'batch'} --version ${version || 'v1'} --kind ${kind || 'CronJob'} --defaulting --programmatic-validation`,
      }),
    );
  }
  for (const [flag, value, on, type] of [
    ['--defaulting-path', options.defaultingPath, defaulting, '--defaulting'],
    ['--validation-path', options.validationPath, validation, '--programmatic-validation'],
  ] as const) {
    if (value === undefined) continue;
    const d = validatePath(value, flag);
    if (d) problems.push(d);
    else if (!on)
      problems.push(
        error('KF1065', `${flag} names the path of the ${type} webhook, and ${type} is not given`, {
          hint: `add ${type}, or drop ${flag}`,
        }),
      );
  }
  const spokes = options.spoke ?? [];
  if (spokes.length && !conversion)
    problems.push(
      error('KF1063', '--spoke only goes with --conversion', {
        hint: 'add --conversion (the --version given is the hub), or drop --spoke',
      }),
    );
  for (const s of spokes) {
    const d = validateVersion(s, '--spoke');
    if (d) problems.push(d);
  }
  if (problems.length) throw new DiagnosticError(problems);
  return { group, version, kind, defaulting, validation, conversion, spokes };
}

/** The Kind: an API of this project, a built-in or an external one; KF1061 when it is none. */
function resolveWebhookKind(
  options: CreateWebhookOptions,
  project: ProjectFile,
  flags: WebhookFlags,
  exists: (file: string) => boolean,
  problems: Diagnostic[],
): WebhookKind {
  const { config } = project;
  const { group, version, kind } = flags;
  const existing = config.resources.find((r) => sameGVK(r, { group, version, kind }));
  const ours = existing?.api !== undefined;
  const gvText = `${kind} (${group ? `${group}/` : ''}${version})`;
  const externalGiven =
    options.externalApiPath !== undefined ||
    options.externalApiDomain !== undefined ||
    options.externalApiModule !== undefined;
  const owned = ours
    ? `${gvText} is an API of this project (${PROJECT_FILE} records it)`
    : existing?.core
      ? `${gvText} is a built-in Kind (${PROJECT_FILE} records it)`
      : undefined;
  const external = validateExternalApi(options, existing, externalGiven ? owned : undefined, group, exists, problems);
  if (problems.length) throw new DiagnosticError(problems);
  const core =
    !external &&
    (existing?.core === true ||
      (!ours &&
        Object.hasOwn(CORE_GROUPS, group) &&
        !config.resources.some((r) => r.api && r.group === group && r.kind === kind)));
  const builtin = core ? requireBuiltinKind(group, version, kind) : undefined;
  if (!ours && !core && !external) {
    const versions = config.resources
      .filter((r) => r.api && r.group === group && r.kind === kind)
      .map((r) => r.version);
    throw new DiagnosticError(
      error('KF1061', `there is no API ${gvText} in ${PROJECT_FILE}: a webhook needs the Kind first`, {
        file: PROJECT_FILE,
        hint: versions.length
          ? `${kind} has the versions ${versions.join(', ')}: pass one of them with --version`
          : `create it first: kubeforge create api --group ${group} --version ${version} --kind ${kind}; name a built-in Kind by its Kubernetes group (core, apps, batch, ...); or a Kind of another project with --external-api-path`,
      }),
    );
  }
  return { existing, ours, external, core, builtin, gvText };
}

/** --plural: an API of this project keeps the resource name it has; another Kind's is a DNS-1123 label. */
function checkWebhookPlural(
  options: CreateWebhookOptions,
  project: ProjectFile,
  flags: WebhookFlags,
  k: WebhookKind,
  problems: Diagnostic[],
): void {
  if (options.plural === undefined) return;
  if (!k.ours) {
    const d = validateDns1123Label(options.plural, 'plural', '--plural', 'a lower-case resource name such as "pods"');
    if (d) problems.push(d);
    return;
  }
  const recordedPlural = k.existing?.plural;
  const current = recordedPlural ?? pluralize(flags.kind);
  if (options.plural !== current) {
    problems.push(
      error('KF1067', `--plural ${options.plural} differs from the resource name of ${flags.kind}, "${current}"`, {
        ...(k.existing ? project.locate(k.existing) : { file: PROJECT_FILE }),
        hint: recordedPlural
          ? `pass --plural ${recordedPlural}, or drop --plural`
          : 'drop --plural (the API was created without it)',
      }),
    );
  }
}

/** The webhooks' names and paths (the paths PROJECT records are kept unless the flags change them). */
function webhookNames(
  options: CreateWebhookOptions,
  config: ProjectConfig,
  flags: WebhookFlags,
  k: WebhookKind,
): WebhookNames {
  const { group, version, kind } = flags;
  const { existing, builtin, external } = k;
  // An external Kind is taken as namespaced (its scope is its own project's; the test objects only).
  const namespaced = builtin ? builtin.namespaced : external ? true : existing?.api?.namespaced === true;
  const base = apiNames(config, {
    group,
    version,
    kind,
    plural: options.plural ?? existing?.plural ?? builtin?.plural,
    namespaced,
    core: k.core,
    external: external && { domain: external.domain },
  });
  const typeSource = external ? externalTypeSource(external) : undefined;
  if (k.ours && existing?.path?.endsWith('.ts')) base.typesFile = existing.path;
  const grouped = base.multigroup && group !== '';
  const webhookDir = grouped ? `src/webhook/${group}/${version}` : `src/webhook/${version}`;
  const testDir = grouped ? `test/webhook/${group}/${version}` : `test/webhook/${version}`;
  const had: ResourceWebhooks = existing?.webhooks ?? {};
  return {
    ...base,
    webhookFile: `${webhookDir}/${base.fileName}_webhook.ts`,
    webhookTestFile: `${testDir}/${base.fileName}_webhook.test.ts`,
    webhookUnitTestFile: `${testDir}/${base.fileName}_webhook.unit.test.ts`,
    defaultingPath:
      options.defaultingPath ?? had.defaultingPath ?? defaultWebhookPath('mutate', base.qualifiedGroup, version, kind),
    validationPath:
      options.validationPath ??
      had.validationPath ??
      defaultWebhookPath('validate', base.qualifiedGroup, version, kind),
    objType: builtin ? builtin.model : external ? (typeSource ? `${kind}Object` : 'KubernetesObject') : kind,
  };
}

/** KF1062: a webhook type PROJECT already records for the Kind, unless --force. */
function checkWebhookTypes(
  options: CreateWebhookOptions,
  project: ProjectFile,
  flags: WebhookFlags,
  k: WebhookKind,
  names: WebhookNames,
  problems: Diagnostic[],
): void {
  const { existing } = k;
  if (!existing || options.force) return;
  const had: ResourceWebhooks = existing.webhooks ?? {};
  for (const [on, key, flag] of [
    [flags.defaulting, 'defaulting', '--defaulting'],
    [flags.validation, 'validation', '--programmatic-validation'],
    [flags.conversion, 'conversion', '--conversion'],
  ] as const) {
    if (on && had[key]) {
      problems.push(
        error('KF1062', `${k.gvText} already has a ${key} webhook (${PROJECT_FILE} records it)`, {
          ...project.locate(existing),
          hint: `drop ${flag}; or pass --force to scaffold it again (files that differ are replaced; classes already in ${names.webhookFile} are kept)`,
        }),
      );
    }
  }
}

/** --conversion: the spokes, other versions of a Kind of this project (KF1063). */
function conversionSpokes(
  project: ProjectFile,
  flags: WebhookFlags,
  k: WebhookKind,
  problems: Diagnostic[],
): ProjectResource[] {
  const { group, version, kind } = flags;
  const versions = project.config.resources.filter((r) => r.api && r.group === group && r.kind === kind);
  if (k.core || k.external) {
    problems.push(
      error(
        'KF1063',
        `--conversion is for Kinds of this project; ${k.core ? 'the API server itself converts' : 'the project that owns it converts'} the versions of ${kind}`,
        { hint: 'drop --conversion' },
      ),
    );
    return [];
  }
  if (versions.length < 2) {
    problems.push(
      error('KF1063', `${kind} has one version (${version}): there is nothing to convert to or from`, {
        ...(k.existing ? project.locate(k.existing) : { file: PROJECT_FILE }),
        hint: `add a second version first: kubeforge create api --group ${group} --version v2 --kind ${kind} --controller=false; then --conversion --spoke v2`,
      }),
    );
    return [];
  }
  if (flags.spokes.length === 0) {
    const others = versions.filter((r) => r.version !== version).map((r) => r.version);
    problems.push(
      error('KF1063', '--conversion needs --spoke: the versions that convert to and from the hub', {
        hint: `e.g. --spoke ${others.join(',')}`,
      }),
    );
    return [];
  }
  const spokes: ProjectResource[] = [];
  for (const s of [...new Set(flags.spokes)]) {
    const entry = versions.find((r) => r.version === s);
    if (s === version)
      problems.push(
        error('KF1063', `--spoke ${s} is the hub itself (--version ${version})`, {
          hint: 'the hub converts to itself; list only the other versions',
        }),
      );
    else if (!entry) {
      problems.push(
        error(
          'KF1063',
          `--spoke ${s}: ${PROJECT_FILE} has no version ${s} of ${kind} (it has ${versions.map((r) => r.version).join(', ')})`,
          {
            file: PROJECT_FILE,
            hint: `create it first: kubeforge create api --group ${group} --version ${s} --kind ${kind} --controller=false`,
          },
        ),
      );
    } else spokes.push(entry);
  }
  return spokes;
}

/** The PROJECT entry after this command: the existing one (if any) with the webhooks scaffolded now. */
function webhookEntry(
  options: CreateWebhookOptions,
  flags: WebhookFlags,
  k: WebhookKind,
  names: WebhookNames,
  spokes: readonly ProjectResource[],
): ProjectResource {
  const { group, version, kind } = flags;
  const { existing, external } = k;
  const entry: ProjectResource = existing ? { ...existing } : { group, version, kind };
  if (k.core && !existing) {
    entry.core = true;
    entry.path = `k8s.io/api/${group}/${version}`;
  } else if (external) {
    entry.external = true;
    entry.path = external.path;
    entry.domain = names.domain;
    entry.module = external.module;
  }
  const had: ResourceWebhooks = existing?.webhooks ?? {};
  const webhooks: ResourceWebhooks = { ...had };
  if (flags.defaulting) {
    webhooks.defaulting = true;
    webhooks.defaultingPath = options.defaultingPath ?? had.defaultingPath;
  }
  if (flags.validation) {
    webhooks.validation = true;
    webhooks.validationPath = options.validationPath ?? had.validationPath;
  }
  if (flags.conversion) {
    webhooks.conversion = true;
    webhooks.spoke = [...new Set([...(had.spoke ?? []), ...spokes.map((s) => s.version)])];
  }
  webhooks.webhookVersion = 'v1';
  entry.webhooks = webhooks;
  return entry;
}

/** Inserts at markers, collecting KF1201 (marker missing) problems; returns the new text. */
function insertInto(text: string, insertions: Insertion[], file: string, problems: Diagnostic[]): string {
  try {
    return insertAtMarkers(text, insertions, file).text;
  } catch (e) {
    if (e instanceof DiagnosticError) problems.push(...e.diagnostics);
    else throw e;
    return text;
  }
}

/** What every template of create webhook sees. */
export interface WebhookTemplateData extends WebhookNames {
  licenseHeader: string;
  varName: string;
  /** `a CronJob`, `an Ingress`. */
  aKind: string;
  modelType: string;
  typesImport: string;
  webhookImport: string;
  testTypesImport: string;
  realTestFile: string;
  unitTestFile: string;
  customDefaultingPath: boolean;
  customValidationPath: boolean;
  /** The spec of the test object (TypeScript), or '' when it takes none. */
  specExample: string;
  /** A built-in Kind's test object fields other than spec (TypeScript lines). */
  coreFields: string;
  placeholderBody: boolean;
  podLike: boolean;
  defaultExample: string;
  validateExample: string;
  validateField: string;
  validateValue: string;
  descriptor: boolean;
  modelImport: string;
  testModelImport: string;
}

/** The Kind-derived names of a file, after the names the file declares itself. */
interface WebhookIds {
  kindRef: string;
  kindImport: string;
  objType: string;
}

/** One spoke of the conversion: its files, and its names as the webhook file and the tests import them. */
interface SpokeData {
  version: string;
  spokeTypes: string;
  conversionFile: string;
  spokeAlias: string;
  conversionAlias: string;
  test: { spokeAlias: string; conversionAlias: string };
  spokeApiVersion: string;
}

/** What the steps of planCreateWebhook share. */
interface WebhookPlan {
  valid: ValidWebhook;
  data: WebhookTemplateData;
  tree: Tree;
  editor: TsEditor;
  render: (template: string, extra?: object) => Promise<string>;
  warnings: string[];
  problems: Diagnostic[];
}

/** Computes create webhook's virtual tree without writing anything. */
export async function planCreateWebhook(
  options: CreateWebhookOptions,
  env: CreateWebhookEnvironment,
): Promise<{ tree: Tree; changes: Change[]; resource: ProjectResource; warnings: string[] }> {
  const host = env.host ?? new DiskHost(env.cwd);
  const project = ProjectFile.read(host, env.cwd);
  const valid = validateCreateWebhook(options, project, (f) => host.kind(f) === 'file');
  const { config, names, entry } = valid;
  const warnings: string[] = [];
  if (config.namespaced && (options.defaulting || options.programmaticValidation)) {
    // As Kubebuilder warns: admission webhooks are cluster-wide, the manager's cache is not.
    warnings.push(
      `this project's manager is namespace-scoped (PROJECT: namespaced: true), but admission webhooks are cluster-wide: the API server calls them for ${names.kind} objects of every namespace; give them a namespaceSelector (a patch in config/webhook) to match WATCH_NAMESPACE`,
    );
  }
  const renderer = new TemplateRenderer(new DiskHost(join(env.kubeforgeDir ?? packageRoot(), 'templates')));
  const data = webhookTemplateData(valid, host);
  const plan: WebhookPlan = {
    valid,
    data,
    tree: new Tree(host),
    editor: await TsEditor.create(),
    render: (template, extra = {}) => renderer.render(template, { ...data, ...extra }),
    warnings,
    problems: [],
  };
  const ids = await webhookIdentifiers(plan);
  await applySpecs(plan.tree, await conversionFiles(plan, ids), renderer, {
    force: options.force,
    data,
    tool: 'kubeforge',
  });
  if (valid.conversion) await markHub(plan);
  await writeWebhookFile(plan, ids);
  await writeWebhookTests(plan, ids);
  const mainText = await registerInMain(plan);
  await switchOnWebhookConfig(plan, mainText);
  addExternalDependency(plan.tree, valid.external, valid.existing, names.kind, warnings);
  if (plan.problems.length) throw new DiagnosticError(plan.problems);
  // PROJECT: the entry replaces the existing one in place, or is appended.
  plan.tree.write(PROJECT_FILE, project.withResource(entry));
  return { tree: plan.tree, changes: plan.tree.changes(), resource: entry, warnings };
}

/** The data of create webhook's templates: the Kind's names, and the examples its test object and webhooks take. */
function webhookTemplateData(valid: ValidWebhook, host: Host): WebhookTemplateData {
  const { config, names, entry } = valid;
  const boilerplate = host.read(BOILERPLATE_FILE)?.toString('utf8');
  const webhookDir = posix.dirname(names.webhookFile);
  const testDir = posix.dirname(names.webhookTestFile);
  // An external Kind's fields are its project's (KubernetesObject has none but metadata). A Kind of
  // this project has create api's example field `foo` until the user (or a plugin such as
  // deploy-image) gives it others: the examples then use the metadata, the test an empty spec.
  const hasFoo =
    !names.core && !names.external && /^\s*foo\?: string;$/m.test(host.read(names.typesFile)?.toString('utf8') ?? '');
  // A built-in Kind: the fields its test object needs (builtin-bodies.ts): written by hand and
  // accepted by the API server for the common Kinds, else its required fields with placeholders.
  const handWritten = names.core ? validBody(names.version, names.kind) : undefined;
  const coreBody = names.core ? (handWritten ?? placeholderBody(names.objType)) : {};
  const onlySpec = Object.keys(coreBody).length === 1 && coreBody.spec !== undefined;
  const coreFields =
    names.core && !onlySpec
      ? Object.entries(coreBody)
          .map(([f, v]) => `    ${f}: ${v},`)
          .join('\n')
      : '';
  const specExample = names.core
    ? onlySpec
      ? coreBody.spec
      : ''
    : names.external
      ? ''
      : hasFoo
        ? "{ foo: 'bar' }"
        : (deployImageSpecExample(config, names) ?? '{}');
  const modelImport = modelImportOf(valid);
  const metadataExamples = names.core || names.external || !hasFoo;
  return {
    ...names,
    licenseHeader: headerFromBoilerplate(boilerplate),
    varName: lowerFirst(names.kind),
    aKind: `${/^[AEIOU]/.test(names.kind) ? 'an' : 'a'} ${names.kind}`,
    modelType: names.objType,
    typesImport: importSpecifier(webhookDir, names.typesFile),
    webhookImport: importSpecifier(testDir, names.webhookFile),
    testTypesImport: importSpecifier(testDir, names.typesFile),
    realTestFile: posix.basename(names.webhookTestFile),
    unitTestFile: posix.basename(names.webhookUnitTestFile),
    customDefaultingPath: entry.webhooks?.defaultingPath !== undefined,
    customValidationPath: entry.webhooks?.validationPath !== undefined,
    specExample,
    coreFields,
    placeholderBody: names.core && !handWritten && Object.keys(coreBody).length > 0,
    podLike: names.core && names.kind === 'Pod',
    defaultExample: metadataExamples
      ? `obj.metadata!.labels = { ...obj.metadata?.labels, 'example.com/defaulted': 'true' };`
      : `obj.spec.foo ??= 'bar';`,
    validateExample: metadataExamples ? `!obj.metadata?.labels?.app` : `!obj.spec.foo`,
    validateField: metadataExamples ? 'metadata.labels.app' : 'spec.foo',
    validateValue: metadataExamples ? 'obj.metadata?.labels?.app' : 'obj.spec.foo',
    descriptor: names.core || names.external,
    modelImport: modelImport(names.kind, webhookDir),
    testModelImport: modelImport(names.kind, testDir),
  };
}

/**
 * The import of a built-in or external Kind's type in a file of `fromDir`: client-node's model of
 * a built-in Kind, the external Kind's own type when it has one, else KubernetesObject.
 */
function modelImportOf(valid: ValidWebhook): (kind: string, fromDir: string) => string {
  const { names } = valid;
  const modelPrefix = names.core ? names.objType.slice(0, -names.kind.length) : '';
  const typeSource = valid.external ? externalTypeSource(valid.external) : undefined;
  return (kind, fromDir) =>
    names.core
      ? `import type { ${modelPrefix}${kind} } from '@kubernetes/client-node';`
      : externalObjectImport(typeSource, kind, fromDir);
}

/** The Kind's names in the webhook file, in the two test files, and per spoke. */
interface WebhookFileIds {
  webhook: WebhookIds;
  test: WebhookIds & { newObject: string };
  spokes: SpokeData[];
}

/**
 * Each file imports the Kind and declares names after it next to names of its own (Client,
 * Warnings, created, newManager, ...): every Kind-derived name is claimed in the scope of its
 * file, renamed where it would collide. The scope of a file takes in every fragment that may
 * ever be added to it, so that the names stay the same from one run to the next.
 */
async function webhookIdentifiers(plan: WebhookPlan): Promise<WebhookFileIds> {
  const { valid, data } = plan;
  const { names, config } = valid;
  const webhookScope = await scopeOf(plan, [
    'webhook/webhook.ts.hbs',
    ...['builder_defaulter', 'builder_validator', 'builder_conversion', 'defaulter', 'validator'].map(
      (f) => `webhook/fragments/${f}.ts.hbs`,
    ),
  ]);
  const exported = [
    `setup${names.kind}WebhookWithManager`,
    `${names.kind}CustomDefaulter`,
    `${names.kind}CustomValidator`,
  ];
  for (const n of exported) webhookScope.claimExact(n);
  const wk = importKind(webhookScope, names.kind);
  const webhook = {
    kindRef: wk.ref,
    kindImport: wk.specifier,
    objType: names.core || names.external ? names.objType : wk.ref,
  };
  // One scope for both test files, so that they name the Kind's things alike.
  const testScope = await scopeOf(plan, [
    'webhook/webhook_test.ts.hbs',
    'webhook/webhook_unit_test.ts.hbs',
    ...['defaulter_test', 'validator_test', 'conversion_test', 'conversion_server_test'].map(
      (f) => `webhook/fragments/${f}.ts.hbs`,
    ),
  ]);
  for (const n of exported) testScope.claimExact(n);
  const tk = importKind(testScope, names.kind);
  const test = {
    kindRef: tk.ref,
    kindImport: tk.specifier,
    objType: names.core || names.external ? names.objType : tk.ref,
    newObject: testScope.claim(`new${names.kind}`, `new${names.kind}Object`),
  };
  /** A spoke's types and conversion as imported into a file of `scope`. */
  const spokeIds = (scope: Scope, version: string) => ({
    spokeAlias: scope.claim(`${names.kind}${pascal(version)}`, `${names.kind}${pascal(version)}Kind`),
    conversionAlias: scope.claim(`${data.varName}Conversion${pascal(version)}`),
  });
  const spokes = valid.spokes.map((s): SpokeData => {
    const spokeNames = apiNames(config, {
      group: s.group,
      version: s.version,
      kind: s.kind,
      plural: s.plural,
      namespaced: names.namespaced,
    });
    const spokeTypes = typesFileOf(config, s);
    return {
      version: s.version,
      spokeTypes,
      conversionFile: `${posix.dirname(spokeTypes)}/${names.fileName}_conversion.ts`,
      ...spokeIds(webhookScope, s.version),
      test: spokeIds(testScope, s.version),
      spokeApiVersion: spokeNames.apiVersion,
    };
  });
  return { webhook, test, spokes };
}

/** The names the templates declare themselves, rendered with the Kind's names set to a placeholder. */
async function scopeOf(plan: WebhookPlan, templates: string[]): Promise<Scope> {
  const { names } = plan.valid;
  const P = PLACEHOLDER_KIND;
  const modelImport = modelImportOf(plan.valid);
  const typeSource = plan.valid.external ? externalTypeSource(plan.valid.external) : undefined;
  const modelPrefix = names.core ? names.objType.slice(0, -names.kind.length) : '';
  const model = names.core
    ? `${modelPrefix}${P}`
    : names.external
      ? typeSource
        ? `${P}Object`
        : 'KubernetesObject'
      : P;
  const placeholders = {
    kind: P,
    kindRef: P,
    kindImport: P,
    varName: lowerFirst(P),
    objType: model,
    modelType: model,
    modelImport: modelImport(P, posix.dirname(names.webhookFile)),
    testModelImport: modelImport(P, posix.dirname(names.webhookTestFile)),
    newObject: `new${P}`,
    spokeAlias: `${P}V0`,
    conversionAlias: `${lowerFirst(P)}ConversionV0`,
    hubAlias: `${P}V1`,
    spokeVersion: 'v0',
    hubVersion: names.version,
    spokeApiVersion: names.apiVersion,
    hubApiVersion: names.apiVersion,
    hubImport: './types.js',
  };
  return new Scope(await templateNames((t) => plan.editor.scopeNames(t), plan.render, templates, placeholders));
}

/** The data of a spoke's conversion file (webhook/conversion.ts.hbs). */
interface ConversionData {
  spokeVersion: string;
  hubVersion: string;
  kindRef: string;
  kindImport: string;
  hubAlias: string;
  hubImport: string;
  hubApiVersion: string;
  spokeApiVersion: string;
}

/** The conversion: one file per spoke, next to the spoke's types. */
async function conversionFiles(plan: WebhookPlan, ids: WebhookFileIds): Promise<FileSpec<ConversionData>[]> {
  const { names } = plan.valid;
  const specs: FileSpec<ConversionData>[] = [];
  for (const s of ids.spokes) {
    const scope = await scopeOf(plan, ['webhook/conversion.ts.hbs']);
    scope.claimExact(`${plan.data.varName}Conversion`);
    const k = importKind(scope, names.kind);
    specs.push({
      path: s.conversionFile,
      policy: 'scaffolded',
      template: 'webhook/conversion.ts.hbs',
      data: {
        spokeVersion: s.version,
        hubVersion: names.version,
        kindRef: k.ref,
        kindImport: k.specifier,
        hubAlias: scope.claim(`${names.kind}${pascal(names.version)}`, `${names.kind}${pascal(names.version)}Hub`),
        hubImport: importSpecifier(posix.dirname(s.conversionFile), names.typesFile),
        hubApiVersion: names.apiVersion,
        spokeApiVersion: s.spokeApiVersion,
      },
    });
  }
  return specs;
}

/** The hub of a conversion: the storage version (KF1064 when another version is), marked @ConversionWebhook(). */
async function markHub(plan: WebhookPlan): Promise<void> {
  const { tree, editor, problems } = plan;
  const { names, config } = plan.valid;
  const versions = config.resources.filter((r) => r.api && r.group === names.group && r.kind === names.kind);
  const hub = versions.find((r) => sameGVK(r, names));
  if (!hub) throw new Error(`create webhook: ${names.kind} ${names.version} is not in PROJECT after its check`);
  const storage = await ensureStorageVersion(tree, editor, config, versions, hub);
  problems.push(...storage.problems);
  const stored = storage.storage;
  if (stored && stored.version !== names.version) {
    problems.push(
      error(
        'KF1064',
        `${names.kind} ${stored.version} is the storage version (@StorageVersion() in ${stored.file}), so it must be the hub, not ${names.version}`,
        {
          file: stored.file,
          line: stored.line,
          hint: `run with --version ${stored.version} --spoke ${[...versions.map((r) => r.version).filter((v) => v !== stored.version)].join(',')}; or move @StorageVersion() to ${names.version} first`,
        },
      ),
    );
  } else if (stored) {
    // ensureStorageVersion read the hub's types file to find or add its @StorageVersion().
    const text = tree.readText(names.typesFile);
    if (text === undefined)
      throw new Error(`create webhook: ${names.typesFile} vanished after its storage version was read`);
    const sf = editor.parse(names.typesFile, text);
    editor.addDecorators(sf, names.kind, [editor.importName(sf, 'kubeforge/markers', 'ConversionWebhook')]);
    tree.write(names.typesFile, sf.getFullText());
  }
}

/** The webhook file: written once, then only added to (a webhook type it lacks, a spoke). */
async function writeWebhookFile(plan: WebhookPlan, ids: WebhookFileIds): Promise<void> {
  const { tree, editor, render, problems, valid } = plan;
  const { names } = valid;
  const { varName } = plan.data;
  const webhookDir = posix.dirname(names.webhookFile);
  const webhookText = tree.readText(names.webhookFile) ?? (await render('webhook/webhook.ts.hbs', ids.webhook));
  let wsf = editor.parse(names.webhookFile, webhookText);
  const webhookInsertions: Insertion[] = [];
  const runtimeImports: { name: string; typeOnly?: boolean }[] = [];
  const webhookImports: { module: string; names: { name: string; alias?: string; typeOnly?: boolean }[] }[] = [];
  const classes: string[] = [];
  if (valid.defaulting && !editor.declares(wsf, `${names.kind}CustomDefaulter`)) {
    webhookInsertions.push({
      marker: '+kubebuilder:scaffold:webhook-builder',
      fragment: await render('webhook/fragments/builder_defaulter.ts.hbs', ids.webhook),
    });
    webhookInsertions.push({
      marker: '+kubebuilder:scaffold:webhook',
      fragment: await render('webhook/fragments/defaulter.ts.hbs', ids.webhook),
      separate: true,
    });
    runtimeImports.push({ name: 'AdmissionContext', typeOnly: true }, { name: 'CustomDefaulter', typeOnly: true });
    classes.push(`${names.kind}CustomDefaulter`);
  }
  if (valid.validation && !editor.declares(wsf, `${names.kind}CustomValidator`)) {
    webhookInsertions.push({
      marker: '+kubebuilder:scaffold:webhook-builder',
      fragment: await render('webhook/fragments/builder_validator.ts.hbs', ids.webhook),
    });
    webhookInsertions.push({
      marker: '+kubebuilder:scaffold:webhook',
      fragment: await render('webhook/fragments/validator.ts.hbs', ids.webhook),
      separate: true,
    });
    runtimeImports.push(
      { name: 'AdmissionContext', typeOnly: true },
      { name: 'CustomValidator', typeOnly: true },
      { name: 'Warnings', typeOnly: true },
    );
    classes.push(`${names.kind}CustomValidator`);
  }
  if (classes.length) webhookImports.push({ module: 'kubeforge/markers', names: [{ name: 'Webhook' }] });
  for (const s of ids.spokes) {
    webhookInsertions.push({
      marker: '+kubebuilder:scaffold:webhook-builder',
      fragment: await render('webhook/fragments/builder_conversion.ts.hbs', {
        ...ids.webhook,
        spokeAlias: s.spokeAlias,
        conversionAlias: s.conversionAlias,
      }),
    });
    webhookImports.push(
      { module: importSpecifier(webhookDir, s.spokeTypes), names: [{ name: names.kind, alias: s.spokeAlias }] },
      {
        module: importSpecifier(webhookDir, s.conversionFile),
        names: [{ name: `${varName}Conversion`, alias: s.conversionAlias }],
      },
    );
  }
  let webhookOut = insertInto(webhookText, webhookInsertions, names.webhookFile, problems);
  wsf = editor.parse(names.webhookFile, webhookOut);
  if (runtimeImports.length) editor.ensureNamedImports(wsf, 'kubeforge/runtime', runtimeImports);
  for (const i of webhookImports) editor.ensureNamedImports(wsf, i.module, i.names);
  webhookOut = wsf.getFullText();
  tree.write(names.webhookFile, webhookOut);
}

/**
 * Its tests, each file written once, then added to as webhook types come: the classes called
 * directly in the unit tier (no API server), the webhooks called by a real API server in the other.
 * A project made before the unit tier has the direct tests in the second file: they stay there,
 * and are not written again.
 */
async function writeWebhookTests(plan: WebhookPlan, ids: WebhookFileIds): Promise<void> {
  const { tree, editor, render, problems, valid, data } = plan;
  const { names } = valid;
  const { varName } = data;
  const testDir = posix.dirname(names.webhookTestFile);
  const testExists = tree.exists(names.webhookTestFile);
  const testText = tree.readText(names.webhookTestFile) ?? (await render('webhook/webhook_test.ts.hbs', ids.test));
  const unitExists = tree.exists(names.webhookUnitTestFile);
  const unitText =
    tree.readText(names.webhookUnitTestFile) ?? (await render('webhook/webhook_unit_test.ts.hbs', ids.test));
  const testInsertions: Insertion[] = [];
  const unitInsertions: Insertion[] = [];
  const testImports: { module: string; names: { name: string; alias?: string }[] }[] = [];
  const unitImports: { module: string; names: { name: string; alias?: string }[] }[] = [];
  const mentions = (title: string) => testText.includes(title) || (unitExists && unitText.includes(title));
  if (valid.defaulting && !mentions(`it('${names.kind}CustomDefaulter `)) {
    unitInsertions.push({
      marker: '+kubebuilder:scaffold:webhook-tests',
      fragment: await render('webhook/fragments/defaulter_test.ts.hbs', ids.test),
      separate: true,
    });
    unitImports.push({
      module: importSpecifier(testDir, names.webhookFile),
      names: [{ name: `${names.kind}CustomDefaulter` }],
    });
  }
  if (valid.validation && !mentions(`it('${names.kind}CustomValidator `)) {
    unitInsertions.push({
      marker: '+kubebuilder:scaffold:webhook-tests',
      fragment: await render('webhook/fragments/validator_test.ts.hbs', ids.test),
      separate: true,
    });
    unitImports.push({
      module: importSpecifier(testDir, names.webhookFile),
      names: [{ name: `${names.kind}CustomValidator` }],
    });
  }
  for (const s of ids.spokes) {
    const extra = {
      ...ids.test,
      spokeVersion: s.version,
      hubVersion: names.version,
      spokeAlias: s.test.spokeAlias,
      conversionAlias: s.test.conversionAlias,
      spokeApiVersion: s.spokeApiVersion,
    };
    const spokeImport = {
      module: importSpecifier(testDir, s.spokeTypes),
      names: [{ name: names.kind, alias: s.test.spokeAlias }],
    };
    if (!mentions(`it('${varName}Conversion (${s.version})`)) {
      unitInsertions.push({
        marker: '+kubebuilder:scaffold:webhook-tests',
        fragment: await render('webhook/fragments/conversion_test.ts.hbs', extra),
        separate: true,
      });
      unitImports.push(spokeImport, {
        module: importSpecifier(testDir, s.conversionFile),
        names: [{ name: `${varName}Conversion`, alias: s.test.conversionAlias }],
      });
    }
    if (!mentions(`it('${data.aKind} ${s.version} created through the API server`)) {
      testInsertions.push({
        marker: '+kubebuilder:scaffold:webhook-server-tests',
        fragment: await render('webhook/fragments/conversion_server_test.ts.hbs', extra),
        separate: true,
      });
      testImports.push(spokeImport);
    }
  }
  const writeTest = (path: string, text: string, insertions: Insertion[], imports: typeof testImports) => {
    const tsf = editor.parse(path, insertInto(text, insertions, path, problems));
    for (const i of imports) editor.ensureNamedImports(tsf, i.module, i.names);
    tree.write(path, tsf.getFullText());
  };
  if (!testExists || testInsertions.length) writeTest(names.webhookTestFile, testText, testInsertions, testImports);
  if (unitInsertions.length) writeTest(names.webhookUnitTestFile, unitText, unitInsertions, unitImports);
}

/**
 * src/main.ts: the setup call, unless ENABLE_WEBHOOKS=false. Returns main.ts's text as it was
 * (undefined when it is missing).
 */
async function registerInMain(plan: WebhookPlan): Promise<string | undefined> {
  const { tree, render, problems, warnings, valid } = plan;
  const { names, config } = valid;
  // main.ts imports every setup function: the group (multigroup) and the version (when another
  // version of the Kind has webhooks too) keep the names apart.
  const grouped = names.multigroup && names.group !== '';
  const otherVersion = config.resources.some(
    (r) => r.webhooks && r.group === names.group && r.kind === names.kind && r.version !== names.version,
  );
  const setupAlias =
    grouped || otherVersion
      ? `setup${grouped ? pascal(names.group) : ''}${names.kind}${otherVersion ? pascal(names.version) : ''}WebhookWithManager`
      : undefined;
  // The webhook imports the Kind's types: without the file the scaffold would not compile.
  if (!names.core && !names.external && tree.readText(names.typesFile) === undefined) {
    problems.push(
      error('KF1104', `${names.typesFile} is missing: the ${names.kind} webhook imports the Kind from it`, {
        file: names.typesFile,
        hint: `restore it, or record where ${names.kind} ${names.version} lives in the "path" of its ${PROJECT_FILE} entry`,
      }),
    );
  }
  const mainText = tree.readText('src/main.ts');
  const main: FileInserter = {
    path: 'src/main.ts',
    insertions: [
      {
        marker: '+kubebuilder:scaffold:imports',
        fragment: await render('webhook/fragments/main_imports.ts.hbs', {
          alias: setupAlias ?? '',
          mainWebhookImport: importSpecifier('src', names.webhookFile),
        }),
      },
      {
        marker: '+kubebuilder:scaffold:builder',
        fragment: await render('webhook/fragments/main_setup.ts.hbs', {
          setupName: setupAlias ?? `setup${names.kind}WebhookWithManager`,
        }),
      },
    ],
    missing: error('KF1047', `src/main.ts is missing: kubeforge registers the ${names.kind} webhooks there`, {
      file: 'src/main.ts',
      hint: 'restore it from `kubeforge init --dry-run` output in an empty folder',
    }),
  };
  applyInserters(tree, [main], problems);
  if (mainText !== undefined && !(tree.readText('src/main.ts') ?? mainText).includes('newWebhookServer(')) {
    warnings.push(
      'src/main.ts builds no webhook server (it predates kubeforge create webhook): pass `webhookServer: newWebhookServer({ port: 9443, certDir: ... })` to newManager so that the webhooks are served',
    );
  }
  return mainText;
}

/**
 * config/: the webhook Service and configurations, cert-manager, CA injection, network policy.
 * `mainText` is main.ts's text (it tells whether the manager takes --webhook-port).
 */
async function switchOnWebhookConfig(plan: WebhookPlan, mainText: string | undefined): Promise<void> {
  const { tree, render, problems, warnings, valid } = plan;
  const { names, entry } = valid;
  // As Kubebuilder: a file of config/ without the commented line (edited, or deleted) is a warning
  // saying what to add by hand; a deleted file is said to be missing, once, not re-created.
  const saidMissing = new Set<string>();
  const edit = (path: string, change: (text: string) => string | undefined, missing: string) => {
    const text = tree.readText(path);
    if (text === undefined) {
      if (!saidMissing.has(path))
        warnings.push(
          `${path} is missing, so it was not changed: without it the webhooks are not deployed by config/default (restore it, or wire them in your own deployment)`,
        );
      saidMissing.add(path);
      return;
    }
    const updated = change(text);
    if (updated === undefined) warnings.push(`${path}: ${missing}`);
    else if (updated !== text) tree.write(path, updated);
  };
  const admission = entry.webhooks?.defaulting || entry.webhooks?.validation;
  const def = DEFAULT_KUSTOMIZATION;
  edit(
    def,
    (t) => uncommentLines(t, ['- ../webhook']),
    'no "#- ../webhook" line to switch on; add "- ../webhook" to its resources',
  );
  edit(
    def,
    (t) => uncommentLines(t, ['- ../certmanager']),
    'no "#- ../certmanager" line to switch on; add "- ../certmanager" to its resources',
  );
  edit(
    def,
    (t) => uncommentBlock(t, '# [WEBHOOK-PATCH]'),
    'no [WEBHOOK-PATCH] block to switch on; add the patch manager_webhook_patch.yaml (target kind: Deployment)',
  );
  edit(
    def,
    (t) => uncommentBlock(t, '# [CERTMANAGER-WEBHOOK]'),
    "no [CERTMANAGER-WEBHOOK] block to switch on; add the replacements of the serving certificate's DNS names",
  );
  if (valid.defaulting)
    edit(
      def,
      (t) => uncommentBlock(t, '# [CERTMANAGER-MUTATING]'),
      'no [CERTMANAGER-MUTATING] block to switch on; add the cert-manager.io/inject-ca-from replacement of the MutatingWebhookConfiguration',
    );
  if (valid.validation)
    edit(
      def,
      (t) => uncommentBlock(t, '# [CERTMANAGER-VALIDATING]'),
      'no [CERTMANAGER-VALIDATING] block to switch on; add the cert-manager.io/inject-ca-from replacement of the ValidatingWebhookConfiguration',
    );
  if (valid.conversion) {
    const crdName = `${names.plural}.${names.qualifiedGroup}`;
    const text = tree.readText(def);
    if (text?.includes('+kubebuilder:scaffold:crdkustomizecainjection')) {
      const fragment = await render('webhook/fragments/crd_cainjection.yaml.hbs', { crdName });
      tree.write(
        def,
        insertInto(text, [{ marker: '+kubebuilder:scaffold:crdkustomizecainjection', fragment }], def, problems),
      );
    } else
      warnings.push(
        `${def}: no "+kubebuilder:scaffold:crdkustomizecainjection" marker; add the cert-manager.io/inject-ca-from replacements of the CRD ${crdName} to its replacements`,
      );
    edit(
      'config/crd/kustomization.yaml',
      (t) => uncommentLines(t, ['configurations:', '- kustomizeconfig.yaml']),
      'no "#configurations: / #- kustomizeconfig.yaml" lines to switch on; add them so that kustomize names the conversion webhook Service',
    );
  }
  if (admission)
    edit(
      'config/webhook/kustomization.yaml',
      (t) => uncommentLines(t, ['- manifests.yaml']),
      'no "#- manifests.yaml" line to switch on; add "- manifests.yaml" to its resources',
    );
  edit(
    'config/network-policy/kustomization.yaml',
    (t) => uncommentLines(t, ['- allow-webhook-traffic.yaml']),
    'no "#- allow-webhook-traffic.yaml" line to switch on; add it to its resources',
  );
  // The manager takes --webhook-port: the patch passes the port the Service targets.
  const patch = tree.readText(WEBHOOK_PATCH);
  if (patch !== undefined && mainText?.includes("'webhook-port'") && !patch.includes('--webhook-port=')) {
    const lines = patch.split('\n');
    const at = lines.findIndex((l) => l.includes('value: --webhook-cert-path='));
    if (at >= 0) {
      lines.splice(
        at + 1,
        0,
        ...(await render('webhook/fragments/webhook_port_patch.yaml.hbs')).replace(/\n$/, '').split('\n'),
      );
      tree.write(WEBHOOK_PATCH, lines.join('\n'));
    } else
      warnings.push(
        `${WEBHOOK_PATCH}: no --webhook-cert-path argument to put --webhook-port=9443 after; add it to the manager's args`,
      );
  }
}

/**
 * Runs `kubeforge create webhook` through the command runner (src/machinery/runner.ts): under the
 * project's lock unless --dry-run; the scaffold and its manifests planned in one tree, then one
 * commit (see manifests-step.ts).
 */
export async function runCreateWebhook(
  options: CreateWebhookOptions,
  env: CreateWebhookEnvironment,
): Promise<CreateWebhookResult> {
  const host = env.host ?? new DiskHost(env.cwd);
  const steps = scaffoldSteps({
    name: 'create webhook',
    env,
    make: options.make,
    plan: () => planCreateWebhook(options, { ...env, host }),
    failure: ({ resource: { kind } }) =>
      `generating the manifests with the ${kind} webhooks failed (see above), so they were not scaffolded: nothing was written`,
    result: (p, manifests): CreateWebhookResult => ({
      changes: p.changes,
      plan: formatPlan(p.changes, { color: env.color }),
      resource: p.resource,
      manifests,
    }),
    nextSteps: (p) => nextSteps(p.resource, options),
  });
  return runCommand(steps, env, { host, dryRun: options.dryRun, force: options.force });
}

function nextSteps(r: ProjectResource, options: CreateWebhookOptions): string {
  const lines = ['', 'Next:'];
  if (options.defaulting || options.programmaticValidation)
    lines.push(`  fill in the TODO(user) parts of the ${r.kind} defaulter / validator, then: npm test`);
  if (options.conversion)
    lines.push(
      `  write the conversion of each spoke of ${r.kind} (<kind>_conversion.ts next to its types), then: npm run manifests`,
    );
  lines.push(
    '  make deploy     # config/default installs the webhooks with cert-manager certificates (cert-manager must run in the cluster)',
    '',
  );
  return lines.join('\n');
}
