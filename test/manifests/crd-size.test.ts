// A CRD near the size etcd stores (1.5 MiB by default) is a warning; past it, the real API server
// (with the test etcd's default limit) refuses to store it, which the warning says.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { checkCRD } from '../../src/manifests/crdcheck/index.js';
import { installCRDs, TestEnvironment, type CRDObject } from '../../src/testing/index.js';

const crd = (descriptionBytes: number): CRDObject =>
  ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'bigs.size.kubeforge.io' },
    spec: {
      group: 'size.kubeforge.io',
      names: { kind: 'Big', listKind: 'BigList', plural: 'bigs', singular: 'big' },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: { spec: { type: 'object', description: 'x'.repeat(descriptionBytes) } },
            },
          },
        },
      ],
    },
  }) as unknown as CRDObject;

describe('CRD size and etcd', () => {
  const env = new TestEnvironment({ useExistingCluster: false });
  before(() => env.start());
  after(() => env.stop());

  it('below 1.2 MB: nothing; near 1.5 MiB: a warning; past it: a warning that the default refuses it, and the server does', async () => {
    const size = (c: CRDObject) => checkCRD(c).map((d) => `${d.severity} ${d.code} ${d.message}`);
    assert.deepEqual(size(crd(1_000_000)), []);
    assert.match(
      size(crd(1_300_000)).join('\n'),
      /^warning KF4610 the CRD of Big is 1\.2\d MiB as JSON; etcd stores objects of at most 1572864 bytes \(1\.5 MiB\) by default, and it is close$/,
    );
    assert.match(size(crd(1_700_000)).join('\n'), /^warning KF4610 .*a cluster with the default refuses it/);
    await installCRDs(env.config, { crds: [crd(1_300_000)], timeoutMs: 60_000 });
    await assert.rejects(
      installCRDs(env.config, {
        crds: [{ ...crd(1_700_000), metadata: { name: 'bigs.size.kubeforge.io' } } as CRDObject],
        timeoutMs: 60_000,
      }),
      /too large|request entity|exceeds/i,
    );
  });
});
