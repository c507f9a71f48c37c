/**
 * What a reconciler test needs besides a server (controller-runtime's interceptor.Funcs,
 * record.FakeRecorder and a hand-built reconcile context): fault injection around any client,
 * an event recorder that keeps what it is told, a reconcile context, and a manager set up for
 * tests (no metrics or probe ports, quiet logs).
 */
import { randomUUID } from 'node:crypto';
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import type {
  ApplyConfiguration,
  ApplyOptions,
  Client,
  DeleteOptions,
  GetOptions,
  ListOptions,
  ObjectKey,
  ObjectList,
  Patch,
  PatchOptions,
  TypeRef,
  WriteOptions,
} from '../../runtime/contracts.js';
import type { AnnotatedEventRecorder, EventType } from '../../runtime/manager/events.js';
import { newLogger } from '../../runtime/manager/logging.js';
import { newManager, type Manager, type ManagerOptions } from '../../runtime/manager/manager.js';
import type { ReconcileContext } from '../../runtime/controller/reconcile.js';
import type { Logger } from 'pino';

/**
 * Replacements for client calls: each gets the call's arguments and, last, the client it wraps
 * (call it to go on, or do not, and return or throw what the test needs).
 */
export interface Interceptors {
  get?: <T extends KubernetesObject>(
    type: TypeRef<T>,
    key: ObjectKey,
    o: GetOptions | undefined,
    client: Client,
  ) => Promise<T>;
  list?: <T extends KubernetesObject>(
    type: TypeRef<T>,
    o: ListOptions | undefined,
    client: Client,
  ) => Promise<ObjectList<T>>;
  create?: <T extends KubernetesObject>(obj: T, o: WriteOptions | undefined, client: Client) => Promise<T>;
  update?: <T extends KubernetesObject>(obj: T, o: WriteOptions | undefined, client: Client) => Promise<T>;
  patch?: <T extends KubernetesObject>(obj: T, patch: Patch, o: PatchOptions | undefined, client: Client) => Promise<T>;
  delete?: (obj: KubernetesObject, o: DeleteOptions | undefined, client: Client) => Promise<void>;
  deleteAllOf?: (type: TypeRef, o: (ListOptions & DeleteOptions) | undefined, client: Client) => Promise<void>;
  statusUpdate?: <T extends KubernetesObject>(obj: T, o: WriteOptions | undefined, client: Client) => Promise<T>;
  statusPatch?: <T extends KubernetesObject>(
    obj: T,
    patch: Patch,
    o: PatchOptions | undefined,
    client: Client,
  ) => Promise<T>;
  apply?: <T extends KubernetesObject>(
    config: ApplyConfiguration<T>,
    o: ApplyOptions | undefined,
    client: Client,
  ) => Promise<T>;
  statusApply?: <T extends KubernetesObject>(
    config: ApplyConfiguration<T>,
    o: ApplyOptions | undefined,
    client: Client,
  ) => Promise<T>;
}

/**
 * A client whose calls go through `funcs` where one is given (controller-runtime's
 * `interceptor.NewClient`): `withInterceptors(client, { update: async () => { throw conflict } })`.
 */
export function withInterceptors(client: Client, funcs: Interceptors): Client {
  const status = client.status();
  const wrapped: Client = Object.create(client) as Client;
  return Object.assign(wrapped, {
    get: <T extends KubernetesObject>(type: TypeRef<T>, key: ObjectKey, o?: GetOptions) =>
      funcs.get ? funcs.get(type, key, o, client) : client.get(type, key, o),
    list: <T extends KubernetesObject>(type: TypeRef<T>, o?: ListOptions) =>
      funcs.list ? funcs.list(type, o, client) : client.list(type, o),
    create: <T extends KubernetesObject>(obj: T, o?: WriteOptions) =>
      funcs.create ? funcs.create(obj, o, client) : client.create(obj, o),
    update: <T extends KubernetesObject>(obj: T, o?: WriteOptions) =>
      funcs.update ? funcs.update(obj, o, client) : client.update(obj, o),
    patch: <T extends KubernetesObject>(obj: T, p: Patch, o?: PatchOptions) =>
      funcs.patch ? funcs.patch(obj, p, o, client) : client.patch(obj, p, o),
    delete: (obj: KubernetesObject, o?: DeleteOptions) =>
      funcs.delete ? funcs.delete(obj, o, client) : client.delete(obj, o),
    deleteAllOf: (type: TypeRef, o?: ListOptions & DeleteOptions) =>
      funcs.deleteAllOf ? funcs.deleteAllOf(type, o, client) : client.deleteAllOf(type, o),
    apply: <T extends KubernetesObject>(config: ApplyConfiguration<T>, o?: ApplyOptions) =>
      funcs.apply ? funcs.apply(config, o, client) : client.apply(config, o),
    status: () => ({
      update: <T extends KubernetesObject>(obj: T, o?: WriteOptions) =>
        funcs.statusUpdate ? funcs.statusUpdate(obj, o, client) : status.update(obj, o),
      patch: <T extends KubernetesObject>(obj: T, p: Patch, o?: PatchOptions) =>
        funcs.statusPatch ? funcs.statusPatch(obj, p, o, client) : status.patch(obj, p, o),
      apply: <T extends KubernetesObject>(config: ApplyConfiguration<T>, o?: ApplyOptions) =>
        funcs.statusApply ? funcs.statusApply(config, o, client) : status.apply(config, o),
    }),
  });
}

/** One event a {@link RecordingEventRecorder} was given. */
export interface RecordedEvent {
  regarding: { apiVersion?: string; kind?: string; namespace?: string; name?: string; uid?: string };
  related?: { apiVersion?: string; kind?: string; namespace?: string; name?: string };
  type: EventType;
  reason: string;
  action: string;
  note: string;
  /** The annotations given to annotatedEventf. */
  annotations?: Record<string, string>;
}

/** An EventRecorder that keeps every event in `events` (controller-runtime's record.FakeRecorder). */
export class RecordingEventRecorder implements AnnotatedEventRecorder {
  readonly events: RecordedEvent[] = [];

  eventf(
    regarding: KubernetesObject,
    related: KubernetesObject | undefined | null,
    type: EventType,
    reason: string,
    action: string,
    note: string,
    ...args: unknown[]
  ): void {
    const ref = (o: KubernetesObject) => ({
      apiVersion: o.apiVersion,
      kind: o.kind,
      namespace: o.metadata?.namespace,
      name: o.metadata?.name,
      uid: o.metadata?.uid,
    });
    const text = args.length ? formatNote(note, args) : note;
    this.events.push({
      regarding: ref(regarding),
      ...(related ? { related: ref(related) } : {}),
      type,
      reason,
      action,
      note: text,
    });
  }

  annotatedEventf(
    regarding: KubernetesObject,
    related: KubernetesObject | undefined | null,
    annotations: Record<string, string>,
    type: EventType,
    reason: string,
    action: string,
    note: string,
    ...args: unknown[]
  ): void {
    this.eventf(regarding, related, type, reason, action, note, ...args);
    this.events[this.events.length - 1].annotations = { ...annotations };
  }

  async flush(): Promise<void> {}

  /** `Normal Reconciled generation 1 reconciled` per event, as a test compares them. */
  lines(): string[] {
    return this.events.map((e) => `${e.type} ${e.reason} ${e.note}`);
  }
}

function formatNote(note: string, args: unknown[]): string {
  let i = 0;
  return note.replace(/%[sdifjoO%]/g, (m) => (m === '%%' ? '%' : i < args.length ? String(args[i++]) : m));
}

/** A reconcile context for calling `reconcile(request, context)` directly: a quiet logger, a fresh reconcileID, a 30 s signal. */
export function reconcileContext(
  options: { logger?: Logger; signal?: AbortSignal; timeoutMs?: number } = {},
): ReconcileContext {
  return {
    signal: options.signal ?? AbortSignal.timeout(options.timeoutMs ?? 30_000),
    logger: options.logger ?? newLogger({ level: 'error' }),
    reconcileID: randomUUID(),
  };
}

/**
 * A manager for tests on `config` (a FakeAPIServer's or a TestEnvironment's): no metrics or probe
 * ports, no leader election, errors-only logs; anything in `options` overrides.
 */
export function newTestManager(config: KubeConfig, options: ManagerOptions = {}): Manager {
  return newManager(config, {
    logger: newLogger({ development: true, level: 'error' }),
    metrics: { bindAddress: '0' },
    healthProbeBindAddress: '0',
    leaderElection: false,
    ...options,
  });
}
