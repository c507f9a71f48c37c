/**
 * The hash the API server shards by (KEP-5866, kube-apiserver 1.36+ with the ShardedListAndWatch
 * feature gate): 64-bit FNV-1a over the UTF-8 bytes of one metadata field, the object's uid or its
 * namespace (`""` for a cluster-scoped object). kubeforge must compute exactly the server's value:
 * where the server filters, the informer sends the ranges and the server decides; where it does
 * not, the informer decides with this hash, and the two must agree on every object.
 *
 * Computed with four 16-bit limbs in plain numbers (no BigInt per byte): the FNV prime is
 * 2^40 + 0x1b3, so `h * prime` is `h * 0x1b3 + (h << 40)` modulo 2^64.
 */

/** The fields the server can hash: `object.metadata.uid` and `object.metadata.namespace`. */
export type ShardField = 'uid' | 'namespace';

/** The CEL field path the server's shardRange() names for a field. */
export function shardFieldPath(field: ShardField): string {
  return field === 'uid' ? 'object.metadata.uid' : 'object.metadata.namespace';
}

const HEX = '0123456789abcdef';

function limbHex(n: number): string {
  return HEX[(n >>> 12) & 15] + HEX[(n >>> 8) & 15] + HEX[(n >>> 4) & 15] + HEX[n & 15];
}

/** 64-bit FNV-1a of `bytes`, as 16 lowercase hex digits (the server's own rendering). */
export function fnv1a64HexOfBytes(bytes: ArrayLike<number>): string {
  // Offset basis 0xcbf29ce484222325, low limb first.
  let h0 = 0x2325;
  let h1 = 0x8422;
  let h2 = 0x9ce4;
  let h3 = 0xcbf2;
  for (let i = 0; i < bytes.length; i++) {
    h0 ^= bytes[i] & 0xff;
    const t0 = h0 * 0x1b3;
    const t1 = h1 * 0x1b3 + (t0 >>> 16);
    const t2 = h2 * 0x1b3 + (h0 << 8) + (t1 >>> 16);
    const t3 = h3 * 0x1b3 + (h1 << 8) + (t2 >>> 16);
    h0 = t0 & 0xffff;
    h1 = t1 & 0xffff;
    h2 = t2 & 0xffff;
    h3 = t3 & 0xffff;
  }
  return limbHex(h3) + limbHex(h2) + limbHex(h1) + limbHex(h0);
}

const encoder = new TextEncoder();

/** 64-bit FNV-1a of the UTF-8 bytes of `value` (Go's `[]byte(value)`), as 16 lowercase hex digits. */
export function fnv1a64Hex(value: string): string {
  return fnv1a64HexOfBytes(encoder.encode(value));
}

/** 64-bit FNV-1a of the UTF-8 bytes of `value`, as a bigint in [0, 2^64). */
export function fnv1a64(value: string): bigint {
  return BigInt(`0x${fnv1a64Hex(value)}`);
}
