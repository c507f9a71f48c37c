#!/usr/bin/env node
// `npm run demo`: the Kubebuilder book's CronJob operator (testdata/project), at work.
//   1. build kubeforge when dist/ is missing or older than src/ (scripts/generate-testdata.mjs does);
//   2. regenerate the sample with scripts/generate-testdata.mjs into a temporary folder (or --out),
//      point its kubeforge dependency at `npm pack` of this checkout, npm install, kubeforge
//      manifests, npm run build;
//   3. start a test API server (kubeforge/testing's TestEnvironment: etcd + kube-apiserver from
//      KUBEBUILDER_ASSETS, else provisioned by `kubeforge setup-envtest`) with the sample's CRDs and
//      webhooks, and run the sample's CronJob reconciler and webhooks in a manager in this process,
//      its clock running --speed times faster than the wall clock;
//   4. apply config/samples/batch_v1_cronjob.yaml (every minute) and print, for --duration seconds,
//      the Jobs the operator creates and deletes, the CronJob's status and the events. A bare API
//      server runs no Job controller: the demo marks each Job Complete after --job-seconds;
//   5. stop the manager and the API server, remove the temporary folder (unless --keep).
// A step that cannot run ends the demo with one line saying what failed and what to do, exit 1.
//
//   node scripts/demo.mjs [--speed 30] [--duration 30] [--job-seconds 3] [--out <dir>] [--keep] [--verbose]
// @ts-check
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { parse as parseYaml } from 'yaml';

const root = resolve(fileURLToPath(import.meta.url), '../..');

const usage = `Usage: npm run demo -- [flags]

  --speed <n>        the operator's clock runs n times faster than the wall clock (default 30:
                     the CronJob's minute passes in 2 s)
  --duration <s>     seconds of live log once the CronJob is applied (default 30)
  --job-seconds <s>  wall seconds after which the demo marks a Job Complete (default 3)
  --out <dir>        generate the sample there (kept) instead of a temporary folder
  --keep             keep the temporary folder
  --verbose          show the operator's own log (LOG_LEVEL info) and each command's output
  -h, --help         print this help
`;

/** A failure of a step: `message` says what failed, `hint` what to do; `output` is shown above it. */
class DemoError extends Error {
  /**
   * @param {string} message
   * @param {string} hint
   * @param {string} [output]
   */
  constructor(message, hint, output) {
    super(message);
    this.hint = hint;
    this.output = output;
  }
}

/** @param {string} line */
function say(line) {
  process.stdout.write(`${line}\n`);
}

/**
 * @param {string} name
 * @param {string | undefined} raw
 * @param {number} min
 */
function positive(name, raw, min) {
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min)
    throw new DemoError(`invalid --${name} "${raw}"`, `give a number >= ${min} (npm run demo -- --help)`);
  return n;
}

/** @returns {{ speed: number, duration: number, jobSeconds: number, out?: string, keep: boolean, verbose: boolean, help: boolean }} */
function readFlags() {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        speed: { type: 'string', default: '30' },
        duration: { type: 'string', default: '30' },
        'job-seconds': { type: 'string', default: '3' },
        out: { type: 'string' },
        keep: { type: 'boolean', default: false },
        verbose: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    throw new DemoError(err instanceof Error ? err.message : String(err), 'see npm run demo -- --help');
  }
  return {
    speed: positive('speed', values.speed, 1),
    duration: positive('duration', values.duration, 1),
    jobSeconds: positive('job-seconds', values['job-seconds'], 0),
    out: values.out,
    keep: values.keep ?? false,
    verbose: values.verbose ?? false,
    help: values.help ?? false,
  };
}

/**
 * Runs a command to completion, its output captured (shown with --verbose, or when it fails).
 * @param {string} what what the step does, for the failure message
 * @param {string} hint what to do when it fails
 * @param {string} cmd
 * @param {string[]} args
 * @param {string} cwd
 * @param {boolean} verbose
 */
function run(what, hint, cmd, args, cwd, verbose) {
  const r = spawnSync(cmd, args, {
    cwd,
    encoding: 'utf8',
    maxBuffer: 64 << 20,
    env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
  });
  const output = `${r.stdout ?? ''}${r.stderr ?? ''}`;
  if (r.status !== 0) {
    const why = r.error ? r.error.message : `exit ${r.status ?? r.signal}`;
    throw new DemoError(`${what} failed ('${[cmd, ...args].join(' ')}': ${why})`, hint, output);
  }
  if (verbose && output.trim()) say(indent(output));
  return r.stdout;
}

/** @param {string} text */
function indent(text) {
  return text
    .trimEnd()
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n');
}

/**
 * Prints a step's title, runs it and prints how long it took.
 * @template T
 * @param {string} title
 * @param {() => T | Promise<T>} fn
 * @returns {Promise<T>}
 */
async function step(title, fn) {
  const t0 = Date.now();
  say(`==> ${title}`);
  const result = await fn();
  say(`    (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  return result;
}

/**
 * The folder of etcd and kube-apiserver: KUBEBUILDER_ASSETS, else what `kubeforge setup-envtest`
 * provisions (cached after its first run).
 * @returns {string}
 */
function apiServerAssets() {
  /** @param {string} dir */
  const complete = (dir) => existsSync(join(dir, 'etcd')) && existsSync(join(dir, 'kube-apiserver'));
  const given = process.env.KUBEBUILDER_ASSETS;
  if (given) {
    if (!complete(given)) {
      throw new DemoError(
        `KUBEBUILDER_ASSETS=${given} holds no etcd and kube-apiserver`,
        'point it at a folder that does: `npx kubeforge setup-envtest` or `npm run setup-envtest` prints one',
      );
    }
    return given;
  }
  say(
    '    KUBEBUILDER_ASSETS is unset: provisioning etcd + kube-apiserver with `kubeforge setup-envtest` (cached; the first build from Go modules takes about 10 minutes: its progress follows)',
  );
  // Progress (stderr) goes straight to the terminal: a first build is long, and must show it.
  const r = spawnSync(process.execPath, [join(root, 'bin/kubeforge.js'), 'setup-envtest'], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (r.status !== 0) {
    throw new DemoError(
      `provisioning the test API server failed ('kubeforge setup-envtest': ${r.error ? r.error.message : `exit ${r.status ?? r.signal}`})`,
      'set KUBEBUILDER_ASSETS to a folder holding etcd and kube-apiserver; see the lines above for what failed',
    );
  }
  const lines = (r.stdout ?? '').trim().split('\n');
  const dir = lines[lines.length - 1];
  if (!complete(dir))
    throw new DemoError(
      `kubeforge setup-envtest printed ${dir}, which holds no etcd and kube-apiserver`,
      'set KUBEBUILDER_ASSETS to a folder holding them',
    );
  return dir;
}

/**
 * Where the sample goes: --out (refused when it is a non-empty folder other than a former demo
 * project, since generate-testdata replaces it) or a new temporary folder.
 * @param {string | undefined} out
 * @returns {{ project: string, temp?: string }}
 */
function projectFolder(out) {
  if (out === undefined) {
    const temp = mkdtempSync(join(tmpdir(), 'kubeforge-demo-'));
    return { project: join(temp, 'project'), temp };
  }
  const project = resolve(out);
  if (existsSync(project) && readdirSync(project).length > 0 && !existsSync(join(project, 'PROJECT'))) {
    throw new DemoError(
      `--out ${out} is a non-empty folder that is no kubeforge project`,
      'give a new or empty folder (the demo replaces its content)',
    );
  }
  return { project };
}

/** A time as hh:mm:ss (UTC). @param {Date | string | undefined} t */
function clock(t) {
  if (t === undefined) return '-';
  return new Date(t).toISOString().slice(11, 19);
}

/**
 * Installs, runs and watches the operator.
 * @param {ReturnType<typeof readFlags>} flags
 * @param {{ project: string, temp?: string }} where
 * @param {{ stop: AbortSignal, cleanups: (() => Promise<void> | void)[] }} life
 */
async function demo(flags, where, life) {
  const { project } = where;
  const started = Date.now();

  const assets = await step('the test API server binaries (etcd, kube-apiserver)', () => {
    const dir = apiServerAssets();
    say(`    KUBEBUILDER_ASSETS=${dir}`);
    return dir;
  });

  await step(
    `regenerate the sample into ${project} (scripts/generate-testdata.mjs: builds kubeforge first when dist/ is stale)`,
    () => {
      const out = run(
        'regenerating the sample',
        'run `npm run generate:testdata -- --out /tmp/x` to see why',
        process.execPath,
        [join(root, 'scripts/generate-testdata.mjs'), '--out', project],
        root,
        flags.verbose,
      );
      const built = out.split('\n').find((l) => l.startsWith('==> build kubeforge'));
      if (built && !flags.verbose) say(`    ${built.slice(4)}`);
    },
  );

  await step('install it against this kubeforge (npm pack, npm install)', () => {
    const dir = join(project, '.kubeforge');
    mkdirSync(dir, { recursive: true });
    const packed = run(
      'npm pack of kubeforge',
      'check that `npm pack` works in the kubeforge checkout',
      'npm',
      ['pack', '--ignore-scripts', '--json', '--pack-destination', dir],
      root,
      false,
    );
    /** @type {{ filename: string }[]} */
    const [{ filename }] = JSON.parse(packed.slice(packed.indexOf('[')));
    const pkgFile = join(project, 'package.json');
    const pkg = JSON.parse(readFileSync(pkgFile, 'utf8'));
    // The sample asks for kubeforge from the registry; this demo shows this checkout's.
    pkg.dependencies.kubeforge = `file:.kubeforge/${filename}`;
    writeFileSync(pkgFile, `${JSON.stringify(pkg, null, 2)}\n`);
    run(
      'npm install in the sample',
      'check the network or the npm cache (npm install must reach the registry)',
      'npm',
      ['install', '--no-audit', '--no-fund'],
      project,
      flags.verbose,
    );
  });

  await step('kubeforge manifests, npm run build', () => {
    run(
      'kubeforge manifests',
      'run `npx kubeforge manifests` in the sample (--out <dir> --keep) to see the diagnostics',
      join(project, 'node_modules/.bin/kubeforge'),
      ['manifests', '--no-color'],
      project,
      flags.verbose,
    );
    run(
      'building the sample (tsc)',
      'run `npm run build` in the sample (--out <dir>) to see the errors',
      'npm',
      ['run', 'build'],
      project,
      flags.verbose,
    );
  });
  if (life.stop.aborted) return;

  // The sample's modules and its kubeforge, as its own main.ts and tests load them.
  const requireFromProject = createRequire(join(project, 'package.json'));
  /** @param {string} id */
  const load = (id) => import(pathToFileURL(requireFromProject.resolve(id)).href);
  /** @param {string} file */
  const loadBuilt = (file) => import(pathToFileURL(join(project, 'build', file)).href);
  const runtime = await load('kubeforge/runtime');
  const testing = await load('kubeforge/testing');
  const { EventsV1Api, V1Job } = await load('@kubernetes/client-node');
  const { CronJob } = await loadBuilt('src/api/v1/cronjob_types.js');
  const { CronJob: CronJobV2 } = await loadBuilt('src/api/v2/cronjob_types.js');
  const { CronJobReconciler, cronJobNameLabel, scheduledTimeAnnotation } = await loadBuilt(
    'src/controller/cronjob_controller.js',
  );
  const { setupCronJobWebhookWithManager } = await loadBuilt('src/webhook/v1/cronjob_webhook.js');
  // pino as kubeforge/runtime has it, writing one readable line per record into the live log.
  const requireFromKubeforge = createRequire(requireFromProject.resolve('kubeforge/package.json'));
  const { default: pino } = await import(pathToFileURL(requireFromKubeforge.resolve('pino')).href);

  const env = new testing.TestEnvironment({
    binaryAssetsDirectory: assets,
    crdDirectoryPaths: [join(project, 'config/crd/bases')],
    errorIfCRDPathMissing: true,
    webhookInstallOptions: { paths: [join(project, 'config/webhook')] },
  });
  life.cleanups.push(() => env.stop());
  const config = await step('start the test API server with the CRDs and webhooks (kubeforge/testing)', async () => {
    let kc;
    try {
      kc = await env.start();
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const [first, ...rest] = message.split('\n');
      throw new DemoError(
        `the test API server did not start: ${first}`,
        'check KUBEBUILDER_ASSETS (`npx kubeforge setup-envtest`) and that no other process holds its ports',
        rest.join('\n'),
      );
    }
    const { apiserver, etcd } = env.pids;
    say(`    ${env.serverURL}  (kube-apiserver pid ${apiserver}, etcd pid ${etcd}; data in ${env.dataDirectory})`);
    return kc;
  });

  // The operator's clock: from now on, `speed` times faster than the wall clock.
  const t0 = Date.now();
  const now = () => new Date(t0 + (Date.now() - t0) * flags.speed);
  /** Wall seconds since the CronJob was applied, and the operator's time. */
  let applied = Date.now();
  /** @param {string} what @param {string} text */
  const log = (what, text) =>
    say(`[${((Date.now() - applied) / 1000).toFixed(1).padStart(5)} s | ${clock(now())}] ${what.padEnd(7)} ${text}`);
  /** @type {Record<number, string>} */
  const levels = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };
  const logger = pino(
    { level: flags.verbose ? 'info' : 'warn' },
    {
      /** @param {string} line */
      write(line) {
        const r = JSON.parse(line);
        const fields = ['job', 'scheduledAt']
          .filter((k) => r[k] !== undefined)
          .map((k) => ` ${k}=${r[k]}`)
          .join('');
        log(
          'manager',
          `${levels[r.level] ?? r.level}${r.controller ? ` [${r.controller}]` : ''}: ${r.msg}${r.err?.message ? `: ${r.err.message}` : ''}${fields}`,
        );
      },
    },
  );
  const speed = flags.speed;
  const stopManager = new AbortController();
  /** @type {Promise<void> | undefined} */
  let running;
  const mgr = runtime.newManager(config, {
    logger,
    webhookServer: runtime.newWebhookServer(env.webhookServerOptions()),
  });
  life.cleanups.unshift(async () => {
    stopManager.abort();
    await running;
  });
  await step(
    `run the operator: the CronJob reconciler (clock x${speed}) and webhooks, in a manager in this process`,
    async () => {
      // The sample's reconciler as its main.ts sets it up, with the fast clock; its requeue delays
      // ("come back at the next run") are in the fast clock's time, so they are divided by the speed.
      const reconciler = new CronJobReconciler(mgr.getClient(), undefined, { now });
      const reconcile = reconciler.reconcile.bind(reconciler);
      /** @param {unknown} request @param {unknown} ctx @returns {Promise<{ requeueAfterSeconds?: number }>} */
      reconciler.reconcile = async (request, ctx) => {
        const result = await reconcile(request, ctx);
        return result.requeueAfterSeconds === undefined
          ? result
          : {
              ...result,
              requeueAfterSeconds: Math.max(0.001, Math.ceil((result.requeueAfterSeconds * 1000) / speed) / 1000),
            };
      };
      reconciler.setupWithManager(mgr);
      setupCronJobWebhookWithManager(mgr);
      running = mgr.start(stopManager.signal);
      await mgr.started();
      for (let i = 0; mgr.getWebhookServer().port === undefined; i++) {
        if (i === 200)
          throw new DemoError(
            'the webhook server did not start listening within 10 s',
            'run with --verbose to see the manager log',
          );
        await sleep(50);
      }
    },
  );
  if (life.stop.aborted) return;

  const client = runtime.newClient(config);
  const events = config.makeApiClient(EventsV1Api);
  const sample = parseYaml(readFileSync(join(project, 'config/samples/batch_v1_cronjob.yaml'), 'utf8'));
  const namespace = 'default';
  const name = sample.metadata.name;
  sample.metadata.namespace = namespace;
  // Keep two finished Jobs (the default is 3), so the history limit shows sooner.
  sample.spec.successfulJobsHistoryLimit = 2;

  say(`==> live log for ${flags.duration} s: [wall seconds | the operator's clock (x${speed})]`);
  applied = Date.now();
  let created;
  try {
    created = await client.create(sample);
  } catch (err) {
    throw new DemoError(
      `applying config/samples/batch_v1_cronjob.yaml failed: ${err instanceof Error ? err.message.split('\n')[0] : err}`,
      'run with --verbose to see the operator log',
    );
  }
  const s = created.spec;
  log(
    'apply',
    `CronJob ${namespace}/${name}: schedule "${s.schedule}", startingDeadlineSeconds ${s.startingDeadlineSeconds}, successfulJobsHistoryLimit ${s.successfulJobsHistoryLimit}, failedJobsHistoryLimit ${s.failedJobsHistoryLimit} (defaulted by the webhook), concurrencyPolicy ${s.concurrencyPolicy}`,
  );

  // The validating webhook refuses a schedule that does not parse.
  try {
    await client.create({
      ...sample,
      metadata: { name: `${name}-invalid`, namespace },
      spec: { ...sample.spec, schedule: 'every minute' },
    });
    log('webhook', 'a CronJob with schedule "every minute" was accepted (expected a refusal)');
  } catch (err) {
    log('webhook', `refused: ${err instanceof Error ? err.message.split('\n')[0] : err}`);
  }

  /** @type {Map<string, { created: number, finished: boolean }>} */
  const jobs = new Map();
  /** @type {Map<string, number>} uid -> series count seen */
  const seenEvents = new Map();
  let lastStatus = '';
  let jobCount = 0;
  const until = applied + flags.duration * 1000;
  let failures = 0;
  while (Date.now() < until && !life.stop.aborted) {
    try {
      await observe();
      failures = 0;
    } catch (err) {
      // A slow or briefly failing API server: say so and go on; five in a row end the demo.
      const message = err instanceof Error ? err.message.split('\n')[0] : String(err);
      if (++failures === 5)
        throw new DemoError(
          `reading the Jobs, the CronJob and the events failed 5 times in a row: ${message}`,
          'run with --verbose to see the manager log',
        );
      log('demo', `reading failed (${message}); retrying`);
    }
    await sleep(250, undefined, { signal: life.stop }).catch(() => {});
  }
  if (life.stop.aborted) return;
  if (jobCount === 0 && flags.duration * speed >= 120) {
    throw new DemoError(
      `the operator created no Job in ${flags.duration} s (${Math.round((flags.duration * speed) / 60)} minutes of its clock)`,
      'run with --verbose to see the manager log',
    );
  }

  /** One look at the Jobs, the CronJob's status and the events; prints what changed. */
  async function observe() {
    const list = await client.list(V1Job, { namespace, labelSelector: { [cronJobNameLabel]: name } });
    /** @type {Set<string>} */
    const present = new Set();
    for (const job of list.items) {
      const jobName = job.metadata.name;
      present.add(jobName);
      if (!jobs.has(jobName)) {
        jobs.set(jobName, { created: Date.now(), finished: false });
        jobCount++;
        const owner = job.metadata.ownerReferences?.find((/** @type {{ controller?: boolean }} */ o) => o.controller);
        log(
          'job',
          `${jobName} created by the operator, scheduled for ${clock(job.metadata.annotations?.[scheduledTimeAnnotation])} (controller: ${owner?.kind}/${owner?.name})`,
        );
      }
      const seen = jobs.get(jobName);
      if (seen && !seen.finished && Date.now() - seen.created >= flags.jobSeconds * 1000) {
        const at = new Date();
        // As the Job controller finishes a Job: since 1.31 the API server takes Complete=True only
        // beside SuccessCriteriaMet=True (older servers take any condition type).
        const condition = (/** @type {string} */ type) => ({
          type,
          status: 'True',
          lastProbeTime: at,
          lastTransitionTime: at,
        });
        job.status = {
          ...job.status,
          startTime: job.status?.startTime ?? job.metadata.creationTimestamp,
          completionTime: at,
          succeeded: 1,
          conditions: [condition('SuccessCriteriaMet'), condition('Complete')],
        };
        try {
          await client.status().update(job);
          seen.finished = true;
          log('demo', `${jobName} marked Complete (a bare API server has no Job controller to run it)`);
        } catch (err) {
          // Deleted or changed meanwhile: the next look tries again.
          if (!runtime.isNotFound(err) && !runtime.isConflict(err)) throw err;
        }
      }
    }
    for (const [jobName] of jobs) {
      if (!present.has(jobName)) {
        jobs.delete(jobName);
        log('job', `${jobName} deleted by the operator`);
      }
    }

    const cj = await client.get(CronJob, { namespace, name });
    const status = `active=[${(cj.status?.active ?? []).map((/** @type {{ name?: string }} */ r) => r.name).join(', ')}] lastScheduleTime=${clock(cj.status?.lastScheduleTime)}`;
    if (status !== lastStatus) {
      lastStatus = status;
      log('status', status);
    }

    const evs = await events.listNamespacedEvent({ namespace });
    for (const ev of evs.items) {
      if (ev.regarding?.name !== name) continue;
      const count = ev.series?.count ?? 1;
      const uid = ev.metadata?.uid ?? '';
      if ((seenEvents.get(uid) ?? 0) >= count) continue;
      seenEvents.set(uid, count);
      log('event', `${ev.type} ${ev.reason}: ${ev.note}${count > 1 ? ` (x${count})` : ''}`);
    }
  }

  // The conversion webhook: the same object read as v2, the schedule split into its fields.
  try {
    const v2 = await client.get(CronJobV2, { namespace, name });
    log('convert', `read as ${v2.apiVersion}: schedule ${JSON.stringify(v2.spec.schedule)}`);
  } catch (err) {
    log('convert', `reading as v2 failed: ${err instanceof Error ? err.message.split('\n')[0] : err}`);
  }
  say(
    `==> ${jobCount} Jobs created in ${((Date.now() - applied) / 1000).toFixed(0)} s (${((Date.now() - started) / 1000).toFixed(0)} s in all); stopping the operator and the API server`,
  );
}

async function main() {
  const stopper = new AbortController();
  const life = { stop: stopper.signal, cleanups: /** @type {(() => Promise<void> | void)[]} */ ([]) };
  /** @type {{ project: string, temp?: string } | undefined} */
  let where;
  /** @param {NodeJS.Signals} sig */
  const onSignal = (sig) => {
    if (stopper.signal.aborted) process.exit(130); // a second signal: at once (TestEnvironment's exit hook kills its children)
    say(`\ndemo: ${sig}: stopping`);
    stopper.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let failed = false;
  try {
    const flags = readFlags();
    if (flags.help) {
      process.stdout.write(usage);
      return;
    }
    where = projectFolder(flags.out);
    if (where.temp) say(`demo: working in ${where.temp}${flags.keep ? ' (kept: --keep)' : ' (removed at the end)'}`);
    try {
      await demo(flags, where, life);
    } finally {
      for (const cleanup of life.cleanups) {
        try {
          await cleanup();
        } catch (err) {
          console.error(`demo: while stopping: ${err instanceof Error ? err.message.split('\n')[0] : err}`);
          failed = true;
        }
      }
      if (where.temp && !flags.keep) rmSync(where.temp, { recursive: true, force: true });
      else say(`demo: the sample is in ${relative(process.cwd(), where.project) || '.'}`);
    }
    if (stopper.signal.aborted) {
      process.exitCode = 130;
      return;
    }
  } catch (err) {
    failed = true;
    if (err instanceof DemoError) {
      if (err.output?.trim()) console.error(indent(err.output.trim().split('\n').slice(-20).join('\n')));
      console.error(`demo: ${err.message}; ${err.hint}`);
    } else {
      console.error(
        `demo: unexpected failure: ${err instanceof Error ? err.message.split('\n')[0] : err}; run with --verbose, and report it`,
      );
    }
  }
  if (failed) process.exitCode = 1;
  else if (!stopper.signal.aborted) say('demo: done');
}

await main();
