import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Reporter } from '../../src/diagnostics/index.js';
import type { MarkerUse } from '../../src/manifests/markeruse.js';
import { generateWebhooks as generate } from '../../src/manifests/webhook.js';
import { toYamlDocuments } from '../../src/manifests/yaml.js';
import { must } from '../helpers/must.js';

let line = 0;
function use<N extends 'Webhook' | 'WebhookConfiguration'>(
  marker: N,
  args: Extract<MarkerUse, { marker: N }>['args'],
  target = 'CronJobWebhook',
): MarkerUse<N> {
  line += 1;
  return { marker, args, target, file: '/p/src/webhook/cronjob.ts', line, column: 1 } as MarkerUse<N>;
}

/** The generator with a reporter of its own: its objects and what it reported. */
function generateWebhooks(uses: MarkerUse[]) {
  const reporter = new Reporter();
  const hooks = uses.filter((u): u is MarkerUse<'Webhook'> => u.marker === 'Webhook');
  const configurations = uses.filter(
    (u): u is MarkerUse<'WebhookConfiguration'> => u.marker === 'WebhookConfiguration',
  );
  const objects = generate(hooks, configurations, reporter);
  return { objects, diagnostics: reporter.diagnostics() };
}

const base = {
  groups: ['batch.tutorial.kubebuilder.io'],
  resources: ['cronjobs'],
  verbs: ['create', 'update'],
  versions: ['v1'],
  admissionReviewVersions: ['v1'],
  sideEffects: 'None' as const,
  failurePolicy: 'Fail' as const,
};

describe('webhook generator', () => {
  it('builds one Mutating and one Validating configuration as controller-gen does', () => {
    const { objects, diagnostics } = generateWebhooks([
      use('Webhook', {
        ...base,
        mutating: false,
        path: '/validate-batch-tutorial-kubebuilder-io-v1-cronjob',
        name: 'vcronjob.kb.io',
        matchPolicy: 'Equivalent',
        timeoutSeconds: 10,
        serviceName: 'DEAD',
        serviceNamespace: 'BEEF',
        servicePort: 1234,
      }),
      use('Webhook', {
        ...base,
        mutating: true,
        path: '/mutate-batch-tutorial-kubebuilder-io-v1-cronjob',
        name: 'mcronjob.kb.io',
        reinvocationPolicy: 'IfNeeded',
        sideEffects: 'NoneOnDryRun',
      }),
      use('Webhook', {
        ...base,
        mutating: false,
        url: 'https://example.com:8443/validate',
        name: 'avalidate.kb.io',
        groups: ['core'],
        resources: ['pods'],
        verbs: ['*'],
      }),
    ]);
    assert.deepEqual(diagnostics, []);
    assert.equal(
      toYamlDocuments(objects),
      `---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: mutating-webhook-configuration
webhooks:
- admissionReviewVersions:
  - v1
  clientConfig:
    service:
      name: webhook-service
      namespace: system
      path: /mutate-batch-tutorial-kubebuilder-io-v1-cronjob
  failurePolicy: Fail
  name: mcronjob.kb.io
  reinvocationPolicy: IfNeeded
  rules:
  - apiGroups:
    - batch.tutorial.kubebuilder.io
    apiVersions:
    - v1
    operations:
    - CREATE
    - UPDATE
    resources:
    - cronjobs
  sideEffects: NoneOnDryRun
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: validating-webhook-configuration
webhooks:
- admissionReviewVersions:
  - v1
  clientConfig:
    url: https://example.com:8443/validate
  failurePolicy: Fail
  name: avalidate.kb.io
  rules:
  - apiGroups:
    - ""
    apiVersions:
    - v1
    operations:
    - '*'
    resources:
    - pods
  sideEffects: None
- admissionReviewVersions:
  - v1
  clientConfig:
    service:
      name: DEAD
      namespace: BEEF
      path: /validate-batch-tutorial-kubebuilder-io-v1-cronjob
      port: 1234
  failurePolicy: Fail
  matchPolicy: Equivalent
  name: vcronjob.kb.io
  rules:
  - apiGroups:
    - batch.tutorial.kubebuilder.io
    apiVersions:
    - v1
    operations:
    - CREATE
    - UPDATE
    resources:
    - cronjobs
  sideEffects: None
  timeoutSeconds: 10
`,
    );
  });

  it('names the configurations from @WebhookConfiguration and omits an empty one', () => {
    const { objects, diagnostics } = generateWebhooks([
      use('WebhookConfiguration', { mutating: true, name: 'my-mutator' }),
      use('WebhookConfiguration', { mutating: false, name: 'my-validator' }),
      use('Webhook', { ...base, mutating: true, path: '/m', name: 'm.example.com' }),
    ]);
    assert.deepEqual(diagnostics, []);
    assert.deepEqual(
      objects.map((o) => `${o.kind}/${o.metadata.name}`),
      ['MutatingWebhookConfiguration/my-mutator'],
    );
  });

  it('produces nothing when there is no webhook', () => {
    assert.deepEqual(generateWebhooks([]), { objects: [], diagnostics: [] });
  });

  it('reports every misuse, located at the marker, in one run', () => {
    const uses = [
      use('Webhook', { ...base, mutating: true, path: '/m', url: 'https://x/m', name: 'both.example.com' }),
      use('Webhook', { ...base, mutating: true, name: 'neither.example.com' }),
      use('Webhook', {
        ...base,
        mutating: false,
        path: '/v',
        name: 'reinvoke.example.com',
        reinvocationPolicy: 'IfNeeded',
      }),
      use('Webhook', { ...base, mutating: false, path: '/v', name: 'some.example.com', sideEffects: 'Some' }),
      use('Webhook', { ...base, mutating: false, path: '/v', name: 'nose.example.com', sideEffects: undefined }),
      use('Webhook', { ...base, mutating: false, path: '/v', name: 'slow.example.com', timeoutSeconds: 31 }),
      use('Webhook', { ...base, mutating: false, path: '/v', name: 'arv.example.com', admissionReviewVersions: [] }),
      use('Webhook', { ...base, mutating: false, path: '/v', name: 'verb.example.com', verbs: ['get'] }),
      use('Webhook', { ...base, mutating: false, path: '/v', name: 'dup.example.com' }),
      use('Webhook', { ...base, mutating: false, path: '/v2', name: 'dup.example.com' }),
      use('Webhook', { ...base, mutating: false, url: 'https://x/v', serviceName: 'svc', name: 'svcurl.example.com' }),
      use('WebhookConfiguration', { mutating: true, name: 'one' }),
      use('WebhookConfiguration', { mutating: true, name: 'two' }),
    ];
    const { diagnostics } = generateWebhooks(uses);
    const at = (n: number) =>
      diagnostics
        .filter((d) => d.line === uses[n].line)
        .map((d) => `${d.code} ${d.message}`)
        .join('\n');
    assert.match(
      at(0),
      /KF4201 @Webhook 'both.example.com' on CronJobWebhook: `url` or `path` is required and they are mutually exclusive/,
    );
    assert.match(at(1), /`url` or `path` is required/);
    assert.match(
      must(
        must(
          diagnostics.find((d) => d.line === uses[1].line),
          'a diagnostic on the second marker',
        ).hint,
        'the hint of that diagnostic',
      ),
      /path: '\/mutate-batch-tutorial-kubebuilder-io-v1-<kind>'/,
    );
    assert.match(at(2), /reinvocationPolicy applies to mutating webhooks only/);
    assert.match(at(3), /SideEffects should not be set to `Some` or `Unknown`/);
    assert.match(at(4), /SideEffects is required/);
    assert.match(at(5), /TimeoutSeconds must be between 1 and 30 seconds/);
    assert.match(at(6), /AdmissionReviewVersions is mandatory/);
    assert.match(at(7), /unknown verb "get"/);
    assert.match(
      at(9),
      /KF4203 two webhooks in ValidatingWebhookConfiguration validating-webhook-configuration are named 'dup.example.com'/,
    );
    assert.match(at(10), /serviceName\/serviceNamespace\/servicePort cannot be used with url/);
    assert.match(at(12), /KF4202 duplicate mutating @WebhookConfiguration with name two/);
    for (const d of diagnostics)
      assert.ok(d.hint && d.file && d.line, `diagnostic without location or fix: ${d.message}`);
  });

  it('refuses admissionReviewVersions the API server refuses (KF4204); lists with v1 or v1beta1 pass', () => {
    const hook = (name: string, admissionReviewVersions: string[]) =>
      use('Webhook', { ...base, mutating: false, path: '/v', name, admissionReviewVersions });
    const refused = [
      hook('v2.example.com', ['v2']),
      hook('twice.example.com', ['v1', 'v1']),
      hook('upper.example.com', ['V1', 'v1beta1']),
    ];
    const { objects, diagnostics } = generateWebhooks(refused);
    assert.deepEqual(objects, [], 'nothing is generated from a refused webhook');
    assert.deepEqual(
      diagnostics.map((d) => [d.code, d.line, d.message]),
      [
        [
          'KF4204',
          refused[0].line,
          `@Webhook 'v2.example.com' on CronJobWebhook: admissionReviewVersions ["v2"] must include at least one of v1, v1beta1: the API server refuses the webhook configuration, as it sends AdmissionReviews in those versions only`,
        ],
        [
          'KF4204',
          refused[1].line,
          `@Webhook 'twice.example.com' on CronJobWebhook: admissionReviewVersions ["v1","v1"] lists 'v1' twice: the API server refuses a duplicate version`,
        ],
        [
          'KF4204',
          refused[2].line,
          `@Webhook 'upper.example.com' on CronJobWebhook: admissionReviewVersions ["V1","v1beta1"] has 'V1', which is not a version name (lower-case letters, digits and '-', starting with a letter)`,
        ],
      ],
    );
    assert.equal(
      diagnostics[0].hint,
      "use admissionReviewVersions: ['v1'] (kubeforge/runtime answers v1 and v1beta1 reviews)",
    );
    for (const d of diagnostics)
      assert.ok(d.hint && d.file && d.column, `diagnostic without location or fix: ${d.message}`);

    for (const versions of [['v1'], ['v1beta1'], ['v1beta1', 'v1'], ['v2', 'v1']]) {
      const ok = generateWebhooks([hook('ok.example.com', versions)]);
      assert.deepEqual(ok.diagnostics, [], JSON.stringify(versions));
      assert.deepEqual(
        ok.objects[0].webhooks[0].admissionReviewVersions,
        versions,
        'kept in the order given: the API server sends the first it speaks',
      );
    }
  });
});
