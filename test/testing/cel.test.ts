// CEL enforcement in kubeforge/testing. An API server before 1.25 does not evaluate
// x-kubernetes-validations, so TestEnvironment installs a validating webhook that does; from 1.25
// the server does it and no webhook is installed. Either way, samples of controller-tools'
// CronJob rules are accepted or refused alike: 422 Invalid with the field causes and a current
// server's wording. (CI runs this file on the current server and on the legacy v1.20 build.)
// The server lists its errors in no fixed order (it walks a Go map): they are compared as sets.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RestClient } from '../../src/runtime/client/rest.js';
import { StatusError } from '../../src/runtime/client/errors.js';
import { TestEnvironment, runningControlPlanePids, type CRDObject } from '../../src/testing/index.js';
import { apiServerMinor } from '../../src/testing/environment.js';
import { join } from 'node:path';

/** Whether the test's API server evaluates the rules itself (1.25 and later). */
const serverEnforces = (apiServerMinor(join(process.env.KUBEBUILDER_ASSETS ?? '', 'kube-apiserver')) ?? 0) >= 25;

/**
 * The field errors of an apimachinery aggregate message, `Kind "name" is invalid: [a, b]` or
 * `...: a` (after `admission webhook "..." denied the request: ` when the webhook answered).
 */
function errorsOf(message: string, prefix: string): string[] {
  const at = message.indexOf(prefix);
  assert.ok(at >= 0, message);
  const body = message.slice(at + prefix.length);
  return (body.startsWith('[') && body.endsWith(']') ? body.slice(1, -1).split(/, (?=spec\.)/) : [body]).sort();
}

const spec = {
  type: 'object',
  'x-kubernetes-validations': [
    {
      rule: 'has(oldSelf.forbiddenInt) || !has(self.forbiddenInt)',
      message: 'forbiddenInt is not allowed',
      fieldPath: '.forbiddenInt',
      reason: 'FieldValueForbidden',
    },
  ],
  properties: {
    schedule: { type: 'string' },
    forbiddenInt: { type: 'integer' },
    stringWithEvenLength: {
      type: 'string',
      'x-kubernetes-validations': [
        { rule: 'self.size() % 2 == 0', message: 'must have even length' },
        { rule: 'true' },
      ],
    },
    stringWithEvenLengthAndMessageExpression: {
      type: 'string',
      'x-kubernetes-validations': [
        { rule: 'self.size() % 2 == 0', messageExpression: "self + ' has odd length, must be even'" },
      ],
    },
    stringWithEvenLengthAndGoodPrefix: {
      type: 'string',
      'x-kubernetes-validations': [
        { rule: "self.startsWith('good-')", message: 'must have good prefix' },
        { rule: 'self.size() % 2 == 0', message: 'must have even length' },
      ],
    },
    onlyAllowSettingOnUpdate: {
      type: 'integer',
      'x-kubernetes-validations': [
        {
          rule: 'oldSelf.hasValue() || self == 0',
          message: 'must be set to 0 on creation. can be set to any value on an update.',
          optionalOldSelf: true,
        },
      ],
    },
  },
};

const crd: CRDObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'cronjobs.cel.kubeforge.io' },
  spec: {
    group: 'cel.kubeforge.io',
    names: { kind: 'CronJob', listKind: 'CronJobList', plural: 'cronjobs', singular: 'cronjob' },
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
              apiVersion: { type: 'string' },
              kind: { type: 'string' },
              metadata: { type: 'object' },
              spec,
            },
          },
        },
      },
    ],
  },
};

const path = '/apis/cel.kubeforge.io/v1/namespaces/default/cronjobs';
const cron = (name: string, s: Record<string, unknown>) => ({
  apiVersion: 'cel.kubeforge.io/v1',
  kind: 'CronJob',
  metadata: { name },
  spec: { schedule: '*/1 * * * *', ...s },
});

/** The refusal of a request, as StatusError with the Status the API server returned. */
async function refusal(p: Promise<unknown>): Promise<{
  status: number;
  reason: string;
  message: string;
  causes: { reason: string; field: string; message: string }[];
}> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof StatusError, String(e));
    const causes = (e.status.details?.causes ?? []) as { reason: string; field: string; message: string }[];
    return { status: e.code, reason: e.reason, message: e.status.message ?? '', causes };
  }
  assert.fail('the request was accepted');
}

describe(
  serverEnforces
    ? 'CEL rules enforced by the API server (1.25+): no webhook, the same answers'
    : 'CEL enforcement on an API server older than 1.25: the webhook',
  () => {
    const env = new TestEnvironment({ crds: [crd] });
    let rest: RestClient;
    before(async () => {
      await env.start();
      rest = new RestClient(env.config);
    });
    after(async () => {
      rest?.close();
      await env.stop();
      // the webhook's process went with the control plane
      assert.deepEqual(runningControlPlanePids(), []);
    });

    it(
      serverEnforces
        ? 'runs no webhook process: etcd and the API server only'
        : 'runs the webhook in its own process, beside etcd and the API server',
      () => {
        assert.equal(runningControlPlanePids().length, serverEnforces ? 2 : 3);
      },
    );

    it(serverEnforces ? 'installs no CEL webhook' : 'installs the CEL webhook for the CRDs with rules', () => {
      const names = env.webhookConfigurations.map((c) => c.metadata.name);
      assert.equal(
        names.filter((n) => n.startsWith('kubeforge-envtest-cel-')).length,
        serverEnforces ? 0 : 1,
        names.join(', '),
      );
    });

    it('accepts objects every rule holds for', async () => {
      const created = (await rest.request('POST', path, {
        body: cron('good', {
          stringWithEvenLength: 'ab',
          stringWithEvenLengthAndMessageExpression: 'abcd',
          stringWithEvenLengthAndGoodPrefix: 'good-x',
          onlyAllowSettingOnUpdate: 0,
        }),
      })) as { metadata: { name: string } };
      assert.equal(created.metadata.name, 'good');
    });

    it('refuses on create with the API server wording: message, messageExpression, optionalOldSelf', async () => {
      const r = await refusal(
        rest.request('POST', path, {
          body: cron('bad', {
            stringWithEvenLength: 'abc',
            stringWithEvenLengthAndMessageExpression: 'abc',
            stringWithEvenLengthAndGoodPrefix: 'bad-',
            onlyAllowSettingOnUpdate: 3,
          }),
        }),
      );
      assert.equal(r.status, 422);
      assert.equal(r.reason, 'Invalid');
      assert.deepEqual(errorsOf(r.message, 'CronJob.cel.kubeforge.io "bad" is invalid: '), [
        'spec.onlyAllowSettingOnUpdate: Invalid value: 3: must be set to 0 on creation. can be set to any value on an update.',
        'spec.stringWithEvenLength: Invalid value: "abc": must have even length',
        'spec.stringWithEvenLengthAndGoodPrefix: Invalid value: "bad-": must have good prefix',
        'spec.stringWithEvenLengthAndMessageExpression: Invalid value: "abc": abc has odd length, must be even',
      ]);
      assert.deepEqual(r.causes.map((c) => `${c.reason} ${c.field}`).sort(), [
        'FieldValueInvalid spec.onlyAllowSettingOnUpdate',
        'FieldValueInvalid spec.stringWithEvenLength',
        'FieldValueInvalid spec.stringWithEvenLengthAndGoodPrefix',
        'FieldValueInvalid spec.stringWithEvenLengthAndMessageExpression',
      ]);
    });

    it('skips transition rules on create, applies them on update (reason and fieldPath)', async () => {
      await rest.request('POST', path, { body: cron('trans', { forbiddenInt: 1 }) });
      await rest.request('POST', path, { body: cron('later', { onlyAllowSettingOnUpdate: 0 }) });
      const current = (await rest.request('GET', `${path}/later`)) as {
        metadata: Record<string, unknown>;
        spec: Record<string, unknown>;
      };
      const r = await refusal(
        rest.request('PUT', `${path}/later`, { body: { ...current, spec: { ...current.spec, forbiddenInt: 2 } } }),
      );
      assert.equal(r.status, 422);
      assert.match(
        r.message,
        /CronJob\.cel\.kubeforge\.io "later" is invalid: spec\.forbiddenInt: Forbidden: forbiddenInt is not allowed$/,
      );
      assert.deepEqual(
        r.causes.map((c) => `${c.reason} ${c.field}`),
        ['FieldValueForbidden spec.forbiddenInt'],
      );
      // optionalOldSelf: any value once the field had one
      const updated = (await rest.request('PUT', `${path}/later`, {
        body: { ...current, spec: { ...current.spec, onlyAllowSettingOnUpdate: 7 } },
      })) as { spec: { onlyAllowSettingOnUpdate: number } };
      assert.equal(updated.spec.onlyAllowSettingOnUpdate, 7);
    });
  },
);

describe('CEL enforcement switched off', () => {
  const env = new TestEnvironment({ crds: [crd], celEnforcement: false });
  before(() => env.start());
  after(() => env.stop());

  it(
    serverEnforces
      ? 'installs nothing; the server still enforces the rules itself'
      : 'installs nothing, and the old server accepts what the rules refuse',
    async () => {
      assert.deepEqual(env.webhookConfigurations, []);
      const rest = new RestClient(env.config);
      try {
        const create = rest.request('POST', path, { body: cron('odd', { stringWithEvenLength: 'abc' }) });
        if (serverEnforces)
          assert.match(
            (await refusal(create)).message,
            /spec\.stringWithEvenLength: Invalid value: "abc": must have even length/,
          );
        else await create;
      } finally {
        rest.close();
      }
    },
  );
});
