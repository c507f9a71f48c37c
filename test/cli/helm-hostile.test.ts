/**
 * The helm/v2-alpha chart under hostile use, judged by the real helm (built from Go modules,
 * test/oracle/tools.ts) and kustomize (kubectl): CRD descriptions that are Go or Helm template
 * syntax (a quoted `{{ .Spec.Branch }}`, an unbalanced `{{`, a `{{ include }}`) are rendered as
 * written, and `manifests --check` agrees with `edit`; after `edit --namespaced` the chart renders
 * what config/default deploys (a Role, a RoleBinding and WATCH_NAMESPACE), `manifests --check`
 * fails on a chart still of the other scope, and `--namespaced=false` brings the first chart back.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { run } from '../../src/cli/index.js';
import { asChartRendersIt, docs, key, type Obj } from '../helpers/chart.js';
import { snapshot } from '../helpers/tree.js';
import { helm } from '../oracle/tools.js';
import { must } from '../helpers/must.js';

const root = mkdtempSync(join(tmpdir(), 'kf-cli-helm-hostile-'));
after(() => rmSync(root, { recursive: true, force: true }));
let helmBin = '';

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

async function ok(cwd: string, ...args: string[]): Promise<string> {
  const r = await kubeforge(cwd, ...args);
  assert.equal(r.code, 0, `kubeforge ${args.join(' ')}:\n${r.out}${r.err}`);
  return r.out;
}

function tool(bin: string, args: string[], cwd: string): string {
  const r = spawnSync(bin, args, { cwd, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  assert.equal(r.status, 0, `${bin} ${args.join(' ')}:\n${r.stdout}${r.stderr}`);
  return r.stdout;
}

/** init (kubeforge linked) and create api ship/v1 Frigate, without running manifests yet. */
async function project(name: string, ...initArgs: string[]): Promise<string> {
  const dir = join(root, name);
  mkdirSync(dir);
  await ok(dir, 'init', '--domain', 'example.com', '--skip-install', '--kubeforge-source', 'link', ...initArgs);
  await ok(dir, 'create', 'api', '--group', 'ship', '--version', 'v1', '--kind', 'Frigate', '--make=false');
  return dir;
}

/** The chart rendered as release <name> in <name>-system, against config/default's kustomize output (the listed differences applied). */
function renderedAndWanted(dir: string, name: string): { got: Map<string, Obj>; want: Map<string, Obj> } {
  const rendered = docs(tool(helmBin, ['template', name, 'dist/chart', '--namespace', `${name}-system`], dir));
  const { objects } = asChartRendersIt(docs(tool('kubectl', ['kustomize', 'config/default'], dir)), name);
  const byKey = (list: Obj[]) => new Map(list.map((o) => [key(o), o]));
  return { got: byKey(rendered), want: byKey(objects) };
}

function assertChartIsConfig(dir: string, name: string): Map<string, Obj> {
  const lint = tool(helmBin, ['lint', 'dist/chart'], dir);
  assert.match(lint, /1 chart\(s\) linted, 0 chart\(s\) failed/);
  const { got, want } = renderedAndWanted(dir, name);
  assert.deepEqual([...got.keys()].sort(), [...want.keys()].sort());
  for (const [k, o] of want) assert.deepEqual(got.get(k), o, k);
  return got;
}

/** Doc comments Kubernetes field docs hold, which are Go or Helm template syntax. */
const HOSTILE = [
  'branch is rendered by the controller from "Branch: {{ .Spec.Branch }}" (a Go template).',
  'An unbalanced {{ that never closes, and a lone }} too.',
  'Looks like Helm: {{ include "x" . }}, {{- if .Values.crd.enabled }} and {{ .Release.Name }}.',
  'Three braces {{{ and the escape itself: {{ "{{" }}.',
];

describe('helm/v2-alpha chart under hostile use, rendered by helm', { timeout: 20 * 60_000 }, () => {
  before(async () => {
    helmBin = await helm();
  });

  it('CRD descriptions with `{{` render as written; lint passes; manifests --check agrees with edit', async () => {
    const dir = await project('hostile', '--project-name', 'hostile');
    const types = join(dir, 'src/api/v1/frigate_types.ts');
    const doc = HOSTILE.map((l) => `   * ${l}`).join('\n   *\n');
    writeFileSync(
      types,
      readFileSync(types, 'utf8').replace(
        '  /** foo is an example field of Frigate. Edit frigate_types.ts to remove/update */\n  foo?: string;',
        `  /**\n${doc}\n   */\n  branch?: string;`,
      ),
    );
    await ok(dir, 'manifests');
    await ok(dir, 'edit', '--plugins', 'helm/v2-alpha');
    const got = assertChartIsConfig(dir, 'hostile');
    const crd = must(
      got.get('CustomResourceDefinition//frigates.ship.example.com'),
      "got.get('CustomResourceDefinition//frigates.ship.example.com')",
    );
    const description = crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.branch.description;
    assert.equal(description, HOSTILE.join('\n\n'));
    assert.equal((await kubeforge(dir, 'manifests', '--check')).code, 0);
    const again = await kubeforge(dir, 'edit', '--plugins', 'helm/v2-alpha');
    assert.match(again.out, /Nothing to change/);
  });

  it('edit --namespaced: the chart renders config/default (Role, RoleBinding, WATCH_NAMESPACE); --check fails on a chart of the other scope; --namespaced=false gives the first chart back', async () => {
    const dir = await project('scope', '--project-name', 'scope');
    await ok(dir, 'manifests');
    await ok(dir, 'edit', '--plugins', 'helm/v2-alpha');
    const cluster = snapshot(join(dir, 'dist'));
    assertChartIsConfig(dir, 'scope');

    await ok(dir, 'edit', '--namespaced');
    const got = assertChartIsConfig(dir, 'scope');
    assert.ok(got.has('Role/scope-system/scope-manager-role'));
    assert.ok(got.has('RoleBinding/scope-system/scope-manager-rolebinding'));
    assert.ok(![...got.keys()].some((k) => k.startsWith('ClusterRole/scope-manager-role')));
    const manager = must(
      got.get('Deployment/scope-system/scope-controller-manager'),
      "got.get('Deployment/scope-system/scope-controller-manager')",
    );
    assert.deepEqual(
      manager.spec.template.spec.containers[0].env.find((e: Obj) => e.name === 'WATCH_NAMESPACE'),
      { name: 'WATCH_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
    );
    // values.yaml (the user's) can still add variables after it.
    const withEnv = must(
      docs(
        tool(
          helmBin,
          [
            'template',
            'scope',
            'dist/chart',
            '--namespace',
            'scope-system',
            '--set',
            'manager.env[0].name=A',
            '--set',
            'manager.env[0].value=b',
          ],
          dir,
        ),
      ).find((o) => o.kind === 'Deployment'),
      "docs( tool( helmBin, [ 'template', 'scope', 'dist/chart', '--namesp...",
    );
    assert.deepEqual(
      withEnv.spec.template.spec.containers[0].env.map((e: Obj) => e.name),
      ['WATCH_NAMESPACE', 'A'],
    );
    assert.equal((await kubeforge(dir, 'manifests', '--check')).code, 0);

    // A chart left of the cluster scope (as edit made it before) is drift.
    const namespaced = snapshot(join(dir, 'dist'));
    for (const f of ['chart/templates/manager/manager.yaml', 'chart/templates/rbac/manager-rolebinding.yaml'])
      writeFileSync(join(dir, 'dist', f), cluster[f]);
    const check = await kubeforge(dir, 'manifests', '--check');
    assert.equal(check.code, 1, check.out + check.err);
    assert.match(check.out, /dist\/chart\/templates\/manager\/manager\.yaml/);
    assert.match(check.out, /dist\/chart\/templates\/rbac\/manager-rolebinding\.yaml/);
    await ok(dir, 'manifests');
    assert.deepEqual(snapshot(join(dir, 'dist')), namespaced);

    await ok(dir, 'edit', '--namespaced=false');
    assert.deepEqual(snapshot(join(dir, 'dist')), cluster);
    assertChartIsConfig(dir, 'scope');
  });

  it('a project made namespaced charts the same templates edit --namespaced gives', async () => {
    const made = await project('made', '--project-name', 'made', '--namespaced');
    await ok(made, 'manifests');
    await ok(made, 'edit', '--plugins', 'helm/v2-alpha');
    assertChartIsConfig(made, 'made');
    const switched = await project('switched', '--project-name', 'made');
    await ok(switched, 'manifests');
    await ok(switched, 'edit', '--plugins', 'helm/v2-alpha');
    await ok(switched, 'edit', '--namespaced');
    const a = snapshot(join(made, 'dist/chart/templates'));
    const b = snapshot(join(switched, 'dist/chart/templates'));
    assert.deepEqual(b, a);
  });
});
