// A sharded informer against servers that misbehave, which a real kube-apiserver cannot be made to
// do (the real ones are judged in apiserver.test.ts): one that refuses the shardSelector (as a
// server of another KEP-5866 syntax would) must fall back to client-side filtering; one that says
// it filtered (metadata.shardInfo) but sends an object outside the shard must not get it cached.
// The server is a local HTTP one that records every query; it serves no streaming lists (it
// refuses sendInitialEvents as a server with the WatchList gate off does), so the informer lists.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import pino from 'pino';
import { RestClient } from '../../../src/runtime/client/rest.js';
import { SharedInformer } from '../../../src/runtime/cache/informer.js';
import { ShardMatcher, type ShardSpec, equalRanges } from '../../../src/runtime/sharding/index.js';
import { must } from '../../helpers/must.js';

/** A uid-shaped value that differs everywhere from the next one (FNV-1a's top bits hardly move when only the last characters change). */
function uidOf(i: number): string {
  const h = createHash('sha256').update(String(i)).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

const SHARD: ShardSpec = { field: 'uid', ranges: [equalRanges(2)[0]] };
const matcher = new ShardMatcher(SHARD);
const objects: KubernetesObject[] = Array.from({ length: 40 }, (_, i) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {
    namespace: 'ns',
    name: `cm-${i}`,
    uid: uidOf(i),
    resourceVersion: '7',
  },
}));
const inShard = objects
  .filter((o) => matcher.matches(o))
  .map((o) => `ns/${must(o.metadata, 'o.metadata').name}`)
  .sort();

let behaviour: 'refuses' | 'leaks' = 'refuses';
const queries: URLSearchParams[] = [];
let server: http.Server;
let config: KubeConfig;

before(async () => {
  server = http.createServer((req, res) => {
    const q = new URL(req.url ?? '/', 'http://x').searchParams;
    queries.push(q);
    const json = (status: number, body: unknown) =>
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    // No streaming lists: refused as kube-apiserver refuses them with the WatchList gate off.
    if (q.has('sendInitialEvents'))
      return json(422, {
        kind: 'Status',
        status: 'Failure',
        code: 422,
        reason: 'Invalid',
        message:
          'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled',
      });
    if (q.get('watch') === 'true') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
      return; // held open until the informer stops
    }
    const selector = q.get('shardSelector');
    if (selector && behaviour === 'refuses')
      return json(500, {
        kind: 'Status',
        status: 'Failure',
        code: 500,
        reason: 'InternalError',
        message: "invalid shard selector: expected 'shardRange(' at position 0",
      });
    // 'leaks': filters, says so, and slips one object of another shard in.
    const items = selector
      ? [...objects.filter((o) => matcher.matches(o)), objects.find((o) => !matcher.matches(o))]
      : objects;
    const meta = { resourceVersion: '7', ...(selector ? { shardInfo: { selector } } : {}) };
    json(200, {
      kind: 'ConfigMapList',
      apiVersion: 'v1',
      metadata: meta,
      items: items.slice(0, Number(q.get('limit')) || undefined),
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  config = new KubeConfig();
  config.loadFromOptions({
    clusters: [
      { name: 'c', server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, skipTLSVerify: true },
    ],
    users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
});
after(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

async function run(): Promise<{ informer: SharedInformer; lines: Record<string, unknown>[] }> {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  const rest = new RestClient(config);
  const informer = new SharedInformer(
    rest,
    { group: '', version: 'v1', kind: 'ConfigMap', apiVersion: 'v1', plural: 'configmaps', namespaced: true },
    { logger, shard: SHARD, pageSize: 500 },
  );
  const ac = new AbortController();
  const done = informer.run(ac.signal);
  assert.equal(await informer.waitForSync(), true);
  // Let the watch request arrive before stopping (not the refused streaming list).
  for (let i = 0; i < 100 && !queries.some((q) => q.get('watch') === 'true' && !q.has('sendInitialEvents')); i++)
    await new Promise((r) => setTimeout(r, 10));
  ac.abort();
  await done;
  rest.close();
  return { informer, lines };
}

describe('a sharded informer with a misbehaving server', { timeout: 30_000 }, () => {
  it('a server that refuses the selector: client mode with a warning, no selector sent again, the shard held', async () => {
    behaviour = 'refuses';
    queries.length = 0;
    const { informer, lines } = await run();
    assert.equal(informer.shardMode(), 'client');
    assert.deepEqual(informer.getIndexer().listKeys(), inShard);
    assert.ok(inShard.length > 0 && inShard.length < objects.length);
    assert.equal(informer.shardDroppedCount(), objects.length - inShard.length);
    const warn = lines.find((l) => l.level === 40);
    assert.match(String(warn?.msg), /refused the shardSelector; filtering client-side/);
    assert.equal(queries[0].get('shardSelector') !== null && queries[0].get('limit'), '1', 'the probe');
    assert.ok(
      queries.slice(1).every((q) => !q.has('shardSelector')),
      'list and watch without the selector',
    );
    assert.ok(queries.some((q) => q.get('watch') === 'true'));
  });

  it('a server that says it filtered but sends an outsider: the outsider is dropped and reported', async () => {
    behaviour = 'leaks';
    queries.length = 0;
    const { informer, lines } = await run();
    assert.equal(informer.shardMode(), 'server');
    assert.deepEqual(informer.getIndexer().listKeys(), inShard);
    assert.equal(informer.shardDroppedCount(), 1);
    assert.ok(lines.some((l) => l.level === 40 && /outside the shard; dropped/.test(String(l.msg))));
    assert.ok(
      queries.every((q) => q.has('shardSelector')),
      'probe, list and watch all carry the selector',
    );
    assert.ok(queries.some((q) => q.get('watch') === 'true'));
  });
});
