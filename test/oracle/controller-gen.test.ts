// controller-gen is the judge of the CRDs. Each conformance fixture (TypeScript types under
// test/fixtures/manifests/conformance/<name>/) has a Go twin under test/oracle/go/conformance/
// with the same markers written as a Kubebuilder user writes them. controller-gen (the version
// Kubebuilder pins, built from Go modules) runs on the twins; kubeforge runs on the TypeScript;
// the two CRDs must be equal as parsed YAML, and the committed expected.yaml (what the golden
// tests compare with, offline) must equal what controller-gen says today.
// The only difference allowed: the generator's version annotation.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import YAML from 'yaml';
import { analyzeProject } from '../manifests/analyze-helper.js';
import { CONTROLLER_GEN_VERSION, controllerGen, runTool } from './tools.js';

const root = process.env.KUBEFORGE_REPO_ROOT ?? process.cwd();
const fixtures = join(root, 'test/fixtures/manifests/conformance');
const twins = join(root, 'test/oracle/go');

/** Fixture folder -> its Go twin's folder under test/oracle/go/conformance. */
const CASES: Record<string, string> = {
  'bar.example.com_foos': 'foos',
  'plural.example.com_testquotas': 'testquotas',
  'testdata.kubebuilder.io_enums': 'enums',
  'testdata.kubebuilder.io_externaldocs': 'externaldocs',
  'testdata.kubebuilder.io_jobs': 'jobs',
  'testdata.kubebuilder.io_versionedresources': 'versionedresources',
};

type Obj = Record<string, unknown>;

/** A CRD without the generator's version annotation (an empty annotations map goes too). */
function normalise(crd: Obj): Obj {
  const copy = JSON.parse(JSON.stringify(crd)) as { metadata: { annotations?: Record<string, string> } };
  const ann = copy.metadata.annotations;
  if (ann) {
    delete ann['controller-gen.kubebuilder.io/version'];
    delete ann['kubeforge.io/version'];
    if (Object.keys(ann).length === 0) delete copy.metadata.annotations;
  }
  return copy as unknown as Obj;
}

describe(`controller-gen ${CONTROLLER_GEN_VERSION} as the judge of the conformance CRDs`, () => {
  let out: string;
  before(async () => {
    const bin = await controllerGen();
    out = mkdtempSync(join(tmpdir(), 'kf-controller-gen-'));
    runTool(bin, ['crd', 'paths=./conformance/...', `output:crd:dir=${out}`], twins);
  });
  after(() => {
    if (out) rmSync(out, { recursive: true, force: true });
  });

  it('every conformance fixture has a Go twin', async () => {
    const { readdirSync } = await import('node:fs');
    assert.deepEqual(readdirSync(fixtures).sort(), Object.keys(CASES).sort());
  });

  for (const [name, twin] of Object.entries(CASES)) {
    it(`${name}: kubeforge on the TypeScript = controller-gen on the Go twin (${twin}) = the committed expected.yaml`, async () => {
      const said = normalise(YAML.parse(readFileSync(join(out, `${name}.yaml`), 'utf8')) as Obj);
      const committed = normalise(YAML.parse(readFileSync(join(fixtures, name, 'expected.yaml'), 'utf8')) as Obj);
      assert.deepEqual(committed, said, 'the committed expected.yaml is what controller-gen says today');
      const result = await analyzeProject({ projectDir: join(fixtures, name), generatorVersion: 'v0.0.0-test' });
      assert.deepEqual(result.diagnostics, []);
      assert.equal(result.crds.length, 1);
      assert.deepEqual(normalise(result.crds[0] as Obj), said);
    });
  }
});
