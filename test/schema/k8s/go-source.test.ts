// scripts/k8s-go-source.mjs: fetching the Go sources of k8s.io/api and k8s.io/apimachinery (Debian
// trixie's golang-k8s-*-dev .deb files) into the cache folder. These tests build small .deb files
// here with dpkg-deb, give the module a stand-in `curl` that copies them to its `-o` path, and pins
// matching them, so every path (fresh fetch, cache hit, stale stamp, bad sha256, curl failing, mirror
// choice) runs without the network. Only the real pins' form is checked here.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = process.env.KUBEFORGE_REPO_ROOT ?? resolve(fileURLToPath(import.meta.url), '../../../../..');
const modulePath = join(root, 'scripts/k8s-go-source.mjs');

interface Pin {
  package: string;
  version: string;
  path: string;
  sha256: string;
}
interface Options {
  cacheHome?: string;
  curl?: string[];
  pins?: Pin[];
  mirror?: string;
  etc?: string;
}
interface GoSource {
  GO_PINS: Pin[];
  GO_SOURCE_ERROR: string;
  aptMirror: (etc?: string) => string | undefined;
  goSourceCacheDir(options?: Options): string;
  kubernetesGoSourcePath(options?: Options): Promise<string>;
}
const load = async () => (await import(pathToFileURL(modulePath).href)) as GoSource;

// A stand-in for `curl`: `<node> fake-curl.mjs <mode> <debs dir> <log> <curl args...>`. It logs its
// arguments, then (mode copy) copies `<debs dir>/<last segment of the URL>` to the `-o` path.
const FAKE_CURL = `
import { appendFileSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';
const [mode, debs, log, ...args] = process.argv.slice(2);
appendFileSync(log, args.join(' ') + '\\n');
if (mode === 'fail') { console.error('curl: (22) The requested URL returned error: 404 (stand-in)'); process.exit(1); }
const url = args[args.length - 1];
copyFileSync(join(debs, url.split('/').pop()), args[args.indexOf('-o') + 1]);
`;

const API_TYPES = 'package v1\n\n// Pod is a stand-in.\ntype Pod struct {\n}\n';
const META_TYPES = 'package v1\n\n// ObjectMeta is a stand-in.\ntype ObjectMeta struct {\n}\n';

describe('k8s go source: fetching the golang-k8s-*-dev sources into the cache', () => {
  let work: string;
  let fakeCurl: string;
  let debs: string;
  let pins: Pin[];
  let n = 0;

  /** Builds a .deb holding one Go file under ./usr/share/gocode/src and returns its pin. */
  function buildDeb(pkg: string, version: string, goFile: string, text: string): Pin {
    const tree = join(work, `tree-${pkg}`);
    mkdirSync(join(tree, 'DEBIAN'), { recursive: true });
    writeFileSync(
      join(tree, 'DEBIAN/control'),
      `Package: ${pkg}\nVersion: ${version}\nArchitecture: all\nMaintainer: kubeforge tests <test@example.invalid>\nDescription: stand-in for tests\n`,
    );
    const file = join(tree, 'usr/share/gocode/src', goFile);
    mkdirSync(resolve(file, '..'), { recursive: true });
    writeFileSync(file, text);
    const name = `${pkg}_${version}_all.deb`;
    const deb = join(debs, name);
    const r = spawnSync('dpkg-deb', ['--root-owner-group', '--build', tree, deb], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    return {
      package: pkg,
      version,
      path: `pool/main/g/${pkg.replace(/-dev$/, '')}/${name}`,
      sha256: createHash('sha256').update(readFileSync(deb)).digest('hex'),
    };
  }

  before(() => {
    work = mkdtempSync(join(tmpdir(), 'kf-go-source-'));
    debs = join(work, 'debs');
    mkdirSync(debs);
    fakeCurl = join(work, 'fake-curl.mjs');
    writeFileSync(fakeCurl, FAKE_CURL);
    pins = [
      buildDeb('golang-k8s-api-dev', '0.32.3-1', 'k8s.io/api/core/v1/types.go', API_TYPES),
      buildDeb('golang-k8s-apimachinery-dev', '0.32.3-2', 'k8s.io/apimachinery/pkg/apis/meta/v1/types.go', META_TYPES),
    ];
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  /** A fresh cache home, the curl log file, and the curl command for a mode. */
  function setup(mode: 'copy' | 'fail') {
    const home = join(work, `home-${++n}`);
    const log = join(work, `curl-${n}.log`);
    writeFileSync(log, '');
    return { home, log, curl: [process.execPath, fakeCurl, mode, debs, log] };
  }
  const calls = (log: string) => readFileSync(log, 'utf8').split('\n').filter(Boolean);
  const cacheDir = (home: string) => join(home, 'kubeforge/golang-k8s-1.32.3');
  const stampOf = (ps: Pin[]) => ps.map((p) => `${p.package} ${p.version} ${p.sha256}\n`).join('');

  it('the real pins name trixie pool files with a sha256 each', async () => {
    const { GO_PINS } = await load();
    assert.deepEqual(
      GO_PINS.map((p) => p.package),
      ['golang-k8s-api-dev', 'golang-k8s-apimachinery-dev'],
    );
    for (const pin of GO_PINS) {
      assert.match(pin.sha256, /^[0-9a-f]{64}$/, pin.package);
      assert.match(pin.path, /^pool\/main\/g\/[a-z0-9.+-]+\/[a-z0-9.+-]+_[0-9][\w.+~-]*_all\.deb$/, pin.package);
      assert.ok(pin.path.endsWith(`/${pin.package}_${pin.version}_all.deb`), pin.path);
    }
  });

  it("reads the mirror from the machine's apt configuration (deb822 .sources, .list, sources.list), never a built-in host", async () => {
    const { aptMirror } = await load();
    const etc = mkdtempSync(join(tmpdir(), 'kf-apt-'));
    try {
      mkdirSync(join(etc, 'apt/sources.list.d'), { recursive: true });
      assert.equal(aptMirror(etc), undefined, 'apt names nothing: no mirror');
      writeFileSync(join(etc, 'apt/sources.list'), 'deb [arch=amd64] http://list.mirror.test/debian/ bookworm main\n');
      assert.equal(aptMirror(etc), 'http://list.mirror.test/debian');
      writeFileSync(
        join(etc, 'apt/sources.list.d/debian.sources'),
        'Types: deb\nURIs: http://security.mirror.test/debian-security\nSuites: bookworm-security\n\nTypes: deb\nURIs: http://deb822.mirror.test/debian\nSuites: bookworm\n',
      );
      assert.equal(aptMirror(etc), 'http://deb822.mirror.test/debian', 'the archive, not its security suite');
    } finally {
      rmSync(etc, { recursive: true, force: true });
    }
  });

  it('fetches into a fresh cache with one curl per pin, then uses the cache without curl', async () => {
    const { kubernetesGoSourcePath, goSourceCacheDir } = await load();
    const { home, log, curl } = setup('copy');
    const src = await kubernetesGoSourcePath({ cacheHome: home, curl, pins, mirror: 'http://mirror.test/debian' });
    assert.equal(src, join(cacheDir(home), 'src'));
    assert.equal(goSourceCacheDir({ cacheHome: home }), cacheDir(home));
    assert.equal(readFileSync(join(src, 'k8s.io/api/core/v1/types.go'), 'utf8'), API_TYPES);
    assert.equal(readFileSync(join(src, 'k8s.io/apimachinery/pkg/apis/meta/v1/types.go'), 'utf8'), META_TYPES);
    assert.equal(readFileSync(join(src, '.kubeforge-stamp'), 'utf8'), stampOf(pins));
    assert.deepEqual(readdirSync(src).sort(), ['.kubeforge-stamp', 'k8s.io']);
    assert.deepEqual(readdirSync(cacheDir(home)), ['src'], 'temporary files are left behind');
    const logged = calls(log);
    assert.equal(logged.length, 2);
    pins.forEach((pin, i) => {
      assert.match(logged[i], /^-fsSL --retry 3 -o \S+ \S+$/);
      assert.ok(logged[i].endsWith(` http://mirror.test/debian/${pin.path}`), logged[i]);
    });

    assert.equal(await kubernetesGoSourcePath({ cacheHome: home, curl, pins, mirror: 'http://mirror.test/debian' }), src);
    assert.equal(calls(log).length, 2, 'the second call ran curl again');
  });

  it('fetches again when the stamp names other packages, replacing the old tree', async () => {
    const { kubernetesGoSourcePath } = await load();
    const { home, log, curl } = setup('copy');
    const src = join(cacheDir(home), 'src');
    mkdirSync(join(src, 'k8s.io/api'), { recursive: true });
    writeFileSync(join(src, 'k8s.io/api/stale.go'), 'package stale\n');
    writeFileSync(join(src, '.kubeforge-stamp'), stampOf(pins.map((p) => ({ ...p, version: '0.31.0-1' }))));
    assert.equal(await kubernetesGoSourcePath({ cacheHome: home, curl, pins }), src);
    assert.equal(calls(log).length, 2);
    assert.equal(existsSync(join(src, 'k8s.io/api/stale.go')), false, 'the stale tree was kept');
    assert.equal(readFileSync(join(src, '.kubeforge-stamp'), 'utf8'), stampOf(pins));
    assert.equal(readFileSync(join(src, 'k8s.io/api/core/v1/types.go'), 'utf8'), API_TYPES);
  });

  it('refuses a download whose sha256 is not the pinned one, and caches nothing', async () => {
    const { kubernetesGoSourcePath, GO_SOURCE_ERROR } = await load();
    const { home, log, curl } = setup('copy');
    const wrong = [pins[0], { ...pins[1], sha256: '0'.repeat(64) }];
    await assert.rejects(kubernetesGoSourcePath({ cacheHome: home, curl, pins: wrong, mirror: 'http://mirror.test/debian' }), (e: Error & { code?: string }) => {
      assert.equal(e.code, GO_SOURCE_ERROR);
      assert.equal(e.code, 'KUBEFORGE_K8S_GO_SOURCE');
      assert.ok(
        e.message.includes(`${pins[1].path} from http://mirror.test/debian has sha256 ${pins[1].sha256}, expected ${'0'.repeat(64)}`),
        e.message,
      );
      return true;
    });
    assert.equal(calls(log).length, 2);
    assert.deepEqual(readdirSync(cacheDir(home)), [], 'a src or .fetch- folder was left behind');
  });

  it('when curl fails, says why and what to run by hand, caches nothing, and the commands by hand give a cache it accepts', async () => {
    const { kubernetesGoSourcePath, GO_SOURCE_ERROR } = await load();
    const { home, log, curl } = setup('fail');
    const dir = cacheDir(home);
    let byHand = '';
    await assert.rejects(kubernetesGoSourcePath({ cacheHome: home, curl, pins, mirror: 'http://mirror.test/debian' }), (e: Error & { code?: string }) => {
      assert.equal(e.code, GO_SOURCE_ERROR);
      assert.match(e.message, /downloading golang-k8s-api-dev 0\.32\.3-1 failed/);
      assert.match(e.message, /exit 1:\ncurl: \(22\) The requested URL returned error: 404 \(stand-in\)/);
      assert.ok(e.message.includes(`mkdir -p ${dir}/src && cd ${dir}`), e.message);
      for (const pin of pins) {
        const file = pin.path.split('/').pop();
        assert.ok(e.message.includes(`curl -fLO http://mirror.test/debian/${pin.path} && echo '${pin.sha256}  ${file}' | sha256sum -c`), e.message);
      }
      byHand = e.message.split('\n').filter((l) => l.startsWith('  ')).join('\n');
      return true;
    });
    assert.equal(calls(log).length, 1, 'curl was run again after failing');
    assert.deepEqual(readdirSync(dir), []);

    // Following the commands (with a curl that serves the test's .deb files) gives a cache the
    // module takes as it is: no download.
    const bin = join(home, 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'curl'), `#!/bin/sh\nfor a; do url="$a"; done\ncp "${debs}/$(basename "$url")" .\n`, { mode: 0o755 });
    const r = spawnSync('bash', ['-e', '-c', byHand], { encoding: 'utf8', env: { ...process.env, PATH: `${bin}:${process.env.PATH}` } });
    assert.equal(r.status, 0, r.stderr);
    const src = await kubernetesGoSourcePath({ cacheHome: home, curl, pins, mirror: 'http://mirror.test/debian' });
    assert.equal(src, join(dir, 'src'));
    assert.equal(calls(log).length, 1, 'the cache made by hand was not accepted');
    assert.ok(existsSync(join(src, 'k8s.io/api/core/v1/types.go')));
  });

  it("takes the mirror from options.mirror (trailing slashes dropped), else KUBEFORGE_DEBIAN_MIRROR, else apt's", async () => {
    const { kubernetesGoSourcePath } = await load();
    const saved = process.env.KUBEFORGE_DEBIAN_MIRROR;
    try {
      process.env.KUBEFORGE_DEBIAN_MIRROR = 'https://env-mirror.test/debian';
      const fromEnv = setup('copy');
      await kubernetesGoSourcePath({ cacheHome: fromEnv.home, curl: fromEnv.curl, pins });
      assert.deepEqual(
        calls(fromEnv.log).map((l) => l.split(' ').pop()),
        pins.map((p) => `https://env-mirror.test/debian/${p.path}`),
      );

      const fromOption = setup('copy');
      await kubernetesGoSourcePath({ cacheHome: fromOption.home, curl: fromOption.curl, pins, mirror: 'http://option-mirror.test/debian//' });
      assert.deepEqual(
        calls(fromOption.log).map((l) => l.split(' ').pop()),
        pins.map((p) => `http://option-mirror.test/debian/${p.path}`),
      );

      delete process.env.KUBEFORGE_DEBIAN_MIRROR;
      const byDefault = setup('copy');
      const etc = mkdtempSync(join(tmpdir(), 'kf-apt-'));
      mkdirSync(join(etc, 'apt'), { recursive: true });
      writeFileSync(join(etc, 'apt/sources.list'), 'deb http://apt.mirror.test/debian bookworm main\n');
      await kubernetesGoSourcePath({ cacheHome: byDefault.home, curl: byDefault.curl, pins, etc });
      assert.deepEqual(
        calls(byDefault.log).map((l) => l.split(' ').pop()),
        pins.map((p) => `http://apt.mirror.test/debian/${p.path}`),
      );
      rmSync(etc, { recursive: true, force: true });
    } finally {
      if (saved === undefined) delete process.env.KUBEFORGE_DEBIAN_MIRROR;
      else process.env.KUBEFORGE_DEBIAN_MIRROR = saved;
    }
  });
});
