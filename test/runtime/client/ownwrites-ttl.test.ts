// Read-your-own-writes under a watch gone silent without closing: the cache stays behind the
// manager's own write for longer than PENDING_TTL_MS. The kept answer used to expire then, and a
// cached get returned the stale cache (reconciles acted on stale reads: 9 and 36 of them in two
// 15 s stalls on kube-apiserver 1.37). Now the entry stays until the cache has caught up, and after
// the TTL a get reads the API server instead of the stale cache. OwnWrites is judged with its
// injectable clock; the client on the fake API server, with a cache frozen at the version before
// the write and Date mocked.
import assert from 'node:assert/strict';
import { after, before, describe, it, mock } from 'node:test';
import type { KubernetesObject } from '@kubernetes/client-node';
import { newClient } from '../../../src/runtime/client/index.js';
import { OwnWrites, PENDING_TTL_MS, READ_FROM_SERVER } from '../../../src/runtime/client/ownwrites.js';
import type { Cache } from '../../../src/runtime/contracts.js';
import { FakeAPIServer } from '../../../src/testing/index.js';

const cm = (rv: string, value: string): KubernetesObject & { data: Record<string, string> } =>
  ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'a', namespace: 'n', resourceVersion: rv },
    data: { value },
  }) as never;

describe('OwnWrites: a cache behind the own write after PENDING_TTL_MS', () => {
  it('the kept answer stands in while the cache is behind; after the TTL the server is asked, never the stale cache', () => {
    let now = 1_000;
    const own = new OwnWrites(() => now);
    own.record('k', cm('5', 'written'));
    assert.deepEqual((own.newer('k', cm('4', 'stale')) as { data: unknown }).data, { value: 'written' });
    now += PENDING_TTL_MS + 1;
    const answer = own.newer('k', cm('4', 'stale'));
    assert.notEqual(answer, undefined, 'undefined means "use the cache": it holds version 4 of a version-5 write');
    assert.equal(answer, READ_FROM_SERVER);
    assert.ok(own.has('k'), 'the entry stays while the cache is behind');
    // An hour of silence changes nothing.
    now += 3_600_000;
    assert.equal(own.newer('k', cm('4', 'stale')), READ_FROM_SERVER);
    assert.equal(own.newer('k', undefined), READ_FROM_SERVER, 'nor a cache without the object (after a create)');
  });

  it("the server's answer stands in for another TTL (not counted as an own write); then the server again", () => {
    let now = 0;
    const own = new OwnWrites(() => now);
    own.record('k', cm('5', 'written'));
    now += PENDING_TTL_MS + 1;
    assert.equal(own.newer('k', cm('4', 'stale')), READ_FROM_SERVER);
    own.refreshed('k', cm('7', 'someone else'));
    assert.deepEqual((own.newer('k', cm('4', 'stale')) as { data: unknown }).data, { value: 'someone else' });
    assert.ok(own.isOwn('k', '5') && !own.isOwn('k', '7'), "the server's version is not this client's write");
    now += PENDING_TTL_MS + 1;
    assert.equal(own.newer('k', cm('6', 'stale')), READ_FROM_SERVER);
  });

  it('the entry goes when the cache has that version or a newer one, or when the server says the object is gone', () => {
    let now = 0;
    const own = new OwnWrites(() => now);
    own.record('k', cm('5', 'written'));
    now += PENDING_TTL_MS + 1;
    assert.equal(own.newer('k', cm('5', 'caught up')), undefined);
    assert.ok(!own.has('k'));
    own.record('k', cm('8', 'written'));
    assert.equal(own.newer('k', cm('9', 'newer')), undefined, 'a newer version in the cache: the cache answers');
    own.record('k', cm('10', 'written'));
    now += PENDING_TTL_MS + 1;
    own.refreshed('k', undefined);
    assert.ok(!own.has('k'), 'NotFound from the server drops it');
  });
});

describe('the cache-backed client with readYourOwnWrites, its cache frozen behind its write (a silent watch)', () => {
  let fake: FakeAPIServer;
  before(async () => {
    fake = await FakeAPIServer.start({
      objects: [
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'a', namespace: 'n' },
          data: { value: 'first' },
        } as never,
      ],
    });
  });
  after(async () => {
    mock.timers.reset();
    await fake?.stop();
  });

  it('a get after PENDING_TTL_MS returns what the server holds, not the stale cache', async () => {
    const other = fake.client();
    const first = await other.get<KubernetesObject & { data: Record<string, string> }>(
      { apiVersion: 'v1', kind: 'ConfigMap' },
      { namespace: 'n', name: 'a' },
    );
    // The informer saw `first`, then its watch went silent.
    const frozen = structuredClone(first);
    let cacheReads = 0;
    const cache = {
      get: async () => {
        cacheReads++;
        return structuredClone(frozen);
      },
    } as unknown as Cache;
    mock.timers.enable({ apis: ['Date'], now: Date.now() });
    const client = newClient(fake.config, { cache, readYourOwnWrites: true, fieldOwner: 'me' });
    const type = { apiVersion: 'v1', kind: 'ConfigMap' };
    const key = { namespace: 'n', name: 'a' };
    const written = await client.update({ ...first, data: { value: 'mine' } });
    assert.equal(((await client.get(type, key)) as typeof first).data.value, 'mine', 'the own write, within the TTL');
    // Someone else writes; the frozen cache never hears of it.
    await other.update({ ...written, data: { value: 'theirs' } } as never);
    mock.timers.tick(PENDING_TTL_MS + 1);
    const read = (await client.get(type, key)) as typeof first;
    assert.notEqual(read.data.value, 'first', 'the stale cache answered');
    assert.equal(read.data.value, 'theirs', "the server's current version");
    assert.equal(cacheReads, 2, 'each get asked the cache first');
  });
});
