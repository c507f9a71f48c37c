/**
 * `kubeforge dev`: the inner loop. One session:
 *   1. a target cluster: a local control plane (kubeforge/testing's etcd + kube-apiserver, its data
 *      under .kubeforge/dev, a kubeconfig written there), the cluster of a kubeconfig/context, or
 *      (`--fake`) kubeforge/testing's fake API server in this process;
 *   2. a local CA and serving certificate (.kubeforge/dev/certs) for the manager's webhook server;
 *   3. `manifests`, then the CRDs, ClusterRole and webhook configurations applied server-side
 *      (webhooks and conversion pointed at https://<webhook-host>:<port> with the CA as caBundle);
 *   4. the project built by its own tsc into .kubeforge/dev/build, and the manager started as a
 *      child process on it;
 *   5. src/ watched (watch.ts): each save is transpiled file by file (transpile.ts, milliseconds),
 *      the incremental manifests run and what changed is applied, and the manager restarts on the
 *      new build, while the project's tsc type-checks beside it (typecheck.ts) and reports its
 *      errors located; with `--type-check strict` the restart waits for it and a type error keeps
 *      the running manager. A syntax or manifests error always keeps it, and says which build runs
 *      and since when;
 *   6. on stop (SIGINT/SIGTERM): the manager stopped, what the session created on a remote cluster
 *      removed (unless --keep), the local plane stopped, the kubeconfig and plane data removed.
 * One session per project (lock.ts): a second one is refused, and a watchdog cleans up after a
 * session killed without its exit handlers.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, watch, writeFileSync, type FSWatcher } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join, relative, resolve } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { DiagnosticError, error, formatDiagnostics, warning, type Diagnostic } from '../diagnostics/index.js';
import { generateCACert, generateSignedCert } from '../runtime/manager/selfsigned.js';
import { RestClient } from '../runtime/client/rest.js';
import type { TestEnvironment } from '../testing/environment.js';
import type { FakeAPIServer } from '../testing/fake/index.js';
import { freePorts } from '../testing/process.js';
import { ManagerChild, type ManagerLine } from './child.js';
import { LockHeld, SessionLock } from './lock.js';
import { Transpiler } from './transpile.js';
import { ProjectTsc, projectTsc, type TypeCheckMode } from './typecheck.js';
import { SourceWatcher, type SourceChanges } from './watch.js';
import { crdFiles, DevInstaller } from './cluster.js';
import { CRD_DIR } from '../manifests/managed-files.js';
import { recordedManifestsOptions } from '../manifests/script.js';

export interface DevOptions {
  projectDir: string;
  /** A kubeconfig file: use its cluster instead of starting a local control plane. */
  kubeconfig?: string;
  /** A context of the kubeconfig (default its current-context); implies the remote mode. */
  context?: string;
  /** Host the API server calls the webhooks at (default 127.0.0.1). */
  webhookHost?: string;
  /** Port of the manager's webhook server (default a free one). */
  webhookPort?: number;
  /** Leave the objects installed on a remote cluster at exit. */
  keep?: boolean;
  /** Apply config/samples at start and whenever a file there changes. */
  applySamples?: boolean;
  /** Run on kubeforge/testing's fake API server (in this process) instead of etcd + kube-apiserver. */
  fake?: boolean;
  /** Milliseconds of quiet after a change before the rebuild (default 100). */
  debounceMs?: number;
  /**
   * How the type-check gates a restart: `async` (default) restarts on the transpiled build and
   * reports type errors when the check ends; `strict` restarts only on a build that type-checks;
   * `off` never runs it.
   */
  typeCheck?: TypeCheckMode;
  color?: boolean;
  out: (text: string) => void;
  err: (text: string) => void;
}

/** What one save did, for the log and for bench/dev.ts. */
export interface RebuildResult {
  ok: boolean;
  /** The build's number (1 is the start's build). */
  build: number;
  files: string[];
  /** ms from the first change seen to the new manager running (ok only). */
  saveToRunningMs?: number;
  manifestsMs?: number;
  /** The file-by-file transpile. */
  compileMs?: number;
  /** The type-check, when the restart waited for it (strict). */
  typeCheckMs?: number;
  restartMs?: number;
  crdsApplied: string[];
}

export const DEV_DIR = '.kubeforge/dev';

/** The build the manager runs: its number, when it started running, and the files of its save. */
/** What the live log reads of a core/v1 Event. */
interface WatchedEvent {
  type?: string;
  reason?: string;
  message?: string;
  involvedObject?: { kind?: string; namespace?: string; name?: string };
}

interface RunningBuild {
  id: number;
  since: number;
  pid?: number;
}

/** How long a new manager gets to report "manager started". */
const RUNNING_TIMEOUT_MS = 60_000;

/**
 * The flags of package.json's `manifests` script that change what manifests writes, as
 * src/manifests/script.ts reads them (the manifests pipeline applies them to every run itself).
 */
export function recordedManifestsFlags(projectDir: string): {
  maxDescLen?: number;
  embeddedObjectMeta?: boolean;
  k8sVersion?: string;
} {
  let text: string | undefined;
  try {
    text = readFileSync(join(projectDir, 'package.json'), 'utf8');
  } catch {
    return {};
  }
  return recordedManifestsOptions(text);
}

function clock(): string {
  return new Date().toISOString().slice(11, 23);
}

const ms = (n: number) => (n < 1000 ? `${Math.round(n)} ms` : `${(n / 1000).toFixed(2)} s`);

export class DevSession {
  readonly projectDir: string;
  readonly devDir: string;
  private env?: TestEnvironment;
  private fakeServer?: FakeAPIServer;
  private kc?: KubeConfig;
  private kubeconfigFile?: string;
  private installer?: DevInstaller;
  private child?: ManagerChild;
  private watcher?: SourceWatcher;
  private pending: SourceChanges = new Map();
  private firstChangeAt = 0;
  private busy?: Promise<void>;
  private lock?: SessionLock;
  private transpiler?: Transpiler;
  private tsc?: ProjectTsc;
  private buildSeq = 0;
  private running?: RunningBuild;
  private events?: { destroy: () => void };
  private stopped = false;
  private certDir = '';
  private webhookPort = 0;
  /** Called after every rebuild (bench and tests). */
  onRebuild?: (r: RebuildResult) => void;
  /** Called with every manager log line (bench and tests). */
  onManagerLine?: (l: ManagerLine) => void;

  constructor(readonly options: DevOptions) {
    this.projectDir = resolve(options.projectDir);
    this.devDir = join(this.projectDir, DEV_DIR);
  }

  private log(tag: string, text: string): void {
    this.options.out(`${clock()} ${tag.padEnd(8)} ${text}\n`);
  }

  get remote(): boolean {
    return this.options.kubeconfig !== undefined || this.options.context !== undefined;
  }

  get kubeconfigPath(): string | undefined {
    return this.kubeconfigFile;
  }

  get managerPid(): number | undefined {
    return this.child?.running ? this.child.pid : undefined;
  }

  get controlPlanePids(): { etcd?: number; apiserver?: number } {
    return this.env?.pids ?? {};
  }

  /** Checks the project, fails with a located KF14xx diagnostic before anything is started. */
  private checkProject(): void {
    const p = this.projectDir;
    if (!existsSync(join(p, 'PROJECT')) || !existsSync(join(p, 'tsconfig.json'))) {
      throw new DiagnosticError(
        error('KF1400', `${p} is not a kubeforge project (no PROJECT or tsconfig.json)`, {
          hint: 'run kubeforge dev in the folder kubeforge init made, or pass --project <dir>',
        }),
      );
    }
    if (!existsSync(join(p, 'src/main.ts'))) {
      throw new DiagnosticError(
        error('KF1400', 'the project has no src/main.ts: kubeforge dev runs the manager it defines', {
          file: join(p, 'src'),
          hint: 'kubeforge init scaffolds src/main.ts; restore it',
        }),
      );
    }
    if (!existsSync(join(p, 'node_modules/kubeforge/package.json')) || !projectTsc(p)) {
      throw new DiagnosticError(
        error(
          'KF1401',
          "the project's dependencies are not installed (no node_modules/kubeforge or node_modules/.bin/tsc): the manager cannot run",
          { file: join(p, 'package.json'), hint: 'run npm install (or make install-deps) in the project first' },
        ),
      );
    }
  }

  async start(): Promise<void> {
    const started = Date.now();
    this.checkProject();
    try {
      await this.connect();
      await this.issueCertificate();
      this.log(
        'dev',
        `webhooks: https://${this.options.webhookHost ?? '127.0.0.1'}:${this.webhookPort} (certificate in ${relative(this.projectDir, this.certDir)})`,
      );
      // First manifests and a whole build by the project's tsc, side by side (seconds: say so first).
      this.log('build', "manifests and a first build with the project's tsc ...");
      const outDir = join(this.devDir, 'build');
      this.transpiler = new Transpiler(this.projectDir, outDir);
      this.tsc = new ProjectTsc(this.projectDir, outDir);
      const [man, comp] = await Promise.all([this.manifests(), this.tsc.build(this.typeCheck === 'strict')]);
      if (man.diagnostics) throw new DiagnosticError(man.diagnostics);
      if (!comp.ok && (this.typeCheck === 'strict' || !existsSync(join(outDir, 'src/main.js'))))
        throw new DiagnosticError(
          error('KF1405', `the project does not compile:\n${comp.text.trimEnd()}`, {
            file: join(this.projectDir, 'tsconfig.json'),
            hint: 'fix the errors above, then run kubeforge dev again',
          }),
        );
      if (!comp.ok) this.typeErrors(1, comp.text, comp.ms);
      this.log(
        'manifests',
        `${man.changed.length ? `${man.changed.length} file(s) updated` : 'up to date'} (${ms(man.ms)}); built in ${ms(comp.ms)}`,
      );
      let crds: string[], roles: string[], hooks: string[];
      try {
        const installer = this.devInstaller();
        crds = await installer.applyCRDs(this.projectDir, crdFiles(this.projectDir));
        roles = await installer.applyRBAC(this.projectDir);
        hooks = await installer.applyWebhooks(this.projectDir);
      } catch (e) {
        throw new DiagnosticError(
          error('KF1408', `applying the project's manifests to the cluster failed: ${(e as Error).message}`, {
            file: join(this.projectDir, 'config'),
            hint: 'the API server says why above; fix the markers (or config/) and run kubeforge dev again',
          }),
        );
      }
      this.log(
        'apply',
        `${crds.length} CRD(s), ${roles.length} ClusterRole(s), ${hooks.length} webhook configuration(s) (server-side, field manager kubeforge-dev)`,
      );
      this.log('dev', 'starting the manager ...');
      try {
        await this.startChild(++this.buildSeq);
      } catch (e) {
        throw new DiagnosticError(
          error('KF1406', `the manager did not start: ${(e as Error).message}`, {
            file: join(this.projectDir, 'src/main.ts'),
            hint: 'fix the code (npm run build && npm start shows the same), then run kubeforge dev again',
          }),
        );
      }
      this.watchEvents();
      if (this.options.applySamples) {
        await this.samples();
        this.watchSamples();
      }
      await this.watchSources();
      // The analysis (ts-morph's compiler) loads now, not on the first save (the start's manifests
      // run usually answers from its cache without it).
      void import('../analysis/analyze.js').catch(() => {});
      this.log(
        'dev',
        `manager running (pid ${this.child?.pid}, build 1) ${ms(Date.now() - started)} after start; watching src/ (type-check ${this.typeCheck}; Ctrl-C stops)`,
      );
    } catch (e) {
      await this.stop().catch(() => {});
      // A start that failed leaves the disk as it was: no .kubeforge/dev when there was none.
      if (this.createdDevDir) rmSync(this.devDir, { recursive: true, force: true });
      throw e;
    }
  }

  private createdDevDir = false;

  /** .kubeforge/dev, made (and ignored by git whatever the project's .gitignore says) once the target is known good. */
  private ensureDevDir(): void {
    if (!existsSync(this.devDir)) this.createdDevDir = true;
    mkdirSync(this.devDir, { recursive: true });
    try {
      this.lock = SessionLock.acquire(this.devDir, (rec, killed) =>
        this.log(
          'dev',
          `a previous session (pid ${rec.pid}, started ${rec.started}) ended without stopping: ${
            killed.length
              ? `stopped what it left running (pids ${killed.join(', ')})`
              : 'nothing of it was still running'
          }, removed its plane data and kubeconfig`,
        ),
      );
    } catch (e) {
      if (!(e instanceof LockHeld)) throw e;
      throw new DiagnosticError(
        error('KF1409', `${e.message}: one kubeforge dev per project`, {
          file: join(this.devDir, 'lock'),
          hint: `stop the other session (kill ${e.other.pid}), or run this one in another project folder`,
        }),
      );
    }
    this.lock.startReaper();
    writeFileSync(
      join(this.devDir, '.gitignore'),
      '# kubeforge dev: local control plane, certificates and build; safe to delete\n*\n',
    );
  }

  private async connect(): Promise<void> {
    if (this.remote) {
      const kc = new KubeConfig();
      const file =
        this.options.kubeconfig ??
        (process.env.KUBECONFIG ?? '').split(delimiter).filter(Boolean)[0] ??
        join(homedir(), '.kube', 'config');
      if (!existsSync(file))
        throw new DiagnosticError(
          error('KF1402', `kubeconfig ${file} does not exist`, {
            hint: 'pass --kubeconfig <file>, or leave out --kubeconfig/--context to start a local control plane',
          }),
        );
      try {
        kc.loadFromFile(file);
      } catch (e) {
        throw new DiagnosticError(
          error('KF1402', `kubeconfig ${file} cannot be read: ${(e as Error).message}`, {
            file,
            hint: 'pass a valid kubeconfig with --kubeconfig',
          }),
        );
      }
      if (this.options.context !== undefined) {
        if (!kc.getContexts().some((c) => c.name === this.options.context)) {
          throw new DiagnosticError(
            error(
              'KF1402',
              `kubeconfig ${file} has no context "${this.options.context}" (it has: ${
                kc
                  .getContexts()
                  .map((c) => c.name)
                  .join(', ') || 'none'
              })`,
              { file, hint: 'pick one of its contexts with --context' },
            ),
          );
        }
        kc.setCurrentContext(this.options.context);
      }
      const rest = new RestClient(kc);
      try {
        await rest.request('GET', '/version', { timeoutMs: 10_000 });
      } catch (e) {
        throw new DiagnosticError(
          error(
            'KF1403',
            `the cluster of ${file} (context ${kc.getCurrentContext()}) cannot be reached: ${(e as Error).message}`,
            { file, hint: 'check the cluster is up and the kubeconfig current (kubectl get --raw /version)' },
          ),
        );
      } finally {
        rest.close();
      }
      this.kc = kc;
      this.ensureDevDir();
      // The manager gets a kubeconfig of its own with the chosen context current.
      this.kubeconfigFile = join(this.devDir, 'kubeconfig');
      writeFileSync(this.kubeconfigFile, kc.exportConfig(), { mode: 0o600 });
      this.log('cluster', `${kc.getCurrentCluster()?.server} (context ${kc.getCurrentContext()} of ${file})`);
      return;
    }
    if (this.options.fake) return this.connectFake();
    const { TestEnvironment } = await import('../testing/environment.js');
    // The plane's folders (etcd data, certificates, logs) go under .kubeforge/dev/plane: TestEnvironment makes them in the temp folder.
    this.ensureDevDir();
    const planeRoot = join(this.devDir, 'plane');
    mkdirSync(planeRoot, { recursive: true });
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = planeRoot;
    this.log('cluster', 'starting etcd + kube-apiserver (KUBEBUILDER_ASSETS) ...');
    const t = Date.now();
    try {
      this.env = new TestEnvironment({
        celEnforcement: false,
        joinSharedControlPlane: false,
        useExistingCluster: false,
      });
      this.kc = await this.env.start();
    } catch (e) {
      throw new DiagnosticError(
        error('KF1404', `the local control plane did not start: ${(e as Error).message}`, {
          hint: 'run kubeforge setup-envtest and export KUBEBUILDER_ASSETS as it says, or pass --kubeconfig to use a cluster',
        }),
      );
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
    this.recordChildren();
    this.kubeconfigFile = join(this.devDir, 'kubeconfig');
    writeFileSync(this.kubeconfigFile, readFileSync(this.env.kubeconfigPath), { mode: 0o600 });
    this.log(
      'cluster',
      `${this.env.serverURL} up in ${ms(Date.now() - t)} (etcd pid ${this.env.pids.etcd}, kube-apiserver pid ${this.env.pids.apiserver})`,
    );
    this.log('cluster', `kubectl: export KUBECONFIG=${this.kubeconfigFile}`);
  }

  /**
   * `--fake`: kubeforge/testing's fake API server in this process, over HTTP on 127.0.0.1. The CRDs,
   * role and webhook configurations are applied to it as to a cluster; it serves the CRDs and
   * calls the manager's webhooks (docs/testing.md says what else it does and does not do).
   */
  private async connectFake(): Promise<void> {
    const { FakeAPIServer } = await import('../testing/fake/index.js');
    this.ensureDevDir();
    this.fakeServer = await FakeAPIServer.start();
    const text = [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: kubeforge-dev-fake',
      `  cluster: { server: "${this.fakeServer.url}", insecure-skip-tls-verify: true }`,
      'users:',
      '- name: kubeforge-dev-fake',
      '  user: {}',
      'contexts:',
      '- name: kubeforge-dev-fake',
      '  context: { cluster: kubeforge-dev-fake, user: kubeforge-dev-fake, namespace: default }',
      'current-context: kubeforge-dev-fake',
      '',
    ].join('\n');
    this.kubeconfigFile = join(this.devDir, 'kubeconfig');
    writeFileSync(this.kubeconfigFile, text, { mode: 0o600 });
    const kc = new KubeConfig();
    kc.loadFromString(text);
    this.kc = kc;
    this.log('cluster', `${this.fakeServer.url}: kubeforge/testing's fake API server in this process (--fake)`);
    this.log('cluster', `kubectl: export KUBECONFIG=${this.kubeconfigFile}`);
  }

  private async issueCertificate(): Promise<void> {
    const host = this.options.webhookHost ?? '127.0.0.1';
    this.webhookPort = this.options.webhookPort ?? (await freePorts(1))[0];
    this.certDir = join(this.devDir, 'certs');
    mkdirSync(this.certDir, { recursive: true });
    const ca = generateCACert({ commonName: 'kubeforge-dev-ca' });
    const leaf = generateSignedCert(ca, { hosts: [...new Set([host, '127.0.0.1', 'localhost'])], commonName: host });
    writeFileSync(join(this.certDir, 'ca.crt'), ca.cert);
    writeFileSync(join(this.certDir, 'tls.crt'), leaf.cert);
    writeFileSync(join(this.certDir, 'tls.key'), leaf.key, { mode: 0o600 });
    this.installer = new DevInstaller(this.kubeConfig(), { host, port: this.webhookPort, caPem: ca.cert });
  }

  /** The incremental manifests run; diagnostics instead of a throw on an error. */
  private async manifests(): Promise<{
    changed: string[];
    ms: number;
    diagnostics?: readonly Diagnostic[];
    warnings: Diagnostic[];
  }> {
    const t = Date.now();
    const { runManifests } = await import('../manifests/pipeline.js');
    try {
      const run = await runManifests({ projectDir: this.projectDir, ...recordedManifestsFlags(this.projectDir) });
      return { changed: run.changes.map((c) => c.path), ms: Date.now() - t, warnings: run.warnings };
    } catch (e) {
      if (e instanceof DiagnosticError)
        return { changed: [], ms: Date.now() - t, diagnostics: e.diagnostics, warnings: [] };
      throw e;
    }
  }

  get typeCheck(): TypeCheckMode {
    return this.options.typeCheck ?? 'async';
  }

  /** Type errors that do not hold the manager (the async mode): printed located, as a warning. */
  private typeErrors(build: number, text: string, took: number): void {
    this.options.err(
      formatDiagnostics(
        [
          warning('KF1410', `type errors in build ${build} (${ms(took)}):\n${text.trimEnd()}`, {
            file: join(this.projectDir, 'tsconfig.json'),
            hint: 'the manager runs this build anyway; fix them and save (--type-check strict keeps the last build that type-checks running instead)',
          }),
        ],
        { color: this.options.color, cwd: this.projectDir },
      ),
    );
    this.log('typecheck', `build ${build}: type errors (above); the manager runs it anyway`);
  }

  /** The manager that runs now, for the messages of a build that does not replace it. */
  private runningNow(): string {
    const r = this.running;
    if (!r || !this.child?.running) return 'no manager runs (the last one exited)';
    const ago = Math.round((Date.now() - r.since) / 1000);
    return `the running manager (pid ${r.pid ?? '-'}) is the previous build, build ${r.id}, running since ${new Date(r.since).toISOString().slice(11, 19)} (${ago < 60 ? `${ago} s` : `${Math.floor(ago / 60)} min ${ago % 60} s`} ago)`;
  }

  /** A manager process with the dependencies loaded, waiting for launch(). */
  private spawnStandby(): ManagerChild {
    const child = new ManagerChild({
      cwd: this.projectDir,
      env: { KUBEFORGE_DEV: '1' },
      onLine: (l) => this.managerLine(l),
    });
    void child.whenExited.then(() => {
      if (child.launched && !child.stopping && !this.stopped)
        this.log('manager', 'exited; fix the code and save: the next build starts it again');
      this.recordChildren();
    });
    return child;
  }

  /** The lock lists every process the session started, for the watchdog. */
  private recordChildren(): void {
    if (this.stopped) return;
    this.lock?.setChildren([
      this.env?.pids.etcd,
      this.env?.pids.apiserver,
      this.child?.running ? this.child.pid : undefined,
      this.standby?.running ? this.standby.pid : undefined,
    ]);
  }

  private async startChild(build: number): Promise<ManagerChild> {
    const entry = join(this.devDir, 'build/src/main.js');
    const child = this.standby?.running ? this.standby : this.spawnStandby();
    this.standby = undefined;
    this.child = child;
    child.launch(
      entry,
      [
        `--kubeconfig=${this.kubeconfigFile}`,
        `--webhook-cert-path=${this.certDir}`,
        `--webhook-port=${this.webhookPort}`,
        '--health-probe-bind-address=0',
        '--metrics-bind-address=0',
      ],
      { KUBEFORGE_DEV_BUILD: String(build) },
    );
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        child.whenRunning,
        new Promise((_, rej) => {
          timer = setTimeout(
            () =>
              rej(
                new Error(
                  `it did not log "manager started" within ${RUNNING_TIMEOUT_MS / 1000} s (caches not syncing? a Kind without its CRD?); its last lines:\n${child.tail.join('\n')}`,
                ),
              ),
            RUNNING_TIMEOUT_MS,
          );
        }),
      ]);
    } catch (e) {
      await child.stop(1_000);
      throw e;
    } finally {
      clearTimeout(timer);
    }
    this.running = { id: build, since: Date.now(), pid: child.pid };
    // The next one loads while this one runs.
    if (!this.stopped) this.standby = this.spawnStandby();
    this.recordChildren();
    return child;
  }

  private standby?: ManagerChild;

  // The parts start() makes before anything uses them: each names the broken order if it did not.
  private kubeConfig(): KubeConfig {
    if (!this.kc) throw new Error('kubeforge dev: no cluster connection yet (start() makes it first)');
    return this.kc;
  }
  private devInstaller(): DevInstaller {
    if (!this.installer) throw new Error('kubeforge dev: no installer yet (start() makes it first)');
    return this.installer;
  }
  private projectTranspiler(): Transpiler {
    if (!this.transpiler) throw new Error('kubeforge dev: no transpiler yet (start() makes it first)');
    return this.transpiler;
  }
  private projectTsc(): ProjectTsc {
    if (!this.tsc) throw new Error('kubeforge dev: no type checker yet (start() makes it first)');
    return this.tsc;
  }

  private managerLine(l: ManagerLine): void {
    this.onManagerLine?.(l);
    if (!l.json) {
      this.log('manager', l.text);
      return;
    }
    if (l.json.msg === 'kubeforge-dev:reconciled') {
      const { controller, result, count } = l.json;
      this.log('reconcile', `${controller}: ${count} ${result === 'success' ? 'done' : result}`);
      return;
    }
    const { msg, message, level } = l.json;
    const rest = { ...l.json };
    for (const k of ['msg', 'message', 'level', 'ts', 'time', 'caller', 'pid', 'hostname', 'v']) delete rest[k];
    const lvl =
      typeof level === 'string'
        ? level
        : typeof level === 'number'
          ? level >= 50
            ? 'error'
            : level >= 40
              ? 'warn'
              : level >= 30
                ? 'info'
                : 'debug'
          : 'info';
    const kv = Object.entries(rest)
      .map(([k, val]) => `${k}=${typeof val === 'string' ? val : JSON.stringify(val)}`)
      .join(' ');
    this.log(lvl === 'info' ? 'manager' : `manager:${lvl}`, `${msg ?? message ?? ''}${kv ? `  ${kv}` : ''}`);
  }

  /** Events of every namespace, as they come (the live log's "event" lines). */
  private watchEvents(): void {
    const rest = new RestClient(this.kubeConfig());
    let req: { destroy: () => void } | undefined;
    let closed = false;
    this.events = {
      destroy: () => {
        closed = true;
        req?.destroy();
        rest.close();
      },
    };
    void (async () => {
      try {
        const list = await rest.get('/api/v1/events?limit=1');
        const { res, req: r } = await rest.stream(
          `/api/v1/events?watch=true&allowWatchBookmarks=false&resourceVersion=${list.metadata.resourceVersion}`,
        );
        req = r;
        if (closed) return r.destroy();
        createInterfaceLines(res, (line) => {
          try {
            const ev = JSON.parse(line) as { type: string; object: WatchedEvent };
            if (ev.type !== 'ADDED' && ev.type !== 'MODIFIED') return;
            const o = ev.object;
            const inv = o.involvedObject ?? {};
            this.log(
              'event',
              `${o.type} ${o.reason} ${String(inv.kind ?? '').toLowerCase()}/${inv.namespace ? `${inv.namespace}/` : ''}${inv.name}: ${o.message ?? ''}`,
            );
          } catch {
            /* a partial line: skip */
          }
        });
      } catch {
        /* no event log: the loop works without it */
      }
    })();
  }

  private async watchSources(): Promise<void> {
    this.watcher = new SourceWatcher({
      projectDir: this.projectDir,
      folders: ['src'],
      debounceMs: this.options.debounceMs ?? 100,
      onBatch: (changes, firstAt) => {
        if (this.stopped) return;
        if (this.pending.size === 0) this.firstChangeAt = firstAt;
        for (const [file, kind] of changes) this.pending.set(file, kind);
        this.kick();
      },
      onError: (e) => this.log('error', `watching src/: ${e.message}`),
    });
    await this.watcher.start();
  }

  /** --apply-samples: config/samples applied (the manager runs: its webhooks see them). */
  private async samples(): Promise<void> {
    try {
      const { applied, skipped } = await this.devInstaller().applySamples(this.projectDir);
      this.log(
        'samples',
        `${applied.length ? `applied ${applied.join(', ')}` : 'nothing to apply'}${skipped.length ? `; skipped (not a Kind of this project): ${skipped.join(', ')}` : ''}`,
      );
    } catch (e) {
      this.log('error', `applying config/samples failed: ${(e as Error).message}`);
    }
  }

  private watchSamples(): void {
    const dir = join(this.projectDir, 'config/samples');
    if (!existsSync(dir)) return;
    let timer: NodeJS.Timeout | undefined;
    this.samplesWatcher = watch(dir, () => {
      if (this.stopped) return;
      clearTimeout(timer);
      timer = setTimeout(() => {
        this.log('change', 'config/samples');
        void this.samples();
      }, this.options.debounceMs ?? 100);
    });
  }

  private samplesWatcher?: FSWatcher;

  /** Stops watching src/ (the manager and cluster stay as they are); bench/dev.ts, before it edits for its cold baseline. */
  async pauseWatching(): Promise<void> {
    await this.watcher?.close();
    this.watcher = undefined;
    this.pending.clear();
  }

  /** Runs a rebuild for what is pending; a save during a rebuild is picked up after it. */
  private kick(): void {
    if (this.busy || this.stopped || this.pending.size === 0) return;
    const changes = new Map([...this.pending].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    const at = this.firstChangeAt;
    this.pending.clear();
    this.busy = this.rebuild(changes, at)
      .catch((e) => this.log('error', (e as Error).message))
      .finally(() => {
        this.busy = undefined;
        if (this.pending.size && !this.stopped) this.kick();
      });
  }

  /** The manifests, then the apply of what changed: CRDs, role and webhooks reach the cluster even when the code does not compile. */
  private async manifestsApplied(result: RebuildResult): Promise<Awaited<ReturnType<DevSession['manifests']>>> {
    const man = await this.manifests();
    if (man.warnings.length)
      this.options.err(formatDiagnostics(man.warnings, { color: this.options.color, cwd: this.projectDir }));
    if (man.diagnostics) return man;
    if (man.changed.length) this.log('manifests', `${man.changed.join(', ')} (${ms(man.ms)})`);
    const changedCRDs = man.changed.filter((p) => p.startsWith(`${CRD_DIR}/`) && existsSync(join(this.projectDir, p)));
    if (changedCRDs.length) {
      result.crdsApplied = await this.devInstaller().applyCRDs(this.projectDir, changedCRDs);
      this.log('apply', `CRD ${result.crdsApplied.join(', ')}`);
    }
    if (man.changed.includes('config/rbac/role.yaml'))
      this.log('apply', `ClusterRole ${(await this.devInstaller().applyRBAC(this.projectDir)).join(', ')}`);
    if (man.changed.includes('config/webhook/manifests.yaml'))
      this.log(
        'apply',
        `${(await this.devInstaller().applyWebhooks(this.projectDir)).join(', ') || 'no webhook configurations'}`,
      );
    return man;
  }

  /** A build that does not replace the running manager: its located errors, and which build runs instead, since when. */
  private failed(what: string, diagnostics: Diagnostic[]): void {
    this.options.err(formatDiagnostics(diagnostics, { color: this.options.color, cwd: this.projectDir }));
    this.log('error', `${what}: ${this.runningNow()}; save a fix`);
  }

  private async rebuild(changes: SourceChanges, at: number): Promise<void> {
    const files = [...changes.keys()];
    const changed = files.filter((f) => changes.get(f) === 'changed');
    const deleted = files.filter((f) => changes.get(f) === 'deleted');
    const build = ++this.buildSeq;
    this.log(
      'change',
      `build ${build}: ${files.map((f) => (changes.get(f) === 'deleted' ? `${f} (deleted)` : f)).join(', ')}`,
    );
    const result: RebuildResult = { ok: false, build, files, crdsApplied: [] };
    const after: (() => void)[] = [];
    try {
      // 1. The saved files transpiled on their own (milliseconds), before anything else runs.
      let tr: ReturnType<Transpiler['build']>;
      try {
        tr = this.projectTranspiler().build(changed, deleted);
      } catch (e) {
        tr = { written: [], removed: [], unchanged: 0, errors: `${(e as Error).message}\n`, ms: 0 };
      }
      result.compileMs = tr.ms;
      // 2. The type-check: before the restart with --type-check strict; else once the restart is
      // done (on two cores, a check beside the manager's start slows the start); 3. manifests and
      // their apply.
      const check = this.typeCheck === 'strict' ? this.projectTsc().check() : undefined;
      if (this.typeCheck === 'async' && !tr.errors) after.push(() => this.checkLater(build));
      const man = await this.manifestsApplied(result);
      result.manifestsMs = man.ms;
      if (tr.errors) {
        return this.failed(`build ${build} does not compile`, [
          error('KF1405', `the project does not compile:\n${tr.errors.trimEnd()}`, {
            file: join(this.projectDir, changed[0] ?? 'tsconfig.json'),
            hint: 'fix the errors and save',
          }),
        ]);
      }
      if (man.diagnostics) return this.failed(`build ${build}: manifests failed`, [...man.diagnostics]);
      if (check) {
        const c = await check;
        result.typeCheckMs = c.ms;
        if (c.cancelled) return this.log('typecheck', `build ${build}: a newer save replaces it`);
        if (!c.ok)
          return this.failed(`build ${build} does not type-check (--type-check strict)`, [
            error('KF1405', `the project does not compile (${ms(c.ms)}):\n${c.text.trimEnd()}`, {
              file: join(this.projectDir, changed[0] ?? 'tsconfig.json'),
              hint: 'fix the errors and save',
            }),
          ]);
      }
      if (tr.written.length === 0 && tr.removed.length === 0 && man.changed.length === 0) {
        // A save that changed no output (the same bytes saved again, a second event for one save).
        this.log(
          'compile',
          `build ${build}: no output changed; ${this.runningNow().replace('is the previous build, ', 'runs ')}`,
        );
        return;
      }
      this.log(
        'compile',
        `build ${build}: ${tr.written.length + tr.removed.length} file(s) of output changed (${ms(tr.ms)})`,
      );
      const t = Date.now();
      if (!(await this.restart(build))) return;
      result.restartMs = Date.now() - t;
      result.saveToRunningMs = Date.now() - at;
      result.ok = true;
      this.log(
        'ready',
        `manager pid ${this.child?.pid} runs build ${build} (${files.join(', ')}): save -> running in ${ms(result.saveToRunningMs)} (manifests ${ms(man.ms)} | transpile ${ms(tr.ms)}${result.typeCheckMs !== undefined ? ` | type-check ${ms(result.typeCheckMs)}` : ''} | restart ${ms(result.restartMs)})`,
      );
    } finally {
      for (const f of after) f();
      this.onRebuild?.(result);
    }
  }

  /** The async mode's type-check of `build`, reported when it ends (unless a newer check replaced it). */
  private checkLater(build: number): void {
    if (this.stopped) return;
    void this.projectTsc()
      .check()
      .then((c) => {
        if (c.cancelled || this.stopped) return;
        if (c.ok) this.log('typecheck', `build ${build}: ok (${ms(c.ms)})`);
        else this.typeErrors(build, c.text, c.ms);
      });
  }

  /**
   * Replaces the manager with one on `build`. When the transpiled build does not load (what only a
   * whole-program compile gets right, such as a type re-exported without `export type`), the
   * project's tsc builds it whole and the manager starts once more on that.
   */
  private async restart(build: number): Promise<boolean> {
    await this.child?.stop();
    let first: Error;
    try {
      await this.startChild(build);
      return true;
    } catch (e) {
      first = e as Error;
    }
    this.log(
      'build',
      `build ${build}'s manager did not start; building the whole project with its tsc and trying once more ...`,
    );
    const whole = await this.projectTsc().build(this.typeCheck === 'strict');
    if (!whole.ok && this.typeCheck !== 'off') this.typeErrors(build, whole.text, whole.ms);
    try {
      await this.startChild(build);
      return true;
    } catch (e) {
      this.options.err(
        formatDiagnostics(
          [
            error('KF1406', `the new manager did not start: ${(e as Error).message}`, {
              file: join(this.projectDir, 'src/main.ts'),
              hint: `fix the code and save; kubeforge dev starts it again (on the transpiled build: ${first.message.split('\n')[0]})`,
            }),
          ],
          { color: this.options.color, cwd: this.projectDir },
        ),
      );
      return false;
    }
  }

  /** Stops everything the session started; idempotent. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.child || this.env || this.installer) this.log('dev', 'stopping ...');
    await this.watcher?.close();
    this.tsc?.cancel();
    this.samplesWatcher?.close();
    await this.busy?.catch(() => {});
    this.events?.destroy();
    await this.standby?.stop();
    if (this.child) {
      await this.child.stop();
      this.log('dev', 'manager stopped');
    }
    if (this.installer) {
      if (this.remote && !this.options.keep) {
        const gone = await this.installer.removeCreated().catch((e) => {
          this.log('error', `removing what dev installed failed: ${(e as Error).message}`);
          return [];
        });
        this.log(
          'dev',
          gone.length
            ? `removed from the cluster: ${gone.map((o) => `${o.kind} ${o.name}`).join(', ')}`
            : 'nothing of ours to remove from the cluster',
        );
      } else if (this.remote) {
        this.log(
          'dev',
          `--keep: left on the cluster: ${this.installer.createdObjects.map((o) => `${o.kind} ${o.name}`).join(', ') || 'nothing'}`,
        );
      }
      this.installer.close();
    }
    if (this.env) {
      await this.env.stop();
      this.log('dev', 'local control plane stopped');
    }
    if (this.fakeServer) {
      await this.fakeServer.stop();
      this.log('dev', 'fake API server stopped');
    }
    // Only a session holding the lock owns the plane data and kubeconfig: one refused at start
    // (another session runs here) leaves them to that one.
    if (this.lock) {
      rmSync(join(this.devDir, 'plane'), { recursive: true, force: true });
      if (this.kubeconfigFile) rmSync(this.kubeconfigFile, { force: true });
      this.lock.release();
      this.lock = undefined;
    }
  }
}

function createInterfaceLines(stream: NodeJS.ReadableStream, onLine: (line: string) => void): void {
  let buf = '';
  stream.setEncoding?.('utf8');
  stream.on('data', (c: string) => {
    buf += c;
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      if (line.trim()) onLine(line);
    }
  });
  stream.on('error', () => {});
}
