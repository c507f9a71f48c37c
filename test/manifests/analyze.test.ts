// analyzeProject(): the interface the manifests command builds on. RBAC / webhook marker uses,
// input files, --paths, tsconfig handling, root list types, determinism.
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { analyzeProject } from './analyze-helper.js';
import { analyzeProject as analyze, markerUses } from '../../src/analysis/analyze.js';
import { Reporter } from '../../src/diagnostics/index.js';
import { type Generator, indexedMarkers, rbacGenerator, runGenerators } from '../../src/manifests/generators.js';
import { output } from '../../src/manifests/managed-files.js';

const made: string[] = [];
after(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

function project(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'kf-analyze-'));
  made.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const gv = (group: string, version: string) =>
  `import { defineGroupVersion } from 'kubeforge/markers';\nexport const groupVersion = defineGroupVersion({ group: '${group}', version: '${version}' });\n`;
const kind = (name: string, extra = '') => `import type { V1ObjectMeta } from '@kubernetes/client-node';
import { Root } from 'kubeforge/markers';
import type { Shared } from '../../../shared/types.js';
${extra}
@Root()
export class ${name} {
  metadata?: V1ObjectMeta;
  spec?: Shared;
}
`;

const files = {
  'tsconfig.json': JSON.stringify({
    compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true },
    include: ['src/**/*.ts'],
  }),
  'src/shared/types.ts': 'export interface Shared { name?: string }\n',
  'src/api/a/v1/groupversion.ts': gv('a.example.com', 'v1'),
  'src/api/a/v1/alpha_types.ts': kind('Alpha'),
  'src/api/b/v1/groupversion.ts': gv('b.example.com', 'v1'),
  'src/api/b/v1/beta_types.ts': kind('Beta'),
  'src/controllers/alpha.ts': `import { Rbac, Webhook, WebhookConfiguration } from 'kubeforge/markers';

@Rbac({ groups: ['a.example.com'], resources: ['alphas'], verbs: ['get', 'list', 'watch'] })
@Rbac({ groups: [''], resources: ['pods'], verbs: ['create'], namespace: 'system' })
export class AlphaReconciler {}

@Webhook({ path: '/mutate', mutating: true, failurePolicy: 'Fail', sideEffects: 'None', groups: ['a.example.com'], resources: ['alphas'], verbs: ['create'], versions: ['v1'], name: 'malpha.kb.io', admissionReviewVersions: ['v1'] })
@WebhookConfiguration({ mutating: true, name: 'my-mutating' })
export class AlphaWebhook {}
`,
  'src/main.ts': "console.log('not part of the analysis: it does not import kubeforge/markers');\n",
};

describe('analyzeProject', () => {
  it('collects CRDs of every group, RBAC and webhook marker uses with their evaluated arguments', async () => {
    const dir = project(files);
    const r = await analyzeProject({ projectDir: dir, generatorVersion: 'v1.2.3' });
    assert.deepEqual(r.diagnostics, []);
    assert.deepEqual(
      r.crds.map((c) => c.metadata.name),
      ['alphas.a.example.com', 'beta.b.example.com'], // flect (and so controller-gen): Beta stays beta, read as the plural of -etum
    );
    assert.deepEqual(
      markerUses(r.markers, 'Rbac').map((u) => [u.marker, u.target, u.line, u.args.resources]),
      [
        ['Rbac', 'AlphaReconciler', 3, ['alphas']],
        ['Rbac', 'AlphaReconciler', 4, ['pods']],
      ],
    );
    assert.equal(markerUses(r.markers, 'Rbac')[1].file, join(dir, 'src/controllers/alpha.ts'));
    assert.deepEqual(markerUses(r.markers, 'Rbac')[1].args.namespace, 'system');
    assert.equal(markerUses(r.markers, 'Webhook').length, 1);
    assert.equal(markerUses(r.markers, 'Webhook')[0].args.name, 'malpha.kb.io');
    assert.deepEqual(
      markerUses(r.markers, 'WebhookConfiguration').map((u) => u.args),
      [{ mutating: true, name: 'my-mutating' }],
    );
  });

  it('lists the project files it read, sorted and absolute (not main.ts, which has no markers)', async () => {
    const dir = project(files);
    const r = await analyzeProject({ projectDir: dir, generatorVersion: 'v0' });
    assert.deepEqual(
      r.inputFiles,
      [
        'src/api/a/v1/alpha_types.ts',
        'src/api/a/v1/groupversion.ts',
        'src/api/b/v1/beta_types.ts',
        'src/api/b/v1/groupversion.ts',
        'src/controllers/alpha.ts',
        'src/shared/types.ts',
      ].map((p) => join(dir, p)),
    );
  });

  it('--paths limits the analysis to those folders', async () => {
    const dir = project(files);
    const r = await analyzeProject({ projectDir: dir, paths: ['src/api/b'], generatorVersion: 'v0' });
    assert.deepEqual(r.diagnostics, []);
    assert.deepEqual(
      r.crds.map((c) => c.metadata.name),
      ['beta.b.example.com'],
    );
    assert.deepEqual(markerUses(r.markers, 'Rbac'), []);
    assert.ok(r.inputFiles.every((f) => !f.includes('/a/v1/') && !f.includes('controllers')));
  });

  it('follows the tsconfig: files it does not include are not analysed', async () => {
    const dir = project({
      ...files,
      'tsconfig.json': JSON.stringify({
        compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext' },
        include: ['src/api/a/**/*.ts'],
      }),
    });
    const r = await analyzeProject({ projectDir: dir, generatorVersion: 'v0' });
    assert.deepEqual(
      r.crds.map((c) => c.metadata.name),
      ['alphas.a.example.com'],
    );
  });

  it('reports an unreadable tsconfig', async () => {
    const dir = project({ ...files, 'tsconfig.json': '{ "compilerOptions": ' });
    const r = await analyzeProject({ projectDir: dir, generatorVersion: 'v0' });
    assert.deepEqual(
      r.diagnostics.map((d) => d.code),
      ['KF4010'],
    );
    assert.equal(r.diagnostics[0].file, join(dir, 'tsconfig.json'));
  });

  it('treats a @Root() list type (ListMeta) as a root but not a Kind', async () => {
    const dir = project({
      'src/api/v1/groupversion.ts': gv('l.example.com', 'v1'),
      'src/api/v1/types.ts': `import type { V1ListMeta, V1ObjectMeta } from '@kubernetes/client-node';
import { Root } from 'kubeforge/markers';
@Root() export class Item { metadata?: V1ObjectMeta; }
@Root() export class ItemList { metadata?: V1ListMeta; items!: Item[]; }
`,
    });
    const r = await analyzeProject({ projectDir: dir, generatorVersion: 'v0' });
    assert.deepEqual(r.diagnostics, []);
    assert.deepEqual(
      r.crds.map((c) => c.spec.names.kind),
      ['Item'],
    );
  });

  it('skips a group-version declared with skip: true', async () => {
    const dir = project({
      'src/api/v1/groupversion.ts': `import { defineGroupVersion } from 'kubeforge/markers';\nexport const groupVersion = defineGroupVersion({ group: 's.example.com', version: 'v1', skip: true });\n`,
      'src/api/v1/types.ts': `import { Root } from 'kubeforge/markers';\n@Root() export class Skipped { metadata?: object; }\n`,
    });
    const r = await analyzeProject({ projectDir: dir, generatorVersion: 'v0' });
    assert.deepEqual(r.diagnostics, []);
    assert.deepEqual(r.crds, []);
  });

  it('is deterministic: same input, same output', async () => {
    const dir = project(files);
    const a = await analyzeProject({ projectDir: dir, generatorVersion: 'v0' });
    const b = await analyzeProject({ projectDir: dir, generatorVersion: 'v0' });
    assert.equal(JSON.stringify(a), JSON.stringify(b));
  });

  it('indexes the class-level markers generators read, not the Kind markers or schema markers (the marker index)', async () => {
    const dir = project(files);
    const r = await analyzeProject({ projectDir: dir, generatorVersion: 'v0' });
    assert.deepEqual(
      r.markers.class.map((u) => `${u.marker}@${u.target}:${u.line}`),
      [
        'Rbac@AlphaReconciler:3',
        'Rbac@AlphaReconciler:4',
        'Webhook@AlphaWebhook:7',
        'WebhookConfiguration@AlphaWebhook:8',
      ],
    );
    // A run indexes what its generators register (generators.ts `markers`), and nothing else.
    const only = await analyzeProject({
      projectDir: dir,
      generatorVersion: 'v0',
      indexMarkers: indexedMarkers([rbacGenerator]),
    });
    assert.deepEqual(
      only.markers.class.map((u) => u.marker),
      ['Rbac', 'Rbac'],
    );
    assert.deepEqual(markerUses(only.markers, 'Webhook'), []);
    assert.deepEqual(only.crds, r.crds);
  });

  it('a new generator registers its markers and reads them from the index, as the built-in ones do', async () => {
    const dir = project(files);
    const hooks: Generator = {
      name: 'webhook-list',
      markers: ['Webhook'],
      generate: (input) => [
        output(
          'config/webhook/names.txt',
          markerUses(input.markers, 'Webhook')
            .map((u) => `${u.args.name} ${u.target}\n`)
            .join(''),
        ),
      ],
    };
    const reporter = new Reporter();
    const analysis = await analyze(
      { projectDir: dir, generatorVersion: 'v0', indexMarkers: indexedMarkers([hooks]) },
      reporter,
    );
    const made = await runGenerators(analysis, reporter, [hooks]);
    assert.deepEqual(reporter.diagnostics(), []);
    assert.deepEqual(
      made.map((f) => [f.path, f.content]),
      [['config/webhook/names.txt', 'malpha.kb.io AlphaWebhook\n']],
    );
  });
});
