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
import { DiagnosticError, type Diagnostic, error } from '../diagnostics/index.js';
import { pluralize } from '../project/plural.js';
import {
  PROJECT_FILE,
  ProjectFile,
  type ProjectConfig,
  type ProjectResource,
  qualifiedGroup,
  checkGvkFlags,
  refusedKind,
  validateDns1123Label,
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
  runCommand,
  TemplateRenderer,
  Tree,
} from '../machinery/index.js';
import { packageRoot } from '../util/package-root.js';
import { BOILERPLATE_FILE, headerFromBoilerplate } from './paths.js';
import { importKind, lowerFirst, PLACEHOLDER_KIND, Scope, templateNames } from './identifiers.js';
import { type ManifestsStep, scaffoldSteps } from './manifests-step.js';
import {
  checkDeployImageFlags,
  type DeployImage,
  deployImageData,
  type DeployImageData,
  imageEnvName,
  MANAGER_FILE,
  resolveCreateApiPlugins,
  setImageEnv,
  withDeployImageResource,
} from './deployimage.js';
import { TsEditor } from './tsedit.js';
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
  controllerNamesOf,
  CORE_GROUPS,
  importSpecifier,
  reconcilerName,
  requireBuiltinKind,
  requireKubeforgeLayout,
  sameGVK,
} from './resource-names.js';
import { mainControllerInsertions, RBAC_KUSTOMIZATION, roleInsertions, uncommentCrd } from './api-wiring.js';
import { ensureStorageVersion } from './storage-version.js';
import { type FromCrd, fromCrdOptions } from './from-crd-options.js';

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
  /**
   * A CRD's YAML file (from-crd.ts): the Kind's group, Kind, plural and scope come from it, and its
   * version's types file (or the external Kind's --external-api-path file) is the CRD's schema as
   * classes with markers. Without --version every version of the CRD is imported (the flags name
   * the storage version; the others get their types file, sample and PROJECT entry too).
   */
  fromCrd?: string;
}

export { defaultManifestsStep, type ManifestsStep } from './manifests-step.js';

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

/** The Kind-derived names a template takes, all set to `placeholder` (to find the template's own names). */
function placeholderNames(placeholder: string): Record<string, string> {
  return {
    kind: placeholder,
    kindRef: placeholder,
    kindImport: placeholder,
    varName: lowerFirst(placeholder),
    reconciler: `${placeholder}Reconciler`,
  };
}

/**
 * What the types file imports, and under which names: the file declares the Kind, <Kind>Spec
 * and <Kind>Status, so an import of the same name is aliased (`Resource as ResourceMarker` for
 * Kind Resource, `V1Condition as K8sV1Condition`, `SubresourceStatus as SubresourceStatusMarker`
 * for Kind Subresource).
 */
function typesFileNames(
  kind: string,
  withResource: boolean,
  extraMarkers: readonly string[] = [],
  typeImports: readonly string[] = [],
): { clientNodeImports: string; markerImports: string; ids: Record<string, string> } {
  const scope = new Scope([kind, `${kind}Spec`, `${kind}Status`]);
  const ids: Record<string, string> = {};
  const imported = (name: string, alias: string) => {
    ids[name] = scope.claim(name, alias);
    return ids[name] === name ? name : `${name} as ${ids[name]}`;
  };
  const clientNodeImports = ['V1Condition', 'V1ObjectMeta'].map((n) => imported(n, `K8s${n}`)).join(', ');
  const markers = [
    'ListMapKey',
    'ListType',
    ...(withResource ? ['Resource'] : []),
    'Root',
    'SubresourceStatus',
    ...extraMarkers,
  ].sort();
  const markerImports = [
    ...markers.map((n) => imported(n, `${n}Marker`)),
    ...typeImports.map((n) => `type ${imported(n, `${n}Type`)}`),
  ].join(', ');
  return { clientNodeImports, markerImports, ids };
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

/** create api's flags, each checked on its own (before PROJECT's Kinds are looked at). */
interface ApiFlags {
  group: string;
  version: string;
  kind: string;
  doResource: boolean;
  doController: boolean;
  namespaced: boolean;
  /** --controller-name, undefined when it is the default one (the lower-cased Kind). */
  controllerName?: string;
  deployImage?: DeployImage;
}

/** The Kind the flags name, as PROJECT and Kubernetes know it. */
interface ApiKind {
  existing?: ProjectResource;
  external?: ExternalApi;
  /** A built-in Kind: --resource=false, a Kubernetes group, and no API of ours by that name. */
  core: boolean;
  names: ApiNames;
}

/**
 * Checks every flag against the rules and PROJECT; collects every problem before failing.
 * `host` tells whether a file --external-api-path names exists.
 */
export function validateCreateApi(options: CreateApiOptions, project: ProjectFile, host?: Host): ValidApi {
  const { config } = project;
  requireKubeforgeLayout(config, 'create api');
  const flags = checkApiFlags(options, config);
  const problems: Diagnostic[] = [];
  const kind = resolveApiKind(options, project, flags, host, problems);
  checkApiConflicts(options, project, flags, kind, problems);
  checkKindClashes(project, flags, kind, problems);
  checkControllerClashes(options, project, flags, kind, problems);
  const { doResource, doController, controllerName } = flags;
  const { existing, external, core, names } = kind;
  if (!doResource && !existing?.api && !core && !external) {
    problems.push(
      error(
        'KF1046',
        `--resource=false needs the API of ${flags.kind} (${names.apiVersion}) in ${PROJECT_FILE}, and there is none`,
        {
          file: PROJECT_FILE,
          hint: `create the API first (drop --resource=false), name a built-in Kind by its Kubernetes group (${Object.keys(CORE_GROUPS).slice(0, 4).join(', ')}, ...), or a Kind of another project with --external-api-path`,
        },
      ),
    );
  }
  if (problems.length) throw new DiagnosticError(problems);
  // Kubebuilder keeps a Kind's ssa once set (a later create api of it without the flag keeps it).
  const ssa = options.ssa === true || existing?.api?.ssa === true;
  return {
    config,
    names,
    doResource,
    doController,
    existing,
    deployImage: flags.deployImage,
    controllerName,
    external,
    ssa,
  };
}

/** The flags on their own: the GVK, the plugins', --plural, --controller-name, --ssa; throws on any problem. */
function checkApiFlags(options: CreateApiOptions, config: ProjectConfig): ApiFlags {
  const problems: Diagnostic[] = [];
  const doResource = options.resource ?? true;
  const doController = options.controller ?? true;
  const namespaced = options.namespaced ?? true;

  const {
    group,
    version,
    kind,
    problems: flagProblems,
  } = checkGvkFlags(
    options,
    {
      group: error('KF1041', 'missing --group: the API group, without the domain', {
        hint: `pass --group, e.g. --group batch (the full group is then batch.${config.domain})`,
      }),
      version: error('KF1041', 'missing --version: the API version', {
        hint: 'pass --version, e.g. --version v1 (or v1alpha1, v2beta1)',
      }),
      kind: error('KF1041', 'missing --kind: the Kind of the new API', {
        hint: 'pass --kind in PascalCase, e.g. --kind CronJob',
      }),
    },
    (k) => refusedKind(k, options.plural === undefined ? pluralize(k) : undefined),
  );
  problems.push(...flagProblems);
  const plugins = resolveCreateApiPlugins(options.plugins, config.layout[0] ?? '');
  problems.push(...plugins.problems);
  const deployImage = checkDeployImageFlags(options, plugins.deployImage, {
    resource: doResource,
    controller: doController,
    namespaced,
  });
  // Its flags without the plugin: already said by a misspelled plugin's KF1070.
  if (plugins.deployImage || plugins.problems.length === 0) problems.push(...deployImage.problems);
  if (options.plural !== undefined) {
    const d = validateDns1123Label(
      options.plural,
      'plural',
      '--plural',
      'a lower-case DNS-1123 label such as "cronjobs"',
    );
    if (d) problems.push(d);
  }
  const controllerName = checkControllerName(options, kind, problems);
  if (options.ssa && !doResource) {
    problems.push(
      error('KF1096', "'--ssa' can only be used when creating an API resource ('--resource=true')", {
        hint: 'drop --resource=false, or --ssa (a controller of a Kind scaffolded with --ssa applies on its own)',
      }),
    );
  }
  if (!doResource && !doController) {
    problems.push(
      error('KF1045', 'nothing to scaffold: --resource=false and --controller=false', {
        hint: 'keep --resource (the API types), --controller (its reconciler), or both',
      }),
    );
  }
  if (group === '' && config.domain === '') {
    problems.push(
      error('KF1041', 'the group may only be empty when PROJECT has a domain (the group is then the domain)', {
        hint: 'pass --group',
      }),
    );
  }
  if (problems.length) throw new DiagnosticError(problems);
  return { group, version, kind, doResource, doController, namespaced, controllerName, deployImage: deployImage.value };
}

/** --controller-name: a DNS-1123 label starting with a letter; the default name (the lower-cased Kind) is the same as no flag. */
function checkControllerName(
  options: CreateApiOptions,
  kind: string | undefined,
  problems: Diagnostic[],
): string | undefined {
  const controllerName = options.controllerName;
  if (controllerName === undefined) return undefined;
  const d = validateDns1123Label(
    controllerName,
    'controller name',
    '--controller-name',
    'a lower-case DNS-1123 label such as "captain-backup"',
  );
  if (d) problems.push(d);
  else if (!/^[a-z]/.test(controllerName)) {
    problems.push(
      error(
        'KF1090',
        `invalid --controller-name "${controllerName}": it must start with a letter (it names the class ${reconcilerName(controllerName, kind ?? '')})`,
        {
          hint: 'e.g. --controller-name captain-backup',
        },
      ),
    );
  }
  if (options.controller === false) {
    problems.push(
      error('KF1091', `--controller-name ${controllerName} names a controller, and --controller=false scaffolds none`, {
        hint: 'drop --controller=false (or --controller-name)',
      }),
    );
  }
  return kind && controllerName === kind.toLowerCase() ? undefined : controllerName;
}

/** The Kind the flags name: PROJECT's entry, an external or built-in Kind, and its names; throws on a bad --external-api-* flag. */
function resolveApiKind(
  options: CreateApiOptions,
  project: ProjectFile,
  flags: ApiFlags,
  host: Host | undefined,
  problems: Diagnostic[],
): ApiKind {
  const { config } = project;
  const { group, version, kind, doResource, namespaced, controllerName } = flags;
  const existing = config.resources.find((r) => sameGVK(r, { group, version, kind }));
  const externalGiven =
    options.externalApiPath !== undefined ||
    options.externalApiDomain !== undefined ||
    options.externalApiModule !== undefined;
  const owned = doResource
    ? `--resource=true scaffolds an API of this project (pass --resource=false to scaffold a controller for the external ${kind})`
    : existing?.api
      ? `${kind} (${group}/${version}) is an API of this project (${PROJECT_FILE} records it)`
      : existing?.core
        ? `${kind} (${group}/${version}) is a built-in Kind (${PROJECT_FILE} records it)`
        : undefined;
  const external = validateExternalApi(
    options,
    existing,
    externalGiven ? owned : undefined,
    group,
    (f) => (host ? host.kind(f) === 'file' : true),
    problems,
  );
  if (problems.length) throw new DiagnosticError(problems);
  const core = !external && !doResource && !existing?.api && Object.hasOwn(CORE_GROUPS, group);
  const builtin = core ? requireBuiltinKind(group, version, kind) : undefined;
  // Scaffolding again keeps the plural PROJECT recorded unless --plural changes it.
  // A built-in Kind's scope is Kubernetes' (a controller for Namespaces watches a cluster-scoped Kind).
  const names = apiNames(config, {
    group,
    version,
    kind,
    plural: options.plural ?? existing?.plural ?? builtin?.plural,
    namespaced: builtin ? builtin.namespaced : namespaced,
    core,
    controllerName,
    external: external && { domain: external.domain },
  });
  return { existing, external, core, names };
}

/** The CRD's name, a second group in a one-group project, an API or controller PROJECT already has. */
function checkApiConflicts(
  options: CreateApiOptions,
  project: ProjectFile,
  flags: ApiFlags,
  k: ApiKind,
  problems: Diagnostic[],
): void {
  const { config } = project;
  const { group, kind, doResource, doController, controllerName } = flags;
  const { existing, external, core, names } = k;
  const gvkText = `${kind} (${names.apiVersion})`;
  const crdName = `${names.plural}.${names.qualifiedGroup}`;
  if (doResource && !core && crdName.length > 253) {
    problems.push(
      error(
        'KF1051',
        `--kind ${kind}: the API server refuses its CRD name "${crdName}": ${crdName.length} characters, where a CRD name (a DNS-1123 subdomain) has at most 253`,
        {
          hint: 'use a shorter Kind, --plural or --group (or a shorter domain)',
        },
      ),
    );
  }
  if (!config.multigroup && !core && !external) {
    const other = config.resources.find((r) => r.group !== group && !r.core && !r.external);
    if (other) {
      problems.push(
        error(
          'KF1043',
          `this project holds one API group ("${other.group}", from ${other.kind}); --group "${group}" would start a second one`,
          {
            ...project.locate(other),
            hint: `use --group ${other.group || '""'}, or switch the project to several groups: add "multigroup: true" to PROJECT and move src/api/<version> to src/api/<group>/<version>`,
          },
        ),
      );
    }
  }
  if (!existing || options.force) return;
  if (doResource && existing.api) {
    problems.push(
      error('KF1042', `the API ${gvkText} already exists in ${PROJECT_FILE}`, {
        ...project.locate(existing),
        hint: 'pick another Kind or version; pass --force to scaffold it again over the existing files (files that differ are replaced)',
      }),
    );
  }
  if (doController && controllerName === undefined && controllerNamesOf(existing).includes(kind.toLowerCase())) {
    problems.push(
      error('KF1042', `the controller for ${gvkText} already exists in ${PROJECT_FILE}`, {
        ...project.locate(existing),
        hint: doResource
          ? 'pass --controller=false to add only the API, or --force to scaffold it again'
          : 'pass --force to scaffold it again',
      }),
    );
  }
}

/** Two Kinds of one group may not share a resource name (one CRD each), nor a file name. */
function checkKindClashes(project: ProjectFile, flags: ApiFlags, k: ApiKind, problems: Diagnostic[]): void {
  const { config } = project;
  const { version, kind } = flags;
  const { names } = k;
  for (const r of k.external ? [] : config.resources) {
    if (
      r.core ||
      r.external ||
      sameGVK(r, names) ||
      qualifiedGroup(r.group, r.domain ?? config.domain) !== names.qualifiedGroup
    )
      continue;
    const theirPlural = r.plural ?? pluralize(r.kind);
    const declared = (n: string) => [n, `${n}Spec`, `${n}Status`];
    const clash =
      r.version === version && r.kind !== kind ? declared(kind).find((n) => declared(r.kind).includes(n)) : undefined;
    if (clash) {
      problems.push(
        error(
          'KF1048',
          `Kind ${kind} and ${r.kind} (already in ${PROJECT_FILE}) would both declare ${clash} in ${names.apiDir}`,
          {
            ...project.locate(r),
            hint: 'pick a Kind that is not another Kind of this version plus "Spec" or "Status"',
          },
        ),
      );
    } else if (r.kind !== kind && r.kind.toLowerCase() === names.fileName) {
      problems.push(
        error(
          'KF1048',
          `Kind ${kind} differs from ${r.kind} (already in ${PROJECT_FILE}) only in case: both would be ${names.fileName}_types.ts`,
          { ...project.locate(r), hint: `use --kind ${r.kind}, or another name` },
        ),
      );
    } else if (r.kind !== kind && theirPlural === names.plural) {
      problems.push(
        error(
          'KF1048',
          `Kind ${kind} would have the resource name "${names.plural}", which ${r.kind} (already in ${PROJECT_FILE}) has in ${names.qualifiedGroup}`,
          { ...project.locate(r), hint: 'give it another resource name with --plural' },
        ),
      );
    }
  }
}

/**
 * A named controller's file, class and runtime name are the Kind's (every version's), so its name
 * is too; the default controller reconciles every version of a Kind, so there is one.
 */
function checkControllerClashes(
  options: CreateApiOptions,
  project: ProjectFile,
  flags: ApiFlags,
  k: ApiKind,
  problems: Diagnostic[],
): void {
  const { config } = project;
  const { group, version, kind, doController, controllerName } = flags;
  if (!doController) return;
  if (controllerName !== undefined) {
    const squash = (n: string) => n.replace(/[^a-z0-9]/g, '');
    for (const r of config.resources) {
      if (r.group !== group || r.kind !== kind) continue;
      const same: string | undefined = controllerNamesOf(r).find(
        (n) => n === controllerName || squash(n) === squash(controllerName),
      );
      if (!same || (options.force && sameGVK(r, { group, version, kind }) && same === controllerName)) continue;
      problems.push(
        error(
          'KF1092',
          same === controllerName
            ? `${kind} (${r.version}) already has a controller named ${same} in ${PROJECT_FILE}`
            : `--controller-name ${controllerName} and the controller ${same} of ${kind} (${r.version}) differ only in "-": their classes and files are too easily confused`,
          {
            ...project.locate(r),
            hint:
              same === controllerName && sameGVK(r, { group, version, kind })
                ? 'pick another --controller-name, or pass --force to scaffold it again'
                : 'pick another --controller-name',
          },
        ),
      );
    }
    return;
  }
  if (options.force) return;
  const sibling = config.resources.find(
    (r) =>
      controllerNamesOf(r).includes(kind.toLowerCase()) &&
      r.group === group &&
      r.kind === kind &&
      r.version !== version,
  );
  if (sibling) {
    problems.push(
      error(
        'KF1044',
        `a controller for ${kind} in group ${k.names.qualifiedGroup} already exists (version ${sibling.version}); one controller reconciles every version of a Kind`,
        {
          ...project.locate(sibling),
          hint: 'pass --controller=false to add only the new API version',
        },
      ),
    );
  }
}

/** The PROJECT entry after this command: the existing one (if any) with what was scaffolded now. */
function projectEntry(v: ValidApi): ProjectResource {
  const { names, existing, doResource, doController } = v;
  const entry: ProjectResource = existing
    ? { ...existing }
    : { group: names.group, version: names.version, kind: names.kind };
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

/** What every template of create api sees (the controller's and its tests' add {@link KindIds}). */
export interface ApiTemplateData extends ApiNames, Partial<DeployImageData> {
  licenseHeader: string;
  projectName: string;
  namespacedManager: boolean;
  /** The argument of the types' `@Resource(...)`, or '' when it needs none. */
  resourceMarker: string;
  typesImport: string;
  testNamespace: string;
  ssa: boolean;
  /** The types file's imports, aliased where the Kind would collide with them (see typesFileNames). */
  clientNodeImports: string;
  markerImports: string;
  ids: Record<string, string>;
  /** A built-in or external Kind, addressed by a descriptor ({ apiVersion, kind }). */
  descriptor: boolean;
  /** An external Kind with a TypeScript type of its own. */
  typedExternal: boolean;
  objType: string;
  objectTypeImport: string;
}

/** The Kind-derived names of one file, renamed where they would collide with the file's own. */
interface KindIds {
  kindRef: string;
  kindImport: string;
  varName: string;
}

/** What the controller's tests see over {@link ApiTemplateData}. */
interface ControllerTestData {
  typesImport: string;
  controllerImport: string;
}

/** What planCreateApi gives the command runner. */
export interface CreateApiPlan {
  tree: Tree;
  changes: Change[];
  resource: ProjectResource;
  warnings: string[];
  /** Files of the user's that --force replaces. */
  replaced: string[];
  /** deploy-image: the variable the controller reads its image from, and the image. */
  imageEnv?: { name: string; image: string };
}

/** Computes create api's virtual tree without writing anything. */
export async function planCreateApi(options: CreateApiOptions, env: CreateApiEnvironment): Promise<CreateApiPlan> {
  const host = env.host ?? new DiskHost(env.cwd);
  const project = ProjectFile.read(host, env.cwd);
  const fromCrd = options.fromCrd === undefined ? undefined : fromCrdOptions(options, project.config, env.cwd, host);
  if (fromCrd) options = fromCrd.options;
  const valid = validateCreateApi(options, project, fromCrd ? withPlannedFile(host, fromCrd) : host);
  const { names, deployImage } = valid;
  const warnings: string[] = [];
  const renderer = new TemplateRenderer(new DiskHost(join(env.kubeforgeDir ?? packageRoot(), 'templates')));
  const data = apiTemplateData(valid, host.read(BOILERPLATE_FILE)?.toString('utf8'));
  if (valid.config.namespaced && !names.namespaced && valid.doController) {
    warnings.push(
      `${names.kind} is cluster-scoped, but this project's manager is namespace-scoped (PROJECT: namespaced: true): its Role cannot grant ${names.plural}.${names.qualifiedGroup}; give the controller's @Rbac markers a roleName of their own (a ClusterRole) and bind it with a ClusterRoleBinding in config/rbac`,
    );
  }
  const template = apiTemplatePath(valid);
  const specs: FileSpec<object>[] = [];
  if (valid.doResource) specs.push(...resourceFiles(names, template));
  if (fromCrd) specs.push(...fromCrdFiles(fromCrd, valid, data.licenseHeader, specs));
  // --from-crd without --version: the CRD's other versions, each checked as create api checks one.
  const others = (fromCrd?.others ?? []).map((o) => {
    const v = validateCreateApi(
      { ...options, version: o.version, controller: false, controllerName: undefined },
      project,
      host,
    );
    const own = resourceFiles(v.names, template).filter((f) => !specs.some((g) => g.path === f.path));
    const versionData = apiTemplateData(v, host.read(BOILERPLATE_FILE)?.toString('utf8'));
    for (const f of own) {
      f.data = versionData;
      if (f.path === v.names.typesFile) {
        f.template = undefined;
        f.content = `${data.licenseHeader}${o.text}`;
      }
    }
    specs.push(...own);
    return v;
  });
  if (valid.doController) specs.push(...(await controllerFiles(valid, data, renderer, template)));
  const tree = new Tree(host);
  const replaced = await applySpecs(tree, specs, renderer, { force: options.force, data, tool: 'kubeforge' });

  const problems: Diagnostic[] = [];
  applyInserters(tree, await apiInserters(valid, renderer), problems);
  for (const v of others) applyInserters(tree, (await apiInserters(v, renderer)).slice(0, 1), problems);
  await ensureKindStorageVersion(tree, valid, warnings, problems);
  if (deployImage) setManagerImage(tree, names.kind, deployImage, problems);
  addExternalDependency(tree, valid.external, valid.existing, names.kind, warnings);
  if (problems.length) throw new DiagnosticError(problems);
  if (valid.doResource) switchOnCrds(tree, warnings);
  if (fromCrd) warnings.push(...fromCrd.warnings);

  // PROJECT: the entry replaces an existing one in place, or is appended.
  const resource = projectEntry(valid);
  const extra = deployImage ? withDeployImageResource(valid.config, resource, deployImage.flags) : valid.config.extra;
  let projectText = project.withResource(resource, { extra });
  for (const v of others) projectText = ProjectFile.parse(projectText).withResource(projectEntry(v));
  tree.write(PROJECT_FILE, projectText);

  const imageEnv = deployImage ? { name: imageEnvName(names.kind), image: deployImage.image } : undefined;
  return { tree, changes: tree.changes(), resource, warnings, replaced, imageEnv };
}

/** The template of a file: the deploy-image plugin has its own bodies for the types, sample, controller and its tests. */
function apiTemplatePath(valid: ValidApi): (path: string) => string {
  return (path) => (valid.deployImage ? path.replace(/^api\/(?:config\/samples\/)?/, 'api/deploy-image/') : path);
}

/** The data every template of create api sees. `boilerplate` is hack/boilerplate's text, when there is one. */
function apiTemplateData(valid: ValidApi, boilerplate: string | undefined): ApiTemplateData {
  const { names, config, deployImage } = valid;
  const resourceArgs: string[] = [];
  if (names.irregularPlural) resourceArgs.push(`path: '${names.plural}'`);
  if (!names.namespaced) resourceArgs.push(`scope: 'Cluster'`);
  const controllerDir = posix.dirname(names.controllerFile);
  const resourceMarker = resourceArgs.length ? `{ ${resourceArgs.join(', ')} }` : '';
  // deploy-image: spec.size (and spec.containerPort) need their validation markers and int32.
  const deployImageMarkers = deployImage
    ? ['Default', 'Minimum', ...(deployImage.port !== undefined ? ['Maximum'] : [])]
    : [];
  // A built-in or external Kind is addressed by a descriptor ({ apiVersion, kind }); its objects
  // are client-node's KubernetesObject, or the external Kind's own type when it has one.
  const typeSource = valid.external ? externalTypeSource(valid.external) : undefined;
  return {
    ...names,
    licenseHeader: headerFromBoilerplate(boilerplate),
    projectName: config.projectName,
    namespacedManager: config.namespaced === true,
    resourceMarker,
    typesImport: importSpecifier(controllerDir, names.typesFile),
    testNamespace: names.namespaced ? 'default' : '',
    ssa: valid.ssa,
    ...typesFileNames(names.kind, resourceMarker !== '', deployImageMarkers, deployImage ? ['int32'] : []),
    ...(deployImage ? deployImageData(deployImage, names) : {}),
    descriptor: names.core || names.external,
    typedExternal: typeSource !== undefined,
    objType: typeSource ? `${names.kind}Object` : 'KubernetesObject',
    objectTypeImport: externalObjectImport(typeSource, names.kind, controllerDir),
  };
}

/** The files of the API types (--resource), as Kubebuilder's templates/api and config/ templates. */
function resourceFiles(names: ApiNames, template: (path: string) => string): FileSpec<object>[] {
  const role = (r: string): FileSpec<object> => ({
    path: `config/rbac/${names.rbacFilePrefix}_${r}_role.yaml`,
    policy: 'scaffolded',
    template: `api/config/rbac/${r}_role.yaml.hbs`,
  });
  return [
    // One per group-version, and the kustomizations every Kind shares: written once.
    { path: `${names.apiDir}/groupversion.ts`, policy: 'kept', template: 'api/groupversion.ts.hbs' },
    { path: names.typesFile, policy: 'scaffolded', template: template('api/types.ts.hbs') },
    {
      path: `config/samples/${names.sampleFile}`,
      policy: 'scaffolded',
      template: template('api/config/samples/sample.yaml.hbs'),
    },
    role('admin'),
    role('editor'),
    role('viewer'),
    { path: 'config/crd/kustomization.yaml', policy: 'kept', template: 'api/config/crd/kustomization.yaml.hbs' },
    { path: 'config/crd/kustomizeconfig.yaml', policy: 'kept', template: 'api/config/crd/kustomizeconfig.yaml.hbs' },
    {
      path: 'config/samples/kustomization.yaml',
      policy: 'kept',
      template: 'api/config/samples/kustomization.yaml.hbs',
    },
  ];
}

/**
 * The controller and its test (--controller), each with the Kind's names of its own file: one
 * test body that kubeforge test runs on both tiers (the fake API server, then a real one), the
 * deploy-image plugin's as the others'.
 */
async function controllerFiles(
  valid: ValidApi,
  data: ApiTemplateData,
  renderer: TemplateRenderer,
  template: (path: string) => string,
): Promise<FileSpec<object>[]> {
  const { names } = valid;
  const testDir = posix.dirname(names.controllerBothTestFile);
  const testData: ControllerTestData = {
    typesImport: importSpecifier(testDir, names.typesFile),
    controllerImport: importSpecifier(testDir, names.controllerFile),
  };
  const ids = await kindIdsOf(valid, data, renderer);
  const controllerIds = await ids(template('api/controller.ts.hbs'), {});
  const controller: FileSpec<KindIds> = {
    path: names.controllerFile,
    policy: 'scaffolded',
    template: template('api/controller.ts.hbs'),
    data: controllerIds,
  };
  const testTemplate = template('api/controller_test.ts.hbs');
  const testIds = await ids(testTemplate, testData);
  // The tests of a descriptor-addressed Kind import the descriptor the controller exports.
  if (names.external)
    testIds.kindImport =
      controllerIds.kindRef === testIds.kindRef ? testIds.kindRef : `${controllerIds.kindRef} as ${testIds.kindRef}`;
  const test: FileSpec<ControllerTestData & KindIds> = {
    path: names.controllerBothTestFile,
    policy: 'scaffolded',
    template: testTemplate,
    data: { ...testData, ...testIds },
  };
  return [controller, test];
}

/**
 * The controller and its test import the Kind and name a variable after it: both are renamed
 * where the Kind would collide with a name of the file (Promise, Client, request, ctx, ...).
 */
async function kindIdsOf(
  valid: ValidApi,
  data: ApiTemplateData,
  renderer: TemplateRenderer,
): Promise<(template: string, extra: object) => Promise<KindIds>> {
  const { names } = valid;
  const editor = await TsEditor.create();
  const typeSource = valid.external ? externalTypeSource(valid.external) : undefined;
  const controllerDir = posix.dirname(names.controllerFile);
  return async (template, extra) => {
    const own = await templateNames(
      (t) => editor.scopeNames(t),
      (t, d) => renderer.render(t, d),
      [template],
      {
        ...data,
        ...extra,
        ...placeholderNames(PLACEHOLDER_KIND),
        ...(typeSource && {
          objType: `${PLACEHOLDER_KIND}Object`,
          objectTypeImport: externalObjectImport(typeSource, PLACEHOLDER_KIND, controllerDir),
        }),
      },
    );
    const scope = new Scope(own);
    scope.claimExact(names.reconciler);
    if (typeSource) scope.claimExact(`${names.kind}Object`);
    const kind = importKind(scope, names.kind);
    const camel = lowerFirst(names.kind);
    return {
      kindRef: kind.ref,
      kindImport: kind.specifier,
      varName: scope.claim(camel, `${camel}Object`, `${camel}Obj`),
    };
  };
}

/** Insertions into files init wrote (and the ones created above), anchored on marker comments. */
async function apiInserters(valid: ValidApi, renderer: TemplateRenderer): Promise<FileInserter[]> {
  const { names } = valid;
  const inserter = (path: string, insertions: Insertion[]): FileInserter => ({
    path,
    insertions,
    missing: error('KF1047', `${path} is missing: kubeforge adds ${names.kind} to it`, {
      file: path,
      hint: 'restore it from `kubeforge init --dry-run` output in an empty folder, or create it with the marker comment kubeforge inserts above',
    }),
  });
  const inserters: FileInserter[] = [];
  if (valid.doResource) {
    inserters.push(
      inserter('config/samples/kustomization.yaml', [
        { marker: '+kubebuilder:scaffold:manifestskustomizesamples', fragment: `- ${names.sampleFile}` },
      ]),
      inserter(RBAC_KUSTOMIZATION, roleInsertions(names)),
      inserter('config/crd/kustomization.yaml', [
        { marker: '+kubebuilder:scaffold:crdkustomizeresource', fragment: `- ${names.crdFile}` },
      ]),
    );
  }
  if (valid.doController) inserters.push(inserter('src/main.ts', await mainControllerInsertions(names, renderer)));
  return inserters;
}

/**
 * A Kind's second version: a CRD with several versions needs one storage version. When none of
 * the existing versions carries @StorageVersion(), the first one gets it (ts-morph), so that
 * `kubeforge manifests` keeps working; `create webhook --conversion` makes that version the hub.
 */
async function ensureKindStorageVersion(
  tree: Tree,
  valid: ValidApi,
  warnings: string[],
  problems: Diagnostic[],
): Promise<void> {
  const { names, config } = valid;
  if (!valid.doResource || valid.existing?.api) return;
  const others = config.resources.filter(
    (r) =>
      r.api &&
      !r.core &&
      !r.external &&
      r.group === names.group &&
      r.kind === names.kind &&
      r.version !== names.version,
  );
  if (!others.length) return;
  const storage = await ensureStorageVersion(tree, await TsEditor.create(), config, others, others[0]);
  problems.push(...storage.problems);
  if (storage.added && storage.storage)
    warnings.push(
      `${storage.storage.file}: added @StorageVersion() to ${names.kind} ${storage.storage.version}: a Kind with several versions stores one of them (move it to store another)`,
    );
}

/** deploy-image: the manager gets the image in <KIND>_IMAGE, which the controller reads. */
function setManagerImage(tree: Tree, kind: string, deployImage: DeployImage, problems: Diagnostic[]): void {
  const text = tree.readText(MANAGER_FILE);
  const env = imageEnvName(kind);
  const set = text === undefined ? undefined : setImageEnv(text, env, deployImage.image);
  if (set === undefined) {
    problems.push(
      error('KF1047', `${MANAGER_FILE} is missing: kubeforge sets ${env} in it`, {
        file: MANAGER_FILE,
        hint: 'restore it from `kubeforge init --dry-run` output in an empty folder',
      }),
    );
  } else if (set.problem) problems.push(set.problem);
  else if (set.text !== text) tree.write(MANAGER_FILE, set.text);
}

/** config/default installs the CRDs: its `#- ../crd` line is switched on. */
function switchOnCrds(tree: Tree, warnings: string[]): void {
  const path = 'config/default/kustomization.yaml';
  const text = tree.readText(path);
  const updated = text === undefined ? undefined : uncommentCrd(text);
  if (updated === undefined)
    warnings.push(
      `${path}: no "#- ../crd" line to switch on; add "- ../crd" to its resources so that config/default installs the CRDs`,
    );
  else if (updated !== text) tree.write(path, updated);
}

/** The host as --external-api-path's check sees it: the file --from-crd writes counts as there. */
function withPlannedFile(host: Host, fromCrd: FromCrd): Host {
  const planned = fromCrd.externalFile;
  if (planned === undefined) return host;
  return new Proxy(host, {
    get: (h, k) =>
      k === 'kind'
        ? (path: string) => (posix.normalize(path) === planned ? 'file' : h.kind(path))
        : (h as unknown as Record<string | symbol, unknown>)[k as string],
  });
}

/**
 * --from-crd's files: the types file replaced by the CRD's classes; for an external Kind, its
 * --external-api-path file and, beside it, a groupversion.ts with `skip: true` (kubeforge
 * manifests writes no CRD of a Kind another project owns).
 */
function fromCrdFiles(
  fromCrd: FromCrd,
  valid: ValidApi,
  licenseHeader: string,
  specs: FileSpec<object>[],
): FileSpec<object>[] {
  const text = `${licenseHeader}${fromCrd.text}`;
  const types = specs.find((s) => s.path === valid.names.typesFile);
  if (types) {
    types.template = undefined;
    types.content = text;
    return [];
  }
  if (fromCrd.externalFile === undefined) return [];
  const dir = posix.dirname(fromCrd.externalFile);
  return [
    { path: fromCrd.externalFile, policy: 'scaffolded', content: text },
    {
      path: `${dir}/groupversion.ts`,
      policy: 'kept',
      content: `${licenseHeader}/**\n * ${valid.names.qualifiedGroup}/${valid.names.version}, a group-version another project owns (imported with\n * \`kubeforge create api --from-crd\`): \`skip\` keeps kubeforge manifests from writing its CRD.\n */\nimport { defineGroupVersion } from 'kubeforge/markers';\n\nexport const groupVersion = defineGroupVersion({ group: '${valid.names.qualifiedGroup}', version: '${valid.names.version}', skip: true });\n`,
    },
  ];
}

/**
 * Runs `kubeforge create api` through the command runner (src/machinery/runner.ts): under the
 * project's lock unless --dry-run; the scaffold and its manifests planned in one tree, then one
 * commit (see manifests-step.ts).
 */
export async function runCreateApi(options: CreateApiOptions, env: CreateApiEnvironment): Promise<CreateApiResult> {
  const host = env.host ?? new DiskHost(env.cwd);
  const steps = scaffoldSteps({
    name: 'create api',
    env,
    make: options.make,
    plan: () => planCreateApi(options, { ...env, host }),
    failure: ({ resource: { kind } }) =>
      `generating the manifests (CRDs, RBAC role) with ${kind} failed (see above), so ${kind} was not scaffolded: nothing was written`,
    result: (p, manifests): CreateApiResult => ({
      changes: p.changes,
      plan: formatPlan(p.changes, { color: env.color }),
      resource: p.resource,
      manifests,
    }),
    nextSteps: (p) => nextSteps(p.resource, p.imageEnv),
  });
  return runCommand(steps, env, { host, dryRun: options.dryRun, force: options.force });
}

function nextSteps(r: ProjectResource, imageEnv?: { name: string; image: string }): string {
  const lines = ['', 'Next:'];
  if (r.api) lines.push(`  edit ${r.path} (the ${r.kind} spec and status), then: npm run manifests`);
  if (imageEnv) {
    lines.push(
      `  check the reconcile of ${r.kind} in src/controller (it deploys $${imageEnv.name}, which config/manager/manager.yaml sets), then: make test`,
    );
    lines.push(`  export ${imageEnv.name}=${imageEnv.image}   # for make run`);
  } else if (controllerNamesOf(r).length)
    lines.push(`  implement the reconcile of ${r.kind} in src/controller, then: make test`);
  lines.push('  make run        # the manager against the cluster of your current kubeconfig', '');
  return lines.join('\n');
}
