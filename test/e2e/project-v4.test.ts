/**
 * Issue #13's "done when": Kubebuilder's own command sequences (test/testdata/generate.sh, for
 * project-v4, project-v4-multigroup and project-v4-with-plugins) run through the installed
 * kubeforge, every command exiting 0; each project then runs `make all` and `make build-installer`
 * as generate.sh does, passes `make lint` and its own tests on a real API server; its
 * `config/default` builds with `kubectl kustomize`, and the installer `make build-installer` wrote
 * is applied to a real API server with server-side apply (as `make deploy` does), with stand-in
 * CRDs for cert-manager's Certificate and Issuer. `alpha update` from the project's own record to
 * the same kubeforge finds nothing to change.
 *
 * What is left out, and why:
 * - `--plugins go/v4` on init: the Go layout plugin (kubeforge's layout is its own);
 * - `create api --ssa` (Navigator, Prawn): Go's server-side apply configurations, which
 *   TypeScript does not generate; the Kinds are created without it;
 * - `edit --plugins autoupdate.kubebuilder.io/v1-alpha`, which generate.sh runs after `make all`:
 *   not a plugin kubeforge has. Asking for it is refused with KF1070, checked below.
 *
 * `edit --plugins helm.kubebuilder.io/v2-alpha`, which generate.sh runs on project-v4-with-plugins
 * after `make all` and `make build-installer`, runs as there: helm (built from Go modules) lints
 * the chart and renders it as config/default builds it (test/helpers/chart.ts lists the differences).
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { TestEnvironment } from '../../src/testing/index.js';
import { asChartRendersIt, DIFFERENCES, docs, key } from '../helpers/chart.js';
import { helm } from '../oracle/tools.js';
import { assertAllPassed, MINUTES, ok, packKubeforge, repo, sh, KUBEFORGE_TEST } from './helpers.js';
import { CERT_MANAGER, PROJECT_V4_COMMANDS } from './sequences.js';

/** generate.sh's `$kb` lines for each project, as written there (Go-only flags removed, see above). */
const SEQUENCES: Record<string, { init: string; commands: string }> = {
  'project-v4': { init: '', commands: PROJECT_V4_COMMANDS },
  'project-v4-multigroup': {
    init: '--multigroup',
    commands: `
create api --group crew --version v1 --kind Captain --controller=true --resource=true --make=false --controller-name=captain
create api --group crew --version v1 --kind Captain --controller=true --resource=false --make=false --controller-name=captain-backup
create webhook --group crew --version v1 --kind Captain --defaulting --make=false
create webhook --group crew --version v1 --kind Captain --programmatic-validation --make=false
create api --group ship --version v1beta1 --kind Frigate --controller=true --resource=true --make=false
create api --group ship --version v1 --kind Destroyer --controller=true --resource=true --namespaced=false --make=false
create webhook --group ship --version v1 --kind Destroyer --defaulting --make=false
create api --group ship --version v2alpha1 --kind Cruiser --controller=true --resource=true --namespaced=false --make=false
create webhook --group ship --version v2alpha1 --kind Cruiser --programmatic-validation --make=false
create api --group sea-creatures --version v1beta1 --kind Kraken --controller=true --resource=true --make=false
create api --group sea-creatures --version v1beta2 --kind Leviathan --controller=true --resource=true --make=false
create api --group foo.policy --version v1 --kind HealthCheckPolicy --controller=true --resource=true --make=false
create api --group apps --version v1 --kind Deployment --controller=true --resource=false --make=false
create api --group foo --version v1 --kind Bar --controller=true --resource=true --make=false
create api --group fiz --version v1 --kind Bar --controller=true --resource=true --make=false
create api --group cert-manager --version v1 --kind Certificate --controller=true --resource=false --make=false ${CERT_MANAGER}
create webhook --group cert-manager --version v1 --kind Issuer --defaulting ${CERT_MANAGER}
create webhook --group core --version v1 --kind Pod --programmatic-validation --make=false
create webhook --group apps --version v1 --kind Deployment --defaulting --make=false
create webhook --group apps --version v1 --kind Deployment --programmatic-validation --make=false
create api --group sea-creatures --version v1 --kind Prawn --controller=true --resource=true --make=false
create api --group example.com --version v1alpha1 --kind Memcached --image=memcached:1.6.26-alpine3.19 --image-container-command="memcached,--memory-limit=64,-o,modern,-v" --image-container-port="11211" --run-as-user="1001" --plugins="deploy-image/v1-alpha" --make=false
create api --group example.com --version v1alpha1 --kind Busybox --image=busybox:1.36.1 --plugins="deploy-image/v1-alpha" --make=false
create webhook --group example.com --version v1alpha1 --kind Memcached --programmatic-validation --make=false
create api --group example.com --version v1 --kind Wordpress --controller=true --resource=true  --make=false
create api --group example.com --version v2 --kind Wordpress --controller=false --resource=true  --make=false
create webhook --group example.com --version v1 --kind Wordpress --conversion --make=false --spoke v2
edit --plugins=grafana.kubebuilder.io/v1-alpha`,
  },
  'project-v4-with-plugins': {
    init: '--namespaced',
    commands: `
edit --namespaced --force
create api --group example.com --version v1alpha1 --kind Memcached --image=memcached:1.6.26-alpine3.19 --image-container-command="memcached,--memory-limit=64,-o,modern,-v" --image-container-port="11211" --run-as-user="1001" --plugins="deploy-image/v1-alpha" --make=false
create api --group example.com --version v1alpha1 --kind Busybox --image=busybox:1.36.1 --plugins="deploy-image/v1-alpha" --make=false
create webhook --group example.com --version v1alpha1 --kind Memcached --programmatic-validation --make=false
create api --group example.com --version v1 --kind Wordpress --controller=true --resource=true  --make=false
create api --group example.com --version v2 --kind Wordpress --controller=false --resource=true  --make=false
create webhook --group example.com --version v1 --kind Wordpress --conversion --make=false --spoke v2
edit --plugins=grafana.kubebuilder.io/v1-alpha`,
  },
};

/** A CRD of cert-manager.io/v1 that takes any object (the test API server runs no cert-manager). */
function standInCrd(kind: string): string {
  const plural = `${kind.toLowerCase()}s`;
  return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${plural}.cert-manager.io
spec:
  group: cert-manager.io
  names: { kind: ${kind}, listKind: ${kind}List, plural: ${plural}, singular: ${kind.toLowerCase()} }
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: { type: object, x-kubernetes-preserve-unknown-fields: true }
`;
}

/** Splits a command line as a POSIX shell would for these lines: blanks, and "double quotes". */
function words(line: string): string[] {
  return [...line.matchAll(/(?:[^\s"]+|"[^"]*")+/g)].map((m) => m[0].replace(/"/g, ''));
}

const work = mkdtempSync(join(tmpdir(), 'kf-e2e-v4-'));
let tarball: string;

describe("e2e: Kubebuilder's project-v4 command sequences run through kubeforge", { timeout: 45 * MINUTES }, () => {
  before(() => {
    assert.ok(
      process.env.KUBEBUILDER_ASSETS,
      'KUBEBUILDER_ASSETS must name the folder holding etcd and kube-apiserver (npm test sets it)',
    );
    tarball = packKubeforge(work);
  });

  after(() => {
    rmSync(work, { recursive: true, force: true });
  });

  /**
   * A fresh API server for one project's installer (the webhooks one project registers would be
   * called for the next one's objects), with stand-in CRDs of cert-manager's Certificate and Issuer:
   * config/default asks cert-manager for its certificates, and the test API server has none.
   */
  async function apiServerFor(name: string): Promise<{ kubeconfig: string; stop: () => Promise<void> }> {
    const env = new TestEnvironment();
    const kc = await env.start();
    const kubeconfig = join(work, `${name}.kubeconfig`);
    writeFileSync(kubeconfig, kc.exportConfig());
    const crds = join(work, 'cert-manager-crds.yaml');
    writeFileSync(crds, ['Certificate', 'Issuer'].map(standInCrd).join('---\n'));
    ok(
      sh('kubectl', ['--kubeconfig', kubeconfig, 'apply', '--server-side', '-f', crds], work),
      'kubectl apply the stand-in cert-manager CRDs',
    );
    return { kubeconfig, stop: () => env.stop() };
  }

  for (const [name, { init, commands }] of Object.entries(SEQUENCES)) {
    it(`${name}: every command exits 0; make all, build-installer, lint and the project's tests pass; the installer applies`, {
      timeout: 15 * MINUTES,
    }, async () => {
      const project = join(work, name);
      mkdirSync(project);
      const repoCli = join(repo, 'bin/kubeforge.js');
      ok(
        sh(
          process.execPath,
          [
            repoCli,
            'init',
            ...words(init),
            '--domain',
            'testproject.org',
            '--license',
            'apache2',
            '--owner',
            'The Kubernetes authors',
            '--kubeforge-source',
            tarball,
          ],
          project,
        ),
        `${name}: kubeforge init ${init}`,
      );
      const kubeforge = join(project, 'node_modules/.bin/kubeforge');
      for (const line of commands.trim().split('\n'))
        ok(sh(kubeforge, words(line), project), `${name}: kubeforge ${line}`);

      // generate.sh: make all, make build-installer.
      ok(sh('make', ['all'], project), `${name}: make all`);
      ok(sh('make', ['build-installer'], project), `${name}: make build-installer`);
      const installer = readFileSync(join(project, 'dist/install.yaml'), 'utf8');
      assert.match(installer, /^kind: CustomResourceDefinition$/m);
      ok(sh('make', ['lint'], project), `${name}: make lint`);
      assert.match(
        ok(sh(kubeforge, ['manifests', '--check'], project), `${name}: kubeforge manifests --check`),
        /up to date/,
      );
      // API reference pages (issue #28): make docs writes one page per CRD and an index, and a second run changes nothing.
      ok(sh('make', ['docs'], project), `${name}: make docs`);
      const pages = readdirSync(join(project, 'docs/reference')).sort();
      const crds = readdirSync(join(project, 'config/crd/bases')).filter((f) => f.endsWith('.yaml'));
      assert.deepEqual(
        pages,
        ['README.md', ...crds.map((f) => f.replace(/\.yaml$/, '.md'))].sort(),
        `${name}: docs/reference`,
      );
      assert.match(ok(sh(kubeforge, ['docs', '--check'], project), `${name}: kubeforge docs --check`), /up to date/);
      // CRD compatibility (issue #28): the project's CRDs against themselves as a released folder, through make.
      assert.match(
        ok(sh('make', ['check-compat', 'COMPAT_BASE=config/crd/bases'], project), `${name}: make check-compat`),
        /CRDs? compared with config\/crd\/bases: no incompatible change/,
      );

      // The project's own tests: every scaffolded controller and webhook test, on a real API server.
      const tests = ok(sh('node', [...KUBEFORGE_TEST], project), `${name}: the project's tests`);
      assert.doesNotMatch(tests, /^# pass 0$/m);
      assertAllPassed(tests, `${name}: the project's tests`);

      // alpha update from the project's own record (cliVersion, the tarball in .kubeforge/) to the
      // installed kubeforge, the same one: both re-scaffold the whole sequence from PROJECT, and
      // the merge with the project, after make all, changes nothing (no spurious difference).
      for (const args of [
        ['init', '--quiet'],
        ['add', '-A'],
        ['-c', 'user.name=e2e', '-c', 'user.email=e2e@example.com', 'commit', '--quiet', '-m', name],
      ])
        ok(sh('git', args, project), `${name}: git ${args.join(' ')}`);
      const update = sh(kubeforge, ['alpha', 'update'], project);
      assert.equal(update.status, 0, `${name}: kubeforge alpha update:\n${update.stdout}${update.stderr}`);
      assert.match(
        update.stdout,
        /^Nothing to update: the scaffolds of kubeforge \S+ and \S+ bring no change to this project/m,
      );
      assert.match(update.stderr, /Scaffolding the ancestor with kubeforge \S+ \(\.kubeforge\/kubeforge-[^)]+\.tgz\)/);
      assert.equal(ok(sh('git', ['status', '--porcelain'], project), `${name}: git status`), '');

      // config/default renders, and the API server takes every object of the installer (make deploy's server-side apply).
      ok(sh('kubectl', ['kustomize', 'config/default'], project), `${name}: kubectl kustomize config/default`);
      const server = await apiServerFor(name);
      try {
        const applied = ok(
          sh(
            'kubectl',
            ['--kubeconfig', server.kubeconfig, 'apply', '--server-side', '-f', 'dist/install.yaml'],
            project,
          ),
          `${name}: kubectl apply --server-side -f dist/install.yaml`,
        );
        assert.match(applied, new RegExp(`^deployment\\.apps/${name}-controller-manager serverside-applied$`, 'm'));
        assert.match(applied, /^customresourcedefinition\.apiextensions\.k8s\.io\/\S+ serverside-applied$/m);
      } finally {
        await server.stop();
      }
    });
  }

  it('project-v4-with-plugins: edit --plugins=helm.kubebuilder.io/v2-alpha as generate.sh runs it; helm lints the chart and renders config/default', {
    timeout: 10 * MINUTES,
  }, async () => {
    const project = join(work, 'project-v4-with-plugins');
    const helmBin = await helm();
    ok(
      sh(join(project, 'node_modules/.bin/kubeforge'), ['edit', '--plugins=helm.kubebuilder.io/v2-alpha'], project),
      'kubeforge edit --plugins=helm.kubebuilder.io/v2-alpha',
    );
    assert.match(
      readFileSync(join(project, 'PROJECT'), 'utf8'),
      /^plugins:\n(?: {2}\S.*\n(?: {4}.*\n)*)*? {2}helm\.kubebuilder\.io\/v2-alpha:\n {4}output: dist\n/m,
    );
    assert.match(ok(sh('make', ['helm-lint', `HELM=${helmBin}`], project), 'make helm-lint'), /0 chart\(s\) failed/);
    const rendered = docs(
      ok(
        sh(
          helmBin,
          ['template', 'project-v4-with-plugins', 'dist/chart', '--namespace', 'project-v4-with-plugins-system'],
          project,
        ),
        'helm template',
      ),
    );
    const { objects: want, applied } = asChartRendersIt(
      docs(ok(sh('kubectl', ['kustomize', 'config/default'], project), 'kubectl kustomize')),
      'project-v4-with-plugins',
    );
    assert.deepEqual([...applied].sort(), Object.keys(DIFFERENCES).sort());
    assert.deepEqual(rendered.map(key).sort(), want.map(key).sort());
    for (const o of want)
      assert.deepEqual(
        rendered.find((r) => key(r) === key(o)),
        o,
        key(o),
      );
    assert.match(
      ok(
        sh(join(project, 'node_modules/.bin/kubeforge'), ['manifests', '--check'], project),
        'kubeforge manifests --check',
      ),
      /up to date/,
    );
    // The API server takes the render (server-side apply, dry run), as it takes the installer above.
    const server = await apiServerFor('project-v4-with-plugins-chart');
    try {
      ok(
        sh(
          'kubectl',
          ['--kubeconfig', server.kubeconfig, 'create', 'namespace', 'project-v4-with-plugins-system'],
          project,
        ),
        'kubectl create namespace',
      );
      const file = join(work, 'project-v4-with-plugins-chart.yaml');
      writeFileSync(
        file,
        ok(
          sh(
            helmBin,
            ['template', 'project-v4-with-plugins', 'dist/chart', '--namespace', 'project-v4-with-plugins-system'],
            project,
          ),
          'helm template',
        ),
      );
      const applied = ok(
        sh(
          'kubectl',
          ['--kubeconfig', server.kubeconfig, 'apply', '--server-side', '--dry-run=server', '-f', file],
          project,
        ),
        'kubectl apply --server-side --dry-run=server (the chart)',
      );
      assert.equal(applied.trim().split('\n').length, rendered.length, applied);
    } finally {
      await server.stop();
    }
  });

  it('the plugin generate.sh adds after make all (autoupdate/v1-alpha) writes its workflow and records itself in PROJECT', () => {
    const project = join(work, 'project-v4-with-plugins');
    const r = sh(
      join(project, 'node_modules/.bin/kubeforge'),
      ['edit', '--plugins=autoupdate.kubebuilder.io/v1-alpha'],
      project,
    );
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(readFileSync(join(project, '.github/workflows/auto_update.yml'), 'utf8'), /alpha update/);
    assert.match(readFileSync(join(project, 'PROJECT'), 'utf8'), /autoupdate\.kubebuilder\.io\/v1-alpha:/);
  });
});
