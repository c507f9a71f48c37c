// Every built-in Kind of kubeforge's table is served by the fake API server where kube-apiserver
// serves it: the same group in discovery, and a list of its resource answers with the same code
// on both. ClusterRoles (and the flowcontrol Kinds) were served under `rbac.k8s.io` (and
// `flowcontrol.k8s.io`), so a reconciler creating a ClusterRole got 404 from the fake alone.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BUILTIN_KINDS, CORE_GROUPS } from '../../src/apiserver/builtin-kinds.js';
import { StatusError } from '../../src/runtime/client/errors.js';
import { RestClient } from '../../src/runtime/client/rest.js';
import { FakeAPIServer, TestEnvironment } from '../../src/testing/index.js';

async function code(rest: RestClient, path: string): Promise<number> {
  try {
    await rest.get(path);
    return 200;
  } catch (e) {
    if (e instanceof StatusError) return e.code;
    throw e;
  }
}

describe('fake API server: the built-in Kinds where kube-apiserver serves them', { timeout: 120_000 }, () => {
  let env: TestEnvironment;
  let fake: FakeAPIServer;
  let real: RestClient;
  let faked: RestClient;

  before(async () => {
    env = new TestEnvironment({ joinSharedControlPlane: false });
    real = new RestClient(await env.start());
    fake = await FakeAPIServer.start();
    faked = new RestClient(fake.config);
  });

  after(async () => {
    real?.close();
    faked?.close();
    await fake?.stop();
    await env?.stop();
  });

  it('serves each Kind under the group the server has, and its list answers with the same code', async () => {
    const realGroups = new Set<string>(
      ((await real.get('/apis')).groups as { name: string }[]).map((g) => g.name).concat(''),
    );
    const differ: string[] = [];
    for (const k of BUILTIN_KINDS) {
      const group = CORE_GROUPS[k.group];
      assert.ok(group !== undefined, `${k.group}: a Kubernetes group of the table`);
      if (!realGroups.has(group)) continue; // a version this server no longer serves
      const base = group === '' ? `/api/${k.version}` : `/apis/${group}/${k.version}`;
      const [onReal, onFake] = [await code(real, `${base}/${k.plural}`), await code(faked, `${base}/${k.plural}`)];
      if (onReal !== onFake) differ.push(`${k.kind} ${base}/${k.plural}: server ${onReal}, fake ${onFake}`);
    }
    assert.deepEqual(differ, []);
    // The two named by the issue, read through discovery as a RESTMapper does.
    for (const [path, kind] of [
      ['/apis/rbac.authorization.k8s.io/v1', 'ClusterRole'],
      ['/apis/flowcontrol.apiserver.k8s.io/v1', 'FlowSchema'],
    ]) {
      const list = await faked.get(path);
      assert.ok(
        (list.resources as { kind: string }[]).some((r) => r.kind === kind),
        `${kind} in the fake's discovery of ${path}`,
      );
    }
  });

  it('answers aggregated discovery with its Content-Type, as the server does (kubectl reads it by that)', async () => {
    const accept = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json';
    for (const path of ['/api', '/apis']) {
      const types: string[] = [];
      for (const rest of [real, faked]) {
        const { res, req } = await rest.stream(path, { accept });
        types.push(String(res.headers['content-type']));
        req.destroy();
      }
      assert.equal(types[1], types[0], `${path}: the fake's Content-Type`);
      assert.match(types[0], /as=APIGroupDiscoveryList/);
    }
  });

  it('creates a ClusterRole through its real path', async () => {
    const body = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'reader' },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }],
    };
    const made = await faked.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', { body });
    assert.equal(made.metadata.name, 'reader');
    assert.equal(made.apiVersion, 'rbac.authorization.k8s.io/v1');
  });
});
