// Offline: the FakeAPIServer's KubeConfig (localKubeConfig) answers as client-node's KubeConfig
// loaded from the same data, and becomes one on any other use.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { localKubeConfig, newKubeConfig, type KubeConfigData } from '../../../src/runtime/client/kubeconfig.js';

const data = (): KubeConfigData => ({
  clusters: [
    { name: 'fake', server: 'http://127.0.0.1:1234', skipTLSVerify: true },
    { name: 'other', server: 'https://example.com', skipTLSVerify: false },
  ],
  users: [{ name: 'fake' }],
  contexts: [{ name: 'fake', cluster: 'fake', user: 'fake', namespace: 'default' }],
  currentContext: 'fake',
});

function real(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions(data());
  return kc;
}

describe('localKubeConfig', () => {
  it('answers what the REST client asks as client-node does', async () => {
    const ours = localKubeConfig(data());
    const theirs = real();
    assert.deepEqual(ours.getCurrentCluster(), theirs.getCurrentCluster());
    assert.deepEqual(ours.getCurrentUser(), theirs.getCurrentUser());
    assert.equal(ours.getCurrentContext(), theirs.getCurrentContext());
    assert.deepEqual(ours.getContextObject('fake'), theirs.getContextObject('fake'));
    assert.deepEqual(ours.getContextObject('nope'), theirs.getContextObject('nope'));
    assert.deepEqual(ours.getCluster('other'), theirs.getCluster('other'));
    assert.deepEqual(ours.getClusters(), theirs.getClusters());
    assert.deepEqual(ours.getUsers(), theirs.getUsers());
    assert.deepEqual(ours.getContexts(), theirs.getContexts());
    const a: Record<string, unknown> = {};
    const b: Record<string, unknown> = {};
    await ours.applyToHTTPSOptions(a);
    await theirs.applyToHTTPSOptions(b);
    // client-node also sets an https.Agent the REST client does not use.
    const { agent, ...rest } = b;
    assert.ok(agent);
    assert.deepEqual(a, rest);
  });

  it('is a client-node KubeConfig for any other use', () => {
    const ours = localKubeConfig(data());
    assert.ok(ours instanceof KubeConfig);
    assert.equal(ours.exportConfig(), real().exportConfig());
    ours.setCurrentContext('fake');
    assert.equal(ours.getCurrentCluster()?.server, 'http://127.0.0.1:1234');
  });

  it('a change made through client-node is seen by every later call', () => {
    const ours = localKubeConfig(data());
    ours.addCluster({ name: 'new', server: 'https://new.example.com', skipTLSVerify: false });
    ours.addContext({ name: 'new', cluster: 'new', user: 'fake' });
    ours.setCurrentContext('new');
    assert.equal(ours.getCurrentCluster()?.server, 'https://new.example.com');
    assert.equal(ours.getCurrentContext(), 'new');
  });

  it('refuses users with credentials (they need client-node to authenticate)', () => {
    const d = data();
    d.users = [{ name: 'fake', token: 'secret' }];
    assert.throws(() => localKubeConfig(d), /user fake has credentials \(token\)/);
  });

  it('newKubeConfig is client-node KubeConfig', () => {
    assert.ok(newKubeConfig() instanceof KubeConfig);
  });
});
