/**
 * A small admission webhook server for the fake API server's tests (and the differential ones,
 * where a real kube-apiserver calls it too): node:https with a serving certificate signed by a CA
 * of src/runtime/manager/selfsigned.ts; every AdmissionReview it gets is recorded and answered by
 * the test's function for its path.
 */
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { generateCACert, generateSignedCert } from '../../src/runtime/manager/selfsigned.js';
import type { Served } from './served.js';

export type Review = {
  uid: string;
  operation: string;
  kind: { group: string; version: string; kind: string };
  resource: { group: string; version: string; resource: string };
  subResource?: string;
  name?: string;
  namespace?: string;
  dryRun?: boolean;
  object?: Served;
  oldObject?: Served;
  options?: Served;
  [k: string]: unknown;
};

/** What a path answers: allowed, or not, with a status, a patch (JSON patch operations), warnings. */
export type Answer = {
  allowed: boolean;
  status?: Record<string, unknown>;
  patch?: unknown[];
  warnings?: string[];
  /** Sent as the whole response body instead (a malformed review). */
  raw?: unknown;
};

export interface HookServer {
  /** https://127.0.0.1:<port> */
  url: string;
  /** The CA, base64 (clientConfig.caBundle). */
  caBundle: string;
  /** Every review received, with its path (query left out), in order. */
  reviews: { path: string; request: Review }[];
  close(): Promise<void>;
}

export const allow = (warnings?: string[]): Answer => ({ allowed: true, ...(warnings ? { warnings } : {}) });
export const deny = (message: string, code?: number, reason?: string): Answer => ({
  allowed: false,
  status: { message, ...(code ? { code } : {}), ...(reason ? { reason } : {}) },
});

/** Starts a webhook server whose `paths` answer reviews; an unknown path answers 404; `/probe...` allows. */
export async function startHookServer(
  paths: Record<string, (r: Review) => Answer | Promise<Answer>>,
  o: { delayMs?: number } = {},
): Promise<HookServer> {
  const ca = generateCACert();
  const serving = generateSignedCert(ca, { hosts: ['127.0.0.1', 'localhost'] });
  const reviews: HookServer['reviews'] = [];
  const server = https.createServer({ cert: serving.cert, key: serving.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const path = (req.url ?? '/').split('?')[0];
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { apiVersion: string; request: Review };
      reviews.push({ path, request: review.request });
      const f = path.startsWith('/probe') ? () => allow() : paths[path];
      if (!f) {
        res.writeHead(404).end('not found');
        return;
      }
      if (o.delayMs) await new Promise((r) => setTimeout(r, o.delayMs));
      const a = await f(review.request);
      if (a.raw !== undefined) {
        res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(a.raw));
        return;
      }
      const response: Record<string, unknown> = { uid: review.request.uid, allowed: a.allowed };
      if (a.status) response.status = a.status;
      if (a.warnings) response.warnings = a.warnings;
      if (a.patch) {
        response.patchType = 'JSONPatch';
        response.patch = Buffer.from(JSON.stringify(a.patch)).toString('base64');
      }
      const body = JSON.stringify({ apiVersion: review.apiVersion, kind: 'AdmissionReview', response });
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    caBundle: Buffer.from(ca.cert).toString('base64'),
    reviews,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** One webhook entry of a configuration (v1), pointing at `path` of `hooks`; `extra` overrides. */
export function webhook(
  hooks: Pick<HookServer, 'url' | 'caBundle'>,
  name: string,
  path: string,
  rules: Record<string, unknown>[],
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    name,
    clientConfig: { url: `${hooks.url}${path}`, caBundle: hooks.caBundle },
    rules,
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    failurePolicy: 'Fail',
    timeoutSeconds: 5,
    ...extra,
  };
}

export const rule = (
  resources: string[],
  operations = ['CREATE', 'UPDATE'],
  apiGroups = ['fake.kubeforge.io'],
  apiVersions = ['v1'],
  scope?: string,
) => ({ apiGroups, apiVersions, resources, operations, ...(scope ? { scope } : {}) });

/** A Mutating- or ValidatingWebhookConfiguration of these webhooks. */
export function configuration(
  kind: 'MutatingWebhookConfiguration' | 'ValidatingWebhookConfiguration',
  name: string,
  webhooks: Record<string, unknown>[],
): Record<string, unknown> {
  return { apiVersion: 'admissionregistration.k8s.io/v1', kind, metadata: { name }, webhooks };
}

/** The path of a configuration kind's collection. */
export const configPath = (kind: string, name?: string) =>
  `/apis/admissionregistration.k8s.io/v1/${kind.toLowerCase()}s${name ? `/${name}` : ''}`;
