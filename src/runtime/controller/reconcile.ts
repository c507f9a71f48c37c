/**
 * The reconcile contract (controller-runtime's pkg/reconcile): a Request names one object, the
 * Reconciler brings the world in line with it and says whether to come back.
 */
import type { Logger } from 'pino';

/** Which object to reconcile. `namespace` is '' for cluster-scoped objects. */
export interface Request {
  namespace: string;
  name: string;
  /**
   * The cluster the object lives in (multicluster-runtime's `mcreconcile.Request.ClusterName`):
   * set by the controllers of a multi-cluster manager (kubeforge/runtime/multicluster) to the name
   * its provider engaged the cluster under; '' or absent is the manager's own (host) cluster.
   * Reach that cluster with `mgr.getCluster(req.clusterName)`.
   */
  clusterName?: string;
}

/**
 * What a reconcile asks for next:
 * - `requeueAfterSeconds` > 0: run again after that many seconds (fractions allowed: 0.5 is
 *   500 ms); the failure history is forgotten;
 * - `requeue: true`: run again after the rate limiter's back-off;
 * - neither (or `void`): done until the next event.
 * A controller whose reconciles keep asking to come back within a second logs one warning.
 */
export interface Result {
  requeue?: boolean;
  /** Run again after this many seconds (controller-runtime's `RequeueAfter: 60 * time.Second` is `requeueAfterSeconds: 60`). */
  requeueAfterSeconds?: number;
  /**
   * The priority of the requeue this result asks for, and of the retry after an error (higher runs
   * first); unset keeps the priority the request was queued with (controller-runtime's
   * Result.Priority).
   */
  priority?: number;
}

/** The delay a Result asks for, in milliseconds (0 or less: none). */
export function requeueDelayMs(result: Result | void | undefined): number {
  if (!result) return 0;
  if (typeof result.requeueAfterSeconds === 'number') return result.requeueAfterSeconds * 1000;
  return 0;
}

/**
 * Result fields kubeforge no longer reads, each with what replaced it. TypeScript refuses them in
 * a `Result`; a JavaScript reconciler (or one that casts) that still returns one must not be
 * taken for "done" in silence.
 */
const REMOVED_RESULT_FIELDS: Readonly<Record<string, (value: unknown) => string>> = {
  requeueAfterMs: (v) =>
    `return { requeueAfterSeconds: ${typeof v === 'number' ? v / 1000 : '<seconds>'} } instead ` +
    "(requeueAfterMs was removed; the delay is in seconds, as controller-runtime's RequeueAfter)",
};

/**
 * Throws a TypeError naming the field and its replacement when `result` carries a removed field.
 * The controller calls it on every result, so the error is handled as a TypeError the reconciler
 * threw, a panic (a programming error): logged with the controller and the request, counted in
 * controller_runtime_reconcile_panics_total, and the request requeued with back-off (with
 * `recoverPanic: false`, the controller stops).
 */
export function checkResult(result: Result | void | undefined): void {
  if (!result || typeof result !== 'object') return;
  for (const [field, fix] of Object.entries(REMOVED_RESULT_FIELDS)) {
    if (!(field in result)) continue;
    const value = (result as Record<string, unknown>)[field];
    throw new TypeError(`reconcile returned { ${field}: ${String(value)} }: ${fix(value)}`);
  }
}

/** Per-reconcile context. */
export interface ReconcileContext {
  /**
   * Aborts when the controller shuts down; the reconcile is still awaited (bounded by the
   * manager's grace period). Pass it to client calls (`client.get(T, key, { signal })`,
   * `client.update(obj, { signal })`) so that their requests stop too.
   */
  signal: AbortSignal;
  /**
   * pino child logger carrying controller-runtime's keys: controller, controllerGroup,
   * controllerKind, the object under its kind (`{ Memcached: { name, namespace } }`), namespace,
   * name and reconcileID.
   */
  logger: Logger;
  /** A fresh UUID per reconcile call. */
  reconcileID: string;
}

/** A reconcile function. Throwing requeues with back-off (unless it is a TerminalError). */
export type ReconcileFunc = (request: Request, ctx: ReconcileContext) => Promise<Result | void> | Result | void;

/** An object with a reconcile method (what `kubeforge create api` scaffolds). */
export interface ReconcilerObject {
  reconcile(request: Request, ctx: ReconcileContext): Promise<Result | void> | Result | void;
}

/** Either form of reconciler. */
export type Reconciler = ReconcileFunc | ReconcilerObject;

/**
 * An error that retrying cannot fix (controller-runtime's reconcile.TerminalError): it is logged
 * and counted (controller_runtime_terminal_reconcile_errors_total) but the request is not
 * requeued; the next event for the object triggers a new reconcile.
 */
export class TerminalError extends Error {
  constructor(message: string | Error, options?: { cause?: unknown }) {
    super(typeof message === 'string' ? message : message.message, {
      cause: options?.cause ?? (typeof message === 'string' ? undefined : message),
    });
    this.name = 'TerminalError';
  }
}

/** True for a TerminalError (or an error whose cause chain holds one). */
export function isTerminalError(err: unknown): boolean {
  for (let e = err, depth = 0; e && depth < 10; e = (e as { cause?: unknown }).cause, depth++)
    if (e instanceof TerminalError) return true;
  return false;
}

/**
 * `namespace/name` (or `name`): the work queue key of a request; in another cluster than the host,
 * `cluster://<clusterName>/` before it (as multicluster-runtime prints a request), so the same
 * object name in two clusters is two items.
 */
export function requestKey(r: Request): string {
  const key = r.namespace ? `${r.namespace}/${r.name}` : r.name;
  return r.clusterName ? `cluster://${r.clusterName}/${key}` : key;
}

/** Calls either form of reconciler. */
export function callReconciler(
  r: Reconciler,
  req: Request,
  ctx: ReconcileContext,
): Promise<Result | void> | Result | void {
  return typeof r === 'function' ? r(req, ctx) : r.reconcile(req, ctx);
}
