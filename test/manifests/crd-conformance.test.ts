// Conformance with controller-gen: for each of controller-gen's reference CRDs (copied from
// controller-tools' test data into test/fixtures/manifests/conformance/<name>/expected.yaml),
// the TypeScript input beside it must produce the same CRD, compared as parsed YAML. Only the
// generator-version annotation may differ.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import YAML from 'yaml';
import { analyzeProject } from './analyze-helper.js';
import { withoutGeneratorVersion } from '../helpers/golden.js';

const root = process.env.KUBEFORGE_REPO_ROOT ?? process.cwd();
const dir = join(root, 'test/fixtures/manifests/conformance');

describe('controller-gen conformance', () => {
  const names = readdirSync(dir).sort();
  it('has one case per controller-gen reference file', () => {
    assert.deepEqual(names, [
      'bar.example.com_foos',
      'plural.example.com_testquotas',
      'testdata.kubebuilder.io_enums',
      'testdata.kubebuilder.io_externaldocs',
      'testdata.kubebuilder.io_jobs',
      'testdata.kubebuilder.io_versionedresources',
    ]);
  });
  for (const name of names) {
    it(`${name}: same CRD as controller-gen`, async () => {
      const result = await analyzeProject({ projectDir: join(dir, name), generatorVersion: 'v0.0.0-test' });
      assert.deepEqual(result.diagnostics, []);
      assert.equal(result.crds.length, 1);
      const crd = result.crds[0] as { metadata: { annotations: Record<string, string>; name: string } };
      assert.equal(crd.metadata.annotations['kubeforge.io/version'], 'v0.0.0-test');
      assert.equal(`${crd.metadata.name}`, name.replace(/^([^_]+)_(.+)$/, '$2.$1'));
      const expected = YAML.parse(readFileSync(join(dir, name, 'expected.yaml'), 'utf8')) as Record<string, unknown>;
      assert.deepEqual(withoutGeneratorVersion(result.crds[0]), withoutGeneratorVersion(expected));
    });
  }
});
