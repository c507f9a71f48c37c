// Many clusters and sharding compose by cluster name (issue #39): sharded multi-cluster managers
// (two replicas on one ring, each with a provider over the same six fake clusters) engage the
// clusters whose name's point each owns, so every cluster is engaged by exactly one replica and
// its objects are reconciled there only; when one replica stops, the other engages them all.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubernetesObject } from '@kubernetes/client-node';
import pino from 'pino';
import { controllerManagedBy } from '../../../src/runtime/controller/index.js';
import {
  type MultiClusterManager,
  StaticProvider,
  newMultiClusterManager,
} from '../../../src/runtime/multicluster/index.js';
import { FakeAPIServer } from '../../../src/testing/fake/index.js';
import { startFakeClusters, type TestClusters } from '../../../src/testing/multicluster.js';
import { eventually } from '../../../src/testing/wait.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' };
const quiet = pino({ level: 'silent' });

describe('sharded multi-cluster managers', () => {
  let fleet: TestClusters;
  let host: FakeAPIServer;
  before(async () => {
    fleet = await startFakeClusters(6);
    host = await FakeAPIServer.start();
  });
  after(async () => {
    await fleet.stop();
    await host.stop();
  });

  it('each cluster is engaged and reconciled by one replica; a stopped replica hands its clusters over', async () => {
    const seen: { replica: string; cluster: string; name: string }[] = [];
    const make = (id: string) => {
      const provider = new StaticProvider({
        clusters: Object.fromEntries(fleet.clusters.map((c) => [c.name, c.config])),
      });
      const mgr = newMultiClusterManager(host.config, provider, {
        sharding: { ring: 'fleet', namespace: 'default', identity: id },
        leaseDurationMs: 6000,
        renewDeadlineMs: 4000,
        retryPeriodMs: 100,
        logger: quiet,
      });
      controllerManagedBy(mgr)
        .for(CM)
        .named('fleet')
        .complete((req) => {
          if (req.name.startsWith('obj-')) seen.push({ replica: id, cluster: req.clusterName ?? '', name: req.name });
        });
      const ac = new AbortController();
      const done = mgr.start(ac.signal);
      return {
        id,
        mgr,
        stop: async () => {
          ac.abort();
          return await done;
        },
      };
    };
    const a = make('a');
    const b = make('b');
    const names = fleet.clusters.map((c) => c.name).sort();
    const engaged = (m: MultiClusterManager) => m.listClusters();
    try {
      await eventually(
        () => {
          const x = engaged(a.mgr);
          const y = engaged(b.mgr);
          return (
            x.length > 0 && y.length > 0 && [...x, ...y].sort().join() === names.join() && !x.some((n) => y.includes(n))
          );
        },
        { timeout: 30_000, interval: 50, message: 'the clusters split between the replicas, each engaged once' },
      );
      const owner = new Map<string, string>();
      for (const n of engaged(a.mgr)) owner.set(n, 'a');
      for (const n of engaged(b.mgr)) owner.set(n, 'b');
      for (const c of fleet.clusters)
        await c.client.create({ ...CM, metadata: { name: 'obj-1', namespace: 'default' } } as KubernetesObject);
      await eventually(() => names.every((n) => seen.some((s) => s.cluster === n && s.name === 'obj-1')), {
        timeout: 30_000,
        interval: 50,
        message: 'every cluster reconciled',
      });
      for (const s of seen) assert.equal(s.replica, owner.get(s.cluster), `${s.cluster} reconciled by its owner`);

      await a.stop();
      await eventually(() => engaged(b.mgr).join() === names.join(), {
        timeout: 30_000,
        interval: 50,
        message: 'b engaged every cluster after a left',
      });
      for (const c of fleet.clusters)
        await c.client.create({ ...CM, metadata: { name: 'obj-2', namespace: 'default' } } as KubernetesObject);
      await eventually(
        () => names.every((n) => seen.some((s) => s.cluster === n && s.name === 'obj-2' && s.replica === 'b')),
        {
          timeout: 30_000,
          interval: 50,
          message: "b reconciles every cluster's new objects",
        },
      );
    } finally {
      await a.stop().catch(() => undefined);
      await b.stop();
    }
  });
});
