/**
 * A sharded project (`init --sharded`, then `create api`) deploys and runs: `kubectl kustomize
 * config/default` builds a Deployment of 3 replicas with `--shard-ring=<project>` and without
 * `--leader-elect`, and a real API server accepts it (server-side dry run); the Helm chart takes
 * the replicas and args from config/default, its values.yaml follows `edit --sharded`, and the real
 * helm (built from Go modules once per machine, as test/cli/helm.test.ts's) renders them; the generated
 * src/main.ts refuses `--shard-ring` with `--leader-elect` (and a bad `--shard-field`) as usage
 * errors, and two replicas of it against kube-apiserver join one ring (a member Lease each, no
 * leader-election Lease), split the ranges and reconcile every object between them.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse, parseAllDocuments } from 'yaml';
import { run } from '../../src/cli/index.js';
import { eventually, TestEnvironment } from '../../src/testing/index.js';
import { packageRoot } from '../../src/util/package-root.js';
import { helm } from '../oracle/tools.js';
import { must } from '../helpers/must.js';

const root = mkdtempSync(join(tmpdir(), 'kf-cli-sharded-'));
const dir = join(root, 'fleet');
const env = new TestEnvironment();
let kubeconfig = '';
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

function kubectl(...args: string[]): string {
  const r = spawnSync('kubectl', args, { cwd: dir, encoding: 'utf8' });
  assert.equal(r.status, 0, `kubectl ${args.join(' ')}:\n${r.stdout}${r.stderr}`);
  return r.stdout;
}

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  spec?: { replicas?: number; template?: { spec: { containers: { name: string; args?: string[] }[] } } };
}

before(async () => {
  mkdirSync(dir);
  await kubeforge(dir, 'init', '--domain', 'example.com', '--sharded', '--skip-install', '--kubeforge-source', 'link');
  await kubeforge(dir, 'create', 'api', '--group', 'ship', '--version', 'v1', '--kind', 'Frigate');
  kubeconfig = join(root, 'kubeconfig');
  writeFileSync(kubeconfig, (await env.start()).exportConfig());
});

describe('a sharded project deploys and runs', () => {
  it('config/default: a Deployment of 3 replicas with --shard-ring=fleet, no --leader-elect, the Lease Role; the API server accepts it', () => {
    const objects = parseAllDocuments(kubectl('kustomize', 'config/default')).map((d) => d.toJS() as K8sObject);
    const deployment = must(
      objects.find((o) => o.kind === 'Deployment'),
      "objects.find((o) => o.kind === 'Deployment')",
    );
    assert.equal(deployment.spec?.replicas, 3);
    const args = must(
      must(
        must(deployment.spec.template, 'deployment.spec.template').spec.containers.find((c) => c.name === 'manager'),
        "deployment.spec!.template!.spec.containers.find((c) => c.name === '...",
      ).args,
      "deployment.spec!.template!.spec.containers.find((c) => c.name === '...",
    );
    assert.ok(args.includes('--shard-ring=fleet'), args.join(' '));
    assert.ok(!args.some((a) => a.startsWith('--leader-elect')), args.join(' '));
    const leaseRole = objects.find((o) => o.kind === 'Role' && o.metadata.name === 'fleet-leader-election-role') as
      | (K8sObject & { rules: { apiGroups: string[]; resources: string[]; verbs: string[] }[] })
      | undefined;
    const leases = leaseRole?.rules.find((r) => r.resources.includes('leases'));
    for (const verb of ['get', 'list', 'create', 'update', 'delete']) assert.ok(leases?.verbs.includes(verb), verb);
    const file = join(root, 'default.yaml');
    writeFileSync(file, kubectl('kustomize', 'config/default'));
    // A dry run creates nothing: the namespace the objects go in must exist.
    kubectl('--kubeconfig', kubeconfig, 'create', 'namespace', 'fleet-system');
    kubectl('--kubeconfig', kubeconfig, 'apply', '--server-side', '--dry-run=server', '-f', file);
  });

  it('the Helm chart takes the replicas and args config/default deploys, and values.yaml follows edit --sharded either way', async () => {
    const values = () =>
      (
        parse(readFileSync(join(dir, 'dist/chart/values.yaml'), 'utf8')) as {
          manager: { replicas: number; args: string[] };
        }
      ).manager;
    /** What config/default deploys now: the Deployment's replicas and the manager's args. */
    const deployed = () => {
      const deployment = must(
        parseAllDocuments(kubectl('kustomize', 'config/default'))
          .map((d) => d.toJS() as K8sObject)
          .find((o) => o.kind === 'Deployment'),
        "parseAllDocuments(kubectl('kustomize', 'config/default')) .map((d) ...",
      );
      return {
        replicas: must(deployment.spec, 'deployment.spec').replicas,
        args: must(
          must(must(deployment.spec, 'deployment.spec').template, 'deployment.spec.template').spec.containers.find(
            (c) => c.name === 'manager',
          ),
          "deployment.spec!.template!.spec.containers.find((c) => c.name === '...",
        ).args,
      };
    };
    const chart = () => ({ replicas: values().replicas, args: values().args });
    await kubeforge(dir, 'edit', '--plugins', 'helm/v2-alpha');
    const deploymentTemplate = readFileSync(join(dir, 'dist/chart/templates/manager/manager.yaml'), 'utf8');
    assert.match(deploymentTemplate, /replicas: \{\{ \.Values\.manager\.replicas \}\}/);
    assert.match(deploymentTemplate, /with \.Values\.manager\.args/);
    assert.equal(values().replicas, 3);
    assert.ok(values().args.includes('--shard-ring=fleet'), values().args.join(' '));
    assert.ok(!values().args.includes('--leader-elect'));
    assert.deepEqual(chart(), deployed());

    const off = await kubeforge(dir, 'edit', '--sharded=false');
    assert.match(off, /dist\/chart\/values\.yaml follows/);
    assert.equal(values().replicas, 1);
    assert.ok(values().args.includes('--leader-elect'));
    assert.ok(!values().args.some((a) => a.startsWith('--shard-')));
    assert.deepEqual(chart(), deployed());

    // A chart made in the same run as the switch (from config/ on disk, before it) follows too.
    rmSync(join(dir, 'dist'), { recursive: true, force: true });
    await kubeforge(dir, 'edit', '--sharded=4', '--plugins', 'helm/v2-alpha');
    assert.equal(values().replicas, 4);
    assert.deepEqual(chart(), deployed());
    await kubeforge(dir, 'edit', '--sharded');
    assert.equal(values().replicas, 4, 'a bare --sharded keeps what PROJECT records');
    assert.deepEqual(chart(), deployed());
    // The real helm renders the Deployment config/default deploys: 4 replicas, --shard-ring.
    const helmBin = await helm();
    const rendered = spawnSync(helmBin, ['template', 'fleet', 'dist/chart', '--namespace', 'fleet-system'], {
      cwd: dir,
      encoding: 'utf8',
    });
    assert.equal(rendered.status, 0, rendered.stderr);
    const deployment = must(
      parseAllDocuments(rendered.stdout)
        .map((d) => d.toJS() as K8sObject | null)
        .find((o) => o?.kind === 'Deployment'),
      'parseAllDocuments(rendered.stdout) .map((d) => d.toJS() as K8sObjec...',
    );
    assert.deepEqual(
      {
        replicas: must(deployment.spec, 'deployment.spec').replicas,
        args: must(
          must(must(deployment.spec, 'deployment.spec').template, 'deployment.spec.template').spec.containers.find(
            (c) => c.name === 'manager',
          ),
          "deployment.spec!.template!.spec.containers.find((c) => c.name === '...",
        ).args,
      },
      deployed(),
    );
  });

  it('src/main.ts: --shard-ring with --leader-elect, a bad --shard-field or --shard-field alone are usage errors (exit 2)', () => {
    build();
    for (const [args, said] of [
      [['--shard-ring=fleet', '--leader-elect'], /--shard-ring and --leader-elect are alternatives/],
      [['--shard-ring=fleet', '--leader-elect=true'], /--shard-ring and --leader-elect are alternatives/],
      [['--shard-ring=fleet', '--shard-field=name'], /invalid --shard-field "name": expected uid or namespace/],
      [['--shard-field=namespace'], /--shard-field needs --shard-ring/],
      [['--shard-ring=Fleet_1'], /invalid --shard-ring "Fleet_1": expected a DNS-1123 label/],
    ] as const) {
      const r = spawnSync(process.execPath, ['build/src/main.js', '--kubeconfig', kubeconfig, ...args], {
        cwd: dir,
        encoding: 'utf8',
        timeout: 60_000,
      });
      assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, said);
      assert.match(r.stderr, /--shard-ring <name> +shard the manager instead/, 'the usage text follows');
    }
  });

  it('two replicas with --shard-ring join one ring, hold a member Lease each (no leader-election Lease) and reconcile every Frigate between them', {
    timeout: 180_000,
  }, async () => {
    build();
    kubectl('--kubeconfig', kubeconfig, 'apply', '-f', 'config/crd/bases');
    const replicas: { child: ChildProcess; logs: string }[] = [];
    const start = () => {
      const child = spawn(
        process.execPath,
        [
          'build/src/main.js',
          '--kubeconfig',
          kubeconfig,
          '--health-probe-bind-address=127.0.0.1:0',
          '--shard-ring=fleet',
          '--shard-namespace=default',
        ],
        { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      const r = { child, logs: '' };
      child.stdout.on('data', (d) => (r.logs += d));
      child.stderr.on('data', (d) => (r.logs += d));
      replicas.push(r);
    };
    const leases = () =>
      JSON.parse(
        kubectl(
          '--kubeconfig',
          kubeconfig,
          'get',
          'leases',
          '-n',
          'default',
          '-l',
          'sharding.kubeforge.io/ring=fleet',
          '-o',
          'json',
        ),
      ) as { items: { metadata: { name: string; annotations?: Record<string, string> } }[] };
    try {
      start();
      start();
      for (const r of replicas)
        await eventually(() => assert.match(r.logs, /sharding: joined the ring/), { timeout: 60_000, interval: 200 });
      // Both hold ranges once the ring has settled: the objects are split between them.
      await eventually(
        () => {
          const items = leases().items;
          assert.equal(items.length, 2, JSON.stringify(items.map((l) => l.metadata.name)));
          for (const l of items) assert.ok(l.metadata.annotations?.['sharding.kubeforge.io/held'], l.metadata.name);
        },
        { timeout: 60_000, interval: 500 },
      );
      const all = kubectl(
        '--kubeconfig',
        kubeconfig,
        'get',
        'leases',
        '-A',
        '-o',
        'jsonpath={.items[*].metadata.name}',
      );
      assert.doesNotMatch(all, /\.example\.com/, 'no leader-election Lease');
      const names = Array.from({ length: 8 }, (_, i) => `f${i}`);
      const file = join(root, 'frigates.yaml');
      const frigate = (name: string) => ({
        apiVersion: 'ship.example.com/v1',
        kind: 'Frigate',
        metadata: { name, namespace: 'default' },
        spec: {},
      });
      writeFileSync(file, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: names.map(frigate) }));
      kubectl('--kubeconfig', kubeconfig, 'create', '-f', file);
      await eventually(
        () => {
          const types = kubectl(
            '--kubeconfig',
            kubeconfig,
            'get',
            'frigates.ship.example.com',
            '-n',
            'default',
            '-o',
            'jsonpath={range .items[*]}{.metadata.name}={.status.conditions[0].type}{"\\n"}{end}',
          );
          assert.deepEqual(
            types.trim().split('\n').sort(),
            names.map((n) => `${n}=Available`),
          );
        },
        { timeout: 90_000, interval: 500 },
      );
      for (const r of replicas) assert.equal(r.child.exitCode, null, `a replica exited:\n${r.logs}`);
    } finally {
      for (const { child } of replicas) {
        if (child.exitCode !== null || child.signalCode !== null) continue;
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
    }
    // A graceful stop leaves the ring: the Leases are deleted.
    assert.equal(leases().items.length, 0);
  });
});

let built = false;
/** Compiles the project once, against this repository's packages (kubeforge itself: its dist/). */
function build(): void {
  if (built) return;
  const repo = packageRoot();
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  for (const name of readdirSync(join(repo, 'node_modules')))
    if (name !== 'kubeforge') symlinkSync(join(repo, 'node_modules', name), join(dir, 'node_modules', name));
  symlinkSync(repo, join(dir, 'node_modules', 'kubeforge'));
  const tsc = spawnSync(join(repo, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.json'], { cwd: dir, encoding: 'utf8' });
  assert.equal(tsc.status, 0, `tsc:\n${tsc.stdout}${tsc.stderr}`);
  built = true;
}
