// Hostile input, family 3: every valid Kind name scaffolds code that compiles.
//
// One project gets an API (types, controller, controller test) for each Kind below through the
// real CLI (`create api`), defaulting and validating webhooks for most of them, and conversion
// webhooks for a few; then ONE `tsc --noEmit` over the whole project must pass, and
// `kubeforge manifests` must generate the CRDs, RBAC and webhook configurations. The Kinds are
// every JavaScript / TypeScript reserved or contextual word in PascalCase, global names, and every
// identifier the templates (and src/main.ts) declare, import or use. Kinds that cannot work
// (ending in "List", too long for the API server) are refused before anything is written.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { run } from '../../src/cli/index.js';
import { packageRoot } from '../../src/util/package-root.js';

const repo = packageRoot();

/** JavaScript's reserved words (strict mode and modules included), in PascalCase. */
const RESERVED = [
  'Await',
  'Break',
  'Case',
  'Catch',
  'Class',
  'Const',
  'Continue',
  'Debugger',
  'Default',
  'Delete',
  'Do',
  'Else',
  'Enum',
  'Export',
  'Extends',
  'False',
  'Finally',
  'For',
  'Function',
  'If',
  'Implements',
  'Import',
  'In',
  'Instanceof',
  'Interface',
  'Let',
  'New',
  'Null',
  'Package',
  'Private',
  'Protected',
  'Public',
  'Return',
  'Static',
  'Super',
  'Switch',
  'This',
  'Throw',
  'True',
  'Try',
  'Typeof',
  'Var',
  'Void',
  'While',
  'With',
  'Yield',
  'Arguments',
  'Eval',
];
/**
 * TypeScript's contextual and type keywords (Asserts and Exports are left out: their resource
 * names would be those of Assert and Export, which one API group cannot have twice).
 */
const CONTEXTUAL = [
  'Abstract',
  'Accessor',
  'Any',
  'As',
  'Assert',
  'Async',
  'Constructor',
  'Declare',
  'From',
  'Get',
  'Global',
  'Infer',
  'Intrinsic',
  'Is',
  'Keyof',
  'Module',
  'Namespace',
  'Never',
  'Of',
  'Out',
  'Override',
  'Readonly',
  'Require',
  'Satisfies',
  'Type',
  'Unique',
  'Unknown',
  'Using',
  'Undefined',
];
/** Global values and types of JavaScript, Node.js and TypeScript's lib. */
const GLOBALS = [
  'Promise',
  'AbortSignal',
  'AbortController',
  'Error',
  'Object',
  'Array',
  'Map',
  'Set',
  'Symbol',
  'Date',
  'JSON',
  'Math',
  'Number',
  'String',
  'Boolean',
  'BigInt',
  'RegExp',
  'Proxy',
  'Reflect',
  'Buffer',
  'Record',
  'Partial',
  'ReturnType',
  'Required',
  'Pick',
  'Omit',
  'Awaited',
  'Parameters',
  'URL',
  'Console',
  'Process',
  'Intl',
  'WeakMap',
  'Uint8Array',
  'Response',
  'Headers',
  'Event',
  'EventTarget',
  'Iterator',
  'NaN',
  'Infinity',
  'GlobalThis',
];
/** Names the scaffolded files (types, controller, tests, webhooks, conversion, main.ts) use. */
const TEMPLATE_NAMES = [
  'Client',
  'ControllerManagedBy',
  'IsNotFound',
  'IsAlreadyExists',
  'ReconcileContext',
  'Request',
  'Result',
  'Rbac',
  'KubernetesObject',
  'TypeDescriptor',
  'ListMapKey',
  'ListType',
  'Resource',
  'Root',
  'Subresource',
  'V1Condition',
  'V1ObjectMeta',
  'TestEnvironment',
  'NewClient',
  'NewManager',
  'NewWebhookServer',
  'WebhookServer',
  'Manager',
  'AdmissionContext',
  'CustomDefaulter',
  'CustomValidator',
  'Warnings',
  'Webhook',
  'WebhookManagedBy',
  'Conversion',
  'StorageVersion',
  'ConversionWebhook',
  'DefineGroupVersion',
  'GroupVersion',
  'Ctx',
  'Err',
  'Mgr',
  'Env',
  'Config',
  'Logger',
  'Context',
  'Created',
  'Reconciler',
  'ResourceName',
  'RandomUUID',
  'Describe',
  'It',
  'Before',
  'After',
  'Sleep',
  'Stop',
  'Running',
  'Admission',
  'Obj',
  'OldObj',
  'NewObj',
  'Spoke',
  'Hub',
  'Back',
  'Src',
  'Main',
  'Usage',
  'ParseArgs',
  'ParseFlags',
  'NormaliseArgs',
  'GetConfigOrDie',
  'Healthz',
  'SetupSignalHandler',
  'SetupLog',
  'Flags',
  'WebhookPort',
  'Operation',
  'Name',
  'Spec',
  'Status',
  'Metadata',
  'Foo',
  'Kind',
  'Gvk',
  'Plural',
  'Namespaced',
];
/** Kinds whose Spec / Status class is another Kind of the list: they live in a second version. */
const SECOND_VERSION = ['SubresourceStatus', 'ResourceSpec', 'SpecStatus'];
/** Kinds that also get a version v2 and a conversion webhook (v1 the hub, v2 the spoke). */
const CONVERTED = [
  'Conversion',
  'ConversionWebhook',
  'StorageVersion',
  'Src',
  'Hub',
  'Spoke',
  'Back',
  'Promise',
  'Package',
];
/**
 * Kinds that also get admission webhooks (--defaulting --programmatic-validation): every name the
 * templates use, and the reserved words and globals the issue names.
 */
const WITH_WEBHOOKS = new Set([
  ...TEMPLATE_NAMES,
  'Package',
  'Interface',
  'Promise',
  'Import',
  'Default',
  'Enum',
  'Function',
  'Switch',
  'Await',
  'Assert',
  'AbortSignal',
  'Error',
  'Object',
  'Symbol',
  'Delete',
  'New',
  'This',
  'Var',
  'Let',
  'Yield',
  'Type',
  'Set',
  'Array',
  'Record',
]);

const KINDS = [...RESERVED, ...CONTEXTUAL, ...GLOBALS, ...TEMPLATE_NAMES];

const work = mkdtempSync(join(tmpdir(), 'kf-kind-names-'));
const dir = join(work, 'project');

async function kubeforge(args: string[]): Promise<{ code: number; err: string }> {
  let err = '';
  const code = await run(['node', 'kubeforge', ...args], {
    cwd: dir,
    color: false,
    out: () => {},
    err: (t) => {
      err += t;
    },
  });
  return { code, err };
}

async function ok(args: string[]): Promise<void> {
  const { code, err } = await kubeforge(args);
  assert.equal(code, 0, `kubeforge ${args.join(' ')}:\n${err}`);
}

/** node_modules of the project: this repository's packages, and kubeforge itself as the repository. */
function linkModules(): void {
  const modules = join(dir, 'node_modules');
  mkdirSync(modules);
  for (const name of readdirSync(join(repo, 'node_modules'))) {
    if (name === 'kubeforge') continue;
    symlinkSync(join(repo, 'node_modules', name), join(modules, name));
  }
  symlinkSync(repo, join(modules, 'kubeforge'));
}

const g = ['--group', 'hostile'];

describe('every valid Kind name scaffolds code that compiles', () => {
  before(async () => {
    mkdirSync(dir);
    await ok(['init', '--domain', 'example.com', '--skip-install', '--kubeforge-source', 'link']);
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  it('lists over a hundred distinct Kinds', () => {
    const all = [...KINDS, ...SECOND_VERSION];
    assert.equal(new Set(all.map((k) => k.toLowerCase())).size, all.length, 'no two Kinds differ only in case');
    assert.ok(KINDS.length >= 100, `${KINDS.length} Kinds`);
  });

  it('create api and create webhook accept each of them; tsc --noEmit passes on the project; manifests generates', async () => {
    for (const kind of KINDS) {
      await ok(['create', 'api', ...g, '--version', 'v1', '--kind', kind, '--make=false']);
      if (WITH_WEBHOOKS.has(kind))
        await ok([
          'create',
          'webhook',
          ...g,
          '--version',
          'v1',
          '--kind',
          kind,
          '--defaulting',
          '--programmatic-validation',
          '--make=false',
        ]);
    }
    for (const kind of SECOND_VERSION) {
      await ok(['create', 'api', ...g, '--version', 'v1alpha1', '--kind', kind, '--make=false']);
      await ok(['create', 'webhook', ...g, '--version', 'v1alpha1', '--kind', kind, '--defaulting', '--make=false']);
    }
    for (const kind of CONVERTED) {
      await ok(['create', 'api', ...g, '--version', 'v2', '--kind', kind, '--controller=false', '--make=false']);
      await ok([
        'create',
        'webhook',
        ...g,
        '--version',
        'v1',
        '--kind',
        kind,
        '--conversion',
        '--spoke',
        'v2',
        '--make=false',
      ]);
    }
    linkModules();
    const tsc = spawnSync(join(repo, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.json', '--noEmit'], {
      cwd: dir,
      encoding: 'utf8',
    });
    assert.equal(tsc.status, 0, `tsc found errors:\n${tsc.stdout}${tsc.stderr}`);

    await ok(['manifests']);
    const bases = readdirSync(join(dir, 'config/crd/bases'));
    assert.equal(bases.length, KINDS.length + SECOND_VERSION.length, 'one CRD per Kind');
    const crdKinds = bases.map(
      (b) =>
        (parse(readFileSync(join(dir, 'config/crd/bases', b), 'utf8')) as { spec: { names: { kind: string } } }).spec
          .names.kind,
    );
    assert.deepEqual(crdKinds.sort(), [...KINDS, ...SECOND_VERSION].sort());
    const webhooks = readFileSync(join(dir, 'config/webhook/manifests.yaml'), 'utf8');
    assert.match(webhooks, /path: \/mutate-hostile-example-com-v1-package\n/);
    assert.match(webhooks, /path: \/validate-hostile-example-com-v1-promise\n/);
  });

  it('refuses a Kind ending in "List" or too long for the API server, before writing anything', async () => {
    const project = readFileSync(join(dir, 'PROJECT'), 'utf8');
    for (const [kind, message] of [
      ['WidgetList', /KF1051.*--kind WidgetList: a Kind may not end in "List"/],
      ['List', /KF1051.*--kind List: a Kind may not end in "List"/],
      [`A${'b'.repeat(59)}`, /KF1051.*its list Kind Ab+List would be 64 characters/],
    ] as const) {
      const r = await kubeforge(['create', 'api', ...g, '--version', 'v1', '--kind', kind, '--make=false']);
      assert.equal(r.code, 1, r.err);
      assert.match(r.err, message);
      assert.match(r.err, /hint:/);
      assert.equal(existsSync(join(dir, `src/api/v1/${kind.toLowerCase()}_types.ts`)), false);
    }
    assert.equal(readFileSync(join(dir, 'PROJECT'), 'utf8'), project);
  });
});
