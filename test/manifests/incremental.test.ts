// Incremental `manifests`: after an edit, only the files whose results can have changed are
// analysed again, and the outputs are byte for byte those of a cold run of the edited project.
import assert from 'node:assert/strict';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { after, describe, it } from 'node:test';
import { DiagnosticError, warning } from '../../src/diagnostics/index.js';
import { dependencyParses } from '../../src/loader/program.js';
import { type Analyzer, runManifests } from '../../src/manifests/pipeline.js';
import { crdGenerator, type Generator, rbacGenerator, webhookGenerator } from '../../src/manifests/generators.js';
import { textsUnder } from '../helpers/tree.js';

const made: string[] = [];
after(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

function put(dir: string, files: Record<string, string | null>): void {
  for (const [path, text] of Object.entries(files)) {
    const abs = join(dir, path);
    if (text === null) {
      rmSync(abs);
      continue;
    }
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, text);
    // Made a minute ago: a file modified just before a run starts counts as modified during it.
    const past = new Date(Date.now() - 60_000);
    utimesSync(abs, past, past);
  }
}

function project(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'kf-incremental-'));
  made.push(dir);
  put(dir, files);
  return dir;
}

const gv = (version: string) =>
  `import { defineGroupVersion } from 'kubeforge/markers';\nexport const groupVersion = defineGroupVersion({ group: 'demo.example.com', version: '${version}' });\n`;
const kind = (
  name: string,
  spec: string,
  imports = '',
  classMarkers = '',
) => `import type { V1ObjectMeta } from '@kubernetes/client-node';
import { Maximum, Root, SubresourceStatus${classMarkers.includes('StorageVersion') ? ', StorageVersion' : ''} } from 'kubeforge/markers';
${imports}
export class ${name}Spec {
${spec}
}

/** ${name} is a test Kind. */
@Root()
@SubresourceStatus()
${classMarkers}
export class ${name} {
  metadata?: V1ObjectMeta;
  spec?: ${name}Spec;
  status?: { ready?: boolean };
}
`;
const shared = (extra = '') => `import { MaxLength } from 'kubeforge/markers';

/** Shared is used by several Kinds. */
export class Shared {
  /** A name. */
  @MaxLength(10)
  name?: string;
${extra}
}
`;
const controller = (resources: string) => `import { Rbac } from 'kubeforge/markers';

@Rbac({ groups: ['demo.example.com'], resources: [${resources}], verbs: ['get', 'list'] })
export class Reconciler {}
`;

const base = {
  'tsconfig.json': JSON.stringify({
    compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true },
    include: ['src/**/*.ts'],
  }),
  'package.json': '{"name":"demo","private":true,"type":"module"}\n',
  'src/api/v1/groupversion.ts': gv('v1'),
  'src/api/v2/groupversion.ts': gv('v2'),
  'src/api/v1/shared.ts': shared(),
  'src/api/v1/alpha_types.ts': kind(
    'Alpha',
    '  /** Uses the shared type. */\n  shared?: Shared;',
    "import { Shared } from './shared.js';",
  ),
  'src/api/v1/beta_types.ts': kind(
    'Beta',
    '  /** Uses the shared type too. */\n  shared?: Shared[];',
    "import { Shared } from './shared.js';",
  ),
  'src/api/v1/gamma_types.ts': kind(
    'Gamma',
    '  /** Replicas. */\n  @Maximum(5)\n  replicas?: number;',
    '',
    '@StorageVersion()',
  ),
  'src/api/v2/gamma_types.ts': kind('Gamma', '  /** Replicas. */\n  replicas?: number;'),
  'src/api/v1/delta_types.ts': kind('Delta', '  /** Size. */\n  size?: string;'),
  'src/controller/reconciler.ts': controller("'alphas', 'betas'"),
};

/** The real analysis; remembers which root files it analysed. */
function recordingAnalyzer(): { analyzer: Analyzer; analysed: () => string[] | undefined } {
  let analysed: string[] | undefined;
  const analyzer: Analyzer = async (options, reporter) => {
    const { analyzeProject } = await import('../../src/analysis/analyze.js');
    const select = options.selectRoots;
    analysed = undefined;
    return analyzeProject(
      {
        ...options,
        selectRoots:
          select &&
          ((roots, tools) => {
            const chosen = select(roots, tools);
            analysed = chosen.map((f) => relative(options.projectDir, f).split('\\').join('/')).sort();
            return chosen;
          }),
      },
      reporter,
    );
  };
  return { analyzer, analysed: () => analysed };
}

/** Every file under config/ (path -> text). */
const outputs = (dir: string) => textsUnder(dir, 'config');

/** A cold run of a copy of the project's sources (no cache, no outputs). */
async function coldOutputs(dir: string): Promise<Record<string, string>> {
  const copy = mkdtempSync(join(tmpdir(), 'kf-incremental-cold-'));
  made.push(copy);
  cpSync(join(dir, 'src'), join(copy, 'src'), { recursive: true });
  for (const f of ['tsconfig.json', 'package.json']) cpSync(join(dir, f), join(copy, f));
  await runManifests({ projectDir: copy, generatorVersion: 'test', noCache: true });
  return outputs(copy);
}

describe('incremental manifests', () => {
  it("a process parses its dependencies' declarations once: the next run reuses them, a changed one is read again", async () => {
    const dir = project({
      ...base,
      'node_modules/size-lib/package.json': '{"name":"size-lib","types":"index.d.ts"}\n',
      'node_modules/size-lib/index.d.ts': "export type Size = 's' | 'm';\n",
      'src/api/v1/delta_types.ts': kind(
        'Delta',
        '  /** Size. */\n  size?: Size;',
        "import type { Size } from 'size-lib';",
      ),
    });
    await runManifests({ projectDir: dir, generatorVersion: 'test' });
    const first = { ...dependencyParses };
    put(dir, {
      'src/api/v1/delta_types.ts': kind(
        'Delta',
        '  /** Size, edited. */\n  size?: Size;',
        "import type { Size } from 'size-lib';",
      ),
    });
    await runManifests({ projectDir: dir, generatorVersion: 'test' });
    assert.ok(
      dependencyParses.reused > first.reused,
      'the second run (Delta analysed again) reused parsed declarations',
    );
    assert.equal(dependencyParses.parsed, first.parsed, 'and parsed none again');
    const delta = () => readFileSync(join(dir, 'config/crd/bases/demo.example.com_deltas.yaml'), 'utf8');
    assert.doesNotMatch(delta(), /- xl/);
    put(dir, { 'node_modules/size-lib/index.d.ts': "export type Size = 's' | 'm' | 'xl';\n" });
    await runManifests({ projectDir: dir, generatorVersion: 'test' });
    assert.equal(dependencyParses.parsed, first.parsed + 1, 'the changed declaration file was parsed again');
    assert.match(delta(), /- xl/, 'and the CRD follows it');
  });

  it('an edited Kind file is the only file analysed again, and the outputs equal a cold run', async () => {
    const dir = project(base);
    const { analyzer, analysed } = recordingAnalyzer();
    await runManifests({ projectDir: dir, generatorVersion: 'test' }, analyzer);
    assert.equal(analysed()?.length, 9, 'the first run analyses every root');
    put(dir, {
      'src/api/v1/delta_types.ts': kind(
        'Delta',
        '  /** Size. */\n  size?: string;\n  /** Added. */\n  color?: string;',
      ),
    });
    const run = await runManifests({ projectDir: dir, generatorVersion: 'test' }, analyzer);
    assert.deepEqual(analysed(), ['src/api/v1/delta_types.ts']);
    assert.deepEqual(
      run.changes.map((c) => `${c.kind} ${c.path}`),
      ['update config/crd/bases/demo.example.com_deltas.yaml'],
    );
    assert.match(readFileSync(join(dir, 'config/crd/bases/demo.example.com_deltas.yaml'), 'utf8'), /color:/);
    assert.deepEqual(outputs(dir), await coldOutputs(dir));
  });

  it('an edited shared type file refreshes the Kinds that import it, and only those', async () => {
    const dir = project(base);
    const { analyzer, analysed } = recordingAnalyzer();
    await runManifests({ projectDir: dir, generatorVersion: 'test' }, analyzer);
    put(dir, { 'src/api/v1/shared.ts': shared('  /** Added to the shared type. */\n  weight?: string;') });
    const run = await runManifests({ projectDir: dir, generatorVersion: 'test' }, analyzer);
    assert.deepEqual(analysed(), ['src/api/v1/alpha_types.ts', 'src/api/v1/beta_types.ts', 'src/api/v1/shared.ts']);
    assert.deepEqual(
      run.changes.map((c) => `${c.kind} ${c.path}`),
      ['update config/crd/bases/demo.example.com_alphas.yaml', 'update config/crd/bases/demo.example.com_beta.yaml'],
    );
    assert.deepEqual(outputs(dir), await coldOutputs(dir));
  });

  it('one version of a Kind edited: every version is read again for its one CRD', async () => {
    const dir = project(base);
    const { analyzer, analysed } = recordingAnalyzer();
    await runManifests({ projectDir: dir, generatorVersion: 'test' }, analyzer);
    put(dir, {
      'src/api/v2/gamma_types.ts': kind(
        'Gamma',
        '  /** Replicas. */\n  replicas?: number;\n  /** New in v2. */\n  paused?: boolean;',
      ),
    });
    await runManifests({ projectDir: dir, generatorVersion: 'test' }, analyzer);
    assert.deepEqual(analysed(), ['src/api/v1/gamma_types.ts', 'src/api/v2/gamma_types.ts']);
    assert.deepEqual(outputs(dir), await coldOutputs(dir));
  });

  it('a deleted Kind file removes its CRD; an edited controller rewrites role.yaml', async () => {
    const dir = project(base);
    const { analyzer, analysed } = recordingAnalyzer();
    await runManifests({ projectDir: dir, generatorVersion: 'test' }, analyzer);
    put(dir, { 'src/api/v1/beta_types.ts': null, 'src/controller/reconciler.ts': controller("'alphas'") });
    const run = await runManifests({ projectDir: dir, generatorVersion: 'test' }, analyzer);
    assert.deepEqual(analysed(), ['src/controller/reconciler.ts']);
    assert.deepEqual(
      run.changes.map((c) => `${c.kind} ${c.path}`),
      ['delete config/crd/bases/demo.example.com_beta.yaml', 'update config/rbac/role.yaml'],
    );
    assert.deepEqual(outputs(dir), await coldOutputs(dir));
  });

  it('a CRD edited by hand is regenerated from its files alone', async () => {
    const dir = project(base);
    const { analyzer, analysed } = recordingAnalyzer();
    await runManifests({ projectDir: dir, generatorVersion: 'test' }, analyzer);
    const crd = join(dir, 'config/crd/bases/demo.example.com_alphas.yaml');
    writeFileSync(crd, readFileSync(crd, 'utf8').replace('Uses the shared type.', 'edited'));
    await runManifests({ projectDir: dir, generatorVersion: 'test' }, analyzer);
    assert.deepEqual(analysed(), ['src/api/v1/alpha_types.ts']);
    assert.deepEqual(outputs(dir), await coldOutputs(dir));
  });

  it('a changed file now declaring a Kind an unchanged file declares: planned once more cold (every root analysed), as a cold run', async () => {
    const dir = project(base);
    let attempts = 0;
    const { analyzer: recording, analysed } = recordingAnalyzer();
    const analyzer: Analyzer = (options, reporter) => {
      attempts++;
      return recording(options, reporter);
    };
    await runManifests({ projectDir: dir, generatorVersion: 'test' }, analyzer);
    attempts = 0;
    // A third version of Gamma, in a new file: the CRD needs the kept files of v1 and v2 too.
    put(dir, {
      'src/api/v3/groupversion.ts': gv('v3'),
      'src/api/v3/gamma_types.ts': kind('Gamma', '  /** Replicas. */\n  replicas?: number;'),
    });
    const run = await runManifests({ projectDir: dir, generatorVersion: 'test' }, analyzer);
    assert.equal(attempts, 2, 'a warm attempt, then a cold one');
    assert.equal(analysed()?.length, 11, 'the cold attempt analyses every root');
    assert.deepEqual(
      run.changes.map((c) => `${c.kind} ${c.path}`),
      ['update config/crd/bases/demo.example.com_gammas.yaml'],
    );
    assert.match(readFileSync(join(dir, 'config/crd/bases/demo.example.com_gammas.yaml'), 'utf8'), /name: v3/);
    assert.deepEqual(outputs(dir), await coldOutputs(dir));
  });

  it('a changed Kind writing the path of a kept CRD: planned once more cold, which reports KF4502 as a cold run does, nothing written', async () => {
    const dir = project(base);
    await runManifests({ projectDir: dir, generatorVersion: 'test' });
    const before = outputs(dir);
    put(dir, {
      'src/api/v1/delta_types.ts': kind(
        'Delta',
        '  /** Size. */\n  size?: string;',
        "import { Resource } from 'kubeforge/markers';",
        "@Resource({ path: 'alphas' })",
      ),
    });
    const kf4502 = (e: unknown) =>
      e instanceof DiagnosticError &&
      e.diagnostics.some(
        (d) => d.code === 'KF4502' && /demo\.example\.com_alphas\.yaml: Alpha .* and Delta /.test(d.message),
      );
    let attempts = 0;
    const { analyzer: recording } = recordingAnalyzer();
    const counting: Analyzer = (options, reporter) => {
      attempts++;
      return recording(options, reporter);
    };
    await assert.rejects(runManifests({ projectDir: dir, generatorVersion: 'test' }, counting), kf4502);
    assert.equal(attempts, 2, 'a warm attempt (the kept Alpha CRD collides), then a cold one');
    assert.deepEqual(outputs(dir), before);
    await assert.rejects(runManifests({ projectDir: dir, generatorVersion: 'test', noCache: true }), kf4502);
  });

  it('a failed incremental run writes nothing and leaves no stage folder', async () => {
    const dir = project(base);
    await runManifests({ projectDir: dir, generatorVersion: 'test' });
    const before = outputs(dir);
    put(dir, { 'src/api/v1/delta_types.ts': kind('Delta', '  /** Size. */\n  size?: NoSuchType;') });
    await assert.rejects(runManifests({ projectDir: dir, generatorVersion: 'test' }));
    assert.deepEqual(outputs(dir), before);
    assert.deepEqual(
      existsSync(join(dir, '.kubeforge'))
        ? readdirSync(join(dir, '.kubeforge')).filter((n) => n.startsWith('stage-'))
        : [],
      [],
    );
  });

  it("role.yaml is kept with its warnings while the @Rbac markers are the last run's; edited by hand or by a marker, it is made again", async () => {
    const dir = project(base);
    let calls = 0;
    // The real RBAC generator, counting its calls and reporting a warning of its own.
    const counted: Generator = {
      ...rbacGenerator,
      generate: (input, reporter) => {
        calls++;
        reporter.report(
          warning('KF9999', 'a warning of the RBAC generator', {
            file: join(dir, 'src/controller/reconciler.ts'),
            line: 3,
            column: 1,
          }),
        );
        return rbacGenerator.generate(input, reporter);
      },
    };
    const generators = [crdGenerator, counted, webhookGenerator];
    const run = () => runManifests({ projectDir: dir, generatorVersion: 'test', generators });
    const codes = (r: Awaited<ReturnType<typeof run>>) => r.warnings.map((w) => w.code).filter((c) => c === 'KF9999');
    assert.deepEqual(codes(await run()), ['KF9999']);
    assert.equal(calls, 1);

    put(dir, {
      'src/api/v1/delta_types.ts': kind(
        'Delta',
        '  /** Size. */\n  size?: string;\n  /** Added. */\n  color?: string;',
      ),
    });
    const kept = await run();
    assert.equal(calls, 1, 'a Kind edited: the RBAC markers are the same, role.yaml is kept');
    assert.deepEqual(codes(kept), ['KF9999'], 'its warning is reported again');
    assert.deepEqual(
      kept.changes.map((c) => c.path),
      ['config/crd/bases/demo.example.com_deltas.yaml'],
    );
    assert.deepEqual(outputs(dir), await coldOutputs(dir));

    const role = join(dir, 'config/rbac/role.yaml');
    writeFileSync(role, readFileSync(role, 'utf8').replace('- list', '- delete'));
    put(dir, { 'src/api/v1/delta_types.ts': kind('Delta', '  /** Size. */\n  size?: string;') });
    const restored = await run();
    assert.equal(calls, 2, 'role.yaml edited by hand: made again');
    assert.ok(restored.changes.some((c) => c.kind === 'update' && c.path === 'config/rbac/role.yaml'));
    assert.deepEqual(outputs(dir), await coldOutputs(dir));

    put(dir, { 'src/controller/reconciler.ts': controller("'alphas', 'betas', 'deltas'") });
    await run();
    assert.equal(calls, 3, 'an @Rbac marker edited: made again');
    assert.match(readFileSync(role, 'utf8'), /- deltas/);
    assert.deepEqual(outputs(dir), await coldOutputs(dir));
  });

  it("a kept CRD's warnings from the CRD check (a print column naming no field) are reported again, as by a cold run", async () => {
    const columns = `import type { V1ObjectMeta } from '@kubernetes/client-node';
import { PrintColumn, Root } from 'kubeforge/markers';

export class OmegaSpec {
  /** Names. */
  names?: string[];
}

/** Omega has a column for a field it does not have. */
@Root()
@PrintColumn({ name: 'Size', type: 'string', jsonPath: '.spec.size' })
export class Omega {
  metadata?: V1ObjectMeta;
  spec?: OmegaSpec;
}
`;
    const dir = project({ ...base, 'src/api/v1/omega_types.ts': columns });
    const warned = (r: { warnings: { code: string; file?: string }[] }) =>
      r.warnings.filter((w) => w.code === 'KF4609').map((w) => relative(dir, w.file ?? ''));
    assert.deepEqual(warned(await runManifests({ projectDir: dir, generatorVersion: 'test' })), [
      'src/api/v1/omega_types.ts',
    ]);
    put(dir, {
      'src/api/v1/delta_types.ts': kind(
        'Delta',
        '  /** Size. */\n  size?: string;\n  /** Added. */\n  color?: string;',
      ),
    });
    const edited = await runManifests({ projectDir: dir, generatorVersion: 'test' });
    assert.deepEqual(
      edited.changes.map((c) => c.path),
      ['config/crd/bases/demo.example.com_deltas.yaml'],
      'the Omega CRD is kept',
    );
    assert.deepEqual(warned(edited), ['src/api/v1/omega_types.ts'], 'its warning is reported again');
    const cached = await runManifests({ projectDir: dir, generatorVersion: 'test' });
    assert.equal(cached.cached, true);
    assert.deepEqual(warned(cached), ['src/api/v1/omega_types.ts'], 'and recorded for the no-change path');
  });
});
