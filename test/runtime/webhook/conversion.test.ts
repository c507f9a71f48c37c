// CRD conversion over real HTTPS on 127.0.0.1: a Widget with hub v2 and spokes v1 and v3.
// Round trips lose no field (one v1 field that v2 lacks travels in an annotation, the usual
// pattern), mixed-version lists convert object by object, metadata is what the conversions wrote
// (name, namespace and uid may not change), and any failure fails the whole review naming the object.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Conversion } from '../../../src/runtime/webhook/index.js';
import { ConversionRegistry } from '../../../src/runtime/webhook/conversion.js';
import { metricValue, request, startServer, type Running } from './helpers.js';
import { must } from '../../helpers/must.js';

interface WidgetV1 extends KubernetesObject {
  spec: { size: number; color: string; tags?: string[]; priority?: number };
  status?: { ready: boolean };
}
interface WidgetV2 extends KubernetesObject {
  spec: { replicas: number; appearance: { color: string }; labels?: string[] };
  status?: { conditions: { type: string; status: string }[] };
}
interface WidgetV3 extends KubernetesObject {
  spec: { scale: { replicas: number }; color: string; labels?: string[] };
  status?: { ready: boolean };
}

const hub = { group: 'example.com', version: 'v2', kind: 'Widget' };
const PRIORITY = 'example.com/v1-priority';
let failOn: string | undefined;
let throwValue: unknown;

const v1: Conversion<WidgetV1, WidgetV2> = {
  convertTo(o) {
    if (o.spec.size < 0) throw new Error(`spec.size ${o.spec.size} is negative`);
    if (failOn === 'v1.to') throw throwValue;
    // v2 has no priority: keep it in an annotation, so that v1 -> v2 -> v1 loses nothing.
    const metadata = { ...o.metadata };
    if (o.spec.priority !== undefined)
      metadata.annotations = { ...metadata.annotations, [PRIORITY]: String(o.spec.priority) };
    if (failOn === 'v1.rename') metadata.name = 'renamed';
    if (failOn === 'v1.badannotation') metadata.annotations = { n: 1 as unknown as string };
    const out: WidgetV2 = { metadata, spec: { replicas: o.spec.size, appearance: { color: o.spec.color } } };
    if (o.spec.tags) out.spec.labels = o.spec.tags;
    if (o.status) out.status = { conditions: [{ type: 'Ready', status: o.status.ready ? 'True' : 'False' }] };
    return out;
  },
  convertFrom(h) {
    const { [PRIORITY]: priority, ...annotations } = h.metadata?.annotations ?? {};
    const out: WidgetV1 = {
      metadata: { ...h.metadata, annotations },
      spec: { size: h.spec.replicas, color: h.spec.appearance.color },
    };
    if (priority !== undefined) out.spec.priority = Number(priority);
    if (h.spec.labels) out.spec.tags = h.spec.labels;
    if (h.status) out.status = { ready: h.status.conditions.some((c) => c.type === 'Ready' && c.status === 'True') };
    return out;
  },
};
const v3: Conversion<WidgetV3, WidgetV2> = {
  async convertTo(o) {
    const out: WidgetV2 = { spec: { replicas: o.spec.scale.replicas, appearance: { color: o.spec.color } } };
    if (o.spec.labels) out.spec.labels = o.spec.labels;
    if (o.status) out.status = { conditions: [{ type: 'Ready', status: o.status.ready ? 'True' : 'False' }] };
    return out;
  },
  async convertFrom(h) {
    if (failOn === 'v3.from') throw throwValue;
    const out: WidgetV3 = { spec: { scale: { replicas: h.spec.replicas }, color: h.spec.appearance.color } };
    if (h.spec.labels) out.spec.labels = h.spec.labels;
    if (h.status) out.status = { ready: h.status.conditions.some((c) => c.type === 'Ready' && c.status === 'True') };
    return out;
  },
};

let srv: Running;
before(async () => {
  srv = await startServer((s) => {
    s.registerConversion(hub, 'v1', v1);
    s.registerConversion(hub, 'v3', v3);
  });
});
after(async () => srv?.stop());

const meta = (name: string) => ({
  name,
  namespace: 'ns1',
  uid: `uid-${name}`,
  resourceVersion: '42',
  generation: 3,
  labels: { app: 'w' },
  annotations: { note: 'keep me' },
});
const widgetV1 = (name: string, size = 3): WidgetV1 => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: meta(name),
  spec: { size, color: 'red', tags: ['a', 'b'] },
  status: { ready: true },
});
const widgetV2 = (name: string): WidgetV2 => ({
  apiVersion: 'example.com/v2',
  kind: 'Widget',
  metadata: meta(name),
  spec: { replicas: 5, appearance: { color: 'green' } },
  status: { conditions: [{ type: 'Ready', status: 'False' }] },
});
const widgetV3 = (name: string): WidgetV3 => ({
  apiVersion: 'example.com/v3',
  kind: 'Widget',
  metadata: meta(name),
  spec: { scale: { replicas: 7 }, color: 'blue', labels: ['z'] },
});

async function convert(
  desiredAPIVersion: string,
  objects: unknown[],
  uid = '0f6c1c2e-1111-4c3b-9d2a-5b8f3c4d2e10',
  reviewVersion = 'apiextensions.k8s.io/v1',
) {
  const r = await request(must(srv.server.port, 'srv.server.port'), '/convert', {
    apiVersion: reviewVersion,
    kind: 'ConversionReview',
    request: { uid, desiredAPIVersion, objects },
  });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.apiVersion, reviewVersion);
  assert.equal(r.json.kind, 'ConversionReview');
  assert.equal(r.json.response.uid, uid);
  return r.json.response as { convertedObjects: KubernetesObject[]; result: { status: string; message?: string } };
}

describe('conversion webhook', () => {
  it('converts v1 -> v2 (hub) -> v1 and v1 -> v3 -> v1 (spoke to spoke through the hub) without losing a field', async () => {
    const original = widgetV1('round');
    const toHub = await convert('example.com/v2', [original]);
    assert.deepEqual(toHub.result, { status: 'Success' });
    assert.deepEqual(toHub.convertedObjects, [
      {
        apiVersion: 'example.com/v2',
        kind: 'Widget',
        metadata: meta('round'),
        spec: { replicas: 3, appearance: { color: 'red' }, labels: ['a', 'b'] },
        status: { conditions: [{ type: 'Ready', status: 'True' }] },
      },
    ]);
    const back = await convert('example.com/v1', toHub.convertedObjects);
    assert.deepEqual(back.convertedObjects, [original]);
    const toV3 = await convert('example.com/v3', [original]);
    assert.deepEqual(toV3.convertedObjects, [
      {
        apiVersion: 'example.com/v3',
        kind: 'Widget',
        metadata: meta('round'),
        spec: { scale: { replicas: 3 }, color: 'red', labels: ['a', 'b'] },
        status: { ready: true },
      },
    ]);
    assert.deepEqual((await convert('example.com/v1', toV3.convertedObjects)).convertedObjects, [original]);
  });

  it('converts a mixed-version list in order; objects already at the desired version pass through', async () => {
    const list = [widgetV1('a'), widgetV2('b'), widgetV3('c'), widgetV1('d')];
    const res = await convert('example.com/v1', list);
    assert.deepEqual(res.result, { status: 'Success' });
    assert.deepEqual(
      res.convertedObjects.map((o) => [o.apiVersion, o.metadata?.name]),
      [
        ['example.com/v1', 'a'],
        ['example.com/v1', 'b'],
        ['example.com/v1', 'c'],
        ['example.com/v1', 'd'],
      ],
    );
    assert.deepEqual(res.convertedObjects[0], list[0]);
    assert.deepEqual(res.convertedObjects[1], {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: meta('b'),
      spec: { size: 5, color: 'green' },
      status: { ready: false },
    });
    assert.deepEqual(res.convertedObjects[2], {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: meta('c'),
      spec: { size: 7, color: 'blue', tags: ['z'] },
    });
    const empty = await convert('example.com/v3', []);
    assert.deepEqual(empty, {
      uid: '0f6c1c2e-1111-4c3b-9d2a-5b8f3c4d2e10',
      convertedObjects: [],
      result: { status: 'Success' },
    });
  });

  it('keeps the metadata a conversion writes: a field the hub lacks survives a round trip in an annotation', async () => {
    const original: WidgetV1 = { ...widgetV1('meta'), spec: { ...widgetV1('meta').spec, priority: 7 } };
    const res = await convert('example.com/v2', [original]);
    assert.deepEqual(res.convertedObjects[0].metadata, {
      ...meta('meta'),
      annotations: { note: 'keep me', [PRIORITY]: '7' },
    });
    // v2 -> v1 reads it back and drops the annotation; v2 -> v3 (which knows nothing of it) keeps it.
    assert.deepEqual((await convert('example.com/v1', res.convertedObjects)).convertedObjects, [original]);
    assert.deepEqual(
      (await convert('example.com/v3', res.convertedObjects)).convertedObjects[0].metadata,
      res.convertedObjects[0].metadata,
    );
    // A conversion that returns no metadata gets the source's (v3 here).
    assert.deepEqual(
      (await convert('example.com/v2', [widgetV3('nometa')])).convertedObjects[0].metadata,
      meta('nometa'),
    );
  });

  it('fails the review when a conversion changes name, namespace or uid, or writes a label that is not a string', async () => {
    for (const [flag, message] of [
      ['v1.rename', /convertTo \(v1 -> v2\) changed metadata\.name from "m" to "renamed"; the API server refuses/],
      ['v1.badannotation', /convertTo \(v1 -> v2\) returned metadata\.annotations\["n"\] = 1, not a string/],
    ] as const) {
      failOn = flag;
      try {
        const res = await convert('example.com/v2', [widgetV1('m')]);
        assert.deepEqual([res.result.status, res.convertedObjects], ['Failure', []]);
        assert.match(must(res.result.message, 'res.result.message'), message);
      } finally {
        failOn = undefined;
      }
    }
  });

  it('answers an apiextensions.k8s.io/v1beta1 ConversionReview in v1beta1', async () => {
    const res = await convert('example.com/v2', [widgetV1('beta')], 'b1', 'apiextensions.k8s.io/v1beta1');
    assert.deepEqual(res.result, { status: 'Success' });
    assert.equal(res.convertedObjects[0].apiVersion, 'example.com/v2');
  });

  it('fails the whole review with a message naming the object when a conversion throws', async () => {
    const res = await convert('example.com/v2', [widgetV1('fine'), widgetV1('broken', -1)]);
    assert.deepEqual(res.convertedObjects, []);
    assert.equal(res.result.status, 'Failure');
    assert.equal(
      res.result.message,
      'cannot convert Widget "ns1/broken" from example.com/v1 to example.com/v2: convertTo (v1 -> v2) failed: spec.size -1 is negative',
    );
  });

  it('fails on an unknown version, an unregistered kind, another group, or an object without apiVersion', async () => {
    const cases: [string, unknown, RegExp][] = [
      [
        'example.com/v9',
        widgetV1('x'),
        /Widget "ns1\/x" from example\.com\/v1 to example\.com\/v9: version v9 is neither the hub \(v2\) nor a registered spoke \(v1, v3\)/,
      ],
      ['example.com/v2', { ...widgetV1('g'), kind: 'Gadget' }, /no conversion is registered for Gadget\.example\.com/],
      ['other.io/v2', widgetV1('o'), /example\.com\/v1 and other\.io\/v2 are not the same API group/],
      [
        'example.com/v2',
        { kind: 'Widget', metadata: { name: 'n' } },
        /Widget "n" from <no apiVersion>.*has no apiVersion or kind/,
      ],
      ['example.com/v2', 'text', /object #0 is not a JSON object/],
    ];
    for (const [desired, obj, message] of cases) {
      const res = await convert(desired, [obj]);
      assert.equal(res.result.status, 'Failure');
      assert.match(must(res.result.message, 'res.result.message'), message);
    }
  });

  it('a conversion throwing a non-Error fails the review and is counted as a panic', async () => {
    const before = await metricValue(srv.registry, 'controller_runtime_webhook_panics_total');
    failOn = 'v3.from';
    throwValue = { weird: true };
    try {
      const res = await convert('example.com/v3', [widgetV1('p')]);
      assert.equal(res.result.status, 'Failure');
      assert.equal(
        res.result.message,
        'cannot convert Widget "ns1/p" from example.com/v1 to example.com/v3: convertFrom (v2 -> v3) failed: {"weird":true}',
      );
    } finally {
      failOn = undefined;
    }
    assert.equal(await metricValue(srv.registry, 'controller_runtime_webhook_panics_total'), before + 1);
  });

  it('answers 400 to a body that is not an apiextensions.k8s.io/v1 or v1beta1 ConversionReview with a request', async () => {
    const port = must(srv.server.port, 'srv.server.port');
    const bad: [unknown, RegExp][] = [
      [
        { apiVersion: 'apiextensions.k8s.io/v2', kind: 'ConversionReview', request: {} },
        /expected an apiextensions\.k8s\.io\/v1 or v1beta1 ConversionReview, got apiextensions\.k8s\.io\/v2 ConversionReview/,
      ],
      [{ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview' }, /has no request/],
      [
        {
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'ConversionReview',
          request: { desiredAPIVersion: 'example.com/v1', objects: [] },
        },
        /has no uid/,
      ],
      [
        { apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', request: { uid: 'u', objects: [] } },
        /has no desiredAPIVersion/,
      ],
      [
        {
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'ConversionReview',
          request: { uid: 'u', desiredAPIVersion: 'example.com/v1', objects: {} },
        },
        /has no objects list/,
      ],
    ];
    for (const [body, message] of bad) {
      const r = await request(port, '/convert', body);
      assert.equal(r.status, 400);
      assert.match(r.text, message);
    }
  });
});

describe('ConversionRegistry', () => {
  it('names the mistakes: the hub version as a spoke, a second hub, a duplicate spoke, a missing function', () => {
    const r = new ConversionRegistry();
    assert.match(must(r.problem(hub, 'v2'), "r.problem(hub, 'v2')"), /v2 is the hub version of Widget\.example\.com/);
    r.add(hub, 'v1', v1);
    assert.match(
      must(r.problem({ ...hub, version: 'v3' }, 'v1'), "r.problem({ ...hub, version: 'v3' }, 'v1')"),
      /already has hub version v2; it cannot also have hub v3/,
    );
    assert.throws(() => r.add(hub, 'v1', v1), /already registered/);
    assert.throws(
      () => r.add(hub, 'v4', { convertTo: () => ({}) } as never),
      /needs convertTo\(\) and convertFrom\(\)/,
    );
    assert.equal(r.get('example.com', 'Widget')?.hubVersion, 'v2');
  });
});
