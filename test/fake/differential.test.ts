// The fake API server judged by the real one: every scenario of ./scenarios.ts runs against
// kubeforge/testing's FakeAPIServer and against a real kube-apiserver + etcd with the same CRDs;
// the transcripts (answers, errors with code, reason, message and causes, watch events) must be
// equal after normalisation. A scenario where they differ is either a failing test or listed in
// KNOWN below with its reason, and then asserted to still differ (so a fix removes it from the list).
// FAKE_DIFF_DUMP=<folder> writes both transcripts of every scenario there, to read a difference.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RestClient } from '../../src/runtime/client/rest.js';
import { StatusError } from '../../src/runtime/client/errors.js';
import { FakeAPIServer, TestEnvironment } from '../../src/testing/index.js';
import { SCENARIOS, type Run } from './scenarios.js';
import { must } from '../helpers/must.js';

const root = process.env.KUBEFORGE_REPO_ROOT ?? process.cwd();
const crdDir = join(root, 'test/fixtures/fake');

/** Scenarios where the fake is known to answer otherwise, and why (docs/testing.md, "Testing without an API server"). */
const KNOWN: Record<string, string> = {
  'create refused: the body names another kind':
    "a body whose kind is not the URL's: the server validates it as the URL's Kind without its defaults (422, kind: must be Widget, and CEL errors); the fake refuses it with 400 BadRequest",
  'built-in: a false, 0 or "" in a Go field that is not a pointer is not kept':
    'the server prints a Go struct, whose zero values of fields that are not pointers are omitted (paused: false, minReadySeconds: 0); the models the fake decodes with do not say which fields are pointers, so it keeps them as sent',
};

/** The bookmark that ends a streaming list's initial events (annotation k8s.io/initial-events-end). */
function isInitialEventsEnd(o: unknown): o is { metadata: Record<string, unknown> } {
  const md = (o as { metadata?: { annotations?: Record<string, string> } } | undefined)?.metadata;
  return md?.annotations?.['k8s.io/initial-events-end'] === 'true';
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

type Step =
  | { label: string; ok?: unknown; error?: unknown }
  | { label: string; events: unknown[] }
  | { label: string; note: unknown };

/** Replaces what differs by nature between two servers: uids, times, resourceVersion numbers, generated name suffixes. */
class Normalizer {
  private readonly ids = new Map<string, string>();
  private readonly rvs = new Map<string, string>();

  value(v: unknown, key = ''): unknown {
    if (Array.isArray(v)) return v.map((x) => this.value(x, key === 'clusterIPs' ? 'clusterIP' : ''));
    if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(o).sort()) {
        if (k === 'managedFields' || k === 'selfLink') continue;
        out[k] = this.value(o[k], k);
      }
      const m = out.metadata as Record<string, unknown> | undefined;
      if (m && typeof m.generateName === 'string' && typeof m.name === 'string' && m.name.startsWith(m.generateName))
        m.name = `${m.generateName}<suffix>`;
      // A list's resourceVersion is the store's current revision: on a real server other writers
      // (leases, other scenarios) move it, so only its presence is compared.
      if (typeof out.kind === 'string' && out.kind.endsWith('List') && m && 'resourceVersion' in m)
        m.resourceVersion = '<list>';
      if (m && typeof m.continue === 'string' && m.continue !== '') m.continue = '<token>';
      return out;
    }
    if (typeof v !== 'string') return v;
    // A uid also appears as a label value (a Job's controller-uid) and in a selector.
    if (key === 'uid' || UUID.test(v)) return this.map(this.ids, v, 'uid');
    // A Service's cluster IP is allocated from the service range: only its presence is compared.
    if (key === 'clusterIP' && v !== 'None') return '<cluster-ip>';
    // The service-account token volume of a Pod ends in 5 random letters.
    if (/^kube-api-access-[a-z0-9]{5}$/.test(v)) return 'kube-api-access-<suffix>';
    if (key === 'resourceVersion') return this.map(this.rvs, v, 'rv');
    if (key === 'creationTimestamp' || key === 'deletionTimestamp') return '<time>';
    return v;
  }

  private map(m: Map<string, string>, v: string, prefix: string): string {
    if (!m.has(v)) m.set(v, `${prefix}${m.size + 1}`);
    return must(m.get(v), 'm.get(v)');
  }

  error(e: unknown): unknown {
    if (!(e instanceof StatusError)) return { thrown: String(e) };
    const st = e.status as {
      message?: string;
      details?: {
        name?: string;
        group?: string;
        kind?: string;
        causes?: { reason?: string; message?: string; field?: string }[];
      };
    };
    const causes = [...(st.details?.causes ?? [])]
      .map((c) => ({
        reason: c.reason,
        field: c.field,
        message: c.message?.replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z/g, '<time>'),
      }))
      .sort((a, b) => `${a.field} ${a.message}`.localeCompare(`${b.field} ${b.message}`));
    let message = (st.message ?? '')
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (u) => this.map(this.ids, u, 'uid'))
      .replace(
        /ResourceVersion in record \((\d+)\)/,
        (_, rv: string) => `ResourceVersion in record (${this.map(this.rvs, rv, 'rv')})`,
      )
      .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z/g, '<time>');
    // The API server lists several errors in map order: compare them as a set.
    if (causes.length > 1 && message.includes(': ['))
      message = `${message.slice(0, message.indexOf(': [') + 2)}{${causes.map((c) => `${c.field}: ${c.message}`).join(' | ')}}`;
    const details = st.details
      ? {
          name: st.details.name,
          group: st.details.group,
          kind: st.details.kind,
          causes: causes.length ? causes : undefined,
        }
      : undefined;
    return { code: e.code, reason: e.reason, message, details: this.value(details) };
  }
}

async function runScenario(rest: RestClient, ns: string, run: (s: Run) => Promise<void>): Promise<Step[]> {
  const steps: Step[] = [];
  const n = new Normalizer();
  await rest.request('POST', '/api/v1/namespaces', {
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
  });
  const s: Run = {
    ns,
    rest,
    async do(label, method, path, body, o = {}) {
      try {
        const answer = await rest.request(method, path, {
          body,
          contentType: o.contentType,
          query: o.query,
          accept: o.accept,
          what: '',
        });
        steps.push({
          label,
          ok: o.quiet
            ? true
            : n.value(
                method === 'DELETE' && (answer as { kind?: string })?.kind === 'Status'
                  ? { kind: 'Status', status: (answer as { status?: string }).status }
                  : answer,
              ),
        });
        return answer;
      } catch (e) {
        steps.push({ label, error: n.error(e) });
        return undefined;
      }
    },
    async watch(label, path, query = {}, accept) {
      const events: unknown[] = [];
      let lastEvent = 0;
      const { res, req } = await rest.stream(path, { query: { watch: 'true', ...query }, accept });
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        buf += c;
        for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
          const line = buf.slice(0, i);
          buf = buf.slice(i + 1);
          if (!line.trim()) continue;
          const ev = JSON.parse(line) as { type: string; object: unknown };
          // Bookmarks come when each server likes (the fake's every second), except the one that
          // ends a streaming list's initial events: that one is compared, at a placeholder revision
          // (the real server's is its newest, which other writers move).
          if (ev.type !== 'BOOKMARK') events.push({ type: ev.type, object: ev.object });
          else if (isInitialEventsEnd(ev.object))
            events.push({
              type: ev.type,
              object: { ...ev.object, metadata: { ...ev.object.metadata, resourceVersion: '<bookmark>' } },
            });
          lastEvent = Date.now();
        }
      });
      res.on('error', () => undefined);
      return {
        stop: async () => {
          // Events of the last write reach the watch shortly after its answer: wait until none
          // came for 600 ms (at most 5 s), so a loaded machine does not cut the transcript short.
          const since = Date.now();
          while (Date.now() - Math.max(lastEvent, since) < 600 && Date.now() - since < 5_000)
            await new Promise((r) => setTimeout(r, 50));
          req.destroy();
          steps.push({ label, events: events.map((e) => n.value(e)) });
        },
      };
    },
    note(label, value) {
      steps.push({ label, note: value });
    },
  };
  await run(s);
  return steps;
}

describe('the fake API server answers as a real kube-apiserver (differential)', () => {
  const env = new TestEnvironment({ crdDirectoryPaths: [crdDir], errorIfCRDPathMissing: true });
  let real: RestClient;
  let fake: FakeAPIServer;
  let fakeRest: RestClient;

  before(async () => {
    await env.start();
    real = new RestClient(env.config);
    fake = await FakeAPIServer.start({ crdDirectoryPaths: [crdDir] });
    fakeRest = new RestClient(fake.config);
  });
  after(async () => {
    real?.close();
    fakeRest?.close();
    await fake?.stop();
    await env.stop();
  });

  it('has at least 150 scenarios, each named once', () => {
    assert.ok(SCENARIOS.length >= 150, `${SCENARIOS.length} scenarios`);
    assert.equal(new Set(SCENARIOS.map((s) => s.name)).size, SCENARIOS.length);
    for (const k of Object.keys(KNOWN))
      assert.ok(
        SCENARIOS.some((s) => s.name === k),
        `KNOWN names a scenario that does not exist: ${k}`,
      );
  });

  SCENARIOS.forEach((scenario, i) => {
    it(scenario.name, { timeout: 30_000 }, async () => {
      const ns = `diff-${i}`;
      const fromFake = await runScenario(fakeRest, ns, scenario.run);
      const fromReal = await runScenario(real, ns, scenario.run);
      if (process.env.FAKE_DIFF_DUMP) {
        mkdirSync(process.env.FAKE_DIFF_DUMP, { recursive: true });
        writeFileSync(
          join(process.env.FAKE_DIFF_DUMP, `${i}.json`),
          JSON.stringify({ name: scenario.name, fake: fromFake, real: fromReal }, null, 1),
        );
      }
      const why = KNOWN[scenario.name];
      if (why) {
        assert.notDeepEqual(
          fromFake,
          fromReal,
          `listed as a known difference (${why}) but the fake now answers as the server: remove it from KNOWN`,
        );
        return;
      }
      assert.deepEqual(fromFake, fromReal);
    });
  });
});
