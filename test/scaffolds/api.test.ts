import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DiagnosticError } from '../../src/diagnostics/index.js';
import { pluralize } from '../../src/manifests/crd.js';
import { parseProject } from '../../src/project/index.js';
import { type Change, MemoryHost } from '../../src/machinery/index.js';
import { type CreateApiOptions, planCreateApi, runCreateApi } from '../../src/scaffolds/api.js';
import { uncommentCrd } from '../../src/scaffolds/api-wiring.js';
import { apiNames } from '../../src/scaffolds/resource-names.js';
import { type InitOptions, runInit } from '../../src/scaffolds/init.js';
import { assertGoldenFile, assertGoldenTree } from '../helpers/golden.js';
import { must } from '../helpers/must.js';

const CWD = '/projects/guestbook';
const quiet = { out: () => {}, err: () => {} };

/** A freshly initialised project in memory (no tarball, no npm install). */
async function initialised(options: Partial<InitOptions> = {}): Promise<MemoryHost> {
  const host = new MemoryHost();
  await runInit(
    {
      domain: 'example.com',
      owner: 'The Guestbook Authors',
      kubeforgeSource: 'registry',
      skipInstall: true,
      ...options,
    },
    { cwd: CWD, host, ...quiet },
  );
  return host;
}

async function createApi(host: MemoryHost, options: CreateApiOptions) {
  const out: string[] = [];
  const err: string[] = [];
  const result = await runCreateApi(options, {
    cwd: CWD,
    host,
    out: (t) => out.push(t),
    err: (t) => err.push(t),
    manifests: false,
  });
  return { result, out: out.join(''), err: err.join('') };
}

/** The files a run created or updated, with their new text. */
function written(changes: readonly Change[]): Record<string, string> {
  return Object.fromEntries(
    changes
      .filter((c) => c.kind !== 'delete')
      .map((c) => [c.path, must(c.content, `the content of ${c.path}`).toString('utf8')]),
  );
}

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

const CASES: { name: string; init?: Partial<InitOptions>; runs: CreateApiOptions[] }[] = [
  { name: 'cronjob', runs: [{ group: 'batch', version: 'v1', kind: 'CronJob' }] },
  {
    name: 'cluster-scoped-plural',
    runs: [
      { group: 'batch', version: 'v1', kind: 'CronJob' },
      { group: 'batch', version: 'v1', kind: 'Fleet', namespaced: false, plural: 'fleetz' },
    ],
  },
  {
    name: 'multigroup',
    init: { multigroup: true, license: 'none' },
    runs: [
      { group: 'ship', version: 'v1beta1', kind: 'Frigate' },
      { group: 'sea', version: 'v1', kind: 'Frigate', controller: true },
    ],
  },
  {
    // Kubebuilder's test/testdata/generate.sh for project-v4: a named controller, the API again with --force, a second controller.
    name: 'controller-name',
    runs: [
      { group: 'crew', version: 'v1', kind: 'Captain', controllerName: 'captain' },
      { group: 'crew', version: 'v1', kind: 'Captain', force: true },
      { group: 'crew', version: 'v1', kind: 'Captain', resource: false, controllerName: 'captain-backup' },
    ],
  },
  {
    name: 'controller-name-multigroup',
    init: { multigroup: true, license: 'none' },
    runs: [
      { group: 'crew', version: 'v1', kind: 'Captain', controllerName: 'captain' },
      { group: 'crew', version: 'v1', kind: 'Captain', resource: false, controllerName: 'captain-backup' },
    ],
  },
  {
    // Kubebuilder's alpha --ssa: PROJECT records api.ssa; the controller applies its condition.
    // A second controller of the Kind (--resource=false) applies too: the Kind's record says so.
    name: 'ssa',
    runs: [
      { group: 'crew', version: 'v1', kind: 'Captain', ssa: true },
      { group: 'crew', version: 'v1', kind: 'Captain', resource: false, controllerName: 'captain-backup' },
    ],
  },
  {
    name: 'core-type-controller',
    runs: [
      { group: 'batch', version: 'v1', kind: 'CronJob' },
      { group: 'apps', version: 'v1', kind: 'Deployment', resource: false },
      { group: 'core', version: 'v1', kind: 'Pod', resource: false },
    ],
  },
  {
    name: 'deploy-image',
    runs: [
      {
        group: 'example.com',
        version: 'v1alpha1',
        kind: 'Memcached',
        plugins: ['deploy-image/v1-alpha'],
        image: 'memcached:1.6.26-alpine3.19',
        imageContainerCommand: 'memcached,--memory-limit=64,-o,modern,-v',
        imageContainerPort: '11211',
        runAsUser: '1001',
      },
      {
        group: 'example.com',
        version: 'v1alpha1',
        kind: 'Busybox',
        plugins: ['deploy-image.go.kubebuilder.io/v1-alpha'],
        image: 'busybox:1.36.1',
      },
    ],
  },
];

describe('kubeforge create api (golden files)', () => {
  for (const c of CASES) {
    it(`${c.name}: what create api writes matches test/golden/api/${c.name}`, async () => {
      const host = await initialised(c.init);
      const initial = new Map(host.files);
      const plans: string[] = [];
      for (const run of c.runs) {
        const { out } = await createApi(host, run);
        plans.push(out);
      }
      // Every file create api created or changed, as it is after the last run.
      const changed: Record<string, string> = {};
      for (const [path, data] of [...host.files].sort(([a], [b]) => (a < b ? -1 : 1))) {
        if (!initial.get(path)?.equals(data)) changed[path] = data.toString('utf8');
      }
      assertGoldenTree(changed, `api/${c.name}/tree`);
      assertGoldenFile(plans.join('---\n'), `api/${c.name}/plan.txt`);
    });
  }

  it('external: controllers for Kinds of other projects (a local type, an npm type, none) match test/golden/api/external', async () => {
    const host = await initialised();
    host.write(
      'src/external/certmanager/v1.ts',
      Buffer.from(
        "import type { KubernetesObject } from '@kubernetes/client-node';\n\nexport interface Certificate extends KubernetesObject {\n  spec?: { secretName?: string };\n}\n",
      ),
    );
    const initial = new Map(host.files);
    const plans: string[] = [];
    const ext = { group: 'cert-manager', version: 'v1', resource: false, externalApiDomain: 'io' };
    for (const run of [
      { ...ext, kind: 'Certificate', externalApiPath: 'src/external/certmanager/v1.ts' },
      {
        ...ext,
        kind: 'Issuer',
        externalApiPath: '@acme/cert-manager-types/v1',
        externalApiModule: '@acme/cert-manager-types@1.2.0',
      },
      // Kubebuilder's own flags: a Go import path and module, recorded; the controller is untyped.
      {
        ...ext,
        kind: 'ClusterIssuer',
        externalApiPath: 'github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1',
        externalApiModule: 'github.com/cert-manager/cert-manager@v1.20.2',
        namespaced: false,
      },
      // A second controller for an external Kind keeps its record.
      {
        group: 'cert-manager',
        version: 'v1',
        kind: 'Certificate',
        resource: false,
        controllerName: 'certificate-audit',
      },
    ] as CreateApiOptions[]) {
      const { out, err } = await createApi(host, run);
      plans.push(out + err);
    }
    const changed: Record<string, string> = {};
    for (const [path, data] of [...host.files].sort(([a], [b]) => (a < b ? -1 : 1))) {
      if (!initial.get(path)?.equals(data)) changed[path] = data.toString('utf8');
    }
    assertGoldenTree(changed, 'api/external/tree');
    assertGoldenFile(plans.join('---\n'), 'api/external/plan.txt');
    assert.ok(
      !Object.keys(changed).some(
        (p) => p.startsWith('config/rbac/') || p.startsWith('config/samples/') || p.startsWith('config/crd/'),
      ),
      'no roles, samples or CRD for an external Kind',
    );
    const project = parseProject(must(host.read('PROJECT'), 'PROJECT').toString());
    assert.deepEqual(project.resources[0], {
      controllers: [{ name: 'certificate' }, { name: 'certificate-audit' }],
      domain: 'io',
      external: true,
      group: 'cert-manager',
      kind: 'Certificate',
      path: 'src/external/certmanager/v1.ts',
      version: 'v1',
    });
    assert.equal(
      JSON.parse(must(host.read('package.json'), 'package.json').toString()).dependencies['@acme/cert-manager-types'],
      '1.2.0',
    );
  });

  it('--dry-run prints the same plan and writes nothing', async () => {
    const host = await initialised();
    const before = new Map(host.files);
    const dry = await createApi(host, { group: 'batch', version: 'v1', kind: 'CronJob', dryRun: true });
    assert.deepEqual(host.files, before);
    assert.match(dry.out, /^CREATE src\/api\/v1\/cronjob_types\.ts \(\+\d+ lines\)$/m);
    const real = await createApi(host, { group: 'batch', version: 'v1', kind: 'CronJob' });
    assert.equal(real.out, dry.out);
  });
});

describe('kubeforge create api (idempotence)', () => {
  for (const c of CASES) {
    it(`${c.name}: every command run again with --force plans nothing`, async () => {
      const host = await initialised(c.init);
      for (const run of c.runs) await createApi(host, run);
      const before = new Map(host.files);
      for (const run of c.runs) {
        const again = await createApi(host, { ...run, force: true });
        assert.deepEqual(again.result.changes, [], `${run.kind}: ${again.out}`);
        assert.equal(again.out, 'Nothing to change.\n');
      }
      assert.deepEqual(host.files, before);
    });
  }

  it("adding a second Kind leaves the first one's insertions and entry alone", async () => {
    const host = await initialised();
    await createApi(host, { group: 'batch', version: 'v1', kind: 'CronJob' });
    await createApi(host, { group: 'batch', version: 'v1', kind: 'Fleet' });
    const main = must(host.read('src/main.ts'), 'src/main.ts').toString();
    assert.equal(main.match(/import \{ CronJobReconciler \}/g)?.length, 1);
    assert.equal(
      main.match(
        /new CronJobReconciler\(mgr\.getClient\(\), mgr\.getEventRecorder\('cronjob-controller'\)\)\.setupWithManager\(mgr\);/g,
      )?.length,
      1,
    );
    assert.ok(main.indexOf('new CronJobReconciler') < main.indexOf('new FleetReconciler'), 'creation order');
    const rbac = must(host.read('config/rbac/kustomization.yaml'), 'config/rbac/kustomization.yaml').toString();
    assert.match(
      rbac,
      /- cronjob_admin_role\.yaml\n- cronjob_editor_role\.yaml\n- cronjob_viewer_role\.yaml\n- fleet_admin_role\.yaml/,
    );
    const project = parseProject(must(host.read('PROJECT'), 'PROJECT').toString());
    assert.deepEqual(
      project.resources.map((r) => r.kind),
      ['CronJob', 'Fleet'],
    );
    const crd = must(host.read('config/crd/kustomization.yaml'), 'config/crd/kustomization.yaml').toString();
    assert.match(
      crd,
      /- bases\/batch\.example\.com_cronjobs\.yaml\n- bases\/batch\.example\.com_fleets\.yaml\n# \+kubebuilder:scaffold:crdkustomizeresource/,
    );
  });

  it('a second version of a Kind gets its own groupversion.ts; --controller=false keeps the one controller', async () => {
    const host = await initialised();
    await createApi(host, { group: 'batch', version: 'v1', kind: 'CronJob' });
    const { result } = await createApi(host, { group: 'batch', version: 'v2', kind: 'CronJob', controller: false });
    const paths = result.changes.map((c) => `${c.kind} ${c.path}`);
    assert.ok(paths.includes('create src/api/v2/groupversion.ts'));
    assert.ok(paths.includes('create src/api/v2/cronjob_types.ts'));
    assert.ok(!paths.some((p) => p.includes('controller') || p.endsWith('src/main.ts')), paths.join('\n'));
    assert.ok(paths.includes('create config/samples/batch_v2_cronjob.yaml'));
    // The CRD file is per group-kind: listed once.
    const crd = must(host.read('config/crd/kustomization.yaml'), 'config/crd/kustomization.yaml').toString();
    assert.equal(crd.match(/batch\.example\.com_cronjobs\.yaml/g)?.length, 1);
    await expectDiagnostics(createApi(host, { group: 'batch', version: 'v3', kind: 'CronJob' }), ['KF1044']);
  });

  it('--resource=false adds a controller to an API created without one', async () => {
    const host = await initialised();
    await createApi(host, { group: 'batch', version: 'v1', kind: 'CronJob', controller: false });
    assert.ok(!must(host.read('src/main.ts'), 'src/main.ts').toString().includes('CronJobReconciler'));
    const { result } = await createApi(host, { group: 'batch', version: 'v1', kind: 'CronJob', resource: false });
    assert.deepEqual(
      result.changes.map((c) => `${c.kind} ${c.path}`),
      [
        'update PROJECT',
        'create src/controller/cronjob_controller.ts',
        'update src/main.ts',
        'create test/controller/cronjob_controller.both.test.ts',
      ],
    );
    const entry = parseProject(must(host.read('PROJECT'), 'PROJECT').toString()).resources[0];
    assert.deepEqual(entry, {
      api: { crdVersion: 'v1', namespaced: true },
      controller: true,
      domain: 'example.com',
      group: 'batch',
      kind: 'CronJob',
      path: 'src/api/v1/cronjob_types.ts',
      version: 'v1',
    });
  });
});

describe('kubeforge create api (bad input: clear message, nothing written)', () => {
  const bad: { name: string; options: CreateApiOptions; codes: string[]; message: RegExp; hint?: RegExp }[] = [
    {
      name: 'upper-case group',
      options: { group: 'Batch', version: 'v1', kind: 'CronJob' },
      codes: ['KF1001'],
      message: /invalid group "Batch": a DNS-1123 subdomain must consist of lower-case letters/,
      hint: /"batch"/,
    },
    {
      name: 'group with an empty part',
      options: { group: 'batch..io', version: 'v1', kind: 'CronJob' },
      codes: ['KF1001'],
      message: /invalid group "batch\.\.io": a DNS-1123 subdomain must not have empty parts/,
    },
    {
      name: 'version without v',
      options: { group: 'batch', version: '1', kind: 'CronJob' },
      codes: ['KF1001'],
      message: /invalid version "1": must be "v" then a number/,
      hint: /"v1alpha1"/,
    },
    {
      name: 'version v1beta',
      options: { group: 'batch', version: 'v1beta', kind: 'CronJob' },
      codes: ['KF1001'],
      message: /invalid version "v1beta"/,
    },
    {
      name: 'lower-case kind',
      options: { group: 'batch', version: 'v1', kind: 'cronJob' },
      codes: ['KF1001'],
      message: /invalid Kind "cronJob": must start with an upper-case letter/,
      hint: /"CronJob"/,
    },
    {
      name: 'kind with a dash',
      options: { group: 'batch', version: 'v1', kind: 'Cron-Job' },
      codes: ['KF1001'],
      message: /may only hold letters and digits; found "-"/,
    },
    {
      name: 'kind ending in List',
      options: { group: 'batch', version: 'v1', kind: 'CronJobList' },
      codes: ['KF1051'],
      message: /--kind CronJobList: a Kind may not end in "List"/,
      hint: /CronJobSet/,
    },
    {
      name: 'kind whose list Kind is too long',
      options: { group: 'batch', version: 'v1', kind: `A${'b'.repeat(59)}` },
      codes: ['KF1051'],
      message: /list Kind Ab+List would be 64 characters/,
      hint: /at most 59/,
    },
    {
      name: 'upper-case plural',
      options: { group: 'batch', version: 'v1', kind: 'CronJob', plural: 'CronJobs' },
      codes: ['KF1001'],
      message: /invalid plural "CronJobs"/,
    },
    { name: 'missing flags', options: {}, codes: ['KF1041', 'KF1041', 'KF1041'], message: /missing --group/ },
    {
      name: 'nothing to scaffold',
      options: { group: 'batch', version: 'v1', kind: 'CronJob', resource: false, controller: false },
      codes: ['KF1045'],
      message: /nothing to scaffold/,
    },
    {
      name: 'every problem at once',
      options: { group: 'B', version: 'x', kind: 'k' },
      codes: ['KF1001', 'KF1001', 'KF1001'],
      message: /group/,
    },
    {
      name: '--ssa without the API',
      options: { group: 'batch', version: 'v1', kind: 'CronJob', resource: false, ssa: true },
      codes: ['KF1096'],
      message: /'--ssa' can only be used when creating an API resource \('--resource=true'\)/,
    },
    {
      name: 'controller for an API that does not exist',
      options: { group: 'webapp', version: 'v1', kind: 'Guestbook', resource: false },
      codes: ['KF1046'],
      message: /--resource=false needs the API of Guestbook/,
      hint: /built-in Kind/,
    },
  ];
  for (const b of bad) {
    it(`${b.name}: ${b.codes.join(', ')}`, async () => {
      const host = await initialised();
      const before = new Map(host.files);
      const e = await expectDiagnostics(createApi(host, b.options), b.codes);
      assert.match(e.diagnostics[0].message, b.message);
      if (b.hint) assert.match(e.diagnostics[0].hint ?? '', b.hint);
      assert.deepEqual(host.files, before, 'nothing written');
    });
  }

  it('no PROJECT file: "run kubeforge init first"', async () => {
    const host = new MemoryHost({ 'README.md': 'hello\n' });
    const e = await expectDiagnostics(createApi(host, { group: 'batch', version: 'v1', kind: 'CronJob' }), ['KF1040']);
    assert.match(must(e.diagnostics[0].hint, 'e.diagnostics[0].hint'), /run kubeforge init first/);
    assert.deepEqual(host.snapshot(), { 'README.md': 'hello\n' });
  });

  it('a PROJECT of another tool (a Go Kubebuilder project) is refused (KF1049)', async () => {
    const host = await initialised();
    host.files.set(
      'PROJECT',
      Buffer.from(
        must(host.read('PROJECT'), 'PROJECT').toString().replace('typescript.kubeforge.io/v1', 'go.kubebuilder.io/v4'),
      ),
    );
    const before = new Map(host.files);
    const e = await expectDiagnostics(createApi(host, { group: 'batch', version: 'v1', kind: 'CronJob' }), ['KF1049']);
    assert.match(e.diagnostics[0].message, /layout go\.kubebuilder\.io\/v4, not typescript\.kubeforge\.io\/v1/);
    assert.deepEqual(host.files, before);
  });

  it('a Kind already in PROJECT needs --force; the message names it', async () => {
    const host = await initialised();
    await createApi(host, { group: 'batch', version: 'v1', kind: 'CronJob' });
    const before = new Map(host.files);
    const e = await expectDiagnostics(createApi(host, { group: 'batch', version: 'v1', kind: 'CronJob' }), [
      'KF1042',
      'KF1042',
    ]);
    assert.match(e.diagnostics[0].message, /the API CronJob \(batch\.example\.com\/v1\) already exists in PROJECT/);
    assert.deepEqual(
      [e.diagnostics[0].file, e.diagnostics[0].line],
      ['PROJECT', 11],
      'located at the entry (the resource line after the header, cliVersion, domain and layout)',
    );
    assert.equal(must(host.read('PROJECT'), 'PROJECT').toString().split('\n')[10], '- api:');
    assert.match(must(e.diagnostics[0].hint, 'e.diagnostics[0].hint'), /--force/);
    assert.deepEqual(host.files, before);
  });

  it('a Kind whose resource name or file name another Kind of the group has is refused (KF1048)', async () => {
    const host = await initialised();
    await createApi(host, { group: 'batch', version: 'v1', kind: 'CronJob' });
    const before = new Map(host.files);
    const plural = await expectDiagnostics(
      createApi(host, { group: 'batch', version: 'v1', kind: 'Schedule', plural: 'cronjobs' }),
      ['KF1048'],
    );
    assert.match(plural.diagnostics[0].message, /resource name "cronjobs", which CronJob/);
    assert.match(must(plural.diagnostics[0].hint, 'plural.diagnostics[0].hint'), /--plural/);
    const spec = await expectDiagnostics(createApi(host, { group: 'batch', version: 'v1', kind: 'CronJobSpec' }), [
      'KF1048',
    ]);
    assert.match(spec.diagnostics[0].message, /would both declare CronJobSpec in src\/api\/v1/);
    const cased = await expectDiagnostics(createApi(host, { group: 'batch', version: 'v2', kind: 'Cronjob' }), [
      'KF1048',
    ]);
    assert.match(cased.diagnostics[0].message, /differs from CronJob .* only in case/);
    assert.deepEqual(host.files, before);
  });

  it('a second group in a single-group project is refused with the way out', async () => {
    const host = await initialised();
    await createApi(host, { group: 'batch', version: 'v1', kind: 'CronJob' });
    const before = new Map(host.files);
    const e = await expectDiagnostics(createApi(host, { group: 'apps', version: 'v1', kind: 'Web' }), ['KF1043']);
    assert.match(must(e.diagnostics[0].hint, 'e.diagnostics[0].hint'), /multigroup: true/);
    assert.deepEqual(host.files, before);
  });

  it('a user file in the way is a conflict (KF1103) unless --force; nothing written', async () => {
    const host = await initialised();
    host.files.set('src/api/v1/cronjob_types.ts', Buffer.from('// mine\n'));
    const before = new Map(host.files);
    const e = await expectDiagnostics(createApi(host, { group: 'batch', version: 'v1', kind: 'CronJob' }), ['KF1103']);
    assert.equal(e.diagnostics[0].file, 'src/api/v1/cronjob_types.ts');
    assert.deepEqual(host.files, before);
    await createApi(host, { group: 'batch', version: 'v1', kind: 'CronJob', force: true });
    assert.match(
      must(host.read('src/api/v1/cronjob_types.ts'), 'src/api/v1/cronjob_types.ts').toString(),
      /export class CronJob \{/,
    );
  });

  it('a removed insertion marker in src/main.ts is located (KF1201); nothing written', async () => {
    const host = await initialised();
    const main = must(host.read('src/main.ts'), 'src/main.ts')
      .toString()
      .replace('  // +kubebuilder:scaffold:builder\n', '');
    host.files.set('src/main.ts', Buffer.from(main));
    const before = new Map(host.files);
    const e = await expectDiagnostics(createApi(host, { group: 'batch', version: 'v1', kind: 'CronJob' }), ['KF1201']);
    assert.equal(e.diagnostics[0].file, 'src/main.ts');
    assert.match(e.diagnostics[0].message, /\+kubebuilder:scaffold:builder/);
    assert.deepEqual(host.files, before);
  });

  it('a missing config/rbac/kustomization.yaml is reported (KF1047); nothing written', async () => {
    const host = await initialised();
    host.files.delete('config/rbac/kustomization.yaml');
    const before = new Map(host.files);
    const e = await expectDiagnostics(createApi(host, { group: 'batch', version: 'v1', kind: 'CronJob' }), ['KF1047']);
    assert.equal(e.diagnostics[0].file, 'config/rbac/kustomization.yaml');
    assert.deepEqual(host.files, before);
  });

  it('a config/default/kustomization.yaml without the #- ../crd line gives a warning, not a failure', async () => {
    const host = await initialised();
    host.files.set('config/default/kustomization.yaml', Buffer.from('resources:\n- ../rbac\n'));
    const { err } = await createApi(host, { group: 'batch', version: 'v1', kind: 'CronJob' });
    assert.match(err, /warning: config\/default\/kustomization\.yaml: no "#- \.\.\/crd" line/);
    assert.equal(
      must(host.read('config/default/kustomization.yaml'), 'config/default/kustomization.yaml').toString(),
      'resources:\n- ../rbac\n',
    );
  });
});

describe('kubeforge create api --plugins deploy-image (bad input: located message with a fix, nothing written)', () => {
  const MEMCACHED = { group: 'cache', version: 'v1alpha1', kind: 'Memcached' };
  const PLUGIN = { ...MEMCACHED, plugins: ['deploy-image/v1-alpha'] };
  const bad: { name: string; options: CreateApiOptions; codes: string[]; message: RegExp; hint: RegExp }[] = [
    {
      name: 'no --image',
      options: PLUGIN,
      codes: ['KF1085'],
      message: /--image is missing/,
      hint: /--image memcached:/,
    },
    {
      name: 'an image with a space',
      options: { ...PLUGIN, image: 'memcached 1.6' },
      codes: ['KF1085'],
      message: /not an image reference/,
      hint: /--image memcached:/,
    },
    {
      name: 'port 0',
      options: { ...PLUGIN, image: 'memcached', imageContainerPort: '0' },
      codes: ['KF1086'],
      message: /--image-container-port "0" is not a port: it must be an integer from 1 to 65535/,
      hint: /11211/,
    },
    {
      name: 'port 65536',
      options: { ...PLUGIN, image: 'memcached', imageContainerPort: '65536' },
      codes: ['KF1086'],
      message: /"65536" is not a port/,
      hint: /11211/,
    },
    {
      name: 'port not a number',
      options: { ...PLUGIN, image: 'memcached', imageContainerPort: '11211a' },
      codes: ['KF1086'],
      message: /"11211a" is not a port/,
      hint: /11211/,
    },
    {
      name: 'run-as-user not an integer',
      options: { ...PLUGIN, image: 'memcached', runAsUser: 'memcache' },
      codes: ['KF1086'],
      message: /--run-as-user "memcache" is not a user id/,
      hint: /--run-as-user 1001/,
    },
    {
      name: 'run-as-user negative',
      options: { ...PLUGIN, image: 'memcached', runAsUser: '-1' },
      codes: ['KF1086'],
      message: /"-1" is not a user id/,
      hint: /1001/,
    },
    {
      name: 'run-as-user root',
      options: { ...PLUGIN, image: 'memcached', runAsUser: '0' },
      codes: ['KF1086'],
      message: /is root/,
      hint: /1001/,
    },
    {
      name: 'an empty command',
      options: { ...PLUGIN, image: 'memcached', imageContainerCommand: ' , ' },
      codes: ['KF1086'],
      message: /--image-container-command is empty/,
      hint: /memcached,--memory-limit=64/,
    },
    {
      name: 'unknown plugin',
      options: { ...MEMCACHED, plugins: ['deploy-imag/v1-alpha'], image: 'memcached' },
      codes: ['KF1070'],
      message: /unknown plugin "deploy-imag\/v1-alpha" for create api/,
      hint: /deploy-image\/v1-alpha/,
    },
    {
      name: 'a plugin of edit',
      options: { ...MEMCACHED, plugins: ['grafana'] },
      codes: ['KF1070'],
      message: /"grafana" is not a plugin of create api/,
      hint: /kubeforge edit --plugins grafana/,
    },
    {
      name: 'the flags without the plugin',
      options: { ...MEMCACHED, image: 'memcached', runAsUser: '1001' },
      codes: ['KF1087'],
      message: /--image, --run-as-user belong to the deploy-image plugin/,
      hint: /--plugins deploy-image\/v1-alpha/,
    },
    {
      name: '--controller=false with the plugin',
      options: { ...PLUGIN, image: 'memcached', controller: false },
      codes: ['KF1088'],
      message: /--controller=false cannot go with it/,
      hint: /leave out --controller=false/,
    },
    {
      name: '--namespaced=false with the plugin',
      options: { ...PLUGIN, image: 'memcached', namespaced: false },
      codes: ['KF1088'],
      message: /--namespaced=false/,
      hint: /leave out/,
    },
    {
      name: 'every problem at once',
      options: { ...PLUGIN, imageContainerPort: 'x', runAsUser: 'y' },
      codes: ['KF1085', 'KF1086', 'KF1086'],
      message: /--image is missing/,
      hint: /--image/,
    },
  ];
  for (const b of bad) {
    it(`${b.name}: ${b.codes.join(', ')}`, async () => {
      const host = await initialised();
      const before = new Map(host.files);
      const e = await expectDiagnostics(createApi(host, b.options), b.codes);
      assert.match(e.diagnostics[0].message, b.message);
      assert.match(e.diagnostics[0].hint ?? '', b.hint);
      assert.deepEqual(host.files, before, 'nothing written');
    });
  }

  it('a manager.yaml without a manager container is located (KF1089); nothing written', async () => {
    const host = await initialised();
    host.files.set(
      'config/manager/manager.yaml',
      Buffer.from(
        must(host.read('config/manager/manager.yaml'), 'config/manager/manager.yaml')
          .toString()
          .replace('name: manager', 'name: operator'),
      ),
    );
    const before = new Map(host.files);
    const e = await expectDiagnostics(createApi(host, { ...PLUGIN, image: 'memcached' }), ['KF1089']);
    assert.equal(e.diagnostics[0].file, 'config/manager/manager.yaml');
    assert.match(must(e.diagnostics[0].hint, 'e.diagnostics[0].hint'), /- name: MEMCACHED_IMAGE\n {4}value: memcached/);
    assert.deepEqual(host.files, before);
  });
});

describe('kubeforge create api --plugins deploy-image (manager.yaml and PROJECT)', () => {
  it('a second Kind adds its variable first in env; scaffolding a Kind again with another image replaces its value and its PROJECT entry', async () => {
    const host = await initialised();
    await createApi(host, {
      group: 'cache',
      version: 'v1',
      kind: 'Memcached',
      plugins: ['deploy-image'],
      image: 'memcached:1.6',
    });
    await createApi(host, {
      group: 'cache',
      version: 'v1',
      kind: 'Redis',
      plugins: ['deploy-image'],
      image: 'redis:7',
    });
    const manager = () => must(host.read('config/manager/manager.yaml'), 'config/manager/manager.yaml').toString();
    assert.match(
      manager(),
      /^ {8}name: manager\n {8}env:\n {8}- name: REDIS_IMAGE\n {10}value: redis:7\n {8}- name: MEMCACHED_IMAGE\n {10}value: memcached:1\.6\n {8}ports:/m,
    );
    const { result } = await createApi(host, {
      group: 'cache',
      version: 'v1',
      kind: 'Memcached',
      plugins: ['deploy-image'],
      image: 'memcached:1.7',
      force: true,
    });
    assert.deepEqual(result.changes.map((c) => `${c.kind} ${c.path}`).sort(), [
      'update PROJECT',
      'update config/manager/manager.yaml',
    ]);
    assert.match(manager(), /- name: MEMCACHED_IMAGE\n {10}value: memcached:1\.7\n/);
    const project = parseProject(must(host.read('PROJECT'), 'PROJECT').toString());
    const plugins = project.extra?.plugins as Record<
      string,
      { resources: { kind: string; options: { image: string } }[] }
    >;
    const plugin = plugins['deploy-image.go.kubebuilder.io/v1-alpha'];
    assert.deepEqual(
      plugin.resources.map((r) => [r.kind, r.options.image]),
      [
        ['Memcached', 'memcached:1.7'],
        ['Redis', 'redis:7'],
      ],
    );
  });
});

describe('kubeforge init --force in a project with Kinds of the deploy-image plugin', () => {
  it('the fresh manager.yaml gets their image variables back, in the same order', async () => {
    const host = await initialised();
    await createApi(host, {
      group: 'cache',
      version: 'v1',
      kind: 'Memcached',
      plugins: ['deploy-image'],
      image: 'memcached:1.6',
    });
    await createApi(host, {
      group: 'cache',
      version: 'v1',
      kind: 'Redis',
      plugins: ['deploy-image'],
      image: 'redis:7',
    });
    const manager = must(host.read('config/manager/manager.yaml'), 'config/manager/manager.yaml').toString();
    await runInit(
      {
        domain: 'example.com',
        owner: 'The Guestbook Authors',
        kubeforgeSource: 'registry',
        skipInstall: true,
        force: true,
      },
      { cwd: CWD, host, ...quiet },
    );
    assert.equal(must(host.read('config/manager/manager.yaml'), 'config/manager/manager.yaml').toString(), manager);
  });
});

describe('kubeforge create api (Kinds named like a name of the scaffolded files)', () => {
  it('imports clashing names under aliases and renames the variables', async () => {
    const host = await initialised();
    await createApi(host, { group: 'batch', version: 'v1', kind: 'V1Condition' });
    await createApi(host, { group: 'batch', version: 'v1', kind: 'Promise' });
    await createApi(host, { group: 'batch', version: 'v1', kind: 'Package' });
    await createApi(host, { group: 'batch', version: 'v1', kind: 'Request' });
    // The test's own names: `api` (startTestAPI's server) and its type TestAPI.
    await createApi(host, { group: 'batch', version: 'v1', kind: 'Api' });
    await createApi(host, { group: 'batch', version: 'v1', kind: 'TestAPI' });
    const read = (path: string) => must(host.read(path), path).toString('utf8');
    const types = read('src/api/v1/v1condition_types.ts');
    assert.match(
      types,
      /import type \{ V1Condition as K8sV1Condition, V1ObjectMeta \} from '@kubernetes\/client-node';/,
    );
    assert.match(types, /conditions\?: K8sV1Condition\[\];/);
    assert.match(types, /export class V1Condition \{/);
    const promise = read('src/controller/promise_controller.ts');
    assert.match(promise, /import \{ Promise as PromiseKind \} from '\.\.\/api\/v1\/promise_types\.js';/);
    assert.match(promise, /async reconcile\(request: Request, ctx: ReconcileContext\): Promise<Result>/);
    assert.match(promise, /\.for\(PromiseKind\)/);
    const pkg = read('src/controller/package_controller.ts');
    assert.match(pkg, /let packageObject: Package;/);
    assert.match(
      read('test/controller/package_controller.both.test.ts'),
      /const packageObject = await client\.get\(Package, request\);/,
    );
    const apiTest = read('test/controller/api_controller.both.test.ts');
    assert.match(apiTest, /let api: TestAPI;/);
    assert.doesNotMatch(apiTest, /const api = await client\.get/, "the Kind's variable is renamed");
    const testApiTest = read('test/controller/testapi_controller.both.test.ts');
    assert.match(testApiTest, /import \{ TestAPI as TestAPIKind \} from/);
    const request = read('src/controller/request_controller.ts');
    assert.match(request, /import \{ Request as RequestKind \}/);
    assert.match(
      request,
      /let requestObject: RequestKind;\n {4}try \{\n {6}requestObject = await this\.client\.get\(RequestKind, request, \{ signal: ctx\.signal \}\);/,
    );
  });
});

describe('kubeforge create api (controllers for built-in Kinds)', () => {
  it('--resource=false on a Kubernetes group scaffolds a controller for the built-in Kind', async () => {
    const host = await initialised();
    const { result } = await createApi(host, { group: 'apps', version: 'v1', kind: 'Deployment', resource: false });
    assert.deepEqual(
      result.changes.map((c) => `${c.kind} ${c.path}`),
      [
        'update PROJECT',
        'create src/controller/deployment_controller.ts',
        'update src/main.ts',
        'create test/controller/deployment_controller.both.test.ts',
      ],
    );
    assert.deepEqual(result.resource, {
      controller: true,
      core: true,
      group: 'apps',
      kind: 'Deployment',
      path: 'k8s.io/api/apps/v1',
      version: 'v1',
    });
    const controller = written(result.changes)['src/controller/deployment_controller.ts'];
    assert.match(
      controller,
      /export const Deployment: TypeDescriptor = \{ apiVersion: 'apps\/v1', kind: 'Deployment' \};/,
    );
    assert.match(controller, /@Rbac\(\{ groups: \['apps'\], resources: \['deployments'\]/);
    // The core group is "" in RBAC and apiVersion "v1".
    const pod = await createApi(host, { group: 'core', version: 'v1', kind: 'Pod', resource: false });
    const podController = written(pod.result.changes)['src/controller/pod_controller.ts'];
    assert.match(podController, /apiVersion: 'v1', kind: 'Pod'/);
    assert.match(podController, /groups: \[''\], resources: \['pods'\]/);
  });

  it("a built-in Kind does not count as a second API group; --resource on a group named like Kubernetes' is the project's own", async () => {
    const host = await initialised();
    await createApi(host, { group: 'apps', version: 'v1', kind: 'Deployment', resource: false });
    const { result } = await createApi(host, { group: 'batch', version: 'v1', kind: 'CronJob' });
    assert.equal(result.resource.domain, 'example.com');
    assert.match(written(result.changes)['src/api/v1/groupversion.ts'], /group: 'batch\.example\.com'/);
  });
});

describe('kubeforge create api (names)', () => {
  it('the default plural is the one kubeforge manifests derives', async () => {
    const host = await initialised();
    const config = parseProject(must(host.read('PROJECT'), 'PROJECT').toString());
    for (const kind of ['CronJob', 'Policy', 'Bus', 'Status', 'Person', 'Box', 'Leaf', 'Data']) {
      const names = apiNames(config, { group: 'batch', version: 'v1', kind, namespaced: true });
      assert.equal(names.plural, pluralize(kind.toLowerCase()), kind);
      assert.equal(names.irregularPlural, false);
    }
    const { resource, changes } = await planCreateApi(
      { group: 'batch', version: 'v1', kind: 'Policy' },
      { cwd: CWD, host, ...quiet },
    );
    assert.equal(resource.plural, undefined, 'a regular plural is not recorded in PROJECT');
    assert.match(written(changes)['config/crd/kustomization.yaml'], /- bases\/batch\.example\.com_policies\.yaml/);
  });

  it('--plural overrides the resource name: @Resource({ path }), PROJECT plural, roles and CRD file', async () => {
    const host = await initialised();
    const { result } = await createApi(host, { group: 'batch', version: 'v1', kind: 'Person', plural: 'persons' });
    assert.equal(result.resource.plural, 'persons');
    const files = written(result.changes);
    assert.match(files['src/api/v1/person_types.ts'], /^@Resource\(\{ path: 'persons' \}\)$/m);
    assert.match(files['src/api/v1/person_types.ts'], /static readonly plural = 'persons';/);
    assert.match(files['config/rbac/person_editor_role.yaml'], /- persons\/status/);
    assert.match(files['src/controller/person_controller.ts'], /resources: \['persons'\]/);
    assert.match(
      must(host.read('config/crd/kustomization.yaml'), 'config/crd/kustomization.yaml').toString(),
      /- bases\/batch\.example\.com_persons\.yaml/,
    );
    // Scaffolding again without --plural keeps the recorded one.
    const again = await createApi(host, { group: 'batch', version: 'v1', kind: 'Person', force: true });
    assert.deepEqual(again.result.changes, []);
  });

  it('an empty group means the domain itself (as Kubebuilder)', async () => {
    const host = await initialised();
    const { result } = await createApi(host, { group: '', version: 'v1', kind: 'Widget' });
    const files = written(result.changes);
    assert.match(files['src/api/v1/groupversion.ts'], /group: 'example\.com', version: 'v1'/);
    assert.ok(files['config/samples/v1_widget.yaml']);
    assert.match(
      must(host.read('config/crd/kustomization.yaml'), 'config/crd/kustomization.yaml').toString(),
      /- bases\/example\.com_widgets\.yaml/,
    );
  });

  it('uncommentCrd switches on "#- ../crd" once and only that line', () => {
    const text = 'resources:\n# [CRD] note\n#- ../crd\n- ../rbac\n#- ../crd-extra\n';
    const once = must(uncommentCrd(text), 'uncommentCrd(text)');
    assert.equal(once, 'resources:\n# [CRD] note\n- ../crd\n- ../rbac\n#- ../crd-extra\n');
    assert.equal(uncommentCrd(once), once);
    assert.equal(uncommentCrd('resources:\n- ../rbac\n'), undefined);
  });
});
