// Hostile input, second round, family 8 (the disk and output half): a full disk, standard output
// on a full device, and a file named `.kubeforge` end in a KF code with a path and what to do,
// exit 1, no stack trace, and the project as it was. Driven through the real CLI.
//
// The full disk is a small tmpfs mounted for the test (root can mount one on these machines);
// where mounting is not permitted those two cases are skipped, and say why.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  rmSync,
  statfsSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BIN, cleanup, cli, fingerprint, freshFolder, ok } from './helpers.js';
import { must } from '../helpers/must.js';

after(cleanup);

const FILES: Record<string, string> = {
  'tsconfig.json': JSON.stringify({
    compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true },
    include: ['src/**/*.ts'],
  }),
  'package.json': '{"name":"disk","private":true,"type":"module"}\n',
  'src/api/v1/groupversion.ts':
    "import { defineGroupVersion } from 'kubeforge/markers';\nexport const groupVersion = defineGroupVersion({ group: 'disk.example.com', version: 'v1' });\n",
  'src/api/v1/widget_types.ts': `import type { V1ObjectMeta } from '@kubernetes/client-node';
import { Maximum, Rbac, Root, type int32 } from 'kubeforge/markers';

/** WidgetSpec is what a Widget wants. */
export class WidgetSpec {
  /** How many. */
  @Maximum(5)
  replicas?: int32;
}

/** Widget is a test Kind. */
@Root()
@Rbac({ groups: ['disk.example.com'], resources: ['widgets'], verbs: ['get'] })
export class Widget {
  metadata?: V1ObjectMeta;
  spec?: WidgetSpec;
}
`,
};

function write(dir: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}

/** No stack trace, no raw Node error without a code. */
function assertNoCrash(err: string): void {
  assert.doesNotMatch(err, /^\s+at .+:\d+:\d+\)?$/m, `a stack trace:\n${err}`);
  assert.doesNotMatch(err, /^error: E[A-Z]+:/m, `a raw system error:\n${err}`);
}

describe('hostile: a file named .kubeforge, and standard output on a full device (CLI)', () => {
  it('a file named .kubeforge: KF1101 naming it, exit 1, nothing written (manifests and create api)', async () => {
    const dir = freshFolder();
    write(dir, FILES);
    writeFileSync(join(dir, '.kubeforge'), 'mine\n');
    const beforeRun = fingerprint(dir);
    const r = await cli(dir, ['manifests']);
    assert.equal(r.code, 1, r.out + r.err);
    assert.match(
      r.err,
      /\.kubeforge {2}KF1101 {2}\.kubeforge is a file, but kubeforge keeps its lock, cache and staging folder in a \.kubeforge folder; nothing was written/,
    );
    assert.match(r.err, /hint: move or remove the file \.kubeforge/);
    assertNoCrash(r.err);
    assert.deepEqual(fingerprint(dir), beforeRun);

    // A scaffolding command takes the same lock: the same answer, the project as it was.
    const project = freshFolder('proj');
    mkdirSync(project, { recursive: true });
    ok(
      await cli(project, ['init', '--domain', 'example.com', '--skip-install', '--kubeforge-source', 'link']),
      'kubeforge init',
    );
    writeFileSync(join(project, '.kubeforge'), 'mine\n');
    const beforeCreate = fingerprint(project);
    const c = await cli(project, [
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
    ]);
    assert.equal(c.code, 1, c.out + c.err);
    assert.match(c.err, /KF1101 {2}\.kubeforge is a file/);
    assertNoCrash(c.err);
    assert.deepEqual(fingerprint(project), beforeCreate);
  });

  it("standard output on /dev/full: KF1105 on stderr, exit 1, the command's files written all the same", async (t) => {
    if (!existsSync('/dev/full')) return t.skip('this machine has no /dev/full');
    const dir = freshFolder();
    write(dir, FILES);
    const full = openSync('/dev/full', 'w');
    try {
      for (const args of [['manifests'], ['--help'], ['manifests', '--dry-run']]) {
        const child = spawn(process.execPath, [BIN, ...args], {
          cwd: dir,
          env: { ...process.env, NO_COLOR: '1' },
          stdio: ['ignore', full, 'pipe'],
        });
        let err = '';
        must(child.stderr, 'child.stderr').on('data', (d: Buffer) => (err += d.toString('utf8')));
        const code = await new Promise<number | null>((r) => child.on('close', (c) => r(c)));
        assert.equal(code, 1, `${args.join(' ')}: ${err}`);
        assert.match(
          err,
          /KF1105 {2}standard output could not be written \(ENOSPC: no space left on device, write\)/,
          args.join(' '),
        );
        assertNoCrash(err);
      }
    } finally {
      closeSync(full);
    }
    assert.ok(
      existsSync(join(dir, 'config/crd/bases/disk.example.com_widgets.yaml')),
      'manifests wrote its files; only its report was lost',
    );
  });
});

describe('hostile: manifests on a full disk (CLI)', () => {
  let mnt: string | undefined;
  let why = '';
  before(() => {
    mnt = mkdtempSync(join(tmpdir(), 'kf-full-'));
    const r = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', mnt], { encoding: 'utf8' });
    if (r.status !== 0) {
      why = `cannot mount a tmpfs here (${(r.stderr || r.error?.message || '').trim()})`;
      rmSync(mnt, { recursive: true, force: true });
      mnt = undefined;
    }
  });
  after(() => {
    if (!mnt) return;
    spawnSync('umount', [mnt]);
    rmSync(mnt, { recursive: true, force: true });
  });

  /** A project on the tmpfs with `free` bytes left (0: none at all). */
  function projectOnFullDisk(name: string, free: number): string {
    // The previous case's filler goes first.
    for (const f of readdirSync(must(mnt, 'mnt'))) if (f.includes('.filler')) rmSync(join(must(mnt, 'mnt'), f));
    const dir = join(must(mnt, 'mnt'), name);
    write(dir, FILES);
    const fill = join(must(mnt, 'mnt'), `${name}.filler`);
    const s = statfsSync(must(mnt, 'mnt'));
    writeFileSync(fill, Buffer.alloc(Math.max(0, s.bavail * s.bsize - free)));
    // Whatever is left below a block is filled too when no space at all is wanted.
    if (free === 0) {
      try {
        for (;;) writeFileSync(`${fill}-rest-${Math.random()}`, Buffer.alloc(512));
      } catch {
        /* full */
      }
    }
    return dir;
  }

  for (const c of [
    {
      name: 'no space at all: the lock cannot be written',
      free: 0,
      message: /\.kubeforge\/lock {2}KF1102 {2}writing failed: cannot write the lock \.kubeforge\/lock: ENOSPC/,
    },
    {
      name: 'space for the lock only: staging the outputs fails',
      free: 4096,
      message: /KF1102 {2}writing failed while preparing config\/\S+: ENOSPC/,
    },
  ]) {
    it(`${c.name}: KF1102 with the path, a hint, exit 1, the project as it was and no .kubeforge left`, async (t) => {
      if (!mnt) return t.skip(why);
      const dir = projectOnFullDisk(c.name.replace(/\W+/g, '-'), c.free);
      const beforeRun = fingerprint(dir);
      const r = await cli(dir, ['manifests']);
      assert.equal(r.code, 1, r.out + r.err);
      assert.match(r.err, c.message);
      assert.match(
        r.err,
        /hint: the disk \([^)]+\) is full: free some space and run the command again; nothing in the project was changed/,
      );
      assertNoCrash(r.err);
      assert.deepEqual(fingerprint(dir), beforeRun);
      assert.ok(!existsSync(join(dir, '.kubeforge')), 'a .kubeforge folder was left behind');
    });
  }
});
