/**
 * Events about objects, as controller-runtime records them: `mgr.getEventRecorder(name)` writes
 * events.k8s.io/v1 Events (client-go's tools/events):
 * `eventf(regarding, related, type, reason, action, note, ...args)`. (The deprecated core/v1
 * recorder, `getEventRecorderFor`, was removed.) Repeats are aggregated like client-go's
 * broadcaster: the same event seen again within the series window updates one Event
 * (`series.count` and `lastObservedTime`) instead of creating another.
 */
import { hostname } from 'node:os';
import { format } from 'node:util';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { RestClient } from '../client/rest.js';
import { isForbidden, isNotFound, StatusError } from '../client/errors.js';
import { microTime } from '../client/dates.js';

/** Event types the API accepts. */
export type EventType = 'Normal' | 'Warning';

/**
 * Records events.k8s.io/v1 Events about objects (controller-runtime 0.23's
 * `events.EventRecorder`, from `mgr.getEventRecorder(name)`). Recording never blocks and never
 * throws: the write happens in the background; API errors are logged and the event dropped
 * (events are best-effort); a write the API server forbids is logged once at error level with
 * the `@Rbac` marker that grants it. On shutdown the Manager flushes pending writes within its
 * grace period.
 */
export interface EventRecorder {
  /**
   * Records an event about `regarding` (and optionally `related`): `type` Normal or Warning,
   * `reason` (why, CamelCase), `action` (what was done or failed, CamelCase), and `note`, a
   * human-readable text formatted with `util.format(note, ...args)` when args are given.
   */
  eventf(
    regarding: KubernetesObject,
    related: KubernetesObject | undefined | null,
    type: EventType,
    reason: string,
    action: string,
    note: string,
    ...args: unknown[]
  ): void;
  /** Resolves when every event recorded so far is written (or dropped after an error). */
  flush(): Promise<void>;
}

/**
 * The recorder `mgr.getEventRecorder(name)` gives (controller-runtime 0.25's
 * `recorder.EventRecorder`, both client-go's `EventRecorder` and `AnnotatedEventRecorder`): an
 * {@link EventRecorder} that can also put annotations on the Event. A reconciler that takes an
 * `EventRecorder` keeps taking test doubles with `eventf` and `flush` only.
 */
export interface AnnotatedEventRecorder extends EventRecorder {
  /** Like eventf, with annotations on the Event object. */
  annotatedEventf(
    regarding: KubernetesObject,
    related: KubernetesObject | undefined | null,
    annotations: Record<string, string>,
    type: EventType,
    reason: string,
    action: string,
    note: string,
    ...args: unknown[]
  ): void;
}

interface Series {
  namespace: string;
  name: string | undefined;
  count: number;
  firstSeen: number;
  lastObserved: number;
  written: number;
  busy: Promise<void>;
}

/** Options of {@link EventBroadcaster}. */
export interface EventBroadcasterOptions {
  rest: RestClient;
  logger: Logger;
  /** Repeats within this window join a series (default 6 minutes, as client-go). */
  seriesWindowMs?: number;
}

const VALID_TYPES = new Set(['Normal', 'Warning']);

/** The reference of an Event to an object (regarding, related). */
interface ObjectRef {
  apiVersion: string | undefined;
  kind: string | undefined;
  name: string | undefined;
  namespace: string | undefined;
  uid: string | undefined;
  resourceVersion: string | undefined;
}

function ref(o: KubernetesObject): ObjectRef;
function ref(o: KubernetesObject | undefined): ObjectRef | undefined;
function ref(o: KubernetesObject | undefined): ObjectRef | undefined {
  if (!o) return undefined;
  return {
    apiVersion: o.apiVersion,
    kind: o.kind,
    name: o.metadata?.name,
    namespace: o.metadata?.namespace,
    uid: o.metadata?.uid,
    resourceVersion: o.metadata?.resourceVersion,
  };
}

interface Recorded {
  controller: string;
  instance: string;
  object: KubernetesObject;
  related?: KubernetesObject;
  type: EventType;
  reason: string;
  action: string;
  note: string;
  annotations?: Record<string, string>;
}

/** The marker a project needs to write Events (what `manifests` turns into RBAC rules). */
const RBAC_MARKER = "@Rbac({ groups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] })";

/** Where Events of namespace `ns` are written. */
const eventsPath = (ns: string) => `/apis/events.k8s.io/v1/namespaces/${encodeURIComponent(ns)}/events`;

/**
 * Shared by every recorder of one Manager: holds the series cache and the pending writes.
 * Not exported from kubeforge/runtime; use `mgr.getEventRecorder(name)`.
 */
export class EventBroadcaster {
  private readonly series = new Map<string, Series>();
  private readonly pending = new Set<Promise<void>>();
  private readonly window: number;
  private readonly instance = hostname();
  private deniedLogged = false;
  /** Where events.k8s.io Events about cluster-scoped objects go: default, or kube-system on servers before 1.22. */
  private clusterScopedNamespace = 'default';

  constructor(private readonly o: EventBroadcasterOptions) {
    this.window = o.seriesWindowMs ?? 6 * 60 * 1000;
  }

  /** A recorder of events.k8s.io/v1 Events whose `reportingController` is `name`. */
  recorder(name: string): AnnotatedEventRecorder {
    const instance = `${name}-${this.instance}`.slice(0, 128);
    const emit = (
      regarding: KubernetesObject,
      related: KubernetesObject | undefined | null,
      annotations: Record<string, string> | undefined,
      type: EventType,
      reason: string,
      action: string,
      note: string,
      args: unknown[],
    ) =>
      this.record({
        controller: name,
        instance,
        object: regarding,
        related: related ?? undefined,
        type,
        reason,
        action,
        note: args.length ? format(note, ...args) : note,
        annotations,
      });
    return {
      eventf: (regarding, related, type, reason, action, note, ...args) =>
        emit(regarding, related, undefined, type, reason, action, note, args),
      annotatedEventf: (regarding, related, annotations, type, reason, action, note, ...args) =>
        emit(regarding, related, annotations, type, reason, action, note, args),
      flush: () => this.flush(),
    };
  }

  /** Resolves when all writes started so far have finished. */
  async flush(): Promise<void> {
    while (this.pending.size) await Promise.allSettled([...this.pending]);
  }

  /** A failed write: a 403 is logged once at error level, with the marker that grants it. */
  private failed(e: unknown, reason: string, what: string): void {
    const log = this.o.logger;
    if (isForbidden(e)) {
      if (!this.deniedLogged) {
        this.deniedLogged = true;
        log.error(
          { err: e.message, reason, rbac: RBAC_MARKER },
          `events are not recorded: the API server forbids this manager to ${what} events.k8s.io/v1 Events; add ${RBAC_MARKER} to a controller class and run manifests`,
        );
      } else log.debug({ err: e.message, reason }, 'event dropped: forbidden');
      return;
    }
    log.warn({ err: (e as Error).message, reason }, `unable to ${what} event`);
  }

  /**
   * Records one event: a new one is created; a repeat within the series window counts into the
   * Event already written.
   */
  private record(ev: Recorded): void {
    const log = this.o.logger;
    const { controller, instance, object, type, reason } = ev;
    if (!object?.metadata?.name || !object.kind || !object.apiVersion) {
      log.warn({ reason }, 'event dropped: the object needs apiVersion, kind and metadata.name');
      return;
    }
    if (!VALID_TYPES.has(type)) {
      log.warn({ type, reason }, 'event dropped: type must be Normal or Warning');
      return;
    }
    const action = ev.action || reason;
    const regarding = ref(object);
    const related = ref(ev.related);
    const note = ev.note.length > 1024 ? `${ev.note.slice(0, 1021)}...` : ev.note;
    log.debug(
      { object: `${regarding.namespace ?? ''}/${regarding.name}`, kind: regarding.kind, type, reason, note },
      'event',
    );
    const key = JSON.stringify([
      controller,
      instance,
      regarding.uid ?? '',
      regarding.kind,
      regarding.namespace ?? '',
      regarding.name,
      related?.uid ?? '',
      related?.name ?? '',
      type,
      reason,
      action,
      note,
    ]);
    const now = Date.now();
    const s = this.liveSeries(key, now);
    if (s) {
      this.repeat(key, s, now, reason);
      return;
    }
    const series: Series = {
      namespace: regarding.namespace || this.clusterScopedNamespace,
      name: undefined,
      count: 1,
      firstSeen: now,
      lastObserved: now,
      written: 0,
      busy: Promise.resolve(),
    };
    this.series.set(key, series);
    const name = `${regarding.name}.${(BigInt(now) * 1_000_000n + BigInt(Math.floor(Math.random() * 1e6))).toString(16)}`;
    const body = {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name, namespace: series.namespace, ...(ev.annotations ? { annotations: ev.annotations } : {}) },
      eventTime: microTime(new Date(now)),
      reportingController: controller,
      reportingInstance: instance,
      action,
      reason,
      note,
      type,
      regarding,
      related,
    };
    this.chain(series, () => this.create(key, series, body, !regarding.namespace, reason));
  }

  /** The series `key` continues at `now` (none past the window); old series are swept past 4096. */
  private liveSeries(key: string, now: number): Series | undefined {
    let s = this.series.get(key);
    if (s && now - s.lastObserved > this.window) {
      this.series.delete(key);
      s = undefined;
    }
    if (this.series.size > 4096) {
      for (const [k, v] of this.series) if (now - v.lastObserved > this.window) this.series.delete(k);
    }
    return s;
  }

  /** Writes the first Event of a series. */
  private async create(
    key: string,
    series: Series,
    body: { metadata: { namespace: string } },
    clusterScoped: boolean,
    reason: string,
  ): Promise<void> {
    try {
      let created: { metadata: { name?: string } };
      try {
        created = await this.o.rest.request('POST', eventsPath(series.namespace), { body });
      } catch (e) {
        // Before Kubernetes 1.22 the API server takes events.k8s.io/v1 Events about
        // cluster-scoped objects only in kube-system (422 "does not match event.namespace"
        // in default, where client-go and newer servers put them): move there once, for good.
        if (
          !(
            clusterScoped &&
            series.namespace === 'default' &&
            e instanceof StatusError &&
            e.code === 422 &&
            /does not match event\.namespace/.test(e.message)
          )
        )
          throw e;
        this.clusterScopedNamespace = 'kube-system';
        series.namespace = 'kube-system';
        body.metadata.namespace = 'kube-system';
        created = await this.o.rest.request('POST', eventsPath(series.namespace), { body });
      }
      series.name = created.metadata.name;
      series.written = 1;
    } catch (e) {
      this.series.delete(key);
      this.failed(e, reason, 'create');
    }
  }

  /** A repeat: counts into the series and patches its Event (a burst in flight becomes one patch). */
  private repeat(key: string, series: Series, now: number, reason: string): void {
    series.count++;
    series.lastObserved = now;
    this.chain(series, async () => {
      if (!series.name || series.written >= series.count) return;
      const count = series.count;
      try {
        await this.o.rest.request('PATCH', `${eventsPath(series.namespace)}/${encodeURIComponent(series.name)}`, {
          body: { series: { count, lastObservedTime: microTime(new Date(series.lastObserved)) } },
          contentType: 'application/merge-patch+json',
        });
        series.written = count;
      } catch (e) {
        if (isNotFound(e)) this.series.delete(key); // expired or deleted: next repeat starts anew
        this.failed(e, reason, 'patch');
      }
    });
  }

  private chain(s: Series, write: () => Promise<void>): void {
    const p = s.busy.then(write, write);
    s.busy = p;
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
  }
}
