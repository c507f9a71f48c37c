/**
 * metav1.Time and metav1.MicroTime for kubeforge/runtime: `now()` is Go's `metav1.Now()`.
 * Both are `Date`s (so a condition's `lastTransitionTime`, an event's `eventTime` or an apply
 * configuration's timestamp takes them without a cast) that write themselves as the API server
 * stores them: `Time` as RFC 3339 at second precision (`2006-01-02T15:04:05Z`), `MicroTime` with
 * six fraction digits (`2006-01-02T15:04:05.000000Z`), always in UTC. A Time holds no
 * milliseconds, so a time written and read back compares equal (`getTime()`). Strings are
 * parsed as Go's `time.Parse` with metav1's layouts: a Time takes any fraction (dropped) and a
 * `Z` or `±hh:mm` offset; a MicroTime exactly six fraction digits. Parsing errors throw a
 * TypeError naming the string.
 */

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{1,2}):(\d{2}):(\d{2})(?:[.,](\d+))?(Z|[+-]\d{2}:\d{2})$/;
const RFC3339_MICRO = /^(\d{4})-(\d{2})-(\d{2})T(\d{1,2}):(\d{2}):(\d{2})[.,](\+\d{5}|\d{6})(Z|[+-]\d{2}:\d{2})$/;

const daysIn = (month: number, year: number) =>
  month === 2
    ? year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
      ? 29
      : 28
    : [4, 6, 9, 11].includes(month)
      ? 30
      : 31;

/** Go's time.Parse of a metav1 layout: [unix milliseconds at whole seconds, fraction digits] or undefined. */
function parseGo(s: string, re: RegExp): [ms: number, fraction: string] | undefined {
  const m = re.exec(s);
  if (!m) return undefined;
  const [year, month, day, hour, min, sec] = m.slice(1, 7).map(Number);
  if (month < 1 || month > 12 || day < 1 || day > daysIn(month, year) || hour > 23 || min > 59 || sec > 59)
    return undefined;
  let offset = 0;
  if (m[8] !== 'Z') {
    const hh = Number(m[8].slice(1, 3));
    const mm = Number(m[8].slice(4, 6));
    // Go's range test uses > (offsets of 24 hours or 60 minutes are written by some).
    if (hh > 24 || mm > 60) return undefined;
    offset = (m[8][0] === '-' ? -1 : 1) * (hh * 60 + mm) * 60_000;
  }
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(hour, min, sec, 0);
  return [d.getTime() - offset, m[7] ?? ''];
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** `2006-01-02T15:04:05` of a Date, in UTC. */
function secondsText(d: Date): string {
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

function toMs(t: Date | string | number | undefined, what: string): number {
  if (t === undefined) return Date.now();
  if (typeof t === 'number') return t;
  if (t instanceof Date) return t.getTime();
  const p = parseGo(t, RFC3339);
  if (!p)
    throw new TypeError(
      `kubeforge/runtime: ${what}: ${JSON.stringify(t)} is not an RFC 3339 time (2006-01-02T15:04:05Z07:00)`,
    );
  return p[0];
}

/**
 * metav1.Time: a Date at whole seconds that writes itself as `2006-01-02T15:04:05Z`. Built from a
 * Date, unix milliseconds or an RFC 3339 string (default: now); the sub-second part is dropped
 * (towards the past, as Go's formatting does). Throws a TypeError for a string that is not
 * RFC 3339 or a Date that is not a time.
 */
export class Time extends Date {
  constructor(t?: Date | string | number) {
    const ms = toMs(t, 'Time');
    if (Number.isNaN(ms)) throw new TypeError('kubeforge/runtime: Time: not a time (NaN)');
    super(Math.floor(ms / 1000) * 1000);
  }

  /** What the API server stores: `2006-01-02T15:04:05Z`. */
  override toJSON(): string {
    return `${secondsText(this)}Z`;
  }
}

/**
 * metav1.MicroTime: a Date with microseconds (`microsecond`, 0-999 beyond the milliseconds) that
 * writes itself as `2006-01-02T15:04:05.000000Z` (Events' `eventTime`, Leases' `renewTime`). Built
 * from a Date, unix milliseconds, or a string with exactly six fraction digits (default: now,
 * from the high-resolution clock). Throws a TypeError for a string Go's parse refuses.
 */
export class MicroTime extends Date {
  /** Microseconds beyond `getMilliseconds()`, 0-999. */
  readonly microsecond: number;

  constructor(t?: Date | string | number) {
    let ms: number;
    let micro = 0;
    if (t === undefined) {
      const us = Math.floor((performance.timeOrigin + performance.now()) * 1000);
      ms = Math.floor(us / 1000);
      micro = us - ms * 1000;
    } else if (typeof t === 'string') {
      const p = parseGo(t, RFC3339_MICRO);
      if (!p)
        throw new TypeError(
          `kubeforge/runtime: MicroTime: ${JSON.stringify(t)} is not an RFC 3339 time with microseconds (2006-01-02T15:04:05.000000Z07:00)`,
        );
      const us = Number(p[1].replace('+', '0'));
      ms = p[0] + Math.floor(us / 1000);
      micro = us % 1000;
    } else if (t instanceof MicroTime) {
      ms = t.getTime();
      micro = t.microsecond;
    } else ms = Math.floor(t instanceof Date ? t.getTime() : t);
    if (Number.isNaN(ms)) throw new TypeError('kubeforge/runtime: MicroTime: not a time (NaN)');
    super(ms);
    this.microsecond = micro;
  }

  /** A MicroTime from unix microseconds (Go's `time.UnixMicro`). */
  static fromUnixMicro(us: number | bigint): MicroTime {
    const n = BigInt(us);
    const ms = n / 1000n - (n % 1000n < 0n ? 1n : 0n);
    const t = new MicroTime(Number(ms));
    (t as { microsecond: number }).microsecond = Number(n - ms * 1000n);
    return t;
  }

  /** What the API server stores: `2006-01-02T15:04:05.000000Z`. */
  override toJSON(): string {
    return `${secondsText(this)}.${pad(this.getUTCMilliseconds(), 3)}${pad(this.microsecond, 3)}Z`;
  }
}

/** `metav1.Now()`: the current time at second precision, as the API server stores a metav1.Time. */
export function now(): Time {
  return new Time();
}

/** `metav1.NowMicro()`: the current time with microseconds, as a metav1.MicroTime is stored. */
export function microNow(): MicroTime {
  return new MicroTime();
}
