// controller-gen is the judge of the CRDs. Each conformance fixture (TypeScript types under
// test/fixtures/manifests/conformance/<name>/) has a Go twin under test/oracle/go/conformance/
// with the same markers written as a Kubebuilder user writes them. controller-gen (the version
// Kubebuilder pins, built from Go modules) runs on the twins; kubeforge runs on the TypeScript;
// the two CRDs must be equal as parsed YAML, and the committed expected.yaml (what the golden
// tests compare with, offline) must equal what controller-gen says today.
// The only difference allowed: the generator's version annotation.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import YAML from 'yaml';
import { analyzeProject } from '../manifests/analyze-helper.js';
import { CONTROLLER_GEN_VERSION, controllerGenCRDs, twinsRequiring } from './tools.js';
import { K8S_NEWEST_VERSION, K8S_VERSIONS, type K8sVersion } from '../../src/schema/k8s/index.js';
import { pathToFileURL } from 'node:url';
import { withoutGeneratorVersion } from '../helpers/golden.js';
import { existsSync, writeFileSync } from 'node:fs';

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

describe(`controller-gen ${CONTROLLER_GEN_VERSION} as the judge of the conformance CRDs`, () => {
  let out: string;
  let cleanup = () => {};
  before(async () => {
    ({ out, cleanup } = await controllerGenCRDs(twins, './conformance/...'));
  });
  after(() => cleanup());

  it('every conformance fixture has a Go twin', async () => {
    const { readdirSync } = await import('node:fs');
    assert.deepEqual(readdirSync(fixtures).sort(), Object.keys(CASES).sort());
  });

  for (const [name, twin] of Object.entries(CASES)) {
    it(`${name}: kubeforge on the TypeScript = controller-gen on the Go twin (${twin}) = the committed expected.yaml`, async () => {
      const said = withoutGeneratorVersion(YAML.parse(readFileSync(join(out, `${name}.yaml`), 'utf8')) as Obj);
      const committed = withoutGeneratorVersion(YAML.parse(readFileSync(join(fixtures, name, 'expected.yaml'), 'utf8')) as Obj);
      assert.deepEqual(committed, said, 'the committed expected.yaml is what controller-gen says today');
      const result = await analyzeProject({ projectDir: join(fixtures, name), generatorVersion: 'v0.0.0-test' });
      assert.deepEqual(result.diagnostics, []);
      assert.equal(result.crds.length, 1);
      assert.deepEqual(withoutGeneratorVersion(result.crds[0] as Obj), said);
    });
  }
});

/**
 * Where two schemas differ, one line per differing leaf: `<path> <what>` where `what` says
 * `missing in kubeforge`, `only in kubeforge` or `differs` (values are left out, so the list
 * names the gap without copying either side's text).
 */
function differences(cg: unknown, kf: unknown, path = ''): string[] {
  if (JSON.stringify(cg) === JSON.stringify(kf)) return [];
  if (cg === undefined) return [`${path} only in kubeforge`];
  if (kf === undefined) return [`${path} missing in kubeforge`];
  if (Array.isArray(cg) && Array.isArray(kf) && cg.length === kf.length && cg.some((x) => x && typeof x === 'object')) {
    return cg.flatMap((x, i) => differences(x, kf[i], `${path}[${i}]`));
  }
  if (cg && kf && typeof cg === 'object' && typeof kf === 'object' && !Array.isArray(cg) && !Array.isArray(kf)) {
    const keys = [...new Set([...Object.keys(cg), ...Object.keys(kf)])].sort();
    return keys.flatMap((k) => differences((cg as Obj)[k], (kf as Obj)[k], path ? `${path}.${k}` : k));
  }
  return [`${path} differs`];
}

/**
 * The listed differences on golden/k8s: `<minor> <mode> <path> <what> # <reason>` lines (`#` lines
 * and blank lines are comments), mode `default` or `embedded-object-meta`.
 */
interface Known {
  key: string;
  reason: string;
}

function readKnown(file: string): Known[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() && !l.startsWith('#'))
    .map((l) => {
      const at = l.indexOf(' # ');
      return at < 0 ? { key: l.trim(), reason: '' } : { key: l.slice(0, at).trim(), reason: l.slice(at + 3).trim() };
    });
}

/** The fixtures embedding Kubernetes types: TypeScript project, Go twin folder (in test/oracle/go), controller-gen's CRD file. */
const K8S_CASES = [
  // A PodTemplateSpec, LabelSelector, ResourceRequirements, ObjectReference and metav1.Conditions.
  { name: 'golden/k8s', project: 'test/fixtures/manifests/golden/k8s', twin: 'golden/k8s', crd: 'k8s.golden.kubeforge.io_deployers.yaml' },
  // A JobTemplateSpec, PersistentVolumeClaimSpec, ServiceSpec and PodStatus: +k8s:immutable, +k8s:enum, +k8s:listType.
  { name: 'oracle/k8sjobs', project: 'test/fixtures/manifests/oracle/k8sjobs', twin: 'cases/k8sjobs', crd: 'k8sjobs.oracle.kubeforge.io_batches.yaml' },
] as const;

describe(`controller-gen ${CONTROLLER_GEN_VERSION} on embedded Kubernetes types, at each Kubernetes minor kubeforge ships`, async () => {
  // For each supported minor, controller-gen runs on the Go twins of K8S_CASES in a module whose
  // go.mod requires that minor's k8s.io/api and k8s.io/apimachinery (the releases the schema data
  // is generated from, scripts/k8s-go-source.mjs), and kubeforge on the TypeScript with
  // --k8s-version <minor>, with and without crd:generateEmbeddedObjectMeta: the CRDs must be equal,
  // but for the differences listed with their reason in test/oracle/k8s-known-differences.txt. A
  // listed difference that no longer shows, or a new one, fails. UPDATE_GOLDEN=1 rewrites the list,
  // keeping the reasons of the lines that stay (a new line gets `# ?`, which fails until someone
  // writes why).
  const known = join(root, 'test/oracle/k8s-known-differences.txt');
  const source = (await import(pathToFileURL(join(root, 'scripts/k8s-go-source.mjs')).href)) as {
    GO_MINORS: readonly { kubernetes: string; modules: readonly { path: string; version: string }[] }[];
  };
  const modes = ['default', 'embedded-object-meta'] as const;
  const found = new Map<string, string[]>();
  after(() => {
    if (process.env.UPDATE_GOLDEN !== '1' || found.size !== K8S_VERSIONS.length * modes.length * K8S_CASES.length) return;
    const reasons = new Map(readKnown(known).map((k) => [k.key, k.reason]));
    const keys = [...found.keys()].sort().flatMap((k) => found.get(k)!);
    const head = readFileSync(known, 'utf8').split('\n').filter((l) => l.startsWith('#'));
    writeFileSync(known, `${[...head, ...keys.map((k) => `${k} # ${reasons.get(k) || '?'}`)].join('\n')}\n`);
  });

  it('the data covers the minors the Go sources are pinned for, and the twins module requires the newest', () => {
    assert.deepEqual(source.GO_MINORS.map((m) => m.kubernetes), [...K8S_VERSIONS]);
    const goMod = readFileSync(join(twins, 'go.mod'), 'utf8');
    for (const m of source.GO_MINORS[source.GO_MINORS.length - 1].modules) assert.match(goMod, new RegExp(`^\\t${m.path.replace(/\./g, '\\.')} ${m.version.replace(/\./g, '\\.')}$`, 'm'));
  });

  it('every listed difference says why', () => {
    for (const k of readKnown(known)) assert.ok(k.reason && k.reason !== '?', `${k.key}: no reason given`);
  });

  for (const pin of source.GO_MINORS) {
    const minor = pin.kubernetes as K8sVersion;
    describe(`Kubernetes ${minor} (${pin.modules.map((m) => `${m.path} ${m.version}`).join(', ')})`, () => {
      let module: { dir: string; cleanup(): void } | undefined;
      const outs = new Map<string, { out: string; cleanup(): void }>();
      before(async () => {
        module = await twinsRequiring(twins, K8S_CASES.map((c) => c.twin), pin.modules);
        for (const mode of modes) {
          outs.set(mode, await controllerGenCRDs(module.dir, K8S_CASES.map((c) => `./${c.twin}/...`).join(';'), mode === 'embedded-object-meta' ? ':generateEmbeddedObjectMeta=true' : ''));
        }
      });
      after(() => {
        for (const o of outs.values()) o.cleanup();
        module?.cleanup();
      });

      for (const c of K8S_CASES) {
        for (const mode of modes) {
          const embeddedObjectMeta = mode === 'embedded-object-meta';
          it(`${c.name}${embeddedObjectMeta ? ' with crd:generateEmbeddedObjectMeta=true = --generate-embedded-object-meta' : ''}: the same CRD, or a listed difference`, async () => {
            const said = withoutGeneratorVersion(YAML.parse(readFileSync(join(outs.get(mode)!.out, c.crd), 'utf8')) as Obj);
            const result = await analyzeProject({ projectDir: join(root, c.project), generatorVersion: 'v0.0.0-test', embeddedObjectMeta, k8sVersion: minor });
            assert.deepEqual(result.diagnostics.filter((d) => d.severity === 'error'), []);
            const ours = withoutGeneratorVersion(result.crds[0] as Obj);
            if (embeddedObjectMeta && c.name === 'golden/k8s') {
              // The option did something: an embedded ObjectMeta with labels, in controller-gen's output and ours.
              assert.match(JSON.stringify(said), /"labels":\{"additionalProperties":\{"type":"string"\},"type":"object"\}/);
              assert.match(JSON.stringify(ours), /"labels":\{"additionalProperties":\{"type":"string"\},"type":"object"\}/);
            }
            if (!embeddedObjectMeta && minor === K8S_NEWEST_VERSION && c.name === 'golden/k8s') {
              // The golden test (test/manifests/crd-golden.test.ts) compares with this file offline.
              const committed = withoutGeneratorVersion(YAML.parse(readFileSync(join(root, c.project, 'expected.yaml'), 'utf8')) as Obj);
              assert.deepEqual(differences(said, committed), [], 'the committed golden/k8s/expected.yaml is what controller-gen says at the newest minor');
            }
            const prefix = `${minor} ${mode} ${c.name} `;
            const lines = differences(said, ours).map((d) => `${prefix}${d}`);
            found.set(prefix, lines);
            const listed = readKnown(known)
              .map((k) => k.key)
              .filter((k) => k.startsWith(prefix));
            assert.deepEqual(lines, listed, 'the differences from controller-gen are the listed ones (UPDATE_GOLDEN=1 rewrites the list)');
          });
        }
      }
    });
  }
});

describe(`controller-gen ${CONTROLLER_GEN_VERSION} on the hard cases (test/fixtures/manifests/oracle)`, () => {
  const cases = join(root, 'test/fixtures/manifests/oracle');
  let out: string;
  let cleanup = () => {};
  before(async () => {
    ({ out, cleanup } = await controllerGenCRDs(twins, './cases/...'));
  });
  after(() => cleanup());

  // embedded: type-level markers of intersection members and base classes (Go's embedded
  // structs): kept, rules in controller-gen's order, conflicting bounds moved into allOf.
  for (const [name, crdFile] of [['embedded', 'embedded.oracle.kubeforge.io_things.yaml']] as const) {
    it(`${name}: kubeforge on the TypeScript = controller-gen on the Go twin`, async () => {
      const said = withoutGeneratorVersion(YAML.parse(readFileSync(join(out, crdFile), 'utf8')) as Obj);
      const result = await analyzeProject({ projectDir: join(cases, name), generatorVersion: 'v0.0.0-test' });
      assert.deepEqual(result.diagnostics, []);
      assert.deepEqual(withoutGeneratorVersion(result.crds[0] as Obj), said);
    });
  }
});
