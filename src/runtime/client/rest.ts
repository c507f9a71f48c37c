/**
 * The runtime's one REST transport over node:http(s) with keep-alive connections, configured from
 * a KubeConfig (server, CA, client certificates, token / exec / basic auth via client-node's
 * `applyToHTTPSOptions`). client-node's generated APIs build a new agent per request, which costs
 * a TLS handshake each time; controllers issue many small requests, so we keep connections.
 * Everything the runtime sends goes through it: the client and cache, leader election, events,
 * the metrics server's token and access reviews, and kubeforge/testing. Internal: exported from
 * `kubeforge/runtime/internal`, not from `kubeforge/runtime`.
 */
import http from 'node:http';
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { KubeConfig } from '@kubernetes/client-node';
import { StatusError, statusErrorFrom } from './errors.js';
import type { WriteFence } from './fence.js';
import type { RequestObserver } from './requestmetrics.js';
import { safely } from '../tracing.js';
import { endRequestSpan, failRequestSpan, startRequestSpan } from './tracing.js';

/** Options of one request. */
export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  contentType?: string;
  /** The Accept header (default application/json), e.g. `application/json;as=Table;v=v1;g=meta.k8s.io`. */
  accept?: string;
  signal?: AbortSignal;
  /** Milliseconds before the request is abandoned (default 60 000; 0 = none, for watches). */
  timeoutMs?: number;
  /** Text for error messages, e.g. `get apps/v1 Deployment default/web`. */
  what?: string;
}

interface Prepared {
  base: URL;
  tls: https.RequestOptions;
  headers: Record<string, string>;
  expires: number;
}

/**
 * How long credentials and TLS material read from the KubeConfig are reused. Token files and exec
 * plugins rotate; a 401 answer also drops them at once, so the next request reads them again.
 */
const AUTH_TTL_MS = 30_000;
const DEFAULT_TIMEOUT_MS = 60_000;
/** How many times a request answered 429 (or 5xx) with Retry-After is sent again (client-go: 10). */
const MAX_RETRY_AFTER = 10;

/** The wait a 429 or 5xx answer asks for with Retry-After (whole seconds, at most 60), or undefined. */
function retryAfterMs(res: IncomingMessage): number | undefined {
  const code = res.statusCode ?? 0;
  if (code !== 429 && code < 500) return undefined;
  const header = res.headers['retry-after'];
  const seconds = typeof header === 'string' && /^\d+$/.test(header.trim()) ? Number(header) : undefined;
  return seconds === undefined ? undefined : Math.min(seconds, 60) * 1000;
}

/** Waits `ms`, or rejects with the abort error as soon as the signal fires. */
function sleepUnlessAborted(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError());
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** How often a client that cannot reach its server probes /readyz while someone waits to retry. */
const PROBE_INTERVAL_MS = 500;

/** How a back-off wait ended (see RestClient.waitForRetry). */
export type RetryWait = 'elapsed' | 'recovered' | 'aborted';

/** True for failures where no HTTP answer came back (refused, reset, timed out, stream cut). */
export function isTransportError(err: unknown): boolean {
  if (!(err instanceof Error) || err.name === 'AbortError' || err instanceof StatusError) return false;
  return typeof (err as { code?: unknown }).code === 'string';
}

/**
 * Sends requests to the API server of a KubeConfig's current context. Non-2xx answers reject with
 * a StatusError subclass (so `isNotFound`, `isConflict`... work on every error the runtime
 * throws); network errors reject with the underlying Error (code ECONNREFUSED, ECONNRESET,
 * ETIMEDOUT...); an aborted signal rejects with an AbortError; a write the fence refuses (see
 * `setWriteFence`) rejects with the fence's error, unsent. It never retries by itself.
 * On shutdown: `close()` ends its keep-alive connections.
 */
export class RestClient {
  private prepared?: Promise<Prepared>;
  private readonly agent: http.Agent;
  private readonly watchAgent: http.Agent;
  private readonly secure: boolean;
  private readonly server: URL;
  /** Set when a request got no answer; cleared (waking retry waiters) by the next answer. */
  private unreachable = false;
  private readonly retryWaiters = new Set<() => void>();
  private probeTimer?: NodeJS.Timeout;
  private probing = false;
  private fence?: WriteFence;
  private observer?: RequestObserver;
  private warningHandler?: (message: string) => void;

  constructor(readonly kubeConfig: KubeConfig) {
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error('kubeforge/runtime: the kubeconfig has no current cluster (set current-context)');
    this.server = new URL(cluster.server);
    this.secure = this.server.protocol !== 'http:';
    const Agent = this.secure ? https.Agent : http.Agent;
    this.agent = new Agent({ keepAlive: true, maxSockets: 64, maxFreeSockets: 16 });
    this.watchAgent = new Agent({ keepAlive: false });
  }

  /** The server URL of the KubeConfig's current cluster. */
  serverURL(): URL {
    return new URL(this.server.toString());
  }

  private async prepare(): Promise<Prepared> {
    const now = Date.now();
    const cur = this.prepared ? await this.prepared.catch(() => undefined) : undefined;
    if (cur && cur.expires > now) return cur;
    this.prepared = (async () => {
      const opts: https.RequestOptions = {};
      await this.kubeConfig.applyToHTTPSOptions(opts);
      const cluster = this.kubeConfig.getCurrentCluster();
      if (!cluster) throw new Error('kubeforge/runtime: the kubeconfig has no current cluster (set current-context)');
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(opts.headers ?? {}))
        if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : String(v);
      if (opts.auth) headers.Authorization = `Basic ${Buffer.from(opts.auth).toString('base64')}`;
      const tls: https.RequestOptions = {};
      for (const k of ['ca', 'cert', 'key', 'pfx', 'passphrase', 'servername', 'rejectUnauthorized'] as const) {
        if ((opts as Record<string, unknown>)[k] !== undefined)
          (tls as Record<string, unknown>)[k] = (opts as Record<string, unknown>)[k];
      }
      if (cluster.skipTLSVerify) tls.rejectUnauthorized = false;
      if (cluster.tlsServerName) tls.servername = cluster.tlsServerName;
      return { base: new URL(cluster.server), tls, headers, expires: Date.now() + AUTH_TTL_MS };
    })();
    return this.prepared;
  }

  private async open(
    method: string,
    path: string,
    o: RequestOptions,
    watch: boolean,
    traceHeaders?: Record<string, string>,
  ): Promise<{ res: IncomingMessage; req: http.ClientRequest }> {
    // Synchronously, before anything is awaited: see fence.ts.
    if (method !== 'GET') this.fence?.(`${method} ${path}`);
    const p = await this.prepare();
    let search = '';
    const q = path.indexOf('?');
    const qs = new URLSearchParams(q < 0 ? '' : path.slice(q + 1));
    if (q >= 0) path = path.slice(0, q);
    for (const [k, v] of Object.entries(o.query ?? {})) if (v !== undefined && v !== '') qs.set(k, String(v));
    const s = qs.toString();
    if (s) search = `?${s}`;
    const basePath = p.base.pathname.replace(/\/$/, '');
    const body = o.body === undefined ? undefined : typeof o.body === 'string' ? o.body : JSON.stringify(o.body);
    const headers: Record<string, string> = { ...p.headers, ...traceHeaders, Accept: o.accept ?? 'application/json' };
    if (body !== undefined) {
      headers['Content-Type'] = o.contentType ?? 'application/json';
      headers['Content-Length'] = String(Buffer.byteLength(body));
    }
    const reqOpts: https.RequestOptions = {
      ...p.tls,
      protocol: p.base.protocol,
      hostname: p.base.hostname,
      port: p.base.port || (this.secure ? 443 : 80),
      method,
      path: basePath + path + search,
      headers,
      agent: watch ? this.watchAgent : this.agent,
    };
    const host = p.base.host;
    return new Promise((resolve, reject) => {
      const req = (this.secure ? https : http).request(reqOpts, (res) => {
        this.observer?.(String(res.statusCode ?? 0), method, host);
        // Rotated or expired credentials: read them again for the next request.
        if (res.statusCode === 401) this.prepared = undefined;
        this.answered(res.statusCode ?? 0);
        resolve({ res, req });
      });
      const timeout = o.timeoutMs ?? DEFAULT_TIMEOUT_MS;
      if (timeout > 0)
        req.setTimeout(timeout, () =>
          req.destroy(Object.assign(new Error(`request timed out after ${timeout} ms`), { code: 'ETIMEDOUT' })),
        );
      let answered = false;
      req.on('response', () => (answered = true));
      req.on('error', (e) => {
        if (!answered) this.observer?.('<error>', method, host);
        if (isTransportError(e)) {
          this.unreachable = true;
          // Say which request failed; the code (ECONNREFUSED...) stays for callers to test.
          if (o.what && !e.message.startsWith(o.what)) e.message = `${o.what}: ${e.message}`;
        }
        reject(e);
      });
      if (o.signal) {
        if (o.signal.aborted) {
          req.destroy(abortError());
        } else {
          const onAbort = () => req.destroy(abortError());
          const signal = o.signal;
          signal.addEventListener('abort', onAbort, { once: true });
          req.on('close', () => signal.removeEventListener('abort', onAbort));
        }
      }
      req.end(body);
    });
  }

  /** GET and parse the JSON answer; errors as {@link request}. */
  // biome-ignore lint/suspicious/noExplicitAny: public API (api-report): callers read the parsed JSON untyped unless they name T; unknown would break them
  get<T = any>(path: string, o: RequestOptions = {}): Promise<T> {
    return this.request<T>('GET', path, o);
  }

  /**
   * Sends one request and parses the JSON answer (text when it is not JSON, undefined when
   * empty). Rejects with a StatusError subclass on non-2xx, naming `o.what` or the method and path.
   * Under an active span (a reconcile, a webhook call) it is traced: a client span, child of that
   * one, whose `traceparent` is sent (see tracing.ts).
   */
  // biome-ignore lint/suspicious/noExplicitAny: public API (api-report), as get above
  request<T = any>(method: string, path: string, o: RequestOptions = {}): Promise<T> {
    const traceHeaders: Record<string, string> = {};
    const span = safely(() => startRequestSpan(method, path, this.server, traceHeaders, o.signal));
    // No span: the headers may still carry a sampled-out parent's traceparent.
    if (!span) return this.send<T>(method, path, o, traceHeaders.traceparent ? traceHeaders : undefined);
    const attempts = { retries: 0, status: 0 };
    return this.send<T>(method, path, o, traceHeaders, attempts).then(
      (v) => {
        safely(() => endRequestSpan(span, attempts.status, attempts.retries));
        return v;
      },
      (e: unknown) => {
        safely(() =>
          attempts.status
            ? endRequestSpan(span, attempts.status, attempts.retries)
            : failRequestSpan(span, e, attempts.retries),
        );
        throw e;
      },
    );
  }

  private async send<T>(
    method: string,
    path: string,
    o: RequestOptions,
    traceHeaders?: Record<string, string>,
    attempts?: { retries: number; status: number },
  ): Promise<T> {
    if (o.what === undefined) o = { ...o, what: `${method} ${path.split('?', 1)[0]}` };
    // As client-go: a 429, or a 5xx with Retry-After, was not acted on; wait as told and send it
    // again, at most MAX_RETRY_AFTER times (an API server whose watch cache is still initialising
    // answers 429 "storage is (re)initializing" with Retry-After: 1).
    let res: IncomingMessage;
    for (let attempt = 0; ; attempt++) {
      ({ res } = await this.open(method, path, o, false, traceHeaders));
      if (attempts) {
        attempts.retries = attempt;
        attempts.status = res.statusCode ?? 0;
      }
      const wait = attempt < MAX_RETRY_AFTER ? retryAfterMs(res) : undefined;
      if (wait === undefined) break;
      res.resume();
      await sleepUnlessAborted(wait, o.signal);
    }
    this.warnings(res);
    const chunks: Buffer[] = [];
    for await (const c of res) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const code = res.statusCode ?? 0;
    let parsed: unknown = text || undefined;
    if (text && (res.headers['content-type'] ?? '').includes('json')) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    if (code < 200 || code > 299) throw statusErrorFrom(code, parsed, o.what);
    return parsed as T;
  }

  /**
   * Opens a long-running GET (a watch) and returns the response stream once the headers arrived.
   * Non-2xx answers reject with StatusError; destroying the returned request ends the stream.
   */
  async stream(path: string, o: RequestOptions = {}): Promise<{ res: IncomingMessage; req: http.ClientRequest }> {
    const r = await this.open('GET', path, { ...o, timeoutMs: o.timeoutMs ?? 0 }, true);
    const code = r.res.statusCode ?? 0;
    if (code < 200 || code > 299) {
      const chunks: Buffer[] = [];
      for await (const c of r.res) chunks.push(c as Buffer);
      const text = Buffer.concat(chunks).toString('utf8');
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        /* keep text */
      }
      throw statusErrorFrom(code, parsed, o.what);
    }
    return r;
  }

  /**
   * Installs a check run synchronously before every request other than a GET; what it throws is
   * what the request rejects with (nothing is sent). The Manager fences its client with its
   * leadership (see fence.ts). `undefined` removes it.
   */
  setWriteFence(fence: WriteFence | undefined): void {
    this.fence = fence;
  }

  /**
   * Counts every request from now on (`rest_client_requests_total`, see requestmetrics.ts);
   * `undefined` stops counting.
   */
  setRequestObserver(observer: RequestObserver | undefined): void {
    this.observer = observer;
  }

  /**
   * Hands every warning the API server sends (`Warning: 299 - "..."` headers: unknown fields
   * dropped under fieldValidation Warn, deprecated APIs...) to `handler`, text only (client-go's
   * WarningHandler); `undefined` ignores them again.
   */
  setWarningHandler(handler: ((message: string) => void) | undefined): void {
    this.warningHandler = handler;
  }

  private warnings(res: IncomingMessage): void {
    if (!this.warningHandler) return;
    for (const header of res.headersDistinct?.warning ?? [])
      for (const text of parseWarnings(header)) this.warningHandler(text);
  }

  /** An HTTP answer arrived: below 500 it ends an unreachable spell and wakes retry waiters. */
  private answered(status: number): void {
    if (status >= 500 || !this.unreachable) return;
    this.unreachable = false;
    const waiters = [...this.retryWaiters];
    this.retryWaiters.clear();
    for (const w of waiters) w();
  }

  private probe(): void {
    if (this.probeTimer || this.probing || this.retryWaiters.size === 0 || !this.unreachable) return;
    this.probeTimer = setTimeout(
      () => {
        this.probeTimer = undefined;
        this.probing = true;
        // Any answer below 500 wakes the waiters (through answered()); failures keep probing.
        this.request('GET', '/readyz', { timeoutMs: 2_000, what: 'readiness probe' })
          .catch(() => undefined)
          .finally(() => {
            this.probing = false;
            this.probe();
          });
      },
      PROBE_INTERVAL_MS * (0.9 + Math.random() * 0.2),
    );
    this.probeTimer.unref();
  }

  /**
   * A back-off sleep that ends early when the server is back. After a failure where no HTTP
   * answer came (`cause` a transport error: refused, reset, timed out), it resolves 'recovered'
   * as soon as any request of this client gets an answer below 500; meanwhile the client probes
   * /readyz twice a second (one light request, however many wait). Other causes (an HTTP error such
   * as 403 or 503) sleep the full `ms`, so back-off against an answering server is kept.
   * Resolves 'elapsed' after `ms`, 'aborted' when `signal` aborts. Never rejects.
   */
  waitForRetry(ms: number, signal: AbortSignal, cause?: unknown): Promise<RetryWait> {
    if (signal.aborted) return Promise.resolve('aborted');
    // Only a wait that follows a failure without answer ends early: an HTTP error keeps its back-off.
    const wakeable = isTransportError(cause);
    if (wakeable) this.unreachable = true;
    return new Promise((resolve) => {
      const finish = (how: RetryWait) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        this.retryWaiters.delete(onRecovered);
        resolve(how);
      };
      const onAbort = () => finish('aborted');
      const onRecovered = () => finish('recovered');
      const timer = setTimeout(() => finish('elapsed'), ms);
      signal.addEventListener('abort', onAbort, { once: true });
      if (wakeable) {
        this.retryWaiters.add(onRecovered);
        this.probe();
      }
    });
  }

  /** Closes idle keep-alive connections (call when the client is no longer used). */
  close(): void {
    clearTimeout(this.probeTimer);
    this.probeTimer = undefined;
    this.agent.destroy();
    this.watchAgent.destroy();
  }
}

function abortError(): Error {
  const e = new Error('the operation was aborted');
  e.name = 'AbortError';
  return e;
}

/**
 * The texts of a Warning header (RFC 7234: `299 - "text"`, several joined by commas), unescaped;
 * a header that does not parse is taken whole.
 */
export function parseWarnings(header: string): string[] {
  const out: string[] = [];
  const re = /\s*(\d{3})\s+(\S+)\s+"((?:[^"\\]|\\.)*)"(?:\s+"[^"]*")?\s*(,|$)/y;
  let at = 0;
  while (at < header.length) {
    re.lastIndex = at;
    const m = re.exec(header);
    if (!m) return out.length ? out : [header.trim()];
    out.push(m[3].replace(/\\(.)/g, '$1'));
    at = re.lastIndex;
  }
  return out;
}
