// kubeforge/runtime controller: builder, controller, handlers, predicates, sources, work queue.
export { controllerManagedBy, Builder, BuilderError } from './builder.js';
export type { ForOptions, OwnsOptions, WatchesOptions } from './builder.js';
export { Controller, isPanic } from './controller.js';
export type { ControllerOptions, ControllerDeps } from './controller.js';
export { TerminalError, isTerminalError, requestKey, requeueDelayMs } from './reconcile.js';
export type { Request, Result, ReconcileContext, ReconcileFunc, ReconcilerObject, Reconciler } from './reconcile.js';
export { enqueueRequestForObject, enqueueRequestForOwner, enqueueRequestsFromMapFunc, handlerFuncs } from './handler.js';
export type { EventHandler, RequestQueue, MapFunc, EnqueueForOwnerOptions } from './handler.js';
export {
  GenerationChangedPredicate,
  ResourceVersionChangedPredicate,
  LabelChangedPredicate,
  AnnotationChangedPredicate,
  and,
  or,
  not,
  newPredicateFuncs,
  predicateFuncs,
  labelSelectorPredicate,
} from './predicate.js';
export type { Predicate, CreateEvent, UpdateEvent, DeleteEvent, GenericEvent } from './predicate.js';
export { kindSource, ChannelSource, isSource } from './source.js';
export type { Source, EventSink } from './source.js';
export { WorkQueue } from './workqueue.js';
export type { WorkQueueOptions, WorkQueueMetrics, GetResult } from './workqueue.js';
export {
  ItemExponentialFailureRateLimiter,
  ItemFastSlowRateLimiter,
  BucketRateLimiter,
  MaxOfRateLimiter,
  defaultControllerRateLimiter,
} from './ratelimiter.js';
export type { RateLimiter } from './ratelimiter.js';
export { FakeClock, realClock } from './clock.js';
export type { Clock } from './clock.js';
export { controllerMetrics, workQueueMetrics } from './metrics.js';
export type { ControllerMetrics } from './metrics.js';
