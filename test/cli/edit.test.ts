/**
 * `kubeforge edit` and the grafana plugin through the CLI: each flag changes what it says and
 * PROJECT records it, a second run changes nothing, bad input exits 1 with the disk as it was,
 * and every metric the dashboards chart is one kubeforge/runtime really exports.
 */
import assert from 'node:assert/strict';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { parse } from 'yaml';
import { run } from '../../src/cli/index.js';
import { snapshot } from '../helpers/tree.js';
import { packageRoot } from '../../src/util/package-root.js';

const root = mkdtempSync(join(tmpdir(), 'kf-cli-edit-'));
after(() => rmSync(root, { recursive: true, force: true }));

async function kubeforge(cwd: string, ...args: string[]) {
  let out = '';
  let err = '';
  const code = await run(['node', 'kubeforge', ...args], {
    cwd,
    color: false,
    out: (t) => {
      out += t;
    },
    err: (t) => {
      err += t;
    },
  });
  return { code, out, err };
}

async function project(name: string, ...initArgs: string[]): Promise<string> {
  const dir = join(root, name);
  mkdirSync(dir);
  const r = await kubeforge(
    dir,
    'init',
    '--domain',
    'example.com',
    '--skip-install',
    '--kubeforge-source',
    'link',
    ...initArgs,
  );
  assert.equal(r.code, 0, r.err);
  return dir;
}

const projectFile = (dir: string) => parse(readFileSync(join(dir, 'PROJECT'), 'utf8')) as Record<string, unknown>;

/** The metric names kubeforge/runtime registers: its own (string literals in src/runtime naming metrics) and prom-client's default ones. */
async function exportedMetrics(): Promise<Set<string>> {
  const names = new Set<string>();
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (p.endsWith('.ts'))
        for (const m of readFileSync(p, 'utf8').matchAll(
          /'([a-z][a-z0-9_:]*_(?:total|seconds|depth|workers|reconciles|status|flight))'/g,
        ))
          names.add(m[1]);
    }
  };
  walk(join(packageRoot(), 'src/runtime'));
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  for (const m of await registry.getMetricsAsJSON()) names.add(m.name);
  return names;
}

/** Metric names used in a dashboard's queries (histogram series map to their metric). */
function chartedMetrics(dashboard: { panels: { targets: { expr: string }[] }[] }): string[] {
  const out = new Set<string>();
  for (const p of dashboard.panels) {
    for (const t of p.targets) {
      for (const m of t.expr.matchAll(/\b([a-z_:][a-z0-9_:]*)\{/g)) out.add(m[1].replace(/_bucket$/, ''));
    }
  }
  return [...out].sort();
}

describe('kubeforge edit', () => {
  it('--plugins grafana writes dashboards over metrics the runtime exports, records the plugin, and a second run changes nothing', async () => {
    const dir = await project('grafana');
    const r = await kubeforge(dir, 'edit', '--plugins', 'grafana');
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^CREATE grafana\/controller-runtime-metrics\.json/m);
    assert.match(r.out, /^CREATE grafana\/controller-resources-metrics\.json/m);
    assert.match(r.out, /^CREATE grafana\/custom-metrics\/config\.yaml/m);
    assert.match(r.out, /^UPDATE PROJECT/m);
    assert.deepEqual(projectFile(dir).plugins, { 'grafana.kubebuilder.io/v1-alpha': {} });
    const exported = await exportedMetrics();
    for (const file of ['controller-runtime-metrics.json', 'controller-resources-metrics.json']) {
      const dashboard = JSON.parse(readFileSync(join(dir, 'grafana', file), 'utf8'));
      const charted = chartedMetrics(dashboard);
      assert.ok(charted.length >= 4, `${file} charts metrics`);
      assert.deepEqual(
        charted.filter((m) => !exported.has(m)),
        [],
        `${file}: every charted metric is exported`,
      );
    }
    const before = snapshot(dir);
    const again = await kubeforge(dir, 'edit', '--plugins', 'grafana.kubebuilder.io/v1-alpha');
    assert.equal(again.code, 0, again.err);
    assert.deepEqual(snapshot(dir), before, 'idempotent');
  });

  it('grafana: the custom-metrics config yields its dashboard; an invalid entry is a located error and nothing is written', async () => {
    const dir = await project('custom', '--plugins', 'grafana');
    assert.ok(existsSync(join(dir, 'grafana/controller-runtime-metrics.json')), 'init --plugins grafana');
    assert.deepEqual(projectFile(dir).plugins, { 'grafana.kubebuilder.io/v1-alpha': {} });
    const config = join(dir, 'grafana/custom-metrics/config.yaml');
    writeFileSync(
      config,
      'customMetrics:\n  - metric: guestbook_visits_total\n    type: counter\n  - metric: guestbook_render_seconds\n    type: histogram\n',
    );
    const r = await kubeforge(dir, 'edit', '--plugins', 'grafana');
    assert.equal(r.code, 0, r.err);
    const custom = JSON.parse(readFileSync(join(dir, 'grafana/custom-metrics/custom-metrics-dashboard.json'), 'utf8'));
    assert.deepEqual(chartedMetrics(custom), ['guestbook_render_seconds', 'guestbook_visits_total']);
    assert.equal(readFileSync(config, 'utf8').startsWith('customMetrics:'), true, 'the config is the user’s: kept');

    writeFileSync(
      config,
      'customMetrics:\n  - metric: ok_total\n    type: counter\n  - metric: bad\n    type: summary\n',
    );
    const before = snapshot(dir);
    const bad = await kubeforge(dir, 'edit', '--plugins', 'grafana');
    assert.equal(bad.code, 1);
    assert.match(bad.err, /KF1071/);
    assert.match(bad.err, /config\.yaml:4/);
    assert.match(bad.err, /customMetrics\[1\]\.type must be counter, gauge or histogram/);
    assert.deepEqual(snapshot(dir), before);
  });

  it('--multigroup and --multigroup=false flip the layout PROJECT records; new APIs follow it', async () => {
    const dir = await project('layout');
    assert.equal((await kubeforge(dir, 'edit', '--multigroup')).code, 0);
    assert.equal(projectFile(dir).multigroup, true);
    const api = await kubeforge(
      dir,
      'create',
      'api',
      '--group',
      'ship',
      '--version',
      'v1',
      '--kind',
      'Frigate',
      '--make=false',
    );
    assert.equal(api.code, 0, api.err);
    assert.ok(existsSync(join(dir, 'src/api/ship/v1/frigate_types.ts')));
    const back = await kubeforge(dir, 'edit', '--multigroup=false');
    assert.equal(back.code, 0, back.err);
    assert.equal(projectFile(dir).multigroup, undefined);
    assert.match(back.err, /existing APIs stay where they are/);
  });

  it('--license and --owner rewrite the header of what is scaffolded next', async () => {
    const dir = await project('license', '--license', 'none');
    assert.ok(!existsSync(join(dir, 'hack/boilerplate.ts.txt')));
    assert.equal((await kubeforge(dir, 'edit', '--license', 'apache2', '--owner', 'Example Corp')).code, 0);
    assert.match(readFileSync(join(dir, 'hack/boilerplate.ts.txt'), 'utf8'), /^Copyright Example Corp\.$/m);
    const api = await kubeforge(
      dir,
      'create',
      'api',
      '--group',
      'ship',
      '--version',
      'v1',
      '--kind',
      'Frigate',
      '--make=false',
    );
    assert.equal(api.code, 0, api.err);
    assert.match(readFileSync(join(dir, 'src/api/v1/frigate_types.ts'), 'utf8'), /Copyright Example Corp\./);
    assert.equal((await kubeforge(dir, 'edit', '--owner', 'Other Corp')).code, 0);
    assert.match(readFileSync(join(dir, 'hack/boilerplate.ts.txt'), 'utf8'), /^Copyright Other Corp\.$/m);
    assert.equal((await kubeforge(dir, 'edit', '--license', 'none')).code, 0);
    assert.ok(!existsSync(join(dir, 'hack/boilerplate.ts.txt')));
  });

  it('nothing to change, an unknown plugin or no PROJECT: exit 1, located, nothing written', async () => {
    const dir = await project('bad');
    const before = snapshot(dir);
    const none = await kubeforge(dir, 'edit');
    assert.equal(none.code, 1);
    assert.match(none.err, /KF1072/);
    const unknown = await kubeforge(dir, 'edit', '--plugins', 'kustomize/v2');
    assert.equal(unknown.code, 1);
    assert.match(unknown.err, /KF1070 +unknown plugin "kustomize\/v2"/);
    assert.match(unknown.err, /grafana/);
    assert.deepEqual(snapshot(dir), before);
    const empty = join(root, 'empty');
    mkdirSync(empty);
    const noProject = await kubeforge(empty, 'edit', '--multigroup');
    assert.equal(noProject.code, 1);
    assert.match(noProject.err, /KF1040/);
    assert.deepEqual(readdirSync(empty), []);
  });

  it('--plugins helm/v2-alpha with an --output-dir outside the project (or the project itself): KF1304, a path error with its code, nothing written', async () => {
    const dir = await project('helm-out');
    const before = snapshot(dir);
    for (const [out, said] of [
      ['../elsewhere', /outside the project/],
      [join(root, 'abs-elsewhere'), /outside the project/],
      ['dist/../..', /outside the project/],
      ['.', /the project folder itself/],
    ] as const) {
      const r = await kubeforge(dir, 'edit', '--plugins', 'helm/v2-alpha', '--output-dir', out);
      assert.equal(r.code, 1, out);
      assert.match(r.err, /KF1304 +--output-dir /, out);
      assert.match(r.err, said, out);
      assert.doesNotMatch(r.err, /^error: path/m, `${out}: a located, coded diagnostic, not a bare error`);
      assert.deepEqual(snapshot(dir), before, out);
    }
    assert.deepEqual(
      readdirSync(root).filter((n) => n.startsWith('abs-elsewhere') || n === 'elsewhere'),
      [],
    );
  });

  it('keeps what PROJECT holds that kubeforge does not use (plugin configs of other tools)', async () => {
    const dir = await project('keep');
    const text = readFileSync(join(dir, 'PROJECT'), 'utf8').replace(
      'projectName:',
      'plugins:\n  helm.kubebuilder.io/v2-alpha:\n    output: dist\nprojectName:',
    );
    writeFileSync(join(dir, 'PROJECT'), text);
    assert.equal((await kubeforge(dir, 'edit', '--plugins', 'grafana')).code, 0);
    assert.deepEqual(projectFile(dir).plugins, {
      'grafana.kubebuilder.io/v1-alpha': {},
      'helm.kubebuilder.io/v2-alpha': { output: 'dist' },
    });
  });

  it('--namespaced=false and --namespaced switch the scope both ways: the files of a project made in that scope, byte for byte; again changes nothing', async () => {
    const scoped = await project('scoped', '--project-name', 'fleet', '--namespaced');
    const cluster = await project('cluster', '--project-name', 'fleet');
    for (const dir of [scoped, cluster]) {
      const api = await kubeforge(dir, 'create', 'api', '--group', 'ship', '--version', 'v1', '--kind', 'Frigate');
      assert.equal(api.code, 0, api.err);
    }
    // What init --namespaced and create api made in a namespaced project.
    assert.match(
      read(scoped, 'config/rbac/role.yaml'),
      /^kind: Role\nmetadata:\n {2}name: manager-role\n {2}namespace: fleet-system\nrules:\n- apiGroups:\n {2}- events\.k8s\.io\n/m,
    );
    assert.match(read(scoped, 'config/rbac/role.yaml'), /^ {2}- ship\.example\.com\n {2}resources:\n {2}- frigates\n/m);
    assert.match(read(scoped, 'config/rbac/role_binding.yaml'), /^kind: RoleBinding$/m);
    assert.match(read(scoped, 'config/rbac/frigate_editor_role.yaml'), /^kind: Role$/m);
    assert.match(
      read(scoped, 'config/manager/manager.yaml'),
      /- name: WATCH_NAMESPACE\n {10}valueFrom:\n {12}fieldRef:\n {14}fieldPath: metadata\.namespace/,
    );
    assert.match(read(scoped, 'src/main.ts'), /cache: \{ defaultNamespaces: namespaces \}/);
    assert.equal(projectFile(scoped).namespaced, true);
    const namespacedFiles = files(scoped);

    const off = await kubeforge(scoped, 'edit', '--namespaced=false');
    assert.equal(off.code, 0, off.err);
    for (const f of [
      'src/main.ts',
      'config/manager/manager.yaml',
      'config/rbac/role_binding.yaml',
      'config/rbac/frigate_admin_role.yaml',
      'PROJECT',
    ])
      assert.match(off.out, new RegExp(`^UPDATE ${f} `, 'm'));
    // role.yaml comes from the manifests step (in the same commit), printed once, after the edit's plan.
    assert.equal(off.out.match(/config\/rbac\/role\.yaml/g)?.length, 1);
    assert.match(off.err, /manager-role is a ClusterRole again/);
    assert.deepEqual(files(scoped), files(cluster), 'the files of a cluster-scoped project');
    const again = await kubeforge(scoped, 'edit', '--namespaced=false');
    assert.equal(again.code, 0, again.err);
    assert.deepEqual(files(scoped), files(cluster), 'idempotent');
    // The manifests step recorded its cache with PROJECT as committed: the next run is a hit.
    assert.match((await kubeforge(scoped, 'manifests')).out, /manifests are up to date/);

    const on = await kubeforge(scoped, 'edit', '--namespaced');
    assert.equal(on.code, 0, on.err);
    assert.match(on.err, /no marker needs a change/);
    assert.deepEqual(files(scoped), namespacedFiles, 'back to the namespaced files');
  });

  it('--namespaced keeps your own changes where they do not touch the switch; a collision (your own WATCH_NAMESPACE) is KF1080 with nothing written, --force replaces the file', async () => {
    const dir = await project('edited', '--project-name', 'fleet');
    const main = join(dir, 'src/main.ts');
    writeFileSync(
      main,
      readFileSync(main, 'utf8').replace(
        "setupLog.info('starting manager');",
        "setupLog.info('starting manager');\n  setupLog.info('my own line');",
      ),
    );
    const manager = join(dir, 'config/manager/manager.yaml');
    // An env list of your own merges (test/hostile/edit-scope.test.ts); your own WATCH_NAMESPACE with another value cannot.
    writeFileSync(
      manager,
      readFileSync(manager, 'utf8').replace(
        '        name: manager\n',
        '        name: manager\n        env:\n        - name: WATCH_NAMESPACE\n          value: team-a\n',
      ),
    );
    const before = snapshot(dir);
    const dry = await kubeforge(dir, 'edit', '--namespaced', '--dry-run');
    assert.equal(dry.code, 1);
    const refused = await kubeforge(dir, 'edit', '--namespaced');
    assert.equal(refused.code, 1);
    assert.match(
      refused.err,
      /config\/manager\/manager\.yaml:47 +KF1080 +config\/manager\/manager\.yaml was changed where switching to a namespace-scoped manager changes it/,
    );
    assert.match(refused.err, /run again with --force/);
    assert.doesNotMatch(refused.err, /src\/main\.ts +KF1080/, 'main.ts merges');
    assert.deepEqual(snapshot(dir), before, 'nothing written');

    const forced = await kubeforge(dir, 'edit', '--namespaced', '--force');
    assert.equal(forced.code, 0, forced.err);
    assert.match(forced.err, /--force replaced 1 existing file that differed: config\/manager\/manager\.yaml/);
    assert.match(forced.err, /switched src\/main\.ts to a namespace-scoped manager, keeping your own changes in it/);
    const text = read(dir, 'src/main.ts');
    assert.match(text, /my own line/);
    assert.match(text, /function watchNamespaces\(\)/);
    assert.doesNotMatch(read(dir, 'config/manager/manager.yaml'), /team-a/);
    assert.match(read(dir, 'config/manager/manager.yaml'), /WATCH_NAMESPACE/);
    assert.equal(projectFile(dir).namespaced, true);
  });

  it('kubeforge manifests follows PROJECT: namespaced: true written by hand makes manager-role a Role (the no-change cache sees PROJECT)', async () => {
    const dir = await project('by-hand', '--project-name', 'fleet');
    assert.match((await kubeforge(dir, 'manifests')).out, /manifests are up to date/);
    writeFileSync(join(dir, 'PROJECT'), read(dir, 'PROJECT').replace('projectName:', 'namespaced: true\nprojectName:'));
    const r = await kubeforge(dir, 'manifests');
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^UPDATE config\/rbac\/role\.yaml/m);
    assert.match(
      read(dir, 'config/rbac/role.yaml'),
      /^kind: Role\nmetadata:\n {2}name: manager-role\n {2}namespace: fleet-system$/m,
    );
  });
});

const read = (dir: string, path: string) => readFileSync(join(dir, path), 'utf8');

/** The project's files, without kubeforge's own state (.kubeforge: tarballs, the manifests cache). */
function files(dir: string): Record<string, string> {
  return Object.fromEntries(Object.entries(snapshot(dir)).filter(([p]) => !p.startsWith('.kubeforge')));
}
