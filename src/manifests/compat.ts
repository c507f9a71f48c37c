/**
 * `kubeforge manifests --check-compat <git-ref|dir>`: the CRDs being written compared with those
 * of a base (the project's config/crd/bases at a git ref, read with `git ls-tree` / `git show`
 * and no checkout, or a folder of released CRD YAML), each change that can break a client or a
 * stored object reported as a named rule, located at the TypeScript field (or class, or marker)
 * that the new schema node was built from (src/schema/origin.ts).
 *
 * Severity: a breaking change in a version the new CRD serves is an error (nothing is written);
 * the same change in a version it no longer serves, and the rules that are advisory by nature
 * (a version no longer served, a changed default), are warnings. `--allow <rule>` turns a rule's
 * errors into warnings and drops its warnings.
 *
 * The rule set follows what crdify (sigs.k8s.io/crdify) and KEP-5000 check; the server-side
 * claims in the messages (ratcheting of unchanged values, pruning of removed fields, refused
 * scope changes) are checked against a real kube-apiserver in test/manifests/compat-server.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { type Diagnostic, DiagnosticError, error, warning } from '../diagnostics/index.js';
import type { Location } from '../collector/collector.js';
import { crdOriginOf, schemaOriginOf, type SchemaOrigin } from '../schema/origin.js';
import type { Finding as ReportFinding } from '../machinery/report.js';
import { CRD_DIR } from './managed-files.js';
import type { CRDManifest } from './crd.js';
import { readYamlObjects, type YamlSyntaxError } from './yaml-documents.js';
import { ruleImpliedBy } from '#cel';

type Obj = Record<string, unknown>;
type Schema = Record<string, unknown>;

export type CompatSeverity = 'error' | 'warning';

export interface CompatRule {
  /** Stable name, for `--allow` and docs/manifests.md. */
  name: string;
  /** Severity in a served version (a version the new CRD does not serve gets warnings only). */
  severity: CompatSeverity;
  summary: string;
}

const r = (name: string, severity: CompatSeverity, summary: string): CompatRule => ({ name, severity, summary });

/** Every rule, in the order docs/manifests.md lists them. */
export const COMPAT_RULES: readonly CompatRule[] = [
  r('crd-removed', 'error', 'a CRD of the base is no longer generated (its Kind was removed or renamed)'),
  r('scope-changed', 'error', 'Namespaced <-> Cluster: the API server refuses the update of a CRD with stored objects'),
  r(
    'plural-changed',
    'error',
    "another plural name: the resource's URL and the CRD's name change, so it is a new CRD without the stored objects",
  ),
  r('served-version-removed', 'error', 'a version the base serves is gone from the CRD: clients of it get 404'),
  r('version-unserved', 'warning', 'a version the base serves is kept but no longer served'),
  r('storage-version-changed', 'error', 'another storage version, with a different schema and no conversion webhook'),
  r('field-removed', 'error', 'a field of the base is gone (removed or renamed): stored values are pruned'),
  r(
    'status-subresource-removed',
    'error',
    'the status subresource is gone from a served version: clients writing /status get 404',
  ),
  r(
    'scale-subresource-removed',
    'error',
    'the scale subresource is gone from a served version: /scale (kubectl scale, HorizontalPodAutoscaler) gets 404',
  ),
  r(
    'status-subresource-added',
    'warning',
    'the status subresource added to a served version: updates of the object ignore status from now on',
  ),
  r(
    'scale-paths-changed',
    'error',
    'the scale subresource reads and writes other fields (specReplicasPath, statusReplicasPath, labelSelectorPath)',
  ),
  r('type-changed', 'error', 'a field changed type (widening integer to number or to int-or-string is allowed)'),
  r('required-added', 'error', 'a field became required and has no default'),
  r('minimum-tightened', 'error', 'minimum raised, or exclusiveMinimum added at the same minimum'),
  r('maximum-tightened', 'error', 'maximum lowered, or exclusiveMaximum added at the same maximum'),
  r('min-length-tightened', 'error', 'minLength raised'),
  r('max-length-tightened', 'error', 'maxLength added or lowered'),
  r('min-items-tightened', 'error', 'minItems raised'),
  r('max-items-tightened', 'error', 'maxItems added or lowered'),
  r('min-properties-tightened', 'error', 'minProperties raised'),
  r('max-properties-tightened', 'error', 'maxProperties added or lowered'),
  r('multiple-of-changed', 'error', 'multipleOf added, or changed to a value the old one is not a multiple of'),
  r('pattern-changed', 'error', 'pattern added or changed'),
  r('enum-narrowed', 'error', 'enum added, or a value of the base enum removed'),
  r(
    'format-changed',
    'error',
    'a format the API server checks added or changed (formats it ignores, and int64 or double, are no finding)',
  ),
  r(
    'nullable-removed',
    'error',
    'nullable: true removed: null values are dropped (the field reads as absent), stored ones too',
  ),
  r(
    'preserve-unknown-fields-removed',
    'error',
    'x-kubernetes-preserve-unknown-fields removed: undeclared fields are pruned',
  ),
  r(
    'list-type-changed',
    'error',
    'x-kubernetes-list-type changed (atomic, set, map): merge semantics and uniqueness change',
  ),
  r('list-map-keys-changed', 'error', 'x-kubernetes-list-map-keys changed'),
  r('map-type-changed', 'error', 'x-kubernetes-map-type changed (granular, atomic)'),
  r(
    'cel-rule-added',
    'error',
    'a new x-kubernetes-validations rule that existing objects could fail, not ratcheted (no oldSelf, no optionalOldSelf)',
  ),
  r(
    'default-changed',
    'warning',
    'a default changed or removed: objects created from now on get another value (stored ones keep theirs)',
  ),
];

const RULES = new Map(COMPAT_RULES.map((x) => [x.name, x]));

/** One CRD of the base, with where it was read. */
export interface BaseCRD {
  crd: Obj;
  /** `config/crd/bases/x.yaml at v1.0.0`, or the file of a folder. */
  source: string;
  /** The file to locate findings about the base's own content (a folder's file). */
  file?: string;
}

export interface CompatBase {
  /** What the user passed, for messages. */
  label: string;
  kind: 'git' | 'folder';
  crds: BaseCRD[];
}

/** One difference found by {@link diffCRDs}. */
export interface Finding {
  rule: string;
  severity: CompatSeverity;
  /** `v1`, or undefined for a CRD-level finding. */
  version?: string;
  /** `.spec.size` (undefined for version- and CRD-level findings). */
  path?: string;
  message: string;
  /** The chain of new schema nodes from the version's root down to the node (for locating it). */
  chain?: Schema[];
}

// ---------------------------------------------------------------------------------------------
// Base loading

const isYaml = (f: string) => /\.ya?ml$/i.test(f);

function crdsOfText(text: string, source: string, file: string | undefined): BaseCRD[] {
  const onError = (e: YamlSyntaxError): never => {
    throw new DiagnosticError(
      error('KF4701', `${source} is not valid YAML: ${e.message}`, {
        ...(file && { file, line: e.line, column: e.column }),
        hint: 'the base of --check-compat must hold CustomResourceDefinition YAML documents',
      }),
    );
  };
  return readYamlObjects(text, { kind: 'CustomResourceDefinition', onError })
    .filter((crd) => String(crd.apiVersion ?? '').startsWith('apiextensions.k8s.io/'))
    .map((crd) => ({ crd, source, file }));
}

function listYaml(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  )) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...listYaml(p));
    else if (e.isFile() && isYaml(e.name)) out.push(p);
  }
  return out;
}

/** The CRDs of a folder (every *.yaml / *.yml below it, other kinds of documents skipped). */
export function loadFolderBase(dir: string, label = dir): CompatBase {
  const crds: BaseCRD[] = [];
  for (const f of listYaml(dir)) crds.push(...crdsOfText(readFileSync(f, 'utf8'), relative(process.cwd(), f) || f, f));
  if (crds.length === 0) {
    throw new DiagnosticError(
      error('KF4701', `--check-compat ${label}: no CustomResourceDefinition in any .yaml file of the folder`, {
        file: dir,
        hint: 'pass the folder of the released CRDs (e.g. config/crd/bases of the release), or a git ref',
      }),
    );
  }
  return { label, kind: 'folder', crds };
}

function git(projectDir: string, args: string[]): string {
  return execFileSync('git', ['-C', projectDir, ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** The CRDs under config/crd/bases of the project at a git ref (read from the object store; no checkout). */
export function loadGitBase(projectDir: string, ref: string): CompatBase {
  try {
    git(projectDir, ['rev-parse', '--git-dir']);
  } catch {
    throw new DiagnosticError(
      error(
        'KF4700',
        `--check-compat ${ref}: not a folder, and ${projectDir} is not in a git repository to read it as a ref from`,
        {
          hint: "pass a git ref (tag, branch, commit) of the project's repository, or a folder of released CRD YAML files",
        },
      ),
    );
  }
  let commit: string;
  try {
    commit = git(projectDir, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`]).trim();
  } catch {
    throw new DiagnosticError(
      error(
        'KF4700',
        `--check-compat ${ref}: no such folder, and no such git ref (tag, branch or commit) in the repository`,
        { hint: 'check the name with `git tag` / `git branch -a`, or pass a folder of released CRD YAML files' },
      ),
    );
  }
  const files = git(projectDir, ['ls-tree', '-r', '--full-name', '--name-only', commit, '--', CRD_DIR])
    .split('\n')
    .filter((f) => isYaml(f))
    .sort();
  const crds: BaseCRD[] = [];
  for (const f of files)
    crds.push(...crdsOfText(git(projectDir, ['show', `${commit}:${f}`]), `${f} at ${ref}`, undefined));
  // Nothing to compare with is no pass: every CRD would be "new" and the check would say nothing.
  if (crds.length === 0) {
    throw new DiagnosticError(
      error(
        'KF4701',
        `--check-compat ${ref}: no CustomResourceDefinition under ${CRD_DIR} at ${ref} (${files.length === 0 ? 'no .yaml file there' : `${files.length} .yaml file${files.length === 1 ? '' : 's'}, none a CRD`}): nothing to compare with`,
        {
          hint: `pass a ref whose ${CRD_DIR} holds the released CRDs (the last release that had them), or a folder of released CRD YAML files`,
        },
      ),
    );
  }
  return { label: ref, kind: 'git', crds };
}

/** A folder when `base` names one (relative to cwd), else a git ref of the project's repository. */
export function loadCompatBase(base: string, projectDir: string, cwd: string): CompatBase {
  const dir = resolve(cwd, base);
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    isDir = false;
  }
  return isDir ? loadFolderBase(dir, base) : loadGitBase(projectDir, base);
}

/** `--allow` names checked: KF4702 for a name that is no rule. */
export function parseAllow(names: readonly string[] | undefined): Set<string> {
  const out = new Set<string>();
  for (const raw of names ?? []) {
    for (const name of raw
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)) {
      if (!RULES.has(name)) {
        throw new DiagnosticError(
          error('KF4702', `--allow ${name}: no compatibility rule has this name`, {
            hint: `the rules: ${COMPAT_RULES.map((x) => x.name).join(', ')}`,
          }),
        );
      }
      out.add(name);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Comparison

interface Version {
  name: string;
  served: boolean;
  storage: boolean;
  schema?: Schema;
  subresources: Obj;
}

function versionsOf(crd: Obj): Version[] {
  const spec = (crd.spec ?? {}) as Obj;
  return ((spec.versions ?? []) as Obj[]).map((v) => ({
    name: String(v.name),
    served: v.served !== false,
    storage: v.storage === true,
    schema: ((v.schema ?? {}) as Obj).openAPIV3Schema as Schema | undefined,
    // apiextensions.k8s.io/v1beta1 had one spec.subresources for every version.
    subresources: (v.subresources ?? spec.subresources ?? {}) as Obj,
  }));
}

export function groupKindOf(crd: Obj): string {
  const spec = (crd.spec ?? {}) as { group?: string; names?: { kind?: string } };
  return `${spec.names?.kind}.${spec.group}`;
}

const json = (v: unknown) => JSON.stringify(v);
const show = (v: unknown) => (typeof v === 'string' ? JSON.stringify(v) : json(v));

/** Equal for the API server's purposes: descriptions, titles and examples do not matter. */
function stripDocs(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(stripDocs);
  if (v && typeof v === 'object') {
    const out: Obj = {};
    for (const k of Object.keys(v).sort())
      if (k !== 'description' && k !== 'title' && k !== 'example' && k !== 'externalDocs')
        out[k] = stripDocs((v as Obj)[k]);
    return out;
  }
  return v;
}

function typeOf(s: Schema): string | undefined {
  if (s['x-kubernetes-int-or-string'] === true) return 'int-or-string';
  return typeof s.type === 'string' ? s.type : undefined;
}

/** A change of type that keeps every old value valid. */
function widens(from: string, to: string): boolean {
  return (
    (from === 'integer' && to === 'number') || ((from === 'integer' || from === 'string') && to === 'int-or-string')
  );
}

const CEL_OLD_SELF = /\boldSelf\b/;

/**
 * The string formats kube-apiserver 1.37 validates in CRD schemas (apiextensions-apiserver's
 * supported formats, names compared without dashes as go-openapi does); `password` is in that list
 * but accepts any string. Other formats are ignored (the server warns about them).
 */
const CHECKED_STRING_FORMATS = new Set([
  'bsonobjectid',
  'uri',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'cidr',
  'mac',
  'uuid',
  'uuid3',
  'uuid4',
  'uuid5',
  'isbn',
  'isbn10',
  'isbn13',
  'creditcard',
  'ssn',
  'hexcolor',
  'rgbcolor',
  'byte',
  'date',
  'duration',
  'datetime',
  'k8s-short-name'.replace(/-/g, ''),
  'k8s-long-name'.replace(/-/g, ''),
]);

/** The format the API server enforces on this node's values, if any: int64 and double bound nothing the server can read (it reads integers as int64, numbers as float64). */
function checkedFormat(s: Schema): string | undefined {
  if (typeof s.format !== 'string') return undefined;
  const t = typeof s.type === 'string' ? s.type : '';
  if (t === '' || t === 'string') {
    const f = s.format.replace(/-/g, '');
    return CHECKED_STRING_FORMATS.has(f) ? f : undefined;
  }
  if (t === 'integer') return s.format === 'int32' ? 'int32' : undefined;
  if (t === 'number') return s.format === 'float' ? 'float' : undefined;
  return undefined;
}

interface Walk {
  version: string;
  out: Finding[];
}

function push(w: Walk, rule: string, path: string, chain: Schema[], message: string): void {
  const known = RULES.get(rule);
  if (!known) throw new Error(`compat: finding for a rule not in COMPAT_RULES: ${rule}`);
  w.out.push({ rule, severity: known.severity, version: w.version, path: path || '.', message, chain });
}

function fieldPath(path: string, key: string): string {
  return /^[A-Za-z_][A-Za-z0-9_-]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

function lowerBound(s: Schema): { v: number; ex: boolean } | undefined {
  return typeof s.minimum === 'number' ? { v: s.minimum, ex: s.exclusiveMinimum === true } : undefined;
}
function upperBound(s: Schema): { v: number; ex: boolean } | undefined {
  return typeof s.maximum === 'number' ? { v: s.maximum, ex: s.exclusiveMaximum === true } : undefined;
}
const boundText = (b: { v: number; ex: boolean } | undefined, sign: string) =>
  b ? `${sign}${b.ex ? '' : '='} ${b.v}` : 'none';

const RATCHET =
  'objects stored with values it refuses stay readable, and updates that leave such a value unchanged are allowed (ratcheting); creates, and updates that change the value, must satisfy it';

function compareSchema(w: Walk, b: Schema, n: Schema, path: string, chain: Schema[]): void {
  const at = path || '.';
  const bt = typeOf(b);
  const nt = typeOf(n);
  if (bt !== undefined && nt !== undefined && bt !== nt && !widens(bt, nt)) {
    push(
      w,
      'type-changed',
      at,
      chain,
      `${at} changed type from ${bt} to ${nt}: stored ${bt} values are served as they are (clients decoding ${nt} fail on them) and updates that leave them unchanged pass (ratcheting), but creates and updates that set a ${bt} value are refused, so old clients cannot write it`,
    );
    return;
  }
  compareBounds(w, b, n, at, chain);
  compareValues(w, b, n, at, chain);
  compareMerging(w, b, n, bt, nt, at, chain);
  compareRules(w, b, n, at, chain);
  compareRequired(w, b, n, at, chain);
  compareChildren(w, b, n, path, chain);
}

/** Numeric bounds, lengths, counts and multipleOf: a tighter one refuses values the base took. */
function compareBounds(w: Walk, b: Schema, n: Schema, at: string, chain: Schema[]): void {
  const bl = lowerBound(b);
  const nl = lowerBound(n);
  if (nl && (!bl || nl.v > bl.v || (nl.v === bl.v && nl.ex && !bl.ex)))
    push(
      w,
      'minimum-tightened',
      at,
      chain,
      `${at}: minimum ${boundText(bl, '>')} -> ${boundText(nl, '>')}: ${RATCHET}`,
    );
  const bu = upperBound(b);
  const nu = upperBound(n);
  if (nu && (!bu || nu.v < bu.v || (nu.v === bu.v && nu.ex && !bu.ex)))
    push(
      w,
      'maximum-tightened',
      at,
      chain,
      `${at}: maximum ${boundText(bu, '<')} -> ${boundText(nu, '<')}: ${RATCHET}`,
    );
  for (const [key, rule] of [
    ['minLength', 'min-length-tightened'],
    ['minItems', 'min-items-tightened'],
    ['minProperties', 'min-properties-tightened'],
  ] as const) {
    const bv = typeof b[key] === 'number' ? (b[key] as number) : 0;
    if (typeof n[key] === 'number' && (n[key] as number) > bv)
      push(w, rule, at, chain, `${at}: ${key} ${b[key] ?? 'none'} -> ${n[key]}: ${RATCHET}`);
  }
  for (const [key, rule] of [
    ['maxLength', 'max-length-tightened'],
    ['maxItems', 'max-items-tightened'],
    ['maxProperties', 'max-properties-tightened'],
  ] as const) {
    if (typeof n[key] === 'number' && (typeof b[key] !== 'number' || (n[key] as number) < (b[key] as number)))
      push(w, rule, at, chain, `${at}: ${key} ${b[key] ?? 'none'} -> ${n[key]}: ${RATCHET}`);
  }
  if (typeof n.multipleOf === 'number' && n.multipleOf !== b.multipleOf) {
    const bm = b.multipleOf;
    const still = typeof bm === 'number' && Number.isInteger(bm / n.multipleOf);
    if (!still)
      push(w, 'multiple-of-changed', at, chain, `${at}: multipleOf ${bm ?? 'none'} -> ${n.multipleOf}: ${RATCHET}`);
  }
}

/** What a value may be and what it becomes: pattern, enum, format, nullable, pruning, default. */
function compareValues(w: Walk, b: Schema, n: Schema, at: string, chain: Schema[]): void {
  if (typeof n.pattern === 'string' && n.pattern !== b.pattern) {
    push(
      w,
      'pattern-changed',
      at,
      chain,
      `${at}: pattern ${b.pattern === undefined ? 'added' : `changed from ${show(b.pattern)}`} (${show(n.pattern)}): ${RATCHET}`,
    );
  }
  if (Array.isArray(n.enum)) {
    const kept = new Set((n.enum as unknown[]).map(json));
    if (!Array.isArray(b.enum))
      push(
        w,
        'enum-narrowed',
        at,
        chain,
        `${at}: enum added (${(n.enum as unknown[]).map(show).join(', ')}): ${RATCHET}`,
      );
    else {
      const gone = (b.enum as unknown[]).filter((v) => !kept.has(json(v)));
      if (gone.length)
        push(
          w,
          'enum-narrowed',
          at,
          chain,
          `${at}: enum value${gone.length > 1 ? 's' : ''} ${gone.map(show).join(', ')} removed: ${RATCHET}`,
        );
    }
  }
  if (checkedFormat(n) !== undefined && checkedFormat(n) !== checkedFormat(b))
    push(
      w,
      'format-changed',
      at,
      chain,
      `${at}: format ${b.format === undefined ? 'added' : `changed from ${show(b.format)}`} (${show(n.format)}): values not of that format are refused; ${RATCHET}`,
    );
  if (b.nullable === true && n.nullable !== true)
    push(
      w,
      'nullable-removed',
      at,
      chain,
      `${at}: nullable removed: the API server drops null values, those sent from now on and stored ones as they are read, so clients that tell null from absent lose it`,
    );
  if (b['x-kubernetes-preserve-unknown-fields'] === true && n['x-kubernetes-preserve-unknown-fields'] !== true) {
    push(
      w,
      'preserve-unknown-fields-removed',
      at,
      chain,
      `${at}: x-kubernetes-preserve-unknown-fields removed: fields it does not declare are pruned from objects as they are written and read`,
    );
  }
  if (b.default !== undefined && json(b.default) !== json(n.default)) {
    push(
      w,
      'default-changed',
      at,
      chain,
      `${at}: default ${n.default === undefined ? `${show(b.default)} removed` : `changed from ${show(b.default)} to ${show(n.default)}`}: objects created without it from now on get ${n.default === undefined ? 'no value' : 'the new value'}, while stored objects keep the value written with them`,
    );
  }
}

/** How server-side apply merges the value: list type, list-map keys, map type. */
function compareMerging(
  w: Walk,
  b: Schema,
  n: Schema,
  bt: string | undefined,
  nt: string | undefined,
  at: string,
  chain: Schema[],
): void {
  if (bt === 'array' || nt === 'array') {
    const blt = (b['x-kubernetes-list-type'] as string | undefined) ?? 'atomic';
    const nlt = (n['x-kubernetes-list-type'] as string | undefined) ?? 'atomic';
    if (blt !== nlt)
      push(
        w,
        'list-type-changed',
        at,
        chain,
        `${at}: x-kubernetes-list-type ${blt} -> ${nlt}: server-side apply merges the list differently${nlt !== 'atomic' ? ', and creates with duplicate items (keys) are refused (lists stored with duplicates stay readable and updatable: ratcheting)' : ''}`,
      );
    else if (
      nlt === 'map' &&
      json(b['x-kubernetes-list-map-keys'] ?? []) !== json(n['x-kubernetes-list-map-keys'] ?? [])
    ) {
      push(
        w,
        'list-map-keys-changed',
        at,
        chain,
        `${at}: x-kubernetes-list-map-keys ${json(b['x-kubernetes-list-map-keys'] ?? [])} -> ${json(n['x-kubernetes-list-map-keys'] ?? [])}: server-side apply identifies items differently, and stored lists may hold duplicate keys`,
      );
    }
  }
  const bmt = b['x-kubernetes-map-type'] as string | undefined;
  const nmt = n['x-kubernetes-map-type'] as string | undefined;
  if ((bmt ?? 'granular') !== (nmt ?? 'granular')) {
    const how =
      (nmt ?? 'granular') === 'atomic'
        ? 'server-side apply now owns and replaces the object as a whole: an apply of some of its fields conflicts with the other managers of the object, and when forced drops the fields it does not send'
        : 'server-side apply now merges the object field by field: an apply no longer replaces it as a whole, so fields another manager set (or this one set before) are kept instead of dropped';
    push(
      w,
      'map-type-changed',
      at,
      chain,
      `${at}: x-kubernetes-map-type ${bmt ?? 'granular'} -> ${nmt ?? 'granular'}: ${how} (stored objects are unchanged)`,
    );
  }
}

/**
 * The rules controller-gen writes for `AtMostOneOf`, `ExactlyOneOf` and `AtLeastOneOf`, in the form
 * of any of its versions, as one key: `[has(self.a),has(self.b)].filter(x,x==true).size() == 1`
 * (up to v0.21) and `(has(self.a)?1:0)+(has(self.b)?1:0) == 1` (v0.22 on) are the same rule, and
 * `... >= 1` the same as `has(self.a)||has(self.b)`. A CRD regenerated by a newer generator then
 * gains no rule. Undefined for any other rule.
 */
export function generatedRuleKey(rule: string): string | undefined {
  const t = rule.replace(/\s+/g, '');
  const field = /^has\(self\.([A-Za-z_$][\w$]*)\)$/;
  const fieldsOf = (parts: string[]) => {
    const names = parts.map((p) => field.exec(p)?.[1]);
    return names.every((x) => x !== undefined) ? names.join(',') : undefined;
  };
  const op = (o: string) => ({ '<=': 'at-most', '==': 'exactly', '>=': 'at-least' })[o];
  let m = /^\[(.+)\]\.filter\(x,x==true\)\.size\(\)(<=|==|>=)1$/.exec(t);
  if (m) {
    const f = fieldsOf(m[1].split(','));
    return f && `${op(m[2])}:${f}`;
  }
  m = /^(.+)(<=|==)1$/.exec(t);
  if (m?.[1].split('+').every((p) => /^\(has\(self\.[A-Za-z_$][\w$]*\)\?1:0\)$/.test(p))) {
    const f = fieldsOf(m[1].split('+').map((p) => p.slice(1, -5)));
    return f && `${op(m[2])}:${f}`;
  }
  const f = fieldsOf(t.split('||'));
  return f && `at-least:${f}`;
}

/**
 * CEL rules: a rule text the base does not have is a new rule (transition rules are ratcheted),
 * unless the base's rules of the node imply it (a loosened rule: a bound relaxed, a conjunct
 * dropped, an alternative added; ../cel/implies.ts).
 */
function compareRules(w: Walk, b: Schema, n: Schema, at: string, chain: Schema[]): void {
  const rules = (b['x-kubernetes-validations'] ?? []) as Obj[];
  const before = new Set(rules.map((x) => String(x.rule)));
  const beforeKeys = new Set(rules.map((x) => generatedRuleKey(String(x.rule))).filter((k) => k !== undefined));
  // What every stored object satisfied: the base's rules that are checked on create too.
  const held = rules
    .filter((x) => x.optionalOldSelf !== true && !CEL_OLD_SELF.test(String(x.rule)))
    .map((x) => String(x.rule));
  for (const rule of (n['x-kubernetes-validations'] ?? []) as Obj[]) {
    const text = String(rule.rule);
    if (before.has(text)) continue;
    // The same one-of marker written by another controller-gen version: the same rule.
    const key = generatedRuleKey(text);
    if (key !== undefined && beforeKeys.has(key)) continue;
    if (rule.optionalOldSelf === true || CEL_OLD_SELF.test(text)) continue; // ratcheted: a transition rule, or optionalOldSelf
    if (ruleImpliedBy(text, held)) continue; // loosened: nothing the base accepted fails it
    push(
      w,
      'cel-rule-added',
      at,
      chain,
      `${at}: new rule \`${text}\`: objects stored before may fail it; they stay readable, and updates that leave ${at} unchanged are allowed (ratcheting), but creates and updates that change it must satisfy the rule (make it a transition rule with oldSelf, or optionalOldSelf: true, to spare old values)`,
    );
  }
}

/** Required fields: new ones without a default. */
function compareRequired(w: Walk, b: Schema, n: Schema, at: string, chain: Schema[]): void {
  const breq = new Set((b.required ?? []) as string[]);
  const nprops = (n.properties ?? {}) as Record<string, Schema>;
  for (const name of (n.required ?? []) as string[]) {
    if (breq.has(name)) continue;
    const p = nprops[name];
    if (p && p.default !== undefined) continue;
    push(
      w,
      'required-added',
      fieldPath(at === '.' ? '' : at, name),
      p ? [...chain, p] : chain,
      `${fieldPath(at === '.' ? '' : at, name)} is required now and has no default: creates without it are refused; stored objects without it stay readable and can be updated while ${at} is unchanged (ratcheting), but an update that changes ${at} must add it`,
    );
  }
}

/** Properties (a removed one reported), items, additionalProperties and junctors, compared in turn. */
function compareChildren(w: Walk, b: Schema, n: Schema, path: string, chain: Schema[]): void {
  const nprops = (n.properties ?? {}) as Record<string, Schema>;
  const bprops = (b.properties ?? {}) as Record<string, Schema>;
  const added = Object.keys(nprops).filter((k) => !(k in bprops));
  for (const key of Object.keys(bprops).sort()) {
    const p = fieldPath(path, key);
    const np = nprops[key];
    if (!np) {
      if (n['x-kubernetes-preserve-unknown-fields'] === true) continue; // the values are kept, undeclared
      const same = added.filter((k) => json(stripDocs(nprops[k])) === json(stripDocs(bprops[key])));
      const renamed = same.length ? ` (renamed to ${same.map((k) => fieldPath(path, k)).join(' or ')}?)` : '';
      push(
        w,
        'field-removed',
        p,
        chain,
        `${p} is removed${renamed}: the API server prunes it from objects as they are written and read (stored values are lost), and clients that set it get an unknown-field warning, or an error with strict field validation`,
      );
      continue;
    }
    compareSchema(w, bprops[key], np, p, [...chain, np]);
  }
  if (
    b.items &&
    n.items &&
    typeof b.items === 'object' &&
    typeof n.items === 'object' &&
    !Array.isArray(b.items) &&
    !Array.isArray(n.items)
  ) {
    compareSchema(w, b.items as Schema, n.items as Schema, `${path}[*]`, [...chain, n.items as Schema]);
  }
  if (
    b.additionalProperties &&
    n.additionalProperties &&
    typeof b.additionalProperties === 'object' &&
    typeof n.additionalProperties === 'object'
  ) {
    compareSchema(w, b.additionalProperties as Schema, n.additionalProperties as Schema, `${path}[*]`, [
      ...chain,
      n.additionalProperties as Schema,
    ]);
  }
  // Junctors (controller-gen writes anyOf for int-or-string fields, and allOf/anyOf/oneOf can come
  // from a schema override): their entries constrain the same value, so they keep the path.
  // Entries are paired by index; an allOf entry the base lacks is compared with the empty schema,
  // so each constraint it adds is reported. `not` is not descended: a tighter `not` loosens.
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    const bj = Array.isArray(b[key]) ? (b[key] as Schema[]) : [];
    const nj = Array.isArray(n[key]) ? (n[key] as Schema[]) : [];
    for (let i = 0; i < nj.length; i++) {
      if (!nj[i] || typeof nj[i] !== 'object') continue;
      const base = bj[i] && typeof bj[i] === 'object' ? bj[i] : key === 'allOf' ? {} : undefined;
      if (base) compareSchema(w, base, nj[i], path, [...chain, nj[i]]);
    }
  }
}

/** The findings of one CRD against its base (same group and Kind). Pure: used by the corpus test as it is. */
export function diffCRDs(before: Obj, after: Obj): Finding[] {
  const out: Finding[] = [];
  const bspec = (before.spec ?? {}) as Obj;
  const nspec = (after.spec ?? {}) as Obj;
  if ((bspec.scope ?? 'Namespaced') !== (nspec.scope ?? 'Namespaced')) {
    out.push({
      rule: 'scope-changed',
      severity: 'error',
      message: `scope changed from ${bspec.scope} to ${nspec.scope}: the API server refuses this update of a CRD that has stored objects (scope is immutable then), and every client's URLs change`,
    });
  }
  const bplural = ((bspec.names ?? {}) as Obj).plural;
  const nplural = ((nspec.names ?? {}) as Obj).plural;
  if (bplural !== undefined && nplural !== undefined && bplural !== nplural) {
    out.push({
      rule: 'plural-changed',
      severity: 'error',
      message: `plural ${show(bplural)} -> ${show(nplural)}: the API server refuses it in place (spec.names.plural is immutable), and the CRD is named <plural>.<group>, so this is another CRD, without the objects stored under ${bplural}; clients of .../${bplural} get 404, and applying the new manifests with pruning deletes the old CRD and its objects`,
    });
  }
  const bvs = versionsOf(before);
  const nvs = versionsOf(after);
  const nByName = new Map(nvs.map((v) => [v.name, v]));
  for (const bv of bvs) {
    if (!bv.served) continue;
    const nv = nByName.get(bv.name);
    if (!nv) {
      out.push({
        rule: 'served-version-removed',
        severity: 'error',
        version: bv.name,
        message: `version ${bv.name} is served by the base and is gone: its clients get 404, and the API server refuses the CRD while ${bv.name} is in status.storedVersions`,
      });
    } else if (!nv.served) {
      out.push({
        rule: 'version-unserved',
        severity: 'warning',
        version: bv.name,
        message: `version ${bv.name} is no longer served: its clients get 404 (objects stored as ${bv.name} stay readable through the served versions)`,
      });
    } else {
      if (bv.subresources.status !== undefined && nv.subresources.status === undefined) {
        out.push({
          rule: 'status-subresource-removed',
          severity: 'error',
          version: bv.name,
          message: `version ${bv.name} no longer has the status subresource: reads and writes of /status get 404 (controllers updating status fail), and updates of the object itself now change its status instead of ignoring it`,
        });
      }
      if (bv.subresources.status === undefined && nv.subresources.status !== undefined) {
        out.push({
          rule: 'status-subresource-added',
          severity: 'warning',
          version: bv.name,
          message: `version ${bv.name} has the status subresource now: updates of the object ignore changes to status, so clients that wrote status with the object must write /status instead`,
        });
      }
      const bs = bv.subresources.scale as Obj | undefined;
      const ns = nv.subresources.scale as Obj | undefined;
      if (bs && ns) {
        const moved = (['specReplicasPath', 'statusReplicasPath', 'labelSelectorPath'] as const)
          .filter((k) => bs[k] !== ns[k])
          .map((k) => `${k} ${show(bs[k] ?? 'none')} -> ${show(ns[k] ?? 'none')}`);
        if (moved.length)
          out.push({
            rule: 'scale-paths-changed',
            severity: 'error',
            version: bv.name,
            message: `version ${bv.name}: the scale subresource maps other fields (${moved.join(', ')}): kubectl scale and HorizontalPodAutoscalers now read and write those, and the stored objects' values at the old paths are no longer what /scale shows`,
          });
      }
      if (bv.subresources.scale !== undefined && nv.subresources.scale === undefined) {
        out.push({
          rule: 'scale-subresource-removed',
          severity: 'error',
          version: bv.name,
          message: `version ${bv.name} no longer has the scale subresource: /scale gets 404, so kubectl scale and HorizontalPodAutoscalers targeting it fail`,
        });
      }
    }
  }
  const bStorage = bvs.find((v) => v.storage);
  const nStorage = nvs.find((v) => v.storage);
  const conversion = ((nspec.conversion ?? {}) as Obj).strategy === 'Webhook';
  if (bStorage && nStorage && bStorage.name !== nStorage.name && !conversion) {
    const oldInNew = nByName.get(bStorage.name);
    const same = oldInNew && json(stripDocs(oldInNew.schema)) === json(stripDocs(nStorage.schema));
    if (!same) {
      out.push({
        rule: 'storage-version-changed',
        severity: 'error',
        version: nStorage.name,
        message: `storage version ${bStorage.name} -> ${nStorage.name} with no conversion webhook and schemas that differ: strategy None converts by rewriting apiVersion only, so objects read through one version lose the fields it does not declare (pruned) and keep values that may not validate against it`,
      });
    }
  }
  for (const bv of bvs) {
    const nv = nByName.get(bv.name);
    if (!nv || !bv.schema || !nv.schema) continue;
    const w: Walk = { version: bv.name, out: [] };
    compareSchema(w, bv.schema, nv.schema, '', [nv.schema]);
    for (const f of w.out)
      out.push(
        nv.served
          ? f
          : { ...f, severity: 'warning', message: `${f.message} (version ${bv.name} is not served: a warning only)` },
      );
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Located diagnostics

const loc = (l: Location): Location => ({ file: l.file, line: l.line, column: l.column });

/** The nearest origin with a declaration on the chain (the user's field); else the version's Kind class. */
function locateChain(
  chain: readonly Schema[] | undefined,
  fallback: Location | undefined,
): { at?: Location; where?: string } {
  const schemas = chain ?? [];
  for (let i = schemas.length - 1; i >= 0; i--) {
    for (let o: SchemaOrigin | undefined = schemaOriginOf(schemas[i]); o; o = o.type) {
      if (o.at && !o.at.file.includes('/node_modules/')) return { at: loc(o.at), where: o.where };
    }
  }
  return { at: fallback && loc(fallback) };
}

export interface CompatOptions {
  allow?: ReadonlySet<string>;
  /** Only part of the project was analysed (--paths): base CRDs without a generated one are not "removed". */
  partial?: boolean;
  /** Receives each finding as reported (after --allow), structured: `--json`'s findings. */
  onFinding?: (f: ReportFinding) => void;
}

/** The located diagnostics of the generated CRDs against the base, `--allow` applied. */
export function checkCompat(base: CompatBase, crds: readonly CRDManifest[], options: CompatOptions = {}): Diagnostic[] {
  const allow = options.allow ?? new Set<string>();
  const byGK = new Map(crds.map((c) => [groupKindOf(c), c]));
  const out: Diagnostic[] = [];
  const emit = (f: Finding, gk: string, at: Location | undefined, where: string | undefined, extraFile?: string) => {
    let severity = f.severity;
    let note = '';
    if (allow.has(f.rule)) {
      if (severity === 'warning') return;
      severity = 'warning';
      note = ' (allowed by --allow)';
    }
    const kind = gk.split('.')[0];
    const head = `${kind} (${gk.slice(kind.length + 1)})${f.version ? ` ${f.version}` : ''}`;
    const message = `[${f.rule}] ${head}: ${f.message}${where ? ` [${where}]` : ''}, compared with ${base.label}${note}`;
    const hint =
      severity === 'error'
        ? `keep the API compatible (add a new version for the change), or accept the break with --allow ${f.rule}`
        : `pass --allow ${f.rule} to silence this`;
    const extra = { ...(at ?? (extraFile ? { file: extraFile } : {})), hint };
    options.onFinding?.({
      check: 'check-compat',
      rule: f.rule,
      severity,
      message: `${f.message}, compared with ${base.label}`,
      ...((at?.file ?? extraFile) !== undefined && { file: at?.file ?? extraFile }),
      ...(at?.line !== undefined && { line: at.line }),
      ...(at?.column !== undefined && { column: at.column }),
      groupKind: gk,
      ...(f.version !== undefined && { version: f.version }),
      ...(f.path !== undefined && { field: f.path }),
      ...(note && { allowed: true }),
    });
    out.push(
      severity === 'error'
        ? error(f.rule === 'crd-removed' ? 'KF4711' : 'KF4710', message, extra)
        : warning('KF4712', message, extra),
    );
  };
  const seen = new Set<string>();
  for (const b of base.crds) {
    const gk = groupKindOf(b.crd);
    if (seen.has(gk)) continue;
    seen.add(gk);
    const crd = byGK.get(gk);
    if (!crd) {
      if (!options.partial)
        emit(
          {
            rule: 'crd-removed',
            severity: 'error',
            message: `the CRD of ${base.label} (${b.source}) is no longer generated: applying the new manifests with pruning deletes it and every object of it`,
          },
          gk,
          undefined,
          undefined,
          b.file,
        );
      continue;
    }
    const origin = crdOriginOf(crd);
    const versionAt = (v?: string) => (origin?.versions.find((x) => x.version === v) ?? origin?.versions[0])?.at;
    const markerAt = (name: string) => {
      for (const v of origin?.versions ?? []) {
        const m = v.markers.find((x) => x.name === name);
        if (m) return loc(m);
      }
      return undefined;
    };
    for (const f of diffCRDs(b.crd, crd)) {
      if (f.chain) {
        const l = locateChain(f.chain, versionAt(f.version));
        emit(f, gk, l.at, l.where);
      } else if (f.rule === 'scope-changed' || f.rule === 'plural-changed')
        emit(f, gk, markerAt('Resource') ?? versionAt(), undefined);
      else if (f.rule === 'storage-version-changed')
        emit(f, gk, markerAt('StorageVersion') ?? versionAt(f.version), undefined);
      else if (f.rule === 'version-unserved')
        emit(f, gk, markerAt('UnservedVersion') ?? versionAt(f.version), undefined);
      else emit(f, gk, versionAt(f.version), undefined);
    }
  }
  return out;
}

/** One line for the end of a run: how many CRDs were compared, with what. */
export function compatSummary(
  base: CompatBase,
  crds: readonly CRDManifest[],
  diagnostics: readonly Diagnostic[],
): string {
  const names = new Set(crds.map(groupKindOf));
  const compared = new Set(base.crds.map((b) => groupKindOf(b.crd)).filter((gk) => names.has(gk))).size;
  const n = diagnostics.length;
  return `check-compat: ${compared} CRD${compared === 1 ? '' : 's'} compared with ${base.label}: ${n === 0 ? 'no incompatible change' : `${n} finding${n === 1 ? '' : 's'}`}\n`;
}
