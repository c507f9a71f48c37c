// Shared helpers for the webhook tests (not a test file): a certificate folder, a started server
// on 127.0.0.1, raw HTTPS requests (a fresh connection each, so a rotated certificate shows), and
// AdmissionReview / ConversionReview builders.
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import pino, { type Logger } from 'pino';
import { Registry } from 'prom-client';
import { generateSelfSignedCert } from '../../../src/runtime/manager/selfsigned.js';
import { newWebhookServer, type WebhookServer, type WebhookServerOptions } from '../../../src/runtime/webhook/index.js';

export const quiet = (): Logger => pino({ level: 'silent' });

/** A temp folder holding tls.crt / tls.key for 127.0.0.1. */
export function certFolder(): { dir: string; cert: string; key: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'kf-webhook-'));
  const { cert, key } = generateSelfSignedCert({ hosts: ['127.0.0.1', 'localhost'] });
  writeFileSync(join(dir, 'tls.crt'), cert);
  writeFileSync(join(dir, 'tls.key'), key);
  return { dir, cert, key, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface Running {
  server: WebhookServer;
  registry: Registry;
  ca: string;
  certDir: string;
  /** Aborts the server's signal and waits for start() to resolve; removes the cert folder. */
  stop(): Promise<void>;
  done: Promise<void>;
}

/** Creates a server on 127.0.0.1:0, lets `setup` register handlers, starts it and waits until it serves. */
export async function startServer(
  setup: (s: WebhookServer) => void,
  options: WebhookServerOptions = {},
): Promise<Running> {
  const certs = certFolder();
  const registry = new Registry();
  const server = newWebhookServer({
    host: '127.0.0.1',
    port: 0,
    certDir: certs.dir,
    registry,
    logger: quiet(),
    ...options,
  });
  setup(server);
  const ac = new AbortController();
  const done = server.start(ac.signal);
  done.catch(() => undefined);
  await server.whenStarted();
  return {
    server,
    registry,
    ca: certs.cert,
    certDir: certs.dir,
    done,
    async stop() {
      ac.abort();
      await done;
      certs.cleanup();
    },
  };
}

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The parsed body when it is JSON. */
  // biome-ignore lint/suspicious/noExplicitAny: the server's JSON, read by the tests without a schema
  json?: any;
  /** SHA-256 fingerprint of the certificate the server presented. */
  fingerprint: string;
}

/** One request over a new TLS connection. `body` objects are sent as JSON. */
export function request(
  port: number,
  path: string,
  body: unknown,
  opts: { ca?: string; method?: string; headers?: Record<string, string>; raw?: string | Buffer } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const data = opts.raw ?? (body === undefined ? '' : JSON.stringify(body));
    const req = https.request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: opts.method ?? 'POST',
        agent: false,
        rejectUnauthorized: false,
        headers: { 'Content-Type': 'application/json', ...opts.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        const fingerprint =
          (res.socket as import('node:tls').TLSSocket).getPeerX509Certificate?.()?.fingerprint256 ?? '';
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            /* plain text */
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json, fingerprint });
        });
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

/** The SHA-256 fingerprint of a PEM certificate, as getPeerX509Certificate reports it. */
export function fingerprintOf(pem: string): string {
  return new X509Certificate(pem).fingerprint256;
}

const WIDGET = { group: 'example.com', version: 'v1', kind: 'Widget' };

/** An admission.k8s.io/v1 AdmissionReview for a Widget. */
export function admissionReview(
  operation: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT',
  objects: { object?: unknown; oldObject?: unknown },
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'b6a3a7a0-7d4c-4a53-9d1f-0e3b9f0d1e01',
      kind: WIDGET,
      resource: { group: 'example.com', version: 'v1', resource: 'widgets' },
      requestKind: WIDGET,
      name: 'w1',
      namespace: 'default',
      operation,
      userInfo: { username: 'alice', groups: ['system:authenticated'] },
      ...objects,
      ...extra,
    },
  };
}

/** Decodes the base64 JSON Patch of an admission response. */
export function patchOf(response: { patch?: string }): { op: string; path: string; value?: unknown }[] {
  return response.patch ? JSON.parse(Buffer.from(response.patch, 'base64').toString('utf8')) : [];
}

/**
 * The value of one sample of a metric in a registry (0 when absent). `sample` picks a histogram's
 * `<name>_count` / `_sum` series.
 */
export async function metricValue(
  registry: Registry,
  name: string,
  labels: Record<string, string> = {},
  sample = name,
): Promise<number> {
  const m = registry.getSingleMetric(name);
  if (!m) return 0;
  const data = await m.get();
  const found = data.values.find(
    (v) =>
      ((v as { metricName?: string }).metricName ?? name) === sample &&
      Object.entries(labels).every(([k, val]) => String(v.labels[k]) === val),
  );
  return found?.value ?? 0;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export { eventually } from '../manager/helpers.js';

/**
 * A KubeConfig for a cluster that is never contacted: managers in these tests have no informers,
 * controllers or leader election, so they make no API calls.
 */
export function offlineConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: 'https://127.0.0.1:1', skipTLSVerify: true }],
    users: [{ name: 'u', token: 'unused' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kc;
}
