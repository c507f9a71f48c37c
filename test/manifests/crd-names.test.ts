// CRD names and versions: flect-style plurals (controller-gen's default resource path),
// versions sorted by name as controller-gen does, storage defaulting.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Reporter } from '../../src/diagnostics/index.js';
import { getMarkerDefinition } from '../../src/markers/definitions.js';
import type { MarkerValue } from '../../src/collector/collector.js';
import { generateCRDs, pluralize, type KindVersion } from '../../src/manifests/crd.js';
import { crdOriginOf } from '../../src/schema/origin.js';
import { must } from '../helpers/must.js';

const at = { file: 'x.ts', line: 1, column: 1 };
const mk = (name: string, args?: unknown): MarkerValue =>
  ({
    name,
    def: must(getMarkerDefinition(name), 'getMarkerDefinition(name)'),
    args,
    source: 'decorator',
    ...at,
  }) as MarkerValue;
const kv = (version: string, markers: MarkerValue[] = []): KindVersion => ({
  group: 'g.example.com',
  version,
  kind: 'Thing',
  schema: { type: 'object' },
  markers,
  at,
});

describe('pluralize', () => {
  it('pluralises as flect does (controller-gen: strings.ToLower(flect.Pluralize(Kind)))', () => {
    const cases: Record<string, string> = {
      CronJob: 'cronjobs',
      Policy: 'policies',
      Gateway: 'gateways',
      Status: 'statuses',
      Index: 'indices',
      Matrix: 'matrices',
      Class: 'classes',
      Box: 'boxes',
      Mesh: 'meshes',
      Match: 'matches',
      Person: 'people',
      Salesperson: 'salespeople',
      Child: 'children',
      Wolf: 'wolves',
      Knife: 'knives',
      Analysis: 'analyses',
      Data: 'data',
      Metadata: 'metadata',
      Series: 'series',
      Proxy: 'proxies',
      Key: 'keys',
      Photo: 'photos',
      Hero: 'heroes',
      TestQuota: 'testquotas',
      Quiz: 'quizzes',
      Endpoints: 'endpoints',
      Database: 'databases',
      Node: 'nodes',
      Ingress: 'ingresses',
      Size: 'sizes',
      Woman: 'women',
      Nucleus: 'nuclei',
      Criterion: 'criteria',
      Radio: 'radios',
      Memcached: 'memcacheds',
      Foo: 'foos',
      Widget: 'widgets',
    };
    for (const [s, p] of Object.entries(cases)) assert.equal(pluralize(s), p, s);
  });

  it("keeps flect's own quirks, since controller-gen has them too", () => {
    // A Kind that needs another plural says so with @Resource({ path }). flect v1.0.3: -o takes -oes,
    // and a word ending in -eta reads as the plural of -etum.
    assert.equal(pluralize('Leaf'), 'leaves');
    assert.equal(pluralize('Virus'), 'viruses');
    assert.equal(pluralize('Repo'), 'repoes');
    assert.equal(pluralize('Beta'), 'beta');
  });
});

describe('generateCRDs: versions', () => {
  it('sorts versions by name (controller-gen sorts them as strings) and keeps one storage version', () => {
    const d = new Reporter();
    const [crd] = generateCRDs([kv('v2'), kv('v1beta1', [mk('StorageVersion')]), kv('v10'), kv('v1')], 'v0', d);
    assert.deepEqual(d.diagnostics(), []);
    assert.deepEqual(
      crd.spec.versions.map((v) => [v.name, v.storage]),
      [
        ['v1', false],
        ['v10', false],
        ['v1beta1', true],
        ['v2', false],
      ],
    );
    assert.equal(crd.metadata.name, 'things.g.example.com');
  });

  it('makes a single version the storage version implicitly', () => {
    const d = new Reporter();
    const [crd] = generateCRDs([kv('v1')], 'v0', d);
    assert.equal(crd.spec.versions[0].storage, true);
  });

  it('reports no storage version, two storage versions, no served version, and duplicate Kinds', () => {
    const d = new Reporter();
    generateCRDs([kv('v1', [mk('UnservedVersion')]), kv('v2', [mk('UnservedVersion')])], 'v0', d);
    assert.deepEqual(
      d
        .diagnostics()
        .map((x) => x.code)
        .sort(),
      ['KF4004', 'KF4005'],
    );
    const d2 = new Reporter();
    generateCRDs([kv('v1', [mk('StorageVersion')]), kv('v2', [mk('StorageVersion')]), kv('v2')], 'v0', d2);
    assert.deepEqual(
      d2
        .diagnostics()
        .map((x) => x.code)
        .sort(),
      ['KF4003', 'KF4006'],
    );
  });

  it('reports @Resource names that differ between versions', () => {
    const d = new Reporter();
    generateCRDs(
      [
        kv('v1', [mk('Resource', { path: 'things' })]),
        kv('v2', [mk('Resource', { path: 'thingies' }), mk('StorageVersion')]),
      ],
      'v0',
      d,
    );
    assert.deepEqual(
      d.diagnostics().map((x) => x.code),
      ['KF4007'],
    );
  });

  it("emits the conversion webhook strategy with Kubebuilder's service defaults and the version annotation", () => {
    const d = new Reporter();
    const [crd] = generateCRDs(
      [kv('v1'), kv('v2', [mk('StorageVersion'), mk('ConversionWebhook', { servicePort: 9443 })])],
      'v9.9.9',
      d,
    );
    assert.deepEqual(d.diagnostics(), []);
    assert.deepEqual(crd.spec.conversion, {
      strategy: 'Webhook',
      webhook: {
        clientConfig: { service: { name: 'webhook-service', namespace: 'system', path: '/convert', port: 9443 } },
        conversionReviewVersions: ['v1'],
      },
    });
    assert.deepEqual(crd.metadata.annotations, { 'kubeforge.io/version': 'v9.9.9' });
    assert.deepEqual(Object.keys(crd), ['apiVersion', 'kind', 'metadata', 'spec']);
    assert.deepEqual(Object.keys(crd.spec), ['conversion', 'group', 'names', 'scope', 'versions']);
  });
});

describe('generateCRDs: origins', () => {
  it('are kept beside the CRD, not in it: the object is its typed JSON, a copy has no origin', () => {
    const d = new Reporter();
    const versions = [kv('v1', [mk('StorageVersion')]), kv('v2')];
    const [crd] = generateCRDs(versions, 'v0', d);
    assert.deepEqual(d.diagnostics(), []);
    assert.deepEqual(
      crdOriginOf(crd)?.versions.map((v) => v.version),
      ['v1', 'v2'],
    );
    assert.deepEqual(Reflect.ownKeys(crd), ['apiVersion', 'kind', 'metadata', 'spec'], 'no hidden keys');
    assert.equal(crdOriginOf(structuredClone(crd)), undefined);
    assert.equal(crdOriginOf({ ...crd }), undefined);
  });
});
