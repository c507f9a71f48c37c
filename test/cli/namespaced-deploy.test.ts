/**
 * A namespace-scoped project (`init --namespaced`, then `create api`) deploys: `kubectl kustomize
 * config/default` builds the manager's Role and RoleBinding in its namespace (no cluster-wide
 * manager role), keeps the metrics authentication ClusterRole, gives the manager WATCH_NAMESPACE
 * from the Downward API, and a real API server accepts all of it (`kubectl apply --server-side
 * --dry-run=server`).
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { run } from '../../src/cli/index.js';
import { eventually, TestEnvironment } from '../../src/testing/index.js';
import { packageRoot } from '../../src/util/package-root.js';

const root = mkdtempSync(join(tmpdir(), 'kf-cli-namespaced-'));
const env = new TestEnvironment();
after(async () => {
  await env.stop();
  rmSync(root, { recursive: true, force: true });
});

async function kubeforge(cwd: string, ...args: string[]): Promise<string> {
  let err = '';
  const code = await run(['node', 'kubeforge', ...args], {
    cwd,
    color: false,
    out: () => {},
    err: (t) => {
      err += t;
    },
  });
  assert.equal(code, 0, `kubeforge ${args.join(' ')}:\n${err}`);
  return err;
}

function kubectl(cwd: string, ...args: string[]): string {
  const r = spawnSync('kubectl', args, { cwd, encoding: 'utf8' });
  assert.equal(r.status, 0, `kubectl ${args.join(' ')}:\n${r.stdout}${r.stderr}`);
  return r.stdout;
}

/** Starts the API server once for the file; returns the path of its kubeconfig. */
async function startEnv(): Promise<string> {
  const kubeconfig = join(root, 'kubeconfig');
  if (!started) {
    writeFileSync(kubeconfig, (await env.start()).exportConfig());
    started = true;
  }
  return kubeconfig;
}
let started = false;

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  [key: string]: unknown;
}

describe('a namespaced project deploys', () => {
  it('config/default builds Role + RoleBinding in the manager namespace and a real API server accepts it (server-side dry run)', {
    timeout: 180_000,
  }, async () => {
    const dir = join(root, 'fleet');
    mkdirSync(dir);
    await kubeforge(
      dir,
      'init',
      '--domain',
      'example.com',
      '--namespaced',
      '--skip-install',
      '--kubeforge-source',
      'link',
    );
    await kubeforge(dir, 'create', 'api', '--group', 'ship', '--version', 'v1', '--kind', 'Frigate');

    const yaml = kubectl(dir, 'kustomize', 'config/default');
    const objects = parseAllDocuments(yaml).map((d) => d.toJS() as K8sObject);
    const find = (kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name);
    const role = find('Role', 'fleet-manager-role') as K8sObject & {
      rules: { apiGroups: string[]; resources: string[] }[];
    };
    assert.ok(role, 'the manager Role');
    assert.equal(role.metadata.namespace, 'fleet-system');
    assert.ok(
      role.rules.some((r) => r.apiGroups.includes('ship.example.com') && r.resources.includes('frigates')),
      'with the rules of the @Rbac markers',
    );
    assert.equal(find('ClusterRole', 'fleet-manager-role'), undefined, 'no cluster-wide manager role');
    assert.equal(find('ClusterRoleBinding', 'fleet-manager-rolebinding'), undefined);
    const binding = find('RoleBinding', 'fleet-manager-rolebinding') as K8sObject & {
      roleRef: unknown;
      subjects: unknown;
    };
    assert.equal(binding.metadata.namespace, 'fleet-system');
    assert.deepEqual(binding.roleRef, {
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'Role',
      name: 'fleet-manager-role',
    });
    assert.deepEqual(binding.subjects, [
      { kind: 'ServiceAccount', name: 'fleet-controller-manager', namespace: 'fleet-system' },
    ]);
    // Leader election stays a Role in the namespace; metrics authentication needs cluster-wide reviews.
    assert.equal(find('Role', 'fleet-leader-election-role')?.metadata.namespace, 'fleet-system');
    assert.ok(
      find('ClusterRole', 'fleet-metrics-auth-role'),
      'metrics auth stays a ClusterRole (TokenReviews, SubjectAccessReviews)',
    );
    assert.ok(find('ClusterRoleBinding', 'fleet-metrics-auth-rolebinding'));
    assert.equal(
      find('Role', 'fleet-frigate-editor-role')?.metadata.namespace,
      'fleet-system',
      "the Kind's helper roles are Roles too",
    );
    const deployment = find('Deployment', 'fleet-controller-manager') as K8sObject & {
      spec: { template: { spec: { containers: { env?: unknown[] }[] } } };
    };
    assert.deepEqual(deployment.spec.template.spec.containers[0].env, [
      { name: 'WATCH_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
    ]);

    const kubeconfig = await startEnv();
    const manifest = join(root, 'install.yaml');
    writeFileSync(manifest, yaml);
    // A dry run creates nothing, so the objects in the namespace need the namespace for real.
    kubectl(dir, '--kubeconfig', kubeconfig, 'create', 'namespace', 'fleet-system');
    const out = kubectl(dir, '--kubeconfig', kubeconfig, 'apply', '--server-side', '--dry-run=server', '-f', manifest);
    for (const line of [
      'role.rbac.authorization.k8s.io/fleet-manager-role',
      'rolebinding.rbac.authorization.k8s.io/fleet-manager-rolebinding',
      'deployment.apps/fleet-controller-manager',
      'customresourcedefinition.apiextensions.k8s.io/frigates.ship.example.com',
    ]) {
      assert.match(out, new RegExp(`^${line.replace(/\./g, '\\.')} serverside-applied \\(server dry run\\)$`, 'm'));
    }
  });

  it('create webhook warns that admission webhooks stay cluster-wide', async () => {
    const dir = join(root, 'fleet');
    const err = await kubeforge(
      dir,
      'create',
      'webhook',
      '--group',
      'ship',
      '--version',
      'v1',
      '--kind',
      'Frigate',
      '--defaulting',
      '--make=false',
    );
    assert.match(
      err,
      /warning: this project's manager is namespace-scoped \(PROJECT: namespaced: true\), but admission webhooks are cluster-wide: .*namespaceSelector/,
    );
  });

  it('the generated manager (src/main.ts) refuses to start without WATCH_NAMESPACE and reconciles only that namespace', {
    timeout: 180_000,
  }, async () => {
    const dir = join(root, 'runner');
    mkdirSync(dir);
    await kubeforge(
      dir,
      'init',
      '--domain',
      'example.com',
      '--namespaced',
      '--skip-install',
      '--kubeforge-source',
      'link',
    );
    await kubeforge(dir, 'create', 'api', '--group', 'ship', '--version', 'v1', '--kind', 'Frigate');
    // node_modules: this repository's packages, kubeforge itself as the repository (its dist/).
    const repo = packageRoot();
    mkdirSync(join(dir, 'node_modules'));
    for (const name of readdirSync(join(repo, 'node_modules')))
      if (name !== 'kubeforge') symlinkSync(join(repo, 'node_modules', name), join(dir, 'node_modules', name));
    symlinkSync(repo, join(dir, 'node_modules', 'kubeforge'));
    const tsc = spawnSync(join(repo, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.json'], { cwd: dir, encoding: 'utf8' });
    assert.equal(tsc.status, 0, `tsc:\n${tsc.stdout}${tsc.stderr}`);

    const kubeconfig = await startEnv();
    const args = ['build/src/main.js', '--kubeconfig', kubeconfig, '--health-probe-bind-address=127.0.0.1:0'];
    const { WATCH_NAMESPACE: _, ...environment } = process.env;
    const refused = spawnSync(process.execPath, args, {
      cwd: dir,
      encoding: 'utf8',
      env: environment,
      timeout: 60_000,
    });
    assert.equal(refused.status, 1, refused.stderr);
    assert.match(refused.stderr, /WATCH_NAMESPACE must be set to the namespace\(s\) the manager watches/);

    kubectl(dir, '--kubeconfig', kubeconfig, 'apply', '-f', 'config/crd/bases');
    for (const ns of ['fleet-a', 'fleet-b']) kubectl(dir, '--kubeconfig', kubeconfig, 'create', 'namespace', ns);
    const frigate = (ns: string) =>
      JSON.stringify({
        apiVersion: 'ship.example.com/v1',
        kind: 'Frigate',
        metadata: { name: 'f', namespace: ns },
        spec: {},
      });
    const status = (ns: string) =>
      kubectl(
        dir,
        '--kubeconfig',
        kubeconfig,
        'get',
        'frigates.ship.example.com',
        'f',
        '-n',
        ns,
        '-o',
        'jsonpath={.status.conditions[0].type}',
      );
    const child = spawn(process.execPath, args, {
      cwd: dir,
      env: { ...environment, WATCH_NAMESPACE: 'fleet-a' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let logs = '';
    child.stdout.on('data', (d) => (logs += d));
    child.stderr.on('data', (d) => (logs += d));
    try {
      await eventually(() => assert.match(logs, /"namespaces":\["fleet-a"\].*"msg":"watching namespaces"/), {
        timeout: 60_000,
        interval: 200,
      });
      // fleet-b's first: a manager watching every namespace would reconcile it first (one watch, one worker).
      for (const ns of ['fleet-b', 'fleet-a']) {
        const file = join(root, `frigate-${ns}.json`);
        writeFileSync(file, frigate(ns));
        kubectl(dir, '--kubeconfig', kubeconfig, 'create', '-f', file);
      }
      await eventually(() => assert.equal(status('fleet-a'), 'Available'), { timeout: 60_000, interval: 250 });
      assert.equal(status('fleet-b'), '', `fleet-b's Frigate was never reconciled:\n${logs}`);
    } finally {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
    }
  });
});
