/**
 * The Manager's HTTP servers: the health-probe server and the metrics server (plain HTTP, or HTTPS
 * with caller authentication and authorisation through TokenReview / SubjectAccessReview, as
 * Kubebuilder's default `filters.WithAuthenticationAndAuthorization`).
 */
import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo, Server as NetServer } from 'node:net';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { RestClient } from '../client/rest.js';
import { generateSelfSignedCert } from './selfsigned.js';

/** `":8080"`, `"127.0.0.1:0"`, `"[::1]:9090"`, `"8080"`; `"0"` or `""` mean disabled (undefined). */
export function parseBindAddress(addr: string | undefined, what: string): { host?: string; port: number } | undefined {
  if (addr === undefined || addr === '' || addr === '0') return undefined;
  const m = /^(?:\[([^\]]+)\]|([^:]*))?:(\d+)$/.exec(addr) ?? /^()()(\d+)$/.exec(addr);
  if (!m)
    throw new Error(
      `${what} ${JSON.stringify(addr)} is not a valid bind address; use "host:port", ":port" or "0" to disable`,
    );
  const port = Number(m[3]);
  if (port > 65535) throw new Error(`${what} ${JSON.stringify(addr)}: port out of range`);
  const host = m[1] ?? (m[2] || undefined);
  return { host, port };
}

/** Listens; resolves with the bound address; rejects on EADDRINUSE and the like. */
export function listen(server: NetServer, bind: { host?: string; port: number }): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const onError = (e: Error) => reject(e);
    server.once('error', onError);
    server.listen({ host: bind.host, port: bind.port }, () => {
      server.removeListener('error', onError);
      resolve(server.address() as AddressInfo);
    });
  });
}

/** An HTTP/1.1 server, or an HTTP/2 one (with HTTP/1.1 fallback) when HTTP/2 was asked for. */
export type AnyHttpServer = http.Server | Http2Server;

/** An HTTP/2 server that knows its open sessions, so that it can be closed. */
interface Http2Server extends http2.Http2SecureServer {
  readonly sessions: Set<http2.ServerHttp2Session>;
}

/**
 * Closes the server, ending idle keep-alive connections; after `graceMs` drops the rest.
 * HTTP/2 sessions get a GOAWAY at once (their open streams finish) and are destroyed after `graceMs`.
 */
export function close(server: AnyHttpServer, graceMs = 5_000): Promise<void> {
  if ('sessions' in server) {
    return new Promise((resolve) => {
      if (!server.listening) return resolve();
      const t = setTimeout(() => {
        for (const session of server.sessions) session.destroy();
      }, graceMs);
      server.close(() => {
        clearTimeout(t);
        resolve();
      });
      for (const session of server.sessions) session.close();
    });
  }
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    const t = setTimeout(() => server.closeAllConnections(), graceMs);
    server.close(() => {
      clearTimeout(t);
      resolve();
    });
    server.closeIdleConnections();
  });
}

/** Metrics server options (Manager `metrics` option). */
export interface MetricsServerOptions {
  /** Where to serve /metrics; "0" (the default) disables the server. Kubebuilder uses ":8443" (secure) or ":8080". */
  bindAddress?: string;
  /** Serve HTTPS and require an authenticated, authorised caller (default false). */
  secureServing?: boolean;
  /** Folder with the serving certificate; without one a self-signed certificate is generated. */
  certDir?: string;
  /** Certificate file name in certDir (default tls.crt). */
  certName?: string;
  /** Key file name in certDir (default tls.key). */
  keyName?: string;
  /**
   * With secureServing: check callers through TokenReview + SubjectAccessReview (default true).
   * Set false to serve HTTPS without authentication.
   */
  authenticate?: boolean;
  /** Extra handlers served next to /metrics, by path (controller-runtime's ExtraHandlers). */
  extraHandlers?: Record<string, http.RequestListener>;
  /**
   * With secureServing: offer HTTP/2 (ALPN h2, HTTP/1.1 still accepted). Off by default, as in
   * controller-runtime, because of the HTTP/2 "rapid reset" and stream-cancellation CVEs.
   * Plain-HTTP serving is HTTP/1.1 only.
   */
  enableHttp2?: boolean;
}

interface CacheEntry<T> {
  value: T;
  expires: number;
}

/**
 * Checks callers of the secure metrics endpoint: a bearer token validated by TokenReview, then a
 * SubjectAccessReview for a `get` on the request path (non-resource URL). Results are cached
 * briefly (allowed: 60 s, denied: 10 s). API failures answer 500 and are logged.
 */
export class DelegatingAuth {
  private readonly authn = new Map<
    string,
    CacheEntry<{ username: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> } | null>
  >();
  private readonly authz = new Map<string, CacheEntry<{ allowed: boolean; reason?: string }>>();

  constructor(
    private readonly rest: RestClient,
    private readonly logger: Logger,
  ) {}

  private remember<T>(m: Map<string, CacheEntry<T>>, k: string, value: T, ttlMs: number): void {
    if (m.size >= 1024) {
      const now = Date.now();
      for (const [key, e] of m) if (e.expires < now) m.delete(key);
      if (m.size >= 1024) m.delete(m.keys().next().value as string);
    }
    m.set(k, { value, expires: Date.now() + ttlMs });
  }

  private cached<T>(m: Map<string, CacheEntry<T>>, k: string): T | undefined {
    const e = m.get(k);
    if (!e) return undefined;
    if (e.expires < Date.now()) {
      m.delete(k);
      return undefined;
    }
    return e.value;
  }

  /** Answers 401/403/500 itself and resolves false, or resolves true when the caller may proceed. */
  async check(req: http.IncomingMessage, res: http.ServerResponse): Promise<boolean> {
    const header = req.headers.authorization ?? '';
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!m) {
      res.writeHead(401, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Unauthorized\n');
      return false;
    }
    const token = m[1];
    const tokenKey = createHash('sha256').update(token).digest('hex'); // no raw tokens kept in memory
    const path = new URL(req.url ?? '/', 'https://metrics').pathname;
    try {
      let user = this.cached(this.authn, tokenKey);
      if (user === undefined) {
        const review = await this.rest.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews', {
          body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } },
        });
        user = review.status?.authenticated ? review.status.user : null;
        this.remember(this.authn, tokenKey, user ?? null, user ? 60_000 : 10_000);
      }
      if (!user) {
        res.writeHead(401, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Unauthorized\n');
        return false;
      }
      const verb = (req.method ?? 'GET').toLowerCase() === 'head' ? 'get' : (req.method ?? 'GET').toLowerCase();
      const key = JSON.stringify([user.username, user.uid, user.groups, verb, path]);
      let decision = this.cached(this.authz, key);
      if (!decision) {
        const review = await this.rest.request('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
          body: {
            apiVersion: 'authorization.k8s.io/v1',
            kind: 'SubjectAccessReview',
            spec: {
              user: user.username,
              uid: user.uid,
              groups: user.groups,
              extra: user.extra,
              nonResourceAttributes: { path, verb },
            },
          },
        });
        decision = { allowed: !!review.status?.allowed, reason: review.status?.reason };
        this.remember(this.authz, key, decision, decision.allowed ? 60_000 : 10_000);
      }
      if (!decision.allowed) {
        res
          .writeHead(403, { 'Content-Type': 'text/plain; charset=utf-8' })
          .end(`Forbidden (user=${user.username}, verb=${verb}, resource=, subresource=)\n`);
        return false;
      }
      return true;
    } catch (e) {
      this.logger.error({ err: (e as Error).message }, 'metrics authentication/authorization failed');
      res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Internal Server Error\n');
      return false;
    }
  }
}

/** The serving certificate of a secure metrics server: from certDir, or generated. Throws on unreadable files. */
export function servingCert(o: MetricsServerOptions): { cert: string; key: string; generated: boolean } {
  if (o.certDir) {
    const certFile = join(o.certDir, o.certName ?? 'tls.crt');
    const keyFile = join(o.certDir, o.keyName ?? 'tls.key');
    try {
      return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8'), generated: false };
    } catch (e) {
      throw new Error(
        `metrics server: cannot read the serving certificate (${certFile}, ${keyFile}): ${(e as Error).message}`,
      );
    }
  }
  return { ...generateSelfSignedCert({ hosts: ['localhost', '127.0.0.1', '::1'] }), generated: true };
}

/** Builds (does not start) the metrics server. */
export function metricsServer(
  o: MetricsServerOptions,
  registry: Registry,
  logger: Logger,
  auth: DelegatingAuth | undefined,
  tls: { cert: string; key: string } | undefined,
): AnyHttpServer {
  const handler: http.RequestListener = async (req, res) => {
    try {
      if (auth && !(await auth.check(req, res))) return;
      const path = new URL(req.url ?? '/', 'http://metrics').pathname;
      if (path === '/metrics') {
        if (req.method !== 'GET' && req.method !== 'HEAD') {
          res.writeHead(405).end();
          return;
        }
        const body = await registry.metrics();
        res.writeHead(200, { 'Content-Type': registry.contentType }).end(body);
        return;
      }
      const extra = o.extraHandlers?.[path];
      if (extra) return extra(req, res);
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('404 page not found\n');
    } catch (e) {
      logger.error({ err: (e as Error).message }, 'metrics request failed');
      if (!res.headersSent) res.writeHead(500).end();
    }
  };
  if (tls && o.enableHttp2) {
    // The compatibility API hands HTTP/1.1-shaped request/response objects to the same handler.
    const server = http2.createSecureServer(
      { cert: tls.cert, key: tls.key, allowHTTP1: true },
      handler as unknown as (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => void,
    );
    const sessions = new Set<http2.ServerHttp2Session>();
    server.on('session', (session: http2.ServerHttp2Session) => {
      sessions.add(session);
      session.once('close', () => sessions.delete(session));
    });
    return Object.assign(server, { sessions });
  }
  return tls ? https.createServer({ cert: tls.cert, key: tls.key }, handler) : http.createServer(handler);
}
