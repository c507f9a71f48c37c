/**
 * The fake API server's HTTP face: an in-process server on 127.0.0.1 that speaks the Kubernetes
 * REST API, built as kube-apiserver is: a route table maps a verb and a path's shape to its
 * handler (reads: ./read.ts; writes: ./store.ts through the body pipeline, ./pipeline.ts, and each
 * resource's strategy, ./strategy.ts; discovery: ./discovery.ts; the scale subresource:
 * ./scale.ts), every handler given the request's context (./context.ts). Built-in resources come
 * from the one table of built-in Kinds (src/apiserver/builtin-kinds.ts), custom ones from the CRDs
 * given or written. Because it speaks HTTP, the runtime's own client, informers, RESTMapper,
 * leader election and event recorder run over it unchanged: a manager started on it behaves as on
 * a real server, minus what ./store.ts leaves out.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { BUILTIN_KINDS } from '../../apiserver/builtin-kinds.js';
import { builtinResource, crdResources, type Resource } from './resources.js';
import { Store } from './store.js';
import type { CelRules } from './pipeline.js';
import { ApiStatus, methodNotAllowed, notFound } from './status.js';
import { apiVersionOf } from '../../runtime/client/types.js';
import { type Obj, clone } from '../../apiserver/json.js';
import { WebhookAdmission, type AdmissionRequestInfo } from './admission.js';
import { isCRD, syncCRD, type CRDHost } from './crdapi.js';
import { serveScale } from './scale.js';
import { checkDeleteOptions } from './request.js';
import { stringifyWire } from './wire.js';
import { objectName, requestContext, type RequestContext, type WriteContext } from './context.js';
import { discoveryRoot, resourceList, servesGroupVersion } from './discovery.js';
import { type Answer, listMeta, matches, Reader, type Selectors, selectorsOf, str, WATCHING } from './read.js';

/** The version the fake reports at /version. */
export const FAKE_SERVER_VERSION = { major: '1', minor: '37', gitVersion: 'v1.37.2-kubeforge-fake', platform: 'fake' };

/** What a handler answers: a body, a watch that took the response over, or either later. */
type Handled = Answer | Promise<Answer> | typeof WATCHING;

/** A resource path's shape: its collection, one object (or its status), one object's scale. */
type Shape = 'collection' | 'object' | 'scale';

/** A resource route: the resource a path names, and where in it. */
interface Route {
  r: Resource;
  namespace?: string;
  name?: string;
  sub?: string;
}

/** A request the fake API server received with a `traceparent` header. */
export interface TracedRequest {
  method: string;
  /** The path, without the query. */
  path: string;
  traceparent: string;
}

export class FakeServer {
  readonly store: Store;
  /** The requests that carried a W3C `traceparent` header, in arrival order. */
  readonly traced: TracedRequest[] = [];
  private readonly resources = new Map<string, Resource>();
  private server?: http.Server;
  private readonly watches = new Set<http.ServerResponse>();
  /** get, list and watch (./read.ts). */
  private readonly reader: Reader;
  /** Admission webhooks of the stored configurations (./admission.ts). */
  private readonly admission: WebhookAdmission;
  /** The resource keys each CRD serves, by CRD name (a CRD of the constructor's has its name too). */
  private readonly crdServes = new Map<string, string[]>();

  /** The CEL engine, loaded when the first CRD with rules is installed (undefined until then). */
  private cel?: Promise<void>;

  /** Call {@link ready} before serving: a CRD with CEL rules loads the CEL engine. */
  constructor(
    crds: readonly Obj[] = [],
    private readonly loadCelRules: () => Promise<CelRules>,
  ) {
    for (const row of BUILTIN_KINDS) this.add(builtinResource(row));
    const namespaces = this.requireResource('v1', 'Namespace');
    this.store = new Store(namespaces, (apiVersion, kind) => this.resourceFor(apiVersion, kind));
    this.reader = new Reader(this.store, this.watches);
    this.admission = new WebhookAdmission(
      this.store,
      (v, k) => this.resourceFor(v, k),
      () => this.resources.values(),
    );
    for (const crd of crds) this.seedCRD(crd);
  }

  /**
   * A CRD given at start: served, and stored established as TestEnvironment's would be (so it is
   * listed, and an apply of it is an update). One the API would refuse (a v1beta1 CRD) is only served.
   */
  private seedCRD(crd: Obj): void {
    this.installCRD(crd);
    const name = String((crd.metadata as Obj | undefined)?.name ?? '');
    const r = this.resourceFor('apiextensions.k8s.io/v1', 'CustomResourceDefinition');
    if (!r || !name || crd.apiVersion !== 'apiextensions.k8s.io/v1' || this.store.find(r, undefined, name)) return;
    try {
      this.store.create(r, undefined, crd, { dryRun: false, warnings: [], fieldManager: 'kubeforge' });
    } catch (e) {
      if (e instanceof ApiStatus) return;
      throw e;
    }
    syncCRD(this.crdHost(), name);
  }

  /** Resolves once the CEL engine is loaded, if a served schema has rules. */
  async ready(): Promise<void> {
    await this.cel;
  }

  private add(r: Resource): void {
    this.resources.set(`${r.group}/${r.version}/${r.plural}`, r);
  }

  /** Serves a CRD's versions (what creating a CRD does on a real server, established at once). */
  installCRD(crd: Obj): void {
    const name = String((crd.metadata as Obj | undefined)?.name ?? '');
    this.uninstallCRD(name);
    const keys: string[] = [];
    for (const r of crdResources(crd)) {
      this.add(r);
      keys.push(`${r.group}/${r.version}/${r.plural}`);
      if (r.hasRules) this.cel ??= this.loadCelRules().then((rules) => this.store.useCelRules(rules));
    }
    if (name) this.crdServes.set(name, keys);
  }

  /** Stops serving what the CRD `name` served (its objects stay stored, as in etcd). */
  uninstallCRD(name: string): void {
    for (const k of this.crdServes.get(name) ?? []) this.resources.delete(k);
    this.crdServes.delete(name);
  }

  /** The CRD lifecycle's view of this server (./crdapi.ts). */
  private crdHost(): CRDHost {
    return {
      store: this.store,
      crdResource: () => this.requireResource('apiextensions.k8s.io/v1', 'CustomResourceDefinition'),
      serve: (crd) => this.installCRD(crd),
      unserve: (name) => this.uninstallCRD(name),
      servedBy: (name) =>
        (this.crdServes.get(name) ?? []).map((k) => this.resources.get(k)).filter((r): r is Resource => !!r),
    };
  }

  /** After a write: a CRD written is served as it now says; an object of a CRD being deleted may let it go. */
  private written(r: Resource, name: string | undefined, ctx: WriteContext): void {
    if (ctx.dryRun) return;
    if (isCRD(r)) {
      if (name) syncCRD(this.crdHost(), name);
      return;
    }
    if (!r.custom) return;
    for (const [crdName, keys] of this.crdServes)
      if (keys.includes(`${r.group}/${r.version}/${r.plural}`)) {
        const crd = this.store.find(this.crdHost().crdResource(), undefined, crdName);
        if (crd && (crd.metadata as Obj).deletionTimestamp) syncCRD(this.crdHost(), crdName);
      }
  }

  /** Runs a write through the admission webhooks when any are configured; else at once (no await). */
  private admitted<T>(
    info: AdmissionRequestInfo,
    ctx: WriteContext,
    op: (c: WriteContext) => T,
    then: (x: T) => Answer,
  ): Answer | Promise<Answer> {
    if (!this.admission.active(info.r)) return then(op(ctx));
    return this.admission.run(info, ctx, op).then(then);
  }

  /** A resource the server always serves (a built-in Kind); throws naming it otherwise. */
  requireResource(apiVersion: string, kind: string): Resource {
    const r = this.resourceFor(apiVersion, kind);
    if (!r) throw new Error(`fake API server: ${apiVersion} ${kind} is not served`);
    return r;
  }

  resourceFor(apiVersion: string, kind: string): Resource | undefined {
    for (const r of this.resources.values()) if (apiVersionOf(r) === apiVersion && r.kind === kind) return r;
    return undefined;
  }

  async listen(): Promise<string> {
    const server = http.createServer((req, res) => void this.handle(req, res));
    this.server = server;
    server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', () => resolve()));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    for (const w of this.watches) w.end();
    this.watches.clear();
    const s = this.server;
    if (!s) return;
    this.server = undefined;
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  /**
   * The route table: `<verb> <shape>` to its handler (`*`: any verb). A verb a shape has no
   * handler for is 405.
   */
  private readonly routes: Readonly<Record<string, (c: RequestContext) => Handled>> = {
    'GET collection': (c) => this.reader.listOrWatch(c),
    'POST collection': (c) => this.create(c),
    'DELETE collection': (c) => this.deleteCollection(c.r, c.namespace, selectorsOf(c.r, c.query), c.ctx),
    'GET object': (c) => this.reader.get(c),
    'PUT object': (c) => this.write(c),
    'PATCH object': (c) => this.write(c),
    'DELETE object': (c) => this.delete(c),
    '* scale': (c) => serveScale(this.store, c),
  };

  /** Paths served whatever the resources: the version, health checks, discovery's roots. */
  private readonly fixed: Readonly<Record<string, (method: string, req: http.IncomingMessage) => Answer | undefined>> =
    {
      '/version': () => ({ body: FAKE_SERVER_VERSION }),
      '/healthz': () => ({ body: 'ok' }),
      '/readyz': () => ({ body: 'ok' }),
      '/livez': () => ({ body: 'ok' }),
      '/api': (method, req) => (method === 'GET' ? this.discovery('/api', req) : undefined),
      '/apis': (method, req) => (method === 'GET' ? this.discovery('/apis', req) : undefined),
    };

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    // Warnings given before a refusal go with it, as the server sends them.
    const warnings: string[] = [];
    const traceparent = req.headers.traceparent;
    if (typeof traceparent === 'string')
      this.traced.push({ method: req.method ?? 'GET', path: (req.url ?? '/').split('?', 1)[0], traceparent });
    try {
      const url = new URL(req.url ?? '/', 'http://fake');
      const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : await readBody(req);
      const answer = await this.dispatch(req, res, url, body, warnings);
      if (answer === WATCHING) return;
      await this.cel; // a CRD just created has rules: its objects are checked from the next request on
      send(
        res,
        answer.code && answer.code >= 400 ? answer.code : 200,
        answer.body,
        answer.warnings,
        answer.code,
        answer.contentType,
      );
    } catch (e) {
      if (e instanceof ApiStatus) send(res, e.code, e.body(), warnings);
      else
        send(res, 500, new ApiStatus(500, 'InternalError', `Internal error occurred: ${(e as Error).message}`).body());
    }
  }

  /** The handler of a request: a fixed path's, a group/version's discovery, or the route table's. */
  private dispatch(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    url: URL,
    raw: string | undefined,
    warnings: string[],
  ): Handled {
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const method = req.method ?? 'GET';
    const fixed = Object.hasOwn(this.fixed, path) ? this.fixed[path](method, req) : undefined;
    if (fixed) return fixed;
    const route = this.route(path);
    if (route === 'discovery') return { body: resourceList(path, this.resources.values()) };
    if (!route) return { body: '404 page not found\n', code: 404 };
    const { r, namespace, name, sub } = route;
    // A review or Binding is only created: no list across namespaces (no such route), no other verb.
    if (r.createOnly && r.namespaced && namespace === undefined) return { body: '404 page not found\n', code: 404 };
    if (r.createOnly && (method !== 'POST' || name !== undefined)) throw methodNotAllowed();
    const c = requestContext(req, res, route, url.searchParams, raw, warnings);
    const partial = this.reader.partial(c);
    if (partial !== undefined) return partial;
    if (sub && sub !== 'status' && sub !== 'scale')
      throw new ApiStatus(404, 'NotFound', 'the server could not find the requested resource', {});
    if (sub === 'status' && !r.status) throw notFound(r, name ?? '');
    if (sub === 'scale' && !r.scale)
      throw new ApiStatus(404, 'NotFound', 'the server could not find the requested resource', {});
    const shape: Shape = name === undefined ? 'collection' : sub === 'scale' ? 'scale' : 'object';
    const handler = this.routes[`${method} ${shape}`] ?? this.routes[`* ${shape}`];
    if (!handler) throw methodNotAllowed();
    return handler(c);
  }

  /** `/api` or `/apis`; aggregated discovery says so in its Content-Type. */
  private discovery(root: '/api' | '/apis', req: http.IncomingMessage): Answer {
    const body = discoveryRoot(root, String(req.headers.accept ?? ''), this.resources.values()) as { kind?: string };
    // A client (kubectl) reading it as JSON alone takes it for the legacy APIGroupList and finds no groups.
    return body.kind === 'APIGroupDiscoveryList'
      ? { body, contentType: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' }
      : { body };
  }

  /** POST to a collection. */
  private create(c: RequestContext): Answer | Promise<Answer> {
    const { r, namespace, ctx } = c;
    const info = { r, namespace, name: '', fieldManager: ctx.fieldManager };
    return this.admitted(
      info,
      ctx,
      (x) => this.store.create(r, namespace, c.body(), x),
      (created) => {
        this.written(r, String((created.metadata as Obj).name), ctx);
        return { body: created, warnings: ctx.warnings, code: 201 };
      },
    );
  }

  /** PUT or PATCH of an object or its status. */
  private write(c: RequestContext): Answer | Promise<Answer> {
    const { r, namespace, sub, ctx, method, contentType } = c;
    const name = objectName(c);
    const info = { r, sub, namespace, name, fieldManager: ctx.fieldManager };
    return this.admitted(
      info,
      ctx,
      (x) =>
        method === 'PUT'
          ? this.store.update(r, namespace, name, c.body(), sub, x)
          : this.store.patch(r, namespace, name, contentType, c.body(), sub, x),
      (body) => {
        this.written(r, name, ctx);
        return { body, warnings: ctx.warnings, code: ctx.created ? 201 : undefined };
      },
    );
  }

  /** DELETE of an object: the deleted object's Status, or the object a finalizer keeps. */
  private delete(c: RequestContext): Answer | Promise<Answer> {
    const { r, namespace, ctx, query: q } = c;
    const name = objectName(c);
    // DeleteOptions come from the body when there is one, and then the query's are not read.
    const given = c.body();
    const options = (given ?? {}) as Obj;
    if (given === undefined) {
      if (q.has('propagationPolicy')) options.propagationPolicy = q.get('propagationPolicy');
      if (q.has('dryRun')) options.dryRun = q.getAll('dryRun');
    }
    checkDeleteOptions(options);
    ctx.dryRun = Array.isArray(options.dryRun) && options.dryRun.includes('All');
    const info = { r, namespace, name, deleteOptions: options };
    return this.admitted(
      info,
      ctx,
      (x) => this.store.delete(r, namespace, name, clone(options), x),
      ({ object, gone }) => {
        this.written(r, name, ctx);
        if (!gone) return { body: object, warnings: ctx.warnings };
        return {
          body: {
            kind: 'Status',
            apiVersion: 'v1',
            metadata: {},
            status: 'Success',
            details: { name, group: r.group || undefined, kind: r.plural, uid: (object.metadata as Obj).uid },
          },
          warnings: ctx.warnings,
        };
      },
    );
  }

  /** deletecollection: each object deleted (and admitted) in turn; the answer lists what was deleted. */
  private deleteCollection(
    r: Resource,
    namespace: string | undefined,
    sel: Selectors,
    ctx: WriteContext,
  ): Answer | Promise<Answer> {
    const targets = this.store.all(r, namespace).filter((o) => matches(o, sel));
    const items: Obj[] = [];
    const answer = (): Answer => ({
      body: {
        kind: `${r.kind}List`,
        apiVersion: apiVersionOf(r),
        metadata: listMeta(r, String(this.store.currentRV())),
        items,
      },
    });
    const one = (o: Obj) => {
      const m = o.metadata as Obj;
      const ns = r.namespaced ? str(m.namespace) : undefined;
      return this.admitted(
        // The server admits each object of a collection under the collection's name: none.
        { r, namespace: ns, name: '', deleteOptions: {} },
        ctx,
        (c) => this.store.delete(r, ns, str(m.name), {}, c),
        (after) => {
          items.push(after.gone ? o : after.object);
          this.written(r, str(m.name), ctx);
          return answer();
        },
      );
    };
    if (!this.admission.active(r)) {
      for (const o of targets) one(o);
      return answer();
    }
    return (async () => {
      for (const o of targets) await one(o);
      return answer();
    })();
  }

  /** Parses `/api/v1/...` and `/apis/g/v/...` into a resource route; 'discovery' for a group/version's root. */
  private route(path: string): Route | 'discovery' | undefined {
    const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
    let group: string;
    let version: string;
    let rest: string[];
    if (parts[0] === 'api' && parts.length >= 2) {
      group = '';
      version = parts[1];
      rest = parts.slice(2);
    } else if (parts[0] === 'apis' && parts.length >= 3) {
      group = parts[1];
      version = parts[2];
      rest = parts.slice(3);
    } else return undefined;
    if (rest.length === 0) return servesGroupVersion(this.resources.values(), group, version) ? 'discovery' : undefined;
    let namespace: string | undefined;
    if (
      rest[0] === 'namespaces' &&
      rest.length >= 3 &&
      !(rest.length === 3 && (rest[2] === 'status' || rest[2] === 'finalize'))
    ) {
      namespace = rest[1];
      rest = rest.slice(2);
    }
    const r = this.resources.get(`${group}/${version}/${rest[0]}`);
    if (!r) return undefined;
    if (namespace !== undefined && !r.namespaced) return undefined;
    return { r, namespace: r.namespaced ? namespace : undefined, name: rest[1], sub: rest[2] };
  }

  /** An error for a Kind the server does not serve (for callers that resolve by Kind). */
  notServed(apiVersion: string, kind: string): ApiStatus {
    return notFound({ group: '', plural: kind.toLowerCase(), kind }, `${apiVersion} ${kind}`);
  }
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(
  res: http.ServerResponse,
  code: number,
  body: unknown,
  warnings: string[] = [],
  okCode?: number,
  contentType?: string,
): void {
  const status = code === 200 && okCode ? okCode : code;
  const text = typeof body === 'string' ? body : stringifyWire(body);
  const headers: http.OutgoingHttpHeaders = {
    'Content-Type': contentType ?? (typeof body === 'string' ? 'text/plain' : 'application/json'),
    'Content-Length': Buffer.byteLength(text),
  };
  if (warnings.length) headers.Warning = warnings.map((w) => `299 - ${JSON.stringify(w)}`);
  res.writeHead(status, headers);
  res.end(text);
}
