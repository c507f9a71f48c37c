// kubeforge/runtime client: typed reads (cache or live) and writes to the API server.
export { newClient } from './client.js';
export type { ClientOptions } from './client.js';
export {
  StatusError,
  NotFoundError,
  ConflictError,
  AlreadyExistsError,
  statusErrorFrom,
  reasonOf,
  isNotFound,
  isConflict,
  isAlreadyExists,
  isInvalid,
  isForbidden,
  isGone,
  ignoreNotFound,
} from './errors.js';
export type { Status } from './errors.js';
export { Apply, mergeFrom, mergePatch, jsonPatch, strategicMergePatch, createMergePatch } from './patch.js';
export type { JSONPatchOperation } from './patch.js';
export { RestClient } from './rest.js';
export { restClientRequestMetrics } from './requestmetrics.js';
export type { RequestObserver } from './requestmetrics.js';
export { reviveDates } from './dates.js';
export type { RequestOptions, RetryWait } from './rest.js';
export { LeadershipLostError } from './fence.js';
export type { WriteFence } from './fence.js';
export { Resolver } from './resolver.js';
export { registerType, resourcePath, splitAPIVersion, apiVersionOf } from './types.js';
export { parseLabelSelector, parseFieldSelector, matchesLabels } from './selector.js';
export type { LabelRequirement, FieldRequirement } from './selector.js';
