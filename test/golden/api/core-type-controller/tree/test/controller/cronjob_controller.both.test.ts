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
 * Tests of the CronJob controller, one body for both tiers of `npm test` (kubeforge test runs a
 * *.both.test.js file twice):
 *   - the unit tier (`npm run test:unit`, first): kubeforge/testing's FakeAPIServer, the
 *     Kubernetes API in memory in this test process, no etcd or kube-apiserver, seconds;
 *   - the full tier: a real kube-apiserver and etcd from $KUBEBUILDER_ASSETS, one control plane
 *     shared by every test file of the run.
 * startTestAPI() gives the file the API server of its tier, with the CRDs of config/crd/bases
 * installed (`npm run manifests` writes them). Each run works in a namespace of its own, and its
 * manager caches that namespace only: a manager here never reconciles another test file's objects.
 *
 * The fake keeps resourceVersion, generation, finalizers and deletion, the status subresource,
 * selectors, patches and server-side apply, and watches, and applies the CRDs' schemas; it does
 * not run conversion webhooks or garbage collection (an owned object stays when its owner goes),
 * nor most of the validation of built-in Kinds. Assert what depends on those in the full tier
 * only, and say so: `if (api.tier === 'full') { ... }`.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { EventsV1Event } from '@kubernetes/client-node';
import { type Client, findStatusCondition, newLogger, newManager, type ReconcileContext } from 'kubeforge/runtime';
import { eventually, startTestAPI, type TestAPI } from 'kubeforge/testing';
import { CronJob } from '../../src/api/v1/cronjob_types.js';
import { CronJobReconciler } from '../../src/controller/cronjob_controller.js';

describe('CronJob controller', () => {
  const crds = { crdDirectoryPaths: ['config/crd/bases'], errorIfCRDPathMissing: true };
  const suffix = randomUUID().slice(0, 8);
  const namespace = `test-${suffix}`;
  const resourceName = 'test-resource';
  const request = { namespace, name: resourceName }; // TODO(user): modify as needed
  let api: TestAPI;
  let client: Client;
  let reconciler: CronJobReconciler;
  let context: () => ReconcileContext;

  before(async () => {
    // The fake API server in the unit tier, the shared kube-apiserver in the full one.
    api = await startTestAPI(crds);
    client = api.client();
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    const mgr = newManager(api.config);
    reconciler = new CronJobReconciler(client, mgr.getEventRecorder('cronjob-controller'));
    const logger = mgr.getLogger();
    context = () => ({ signal: AbortSignal.timeout(30_000), logger, reconcileID: randomUUID() });
  });

  after(async () => {
    await api.stop();
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
    assert.ok(created.metadata?.uid, 'the API server stored the CronJob');

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
    // As the Kubebuilder book's suite does with k8sManager: the controller runs in a manager
    // whose watches (and, with `.owns()`, those of the owned objects) trigger reconciles.
    // Errors only in the test output; `level: 'debug'` follows every reconcile.
    const mgr = newManager(api.config, { logger: newLogger({ development: true, level: 'error' }), cache: { defaultNamespaces: [namespace] } });
    new CronJobReconciler(mgr.getClient(), mgr.getEventRecorder('cronjob-controller')).setupWithManager(mgr);
    const stop = new AbortController();
    const running = mgr.start(stop.signal);
    // The fake answers at once: poll it often.
    const waiting = { timeout: 30_000, interval: api.tier === 'unit' ? 10 : 250 };
    try {
      const key = { namespace, name: `${resourceName}-managed` };
      const cronJob = await client.create(sample(key.name));
      const observed = (generation: number | undefined) =>
        eventually(
          async () => {
            const got = await client.get(CronJob, key);
            assert.equal(findStatusCondition(got.status?.conditions, 'Available')?.observedGeneration, generation);
          },
          { ...waiting, message: `the CronJob is reconciled at generation ${generation}` },
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
          // A descriptor rather than client-node's class: the unit tier then never loads @kubernetes/client-node.
          const events = await client.list<EventsV1Event>({ apiVersion: 'events.k8s.io/v1', kind: 'Event' }, { namespace });
          const notes = events.items.filter((e) => e.regarding?.uid === cronJob.metadata?.uid && e.reason === 'Reconciled').map((e) => e.note);
          assert.deepEqual(notes.sort(), ['generation 1 reconciled', 'generation 2 reconciled']);
        },
        { ...waiting, message: 'the reconciler records an event per generation' },
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
