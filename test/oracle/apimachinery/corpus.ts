// The shared corpus of the apimachinery oracle (test/oracle/apimachinery.test.ts): the same
// inputs go to k8s.io/apimachinery (main.go here) and to kubeforge's ports. Written cases first
// (hostile ones included: empty, whitespace, `!key`, `in ()`, duplicate keys, long values,
// unicode, NUL), then generated ones from a fixed seed, which nobody chose one by one.

/** A small deterministic PRNG (mulberry32), so the generated part is the same on every run. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const long = (n: number, ch = 'a') => ch.repeat(n);

export const WRITTEN_SELECTORS = [
  '',
  ' ',
  '\t\n',
  'a',
  'a=b',
  'a==b',
  'a!=b',
  'a=',
  'a==',
  'a!=',
  '!a',
  '! a',
  '!a=b',
  '!',
  '!!a',
  'a,',
  ',a',
  'a,,b',
  'a,b',
  'b,a',
  'a in (x,y)',
  'a in (y,x)',
  'a in ()',
  'a in (,)',
  'a in (,x)',
  'a in (x,)',
  'a in (x,,y)',
  'a in (x y)',
  'a in x',
  'a in (x',
  'a in',
  'a notin (x,y)',
  'a notin ()',
  'a in (in,notin)',
  'in in (in)',
  'notin',
  'a>1',
  'a<1',
  'a>-1',
  'a>x',
  'a>',
  'a > 10',
  'a>=1',
  'a=<1',
  'a=b=c',
  'a=b c',
  'a b',
  'a=b,a=c',
  'a=b,a!=b',
  'a,!a',
  'z=1,a=2,m in (3,1,2)',
  'x/y=z',
  'example.com/name=v',
  '/name=v',
  'example.com/=v',
  'a/b/c=v',
  'Example.com/name=v',
  '-a=b',
  'a-=b',
  'a_b.c-d=e_f.g-h',
  'a=-b',
  'a=b-',
  `${long(63)}=v`,
  `${long(64)}=v`,
  `a=${long(63)}`,
  `a=${long(64)}`,
  `${long(253)}/a=b`,
  `${long(254)}/a=b`,
  'é=b',
  'a=é',
  'a in (é)',
  '日本=語',
  'a=b\u0000c=d',
  'a \u0000 b=c',
  ' a = b , c != d ',
  'a=b\r\nc=d',
  'a in(x)',
  'a notin(x)',
  'a=(b)',
  '(a)',
  ')',
  'a)',
  'a=b)',
  '=a',
  '==',
  'a!b',
  'a!==b',
  'a=!b',
  'a<>b',
  'a=1,b>2,c<3,!d,e in (f),g notin (h)',
  'a>9223372036854775807',
  'a>9223372036854775808',
  'a<-9223372036854775808',
  'a>01',
  'a>+1',
  `k in (${Array.from({ length: 20 }, (_, i) => `v${i}`).join(',')})`,
];

export const LABEL_SETS: Record<string, string>[] = [
  {},
  { a: 'b' },
  { a: 'x' },
  { a: 'y' },
  { a: '' },
  { b: 'c', a: 'b' },
  { a: '1' },
  { a: '10' },
  { a: '-5' },
  { a: 'x1' },
  { a: '9223372036854775807' },
  { z: '1', a: '2', m: '3' },
  { 'x/y': 'z', 'example.com/name': 'v' },
  { in: 'in', notin: 'notin' },
  { k: 'v7', g: 'h', e: 'f', c: '2', b: '3' },
];

export const WRITTEN_LABEL_SELECTORS: unknown[] = [
  null,
  {},
  { matchLabels: {} },
  { matchExpressions: [] },
  { matchLabels: { a: 'b' } },
  { matchLabels: { a: 'b', c: 'd' } },
  { matchLabels: { 'x/y': 'z' } },
  { matchLabels: { a: '' } },
  { matchLabels: { '-a': 'b' } },
  { matchLabels: { a: '-b' } },
  { matchLabels: { a: long(64) } },
  { matchLabels: { a: 'é' } },
  { matchExpressions: [{ key: 'a', operator: 'In', values: ['y', 'x'] }] },
  { matchExpressions: [{ key: 'a', operator: 'NotIn', values: ['x'] }] },
  { matchExpressions: [{ key: 'a', operator: 'Exists' }] },
  { matchExpressions: [{ key: 'a', operator: 'DoesNotExist' }] },
  { matchExpressions: [{ key: 'a', operator: 'In', values: [] }] },
  { matchExpressions: [{ key: 'a', operator: 'In' }] },
  { matchExpressions: [{ key: 'a', operator: 'NotIn', values: [] }] },
  { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] },
  { matchExpressions: [{ key: 'a', operator: 'DoesNotExist', values: ['x', '<y>'] }] },
  { matchExpressions: [{ key: 'a', operator: 'in', values: ['x'] }] },
  { matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] },
  { matchExpressions: [{ key: 'a', operator: '', values: ['1'] }] },
  { matchExpressions: [{ key: 'a', operator: 'Équal' }] },
  { matchExpressions: [{ key: '', operator: 'Exists' }] },
  { matchExpressions: [{ key: 'a b', operator: 'Exists' }] },
  { matchExpressions: [{ key: 'a', operator: 'In', values: ['x', 'bad value', 'y'] }] },
  { matchExpressions: [{ key: 'a', operator: 'In', values: ['', 'x'] }] },
  { matchExpressions: [{ key: 'bad key', operator: 'In', values: ['bad value'] }] },
  {
    matchLabels: { z: '1' },
    matchExpressions: [
      { key: 'a', operator: 'In', values: ['2'] },
      { key: 'a', operator: 'Exists' },
      { key: 'm', operator: 'NotIn', values: ['1', '3'] },
    ],
  },
  { matchLabels: { a: 'b' }, matchExpressions: [{ key: 'a', operator: 'NotIn', values: ['b'] }] },
];

export const WRITTEN_NAMES = [
  '',
  ' ',
  'a',
  'A',
  '0',
  '-',
  '.',
  'a-',
  '-a',
  'a.b',
  'a..b',
  'a.-b',
  'a_b',
  'my-name',
  '123-abc',
  'Example.com',
  'example.com/',
  '/',
  '/a',
  'a/',
  'a/b',
  'a/b/c',
  'example.com/MyName',
  'example.com/my.name',
  'exa_mple.com/name',
  'Example.com/name',
  '-example.com/name',
  'example.com/-name',
  'example.com/name-',
  long(63),
  long(64),
  long(253),
  long(254),
  `${long(63)}.${long(63)}.${long(63)}.${long(61)}`,
  `${long(63)}.${long(63)}.${long(63)}.${long(62)}`,
  `${long(64)}.b`,
  `${long(253)}/${long(63)}`,
  `${long(254)}/${long(64)}`,
  `a/${long(64)}`,
  'é',
  'aé',
  `${long(62)}é`,
  `${long(31, 'é')}`,
  `${long(32, 'é')}`,
  '日本',
  '😀',
  'a\nb',
  'a\n',
  'a\u0000',
  'MyValue',
  'my_value',
  '12345',
  '_a',
  'a_',
  'a.',
];

export const WRITTEN_ANNOTATIONS: Record<string, string>[] = [
  {},
  { a: 'b' },
  { 'Example.com/Name': 'anything at all: é 😀 \n' },
  { 'example.com/': 'x' },
  { 'bad key': 'x' },
  { 'a/b/c': 'x' },
  { a: long(256 * 1024 - 1) },
  { a: long(256 * 1024) },
  { ab: long(256 * 1024 - 2) },
  { ab: `${long(256 * 1024 - 4)}é` },
  { a: long(128 * 1024), b: long(128 * 1024 - 2) },
  { 'bad key': 'x', 'other bad!': long(256 * 1024) },
];

export const WRITTEN_LABELS: Record<string, string>[] = [
  {},
  { a: 'b' },
  { a: '' },
  { 'bad key': 'v' },
  { a: 'bad value' },
  { 'x/y': long(64) },
  { '-a': '-b', é: 'é' },
  { 'example.com/': '' },
];

export const WRITTEN_SELECTORS_TO_CHECK: unknown[] = [
  {},
  { matchLabels: { a: 'b' } },
  { matchLabels: { 'bad key': 'bad value' } },
  { matchExpressions: [{ key: 'a', operator: 'In' }] },
  { matchExpressions: [{ key: 'a', operator: 'NotIn', values: [] }] },
  { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] },
  { matchExpressions: [{ key: 'a', operator: 'DoesNotExist', values: ['x'] }] },
  { matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] },
  { matchExpressions: [{ key: 'a', operator: '<b>&', values: ['1'] }] },
  { matchExpressions: [{ key: 'a', operator: 'Équal' }] },
  { matchExpressions: [{ key: '', operator: 'In', values: ['', 'x y', long(64)] }] },
  {
    matchLabels: { a: 'b' },
    matchExpressions: [
      { key: 'a', operator: 'In', values: ['ok'] },
      { key: 'b/c/d', operator: 'Bogus', values: ['-'] },
    ],
  },
];

type Step = { child: string } | { index: number } | { key: string };
export interface FieldErrorSpec {
  type: string;
  path: Step[];
  value?: unknown;
  detail?: string;
  valid?: string[];
  max?: number;
}
const spec = (...steps: Step[]) => steps;
export const FIELD_ERRORS: FieldErrorSpec[][] = [
  [],
  [{ type: 'required', path: spec({ child: 'spec' }, { child: 'size' }), detail: '' }],
  [{ type: 'required', path: spec({ child: 'spec' }, { child: 'size' }), detail: 'must be set' }],
  [{ type: 'invalid', path: spec({ child: 'spec' }, { child: 'size' }), value: 3, detail: 'must be even' }],
  [{ type: 'invalid', path: spec({ child: 'spec' }, { child: 'ratio' }), value: 2.5, detail: 'x' }],
  [{ type: 'invalid', path: spec({ child: 'spec' }, { child: 'ratio' }), value: 1500000.5, detail: 'x' }],
  [{ type: 'invalid', path: spec({ child: 'spec' }, { child: 'ratio' }), value: 0.00001, detail: 'x' }],
  [{ type: 'invalid', path: spec({ child: 'spec' }, { child: 'on' }), value: true, detail: 'x' }],
  [
    {
      type: 'invalid',
      path: spec({ child: 'spec' }, { child: 'name' }),
      value: 'a "quoted" é\n\t\u0001\u2028😀',
      detail: 'bad',
    },
  ],
  [
    {
      type: 'invalid',
      path: spec({ child: 'spec' }, { child: 'obj' }),
      value: { b: [1, 'x'], a: null, h: '<&>' },
      detail: 'bad',
    },
  ],
  [{ type: 'invalid', path: spec({ child: 'spec' }, { child: 'list' }), value: ['a', 'b'], detail: 'bad' }],
  [
    {
      type: 'invalid',
      path: spec({ child: 'spec' }, { child: 'map' }),
      value: { '10': 1, '9': [{ b: 2, a: '\u2028' }], B: {}, a: [], é: 'x', '😀': true },
      detail: 'bad',
    },
  ],
  [{ type: 'invalid', path: spec({ child: 'spec' }, { child: 'nil' }), value: null, detail: 'bad' }],
  [{ type: 'typeInvalid', path: spec({ child: 'spec' }, { child: 'x' }), value: 'x', detail: 'must be an integer' }],
  [{ type: 'notSupported', path: spec({ child: 'spec' }, { child: 'mode' }), value: 'c', valid: ['a', 'b', 'é"'] }],
  [{ type: 'notSupported', path: spec({ child: 'spec' }, { child: 'mode' }), value: 'c', valid: [] }],
  [{ type: 'forbidden', path: spec({ child: 'spec' }, { child: 'immutable' }), detail: 'field is immutable' }],
  [
    {
      type: 'duplicate',
      path: spec({ child: 'spec' }, { child: 'ports' }, { index: 1 }, { child: 'name' }),
      value: 'http',
    },
  ],
  [{ type: 'tooLong', path: spec({ child: 'metadata' }, { child: 'annotations' }), value: 'x', max: 262144 }],
  [{ type: 'tooLong', path: spec({ child: 'spec' }, { child: 's' }), value: 'x', max: 1 }],
  [{ type: 'tooLong', path: spec({ child: 'spec' }, { child: 's' }), value: 'x', max: -1 }],
  [{ type: 'tooMany', path: spec({ child: 'spec' }, { child: 'items' }), value: 12, max: 10 }],
  [{ type: 'tooMany', path: spec({ child: 'spec' }, { child: 'items' }), value: 2, max: 1 }],
  [{ type: 'tooMany', path: spec({ child: 'spec' }, { child: 'items' }), value: -1, max: -1 }],
  [{ type: 'notFound', path: spec({ child: 'spec' }, { child: 'ref' }), value: 'missing' }],
  [
    {
      type: 'invalid',
      path: spec({ child: 'metadata' }, { child: 'labels' }, { key: 'a/b' }),
      value: 'v',
      detail: 'x',
    },
  ],
  [
    { type: 'required', path: spec({ child: 'spec' }, { child: 'a' }), detail: '' },
    { type: 'invalid', path: spec({ child: 'spec' }, { child: 'b' }, { index: 0 }), value: 'x', detail: 'bad' },
    { type: 'required', path: spec({ child: 'spec' }, { child: 'a' }), detail: '' },
  ],
  [
    { type: 'forbidden', path: spec({ child: 'spec' }), detail: 'same' },
    { type: 'forbidden', path: spec({ child: 'spec' }), detail: 'same' },
  ],
];

export const UNIX_MICROS = [
  0, 1, 999, 1000, 999999, 1000000, -1, -1000001, 1700000000123456, 1700000000999999, 8640000000123456, 951782400000000,
];

export const TIME_STRINGS = [
  '2024-01-02T03:04:05Z',
  '2024-01-02T03:04:05.123Z',
  '2024-01-02T03:04:05.123456Z',
  '2024-01-02T03:04:05.123456789Z',
  '2024-01-02T03:04:05,123456Z',
  '2024-01-02T03:04:05.+12345Z',
  '2024-01-02T03:04:05.-12345Z',
  '2024-01-02T03:04:05.12345Z',
  '2024-01-02T03:04:05.1234567Z',
  '2024-01-02T03:04:05+02:00',
  '2024-01-02T03:04:05.123456-07:30',
  '2024-01-02T03:04:05+24:00',
  '2024-01-02T03:04:05+25:00',
  '2024-01-02T03:04:05+01:60',
  '2024-01-02T03:04:05+01:61',
  '2024-01-02T3:04:05Z',
  '2024-01-02T24:00:00Z',
  '2024-01-02T23:60:00Z',
  '2024-01-02T23:59:60Z',
  '2024-02-29T00:00:00Z',
  '2023-02-29T00:00:00Z',
  '2024-04-31T00:00:00Z',
  '2024-13-01T00:00:00Z',
  '2024-00-01T00:00:00Z',
  '2024-01-00T00:00:00Z',
  '2024-01-02t03:04:05Z',
  '2024-01-02T03:04:05z',
  '2024-01-02 03:04:05Z',
  '2024-01-02T03:04:05',
  '2024-01-02',
  '',
  ' 2024-01-02T03:04:05Z',
  '2024-01-02T03:04:05Z ',
  '0001-01-01T00:00:01Z',
  '0099-12-31T23:59:59Z',
  '9999-12-31T23:59:59-02:00',
  '1969-12-31T23:59:59.999999Z',
  '2024-01-02T03:04:05.Z',
  '2024-01-02T03:04:05+0200',
];

/** Generated selectors: token soup from the selector grammar's alphabet, and well-formed ones. */
function generatedSelectors(n: number): string[] {
  const r = rng(40);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)];
  const soup = [
    'a',
    'b',
    'x/y',
    'in',
    'notin',
    '(',
    ')',
    ',',
    '!',
    '=',
    '==',
    '!=',
    '>',
    '<',
    ' ',
    '1',
    '-1',
    '-',
    '.',
    'é',
    '\t',
    'A_b',
  ];
  const keys = ['a', 'b', 'c', 'x/y', 'example.com/k', 'in', 'K.e-y_1'];
  const vals = ['', 'x', 'y', '1', '10', '-5', 'v.1', 'in', 'Z'];
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    if (i % 2 === 0) {
      const len = 1 + Math.floor(r() * 8);
      out.push(Array.from({ length: len }, () => pick(soup)).join(''));
      continue;
    }
    const terms = Array.from({ length: 1 + Math.floor(r() * 4) }, () => {
      const k = pick(keys);
      switch (Math.floor(r() * 7)) {
        case 0:
          return k;
        case 1:
          return `!${k}`;
        case 2:
          return `${k}${pick(['=', '==', '!='])}${pick(vals)}`;
        case 3:
          return `${k} ${pick(['in', 'notin'])} (${Array.from({ length: Math.floor(r() * 3) }, () => pick(vals)).join(',')})`;
        case 4:
          return `${k}${pick(['>', '<'])}${pick(vals)}`;
        default:
          return `${pick([' ', ''])}${k}${pick([' ', ''])}=${pick([' ', ''])}${pick(vals)}`;
      }
    });
    out.push(terms.join(pick([',', ', ', ' ,'])));
  }
  return out;
}

/** Generated names: strings over the characters the rules care about, lengths around the limits. */
function generatedNames(n: number): string[] {
  const r = rng(1123);
  const chars = ['a', 'z', 'A', '0', '9', '-', '.', '_', '/', 'é', ' '];
  const lens = [1, 2, 3, 5, 62, 63, 64, 252, 253, 254];
  return Array.from({ length: n }, () => {
    const len = lens[Math.floor(r() * lens.length)];
    let s = '';
    for (let i = 0; i < len; i++) s += r() < 0.85 ? chars[Math.floor(r() * 4)] : chars[Math.floor(r() * chars.length)];
    return s;
  });
}

/** The corpus as the Go program reads it. */
export function corpus() {
  return {
    selectors: [...WRITTEN_SELECTORS, ...generatedSelectors(400)],
    labelSets: LABEL_SETS,
    labelSelectors: WRITTEN_LABEL_SELECTORS,
    names: [...WRITTEN_NAMES, ...generatedNames(300)],
    annotations: WRITTEN_ANNOTATIONS,
    labels: WRITTEN_LABELS,
    selectorsToCheck: WRITTEN_SELECTORS_TO_CHECK,
    fieldErrors: FIELD_ERRORS,
    unixMicros: UNIX_MICROS,
    timeStrings: TIME_STRINGS,
  };
}
