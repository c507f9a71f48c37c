import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeConfig } from '@kubernetes/client-node';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Counter } from 'prom-client';
import { TestEnvironment } from '../../../src/testing/index.js';
import { RestClient } from '../../../src/runtime/client/rest.js';
import { GracefulShutdownTimeoutError, healthz, newManager, type Manager } from '../../../src/runtime/manager/index.js';
import { generateSelfSignedCert } from '../../../src/runtime/manager/selfsigned.js';
import type { Runnable } from '../../../src/runtime/contracts.js';
import { newWebhookServer } from '../../../src/runtime/webhook/index.js';
import https from 'node:https';
import http2 from 'node:http2';
import { eventually, get, quiet, sleep } from './helpers.js';
import { must } from '../../helpers/must.js';

const env = new TestEnvironment({
  useExistingCluster: false,
  users: [{ name: 'metrics-reader' }, { name: 'stranger' }],
});
let config: KubeConfig;
let rest: RestClient;

before(async () => {
  config = await env.start();
  rest = new RestClient(config);
});
after(async () => {
  rest?.close();
  await env.stop();
});

/** Starts the manager in the background; returns its abort controller and the start() promise. */
function run(mgr: Manager): { ac: AbortController; done: Promise<void> } {
  const ac = new AbortController();
  const done = mgr.start(ac.signal);
  done.catch(() => undefined);
  return { ac, done };
}

describe('Manager probes', () => {
  it('serves /healthz and /readyz with named checks, verbose and exclude', async () => {
    const mgr = newManager(config, { healthProbeBindAddress: '127.0.0.1:0', logger: quiet() });
    mgr.addHealthzCheck('ping', healthz.ping);
    mgr.addReadyzCheck('ping', healthz.ping);
    let dbUp = false;
    mgr.addReadyzCheck('db', () => {
      if (!dbUp) throw new Error('db down');
    });
    assert.throws(() => mgr.addReadyzCheck('db', healthz.ping), /already exists/);
    const { ac, done } = run(mgr);
    try {
      await mgr.started();
      const a = must(mgr.getHealthProbeAddress(), 'mgr.getHealthProbeAddress()');
      const base = `http://127.0.0.1:${a.port}`;
      assert.deepEqual(await get(`${base}/healthz`), { status: 200, body: 'ok' });
      const ready = await get(`${base}/readyz`);
      assert.equal(ready.status, 500);
      assert.equal(ready.body, '[-]db failed: reason withheld\n[+]ping ok\nreadyz check failed\n');
      assert.deepEqual(await get(`${base}/readyz/db`), { status: 500, body: 'internal server error: db down\n' });
      assert.deepEqual(await get(`${base}/readyz/ping`), { status: 200, body: 'ok' });
      assert.equal((await get(`${base}/readyz/nope`)).status, 404);
      assert.deepEqual(await get(`${base}/readyz?exclude=db`), { status: 200, body: 'ok' });
      assert.deepEqual(await get(`${base}/readyz?verbose&exclude=db`), {
        status: 200,
        body: '[+]db excluded: ok\n[+]ping ok\nreadyz check passed\n',
      });
      dbUp = true;
      assert.deepEqual(await get(`${base}/readyz`), { status: 200, body: 'ok' });
      assert.deepEqual(await get(`${base}/healthz?verbose`), {
        status: 200,
        body: '[+]ping ok\nhealthz check passed\n',
      });
      assert.equal((await get(`${base}/other`)).status, 404);
    } finally {
      ac.abort();
      await done;
    }
    assert.equal(mgr.getHealthProbeAddress() !== undefined, true);
  });

  it('rejects a malformed bind address at construction', () => {
    assert.throws(
      () => newManager(config, { healthProbeBindAddress: 'localhost', logger: quiet() }),
      /not a valid bind address/,
    );
    assert.throws(() => newManager(config, { leaderElection: true, logger: quiet() }), /leaderElectionID must be set/);
  });

  it('a probe port already in use makes start() reject and nothing keeps running', async () => {
    const first = newManager(config, { healthProbeBindAddress: '127.0.0.1:0', logger: quiet() });
    const r1 = run(first);
    await first.started();
    const port = must(first.getHealthProbeAddress(), 'first.getHealthProbeAddress()').port;
    const second = newManager(config, { healthProbeBindAddress: `127.0.0.1:${port}`, logger: quiet() });
    const leader: string[] = [];
    second.add({ start: async () => void leader.push('started') });
    await assert.rejects(second.start(new AbortController().signal), /EADDRINUSE/);
    await assert.rejects(second.started());
    assert.deepEqual(leader, []);
    r1.ac.abort();
    await r1.done;
  });
});

/** POSTs `{"n":1}` to /echo of a webhook server on 127.0.0.1; resolves "<status> <body>". */
function fetchEcho(port: number, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: '127.0.0.1',
        port,
        path: '/echo',
        method: 'POST',
        ca,
        agent: false,
        headers: { 'Content-Type': 'application/json' },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve(`${res.statusCode} ${body}`));
      },
    );
    req.on('error', reject);
    req.end('{"n":1}');
  });
}

/** A runnable that records its life and takes `drainMs` to finish after the abort. */
function recorder(
  name: string,
  log: string[],
  opts: { leader?: boolean; drainMs?: number; ignoreAbort?: boolean } = {},
): Runnable {
  return {
    needLeaderElection: () => opts.leader ?? true,
    start: (signal) =>
      new Promise<void>((resolve) => {
        log.push(`${name} start`);
        if (opts.ignoreAbort) return;
        signal.addEventListener('abort', async () => {
          log.push(`${name} abort`);
          await sleep(opts.drainMs ?? 0);
          log.push(`${name} done`);
          resolve();
        });
      }),
  };
}

describe('Manager lifecycle', () => {
  it('starts caches, then others, then leader runnables; stops leader runnables first and lets them finish', async () => {
    const log: string[] = [];
    const mgr = newManager(config, { logger: quiet() });
    const cacheLike = Object.assign(recorder('cache', log, { leader: false }), {
      waitForCacheSync: async () => {
        log.push('cache synced');
        return true;
      },
    });
    mgr.add(recorder('controller', log, { leader: true, drainMs: 300 }));
    mgr.add(recorder('task', log, { leader: false, drainMs: 10 }));
    mgr.add(cacheLike);
    const { ac, done } = run(mgr);
    await mgr.elected();
    await eventually(() => log.includes('controller start'), 'controller start');
    assert.deepEqual(log.slice(0, 4), ['cache start', 'cache synced', 'task start', 'controller start']);
    ac.abort();
    await done;
    const stops = log.slice(4);
    assert.deepEqual(stops, [
      'controller abort',
      'controller done',
      'task abort',
      'task done',
      'cache abort',
      'cache done',
    ]);
  });

  it('runs many runnables on one signal without a listener-leak warning (more than ten is the design)', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    try {
      const mgr = newManager(config, { logger: quiet() });
      let started = 0;
      for (let i = 0; i < 15; i++) {
        for (const leader of [true, false]) {
          mgr.add({
            needLeaderElection: () => leader,
            start: (signal) =>
              new Promise<void>((r) => {
                started++;
                signal.addEventListener('abort', () => r(), { once: true });
              }),
          });
        }
      }
      const { ac, done } = run(mgr);
      await eventually(() => started === 30, 'all thirty runnables started');
      ac.abort();
      await done;
      await sleep(10); // warnings are emitted on the next tick
      assert.deepEqual(
        warnings.filter((w) => /MaxListeners/.test(w)),
        [],
      );
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('gives up after gracefulShutdownTimeoutMs and rejects naming the stuck group', async () => {
    const log: string[] = [];
    const mgr = newManager(config, { gracefulShutdownTimeoutMs: 300, logger: quiet() });
    mgr.add(recorder('stuck', log, { ignoreAbort: true }));
    mgr.add(recorder('task', log, { leader: false }));
    const { ac, done } = run(mgr);
    await eventually(() => log.includes('stuck start'), 'stuck start');
    ac.abort();
    await assert.rejects(
      done,
      (e: unknown) =>
        e instanceof GracefulShutdownTimeoutError &&
        /grace period of 300ms/.test((e as Error).message) &&
        /leader/.test((e as Error).message),
    );
    await done.catch((e: GracefulShutdownTimeoutError) =>
      assert.deepEqual(e.pending, ['leader: runnable #1'], 'only what still runs is named'),
    );
    assert.ok(log.includes('task abort'), 'the other groups were still told to stop');
  });

  it('a failing runnable stops the others and start() rejects with its error', async () => {
    const log: string[] = [];
    const mgr = newManager(config, { logger: quiet() });
    mgr.add(recorder('controller', log));
    mgr.add({
      needLeaderElection: () => false,
      start: async () => {
        await sleep(100);
        throw new Error('boom');
      },
    });
    await assert.rejects(mgr.start(new AbortController().signal), /boom/);
    assert.deepEqual(log, ['controller start', 'controller abort', 'controller done']);
    await assert.rejects(mgr.start(), /already started/);
  });

  it('starts a webhook server given in the options with the servers and stops it last', async () => {
    const certDir = mkdtempSync(join(tmpdir(), 'kf-mgr-webhook-'));
    const { cert, key } = generateSelfSignedCert({ hosts: ['127.0.0.1'] });
    writeFileSync(join(certDir, 'tls.crt'), cert);
    writeFileSync(join(certDir, 'tls.key'), key);
    const webhookServer = newWebhookServer({ host: '127.0.0.1', port: 0, certDir });
    webhookServer.register('/echo', { handle: async (body) => body });
    const post = async () => {
      const r = await fetchEcho(must(webhookServer.port, 'webhookServer.port'), cert);
      return r;
    };
    const log: string[] = [];
    const mgr = newManager(config, { webhookServer, logger: quiet() });
    assert.equal(mgr.getWebhookServer(), webhookServer);
    mgr.add({
      start: (signal) =>
        new Promise<void>((resolve) => {
          log.push('controller start');
          void post().then((r) => log.push(`served before controllers: ${r}`));
          signal.addEventListener('abort', async () => {
            log.push('controller abort');
            log.push(`served while controllers stop: ${await post()}`);
            resolve();
          });
        }),
    });
    const { ac, done } = run(mgr);
    try {
      await eventually(
        () => log.includes('served before controllers: 200 {"n":1}'),
        'a webhook answer once controllers run',
      );
    } finally {
      ac.abort();
      await done;
      rmSync(certDir, { recursive: true, force: true });
    }
    assert.deepEqual(log, [
      'controller start',
      'served before controllers: 200 {"n":1}',
      'controller abort',
      'served while controllers stop: 200 {"n":1}',
    ]);
    await assert.rejects(post(), /ECONNREFUSED/);
  });

  it('wires the client and cache: writes go to the server, reads come from the started cache', async () => {
    const mgr = newManager(config, { logger: quiet() });
    const { ac, done } = run(mgr);
    try {
      await mgr.started();
      const client = mgr.getClient();
      const cm = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'mgr-wired', namespace: 'default' },
        data: { a: '1' },
      };
      await client.create(cm);
      const live = await mgr
        .getAPIReader()
        .get<typeof cm>({ apiVersion: 'v1', kind: 'ConfigMap' }, { namespace: 'default', name: 'mgr-wired' });
      assert.equal(live.data.a, '1');
      const cached = await eventually(
        () =>
          client
            .get<typeof cm>({ apiVersion: 'v1', kind: 'ConfigMap' }, { namespace: 'default', name: 'mgr-wired' })
            .catch(() => undefined),
        'cached ConfigMap',
      );
      assert.equal(must(cached, 'cached').data.a, '1');
    } finally {
      ac.abort();
      await done;
    }
  });
});

describe('Manager cache namespaces', () => {
  it('watches every namespace of cache.defaultNamespaces (or WATCH_NAMESPACE=a,b) and refuses reads elsewhere', async () => {
    for (const ns of ['mx', 'my', 'mz']) {
      await rest.request('POST', '/api/v1/namespaces', {
        body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
      });
      await rest.request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${ns}` } },
      });
    }
    const saved = process.env.WATCH_NAMESPACE;
    process.env.WATCH_NAMESPACE = 'my, mx';
    let fromEnv: Manager;
    try {
      fromEnv = newManager(config, { logger: quiet() });
    } finally {
      if (saved === undefined) delete process.env.WATCH_NAMESPACE;
      else process.env.WATCH_NAMESPACE = saved;
    }
    assert.deepEqual((fromEnv.getCache() as unknown as { getNamespaces(): string[] }).getNamespaces(), ['mx', 'my']);

    const mgr = newManager(config, { logger: quiet(), cache: { defaultNamespaces: ['mx', 'my'] } });
    const { ac, done } = run(mgr);
    try {
      await mgr.started();
      const ref = { apiVersion: 'v1', kind: 'ConfigMap' };
      const names = (await mgr.getClient().list(ref)).items
        .map((c) => c.metadata?.name)
        .filter((n) => n?.startsWith('cm-m'));
      assert.deepEqual(names, ['cm-mx', 'cm-my']);
      await assert.rejects(
        mgr.getClient().get(ref, { namespace: 'mz', name: 'cm-mz' }),
        /only watches namespaces "mx", "my"/,
      );
    } finally {
      ac.abort();
      await done;
    }
  });
});

describe('Manager metrics', () => {
  it('serves the manager registry on /metrics (not the global registry)', async () => {
    const mgr = newManager(config, { metrics: { bindAddress: '127.0.0.1:0' }, logger: quiet() });
    const c = new Counter({
      name: 'kubeforge_test_things_total',
      help: 'things',
      registers: [mgr.getMetricsRegistry()],
    });
    c.inc(3);
    const { ac, done } = run(mgr);
    try {
      await mgr.started();
      const r = await get(`http://127.0.0.1:${must(mgr.getMetricsAddress(), 'mgr.getMetricsAddress()').port}/metrics`);
      assert.equal(r.status, 200);
      assert.match(r.body, /^kubeforge_test_things_total 3$/m);
      assert.match(r.body, /^process_cpu_user_seconds_total /m);
      assert.equal(
        (await get(`http://127.0.0.1:${must(mgr.getMetricsAddress(), 'mgr.getMetricsAddress()').port}/nope`)).status,
        404,
      );
    } finally {
      ac.abort();
      await done;
    }
    const other = newManager(config, { logger: quiet() });
    assert.equal(
      await other
        .getMetricsRegistry()
        .getSingleMetricAsString('kubeforge_test_things_total')
        .catch(() => ''),
      '',
    );
  });

  it('secure metrics serve the certificate from certDir (authentication can be turned off)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kf-certs-'));
    try {
      const { cert, key } = generateSelfSignedCert({ hosts: ['127.0.0.1'] });
      writeFileSync(join(dir, 'serving.crt'), cert);
      writeFileSync(join(dir, 'serving.key'), key);
      const mgr = newManager(config, {
        metrics: {
          bindAddress: '127.0.0.1:0',
          secureServing: true,
          authenticate: false,
          certDir: dir,
          certName: 'serving.crt',
          keyName: 'serving.key',
        },
        logger: quiet(),
      });
      const { ac, done } = run(mgr);
      try {
        await mgr.started();
        assert.equal(mgr.getMetricsServingCert(), cert);
        const r = await get(
          `https://127.0.0.1:${must(mgr.getMetricsAddress(), 'mgr.getMetricsAddress()').port}/metrics`,
          { ca: cert },
        );
        assert.equal(r.status, 200);
      } finally {
        ac.abort();
        await done;
      }
      const broken = newManager(config, {
        metrics: { bindAddress: '127.0.0.1:0', secureServing: true, certDir: join(dir, 'nope') },
        logger: quiet(),
      });
      await assert.rejects(broken.start(new AbortController().signal), /cannot read the serving certificate/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('secure metrics: HTTPS, 401 without or with a bad token, 403 without RBAC, 200 with RBAC', async () => {
    await rest.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: 'metrics-reader' },
        rules: [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }],
      },
    });
    await rest.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: 'metrics-reader' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'metrics-reader' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'metrics-reader' }],
      },
    });
    const mgr = newManager(config, { metrics: { bindAddress: '127.0.0.1:0', secureServing: true }, logger: quiet() });
    const { ac, done } = run(mgr);
    try {
      await mgr.started();
      const url = `https://127.0.0.1:${must(mgr.getMetricsAddress(), 'mgr.getMetricsAddress()').port}/metrics`;
      const ca = must(mgr.getMetricsServingCert(), 'mgr.getMetricsServingCert()');
      assert.equal((await get(url, { ca })).status, 401);
      assert.equal((await get(url, { ca, token: 'not-a-token' })).status, 401);
      const denied = await get(url, { ca, token: env.userToken('stranger') });
      assert.equal(denied.status, 403);
      assert.match(denied.body, /user=stranger/);
      const ok = await get(url, { ca, token: env.userToken('metrics-reader') });
      assert.equal(ok.status, 200);
      assert.match(ok.body, /^# TYPE process_cpu_user_seconds_total counter$/m);
      await assert.rejects(
        get(url),
        /self-signed|certificate/,
        'the self-signed certificate is not trusted without its CA',
      );
    } finally {
      ac.abort();
      await done;
    }
  });

  it('metrics.enableHttp2 serves HTTP/2 (ALPN h2, authentication included) and still HTTP/1.1; without it an h2-only client is refused', async () => {
    /** One GET over HTTP/2; resolves the negotiated protocol, the status and the body. */
    const getH2 = (origin: string, ca: string, token?: string) =>
      new Promise<{ alpn: string | false | undefined; status: number; body: string }>((resolve, reject) => {
        const session = http2.connect(origin, { ca });
        session.once('error', reject);
        const req = session.request({ ':path': '/metrics', ...(token ? { authorization: `Bearer ${token}` } : {}) });
        let status = 0;
        let body = '';
        req.setEncoding('utf8');
        req.on('response', (h) => (status = Number(h[':status'])));
        req.on('data', (c: string) => (body += c));
        req.once('error', reject);
        req.on('end', () => {
          const alpn = session.alpnProtocol;
          session.close();
          resolve({ alpn, status, body });
        });
        req.end();
      });
    const h2 = newManager(config, {
      metrics: { bindAddress: '127.0.0.1:0', secureServing: true, enableHttp2: true },
      logger: quiet(),
    });
    const one = run(h2);
    try {
      await h2.started();
      const origin = `https://127.0.0.1:${must(h2.getMetricsAddress(), 'h2.getMetricsAddress()').port}`;
      const ca = must(h2.getMetricsServingCert(), 'h2.getMetricsServingCert()');
      const anonymous = await getH2(origin, ca);
      assert.deepEqual([anonymous.alpn, anonymous.status], ['h2', 401]);
      const reader = await getH2(origin, ca, env.userToken('metrics-reader'));
      assert.deepEqual([reader.alpn, reader.status], ['h2', 200]);
      assert.match(reader.body, /^# TYPE process_cpu_user_seconds_total counter$/m);
      assert.equal(
        (await get(`${origin}/metrics`, { ca, token: env.userToken('metrics-reader') })).status,
        200,
        'HTTP/1.1 clients still served',
      );
      // A session left open does not hold the shutdown back.
      http2.connect(origin, { ca }).on('error', () => {});
    } finally {
      one.ac.abort();
      await one.done;
    }
    const h1 = newManager(config, { metrics: { bindAddress: '127.0.0.1:0', secureServing: true }, logger: quiet() });
    const two = run(h1);
    try {
      await h1.started();
      await assert.rejects(
        getH2(
          `https://127.0.0.1:${must(h1.getMetricsAddress(), 'h1.getMetricsAddress()').port}`,
          must(h1.getMetricsServingCert(), 'h1.getMetricsServingCert()'),
        ),
        /ALPN|protocol|socket hang up|ECONNRESET|closed/i,
      );
    } finally {
      two.ac.abort();
      await two.done;
    }
  });
});
