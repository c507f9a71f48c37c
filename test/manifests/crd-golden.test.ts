// Golden cases: each folder under test/fixtures/manifests/golden/ is a small project whose
// CRDs must equal expected.yaml byte for byte (UPDATE_GOLDEN=1 rewrites it). Their
// samples.yaml (objects the CRDs must accept or reject) run in crd-acceptance.test.ts.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { analyzeProject } from './analyze-helper.js';
import { toYamlDocuments } from '../../src/manifests/yaml.js';
import { assertGoldenText } from '../helpers/golden.js';

const root = process.env.KUBEFORGE_REPO_ROOT ?? process.cwd();
export const goldenDir = join(root, 'test/fixtures/manifests/golden');

describe('CRD golden cases', () => {
  for (const name of readdirSync(goldenDir).sort()) {
    it(`${name}: CRDs equal expected.yaml`, async () => {
      const dir = join(goldenDir, name);
      const result = await analyzeProject({ projectDir: dir, generatorVersion: 'v0.0.0-golden' });
      // No errors; warnings only those the case expects (expected-warnings.txt: `file:line CODE` per line).
      const warningsFile = join(dir, 'expected-warnings.txt');
      const expectedWarnings = existsSync(warningsFile)
        ? readFileSync(warningsFile, 'utf8').split('\n').filter(Boolean)
        : [];
      assert.deepEqual(
        result.diagnostics.filter((d) => d.severity === 'error'),
        [],
        'a golden case must analyse without errors',
      );
      assert.deepEqual(
        result.diagnostics.map((d) => `${relative(dir, d.file ?? '')}:${d.line} ${d.code}`),
        expectedWarnings,
      );
      assert.ok(result.crds.length > 0);
      const text = toYamlDocuments(result.crds);
      assertGoldenText(text, join(dir, 'expected.yaml'));
      // Same input, same bytes.
      const again = await analyzeProject({ projectDir: dir, generatorVersion: 'v0.0.0-golden' });
      assert.equal(toYamlDocuments(again.crds), text);
    });
  }
});

describe('golden coverage', () => {
  it('every schema and kind-level marker of the table is exercised by a golden or conformance case', async () => {
    const { MARKER_DEFINITIONS, jsDocTagName } = await import('../../src/markers/definitions.js');
    const { readdirSync: list, statSync } = await import('node:fs');
    const sources: string[] = [];
    const walk = (d: string): void => {
      for (const n of list(d)) {
        const p = join(d, n);
        if (statSync(p).isDirectory()) walk(p);
        else if (p.endsWith('.ts')) sources.push(readFileSync(p, 'utf8'));
      }
    };
    walk(goldenDir);
    walk(join(root, 'test/fixtures/manifests/conformance'));
    const text = sources.join('\n');
    const missing = MARKER_DEFINITIONS.filter(
      (d) => !['rbac', 'webhook'].includes(d.category) && !d.name.startsWith('Items.'),
    )
      .filter(
        (d) =>
          !new RegExp(`(^|[^\\w.])${d.name}\\(`, 'm').test(text) &&
          !new RegExp(`@${jsDocTagName(d.name)}\\b`).test(text),
      )
      .map((d) => d.name);
    assert.deepEqual(missing, []);
    assert.match(text, /@Items\.\w+\(/);
    assert.match(text, /@items\.\w+ /);
  });
});
