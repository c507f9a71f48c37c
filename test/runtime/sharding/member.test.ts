// Ring membership (ShardMember) on the fake API server, in one process with short timings: members
// that see each other split the space exactly once; one leaving hands its ranges over at once; a
// member whose clock shows it stalled past its renew deadline neither renews nor reconciles; and
// options that could never work are refused when the member is made. The same protocol in
// separate processes on kube-apiserver 1.37.2 is replicas.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { FakeAPIServer, recordSpans } from '../../../src/testing/index.js';
import { RestClient } from '../../../src/runtime/client/rest.js';
import {
  HASH_SPACE_END,
  type HashRange,
  assignRanges,
  coverage,
  intersectRanges,
  parseRangesText,
  sameRanges,
  unionRanges,
} from '../../../src/runtime/sharding/index.js';
import { RING_LABEL, ShardMember } from '../../../src/runtime/manager/membership.js';
import { eventually } from '../manager/helpers.js';
import { must } from '../../helpers/must.js';

const quiet = pino({ level: process.env.KF_TEST_LOG ?? 'silent' }, pino.destination(2));
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

// The leave test's Leases last a minute: its claim, a hand-over before the leaver's Lease could
// expire, then holds with a margin no loaded machine eats (with 6 s, a test file sharing two cores
// with a kube-apiserver build took longer).
const LONG_LEASE = { ...TIMINGS, leaseDurationMs: 60_000, renewDeadlineMs: 40_000 };

function member(ring: string, identity: string, clock?: { now(): number }, timings = TIMINGS): ShardMember {
  return new ShardMember({ rest, namespace: 'default', ring, identity, logger: quiet, clock, ...timings });
}

/** Runs members until the test ends; returns their stop function. */
function run(members: ShardMember[]): () => Promise<void> {
  const ac = new AbortController();
  const done = members.map((m) => m.run(ac.signal).catch(() => undefined));
  return async () => {
    ac.abort();
    await Promise.all(done);
  };
}

function disjointAndComplete(members: ShardMember[]): boolean {
  const owned = members.map((m) => m.ownedRanges());
  for (let i = 0; i < owned.length; i++)
    for (let j = i + 1; j < owned.length; j++) if (intersectRanges(owned[i], owned[j]).length) return false;
  return coverage(unionRanges([], owned.flat())) === 1;
}

describe('ShardMember on Leases', () => {
  it('three members split the space exactly once, as assignRanges does over their Lease names', async () => {
    const ms = ['a', 'b', 'c'].map((id) => member('split', id));
    const stop = run(ms);
    try {
      await eventually(() => ms.every((m) => m.settled()), 'all settled', 30_000);
      assert.ok(disjointAndComplete(ms), 'the owned ranges are disjoint and cover the space');
      const want = assignRanges(ms.map((m) => m.leaseName));
      for (const m of ms)
        assert.ok(
          sameRanges(m.ownedRanges(), must(want.get(m.leaseName), 'want.get(m.leaseName)')),
          `${m.identity} owns its share`,
        );
      const leases = await rest.request<{ items: { metadata: { name: string; labels: Record<string, string> } }[] }>(
        'GET',
        '/apis/coordination.k8s.io/v1/namespaces/default/leases',
        { query: { labelSelector: `${RING_LABEL}=split` } },
      );
      assert.deepEqual(leases.items.map((l) => l.metadata.name).sort(), ms.map((m) => m.leaseName).sort());
    } finally {
      await stop();
    }
  });

  it('members started together (within a retry period) each open only their share: none takes the whole space first', async () => {
    const ms = ['a', 'b', 'c'].map((id) => member('together', id));
    const opened = new Map(ms.map((m) => [m, [] as HashRange[]]));
    for (const m of ms) m.onOpened((r) => must(opened.get(m), 'opened.get(m)').push(...r));
    const ac = new AbortController();
    const done: Promise<unknown>[] = [];
    try {
      for (const m of ms) {
        done.push(m.run(ac.signal).catch(() => undefined));
        await new Promise((r) => setTimeout(r, 30));
      }
      await eventually(() => ms.every((m) => m.settled()), 'all settled', 30_000);
      assert.ok(disjointAndComplete(ms));
      const want = assignRanges(ms.map((m) => m.leaseName));
      for (const m of ms)
        assert.ok(
          sameRanges(
            unionRanges([], must(opened.get(m), 'opened.get(m)')),
            must(want.get(m.leaseName), 'want.get(m.leaseName)'),
          ),
          `${m.identity} opened exactly its share (${coverage(unionRanges([], must(opened.get(m), 'opened.get(m)'))).toFixed(3)} of the space), nothing it had to give up`,
        );
    } finally {
      ac.abort();
      await Promise.all(done);
    }
  });

  it('a member that leaves deletes its Lease, and the others own the space without waiting for it to expire', async () => {
    const ms = ['a', 'b', 'c'].map((id) => member('leave', id, undefined, LONG_LEASE));
    // The leaver runs once, under its own signal (a second run of it, as this test once had, kept
    // renewing its Lease, so the precondition of leave()'s delete failed and the others waited for
    // the Lease to expire: the very thing this test says does not happen).
    const ac = new AbortController();
    const done = ms.slice(1).map((m) => m.run(ac.signal).catch(() => undefined));
    const leaver = new AbortController();
    const leaverDone = ms[0].run(leaver.signal).catch(() => undefined);
    try {
      await eventually(() => ms.every((m) => m.settled()), 'all settled', 30_000);
      leaver.abort();
      await leaverDone;
      const left = performance.now();
      await ms[0].leave();
      const rest2 = [ms[1], ms[2]];
      await eventually(() => rest2.every((m) => m.settled() && m.liveMembers().length === 2), 'two settled', 30_000);
      assert.ok(disjointAndComplete(rest2));
      assert.deepEqual(ms[0].ownedRanges(), []);
      // Sooner than the leaver's Lease could have expired (the hand-over takes a few retry periods).
      assert.ok(performance.now() - left < LONG_LEASE.leaseDurationMs);
    } finally {
      ac.abort();
      await Promise.all(done);
    }
  });

  it('leave() deletes its Lease though a write it never heard back from changed it, and never a Lease another holder took', async () => {
    const leasePath = (m: ShardMember) => `/apis/coordination.k8s.io/v1/namespaces/default/leases/${m.leaseName}`;
    /** A write to the Lease the member does not know of (as a renewal aborted after it landed). */
    const touch = (m: ShardMember, holder?: string) =>
      rest.request('PATCH', leasePath(m), {
        body: {
          metadata: { annotations: { touched: 'yes' } },
          ...(holder ? { spec: { holderIdentity: holder } } : {}),
        },
        contentType: 'application/merge-patch+json',
      });
    const exists = (m: ShardMember) =>
      rest.request('GET', leasePath(m)).then(
        () => true,
        () => false,
      );
    for (const [id, holder, kept] of [
      ['own', undefined, false],
      ['taken', 'someone-else', true],
    ] as const) {
      const m = member(`stale-${id}`, id, undefined, LONG_LEASE);
      const ac = new AbortController();
      const running = m.run(ac.signal).catch(() => undefined);
      try {
        await eventually(() => m.settled(), 'settled', 30_000);
        ac.abort();
        await running;
        await touch(m, holder);
        await m.leave();
        assert.equal(await exists(m), kept, kept ? "another holder's Lease is kept" : 'its own Lease is deleted');
      } finally {
        ac.abort();
        await running;
      }
    }
  });

  it('a member stalled past its renew deadline renews nothing, allows nothing and reports the loss', async () => {
    let skew = 0;
    const clock = { now: () => performance.now() + skew };
    const m = member('stall', 'frozen', clock);
    const lost: string[] = [];
    m.onLost((r) => lost.push(r));
    const stop = run([m]);
    try {
      await eventually(() => m.settled(), 'alone, it owns everything', 30_000);
      assert.equal(coverage(m.ownedRanges()), 1);
      const path = `/apis/coordination.k8s.io/v1/namespaces/default/leases/${m.leaseName}`;
      const before = await rest.request<{ metadata: { resourceVersion: string } }>('GET', path);
      // As after SIGSTOP: the clock moved on while no timer ran.
      skew = TIMINGS.renewDeadlineMs + 50;
      assert.equal(m.allows(0n), false, 'the gate is closed before any timer runs');
      await eventually(() => lost.length === 1, 'the loss is reported', 20_000);
      await new Promise((r) => setTimeout(r, 4 * TIMINGS.retryPeriodMs));
      const afterStall = await rest.request<{ metadata: { resourceVersion: string } }>('GET', path);
      assert.equal(afterStall.metadata.resourceVersion, before.metadata.resourceVersion, 'the Lease was not renewed');
      assert.equal(m.allows(HASH_SPACE_END - 1n), false);
      assert.match(lost[0], /no successful renewal/);
    } finally {
      await stop();
    }
  });

  it('a renewal due after a stall is not sent, even when nothing asked the gate first', async () => {
    let skew = 0;
    const clock = { now: () => performance.now() + skew };
    const m = member('stall-idle', 'idle', clock);
    const stop = run([m]);
    try {
      await eventually(() => m.settled(), 'settled', 30_000);
      const path = `/apis/coordination.k8s.io/v1/namespaces/default/leases/${m.leaseName}`;
      const before = await rest.request<{ metadata: { resourceVersion: string } }>('GET', path);
      skew = TIMINGS.renewDeadlineMs + 50;
      await new Promise((r) => setTimeout(r, 4 * TIMINGS.retryPeriodMs));
      const afterStall = await rest.request<{ metadata: { resourceVersion: string } }>('GET', path);
      assert.equal(
        afterStall.metadata.resourceVersion,
        before.metadata.resourceVersion,
        'no renewal after the deadline',
      );
      assert.equal(m.isAlive(), false);
    } finally {
      await stop();
    }
  });

  it('hand-overs are traced: ranges opened, closed, drained and released, and left, with their ranges and counts', async () => {
    const spans = recordSpans();
    const a = member('traced', 'a');
    const b = member('traced', 'b');
    const ac = new AbortController();
    const aDone = a.run(ac.signal).catch(() => undefined);
    const bStop = new AbortController();
    let bDone: Promise<unknown> | undefined;
    try {
      await eventually(() => a.settled() && coverage(a.ownedRanges()) === 1, 'a alone owns the space', 10_000);
      const alone = spans.find((s) => s.name === 'shard opened' && s.attributes['kubeforge.identity'] === 'a');
      assert.equal(alone.parentSpanId, undefined, 'a root span, as leader election');
      assert.equal(alone.attributes['kubeforge.ring'], 'traced');
      assert.equal(alone.attributes['kubeforge.lease'], `default/${a.leaseName}`);
      assert.equal(alone.attributes['kubeforge.shard.share'], 1);
      assert.deepEqual(
        alone.events.map((e) => e.name),
        ['opened'],
      );
      const aloneRanges = parseRangesText(String(alone.attributes['kubeforge.shard.ranges']));
      assert.ok(sameRanges(aloneRanges, a.ownedRanges()));
      assert.equal(alone.attributes['kubeforge.shard.range_count'], aloneRanges.length);

      // b joins: a closes b's share, drains it, writes it away; b opens it.
      bDone = b.run(bStop.signal).catch(() => undefined);
      await eventually(() => a.settled() && b.settled() && disjointAndComplete([a, b]), 'a and b settled', 10_000);
      const release = await spans.ended(
        (s) => s.name === 'shard release' && s.attributes['kubeforge.identity'] === 'a',
      );
      assert.deepEqual(
        release.events.map((e) => e.name),
        ['drained', 'released'],
      );
      const given = parseRangesText(String(release.attributes['kubeforge.shard.ranges']));
      assert.ok(sameRanges(given, b.ownedRanges()), 'a gave up exactly what b owns now');
      assert.equal(release.attributes['kubeforge.shard.range_count'], given.length);
      assert.equal(release.events[1].attributes['kubeforge.shard.written'], true);
      const closed = spans.find((s) => s.name === 'shard closed' && s.attributes['kubeforge.identity'] === 'a');
      assert.ok(sameRanges(parseRangesText(String(closed.attributes['kubeforge.shard.ranges'])), given));
      assert.equal(closed.attributes['kubeforge.shard.owned_share'], Math.round(coverage(a.ownedRanges()) * 1e6) / 1e6);
      const taken = spans.filter((s) => s.name === 'shard opened' && s.attributes['kubeforge.identity'] === 'b');
      assert.ok(
        sameRanges(
          unionRanges(
            [],
            taken.flatMap((s) => parseRangesText(String(s.attributes['kubeforge.shard.ranges']))),
          ),
          b.ownedRanges(),
        ),
        "b's opened spans add up to what it owns",
      );

      // b leaves: one span from its drain to its Lease deleted, with what it released.
      const bOwned = b.ownedRanges();
      bStop.abort();
      await bDone;
      await b.leave();
      const left = await spans.ended((s) => s.name === 'shard leave' && s.attributes['kubeforge.identity'] === 'b');
      assert.deepEqual(
        left.events.map((e) => e.name),
        ['drained', 'released'],
      );
      assert.ok(sameRanges(parseRangesText(String(left.attributes['kubeforge.shard.ranges'])), bOwned));
      await eventually(() => coverage(a.ownedRanges()) === 1, 'a owns the space again', 10_000);
    } finally {
      spans.unregister();
      ac.abort();
      bStop.abort();
      await Promise.all([aDone, bDone]);
    }
  });

  it('refuses a ring that is no DNS-1123 label and timings that cannot work', () => {
    assert.throws(() => member('Not_A_Label', 'x'), /must be a DNS-1123 label/);
    assert.throws(
      () =>
        new ShardMember({
          rest,
          namespace: 'default',
          ring: 'r',
          logger: quiet,
          leaseDurationMs: 1000,
          renewDeadlineMs: 2000,
        }),
      /leaseDurationMs > renewDeadlineMs > retryPeriodMs/,
    );
    assert.throws(
      () => new ShardMember({ rest, namespace: 'default', ring: 'r', logger: quiet, virtualNodes: 0 }),
      /virtualNodes/,
    );
  });
});
