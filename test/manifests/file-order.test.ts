// The analysis never depends on file order: a Kind that uses another Kind as a field type gives
// the same manifests whichever of the two files sorts first, and whatever the files are called:
// the referenced Kind's @Resource is a Kind's marker even when the parser reaches that class as a
// field's type before the analysis reaches its file (else KF2002, "misplaced").
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { analyzeProject } from '../../src/analysis/analyze.js';
import { Reporter } from '../../src/diagnostics/index.js';
import { runGenerators } from '../../src/manifests/generators.js';

const made: string[] = [];
after(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

const GV = `import { defineGroupVersion } from 'kubeforge/markers';\nexport const groupVersion = defineGroupVersion({ group: 'order.example.com', version: 'v1' });\n`;

/** Backup (the referencing Kind) holds a Volume (a Kind of its own, with @Resource and @Rbac). */
const backup = (volumeFile: string) => `import type { V1ObjectMeta } from '@kubernetes/client-node';
import { Resource, Root, SubresourceStatus, type float64 } from 'kubeforge/markers';
import { Volume } from './${volumeFile}.js';

@Root()
@Resource({ shortName: ['bk'], scope: 'Namespaced' })
@SubresourceStatus()
export class Backup {
  apiVersion?: string;
  kind?: string;
  metadata?: V1ObjectMeta;
  spec?: { source?: Volume; copies?: float64 };
}
`;
const volume = `import type { V1ObjectMeta } from '@kubernetes/client-node';
import { Maximum, Rbac, Resource, Root, type float64 } from 'kubeforge/markers';

@Root()
@Resource({ path: 'volumes', shortName: ['vol'], scope: 'Cluster' })
@Rbac({ groups: ['order.example.com'], resources: ['volumes'], verbs: ['get'] })
export class Volume {
  apiVersion?: string;
  kind?: string;
  metadata?: V1ObjectMeta;
  spec?: VolumeSpec;
}

export class VolumeSpec {
  @Maximum(10)
  size?: float64;
}
`;

/** Every managed file and every diagnostic (paths relative to the project) of one layout. */
async function manifestsOf(
  backupFile: string,
  volumeFile: string,
): Promise<{ files: Record<string, string>; diagnostics: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'kf-order-'));
  made.push(dir);
  const files = {
    'src/api/v1/groupversion.ts': GV,
    [`src/api/v1/${backupFile}.ts`]: backup(volumeFile),
    [`src/api/v1/${volumeFile}.ts`]: volume,
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const reporter = new Reporter();
  const analysis = await analyzeProject({ projectDir: dir, generatorVersion: 'v0' }, reporter);
  const outputs = await runGenerators(analysis, reporter);
  return {
    files: Object.fromEntries(outputs.map((o) => [o.path, o.content])),
    diagnostics: reporter.diagnostics().map((d) => `${d.code} ${d.message}`),
  };
}

describe('analysis: file order', () => {
  it('gives identical manifests whichever file sorts first, under any names', async () => {
    const layouts: [string, string][] = [
      ['a_types', 'z_types'], // the referencing Kind first
      ['z_types', 'a_types'], // the referenced Kind first
      ['backup_types', 'volume_types'],
      ['volume', 'backup'],
    ];
    const results = [];
    for (const [b, v] of layouts) results.push(await manifestsOf(b, v));
    assert.deepEqual(results[0].diagnostics, []);
    assert.deepEqual(Object.keys(results[0].files), [
      'config/crd/bases/order.example.com_backups.yaml',
      'config/crd/bases/order.example.com_volumes.yaml',
      'config/rbac/role.yaml',
    ]);
    assert.match(results[0].files['config/crd/bases/order.example.com_volumes.yaml'], /scope: Cluster/);
    for (let i = 1; i < results.length; i++)
      assert.deepEqual(
        results[i],
        results[0],
        `layout ${layouts[i].join(' + ')} differs from ${layouts[0].join(' + ')}`,
      );
  });
});
