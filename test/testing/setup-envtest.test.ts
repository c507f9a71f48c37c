// scripts/setup-envtest.sh on its cached path (binaries present, build stamp current): what
// `npm test`, CI and a generated project's `make setup-envtest` run before every test run. It must
// print the folder as its last line and exit 0 every time: once, `etcd --version | head -1` under
// `set -o pipefail` failed at random (etcd died of SIGPIPE when head exited first: exit 141).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

const root = process.env.KUBEFORGE_REPO_ROOT ?? process.cwd();
const script = join(root, 'scripts/setup-envtest.sh');
/** The stamp the script expects of a cached kube-apiserver (read from the script, so the test follows it). */
const stamp = /^STAMP="(.*)"$/m.exec(readFileSync(script, 'utf8'))?.[1];

function runScript(
  envtestDir: string,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [script], {
      env: { ...process.env, KUBEFORGE_ENVTEST_DIR: envtestDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

describe('setup-envtest.sh, cached path', () => {
  let dir: string;
  let bin: string;

  before(() => {
    assert.ok(stamp, 'the script declares its build STAMP');
    dir = mkdtempSync(join(tmpdir(), 'kubeforge-setup-envtest-'));
    bin = join(dir, 'bin');
    mkdirSync(bin);
    // Stand-ins for the two binaries. This etcd prints far more than a pipe buffer holds on
    // --version, so any reader that stops after the first line (head -1) makes it die of SIGPIPE:
    // with the old pipeline the script exited 141 every time, not one time in six.
    const etcd = join(bin, 'etcd');
    writeFileSync(
      etcd,
      '#!/usr/bin/env bash\necho "etcd Version: 3.4.23"\nfor i in $(seq 1 20000); do echo "Git SHA: line $i of a long version banner"; done\n',
    );
    const apiserver = join(bin, 'kube-apiserver');
    writeFileSync(apiserver, '#!/usr/bin/env bash\necho "Kubernetes v1.20.2"\n');
    chmodSync(etcd, 0o755);
    chmodSync(apiserver, 0o755);
    writeFileSync(join(bin, '.build-stamp'), `${stamp}\n`);
  });

  after(() => rmSync(dir, { recursive: true, force: true }));

  it('prints the folder and exits 0 when etcd --version prints more than a pipe holds', async () => {
    const r = await runScript(dir);
    assert.equal(r.code, 0, `exit ${r.code ?? r.signal}; stderr:\n${r.stderr.slice(-2000)}`);
    assert.equal(r.stdout.trim().split('\n').at(-1), bin);
    assert.match(r.stderr, /etcd Version: 3\.4\.23/);
    assert.doesNotMatch(r.stderr, /line 2 of/, 'only the first line of the version banner is shown');
  });

  it('succeeds on 60 runs in a row (4 at a time)', async () => {
    const failures: string[] = [];
    for (let batch = 0; batch < 15; batch++) {
      const results = await Promise.all([0, 1, 2, 3].map(() => runScript(dir)));
      for (const r of results) {
        const last = r.stdout.trim().split('\n').at(-1);
        if (r.code !== 0 || last !== bin)
          failures.push(`exit ${r.code ?? r.signal}, last line ${JSON.stringify(last)}: ${r.stderr.slice(-300)}`);
      }
    }
    assert.deepEqual(failures, []);
  });

  it('fails with a message, not silently, when etcd cannot report its version', async () => {
    const broken = mkdtempSync(join(tmpdir(), 'kubeforge-setup-envtest-broken-'));
    try {
      mkdirSync(join(broken, 'bin'));
      writeFileSync(join(broken, 'bin/etcd'), '#!/usr/bin/env bash\necho "etcd: cannot start" >&2\nexit 3\n');
      chmodSync(join(broken, 'bin/etcd'), 0o755);
      writeFileSync(join(broken, 'bin/kube-apiserver'), '#!/usr/bin/env bash\necho "Kubernetes v1.20.2"\n');
      chmodSync(join(broken, 'bin/kube-apiserver'), 0o755);
      writeFileSync(join(broken, 'bin/.build-stamp'), `${stamp}\n`);
      const r = await runScript(broken);
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /etcd --version failed: etcd: cannot start/);
      assert.equal(r.stdout, '', 'no folder is printed when the binaries do not work');
    } finally {
      rmSync(broken, { recursive: true, force: true });
    }
  });
});
