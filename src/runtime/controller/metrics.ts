/**
 * Prometheus metrics with controller-runtime's names and labels, so existing Grafana dashboards
 * and alerts work unchanged. Registered once per prom-client Registry (shared by all controllers
 * of a manager); registering into a registry that already holds an incompatible metric of the
 * same name throws from prom-client.
 */
import { Counter, Gauge, Histogram } from '../client/prom.js';
import type { Registry } from 'prom-client';
import type { Clock } from './clock.js';
import type { WorkQueueMetrics } from './workqueue.js';

const RECONCILE_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5, 1.75,
  2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];
// workqueue durations: 10 ns .. 1000 s, exponential by 10 (as client-go's workqueue metrics).
const QUEUE_BUCKETS = Array.from({ length: 12 }, (_, i) => 1e-8 * 10 ** i);

/** The controller-runtime metric set of one registry. */
export interface ControllerMetrics {
  reconcileTotal: Counter<'controller' | 'result'>;
  reconcileErrors: Counter<'controller'>;
  terminalReconcileErrors: Counter<'controller'>;
  reconcilePanics: Counter<'controller'>;
  handlerErrors: Counter<'controller'>;
  shardDropped: Counter<'controller' | 'reason'>;
  reconcileTimeouts: Counter<'controller'>;
  reconcileTime: Histogram<'controller'>;
  activeWorkers: Gauge<'controller'>;
  maxConcurrentReconciles: Gauge<'controller'>;
  depth: Gauge<'controller' | 'name' | 'priority'>;
  adds: Counter<'controller' | 'name'>;
  queueDuration: Histogram<'controller' | 'name'>;
  workDuration: Histogram<'controller' | 'name'>;
  retries: Counter<'controller' | 'name'>;
  unfinished: Gauge<'controller' | 'name'>;
  longestRunning: Gauge<'controller' | 'name'>;
  /** queue name -> functions listing the start times of keys in process */
  processing: Map<string, { starts: () => Iterable<number>; clock: Clock }>;
}

const perRegistry = new WeakMap<Registry, ControllerMetrics>();

/** Gets (creating on first use) the controller metrics registered in `registry`. */
export function controllerMetrics(registry: Registry): ControllerMetrics {
  let m = perRegistry.get(registry);
  if (m) return m;
  const registers = [registry];
  const processing = new Map<string, { starts: () => Iterable<number>; clock: Clock }>();
  m = { processing, ...reconcileMetrics(registers), ...workqueueMetrics(registers, processing) };
  perRegistry.set(registry, m);
  return m;
}

type WorkqueueMetricNames =
  | 'depth'
  | 'adds'
  | 'queueDuration'
  | 'workDuration'
  | 'retries'
  | 'unfinished'
  | 'longestRunning';

/** controller-runtime's controller_runtime_* metrics (and kubeforge's own per-controller counters). */
function reconcileMetrics(registers: Registry[]): Omit<ControllerMetrics, WorkqueueMetricNames | 'processing'> {
  return {
    reconcileTotal: new Counter({
      name: 'controller_runtime_reconcile_total',
      help: 'Total number of reconciliations per controller',
      labelNames: ['controller', 'result'],
      registers,
    }),
    reconcileErrors: new Counter({
      name: 'controller_runtime_reconcile_errors_total',
      help: 'Total number of reconciliation errors per controller',
      labelNames: ['controller'],
      registers,
    }),
    terminalReconcileErrors: new Counter({
      name: 'controller_runtime_terminal_reconcile_errors_total',
      help: 'Total number of terminal reconciliation errors per controller',
      labelNames: ['controller'],
      registers,
    }),
    handlerErrors: new Counter({
      name: 'kubeforge_event_handler_errors_total',
      help: 'Total number of events an event handler failed to map (an async map function that rejected) per controller',
      labelNames: ['controller'],
      registers,
    }),
    shardDropped: new Counter({
      name: 'kubeforge_shard_requests_dropped_total',
      help: 'Requests a sharded controller did not reconcile: reason="not_owned" (their point is another replica\'s), "unplaced" (uid sharding: the for() object is not in this replica\'s cache)',
      labelNames: ['controller', 'reason'],
      registers,
    }),
    reconcilePanics: new Counter({
      name: 'controller_runtime_reconcile_panics_total',
      help: 'Total number of reconciliation panics per controller',
      labelNames: ['controller'],
      registers,
    }),
    reconcileTimeouts: new Counter({
      name: 'controller_runtime_reconcile_timeouts_total',
      help: 'Total number of reconciliation timeouts per controller',
      labelNames: ['controller'],
      registers,
    }),
    reconcileTime: new Histogram({
      name: 'controller_runtime_reconcile_time_seconds',
      help: 'Length of time per reconciliation per controller',
      labelNames: ['controller'],
      buckets: RECONCILE_BUCKETS,
      registers,
    }),
    activeWorkers: new Gauge({
      name: 'controller_runtime_active_workers',
      help: 'Number of currently used workers per controller',
      labelNames: ['controller'],
      registers,
    }),
    maxConcurrentReconciles: new Gauge({
      name: 'controller_runtime_max_concurrent_reconciles',
      help: 'Maximum number of concurrent reconciles per controller',
      labelNames: ['controller'],
      registers,
    }),
  };
}

/** client-go's workqueue_* metrics; the unfinished-work gauges read `processing` when scraped. */
function workqueueMetrics(
  registers: Registry[],
  processing: ControllerMetrics['processing'],
): Pick<ControllerMetrics, WorkqueueMetricNames> {
  const unfinishedValues = (): [string, number, number][] => {
    const out: [string, number, number][] = [];
    for (const [name, p] of processing) {
      const now = p.clock.now();
      let total = 0;
      let longest = 0;
      for (const s of p.starts()) {
        const d = (now - s) / 1000;
        total += d;
        if (d > longest) longest = d;
      }
      out.push([name, total, longest]);
    }
    return out;
  };
  return {
    depth: new Gauge({
      name: 'workqueue_depth',
      help: 'Current depth of workqueue by workqueue and priority',
      labelNames: ['controller', 'name', 'priority'],
      registers,
    }),
    adds: new Counter({
      name: 'workqueue_adds_total',
      help: 'Total number of adds handled by workqueue',
      labelNames: ['controller', 'name'],
      registers,
    }),
    queueDuration: new Histogram({
      name: 'workqueue_queue_duration_seconds',
      help: 'How long in seconds an item stays in workqueue before being requested',
      labelNames: ['controller', 'name'],
      buckets: QUEUE_BUCKETS,
      registers,
    }),
    workDuration: new Histogram({
      name: 'workqueue_work_duration_seconds',
      help: 'How long in seconds processing an item from workqueue takes',
      labelNames: ['controller', 'name'],
      buckets: QUEUE_BUCKETS,
      registers,
    }),
    retries: new Counter({
      name: 'workqueue_retries_total',
      help: 'Total number of retries handled by workqueue',
      labelNames: ['controller', 'name'],
      registers,
    }),
    unfinished: new Gauge({
      name: 'workqueue_unfinished_work_seconds',
      help: "How many seconds of work has been done that is in progress and hasn't been observed by work_duration. Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.",
      labelNames: ['controller', 'name'],
      registers,
      collect() {
        for (const [name, total] of unfinishedValues()) this.set({ controller: name, name }, total);
      },
    }),
    longestRunning: new Gauge({
      name: 'workqueue_longest_running_processor_seconds',
      help: 'How many seconds has the longest running processor for workqueue been running.',
      labelNames: ['controller', 'name'],
      registers,
      collect() {
        for (const [name, , longest] of unfinishedValues()) this.set({ controller: name, name }, longest);
      },
    }),
  };
}

/**
 * More distinct priorities than this in one queue's depth metric are reported together under
 * `exceeded_cardinality_limit` (controller-runtime: the two priorities it uses, with room to spare).
 */
const MAX_PRIORITY_LABELS = 25;

/**
 * WorkQueueMetrics feeding the workqueue_* metrics for the queue of one controller. With the
 * priority queue (`byPriority`), `workqueue_depth` has one series per priority, as in
 * controller-runtime 0.23+; without it, the `priority` label is empty.
 */
export function workQueueMetrics(registry: Registry, name: string, byPriority = true): WorkQueueMetrics {
  const m = controllerMetrics(registry);
  const labels = { controller: name, name };
  const seen = new Set<number>();
  const priorityLabel = (p: number) => {
    if (seen.size > MAX_PRIORITY_LABELS) return 'exceeded_cardinality_limit';
    seen.add(p);
    return seen.size > MAX_PRIORITY_LABELS ? 'exceeded_cardinality_limit' : String(p);
  };
  if (!byPriority) m.depth.set({ ...labels, priority: '' }, 0);
  // One labelled child per priority, made once: prom-client validates and hashes a label object
  // on every inc, and the depth moves twice per item.
  const depthChildren = new Map<number, ReturnType<typeof m.depth.labels>>();
  const depthOf = (p: number) => {
    let child = depthChildren.get(p);
    if (!child) {
      child = m.depth.labels({ ...labels, priority: priorityLabel(p) });
      depthChildren.set(p, child);
    }
    return child;
  };
  m.adds.inc(labels, 0);
  m.retries.inc(labels, 0);
  const adds = m.adds.labels(labels);
  const queued = m.queueDuration.labels(labels);
  const work = m.workDuration.labels(labels);
  const retries = m.retries.labels(labels);
  return {
    add: () => adds.inc(),
    get: (ms) => queued.observe(ms / 1000),
    done: (ms) => work.observe(ms / 1000),
    retry: () => retries.inc(),
    depth: (n) => {
      if (!byPriority) m.depth.set({ ...labels, priority: '' }, n);
    },
    priorityDepth: byPriority ? (p, delta) => depthOf(p).inc(delta) : undefined,
    trackProcessing: (starts, clock) => m.processing.set(name, { starts, clock }),
  };
}
