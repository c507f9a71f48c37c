// kubeforge/runtime controller: builder, controller, handlers, predicates, sources, rate limiters.
export { controllerManagedBy, BuilderError } from './builder.js';
export type { Builder, ForOptions, OwnsOptions, WatchesOptions } from './builder.js';
export { Controller, ReconciliationTimeoutError } from './controller.js';
export type { ControllerDeps, ControllerOptions, WatchHandle } from './controller.js';
export type { GetResult, WorkQueue, WorkQueueMetrics, WorkQueueOptions } from './workqueue.js';
export { TerminalError, isTerminalError } from './reconcile.js';
export type { Request, Result, ReconcileContext, ReconcileFunc, ReconcilerObject, Reconciler } from './reconcile.js';
export {
  enqueueRequestForObject,
  enqueueRequestForOwner,
  enqueueRequestsFromMapFunc,
  handlerFuncs,
} from './handler.js';
export type {
  AddOptions,
  EventHandler,
  HandlerContext,
  RequestQueue,
  MapContext,
  MapFunc,
  MapFuncHandler,
  EnqueueForOwnerOptions,
  OwnerScopeMapper,
} from './handler.js';
export {
  GenerationChangedPredicate,
  ignoreOwnWrites,
  ResourceVersionChangedPredicate,
  LabelChangedPredicate,
  AnnotationChangedPredicate,
  andPredicates,
  orPredicates,
  notPredicate,
  newPredicateFuncs,
  predicateFuncs,
  labelSelectorPredicate,
} from './predicate.js';
export type { Predicate, CreateEvent, UpdateEvent, DeleteEvent, GenericEvent } from './predicate.js';
export { kindSource, ChannelSource } from './source.js';
export { LOW_PRIORITY } from './workqueue.js';
export type { Source, EventSink } from './source.js';
export {
  ItemExponentialFailureRateLimiter,
  ItemFastSlowRateLimiter,
  BucketRateLimiter,
  MaxOfRateLimiter,
  defaultControllerRateLimiter,
} from './ratelimiter.js';
export type { RateLimiter } from './ratelimiter.js';
export { FakeClock } from './clock.js';
export type { Clock } from './clock.js';
