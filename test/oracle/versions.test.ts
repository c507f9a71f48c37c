// The oracles are the newest releases (issue #43, "the latest oracles"): controller-gen is the
// newest controller-tools the Go module proxy serves, Kubebuilder the newest v4, and the
// controller-runtime the Kubebuilder oracle's Go projects are built on (its scaffold's pin, read
// from Kubebuilder's own source at that release) is v0.25. When a newer release appears, this
// fails and names it: move the constant in ./tools.ts and run the oracle tests.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { findGo } from '../../src/envtest/go-build.js';
import { CONTROLLER_GEN_VERSION, goModuleDir, KUBEBUILDER_VERSION } from './tools.js';

/** The released versions of a Go module, as the go command lists them (oldest first). */
async function released(path: string): Promise<string[]> {
  const go = await findGo();
  assert.ok(go, 'needs Go 1.21+ (go on PATH or /usr/local/go/bin/go)');
  const r = spawnSync(go, ['list', '-m', '-versions', path], { cwd: tmpdir(), encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.trim().split(/\s+/).slice(1);
}

/** Whether `a` is a later semantic version than `b` (vX.Y.Z, no pre-releases). */
const later = (a: string, b: string) => {
  const [x, y] = [a, b].map((v) => v.replace(/^v/, '').split('.').map(Number));
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] > y[i];
  return false;
};
const newest = (vs: string[]) => vs.filter((v) => /^v\d+\.\d+\.\d+$/.test(v)).reduce((a, b) => (later(b, a) ? b : a));

describe('the oracles are the newest releases', () => {
  it(`controller-gen ${CONTROLLER_GEN_VERSION} is the newest controller-tools release`, async () => {
    assert.equal(newest(await released('sigs.k8s.io/controller-tools')), CONTROLLER_GEN_VERSION);
  });

  it(`Kubebuilder ${KUBEBUILDER_VERSION} is the newest v4 release, and its projects are on controller-runtime v0.25`, async () => {
    assert.equal(newest(await released('sigs.k8s.io/kubebuilder/v4')), KUBEBUILDER_VERSION);
    const dir = await goModuleDir('sigs.k8s.io/kubebuilder/v4', KUBEBUILDER_VERSION);
    const init = readFileSync(join(dir, 'pkg/plugins/golang/v4/scaffolds/init.go'), 'utf8');
    assert.match(init, /ControllerRuntimeVersion = "v0\.25\.\d+"/);
  });
});
