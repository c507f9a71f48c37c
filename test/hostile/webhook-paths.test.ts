// Hostile input, family 6: webhook service paths. manifests refuses exactly the paths the API
// server refuses (each segment a lowercase DNS-1123 subdomain: no '/Mutate_Site', no '..', no
// segment over 253 characters), for admission webhooks and CRD conversion alike; the server is
// asked about every path of the list (dryRun=All).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { webhookPathProblem } from '../../src/project/naming.js';
import { RestClient } from '../../src/runtime/client/rest.js';
import { StatusError } from '../../src/runtime/client/errors.js';
import { TestEnvironment } from '../../src/testing/index.js';

const PATHS = [
  '/validate-batch-example-com-v1-cronjob',
  '/mutate--v1-pod',
  '/convert',
  '/',
  '/a/',
  '/x.y/z',
  '/Mutate_Site',
  '/mutate_site',
  '/a/../convert',
  '/a/./b',
  '/a//b',
  '//',
  `/${'a'.repeat(253)}`,
  `/${'a'.repeat(254)}`,
  '/-a',
  '/a-',
  'relative',
];

describe('webhook service paths: kubeforge refuses what the API server refuses', () => {
  const env = new TestEnvironment({ useExistingCluster: false });
  let rest: RestClient;
  before(async () => {
    await env.start();
    rest = new RestClient(env.config);
  });
  after(async () => {
    rest?.close();
    await env.stop();
  });

  it('every path: same verdict', async () => {
    const disagree: string[] = [];
    for (const path of PATHS) {
      const body = {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        metadata: { name: 'paths.kubeforge.io' },
        webhooks: [
          {
            name: 'v.paths.kubeforge.io',
            admissionReviewVersions: ['v1'],
            sideEffects: 'None',
            clientConfig: { service: { name: 'webhook-service', namespace: 'system', path } },
            rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }],
          },
        ],
      };
      let server = 'accepted';
      try {
        await rest.request('POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', {
          body,
          query: { dryRun: 'All' },
        });
      } catch (e) {
        if (!(e instanceof StatusError) || e.code !== 422) throw e;
        server = 'refused';
      }
      const ours = webhookPathProblem(path) ? 'refused' : 'accepted';
      if (ours !== server) disagree.push(`${path.slice(0, 40)}: kubeforge ${ours}, server ${server}`);
    }
    assert.deepEqual(disagree, []);
  });
});
