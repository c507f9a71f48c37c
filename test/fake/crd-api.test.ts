// CustomResourceDefinitions written through kubeforge/testing's fake API server (what
// `kubeforge dev --fake` does: server-side apply of config/crd/bases): served at once, established
// as kube-apiserver's controllers establish them, updated schemas served, deleted ones no longer
// served once their objects are gone. The same requests against a real kube-apiserver: the CRD
// scenarios of ./scenarios.ts.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RestClient } from '../../src/runtime/client/rest.js';
import { StatusError } from '../../src/runtime/client/errors.js';
import { newWebhookServer } from '../../src/runtime/webhook/index.js';
import { withCustomDefaulter, withCustomValidator } from '../../src/runtime/webhook/admission.js';
import { generateCACert, generateSignedCert } from '../../src/runtime/manager/selfsigned.js';
import { DevInstaller } from '../../src/dev/cluster.js';
import { FakeAPIServer } from '../../src/testing/index.js';
import { must } from '../helpers/must.js';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const APPLY = { contentType: 'application/apply-patch+yaml', query: { fieldManager: 'kubeforge-dev', force: 'true' } };

/** A CRD of Gizmos in `group`: v1 (storage) with `size` at most `max`; `v2` adds a served version. */
function gizmoCRD(group: string, o: { max?: number; v2?: boolean; color?: boolean } = {}) {
  const schema = (extra: Record<string, unknown> = {}) => ({
    openAPIV3Schema: {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: { size: { type: 'integer', maximum: o.max ?? 10 }, ...extra },
        },
      },
    },
  });
  const color = o.color ? { color: { type: 'string', enum: ['red', 'blue'] } } : {};
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `gizmos.${group}` },
    spec: {
      group,
      names: { kind: 'Gizmo', plural: 'gizmos' },
      scope: 'Namespaced',
      versions: [
        { name: 'v1', served: true, storage: true, schema: schema(color) },
        ...(o.v2 ? [{ name: 'v2', served: true, storage: false, schema: schema(color) }] : []),
      ],
    },
  };
}

const gizmo = (group: string, name: string, spec: Record<string, unknown>, v = 'v1', finalizers?: string[]) => ({
  apiVersion: `${group}/${v}`,
  kind: 'Gizmo',
  metadata: { name, ...(finalizers ? { finalizers } : {}) },
  spec,
});

describe('CustomResourceDefinitions written through the fake API server', () => {
  let fake: FakeAPIServer;
  let rest: RestClient;
  before(async () => {
    fake = await FakeAPIServer.start();
    rest = new RestClient(fake.config);
  });
  after(async () => {
    rest.close();
    await fake.stop();
  });

  async function code(p: Promise<unknown>): Promise<number> {
    try {
      await p;
      return 200;
    } catch (e) {
      if (e instanceof StatusError) return e.code;
      throw e;
    }
  }
  const G = (group: string, v = 'v1', ns = 'default', name?: string) =>
    `/apis/${group}/${v}/namespaces/${ns}/gizmos${name ? `/${name}` : ''}`;

  it('a CRD created is served at once and Established, with its accepted names and stored versions', async () => {
    const group = 'created.kubeforge.io';
    const created = await rest.request('POST', CRDS, { body: gizmoCRD(group) });
    // The answer is what the strategy stored: no conditions yet, the storage version recorded.
    assert.deepEqual(created.status, { acceptedNames: { plural: '', kind: '' }, storedVersions: ['v1'] });
    const discovery = await rest.request('GET', `/apis/${group}/v1`);
    assert.deepEqual(
      discovery.resources.map((r: { name: string }) => r.name),
      ['gizmos'],
    );
    await rest.request('POST', G(group), { body: gizmo(group, 'g1', { size: 3 }) });
    assert.equal((await rest.request('GET', G(group))).items.length, 1);
    const crd = await rest.request('GET', `${CRDS}/gizmos.${group}`);
    assert.deepEqual(
      crd.status.conditions.map((c: Record<string, string>) => [c.type, c.status, c.reason, c.message]),
      [
        ['NamesAccepted', 'True', 'NoConflicts', 'no conflicts found'],
        ['Established', 'True', 'InitialNamesAccepted', 'the initial names have been accepted'],
      ],
    );
    assert.ok(crd.status.conditions.every((c: { lastTransitionTime?: string }) => c.lastTransitionTime));
    assert.deepEqual(crd.status.acceptedNames, {
      plural: 'gizmos',
      singular: 'gizmo',
      kind: 'Gizmo',
      listKind: 'GizmoList',
    });
    assert.deepEqual(crd.status.storedVersions, ['v1']);
  });

  it('a CRD applied (server-side apply, as kubeforge dev) is served; applied again with a new version and schema, serves them', async () => {
    const group = 'applied.kubeforge.io';
    await rest.request('PATCH', `${CRDS}/gizmos.${group}`, { body: gizmoCRD(group), ...APPLY });
    await rest.request('POST', G(group), { body: gizmo(group, 'a', { size: 3, color: 'red' }) });
    // v1's schema has no color: pruned.
    assert.deepEqual((await rest.request('GET', G(group, 'v1', 'default', 'a'))).spec, { size: 3 });
    assert.equal(await code(rest.request('GET', G(group, 'v2'))), 404);
    assert.equal(await code(rest.request('POST', G(group), { body: gizmo(group, 'b', { size: 20 }) })), 422);

    await rest.request('PATCH', `${CRDS}/gizmos.${group}`, {
      body: gizmoCRD(group, { max: 30, v2: true, color: true }),
      ...APPLY,
    });
    await rest.request('POST', G(group), { body: gizmo(group, 'b', { size: 20, color: 'blue' }) });
    assert.deepEqual((await rest.request('GET', G(group, 'v1', 'default', 'b'))).spec, { size: 20, color: 'blue' });
    assert.equal(
      await code(rest.request('POST', G(group), { body: gizmo(group, 'c', { size: 3, color: 'green' }) })),
      422,
    );
    const v2 = await rest.request('GET', G(group, 'v2', 'default', 'b'));
    assert.equal(v2.apiVersion, `${group}/v2`);
    const crd = await rest.request('GET', `${CRDS}/gizmos.${group}`);
    assert.equal(crd.metadata.generation, 2);
    assert.deepEqual(
      crd.status.conditions.map((c: Record<string, string>) => `${c.type}=${c.status}`),
      ['NamesAccepted=True', 'Established=True'],
    );
  });

  it('a CRD deleted: Terminating with the cleanup finalizer, its objects deleted, then it is no longer served', async () => {
    const group = 'deleted.kubeforge.io';
    await rest.request('POST', CRDS, { body: gizmoCRD(group) });
    await rest.request('POST', G(group), { body: gizmo(group, 'd', { size: 1 }) });
    const list = await rest.request('GET', G(group));
    const events: { type: string; name: string }[] = [];
    const { res, req } = await rest.stream(G(group), {
      query: { watch: 'true', resourceVersion: list.metadata.resourceVersion },
    });
    res.setEncoding('utf8');
    res.on('data', (c: string) => {
      for (const line of c.split('\n').filter(Boolean)) {
        const e = JSON.parse(line) as { type: string; object: { metadata: { name: string } } };
        events.push({ type: e.type, name: e.object.metadata.name });
      }
    });
    const answer = await rest.request('DELETE', `${CRDS}/gizmos.${group}`);
    assert.ok(answer.metadata.deletionTimestamp);
    assert.deepEqual(answer.metadata.finalizers, ['customresourcecleanup.apiextensions.k8s.io']);
    const terminating = answer.status.conditions.find((c: { type: string }) => c.type === 'Terminating');
    assert.deepEqual(
      [terminating.status, terminating.reason, terminating.message],
      [
        'True',
        'InstanceDeletionPending',
        'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
      ],
    );
    await new Promise((r) => setTimeout(r, 100));
    req.destroy();
    assert.deepEqual(events, [{ type: 'DELETED', name: 'd' }]);
    assert.equal(await code(rest.request('GET', `${CRDS}/gizmos.${group}`)), 404);
    assert.equal(await code(rest.request('GET', G(group))), 404);
    assert.equal(await code(rest.request('GET', `/apis/${group}/v1`)), 404);
    const groups = await rest.request('GET', '/apis');
    assert.equal(
      groups.groups.some((g: { name: string }) => g.name === group),
      false,
    );
  });

  it('an object with a finalizer keeps its deleted CRD (and its resource) until the finalizer is removed', async () => {
    const group = 'held.kubeforge.io';
    await rest.request('POST', CRDS, { body: gizmoCRD(group) });
    await rest.request('POST', G(group), { body: gizmo(group, 'h', { size: 1 }, 'v1', ['kubeforge.io/hold']) });
    await rest.request('DELETE', `${CRDS}/gizmos.${group}`);
    const held = await rest.request('GET', G(group, 'v1', 'default', 'h'));
    assert.ok(held.metadata.deletionTimestamp);
    assert.equal(await code(rest.request('GET', `${CRDS}/gizmos.${group}`)), 200);
    await assert.rejects(
      rest.request('POST', G(group), { body: gizmo(group, 'late', { size: 1 }) }),
      (e: StatusError) =>
        e.code === 403 &&
        e.status.message ===
          `gizmos.${group} "late" is forbidden: create not allowed while custom resource definition is terminating`,
    );
    await rest.request('PATCH', G(group, 'v1', 'default', 'h'), {
      body: { metadata: { finalizers: null } },
      contentType: 'application/merge-patch+json',
    });
    assert.equal(await code(rest.request('GET', `${CRDS}/gizmos.${group}`)), 404);
    assert.equal(await code(rest.request('GET', G(group))), 404);
  });

  it('CRDs given at start are stored and Established too, so an apply of one updates it', async () => {
    const group = 'started.kubeforge.io';
    const started = await FakeAPIServer.start({ crds: [gizmoCRD(group) as never] });
    const r = new RestClient(started.config);
    try {
      const crd = await r.request('GET', `${CRDS}/gizmos.${group}`);
      assert.deepEqual(
        crd.status.conditions.map((c: Record<string, string>) => `${c.type}=${c.status}`),
        ['NamesAccepted=True', 'Established=True'],
      );
      const applied = await r.request('PATCH', `${CRDS}/gizmos.${group}`, {
        body: gizmoCRD(group, { v2: true }),
        ...APPLY,
      });
      assert.equal(applied.metadata.uid, crd.metadata.uid);
      assert.equal(await code(r.request('GET', G(group, 'v2'))), 200);
    } finally {
      r.close();
      await started.stop();
    }
  });

  it('a dry-run create serves nothing', async () => {
    const group = 'dry.kubeforge.io';
    await rest.request('POST', CRDS, { body: gizmoCRD(group), query: { dryRun: 'All' } });
    assert.equal(await code(rest.request('GET', G(group))), 404);
    assert.equal(await code(rest.request('GET', `${CRDS}/gizmos.${group}`)), 404);
  });

  it("kubeforge dev's installer on the fake: CRDs applied and Established, the ClusterRole and webhooks applied, the webhooks called for a sample", async () => {
    const group = 'dev.kubeforge.io';
    const dir = mkdtempSync(join(tmpdir(), 'kf-fake-dev-'));
    for (const d of ['config/crd/bases', 'config/webhook', 'config/samples'])
      mkdirSync(join(dir, d), { recursive: true });
    writeFileSync(join(dir, 'config/crd/bases/gizmos.yaml'), JSON.stringify(gizmoCRD(group)));
    const hook = (kind: string, name: string, path: string) => ({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind,
      metadata: { name },
      webhooks: [
        {
          name: `${name}.${group}`,
          admissionReviewVersions: ['v1'],
          sideEffects: 'None',
          failurePolicy: 'Fail',
          clientConfig: { service: { name: 'webhook-service', namespace: 'system', path } },
          rules: [{ apiGroups: [group], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['gizmos'] }],
        },
      ],
    });
    writeFileSync(
      join(dir, 'config/webhook/manifests.yaml'),
      `${JSON.stringify(hook('MutatingWebhookConfiguration', 'mutating', '/mutate'))}\n---\n${JSON.stringify(hook('ValidatingWebhookConfiguration', 'validating', '/validate'))}\n`,
    );
    writeFileSync(join(dir, 'config/samples/gizmo.yaml'), JSON.stringify(gizmo(group, 'sample', { size: 2 })));
    mkdirSync(join(dir, 'config/rbac'), { recursive: true });
    writeFileSync(
      join(dir, 'config/rbac/role.yaml'),
      JSON.stringify({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: 'manager-role' },
        rules: [{ apiGroups: [group], resources: ['gizmos'], verbs: ['get', 'list', 'watch'] }],
      }),
    );

    const ca = generateCACert();
    const serving = generateSignedCert(ca, { hosts: ['127.0.0.1'] });
    writeFileSync(join(dir, 'tls.crt'), serving.cert);
    writeFileSync(join(dir, 'tls.key'), serving.key);
    const server = newWebhookServer({ host: '127.0.0.1', port: 0, certDir: dir });
    const seen: string[] = [];
    type Gizmo = { metadata: { annotations?: Record<string, string> }; spec: { size: number } };
    server.register(
      '/mutate',
      withCustomDefaulter<Gizmo>({
        default(g) {
          seen.push('default');
          g.metadata.annotations = { defaulted: 'yes' };
        },
      }),
    );
    server.register(
      '/validate',
      withCustomValidator<Gizmo>({
        validateCreate: (g) => {
          seen.push(`validate ${g.metadata.annotations?.defaulted}`);
          return g.spec.size > 5 ? Promise.reject(new Error('too big')) : undefined;
        },
        validateUpdate: () => undefined,
        validateDelete: () => undefined,
      }),
    );
    const ac = new AbortController();
    const running = server.start(ac.signal);
    await server.whenStarted();
    try {
      const installer = new DevInstaller(fake.config, {
        host: '127.0.0.1',
        port: must(server.port, 'server.port'),
        caPem: ca.cert,
      });
      assert.deepEqual(await installer.applyCRDs(dir, ['config/crd/bases/gizmos.yaml'], 2_000), [`gizmos.${group}`]);
      assert.deepEqual(await installer.applyRBAC(dir), ['manager-role']);
      await installer.applyWebhooks(dir);
      const { applied } = await installer.applySamples(dir);
      assert.deepEqual(applied, ['Gizmo default/sample']);
      assert.deepEqual(seen, ['default', 'validate yes']);
      const sample = await rest.request('GET', G(group, 'v1', 'default', 'sample'));
      assert.deepEqual(sample.metadata.annotations, { defaulted: 'yes' });
      await assert.rejects(
        rest.request('POST', G(group), { body: gizmo(group, 'big', { size: 6 }) }),
        /admission webhook "validating.dev.kubeforge.io" denied the request: too big/,
      );
    } finally {
      ac.abort();
      await running.catch(() => undefined);
    }
  });
});
