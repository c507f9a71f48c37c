/**
 * A small JSON-over-HTTPS client for the API server, used by the Manager's own machinery
 * (leases, events, token and access reviews) and by kubeforge/testing. Not part of the public
 * API: controllers use the client from `getClient()`.
 */
import https from 'node:https';
import http from 'node:http';
import type { KubeConfig } from '@kubernetes/client-node';
import type { RequestObserver } from '../client/requestmetrics.js';

/** An error answer of the API server (or a transport failure, with `status` 0). */
export class RestError extends Error {
  /** HTTP status; 0 when the request never got an answer. */
  readonly status: number;
  /** `reason` of the returned metav1.Status (e.g. `NotFound`, `Conflict`, `AlreadyExists`). */
  readonly reason: string;
  /** The decoded body of the error answer, when it was JSON. */
  readonly body: unknown;
  constructor(status: number, reason: string, message: string, body?: unknown) {
    super(message);
    this.name = 'RestError';
    this.status = status;
    this.reason = reason;
    this.body = body;
  }
}

/** Options of one request. */
export interface RestRequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  contentType?: string;
  signal?: AbortSignal;
  /** Milliseconds before the request is aborted (default 30 s). */
  timeoutMs?: number;
}

/**
 * Issues JSON requests with the credentials of a KubeConfig, reusing one keep-alive agent.
 * On error it rejects with {@link RestError}; it never retries by itself.
 */
export class RestClient {
  private readonly kc: KubeConfig;
  private base?: { url: URL; tls: https.AgentOptions; agent: http.Agent };
  private observer?: RequestObserver;

  constructor(kc: KubeConfig) {
    this.kc = kc;
  }

  /** Counts every request from now on (`rest_client_requests_total`); `undefined` stops counting. */
  setRequestObserver(observer: RequestObserver | undefined): void {
    this.observer = observer;
  }

  /** The server URL of the current cluster. Throws if the KubeConfig has no current cluster. */
  serverURL(): URL {
    const cluster = this.kc.getCurrentCluster();
    if (!cluster) throw new Error('kubeconfig has no current cluster');
    return new URL(cluster.server);
  }

  private async setup(): Promise<{ url: URL; tls: https.AgentOptions; agent: http.Agent }> {
    if (this.base) return this.base;
    const url = this.serverURL();
    const opts: https.RequestOptions = {};
    await this.kc.applyToHTTPSOptions(opts);
    const tls: https.AgentOptions = {
      ca: opts.ca,
      cert: opts.cert,
      key: opts.key,
      keepAlive: true,
      maxSockets: 16,
    };
    if (opts.rejectUnauthorized !== undefined) tls.rejectUnauthorized = opts.rejectUnauthorized;
    if (opts.servername) tls.servername = opts.servername;
    const agent = url.protocol === 'https:' ? new https.Agent(tls) : new http.Agent({ keepAlive: true });
    this.base = { url, tls, agent };
    return this.base;
  }

  /** Releases the keep-alive sockets. Later requests open new ones. */
  close(): void {
    this.base?.agent.destroy();
    this.base = undefined;
  }

  /** GET and decode JSON. Rejects with RestError on a non-2xx answer. */
  get<T = any>(path: string, opts: RestRequestOptions = {}): Promise<T> {
    return this.request<T>('GET', path, opts);
  }

  /** Sends one request and decodes the JSON answer. Rejects with RestError on a non-2xx answer. */
  async request<T = any>(method: string, path: string, opts: RestRequestOptions = {}): Promise<T> {
    const { text } = await this.raw(method, path, opts);
    return (text.length ? JSON.parse(text) : undefined) as T;
  }

  /** Sends one request; resolves with status and text for 2xx answers, rejects with RestError otherwise. */
  async raw(method: string, path: string, opts: RestRequestOptions = {}): Promise<{ status: number; text: string }> {
    const base = await this.setup();
    const headerOpts: https.RequestOptions = { headers: {} };
    // Re-apply authentication on every request: token files and exec plugins may rotate.
    await this.kc.applyToHTTPSOptions(headerOpts);
    const headers: Record<string, string> = { Accept: 'application/json' };
    const auth = (headerOpts.headers as Record<string, string> | undefined)?.Authorization;
    if (auth) headers.Authorization = auth;
    let payload: string | undefined;
    if (opts.body !== undefined) {
      payload = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
      headers['Content-Type'] = opts.contentType ?? 'application/json';
      headers['Content-Length'] = String(Buffer.byteLength(payload));
    }
    const url = new URL(base.url.toString());
    const prefix = url.pathname.replace(/\/$/, '');
    const [p, q] = path.split('?', 2);
    url.pathname = prefix + p;
    url.search = q ?? '';
    for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const mod = url.protocol === 'https:' ? https : http;
    const observe = this.observer;
    return new Promise((resolve, reject) => {
      let answered = false;
      const req = mod.request(
        url,
        { method, headers, agent: base.agent, signal: opts.signal, timeout: opts.timeoutMs ?? 30_000 },
        (res) => {
          answered = true;
          observe?.(String(res.statusCode ?? 0), method, url.host);
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', (e) => reject(new RestError(0, 'TransportError', e.message)));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            const status = res.statusCode ?? 0;
            if (status >= 200 && status < 300) return resolve({ status, text });
            let body: any;
            try {
              body = JSON.parse(text);
            } catch {
              body = text;
            }
            const reason = (body && typeof body === 'object' && body.reason) || `HTTP${status}`;
            const msg = (body && typeof body === 'object' && body.message) || text || `HTTP ${status}`;
            reject(new RestError(status, reason, `${method} ${p}: ${status} ${msg}`, body));
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error(`timeout after ${opts.timeoutMs ?? 30_000} ms`)));
      req.on('error', () => {
        if (!answered) observe?.('<error>', method, url.host);
      });
      req.on('error', (e) => reject(e instanceof RestError ? e : new RestError(0, 'TransportError', `${method} ${p}: ${e.message}`)));
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  }
}

/** True when `err` is a RestError with the given HTTP status. */
export function isStatus(err: unknown, status: number): boolean {
  return err instanceof RestError && err.status === status;
}

/** Formats a Date as a Kubernetes MicroTime (RFC 3339 with exactly six fractional digits). */
export function microTime(d: Date = new Date()): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** Formats a Date as a Kubernetes Time (RFC 3339, whole seconds). */
export function rfc3339(d: Date = new Date()): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
