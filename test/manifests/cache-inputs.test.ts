// The no-change cache must never answer "up to date" for inputs it did not see: an edit saved
// while a run was reading (an editor's format-on-save), and the declaration files of dependencies
// the analysis read (upgrading a types package). Missing either would leave `manifests --check`
// saying "up to date" forever.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { type AnalysisResult, type Analyzer, runManifests } from '../../src/manifests/pipeline.js';

const made: string[] = [];
after(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

function project(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'kf-cache-inputs-'));
  made.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
    // Made a minute ago: a file modified just before a run starts counts as modified during it.
    const past = new Date(Date.now() - 60_000);
    utimesSync(join(dir, path), past, past);
  }
  return dir;
}

const gv =
  "import { defineGroupVersion } from 'kubeforge/markers';\nexport const groupVersion = defineGroupVersion({ group: 'demo.example.com', version: 'v1' });\n";
const types = (specType: string, extraImport = '') => `import type { V1ObjectMeta } from '@kubernetes/client-node';
import { Root } from 'kubeforge/markers';
${extraImport}
@Root()
export class Widget {
  metadata?: V1ObjectMeta;
  spec?: ${specType};
}
`;
const base = {
  'tsconfig.json': JSON.stringify({
    compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true },
    include: ['src/**/*.ts'],
  }),
  'package.json': '{"name":"demo","private":true,"type":"module"}\n',
  'src/api/v1/groupversion.ts': gv,
};
const CRD = 'config/crd/bases/demo.example.com_widgets.yaml';

/** The real analysis, counting its calls and running `during` while it reads. */
function countingAnalyzer(during?: (call: number) => void): { analyzer: Analyzer; calls: () => number } {
  let calls = 0;
  const analyzer: Analyzer = async (options, reporter) => {
    calls++;
    const { analyzeProject } = await import('../../src/analysis/analyze.js');
    const result: AnalysisResult = await analyzeProject(options, reporter);
    during?.(calls);
    return result;
  };
  return { analyzer, calls: () => calls };
}

describe('no-change cache: what the analysis read', () => {
  it('an edit saved during a run is seen by the next run, and by --check', async () => {
    const dir = project({ ...base, 'src/api/v1/widget_types.ts': types('{ size?: number }') });
    const file = join(dir, 'src/api/v1/widget_types.ts');
    // The first run's analysis has read the file when the "editor" saves a new field.
    const { analyzer, calls } = countingAnalyzer((call) => {
      if (call === 1) writeFileSync(file, types('{ size?: number; color?: string }'));
    });
    await runManifests({ projectDir: dir }, analyzer);
    assert.doesNotMatch(readFileSync(join(dir, CRD), 'utf8'), /color:/, 'the first run generated from what it read');

    const check = await runManifests({ projectDir: dir, check: true }, analyzer);
    assert.equal(calls(), 2, '--check analysed instead of trusting the cache');
    assert.deepEqual(
      check.changes.map((c) => c.path),
      [CRD],
      '--check must see the CRD is stale',
    );
    await runManifests({ projectDir: dir }, analyzer);
    assert.equal(calls(), 3);
    assert.match(readFileSync(join(dir, CRD), 'utf8'), /color:/);
    // Now the cache holds what was read: a further run is answered from it.
    await runManifests({ projectDir: dir }, analyzer);
    assert.equal(calls(), 3, 'the cache was not refreshed after the catching-up run');
  });

  it('a file outside the scanned folders that changes during the run is recorded as changed', async () => {
    const dir = project({
      ...base,
      'src/api/v1/widget_types.ts': types('Shared', "import type { Shared } from '../../../shared/types.js';"),
      'shared/types.ts': 'export interface Shared { name?: string }\n',
    });
    const { analyzer, calls } = countingAnalyzer((call) => {
      if (call === 1)
        writeFileSync(join(dir, 'shared/types.ts'), 'export interface Shared { name?: string; zone?: string }\n');
    });
    await runManifests({ projectDir: dir }, analyzer);
    await runManifests({ projectDir: dir }, analyzer);
    assert.equal(calls(), 2, 'the edit to shared/types.ts during the first run was not seen');
    assert.match(readFileSync(join(dir, CRD), 'utf8'), /zone:/);
  });

  it("upgrading a dependency's declaration files invalidates the cache", async () => {
    const dir = project({
      ...base,
      'src/api/v1/widget_types.ts': types('WidgetSpec', "import type { WidgetSpec } from 'widget-types';"),
      'node_modules/widget-types/package.json': '{"name":"widget-types","version":"1.0.0","types":"index.d.ts"}\n',
      'node_modules/widget-types/index.d.ts': 'export interface WidgetSpec { replicas?: number }\n',
    });
    const { analyzer, calls } = countingAnalyzer();
    await runManifests({ projectDir: dir }, analyzer);
    assert.match(readFileSync(join(dir, CRD), 'utf8'), /replicas:/);
    await runManifests({ projectDir: dir }, analyzer);
    assert.equal(calls(), 1, 'nothing changed: answered from the cache');

    // "npm install widget-types@2": a new field in the package's declarations.
    writeFileSync(
      join(dir, 'node_modules/widget-types/package.json'),
      '{"name":"widget-types","version":"2.0.0","types":"index.d.ts"}\n',
    );
    writeFileSync(
      join(dir, 'node_modules/widget-types/index.d.ts'),
      'export interface WidgetSpec { replicas?: number; paused?: boolean }\n',
    );
    await runManifests({ projectDir: dir }, analyzer);
    assert.equal(calls(), 2, 'the upgraded package did not invalidate the cache');
    assert.match(readFileSync(join(dir, CRD), 'utf8'), /paused:/);
  });
  it('a barrel outside the sources, read only to choose which files use markers, invalidates the cache when it changes', async () => {
    const dir = project({
      ...base,
      'src/api/v1/widget_types.ts': types('{ size?: number }'),
      // Not imported by any file that uses markers, and outside the tsconfig's include.
      'lib/markers.ts':
        'export function Rbac(_rule: unknown): (v: unknown, c: unknown) => void { return () => undefined; }\n',
      'src/controllers/widget.ts':
        "import { Rbac } from '../../lib/markers.js';\n@Rbac({ groups: ['demo.example.com'], resources: ['widgets'], verbs: ['get'] })\nexport class WidgetReconciler {}\n",
    });
    const { analyzer, calls } = countingAnalyzer();
    await runManifests({ projectDir: dir }, analyzer);
    assert.doesNotMatch(
      readFileSync(join(dir, 'config/rbac/role.yaml'), 'utf8'),
      /widgets/,
      "the project's own Rbac decorator is not a marker",
    );
    writeFileSync(join(dir, 'lib/markers.ts'), "export * from 'kubeforge/markers';\n");
    await runManifests({ projectDir: dir }, analyzer);
    assert.equal(calls(), 2, 'the cache answered although the barrel changed');
    assert.match(readFileSync(join(dir, 'config/rbac/role.yaml'), 'utf8'), /- widgets\n/);
  });
});
