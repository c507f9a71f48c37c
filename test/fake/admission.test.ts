// Admission webhooks on kubeforge/testing's fake API server: the Mutating- and
// ValidatingWebhookConfigurations stored in it are honoured as kube-apiserver honours them (rules,
// selectors, failure policy, dry runs, the order of mutation and validation, the server's words).
// The same requests against a real kube-apiserver: the admission scenarios of ./scenarios.ts.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RestClient } from '../../src/runtime/client/rest.js';
import { StatusError } from '../../src/runtime/client/errors.js';
import { newWebhookServer } from '../../src/runtime/webhook/index.js';
import { withCustomDefaulter, withCustomValidator } from '../../src/runtime/webhook/admission.js';
import { generateCACert, generateSignedCert } from '../../src/runtime/manager/selfsigned.js';
import { FakeAPIServer } from '../../src/testing/index.js';
import { allow, configPath, configuration, deny, rule, startHookServer, webhook, type HookServer } from './hooks.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';

const root = process.env.KUBEFORGE_REPO_ROOT ?? process.cwd();
const crdDir = join(root, 'test/fixtures/fake');
const V1 = 'fake.kubeforge.io/v1';
const W = (ns: string, name?: string, sub?: string) =>
  `/apis/${V1}/namespaces/${ns}/widgets${name ? `/${name}` : ''}${sub ? `/${sub}` : ''}`;
const widget = (name: string, spec: Record<string, unknown> = { size: 3 }, labels?: Record<string, string>) => ({
  apiVersion: V1,
  kind: 'Widget',
  metadata: { name, ...(labels ? { labels } : {}) },
  spec,
});

describe('admission webhooks on the fake API server', () => {
  let fake: FakeAPIServer;
  let rest: RestClient;
  const warnings: string[] = [];
  const closers: (() => Promise<void>)[] = [];

  before(async () => {
    fake = await FakeAPIServer.start({ crdDirectoryPaths: [crdDir] });
    rest = new RestClient(fake.config);
    rest.setWarningHandler((w) => warnings.push(w));
  });
  after(async () => {
    for (const c of closers.reverse()) await c();
    rest.close();
    await fake.stop();
  });

  let n = 0;
  /** A namespace of its own and webhook configurations selecting it, removed after the test. */
  async function setup(
    paths: Parameters<typeof startHookServer>[0],
    configs: (h: HookServer, ns: string) => Record<string, unknown>[],
  ): Promise<{ ns: string; hooks: HookServer }> {
    const ns = `adm-${++n}`;
    await rest.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, labels: { team: ns } } },
    });
    const hooks = await startHookServer(paths);
    closers.push(() => hooks.close());
    for (const c of configs(hooks, ns)) {
      await rest.request('POST', configPath(String(c.kind)), { body: c });
      closers.push(async () => {
        await rest.request('DELETE', configPath(String(c.kind), (c.metadata as { name: string }).name));
      });
    }
    return { ns, hooks };
  }
  const inNs = (ns: string) => ({ namespaceSelector: { matchLabels: { team: ns } } });

  async function refusal(
    p: Promise<unknown>,
  ): Promise<{ code: number; reason: string; message: string; status: unknown }> {
    try {
      await p;
    } catch (e) {
      if (e instanceof StatusError)
        return { code: e.code, reason: e.reason, message: e.status.message ?? '', status: e.status };
      throw e;
    }
    assert.fail('the request was accepted');
  }

  it('a validating webhook that denies: the server words, code from its status (default 400), no object stored', async () => {
    const { ns, hooks } = await setup(
      {
        '/validate': (r) =>
          r.object.spec.size > 5 ? deny('size too big', r.object.spec.size > 8 ? 422 : undefined) : allow(),
      },
      (h, ns) => [
        configuration('ValidatingWebhookConfiguration', `v-${ns}`, [
          webhook(h, 'size.fake.kubeforge.io', '/validate', [rule(['widgets'])], inNs(ns)),
        ]),
      ],
    );
    const e = await refusal(rest.request('POST', W(ns), { body: widget('big', { size: 6 }) }));
    assert.deepEqual(
      [e.code, e.reason, e.message],
      [400, 'BadRequest', 'admission webhook "size.fake.kubeforge.io" denied the request: size too big'],
    );
    const e2 = await refusal(rest.request('POST', W(ns), { body: widget('bigger', { size: 9 }) }));
    assert.equal(e2.code, 422);
    await assert.rejects(rest.request('GET', W(ns, 'big')), /not found/);
    const ok = await rest.request('POST', W(ns), { body: widget('small', { size: 2 }) });
    assert.equal(ok.metadata.name, 'small');
    const created = hooks.reviews.filter((r) => r.request.operation === 'CREATE');
    assert.equal(created.length, 3);
    const last = created[2].request;
    assert.deepEqual(
      [last.kind, last.resource, last.namespace, last.name, last.dryRun, last.oldObject, last.options?.kind],
      [
        { group: 'fake.kubeforge.io', version: 'v1', kind: 'Widget' },
        { group: 'fake.kubeforge.io', version: 'v1', resource: 'widgets' },
        ns,
        'small',
        false,
        null,
        'CreateOptions',
      ],
    );
    // The validating webhook sees the object as stored: defaults applied, uid as stored.
    assert.equal(last.object.spec.mode, 'Fast');
    assert.equal(last.object.metadata.uid, ok.metadata.uid);
  });

  it('a mutating webhook patches before validation and before the validating webhooks, which see the patch', async () => {
    const { ns, hooks } = await setup(
      {
        '/mutate': () => ({
          allowed: true,
          patch: [
            { op: 'add', path: '/metadata/labels', value: { mutated: 'yes' } },
            { op: 'replace', path: '/spec/size', value: 4 },
          ],
        }),
        '/validate': (r) =>
          r.object.metadata.labels?.mutated === 'yes' ? allow(['seen the label']) : deny('no label'),
      },
      (h, ns) => [
        configuration('MutatingWebhookConfiguration', `m-${ns}`, [
          webhook(h, 'label.fake.kubeforge.io', '/mutate', [rule(['widgets'])], inNs(ns)),
        ]),
        configuration('ValidatingWebhookConfiguration', `v-${ns}`, [
          webhook(h, 'check.fake.kubeforge.io', '/validate', [rule(['widgets'])], inNs(ns)),
        ]),
      ],
    );
    warnings.length = 0;
    // size 30 is above the schema's maximum: the patch to 4 comes first, so it is accepted.
    const o = await rest.request('POST', W(ns), { body: widget('w', { size: 30 }) });
    assert.deepEqual([o.metadata.labels, o.spec.size], [{ mutated: 'yes' }, 4]);
    assert.deepEqual(warnings, ['seen the label']);
    assert.deepEqual(
      hooks.reviews.map((r) => r.path),
      ['/mutate', '/validate'],
    );
    // The mutating webhook saw the object as sent (defaulted), the validating one the patched object.
    assert.equal(hooks.reviews[0].request.object.spec.size, 30);
    assert.equal(hooks.reviews[0].request.object.metadata.namespace, ns);
    assert.equal(hooks.reviews[1].request.object.spec.size, 4);
  });

  it('rules: operations, resources with x/status and *, scope; objectSelector on the new or the old object', async () => {
    const { ns, hooks } = await setup(
      { '/v': (r) => (r.object?.spec?.size === 7 || r.oldObject?.spec?.size === 7 ? deny('seven') : allow()) },
      (h, ns) => [
        configuration('ValidatingWebhookConfiguration', `v-${ns}`, [
          webhook(h, 'status.fake.kubeforge.io', '/v', [rule(['widgets/status'], ['UPDATE'])], inNs(ns)),
          webhook(h, 'delete.fake.kubeforge.io', '/v', [rule(['*'], ['DELETE'], ['*'], ['*'], 'Namespaced')], {
            ...inNs(ns),
            objectSelector: { matchExpressions: [{ key: 'guard', operator: 'Exists' }] },
          }),
        ]),
      ],
    );
    const o = await rest.request('POST', W(ns), { body: widget('w', { size: 7 }, { guard: 'x' }) });
    assert.equal(hooks.reviews.length, 0, 'no rule names CREATE of widgets');
    const u = await rest.request('PUT', W(ns, 'w'), { body: { ...o, spec: { size: 7, mode: 'Slow' } } });
    assert.equal(hooks.reviews.length, 0, 'the main resource is not widgets/status');
    const e = await refusal(rest.request('PUT', W(ns, 'w', 'status'), { body: { ...u, status: { replicas: 1 } } }));
    assert.match(e.message, /admission webhook "status.fake.kubeforge.io" denied the request: seven/);
    assert.equal(hooks.reviews[0].request.subResource, 'status');
    assert.equal(hooks.reviews[0].request.operation, 'UPDATE');
    const d = await refusal(rest.request('DELETE', W(ns, 'w')));
    assert.match(d.message, /"delete.fake.kubeforge.io" denied the request: seven/);
    const del = hooks.reviews[1].request;
    assert.deepEqual(
      [del.operation, del.object, del.oldObject.metadata.name, del.options.kind],
      ['DELETE', null, 'w', 'DeleteOptions'],
    );
    // Unlabelled: the objectSelector leaves it out, the delete goes through.
    await rest.request('POST', W(ns), { body: widget('plain', { size: 7 }) });
    await rest.request('DELETE', W(ns, 'plain'));
    assert.equal(hooks.reviews.length, 2);
  });

  it('namespaceSelector: webhooks of another namespace are not called', async () => {
    const a = await setup({ '/v': () => deny('no') }, (h, ns) => [
      configuration('ValidatingWebhookConfiguration', `v-${ns}`, [
        webhook(h, 'ns.fake.kubeforge.io', '/v', [rule(['widgets'])], inNs(ns)),
      ]),
    ]);
    const b = `adm-other-${n}`;
    await rest.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: b } },
    });
    await rest.request('POST', W(b), { body: widget('w') });
    assert.equal(a.hooks.reviews.length, 0);
    await assert.rejects(rest.request('POST', W(a.ns), { body: widget('w') }), /denied the request: no/);
  });

  it('failurePolicy: an unreachable webhook fails the request with 500 (Fail) or is skipped (Ignore)', async () => {
    const { ns } = await setup({}, (h, ns) => [
      configuration('ValidatingWebhookConfiguration', `v-${ns}`, [
        webhook(h, 'gone.fake.kubeforge.io', '/missing', [rule(['widgets'], ['CREATE'])], inNs(ns)),
        webhook(
          { url: 'https://127.0.0.1:1', caBundle: h.caBundle },
          'down.fake.kubeforge.io',
          '/x',
          [rule(['widgets'], ['UPDATE'])],
          {
            ...inNs(ns),
            failurePolicy: 'Ignore',
          },
        ),
      ]),
    ]);
    const e = await refusal(rest.request('POST', W(ns), { body: widget('w') }));
    assert.equal(e.code, 500);
    assert.equal(e.reason, 'InternalError');
    assert.match(
      e.message,
      /^Internal error occurred: failed calling webhook "gone.fake.kubeforge.io": failed to call webhook: /,
    );
    const status = e.status as { details?: { causes?: { message: string }[] } };
    assert.equal(`Internal error occurred: ${status.details?.causes?.[0].message}`, e.message);
  });

  it('an unreachable port and an untrusted certificate are named as Go names them', async () => {
    const other = generateCACert();
    const refused = await setup({}, (h, ns) => [
      configuration('ValidatingWebhookConfiguration', `v-${ns}`, [
        webhook(
          { url: 'https://127.0.0.1:1', caBundle: h.caBundle },
          'refused.fake.kubeforge.io',
          '/x',
          [rule(['widgets'])],
          inNs(ns),
        ),
      ]),
    ]);
    const e = await refusal(rest.request('POST', W(refused.ns), { body: widget('w') }));
    assert.match(
      e.message,
      /failed calling webhook "refused.fake.kubeforge.io": failed to call webhook: Post "https:\/\/127.0.0.1:1\/x\?timeout=5s": dial tcp 127.0.0.1:1: connect: connection refused$/,
    );
    const untrusted = await setup({ '/v': () => allow() }, (h, ns) => [
      configuration('ValidatingWebhookConfiguration', `v-${ns}`, [
        webhook(
          { url: h.url, caBundle: Buffer.from(other.cert).toString('base64') },
          'untrusted.fake.kubeforge.io',
          '/v',
          [rule(['widgets'])],
          inNs(ns),
        ),
      ]),
    ]);
    const u = await refusal(rest.request('POST', W(untrusted.ns), { body: widget('w') }));
    assert.match(
      u.message,
      /"untrusted.fake.kubeforge.io": failed to call webhook: Post ".*": tls: failed to verify certificate: x509: certificate signed by unknown authority$/,
    );
    assert.equal(untrusted.hooks.reviews.length, 0);
  });

  it('dry runs: webhooks without side effects are called with dryRun true, and nothing is stored', async () => {
    const { ns, hooks } = await setup({ '/v': (r) => (r.object.spec.size === 6 ? deny('six') : allow()) }, (h, ns) => [
      configuration('ValidatingWebhookConfiguration', `v-${ns}`, [
        webhook(h, 'none.fake.kubeforge.io', '/v', [rule(['widgets'], ['CREATE'])], inNs(ns)),
        webhook(h, 'noneondryrun.fake.kubeforge.io', '/v', [rule(['widgets'], ['UPDATE'])], {
          ...inNs(ns),
          sideEffects: 'NoneOnDryRun',
        }),
      ]),
    ]);
    const o = await rest.request('POST', W(ns), { body: widget('w'), query: { dryRun: 'All' } });
    assert.equal(o.metadata.name, 'w');
    assert.equal(hooks.reviews[0].request.dryRun, true);
    assert.deepEqual(hooks.reviews[0].request.options, {
      kind: 'CreateOptions',
      apiVersion: 'meta.k8s.io/v1',
      dryRun: ['All'],
    });
    await assert.rejects(rest.request('GET', W(ns, 'w')), /not found/);
    const stored = await rest.request('POST', W(ns), { body: widget('w') });
    await rest.request('PUT', W(ns, 'w'), { body: { ...stored, spec: { size: 5 } }, query: { dryRun: 'All' } });
    assert.equal(hooks.reviews.at(-1)?.request.dryRun, true);
    assert.equal((await rest.request('GET', W(ns, 'w'))).spec.size, 3);
    const e = await refusal(
      rest.request('PUT', W(ns, 'w'), { body: { ...stored, spec: { size: 6 } }, query: { dryRun: 'All' } }),
    );
    assert.match(e.message, /"noneondryrun.fake.kubeforge.io" denied the request: six/);
  });

  it('timeoutSeconds: a slow webhook is a failed call', async () => {
    const slow = await startHookServer({ '/v': () => allow() }, { delayMs: 2500 });
    closers.push(() => slow.close());
    const { ns } = await setup({}, (_h, ns) => [
      configuration('ValidatingWebhookConfiguration', `v-${ns}`, [
        webhook(slow, 'slow.fake.kubeforge.io', '/v', [rule(['widgets'], ['CREATE'])], {
          ...inNs(ns),
          timeoutSeconds: 1,
        }),
      ]),
    ]);
    const e = await refusal(rest.request('POST', W(ns), { body: widget('w') }));
    assert.equal(e.code, 500);
    assert.match(
      e.message,
      /failed calling webhook "slow.fake.kubeforge.io": failed to call webhook: Post ".*\?timeout=1s": context deadline exceeded/,
    );
  });

  it('server-side apply, merge patches and deletecollection go through the webhooks too', async () => {
    const { ns, hooks } = await setup(
      {
        '/v': (r) =>
          r.object?.spec?.size === 9 || (r.operation === 'DELETE' && r.oldObject.metadata.name === 'keep')
            ? deny('nine')
            : allow(),
      },
      (h, ns) => [
        configuration('ValidatingWebhookConfiguration', `v-${ns}`, [
          webhook(h, 'all.fake.kubeforge.io', '/v', [rule(['widgets'], ['*'])], inNs(ns)),
        ]),
      ],
    );
    const apply = {
      contentType: 'application/apply-patch+yaml',
      query: { fieldManager: 'kubeforge-dev', force: 'true' },
    };
    await rest.request('PATCH', W(ns, 'a'), { body: widget('a'), ...apply });
    assert.equal(hooks.reviews.at(-1)?.request.operation, 'CREATE');
    assert.equal(hooks.reviews.at(-1)?.request.options.fieldManager, 'kubeforge-dev');
    const e = await refusal(rest.request('PATCH', W(ns, 'a'), { body: widget('a', { size: 9 }), ...apply }));
    assert.match(e.message, /denied the request: nine/);
    assert.equal(hooks.reviews.at(-1)?.request.operation, 'UPDATE');
    await assert.rejects(
      rest.request('PATCH', W(ns, 'a'), { body: { spec: { size: 9 } }, contentType: 'application/merge-patch+json' }),
      /denied the request: nine/,
    );
    await rest.request('POST', W(ns), { body: widget('keep') });
    const d = await refusal(rest.request('DELETE', W(ns)));
    assert.match(d.message, /denied the request: nine/);
    const left = await rest.request('GET', W(ns));
    assert.deepEqual(
      left.items.map((i: { metadata: { name: string } }) => i.metadata.name),
      ['keep'],
    );
  });

  it('each webhook is called once per request, also for an apply whose managedFields time moves during the calls', async () => {
    const slow = await startHookServer(
      {
        '/m': () => ({ allowed: true, patch: [{ op: 'add', path: '/metadata/labels', value: { m: 'y' } }] }),
        '/v': () => allow(),
      },
      { delayMs: 1100 },
    );
    closers.push(() => slow.close());
    const { ns } = await setup({}, (_h, ns) => [
      configuration('MutatingWebhookConfiguration', `m-${ns}`, [
        webhook(slow, 'm.fake.kubeforge.io', '/m', [rule(['widgets'])], inNs(ns)),
      ]),
      configuration('ValidatingWebhookConfiguration', `v-${ns}`, [
        webhook(slow, 'v.fake.kubeforge.io', '/v', [rule(['widgets'])], inNs(ns)),
      ]),
    ]);
    const apply = {
      contentType: 'application/apply-patch+yaml',
      query: { fieldManager: 'kubeforge-dev', force: 'true' },
    };
    const o = await rest.request('PATCH', W(ns, 'a'), { body: widget('a'), ...apply });
    assert.deepEqual(o.metadata.labels, { m: 'y' });
    assert.deepEqual(
      slow.reviews.filter((r) => !r.path.startsWith('/probe')).map((r) => r.path),
      ['/m', '/v'],
    );
  });

  it('reinvocationPolicy IfNeeded: a webhook is called again when a later one changed the object', async () => {
    const { ns, hooks } = await setup(
      {
        '/saw': (r) => ({
          allowed: true,
          patch: [{ op: 'add', path: '/metadata/annotations', value: { saw: String(r.object.spec.size) } }],
        }),
        '/size': () => ({ allowed: true, patch: [{ op: 'replace', path: '/spec/size', value: 4 }] }),
      },
      (h, ns) => [
        configuration('MutatingWebhookConfiguration', `m-${ns}`, [
          webhook(h, 'saw.fake.kubeforge.io', '/saw', [rule(['widgets'], ['CREATE'])], {
            ...inNs(ns),
            reinvocationPolicy: 'IfNeeded',
          }),
          webhook(h, 'size.fake.kubeforge.io', '/size', [rule(['widgets'], ['CREATE'])], inNs(ns)),
        ]),
      ],
    );
    const o = await rest.request('POST', W(ns), { body: widget('w') });
    assert.deepEqual([o.metadata.annotations, o.spec.size], [{ saw: '4' }, 4]);
    assert.deepEqual(
      hooks.reviews.map((r) => `${r.path} ${r.request.object.spec.size}`),
      ['/saw 3', '/size 3', '/saw 4'],
    );
  });

  it('matchConditions: a false condition skips the webhook, an error fails the request with 403 under Fail', async () => {
    const { ns, hooks } = await setup({ '/no': () => deny('matched') }, (h, ns) => [
      configuration('ValidatingWebhookConfiguration', `v-${ns}`, [
        webhook(h, 'big.fake.kubeforge.io', '/no', [rule(['widgets'], ['CREATE'])], {
          ...inNs(ns),
          matchConditions: [{ name: 'big', expression: 'object.spec.size > 5' }],
        }),
        webhook(h, 'broken.fake.kubeforge.io', '/no', [rule(['widgets'], ['UPDATE'])], {
          ...inNs(ns),
          matchConditions: [{ name: 'missing', expression: "object.metadata.annotations['x'] == 'y'" }],
        }),
      ]),
    ]);
    const small = await rest.request('POST', W(ns), { body: widget('small', { size: 3 }) });
    assert.equal(hooks.reviews.length, 0);
    await assert.rejects(
      rest.request('POST', W(ns), { body: widget('big', { size: 6 }) }),
      /denied the request: matched/,
    );
    const e = await refusal(rest.request('PUT', W(ns, 'small'), { body: { ...small, spec: { size: 4 } } }));
    assert.deepEqual(
      [e.code, e.message],
      [
        403,
        `widgets.fake.kubeforge.io "small" is forbidden: expression 'object.metadata.annotations['x'] == 'y'' resulted in error: no such key: annotations`,
      ],
    );
  });

  it('a write that another write overtakes while its webhooks answer starts again on the new object (as a patch retried on conflict)', async () => {
    const slow = await startHookServer(
      { '/m': () => ({ allowed: true, patch: [{ op: 'add', path: '/metadata/labels', value: { m: 'y' } }] }) },
      { delayMs: 300 },
    );
    closers.push(() => slow.close());
    const { ns } = await setup({}, (_h, ns) => [
      configuration('MutatingWebhookConfiguration', `m-${ns}`, [
        webhook(slow, 'm.fake.kubeforge.io', '/m', [rule(['widgets'], ['UPDATE'])], inNs(ns)),
      ]),
    ]);
    const o = await rest.request('POST', W(ns), { body: widget('w') });
    const patching = rest.request('PATCH', W(ns, 'w'), {
      body: { spec: { mode: 'Slow' } },
      contentType: 'application/merge-patch+json',
    });
    while (!slow.reviews.some((r) => r.path === '/m')) await new Promise((r) => setTimeout(r, 10));
    // The status subresource is not in the webhook's rules: this write goes through at once.
    await rest.request('PUT', W(ns, 'w', 'status'), { body: { ...o, status: { replicas: 5 } } });
    const patched = await patching;
    assert.deepEqual(
      [patched.spec.mode, patched.status, patched.metadata.labels],
      ['Slow', { replicas: 5 }, { m: 'y' }],
    );
    const calls = slow.reviews.filter((r) => r.path === '/m');
    assert.equal(calls.length, 2, 'called again on the object the status write left');
    assert.deepEqual(calls[1].request.oldObject.status, { replicas: 5 });
  });

  it('a service clientConfig is refused with a message saying the fake reaches only urls', async () => {
    const { ns } = await setup({}, (h, ns) => [
      configuration('ValidatingWebhookConfiguration', `v-${ns}`, [
        {
          ...webhook(h, 'svc.fake.kubeforge.io', '/v', [rule(['widgets'], ['CREATE'])], inNs(ns)),
          clientConfig: { service: { namespace: 'system', name: 'webhook-service', path: '/v' }, caBundle: h.caBundle },
        },
      ]),
    ]);
    const e = await refusal(rest.request('POST', W(ns), { body: widget('w') }));
    assert.equal(e.code, 500);
    assert.match(
      e.message,
      /failed calling webhook "svc.fake.kubeforge.io": .*service system\/webhook-service.*clientConfig.url/,
    );
  });

  it('matchPolicy Equivalent calls a webhook of v1 for a write through v2 (Exact does not)', async () => {
    const { ns, hooks } = await setup({ '/v': () => allow() }, (h, ns) => [
      configuration('ValidatingWebhookConfiguration', `v-${ns}`, [
        webhook(h, 'eq.fake.kubeforge.io', '/v', [rule(['widgets'], ['CREATE'])], inNs(ns)),
        webhook(h, 'exact.fake.kubeforge.io', '/v', [rule(['widgets'], ['CREATE'])], {
          ...inNs(ns),
          matchPolicy: 'Exact',
        }),
      ]),
    ]);
    await rest.request('POST', `/apis/fake.kubeforge.io/v2/namespaces/${ns}/widgets`, {
      body: { apiVersion: 'fake.kubeforge.io/v2', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 3 } },
    });
    assert.equal(hooks.reviews.length, 1);
    const r = hooks.reviews[0].request;
    assert.deepEqual(
      [r.kind.version, r.object.apiVersion, (r.requestKind as { version: string }).version],
      ['v1', V1, 'v2'],
    );
  });

  it("the runtime's own webhook server, with a defaulter and a validator, admits through the fake", async () => {
    const ca = generateCACert();
    const serving = generateSignedCert(ca, { hosts: ['127.0.0.1'] });
    const certDir = mkdtempSync(join(tmpdir(), 'kf-fake-hooks-'));
    writeFileSync(join(certDir, 'tls.crt'), serving.cert);
    writeFileSync(join(certDir, 'tls.key'), serving.key);
    const server = newWebhookServer({ host: '127.0.0.1', port: 0, certDir });
    type Widget = { metadata: { labels?: Record<string, string> }; spec: { size: number; mode?: string } };
    server.register(
      '/mutate-widget',
      withCustomDefaulter<Widget>({
        default(w) {
          w.metadata.labels = { ...(w.metadata.labels ?? {}), defaulted: 'true' };
        },
      }),
    );
    server.register(
      '/validate-widget',
      withCustomValidator<Widget>({
        validateCreate: (w) => (w.spec.size === 4 ? Promise.reject(new Error('four is not allowed')) : ['created ok']),
        validateUpdate: () => undefined,
        validateDelete: () => undefined,
      }),
    );
    const ac = new AbortController();
    const started = server.start(ac.signal);
    await server.whenStarted();
    closers.push(async () => {
      ac.abort();
      await started.catch(() => undefined);
    });
    const h = { url: `https://127.0.0.1:${server.port}`, caBundle: Buffer.from(ca.cert).toString('base64') };
    const { ns } = await setup({}, (_x, ns) => [
      configuration('MutatingWebhookConfiguration', `m-${ns}`, [
        webhook(h, 'mwidget.fake.kubeforge.io', '/mutate-widget', [rule(['widgets'])], inNs(ns)),
      ]),
      configuration('ValidatingWebhookConfiguration', `v-${ns}`, [
        webhook(h, 'vwidget.fake.kubeforge.io', '/validate-widget', [rule(['widgets'])], inNs(ns)),
      ]),
    ]);
    warnings.length = 0;
    const o = await rest.request('POST', W(ns), { body: widget('w') });
    assert.deepEqual(o.metadata.labels, { defaulted: 'true' });
    assert.deepEqual(warnings, ['created ok']);
    const e = await refusal(rest.request('POST', W(ns), { body: widget('four', { size: 4 }) }));
    assert.equal(e.code, 403);
    assert.match(e.message, /^admission webhook "vwidget.fake.kubeforge.io" denied the request: four is not allowed/);
  });
});
