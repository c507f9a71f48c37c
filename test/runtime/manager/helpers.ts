// Shared helpers for the manager tests (not a test file).
import http from 'node:http';
import https from 'node:https';
import pino from 'pino';
import { eventually as waitUntil } from '../../../src/testing/wait.js';

/** A silent logger so test output stays readable. */
export const quiet = () => pino({ level: 'silent' });

export interface Answer {
  status: number;
  body: string;
}

/** GET over http(s) with optional bearer token and CA. */
export function get(url: string, opts: { token?: string; ca?: string } = {}): Promise<Answer> {
  const mod = url.startsWith('https:') ? https : http;
  return new Promise((resolve, reject) => {
    const req = mod.get(
      url,
      { headers: opts.token ? { Authorization: `Bearer ${opts.token}` } : {}, ca: opts.ca, agent: false },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
  });
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Polls `fn` until it returns a truthy value or the timeout passes (then throws, naming `what`):
 * kubeforge/testing's eventually, with "truthy" as the condition these tests write.
 */
export function eventually<T>(fn: () => Promise<T> | T, what: string, timeoutMs = 30_000): Promise<T> {
  return waitUntil(
    async () => {
      const v = await fn();
      if (!v) throw new Error(`not yet: ${what}`);
      return v;
    },
    { timeout: timeoutMs, interval: 50, message: `timed out waiting for ${what}` },
  );
}
