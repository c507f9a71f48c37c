/**
 * How a generated project depends on kubeforge. kubeforge is not on the registry, so by
 * default `init` packs the kubeforge that runs into `.kubeforge/kubeforge-<version>.tgz`
 * inside the new project and depends on it with a `file:` spec: installs, CI and the
 * container build then need nothing but the npm registry for the other packages.
 *
 *   tarball (default)  pack the running kubeforge into .kubeforge/ (as `npm pack` would; its
 *                      CEL, packages/cel/dist, is in its files list, reached by `#cel` imports)
 *
 * The tarball's name carries a hash of its bytes (`kubeforge-0.1.0-1a2b3c4d.tgz`): a different
 * kubeforge gives a different `file:` spec, so `npm install` picks it up instead of keeping the
 * copy in node_modules that package-lock.json recorded under the old name.
 *   link               `file:<kubeforge folder, relative to the project>`: npm links it (for
 *                      kubeforge development)
 *   registry           `^<version>` from the registry (once kubeforge is published)
 *   <path>.tgz         copy that tarball (e.g. from `npm pack`) into .kubeforge/
 */
import { createHash } from 'node:crypto';
import { basename, dirname, relative, resolve } from 'node:path';
import { DiagnosticError, error } from '../diagnostics/index.js';
import { createTgz, type Host, type TarEntry } from '../machinery/index.js';

export interface KubeforgeSource {
  /** The spec in the generated package.json's dependencies. */
  dependency: string;
  /** A tarball to write into the project, when the spec points at one. */
  tarball?: { path: string; data: Buffer };
}

export interface SourceContext {
  /** Host rooted at the running kubeforge's package folder. */
  kubeforge: Host;
  /** Absolute path of that folder (for `link`). */
  kubeforgeDir: string;
  /** Opens a host on an absolute folder (to read a tarball given by path). */
  openHost: (dir: string) => Host;
  /** Folder relative paths on the command line are resolved against. */
  cwd: string;
  /** The project's folder (for `link`: its `file:` spec is relative to it). Default: cwd. */
  projectDir?: string;
}

export const TARBALL_DIR = '.kubeforge';

const ALWAYS_EXCLUDED = new Set(['.git', 'node_modules', '.DS_Store', 'package-lock.json', '.npmrc', 'npm-debug.log']);

interface PackageJson {
  name: string;
  version: string;
  files?: string[];
  bin?: string | Record<string, string>;
  main?: string;
  bundleDependencies?: string[];
  bundledDependencies?: string[];
}

function readPackageJson(host: Host, dir = ''): PackageJson {
  const raw = host.read(dir ? `${dir}/package.json` : 'package.json');
  if (!raw) throw new DiagnosticError(error('KF1020', `no package.json in kubeforge's folder ${host.root}`));
  return JSON.parse(raw.toString('utf8')) as PackageJson;
}

/**
 * The files `npm pack` would put in kubeforge's tarball: package.json, README/LICENSE, `files` (less
 * its `!` entries), bin, main; then each of its bundleDependencies under node_modules/ (see
 * bundledFiles).
 */
export function packFileList(host: Host): string[] {
  return [...packageFiles(host, ''), ...bundledFiles(host, readPackageJson(host))].sort();
}

/**
 * The files npm takes of the package in folder `dir` of the host ('' for kubeforge itself), as
 * host paths. A package without `files` (a dependency) gives everything but the always-excluded names.
 */
function packageFiles(host: Host, dir: string): string[] {
  const pkg = readPackageJson(host, dir);
  const at = (p: string) => (dir && p ? `${dir}/${p}` : dir || p);
  const out = new Set<string>([at('package.json')]);
  for (const name of host.list(dir)) {
    if (/^(readme|license|licence)(\..*)?$/i.test(name) && host.kind(at(name)) === 'file') out.add(at(name));
  }
  const walk = (path: string) => {
    const name = path.slice(path.lastIndexOf('/') + 1);
    if (ALWAYS_EXCLUDED.has(name) || name.endsWith('.orig')) return;
    const kind = host.kind(at(path));
    if (kind === 'file') out.add(at(path));
    else if (kind === 'directory') for (const child of host.list(at(path))) walk(path ? `${path}/${child}` : child);
  };
  if (!pkg.files && dir) walk('');
  const negated = (pkg.files ?? [])
    .filter((f) => f.startsWith('!'))
    .map((f) => f.slice(1).replace(/^\.\//, '').replace(/\/$/, ''));
  for (const raw of pkg.files ?? []) {
    if (raw.startsWith('!')) continue;
    const entry = raw.replace(/^\.\//, '').replace(/\/$/, '');
    // A `*` in the last segment (`data/models.*.patch.json`) matches names in that folder, as npm does.
    const slash = entry.lastIndexOf('/');
    const folder = slash < 0 ? '' : entry.slice(0, slash);
    const last = entry.slice(slash + 1);
    if (last.includes('*')) {
      const re = new RegExp(`^${last.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`);
      for (const name of host.list(at(folder))) if (re.test(name)) walk(folder ? `${folder}/${name}` : name);
    } else walk(entry);
  }
  const bins = typeof pkg.bin === 'string' ? [pkg.bin] : Object.values(pkg.bin ?? {});
  for (const b of bins) walk(b.replace(/^\.\//, ''));
  if (pkg.main) walk(pkg.main.replace(/^\.\//, ''));
  // `!path` in `files` leaves out what an entry above took (npm's rule): a file, or a folder's files.
  for (const path of [...out])
    if (negated.some((n) => path === at(n) || path.startsWith(`${at(n)}/`))) out.delete(path);
  return [...out].sort();
}

/**
 * npm's bundleDependencies (kubeforge has none since its CEL ships in its own files; kept for
 * npm pack's behaviour): each one's files, as its own package.json selects them, under node_modules/ of the tarball, read where the kubeforge folder holds it (npm keeps a
 * bundled dependency in its bundler's node_modules; in a checkout it is the workspace's link,
 * followed). What a bundled package depends on is not packed (`npm pack` copies some of it):
 * kubeforge's own dependencies list those packages, so they are installed beside it.
 */
function bundledFiles(host: Host, pkg: PackageJson): string[] {
  return (pkg.bundleDependencies ?? pkg.bundledDependencies ?? []).flatMap((name) => {
    const dir = `node_modules/${name}`;
    if (host.kind(`${dir}/package.json`) !== 'file')
      throw new DiagnosticError(
        error('KF1021', `kubeforge at ${host.root} has no ${dir} to bundle into its tarball`, {
          hint: `install its dependencies first (npm ci in ${host.root})`,
        }),
      );
    return packageFiles(host, dir);
  });
}

/**
 * kubeforge's package.json as it goes into the tarball: without the development lifecycle
 * scripts (`prepare` builds from sources the tarball does not carry; an npm that runs it on
 * install would fail). Everything else is kept byte for byte when there is nothing to drop.
 */
function installablePackageJson(raw: Buffer): Buffer {
  const pkg = JSON.parse(raw.toString('utf8')) as { scripts?: Record<string, string> };
  const dropped = ['prepare', 'prepack', 'postpack', 'preinstall', 'install', 'postinstall'].filter(
    (s) => pkg.scripts?.[s] !== undefined,
  );
  const scripts = pkg.scripts;
  if (dropped.length === 0 || !scripts) return raw;
  for (const s of dropped) delete scripts[s];
  return Buffer.from(`${JSON.stringify(pkg, null, 2)}\n`, 'utf8');
}

/** Packs the kubeforge in `host` into a deterministic npm tarball (entries under `package/`). */
export function packKubeforge(host: Host): { name: string; data: Buffer } {
  const pkg = readPackageJson(host);
  const files = packFileList(host);
  if (!files.some((f) => f.startsWith('dist/'))) {
    throw new DiagnosticError(
      error('KF1021', `kubeforge at ${host.root} has no dist/ folder to pack`, {
        hint: `build it first (npm run build in ${host.root}), or pass --kubeforge-source link|registry|<file.tgz>`,
      }),
    );
  }
  const bins = new Set(
    (typeof pkg.bin === 'string' ? [pkg.bin] : Object.values(pkg.bin ?? {})).map((b) => b.replace(/^\.\//, '')),
  );
  const entries: TarEntry[] = files.map((f) => {
    const bytes = host.read(f);
    if (!bytes) throw new Error(`kubeforge: ${f} of ${host.root} was listed to pack but cannot be read`);
    return {
      path: `package/${f}`,
      data: f === 'package.json' ? installablePackageJson(bytes) : bytes,
      mode: bins.has(f) ? 0o755 : 0o644,
    };
  });
  return { name: `kubeforge-${pkg.version}.tgz`, data: createTgz(entries) };
}

/** `kubeforge-0.1.0.tgz` + bytes -> `.kubeforge/kubeforge-0.1.0-<sha256 prefix>.tgz`. */
function tarballSource(name: string, data: Buffer): KubeforgeSource {
  const hash = createHash('sha256').update(data).digest('hex').slice(0, 8);
  const path = `${TARBALL_DIR}/${name.replace(/\.(tgz|tar\.gz)$/, '')}-${hash}.tgz`;
  return { dependency: `file:${path}`, tarball: { path, data } };
}

/** Whether a file in .kubeforge/ is a kubeforge tarball written by init (stale ones are removed). */
export function isKubeforgeTarball(name: string): boolean {
  return /^kubeforge-.*\.tgz$/.test(name);
}

/** Resolves `--kubeforge-source` into a dependency spec (and a tarball to write). */
export function resolveKubeforgeSource(value: string | undefined, ctx: SourceContext): KubeforgeSource {
  const choice = value ?? 'tarball';
  if (choice === 'tarball') {
    const { name, data } = packKubeforge(ctx.kubeforge);
    return tarballSource(name, data);
  }
  // Relative, so that the project's package.json names no folder of this machine (and a clone
  // beside the same kubeforge checkout installs the same).
  if (choice === 'link') return { dependency: `file:${relative(ctx.projectDir ?? ctx.cwd, ctx.kubeforgeDir) || '.'}` };
  if (choice === 'registry') return { dependency: `^${readPackageJson(ctx.kubeforge).version}` };
  if (/\.(tgz|tar\.gz)$/.test(choice)) {
    const abs = resolve(ctx.cwd, choice);
    const data = ctx.openHost(dirname(abs)).read(basename(abs));
    if (!data) {
      throw new DiagnosticError(
        error('KF1022', `--kubeforge-source: no tarball at ${abs}`, {
          hint: 'make one with `npm pack` in the kubeforge folder, or use tarball|link|registry',
        }),
      );
    }
    return tarballSource(basename(abs), data);
  }
  throw new DiagnosticError(
    error('KF1023', `--kubeforge-source: unknown value "${choice}"`, {
      hint: 'use tarball (default), link, registry, or the path of a .tgz made by npm pack',
    }),
  );
}
