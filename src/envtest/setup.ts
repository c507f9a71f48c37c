/**
 * `kubeforge setup-envtest`: gives a machine the etcd + kube-apiserver (+ kubectl) that
 * kubeforge/testing starts, as controller-runtime's `setup-envtest use` does. In this order:
 *
 * 0. `KUBEBUILDER_ASSETS` (the caller passes it as `assets`): a folder that already holds both
 *    binaries, of the requested minor when one is requested, is used as it is.
 * 1. Download (any OS with Node and `tar`, no root): the release index controller-tools publishes
 *    (`envtest-releases.yaml`) lists, per Kubernetes version, one tarball per OS/arch with its
 *    sha512. The chosen tarball is streamed through sha512, checked, unpacked with `tar`, and its
 *    binaries moved into `<dir>/k8s/<version>-<os>-<arch>/` in one rename. A version already there
 *    is used without touching the network when it is named exactly.
 * 2. Go build: where nothing can be downloaded but `go` is on PATH, kube-apiserver and etcd of the
 *    requested version are built from Go modules (go-build.ts; minutes the first time, cached).
 * 3. Debian build (legacy fallback): `scripts/setup-envtest.sh` builds kube-apiserver v1.20.2 from
 *    Debian's sources (root, about 7 minutes the first time; cached). v1.20 is a 2021 release.
 *
 * The default version is DEFAULT_K8S_MINOR's newest patch. The result names the folder (envtest's
 * KUBEBUILDER_ASSETS) and which way it was obtained. Errors: a checksum mismatch is never "fixed"
 * by a fallback (it is an error); an unknown version lists the ones the index has.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parse } from 'yaml';
import { apiServerMinor } from '../util/kube-version.js';
import { packageRoot } from '../util/package-root.js';
import { GoBuildError, type GoBuildResult, goBuildEnvtest } from './go-build.js';
import { DEFAULT_K8S_MINOR } from './version.js';

export { DEFAULT_K8S_MINOR };

/** controller-tools' release index, as controller-runtime's setup-envtest reads it. */
export const DEFAULT_INDEX_URL =
  'https://raw.githubusercontent.com/kubernetes-sigs/controller-tools/HEAD/envtest-releases.yaml';

/** The binaries a usable folder must hold (kubectl is optional: envtest runs without it). */
const REQUIRED = ['etcd', 'kube-apiserver'] as const;

export type EnvtestSource = 'auto' | 'download' | 'go' | 'debian';

export interface SetupEnvtestOptions {
  /** `1.34.1`, `v1.34.1`, `1.34` / `1.34.x` (newest patch); default: env ENVTEST_K8S_VERSION, else DEFAULT_K8S_MINOR. */
  version?: string;
  /** Cache root (default `${XDG_CACHE_HOME:-~/.cache}/kubeforge/envtest`). */
  dir?: string;
  /** Release index URL (default: env KUBEFORGE_ENVTEST_INDEX, else controller-tools' index). */
  indexUrl?: string;
  /** A folder that may already hold the binaries (the CLI passes KUBEBUILDER_ASSETS): used first in `auto`. */
  assets?: string;
  /** `auto` (default): assets, download, Go build, Debian build; or one of `download`, `go`, `debian` only. */
  source?: EnvtestSource;
  /** Node's platform / arch names (default: this machine's). */
  platform?: NodeJS.Platform;
  arch?: string;
  /** Progress lines (stderr in the CLI). */
  log?: (line: string) => void;
  /** Runs the Debian build; default: `bash scripts/setup-envtest.sh` from the kubeforge package (tests inject one). */
  debianBuild?: (log: (line: string) => void) => Promise<string>;
  /** Runs the Go build; default: goBuildEnvtest (tests inject one). */
  goBuild?: (version: string, root: string, log: (line: string) => void) => Promise<GoBuildResult>;
  /** Abort the downloads (default: a 10-minute timeout). */
  signal?: AbortSignal;
}

export interface SetupEnvtestResult {
  /** Folder holding etcd and kube-apiserver: use it as KUBEBUILDER_ASSETS. */
  dir: string;
  source: 'assets' | 'download' | 'cache' | 'go' | 'debian';
  /** Kubernetes version of the binaries (`1.34.1`), when known. */
  version?: string;
}

/** A setup problem; `hint` says what to do. */
export class SetupEnvtestError extends Error {
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'SetupEnvtestError';
  }
}

/** One tarball of the index. */
export interface EnvtestArchive {
  version: string;
  name: string;
  url: string;
  sha512: string;
}

interface SemVer {
  major: number;
  minor: number;
  patch: number;
  pre: string;
}

function parseSemVer(v: string): SemVer | undefined {
  const m = /^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?$/.exec(v);
  return m ? { major: +m[1], minor: +m[2], patch: +m[3], pre: m[4] ?? '' } : undefined;
}

function compareSemVer(a: SemVer, b: SemVer): number {
  return (
    a.major - b.major ||
    a.minor - b.minor ||
    a.patch - b.patch ||
    (a.pre === b.pre ? 0 : a.pre === '' ? 1 : b.pre === '' ? -1 : a.pre < b.pre ? -1 : 1)
  );
}

/** Go's GOOS/GOARCH names, which the tarballs use. */
export function goPlatform(platform: NodeJS.Platform, arch: string): { os: string; arch: string } {
  const os = platform === 'win32' ? 'windows' : platform;
  const goArch =
    ({ x64: 'amd64', ia32: '386', arm64: 'arm64', ppc64: 'ppc64le', s390x: 's390x' } as Record<string, string>)[arch] ??
    arch;
  return { os, arch: goArch };
}

/** Parses controller-tools' index into the archives of one OS/arch, newest version first. */
export function parseIndex(text: string, os: string, arch: string): EnvtestArchive[] {
  let doc: { releases?: Record<string, Record<string, { hash?: string; selfLink?: string }>> };
  try {
    doc = parse(text) as typeof doc;
  } catch (e) {
    throw new SetupEnvtestError(`the envtest release index is not valid YAML: ${(e as Error).message}`);
  }
  if (!doc || typeof doc !== 'object' || !doc.releases || typeof doc.releases !== 'object') {
    throw new SetupEnvtestError('the envtest release index has no "releases" map');
  }
  const out: EnvtestArchive[] = [];
  for (const [version, files] of Object.entries(doc.releases)) {
    if (!parseSemVer(version) || !files || typeof files !== 'object') continue;
    const name = `envtest-${version}-${os}-${arch}.tar.gz`;
    const entry = files[name];
    if (entry?.hash && entry.selfLink && /^[0-9a-f]{128}$/i.test(entry.hash)) {
      out.push({ version: version.replace(/^v/, ''), name, url: entry.selfLink, sha512: entry.hash.toLowerCase() });
    }
  }
  return out.sort(newestFirst);
}

/** The version of an archive or folder already filtered to parse as one. */
function semVerOf(version: string): NonNullable<ReturnType<typeof parseSemVer>> {
  const s = parseSemVer(version);
  if (!s) throw new SetupEnvtestError(`not a version: ${version}`);
  return s;
}

const newestFirst = (a: { version: string }, b: { version: string }) =>
  compareSemVer(semVerOf(b.version), semVerOf(a.version));

/** Picks the archive for a requested version (exact, `1.34`, `1.34.x`), or the default minor's newest. */
export function selectArchive(
  archives: readonly EnvtestArchive[],
  requested: string | undefined,
  defaultMinor: string | undefined,
): EnvtestArchive {
  const releases = archives.filter((a) => semVerOf(a.version).pre === '');
  if (requested) {
    const want = requested.replace(/^v/, '');
    const exact = archives.find((a) => a.version === want);
    if (exact) return exact;
    const minor = /^(\d+\.\d+)(?:\.x)?$/.exec(want)?.[1];
    const match = minor ? releases.find((a) => a.version.startsWith(`${minor}.`)) : undefined;
    if (match) return match;
    const known = [...new Set(releases.map((a) => a.version))].slice(0, 8).join(', ');
    throw new SetupEnvtestError(
      `Kubernetes ${requested} is not in the envtest release index for this OS/arch`,
      `pick one it lists (newest first: ${known || 'none'}), e.g. ENVTEST_K8S_VERSION=${releases[0]?.version ?? '1.34'}`,
    );
  }
  const match = defaultMinor ? releases.find((a) => a.version.startsWith(`${defaultMinor}.`)) : undefined;
  const pick = match ?? releases[0];
  if (!pick)
    throw new SetupEnvtestError(
      'the envtest release index has no release for this OS/arch',
      'set KUBEBUILDER_ASSETS to a folder holding etcd and kube-apiserver you obtained yourself',
    );
  return pick;
}

function defaultDir(): string {
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'kubeforge', 'envtest');
}

function exe(name: string, os: string): string {
  return os === 'windows' ? `${name}.exe` : name;
}

function complete(dir: string, os: string): boolean {
  return REQUIRED.every((b) => existsSync(join(dir, exe(b, os))));
}

async function fetchOk(url: string, signal: AbortSignal): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(url, { signal, redirect: 'follow' });
  } catch (e) {
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    throw new DownloadError(`cannot reach ${url}: ${cause?.code ?? cause?.message ?? (e as Error).message}`);
  }
  if (!res.ok) throw new DownloadError(`GET ${url}: HTTP ${res.status}`);
  return res;
}

/** The network could not give us the binaries (as opposed to a bad checksum or a broken tarball). */
class DownloadError extends Error {}

function run(cmd: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
    child.on('error', (e) =>
      reject(
        new SetupEnvtestError(`cannot run ${cmd}: ${e.message}`, `install ${cmd}, or set KUBEBUILDER_ASSETS yourself`),
      ),
    );
    child.on('close', (code) =>
      code === 0
        ? resolve()
        : reject(new SetupEnvtestError(`${cmd} ${args.join(' ')} failed (exit ${code}): ${err.trim().slice(-500)}`)),
    );
  });
}

/** Finds the folder of the tarball that holds etcd (controller-tools/envtest/ in the official ones). */
function binariesFolder(root: string, os: string): string | undefined {
  const stack = [root];
  while (stack.length) {
    const d = stack.pop();
    if (d === undefined) break;
    if (existsSync(join(d, exe('etcd', os))) && existsSync(join(d, exe('kube-apiserver', os)))) return d;
    for (const e of readdirSync(d, { withFileTypes: true })) if (e.isDirectory()) stack.push(join(d, e.name));
  }
  return undefined;
}

/** Downloads, checks and unpacks one archive into `<root>/k8s/<version>-<os>-<arch>`. */
async function download(
  archive: EnvtestArchive,
  target: string,
  os: string,
  signal: AbortSignal,
  log: (l: string) => void,
): Promise<void> {
  const parent = join(target, '..');
  mkdirSync(parent, { recursive: true });
  const work = mkdtempSync(join(parent, '.download-'));
  try {
    log(`downloading ${archive.url}`);
    const res = await fetchOk(archive.url, signal);
    if (!res.body) throw new DownloadError(`GET ${archive.url}: empty body`);
    const file = join(work, archive.name);
    const hash = createHash('sha512');
    const body = Readable.fromWeb(res.body as import('node:stream/web').ReadableStream<Uint8Array>);
    body.on('data', (chunk: Buffer) => hash.update(chunk));
    await pipeline(body, createWriteStream(file));
    const got = hash.digest('hex');
    if (got !== archive.sha512) {
      throw new SetupEnvtestError(
        `${archive.name}: sha512 mismatch (index says ${archive.sha512.slice(0, 16)}..., download has ${got.slice(0, 16)}...); nothing was installed`,
        'retry; if it persists, the download was tampered with or the index is stale: do not use these binaries',
      );
    }
    const unpacked = join(work, 'unpacked');
    mkdirSync(unpacked);
    await run('tar', ['-xzf', file, '-C', unpacked]);
    const found = binariesFolder(unpacked, os);
    if (!found) throw new SetupEnvtestError(`${archive.name} holds no etcd and kube-apiserver`, 'check the index URL');
    writeFileSync(join(found, '.sha512'), `${archive.sha512}  ${archive.name}\n`);
    rmSync(target, { recursive: true, force: true });
    renameSync(found, target);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The newest complete cached folder of a minor (offline fallback), e.g. `1.34.1-linux-amd64`. */
function newestCached(
  k8sDir: string,
  minor: string | undefined,
  os: string,
  arch: string,
): { dir: string; version: string } | undefined {
  if (!existsSync(k8sDir)) return undefined;
  const suffix = `-${os}-${arch}`;
  const found = readdirSync(k8sDir)
    .filter(
      (n) => n.endsWith(suffix) && parseSemVer(n.slice(0, -suffix.length)) && (!minor || n.startsWith(`${minor}.`)),
    )
    .map((n) => ({ dir: join(k8sDir, n), version: n.slice(0, -suffix.length) }))
    .filter((c) => statSync(c.dir).isDirectory() && complete(c.dir, os))
    .sort(newestFirst);
  return found[0];
}

/** `bash scripts/setup-envtest.sh` from the kubeforge package; resolves with the folder it prints. */
export function runDebianBuild(log: (line: string) => void): Promise<string> {
  const script = join(packageRoot(), 'scripts', 'setup-envtest.sh');
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      for (const line of c.split('\n')) if (line.trim()) log(line);
    });
    child.on('error', (e) => reject(new SetupEnvtestError(`cannot run bash: ${e.message}`)));
    child.on('close', (code) => {
      const folder = out.trim().split('\n').at(-1);
      if (code === 0 && folder) resolve(folder);
      else
        reject(
          new SetupEnvtestError(
            `the Debian build (scripts/setup-envtest.sh) failed (exit ${code})`,
            'see its output above; it needs Debian (or Ubuntu) and root or sudo',
          ),
        );
    });
  });
}

/**
 * Provisions the test binaries and returns their folder. See the module comment for the order
 * of attempts. Rejects with SetupEnvtestError (message and hint) when no way works.
 */
export async function setupEnvtest(options: SetupEnvtestOptions = {}): Promise<SetupEnvtestResult> {
  const log = options.log ?? (() => {});
  const source = options.source ?? 'auto';
  const { os, arch } = goPlatform(options.platform ?? process.platform, options.arch ?? process.arch);
  const root = options.dir ?? defaultDir();
  const k8sDir = join(root, 'k8s');
  const requested = options.version ?? (process.env.ENVTEST_K8S_VERSION || undefined);
  const indexUrl = options.indexUrl ?? (process.env.KUBEFORGE_ENVTEST_INDEX || DEFAULT_INDEX_URL);
  const signal = options.signal ?? AbortSignal.timeout(10 * 60_000);
  const minor = requested ? /^v?(\d+\.\d+)/.exec(requested)?.[1] : DEFAULT_K8S_MINOR;

  if (source === 'auto' && options.assets && complete(options.assets, os)) {
    const reported = apiServerMinor(join(options.assets, exe('kube-apiserver', os)));
    const have = reported === undefined ? undefined : `1.${reported}`;
    if (!requested || have === minor) {
      log(`using KUBEBUILDER_ASSETS=${options.assets}${have ? ` (Kubernetes ${have})` : ''}`);
      return { dir: options.assets, source: 'assets', version: have };
    }
    log(
      `KUBEBUILDER_ASSETS holds Kubernetes ${have ?? 'of an unknown version'}, not the ${minor} asked for; looking further`,
    );
  }

  const debian = async (why: string): Promise<SetupEnvtestResult> => {
    if (os !== 'linux') {
      throw new SetupEnvtestError(
        `cannot provide envtest binaries: ${why}`,
        'on this OS only the download works: check the network (or KUBEFORGE_ENVTEST_INDEX), or set KUBEBUILDER_ASSETS to a folder holding etcd and kube-apiserver',
      );
    }
    log(
      `${why}: the LEGACY kube-apiserver v1.20.2 (a 2021 release), built from Debian's sources once and cached (scripts/setup-envtest.sh)`,
    );
    const dir = await (options.debianBuild ?? runDebianBuild)(log);
    log(`using the legacy Debian build (Kubernetes 1.20): ${dir}`);
    return { dir, source: 'debian', version: '1.20.2' };
  };
  const goBuild = async (why: string | undefined): Promise<SetupEnvtestResult> => {
    if (why) log(`${why}; building from Go modules instead`);
    const want = requested ?? DEFAULT_K8S_MINOR;
    try {
      const r = await (options.goBuild ?? ((version, dir, l) => goBuildEnvtest({ version, root: dir, log: l })))(
        want,
        root,
        log,
      );
      return { dir: r.dir, source: r.cached ? 'cache' : 'go', version: r.version };
    } catch (e) {
      if (!(e instanceof GoBuildError)) throw e;
      const cached = newestCached(k8sDir, minor, os, arch);
      if (
        cached &&
        (!requested || cached.version === requested.replace(/^v/, '') || !parseSemVer(requested.replace(/^v/, '')))
      ) {
        log(`${e.message.split('\n')[0]}; using cached envtest ${cached.version}: ${cached.dir}`);
        return { dir: cached.dir, source: 'cache', version: cached.version };
      }
      if (source === 'go') throw new SetupEnvtestError(e.message, e.hint);
      return debian(`the Go build is not possible (${e.message.split('\n')[0]})`);
    }
  };
  if (source === 'debian') return debian('--source debian');
  if (source === 'go') return goBuild(undefined);

  // An exact version already unpacked needs no network.
  const exact = requested && parseSemVer(requested.replace(/^v/, '')) ? requested.replace(/^v/, '') : undefined;
  if (exact) {
    const dir = join(k8sDir, `${exact}-${os}-${arch}`);
    if (complete(dir, os)) {
      log(`using cached envtest ${exact} (${os}/${arch}): ${dir}`);
      return { dir, source: 'cache', version: exact };
    }
  }

  let archive: EnvtestArchive;
  try {
    log(`reading the envtest release index ${indexUrl}`);
    const text = await (await fetchOk(indexUrl, signal)).text();
    archive = selectArchive(parseIndex(text, os, arch), requested, minor);
  } catch (e) {
    if (!(e instanceof DownloadError)) throw e;
    if (source === 'download') {
      const cached = newestCached(k8sDir, minor, os, arch);
      if (cached) {
        log(`${e.message}; using cached envtest ${cached.version}: ${cached.dir}`);
        return { dir: cached.dir, source: 'cache', version: cached.version };
      }
      throw new SetupEnvtestError(
        e.message,
        'check the network, or pass --source auto to fall back to a Go or Debian build',
      );
    }
    return goBuild(`download not possible (${e.message})`);
  }

  const dir = join(k8sDir, `${archive.version}-${os}-${arch}`);
  const stamp = join(dir, '.sha512');
  if (complete(dir, os) && existsSync(stamp) && readFileSync(stamp, 'utf8').startsWith(archive.sha512)) {
    log(`using cached envtest ${archive.version} (${os}/${arch}): ${dir}`);
    return { dir, source: 'cache', version: archive.version };
  }
  try {
    await download(archive, dir, os, signal, log);
  } catch (e) {
    if (!(e instanceof DownloadError)) throw e;
    if (source === 'download')
      throw new SetupEnvtestError(
        e.message,
        'check the network, or pass --source auto to fall back to a Go or Debian build',
      );
    return goBuild(`download not possible (${e.message})`);
  }
  log(`using downloaded envtest ${archive.version} (${os}/${arch}), sha512 verified: ${dir}`);
  return { dir, source: 'download', version: archive.version };
}
