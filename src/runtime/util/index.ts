// kubeforge/runtime helpers (controllerutil, meta conditions).
export {
  setControllerReference,
  setOwnerReference,
  getControllerOf,
  removeOwnerReference,
  hasOwnerReference,
  AlreadyOwnedError,
} from './owner.js';
export type { OwnerReferenceOptions } from './owner.js';
export { addFinalizer, removeFinalizer, containsFinalizer } from './finalizers.js';
export {
  setStatusCondition,
  removeStatusCondition,
  findStatusCondition,
  isStatusConditionTrue,
  isStatusConditionFalse,
  isStatusConditionPresentAndEqual,
} from './conditions.js';
export type { Condition, ConditionInput, ConditionStatus } from './conditions.js';
export { createOrUpdate, createOrPatch } from './mutate.js';
export { now, microNow, Time, MicroTime } from './time.js';
export type { OperationResult, MutateFn } from './mutate.js';
