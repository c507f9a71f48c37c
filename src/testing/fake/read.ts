/**
 * The reads of the fake API server, as kube-apiserver answers them from its watch cache: get,
 * list (label and field selectors, pages with continue tokens, resourceVersion rules), watch (from
 * a resourceVersion, with selectors an object enters and leaves, bookmarks, timeouts) and their
 * metadata-only forms (`Accept: ...;as=PartialObjectMetadata[List];g=meta.k8s.io;v=v1`).
 */
import type http from 'node:http';
import type { Obj } from '../../apiserver/json.js';
import { apiVersionOf } from '../../runtime/client/types.js';
import { objectName, type RequestContext } from './context.js';
import {
  checkGetResourceVersion,
  checkListIntegers,
  checkListOptions,
  checkWatchOptions,
  checkListResourceVersion,
  continueTokenError,
} from './request.js';
import type { Resource } from './resources.js';
import {
  matchesFields,
  matchesLabels,
  parseFieldSelector,
  parseLabelSelector,
  type FieldRequirement,
  type LabelRequirement,
} from './selectors.js';
import { ApiStatus, badRequest } from './status.js';
import type { Store, StoredEvent } from './store.js';
import { stringifyWire } from './wire.js';

/** What a request is answered with (unless it is a watch). */
export type Answer = { body: unknown; warnings?: string[]; code?: number; contentType?: string };

/** A watch took the response over: the handler sends nothing more. */
export const WATCHING = Symbol('watching');

export interface Selectors {
  labels: LabelRequirement[];
  fields: FieldRequirement[];
}

/** A list's or watch's selectors, the field ones checked against what the resource supports. */
export function selectorsOf(r: Resource, q: URLSearchParams): Selectors {
  const sel = {
    labels: parseLabelSelector(q.get('labelSelector') ?? ''),
    fields: parseFieldSelector(q.get('fieldSelector') ?? ''),
  };
  checkFields(r, sel.fields);
  return sel;
}

export function matches(o: Obj, sel: Selectors): boolean {
  return (
    matchesLabels(((o.metadata as Obj)?.labels ?? {}) as Record<string, string>, sel.labels) &&
    matchesFields(o, sel.fields)
  );
}

function checkFields(r: Resource, fields: FieldRequirement[]): void {
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

/** A list's metadata; custom resource lists (unstructured on the server) carry an empty continue. */
export function listMeta(r: Resource, rv: string): Obj {
  return r.custom ? { continue: '', resourceVersion: rv } : { resourceVersion: rv };
}

/** The reads of one store; `watches` are the open watch responses (ended when the server closes). */
export class Reader {
  constructor(
    private readonly store: Store,
    private readonly watches: Set<http.ServerResponse>,
  ) {}

  /** GET of one object (the main resource or its status). */
  get(c: RequestContext): Answer {
    checkGetResourceVersion(c.query, c.r.storageKey !== '/events');
    return { body: this.store.read(c.r, c.namespace, objectName(c)) };
  }

  /** GET of a collection: a watch when asked, else a list. */
  listOrWatch(c: RequestContext): Answer | typeof WATCHING {
    const q = c.query;
    if (q.get('watch') === 'true' || q.get('watch') === '1') return this.watch(c.res, c.r, c.namespace, q);
    return { body: this.list(c.r, c.namespace, q) };
  }

  /**
   * A GET that asks for PartialObjectMetadata (client-go's metadata client and metadata-only
   * informers): metadata only; undefined when the request is not such (or is answered in full).
   */
  partial(c: RequestContext): Answer | typeof WATCHING | undefined {
    const partial = c.method === 'GET' ? partialMetadataAs(String(c.req.headers.accept ?? '')) : undefined;
    if (!partial || c.sub !== undefined) return undefined;
    const { r, namespace, name, query: q } = c;
    const isList = name === undefined;
    const watching = isList && (q.get('watch') === 'true' || q.get('watch') === '1');
    if (watching) return partial === 'PartialObjectMetadata' ? this.watch(c.res, r, namespace, q, true) : undefined;
    if (isList && partial === 'PartialObjectMetadataList') {
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
    }
    if (!isList && partial === 'PartialObjectMetadata') return { body: asPartial(this.store.read(r, namespace, name)) };
    throw notAcceptable(r, isList);
  }

  list(r: Resource, namespace: string | undefined, q: URLSearchParams): unknown {
    checkListIntegers(q);
    const sel = {
      labels: parseLabelSelector(q.get('labelSelector') ?? ''),
      fields: parseFieldSelector(q.get('fieldSelector') ?? ''),
    };
    checkListOptions(q);
    checkFields(r, sel.fields);
    let items = this.store.all(r, namespace).filter((o) => matches(o, sel));
    const limit = Number(q.get('limit') ?? 0);
    const cont = q.get('continue');
    let rv = String(this.store.currentRV());
    let next: string | undefined;
    if (cont) {
      const token = continueToken(cont);
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
    const sel = selectorsOf(r, q);
    const sendInitialEvents = checkWatchOptions(q);
    const rvParam = q.get('resourceVersion') ?? '';
    res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
    // The client waits for the headers before it writes anything that would produce an event.
    res.flushHeaders();
    this.watches.add(res);
    const write = (type: string, object: unknown) =>
      res.write(
        `${stringifyWire({ type, object: metadataOnly && type !== 'ERROR' ? asPartial(object as Obj) : object })}\n`,
      );
    const deliver = this.deliverer(r, namespace, sel, write);
    let backlog: StoredEvent[] = [];
    const noResourceVersion = rvParam === '' || rvParam === '0';
    // What exists is sent first for a streaming list (the state now, not older than the
    // resourceVersion asked for) and for a plain watch from no resourceVersion; a streaming list
    // then sends, when bookmarks are allowed, the bookmark that ends it. sendInitialEvents=false
    // from no resourceVersion starts now, with nothing.
    if (sendInitialEvents ?? noResourceVersion) {
      for (const o of this.store.all(r, namespace)) if (matches(o, sel)) write('ADDED', o);
      if (sendInitialEvents && q.get('allowWatchBookmarks') === 'true')
        write('BOOKMARK', this.bookmark(r, { 'k8s.io/initial-events-end': 'true' }));
    } else if (!noResourceVersion) {
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
    this.follow(res, r, q, deliver, write);
    return WATCHING;
  }

  /**
   * What a watch sends of a stored event. As the API server's watch cache filters: an object that
   * starts or stops matching the selectors is ADDED or DELETED for this watch.
   */
  private deliverer(
    r: Resource,
    namespace: string | undefined,
    sel: Selectors,
    write: (type: string, object: unknown) => void,
  ): (e: StoredEvent) => void {
    const relevant = (e: StoredEvent) =>
      e.storageKey === r.storageKey && (namespace === undefined || e.namespace === namespace);
    return (e) => {
      if (!relevant(e)) return;
      const obj = this.store.asVersion(r, e.object);
      const now = matches(obj, sel);
      const before = e.prev !== undefined && e.type !== 'ADDED' && matches(this.store.asVersion(r, e.prev), sel);
      if (e.type === 'MODIFIED') {
        if (now && before) write('MODIFIED', obj);
        else if (now) write('ADDED', obj);
        else if (before && e.prev !== undefined) {
          // Leaving the selector: the last state that matched, at this event's revision.
          const last = this.store.asVersion(r, e.prev);
          (last.metadata as Obj).resourceVersion = String(e.rv);
          write('DELETED', last);
        }
        return;
      }
      if (now) write(e.type, obj);
    };
  }

  /** A bookmark at the store's current resourceVersion. */
  private bookmark(r: Resource, annotations?: Record<string, string>): Obj {
    const metadata: Obj = { resourceVersion: String(this.store.currentRV()) };
    if (annotations) metadata.annotations = annotations;
    return { kind: r.kind, apiVersion: apiVersionOf(r), metadata };
  }

  /** A watch after its backlog: new events, its timeout, bookmarks when asked; all undone when it closes. */
  private follow(
    res: http.ServerResponse,
    r: Resource,
    q: URLSearchParams,
    deliver: (e: StoredEvent) => void,
    write: (type: string, object: unknown) => void,
  ): void {
    const unsubscribe = this.store.subscribe(deliver);
    const timeout = Number(q.get('timeoutSeconds') ?? 0);
    const timer = timeout > 0 ? setTimeout(() => res.end(), timeout * 1000) : undefined;
    timer?.unref();
    const bookmarks =
      q.get('allowWatchBookmarks') === 'true'
        ? setInterval(() => write('BOOKMARK', this.bookmark(r)), 1000)
        : undefined;
    bookmarks?.unref();
    res.on('close', () => {
      unsubscribe();
      clearTimeout(timer);
      clearInterval(bookmarks);
      this.watches.delete(res);
    });
  }
}

/** A list's continue token: where the last page ended, and the list's resourceVersion. */
function continueToken(cont: string): { start: string; rv: string } {
  try {
    return JSON.parse(Buffer.from(cont, 'base64').toString('utf8')) as { start: string; rv: string };
  } catch {
    throw continueTokenError(cont);
  }
}

/** PartialObjectMetadata asked of what the server cannot answer so: 406, naming the Go type it holds. */
function notAcceptable(r: Resource, isList: boolean): ApiStatus {
  // A custom resource asked as a list fails inside the server (its content is not a list).
  if (r.custom && !isList) return new ApiStatus(500, 'InternalError', 'content is not a list');
  // The server names the Go type it holds: unstructured for custom resources, the internal
  // type (package named after the group's first label, core for the core group) for built-ins.
  const goType = r.custom
    ? `*unstructured.Unstructured${isList ? 'List' : ''}`
    : `*${r.group ? r.group.split('.')[0] : 'core'}.${r.kind}${isList ? 'List' : ''}`;
  return new ApiStatus(
    406,
    'NotAcceptable',
    isList
      ? `you requested PartialObjectMetadata, but the requested object is a list (${goType})`
      : `you requested PartialObjectMetadataList, but the requested object is not a list (${goType})`,
  );
}

export function keyOf(o: Obj): string {
  const m = (o.metadata ?? {}) as Obj;
  return `${str(m.namespace)}/${str(m.name)}`;
}

export function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
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
