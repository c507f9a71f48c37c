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
export {
  everything,
  InvalidSelectorError,
  labelSelectorAsSelector,
  matchesNothing,
  newRequirement,
  nothing,
  parseSelector,
  selectorFromSet,
} from './labels.js';
export type {
  Labels,
  LabelSelectorLike,
  LabelSelectorRequirementLike,
  Requirement,
  Selector,
  SelectorOperator,
} from './labels.js';
export type { JSONPatchOperation, Json } from './patch.js';
export { RestClient } from './rest.js';
export type { RequestOptions, RetryWait } from './rest.js';
export type { RequestObserver } from './requestmetrics.js';
export type { WriteFence } from './fence.js';
export type { TypeTable } from './types.js';
export { LeadershipLostError } from './fence.js';
export type { RESTMapper, APIResource } from './restmapper.js';
export { DiscoveryClient, type APIGroup, type ServerVersion } from './discovery.js';
export { splitAPIVersion, apiVersionOf } from './types.js';
export type {
  ApplyConfiguration,
  ApplyOptions,
  Client,
  DeepPartial,
  DeleteOptions,
  FieldValidation,
  GetOptions,
  GroupVersionKind,
  ListOptions,
  ObjectKey,
  ObjectList,
  ObjectType,
  Patch,
  PatchOptions,
  Reader,
  ResourceInfo,
  StatusWriter,
  SubResourceClient,
  TypeDescriptor,
  TypeRef,
  WriteOptions,
  Writer,
} from '../contracts.js';
