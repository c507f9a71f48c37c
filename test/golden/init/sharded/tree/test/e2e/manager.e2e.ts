/*
Copyright The Guestbook Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

/**
 * End-to-end tests: build the manager image, deploy it with `make deploy` to the cluster of the
 * current kubeconfig and check it from outside, as a user would. They need an isolated,
 * disposable cluster with a container runtime: `make test-e2e` creates a Kind cluster
 * ($KIND_CLUSTER), runs this file and deletes the cluster. Never point them at a cluster you care
 * about. `npm test` does not run them (the file name does not end in .test.ts).
 *
 * Environment: IMG (the image to build, default example.com/guestbook:v0.0.1), KIND and
 * KIND_CLUSTER (where to load it; set KIND_CLUSTER= to skip loading), CERT_MANAGER_INSTALL_SKIP=true
 * (use a cert-manager that is already installed).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { eventually } from 'kubeforge/testing';

const namespace = 'guestbook-system';
const serviceAccount = 'guestbook-controller-manager';
const metricsService = 'guestbook-controller-manager-metrics-service';
const metricsBinding = 'guestbook-metrics-binding';
const image = process.env.IMG || 'example.com/guestbook:v0.0.1';
const kind = process.env.KIND || 'kind';
const kindCluster = process.env.KIND_CLUSTER ?? 'guestbook-test-e2e';
const certManagerVersion = process.env.CERT_MANAGER_VERSION || 'v1.21.0';
const certManagerURL = `https://github.com/cert-manager/cert-manager/releases/download/${certManagerVersion}/cert-manager.yaml`;
const MINUTE = 60_000;

/** Runs a command from the project folder; returns stdout, throws with both streams on failure. */
function run(cmd: string, ...args: string[]): string {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${cmd} ${args.join(' ')} failed: ${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}`);
  }
}

const kubectl = (...args: string[]) => run('kubectl', ...args);
const tryRun = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    console.error((err as Error).message);
  }
};

/** The webhooks are switched on once `kubeforge create webhook` has run and `make manifests` wrote them. */
const hasWebhooks = existsSync('config/webhook/manifests.yaml');
let installedCertManager = false;

describe('guestbook e2e', { timeout: 30 * MINUTE }, () => {
  let controllerPod = '';

  before(async () => {
    run('make', 'docker-build', `IMG=${image}`);
    if (kindCluster) run(kind, 'load', 'docker-image', image, '--name', kindCluster);
    if (process.env.CERT_MANAGER_INSTALL_SKIP !== 'true' && !crdExists('certificates.cert-manager.io')) {
      kubectl('apply', '-f', certManagerURL);
      installedCertManager = true;
      kubectl('wait', 'deployment.apps/cert-manager-webhook', '--for', 'condition=Available', '--namespace', 'cert-manager', '--timeout', '5m');
    }
    kubectl('create', 'ns', namespace);
    kubectl('label', '--overwrite', 'ns', namespace, 'pod-security.kubernetes.io/enforce=restricted');
    run('make', 'install');
    run('make', 'deploy', `IMG=${image}`);
  });

  after(() => {
    tryRun(() => kubectl('delete', 'pod', 'curl-metrics', '-n', namespace, '--ignore-not-found'));
    tryRun(() => kubectl('delete', 'clusterrolebinding', metricsBinding, '--ignore-not-found'));
    tryRun(() => run('make', 'undeploy', 'ignore-not-found=true'));
    tryRun(() => run('make', 'uninstall', 'ignore-not-found=true'));
    tryRun(() => kubectl('delete', 'ns', namespace, '--ignore-not-found'));
    if (installedCertManager) tryRun(() => kubectl('delete', '-f', certManagerURL, '--ignore-not-found'));
  });

  it('runs the controller manager pod', async () => {
    controllerPod = await eventually(
      () => {
        const pods = JSON.parse(kubectl('get', 'pods', '-l', 'control-plane=controller-manager', '-n', namespace, '-o', 'json')) as {
          items: { metadata: { name: string; deletionTimestamp?: string }; status?: { phase?: string } }[];
        };
        const live = pods.items.filter((p) => !p.metadata.deletionTimestamp);
        assert.equal(live.length, 1, `one controller pod expected, found ${live.length}`);
        assert.equal(live[0].status?.phase, 'Running');
        return live[0].metadata.name;
      },
      { timeout: 3 * MINUTE, interval: 1000 },
    );
  });

  it('serves the metrics endpoint to a service account allowed to read it', async () => {
    kubectl('create', 'clusterrolebinding', metricsBinding, '--clusterrole=guestbook-metrics-reader', `--serviceaccount=${namespace}:${serviceAccount}`);
    const token = kubectl('create', 'token', serviceAccount, '-n', namespace).trim();
    assert.ok(token, 'a service account token');
    await eventually(() => assert.match(kubectl('logs', controllerPod, '-n', namespace), /starting metrics server/), { timeout: 2 * MINUTE, interval: 1000 });
    const curl = {
      spec: {
        containers: [
          {
            name: 'curl',
            image: 'curlimages/curl:latest',
            command: ['/bin/sh', '-c'],
            args: [`for i in $(seq 1 30); do curl -v -k -H 'Authorization: Bearer ${token}' https://${metricsService}.${namespace}.svc.cluster.local:8443/metrics && exit 0 || sleep 2; done; exit 1`],
            securityContext: {
              readOnlyRootFilesystem: true,
              allowPrivilegeEscalation: false,
              capabilities: { drop: ['ALL'] },
              runAsNonRoot: true,
              runAsUser: 1000,
              seccompProfile: { type: 'RuntimeDefault' },
            },
          },
        ],
        serviceAccountName: serviceAccount,
      },
    };
    kubectl('run', 'curl-metrics', '--restart=Never', '--namespace', namespace, '--image=curlimages/curl:latest', '--overrides', JSON.stringify(curl));
    await eventually(() => assert.equal(kubectl('get', 'pods', 'curl-metrics', '-n', namespace, '-o', 'jsonpath={.status.phase}'), 'Succeeded'), {
      timeout: 5 * MINUTE,
      interval: 2000,
    });
    const out = kubectl('logs', 'curl-metrics', '-n', namespace);
    assert.match(out, /< HTTP\/[\d.]+ 200/);
    assert.match(out, /process_cpu_user_seconds_total/);
  });

  // Registered once `kubeforge create webhook` has run and `make manifests` wrote the webhooks.
  if (hasWebhooks) {
    it('has its webhook serving certificate from cert-manager, and the CA injected into every webhook configuration and conversion CRD', async () => {
      await eventually(() => kubectl('get', 'secrets', 'webhook-server-cert', '-n', namespace), { timeout: 2 * MINUTE, interval: 1000 });
      for (const kindName of ['mutatingwebhookconfigurations', 'validatingwebhookconfigurations']) {
        const names = kubectl('get', kindName, '-o', 'name').split('\n').filter((n) => n.includes('/guestbook-'));
        for (const name of names) {
          await eventually(() => assert.ok(kubectl('get', name, '-o', 'jsonpath={.webhooks[0].clientConfig.caBundle}').length > 0, `${name} has a caBundle`), {
            timeout: 2 * MINUTE,
            interval: 1000,
          });
        }
      }
      const crds = JSON.parse(kubectl('get', 'crd', '-o', 'json')) as {
        items: { metadata: { name: string }; spec: { conversion?: { strategy?: string; webhook?: { clientConfig?: { caBundle?: string } } } } }[];
      };
      for (const crd of crds.items.filter((c) => c.spec.conversion?.strategy === 'Webhook' && c.metadata.name.endsWith('.example.com'))) {
        await eventually(
          () => {
            const bundle = kubectl('get', 'crd', crd.metadata.name, '-o', 'jsonpath={.spec.conversion.webhook.clientConfig.caBundle}');
            assert.ok(bundle.length > 0, `${crd.metadata.name} has a caBundle for its conversion webhook`);
          },
          { timeout: 2 * MINUTE, interval: 1000 },
        );
      }
    });
  }
});

function crdExists(name: string): boolean {
  try {
    kubectl('get', 'crd', name);
    return true;
  } catch {
    return false;
  }
}
