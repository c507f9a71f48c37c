/**
 * CEL enforcement for API servers that do not evaluate `x-kubernetes-validations` (before 1.25):
 * a validating admission webhook, served by the runtime's webhook server on its own port in a
 * child process, that evaluates every rule of the installed CRDs on create and update and refuses
 * in the API server's words (422 Invalid, `spec.x: Invalid value: "string": <message>`, with the
 * field causes). The API server in front prefixes the message with `admission webhook
 * "cel.envtest.kubeforge.io" denied the request: `; status code, reason and causes are those a
 * 1.25+ server gives. This module is the test process's side (which CRDs, the configuration,
 * the child); the evaluation runs in the child (./cel-server.ts, ./cel-review.ts), so the test
 * process never loads the CEL engine.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RuleSchema } from '#cel';
import type { CRDObject } from './crds.js';
import { ControlPlaneProcess } from './process.js';
import type { WebhookConfigurationObject } from './webhooks.js';

import { CEL_WEBHOOK_PATH } from './cel-path.js';

export { CEL_WEBHOOK_PATH };
type Obj = Record<string, unknown>;

/** Schemas with rules, by `group/version/Kind`. */
export function celSchemas(crds: readonly CRDObject[]): Map<string, RuleSchema> {
  const out = new Map<string, RuleSchema>();
  for (const crd of crds) {
    for (const v of crd.spec.versions ?? []) {
      const schema = ((v.schema as Obj | undefined)?.openAPIV3Schema ?? undefined) as RuleSchema | undefined;
      if (schema && JSON.stringify(schema).includes('"x-kubernetes-validations"'))
        out.set(`${crd.spec.group}/${v.name}/${crd.spec.names.kind}`, schema);
    }
  }
  return out;
}

/** The configuration that sends every create and update of the CRDs' resources to the CEL webhook. */
export function celWebhookConfiguration(
  crds: readonly CRDObject[],
  schemas: ReadonlyMap<string, RuleSchema>,
  url: string,
  caBundle: string,
): WebhookConfigurationObject {
  const rules = crds
    .filter((c) => (c.spec.versions ?? []).some((v) => schemas.has(`${c.spec.group}/${v.name}/${c.spec.names.kind}`)))
    .map((c) => ({
      apiGroups: [c.spec.group],
      apiVersions: (c.spec.versions ?? []).map((v) => v.name),
      operations: ['CREATE', 'UPDATE'],
      resources: [c.spec.names.plural, `${c.spec.names.plural}/status`],
      scope: '*',
    }));
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: `kubeforge-envtest-cel-${randomBytes(4).toString('hex')}` },
    webhooks: [
      {
        name: 'cel.envtest.kubeforge.io',
        admissionReviewVersions: ['v1'],
        sideEffects: 'None',
        failurePolicy: 'Fail',
        matchPolicy: 'Exact',
        timeoutSeconds: 10,
        clientConfig: { url, caBundle },
        rules,
      },
    ],
  } as unknown as WebhookConfigurationObject;
}

/**
 * Runs the CEL webhook in a child Node process (./cel-server.ts) on `host:port`, so that it
 * answers while the test's own event loop is blocked. Resolves once it serves; rejects with its
 * output when it exits first or does not serve within 30 s. Stopped with the control plane.
 */
export async function startCELWebhookProcess(
  schemas: ReadonlyMap<string, RuleSchema>,
  host: string,
  port: number,
  certDir: string,
  logDir: string,
  attachOutput: boolean,
): Promise<ControlPlaneProcess> {
  const settings = join(logDir, 'cel-webhook.json');
  writeFileSync(settings, JSON.stringify({ host, port, certDir, schemas: [...schemas] }), { mode: 0o600 });
  const child = new ControlPlaneProcess({
    name: 'cel-webhook',
    binary: process.execPath,
    args: [fileURLToPath(new URL('./cel-server.js', import.meta.url)), settings],
    logFile: join(logDir, 'cel-webhook.log'),
    attachOutput,
  });
  child.start();
  for (let i = 0; !child.outputTail().includes('listening '); i++) {
    if (!child.running || i > 600) {
      await child.stop(1000);
      throw new Error(
        `the CEL webhook process ${child.running ? 'did not serve within 30 s' : child.exitDescription}:\n${child.outputTail()}`,
      );
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return child;
}
