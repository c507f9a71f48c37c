// kubeforge/runtime manager: lifecycle, probes, metrics, leader election, events, config.
export { newManager, GracefulShutdownTimeoutError, LeaderElectionLostError } from './manager.js';
export type { Manager } from './types.js';
export type { ManagerOptions, ManagerCacheOptions, ManagerClientOptions, ShardingOptions } from './manager.js';
export { LeaderElectionError } from './leaderelection.js';
export { getConfigOrDie, ConfigError } from './config.js';
export type { GetConfigOptions } from './config.js';
export { setupSignalHandler } from './signals.js';
export { healthz } from './healthz.js';
export type { Checker } from './healthz.js';
export type { AnnotatedEventRecorder, EventRecorder, EventType } from './events.js';
export type { MetricsServerOptions } from './servers.js';
export { newLogger, zapLevel, zapEncoder, LoggerOptionsError } from './logging.js';
export { traceMixin } from '../tracing.js';
export type { ZapOptions } from './logging.js';
export type { Logger } from 'pino';
export type { Leadership, Runnable, ShardContext, ShardGate } from '../contracts.js';
