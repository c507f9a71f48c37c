// Issue #39, "Many clusters", on kube-apiserver (KUBEBUILDER_ASSETS; 1.37 in the default run):
// three control planes, the first the host; kubeconfig Secrets labelled and keyed as
// multicluster-runtime v0.24's kubeconfig provider reads them, created, changed and deleted at run
// time; one ConfigMap reconciler (scenario.ts): each cluster's objects reconciled with its
// clusterName, a removed cluster disengaged cleanly (its informer receives nothing more, no
// reconcile of it, nothing of it queued) while the others go on, a changed Secret re-engaged.
import { after, before, describe, it } from 'node:test';
import { startTestClusters, type TestClusters } from '../../../src/testing/multicluster.js';
import { kubeconfigSecretScenario } from './scenario.js';
import { must } from '../../helpers/must.js';

describe('multi-cluster manager on three kube-apiservers', () => {
  let fleet: TestClusters | undefined;
  before(async () => {
    fleet = await startTestClusters(['east', 'west', 'north']);
  });
  after(async () => {
    await fleet?.stop();
  });

  it('kubeconfig Secrets created, changed and deleted at run time engage, re-engage and disengage clusters', async () => {
    await kubeconfigSecretScenario(must(fleet, 'fleet'), { timeout: 30_000, quiet: 3000 });
  });
});
