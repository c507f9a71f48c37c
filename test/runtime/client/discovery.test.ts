// What setupWithManager can ask the cluster: the manager's config and a discovery client (server
// version, groups, resources), against a real API server with the Widget CRD installed.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Manager, newManager } from '../../../src/runtime/manager/index.js';
import { isNoKindMatch, newClient } from '../../../src/runtime/client/index.js';
import type { TestEnvironment } from '../../../src/testing/index.js';
import { startEnv, testLogger } from '../controller/harness.js';

describe('discovery client', () => {
  let env: TestEnvironment;
  let mgr: Manager;
  before(async () => {
    const started = await startEnv();
    env = started.env;
    mgr = newManager(started.config, { logger: testLogger() });
  });
  after(async () => {
    await env?.stop();
  });

  it('what setupWithManager receives has the config and a discovery client', async () => {
    assert.match(mgr.getConfig().getCurrentCluster()?.server ?? '', /^https:\/\/127\.0\.0\.1:\d+$/);
    const d = mgr.getDiscoveryClient();
    const version = await d.serverVersion();
    const binary = spawnSync(join(process.env.KUBEBUILDER_ASSETS ?? '', 'kube-apiserver'), ['--version'], {
      encoding: 'utf8',
    }).stdout.trim();
    assert.equal(`Kubernetes ${version.gitVersion}`, binary);
    assert.equal(version.major, '1');

    const groups = await d.serverGroups();
    assert.deepEqual(groups[0], { name: '', versions: ['v1'], preferredVersion: 'v1' });
    assert.ok(groups.some((g) => g.name === 'apps' && g.versions.includes('v1')));
    assert.ok(
      groups.some((g) => g.name === 'test.kubeforge.io' && g.preferredVersion === 'v1'),
      JSON.stringify(groups.map((g) => g.name)),
    );

    const apps = await d.serverResourcesForGroupVersion('apps/v1');
    assert.ok(apps.some((r) => r.name === 'deployments' && r.kind === 'Deployment' && r.namespaced));
    assert.equal(await d.serves('test.kubeforge.io/v1', 'Widget'), true);
    assert.equal(await d.serves('v1', 'ConfigMap'), true);
    assert.equal(await d.serves('apps/v1', 'Widget'), false);
    assert.equal(await d.serves('nope.example.com/v1'), false);
    await assert.rejects(
      d.serverResourcesForGroupVersion('nope.example.com/v1'),
      (e: unknown) => (e as { code?: number }).code === 404,
    );
  });

  it("an object whose apiVersion does not serve its Kind: the error names the group/version that does (the server's discovery)", async () => {
    const client = newClient(mgr.getConfig());
    const deployment = {
      apiVersion: 'v1',
      kind: 'Deployment',
      metadata: { name: 'x', namespace: 'default' },
      spec: {},
    };
    await assert.rejects(
      client.create(deployment),
      (e: unknown) =>
        isNoKindMatch(e) &&
        /no matches for kind "Deployment" in version "v1".*Deployment is served as apps\/v1: set apiVersion to apps\/v1/.test(
          (e as Error).message,
        ),
    );
    const widget = {
      apiVersion: 'test.kubeforge.io/v2',
      kind: 'Widget',
      metadata: { name: 'x', namespace: 'default' },
    };
    await assert.rejects(
      client.create(widget),
      (e: unknown) =>
        isNoKindMatch(e) &&
        /group\/version is not served \(Widget is served as test\.kubeforge\.io\/v1/.test((e as Error).message),
    );
    const nowhere = { apiVersion: 'v1', kind: 'Nowhere', metadata: { name: 'x', namespace: 'default' } };
    await assert.rejects(
      client.create(nowhere),
      (e: unknown) => isNoKindMatch(e) && /is the CRD installed\?/.test((e as Error).message),
    );
  });
});
