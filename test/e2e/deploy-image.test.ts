/**
 * End to end, as Kubebuilder's deploy-image tutorial: pack kubeforge, `kubeforge init` (npm install
 * against the tarball), then with the installed CLI `kubeforge create api --plugins
 * deploy-image/v1-alpha` for Memcached with every flag, `npm run build`, the project's own
 * `npm test` (the scaffolded controller test, on the fake API server then a real one: the Deployment of the image,
 * spec.size, conditions, the finalizer), `kubectl kustomize config/default` (the manager
 * with MEMCACHED_IMAGE, the CRD, the roles), and the sample on a real API server.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { TestEnvironment } from '../../src/testing/index.js';
import { assertAllPassed, initProject, MINUTES, ok, packKubeforge, sh } from './helpers.js';
import type { Obj } from '../helpers/chart.js';

const work = mkdtempSync(join(tmpdir(), 'kf-e2e-deploy-image-'));
const project = join(work, 'memcached-operator');

const MEMCACHED = [
  'create',
  'api',
  '--group',
  'example.com',
  '--version',
  'v1alpha1',
  '--kind',
  'Memcached',
  '--plugins',
  'deploy-image/v1-alpha',
  '--image',
  'memcached:1.6.26-alpine3.19',
  '--image-container-command',
  'memcached,--memory-limit=64,-o,modern,-v',
  '--image-container-port',
  '11211',
  '--run-as-user',
  '1001',
];

describe('e2e: create api --plugins deploy-image/v1-alpha -> build -> npm test -> kustomize', {
  timeout: 20 * MINUTES,
}, () => {
  const kubeforge = (args: string[]) => sh(join(project, 'node_modules/.bin/kubeforge'), args, project);

  before(() => {
    assert.ok(
      process.env.KUBEBUILDER_ASSETS,
      'KUBEBUILDER_ASSETS must name the folder holding etcd and kube-apiserver',
    );
    const tarball = packKubeforge(work);
    mkdirSync(project);
    ok(initProject(project, tarball), 'kubeforge init');
  });

  after(() => {
    rmSync(work, { recursive: true, force: true });
  });

  it('create api with the plugin scaffolds the Kind, its controller, the image variable and the plugin record', {
    timeout: 3 * MINUTES,
  }, () => {
    const out = ok(kubeforge(MEMCACHED), 'kubeforge create api --plugins deploy-image/v1-alpha');
    assert.match(out, /^UPDATE config\/manager\/manager\.yaml/m);
    assert.match(out, /^CREATE config\/crd\/bases\/example\.com\.example\.com_memcacheds\.yaml/m);
    const project_ = readFileSync(join(project, 'PROJECT'), 'utf8');
    assert.match(
      project_,
      /^ {2}deploy-image\.go\.kubebuilder\.io\/v1-alpha:\n {4}resources:\n {4}- domain: example\.com\n/m,
    );
    assert.match(project_, /^ {8}image: memcached:1\.6\.26-alpine3\.19$/m);
    const role = readFileSync(join(project, 'config/rbac/role.yaml'), 'utf8');
    assert.match(role, /- apps\n {2}resources:\n {2}- deployments\n/);
    assert.match(role, /resources:\n {2}- pods\n {2}verbs:\n {2}- get\n {2}- list\n {2}- watch\n/);
    // Again with --force: nothing to change (the plugin's record and the variable included).
    assert.equal(
      ok(kubeforge([...MEMCACHED, '--force']), 'create api --force'),
      'Nothing to change.\nmanifests are up to date\n',
    );
  });

  it('npm run build compiles the project', { timeout: 3 * MINUTES }, () => {
    ok(sh('npm', ['run', 'build'], project), 'npm run build');
  });

  it("the project's npm test is green: the Deployment of the image, spec.size, Available, the finalizer", {
    timeout: 8 * MINUTES,
  }, () => {
    const r = sh('npm', ['test'], project);
    const out = ok(r, 'npm test');
    assertAllPassed(out, 'npm test');
    assert.match(r.stderr, /^test: unit tier: 1 test file\(s\) in \d+ process\(es\), no control plane$/m);
    // The one test body (memcached_controller.both.test.ts), on the fake API server, then on the real one.
    assert.equal(out.match(/^ok \d+ - Memcached controller$/gm)?.length, 2, out);
    for (const name of [
      'reconciles a created Memcached: a Deployment of the image with spec.size replicas, owned by it, then Available',
      'reports Available False, and does not retry, when MEMCACHED_IMAGE is not set',
      'runs in a manager: follows spec.size, and a deleted Memcached goes once its finalizer ran',
      'ignores a Memcached that no longer exists',
    ]) {
      assert.equal(
        out.match(new RegExp(`^\\s*ok \\d+ - ${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'gm'))?.length,
        2,
        `${name} passed on both tiers:\n${out}`,
      );
    }
  });

  it('kubectl kustomize config/default: the manager has MEMCACHED_IMAGE, the CRD requires containerPort', () => {
    const yaml = ok(sh('kubectl', ['kustomize', 'config/default'], project), 'kubectl kustomize config/default');
    const docs = parseAllDocuments(yaml).map((d) => d.toJS() as Obj);
    const manager = docs.find((d) => d.kind === 'Deployment');
    const container = manager?.spec.template.spec.containers.find((c: { name: string }) => c.name === 'manager');
    assert.deepEqual(container?.env, [{ name: 'MEMCACHED_IMAGE', value: 'memcached:1.6.26-alpine3.19' }]);
    const crd = docs.find((d) => d.kind === 'CustomResourceDefinition');
    assert.equal(crd?.metadata.name, 'memcacheds.example.com.example.com');
    const spec = crd?.spec.versions[0].schema.openAPIV3Schema.properties.spec;
    assert.deepEqual(spec.required, ['containerPort']);
    assert.equal(spec.properties.size.default, 1);
    ok(sh('kubectl', ['kustomize', 'config/samples'], project), 'kubectl kustomize config/samples');
    const sample = parseAllDocuments(
      readFileSync(join(project, 'config/samples/example.com_v1alpha1_memcached.yaml'), 'utf8'),
    )[0].toJS();
    assert.deepEqual(sample.spec, { size: 1, containerPort: 11211 });
  });

  it('the sample is accepted by a real API server with the generated CRD; a negative size or no containerPort is not', {
    timeout: 3 * MINUTES,
  }, async () => {
    const env = new TestEnvironment({
      crdDirectoryPaths: [join(project, 'config/crd/bases')],
      errorIfCRDPathMissing: true,
    });
    const kc = await env.start();
    try {
      const kubeconfig = join(work, 'kubeconfig');
      writeFileSync(kubeconfig, kc.exportConfig());
      const out = ok(
        sh(
          'kubectl',
          ['--kubeconfig', kubeconfig, 'apply', '--dry-run=server', '-n', 'default', '-k', 'config/samples'],
          project,
        ),
        'kubectl apply --dry-run=server -k config/samples',
      );
      assert.match(out, /memcached\.example\.com\.example\.com\/memcached-sample created \(server dry run\)/);
      const sample = readFileSync(join(project, 'config/samples/example.com_v1alpha1_memcached.yaml'), 'utf8');
      for (const [bad, field] of [
        [sample.replace('size: 1', 'size: -1'), /spec\.size/],
        [sample.replace(/^ {2}containerPort: 11211\n/m, ''), /spec\.containerPort/],
      ] as const) {
        const file = join(work, 'bad.yaml');
        writeFileSync(file, bad);
        const rejected = sh(
          'kubectl',
          ['--kubeconfig', kubeconfig, 'apply', '--dry-run=server', '-n', 'default', '-f', file],
          project,
        );
        assert.notEqual(rejected.status, 0, rejected.stdout);
        assert.match(rejected.stderr, field);
      }
    } finally {
      await env.stop();
    }
  });
});
