// Our kube-apiserver is built from Debian's v1.20.2 sources with a newer Go, under which the
// vendored go-openapi type validator judged "", 0 and false to be null and rejected them in
// custom resources (scripts/setup-envtest.sh patches it). These checks keep that fixed: an
// operator's tests routinely write empty condition messages, zero counts and false flags.
import { CustomObjectsApi } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TestEnvironment } from '../../src/testing/index.js';

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'zeros.test.kubeforge.io' },
  spec: {
    group: 'test.kubeforge.io',
    names: { kind: 'Zero', listKind: 'ZeroList', plural: 'zeros', singular: 'zero' },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  text: { type: 'string' },
                  count: { type: 'integer' },
                  ratio: { type: 'number' },
                  on: { type: 'boolean' },
                },
              },
            },
          },
        },
      },
    ],
  },
};

describe('test API server: zero values in custom resources', () => {
  const env = new TestEnvironment({ crds: [crd] as never });
  let api: CustomObjectsApi;
  before(async () => {
    api = (await env.start()).makeApiClient(CustomObjectsApi);
  });
  after(() => env.stop());

  const create = (name: string, spec: Record<string, unknown>) =>
    api.createNamespacedCustomObject({
      group: 'test.kubeforge.io',
      version: 'v1',
      namespace: 'default',
      plural: 'zeros',
      body: { apiVersion: 'test.kubeforge.io/v1', kind: 'Zero', metadata: { name }, spec },
    }) as Promise<{ spec: Record<string, unknown> }>;

  it('accepts "", 0, 0.0 and false and stores them as sent', async () => {
    const spec = { text: '', count: 0, ratio: 0, on: false };
    const created = await create('zeros', spec);
    assert.deepEqual(created.spec, spec);
  });

  it('still rejects a value of the wrong type', async () => {
    await assert.rejects(create('wrong', { text: 5 }), (e: { code?: number; body?: string }) => {
      assert.equal(e.code, 422);
      assert.match(String(e.body), /spec\.text.*must be of type string/);
      return true;
    });
  });
});
