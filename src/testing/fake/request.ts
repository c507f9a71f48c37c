/**
 * What the API server checks of a request before its handler runs the verb: the body's size
 * (3 MiB), its JSON as the server's decoder reads it (./wire.ts: int64 exactly, depth, duplicate
 * keys, syntax errors in encoding/json's words), and the query parameters of writes, lists and
 * deletes (dryRun, fieldManager, fieldValidation, force, propagationPolicy, limit,
 * resourceVersion, resourceVersionMatch), refused in the server's words.
 */
import { ApiStatus, badRequest } from './status.js';
import { parseWire, WireSyntaxError } from './wire.js';
import { yaml } from '../crds.js';

/** The API server's MaxRequestBodyBytes. */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

/** A decoded body and the duplicate keys it had (the server warns of them, or refuses them under Strict). */
export interface Body {
  value: unknown;
  duplicates: string[];
  /** The syntax error, when the body is not JSON (the verb words it). */
  error?: string;
}

export function checkBodySize(raw: string): void {
  if (Buffer.byteLength(raw) > MAX_BODY_BYTES)
    throw new ApiStatus(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${MAX_BODY_BYTES}`);
}

/** Decodes a body of `contentType` (YAML for apply, else JSON). */
export function decodeBody(raw: string, contentType: string): Body {
  checkBodySize(raw);
  if (contentType.includes('yaml')) {
    try {
      return { value: bigToNumber(yaml().parse(raw, { intAsBigInt: true })), duplicates: [] };
    } catch (e) {
      if (e instanceof RangeError) throw badRequest('yaml: exceeded max depth');
      return { value: undefined, duplicates: [], error: (e as Error).message };
    }
  }
  try {
    return parseWire(raw);
  } catch (e) {
    if (e instanceof WireSyntaxError) return { value: undefined, duplicates: [], error: e.message };
    throw e;
  }
}

/** YAML integers parsed as BigInt: the safe ones back to numbers. */
function bigToNumber(v: unknown): unknown {
  if (typeof v === 'bigint') return v >= -(2n ** 53n) + 1n && v <= 2n ** 53n - 1n ? Number(v) : v;
  if (Array.isArray(v)) return v.map(bigToNumber);
  if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) (v as Record<string, unknown>)[k] = bigToNumber(x);
  }
  return v;
}
