// After an API-server outage, informers must resume as soon as the server answers again, not when
// their back-off (here set to a minute) runs out. The informers' own client is unused during the
// outage, so only its readiness probe can notice the return.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeConfig } from '@kubernetes/client-node';
import { TestEnvironment } from '../../../src/testing/index.js';
import { controllerManagedBy } from '../../../src/runtime/controller/index.js';
import type { Client } from '../../../src/runtime/contracts.js';
import { StatusError } from '../../../src/runtime/client/index.js';
import { RestClient } from '../../../src/runtime/client/rest.js';
import { MiniManager } from '../controller/harness.js';
import { eventually } from './helpers.js';
import { must } from '../../helpers/must.js';

const env = new TestEnvironment({ useExistingCluster: false });
let config: KubeConfig;
let live: Client;

before(async () => {
  config = await env.start();
  live = env.getClient();
});
after(async () => {
  await env.stop();
});

const cm = (name: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default', labels: { outage: 'yes' } },
});

describe('after an API server outage', () => {
  it('a write made once the server is back is reconciled without waiting for the back-off', async (t) => {
    const mini = new MiniManager(config, { initialBackoffMs: 60_000, maxBackoffMs: 60_000 });
    const seen = new Map<string, bigint>();
    controllerManagedBy(mini)
      .for(
        { apiVersion: 'v1', kind: 'ConfigMap' },
        { predicates: [{ create: (e) => e.object.metadata?.labels?.outage === 'yes' }] },
      )
      .complete((req) => void (seen.has(req.name) || seen.set(req.name, process.hrtime.bigint())));
    const ac = new AbortController();
    const run = mini.start(ac.signal);
    try {
      await live.create(cm('before'));
      await eventually(() => seen.has('before'), 'reconcile before the outage');
      const inf = await mini.cache.informerFor({ apiVersion: 'v1', kind: 'ConfigMap' });
      const errorsBefore = inf.stats().watchErrors;

      await env.stopAPIServer();
      await eventually(() => inf.stats().watchErrors > errorsBefore, 'the informer noticed the outage');
      await env.startAPIServer();
      const back = process.hrtime.bigint();
      await live.create(cm('after'));
      // The informer's back-off is 60-120 s; this waits at most 30 s.
      await eventually(() => seen.has('after'), 'reconcile of the write made after the outage', 30_000);
      assert.equal(inf.stats().recoveries, 1, 'one back-off was cut short by the server answering again');
      t.diagnostic(
        `server ready -> reconcile of a new write: ${Number(must(seen.get('after'), "seen.get('after')") - back) / 1e6} ms`,
      );
    } finally {
      ac.abort();
      await run;
    }
  });

  it('only a failure without an answer is cut short: an HTTP error keeps its back-off', async () => {
    const rc = new RestClient(config);
    const ac = new AbortController();
    try {
      const forbidden = rc.waitForRetry(
        300,
        ac.signal,
        new StatusError(403, { reason: 'Forbidden', message: 'denied' }),
      );
      await rc.request('GET', '/readyz');
      assert.equal(await forbidden, 'elapsed');
      const refused = rc.waitForRetry(
        60_000,
        ac.signal,
        Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
      );
      assert.equal(await refused, 'recovered', 'the next answer (its own /readyz probe) ends the wait');
    } finally {
      ac.abort();
      rc.close();
    }
  });
});
