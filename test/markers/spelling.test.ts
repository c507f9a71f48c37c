// Markers are found by what they are, not by how their import is spelled: a Kind written with
// every import spelling (a local barrel with `export *` or named re-exports, aliases, namespace
// imports, barrels of barrels, barrels in a cycle) gives exactly the CRD, RBAC rules and
// diagnostics of the same Kind importing 'kubeforge/markers' directly. Decorators that lead
// elsewhere stay ignored. kubeforge/markers itself is never installed in these projects: it is
// recognised by specifier.
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ts } from 'ts-morph';
import { getMarkerDefinition } from '../../src/markers/definitions.js';
import { MARKERS_MODULE_EXTRA_EXPORTS } from '../../src/collector/resolve.js';
import { analyzeProject } from '../manifests/analyze-helper.js';
import { markerUses } from '../../src/analysis/analyze.js';
import type { JSONSchemaProps } from '../../src/schema/jsonschema.js';
import { must } from '../helpers/must.js';

const root = process.env.KUBEFORGE_REPO_ROOT ?? process.cwd();
const made: string[] = [];
after(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

function project(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'kf-spelling-'));
  made.push(dir);
  const all: Record<string, string> = {
    'tsconfig.json': JSON.stringify({
      compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true },
      include: ['src/**/*.ts'],
    }),
    ...files,
  };
  for (const [path, text] of Object.entries(all)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

/** Every kubeforge/markers name the Kind below uses. */
const USED = [
  'Root',
  'Resource',
  'SubresourceStatus',
  'PrintColumn',
  'Maximum',
  'Minimum',
  'Pattern',
  'Enum',
  'Default',
  'Items',
  'XValidation',
  'int32',
  'int64',
  'Quantity',
  'IntOrString',
];
const TYPES = ['int32', 'int64', 'Quantity', 'IntOrString'];
/** IntOrString is both a decorator and a type. */
const DECORATORS = USED.filter((n) => !TYPES.includes(n) || n === 'IntOrString');

/** The Kind, with each marker name spelled by `r`. */
function kindSource(imports: string, r: (name: string) => string, extra = ''): string {
  return `import type { V1ObjectMeta } from '@kubernetes/client-node';
${imports}
${extra}
export class WidgetSpec {
  /** Replicas. */
  @${r('Minimum')}(0) @${r('Maximum')}(10) @${r('Default')}(1)
  replicas?: ${r('int32')};
  @${r('Pattern')}(/^[a-z]+$/) @${r('Enum')}('alpha', 'beta')
  tier?: string;
  @${r('Items')}.MaxLength(8)
  tags?: string[];
  memory?: ${r('Quantity')};
  port?: ${r('IntOrString')};
  @${r('IntOrString')}()
  target?: string;
  size?: ${r('int64')};
}

export class WidgetStatus {
  ready?: boolean;
}

@${r('Root')}()
@${r('Resource')}({ path: 'widgets', shortName: ['wd'] })
@${r('SubresourceStatus')}()
@${r('PrintColumn')}({ name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' })
@${r('XValidation')}({ rule: 'self.metadata.name.size() < 40', message: 'short names only' })
export class Widget {
  metadata?: V1ObjectMeta;
  spec?: WidgetSpec;
  status?: WidgetStatus;
}
`;
}

const GV_DIRECT = `import { defineGroupVersion } from 'kubeforge/markers';\nexport const groupVersion = defineGroupVersion({ group: 'spell.example.com', version: 'v1' });\n`;
const CONTROLLER_DIRECT = `import { Rbac } from 'kubeforge/markers';
@Rbac({ groups: ['spell.example.com'], resources: ['widgets'], verbs: ['get', 'list', 'watch'] })
export class WidgetReconciler {}
`;
const named = (names: string[], r: (n: string) => string = (n) => n) =>
  names.map((n) => (r(n) === n ? n : `${n} as ${r(n)}`)).join(', ');
const DIRECT_IMPORT = `import { ${named(DECORATORS)}, type ${TYPES.filter((t) => t !== 'IntOrString').join(', type ')} } from 'kubeforge/markers';`;

async function crdsOf(files: Record<string, string>, paths?: string[]) {
  const dir = project(files);
  const r = await analyzeProject({ projectDir: dir, generatorVersion: 'v0', paths });
  return { dir, r };
}

let reference: { crds: unknown[]; rbac: unknown[] } | undefined;
async function expected() {
  if (!reference) {
    const { r } = await crdsOf({
      'src/api/v1/groupversion.ts': GV_DIRECT,
      'src/api/v1/widget_types.ts': kindSource(DIRECT_IMPORT, (n) => n),
      'src/controllers/widget.ts': CONTROLLER_DIRECT,
    });
    assert.deepEqual(r.diagnostics, []);
    assert.equal(r.crds.length, 1);
    const crd = r.crds[0] as { spec: { versions: { schema: { openAPIV3Schema: JSONSchemaProps } }[] } };
    const props = must(
      crd.spec.versions[0].schema.openAPIV3Schema.properties?.spec.properties,
      'the spec schema properties',
    );
    // The reference really carries what every spelling must keep.
    assert.deepEqual(props.replicas, {
      default: 1,
      description: 'Replicas.',
      format: 'int32',
      maximum: 10,
      minimum: 0,
      type: 'integer',
    });
    assert.equal(props.tags.items?.maxLength, 8);
    assert.equal(props.port['x-kubernetes-int-or-string'], true);
    assert.equal(props.memory['x-kubernetes-int-or-string'], true);
    assert.equal(markerUses(r.markers, 'Rbac').length, 1);
    reference = { crds: r.crds, rbac: markerUses(r.markers, 'Rbac').map((u) => u.args) };
  }
  return reference;
}

/** Analyses the files and expects exactly the reference CRD and RBAC rule, with no diagnostic. */
async function expectSame(files: Record<string, string>, paths?: string[]): Promise<void> {
  const want = await expected();
  const { r } = await crdsOf(
    {
      'src/api/v1/groupversion.ts': GV_DIRECT,
      'src/controllers/widget.ts': CONTROLLER_DIRECT,
      ...files,
    },
    paths,
  );
  assert.deepEqual(r.diagnostics, []);
  assert.deepEqual(r.crds, want.crds);
  if (!paths)
    assert.deepEqual(
      markerUses(r.markers, 'Rbac').map((u) => u.args),
      want.rbac,
    );
}

const id = (n: string) => n;

describe('markers are found by what they are, not by how they are spelled', () => {
  it('a barrel with `export * from kubeforge/markers` (decorators, Items and the type aliases)', async () => {
    await expectSame({
      'src/api/v1/markers.ts': "export * from 'kubeforge/markers';\n",
      'src/api/v1/widget_types.ts': kindSource(`import { ${named(USED)} } from './markers.js';`, id),
    });
  });

  it('a barrel with named re-exports, types included (`export { Maximum, type int32 } from ...`)', async () => {
    await expectSame({
      'src/api/v1/markers.ts': `export { ${named(DECORATORS)} } from 'kubeforge/markers';\nexport type { int32, int64, Quantity } from 'kubeforge/markers';\n`,
      'src/api/v1/widget_types.ts': kindSource(`import { ${named(USED)} } from './markers.js';`, id),
    });
  });

  it('aliases: `import { Maximum as Max }` directly, through a barrel, and `export { X as Y }` in the barrel', async () => {
    const alias = (n: string) => `K${n}`;
    await expectSame({
      'src/api/v1/widget_types.ts': kindSource(
        `import { ${named(DECORATORS, alias)}, type ${TYPES.filter((t) => t !== 'IntOrString')
          .map((t) => `${t} as K${t}`)
          .join(', type ')} } from 'kubeforge/markers';`,
        alias,
      ),
    });
    await expectSame({
      'src/api/v1/markers.ts': "export * from 'kubeforge/markers';\n",
      'src/api/v1/widget_types.ts': kindSource(`import { ${named(USED, alias)} } from './markers.js';`, alias),
    });
    await expectSame({
      'src/api/v1/markers.ts': `export { ${USED.map((n) => `${n} as Kf${n}`).join(', ')} } from 'kubeforge/markers';\n`,
      'src/api/v1/widget_types.ts': kindSource(
        `import { ${USED.map((n) => `Kf${n} as Z${n}`).join(', ')} } from './markers.js';`,
        (n) => `Z${n}`,
      ),
    });
  });

  it('namespace imports: of kubeforge/markers, of a barrel, and `export * as m` re-exported by a barrel', async () => {
    const ns = (n: string) => `m.${n}`;
    await expectSame({ 'src/api/v1/widget_types.ts': kindSource("import * as m from 'kubeforge/markers';", ns) });
    await expectSame({
      'src/api/v1/markers.ts': "export * from 'kubeforge/markers';\n",
      'src/api/v1/widget_types.ts': kindSource("import * as m from './markers.js';", ns),
    });
    await expectSame({
      'src/api/v1/markers.ts': "export * as kf from 'kubeforge/markers';\n",
      'src/api/v1/widget_types.ts': kindSource("import { kf as m } from './markers.js';", ns),
    });
  });

  it('a two-level barrel outside the API folder, also with --paths naming only the Kind file', async () => {
    const files = {
      'src/markers/index.ts': "export * from 'kubeforge/markers';\n",
      'src/api/v1/markers.ts': "export * from '../../markers/index.js';\n",
      'src/api/v1/widget_types.ts': kindSource(`import { ${named(USED)} } from './markers.js';`, id),
      'src/api/v1/groupversion.ts':
        "import { defineGroupVersion } from '../../markers/index.js';\nexport const groupVersion = defineGroupVersion({ group: 'spell.example.com', version: 'v1' });\n",
      'src/controllers/widget.ts': CONTROLLER_DIRECT.replace("'kubeforge/markers'", "'../api/v1/markers.js'"),
    };
    await expectSame(files);
    await expectSame(files, ['src/api/v1/widget_types.ts']);
  });

  it('a barrel importing then exporting (`import { Maximum } ...; export { Maximum }`), and one re-exporting only type aliases', async () => {
    await expectSame({
      'src/api/v1/markers.ts': `import { ${named(DECORATORS)} } from 'kubeforge/markers';\nimport type { int32, int64, Quantity } from 'kubeforge/markers';\nexport { ${named(DECORATORS)}, type int32, type int64, type Quantity };\n`,
      'src/api/v1/widget_types.ts': kindSource(`import { ${named(USED)} } from './markers.js';`, id),
    });
    await expectSame({
      'src/api/v1/types.ts': "export type { int32, int64, Quantity, IntOrString } from 'kubeforge/markers';\n",
      'src/api/v1/widget_types.ts': kindSource(
        `import { ${named(DECORATORS.filter((d) => d !== 'IntOrString'))} } from 'kubeforge/markers';\nimport { IntOrString } from 'kubeforge/markers';\nimport type { int32, int64, Quantity } from './types.js';`,
        id,
      ),
    });
  });

  it('barrels in a cycle: names still resolve, and a name that only leads back round resolves to nothing', async () => {
    await expectSame({
      'src/api/v1/a.ts': "export * from './b.js';\nexport * from 'kubeforge/markers';\n",
      'src/api/v1/b.ts': "export * from './a.js';\nexport { Nothing } from './c.js';\n",
      'src/api/v1/c.ts': "export { Nothing } from './b.js';\n",
      'src/api/v1/widget_types.ts': kindSource(`import { ${named(USED)}, Nothing } from './b.js';`, id).replace(
        'export class WidgetStatus {',
        '@Nothing()\nexport class WidgetStatus {',
      ),
    });
  });

  it('decorators that lead elsewhere stay ignored, even in a barrel that also re-exports kubeforge/markers', async () => {
    await expectSame({
      'src/api/v1/markers.ts': "export * from 'kubeforge/markers';\nexport * from './tracing.js';\n",
      'src/api/v1/tracing.ts':
        'export function Traced(): (v: unknown, c: unknown) => void { return () => undefined; }\nexport function Maximum2(): (v: unknown, c: unknown) => void { return () => undefined; }\n',
      'src/api/v1/widget_types.ts': kindSource(
        `import { ${named(USED)}, Traced, Maximum2 } from './markers.js';`,
        id,
      ).replace('  ready?: boolean;', '  @Traced() @Maximum2()\n  ready?: boolean;'),
    });
  });

  it('an unknown name through `export * from kubeforge/markers` is reported as an unknown marker, as with a direct import', async () => {
    const types = kindSource(`import { ${named(USED)}, Maximun, type float64 } from './markers.js';`, id).replace(
      '  ready?: boolean;',
      '  @Maximun(3)\n  ready?: float64;',
    );
    const { r } = await crdsOf({
      'src/api/v1/groupversion.ts': GV_DIRECT,
      'src/api/v1/markers.ts': "export * from 'kubeforge/markers';\n",
      'src/api/v1/widget_types.ts': types,
    });
    const line = types.split('\n').findIndex((l) => l.includes('@Maximun(3)')) + 1;
    assert.deepEqual(
      r.diagnostics.map((d) => [d.code, d.line, d.column]),
      [['KF2001', line, 3]],
    );
    assert.match(r.diagnostics[0].hint ?? '', /did you mean @Maximum\?/);
  });

  it('the names an `export *` of kubeforge/markers provides are the names src/markers/index.ts exports', () => {
    const text = readFileSync(join(root, 'src/markers/index.ts'), 'utf8');
    const sf = ts.createSourceFile('index.ts', text, ts.ScriptTarget.ES2022, true);
    const exported: string[] = [];
    for (const st of sf.statements) {
      if (!ts.canHaveModifiers(st) || !ts.getModifiers(st)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword))
        continue;
      if (ts.isVariableStatement(st)) for (const d of st.declarationList.declarations) exported.push(d.name.getText());
      else if (
        (ts.isFunctionDeclaration(st) ||
          ts.isTypeAliasDeclaration(st) ||
          ts.isInterfaceDeclaration(st) ||
          ts.isClassDeclaration(st)) &&
        st.name
      )
        exported.push(st.name.text);
    }
    const known = new Set([...MARKERS_MODULE_EXTRA_EXPORTS, ...exported.filter((n) => getMarkerDefinition(n))]);
    assert.deepEqual(
      [...new Set(exported)].filter((n) => !known.has(n)).sort(),
      [],
      'add these to MARKERS_MODULE_EXTRA_EXPORTS in src/collector/resolve.ts',
    );
    assert.deepEqual(
      MARKERS_MODULE_EXTRA_EXPORTS.filter((n) => !exported.includes(n)),
      [],
      'kubeforge/markers no longer exports these',
    );
  });
});
