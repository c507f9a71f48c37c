// Acceptance on a real kube-apiserver: every golden case's CRDs are installed, and each sample
// object in its samples.yaml is created with `kubectl create --dry-run=server`: accepted ones
// must come back with the expected defaults and pruning, rejected ones with the expected error.
// It runs on the current API server (the default of setup-envtest), which enforces CEL rules and
// selectableFields too, so a sample's verdict includes them; on the legacy v1.20 build they would
// not be (crd-golden / crd-schema check them at the schema level).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import YAML from 'yaml';
import { analyzeProject } from './analyze-helper.js';
import { Reporter } from '../../src/diagnostics/index.js';
import { crdGenerator } from '../../src/manifests/generators.js';

/** What the CRD generator reports for an analysis: generation problems and the CRD check's. */
async function checked(r: Parameters<typeof crdGenerator.generate>[0]) {
  const reporter = new Reporter();
  await crdGenerator.prepare?.(r);
  crdGenerator.generate(r, reporter);
  return reporter.diagnostics();
}
import { installCRDs, TestEnvironment } from '../../src/testing/index.js';
import type { CRDObject } from '../../src/testing/index.js';

const root = process.env.KUBEFORGE_REPO_ROOT ?? process.cwd();
const goldenDir = join(root, 'test/fixtures/manifests/golden');

interface Sample {
  name: string;
  accept: boolean;
  /** substring of the server's error (rejections) */
  error?: string;
  object: Record<string, unknown>;
  /** subset the stored object must contain (defaults applied) */
  result?: Record<string, unknown>;
  /** dotted paths that must be gone (pruned) */
  absent?: string[];
}

function contains(actual: unknown, subset: unknown, path: string): void {
  if (subset && typeof subset === 'object' && !Array.isArray(subset)) {
    assert.ok(actual && typeof actual === 'object', `${path}: expected an object, got ${JSON.stringify(actual)}`);
    for (const [k, v] of Object.entries(subset)) contains((actual as Record<string, unknown>)[k], v, `${path}.${k}`);
  } else assert.deepEqual(actual, subset, `${path}`);
}

function get(obj: unknown, path: string): unknown {
  return path
    .split('.')
    .reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), obj);
}

const cases = readdirSync(goldenDir)
  .sort()
  .filter((n) => existsSync(join(goldenDir, n, 'samples.yaml')));

describe('generated CRDs on a real API server', () => {
  let env: TestEnvironment;
  before(async () => {
    const crds: CRDObject[] = [];
    for (const name of cases) {
      const r = await analyzeProject({ projectDir: join(goldenDir, name), generatorVersion: 'v0.0.0-golden' });
      // What manifests would refuse (the analysis and the CRD check) is no golden to install.
      assert.deepEqual(
        [...r.diagnostics, ...(await checked(r))].filter((d) => d.severity === 'error'),
        [],
      );
      crds.push(...(r.crds as unknown as CRDObject[]));
    }
    env = new TestEnvironment({ crds, useExistingCluster: false });
    await env.start();
  });
  after(async () => {
    await env?.stop();
  });

  for (const name of cases) {
    const samples = YAML.parse(readFileSync(join(goldenDir, name, 'samples.yaml'), 'utf8')) as Sample[];
    describe(name, () => {
      for (const s of samples) {
        it(`${s.accept ? 'accepts' : 'rejects'}: ${s.name}`, () => {
          const obj = s.object;
          const r = spawnSync(
            'kubectl',
            [
              '--kubeconfig',
              env.kubeconfigPath,
              'create',
              '--dry-run=server',
              '--validate=false',
              '-o',
              'json',
              '-f',
              '-',
            ],
            {
              input: JSON.stringify(obj),
              encoding: 'utf8',
            },
          );
          if (s.accept) {
            assert.equal(r.status, 0, `expected acceptance, server said: ${r.stderr}`);
            const stored = JSON.parse(r.stdout) as Record<string, unknown>;
            if (s.result) contains(stored, s.result, '');
            for (const p of s.absent ?? []) assert.equal(get(stored, p), undefined, `${p} should have been pruned`);
          } else {
            assert.notEqual(r.status, 0, `expected rejection, but the server accepted: ${r.stdout.slice(0, 400)}`);
            // Current servers name list items by index (`containers[0].name`), v1.20 did not:
            // the samples name the field without indexes, and the server's words are read so too.
            if (s.error)
              assert.ok(
                r.stderr.replace(/\[\d+\]/g, '').includes(s.error),
                `error should mention ${JSON.stringify(s.error)}; got: ${r.stderr}`,
              );
          }
        });
      }
    });
  }
});

describe('what the API server refuses (why kubeforge refuses it first)', () => {
  let env: TestEnvironment;
  before(async () => {
    env = new TestEnvironment({ useExistingCluster: false });
    await env.start();
  });
  after(async () => {
    await env?.stop();
  });

  it('a schema with uniqueItems: true (the CRD check refuses @UniqueItems, KF4603)', async () => {
    const r = await analyzeProject({ projectDir: join(goldenDir, 'schema-only'), generatorVersion: 'v0.0.0-golden' });
    const found = await checked(r);
    assert.ok(
      found.some(
        (d) => d.code === 'KF4603' && d.severity === 'error' && d.message.includes('uniqueItems') && d.line === 12,
      ),
      found.map((d) => `${d.line} ${d.code} ${d.message}`).join('\n'),
    );
    await assert.rejects(
      installCRDs(env.config, { crds: r.crds as unknown as CRDObject[], timeoutMs: 20_000 }),
      /uniqueItems cannot be set to true/,
    );
  });

  it('an empty schema from @Schemaless() alone (the CRD check refuses it, KF4603)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kf-schemaless-'));
    try {
      mkdirSync(join(dir, 'src/api/v1'), { recursive: true });
      writeFileSync(
        join(dir, 'src/api/v1/groupversion.ts'),
        "import { defineGroupVersion } from 'kubeforge/markers';\nexport const groupVersion = defineGroupVersion({ group: 'schemaless.example.com', version: 'v1' });\n",
      );
      writeFileSync(
        join(dir, 'src/api/v1/types.ts'),
        "import { Root, Schemaless } from 'kubeforge/markers';\nexport class S { @Schemaless() free?: unknown; }\n@Root() export class Loose { metadata?: object; spec?: S; }\n",
      );
      const r = await analyzeProject({ projectDir: dir, generatorVersion: 'v0' });
      assert.deepEqual(r.diagnostics, []);
      assert.deepEqual(
        (await checked(r)).map((d) => `${d.severity} ${d.code} ${d.line}:${d.column}`),
        ['error KF4603 2:18'],
      );
      await assert.rejects(
        installCRDs(env.config, { crds: r.crds as unknown as CRDObject[], timeoutMs: 20_000 }),
        /properties\[free\]\.type: Required value/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
