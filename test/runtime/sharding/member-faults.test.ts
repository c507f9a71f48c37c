// Ring membership under faults (the hostile review of round 16, each case a defect it reproduced):
// a look at the ring that fails after a claim, a claim the server did not take, a hand-over whose
// reconcile never ends, a Lease of this identity left by an earlier run, members with different
// token counts or fields, and a stop on purpose. On the fake API server, with a RestClient that
// fails the requests a test picks.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { FakeAPIServer } from '../../../src/testing/index.js';
import { RestClient } from '../../../src/runtime/client/rest.js';
import { StatusError } from '../../../src/runtime/client/errors.js';
import { coverage, intersectRanges, unionRanges } from '../../../src/runtime/sharding/index.js';
import { HELD_ANNOTATION, ShardMember } from '../../../src/runtime/manager/membership.js';
import { eventually, sleep } from '../manager/helpers.js';

const quiet = pino({ level: 'silent' });
const TIMINGS = { leaseDurationMs: 6000, renewDeadlineMs: 4000, retryPeriodMs: 100 };

let fake: FakeAPIServer;
let rest: RestClient;
before(async () => {
  fake = await FakeAPIServer.start();
  rest = new RestClient(fake.config);
});
after(async () => {
  rest.close();
  await fake.stop();
});

type Fault = (method: string, path: string, body: unknown) => Error | undefined;

/** A RestClient whose requests `fault` may fail (returning the error) before they are sent. */
function faulty(fault: { current?: Fault }): RestClient {
  return {
    request: (method: string, path: string, o: { body?: unknown } = {}) => {
      const e = fault.current?.(method, path, o.body);
      if (e) return Promise.reject(e);
      return rest.request(method, path, o as never);
    },
  } as unknown as RestClient;
}

const tooMany = () =>
  new StatusError(429, { kind: 'Status', code: 429, reason: 'TooManyRequests', message: 'slow down' } as never, 'PUT');

function member(ring: string, identity: string, extra: Partial<ConstructorParameters<typeof ShardMember>[0]> = {}) {
  return new ShardMember({ rest, namespace: 'default', ring, identity, logger: quiet, ...TIMINGS, ...extra });
}

function running(ms: ShardMember[]) {
  const ac = new AbortController();
  const done = ms.map((m) => m.run(ac.signal).catch(() => undefined));
  return async () => {
    ac.abort();
    await Promise.all(done);
  };
}

describe('ShardMember under faults', () => {
  it('a look at the ring that fails right after a claim does not leave the claim unopened', async () => {
    let lists = 0;
    const fault: { current?: Fault } = {
      // The second list is the look after the first claim: fail it once.
      current: (method, path) =>
        method === 'GET' && path.endsWith('/leases') && ++lists === 2 ? new Error('connection reset') : undefined,
    };
    const m = member('reread', 'a', { rest: faulty(fault) });
    const stop = running([m]);
    try {
      await eventually(() => m.settled(), 'the claim is opened on a later round', 20_000);
      assert.equal(coverage(m.ownedRanges()), 1);
      assert.ok(lists >= 3, 'the failed look happened');
    } finally {
      await stop();
    }
  });

  it('a claim the server did not take opens nothing', async () => {
    const held = (body: unknown) =>
      (body as { metadata?: { annotations?: Record<string, string> } })?.metadata?.annotations?.[HELD_ANNOTATION] ?? '';
    let failed = 0;
    let claimedOnServer = false;
    // The first claim (a PUT holding ranges) is answered 429; later ones go through.
    const faultyRest = {
      request: async (method: string, path: string, o: { body?: unknown } = {}) => {
        const claim = method === 'PUT' && held(o.body) !== '';
        if (claim && failed++ === 0) throw tooMany();
        const r = await rest.request(method, path, o as never);
        if (claim) claimedOnServer = true;
        return r;
      },
    } as unknown as RestClient;
    const m = member('noclaim', 'a', { rest: faultyRest });
    const openedBeforeClaim: string[] = [];
    m.onOpened(() => {
      if (!claimedOnServer) openedBeforeClaim.push('opened while the server held no claim');
    });
    const stop = running([m]);
    try {
      await eventually(() => m.settled(), 'opened once a claim is written', 20_000);
      assert.ok(failed >= 2, 'the first claim failed and a later one went through');
      assert.deepEqual(openedBeforeClaim, []);
    } finally {
      await stop();
    }
  });

  it('a reconcile that never ends holds its range, not the member: it goes on reading the ring, and stops on abort', async () => {
    const a = member('wedge', 'a');
    const c = member('wedge', 'c');
    const ac = new AbortController();
    const aDone = a.run(ac.signal).catch(() => undefined);
    const cStop = running([c]);
    let bStop: (() => Promise<void>) | undefined;
    try {
      await eventually(() => a.settled() && c.settled(), 'a and c settled', 20_000);
      // A reconcile in every range of a, that ignores its signal.
      for (const r of a.ownedRanges()) a.track(r.start);
      const b = member('wedge', 'b');
      bStop = running([b]);
      await eventually(() => b.liveMembers().length === 3 && a.liveMembers().length === 3, 'b joined', 20_000);
      await cStop(); // c leaves: a should take part of c's ranges although its drain is stuck
      await c.leave();
      await eventually(() => a.liveMembers().length === 2, 'a saw c leave', 20_000);
      await eventually(
        () =>
          intersectRanges(a.ownedRanges(), b.ownedRanges()).length === 0 &&
          coverage(unionRanges(a.ownedRanges(), b.ownedRanges())) > 0.5,
        'a and b own more than half between them, without overlap',
        20_000,
      );
      ac.abort();
      const returned = await Promise.race([aDone.then(() => true), sleep(10_000).then(() => false)]);
      assert.ok(returned, 'run() returned after abort despite the stuck reconcile');
    } finally {
      ac.abort();
      await bStop?.();
    }
  });

  it('a Lease of this identity left by an earlier run is taken over after a lease duration', async () => {
    const first = member('rejoin', 'fixed-id');
    const ac = new AbortController();
    await first.join(ac.signal);
    ac.abort(); // crashed: its Lease stays, unrenewed
    const second = member('rejoin', 'fixed-id');
    const stop = running([second]);
    try {
      await eventually(() => second.hasJoined(), 'the second run joins', 20_000);
      await eventually(() => second.settled(), 'and owns the space', 20_000);
    } finally {
      await stop();
    }
  });

  it('members with different token counts still cover the space exactly once', async () => {
    const ms = [
      member('tokens', 'a', { virtualNodes: 128 }),
      member('tokens', 'b', { virtualNodes: 128 }),
      member('tokens', 'c', { virtualNodes: 256 }),
    ];
    const stop = running(ms);
    try {
      await eventually(() => ms.every((m) => m.settled()), 'all settled', 30_000);
      assert.equal(
        coverage(
          unionRanges(
            [],
            ms.flatMap((m) => m.ownedRanges()),
          ),
        ),
        1,
      );
    } finally {
      await stop();
    }
  });

  it('a member takes no range while a live member hashes by another field', async () => {
    const a = member('fields', 'a', { field: 'uid' });
    const b = member('fields', 'b', { field: 'namespace' });
    const aStop = running([a]);
    try {
      await eventually(() => a.settled(), 'a alone owns everything', 20_000);
      const bStop = running([b]);
      await sleep(10 * TIMINGS.retryPeriodMs);
      assert.deepEqual(b.ownedRanges(), [], 'b took nothing');
      await bStop();
    } finally {
      await aStop();
    }
  });

  it('renewals stopped on purpose are not a lost membership, and do not fence writes', async () => {
    const m = member('purpose', 'a');
    const lost: string[] = [];
    m.onLost((r) => lost.push(r));
    const ac = new AbortController();
    const done = m.run(ac.signal);
    await eventually(() => m.settled(), 'settled', 20_000);
    ac.abort();
    await done;
    await sleep(TIMINGS.renewDeadlineMs + 100);
    assert.equal(m.isAlive(), false);
    assert.equal(m.fenced(), false);
    assert.deepEqual(lost, []);
    await m.leave();
  });
});
