/**
 * `kubeforge create api` through the CLI on a real folder: flags as Kubebuilder users type them,
 * the in-process manifests step (ts-morph analysis of the scaffolded types), exit codes, and a
 * byte-identical folder after every refused command.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { run } from '../../src/cli/index.js';

const work = mkdtempSync(join(tmpdir(), 'kf-create-api-'));

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

/** path -> sha256 of every file below dir. */
function fingerprint(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out[relative(dir, p)] = createHash('sha256').update(readFileSync(p)).digest('hex');
    }
  };
  walk(dir);
  return out;
}

async function initProject(name: string): Promise<string> {
  const dir = join(work, name);
  mkdirSync(dir);
  const r = await kubeforge(dir, 'init', '--domain', 'example.com', '--skip-install', '--kubeforge-source', 'link');
  assert.equal(r.code, 0, r.err);
  return dir;
}

describe('kubeforge create api (CLI, on disk)', () => {
  let project: string;
  before(async () => {
    project = await initProject('guestbook');
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  it('creates a namespaced Kind and generates its CRD and RBAC in-process', async () => {
    const r = await kubeforge(project, 'create', 'api', '--group', 'batch', '--version', 'v1', '--kind', 'CronJob');
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^CREATE src\/api\/v1\/cronjob_types\.ts/m);
    assert.match(r.out, /^CREATE config\/crd\/bases\/batch\.example\.com_cronjobs\.yaml/m);
    const crd = parse(readFileSync(join(project, 'config/crd/bases/batch.example.com_cronjobs.yaml'), 'utf8'));
    assert.equal(crd.metadata.name, 'cronjobs.batch.example.com');
    assert.equal(crd.spec.scope, 'Namespaced');
    const schema = crd.spec.versions[0].schema.openAPIV3Schema;
    assert.equal(schema.properties.spec.properties.foo.type, 'string');
    assert.deepEqual(schema.required, ['spec']);
    const conditions = schema.properties.status.properties.conditions;
    assert.equal(conditions['x-kubernetes-list-type'], 'map');
    assert.deepEqual(conditions['x-kubernetes-list-map-keys'], ['type']);
    assert.deepEqual(conditions.items.required, ['lastTransitionTime', 'message', 'reason', 'status', 'type']);
    assert.deepEqual(crd.spec.versions[0].subresources, { status: {} });
    const role = readFileSync(join(project, 'config/rbac/role.yaml'), 'utf8');
    assert.match(role, /- cronjobs\/finalizers/);
    assert.match(role, /- cronjobs\/status/);
    assert.match(readFileSync(join(project, 'config/default/kustomization.yaml'), 'utf8'), /^- \.\.\/crd$/m);
    assert.match(r.err, /Next:/);
  });

  it('--namespaced=false (Go-style) makes a cluster-scoped Kind', async () => {
    const r = await kubeforge(
      project,
      'create',
      'api',
      '--group=batch',
      '--version=v1',
      '--kind=Fleet',
      '--namespaced=false',
    );
    assert.equal(r.code, 0, r.err);
    const crd = parse(readFileSync(join(project, 'config/crd/bases/batch.example.com_fleets.yaml'), 'utf8'));
    assert.equal(crd.spec.scope, 'Cluster');
    assert.match(
      readFileSync(join(project, 'src/api/v1/fleet_types.ts'), 'utf8'),
      /@Resource\(\{ scope: 'Cluster' \}\)/,
    );
  });

  it('the same command again with --force plans nothing and the manifests are up to date', async () => {
    const before = fingerprint(project);
    for (const args of [
      ['--group', 'batch', '--version', 'v1', '--kind', 'CronJob'],
      ['--group', 'batch', '--version', 'v1', '--kind', 'Fleet', '--no-namespaced'],
    ]) {
      const r = await kubeforge(project, 'create', 'api', ...args, '--force');
      assert.equal(r.code, 0, r.err);
      assert.equal(r.out, 'Nothing to change.\nmanifests are up to date\n');
    }
    assert.deepEqual(fingerprint(project), before);
  });

  it('an existing Kind without --force: exit 1, the reason, the folder byte-identical', async () => {
    const before = fingerprint(project);
    const r = await kubeforge(
      project,
      'create',
      'api',
      '--group',
      'batch',
      '--version',
      'v1',
      '--kind',
      'CronJob',
      '--controller=false',
    );
    assert.equal(r.code, 1);
    assert.match(r.err, /KF1042 {2}the API CronJob \(batch\.example\.com\/v1\) already exists in PROJECT/);
    assert.deepEqual(fingerprint(project), before);
  });

  it('invalid names: every rule broken is reported with a valid example; exit 1; nothing written', async () => {
    const before = fingerprint(project);
    const r = await kubeforge(project, 'create', 'api', '--group', 'Batch', '--version', '1', '--kind', 'cron_job');
    assert.equal(r.code, 1);
    assert.match(r.err, /invalid group "Batch": a DNS-1123 subdomain must consist of lower-case letters/);
    assert.match(r.err, /invalid version "1"/);
    assert.match(r.err, /invalid Kind "cron_job"/);
    assert.match(r.err, /e\.g\.|such as/);
    assert.match(r.err, /3 errors/);
    assert.deepEqual(fingerprint(project), before);
  });

  it('a bad boolean value is a usage error', async () => {
    const before = fingerprint(project);
    const r = await kubeforge(
      project,
      'create',
      'api',
      '--group',
      'batch',
      '--version',
      'v1',
      '--kind',
      'Ship',
      '--namespaced=maybe',
    );
    assert.equal(r.code, 1);
    assert.match(r.err, /invalid value "maybe" for --namespaced: expected true or false/);
    assert.deepEqual(fingerprint(project), before);
  });

  it("--dry-run prints the plan, the manifests step's included, and writes nothing", async () => {
    const before = fingerprint(project);
    const r = await kubeforge(
      project,
      'create',
      'api',
      '--group',
      'batch',
      '--version',
      'v2',
      '--kind',
      'CronJob',
      '--controller=false',
      '--dry-run',
    );
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^CREATE src\/api\/v2\/cronjob_types\.ts/m);
    // The dry run is the real plan (test/hostile/dry-run.test.ts): the CRD the real run would update.
    assert.match(r.out, /^UPDATE config\/crd\/bases\/batch\.example\.com_cronjobs\.yaml/m);
    assert.deepEqual(fingerprint(project), before);
  });

  it('--make=false skips the manifests step and says how to finish', async () => {
    const dir = await initProject('nomake');
    const r = await kubeforge(
      dir,
      'create',
      'api',
      '--group',
      'batch',
      '--version',
      'v1',
      '--kind',
      'CronJob',
      '--make=false',
    );
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, /Skipped kubeforge manifests \(--make=false\): run `npm run manifests`/);
    assert.ok(existsSync(join(dir, 'src/api/v1/cronjob_types.ts')));
    assert.ok(!existsSync(join(dir, 'config/crd/bases')), 'no CRD written');
  });

  it('outside a project: "run kubeforge init first", exit 1, nothing written', async () => {
    const empty = join(work, 'empty');
    mkdirSync(empty);
    writeFileSync(join(empty, 'notes.txt'), 'x\n');
    const r = await kubeforge(empty, 'create', 'api', '--group', 'batch', '--version', 'v1', '--kind', 'CronJob');
    assert.equal(r.code, 1);
    assert.match(r.err, /KF1040 {2}no PROJECT file in .*empty/);
    assert.match(r.err, /run kubeforge init first/);
    assert.deepEqual(readdirSync(empty), ['notes.txt']);
  });

  it('when the manifests step fails, the scaffold is taken back: exit 1, the folder as it was, the way out in the hint', async () => {
    const dir = await initProject('broken');
    // A Kind the analysis rejects, already in the project: the new API's manifests step fails on it.
    mkdirSync(join(dir, 'src/api/v1'), { recursive: true });
    writeFileSync(
      join(dir, 'src/api/v1/groupversion.ts'),
      "import { defineGroupVersion } from 'kubeforge/markers';\nexport const groupVersion = defineGroupVersion({ group: 'batch.example.com', version: 'v1' });\n",
    );
    writeFileSync(
      join(dir, 'src/api/v1/bad_types.ts'),
      "import type { V1ObjectMeta } from '@kubernetes/client-node';\nimport { Maximum, Root } from 'kubeforge/markers';\nexport class BadSpec {\n  @Maximum(3)\n  name?: string;\n}\n@Root()\nexport class Bad {\n  metadata?: V1ObjectMeta;\n  spec?: BadSpec;\n}\n",
    );
    const before = readFileSync(join(dir, 'PROJECT'), 'utf8');
    const listing = readdirSync(dir, { recursive: true }).map(String).sort();
    const r = await kubeforge(dir, 'create', 'api', '--group', 'batch', '--version', 'v1', '--kind', 'CronJob');
    assert.equal(r.code, 1);
    assert.match(r.err, /bad_types\.ts/);
    assert.match(
      r.err,
      /KF1050 {2}generating the manifests \(CRDs, RBAC role\) with CronJob failed \(see above\), so CronJob was not scaffolded: nothing was written/,
    );
    assert.match(r.err, /--make=false/);
    assert.equal(readFileSync(join(dir, 'PROJECT'), 'utf8'), before);
    assert.deepEqual(
      readdirSync(dir, { recursive: true }).map(String).sort(),
      listing,
      'no file or folder left behind',
    );
    // --make=false scaffolds all the same.
    const made = await kubeforge(
      dir,
      'create',
      'api',
      '--group',
      'batch',
      '--version',
      'v1',
      '--kind',
      'CronJob',
      '--make=false',
    );
    assert.equal(made.code, 0, made.err);
    assert.ok(existsSync(join(dir, 'src/api/v1/cronjob_types.ts')));
  });
});
