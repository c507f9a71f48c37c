/**
 * Assigning the hash space to members by consistent hashing with virtual nodes: every member puts
 * `virtualNodes` tokens on the ring of 64-bit positions, and a position belongs to the member of
 * the first token at or after it (wrapping past 2^64 to the first token). The assignment depends
 * only on the set of member names, so every replica that sees the same members computes the same
 * ranges with no coordinator; and a member joining or leaving takes or gives up only the arcs next
 * to its own tokens, about 1/N of the space.
 *
 * Token positions are SHA-256 of `<member>#<i>` (its first 8 bytes), not FNV-1a: FNV-1a changes
 * little of its top bits when only the last bytes differ, and `m#0`, `m#1`, ... would crowd
 * together on the ring. Objects are still placed by the server's FNV-1a (see hash.ts).
 */
import { createHash } from 'node:crypto';
import { HASH_SPACE_END, type HashRange, normalizeRanges } from './ranges.js';

/** Default tokens per member: spreads each member's share within about ±10 % of 1/N. */
export const DEFAULT_VIRTUAL_NODES = 128;

/**
 * The most tokens a member may place: each token is a range of its share, written in its Lease
 * (an annotation, 256 KiB at most for all of them) and in the server's `shardSelector`; 1,024
 * tokens keep both around 40 KiB, and an assignment of ten members under 100 ms.
 */
export const MAX_VIRTUAL_NODES = 1024;

/** Throws unless `n` is an integer in 1..MAX_VIRTUAL_NODES. */
export function checkVirtualNodes(n: number): void {
  if (!Number.isInteger(n) || n < 1 || n > MAX_VIRTUAL_NODES)
    throw new RangeError(`kubeforge/runtime: virtualNodes must be an integer from 1 to ${MAX_VIRTUAL_NODES}, got ${n}`);
}

/**
 * The ring point of something the runtime places itself (a cluster by its name, a singleton
 * controller, a runnable): SHA-256, not FNV-1a, because no API server filters these and FNV-1a
 * would put `cluster-0` .. `cluster-9` next to each other, on one member.
 */
export function namedPoint(text: string): bigint {
  return createHash('sha256').update(text).digest().readBigUInt64BE(0);
}

/** The ring position of a member's `i`-th token. */
export function tokenPosition(member: string, i: number): bigint {
  return createHash('sha256').update(`${member}#${i}`).digest().readBigUInt64BE(0);
}

/**
 * The ranges of every member, keyed by member name (each sorted and merged; together they cover
 * [0, 2^64) exactly once). Duplicate names count once; no members gives an empty map.
 */
export function assignRanges(
  members: readonly string[],
  virtualNodes: number | ReadonlyMap<string, number> = DEFAULT_VIRTUAL_NODES,
): Map<string, HashRange[]> {
  // One count for all, or each member's own (the count it advertises), so that replicas whose
  // settings differ still compute the same assignment from the same Leases.
  const countOf = (m: string) =>
    typeof virtualNodes === 'number' ? virtualNodes : (virtualNodes.get(m) ?? DEFAULT_VIRTUAL_NODES);
  for (const n of typeof virtualNodes === 'number' ? [virtualNodes] : virtualNodes.values()) checkVirtualNodes(n);
  const names = [...new Set(members)].sort();
  const out = new Map<string, HashRange[]>(names.map((m) => [m, []]));
  if (names.length === 0) return out;
  const tokens: { pos: bigint; member: string }[] = [];
  for (const member of names)
    for (let i = 0; i < countOf(member); i++) tokens.push({ pos: tokenPosition(member, i), member });
  // Ties (astronomically rare) go to the smaller name, so the order is total and the same everywhere.
  tokens.sort((a, b) =>
    a.pos < b.pos ? -1 : a.pos > b.pos ? 1 : a.member < b.member ? -1 : a.member > b.member ? 1 : 0,
  );
  // A token owns (previous token, itself]; as [start, end) ranges: [previous + 1, token + 1).
  let prev = tokens[tokens.length - 1].pos + 1n - HASH_SPACE_END; // the wrap-around arc starts below 0
  for (const t of tokens) {
    const start = prev;
    const end = t.pos + 1n;
    prev = end;
    if (start >= end) continue; // a token on the same position as the one before it
    const mine = out.get(t.member);
    if (!mine) throw new Error(`kubeforge/runtime: ring token of ${t.member}, who is not a member`);
    if (start < 0n) {
      // The first token's arc wraps: [last token + 1, 2^64) and [0, first token + 1).
      mine.push({ start: 0n, end }, { start: start + HASH_SPACE_END, end: HASH_SPACE_END });
    } else mine.push({ start, end });
  }
  for (const [m, ranges] of out) out.set(m, normalizeRanges(ranges));
  return out;
}

/** The member a hash belongs to under `assignment` (undefined when no member holds it: only for an empty assignment). */
export function ownerOf(assignment: ReadonlyMap<string, readonly HashRange[]>, hash: bigint): string | undefined {
  for (const [m, ranges] of assignment) for (const r of ranges) if (hash >= r.start && hash < r.end) return m;
  return undefined;
}

/** `count` equal ranges of the hash space (the last one absorbs the remainder), for a fixed split without members. */
export function equalRanges(count: number): HashRange[] {
  if (!Number.isInteger(count) || count < 1)
    throw new RangeError(`kubeforge/runtime: count must be a positive integer, got ${count}`);
  const size = HASH_SPACE_END / BigInt(count);
  return Array.from({ length: count }, (_, i) => ({
    start: size * BigInt(i),
    end: i === count - 1 ? HASH_SPACE_END : size * BigInt(i + 1),
  }));
}
