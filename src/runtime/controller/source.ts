/**
 * Sources produce events for a controller (controller-runtime's pkg/source): `kindSource` watches
 * a type through the shared cache, `ChannelSource` carries events from anywhere else.
 */
import { type Context, context } from '@opentelemetry/api';
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Cache, HandlerRegistration, TypeRef } from '../contracts.js';
import type { CreateEvent, DeleteEvent, GenericEvent, UpdateEvent } from './predicate.js';

/** Where a source delivers events (the controller applies predicates and the handler). */
export interface EventSink {
  create(e: CreateEvent): void;
  update(e: UpdateEvent): void;
  delete(e: DeleteEvent): void;
  generic(e: GenericEvent): void;
}

/** A stream of events for one watch of a controller. */
export interface Source {
  /** Starts delivering to `sink` until `signal` aborts. Rejects if it cannot start (e.g. unknown kind). */
  start(signal: AbortSignal, sink: EventSink): Promise<void>;
  /** Resolves true once the initial state has been delivered; false if `signal` aborts first. */
  waitForSync(signal: AbortSignal): Promise<boolean>;
  /** For logs: `kind source: apps/v1 Deployment`. */
  toString(): string;
}

/** True for objects implementing Source (used by the builder to tell sources from types). */
export function isSource(x: unknown): x is Source {
  return (
    typeof x === 'object' &&
    x !== null &&
    typeof (x as Source).start === 'function' &&
    typeof (x as Source).waitForSync === 'function'
  );
}

/**
 * Events for every object of a type, from the cache's shared informer (controller-runtime's
 * source.Kind). The informer's initial objects arrive as create events. On shutdown the handler
 * registration is removed; the informer itself keeps running for other users until the cache stops.
 */
export function kindSource(cache: Cache, type: TypeRef): Source {
  let registration: HandlerRegistration | undefined;
  let informer: Awaited<ReturnType<Cache['getInformer']>> | undefined;
  let started: () => void;
  const startedP = new Promise<void>((r) => (started = r));
  let label = 'kind source';
  return {
    async start(signal, sink) {
      informer = await cache.getInformer(type);
      label = `kind source: ${informer.resource.apiVersion} ${informer.resource.kind}`;
      registration = informer.addEventHandler({
        onAdd: (obj: KubernetesObject, isInInitialList: boolean) => sink.create({ object: obj, isInInitialList }),
        onUpdate: (objectOld: KubernetesObject, objectNew: KubernetesObject) => sink.update({ objectOld, objectNew }),
        onDelete: (obj: KubernetesObject, deleteStateUnknown: boolean) =>
          sink.delete({ object: obj, deleteStateUnknown }),
      });
      started();
      signal.addEventListener(
        'abort',
        () => {
          if (registration) informer?.removeEventHandler(registration);
        },
        { once: true },
      );
    },
    async waitForSync(signal) {
      // The abort listener goes when the race is decided, so waits do not pile up on the signal.
      let onAbort = (): void => {};
      await Promise.race([
        startedP,
        new Promise<void>((r) => {
          onAbort = () => r();
          signal.addEventListener('abort', onAbort, { once: true });
        }),
      ]);
      signal.removeEventListener('abort', onAbort);
      if (signal.aborted || !informer || !registration) return false;
      if (registration.hasSynced()) return true;
      // The informer marks its handlers synced in the same step as itself.
      return (await informer.waitForSync(signal)) && registration.hasSynced();
    },
    toString: () => label,
  };
}

/**
 * Generic events pushed by the program (controller-runtime's source.Channel): `send(obj)`
 * delivers a generic event to the controller's handler. Sends before the controller starts are
 * buffered; sends after shutdown are dropped.
 */
export class ChannelSource<T extends KubernetesObject = KubernetesObject> implements Source {
  private sink?: EventSink;
  /** Sends before start, with the trace context each was sent in (the reconcile span links to its span). */
  private buffer: { obj: T; ctx: Context }[] = [];
  private stopped = false;

  /** Delivers a generic event for `obj`. */
  send(obj: T): void {
    if (this.stopped) return;
    if (this.sink) this.sink.generic({ object: obj });
    else this.buffer.push({ obj, ctx: context.active() });
  }

  async start(signal: AbortSignal, sink: EventSink): Promise<void> {
    this.sink = sink;
    const b = this.buffer;
    this.buffer = [];
    for (const { obj, ctx } of b) context.with(ctx, () => sink.generic({ object: obj }));
    signal.addEventListener(
      'abort',
      () => {
        this.stopped = true;
        this.sink = undefined;
      },
      { once: true },
    );
  }

  async waitForSync(): Promise<boolean> {
    return true;
  }

  toString(): string {
    return 'channel source';
  }
}
