/**
 * Events are one resource seen through two APIs: the API server stores core/v1 Events, and
 * events.k8s.io/v1 is a view of the same objects (pkg/apis/events/v1's conversion renames the
 * fields). An Event written through one API is read, listed and watched through the other.
 */
import type { Obj } from '../../apiserver/json.js';
import { isQualifiedName } from '../../util/apimachinery/validation.js';
import { GoStructJSON } from '../../util/apimachinery/field.js';

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

/**
 * The fields of the internal core.ObjectReference and core.EventSource, as a field error prints
 * them (their JSON without tags: Go's field names, in order, every field).
 */
const REFERENCE_FIELDS: readonly (readonly [string, string])[] = [
  ['kind', 'Kind'],
  ['namespace', 'Namespace'],
  ['name', 'Name'],
  ['uid', 'UID'],
  ['apiVersion', 'APIVersion'],
  ['resourceVersion', 'ResourceVersion'],
  ['fieldPath', 'FieldPath'],
];
const SOURCE_FIELDS: readonly (readonly [string, string])[] = [
  ['component', 'Component'],
  ['host', 'Host'],
];

const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A struct as its internal Go type prints in a field error (its fields in order, as Go writes a struct). */
function struct(v: unknown, fields: readonly (readonly [string, string])[]): GoStructJSON | null {
  if (!isObject(v)) return null;
  const out: Obj = {};
  for (const [json, go] of fields) out[go] = typeof v[json] === 'string' ? v[json] : '';
  return new GoStructJSON(JSON.stringify(out));
}

/** A time as an instant (null: the zero time), for equality. */
const instant = (v: unknown, micro: boolean): number | null => {
  if (typeof v !== 'string' || v === '') return null;
  const t = Date.parse(v);
  if (Number.isNaN(t)) return null;
  // Compared to the microsecond (the server tolerates less); Date keeps milliseconds.
  return micro ? t : Math.floor(t / 1000) * 1000;
};

/** An immutable field of an Event update: the events.k8s.io/v1 field, the internal path errors name, its kind. */
const IMMUTABLE: readonly (readonly [string, string, 'string' | 'count' | 'ref' | 'source' | 'time' | 'micro'])[] = [
  ['regarding', 'involvedObject', 'ref'],
  ['reason', 'reason', 'string'],
  ['note', 'message', 'string'],
  ['deprecatedSource', 'source', 'source'],
  ['deprecatedFirstTimestamp', 'firstTimestamp', 'time'],
  ['deprecatedLastTimestamp', 'lastTimestamp', 'time'],
  ['deprecatedCount', 'count', 'count'],
  ['reason', 'reason', 'string'],
  ['type', 'type', 'string'],
  ['eventTime', 'eventTime', 'micro'],
  ['action', 'action', 'string'],
  ['related', 'related', 'ref'],
  ['reportingController', 'reportingController', 'string'],
  ['reportingInstance', 'reportingInstance', 'string'],
];

/**
 * The strict validation of an events.k8s.io/v1 Event update (ValidateEventUpdate, for requests
 * through events.k8s.io/v1): its fields are immutable, named by the internal type's paths
 * (`message` for note, `involvedObject` for regarding), in the validator's order (reason twice).
 * `o` and `old` are in events.k8s.io/v1 form.
 */
export function eventUpdateErrors(
  o: Obj,
  old: Obj,
): { type: 'FieldValueInvalid'; field: string; value: unknown; detail: string }[] {
  const errs: { type: 'FieldValueInvalid'; field: string; value: unknown; detail: string }[] = [];
  for (const [name, path, kind] of IMMUTABLE) {
    const a = o[name];
    const b = old[name];
    let same: boolean;
    let value: unknown = a;
    switch (kind) {
      case 'string':
        same = (a ?? '') === (b ?? '');
        value = a ?? '';
        break;
      case 'count':
        same = Number(a ?? 0) === Number(b ?? 0);
        value = a ?? 0;
        break;
      case 'ref':
      case 'source': {
        const fields = kind === 'ref' ? REFERENCE_FIELDS : SOURCE_FIELDS;
        // A non-pointer struct (involvedObject, source) absent is its empty value; related is a pointer.
        const empty = name === 'related' ? null : struct({}, fields);
        value = struct(a, fields) ?? empty;
        const text = (x: GoStructJSON | null) => x?.text ?? 'null';
        same = text(value as GoStructJSON | null) === text(struct(b, fields) ?? empty);
        break;
      }
      default:
        same = instant(a, kind === 'micro') === instant(b, kind === 'micro');
        value = typeof a === 'string' && a !== '' ? a : null;
    }
    if (!same) errs.push({ type: 'FieldValueInvalid', field: path, value, detail: 'field is immutable' });
  }
  return errs;
}

type EventErr =
  | { type: 'FieldValueInvalid'; field: string; value: unknown; detail: string }
  | { type: 'FieldValueRequired'; field: string };

const unset = (v: unknown) => v === undefined || v === null || v === '';
const bytes = (v: unknown) => Buffer.byteLength(typeof v === 'string' ? v : '');

/**
 * The validation of an Event write (pkg/apis/core/validation/events.go): the legacy checks every
 * write passes (the involved object's namespace; with an eventTime, the reporting fields, action
 * and reason required, lengths), then for a create through events.k8s.io/v1 the strict ones
 * (eventTime required, type Normal or Warning, the deprecated fields unset). `o` is in the form of
 * the API written through (`events`: events.k8s.io/v1), `namespace` the Event's.
 */
export function eventErrors(o: Obj, events: boolean, create: boolean, namespace: string): EventErr[] {
  const get = (core: string, ev: string) => (events ? o[ev] : o[core]);
  const errs: EventErr[] = [];
  const involved = get('involvedObject', 'regarding');
  const invNs = isObject(involved) && typeof involved.namespace === 'string' ? involved.namespace : '';
  const mismatch = () =>
    errs.push({
      type: 'FieldValueInvalid',
      field: 'involvedObject.namespace',
      value: invNs,
      detail: 'does not match event.namespace',
    });
  if (unset(o.eventTime)) {
    if (invNs === '' ? namespace !== '' && namespace !== 'default' : namespace !== invNs) mismatch();
  } else {
    if (invNs === '' && namespace !== 'default' && namespace !== 'kube-system') mismatch();
    const rcName = events ? 'reportingController' : 'reportingComponent';
    const rc = get('reportingComponent', 'reportingController');
    if (unset(rc)) errs.push({ type: 'FieldValueRequired', field: rcName });
    for (const msg of isQualifiedName(typeof rc === 'string' ? rc : ''))
      errs.push({ type: 'FieldValueInvalid', field: rcName, value: typeof rc === 'string' ? rc : '', detail: msg });
    const limits: [string, unknown, number, boolean][] = [
      ['reportingInstance', o.reportingInstance, 128, true],
      ['action', o.action, 128, true],
      ['reason', o.reason, 128, true],
      ['message', get('message', 'note'), 1024, false],
    ];
    for (const [field, v, max, required] of limits) {
      if (required && unset(v)) errs.push({ type: 'FieldValueRequired', field });
      if (bytes(v) > max)
        errs.push({ type: 'FieldValueInvalid', field, value: '', detail: `can have at most ${max} characters` });
    }
  }
  if (!events || !create) return errs;
  if (unset(o.eventTime)) errs.push({ type: 'FieldValueRequired', field: 'eventTime' });
  if (o.type !== 'Normal' && o.type !== 'Warning')
    errs.push({
      type: 'FieldValueInvalid',
      field: 'type',
      value: '',
      detail: `has invalid value: ${String(o.type ?? '')}`,
    });
  const unsetNeeded = (field: string, isSet: boolean) => {
    if (isSet) errs.push({ type: 'FieldValueInvalid', field, value: '', detail: 'needs to be unset' });
  };
  unsetNeeded('firstTimestamp', !unset(o.deprecatedFirstTimestamp));
  unsetNeeded('lastTimestamp', !unset(o.deprecatedLastTimestamp));
  unsetNeeded('count', Number(o.deprecatedCount ?? 0) !== 0);
  const source = o.deprecatedSource;
  unsetNeeded('source', isObject(source) && (!unset(source.component) || !unset(source.host)));
  return errs;
}
