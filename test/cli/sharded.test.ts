/**
 * A sharded manager in the scaffold, through the CLI: `init --sharded[=<replicas>]` makes
 * config/manager/manager.yaml run N replicas with `--shard-ring=<project>` instead of one with
 * `--leader-elect` and records it in PROJECT (plugins: sharding.kubeforge.io/v1-alpha);
 * `edit --sharded[=<replicas>|false]` switches either way to the files init would have made,
 * byte for byte, keeps the user's changes or refuses a collision (KF1081) with nothing written;
 * malformed values are KF1082 with nothing written; `alpha generate` keeps the setting.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parse } from 'yaml';
import { run } from '../../src/cli/index.js';
import { snapshot } from '../helpers/tree.js';
import { must } from '../helpers/must.js';

const root = mkdtempSync(join(tmpdir(), 'kf-cli-sharded-'));
after(() => rmSync(root, { recursive: true, force: true }));

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

const INIT = [
  'init',
  '--domain',
  'example.com',
  '--project-name',
  'fleet',
  '--skip-install',
  '--kubeforge-source',
  'link',
];

async function project(name: string, ...initArgs: string[]): Promise<string> {
  const dir = join(root, name);
  mkdirSync(dir);
  const r = await kubeforge(dir, ...INIT, ...initArgs);
  assert.equal(r.code, 0, r.err);
  return dir;
}

const read = (dir: string, path: string) => readFileSync(join(dir, path), 'utf8');
const MANAGER = 'config/manager/manager.yaml';
const SHARDING = 'sharding.kubeforge.io/v1-alpha';
const plugins = (dir: string) => (parse(read(dir, 'PROJECT')) as { plugins?: Record<string, unknown> }).plugins;

/** The manager Deployment's replicas and its container's args. */
function deployment(dir: string): { replicas: number; args: string[] } {
  const docs = read(dir, MANAGER)
    .split(/^---$/m)
    .map((d) => parse(d) as { kind: string; spec: Record<string, unknown> });
  const d = must(
    docs.find((x) => x.kind === 'Deployment'),
    "docs.find((x) => x.kind === 'Deployment')",
  );
  const spec = d.spec as { replicas: number; template: { spec: { containers: { args: string[] }[] } } };
  return { replicas: spec.replicas, args: spec.template.spec.containers[0].args };
}

/** The project's files, without kubeforge's own state (.kubeforge: tarballs, the manifests cache). */
function files(dir: string): Record<string, string> {
  return Object.fromEntries(Object.entries(snapshot(dir)).filter(([p]) => !p.startsWith('.kubeforge')));
}

describe('a sharded manager in the scaffold', () => {
  it('init --sharded runs 3 replicas with --shard-ring=<project> instead of --leader-elect; --sharded=5 runs 5; PROJECT records it', async () => {
    const three = await project('init-3', '--sharded');
    assert.deepEqual(deployment(three), {
      replicas: 3,
      args: ['--shard-ring=fleet', '--health-probe-bind-address=:8081'],
    });
    assert.deepEqual(plugins(three), { [SHARDING]: { replicas: 3 } });
    const five = await project('init-5', '--sharded=5');
    assert.equal(deployment(five).replicas, 5);
    assert.deepEqual(plugins(five), { [SHARDING]: { replicas: 5 } });
    const plain = await project('init-plain');
    assert.deepEqual(deployment(plain), { replicas: 1, args: ['--leader-elect', '--health-probe-bind-address=:8081'] });
    assert.equal(plugins(plain), undefined);
    // The Lease RBAC both need is the one leader election has.
    assert.equal(
      read(three, 'config/rbac/leader_election_role.yaml'),
      read(plain, 'config/rbac/leader_election_role.yaml'),
    );
    // src/main.ts is the same: sharding is configuration only.
    assert.equal(read(three, 'src/main.ts'), read(plain, 'src/main.ts'));
    // --sharded=false is a plain project.
    const off = await project('init-off', '--sharded=false');
    assert.deepEqual(files(off), files(plain));
  });

  it('init --sharded with a malformed value: KF1082, exit 1, nothing written', async () => {
    for (const value of ['0', 'abc', '-1', '2.5', '3x', '']) {
      const dir = join(root, `init-bad-${value || 'empty'}`);
      mkdirSync(dir);
      const r = await kubeforge(dir, ...INIT, `--sharded=${value}`);
      assert.equal(r.code, 1, value);
      assert.match(r.err, /KF1082 +invalid --sharded/, value);
      assert.match(r.err, /--sharded=<replicas> such as --sharded=5/, value);
      assert.deepEqual(readdirSync(dir), [], value);
    }
  });

  it('init --force without --sharded over a sharded project drops the record (as --namespaced): PROJECT says what the files are', async () => {
    const dir = await project('init-force', '--sharded');
    const r = await kubeforge(dir, ...INIT, '--force');
    assert.equal(r.code, 0, r.err);
    assert.equal(plugins(dir), undefined);
    assert.equal(deployment(dir).replicas, 1);
  });

  it('edit --sharded and --sharded=false switch both ways to the files init makes, byte for byte; again changes nothing', async () => {
    const plain = await project('plain');
    const sharded = await project('sharded', '--sharded');
    for (const dir of [plain, sharded]) {
      const api = await kubeforge(dir, 'create', 'api', '--group', 'ship', '--version', 'v1', '--kind', 'Frigate');
      assert.equal(api.code, 0, api.err);
    }
    const plainFiles = files(plain);
    const shardedFiles = files(sharded);

    const on = await kubeforge(plain, 'edit', '--sharded');
    assert.equal(on.code, 0, on.err);
    assert.equal(on.out, `UPDATE PROJECT (+3 -0 lines)\nUPDATE ${MANAGER} (+7 -2 lines)\n`);
    assert.match(on.err, /the manager runs a sharded manager of 3 replicas \(--shard-ring=fleet\)/);
    assert.deepEqual(files(plain), shardedFiles);
    const again = await kubeforge(plain, 'edit', '--sharded');
    assert.equal(again.code, 0, again.err);
    assert.match(again.out, /Nothing to change/);
    assert.deepEqual(files(plain), shardedFiles, 'idempotent');

    const off = await kubeforge(plain, 'edit', '--sharded=false');
    assert.equal(off.code, 0, off.err);
    assert.match(off.err, /one leader-elected replica again \(--leader-elect\)/);
    assert.deepEqual(files(plain), plainFiles);
    const offAgain = await kubeforge(plain, 'edit', '--no-sharded');
    assert.equal(offAgain.code, 0, offAgain.err);
    assert.deepEqual(files(plain), plainFiles, 'idempotent');
  });

  it('edit --sharded=<n> changes the count; a bare --sharded keeps what PROJECT records', async () => {
    const dir = await project('count', '--sharded');
    const five = await kubeforge(dir, 'edit', '--sharded=5');
    assert.equal(five.code, 0, five.err);
    assert.equal(deployment(dir).replicas, 5);
    assert.deepEqual(plugins(dir), { [SHARDING]: { replicas: 5 } });
    const bare = await kubeforge(dir, 'edit', '--sharded');
    assert.match(bare.out, /Nothing to change/);
    assert.equal(deployment(dir).replicas, 5);
    // The same files as init --sharded=5.
    const made = await project('count-init', '--sharded=5');
    assert.equal(read(dir, MANAGER), read(made, MANAGER));
    assert.equal(read(dir, 'PROJECT'), read(made, 'PROJECT'));
  });

  it('edit --sharded keeps your changes that do not touch the switch; --shard-field goes when switching off', async () => {
    const dir = await project('mine', '--sharded');
    const manager = join(dir, MANAGER);
    writeFileSync(
      manager,
      read(dir, MANAGER)
        .replace('memory: 256Mi', 'memory: 512Mi')
        .replace(
          '        - --health-probe-bind-address=:8081\n',
          '        - --health-probe-bind-address=:8081\n        - --shard-field=namespace\n',
        ),
    );
    const off = await kubeforge(dir, 'edit', '--sharded=false');
    assert.equal(off.code, 0, off.err);
    assert.match(
      off.err,
      /switched config\/manager\/manager\.yaml to one leader-elected replica, keeping your own changes/,
    );
    assert.match(off.err, /removed --shard-field/);
    assert.deepEqual(deployment(dir), { replicas: 1, args: ['--leader-elect', '--health-probe-bind-address=:8081'] });
    assert.match(read(dir, MANAGER), /memory: 512Mi/);
    const on = await kubeforge(dir, 'edit', '--sharded=4');
    assert.equal(on.code, 0, on.err);
    assert.deepEqual(deployment(dir), {
      replicas: 4,
      args: ['--shard-ring=fleet', '--health-probe-bind-address=:8081'],
    });
    assert.match(read(dir, MANAGER), /memory: 512Mi/);
  });

  it('edit --sharded=false over replicas you changed: KF1081 at the line, nothing written; --force replaces the file', async () => {
    const dir = await project('collide', '--sharded');
    writeFileSync(join(dir, MANAGER), read(dir, MANAGER).replace('replicas: 3', 'replicas: 4'));
    const before = snapshot(dir);
    for (const dry of [[], ['--dry-run']]) {
      const refused = await kubeforge(dir, 'edit', '--sharded=false', ...dry);
      assert.equal(refused.code, 1);
      assert.match(
        refused.err,
        /config\/manager\/manager\.yaml:27 +KF1081 +config\/manager\/manager\.yaml was changed where switching to one leader-elected replica changes it/,
      );
      assert.match(refused.err, /run again with --force/);
      assert.deepEqual(snapshot(dir), before, 'nothing written');
    }
    const forced = await kubeforge(dir, 'edit', '--sharded=false', '--force');
    assert.equal(forced.code, 0, forced.err);
    assert.match(forced.err, /--force replaced 1 existing file that differed: config\/manager\/manager\.yaml/);
    assert.equal(deployment(dir).replicas, 1);
    assert.equal(plugins(dir), undefined);
  });

  it('edit with a malformed --sharded, or PROJECT recording malformed replicas: KF1082, exit 1, nothing written', async () => {
    const dir = await project('bad');
    const before = snapshot(dir);
    for (const value of ['0', 'many', '-3', '1.5']) {
      const r = await kubeforge(dir, 'edit', `--sharded=${value}`);
      assert.equal(r.code, 1, value);
      assert.match(r.err, /KF1082 +invalid --sharded/, value);
      assert.match(r.err, /--sharded=false to go back to one leader-elected replica/, value);
      assert.deepEqual(snapshot(dir), before, value);
    }
    writeFileSync(
      join(dir, 'PROJECT'),
      read(dir, 'PROJECT').replace('projectName:', `plugins:\n  ${SHARDING}:\n    replicas: lots\nprojectName:`),
    );
    const recorded = snapshot(dir);
    const r = await kubeforge(dir, 'edit', '--sharded');
    assert.equal(r.code, 1);
    assert.match(r.err, /PROJECT:9 +KF1082 +PROJECT's sharding\.kubeforge\.io\/v1-alpha record has replicas: "lots"/);
    assert.deepEqual(snapshot(dir), recorded);
    // An explicit count replaces the record.
    const fixed = await kubeforge(dir, 'edit', '--sharded=2');
    assert.equal(fixed.code, 0, fixed.err);
    assert.deepEqual(plugins(dir), { [SHARDING]: { replicas: 2 } });
  });

  it('edit --namespaced --sharded in one run: the files of init --namespaced --sharded', async () => {
    const dir = await project('both');
    const both = await kubeforge(dir, 'edit', '--namespaced', '--sharded=2', '--make=false');
    assert.equal(both.code, 0, both.err);
    const made = await project('both-init', '--namespaced', '--sharded=2');
    for (const f of ['PROJECT', MANAGER, 'src/main.ts', 'config/rbac/role_binding.yaml'])
      assert.equal(read(dir, f), read(made, f), f);
    // And --namespaced alone on a sharded project keeps it sharded.
    const sharded = await project('scope-of-sharded', '--sharded=2');
    const scope = await kubeforge(sharded, 'edit', '--namespaced', '--make=false');
    assert.equal(scope.code, 0, scope.err);
    for (const f of ['PROJECT', MANAGER, 'src/main.ts', 'config/rbac/role_binding.yaml'])
      assert.equal(read(sharded, f), read(made, f), f);
  });

  it('edit --sharded --dry-run prints the plan and writes nothing', async () => {
    const dir = await project('dry');
    const before = snapshot(dir);
    const dry = await kubeforge(dir, 'edit', '--sharded=3', '--dry-run');
    assert.equal(dry.code, 0, dry.err);
    assert.equal(dry.out, `UPDATE PROJECT (+3 -0 lines)\nUPDATE ${MANAGER} (+7 -2 lines)\n`);
    assert.deepEqual(snapshot(dir), before);
  });

  it('alpha generate keeps a sharded manager (its replicas)', async () => {
    const dir = await project('generate', '--sharded=4');
    const out = join(root, 'generated');
    const r = await kubeforge(
      dir,
      'alpha',
      'generate',
      '--output-dir',
      out,
      '--skip-install',
      '--kubeforge-source',
      'link',
    );
    assert.equal(r.code, 0, r.err);
    assert.equal(read(out, MANAGER), read(dir, MANAGER));
    assert.deepEqual(plugins(out), { [SHARDING]: { replicas: 4 } });
  });
});
