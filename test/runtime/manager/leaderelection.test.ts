import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { V1ConfigMap, type KubeConfig } from '@kubernetes/client-node';
import { TestEnvironment } from '../../../src/testing/index.js';
import { RestClient } from '../../../src/runtime/client/rest.js';
import {
  GracefulShutdownTimeoutError,
  LeaderElectionLostError,
  newManager,
  type Manager,
} from '../../../src/runtime/manager/index.js';
import { LeaderElectionError, LeaderElector } from '../../../src/runtime/manager/leaderelection.js';
import { controllerManagedBy } from '../../../src/runtime/controller/index.js';
import { WorkQueue } from '../../../src/runtime/controller/workqueue.js';
import { mergePatch } from '../../../src/runtime/client/index.js';
import type { Runnable } from '../../../src/runtime/contracts.js';
import { eventually, get, quiet, sleep } from './helpers.js';
import { must } from '../../helpers/must.js';

const env = new TestEnvironment({ useExistingCluster: false });
let config: KubeConfig;
let rest: RestClient;

before(async () => {
  config = await env.start();
  rest = new RestClient(config);
});
after(async () => {
  rest?.close();
  await env.stop();
});

// Short timings keep the test quick; the algorithm is the same as with 15 s / 10 s / 2 s.
const timings = { leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 500 };

function candidate(id: string, log: string[], extra: object = {}): Manager {
  const mgr = newManager(config, {
    leaderElection: true,
    leaderElectionID: 'handover-test',
    leaderElectionNamespace: 'default',
    leaderElectionIdentity: id,
    metrics: { bindAddress: '127.0.0.1:0' },
    logger: quiet(),
    ...timings,
    ...extra,
  });
  const controller: Runnable = {
    start: (signal) =>
      new Promise<void>((resolve) => {
        log.push(`${id} leads`);
        signal.addEventListener('abort', async () => {
          await sleep(200); // in-flight work finishes before the lease is released
          log.push(`${id} stops`);
          resolve();
        });
      }),
  };
  mgr.add(controller);
  return mgr;
}

async function holder(name: string): Promise<string | undefined> {
  const lease = await rest.get(`/apis/coordination.k8s.io/v1/namespaces/default/leases/${name}`);
  return lease.spec.holderIdentity;
}

/** How many GETs `mgr` sent (rest_client_requests_total): an unelected candidate sends only lease reads. */
async function leaseGets(mgr: Manager): Promise<number> {
  const metric = await mgr.getMetricsRegistry().getSingleMetric('rest_client_requests_total')?.get();
  return (metric?.values ?? []).filter((v) => v.labels.method === 'GET').reduce((n, v) => n + v.value, 0);
}

async function masterStatus(mgr: Manager): Promise<string> {
  const r = await get(`http://127.0.0.1:${must(mgr.getMetricsAddress(), 'mgr.getMetricsAddress()').port}/metrics`);
  return r.body.split('\n').find((l) => l.startsWith('leader_election_master_status{')) ?? '';
}

describe('leader election', () => {
  it('rejects impossible timings when the manager is created', () => {
    const opts = { leaderElection: true, leaderElectionID: 'bad', leaderElectionNamespace: 'default', logger: quiet() };
    assert.throws(
      () => newManager(config, { ...opts, leaseDurationMs: 1000, renewDeadlineMs: 2000 }),
      /leaseDurationMs must be greater than renewDeadlineMs/,
    );
    assert.throws(() => newManager(config, { ...opts, retryPeriodMs: 0 }), /retryPeriodMs must be a positive number/);
    assert.throws(
      () => newManager(config, { leaderElection: true, leaderElectionID: 'x', logger: quiet() }),
      /leader election namespace/,
    );
  });

  it('only the leader runs controllers; the lease passes to the other manager when the leader stops', async () => {
    const log: string[] = [];
    const a = candidate('a', log);
    const b = candidate('b', log);
    const acA = new AbortController();
    const acB = new AbortController();
    const doneA = a.start(acA.signal);
    await a.elected();
    assert.equal(await holder('handover-test'), 'a');
    const doneB = b.start(acB.signal);
    await b.started();
    // b campaigns for longer than a lease lasts but a keeps renewing: counted in b's lease
    // requests (each attempt reads the lease), not slept for.
    const attempts = Math.ceil((timings.leaseDurationMs + 1000) / timings.retryPeriodMs);
    await eventually(async () => (await leaseGets(b)) >= attempts, `b tried ${attempts} times`, 30_000);
    assert.deepEqual(log, ['a leads']);
    assert.equal(await holder('handover-test'), 'a');
    assert.equal(await masterStatus(a), 'leader_election_master_status{name="handover-test"} 1');
    assert.equal(await masterStatus(b), 'leader_election_master_status{name="handover-test"} 0');

    acA.abort();
    await doneA;
    // Released on cancel: b takes over on its next attempt, after a's controller stopped.
    await b.elected();
    await eventually(() => log.includes('b leads'), 'b leads');
    assert.deepEqual(log, ['a leads', 'a stops', 'b leads']);
    assert.equal(await holder('handover-test'), 'b');
    const lease = await rest.get('/apis/coordination.k8s.io/v1/namespaces/default/leases/handover-test');
    assert.equal(lease.spec.leaseTransitions, 1);
    assert.equal(await masterStatus(b), 'leader_election_master_status{name="handover-test"} 1');
    acB.abort();
    await doneB;
    assert.equal(await holder('handover-test'), '');
  });

  it("enableWarmup: a standby's controller lists, watches and queues before it leads, and reconciles at once when it does", async () => {
    const ns = `warm-${Date.now().toString(36)}`;
    await rest.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
    });
    const N = 20;
    for (let i = 0; i < N; i++)
      await rest.request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` } },
      });
    const lease = `warmup-${Date.now().toString(36)}`;
    const make = (id: string, warm: boolean) => {
      const mgr = newManager(config, {
        leaderElection: true,
        leaderElectionID: lease,
        leaderElectionNamespace: 'default',
        leaderElectionIdentity: id,
        metrics: { bindAddress: '127.0.0.1:0' },
        cache: { defaultNamespaces: [ns] },
        logger: quiet(),
        ...timings,
      });
      const seen: string[] = [];
      const ctrl = controllerManagedBy(mgr)
        .for(V1ConfigMap)
        .named(`cm-${id}`)
        .withOptions({ enableWarmup: warm })
        .complete(async (req) => {
          seen.push(req.name);
        });
      return { mgr, ctrl, seen, ac: new AbortController() };
    };
    const a = make('a', false);
    const warm = make('warm', true);
    const cold = make('cold', false);
    const doneA = a.mgr.start(a.ac.signal);
    await a.mgr.elected();
    const doneWarm = warm.mgr.start(warm.ac.signal);
    const doneCold = cold.mgr.start(cold.ac.signal);
    try {
      await eventually(() => a.seen.length >= N, 'the leader reconciled every ConfigMap');
      // the warm standby fills its queue without leading; the cold one has nothing
      await eventually(() => warm.ctrl.queue.len() === N, `the warm standby queued all ${N} ConfigMaps`);
      await eventually(async () => (await leaseGets(cold.mgr)) >= 3, 'the cold standby campaigned');
      assert.equal(warm.seen.length, 0, 'a standby never reconciles');
      assert.equal(cold.ctrl.queue.len(), 0, 'a cold standby has no informer yet');
      a.ac.abort();
      await doneA;
      // one of the standbys takes over; whichever it is, it reconciles every object
      await Promise.race([warm.mgr.elected(), cold.mgr.elected()]);
      const leader = (await holder(lease)) === 'warm' ? warm : cold;
      await eventually(() => new Set(leader.seen).size === N, 'the new leader reconciled every ConfigMap');
    } finally {
      warm.ac.abort();
      cold.ac.abort();
      await Promise.all([doneWarm, doneCold].map((p) => p.catch(() => undefined)));
      await rest.request('DELETE', `/api/v1/namespaces/${ns}`).catch(() => undefined);
    }
  });

  it("sets leaderElectionLabels on the Lease it creates and takes, keeping the Lease's other labels", async () => {
    const name = 'labelled-test';
    const run = async (id: string, labels: Record<string, string>) => {
      const mgr = newManager(config, {
        leaderElection: true,
        leaderElectionID: name,
        leaderElectionNamespace: 'default',
        leaderElectionIdentity: id,
        leaderElectionLabels: labels,
        logger: quiet(),
        ...timings,
      });
      const ac = new AbortController();
      const done = mgr.start(ac.signal);
      await mgr.elected();
      return async () => {
        ac.abort();
        await done;
      };
    };
    const lease = () => rest.get(`/apis/coordination.k8s.io/v1/namespaces/default/leases/${name}`);
    const stopA = await run('a', { 'example.com/replica': 'a', 'example.com/zone': 'z1' });
    assert.deepEqual((await lease()).metadata.labels, { 'example.com/replica': 'a', 'example.com/zone': 'z1' });
    // Someone else labels the Lease; renewals keep that label.
    const patched = await rest.request('PATCH', `/apis/coordination.k8s.io/v1/namespaces/default/leases/${name}`, {
      body: { metadata: { labels: { team: 'infra' } } },
      contentType: 'application/merge-patch+json',
    });
    await eventually(
      async () => (await lease()).metadata.resourceVersion !== patched.metadata.resourceVersion,
      'a renewal after the label was added',
    );
    assert.equal((await lease()).metadata.labels.team, 'infra');
    await stopA();
    // The next leader writes its own values over a's, and the rest stays.
    const stopB = await run('b', { 'example.com/replica': 'b' });
    assert.equal(await holder(name), 'b');
    assert.deepEqual((await lease()).metadata.labels, {
      'example.com/replica': 'b',
      'example.com/zone': 'z1',
      team: 'infra',
    });
    await stopB();
  });

  it('without release on cancel the next leader waits for the lease to expire', async () => {
    const log: string[] = [];
    const a = candidate('c', log, { leaderElectionID: 'expiry-test', leaderElectionReleaseOnCancel: false });
    const b = candidate('d', log, { leaderElectionID: 'expiry-test' });
    const acA = new AbortController();
    const acB = new AbortController();
    const doneA = a.start(acA.signal);
    await a.elected();
    const doneB = b.start(acB.signal);
    await b.started();
    acA.abort();
    await doneA;
    assert.equal(await holder('expiry-test'), 'c', 'not released');
    await b.elected();
    assert.equal(await holder('expiry-test'), 'd');
    assert.deepEqual(log, ['c leads', 'c stops', 'd leads']);
    acB.abort();
    await doneB;
  });

  it('a leader that cannot renew stops its controllers and start() rejects', async () => {
    const log: string[] = [];
    const a = candidate('e', log, { leaderElectionID: 'lost-test', metrics: {} });
    const ac = new AbortController();
    const done = a.start(ac.signal);
    done.catch(() => undefined);
    await a.elected();
    // Another party takes the lease over (as if our renewals had failed long enough).
    await eventually(async () => {
      const lease = await rest.get('/apis/coordination.k8s.io/v1/namespaces/default/leases/lost-test');
      lease.spec.holderIdentity = 'usurper';
      lease.spec.leaseDurationSeconds = 3600;
      await rest.request('PUT', '/apis/coordination.k8s.io/v1/namespaces/default/leases/lost-test', { body: lease });
      return true; // a 409 (the leader renewed in between) retries
    }, 'lease takeover');
    await assert.rejects(done, /leader election lost \(lease default\/lost-test\): the lease is held by usurper/);
    // No grace period after a loss (as controller-runtime): start() did not wait for the runnable.
    assert.deepEqual(log, ['e leads']);
    await eventually(() => log.includes('e stops'), 'the runnable was told to stop');
  });

  it('rejects an invalid lease name or namespace when the manager is created', () => {
    const opts = { leaderElection: true, leaderElectionNamespace: 'default', logger: quiet() };
    assert.throws(
      () => newManager(config, { ...opts, leaderElectionID: 'Upper.Case' }),
      (e: unknown) =>
        e instanceof LeaderElectionError &&
        /leaderElectionID "Upper\.Case" is not a valid Lease name: it must be a lowercase RFC 1123 subdomain/.test(
          (e as Error).message,
        ),
    );
    assert.throws(() => newManager(config, { ...opts, leaderElectionID: 'under_score' }), /not a valid Lease name/);
    assert.throws(
      () => newManager(config, { ...opts, leaderElectionID: `${'a'.repeat(254)}` }),
      /not a valid Lease name/,
    );
    assert.throws(
      () => newManager(config, { ...opts, leaderElectionID: 'ok', leaderElectionNamespace: 'kube.system' }),
      /leaderElectionNamespace "kube\.system" is not a valid namespace/,
    );
    assert.doesNotThrow(() => newManager(config, { ...opts, leaderElectionID: '3f1c2a9b.example.com' }));
  });

  it('a lease the API server refuses for good stops the manager with that answer', async () => {
    const mgr = newManager(config, {
      leaderElection: true,
      leaderElectionID: 'refused',
      leaderElectionNamespace: 'no-such-namespace',
      logger: quiet(),
      ...timings,
    });
    const ran: string[] = [];
    mgr.add({ start: async () => void ran.push('controller') });
    await assert.rejects(
      mgr.start(new AbortController().signal),
      (e: unknown) =>
        e instanceof LeaderElectionError &&
        /cannot create Lease no-such-namespace\/refused: the API server answered 404 NotFound: .*namespaces "no-such-namespace" not found.*set leaderElectionNamespace/.test(
          (e as Error).message,
        ),
    );
    assert.deepEqual(ran, []);
  });

  it("the gate closes on the elector's own clock: a queue asks it before handing out work", async () => {
    const clock = {
      t: 1_000,
      now() {
        return this.t;
      },
    };
    const elector = new LeaderElector({
      rest,
      namespace: 'default',
      name: 'clock-test',
      identity: 'me',
      leaseDurationMs: 3000,
      renewDeadlineMs: 2000,
      retryPeriodMs: 500,
      logger: quiet(),
      clock,
    });
    const lost: string[] = [];
    elector.onLost((reason) => lost.push(reason));
    const ac = new AbortController();
    assert.equal(await elector.acquire(ac.signal), true);
    const holding = elector.hold(ac.signal);
    const q = new WorkQueue<string>();
    let closed = 0;
    q.setGate(
      () => elector.isLeading(),
      () => closed++,
    );
    q.add('a');
    q.add('b');
    const got = await q.get();
    assert.deepEqual(
      { item: got.item, priority: got.priority, shutdown: got.shutdown },
      { item: 'a', priority: 0, shutdown: false },
    );
    q.done('a');
    // As if the process had been frozen: no timer ran, but the clock moved past the renew deadline.
    clock.t += 2000;
    assert.deepEqual(await q.get(), { shutdown: true }, 'b is not handed out');
    assert.equal(closed, 1);
    assert.equal(lost.length, 1);
    assert.match(
      lost[0],
      /^no successful renewal for 2000 ms \(renew deadline 2000 ms, by this process's monotonic clock\)$/,
    );
    assert.equal(elector.isLeading(), false);
    assert.equal(await holding, 'lost');
    q.add('c');
    assert.deepEqual(await q.get(), { shutdown: true });
    ac.abort();
  });

  /**
   * A manager whose controller reconciles ConfigMaps labelled `slow=<lease>` and blocks on `gate`;
   * with `write`, it then tries to annotate the object and logs the outcome.
   */
  function slowLeader(lease: string, log: string[], gate: Promise<void>, extra: object = {}, write = false): Manager {
    const mgr = newManager(config, {
      leaderElection: true,
      leaderElectionID: lease,
      leaderElectionNamespace: 'default',
      leaderElectionIdentity: 'slow',
      logger: quiet(),
      ...timings,
      ...extra,
    });
    controllerManagedBy(mgr)
      .for(
        { apiVersion: 'v1', kind: 'ConfigMap' },
        { predicates: [{ create: (e) => e.object.metadata?.labels?.slow === lease }] },
      )
      .named(lease)
      .complete(async (req, ctx) => {
        log.push(`start ${req.name}`);
        ctx.signal.addEventListener('abort', () => log.push(`abort ${req.name}`));
        await gate;
        if (write) {
          const patch = mergePatch({ metadata: { annotations: { late: 'yes' } } });
          await mgr
            .getClient()
            .patch({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: req.name, namespace: 'default' } }, patch)
            .then(
              () => log.push(`wrote ${req.name}`),
              (e: Error) => log.push(`${e.name} ${req.name}`),
            );
        }
        log.push(`end ${req.name}`);
      });
    return mgr;
  }

  const slowCM = (lease: string, name: string) => ({
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default', labels: { slow: lease } } },
  });

  it('losing the lease with slow reconciles: start() rejects at once, nothing more starts, no more writes', async () => {
    const log: string[] = [];
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const mgr = slowLeader('slow-lost', log, gate, {}, true);
    const done = mgr.start(new AbortController().signal);
    done.catch(() => undefined);
    await mgr.elected();
    await rest.request('POST', '/api/v1/namespaces/default/configmaps', slowCM('slow-lost', 'a'));
    await eventually(() => log.includes('start a'), 'a reconciling');
    await rest.request('POST', '/api/v1/namespaces/default/configmaps', slowCM('slow-lost', 'b'));
    await eventually(async () => {
      const lease = await rest.get('/apis/coordination.k8s.io/v1/namespaces/default/leases/slow-lost');
      lease.spec.holderIdentity = 'usurper';
      lease.spec.leaseDurationSeconds = 3600;
      await rest.request('PUT', '/apis/coordination.k8s.io/v1/namespaces/default/leases/slow-lost', { body: lease });
      return true;
    }, 'lease takeover');
    // The grace period (30 s by default) is not waited for: a's reconcile is still blocked.
    await assert.rejects(
      done,
      (e: unknown) => e instanceof LeaderElectionLostError && /held by usurper/.test((e as Error).message),
    );
    assert.deepEqual(log, ['start a', 'abort a'], 'b never started; a was told to stop');
    open();
    await eventually(() => log.includes('end a'), 'a ends');
    await sleep(0);
    assert.deepEqual(
      log,
      ['start a', 'abort a', 'LeadershipLostError a', 'end a'],
      'the write after the loss was refused',
    );
    const a = await rest.get('/api/v1/namespaces/default/configmaps/a');
    assert.equal(a.metadata.annotations?.late, undefined);
    const lease = await rest.get('/apis/coordination.k8s.io/v1/namespaces/default/leases/slow-lost');
    assert.equal(lease.spec.holderIdentity, 'usurper', 'the lease is not touched');
  });

  it('a reconcile outliving the grace period keeps the lease unreleased and is named in the error', async () => {
    const log: string[] = [];
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const mgr = slowLeader('slow-grace', log, gate, { gracefulShutdownTimeoutMs: 300 });
    const ac = new AbortController();
    const done = mgr.start(ac.signal);
    done.catch(() => undefined);
    await mgr.elected();
    await rest.request('POST', '/api/v1/namespaces/default/configmaps', slowCM('slow-grace', 'c'));
    await eventually(() => log.includes('start c'), 'c reconciling');
    ac.abort();
    await assert.rejects(done, (e: unknown) => {
      assert.ok(e instanceof GracefulShutdownTimeoutError);
      assert.deepEqual(e.pending, ['leader: controller "slow-grace" (reconciling default/c)']);
      assert.match(
        e.message,
        /grace period of 300ms: still running: leader: controller "slow-grace" \(reconciling default\/c\)$/,
      );
      return true;
    });
    assert.equal(
      await holder('slow-grace'),
      'slow',
      'not released while a reconcile runs: a standby waits for the lease to expire',
    );
    open();
  });
});
