// client.subResource(name) (controller-runtime 0.25's SubResourceClient) on a real kube-apiserver:
// a Deployment's scale read, updated, patched and applied server-side (the answers are Scale
// objects, the Deployment follows, the apply's field manager is recorded on the scale
// subresource), a Pod evicted through `eviction`, and names that are not subresource names
// refused before anything is sent. And the same scale writes by the client, server-side apply
// among them (conflicts, force, a dry run), on kubeforge/testing's fake API server and on the real
// one: the answers and field owners must be equal (controller-runtime 0.25's fake client applies to
// /scale too; kube-apiserver 1.37.2 is the judge of what that does).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeConfig, KubernetesObject, V1Deployment } from '@kubernetes/client-node';
import { newFakeClient, type TestEnvironment } from '../../../src/testing/index.js';
import { mergePatch, newClient } from '../../../src/runtime/client/index.js';
import { StatusError } from '../../../src/runtime/client/errors.js';
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

/**
 * The scale writes of a scaler, an autoscaler and another manager on one Deployment, through the
 * client; each step's answer (a Scale without uid, times and resourceVersion numbers) or error
 * (code, reason, message), and who owns which fields at the end.
 */
async function scaleTranscript(c: Client, ns: string): Promise<unknown[]> {
  const steps: unknown[] = [];
  const rvs = new Map<string, string>();
  const clean = (o: KubernetesObject | undefined) => {
    if (!o) return o;
    const m = o.metadata ?? {};
    const rv = m.resourceVersion ?? '';
    if (!rvs.has(rv)) rvs.set(rv, `rv${rvs.size + 1}`);
    return {
      ...o,
      metadata: { ...m, uid: m.uid ? '<uid>' : undefined, creationTimestamp: undefined, resourceVersion: rvs.get(rv) },
    };
  };
  const step = async (label: string, f: () => Promise<KubernetesObject>) => {
    try {
      steps.push({ label, ok: clean(await f()) });
    } catch (e) {
      if (!(e instanceof StatusError)) throw e;
      steps.push({ label, code: e.code, reason: e.reason, message: e.message });
    }
  };
  const ref = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: ns } };
  const scaleOf = (replicas: number) =>
    ({
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      metadata: { name: 'web', namespace: ns },
      spec: { replicas },
    }) as never;
  await c.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  await c.apply(
    {
      ...ref,
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } },
      },
    } as never,
    { fieldOwner: 'owner' },
  );
  const scale = c.subResource('scale');
  await step('get', () => scale.get(ref));
  await step("apply: the replicas are owner's", () => scale.apply(ref, scaleOf(2), { fieldOwner: 'autoscaler' }));
  await step('apply, forced', () => scale.apply(ref, scaleOf(2), { fieldOwner: 'autoscaler', force: true }));
  await step('apply, dry run', () => scale.apply(ref, scaleOf(7), { fieldOwner: 'autoscaler', dryRun: true }));
  await step('apply by another manager', () => scale.apply(ref, scaleOf(3), { fieldOwner: 'other' }));
  await step('merge patch', () => scale.patch(ref, mergePatch({ spec: { replicas: 4 } })));
  await step('apply again, forced', () => scale.apply(ref, scaleOf(5), { fieldOwner: 'autoscaler', force: true }));
  const live = await c.get<V1Deployment>({ apiVersion: 'apps/v1', kind: 'Deployment' }, { namespace: ns, name: 'web' });
  steps.push({
    label: 'owners',
    replicas: live.spec?.replicas,
    owners: (live.metadata?.managedFields ?? [])
      .map((m) => ({ manager: m.manager, operation: m.operation, subresource: m.subresource, fieldsV1: m.fieldsV1 }))
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
  });
  return steps;
}

describe("client.subResource('scale') on the fake API server answers as on kube-apiserver", () => {
  it('get, apply (a conflict, force, a dry run), a merge patch: the same answers and field owners', async () => {
    const fake = await newFakeClient({ fieldOwner: 'scaler' });
    try {
      const onFake = await scaleTranscript(fake, 'scale-compare');
      const onReal = await scaleTranscript(client, 'scale-compare');
      assert.deepEqual(onFake, onReal);
      // What the comparison covers: a conflict and four writes that went through.
      assert.equal(onReal.filter((x) => (x as { code?: number }).code === 409).length, 2, JSON.stringify(onReal));
    } finally {
      await fake.close();
    }
  });
});
