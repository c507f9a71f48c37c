// Hostile input, family 4: `create api` and `create webhook` plan their manifests in the same
// virtual tree as the scaffold and commit once. The analysis reads the planned files through the
// loader's overlay (tsconfig globs, module resolution), so a manifests step that fails stops the
// command before the commit: a spy host proves nothing was ever written (not written and taken
// back), and the no-change cache is not touched.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ts } from 'ts-morph';
import { DiagnosticError, Reporter } from '../../src/diagnostics/index.js';
import { loadProgram } from '../../src/loader/program.js';
import { runManifests } from '../../src/manifests/pipeline.js';
import { DiskHost } from '../../src/machinery/index.js';
import { runCreateApi } from '../../src/scaffolds/api.js';
import { runInit } from '../../src/scaffolds/init.js';
import { runCreateWebhook } from '../../src/scaffolds/webhook.js';
import { must } from '../helpers/must.js';

const made: string[] = [];
after(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

/** A disk host that records every write and removal (what a commit or a revert would do). */
class SpyHost extends DiskHost {
  readonly writes: string[] = [];
  override write(path: string, data: Buffer): void {
    this.writes.push(`write ${path}`);
    super.write(path, data);
  }
  override remove(path: string): void {
    this.writes.push(`remove ${path}`);
    super.remove(path);
  }
}

const quiet = { out: () => {}, err: () => {} };
const API = { group: 'batch', version: 'v1', kind: 'CronJob' };

async function project(): Promise<string> {
  const dir = join(mkdtempSync(join(tmpdir(), 'kf-plan-first-')), 'demo');
  made.push(dirname(dir));
  mkdirSync(dir);
  await runInit({ domain: 'example.com', skipInstall: true, kubeforgeSource: 'link' }, { cwd: dir, ...quiet });
  return dir;
}

const CACHE = '.kubeforge/cache/manifests.json';

describe('hostile: the manifests are planned with the scaffold, one commit', () => {
  it('create api whose manifests step fails: the host saw no write at all, the cache is untouched', async () => {
    const dir = await project();
    await runCreateApi({ ...API }, { cwd: dir, ...quiet });
    assert.ok(existsSync(join(dir, CACHE)), 'the successful create api recorded the no-change cache');
    const cache0 = readFileSync(join(dir, CACHE), 'utf8');
    // An invalid marker in the existing types file.
    const types = join(dir, 'src/api/v1/cronjob_types.ts');
    writeFileSync(types, readFileSync(types, 'utf8').replace("@ListMapKey('type')", '@ListMapKey(42)'));

    const host = new SpyHost(dir);
    let out = '';
    await assert.rejects(
      runCreateApi(
        { group: 'batch', version: 'v1', kind: 'Fleet' },
        {
          cwd: dir,
          host,
          out: (t) => {
            out += t;
          },
          err: () => {},
        },
      ),
      (e: unknown) => {
        assert.ok(e instanceof DiagnosticError);
        const codes = e.diagnostics.map((d) => d.code);
        assert.ok(codes.includes('KF2007'), codes.join(', '));
        assert.match(
          must(
            e.diagnostics.find((d) => d.code === 'KF1050'),
            "e.diagnostics.find((d) => d.code === 'KF1050')",
          ).message,
          /Fleet was not scaffolded: nothing was written$/,
        );
        return true;
      },
    );
    assert.deepEqual(host.writes, [], 'the commit was never attempted');
    assert.equal(out, '', 'no plan printed as if written');
    assert.equal(readFileSync(join(dir, CACHE), 'utf8'), cache0);
    assert.doesNotMatch(readFileSync(join(dir, 'PROJECT'), 'utf8'), /Fleet/);
  });

  it('create webhook whose manifests step fails: no write at all', async () => {
    const dir = await project();
    await runCreateApi({ ...API }, { cwd: dir, ...quiet });
    const types = join(dir, 'src/api/v1/cronjob_types.ts');
    writeFileSync(types, readFileSync(types, 'utf8').replace("@ListMapKey('type')", '@ListMapKey(42)'));
    const host = new SpyHost(dir);
    await assert.rejects(runCreateWebhook({ ...API, defaulting: true }, { cwd: dir, host, ...quiet }), /KF1050/);
    assert.deepEqual(host.writes, []);
  });

  it('a successful create api writes scaffold and manifests in one commit, PROJECT last, and the next manifests run is a cache hit', async () => {
    const dir = await project();
    const host = new SpyHost(dir);
    let out = '';
    const r = await runCreateApi(
      { ...API },
      {
        cwd: dir,
        host,
        out: (t) => {
          out += t;
        },
        err: () => {},
      },
    );
    assert.equal(r.manifests, true);
    const written = host.writes.filter((w) => !w.startsWith('write .kubeforge/cache/'));
    assert.ok(written.includes('write config/crd/bases/batch.example.com_cronjobs.yaml'), written.join('\n'));
    assert.ok(written.includes('write config/rbac/role.yaml'));
    assert.equal(written.at(-1), 'write PROJECT', 'PROJECT is written last');
    assert.ok(!written.some((w) => w.startsWith('remove ')), 'nothing taken back');
    // The scaffold's plan, then the manifests' plan, as before.
    assert.match(
      out,
      /CREATE src\/api\/v1\/cronjob_types\.ts[\s\S]*\nCREATE config\/crd\/bases\/batch\.example\.com_cronjobs\.yaml/,
    );
    const again = await runManifests({ projectDir: dir });
    assert.equal(again.cached, true, `the cache records what create api analysed (${again.cacheMiss})`);
    assert.deepEqual(again.changes, []);
  });

  it('--dry-run and --make=false plan no manifests and leave the cache alone', async () => {
    const dir = await project();
    const host = new SpyHost(dir);
    await runCreateApi({ ...API, dryRun: true }, { cwd: dir, host, ...quiet });
    assert.deepEqual(host.writes, []);
    let err = '';
    const spy = new SpyHost(dir);
    const r = await runCreateApi(
      { ...API, make: false },
      {
        cwd: dir,
        host: spy,
        out: () => {},
        err: (t) => {
          err += t;
        },
      },
    );
    assert.equal(r.manifests, false);
    assert.match(err, /Skipped kubeforge manifests \(--make=false\)/);
    assert.ok(spy.writes.includes('write PROJECT'));
    assert.ok(!spy.writes.some((w) => w.includes('config/crd/bases/')));
    assert.ok(!existsSync(join(dir, CACHE)));
  });
});

describe('loader overlay: planned files are the project as the program reads it', () => {
  it('tsconfig globs, module resolution and folder listings see planned files; planned deletions are gone', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kf-overlay-'));
    made.push(dir);
    mkdirSync(join(dir, 'src/old'), { recursive: true });
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext' },
        include: ['src/**/*.ts'],
      }),
    );
    writeFileSync(
      join(dir, 'src/old/gone.ts'),
      "import { Root } from 'kubeforge/markers';\n@Root() export class Gone {}\n",
    );
    const files = new Map<string, string | null>([
      // A new folder and a barrel only the plan has: found by the glob and by module resolution.
      [join(dir, 'src/api/v9/markers.ts'), "export * from 'kubeforge/markers';\n"],
      [join(dir, 'src/api/v9/thing.ts'), "import { Root } from './markers.js';\n@Root() export class Thing {}\n"],
      [join(dir, 'src/old/gone.ts'), null],
    ]);
    const reporter = new Reporter();
    const loaded = loadProgram({ projectDir: dir, overlay: { files } }, reporter);
    assert.deepEqual(reporter.diagnostics(), []);
    // The barrel names 'kubeforge/markers' itself; thing.ts is a root through the barrel it imports.
    assert.deepEqual(loaded.rootFiles, [join(dir, 'src/api/v9/markers.ts'), join(dir, 'src/api/v9/thing.ts')]);
    assert.equal(loaded.fileExists(join(dir, 'src/api/v9/markers.ts')), true);
    assert.equal(loaded.fileExists(join(dir, 'src/old/gone.ts')), false);
    assert.ok(
      loaded.program.getSourceFile(join(dir, 'src/api/v9/markers.ts')),
      'the barrel was resolved through the overlay',
    );

    // Without the overlay the disk is what it reads.
    const plain = loadProgram({ projectDir: dir }, new Reporter());
    assert.deepEqual(plain.rootFiles, [join(dir, 'src/old/gone.ts')]);

    // The overlay walks the tsconfig's globs with TypeScript's own matcher (internal, as ts-morph's
    // in-memory file system uses it): a ts-morph upgrade without it must fail here, not in a user's run.
    assert.equal(typeof (ts as unknown as { matchFiles?: unknown }).matchFiles, 'function');
  });
});
