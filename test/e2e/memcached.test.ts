/**
 * The first week of a Go operator author, end to end: operator-sdk's Memcached tutorial written in
 * a generated project (test/fixtures/memcached: the API types, a reconciler owning a Deployment
 * with conditions, events and a finalizer, and a manager test), `npm run manifests`, then the
 * project's own `npm test` on a real API server. The tutorial in docs/memcached.md is taken from these files
 * (test/scaffolds/readme-tutorial.test.ts checks it).
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { assertAllPassed, initProject, MINUTES, ok, packKubeforge, repo, sh } from './helpers.js';

const work = mkdtempSync(join(tmpdir(), 'kf-e2e-memcached-'));
const project = join(work, 'memcached-operator');
const fixtures = join(repo, 'test/fixtures/memcached');

describe('e2e: the Memcached tutorial in a generated project', { timeout: 20 * MINUTES }, () => {
  before(() => {
    assert.ok(
      process.env.KUBEBUILDER_ASSETS,
      'KUBEBUILDER_ASSETS must name the folder holding etcd and kube-apiserver',
    );
    const tarball = packKubeforge(work);
    mkdirSync(project);
    ok(initProject(project, tarball), 'kubeforge init');
    ok(
      sh(
        join(project, 'node_modules/.bin/kubeforge'),
        ['create', 'api', '--group', 'cache', '--version', 'v1alpha1', '--kind', 'Memcached'],
        project,
      ),
      'kubeforge create api',
    );
  });

  after(() => {
    rmSync(work, { recursive: true, force: true });
  });

  it('the tutorial code replaces the scaffolded files and the manifests follow its markers', {
    timeout: 3 * MINUTES,
  }, () => {
    copyFileSync(join(fixtures, 'memcached_types.ts'), join(project, 'src/api/v1alpha1/memcached_types.ts'));
    copyFileSync(join(fixtures, 'memcached_controller.ts'), join(project, 'src/controller/memcached_controller.ts'));
    copyFileSync(
      join(fixtures, 'memcached_controller.both.test.ts'),
      join(project, 'test/controller/memcached_controller.both.test.ts'),
    );
    const r = sh('npm', ['run', 'manifests'], project);
    ok(r, 'npm run manifests');
    assert.doesNotMatch(r.stderr, /KF\d{4}/, 'no warning: size is an int32');
    const role = readFileSync(join(project, 'config/rbac/role.yaml'), 'utf8');
    assert.match(role, /- apps\n {2}resources:\n {2}- deployments\n/);
    assert.match(role, /- events\.k8s\.io\n {2}resources:\n {2}- events\n {2}verbs:\n {2}- create\n {2}- patch\n/);
    const crd = readFileSync(join(project, 'config/crd/bases/cache.example.com_memcacheds.yaml'), 'utf8');
    assert.match(
      crd,
      /size:\n\s+description: size is the number of Memcached Pods\.\n\s+format: int32\n\s+maximum: 3\n\s+minimum: 1\n\s+type: integer/,
    );
  });

  it("the project's npm test is green: Deployment, spec.size, owns(), events, finalizer", {
    timeout: 8 * MINUTES,
  }, () => {
    const out = ok(sh('npm', ['test'], project), 'npm test');
    assertAllPassed(out, 'npm test');
    // Both tiers: the one test body on the fake API server, then on the real one.
    assert.equal(out.match(/^ok \d+ - Memcached controller$/gm)?.length, 2, out);
    for (const name of [
      'runs a Deployment of spec.size replicas, owned by the Memcached, and reports Available',
      'follows spec.size',
      'recreates a deleted Deployment \\(owns\\(\\) watches it\\)',
      'records events.k8s.io Events about the Memcached',
      'lets a deleted Memcached go once its finalizer ran',
    ]) {
      assert.match(out, new RegExp(`^\\s*ok \\d+ - ${name}$`, 'm'), `${name} passed:\n${out}`);
    }
  });
});
