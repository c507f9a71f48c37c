import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeConfig } from '@kubernetes/client-node';
import { TestEnvironment } from '../../../src/testing/index.js';
import { RestClient } from '../../../src/runtime/util/rest.js';
import { newManager, type Manager } from '../../../src/runtime/manager/index.js';
import type { Runnable } from '../../../src/runtime/contracts.js';
import { eventually, get, quiet, sleep } from './helpers.js';

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
const timings = { leaseDuration: 3000, renewDeadline: 2000, retryPeriod: 500 };

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

async function masterStatus(mgr: Manager): Promise<string> {
  const r = await get(`http://127.0.0.1:${mgr.getMetricsAddress()!.port}/metrics`);
  return r.body.split('\n').find((l) => l.startsWith('leader_election_master_status{')) ?? '';
}

describe('leader election', () => {
  it('rejects impossible timings when the manager is created', () => {
    const opts = { leaderElection: true, leaderElectionID: 'bad', leaderElectionNamespace: 'default', logger: quiet() };
    assert.throws(() => newManager(config, { ...opts, leaseDuration: 1000, renewDeadline: 2000 }), /leaseDuration must be greater than renewDeadline/);
    assert.throws(() => newManager(config, { ...opts, retryPeriod: 0 }), /retryPeriod must be a positive number/);
    assert.throws(() => newManager(config, { leaderElection: true, leaderElectionID: 'x', logger: quiet() }), /leader election namespace/);
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
    // b campaigns for several retry periods but a keeps renewing.
    await sleep(timings.leaseDuration + 1000);
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
});
