/**
 * End to end, as a Kubebuilder user would: pack kubeforge, `kubeforge init` (npm install against
 * the tarball), then with the installed CLI `kubeforge create api` three times (a namespaced Kind,
 * a cluster-scoped one, a controller for the built-in Deployment), `npm run build`, the
 * project's own `npm test` (the scaffolded controller tests on a real API server), `kubectl
 * kustomize config/default` (CRDs included), and the samples accepted by a real API server
 * (`kubectl apply --dry-run=server`) with the generated CRDs.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { TestEnvironment } from '../../src/testing/index.js';
import { GENERATED_VERSIONS } from '../../src/scaffolds/init.js';
import {
  assertAllPassed,
  countingAssets,
  initProject,
  MINUTES,
  ok,
  packKubeforge,
  sh,
  KUBEFORGE_TEST,
} from './helpers.js';

const work = mkdtempSync(join(tmpdir(), 'kf-e2e-api-'));
const project = join(work, 'guestbook');

const API_CRONJOB = ['create', 'api', '--group', 'batch', '--version', 'v1', '--kind', 'CronJob'];
const API_FLEET = ['create', 'api', '--group', 'batch', '--version', 'v1', '--kind', 'Fleet', '--namespaced=false'];
const CONTROLLER_DEPLOYMENT = [
  'create',
  'api',
  '--group',
  'apps',
  '--version',
  'v1',
  '--kind',
  'Deployment',
  '--resource=false',
];

describe('e2e: kubeforge init -> create api x3 -> build -> test -> kustomize -> samples on a real API server', {
  timeout: 25 * MINUTES,
}, () => {
  const kubeforge = (args: string[]) => sh(join(project, 'node_modules/.bin/kubeforge'), args, project);

  before(() => {
    assert.ok(
      process.env.KUBEBUILDER_ASSETS,
      'KUBEBUILDER_ASSETS must name the folder holding etcd and kube-apiserver (npm test sets it)',
    );
    const tarball = packKubeforge(work);
    mkdirSync(project);
    ok(initProject(project, tarball), 'kubeforge init');
  });

  after(() => {
    rmSync(work, { recursive: true, force: true });
  });

  it('create api (installed CLI) scaffolds a namespaced Kind and writes its CRD', { timeout: 3 * MINUTES }, () => {
    const out = ok(kubeforge(API_CRONJOB), 'kubeforge create api CronJob');
    assert.match(out, /^CREATE src\/api\/v1\/cronjob_types\.ts/m);
    assert.match(out, /^UPDATE src\/main\.ts/m);
    assert.match(out, /^CREATE config\/crd\/bases\/batch\.example\.com_cronjobs\.yaml/m);
  });

  it('create api scaffolds a cluster-scoped Kind next to it', { timeout: 3 * MINUTES }, () => {
    const out = ok(kubeforge(API_FLEET), 'kubeforge create api Fleet');
    assert.match(out, /^CREATE config\/crd\/bases\/batch\.example\.com_fleets\.yaml/m);
    const crd = readFileSync(join(project, 'config/crd/bases/batch.example.com_fleets.yaml'), 'utf8');
    assert.match(crd, /^ {2}scope: Cluster$/m);
  });

  it('create api --resource=false scaffolds a controller for a built-in Kind (apps/v1 Deployment) and its RBAC', {
    timeout: 3 * MINUTES,
  }, () => {
    const out = ok(kubeforge(CONTROLLER_DEPLOYMENT), 'kubeforge create api Deployment --resource=false');
    assert.match(out, /^CREATE src\/controller\/deployment_controller\.ts/m);
    assert.doesNotMatch(out, /src\/api\//);
    assert.match(out, /^UPDATE config\/rbac\/role\.yaml/m);
    assert.match(
      readFileSync(join(project, 'config/rbac/role.yaml'), 'utf8'),
      /- apps\n {2}resources:\n {2}- deployments\n/,
    );
  });

  it('the same commands again with --force change nothing; without --force they are refused', {
    timeout: 3 * MINUTES,
  }, () => {
    for (const args of [API_CRONJOB, API_FLEET, CONTROLLER_DEPLOYMENT]) {
      assert.equal(
        ok(kubeforge([...args, '--force']), 'create api --force'),
        'Nothing to change.\nmanifests are up to date\n',
      );
      const refused = kubeforge(args);
      assert.equal(refused.status, 1);
      assert.match(refused.stderr, /KF1042/);
    }
    assert.match(ok(kubeforge(['manifests', '--check']), 'kubeforge manifests --check'), /manifests are up to date/);
  });

  it('npm run build compiles the project with the three controllers wired into main.ts', {
    timeout: 3 * MINUTES,
  }, () => {
    ok(sh('npm', ['run', 'build'], project), 'npm run build');
    const main = readFileSync(join(project, 'src/main.ts'), 'utf8');
    assert.match(
      main,
      /new CronJobReconciler\(mgr\.getClient\(\), mgr\.getEventRecorder\('cronjob-controller'\)\)\.setupWithManager\(mgr\);\n\s+new FleetReconciler\(mgr\.getClient\(\), mgr\.getEventRecorder\('fleet-controller'\)\)\.setupWithManager\(mgr\);\n\s+new DeploymentReconciler/,
    );
  });

  it("the project's npm test is green on ONE control plane, the scaffolded controller and manager tests included", {
    timeout: 8 * MINUTES,
  }, () => {
    const counter = countingAssets(join(work, 'assets-suite'));
    const r = sh('npm', ['test'], project, { KUBEBUILDER_ASSETS: counter.assets });
    const out = ok(r, 'npm test');
    const pass = assertAllPassed(out, 'npm test');
    for (const name of [
      'CronJob controller',
      'Fleet controller',
      'reconciles a created CronJob',
      'reconciles a created Fleet',
      'runs in a manager: a created or changed CronJob is reconciled and reported in an event',
      'runs in a manager: a created or changed Fleet is reconciled and reported in an event',
      'ignores a Fleet that no longer exists',
      'Deployment controller',
      'ignores a Deployment that no longer exists',
    ]) {
      assert.match(out, new RegExp(`^\\s*ok \\d+ - ${name}$`, 'm'), `${name} passed:\n${out}`);
    }
    assert.ok(
      pass >= 15,
      `at least the suite smoke test, three tests per CRD controller and one for Deployment passed, in each tier (got ${pass})`,
    );
    // The unit tier first: the three controllers' unit tests, no control plane.
    assert.match(r.stderr, /^test: unit tier: 3 test file\(s\) in \d+ process\(es\), no control plane$/m);
    // Four test files (suite, CronJob, Fleet, Deployment), one kube-apiserver for all of them.
    assert.match(r.stderr, /^test: one control plane \(kube-apiserver pid \d+\) for 4 test file\(s\)$/m);
    assert.equal(counter.starts(), 1, 'npm test started exactly one kube-apiserver');
  });

  it('a test file run alone (node --test) starts a control plane of its own', { timeout: 3 * MINUTES }, () => {
    const counter = countingAssets(join(work, 'assets-alone'));
    const r = sh(process.execPath, ['--test', 'build/test/controller/cronjob_controller.both.test.js'], project, {
      KUBEBUILDER_ASSETS: counter.assets,
    });
    ok(r, 'node --test build/test/controller/cronjob_controller.both.test.js');
    assert.match(r.stdout, /^# fail 0$/m);
    assert.equal(counter.starts(), 1);
  });

  it("kubeforge test follows node --test's rule: a failing todo test leaves the run green, a failing test does not", {
    timeout: 3 * MINUTES,
  }, () => {
    const dir = join(project, 'build/test/rule');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'todo.test.js'),
      "import { it } from 'node:test';\nit('later', { todo: 'not written yet' }, () => { throw new Error('not yet'); });\nit('fine', () => {});\n",
    );
    writeFileSync(
      join(dir, 'fail.test.js'),
      "import { it } from 'node:test';\nit('broken', () => { throw new Error('broken'); });\n",
    );
    try {
      const todo = sh(process.execPath, [...KUBEFORGE_TEST, 'build/test/rule/todo.test.js'], project);
      ok(todo, 'kubeforge test with a failing todo test');
      assert.match(todo.stdout, /^# todo 1$/m);
      assert.equal(
        sh(process.execPath, ['--test', 'build/test/rule/todo.test.js'], project).status,
        0,
        'node --test says the same',
      );
      const fail = sh(process.execPath, [...KUBEFORGE_TEST, 'build/test/rule/fail.test.js'], project);
      assert.equal(fail.status, 1, fail.stdout);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('make test provisions the binaries with npx kubeforge setup-envtest (ENVTEST_K8S_VERSION, from its cache) and runs npm test on one control plane', {
    timeout: 8 * MINUTES,
  }, () => {
    assert.equal(sh('make', ['--version'], project).status, 0, 'make is installed');
    // setup-envtest's cache layout: <cache>/kubeforge/envtest/k8s/<version>-<goos>-<goarch>; an
    // exact version found there needs no network.
    const goarch: Record<string, string> = { x64: 'amd64', arm64: 'arm64' };
    const cache = join(work, 'xdg-cache');
    const counter = countingAssets(
      join(cache, 'kubeforge/envtest/k8s', `1.20.2-${process.platform}-${goarch[process.arch] ?? process.arch}`),
    );
    const r = sh('make', ['test', 'ENVTEST_K8S_VERSION=1.20.2'], project, {
      XDG_CACHE_HOME: cache,
      KUBEBUILDER_ASSETS: '',
    });
    ok(r, 'make test');
    assert.match(r.stderr, /setup-envtest: using cached envtest 1\.20\.2/);
    assert.match(
      r.stdout,
      new RegExp(`^KUBEBUILDER_ASSETS=${counter.assets.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'),
    );
    assertAllPassed(r.stdout, 'make test');
    assert.equal(counter.starts(), 1, 'make test started exactly one kube-apiserver');
    // Coverage of src/ (c8): a summary, and lcov for CI services.
    assert.match(r.stdout, /^Statements\s+: \d+(\.\d+)?% \( \d+\/\d+ \)$/m);
    const lcov = readFileSync(join(project, 'coverage/lcov.info'), 'utf8');
    assert.match(
      lcov,
      /^SF:src\/controller\/cronjob_controller\.ts$/m,
      'the controller is measured in TypeScript lines',
    );
    assert.doesNotMatch(lcov, /^SF:(test|build\/test)\//m, 'tests are not measured');
  });

  it('kubectl kustomize config/default builds and holds both CRDs and the roles', () => {
    const yaml = ok(sh('kubectl', ['kustomize', 'config/default'], project), 'kubectl kustomize config/default');
    const docs = parseAllDocuments(yaml).map((d) => d.toJS() as { kind: string; metadata: { name: string } });
    const crds = docs.filter((d) => d.kind === 'CustomResourceDefinition').map((d) => d.metadata.name);
    assert.deepEqual(crds.sort(), ['cronjobs.batch.example.com', 'fleets.batch.example.com']);
    const roles = docs.filter((d) => d.kind === 'ClusterRole').map((d) => d.metadata.name);
    for (const r of [
      'guestbook-cronjob-admin-role',
      'guestbook-cronjob-editor-role',
      'guestbook-fleet-viewer-role',
      'guestbook-manager-role',
    ])
      assert.ok(roles.includes(r), `${r} in ${roles.join(', ')}`);
    ok(sh('kubectl', ['kustomize', 'config/samples'], project), 'kubectl kustomize config/samples');
  });

  it('the samples are accepted by a real API server with the generated CRDs (kubectl apply --dry-run=server)', {
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
      assert.match(out, /cronjob\.batch\.example\.com\/cronjob-sample created \(server dry run\)/);
      assert.match(out, /fleet\.batch\.example\.com\/fleet-sample created \(server dry run\)/);
      // The schema is enforced: a wrong-typed field is rejected by the same server.
      const bad = join(work, 'bad.yaml');
      writeFileSync(
        bad,
        readFileSync(join(project, 'config/samples/batch_v1_cronjob.yaml'), 'utf8').replace('foo: bar', 'foo: 42'),
      );
      const rejected = sh(
        'kubectl',
        ['--kubeconfig', kubeconfig, 'apply', '--dry-run=server', '-n', 'default', '-f', bad],
        project,
      );
      assert.notEqual(rejected.status, 0, rejected.stdout);
      assert.match(rejected.stderr, /spec\.foo/);
    } finally {
      await env.stop();
    }
  });

  it('make install applies a CRD too large for client-side apply (an embedded JobTemplateSpec) with server-side apply', {
    timeout: 4 * MINUTES,
  }, async () => {
    const types = join(project, 'src/api/v1/cronjob_types.ts');
    const source = readFileSync(types, 'utf8');
    writeFileSync(
      types,
      `import type { V1JobTemplateSpec } from '@kubernetes/client-node';\n${source.replace(/^(\s*)foo\?: string;$/m, '$1foo?: string;\n\n$1/** jobTemplate is the Job to create. */\n$1jobTemplate?: V1JobTemplateSpec;')}`,
    );
    const env = new TestEnvironment();
    const kc = await env.start();
    try {
      const kubeconfig = join(work, 'kubeconfig-install');
      writeFileSync(kubeconfig, kc.exportConfig());
      ok(sh('npm', ['run', 'manifests'], project), 'npm run manifests');
      const crd = join(project, 'config/crd/bases/batch.example.com_cronjobs.yaml');
      assert.ok(readFileSync(crd).length > 262_144, 'the CRD is larger than the last-applied annotation allows');
      // What a client-side apply would do: the API server refuses the annotation.
      const clientSide = sh('kubectl', ['--kubeconfig', kubeconfig, 'apply', '-f', crd], project);
      assert.notEqual(clientSide.status, 0, clientSide.stdout);
      // v1.20 says "must have at most", current servers "may not be more than".
      assert.match(clientSide.stderr, /Too long: (must have at most|may not be more than) 262144 bytes/);
      ok(sh('make', ['install'], project, { KUBECONFIG: kubeconfig }), 'make install');
      const names = ok(
        sh('kubectl', ['--kubeconfig', kubeconfig, 'get', 'crd', '-o', 'name'], project),
        'kubectl get crd',
      );
      assert.match(names, /^customresourcedefinition\.apiextensions\.k8s\.io\/cronjobs\.batch\.example\.com$/m);
      assert.match(names, /^customresourcedefinition\.apiextensions\.k8s\.io\/fleets\.batch\.example\.com$/m);
      // Idempotent: a second install applies the same objects again.
      ok(sh('make', ['install'], project, { KUBECONFIG: kubeconfig }), 'make install (again)');
    } finally {
      await env.stop();
      writeFileSync(types, source);
    }
  });

  it('make lint passes on the scaffold (tsc + Biome); make fmt and make lint-fix run, and the project still lints and builds', {
    timeout: 3 * MINUTES,
  }, () => {
    ok(sh('make', ['lint'], project), 'make lint');
    // A lint error is reported with its file and a non-zero exit: the check can fail.
    const bad = join(project, 'src/bad.ts');
    writeFileSync(bad, 'export function f(x: number) {\n  if (x = 1) return x;\n}\n');
    try {
      const r = sh('make', ['lint'], project);
      assert.notEqual(r.status, 0, 'make lint fails on an assignment in a condition');
      assert.match(r.stdout + r.stderr, /src\/bad\.ts:2:7 lint\/suspicious\/noAssignInExpressions/);
    } finally {
      rmSync(bad);
    }
    ok(sh('make', ['fmt'], project), 'make fmt');
    ok(sh('make', ['lint-fix'], project), 'make lint-fix');
    ok(sh('make', ['lint'], project), 'make lint after fmt');
    // Formatted twice is formatted once: fmt leaves nothing to do.
    ok(
      sh('npx', ['--yes', `@biomejs/biome@${GENERATED_VERSIONS.biome}`, 'format', '.'], project),
      'biome format (check) after make fmt',
    );
    assert.doesNotMatch(
      readFileSync(join(project, 'package-lock.json'), 'utf8'),
      /@biomejs/,
      'Biome is fetched by npx, not locked',
    );
    ok(sh('npm', ['run', 'build'], project), 'npm run build after make fmt');
  });
});
