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
import { must } from '../../helpers/must.js';

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
    assert.equal(
      await createOrUpdate(client, w, () => {
        w.spec = { size: 1 };
      }),
      'created',
    );
    assert.ok(must(w.metadata, 'w.metadata').uid, 'obj holds the created object');
    const again = widget('cou');
    assert.equal(
      await createOrUpdate(client, again, () => {
        again.spec = { size: 1 };
      }),
      'unchanged',
    );
    assert.equal(
      await createOrUpdate(client, again, () => {
        must(again.spec, 'again.spec').size = 2;
      }),
      'updated',
    );
    const live = await client.get<Widget>(
      { apiVersion: 'test.kubeforge.io/v1', kind: 'Widget' },
      { namespace: 'default', name: 'cou' },
    );
    assert.equal(must(live.spec, 'live.spec').size, 2);
    await assert.rejects(
      createOrUpdate(client, again, () => {
        must(again.metadata, 'again.metadata').name = 'renamed';
      }),
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
    assert.equal(
      await createOrPatch(client, w2, () => {
        w2.spec = { size: 1 };
      }),
      'unchanged',
    );
    assert.equal(
      await createOrPatch(client, w2, () => {
        must(w2.spec, 'w2.spec').size = 5;
      }),
      'updated',
    );
    assert.equal(
      await createOrPatch(client, w2, () => {
        const status = must(w2.status, 'w2.status');
        status.conditions ??= [];
        setStatusCondition(status.conditions, { type: 'Ready', status: 'True', reason: 'Done' });
      }),
      'updatedStatusOnly',
    );
    assert.equal(
      await createOrPatch(client, w2, () => {
        must(w2.spec, 'w2.spec').size = 6;
        must(w2.status, 'w2.status').observed = 2;
      }),
      'updatedStatus',
    );
    const live = await client.get<Widget>(
      { apiVersion: 'test.kubeforge.io/v1', kind: 'Widget' },
      { namespace: 'default', name: 'cop' },
    );
    assert.equal(must(live.spec, 'live.spec').size, 6);
    assert.equal(must(live.status, 'live.status').observed, 2);
    assert.equal(must(must(live.status, 'live.status').conditions, 'live.status.conditions')[0].type, 'Ready');
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
    assert.equal(
      must(must(cm.metadata, 'cm.metadata').ownerReferences, 'cm.metadata.ownerReferences')[0].uid,
      must(owner.metadata, 'owner.metadata').uid,
    );
    assert.equal(
      must(must(cm.metadata, 'cm.metadata').ownerReferences, 'cm.metadata.ownerReferences')[0].controller,
      true,
    );
  });
});
