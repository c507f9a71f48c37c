// scripts/k8s-go-source.mjs: the Go modules k8s.io/api and k8s.io/apimachinery of each supported
// Kubernetes minor, from the Go module cache. These tests give the module a stand-in `go` command
// (a script answering `go env GOVERSION` and `go mod download -json` the way the go command does, and
// logging how it was called), so every path (a module found, hashes that are not the pinned ones, the
// go command failing, an old Go, a folder that is not there) runs without the network. The real
// pins' form is checked here; test/schema/k8s/schema.test.ts reads the real modules.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { must } from '../../helpers/must.js';

const root = process.env.KUBEFORGE_REPO_ROOT ?? resolve(fileURLToPath(import.meta.url), '../../../../..');

interface Pin {
  path: string;
  version: string;
  sum: string;
  goModSum: string;
}
interface MinorPin {
  kubernetes: string;
  modules: Pin[];
}
interface GoSource {
  GO_MINORS: readonly MinorPin[];
  GO_SOURCE_ERROR: string;
  minorPin(kubernetes: string, minors?: readonly MinorPin[]): MinorPin;
  findGoCommand(options?: { go?: string }): string;
  goModuleDir(pin: Pin, options?: { go?: string }): string;
  kubernetesGoModules(
    kubernetes: string,
    options?: { go?: string; minors?: readonly MinorPin[] },
  ): Record<string, string>;
}
const load = async () => (await import(pathToFileURL(join(root, 'scripts/k8s-go-source.mjs')).href)) as GoSource;

// The stand-in: `fake-go.mjs <state file> <args...>`. The state file says the Go version to report
// and, per `module@version`, the JSON `go mod download -json` prints (or `fail` to exit 1 as the go
// command does when the proxy cannot be reached). Every call is logged with its working folder and
// GOFLAGS.
const FAKE_GO = `
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
const [state, ...args] = process.argv.slice(2);
const s = JSON.parse(readFileSync(state, 'utf8'));
appendFileSync(s.log, JSON.stringify({ args, cwd: process.cwd(), goMod: existsSync(join(process.cwd(), 'go.mod')), goflags: process.env.GOFLAGS }) + '\\n');
if (args[0] === 'env' && args[1] === 'GOVERSION') { console.log(s.goVersion); process.exit(0); }
if (args[0] === 'mod' && args[1] === 'download' && args[2] === '-json') {
  const answer = s.modules[args[3]];
  if (answer === 'fail') {
    console.log(JSON.stringify({ Path: args[3].split('@')[0], Version: args[3].split('@')[1], Error: 'dial tcp: lookup proxy.invalid: no such host (stand-in)' }, null, '\\t'));
    process.exit(1);
  }
  console.log(JSON.stringify(answer, null, '\\t'));
  process.exit(0);
}
console.error('fake go: unexpected ' + args.join(' '));
process.exit(2);
`;

describe('k8s go source: the Go modules of each supported minor, from the module cache', () => {
  let work: string;
  let n = 0;
  before(() => {
    work = mkdtempSync(join(tmpdir(), 'kf-go-source-'));
    writeFileSync(join(work, 'fake-go.mjs'), FAKE_GO);
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  const pin: Pin = { path: 'k8s.io/api', version: 'v0.99.1', sum: 'h1:aaaa=', goModSum: 'h1:bbbb=' };
  const machinery: Pin = { path: 'k8s.io/apimachinery', version: 'v0.99.1', sum: 'h1:cccc=', goModSum: 'h1:dddd=' };

  /** A stand-in go command with this state; returns its path and a reader of its call log. */
  function fakeGo(state: { goVersion?: string; modules?: Record<string, unknown> }) {
    const id = ++n;
    const log = join(work, `calls-${id}.log`);
    writeFileSync(log, '');
    const stateFile = join(work, `state-${id}.json`);
    writeFileSync(stateFile, JSON.stringify({ goVersion: 'go1.26.8', modules: {}, ...state, log }));
    const go = join(work, `go-${id}`);
    writeFileSync(go, `#!/bin/sh\nexec "${process.execPath}" "${join(work, 'fake-go.mjs')}" "${stateFile}" "$@"\n`, {
      mode: 0o755,
    });
    const calls = () =>
      readFileSync(log, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { args: string[]; cwd: string; goMod: boolean; goflags?: string });
    return { go, calls };
  }
  const moduleDir = (name: string) => {
    const dir = join(work, 'mod', name);
    mkdirSync(dir, { recursive: true });
    return dir;
  };

  it('the real pins: one per supported minor, consecutive, each k8s.io/api and k8s.io/apimachinery at one release of that minor with both go.sum hashes', async () => {
    const { GO_MINORS } = await load();
    assert.ok(GO_MINORS.length >= 3, 'at least the newest three minors');
    GO_MINORS.forEach((m, i) => {
      assert.match(m.kubernetes, /^1\.\d+$/);
      if (i > 0)
        assert.equal(
          Number(m.kubernetes.split('.')[1]),
          Number(GO_MINORS[i - 1].kubernetes.split('.')[1]) + 1,
          'minors are consecutive, oldest first',
        );
      assert.deepEqual(
        m.modules.map((p) => p.path),
        ['k8s.io/api', 'k8s.io/apimachinery'],
      );
      const minor = m.kubernetes.split('.')[1];
      assert.equal(
        m.modules[0].version,
        m.modules[1].version,
        'k8s.io/api and k8s.io/apimachinery of the same release',
      );
      for (const p of m.modules) {
        assert.match(
          p.version,
          new RegExp(`^v0\\.${minor}\\.\\d+$`),
          `${p.path} ${p.version} is a release of Kubernetes ${m.kubernetes}`,
        );
        assert.match(p.sum, /^h1:[A-Za-z0-9+/]{43}=$/, p.path);
        assert.match(p.goModSum, /^h1:[A-Za-z0-9+/]{43}=$/, p.path);
      }
    });
  });

  it('minorPin names the supported minors when asked for another', async () => {
    const { minorPin, GO_MINORS, GO_SOURCE_ERROR } = await load();
    assert.equal(minorPin(GO_MINORS[0].kubernetes), GO_MINORS[0]);
    assert.throws(
      () => minorPin('1.2'),
      (e: Error & { code?: string }) =>
        e.code === GO_SOURCE_ERROR &&
        e.message.includes(
          `no Go module pins for Kubernetes 1.2 (pinned: ${GO_MINORS.map((m) => m.kubernetes).join(', ')})`,
        ),
    );
  });

  it('findGoCommand takes a Go of 1.21 or newer and refuses an older one, saying what it tried', async () => {
    const { findGoCommand, GO_SOURCE_ERROR } = await load();
    const recent = fakeGo({ goVersion: 'go1.21.0' });
    assert.equal(findGoCommand({ go: recent.go }), recent.go);
    const old = fakeGo({ goVersion: 'go1.19.8' });
    assert.throws(
      () => findGoCommand({ go: old.go }),
      (e: Error & { code?: string }) =>
        e.code === GO_SOURCE_ERROR && e.message.includes(`no Go 1.21 or newer (tried ${old.go})`),
    );
    assert.throws(() => findGoCommand({ go: join(work, 'no-such-go') }), /no Go 1\.21 or newer/);
  });

  it('goModuleDir runs go mod download -json outside any module and returns the Dir when the hashes are the pinned ones', async () => {
    const { goModuleDir } = await load();
    const dir = moduleDir('api@v0.99.1');
    const { go, calls } = fakeGo({
      modules: {
        'k8s.io/api@v0.99.1': {
          Path: 'k8s.io/api',
          Version: 'v0.99.1',
          Dir: dir,
          Sum: pin.sum,
          GoModSum: pin.goModSum,
        },
      },
    });
    assert.equal(goModuleDir(pin, { go }), dir);
    const download = must(
      calls().find((c) => c.args[0] === 'mod'),
      "calls().find((c) => c.args[0] === 'mod')",
    );
    assert.deepEqual(download.args, ['mod', 'download', '-json', 'k8s.io/api@v0.99.1']);
    assert.equal(download.goMod, false, 'run in a folder with a go.mod');
    assert.equal(download.goflags, '-mod=mod');
  });

  it('goModuleDir refuses a module whose hashes are not the pinned ones', async () => {
    const { goModuleDir, GO_SOURCE_ERROR } = await load();
    const dir = moduleDir('api@v0.99.1-other');
    const { go } = fakeGo({ modules: { 'k8s.io/api@v0.99.1': { Dir: dir, Sum: 'h1:zzzz=', GoModSum: pin.goModSum } } });
    assert.throws(
      () => goModuleDir(pin, { go }),
      (e: Error & { code?: string }) =>
        e.code === GO_SOURCE_ERROR &&
        e.message.includes(
          `k8s.io/api@v0.99.1 in the module cache has hashes h1:zzzz= / h1:bbbb=, expected h1:aaaa= / h1:bbbb=`,
        ) &&
        /Refusing to use it/.test(e.message),
    );
  });

  it('when the go command fails, says why and what to run by hand', async () => {
    const { goModuleDir, GO_SOURCE_ERROR } = await load();
    const { go } = fakeGo({ modules: { 'k8s.io/api@v0.99.1': 'fail' } });
    assert.throws(
      () => goModuleDir(pin, { go }),
      (e: Error & { code?: string }) => {
        assert.equal(e.code, GO_SOURCE_ERROR);
        assert.match(
          e.message,
          /go mod download k8s\.io\/api@v0\.99\.1 failed: dial tcp: lookup proxy\.invalid: no such host \(stand-in\)/,
        );
        assert.ok(
          e.message.includes('  go mod download -json k8s.io/api@v0.99.1   # Sum h1:aaaa=, GoModSum h1:bbbb='),
          e.message,
        );
        return true;
      },
    );
  });

  it('refuses a Dir that does not exist', async () => {
    const { goModuleDir } = await load();
    const { go } = fakeGo({
      modules: { 'k8s.io/api@v0.99.1': { Dir: join(work, 'gone'), Sum: pin.sum, GoModSum: pin.goModSum } },
    });
    assert.throws(() => goModuleDir(pin, { go }), /go mod download names .*gone, which does not exist/);
  });

  it('kubernetesGoModules gives the folder of each module of a minor', async () => {
    const { kubernetesGoModules } = await load();
    const api = moduleDir('api@v0.99.1-ok');
    const mach = moduleDir('apimachinery@v0.99.1');
    const { go } = fakeGo({
      modules: {
        'k8s.io/api@v0.99.1': { Dir: api, Sum: pin.sum, GoModSum: pin.goModSum },
        'k8s.io/apimachinery@v0.99.1': { Dir: mach, Sum: machinery.sum, GoModSum: machinery.goModSum },
      },
    });
    const minors = [{ kubernetes: '1.99', modules: [pin, machinery] }];
    assert.deepEqual(kubernetesGoModules('1.99', { go, minors }), { 'k8s.io/api': api, 'k8s.io/apimachinery': mach });
    assert.throws(
      () => kubernetesGoModules('1.98', { go, minors }),
      /no Go module pins for Kubernetes 1\.98 \(pinned: 1\.99\)/,
    );
  });
});
