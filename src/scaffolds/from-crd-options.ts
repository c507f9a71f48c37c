/**
 * `create api --from-crd <file>`: the flags create api would have been given, read from the CRD
 * (its group against the project's domain, Kind, plural, scope; the version: --version or the
 * storage version), and the types file's text (from-crd.ts). Flags given as well must agree with
 * the CRD. Every problem is a located KF1100; nothing is planned before they are all fine.
 */
import { readFileSync } from 'node:fs';
import { posix, resolve } from 'node:path';
import { type Diagnostic, DiagnosticError, error } from '../diagnostics/index.js';
import type { Host } from '../machinery/index.js';
import { type ProjectConfig, qualifiedGroup } from '../project/index.js';
import { type Locate, readCrdText, typesFromCrd } from './from-crd.js';

/** The flags of create api that --from-crd reads or fills (api.ts's CreateApiOptions has them all). */
export interface FromCrdFlags {
  fromCrd?: string;
  group?: string;
  version?: string;
  kind?: string;
  plural?: string;
  namespaced?: boolean;
  resource?: boolean;
  controller?: boolean;
  plugins?: string[];
  externalApiPath?: string;
  externalApiDomain?: string;
}

export interface FromCrd<O extends FromCrdFlags = FromCrdFlags> {
  /** create api's options with the CRD's group, version, Kind, plural and scope filled in. */
  options: O;
  /** The chosen version's types file (no license header). */
  text: string;
  /**
   * The CRD's other versions, when --version was not given and the API is adopted (not external):
   * each gets its types file and PROJECT entry too, so that manifests writes every version back.
   */
  others: { version: string; text: string }[];
  /** KF1100 warnings: what the classes carry over only approximately. */
  warnings: string[];
  /** An external Kind: the project file --external-api-path names, which receives the classes. */
  externalFile?: string;
}

const CODE = 'KF1100';

export function fromCrdOptions<O extends FromCrdFlags>(
  options: O,
  config: ProjectConfig,
  cwd: string,
  host: Host,
): FromCrd<O> {
  const file = options.fromCrd ?? '';
  const fail = (message: string, hint: string, extra: Partial<Diagnostic> = {}): never => {
    throw new DiagnosticError([error(CODE, message, { file, hint, ...extra })]);
  };
  let text: string | undefined;
  const inProject = !file.startsWith('/') && !posix.normalize(file).startsWith('../');
  try {
    // The CRD is an input, like --license-file: read where it is, in the project or not.
    text = inProject ? host.read(posix.normalize(file))?.toString('utf8') : readFileSync(resolve(cwd, file), 'utf8');
  } catch {
    text = undefined;
  }
  if (text === undefined) return fail(`--from-crd ${file}: no such file`, 'pass the path of a CRD YAML file');
  const read = readCrdText(text, file, options.kind);
  if (!read.crd) throw new DiagnosticError(read.problems);
  const crd = read.crd;
  const spec = crd.spec as Record<string, unknown>;
  const names = (spec.names ?? {}) as Record<string, unknown>;
  const crdGroup = String(spec.group ?? '');
  const kind = String(names.kind ?? '');
  const plural = String(names.plural ?? '');
  const namespaced = spec.scope !== 'Cluster';
  const versions = ((spec.versions ?? []) as Record<string, unknown>[]).map((v) => ({
    name: String(v.name),
    storage: v.storage === true,
  }));
  const version = options.version ?? versions.find((v) => v.storage)?.name ?? versions[0]?.name;
  if (!version || !versions.some((v) => v.name === version))
    return fail(
      `--from-crd ${file}: the CRD has no version ${version}`,
      `pass --version ${versions.map((v) => v.name).join(' or ')}`,
      read.locate?.(['spec', 'versions']),
    );
  const at: Record<string, (string | number)[]> = {
    kind: ['spec', 'names', 'kind'],
    plural: ['spec', 'names', 'plural'],
    namespaced: ['spec', 'scope'],
    group: ['spec', 'group'],
  };
  const mismatch = (flag: string, given: string, theirs: string) =>
    fail(
      `--${flag} ${given} contradicts the CRD of --from-crd ${file}, whose ${flag} is ${theirs}`,
      `drop --${flag}: --from-crd takes it from the CRD`,
      read.locate?.(at[flag] ?? []),
    );
  if (options.kind !== undefined && options.kind !== kind) mismatch('kind', options.kind, kind);
  if (options.plural !== undefined && options.plural !== plural) mismatch('plural', options.plural, plural);
  if (options.namespaced !== undefined && options.namespaced !== namespaced)
    mismatch('namespaced', String(options.namespaced), String(namespaced));

  const external = options.externalApiPath !== undefined || options.resource === false;
  const { group, externalApiDomain, externalFile } = external
    ? externalGroup(options, crdGroup, fail, mismatch)
    : ownGroup(options, config, crdGroup, version, { file, fail, mismatch, locate: read.locate });
  const all = options.version === undefined && !external;
  if (options.plugins?.length)
    fail(
      `--from-crd and --plugins ${options.plugins.join(',')}: the types come from the CRD, and the plugin writes types of its own`,
      'drop --plugins (or --from-crd)',
    );
  const imported = typesFromCrd(crd, { file, versions: all ? undefined : [version], locate: read.locate });
  const errors = imported.problems.filter((p) => p.severity === 'error');
  if (errors.length) throw new DiagnosticError(errors);
  // typesFromCrd imports every version asked for, and the CRD has `version` (checked above).
  const chosen = imported.versions.find((v) => v.version === version);
  if (!chosen) throw new Error(`--from-crd ${file}: version ${version} missing from the imported types`);
  // The scaffolded controller and its tests are written for the types create api writes (a spec
  // with foo, status.conditions of V1Condition): an imported Kind gets one only when asked.
  const warnings: string[] = [];
  if (!external && options.controller === true)
    warnings.push(
      `${kind}'s controller and its tests are create api's scaffold, written for the types create api writes: adapt the reconcile's status update (status.conditions) and the tests' sample spec (spec.foo) to the imported types`,
    );
  return {
    options: {
      ...options,
      controller: options.controller ?? (external ? undefined : false),
      group,
      version,
      kind,
      plural,
      namespaced,
      ...(external ? { externalApiDomain } : {}),
    },
    text: chosen.text,
    others: imported.versions.filter((v) => v.version !== version).map((v) => ({ version: v.version, text: v.text })),
    warnings: [...imported.problems.map((p) => `${p.code} ${p.message} (${p.hint})`), ...warnings],
    externalFile,
  };
}

type Fail = (message: string, hint: string, extra?: Partial<Diagnostic>) => never;
type Mismatch = (flag: string, given: string, theirs: string) => never;
interface ResolvedGroup {
  group: string;
  externalApiDomain?: string;
  externalFile?: string;
}

/** --resource=false: the Kind is another project's, its classes go to --external-api-path; the group splits off the domain. */
function externalGroup(options: FromCrdFlags, crdGroup: string, fail: Fail, mismatch: Mismatch): ResolvedGroup {
  const path = options.externalApiPath;
  if (path === undefined || !/\.(m|c)?ts$/.test(path) || path.startsWith('../') || path.startsWith('/'))
    return fail(
      `--from-crd with --resource=false writes the external Kind's classes into a file of the project: --external-api-path ${path ?? '(none)'} is not one`,
      'pass --external-api-path src/external/<group>/<version>.ts (or drop --resource=false to adopt the API as your own)',
    );
  const externalFile = posix.normalize(path).replace(/^\.\//, '');
  const domain =
    options.externalApiDomain ?? (options.group !== undefined ? undefined : crdGroup.split('.').slice(1).join('.'));
  const group = options.group ?? (domain ? crdGroup.slice(0, crdGroup.length - domain.length - 1) : crdGroup);
  const externalApiDomain = domain ?? crdGroup.slice(group.length + 1);
  if (qualifiedGroup(group, externalApiDomain) !== crdGroup)
    mismatch('group', qualifiedGroup(group, externalApiDomain), crdGroup);
  return { group, externalApiDomain, externalFile };
}

/** The API adopted as this project's own: its group must be in the project's domain. */
function ownGroup(
  options: FromCrdFlags,
  config: ProjectConfig,
  crdGroup: string,
  version: string,
  at: { file: string; fail: Fail; mismatch: Mismatch; locate?: Locate },
): ResolvedGroup {
  const domain = config.domain;
  let group: string;
  if (crdGroup === domain) group = '';
  else if (domain && crdGroup.endsWith(`.${domain}`)) group = crdGroup.slice(0, -domain.length - 1);
  else if (!domain) group = crdGroup;
  else
    return at.fail(
      `--from-crd ${at.file}: the CRD's group ${crdGroup} is not in this project's domain ${domain}, so the API cannot be this project's`,
      `adopt it in a project initialised with --domain ${crdGroup.split('.').slice(1).join('.') || crdGroup}, or use the Kind as another project's: --resource=false --external-api-path src/external/${crdGroup.split('.')[0]}/${version}.ts`,
      at.locate?.(['spec', 'group']),
    );
  if (options.group !== undefined && options.group !== group) at.mismatch('group', options.group, group);
  return { group };
}
