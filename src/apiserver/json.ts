/** JSON values as the API server handles them: objects as parsed from a request body. */
export type Obj = Record<string, unknown>;

/** A JSON object (not an array, not null). */
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `parent[key]` when it is an object, else a new empty object put there. */
export function childObject(parent: Obj, key: string): Obj {
  const v = parent[key];
  if (isObj(v)) return v;
  const made: Obj = {};
  parent[key] = made;
  return made;
}

/**
 * A deep copy of a JSON value (undefined stays undefined), as a JSON round trip makes it (keys
 * holding undefined dropped, undefined items null) but keeping BigInts (integers beyond 2^53).
 */
export const clone = <T>(v: T): T => (v === undefined ? v : (copy(v) as T));

function copy(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map((x) => (x === undefined || typeof x === 'function' ? null : copy(x)));
  const maybe = v as { toJSON?: () => unknown };
  if (typeof maybe.toJSON === 'function') return copy(JSON.parse(JSON.stringify(v)));
  const out: Obj = {};
  for (const [k, x] of Object.entries(v as Obj)) {
    if (x === undefined || typeof x === 'function') continue;
    if (k === '__proto__')
      Object.defineProperty(out, k, { value: copy(x), enumerable: true, writable: true, configurable: true });
    else out[k] = copy(x);
  }
  return out;
}

/**
 * Go's %v of a float64 (strconv 'g', shortest digits): an exponent when it is below -4 or at least
 * 6 (`1.5`, `123456`, `1e+06`, `1.2345678901234567e+19`).
 */
export function goFloat(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (!Number.isFinite(n)) return n > 0 ? '+Inf' : '-Inf';
  if (n === 0) return Object.is(n, -0) ? '-0' : '0';
  const [mantissa, e] = n.toExponential().split('e');
  const exp = Number(e);
  if (exp < -4 || exp >= 6) return `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return String(n);
}
