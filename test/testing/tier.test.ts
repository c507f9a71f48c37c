// One test body for both tiers: startTestAPI() gives a test the fake API server in the unit tier
// and the real control plane in the full one, as `kubeforge test` names the tier (KUBEFORGE_TEST_TIER);
// a *.both.test.js file of a project runs in both, and asserts in each against its own server.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startTestAPI, TEST_TIER_ENV, testTier } from '../../src/testing/index.js';

const root = process.env.KUBEFORGE_REPO_ROOT ?? resolve(fileURLToPath(import.meta.url), '../../../..');
const crdDir = join(root, 'test/fixtures/testing/crds');

/** Runs `body` with KUBEFORGE_TEST_TIER set to `value` (unset for undefined), restoring it after. */
async function withTier<T>(value: string | undefined, body: () => Promise<T> | T): Promise<T> {
  const saved = process.env[TEST_TIER_ENV];
  if (value === undefined) delete process.env[TEST_TIER_ENV];
  else process.env[TEST_TIER_ENV] = value;
  try {
    return await body();
  } finally {
    if (saved === undefined) delete process.env[TEST_TIER_ENV];
    else process.env[TEST_TIER_ENV] = saved;
  }
}

describe('startTestAPI', () => {
  it('testTier(): full when unset or empty, the tier named, and a misspelt tier refused', async () => {
    assert.equal(await withTier(undefined, testTier), 'full');
    assert.equal(await withTier('', testTier), 'full');
    assert.equal(await withTier('unit', testTier), 'unit');
    assert.equal(await withTier('full', testTier), 'full');
    await withTier('units', () =>
      assert.throws(testTier, /KUBEFORGE_TEST_TIER="units" names no tier \(unit or full\)/),
    );
  });

  it('in the unit tier: a FakeAPIServer of its own serving the CRDs, no control plane', async () => {
    const api = await withTier('unit', () => startTestAPI({ crdDirectoryPaths: [crdDir] }));
    try {
      assert.equal(api.tier, 'unit');
      assert.ok(api.fake, 'the fake server');
      assert.equal(api.environment, undefined);
      assert.match(api.config.getCurrentCluster()?.server ?? '', /^http:\/\/127\.0\.0\.1:\d+$/);
      const crds = await api.client().list({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' });
      assert.ok(crds.items.length > 0, 'the CRDs of the folder are served');
    } finally {
      await api.stop();
      await api.stop(); // idempotent
    }
  });

  it('unknown options and tiers are refused before anything starts', async () => {
    await assert.rejects(
      startTestAPI({ crdDirectoryPath: [crdDir] } as never),
      /crdDirectoryPath/,
      'a misspelt option is named',
    );
    await assert.rejects(startTestAPI({ tier: 'real' as never }), /tier "real" names no tier/);
  });

  it('in the full tier: a real kube-apiserver (TestEnvironment), stopped by stop()', async () => {
    const api = await startTestAPI({ crdDirectoryPaths: [crdDir], tier: 'full' });
    try {
      assert.equal(api.tier, 'full');
      assert.ok(api.environment?.pids.apiserver, 'a kube-apiserver runs');
      assert.match(api.config.getCurrentCluster()?.server ?? '', /^https:\/\/127\.0\.0\.1:\d+$/);
      await api.client().list({ apiVersion: 'v1', kind: 'Namespace' });
    } finally {
      await api.stop();
    }
  });
});

describe('kubeforge test runs a *.both.test.js file in both tiers', () => {
  it('the unit tier on the fake API server, then the full tier on the shared control plane: one stream, both pass', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kf-both-tiers-'));
    try {
      mkdirSync(join(dir, 'build/test'), { recursive: true });
      writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n');
      const testing = pathToFileURL(join(root, 'dist/testing/index.js')).href;
      const log = join(dir, 'tiers.log');
      writeFileSync(
        join(dir, 'build/test/kind.both.test.js'),
        `import assert from 'node:assert/strict';
import { appendFileSync } from 'node:fs';
import { it } from 'node:test';
import { startTestAPI } from ${JSON.stringify(testing)};
it('serves a namespace on the API server of its tier', async () => {
  const api = await startTestAPI({ crdDirectoryPaths: [${JSON.stringify(crdDir)}] });
  try {
    const name = 'both-' + api.tier;
    await api.client().create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    const got = await api.client().get({ apiVersion: 'v1', kind: 'Namespace' }, { name });
    assert.equal(got.metadata.name, name);
    appendFileSync(${JSON.stringify(log)}, api.tier + ' ' + new URL(api.config.getCurrentCluster().server).protocol + ' ' + (api.environment?.joinedSharedControlPlane ?? '-') + '\\n');
  } finally {
    await api.stop();
  }
});
`,
      );
      const env: NodeJS.ProcessEnv = { ...process.env };
      delete env.NODE_TEST_CONTEXT;
      delete env[TEST_TIER_ENV];
      const r = spawnSync(process.execPath, [join(root, 'bin/kubeforge.js'), 'test'], {
        cwd: dir,
        encoding: 'utf8',
        env,
      });
      assert.equal(r.status, 0, r.stdout + r.stderr);
      assert.deepEqual(readFileSync(log, 'utf8').split('\n').filter(Boolean), ['unit http: -', 'full https: true']);
      assert.equal(r.stdout.match(/^TAP version 13$/gm)?.length, 1, r.stdout);
      assert.deepEqual(
        r.stdout.split('\n').filter((l) => /^(not )?ok \d+/.test(l)),
        [
          'ok 1 - serves a namespace on the API server of its tier',
          'ok 2 - serves a namespace on the API server of its tier',
        ],
      );
      assert.match(r.stdout, /^1\.\.2$/m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
