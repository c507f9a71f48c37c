// The CRD check's printer-column types and formats, and its unrecognized-format warnings (KF4609,
// KF4615), judged by the real API server: each CRD is created with a dry run, and what the
// server refuses must be what we refuse (with the same list of allowed values), and the formats
// it warns about (`unrecognized format "x"`) the ones we warn about.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { checkCRD } from '../../src/manifests/crdcheck/index.js';
import { RestClient } from '../../src/runtime/client/rest.js';
import { StatusError } from '../../src/runtime/client/errors.js';
import type { JSONSchemaProps } from '../../src/schema/jsonschema.js';
import { TestEnvironment } from '../../src/testing/index.js';

type Obj = Record<string, unknown>;

function crd(props: Record<string, JSONSchemaProps>, columns: Obj[] = []): Obj {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'things.crdcheck.example.com' },
    spec: {
      group: 'crdcheck.example.com',
      names: { kind: 'Thing', listKind: 'ThingList', plural: 'things', singular: 'thing' },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          ...(columns.length ? { additionalPrinterColumns: columns } : {}),
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                apiVersion: { type: 'string' },
                kind: { type: 'string' },
                metadata: { type: 'object' },
                spec: { type: 'object', properties: { replicas: { type: 'integer' }, ...props } },
              },
            },
          },
        },
      ],
    },
  };
}

/** Formats on every kind of node, recognised or not. */
const FORMATS: Record<string, JSONSchemaProps> = {
  dateTime: { type: 'string', format: 'date-time' },
  datetime: { type: 'string', format: 'datetime' },
  shortName: { type: 'string', format: 'k8s-short-name' },
  longName: { type: 'string', format: 'k8s-long-name' },
  uuid: { type: 'string', format: 'uuid4' },
  duration: { type: 'string', format: 'duration' },
  phone: { type: 'string', format: 'phone' },
  upper: { type: 'string', format: 'Email' },
  int32: { type: 'integer', format: 'int32' },
  // @Type('string') over an int32 (the oracle's markers case): the format stays, on a string.
  stringInt32: { type: 'string', format: 'int32' },
  intDouble: { type: 'integer', format: 'double' },
  intDate: { type: 'integer', format: 'date' },
  double: { type: 'number', format: 'double' },
  numInt: { type: 'number', format: 'int64' },
  bool: { type: 'boolean', format: 'bool' },
  object: { type: 'object', format: 'date-time' },
  list: { type: 'array', format: 'list', items: { type: 'string', format: 'color' } },
  map: { type: 'object', additionalProperties: { type: 'string', format: 'url' } },
  allOf: { type: 'integer', allOf: [{ format: 'int64' }] },
  intOrString: {
    'x-kubernetes-int-or-string': true,
    anyOf: [{ type: 'integer' }, { type: 'string' }],
    format: 'int-or-string',
  },
};

describe('the CRD check on printer columns and formats, against the real API server', () => {
  let env: TestEnvironment;
  let client: RestClient;
  const warnings: string[] = [];
  before(async () => {
    env = new TestEnvironment({ useExistingCluster: false });
    await env.start();
    client = new RestClient(env.config);
    client.setWarningHandler((w) => warnings.push(w));
  });
  after(async () => {
    client?.close();
    await env?.stop();
  });

  /** The server's dry-run create: its refusal, if any, and its warnings. */
  async function dryRun(body: Obj): Promise<{ refused?: string; warnings: string[] }> {
    warnings.length = 0;
    try {
      await client.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
        body,
        query: { dryRun: 'All' },
      });
      return { warnings: [...warnings] };
    } catch (err) {
      if (!(err instanceof StatusError)) throw err;
      return { refused: err.message, warnings: [...warnings] };
    }
  }

  it('printer columns: we refuse the types and formats the server refuses, and take the rest', async () => {
    const cases: Obj[] = [
      ...['integer', 'number', 'string', 'boolean', 'date', 'text', 'Integer', 'object', ''].map((type) => ({ type })),
      ...['', 'int32', 'date-time', 'password', 'uri', 'duration', 'int'].map((format) => ({ type: 'string', format })),
    ];
    const disagree: string[] = [];
    for (const c of cases) {
      const column = { name: 'A', jsonPath: '.spec.replicas', ...c };
      const server = await dryRun(crd({}, [column]));
      const ours = checkCRD(crd({}, [column])).filter((d) => d.severity === 'error');
      const what = JSON.stringify(c);
      if ((server.refused !== undefined) !== ours.length > 0)
        disagree.push(
          `${what}: server ${server.refused ?? 'creates it'}, we ${ours.map((d) => d.message).join(' | ') || 'write it'}`,
        );
      // The allowed values we name are the server's, in its order.
      for (const d of ours) {
        const list = /must be one of ([a-z0-9,-]+)/.exec(d.message)?.[1];
        assert.ok(
          list && server.refused?.includes(`must be one of ${list}`),
          `${what}: ${d.message} / ${server.refused}`,
        );
      }
    }
    assert.deepEqual(disagree, []);
    // The ones that must be refused are refused (the loop above would pass if both took all).
    const refused = (c: Obj) => checkCRD(crd({}, [{ name: 'A', jsonPath: '.spec.replicas', ...c }])).length > 0;
    assert.ok(refused({ type: 'text' }) && refused({ type: 'string', format: 'uri' }) && !refused({ type: 'date' }));
  });

  it('formats: we warn about exactly the formats the server warns about (unrecognized format "x")', async () => {
    const body = crd(FORMATS);
    const server = await dryRun(body);
    assert.equal(server.refused, undefined);
    const theirs = server.warnings
      .map((w) => /^unrecognized format "(.*)"$/.exec(w)?.[1])
      .filter((f): f is string => f !== undefined)
      .sort();
    const ours = checkCRD(body)
      .filter((d) => d.code === 'KF4615')
      .map((d) => {
        assert.equal(d.severity, 'warning');
        return /unrecognized format "(.*?)"/.exec(d.message)?.[1] ?? d.message;
      })
      .sort();
    // The server warns once per text; we warn once per field.
    assert.deepEqual([...new Set(ours)], [...new Set(theirs)]);
    assert.ok(
      theirs.includes('phone') &&
        theirs.includes('int-or-string') &&
        theirs.includes('int32') &&
        !theirs.includes('k8s-short-name'),
      theirs.join(),
    );
  });
});
