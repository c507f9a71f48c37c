// The webhook builder: paths as controller-runtime names them, GVKs from classes and descriptors,
// every misuse reported at once by complete(), nothing registered when it throws.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { V1Pod, type KubernetesObject } from '@kubernetes/client-node';
import { BuilderError } from '../../../src/runtime/controller/builder.js';
import { newManager } from '../../../src/runtime/manager/index.js';
import { webhookManagedBy, type Conversion, type CustomValidator } from '../../../src/runtime/webhook/index.js';
import { admissionReview, offlineConfig, patchOf, quiet, request, startServer } from './helpers.js';
import { must } from '../../helpers/must.js';

class CronJob implements KubernetesObject {
  static readonly gvk = { group: 'batch.tutorial.kubebuilder.io', version: 'v1', kind: 'CronJob' };
  static readonly plural = 'cronjobs';
  static readonly namespaced = true;
  apiVersion?: string;
  kind?: string;
  metadata?: KubernetesObject['metadata'];
  spec?: { schedule?: string; suspend?: boolean };
}
class CronJobV2 implements KubernetesObject {
  static readonly gvk = { group: 'batch.tutorial.kubebuilder.io', version: 'v2', kind: 'CronJob' };
  metadata?: KubernetesObject['metadata'];
  spec?: { schedule?: { minute?: string }; suspend?: boolean };
}
class CronJobV1Again implements KubernetesObject {
  static readonly gvk = { group: 'batch.tutorial.kubebuilder.io', version: 'v1', kind: 'CronJob' };
  metadata?: KubernetesObject['metadata'];
}
class Other implements KubernetesObject {
  static readonly gvk = { group: 'other.io', version: 'v1', kind: 'Other' };
  metadata?: KubernetesObject['metadata'];
}
class NoGVK {}

const allow: CustomValidator<unknown> = {
  validateCreate: () => undefined,
  validateUpdate: () => undefined,
  validateDelete: () => undefined,
};
const conv: Conversion<CronJobV2, CronJob> = {
  convertTo: (s) => ({ spec: { schedule: s.spec?.schedule?.minute, suspend: s.spec?.suspend } }),
  convertFrom: (h) => ({ spec: { schedule: { minute: h.spec?.schedule }, suspend: h.spec?.suspend } }),
};

const mgr = () => newManager(offlineConfig(), { logger: quiet() });
const paths = (m: ReturnType<typeof mgr>, candidates: string[]) =>
  candidates.filter((p) => m.getWebhookServer().isRegistered(p));

function problems(fn: () => void): string[] {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof BuilderError, String(e));
    assert.equal(e.what, 'webhook');
    return e.problems;
  }
  assert.fail('complete() did not throw');
}

describe('webhookManagedBy', () => {
  it('registers /mutate-<group>-<version>-<kind> and /validate-... for a generated class', () => {
    const m = mgr();
    webhookManagedBy(m)
      .for(CronJob)
      .withDefaulter({ default: () => undefined })
      .withValidator(allow)
      .complete();
    assert.deepEqual(
      paths(m, [
        '/mutate-batch-tutorial-kubebuilder-io-v1-cronjob',
        '/validate-batch-tutorial-kubebuilder-io-v1-cronjob',
      ]),
      ['/mutate-batch-tutorial-kubebuilder-io-v1-cronjob', '/validate-batch-tutorial-kubebuilder-io-v1-cronjob'],
    );
  });

  it('resolves core Kinds from a descriptor or a client-node class: /mutate--v1-pod', () => {
    const a = mgr();
    // As `kubeforge create webhook` scaffolds it for a core Kind: the model type given explicitly.
    webhookManagedBy(a)
      .for<V1Pod>({ apiVersion: 'v1', kind: 'Pod' })
      .withDefaulter({
        default: (pod: V1Pod) => {
          pod.metadata ??= {};
        },
      })
      .complete();
    assert.deepEqual(paths(a, ['/mutate--v1-pod']), ['/mutate--v1-pod']);
    const b = mgr();
    webhookManagedBy(b).for(V1Pod).withValidator(allow).complete();
    assert.deepEqual(paths(b, ['/validate--v1-pod']), ['/validate--v1-pod']);
  });

  it('uses custom paths and registers conversions on /convert', () => {
    const m = mgr();
    webhookManagedBy(m)
      .for(CronJob)
      .withDefaulter({ default: () => undefined })
      .withDefaulterCustomPath('/custom-mutate')
      .withValidator(allow)
      .withValidatorCustomPath('/custom-validate')
      .withConversion(CronJobV2, conv)
      .complete();
    assert.deepEqual(
      paths(m, ['/custom-mutate', '/custom-validate', '/convert', '/mutate-batch-tutorial-kubebuilder-io-v1-cronjob']),
      ['/custom-mutate', '/custom-validate', '/convert'],
    );
    // A second Kind shares /convert.
    webhookManagedBy(m)
      .for({ apiVersion: 'other.io/v1', kind: 'Other' })
      .withConversion({ apiVersion: 'other.io/v2', kind: 'Other' }, { convertTo: (x) => x, convertFrom: (x) => x })
      .complete();
  });

  it('reports every misuse at once and registers nothing', () => {
    const m = mgr();
    const server = m.getWebhookServer();
    server.register('/validate-batch-tutorial-kubebuilder-io-v1-cronjob', { handle: async () => ({}) });
    const got = problems(() =>
      webhookManagedBy(m)
        .for(CronJob)
        .for(Other)
        .withDefaulter({ default: () => undefined })
        .withDefaulter({ default: () => undefined })
        .withValidator({ validateCreate: () => undefined } as never)
        .withDefaulterCustomPath('mutate-me')
        .withConversion(Other, conv as never)
        .withConversion(CronJobV1Again, conv as never)
        .withConversion(CronJobV2, {} as never)
        .complete(),
    );
    assert.deepEqual(got, [
      'for() may only be called once (called again with Other)',
      'withDefaulter() may only be called once',
      'withValidator(): the validator lacks validateUpdate, validateDelete',
      'withDefaulterCustomPath(): path "mutate-me" must start with \'/\'',
      'withConversion(CronJobV2): the conversion needs convertTo(spoke) and convertFrom(hub)',
      'withConversion(Other): the spoke Other.other.io v1 is not a version of the hub CronJob.batch.tutorial.kubebuilder.io',
      'withConversion(CronJobV1Again): v1 is the hub version of CronJob.batch.tutorial.kubebuilder.io; a spoke must be another version',
    ]);
    assert.equal(server.isRegistered('/mutate-batch-tutorial-kubebuilder-io-v1-cronjob'), false);
    assert.equal(server.isRegistered('/convert'), false);

    assert.deepEqual(
      problems(() => webhookManagedBy(m).complete()),
      [
        'must provide a type with for()',
        'nothing to register: add withDefaulter(), withValidator() or withConversion()',
      ],
    );
    const noKind = problems(() =>
      webhookManagedBy(m)
        .for(NoGVK as never)
        .withValidator(allow)
        .complete(),
    );
    assert.equal(noKind.length, 1);
    assert.match(noKind[0], /^for\(\): cannot tell the Kubernetes kind of class NoGVK/);
    assert.deepEqual(
      problems(() => webhookManagedBy(m).for(CronJob).withValidator(allow).complete()),
      [
        'a webhook is already registered for /validate-batch-tutorial-kubebuilder-io-v1-cronjob (the validator of CronJob); give one a custom path',
      ],
    );
    assert.deepEqual(
      problems(() =>
        webhookManagedBy(m)
          .for(CronJob)
          .withDefaulter({ default: () => undefined })
          .withDefaulterCustomPath('/same')
          .withValidator(allow)
          .withValidatorCustomPath('/same')
          .complete(),
      ),
      ['the defaulter and the validator have the same path /same'],
    );
    assert.deepEqual(
      problems(() =>
        webhookManagedBy(m)
          .for(Other)
          .withValidatorCustomPath('/v')
          .withConversion({ apiVersion: 'other.io/v2', kind: 'Other' }, conv as never)
          .complete(),
      ),
      ['withValidatorCustomPath() without withValidator()'],
    );
    const b = webhookManagedBy(m).for(Other).withValidator(allow);
    b.complete();
    assert.deepEqual(
      problems(() => b.complete()),
      [
        'complete() was already called on this builder',
        'a webhook is already registered for /validate-other-io-v1-other (the validator of Other); give one a custom path',
      ],
    );
    assert.deepEqual(
      problems(() =>
        webhookManagedBy({} as never)
          .for(Other)
          .withValidator(allow)
          .complete(),
      ),
      ['webhookManagedBy(mgr) needs a manager with getWebhookServer()'],
    );
  });

  it('refuses to register once the server runs', async () => {
    const srv = await startServer(() => undefined);
    try {
      const fake = { getWebhookServer: () => srv.server } as never;
      assert.deepEqual(
        problems(() => webhookManagedBy(fake).for(CronJob).withValidator(allow).complete()),
        ['the webhook server is already running; register webhooks before mgr.start()'],
      );
    } finally {
      await srv.stop();
    }
  });

  it('serves what it registered: defaulting of a generated class end to end over HTTPS', async () => {
    const srv = await startServer((s) => {
      const fake = { getWebhookServer: () => s } as never;
      webhookManagedBy(fake)
        .for(CronJob)
        .withDefaulter({
          default: (cj: CronJob) => {
            cj.spec ??= {};
            cj.spec.suspend ??= false;
          },
        })
        .complete();
    });
    try {
      const r = await request(
        must(srv.server.port, 'srv.server.port'),
        '/mutate-batch-tutorial-kubebuilder-io-v1-cronjob',
        admissionReview('CREATE', { object: { spec: { schedule: '*/1 * * * *' } } }),
      );
      assert.deepEqual(patchOf(r.json.response), [{ op: 'add', path: '/spec/suspend', value: false }]);
    } finally {
      await srv.stop();
    }
  });
});
