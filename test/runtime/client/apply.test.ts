// Typed server-side apply on a real kube-apiserver: two field managers applying parts of one
// Deployment (its containers are a list that is a map by name: each manager's items merge by key),
// conflicts and force, a field a manager stops applying removed, the status subresource, and the
// extraction of what one manager owns.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeConfig, V1Deployment } from '@kubernetes/client-node';
import type { TestEnvironment } from '../../../src/testing/index.js';
import {
  extractApplyConfiguration,
  isConflict,
  newClient,
  type StatusError,
} from '../../../src/runtime/client/index.js';
import type { ApplyConfiguration, Client } from '../../../src/runtime/contracts.js';
import { startEnv, widget, type Widget } from '../controller/harness.js';

let env: TestEnvironment;
let config: KubeConfig;
let alice: Client;
let bob: Client;
const namespace = 'apply';

before(async () => {
  ({ env, config } = await startEnv());
  alice = newClient(config, { fieldOwner: 'alice' });
  bob = newClient(config, { fieldOwner: 'bob' });
  await alice.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
});
after(async () => {
  await env?.stop();
});

/** A Deployment apply configuration with one container. */
function deployment(
  container: { name: string; image: string },
  extra: Partial<NonNullable<V1Deployment['spec']>> = {},
): ApplyConfiguration<V1Deployment> {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace },
    spec: {
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [container] } },
      ...extra,
    },
  };
}

const images = (d: V1Deployment) =>
  Object.fromEntries((d.spec?.template.spec?.containers ?? []).map((c) => [c.name, c.image]));

describe('typed server-side apply (real API server)', () => {
  it("two managers' containers merge by name; a conflict needs force; extraction gives each its own", async () => {
    const a = await alice.apply(deployment({ name: 'app', image: 'app:1' }, { replicas: 2 }));
    assert.deepEqual(images(a), { app: 'app:1' });
    assert.equal(a.spec?.replicas, 2);
    const b = await bob.apply(deployment({ name: 'sidecar', image: 'proxy:1' }));
    assert.deepEqual(images(b), { app: 'app:1', sidecar: 'proxy:1' }, 'the list-map items merge by key');

    // bob sets alice's container image: a conflict naming the field, then force takes it.
    await assert.rejects(bob.apply(deployment({ name: 'app', image: 'app:evil' })), (e: unknown) => {
      assert.ok(isConflict(e), String(e));
      assert.match((e as StatusError).message, /conflict with "alice"/);
      return true;
    });
    const forced = await bob.apply(deployment({ name: 'sidecar', image: 'proxy:1' }), { force: true });
    assert.deepEqual(images(forced), { app: 'app:1', sidecar: 'proxy:1' });

    // What alice owns: her container and replicas, not bob's sidecar.
    const mine = extractApplyConfiguration(forced, 'alice');
    assert.ok(mine);
    assert.equal(mine.metadata.name, 'web');
    assert.equal(mine.spec?.replicas, 2);
    assert.deepEqual(
      mine.spec?.template?.spec?.containers?.map((c) => c?.name),
      ['app'],
    );
    assert.equal(extractApplyConfiguration(forced, 'nobody'), undefined);

    // alice changes her extracted configuration and applies it back: bob's container stays.
    mine.spec.replicas = 3;
    const again = await alice.apply(mine);
    assert.equal(again.spec?.replicas, 3);
    assert.deepEqual(images(again), { app: 'app:1', sidecar: 'proxy:1' });

    // alice stops applying replicas: the field she owned alone goes (back to its default).
    const dropped = await alice.apply(deployment({ name: 'app', image: 'app:1' }));
    assert.equal(dropped.spec?.replicas, 1);
  });

  it('applies the status subresource with its own field owner, and needs a field manager', async () => {
    await alice.create(widget(namespace, 'w', { replicas: 1 }));
    const applied = await alice.status().apply<Widget>({
      apiVersion: 'test.kubeforge.io/v1',
      kind: 'Widget',
      metadata: { name: 'w', namespace },
      status: { observedGeneration: 1 },
    });
    assert.equal(applied.status?.observedGeneration, 1);
    assert.equal(extractApplyConfiguration(applied, 'alice', 'status')?.status?.observedGeneration, 1);
    await assert.rejects(
      newClient(config).apply(deployment({ name: 'x', image: 'x' })),
      /server-side apply needs a field manager/,
    );
  });
});
