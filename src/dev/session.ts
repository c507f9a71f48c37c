/**
 * `kubeforge dev`: the inner loop. One session:
 *   1. a target cluster: a local control plane (kubeforge/testing's etcd + kube-apiserver, its data
 *      under .kubeforge/dev, a kubeconfig written there) or the cluster of a kubeconfig/context;
 *   2. a local CA and serving certificate (.kubeforge/dev/certs) for the manager's webhook server;
 *   3. `manifests`, then the CRDs, ClusterRole and webhook configurations applied server-side
 *      (webhooks and conversion pointed at https://<webhook-host>:<port> with the CA as caBundle);
 *   4. the project compiled by its own tsc (incremental, into .kubeforge/dev/build, nothing emitted
 *      on a type error), and the manager started as a child process on it;
 *   5. src/ watched: each save runs the incremental manifests and tsc side by side, applies what
 *      changed and restarts the manager; an error is printed located and the old manager keeps
 *      running;
 *   6. on stop (SIGINT/SIGTERM): the manager stopped, what the session created on a remote cluster
 *      removed (unless --keep), the local plane stopped, the kubeconfig and plane data removed.
 */
import { Worker } from 'node:worker_threads';
import { existsSync, mkdirSync, readFileSync, rmSync, watch, writeFileSync, type FSWatcher } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join, relative, resolve, sep } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { DiagnosticError, error, formatDiagnostics, type Diagnostic } from '../diagnostics/index.js';
import { generateCACert, generateSignedCert } from '../runtime/manager/selfsigned.js';
import { RestClient } from '../runtime/client/rest.js';
import type { TestEnvironment } from '../testing/environment.js';
import { freePorts } from '../testing/process.js';
import { ManagerChild, type ManagerLine } from './child.js';
import type { CompileResult } from './compiler.js';
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
  /** Milliseconds of quiet after a change before the rebuild (default 100). */
  debounceMs?: number;
  color?: boolean;
  out: (text: string) => void;
  err: (text: string) => void;
}

/** What one save did, for the log and for bench/dev.ts. */
export interface RebuildResult {
  ok: boolean;
  files: string[];
  /** ms from the first change seen to the new manager running (ok only). */
  saveToRunningMs?: number;
  manifestsMs?: number;
  compileMs?: number;
  restartMs?: number;
  crdsApplied: string[];
}

export const DEV_DIR = '.kubeforge/dev';

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
  private kc?: KubeConfig;
  private kubeconfigFile?: string;
  private installer?: DevInstaller;
  private child?: ManagerChild;
  private watcher?: FSWatcher;
  private pending = new Set<string>();
  private firstChangeAt = 0;
  private timer?: NodeJS.Timeout;
  private busy?: Promise<void>;
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
    if (!existsSync(join(p, 'node_modules/kubeforge/package.json'))) {
      throw new DiagnosticError(
        error(
          'KF1401',
          "the project's dependencies are not installed (no node_modules/kubeforge): the manager cannot run",
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
      // First manifests and compile, side by side (a cold compile takes seconds: say so first).
      this.log('build', 'manifests and the first compile of the project ...');
      const [man, comp] = await Promise.all([this.manifests(), this.compile()]);
      if (man.diagnostics) throw new DiagnosticError(man.diagnostics);
      if (comp.output !== undefined)
        throw new DiagnosticError(
          error('KF1405', `the project does not compile:\n${comp.output.trimEnd()}`, {
            file: join(this.projectDir, 'tsconfig.json'),
            hint: 'fix the errors above, then run kubeforge dev again',
          }),
        );
      this.log(
        'manifests',
        `${man.changed.length ? `${man.changed.length} file(s) updated` : 'up to date'} (${ms(man.ms)}); compiled in ${ms(comp.ms)}`,
      );
      let crds: string[], roles: string[], hooks: string[];
      try {
        crds = await this.installer!.applyCRDs(this.projectDir, crdFiles(this.projectDir));
        roles = await this.installer!.applyRBAC(this.projectDir);
        hooks = await this.installer!.applyWebhooks(this.projectDir);
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
        await this.startChild();
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
      this.watchSources();
      // The analysis (ts-morph's compiler) loads now, not on the first save (the start's manifests
      // run usually answers from its cache without it).
      void import('../analysis/analyze.js').catch(() => {});
      this.log(
        'dev',
        `manager running (pid ${this.child!.pid}) ${ms(Date.now() - started)} after start; watching src/ (Ctrl-C stops)`,
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
    this.kubeconfigFile = join(this.devDir, 'kubeconfig');
    writeFileSync(this.kubeconfigFile, readFileSync(this.env.kubeconfigPath), { mode: 0o600 });
    this.log(
      'cluster',
      `${this.env.serverURL} up in ${ms(Date.now() - t)} (etcd pid ${this.env.pids.etcd}, kube-apiserver pid ${this.env.pids.apiserver})`,
    );
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
    this.installer = new DevInstaller(this.kc!, { host, port: this.webhookPort, caPem: ca.cert });
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

  /** The warm compiler (compile-worker.ts) into .kubeforge/dev/build; `output` is its located report when it failed. */
  private compile(): Promise<{ ms: number; output?: string; emitted: number }> {
    if (!this.worker) {
      this.worker = new Worker(new URL('./compile-worker.js', import.meta.url), {
        workerData: { projectDir: this.projectDir, outDir: join(this.devDir, 'build') },
      });
      this.worker.unref();
    }
    const worker = this.worker;
    const id = ++this.compiles;
    return new Promise((res, rej) => {
      const onMessage = (m: { id: number; result: CompileResult }) => {
        if (m.id !== id) return;
        worker.off('message', onMessage);
        worker.off('error', rej);
        res({ ms: m.result.ms, output: m.result.ok ? undefined : m.result.text, emitted: m.result.emitted });
      };
      worker.on('message', onMessage);
      worker.once('error', rej);
      worker.postMessage({ id });
    });
  }

  private worker?: Worker;
  private compiles = 0;

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
    });
    return child;
  }

  private async startChild(): Promise<ManagerChild> {
    const entry = join(this.devDir, 'build/src/main.js');
    const child = this.standby?.running ? this.standby : this.spawnStandby();
    this.standby = undefined;
    this.child = child;
    child.launch(entry, [
      `--kubeconfig=${this.kubeconfigFile}`,
      `--webhook-cert-path=${this.certDir}`,
      `--webhook-port=${this.webhookPort}`,
      '--health-probe-bind-address=0',
      '--metrics-bind-address=0',
    ]);
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
    // The next one loads while this one runs.
    if (!this.stopped) this.standby = this.spawnStandby();
    return child;
  }

  private standby?: ManagerChild;

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
    const { msg, message, level, ts, time, caller, pid, hostname, v, ...rest } = l.json;
    void ts, time, caller, pid, hostname, v;
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
    const rest = new RestClient(this.kc!);
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
            const ev = JSON.parse(line) as { type: string; object: Record<string, any> };
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

  private watchSources(): void {
    const src = join(this.projectDir, 'src');
    this.watcher = watch(src, { recursive: true }, (_type, name) => {
      if (!name || this.stopped) return;
      const file = String(name);
      if (!/\.(ts|mts|cts|json)$/.test(file)) return;
      if (this.pending.size === 0) this.firstChangeAt = Date.now();
      this.pending.add(`src/${file.split(sep).join('/')}`);
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.kick(), this.options.debounceMs ?? 100);
    });
  }

  /** --apply-samples: config/samples applied (the manager runs: its webhooks see them). */
  private async samples(): Promise<void> {
    try {
      const { applied, skipped } = await this.installer!.applySamples(this.projectDir);
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
  pauseWatching(): void {
    this.watcher?.close();
    this.watcher = undefined;
    clearTimeout(this.timer);
    this.pending.clear();
  }

  /** Runs a rebuild for what is pending; a save during a rebuild is picked up after it. */
  private kick(): void {
    if (this.busy || this.stopped) return;
    const files = [...this.pending].sort();
    const at = this.firstChangeAt;
    this.pending.clear();
    this.busy = this.rebuild(files, at)
      .catch((e) => this.log('error', (e as Error).message))
      .finally(() => {
        this.busy = undefined;
        if (this.pending.size && !this.stopped) this.kick();
      });
  }

  private async rebuild(files: string[], at: number): Promise<void> {
    this.log('change', files.join(', '));
    const result: RebuildResult = { ok: false, files, crdsApplied: [] };
    try {
      // The manifests, then the apply of what changed, run beside the compile: the CRDs, role and
      // webhooks go to the cluster even when the code does not compile (they are what the markers
      // say now), and are there before the new manager starts.
      const applied = this.manifests().then(async (man) => {
        if (man.warnings.length)
          this.options.err(formatDiagnostics(man.warnings, { color: this.options.color, cwd: this.projectDir }));
        if (man.diagnostics) return man;
        if (man.changed.length) this.log('manifests', `${man.changed.join(', ')} (${ms(man.ms)})`);
        const changedCRDs = man.changed.filter(
          (p) => p.startsWith(`${CRD_DIR}/`) && existsSync(join(this.projectDir, p)),
        );
        if (changedCRDs.length) {
          result.crdsApplied = await this.installer!.applyCRDs(this.projectDir, changedCRDs);
          this.log('apply', `CRD ${result.crdsApplied.join(', ')}`);
        }
        if (man.changed.includes('config/rbac/role.yaml'))
          this.log('apply', `ClusterRole ${(await this.installer!.applyRBAC(this.projectDir)).join(', ')}`);
        if (man.changed.includes('config/webhook/manifests.yaml'))
          this.log(
            'apply',
            `${(await this.installer!.applyWebhooks(this.projectDir)).join(', ') || 'no webhook configurations'}`,
          );
        return man;
      });
      const [man, comp] = await Promise.all([applied, this.compile()]);
      result.manifestsMs = man.ms;
      result.compileMs = comp.ms;
      if (man.diagnostics) {
        this.options.err(formatDiagnostics(man.diagnostics, { color: this.options.color, cwd: this.projectDir }));
        this.log(
          'error',
          `manifests failed: the running manager (pid ${this.managerPid ?? '-'}) is the previous build; save a fix`,
        );
        return;
      }
      if (comp.output !== undefined) {
        this.options.err(
          formatDiagnostics(
            [
              error('KF1405', `the project does not compile (${ms(comp.ms)}):\n${comp.output.trimEnd()}`, {
                file: join(this.projectDir, files[0] ?? 'tsconfig.json'),
                hint: 'fix the errors and save',
              }),
            ],
            { color: this.options.color, cwd: this.projectDir },
          ),
        );
        this.log(
          'error',
          `compile failed: the running manager (pid ${this.managerPid ?? '-'}) is the previous build; save a fix`,
        );
        return;
      }
      if (comp.emitted === 0 && man.changed.length === 0) {
        // A save that changed no output (the same bytes saved again, a second event for one save).
        this.log(
          'compile',
          `ok (${ms(comp.ms)}): no output changed, the manager (pid ${this.managerPid ?? '-'}) keeps running`,
        );
        return;
      }
      this.log('compile', `ok (${ms(comp.ms)}, ${comp.emitted} file(s) emitted)`);
      const t = Date.now();
      const old = this.child;
      await old?.stop();
      try {
        await this.startChild();
      } catch (e) {
        this.options.err(
          formatDiagnostics(
            [
              error('KF1406', `the new manager did not start: ${(e as Error).message}`, {
                file: join(this.projectDir, 'src/main.ts'),
                hint: 'fix the code and save; kubeforge dev starts it again',
              }),
            ],
            { color: this.options.color, cwd: this.projectDir },
          ),
        );
        return;
      }
      result.restartMs = Date.now() - t;
      result.saveToRunningMs = Date.now() - at;
      result.ok = true;
      this.log(
        'ready',
        `manager pid ${this.child!.pid} runs the new code: save -> running in ${ms(result.saveToRunningMs)} (manifests ${ms(man.ms)} | compile ${ms(comp.ms)} | restart ${ms(result.restartMs)})`,
      );
    } finally {
      this.onRebuild?.(result);
    }
  }

  /** Stops everything the session started; idempotent. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.child || this.env || this.installer) this.log('dev', 'stopping ...');
    clearTimeout(this.timer);
    this.watcher?.close();
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
    await this.worker?.terminate();
    if (this.env) {
      await this.env.stop();
      this.log('dev', 'local control plane stopped');
    }
    rmSync(join(this.devDir, 'plane'), { recursive: true, force: true });
    if (this.kubeconfigFile) rmSync(this.kubeconfigFile, { force: true });
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
