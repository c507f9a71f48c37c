/**
 * envtest binaries built from Go modules: where `go` (1.21 or newer) is on PATH and the Go module
 * proxy is reachable, but controller-tools' release downloads are not.
 *
 * - kube-apiserver: `k8s.io/kubernetes` cannot be `go install`ed (its go.mod replaces each staging
 *   module, `k8s.io/api` and friends, with a folder of its own repository). A throw-away module
 *   requires it and replaces each staging module with its published version (`v0.<minor>.<patch>`),
 *   then builds `k8s.io/kubernetes/cmd/kube-apiserver` with the version stamped in, so
 *   `kube-apiserver --version` and `/version` say `v1.37.2`, not `v0.0.0-master`.
 * - etcd: the `go.etcd.io/etcd/server/v3` version Kubernetes itself pins, built from a throw-away
 *   module whose main calls etcd's own entry point (`etcdmain.Main`).
 *
 * Nothing of this is Go code of ours: the product never needs Go; this only provisions the test
 * control plane. The modules live in `<cache>/go-build/`, the binaries land in
 * `<cache>/k8s/<version>-<os>-<arch>/` (the same place as a download) with a `.go-build` stamp.
 * Progress: one line per phase and, while compiling, the package count every few seconds.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { processAlive, withBuildLock } from './lock.js';

/** Bump when the recipe changes: a cached build with another stamp is built again. */
export const GO_BUILD_RECIPE = 'kubeforge-go-build/1';

export interface GoBuildOptions {
  /** Exact Kubernetes version (`1.37.2`) or a minor (`1.37`, `1.37.x`): the newest patch the proxy serves. */
  version: string;
  /** The envtest cache root (`<root>/k8s/...`, `<root>/go-build/...`). */
  root: string;
  log: (line: string) => void;
  signal?: AbortSignal;
  /** The go command (default: the first of `go` on PATH and /usr/local/go/bin/go that is 1.21 or newer). */
  go?: string;
  /** Seconds between progress lines while compiling (default 10). */
  progressEvery?: number;
}

export interface GoBuildResult {
  dir: string;
  version: string;
  /** Whether the binaries were already there. */
  cached: boolean;
}

export class GoBuildError extends Error {
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'GoBuildError';
  }
}

interface Exec {
  code: number | null;
  stdout: string;
  stderr: string;
}

function exec(
  cmd: string,
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; signal?: AbortSignal; onStderrLine?: (l: string) => void } = {},
): Promise<Exec> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd: opts.cwd,
      env: opts.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      signal: opts.signal,
    });
    let stdout = '';
    let stderr = '';
    let partial = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr += c;
      if (stderr.length > 1 << 20) stderr = stderr.slice(-(1 << 19));
      if (!opts.onStderrLine) return;
      const lines = (partial + c).split('\n');
      partial = lines.pop() ?? '';
      for (const l of lines) opts.onStderrLine(l);
    });
    child.on('error', (e) => reject(e));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const tail = (s: string, n = 1500) => (s.length > n ? `...${s.slice(-n)}` : s).trim();

/** The minor of a Go release name (`go1.26.8` -> 26); undefined for anything else. */
function goMinor(version: string): number | undefined {
  const m = /^go1\.(\d+)/.exec(version.trim());
  return m ? Number(m[1]) : undefined;
}

/** The first go command that is 1.21 or newer (toolchain switching: it fetches a newer Go itself when a go.mod needs one). */
export async function findGo(explicit?: string): Promise<string | undefined> {
  const candidates = explicit ? [explicit] : ['go', '/usr/local/go/bin/go'];
  for (const go of candidates) {
    try {
      const r = await exec(go, ['env', 'GOVERSION']);
      const minor = r.code === 0 ? goMinor(r.stdout) : undefined;
      if (minor !== undefined && minor >= 21) return go;
    } catch {
      /* not there */
    }
  }
  return undefined;
}

interface SemVer {
  minor: number;
  patch: number;
}

function parseRelease(v: string): SemVer | undefined {
  const m = /^v?1\.(\d+)\.(\d+)$/.exec(v);
  return m ? { minor: Number(m[1]), patch: Number(m[2]) } : undefined;
}

/** The newest `1.<minor>.x` release of k8s.io/kubernetes the proxy lists. */
export function newestPatch(versions: readonly string[], minor: number): string | undefined {
  let best: SemVer | undefined;
  for (const v of versions) {
    const s = parseRelease(v);
    if (s && s.minor === minor && (!best || s.patch > best.patch)) best = s;
  }
  return best ? `1.${best.minor}.${best.patch}` : undefined;
}

/** The `replace` block of the throw-away module: each staging module of Kubernetes' go.mod at its published version. */
export function stagingReplaces(kubernetesGoMod: string, version: string): string[] {
  const s = parseRelease(version);
  if (!s) throw new GoBuildError(`not a Kubernetes release: ${version}`);
  const out: string[] = [];
  for (const m of kubernetesGoMod.matchAll(/^\s*(k8s\.io\/[\w.-]+)\s*=>\s*\.\/staging\/src\/\S+\s*$/gm)) {
    out.push(`\t${m[1]} => ${m[1]} v0.${s.minor}.${s.patch}`);
  }
  if (!out.length)
    throw new GoBuildError(
      `k8s.io/kubernetes v${version}'s go.mod replaces no staging module; this recipe does not know how to build it`,
    );
  return out;
}

/** The version of a module that a go.mod requires (`go.etcd.io/etcd/server/v3` -> `v3.6.8`). */
export function requiredVersion(goMod: string, module: string): string | undefined {
  const esc = module.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^\\s*(?:require\\s+)?${esc}\\s+(v\\S+)`, 'm').exec(goMod)?.[1];
}

/** The `go` directive of a go.mod (`1.26.0`). */
function goDirective(goMod: string): string {
  return /^go\s+(\S+)/m.exec(goMod)?.[1] ?? '1.21';
}

class GoRunner {
  constructor(
    private readonly go: string,
    private readonly log: (l: string) => void,
    private readonly signal: AbortSignal | undefined,
    private readonly progressEvery: number,
  ) {}

  private env(): NodeJS.ProcessEnv {
    // CGO off: static binaries that need no C toolchain; GOFLAGS cleared so a user's -mod=vendor does not apply.
    return { ...process.env, CGO_ENABLED: '0', GOFLAGS: '-buildvcs=false', GOWORK: 'off' };
  }

  async run(args: string[], cwd: string, what: string): Promise<string> {
    let r: Exec;
    try {
      r = await exec(this.go, args, { cwd, env: this.env(), signal: this.signal });
    } catch (e) {
      throw new GoBuildError(`${what}: cannot run ${this.go}: ${(e as Error).message}`);
    }
    if (r.code !== 0)
      throw new GoBuildError(
        `${what} failed (go ${args.join(' ')}, exit ${r.code}):\n${tail(r.stderr)}`,
        'the Go module proxy must be reachable (GOPROXY); or set KUBEBUILDER_ASSETS to a folder holding etcd and kube-apiserver',
      );
    return r.stdout;
  }

  /** `go build -v` with a progress line every few seconds: packages compiled of those the binary needs. */
  async build(pkg: string, out: string, cwd: string, ldflags: string, label: string): Promise<void> {
    const deps = (await this.run(['list', '-deps', pkg], cwd, `listing the packages of ${label}`))
      .split('\n')
      .filter(Boolean).length;
    const started = Date.now();
    let done = 0;
    let last = started;
    this.log(
      `compiling ${label}: ${deps} packages (the first build takes minutes on 2 cores; the Go build cache makes the next fast)`,
    );
    let r: Exec;
    try {
      r = await exec(this.go, ['build', '-v', '-trimpath', '-ldflags', ldflags, '-o', out, pkg], {
        cwd,
        env: this.env(),
        signal: this.signal,
        onStderrLine: (line) => {
          if (!/^[\w.-]+(\/[\w.~+-]+)*$/.test(line.trim())) return;
          done++;
          const now = Date.now();
          if (now - last >= this.progressEvery * 1000) {
            last = now;
            this.log(
              `compiling ${label}: ${Math.min(done, deps)}/${deps} packages, ${Math.round((now - started) / 1000)} s`,
            );
          }
        },
      });
    } catch (e) {
      throw new GoBuildError(`compiling ${label}: cannot run ${this.go}: ${(e as Error).message}`);
    }
    if (r.code !== 0) throw new GoBuildError(`compiling ${label} failed (exit ${r.code}):\n${tail(r.stderr)}`);
    this.log(`compiled ${label} in ${Math.round((Date.now() - started) / 1000)} s`);
  }
}

function writeIfChanged(path: string, text: string): void {
  if (!existsSync(path) || readFileSync(path, 'utf8') !== text) writeFileSync(path, text);
}

/**
 * Builds (or finds cached) kube-apiserver and etcd of a Kubernetes version from Go modules.
 * Rejects with GoBuildError when go is missing or too old, the proxy does not answer, or a build fails.
 */
export async function goBuildEnvtest(options: GoBuildOptions): Promise<GoBuildResult> {
  const { log, root, signal } = options;
  const go = await findGo(options.go);
  if (!go)
    throw new GoBuildError(
      'no Go 1.21 or newer found (go on PATH, /usr/local/go/bin/go)',
      'install Go, or set KUBEBUILDER_ASSETS to a folder holding etcd and kube-apiserver',
    );
  const runner = new GoRunner(go, log, signal, options.progressEvery ?? 10);
  mkdirSync(root, { recursive: true });
  const [goos, goarch] = (await runner.run(['env', 'GOOS', 'GOARCH'], root, 'asking go for its platform'))
    .trim()
    .split('\n');
  const k8sDir = join(root, 'k8s');
  mkdirSync(k8sDir, { recursive: true });

  // 1. Which release.
  const wanted = options.version.replace(/^v/, '');
  let version = parseRelease(wanted) ? wanted : undefined;
  const stampOk = (v: string) => {
    const dir = join(k8sDir, `${v}-${goos}-${goarch}`);
    const stamp = join(dir, '.go-build');
    return (
      existsSync(join(dir, 'kube-apiserver')) &&
      existsSync(join(dir, 'etcd')) &&
      existsSync(stamp) &&
      readFileSync(stamp, 'utf8').trim() === `${GO_BUILD_RECIPE} ${v}`
    );
  };
  if (!version) {
    const minor = /^(\d+)\.(\d+)(?:\.x)?$/.exec(wanted);
    if (minor?.[1] !== '1')
      throw new GoBuildError(`not a Kubernetes version: ${options.version}`, 'name one as 1.37.2, 1.37 or 1.37.x');
    log(`asking the Go module proxy for the newest k8s.io/kubernetes v${wanted.replace(/\.x$/, '')}.x`);
    const listed = await runner.run(
      ['list', '-m', '-versions', 'k8s.io/kubernetes'],
      root,
      'listing k8s.io/kubernetes versions',
    );
    version = newestPatch(listed.trim().split(/\s+/).slice(1), Number(minor[2]));
    if (!version) throw new GoBuildError(`the Go module proxy lists no k8s.io/kubernetes v1.${minor[2]}.x release`);
  }
  const dir = join(k8sDir, `${version}-${goos}-${goarch}`);
  if (stampOk(version)) {
    log(`using kube-apiserver and etcd ${version} built earlier from Go modules: ${dir}`);
    return { dir, version, cached: true };
  }

  // One build of a version at a time: a second setup-envtest waits for the first and takes its result.
  const built = await withBuildLock(
    `${dir}.lock`,
    `build of kube-apiserver and etcd ${version}`,
    () => stampOk(version),
    () => buildVersion(runner, go, root, version, dir, log),
    { log, signal },
  );
  if (!built) {
    log(`using kube-apiserver and etcd ${version} that another setup-envtest just built: ${dir}`);
    return { dir, version, cached: true };
  }
  return built;
}

/** Steps 2 and 3 of goBuildEnvtest, under its lock. */
async function buildVersion(
  runner: GoRunner,
  go: string,
  root: string,
  version: string,
  dir: string,
  log: (line: string) => void,
): Promise<GoBuildResult> {
  // 2. The throw-away modules.
  const work = join(root, 'go-build', version);
  const apiWork = join(work, 'kube-apiserver');
  mkdirSync(apiWork, { recursive: true });
  log(
    `building kube-apiserver and etcd ${version} from Go modules with ${go} (${(await runner.run(['env', 'GOVERSION'], root, 'go version')).trim()}) in ${work}`,
  );
  log(`downloading k8s.io/kubernetes v${version}'s go.mod`);
  const info = JSON.parse(
    await runner.run(
      ['mod', 'download', '-json', `k8s.io/kubernetes@v${version}`],
      root,
      `downloading k8s.io/kubernetes v${version}`,
    ),
  ) as { GoMod?: string };
  if (!info.GoMod) throw new GoBuildError(`go mod download gave no go.mod for k8s.io/kubernetes v${version}`);
  const k8sGoMod = readFileSync(info.GoMod, 'utf8');
  const goLine = goDirective(k8sGoMod);
  writeIfChanged(
    join(apiWork, 'go.mod'),
    [
      `module kubeforge.invalid/envtest/kube-apiserver`,
      '',
      `go ${goLine}`,
      '',
      `require k8s.io/kubernetes v${version}`,
      '',
      'replace (',
      ...stagingReplaces(k8sGoMod, version),
      ')',
      '',
    ].join('\n'),
  );
  // The one import that makes `go mod tidy` resolve the binary's whole dependency graph.
  writeIfChanged(
    join(apiWork, 'tools.go'),
    '//go:build tools\n\npackage tools\n\nimport _ "k8s.io/kubernetes/cmd/kube-apiserver"\n',
  );
  log("resolving kube-apiserver's module graph (go mod tidy; downloads the modules the first time)");
  await runner.run(['mod', 'tidy'], apiWork, "resolving kube-apiserver's modules");

  const etcdVersion = requiredVersion(k8sGoMod, 'go.etcd.io/etcd/server/v3');
  if (!etcdVersion)
    throw new GoBuildError(`k8s.io/kubernetes v${version}'s go.mod names no go.etcd.io/etcd/server/v3 version`);
  const etcdWork = join(work, 'etcd');
  mkdirSync(etcdWork, { recursive: true });
  writeIfChanged(
    join(etcdWork, 'go.mod'),
    `module kubeforge.invalid/envtest/etcd\n\ngo ${goLine}\n\nrequire go.etcd.io/etcd/server/v3 ${etcdVersion}\n`,
  );
  writeIfChanged(
    join(etcdWork, 'main.go'),
    '// etcd\'s own entry point, from its published server module.\npackage main\n\nimport (\n\t"os"\n\n\t"go.etcd.io/etcd/server/v3/etcdmain"\n)\n\nfunc main() { etcdmain.Main(os.Args) }\n',
  );
  log(`resolving etcd ${etcdVersion}'s module graph`);
  await runner.run(['mod', 'tidy'], etcdWork, `resolving etcd ${etcdVersion}'s modules`);

  // 3. Build into a staging folder, then rename it into place in one step.
  const s = parseRelease(version);
  if (!s) throw new GoBuildError(`not a Kubernetes release: ${version}`, 'name one as 1.37.2, 1.37 or 1.37.x');
  const staging = `${dir}.building-${process.pid}`;
  // Staging folders of builds killed before they cleaned up (their process is gone).
  const prefix = `${basename(dir)}.building-`;
  for (const name of readdirSync(dirname(dir)))
    if (name.startsWith(prefix) && !processAlive(Number(name.slice(prefix.length))))
      rmSync(join(dirname(dir), name), { recursive: true, force: true });
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  try {
    const stamp = (pkg: string) =>
      [
        `-X ${pkg}.gitVersion=v${version}`,
        `-X ${pkg}.gitMajor=1`,
        `-X ${pkg}.gitMinor=${s.minor}`,
        `-X ${pkg}.gitTreeState=clean`,
      ].join(' ');
    await runner.build(
      'k8s.io/kubernetes/cmd/kube-apiserver',
      join(staging, 'kube-apiserver'),
      apiWork,
      `-s -w ${stamp('k8s.io/component-base/version')} ${stamp('k8s.io/client-go/pkg/version')}`,
      `kube-apiserver ${version}`,
    );
    await runner.build('.', join(staging, 'etcd'), etcdWork, '-s -w', `etcd ${etcdVersion}`);
    writeFileSync(join(staging, '.go-build'), `${GO_BUILD_RECIPE} ${version}\n`);
    rmSync(dir, { recursive: true, force: true });
    renameSync(staging, dir);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  log(`built kube-apiserver ${version} and etcd ${etcdVersion}: ${dir}`);
  return { dir, version, cached: false };
}
