// Markers the analysis cannot read are errors, never silence: a @Root() Kind inside a namespace,
// a function or a class expression, or without a name (KF4013); kubeforge markers on classes
// nothing reads (KF2016); `--paths` naming nothing of the project (KF4014).
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { analyzeProject } from './analyze-helper.js';
import { markerUses } from '../../src/analysis/analyze.js';
import type { Obj } from '../helpers/chart.js';

const made: string[] = [];
after(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

function project(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'kf-unread-'));
  made.push(dir);
  const all: Record<string, string> = {
    'tsconfig.json': JSON.stringify({
      compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022' },
      include: ['src/**/*.ts'],
    }),
    'src/api/v1/groupversion.ts':
      "import { defineGroupVersion } from 'kubeforge/markers';\nexport const groupVersion = defineGroupVersion({ group: 'u.example.com', version: 'v1' });\n",
    ...files,
  };
  for (const [path, text] of Object.entries(all)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

/** [code, line, column, first words of the message] of every diagnostic. */
async function problems(files: Record<string, string>, paths?: string[]) {
  const dir = project(files);
  const r = await analyzeProject({ projectDir: dir, generatorVersion: 'v0', paths });
  return { dir, r, list: r.diagnostics.map((d) => [d.code, d.line, d.column, d.message] as const) };
}

describe('classes the analysis cannot read', () => {
  it('a @Root() Kind inside a namespace is KF4013 at its name, with a hint; other Kinds of the file are still generated', async () => {
    const { r, list } = await problems({
      'src/api/v1/types.ts': `import { Root } from './markers.js';
export namespace api {
  @Root()
  export class Hidden { metadata?: unknown; }
}
@Root() export class Visible { metadata?: unknown; }
`,
      'src/api/v1/markers.ts': "export * from 'kubeforge/markers';\n",
    });
    assert.deepEqual(list, [
      [
        'KF4013',
        4,
        16,
        '@Root() class Hidden is declared inside namespace api, where the analysis cannot read it: it would get no CRD',
      ],
    ]);
    assert.match(r.diagnostics[0].hint ?? '', /export class Hidden \{ \.\.\. \}/);
    assert.equal(r.diagnostics[0].severity, 'error');
    assert.deepEqual(
      r.kinds.map((k) => k.kind),
      ['Visible'],
    );
  });

  it('a @Root() class expression, a @Root() class inside a function and an anonymous default @Root() class are KF4013', async () => {
    const { list } = await problems({
      'src/api/v1/types.ts': `import * as m from 'kubeforge/markers';
export const Expr = @m.Root() class { metadata?: unknown; };
export function make() {
  @m.Root()
  class Local { metadata?: unknown; }
  return Local;
}
`,
      'src/api/v1/anon.ts': `import { Root as R } from 'kubeforge/markers';
@R()
export default class { metadata?: unknown; }
`,
    });
    assert.deepEqual(list, [
      ['KF4013', 2, 1, '@Root() class has no name, so the analysis cannot name its Kind'],
      [
        'KF4013',
        2,
        21,
        '@Root() class Expr is a class expression (Expr), where the analysis cannot read it: it would get no CRD',
      ],
      [
        'KF4013',
        5,
        9,
        '@Root() class Local is declared inside function make, where the analysis cannot read it: it would get no CRD',
      ],
    ]);
  });

  it('markers on a class expression or a function-local class are KF2016; class-level markers of a namespaced class too; other decorators are not looked at', async () => {
    const { list, r } = await problems({
      'src/controllers/c.ts': `import { Rbac, Maximum } from 'kubeforge/markers';
import { Traced } from './tracing.js';
export namespace ctl {
  @Rbac({ groups: [''], resources: ['pods'], verbs: ['get'] })
  export class Reconciler {}
}
export const Spec = class {
  @Maximum(3) @Traced() n?: number;
};
@Traced() export class Plain {}
`,
      'src/controllers/tracing.ts':
        'export function Traced(): (v: unknown, c: unknown) => void { return () => undefined; }\n',
    });
    assert.deepEqual(list, [
      ['KF2016', 4, 3, '@Rbac on class Reconciler is never read: class Reconciler is declared inside namespace ctl'],
      ['KF2016', 8, 3, '@Maximum on Spec.n is never read: class Spec is a class expression (Spec)'],
    ]);
    assert.deepEqual(markerUses(r.markers, 'Rbac'), []);
  });

  it('field markers of a namespaced class are read where a field names the class: no error, the markers apply', async () => {
    const { list, r } = await problems({
      'src/api/v1/types.ts': `import { Maximum, Root, type float64 } from 'kubeforge/markers';
export namespace parts {
  export class Spec { @Maximum(3) n?: float64; }
}
@Root() export class Thing { metadata?: unknown; spec?: parts.Spec; }
`,
    });
    assert.deepEqual(list, []);
    const props = (r.crds[0] as Obj).spec.versions[0].schema.openAPIV3Schema.properties.spec.properties;
    assert.deepEqual(props.n, { maximum: 3, type: 'number' });
  });
});

describe('--paths', () => {
  const files = {
    'src/api/v1/types.ts':
      "import { Root } from 'kubeforge/markers';\n@Root() export class Thing { metadata?: unknown; }\n",
    'docs/notes.md': '# notes\n',
  };

  it('a path that does not exist is KF4014, as is one holding no source of the project; nothing is analysed', async () => {
    const { list, r } = await problems(files, ['src/api/v9', 'docs']);
    assert.deepEqual(list, [
      ['KF4014', undefined, undefined, '--paths: docs holds no TypeScript source of the project'],
      ['KF4014', undefined, undefined, '--paths: src/api/v9 does not exist'],
    ]);
    assert.deepEqual(r.kinds, []);
  });

  it('one missing path among existing ones is still an error (a typo must not pass for nothing to do)', async () => {
    const { list } = await problems(files, ['src/api/v1', 'src/api/v1beta1']);
    assert.deepEqual(list, [['KF4014', undefined, undefined, '--paths: src/api/v1beta1 does not exist']]);
  });

  it('existing paths are not an error', async () => {
    const { list, r } = await problems(files, ['src/api/v1/types.ts']);
    assert.deepEqual(list, []);
    assert.deepEqual(
      r.kinds.map((k) => k.kind),
      ['Thing'],
    );
  });
});
