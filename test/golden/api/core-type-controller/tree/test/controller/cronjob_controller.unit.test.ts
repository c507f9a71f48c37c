/*
Copyright The Guestbook Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

/**
 * Unit tests of the CronJob controller on kubeforge/testing's FakeAPIServer: the Kubernetes API
 * served from memory over HTTP on 127.0.0.1 by this test process, with the CRDs of
 * config/crd/bases (`npm run manifests` writes them). It needs no etcd or kube-apiserver:
 * `npm run test:unit` runs these tests alone, in seconds, and `npm test` runs them before
 * cronjob_controller.test.ts (the same assertions against a real API server).
 *
 * Like the API server, the fake keeps resourceVersion, generation, finalizers and deletion, the
 * status subresource, selectors, patches and server-side apply, and watches, and applies the
 * CRDs' schemas (pruning, defaults, validation, CEL rules): the client, and a whole manager with
 * its watches, run on it unchanged. It does not run admission or conversion webhooks, garbage
 * collection (an owned object stays when its owner goes), or most of the validation of built-in
 * Kinds beyond their metadata and field types (it applies their defaults and a few of their
 * rules, a Deployment's selector and containers among them, as the server does): test what
 * depends on those against the real API server.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { EventsV1Event } from '@kubernetes/client-node';
import { type Client, findStatusCondition, newLogger, newManager, type ReconcileContext } from 'kubeforge/runtime';
import { eventually, FakeAPIServer } from 'kubeforge/testing';
import { CronJob } from '../../src/api/v1/cronjob_types.js';
import { CronJobReconciler } from '../../src/controller/cronjob_controller.js';

describe('CronJob controller on the fake API server', () => {
  const crdDirectoryPaths = ['config/crd/bases'];
  const namespace = 'default';
  const resourceName = 'test-resource';
  const request = { namespace, name: resourceName }; // TODO(user): modify as needed
  let fake: FakeAPIServer;
  let client: Client;
  let reconciler: CronJobReconciler;
  let context: () => ReconcileContext;

  before(async () => {
    // A server of this file's own: no other test file's objects, no namespace to share.
    fake = await FakeAPIServer.start({ crdDirectoryPaths });
    client = fake.client();
    const mgr = newManager(fake.config);
    reconciler = new CronJobReconciler(client, mgr.getEventRecorder('cronjob-controller'));
    const logger = mgr.getLogger();
    context = () => ({ signal: AbortSignal.timeout(30_000), logger, reconcileID: randomUUID() });
  });

  after(async () => {
    await fake.stop();
  });

  /** A CronJob as a user would create it. */
  function sample(name: string): CronJob {
    return {
      apiVersion: 'batch.example.com/v1',
      kind: 'CronJob',
      metadata: { name, namespace },
      // TODO(user): specify other spec details if needed.
      spec: { foo: 'bar' },
    };
  }

  it('reconciles a created CronJob', async () => {
    const created = await client.create(sample(resourceName));
    assert.ok(created.metadata?.uid, 'the fake API server stored the CronJob');

    const result = await reconciler.reconcile(request, context());
    assert.deepEqual(result, {});
    // TODO(user): add assertions on what your reconcile changes.
    const cronJob = await client.get(CronJob, request);
    const available = findStatusCondition(cronJob.status?.conditions, 'Available');
    assert.equal(available?.status, 'True');
    assert.equal(available?.observedGeneration, cronJob.metadata?.generation);

    await client.delete(created);
  });

  it('runs in a manager: a created or changed CronJob is reconciled and reported in an event', async () => {
    // The controller runs in a manager whose watches (and, with `.owns()`, those of the owned
    // objects) trigger reconciles, as on a real API server. Errors only in the test output;
    // `level: 'debug'` follows every reconcile.
    const mgr = newManager(fake.config, { logger: newLogger({ development: true, level: 'error' }) });
    new CronJobReconciler(mgr.getClient(), mgr.getEventRecorder('cronjob-controller')).setupWithManager(mgr);
    const stop = new AbortController();
    const running = mgr.start(stop.signal);
    try {
      const key = { namespace, name: `${resourceName}-managed` };
      const cronJob = await client.create(sample(key.name));
      // The fake answers at once: poll often, give up sooner than on a real API server.
      const observed = (generation: number | undefined) =>
        eventually(
          async () => {
            const got = await client.get(CronJob, key);
            assert.equal(findStatusCondition(got.status?.conditions, 'Available')?.observedGeneration, generation);
          },
          { timeout: 10_000, interval: 10, message: `the CronJob is reconciled at generation ${generation}` },
        );
      await observed(cronJob.metadata?.generation);

      // A change of the spec is a new generation: the watch reconciles it too. (Read the latest
      // version first: the controller has written the status since the create.)
      const latest = await client.get(CronJob, key);
      latest.spec = { ...latest.spec, foo: 'baz' };
      await client.update(latest);
      await observed(latest.metadata?.generation);

      // The reconciler reported both in events.k8s.io Events about the CronJob.
      await eventually(
        async () => {
          // A descriptor rather than client-node's class: this tier then never loads @kubernetes/client-node.
          const events = await client.list<EventsV1Event>({ apiVersion: 'events.k8s.io/v1', kind: 'Event' }, { namespace });
          const notes = events.items.filter((e) => e.regarding?.uid === cronJob.metadata?.uid && e.reason === 'Reconciled').map((e) => e.note);
          assert.deepEqual(notes.sort(), ['generation 1 reconciled', 'generation 2 reconciled']);
        },
        { timeout: 10_000, interval: 10, message: 'the reconciler records an event per generation' },
      );
      await client.delete(cronJob);
    } finally {
      stop.abort();
      await running;
    }
  });

  it('ignores a CronJob that no longer exists', async () => {
    const result = await reconciler.reconcile({ ...request, name: 'does-not-exist' }, context());
    assert.deepEqual(result, {});
  });
});
