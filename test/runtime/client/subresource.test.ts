// client.subResource(name) (controller-runtime 0.25's SubResourceClient) on a real kube-apiserver:
// a Deployment's scale read, updated, patched and applied server-side (the answers are Scale
// objects, the Deployment follows, the apply's field manager is recorded on the scale
// subresource), a Pod evicted through `eviction`, and names that are not subresource names
// refused before anything is sent.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeConfig, KubernetesObject, V1Deployment } from '@kubernetes/client-node';
import type { TestEnvironment } from '../../../src/testing/index.js';
import { mergePatch, newClient } from '../../../src/runtime/client/index.js';
import type { Client } from '../../../src/runtime/contracts.js';
import { startEnv } from '../controller/harness.js';

let env: TestEnvironment;
let config: KubeConfig;
let client: Client;
const namespace = 'subresource';

interface Scale extends KubernetesObject {
  spec?: { replicas?: number };
  status?: { replicas?: number };
}

before(async () => {
  ({ env, config } = await startEnv());
  client = newClient(config, { fieldOwner: 'scaler' });
  await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
});
after(async () => {
  await env?.stop();
});

const deploymentRef = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace } };

describe("client.subResource('scale')", () => {
  it('reads, updates, patches and applies the scale; the Deployment follows', async () => {
    await client.create({
      ...deploymentRef,
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } },
      },
    } as V1Deployment);
    const scale = client.subResource('scale');
    const s1 = await scale.get<Scale>(deploymentRef);
    assert.equal(s1.kind, 'Scale');
    assert.equal(s1.apiVersion, 'autoscaling/v1');
    assert.equal(s1.spec?.replicas, 1);

    const s2 = await scale.update<Scale>(deploymentRef, {
      subResourceBody: {
        apiVersion: 'autoscaling/v1',
        kind: 'Scale',
        metadata: { name: 'web', namespace },
        spec: { replicas: 2 },
      } as Scale,
    });
    assert.equal(s2.spec?.replicas, 2);

    const s3 = await scale.patch<Scale>(deploymentRef, mergePatch({ spec: { replicas: 3 } }));
    assert.equal(s3.spec?.replicas, 3);

    const s4 = await scale.apply<Scale>(
      deploymentRef,
      {
        apiVersion: 'autoscaling/v1',
        kind: 'Scale',
        metadata: { name: 'web', namespace },
        spec: { replicas: 4 },
      } as never,
      { fieldOwner: 'autoscaler', force: true },
    ); // the Updates above were scaler's
    assert.equal(s4.spec?.replicas, 4);

    const live = await client
      .apiReader()
      .get<V1Deployment>({ apiVersion: 'apps/v1', kind: 'Deployment' }, { namespace, name: 'web' });
    assert.equal(live.spec?.replicas, 4);
    const applied = live.metadata?.managedFields?.find((m) => m.manager === 'autoscaler' && m.operation === 'Apply');
    assert.ok(applied, JSON.stringify(live.metadata?.managedFields));
    assert.equal(applied.subresource, 'scale');
  });

  it("evicts a Pod through subResource('eviction').create", async () => {
    // No controller-manager makes the namespace's default ServiceAccount here.
    await client.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace } });
    const pod = await client.create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'evictee', namespace },
      spec: { containers: [{ name: 'c', image: 'busybox' }] },
    } as KubernetesObject);
    await client.subResource('eviction').create(pod, {
      apiVersion: 'policy/v1',
      kind: 'Eviction',
      metadata: { name: 'evictee', namespace },
    } as KubernetesObject);
    const gone = await client
      .apiReader()
      .get({ apiVersion: 'v1', kind: 'Pod' }, { namespace, name: 'evictee' })
      .then((p) => p.metadata?.deletionTimestamp !== undefined)
      .catch(() => true);
    assert.ok(gone, 'the Pod is deleted (or being deleted)');
  });

  it('refuses a name that is not a subresource name, sending nothing', () => {
    for (const bad of ['', 'Scale', 'scale/x', '../status'])
      assert.throws(() => client.subResource(bad), TypeError, bad);
  });
});
