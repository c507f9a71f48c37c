/** The JSON values the fake API server handles: objects as parsed from a request body. */
export type Obj = Record<string, unknown>;

/** A JSON object (not an array, not null). */
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A deep copy of a JSON value (undefined stays undefined). */
export const clone = <T>(v: T): T => (v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T));
