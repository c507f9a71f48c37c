/**
 * End to end, as a Kubebuilder user would: pack kubeforge, `kubeforge init`, then with the
 * installed CLI Kubebuilder's project-v4 sequence of `create api` and `create webhook`
 * (test/testdata/generate.sh: Captain defaulting then validation; FirstMate v1 hub + v2 spoke
 * conversion; Sailor with custom paths; Admiral cluster-scoped with the plural admirales; the
 * built-in Pod and Deployment), each followed by `kubeforge manifests`. Then: the same commands
 * with --force change nothing, `npm run build` compiles the project, `kubectl kustomize
 * config/default` holds both webhook configurations and the conversion CRD with cert-manager's
 * CA injection, and the project's own `npm test` (the scaffolded webhook tests against a real API
 * server that calls the webhooks) is green.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { assertAllPassed, initProject, MINUTES, ok, packKubeforge, sh } from './helpers.js';
import { must } from '../helpers/must.js';

const work = mkdtempSync(join(tmpdir(), 'kf-e2e-webhook-'));
const project = join(work, 'project-v4');

const api = (...a: string[]) => ['create', 'api', ...a];
const webhook = (...a: string[]) => ['create', 'webhook', ...a];
const crew = (kind: string, version = 'v1') => ['--group', 'crew', '--version', version, '--kind', kind];

/** project-v4's commands, in generate.sh's order (its external type left out). */
const SEQUENCE: string[][] = [
  api(...crew('Captain')),
  webhook(...crew('Captain'), '--defaulting'),
  webhook(...crew('Captain'), '--programmatic-validation'),
  api(...crew('FirstMate')),
  api(...crew('FirstMate', 'v2'), '--controller=false'),
  webhook(...crew('FirstMate'), '--conversion', '--spoke', 'v2'),
  api(...crew('Sailor')),
  webhook(...crew('Sailor'), '--defaulting', '--defaulting-path=/custom-mutate-sailor'),
  webhook(...crew('Sailor'), '--programmatic-validation', '--validation-path=/custom-validate-sailor'),
  api(...crew('Admiral'), '--plural=admirales', '--namespaced=false'),
  webhook(...crew('Admiral'), '--plural=admirales', '--defaulting'),
  webhook(
    ...crew('Admiral'),
    '--plural=admirales',
    '--programmatic-validation',
    '--validation-path=/custom-validate-admiral',
  ),
  webhook('--group', 'core', '--version', 'v1', '--kind', 'Pod', '--defaulting'),
  webhook('--group', 'apps', '--version', 'v1', '--kind', 'Deployment', '--defaulting'),
  webhook('--group', 'apps', '--version', 'v1', '--kind', 'Deployment', '--programmatic-validation'),
];

describe('e2e: kubeforge init -> project-v4 create api / create webhook sequence -> build -> kustomize -> test', {
  timeout: 30 * MINUTES,
}, () => {
  const kubeforge = (args: string[]) => sh(join(project, 'node_modules/.bin/kubeforge'), args, project);

  before(() => {
    assert.ok(
      process.env.KUBEBUILDER_ASSETS,
      'KUBEBUILDER_ASSETS must name the folder holding etcd and kube-apiserver (npm test sets it)',
    );
    const tarball = packKubeforge(work);
    mkdirSync(project);
    ok(initProject(project, tarball), 'kubeforge init');
  });

  after(() => {
    rmSync(work, { recursive: true, force: true });
  });

  it('runs the whole sequence with the installed CLI; every step generates its manifests', {
    timeout: 10 * MINUTES,
  }, () => {
    for (const args of SEQUENCE) {
      const r = kubeforge(args);
      ok(r, `kubeforge ${args.join(' ')}`);
      assert.doesNotMatch(r.stderr, /KF\d{4}/, `${args.join(' ')}: no diagnostic`);
    }
    const manifests = readFileSync(join(project, 'config/webhook/manifests.yaml'), 'utf8');
    const docs = parseAllDocuments(manifests).map(
      (d) => d.toJS() as { kind: string; webhooks: { name: string; clientConfig: { service: { path: string } } }[] },
    );
    const paths = (kind: string) =>
      must(
        docs.find((d) => d.kind === kind),
        `the ${kind}`,
      ).webhooks.map((w) => `${w.name} ${w.clientConfig.service.path}`);
    assert.deepEqual(paths('MutatingWebhookConfiguration'), [
      'madmiral-v1.kb.io /mutate-crew-example-com-v1-admiral',
      'mcaptain-v1.kb.io /mutate-crew-example-com-v1-captain',
      'mdeployment-v1.kb.io /mutate-apps-v1-deployment',
      'mpod-v1.kb.io /mutate--v1-pod',
      'msailor-v1.kb.io /custom-mutate-sailor',
    ]);
    assert.deepEqual(paths('ValidatingWebhookConfiguration'), [
      'vadmiral-v1.kb.io /custom-validate-admiral',
      'vcaptain-v1.kb.io /validate-crew-example-com-v1-captain',
      'vdeployment-v1.kb.io /validate-apps-v1-deployment',
      'vsailor-v1.kb.io /custom-validate-sailor',
    ]);
    const crd = readFileSync(join(project, 'config/crd/bases/crew.example.com_firstmates.yaml'), 'utf8');
    assert.match(crd, /conversion:\n {4}strategy: Webhook\n/);
  });

  it('the webhook commands again with --force change nothing; without --force they are refused', {
    timeout: 5 * MINUTES,
  }, () => {
    for (const args of SEQUENCE.filter((a) => a[1] === 'webhook')) {
      assert.equal(
        ok(kubeforge([...args, '--force']), `${args.join(' ')} --force`),
        'Nothing to change.\nmanifests are up to date\n',
      );
      const refused = kubeforge(args);
      assert.equal(refused.status, 1);
      assert.match(refused.stderr, /KF1062/);
    }
    assert.match(ok(kubeforge(['manifests', '--check']), 'kubeforge manifests --check'), /manifests are up to date/);
  });

  it('npm run build compiles the project with every webhook wired into main.ts', { timeout: 3 * MINUTES }, () => {
    ok(sh('npm', ['run', 'build'], project), 'npm run build');
    const main = readFileSync(join(project, 'src/main.ts'), 'utf8');
    for (const kind of ['Captain', 'FirstMate', 'Sailor', 'Admiral', 'Pod', 'Deployment']) {
      assert.match(
        main,
        new RegExp(`if \\(process\\.env\\.ENABLE_WEBHOOKS !== 'false'\\) setup${kind}WebhookWithManager\\(mgr\\);`),
        kind,
      );
    }
  });

  it('kubectl kustomize config/default holds both webhook configurations and the conversion CRD, each with its CA injection', () => {
    const yaml = ok(sh('kubectl', ['kustomize', 'config/default'], project), 'kubectl kustomize config/default');
    type Doc = {
      kind: string;
      metadata: { name: string; annotations?: Record<string, string> };
      spec?: Record<string, unknown>;
      webhooks?: { clientConfig: { service: { name: string; namespace: string } } }[];
    };
    const docs = parseAllDocuments(yaml).map((d) => d.toJS() as Doc);
    const find = (kind: string, name: string) => docs.find((d) => d.kind === kind && d.metadata.name === name);
    const inject = 'project-v4-system/project-v4-serving-cert';
    for (const [kind, name] of [
      ['MutatingWebhookConfiguration', 'project-v4-mutating-webhook-configuration'],
      ['ValidatingWebhookConfiguration', 'project-v4-validating-webhook-configuration'],
    ]) {
      const d = find(kind, name);
      assert.ok(d, `${kind} ${name}`);
      assert.equal(d.metadata.annotations?.['cert-manager.io/inject-ca-from'], inject, kind);
      for (const w of must(d.webhooks, 'd.webhooks'))
        assert.deepEqual(w.clientConfig.service, {
          ...w.clientConfig.service,
          name: 'project-v4-webhook-service',
          namespace: 'project-v4-system',
        });
    }
    const crd = find('CustomResourceDefinition', 'firstmates.crew.example.com');
    assert.ok(crd, 'the FirstMate CRD');
    assert.equal(crd.metadata.annotations?.['cert-manager.io/inject-ca-from'], inject);
    assert.deepEqual(
      (must(crd.spec, 'crd.spec').conversion as { webhook: { clientConfig: unknown } }).webhook.clientConfig,
      {
        service: { name: 'project-v4-webhook-service', namespace: 'project-v4-system', path: '/convert' },
      },
    );
    // Only the CRD with a conversion webhook gets the annotation.
    assert.equal(
      find('CustomResourceDefinition', 'captains.crew.example.com')?.metadata.annotations?.[
        'cert-manager.io/inject-ca-from'
      ],
      undefined,
    );
    const cert = find('Certificate', 'project-v4-serving-cert') as unknown as { spec: { dnsNames: string[] } };
    assert.deepEqual(cert.spec.dnsNames, [
      'project-v4-webhook-service.project-v4-system.svc',
      'project-v4-webhook-service.project-v4-system.svc.cluster.local',
    ]);
    const deployment = find('Deployment', 'project-v4-controller-manager') as unknown as {
      spec: { template: { spec: { containers: { args: string[] }[] } } };
    };
    assert.ok(deployment.spec.template.spec.containers[0].args.includes('--webhook-port=9443'));
    ok(sh('kubectl', ['kustomize', 'config/network-policy'], project), 'kubectl kustomize config/network-policy');
  });

  // Needs kubeforge/runtime's webhook server and kubeforge/testing's webhook install (built in parallel).
  it("the project's npm test is green: the API server calls the scaffolded webhooks", { timeout: 12 * MINUTES }, () => {
    const out = ok(sh('npm', ['test'], project), 'npm test');
    assertAllPassed(out, 'npm test');
    for (const name of [
      'Captain webhook',
      'CaptainCustomDefaulter sets the defaults',
      'CaptainCustomValidator allows a valid Captain',
      'a Captain created through the API server passes the webhooks \\(their failurePolicy is Fail\\)',
      'a FirstMate v2 created through the API server is converted to v1 \\(the stored version\\) by the webhook',
      'a Sailor created through the API server passes the webhooks \\(their failurePolicy is Fail\\)',
      'an Admiral created through the API server passes the webhooks \\(their failurePolicy is Fail\\)',
      'a Pod created through the API server passes the webhooks \\(their failurePolicy is Fail\\)',
      'a Deployment created through the API server passes the webhooks \\(their failurePolicy is Fail\\)',
    ]) {
      assert.match(out, new RegExp(`^\\s*ok \\d+ - ${name}$`, 'm'), `${name} passed:\n${out}`);
    }
  });
});
