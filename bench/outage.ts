/**
 * `npm run bench:outage`: how soon does a kubeforge Manager work again after an API-server outage?
 *
 * A Manager runs a controller on ConfigMaps of one namespace while a writer patches 20 of them
 * 40 times a second (its writes fail while the server is down). The API server
 * (TestEnvironment.stopAPIServer / startAPIServer; etcd keeps the data) is stopped for each
 * outage length in KUBEFORGE_OUTAGE_SECONDS (default "10,60"). When the server is ready again a
 * new ConfigMap is created, and we measure:
 *   ready->reconcile   server ready (startAPIServer resolved) -> that object's reconcile starts;
 *   write->reconcile   its create request sent -> its reconcile starts;
 *   back-off left      baseline of the same run: how much of the informer's back-off (read from its
 *                      log) was still to run when the server was ready, i.e. what the old
 *                      behaviour (resume only when the back-off runs out) would have added.
 * Last line: `bench:outage <s>s=<ms>ms ...` (ready->reconcile per outage length).
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { TestEnvironment } from '../src/testing/index.js';
import { newManager } from '../src/runtime/manager/index.js';
import { controllerManagedBy } from '../src/runtime/controller/index.js';
import { mergePatch } from '../src/runtime/client/index.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const now = () => performance.now();

async function main(): Promise<void> {
  const outages = (process.env.KUBEFORGE_OUTAGE_SECONDS ?? '10,60').split(',').map(Number);
  const defaultAssets = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'kubeforge/envtest/bin');
  if (!process.env.KUBEBUILDER_ASSETS && existsSync(join(defaultAssets, 'kube-apiserver')))
    process.env.KUBEBUILDER_ASSETS = defaultAssets;
  const env = new TestEnvironment({});
  const config = await env.start();
  const live = env.getClient();
  const ns = 'outage-bench';
  await live.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });

  // The informer's planned retries, read from its log: (time logged, delay).
  const retry: { last?: { at: number; inMs: number } } = {};
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (!line.includes('list/watch failed')) continue;
        try {
          const rec = JSON.parse(line) as { retryInMs?: number };
          if (typeof rec.retryInMs === 'number') retry.last = { at: now(), inMs: rec.retryInMs };
        } catch {
          /* not JSON */
        }
      }
      cb();
    },
  });
  const mgr = newManager(config, { logger: pino({ level: 'info' }, sink), cache: { defaultNamespaces: [ns] } });
  const firstSeen = new Map<string, number>();
  let reconciles = 0;
  controllerManagedBy(mgr)
    .for({ apiVersion: 'v1', kind: 'ConfigMap' })
    .complete((req) => {
      reconciles++;
      if (!firstSeen.has(req.name)) firstSeen.set(req.name, now());
    });
  const ac = new AbortController();
  const done = mgr.start(ac.signal);
  await mgr.started();

  for (let i = 0; i < 20; i++)
    await live.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `load-${i}`, namespace: ns },
      data: { n: '0' },
    });
  let writes = 0;
  let failed = 0;
  let stopWriter = false;
  const writer = (async () => {
    for (let n = 0; !stopWriter; n++) {
      const t = now();
      live
        .patch(
          { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `load-${n % 20}`, namespace: ns } },
          mergePatch({ data: { n: String(n) } }),
        )
        .then(
          () => writes++,
          () => failed++,
        );
      await sleep(Math.max(0, 25 - (now() - t)));
    }
  })();

  const results: {
    seconds: number;
    readyToReconcile: number;
    writeToReconcile: number;
    backoffLeft: number;
    startMs: number;
  }[] = [];
  for (const seconds of outages) {
    await sleep(3000);
    retry.last = undefined;
    await env.stopAPIServer();
    await sleep(seconds * 1000);
    const t0 = now();
    await env.startAPIServer();
    const ready = now();
    const last = retry.last as { at: number; inMs: number } | undefined;
    const backoffLeft = last ? Math.max(0, last.at + last.inMs - ready) : 0;
    const name = `probe-${seconds}s`;
    const sent = now();
    await live.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns } });
    let seen = firstSeen.get(name);
    while (seen === undefined) {
      await sleep(5);
      seen = firstSeen.get(name);
    }
    results.push({
      seconds,
      readyToReconcile: seen - ready,
      writeToReconcile: seen - sent,
      backoffLeft,
      startMs: ready - t0,
    });
    console.log(
      `outage ${seconds}s: API server start ${Math.round(ready - t0)} ms; ready->reconcile ${Math.round(seen - ready)} ms; ` +
        `write->reconcile ${Math.round(seen - sent)} ms; informer back-off left at ready (baseline: old behaviour's extra wait) ${Math.round(backoffLeft)} ms`,
    );
  }
  stopWriter = true;
  await writer;
  console.log(
    `writer: ${writes} patches acknowledged, ${failed} failed (during the outages); ${reconciles} reconciles`,
  );
  ac.abort();
  await done;
  await env.stop();
  console.log(`bench:outage ${results.map((r) => `${r.seconds}s=${Math.round(r.readyToReconcile)}ms`).join(' ')}`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
