// Hostile input, second round, family 10 (the smaller ones): `create webhook` after the user
// deleted a file it edits, deploy-image image references and raw newlines. (A SIGKILL during
// `manifests` is in atomic.test.ts; --external-api-* cases in test/cli.) Through the real CLI.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { cleanup, cli, fingerprint, initProject, ok } from './helpers.js';

after(cleanup);

async function project(): Promise<string> {
  const dir = await initProject();
  ok(
    await cli(dir, ['create', 'api', '--group', 'ship', '--version', 'v1', '--kind', 'Frigate', '--make=false']),
    'create api',
  );
  return dir;
}

const WEBHOOK = [
  'create',
  'webhook',
  '--group',
  'ship',
  '--version',
  'v1',
  '--kind',
  'Frigate',
  '--defaulting',
  '--make=false',
];

describe('hostile: the smaller families (CLI)', () => {
  it("create webhook after the Kind's types file was deleted: KF1104, nothing written", async () => {
    const dir = await project();
    rmSync(join(dir, 'src/api/v1/frigate_types.ts'));
    const before = fingerprint(dir);
    const r = await cli(dir, WEBHOOK);
    assert.equal(r.code, 1, r.out + r.err);
    assert.match(
      r.err,
      /src\/api\/v1\/frigate_types\.ts {2}KF1104 {2}src\/api\/v1\/frigate_types\.ts is missing: the Frigate webhook imports the Kind from it/,
    );
    assert.deepEqual(fingerprint(dir), before);
  });

  it('create webhook after config/default/kustomization.yaml was deleted: said missing, not re-created', async () => {
    const dir = await project();
    rmSync(join(dir, 'config/default/kustomization.yaml'));
    const r = ok(await cli(dir, WEBHOOK), 'create webhook');
    assert.match(r.err, /warning: config\/default\/kustomization\.yaml is missing, so it was not changed/);
    assert.equal(r.err.match(/kustomization\.yaml is missing/g)?.length, 1, 'said once');
    assert.equal(fingerprint(dir)['config/default/kustomization.yaml'], undefined);
  });

  it('deploy-image: image references a runtime cannot pull and commands with line breaks are refused, nothing written', async () => {
    const dir = await project();
    const before = fingerprint(dir);
    const base = [
      'create',
      'api',
      '--group',
      'ship',
      '--version',
      'v1',
      '--kind',
      'Cache',
      '--plugins',
      'deploy-image/v1-alpha',
      '--make=false',
    ];
    for (const [flags, message] of [
      [
        ['--image', 'Memcached/Cache:1'],
        /KF1085 {2}--image "Memcached\/Cache:1" is not an image reference: its path component "Cache"/,
      ],
      [['--image', 'memcached@sha256:abc'], /KF1085 .*its digest "sha256:abc" is not algorithm:hex/],
      [['--image', 'memcached:'], /KF1085 .*its tag "" is not 1 to 128/],
      [
        ['--image', `memcached@md5:${'0'.repeat(32)}`],
        /KF1085 .*its digest algorithm "md5" is not sha256, sha384 or sha512/,
      ],
      [
        ['--image', `memcached@sha512:${'c'.repeat(120)}`],
        /KF1085 .*its sha512 digest is not 128 lower-case hex digits/,
      ],
      [['--image', 'a//b:1'], /KF1085 .*empty path component/],
      [
        ['--image', 'memcached:1.6', '--image-container-command', 'memcached,-m\n64'],
        /KF1086 {2}--image-container-command "memcached,-m\\n64" holds a line break/,
      ],
    ] as const) {
      const r = await cli(dir, [...base, ...flags]);
      assert.equal(r.code, 1, `${flags.join(' ')}: ${r.out}${r.err}`);
      assert.match(r.err, message);
      assert.deepEqual(fingerprint(dir), before);
    }
    // What runtimes do pull: a registry with a port, a digest of 64 hex digits.
    ok(
      await cli(dir, [...base, '--image', `registry.example.com:5000/team/memcached@sha256:${'a'.repeat(64)}`]),
      'a digest reference',
    );
  });
});
