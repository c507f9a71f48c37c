/**
 * The helm plugin's template text, without helm (test/cli/helm-hostile.test.ts renders the same
 * cases with the real helm): a resource's own `{{` (a CRD description quoting a Go template, an
 * unbalanced `{{`, one that looks like a Helm expression) is escaped so that Helm prints it as
 * written, the chart's own expressions are not, and `kubeforge manifests` reads the escaped
 * text back unchanged (so `--check` stays quiet after `edit`); the chart's scope follows
 * config/ (`edit --namespaced`): Role, RoleBinding and WATCH_NAMESPACE, and back.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse, stringify } from 'yaml';
import { chartFiles, chartFilesFor, chartSyncOf, escapeTemplateSyntax, HELM_PLUGIN } from '../../src/manifests/helm.js';
import { parseProject } from '../../src/project/index.js';
import { must } from '../helpers/must.js';
import type { Obj } from '../helpers/chart.js';

/** Descriptions a Kubernetes field doc can hold that are Go or Helm template syntax. */
const HOSTILE = [
  'A Go template the controller evaluates: "Branch: {{ .Spec.Branch }}".',
  'An unbalanced {{ that never closes, and a lone }} too.',
  'Looks like Helm: {{ include "x" . }} and {{- if .Values.crd.enabled }} and {{ .Release.Name }}.',
  'Three braces {{{ and the escape itself: {{ "{{" }}.',
  '{{- end }}',
];

const config = parseProject(
  stringify({
    domain: 'example.com',
    layout: ['typescript.kubeforge.io/v1'],
    projectName: 'fleet',
    repo: 'fleet',
    version: '3',
    plugins: { [HELM_PLUGIN]: { output: 'dist' } },
  }),
);

function crd(descriptions: string[]): Obj {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'frigates.ship.example.com' },
    spec: {
      group: 'ship.example.com',
      names: { kind: 'Frigate', listKind: 'FrigateList', plural: 'frigates', singular: 'frigate' },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              description: descriptions.join('\n'),
              properties: Object.fromEntries(
                descriptions.map((d, i) => [`f${i}`, { type: 'string', description: d, default: d }]),
              ),
            },
          },
        },
      ],
    },
  };
}

function deployment(env: Obj[] = []): Obj {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'fleet-controller-manager',
      namespace: 'fleet-system',
      labels: { 'control-plane': 'controller-manager' },
    },
    spec: {
      replicas: 1,
      template: {
        metadata: { labels: { 'control-plane': 'controller-manager' } },
        spec: {
          containers: [
            { name: 'manager', image: 'controller:latest', args: ['--leader-elect'], ...(env.length ? { env } : {}) },
          ],
          serviceAccountName: 'fleet-controller-manager',
          terminationGracePeriodSeconds: 10,
        },
      },
    },
  };
}

const WATCH = { name: 'WATCH_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } };

function rbac(namespaced: boolean): Obj[] {
  return [
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: namespaced ? 'Role' : 'ClusterRole',
      metadata: { name: 'fleet-manager-role', ...(namespaced ? { namespace: 'fleet-system' } : {}) },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: namespaced ? 'RoleBinding' : 'ClusterRoleBinding',
      metadata: { name: 'fleet-manager-rolebinding', ...(namespaced ? { namespace: 'fleet-system' } : {}) },
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: namespaced ? 'Role' : 'ClusterRole',
        name: 'fleet-manager-role',
      },
      subjects: [{ kind: 'ServiceAccount', name: 'fleet-controller-manager', namespace: 'fleet-system' }],
    },
  ];
}

/** The chart's managed templates by path. */
function templates(resources: Obj[]): Map<string, string> {
  return new Map(
    chartFiles({ config, resources })
      .filter((s) => s.policy === 'managed')
      .map((s) => [s.path, must(s.content, `the content of ${s.path}`)] as [string, string]),
  );
}

/**
 * What Helm prints for a template's text outside the chart's own expressions: `{{ "{{" }}` is `{{`.
 * Fails when any other `{{` opens something that is not one of the chart's expressions.
 */
function literalText(text: string): string {
  const open = '\u0000';
  const t = text.split('{{ "{{" }}').join(open);
  const chartExpr = /\{\{-? (if|end|with|toYaml|include|\.Release\.|\.Chart\.|\.Values\.)[^\n]*?\}\}/g;
  const rest = t
    .split('\n')
    .filter((l) => l.replace(chartExpr, '').trim() !== '' || !new RegExp(chartExpr.source).test(l))
    .join('\n')
    .replace(chartExpr, 'x');
  assert.doesNotMatch(rest, /\{\{/, `an unescaped {{ is left for Helm to evaluate:\n${text}`);
  return rest.split(open).join('{{');
}

describe('helm chart text', () => {
  it("escapes every `{{` of a resource's own text, which Helm then prints as written; the chart's expressions stay", () => {
    const files = templates([deployment(), crd(HOSTILE)]);
    const text = must(
      files.get('dist/chart/templates/crd/frigates.ship.example.com.yaml'),
      'dist/chart/templates/crd/frigates.ship.example.com.yaml',
    );
    assert.match(text, /\{\{- if \.Values\.crd\.enabled \}\}/);
    assert.match(text, /app\.kubernetes\.io\/instance: \{\{ \.Release\.Name \}\}/);
    const back = parse(
      literalText(text)
        .split('\n')
        .filter((l) => l.trim() !== '')
        .join('\n'),
    ) as Obj;
    const schema = back.spec.versions[0].schema.openAPIV3Schema;
    assert.equal(schema.description, HOSTILE.join('\n'));
    HOSTILE.forEach((d, i) => {
      assert.equal(schema.properties[`f${i}`].description, d);
      assert.equal(schema.properties[`f${i}`].default, d);
    });
  });

  it('escapeTemplateSyntax: `{{` only; a lone `}}` is plain text to Helm', () => {
    assert.equal(escapeTemplateSyntax('a {{ b }} }} {{{'), 'a {{ "{{" }} b }} }} {{ "{{" }}{');
  });

  it('`kubeforge manifests` reads the escaped chart back unchanged: a second pass rewrites nothing', () => {
    const files = templates([deployment(), ...rbac(false), crd(HOSTILE)]);
    const sync = must(
      chartSyncOf(config, (p) => (p === 'dist/chart/Chart.yaml' ? 'name: fleet\n' : files.get(p))),
      'the chart sync',
    );
    const crdFile = { path: 'config/crd/bases/ship.example.com_frigates.yaml', content: stringify(crd(HOSTILE)) };
    const [again] = chartFilesFor(sync, crdFile);
    const path = 'dist/chart/templates/crd/frigates.ship.example.com.yaml';
    assert.equal(again?.path, path);
    assert.equal(must(again, 'again').text, files.get(path));
  });

  it('the manager scope follows config/: after edit --namespaced the role, its binding and WATCH_NAMESPACE are as a namespaced project charts them, and back', () => {
    const cluster = templates([deployment(), ...rbac(false)]);
    const namespaced = templates([deployment([WATCH]), ...rbac(true)]);
    const scoped = [
      'dist/chart/templates/manager/manager.yaml',
      'dist/chart/templates/rbac/manager-role.yaml',
      'dist/chart/templates/rbac/manager-rolebinding.yaml',
    ];
    for (const p of scoped) assert.notEqual(cluster.get(p), namespaced.get(p), p);
    assert.match(must(namespaced.get(scoped[0]), scoped[0]), /- name: WATCH_NAMESPACE\n\s+valueFrom:/);
    assert.match(must(namespaced.get(scoped[1]), scoped[1]), /^kind: Role$/m);
    // config/ as edit --namespaced[=false] leaves it (role.yaml as kubeforge manifests writes it).
    const configOf = (ns: boolean) => {
      const [role, binding] = rbac(ns);
      const d = deployment(ns ? [WATCH] : []);
      return {
        'config/rbac/role.yaml': stringify({
          ...role,
          metadata: { name: 'manager-role', ...(ns ? { namespace: 'fleet-system' } : {}) },
        }),
        'config/rbac/role_binding.yaml': stringify({
          ...binding,
          metadata: { name: 'manager-rolebinding' },
          roleRef: { ...must(binding, 'binding').roleRef, name: 'manager-role' },
        }),
        'config/manager/manager.yaml': stringify({
          ...d,
          metadata: { name: 'controller-manager', namespace: 'system' },
        }),
      } as Record<string, string>;
    };
    for (const [from, to, ns] of [
      [cluster, namespaced, true],
      [namespaced, cluster, false],
    ] as const) {
      const files = configOf(ns);
      const read = (p: string) => (p === 'dist/chart/Chart.yaml' ? 'name: fleet\n' : (files[p] ?? from.get(p)));
      const list = (d: string) => (d === 'config/rbac' ? ['role.yaml', 'role_binding.yaml'] : []);
      const sync = must(chartSyncOf(config, read, list), 'the chart sync');
      const out = new Map(
        chartFilesFor(sync, {
          path: 'config/rbac/role.yaml',
          content: must(files['config/rbac/role.yaml'], 'config/rbac/role.yaml'),
        }).map((f) => [f.path, f.text]),
      );
      for (const p of scoped) assert.equal(out.get(p) ?? from.get(p), to.get(p), `${p} (namespaced: ${ns})`);
    }
  });
});
