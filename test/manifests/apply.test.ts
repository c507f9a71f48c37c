/**
 * The files `kubeforge manifests` writes, applied to a real kube-apiserver (KUBEBUILDER_ASSETS):
 * the CRDs (header comment and all) install, the ClusterRole / Role and both webhook
 * configurations are accepted as written and read back unchanged. It also shows why the RBAC
 * generator rejects non-resource URLs in a namespaced Role: the API server refuses them.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { manifestsCommand } from '../../src/cli/commands/manifests.js';
import { GENERATED_HEADER } from '../../src/manifests/managed-files.js';
import { RestClient } from '../../src/runtime/client/rest.js';
import { StatusError } from '../../src/runtime/client/errors.js';
import { TestEnvironment } from '../../src/testing/index.js';
import { linkKubeforgeDependencies } from '../helpers/cli.js';
import type { Obj } from '../helpers/chart.js';

const repo = process.env.KUBEFORGE_REPO_ROOT ?? resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

const work = mkdtempSync(join(tmpdir(), 'kf-apply-'));

/** Copies a fixture project, runs `kubeforge manifests` on it, returns its folder. */
async function generate(fixture: string): Promise<string> {
  const dir = join(work, fixture.replace('/', '-'));
  cpSync(join(repo, 'test/fixtures/manifests', fixture), dir, { recursive: true });
  linkKubeforgeDependencies(repo, dir);
  await manifestsCommand(
    { generatorVersion: 'test' },
    { cwd: dir, color: false, out: () => {}, err: (t) => assert.fail(t) },
  );
  return dir;
}

function documents(file: string): Obj[] {
  const text = readFileSync(file, 'utf8');
  assert.ok(text.startsWith(GENERATED_HEADER));
  return parseAllDocuments(text).map((d) => d.toJS() as Obj);
}

describe('generated manifests on a real API server', () => {
  let env: TestEnvironment;
  let rest: RestClient;
  let rbacDir: string;
  let webhookDir: string;

  before(async () => {
    rbacDir = await generate('rbac/valid');
    webhookDir = await generate('webhook/valid');
    env = new TestEnvironment({
      crdDirectoryPaths: [join(rbacDir, 'config/crd/bases')],
      errorIfCRDPathMissing: true,
      crdInstallTimeout: 120_000,
      controlPlaneStartTimeout: 120_000,
    });
    await env.start();
    rest = new RestClient(env.config);
  });

  after(async () => {
    await env?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('the CRD file, header comment included, installs and is established', async () => {
    assert.equal(env.crds.length, 1);
    const got = await rest.request(
      'GET',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.fixtures.kubeforge.io',
    );
    assert.ok(
      got.status.conditions.some(
        (c: { type: string; status: string }) => c.type === 'Established' && c.status === 'True',
      ),
    );
  });

  it('role.yaml: the ClusterRole and the namespaced Role are accepted and read back with the same rules', async () => {
    const [clusterRole, role] = documents(join(rbacDir, 'config/rbac/role.yaml'));
    assert.equal(clusterRole.kind, 'ClusterRole');
    assert.equal(role.kind, 'Role');
    const createdCR = await rest.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
      body: clusterRole,
    });
    assert.deepEqual(createdCR.rules, clusterRole.rules);
    await rest.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: role.metadata.namespace } },
    });
    const createdRole = await rest.request(
      'POST',
      `/apis/rbac.authorization.k8s.io/v1/namespaces/${role.metadata.namespace}/roles`,
      { body: role },
    );
    assert.deepEqual(createdRole.rules, role.rules);
  });

  it('a namespaced Role with non-resource URLs is refused by the API server (why KF4101 reports it)', async () => {
    await assert.rejects(
      rest.request('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles', {
        body: {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'Role',
          metadata: { name: 'bad' },
          rules: [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }],
        },
      }),
      (e: unknown) => e instanceof StatusError && e.code === 422,
    );
  });

  it('webhook manifests: the Mutating and Validating configurations are accepted as written', async () => {
    const [mutating, validating] = documents(join(webhookDir, 'config/webhook/manifests.yaml'));
    const m = await rest.request('POST', '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations', {
      body: mutating,
    });
    assert.equal(m.metadata.name, 'widget-mutator');
    assert.equal(m.webhooks[0].reinvocationPolicy, 'IfNeeded');
    assert.deepEqual(m.webhooks[0].clientConfig.service, { ...mutating.webhooks[0].clientConfig.service, port: 443 });
    const v = await rest.request('POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', {
      body: validating,
    });
    assert.equal(v.metadata.name, 'validating-webhook-configuration');
    // The server fills in defaults (scope '*'); everything we wrote comes back as written.
    assert.deepEqual(
      v.webhooks[0].rules,
      validating.webhooks[0].rules.map((r: object) => ({ ...r, scope: '*' })),
    );
    assert.equal(v.webhooks[0].timeoutSeconds, 5);
    // Selectors and match conditions as written (the server defaults nothing else in them).
    assert.deepEqual(v.webhooks[0].matchConditions, validating.webhooks[0].matchConditions);
    assert.deepEqual(v.webhooks[0].namespaceSelector, validating.webhooks[0].namespaceSelector);
    assert.deepEqual(v.webhooks[0].objectSelector, { matchLabels: { 'app.kubernetes.io/managed-by': 'widgets' } });
    // Two webhooks with one name in a configuration: refused by the server (why KF4203 reports it).
    const twice = {
      ...validating,
      metadata: { name: 'twice' },
      webhooks: [validating.webhooks[0], validating.webhooks[0]],
    };
    await assert.rejects(
      rest.request('POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', { body: twice }),
      (e: unknown) =>
        e instanceof StatusError &&
        e.code === 422 &&
        /Duplicate value/.test(String((e as StatusError).message) + JSON.stringify((e as StatusError).status ?? '')),
    );
    // Remove them so that no webhook (with nothing serving it) intercepts later requests.
    await rest.request('DELETE', '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/widget-mutator');
    await rest.request(
      'DELETE',
      '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/validating-webhook-configuration',
    );
  });
});
