// Hostile input, second round, family 9: `--dry-run` is the real plan. create api, create webhook
// and edit dry runs used to leave out the CRD, role.yaml and config/webhook/manifests.yaml that the
// real run writes, and exited 0 where the real run failed (an invalid marker in a file already
// there). Now a dry run prints the files the real run then writes, fails as it fails, and writes
// nothing. Driven through the real CLI.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { cleanup, cli, fingerprint, initProject, ok } from './helpers.js';

after(cleanup);

const project = () => initProject();

/** The `CREATE|UPDATE|DELETE path` lines of a plan, sorted. */
const planOf = (out: string) =>
  out
    .split('\n')
    .filter((l) => /^(CREATE|UPDATE|DELETE) /.test(l))
    .map((l) => l.replace(/ \(.*\)$/, ''))
    .sort();

describe('hostile: a dry run is the real plan (CLI)', () => {
  it('create api, create webhook and edit: the dry run lists what the real run writes, manifests included, and writes nothing', async () => {
    const dir = await project();
    const steps: [string[], RegExp][] = [
      [
        ['create', 'api', '--group', 'ship', '--version', 'v1', '--kind', 'Frigate', '--resource', '--controller'],
        /^(CREATE config\/crd\/bases\/ship\.example\.com_frigates\.yaml|UPDATE config\/rbac\/role\.yaml)$/m,
      ],
      [
        ['create', 'webhook', '--group', 'ship', '--version', 'v1', '--kind', 'Frigate', '--defaulting'],
        /^CREATE config\/webhook\/manifests\.yaml$/m,
      ],
      [['edit', '--namespaced'], /^UPDATE config\/rbac\/role\.yaml$/m],
    ];
    for (const [args, manifests] of steps) {
      const before = fingerprint(dir);
      const dry = ok(await cli(dir, [...args, '--dry-run']), `${args.join(' ')} --dry-run`);
      assert.deepEqual(fingerprint(dir), before, `${args.join(' ')} --dry-run wrote something`);
      assert.match(planOf(dry.out).join('\n'), manifests, `${args.join(' ')} --dry-run:\n${dry.out}`);
      const real = ok(await cli(dir, args), args.join(' '));
      assert.deepEqual(planOf(dry.out), planOf(real.out), `${args.join(' ')}: the dry run and the real run differ`);
    }
  });

  it('an invalid marker in a file already there: the dry run fails as the real run does, with the same located errors', async () => {
    const dir = await project();
    ok(
      await cli(dir, [
        'create',
        'api',
        '--group',
        'ship',
        '--version',
        'v1',
        '--kind',
        'Frigate',
        '--resource',
        '--controller',
      ]),
      'create api Frigate',
    );
    writeFileSync(
      join(dir, 'src/api/v1/broken_types.ts'),
      "import { Maximum } from 'kubeforge/markers';\n\nexport class Broken {\n  @Maximum('ten')\n  size?: number;\n}\n",
    );
    const before = fingerprint(dir);
    const args = [
      'create',
      'api',
      '--group',
      'ship',
      '--version',
      'v1',
      '--kind',
      'Galleon',
      '--resource',
      '--controller',
    ];
    const dry = await cli(dir, [...args, '--dry-run']);
    const real = await cli(dir, args);
    assert.equal(dry.code, 1, `the dry run exited ${dry.code}:\n${dry.out}${dry.err}`);
    assert.equal(real.code, 1);
    const located = (err: string) =>
      err.split('\n').filter((l) => /^\S+:\d+:\d+ {2}KF\d{4}/.test(l) || /KF1050/.test(l));
    assert.ok(
      located(dry.err).some((l) => /broken_types\.ts:4:\d+ {2}KF2007/.test(l)),
      dry.err,
    );
    assert.deepEqual(located(dry.err), located(real.err));
    assert.deepEqual(fingerprint(dir), before);
  });
});
