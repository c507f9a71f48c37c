// kubeforge/runtime cache: shared informers and in-memory reads.
export { newCache, InformerCache, MultiNamespaceInformer, CacheNotStartedError } from './cache.js';
export type { CacheOptions } from './cache.js';
export { SharedInformer, deepFreeze, objectKey } from './informer.js';
export type { InformerStats, SharedInformerOptions, StoreEntry } from './informer.js';
