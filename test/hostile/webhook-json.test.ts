// Hostile input, second round, family 5: the webhook server under deeply nested JSON, through
// real HTTPS requests. A 4 MB review nested 2,000,000 deep used to block every webhook and
// conversion for about 15 s and count as a user panic; it is now refused 400 before any parse
// (Go's decoder limit, 10,000 levels), and a small review sent beside it is answered.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { withCustomValidator } from '../../src/runtime/webhook/index.js';
import { nestedDeeperThan } from '../../src/runtime/webhook/server.js';
import { admissionReview, metricValue, request, startServer } from '../runtime/webhook/helpers.js';
import { must } from '../helpers/must.js';

describe('hostile: deeply nested JSON at the webhook server (HTTPS)', () => {
  it('a review nested 2,000,000 deep is refused 400 before any parse, and a small review beside it is not held up', async () => {
    const srv = await startServer((s) =>
      s.register('/validate', withCustomValidator({ validateCreate() {}, validateUpdate() {}, validateDelete() {} })),
    );
    try {
      const port = must(srv.server.port, 'srv.server.port');
      const depth = 2_000_000;
      // 4 MB, under the 7 MiB limit.
      const nested = `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","object":{"a":${'['.repeat(depth)}${']'.repeat(depth)}}}}`;
      const started = performance.now();
      const [deep, small] = await Promise.all([
        request(port, '/validate', undefined, { raw: nested }),
        // Sent just after: answered while (or as soon as) the deep one is refused.
        new Promise((r) => setTimeout(r, 20)).then(() =>
          request(port, '/validate', admissionReview('CREATE', { object: {} })),
        ),
      ]);
      const elapsed = performance.now() - started;
      assert.equal(deep.status, 400);
      assert.match(deep.text, /^malformed request body: JSON nested deeper than 10000 levels/);
      assert.equal(small.json.response.allowed, true);
      // Not a timing threshold on speed, a bound on blocking: the old path took about 15 s.
      assert.ok(elapsed < 5_000, `${Math.round(elapsed)} ms`);
      assert.equal(
        await metricValue(srv.registry, 'controller_runtime_webhook_panics_total'),
        0,
        'no user code ran: no panic',
      );
      // 10,000 levels are still JSON a handler gets (Go's limit, inclusive).
      const edge = `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","operation":"CREATE","object":{"x":${'['.repeat(9_996)}${']'.repeat(9_996)}}}}`;
      assert.equal((await request(port, '/validate', undefined, { raw: edge })).status, 200);
    } finally {
      await srv.stop();
    }
  });

  it('counts brackets inside strings as text', async () => {
    assert.equal(nestedDeeperThan(Buffer.from(`{"a":"${'['.repeat(50)}\\"${'{'.repeat(50)}"}`), 3), false);
    assert.equal(nestedDeeperThan(Buffer.from('[[[[]]]]'), 3), true);
    assert.equal(nestedDeeperThan(Buffer.from('[[[]]]'), 3), false);
  });
});
