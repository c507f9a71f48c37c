// Hostile input, family 1: markers are found by what they are, not by how they are spelled.
//
// A project generated with direct imports from 'kubeforge/markers' is refactored to import its
// markers through a local barrel (and other spellings). Before, the analysis saw no marker, so
// the Kind vanished and `kubeforge manifests` deleted its CRD with exit 0. Here the real CLI
// (bin/kubeforge.js, a subprocess) must keep the CRD and update it, byte for byte as the direct
// import would; a Kind moved where the analysis cannot read it, and `--paths` naming nothing,
// must fail with a located error and leave every file as it was.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { treeHash } from '../helpers/tree.js';

const repo = process.env.KUBEFORGE_REPO_ROOT ?? resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const made: string[] = [];
after(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

const CRD = 'config/crd/bases/spell.example.com_widgets.yaml';
const ROLE = 'config/rbac/role.yaml';

function write(dir: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}

function project(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'kf-hostile-spelling-'));
  made.push(dir);
  write(dir, {
    'tsconfig.json': JSON.stringify({
      compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true },
      include: ['src/**/*.ts'],
    }),
    'src/api/v1/groupversion.ts':
      "import { defineGroupVersion } from 'kubeforge/markers';\nexport const groupVersion = defineGroupVersion({ group: 'spell.example.com', version: 'v1' });\n",
    ...files,
  });
  return dir;
}

function kubeforge(args: string[], cwd: string): { code: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [join(repo, 'bin/kubeforge.js'), ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', KUBEFORGE_GENERATOR_VERSION: 'test' },
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** The Kind and its reconciler, each marker name spelled by `r`. */
function sources(imports: string, r: (n: string) => string, max: number): Record<string, string> {
  return {
    'src/api/v1/widget_types.ts': `import type { V1ObjectMeta } from '@kubernetes/client-node';
${imports}

export class WidgetSpec {
  /** How many. */
  @${r('Minimum')}(1) @${r('Maximum')}(${max})
  replicas?: ${r('int32')};
  @${r('Items')}.Pattern(/^[a-z]+$/)
  names?: string[];
  memory?: ${r('Quantity')};
}

@${r('Root')}()
@${r('SubresourceStatus')}()
export class Widget {
  metadata?: V1ObjectMeta;
  spec?: WidgetSpec;
  status?: { ready?: boolean };
}
`,
    'src/controllers/widget.ts': `${imports.replace(/'\.\/(markers|barrel)\.js'/, "'../api/v1/$1.js'").replace("'./ns.js'", "'../api/v1/ns.js'")}

@${r('Rbac')}({ groups: ['spell.example.com'], resources: ['widgets'], verbs: ['get', 'list', 'watch'] })
export class WidgetReconciler {}
`,
  };
}

const NAMES = ['Minimum', 'Maximum', 'Items', 'Root', 'SubresourceStatus', 'Rbac'];
const id = (n: string) => n;
const DIRECT = `import { ${NAMES.join(', ')}, type int32, type Quantity } from 'kubeforge/markers';`;

/** What the direct import writes for the Kind with this maximum (a twin project). */
function directOutput(max: number): { crd: string; role: string } {
  const dir = project(sources(DIRECT, id, max));
  const r = kubeforge(['manifests'], dir);
  assert.equal(r.code, 0, r.err);
  return { crd: readFileSync(join(dir, CRD), 'utf8'), role: readFileSync(join(dir, ROLE), 'utf8') };
}

const SPELLINGS: { name: string; files: Record<string, string>; imports: string; r: (n: string) => string }[] = [
  {
    name: 'a barrel: export * from kubeforge/markers',
    files: { 'src/api/v1/markers.ts': "export * from 'kubeforge/markers';\n" },
    imports: `import { ${NAMES.join(', ')}, type int32, type Quantity } from './markers.js';`,
    r: id,
  },
  {
    name: 'a barrel of named re-exports, imported under aliases',
    files: {
      'src/api/v1/markers.ts': `export { ${NAMES.join(', ')} } from 'kubeforge/markers';\nexport type { int32, Quantity } from 'kubeforge/markers';\n`,
    },
    imports: `import { ${[...NAMES, 'int32', 'Quantity'].map((n) => `${n} as My${n}`).join(', ')} } from './markers.js';`,
    r: (n) => `My${n}`,
  },
  {
    name: 'a namespace import of a barrel',
    files: { 'src/api/v1/markers.ts': "export * from 'kubeforge/markers';\n" },
    imports: "import * as kf from './markers.js';",
    r: (n) => `kf.${n}`,
  },
  {
    name: 'a barrel of a barrel',
    files: {
      'src/lib/markers.ts': "export * from 'kubeforge/markers';\n",
      'src/api/v1/barrel.ts': "export * from '../../lib/markers.js';\n",
    },
    imports: `import { ${NAMES.join(', ')}, type int32, type Quantity } from './barrel.js';`,
    r: id,
  },
  // Family 2 of the second round: spellings that were dropped without a word.
  {
    name: 'local const aliases (const MyMaximum = kf.Maximum)',
    files: {},
    imports: `import * as kf from 'kubeforge/markers';\n${NAMES.map((n) => `const My${n} = kf.${n};`).join('\n')}`,
    r: (n) => (n === 'int32' || n === 'Quantity' ? `kf.${n}` : `My${n}`),
  },
  {
    name: 'a destructured alias (const { Maximum: MyMaximum } = kf)',
    files: {},
    imports: `import * as kf from 'kubeforge/markers';\nconst { ${NAMES.map((n) => `${n}: My${n}`).join(', ')} } = kf;`,
    r: (n) => (n === 'int32' || n === 'Quantity' ? `kf.${n}` : `My${n}`),
  },
  {
    name: 'a default-exported markers namespace (export default kf)',
    files: { 'src/api/v1/markers.ts': "import * as kf from 'kubeforge/markers';\nexport default kf;\n" },
    imports: "import mk from './markers.js';\nimport type { int32, Quantity } from 'kubeforge/markers';",
    r: (n) => (n === 'int32' || n === 'Quantity' ? n : `mk.${n}`),
  },
  {
    name: 'aliases exported from a local module (export const MyMaximum = Maximum)',
    files: {
      'src/api/v1/markers.ts': `import { ${NAMES.join(', ')} } from 'kubeforge/markers';\n${NAMES.map((n) => `export const My${n} = ${n};`).join('\n')}\n`,
    },
    imports: `import { ${NAMES.map((n) => `My${n}`).join(', ')} } from './markers.js';\nimport type { int32, Quantity } from 'kubeforge/markers';`,
    r: (n) => (n === 'int32' || n === 'Quantity' ? n : `My${n}`),
  },
];

describe('hostile: markers imported through barrels, aliases and namespaces (CLI)', () => {
  for (const s of SPELLINGS) {
    it(`${s.name}: the existing CRD is kept and updated as the direct import would, role.yaml kept`, () => {
      const dir = project(sources(DIRECT, id, 10));
      const first = kubeforge(['manifests'], dir);
      assert.equal(first.code, 0, first.err);
      assert.match(readFileSync(join(dir, CRD), 'utf8'), /maximum: 10\n/);

      // The refactor: markers now come through the new spelling, and one validation changes.
      write(dir, { ...s.files, ...sources(s.imports, s.r, 20) });
      const second = kubeforge(['manifests'], dir);
      assert.equal(second.code, 0, second.err);
      assert.doesNotMatch(second.out, /DELETE/);
      assert.match(second.out, new RegExp(`UPDATE ${CRD.replace(/\./g, '\\.')}`));
      const want = directOutput(20);
      assert.ok(existsSync(join(dir, CRD)), 'the CRD was deleted');
      assert.equal(readFileSync(join(dir, CRD), 'utf8'), want.crd);
      assert.equal(readFileSync(join(dir, ROLE), 'utf8'), want.role);

      const third = kubeforge(['manifests'], dir);
      assert.equal(third.code, 0, third.err);
      assert.equal(third.out, 'manifests are up to date\n');
    });
  }

  it('a Kind moved into a namespace: located KF4013, exit 1, its CRD and every other file kept', () => {
    const dir = project({
      'src/api/v1/markers.ts': "export * from 'kubeforge/markers';\n",
      ...sources(SPELLINGS[0].imports, id, 10),
    });
    assert.equal(kubeforge(['manifests'], dir).code, 0);
    const types = readFileSync(join(dir, 'src/api/v1/widget_types.ts'), 'utf8');
    write(dir, {
      'src/api/v1/widget_types.ts': types
        .replace(
          '@Root()\n@SubresourceStatus()\nexport class Widget {',
          'export namespace v1 {\n@Root()\n@SubresourceStatus()\nexport class Widget {',
        )
        .replace(/\}\n$/, '}\n}\n'),
    });
    const before = treeHash(dir);
    const r = kubeforge(['manifests'], dir);
    assert.equal(r.code, 1);
    assert.match(
      r.err,
      /src\/api\/v1\/widget_types\.ts:16:14 {2}KF4013 {2}@Root\(\) class Widget is declared inside namespace v1/,
    );
    assert.match(r.err, /hint: declare it at the top level of the file/);
    assert.equal(treeHash(dir), before);
  });

  it('--paths naming nothing that exists: KF4014, exit 1, nothing written', () => {
    const dir = project(sources(DIRECT, id, 10));
    const before = treeHash(dir);
    const r = kubeforge(['manifests', '--paths', 'src/api/v2'], dir);
    assert.equal(r.code, 1);
    assert.match(r.err, /KF4014 {2}--paths: src\/api\/v2 does not exist/);
    assert.equal(treeHash(dir), before);
    assert.ok(!existsSync(join(dir, CRD)));
  });
});
