// The real tools as test oracles, built from Go modules once per machine and cached under
// ${XDG_CACHE_HOME:-~/.cache}/kubeforge/oracle/bin: controller-gen at the newest controller-tools
// release the Go module proxy serves, Kubebuilder at the release whose scaffold kubeforge follows. Test infrastructure only (kubeforge itself never needs Go). A machine without Go fails
// these tests with a message saying so: they are claims, not optional extras.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { findGo } from '../../src/envtest/go-build.js';
import { must } from '../helpers/must.js';

/**
 * The controller-gen the CRD tests compare with: the newest controller-tools release (v0.23.0), one
 * ahead of the v0.22.0 Kubebuilder v4.16.0 scaffolds projects with (its CONTROLLER_TOOLS_VERSION).
 * What v0.23 changed is either followed by kubeforge or not reachable from its markers (docs/kubebuilder.md).
 */
export const CONTROLLER_GEN_VERSION = 'v0.23.0';

const cacheBin = () => join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'kubeforge', 'oracle', 'bin');

/** Installs `pkg@version` with `go install` into the cache as `name-version`; returns its path. */
async function goInstall(pkg: string, version: string, name: string): Promise<string> {
  const bin = cacheBin();
  const target = join(bin, `${name}-${version}`);
  if (existsSync(target)) return target;
  const go = await findGo();
  if (!go)
    throw new Error(
      `building ${name} ${version} needs Go 1.21+ (go on PATH or /usr/local/go/bin/go): the oracle tests compare kubeforge with the real tool`,
    );
  mkdirSync(bin, { recursive: true });
  const tmp = mkdtempSync(join(bin, `.${name}-`));
  try {
    process.stderr.write(`oracle: building ${pkg}@${version} from Go modules (once per machine)\n`);
    const r = spawnSync(go, ['install', `${pkg}@${version}`], {
      env: { ...process.env, GOBIN: tmp, CGO_ENABLED: '0', GOFLAGS: '-buildvcs=false' },
      encoding: 'utf8',
      timeout: 20 * 60_000,
    });
    if (r.status !== 0)
      throw new Error(
        `go install ${pkg}@${version} failed (exit ${r.status ?? r.signal}):\n${(r.stderr ?? '').slice(-2000)}`,
      );
    renameSync(join(tmp, name), target);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return target;
}

/**
 * The Kubebuilder release whose scaffold kubeforge follows (v4.16.0, the newest: its projects pin
 * controller-runtime v0.25.0 and controller-gen v0.22.0).
 */
export const KUBEBUILDER_VERSION = 'v4.16.0';

/** kubebuilder, built once per machine. */
export function kubebuilder(): Promise<string> {
  return goInstall('sigs.k8s.io/kubebuilder/v4', KUBEBUILDER_VERSION, 'kubebuilder');
}

/** controller-gen, built once per machine. */
export function controllerGen(): Promise<string> {
  return goInstall('sigs.k8s.io/controller-tools/cmd/controller-gen', CONTROLLER_GEN_VERSION, 'controller-gen');
}

/** The Helm release the chart tests render and lint with (helm.sh/helm/v3 builds from Go modules with CGO off). */
export const HELM_VERSION = 'v3.22.0';

/** helm, built once per machine. */
export function helm(): Promise<string> {
  return goInstall('helm.sh/helm/v3/cmd/helm', HELM_VERSION, 'helm');
}

/**
 * The folder of a Go module at a version in the module cache (downloaded through the Go module
 * proxy once per machine): test fixtures from a project's own release, such as cert-manager's CRDs.
 */
export async function goModuleDir(path: string, version: string): Promise<string> {
  const go = await findGo();
  if (!go)
    throw new Error(
      `${path}@${version} is read from the Go module cache: Go 1.21+ is needed (go on PATH or /usr/local/go/bin/go)`,
    );
  const r = spawnSync(go, ['mod', 'download', '-json', `${path}@${version}`], {
    encoding: 'utf8',
    timeout: 10 * 60_000,
    cwd: tmpdir(),
  });
  if (r.status !== 0)
    throw new Error(
      `go mod download ${path}@${version} failed (exit ${r.status ?? r.signal}):\n${(r.stdout ?? '').slice(-1000)}${(r.stderr ?? '').slice(-1000)}`,
    );
  return (JSON.parse(r.stdout) as { Dir: string }).Dir;
}

/**
 * Runs a tool in a folder; throws with its output unless it exits 0. controller-gen loads
 * packages through the go command it finds on PATH, so the Go that findGo chose goes first
 * (a machine may also have Debian's older Go, which the legacy v1.20 build installs).
 */
export async function runTool(bin: string, args: string[], cwd: string): Promise<string> {
  const r = await runToolAllowingErrors(bin, args, cwd);
  if (r.status !== 0) throw new Error(`${bin} ${args.join(' ')} failed (exit ${r.status}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/** {@link runTool} that returns the exit status and output instead of throwing on a failure. */
export async function runToolAllowingErrors(
  bin: string,
  args: string[],
  cwd: string,
): Promise<{ status: number | string; stdout: string; stderr: string }> {
  const go = await findGo();
  const path = go?.includes('/') ? `${dirname(go)}:${process.env.PATH ?? ''}` : process.env.PATH;
  const r = spawnSync(bin, args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, PATH: path, GOFLAGS: '-buildvcs=false' },
    timeout: 10 * 60_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  return { status: r.status ?? String(r.signal), stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

/**
 * Runs controller-gen's CRD generator on `paths` (relative to the twins' module, e.g.
 * `./conformance/...`) into a new temporary folder; returns it and a function that removes it.
 * `crdOptions` are the generator's own (`:generateEmbeddedObjectMeta=true`).
 */
export async function controllerGenCRDs(
  twins: string,
  paths: string,
  crdOptions = '',
): Promise<{ out: string; cleanup(): void }> {
  const bin = await controllerGen();
  const out = mkdtempSync(join(tmpdir(), 'kf-controller-gen-'));
  await runTool(bin, [`crd${crdOptions}`, `paths=${paths}`, `output:crd:dir=${out}`], twins);
  return { out, cleanup: () => rmSync(out, { recursive: true, force: true }) };
}

/**
 * The CEL cost oracle (test/oracle/celcost): the API server's own rule compilation and CRD
 * validation (k8s.io/apiextensions-apiserver at the version in its go.mod) behind a JSON filter.
 * Built once per machine and per source: the binary's name carries a hash of go.mod, go.sum
 * and main.go, so an edit builds it again. `repoRoot` is the checkout holding test/oracle.
 */
export async function celCostOracle(repoRoot: string): Promise<string> {
  const src = join(repoRoot, 'test', 'oracle', 'celcost');
  const hash = createHash('sha256');
  for (const f of ['go.mod', 'go.sum', 'main.go']) hash.update(readFileSync(join(src, f)));
  const bin = cacheBin();
  const target = join(bin, `celcost-${hash.digest('hex').slice(0, 16)}`);
  if (existsSync(target)) return target;
  const go = await findGo();
  if (!go)
    throw new Error(
      "building the CEL cost oracle needs Go 1.21+ (go on PATH or /usr/local/go/bin/go): the cost tests compare kubeforge with the API server's own code",
    );
  mkdirSync(bin, { recursive: true });
  const tmp = mkdtempSync(join(bin, '.celcost-'));
  try {
    process.stderr.write('oracle: building the CEL cost oracle from Go modules (once per machine; a few minutes)\n');
    const r = spawnSync(go, ['build', '-o', join(tmp, 'celcost'), '.'], {
      cwd: src,
      env: { ...process.env, CGO_ENABLED: '0', GOFLAGS: '-buildvcs=false' },
      encoding: 'utf8',
      timeout: 30 * 60_000,
    });
    if (r.status !== 0)
      throw new Error(
        `go build of the CEL cost oracle failed (exit ${r.status ?? r.signal}):\n${(r.stderr ?? '').slice(-2000)}`,
      );
    renameSync(join(tmp, 'celcost'), target);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return target;
}

/** Runs the CEL cost oracle on CRD objects; returns its parsed answer (one entry per CRD). */
export function runCelCostOracle<T = unknown>(bin: string, crds: readonly unknown[]): T[] {
  const r = spawnSync(bin, [], {
    input: JSON.stringify(crds),
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    timeout: 10 * 60_000,
  });
  if (r.status !== 0)
    throw new Error(`the CEL cost oracle failed (exit ${r.status ?? r.signal}):\n${(r.stderr ?? '').slice(-2000)}`);
  return JSON.parse(r.stdout) as T[];
}

/** A Go module at an exact version (as scripts/k8s-go-source.mjs pins them). */
export interface GoModuleVersion {
  path: string;
  version: string;
}

/**
 * A temporary copy of the twins module holding only `dirs` (e.g. `['golden/k8s']`) and `files`
 * (module-relative path -> text, for a twin written by the test), whose go.mod
 * requires exactly `modules` (k8s.io/api and k8s.io/apimachinery of one Kubernetes minor) and
 * whatever `go mod tidy` adds for them, from the module cache or the Go module proxy. Throws when
 * the go command settles on other versions than asked. Returns the folder and a function that
 * removes it.
 */
export async function twinsRequiring(
  twins: string,
  dirs: readonly string[],
  modules: readonly GoModuleVersion[],
  files: Readonly<Record<string, string>> = {},
): Promise<{ dir: string; cleanup(): void }> {
  const go = await findGo();
  if (!go)
    throw new Error(
      'the twins module needs Go 1.21+ (go on PATH or /usr/local/go/bin/go): the oracle tests compare kubeforge with the real tool',
    );
  const dir = mkdtempSync(join(tmpdir(), 'kf-twins-'));
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  try {
    for (const d of dirs) {
      mkdirSync(dirname(join(dir, d)), { recursive: true });
      cpSync(join(twins, d), join(dir, d), { recursive: true });
    }
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    // A go.mod of its own (no indirect requirements of the committed one, which could raise a
    // module above the pinned version), with the committed go.sum as a head start.
    writeFileSync(
      join(dir, 'go.mod'),
      `module kubeforge.invalid/oracle\n\ngo 1.26.0\n\nrequire (\n${modules.map((m) => `\t${m.path} ${m.version}\n`).join('')})\n`,
    );
    cpSync(join(twins, 'go.sum'), join(dir, 'go.sum'));
    const env = { ...process.env, GOFLAGS: '-mod=mod -buildvcs=false' };
    const tidy = spawnSync(go, ['mod', 'tidy'], { cwd: dir, env, encoding: 'utf8', timeout: 10 * 60_000 });
    if (tidy.status !== 0)
      throw new Error(
        `go mod tidy in ${dir} failed (exit ${tidy.status ?? tidy.signal}):\n${(tidy.stderr ?? '').slice(-2000)}`,
      );
    const list = spawnSync(go, ['list', '-m', '-f', '{{.Path}} {{.Version}}', ...modules.map((m) => m.path)], {
      cwd: dir,
      env,
      encoding: 'utf8',
    });
    const got = (list.stdout ?? '').trim().split('\n');
    const want = modules.map((m) => `${m.path} ${m.version}`);
    if (list.status !== 0 || got.join('\n') !== want.join('\n'))
      throw new Error(`the twins module at ${dir} resolved ${got.join(', ')}, not ${want.join(', ')}`);
    return { dir, cleanup };
  } catch (e) {
    cleanup();
    throw e;
  }
}

/**
 * An earlier kubeforge, built from this repository's history at `commit` (git archive, then its
 * own tsc against this checkout's node_modules) and cached under the oracle folder: the "old
 * version" `alpha update` upgrades from. Needs the repository's history (not a shallow clone).
 */
export function kubeforgeAt(commit: string, repoRoot: string): string {
  const target = join(dirname(cacheBin()), `kubeforge-${commit}`);
  if (existsSync(join(target, 'dist', 'cli', 'index.js'))) return target;
  const present = () => spawnSync('git', ['-C', repoRoot, 'cat-file', '-e', `${commit}^{commit}`]).status === 0;
  if (!present()) {
    // A shallow clone (CI's may be one) lacks the old commit: deepen it from its origin once.
    const shallow =
      spawnSync('git', ['-C', repoRoot, 'rev-parse', '--is-shallow-repository'], { encoding: 'utf8' }).stdout.trim() ===
      'true';
    if (shallow) {
      process.stderr.write(`oracle: kubeforge ${commit} is not in this shallow clone; git fetch --unshallow\n`);
      spawnSync('git', ['-C', repoRoot, 'fetch', '--quiet', '--unshallow'], {
        stdio: ['ignore', 'ignore', 'inherit'],
        timeout: 10 * 60_000,
      });
    }
  }
  if (!present())
    throw new Error(
      `kubeforge ${commit} is not in ${repoRoot}'s git history (a shallow clone?): fetch it (git fetch --unshallow) to build the old kubeforge alpha update starts from`,
    );
  mkdirSync(dirname(target), { recursive: true });
  const tmp = mkdtempSync(join(dirname(target), `.kubeforge-${commit}-`));
  try {
    process.stderr.write(`oracle: building kubeforge ${commit} from git history (once per machine)\n`);
    const archive = spawnSync('git', ['-C', repoRoot, 'archive', '--format=tar', commit], {
      maxBuffer: 1024 * 1024 * 1024,
    });
    if (archive.status !== 0) throw new Error(`git archive ${commit} failed: ${archive.stderr.toString('utf8')}`);
    const untar = spawnSync('tar', ['-x', '-C', tmp], { input: archive.stdout });
    if (untar.status !== 0) throw new Error(`tar -x failed: ${untar.stderr.toString('utf8')}`);
    // Its dependencies: this checkout's (the old package.json's may pin other versions; what it needs to scaffold is there).
    symlinkSync(realpathSync(join(repoRoot, 'node_modules')), join(tmp, 'node_modules'), 'dir');
    const tsc = spawnSync(
      process.execPath,
      [join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
      { cwd: tmp, encoding: 'utf8', timeout: 10 * 60_000 },
    );
    if (tsc.status !== 0) throw new Error(`building kubeforge ${commit} failed:\n${tsc.stdout}${tsc.stderr}`);
    rmSync(target, { recursive: true, force: true });
    renameSync(tmp, target);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return target;
}

/** The Jaeger release the tracing test reads its traces back from (all-in-one: OTLP receiver, memory store, query API). */
export const JAEGER_VERSION = 'v1.76.0';

/**
 * Jaeger all-in-one, built from Go modules once per machine. Its go.mod has a replace directive,
 * which `go install pkg@version` refuses, so the module is downloaded (goModuleDir) and built in
 * place (`go build -o`, nothing written into the module cache).
 */
export async function jaegerAllInOne(): Promise<string> {
  const target = join(cacheBin(), `jaeger-all-in-one-${JAEGER_VERSION}`);
  if (existsSync(target)) return target;
  const dir = await goModuleDir('github.com/jaegertracing/jaeger', JAEGER_VERSION);
  const go = must(await findGo(), '(await findGo())');
  mkdirSync(cacheBin(), { recursive: true });
  const tmp = mkdtempSync(join(cacheBin(), '.jaeger-'));
  try {
    process.stderr.write(`oracle: building Jaeger all-in-one ${JAEGER_VERSION} from Go modules (once per machine)\n`);
    const r = spawnSync(go, ['build', '-o', join(tmp, 'all-in-one'), './cmd/all-in-one'], {
      cwd: dir,
      env: { ...process.env, CGO_ENABLED: '0', GOFLAGS: '-buildvcs=false' },
      encoding: 'utf8',
      timeout: 30 * 60_000,
    });
    if (r.status !== 0)
      throw new Error(
        `go build of Jaeger ${JAEGER_VERSION} failed (exit ${r.status ?? r.signal}):\n${(r.stderr ?? '').slice(-2000)}`,
      );
    renameSync(join(tmp, 'all-in-one'), target);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return target;
}
