/**
 * Events (events.k8s.io/v1) about objects, with aggregation of repeats like client-go's events
 * broadcaster: the same event (regarding object, related object, type, reason, action, note,
 * reporter) seen again within the series window updates one Event's `series` (count and
 * lastObservedTime) instead of creating another.
 */
import { hostname } from 'node:os';
import { format } from 'node:util';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { RestClient, RestError, microTime } from '../util/rest.js';

/** Event types the API accepts. */
export type EventType = 'Normal' | 'Warning';

/** Optional parts of an event. */
export interface EventOptions {
  /** What was done or failed (machine-readable, ≤128 chars). Default: the reason. */
  action?: string;
  /** A second object the event is about (e.g. the Pod a Deployment created). */
  related?: KubernetesObject;
}

/**
 * Records events about objects (controller-runtime's `record.EventRecorder`). Recording never
 * blocks and never throws: the write happens in the background; API errors are logged and the
 * event dropped (events are best-effort). On shutdown the Manager flushes pending writes within
 * its grace period.
 */
export interface EventRecorder {
  /** Records an event with a fixed note. */
  event(object: KubernetesObject, type: EventType, reason: string, note: string, options?: EventOptions): void;
  /** Records an event whose note is `util.format(fmt, ...args)`. */
  eventf(object: KubernetesObject, type: EventType, reason: string, fmt: string, ...args: unknown[]): void;
  /** Resolves when every event recorded so far is written (or dropped after an error). */
  flush(): Promise<void>;
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

function ref(o: KubernetesObject | undefined) {
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

/**
 * Shared by every recorder of one Manager: holds the series cache and the pending writes.
 * Not exported from kubeforge/runtime; use `mgr.getEventRecorderFor(name)`.
 */
export class EventBroadcaster {
  private readonly series = new Map<string, Series>();
  private readonly pending = new Set<Promise<void>>();
  private readonly window: number;
  private readonly instance = hostname();

  constructor(private readonly o: EventBroadcasterOptions) {
    this.window = o.seriesWindowMs ?? 6 * 60 * 1000;
  }

  /** A recorder whose events carry `reportingController: name`. */
  recorderFor(name: string): EventRecorder {
    const controller = name;
    const reportingInstance = `${name}-${this.instance}`.slice(0, 128);
    const emit = (object: KubernetesObject, type: EventType, reason: string, note: string, options: EventOptions = {}) =>
      this.record(controller, reportingInstance, object, type, reason, note, options);
    return {
      event: emit,
      eventf: (object, type, reason, fmt, ...args) => emit(object, type, reason, format(fmt, ...args)),
      flush: () => this.flush(),
    };
  }

  /** Resolves when all writes started so far have finished. */
  async flush(): Promise<void> {
    while (this.pending.size) await Promise.allSettled([...this.pending]);
  }

  private record(
    controller: string,
    instance: string,
    object: KubernetesObject,
    type: EventType,
    reason: string,
    note: string,
    options: EventOptions,
  ): void {
    const log = this.o.logger;
    if (!object?.metadata?.name || !object.kind || !object.apiVersion) {
      log.warn({ reason }, 'event dropped: the object needs apiVersion, kind and metadata.name');
      return;
    }
    if (!VALID_TYPES.has(type)) {
      log.warn({ type, reason }, 'event dropped: type must be Normal or Warning');
      return;
    }
    const action = options.action ?? reason;
    const regarding = ref(object)!;
    const related = ref(options.related);
    const namespace = regarding.namespace || 'default';
    note = note.length > 1024 ? note.slice(0, 1021) + '...' : note;
    log.debug({ object: `${regarding.namespace ?? ''}/${regarding.name}`, kind: regarding.kind, type, reason, note }, 'event');
    const key = JSON.stringify([controller, instance, regarding.uid ?? '', regarding.kind, regarding.namespace ?? '', regarding.name, related?.uid ?? '', related?.name ?? '', type, reason, action, note]);
    const now = Date.now();
    let s = this.series.get(key);
    if (s && now - s.lastObserved > this.window) {
      this.series.delete(key);
      s = undefined;
    }
    if (this.series.size > 4096) {
      for (const [k, v] of this.series) if (now - v.lastObserved > this.window) this.series.delete(k);
    }
    if (!s) {
      s = { namespace, name: undefined, count: 1, firstSeen: now, lastObserved: now, written: 0, busy: Promise.resolve() };
      this.series.set(key, s);
      const body = {
        apiVersion: 'events.k8s.io/v1',
        kind: 'Event',
        metadata: { name: `${regarding.name}.${(BigInt(now) * 1_000_000n + BigInt(Math.floor(Math.random() * 1e6))).toString(16)}`, namespace },
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
      const series = s;
      this.chain(series, async () => {
        try {
          const created = await this.o.rest.request('POST', `/apis/events.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/events`, { body });
          series.name = created.metadata.name;
          series.written = 1;
        } catch (e) {
          this.series.delete(key);
          log.warn({ err: (e as Error).message, reason }, 'unable to write event');
        }
      });
      return;
    }
    s.count++;
    s.lastObserved = now;
    const series = s;
    this.chain(series, async () => {
      // Coalesced: a burst of repeats while a write is in flight becomes one update.
      if (!series.name || series.written >= series.count) return;
      const count = series.count;
      const patch = { series: { count, lastObservedTime: microTime(new Date(series.lastObserved)) } };
      try {
        await this.o.rest.request('PATCH', `/apis/events.k8s.io/v1/namespaces/${encodeURIComponent(series.namespace)}/events/${encodeURIComponent(series.name)}`, {
          body: patch,
          contentType: 'application/merge-patch+json',
        });
        series.written = count;
      } catch (e) {
        if (e instanceof RestError && e.status === 404) this.series.delete(key); // expired or deleted: next repeat starts anew
        log.warn({ err: (e as Error).message, reason }, 'unable to update event series');
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
