/**
 * End to end, as a user would: pack kubeforge (npm pack), `kubeforge init` into a temporary
 * folder (which runs npm install against the packed kubeforge), then in the new project:
 * `npm run build`, `npm test` (a real API server from KUBEBUILDER_ASSETS), `kubectl kustomize
 * config/default`, and the built manager (and the production bundle alone, as the container
 * image runs it) serving /healthz and /readyz against a real API server until SIGTERM.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { TestEnvironment } from '../../src/testing/index.js';
import { assertAllPassed, initProject, MINUTES, ok, packKubeforge, sh } from './helpers.js';
import { must } from '../helpers/must.js';

const work = mkdtempSync(join(tmpdir(), 'kf-e2e-init-'));
const project = join(work, 'guestbook');

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

async function get(url: string): Promise<{ status: number; body: string } | undefined> {
  try {
    const r = await fetch(url, { signal: AbortSignal.timeout(2000) });
    return { status: r.status, body: await r.text() };
  } catch {
    return undefined;
  }
}

/** Starts a manager script, waits for its probes, stops it with SIGTERM; returns what it saw. */
async function runManager(
  args: string[],
  cwd: string,
  kubeconfig: string,
  options: { metrics?: boolean; flags?: string[] } = {},
) {
  const port = await freePort();
  const metricsPort = await freePort();
  const extra = [
    ...(options.metrics ? [`--metrics-bind-address=127.0.0.1:${metricsPort}`, '--metrics-secure=false'] : []),
    ...(options.flags ?? []),
  ];
  const child = spawn(
    process.execPath,
    [...args, '--kubeconfig', kubeconfig, `--health-probe-bind-address=127.0.0.1:${port}`, ...extra],
    { cwd, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let logs = '';
  child.stdout.on('data', (d) => (logs += d));
  child.stderr.on('data', (d) => (logs += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  let healthz: { status: number; body: string } | undefined;
  let readyz: { status: number; body: string } | undefined;
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline && child.exitCode === null) {
    healthz = await get(`http://127.0.0.1:${port}/healthz`);
    readyz = await get(`http://127.0.0.1:${port}/readyz`);
    if (healthz?.status === 200 && readyz?.status === 200) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  const metrics = options.metrics ? await get(`http://127.0.0.1:${metricsPort}/metrics`) : undefined;
  child.kill('SIGTERM');
  const exit = await Promise.race([exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 20_000))]);
  if (exit === 'timeout') child.kill('SIGKILL');
  return { healthz, readyz, metrics, exit, logs };
}

describe('e2e: kubeforge init -> install -> build -> test -> kustomize -> run', { timeout: 20 * MINUTES }, () => {
  let tarball: string;
  const env = new TestEnvironment();
  let kubeconfig: string;

  before(async () => {
    assert.ok(
      process.env.KUBEBUILDER_ASSETS,
      'KUBEBUILDER_ASSETS must name the folder holding etcd and kube-apiserver (npm test sets it)',
    );
    tarball = packKubeforge(work);
    mkdirSync(project);
    const kc = await env.start();
    kubeconfig = join(work, 'kubeconfig');
    writeFileSync(kubeconfig, kc.exportConfig());
  });

  after(async () => {
    await env.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('init scaffolds and installs (npm install against the packed kubeforge)', { timeout: 10 * MINUTES }, () => {
    const r = initProject(project, tarball, ['--owner', 'E2E Authors']);
    const out = ok(r, 'kubeforge init');
    assert.match(out, /^CREATE PROJECT \(\+10 lines\)$/m);
    assert.match(r.stderr, /Installing dependencies: npm install/);
    assert.match(r.stderr, /Dependencies installed in \d+s\./);
    const pkg = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    assert.match(
      pkg.dependencies.kubeforge,
      new RegExp(
        `^file:\\.kubeforge/${must(tarball.split('/').pop(), 'the tarball name').replace('.tgz', '').replace(/\./g, '\\.')}-[0-9a-f]{8}\\.tgz$`,
      ),
    );
    const lock = JSON.parse(readFileSync(join(project, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { resolved?: string }>;
    };
    assert.equal(
      lock.packages['node_modules/kubeforge'].resolved,
      pkg.dependencies.kubeforge,
      'installed from the tarball in .kubeforge/',
    );
  });

  it('npm run build compiles cleanly with tsc --strict', () => {
    ok(sh('npm', ['run', 'build'], project), 'npm run build');
    const tsconfig = JSON.parse(readFileSync(join(project, 'tsconfig.json'), 'utf8')) as {
      compilerOptions: Record<string, unknown>;
    };
    assert.equal(tsconfig.compilerOptions.strict, true);
    assert.equal(tsconfig.compilerOptions.experimentalDecorators, undefined);
  });

  it('npm test is green against a real API server', { timeout: 5 * MINUTES }, () => {
    const out = ok(sh('npm', ['test'], project), 'npm test');
    assert.ok(assertAllPassed(out, 'npm test') > 0);
  });

  it('npm run test:unit passes before any create api: no unit test yet, and no control plane started', {
    timeout: 2 * MINUTES,
  }, () => {
    const r = sh('npm', ['run', 'test:unit'], project, { KUBEBUILDER_ASSETS: '' });
    ok(r, 'npm run test:unit');
    assert.match(r.stderr, /^test: no unit test files \(\*\.unit\.test\.js, \*\.both\.test\.js\) under build\/test$/m);
    assert.doesNotMatch(r.stderr, /control plane/);
  });

  it('kubectl kustomize config/default builds', () => {
    const yaml = ok(sh('kubectl', ['kustomize', 'config/default'], project), 'kubectl kustomize config/default');
    for (const kind of [
      'Namespace',
      'ServiceAccount',
      'Role',
      'ClusterRole',
      'RoleBinding',
      'ClusterRoleBinding',
      'Service',
      'Deployment',
    ]) {
      assert.match(yaml, new RegExp(`^kind: ${kind}$`, 'm'), kind);
    }
    assert.match(yaml, /^ {2}name: guestbook-controller-manager$/m);
    assert.match(yaml, /^ {2}namespace: guestbook-system$/m);
    assert.match(yaml, /- --metrics-bind-address=:8443/);
    // The optional pieces build too, so that switching them on works.
    for (const dir of ['config/prometheus', 'config/network-policy', 'config/certmanager'])
      ok(sh('kubectl', ['kustomize', dir], project), `kubectl kustomize ${dir}`);
  });

  it('with every optional piece switched on ([WEBHOOK], [CERTMANAGER], [PROMETHEUS], [NETWORK POLICY], [TRACING], metrics certs), config/default still builds and every placeholder is filled', () => {
    // Switchable lines are commented YAML ("#- ...", "#  key: ..."); prose comments are "# Text".
    const copy = join(work, 'config-all-on');
    cpSync(join(project, 'config'), copy, { recursive: true });
    for (const file of [
      'default/kustomization.yaml',
      'network-policy/kustomization.yaml',
      'prometheus/kustomization.yaml',
    ]) {
      const text = readFileSync(join(copy, file), 'utf8')
        .split('\n')
        .map((l) => (/^#(\S|\s{2,})/.test(l) && l !== '#- ../crd' && !l.includes('+kubebuilder') ? l.slice(1) : l))
        .join('\n');
      writeFileSync(join(copy, file), text);
    }
    const yaml = ok(sh('kubectl', ['kustomize', join(copy, 'default')], project), 'kubectl kustomize (all pieces on)');
    for (const kind of ['Certificate', 'Issuer', 'ServiceMonitor', 'NetworkPolicy'])
      assert.match(yaml, new RegExp(`^kind: ${kind}$`, 'm'), kind);
    // kustomize's replacement placeholders, not OTEL_SERVICE_NAME of the [TRACING] patch.
    assert.doesNotMatch(yaml, /\bSERVICE_NAME\b|\bSERVICE_NAMESPACE\b/);
    assert.match(yaml, /- name: OTEL_EXPORTER_OTLP_ENDPOINT\n\s+value: http:/, 'the [TRACING] patch is on');
    assert.match(yaml, /^ {2}- guestbook-webhook-service\.guestbook-system\.svc$/m);
    assert.match(yaml, /^ {2}- guestbook-controller-manager-metrics-service\.guestbook-system\.svc$/m);
    assert.match(yaml, /serverName: guestbook-controller-manager-metrics-service\.guestbook-system\.svc$/m);
    assert.match(yaml, /- --webhook-cert-path=\/tmp\/k8s-webhook-server\/serving-certs/);
    assert.match(yaml, /- --metrics-cert-path=\/tmp\/k8s-metrics-server\/metrics-certs/);
  });

  it('make build-installer writes dist/install.yaml with the image, and a real API server accepts every object in it', {
    timeout: 3 * MINUTES,
  }, (t) => {
    if (sh('make', ['--version'], project).status !== 0) {
      t.skip('make is not installed');
      return;
    }
    ok(sh('make', ['build-installer', 'IMG=registry.example.com/guestbook:v0.1.0'], project), 'make build-installer');
    const yaml = readFileSync(join(project, 'dist/install.yaml'), 'utf8');
    assert.match(yaml, /^ {8}image: registry\.example\.com\/guestbook:v0\.1\.0$/m);
    const applied = ok(
      sh('kubectl', ['--kubeconfig', kubeconfig, 'apply', '-f', 'dist/install.yaml'], project),
      'kubectl apply -f dist/install.yaml',
    );
    assert.match(applied, /^deployment\.apps\/guestbook-controller-manager created$/m);
    assert.match(applied, /^clusterrole\.rbac\.authorization\.k8s\.io\/guestbook-metrics-reader created$/m);
    assert.match(applied, /^role\.rbac\.authorization\.k8s\.io\/guestbook-leader-election-role created$/m);
  });

  it('make deploy / undeploy use server-side apply against a real API server; the e2e suite, its workflows and make targets are in place', {
    timeout: 4 * MINUTES,
  }, (t) => {
    if (sh('make', ['--version'], project).status !== 0) {
      t.skip('make is not installed');
      return;
    }
    const deployed = ok(
      sh('make', ['deploy', 'IMG=registry.example.com/guestbook:v0.2.0'], project, { KUBECONFIG: kubeconfig }),
      'make deploy',
    );
    assert.match(deployed, /^deployment\.apps\/guestbook-controller-manager serverside-applied$/m);
    const manager = JSON.parse(
      ok(
        sh(
          'kubectl',
          [
            '--kubeconfig',
            kubeconfig,
            'get',
            'deployment',
            'guestbook-controller-manager',
            '-n',
            'guestbook-system',
            '-o',
            'json',
          ],
          project,
        ),
        'get deployment',
      ),
    ) as {
      spec: {
        template: { spec: { containers: { image: string; ports: { containerPort: number; name: string }[] }[] } };
      };
    };
    assert.equal(manager.spec.template.spec.containers[0].image, 'registry.example.com/guestbook:v0.2.0');
    assert.deepEqual(
      manager.spec.template.spec.containers[0].ports.map((p) => [p.name, p.containerPort]),
      [['health', 8081]],
    );
    // Not run: deleting the Namespace waits for the namespace controller, which a bare API server lacks.
    assert.match(
      ok(sh('make', ['-n', 'undeploy', 'ignore-not-found=true'], project), 'make -n undeploy'),
      /delete --ignore-not-found=true -k config\/default/,
    );
    // The e2e suite compiled with the project (npm run build above) and is not part of npm test.
    assert.ok(readdirSync(join(project, 'build/test/e2e')).includes('manager.e2e.js'));
    const pkg = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    assert.match(pkg.scripts['test:e2e'], /build\/test\/e2e\/manager\.e2e\.js/);
    // Each workflow runs make targets that exist.
    const plan = (target: string, vars: string[] = []) =>
      ok(sh('make', ['-n', target, ...vars], project), `make -n ${target}`);
    assert.match(plan('test-e2e', ['KIND=true']), /KIND=true KIND_CLUSTER=guestbook-test-e2e npm run test:e2e/);
    assert.match(plan('cleanup-test-e2e'), /delete cluster --name guestbook-test-e2e/);
    for (const [file, target] of [
      ['test.yml', 'make test'],
      ['lint.yml', 'make lint'],
      ['test-e2e.yml', 'make test-e2e'],
    ]) {
      const workflow = parseAllDocuments(readFileSync(join(project, '.github/workflows', file), 'utf8'))[0].toJS() as {
        jobs: Record<string, { steps: { run?: string }[] }>;
      };
      const runs = Object.values(workflow.jobs).flatMap((j) => j.steps.map((st) => st.run ?? ''));
      assert.ok(
        runs.some((r) => r.trim() === target),
        `${file} runs ${target}`,
      );
      for (const r of runs) for (const m of r.matchAll(/\bmake ([\w-]+)/g)) plan(m[1]);
    }
  });

  it('the built manager serves /healthz and /readyz against a real API server and stops on SIGTERM', {
    timeout: 2 * MINUTES,
  }, async () => {
    const r = await runManager(['build/src/main.js'], project, kubeconfig, { metrics: true });
    assert.deepEqual(r.healthz, { status: 200, body: 'ok' }, r.logs);
    assert.deepEqual(r.readyz, { status: 200, body: 'ok' }, r.logs);
    assert.deepEqual(r.exit, { code: 0, signal: null }, r.logs);
    assert.match(r.logs, /manager stopped/);
    // Kubebuilder's flags reach the manager: --metrics-bind-address with --metrics-secure=false serves plain HTTP.
    assert.equal(r.metrics?.status, 200, r.logs);
    assert.match(r.metrics?.body ?? '', /^# HELP /m);
    // Production logging by default: JSON lines, level as a word.
    assert.match(r.logs, /^\{"level":"info",.*"msg":"starting manager"\}$/m, r.logs);
  });

  it("the manager's zap flags set its logger: --zap-devel prints console lines, --zap-encoder and --zap-log-level override it, a bad value exits 2", {
    timeout: 2 * MINUTES,
  }, async () => {
    const devel = await runManager(['build/src/main.js'], project, kubeconfig, { flags: ['--zap-devel'] });
    assert.deepEqual(devel.exit, { code: 0, signal: null }, devel.logs);
    assert.match(devel.logs, /^\d{4}-\d\d-\d\dT[\d:.]+Z\tINFO\tsetup\tstarting manager$/m, devel.logs);
    const json = await runManager(['build/src/main.js'], project, kubeconfig, {
      flags: ['--zap-devel=true', '--zap-encoder=json', '--zap-log-level=error'],
    });
    assert.deepEqual(json.exit, { code: 0, signal: null }, json.logs);
    assert.doesNotMatch(json.logs, /starting manager/, 'info is below --zap-log-level=error');
    const bad = sh(process.execPath, ['build/src/main.js', '--zap-encoder=yaml'], project);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /invalid --zap-encoder "yaml": expected json or console/);
  });

  it('the manager prints its flags with --help and rejects an unknown flag with exit 2', () => {
    const help = ok(sh(process.execPath, ['build/src/main.js', '--help'], project), 'manager --help');
    for (const flag of [
      '--metrics-bind-address',
      '--health-probe-bind-address',
      '--leader-elect',
      '--metrics-secure',
      '--webhook-cert-path',
      '--webhook-cert-name',
      '--webhook-cert-key',
      '--metrics-cert-path',
      '--metrics-cert-name',
      '--metrics-cert-key',
      '--enable-http2',
      '--zap-log-level',
      '--zap-devel',
      '--zap-encoder',
    ]) {
      assert.ok(help.includes(flag), flag);
    }
    const bad = sh(process.execPath, ['build/src/main.js', '--no-such-flag'], project);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /Unknown option '--no-such-flag'/);
  });

  it('the production bundle runs alone (what the container image holds), without node_modules or TypeScript', {
    timeout: 3 * MINUTES,
  }, async () => {
    ok(sh('npm', ['run', 'bundle'], project), 'npm run bundle');
    const alone = join(work, 'image-root');
    mkdirSync(alone);
    copyFileSync(join(project, 'build/bundle/manager.mjs'), join(alone, 'manager.mjs'));
    const bundle = readFileSync(join(alone, 'manager.mjs'), 'utf8');
    assert.doesNotMatch(bundle, /ts-morph|handlebars|commander/i);
    const r = await runManager(['manager.mjs'], alone, kubeconfig);
    assert.deepEqual(r.healthz, { status: 200, body: 'ok' }, r.logs);
    assert.deepEqual(r.exit, { code: 0, signal: null }, r.logs);
  });

  it("the Dockerfile's build stage works from only what .dockerignore lets through, and yields the file the final stage copies", {
    timeout: 5 * MINUTES,
  }, async () => {
    // No container engine here: replay the build stage's COPY and RUN lines in a bare folder.
    const context = join(work, 'docker-context');
    mkdirSync(context);
    const allowed = readFileSync(join(project, '.dockerignore'), 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('!'))
      .map((l) => l.slice(1));
    assert.deepEqual(allowed.sort(), ['.kubeforge', 'package-lock.json', 'package.json', 'src', 'tsconfig.json']);
    for (const entry of allowed) cpSync(join(project, entry), join(context, entry), { recursive: true });
    const dockerfile = readFileSync(join(project, 'Dockerfile'), 'utf8');
    const stages = dockerfile.split(/^(?=FROM )/m).filter((st) => st.startsWith('FROM '));
    assert.equal(stages.length, 2, 'two stages');
    const [builder, final] = stages;
    // Both images are build arguments defaulting to a supported Node.js LTS (24), never 20 (end of life).
    const arg = (name: string) => new RegExp(`^ARG ${name}=(\\S+)$`, 'm').exec(dockerfile)?.[1];
    assert.equal(arg('BUILDER_IMAGE'), 'node:24-bookworm-slim');
    assert.equal(arg('BASE_IMAGE'), 'gcr.io/distroless/nodejs24-debian12:nonroot');
    assert.match(builder, /^FROM \$\{BUILDER_IMAGE\} AS builder$/m);
    const runs = builder
      .split('\n')
      .filter((l) => l.startsWith('RUN '))
      .map((l) => l.slice(4));
    assert.equal(runs.length, 2);
    for (const cmd of runs) ok(sh('sh', ['-c', cmd], context), `RUN ${cmd}`);
    assert.match(final, /^FROM \$\{BASE_IMAGE\}$/m);
    // docker-buildx's rewrite pins only the builder stage to the build platform.
    const cross = execFileSync(
      'sed',
      ['-e', `1,/^FROM/ s/^FROM /FROM --platform=\${BUILDPLATFORM} /`, join(project, 'Dockerfile')],
      { encoding: 'utf8' },
    );
    assert.deepEqual(
      cross.split('\n').filter((l) => l.startsWith('FROM ')),
      [`FROM --platform=\${BUILDPLATFORM} \${BUILDER_IMAGE} AS builder`, `FROM \${BASE_IMAGE}`],
    );
    const makefile = readFileSync(join(project, 'Makefile'), 'utf8');
    assert.ok(
      makefile.includes(
        `sed -e '1,/^FROM/ s/^FROM /FROM --platform=$\${BUILDPLATFORM} /' Dockerfile > Dockerfile.cross`,
      ),
      'Makefile uses the same rewrite',
    );
    assert.match(final, /^USER 65532:65532$/m);
    const copied = must(/^COPY --from=builder \/workspace\/(\S+) /m.exec(final), 'the COPY --from=builder line')[1];
    const bundle = join(context, copied);
    const alone = join(work, 'image-root-2');
    mkdirSync(alone);
    copyFileSync(bundle, join(alone, 'manager.mjs'));
    const r = await runManager(['manager.mjs'], alone, kubeconfig);
    assert.deepEqual(r.healthz, { status: 200, body: 'ok' }, r.logs);
  });

  it('the installed kubeforge packs itself: init from node_modules/.bin packs the same files as npm pack', () => {
    const second = join(work, 'second');
    mkdirSync(second);
    ok(
      sh(join(project, 'node_modules/.bin/kubeforge'), ['init', '--domain', 'example.com', '--skip-install'], second),
      'installed kubeforge init',
    );
    const list = (tgz: string) => execFileSync('tar', ['tzf', tgz], { encoding: 'utf8' }).trim().split('\n').sort();
    const packed = readdirSync(join(second, '.kubeforge'));
    assert.equal(packed.length, 1);
    assert.deepEqual(list(join(second, '.kubeforge', packed[0])), list(tarball));
  });
});
