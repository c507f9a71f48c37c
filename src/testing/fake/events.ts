/**
 * Events are one resource seen through two APIs: the API server stores core/v1 Events, and
 * events.k8s.io/v1 is a view of the same objects (pkg/apis/events/v1's conversion renames the
 * fields). An Event written through one API is read, listed and watched through the other.
 */
import type { Obj } from './json.js';

/** events.k8s.io/v1 field → core/v1 field (the rest keep their names). */
const RENAMES: readonly (readonly [string, string])[] = [
  ['regarding', 'involvedObject'],
  ['note', 'message'],
  ['deprecatedSource', 'source'],
  ['deprecatedFirstTimestamp', 'firstTimestamp'],
  ['deprecatedLastTimestamp', 'lastTimestamp'],
  ['deprecatedCount', 'count'],
  ['reportingController', 'reportingComponent'],
];

function rename(o: Obj, from: 0 | 1): Obj {
  const to = from === 0 ? 1 : 0;
  const names = new Map(RENAMES.map((r) => [r[from], r[to]]));
  const targets = new Set(RENAMES.map((r) => r[to]));
  const out: Obj = {};
  for (const [k, v] of Object.entries(o)) {
    const n = names.get(k);
    if (n !== undefined) out[n] = v;
    // A field of the other API's name is not part of this view.
    else if (!targets.has(k)) out[k] = v;
  }
  return out;
}

/** An events.k8s.io/v1 Event as the core/v1 Event it is stored as. */
export function eventToCore(o: Obj): Obj {
  return printCoreEvent({ ...rename(o, 0), apiVersion: 'v1' });
}

/** A stored (core/v1) Event as events.k8s.io/v1 shows it (its Go struct's fields that are never omitted). */
export function eventFromCore(o: Obj): Obj {
  const e: Obj = { ...rename(printCoreEvent(o), 1), apiVersion: 'events.k8s.io/v1' };
  for (const k of ['reportingController', 'reportingInstance']) if (e[k] === '') delete e[k];
  return e;
}

/**
 * A core/v1 Event as its Go struct prints: the struct fields (involvedObject, source) and the
 * times (firstTimestamp, lastTimestamp, eventTime: null when unset) and reportingComponent /
 * reportingInstance (no omitempty) are always there.
 */
export function printCoreEvent(o: Obj): Obj {
  o.involvedObject ??= {};
  o.source ??= {};
  for (const k of ['firstTimestamp', 'lastTimestamp', 'eventTime']) if (o[k] === undefined) o[k] = null;
  for (const k of ['reportingComponent', 'reportingInstance']) if (o[k] === undefined || o[k] === null) o[k] = '';
  return o;
}
