// The split of issue #39 without a server: the hash against vectors computed by Go's
// k8s.io/apimachinery v0.37.2 sharding.HashField (the function kube-apiserver 1.37.2 filters
// with), the selector text in the form the server's parser reads and echoes back, and the
// consistent-hash assignment (every key owned exactly once; a join or a leave moves about 1/N).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import {
  HASH_SPACE_END,
  ShardMatcher,
  assignRanges,
  coverage,
  equalRanges,
  fnv1a64,
  fnv1a64Hex,
  normalizeRanges,
  ownerOf,
  rangesContain,
  shardSelector,
} from '../../../src/runtime/sharding/index.js';

// Printed by a Go program (`go run`, k8s.io/apimachinery v0.37.2):
//   for _, s := range inputs { fmt.Println(s, sharding.HashField(s)) }
const GO_VECTORS: [string, string][] = [
  ['', 'cbf29ce484222325'],
  ['a', 'af63dc4c8601ec8c'],
  ['default', 'ebada5168620c5fe'],
  ['kube-system', 'df65c7bc1d82b35e'],
  ['shard-ns-0', '621f7d9e42c882f8'],
  ['0b9f4c62-5c1e-4d6a-9a40-3e1f7c2d8b11', '31627f6ec219d0c7'],
  ['ffffffff-ffff-ffff-ffff-ffffffffffff', '7718f1b2f3cdd331'],
  ['Ünïcødé-名前', '75eb1ad0666c198a'],
  ['foobar', '85944171f73967e8'],
];

/** FNV-1a 64 straight from its definition, in BigInt: a second implementation to compare with. */
function referenceFnv(s: string): bigint {
  let h = 0xcbf29ce484222325n;
  for (const b of new TextEncoder().encode(s)) h = BigInt.asUintN(64, (h ^ BigInt(b)) * 0x100000001b3n);
  return h;
}

describe('FNV-1a 64, as kube-apiserver hashes uids and namespaces', () => {
  it('matches the Go vectors byte for byte (including the empty namespace and non-ASCII text)', () => {
    for (const [input, want] of GO_VECTORS) assert.equal(fnv1a64Hex(input), want, JSON.stringify(input));
  });

  it('agrees with a BigInt implementation on 2,000 random uids', () => {
    for (let i = 0; i < 2000; i++) {
      const uid = randomUUID();
      assert.equal(fnv1a64(uid), referenceFnv(uid), uid);
    }
  });
});

describe('hash ranges and the shardSelector text', () => {
  it('writes the selector as the server echoes it: 16-digit bounds, 2^64 as 0x10000000000000000, joined by ||', () => {
    assert.equal(
      shardSelector({
        field: 'uid',
        ranges: [
          { start: 0xc000000000000000n, end: HASH_SPACE_END },
          { start: 0n, end: 1n << 63n },
        ],
      }),
      "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') || " +
        "shardRange(object.metadata.uid, '0xc000000000000000', '0x10000000000000000')",
    );
    assert.equal(
      shardSelector({ field: 'namespace', ranges: [{ start: 0x10n, end: 0x20n }] }),
      "shardRange(object.metadata.namespace, '0x0000000000000010', '0x0000000000000020')",
    );
  });

  it('merges touching and overlapping ranges, refuses empty or out-of-space ones, and has no selector for nothing', () => {
    assert.deepEqual(
      normalizeRanges([
        { start: 10n, end: 20n },
        { start: 0n, end: 10n },
        { start: 15n, end: 30n },
        { start: 40n, end: 50n },
      ]),
      [
        { start: 0n, end: 30n },
        { start: 40n, end: 50n },
      ],
    );
    assert.throws(() => normalizeRanges([{ start: 5n, end: 5n }]), RangeError);
    assert.throws(() => normalizeRanges([{ start: 0n, end: HASH_SPACE_END + 1n }]), RangeError);
    assert.throws(() => normalizeRanges([{ start: -1n, end: 3n }]), RangeError);
    assert.throws(() => shardSelector({ field: 'uid', ranges: [] }), /matches nothing/);
  });

  it('ShardMatcher decides as rangesContain does, bounds included and excluded as the server does', () => {
    const h = fnv1a64('default');
    const m = new ShardMatcher({ field: 'namespace', ranges: [{ start: h, end: h + 1n }] });
    assert.equal(m.containsKey('default'), true, 'start is inclusive');
    assert.equal(
      new ShardMatcher({ field: 'namespace', ranges: [{ start: 0n, end: h }] }).containsKey('default'),
      false,
      'end is exclusive',
    );
    assert.equal(m.matches({ metadata: { namespace: 'default', uid: 'x' } }), true);
    assert.equal(m.matches({ metadata: { namespace: 'other', uid: 'x' } }), false);
    const full = new ShardMatcher({ field: 'uid', ranges: [{ start: 0n, end: HASH_SPACE_END }] });
    const ranges = equalRanges(7).filter((_, i) => i % 2 === 0);
    const some = new ShardMatcher({ field: 'uid', ranges });
    for (let i = 0; i < 1000; i++) {
      const uid = randomUUID();
      assert.equal(full.containsKey(uid), true);
      assert.equal(some.containsKey(uid), rangesContain(ranges, fnv1a64(uid)), uid);
    }
    // Among many ranges (a ring member's hundred or so), the bounds still hold.
    const around = (ranges: { start: bigint; end: bigint }[]) =>
      new ShardMatcher({ field: 'namespace', ranges }).containsKey('default');
    assert.equal(
      around([
        { start: 0n, end: h },
        { start: h + 1n, end: HASH_SPACE_END },
      ]),
      false,
      'between two ranges',
    );
    assert.equal(
      around([
        { start: 0n, end: h - 5n },
        { start: h, end: h + 1n },
        { start: h + 10n, end: HASH_SPACE_END },
      ]),
      true,
      'a one-hash range among others',
    );
    const ring = assignRanges(['a', 'b', 'c', 'd']);
    for (const [member, mine] of ring) {
      assert.ok(mine.length > 50, `${member} holds ${mine.length} ranges`);
      const matcher = new ShardMatcher({ field: 'uid', ranges: mine });
      for (let i = 0; i < 500; i++) {
        const uid = randomUUID();
        assert.equal(matcher.containsKey(uid), rangesContain(mine, fnv1a64(uid)), `${member}: ${uid}`);
      }
    }
  });
});

describe('consistent hashing of members onto ranges', () => {
  const uids = Array.from({ length: 10_000 }, () => fnv1a64(randomUUID()));
  const members = (n: number) => Array.from({ length: n }, (_, i) => `replica-${i}`);
  const owners = (assignment: Map<string, unknown>) =>
    uids.map((h) => ownerOf(assignment as Map<string, { start: bigint; end: bigint }[]>, h));

  it('covers the whole space exactly once, and is the same whatever order the members come in', () => {
    const a = assignRanges(members(5));
    const b = assignRanges([...members(5)].reverse());
    assert.deepEqual(a, b);
    let total = 0;
    const all = [...a.values()].flat().sort((x, y) => (x.start < y.start ? -1 : 1));
    assert.equal(all[0].start, 0n);
    for (let i = 1; i < all.length; i++) assert.equal(all[i].start, all[i - 1].end, 'no gap and no overlap');
    assert.equal(all[all.length - 1].end, HASH_SPACE_END);
    for (const ranges of a.values()) {
      const share = coverage(ranges);
      total += share;
      assert.ok(share > 0.7 / 5 && share < 1.3 / 5, `share ${share} of 5 members`);
    }
    assert.ok(Math.abs(total - 1) < 1e-6, `total ${total}`);
  });

  for (const n of [2, 4, 8]) {
    it(`a member joining ${n} or leaving ${n + 1} moves at most 1.5/N of 10,000 random uids`, () => {
      const before = owners(assignRanges(members(n)));
      const joined = owners(assignRanges(members(n + 1)));
      const movedOnJoin = before.filter((o, i) => o !== joined[i]).length / uids.length;
      // Only keys taken by the newcomer move; nothing moves between the old members.
      assert.ok(
        before.every((o, i) => o === joined[i] || joined[i] === `replica-${n}`),
        'a join moves keys only to the new member',
      );
      assert.ok(movedOnJoin > 0 && movedOnJoin <= 1.5 / (n + 1), `join moved ${movedOnJoin} (N=${n + 1})`);
      // replica-1 leaves the n+1: only its keys move.
      const left = owners(assignRanges(members(n + 1).filter((m) => m !== 'replica-1')));
      const movedOnLeave = joined.filter((o, i) => o !== left[i]).length / uids.length;
      assert.ok(
        joined.every((o, i) => o === left[i] || o === 'replica-1'),
        'a leave moves only the leaver’s keys',
      );
      assert.ok(movedOnLeave > 0 && movedOnLeave <= 1.5 / (n + 1), `leave moved ${movedOnLeave} (N=${n + 1})`);
    });
  }
});

// A property of the server's hash that docs/scaling.md warns about: FNV-1a has no final mixing, so
// names that differ only in their last characters hash close together, and a ring over the hash
// space puts them on one member. Random uids spread; such namespace names do not.
describe('FNV-1a and names alike but for their ends (why namespace sharding can be lopsided)', () => {
  const ring = assignRanges(['r0', 'r1', 'r2', 'r3']);
  const membersOf = (names: string[]) => new Set(names.map((n) => ownerOf(ring, fnv1a64(n))));

  it('tenant-0 .. tenant-9 and team-a .. team-z each land on one member of four; uids spread over all four', () => {
    assert.equal(membersOf(Array.from({ length: 10 }, (_, i) => `tenant-${i}`)).size, 1);
    assert.equal(membersOf(Array.from({ length: 26 }, (_, i) => `team-${String.fromCharCode(97 + i)}`)).size, 1);
    // The top 16 bits of tenant-0 .. tenant-9 are all 0xc2ef.
    assert.deepEqual(
      new Set(Array.from({ length: 10 }, (_, i) => fnv1a64Hex(`tenant-${i}`).slice(0, 4))),
      new Set(['c2ef']),
    );
    assert.equal(membersOf(Array.from({ length: 40 }, () => randomUUID())).size, 4);
  });
});
