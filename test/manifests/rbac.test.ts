import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Reporter } from '../../src/diagnostics/index.js';
import type { MarkerUse } from '../../src/manifests/markeruse.js';
import { generateRbac as generate } from '../../src/manifests/rbac.js';
import { toYamlDocuments } from '../../src/manifests/yaml.js';
import { must } from '../helpers/must.js';

let line = 0;
function rbac(args: MarkerUse<'Rbac'>['args'], target = 'CronJobReconciler'): MarkerUse<'Rbac'> {
  line += 1;
  return { marker: 'Rbac', args, target, file: '/p/src/controller/cronjob.ts', line, column: 1 };
}
const s = (x: string) => x.split(';');

/** The generator with a reporter of its own: its objects and what it reported. */
function generateRbac(uses: MarkerUse<'Rbac'>[]) {
  const reporter = new Reporter();
  const { objects } = generate(uses, reporter);
  return { objects, diagnostics: reporter.diagnostics() };
}

// The markers of controller-tools' pkg/rbac/testdata/controller.go, translated to @Rbac arguments.
const CONTROLLER_TOOLS_MARKERS = [
  { groups: ['batch.io'], resources: ['cronjobs'], verbs: s('get;watch;create') },
  { groups: ['batch.io'], resources: ['cronjobs/status'], verbs: s('get;update;patch') },
  { groups: ['art'], resources: ['jobs'], verbs: ['get'] },
  { groups: ['wave'], resources: ['jobs'], verbs: ['get'], namespace: 'zoo' },
  { groups: s('batch;batch;batch'), resources: ['jobs/status'], verbs: ['watch'] },
  { groups: s('batch;cron'), resources: ['jobs/status'], verbs: s('create;get') },
  { groups: ['art'], resources: ['jobs'], verbs: ['get'], namespace: 'zoo' },
  { groups: s('cron;batch'), resources: ['jobs/status'], verbs: s('get;create') },
  { groups: ['batch'], resources: ['jobs/status'], verbs: s('watch;watch') },
  { groups: ['art'], resources: ['jobs'], verbs: ['get'], namespace: 'park' },
  { groups: ['batch.io'], resources: ['cronjobs'], resourceNames: s('foo;bar;baz'), verbs: s('get;watch') },
  { groups: ['deduplicate-verbs'], resources: ['some'], verbs: s('get;list') },
  { groups: ['deduplicate-verbs'], resources: ['some'], verbs: ['get'] },
  { groups: ['deduplicate-verbs'], resources: ['some'], verbs: ['list'] },
  { groups: ['deduplicate-resources'], resources: ['one'], verbs: ['create'] },
  { groups: ['deduplicate-resources'], resources: ['two'], verbs: ['create'] },
  { groups: ['deduplicate-resources'], resources: ['three'], verbs: ['create'] },
  { groups: ['deduplicate-groups1'], resources: ['foo'], verbs: ['patch'] },
  { groups: ['deduplicate-groups2'], resources: ['foo'], verbs: ['patch'] },
  { groups: ['deduplicate-groups3'], resources: ['foo'], verbs: ['patch'] },
  { groups: ['deduplicate-all'], resources: s('foo;bar'), verbs: s('get;list') },
  { groups: ['deduplicate-all'], resources: ['foo'], verbs: ['get'] },
  { groups: ['deduplicate-all'], resources: ['bar'], verbs: ['list'] },
  { groups: ['deduplicate-groups4'], resources: ['xyz'], verbs: s('get;update;patch') },
  { groups: ['deduplicate-groups4'], resources: ['xyz'], verbs: ['*'] },
  { groups: ['deduplicate-all-group'], resources: s('foo;bar'), verbs: s('get;list') },
  { groups: ['not-deduplicate-resources'], resources: ['some'], verbs: ['get'] },
  { groups: ['not-deduplicate-resources'], resources: ['another'], verbs: ['list'] },
  { groups: ['not-deduplicate-groups1'], resources: ['some'], verbs: ['get'] },
  { groups: ['not-deduplicate-groups2'], resources: ['some'], verbs: ['list'] },
  { urls: ['/url-to-duplicate'], verbs: ['get'] },
  { urls: ['/another/url-to-duplicate'], verbs: ['get'] },
  { groups: ['core'], resources: ['deduplicate'], verbs: ['list'] },
  { groups: [''], resources: ['me'], verbs: ['list'] },
  { groups: ['core', '', 'some-other-to-deduplicate-with-core'], resources: ['me'], verbs: s('list;get') },
  { groups: ['deduplicate-groups5'], resources: ['abc'], verbs: s('get;update;patch;create'), namespace: 'here' },
  { groups: ['deduplicate-groups5'], resources: ['abc'], verbs: ['*'], namespace: 'here' },
  {
    groups: ['apps'],
    namespace: 'infrastructure',
    resources: ['deployments'],
    verbs: s('get;list;watch;update;patch'),
  },
  { groups: [''], namespace: 'users', resources: ['secrets'], verbs: s('get;list;watch') },
];

const rule = (groups: string[] | null, resources: string[] | null, verbs: string[], extra = '') =>
  `${groups ? `- apiGroups:\n${groups.map((g) => `  - ${g === '' ? '""' : g}\n`).join('')}` : ''}${extra}${resources ? `  resources:\n${resources.map((r) => `  - ${r}\n`).join('')}` : ''}  verbs:\n${verbs.map((v) => `  - ${v === '*' ? "'*'" : v}\n`).join('')}`;
const role = (ns: string | null, rules: string) =>
  `---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ${ns ? 'Role' : 'ClusterRole'}\nmetadata:\n  name: manager-role\n${ns ? `  namespace: ${ns}\n` : ''}rules:\n${rules}`;

// controller-tools' pkg/rbac/testdata/role.yaml for the markers above.
const EXPECTED =
  role(
    null,
    `- nonResourceURLs:\n  - /another/url-to-duplicate\n  - /url-to-duplicate\n  verbs:\n  - get\n` +
      rule([''], ['deduplicate', 'me'], ['list']) +
      rule(['', 'some-other-to-deduplicate-with-core'], ['me'], ['get', 'list']) +
      rule(['art'], ['jobs'], ['get']) +
      rule(['batch'], ['jobs/status'], ['watch']) +
      rule(['batch', 'cron'], ['jobs/status'], ['create', 'get']) +
      rule(['batch.io'], ['cronjobs'], ['create', 'get', 'watch']) +
      rule(['batch.io'], ['cronjobs'], ['get', 'watch'], '  resourceNames:\n  - bar\n  - baz\n  - foo\n') +
      rule(['batch.io'], ['cronjobs/status'], ['get', 'patch', 'update']) +
      rule(['deduplicate-all', 'deduplicate-all-group'], ['bar', 'foo'], ['get', 'list']) +
      rule(['deduplicate-groups1', 'deduplicate-groups2', 'deduplicate-groups3'], ['foo'], ['patch']) +
      rule(['deduplicate-groups4'], ['xyz'], ['*']) +
      rule(['deduplicate-resources'], ['one', 'three', 'two'], ['create']) +
      rule(['deduplicate-verbs'], ['some'], ['get', 'list']) +
      rule(['not-deduplicate-groups1', 'not-deduplicate-resources'], ['some'], ['get']) +
      rule(['not-deduplicate-groups2'], ['some'], ['list']) +
      rule(['not-deduplicate-resources'], ['another'], ['list']),
  ) +
  role('here', rule(['deduplicate-groups5'], ['abc'], ['*'])) +
  role('infrastructure', rule(['apps'], ['deployments'], ['get', 'list', 'patch', 'update', 'watch'])) +
  role('park', rule(['art'], ['jobs'], ['get'])) +
  role('users', rule([''], ['secrets'], ['get', 'list', 'watch'])) +
  role('zoo', rule(['art', 'wave'], ['jobs'], ['get']));

describe('RBAC generator', () => {
  it("merges, deduplicates and sorts rules exactly like controller-gen (controller-tools' rbac testdata)", () => {
    const result = generateRbac(CONTROLLER_TOOLS_MARKERS.map((a) => rbac(a)));
    assert.deepEqual(result.diagnostics, []);
    assert.equal(toYamlDocuments(result.objects), EXPECTED);
  });

  it('gives the same bytes whatever order the markers come in', () => {
    const uses = CONTROLLER_TOOLS_MARKERS.map((a) => rbac(a));
    const reversed = [...uses].reverse().map((u, i) => ({ ...u, line: i + 1 }));
    assert.equal(toYamlDocuments(generateRbac(reversed).objects), EXPECTED);
  });

  it('always writes the ClusterRole manager-role, with no rules when there is no marker', () => {
    const result = generateRbac([]);
    assert.equal(
      toYamlDocuments(result.objects),
      '---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: manager-role\nrules: []\n',
    );
  });

  it('writes a Role per namespace and honours roleName', () => {
    const result = generateRbac([
      rbac({
        groups: ['apps'],
        resources: ['deployments'],
        verbs: ['get'],
        namespace: 'infra',
        roleName: 'infra-manager',
      }),
      rbac({ groups: [''], resources: ['secrets'], verbs: ['get'], namespace: 'users', roleName: 'user-secrets' }),
      rbac({ groups: [''], resources: ['pods'], verbs: ['list'], roleName: 'pod-lister' }),
    ]);
    assert.deepEqual(result.diagnostics, []);
    assert.deepEqual(
      result.objects.map((o) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`),
      ['ClusterRole//manager-role', 'ClusterRole//pod-lister', 'Role/infra/infra-manager', 'Role/users/user-secrets'],
    );
  });

  it('reports every misuse, located at the marker, in one run', () => {
    // Argument types (a missing 'verbs', a string for a list, an unknown argument) are the
    // analysis' checks against the marker table: test/markers/collector.test.ts.
    const uses = [
      rbac({ urls: ['/metrics'], verbs: ['get'], namespace: 'system' }),
      rbac({ urls: ['/metrics'], groups: ['apps'], resources: ['deployments'], verbs: ['get'] }),
      rbac({ resources: ['pods'], verbs: ['get'] }),
      rbac({ groups: ['apps'], resources: ['deployments'], verbs: [] }),
      rbac({ groups: ['apps'], resources: ['deployments'], verbs: ['get'], namespace: 'Bad_NS' }),
    ];
    const { diagnostics } = generateRbac(uses);
    const byLine = (n: number) =>
      diagnostics.filter((d) => d.line === uses[n].line).map((d) => `${d.code} ${d.message}`);
    assert.match(byLine(0).join('\n'), /KF4101 .*non-resource URLs in namespace 'system'/);
    assert.match(byLine(1).join('\n'), /KF4101 .*mixes 'urls' with/);
    assert.match(byLine(2).join('\n'), /KF4101 .*names resources but no API groups/);
    assert.match(byLine(3).join('\n'), /KF4101 .*empty 'verbs' list/);
    assert.match(byLine(4).join('\n'), /KF4101 .*namespace 'Bad_NS' is not a valid namespace name/);
    assert.equal(diagnostics.length, 5);
    for (const d of diagnostics) {
      assert.equal(d.file, '/p/src/controller/cronjob.ts');
      assert.ok(d.hint, `diagnostic without a fix: ${d.message}`);
    }
  });

  it("a namespace-scoped project: manager-role is a Role in the manager's namespace; own roleNames and namespaces keep controller-gen's rule; URLs are refused there", () => {
    const ns = (uses: MarkerUse<'Rbac'>[]) => {
      const reporter = new Reporter();
      const { objects } = generate(uses, reporter, { managerNamespace: 'guestbook-system' });
      return { objects, diagnostics: reporter.diagnostics() };
    };
    // No marker: the Role alone (config/rbac's RoleBinding always has something to bind), no empty ClusterRole.
    assert.deepEqual(ns([]).objects, [
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: 'manager-role', namespace: 'guestbook-system' },
        rules: [],
      },
    ]);
    const { objects, diagnostics } = ns([
      rbac({ groups: ['batch.example.com'], resources: ['cronjobs'], verbs: ['get', 'list'] }),
      // Kubebuilder's namespaced scaffold names the namespace: the same Role.
      rbac({ groups: ['batch.example.com'], resources: ['cronjobs'], verbs: ['watch'], namespace: 'guestbook-system' }),
      rbac({ groups: [''], resources: ['nodes'], verbs: ['get'], roleName: 'node-reader' }),
      rbac({ groups: [''], resources: ['secrets'], verbs: ['get'], namespace: 'vault' }),
    ]);
    assert.deepEqual(diagnostics, []);
    assert.deepEqual(
      objects.map(
        (o) =>
          `${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name}: ${o.rules.map((r) => `${r.resources}=${r.verbs}`).join(' ')}`,
      ),
      [
        'ClusterRole /node-reader: nodes=get',
        'Role guestbook-system/manager-role: cronjobs=get,list,watch',
        'Role vault/manager-role: secrets=get',
      ],
    );
    const urls = ns([
      rbac({ urls: ['/metrics'], verbs: ['get'] }),
      rbac({ urls: ['/healthz'], verbs: ['get'], roleName: 'probe-reader' }),
    ]);
    assert.deepEqual(
      urls.diagnostics.map((d) => [d.code, d.line]),
      [['KF4101', line - 1]],
    );
    assert.match(
      urls.diagnostics[0].message,
      /namespace-scoped \(PROJECT: namespaced: true\): manager-role is a Role in 'guestbook-system', and only a ClusterRole can grant URLs/,
    );
    assert.match(must(urls.diagnostics[0].hint, 'urls.diagnostics[0].hint'), /roleName of its own/);
  });
});
