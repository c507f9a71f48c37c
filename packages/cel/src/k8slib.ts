/**
 * Evaluation of the Kubernetes CEL libraries that have their own value types (quantity, url,
 * ip, cidr, semver, format), after k8s.io/apiserver/pkg/cel/library. @bufbuild/cel has no
 * opaque values, so each value is a map with one marker key (`@kubeforge.Quantity` ...) and its
 * canonical form: two quantities of the same amount are equal maps, as they are equal in CEL.
 * The checker (./library.ts) gives them their own types, so a rule cannot treat them as maps.
 */
import {
  celFunc,
  celMethod,
  CelScalar,
  celType,
  isCelMap,
  mapType,
  objectType,
  type CelFunc,
  type CelMap,
  type CelType,
  type CelValue,
} from '@bufbuild/cel';
import {
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
} from './apimachinery.js';

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

const TYPE_NAMES: Record<string, string> = {
  [Q]: 'kubernetes.Quantity',
  [U]: 'kubernetes.URL',
  [IPK]: 'net.IP',
  [CIDRK]: 'net.CIDR',
  [SV]: 'kubernetes.Semver',
  [FMT]: 'kubernetes.NamedFormat',
  [OPTIONAL_KEY]: 'optional_type',
};

/** `type(v)`: the Kubernetes types and optionals by their CEL names, the rest as @bufbuild/cel types them. */
export function typeOfTagged(v: CelValue): CelType {
  const k = isCelMap(v) ? tag(v) : undefined;
  return k ? objectType(TYPE_NAMES[k]) : celType(v);
}

/** An optional (none when `value` is undefined), as a map the evaluator accepts. */
export const optional = (value?: unknown): Record<string, never> =>
  (value === undefined ? { [OPTIONAL_KEY]: true } : { [OPTIONAL_KEY]: true, value }) as unknown as Record<
    string,
    never
  >;

// ---- quantity: amounts as BigInt nano-units (k8s Quantities carry at most nano precision in practice) ----
/** apimachinery's first check of a quantity (ParseQuantity), and its message. */
const QUANTITY_SHAPE = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/;
const QUANTITY_SHAPE_MESSAGE =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const QUANTITY = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(Ki|Mi|Gi|Ti|Pi|Ei|[eE][+-]?\d+|n|u|m|k|M|G|T|P|E)?$/;
const BIN: Record<string, bigint> = {
  Ki: 1n << 10n,
  Mi: 1n << 20n,
  Gi: 1n << 30n,
  Ti: 1n << 40n,
  Pi: 1n << 50n,
  Ei: 1n << 60n,
};
const DEC: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

function parseQuantity(s: string): bigint {
  if (!QUANTITY_SHAPE.test(s)) throw new Error(QUANTITY_SHAPE_MESSAGE);
  const m = QUANTITY.exec(s);
  if (!m)
    throw new Error(/^[+-]?(\d+(\.\d*)?|\.\d+)/.test(s) ? "unable to parse quantity's suffix" : QUANTITY_SHAPE_MESSAGE);
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
const isQuantity = (s: string) => {
  try {
    parseQuantity(s);
    return true;
  } catch {
    return false;
  }
};
const quantity = (nanos: bigint) => ({ [Q]: nanos.toString() });
const nanosOf = (m: CelMap) => BigInt(expect(m, Q));
const NANO = 1_000_000_000n;

// ---- semver (github.com/blang/semver/v4's Parse, and the library's normalisation) ----
const NUMBERS = /^[0-9]*$/;
const ALPHANUM = /^[0-9A-Za-z-]*$/;
const leadingZero = (s: string) => s.length > 1 && s[0] === '0';

/** The version (major.minor.patch[-pre][+build]) or blang/semver's error. */
function parseSemver(s: string, normalize: boolean): string {
  let v = s;
  if (normalize) {
    v = v.replace(/^v/, '');
    const parts = splitN(v, '.', 3);
    for (let i = 0; i < parts.length; i++) {
      let p = parts[i];
      if (p.length > 1) {
        p = p.replace(/^0+/, '');
        if (!p.length || !/^[0-9]/.test(p)) p = `0${p}`;
        parts[i] = p;
      }
    }
    if (parts.length < 3) {
      if (/[+-]/.test(parts[parts.length - 1]))
        throw new Error('short version cannot contain PreRelease/Build meta data');
      while (parts.length < 3) parts.push('0');
    }
    v = parts.join('.');
  }
  if (!v.length) throw new Error('Version string empty');
  const parts = splitN(v, '.', 3);
  if (parts.length !== 3) throw new Error('No Major.Minor.Patch elements found');
  const [major, minor] = parts;
  let patch = parts[2];
  for (const [name, n] of [
    ['major', major],
    ['minor', minor],
  ] as const) {
    if (!NUMBERS.test(n)) throw new Error(`Invalid character(s) found in ${name} number "${n}"`);
    if (leadingZero(n))
      throw new Error(`${name[0].toUpperCase()}${name.slice(1)} number must not contain leading zeroes "${n}"`);
    if (!n.length) throw new Error('strconv.ParseUint: parsing "": invalid syntax');
  }
  let build: string[] = [];
  let pre: string[] = [];
  const b = patch.indexOf('+');
  if (b >= 0) {
    build = patch.slice(b + 1).split('.');
    patch = patch.slice(0, b);
  }
  const p = patch.indexOf('-');
  if (p >= 0) {
    pre = patch.slice(p + 1).split('.');
    patch = patch.slice(0, p);
  }
  if (!NUMBERS.test(patch)) throw new Error(`Invalid character(s) found in patch number "${patch}"`);
  if (leadingZero(patch)) throw new Error(`Patch number must not contain leading zeroes "${patch}"`);
  if (!patch.length) throw new Error('strconv.ParseUint: parsing "": invalid syntax');
  for (const x of pre) {
    if (!x.length) throw new Error('Prerelease is empty');
    if (NUMBERS.test(x) && leadingZero(x))
      throw new Error(`Numeric PreRelease version must not contain leading zeroes "${x}"`);
    if (!ALPHANUM.test(x)) throw new Error(`Invalid character(s) found in prerelease "${x}"`);
  }
  for (const x of build) {
    if (!x.length) throw new Error('Build meta data is empty');
    if (!ALPHANUM.test(x)) throw new Error(`Invalid character(s) found in build meta data "${x}"`);
  }
  return `${BigInt(major)}.${BigInt(minor)}.${BigInt(patch)}${pre.length ? `-${pre.join('.')}` : ''}`;
}

/** Go's strings.SplitN for a non-empty separator. */
function splitN(s: string, sep: string, n: number): string[] {
  const out: string[] = [];
  let rest = s;
  while (out.length < n - 1) {
    const i = rest.indexOf(sep);
    if (i < 0) break;
    out.push(rest.slice(0, i));
    rest = rest.slice(i + sep.length);
  }
  out.push(rest);
  return out;
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

// ---- url: Go's net/url.ParseRequestURI and the URL getters ----
interface GoURL {
  scheme: string;
  opaque: string;
  host: string;
  /** The path as written (still escaped). */
  rawPath: string;
  rawQuery: string;
}

const urlError = (s: string, msg: string) =>
  new Error(`URL parse error during conversion from string: parse ${JSON.stringify(s)}: ${msg}`);

/** An absolute URI or an absolute path, as Go's url.ParseRequestURI reads it (no fragment: a `#` is part of the text). */
function parseURL(s: string): GoURL {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point (Go's url.Parse refuses them)
  if (/[\x00-\x1f\x7f]/.test(s)) throw urlError(s, 'net/url: invalid control character in URL');
  if (s === '') throw urlError(s, 'empty url');
  const u: GoURL = { scheme: '', opaque: '', host: '', rawPath: '', rawQuery: '' };
  if (s === '*') return { ...u, rawPath: '*' };
  let rest = s;
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(s);
  if (s.startsWith(':')) throw urlError(s, 'missing protocol scheme');
  if (m) {
    u.scheme = m[1].toLowerCase();
    rest = s.slice(m[0].length);
  }
  if (rest.endsWith('?') && rest.split('?').length === 2) rest = rest.slice(0, -1);
  else {
    const q = rest.indexOf('?');
    if (q >= 0) {
      u.rawQuery = rest.slice(q + 1);
      rest = rest.slice(0, q);
    }
  }
  if (!rest.startsWith('/')) {
    if (u.scheme) return { ...u, opaque: rest };
    throw urlError(s, 'invalid URI for request');
  }
  if (u.scheme && rest.startsWith('//')) {
    let authority = rest.slice(2);
    rest = '';
    const slash = authority.indexOf('/');
    if (slash >= 0) {
      rest = authority.slice(slash);
      authority = authority.slice(0, slash);
    }
    const at = authority.lastIndexOf('@');
    const host = at >= 0 ? authority.slice(at + 1) : authority;
    const port = host.startsWith('[')
      ? host.slice(host.indexOf(']') + 1)
      : host.slice(host.lastIndexOf(':') >= 0 ? host.lastIndexOf(':') : host.length);
    if (port && !/^:[0-9]*$/.test(port)) throw urlError(s, `invalid port ${JSON.stringify(port)} after host`);
    u.host = host;
  }
  if (/%(?![0-9A-Fa-f]{2})/.test(rest))
    throw urlError(
      s,
      // the test above found that % (the match is never empty)
      `invalid URL escape ${JSON.stringify(/%.{0,2}/.exec(rest.slice(rest.search(/%(?![0-9A-Fa-f]{2})/)))?.[0] ?? '%')}`,
    );
  u.rawPath = rest;
  return u;
}
/** The parts url() gives: Go's url.Parse, which cuts the fragment first (ParseRequestURI only checked the text). */
const urlOf = (m: CelMap) => parseURL(expect(m, U).split('#')[0]);
const hostname = (host: string) =>
  host.startsWith('[')
    ? host.slice(1, host.indexOf(']'))
    : host.includes(':')
      ? host.slice(0, host.lastIndexOf(':'))
      : host;
const port = (host: string) => {
  const h = host.startsWith('[')
    ? host.slice(host.indexOf(']') + 1)
    : host.includes(':')
      ? host.slice(host.lastIndexOf(':'))
      : '';
  return h.startsWith(':') ? h.slice(1) : '';
};
/** Go's URL.EscapedPath: the path as written when that is a valid escaping of it, else escaped. */
function escapedPath(rawPath: string): string {
  if (/^[A-Za-z0-9\-._~!$&'()*+,;=:@/%]*$/.test(rawPath)) return rawPath;
  return decodeURIComponentSafe(rawPath).replace(/[^A-Za-z0-9\-._~!$&'()*+,;=:@/]/gu, (c) => encodeURIComponent(c));
}
function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
/** Go's url.ParseQuery: `+` is a space, keys and values unescaped, in order of appearance. */
function parseQuery(q: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const part of q.split('&')) {
    if (!part) continue;
    const eq = part.indexOf('=');
    const [k, v] = eq >= 0 ? [part.slice(0, eq), part.slice(eq + 1)] : [part, ''];
    const un = (x: string) => decodeURIComponentSafe(x.replace(/\+/g, ' '));
    const key = un(k);
    out[key] ??= [];
    out[key].push(un(v));
  }
  return out;
}

// ---- ip and cidr: Go's net/netip parsing, with its error messages ----
const quoteGo = (x: string) => JSON.stringify(x);

class ParseAddrError extends Error {
  constructor(input: string, msg: string, at?: string) {
    super(`ParseAddr(${quoteGo(input)}): ${msg}${at ? ` (at ${quoteGo(at)})` : ''}`);
  }
}

/** The four octets of an IPv4 address written in `input[off:end]` (netip's parseIPv4Fields). */
function ipv4Fields(input: string, off: number, end: number): number[] {
  const s = input.slice(off, end);
  const fields: number[] = [];
  let val = 0;
  let digits = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c >= '0' && c <= '9') {
      if (digits === 1 && val === 0) throw new ParseAddrError(input, 'IPv4 field has octet with leading zero');
      val = val * 10 + Number(c);
      digits++;
      if (val > 255) throw new ParseAddrError(input, 'IPv4 field has value >255');
    } else if (c === '.') {
      if (i === 0 || i === s.length - 1 || s[i - 1] === '.')
        throw new ParseAddrError(input, 'IPv4 field must have at least one digit', s.slice(i));
      if (fields.length === 3) throw new ParseAddrError(input, 'IPv4 address too long');
      fields.push(val);
      val = 0;
      digits = 0;
    } else throw new ParseAddrError(input, 'unexpected character', s.slice(i));
  }
  if (fields.length < 3) throw new ParseAddrError(input, 'IPv4 address too short');
  fields.push(val);
  return fields;
}

interface Addr {
  family: 4 | 6;
  /** 4 or 16 bytes */
  bytes: number[];
  zone: string;
}

/** Go's netip.ParseAddr. */
function parseAddr(input: string): Addr {
  for (const c of input) {
    if (c === '.') return { family: 4, bytes: ipv4Fields(input, 0, input.length), zone: '' };
    if (c === ':') return parseIPv6(input);
    if (c === '%') throw new ParseAddrError(input, 'missing IPv6 address');
  }
  throw new ParseAddrError(input, 'unable to parse IP');
}

function parseIPv6(input: string): Addr {
  let s = input;
  let zone = '';
  const z = s.indexOf('%');
  if (z >= 0) {
    zone = s.slice(z + 1);
    s = s.slice(0, z);
    if (!zone) throw new ParseAddrError(input, 'zone must be a non-empty string');
  }
  const ip = new Array<number>(16).fill(0);
  let ellipsis = -1;
  if (s.length >= 2 && s[0] === ':' && s[1] === ':') {
    ellipsis = 0;
    s = s.slice(2);
    if (!s.length) return { family: 6, bytes: ip, zone };
  }
  let i = 0;
  while (i < 16) {
    let off = 0;
    let acc = 0;
    for (; off < s.length; off++) {
      const h = parseInt(s[off], 16);
      if (Number.isNaN(h)) break;
      acc = acc * 16 + h;
      if (off > 3) throw new ParseAddrError(input, 'each group must have 4 or less digits', s);
      if (acc > 0xffff) throw new ParseAddrError(input, 'IPv6 field has value >=2^16', s);
    }
    if (off === 0) throw new ParseAddrError(input, 'each colon-separated field must have at least one digit', s);
    if (off < s.length && s[off] === '.') {
      if (ellipsis < 0 && i !== 12)
        throw new ParseAddrError(input, 'embedded IPv4 address must replace the final 2 fields of the address', s);
      if (i + 4 > 16)
        throw new ParseAddrError(input, 'too many hex fields to fit an embedded IPv4 at the end of the address', s);
      const end = input.length - (zone ? zone.length + 1 : 0);
      for (const [j, b] of ipv4Fields(input, end - s.length, end).entries()) ip[i + j] = b;
      s = '';
      i += 4;
      break;
    }
    ip[i] = acc >> 8;
    ip[i + 1] = acc & 0xff;
    i += 2;
    s = s.slice(off);
    if (!s.length) break;
    if (s[0] !== ':') throw new ParseAddrError(input, 'unexpected character, want colon', s);
    if (s.length === 1) throw new ParseAddrError(input, 'colon must be followed by more characters', s);
    s = s.slice(1);
    if (s[0] === ':') {
      if (ellipsis >= 0) throw new ParseAddrError(input, 'multiple :: in address', s);
      ellipsis = i;
      s = s.slice(1);
      if (!s.length) break;
    }
  }
  if (s.length) throw new ParseAddrError(input, 'trailing garbage after address', s);
  if (i < 16) {
    if (ellipsis < 0) throw new ParseAddrError(input, 'address string too short');
    const n = 16 - i;
    for (let j = i - 1; j >= ellipsis; j--) ip[j + n] = ip[j];
    for (let j = ellipsis; j < ellipsis + n; j++) ip[j] = 0;
  } else if (ellipsis >= 0) throw new ParseAddrError(input, 'the :: must expand to at least one field of zeros');
  return { family: 6, bytes: ip, zone };
}

const isV4Mapped = (a: Addr) =>
  a.family === 6 && a.bytes.slice(0, 10).every((b) => b === 0) && a.bytes[10] === 0xff && a.bytes[11] === 0xff;

/** Go's Addr.String(): dotted quad, or RFC 5952 (the longest run of zero groups as ::, lower case, ::ffff:a.b.c.d). */
function addrString(a: Addr): string {
  if (a.family === 4) return a.bytes.join('.');
  if (isV4Mapped(a)) return `::ffff:${a.bytes.slice(12).join('.')}`;
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((a.bytes[i] << 8) | a.bytes[i + 1]);
  let best = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = (g: number[]) => g.map((x) => x.toString(16)).join(':');
  const text = best < 0 ? hex(groups) : `${hex(groups.slice(0, best))}::${hex(groups.slice(best + bestLen))}`;
  return a.zone ? `${text}%${a.zone}` : text;
}

/** The library's ip(): netip's parse, without zones or IPv4-mapped IPv6 addresses. */
function parseIP(s: string): Addr {
  let a: Addr;
  try {
    a = parseAddr(s);
  } catch (e) {
    throw new Error(`IP Address ${quoteGo(s)} parse error during conversion from string: ${(e as Error).message}`);
  }
  if (a.zone) throw new Error(`IP address ${quoteGo(s)} with zone value is not allowed`);
  if (isV4Mapped(a)) throw new Error(`IPv4-mapped IPv6 address ${quoteGo(s)} is not allowed`);
  return a;
}
const canonicalIP = (s: string) => {
  const a = parseIP(s);
  return { family: a.family, text: addrString(a) };
};

const bitsOf = (a: Addr) => a.bytes.reduce((acc, b) => (acc << 8n) | BigInt(b), 0n);
function fromBits(v: bigint, family: 4 | 6): Addr {
  const n = family === 4 ? 4 : 16;
  const bytes: number[] = [];
  for (let i = n - 1; i >= 0; i--) bytes.push(Number((v >> BigInt(i * 8)) & 255n));
  return { family, bytes, zone: '' };
}
function ipBits(text: string): bigint {
  return bitsOf(parseAddr(text));
}
const ipValue = (s: string) => {
  const c = canonicalIP(s);
  return { [IPK]: c.text, family: BigInt(c.family) };
};

/** Go's netip.ParsePrefix, and the library's refusals. */
function parseCIDR(s: string): { ip: string; family: 4 | 6; len: number } {
  const fail = (msg: string) =>
    new Error(`network address parse error during conversion from string: netip.ParsePrefix(${quoteGo(s)}): ${msg}`);
  const i = s.lastIndexOf('/');
  if (i < 0) throw fail("no '/'");
  let a: Addr;
  try {
    a = parseAddr(s.slice(0, i));
  } catch (e) {
    throw fail((e as Error).message);
  }
  if (a.family === 6 && a.zone) throw fail('IPv6 zones cannot be present in a prefix');
  const bits = s.slice(i + 1);
  if ((bits.length > 1 && (bits[0] < '1' || bits[0] > '9')) || !/^[0-9]+$/.test(bits))
    throw fail(`bad bits after slash: ${quoteGo(bits)}`);
  const len = Number(bits);
  if (len > (a.family === 4 ? 32 : 128)) throw fail('prefix length out of range');
  if (isV4Mapped(a)) throw new Error(`IPv4-mapped IPv6 address ${quoteGo(s)} is not allowed`);
  return { ip: addrString(a), family: a.family, len };
}
const cidrValue = (s: string) => {
  let p: ReturnType<typeof parseCIDR>;
  try {
    p = parseCIDR(s);
  } catch (e) {
    throw new Error(`network address parse error during conversion from string: ${(e as Error).message}`);
  }
  return { [CIDRK]: `${p.ip}/${p.len}` };
};
function contains(prefix: string, ip: string, ipLen?: number): boolean {
  const p = parseCIDR(prefix);
  const c = parseAddr(ip);
  if (c.family !== p.family) return false;
  if (ipLen !== undefined && ipLen < p.len) return false;
  const width = BigInt(p.family === 4 ? 32 : 128);
  const shift = width - BigInt(p.len);
  return bitsOf(c) >> shift === ipBits(p.ip) >> shift;
}
function bitsToIP(v: bigint, family: 4 | 6): string {
  return addrString(fromBits(v, family));
}

// ---- format: apimachinery's validators and their messages (one implementation: src/util/apimachinery) ----
const dns1123Label = isDNS1123Label;
const dns1123Subdomain = isDNS1123Subdomain;
const dns1035Label = isDNS1035Label;
const qualifiedName = isQualifiedName;
const labelValue = isValidLabelValue;
/** apimachinery's maskTrailingDash (a generateName may end with '-'): it drops the last two characters. */
const maskTrailingDash = (s: string) => (s.length > 1 && s.endsWith('-') ? `${s.slice(0, -2)}a` : s);

const FORMATS: Record<string, (s: string) => string[]> = {
  dns1123Label,
  dns1123Subdomain: (s) => dns1123Subdomain(s),
  dns1035Label,
  qualifiedName,
  dns1123LabelPrefix: (s) => dns1123Label(maskTrailingDash(s)),
  dns1123SubdomainPrefix: (s) => dns1123Subdomain(maskTrailingDash(s)),
  dns1035LabelPrefix: (s) => dns1035Label(maskTrailingDash(s)),
  labelValue,
  uri: (s) => {
    try {
      parseURL(s);
      return [];
    } catch (e) {
      return [(e as Error).message.replace(/^URL parse error during conversion from string: /, '')];
    }
  },
  uuid: (s) =>
    /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(s)
      ? []
      : ['does not match the UUID format'],
  byte: (s) => (/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(s) ? [] : ['invalid base64']),
  date: (s) => (/^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(s)) ? [] : ['invalid date']),
  datetime: (s) =>
    /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(s) && !Number.isNaN(Date.parse(s))
      ? []
      : ['invalid datetime'],
};

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

/** The implementations, added to the evaluator's environment (packages/cel/src/eval.ts). */
export const K8S_TYPED_FUNCS: CelFunc[] = [
  // quantity
  celFunc('quantity', [STRING], MAP, (s) => quantity(parseQuantity(s))),
  celFunc('isQuantity', [STRING], BOOL, isQuantity),
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
  celFunc('url', [STRING], MAP, (s) => {
    parseURL(s);
    return { [U]: s };
  }),
  celFunc('isURL', [STRING], BOOL, (s) => {
    try {
      parseURL(s);
      return true;
    } catch {
      return false;
    }
  }),
  celMethod('getScheme', MAP, [], STRING, function () {
    return urlOf(this).scheme;
  }),
  celMethod('getHost', MAP, [], STRING, function () {
    return urlOf(this).host;
  }),
  celMethod('getHostname', MAP, [], STRING, function () {
    return hostname(urlOf(this).host);
  }),
  celMethod('getPort', MAP, [], STRING, function () {
    return port(urlOf(this).host);
  }),
  celMethod('getEscapedPath', MAP, [], STRING, function () {
    return escapedPath(urlOf(this).rawPath);
  }),
  celMethod('getQuery', MAP, [], MAP, function () {
    return parseQuery(urlOf(this).rawQuery);
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
      [
        'isGlobalUnicast',
        (v: bigint, f: number) =>
          f === 4
            ? v !== 0xffffffffn && v !== 0n && v >> 24n !== 127n && v >> 16n !== 0xa9fen && v >> 28n !== 0xen
            : v !== 0n && v !== 1n && v >> 118n !== 0x3fan && v >> 120n !== 0xffn,
      ],
    ] as const
  ).map(([name, test]) =>
    celMethod(name, MAP, [], BOOL, function () {
      const text = expect(this, IPK);
      const f = Number(this.get('family'));
      return test(ipBits(text), f);
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
    return { [CIDRK]: `${bitsToIP((ipBits(p.ip) >> shift) << shift, p.family)}/${p.len}` };
  }),
  // optionals
  celFunc('optional.of', [DYN], MAP, (v: CelValue) => optional(v)),
  celFunc('optional.none', [], MAP, () => optional()),
  celFunc('optional.ofNonZeroValue', [DYN], MAP, (v: CelValue) => {
    const zero =
      v === null ||
      v === false ||
      v === 0n ||
      v === 0 ||
      v === '' ||
      (typeof v === 'object' && 'size' in v && (v as { size: number }).size === 0);
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
