// Hostile input, second round, family 7: `alpha generate` writes a whole project or nothing. A
// PROJECT value a replayed command refuses used to leave half a project in the output folder and
// name a flag the user never typed; now the error is located at the resource's entry in PROJECT,
// worded with its keys, and the output folder is as it was (absent, or empty). Through the CLI.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { cleanup, cli, fingerprint, freshFolder, ok, start, whenCommitting } from './helpers.js';

after(cleanup);

async function project(): Promise<string> {
  const dir = freshFolder('old');
  mkdirSync(dir, { recursive: true });
  ok(await cli(dir, ['init', '--domain', 'example.com', '--skip-install', '--kubeforge-source', 'link']), 'init');
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
      '--make=false',
    ]),
    'create api Frigate',
  );
  ok(
    await cli(dir, [
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
      '--make=false',
    ]),
    'create api Galleon',
  );
  return dir;
}

describe('hostile: alpha generate writes a whole project or nothing (CLI)', () => {
  it('a PROJECT plural the API server would refuse: located at the entry, its key named, nothing written, an empty output folder kept', async () => {
    const dir = await project();
    const text = readFileSync(join(dir, 'PROJECT'), 'utf8');
    // The second resource's entry gets an invalid plural: the first one is replayed before it fails.
    writeFileSync(join(dir, 'PROJECT'), text.replace(/( {2}kind: Galleon\n)/, '$1  plural: Bad_Plural\n'));
    const line =
      readFileSync(join(dir, 'PROJECT'), 'utf8')
        .split('\n')
        .findIndex((l, i, all) => l.startsWith('- ') && all.slice(i, i + 12).some((x) => x === '  kind: Galleon')) + 1;
    for (const out of ['new', 'empty']) {
      const target = join(dirname(dir), out);
      if (out === 'empty') mkdirSync(target);
      const beforeRun = fingerprint(dirname(dir));
      const r = await cli(dir, ['alpha', 'generate', '--output-dir', target, '--skip-install']);
      assert.equal(r.code, 1, r.out + r.err);
      assert.match(
        r.err,
        new RegExp(
          `PROJECT:${line} {2}KF1001 {2}PROJECT resource ship/v1 Galleon cannot be re-scaffolded \\(create api\\): invalid plural "Bad_Plural"`,
        ),
      );
      assert.match(
        r.err,
        /hint: the "plural" key needs a lower-case DNS-1123 label such as "cronjobs" in PROJECT's entry for ship\/v1 Galleon; nothing was written/,
      );
      assert.doesNotMatch(r.err, /--plural/);
      assert.deepEqual(fingerprint(dirname(dir)), beforeRun, 'something was written');
      assert.equal(existsSync(target), out === 'empty');
      if (out === 'empty') assert.deepEqual(readdirSync(target), []);
    }
  });

  it('SIGINT while it replays the commands: exit 130, KF1112 as it is (not taken for a PROJECT problem), no output and no staging folder left', async () => {
    const dir = await project();
    const target = join(dirname(dir), 'interrupted');
    const run = start(dir, ['alpha', 'generate', '--output-dir', target, '--skip-install'], {
      KUBEFORGE_TEST_COMMIT_DELAY_MS: '200',
    });
    // A replayed command is committing into the staging folder beside the output.
    await whenCommitting(dirname(dir), run);
    run.child.kill('SIGINT');
    const r = await run.done;
    assert.equal(r.code, 130, r.out + r.err);
    assert.match(r.err, /KF1112 {2}interrupted \(SIGINT\)/);
    assert.doesNotMatch(r.err, /PROJECT resource/);
    assert.deepEqual(readdirSync(dirname(dir)).sort(), ['old']);
  });

  it('a valid PROJECT: the whole project appears at --output-dir, and no staging folder is left', async () => {
    const dir = await project();
    const target = join(dirname(dir), 'upgraded');
    ok(await cli(dir, ['alpha', 'generate', '--output-dir', target, '--skip-install']), 'alpha generate');
    assert.ok(existsSync(join(target, 'src/api/v1/galleon_types.ts')));
    assert.deepEqual(readdirSync(dirname(dir)).sort(), ['old', 'upgraded']);
  });
});
