// The fake API server on the hostile requests of issue #37 (each answer is the one kube-apiserver
// 1.37 gave, as test/fake/fuzz.test.ts compares them): no API server needed.
import assert from 'node:assert/strict';
import http from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FakeAPIServer } from '../../src/testing/index.js';
import { parseWire } from '../../src/testing/fake/wire.js';
import type { Served } from './served.js';

/** A managedFields entry as served. */
type ManagedField = { manager: string; operation: string; fieldsV1: unknown };

const root = process.env.KUBEFORGE_REPO_ROOT ?? process.cwd();

interface Answer {
  code: number;
  body: Served;
  text: string;
  warnings: string[];
}

describe('the fake API server on hostile requests', () => {
  let fake: FakeAPIServer;
  const send = (method: string, path: string, body?: string, contentType = 'application/json') =>
    new Promise<Answer>((resolve, reject) => {
      const u = new URL(fake.url);
      const req = http.request(
        {
          hostname: u.hostname,
          port: u.port,
          method,
          path,
          headers: body === undefined ? {} : { 'Content-Type': contentType },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown = text;
            try {
              parsed = parseWire(text).value;
            } catch {
              /* text */
            }
            const warnings = (res.headersDistinct?.warning ?? []).map(
              (w) => JSON.parse(w.slice('299 - '.length)) as string,
            );
            resolve({ code: res.statusCode ?? 0, body: parsed, text, warnings });
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const ns = (name: string) => send('POST', '/api/v1/namespaces', JSON.stringify({ metadata: { name } }));

  before(async () => {
    fake = await FakeAPIServer.start({ crdDirectoryPaths: [join(root, 'test/fixtures/fake')] });
    await ns('h');
  });
  after(async () => {
    await fake?.stop();
  });

  it('serves ClusterRoles under rbac.authorization.k8s.io (not rbac.k8s.io)', async () => {
    const body = JSON.stringify({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'reader' },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }],
    });
    assert.equal((await send('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', body)).code, 201);
    assert.equal((await send('GET', '/apis/rbac.k8s.io/v1/clusterroles')).code, 404);
    assert.equal((await send('GET', '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas')).code, 200);
  });

  it('shows core/v1 and events.k8s.io/v1 Events as the same objects', async () => {
    const ev = {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'e1' },
      eventTime: '2026-01-02T03:04:05.000000Z',
      reportingController: 'kubeforge.io/test',
      reportingInstance: 'i',
      action: 'Start',
      reason: 'Started',
      type: 'Normal',
      regarding: { kind: 'Pod', name: 'p', namespace: 'h' },
      note: 'hello',
    };
    assert.equal((await send('POST', '/apis/events.k8s.io/v1/namespaces/h/events', JSON.stringify(ev))).code, 201);
    const core = await send('GET', '/api/v1/namespaces/h/events/e1');
    assert.equal(core.code, 200);
    assert.equal(core.body.message, 'hello');
    assert.deepEqual(core.body.involvedObject, { kind: 'Pod', name: 'p', namespace: 'h' });
    assert.equal(core.body.reportingComponent, 'kubeforge.io/test');
  });

  it('keeps integers beyond 2^53 exactly', async () => {
    const text = `{"apiVersion":"fake.kubeforge.io/v1","kind":"Widget","metadata":{"name":"big"},"spec":{"size":3,"raw":{"n":9007199254740993}}}`;
    assert.equal((await send('POST', '/apis/fake.kubeforge.io/v1/namespaces/h/widgets', text)).code, 201);
    const got = await send('GET', '/apis/fake.kubeforge.io/v1/namespaces/h/widgets/big');
    assert.match(got.text, /"n":9007199254740993[,}]/);
  });

  it('refuses JSON nested 10,001 deep with 400, and bodies over 3 MiB with 413', async () => {
    const deep = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"data":${'{"a":'.repeat(10_001)}1${'}'.repeat(10_001)}}`;
    const a = await send('POST', '/api/v1/namespaces/h/configmaps', deep);
    assert.equal(a.code, 400);
    assert.match(a.body.message, /json parse error: invalid character '\{' exceeded max depth/);
    const big = JSON.stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'big' },
      data: { a: 'x'.repeat(3_200_000) },
    });
    const b = await send('POST', '/api/v1/namespaces/h/configmaps', big);
    assert.equal(b.code, 413);
    assert.equal(b.body.message, 'Request entity too large: limit is 3145728');
  });

  it('words malformed bodies as the server does, and warns of duplicate keys', async () => {
    const a = await send(
      'POST',
      '/api/v1/namespaces/h/configmaps',
      '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"',
    );
    assert.equal(
      a.body.message,
      'the object provided is unrecognized (must be of type ConfigMap): couldn\'t get version/kind; json parse error: unexpected end of JSON input ({"apiVersion":"v1","kind":"Con ...)',
    );
    const d = await send(
      'POST',
      '/api/v1/namespaces/h/configmaps',
      '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","name":"dup"}}',
    );
    assert.equal(d.code, 201);
    assert.equal(d.body.metadata.name, 'dup');
    assert.deepEqual(d.warnings, ['duplicate field "metadata.name"']);
  });

  it('refuses a bogus dryRun without creating the object, and other malformed options', async () => {
    const cm = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dry' } });
    const a = await send('POST', '/api/v1/namespaces/h/configmaps?dryRun=bogus', cm);
    assert.equal(a.code, 422);
    assert.equal(
      a.body.message,
      'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["bogus"]: supported values: "All"',
    );
    assert.equal((await send('GET', '/api/v1/namespaces/h/configmaps/dry')).code, 404);
    const l = await send('GET', '/api/v1/namespaces/h/configmaps?limit=abc');
    assert.deepEqual([l.code, l.body.message], [400, 'strconv.ParseInt: parsing "abc": invalid syntax']);
    const rv = await send('GET', '/api/v1/namespaces/h/configmaps?resourceVersion=abc');
    assert.equal(rv.code, 400);
    assert.match(rv.body.message, /^invalid resource version: resourceVersion: Invalid value: "abc"/);
  });

  it('cuts generateName to 58 characters', async () => {
    const gn = 'g'.repeat(70);
    const a = await send('POST', '/api/v1/namespaces/h/configmaps', JSON.stringify({ metadata: { generateName: gn } }));
    assert.equal(a.code, 201);
    assert.equal(a.body.metadata.name.length, 63);
    assert.ok(a.body.metadata.name.startsWith(gn.slice(0, 58)));
  });

  it('patches /scale, and prunes metadata fields of a custom resource', async () => {
    const w = JSON.stringify({
      apiVersion: 'fake.kubeforge.io/v1',
      kind: 'Widget',
      metadata: { name: 's', foo: 'bar' },
      spec: { size: 3 },
    });
    const c = await send('POST', '/apis/fake.kubeforge.io/v1/namespaces/h/widgets', w);
    assert.equal(c.code, 201);
    assert.equal(c.body.metadata.foo, undefined);
    assert.deepEqual(c.warnings, ['unknown field "metadata.foo"']);
    const p = await send(
      'PATCH',
      '/apis/fake.kubeforge.io/v1/namespaces/h/widgets/s/scale',
      '{"spec":{"replicas":4}}',
      'application/merge-patch+json',
    );
    assert.equal(p.code, 200);
    assert.equal(p.body.spec.replicas, 4);
  });

  it('refuses apply bodies the server refuses, in its words', async () => {
    const apply = (body: object) =>
      send(
        'PATCH',
        '/api/v1/namespaces/h/configmaps/ap?fieldManager=t',
        JSON.stringify(body),
        'application/apply-patch+yaml',
      );
    const mf = await apply({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'ap', managedFields: [{ manager: 'x' }] },
    });
    assert.deepEqual([mf.code, mf.body.message], [400, 'metadata.managedFields must be nil']);
    const other = await apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'other' } });
    assert.deepEqual(
      [other.code, other.body.message],
      [400, 'the name of the object (other) does not match the name on the URL (ap)'],
    );
    const noType = await apply({ metadata: { name: 'ap' } });
    assert.deepEqual([noType.code, noType.body.message], [400, 'invalid object type: /, Kind=']);
    const created = await apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ap' } });
    assert.equal(created.code, 201);
  });

  it('warns of a custom resource finalizer without a domain', async () => {
    const w = JSON.stringify({
      apiVersion: 'fake.kubeforge.io/v1',
      kind: 'Widget',
      metadata: { name: 'f', finalizers: ['cleanup'] },
      spec: { size: 3 },
    });
    const c = await send('POST', '/apis/fake.kubeforge.io/v1/namespaces/h/widgets', w);
    assert.equal(c.code, 201);
    assert.deepEqual(c.warnings, [
      'metadata.finalizers: "cleanup": prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers',
    ]);
  });
  // The gaps the fuzzer listed, closed (each answer is kube-apiserver 1.37.2's for the same request).
  it('records an Update as structured-merge-diff does: the maps a write creates with their "."', async () => {
    const c = await send(
      'POST',
      '/api/v1/namespaces/h/configmaps?fieldManager=mf',
      JSON.stringify({ metadata: { name: 'mf', labels: { x: '1' }, finalizers: ['a.io/b'] }, data: { a: '1' } }),
    );
    assert.equal(c.code, 201);
    assert.deepEqual(
      c.body.metadata.managedFields.map((e: ManagedField) => [e.manager, e.operation, JSON.stringify(e.fieldsV1)]),
      [
        [
          'mf',
          'Update',
          '{"f:data":{".":{},"f:a":{}},"f:metadata":{"f:finalizers":{".":{},"v:\\"a.io/b\\"":{}},"f:labels":{".":{},"f:x":{}}}}',
        ],
      ],
    );
    const ns = await send('POST', '/api/v1/namespaces?fieldManager=mf', JSON.stringify({ metadata: { name: 'h-mf' } }));
    // The namespace's kubernetes finalizer is the strategy's, not the writer's; its name label is a default.
    assert.deepEqual(
      ns.body.metadata.managedFields.map((e: ManagedField) => JSON.stringify(e.fieldsV1)),
      ['{"f:metadata":{"f:labels":{".":{},"f:kubernetes.io/metadata.name":{}}}}'],
    );
  });

  it('stores an update of a cluster-scoped object that names a namespace, without it', async () => {
    await send('POST', '/api/v1/namespaces', JSON.stringify({ metadata: { name: 'h-cs', labels: { app: 'x' } } }));
    const u = await send(
      'PUT',
      '/api/v1/namespaces/h-cs',
      JSON.stringify({ metadata: { name: 'h-cs', namespace: 'other' } }),
    );
    assert.equal(u.code, 200);
    assert.equal(u.body.metadata.namespace, undefined);
    const g = await send('GET', '/api/v1/namespaces/h-cs');
    assert.deepEqual(g.body.metadata.labels, { 'kubernetes.io/metadata.name': 'h-cs' });
  });

  it("refuses an applied value of the wrong type in the typed conversion's words", async () => {
    const a = await send(
      'PATCH',
      '/api/v1/namespaces/h/configmaps/typed?fieldManager=t',
      '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"typed"},"data":{"a":"1","n":9007199254740993}}',
      'application/apply-patch+yaml',
    );
    assert.deepEqual(
      [a.code, a.body.message],
      [
        500,
        'failed to create typed patch object (/typed; /v1, Kind=ConfigMap): .data.n: expected string, got &value.valueUnstructured{Value:9007199254740993}',
      ],
    );
  });

  it("answers 422 naming the patch when a JSON patch's result does not decode", async () => {
    await send(
      'POST',
      '/api/v1/namespaces/h/configmaps',
      JSON.stringify({ metadata: { name: 'jp' }, data: { a: '1' } }),
    );
    const p = await send(
      'PATCH',
      '/api/v1/namespaces/h/configmaps/jp',
      '[{"op":"add","path":"/data/n","value":9007199254740993}]',
      'application/json-patch+json',
    );
    assert.equal(p.code, 422);
    assert.deepEqual(
      p.body.details.causes.map((c: { field?: string }) => c.field),
      ['patch'],
    );
    assert.match(
      p.body.message,
      /^ "" is invalid: patch: Invalid value: "\{\\"apiVersion\\":\\"v1\\",\\"data\\":\{\\"a\\":\\"1\\",\\"n\\":9007199254740993\},.*": json: cannot unmarshal number into Go struct field ConfigMap.data of type string$/,
    );
  });
});
