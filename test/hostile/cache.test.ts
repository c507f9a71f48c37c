// Hostile input, family 5: the no-change cache of `kubeforge manifests` never answers "up to
// date" for inputs it did not see. Driven end to end through the real CLI (test/manifests/
// cache-inputs.test.ts holds the same cases at the level of runManifests): an edit saved while a
// run is writing (caught by the commit's temporary files, slowed with the test-only
// KUBEFORGE_TEST_COMMIT_DELAY_MS), a types package in node_modules upgraded in place, and a group
// name kept in a const of a file only groupversion.ts imports (test/manifests/
// cache-random-edits.test.ts edits every file of a fixture at random and compares with --no-cache).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { cleanup, cli, freshFolder, ok, start, whenCommitting } from './helpers.js';

after(cleanup);

const CRD = 'config/crd/bases/demo.example.com_widgets.yaml';
const widget = (fields: string) => `import type { V1ObjectMeta } from '@kubernetes/client-node';
import type { Shape } from '@acme/shapes';
import { Root } from 'kubeforge/markers';

@Root()
export class Widget {
  metadata?: V1ObjectMeta;
  spec?: { shape?: Shape; ${fields} };
}
`;
const shapes = (version: string, fields: string) => ({
  'node_modules/@acme/shapes/package.json': JSON.stringify({ name: '@acme/shapes', version, types: 'index.d.ts' }),
  'node_modules/@acme/shapes/index.d.ts': `export interface Shape { ${fields} }\n`,
});

function write(dir: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}

function project(): string {
  const dir = freshFolder();
  write(dir, {
    'tsconfig.json': JSON.stringify({
      compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true },
      include: ['src/**/*.ts'],
    }),
    'package.json': '{"name":"demo","private":true,"type":"module"}\n',
    'src/api/v1/groupversion.ts':
      "import { defineGroupVersion } from 'kubeforge/markers';\nexport const groupVersion = defineGroupVersion({ group: 'demo.example.com', version: 'v1' });\n",
    'src/api/v1/widget_types.ts': widget('size?: number;'),
    ...shapes('1.0.0', 'sides?: number;'),
  });
  return dir;
}

describe('hostile: the no-change cache of manifests (through the CLI)', () => {
  it('a types package upgraded in node_modules makes the next run regenerate', async () => {
    const dir = project();
    ok(await cli(dir, ['manifests']), 'manifests');
    assert.match(ok(await cli(dir, ['manifests', '--check']), 'manifests --check').out, /manifests are up to date/);
    write(dir, shapes('1.1.0', 'sides?: number; color?: string;'));
    const check = await cli(dir, ['manifests', '--check']);
    assert.equal(check.code, 1, 'the cache answered for an upgraded types package');
    assert.match(check.out, new RegExp(`UPDATE ${CRD}`));
    ok(await cli(dir, ['manifests']), 'manifests after the upgrade');
    assert.match(readFileSync(join(dir, CRD), 'utf8'), /color:/);
  });

  it('a group kept in a const that only groupversion.ts imports: editing it makes --check fail and the CRD move', async () => {
    const dir = project();
    write(dir, {
      'src/api/group.ts': "export const GROUP = 'demo.example.com';\n",
      'src/api/v1/groupversion.ts':
        "import { defineGroupVersion } from 'kubeforge/markers';\nimport { GROUP } from '../group.js';\nexport const groupVersion = defineGroupVersion({ group: GROUP, version: 'v1' });\n",
    });
    ok(await cli(dir, ['manifests']), 'manifests');
    write(dir, { 'src/api/group.ts': "export const GROUP = 'other.example.com';\n" });
    const check = await cli(dir, ['manifests', '--check']);
    assert.equal(check.code, 1, `--check answered for a stale CRD:\n${check.out}${check.err}`);
    ok(await cli(dir, ['manifests']), 'manifests after the edit');
    assert.ok(existsSync(join(dir, 'config/crd/bases/other.example.com_widgets.yaml')));
    assert.ok(!existsSync(join(dir, CRD)), 'the CRD of the old group is removed');
    assert.match(ok(await cli(dir, ['manifests', '--check']), 'manifests --check').out, /manifests are up to date/);
  });

  it('an edit saved while manifests is writing is seen by the next run', async () => {
    const dir = project();
    ok(await cli(dir, ['manifests']), 'manifests');
    write(dir, { 'src/api/v1/widget_types.ts': widget('size?: number; label?: string;') });
    const run = start(dir, ['manifests'], { KUBEFORGE_TEST_COMMIT_DELAY_MS: '200' });
    await whenCommitting(dir, run);
    // The analysis has read the file; the "editor" saves another field while the CRD is written.
    write(dir, { 'src/api/v1/widget_types.ts': widget('size?: number; label?: string; weight?: number;') });
    ok(await run.done, 'the slowed manifests run');
    assert.doesNotMatch(readFileSync(join(dir, CRD), 'utf8'), /weight:/, 'the run generated from what it read');
    const check = await cli(dir, ['manifests', '--check']);
    assert.equal(check.code, 1, 'the cache answered "up to date" for an edit saved during the run');
    ok(await cli(dir, ['manifests']), 'manifests catching up');
    assert.match(readFileSync(join(dir, CRD), 'utf8'), /weight:/);
  });
});
