/**
 * The options `kubeforge manifests` generates with, as a project records them: typed data in
 * PROJECT, the plugin record `manifests.kubeforge.io/v1-alpha` (Kubebuilder keeps a plugin's
 * settings the same way, under PROJECT's `plugins:`):
 *
 *   plugins:
 *     manifests.kubeforge.io/v1-alpha:
 *       generateEmbeddedObjectMeta: true
 *       k8sVersion: "1.35"
 *       maxDescLen: 0
 *
 * `kubeforge manifests --max-desc-len 0` (and --k8s-version, --generate-embedded-object-meta)
 * records what it is given there; every entry of the pipeline (a plain `kubeforge manifests`,
 * `--check`, `kubeforge dev`, the manifests step of create api / webhook, alpha generate) reads it,
 * a flag given winning for its run.
 *
 * Projects made before the record existed kept these options as flags of package.json's
 * `manifests` script; those are still read (script.ts, read only) and win over the record, so
 * such a project generates what it generated before. `alpha generate` (and so `alpha update`)
 * moves them into the record.
 */
import { join } from 'node:path';
import { isMap, isScalar, parseDocument } from 'yaml';
import { DiagnosticError, error } from '../diagnostics/index.js';
import { isK8sVersion, K8S_NEWEST_VERSION, K8S_VERSIONS, type K8sVersion } from '../schema/k8s/index.js';
import { MANIFESTS_PLUGIN, withPlugin } from '../project/plugins.js';
import { serializeProject } from '../project/config.js';
import { ProjectFile } from '../project/file.js';
import { parseK8sVersion } from './k8s-version.js';
import { recordedK8sVersion, recordedManifestsOptions, recordedMaxDescLenFlag } from './script.js';

export { MANIFESTS_PLUGIN };

/** The manifests options a project records (undefined: not recorded). */
export interface ManifestsSettings {
  /** controller-gen's `crd:maxDescLen`. */
  maxDescLen?: number;
  /** controller-gen's `crd:generateEmbeddedObjectMeta`. */
  embeddedObjectMeta?: boolean;
  /** The Kubernetes minor of embedded Kubernetes types. */
  k8sVersion?: K8sVersion;
}

/** Each setting's key in the PROJECT record (controller-gen's names), in the order plans list them. */
const RECORD_KEYS = {
  maxDescLen: 'maxDescLen',
  k8sVersion: 'k8sVersion',
  embeddedObjectMeta: 'generateEmbeddedObjectMeta',
} as const satisfies Record<keyof ManifestsSettings, string>;

const KNOWN = new Set<string>(Object.values(RECORD_KEYS));

/** The 1-based line of `plugins.<id>.<key>` (or of the record, or of `plugins`) in PROJECT's text. */
function lineOf(text: string, key?: string): number | undefined {
  const doc = parseDocument(text);
  const node =
    (key === undefined ? undefined : doc.getIn(['plugins', MANIFESTS_PLUGIN, key], true)) ??
    doc.getIn(['plugins', MANIFESTS_PLUGIN], true) ??
    doc.get('plugins', true);
  const at = (node as { range?: [number, number, number] } | undefined)?.range?.[0];
  if (at === undefined) return undefined;
  // A value's range starts at the value: a scalar is on its key's line; a block map (the record)
  // starts at its first key, the line below the plugin's id.
  return text.slice(0, at).split('\n').length;
}

/** A value as the message shows it: numbers as YAML wrote them (.inf is Infinity, not JSON's null). */
const shown = (v: unknown) => (typeof v === 'number' ? String(v) : JSON.stringify(v));

/** KF1098 at `key` of the record in PROJECT (`file`), with the fix. */
function badRecord(text: string, file: string, key: string | undefined, problem: string, hint: string): never {
  const where = key === undefined ? `plugins.${MANIFESTS_PLUGIN}` : `plugins.${MANIFESTS_PLUGIN}.${key}`;
  throw new DiagnosticError(error('KF1098', `PROJECT ${where} ${problem}`, { file, line: lineOf(text, key), hint }));
}

/** The raw record: the map under `plugins.manifests.kubeforge.io/v1-alpha`, or undefined. */
function rawRecord(text: string, file: string): Record<string, unknown> | undefined {
  const doc = parseDocument(text);
  const plugins = doc.get('plugins', true);
  if (plugins !== undefined && !isMap(plugins) && !(isScalar(plugins) && plugins.value === null))
    throw new DiagnosticError(
      error('KF1098', 'PROJECT plugins is not a map of plugin ids to their settings', {
        file,
        line: lineOf(text, 'plugins'),
        hint: `write it as Kubebuilder does: "plugins:" then "  ${MANIFESTS_PLUGIN}:" and its keys, indented`,
      }),
    );
  if (!isMap(plugins)) return undefined;
  const node = plugins.get(MANIFESTS_PLUGIN, true);
  if (node === undefined) return undefined;
  if (isScalar(node) && (node.value === null || node.value === undefined)) return {};
  if (!isMap(node))
    badRecord(
      text,
      file,
      undefined,
      'is not a map of options',
      `write it as a map, e.g. "${MANIFESTS_PLUGIN}: { maxDescLen: 0 }", or remove it`,
    );
  return node.toJSON() as Record<string, unknown>;
}

/**
 * The settings PROJECT's manifests record holds, checked: KF1098 located at the key (PROJECT,
 * its line) for a key kubeforge does not know or a value of the wrong kind. `file` names PROJECT
 * in the diagnostic. A PROJECT without the record gives `{}`.
 */
export function projectManifestsSettings(text: string | undefined, file: string): ManifestsSettings {
  const record = text === undefined ? undefined : rawRecord(text, file);
  if (text === undefined || record === undefined) return {};
  for (const key of Object.keys(record))
    if (!KNOWN.has(key))
      badRecord(
        text,
        file,
        key,
        'is not an option kubeforge knows',
        `the options are ${[...KNOWN].join(', ')}: rename or remove "${key}"`,
      );
  const out: ManifestsSettings = {};
  const { maxDescLen, k8sVersion, generateEmbeddedObjectMeta } = record;
  if (maxDescLen !== undefined && maxDescLen !== null) {
    if (typeof maxDescLen !== 'number' || !Number.isSafeInteger(maxDescLen) || maxDescLen < 0)
      badRecord(
        text,
        file,
        'maxDescLen',
        `is ${shown(maxDescLen)}, not a whole number of bytes, 0 or more`,
        'write e.g. "maxDescLen: 0" (no descriptions) or "maxDescLen: 80", or remove the key (descriptions whole)',
      );
    out.maxDescLen = maxDescLen;
  }
  if (k8sVersion !== undefined && k8sVersion !== null) {
    const supported = K8S_VERSIONS.join(', ');
    const quote =
      typeof k8sVersion === 'number'
        ? `: YAML reads the unquoted ${String(k8sVersion)} as a number (1.30 as 1.3), so write it quoted`
        : '';
    const minor = typeof k8sVersion === 'string' ? /^v?(1\.\d+)(?:\.\d+)?$/.exec(k8sVersion.trim())?.[1] : undefined;
    if (minor === undefined || !isK8sVersion(minor))
      badRecord(
        text,
        file,
        'k8sVersion',
        quote
          ? `is the number ${String(k8sVersion)}, not a string${quote}`
          : `is ${shown(k8sVersion)}, not a Kubernetes minor kubeforge has the types of (supported: ${supported})`,
        `write one of ${supported} as a quoted string, e.g. k8sVersion: "${K8S_NEWEST_VERSION}", or remove the key (kubeforge then uses ${K8S_NEWEST_VERSION})`,
      );
    out.k8sVersion = minor;
  }
  if (generateEmbeddedObjectMeta !== undefined && generateEmbeddedObjectMeta !== null) {
    if (typeof generateEmbeddedObjectMeta !== 'boolean')
      badRecord(
        text,
        file,
        'generateEmbeddedObjectMeta',
        `is ${JSON.stringify(generateEmbeddedObjectMeta)}, not true or false`,
        'write "generateEmbeddedObjectMeta: true" or "generateEmbeddedObjectMeta: false", or remove the key (false)',
      );
    if (generateEmbeddedObjectMeta) out.embeddedObjectMeta = true;
  }
  return out;
}

/** The manifests options as a caller gives them: `--max-desc-len` as typed (a string) or a number. */
export interface GivenSettings {
  maxDescLen?: number | string;
  embeddedObjectMeta?: boolean;
  k8sVersion?: string;
}

/**
 * The options given to a run (the command line's flags, or a caller's values), checked once, here:
 * `maxDescLen` a whole number of bytes, 0 or more (KF1093); `k8sVersion` a minor kubeforge has the
 * types of (KF1097). The pipeline calls it as it settles a run's options; nothing checks them again.
 */
export function checkGivenSettings(given: GivenSettings): ManifestsSettings {
  const { maxDescLen, k8sVersion } = given;
  let n: number | undefined;
  if (maxDescLen !== undefined) {
    const whole =
      typeof maxDescLen === 'number'
        ? Number.isInteger(maxDescLen) && maxDescLen >= 0
        : /^\d+$/.test(maxDescLen.trim());
    if (!whole)
      throw new DiagnosticError(
        error('KF1093', `invalid --max-desc-len "${maxDescLen}": expected a whole number of bytes, 0 or more`, {
          hint: 'e.g. --max-desc-len 0 (no descriptions) or --max-desc-len 80',
        }),
      );
    n = Number(maxDescLen);
  }
  return {
    maxDescLen: n,
    embeddedObjectMeta: given.embeddedObjectMeta === true || undefined,
    k8sVersion: k8sVersion === undefined ? undefined : parseK8sVersion(k8sVersion, { flag: true }),
  };
}

/** Where a project's settings come from: its PROJECT and (for older projects) its package.json. */
export interface SettingsSource {
  /** The text of a file of the project (PROJECT, package.json), or undefined. */
  read(path: string): string | undefined;
  /** The project folder (names the files in diagnostics). */
  projectDir: string;
}

/**
 * What a project generates with when no flag says otherwise: PROJECT's record, under the flags of
 * package.json's `manifests` script where an older project still passes them there (those win:
 * they are what `make manifests` passes). A bad value is located where it is written (KF1098 in
 * PROJECT, KF1097 for a script's --k8s-version).
 */
export function recordedSettings(source: SettingsSource): ManifestsSettings {
  const project = projectManifestsSettings(source.read('PROJECT'), join(source.projectDir, 'PROJECT'));
  const pkg = source.read('package.json');
  // A script flag that `make manifests` would refuse is refused here too, where it is written.
  const flag = recordedMaxDescLenFlag(pkg);
  if (flag && !/^\d+$/.test(flag.value))
    throw new DiagnosticError(
      error(
        'KF1093',
        `invalid --max-desc-len "${flag.value}" in package.json's manifests script: expected a whole number of bytes, 0 or more`,
        {
          file: join(source.projectDir, 'package.json'),
          line: flag.line,
          hint: `fix or remove the flag there (kubeforge records the option in PROJECT: kubeforge manifests --max-desc-len <n>)`,
        },
      ),
    );
  const legacy = recordedManifestsOptions(pkg);
  const script = recordedK8sVersion(pkg);
  return {
    maxDescLen: legacy.maxDescLen ?? project.maxDescLen,
    embeddedObjectMeta: legacy.embeddedObjectMeta ?? project.embeddedObjectMeta,
    k8sVersion:
      script === undefined
        ? project.k8sVersion
        : parseK8sVersion(script.value, { file: join(source.projectDir, 'package.json'), line: script.line }),
  };
}

/**
 * PROJECT's text with `given` recorded in its manifests record (the other keys of the record, and
 * the rest of PROJECT, kept), and what that changed; undefined when the record already says so.
 * The record is checked first (KF1098, `file` naming PROJECT).
 */
export function projectWithSettings(
  text: string,
  file: string,
  given: ManifestsSettings,
): { text: string; changed: ManifestsSettings } | undefined {
  const current = projectManifestsSettings(text, file);
  const changed: ManifestsSettings = {};
  for (const k of Object.keys(RECORD_KEYS) as (keyof ManifestsSettings)[])
    if (given[k] !== undefined && given[k] !== current[k]) Object.assign(changed, { [k]: given[k] });
  if (Object.keys(changed).length === 0) return undefined;
  const { config } = ProjectFile.parse(text, file);
  const extra = withPlugin(config, MANIFESTS_PLUGIN, recordOf({ ...current, ...changed }));
  return { text: serializeProject({ ...config, extra }), changed };
}

/** One setting as a plan names it: `maxDescLen 0`. */
export function describeSettings(settings: ManifestsSettings): string {
  return (Object.keys(RECORD_KEYS) as (keyof ManifestsSettings)[])
    .filter((k) => settings[k] !== undefined)
    .map((k) => `${RECORD_KEYS[k]} ${settings[k]}`)
    .join(', ');
}

/** The record PROJECT holds for these settings (its keys: controller-gen's names). */
export function recordOf(settings: ManifestsSettings): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(RECORD_KEYS) as (keyof ManifestsSettings)[])
    if (settings[k] !== undefined) out[RECORD_KEYS[k]] = settings[k];
  return out;
}
