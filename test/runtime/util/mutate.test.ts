import assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { KubernetesObject } from '@kubernetes/client-node';
import { TestEnvironment } from '../../../src/testing/index.js';
import { newClient } from '../../../src/runtime/client/index.js';
import type { Client } from '../../../src/runtime/contracts.js';
import {
  createOrPatch,
  createOrUpdate,
  setControllerReference,
  setStatusCondition,
  type Condition,
} from '../../../src/runtime/util/index.js';

const root = process.env.KUBEFORGE_REPO_ROOT ?? resolve(fileURLToPath(import.meta.url), '../../../../..');
const env = new TestEnvironment({
  crdDirectoryPaths: [join(root, 'test/fixtures/testing/crds')],
  useExistingCluster: false,
});
let client: Client;

before(async () => {
  client = newClient(await env.start(), { fieldOwner: 'kubeforge-test' });
});
after(() => env.stop());

interface Widget extends KubernetesObject {
  spec?: { size?: number };
  status?: { conditions?: Condition[]; observed?: number };
}
const widget = (name: string): Widget => ({
  apiVersion: 'test.kubeforge.io/v1',
  kind: 'Widget',
  metadata: { name, namespace: 'default' },
});

describe('createOrUpdate', () => {
  it('creates, then updates only when the mutation changes something', async () => {
    const w = widget('cou');
    assert.equal(await createOrUpdate(client, w, () => void (w.spec = { size: 1 })), 'created');
    assert.ok(w.metadata!.uid, 'obj holds the created object');
    const again = widget('cou');
    assert.equal(await createOrUpdate(client, again, () => void (again.spec = { size: 1 })), 'unchanged');
    assert.equal(await createOrUpdate(client, again, () => void (again.spec!.size = 2)), 'updated');
    const live = await client.get<Widget>(
      { apiVersion: 'test.kubeforge.io/v1', kind: 'Widget' },
      { namespace: 'default', name: 'cou' },
    );
    assert.equal(live.spec!.size, 2);
    await assert.rejects(
      createOrUpdate(client, again, () => void (again.metadata!.name = 'renamed')),
      /cannot mutate object name/,
    );
  });
});

describe('createOrPatch', () => {
  it('patches spec and status separately and says which it changed', async () => {
    const w = widget('cop');
    assert.equal(
      await createOrPatch(client, w, () => {
        w.spec = { size: 1 };
        w.status = { observed: 1 };
      }),
      'created',
    );
    assert.equal(w.status?.observed, 1, 'status written after create');
    const w2 = widget('cop');
    assert.equal(await createOrPatch(client, w2, () => void (w2.spec = { size: 1 })), 'unchanged');
    assert.equal(await createOrPatch(client, w2, () => void (w2.spec!.size = 5)), 'updated');
    assert.equal(
      await createOrPatch(client, w2, () => {
        w2.status!.conditions ??= [];
        setStatusCondition(w2.status!.conditions, { type: 'Ready', status: 'True', reason: 'Done' });
      }),
      'updatedStatusOnly',
    );
    assert.equal(
      await createOrPatch(client, w2, () => {
        w2.spec!.size = 6;
        w2.status!.observed = 2;
      }),
      'updatedStatus',
    );
    const live = await client.get<Widget>(
      { apiVersion: 'test.kubeforge.io/v1', kind: 'Widget' },
      { namespace: 'default', name: 'cop' },
    );
    assert.equal(live.spec!.size, 6);
    assert.equal(live.status!.observed, 2);
    assert.equal(live.status!.conditions![0].type, 'Ready');
  });

  it('a controller reference set in the mutation is accepted by the API server', async () => {
    const owner = await client.get<Widget>(
      { apiVersion: 'test.kubeforge.io/v1', kind: 'Widget' },
      { namespace: 'default', name: 'cop' },
    );
    const cm: KubernetesObject & { data?: Record<string, string> } = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'owned', namespace: 'default' },
    };
    assert.equal(
      await createOrPatch(client, cm, () => {
        cm.data = { a: '1' };
        setControllerReference(owner, cm);
      }),
      'created',
    );
    assert.equal(cm.metadata!.ownerReferences![0].uid, owner.metadata!.uid);
    assert.equal(cm.metadata!.ownerReferences![0].controller, true);
  });
});
