/**
 * kubeforge/runtime: the controller-runtime of TypeScript. Its root holds what a generated
 * project's main.ts, controllers, webhooks and their tests import; everything else is in the
 * subpath of its part, after controller-runtime's packages: kubeforge/runtime/client,
 * kubeforge/runtime/cache, kubeforge/runtime/controller (builder, controller, handler, predicate,
 * reconcile, source, rate limiters), kubeforge/runtime/manager, kubeforge/runtime/multicluster
 * (a manager over many clusters, after multicluster-runtime), kubeforge/runtime/util
 * (controllerutil, conditions) and kubeforge/runtime/webhook. Each root name is also in its subpath.
 * Depends on @kubernetes/client-node, prom-client and pino only.
 */
export { getConfigOrDie, healthz, newLogger, newManager, setupSignalHandler } from './manager/index.js';
export type { EventRecorder, Logger, Manager } from './manager/index.js';
export { isAlreadyExists, isNoKindMatch, isNotFound, labelSelectorAsSelector, newClient } from './client/index.js';
export type { Client, Selector, TypeDescriptor } from './client/index.js';
export { controllerManagedBy, TerminalError } from './controller/index.js';
export type { ReconcileContext, Request, Result } from './controller/index.js';
export { field, FieldErrors, newWebhookServer, webhookManagedBy } from './webhook/index.js';
export type {
  AdmissionContext,
  Conversion,
  CustomDefaulter,
  CustomValidator,
  FieldError,
  Warnings,
} from './webhook/index.js';
export {
  addFinalizer,
  containsFinalizer,
  findStatusCondition,
  getControllerOf,
  now,
  removeFinalizer,
  setControllerReference,
  setStatusCondition,
} from './util/index.js';
export type { ConditionInput } from './util/index.js';
