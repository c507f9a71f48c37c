// Printer columns as the API server and kubectl judge them. The server takes any jsonPath that
// starts with '.', so `manifests` refuses only what it refuses; what kubectl cannot read, or a
// field the schema lacks, is a warning. The corpus is the idiom real projects commit (Ready
// columns with filters, wildcards, quoted keys, indexes), and the real-server test installs one
// CRD with every path of it and asks `kubectl get` for the columns.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { checkCRD } from '../../src/manifests/crdcheck/index.js';
import { missingField, parsePrintColumnPath } from '../../src/manifests/crdcheck/jsonpath.js';
import type { JSONSchemaProps } from '../../src/schema/jsonschema.js';
import { RestClient } from '../../src/runtime/client/rest.js';
import { installCRDs, TestEnvironment, type CRDObject } from '../../src/testing/index.js';

const obj = (properties: Record<string, JSONSchemaProps>): JSONSchemaProps => ({ type: 'object', properties });
const str: JSONSchemaProps = { type: 'string' };
const conditions: JSONSchemaProps = {
  type: 'array',
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': ['type'],
  items: {
    type: 'object',
    required: ['type', 'status'],
    properties: { type: str, status: str, message: str, reason: str },
  },
};
const schema: JSONSchemaProps = obj({
  apiVersion: str,
  kind: str,
  metadata: { type: 'object' },
  spec: obj({
    secretName: str,
    replicas: { type: 'integer' },
    template: obj({
      image: str,
      ports: { type: 'array', items: obj({ containerPort: { type: 'integer' }, name: str }) },
    }),
    selector: { type: 'object', additionalProperties: str },
    extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
  }),
  status: obj({
    phase: str,
    conditions,
    addresses: { type: 'array', items: obj({ type: str, value: str }) },
  }),
});

/**
 * Paths as real projects write them (cert-manager, cluster-api, Crossplane, Kubebuilder's own
 * docs), with what kubectl shows for OBJECT below: the server renders the first result only.
 */
const CORPUS: { path: string; shows: string | null }[] = [
  { path: '.status.conditions[?(@.type=="Ready")].status', shows: 'True' },
  { path: ".status.conditions[?(@.type=='Ready')].message", shows: 'all good' },
  { path: '.status.conditions[?(@.type=="Synced")].reason', shows: 'Applied' },
  { path: '.status.addresses[*].value', shows: '10.0.0.1' },
  { path: '.status.addresses[0].value', shows: '10.0.0.1' },
  { path: '.status.addresses[-1:].type', shows: 'External' },
  { path: '.spec.template.ports[*].containerPort', shows: '80' },
  { path: ".spec.selector['app\\.kubernetes\\.io/name']", shows: 'web' },
  { path: '.spec.selector.app\\.kubernetes\\.io/name', shows: 'web' },
  // The renderer reads a quoted key again as a path, so its unescaped dots are steps: nothing there.
  { path: ".spec.selector['app.kubernetes.io/name']", shows: null },
  { path: '.spec.selector.tier', shows: 'front' },
  { path: '.spec.extra.anything', shows: 'kept' },
  { path: '.spec.secretName', shows: 'tls' },
  { path: '.spec.replicas', shows: '3' },
  { path: '.status.phase', shows: 'Running' },
  { path: '.metadata.labels.team', shows: 'blue' },
  { path: ".metadata.annotations['example\\.com/owner']", shows: 'ops' },
];

const OBJECT = {
  apiVersion: 'printcolumns.example.com/v1',
  kind: 'Site',
  metadata: {
    name: 'one',
    namespace: 'default',
    labels: { team: 'blue' },
    annotations: { 'example.com/owner': 'ops' },
  },
  spec: {
    secretName: 'tls',
    replicas: 3,
    template: {
      image: 'nginx',
      ports: [
        { containerPort: 80, name: 'http' },
        { containerPort: 443, name: 'https' },
      ],
    },
    selector: { 'app.kubernetes.io/name': 'web', tier: 'front' },
    extra: { anything: 'kept' },
  },
  status: {
    phase: 'Running',
    conditions: [
      { type: 'Ready', status: 'True', message: 'all good', reason: 'Done' },
      { type: 'Synced', status: 'True', reason: 'Applied' },
    ],
    addresses: [
      { type: 'Internal', value: '10.0.0.1' },
      { type: 'External', value: '10.0.0.2' },
    ],
  },
};

const crd = (columns: { name: string; type: string; jsonPath: string }[]): CRDObject =>
  ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'sites.printcolumns.example.com' },
    spec: {
      group: 'printcolumns.example.com',
      names: { kind: 'Site', listKind: 'SiteList', plural: 'sites', singular: 'site' },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: schema },
          subresources: { status: {} },
          additionalPrinterColumns: columns,
        },
      ],
    },
  }) as unknown as CRDObject;

const columns = CORPUS.map((c, i) => ({ name: `C${i}`, type: 'string', jsonPath: c.path }));

describe('printer column paths', () => {
  it('parses the idioms kubectl reads', () => {
    for (const { path } of CORPUS) assert.ok(parsePrintColumnPath(path).ok, path);
    assert.deepEqual(parsePrintColumnPath('.status.conditions[?(@.type=="Ready")].status'), {
      ok: true,
      steps: [
        { kind: 'field', name: 'status' },
        { kind: 'field', name: 'conditions' },
        { kind: 'elements' },
        { kind: 'field', name: 'status' },
      ],
    });
    assert.deepEqual(parsePrintColumnPath(".metadata.labels['a\\.b/c']"), {
      ok: true,
      steps: [
        { kind: 'field', name: 'metadata' },
        { kind: 'field', name: 'labels' },
        { kind: 'field', name: 'a.b/c' },
      ],
    });
    assert.deepEqual(parsePrintColumnPath(".metadata.labels['a.b/c']"), {
      ok: true,
      steps: ['metadata', 'labels', 'a', 'b/c'].map((name) => ({ kind: 'field', name })),
    });
    for (const bad of [
      '.status.conditions[?(@.type=="Ready")',
      ".spec['x]",
      '.spec[foo]',
      '.status.conditions[?@.type]',
      '.spec["x"]',
      '.spec[0',
    ]) {
      assert.equal(parsePrintColumnPath(bad).ok, false, bad);
    }
  });

  it('finds field steps the schema lacks, and stops where it cannot know', () => {
    const steps = (p: string) => {
      const r = parsePrintColumnPath(p);
      assert.ok(r.ok, p);
      return r.steps;
    };
    for (const { path } of CORPUS) assert.equal(missingField(schema, steps(path)), undefined, path);
    assert.equal(missingField(schema, steps('.status.conditions[?(@.type=="Ready")].stat')), '.status.conditions.stat');
    assert.equal(missingField(schema, steps('.spec.secretname')), '.spec.secretname');
    assert.equal(missingField(schema, steps('.sptec.replicas')), '.sptec');
    assert.equal(missingField(schema, steps('.metadata.whatever')), undefined, "ObjectMeta is the server's");
    assert.equal(missingField(schema, steps('..whatever')), undefined, 'a recursive step is not followed');
  });

  it('manifests refuses only what the API server refuses; the rest is a warning', () => {
    const diags = checkCRD(crd(columns));
    assert.deepEqual(
      diags.map((d) => `${d.severity} ${d.code} ${d.message}`),
      [],
    );
    const refused = checkCRD(crd([{ name: 'A', type: 'string', jsonPath: 'status.phase' }]));
    assert.deepEqual(
      refused.map((d) => `${d.severity} ${d.code}`),
      ['error KF4609'],
    );
    const warned = checkCRD(
      crd([
        { name: 'A', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")' },
        { name: 'B', type: 'string', jsonPath: '.status.phaze' },
      ]),
    );
    assert.deepEqual(
      warned.map((d) => `${d.severity} ${d.code}`),
      ['warning KF4609', 'warning KF4609'],
    );
    assert.match(
      warned[0].message,
      /filter at character 19 that is not closed with '\)\]'.*API server takes it but cannot parse it/,
    );
    assert.match(warned[1].message, /has no field \.status\.phaze/);
  });
});

describe('printer column paths on the real API server and kubectl', () => {
  let env: TestEnvironment;
  let kubectl = true;
  before(async () => {
    kubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0;
    env = new TestEnvironment({ useExistingCluster: false });
    await env.start();
  });
  after(async () => {
    await env?.stop();
  });

  it('the server takes every path of the corpus and of the warnings, and refuses one without the dot', async () => {
    await installCRDs(env.config, {
      crds: [
        crd([
          ...columns,
          { name: 'Bad', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")' },
          { name: 'Gone', type: 'string', jsonPath: '.status.phaze' },
        ]),
      ],
      timeoutMs: 60_000,
    });
    await assert.rejects(
      installCRDs(env.config, {
        crds: [
          {
            ...crd([{ name: 'A', type: 'string', jsonPath: 'status.phase' }]),
            metadata: { name: 'sites.printcolumns.example.com' },
          } as CRDObject,
        ],
        timeoutMs: 20_000,
      }),
      /jsonPath|must be a simple json path/,
    );
  });

  it('the server renders each column of the corpus as the path says, and kubectl get shows it', async () => {
    await installCRDs(env.config, { crds: [crd(columns)], timeoutMs: 60_000 });
    const client = new RestClient(env.config);
    let table: { columnDefinitions: { name: string }[]; rows: { cells: unknown[] }[] };
    try {
      const { status, ...rest } = OBJECT;
      const created = (await client.request('POST', '/apis/printcolumns.example.com/v1/namespaces/default/sites', {
        body: rest,
      })) as { metadata: { resourceVersion: string } };
      await client.request('PUT', '/apis/printcolumns.example.com/v1/namespaces/default/sites/one/status', {
        body: { ...OBJECT, metadata: { ...OBJECT.metadata, resourceVersion: created.metadata.resourceVersion } },
      });
      // What kubectl get asks for: the server-side Table.
      table = await client.request('GET', '/apis/printcolumns.example.com/v1/namespaces/default/sites/one', {
        accept: 'application/json;as=Table;v=v1;g=meta.k8s.io',
      });
    } finally {
      client.close();
    }
    assert.deepEqual(
      table.columnDefinitions.map((c) => c.name),
      ['Name', ...columns.map((c) => c.name)],
    );
    assert.deepEqual(table.rows[0].cells, ['one', ...CORPUS.map((c) => c.shows)]);
    if (!kubectl) assert.fail('kubectl is not on PATH: install kubernetes-client (Debian) to run this check');
    const r = spawnSync(
      'kubectl',
      ['--kubeconfig', env.kubeconfigPath, 'get', 'sites.printcolumns.example.com', 'one', '-n', 'default'],
      { encoding: 'utf8' },
    );
    assert.equal(r.status, 0, r.stderr);
    const [header, row] = r.stdout.trim().split('\n');
    assert.deepEqual(header.trim().split(/\s+/), ['NAME', ...columns.map((c) => c.name)]);
    // kubectl prints an empty cell for a column with no value.
    for (const c of CORPUS) if (c.shows) assert.ok(row.includes(c.shows), `${c.path}: ${c.shows} not in ${row}`);
  });
});
