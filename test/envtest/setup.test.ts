// `kubeforge setup-envtest`'s download path, against a local HTTP server that serves a release
// index in controller-tools' format and tarballs this test builds (laid out as the official
// ones: controller-tools/envtest/{etcd,kube-apiserver,kubectl}). The real index is not
// reachable from the machines this suite runs on; the Debian fallback is injected.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { GoBuildError, newestPatch, requiredVersion, stagingReplaces } from '../../src/envtest/go-build.js';
import {
  DEFAULT_K8S_MINOR,
  goPlatform,
  parseIndex,
  selectArchive,
  setupEnvtest,
  SetupEnvtestError,
} from '../../src/envtest/setup.js';
import { createTgz } from '../../src/machinery/tar.js';
import { run } from '../../src/cli/index.js';

const script = (name: string, version: string) => Buffer.from(`#!/bin/sh\necho "${name} ${version}"\n`);
function tarball(version: string): Buffer {
  return createTgz(
    ['etcd', 'kube-apiserver', 'kubectl'].map((b) => ({
      path: `controller-tools/envtest/${b}`,
      data: script(b, version),
      mode: 0o755,
    })),
  );
}
const sha512 = (b: Buffer) => createHash('sha512').update(b).digest('hex');

describe('setup-envtest: download path', () => {
  const dirs: string[] = [];
  const files = new Map<string, Buffer>();
  const hits: string[] = [];
  let server: http.Server;
  let base: string;
  let index: string;
  /** A URL on a port nobody listens on: connection refused. */
  let closed: string;

  const tmp = () => {
    const d = mkdtempSync(join(tmpdir(), 'kf-envtest-'));
    dirs.push(d);
    return d;
  };

  before(async () => {
    server = http.createServer((req, res) => {
      hits.push(req.url ?? '');
      if (req.url?.startsWith('/redirect/')) {
        res.writeHead(302, { location: req.url.slice('/redirect'.length) }).end();
        return;
      }
      const body = files.get(req.url ?? '');
      if (!body) res.writeHead(404).end('not found');
      else res.writeHead(200).end(body);
    });
    const probe = http.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    closed = `http://127.0.0.1:${(probe.address() as AddressInfo).port}/envtest-releases.yaml`;
    await new Promise<void>((r) => probe.close(() => r()));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const { os, arch } = goPlatform(process.platform, process.arch);
    const entries: string[] = ['releases:'];
    for (const v of ['1.33.0', '1.34.0', '1.34.1', '1.35.0-alpha.1']) {
      const name = `envtest-v${v}-${os}-${arch}.tar.gz`;
      const body = tarball(v);
      files.set(`/files/${name}`, body);
      // 1.34.0 is served through a redirect, as GitHub's release downloads are.
      const link = v === '1.34.0' ? `${base}/redirect/files/${name}` : `${base}/files/${name}`;
      entries.push(`  v${v}:`, `    ${name}:`, `      hash: ${sha512(body)}`, `      selfLink: ${link}`);
      entries.push(
        `    envtest-v${v}-plan9-mips.tar.gz:`,
        `      hash: ${'0'.repeat(128)}`,
        `      selfLink: ${base}/nope`,
      );
    }
    // A release whose tarball does not match its hash.
    const bad = `envtest-v1.32.9-${os}-${arch}.tar.gz`;
    files.set(`/files/${bad}`, tarball('1.32.9'));
    entries.push(
      '  v1.32.9:',
      `    ${bad}:`,
      `      hash: ${sha512(Buffer.from('something else'))}`,
      `      selfLink: ${base}/files/${bad}`,
    );
    index = `${entries.join('\n')}\n`;
    files.set('/envtest-releases.yaml', Buffer.from(index));
  });

  after(async () => {
    await new Promise<void>((r) => server.close(() => r()));
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('parses the index for one OS/arch, newest first, and picks versions as setup-envtest does', () => {
    const archives = parseIndex(
      index,
      goPlatform(process.platform, process.arch).os,
      goPlatform(process.platform, process.arch).arch,
    );
    assert.deepEqual(
      archives.map((a) => a.version),
      ['1.35.0-alpha.1', '1.34.1', '1.34.0', '1.33.0', '1.32.9'],
    );
    assert.equal(selectArchive(archives, '1.34', undefined).version, '1.34.1');
    assert.equal(selectArchive(archives, '1.34.x', undefined).version, '1.34.1');
    assert.equal(selectArchive(archives, 'v1.34.0', undefined).version, '1.34.0');
    assert.equal(
      selectArchive(archives, '1.35.0-alpha.1', undefined).version,
      '1.35.0-alpha.1',
      'a pre-release named exactly',
    );
    assert.equal(selectArchive(archives, undefined, '1.33').version, '1.33.0', 'the default follows the default minor');
    assert.equal(
      selectArchive(archives, undefined, '1.99').version,
      '1.34.1',
      'else the newest release, never a pre-release',
    );
    assert.throws(
      () => selectArchive(archives, '1.20', undefined),
      (e: unknown) => e instanceof SetupEnvtestError && /1\.34\.1, 1\.34\.0, 1\.33\.0/.test(e.hint ?? ''),
    );
    assert.throws(() => parseIndex('nope: [', 'linux', 'amd64'), SetupEnvtestError);
    assert.throws(() => parseIndex('other: 1\n', 'linux', 'amd64'), /no "releases" map/);
  });

  it('defaults to the minor Kubebuilder v4.16 scaffolds for (1.37 or newer)', () => {
    assert.match(DEFAULT_K8S_MINOR, /^1\.\d\d$/);
    assert.ok(Number(DEFAULT_K8S_MINOR.split('.')[1]) >= 37);
  });

  it('downloads, checks the sha512, unpacks into k8s/<version>-<os>-<arch> and then answers from the cache', async () => {
    const dir = tmp();
    const log: string[] = [];
    const first = await setupEnvtest({
      version: '1.34',
      dir,
      indexUrl: `${base}/envtest-releases.yaml`,
      log: (l) => log.push(l),
    });
    const { os, arch } = goPlatform(process.platform, process.arch);
    assert.equal(first.dir, join(dir, 'k8s', `1.34.1-${os}-${arch}`));
    assert.equal(first.source, 'download');
    for (const b of ['etcd', 'kube-apiserver', 'kubectl']) {
      assert.equal(readFileSync(join(first.dir, b), 'utf8'), `#!/bin/sh\necho "${b} 1.34.1"\n`);
      assert.ok(statSync(join(first.dir, b)).mode & 0o100, `${b} is executable`);
    }
    assert.ok(
      log.some((l) => /sha512 verified/.test(l)),
      log.join('\n'),
    );

    // Same request again: the index is read, the tarball is not downloaded again.
    const before = hits.length;
    const again = await setupEnvtest({ version: '1.34', dir, indexUrl: `${base}/envtest-releases.yaml` });
    assert.deepEqual([again.dir, again.source], [first.dir, 'cache']);
    assert.deepEqual(hits.slice(before), ['/envtest-releases.yaml']);

    // An exact version already unpacked needs no network at all, not even the index.
    const offline = await setupEnvtest({ version: '1.34.1', dir, indexUrl: closed });
    assert.deepEqual([offline.dir, offline.source], [first.dir, 'cache']);
  });

  it('follows redirects', async () => {
    const r = await setupEnvtest({ version: '1.34.0', dir: tmp(), indexUrl: `${base}/envtest-releases.yaml` });
    assert.equal(r.source, 'download');
    assert.equal(readFileSync(join(r.dir, 'etcd'), 'utf8'), '#!/bin/sh\necho "etcd 1.34.0"\n');
  });

  it('refuses a tarball whose sha512 differs, installs nothing and does not fall back', async () => {
    const dir = tmp();
    let built = false;
    await assert.rejects(
      setupEnvtest({
        version: '1.32.9',
        dir,
        indexUrl: `${base}/envtest-releases.yaml`,
        debianBuild: async () => {
          built = true;
          return '/never';
        },
      }),
      (e: unknown) => e instanceof SetupEnvtestError && /sha512 mismatch/.test(e.message),
    );
    assert.equal(built, false);
    const { os, arch } = goPlatform(process.platform, process.arch);
    assert.equal(existsSync(join(dir, 'k8s', `1.32.9-${os}-${arch}`)), false);
  });

  it('an unknown version lists what the index has', async () => {
    await assert.rejects(
      setupEnvtest({ version: '1.21', dir: tmp(), indexUrl: `${base}/envtest-releases.yaml` }),
      /not in the envtest release index/,
    );
  });

  it('without a network: the newest cached release of the minor, else the Go build, else the Debian build (auto) or an error (download)', async () => {
    const dir = tmp();
    await setupEnvtest({ version: '1.34.0', dir, indexUrl: `${base}/envtest-releases.yaml` });
    const cached = await setupEnvtest({ version: '1.34', dir, indexUrl: closed, source: 'download' });
    assert.deepEqual([cached.source, cached.version], ['cache', '1.34.0']);

    // The Go build is tried next, for the default minor when no version is asked for.
    const asked: string[] = [];
    const fresh = tmp();
    const goBuilt = await setupEnvtest({
      dir: fresh,
      indexUrl: closed,
      goBuild: async (v, root) => {
        asked.push(`${v} ${root}`);
        return { dir: '/opt/go-envtest', version: `${DEFAULT_K8S_MINOR}.9`, cached: false };
      },
    });
    assert.deepEqual(
      [goBuilt.dir, goBuilt.source, goBuilt.version],
      ['/opt/go-envtest', 'go', `${DEFAULT_K8S_MINOR}.9`],
    );
    assert.deepEqual(asked, [`${DEFAULT_K8S_MINOR} ${fresh}`]);

    // No Go (or no proxy): the legacy Debian build, said to be legacy.
    const log: string[] = [];
    const noGo = async () => {
      throw new GoBuildError('no Go 1.21 or newer found');
    };
    const built = await setupEnvtest({
      dir: fresh,
      indexUrl: closed,
      platform: 'linux',
      arch: 'x64',
      goBuild: noGo,
      debianBuild: async () => '/opt/debian-envtest/bin',
      log: (l) => log.push(l),
    });
    assert.deepEqual([built.dir, built.source], ['/opt/debian-envtest/bin', 'debian']);
    assert.ok(
      log.some((l) => /download not possible .*ECONNREFUSED.*building from Go modules/.test(l)),
      log.join('\n'),
    );
    assert.ok(
      log.some((l) => /Go build is not possible \(no Go .*: the LEGACY kube-apiserver v1\.20\.2/.test(l)),
      log.join('\n'),
    );
    // --source go does not fall back to Debian.
    await assert.rejects(
      setupEnvtest({ dir: fresh, source: 'go', goBuild: noGo, debianBuild: async () => '/never' }),
      (e: unknown) => e instanceof SetupEnvtestError && /no Go/.test(e.message),
    );

    await assert.rejects(setupEnvtest({ dir: fresh, indexUrl: closed, source: 'download' }), /cannot reach/);
    await assert.rejects(
      setupEnvtest({ dir: fresh, indexUrl: closed, platform: 'darwin', arch: 'arm64', goBuild: noGo }),
      (e: unknown) => e instanceof SetupEnvtestError && /only the download works/.test(e.hint ?? ''),
    );
  });

  it('KUBEBUILDER_ASSETS comes first when it holds both binaries of the requested minor', async () => {
    const assets = tmp();
    for (const b of ['etcd', 'kube-apiserver'])
      writeFileSync(join(assets, b), `#!/bin/sh\necho "Kubernetes v1.35.2"\n`, { mode: 0o755 });
    const none = async () => {
      throw new GoBuildError('not asked');
    };
    const used = await setupEnvtest({ dir: tmp(), assets, indexUrl: closed, goBuild: none });
    assert.deepEqual([used.dir, used.source, used.version], [assets, 'assets', '1.35']);
    assert.equal(
      (await setupEnvtest({ dir: tmp(), assets, version: '1.35', indexUrl: closed, goBuild: none })).source,
      'assets',
    );
    // Another minor asked for: looked up as usual (here: the index).
    const other = await setupEnvtest({
      dir: tmp(),
      assets,
      version: '1.34',
      indexUrl: `${base}/envtest-releases.yaml`,
    });
    assert.deepEqual([other.source, other.version], ['download', '1.34.1']);
    // A folder missing kube-apiserver is not used.
    const half = tmp();
    writeFileSync(join(half, 'etcd'), '#!/bin/sh\n', { mode: 0o755 });
    assert.equal(
      (await setupEnvtest({ dir: tmp(), assets: half, version: '1.34', indexUrl: `${base}/envtest-releases.yaml` }))
        .source,
      'download',
    );
  });

  it("the Go build's module: staging modules replaced by their published versions, etcd as Kubernetes pins it", () => {
    const goMod = [
      'module k8s.io/kubernetes',
      'go 1.26.0',
      'require (',
      '\tgo.etcd.io/etcd/server/v3 v3.6.8 // indirect',
      ')',
      'replace (',
      '\tk8s.io/api => ./staging/src/k8s.io/api',
      '\tk8s.io/client-go => ./staging/src/k8s.io/client-go',
      '\tgithub.com/x/y => github.com/x/y v1.0.0',
      ')',
    ].join('\n');
    assert.deepEqual(stagingReplaces(goMod, '1.36.3'), [
      '\tk8s.io/api => k8s.io/api v0.36.3',
      '\tk8s.io/client-go => k8s.io/client-go v0.36.3',
    ]);
    assert.throws(() => stagingReplaces('module k8s.io/kubernetes\n', '1.36.3'), GoBuildError);
    assert.equal(requiredVersion(goMod, 'go.etcd.io/etcd/server/v3'), 'v3.6.8');
    assert.equal(requiredVersion(goMod, 'go.etcd.io/etcd/client/v3'), undefined);
    assert.equal(
      newestPatch(['v1.35.4', 'v1.36.1', 'v1.36.10', 'v1.36.3', 'v1.37.0-alpha.1', 'v1.37.2'], 36),
      '1.36.10',
    );
    assert.equal(newestPatch(['v1.36.0-rc.1'], 36), undefined);
  });

  it('the CLI prints the folder as its last line, progress on stderr, errors with a hint', async () => {
    let out = '';
    let err = '';
    const ctx = {
      cwd: tmp(),
      color: false,
      out: (t: string) => {
        out += t;
      },
      err: (t: string) => {
        err += t;
      },
    };
    const dir = tmp();
    const code = await run(
      ['node', 'kubeforge', 'setup-envtest', '1.33', '--bin-dir', dir, '--index', `${base}/envtest-releases.yaml`],
      ctx,
    );
    assert.equal(code, 0, err);
    const { os, arch } = goPlatform(process.platform, process.arch);
    assert.equal(out, `${join(dir, 'k8s', `1.33.0-${os}-${arch}`)}\n`);
    assert.match(err, /^setup-envtest: reading the envtest release index/m);

    out = '';
    err = '';
    assert.equal(
      await run(
        ['node', 'kubeforge', 'setup-envtest', '1.21', '--bin-dir', dir, '--index', `${base}/envtest-releases.yaml`],
        ctx,
      ),
      1,
    );
    assert.equal(out, '');
    assert.match(err, /error: Kubernetes 1\.21 is not in the envtest release index[^\n]*\nhint: pick one it lists/);
  });
});
