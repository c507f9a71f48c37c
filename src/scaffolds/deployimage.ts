/**
 * The deploy-image plugin (Kubebuilder's `deploy-image.go.kubebuilder.io/v1-alpha`) of `create api`:
 * instead of an empty reconciler, the Kind gets a controller that runs an image (the Operand) in a
 * Deployment it owns, sized by `spec.size`, with a finalizer, Available / Degraded conditions and
 * events; the image comes from the `<KIND>_IMAGE` variable config/manager/manager.yaml sets.
 *
 * This module holds what the plugin adds to `create api`: its names, the checks of its flags, the
 * template data, the edit of manager.yaml, and its record in PROJECT (`plugins:` →
 * `deploy-image.go.kubebuilder.io/v1-alpha` → `resources`, as Kubebuilder writes it, so that
 * `alpha generate` can replay it).
 */
import { isMap, isScalar, isSeq, parseAllDocuments, type YAMLMap } from 'yaml';
import { type Diagnostic, error } from '../diagnostics/index.js';
import {
  DEPLOY_IMAGE_PLUGIN,
  type DeployImageResource,
  pluginConfig,
  pluginsOf,
  type ProjectConfig,
} from '../project/index.js';

/** The plugin's id, as Kubebuilder records it in PROJECT. */
export { DEPLOY_IMAGE_PLUGIN, type DeployImageResource } from '../project/index.js';
export const MANAGER_FILE = 'config/manager/manager.yaml';

/** What users type for it in `create api --plugins`. */
const ALIASES = new Set([DEPLOY_IMAGE_PLUGIN, 'deploy-image/v1-alpha', 'deploy-image']);

/** Plugins `init` / `edit` take, which `create api` does not (their files are not per Kind). */
const PROJECT_PLUGINS = new Set(['grafana', 'grafana/v1-alpha', 'grafana.kubebuilder.io/v1-alpha']);

/** The flags of the plugin, as `create api` receives them (strings, as Kubebuilder's). */
export interface DeployImageFlags {
  /** The Operand image (required). */
  image?: string;
  /** Comma-separated command of the container (`memcached,--memory-limit=64,-o,modern,-v`). */
  imageContainerCommand?: string;
  /** Port of the container (1-65535): adds `spec.containerPort` to the Kind. */
  imageContainerPort?: string;
  /** User id the container runs as (`securityContext.runAsUser`). */
  runAsUser?: string;
}

/** The flags, checked. */
export interface DeployImage {
  image: string;
  command: string[];
  port?: number;
  runAsUser?: number;
  /** As given, for PROJECT (Kubebuilder records the flags' strings). */
  flags: DeployImageFlags;
}

const FLAG_NAMES: [keyof DeployImageFlags, string][] = [
  ['image', '--image'],
  ['imageContainerCommand', '--image-container-command'],
  ['imageContainerPort', '--image-container-port'],
  ['runAsUser', '--run-as-user'],
];

/**
 * Splits `create api --plugins` into the deploy-image plugin (true when asked for) and problems:
 * an unknown plugin, or one of `init` / `edit` (KF1070). kubeforge's own layout plugin is accepted
 * and ignored, as `init` does.
 */
export function resolveCreateApiPlugins(
  values: readonly string[] | undefined,
  layout: string,
): { deployImage: boolean; problems: Diagnostic[] } {
  let deployImage = false;
  const problems: Diagnostic[] = [];
  for (const v of (values ?? [])
    .flatMap((s) => s.split(','))
    .map((s) => s.trim())
    .filter(Boolean)) {
    if (v === layout || v === 'typescript' || v === 'typescript/v1') continue;
    if (ALIASES.has(v)) deployImage = true;
    else if (PROJECT_PLUGINS.has(v)) {
      problems.push(
        error('KF1070', `plugin "${v}" is not a plugin of create api: it adds files to the whole project`, {
          hint: `run kubeforge edit --plugins ${v} instead; create api takes deploy-image/v1-alpha (${DEPLOY_IMAGE_PLUGIN})`,
        }),
      );
    } else {
      problems.push(
        error('KF1070', `unknown plugin "${v}" for create api`, {
          hint: `create api takes deploy-image/v1-alpha (${DEPLOY_IMAGE_PLUGIN}), e.g. --plugins deploy-image/v1-alpha --image memcached:1.6.26-alpine3.19`,
        }),
      );
    }
  }
  return { deployImage, problems };
}

/**
 * Checks the plugin's flags (every problem at once): `--image` given and one word, the port an
 * integer in 1-65535, the user id a non-negative integer; without the plugin, none may be given.
 */
export function checkDeployImageFlags(
  flags: DeployImageFlags,
  deployImage: boolean,
  scaffold: { resource: boolean; controller: boolean; namespaced: boolean },
): { value?: DeployImage; problems: Diagnostic[] } {
  const problems: Diagnostic[] = [];
  if (!deployImage) {
    const given = FLAG_NAMES.filter(([k]) => flags[k] !== undefined).map(([, f]) => f);
    if (given.length) {
      problems.push(
        error(
          'KF1087',
          `${given.join(', ')} ${given.length === 1 ? 'belongs' : 'belong'} to the deploy-image plugin, which this command does not use`,
          {
            hint: `add --plugins deploy-image/v1-alpha (with --image) to scaffold a controller that deploys the image, or leave ${given.length === 1 ? 'it' : 'them'} out`,
          },
        ),
      );
    }
    return { problems };
  }
  const image = checkImage(flags, problems);
  const port = checkPort(flags, problems);
  const runAsUser = checkRunAsUser(flags, problems);
  const command = checkCommand(flags, problems);
  checkScaffoldFlags(scaffold, problems);
  if (problems.length) return { problems };
  return { value: { image, command, port, runAsUser, flags }, problems };
}

/** `--image`: given, one word, an image reference. */
function checkImage(flags: DeployImageFlags, problems: Diagnostic[]): string {
  const image = flags.image?.trim() ?? '';
  if (image === '') {
    problems.push(
      error('KF1085', '--image is missing: the deploy-image plugin scaffolds a controller that deploys an image', {
        hint: 'pass the Operand image, e.g. --image memcached:1.6.26-alpine3.19',
      }),
    );
  } else if (/[\s"'\\]/.test(image) || [...image].some((ch) => ch.charCodeAt(0) < 0x20)) {
    problems.push(
      error(
        'KF1085',
        `--image ${JSON.stringify(flags.image)} is not an image reference: it holds spaces, quotes or backslashes`,
        {
          hint: 'pass one image name, e.g. --image memcached:1.6.26-alpine3.19 or --image registry.example.com/team/app@sha256:<digest>',
        },
      ),
    );
  } else if (imageReferenceProblem(image) !== undefined) {
    problems.push(
      error(
        'KF1085',
        `--image ${JSON.stringify(flags.image)} is not an image reference: ${imageReferenceProblem(image)}`,
        {
          hint: 'pass one image name, e.g. --image memcached:1.6.26-alpine3.19 or --image registry.example.com/team/app@sha256:<64 hex digits>',
        },
      ),
    );
  }
  return image;
}

/** `--image-container-port`: an integer from 1 to 65535. */
function checkPort(flags: DeployImageFlags, problems: Diagnostic[]): number | undefined {
  let port: number | undefined;
  if (flags.imageContainerPort !== undefined) {
    const text = flags.imageContainerPort.trim();
    port = /^\d+$/.test(text) ? Number(text) : Number.NaN;
    if (!(port >= 1 && port <= 65535)) {
      problems.push(
        error(
          'KF1086',
          `--image-container-port ${JSON.stringify(flags.imageContainerPort)} is not a port: it must be an integer from 1 to 65535`,
          { hint: 'e.g. --image-container-port 11211' },
        ),
      );
      port = undefined;
    }
  }
  return port;
}

/** `--run-as-user`: a user id other than root. */
function checkRunAsUser(flags: DeployImageFlags, problems: Diagnostic[]): number | undefined {
  let runAsUser: number | undefined;
  if (flags.runAsUser !== undefined) {
    const text = flags.runAsUser.trim();
    runAsUser = /^\d+$/.test(text) ? Number(text) : Number.NaN;
    // A Linux user id: int64 in the Pod API, 32 bits in the kernel.
    if (!(Number.isSafeInteger(runAsUser) && runAsUser <= 2 ** 31 - 1)) {
      problems.push(
        error(
          'KF1086',
          `--run-as-user ${JSON.stringify(flags.runAsUser)} is not a user id: it must be a non-negative integer`,
          { hint: 'e.g. --run-as-user 1001 (a user other than root: the Pod runs with runAsNonRoot)' },
        ),
      );
      runAsUser = undefined;
    } else if (runAsUser === 0) {
      problems.push(
        error(
          'KF1086',
          '--run-as-user 0 is root, which the Pod refuses: the scaffolded Deployment runs with runAsNonRoot',
          { hint: 'pass another user id, e.g. --run-as-user 1001' },
        ),
      );
    }
  }
  return runAsUser;
}

/** `--image-container-command`: comma-separated words on one line. */
function checkCommand(flags: DeployImageFlags, problems: Diagnostic[]): string[] {
  const command = (flags.imageContainerCommand ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (
    flags.imageContainerCommand !== undefined &&
    [...flags.imageContainerCommand].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f)
  ) {
    problems.push(
      error(
        'KF1086',
        `--image-container-command ${JSON.stringify(flags.imageContainerCommand)} holds a line break or another control character`,
        {
          hint: 'pass the command and its arguments on one line, separated by commas, e.g. --image-container-command "memcached,--memory-limit=64,-o,modern,-v"',
        },
      ),
    );
  } else if (flags.imageContainerCommand !== undefined && command.length === 0) {
    problems.push(
      error('KF1086', '--image-container-command is empty', {
        hint: 'pass the command and its arguments separated by commas, e.g. --image-container-command "memcached,--memory-limit=64,-o,modern,-v"',
      }),
    );
  }
  return command;
}

/** The plugin scaffolds a namespaced API with its controller: flags that say otherwise are refused. */
function checkScaffoldFlags(
  scaffold: { resource: boolean; controller: boolean; namespaced: boolean },
  problems: Diagnostic[],
): void {
  const refused = [
    !scaffold.resource && '--resource=false',
    !scaffold.controller && '--controller=false',
    !scaffold.namespaced && '--namespaced=false',
  ].filter((f): f is string => typeof f === 'string');
  if (refused.length) {
    problems.push(
      error(
        'KF1088',
        `the deploy-image plugin scaffolds a namespaced API and its controller together (a Deployment lives in the namespace of its owner); ${refused.join(', ')} cannot go with it`,
        {
          hint: `leave out ${refused.join(', ')}`,
        },
      ),
    );
  }
}

/** A TypeScript string literal in single quotes. */
function tsString(s: string): string {
  // JSON's escapes are TypeScript's too (control characters, quotes, backslashes, U+2028/9).
  return `'${JSON.stringify(s)
    .slice(1, -1)
    .replace(/\\"/g, '"')
    .replace(/'/g, "\\'")
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029')}'`;
}

/**
 * Why `ref` is not an image reference as container runtimes parse it (the distribution/reference
 * grammar: `[domain[:port]/]path[:tag][@digest]`, a lower-case path, a tag of at most 128
 * characters, a digest `algorithm:hex` with 64 hex digits for sha256), or undefined when it is one.
 * The API server stores any string, and the kubelet then fails to pull: said here instead.
 */
export function imageReferenceProblem(ref: string): string | undefined {
  const m = /^([^@]+?)(?::([^:/@]*))?(?:@(.*))?$/.exec(ref);
  if (!m) return 'it is not of the form name[:tag][@digest]';
  const [, name, tag, digest] = m;
  if (tag !== undefined && !/^[\w][\w.-]{0,127}$/.test(tag))
    return `its tag "${tag}" is not 1 to 128 letters, digits, "_", "." or "-" (not starting with "." or "-")`;
  if (digest !== undefined) {
    const d = /^([A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*):([0-9a-fA-F]{32,})$/.exec(digest);
    if (!d) return `its digest "${digest}" is not algorithm:hex`;
    // The algorithms runtimes verify (go-digest's): sha256, sha384, sha512, in lower-case hex.
    const hexLength: Record<string, number> = { sha256: 64, sha384: 96, sha512: 128 };
    if (!(d[1] in hexLength)) return `its digest algorithm "${d[1]}" is not sha256, sha384 or sha512`;
    if (d[2].length !== hexLength[d[1]] || /[A-F]/.test(d[2]))
      return `its ${d[1]} digest is not ${hexLength[d[1]]} lower-case hex digits`;
  }
  const parts = name.split('/');
  const first = parts[0];
  const hasDomain =
    parts.length > 1 &&
    (first.includes('.') || first.includes(':') || first === 'localhost' || first !== first.toLowerCase());
  if (
    hasDomain &&
    !/^(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*|\[[0-9a-fA-F:]+\])(?::[0-9]+)?$/.test(
      first,
    )
  )
    return `its registry "${first}" is not a host name with an optional port`;
  const path = hasDomain ? parts.slice(1) : parts;
  const bad = path.find((c) => !/^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/.test(c));
  if (bad !== undefined)
    return bad === ''
      ? 'it has an empty path component ("//" or a "/" at an end)'
      : `its path component "${bad}" is not lower-case letters and digits joined by ".", "_", "__" or "-"`;
  if (name.length > 255) return `its name has ${name.length} characters, more than 255`;
  return undefined;
}

/** The variable that holds a Kind's image in the manager: `MEMCACHED_IMAGE`, as Kubebuilder names it. */
export function imageEnvName(kind: string): string {
  return `${kind.toUpperCase()}_IMAGE`;
}

/** What the plugin's templates take about the image, besides the Kind's names. */
/** What the deploy-image plugin's templates see, over create api's data. */
export interface DeployImageData {
  deployImage: true;
  image: string;
  /** `<KIND>_IMAGE`, the variable the controller reads the image from. */
  imageEnv: string;
  finalizer: string;
  containerName: string;
  portName: string;
  managedBy: string;
  /** The container's command as a TypeScript array literal, or ''. */
  command: string;
  containerPort?: number;
  runAsUser?: number;
}

export function deployImageData(d: DeployImage, names: { kind: string; qualifiedGroup: string }): DeployImageData {
  const lower = names.kind.toLowerCase();
  return {
    deployImage: true,
    image: d.image,
    imageEnv: imageEnvName(names.kind),
    finalizer: `${names.qualifiedGroup}/finalizer`,
    containerName: lower,
    // An IANA service name: at most 15 characters (the Kind starts with a letter).
    portName: lower.slice(0, 15),
    managedBy: `${names.kind}Controller`.slice(0, 63),
    command: d.command.length ? `[${d.command.map(tsString).join(', ')}]` : '',
    containerPort: d.port,
    runAsUser: d.runAsUser,
  };
}

/** A YAML scalar for an env value: plain when YAML reads it back as the same string. */
function yamlValue(s: string): string {
  return /^[A-Za-z0-9][\w./:@+-]*$/.test(s) &&
    !/^(true|false|yes|no|on|off|null|y|n|~)$/i.test(s) &&
    !/^[\d.:+-]+$/.test(s)
    ? s
    : JSON.stringify(s);
}

/**
 * manager.yaml with the `<KIND>_IMAGE` variable set on the `manager` container (added first in
 * its `env`, as Kubebuilder inserts it; its value replaced when it is there). Returns the text
 * unchanged when it already says so, or a problem (KF1089) when there is no such container.
 */
export function setImageEnv(
  text: string,
  envName: string,
  image: string,
): { text: string; problem?: undefined } | { text?: undefined; problem: Diagnostic } {
  const lineOf = (offset: number) => text.slice(0, offset).split('\n').length;
  for (const doc of parseAllDocuments(text)) {
    if ('errors' in doc && doc.errors.length) break;
    const containers = doc.getIn(['spec', 'template', 'spec', 'containers'], true);
    if (!isSeq(containers)) continue;
    const manager = containers.items.find((c): c is YAMLMap => isMap(c) && c.get('name') === 'manager');
    if (!manager) continue;
    const lines = text.split('\n');
    const env = manager.get('env', true);
    if (isSeq(env) && env.items.length > 0) {
      const existing = env.items.find((e): e is YAMLMap => isMap(e) && e.get('name') === envName);
      if (existing) {
        const value = existing.get('value', true);
        if (isScalar(value) && value.value === image) return { text };
        if (!isScalar(value) || !value.range) break;
        return { text: text.slice(0, value.range[0]) + yamlValue(image) + text.slice(value.range[1]) };
      }
      const first = env.items[0] as YAMLMap;
      if (!first.range) break;
      const at = lineOf(first.range[0]) - 1;
      const dash = lines[at].indexOf('- ');
      if (dash < 0) break;
      const indent = ' '.repeat(dash);
      lines.splice(at, 0, `${indent}- name: ${envName}`, `${indent}  value: ${yamlValue(image)}`);
      return { text: lines.join('\n') };
    }
    if (env !== undefined && !(isSeq(env) && env.items.length === 0)) break;
    // No env (or `env: []`): a block after the container's `name: manager` line.
    const namePair = manager.items.find((p) => isScalar(p.key) && p.key.value === 'name');
    const keyRange = isScalar(namePair?.key) ? namePair.key.range : undefined;
    if (!keyRange) break;
    const at = lineOf(keyRange[0]) - 1;
    const indent = ' '.repeat(keyRange[0] - text.lastIndexOf('\n', keyRange[0] - 1) - 1);
    if (isSeq(env)) {
      const envLine = lines.findIndex(
        (l, i) => i > 0 && /^\s*env:\s*\[\]\s*$/.test(l) && l.startsWith(indent) && !l.startsWith(`${indent} `),
      );
      if (envLine < 0) break;
      lines.splice(envLine, 1);
    }
    lines.splice(at + 1, 0, `${indent}env:`, `${indent}- name: ${envName}`, `${indent}  value: ${yamlValue(image)}`);
    return { text: lines.join('\n') };
  }
  return {
    problem: error(
      'KF1089',
      `${MANAGER_FILE} has no container named "manager" whose env the deploy-image plugin can set ${envName} in`,
      {
        file: MANAGER_FILE,
        hint: `restore the manager Deployment from \`kubeforge init --dry-run\` in an empty folder, or add to its manager container:\n  env:\n  - name: ${envName}\n    value: ${image}`,
      },
    ),
  };
}

/** The plugin's `resources` in PROJECT (an empty list when it has none). */
export function deployImageResources(config: Pick<ProjectConfig, 'extra'>): DeployImageResource[] {
  // PROJECT is the user's: an entry that is not a Kind's record is skipped, whatever the type says.
  const list: unknown[] = pluginConfig(config, DEPLOY_IMAGE_PLUGIN)?.resources ?? [];
  return (Array.isArray(list) ? list : []).filter(
    (r): r is DeployImageResource =>
      !!r &&
      typeof r === 'object' &&
      typeof (r as DeployImageResource).kind === 'string' &&
      typeof (r as DeployImageResource).version === 'string',
  );
}

/**
 * A spec the Kind the plugin scaffolded accepts, as a TypeScript literal (for the tests `create
 * webhook` writes): its sample's values; undefined when the plugin did not scaffold that Kind.
 */
export function deployImageSpecExample(
  config: Pick<ProjectConfig, 'extra'>,
  gvk: { group: string; version: string; kind: string },
): string | undefined {
  const r = deployImageResources(config).find(
    (d) => d.group === gvk.group && d.version === gvk.version && d.kind === gvk.kind,
  );
  if (!r) return undefined;
  const port = flagsOf(r).imageContainerPort;
  return port === undefined ? '{ size: 1 }' : `{ size: 1, containerPort: ${Number(port)} }`;
}

/** The flags a PROJECT entry of the plugin records, to replay it. */
export function flagsOf(r: DeployImageResource): DeployImageFlags {
  const o = r.options ?? {};
  const str = (v: unknown) => (v === undefined || v === null ? undefined : String(v));
  return {
    image: str(o.image),
    imageContainerCommand: str(o.containerCommand),
    imageContainerPort: str(o.containerPort),
    runAsUser: str(o.runAsUser),
  };
}

/**
 * PROJECT's extra keys with the Kind recorded in the plugin's `resources` (replacing an entry of
 * the same group, version and Kind, else appended), the other plugins and keys kept.
 */
export function withDeployImageResource(
  config: Pick<ProjectConfig, 'extra'>,
  r: { group: string; version: string; kind: string; domain?: string },
  flags: DeployImageFlags,
): Record<string, unknown> {
  const plugins = pluginsOf(config);
  const current = pluginConfig(config, DEPLOY_IMAGE_PLUGIN) ?? {};
  const entry: DeployImageResource = {
    domain: r.domain || undefined,
    group: r.group,
    kind: r.kind,
    options: {
      containerCommand: flags.imageContainerCommand,
      containerPort: flags.imageContainerPort?.trim(),
      image: flags.image?.trim(),
      runAsUser: flags.runAsUser?.trim(),
    },
    version: r.version,
  };
  const resources = Array.isArray(current.resources) ? [...current.resources] : [];
  const at = resources.findIndex((e) => e && e.group === r.group && e.version === r.version && e.kind === r.kind);
  if (at >= 0) resources[at] = entry;
  else resources.push(entry);
  return { ...(config.extra ?? {}), plugins: { ...plugins, [DEPLOY_IMAGE_PLUGIN]: { ...current, resources } } };
}
