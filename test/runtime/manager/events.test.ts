import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeConfig } from '@kubernetes/client-node';
import { TestEnvironment } from '../../../src/testing/index.js';
import { RestClient } from '../../../src/runtime/util/rest.js';
import { newManager } from '../../../src/runtime/manager/index.js';
import { quiet } from './helpers.js';

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

async function configMap(name: string) {
  return rest.request('POST', '/api/v1/namespaces/default/configmaps', {
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: {} },
  });
}

async function eventsAbout(name: string): Promise<any[]> {
  const list = await rest.get('/apis/events.k8s.io/v1/namespaces/default/events');
  return list.items.filter((e: any) => e.regarding?.name === name).sort((x: any, y: any) => x.reason.localeCompare(y.reason));
}

describe('EventRecorder', () => {
  it('writes events.k8s.io/v1 Events and aggregates repeats into a series', async () => {
    const obj = await configMap('evented');
    const mgr = newManager(config, { logger: quiet() });
    const rec = mgr.getEventRecorderFor('widget-controller');
    assert.equal(mgr.getEventRecorderFor('widget-controller'), rec);
    rec.event(obj, 'Normal', 'Synced', 'synced ok');
    rec.event(obj, 'Normal', 'Synced', 'synced ok');
    rec.event(obj, 'Normal', 'Synced', 'synced ok');
    rec.eventf(obj, 'Warning', 'Failed', 'could not reach %s after %d tries', 'db', 3);
    rec.event(obj, 'Bogus' as 'Normal', 'Dropped', 'not a valid type');
    await rec.flush();
    const events = await eventsAbout('evented');
    assert.equal(events.length, 2);
    const [failed, synced] = events;
    assert.equal(synced.type, 'Normal');
    assert.equal(synced.note, 'synced ok');
    assert.equal(synced.action, 'Synced');
    assert.equal(synced.reportingController, 'widget-controller');
    assert.match(synced.reportingInstance, /^widget-controller-/);
    assert.equal(synced.regarding.kind, 'ConfigMap');
    assert.equal(synced.regarding.uid, obj.metadata.uid);
    assert.equal(synced.series.count, 3);
    assert.ok(synced.series.lastObservedTime);
    assert.equal(failed.type, 'Warning');
    assert.equal(failed.note, 'could not reach db after 3 tries');
    assert.equal(failed.series, undefined);

    // A fourth repeat updates the same Event.
    rec.event(obj, 'Normal', 'Synced', 'synced ok');
    await rec.flush();
    const again = await eventsAbout('evented');
    assert.equal(again.length, 2);
    assert.equal(again[1].metadata.name, synced.metadata.name);
    assert.equal(again[1].series.count, 4);
  });

  it('a different note is a different event; the manager flushes pending events on shutdown', async () => {
    const obj = await configMap('evented-2');
    const mgr = newManager(config, { logger: quiet() });
    const ac = new AbortController();
    const done = mgr.start(ac.signal);
    await mgr.started();
    const rec = mgr.getEventRecorderFor('other');
    rec.event(obj, 'Normal', 'Scaled', 'to 1', { action: 'Scale' });
    rec.event(obj, 'Normal', 'Scaled', 'to 2', { action: 'Scale' });
    ac.abort();
    await done;
    const events = await eventsAbout('evented-2');
    assert.deepEqual(events.map((e) => [e.note, e.action, e.series?.count]).sort(), [
      ['to 1', 'Scale', undefined],
      ['to 2', 'Scale', undefined],
    ]);
  });
});
