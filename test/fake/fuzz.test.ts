// The fake API server judged by the real one on requests it was not built against: a
// differential fuzzer. ./fuzz-grammar.ts generates cases from a seeded PRNG (Kinds, verbs,
// query parameters, content types, bodies mutated from valid ones); each case runs in a fresh
// namespace on kubeforge/testing's FakeAPIServer and on a real kube-apiserver (TestEnvironment),
// and the HTTP code, Status reason, message and causes, Warning headers, the answer and what a
// GET reads back afterwards must be equal after normalisation (uids, resourceVersions, times).
// A difference must match an entry of KNOWN (which says why it is acceptable, or that it is a
// gap); with the default seed and count, every entry must still occur (else it is stale).
//
// KUBEFORGE_FUZZ_SEED (default 37), KUBEFORGE_FUZZ_COUNT (default 2000) run another or a longer
// run; KUBEFORGE_FUZZ_DUMP=<file> writes every difference there (JSON) to read them.
import assert from 'node:assert/strict';
import http from 'node:http';
import https from 'node:https';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { KubeConfig } from '@kubernetes/client-node';
import { FakeAPIServer, TestEnvironment } from '../../src/testing/index.js';
import { parseWire } from '../../src/testing/fake/wire.js';
import { type Case, type Req, generate } from './fuzz-grammar.js';
import { must } from '../helpers/must.js';
import type { Served } from './served.js';

const root = process.env.KUBEFORGE_REPO_ROOT ?? process.cwd();
const crdDir = join(root, 'test/fixtures/fake');
const DEFAULT_SEED = 37;
const DEFAULT_COUNT = 2000;
const SEED = Number(process.env.KUBEFORGE_FUZZ_SEED ?? DEFAULT_SEED);
const COUNT = Number(process.env.KUBEFORGE_FUZZ_COUNT ?? DEFAULT_COUNT);
const PARALLEL = Number(process.env.KUBEFORGE_FUZZ_PARALLEL ?? 12);

/** A difference between the two servers on one case. */
interface Diff {
  id: number;
  tags: string[];
  /** What differs: code, reason, message, causes, warnings, answer, readBack. */
  aspects: string[];
  fake: Outcome;
  real: Outcome;
  req: string;
}

/**
 * A known difference: the aspects of which diffs it covers, and why that is acceptable, or
 * (`gap: true`) that it is not: a gap of the fake not yet closed.
 */
interface Known {
  gap: boolean;
  why: string;
  /** The server's side of it is not deterministic (Go map order, its watch cache): it need not occur in every run. */
  sometimes?: boolean;
  covers(d: Diff, aspect: string): boolean;
}

const has = (d: Diff, ...tags: string[]) => tags.some((t) => d.tags.includes(t));
const builtin = (d: Diff) => !has(d, 'kind:Widget', 'kind:Gadget');

/** The server's causes are the fake's, some listed twice. */
function sameCauseSet(d: Diff): boolean {
  const key = (cs: unknown[] | undefined) => [...new Set((cs ?? []).map((c) => JSON.stringify(c)))].sort().join('\n');
  return key(d.real.causes) === key(d.fake.causes);
}

/** The outcome's aspects that follow from the request's answer (the object answered and read back). */
const OUTCOME = new Set(['code', 'reason', 'message', 'causes', 'warnings', 'answer', 'readBack', 'fieldsV1']);

/**
 * Every difference the fuzzer meets must be covered here, aspect by aspect; with the default seed
 * and count every entry must cover one (else it is stale). docs/testing.md lists them.
 */
const KNOWN: Record<string, Known> = {
  'a custom resource body of another kind': {
    gap: false,
    why: "the server validates a body whose kind is not the URL's as the URL's Kind without its defaults (422: kind must be Widget, with CEL errors on the missing defaults); the fake refuses it with 400 before validation, which a client sees as the same refusal (the same case is a known difference of test/fake/differential.test.ts)",
    covers: (d, a) => !builtin(d) && has(d, 'mut:wrongKind') && OUTCOME.has(a),
  },
  'the scale subresource of a custom resource with replicas that are no integer': {
    gap: false,
    why: 'a Scale whose replicas are not an int32 fails inside the server in ways no client relies on (400 "no kind is registered for the type v1.Scale", 500 from the typed patch); the fake refuses it with 422, 415 or 400',
    covers: (d, a) =>
      has(d, 'verb:scale') &&
      has(d, 'scale:replicas=two', 'scale:replicas=bigint', 'scale:replicas=-1') &&
      OUTCOME.has(a),
  },
  'metadata causes of a custom resource reported twice': {
    gap: false,
    why: 'the server lists the same metadata cause twice (an invalid label key, annotations too long) for some writes of a custom resource; the code and the set of causes are the same, only details.causes repeats one (and so does the message the fuzzer compares, which it builds from the causes when there are several)',
    // With several causes the message is compared as the list of them (the normalisation), so it repeats too.
    covers: (d, a) =>
      !builtin(d) && (a === 'causes' || (a === 'message' && (d.real.causes?.length ?? 0) > 1)) && sameCauseSet(d),
  },
  'reads from the watch cache': {
    gap: false,
    why: "a get or list with resourceVersion=0 (any version) or 1 (not older than 1) is served from the server's watch cache, which may not yet hold what was written just before (the API's documented semantics: possibly stale); the fake's store is always current",
    sometimes: true,
    covers: (d, a) => has(d, 'q:resourceVersion=0', 'q:resourceVersion=1') && OUTCOME.has(a),
  },
  'the errors of an applied configuration, listed in Go map order': {
    gap: false,
    why: "when an applied configuration has several errors (fields its schema does not declare, values of the wrong type), the server's list of them follows Go's random map order, and of the fields one map does not declare it names only the first it meets; the fake lists them all in the body's order; code and reason are the same, and so are the errors when neither server leaves one out",
    sometimes: true,
    covers: (d, a) => {
      if (a !== 'message') return false;
      const typed = /^failed to create typed patch object \([^)]*\): /;
      const [real, fake] = [d.real.message ?? '', d.fake.message ?? ''];
      if (!typed.test(real) || !typed.test(fake)) return false;
      if ([real, fake].every((m) => m.includes('field not declared in schema'))) return true;
      const lines = (m: string) =>
        m
          .replace(typed, '')
          .replace(/^errors:\n/, '')
          .split('\n')
          .map((l) => l.trim())
          .sort();
      return JSON.stringify(lines(real)) === JSON.stringify(lines(fake));
    },
  },
};
interface Outcome {
  code: number;
  reason?: string;
  message?: string;
  causes?: unknown[];
  warnings: string[];
  answer?: unknown;
  readBack?: { code: number; object?: unknown };
  /** The field sets of managedFields in the answer and the read-back. */
  fieldsV1?: unknown[];
}

type Send = (r: Req, subst?: Record<string, string>) => Promise<{ code: number; warnings: string[]; body: unknown }>;

/** A raw HTTP client of a KubeConfig's cluster: bodies as text, answers parsed without loss. */
async function rawClient(kc: KubeConfig): Promise<Send> {
  const opts: https.RequestOptions = {};
  await kc.applyToHTTPSOptions(opts);
  const cluster = must(kc.getCurrentCluster(), 'kc.getCurrentCluster()');
  const base = new URL(cluster.server);
  const secure = base.protocol === 'https:';
  const agent = secure
    ? new https.Agent({ keepAlive: true, maxSockets: 32 })
    : new http.Agent({ keepAlive: true, maxSockets: 32 });
  const headers = { ...(opts.headers ?? {}) } as Record<string, string>;
  return (r, subst = {}) =>
    new Promise((resolve, reject) => {
      let body = r.body;
      if (body !== undefined) for (const [k, v] of Object.entries(subst)) body = body.split(k).join(v);
      const qs = new URLSearchParams(r.query ?? []).toString();
      const h: Record<string, string> = { ...headers, Accept: 'application/json', 'User-Agent': 'kubeforge-fuzz/1' };
      if (body !== undefined) {
        h['Content-Type'] = r.contentType ?? 'application/json';
        h['Content-Length'] = String(Buffer.byteLength(body));
      }
      const req = (secure ? https : http).request(
        {
          ca: opts.ca,
          cert: opts.cert,
          key: opts.key,
          rejectUnauthorized: cluster.skipTLSVerify ? false : opts.rejectUnauthorized,
          hostname: base.hostname,
          port: base.port,
          method: r.method,
          path: `${r.path}${qs ? `?${qs}` : ''}`,
          headers: h,
          agent,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown = text;
            try {
              parsed = parseWire(text).value;
            } catch {
              /* text */
            }
            const warnings = (res.headersDistinct?.warning ?? []).flatMap((w) => splitWarnings(w));
            resolve({ code: res.statusCode ?? 0, warnings, body: parsed });
          });
          res.on('error', reject);
        },
      );
      req.setTimeout(60_000, () => req.destroy(new Error('timeout')));
      req.on('error', reject);
      req.end(body);
    });
}

function splitWarnings(header: string): string[] {
  return [...header.matchAll(/\d{3} \S+ "((?:[^"\\]|\\.)*)"/g)].map((m) => m[1].replace(/\\(.)/g, '$1'));
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const TIME = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g;

/** Takes out what differs by nature between two servers, consistently within one case. */
class Normalizer {
  private readonly ids = new Map<string, string>();
  private readonly rvs = new Map<string, string>();

  private map(m: Map<string, string>, v: string, prefix: string): string {
    if (!m.has(v)) m.set(v, `<${prefix}${m.size + 1}>`);
    return must(m.get(v), 'm.get(v)');
  }

  /** The managedFields' field sets met, compared apart from the objects (aspect `fieldsV1`). */
  readonly fieldSets: unknown[] = [];

  value(v: unknown, key = ''): unknown {
    if (typeof v === 'bigint') return `<bigint ${v}>`;
    if (key === 'fieldsV1') {
      this.fieldSets.push(v);
      return '<fieldsV1>';
    }
    if (Array.isArray(v)) {
      const out = v.map((x) => this.value(x));
      // Entries are sorted by time first; with the times taken out, by what is left.
      if (key === 'managedFields')
        out.sort((a, b) => {
          const k = (e: unknown) => {
            const f = e as { operation?: string; manager?: string; subresource?: string } | undefined;
            return `${f?.operation} ${f?.manager} ${f?.subresource ?? ''}`;
          };
          return k(a) < k(b) ? -1 : k(a) > k(b) ? 1 : 0;
        });
      return out;
    }
    if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(o).sort()) {
        if (k === 'selfLink') continue;
        out[k] = this.value(o[k], k);
      }
      const m = out.metadata as Record<string, unknown> | undefined;
      if (m && typeof m.generateName === 'string' && typeof m.name === 'string') {
        const stem = m.generateName.slice(0, 58);
        if (m.name.length === stem.length + 5 && m.name.startsWith(stem)) {
          const labels = m.labels as Record<string, unknown> | undefined;
          if (labels?.['kubernetes.io/metadata.name'] === m.name)
            labels['kubernetes.io/metadata.name'] = `${stem}<suffix>`;
          m.name = `${stem}<suffix>`;
        }
      }
      if (typeof out.kind === 'string' && out.kind.endsWith('List') && m && 'resourceVersion' in m)
        m.resourceVersion = '<list>';
      if (m && typeof m.continue === 'string' && m.continue !== '') m.continue = '<token>';
      return out;
    }
    if (typeof v !== 'string') return v;
    if (key === 'uid' || (UUID.test(v) && v.length === 36)) return this.map(this.ids, v, 'uid');
    UUID.lastIndex = 0;
    if (key === 'resourceVersion') return this.map(this.rvs, v, 'rv');
    if (key === 'creationTimestamp' || key === 'deletionTimestamp' || key === 'time') return '<time>';
    return v;
  }

  /** The generateName of the case's body (cut to 58), whose random suffix messages name too. */
  stem?: string;

  text(s: string): string {
    if (this.stem)
      s = s
        .split(this.stem)
        .join('\u0000')
        // biome-ignore lint/suspicious/noControlCharactersInRegex: NUL marks where the stem was, a byte no name can hold
        .replace(/\u0000[a-z0-9]{5}/g, `${this.stem}<suffix>`)
        .split('\u0000')
        .join(this.stem);
    return s
      .replace(UUID, (u) => this.map(this.ids, u, 'uid'))
      .replace(TIME, '<time>')
      .replace(
        /(ResourceVersion in record \(|ResourceVersion in object meta: )(\d+)/g,
        (_, p: string, rv: string) => `${p}${this.map(this.rvs, rv, 'rv')}`,
      )
      .replace(
        /(\\?"resourceVersion\\?":\\?")(\d+)/g,
        (_, p: string, rv: string) => `${p}${this.map(this.rvs, rv, 'rv')}`,
      );
  }
}

function outcomeOf(n: Normalizer, a: { code: number; warnings: string[]; body: unknown }): Outcome {
  const out: Outcome = { code: a.code, warnings: a.warnings.map((w) => n.text(w)).sort() };
  const b = a.body as Record<string, Served> | string | undefined;
  if (a.code >= 300) {
    if (b && typeof b === 'object' && b.kind === 'Status') {
      out.reason = b.reason;
      let message = n.text(String(b.message ?? ''));
      const causes = ((b.details?.causes ?? []) as { reason?: string; message?: string; field?: string }[])
        .map((c) => ({ reason: c.reason, field: c.field, message: n.text(String(c.message ?? '')) }))
        .sort((x, y) => `${x.field} ${x.message}`.localeCompare(`${y.field} ${y.message}`));
      if (causes.length > 1 && message.includes(': ['))
        message = `${message.slice(0, message.indexOf(': [') + 2)}{${causes.map((c) => `${c.field}: ${c.message}`).join(' | ')}}`;
      out.message = message;
      if (causes.length) out.causes = causes;
    } else out.message = typeof b === 'string' ? b.trim() : JSON.stringify(b);
  } else out.answer = n.value(b);
  return out;
}

/** The object a write created or touched, for the read-back. */
function readBackPath(c: Case, answer: unknown): string | undefined {
  if (typeof c.readBack === 'string') return c.readBack;
  if (!c.readBack) return undefined;
  const m = (answer as { metadata?: { name?: unknown } } | undefined)?.metadata;
  if (!m || typeof m.name !== 'string' || !m.name) return undefined;
  return `${c.readBack.collection}/${encodeURIComponent(m.name)}`;
}

async function runCase(send: Send, c: Case): Promise<Outcome> {
  const n = new Normalizer();
  const gn = /"generateName":"([^"]*)"/.exec(c.req.body ?? '');
  if (gn?.[1]) n.stem = gn[1].slice(0, 58);
  const subst: Record<string, string> = {};
  for (const r of c.setup) {
    const a = await send(r);
    if (a.code >= 300)
      return { code: -1, message: `setup ${r.method} ${r.path}: ${a.code} ${JSON.stringify(a.body)}`, warnings: [] };
    const m = (a.body as { metadata?: Record<string, string> }).metadata;
    subst.$RV = String(m?.resourceVersion ?? '');
    subst.$UID = String(m?.uid ?? '');
  }
  const a = await send(c.req, subst);
  const out = outcomeOf(n, a);
  const path = readBackPath(c, a.code < 300 ? a.body : undefined);
  if (path && c.req.method !== 'GET') {
    const rb = await send({ method: 'GET', path });
    out.readBack = { code: rb.code, object: rb.code < 300 ? n.value(rb.body) : undefined };
    if (path && !c.cleanup.includes(path) && c.cleanup.length) c.cleanup.push(path);
  }
  for (const p of c.cleanup) await send({ method: 'DELETE', path: p });
  if (n.fieldSets.length) out.fieldsV1 = n.fieldSets;
  return out;
}

function differences(c: Case, fake: Outcome, real: Outcome): Diff | undefined {
  const aspects: string[] = [];
  for (const k of ['code', 'reason', 'message', 'causes', 'warnings', 'answer', 'readBack', 'fieldsV1'] as const)
    if (JSON.stringify(fake[k]) !== JSON.stringify(real[k])) aspects.push(k);
  if (!aspects.length) return undefined;
  const req = `${c.req.method} ${c.req.path}${c.req.query?.length ? `?${new URLSearchParams(c.req.query)}` : ''} ${c.req.contentType ?? ''} ${(c.req.body ?? '').slice(0, 300)}`;
  return { id: c.id, tags: c.tags, aspects, fake, real, req };
}

/** The same case in fresh namespaces and names of the same length (`fz37-12` becomes `fr37-12`). */
function rerun(c: Case, seed: number): Case {
  const from = `fz${seed % 1000}-${c.id}`;
  const to = `fr${seed % 1000}-${c.id}`;
  return JSON.parse(JSON.stringify(c).split(from).join(to)) as Case;
}

async function pool<T>(items: T[], n: number, f: (x: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) await f(items[next++]);
    }),
  );
}

describe(`the fake API server answers generated requests as kube-apiserver does (fuzz, seed ${SEED}, ${COUNT} requests)`, () => {
  const env = new TestEnvironment({ crdDirectoryPaths: [crdDir], errorIfCRDPathMissing: true });
  let fake: FakeAPIServer;
  let toFake: Send;
  let toReal: Send;
  const diffs: Diff[] = [];
  let ran = 0;

  before(async () => {
    await env.start();
    fake = await FakeAPIServer.start({ crdDirectoryPaths: [crdDir] });
    toFake = await rawClient(fake.config);
    toReal = await rawClient(env.config);
  });
  after(async () => {
    await fake?.stop();
    await env.stop();
  });

  it('runs every case on both servers and keeps the differences', { timeout: 30 * 60_000 }, async () => {
    const started = Date.now();
    const cases = Array.from({ length: COUNT }, (_, i) => generate(SEED, i));
    await pool(cases, PARALLEL, async (c) => {
      const [f, r] = await Promise.all([runCase(toFake, c), runCase(toReal, c)]);
      ran++;
      assert.notEqual(r.code, -1, `case ${c.id}: the real server refused the setup: ${r.message}`);
      const d = differences(c, f, r);
      if (d) diffs.push(d);
    });
    // A difference no entry covers counts when it happens again: the case runs once more in fresh
    // namespaces and names (same lengths), so that the real server's own nondeterminism (its
    // watch cache, Go's map order) is not reported as the fake's.
    const isCovered = (d: Diff) => d.aspects.every((a) => Object.values(KNOWN).some((k) => k.covers(d, a)));
    for (const [i, d] of [...diffs.entries()].reverse()) {
      if (isCovered(d)) continue;
      const again = rerun(generate(SEED, d.id), SEED);
      const [f, r] = await Promise.all([runCase(toFake, again), runCase(toReal, again)]);
      const d2 = differences(again, f, r);
      if (!d2 || isCovered(d2)) {
        console.log(`fuzz: case ${d.id} differed once and not again: ${d.aspects.join(', ')}`);
        diffs.splice(i, 1);
      }
    }
    diffs.sort((a, b) => a.id - b.id);
    if (process.env.KUBEFORGE_FUZZ_DUMP) {
      const covered = (d: Diff) => d.aspects.every((a) => Object.values(KNOWN).some((k) => k.covers(d, a)));
      writeFileSync(
        process.env.KUBEFORGE_FUZZ_DUMP,
        JSON.stringify(
          diffs.filter((d) => process.env.KUBEFORGE_FUZZ_DUMP_ALL === '1' || !covered(d)),
          null,
          1,
        ),
      );
    }
    console.log(
      `fuzz: seed ${SEED}, ${ran} requests, ${diffs.length} differences, ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    for (const [name, k] of Object.entries(KNOWN)) {
      const alone = diffs.filter((d) =>
        d.aspects.some((a) => k.covers(d, a) && !Object.entries(KNOWN).some(([n, o]) => n !== name && o.covers(d, a))),
      );
      console.log(`fuzz: ${alone.length} differences need "${name}"`);
    }
    assert.equal(ran, COUNT);
  });

  it('every difference is a known one', () => {
    const covered = (d: Diff) => d.aspects.every((a) => Object.values(KNOWN).some((k) => k.covers(d, a)));
    const unknown = diffs.filter((d) => !covered(d));
    const show = unknown.slice(0, 5).map((d) => JSON.stringify(d, null, 1));
    assert.equal(
      unknown.length,
      0,
      `${unknown.length} differences not on the known list; the first:\n${show.join('\n')}`,
    );
  });

  it('every known difference is still needed (else it is stale: remove it)', () => {
    // Another seed or count need not meet every entry: staleness is judged on the CI's run.
    if (SEED !== DEFAULT_SEED || COUNT !== DEFAULT_COUNT) return;
    // An entry is needed when it alone covers some aspect of some difference.
    const needed = (name: string) =>
      diffs.some((d) =>
        d.aspects.some(
          (a) => KNOWN[name].covers(d, a) && !Object.entries(KNOWN).some(([n, k]) => n !== name && k.covers(d, a)),
        ),
      );
    const stale = Object.keys(KNOWN).filter((name) => !KNOWN[name].sometimes && !needed(name));
    assert.deepEqual(stale, []);
  });
});
