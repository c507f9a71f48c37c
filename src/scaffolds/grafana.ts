/**
 * The grafana plugin (Kubebuilder's `grafana.kubebuilder.io/v1-alpha`): Grafana dashboards over
 * the metrics kubeforge/runtime exports under controller-runtime's names, written as JSON built
 * here (deterministic: same input, same bytes).
 *
 *  - `grafana/controller-runtime-metrics.json`: reconciles, errors, reconcile time, work queues.
 *  - `grafana/controller-resources-metrics.json`: CPU and memory of the manager process.
 *  - `grafana/custom-metrics/config.yaml`: the user's own metrics (scaffolded once, then theirs);
 *    when it lists some, `grafana/custom-metrics/custom-metrics-dashboard.json` charts them.
 *
 * The dashboards are managed (rewritten by `init` / `edit --plugins grafana`); the config is the user's.
 */
import { parseDocument } from 'yaml';
import { DiagnosticError, error, type Diagnostic } from '../diagnostics/index.js';
import type { FileSpec } from '../machinery/index.js';

export { GRAFANA_PLUGIN } from '../project/index.js';
export const CUSTOM_METRICS_CONFIG = 'grafana/custom-metrics/config.yaml';

interface Target {
  expr: string;
  legendFormat: string;
}

interface PanelSpec {
  title: string;
  description: string;
  unit: string;
  targets: Target[];
}

const JOB = 'job="$job"';

/** Grafana's placeholder for the data source picked when the dashboard is imported (the text `${DS_PROMETHEUS}` itself). */
// biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's import placeholder, written as it is
const DATA_SOURCE_UID = '${DS_PROMETHEUS}';

/** A time-series panel at grid position `i` (two per row). */
function panel(p: PanelSpec, i: number): Record<string, unknown> {
  return {
    datasource: { type: 'prometheus', uid: DATA_SOURCE_UID },
    description: p.description,
    fieldConfig: { defaults: { unit: p.unit }, overrides: [] },
    gridPos: { h: 8, w: 12, x: (i % 2) * 12, y: Math.floor(i / 2) * 8 },
    id: i + 1,
    options: {
      legend: { displayMode: 'list', placement: 'bottom', showLegend: true },
      tooltip: { mode: 'multi', sort: 'desc' },
    },
    targets: p.targets.map((t, j) => ({
      datasource: { type: 'prometheus', uid: DATA_SOURCE_UID },
      expr: t.expr,
      legendFormat: t.legendFormat,
      refId: String.fromCharCode(65 + j),
    })),
    title: p.title,
    type: 'timeseries',
  };
}

function dashboard(title: string, uid: string, panels: PanelSpec[]): string {
  const body = {
    __inputs: [
      {
        name: 'DS_PROMETHEUS',
        label: 'Prometheus',
        type: 'datasource',
        pluginId: 'prometheus',
        pluginName: 'Prometheus',
      },
    ],
    editable: true,
    panels: panels.map(panel),
    refresh: '30s',
    schemaVersion: 39,
    tags: ['kubeforge', 'controller-runtime'],
    templating: {
      list: [
        { name: 'DS_PROMETHEUS', label: 'Data source', type: 'datasource', query: 'prometheus' },
        {
          name: 'job',
          label: 'Job',
          type: 'query',
          datasource: { type: 'prometheus', uid: DATA_SOURCE_UID },
          definition: 'label_values(controller_runtime_reconcile_total, job)',
          query: { query: 'label_values(controller_runtime_reconcile_total, job)', refId: 'job' },
          refresh: 2,
        },
      ],
    },
    time: { from: 'now-1h', to: 'now' },
    title,
    uid,
  };
  return `${JSON.stringify(body, null, 2)}\n`;
}

const quantiles = (metric: string, by: string) =>
  [0.5, 0.9, 0.99].map((q) => ({
    expr: `histogram_quantile(${q}, sum(rate(${metric}_bucket{${JOB}}[5m])) by (${by}, le))`,
    legendFormat: `P${q * 100} {{${by}}}`,
  }));

const RUNTIME_PANELS: PanelSpec[] = [
  {
    title: 'Reconciles per second',
    description:
      'controller_runtime_reconcile_total: reconciles by controller and result (success, error, requeue, requeue_after).',
    unit: 'ops',
    targets: [
      {
        expr: `sum(rate(controller_runtime_reconcile_total{${JOB}}[5m])) by (controller, result)`,
        legendFormat: '{{controller}} {{result}}',
      },
    ],
  },
  {
    title: 'Reconcile errors per second',
    description: 'controller_runtime_reconcile_errors_total and the terminal ones (not retried).',
    unit: 'ops',
    targets: [
      {
        expr: `sum(rate(controller_runtime_reconcile_errors_total{${JOB}}[5m])) by (controller)`,
        legendFormat: '{{controller}} errors',
      },
      {
        expr: `sum(rate(controller_runtime_terminal_reconcile_errors_total{${JOB}}[5m])) by (controller)`,
        legendFormat: '{{controller}} terminal',
      },
    ],
  },
  {
    title: 'Reconcile time',
    description: 'controller_runtime_reconcile_time_seconds: time per reconcile, by controller.',
    unit: 's',
    targets: quantiles('controller_runtime_reconcile_time_seconds', 'controller'),
  },
  {
    title: 'Workers',
    description: 'controller_runtime_active_workers against controller_runtime_max_concurrent_reconciles.',
    unit: 'short',
    targets: [
      { expr: `sum(controller_runtime_active_workers{${JOB}}) by (controller)`, legendFormat: '{{controller}} active' },
      {
        expr: `sum(controller_runtime_max_concurrent_reconciles{${JOB}}) by (controller)`,
        legendFormat: '{{controller}} max',
      },
    ],
  },
  {
    title: 'Work queue depth',
    description: 'workqueue_depth: items waiting, by queue.',
    unit: 'short',
    targets: [{ expr: `sum(workqueue_depth{${JOB}}) by (name)`, legendFormat: '{{name}}' }],
  },
  {
    title: 'Work queue adds and retries per second',
    description: 'workqueue_adds_total and workqueue_retries_total, by queue.',
    unit: 'ops',
    targets: [
      { expr: `sum(rate(workqueue_adds_total{${JOB}}[5m])) by (name)`, legendFormat: '{{name}} adds' },
      { expr: `sum(rate(workqueue_retries_total{${JOB}}[5m])) by (name)`, legendFormat: '{{name}} retries' },
    ],
  },
  {
    title: 'Time in queue',
    description: 'workqueue_queue_duration_seconds: how long an item waits before a worker takes it.',
    unit: 's',
    targets: quantiles('workqueue_queue_duration_seconds', 'name'),
  },
  {
    title: 'Work duration',
    description: 'workqueue_work_duration_seconds: how long a worker holds an item.',
    unit: 's',
    targets: quantiles('workqueue_work_duration_seconds', 'name'),
  },
  {
    title: 'Unfinished work',
    description:
      'workqueue_unfinished_work_seconds and workqueue_longest_running_processor_seconds: a growing line is a stuck reconcile.',
    unit: 's',
    targets: [
      { expr: `sum(workqueue_unfinished_work_seconds{${JOB}}) by (name)`, legendFormat: '{{name}} unfinished' },
      { expr: `max(workqueue_longest_running_processor_seconds{${JOB}}) by (name)`, legendFormat: '{{name}} longest' },
    ],
  },
  {
    title: 'Webhook requests per second',
    description: 'controller_runtime_webhook_requests_total, by path and HTTP code.',
    unit: 'ops',
    targets: [
      {
        expr: `sum(rate(controller_runtime_webhook_requests_total{${JOB}}[5m])) by (webhook, code)`,
        legendFormat: '{{webhook}} {{code}}',
      },
    ],
  },
];

const RESOURCE_PANELS: PanelSpec[] = [
  {
    title: 'CPU usage',
    description: 'process_cpu_seconds_total: CPU time of the manager process, in cores.',
    unit: 'short',
    targets: [{ expr: `sum(rate(process_cpu_seconds_total{${JOB}}[5m])) by (pod)`, legendFormat: '{{pod}}' }],
  },
  {
    title: 'Memory usage',
    description: 'process_resident_memory_bytes and the Node.js heap (nodejs_heap_size_used_bytes).',
    unit: 'bytes',
    targets: [
      { expr: `sum(process_resident_memory_bytes{${JOB}}) by (pod)`, legendFormat: '{{pod}} resident' },
      { expr: `sum(nodejs_heap_size_used_bytes{${JOB}}) by (pod)`, legendFormat: '{{pod}} heap used' },
    ],
  },
  {
    title: 'Event loop lag',
    description: 'nodejs_eventloop_lag_p99_seconds: a busy event loop delays every reconcile.',
    unit: 's',
    targets: [{ expr: `max(nodejs_eventloop_lag_p99_seconds{${JOB}}) by (pod)`, legendFormat: '{{pod}} p99' }],
  },
  {
    title: 'API server requests per second',
    description: 'rest_client_requests_total: requests to the API server, by method and HTTP code.',
    unit: 'ops',
    targets: [
      {
        expr: `sum(rate(rest_client_requests_total{${JOB}}[5m])) by (method, code)`,
        legendFormat: '{{method}} {{code}}',
      },
    ],
  },
];

const CONFIG_TEXT = `# Custom metrics of this operator, charted by grafana/custom-metrics/custom-metrics-dashboard.json.
# List the metrics your code registers (e.g. with prom-client on mgr.getMetricsRegistry()), then run
# \`kubeforge edit --plugins grafana\` to regenerate the dashboard. For each metric:
#   metric: its name (required)
#   type:   counter | gauge | histogram (required)
#   expr:   a PromQL expression to chart instead of the default one (optional)
#   unit:   a Grafana unit such as s, bytes, ops (optional)
#
# customMetrics:
#   - metric: memcached_operator_reconcile_total
#     type: counter
#     unit: ops
#   - metric: memcached_operator_reconcile_duration_seconds
#     type: histogram
customMetrics: []
`;

interface CustomMetric {
  metric: string;
  type: 'counter' | 'gauge' | 'histogram';
  expr?: string;
  unit?: string;
}

/** Reads the custom-metrics config; problems are located diagnostics (KF1071). */
export function parseCustomMetrics(text: string, file = CUSTOM_METRICS_CONFIG): CustomMetric[] {
  const doc = parseDocument(text, { prettyErrors: false });
  const lineOf = (offset: number | undefined) =>
    offset === undefined ? undefined : text.slice(0, offset).split('\n').length;
  const problems: Diagnostic[] = doc.errors.map((e) =>
    error('KF1071', `${file} is not valid YAML: ${e.message.split('\n')[0]}`, { file, line: lineOf(e.pos[0]) }),
  );
  if (problems.length) throw new DiagnosticError(problems);
  const raw = doc.toJS() as { customMetrics?: unknown } | null;
  const list = raw?.customMetrics ?? [];
  const hint =
    'each entry needs `metric: <name>` and `type: counter | gauge | histogram`; see the comment at the top of the file';
  if (!Array.isArray(list))
    throw new DiagnosticError(error('KF1071', `${file}: customMetrics must be a list`, { file, line: 1, hint }));
  const metrics: CustomMetric[] = [];
  list.forEach((m: unknown, i) => {
    const e = m as Record<string, unknown>;
    const line = lineOf(
      (doc.getIn(['customMetrics', i], true) as { range?: [number, number, number] } | undefined)?.range?.[0],
    );
    if (!e || typeof e.metric !== 'string' || !/^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(e.metric)) {
      problems.push(
        error('KF1071', `${file}: customMetrics[${i}].metric must be a Prometheus metric name`, { file, line, hint }),
      );
      return;
    }
    if (e.type !== 'counter' && e.type !== 'gauge' && e.type !== 'histogram') {
      problems.push(
        error(
          'KF1071',
          `${file}: customMetrics[${i}].type must be counter, gauge or histogram (got ${JSON.stringify(e.type)})`,
          { file, line, hint },
        ),
      );
      return;
    }
    for (const k of ['expr', 'unit'] as const) {
      if (e[k] !== undefined && typeof e[k] !== 'string')
        problems.push(error('KF1071', `${file}: customMetrics[${i}].${k} must be a string`, { file, line, hint }));
    }
    metrics.push({
      metric: e.metric,
      type: e.type,
      expr: e.expr as string | undefined,
      unit: e.unit as string | undefined,
    });
  });
  if (problems.length) throw new DiagnosticError(problems);
  return metrics;
}

function customPanel(m: CustomMetric): PanelSpec {
  const unit = m.unit ?? (m.type === 'histogram' ? 's' : m.type === 'counter' ? 'ops' : 'short');
  if (m.expr)
    return {
      title: m.metric,
      description: `${m.type} ${m.metric}`,
      unit,
      targets: [{ expr: m.expr, legendFormat: '{{instance}}' }],
    };
  if (m.type === 'histogram')
    return { title: m.metric, description: `histogram ${m.metric}`, unit, targets: quantiles(m.metric, 'instance') };
  if (m.type === 'counter')
    return {
      title: m.metric,
      description: `rate of counter ${m.metric}`,
      unit,
      targets: [{ expr: `sum(rate(${m.metric}{${JOB}}[5m])) by (instance)`, legendFormat: '{{instance}}' }],
    };
  return {
    title: m.metric,
    description: `gauge ${m.metric}`,
    unit,
    targets: [{ expr: `sum(${m.metric}{${JOB}}) by (instance)`, legendFormat: '{{instance}}' }],
  };
}

/**
 * The plugin's files for a project. `config` is the custom-metrics config as it is (undefined:
 * not scaffolded yet, so the commented template is written).
 */
export function grafanaFiles(projectName: string, config: string | undefined): FileSpec[] {
  const specs: FileSpec[] = [
    // The two fixed dashboards are the user's once written (a JSON file carries no "generated"
    // header to tell an edit from an old version): one that differs is replaced with --force only.
    // The custom-metrics dashboard is made from grafana/custom-metrics/config.yaml, and remade.
    {
      path: 'grafana/controller-runtime-metrics.json',
      policy: 'scaffolded',
      content: dashboard(`${projectName}: controller-runtime`, `${projectName}-runtime`.slice(0, 40), RUNTIME_PANELS),
    },
    {
      path: 'grafana/controller-resources-metrics.json',
      policy: 'scaffolded',
      content: dashboard(`${projectName}: resources`, `${projectName}-resources`.slice(0, 40), RESOURCE_PANELS),
    },
  ];
  if (config === undefined) specs.push({ path: CUSTOM_METRICS_CONFIG, policy: 'scaffolded', content: CONFIG_TEXT });
  const custom = parseCustomMetrics(config ?? CONFIG_TEXT);
  if (custom.length) {
    specs.push({
      path: 'grafana/custom-metrics/custom-metrics-dashboard.json',
      policy: 'managed',
      header: false,
      content: dashboard(
        `${projectName}: custom metrics`,
        `${projectName}-custom`.slice(0, 40),
        custom.map(customPanel),
      ),
    });
  }
  return specs;
}
