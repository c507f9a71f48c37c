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
import { CONTROLLER_GEN_VERSION, controllerGenCRDs } from './tools.js';
import { withoutGeneratorVersion } from '../helpers/golden.js';
import { existsSync, writeFileSync } from 'node:fs';
import { type Diagnostic, Reporter } from '../../src/diagnostics/index.js';
import { crdGenerator } from '../../src/manifests/generators.js';
import { jsDocTagName, MARKER_DEFINITIONS } from '../../src/markers/definitions.js';
import { installCRDs, TestEnvironment, type CRDObject } from '../../src/testing/index.js';
import { ts } from '../../src/util/typescript.cjs';

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

describe(`controller-gen ${CONTROLLER_GEN_VERSION} on embedded Kubernetes types (k8s.io/api v0.37)`, () => {
  // A listed exception, asserted: kubeforge's embedded schemas are generated from client-node
  // and the Go sources of k8s.io/api 1.32 (scripts/gen-k8s-schemas.mjs), while controller-gen
  // reads the k8s.io/api version the project requires (v0.37 for a project Kubebuilder v4.16 scaffolds). The
  // list is what differs today (descriptions of fields that changed, markers added since 1.32);
  // it must shrink to nothing once the schema data follows the project's Kubernetes version.
  // UPDATE_GOLDEN=1 rewrites it.
  const known = join(root, 'test/oracle/k8s-known-differences.txt');
  let out: string;
  let cleanup = () => {};
  before(async () => {
    ({ out, cleanup } = await controllerGenCRDs(twins, './golden/...'));
  });
  after(() => cleanup());

  it('golden/k8s (a PodTemplateSpec, LabelSelector, ResourceRequirements, ObjectReference, Conditions): only the listed differences', async () => {
    const said = withoutGeneratorVersion(YAML.parse(readFileSync(join(out, 'k8s.golden.kubeforge.io_deployers.yaml'), 'utf8')) as Obj);
    const result = await analyzeProject({ projectDir: join(root, 'test/fixtures/manifests/golden/k8s'), generatorVersion: 'v0.0.0-test' });
    assert.deepEqual(result.diagnostics.filter((d) => d.severity === 'error'), []);
    const lines = differences(said, withoutGeneratorVersion(result.crds[0] as Obj));
    if (process.env.UPDATE_GOLDEN === '1') writeFileSync(known, `${lines.join('\n')}\n`);
    assert.ok(existsSync(known), `${known} is missing (UPDATE_GOLDEN=1 writes it)`);
    assert.deepEqual(lines, readFileSync(known, 'utf8').split('\n').filter(Boolean));
  });
});

describe(`controller-gen ${CONTROLLER_GEN_VERSION} crd:generateEmbeddedObjectMeta=true = manifests --generate-embedded-object-meta`, () => {
  let out: string;
  let cleanup = () => {};
  before(async () => {
    ({ out, cleanup } = await controllerGenCRDs(twins, './golden/...', ':generateEmbeddedObjectMeta=true'));
  });
  after(() => cleanup());

  it('golden/k8s: the pod template\'s metadata keeps its allow-listed fields in both; otherwise the same listed differences', async () => {
    const said = withoutGeneratorVersion(YAML.parse(readFileSync(join(out, 'k8s.golden.kubeforge.io_deployers.yaml'), 'utf8')) as Obj);
    const result = await analyzeProject({ projectDir: join(root, 'test/fixtures/manifests/golden/k8s'), generatorVersion: 'v0.0.0-test', embeddedObjectMeta: true });
    assert.deepEqual(result.diagnostics.filter((d) => d.severity === 'error'), []);
    const ours = withoutGeneratorVersion(result.crds[0] as Obj);
    // The option did something: an embedded ObjectMeta with labels, in controller-gen's output and ours.
    assert.match(JSON.stringify(said), /"labels":\{"additionalProperties":\{"type":"string"\},"type":"object"\}/);
    assert.match(JSON.stringify(ours), /"labels":\{"additionalProperties":\{"type":"string"\},"type":"object"\}/);
    assert.deepEqual(differences(said, ours), readFileSync(join(root, 'test/oracle/k8s-known-differences.txt'), 'utf8').split('\n').filter(Boolean));
  });
});

/** A hard case: its CRD file in controller-gen's output, and what is allowed to differ, with why. */
interface HardCase {
  crd: string;
  /** `differences()` lines allowed between controller-gen's CRD and ours, each with its reason; all must occur. */
  known?: Record<string, string>;
  /** Or: the lines of a file of differences, all with one reason. */
  knownFile?: { path: string; reason: string };
  /** kubeforge's warnings on the TypeScript, `CODE message`: all must occur, no other. */
  warnings?: string[];
  /** The CRD check's diagnostics (what `manifests` says before writing), `severity CODE line`: all must occur, no other. */
  checks?: { lines: string[]; reason: string };
}

const SPEC = 'spec.versions[0].schema.openAPIV3Schema.properties.spec.properties';

/**
 * Each case is a TypeScript project under test/fixtures/manifests/oracle/<name> and its Go twin
 * under test/oracle/go/cases/<name>. controller-gen runs with crd:allowDangerousTypes=true: a
 * float64 field is a float on purpose (see oracle-refused for what it says without).
 */
const HARD: Record<string, HardCase> = {
  // Type-level markers of intersection members and base classes (Go's embedded structs): kept,
  // rules in controller-gen's order (at a Kind's root, the members' before the Kind's own),
  // conflicting bounds moved into allOf; a field's rules over such a type.
  embedded: { crd: 'embedded.oracle.kubeforge.io_things.yaml' },
  // Validation markers on a type and on the field that uses it: folded as controller-gen folds a
  // field into the type it refers to (the field's rules first, both values of a bound in allOf).
  fieldtype: {
    crd: 'fieldtype.oracle.kubeforge.io_things.yaml',
    warnings: ['KF2015 @Enum on field "mode" of ThingSpec: the type already has an enum ("Fast", "Slow"), which stays: controller-gen keeps a type\'s enum over its field\'s'],
  },
  // Aliases of aliases (Go: named types of named types), markers at each level.
  aliases: { crd: 'aliases.oracle.kubeforge.io_things.yaml' },
  // String, integer and number enums: markers, TypeScript enums, unions of literals.
  enums: {
    crd: 'enums.oracle.kubeforge.io_things.yaml',
    known: {
      [`${SPEC}.color.enum differs`]: 'Go\'s +k8s:enum lists the constants of the type sorted; kubeforge keeps a TypeScript enum\'s member order (what +kubebuilder:validation:Enum=red;green;blue writes)',
      [`${SPEC}.colors.items.enum differs`]: 'the same enum, as list items',
    },
  },
  // Maps of lists, lists of maps, deeper nestings.
  collections: {
    crd: 'collections.oracle.kubeforge.io_things.yaml',
    known: {
      [`${SPEC}.maybeStrings.additionalProperties.nullable only in kubeforge`]:
        'Go cannot say that a map value may be null (controller-gen writes a map[string]*string like a map[string]string); `Record<string, string | null>` says it',
    },
  },
  // Kubernetes types used by fields: PodTemplateSpec, ObjectMeta, Condition, ResourceRequirements,
  // LabelSelector, IntOrString, Quantity, Time, MicroTime, Duration, with field markers of their own.
  k8stypes: {
    crd: 'k8stypes.oracle.kubeforge.io_things.yaml',
    knownFile: { path: 'test/oracle/k8s-known-differences.txt', reason: 'schema data per minor: other branch (the embedded schemas follow Kubernetes 1.32, controller-gen reads k8s.io/api v0.37)' },
  },
  // Every field-level and type-level marker of the marker reference (see the coverage test below).
  markers: { crd: 'markers.oracle.kubeforge.io_things.yaml' },
  // uniqueItems on a field, on items, on a type: the same CRD, which the API server refuses.
  uniqueitems: {
    crd: 'uniqueitems.oracle.kubeforge.io_things.yaml',
    checks: {
      lines: ['error KF4603 8', 'error KF4603 14', 'error KF4603 19', 'error KF4603 22'],
      reason: 'the API server refuses uniqueItems: true (its cost is quadratic): controller-gen writes a CRD that does not install, manifests refuses to write it',
    },
  },
};

/** What the CRD generator reports for an analysis: its problems and the CRD check's. */
async function checked(r: Parameters<typeof crdGenerator.generate>[0]): Promise<Diagnostic[]> {
  const reporter = new Reporter();
  await crdGenerator.prepare?.(r);
  crdGenerator.generate(r, reporter);
  return reporter.diagnostics();
}

describe(`controller-gen ${CONTROLLER_GEN_VERSION} on the hard cases (test/fixtures/manifests/oracle)`, () => {
  const cases = join(root, 'test/fixtures/manifests/oracle');
  let out: string;
  let cleanup = () => {};
  let env: TestEnvironment | undefined;
  const installable: CRDObject[] = [];
  before(async () => {
    ({ out, cleanup } = await controllerGenCRDs(twins, './cases/...', ':allowDangerousTypes=true'));
  });
  after(async () => {
    cleanup();
    await env?.stop();
  });

  it('every case has a Go twin, and every twin a case', async () => {
    const { readdirSync } = await import('node:fs');
    assert.deepEqual(readdirSync(cases).sort(), Object.keys(HARD).sort());
    assert.deepEqual(readdirSync(join(twins, 'cases')).sort(), Object.keys(HARD).sort());
  });

  for (const [name, c] of Object.entries(HARD)) {
    it(`${name}: kubeforge on the TypeScript = controller-gen on the Go twin${c.known || c.knownFile ? ', but for the listed differences' : ''}`, async () => {
      const said = withoutGeneratorVersion(YAML.parse(readFileSync(join(out, c.crd), 'utf8')) as Obj);
      const result = await analyzeProject({ projectDir: join(cases, name), generatorVersion: 'v0.0.0-test' });
      assert.deepEqual(result.diagnostics.filter((d) => d.severity === 'error'), []);
      assert.deepEqual(result.diagnostics.map((d) => `${d.code} ${d.message}`), c.warnings ?? []);
      assert.equal(result.crds.length, 1);
      const lines = differences(said, withoutGeneratorVersion(result.crds[0] as Obj));
      const known = c.knownFile ? readFileSync(join(root, c.knownFile.path), 'utf8').split('\n').filter(Boolean) : Object.keys(c.known ?? {});
      assert.deepEqual(lines, known, 'a listed difference that no longer occurs, or a new one');
      const check = (await checked(result)).map((d) => `${d.severity} ${d.code} ${d.line}`);
      assert.deepEqual(check, c.checks?.lines ?? [], 'what the CRD check says before manifests writes');
      if (!c.checks) installable.push(result.crds[0] as unknown as CRDObject);
    });
  }

  it('the CRDs manifests writes for them install on a real API server', async () => {
    assert.equal(installable.length, Object.values(HARD).filter((c) => !c.checks).length);
    env = new TestEnvironment({ useExistingCluster: false });
    await env.start();
    await installCRDs(env.config, { crds: installable, timeoutMs: 60_000 });
  });

  it('the markers case uses every field-level and type-level marker of the reference', () => {
    const uses = markerUses([join(cases, 'markers/src/api/v1/thing_types.ts'), join(cases, 'uniqueitems/src/api/v1/thing_types.ts')]);
    const missing: string[] = [];
    for (const d of MARKER_DEFINITIONS) {
      if (d.targets.includes('field') && !uses.field.has(d.name)) missing.push(`${d.name} on a field`);
      if (d.targets.includes('type') && !uses.type.has(d.name)) missing.push(`${d.name} on a type`);
    }
    // Every one has a controller-gen equivalent (the reference's controller-gen column).
    assert.deepEqual(missing, []);
  });
});

/** The markers used in `files`, by where: decorators on properties and JSDoc tags on members are field uses; on classes and type aliases, type uses. */
function markerUses(files: string[]): { field: Set<string>; type: Set<string> } {
  const byTag = new Map(MARKER_DEFINITIONS.map((d) => [jsDocTagName(d.name), d.name]));
  const field = new Set<string>();
  const type = new Set<string>();
  for (const file of files) {
    const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      const into = ts.isPropertyDeclaration(node) || ts.isPropertySignature(node) ? field : ts.isClassDeclaration(node) || ts.isTypeAliasDeclaration(node) || ts.isInterfaceDeclaration(node) ? type : undefined;
      if (into) {
        for (const dec of ts.canHaveDecorators(node) ? (ts.getDecorators(node) ?? []) : []) {
          const call = dec.expression;
          into.add((ts.isCallExpression(call) ? call.expression : call).getText(sf));
        }
        for (const range of ts.getLeadingCommentRanges(sf.text, node.getFullStart()) ?? []) {
          for (const m of sf.text.slice(range.pos, range.end).matchAll(/@([A-Za-z]+(?:\.[A-Za-z]+)?)/g)) {
            const name = byTag.get(m[1]);
            if (name) into.add(name);
          }
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return { field, type };
}

/**
 * Markers controller-gen refuses where kubeforge writes a schema the API server takes
 * (test/oracle/go/refused, test/fixtures/manifests/oracle-refused): each refusal is listed with
 * its reason; the test fails when controller-gen stops refusing one, or refuses something else.
 */
describe(`controller-gen ${CONTROLLER_GEN_VERSION} refuses, kubeforge writes (test/fixtures/manifests/oracle-refused)`, () => {
  const REFUSED: Record<string, string> = {
    '29 must apply minitems to an array': 'a field of a named list type is a $ref without a type when controller-gen checks the marker; kubeforge checks it against the type\'s schema and folds it in',
    '32 must apply kubebuilder:validation:items:MaxLength to an array value, found ': 'the same, for items markers on a field of a named list type',
    '35 must apply maxproperties to an object': 'the same, for a named map type',
    '38 must apply minproperties to an object': 'the same, for a named struct type',
    '41 must apply maximum to a numeric value, found ': 'the same, for IntOrString (an external type); kubeforge applies it to the int-or-string schema',
    '44 must apply pattern to a textual value, found type ""': 'the same, for Quantity; kubeforge puts both patterns in allOf',
    '46 found float, the usage of which is highly discouraged, as support for them varies across languages. Please consider serializing your float as string instead. If you are really sure you want to use them, re-run with crd:allowDangerousTypes=true':
      'floats need crd:allowDangerousTypes=true; kubeforge takes float64 as a float on purpose (a plain number warns, KF3012)',
  };
  let env: TestEnvironment | undefined;
  after(async () => {
    await env?.stop();
  });

  it('controller-gen refuses exactly the listed markers', async () => {
    const err = await controllerGenCRDs(twins, './refused/...').then(
      ({ cleanup }) => {
        cleanup();
        return undefined;
      },
      (e: Error) => e,
    );
    assert.ok(err, 'controller-gen accepted the refused package');
    const said = [...err.message.matchAll(/refused\/v1\/types\.go:(\d+):\d+: (.*)$/gm)].map((m) => `${m[1]} ${m[2]}`);
    assert.deepEqual(said, Object.keys(REFUSED));
  });

  it('kubeforge writes a CRD for them that installs on a real API server', async () => {
    const result = await analyzeProject({ projectDir: join(root, 'test/fixtures/manifests/oracle-refused'), generatorVersion: 'v0.0.0-test' });
    assert.deepEqual(result.diagnostics, []);
    assert.deepEqual(await checked(result), []);
    env = new TestEnvironment({ useExistingCluster: false });
    await env.start();
    await installCRDs(env.config, { crds: result.crds as unknown as CRDObject[], timeoutMs: 60_000 });
  });
});
