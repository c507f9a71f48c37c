// kubeforge/runtime cache: shared informers and in-memory reads.
export {
  newCache,
  CacheNotStartedError,
  CacheSyncTimeoutError,
  NamespaceNotWatchedError,
  MissingIndexError,
} from './cache.js';
export type {
  CacheByObject,
  CacheNamespaceSettings,
  CacheOptions,
  InformerCache,
  MultiNamespaceInformer,
} from './cache.js';
export type { Indexer, InformerStats, SharedInformer, SharedInformerOptions } from './informer.js';
export type {
  Cache,
  HandlerRegistration,
  IndexExtractor,
  Informer,
  ResourceEventHandler,
  WatchEventType,
} from '../contracts.js';
