// The Go sources of Kubernetes' API types (the Go modules k8s.io/api and k8s.io/apimachinery), one
// release per supported Kubernetes minor, for scripts/gen-k8s-schemas.mjs and its drift test: the
// very files controller-gen reads for an embedded `corev1.PodTemplateSpec` in a project whose go.mod
// requires that k8s.io/api, with their `+listType`, `+default`, `+kubebuilder:validation` markers
// and their doc comments line for line.
//
// No npm package ships them; the Go module cache does. Each module is pinned by its exact version
// and the two hashes a go.sum records for it (`h1:` of the module's files and of its go.mod), so the
// data is reproducible: `go mod download -json <module>@<version>` puts the module into the cache
// (${GOMODCACHE:-$(go env GOPATH)/pkg/mod}) when it is not there yet, verified by the go command
// against the checksum database, and says where it lies (`Dir`) and its hashes, which must be the
// pinned ones. The go command is a tool of this generator only: kubeforge itself never needs Go.
// @ts-check
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A Go module at an exact version, with its go.sum hashes.
 * @typedef {{ path: string; version: string; sum: string; goModSum: string }} GoModulePin
 */
/**
 * A supported Kubernetes minor and the module releases its schema data is generated from (the
 * newest patch release of each module for that minor when the pins were last updated).
 * @typedef {{ kubernetes: string; modules: readonly GoModulePin[] }} GoMinorPin
 */

/** Oldest first; the last is the newest minor, the default of `kubeforge manifests --k8s-version`. */
/** @type {readonly GoMinorPin[]} */
export const GO_MINORS = [
  {
    kubernetes: '1.35',
    modules: [
      {
        path: 'k8s.io/api',
        version: 'v0.35.10',
        sum: 'h1:QwowbQKtMVBxxOi6dlfyU2vuP0eRQ3E7gStSIne4gso=',
        goModSum: 'h1:/1Xs0OajWXOFkRDqyAkSb4UvMrev2YntKBCP5/VJTmU=',
      },
      {
        path: 'k8s.io/apimachinery',
        version: 'v0.35.10',
        sum: 'h1:SV9Ku0Z+Ju0Zp193d8dprvMIwY0WiX1/khUgXwDbxtI=',
        goModSum: 'h1:z9Vq5oR1X38pkhh0wV531iKSeqmOVjqgHdYMjvzq2+o=',
      },
    ],
  },
  {
    kubernetes: '1.36',
    modules: [
      {
        path: 'k8s.io/api',
        version: 'v0.36.6',
        sum: 'h1:3rpdtvtevl++F7XJ9lnSsNje6+032Lc9bUQRoMWFyDk=',
        goModSum: 'h1:t4s02pfQlPzbaIaSgWPmKGuSa4xwHbZGf5plDrTOXvE=',
      },
      {
        path: 'k8s.io/apimachinery',
        version: 'v0.36.6',
        sum: 'h1:XYM5fEI+Vs6QZ8G+pcl95dXrLpNXVJ7Yhzfao/T+qK0=',
        goModSum: 'h1:NJ0t6ukzsf4Lq+njD6EcKVDZBx0CACk678v8lSfx880=',
      },
    ],
  },
  {
    kubernetes: '1.37',
    modules: [
      {
        path: 'k8s.io/api',
        version: 'v0.37.2',
        sum: 'h1:PnxqnUFy93jr2GcpWDkKOm8wfy25kT9wa572MuQS8oc=',
        goModSum: 'h1:+NVRLft99kx+Jg9v34GmHw867Dapim89TSyCsn2hK+M=',
      },
      {
        path: 'k8s.io/apimachinery',
        version: 'v0.37.2',
        sum: 'h1:G4t9RGoPDbQML38hz/kQQiltttgd3egg2ODCR8aIc2o=',
        goModSum: 'h1:qaAvSNvgU2x07wRM95MSHSJTPQ/ob/LeNAGbeDgqQJg=',
      },
    ],
  },
];

/** Errors of this module have this `code`: their message says everything (no stack needed). */
export const GO_SOURCE_ERROR = 'KUBEFORGE_K8S_GO_SOURCE';

/** @param {string} message */
function sourceError(message) {
  return Object.assign(new Error(`k8s-go-source: ${message}`), { code: GO_SOURCE_ERROR });
}

/**
 * The pins of a Kubernetes minor (`1.36`); throws for a minor that is not supported.
 * @param {string} kubernetes
 * @param {readonly GoMinorPin[]} [minors]
 * @returns {GoMinorPin}
 */
export function minorPin(kubernetes, minors = GO_MINORS) {
  const pin = minors.find((m) => m.kubernetes === kubernetes);
  if (!pin)
    throw sourceError(
      `no Go module pins for Kubernetes ${kubernetes} (pinned: ${minors.map((m) => m.kubernetes).join(', ')})`,
    );
  return pin;
}

/**
 * The first go command that is Go 1.21 or newer: `options.go`, else `go` on PATH, else
 * /usr/local/go/bin/go (where the Go tarball installs; a machine may have an older Go on PATH).
 * @param {{ go?: string }} [options]
 */
export function findGoCommand(options = {}) {
  const candidates = options.go ? [options.go] : ['go', '/usr/local/go/bin/go'];
  for (const go of candidates) {
    const r = spawnSync(go, ['env', 'GOVERSION'], { encoding: 'utf8' });
    const minor = r.status === 0 ? /^go1\.(\d+)/.exec(r.stdout.trim())?.[1] : undefined;
    if (minor !== undefined && Number(minor) >= 21) return go;
  }
  throw sourceError(
    `no Go 1.21 or newer (tried ${candidates.join(', ')}): the generator reads the Go modules k8s.io/api and k8s.io/apimachinery from the Go module cache; install Go (https://go.dev/dl/) or put it on PATH`,
  );
}

/**
 * The commands that put the pinned modules into the module cache by hand, and show their hashes.
 * @param {readonly GoModulePin[]} modules
 */
function byHand(modules) {
  return modules
    .map((m) => `  go mod download -json ${m.path}@${m.version}   # Sum ${m.sum}, GoModSum ${m.goModSum}`)
    .join('\n');
}

/**
 * The folder of a pinned module in the Go module cache, downloaded into it on first use (`go mod
 * download -json`). Throws an Error saying what to run by hand when the go command fails, and
 * refuses a module whose hashes are not the pinned ones.
 * @param {GoModulePin} pin
 * @param {{ go?: string }} [options]
 * @returns {string}
 */
export function goModuleDir(pin, options = {}) {
  const go = findGoCommand(options);
  // Outside any module (a go.mod above the working folder would be consulted otherwise).
  const cwd = mkdtempSync(join(tmpdir(), 'kf-go-mod-'));
  try {
    const r = spawnSync(go, ['mod', 'download', '-json', `${pin.path}@${pin.version}`], {
      cwd,
      encoding: 'utf8',
      env: { ...process.env, GO111MODULE: 'on', GOFLAGS: '-mod=mod' },
      timeout: 10 * 60_000,
    });
    /** @type {{ Dir?: string; Sum?: string; GoModSum?: string; Error?: string }} */
    let info = {};
    try {
      info = JSON.parse(r.stdout || '{}');
    } catch {
      /* reported below */
    }
    if (r.error || r.status !== 0 || info.Error || !info.Dir) {
      const why = r.error
        ? r.error.message
        : (info.Error ?? `exit ${r.status ?? r.signal}${r.stderr.trim() ? `:\n${r.stderr.trim()}` : ''}`);
      throw sourceError(
        `go mod download ${pin.path}@${pin.version} failed: ${why}\nIs the Go module proxy (GOPROXY) reachable? To fetch by hand, run:\n${byHand([pin])}`,
      );
    }
    if (info.Sum !== pin.sum || info.GoModSum !== pin.goModSum) {
      throw sourceError(
        `${pin.path}@${pin.version} in the module cache has hashes ${info.Sum} / ${info.GoModSum}, expected ${pin.sum} / ${pin.goModSum} (the pinned go.sum lines). Refusing to use it.`,
      );
    }
    if (!existsSync(info.Dir))
      throw sourceError(`${pin.path}@${pin.version}: go mod download names ${info.Dir}, which does not exist`);
    return info.Dir;
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

/**
 * Where the Go sources of a supported Kubernetes minor lie: module path -> its folder in the module
 * cache (`{ 'k8s.io/api': '/root/go/pkg/mod/k8s.io/api@v0.37.2', ... }`).
 * @param {string} kubernetes the minor, `1.37`
 * @param {{ go?: string; minors?: readonly GoMinorPin[] }} [options]
 * @returns {Record<string, string>}
 */
export function kubernetesGoModules(kubernetes, options = {}) {
  /** @type {Record<string, string>} */
  const out = {};
  for (const pin of minorPin(kubernetes, options.minors).modules) out[pin.path] = goModuleDir(pin, options);
  return out;
}
