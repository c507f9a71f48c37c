import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parse } from 'yaml';
import { type Diagnostic, DiagnosticError, type Reporter } from '../../src/diagnostics/index.js';
import { type AnalysisResult, type Analyzer, runManifests } from '../../src/manifests/pipeline.js';
import { type ManifestsFlags, manifestsCommand } from '../../src/cli/commands/manifests.js';
import type { CommandIo } from '../../src/machinery/runner.js';
import {
  crdFiles,
  crdGenerator,
  type Generator,
  rbacGenerator,
  webhookGenerator,
} from '../../src/manifests/generators.js';
import type { MarkerUse } from '../../src/manifests/markeruse.js';
import type { CRDManifest } from '../../src/manifests/crd.js';
import { GENERATED_HEADER, existingManagedFiles, formatPlan } from '../../src/manifests/managed-files.js';
import { MemoryHost } from '../../src/machinery/index.js';
import { treeHash } from '../helpers/tree.js';

// Two of controller-gen's reference CRDs (controller-tools' test data), as analysis results.
const conformance = join(process.env.KUBEFORGE_REPO_ROOT ?? process.cwd(), 'test/fixtures/manifests/conformance');
const jobsYaml = readFileSync(join(conformance, 'testdata.kubebuilder.io_jobs/expected.yaml'), 'utf8');
const foosYaml = readFileSync(join(conformance, 'bar.example.com_foos/expected.yaml'), 'utf8');

const tmpRoots: string[] = [];
after(() => {
  for (const d of tmpRoots) rmSync(d, { recursive: true, force: true });
});

function project(): string {
  const dir = mkdtempSync(join(tmpdir(), 'kf-manifests-'));
  tmpRoots.push(dir);
  writeFileSync(
    join(dir, 'tsconfig.json'),
    '{\n  // comments are allowed\n  "compilerOptions": { "outDir": "dist" },\n  "include": ["src/**/*.ts",],\n}\n',
  );
  writeFileSync(join(dir, 'package.json'), '{"name":"demo","private":true}\n');
  mkdirSync(join(dir, 'src/api/v1'), { recursive: true });
  mkdirSync(join(dir, 'src/controller'), { recursive: true });
  writeFileSync(
    join(dir, 'src/api/v1/groupversion.ts'),
    "export const groupVersion = { group: 'testdata.kubebuilder.io', version: 'v1' };\n",
  );
  writeFileSync(join(dir, 'src/controller/job.ts'), 'export class JobReconciler {}\n');
  return dir;
}

const at = <N extends MarkerUse['marker']>(
  marker: N,
  args: unknown,
  line: number,
  target = 'JobReconciler',
): MarkerUse<N> => ({ marker, args, target, file: 'src/controller/job.ts', line, column: 1 }) as MarkerUse<N>;

/** What the injected analysis finds: ready-made CRDs (controller-gen's own) instead of Kinds, and its diagnostics. */
interface Fake {
  crds: CRDManifest[];
  rbac: MarkerUse<'Rbac'>[];
  webhooks: MarkerUse<'Webhook'>[];
  webhookConfigurations: MarkerUse<'WebhookConfiguration'>[];
  diagnostics: Diagnostic[];
  inputFiles: string[];
}

/** The fake as an analyzer hands it on: its diagnostics reported, its CRDs carried for {@link fixedCrds}. */
function asResult(f: Fake, reporter: Reporter): AnalysisResult {
  for (const d of f.diagnostics) reporter.report(d);
  const result: AnalysisResult & { crds: Fake['crds'] } = {
    ...f,
    markers: { class: [...f.rbac, ...f.webhooks, ...f.webhookConfigurations] },
    kinds: [],
    generatorVersion: 'v0',
    rel: (p) => p,
  };
  return result;
}

/** The CRD generator's file step over the fake's ready-made CRDs; RBAC and webhooks are the real generators. */
const fixedCrds: Generator = {
  name: 'crd',
  manages: crdGenerator.manages,
  generate: (input, reporter) => crdFiles((input as unknown as Fake).crds, reporter),
};
const GENERATORS = [fixedCrds, rbacGenerator, webhookGenerator];

function fakeAnalysis(overrides: Partial<Fake> = {}): Fake {
  return {
    crds: [parse(jobsYaml) as CRDManifest, parse(foosYaml) as CRDManifest],
    rbac: [at('Rbac', { groups: ['batch'], resources: ['jobs'], verbs: ['get', 'list', 'watch'] }, 3)],
    webhooks: [
      at(
        'Webhook',
        {
          path: '/validate-batch-v1-job',
          mutating: false,
          failurePolicy: 'Fail',
          sideEffects: 'None',
          groups: ['batch'],
          resources: ['jobs'],
          verbs: ['create'],
          versions: ['v1'],
          name: 'vjob.kb.io',
          admissionReviewVersions: ['v1'],
        },
        8,
        'JobWebhook',
      ),
    ],
    webhookConfigurations: [],
    diagnostics: [],
    inputFiles: [],
    ...overrides,
  };
}

class Harness {
  calls = 0;
  out = '';
  err = '';
  constructor(
    readonly dir: string,
    public analysis: Fake = fakeAnalysis(),
  ) {}
  readonly analyzer: Analyzer = async (o, reporter) => {
    this.calls++;
    assert.equal(o.projectDir, this.dir);
    return asResult(this.analysis, reporter);
  };
  get io(): CommandIo {
    return {
      cwd: this.dir,
      color: false,
      out: (t) => {
        this.out += t;
      },
      err: (t) => {
        this.err += t;
      },
    };
  }
  async run(flags: ManifestsFlags = {}): Promise<DiagnosticError | undefined> {
    this.out = '';
    this.err = '';
    try {
      await manifestsCommand(flags, this.io, this.analyzer, GENERATORS);
      return undefined;
    } catch (e) {
      if (e instanceof DiagnosticError) return e;
      throw e;
    }
  }
  read(rel: string): string {
    return readFileSync(join(this.dir, rel), 'utf8');
  }
}

describe('kubeforge manifests pipeline (analysis injected)', () => {
  it('writes every managed file with the generated header, CRDs byte-identical to controller-gen', async () => {
    const h = new Harness(project());
    assert.equal(await h.run(), undefined);
    assert.equal(
      h.out,
      [
        'CREATE config/crd/bases/bar.example.com_foos.yaml (+57 lines)',
        'CREATE config/crd/bases/testdata.kubebuilder.io_jobs.yaml (+80 lines)',
        'CREATE config/rbac/role.yaml (+15 lines)',
        'CREATE config/webhook/manifests.yaml (+26 lines)',
        '',
      ].join('\n'),
    );
    assert.equal(h.read('config/crd/bases/testdata.kubebuilder.io_jobs.yaml'), GENERATED_HEADER + jobsYaml);
    assert.equal(h.read('config/crd/bases/bar.example.com_foos.yaml'), GENERATED_HEADER + foosYaml);
    const role = h.read('config/rbac/role.yaml');
    assert.ok(role.startsWith(`${GENERATED_HEADER}---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\n`));
    assert.deepEqual(parse(role.slice(GENERATED_HEADER.length)).rules, [
      { apiGroups: ['batch'], resources: ['jobs'], verbs: ['get', 'list', 'watch'] },
    ]);
    assert.match(h.read('config/webhook/manifests.yaml'), /kind: ValidatingWebhookConfiguration/);
  });

  it('second run with nothing changed: empty plan from the cache, analysis not called', async () => {
    const h = new Harness(project());
    await h.run();
    assert.equal(h.calls, 1);
    const before = treeHashOf(h.dir);
    assert.equal(await h.run(), undefined);
    assert.equal(h.calls, 1, 'the analysis ran although no input changed');
    assert.equal(h.out, 'manifests are up to date\n');
    assert.equal(treeHashOf(h.dir), before);
    // Without the cache the analysis runs and still finds nothing to do (idempotent).
    assert.equal(await h.run({ cache: false }), undefined);
    assert.equal(h.calls, 2);
    assert.equal(h.out, 'manifests are up to date\n');
  });

  it('edited, added and deleted sources, changed flags and edited outputs all invalidate the cache', async () => {
    const h = new Harness(project());
    await h.run();
    let calls = h.calls;
    const expectAnalysed = async (what: string, flags: ManifestsFlags = {}) => {
      await h.run(flags);
      assert.equal(h.calls, calls + 1, `${what} did not invalidate the cache`);
      calls = h.calls;
      await h.run(flags);
      assert.equal(h.calls, calls, `${what}: the cache was not refreshed`);
    };
    writeFileSync(join(h.dir, 'src/controller/job.ts'), 'export class JobReconciler { x = 1 }\n');
    await expectAnalysed('an edited source file');
    writeFileSync(join(h.dir, 'src/api/v1/new_types.ts'), 'export class New {}\n');
    await expectAnalysed('a new source file');
    rmSync(join(h.dir, 'src/api/v1/new_types.ts'));
    await expectAnalysed('a deleted source file');
    writeFileSync(join(h.dir, 'tsconfig.json'), '{"include": ["src/**/*.ts"]}\n');
    await expectAnalysed('an edited tsconfig');
    await expectAnalysed('another generator version', { generatorVersion: '9.9.9' });
    writeFileSync(join(h.dir, 'config/rbac/role.yaml'), `${GENERATED_HEADER}---\n# edited by hand\n`);
    await h.run({ generatorVersion: '9.9.9' });
    assert.equal(h.calls, calls + 1, 'an edited output did not invalidate the cache');
    assert.match(h.out, /^UPDATE config\/rbac\/role.yaml/);
  });

  it('--check writes nothing and fails listing the files that would change; passes when current', async () => {
    const h = new Harness(project());
    const empty = treeHashOf(h.dir);
    const err = await h.run({ check: true });
    assert.ok(err, '--check passed on a project without manifests');
    assert.equal(err.diagnostics[0].code, 'KF4501');
    assert.match(err.diagnostics[0].message, /4 generated manifest files are out of date/);
    assert.match(h.out, /^CREATE config\/crd\/bases\/bar.example.com_foos.yaml \(\+57 lines\)\n/);
    assert.equal(treeHashOf(h.dir), empty, '--check wrote files');
    await h.run();
    assert.equal(await h.run({ check: true }), undefined);
    assert.equal(h.out, 'manifests are up to date\n');
    // Edited under its DO-NOT-EDIT header (without the header it would be a file of the user's: KF4505).
    writeFileSync(join(h.dir, 'config/crd/bases/bar.example.com_foos.yaml'), `${GENERATED_HEADER}changed\n`);
    const drift = treeHashOf(h.dir);
    const err2 = await h.run({ check: true });
    assert.ok(err2);
    assert.equal(h.out, 'UPDATE config/crd/bases/bar.example.com_foos.yaml (+56 -1 lines)\n');
    assert.equal(treeHashOf(h.dir), drift);
    writeFileSync(join(h.dir, 'config/crd/bases/bar.example.com_foos.yaml'), 'changed\n');
    const foreign = await h.run({ check: true });
    assert.equal(foreign?.diagnostics[0].code, 'KF4505');
  });

  it('--dry-run prints the sorted plan and writes nothing', async () => {
    const h = new Harness(project());
    const before = treeHashOf(h.dir);
    assert.equal(await h.run({ dryRun: true }), undefined);
    assert.match(
      h.out,
      /^CREATE config\/crd\/bases\/bar\.example\.com_foos\.yaml \(\+57 lines\)\nCREATE config\/crd\/bases\/testdata/,
    );
    assert.equal(treeHashOf(h.dir), before);
  });

  it('removes managed files it no longer produces, never a user file', async () => {
    const h = new Harness(project());
    await h.run();
    writeFileSync(join(h.dir, 'config/crd/bases/user_owned.yaml'), '# written by hand\n---\nkind: Thing\n');
    h.analysis = fakeAnalysis({ crds: [parse(jobsYaml) as CRDManifest], webhooks: [] });
    assert.equal(await h.run({ cache: false }), undefined);
    assert.equal(
      h.out,
      'DELETE config/crd/bases/bar.example.com_foos.yaml (-57 lines)\nDELETE config/webhook/manifests.yaml (-26 lines)\n',
    );
    assert.ok(!existsSync(join(h.dir, 'config/crd/bases/bar.example.com_foos.yaml')));
    assert.ok(!existsSync(join(h.dir, 'config/webhook/manifests.yaml')));
    assert.ok(existsSync(join(h.dir, 'config/crd/bases/user_owned.yaml')));
    assert.ok(existsSync(join(h.dir, 'config/rbac/role.yaml')), 'role.yaml is always produced');
  });

  it('--paths limits the analysis, updates only the CRDs found, keeps role.yaml, webhooks and other CRDs', async () => {
    const h = new Harness(project());
    await h.run();
    const role = h.read('config/rbac/role.yaml');
    const webhooks = h.read('config/webhook/manifests.yaml');
    const jobs = parse(jobsYaml) as CRDManifest;
    jobs.spec.versions[0].served = false;
    h.analysis = fakeAnalysis({ crds: [jobs], rbac: [], webhooks: [] });
    let seenPaths: string[] | undefined;
    const analyzer: Analyzer = async (o, reporter) => {
      seenPaths = o.paths;
      return asResult(h.analysis, reporter);
    };
    let out = '';
    await manifestsCommand(
      { paths: ['src/api/v1'] },
      {
        ...h.io,
        out: (t) => {
          out += t;
        },
      },
      analyzer,
      GENERATORS,
    );
    assert.deepEqual(seenPaths, [join(h.dir, 'src/api/v1')]);
    assert.equal(out, 'UPDATE config/crd/bases/testdata.kubebuilder.io_jobs.yaml (+1 -1 line)\n');
    assert.match(h.read('config/crd/bases/testdata.kubebuilder.io_jobs.yaml'), /served: false/);
    assert.ok(existsSync(join(h.dir, 'config/crd/bases/bar.example.com_foos.yaml')));
    assert.equal(h.read('config/rbac/role.yaml'), role);
    assert.equal(h.read('config/webhook/manifests.yaml'), webhooks);
  });

  it('on any error: reports all of them (analysis and generators), exits non-zero, writes nothing', async () => {
    const h = new Harness(project());
    await h.run();
    const before = treeHashOf(h.dir);
    h.analysis = fakeAnalysis({
      crds: [],
      diagnostics: [
        {
          code: 'KF3001',
          severity: 'error',
          message: 'unsupported type',
          file: 'src/api/v1/job_types.ts',
          line: 4,
          column: 3,
          hint: 'fix it',
        },
      ],
      rbac: [at('Rbac', { urls: ['/metrics'], verbs: ['get'], namespace: 'system' }, 5)],
      webhooks: [
        at(
          'Webhook',
          {
            mutating: false,
            failurePolicy: 'Fail',
            groups: ['batch'],
            resources: ['jobs'],
            verbs: ['create'],
            versions: ['v1'],
            name: 'vjob.kb.io',
            admissionReviewVersions: ['v1'],
          },
          9,
        ),
      ],
    });
    const err = await h.run({ cache: false });
    assert.ok(err);
    assert.deepEqual(err.diagnostics.map((d) => d.code).sort(), ['KF3001', 'KF4101', 'KF4201', 'KF4201']);
    assert.equal(treeHashOf(h.dir), before);
  });

  it('same input, same bytes: two projects give identical files', async () => {
    const a = new Harness(project());
    const b = new Harness(project());
    await a.run();
    await b.run();
    for (const f of [
      'config/rbac/role.yaml',
      'config/webhook/manifests.yaml',
      'config/crd/bases/testdata.kubebuilder.io_jobs.yaml',
    ]) {
      assert.equal(a.read(f), b.read(f));
      assert.ok(a.read(f).endsWith('\n') && !a.read(f).includes('\r'));
    }
  });
});

describe('kubeforge manifests on the scaffold engine (injected host)', () => {
  const virtualDir = '/virtual/demo';
  const memoryProject = (files: Record<string, string> = {}) =>
    new MemoryHost({ 'tsconfig.json': '{}\n', 'package.json': '{}\n', ...files });
  const analyzer =
    (analysis: Fake = fakeAnalysis()): Analyzer =>
    async (o, reporter) => {
      assert.equal(o.projectDir, virtualDir);
      return asResult(analysis, reporter);
    };
  const wanted = [
    'config/crd/bases/bar.example.com_foos.yaml',
    'config/crd/bases/testdata.kubebuilder.io_jobs.yaml',
    'config/rbac/role.yaml',
    'config/webhook/manifests.yaml',
  ];

  it('plans and writes into a MemoryHost: same files and plan as on disk, idempotent, no cache', async () => {
    const host = memoryProject();
    const dry = await runManifests({ projectDir: virtualDir, host, dryRun: true, generators: GENERATORS }, analyzer());
    assert.equal(dry.written, false);
    assert.deepEqual(Object.keys(host.snapshot()), ['package.json', 'tsconfig.json'], '--dry-run wrote to the host');
    const run = await runManifests({ projectDir: virtualDir, host, generators: GENERATORS }, analyzer());
    assert.equal(run.written, true);
    assert.equal(run.cacheMiss, 'disabled', 'the disk cache is not used for a memory host');
    assert.equal(
      formatPlan(run.changes),
      [
        'CREATE config/crd/bases/bar.example.com_foos.yaml (+57 lines)',
        'CREATE config/crd/bases/testdata.kubebuilder.io_jobs.yaml (+80 lines)',
        'CREATE config/rbac/role.yaml (+15 lines)',
        'CREATE config/webhook/manifests.yaml (+26 lines)',
        '',
      ].join('\n'),
    );
    const files = host.snapshot();
    assert.equal(files['config/crd/bases/testdata.kubebuilder.io_jobs.yaml'], GENERATED_HEADER + jobsYaml);
    assert.equal(files['config/crd/bases/bar.example.com_foos.yaml'], GENERATED_HEADER + foosYaml);
    assert.deepEqual(
      existingManagedFiles(
        host,
        GENERATORS.map((g) => g.manages),
      ),
      wanted,
    );
    const again = await runManifests({ projectDir: virtualDir, host, generators: GENERATORS }, analyzer());
    assert.deepEqual(again.changes, []);
    assert.deepEqual(host.snapshot(), files);
  });

  it('removes only our stale files from the host; a user file with the same kind of name stays', async () => {
    const host = memoryProject();
    await runManifests({ projectDir: virtualDir, host, generators: GENERATORS }, analyzer());
    host.files.set('config/crd/bases/user_owned.yaml', Buffer.from('# written by hand\n---\nkind: Thing\n'));
    host.files.set(
      'config/crd/bases/other_tool.yaml',
      Buffer.from('# Code generated by kubeforge. DO NOT EDIT.\n---\n'),
    );
    const run = await runManifests(
      { projectDir: virtualDir, host, generators: GENERATORS },
      analyzer(fakeAnalysis({ crds: [parse(jobsYaml) as CRDManifest], webhooks: [] })),
    );
    assert.equal(
      formatPlan(run.changes),
      'DELETE config/crd/bases/bar.example.com_foos.yaml (-57 lines)\nDELETE config/webhook/manifests.yaml (-26 lines)\n',
    );
    assert.deepEqual(
      Object.keys(host.snapshot()).filter((p) => p.startsWith('config/')),
      [
        'config/crd/bases/other_tool.yaml',
        'config/crd/bases/testdata.kubebuilder.io_jobs.yaml',
        'config/crd/bases/user_owned.yaml',
        'config/rbac/role.yaml',
      ],
    );
  });

  it('an unwritable path fails validation (KF1101) before anything is written', async () => {
    const host = memoryProject();
    host.readOnly.add('config/webhook');
    const before = host.snapshot();
    await assert.rejects(
      runManifests({ projectDir: virtualDir, host, generators: GENERATORS }, analyzer()),
      (e: unknown) => {
        assert.ok(e instanceof DiagnosticError);
        assert.deepEqual(
          e.diagnostics.map((d) => `${d.code} ${d.message}`),
          ['KF1101 cannot create config/webhook/manifests.yaml: config/webhook/manifests.yaml is read-only'],
        );
        return true;
      },
    );
    assert.deepEqual(host.snapshot(), before);
  });

  it('a write failing halfway is rolled back (KF1102): updates restored, creations and deletions undone', async () => {
    class FailingHost extends MemoryHost {
      failOn?: string;
      override write(path: string, data: Buffer): void {
        if (path === this.failOn) throw new Error('disk full');
        super.write(path, data);
      }
    }
    const host = new FailingHost({ 'tsconfig.json': '{}\n' });
    await runManifests(
      { projectDir: virtualDir, host, generators: GENERATORS },
      analyzer(fakeAnalysis({ crds: [parse(foosYaml) as CRDManifest] })),
    );
    const before = host.snapshot();
    const jobs = parse(jobsYaml) as CRDManifest;
    jobs.spec.versions[0].served = false;
    host.failOn = 'config/webhook/manifests.yaml';
    // Plan: DELETE foos, CREATE jobs, UPDATE role.yaml, then the failing webhook update.
    const analysis = fakeAnalysis({
      crds: [jobs],
      rbac: [],
      webhooks: [
        at(
          'Webhook',
          {
            path: '/v',
            mutating: true,
            failurePolicy: 'Ignore',
            sideEffects: 'None',
            groups: ['batch'],
            resources: ['jobs'],
            verbs: ['update'],
            versions: ['v1'],
            name: 'mjob.kb.io',
            admissionReviewVersions: ['v1'],
          },
          8,
          'JobWebhook',
        ),
      ],
    });
    await assert.rejects(
      runManifests({ projectDir: virtualDir, host, generators: GENERATORS }, analyzer(analysis)),
      /KF1102 writing failed: disk full/,
    );
    assert.deepEqual(host.snapshot(), before);
  });

  it('on disk: a file where a folder is needed fails validation (KF1101), nothing written', async () => {
    const h = new Harness(project());
    writeFileSync(join(h.dir, 'config'), 'not a folder\n');
    const before = treeHashOf(h.dir);
    const err = await h.run();
    assert.ok(err);
    assert.ok(err.diagnostics.length > 0 && err.diagnostics.every((d) => d.code === 'KF1101'), err.message);
    assert.match(
      err.diagnostics[0].message,
      /config is a file, so config\/crd\/bases\/bar\.example\.com_foos\.yaml cannot be created below it/,
    );
    assert.equal(treeHashOf(h.dir), before);
  });
});

/** The project's files, without node_modules and the .kubeforge cache. */
function treeHashOf(dir: string): string {
  return treeHash(dir, ['node_modules', '.kubeforge']);
}
