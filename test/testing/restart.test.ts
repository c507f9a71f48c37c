// kube-apiserver v1.20 does not exit on SIGTERM while watches are open (it waits for them): a
// restart used to take the whole stop timeout. It must not need it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeConfig } from '@kubernetes/client-node';
import { TestEnvironment } from '../../src/testing/index.js';
import { newCache } from '../../src/runtime/cache/index.js';

const STOP_TIMEOUT = 30_000;
const env = new TestEnvironment({ useExistingCluster: false, controlPlaneStopTimeoutMs: STOP_TIMEOUT });
let config: KubeConfig;

before(async () => {
  config = await env.start();
});
after(async () => {
  await env.stop();
});

describe('TestEnvironment.restartAPIServer', () => {
  it('with watches open, stops the API server without waiting out the stop timeout', async (t) => {
    const cache = newCache(config);
    const ac = new AbortController();
    const run = cache.start(ac.signal);
    try {
      for (const kind of ['ConfigMap', 'Secret', 'Service']) await cache.getInformer({ apiVersion: 'v1', kind });
      assert.equal(await cache.waitForCacheSync(), true);
      const t0 = performance.now();
      await env.stopAPIServer();
      const stopMs = performance.now() - t0;
      assert.ok(stopMs < STOP_TIMEOUT, `stopAPIServer took ${stopMs} ms: it waited for the open watches`);
      await env.startAPIServer();
      t.diagnostic(
        `stop with 3 watches open: ${Math.round(stopMs)} ms; stop + start: ${Math.round(performance.now() - t0)} ms`,
      );
      const again = await env.getClient().list({ apiVersion: 'v1', kind: 'Namespace' });
      assert.ok(
        again.items.some((n) => n.metadata?.name === 'default'),
        'the restarted server serves the same data',
      );
    } finally {
      ac.abort();
      await run;
    }
  });
});
