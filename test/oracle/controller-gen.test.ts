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
import { type Diagnostic, Reporter } from '../../src/diagnostics/index.js';
import { crdGenerator } from '../../src/manifests/generators.js';
import { toYamlDocuments } from '../../src/manifests/yaml.js';
import { jsDocTagName, MARKER_DEFINITIONS } from '../../src/markers/definitions.js';
import { installCRDs, TestEnvironment, type CRDObject } from '../../src/testing/index.js';
import { ts } from '../../src/util/typescript.cjs';
import { must } from '../helpers/must.js';

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
      const committed = withoutGeneratorVersion(
        YAML.parse(readFileSync(join(fixtures, name, 'expected.yaml'), 'utf8')) as Obj,
      );
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
  {
    name: 'golden/k8s',
    project: 'test/fixtures/manifests/golden/k8s',
    twin: 'golden/k8s',
    crd: 'k8s.golden.kubeforge.io_deployers.yaml',
  },
  // A JobTemplateSpec, PersistentVolumeClaimSpec, ServiceSpec and PodStatus: +k8s:immutable, +k8s:enum, +k8s:listType.
  {
    name: 'oracle/k8sjobs',
    project: 'test/fixtures/manifests/oracle/k8sjobs',
    twin: 'cases/k8sjobs',
    crd: 'k8sjobs.oracle.kubeforge.io_batches.yaml',
  },
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
    if (process.env.UPDATE_GOLDEN !== '1' || found.size !== K8S_VERSIONS.length * modes.length * K8S_CASES.length)
      return;
    const reasons = new Map(readKnown(known).map((k) => [k.key, k.reason]));
    const keys = [...found.keys()].sort().flatMap((k) => must(found.get(k), 'found.get(k)'));
    const head = readFileSync(known, 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('#'));
    writeFileSync(known, `${[...head, ...keys.map((k) => `${k} # ${reasons.get(k) || '?'}`)].join('\n')}\n`);
  });

  it('the data covers the minors the Go sources are pinned for, and the twins module requires the newest', () => {
    assert.deepEqual(
      source.GO_MINORS.map((m) => m.kubernetes),
      [...K8S_VERSIONS],
    );
    const goMod = readFileSync(join(twins, 'go.mod'), 'utf8');
    for (const m of source.GO_MINORS[source.GO_MINORS.length - 1].modules)
      assert.match(goMod, new RegExp(`^\\t${m.path.replace(/\./g, '\\.')} ${m.version.replace(/\./g, '\\.')}$`, 'm'));
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
        module = await twinsRequiring(
          twins,
          K8S_CASES.map((c) => c.twin),
          pin.modules,
        );
        for (const mode of modes) {
          outs.set(
            mode,
            await controllerGenCRDs(
              module.dir,
              K8S_CASES.map((c) => `./${c.twin}/...`).join(';'),
              mode === 'embedded-object-meta' ? ':generateEmbeddedObjectMeta=true' : '',
            ),
          );
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
            const said = withoutGeneratorVersion(
              YAML.parse(readFileSync(join(must(outs.get(mode), 'outs.get(mode)').out, c.crd), 'utf8')) as Obj,
            );
            const result = await analyzeProject({
              projectDir: join(root, c.project),
              generatorVersion: 'v0.0.0-test',
              embeddedObjectMeta,
              k8sVersion: minor,
            });
            assert.deepEqual(
              result.diagnostics.filter((d) => d.severity === 'error'),
              [],
            );
            const ours = withoutGeneratorVersion(result.crds[0] as Obj);
            if (embeddedObjectMeta && c.name === 'golden/k8s') {
              // The option did something: an embedded ObjectMeta with labels, in controller-gen's output and ours.
              assert.match(
                JSON.stringify(said),
                /"labels":\{"additionalProperties":\{"type":"string"\},"type":"object"\}/,
              );
              assert.match(
                JSON.stringify(ours),
                /"labels":\{"additionalProperties":\{"type":"string"\},"type":"object"\}/,
              );
            }
            if (!embeddedObjectMeta && minor === K8S_NEWEST_VERSION && c.name === 'golden/k8s') {
              // The golden test (test/manifests/crd-golden.test.ts) compares with this file offline.
              const committed = withoutGeneratorVersion(
                YAML.parse(readFileSync(join(root, c.project, 'expected.yaml'), 'utf8')) as Obj,
              );
              assert.deepEqual(
                differences(said, committed),
                [],
                'the committed golden/k8s/expected.yaml is what controller-gen says at the newest minor',
              );
            }
            const prefix = `${minor} ${mode} ${c.name} `;
            const lines = differences(said, ours).map((d) => `${prefix}${d}`);
            found.set(prefix, lines);
            const listed = readKnown(known)
              .map((k) => k.key)
              .filter((k) => k.startsWith(prefix));
            assert.deepEqual(
              lines,
              listed,
              'the differences from controller-gen are the listed ones (UPDATE_GOLDEN=1 rewrites the list)',
            );
          });
        }
      }
    });
  }
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
  /**
   * The CRD check's diagnostics (what `manifests` says before writing), `severity CODE line`: all
   * must occur, no other. A case with an error is not installed (manifests would not write it).
   */
  checks?: { lines: string[]; reason: string };
  /** The YAML manifests writes must be controller-gen's file byte for byte (but the generator's annotation). */
  bytes?: true;
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
  // Intersection members that both declare a field (Go: two embedded structs): each member's
  // bounds kept, both values of a bound in allOf, required when either requires it.
  intersection: {
    crd: 'intersection.oracle.kubeforge.io_things.yaml',
    known: {
      [`${SPEC}.sub.properties.x.allOf[0].maxLength differs`]:
        "a field of a named type in both members (Go: a $ref each): controller-gen lists the second member's bound first there, kubeforge the first member's, as for a field of a plain type; allOf's order changes nothing the API server checks",
      [`${SPEC}.sub.properties.x.allOf[1].maxLength differs`]: 'the same two values, in the other order',
      [`${SPEC}.tags.allOf[0].items missing in kubeforge`]:
        "controller-gen moves both fields' items into allOf too (it hoists every keyword both set), leaving no items at the top, which a structural schema needs: kubeforge keeps the (equal) items at the top and only maxItems in allOf",
      [`${SPEC}.tags.allOf[1].items missing in kubeforge`]: 'the same, for the second member',
      [`${SPEC}.tags.items only in kubeforge`]: 'the items kept at the top (see above)',
    },
  },
  // Validation markers on a type and on the field that uses it: folded as controller-gen folds a
  // field into the type it refers to (the field's rules first, both values of a bound in allOf).
  fieldtype: {
    crd: 'fieldtype.oracle.kubeforge.io_things.yaml',
    warnings: [
      'KF2015 @Enum on field "mode" of ThingSpec: the type already has an enum ("Fast", "Slow"), which stays: controller-gen keeps a type\'s enum over its field\'s',
    ],
  },
  // Where controller-gen's bytes follow a rule of their own (issue #40): `required` in Go's string
  // order, whatever the declaration order (fields, base classes, intersection members); printer
  // columns without their zero-valued fields, and `subresources: {}` on a version with columns;
  // Go's int and numbers @Type makes integers. Compared byte for byte: field names beyond U+FFFF
  // are written as go-yaml v2 writes them (double-quoted `\U` escapes, sorted as code points).
  bytes: { crd: 'bytes.oracle.kubeforge.io_things.yaml', bytes: true },
  // Aliases of aliases (Go: named types of named types), markers at each level.
  aliases: { crd: 'aliases.oracle.kubeforge.io_things.yaml' },
  // String, integer and number enums: markers, TypeScript enums, unions of literals.
  enums: {
    crd: 'enums.oracle.kubeforge.io_things.yaml',
    known: {
      [`${SPEC}.color.enum differs`]:
        "Go's +k8s:enum lists the constants of the type sorted; kubeforge keeps a TypeScript enum's member order (what +kubebuilder:validation:Enum=red;green;blue writes)",
      [`${SPEC}.colors.items.enum differs`]: 'the same enum, as list items',
    },
  },
  // Fields of named list and map types with markers of their own: refused by controller-gen until
  // v0.22, applied by v0.23 (a field's listType / listMapKey / mapType over the type's).
  namedcollections: { crd: 'namedcollections.oracle.kubeforge.io_things.yaml' },
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
  // (The twins module requires the newest supported k8s.io/api, whose schema data kubeforge ships.)
  k8stypes: { crd: 'k8stypes.oracle.kubeforge.io_things.yaml' },
  // Every field-level and type-level marker of the marker reference (see the coverage test below).
  markers: {
    crd: 'markers.oracle.kubeforge.io_things.yaml',
    checks: {
      lines: ['warning KF4615 94', 'warning KF4615 188', 'warning KF4615 373'],
      reason:
        '@Type(\'string\') over an int32 keeps format: int32 (controller-gen writes it too), which the API server does not recognise on a string: it warns unrecognized format "int32" and validates nothing with it',
    },
  },
  // uniqueItems on a field, on items, on a type: the same CRD, which the API server refuses.
  uniqueitems: {
    crd: 'uniqueitems.oracle.kubeforge.io_things.yaml',
    checks: {
      lines: ['error KF4603 8', 'error KF4603 14', 'error KF4603 19', 'error KF4603 22'],
      reason:
        'the API server refuses uniqueItems: true (its cost is quadratic): controller-gen writes a CRD that does not install, manifests refuses to write it',
    },
  },
};

/** Whether the CRD check refuses a hard case's CRD (an error among its checks: manifests writes nothing). */
const refused = (c: HardCase) => !!c.checks?.lines.some((l) => l.startsWith('error '));

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
    // oracle/k8sjobs is judged at every Kubernetes minor by the suite above (K8S_CASES).
    const perMinor = new Set(K8S_CASES.map((c) => c.twin.replace(/^cases\//, '')));
    assert.deepEqual(
      readdirSync(cases)
        .filter((n) => !perMinor.has(n))
        .sort(),
      Object.keys(HARD).sort(),
    );
    assert.deepEqual(
      readdirSync(join(twins, 'cases'))
        .filter((n) => !perMinor.has(n))
        .sort(),
      Object.keys(HARD).sort(),
    );
  });

  for (const [name, c] of Object.entries(HARD)) {
    it(`${name}: kubeforge on the TypeScript = controller-gen on the Go twin${c.known || c.knownFile ? ', but for the listed differences' : ''}`, async () => {
      const said = withoutGeneratorVersion(YAML.parse(readFileSync(join(out, c.crd), 'utf8')) as Obj);
      const result = await analyzeProject({ projectDir: join(cases, name), generatorVersion: 'v0.0.0-test' });
      assert.deepEqual(
        result.diagnostics.filter((d) => d.severity === 'error'),
        [],
      );
      assert.deepEqual(
        result.diagnostics.map((d) => `${d.code} ${d.message}`),
        c.warnings ?? [],
      );
      assert.equal(result.crds.length, 1);
      const lines = differences(said, withoutGeneratorVersion(result.crds[0] as Obj));
      const known = c.knownFile
        ? readFileSync(join(root, c.knownFile.path), 'utf8').split('\n').filter(Boolean)
        : Object.keys(c.known ?? {});
      assert.deepEqual(lines, known, 'a listed difference that no longer occurs, or a new one');
      if (c.bytes) {
        // Byte for byte: key order, quoting and escapes as go-yaml v2 writes them.
        const theirs = readFileSync(join(out, c.crd), 'utf8').replace(
          /^ {4}controller-gen\.kubebuilder\.io\/version: .*\n/m,
          '',
        );
        const ours = toYamlDocuments(result.crds).replace(/^ {4}kubeforge\.io\/version: .*\n/m, '');
        assert.equal(ours, theirs, 'the bytes controller-gen writes');
      }
      const check = (await checked(result)).map((d) => `${d.severity} ${d.code} ${d.line}`);
      assert.deepEqual(check, c.checks?.lines ?? [], 'what the CRD check says before manifests writes');
      if (!refused(c)) installable.push(result.crds[0] as unknown as CRDObject);
    });
  }

  it('the CRDs manifests writes for them install on a real API server', async () => {
    assert.equal(installable.length, Object.values(HARD).filter((c) => !refused(c)).length);
    env = new TestEnvironment({ useExistingCluster: false });
    await env.start();
    await installCRDs(env.config, { crds: installable, timeoutMs: 60_000 });
  });

  it('the markers case uses every field-level and type-level marker of the reference', () => {
    const uses = markerUses([
      join(cases, 'markers/src/api/v1/thing_types.ts'),
      join(cases, 'uniqueitems/src/api/v1/thing_types.ts'),
    ]);
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
      const into =
        ts.isPropertyDeclaration(node) || ts.isPropertySignature(node)
          ? field
          : ts.isClassDeclaration(node) || ts.isTypeAliasDeclaration(node) || ts.isInterfaceDeclaration(node)
            ? type
            : undefined;
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
    '28 must apply kubebuilder:validation:items:MaxLength to an array value, found array':
      "a field of a named list type is a $ref with a type but no items when controller-gen checks an items marker (v0.23 gives the $ref its type, so MinItems on such a field applies: the namedcollections case); kubeforge checks it against the type's schema and folds it in",
    '31 must apply minproperties to an object':
      "a field of a named struct type is a $ref without a type when controller-gen checks the marker (v0.23 types only list and map references); kubeforge checks it against the type's schema",
    '34 must apply maximum to a numeric value, found ':
      'the same, for IntOrString (an external type); kubeforge applies it to the int-or-string schema',
    '37 must apply pattern to a textual value, found type ""':
      'the same, for Quantity; kubeforge puts both patterns in allOf',
    '39 found float, the usage of which is highly discouraged, as support for them varies across languages. Please consider serializing your float as string instead. If you are really sure you want to use them, re-run with crd:allowDangerousTypes=true':
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
    const result = await analyzeProject({
      projectDir: join(root, 'test/fixtures/manifests/oracle-refused'),
      generatorVersion: 'v0.0.0-test',
    });
    assert.deepEqual(result.diagnostics, []);
    assert.deepEqual(await checked(result), []);
    env = new TestEnvironment({ useExistingCluster: false });
    await env.start();
    await installCRDs(env.config, { crds: result.crds as unknown as CRDObject[], timeoutMs: 60_000 });
  });
});
