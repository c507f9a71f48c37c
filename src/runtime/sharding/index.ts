// kubeforge/runtime sharding (issue #39): the API server's FNV-1a hash ranges (KEP-5866
// shardSelector) and ranges assigned to members by consistent hashing. Pure arithmetic: membership
// of a ring on Leases (ShardMember) is the manager's (../manager/membership.ts).
export { type ShardField, fnv1a64, fnv1a64Hex, fnv1a64HexOfBytes, shardFieldPath } from './hash.js';
export {
  HASH_SPACE_END,
  type HashRange,
  type ShardSpec,
  ShardMatcher,
  coverage,
  hex,
  intersectRanges,
  normalizeRanges,
  parseRangesText,
  rangesContain,
  rangesText,
  sameRanges,
  subtractRanges,
  unionRanges,
  shardKeyOf,
  shardSelector,
  validateRanges,
} from './ranges.js';
export {
  DEFAULT_VIRTUAL_NODES,
  MAX_VIRTUAL_NODES,
  assignRanges,
  checkVirtualNodes,
  equalRanges,
  namedPoint,
  ownerOf,
  tokenPosition,
} from './ring.js';
