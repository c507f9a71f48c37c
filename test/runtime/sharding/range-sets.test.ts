// The set arithmetic of hash ranges the ring's hand-over rests on (what a member gives up is
// `held - desired`, what it may take is `desired - held - others' held`), checked point by point
// against a brute-force model on random ranges; and the Lease annotation's text form, which must
// read back exactly and refuse what it cannot read.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  HASH_SPACE_END,
  type HashRange,
  intersectRanges,
  parseRangesText,
  rangesContain,
  rangesText,
  sameRanges,
  subtractRanges,
  unionRanges,
} from '../../../src/runtime/sharding/index.js';

/** A small deterministic PRNG (mulberry32), so a failure names its seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

// Ranges on a coarse grid of the space (64 cells), so that touching and equal bounds are common.
const CELL = HASH_SPACE_END / 64n;
function randomRanges(rand: () => number): HashRange[] {
  const n = Math.floor(rand() * 5);
  return Array.from({ length: n }, () => {
    const a = Math.floor(rand() * 64);
    const b = a + 1 + Math.floor(rand() * (64 - a));
    return { start: BigInt(a) * CELL, end: b === 64 ? HASH_SPACE_END : BigInt(b) * CELL };
  });
}
// One probe inside each cell and at each cell's first point.
const PROBES = Array.from({ length: 64 }, (_, i) => [BigInt(i) * CELL, BigInt(i) * CELL + CELL / 2n]).flat();

describe('hash range sets', () => {
  it('union, difference and intersection agree with the brute-force model on 2,000 random pairs', () => {
    for (let seed = 1; seed <= 2000; seed++) {
      const rand = prng(seed);
      const a = randomRanges(rand);
      const b = randomRanges(rand);
      const u = unionRanges(a, b);
      const d = subtractRanges(a, b);
      const i = intersectRanges(a, b);
      for (const p of PROBES) {
        const inA = rangesContain(a, p);
        const inB = rangesContain(b, p);
        assert.equal(rangesContain(u, p), inA || inB, `seed ${seed}: union at ${p}`);
        assert.equal(rangesContain(d, p), inA && !inB, `seed ${seed}: difference at ${p}`);
        assert.equal(rangesContain(i, p), inA && inB, `seed ${seed}: intersection at ${p}`);
      }
      // Normal form: sorted, disjoint, not touching.
      for (const r of [u, d, i])
        for (let k = 1; k < r.length; k++) assert.ok(r[k - 1].end < r[k].start, `seed ${seed}: normal form`);
      assert.ok(sameRanges(unionRanges(d, i), unionRanges(a, [])), `seed ${seed}: (a - b) + (a & b) = a`);
    }
  });

  it('the annotation text reads back exactly, the end of the space included', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const r = unionRanges(randomRanges(prng(seed)), []);
      assert.deepEqual(parseRangesText(rangesText(r)), r, `seed ${seed}`);
    }
    assert.equal(rangesText([{ start: 0n, end: HASH_SPACE_END }]), '0-10000000000000000');
    assert.deepEqual(parseRangesText(''), []);
  });

  it('refuses text it cannot read, naming the part', () => {
    for (const bad of ['0x0-10', '5-', '1-2,zz-3', '10-5', '0-100000000000000000'])
      assert.throws(() => parseRangesText(bad), RangeError, bad);
  });
});
