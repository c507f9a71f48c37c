/**
 * The names and paths of one Kind in a kubeforge project (Kubebuilder's resource model): its
 * group, files, controller and role names, and Kubernetes' own groups for built-in Kinds. Shared
 * by every scaffold that adds to a Kind (create api, create webhook, init --force, edit).
 */
import { posix } from 'node:path';
import { DiagnosticError, error } from '../diagnostics/index.js';
import {
  BUILTIN_KINDS,
  type BuiltinKind,
  builtinKindsNamed,
  CORE_GROUPS,
  findBuiltinKind,
} from '../apiserver/builtin-kinds.js';
import { pluralize } from '../project/plural.js';
import {
  KUBEFORGE_LAYOUT,
  PROJECT_FILE,
  type ProjectConfig,
  type ProjectResource,
  qualifiedGroup,
} from '../project/index.js';

/** Kubernetes' own API groups by short name (defined in src/project, where the fake API server reads them too). */
export { CORE_GROUPS } from '../apiserver/builtin-kinds.js';

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
  const caseless = elsewhere.length
    ? []
    : BUILTIN_KINDS.filter((k) => k.kind.toLowerCase() === kind.toLowerCase()).map((k) => `--kind ${k.kind}`);
  const sameGroup = [
    ...new Set(BUILTIN_KINDS.filter((k) => k.group === group && k.version === version).map((k) => k.kind)),
  ];
  throw new DiagnosticError(
    error(
      'KF1066',
      `Kubernetes serves no built-in Kind ${kind} in ${group === 'core' ? '' : `${CORE_GROUPS[group]}/`}${version} (${group}/${version})`,
      {
        hint: elsewhere.length
          ? `${kind} is built in as ${elsewhere.join(', or ')}`
          : caseless.length
            ? `did you mean ${[...new Set(caseless)].join(' or ')}?`
            : sameGroup.length
              ? `${group}/${version} has ${sameGroup.slice(0, 12).join(', ')}${sameGroup.length > 12 ? ', ...' : ''}; for a Kind of your own, use a group of your domain`
              : `Kubernetes serves no ${group}/${version}: check --version, or use a group of your domain for a Kind of your own`,
      },
    ),
  );
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
  /** The one test body of both tiers (kubeforge test runs `*.both.test.js` on the fake API server, then on the real one). */
  controllerBothTestFile: string;
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
  v: {
    group: string;
    version: string;
    kind: string;
    plural?: string;
    namespaced: boolean;
    core?: boolean;
    controllerName?: string;
    external?: { domain?: string };
  },
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
    controllerBothTestFile: `${testDir}/${controllerFileName}_controller.both.test.ts`,
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

/** The file a resource entry's types live in. */
export function typesFileOf(config: ProjectConfig, r: ProjectResource): string {
  if (r.path?.endsWith('.ts')) return r.path;
  return apiNames(config, { group: r.group, version: r.version, kind: r.kind, plural: r.plural, namespaced: true })
    .typesFile;
}

/** `./x.js`-style ESM specifier of `to` (a .ts file) as imported from a file in `fromDir`. */
export function importSpecifier(fromDir: string, to: string): string {
  const rel = posix.relative(fromDir, to).replace(/\.ts$/, '.js');
  return rel.startsWith('.') ? rel : `./${rel}`;
}

/** `captain-backup` -> `CaptainBackup`. */
export function pascal(s: string): string {
  return s
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((p) => p[0].toUpperCase() + p.slice(1))
    .join('');
}

/** Whether a PROJECT entry is the Kind of that group, version and kind. */
export const sameGVK = (r: ProjectResource, n: { group: string; version: string; kind: string }) =>
  r.group === n.group && r.version === n.version && r.kind === n.kind;

/** KF1049 unless PROJECT is a kubeforge project's (`command` names the Kubebuilder command for a Go one). */
export function requireKubeforgeLayout(config: ProjectConfig, command: string): void {
  if (config.layout.includes(KUBEFORGE_LAYOUT)) return;
  throw new DiagnosticError(
    error(
      'KF1049',
      `PROJECT has layout ${config.layout.join(', ') || '(none)'}, not ${KUBEFORGE_LAYOUT}: this is not a kubeforge project`,
      {
        file: PROJECT_FILE,
        hint: `run kubeforge ${command} in a project made by kubeforge init (a Go Kubebuilder project takes \`kubebuilder ${command}\`)`,
      },
    ),
  );
}
