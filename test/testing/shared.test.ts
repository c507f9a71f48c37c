// One control plane for a test run: a driver's startSharedTestEnvironment() publishes its
// kubeconfig, test processes' TestEnvironments join it (CRDs installed again, idempotently) and
// leave it running on stop(); a file run without the driver starts its own.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  SHARED_KUBECONFIG_ENV,
  TestEnvironment,
  runningControlPlanePids,
  startSharedTestEnvironment,
  stopSharedTestEnvironment,
} from '../../src/testing/index.js';
import { RestClient } from '../../src/runtime/client/rest.js';

const root = process.env.KUBEFORGE_REPO_ROOT ?? resolve(fileURLToPath(import.meta.url), '../../../..');
const crdDir = join(root, 'test/fixtures/testing/crds');

describe('a control plane shared by the test files of a run', () => {
  let shared: TestEnvironment;

  before(async () => {
    assert.equal(process.env[SHARED_KUBECONFIG_ENV], undefined, 'no shared plane published before the test');
    shared = await startSharedTestEnvironment({ crdDirectoryPaths: [crdDir] });
  });

  after(async () => {
    await stopSharedTestEnvironment(shared);
  });

  it('publishes the kubeconfig of the plane it started', () => {
    assert.equal(process.env[SHARED_KUBECONFIG_ENV], shared.kubeconfigPath);
    assert.ok(shared.pids.apiserver, 'the driver runs a kube-apiserver');
    assert.equal(shared.joinedSharedControlPlane, false);
  });

  it('a TestEnvironment joins it: no new process, CRDs installed again, the plane left running on stop()', async () => {
    const before = runningControlPlanePids().sort();
    const env = new TestEnvironment({ crdDirectoryPaths: [crdDir], errorIfCRDPathMissing: true });
    const kc = await env.start();
    try {
      assert.deepEqual(runningControlPlanePids().sort(), before, 'joining started no etcd or kube-apiserver');
      assert.equal(env.joinedSharedControlPlane, true);
      assert.equal(env.serverURL, shared.serverURL);
      assert.deepEqual(env.pids, { etcd: undefined, apiserver: undefined });
      assert.ok(env.crds.length > 0, 'the CRDs were installed (again) without a conflict');
    } finally {
      await env.stop();
    }
    // Stopping the joined environment left the shared server serving.
    const rest = new RestClient(shared.config);
    try {
      const ns = await rest.request('GET', '/api/v1/namespaces/default');
      assert.equal(ns.metadata.name, 'default');
      assert.equal(typeof kc.getCurrentCluster()?.server, 'string');
    } finally {
      rest.close();
    }
  });

  it('a second file joins after the first has stopped, as `npm test` runs them one after the other', async () => {
    const env = new TestEnvironment({ crdDirectoryPaths: [crdDir] });
    await env.start();
    assert.equal(env.joinedSharedControlPlane, true);
    await env.stop();
  });

  it('an environment that needs a private plane (users, apiServerFlags) or opts out starts its own', () => {
    assert.equal(new TestEnvironment({ users: [{ name: 'alice' }] }).sharedKubeconfig, undefined);
    assert.equal(new TestEnvironment({ apiServerFlags: ['--v=1'] }).sharedKubeconfig, undefined);
    assert.equal(new TestEnvironment({ joinSharedControlPlane: false }).sharedKubeconfig, undefined);
    assert.equal(new TestEnvironment({}).sharedKubeconfig, shared.kubeconfigPath);
  });

  it('a child process (a test file under the driver) joins through the environment variable', () => {
    const script = `
      import { TestEnvironment } from ${JSON.stringify(join(root, 'build/src/testing/index.js'))};
      const env = new TestEnvironment();
      await env.start();
      console.log(JSON.stringify({ joined: env.joinedSharedControlPlane, server: env.serverURL, pids: env.pids }));
      await env.stop();`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      env: process.env,
    });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { joined: true, server: shared.serverURL, pids: {} });
  });
});

describe('without a driver', () => {
  it('stopSharedTestEnvironment unpublished the variable, so a file run alone starts its own plane', () => {
    assert.equal(process.env[SHARED_KUBECONFIG_ENV], undefined);
    assert.equal(new TestEnvironment().sharedKubeconfig, undefined);
  });
});
