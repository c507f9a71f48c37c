// The one manifests pipeline with its sinks (src/manifests/pipeline.ts, stage.ts): a scaffold's
// tree (planManifestsRun) and the planner on the disk (runManifests) plan the same changes for
// the same project, a tree's pending files are analysed and kept out of the manifests' plan, and a
// file of the user's at an output's path is KF4505 in both, nothing written.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { DiagnosticError } from '../../src/diagnostics/index.js';
import { planManifestsRun, runManifests } from '../../src/manifests/pipeline.js';
import { DiskHost } from '../../src/machinery/host.js';
import { Tree } from '../../src/machinery/tree.js';

const made: string[] = [];
after(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

function project(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'kf-sinks-'));
  made.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const kind = (name: string) => `import type { V1ObjectMeta } from '@kubernetes/client-node';
import { Root } from 'kubeforge/markers';

export class ${name}Spec {
  size?: number;
}

@Root()
export class ${name} {
  metadata?: V1ObjectMeta;
  spec?: ${name}Spec;
}
`;

const files = {
  'tsconfig.json': JSON.stringify({
    compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true },
    include: ['src/**/*.ts'],
  }),
  'src/api/v1/groupversion.ts':
    "import { defineGroupVersion } from 'kubeforge/markers';\nexport const groupVersion = defineGroupVersion({ group: 'sink.example.com', version: 'v1' });\n",
  'src/api/v1/ship_types.ts': kind('Ship'),
  'src/controller/ship.ts':
    "import { Rbac } from 'kubeforge/markers';\n\n@Rbac({ groups: ['sink.example.com'], resources: ['ships'], verbs: ['get'] })\nexport class ShipReconciler {}\n",
};

const lines = (changes: readonly { kind: string; path: string }[]) => changes.map((c) => `${c.kind} ${c.path}`);

describe('the manifests pipeline and its sinks', () => {
  it('a tree and the disk planner plan the same changes with the same bytes', async () => {
    const dir = project(files);
    const tree = await planManifestsRun({ projectDir: dir, generatorVersion: 'test', noCache: true });
    const dry = await runManifests({ projectDir: dir, generatorVersion: 'test', dryRun: true, noCache: true });
    assert.deepEqual(lines(tree.changes), [
      'create config/crd/bases/sink.example.com_ships.yaml',
      'create config/rbac/role.yaml',
    ]);
    assert.deepEqual(lines(tree.changes), lines(dry.changes));
    assert.equal(existsSync(join(dir, 'config')), false, 'planning writes nothing');
    const written = await runManifests({ projectDir: dir, generatorVersion: 'test', noCache: true });
    assert.deepEqual(lines(written.changes), lines(tree.changes));
    for (const c of tree.changes)
      assert.equal(readFileSync(join(dir, c.path), 'utf8'), tree.tree.read(c.path)?.toString('utf8'), c.path);
  });

  it("a tree's pending Kind is analysed (the loader's overlay) and its own files stay out of the manifests' plan", async () => {
    const dir = project(files);
    const tree = new Tree(new DiskHost(dir));
    tree.write('src/api/v1/boat_types.ts', kind('Boat'));
    const run = await planManifestsRun({ projectDir: dir, generatorVersion: 'test', noCache: true }, undefined, tree);
    assert.deepEqual(lines(run.changes), [
      'create config/crd/bases/sink.example.com_boats.yaml',
      'create config/crd/bases/sink.example.com_ships.yaml',
      'create config/rbac/role.yaml',
    ]);
    assert.ok(tree.read('src/api/v1/boat_types.ts'), 'the scaffold file is still planned in the tree');
    assert.equal(existsSync(join(dir, 'src/api/v1/boat_types.ts')), false);
  });

  it("a file of the user's at an output's path is KF4505 for both sinks, nothing written", async () => {
    const dir = project({ ...files, 'config/rbac/role.yaml': '# mine\n' });
    const kf4505 = (e: unknown) =>
      e instanceof DiagnosticError &&
      e.diagnostics.length === 1 &&
      e.diagnostics[0].code === 'KF4505' &&
      e.diagnostics[0].file === 'config/rbac/role.yaml';
    await assert.rejects(planManifestsRun({ projectDir: dir, generatorVersion: 'test', noCache: true }), kf4505);
    await assert.rejects(runManifests({ projectDir: dir, generatorVersion: 'test', noCache: true }), kf4505);
    assert.equal(readFileSync(join(dir, 'config/rbac/role.yaml'), 'utf8'), '# mine\n');
    assert.equal(existsSync(join(dir, 'config/crd')), false);
  });
});
