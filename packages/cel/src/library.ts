/**
 * The functions a rule may call, as overload signatures for the checker: CEL's standard
 * definitions plus the libraries the Kubernetes API server adds to validation rules
 * (k8s.io/apiserver/pkg/cel/library: strings ext, lists, regex, url, quantity, ip, cidr, semver,
 * format). Each entry also carries the cost class the estimator uses.
 */
import { T, type CelT } from './types.js';

export interface Overload {
  name: string;
  /** Receiver type for method-style calls (`x.f()`), undefined for global functions. */
  target?: CelT;
  args: CelT[];
  result: CelT;
  /**
   * Cost class: 'const' (1), 'linear' in the receiver's / first argument's size (string scan,
   * list walk), 'regex' (RE2: size of the string times the size of the pattern).
   */
  cost?: 'const' | 'linear' | 'regex';
  /**
   * The first Kubernetes minor whose API server takes the function in a new rule (see
   * {@link CEL_VERSIONS}); undefined: every version that has CEL.
   */
  since?: number;
}

/**
 * When the CEL libraries reach CRD rules (k8s.io/apiserver pkg/cel/environment base.go). A
 * library enters the environment at some minor, but a server validates a new or changed rule
 * with the environment of the version before its own (its minimum compatibility version, kept so
 * that a rollback by one minor still reads every stored rule): a function introduced in 1.34 is
 * accepted in new CRD rules from 1.35 on. Keys are the minor from which a new rule may use it.
 */
export const CEL_VERSIONS: readonly { since: number; what: string }[] = [
  { since: 29, what: "optional types and CEL's optional syntax, quantity, cross-type numeric comparisons" },
  { since: 30, what: 'the strings extension version 2 and sets' },
  { since: 31, what: 'ip and cidr' },
  { since: 32, what: 'format' },
  { since: 33, what: 'two-variable comprehensions' },
  { since: 34, what: 'semver' },
  {
    since: 35,
    what: 'the lists extension version 3 (slice, flatten, distinct, reverse, sort, sortBy, lists.range, first, last)',
  },
  { since: 38, what: 'the Kubernetes lists library version 1 (includes)' },
];
/** The oldest target the table above describes completely (the strings extension before version 2 is not modelled). */
export const OLDEST_CEL_TARGET = 30;
/** The minor a check targets when the project says nothing: the newest the test control plane runs. */
export const NEWEST_CEL_TARGET = 37;

/** Which `since` the overloads registered next get. */
let since: number | undefined;

/** Parses a signature type: `int`, `list(A)`, `map(K, V)`, `A` (a type parameter), `Quantity`. */
function ty(src: string): CelT {
  let i = 0;
  const parse = (): CelT => {
    const m = /^\s*([A-Za-z_.]+)/.exec(src.slice(i));
    if (!m) throw new Error(`bad signature type ${src}`);
    i += m[0].length;
    const name = m[1];
    const params: CelT[] = [];
    if (src[i] === '(') {
      i++;
      params.push(parse());
      while (src[i] === ',') {
        i++;
        params.push(parse());
      }
      i++; // ')'
    }
    if (name === 'list') return T.list(params[0]);
    if (name === 'map') return T.map(params[0], params[1]);
    if (/^[A-Z]$/.test(name)) return { kind: 'param', name };
    if (
      ['int', 'uint', 'double', 'bool', 'null', 'dyn', 'string', 'bytes', 'timestamp', 'duration', 'type'].includes(
        name,
      )
    )
      return { kind: name } as CelT;
    return T.opaque(name, params.length ? params : undefined);
  };
  return parse();
}

const all: Overload[] = [];
/** `fn('size', 'list(A)', 'int')`: a global function; the last type is the result. */
function fn(name: string, ...types: string[]): void {
  all.push({ name, args: types.slice(0, -1).map(ty), result: ty(types[types.length - 1]), since });
}
/** `method('contains', 'string', ['string'], 'bool', 'linear')`. */
function method(name: string, target: string, args: string[], result: string, cost: Overload['cost'] = 'const'): void {
  all.push({ name, target: ty(target), args: args.map(ty), result: ty(result), cost, since });
}

// ---- standard definitions (cel-spec langdef) ----
for (const t of ['int', 'uint', 'double']) {
  for (const op of ['_+_', '_-_', '_*_', '_/_']) fn(op, t, t, t);
}
fn('_%_', 'int', 'int', 'int');
fn('_%_', 'uint', 'uint', 'uint');
fn('-_', 'int', 'int');
fn('-_', 'double', 'double');
fn('_+_', 'string', 'string', 'string');
fn('_+_', 'bytes', 'bytes', 'bytes');
fn('_+_', 'list(A)', 'list(A)', 'list(A)');
fn('_+_', 'timestamp', 'duration', 'timestamp');
fn('_+_', 'duration', 'timestamp', 'timestamp');
fn('_+_', 'duration', 'duration', 'duration');
fn('_-_', 'timestamp', 'timestamp', 'duration');
fn('_-_', 'timestamp', 'duration', 'timestamp');
fn('_-_', 'duration', 'duration', 'duration');
const ordered = ['int', 'uint', 'double', 'string', 'bytes', 'bool', 'timestamp', 'duration'];
for (const op of ['_<_', '_<=_', '_>_', '_>=_']) {
  for (const t of ordered) fn(op, t, t, 'bool');
  // cross-type numeric comparisons (enabled on the API server)
  for (const [a, b] of [
    ['int', 'uint'],
    ['int', 'double'],
    ['uint', 'int'],
    ['uint', 'double'],
    ['double', 'int'],
    ['double', 'uint'],
  ])
    fn(op, a, b, 'bool');
}
fn('_==_', 'A', 'A', 'bool');
fn('_!=_', 'A', 'A', 'bool');
fn('!_', 'bool', 'bool');
fn('_&&_', 'bool', 'bool', 'bool');
fn('_||_', 'bool', 'bool', 'bool');
fn('_?_:_', 'bool', 'A', 'A', 'A');
fn('@not_strictly_false', 'bool', 'bool');
fn('@in', 'A', 'list(A)', 'bool');
fn('@in', 'A', 'map(A, B)', 'bool');
fn('_[_]', 'list(A)', 'int', 'A');
fn('_[_]', 'map(K, V)', 'K', 'V');
for (const t of ['string', 'bytes', 'list(A)', 'map(K, V)']) {
  fn('size', t, 'int');
  method('size', t, [], 'int');
}
method('contains', 'string', ['string'], 'bool', 'linear');
method('startsWith', 'string', ['string'], 'bool');
method('endsWith', 'string', ['string'], 'bool');
method('matches', 'string', ['string'], 'bool', 'regex');
fn('matches', 'string', 'string', 'bool');
for (const t of ['int', 'uint', 'double', 'string', 'timestamp']) fn('int', t, 'int');
for (const t of ['int', 'uint', 'double', 'string']) fn('uint', t, 'uint');
for (const t of ['int', 'uint', 'double', 'string']) fn('double', t, 'double');
for (const t of ['int', 'uint', 'double', 'bool', 'bytes', 'string', 'timestamp', 'duration'])
  fn('string', t, 'string');
fn('bytes', 'string', 'bytes');
fn('bytes', 'bytes', 'bytes');
fn('bool', 'bool', 'bool');
fn('bool', 'string', 'bool');
fn('timestamp', 'string', 'timestamp');
fn('timestamp', 'int', 'timestamp');
fn('timestamp', 'timestamp', 'timestamp');
fn('duration', 'string', 'duration');
fn('duration', 'duration', 'duration');
fn('dyn', 'A', 'dyn');
fn('type', 'A', 'type');
for (const m of [
  'getFullYear',
  'getMonth',
  'getDate',
  'getDayOfMonth',
  'getDayOfWeek',
  'getDayOfYear',
  'getHours',
  'getMinutes',
  'getSeconds',
  'getMilliseconds',
]) {
  method(m, 'timestamp', [], 'int');
  method(m, 'timestamp', ['string'], 'int');
}
for (const m of ['getHours', 'getMinutes', 'getSeconds', 'getMilliseconds']) method(m, 'duration', [], 'int');

// ---- strings ext (cel-go ext.Strings, version 2 as the API server uses) ----
method('charAt', 'string', ['int'], 'string');
method('indexOf', 'string', ['string'], 'int', 'linear');
method('indexOf', 'string', ['string', 'int'], 'int', 'linear');
method('lastIndexOf', 'string', ['string'], 'int', 'linear');
method('lastIndexOf', 'string', ['string', 'int'], 'int', 'linear');
method('lowerAscii', 'string', [], 'string', 'linear');
method('upperAscii', 'string', [], 'string', 'linear');
method('replace', 'string', ['string', 'string'], 'string', 'linear');
method('replace', 'string', ['string', 'string', 'int'], 'string', 'linear');
method('split', 'string', ['string'], 'list(string)', 'linear');
method('split', 'string', ['string', 'int'], 'list(string)', 'linear');
method('substring', 'string', ['int'], 'string', 'linear');
method('substring', 'string', ['int', 'int'], 'string', 'linear');
method('trim', 'string', [], 'string', 'linear');
method('join', 'list(string)', [], 'string', 'linear');
method('join', 'list(string)', ['string'], 'string', 'linear');
method('format', 'string', ['list(dyn)'], 'string', 'linear');
fn('strings.quote', 'string', 'string');

// ---- lists (library.Lists) ----
// sum() of the summable types, isSorted() / min() / max() of the comparable ones (lists.go's templated overloads)
for (const t of ['int', 'uint', 'double', 'duration']) method('sum', `list(${t})`, [], t, 'linear');
for (const t of ['int', 'uint', 'double', 'bool', 'duration', 'timestamp', 'string', 'bytes']) {
  method('isSorted', `list(${t})`, [], 'bool', 'linear');
  method('max', `list(${t})`, [], t, 'linear');
  method('min', `list(${t})`, [], t, 'linear');
}
method('indexOf', 'list(A)', ['A'], 'int', 'linear');
method('lastIndexOf', 'list(A)', ['A'], 'int', 'linear');

// ---- regex (library.Regex) ----
method('find', 'string', ['string'], 'string', 'regex');
method('findAll', 'string', ['string'], 'list(string)', 'regex');
method('findAll', 'string', ['string', 'int'], 'list(string)', 'regex');

// ---- url (library.URLs) ----
fn('url', 'string', 'kubernetes.URL');
fn('isURL', 'string', 'bool');
for (const m of ['getScheme', 'getHost', 'getHostname', 'getPort', 'getEscapedPath'])
  method(m, 'kubernetes.URL', [], 'string');
method('getQuery', 'kubernetes.URL', [], 'map(string, list(string))');

// ---- quantity (library.Quantity) ----
since = 29;
fn('quantity', 'string', 'kubernetes.Quantity');
fn('isQuantity', 'string', 'bool');
method('isInteger', 'kubernetes.Quantity', [], 'bool');
method('asInteger', 'kubernetes.Quantity', [], 'int');
method('asApproximateFloat', 'kubernetes.Quantity', [], 'double');
for (const m of ['add', 'sub']) {
  method(m, 'kubernetes.Quantity', ['kubernetes.Quantity'], 'kubernetes.Quantity');
  method(m, 'kubernetes.Quantity', ['int'], 'kubernetes.Quantity');
}
method('isGreaterThan', 'kubernetes.Quantity', ['kubernetes.Quantity'], 'bool');
method('isLessThan', 'kubernetes.Quantity', ['kubernetes.Quantity'], 'bool');
method('compareTo', 'kubernetes.Quantity', ['kubernetes.Quantity'], 'int');

// ---- ip and cidr (library.IP, library.CIDR) ----
since = 31;
fn('ip', 'string', 'net.IP');
fn('isIP', 'string', 'bool');
fn('ip.isCanonical', 'string', 'bool');
fn('string', 'net.IP', 'string');
method('family', 'net.IP', [], 'int');
for (const m of ['isUnspecified', 'isLoopback', 'isLinkLocalMulticast', 'isLinkLocalUnicast', 'isGlobalUnicast'])
  method(m, 'net.IP', [], 'bool');
fn('cidr', 'string', 'net.CIDR');
fn('isCIDR', 'string', 'bool');
fn('string', 'net.CIDR', 'string');
method('containsIP', 'net.CIDR', ['net.IP'], 'bool');
method('containsIP', 'net.CIDR', ['string'], 'bool');
method('containsCIDR', 'net.CIDR', ['net.CIDR'], 'bool');
method('containsCIDR', 'net.CIDR', ['string'], 'bool');
method('ip', 'net.CIDR', [], 'net.IP');
method('masked', 'net.CIDR', [], 'net.CIDR');
method('prefixLength', 'net.CIDR', [], 'int');

// ---- semver (library.SemverLib) ----
since = 34;
fn('semver', 'string', 'kubernetes.Semver');
fn('semver', 'string', 'bool', 'kubernetes.Semver');
fn('isSemver', 'string', 'bool');
fn('isSemver', 'string', 'bool', 'bool');
for (const m of ['major', 'minor', 'patch']) method(m, 'kubernetes.Semver', [], 'int');
method('isGreaterThan', 'kubernetes.Semver', ['kubernetes.Semver'], 'bool');
method('isLessThan', 'kubernetes.Semver', ['kubernetes.Semver'], 'bool');
method('compareTo', 'kubernetes.Semver', ['kubernetes.Semver'], 'int');

// ---- format (library.Format): format.named(name) and format.<name>() give an optional format ----
since = 32;
export const FORMAT_NAMES = [
  'dns1123Label',
  'dns1123Subdomain',
  'dns1035Label',
  'qualifiedName',
  'dns1123LabelPrefix',
  'dns1123SubdomainPrefix',
  'dns1035LabelPrefix',
  'labelValue',
  'uri',
  'uuid',
  'byte',
  'date',
  'datetime',
];
for (const n of FORMAT_NAMES) fn(`format.${n}`, 'kubernetes.NamedFormat');
fn('format.named', 'string', 'optional_type(kubernetes.NamedFormat)');
method('validate', 'kubernetes.NamedFormat', ['string'], 'optional_type(list(string))', 'linear');

/** Type names usable as identifiers (`type(x) == string`, `type(x) == google.protobuf.Timestamp`). */
export const TYPE_IDENTS = new Set([
  'int',
  'uint',
  'double',
  'bool',
  'string',
  'bytes',
  'list',
  'map',
  'null_type',
  'type',
  'dyn',
  'google.protobuf.Timestamp',
  'google.protobuf.Duration',
  'net.IP',
  'net.CIDR',
  'kubernetes.URL',
  'kubernetes.Quantity',
  'kubernetes.Semver',
  'optional_type',
]);

// ---- sets (ext.Sets) ----
since = 30;
for (const f of ['sets.contains', 'sets.equivalent', 'sets.intersects']) fn(f, 'list(A)', 'list(A)', 'bool');

// ---- ext lists (cel-go ext.Lists at the version the API server enables) ----
since = 35;
method('slice', 'list(A)', ['int', 'int'], 'list(A)', 'linear');
method('flatten', 'list(list(A))', [], 'list(A)', 'linear');
method('flatten', 'list(A)', ['int'], 'list(dyn)', 'linear');
fn('lists.range', 'int', 'list(int)');
for (const m of ['distinct', 'reverse', 'sort']) method(m, 'list(A)', [], 'list(A)', 'linear');
for (const m of ['first', 'last']) method(m, 'list(A)', [], 'optional_type(A)');

// ---- optionals (cel.OptionalTypes): optionalOldSelf, `x.?f`, `m[?k]`, optional.of ----
since = 29;
fn('optional.of', 'A', 'optional_type(A)');
fn('optional.ofNonZeroValue', 'A', 'optional_type(A)');
fn('optional.none', 'optional_type(A)');
method('hasValue', 'optional_type(A)', [], 'bool');
method('value', 'optional_type(A)', [], 'A');
method('orValue', 'optional_type(A)', ['A'], 'A');
method('or', 'optional_type(A)', ['optional_type(A)'], 'optional_type(A)');
// indexing an optional list or map gives an optional
fn('_[_]', 'optional_type(list(A))', 'int', 'optional_type(A)');
fn('_[_]', 'optional_type(map(K, V))', 'K', 'optional_type(V)');
fn('_[?_]', 'list(A)', 'int', 'optional_type(A)');
fn('_[?_]', 'map(K, V)', 'K', 'optional_type(V)');
fn('_[?_]', 'optional_type(list(A))', 'int', 'optional_type(A)');
fn('_[?_]', 'optional_type(map(K, V))', 'K', 'optional_type(V)');

// ---- Kubernetes lists version 1 ----
since = 38;
method('includes', 'dyn', ['dyn'], 'bool', 'linear');
since = undefined;

/** Overloads by function name. */
export const OVERLOADS: ReadonlyMap<string, readonly Overload[]> = (() => {
  const m = new Map<string, Overload[]>();
  for (const o of all) {
    const list = m.get(o.name) ?? [];
    list.push(o);
    m.set(o.name, list);
  }
  return m;
})();
