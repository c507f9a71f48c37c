import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  CRDInstallError,
  TestEnvironment,
  TestEnvironmentError,
  parseCRDFile,
  readCRDFiles,
  runningControlPlanePids,
} from '../../src/testing/index.js';
import { RestClient } from '../../src/runtime/client/rest.js';
import { StatusError } from '../../src/runtime/client/errors.js';
import { must } from '../helpers/must.js';

const root = process.env.KUBEFORGE_REPO_ROOT ?? resolve(fileURLToPath(import.meta.url), '../../../..');
const fixtures = join(root, 'test/fixtures/testing');

/** Running (a zombie counts as gone: PID 1 here may not reap orphans). */
function alive(pid: number | undefined): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** Waits up to 5 s for the pid to be gone (a SIGKILL is delivered asynchronously). */
async function gone(pid: number | undefined): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

const gizmoCRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gizmos.test.kubeforge.io' },
  spec: {
    group: 'test.kubeforge.io',
    names: { kind: 'Gizmo', plural: 'gizmos', singular: 'gizmo', listKind: 'GizmoList' },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    ],
  },
};

describe('CRD files', () => {
  it('reads every CRD of a folder (multi-document, other kinds and extensions skipped)', () => {
    const crds = readCRDFiles([join(fixtures, 'crds')]);
    assert.deepEqual(
      crds.map((c) => c.metadata.name),
      ['widgets.test.kubeforge.io', 'gadgets.test.kubeforge.io'],
    );
  });

  it('reports a YAML syntax error with file and line', () => {
    const file = join(fixtures, 'bad', 'broken.yaml');
    assert.throws(
      () => readCRDFiles([file]),
      (e: unknown) =>
        e instanceof CRDInstallError && e.file === file && (e.line ?? 0) >= 5 && /YAML syntax error/.test(e.message),
    );
  });

  it('rejects a CRD without spec.group, located', () => {
    const text =
      'kind: ConfigMap\n---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: x\nspec:\n  names: {plural: xs}\n';
    assert.throws(
      () => parseCRDFile('mem.yaml', text),
      (e: unknown) => e instanceof CRDInstallError && e.line === 3 && /no spec\.group/.test(e.message),
    );
  });

  it('skips a missing path by default and fails on it with errorIfPathMissing', () => {
    assert.deepEqual(readCRDFiles([join(fixtures, 'nope')]), []);
    assert.throws(() => readCRDFiles([join(fixtures, 'nope')], true), /CRD path does not exist/);
  });
});

describe('TestEnvironment setup errors', () => {
  it('says to run setup-envtest when KUBEBUILDER_ASSETS is unset', async () => {
    const saved = process.env.KUBEBUILDER_ASSETS;
    delete process.env.KUBEBUILDER_ASSETS;
    try {
      const env = new TestEnvironment({ useExistingCluster: false });
      await assert.rejects(
        env.start(),
        (e: unknown) =>
          e instanceof TestEnvironmentError &&
          /KUBEBUILDER_ASSETS is not set/.test(e.message) &&
          /npx kubeforge setup-envtest.*`make test`/.test(e.message),
      );
    } finally {
      process.env.KUBEBUILDER_ASSETS = saved;
    }
  });

  it('names the missing binary when the assets folder lacks it', async () => {
    const env = new TestEnvironment({ binaryAssetsDirectory: fixtures, useExistingCluster: false });
    await assert.rejects(
      env.start(),
      (e: unknown) =>
        e instanceof TestEnvironmentError && /etcd not found in/.test(e.message) && /setup-envtest/.test(e.message),
    );
  });

  it('fails start() on a missing CRD path with errorIfCRDPathMissing and leaves nothing running', async () => {
    const env = new TestEnvironment({
      crdDirectoryPaths: [join(fixtures, 'missing')],
      errorIfCRDPathMissing: true,
      useExistingCluster: false,
    });
    await assert.rejects(env.start(), CRDInstallError);
    assert.deepEqual(env.pids, { etcd: undefined, apiserver: undefined });
    assert.deepEqual(runningControlPlanePids(), []);
  });
});

describe('TestEnvironment on a real API server', () => {
  const env = new TestEnvironment({
    crdDirectoryPaths: [join(fixtures, 'crds')],
    users: [{ name: 'jane', groups: ['developers'] }],
    useExistingCluster: false,
  });
  let rest: RestClient;

  before(async () => {
    await env.start();
    rest = new RestClient(env.config);
  });
  after(async () => {
    rest?.close();
    await env.stop();
  });

  it('serves the API with the returned config and writes a kubeconfig file', async () => {
    const version = await rest.get('/version');
    assert.equal(version.gitVersion.startsWith('v1.'), true);
    assert.ok(existsSync(env.kubeconfigPath));
    assert.match(env.serverURL, /^https:\/\/127\.0\.0\.1:\d+$/);
    assert.ok(alive(env.pids.etcd) && alive(env.pids.apiserver));
  });

  it('installed the CRDs, Established, and their resources accept objects', async () => {
    assert.deepEqual(env.crds.map((c) => c.metadata.name).sort(), [
      'gadgets.test.kubeforge.io',
      'widgets.test.kubeforge.io',
    ]);
    const crd = await rest.get('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.test.kubeforge.io');
    assert.ok(
      crd.status.conditions.some(
        (c: { type: string; status: string }) => c.type === 'Established' && c.status === 'True',
      ),
    );
    const created = await rest.request('POST', '/apis/test.kubeforge.io/v1/namespaces/default/widgets', {
      body: {
        apiVersion: 'test.kubeforge.io/v1',
        kind: 'Widget',
        metadata: { name: 'w1' },
        spec: { size: 3, dropped: true },
      },
    });
    assert.equal(created.spec.size, 3);
    assert.equal(created.spec.dropped, undefined, 'unknown fields are pruned by the structural schema');
  });

  it('getClient() reads and writes live with the admin credentials', async () => {
    const client = env.getClient();
    await client.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'via-client', namespace: 'default' },
    });
    const cm = await client.get({ apiVersion: 'v1', kind: 'ConfigMap' }, { namespace: 'default', name: 'via-client' });
    assert.equal(must(cm.metadata, 'cm.metadata').name, 'via-client');
  });

  it('authenticates extra users without privileges (RBAC on)', async () => {
    const jane = new RestClient(env.userConfig('jane'));
    try {
      await assert.rejects(
        jane.get('/api/v1/namespaces'),
        (e: unknown) => e instanceof StatusError && e.code === 403 && /"jane"/.test(e.message),
      );
    } finally {
      jane.close();
    }
    assert.throws(() => env.userConfig('nobody'), /unknown test user/);
  });

  it('useExistingCluster connects through KUBECONFIG, installs CRDs there and stops nothing', async () => {
    const saved = process.env.KUBECONFIG;
    process.env.KUBECONFIG = env.kubeconfigPath;
    const existing = new TestEnvironment({ useExistingCluster: true, crds: [gizmoCRD] });
    try {
      const kc = await existing.start();
      assert.equal(existing.usesExistingCluster, true);
      assert.equal(existing.kubeconfigPath, env.kubeconfigPath);
      assert.equal(must(kc.getCurrentCluster(), 'kc.getCurrentCluster()').server, env.serverURL);
      assert.deepEqual(existing.pids, { etcd: undefined, apiserver: undefined });
      const crd = await rest.get('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gizmos.test.kubeforge.io');
      assert.ok(
        crd.status.conditions.some(
          (c: { type: string; status: string }) => c.type === 'Established' && c.status === 'True',
        ),
      );
    } finally {
      await existing.stop();
      if (saved === undefined) delete process.env.KUBECONFIG;
      else process.env.KUBECONFIG = saved;
    }
    assert.ok(alive(env.pids.apiserver), 'the cluster it used keeps running');
    assert.equal((await rest.get('/version')).major, '1');
  });

  it('restartAPIServer keeps the data, the port and the credentials', async () => {
    const before = env.pids.apiserver;
    await env.restartAPIServer();
    assert.notEqual(env.pids.apiserver, before);
    assert.equal(alive(before), false);
    const fresh = new RestClient(env.config);
    try {
      const w = await fresh.get('/apis/test.kubeforge.io/v1/namespaces/default/widgets/w1');
      assert.equal(w.spec.size, 3);
    } finally {
      fresh.close();
    }
  });
});

describe('TestEnvironment stop', () => {
  it('stops exactly its processes, removes its folder and can be called twice', async () => {
    const env = new TestEnvironment({ useExistingCluster: false });
    const [c1, c2] = await Promise.all([env.start(), env.start()]);
    assert.equal(c1, c2, 'concurrent start() calls share one control plane');
    const { etcd, apiserver } = env.pids;
    const dir = must(env.dataDirectory, 'env.dataDirectory');
    assert.ok(alive(etcd) && alive(apiserver) && existsSync(dir));
    await Promise.all([env.stop(), env.stop()]);
    await env.stop();
    assert.equal(alive(etcd), false);
    assert.equal(alive(apiserver), false);
    assert.equal(existsSync(dir), false);
    assert.throws(() => env.config, TestEnvironmentError);
  });

  it('a test process that exits without stop() leaves no control plane behind', async () => {
    const entry = join(root, 'build/src/testing/index.js');
    const script = `
      const { TestEnvironment } = await import(${JSON.stringify(entry)});
      const env = new TestEnvironment({ useExistingCluster: false });
      await env.start();
      console.log(JSON.stringify({ ...env.pids, dir: env.dataDirectory }));
      process.exit(3);`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 90_000 });
    assert.equal(r.status, 3, r.stderr);
    const info = JSON.parse(must(r.stdout.trim().split('\n').pop(), "r.stdout.trim().split('\\n').pop()"));
    assert.ok(info.etcd && info.apiserver);
    assert.equal(await gone(info.etcd), true, 'etcd was killed by the exit hook');
    assert.equal(await gone(info.apiserver), true, 'kube-apiserver was killed by the exit hook');
    assert.equal(existsSync(info.dir), false);
  });

  it('a test process killed by SIGTERM leaves no control plane behind', async () => {
    const entry = join(root, 'build/src/testing/index.js');
    const script = `
      const { TestEnvironment } = await import(${JSON.stringify(entry)});
      const env = new TestEnvironment({ useExistingCluster: false });
      await env.start();
      console.log(JSON.stringify(env.pids));
      process.kill(process.pid, 'SIGTERM');
      setTimeout(() => {}, 60_000);`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 90_000 });
    assert.equal(r.signal, 'SIGTERM', r.stderr);
    const info = JSON.parse(must(r.stdout.trim().split('\n').pop(), "r.stdout.trim().split('\\n').pop()"));
    assert.equal(await gone(info.etcd), true);
    assert.equal(await gone(info.apiserver), true);
  });
});
