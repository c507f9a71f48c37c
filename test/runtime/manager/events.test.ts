import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeConfig } from '@kubernetes/client-node';
import { TestEnvironment } from '../../../src/testing/index.js';
import { apiServerMinor } from '../../../src/testing/environment.js';
import { join } from 'node:path';
import { RestClient } from '../../../src/runtime/client/rest.js';
import { newManager } from '../../../src/runtime/manager/index.js';
import { quiet } from './helpers.js';
import pino from 'pino';
import { V1ConfigMap } from '@kubernetes/client-node';
import { must } from '../../helpers/must.js';

const env = new TestEnvironment({ useExistingCluster: false, users: [{ name: 'operator' }] });
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

/** An events.k8s.io/v1 Event as the server serves it (JSON, times as strings): the fields these tests read. */
interface ServedEvent {
  metadata: { name: string; namespace: string; annotations?: Record<string, string> };
  type: string;
  note: string;
  action: string;
  reason: string;
  reportingController: string;
  reportingInstance: string;
  regarding: { kind: string; name: string; uid: string };
  related?: { name: string };
  series?: { count: number; lastObservedTime: string };
}

/** A log entry pino wrote, parsed. */
interface LogLine {
  level: number;
  msg: string;
}

async function eventsAbout(name: string): Promise<ServedEvent[]> {
  const list = await rest.get<{ items: ServedEvent[] }>('/apis/events.k8s.io/v1/namespaces/default/events');
  return list.items.filter((e) => e.regarding?.name === name).sort((x, y) => x.reason.localeCompare(y.reason));
}

/** A pino logger whose entries land in `lines` (parsed). */
function capture(lines: LogLine[]) {
  return pino({ level: 'debug' }, { write: (l: string) => void lines.push(JSON.parse(l)) });
}

describe('EventRecorder (events.k8s.io/v1, getEventRecorder)', () => {
  it('writes regarding, related, type, reason, action and a formatted note, and aggregates repeats into a series', async () => {
    const obj = await configMap('evented');
    const other = await configMap('evented-related');
    const mgr = newManager(config, { logger: quiet() });
    const rec = mgr.getEventRecorder('widget-controller');
    assert.equal(mgr.getEventRecorder('widget-controller'), rec);
    rec.eventf(obj, null, 'Normal', 'Synced', 'Sync', 'synced ok');
    rec.eventf(obj, null, 'Normal', 'Synced', 'Sync', 'synced ok');
    rec.eventf(obj, null, 'Normal', 'Synced', 'Sync', 'synced ok');
    rec.eventf(obj, other, 'Warning', 'Failed', 'Connect', 'could not reach %s after %d tries', 'db', 3);
    rec.eventf(obj, undefined, 'Bogus' as 'Normal', 'Dropped', 'Drop', 'not a valid type');
    await rec.flush();
    const events = await eventsAbout('evented');
    assert.equal(events.length, 2);
    const [failed, synced] = events;
    assert.equal(synced.type, 'Normal');
    assert.equal(synced.note, 'synced ok');
    assert.equal(synced.action, 'Sync');
    assert.equal(synced.reportingController, 'widget-controller');
    assert.match(synced.reportingInstance, /^widget-controller-/);
    assert.equal(synced.regarding.kind, 'ConfigMap');
    assert.equal(synced.regarding.uid, obj.metadata.uid);
    assert.equal(must(synced.series, 'synced.series').count, 3);
    assert.ok(must(synced.series, 'synced.series').lastObservedTime);
    assert.equal(failed.type, 'Warning');
    assert.equal(failed.action, 'Connect');
    assert.equal(failed.note, 'could not reach db after 3 tries');
    assert.equal(must(failed.related, 'failed.related').name, 'evented-related');
    assert.equal(failed.series, undefined);

    // A fourth repeat updates the same Event.
    rec.eventf(obj, null, 'Normal', 'Synced', 'Sync', 'synced ok');
    await rec.flush();
    const again = await eventsAbout('evented');
    assert.equal(again.length, 2);
    assert.equal(again[1].metadata.name, synced.metadata.name);
    assert.equal(must(again[1].series, 'again[1].series').count, 4);
  });

  it('annotatedEventf (controller-runtime 0.25: the recorder is also an AnnotatedEventRecorder) writes the annotations on the Event', async () => {
    const obj = await configMap('annotated');
    const mgr = newManager(config, { logger: quiet() });
    const rec = mgr.getEventRecorder('annotating-controller');
    rec.annotatedEventf(obj, null, { 'example.com/trace': 'abc' }, 'Normal', 'Noted', 'Note', 'seen %d times', 2);
    await rec.flush();
    const [ev] = await eventsAbout('annotated');
    assert.equal(ev.note, 'seen 2 times');
    assert.equal(ev.action, 'Note');
    assert.deepEqual(ev.metadata.annotations, { 'example.com/trace': 'abc' });
  });

  it('an event about a cluster-scoped object is written where the server takes it (default; kube-system before 1.22), repeats included', async () => {
    const ns = await rest.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'evented-cluster' } },
    });
    const lines: LogLine[] = [];
    const mgr = newManager(config, { logger: capture(lines) });
    const rec = mgr.getEventRecorder('widget-controller');
    rec.eventf(ns, null, 'Normal', 'Reconciled', 'Reconcile', 'generation %d reconciled', 1);
    await rec.flush();
    rec.eventf(ns, null, 'Normal', 'Reconciled', 'Reconcile', 'generation %d reconciled', 1);
    await rec.flush();
    const everywhere = await rest.get<{ items: ServedEvent[] }>('/apis/events.k8s.io/v1/events');
    const events = everywhere.items.filter((e) => e.regarding?.name === 'evented-cluster');
    assert.equal(events.length, 1, JSON.stringify(lines.filter((l) => l.level >= 40)));
    // Servers before 1.22 take them only in kube-system; newer ones (and client-go) use default.
    const minor = apiServerMinor(join(process.env.KUBEBUILDER_ASSETS ?? '', 'kube-apiserver'));
    assert.equal(events[0].metadata.namespace, minor !== undefined && minor < 22 ? 'kube-system' : 'default');
    assert.equal(events[0].note, 'generation 1 reconciled');
    assert.equal(events[0].series?.count, 2);
    assert.deepEqual(
      lines.filter((l) => l.level >= 40),
      [],
      'nothing logged as dropped',
    );
  });

  it('a different note is a different event; the manager flushes pending events on shutdown', async () => {
    const obj = await configMap('evented-2');
    const mgr = newManager(config, { logger: quiet() });
    const ac = new AbortController();
    const done = mgr.start(ac.signal);
    await mgr.started();
    const rec = mgr.getEventRecorder('other');
    rec.eventf(obj, null, 'Normal', 'Scaled', 'Scale', 'to 1');
    rec.eventf(obj, null, 'Normal', 'Scaled', 'Scale', 'to 2');
    ac.abort();
    await done;
    const events = await eventsAbout('evented-2');
    assert.deepEqual(events.map((e) => [e.note, e.action, e.series?.count]).sort(), [
      ['to 1', 'Scale', undefined],
      ['to 2', 'Scale', undefined],
    ]);
  });
});

describe('events the API server forbids', () => {
  it("logs once, at error level, the @Rbac marker that is missing, also under Kubebuilder's core/v1 rule", async () => {
    // The RBAC a Kubebuilder user writes for GetEventRecorderFor (groups=core,resources=events):
    // it does not grant events.k8s.io/v1 Events, and the error names the marker that does.
    await rest.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: 'core-events-only' },
        rules: [{ apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] }],
      },
    });
    await rest.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: 'operator-core-events' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'core-events-only' },
        subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'operator' }],
      },
    });
    const obj = await configMap('denied');
    const lines: LogLine[] = [];
    const mgr = newManager(env.userConfig('operator'), { logger: capture(lines) });
    const rec = mgr.getEventRecorder('denied-controller');
    rec.eventf(obj, null, 'Normal', 'One', 'Do', 'first');
    rec.eventf(obj, null, 'Warning', 'Two', 'Do', 'second');
    await rec.flush();
    rec.eventf(obj, null, 'Normal', 'Three', 'Do', 'third');
    await rec.flush();
    const errors = lines.filter((l) => l.level >= 50);
    assert.equal(errors.length, 1, JSON.stringify(lines));
    assert.match(
      errors[0].msg,
      /@Rbac\(\{ groups: \['events\.k8s\.io'\], resources: \['events'\], verbs: \['create', 'patch'\] \}\)/,
    );
    assert.match(errors[0].msg, /forbids this manager to create events\.k8s\.io\/v1 Events/);
    assert.deepEqual(await eventsAbout('denied'), []);

    // The event writes count into rest_client_requests_total: three refused creates, nothing else.
    const metric = await must(
      mgr.getMetricsRegistry().getSingleMetric('rest_client_requests_total'),
      "mgr.getMetricsRegistry().getSingleMetric('rest_client_requests_total')",
    ).get();
    const count = (code: string, method: string) =>
      metric.values
        .filter((v) => v.labels.code === code && v.labels.method === method)
        .reduce((a, v) => a + v.value, 0);
    assert.equal(count('403', 'POST'), 3);
    assert.equal(count('201', 'POST'), 0);
    assert.equal(count('200', 'PATCH'), 0);
    assert.ok(
      metric.values.every(
        (v) => v.labels.host === new URL(must(config.getCurrentCluster(), 'config.getCurrentCluster()').server).host,
      ),
    );
  });
});

describe('rest_client_requests_total', () => {
  it("counts the client's requests and the manager's own in one counter", async () => {
    await configMap('counted');
    const mgr = newManager(config, { logger: quiet() });
    await mgr.getAPIReader().get(V1ConfigMap, { namespace: 'default', name: 'counted' });
    await mgr.getAPIReader().get(V1ConfigMap, { namespace: 'default', name: 'counted' });
    await assert.rejects(mgr.getAPIReader().get(V1ConfigMap, { namespace: 'default', name: 'absent' }));
    mgr
      .getEventRecorder('counter')
      .eventf(
        await mgr.getAPIReader().get(V1ConfigMap, { namespace: 'default', name: 'counted' }),
        null,
        'Normal',
        'Counted',
        'Count',
        'n',
      );
    await mgr.getEventRecorder('counter').flush();
    const text = await mgr.getMetricsRegistry().getSingleMetricAsString('rest_client_requests_total');
    const host = new URL(must(config.getCurrentCluster(), 'config.getCurrentCluster()').server).host;
    assert.match(
      text,
      new RegExp(`rest_client_requests_total\\{code="200",method="GET",host="${host.replace(/\./g, '\\.')}"\\} 3`),
    );
    assert.match(text, /rest_client_requests_total\{code="404",method="GET",host="[^"]+"\} 1/);
    assert.match(text, /rest_client_requests_total\{code="201",method="POST",host="[^"]+"\} 1/);
  });
});
