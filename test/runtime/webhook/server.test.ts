// The webhook server over real HTTPS on 127.0.0.1: robustness (400 / 404 / 405 / 413 / 503),
// the error log of a rejected review, certificate rotation without restart, HTTP/2 negotiation,
// graceful stop, readiness, metrics, and the Manager starting it only when it has handlers.
import assert from 'node:assert/strict';
import { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import http2 from 'node:http2';
import https from 'node:https';
import net from 'node:net';
import { join } from 'node:path';
import tls from 'node:tls';
import { describe, it } from 'node:test';
import pino from 'pino';
import { Registry } from 'prom-client';
import { generateSelfSignedCert } from '../../../src/runtime/manager/selfsigned.js';
import { newManager } from '../../../src/runtime/manager/index.js';
import {
  WebhookServer,
  newWebhookServer,
  withCustomValidator,
  type WebhookHandler,
} from '../../../src/runtime/webhook/index.js';
import { defaultCertDir } from '../../../src/runtime/webhook/server.js';
import { WebhookHttpError } from '../../../src/runtime/webhook/handler.js';
import {
  admissionReview,
  certFolder,
  eventually,
  fingerprintOf,
  metricValue,
  offlineConfig,
  quiet,
  request,
  startServer,
} from './helpers.js';
import { must } from '../../helpers/must.js';

const echo: WebhookHandler = { handle: async (body) => ({ echoed: body }) };

describe('WebhookServer requests', () => {
  it('answers JSON from the handler for POST application/json', async () => {
    const srv = await startServer((s) => s.register('/echo', echo));
    try {
      const r = await request(
        must(srv.server.port, 'srv.server.port'),
        '/echo',
        { a: [1, 'x'] },
        { headers: { 'Content-Type': 'application/json; charset=utf-8' } },
      );
      assert.equal(r.status, 200);
      assert.equal(r.headers['content-type'], 'application/json');
      assert.deepEqual(r.json, { echoed: { a: [1, 'x'] } });
      const q = await request(must(srv.server.port, 'srv.server.port'), '/echo?timeout=10s', { b: 1 });
      assert.deepEqual(q.json, { echoed: { b: 1 } }, 'the query string is not part of the path');
    } finally {
      await srv.stop();
    }
  });

  it('answers 400 with a plain-text message for malformed or wrong-version reviews, and keeps serving', async () => {
    const srv = await startServer((s) => {
      s.register('/validate', withCustomValidator({ validateCreate() {}, validateUpdate() {}, validateDelete() {} }));
      s.register('/echo', echo);
    });
    try {
      const port = must(srv.server.port, 'srv.server.port');
      const cases: [string, Parameters<typeof request>[3] & { body?: unknown }, RegExp][] = [
        ['bad JSON', { raw: '{"apiVersion": ' }, /^malformed request body: /],
        ['empty body', { raw: '' }, /^malformed request body: request body is empty/],
        [
          'wrong content type',
          { raw: '{}', headers: { 'Content-Type': 'text/plain' } },
          /^contentType=text\/plain, expected application\/json/,
        ],
        [
          'v2',
          { body: { apiVersion: 'admission.k8s.io/v2', kind: 'AdmissionReview', request: { uid: 'x' } } },
          /expected an admission\.k8s\.io\/v1 or v1beta1 AdmissionReview, got admission\.k8s\.io\/v2 AdmissionReview/,
        ],
        ['other kind', { body: { apiVersion: 'admission.k8s.io/v1', kind: 'Pod' } }, /got admission\.k8s\.io\/v1 Pod/],
        ['an array', { body: [1, 2] }, /got an array/],
        ['null', { raw: 'null' }, /got object/],
        [
          'no request',
          { body: { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' } },
          /the AdmissionReview has no request/,
        ],
        [
          'no uid',
          { body: { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { operation: 'CREATE' } } },
          /the AdmissionReview request has no uid/,
        ],
      ];
      for (const [what, opts, message] of cases) {
        const r = await request(port, '/validate', opts.body, opts);
        assert.equal(r.status, 400, what);
        assert.match(r.headers['content-type'] as string, /^text\/plain/, what);
        assert.match(r.text, message, what);
      }
      assert.equal(
        await metricValue(srv.registry, 'controller_runtime_webhook_requests_total', {
          webhook: '/validate',
          code: '400',
        }),
        cases.length,
      );
      const ok = await request(port, '/validate', admissionReview('CREATE', { object: {} }));
      assert.equal(ok.json.response.allowed, true);
    } finally {
      await srv.stop();
    }
  });

  it('answers 404 on unknown paths and 405 (Allow: POST) on other methods', async () => {
    const srv = await startServer((s) => s.register('/echo', echo));
    try {
      const nf = await request(must(srv.server.port, 'srv.server.port'), '/nothing', {});
      assert.equal(nf.status, 404);
      assert.match(nf.text, /no webhook is registered for \/nothing/);
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const r = await request(must(srv.server.port, 'srv.server.port'), '/echo', undefined, { method });
        assert.equal(r.status, 405, method);
        assert.equal(r.headers.allow, 'POST');
      }
      assert.equal(
        await metricValue(srv.registry, 'controller_runtime_webhook_requests_total', { webhook: '/echo', code: '405' }),
        3,
      );
    } finally {
      await srv.stop();
    }
  });

  it('answers 413 when the body is over the limit, declared or streamed', async () => {
    let calls = 0;
    const srv = await startServer(
      (s) =>
        s.register('/echo', {
          handle: async (b) => {
            calls++;
            return b;
          },
        }),
      {
        maxRequestBodyBytes: 1024,
      },
    );
    try {
      const port = must(srv.server.port, 'srv.server.port');
      const big = JSON.stringify({ data: 'x'.repeat(2048) });
      const declared = await request(port, '/echo', undefined, { raw: big });
      assert.equal(declared.status, 413);
      assert.equal(declared.text, 'request entity is too large; limit is 1024 bytes\n');
      // Chunked: no Content-Length, the limit is found while reading.
      const streamed = await new Promise<number>((resolve, reject) => {
        const req = https.request(
          {
            host: '127.0.0.1',
            port,
            path: '/echo',
            method: 'POST',
            agent: false,
            rejectUnauthorized: false,
            headers: { 'Content-Type': 'application/json' },
          },
          (res) => {
            res.resume();
            resolve(must(res.statusCode, 'res.statusCode'));
          },
        );
        req.on('error', reject);
        for (let i = 0; i < 8; i++) req.write('x'.repeat(256));
        req.end();
      });
      assert.equal(streamed, 413);
      const fits = await request(port, '/echo', { data: 'x'.repeat(900) });
      assert.equal(fits.status, 200);
      assert.equal(calls, 1);
    } finally {
      await srv.stop();
    }
  });

  it('aborts the handler signal and answers 503 when a request times out', async () => {
    let reason: unknown;
    const srv = await startServer(
      (s) =>
        s.register('/slow', {
          handle: (_b, ctx) =>
            new Promise((resolve) =>
              ctx.signal.addEventListener('abort', () => {
                reason = ctx.signal.reason;
                resolve({ late: true });
              }),
            ),
        }),
      { requestTimeoutMs: 200 },
    );
    try {
      const r = await request(must(srv.server.port, 'srv.server.port'), '/slow', {});
      assert.equal(r.status, 503);
      assert.equal(r.text, 'request timed out after 200ms\n');
      assert.match(String((reason as Error)?.message), /timed out after 200ms/);
      assert.equal(
        await metricValue(srv.registry, 'controller_runtime_webhook_requests_total', { webhook: '/slow', code: '503' }),
        1,
      );
    } finally {
      await srv.stop();
    }
  });

  it('aborts the handler signal when the client goes away', async () => {
    let entered!: () => void;
    const inside = new Promise<void>((r) => (entered = r));
    let aborted!: (reason: unknown) => void;
    const abortedWith = new Promise<unknown>((r) => (aborted = r));
    const srv = await startServer((s) =>
      s.register('/hang', {
        handle: (_b, ctx) =>
          new Promise(() => {
            ctx.signal.addEventListener('abort', () => aborted(ctx.signal.reason));
            entered();
          }),
      }),
    );
    try {
      const req = https.request({
        host: '127.0.0.1',
        port: must(srv.server.port, 'srv.server.port'),
        path: '/hang',
        method: 'POST',
        agent: false,
        rejectUnauthorized: false,
        headers: { 'Content-Type': 'application/json' },
      });
      req.on('error', () => undefined);
      req.end('{}');
      await inside;
      req.destroy();
      assert.match(String(((await abortedWith) as Error).message), /the client closed the connection/);
      await eventually(
        async () =>
          (await metricValue(srv.registry, 'controller_runtime_webhook_requests_in_flight', { webhook: '/hang' })) ===
          0,
        'in-flight back to 0',
      );
      assert.equal(
        await metricValue(srv.registry, 'controller_runtime_webhook_requests_total', { webhook: '/hang', code: '499' }),
        1,
      );
    } finally {
      await srv.stop();
    }
  });

  it('a raw handler that throws answers 400 for WebhookHttpError, 500 otherwise; a non-Error counts as a panic', async () => {
    const srv = await startServer((s) => {
      s.register('/bad', {
        handle: async () => {
          throw new WebhookHttpError(400, 'no good');
        },
      });
      s.register('/boom', {
        handle: async () => {
          throw new Error('kaput');
        },
      });
      s.register('/str', {
        handle: () => {
          throw 'a string';
        },
      });
    });
    try {
      const port = must(srv.server.port, 'srv.server.port');
      assert.deepEqual(
        [(await request(port, '/bad', {})).status, (await request(port, '/bad', {})).text],
        [400, 'no good\n'],
      );
      const boom = await request(port, '/boom', {});
      assert.equal(boom.status, 500);
      assert.equal(boom.text, 'internal error while handling the webhook request\n');
      assert.equal(await metricValue(srv.registry, 'controller_runtime_webhook_panics_total'), 0);
      assert.equal((await request(port, '/str', {})).status, 500);
      assert.equal(await metricValue(srv.registry, 'controller_runtime_webhook_panics_total'), 1);
    } finally {
      await srv.stop();
    }
  });

  it('logs a rejected review at error level with its reason (the API server only says it was rejected)', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'trace' }, { write: (l: string) => lines.push(l) });
    const srv = await startServer(
      (s) => {
        s.register('/validate', withCustomValidator({ validateCreate() {}, validateUpdate() {}, validateDelete() {} }));
        s.register('/bad', {
          handle: async () => {
            throw new WebhookHttpError(422, 'no good');
          },
        });
      },
      { logger },
    );
    try {
      const port = must(srv.server.port, 'srv.server.port');
      const wrongVersion = await request(port, '/validate', {
        apiVersion: 'admission.k8s.io/v2',
        kind: 'AdmissionReview',
        request: { uid: 'x' },
      });
      assert.equal(wrongVersion.status, 400);
      assert.equal((await request(port, '/bad', {})).status, 422);
      assert.equal(
        (await request(port, '/validate', admissionReview('CREATE', { object: {} }))).json.response.allowed,
        true,
      );
      const records = lines.map(
        (l) => JSON.parse(l) as { level: number; msg: string; webhook?: string; status?: number; err?: string },
      );
      const rejected = records.filter((r) => r.msg === 'webhook request rejected');
      assert.deepEqual(
        rejected.map(({ level, webhook, status, err }) => ({ level, webhook, status, err })),
        [
          {
            level: pino.levels.values.error,
            webhook: '/validate',
            status: 400,
            err: 'expected an admission.k8s.io/v1 or v1beta1 AdmissionReview, got admission.k8s.io/v2 AdmissionReview',
          },
          { level: pino.levels.values.error, webhook: '/bad', status: 422, err: 'no good' },
        ],
      );
      assert.equal(
        records.filter((r) => r.level >= pino.levels.values.error).length,
        2,
        'the allowed review logs no error',
      );
    } finally {
      await srv.stop();
    }
  });

  it('records requests_total by code, the latency histogram and in-flight back to 0', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const srv = await startServer((s) =>
      s.register('/wait', {
        handle: async () => {
          await gate;
          return { ok: true };
        },
      }),
    );
    try {
      const pending = request(must(srv.server.port, 'srv.server.port'), '/wait', {});
      await eventually(
        async () =>
          (await metricValue(srv.registry, 'controller_runtime_webhook_requests_in_flight', { webhook: '/wait' })) ===
          1,
        'one request in flight',
      );
      release();
      assert.equal((await pending).status, 200);
      await request(must(srv.server.port, 'srv.server.port'), '/wait', {});
      assert.equal(
        await metricValue(srv.registry, 'controller_runtime_webhook_requests_in_flight', { webhook: '/wait' }),
        0,
      );
      assert.equal(
        await metricValue(srv.registry, 'controller_runtime_webhook_requests_total', { webhook: '/wait', code: '200' }),
        2,
      );
      assert.equal(
        await metricValue(srv.registry, 'controller_runtime_webhook_requests_total', { webhook: '/wait', code: '500' }),
        0,
      );
      assert.equal(
        await metricValue(
          srv.registry,
          'controller_runtime_webhook_latency_seconds',
          { webhook: '/wait' },
          'controller_runtime_webhook_latency_seconds_count',
        ),
        2,
      );
    } finally {
      await srv.stop();
    }
  });
});

/** A new serving certificate swapped in atomically (as a Secret volume does); returns its fingerprint. */
function rotate(certDir: string): string {
  const next = generateSelfSignedCert({ hosts: ['127.0.0.1'] });
  writeFileSync(join(certDir, '.tls.key.new'), next.key);
  writeFileSync(join(certDir, '.tls.crt.new'), next.cert);
  renameSync(join(certDir, '.tls.key.new'), join(certDir, 'tls.key'));
  renameSync(join(certDir, '.tls.crt.new'), join(certDir, 'tls.crt'));
  return fingerprintOf(next.cert);
}

/** A POST of `{}` through a keep-alive agent: the status, the Connection header, the certificate seen, and whether the socket was reused. */
function keepAliveCall(agent: https.Agent, port: number, path: string) {
  return new Promise<{ status: number; connection?: string; fingerprint: string; reused: boolean }>(
    (resolve, reject) => {
      const req = https.request(
        { host: '127.0.0.1', port, path, method: 'POST', agent, headers: { 'Content-Type': 'application/json' } },
        (res) => {
          const fingerprint = (res.socket as tls.TLSSocket).getPeerX509Certificate()?.fingerprint256 ?? '';
          res.resume();
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              connection: res.headers.connection,
              fingerprint,
              reused: req.reusedSocket,
            }),
          );
        },
      );
      req.on('error', reject);
      req.end('{}');
    },
  );
}

describe('WebhookServer certificates', () => {
  it('serves a certificate rotated on disk to new connections without a restart (atomic swap, as a Secret volume)', async () => {
    const srv = await startServer((s) => s.register('/echo', echo));
    try {
      const port = must(srv.server.port, 'srv.server.port');
      assert.equal((await request(port, '/echo', {})).fingerprint, fingerprintOf(srv.ca));
      const want = rotate(srv.certDir);
      await eventually(
        async () => (await request(port, '/echo', {})).fingerprint === want,
        'the new certificate on a new connection',
        15_000,
      );
      // A half-written (invalid) pair is not applied: the server keeps serving the last good one.
      writeFileSync(
        join(srv.certDir, 'tls.crt'),
        '-----BEGIN CERTIFICATE-----\nnot a cert\n-----END CERTIFICATE-----\n',
      );
      const r = await request(port, '/echo', { still: 'ok' });
      assert.equal(r.status, 200);
      assert.equal(r.fingerprint, want);
    } finally {
      await srv.stop();
    }
  });

  it('closes a keep-alive connection that was busy while the certificate rotated, once its response is written', async () => {
    let release!: () => void;
    let entered!: () => void;
    const inHandler = new Promise<void>((r) => (entered = r));
    const gate = new Promise<void>((r) => (release = r));
    const slow: WebhookHandler = {
      handle: async (body) => {
        entered();
        await gate;
        return { echoed: body };
      },
    };
    const srv = await startServer((s) => {
      s.register('/slow', slow);
      s.register('/echo', echo);
    });
    const agent = new https.Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false });
    const call = (path: string) => keepAliveCall(agent, must(srv.server.port, 'srv.server.port'), path);
    try {
      assert.equal((await call('/echo')).connection, 'keep-alive');
      const busy = call('/slow');
      await inHandler;
      const want = rotate(srv.certDir);
      // The reload is seen while the request is still in its handler.
      await eventually(
        async () => (await request(must(srv.server.port, 'srv.server.port'), '/echo', {})).fingerprint === want,
        'the new certificate on a new connection',
        15_000,
      );
      release();
      const done = await busy;
      assert.deepEqual(
        [done.status, done.connection, done.reused],
        [200, 'close', true],
        'the old connection finishes its request, then closes',
      );
      const after = await call('/echo');
      assert.deepEqual(
        [after.fingerprint, after.reused],
        [want, false],
        'the client reconnects and sees the new certificate',
      );
    } finally {
      release();
      agent.destroy();
      await srv.stop();
    }
  });

  it('does not reset an idle keep-alive connection on rotation: its next request is answered, then it closes', async () => {
    const srv = await startServer((s) => s.register('/echo', echo));
    const agent = new https.Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false });
    const call = () => keepAliveCall(agent, must(srv.server.port, 'srv.server.port'), '/echo');
    try {
      const first = await call();
      assert.equal(first.connection, 'keep-alive');
      const want = rotate(srv.certDir);
      await eventually(
        async () => (await request(must(srv.server.port, 'srv.server.port'), '/echo', {})).fingerprint === want,
        'the new certificate on a new connection',
        15_000,
      );
      // The idle connection is still there: the request sent on it is answered (no reset), and closed.
      const onOld = await call();
      assert.deepEqual([onOld.status, onOld.connection, onOld.reused], [200, 'close', true]);
      const after = await call();
      assert.deepEqual(
        [after.fingerprint, after.reused],
        [want, false],
        'the client reconnects and sees the new certificate',
      );
    } finally {
      agent.destroy();
      await srv.stop();
    }
  });

  it('follows a Kubernetes Secret volume: tls.crt -> ..data/tls.crt, with ..data swapped to a new folder', async () => {
    const certs = certFolder();
    const first = join(certs.dir, '..2024_01_01_00_00_00.000000001');
    mkdirSync(first);
    writeFileSync(join(first, 'tls.crt'), certs.cert);
    writeFileSync(join(first, 'tls.key'), certs.key);
    rmSync(join(certs.dir, 'tls.crt'));
    rmSync(join(certs.dir, 'tls.key'));
    symlinkSync('..2024_01_01_00_00_00.000000001', join(certs.dir, '..data'));
    symlinkSync('..data/tls.crt', join(certs.dir, 'tls.crt'));
    symlinkSync('..data/tls.key', join(certs.dir, 'tls.key'));
    const server = newWebhookServer({
      host: '127.0.0.1',
      port: 0,
      certDir: certs.dir,
      logger: quiet(),
      registry: new Registry(),
    });
    server.register('/echo', echo);
    const ac = new AbortController();
    const done = server.start(ac.signal);
    try {
      await server.whenStarted();
      assert.equal(
        (await request(must(server.port, 'server.port'), '/echo', {})).fingerprint,
        fingerprintOf(certs.cert),
      );
      const next = generateSelfSignedCert({ hosts: ['127.0.0.1'] });
      const second = join(certs.dir, '..2024_02_01_00_00_00.000000002');
      mkdirSync(second);
      writeFileSync(join(second, 'tls.crt'), next.cert);
      writeFileSync(join(second, 'tls.key'), next.key);
      symlinkSync('..2024_02_01_00_00_00.000000002', join(certs.dir, '..data_tmp'));
      renameSync(join(certs.dir, '..data_tmp'), join(certs.dir, '..data'));
      rmSync(first, { recursive: true });
      const want = fingerprintOf(next.cert);
      await eventually(
        async () => (await request(must(server.port, 'server.port'), '/echo', {})).fingerprint === want,
        'the swapped certificate',
        15_000,
      );
    } finally {
      ac.abort();
      await done;
      certs.cleanup();
    }
  });

  it('start() rejects naming the files when the certificate is missing, and on a port in use', async () => {
    const empty = certFolder();
    const missing = newWebhookServer({
      host: '127.0.0.1',
      port: 0,
      certDir: join(empty.dir, 'nope'),
      logger: quiet(),
      registry: new Registry(),
    });
    missing.register('/echo', echo);
    await assert.rejects(
      missing.start(new AbortController().signal),
      /cannot read the serving certificate \(.*nope\/tls\.crt, .*nope\/tls\.key\)/,
    );
    await assert.rejects(missing.whenStarted(), /cannot read the serving certificate/);
    const srv = await startServer((s) => s.register('/echo', echo));
    try {
      const clash = newWebhookServer({
        host: '127.0.0.1',
        port: must(srv.server.port, 'srv.server.port'),
        certDir: empty.dir,
        logger: quiet(),
        registry: new Registry(),
      });
      await assert.rejects(clash.start(new AbortController().signal), /EADDRINUSE/);
    } finally {
      await srv.stop();
      empty.cleanup();
    }
  });

  it('negotiates HTTP/1.1 only by default and HTTP/2 with enableHttp2 (HTTP/1.1 clients still served)', async () => {
    const alpn = (port: number) =>
      new Promise<string | false>((resolve, reject) => {
        const s = tls.connect(
          { host: '127.0.0.1', port, rejectUnauthorized: false, ALPNProtocols: ['h2', 'http/1.1'] },
          () => {
            resolve(s.alpnProtocol ?? false);
            s.destroy();
          },
        );
        s.on('error', reject);
      });
    const h1 = await startServer((s) => s.register('/echo', echo));
    try {
      assert.equal(await alpn(must(h1.server.port, 'h1.server.port')), 'http/1.1');
    } finally {
      await h1.stop();
    }
    const h2 = await startServer((s) => s.register('/echo', echo), { enableHttp2: true });
    try {
      const port = must(h2.server.port, 'h2.server.port');
      assert.equal(await alpn(port), 'h2');
      const session = http2.connect(`https://127.0.0.1:${port}`, { rejectUnauthorized: false });
      const body = await new Promise<string>((resolve, reject) => {
        const stream = session.request({ ':method': 'POST', ':path': '/echo', 'content-type': 'application/json' });
        let text = '';
        stream.setEncoding('utf8');
        stream.on('data', (c) => (text += c));
        stream.on('end', () => resolve(text));
        stream.on('error', reject);
        stream.end('{"over":"h2"}');
      });
      session.close();
      assert.deepEqual(JSON.parse(body), { echoed: { over: 'h2' } });
      const viaH1 = await request(port, '/echo', { over: 'h1' });
      assert.deepEqual(viaH1.json, { echoed: { over: 'h1' } });
      assert.equal((await request(port, '/echo', {}, { raw: '{x' })).status, 400);
    } finally {
      await h2.stop();
    }
  });
});

describe('WebhookServer lifecycle', () => {
  it('stops although a connection accepted before the stop finishes its TLS handshake after it (as a keep-alive client would hold it)', async () => {
    const srv = await startServer((s) => s.register('/echo', echo));
    const raw = net.connect(must(srv.server.port, 'srv.server.port'), '127.0.0.1');
    await new Promise<void>((r, j) => raw.once('connect', () => r()).once('error', j));
    // Accepted, not yet TLS: the stop's sweep of open connections cannot see it.
    const stopped = srv.stop();
    await new Promise((r) => setImmediate(r));
    const client = tls.connect({ socket: raw, rejectUnauthorized: false, ALPNProtocols: ['http/1.1'] });
    client.on('error', () => undefined);
    const closed = new Promise<void>((r) => client.once('close', () => r()));
    // The client never closes it itself: only the server can end it.
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      stopped.then(() => 'stopped'),
      new Promise((r) => (timer = setTimeout(() => r('still running after 10 s'), 10_000))),
    ]);
    clearTimeout(timer);
    client.destroy();
    assert.equal(outcome, 'stopped');
    await closed;
  });

  it('has controller-runtime defaults and rejects bad options and registrations', () => {
    const s = newWebhookServer();
    assert.equal(defaultCertDir().endsWith(join('k8s-webhook-server', 'serving-certs')), true);
    assert.equal(s.needLeaderElection(), false);
    assert.equal(s.port, undefined);
    assert.equal(s.hasHandlers(), false);
    assert.throws(() => newWebhookServer({ port: 70000 }), /port 70000 is out of range/);
    assert.throws(() => newWebhookServer({ maxRequestBodyBytes: 0 }), /maxRequestBodyBytes must be > 0/);
    assert.throws(() => s.register('mutate', echo), /must start with '\/'/);
    assert.throws(() => s.register('/x', {} as never), /no handle\(body, ctx\) method/);
    s.register('/x', echo);
    assert.throws(() => s.register('/x', echo), /already registered for \/x/);
    assert.equal(s.hasHandlers(), true);
  });

  it('the readiness checker flips: fails before start, passes while serving, fails after stop; passes without handlers', async () => {
    assert.equal(await newWebhookServer().startedChecker()({} as never), undefined);
    const certs = certFolder();
    const s = newWebhookServer({
      host: '127.0.0.1',
      port: 0,
      certDir: certs.dir,
      logger: quiet(),
      registry: new Registry(),
    });
    s.register('/echo', echo);
    const check = s.startedChecker();
    await assert.rejects(async () => check({} as never), /webhook server has not been started yet/);
    const ac = new AbortController();
    const done = s.start(ac.signal);
    await s.whenStarted();
    await check({} as never);
    assert.throws(() => s.register('/late', echo), /cannot register \/late: the webhook server is already running/);
    ac.abort();
    await done;
    await assert.rejects(async () => check({} as never), /not been started/);
    certs.cleanup();
  });

  it('stops gracefully: in-flight requests finish, then new connections are refused', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let entered!: () => void;
    const inside = new Promise<void>((r) => (entered = r));
    const srv = await startServer((s) =>
      s.register('/wait', {
        handle: async () => {
          entered();
          await gate;
          return { finished: true };
        },
      }),
    );
    const port = must(srv.server.port, 'srv.server.port');
    const pending = request(port, '/wait', {});
    await inside;
    const stopping = srv.stop();
    let stopped = false;
    void stopping.then(() => (stopped = true));
    await eventually(
      () =>
        request(port, '/nothing', {}).then(
          () => false,
          (e: Error) => /ECONNREFUSED/.test(e.message),
        ),
      'the listener to close',
    );
    assert.equal(stopped, false, 'stop waits for the in-flight request');
    release();
    const r = await pending;
    assert.deepEqual([r.status, r.json], [200, { finished: true }]);
    await stopping;
  });
});

describe('Manager and webhook server', () => {
  it('always has a server: built from options (or defaults), or the one given', () => {
    const a = newManager(offlineConfig(), { logger: quiet() });
    assert.ok(a.getWebhookServer() instanceof WebhookServer);
    assert.equal(a.getWebhookServer(), a.getWebhookServer());
    const given = newWebhookServer({ port: 0 });
    assert.equal(newManager(offlineConfig(), { logger: quiet(), webhookServer: given }).getWebhookServer(), given);
  });

  it('does not start a server without handlers, and then refuses late registrations', async () => {
    const certs = certFolder();
    const mgr = newManager(offlineConfig(), {
      logger: quiet(),
      webhookServer: { host: '127.0.0.1', port: 0, certDir: certs.dir },
    });
    const ac = new AbortController();
    const done = mgr.start(ac.signal);
    await mgr.started();
    assert.equal(mgr.getWebhookServer().port, undefined);
    assert.equal(mgr.getWebhookServer().isStarted(), false);
    assert.throws(
      () => mgr.getWebhookServer().register('/late', echo),
      /cannot register \/late: the manager started without webhooks/,
    );
    ac.abort();
    await done;
    certs.cleanup();
  });

  it('starts it with handlers before started() resolves, serves its metrics on the manager registry, readiness flips, and stops it', async () => {
    const certs = certFolder();
    const mgr = newManager(offlineConfig(), {
      logger: quiet(),
      healthProbeBindAddress: '127.0.0.1:0',
      webhookServer: { host: '127.0.0.1', port: 0, certDir: certs.dir },
    });
    const server = mgr.getWebhookServer();
    server.register('/echo', echo);
    mgr.addReadyzCheck('webhook', server.startedChecker());
    await assert.rejects(async () => server.startedChecker()({} as never), /not been started/);
    const ac = new AbortController();
    const done = mgr.start(ac.signal);
    try {
      await mgr.started();
      const port = must(server.port, 'server.port');
      assert.ok(port > 0);
      const probe = must(mgr.getHealthProbeAddress(), 'mgr.getHealthProbeAddress()');
      const ready = await fetch(`http://127.0.0.1:${probe.port}/readyz/webhook`);
      assert.deepEqual([ready.status, await ready.text()], [200, 'ok']);
      assert.equal((await request(port, '/echo', { hi: 1 })).status, 200);
      assert.equal(
        await metricValue(mgr.getMetricsRegistry(), 'controller_runtime_webhook_requests_total', {
          webhook: '/echo',
          code: '200',
        }),
        1,
      );
    } finally {
      ac.abort();
      await done;
      certs.cleanup();
    }
    await assert.rejects(async () => server.startedChecker()({} as never), /not been started/);
  });

  it('a server that cannot start (no certificate) makes start() reject', async () => {
    const certs = certFolder();
    const mgr = newManager(offlineConfig(), {
      logger: quiet(),
      webhookServer: { host: '127.0.0.1', port: 0, certDir: join(certs.dir, 'missing') },
    });
    mgr.getWebhookServer().register('/echo', echo);
    await assert.rejects(mgr.start(new AbortController().signal), /cannot read the serving certificate/);
    certs.cleanup();
  });
});
