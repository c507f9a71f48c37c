/**
 * Loading CustomResourceDefinitions from YAML/JSON files and installing them into an API server,
 * waiting until each one is Established and served by discovery (envtest's InstallCRDs).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, existsSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { join, extname, resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { KubeConfig } from '@kubernetes/client-node';
import { RestClient } from '../runtime/client/rest.js';
import { StatusError, isNotFound } from '../runtime/client/errors.js';
import { checkOptions, type OptionNames } from '../runtime/options.js';

/** A CRD as plain JSON (apiextensions.k8s.io/v1 or v1beta1). */
export interface CRDObject {
  apiVersion: string;
  kind: 'CustomResourceDefinition' | string;
  metadata: { name: string; [k: string]: unknown };
  spec: {
    group: string;
    names: { plural: string; kind: string; [k: string]: unknown };
    versions?: Array<{ name: string; served: boolean; storage?: boolean; [k: string]: unknown }>;
    version?: string;
    [k: string]: unknown;
  };
  [k: string]: unknown;
}

/** Options of {@link installCRDs}. */
export interface CRDInstallOptions {
  /** Files or folders (read non-recursively: *.yaml, *.yml, *.json) holding CRDs. */
  paths?: string[];
  /** CRD objects given directly. */
  crds?: CRDObject[];
  /** Fail when a path does not exist (default false: missing paths are skipped). */
  errorIfPathMissing?: boolean;
  /** How long to wait for all CRDs to be established and served, in ms (default 30 s). */
  timeoutMs?: number;
}

const CRD_INSTALL_OPTION_NAMES: OptionNames<CRDInstallOptions> = {
  paths: true,
  crds: true,
  errorIfPathMissing: true,
  timeoutMs: true,
};
const CRD_INSTALL_RENAMES = {
  timeout: 'timeoutMs',
  crdDirectoryPaths: 'paths',
  errorIfCRDPathMissing: 'errorIfPathMissing',
};

/** A failure while reading or installing CRDs; `file`/`line` locate bad input when known. */
export class CRDInstallError extends Error {
  readonly file?: string;
  readonly line?: number;
  /** `cause`: the API error behind it (a StatusError: `isInvalid(err.cause)`...), when there was one. */
  constructor(message: string, loc: { file?: string; line?: number; cause?: unknown } = {}) {
    super(
      loc.file ? `${loc.file}${loc.line ? `:${loc.line}` : ''}: ${message}` : message,
      loc.cause === undefined ? undefined : { cause: loc.cause },
    );
    this.name = 'CRDInstallError';
    this.file = loc.file;
    this.line = loc.line;
  }
}

const CRD_EXTENSIONS = new Set(['.yaml', '.yml', '.json']);

/** A failure located in a file, as both CRDInstallError and WebhookInstallError are built. */
type LocatedErrorFactory = (message: string, loc: { file?: string; line?: number }) => Error;

/**
 * The manifest files named by `paths`: a file as is, a folder's *.yaml, *.yml and *.json files
 * (not recursive) in sorted order. A missing path is skipped, or with `errorIfPathMissing`
 * reported through `fail` with `missingMessage`.
 */
export function manifestFiles(
  paths: string[],
  errorIfPathMissing: boolean,
  missingMessage: string,
  fail: LocatedErrorFactory,
): string[] {
  const out: string[] = [];
  for (const p of paths) {
    const abs = resolve(p);
    if (!existsSync(abs)) {
      if (errorIfPathMissing) throw fail(missingMessage, { file: abs });
      continue;
    }
    if (!statSync(abs).isDirectory()) {
      out.push(abs);
      continue;
    }
    out.push(
      ...readdirSync(abs)
        .filter((n) => CRD_EXTENSIONS.has(extname(n)))
        .sort()
        .map((n) => join(abs, n))
        .filter((f) => statSync(f).isFile()),
    );
  }
  return out;
}

/**
 * The objects of one (multi-document) YAML or JSON text, each with the line it starts on; the
 * items of a `List` are returned one by one (with the List's line). Empty documents are skipped.
 * Throws through `fail` (file and line) on a YAML syntax error or a document that is not a mapping.
 */
export function parseManifestObjects(
  file: string,
  text: string,
  fail: LocatedErrorFactory,
): Array<{ object: Record<string, unknown>; line: number }> {
  const out: Array<{ object: Record<string, unknown>; line: number }> = [];
  const lineOf = (offset: number) => text.slice(0, offset).split('\n').length;
  for (const doc of yaml().parseAllDocuments(text, { prettyErrors: false })) {
    if (doc.errors.length) {
      const e = doc.errors[0];
      throw fail(`YAML syntax error: ${e.message.split('\n')[0]}`, { file, line: lineOf(e.pos[0]) });
    }
    const v = doc.toJS() as unknown;
    if (v === null || v === undefined) continue;
    const line = lineOf(
      (doc.contents as { range?: [number, number, number] } | null)?.range?.[0] ?? doc.range?.[0] ?? 0,
    );
    if (typeof v !== 'object' || Array.isArray(v)) {
      throw fail('expected a Kubernetes object (a mapping with apiVersion and kind)', { file, line });
    }
    const o = v as Record<string, unknown>;
    if (o.kind === 'List' && Array.isArray(o.items)) {
      for (const item of o.items) if (isMapping(item)) out.push({ object: item, line });
      continue;
    }
    out.push({ object: o, line });
  }
  return out;
}

const crdError: LocatedErrorFactory = (message, loc) => new CRDInstallError(message, loc);

/**
 * Reads every CRD document from the given files and folders, in sorted file order.
 * Documents of other kinds are skipped. Throws CRDInstallError (with file and line) on a YAML
 * syntax error, a CRD without metadata.name / spec.group / spec.names.plural, or (with
 * `errorIfPathMissing`) a missing path.
 */
export function readCRDFiles(paths: string[], errorIfPathMissing = false): CRDObject[] {
  const out: CRDObject[] = [];
  const missing = 'CRD path does not exist (fix the path, or set errorIfCRDPathMissing: false to skip it)';
  for (const file of manifestFiles(paths, errorIfPathMissing, missing, crdError))
    out.push(...parsedCRDFile(file, readFileSync(file, 'utf8')));
  return out;
}

/**
 * The CRDs of each file read in this process, by path, with the text they were parsed from: the
 * test files of a unit-tier process each start a FakeAPIServer with the same CRD folder, and
 * parsing the YAML is most of a start. A file whose text changed is parsed again.
 */
const parsedFiles = new Map<string, { text: string; crds: CRDObject[] }>();

/** parseCRDFile, parsing each (file, text) once per process; the caller gets its own copy. */
function parsedCRDFile(file: string, text: string): CRDObject[] {
  let entry = parsedFiles.get(file);
  if (entry?.text !== text) {
    const target = crdCacheFile(text);
    entry = { text, crds: (target && cachedParse(target)) || parseAndCache(file, text, target) };
    parsedFiles.set(file, entry);
  }
  return structuredClone(entry.crds);
}

/**
 * The yaml package, loaded on first use (30-50 ms): a process whose CRD files are all in the
 * cache below never loads it.
 */
export function yaml(): typeof import('yaml') {
  loadedYAML ??= createRequire(import.meta.url)('yaml') as typeof import('yaml');
  return loadedYAML;
}
let loadedYAML: typeof import('yaml') | undefined;

/**
 * The CRDs parsed from CRD files, across processes, by the SHA-256 of their text: every
 * unit-test process parses the same unchanged files of config/crd/bases, and loading the YAML
 * parser and parsing are most of a FakeAPIServer start. Kept in kubeforge's cache folder
 * ($XDG_CACHE_HOME or ~/.cache, then kubeforge/crds), one JSON file per text and yaml version
 * (at most 512); a changed file has another hash, so it is parsed again. Only CRD lists that
 * survive JSON unchanged are kept; files with errors never are (they are parsed, and reported,
 * every time). A cache that cannot be read or written is skipped: parsing is the fallback.
 */
const CRD_CACHE_FORMAT = 'kubeforge-crds-1';

/** The cache entry of `text` (computed once per parse: the yaml version and the text's hash); undefined if unknown. */
function crdCacheFile(text: string): string | undefined {
  try {
    yamlVersion ??= (createRequire(import.meta.url)('yaml/package.json') as { version: string }).version;
    const key = createHash('sha256').update(`${CRD_CACHE_FORMAT}\0${yamlVersion}\0`).update(text).digest('hex');
    return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'kubeforge', 'crds', `${key}.json`);
  } catch {
    return undefined;
  }
}
let yamlVersion: string | undefined;

function cachedParse(target: string): CRDObject[] | undefined {
  try {
    const crds = JSON.parse(readFileSync(target, 'utf8')) as unknown;
    return Array.isArray(crds) ? (crds as CRDObject[]) : undefined;
  } catch {
    return undefined;
  }
}

function parseAndCache(file: string, text: string, target: string | undefined): CRDObject[] {
  const crds = parseCRDFile(file, text);
  if (target === undefined) return crds;
  try {
    const json = JSON.stringify(crds);
    if (!isDeepStrictEqual(JSON.parse(json), crds)) return crds;
    mkdirSync(join(target, '..'), { recursive: true, mode: 0o700 });
    // Written aside, then renamed: a process reading at the same time sees all of it or nothing.
    const tmp = `${target}.${process.pid}.tmp`;
    try {
      writeFileSync(tmp, json, { mode: 0o600 });
      renameSync(tmp, target);
    } finally {
      rmSync(tmp, { force: true });
    }
    pruneCRDCache(join(target, '..'));
  } catch {
    // no cache this time
  }
  return crds;
}

/** Entries kept in the CRD cache: past this, a write removes the older half (by write time). */
const CRD_CACHE_MAX = 512;

function pruneCRDCache(dir: string): void {
  const names = readdirSync(dir).filter((n) => n.endsWith('.json'));
  if (names.length <= CRD_CACHE_MAX) return;
  const byAge = names
    .map((n) => ({ path: join(dir, n), mtime: statSync(join(dir, n)).mtimeMs }))
    .sort((a, b) => a.mtime - b.mtime);
  for (const { path } of byAge.slice(0, byAge.length - CRD_CACHE_MAX / 2)) rmSync(path, { force: true });
}

/** Parses one (multi-document) YAML or JSON text and returns its CRDs. Throws CRDInstallError with file:line. */
export function parseCRDFile(file: string, text: string): CRDObject[] {
  return parseManifestObjects(file, text, crdError)
    .filter(({ object }) => object.kind === 'CustomResourceDefinition')
    .map(({ object, line }) => checkCRD(object, file, line));
}

/** A YAML mapping (a JSON object), not null or a list. */
export function isMapping(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function checkCRD(o: Record<string, unknown>, file: string | undefined, line: number | undefined): CRDObject {
  const where = { file, line };
  if (typeof o.apiVersion !== 'string' || !o.apiVersion.startsWith('apiextensions.k8s.io/')) {
    throw new CRDInstallError(
      `CustomResourceDefinition has apiVersion ${JSON.stringify(o.apiVersion)}; expected apiextensions.k8s.io/v1`,
      where,
    );
  }
  const meta = isMapping(o.metadata) ? o.metadata : undefined;
  const spec = isMapping(o.spec) ? o.spec : undefined;
  const names = isMapping(spec?.names) ? spec.names : undefined;
  if (!meta?.name) throw new CRDInstallError('CustomResourceDefinition without metadata.name', where);
  if (!spec?.group) throw new CRDInstallError(`CustomResourceDefinition ${meta.name} has no spec.group`, where);
  if (!names?.plural)
    throw new CRDInstallError(`CustomResourceDefinition ${meta.name} has no spec.names.plural`, where);
  return o as unknown as CRDObject;
}

function crdPath(crd: CRDObject, name?: string): string {
  const version = crd.apiVersion.split('/')[1] ?? 'v1';
  return `/apis/apiextensions.k8s.io/${version}/customresourcedefinitions${name ? `/${encodeURIComponent(name)}` : ''}`;
}

function servedVersions(crd: CRDObject): string[] {
  if (crd.spec.versions?.length) return crd.spec.versions.filter((v) => v.served !== false).map((v) => v.name);
  return crd.spec.version ? [crd.spec.version] : [];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Creates (or replaces, when one of that name exists) every CRD from `options`, then waits until
 * each is Established and its resources are listed by discovery. Resolves with the CRDs installed.
 * Rejects with CRDInstallError on bad input, on an API error (the server's message included), or
 * when the CRDs are not established within `timeoutMs`.
 */
export async function installCRDs(config: KubeConfig, options: CRDInstallOptions): Promise<CRDObject[]> {
  checkOptions('installCRDs', options, CRD_INSTALL_OPTION_NAMES, CRD_INSTALL_RENAMES);
  const crds = [
    ...(options.crds ?? []).map((c) => checkCRD(c as unknown as Record<string, unknown>, undefined, undefined)),
    ...readCRDFiles(options.paths ?? [], options.errorIfPathMissing),
  ];
  if (crds.length === 0) return [];
  const rest = new RestClient(config);
  try {
    for (const crd of crds) {
      const body = JSON.parse(JSON.stringify(crd));
      delete body.status;
      try {
        await rest.request('POST', crdPath(crd), { body });
      } catch (e) {
        if (!(e instanceof StatusError && e.code === 409)) throw wrapApiError(crd, e);
        // Already there (an earlier run or a shared cluster): replace it with this definition.
        for (let attempt = 0; ; attempt++) {
          const existing = await rest.get(crdPath(crd, crd.metadata.name));
          body.metadata = { ...body.metadata, resourceVersion: existing.metadata.resourceVersion };
          try {
            await rest.request('PUT', crdPath(crd, crd.metadata.name), { body });
            break;
          } catch (e2) {
            if (e2 instanceof StatusError && e2.code === 409 && attempt < 5) continue;
            throw wrapApiError(crd, e2);
          }
        }
      }
    }
    await waitForCRDs(rest, crds, options.timeoutMs ?? 30_000);
    return crds;
  } finally {
    rest.close();
  }
}

function wrapApiError(crd: CRDObject, e: unknown): Error {
  const msg = e instanceof Error ? e.message : String(e);
  return new CRDInstallError(`installing CustomResourceDefinition ${crd.metadata.name} failed: ${msg}`, { cause: e });
}

async function waitForCRDs(rest: RestClient, crds: CRDObject[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const pending = new Set(crds);
  let last = '';
  while (pending.size > 0) {
    for (const crd of [...pending]) {
      try {
        const live = await rest.get(crdPath(crd, crd.metadata.name));
        const conds: Array<{ type: string; status: string; message?: string }> = live.status?.conditions ?? [];
        const established = conds.some((c) => c.type === 'Established' && c.status === 'True');
        const names = conds.find((c) => c.type === 'NamesAccepted');
        if (names && names.status === 'False') {
          throw new CRDInstallError(
            `CustomResourceDefinition ${crd.metadata.name}: names not accepted: ${names.message ?? ''}`,
          );
        }
        if (!established) {
          last = `${crd.metadata.name} not yet Established`;
          continue;
        }
        let served = true;
        for (const v of servedVersions(crd)) {
          try {
            const list = await rest.get(`/apis/${crd.spec.group}/${v}`);
            if (!list.resources?.some((r: { name: string }) => r.name === crd.spec.names.plural)) served = false;
          } catch {
            served = false;
          }
          if (!served) {
            last = `${crd.spec.names.plural}.${crd.spec.group}/${v} not yet in discovery`;
            break;
          }
        }
        if (served) pending.delete(crd);
      } catch (e) {
        if (e instanceof CRDInstallError) throw e;
        last = e instanceof Error ? e.message : String(e);
      }
    }
    if (pending.size === 0) break;
    if (Date.now() > deadline) {
      throw new CRDInstallError(
        `CRDs not established within ${timeoutMs} ms: ${[...pending].map((c) => c.metadata.name).join(', ')} (${last})`,
      );
    }
    await sleep(50);
  }
}

/**
 * Deletes the given CRDs and waits until they are gone. A CRD already absent is not an error.
 * Rejects with CRDInstallError on other API errors or after `timeoutMs` (default 30 s).
 */
export async function uninstallCRDs(config: KubeConfig, options: CRDInstallOptions): Promise<void> {
  checkOptions('uninstallCRDs', options, CRD_INSTALL_OPTION_NAMES, CRD_INSTALL_RENAMES);
  const crds = [...(options.crds ?? []), ...readCRDFiles(options.paths ?? [], options.errorIfPathMissing)];
  const rest = new RestClient(config);
  try {
    for (const crd of crds) {
      try {
        await rest.request('DELETE', crdPath(crd, crd.metadata.name));
      } catch (e) {
        if (!isNotFound(e)) throw wrapApiError(crd, e);
      }
    }
    const deadline = Date.now() + (options.timeoutMs ?? 30_000);
    for (const crd of crds) {
      for (;;) {
        try {
          await rest.get(crdPath(crd, crd.metadata.name));
        } catch (e) {
          if (isNotFound(e)) break;
          throw wrapApiError(crd, e);
        }
        if (Date.now() > deadline)
          throw new CRDInstallError(`CustomResourceDefinition ${crd.metadata.name} still present after deletion`);
        await sleep(50);
      }
    }
  } finally {
    rest.close();
  }
}
