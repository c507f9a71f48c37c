// TestEnvironment starts the kube-apiserver it is given: the legacy Debian build (v1.20.2) and the
// binaries `kubeforge setup-envtest` downloads or builds (1.2x and 1.3x) take different flags.
// --insecure-port is gone since 1.24: passing it to a newer binary makes it refuse to start.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { apiServerMinor, TestEnvironment } from '../../src/testing/environment.js';
import { must } from '../helpers/must.js';

const made: string[] = [];
after(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

/** A folder with the real etcd and a kube-apiserver stand-in that reports `version` and records its flags. */
function assets(version: string): { dir: string; argsFile: string } {
  const dir = mkdtempSync(join(tmpdir(), 'kf-fake-apiserver-'));
  made.push(dir);
  const argsFile = join(dir, 'args.txt');
  symlinkSync(join(must(process.env.KUBEBUILDER_ASSETS, 'process.env.KUBEBUILDER_ASSETS'), 'etcd'), join(dir, 'etcd'));
  writeFileSync(
    join(dir, 'kube-apiserver'),
    `#!/bin/sh\nif [ "$1" = "--version" ]; then echo "Kubernetes ${version}"; exit 0; fi\nprintf '%s\\n' "$@" > ${JSON.stringify(argsFile)}\necho "stand-in: not a real API server" >&2\nexit 1\n`,
  );
  chmodSync(join(dir, 'kube-apiserver'), 0o755);
  return { dir, argsFile };
}

describe('TestEnvironment and kube-apiserver versions', () => {
  it('reads the minor version a binary reports', () => {
    assert.equal(apiServerMinor(`${assets('v1.34.1').dir}/kube-apiserver`), 34);
    assert.equal(apiServerMinor(`${assets('v1.20.2').dir}/kube-apiserver`), 20);
    assert.equal(apiServerMinor(`${assets('something else').dir}/kube-apiserver`), undefined);
    const real = spawnSync(
      join(must(process.env.KUBEBUILDER_ASSETS, 'process.env.KUBEBUILDER_ASSETS'), 'kube-apiserver'),
      ['--version'],
      {
        encoding: 'utf8',
      },
    ).stdout;
    assert.equal(
      apiServerMinor(join(must(process.env.KUBEBUILDER_ASSETS, 'process.env.KUBEBUILDER_ASSETS'), 'kube-apiserver')),
      Number(/v1\.(\d+)\./.exec(real)?.[1]),
      `the binary this suite runs on: ${real}`,
    );
  });

  for (const [version, insecure] of [
    ['v1.34.1', false],
    ['v1.23.4', true],
  ] as const) {
    it(`${version}: ${insecure ? 'passes' : 'does not pass'} --insecure-port`, async () => {
      const { dir, argsFile } = assets(version);
      const env = new TestEnvironment({ binaryAssetsDirectory: dir, controlPlaneStartTimeoutMs: 20_000 });
      await assert.rejects(env.start(), /kube-apiserver/);
      await env.stop();
      assert.ok(existsSync(argsFile), 'the stand-in was started');
      const args = readFileSync(argsFile, 'utf8').split('\n');
      assert.ok(
        args.some((a) => a.startsWith('--etcd-servers=')),
        args.join(' '),
      );
      assert.equal(args.includes('--insecure-port=0'), insecure);
    });
  }
});
