/**
 * `kubeforge create api`: a new Kind (or a new version of one) in an initialised project, as
 * Kubebuilder's go/v4 plugin scaffolds it: the decorated API types, a controller wired into
 * src/main.ts and its tests (on a real API server, and the unit tier on the fake one), samples, admin/editor/viewer roles, the CRD kustomization, and the
 * resource entry in PROJECT. Everything is validated and computed in a virtual tree first, the
 * CRD and RBAC role `kubeforge manifests` makes of the new types included (in-process, as
 * Kubebuilder runs `make generate manifests`), then committed in one go (or printed with --dry-run).
 */
import type { ScaffoldEnvironment } from './environment.js';
import { join, posix } from 'node:path';
import { parseDocument } from 'yaml';
import { DiagnosticError, type Diagnostic, error } from '../diagnostics/index.js';
import { pluralize } from '../project/plural.js';
import { BUILTIN_KINDS, type BuiltinKind, builtinKindsNamed, findBuiltinKind } from '../project/builtin-kinds.js';
import {
  isDns1123Subdomain,
  KUBEFORGE_LAYOUT,
  parseProject,
  PROJECT_FILE,
  type ProjectConfig,
  type ProjectResource,
  qualifiedGroup,
  checkGvkFlags,
  refusedKind,
  serializeProject,
  validateDns1123Label,
  validateKind,
  validateVersion,
} from '../project/index.js';
import {
  applySpecs,
  type Change,
  DiskHost,
  type FileSpec,
  formatPlan,
  type Host,
  type Insertion,
  insertAtMarkers,
  runCommand,
  TemplateRenderer,
  Tree,
} from '../scaffold/index.js';
import { packageRoot } from '../util/package-root.js';
import { BOILERPLATE_FILE } from './paths.js';
import { importKind, lowerFirst, PLACEHOLDER_KIND, Scope, templateNames } from './identifiers.js';
import { type ManifestsStep, scaffoldSteps } from './transaction.js';
import { checkDeployImageFlags, type DeployImage, deployImageData, imageEnvName, MANAGER_FILE, resolveCreateApiPlugins, setImageEnv, withDeployImageResource } from './deployimage.js';
import { TsEditor } from './tsedit.js';

export interface CreateApiOptions {
  group?: string;
  version?: string;
  kind?: string;
  /** Resource name override (default: the plural `kubeforge manifests` derives from the Kind). */
  plural?: string;
  /** Namespaced (default) or cluster-scoped. */
  namespaced?: boolean;
  /** Scaffold the API types (default true). */
  resource?: boolean;
  /** Scaffold the controller (default true). */
  controller?: boolean;
  /**
   * Server-side apply (Kubebuilder's alpha `--ssa`): the controller writes the status it owns with
   * `client.status().apply` as its field manager; PROJECT records `api.ssa: true`. Needs --resource.
   */
  ssa?: boolean;
  /** Replace scaffolded files that differ, and scaffold a Kind that PROJECT already has. */
  force?: boolean;
  /** Print the plan, write nothing, skip the manifests step. */
  dryRun?: boolean;
  /** Run `kubeforge manifests` afterwards (default true; Kubebuilder's --make). */
  make?: boolean;
  /** Plugins of create api: `deploy-image/v1-alpha` (deployimage.ts), which takes the flags below. */
  plugins?: string[];
  /** deploy-image: the Operand image (required with the plugin). */
  image?: string;
  /** deploy-image: the container's command, comma-separated. */
  imageContainerCommand?: string;
  /** deploy-image: the container's port (adds `spec.containerPort`). */
  imageContainerPort?: string;
  /** deploy-image: the user id the container runs as. */
  runAsUser?: string;
  /**
   * Name of the controller (Kubebuilder 4's --controller-name): a second controller for a Kind
   * gets its own file (`<name with - as _>_controller.ts`), class (`<Name>Reconciler`) and
   * runtime name. Default (and the same as omitting it): the lower-cased Kind.
   */
  controllerName?: string;
  /**
   * A Kind another project owns (Kubebuilder's --external-api-path): where its TypeScript type
   * is, see {@link externalTypeSource}. Needs --resource=false; recorded as `external: true`.
   */
  externalApiPath?: string;
  /** The domain of the external Kind's group (`io` for cert-manager.io; default: the project's). */
  externalApiDomain?: string;
  /** The npm package (`name[@version]`) the external type comes from: added to package.json's dependencies. */
  externalApiModule?: string;
}

/** The --external-api-* flags of `create api` and `create webhook`. */
export interface ExternalApiOptions {
  externalApiPath?: string;
  externalApiDomain?: string;
  externalApiModule?: string;
}

/** An external Kind as PROJECT records it (Kubebuilder's `external: true`, `path`, `domain`, `module`). */
export interface ExternalApi {
  path: string;
  domain?: string;
  module?: string;
}

/** Where the TypeScript type of an external Kind comes from; undefined: it has none (the code uses KubernetesObject). */
export type ExternalTypeSource = { kind: 'file'; file: string } | { kind: 'module'; specifier: string; packageName: string; version?: string };

const NPM_NAME = /^(?:@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/;

/** `name[@version]` of --external-api-module: the package name, and the version when given. */
export function parseModule(module: string): { name: string; version?: string } {
  const at = module.lastIndexOf('@');
  return at > 0 ? { name: module.slice(0, at), version: module.slice(at + 1) } : { name: module };
}

/** Whether --external-api-path names a file of the project (rather than a module). */
function isLocalPath(path: string): boolean {
  return path.startsWith('./') || path.startsWith('../') || path.startsWith('src/') || /\.(m|c)?ts$/.test(path);
}

/**
 * What --external-api-path means in TypeScript:
 * - a file of the project (`./`, `../`, `src/`, or a `.ts` name: `src/external/certmanager/v1.ts`)
 *   exporting a type named after the Kind: the scaffolded code imports it from there;
 * - an import specifier inside the npm package of --external-api-module (`@acme/cert-types` or
 *   `@acme/cert-types/v1`): the code imports the type from it, and the package is a dependency;
 * - anything else (a Go import path, as Kubebuilder records it): no TypeScript type; the code uses
 *   `KubernetesObject` with the Kind's apiVersion and kind.
 */
export function externalTypeSource(ext: ExternalApi): ExternalTypeSource | undefined {
  if (isLocalPath(ext.path)) return { kind: 'file', file: posix.normalize(ext.path).replace(/^\.\//, '') };
  if (ext.module === undefined) return undefined;
  const { name, version } = parseModule(ext.module);
  if (!NPM_NAME.test(name) || !(ext.path === name || ext.path.startsWith(`${name}/`))) return undefined;
  return { kind: 'module', specifier: ext.path, packageName: name, version };
}

/**
 * The import line of an external Kind's object type in a file of `fromDir`: the Kind's own type
 * (as `<Kind>Object`) when it has one, else client-node's KubernetesObject.
 */
export function externalObjectImport(source: ExternalTypeSource | undefined, kind: string, fromDir: string): string {
  if (source === undefined) return "import type { KubernetesObject } from '@kubernetes/client-node';";
  return `import type { ${kind} as ${kind}Object } from '${source.kind === 'file' ? importSpecifier(fromDir, source.file) : source.specifier}';`;
}

/**
 * Checks the --external-api-* flags (KF1094, KF1095); returns the external Kind they describe, or
 * the one PROJECT records for this Kind, or undefined. `file` tells whether the project has a file.
 */
export function validateExternalApi(
  options: ExternalApiOptions,
  existing: ProjectResource | undefined,
  owned: string | undefined,
  group: string,
  exists: (file: string) => boolean,
  problems: Diagnostic[],
): ExternalApi | undefined {
  const given = options.externalApiPath !== undefined || options.externalApiDomain !== undefined || options.externalApiModule !== undefined;
  if (!given) return existing?.external && existing.path ? { path: existing.path, domain: existing.domain, module: existing.module } : undefined;
  if (owned) {
    problems.push(error('KF1094', `--external-api-path, --external-api-domain and --external-api-module are for a Kind another project owns; ${owned}`, { hint: 'drop the --external-api-* flags' }));
    return undefined;
  }
  const path = options.externalApiPath?.trim();
  if (!path) {
    problems.push(error('KF1094', '--external-api-domain and --external-api-module need --external-api-path: where the type of the external Kind comes from', { hint: 'e.g. --external-api-path src/external/certmanager/v1.ts, or a module specifier' }));
    return undefined;
  }
  const ext: ExternalApi = { path, domain: options.externalApiDomain, module: options.externalApiModule };
  if (path.includes('@') && !path.startsWith('@')) {
    problems.push(error('KF1095', `invalid --external-api-path "${path}": a version belongs in --external-api-module, not in the path`, { hint: 'e.g. --external-api-path @acme/cert-types/v1 --external-api-module @acme/cert-types@1.2.0' }));
  }
  const source = externalTypeSource(ext);
  if (source?.kind === 'file') {
    if (source.file.startsWith('../')) problems.push(error('KF1095', `invalid --external-api-path "${path}": the file is outside the project`, { hint: 'copy the type into the project, e.g. src/external/' }));
    else if (!exists(source.file)) {
      problems.push(error('KF1095', `--external-api-path ${path}: there is no such file in the project`, { file: source.file, hint: 'create it first: a module exporting the TypeScript type of the Kind (an interface with apiVersion, kind, metadata, spec, status)' }));
    }
  }
  if (ext.domain !== undefined && !isDns1123Subdomain(qualifiedGroup(group, ext.domain))) {
    problems.push(error('KF1095', `invalid --external-api-domain "${ext.domain}": the group ${qualifiedGroup(group, ext.domain)} is not a DNS-1123 subdomain`, { hint: 'e.g. --group cert-manager --external-api-domain io for cert-manager.io' }));
  }
  if (ext.module !== undefined && !/^\S+$/.test(ext.module)) problems.push(error('KF1095', `invalid --external-api-module "${ext.module}"`, { hint: 'e.g. --external-api-module @acme/cert-types@1.2.0' }));
  return ext;
}

/**
 * The npm package an external Kind's type comes from becomes a dependency in package.json
 * (Kubebuilder runs `go get <module>`); a module that is not an npm package of the path (a Go
 * module) is only recorded, with a warning.
 */
export function addExternalDependency(tree: Tree, external: ExternalApi | undefined, existing: ProjectResource | undefined, kind: string, warnings: string[]): void {
  const source = external && externalTypeSource(external);
  if (source?.kind === 'module') {
    const pkg = tree.readText('package.json');
    const updated = pkg === undefined ? undefined : withDependency(pkg, source.packageName, source.version);
    if (pkg === undefined) warnings.push(`package.json is missing: add ${source.packageName} to its dependencies`);
    else if (updated !== undefined) tree.write('package.json', updated);
  } else if (external?.module !== undefined && !existing?.external) {
    warnings.push(`--external-api-module ${external.module} is not an npm package of --external-api-path ${external.path}: recorded in ${PROJECT_FILE} only; ${kind} is addressed as an untyped KubernetesObject`);
  }
}

/** package.json with the external type's package among its dependencies (sorted, as npm keeps them); undefined when unchanged. */
export function withDependency(packageJson: string, name: string, version: string | undefined): string | undefined {
  const json = JSON.parse(packageJson) as { dependencies?: Record<string, string> };
  const wanted = version ?? '*';
  if (json.dependencies?.[name] === wanted || (version === undefined && json.dependencies?.[name] !== undefined)) return undefined;
  const deps = { ...(json.dependencies ?? {}), [name]: wanted };
  json.dependencies = Object.fromEntries(Object.keys(deps).sort().map((k) => [k, deps[k]]));
  return `${JSON.stringify(json, null, 2)}\n`;
}

export { defaultManifestsStep, type ManifestsStep } from './transaction.js';

export interface CreateApiEnvironment extends ScaffoldEnvironment {
  /**
   * Plans `kubeforge manifests` into the scaffold's tree before the commit; default: the real
   * one, in-process. `false` skips it (a project on a memory host cannot be analysed).
   */
  manifests?: ManifestsStep | false;
}

export interface CreateApiResult {
  changes: Change[];
  plan: string;
  /** The entry now in PROJECT. */
  resource: ProjectResource;
  /** Whether the manifests step ran and succeeded. */
  manifests: boolean;
}

/**
 * Kubernetes' own API groups, by the short name Kubebuilder accepts in --group, with their full
 * name. `--resource=false` on one of these (with no API of that name in PROJECT) scaffolds a
 * controller for the built-in Kind, as `kubebuilder create api --group apps --kind Deployment
 * --resource=false` does.
 */
export const CORE_GROUPS: Readonly<Record<string, string>> = {
  admissionregistration: 'admissionregistration.k8s.io',
  apiextensions: 'apiextensions.k8s.io',
  apps: 'apps',
  authentication: 'authentication.k8s.io',
  authorization: 'authorization.k8s.io',
  autoscaling: 'autoscaling',
  batch: 'batch',
  certificates: 'certificates.k8s.io',
  coordination: 'coordination.k8s.io',
  core: '',
  discovery: 'discovery.k8s.io',
  events: 'events.k8s.io',
  flowcontrol: 'flowcontrol.apiserver.k8s.io',
  networking: 'networking.k8s.io',
  node: 'node.k8s.io',
  policy: 'policy',
  rbac: 'rbac.authorization.k8s.io',
  scheduling: 'scheduling.k8s.io',
  storage: 'storage.k8s.io',
};

/**
 * The built-in Kind a command names by a Kubernetes group (`--group apps --version v1 --kind
 * Deployment`); throws KF1066 when Kubernetes serves no such Kind there (`apps/v2 Deployment`,
 * `core/v1 Deployment`): the scaffold would import a client-node model that does not exist, or
 * write the webhooks of another group's Kind. The hint names where a Kind of that name is.
 */
export function requireBuiltinKind(group: string, version: string, kind: string): BuiltinKind {
  const found = findBuiltinKind(group, version, kind);
  if (found) return found;
  const elsewhere = builtinKindsNamed(kind).map((k) => `--group ${k.group} --version ${k.version}`);
  const caseless = elsewhere.length ? [] : BUILTIN_KINDS.filter((k) => k.kind.toLowerCase() === kind.toLowerCase()).map((k) => `--kind ${k.kind}`);
  const sameGroup = [...new Set(BUILTIN_KINDS.filter((k) => k.group === group && k.version === version).map((k) => k.kind))];
  throw new DiagnosticError(error('KF1066', `Kubernetes serves no built-in Kind ${kind} in ${group === 'core' ? '' : `${CORE_GROUPS[group]}/`}${version} (${group}/${version})`, {
    hint: elsewhere.length
      ? `${kind} is built in as ${elsewhere.join(', or ')}`
      : caseless.length
        ? `did you mean ${[...new Set(caseless)].join(' or ')}?`
        : sameGroup.length
          ? `${group}/${version} has ${sameGroup.slice(0, 12).join(', ')}${sameGroup.length > 12 ? ', ...' : ''}; for a Kind of your own, use a group of your domain`
          : `Kubernetes serves no ${group}/${version}: check --version, or use a group of your domain for a Kind of your own`,
  }));
}

/** Everything the templates and the PROJECT entry need about one Kind. */
export interface ApiNames {
  group: string;
  version: string;
  kind: string;
  domain: string;
  qualifiedGroup: string;
  apiVersion: string;
  plural: string;
  /** A built-in Kubernetes Kind (controller only): its group is Kubernetes', not the project's. */
  core: boolean;
  /** A Kind another project owns (controller or webhooks only): its group's domain is its own. */
  external: boolean;
  /** True when the plural was given and differs from the derived one. */
  irregularPlural: boolean;
  namespaced: boolean;
  multigroup: boolean;
  /** `cronjob` */
  fileName: string;
  /** `src/api/v1` or `src/api/batch/v1` */
  apiDir: string;
  typesFile: string;
  controllerFile: string;
  controllerTestFile: string;
  /** Its unit tier: the same assertions on kubeforge/testing's FakeAPIServer (`npm run test:unit`). */
  controllerUnitTestFile: string;
  /** Prefix of the rbac role files and names: `cronjob`, or `batch_cronjob` / `batch-cronjob` with multigroup. */
  rbacFilePrefix: string;
  roleName: string;
  /** The runtime name of the controller (`.named()`, the event recorder): `<name>`, or `<group>-<name>` with multigroup. */
  controllerName: string;
  /** The controller's class: `<Kind>Reconciler`, or `<Name>Reconciler` for a named controller. */
  reconciler: string;
  sampleFile: string;
  crdFile: string;
}

/** The layout of one Kind, following Kubebuilder's paths with TypeScript's folders. */
export function apiNames(
  config: ProjectConfig,
  v: { group: string; version: string; kind: string; plural?: string; namespaced: boolean; core?: boolean; controllerName?: string; external?: { domain?: string } },
): ApiNames {
  const multigroup = config.multigroup === true;
  const fileName = v.kind.toLowerCase();
  const derived = pluralize(v.kind);
  const plural = v.plural ?? derived;
  const core = v.core === true;
  const domain = v.external?.domain ?? config.domain;
  const qg = core ? CORE_GROUPS[v.group] : qualifiedGroup(v.group, domain);
  const grouped = multigroup && v.group !== '';
  const apiDir = grouped ? `src/api/${v.group}/${v.version}` : `src/api/${v.version}`;
  const controllerDir = grouped ? `src/controller/${v.group}` : 'src/controller';
  const testDir = grouped ? `test/controller/${v.group}` : 'test/controller';
  // A named controller (Kubebuilder's --controller-name): its own file and class; the default name is the lower-cased Kind.
  const controller = v.controllerName ?? fileName;
  const controllerFileName = controller.replace(/-/g, '_');
  return {
    group: v.group,
    version: v.version,
    kind: v.kind,
    domain: core ? '' : domain,
    qualifiedGroup: qg,
    apiVersion: qg ? `${qg}/${v.version}` : v.version,
    core,
    external: v.external !== undefined,
    plural,
    irregularPlural: plural !== derived,
    namespaced: v.namespaced,
    multigroup,
    fileName,
    apiDir,
    typesFile: `${apiDir}/${fileName}_types.ts`,
    controllerFile: `${controllerDir}/${controllerFileName}_controller.ts`,
    controllerTestFile: `${testDir}/${controllerFileName}_controller.test.ts`,
    controllerUnitTestFile: `${testDir}/${controllerFileName}_controller.unit.test.ts`,
    rbacFilePrefix: grouped ? `${v.group}_${fileName}` : fileName,
    roleName: grouped ? `${v.group}-${fileName}` : fileName,
    controllerName: grouped ? `${v.group}-${controller}` : controller,
    reconciler: reconcilerName(controller, v.kind),
    sampleFile: v.group ? `${v.group}_${v.version}_${fileName}.yaml` : `${v.version}_${fileName}.yaml`,
    crdFile: `bases/${qg}_${plural}.yaml`,
  };
}

/**
 * The class of a controller: `<Kind>Reconciler` for the default name (the lower-cased Kind),
 * else the name in PascalCase (`captain-backup` -> `CaptainBackupReconciler`), as Kubebuilder's
 * NormalizeReconcilerName.
 */
export function reconcilerName(controllerName: string, kind: string): string {
  if (controllerName === kind.toLowerCase()) return `${kind}Reconciler`;
  return `${pascal(controllerName)}Reconciler`;
}

/** The names of a resource's controllers, as PROJECT records them (Kubebuilder's `controllers:`, or the legacy `controller: true`: the lower-cased Kind). */
export function controllerNamesOf(r: ProjectResource): string[] {
  if (r.controllers?.length) return r.controllers.map((c) => c.name);
  return r.controller ? [r.kind.toLowerCase()] : [];
}

/** The Kind-derived names a template takes, all set to `placeholder` (to find the template's own names). */
function placeholderNames(placeholder: string): Record<string, string> {
  return { kind: placeholder, kindRef: placeholder, kindImport: placeholder, varName: lowerFirst(placeholder), reconciler: `${placeholder}Reconciler` };
}

/**
 * What the types file imports, and under which names: the file declares the Kind, <Kind>Spec
 * and <Kind>Status, so an import of the same name is aliased (`Resource as ResourceMarker` for
 * Kind Resource, `V1Condition as K8sV1Condition`, `SubresourceStatus as SubresourceStatusMarker`
 * for Kind Subresource).
 */
function typesFileNames(kind: string, withResource: boolean, extraMarkers: readonly string[] = [], typeImports: readonly string[] = []): { clientNodeImports: string; markerImports: string; ids: Record<string, string> } {
  const scope = new Scope([kind, `${kind}Spec`, `${kind}Status`]);
  const ids: Record<string, string> = {};
  const imported = (name: string, alias: string) => {
    ids[name] = scope.claim(name, alias);
    return ids[name] === name ? name : `${name} as ${ids[name]}`;
  };
  const clientNodeImports = ['V1Condition', 'V1ObjectMeta'].map((n) => imported(n, `K8s${n}`)).join(', ');
  const markers = ['ListMapKey', 'ListType', ...(withResource ? ['Resource'] : []), 'Root', 'SubresourceStatus', ...extraMarkers].sort();
  const markerImports = [...markers.map((n) => imported(n, `${n}Marker`)), ...typeImports.map((n) => `type ${imported(n, `${n}Type`)}`)].join(', ');
  return { clientNodeImports, markerImports, ids };
}

/** `./x.js`-style ESM specifier of `to` (a .ts file) as imported from a file in `fromDir`. */
function importSpecifier(fromDir: string, to: string): string {
  const rel = posix.relative(fromDir, to).replace(/\.ts$/, '.js');
  return rel.startsWith('.') ? rel : `./${rel}`;
}

function pascal(s: string): string {
  return s
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((p) => p[0].toUpperCase() + p.slice(1))
    .join('');
}

const sameGVK = (r: ProjectResource, n: { group: string; version: string; kind: string }) => r.group === n.group && r.version === n.version && r.kind === n.kind;

/** Reads PROJECT, or fails with "run kubeforge init first". */
export function readProject(host: Host, cwd: string): ProjectConfig {
  const text = host.read(PROJECT_FILE)?.toString('utf8');
  if (text === undefined) {
    throw new DiagnosticError(
      error('KF1040', `no ${PROJECT_FILE} file in ${cwd}: this folder is not a kubeforge project`, {
        hint: 'run kubeforge init first (e.g. kubeforge init --domain example.com), or run create api from the project root',
      }),
    );
  }
  return parseProject(text, join(cwd, PROJECT_FILE));
}

interface ValidApi {
  config: ProjectConfig;
  names: ApiNames;
  doResource: boolean;
  doController: boolean;
  existing?: ProjectResource;
  /** The deploy-image plugin's flags, when `--plugins deploy-image` asks for it. */
  deployImage?: DeployImage;
  /** A named controller (undefined: the default one, named after the Kind). */
  controllerName?: string;
  /** A Kind another project owns. */
  external?: ExternalApi;
  /** Server-side apply: asked now, or recorded for the Kind in PROJECT. */
  ssa: boolean;
}

/** Where each resource entry starts in the PROJECT text (1-based lines), for located messages. */
function resourceLines(text: string | undefined): number[] {
  if (text === undefined) return [];
  const doc = parseDocument(text);
  const items = (doc.get('resources', true) as { items?: { range?: [number, number, number] }[] } | undefined)?.items ?? [];
  return items.map((item) => (item.range ? text.slice(0, item.range[0]).split('\n').length : 0));
}

/**
 * Checks every flag against the rules and PROJECT; collects every problem before failing.
 * `projectText` (the PROJECT file's text) only serves to give line numbers.
 */
export function validateCreateApi(options: CreateApiOptions, config: ProjectConfig, projectText?: string, host?: Host): ValidApi {
  const lines = resourceLines(projectText);
  /** The location of a PROJECT entry. */
  const at = (r: ProjectResource) => {
    const line = lines[config.resources.indexOf(r)];
    return line ? { file: PROJECT_FILE, line } : { file: PROJECT_FILE };
  };
  const problems: Diagnostic[] = [];
  if (!config.layout.includes(KUBEFORGE_LAYOUT)) {
    throw new DiagnosticError(
      error('KF1049', `PROJECT has layout ${config.layout.join(', ') || '(none)'}, not ${KUBEFORGE_LAYOUT}: this is not a kubeforge project`, {
        file: PROJECT_FILE,
        hint: 'run kubeforge create api in a project made by kubeforge init (a Go Kubebuilder project takes `kubebuilder create api`)',
      }),
    );
  }
  const doResource = options.resource ?? true;
  const doController = options.controller ?? true;
  const namespaced = options.namespaced ?? true;

  const { group, version, kind, problems: flagProblems } = checkGvkFlags(
    options,
    {
      group: error('KF1041', 'missing --group: the API group, without the domain', { hint: `pass --group, e.g. --group batch (the full group is then batch.${config.domain})` }),
      version: error('KF1041', 'missing --version: the API version', { hint: 'pass --version, e.g. --version v1 (or v1alpha1, v2beta1)' }),
      kind: error('KF1041', 'missing --kind: the Kind of the new API', { hint: 'pass --kind in PascalCase, e.g. --kind CronJob' }),
    },
    (k) => refusedKind(k, options.plural === undefined ? pluralize(k) : undefined),
  );
  problems.push(...flagProblems);
  const plugins = resolveCreateApiPlugins(options.plugins, config.layout[0] ?? '');
  problems.push(...plugins.problems);
  const deployImage = checkDeployImageFlags(options, plugins.deployImage, { resource: doResource, controller: doController, namespaced });
  // Its flags without the plugin: already said by a misspelled plugin's KF1070.
  if (plugins.deployImage || plugins.problems.length === 0) problems.push(...deployImage.problems);
  if (options.plural !== undefined) {
    const d = validateDns1123Label(options.plural, 'plural', '--plural', 'a lower-case DNS-1123 label such as "cronjobs"');
    if (d) problems.push(d);
  }
  // --controller-name: the default name (the lower-cased Kind) is the same as no flag.
  let controllerName = options.controllerName;
  if (controllerName !== undefined) {
    const d = validateDns1123Label(controllerName, 'controller name', '--controller-name', 'a lower-case DNS-1123 label such as "captain-backup"');
    if (d) problems.push(d);
    else if (!/^[a-z]/.test(controllerName)) {
      problems.push(
        error('KF1090', `invalid --controller-name "${controllerName}": it must start with a letter (it names the class ${reconcilerName(controllerName, kind ?? '')})`, {
          hint: 'e.g. --controller-name captain-backup',
        }),
      );
    }
    if (options.controller === false) {
      problems.push(error('KF1091', `--controller-name ${controllerName} names a controller, and --controller=false scaffolds none`, { hint: 'drop --controller=false (or --controller-name)' }));
    }
    if (kind && controllerName === kind.toLowerCase()) controllerName = undefined;
  }
  if (options.ssa && !doResource) {
    problems.push(error('KF1096', "'--ssa' can only be used when creating an API resource ('--resource=true')", { hint: 'drop --resource=false, or --ssa (a controller of a Kind scaffolded with --ssa applies on its own)' }));
  }
  if (!doResource && !doController) {
    problems.push(error('KF1045', 'nothing to scaffold: --resource=false and --controller=false', { hint: 'keep --resource (the API types), --controller (its reconciler), or both' }));
  }
  if (group === '' && config.domain === '') {
    problems.push(error('KF1041', 'the group may only be empty when PROJECT has a domain (the group is then the domain)', { hint: 'pass --group' }));
  }
  if (problems.length) throw new DiagnosticError(problems);

  const existing = config.resources.find((r) => sameGVK(r, { group, version, kind }));
  const externalGiven = options.externalApiPath !== undefined || options.externalApiDomain !== undefined || options.externalApiModule !== undefined;
  const owned = doResource
    ? `--resource=true scaffolds an API of this project (pass --resource=false to scaffold a controller for the external ${kind})`
    : existing?.api
      ? `${kind} (${group}/${version}) is an API of this project (${PROJECT_FILE} records it)`
      : existing?.core
        ? `${kind} (${group}/${version}) is a built-in Kind (${PROJECT_FILE} records it)`
        : undefined;
  const external = validateExternalApi(options, existing, externalGiven ? owned : undefined, group, (f) => (host ? host.kind(f) === 'file' : true), problems);
  if (problems.length) throw new DiagnosticError(problems);
  // A controller for a built-in Kind: --resource=false, a Kubernetes group, and no API of ours by that name.
  const core = !external && !doResource && !existing?.api && Object.hasOwn(CORE_GROUPS, group);
  const builtin = core ? requireBuiltinKind(group, version, kind) : undefined;
  // Scaffolding again keeps the plural PROJECT recorded unless --plural changes it.
  // A built-in Kind's scope is Kubernetes' (a controller for Namespaces watches a cluster-scoped Kind).
  const names = apiNames(config, { group, version, kind, plural: options.plural ?? existing?.plural ?? builtin?.plural, namespaced: builtin ? builtin.namespaced : namespaced, core, controllerName, external: external && { domain: external.domain } });
  const gvkText = `${kind} (${names.apiVersion})`;
  const crdName = `${names.plural}.${names.qualifiedGroup}`;
  if (doResource && !core && crdName.length > 253) {
    problems.push(
      error('KF1051', `--kind ${kind}: the API server refuses its CRD name "${crdName}": ${crdName.length} characters, where a CRD name (a DNS-1123 subdomain) has at most 253`, {
        hint: 'use a shorter Kind, --plural or --group (or a shorter domain)',
      }),
    );
  }

  if (!config.multigroup && !core && !external) {
    const other = config.resources.find((r) => r.group !== group && !r.core && !r.external);
    if (other) {
      problems.push(
        error('KF1043', `this project holds one API group ("${other.group}", from ${other.kind}); --group "${group}" would start a second one`, {
          ...at(other),
          hint: `use --group ${other.group || '""'}, or switch the project to several groups: add "multigroup: true" to PROJECT and move src/api/<version> to src/api/<group>/<version>`,
        }),
      );
    }
  }
  if (existing && !options.force) {
    if (doResource && existing.api) {
      problems.push(
        error('KF1042', `the API ${gvkText} already exists in ${PROJECT_FILE}`, {
          ...at(existing),
          hint: 'pick another Kind or version; pass --force to scaffold it again over the existing files (files that differ are replaced)',
        }),
      );
    }
    if (doController && controllerName === undefined && controllerNamesOf(existing).includes(kind.toLowerCase())) {
      problems.push(
        error('KF1042', `the controller for ${gvkText} already exists in ${PROJECT_FILE}`, {
          ...at(existing),
          hint: doResource ? 'pass --controller=false to add only the API, or --force to scaffold it again' : 'pass --force to scaffold it again',
        }),
      );
    }
  }
  // Two Kinds of one group may not share a resource name (one CRD each), nor a file name.
  for (const r of external ? [] : config.resources) {
    if (r.core || r.external || sameGVK(r, names) || qualifiedGroup(r.group, r.domain ?? config.domain) !== names.qualifiedGroup) continue;
    const theirPlural = r.plural ?? pluralize(r.kind);
    const declared = (k: string) => [k, `${k}Spec`, `${k}Status`];
    const clash = r.version === version && r.kind !== kind ? declared(kind).find((n) => declared(r.kind).includes(n)) : undefined;
    if (clash) {
      problems.push(error('KF1048', `Kind ${kind} and ${r.kind} (already in ${PROJECT_FILE}) would both declare ${clash} in ${names.apiDir}`, { ...at(r), hint: 'pick a Kind that is not another Kind of this version plus "Spec" or "Status"' }));
    } else if (r.kind !== kind && r.kind.toLowerCase() === names.fileName) {
      problems.push(error('KF1048', `Kind ${kind} differs from ${r.kind} (already in ${PROJECT_FILE}) only in case: both would be ${names.fileName}_types.ts`, { ...at(r), hint: `use --kind ${r.kind}, or another name` }));
    } else if (r.kind !== kind && theirPlural === names.plural) {
      problems.push(error('KF1048', `Kind ${kind} would have the resource name "${names.plural}", which ${r.kind} (already in ${PROJECT_FILE}) has in ${names.qualifiedGroup}`, { ...at(r), hint: 'give it another resource name with --plural' }));
    }
  }
  // A named controller: its file, class and runtime name are the Kind's (every version's), so its name is too.
  if (doController && controllerName !== undefined) {
    const squash = (n: string) => n.replace(/[^a-z0-9]/g, '');
    for (const r of config.resources) {
      if (r.group !== group || r.kind !== kind) continue;
      const same: string | undefined = controllerNamesOf(r).find((n) => n === controllerName || squash(n) === squash(controllerName!));
      if (!same || (options.force && sameGVK(r, { group, version, kind }) && same === controllerName)) continue;
      problems.push(
        error(
          'KF1092',
          same === controllerName
            ? `${kind} (${r.version}) already has a controller named ${same} in ${PROJECT_FILE}`
            : `--controller-name ${controllerName} and the controller ${same} of ${kind} (${r.version}) differ only in "-": their classes and files are too easily confused`,
          {
            ...at(r),
            hint: same === controllerName && sameGVK(r, { group, version, kind }) ? 'pick another --controller-name, or pass --force to scaffold it again' : 'pick another --controller-name',
          },
        ),
      );
    }
  }
  if (doController && !options.force && controllerName === undefined) {
    const sibling = config.resources.find((r) => controllerNamesOf(r).includes(kind.toLowerCase()) && r.group === group && r.kind === kind && r.version !== version);
    if (sibling) {
      problems.push(
        error('KF1044', `a controller for ${kind} in group ${names.qualifiedGroup} already exists (version ${sibling.version}); one controller reconciles every version of a Kind`, {
          ...at(sibling),
          hint: 'pass --controller=false to add only the new API version',
        }),
      );
    }
  }
  if (!doResource && !existing?.api && !core && !external) {
    problems.push(
      error('KF1046', `--resource=false needs the API of ${gvkText} in ${PROJECT_FILE}, and there is none`, {
        file: PROJECT_FILE,
        hint: `create the API first (drop --resource=false), name a built-in Kind by its Kubernetes group (${Object.keys(CORE_GROUPS).slice(0, 4).join(', ')}, ...), or a Kind of another project with --external-api-path`,
      }),
    );
  }
  if (problems.length) throw new DiagnosticError(problems);
  // Kubebuilder keeps a Kind's ssa once set (a later create api of it without the flag keeps it).
  const ssa = options.ssa === true || existing?.api?.ssa === true;
  return { config, names, doResource, doController, existing, deployImage: deployImage.value, controllerName, external, ssa };
}

/** The PROJECT entry after this command: the existing one (if any) with what was scaffolded now. */
function projectEntry(v: ValidApi): ProjectResource {
  const { names, existing, doResource, doController } = v;
  const entry: ProjectResource = existing ? { ...existing } : { group: names.group, version: names.version, kind: names.kind };
  if (names.core) {
    // Kubebuilder's record of a built-in Kind: its Go package path, no domain of ours.
    entry.core = true;
    entry.path = `k8s.io/api/${names.group}/${names.version}`;
  } else if (v.external) {
    // Kubebuilder's record of an external Kind: where its type is, its domain, its module.
    entry.external = true;
    entry.path = v.external.path;
    entry.domain = names.domain;
    entry.module = v.external.module;
  } else entry.domain = names.domain;
  if (doResource) {
    entry.api = { crdVersion: 'v1', namespaced: names.namespaced ? true : undefined, ssa: v.ssa || undefined };
    entry.path = names.typesFile;
    entry.plural = names.irregularPlural ? names.plural : undefined;
  }
  if (doController) {
    // Kubebuilder's record: `controller: true` for the one default controller; a named one turns
    // it into `controllers:` (the default one first, under the lower-cased Kind).
    const name = v.controllerName ?? names.kind.toLowerCase();
    const had = existing ? controllerNamesOf(existing) : [];
    if (v.controllerName === undefined && !existing?.controllers?.length) entry.controller = true;
    else {
      entry.controllers = [...had, ...(had.includes(name) ? [] : [name])].map((n) => ({ name: n }));
      entry.controller = undefined;
    }
  }
  return entry;
}

/** Flips `#- ../crd` to `- ../crd` in config/default/kustomization.yaml; returns undefined when there is no such line. */
export function uncommentCrd(text: string): string | undefined {
  const lines = text.split('\n');
  if (lines.some((l) => l.trim() === '- ../crd')) return text;
  const at = lines.findIndex((l) => /^\s*#\s*- \.\.\/crd\s*$/.test(l));
  if (at < 0) return undefined;
  lines[at] = lines[at].replace(/#\s*(- \.\.\/crd)/, '$1');
  return lines.join('\n');
}

/**
 * The insertions that wire the controller of a Kind into src/main.ts (its import and its setup),
 * anchored on init's marker comments. Idempotent; `init --force` applies them again for every
 * controller PROJECT lists, so that a fresh main.ts keeps them.
 */
export async function mainControllerInsertions(names: ApiNames, renderer: TemplateRenderer): Promise<Insertion[]> {
  const grouped = names.multigroup && names.group !== '';
  const mainImport = importSpecifier('src', names.controllerFile);
  const reconcilerAlias = grouped ? `${pascal(names.group)}${names.reconciler}` : undefined;
  const ref = reconcilerAlias ?? names.reconciler;
  return [
    { marker: '+kubebuilder:scaffold:imports', fragment: await renderer.render('api/fragments/main_imports.ts.hbs', { reconciler: names.reconciler, alias: reconcilerAlias ?? '', mainControllerImport: mainImport }) },
    { marker: '+kubebuilder:scaffold:builder', fragment: await renderer.render('api/fragments/main_setup.ts.hbs', { reconciler: ref, controllerName: names.controllerName }) },
  ];
}

export const RBAC_KUSTOMIZATION = 'config/rbac/kustomization.yaml';

/** The admin, editor and viewer role files of a Kind. */
export function roleFiles(names: ApiNames): string[] {
  return ['admin', 'editor', 'viewer'].map((r) => `${names.rbacFilePrefix}_${r}_role.yaml`);
}

/** The role templates of a Kind: admin, editor, viewer (the order of {@link roleFiles}). */
const ROLE_TEMPLATES = ['admin', 'editor', 'viewer'].map((r) => `api/config/rbac/${r}_role.yaml.hbs`);

/**
 * A Kind's admin / editor / viewer role files (path under config/rbac/ -> text) as `create api`
 * writes them for a manager of the given scope: ClusterRoles, or Roles when namespace-scoped.
 */
export async function renderRoleFiles(config: ProjectConfig, r: ProjectResource, namespacedManager: boolean, renderer: TemplateRenderer): Promise<Map<string, string>> {
  const names = apiNames(config, { group: r.group, version: r.version, kind: r.kind, plural: r.plural, namespaced: r.api?.namespaced ?? true });
  const data = { ...names, projectName: config.projectName, namespacedManager };
  const out = new Map<string, string>();
  const files = roleFiles(names);
  for (let i = 0; i < files.length; i++) out.set(`config/rbac/${files[i]}`, await renderer.render(ROLE_TEMPLATES[i], data));
  return out;
}

/** The entries of a Kind's roles in config/rbac/kustomization.yaml. */
export function roleInsertions(names: ApiNames, files = roleFiles(names)): Insertion[] {
  return files.map((f) => ({ marker: '+kubebuilder:scaffold:rbac-roles', fragment: `- ${f}` }));
}

/** Computes create api's virtual tree without writing anything. */
export async function planCreateApi(
  options: CreateApiOptions,
  env: CreateApiEnvironment,
): Promise<{
  tree: Tree;
  changes: Change[];
  resource: ProjectResource;
  warnings: string[];
  /** Files of the user's that --force replaces. */
  replaced: string[];
  /** deploy-image: the variable the controller reads its image from, and the image. */
  imageEnv?: { name: string; image: string };
}> {
  const host = env.host ?? new DiskHost(env.cwd);
  const config = readProject(host, env.cwd);
  const valid = validateCreateApi(options, config, host.read(PROJECT_FILE)?.toString('utf8'), host);
  const { names } = valid;
  const warnings: string[] = [];

  const kubeforgeDir = env.kubeforgeDir ?? packageRoot();
  const renderer = new TemplateRenderer(new DiskHost(join(kubeforgeDir, 'templates')));
  const boilerplate = host.read(BOILERPLATE_FILE)?.toString('utf8');
  const licenseHeader = boilerplate ? `${boilerplate.replace(/\n+$/, '')}\n\n` : '';

  const resourceArgs: string[] = [];
  if (names.irregularPlural) resourceArgs.push(`path: '${names.plural}'`);
  if (!names.namespaced) resourceArgs.push(`scope: 'Cluster'`);
  const controllerDir = posix.dirname(names.controllerFile);
  const resourceMarker = resourceArgs.length ? `{ ${resourceArgs.join(', ')} }` : '';
  const { deployImage } = valid;
  // deploy-image: spec.size (and spec.containerPort) need their validation markers and int32.
  const deployImageMarkers = deployImage ? ['Default', 'Minimum', ...(deployImage.port !== undefined ? ['Maximum'] : [])] : [];
  const data = {
    ...names,
    licenseHeader,
    projectName: config.projectName,
    namespacedManager: config.namespaced === true,
    resourceMarker,
    typesImport: importSpecifier(controllerDir, names.typesFile),
    testNamespace: names.namespaced ? 'default' : '',
    ssa: valid.ssa,
    ...typesFileNames(names.kind, resourceMarker !== '', deployImageMarkers, deployImage ? ['int32'] : []),
    ...(deployImage ? deployImageData(deployImage, names) : {}),
  };
  // The plugin's own bodies for the types, sample, controller and its test.
  const template = (path: string) => (deployImage ? path.replace(/^api\/(?:config\/samples\/)?/, 'api/deploy-image/') : path);
  // A built-in or external Kind is addressed by a descriptor ({ apiVersion, kind }); its objects
  // are client-node's KubernetesObject, or the external Kind's own type when it has one.
  const typeSource = valid.external ? externalTypeSource(valid.external) : undefined;
  const objectTypeImport = (kind: string, fromDir: string) => externalObjectImport(typeSource, kind, fromDir);
  Object.assign(data, {
    descriptor: names.core || names.external,
    typedExternal: typeSource !== undefined,
    objType: typeSource ? `${names.kind}Object` : 'KubernetesObject',
    objectTypeImport: objectTypeImport(names.kind, controllerDir),
  });
  const controllerTestData = {
    typesImport: importSpecifier(posix.dirname(names.controllerTestFile), names.typesFile),
    controllerImport: importSpecifier(posix.dirname(names.controllerTestFile), names.controllerFile),
    realTestFile: posix.basename(names.controllerTestFile),
    unitTestFile: posix.basename(names.controllerUnitTestFile),
  };
  // The controller and its test import the Kind and name a variable after it: both are renamed
  // where the Kind would collide with a name of the file (Promise, Client, request, ctx, ...).
  const editor = valid.doController ? await TsEditor.create() : undefined;
  const kindNames = async (template: string, extra: Record<string, unknown>) => {
    const own = await templateNames((t) => editor!.scopeNames(t), (t, d) => renderer.render(t, d), [template], {
      ...data,
      ...extra,
      ...placeholderNames(PLACEHOLDER_KIND),
      ...(typeSource && { objType: `${PLACEHOLDER_KIND}Object`, objectTypeImport: objectTypeImport(PLACEHOLDER_KIND, controllerDir) }),
    });
    const scope = new Scope(own);
    scope.claimExact(names.reconciler);
    if (typeSource) scope.claimExact(`${names.kind}Object`);
    const kind = importKind(scope, names.kind);
    const camel = lowerFirst(names.kind);
    return { kindRef: kind.ref, kindImport: kind.specifier, varName: scope.claim(camel, `${camel}Object`, `${camel}Obj`) };
  };

  if (config.namespaced && !names.namespaced && valid.doController) {
    warnings.push(
      `${names.kind} is cluster-scoped, but this project's manager is namespace-scoped (PROJECT: namespaced: true): its Role cannot grant ${names.plural}.${names.qualifiedGroup}; give the controller's @Rbac markers a roleName of their own (a ClusterRole) and bind it with a ClusterRoleBinding in config/rbac`,
    );
  }
  const specs: FileSpec[] = [];
  if (valid.doResource) {
    const gvFile = `${names.apiDir}/groupversion.ts`;
    if (!host.read(gvFile)) specs.push({ path: gvFile, policy: 'scaffolded', template: 'api/groupversion.ts.hbs' });
    specs.push(
      { path: names.typesFile, policy: 'scaffolded', template: template('api/types.ts.hbs') },
      { path: `config/samples/${names.sampleFile}`, policy: 'scaffolded', template: template('api/config/samples/sample.yaml.hbs') },
      { path: `config/rbac/${names.rbacFilePrefix}_admin_role.yaml`, policy: 'scaffolded', template: 'api/config/rbac/admin_role.yaml.hbs' },
      { path: `config/rbac/${names.rbacFilePrefix}_editor_role.yaml`, policy: 'scaffolded', template: 'api/config/rbac/editor_role.yaml.hbs' },
      { path: `config/rbac/${names.rbacFilePrefix}_viewer_role.yaml`, policy: 'scaffolded', template: 'api/config/rbac/viewer_role.yaml.hbs' },
    );
    if (!host.read('config/crd/kustomization.yaml')) specs.push({ path: 'config/crd/kustomization.yaml', policy: 'scaffolded', template: 'api/config/crd/kustomization.yaml.hbs' });
    if (!host.read('config/crd/kustomizeconfig.yaml')) specs.push({ path: 'config/crd/kustomizeconfig.yaml', policy: 'scaffolded', template: 'api/config/crd/kustomizeconfig.yaml.hbs' });
    if (!host.read('config/samples/kustomization.yaml')) specs.push({ path: 'config/samples/kustomization.yaml', policy: 'scaffolded', template: 'api/config/samples/kustomization.yaml.hbs' });
  }
  if (valid.doController) {
    const controllerIds = await kindNames(template('api/controller.ts.hbs'), {});
    const testIds = await kindNames(template('api/controller_test.ts.hbs'), controllerTestData);
    const unitTestIds = await kindNames(template('api/controller_unit_test.ts.hbs'), controllerTestData);
    // The tests of a descriptor-addressed Kind import the descriptor the controller exports.
    for (const ids of [testIds, unitTestIds]) {
      if (names.external) ids.kindImport = controllerIds.kindRef === ids.kindRef ? ids.kindRef : `${controllerIds.kindRef} as ${ids.kindRef}`;
    }
    specs.push(
      { path: names.controllerFile, policy: 'scaffolded', template: template('api/controller.ts.hbs'), data: controllerIds },
      { path: names.controllerTestFile, policy: 'scaffolded', template: template('api/controller_test.ts.hbs'), data: { ...controllerTestData, ...testIds } },
      // The unit tier: the same assertions on the fake API server, no control plane.
      { path: names.controllerUnitTestFile, policy: 'scaffolded', template: template('api/controller_unit_test.ts.hbs'), data: { ...controllerTestData, ...unitTestIds } },
    );
  }

  const tree = new Tree(host);
  const replaced = await applySpecs(tree, specs, renderer, { force: options.force, data, tool: 'kubeforge' });

  // Insertions into files init wrote (and the ones created above), anchored on marker comments.
  const edits: { path: string; insertions: Insertion[] }[] = [];
  if (valid.doResource) {
    edits.push({ path: 'config/samples/kustomization.yaml', insertions: [{ marker: '+kubebuilder:scaffold:manifestskustomizesamples', fragment: `- ${names.sampleFile}` }] });
    edits.push({ path: RBAC_KUSTOMIZATION, insertions: roleInsertions(names) });
    edits.push({ path: 'config/crd/kustomization.yaml', insertions: [{ marker: '+kubebuilder:scaffold:crdkustomizeresource', fragment: `- ${names.crdFile}` }] });
  }
  if (valid.doController) edits.push({ path: 'src/main.ts', insertions: await mainControllerInsertions(names, renderer) });
  const problems: Diagnostic[] = [];
  for (const edit of edits) {
    const text = tree.readText(edit.path);
    if (text === undefined) {
      problems.push(
        error('KF1047', `${edit.path} is missing: kubeforge adds ${names.kind} to it`, {
          file: edit.path,
          hint: 'restore it from `kubeforge init --dry-run` output in an empty folder, or create it with the marker comment kubeforge inserts above',
        }),
      );
      continue;
    }
    try {
      const result = insertAtMarkers(text, edit.insertions, edit.path);
      if (result.changed) tree.write(edit.path, result.text);
    } catch (e) {
      if (e instanceof DiagnosticError) problems.push(...e.diagnostics);
      else throw e;
    }
  }
  // A Kind's second version: a CRD with several versions needs one storage version. When none
  // of the existing versions carries @StorageVersion(), the first one gets it (ts-morph), so that
  // `kubeforge manifests` keeps working; `create webhook --conversion` makes that version the hub.
  if (valid.doResource && !valid.existing?.api) {
    const others = config.resources.filter((r) => r.api && !r.core && !r.external && r.group === names.group && r.kind === names.kind && r.version !== names.version);
    if (others.length) {
      const storage = await ensureStorageVersion(tree, await TsEditor.create(), config, others, others[0]);
      problems.push(...storage.problems);
      if (storage.added) warnings.push(`${storage.storage!.file}: added @StorageVersion() to ${names.kind} ${storage.storage!.version}: a Kind with several versions stores one of them (move it to store another)`);
    }
  }
  // deploy-image: the manager gets the image in <KIND>_IMAGE, which the controller reads.
  if (deployImage) {
    const text = tree.readText(MANAGER_FILE);
    const env = imageEnvName(names.kind);
    const set = text === undefined ? undefined : setImageEnv(text, env, deployImage.image);
    if (set === undefined) {
      problems.push(error('KF1047', `${MANAGER_FILE} is missing: kubeforge sets ${env} in it`, { file: MANAGER_FILE, hint: 'restore it from `kubeforge init --dry-run` output in an empty folder' }));
    } else if (set.problem) problems.push(set.problem);
    else if (set.text !== text) tree.write(MANAGER_FILE, set.text!);
  }
  addExternalDependency(tree, valid.external, valid.existing, names.kind, warnings);
  if (problems.length) throw new DiagnosticError(problems);

  if (valid.doResource) {
    const path = 'config/default/kustomization.yaml';
    const text = tree.readText(path);
    const updated = text === undefined ? undefined : uncommentCrd(text);
    if (updated === undefined) warnings.push(`${path}: no "#- ../crd" line to switch on; add "- ../crd" to its resources so that config/default installs the CRDs`);
    else if (updated !== text) tree.write(path, updated);
  }

  // PROJECT: the entry replaces an existing one in place, or is appended.
  const resource = projectEntry(valid);
  const resources = [...config.resources];
  const at = resources.findIndex((r) => sameGVK(r, names));
  if (at >= 0) resources[at] = resource;
  else resources.push(resource);
  const extra = deployImage ? withDeployImageResource(config, resource, deployImage.flags) : config.extra;
  tree.write(PROJECT_FILE, serializeProject({ ...config, resources, extra }));

  const imageEnv = deployImage ? { name: imageEnvName(names.kind), image: deployImage.image } : undefined;
  return { tree, changes: tree.changes(), resource, warnings, replaced, imageEnv };
}

/** The file a resource entry's types live in. */
export function typesFileOf(config: ProjectConfig, r: ProjectResource): string {
  if (r.path?.endsWith('.ts')) return r.path;
  return apiNames(config, { group: r.group, version: r.version, kind: r.kind, plural: r.plural, namespaced: true }).typesFile;
}

/**
 * Makes sure one version of a Kind with several carries `@StorageVersion()`: when none does, it
 * is added to `preferred` (ts-morph). Returns the problems (a missing file or class) and the
 * version that is (or becomes) the storage version. `others` are the Kind's version entries.
 */
export async function ensureStorageVersion(
  tree: Tree,
  editor: TsEditor,
  config: ProjectConfig,
  versions: readonly ProjectResource[],
  preferred: ProjectResource,
): Promise<{ storage?: { version: string; file: string; line: number }; added: boolean; problems: Diagnostic[] }> {
  const problems: Diagnostic[] = [];
  for (const r of versions) {
    const file = typesFileOf(config, r);
    const text = tree.readText(file);
    if (text === undefined) continue;
    const sf = editor.parse(file, text);
    const line = editor.decoratorLine(sf, r.kind, editor.importedAs(sf, 'kubeforge/markers', 'StorageVersion') ?? 'StorageVersion');
    if (line !== undefined) return { storage: { version: r.version, file, line }, added: false, problems };
  }
  const file = typesFileOf(config, preferred);
  const text = tree.readText(file);
  if (text === undefined) {
    problems.push(error('KF1068', `${file} is missing: kubeforge marks the ${preferred.kind} class there as the storage version`, { file, hint: `restore it, or record where ${preferred.kind} ${preferred.version} lives in the "path" of its ${PROJECT_FILE} entry` }));
    return { added: false, problems };
  }
  const sf = editor.parse(file, text);
  if (!editor.getClass(sf, preferred.kind)) {
    problems.push(error('KF1068', `${file} declares no class ${preferred.kind}: kubeforge marks it as the storage version`, { file, hint: `add @StorageVersion() to the root class of ${preferred.kind} ${preferred.version} by hand` }));
    return { added: false, problems };
  }
  // Under an alias when the file declares a StorageVersion of its own (a Kind of that name).
  const decorator = editor.importName(sf, 'kubeforge/markers', 'StorageVersion');
  editor.addDecorators(sf, preferred.kind, [decorator]);
  tree.write(file, sf.getFullText());
  return { storage: { version: preferred.version, file, line: editor.decoratorLine(sf, preferred.kind, decorator) ?? 0 }, added: true, problems };
}

/**
 * Runs `kubeforge create api` through the command runner (src/scaffold/runner.ts): under the
 * project's lock unless --dry-run; the scaffold and its manifests planned in one tree, then one
 * commit (see transaction.ts).
 */
export async function runCreateApi(options: CreateApiOptions, env: CreateApiEnvironment): Promise<CreateApiResult> {
  const host = env.host ?? new DiskHost(env.cwd);
  const steps = scaffoldSteps({
    name: 'create api',
    env,
    make: options.make,
    plan: () => planCreateApi(options, { ...env, host }),
    failure: ({ resource: { kind } }) => `generating the manifests (CRDs, RBAC role) with ${kind} failed (see above), so ${kind} was not scaffolded: nothing was written`,
    result: (p, manifests): CreateApiResult => ({ changes: p.changes, plan: formatPlan(p.changes, { color: env.color }), resource: p.resource, manifests }),
    nextSteps: (p) => nextSteps(p.resource, p.imageEnv),
  });
  return runCommand(steps, env, { host, dryRun: options.dryRun, force: options.force });
}

function nextSteps(r: ProjectResource, imageEnv?: { name: string; image: string }): string {
  const lines = ['', 'Next:'];
  if (r.api) lines.push(`  edit ${r.path} (the ${r.kind} spec and status), then: npm run manifests`);
  if (imageEnv) {
    lines.push(`  check the reconcile of ${r.kind} in src/controller (it deploys $${imageEnv.name}, which config/manager/manager.yaml sets), then: make test`);
    lines.push(`  export ${imageEnv.name}=${imageEnv.image}   # for make run`);
  } else if (controllerNamesOf(r).length) lines.push(`  implement the reconcile of ${r.kind} in src/controller, then: make test`);
  lines.push('  make run        # the manager against the cluster of your current kubeconfig', '');
  return lines.join('\n');
}
