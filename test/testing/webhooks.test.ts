import assert from 'node:assert/strict';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import https from 'node:https';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  TestEnvironment,
  TestEnvironmentError,
  WebhookInstallError,
  parseWebhookFile,
  readWebhookFiles,
  rewriteWebhookClientConfig,
  runningControlPlanePids,
  withConversionWebhook,
  type CRDObject,
} from '../../src/testing/index.js';
import { RestClient } from '../../src/runtime/client/rest.js';
import { StatusError } from '../../src/runtime/client/errors.js';
import { generateCACert, generateSignedCert } from '../../src/runtime/manager/selfsigned.js';
import { must } from '../helpers/must.js';

const root = process.env.KUBEFORGE_REPO_ROOT ?? resolve(fileURLToPath(import.meta.url), '../../../..');
const fixtures = join(root, 'test/fixtures/testing');
const webhookDir = join(fixtures, 'webhook');

/** An AdmissionReview or ConversionReview as the API server sends it. */
// biome-ignore lint/suspicious/noExplicitAny: the API server's JSON, read by the tests without a schema
type ServedReview = any;

/** An object in a ConversionReview: the fields these tests read. */
type ServedObject = { apiVersion: string; metadata: { name: string } };

/** One call the API server made to the test webhook server. */
interface Call {
  path: string;
  /** The query the API server added (its timeout). */
  query: string;
  body: ServedReview;
}

/**
 * A small HTTPS webhook server for the tests: serves the certificate from the environment's
 * folder, records every call and answers with the handler registered for the path.
 */
class RecordingServer {
  readonly calls: Call[] = [];
  private server?: https.Server;
  private waiters: Array<() => void> = [];

  constructor(private readonly handlers: Record<string, (body: ServedReview, url: URL) => unknown>) {}

  private address?: { host: string; port: number };

  async listen(o: { host: string; port: number; certDir: string }): Promise<void> {
    this.address = { host: o.host, port: o.port };
    await this.serve({ cert: readFileSync(join(o.certDir, 'tls.crt')), key: readFileSync(join(o.certDir, 'tls.key')) });
  }

  private async serve(tls: { cert: string | Buffer; key: string | Buffer }): Promise<void> {
    this.server = https.createServer(tls, (req, res) => {
      let text = '';
      req.setEncoding('utf8');
      req.on('data', (c) => (text += c));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'https://x');
        const handler = this.handlers[url.pathname];
        if (!handler) {
          res.writeHead(404).end();
          return;
        }
        const body = JSON.parse(text);
        this.calls.push({ path: url.pathname, query: url.search, body });
        for (const w of this.waiters.splice(0)) w();
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(handler(body, url)));
      });
    });
    await new Promise<void>((r, j) =>
      must(this.server, 'this.server')
        .once('error', j)
        .listen(must(this.address, 'this.address').port, must(this.address, 'this.address').host, r),
    );
  }

  /**
   * Serves another certificate from now on: a new server on the same port, so that no open
   * connection and no TLS session ticket of the old one lets a client skip the new handshake.
   */
  async useCertificate(tls: { cert: string | Buffer; key: string | Buffer }): Promise<void> {
    const old = must(this.server, 'this.server');
    old.closeAllConnections();
    await new Promise<void>((r) => old.close(() => r()));
    await this.serve(tls);
  }

  /** Resolves with the first recorded call matching `pred`, calling `poke` until one arrives (at most 20 s). */
  async waitFor(pred: (c: Call) => boolean, poke: () => Promise<unknown>): Promise<Call> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const found = this.calls.find(pred);
      if (found) return found;
      if (Date.now() > deadline)
        throw new Error(
          `no matching webhook call; ${this.calls.length} calls: ${[...new Set(this.calls.map((c) => c.path))].join(', ')}`,
        );
      const arrived = new Promise<void>((r) => this.waiters.push(r));
      await poke().catch(() => undefined);
      await Promise.race([arrived, new Promise((r) => setTimeout(r, 100))]);
    }
  }

  close(): Promise<void> {
    this.server?.closeAllConnections();
    return new Promise((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}

const review = (body: ServedReview, response: Record<string, unknown>) => ({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  response: { uid: body.request.uid, ...response },
});

const handlers: Record<string, (body: ServedReview, url: URL) => unknown> = {
  '/mutate-webhook-kubeforge-io-v1-sprocket': (body) =>
    review(body, {
      allowed: true,
      patchType: 'JSONPatch',
      patch: Buffer.from(
        JSON.stringify([{ op: 'add', path: '/metadata/annotations', value: { 'kubeforge.io/mutated': 'yes' } }]),
      ).toString('base64'),
    }),
  '/validate--v1-configmap': (body) =>
    body.request.object?.data?.forbidden !== undefined
      ? review(body, {
          allowed: false,
          status: { code: 403, reason: 'Forbidden', message: 'the key "forbidden" is not allowed' },
        })
      : review(body, { allowed: true }),
  '/validate-by-url': (body) => review(body, { allowed: true }),
  '/convert': (body) => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'ConversionReview',
    response: {
      uid: body.request.uid,
      convertedObjects: body.request.objects.map((o: ServedObject) => ({
        ...o,
        apiVersion: body.request.desiredAPIVersion,
      })),
      result: { status: 'Success' },
    },
  }),
};

describe('webhook configuration files', () => {
  it('reads the configurations of a config/webhook folder and ignores the Service and the kustomizations', () => {
    const configs = readWebhookFiles([webhookDir]);
    assert.deepEqual(
      configs.map((c) => `${c.kind}/${c.metadata.name}`),
      [
        'MutatingWebhookConfiguration/mutating-webhook-configuration',
        'ValidatingWebhookConfiguration/validating-webhook-configuration',
      ],
    );
    assert.deepEqual(
      readWebhookFiles([join(webhookDir, 'manifests.yaml')]).map((c) => must(c.webhooks, 'c.webhooks').length),
      [1, 2],
      'a single file is read as well',
    );
  });

  it('skips a missing path by default and names it with errorIfPathMissing', () => {
    const missing = join(fixtures, 'no-such-webhook-dir');
    assert.deepEqual(readWebhookFiles([missing]), []);
    assert.throws(
      () => readWebhookFiles([missing], true),
      (e: unknown) =>
        e instanceof WebhookInstallError && e.file === missing && /webhook path does not exist/.test(e.message),
    );
  });

  it('reports a YAML syntax error with file and line', () => {
    const file = join(fixtures, 'webhook-bad', 'manifests.yaml');
    assert.throws(
      () => readWebhookFiles([join(fixtures, 'webhook-bad')]),
      (e: unknown) =>
        e instanceof WebhookInstallError &&
        e.file === file &&
        (e.line ?? 0) >= 7 &&
        e.message.startsWith(`${file}:${e.line}: YAML syntax error`),
    );
  });

  it('rejects a configuration without a name or with a nameless webhook, located', () => {
    const noName =
      'kind: Service\n---\napiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration\nmetadata: {}\n';
    assert.throws(
      () => parseWebhookFile('mem.yaml', noName),
      (e: unknown) =>
        e instanceof WebhookInstallError &&
        e.line === 3 &&
        /MutatingWebhookConfiguration without metadata\.name/.test(e.message),
    );
    const namelessHook =
      'apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata: {name: v}\nwebhooks:\n- clientConfig: {url: "https://x/y"}\n';
    assert.throws(
      () => parseWebhookFile('mem.yaml', namelessHook),
      /mem\.yaml:1: ValidatingWebhookConfiguration v: webhooks\[0\] has no name/,
    );
    const badURL =
      'apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata: {name: v}\nwebhooks:\n- name: a.kb.io\n  clientConfig: {url: "not a url"}\n';
    assert.throws(
      () => parseWebhookFile('mem.yaml', badURL),
      /webhook a\.kb\.io: clientConfig\.url "not a url" is not a URL/,
    );
  });

  it('rewrites service and url client configs to the local address, keeping the path', () => {
    const [, validating] = readWebhookFiles([webhookDir]);
    const out = rewriteWebhookClientConfig(validating, '::1', 9443, 'Q0E=');
    assert.deepEqual(
      must(out.webhooks, 'out.webhooks').map((w) => w.clientConfig),
      [
        { url: 'https://[::1]:9443/validate--v1-configmap', caBundle: 'Q0E=' },
        { url: 'https://[::1]:9443/validate-by-url', caBundle: 'Q0E=' },
      ],
    );
    assert.equal(
      must(
        must(must(validating.webhooks, 'validating.webhooks')[0].clientConfig, 'validating.webhooks[0].clientConfig')
          .service,
        'validating.webhooks[0].clientConfig.service',
      ).name,
      'webhook-service',
      'the input is not changed',
    );
  });

  it('points only conversion strategy Webhook at /convert, defaulting conversionReviewVersions', () => {
    const crd = (conversion?: object): CRDObject => ({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'things.x.io' },
      spec: { group: 'x.io', names: { plural: 'things', kind: 'Thing' }, ...(conversion ? { conversion } : {}) },
    });
    const none = crd({ strategy: 'None' });
    assert.equal(withConversionWebhook(none, '127.0.0.1', 1, 'Q0E='), none);
    assert.deepEqual(withConversionWebhook(crd({ strategy: 'Webhook' }), '127.0.0.1', 8443, 'Q0E=').spec.conversion, {
      strategy: 'Webhook',
      webhook: {
        clientConfig: { url: 'https://127.0.0.1:8443/convert', caBundle: 'Q0E=' },
        conversionReviewVersions: ['v1'],
      },
    });
  });
});

describe('TestEnvironment webhook setup errors', () => {
  it('fails start() on a missing webhook path with errorIfPathMissing before starting anything', async () => {
    const env = new TestEnvironment({
      useExistingCluster: false,
      webhookInstallOptions: { paths: [join(fixtures, 'nope')], errorIfPathMissing: true },
    });
    await assert.rejects(
      env.start(),
      (e: unknown) => e instanceof WebhookInstallError && /webhook path does not exist/.test(e.message),
    );
    assert.deepEqual(runningControlPlanePids(), []);
    assert.throws(() => env.webhookInstallOptions, TestEnvironmentError);
  });

  it('fails start() on a malformed webhook file, located, before starting anything', async () => {
    const env = new TestEnvironment({
      useExistingCluster: false,
      webhookInstallOptions: { paths: [join(fixtures, 'webhook-bad')] },
    });
    await assert.rejects(
      env.start(),
      (e: unknown) =>
        e instanceof WebhookInstallError && e.file === join(fixtures, 'webhook-bad', 'manifests.yaml') && !!e.line,
    );
    assert.deepEqual(runningControlPlanePids(), []);
  });

  it('rejects a localServingPort that is not a port', async () => {
    const env = new TestEnvironment({ useExistingCluster: false, webhookInstallOptions: { localServingPort: 70000 } });
    await assert.rejects(
      env.start(),
      (e: unknown) => e instanceof TestEnvironmentError && /localServingPort 70000 is not a port/.test(e.message),
    );
    assert.deepEqual(runningControlPlanePids(), []);
  });
});

describe('TestEnvironment with webhooks on a real API server', () => {
  const env = new TestEnvironment({
    useExistingCluster: false,
    crdDirectoryPaths: [join(fixtures, 'webhook-crds')],
    webhookInstallOptions: { paths: [webhookDir, join(fixtures, 'missing-is-skipped')] },
  });
  const server = new RecordingServer(handlers);
  let rest: RestClient;

  before(async () => {
    await env.start();
    rest = new RestClient(env.config);
    await server.listen(env.webhookServerOptions());
  });
  after(async () => {
    rest?.close();
    await server.close();
    await env.stop();
  });

  it('start() returns only once the API server calls the installed webhooks: the very first request is checked', async () => {
    // No retry: the API server learns of configurations through an informer, and start() waited
    // for it (sentinel configurations created after the real ones answered first).
    await rest.request('POST', '/api/v1/namespaces/default/configmaps', {
      query: { dryRun: 'All' },
      body: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'first', labels: { 'kubeforge.io/webhook-test': 'service' } },
      },
    });
    assert.ok(
      server.calls.some((c) => c.path === '/validate--v1-configmap' && c.body.request.name === 'first'),
      `the first create after start() was not sent to the webhook; calls: ${server.calls.map((c) => c.path).join(', ') || 'none'}`,
    );
    const sentinels = await rest.get('/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations');
    assert.deepEqual(
      sentinels.items
        .map((i: { metadata: { name: string } }) => i.metadata.name)
        .filter((n: string) => n.startsWith('kubeforge-envtest-sentinel')),
      [],
      'the sentinel configurations are gone',
    );
  });

  it('issues a serving certificate for the host, signed by the CA it exposes, in a private folder', () => {
    const o = env.webhookInstallOptions;
    assert.equal(o.localServingHost, '127.0.0.1');
    assert.ok(o.localServingPort > 0);
    assert.deepEqual(env.webhookServerOptions(), {
      host: '127.0.0.1',
      port: o.localServingPort,
      certDir: o.localServingCertDir,
    });
    const ca = new X509Certificate(o.localServingCAData);
    const leaf = new X509Certificate(readFileSync(join(o.localServingCertDir, 'tls.crt')));
    assert.equal(ca.ca, true);
    assert.equal(leaf.ca, false);
    assert.equal(leaf.checkIssued(ca), true);
    assert.equal(leaf.verify(ca.publicKey), true);
    assert.equal(leaf.checkIP('127.0.0.1'), '127.0.0.1');
    assert.equal(leaf.checkPrivateKey(createKey(join(o.localServingCertDir, 'tls.key'))), true);
    assert.equal(statSync(join(o.localServingCertDir, 'tls.key')).mode & 0o077, 0, 'the key is private');
    assert.equal(statSync(o.localServingCertDir).mode & 0o077, 0, 'the folder is private');
  });

  it('installs the configurations with every clientConfig rewritten to the local server', async () => {
    const { localServingPort: port, localServingCAData } = env.webhookInstallOptions;
    const caBundle = Buffer.from(localServingCAData).toString('base64');
    const mutating = await rest.get(
      '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/mutating-webhook-configuration',
    );
    assert.deepEqual(mutating.webhooks[0].clientConfig, {
      url: `https://127.0.0.1:${port}/mutate-webhook-kubeforge-io-v1-sprocket`,
      caBundle,
    });
    const validating = await rest.get(
      '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/validating-webhook-configuration',
    );
    assert.deepEqual(
      validating.webhooks.map((w: { clientConfig: unknown }) => w.clientConfig),
      [
        { url: `https://127.0.0.1:${port}/validate--v1-configmap`, caBundle },
        { url: `https://127.0.0.1:${port}/validate-by-url`, caBundle },
      ],
    );
    assert.deepEqual(
      env.webhookConfigurations.map((c) => c.metadata.name),
      ['mutating-webhook-configuration', 'validating-webhook-configuration'],
    );
  });

  it('a ConfigMap create is validated by the test server over TLS: allowed, then denied with its message', async () => {
    const cm = (name: string, data: Record<string, string>) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, labels: { 'kubeforge.io/webhook-test': 'service' } },
      data,
    });
    const before = server.calls.length;
    const created = await rest.request('POST', '/api/v1/namespaces/default/configmaps', {
      body: cm('allowed', { a: '1' }),
    });
    assert.equal(created.metadata.name, 'allowed');
    const call = server.calls.slice(before).find((c) => c.body.request?.name === 'allowed');
    assert.ok(call, 'the API server called the webhook');
    assert.equal(call.path, '/validate--v1-configmap');
    assert.equal(call.body.apiVersion, 'admission.k8s.io/v1');
    assert.equal(call.body.kind, 'AdmissionReview');
    assert.equal(call.body.request.operation, 'CREATE');
    assert.deepEqual(call.body.request.kind, { group: '', version: 'v1', kind: 'ConfigMap' });
    assert.equal(call.body.request.namespace, 'default');
    assert.deepEqual(call.body.request.object.data, { a: '1' });

    await assert.rejects(
      rest.request('POST', '/api/v1/namespaces/default/configmaps', { body: cm('denied', { forbidden: 'x' }) }),
      (e: unknown) =>
        e instanceof StatusError &&
        e.code === 403 &&
        /admission webhook "vconfigmap-v1\.kb\.io" denied the request: the key "forbidden" is not allowed/.test(
          e.message,
        ),
    );
    await assert.rejects(
      rest.get('/api/v1/namespaces/default/configmaps/denied'),
      (e: unknown) => e instanceof StatusError && e.code === 404,
    );
  });

  it('a webhook given by url is called on its own path', async () => {
    await rest.request('POST', '/api/v1/namespaces/default/configmaps', {
      body: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'by-url', labels: { 'kubeforge.io/webhook-test': 'url' } },
      },
    });
    const call = server.calls.find((c) => c.body.request?.name === 'by-url');
    assert.equal(call?.path, '/validate-by-url');
  });

  it('a custom resource create is mutated by the test server', async () => {
    const body = {
      apiVersion: 'webhook.kubeforge.io/v1',
      kind: 'Sprocket',
      metadata: { name: 's1' },
      spec: { teeth: 12 },
    };
    // The mutating configuration may reach the API server's informer after the validating one.
    await server.waitFor(
      (c) => c.path === '/mutate-webhook-kubeforge-io-v1-sprocket',
      () =>
        rest.request('POST', '/apis/webhook.kubeforge.io/v1/namespaces/default/sprockets', {
          query: { dryRun: 'All' },
          body,
        }),
    );
    const created = await rest.request('POST', '/apis/webhook.kubeforge.io/v1/namespaces/default/sprockets', { body });
    assert.equal(created.metadata.annotations['kubeforge.io/mutated'], 'yes');
    const call = server.calls.find(
      (c) => c.path.startsWith('/mutate') && c.body.request.name === 's1' && !c.body.request.dryRun,
    );
    assert.deepEqual(call?.body.request.kind, { group: 'webhook.kubeforge.io', version: 'v1', kind: 'Sprocket' });
  });

  it('installs a CRD with conversion strategy Webhook pointed at /convert, and the API server converts through it', async () => {
    const { localServingPort: port, localServingCAData } = env.webhookInstallOptions;
    const crd = await rest.get(
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/sprockets.webhook.kubeforge.io',
    );
    assert.deepEqual(crd.spec.conversion, {
      strategy: 'Webhook',
      webhook: {
        clientConfig: {
          url: `https://127.0.0.1:${port}/convert`,
          caBundle: Buffer.from(localServingCAData).toString('base64'),
        },
        conversionReviewVersions: ['v1'],
      },
    });
    await rest
      .request('POST', '/apis/webhook.kubeforge.io/v1/namespaces/default/sprockets', {
        body: { apiVersion: 'webhook.kubeforge.io/v1', kind: 'Sprocket', metadata: { name: 's2' }, spec: { teeth: 7 } },
      })
      .catch((e) => assert.fail(e));
    const v2 = await rest.get('/apis/webhook.kubeforge.io/v2/namespaces/default/sprockets/s2');
    assert.equal(v2.apiVersion, 'webhook.kubeforge.io/v2');
    assert.equal(v2.spec.teeth, 7);
    const call = server.calls.find(
      (c) =>
        c.path === '/convert' &&
        c.body.request.desiredAPIVersion === 'webhook.kubeforge.io/v2' &&
        c.body.request.objects.some((o: ServedObject) => o.metadata.name === 's2'),
    );
    assert.ok(call, 'the API server called /convert');
    assert.equal(call.body.kind, 'ConversionReview');
    assert.equal(
      call.body.request.objects.find((o: ServedObject) => o.metadata.name === 's2').apiVersion,
      'webhook.kubeforge.io/v1',
    );
  });

  it('the API server verifies the serving certificate against the CA', async () => {
    const stranger = generateCACert({ commonName: 'not-the-envtest-ca' });
    await server.useCertificate(generateSignedCert(stranger, { hosts: ['127.0.0.1'] }));
    try {
      // Open connections are cut on the swap, but a connection the API server's client dialled
      // for an earlier request can complete its handshake (with the old certificate) just after
      // and serve one more call, or, cut in the middle of that call, fail it with EOF (seen on
      // 1.20); the certificate is judged on the next handshake. So a few creates, and the first
      // refusal that is not a cut connection must be the certificate's.
      let refusal: unknown;
      const cut: string[] = [];
      for (let i = 0; i < 5 && refusal === undefined; i++) {
        await rest
          .request('POST', '/api/v1/namespaces/default/configmaps', {
            query: { dryRun: 'All' },
            body: {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              metadata: { name: `untrusted-${i}`, labels: { 'kubeforge.io/webhook-test': 'service' } },
            },
          })
          .catch((e: unknown) => {
            if (e instanceof StatusError && /: (EOF|read: connection reset by peer)$/.test(e.message))
              cut.push(e.message);
            else refusal = e;
          });
      }
      assert.ok(cut.length <= 2, `more cut connections than the swap explains:\n${cut.join('\n')}`);
      assert.ok(refusal !== undefined, 'five creates were all allowed with an untrusted serving certificate');
      assert.ok(refusal instanceof StatusError, String(refusal));
      assert.match(refusal.message, /failed calling webhook "vconfigmap-v1\.kb\.io"/);
      assert.match(refusal.message, /x509|certificate/);
    } finally {
      const dir = env.webhookInstallOptions.localServingCertDir;
      await server.useCertificate({
        cert: readFileSync(join(dir, 'tls.crt')),
        key: readFileSync(join(dir, 'tls.key')),
      });
    }
  });

  it('useExistingCluster installs its configurations there and deletes them on stop()', async () => {
    const saved = process.env.KUBECONFIG;
    process.env.KUBECONFIG = env.kubeconfigPath;
    const existing = new TestEnvironment({
      useExistingCluster: true,
      webhookInstallOptions: {
        localServingPort: 18443,
        validatingWebhooks: [
          {
            metadata: { name: 'existing-cluster-hooks' },
            webhooks: [
              {
                name: 'vnothing.kb.io',
                admissionReviewVersions: ['v1'],
                sideEffects: 'None',
                clientConfig: { service: { name: 'webhook-service', namespace: 'system', path: '/validate-nothing' } },
                rules: [
                  {
                    apiGroups: ['nothing.kubeforge.io'],
                    apiVersions: ['v1'],
                    operations: ['CREATE'],
                    resources: ['nothings'],
                  },
                ],
              },
            ],
          },
        ],
      },
    });
    const path = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/existing-cluster-hooks';
    let certDir: string;
    try {
      await existing.start();
      certDir = existing.webhookInstallOptions.localServingCertDir;
      assert.notEqual(certDir, env.webhookInstallOptions.localServingCertDir);
      const installed = await rest.get(path);
      assert.equal(installed.webhooks[0].clientConfig.url, 'https://127.0.0.1:18443/validate-nothing');
      assert.equal(
        installed.webhooks[0].clientConfig.caBundle,
        Buffer.from(existing.webhookInstallOptions.localServingCAData).toString('base64'),
      );
    } finally {
      await existing.stop();
      if (saved === undefined) delete process.env.KUBECONFIG;
      else process.env.KUBECONFIG = saved;
    }
    await assert.rejects(rest.get(path), (e: unknown) => e instanceof StatusError && e.code === 404);
    assert.equal(existsSync(certDir), false, 'the certificate folder is removed');
    await rest.get(
      '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/validating-webhook-configuration',
    );
  });

  it('stop() removes the certificate folder with the control plane', async () => {
    const dir = env.webhookInstallOptions.localServingCertDir;
    assert.ok(existsSync(join(dir, 'tls.crt')));
    rest.close();
    await server.close();
    await env.stop();
    assert.equal(existsSync(dir), false);
    assert.throws(() => env.webhookServerOptions(), TestEnvironmentError);
  });
});

function createKey(file: string) {
  return createPrivateKey(readFileSync(file));
}
