// The Go source of Kubernetes' API types (k8s.io/api and k8s.io/apimachinery, Kubernetes 1.32) for
// scripts/gen-k8s-schemas.mjs and its drift test: the very files controller-gen reads for an embedded
// `corev1.PodTemplateSpec`, with their `+listType`, `+default`, `+kubebuilder:validation` markers and
// their doc comments line for line.
//
// No npm package ships them. Debian does, as source packages of the upstream Go modules for Go
// programs built in Debian: golang-k8s-api-dev and golang-k8s-apimachinery-dev of Debian 13 "trixie"
// (the stable release: its pool files stay put for the life of the release). The .deb files are
// fetched from the Debian mirror on first use, checked against the sha256 in trixie's signed package
// index, and their /usr/share/gocode/src tree is unpacked into a cache folder:
//
//   ${XDG_CACHE_HOME:-~/.cache}/kubeforge/golang-k8s-1.32.3/src/k8s.io/{api,apimachinery}
//
// Downloading uses `curl` (so http_proxy and friends apply), unpacking `dpkg-deb` and `tar`; the tree
// is unpacked into a temporary folder beside the cache and renamed into place, so a second process
// sees it whole or not at all.
// @ts-check
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

/** Kubernetes release of the Go modules (k8s.io/api v0.32.3 is Kubernetes 1.32.3). */
export const GO_KUBERNETES_VERSION = 'v1.32.3';
export const GO_DEBIAN_RELEASE = 'trixie';

/** The packages, as trixie's binary-all Packages index lists them (Filename, SHA256). */
export const GO_PINS = [
  {
    package: 'golang-k8s-api-dev',
    version: '0.32.3-1',
    path: 'pool/main/g/golang-k8s-api/golang-k8s-api-dev_0.32.3-1_all.deb',
    sha256: 'f7b52c32b3522bf8c6ccc7c9645d01c87cbee31ab22de2a92de56fac3e4dd772',
  },
  {
    package: 'golang-k8s-apimachinery-dev',
    version: '0.32.3-2',
    path: 'pool/main/g/golang-k8s-apimachinery/golang-k8s-apimachinery-dev_0.32.3-2_all.deb',
    sha256: '7b83b05ec2fd0bf6f1db8a2b0c0dcbfbdd5ec555210ea5c4dc09575346fdf2f6',
  },
];

/**
 * The Debian archive this machine's apt is configured with: the first `URIs:` of a deb822
 * `.sources` file under `<etc>/apt/sources.list.d/`, else the first `deb` line of
 * `<etc>/apt/sources.list`, whose path does not end in `-security` or `-updates`. No mirror is
 * named here: the machine says which one it may reach. Undefined when apt names none.
 * @param {string} [etc]
 * @returns {string | undefined}
 */
export function aptMirror(etc = '/etc') {
  /** @type {string[]} */
  const uris = [];
  const dir = join(etc, 'apt', 'sources.list.d');
  /** @type {string[]} */
  let names = [];
  try {
    names = readdirSync(dir).sort();
  } catch {
    /* none */
  }
  for (const name of names) {
    let text = '';
    try {
      text = readFileSync(join(dir, name), 'utf8');
    } catch {
      continue;
    }
    if (name.endsWith('.sources')) for (const m of text.matchAll(/^URIs:\s*(.+)$/gm)) uris.push(...m[1].trim().split(/\s+/));
    else if (name.endsWith('.list')) for (const m of text.matchAll(/^deb\s+(?:\[[^\]]*\]\s+)?(\S+)/gm)) uris.push(m[1]);
  }
  try {
    for (const m of readFileSync(join(etc, 'apt', 'sources.list'), 'utf8').matchAll(/^deb\s+(?:\[[^\]]*\]\s+)?(\S+)/gm)) uris.push(m[1]);
  } catch {
    /* none */
  }
  return uris.map((u) => u.replace(/\/+$/, '')).find((u) => /^https?:\/\//.test(u) && !/-(security|updates|backports)$/.test(u));
}

/** Errors of this module have this `code`: their message says everything (no stack needed). */
export const GO_SOURCE_ERROR = 'KUBEFORGE_K8S_GO_SOURCE';

/** @param {string} message */
function sourceError(message) {
  return Object.assign(new Error(`k8s-go-source: ${message}`), { code: GO_SOURCE_ERROR });
}

/** `${XDG_CACHE_HOME:-~/.cache}` (a relative XDG_CACHE_HOME is ignored, as the XDG spec says). */
export function cacheHome(env = process.env) {
  const xdg = env.XDG_CACHE_HOME;
  return xdg && isAbsolute(xdg) ? xdg : join(homedir(), '.cache');
}

/**
 * The cache folder of the unpacked tree.
 * @param {{ cacheHome?: string }} [options]
 */
export function goSourceCacheDir(options = {}) {
  return join(options.cacheHome ?? cacheHome(), 'kubeforge', `golang-k8s-${GO_KUBERNETES_VERSION.slice(1)}`);
}

/**
 * @param {string} path
 * @returns {Promise<string>}
 */
function hashFile(path) {
  return new Promise((resolvePromise, reject) => {
    const hash = createHash('sha256');
    createReadStream(path)
      .on('error', reject)
      .on('data', (chunk) => hash.update(chunk))
      .on('end', () => resolvePromise(hash.digest('hex')));
  });
}

/**
 * What the cache's stamp file says when it holds exactly the pinned packages.
 * @param {typeof GO_PINS} pins
 */
function stampOf(pins) {
  return pins.map((p) => `${p.package} ${p.version} ${p.sha256}`).join('\n') + '\n';
}

/**
 * The shell commands that fetch the pinned packages by hand.
 * @param {string} dir
 * @param {string} mirror
 * @param {typeof GO_PINS} pins
 */
function byHand(dir, mirror, pins) {
  return [
    `  mkdir -p ${dir}/src && cd ${dir}`,
    ...pins.map((p) => {
      const deb = p.path.split('/').pop();
      return `  curl -fLO ${mirror}/${p.path} && echo '${p.sha256}  ${deb}' | sha256sum -c && dpkg-deb --fsys-tarfile ${deb} | tar -x --strip-components=5 -C src ./usr/share/gocode/src`;
    }),
    `  printf '${stampOf(pins).replace(/\n/g, '\\n')}' > src/.kubeforge-stamp`,
  ].join('\n');
}

/**
 * Runs a command; throws a sourceError naming what failed and how to do it by hand.
 * @param {string} cmd
 * @param {string[]} args
 * @param {string} what
 * @param {string} help
 */
function run(cmd, args, what, help) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.error || r.status !== 0) {
    const why = r.error ? r.error.message : `exit ${r.status ?? r.signal}${r.stderr.trim() ? `:\n${r.stderr.trim()}` : ''}`;
    throw sourceError(`${what} failed (${cmd} ${args.join(' ')}): ${why}\n${help}`);
  }
  return r.stdout;
}

/**
 * The `src` folder (GOPATH layout: `<src>/k8s.io/api/core/v1/types.go`) of the pinned Go sources,
 * fetched and unpacked on first use. A cache whose stamp does not name the pinned packages is
 * fetched again. Throws an Error saying what to run by hand when the mirror, curl, dpkg-deb or tar
 * fails, or a download does not match its sha256.
 * `options.curl` replaces the curl command, `options.pins` the pins, `options.mirror` the mirror
 * (also `KUBEFORGE_DEBIAN_MIRROR`; else the one apt is configured with, read from `options.etc`,
 * default /etc: see {@link aptMirror}).
 * @param {{ cacheHome?: string, curl?: string[], pins?: typeof GO_PINS, mirror?: string, etc?: string }} [options]
 * @returns {Promise<string>}
 */
export async function kubernetesGoSourcePath(options = {}) {
  const pins = options.pins ?? GO_PINS;
  const dir = goSourceCacheDir(options);
  const src = join(dir, 'src');
  const stamp = join(dir, 'src', '.kubeforge-stamp');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === stampOf(pins)) return src;
  const configured = options.mirror ?? process.env.KUBEFORGE_DEBIAN_MIRROR ?? aptMirror(options.etc);
  if (!configured) throw sourceError("no Debian mirror: apt names none in /etc/apt, and KUBEFORGE_DEBIAN_MIRROR is not set (set it to a Debian archive's URL, the one ending in /debian)");
  const mirror = configured.replace(/\/+$/, '');

  const help = `Are the Debian mirror (${mirror}), curl and dpkg-deb available? To fetch by hand, run:\n${byHand(dir, mirror, pins)}`;
  mkdirSync(dir, { recursive: true });
  const tmp = mkdtempSync(join(dir, '.fetch-'));
  try {
    mkdirSync(join(tmp, 'src'));
    for (const pin of pins) {
      const deb = join(tmp, /** @type {string} */ (pin.path.split('/').pop()));
      const [curl, ...curlArgs] = options.curl ?? ['curl'];
      run(curl, [...curlArgs, '-fsSL', '--retry', '3', '-o', deb, `${mirror}/${pin.path}`], `downloading ${pin.package} ${pin.version}`, help);
      const sha256 = await hashFile(deb);
      if (sha256 !== pin.sha256) {
        throw sourceError(`${pin.path} from ${mirror} has sha256 ${sha256}, expected ${pin.sha256} (Debian ${GO_DEBIAN_RELEASE}'s index). Refusing to use it.`);
      }
      const tar = join(tmp, 'data.tar');
      run('sh', ['-c', 'dpkg-deb --fsys-tarfile "$1" > "$2"', 'sh', deb, tar], `unpacking ${deb}`, help);
      run('tar', ['-x', '-f', tar, '--strip-components=5', '-C', join(tmp, 'src'), './usr/share/gocode/src'], `extracting the Go sources of ${pin.package}`, help);
      rmSync(tar);
      rmSync(deb);
    }
    writeFileSync(join(tmp, 'src', '.kubeforge-stamp'), stampOf(pins));
    rmSync(src, { recursive: true, force: true });
    try {
      renameSync(join(tmp, 'src'), src);
    } catch (e) {
      // Another process put its (identical, verified) tree there first.
      if (!(existsSync(stamp) && readFileSync(stamp, 'utf8') === stampOf(pins))) throw e;
    }
    return src;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
