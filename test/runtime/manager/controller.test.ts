// The Manager running a real controller (from the controller builder): metrics and graceful
// shutdown with a reconcile in flight.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeConfig } from '@kubernetes/client-node';
import { TestEnvironment } from '../../../src/testing/index.js';
import { RestClient } from '../../../src/runtime/client/rest.js';
import { newManager } from '../../../src/runtime/manager/index.js';
import { controllerManagedBy } from '../../../src/runtime/controller/index.js';
import { eventually, get, quiet, sleep } from './helpers.js';
import { must } from '../../helpers/must.js';

const env = new TestEnvironment({ useExistingCluster: false });
let config: KubeConfig;
let rest: RestClient;

before(async () => {
  config = await env.start();
  rest = new RestClient(config);
});
after(async () => {
  rest?.close();
  await env.stop();
});

describe('Manager with a controller', () => {
  it('serves controller and work-queue metrics, and lets the in-flight reconcile finish on shutdown', async () => {
    const mgr = newManager(config, { metrics: { bindAddress: '127.0.0.1:0' }, logger: quiet() });
    const log: string[] = [];
    let slow = false;
    controllerManagedBy(mgr)
      .for({ apiVersion: 'v1', kind: 'ConfigMap' })
      .named('cm')
      .complete(async (req) => {
        if (req.namespace !== 'default' || !req.name.startsWith('ctl-')) return;
        if (slow) {
          log.push(`begin ${req.name}`);
          await sleep(500);
          log.push(`end ${req.name}`);
        } else log.push(`seen ${req.name}`);
      });
    const ac = new AbortController();
    const done = mgr.start(ac.signal);
    await mgr.started();
    await rest.request('POST', '/api/v1/namespaces/default/configmaps', {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ctl-a' } },
    });
    await eventually(() => log.includes('seen ctl-a'), 'first reconcile');

    const url = `http://127.0.0.1:${must(mgr.getMetricsAddress(), 'mgr.getMetricsAddress()').port}/metrics`;
    const body = await eventually(async () => {
      const r = await get(url);
      return /controller_runtime_reconcile_total\{controller="cm",result="success"\} [1-9]/.test(r.body)
        ? r.body
        : undefined;
    }, 'reconcile counter');
    assert.match(must(body, 'body'), /^workqueue_adds_total\{[^}]*name="cm"[^}]*\} [1-9]/m);
    assert.match(must(body, 'body'), /^controller_runtime_reconcile_time_seconds_bucket\{[^}]*controller="cm"/m);

    slow = true;
    await rest.request('POST', '/api/v1/namespaces/default/configmaps', {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ctl-b' } },
    });
    await eventually(() => log.includes('begin ctl-b'), 'slow reconcile started');
    ac.abort();
    await done;
    assert.deepEqual(
      log.slice(-2),
      ['begin ctl-b', 'end ctl-b'],
      'the reconcile in flight completed before start() returned',
    );
  });
});
