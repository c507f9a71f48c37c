/**
 * Evaluation of the Kubernetes CEL libraries that have their own value types (quantity, url,
 * ip, cidr, semver, format), after k8s.io/apiserver/pkg/cel/library. @bufbuild/cel has no
 * opaque values, so each value is a map with one marker key (`@kubeforge.Quantity` ...) and its
 * canonical form: two quantities of the same amount are equal maps, as they are equal in CEL.
 * The checker (./library.ts) gives them their own types, so a rule cannot treat them as maps.
 */
import { isIP } from 'node:net';
import { celFunc, celMethod, CelScalar, mapType, type CelFunc, type CelMap, type CelValue } from '@bufbuild/cel';

const MAP = mapType(CelScalar.STRING, CelScalar.DYN);
const { STRING, INT, BOOL, DOUBLE, DYN } = CelScalar;

export const OPTIONAL_KEY = '@kubeforge.optional';
const Q = '@kubeforge.Quantity';
const U = '@kubeforge.URL';
const IPK = '@kubeforge.IP';
const CIDRK = '@kubeforge.CIDR';
const SV = '@kubeforge.Semver';
const FMT = '@kubeforge.Format';

const tag = (m: CelMap): string | undefined => {
  for (const k of [Q, U, IPK, CIDRK, SV, FMT, OPTIONAL_KEY]) if (m.has(k)) return k;
  return undefined;
};
const str = (m: CelMap, k: string) => String(m.get(k));
const expect = (m: CelMap, k: string) => {
  if (!m.has(k)) throw new Error('no such overload');
  return str(m, k);
};

/** An optional (none when `value` is undefined), as a map the evaluator accepts. */
export const optional = (value?: unknown): Record<string, never> => (value === undefined ? { [OPTIONAL_KEY]: true } : { [OPTIONAL_KEY]: true, value }) as unknown as Record<string, never>;

// ---- quantity: amounts as BigInt nano-units (k8s Quantities carry at most nano precision in practice) ----
const QUANTITY = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(Ki|Mi|Gi|Ti|Pi|Ei|[eE][+-]?\d+|n|u|m|k|M|G|T|P|E)?$/;
const BIN: Record<string, bigint> = { Ki: 1n << 10n, Mi: 1n << 20n, Gi: 1n << 30n, Ti: 1n << 40n, Pi: 1n << 50n, Ei: 1n << 60n };
const DEC: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

function parseQuantity(s: string): bigint {
  const m = QUANTITY.exec(s);
  if (!m) throw new Error('quantities must match the regular expression \'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$\'');
  const [int, frac = ''] = m[1].replace(/^[+-]/, '').split('.');
  const sign = m[1].startsWith('-') ? -1n : 1n;
  const digits = BigInt(`${int || '0'}${frac}`);
  const suffix = m[2] ?? '';
  let exp10 = -frac.length + 9; // to nano units
  let mult = 1n;
  if (suffix in BIN) mult = BIN[suffix];
  else if (/^[eE]/.test(suffix)) exp10 += Number(suffix.slice(1));
  else exp10 += DEC[suffix];
  let v = digits * mult;
  if (exp10 >= 0) v *= 10n ** BigInt(exp10);
  else {
    const d = 10n ** BigInt(-exp10);
    v = (v + d - 1n) / d; // rounded up, as Quantity rounds to its smallest scale
  }
  return sign * v;
}
const quantity = (nanos: bigint) => ({ [Q]: nanos.toString() });
const nanosOf = (m: CelMap) => BigInt(expect(m, Q));
const NANO = 1_000_000_000n;

// ---- semver ----
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;
function parseSemver(s: string, normalize: boolean): string {
  let v = s;
  if (normalize) {
    v = v.replace(/^v/, '');
    const m = /^(\d+)(?:\.(\d+))?(?:\.(\d+))?(.*)$/.exec(v);
    if (m) v = `${Number(m[1])}.${Number(m[2] ?? 0)}.${Number(m[3] ?? 0)}${m[4]}`;
  }
  const m = SEMVER.exec(v);
  if (!m) throw new Error(`could not parse semver: ${s}`);
  return `${m[1]}.${m[2]}.${m[3]}${m[4] ? `-${m[4]}` : ''}`;
}
function compareSemver(a: string, b: string): number {
  const split = (v: string) => {
    const [core, pre] = v.split(/-(.*)/s);
    return { nums: core.split('.').map(BigInt), pre: pre ? pre.split('.') : [] };
  };
  const x = split(a);
  const y = split(b);
  for (let i = 0; i < 3; i++) if (x.nums[i] !== y.nums[i]) return x.nums[i] < y.nums[i] ? -1 : 1;
  if (!x.pre.length || !y.pre.length) return x.pre.length === y.pre.length ? 0 : x.pre.length ? -1 : 1;
  for (let i = 0; i < Math.max(x.pre.length, y.pre.length); i++) {
    const p = x.pre[i];
    const q = y.pre[i];
    if (p === undefined) return -1;
    if (q === undefined) return 1;
    if (p === q) continue;
    const pn = /^\d+$/.test(p);
    const qn = /^\d+$/.test(q);
    if (pn && qn) return BigInt(p) < BigInt(q) ? -1 : 1;
    if (pn !== qn) return pn ? -1 : 1;
    return p < q ? -1 : 1;
  }
  return 0;
}

// ---- url ----
function parseURL(s: string): URL {
  // Go's url.ParseRequestURI: an absolute URL or an absolute path
  if (s.startsWith('/')) return new URL(s, 'relative:///');
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:/.test(s)) throw new Error(`URL parse error during conversion from string: parse "${s}": invalid URI for request`);
  try {
    return new URL(s);
  } catch {
    throw new Error(`URL parse error during conversion from string: parse "${s}": invalid URI for request`);
  }
}
const urlOf = (m: CelMap) => new URL(expect(m, U), 'relative:///');
const isRelative = (u: URL) => u.protocol === 'relative:';

// ---- ip and cidr ----
function canonicalIP(s: string): { family: 4 | 6; text: string } {
  if (s.includes('%')) throw new Error(`IP Address with zone value is not allowed: ${s}`);
  const f = isIP(s);
  if (f === 4) {
    if (s.split('.').some((o) => o.length > 1 && o.startsWith('0'))) throw new Error(`IP Address "${s}" parse error during conversion from string: ParseAddr("${s}"): IPv4 field has octet with leading zero`);
    return { family: 4, text: s };
  }
  if (f === 6) {
    const text = new URL(`http://[${s}]`).hostname.slice(1, -1);
    if (/^::ffff:\d|^::ffff:[0-9a-f]{1,4}:[0-9a-f]{1,4}$/i.test(text) && /\./.test(s)) throw new Error(`IPv4-mapped IPv6 address is not allowed: ${s}`);
    return { family: 6, text };
  }
  throw new Error(`IP Address "${s}" parse error during conversion from string: ParseAddr("${s}"): unable to parse IP`);
}
function ipBits(text: string, family: 4 | 6): bigint {
  if (family === 4) return text.split('.').reduce((a, o) => (a << 8n) | BigInt(Number(o)), 0n);
  const [head, tail = ''] = text.split('::');
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = text.includes('::') ? [...h, ...Array(8 - h.length - t.length).fill('0'), ...t] : h;
  return groups.reduce((a, g) => (a << 16n) | BigInt(parseInt(g, 16)), 0n);
}
function bitsToIP(v: bigint, family: 4 | 6): string {
  if (family === 4) return [24n, 16n, 8n, 0n].map((s) => String((v >> s) & 255n)).join('.');
  const groups: string[] = [];
  for (let i = 7; i >= 0; i--) groups.push(((v >> BigInt(i * 16)) & 0xffffn).toString(16));
  return canonicalIP(groups.join(':')).text;
}
const ipValue = (s: string) => {
  const c = canonicalIP(s);
  return { [IPK]: c.text, family: BigInt(c.family) };
};
function parseCIDR(s: string): { ip: string; family: 4 | 6; len: number } {
  const m = /^([^/]+)\/(\d{1,3})$/.exec(s);
  if (!m) throw new Error(`network address parse error during conversion from string: netip.ParsePrefix("${s}"): no '/'`);
  const c = canonicalIP(m[1]);
  const len = Number(m[2]);
  if (len > (c.family === 4 ? 32 : 128)) throw new Error(`network address parse error during conversion from string: netip.ParsePrefix("${s}"): bad bits after slash: "${m[2]}"`);
  return { ip: c.text, family: c.family, len };
}
const cidrValue = (s: string) => {
  const p = parseCIDR(s);
  return { [CIDRK]: `${p.ip}/${p.len}` };
};
function contains(prefix: string, ip: string, ipLen?: number): boolean {
  const p = parseCIDR(prefix);
  const c = canonicalIP(ip);
  if (c.family !== p.family) return false;
  if (ipLen !== undefined && ipLen < p.len) return false;
  const width = BigInt(p.family === 4 ? 32 : 128);
  const shift = width - BigInt(p.len);
  return ipBits(c.text, c.family) >> shift === ipBits(p.ip, p.family) >> shift;
}

// ---- format ----
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const FORMATS: Record<string, (s: string) => string[]> = {
  dns1123Label: (s) => (s.length > 63 ? ['must be no more than 63 characters'] : DNS1123_LABEL.test(s) ? [] : ["a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character"]),
  dns1123Subdomain: (s) => (s.length > 253 ? ['must be no more than 253 characters'] : DNS1123_SUBDOMAIN.test(s) ? [] : ["a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character"]),
  dns1035Label: (s) => (s.length > 63 ? ['must be no more than 63 characters'] : DNS1035_LABEL.test(s) ? [] : ["a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character"]),
  qualifiedName: (s) => {
    const parts = s.split('/');
    const name = parts[parts.length - 1];
    if (parts.length > 2) return ["a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"];
    const out: string[] = [];
    if (parts.length === 2 && !DNS1123_SUBDOMAIN.test(parts[0])) out.push('prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character');
    if (!name || name.length > 63 || !/^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/.test(name)) out.push("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character");
    return out;
  },
  labelValue: (s) => (s.length <= 63 && /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/.test(s) ? [] : ["a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"]),
  uri: (s) => {
    try {
      parseURL(s);
      return [];
    } catch {
      return ['invalid URI'];
    }
  },
  uuid: (s) => (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s) ? [] : ['does not match the UUID format']),
  byte: (s) => (/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(s) ? [] : ['invalid base64']),
  date: (s) => (/^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(s)) ? [] : ['invalid date']),
  datetime: (s) => (/^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(s) && !Number.isNaN(Date.parse(s)) ? [] : ['invalid datetime']),
};
for (const [name, base] of [['dns1123LabelPrefix', 'dns1123Label'], ['dns1123SubdomainPrefix', 'dns1123Subdomain'], ['dns1035LabelPrefix', 'dns1035Label']] as const) {
  // a prefix may end with '-' (generateName): apimachinery's maskTrailingDash
  FORMATS[name] = (s) => FORMATS[base](s.length > 1 && s.endsWith('-') ? `${s.slice(0, -1)}a` : s);
}

function compareTagged(a: CelMap, b: CelMap): number {
  const k = tag(a);
  if (k !== tag(b)) throw new Error('no such overload');
  if (k === Q) {
    const x = nanosOf(a);
    const y = nanosOf(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (k === SV) return compareSemver(str(a, SV), str(b, SV));
  throw new Error('no such overload');
}

/** The implementations, added to the evaluator's environment (src/cel/eval.ts). */
export const K8S_TYPED_FUNCS: CelFunc[] = [
  // quantity
  celFunc('quantity', [STRING], MAP, (s) => quantity(parseQuantity(s))),
  celFunc('isQuantity', [STRING], BOOL, (s) => QUANTITY.test(s)),
  celMethod('sign', MAP, [], INT, function () {
    const n = nanosOf(this);
    return n > 0n ? 1n : n < 0n ? -1n : 0n;
  }),
  celMethod('isInteger', MAP, [], BOOL, function () {
    // true when asInteger() succeeds: a whole number within int64
    const n = nanosOf(this);
    return n % NANO === 0n && n / NANO <= 9223372036854775807n && n / NANO >= -9223372036854775808n;
  }),
  celMethod('asInteger', MAP, [], INT, function () {
    const n = nanosOf(this);
    if (n % NANO !== 0n) throw new Error('cannot convert value to integer');
    const v = n / NANO;
    if (v > 9223372036854775807n || v < -9223372036854775808n) throw new Error('cannot convert value to integer');
    return v;
  }),
  celMethod('asApproximateFloat', MAP, [], DOUBLE, function () {
    return Number(nanosOf(this)) / 1e9;
  }),
  ...(['add', 'sub'] as const).map((name) =>
    celMethod(name, MAP, [DYN], MAP, function (x: CelValue) {
      const other = typeof x === 'bigint' ? x * NANO : nanosOf(x as CelMap);
      return quantity(name === 'add' ? nanosOf(this) + other : nanosOf(this) - other);
    }),
  ),
  celMethod('isGreaterThan', MAP, [MAP], BOOL, function (o) {
    return compareTagged(this, o) > 0;
  }),
  celMethod('isLessThan', MAP, [MAP], BOOL, function (o) {
    return compareTagged(this, o) < 0;
  }),
  celMethod('compareTo', MAP, [MAP], INT, function (o) {
    return BigInt(compareTagged(this, o));
  }),
  // semver
  celFunc('semver', [STRING], MAP, (s) => ({ [SV]: parseSemver(s, false) })),
  celFunc('semver', [STRING, BOOL], MAP, (s, n) => ({ [SV]: parseSemver(s, n) })),
  celFunc('isSemver', [STRING], BOOL, (s) => {
    try {
      parseSemver(s, false);
      return true;
    } catch {
      return false;
    }
  }),
  celFunc('isSemver', [STRING, BOOL], BOOL, (s, n) => {
    try {
      parseSemver(s, n);
      return true;
    } catch {
      return false;
    }
  }),
  ...(['major', 'minor', 'patch'] as const).map((name, i) =>
    celMethod(name, MAP, [], INT, function () {
      return BigInt(expect(this, SV).split(/[.-]/)[i]);
    }),
  ),
  // url
  celFunc('url', [STRING], MAP, (s) => ({ [U]: parseURL(s).href })),
  celFunc('isURL', [STRING], BOOL, (s) => {
    try {
      parseURL(s);
      return true;
    } catch {
      return false;
    }
  }),
  celMethod('getScheme', MAP, [], STRING, function () {
    const u = urlOf(this);
    return isRelative(u) ? '' : u.protocol.slice(0, -1);
  }),
  celMethod('getHost', MAP, [], STRING, function () {
    const u = urlOf(this);
    return isRelative(u) ? '' : u.host;
  }),
  celMethod('getHostname', MAP, [], STRING, function () {
    const u = urlOf(this);
    return isRelative(u) ? '' : u.hostname.replace(/^\[(.*)\]$/, '$1');
  }),
  celMethod('getPort', MAP, [], STRING, function () {
    const u = urlOf(this);
    return isRelative(u) ? '' : u.port;
  }),
  celMethod('getEscapedPath', MAP, [], STRING, function () {
    return urlOf(this).pathname;
  }),
  celMethod('getQuery', MAP, [], MAP, function () {
    const out: Record<string, string[]> = {};
    for (const [k, v] of urlOf(this).searchParams) (out[k] ??= []).push(v);
    return out;
  }),
  // ip
  celFunc('ip', [STRING], MAP, (s) => ipValue(s)),
  celFunc('isIP', [STRING], BOOL, (s) => {
    try {
      canonicalIP(s);
      return true;
    } catch {
      return false;
    }
  }),
  celFunc('ip.isCanonical', [STRING], BOOL, (s) => canonicalIP(s).text === s),
  celFunc('string', [MAP], STRING, (m) => {
    const k = tag(m);
    if (k === IPK || k === CIDRK) return str(m, k);
    throw new Error('no such overload');
  }),
  celMethod('family', MAP, [], INT, function () {
    expect(this, IPK);
    return this.get('family') as bigint;
  }),
  ...(
    [
      ['isUnspecified', (v: bigint, f: number) => v === 0n && f > 0],
      ['isLoopback', (v: bigint, f: number) => (f === 4 ? v >> 24n === 127n : v === 1n)],
      ['isLinkLocalMulticast', (v: bigint, f: number) => (f === 4 ? v >> 8n === 0xe00000n : v >> 112n === 0xff02n)],
      ['isLinkLocalUnicast', (v: bigint, f: number) => (f === 4 ? v >> 16n === 0xa9fen : v >> 118n === 0x3fan)],
      ['isGlobalUnicast', (v: bigint, f: number) => (f === 4 ? v !== 0xffffffffn && v !== 0n && v >> 24n !== 127n && v >> 16n !== 0xa9fen && v >> 28n !== 0xen : v !== 0n && v !== 1n && v >> 118n !== 0x3fan && v >> 120n !== 0xffn)],
    ] as const
  ).map(([name, test]) =>
    celMethod(name, MAP, [], BOOL, function () {
      const text = expect(this, IPK);
      const f = Number(this.get('family'));
      return test(ipBits(text, f as 4 | 6), f);
    }),
  ),
  // cidr
  celFunc('cidr', [STRING], MAP, (s) => cidrValue(s)),
  celFunc('isCIDR', [STRING], BOOL, (s) => {
    try {
      parseCIDR(s);
      return true;
    } catch {
      return false;
    }
  }),
  celMethod('containsIP', MAP, [DYN], BOOL, function (x: CelValue) {
    const ip = typeof x === 'string' ? canonicalIP(x).text : expect(x as CelMap, IPK);
    return contains(expect(this, CIDRK), ip);
  }),
  celMethod('containsCIDR', MAP, [DYN], BOOL, function (x: CelValue) {
    const other = typeof x === 'string' ? parseCIDR(x) : parseCIDR(expect(x as CelMap, CIDRK));
    return contains(expect(this, CIDRK), other.ip, other.len);
  }),
  celMethod('ip', MAP, [], MAP, function () {
    return ipValue(parseCIDR(expect(this, CIDRK)).ip);
  }),
  celMethod('prefixLength', MAP, [], INT, function () {
    return BigInt(parseCIDR(expect(this, CIDRK)).len);
  }),
  celMethod('masked', MAP, [], MAP, function () {
    const p = parseCIDR(expect(this, CIDRK));
    const width = BigInt(p.family === 4 ? 32 : 128);
    const shift = width - BigInt(p.len);
    return { [CIDRK]: `${bitsToIP((ipBits(p.ip, p.family) >> shift) << shift, p.family)}/${p.len}` };
  }),
  // optionals
  celFunc('optional.of', [DYN], MAP, (v: CelValue) => optional(v)),
  celFunc('optional.none', [], MAP, () => optional()),
  celFunc('optional.ofNonZeroValue', [DYN], MAP, (v: CelValue) => {
    const zero = v === null || v === false || v === 0n || v === 0 || v === '' || (typeof v === 'object' && 'size' in v && (v as { size: number }).size === 0);
    return optional(zero ? undefined : v);
  }),
  // format
  ...Object.keys(FORMATS).map((name) => celFunc(`format.${name}`, [], MAP, () => ({ [FMT]: name }))),
  celFunc('format.named', [STRING], MAP, (name) => optional(FORMATS[name] ? { [FMT]: name } : undefined)),
  celMethod('validate', MAP, [STRING], MAP, function (s) {
    const errs = FORMATS[expect(this, FMT)](s);
    return optional(errs.length ? errs : undefined);
  }),
];
