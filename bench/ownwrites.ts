/**
 * Read-your-own-writes (issue 26): conflicts and reconciles of a controller that writes an object
 * twice in one reconcile, as many do (add a finalizer, then report status), without and with
 * `client.readYourOwnWrites` (and `ignoreOwnWrites` with it).
 *
 * 2,000 ConfigMaps (KUBEFORGE_OWNWRITES_OBJECTS) are created by another client; the controller's
 * reconcile reads its object from the cache and, until the object carries both marks, adds the
 * first (an annotation) with an update, reads the object back from the cache and adds the second
 * (a label) with another update. On a stale read the second update conflicts (409): the reconcile
 * fails and is retried. Counted until every object carries both marks: reconciles, conflicts, and
 * the wall time. Runs alternate between the modes; medians of BENCH_RUNS (3).
 *
 * `runOwnWritesBench(config)` is shared with bench:runtime; alone: `npm run bench:ownwrites`.
 * Last line: `bench:ownwrites objects=<n> conflicts=<without>/<with> reconciles=<without>/<with>`.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import pino from 'pino';
import { controllerManagedBy, ignoreOwnWrites } from '../src/runtime/controller/index.js';
import { isConflict } from '../src/runtime/client/index.js';
import { newManager } from '../src/runtime/manager/index.js';
import { RestClient } from '../src/runtime/client/rest.js';
import { TestEnvironment } from '../src/testing/index.js';
import { median, sleep } from './stats.js';

const now = () => performance.now();

export interface OwnWritesResult {
  objects: number;
  without: { conflicts: number; reconciles: number; seconds: number };
  with: { conflicts: number; reconciles: number; seconds: number };
}

type CM = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace: string; annotations?: Record<string, string>; labels?: Record<string, string> };
};

async function once(
  config: KubeConfig,
  objects: number,
  ryow: boolean,
  tag: string,
): Promise<{ conflicts: number; reconciles: number; seconds: number }> {
  const rest = new RestClient(config);
  const ns = `ownwrites-${tag}`;
  await rest.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
  });
  try {
    for (let i = 0; i < objects; i += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, objects - i) }, (_, j) =>
          rest.request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
            body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i + j}` } },
          }),
        ),
      );
    }
    const mgr = newManager(config, {
      logger: pino({ level: 'silent' }),
      cache: { defaultNamespaces: [ns] },
      metrics: { bindAddress: '0' },
      client: { readYourOwnWrites: ryow },
    });
    const c = mgr.getClient();
    let reconciles = 0;
    let conflicts = 0;
    const done = new Set<string>();
    const type = { apiVersion: 'v1', kind: 'ConfigMap' };
    controllerManagedBy(mgr)
      .for(type, { predicates: ryow ? [ignoreOwnWrites(c)] : [] })
      .named(`ownwrites-${tag}`)
      .withOptions({ maxConcurrentReconciles: 4 })
      .complete(async (req) => {
        reconciles++;
        try {
          let cm = (await c.get(type, req)) as CM;
          if (!cm.metadata.annotations?.first)
            cm = (await c.update({
              ...cm,
              metadata: { ...cm.metadata, annotations: { ...cm.metadata.annotations, first: 'yes' } },
            })) as CM;
          cm = (await c.get(type, req)) as CM;
          if (!cm.metadata.labels?.second)
            await c.update({ ...cm, metadata: { ...cm.metadata, labels: { ...cm.metadata.labels, second: 'yes' } } });
          done.add(req.name);
        } catch (e) {
          if (isConflict(e)) conflicts++;
          throw e;
        }
        return {};
      });
    const ac = new AbortController();
    const started = now();
    const run = mgr.start(ac.signal);
    run.catch(() => undefined);
    const deadline = Date.now() + 300_000;
    while (done.size < objects) {
      if (Date.now() > deadline) throw new Error(`bench:ownwrites: only ${done.size} of ${objects} objects finished`);
      await sleep(10);
    }
    const seconds = (now() - started) / 1000;
    // let the watch events of the last writes arrive: their reconciles count too
    await sleep(1000);
    ac.abort();
    await run;
    return { conflicts, reconciles, seconds };
  } finally {
    await rest.request('DELETE', `/api/v1/namespaces/${ns}`).catch(() => undefined);
    rest.close();
  }
}

/** Runs the comparison against the API server of `config`; progress on stderr. */
export async function runOwnWritesBench(
  config: KubeConfig,
  objects = Number(process.env.KUBEFORGE_OWNWRITES_OBJECTS ?? 2000),
  runs = Number(process.env.BENCH_RUNS ?? 3),
): Promise<OwnWritesResult> {
  const all = {
    without: [] as { conflicts: number; reconciles: number; seconds: number }[],
    with: [] as { conflicts: number; reconciles: number; seconds: number }[],
  };
  const stamp = Date.now().toString(36);
  for (let i = 0; i < runs; i++) {
    for (const mode of ['without', 'with'] as const) {
      process.stderr.write(
        `bench:ownwrites: run ${i + 1} of ${runs}, ${mode} read-your-own-writes (${objects} objects)\n`,
      );
      all[mode].push(await once(config, objects, mode === 'with', `${mode}-${i}-${stamp}`));
    }
  }
  const med = (xs: { conflicts: number; reconciles: number; seconds: number }[]) => ({
    conflicts: median(xs.map((x) => x.conflicts)),
    reconciles: median(xs.map((x) => x.reconciles)),
    seconds: median(xs.map((x) => x.seconds)),
  });
  return { objects, without: med(all.without), with: med(all.with) };
}

/** The result line. */
export function ownWritesLine(r: OwnWritesResult): string {
  return `bench:ownwrites objects=${r.objects} conflicts=${r.without.conflicts}/${r.with.conflicts} reconciles=${r.without.reconciles}/${r.with.reconciles} seconds=${r.without.seconds.toFixed(1)}/${r.with.seconds.toFixed(1)}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const env = new TestEnvironment({});
  const config = await env.start();
  try {
    const r = await runOwnWritesBench(config);
    console.log(`a reconcile that writes twice, ${r.objects} objects (medians; without / with read-your-own-writes):`);
    console.log(`  conflicts (409)   ${r.without.conflicts} / ${r.with.conflicts}`);
    console.log(`  reconciles        ${r.without.reconciles} / ${r.with.reconciles}`);
    console.log(`  seconds           ${r.without.seconds.toFixed(1)} / ${r.with.seconds.toFixed(1)}`);
    console.log(ownWritesLine(r));
  } finally {
    await env.stop();
  }
}
