// The transport retries what the API server says was not acted on, as client-go does: a 429, or a
// 5xx with Retry-After, is sent again after the wait it names (at most 10 times). A current API
// server answers a list 429 "storage is (re)initializing" (Retry-After: 1) while the watch cache
// of a new CRD starts; without this a reconcile right after install failed. The server here is a
// local HTTP one, so that the count and the waits are exact.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { RestClient } from '../../../src/runtime/client/rest.js';
import { StatusError } from '../../../src/runtime/client/errors.js';

describe('Retry-After', () => {
  let server: http.Server;
  let client: RestClient;
  /** What the next answers are: [status, retry-after header or undefined]. */
  let script: [number, string | undefined][] = [];
  const seen: { method: string; body: string; at: number }[] = [];

  before(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        seen.push({ method: req.method ?? '', body, at: Date.now() });
        const [status, retryAfter] = script.shift() ?? [200, undefined];
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (retryAfter !== undefined) headers['retry-after'] = retryAfter;
        const reason = status === 429 ? 'TooManyRequests' : status >= 500 ? 'InternalError' : '';
        res
          .writeHead(status, headers)
          .end(
            JSON.stringify(
              status === 200
                ? { kind: 'ConfigMap', metadata: { name: 'x' } }
                : { kind: 'Status', status: 'Failure', code: status, reason, message: 'storage is (re)initializing' },
            ),
          );
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [
        { name: 'c', server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, skipTLSVerify: true },
      ],
      users: [{ name: 'u', token: 't' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    client = new RestClient(kc);
  });
  after(async () => {
    client.close();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('a 429 with Retry-After is sent again after the wait, body included; then the answer counts', async () => {
    seen.length = 0;
    script = [
      [429, '1'],
      [503, '0'],
    ];
    const r = await client.request('POST', '/api/v1/namespaces/default/configmaps', { body: { a: 1 } });
    assert.equal(r.metadata.name, 'x');
    assert.deepEqual(
      seen.map((s) => [s.method, s.body]),
      [
        ['POST', '{"a":1}'],
        ['POST', '{"a":1}'],
        ['POST', '{"a":1}'],
      ],
    );
    assert.ok(seen[1].at - seen[0].at >= 900, `waited ${seen[1].at - seen[0].at} ms`);
  });

  it('no Retry-After, or a 4xx other than 429: no retry', async () => {
    for (const answer of [
      [429, undefined],
      [500, undefined],
      [409, '1'],
    ] as [number, string | undefined][]) {
      seen.length = 0;
      script = [answer];
      await assert.rejects(
        client.request('GET', '/api/v1/namespaces/default/configmaps/x'),
        (e: unknown) => e instanceof StatusError && e.code === answer[0],
      );
      assert.equal(seen.length, 1);
    }
  });

  it('gives up after 10 retries with the last answer', async () => {
    seen.length = 0;
    script = Array.from({ length: 12 }, () => [429, '0'] as [number, string]);
    await assert.rejects(
      client.request('GET', '/api/v1/namespaces/default/configmaps/x'),
      (e: unknown) => e instanceof StatusError && e.code === 429 && /storage is \(re\)initializing/.test(e.message),
    );
    assert.equal(seen.length, 11);
  });

  it('an abort during the wait rejects at once', async () => {
    script = [[429, '30']];
    const ac = new AbortController();
    const started = Date.now();
    setTimeout(() => ac.abort(), 100);
    await assert.rejects(
      client.request('GET', '/api/v1/namespaces/default/configmaps/x', { signal: ac.signal }),
      /abort/i,
    );
    assert.ok(Date.now() - started < 5000);
    script = [];
  });
});
