/**
 * Hash ranges and the `shardSelector` query parameter of KEP-5866, as kube-apiserver 1.37 parses
 * it (k8s.io/apiserver/pkg/sharding): a CEL expression of `shardRange(<field>, '<start>',
 * '<end>')` calls joined by `||`, one field for all of them; each bound a single-quoted `0x`
 * literal of exactly 16 lowercase hex digits, except the exclusive upper bound of the whole space,
 * `'0x10000000000000000'` (2^64). A range is [start, end): start inclusive, end exclusive, and the
 * server refuses start >= end and an empty selector.
 */
import { type ShardField, fnv1a64Hex, shardFieldPath } from './hash.js';

/** 2^64: the exclusive end of the hash space. */
export const HASH_SPACE_END = 1n << 64n;

/** A range of the 64-bit hash space, [start, end). */
export interface HashRange {
  /** Inclusive, >= 0. */
  start: bigint;
  /** Exclusive, <= 2^64 and > start. */
  end: bigint;
}

/** What a sharded informer holds: the objects whose `field` hashes into one of `ranges`. */
export interface ShardSpec {
  /** `uid` (object.metadata.uid) or `namespace` (object.metadata.namespace, "" for cluster-scoped objects). */
  field: ShardField;
  /** The ranges held; may overlap or touch (they are merged). Empty: the shard holds nothing. */
  ranges: readonly HashRange[];
}

/** Throws unless every range lies in [0, 2^64) with start < end. */
export function validateRanges(ranges: readonly HashRange[]): void {
  for (const r of ranges) {
    if (typeof r.start !== 'bigint' || typeof r.end !== 'bigint')
      throw new TypeError('kubeforge/runtime: a hash range has bigint start and end');
    if (r.start < 0n || r.end > HASH_SPACE_END || r.start >= r.end)
      throw new RangeError(
        `kubeforge/runtime: hash range [${hex(r.start)}, ${hex(r.end)}) is not a non-empty part of [0x0, 0x10000000000000000)`,
      );
  }
}

/** The ranges sorted by start, with overlapping and touching ones merged. */
export function normalizeRanges(ranges: readonly HashRange[]): HashRange[] {
  validateRanges(ranges);
  const sorted = [...ranges].sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  const out: HashRange[] = [];
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (last && r.start <= last.end) {
      if (r.end > last.end) last.end = r.end;
    } else out.push({ start: r.start, end: r.end });
  }
  return out;
}

/** Whether `hash` (in [0, 2^64)) lies in one of `ranges`. */
export function rangesContain(ranges: readonly HashRange[], hash: bigint): boolean {
  for (const r of ranges) if (hash >= r.start && hash < r.end) return true;
  return false;
}

/** The fraction of the hash space the ranges cover (after merging). */
export function coverage(ranges: readonly HashRange[]): number {
  let sum = 0n;
  for (const r of normalizeRanges(ranges)) sum += r.end - r.start;
  return Number((sum * 1_000_000_000n) / HASH_SPACE_END) / 1e9;
}

/** A bound as the server writes it: `0x` and 16 hex digits, or `0x10000000000000000` for 2^64. */
export function hex(n: bigint): string {
  return `0x${n.toString(16).padStart(16, '0')}`;
}

/**
 * The `shardSelector` for `spec`, in the form the server echoes back in a sharded list's
 * `metadata.shardInfo.selector`: `shardRange(object.metadata.uid, '0x…', '0x…') || …`, ranges
 * merged and sorted. Throws for no ranges: the server has no selector that matches nothing.
 */
export function shardSelector(spec: ShardSpec): string {
  const ranges = normalizeRanges(spec.ranges);
  if (ranges.length === 0)
    throw new RangeError('kubeforge/runtime: no hash ranges; the API server has no shardSelector that matches nothing');
  const path = shardFieldPath(spec.field);
  return ranges.map((r) => `shardRange(${path}, '${hex(r.start)}', '${hex(r.end)}')`).join(' || ');
}

/** The key the server hashes for `field` of an object: its uid, or its namespace ("" when cluster-scoped). */
export function shardKeyOf(
  obj: { metadata?: { uid?: string; namespace?: string } } | undefined,
  field: ShardField,
): string {
  return (field === 'uid' ? obj?.metadata?.uid : obj?.metadata?.namespace) ?? '';
}

/**
 * A fast membership test for one spec: the bounds as hex strings, compared with the object's
 * hash as the server compares them (equal-length lowercase hex compares as the numbers do; the
 * 17-digit 2^64 is above every hash).
 */
export class ShardMatcher {
  readonly field: ShardField;
  readonly ranges: readonly HashRange[];
  private readonly bounds: [string, string][];

  constructor(spec: ShardSpec) {
    this.field = spec.field;
    this.ranges = normalizeRanges(spec.ranges);
    this.bounds = this.ranges.map((r) => [hex(r.start).slice(2), hex(r.end).slice(2)]);
  }

  /** Whether a key (a uid or a namespace) hashes into the ranges. */
  containsKey(key: string): boolean {
    const h = fnv1a64Hex(key);
    // The ranges are sorted and disjoint: the only candidate is the last one starting at or
    // below the hash (a binary search; a member holds about a hundred ranges).
    let lo = 0;
    let hi = this.bounds.length - 1;
    let at = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.bounds[mid][0] <= h) {
        at = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    if (at < 0) return false;
    const end = this.bounds[at][1];
    return end.length > 16 || h < end;
  }

  /** Whether the object belongs to the shard (an object without a uid hashes the empty string, as the server does). */
  matches(obj: { metadata?: { uid?: string; namespace?: string } } | undefined): boolean {
    return this.containsKey(shardKeyOf(obj, this.field));
  }
}

/** The union of two sets of ranges (sorted, merged). */
export function unionRanges(a: readonly HashRange[], b: readonly HashRange[]): HashRange[] {
  return normalizeRanges([...a, ...b]);
}

/** The parts of `a` outside every range of `b` (sorted, merged). */
export function subtractRanges(a: readonly HashRange[], b: readonly HashRange[]): HashRange[] {
  const minus = normalizeRanges(b);
  const out: HashRange[] = [];
  for (const r of normalizeRanges(a)) {
    let start = r.start;
    for (const m of minus) {
      if (m.end <= start || m.start >= r.end) continue;
      if (m.start > start) out.push({ start, end: m.start });
      if (m.end > start) start = m.end;
      if (start >= r.end) break;
    }
    if (start < r.end) out.push({ start, end: r.end });
  }
  return normalizeRanges(out);
}

/** The parts common to `a` and `b` (sorted, merged). */
export function intersectRanges(a: readonly HashRange[], b: readonly HashRange[]): HashRange[] {
  return subtractRanges(a, subtractRanges(a, b));
}

/** Whether two sets of ranges cover exactly the same points. */
export function sameRanges(a: readonly HashRange[], b: readonly HashRange[]): boolean {
  const x = normalizeRanges(a);
  const y = normalizeRanges(b);
  return x.length === y.length && x.every((r, i) => r.start === y[i].start && r.end === y[i].end);
}

/**
 * Ranges as compact text for an annotation: `<start>-<end>` in lowercase hex without `0x`, joined
 * by commas ("" for none). {@link parseRangesText} reads it back.
 */
export function rangesText(ranges: readonly HashRange[]): string {
  return normalizeRanges(ranges)
    .map((r) => `${r.start.toString(16)}-${r.end.toString(16)}`)
    .join(',');
}

/** Reads {@link rangesText}'s form; throws a RangeError naming the part it cannot read. */
export function parseRangesText(text: string): HashRange[] {
  if (text.trim() === '') return [];
  return normalizeRanges(
    text.split(',').map((part) => {
      const m = /^([0-9a-f]{1,16})-([0-9a-f]{1,17})$/.exec(part.trim());
      if (!m) throw new RangeError(`kubeforge/runtime: cannot read hash range ${JSON.stringify(part)}`);
      return { start: BigInt(`0x${m[1]}`), end: BigInt(`0x${m[2]}`) };
    }),
  );
}
