import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse, parseAllDocuments } from 'yaml';
import { DiagnosticError } from '../../src/diagnostics/index.js';
import { parseProject } from '../../src/project/index.js';
import { type Change, MemoryHost } from '../../src/machinery/index.js';
import { type CreateApiOptions, runCreateApi } from '../../src/scaffolds/api.js';
import { uncommentBlock, uncommentLines } from '../../src/scaffolds/comments.js';
import { type InitOptions, runInit } from '../../src/scaffolds/init.js';
import { type CreateWebhookOptions, defaultWebhookPath, runCreateWebhook } from '../../src/scaffolds/webhook.js';
import { assertGoldenFile, assertGoldenTree } from '../helpers/golden.js';
import { must } from '../helpers/must.js';

const CWD = '/projects/project-v4';
const quiet = { out: () => {}, err: () => {} };

async function initialised(options: Partial<InitOptions> = {}): Promise<MemoryHost> {
  const host = new MemoryHost();
  await runInit(
    {
      domain: 'testproject.org',
      owner: 'The Kubernetes authors',
      kubeforgeSource: 'registry',
      skipInstall: true,
      ...options,
    },
    { cwd: CWD, host, ...quiet },
  );
  return host;
}

async function createApi(host: MemoryHost, options: CreateApiOptions) {
  const err: string[] = [];
  const result = await runCreateApi(options, {
    cwd: CWD,
    host,
    out: () => {},
    err: (t) => err.push(t),
    manifests: false,
  });
  return { result, err: err.join('') };
}

async function createWebhook(host: MemoryHost, options: CreateWebhookOptions) {
  const out: string[] = [];
  const err: string[] = [];
  const result = await runCreateWebhook(options, {
    cwd: CWD,
    host,
    out: (t) => out.push(t),
    err: (t) => err.push(t),
    manifests: false,
  });
  return { result, out: out.join(''), err: err.join('') };
}

function written(changes: readonly Change[]): Record<string, string> {
  return Object.fromEntries(
    changes
      .filter((c) => c.kind !== 'delete')
      .map((c) => [c.path, must(c.content, `the content of ${c.path}`).toString('utf8')]),
  );
}

const text = (host: MemoryHost, path: string) => must(host.read(path), path).toString('utf8');

async function expectDiagnostics(p: Promise<unknown>, codes: string[]): Promise<DiagnosticError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof DiagnosticError, `expected a DiagnosticError, got ${(e as Error)?.stack ?? e}`);
    assert.deepEqual(
      e.diagnostics.map((d) => d.code),
      codes,
      e.message,
    );
    return e;
  }
  assert.fail(`expected diagnostics ${codes.join(', ')}, got success`);
}

/** Kubebuilder's project-v4 (test/testdata/generate.sh), without the external type. */
const V4_APIS: CreateApiOptions[] = [
  { group: 'crew', version: 'v1', kind: 'Captain' },
  { group: 'crew', version: 'v1', kind: 'FirstMate' },
  { group: 'crew', version: 'v2', kind: 'FirstMate', controller: false },
  { group: 'crew', version: 'v1', kind: 'Sailor' },
  { group: 'crew', version: 'v1', kind: 'Admiral', plural: 'admirales', namespaced: false },
];
const V4_WEBHOOKS: CreateWebhookOptions[] = [
  { group: 'crew', version: 'v1', kind: 'Captain', defaulting: true },
  { group: 'crew', version: 'v1', kind: 'Captain', programmaticValidation: true },
  { group: 'crew', version: 'v1', kind: 'FirstMate', conversion: true, spoke: ['v2'] },
  { group: 'crew', version: 'v1', kind: 'Sailor', defaulting: true, defaultingPath: '/custom-mutate-sailor' },
  {
    group: 'crew',
    version: 'v1',
    kind: 'Sailor',
    programmaticValidation: true,
    validationPath: '/custom-validate-sailor',
  },
  { group: 'crew', version: 'v1', kind: 'Admiral', plural: 'admirales', defaulting: true },
  {
    group: 'crew',
    version: 'v1',
    kind: 'Admiral',
    plural: 'admirales',
    programmaticValidation: true,
    validationPath: '/custom-validate-admiral',
  },
  { group: 'core', version: 'v1', kind: 'Pod', defaulting: true },
  { group: 'apps', version: 'v1', kind: 'Deployment', defaulting: true },
  { group: 'apps', version: 'v1', kind: 'Deployment', programmaticValidation: true },
];

const CASES: {
  name: string;
  init?: Partial<InitOptions>;
  apis: CreateApiOptions[];
  webhooks: CreateWebhookOptions[];
}[] = [
  { name: 'project-v4', apis: V4_APIS, webhooks: V4_WEBHOOKS },
  {
    name: 'multigroup',
    init: { multigroup: true, license: 'none' },
    apis: [
      { group: 'crew', version: 'v1', kind: 'Captain' },
      { group: 'ship', version: 'v1', kind: 'Destroyer', namespaced: false },
      { group: 'ship', version: 'v1beta1', kind: 'Destroyer', controller: false },
    ],
    webhooks: [
      { group: 'crew', version: 'v1', kind: 'Captain', defaulting: true, programmaticValidation: true },
      { group: 'ship', version: 'v1', kind: 'Destroyer', defaulting: true, conversion: true, spoke: ['v1beta1'] },
      { group: 'core', version: 'v1', kind: 'Pod', programmaticValidation: true },
    ],
  },
  {
    // Kinds of another project: Kubebuilder's own flags (a Go path: untyped), and an npm type.
    name: 'external',
    apis: [],
    webhooks: [
      {
        group: 'cert-manager',
        version: 'v1',
        kind: 'Issuer',
        defaulting: true,
        externalApiPath: 'github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1',
        externalApiDomain: 'io',
        externalApiModule: 'github.com/cert-manager/cert-manager@v1.20.2',
      },
      { group: 'cert-manager', version: 'v1', kind: 'Issuer', programmaticValidation: true },
      {
        group: 'cert-manager',
        version: 'v1',
        kind: 'Certificate',
        programmaticValidation: true,
        externalApiPath: '@acme/cert-manager-types/v1',
        externalApiDomain: 'io',
        externalApiModule: '@acme/cert-manager-types@1.2.0',
      },
    ],
  },
];

async function scaffold(c: (typeof CASES)[number]) {
  const host = await initialised(c.init);
  for (const api of c.apis) await createApi(host, api);
  const before = new Map(host.files);
  const plans: string[] = [];
  for (const w of c.webhooks) plans.push((await createWebhook(host, w)).out);
  return { host, before, plans };
}

describe('kubeforge create webhook (golden files)', () => {
  for (const c of CASES) {
    it(`${c.name}: what create webhook writes matches test/golden/webhook/${c.name}`, async () => {
      const { host, before, plans } = await scaffold(c);
      const changed: Record<string, string> = {};
      for (const [path, data] of [...host.files].sort(([a], [b]) => (a < b ? -1 : 1))) {
        if (!before.get(path)?.equals(data)) changed[path] = data.toString('utf8');
      }
      assertGoldenTree(changed, `webhook/${c.name}/tree`);
      assertGoldenFile(plans.join('---\n'), `webhook/${c.name}/plan.txt`);
    });
  }

  it("project-v4: PROJECT's webhooks entries are Kubebuilder's", async () => {
    const { host } = await scaffold(CASES[0]);
    const project = parseProject(text(host, 'PROJECT'));
    const byKind = (kind: string, version = 'v1') =>
      must(
        project.resources.find((r) => r.kind === kind && r.version === version),
        `the ${kind} ${version} resource in PROJECT`,
      );
    assert.deepEqual(byKind('Captain').webhooks, { defaulting: true, validation: true, webhookVersion: 'v1' });
    assert.deepEqual(byKind('FirstMate').webhooks, { conversion: true, spoke: ['v2'], webhookVersion: 'v1' });
    assert.equal(byKind('FirstMate', 'v2').webhooks, undefined);
    assert.deepEqual(byKind('Sailor').webhooks, {
      defaulting: true,
      defaultingPath: '/custom-mutate-sailor',
      validation: true,
      validationPath: '/custom-validate-sailor',
      webhookVersion: 'v1',
    });
    assert.deepEqual(byKind('Admiral').webhooks, {
      defaulting: true,
      validation: true,
      validationPath: '/custom-validate-admiral',
      webhookVersion: 'v1',
    });
    assert.deepEqual(byKind('Pod'), {
      core: true,
      group: 'core',
      kind: 'Pod',
      path: 'k8s.io/api/core/v1',
      version: 'v1',
      webhooks: { defaulting: true, webhookVersion: 'v1' },
    });
    assert.deepEqual(byKind('Deployment'), {
      core: true,
      group: 'apps',
      kind: 'Deployment',
      path: 'k8s.io/api/apps/v1',
      version: 'v1',
      webhooks: { defaulting: true, validation: true, webhookVersion: 'v1' },
    });
    assert.match(
      text(host, 'PROJECT'),
      / {2}webhooks:\n {4}defaulting: true\n {4}defaultingPath: \/custom-mutate-sailor\n {4}validation: true\n {4}validationPath: \/custom-validate-sailor\n {4}webhookVersion: v1\n/,
    );
  });

  it('project-v4: config/ is switched on as project-v4 has it, and stays valid YAML', async () => {
    const { host } = await scaffold(CASES[0]);
    const def = parse(text(host, 'config/default/kustomization.yaml')) as {
      resources: string[];
      patches: { path: string }[];
      replacements: {
        source: { kind: string; fieldPath: string };
        targets: { select: { kind: string; name?: string } }[];
      }[];
    };
    assert.deepEqual(def.resources, [
      '../crd',
      '../rbac',
      '../manager',
      '../webhook',
      '../certmanager',
      'metrics_service.yaml',
    ]);
    assert.deepEqual(
      def.patches.map((p) => p.path),
      ['manager_metrics_patch.yaml', 'manager_webhook_patch.yaml'],
    );
    const targets = def.replacements.map(
      (r) =>
        `${r.source.kind}${r.source.fieldPath} -> ${r.targets.map((t) => `${t.select.kind}${t.select.name ? `/${t.select.name}` : ''}`).join(',')}`,
    );
    assert.deepEqual(targets, [
      'Service.metadata.name -> Certificate/serving-cert',
      'Service.metadata.namespace -> Certificate/serving-cert',
      'Certificate.metadata.namespace -> ValidatingWebhookConfiguration',
      'Certificate.metadata.name -> ValidatingWebhookConfiguration',
      'Certificate.metadata.namespace -> MutatingWebhookConfiguration',
      'Certificate.metadata.name -> MutatingWebhookConfiguration',
      'Certificate.metadata.namespace -> CustomResourceDefinition/firstmates.crew.testproject.org',
      'Certificate.metadata.name -> CustomResourceDefinition/firstmates.crew.testproject.org',
    ]);
    assert.deepEqual((parse(text(host, 'config/webhook/kustomization.yaml')) as { resources: string[] }).resources, [
      'manifests.yaml',
      'service.yaml',
    ]);
    assert.deepEqual(
      (parse(text(host, 'config/network-policy/kustomization.yaml')) as { resources: string[] }).resources,
      ['allow-metrics-traffic.yaml', 'allow-webhook-traffic.yaml'],
    );
    assert.deepEqual(
      (parse(text(host, 'config/crd/kustomization.yaml')) as { configurations: string[] }).configurations,
      ['kustomizeconfig.yaml'],
    );
    assert.match(
      text(host, 'config/network-policy/allow-webhook-traffic.yaml'),
      /matchLabels:\n {10}webhook: enabled\n/,
    );
    const patch = parseAllDocuments(text(host, 'config/default/manager_webhook_patch.yaml'))[0].toJS() as {
      value: unknown;
    }[];
    assert.ok(
      patch.some((op) => op.value === '--webhook-port=9443'),
      'the manager is given --webhook-port',
    );
  });

  it('project-v4: src/main.ts registers each Kind once, unless ENABLE_WEBHOOKS=false', async () => {
    const { host } = await scaffold(CASES[0]);
    const main = text(host, 'src/main.ts');
    for (const kind of ['Captain', 'FirstMate', 'Sailor', 'Admiral', 'Pod', 'Deployment']) {
      assert.equal(
        main.match(
          new RegExp(
            `^import \\{ setup${kind}WebhookWithManager \\} from './webhook/v1/${kind.toLowerCase()}_webhook\\.js';$`,
            'gm',
          ),
        )?.length,
        1,
        kind,
      );
      assert.equal(
        main.match(
          new RegExp(
            `^ {2}if \\(process\\.env\\.ENABLE_WEBHOOKS !== 'false'\\) setup${kind}WebhookWithManager\\(mgr\\);$`,
            'gm',
          ),
        )?.length,
        1,
        kind,
      );
    }
    assert.match(
      main,
      /webhookServer: newWebhookServer\(\{\n\s+port: webhookPort,\n\s+certDir: flags\['webhook-cert-path'\] \|\| undefined,/,
    );
    assert.match(main, /mgr\.addReadyzCheck\('webhook', mgr\.getWebhookServer\(\)\.startedChecker\(\)\);/);
  });

  it('project-v4: the builder chains and the @Webhook paths follow the flags', async () => {
    const { host } = await scaffold(CASES[0]);
    const sailor = text(host, 'src/webhook/v1/sailor_webhook.ts');
    assert.match(
      sailor,
      /\.for\(Sailor\)\n\s+\.withDefaulter\(new SailorCustomDefaulter\(\)\)\n\s+\.withDefaulterCustomPath\('\/custom-mutate-sailor'\)\n\s+\.withValidator\(new SailorCustomValidator\(\)\)\n\s+\.withValidatorCustomPath\('\/custom-validate-sailor'\)\n\s+\/\/ \+kubebuilder:scaffold:webhook-builder\n\s+\.complete\(\);/,
    );
    assert.match(sailor, /path: '\/custom-mutate-sailor',\n {2}mutating: true,/);
    const pod = text(host, 'src/webhook/v1/pod_webhook.ts');
    assert.match(pod, /export const Pod: TypeDescriptor = \{ apiVersion: 'v1', kind: 'Pod' \};/);
    assert.match(pod, /\.for<V1Pod>\(Pod\)/);
    assert.match(pod, /path: '\/mutate--v1-pod',[\s\S]*groups: \[''\],[\s\S]*name: 'mpod-v1\.kb\.io',/);
    assert.match(pod, /export class PodCustomDefaulter implements CustomDefaulter<V1Pod> \{/);
    const firstmate = text(host, 'src/webhook/v1/firstmate_webhook.ts');
    assert.match(firstmate, /\.for\(FirstMate\)\n\s+\.withConversion\(FirstMateV2, firstMateConversionV2\)\n/);
    assert.match(
      firstmate,
      /^import \{ firstMateConversion as firstMateConversionV2 \} from '\.\.\/\.\.\/api\/v2\/firstmate_conversion\.js';$/m,
    );
    const hub = text(host, 'src/api/v1/firstmate_types.ts');
    assert.match(
      hub,
      /^@Root\(\)\n@SubresourceStatus\(\)\n@StorageVersion\(\)\n@ConversionWebhook\(\)\nexport class FirstMate \{$/m,
    );
    assert.match(
      hub,
      /^import \{ ConversionWebhook, ListMapKey, ListType, Root, StorageVersion, SubresourceStatus \} from 'kubeforge\/markers';$/m,
    );
    assert.doesNotMatch(text(host, 'src/api/v2/firstmate_types.ts'), /StorageVersion|ConversionWebhook/);
    assert.match(
      text(host, 'src/api/v2/firstmate_conversion.ts'),
      /export const firstMateConversion: Conversion<FirstMate, FirstMateV1> = \{/,
    );
    assert.equal(
      defaultWebhookPath('validate', 'crew.testproject.org', 'v1', 'Captain'),
      '/validate-crew-testproject-org-v1-captain',
    );
  });
});

describe('kubeforge create webhook (idempotence and incremental additions)', () => {
  for (const c of CASES) {
    it(`${c.name}: every command run again with --force plans nothing`, async () => {
      const { host } = await scaffold(c);
      const before = new Map(host.files);
      for (const w of c.webhooks) {
        const again = await createWebhook(host, { ...w, force: true });
        assert.deepEqual(again.result.changes, [], `${w.kind}: ${again.out}`);
        assert.equal(again.out, 'Nothing to change.\n');
      }
      assert.deepEqual(host.files, before);
    });
  }

  it('validation first and defaulting later gives both classes, each builder line and import once', async () => {
    const host = await initialised();
    await createApi(host, { group: 'crew', version: 'v1', kind: 'Captain' });
    await createWebhook(host, { group: 'crew', version: 'v1', kind: 'Captain', programmaticValidation: true });
    await createWebhook(host, { group: 'crew', version: 'v1', kind: 'Captain', defaulting: true });
    const file = text(host, 'src/webhook/v1/captain_webhook.ts');
    assert.match(
      file,
      /^import \{ type AdmissionContext, type CustomDefaulter, type CustomValidator, type Manager, type Warnings, webhookManagedBy \} from 'kubeforge\/runtime';$/m,
    );
    assert.equal(file.match(/\.withValidator\(/g)?.length, 1);
    assert.equal(file.match(/\.withDefaulter\(/g)?.length, 1);
    assert.ok(
      file.indexOf('class CaptainCustomValidator') < file.indexOf('class CaptainCustomDefaulter'),
      'added in the order asked',
    );
    // The classes are tested directly in the unit tier; the API server's test needs only the setup.
    const unit = text(host, 'test/webhook/v1/captain_webhook.unit.test.ts');
    assert.match(
      unit,
      /^import \{ CaptainCustomDefaulter, CaptainCustomValidator \} from '\.\.\/\.\.\/\.\.\/src\/webhook\/v1\/captain_webhook\.js';$/m,
    );
    assert.ok(
      unit.indexOf("it('CaptainCustomValidator ") < unit.indexOf("it('CaptainCustomDefaulter "),
      'added in the order asked',
    );
    const test = text(host, 'test/webhook/v1/captain_webhook.test.ts');
    assert.match(
      test,
      /^import \{ setupCaptainWebhookWithManager \} from '\.\.\/\.\.\/\.\.\/src\/webhook\/v1\/captain_webhook\.js';$/m,
    );
    assert.doesNotMatch(test, /CustomDefaulter|CustomValidator|webhook-tests/);
    assert.equal(parseProject(text(host, 'PROJECT')).resources[0].webhooks?.defaulting, true);
  });

  it('a webhook test made before the unit tier keeps its direct tests; a new type is tested in the unit file, nothing twice', async () => {
    const host = await initialised();
    await createApi(host, { group: 'crew', version: 'v1', kind: 'Captain' });
    await createWebhook(host, { group: 'crew', version: 'v1', kind: 'Captain', defaulting: true });
    // The layout of an older kubeforge: the defaulter's direct test in the API server's file.
    const serverPath = 'test/webhook/v1/captain_webhook.test.ts';
    const unitPath = 'test/webhook/v1/captain_webhook.unit.test.ts';
    const direct = must(
      /\n {2}it\('CaptainCustomDefaulter [\s\S]*?\n {2}\}\);\n/.exec(text(host, unitPath)),
      'the CaptainCustomDefaulter test',
    )[0];
    const old = text(host, serverPath).replace(
      '  // +kubebuilder:scaffold:webhook-server-tests',
      `  // +kubebuilder:scaffold:webhook-tests\n${direct}\n  // +kubebuilder:scaffold:webhook-server-tests`,
    );
    host.files.set(serverPath, Buffer.from(old));
    host.files.delete(unitPath);

    const again = await createWebhook(host, {
      group: 'crew',
      version: 'v1',
      kind: 'Captain',
      defaulting: true,
      force: true,
    });
    assert.deepEqual(again.result.changes, [], again.out);
    await createWebhook(host, { group: 'crew', version: 'v1', kind: 'Captain', programmaticValidation: true });
    assert.equal(text(host, serverPath), old, 'the older file is left as it was');
    const unit = text(host, unitPath);
    assert.match(unit, /it\('CaptainCustomValidator allows a valid Captain'/);
    assert.doesNotMatch(unit, /CaptainCustomDefaulter/);
  });

  it("adding a webhook type keeps the user's edits; --force never duplicates or replaces a class", async () => {
    const host = await initialised();
    await createApi(host, { group: 'crew', version: 'v1', kind: 'Captain' });
    await createWebhook(host, { group: 'crew', version: 'v1', kind: 'Captain', defaulting: true });
    const path = 'src/webhook/v1/captain_webhook.ts';
    const edited = text(host, path).replace("    //   obj.spec.foo ??= 'bar';\n", "    obj.spec.foo ??= 'mine';\n");
    host.files.set(path, Buffer.from(edited));
    await createWebhook(host, { group: 'crew', version: 'v1', kind: 'Captain', programmaticValidation: true });
    const after = text(host, path);
    assert.match(after, /obj\.spec\.foo \?\?= 'mine';/);
    assert.match(after, /class CaptainCustomValidator/);
    const again = await createWebhook(host, {
      group: 'crew',
      version: 'v1',
      kind: 'Captain',
      defaulting: true,
      programmaticValidation: true,
      force: true,
    });
    assert.deepEqual(again.result.changes, []);
    assert.equal(text(host, path), after);
  });

  it('--dry-run prints the same plan and writes nothing', async () => {
    const host = await initialised();
    await createApi(host, { group: 'crew', version: 'v1', kind: 'Captain' });
    const before = new Map(host.files);
    const dry = await createWebhook(host, {
      group: 'crew',
      version: 'v1',
      kind: 'Captain',
      defaulting: true,
      dryRun: true,
    });
    assert.deepEqual(host.files, before);
    assert.match(dry.out, /^CREATE src\/webhook\/v1\/captain_webhook\.ts \(\+\d+ lines\)$/m);
    const real = await createWebhook(host, { group: 'crew', version: 'v1', kind: 'Captain', defaulting: true });
    assert.equal(real.out, dry.out);
  });

  it('a second spoke later adds its conversion file, builder line and imports', async () => {
    const host = await initialised();
    for (const v of ['v1', 'v2', 'v3'])
      await createApi(host, { group: 'crew', version: v, kind: 'FirstMate', controller: v === 'v1' });
    await createWebhook(host, { group: 'crew', version: 'v1', kind: 'FirstMate', conversion: true, spoke: ['v2'] });
    const { result } = await createWebhook(host, {
      group: 'crew',
      version: 'v1',
      kind: 'FirstMate',
      conversion: true,
      spoke: ['v3'],
      force: true,
    });
    assert.ok(written(result.changes)['src/api/v3/firstmate_conversion.ts']);
    const file = text(host, 'src/webhook/v1/firstmate_webhook.ts');
    assert.match(
      file,
      /\.withConversion\(FirstMateV2, firstMateConversionV2\)\n\s+\.withConversion\(FirstMateV3, firstMateConversionV3\)/,
    );
    assert.deepEqual(parseProject(text(host, 'PROJECT')).resources[0].webhooks?.spoke, ['v2', 'v3']);
    // The CRD is listed once in the CA injection.
    assert.equal(
      text(host, 'config/default/kustomization.yaml').match(/name: firstmates\.crew\.testproject\.org/g)?.length,
      2,
    );
  });

  it('webhooks for two versions of a Kind are told apart in src/main.ts', async () => {
    const host = await initialised();
    await createApi(host, { group: 'crew', version: 'v1', kind: 'FirstMate' });
    await createApi(host, { group: 'crew', version: 'v2', kind: 'FirstMate', controller: false });
    await createWebhook(host, { group: 'crew', version: 'v1', kind: 'FirstMate', defaulting: true });
    await createWebhook(host, { group: 'crew', version: 'v2', kind: 'FirstMate', defaulting: true });
    const main = text(host, 'src/main.ts');
    assert.match(
      main,
      /^import \{ setupFirstMateWebhookWithManager \} from '\.\/webhook\/v1\/firstmate_webhook\.js';$/m,
    );
    assert.match(
      main,
      /^import \{ setupFirstMateWebhookWithManager as setupFirstMateV2WebhookWithManager \} from '\.\/webhook\/v2\/firstmate_webhook\.js';$/m,
    );
    assert.match(
      main,
      /setupFirstMateWebhookWithManager\(mgr\);\n\s+if \(process\.env\.ENABLE_WEBHOOKS !== 'false'\) setupFirstMateV2WebhookWithManager\(mgr\);/,
    );
  });
});

describe('kubeforge create api: a second version of a Kind gets a storage version', () => {
  it('the first version gets @StorageVersion() in the same plan; a third version adds nothing more', async () => {
    const host = await initialised();
    await createApi(host, { group: 'crew', version: 'v1', kind: 'FirstMate' });
    const { result, err } = await createApi(host, {
      group: 'crew',
      version: 'v2',
      kind: 'FirstMate',
      controller: false,
    });
    assert.ok(result.changes.some((c) => c.kind === 'update' && c.path === 'src/api/v1/firstmate_types.ts'));
    assert.match(err, /added @StorageVersion\(\) to FirstMate v1/);
    assert.match(
      text(host, 'src/api/v1/firstmate_types.ts'),
      /^@SubresourceStatus\(\)\n@StorageVersion\(\)\nexport class FirstMate \{$/m,
    );
    assert.match(
      text(host, 'src/api/v1/firstmate_types.ts'),
      /import \{ ListMapKey, ListType, Root, StorageVersion, SubresourceStatus \} from 'kubeforge\/markers';/,
    );
    const third = await createApi(host, { group: 'crew', version: 'v3', kind: 'FirstMate', controller: false });
    assert.ok(
      !third.result.changes.some(
        (c) => c.path.endsWith('v1/firstmate_types.ts') || c.path.endsWith('v2/firstmate_types.ts'),
      ),
    );
    assert.doesNotMatch(text(host, 'src/api/v3/firstmate_types.ts'), /StorageVersion/);
  });

  it('a version already marked is left alone', async () => {
    const host = await initialised();
    await createApi(host, { group: 'crew', version: 'v1', kind: 'FirstMate' });
    const path = 'src/api/v1/firstmate_types.ts';
    host.files.set(
      path,
      Buffer.from(
        text(host, path)
          .replace('@Root()\n', '@Root()\n@StorageVersion()\n')
          .replace('Root, SubresourceStatus', 'Root, StorageVersion, SubresourceStatus'),
      ),
    );
    const before = text(host, path);
    const { result } = await createApi(host, { group: 'crew', version: 'v2', kind: 'FirstMate', controller: false });
    assert.ok(!result.changes.some((c) => c.path === path));
    assert.equal(text(host, path), before);
  });
});

describe('kubeforge create webhook (bad input: clear message, nothing written)', () => {
  const bad: { name: string; options: CreateWebhookOptions; codes: string[]; message: RegExp; hint?: RegExp }[] = [
    {
      name: 'no webhook type',
      options: { group: 'crew', version: 'v1', kind: 'Captain' },
      codes: ['KF1060'],
      message: /no webhook type chosen/,
      hint: /--defaulting --programmatic-validation/,
    },
    {
      name: 'missing flags',
      options: { defaulting: true },
      codes: ['KF1041', 'KF1041', 'KF1041'],
      message: /missing --group/,
    },
    {
      name: 'unknown Kind',
      options: { group: 'crew', version: 'v1', kind: 'Pirate', defaulting: true },
      codes: ['KF1061'],
      message: /there is no API Pirate \(crew\/v1\) in PROJECT/,
      hint: /kubeforge create api --group crew --version v1 --kind Pirate/,
    },
    {
      name: 'unknown version of a Kind',
      options: { group: 'crew', version: 'v9', kind: 'Captain', defaulting: true },
      codes: ['KF1061'],
      message: /no API Captain \(crew\/v9\)/,
      hint: /versions v1/,
    },
    {
      name: 'path without a slash',
      options: { group: 'crew', version: 'v1', kind: 'Captain', defaulting: true, defaultingPath: 'mutate' },
      codes: ['KF1065'],
      message: /must start with "\/"/,
    },
    {
      name: 'path with spaces',
      options: { group: 'crew', version: 'v1', kind: 'Captain', programmaticValidation: true, validationPath: '/a b' },
      codes: ['KF1065'],
      message: /only letters, digits/,
    },
    {
      name: 'path without its type',
      options: { group: 'crew', version: 'v1', kind: 'Captain', programmaticValidation: true, defaultingPath: '/m' },
      codes: ['KF1065'],
      message: /--defaulting is not given/,
    },
    {
      name: 'one path for both',
      options: {
        group: 'crew',
        version: 'v1',
        kind: 'Captain',
        defaulting: true,
        programmaticValidation: true,
        defaultingPath: '/x',
        validationPath: '/x',
      },
      codes: ['KF1065'],
      message: /share the path \/x/,
    },
    {
      name: 'conversion of a Kind with one version',
      options: { group: 'crew', version: 'v1', kind: 'Captain', conversion: true, spoke: ['v2'] },
      codes: ['KF1063'],
      message: /Captain has one version \(v1\)/,
      hint: /create api --group crew --version v2 --kind Captain/,
    },
    {
      name: 'conversion without --spoke',
      options: { group: 'crew', version: 'v1', kind: 'FirstMate', conversion: true },
      codes: ['KF1063'],
      message: /needs --spoke/,
      hint: /--spoke v2/,
    },
    {
      name: 'spoke not in PROJECT',
      options: { group: 'crew', version: 'v1', kind: 'FirstMate', conversion: true, spoke: ['v3'] },
      codes: ['KF1063'],
      message: /has no version v3 of FirstMate \(it has v1, v2\)/,
    },
    {
      name: 'spoke is the hub',
      options: { group: 'crew', version: 'v1', kind: 'FirstMate', conversion: true, spoke: ['v1'] },
      codes: ['KF1063'],
      message: /--spoke v1 is the hub itself/,
    },
    {
      name: '--spoke without --conversion',
      options: { group: 'crew', version: 'v1', kind: 'FirstMate', defaulting: true, spoke: ['v2'] },
      codes: ['KF1063'],
      message: /--spoke only goes with --conversion/,
    },
    {
      name: 'conversion of a built-in Kind',
      options: { group: 'apps', version: 'v1', kind: 'Deployment', conversion: true, spoke: ['v1beta1'] },
      codes: ['KF1063'],
      message: /the API server itself converts/,
    },
    {
      name: 'a --plural that is not the recorded one',
      options: { group: 'crew', version: 'v1', kind: 'Captain', plural: 'captainz', defaulting: true },
      codes: ['KF1067'],
      message: /--plural captainz differs from the resource name of Captain, "captains"/,
    },
  ];
  for (const b of bad) {
    it(`${b.name}: ${b.codes.join(', ')}`, async () => {
      const host = await initialised();
      await createApi(host, { group: 'crew', version: 'v1', kind: 'Captain' });
      await createApi(host, { group: 'crew', version: 'v1', kind: 'FirstMate' });
      await createApi(host, { group: 'crew', version: 'v2', kind: 'FirstMate', controller: false });
      const before = new Map(host.files);
      const e = await expectDiagnostics(createWebhook(host, b.options), b.codes);
      assert.match(e.diagnostics[0].message, b.message);
      if (b.hint) assert.match(e.diagnostics[0].hint ?? '', b.hint);
      assert.deepEqual(host.files, before, 'nothing written');
    });
  }

  it('a webhook type the Kind already has needs --force, located at its PROJECT entry', async () => {
    const host = await initialised();
    await createApi(host, { group: 'crew', version: 'v1', kind: 'Captain' });
    await createWebhook(host, { group: 'crew', version: 'v1', kind: 'Captain', defaulting: true });
    const before = new Map(host.files);
    const e = await expectDiagnostics(
      createWebhook(host, {
        group: 'crew',
        version: 'v1',
        kind: 'Captain',
        defaulting: true,
        programmaticValidation: true,
      }),
      ['KF1062'],
    );
    assert.match(e.diagnostics[0].message, /Captain \(crew\/v1\) already has a defaulting webhook/);
    assert.equal(e.diagnostics[0].file, 'PROJECT');
    assert.equal(text(host, 'PROJECT').split('\n')[(e.diagnostics[0].line ?? 0) - 1], '- api:');
    assert.match(must(e.diagnostics[0].hint, 'e.diagnostics[0].hint'), /--force/);
    assert.deepEqual(host.files, before);
  });

  it('conversion with another version as storage version names it (KF1064); nothing written', async () => {
    const host = await initialised();
    await createApi(host, { group: 'crew', version: 'v1', kind: 'FirstMate' });
    await createApi(host, { group: 'crew', version: 'v2', kind: 'FirstMate', controller: false });
    const before = new Map(host.files);
    const e = await expectDiagnostics(
      createWebhook(host, { group: 'crew', version: 'v2', kind: 'FirstMate', conversion: true, spoke: ['v1'] }),
      ['KF1064'],
    );
    assert.match(
      e.diagnostics[0].message,
      /FirstMate v1 is the storage version \(@StorageVersion\(\) in src\/api\/v1\/firstmate_types\.ts\), so it must be the hub, not v2/,
    );
    assert.equal(e.diagnostics[0].file, 'src/api/v1/firstmate_types.ts');
    assert.equal(
      text(host, 'src/api/v1/firstmate_types.ts').split('\n')[must(e.diagnostics[0].line, 'e.diagnostics[0].line') - 1],
      '@StorageVersion()',
    );
    assert.match(must(e.diagnostics[0].hint, 'e.diagnostics[0].hint'), /--version v1 --spoke v2/);
    assert.deepEqual(host.files, before);
  });

  it('a removed builder marker is located (KF1201); nothing written', async () => {
    const host = await initialised();
    await createApi(host, { group: 'crew', version: 'v1', kind: 'Captain' });
    await createWebhook(host, { group: 'crew', version: 'v1', kind: 'Captain', defaulting: true });
    const path = 'src/webhook/v1/captain_webhook.ts';
    host.files.set(path, Buffer.from(text(host, path).replace('    // +kubebuilder:scaffold:webhook-builder\n', '')));
    const before = new Map(host.files);
    const e = await expectDiagnostics(
      createWebhook(host, { group: 'crew', version: 'v1', kind: 'Captain', programmaticValidation: true }),
      ['KF1201'],
    );
    assert.equal(e.diagnostics[0].file, path);
    assert.deepEqual(host.files, before);
  });
});

describe('switching on commented YAML', () => {
  it('uncommentLines switches on consecutive lines once; uncommentBlock stops at a blank line and keeps prose and markers', () => {
    const t = 'a:\n#configurations:\n#- kustomizeconfig.yaml\n';
    const on = must(
      uncommentLines(t, ['configurations:', '- kustomizeconfig.yaml']),
      "uncommentLines(t, ['configurations:', '- kustomizeconfig.yaml'])",
    );
    assert.equal(on, 'a:\nconfigurations:\n- kustomizeconfig.yaml\n');
    assert.equal(uncommentLines(on, ['configurations:', '- kustomizeconfig.yaml']), on);
    assert.equal(uncommentLines('a: 1\n', ['- x']), undefined);
    const block =
      '# [TAG] prose line\n#- source:\n#    kind: X\n#  targets:\n# +kubebuilder:scaffold:here\n\n#- other: 1\n';
    const b = must(uncommentBlock(block, '# [TAG]'), "uncommentBlock(block, '# [TAG]')");
    assert.equal(
      b,
      '# [TAG] prose line\n- source:\n    kind: X\n  targets:\n# +kubebuilder:scaffold:here\n\n#- other: 1\n',
    );
    assert.equal(uncommentBlock(b, '# [TAG]'), b);
    assert.equal(uncommentBlock(block, '# [NONE]'), undefined);
  });
});

describe('kubeforge create webhook in a project init made before it', () => {
  it('adds --webhook-port to the manager patch when the manager takes it, and warns about config pieces it cannot find', async () => {
    const host = await initialised();
    await createApi(host, { group: 'crew', version: 'v1', kind: 'Captain' });
    const patch = 'config/default/manager_webhook_patch.yaml';
    host.files.set(
      patch,
      Buffer.from(
        text(host, patch).replace(
          '- op: add\n  path: /spec/template/spec/containers/0/args/-\n  value: --webhook-port=9443\n',
          '',
        ),
      ),
    );
    const def = 'config/default/kustomization.yaml';
    host.files.set(def, Buffer.from(text(host, def).replace('# [CERTMANAGER-MUTATING]', '# [OTHER]')));
    const { err } = await createWebhook(host, { group: 'crew', version: 'v1', kind: 'Captain', defaulting: true });
    assert.match(
      text(host, patch),
      /value: --webhook-cert-path=\/tmp\/k8s-webhook-server\/serving-certs\n- op: add\n {2}path: \/spec\/template\/spec\/containers\/0\/args\/-\n {2}value: --webhook-port=9443\n/,
    );
    assert.match(err, /warning: config\/default\/kustomization\.yaml: no \[CERTMANAGER-MUTATING\] block to switch on/);
    const again = await createWebhook(host, {
      group: 'crew',
      version: 'v1',
      kind: 'Captain',
      defaulting: true,
      force: true,
    });
    assert.deepEqual(again.result.changes, []);
  });
});

describe('kubeforge create webhook (Kinds named like a name of the scaffolded files)', () => {
  it('imports clashing names under aliases and renames the test helper', async () => {
    const host = await initialised();
    const g = { group: 'crew', version: 'v1' };
    for (const kind of ['Warnings', 'WebhookServer', 'StorageVersion']) {
      await createApi(host, { ...g, kind });
      await createWebhook(host, { ...g, kind, defaulting: true, programmaticValidation: true });
    }
    await createApi(host, { ...g, version: 'v2', kind: 'StorageVersion', controller: false });
    await createWebhook(host, { ...g, kind: 'StorageVersion', conversion: true, spoke: ['v2'] });
    const read = (path: string) => must(host.read(path), path).toString('utf8');
    const warnings = read('src/webhook/v1/warnings_webhook.ts');
    assert.match(warnings, /import \{ Warnings as WarningsKind \} from '\.\.\/\.\.\/api\/v1\/warnings_types\.js';/);
    assert.match(warnings, /validateCreate\(obj: WarningsKind, ctx: AdmissionContext\): Warnings \| void/);
    assert.match(warnings, /export class WarningsCustomValidator implements CustomValidator<WarningsKind>/);
    const server = read('test/webhook/v1/webhookserver_webhook.test.ts');
    assert.match(server, /const newWebhookServerObject = \(name: string\): WebhookServer => \(\{/);
    assert.match(server, /newWebhookServer\(env\.webhookServerOptions\(\)\)/);
    // The hub declares a class StorageVersion: the markers of the same names come in under aliases.
    const hub = read('src/api/v1/storageversion_types.ts');
    assert.match(hub, /StorageVersion as StorageVersionMarker/);
    assert.match(hub, /@StorageVersionMarker\(\)\n@ConversionWebhook\(\)\nexport class StorageVersion \{/);
  });
});
