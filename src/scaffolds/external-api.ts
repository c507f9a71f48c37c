/**
 * A Kind another project owns (Kubebuilder's --external-api-path, --external-api-domain,
 * --external-api-module), shared by `create api` and `create webhook`: the flags' checks, where
 * its TypeScript type comes from, and the npm dependency it brings.
 */
import { posix } from 'node:path';
import { type Diagnostic, error } from '../diagnostics/index.js';
import { isDns1123Subdomain, PROJECT_FILE, type ProjectResource, qualifiedGroup } from '../project/index.js';
import type { Tree } from '../machinery/index.js';
import { importSpecifier } from './resource-names.js';

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
export type ExternalTypeSource =
  | { kind: 'file'; file: string }
  | { kind: 'module'; specifier: string; packageName: string; version?: string };

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
  const given =
    options.externalApiPath !== undefined ||
    options.externalApiDomain !== undefined ||
    options.externalApiModule !== undefined;
  if (!given)
    return existing?.external && existing.path
      ? { path: existing.path, domain: existing.domain, module: existing.module }
      : undefined;
  if (owned) {
    problems.push(
      error(
        'KF1094',
        `--external-api-path, --external-api-domain and --external-api-module are for a Kind another project owns; ${owned}`,
        { hint: 'drop the --external-api-* flags' },
      ),
    );
    return undefined;
  }
  const path = options.externalApiPath?.trim();
  if (!path) {
    problems.push(
      error(
        'KF1094',
        '--external-api-domain and --external-api-module need --external-api-path: where the type of the external Kind comes from',
        { hint: 'e.g. --external-api-path src/external/certmanager/v1.ts, or a module specifier' },
      ),
    );
    return undefined;
  }
  const ext: ExternalApi = { path, domain: options.externalApiDomain, module: options.externalApiModule };
  if (path.includes('@') && !path.startsWith('@')) {
    problems.push(
      error(
        'KF1095',
        `invalid --external-api-path "${path}": a version belongs in --external-api-module, not in the path`,
        { hint: 'e.g. --external-api-path @acme/cert-types/v1 --external-api-module @acme/cert-types@1.2.0' },
      ),
    );
  }
  const source = externalTypeSource(ext);
  if (source?.kind === 'file') {
    if (source.file.startsWith('../'))
      problems.push(
        error('KF1095', `invalid --external-api-path "${path}": the file is outside the project`, {
          hint: 'copy the type into the project, e.g. src/external/',
        }),
      );
    else if (!exists(source.file)) {
      problems.push(
        error('KF1095', `--external-api-path ${path}: there is no such file in the project`, {
          file: source.file,
          hint: 'create it first: a module exporting the TypeScript type of the Kind (an interface with apiVersion, kind, metadata, spec, status)',
        }),
      );
    }
  }
  if (ext.domain !== undefined && !isDns1123Subdomain(qualifiedGroup(group, ext.domain))) {
    problems.push(
      error(
        'KF1095',
        `invalid --external-api-domain "${ext.domain}": the group ${qualifiedGroup(group, ext.domain)} is not a DNS-1123 subdomain`,
        { hint: 'e.g. --group cert-manager --external-api-domain io for cert-manager.io' },
      ),
    );
  }
  if (ext.module !== undefined && !/^\S+$/.test(ext.module))
    problems.push(
      error('KF1095', `invalid --external-api-module "${ext.module}"`, {
        hint: 'e.g. --external-api-module @acme/cert-types@1.2.0',
      }),
    );
  return ext;
}

/**
 * The npm package an external Kind's type comes from becomes a dependency in package.json
 * (Kubebuilder runs `go get <module>`); a module that is not an npm package of the path (a Go
 * module) is only recorded, with a warning.
 */
export function addExternalDependency(
  tree: Tree,
  external: ExternalApi | undefined,
  existing: ProjectResource | undefined,
  kind: string,
  warnings: string[],
): void {
  const source = external && externalTypeSource(external);
  if (source?.kind === 'module') {
    const pkg = tree.readText('package.json');
    const updated = pkg === undefined ? undefined : withDependency(pkg, source.packageName, source.version);
    if (pkg === undefined) warnings.push(`package.json is missing: add ${source.packageName} to its dependencies`);
    else if (updated !== undefined) tree.write('package.json', updated);
  } else if (external?.module !== undefined && !existing?.external) {
    warnings.push(
      `--external-api-module ${external.module} is not an npm package of --external-api-path ${external.path}: recorded in ${PROJECT_FILE} only; ${kind} is addressed as an untyped KubernetesObject`,
    );
  }
}

/** package.json with the external type's package among its dependencies (sorted, as npm keeps them); undefined when unchanged. */
export function withDependency(packageJson: string, name: string, version: string | undefined): string | undefined {
  const json = JSON.parse(packageJson) as { dependencies?: Record<string, string> };
  const wanted = version ?? '*';
  if (json.dependencies?.[name] === wanted || (version === undefined && json.dependencies?.[name] !== undefined))
    return undefined;
  const deps = { ...(json.dependencies ?? {}), [name]: wanted };
  json.dependencies = Object.fromEntries(
    Object.keys(deps)
      .sort()
      .map((k) => [k, deps[k]]),
  );
  return `${JSON.stringify(json, null, 2)}\n`;
}
