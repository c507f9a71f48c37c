/**
 * The fake API server's HTTP face: an in-process server on 127.0.0.1 that speaks the Kubernetes
 * REST API (discovery, get, list with selectors and pages, watch, create, update, patch, delete,
 * the status and scale subresources), answered from ./store.ts. Because it speaks HTTP, the
 * runtime's own client, informers, RESTMapper, leader election and event recorder run over it
 * unchanged: a manager started on it behaves as on a real server, minus what ./store.ts leaves out.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { BUILTIN_KINDS } from '../../apiserver/builtin-kinds-data.js';
import { builtinResource, crdResources, type Resource } from './resources.js';
import { Store, type CelRules, type StoredEvent, type WriteContext } from './store.js';
import { ApiStatus, badRequest, invalid, methodNotAllowed, notFound } from './status.js';
import { apiVersionOf } from '../../runtime/client/types.js';
import {
  matchesFields,
  matchesLabels,
  parseFieldSelector,
  parseLabelSelector,
  type FieldRequirement,
  type LabelRequirement,
} from './selectors.js';
import { type Obj, clone, isObj } from '../../apiserver/json.js';
import { WebhookAdmission, type AdmissionRequestInfo } from './admission.js';
import { isCRD, syncCRD, type CRDHost } from './crdapi.js';
import { checkAppliedScale, int32Of, patchScale, toScale } from './scale.js';
import { refuseCustomScaleApply } from './apply.js';
import {
  bodyError,
  checkBodySize,
  checkDeleteOptions,
  checkPatchType,
  duplicateFields,
  checkGetResourceVersion,
  checkListIntegers,
  checkListOptions,
  checkListResourceVersion,
  checkWriteOptions,
  continueTokenError,
  decodeBody,
} from './request.js';
import { stringifyWire } from './wire.js';

/** The version the fake reports at /version. */
export const FAKE_SERVER_VERSION = { major: '1', minor: '37', gitVersion: 'v1.37.2-kubeforge-fake', platform: 'fake' };

/** What a request is answered with (unless it is a watch). */
type Answer = { body: unknown; warnings?: string[]; code?: number; contentType?: string };

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
    const namespaces = this.resources.get('/v1/namespaces')!;
    this.store = new Store(namespaces, (apiVersion, kind) => this.resourceFor(apiVersion, kind));
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
      crdResource: () => this.resourceFor('apiextensions.k8s.io/v1', 'CustomResourceDefinition')!,
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

  resourceFor(apiVersion: string, kind: string): Resource | undefined {
    for (const r of this.resources.values()) if (apiVersionOf(r) === apiVersion && r.kind === kind) return r;
    return undefined;
  }

  async listen(): Promise<string> {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    this.server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve, reject) =>
      this.server!.once('error', reject).listen(0, '127.0.0.1', () => resolve()),
    );
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
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

  private dispatch(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    url: URL,
    raw: string | undefined,
    warnings: string[] = [],
  ): Answer | Promise<Answer> | typeof WATCHING {
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const method = req.method ?? 'GET';
    if (path === '/version') return { body: FAKE_SERVER_VERSION };
    if (path === '/healthz' || path === '/readyz' || path === '/livez') return { body: 'ok' };
    if ((path === '/api' || path === '/apis') && method === 'GET') {
      const body = this.discoveryRoot(path, req) as { kind?: string };
      // Aggregated discovery says so in its Content-Type; a client (kubectl) reading it as JSON
      // alone takes it for the legacy APIGroupList and finds no groups.
      return body.kind === 'APIGroupDiscoveryList'
        ? { body, contentType: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' }
        : { body };
    }
    const route = this.route(path);
    if (route === 'discovery') return { body: this.resourceList(path) };
    if (!route) return { body: '404 page not found\n', code: 404 };
    const { r, namespace, name, sub } = route;
    // A review or Binding is only created: no list across namespaces (no such route), no other verb.
    if (r.createOnly && r.namespaced && namespace === undefined) return { body: '404 page not found\n', code: 404 };
    if (r.createOnly && (method !== 'POST' || name !== undefined)) throw methodNotAllowed();
    const q = url.searchParams;
    const ctx: WriteContext & { force?: boolean } = {
      dryRun: q.getAll('dryRun').includes('All'),
      fieldManager: q.get('fieldManager') ?? undefined,
      userAgent: String(req.headers['user-agent'] ?? ''),
      warnings,
      traceparent: typeof req.headers.traceparent === 'string' ? req.headers.traceparent : undefined,
      force: q.get('force') === 'true',
      fieldValidation: q.get('fieldValidation') ?? undefined,
    };
    const parse = (): unknown => {
      const type = String(req.headers['content-type'] ?? 'application/json');
      if (method === 'PATCH') checkPatchType(type, r.custom);
      if (raw !== undefined) checkBodySize(raw);
      if (method === 'POST' || method === 'PUT' || method === 'PATCH') checkWriteOptions(method, q, type);
      if (raw === '' && method === 'PATCH' && !type.startsWith('application/apply-patch+yaml'))
        throw badRequest('invalid JSON patch');
      if (raw === undefined || raw === '') return undefined;
      // A built-in's create or update body is decoded into its Go struct (keys given twice merge).
      const body = decodeBody(raw, type, !r.custom && (method === 'POST' || method === 'PUT'));
      if (body.error !== undefined) throw bodyError(method, type, r.kind, raw, body.error);
      if (method !== 'PATCH') {
        ctx.duplicates = duplicateFields(body.duplicates);
        ctx.rawBody = raw;
      }
      if (body.warnings) ctx.applyWarnings = body.warnings;
      return body.value;
    };
    // Accept: application/json;as=PartialObjectMetadata[List];g=meta.k8s.io;v=v1 (what client-go's
    // metadata client and metadata-only informers send): GETs answer metadata only.
    const partial = method === 'GET' ? partialMetadataAs(String(req.headers.accept ?? '')) : undefined;
    if (partial && sub === undefined) {
      const isList = name === undefined;
      const watching = isList && (q.get('watch') === 'true' || q.get('watch') === '1');
      if (watching) {
        if (partial === 'PartialObjectMetadata') return this.watch(res, r, namespace, q, true);
      } else if (isList && partial === 'PartialObjectMetadataList') {
        const list = this.list(r, namespace, q) as Obj;
        const { continue: cont, ...listMeta } = list.metadata as Obj;
        const items = (list.items as Obj[]).map(asPartial);
        // metav1.PartialObjectMetadataList: continue is omitted when empty; no items is null (a nil slice).
        return {
          body: {
            kind: 'PartialObjectMetadataList',
            apiVersion: 'meta.k8s.io/v1',
            metadata: cont ? { ...listMeta, continue: cont } : listMeta,
            items: items.length ? items : null,
          },
        };
      } else if (!isList && partial === 'PartialObjectMetadata') {
        return { body: asPartial(this.store.read(r, namespace, name) as Obj) };
      } else {
        // A custom resource asked as a list fails inside the server (its content is not a list).
        if (r.custom && !isList) throw new ApiStatus(500, 'InternalError', 'content is not a list');
        // The server names the Go type it holds: unstructured for custom resources, the internal
        // type (package named after the group's first label, core for the core group) for built-ins.
        const goType = r.custom
          ? `*unstructured.Unstructured${isList ? 'List' : ''}`
          : `*${r.group ? r.group.split('.')[0] : 'core'}.${r.kind}${isList ? 'List' : ''}`;
        throw new ApiStatus(
          406,
          'NotAcceptable',
          isList
            ? `you requested PartialObjectMetadata, but the requested object is a list (${goType})`
            : `you requested PartialObjectMetadataList, but the requested object is not a list (${goType})`,
        );
      }
    }
    if (sub && sub !== 'status' && sub !== 'scale')
      throw new ApiStatus(404, 'NotFound', 'the server could not find the requested resource', {});
    if (sub === 'status' && !r.status) throw notFound(r, name ?? '');
    if (sub === 'scale' && !r.scale)
      throw new ApiStatus(404, 'NotFound', 'the server could not find the requested resource', {});
    if (name === undefined) {
      if (method === 'GET') {
        if (q.get('watch') === 'true' || q.get('watch') === '1') return this.watch(res, r, namespace, q);
        return { body: this.list(r, namespace, q) };
      }
      if (method === 'POST') {
        const info = { r, namespace, name: '', fieldManager: ctx.fieldManager };
        return this.admitted(
          info,
          ctx,
          (c) => this.store.create(r, namespace, parse(), c),
          (created) => {
            this.written(r, String((created.metadata as Obj).name), ctx);
            return { body: created, warnings: ctx.warnings, code: 201 };
          },
        );
      }
      if (method === 'DELETE') {
        // deletecollection: the server answers with the list of what it deleted.
        const sel = this.selectors(q);
        this.checkFields(r, sel.fields);
        return this.deleteCollection(r, namespace, sel, ctx);
      }
      throw methodNotAllowed();
    }
    if (sub === 'scale')
      return this.scale(r, namespace, name, method, parse(), ctx, String(req.headers['content-type'] ?? ''));
    switch (method) {
      case 'GET':
        checkGetResourceVersion(q, r.storageKey !== '/events');
        return { body: this.store.read(r, namespace, name) };
      case 'PUT':
      case 'PATCH': {
        const info = { r, sub, namespace, name, fieldManager: ctx.fieldManager };
        const type = String(req.headers['content-type'] ?? '');
        return this.admitted(
          info,
          ctx,
          (c) =>
            method === 'PUT'
              ? this.store.update(r, namespace, name, parse(), sub, c)
              : this.store.patch(r, namespace, name, type, parse(), sub, c),
          (body) => {
            this.written(r, name, ctx);
            return { body, warnings: ctx.warnings, code: ctx.created ? 201 : undefined };
          },
        );
      }
      case 'DELETE': {
        // DeleteOptions come from the body when there is one, and then the query's are not read.
        const given = parse();
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
          (c) => this.store.delete(r, namespace, name, clone(options), c),
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
      default:
        throw methodNotAllowed();
    }
  }

  /** deletecollection: each object deleted (and admitted) in turn; the answer lists what was deleted. */
  private deleteCollection(
    r: Resource,
    namespace: string | undefined,
    sel: { labels: LabelRequirement[]; fields: FieldRequirement[] },
    ctx: WriteContext,
  ): Answer | Promise<Answer> {
    const targets = this.store.all(r, namespace).filter((o) => this.matches(r, o, sel));
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
    if (rest.length === 0)
      return [...this.resources.values()].some((r) => r.group === group && r.version === version)
        ? 'discovery'
        : undefined;
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

  private versionsOf(group: string): string[] {
    const out: string[] = [];
    for (const r of this.resources.values()) if (r.group === group && !out.includes(r.version)) out.push(r.version);
    return out.sort((a, b) => versionPriority(b) - versionPriority(a) || (a < b ? -1 : 1));
  }

  private groups(): string[] {
    const out: string[] = [];
    for (const r of this.resources.values()) if (r.group && !out.includes(r.group)) out.push(r.group);
    return out;
  }

  private discoveryRoot(root: '/api' | '/apis', req: http.IncomingMessage): unknown {
    const aggregated = String(req.headers.accept ?? '').includes('apidiscovery.k8s.io');
    const groups = root === '/api' ? [''] : this.groups();
    if (aggregated) {
      return {
        kind: 'APIGroupDiscoveryList',
        apiVersion: 'apidiscovery.k8s.io/v2',
        metadata: {},
        items: groups.map((g) => ({
          metadata: g ? { name: g } : {},
          versions: this.versionsOf(g).map((v) => ({
            version: v,
            resources: [...this.resources.values()]
              .filter((r) => r.group === g && r.version === v)
              .map((r) => ({
                resource: r.plural,
                responseKind: { group: g, version: v, kind: r.kind },
                scope: r.namespaced ? 'Namespaced' : 'Cluster',
                singularResource: r.singular,
                verbs: r.createOnly ? ['create'] : VERBS,
              })),
            freshness: 'Current',
          })),
        })),
      };
    }
    if (root === '/api')
      return {
        kind: 'APIVersions',
        versions: ['v1'],
        serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '127.0.0.1' }],
      };
    return {
      kind: 'APIGroupList',
      apiVersion: 'v1',
      groups: groups.map((g) => {
        const versions = this.versionsOf(g).map((v) => ({ groupVersion: `${g}/${v}`, version: v }));
        return { name: g, versions, preferredVersion: versions[0] };
      }),
    };
  }

  private resourceList(path: string): unknown {
    const parts = path.split('/').filter(Boolean);
    const group = parts[0] === 'api' ? '' : parts[1];
    const version = parts[0] === 'api' ? parts[1] : parts[2];
    const resources: unknown[] = [];
    for (const r of this.resources.values()) {
      if (r.group !== group || r.version !== version) continue;
      resources.push({
        name: r.plural,
        singularName: r.singular,
        namespaced: r.namespaced,
        kind: r.kind,
        verbs: r.createOnly ? ['create'] : VERBS,
        ...(r.shortNames.length ? { shortNames: r.shortNames } : {}),
        ...(r.categories.length ? { categories: r.categories } : {}),
      });
      if (r.status)
        resources.push({
          name: `${r.plural}/status`,
          singularName: '',
          namespaced: r.namespaced,
          kind: r.kind,
          verbs: ['get', 'patch', 'update'],
        });
      if (r.scale)
        resources.push({
          name: `${r.plural}/scale`,
          singularName: '',
          namespaced: r.namespaced,
          group: 'autoscaling',
          version: 'v1',
          kind: 'Scale',
          verbs: ['get', 'patch', 'update'],
        });
    }
    return {
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion: group ? `${group}/${version}` : version,
      resources,
    };
  }

  private selectors(q: URLSearchParams): { labels: LabelRequirement[]; fields: FieldRequirement[] } {
    return {
      labels: parseLabelSelector(q.get('labelSelector') ?? ''),
      fields: parseFieldSelector(q.get('fieldSelector') ?? ''),
    };
  }

  private matches(r: Resource, o: Obj, sel: { labels: LabelRequirement[]; fields: FieldRequirement[] }): boolean {
    return (
      matchesLabels(((o.metadata as Obj)?.labels ?? {}) as Record<string, string>, sel.labels) &&
      matchesFields(o, sel.fields)
    );
  }

  private checkFields(r: Resource, fields: FieldRequirement[]): void {
    for (const f of fields) {
      if (
        f.field === 'metadata.name' ||
        (f.field === 'metadata.namespace' && r.namespaced) ||
        r.selectableFields.includes(f.field)
      )
        continue;
      if (!r.custom && r.selectableFields.length === 0)
        throw badRequest(`"${f.field}" is not a known field selector: only "metadata.name", "metadata.namespace"`);
      throw badRequest(`field label not supported: ${f.field}`);
    }
  }

  private list(r: Resource, namespace: string | undefined, q: URLSearchParams): unknown {
    checkListIntegers(q);
    const sel = this.selectors(q);
    checkListOptions(q);
    this.checkFields(r, sel.fields);
    let items = this.store.all(r, namespace).filter((o) => this.matches(r, o, sel));
    const limit = Number(q.get('limit') ?? 0);
    const cont = q.get('continue');
    let rv = String(this.store.currentRV());
    let next: string | undefined;
    if (cont) {
      let token: { start: string; rv: string };
      try {
        token = JSON.parse(Buffer.from(cont, 'base64').toString('utf8')) as { start: string; rv: string };
      } catch {
        throw continueTokenError(cont);
      }
      items = items.filter((o) => keyOf(o) > token.start);
      rv = token.rv;
      // The storage reads the token, then refuses a resourceVersion beside it.
      const given = q.get('resourceVersion') ?? '';
      if (given !== '' && given !== '0')
        throw badRequest('specifying resource version is not allowed when using continue');
    }
    checkListResourceVersion(q);
    let remaining: number | undefined;
    if (limit > 0 && items.length > limit) {
      remaining = items.length - limit;
      items = items.slice(0, limit);
      next = Buffer.from(JSON.stringify({ start: keyOf(items[items.length - 1]), rv })).toString('base64');
    }
    // Items of a built-in list carry no apiVersion and kind (typed lists); custom resources' do.
    if (!r.custom) items = items.map(({ apiVersion: _v, kind: _k, ...rest }) => rest);
    return {
      kind: `${r.kind}List`,
      apiVersion: apiVersionOf(r),
      // Events are listed from etcd, which counts no remaining items when a selector filters them.
      metadata: next
        ? {
            continue: next,
            remainingItemCount:
              r.storageKey === '/events' && (q.get('labelSelector') || q.get('fieldSelector')) ? undefined : remaining,
            resourceVersion: rv,
          }
        : listMeta(r, rv),
      items,
    };
  }

  private watch(
    res: http.ServerResponse,
    r: Resource,
    namespace: string | undefined,
    q: URLSearchParams,
    metadataOnly = false,
  ): typeof WATCHING {
    const sel = this.selectors(q);
    this.checkFields(r, sel.fields);
    const rvParam = q.get('resourceVersion') ?? '';
    res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
    // The client waits for the headers before it writes anything that would produce an event.
    res.flushHeaders();
    this.watches.add(res);
    const write = (type: string, object: unknown) =>
      res.write(
        `${stringifyWire({ type, object: metadataOnly && type !== 'ERROR' ? asPartial(object as Obj) : object })}\n`,
      );
    const relevant = (e: StoredEvent) =>
      e.storageKey === r.storageKey && (namespace === undefined || e.namespace === namespace);
    // As the API server's watch cache filters: an object that starts or stops matching the
    // selectors is ADDED or DELETED for this watch.
    const deliver = (e: StoredEvent) => {
      if (!relevant(e)) return;
      const obj = this.store.asVersion(r, e.object);
      const now = this.matches(r, obj, sel);
      const before =
        e.prev !== undefined && e.type !== 'ADDED' && this.matches(r, this.store.asVersion(r, e.prev), sel);
      if (e.type === 'MODIFIED') {
        if (now && before) write('MODIFIED', obj);
        else if (now) write('ADDED', obj);
        else if (before) {
          // Leaving the selector: the last state that matched, at this event's revision.
          const last = this.store.asVersion(r, e.prev!);
          (last.metadata as Obj).resourceVersion = String(e.rv);
          write('DELETED', last);
        }
        return;
      }
      if (now) write(e.type, obj);
    };
    let backlog: StoredEvent[] = [];
    if (rvParam === '' || rvParam === '0') {
      for (const o of this.store.all(r, namespace)) if (this.matches(r, o, sel)) write('ADDED', o);
    } else {
      const from = Number(rvParam);
      if (!Number.isFinite(from) || from < this.store.oldestRV()) {
        write('ERROR', {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: `too old resource version: ${rvParam} (${this.store.oldestRV()})`,
          reason: 'Expired',
          code: 410,
        });
        this.watches.delete(res);
        res.end();
        return WATCHING;
      }
      backlog = this.store.eventsAfter(from);
    }
    for (const e of backlog) deliver(e);
    const unsubscribe = this.store.subscribe(deliver);
    const timeout = Number(q.get('timeoutSeconds') ?? 0);
    const timer = timeout > 0 ? setTimeout(() => res.end(), timeout * 1000) : undefined;
    timer?.unref();
    const bookmarks =
      q.get('allowWatchBookmarks') === 'true'
        ? setInterval(
            () =>
              write('BOOKMARK', {
                kind: r.kind,
                apiVersion: apiVersionOf(r),
                metadata: { resourceVersion: String(this.store.currentRV()) },
              }),
            1000,
          )
        : undefined;
    bookmarks?.unref();
    res.on('close', () => {
      unsubscribe();
      clearTimeout(timer);
      clearInterval(bookmarks);
      this.watches.delete(res);
    });
    return WATCHING;
  }

  /** The scale subresource (autoscaling/v1 Scale): GET, PUT, and PATCH of the Scale as the server patches it. */
  private scale(
    r: Resource,
    namespace: string | undefined,
    name: string,
    method: string,
    body: unknown,
    ctx: WriteContext,
    contentType = '',
  ): { body: unknown } {
    const s = r.scale!;
    const current = this.store.read(r, namespace, name);
    if (method === 'GET') return { body: toScale(current, s) };
    if (method === 'PATCH' && contentType.split(';')[0].trim() === 'application/apply-patch+yaml') {
      const applied = checkAppliedScale(body);
      const want = isObj(applied.spec) ? applied.spec.replicas : undefined;
      if (r.custom) {
        const m = isObj(applied.metadata) ? applied.metadata : {};
        refuseCustomScaleApply(
          r,
          current,
          ctx.fieldManager ?? '',
          (ctx as { force?: boolean }).force === true,
          want,
          `${String(m.namespace ?? '')}/${String(m.name ?? '')}`,
        );
      }
      const replicas = typeof want === 'number' || typeof want === 'bigint' ? int32Of(want) : undefined;
      checkScaleReplicas(name, replicas);
      return { body: toScale(this.store.applyScale(r, namespace, name, applied, replicas, ctx), s) };
    }
    if (method === 'PATCH') body = patchScale(toScale(current, s), contentType, body);
    else if (method !== 'PUT') throw methodNotAllowed();
    const replicas = isObj(body) && isObj(body.spec) ? body.spec.replicas : undefined;
    if (!r.custom) checkScaleReplicas(name, replicas);
    const next = clone(current);
    const steps = s.specReplicasPath.replace(/^\./, '').split('.');
    let cur: Obj = next;
    for (const k of steps.slice(0, -1)) cur = (isObj(cur[k]) ? cur[k] : (cur[k] = {})) as Obj;
    cur[steps[steps.length - 1]] = replicas;
    const rv = isObj(body) && isObj(body.metadata) ? body.metadata.resourceVersion : undefined;
    if (rv) (next.metadata as Obj).resourceVersion = rv;
    return { body: toScale(this.store.update(r, namespace, name, next, 'scale', ctx, true), s) };
  }

  /** An error for a Kind the server does not serve (for callers that resolve by Kind). */
  notServed(apiVersion: string, kind: string): ApiStatus {
    return notFound({ group: '', plural: kind.toLowerCase(), kind }, `${apiVersion} ${kind}`);
  }
}

const WATCHING = Symbol('watching');

/** A built-in's Scale is validated as autoscaling's Scale: no negative replicas. */
export function checkScaleReplicas(name: string, replicas: unknown): void {
  if ((typeof replicas === 'number' || typeof replicas === 'bigint') && replicas < 0)
    throw invalid({ group: 'autoscaling', kind: 'Scale' }, name, [
      {
        type: 'FieldValueInvalid',
        field: 'spec.replicas',
        value: Number(replicas),
        detail: 'must be greater than or equal to 0',
      },
    ]);
}

/** A list's metadata; custom resource lists (unstructured on the server) carry an empty continue. */
function listMeta(r: Resource, rv: string): Obj {
  return r.custom ? { continue: '', resourceVersion: rv } : { resourceVersion: rv };
}
const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

function keyOf(o: Obj): string {
  const m = (o.metadata ?? {}) as Obj;
  return `${str(m.namespace)}/${str(m.name)}`;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** Kubernetes' version priority: GA > beta > alpha, higher numbers first. */
function versionPriority(v: string): number {
  const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
  if (!m) return 0;
  const major = Number(m[1]);
  if (!m[2]) return 3_000_000 + major * 1000;
  return (m[2] === 'beta' ? 2_000_000 : 1_000_000) + major * 1000 + Number(m[3]);
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

/** The PartialObjectMetadata kind an Accept header asks for (meta.k8s.io/v1, JSON), if any. */
function partialMetadataAs(accept: string): 'PartialObjectMetadata' | 'PartialObjectMetadataList' | undefined {
  for (const clause of accept.split(',')) {
    const [type, ...params] = clause.split(';').map((x) => x.trim());
    if (type !== 'application/json' && type !== '*/*') continue;
    const p = new Map(params.map((x) => x.split('=', 2) as [string, string]));
    const as = p.get('as');
    if (!as) return undefined;
    if (
      (as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') &&
      p.get('g') === 'meta.k8s.io' &&
      p.get('v') === 'v1'
    )
      return as;
    return undefined;
  }
  return undefined;
}

/** An object as meta.k8s.io/v1 PartialObjectMetadata: its metadata only. */
function asPartial(o: Obj): Obj {
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata };
}
