/**
 * The grammar of the fake API server's differential fuzzer (./fuzz.test.ts): a seeded PRNG
 * picks a Kind, a verb (get, list, create, update, patch in its four content types, server-side
 * apply, delete, the status and scale subresources), query parameters (valid and malformed) and a
 * body mutated from a valid one (names, generateName, sizes, depth, integers beyond 2^53,
 * duplicate keys, unknown fields, managedFields, apiVersion/kind missing or wrong, list-map
 * duplicates, finalizers, labels). Each case is data: the same requests go to both servers, with
 * `$RV` / `$UID` in a body replaced by what the case's setup object answered on each.
 */
import type { Served } from './served.js';

/** mulberry32: small, fast, and the same sequence on every platform. */
export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  next(): number {
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)];
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  /** Picks by weight: `[[weight, value], ...]`. */
  weighted<T>(xs: readonly (readonly [number, T])[]): T {
    let total = 0;
    for (const [w] of xs) total += w;
    let r = this.next() * total;
    for (const [w, v] of xs) {
      r -= w;
      if (r < 0) return v;
    }
    return xs[xs.length - 1][1];
  }
}

export type Obj = Record<string, Served>;

/** One HTTP request of a case. The body is JSON (or YAML) text. */
export interface Req {
  method: string;
  path: string;
  query?: [string, string][];
  body?: string;
  contentType?: string;
}

export interface Case {
  id: number;
  ns: string;
  /** What was generated, for the known-differences list to match: `kind:ConfigMap`, `verb:apply`, `mut:bigint`... */
  tags: string[];
  /** Requests run first (not compared beyond success). The last one's answer gives $RV and $UID. */
  setup: Req[];
  req: Req;
  /** The object path read back after the request; `answer` reads the name from the answer. */
  readBack?: string | { collection: string };
  /** Cluster-scoped objects to delete after the case. */
  cleanup: string[];
}

interface KindDef {
  key: string;
  apiVersion: string;
  kind: string;
  plural: string;
  namespaced: boolean;
  status?: boolean;
  scale?: boolean;
  custom?: boolean;
  /** A valid object's fields besides apiVersion, kind, metadata. */
  base(ns: string): Obj;
  /** Where an integer can go (a path of keys), and what type the server keeps there. */
  intPaths: string[][];
  /** A list-map of this Kind with its key, for duplicates: [path, item maker]. */
  listMap?: { path: string[]; item: (k: string) => Obj };
  /** A field the Kind's schema does not know (for unknown-field mutations). */
  unknownPath: string[];
  /** Deep nesting goes here (a field that takes any JSON, else a typed one). */
  deepPath: string[];
  /** A merge-patch that changes the object validly. */
  change: Obj;
}

const pod = (ns: string) => ({ kind: 'Pod', name: 'p', namespace: ns, apiVersion: 'v1' });

export const KINDS: KindDef[] = [
  {
    key: 'ConfigMap',
    apiVersion: 'v1',
    kind: 'ConfigMap',
    plural: 'configmaps',
    namespaced: true,
    base: () => ({ data: { a: '1' } }),
    intPaths: [['data', 'n']],
    unknownPath: ['spec'],
    deepPath: ['data', 'deep'],
    change: { data: { b: '2' } },
  },
  {
    key: 'Secret',
    apiVersion: 'v1',
    kind: 'Secret',
    plural: 'secrets',
    namespaced: true,
    base: () => ({ type: 'Opaque', data: { a: 'MQ==' } }),
    intPaths: [['data', 'n']],
    unknownPath: ['spec'],
    deepPath: ['data', 'deep'],
    change: { stringData: { b: '2' } },
  },
  {
    key: 'Deployment',
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    plural: 'deployments',
    namespaced: true,
    status: true,
    scale: true,
    base: () => ({
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'x' } },
        template: {
          metadata: { labels: { app: 'x' } },
          spec: { containers: [{ name: 'c', image: 'nginx' }] },
        },
      },
    }),
    intPaths: [
      ['spec', 'template', 'spec', 'activeDeadlineSeconds'],
      ['spec', 'template', 'spec', 'terminationGracePeriodSeconds'],
      ['spec', 'replicas'],
    ],
    listMap: { path: ['spec', 'template', 'spec', 'containers'], item: (k) => ({ name: k, image: 'nginx' }) },
    unknownPath: ['spec', 'bogus'],
    deepPath: ['spec', 'template', 'metadata', 'annotations'],
    change: { spec: { replicas: 2 } },
  },
  {
    key: 'ClusterRole',
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    plural: 'clusterroles',
    namespaced: false,
    base: () => ({ rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] }),
    intPaths: [['rules', '0', 'n']],
    unknownPath: ['spec'],
    deepPath: ['aggregationRule'],
    change: { rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }] },
  },
  {
    key: 'Namespace',
    apiVersion: 'v1',
    kind: 'Namespace',
    plural: 'namespaces',
    namespaced: false,
    base: () => ({}),
    intPaths: [['spec', 'n']],
    unknownPath: ['spec', 'bogus'],
    deepPath: ['spec'],
    change: { metadata: { labels: { b: '2' } } },
  },
  {
    key: 'CoreEvent',
    apiVersion: 'v1',
    kind: 'Event',
    plural: 'events',
    namespaced: true,
    base: (ns) => ({
      involvedObject: pod(ns),
      reason: 'Started',
      message: 'it started',
      type: 'Normal',
      source: { component: 'fuzz' },
      count: 1,
    }),
    intPaths: [['count']],
    unknownPath: ['spec'],
    deepPath: ['related'],
    change: { message: 'it changed' },
  },
  {
    key: 'EventsEvent',
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    plural: 'events',
    namespaced: true,
    base: (ns) => ({
      eventTime: '2026-01-02T03:04:05.000000Z',
      reportingController: 'kubeforge.io/fuzz',
      reportingInstance: 'fuzz-1',
      action: 'Start',
      reason: 'Started',
      type: 'Normal',
      regarding: pod(ns),
      note: 'it started',
    }),
    intPaths: [['deprecatedCount']],
    unknownPath: ['spec'],
    deepPath: ['related'],
    change: { note: 'it changed' },
  },
  {
    key: 'Widget',
    apiVersion: 'fake.kubeforge.io/v1',
    kind: 'Widget',
    plural: 'widgets',
    namespaced: true,
    status: true,
    scale: true,
    custom: true,
    base: () => ({ spec: { size: 3, ports: [{ name: 'http' }] } }),
    intPaths: [
      ['spec', 'raw', 'n'],
      ['spec', 'size'],
      ['spec', 'replicas'],
      ['spec', 'intOrString'],
    ],
    listMap: { path: ['spec', 'ports'], item: (k) => ({ name: k, port: 1 }) },
    unknownPath: ['spec', 'bogus'],
    deepPath: ['spec', 'raw', 'deep'],
    change: { spec: { size: 4 } },
  },
  {
    key: 'Gadget',
    apiVersion: 'fake.kubeforge.io/v1',
    kind: 'Gadget',
    plural: 'gadgets',
    namespaced: false,
    custom: true,
    base: () => ({ spec: { color: 'blue' } }),
    intPaths: [
      ['spec', 'n'],
      ['status', 'seen'],
    ],
    unknownPath: ['spec', 'bogus'],
    deepPath: ['spec', 'deep'],
    change: { spec: { color: 'green' } },
  },
];

function prefixOf(k: KindDef): string {
  return k.apiVersion.includes('/') ? `/apis/${k.apiVersion}` : `/api/${k.apiVersion}`;
}

export function collectionPath(k: KindDef, ns: string): string {
  return `${prefixOf(k)}${k.namespaced ? `/namespaces/${ns}` : ''}/${k.plural}`;
}

export function objectPath(k: KindDef, ns: string, name: string, sub?: string): string {
  return `${collectionPath(k, ns)}/${encodeURIComponent(name)}${sub ? `/${sub}` : ''}`;
}

const DEEP = '\u0002deep';
const setPath = (o: Obj, path: string[], v: unknown) => {
  let cur = o;
  for (const k of path.slice(0, -1)) {
    if (cur[k] === null || typeof cur[k] !== 'object') cur[k] = /^\d+$/.test(k) ? [] : {};
    cur = cur[k];
  }
  cur[path[path.length - 1]] = v;
};

/** JSON text of a body: BigInts as integers, the deep-nesting marker expanded. */
export function text(v: unknown, deep = 0): string {
  let s = JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `\u0001${x}\u0001` : x));
  s = s.replace(/"\\u0001(-?\d+)\\u0001"/g, '$1');
  if (deep) s = s.replace(JSON.stringify(DEEP), `${'{"a":'.repeat(deep)}1${'}'.repeat(deep)}`);
  return s;
}

const BIGINTS = [9007199254740993n, -9007199254740993n, 9223372036854775807n, 12345678901234567890n];
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/** A name for the object: mostly valid, sometimes broken as the grammar says. */
function nameMutation(rng: Rng, base: string, tags: string[]): { name?: string; generateName?: string } {
  const m = rng.weighted<string>([
    [70, 'valid'],
    [3, 'long63'],
    [3, 'long64'],
    [2, 'long253'],
    [2, 'long254'],
    [3, 'upper'],
    [2, 'underscore'],
    [2, 'dotted'],
    [2, 'leadingDash'],
    [2, 'empty'],
    [4, 'generateName'],
    [3, 'generateNameLong'],
    [2, 'generateNameBad'],
  ]);
  if (m !== 'valid') tags.push(`name:${m}`);
  const pad = (n: number) => (base + 'x'.repeat(Math.max(0, n))).slice(0, n);
  switch (m) {
    case 'long63':
      return { name: pad(63) };
    case 'long64':
      return { name: pad(64) };
    case 'long253':
      return { name: pad(253) };
    case 'long254':
      return { name: pad(254) };
    case 'upper':
      return { name: `${base}-Upper` };
    case 'underscore':
      return { name: `${base}_x` };
    case 'dotted':
      return { name: `${base}.x.y` };
    case 'leadingDash':
      return { name: `-${base}` };
    case 'empty':
      return {};
    case 'generateName':
      return { generateName: `${base}-` };
    case 'generateNameLong':
      return { generateName: pad(55 + rng.int(15)) };
    case 'generateNameBad':
      return { generateName: `${base}_Bad-` };
    default:
      return { name: base };
  }
}

type Mutator = (rng: Rng, k: KindDef, o: Obj, tags: string[], ctx: { deep: number; dupKey?: string }) => void;

/** Body mutations (each a class of hostile input); a case applies zero to two. */
const MUTATORS: [number, string, Mutator][] = [
  [
    6,
    'bigint',
    (rng, k, o) => {
      setPath(o, rng.pick(k.intPaths), rng.pick(BIGINTS));
    },
  ],
  [
    3,
    'unknownField',
    (_rng, k, o) => {
      setPath(o, k.unknownPath, k.unknownPath.length === 1 ? { x: 1 } : 'x');
    },
  ],
  [
    3,
    'metadataUnknown',
    (_rng, _k, o) => {
      o.metadata.foo = 'bar';
    },
  ],
  [
    3,
    'managedFields',
    (rng, _k, o) => {
      o.metadata.managedFields = rng.chance(0.5)
        ? [
            {
              manager: 'someone',
              operation: 'Apply',
              apiVersion: o.apiVersion ?? 'v1',
              fieldsType: 'FieldsV1',
              fieldsV1: { 'f:metadata': { 'f:labels': { 'f:x': {} } } },
            },
          ]
        : [{ manager: 'someone' }];
    },
  ],
  [2, 'noApiVersion', (_rng, _k, o) => delete o.apiVersion],
  [2, 'noKind', (_rng, _k, o) => delete o.kind],
  [2, 'wrongApiVersion', (_rng, _k, o) => (o.apiVersion = 'example.com/v9')],
  [2, 'wrongKind', (_rng, _k, o) => (o.kind = 'Pod')],
  [
    3,
    'finalizerNoDomain',
    (rng, _k, o) => {
      o.metadata.finalizers = rng.pick([['foo'], ['example.com/bar', 'baz'], ['Bad Finalizer']]);
    },
  ],
  [
    3,
    'labels',
    (rng, _k, o) => {
      o.metadata.labels = rng.pick([
        { app: 'x', 'example.com/tier': 'y' },
        { 'bad key!': 'x' },
        { a: 'not a valid value!' },
        { a: 'x'.repeat(64) },
      ]);
    },
  ],
  [
    2,
    'deep',
    (rng, k, o, _tags, ctx) => {
      ctx.deep = rng.pick([20, 200, 10_001]);
      setPath(o, k.deepPath, DEEP);
    },
  ],
  [
    2,
    'listMapDuplicate',
    (_rng, k, o) => {
      if (!k.listMap) return;
      setPath(o, k.listMap.path, [k.listMap.item('dup'), k.listMap.item('dup')]);
    },
  ],
  [
    3,
    'duplicateKey',
    (rng, _k, _o, _tags, ctx) => {
      ctx.dupKey = rng.pick(['metadata', 'apiVersion', 'name']);
    },
  ],
  [
    1,
    'size',
    (rng, k, o) => {
      const n = rng.pick([900_000, 1_100_000, 3_200_000]);
      if (k.key === 'ConfigMap') o.data = { big: 'x'.repeat(n) };
      else o.metadata.annotations = { big: 'x'.repeat(n) };
    },
  ],
  [1, 'resourceVersionOnCreate', (_rng, _k, o) => (o.metadata.resourceVersion = '12')],
  [1, 'namespaceMismatch', (_rng, _k, o) => (o.metadata.namespace = 'other')],
  [1, 'truncated', () => undefined],
];

/** A valid object of `k` named by `nm`, then mutated. Returns its text. */
function body(
  rng: Rng,
  k: KindDef,
  ns: string,
  nm: { name?: string; generateName?: string },
  tags: string[],
  mutate: boolean,
  finish?: (o: Obj) => void,
): { text: string; obj: Obj } {
  const o: Obj = { apiVersion: k.apiVersion, kind: k.kind, metadata: { ...nm }, ...k.base(ns) };
  const ctx = { deep: 0 } as { deep: number; dupKey?: string };
  let truncated = false;
  if (mutate) {
    const count = rng.weighted([
      [45, 0],
      [40, 1],
      [15, 2],
    ]);
    for (let i = 0; i < count; i++) {
      const [, name, f] = rng.weighted(MUTATORS.map((m) => [m[0], m] as const));
      tags.push(`mut:${name}`);
      if (name === 'truncated') truncated = true;
      f(rng, k, o, tags, ctx);
    }
  }
  finish?.(o);
  let t = text(o, ctx.deep);
  if (ctx.dupKey === 'metadata') t = t.replace('{', '{"metadata":{"name":"first"},');
  else if (ctx.dupKey === 'apiVersion') t = t.replace('{', '{"apiVersion":"v0",');
  else if (ctx.dupKey === 'name') t = t.replace('"metadata":{', '"metadata":{"name":"first",');
  if (truncated) t = t.slice(0, Math.max(1, Math.floor(t.length * rng.next())));
  return { text: t, obj: o };
}

const WRITE_QUERIES: [number, [string, string] | undefined][] = [
  [60, undefined],
  [5, ['dryRun', 'All']],
  [3, ['dryRun', 'bogus']],
  [2, ['dryRun', '']],
  [3, ['fieldValidation', 'Strict']],
  [2, ['fieldValidation', 'Ignore']],
  [2, ['fieldValidation', 'Warn']],
  [3, ['fieldValidation', 'bogus']],
  [3, ['fieldManager', 'x'.repeat(129)]],
  [2, ['fieldManager', 'fuzzer']],
  [1, ['fieldManager', '']],
];

function writeQuery(rng: Rng, tags: string[]): [string, string][] {
  const out: [string, string][] = [];
  const n = rng.weighted([
    [60, 0],
    [30, 1],
    [10, 2],
  ]);
  for (let i = 0; i < n; i++) {
    const q = rng.weighted(WRITE_QUERIES);
    if (!q || out.some(([k]) => k === q[0])) continue;
    tags.push(`q:${q[0]}=${q[1].length > 20 ? 'long' : q[1]}`);
    out.push(q);
  }
  return out;
}

/** A JSON patch: valid ops and broken ones. */
function jsonPatch(rng: Rng, k: KindDef, tags: string[]): unknown[] {
  const op = rng.weighted<string>([
    [30, 'addLabel'],
    [10, 'replaceBigint'],
    [10, 'removeMissing'],
    [8, 'testFails'],
    [6, 'badOp'],
    [6, 'replaceName'],
    [6, 'addManagedFields'],
    [6, 'addUnknown'],
    [5, 'replaceKind'],
    [5, 'emptyPath'],
  ]);
  tags.push(`jp:${op}`);
  switch (op) {
    case 'replaceBigint':
      return [{ op: 'add', path: `/${rng.pick(k.intPaths).join('/')}`, value: rng.pick(BIGINTS) }];
    case 'removeMissing':
      return [{ op: 'remove', path: '/metadata/labels/nothere' }];
    case 'testFails':
      return [{ op: 'test', path: '/metadata/name', value: 'other' }];
    case 'badOp':
      return [{ op: 'frobnicate', path: '/metadata/labels' }];
    case 'replaceName':
      return [{ op: 'replace', path: '/metadata/name', value: 'renamed' }];
    case 'addManagedFields':
      return [{ op: 'add', path: '/metadata/managedFields', value: [{ manager: 'x' }] }];
    case 'addUnknown':
      return [{ op: 'add', path: `/${k.unknownPath.join('/')}`, value: 'x' }];
    case 'replaceKind':
      return [{ op: 'replace', path: '/kind', value: 'Pod' }];
    case 'emptyPath':
      return [{ op: 'add', path: '', value: {} }];
    default:
      return [{ op: 'add', path: '/metadata/labels', value: { fuzz: String(rng.int(9)) } }];
  }
}

/** A merge or strategic-merge patch. */
function mergePatch(rng: Rng, k: KindDef, tags: string[], strategic: boolean): Obj {
  const m = rng.weighted<string>([
    [30, 'change'],
    [10, 'bigint'],
    [8, 'unknown'],
    [8, 'deleteLabels'],
    [6, 'managedFields'],
    [6, 'finalizer'],
    [6, 'rename'],
    [5, 'kind'],
    [5, 'listMapDuplicate'],
    [4, 'setElementOrder'],
    [4, 'patchDelete'],
  ]);
  tags.push(`mp:${m}`);
  const p: Obj = {};
  switch (m) {
    case 'bigint':
      setPath(p, rng.pick(k.intPaths), rng.pick(BIGINTS));
      return p;
    case 'unknown':
      setPath(p, k.unknownPath, 'x');
      return p;
    case 'deleteLabels':
      return { metadata: { labels: null } };
    case 'managedFields':
      return { metadata: { managedFields: [{ manager: 'x', operation: 'Update' }] } };
    case 'finalizer':
      return { metadata: { finalizers: ['nodomain'] } };
    case 'rename':
      return { metadata: { name: 'renamed' } };
    case 'kind':
      return { kind: 'Pod' };
    case 'listMapDuplicate':
      if (k.listMap) setPath(p, k.listMap.path, [k.listMap.item('dup'), k.listMap.item('dup')]);
      return p;
    case 'setElementOrder':
      if (strategic && k.listMap)
        setPath(p, [...k.listMap.path.slice(0, -1), `$setElementOrder/${k.listMap.path.at(-1)}`], [{ name: 'c' }]);
      return p;
    case 'patchDelete':
      if (strategic && k.listMap) setPath(p, k.listMap.path, [{ name: 'c', $patch: 'delete' }]);
      return p;
    default:
      return JSON.parse(JSON.stringify(k.change));
  }
}

/** Query parameters of a list: selectors, pages, resourceVersions, valid and not. */
function listQuery(rng: Rng, tags: string[]): [string, string][] {
  const out: [string, string][] = [];
  const add = (k: string, v: string) => {
    tags.push(`q:${k}=${v}`);
    out.push([k, v]);
  };
  if (rng.chance(0.35))
    add('labelSelector', rng.pick(['app=x', 'app in (x,y)', 'app in x', '!!', 'a==b', 'app,!tier', 'x=Y Z']));
  if (rng.chance(0.25))
    add(
      'fieldSelector',
      rng.pick(['metadata.name=x', 'metadata.namespace!=y', 'spec.bogus=x', 'nonsense', 'type=Opaque']),
    );
  if (rng.chance(0.35)) add('limit', rng.pick(['1', '2', '0', '-1', 'abc', '1.5']));
  if (rng.chance(0.1)) add('continue', rng.pick(['bogus', 'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiJ4In0']));
  if (rng.chance(0.2)) add('resourceVersion', rng.pick(['0', 'abc', '-1']));
  if (rng.chance(0.15)) add('resourceVersionMatch', rng.pick(['NotOlderThan', 'Exact', 'bogus']));
  return out;
}

/** The setup of a case: its namespace and, for verbs on an object, the object (and a sibling for lists). */
function setupFor(k: KindDef, ns: string, name: string, withObject: boolean, siblings: number): Req[] {
  const out: Req[] = [
    {
      method: 'POST',
      path: '/api/v1/namespaces',
      body: text({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }),
    },
  ];
  const names = withObject ? [name, ...Array.from({ length: siblings }, (_, i) => `${name}-s${i}`)] : [];
  for (const n of names.reverse()) {
    const o = { apiVersion: k.apiVersion, kind: k.kind, metadata: { name: n, labels: { app: 'x' } }, ...k.base(ns) };
    out.push({ method: 'POST', path: collectionPath(k, ns), body: text(o) });
  }
  return out;
}

/** Case `id` of seed `seed`: always the same case for the same pair. */
export function generate(seed: number, id: number): Case {
  const rng = new Rng((seed * 0x9e3779b1 + id * 0x85ebca77) >>> 0);
  const k = rng.pick(KINDS);
  const ns = `fz${seed % 1000}-${id}`;
  const base = k.namespaced ? `o${LETTERS[rng.int(26)]}` : `${ns}-o`;
  const tags = [`kind:${k.key}`];
  const verb = rng.weighted<string>([
    [28, 'create'],
    [14, 'apply'],
    [10, 'update'],
    [6, 'merge'],
    [5, 'json'],
    [5, 'strategic'],
    [5, 'get'],
    [k.namespaced ? 8 : 0, 'list'],
    [6, 'delete'],
    [k.status ? 5 : 0, 'status'],
    [k.scale ? 4 : 0, 'scale'],
  ]);
  tags.push(`verb:${verb}`);
  const c: Case = { id, ns, tags, setup: [], req: { method: 'GET', path: '/' }, cleanup: [] };
  VERBS[verb](rng, k, ns, base, c);
  if (!k.namespaced) c.cleanup.push(objectPath(k, ns, base));
  return c;
}

type Builder = (rng: Rng, k: KindDef, ns: string, base: string, c: Case) => void;

const VERBS: Record<string, Builder> = {
  create(rng, k, ns, base, c) {
    const nm = nameMutation(rng, base, c.tags);
    const b = body(rng, k, ns, nm, c.tags, true);
    c.setup = setupFor(k, ns, base, false, 0);
    c.req = { method: 'POST', path: collectionPath(k, ns), body: b.text, query: writeQuery(rng, c.tags) };
    c.readBack = { collection: collectionPath(k, ns) };
  },
  apply(rng, k, ns, base, c) {
    const existing = rng.chance(0.5);
    c.tags.push(existing ? 'apply:update' : 'apply:create');
    const urlName = base;
    let nm: { name?: string } = { name: urlName };
    if (rng.chance(0.1)) {
      c.tags.push('apply:otherName');
      nm = { name: `${base}-other` };
    } else if (rng.chance(0.05)) {
      c.tags.push('apply:noName');
      nm = {};
    }
    const b = body(rng, k, ns, nm, c.tags, true);
    const q = writeQuery(rng, c.tags).filter(([key]) => key !== 'fieldManager');
    const fm = rng.weighted<string | undefined>([
      [85, 'fuzz-apply'],
      [5, undefined],
      [5, 'x'.repeat(129)],
      [5, 'other'],
    ]);
    if (fm !== 'fuzz-apply') c.tags.push(`apply:manager=${fm === undefined ? 'none' : fm.length > 20 ? 'long' : fm}`);
    if (fm !== undefined) q.push(['fieldManager', fm]);
    const force = rng.weighted<string | undefined>([
      [80, undefined],
      [10, 'true'],
      [5, 'false'],
      [5, 'bogus'],
    ]);
    if (force !== undefined) {
      q.push(['force', force]);
      c.tags.push(`q:force=${force}`);
    }
    c.setup = setupFor(k, ns, base, existing, 0);
    c.req = {
      method: 'PATCH',
      path: objectPath(k, ns, urlName),
      body: b.text,
      contentType: 'application/apply-patch+yaml',
      query: q,
    };
    c.readBack = objectPath(k, ns, urlName);
  },
  update(rng, k, ns, base, c) {
    const withRV = rng.chance(0.7);
    const rv = rng.pick(['$RV', '$RV', '$RV', '1', 'abc']);
    if (!withRV) c.tags.push('update:noRV');
    else if (rv !== '$RV') c.tags.push(`update:rv=${rv}`);
    const b = body(rng, k, ns, { name: base }, c.tags, true, (o) => {
      Object.assign(o, JSON.parse(JSON.stringify({ ...k.change, metadata: undefined })));
      if (withRV) o.metadata.resourceVersion = rv;
    });
    c.setup = setupFor(k, ns, base, rng.chance(0.9), 0);
    c.req = { method: 'PUT', path: objectPath(k, ns, base), body: b.text, query: writeQuery(rng, c.tags) };
    c.readBack = objectPath(k, ns, base);
  },
  merge(rng, k, ns, base, c) {
    patchCase(rng, k, ns, base, c, 'application/merge-patch+json');
  },
  json(rng, k, ns, base, c) {
    patchCase(rng, k, ns, base, c, 'application/json-patch+json');
  },
  strategic(rng, k, ns, base, c) {
    patchCase(rng, k, ns, base, c, 'application/strategic-merge-patch+json');
  },
  get(rng, k, ns, base, c) {
    const exists = rng.chance(0.8);
    if (!exists) c.tags.push('get:missing');
    c.setup = setupFor(k, ns, base, exists, 0);
    const q: [string, string][] = [];
    if (rng.chance(0.3)) {
      const rv = rng.pick(['0', 'abc', '1', '-5']);
      q.push(['resourceVersion', rv]);
      c.tags.push(`q:resourceVersion=${rv}`);
    }
    c.req = { method: 'GET', path: objectPath(k, ns, base), query: q };
  },
  list(rng, k, ns, base, c) {
    c.setup = setupFor(k, ns, base, true, rng.int(3));
    c.req = { method: 'GET', path: collectionPath(k, ns), query: listQuery(rng, c.tags) };
  },
  delete(rng, k, ns, base, c) {
    c.setup = setupFor(k, ns, base, rng.chance(0.9), 0);
    const q: [string, string][] = [];
    if (rng.chance(0.5)) {
      const p = rng.pick(['Foreground', 'Background', 'Orphan', 'bogus', '']);
      q.push(['propagationPolicy', p]);
      c.tags.push(`q:propagationPolicy=${p}`);
    }
    if (rng.chance(0.25)) {
      const d = rng.pick(['All', 'bogus']);
      q.push(['dryRun', d]);
      c.tags.push(`q:dryRun=${d}`);
    }
    let b: string | undefined;
    if (rng.chance(0.2)) {
      const opts = rng.pick([
        { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { resourceVersion: '1' } },
        { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'bogus' },
        { kind: 'DeleteOptions', apiVersion: 'v1', dryRun: ['bogus'] },
        { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: -1 },
      ]);
      c.tags.push(`delete:body=${Object.keys(opts)[2]}`);
      b = text(opts);
    }
    c.req = { method: 'DELETE', path: objectPath(k, ns, base), query: q, body: b };
    c.readBack = objectPath(k, ns, base);
  },
  status(rng, k, ns, base, c) {
    c.setup = setupFor(k, ns, base, true, 0);
    const how = rng.pick(['get', 'put', 'merge', 'json', 'apply']);
    c.tags.push(`status:${how}`);
    const path = objectPath(k, ns, base, 'status');
    const status = k.custom
      ? rng.pick([
          { ready: true, replicas: 2 },
          { replicas: 9007199254740993n },
          { message: 'x'.repeat(30) },
          { bogus: 1 },
        ])
      : rng.pick([{ replicas: 1 }, { observedGeneration: 9007199254740993n }, { bogus: 1 }]);
    subresource(rng, c, k, ns, base, path, how, { status });
  },
  scale(rng, k, ns, base, c) {
    c.setup = setupFor(k, ns, base, true, 0);
    const how = rng.pick(['get', 'put', 'merge', 'json', 'apply']);
    c.tags.push(`scale:${how}`);
    const path = objectPath(k, ns, base, 'scale');
    const replicas = rng.pick<unknown>([2, 0, -1, 'two', 9007199254740993n]);
    c.tags.push(`scale:replicas=${typeof replicas === 'bigint' ? 'bigint' : replicas}`);
    if (how === 'put') {
      c.req = {
        method: 'PUT',
        path,
        body: text({
          apiVersion: 'autoscaling/v1',
          kind: 'Scale',
          metadata: { name: base, namespace: ns, resourceVersion: rng.chance(0.5) ? '$RV' : undefined },
          spec: { replicas },
        }),
      };
    } else
      subresource(
        rng,
        c,
        k,
        ns,
        base,
        path,
        how,
        { spec: { replicas } },
        { apiVersion: 'autoscaling/v1', kind: 'Scale' },
      );
    c.readBack = objectPath(k, ns, base);
  },
};

function subresource(
  rng: Rng,
  c: Case,
  k: KindDef,
  ns: string,
  base: string,
  path: string,
  how: string,
  change: Obj,
  type = { apiVersion: k.apiVersion, kind: k.kind },
) {
  void rng;
  c.readBack = objectPath(k, ns, base);
  if (how === 'get') c.req = { method: 'GET', path };
  else if (how === 'put')
    c.req = {
      method: 'PUT',
      path,
      body: text({ ...type, metadata: { name: base, resourceVersion: '$RV' }, ...change }),
    };
  else if (how === 'merge')
    c.req = { method: 'PATCH', path, body: text(change), contentType: 'application/merge-patch+json' };
  else if (how === 'json') {
    const [key] = Object.keys(change);
    c.req = {
      method: 'PATCH',
      path,
      body: text([{ op: 'add', path: `/${key}`, value: change[key] }]),
      contentType: 'application/json-patch+json',
    };
  } else
    c.req = {
      method: 'PATCH',
      path,
      body: text({ ...type, metadata: { name: base }, ...change }),
      contentType: 'application/apply-patch+yaml',
      query: [
        ['fieldManager', 'fuzz-apply'],
        ['force', 'true'],
      ],
    };
}

function patchCase(rng: Rng, k: KindDef, ns: string, base: string, c: Case, type: string): void {
  c.setup = setupFor(k, ns, base, rng.chance(0.92), 0);
  const b =
    type === 'application/json-patch+json'
      ? text(jsonPatch(rng, k, c.tags))
      : text(mergePatch(rng, k, c.tags, type.includes('strategic')));
  const q = writeQuery(rng, c.tags);
  if (rng.chance(0.04)) {
    q.push(['force', 'true']);
    c.tags.push('q:force=true');
  }
  const truncated = rng.chance(0.03);
  if (truncated) c.tags.push('mut:truncated');
  c.req = {
    method: 'PATCH',
    path: objectPath(k, ns, base),
    body: truncated ? b.slice(0, b.length - 2) : b,
    contentType: type,
    query: q,
  };
  c.readBack = objectPath(k, ns, base);
}
