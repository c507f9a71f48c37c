/**
 * What makes a kubeforge fetched from a package registry verifiable: npm's `integrity` of its
 * package (`sha512-<base64>` of the tarball the registry serves), recorded in PROJECT as
 * `cliIntegrity`, next to `cliVersion`, when the project is scaffolded by a kubeforge that npm
 * installed (npm keeps that integrity in the lockfile of the folder it installed kubeforge into:
 * `node_modules/.package-lock.json`, or `package-lock.json` next to it). `alpha update` fetches
 * an old kubeforge with `npm pack` only when it can check the tarball against it (or against the
 * project's own committed package-lock.json), and runs it only when the two are equal.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename, dirname, join, relative, sep } from 'node:path';
import { packageRoot, packageVersion } from '../util/package-root.js';

/** PROJECT's key for the integrity (the package of the kubeforge `cliVersion` names). */
export const CLI_INTEGRITY_KEY = 'cliIntegrity';

/** npm's integrity string of some bytes: `sha512-` and the base64 digest. */
export function integrityOf(data: Buffer): string {
  return `sha512-${createHash('sha512').update(data).digest('base64')}`;
}

/** A well-formed sha512 integrity (the only algorithm accepted: npm's default, no weaker fallback). */
export const isSha512Integrity = (v: unknown): v is string =>
  typeof v === 'string' && /^sha512-[A-Za-z0-9+/]{86}==$/.test(v);

interface LockPackages {
  packages?: Record<string, { version?: string; integrity?: string; resolved?: string; link?: boolean }>;
}

function readLock(file: string): LockPackages | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as LockPackages;
  } catch {
    return undefined;
  }
}

/**
 * The integrity a lockfile records for the package at `node_modules/kubeforge` at `version`
 * (lockfile v2/v3 `packages`), or undefined.
 */
export function lockedIntegrity(lock: LockPackages | undefined, key: string, version: string): string | undefined {
  const entry = lock?.packages?.[key];
  if (!entry || entry.link || entry.version !== version) return undefined;
  return isSha512Integrity(entry.integrity) ? entry.integrity : undefined;
}

/** The integrity the project's package-lock.json (text) records for kubeforge at `version`. */
export function projectLockedIntegrity(lockText: string | undefined, version: string): string | undefined {
  if (lockText === undefined) return undefined;
  try {
    return lockedIntegrity(JSON.parse(lockText) as LockPackages, 'node_modules/kubeforge', version);
  } catch {
    return undefined;
  }
}

/**
 * The running kubeforge's integrity as npm recorded it when it installed this package (global
 * install, npx, or a project's node_modules); undefined when kubeforge runs from a folder npm did
 * not install it into (a clone, a link): then nothing can vouch for what a registry would serve.
 */
export function ownIntegrity(root: string = packageRoot(), version: string = packageVersion()): string | undefined {
  const modules = dirname(root);
  if (basename(modules) !== 'node_modules') return undefined;
  const top = dirname(modules);
  for (const lockFile of [join(modules, '.package-lock.json'), join(top, 'package-lock.json')]) {
    const key = relative(top, root).split(sep).join('/');
    const found = lockedIntegrity(readLock(lockFile), key, version);
    if (found) return found;
  }
  return undefined;
}
