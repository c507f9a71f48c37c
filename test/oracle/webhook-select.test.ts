// Webhook selectors, match conditions and `patch` (controller-tools v0.22, #1339), judged by the
// real tools:
// - controller-gen v0.22 on Go twins (markers written into a temporary package of the twins'
//   module, from the table below) says what each webhook must be: kubeforge's `@Webhook` with the
//   same arguments (and its typed namespaceSelector / objectSelector / matchConditions, written
//   in the twin as the equivalent `patch=`) gives the same object; a patch controller-gen refuses,
//   kubeforge refuses (KF4205).
// - kube-apiserver 1.37.2 says which selectors and match conditions are valid (controller-gen
//   does not check them): every configuration kubeforge writes is accepted (dry run), and every
//   selector or condition kubeforge refuses, the server refuses too.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import YAML from 'yaml';
import type { KubeConfig } from '@kubernetes/client-node';
import { Reporter } from '../../src/diagnostics/index.js';
import type { MarkerUse } from '../../src/manifests/markeruse.js';
import { generateWebhooks } from '../../src/manifests/webhook.js';
import { RestClient } from '../../src/runtime/client/rest.js';
import { TestEnvironment } from '../../src/testing/index.js';
import { controllerGen, runToolAllowingErrors } from './tools.js';
import { must } from '../helpers/must.js';

const root = process.env.KUBEFORGE_REPO_ROOT ?? process.cwd();
const twins = join(root, 'test/oracle/go');

type Args = Extract<MarkerUse, { marker: 'Webhook' }>['args'] & {
  namespaceSelector?: unknown;
  objectSelector?: unknown;
  matchConditions?: unknown;
  patch?: string;
};

const base = {
  groups: ['core'],
  resources: ['pods'],
  verbs: ['create', 'update'],
  versions: ['v1'],
  admissionReviewVersions: ['v1'],
  sideEffects: 'None',
  failurePolicy: 'Fail',
  mutating: false,
} as const;

interface Case {
  /** The webhook's name (sorts the output) and the case's. */
  name: string;
  args: Partial<Args>;
}

/** Accepted by controller-gen, by kubeforge and by the API server. */
const ACCEPTED: Case[] = [
  { name: 'a-namespace.kb.io', args: { namespaceSelector: { matchLabels: { webhook: 'on' } } } },
  {
    name: 'b-object.kb.io',
    args: {
      objectSelector: {
        matchExpressions: [
          { key: 'tier', operator: 'In', values: ['frontend', 'backend'] },
          { key: 'skip', operator: 'DoesNotExist' },
        ],
      },
    },
  },
  {
    name: 'c-conditions.kb.io',
    args: {
      matchConditions: [
        { name: 'not-kube-system', expression: "request.namespace != 'kube-system'" },
        { name: 'labelled', expression: "has(object.metadata.labels) && 'app' in object.metadata.labels" },
        {
          name: 'users',
          expression: "request.userInfo.groups.exists(g, g == 'system:masters') || request.dryRun == true",
        },
      ],
    },
  },
  { name: 'd-timeout.kb.io', args: { timeoutSeconds: 10, patch: '{"timeoutSeconds":25}' } },
  { name: 'e-timeout-null.kb.io', args: { timeoutSeconds: 10, patch: '{"timeoutSeconds":null}' } },
  {
    name: 'f-rules.kb.io',
    args: {
      patch:
        '{"rules":[{"apiGroups":["apps"],"apiVersions":["v1"],"operations":["DELETE"],"resources":["deployments"],"scope":"Namespaced"}]}',
    },
  },
  { name: 'g-service-port.kb.io', args: { patch: '{"clientConfig":{"service":{"port":8443}}}' } },
  {
    name: 'h-replace.kb.io',
    args: { patch: '{"clientConfig":{"$patch":"replace","url":"https://hooks.example.com/validate"}}' },
  },
  {
    name: 'i-mutating.kb.io',
    args: { mutating: true, patch: '{"reinvocationPolicy":"IfNeeded","sideEffects":"NoneOnDryRun"}' },
  },
  {
    name: 'j-both.kb.io',
    args: {
      namespaceSelector: { matchLabels: { env: 'production' } },
      patch:
        '{"objectSelector":{"matchLabels":{"managed-by":"my-operator"}},"matchConditions":[{"name":"create-only","expression":"request.operation == \'CREATE\'"}]}',
    },
  },
  {
    name: 'k-selector-replace.kb.io',
    args: {
      namespaceSelector: { matchLabels: { a: 'b' } },
      patch: '{"namespaceSelector":{"matchLabels":{"a":null,"c":"d"}}}',
    },
  },
];

/** Patches controller-gen refuses; kubeforge refuses them too. */
const REFUSED_BY_CONTROLLER_GEN: Case[] = [
  { name: 'r-not-json.kb.io', args: { patch: '{"timeoutSeconds":' } },
  { name: 'r-list.kb.io', args: { patch: '[{"timeoutSeconds":1}]' } },
  { name: 'r-unknown.kb.io', args: { patch: '{"namespaceSelectors":{"matchLabels":{"a":"b"}}}' } },
  { name: 'r-unknown-nested.kb.io', args: { patch: '{"namespaceSelector":{"matchLabel":{"a":"b"}}}' } },
  { name: 'r-type.kb.io', args: { patch: '{"timeoutSeconds":"25"}' } },
  { name: 'r-unknown-null.kb.io', args: { patch: '{"timeoutSecond":null}' } },
  { name: 'r-reinvocation.kb.io', args: { patch: '{"reinvocationPolicy":"IfNeeded"}' } },
];

/** Selectors and conditions the API server refuses (controller-gen writes them); kubeforge refuses them. */
const REFUSED_BY_SERVER: Case[] = [
  {
    name: 's-operator.kb.io',
    args: { namespaceSelector: { matchExpressions: [{ key: 'a', operator: 'Equals', values: ['b'] }] } },
  },
  { name: 's-values.kb.io', args: { objectSelector: { matchExpressions: [{ key: 'a', operator: 'In' }] } } },
  { name: 's-label.kb.io', args: { objectSelector: { matchLabels: { 'bad key!': 'x' } } } },
  { name: 's-syntax.kb.io', args: { matchConditions: [{ name: 'broken', expression: 'request.namespace ==' }] } },
  { name: 's-not-bool.kb.io', args: { matchConditions: [{ name: 'string', expression: 'request.namespace' }] } },
  { name: 's-undeclared.kb.io', args: { matchConditions: [{ name: 'self', expression: 'self.spec.x > 1' }] } },
  { name: 's-request-field.kb.io', args: { matchConditions: [{ name: 'field', expression: "request.nope == 'x'" }] } },
  {
    name: 's-duplicate.kb.io',
    args: {
      matchConditions: [
        { name: 'same', expression: 'true' },
        { name: 'same', expression: 'false' },
      ],
    },
  },
  { name: 's-name.kb.io', args: { matchConditions: [{ name: 'Not A Name', expression: 'true' }] } },
  { name: 's-patch-cel.kb.io', args: { patch: '{"matchConditions":[{"name":"p","expression":"1 + 1"}]}' } },
];

function argsOf(c: Case): Args {
  const mutating = c.args.mutating ?? false;
  return {
    ...base,
    path: `/${mutating ? 'mutate' : 'validate'}-v1-pod`,
    ...c.args,
    name: c.name,
  } as Args;
}

/** kubeforge's webhook objects (by name) and its diagnostics for some cases. */
function kubeforge(cases: Case[]) {
  const reporter = new Reporter();
  const uses = cases.map(
    (c, i) =>
      ({
        marker: 'Webhook',
        args: argsOf(c),
        target: `W${i}`,
        file: '/p/src/w.ts',
        line: i + 1,
        column: 1,
      }) as MarkerUse<'Webhook'>,
  );
  const objects = generateWebhooks(uses, [], reporter);
  const hooks = new Map<string, Record<string, unknown>>();
  for (const o of objects) for (const h of o.webhooks) hooks.set(h.name, h as unknown as Record<string, unknown>);
  return { hooks, objects, diagnostics: reporter.diagnostics() };
}

/** The twin's marker: the same arguments in controller-gen's syntax; typed selectors become `patch=`. */
function goMarker(c: Case): string {
  const a = argsOf(c);
  let patch: Record<string, unknown> | undefined;
  for (const key of ['namespaceSelector', 'objectSelector', 'matchConditions'] as const)
    if (a[key] !== undefined) {
      patch ??= {};
      patch[key] = a[key];
    }
  let patchText = a.patch;
  if (patch) {
    // The typed fields first, the patch over them (kubeforge's order).
    patchText = a.patch ? JSON.stringify({ ...patch, ...JSON.parse(a.patch) }) : JSON.stringify(patch);
  }
  const parts = [
    `path=${a.path}`,
    `mutating=${a.mutating}`,
    `failurePolicy=${a.failurePolicy.toLowerCase()}`,
    `sideEffects=${a.sideEffects}`,
    `groups=${a.groups.map((g) => (g === 'core' ? '""' : g)).join(';')}`,
    `resources=${a.resources.join(';')}`,
    `verbs=${a.verbs.join(';')}`,
    `versions=${a.versions.join(';')}`,
    `name=${a.name}`,
    `admissionReviewVersions=${a.admissionReviewVersions.join(';')}`,
    ...(a.timeoutSeconds !== undefined ? [`timeoutSeconds=${a.timeoutSeconds}`] : []),
    ...(patchText !== undefined ? [`patch=\`${patchText}\``] : []),
  ];
  return `// +kubebuilder:webhook:${parts.join(',')}`;
}

/** Runs controller-gen's webhook generator on a package of the twins' module holding `cases`' markers. */
async function controllerGenOn(cases: Case[]): Promise<{ status: number | string; out?: string; stderr: string }> {
  const bin = await controllerGen();
  const pkg = mkdtempSync(join(twins, 'tmp-webhooks-'));
  const out = mkdtempSync(join(tmpdir(), 'kf-cg-webhooks-'));
  try {
    writeFileSync(join(pkg, 'doc.go'), `${cases.map(goMarker).join('\n')}\n\npackage webhooks\n`);
    const rel = `./${pkg.slice(twins.length + 1)}/...`;
    const r = await runToolAllowingErrors(bin, ['webhook', `paths=${rel}`, `output:webhook:dir=${out}`], twins);
    const file = join(out, 'manifests.yaml');
    let text: string | undefined;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      text = undefined;
    }
    return { status: r.status, out: text, stderr: r.stderr };
  } finally {
    rmSync(pkg, { recursive: true, force: true });
    rmSync(out, { recursive: true, force: true });
  }
}

describe('webhook selectors, match conditions and patch: controller-gen v0.22 as the judge', () => {
  it('kubeforge writes every accepted webhook as controller-gen writes it', async () => {
    const cg = await controllerGenOn(ACCEPTED);
    assert.equal(cg.status, 0, cg.stderr);
    const theirs = new Map<string, unknown>();
    for (const doc of YAML.parseAllDocuments(must(cg.out, 'cg.out')))
      for (const h of (doc.toJS() as { webhooks?: { name: string }[] })?.webhooks ?? []) theirs.set(h.name, h);
    const ours = kubeforge(ACCEPTED);
    assert.deepEqual(ours.diagnostics, []);
    assert.deepEqual([...ours.hooks.keys()].sort(), [...theirs.keys()].sort());
    for (const [name, hook] of ours.hooks) assert.deepEqual(hook, theirs.get(name), name);
  });

  for (const c of REFUSED_BY_CONTROLLER_GEN) {
    it(`refused by both: ${c.name} (patch ${c.args.patch})`, async () => {
      const cg = await controllerGenOn([c]);
      assert.notEqual(cg.status, 0, `controller-gen accepted ${c.args.patch}`);
      const ours = kubeforge([c]);
      assert.equal(ours.objects.length, 0);
      assert.deepEqual(
        ours.diagnostics.map((d) => d.code),
        ours.diagnostics.map(() => 'KF4205'),
      );
      assert.ok(ours.diagnostics.length > 0, 'kubeforge refused it');
      assert.match(ours.diagnostics[0].message, new RegExp(`@Webhook '${c.name.replace(/\./g, '\\.')}'`));
    });
  }
});

describe('webhook selectors and match conditions: kube-apiserver 1.37.2 as the judge', () => {
  let env: TestEnvironment;
  let rest: RestClient;
  before(async () => {
    env = new TestEnvironment();
    const config: KubeConfig = await env.start();
    rest = new RestClient(config);
  });
  after(async () => {
    rest?.close();
    await env?.stop();
  });

  /** The server's verdict on one webhook in a configuration of its kind (dry run). */
  async function serverVerdict(hook: Record<string, unknown>, mutating: boolean): Promise<string | undefined> {
    const kind = mutating ? 'MutatingWebhookConfiguration' : 'ValidatingWebhookConfiguration';
    const plural = mutating ? 'mutatingwebhookconfigurations' : 'validatingwebhookconfigurations';
    try {
      await rest.request('POST', `/apis/admissionregistration.k8s.io/v1/${plural}`, {
        query: { dryRun: 'All' },
        body: { apiVersion: 'admissionregistration.k8s.io/v1', kind, metadata: { name: 'judge' }, webhooks: [hook] },
      });
      return undefined;
    } catch (e) {
      return (e as Error).message;
    }
  }

  it('accepts every configuration kubeforge writes', async () => {
    const ours = kubeforge(ACCEPTED);
    for (const o of ours.objects) {
      for (const h of o.webhooks) {
        const verdict = await serverVerdict(h as never, o.kind === 'MutatingWebhookConfiguration');
        assert.equal(verdict, undefined, `${h.name}: ${verdict}`);
      }
    }
  });

  for (const c of REFUSED_BY_SERVER) {
    it(`refused by both: ${c.name}`, async () => {
      const ours = kubeforge([c]);
      assert.equal(ours.objects.length, 0, 'kubeforge wrote no configuration');
      assert.ok(
        ours.diagnostics.length > 0 && ours.diagnostics.every((d) => d.code === 'KF4205'),
        JSON.stringify(ours.diagnostics),
      );
      // The webhook as it would be without kubeforge's check: the fields written as given.
      const a = argsOf(c);
      const raw: Record<string, unknown> = {
        name: c.name,
        admissionReviewVersions: ['v1'],
        clientConfig: { service: { name: 'webhook-service', namespace: 'system', path: a.path } },
        failurePolicy: 'Fail',
        sideEffects: 'None',
        rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['pods'] }],
      };
      for (const key of ['namespaceSelector', 'objectSelector', 'matchConditions'] as const)
        if (a[key] !== undefined) raw[key] = a[key];
      if (a.patch) Object.assign(raw, JSON.parse(a.patch));
      const verdict = await serverVerdict(raw, false);
      assert.ok(verdict, `the API server accepted ${JSON.stringify(raw)}`);
      assert.match(verdict, /invalid/i);
    });
  }
});

// Scratch packages of a crashed run must not stay in the twins' module.
process.on('exit', () => {
  for (const f of readdirSync(twins))
    if (f.startsWith('tmp-webhooks-')) rmSync(join(twins, f), { recursive: true, force: true });
});
