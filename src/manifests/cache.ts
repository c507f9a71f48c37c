/**
 * The no-change fast path of `kubeforge manifests`.
 *
 * After a successful run we record a hash of every input and of every output we wrote. The next
 * run re-hashes them *without loading ts-morph*; when nothing differs it stops there.
 *
 * Inputs are: every TypeScript file the project's tsconfig (and the tsconfigs it extends) could
 * include, found by walking the folders named by `include` / `files` (node_modules, dot folders
 * and outDir skipped); every other file the last analysis read (imports from outside those
 * folders, and the declaration files of dependencies in node_modules, so upgrading a types
 * package invalidates the cache); the tsconfig chain and package.json; the versions of kubeforge
 * and of `@kubernetes/client-node`; the flags that change the output. A new file in a scanned
 * folder, a deleted file, or any edit invalidates the cache. Walking over-approximates the
 * tsconfig's globs on purpose: an extra file only costs a re-run, a missed one would be wrong.
 *
 * The record describes what the analysis read, not what is on disk when the run ends: the
 * scanned files are hashed *before* the analysis starts ({@link snapshotInputs}), and a file the
 * analysis read that was modified after the run started is recorded as changed. An edit saved
 * during a run (an editor's format-on-save) is therefore seen by the next run.
 *
 * Outputs: the managed files on disk (those carrying our header) must be exactly the set
 * recorded, with the recorded contents.
 *
 * The record lives in `node_modules/.cache/kubeforge/manifests.json` (or
 * `.kubeforge/cache/manifests.json` when the project has no node_modules); both are git-ignored
 * in generated projects.
 */
import { createHash } from 'node:crypto';
import { type Dirent, type Stats, existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Diagnostic } from '../diagnostics/index.js';
import { DiskHost } from '../machinery/host.js';
import type { RootResult } from '../analysis/analyze.js';
import { existingManagedFiles, type ManagedPaths, managedLocations } from './managed-files.js';

const CACHE_FORMAT = 6;

// What the cache record keeps for incremental runs (src/manifests/incremental.ts plans with it).

/** A root file's share of the last run and the key it was made under. */
export interface RootEntry extends RootResult {
  key: string;
}

/** What the cache record keeps for incremental runs. */
export interface IncrementalRecord {
  /** Project-relative (or absolute outside) root path -> entry. */
  roots: Record<string, RootEntry>;
  /** CRD path (project-relative) -> the roots (as in `roots`) declaring a version of its Kind. */
  crds: Record<string, string[]>;
  /** CRD path -> the warnings the CRD check reported for it (reported again while it is kept). */
  crdWarnings?: Record<string, Diagnostic[]>;
  /** Generator name -> what it made from which input (generators with an `inputKey`: role.yaml, the webhook manifests). */
  generators?: Record<string, GeneratorEntry>;
}

/** A generator's share of the last run: the hash of its input, the files it wrote, the warnings it reported. */
export interface GeneratorEntry {
  key: string;
  files: string[];
  warnings: Diagnostic[];
}

export interface CacheRecord {
  format: number;
  /** Hash of the flags, versions and tsconfig chain. */
  key: string;
  /** Input file (project-relative, `/`-separated, or absolute outside the project) -> sha256. */
  inputs: Record<string, string>;
  /** Managed output file (project-relative) -> size and mtime as written. */
  outputs: Record<string, OutputStamp>;
  /** Warnings of the run that wrote the record, printed again on a cache hit. */
  warnings: Diagnostic[];
  /** The paths that run's generators manage (their declarations): the fast path checks them without loading the generators. */
  managed: ManagedPaths[];
  /** Per-file results for the next run after an edit (incremental.ts). */
  incremental?: IncrementalRecord;
}

/** Size and mtime of a managed file right after the run that wrote (or confirmed) it. */
export interface OutputStamp {
  size: number;
  mtimeMs: number;
}

export interface CacheKeyParts {
  kubeforgeVersion: string;
  generatorVersion: string;
  /** `--max-desc-len` (undefined: descriptions whole). */
  maxDescLen?: number;
  /** `--generate-embedded-object-meta`. */
  embeddedObjectMeta?: boolean;
  /** `--k8s-version` (undefined: the newest supported minor). */
  k8sVersion?: string;
  paths?: readonly string[];
  tsconfigPath?: string;
  /** sha256 of the PROJECT file (its `namespaced` and `projectName` scope role.yaml), or undefined when there is none. */
  project?: string;
}

export function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Where the record lives, relative to the project (`/`-separated). */
function cacheRecordPath(projectDir: string): string {
  return existsSync(join(projectDir, 'node_modules'))
    ? 'node_modules/.cache/kubeforge/manifests.json'
    : '.kubeforge/cache/manifests.json';
}

function cacheFile(projectDir: string): string {
  return join(projectDir, ...cacheRecordPath(projectDir).split('/'));
}

// ---------------------------------------------------------------------------------------------
// tsconfig reading (JSON with comments and trailing commas), without TypeScript.

function parseJsonc(text: string): unknown {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (ch === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (ch === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (ch === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
    } else {
      out += ch;
      i++;
    }
  }
  return JSON.parse(out.replace(/,(\s*[}\]])/g, '$1'));
}

interface TsconfigView {
  /** Every tsconfig file read (the chain), absolute. */
  chain: string[];
  include?: string[];
  files?: string[];
  /** Base folder of include/files (the folder of the tsconfig that declared them). */
  base: string;
  outDir?: string;
}

function resolveExtends(from: string, spec: string): string | undefined {
  const dir = dirname(from);
  const candidates: string[] = [];
  if (spec.startsWith('.') || isAbsolute(spec)) {
    const p = resolve(dir, spec);
    candidates.push(p, `${p}.json`, join(p, 'tsconfig.json'));
  } else {
    for (let d = dir; ; d = dirname(d)) {
      const p = join(d, 'node_modules', spec);
      candidates.push(p, `${p}.json`, join(p, 'tsconfig.json'));
      if (dirname(d) === d) break;
    }
  }
  return candidates.find((c) => existsSync(c) && statSync(c).isFile());
}

export function readTsconfig(tsconfigPath: string): TsconfigView {
  const view: TsconfigView = { chain: [], base: dirname(tsconfigPath) };
  const seen = new Set<string>();
  let includeSet = false;
  let filesSet = false;
  let outDirSet = false;
  let current: string | undefined = tsconfigPath;
  while (current && !seen.has(current)) {
    seen.add(current);
    view.chain.push(current);
    let json: {
      extends?: string | string[];
      include?: string[];
      files?: string[];
      compilerOptions?: { outDir?: string };
    };
    try {
      json = parseJsonc(readFileSync(current, 'utf8')) as typeof json;
    } catch {
      break;
    }
    if (!includeSet && Array.isArray(json.include)) {
      view.include = json.include;
      view.base = dirname(current);
      includeSet = true;
    }
    if (!filesSet && Array.isArray(json.files)) {
      const dir = dirname(current);
      view.files = json.files.map((f) => resolve(dir, f));
      filesSet = true;
    }
    if (!outDirSet && json.compilerOptions?.outDir) {
      view.outDir = resolve(dirname(current), json.compilerOptions.outDir);
      outDirSet = true;
    }
    const ext = Array.isArray(json.extends) ? json.extends[0] : json.extends;
    current = ext ? resolveExtends(current, ext) : undefined;
  }
  return view;
}

// ---------------------------------------------------------------------------------------------
// Input enumeration

const SOURCE_FILE = /\.(?:ts|tsx|mts|cts)$/;

function staticBase(pattern: string): string {
  const segments = pattern.split(/[\\/]/);
  const out: string[] = [];
  for (const s of segments) {
    if (/[*?[{]/.test(s)) break;
    out.push(s);
  }
  return out.join('/');
}

function walk(dir: string, skip: (abs: string) => boolean, out: Set<string>): void {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    const abs = join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name === 'node_modules' || e.name.startsWith('.') || skip(abs)) continue;
      walk(abs, skip, out);
    } else if ((e.isFile() || e.isSymbolicLink()) && SOURCE_FILE.test(e.name)) {
      out.add(abs);
    }
  }
}

/** The source files the tsconfig could include (absolute paths, sorted). Cheap: no TypeScript. */
export function enumerateSourceFiles(
  projectDir: string,
  tsconfigPath: string,
): { files: string[]; tsconfigChain: string[] } {
  const view = readTsconfig(tsconfigPath);
  const found = new Set<string>();
  const skip = (abs: string) =>
    (view.outDir !== undefined && abs === view.outDir) || abs === join(projectDir, 'config');
  const includes = view.include ?? (view.files ? [] : ['**/*']);
  for (const pattern of includes) {
    const base = resolve(view.base, staticBase(pattern));
    if (!existsSync(base)) continue;
    if (statSync(base).isDirectory()) walk(base, skip, found);
    else if (SOURCE_FILE.test(base)) found.add(base);
  }
  for (const f of view.files ?? []) if (existsSync(f)) found.add(f);
  return { files: [...found].sort(), tsconfigChain: view.chain };
}

/** A path as the record keeps it: project-relative with `/`, or absolute outside the project. */
export function displayPath(projectDir: string, abs: string): string {
  // Most paths are inside the project: a prefix test is much cheaper than path.relative (4,000
  // inputs per run at 2,000 Kinds).
  const prefix = projectDir.endsWith(sep) ? projectDir : projectDir + sep;
  if (abs.startsWith(prefix) && !abs.includes(`${sep}.`))
    return sep === '/' ? abs.slice(prefix.length) : abs.slice(prefix.length).split(sep).join('/');
  const rel = relative(projectDir, abs);
  return rel.startsWith('..') || isAbsolute(rel) ? abs : rel.split(sep).join('/');
}

function absolutePath(projectDir: string, p: string): string {
  return isAbsolute(p) ? p : join(projectDir, p);
}

/** Recorded for an input modified while the run read it: never equal to a real hash. */
const CHANGED_DURING_RUN = 'changed-during-run';
/**
 * File times come from the kernel's coarse clock (a tick, 1-4 ms, behind Date.now()): a file
 * modified within this margin of the start counts as modified during the run. A false alarm
 * costs one more analysis; a miss would be a wrong "up to date".
 */
const MTIME_SLACK_MS = 20;

function hashFile(abs: string): string | undefined {
  try {
    return sha256(readFileSync(abs));
  } catch {
    return undefined;
  }
}

function dependencyVersion(projectDir: string, name: string): string {
  try {
    return (
      (JSON.parse(readFileSync(join(projectDir, 'node_modules', name, 'package.json'), 'utf8')) as { version?: string })
        .version ?? ''
    );
  } catch {
    return '';
  }
}

let fingerprint: string | undefined;

/**
 * Size and mtime of every file of the running kubeforge (its compiled modules and data), so a
 * rebuilt kubeforge with an unchanged version number still invalidates the cache.
 */
function toolFingerprint(): string {
  if (fingerprint) return fingerprint;
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const h = createHash('sha256');
  const walkStats = (dir: string) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const abs = join(dir, e.name);
      if (e.isDirectory()) walkStats(abs);
      else if (/\.(?:js|json)$/.test(e.name)) {
        const st = statSync(abs);
        h.update(`${relative(root, abs)}\0${st.size}\0${st.mtimeMs}\n`);
      }
    }
  };
  walkStats(root);
  fingerprint = h.digest('hex');
  return fingerprint;
}

function cacheKey(projectDir: string, tsconfigChain: readonly string[], parts: CacheKeyParts): string {
  const h = createHash('sha256');
  h.update(
    JSON.stringify({
      format: CACHE_FORMAT,
      kubeforge: parts.kubeforgeVersion,
      build: toolFingerprint(),
      generator: parts.generatorVersion,
      maxDescLen: parts.maxDescLen ?? null,
      embeddedObjectMeta: parts.embeddedObjectMeta === true,
      k8sVersion: parts.k8sVersion ?? null,
      paths: parts.paths ? [...parts.paths].sort() : null,
      tsconfig: parts.tsconfigPath ?? null,
      project: parts.project ?? null,
      clientNode: dependencyVersion(projectDir, '@kubernetes/client-node'),
    }),
  );
  for (const f of [...tsconfigChain, join(projectDir, 'package.json')]) {
    h.update(`\0${f}\0`);
    h.update(hashFile(f) ?? 'missing');
  }
  return h.digest('hex');
}

/** The last record read, by file and mtime: a run reads it for the fast path and again for the incremental one. */
let lastRead: { file: string; mtimeMs: number; size: number; record: CacheRecord | undefined } | undefined;

function readCache(projectDir: string): CacheRecord | undefined {
  const file = cacheFile(projectDir);
  let st: Stats;
  try {
    st = statSync(file);
  } catch {
    return undefined;
  }
  if (lastRead && lastRead.file === file && lastRead.mtimeMs === st.mtimeMs && lastRead.size === st.size)
    return lastRead.record;
  const record = readCacheFile(projectDir);
  lastRead = { file, mtimeMs: st.mtimeMs, size: st.size, record };
  return record;
}

function readCacheFile(projectDir: string): CacheRecord | undefined {
  try {
    const rec = JSON.parse(readFileSync(cacheFile(projectDir), 'utf8')) as CacheRecord;
    return rec.format === CACHE_FORMAT ? rec : undefined;
  } catch {
    return undefined;
  }
}

export type CacheCheck = { hit: true; record: CacheRecord } | { hit: false; reason: string };

/** True when the inputs hash the same as at the last successful run and the outputs are as written. */
export function checkCache(
  projectDir: string,
  tsconfigPath: string,
  parts: CacheKeyParts,
  snapshot?: InputSnapshot,
): CacheCheck {
  const record = readCache(projectDir);
  if (!record) return { hit: false, reason: 'no cache record' };
  const hashed = snapshot?.hashes;
  const { files, tsconfigChain } = snapshot ?? enumerateSourceFiles(projectDir, tsconfigPath);
  if (record.key !== cacheKey(projectDir, tsconfigChain, parts))
    return { hit: false, reason: 'flags, versions or tsconfig changed' };
  const current = new Set(files.map((f) => displayPath(projectDir, f)));
  // Files the last analysis read from outside the scanned folders stay inputs.
  for (const p of Object.keys(record.inputs)) current.add(p);
  if (current.size !== Object.keys(record.inputs).length) return { hit: false, reason: 'source files added' };
  for (const [p, hash] of Object.entries(record.inputs)) {
    const abs = absolutePath(projectDir, p);
    if ((hashed?.get(abs) ?? hashFile(abs)) !== hash) return { hit: false, reason: `input changed: ${p}` };
  }
  const host = new DiskHost(projectDir);
  const managed = existingManagedFiles(host, record.managed);
  // Outputs outside config/'s managed locations (a Helm chart's templates kept in step) are
  // checked below as written, not counted among the managed files found there.
  const locations = new Set(managedLocations(host, record.managed));
  const recorded = Object.keys(record.outputs)
    .filter((p) => locations.has(p))
    .sort();
  if (managed.length !== recorded.length || managed.some((m, i) => m !== recorded[i]))
    return { hit: false, reason: 'managed files added or removed' };
  for (const [p, stamp] of Object.entries(record.outputs)) {
    // Outputs are large (a CRD embedding a pod template is ~600 kB): size and mtime as written
    // vouch for them. A file merely touched costs one full run, which confirms and re-stamps it.
    let st: Stats;
    try {
      st = statSync(join(projectDir, p));
    } catch {
      return { hit: false, reason: `output missing: ${p}` };
    }
    if (st.size !== stamp.size || st.mtimeMs !== stamp.mtimeMs) return { hit: false, reason: `output changed: ${p}` };
  }
  return { hit: true, record };
}

/**
 * The record an incremental run may build on: written under the same key (flags, versions,
 * tsconfig chain, package.json), with per-file results, and every input outside the scanned
 * source files (dependencies' declarations, files read from elsewhere) unchanged. Undefined
 * otherwise: the run is cold. `touchedOutputs` are the recorded outputs no longer as written.
 */
export function incrementalBase(
  projectDir: string,
  parts: CacheKeyParts,
  snapshot: InputSnapshot,
): { record: IncrementalRecord; touchedOutputs: Set<string>; outsideInputs: string[] } | undefined {
  const record = readCache(projectDir);
  if (!record?.incremental) return undefined;
  if (record.key !== cacheKey(projectDir, snapshot.tsconfigChain, parts)) return undefined;
  for (const [p, hash] of Object.entries(record.inputs)) {
    const abs = absolutePath(projectDir, p);
    // Project sources (scanned, or deleted since) are keyed per root by incremental.ts.
    if (snapshot.hashes.has(abs) || (!isAbsolute(p) && SOURCE_FILE.test(p) && !/\.d\.(?:c|m)?ts$/.test(p))) continue;
    if (hashFile(abs) !== hash) return undefined;
  }
  const outsideInputs = Object.keys(record.inputs)
    .map((p) => absolutePath(projectDir, p))
    .filter((abs) => !snapshot.hashes.has(abs));
  const touchedOutputs = new Set<string>();
  for (const path of new Set([...Object.keys(record.incremental.crds), ...Object.keys(record.outputs)])) {
    const stamp = record.outputs[path];
    let st: Stats;
    try {
      st = statSync(join(projectDir, path));
    } catch {
      touchedOutputs.add(path);
      continue;
    }
    if (!stamp || st.size !== stamp.size || st.mtimeMs !== stamp.mtimeMs) touchedOutputs.add(path);
  }
  return { record: record.incremental, touchedOutputs, outsideInputs };
}

function stampOf(projectDir: string, rel: string): OutputStamp {
  const st = statSync(join(projectDir, rel));
  return { size: st.size, mtimeMs: st.mtimeMs };
}

/** The scanned inputs hashed before an analysis reads them; see {@link writeCache}. */
export interface InputSnapshot {
  /** `Date.now()` when the snapshot was taken: a file modified later was modified during the run. */
  startedAt: number;
  /** Absolute path -> sha256, for every file {@link enumerateSourceFiles} found. */
  hashes: Map<string, string>;
  /** Absolute path -> text, of the same files: the analysis reads what was hashed. */
  texts: Map<string, string>;
  /** {@link enumerateSourceFiles} at the start of the run, for the checks made right after it. */
  files: string[];
  tsconfigChain: string[];
}

/** Hashes the inputs the tsconfig names, before the analysis reads them. */
export function snapshotInputs(projectDir: string, tsconfigPath: string): InputSnapshot {
  const startedAt = Date.now();
  const hashes = new Map<string, string>();
  const texts = new Map<string, string>();
  const { files, tsconfigChain } = enumerateSourceFiles(projectDir, tsconfigPath);
  for (const abs of files) {
    let data: Buffer;
    try {
      data = readFileSync(abs);
    } catch {
      continue;
    }
    hashes.set(abs, sha256(data));
    texts.set(abs, data.toString('utf8'));
  }
  return { startedAt, hashes, texts, files, tsconfigChain };
}

/** The hash to record for an input: the snapshot's when there is one, else its hash now unless it changed during the run. */
function recordedHash(abs: string, snapshot: InputSnapshot | undefined): string | undefined {
  const before = snapshot?.hashes.get(abs);
  if (before !== undefined) return before;
  if (snapshot) {
    try {
      if (statSync(abs).mtimeMs >= snapshot.startedAt - MTIME_SLACK_MS) return CHANGED_DURING_RUN;
    } catch {
      return undefined;
    }
  }
  return hashFile(abs);
}

/**
 * Records a successful run: `analysisInputs` are the files the analysis read (dependencies'
 * declaration files included), `outputs` the managed files now on disk, `snapshot` the hashes
 * taken before the analysis (without one, inputs are hashed now: only right when nothing can
 * change them during the run, as in tests).
 */
export function writeCache(
  projectDir: string,
  tsconfigPath: string,
  parts: CacheKeyParts,
  analysisInputs: readonly string[],
  outputs: readonly string[],
  warnings: Diagnostic[],
  managed: readonly (ManagedPaths | undefined)[],
  snapshot?: InputSnapshot,
  incremental?: IncrementalRecord,
): void {
  lastRead = undefined;
  const { files, tsconfigChain } = enumerateSourceFiles(projectDir, tsconfigPath);
  const inputs: Record<string, string> = {};
  for (const abs of [...files, ...analysisInputs.map((f) => absolutePath(projectDir, f))]) {
    const hash = recordedHash(abs, snapshot);
    if (hash !== undefined) inputs[displayPath(projectDir, abs)] = hash;
  }
  const record: CacheRecord = {
    format: CACHE_FORMAT,
    key: cacheKey(projectDir, tsconfigChain, parts),
    inputs: Object.fromEntries(Object.entries(inputs).sort(([a], [b]) => (a < b ? -1 : 1))),
    outputs: Object.fromEntries([...outputs].sort().map((p) => [p, stampOf(projectDir, p)])),
    warnings,
    managed: managed.filter((m): m is ManagedPaths => m !== undefined),
    incremental,
  };
  try {
    // The disk host writes atomically (temporary sibling, then rename).
    new DiskHost(projectDir).write(cacheRecordPath(projectDir), Buffer.from(`${JSON.stringify(record)}\n`, 'utf8'));
  } catch {
    // A cache that cannot be written only costs speed.
  }
}
