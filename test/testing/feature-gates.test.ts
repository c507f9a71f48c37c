// TestEnvironment's featureGates option becomes one --feature-gates flag of kube-apiserver, merged
// with gates given in apiServerFlags. The real server starting with a gate is judged in the server
// lane (test/runtime/sharding/apiserver.test.ts starts kube-apiserver 1.37 with ShardedListAndWatch).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { withFeatureGates } from '../../src/testing/control-plane.js';
import { SHARED_KUBECONFIG_ENV, TestEnvironment, TestEnvironmentError } from '../../src/testing/index.js';

describe('featureGates -> kube-apiserver flags', () => {
  it('no gates: the flags unchanged', () => {
    assert.deepEqual(withFeatureGates(['--v=2']), ['--v=2']);
    assert.deepEqual(withFeatureGates(['--v=2'], {}), ['--v=2']);
  });

  it('gates become one sorted --feature-gates flag after the other flags', () => {
    assert.deepEqual(withFeatureGates(['--v=2'], { ShardedListAndWatch: true, APIServerTracing: false }), [
      '--v=2',
      '--feature-gates=APIServerTracing=false,ShardedListAndWatch=true',
    ]);
  });

  it('merges with --feature-gates in apiServerFlags; a gate in both takes the featureGates value', () => {
    assert.deepEqual(
      withFeatureGates(['--feature-gates=A=true,ShardedListAndWatch=false', '--v=1', '--feature-gates=B=false'], {
        ShardedListAndWatch: true,
      }),
      ['--v=1', '--feature-gates=A=true,B=false,ShardedListAndWatch=true'],
    );
  });

  it('refuses what kube-apiserver would misread', () => {
    assert.throws(() => withFeatureGates([], { 'A=true,B': true }), TestEnvironmentError);
    assert.throws(() => withFeatureGates([], { A: 'yes' as unknown as boolean }), TestEnvironmentError);
    assert.throws(() => withFeatureGates(['--feature-gates=A'], {}), /without a value/);
  });

  it('an environment with gates never joins a shared control plane (its server must be started with them)', () => {
    const prev = process.env[SHARED_KUBECONFIG_ENV];
    process.env[SHARED_KUBECONFIG_ENV] = '/nonexistent/shared-kubeconfig';
    try {
      assert.equal(new TestEnvironment({}).sharedKubeconfig, '/nonexistent/shared-kubeconfig');
      assert.equal(new TestEnvironment({ featureGates: { ShardedListAndWatch: true } }).sharedKubeconfig, undefined);
      assert.equal(new TestEnvironment({ featureGates: {} }).sharedKubeconfig, '/nonexistent/shared-kubeconfig');
    } finally {
      if (prev === undefined) delete process.env[SHARED_KUBECONFIG_ENV];
      else process.env[SHARED_KUBECONFIG_ENV] = prev;
    }
  });
});
