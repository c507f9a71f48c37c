/**
 * Failover with warm replicas (issue 26): how soon after a leader steps down does the next
 * replica reconcile, when its controller starts cold (lists everything after it wins the lease)
 * or warm (`enableWarmup`: listed, watched and queued while standing by)?
 *
 * 2,000 ConfigMaps in one namespace (KUBEFORGE_FAILOVER_OBJECTS). For each run, in turn cold
 * and warm: a leader Manager reconciles them all; a standby of the mode under test waits (warm:
 * until its queue holds all of them; cold: until it has campaigned); the leader stops and releases
 * the lease; we measure from the standby's election to its first reconcile and to its last one
 * (each object reconciled once). Both figures leave out the election itself (up to one retry
 * period, 500 ms here), which is the same for both modes. Medians of BENCH_RUNS (3) runs.
 *
 * `runFailoverBench(config)` is shared with bench:runtime; run alone with `npm run bench:failover`.
 * Last line: `bench:failover objects=<n> cold_first=<ms>ms warm_first=<ms>ms cold_all=<ms>ms warm_all=<ms>ms`.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import pino from 'pino';
import { controllerManagedBy } from '../src/runtime/controller/index.js';
import { newManager } from '../src/runtime/manager/index.js';
import { RestClient } from '../src/runtime/client/rest.js';
import { TestEnvironment } from '../src/testing/index.js';
import { median, sleep } from './stats.js';

const now = () => performance.now();

async function until(what: string, check: () => boolean, timeoutMs = 120_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`bench:failover: timed out waiting for ${what}`);
    await sleep(5);
  }
}

export interface FailoverResult {
  objects: number;
  coldFirstMs: number;
  warmFirstMs: number;
  coldAllMs: number;
  warmAllMs: number;
}

/** Runs the failover measurement against the API server of `config`; progress on stderr. */
export async function runFailoverBench(
  config: KubeConfig,
  objects = Number(process.env.KUBEFORGE_FAILOVER_OBJECTS ?? 2000),
  runs = Number(process.env.BENCH_RUNS ?? 3),
): Promise<FailoverResult> {
  const rest = new RestClient(config);
  const ns = `failover-${Date.now().toString(36)}`;
  const progress = (s: string) => process.stderr.write(`bench:failover: ${s}\n`);
  try {
    await rest.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
    });
    progress(`creating ${objects} ConfigMaps`);
    for (let i = 0; i < objects; i += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, objects - i) }, (_, j) =>
          rest.request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
            body: {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              metadata: { name: `cm-${i + j}` },
              data: { k: 'v'.repeat(64) },
            },
          }),
        ),
      );
    }
    const quiet = pino({ level: 'silent' });
    const timings = { leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 500 };
    const replica = (lease: string, id: string, warm: boolean) => {
      const mgr = newManager(config, {
        leaderElection: true,
        leaderElectionID: lease,
        leaderElectionNamespace: ns,
        leaderElectionIdentity: id,
        cache: { defaultNamespaces: [ns] },
        metrics: { bindAddress: '0' },
        logger: quiet,
        ...timings,
      });
      const seen = new Set<string>();
      let first = 0;
      let all = 0;
      const ctrl = controllerManagedBy(mgr)
        .for({ apiVersion: 'v1', kind: 'ConfigMap' })
        .named(`failover-${id}`)
        .withOptions({ enableWarmup: warm, maxConcurrentReconciles: 4 })
        .complete(async (req) => {
          if (!first) first = now();
          seen.add(req.name);
          if (seen.size === objects && !all) all = now();
        });
      const ac = new AbortController();
      const done = mgr.start(ac.signal);
      done.catch(() => undefined);
      return { mgr, ctrl, seen, ac, done, firstAt: () => first, allAt: () => all };
    };
    const results: Record<'cold' | 'warm', { first: number[]; all: number[] }> = {
      cold: { first: [], all: [] },
      warm: { first: [], all: [] },
    };
    for (let run = 0; run < runs; run++) {
      for (const mode of ['cold', 'warm'] as const) {
        progress(`run ${run + 1} of ${runs}: ${mode} standby`);
        const lease = `failover-${mode}-${run}`;
        const leader = replica(lease, 'leader', false);
        await leader.mgr.elected();
        await until('the leader reconciling everything', () => leader.seen.size === objects);
        const standby = replica(lease, 'standby', mode === 'warm');
        // stamped in the first callback of the election (before the controller's own continuations)
        let elected = 0;
        void standby.mgr.elected().then(() => (elected = now()));
        await standby.mgr.started();
        if (mode === 'warm')
          await until('the warm standby queueing everything', () => standby.ctrl.queue.len() === objects);
        else await sleep(timings.retryPeriodMs * 2);
        leader.ac.abort();
        await leader.done;
        await standby.mgr.elected();
        await until('the new leader reconciling everything', () => standby.allAt() > 0);
        results[mode].first.push(standby.firstAt() - elected);
        results[mode].all.push(standby.allAt() - elected);
        standby.ac.abort();
        await standby.done;
      }
    }
    return {
      objects,
      coldFirstMs: median(results.cold.first),
      warmFirstMs: median(results.warm.first),
      coldAllMs: median(results.cold.all),
      warmAllMs: median(results.warm.all),
    };
  } finally {
    await rest.request('DELETE', `/api/v1/namespaces/${ns}`).catch(() => undefined);
    rest.close();
  }
}

/** The result line. */
export function failoverLine(r: FailoverResult): string {
  return `bench:failover objects=${r.objects} cold_first=${r.coldFirstMs.toFixed(1)}ms warm_first=${r.warmFirstMs.toFixed(1)}ms cold_all=${r.coldAllMs.toFixed(0)}ms warm_all=${r.warmAllMs.toFixed(0)}ms`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const env = new TestEnvironment({});
  const config = await env.start();
  try {
    const r = await runFailoverBench(config);
    console.log(`failover to the next replica with ${r.objects} objects (elected -> reconcile, medians):`);
    console.log(`  first reconcile   cold ${r.coldFirstMs.toFixed(1)} ms   warm ${r.warmFirstMs.toFixed(1)} ms`);
    console.log(`  all reconciled    cold ${r.coldAllMs.toFixed(0)} ms   warm ${r.warmAllMs.toFixed(0)} ms`);
    console.log(failoverLine(r));
  } finally {
    await env.stop();
  }
}
