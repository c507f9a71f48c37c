// Sharded managers in one process on the fake API server: the cases the hostile review of round
// 16 found where an object was never reconciled or work ran on every replica. Singleton
// controllers and for() types cached whole reconcile what existed before they started; a user's
// runnable runs on one replica; an object deleted during its reconcile is reconciled again; a
// controller without for() still runs; an index made before the controllers does not freeze the
// cache's plan; a graceful stop is not a lost membership.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubernetesObject } from '@kubernetes/client-node';
import pino from 'pino';
import { FakeAPIServer } from '../../../src/testing/index.js';
import { newManager } from '../../../src/runtime/manager/index.js';
import type { Manager } from '../../../src/runtime/manager/index.js';
import { controllerManagedBy, enqueueRequestsFromMapFunc } from '../../../src/runtime/controller/index.js';
import { eventually, sleep } from '../manager/helpers.js';
import { must } from '../../helpers/must.js';

const quiet = pino({ level: 'silent' });
const CM = { apiVersion: 'v1', kind: 'ConfigMap' };
const TIMINGS = { leaseDurationMs: 6000, renewDeadlineMs: 4000, retryPeriodMs: 100 };

let fake: FakeAPIServer;
before(async () => {
  fake = await FakeAPIServer.start();
});
after(() => fake.stop());

let ringN = 0;
function sharded(ring: string, identity: string): Manager {
  return newManager(fake.config, {
    sharding: { ring, namespace: 'default', identity },
    ...TIMINGS,
    logger: quiet,
    gracefulShutdownTimeoutMs: 5_000,
  });
}

async function configMaps(namespace: string, names: string[]): Promise<void> {
  await fake
    .client()
    .create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } })
    .catch(() => undefined);
  for (const name of names) await fake.client().create({ ...CM, metadata: { name, namespace } } as KubernetesObject);
}

function start(mgr: Manager) {
  const ac = new AbortController();
  const done = mgr.start(ac.signal);
  return {
    stop: async () => {
      ac.abort();
      await done;
    },
    done,
  };
}

describe('sharded managers', () => {
  it('a singleton controller reconciles the objects that existed before it started', async () => {
    const ns = `single-${++ringN}`;
    const names = ['a', 'b', 'c', 'd', 'e'];
    await configMaps(ns, names);
    const mgr = sharded(`r-single-${ringN}`, 'one');
    const seen = new Set<string>();
    controllerManagedBy(mgr)
      .for(CM)
      .named('single')
      .withOptions({ sharding: false })
      .complete((req) => void (req.namespace === ns && seen.add(req.name)));
    const m = start(mgr);
    try {
      await eventually(() => names.every((n) => seen.has(n)), 'every existing object reconciled', 30_000);
    } finally {
      await m.stop();
    }
  });

  it('a uid controller whose for() type another controller caches whole reconciles the existing objects', async () => {
    const ns = `whole-${++ringN}`;
    const names = ['a', 'b', 'c', 'd'];
    await configMaps(ns, names);
    const mgr = sharded(`r-whole-${ringN}`, 'one');
    const seen = new Set<string>();
    controllerManagedBy(mgr)
      .for(CM)
      .named('split')
      .complete((req) => void (req.namespace === ns && seen.add(req.name)));
    // A second controller that watches ConfigMaps as a secondary type: they are cached whole.
    controllerManagedBy(mgr)
      .for({ apiVersion: 'v1', kind: 'Secret' })
      .watches(
        CM,
        enqueueRequestsFromMapFunc(() => []),
      )
      .named('other')
      .complete(() => undefined);
    const m = start(mgr);
    try {
      await eventually(() => names.every((n) => seen.has(n)), 'every existing object reconciled', 30_000);
    } finally {
      await m.stop();
    }
  });

  it("a user's runnable runs on one replica at a time, and moves when that replica stops", async () => {
    const ring = `r-task-${++ringN}`;
    const running = new Set<string>();
    const overlaps: string[] = [];
    const make = (id: string) => {
      const mgr = sharded(ring, id);
      mgr.add({
        start: async (signal: AbortSignal) => {
          if (running.size > 0) overlaps.push(`${id} started while ${[...running]} ran`);
          running.add(id);
          await new Promise<void>((r) => signal.addEventListener('abort', () => r(), { once: true }));
          running.delete(id);
        },
      });
      return mgr;
    };
    const a = start(make('a'));
    const b = start(make('b'));
    try {
      await eventually(() => running.size === 1, 'the task runs on one replica', 30_000);
      const first = [...running][0];
      await sleep(500);
      assert.equal(running.size, 1);
      await (first === 'a' ? a : b).stop();
      await eventually(() => running.size === 1 && !running.has(first), 'the task moved to the other replica', 30_000);
      assert.deepEqual(overlaps, []);
    } finally {
      await a.stop().catch(() => undefined);
      await b.stop().catch(() => undefined);
    }
  });

  it('an object deleted while its reconcile runs is reconciled again (and sees it gone)', async () => {
    const ns = `del-${++ringN}`;
    await configMaps(ns, ['victim']);
    const mgr = sharded(`r-del-${ringN}`, 'one');
    const log: string[] = [];
    let slow = true;
    controllerManagedBy(mgr)
      .for(CM)
      .named('del')
      .complete(async (req) => {
        if (req.namespace !== ns) return;
        const exists = await mgr
          .getClient()
          .get(CM, { namespace: ns, name: req.name })
          .then(() => true)
          .catch(() => false);
        log.push(exists ? 'exists' : 'gone');
        if (exists && slow) {
          slow = false;
          await fake.client().delete({ ...CM, metadata: { name: req.name, namespace: ns } } as KubernetesObject);
          await sleep(300);
        }
      });
    const m = start(mgr);
    try {
      await eventually(() => log.includes('gone'), 'the deletion was reconciled', 30_000);
    } finally {
      await m.stop();
    }
  });

  it('a controller without for() still runs under uid sharding (on one replica)', async () => {
    const ns = `nofor-${++ringN}`;
    const mgr = sharded(`r-nofor-${ringN}`, 'one');
    const seen = new Set<string>();
    controllerManagedBy(mgr)
      .named('nofor')
      .watches(
        CM,
        enqueueRequestsFromMapFunc((o: KubernetesObject) =>
          o.metadata?.namespace === ns ? [{ namespace: ns, name: must(o.metadata.name, 'o.metadata.name') }] : [],
        ),
      )
      .complete((req) => void seen.add(req.name));
    const m = start(mgr);
    try {
      await sleep(300);
      await configMaps(ns, ['x', 'y']);
      await eventually(() => seen.has('x') && seen.has('y'), 'reconciled', 30_000);
    } finally {
      await m.stop();
    }
  });

  it('an index made before the controllers does not freeze the cache plan: a singleton still sees every object', async () => {
    const ns = `plan-${++ringN}`;
    const names = Array.from({ length: 12 }, (_, i) => `o${i}`);
    await configMaps(ns, names);
    const ring = `r-plan-${ringN}`;
    const by = new Map<string, Set<string>>();
    const make = async (id: string) => {
      const mgr = sharded(ring, id);
      // Made before the singleton exists: a plan fixed now would shard ConfigMaps by uid.
      await mgr.getCache().indexField(CM, 'byName', (o) => [o.metadata?.name ?? '']);
      const mine = new Set<string>();
      by.set(id, mine);
      controllerManagedBy(mgr)
        .for(CM)
        .named('plan')
        .withOptions({ sharding: false })
        .complete((req) => void (req.namespace === ns && mine.add(req.name)));
      return start(mgr);
    };
    const a = await make('a');
    const b = await make('b');
    try {
      await sleep(1_500); // both joined and settled
      await eventually(
        () =>
          must(by.get('a'), "by.get('a')").size === names.length ||
          must(by.get('b'), "by.get('b')").size === names.length,
        'the replica running the singleton reconciled every object (its cache holds them all)',
        30_000,
      );
    } finally {
      await a.stop();
      await b.stop();
    }
  });

  it('a graceful stop resolves start(): leaving the ring is not a lost membership', async () => {
    const mgr = sharded(`r-stop-${++ringN}`, 'one');
    controllerManagedBy(mgr)
      .for(CM)
      .named('stop')
      .complete(() => undefined);
    const m = start(mgr);
    await sleep(800);
    await m.stop();
    await assert.doesNotReject(m.done);
  });
});
