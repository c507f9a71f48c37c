/**
 * The webhook server (controller-runtime's webhook.Server): one HTTPS listener serving every
 * admission and conversion webhook of a manager by path. The serving certificate is read from a
 * folder and re-read when the files change (a Kubernetes Secret volume, cert-manager), without a
 * restart. HTTP/1.1 only unless `enableHttp2` (controller-runtime's default, after the HTTP/2
 * "rapid reset" CVEs).
 */
import { watch, readFileSync, type FSWatcher } from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import pino, { type Logger } from 'pino';
import type { Registry } from 'prom-client';
import { Registry as PromRegistry } from '../client/prom.js';
import type { Runnable } from '../contracts.js';
import { checkOptions, type OptionNames } from '../options.js';
import type { Checker } from '../manager/healthz.js';
import { ConversionRegistry, ConversionWebhook, type AnyConversion } from './conversion.js';
import { pathMetrics, webhookMetrics, type PathMetrics, type WebhookMetrics } from './metrics.js';
import type { GroupVersionKind } from '../contracts.js';
import { WebhookHttpError, describeThrown, type WebhookHandler, type WebhookHandlerContext } from './handler.js';
import { activeTracer, safely, traceMixin } from '../tracing.js';
import { WebhookSpan } from './tracing.js';

export { WebhookHttpError, describeThrown } from './handler.js';
export type { WebhookHandler, WebhookHandlerContext } from './handler.js';

/** The deepest nesting of JSON arrays and objects a request may have (Go's encoding/json: 10000). */
export const MAX_JSON_DEPTH = 10_000;

/**
 * Whether JSON text nests arrays and objects deeper than `limit`: one pass over the bytes,
 * brackets inside strings ignored. Linear and allocation-free, so it is cheap on a 7 MiB body.
 */
export function nestedDeeperThan(bytes: Uint8Array, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (inString) {
      if (b === 0x5c)
        i++; // backslash: skip the escaped byte
      else if (b === 0x22) inString = false;
    } else if (b === 0x22) inString = true;
    else if (b === 0x5b || b === 0x7b) {
      if (++depth > limit) return true;
    } else if (b === 0x5d || b === 0x7d) depth--;
  }
  return false;
}

/** Options of {@link newWebhookServer}. Durations are milliseconds. */
export interface WebhookServerOptions {
  /** Interface to bind; default all interfaces. */
  host?: string;
  /** Port; default 9443. 0 picks a free port (read it back from server.port after start). */
  port?: number;
  /** Folder holding the serving certificate; default `${os.tmpdir()}/k8s-webhook-server/serving-certs`. */
  certDir?: string;
  /** Certificate file in certDir (PEM, may hold the chain); default 'tls.crt'. */
  certName?: string;
  /** Private key file in certDir (PEM); default 'tls.key'. */
  keyName?: string;
  /** Serve HTTP/2 as well as HTTP/1.1 (default false: HTTP/1.1 only, as controller-runtime). */
  enableHttp2?: boolean;
  /** Largest request body accepted, bytes (default 7 MiB, controller-runtime's limit); larger -> 413. */
  maxRequestBodyBytes?: number;
  /** Per-request timeout in ms (default 30_000; the API server's own limit is at most 30 s). */
  requestTimeoutMs?: number;
  /** Logger (default: the Manager's, which sets it; standalone: pino to stderr). */
  logger?: Logger;
  /** Registry for the controller_runtime_webhook_* metrics (default: the Manager's, which sets it). */
  registry?: Registry;
  /**
   * Called after each answered request with the time in ms from the end of the request body to
   * the response handed to the socket (tracing, benchmarks). Exceptions it throws are ignored.
   */
  onHandled?: (path: string, statusCode: number, ms: number) => void;
}

/** The names {@link WebhookServerOptions} takes (any other is refused). */
export const WEBHOOK_SERVER_OPTION_NAMES: OptionNames<WebhookServerOptions> = {
  host: true,
  port: true,
  certDir: true,
  certName: true,
  keyName: true,
  enableHttp2: true,
  maxRequestBodyBytes: true,
  requestTimeoutMs: true,
  logger: true,
  registry: true,
  onHandled: true,
};

/** Default certificate folder, as controller-runtime. */
export function defaultCertDir(): string {
  return join(tmpdir(), 'k8s-webhook-server', 'serving-certs');
}

/**
 * Creates a webhook server (not started). Throws on invalid options (port out of range, a
 * non-positive body limit or timeout, an unknown option name). Give it to `ManagerOptions.webhookServer`, or pass the
 * options there and use `mgr.getWebhookServer()`.
 */
export function newWebhookServer(options: WebhookServerOptions = {}): WebhookServer {
  return new WebhookServer(options);
}

interface Entry {
  handler: WebhookHandler;
  metrics?: PathMetrics;
}

type AnyServer = https.Server | http2.Http2SecureServer;

/** One request in flight; its AbortController is only made when a handler asks for the signal. */
class Flight {
  private ac?: AbortController;
  private reason?: Error;
  /** performance.now() after which the request times out. */
  deadline = Infinity;
  /** Answers 503 and aborts; set by the server. */
  onTimeout: () => void = () => undefined;
  /** Called when the signal is first asked for (the server then watches for the client leaving). */
  onSignal: () => void = () => undefined;

  get signal(): AbortSignal {
    if (!this.ac) {
      this.ac = new AbortController();
      if (this.reason) this.ac.abort(this.reason);
      else this.onSignal();
    }
    return this.ac.signal;
  }

  abort(reason: Error): void {
    if (this.reason) return;
    this.reason = reason;
    this.ac?.abort(reason);
  }
}
type Req = http.IncomingMessage | http2.Http2ServerRequest;
type Res = http.ServerResponse | http2.Http2ServerResponse;

const TEXT = { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' };
/** Longer than the API server's idle-connection timeout (90 s), so it, not we, closes idle connections. */
const KEEP_ALIVE_MS = 120_000;
const POLL_MS = 10_000;
/** A request's own 'error' (the client went away) ends nothing here: its response does. One listener for all. */
const ignore = (): undefined => undefined;

/**
 * See {@link newWebhookServer}. A Runnable (`needLeaderElection()` is false: every replica
 * serves). The Manager starts it with its servers, before caches and controllers, only when it
 * has handlers, and stops it last.
 *
 * Requests: POST only (405 otherwise), `Content-Type: application/json` (400 otherwise), body
 * up to `maxRequestBodyBytes` (413), valid JSON (400); unknown paths 404. Each request gets an
 * AbortSignal that aborts on `requestTimeoutMs` (checked every tenth of it, at least once a
 * second; the client then gets 503), when the client
 * disconnects, or when draining at shutdown ends. Nothing a client sends crashes the process.
 *
 * On error: `start()` rejects when the certificate cannot be read or the port cannot be bound.
 * A certificate that fails to re-read later is logged and the previous one kept.
 * On shutdown (the signal aborts): stops accepting connections, lets in-flight requests finish
 * (they end within `requestTimeoutMs`), closes idle keep-alive connections, then resolves.
 */
export class WebhookServer implements Runnable {
  private readonly handlers = new Map<string, Entry>();
  private readonly host?: string;
  private readonly listenPort: number;
  private readonly certFile: string;
  private readonly keyFile: string;
  private readonly certDir: string;
  private readonly http2: boolean;
  private readonly maxBody: number;
  private readonly timeoutMs: number;
  private readonly onHandled?: WebhookServerOptions['onHandled'];
  private logger?: Logger;
  private registry?: Registry;
  private metrics?: WebhookMetrics;
  private startCalled = false;
  private listening = false;
  private stopping = false;
  private boundPort?: number;
  private server?: AnyServer;
  private cert = '';
  private key = '';
  private readonly sockets = new Set<Socket>();
  private readonly sessions = new Set<http2.ServerHttp2Session>();
  /** Bumped on every certificate reload; each connection remembers the one it was made under. */
  private certGeneration = 0;
  private readonly connGeneration = new WeakMap<object, number>();
  private readonly inflight = new Set<Flight>();
  private drained?: () => void;
  private conversions?: ConversionRegistry;
  private closedReason?: string;
  private startedResolve!: () => void;
  private startedReject!: (e: unknown) => void;
  private readonly startedPromise: Promise<void>;

  constructor(options: WebhookServerOptions = {}) {
    checkOptions('newWebhookServer', options, WEBHOOK_SERVER_OPTION_NAMES, { requestTimeout: 'requestTimeoutMs' });
    const port = options.port ?? 9443;
    if (!Number.isInteger(port) || port < 0 || port > 65535)
      throw new Error(`webhook server: port ${port} is out of range (0-65535; 0 picks a free port)`);
    const maxBody = options.maxRequestBodyBytes ?? 7 * 1024 * 1024;
    if (!(maxBody > 0)) throw new Error(`webhook server: maxRequestBodyBytes must be > 0 (got ${maxBody})`);
    const timeoutMs = options.requestTimeoutMs ?? 30_000;
    if (!(timeoutMs > 0)) throw new Error(`webhook server: requestTimeoutMs must be > 0 (got ${timeoutMs})`);
    this.host = options.host || undefined;
    this.listenPort = port;
    this.certDir = options.certDir ?? defaultCertDir();
    this.certFile = join(this.certDir, options.certName ?? 'tls.crt');
    this.keyFile = join(this.certDir, options.keyName ?? 'tls.key');
    this.http2 = !!options.enableHttp2;
    this.maxBody = maxBody;
    this.timeoutMs = timeoutMs;
    this.logger = options.logger;
    this.registry = options.registry;
    this.onHandled = options.onHandled;
    this.startedPromise = new Promise((res, rej) => {
      this.startedResolve = res;
      this.startedReject = rej;
    });
    this.startedPromise.catch(() => undefined);
  }

  /**
   * Gives the server the Manager's logger and metrics registry unless its options set their
   * own. Called by the Manager; no effect once started.
   */
  useDefaults(defaults: { logger?: Logger; registry?: Registry }): void {
    if (this.startCalled) return;
    this.logger ??= defaults.logger;
    this.registry ??= defaults.registry;
  }

  /**
   * Registers a handler for a path; throws on a duplicate path, a path not starting with '/', or
   * after start (or after a Manager started without starting this server).
   */
  register(path: string, handler: WebhookHandler): void {
    const closed = this.registrationError();
    if (closed) throw new Error(`webhook server: cannot register ${path}: ${closed}`);
    if (typeof path !== 'string' || !path.startsWith('/'))
      throw new Error(`webhook server: path ${JSON.stringify(path)} must start with '/'`);
    if (!handler || typeof handler.handle !== 'function')
      throw new Error(`webhook server: the handler for ${path} has no handle(body, ctx) method`);
    if (this.handlers.has(path)) throw new Error(`webhook server: a handler is already registered for ${path}`);
    this.handlers.set(path, { handler });
  }

  /** True once at least one handler is registered (the Manager only starts a server that has some). */
  hasHandlers(): boolean {
    return this.handlers.size > 0;
  }

  /** True when a handler is registered for `path`. */
  isRegistered(path: string): boolean {
    return this.handlers.has(path);
  }

  /** True once start() was called (registering is then refused). */
  isStarted(): boolean {
    return this.startCalled;
  }

  /** Why registering is refused now (started, or closed by the Manager), or undefined. */
  registrationError(): string | undefined {
    if (this.startCalled) return 'the webhook server is already running; register webhooks before mgr.start()';
    return this.closedReason;
  }

  /**
   * Refuses further registrations with `reason`. The Manager calls it when it starts without
   * starting this server (no handlers then), so that a late registration fails loudly instead of
   * never being served.
   */
  closeRegistration(reason: string): void {
    this.closedReason ??= reason;
  }

  /**
   * Adds a spoke version's conversion to the hub of its group/kind, served on `/convert` (one
   * handler for every Kind; registered with the first conversion). Throws when the spoke is the
   * hub's own version, the group/kind already has another hub version, the spoke is already
   * registered, or `/convert` would have to be registered after start.
   */
  registerConversion(hub: GroupVersionKind, spokeVersion: string, conversion: AnyConversion): void {
    const problem = this.conversionProblem(hub, spokeVersion);
    if (problem) throw new Error(`webhook server: ${problem}`);
    if (!this.conversions) {
      const registry = new ConversionRegistry();
      this.register('/convert', new ConversionWebhook(registry));
      this.conversions = registry;
    }
    this.conversions.add(hub, spokeVersion, conversion);
  }

  /** Why {@link registerConversion} would throw for these arguments, or undefined. */
  conversionProblem(hub: GroupVersionKind, spokeVersion: string): string | undefined {
    const closed = this.registrationError();
    if (!this.conversions && closed) return `cannot register /convert: ${closed}`;
    if (!this.conversions && this.handlers.has('/convert'))
      return 'a handler other than the conversion webhook is registered for /convert';
    return (this.conversions ?? new ConversionRegistry()).problem(hub, spokeVersion);
  }

  /** The runnable is not bound to leadership: every replica serves webhooks. */
  needLeaderElection(): false {
    return false;
  }

  /** Bound port once started (undefined before). */
  get port(): number | undefined {
    return this.boundPort;
  }

  /** Resolves once the server accepts TLS connections; rejects when start() fails first. */
  whenStarted(): Promise<void> {
    return this.startedPromise;
  }

  /**
   * Readiness check (controller-runtime's StartedChecker): ok when there are no handlers, or when
   * a TLS handshake with the server succeeds; throws "not started" / "not reachable" otherwise.
   */
  startedChecker(): Checker {
    return () => {
      if (!this.hasHandlers()) return;
      if (!this.listening || this.boundPort === undefined) throw new Error('webhook server has not been started yet');
      const host = !this.host || this.host === '0.0.0.0' ? '127.0.0.1' : this.host === '::' ? '::1' : this.host;
      const port = this.boundPort;
      return new Promise<void>((resolve, reject) => {
        const sock = tls.connect({ host, port, rejectUnauthorized: false, ALPNProtocols: ['http/1.1'] }, () => {
          sock.destroy();
          resolve();
        });
        sock.setTimeout(10_000, () => sock.destroy(new Error('TLS handshake timed out')));
        sock.once('error', (e) => reject(new Error(`webhook server is not reachable: ${e.message}`)));
      });
    };
  }

  private log(): Logger {
    this.logger ??= pino(
      { level: process.env.LOG_LEVEL ?? 'info', mixin: traceMixin },
      pino.destination({ dest: 2, sync: true }),
    ).child({ logger: 'webhook' });
    return this.logger;
  }

  /** Reads the certificate pair; throws naming the files. */
  private readCert(): { cert: string; key: string } {
    let cert: string;
    let key: string;
    try {
      cert = readFileSync(this.certFile, 'utf8');
      key = readFileSync(this.keyFile, 'utf8');
    } catch (e) {
      throw new Error(
        `webhook server: cannot read the serving certificate (${this.certFile}, ${this.keyFile}): ${(e as Error).message}`,
      );
    }
    try {
      tls.createSecureContext({ cert, key });
    } catch (e) {
      throw new Error(
        `webhook server: invalid serving certificate or key (${this.certFile}, ${this.keyFile}): ${(e as Error).message}`,
      );
    }
    return { cert, key };
  }

  /** Re-reads the certificate; applies it when it changed. Failures are logged, the old one kept. */
  private reloadCert(why: string): void {
    if (!this.server || this.stopping) return;
    let pair: { cert: string; key: string };
    try {
      pair = this.readCert();
    } catch (e) {
      this.log().error(
        { err: (e as Error).message, trigger: why },
        'failed to reload the serving certificate; keeping the current one',
      );
      return;
    }
    if (pair.cert === this.cert && pair.key === this.key) return;
    try {
      this.server.setSecureContext(pair);
    } catch (e) {
      this.log().error(
        { err: (e as Error).message, trigger: why },
        'failed to apply the reloaded serving certificate; keeping the current one',
      );
      return;
    }
    this.cert = pair.cert;
    this.key = pair.key;
    this.certGeneration++;
    // New handshakes get the new certificate; keep-alive connections would go on with the old one
    // for as long as the API server keeps them (90 s). An HTTP/1 connection made before the reload
    // answers its next request with `Connection: close` (see `finish`); it is not closed while
    // idle, because the API server may be writing a request on it at that moment, and Go's client
    // does not retry a POST on a connection reset (one failed admission call per rotation). HTTP/2
    // sessions get a graceful GOAWAY, which the client does retry. Either way the API server
    // reconnects and sees the new certificate.
    for (const s of this.sessions) s.close();
    this.log().info({ certFile: this.certFile, trigger: why }, 'serving certificate reloaded');
  }

  /**
   * Serves until `signal` aborts, then drains and resolves (see the class comment). Rejects when
   * the certificate is unreadable or the port cannot be bound. Calling it twice rejects.
   */
  async start(signal: AbortSignal): Promise<void> {
    if (this.startCalled) throw new Error('webhook server already started');
    this.startCalled = true;
    const log = this.log();
    let watcher: FSWatcher | undefined;
    let poll: NodeJS.Timeout | undefined;
    let sweep: NodeJS.Timeout | undefined;
    let debounce: NodeJS.Timeout | undefined;
    try {
      const { cert, key } = this.readCert();
      this.cert = cert;
      this.key = key;
      this.registry ??= new PromRegistry();
      this.metrics = webhookMetrics(this.registry);
      for (const [path, e] of this.handlers) e.metrics = pathMetrics(this.metrics, path);
      const server = this.createServer(cert, key);
      this.server = server;
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen({ host: this.host, port: this.listenPort }, () => {
          server.removeListener('error', reject);
          resolve();
        });
      });
      server.on('error', (e) => log.error({ err: e.message }, 'webhook server error'));
      this.boundPort = (server.address() as { port: number }).port;
      this.listening = true;
      try {
        watcher = watch(this.certDir, { persistent: false }, () => {
          clearTimeout(debounce);
          debounce = setTimeout(() => this.reloadCert('watch'), 50);
        });
        watcher.on('error', (e) => log.info({ err: e.message }, 'certificate folder watch failed; polling only'));
      } catch (e) {
        log.info({ err: (e as Error).message }, 'cannot watch the certificate folder; polling only');
      }
      poll = setInterval(() => this.reloadCert('poll'), POLL_MS);
      poll.unref();
      // One timer for every request's timeout: a timer per request costs more than the check.
      sweep = setInterval(
        () => {
          const now = performance.now();
          for (const f of this.inflight) if (f.deadline <= now) f.onTimeout();
        },
        Math.max(5, Math.min(1_000, this.timeoutMs / 10)),
      );
      sweep.unref();
      log.info(
        { host: this.host ?? '', port: this.boundPort, http2: this.http2, paths: [...this.handlers.keys()].sort() },
        'starting webhook server',
      );
      this.startedResolve();
    } catch (e) {
      watcher?.close();
      clearInterval(poll);
      clearInterval(sweep);
      this.startedReject(e);
      this.closeNow();
      throw e;
    }
    if (!signal.aborted) await new Promise<void>((r) => signal.addEventListener('abort', () => r(), { once: true }));
    watcher?.close();
    clearInterval(poll);
    clearTimeout(debounce);
    await this.shutdown(() => clearInterval(sweep));
    log.info('webhook server stopped');
  }

  private createServer(cert: string, key: string): AnyServer {
    const onRequest = (req: Req, res: Res) => this.serve(req, res);
    let server: AnyServer;
    if (this.http2) {
      const s = http2.createSecureServer({ cert, key, allowHTTP1: true }, onRequest);
      s.on('session', (session: http2.ServerHttp2Session) => {
        if (this.stopping) {
          session.destroy();
          return;
        }
        this.sessions.add(session);
        this.connGeneration.set(session, this.certGeneration);
        session.once('close', () => this.sessions.delete(session));
      });
      server = s;
    } else {
      const s = https.createServer({ cert, key, ALPNProtocols: ['http/1.1'] }, onRequest);
      s.keepAliveTimeout = KEEP_ALIVE_MS;
      s.requestTimeout = this.timeoutMs;
      s.headersTimeout = Math.min(this.timeoutMs, 60_000);
      server = s;
    }
    server.on('secureConnection', (sock: tls.TLSSocket) => {
      // A connection accepted before the shutdown began and through its handshake only after it
      // would be missed by the shutdown's sweep and held open by the client's keep-alive (90 s).
      if (this.stopping) {
        sock.destroy();
        return;
      }
      this.sockets.add(sock);
      this.connGeneration.set(sock, this.certGeneration);
      sock.once('close', () => this.sockets.delete(sock));
    });
    server.on('tlsClientError', (e: Error) => this.log().debug({ err: e.message }, 'TLS handshake failed'));
    return server;
  }

  private closeNow(): void {
    this.listening = false;
    this.server?.close();
    for (const s of this.sockets) s.destroy();
  }

  private async shutdown(stopSweep: () => void): Promise<void> {
    const server = this.server;
    if (!server) throw new Error('kubeforge/runtime: webhook server: shutdown before it listened');
    this.stopping = true;
    this.listening = false;
    const closed = new Promise<void>((r) => server.close(() => r()));
    for (const s of this.sessions) s.close();
    if (!this.http2) (server as https.Server).closeIdleConnections();
    if (this.inflight.size > 0) {
      let t: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((r) => (this.drained = r)),
        new Promise<void>((r) => (t = setTimeout(r, this.timeoutMs + 1_000))),
      ]);
      clearTimeout(t);
      for (const f of this.inflight) f.abort(new Error('webhook server shutting down'));
    }
    stopSweep();
    for (const s of this.sockets) s.destroy();
    await closed;
  }

  /** True when the request came on an HTTP/1 connection made before the last certificate reload. */
  private servedWithOldCert(req: Req): boolean {
    const gen = this.connGeneration.get(req.socket);
    return gen !== undefined && gen < this.certGeneration;
  }

  private text(res: Res, status: number, message: string, close = false): void {
    const headers: Record<string, string> = { ...TEXT };
    if (close && !this.http2) headers.Connection = 'close';
    res.writeHead(status, headers);
    res.end(message.endsWith('\n') ? message : `${message}\n`);
  }

  /** One request, from headers to the response written. */
  private serve(req: Req, res: Res): void {
    const t0 = performance.now();
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const entry = this.handlers.get(path);
    if (!entry) {
      this.text(res, 404, `404 page not found: no webhook is registered for ${path}`);
      return;
    }
    const m = entry.metrics;
    if (!m) {
      // start() gives every handler its metrics, and registration after start is refused.
      this.text(res, 500, `webhook server: ${path} is served before the server started`);
      return;
    }
    m.inc();
    const flight = new Flight();
    this.inflight.add(flight);
    let answered = false;
    let bodyEnd = t0;
    /** With a TracerProvider registered, once the body is parsed (see tracing.ts). */
    let span: WebhookSpan | undefined;
    const finish = (status: number, write: () => void) => {
      if (answered) return;
      answered = true;
      span?.end(status);
      if ((this.stopping || this.servedWithOldCert(req)) && res instanceof http.ServerResponse && !res.headersSent)
        res.setHeader('Connection', 'close');
      try {
        write();
      } catch (e) {
        this.log().error({ webhook: path, err: (e as Error).message }, 'failed to write the webhook response');
      }
      m.dec();
      m.done(status, (performance.now() - t0) / 1000);
      this.inflight.delete(flight);
      if (this.onHandled) {
        try {
          this.onHandled(path, status, performance.now() - bodyEnd);
        } catch {
          /* ignored, as documented */
        }
      }
      if (this.stopping && this.inflight.size === 0) this.drained?.();
    };
    flight.deadline = t0 + this.timeoutMs;
    flight.onTimeout = () => {
      flight.abort(new Error(`request timed out after ${this.timeoutMs}ms`));
      finish(503, () => this.text(res, 503, `request timed out after ${this.timeoutMs}ms`, true));
    };
    // Only a handler holding the signal cares that the client left; a request whose client left
    // otherwise ends when its handler returns or times out.
    flight.onSignal = () =>
      res.once('close', () => {
        if (!answered) {
          flight.abort(new Error('the client closed the connection'));
          finish(499, () => undefined);
        }
      });
    req.on('error', ignore);
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST');
      finish(405, () => this.text(res, 405, `method ${req.method} not allowed: webhooks take POST`, true));
      req.resume();
      return;
    }
    const contentType = req.headers['content-type'];
    const mediaType = typeof contentType === 'string' ? contentType.split(';')[0].trim().toLowerCase() : '';
    if (mediaType !== 'application/json') {
      finish(400, () => this.text(res, 400, `contentType=${contentType ?? ''}, expected application/json`, true));
      req.resume();
      return;
    }
    const declared = Number(req.headers['content-length']);
    const tooLarge = () => `request entity is too large; limit is ${this.maxBody} bytes`;
    if (declared > this.maxBody) {
      finish(413, () => this.text(res, 413, tooLarge(), true));
      req.resume();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      if (answered) return;
      size += c.length;
      if (size > this.maxBody) {
        finish(413, () => this.text(res, 413, tooLarge(), true));
        return;
      }
      chunks.push(c);
    });
    // 'end' comes once: on(), not once(), spares a wrapper per request.
    req.on('end', () => {
      if (answered) return;
      bodyEnd = performance.now();
      let body: unknown;
      try {
        if (size === 0) throw new Error('request body is empty');
        const bytes = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
        // Refused before any parse or recursive walk (Go's decoder stops at the same depth): one
        // deeply nested review must not hold the event loop, or be taken for a crash of user code.
        // (Nesting past the limit takes more opening brackets than a body this small has: not scanned.)
        if (size > MAX_JSON_DEPTH && nestedDeeperThan(bytes, MAX_JSON_DEPTH))
          throw new Error(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
        body = JSON.parse(bytes.toString('utf8'));
      } catch (e) {
        finish(400, () => this.text(res, 400, `malformed request body: ${(e as Error).message}`));
        return;
      }
      const tracer = activeTracer();
      span = tracer && safely(() => new WebhookSpan(tracer, path, req.headers, body));
      if (!span) return this.dispatch(path, entry, body, flight, res, finish);
      const s = span;
      s.run(() => this.dispatch(path, entry, body, flight, res, finish, s));
    });
  }

  private dispatch(
    path: string,
    entry: Entry,
    body: unknown,
    flight: Flight,
    res: Res,
    finish: (status: number, write: () => void) => void,
    span?: WebhookSpan,
  ): void {
    let logger: Logger | undefined;
    const self = this;
    const ctx: WebhookHandlerContext = {
      get signal() {
        const signal = flight.signal;
        if (span) safely(() => span.bind(signal));
        return signal;
      },
      get logger() {
        logger ??= self.log().child({ webhook: path, ...(span && safely(() => span.logIds())) });
        return logger;
      },
      recordPanic: (v) => this.recordPanic(path, v),
    };
    let p: Promise<unknown>;
    try {
      p = Promise.resolve(entry.handler.handle(body, ctx));
    } catch (e) {
      p = Promise.reject(e);
    }
    p.then(
      (answer) => {
        span?.answered(answer);
        let json: string;
        try {
          json = JSON.stringify(answer) ?? 'null';
        } catch (e) {
          span?.failed(e);
          this.log().error({ webhook: path, err: (e as Error).message }, 'cannot encode the webhook response');
          finish(500, () => this.text(res, 500, 'internal error: cannot encode the response'));
          return;
        }
        finish(200, () => {
          res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(json)) });
          res.end(json);
        });
      },
      (e: unknown) => {
        span?.failed(e);
        if (e instanceof WebhookHttpError) {
          // Error level, as controller-runtime logs a review it cannot decode: the API server only
          // says "rejected our request for an unknown reason", so this line is where the cause shows.
          this.log().error({ webhook: path, status: e.statusCode, err: e.message }, 'webhook request rejected');
          finish(e.statusCode, () => this.text(res, e.statusCode, e.message));
          return;
        }
        if (!(e instanceof Error)) this.recordPanic(path, e);
        else this.log().error({ webhook: path, err: e.message, stack: e.stack }, 'webhook handler failed');
        finish(500, () => this.text(res, 500, 'internal error while handling the webhook request'));
      },
    );
  }

  /** Counts and logs a crash of user code. */
  private recordPanic(path: string, value: unknown): void {
    this.metrics?.panics.inc();
    const detail = value instanceof Error ? { err: value.message, stack: value.stack } : { err: describeThrown(value) };
    this.log().error({ webhook: path, ...detail }, 'observed a panic in webhook');
  }
}
