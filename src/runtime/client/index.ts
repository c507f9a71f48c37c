// kubeforge/runtime client: typed reads (cache or live) and writes to the API server.
export { newClient } from './client.js';
export { metadataOnly, isMetadataOnly } from './types.js';
export type { MetadataOnlyType, PartialObjectMetadata } from './types.js';
export type { ClientOptions } from './client.js';
export {
  StatusError,
  NotFoundError,
  ConflictError,
  AlreadyExistsError,
  NoKindMatchError,
  reasonOf,
  isNotFound,
  isConflict,
  isAlreadyExists,
  isInvalid,
  isBadRequest,
  isForbidden,
  isGone,
  isNoKindMatch,
  ignoreNotFound,
} from './errors.js';
export type { Status } from './errors.js';
export { Apply, mergeFrom, mergePatch, jsonPatch, strategicMergePatch, createMergePatch } from './patch.js';
export { extractApplyConfiguration } from './extract.js';
export type { JSONPatchOperation } from './patch.js';
export { LeadershipLostError } from './fence.js';
export type { RESTMapper, APIResource } from './restmapper.js';
export { DiscoveryClient, type APIGroup, type ServerVersion } from './discovery.js';
export { splitAPIVersion, apiVersionOf } from './types.js';
