/*
Copyright The Kubernetes authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

/**
 * The manager: connects to the cluster, serves health probes and metrics, takes the leader
 * lease or joins a sharding ring when asked, runs the controllers registered below, and shuts
 * down cleanly on SIGTERM / SIGINT. Flags follow Kubebuilder's, so manifests written for a Go operator
 * (config/manager, config/default patches) work unchanged.
 */
import { parseArgs } from 'node:util';
import { getConfigOrDie, healthz, type Logger, newLogger, newManager, newWebhookServer, setupSignalHandler } from 'kubeforge/runtime';
import { startTracing, tracingConfigError } from './tracing.js';
import { setupIssuerWebhookWithManager } from './webhook/v1/issuer_webhook.js';
import { setupCertificateWebhookWithManager } from './webhook/v1/certificate_webhook.js';
// +kubebuilder:scaffold:imports

const usage = `Usage: manager [flags]

  --metrics-bind-address <addr>       address the metrics endpoint binds to: ":8443" (HTTPS) or
                                      ":8080" (HTTP); "0" disables it (default "0")
  --health-probe-bind-address <addr>  address the /healthz and /readyz probes bind to (default ":8081")
  --leader-elect                      enable leader election, so that only one manager is active
  --shard-ring <name>                 shard the manager instead: every replica joins the ring <name>
                                      (a DNS-1123 label, the same on every replica) and reconciles
                                      its share of the objects; not with --leader-elect
  --shard-field <uid|namespace>       what places an object on the ring (default "uid"; "namespace"
                                      keeps each namespace on one replica); needs --shard-ring
  --shard-namespace <ns>              namespace of the ring's member Leases (default: the pod's own;
                                      needed outside a cluster, e.g. make run); needs --shard-ring
  --metrics-secure[=false]            serve metrics over HTTPS with authentication and authorization
                                      (default true; --metrics-secure=false serves plain HTTP)
  --webhook-cert-path <dir>           folder holding the webhook certificate
  --webhook-cert-name <file>          webhook certificate file name (default "tls.crt")
  --webhook-cert-key <file>           webhook key file name (default "tls.key")
  --webhook-port <port>               port the webhook server listens on (default 9443)
  --metrics-cert-path <dir>           folder holding the metrics server certificate
  --metrics-cert-name <file>          metrics server certificate file name (default "tls.crt")
  --metrics-cert-key <file>           metrics server key file name (default "tls.key")
  --enable-http2                      enable HTTP/2 for the metrics and webhook servers (default false)
  --kubeconfig <file>                 kubeconfig to use instead of $KUBECONFIG or ~/.kube/config
  --zap-log-level <level>             debug, info, error, panic, or an integer > 0 for more verbosity
                                      (default info; debug with --zap-devel)
  --zap-devel                         development logging: human-readable and level debug (default false)
  --zap-encoder <json|console>        log format (default json; console with --zap-devel)
  -h, --help                          print this help

Environment:
  OTEL_EXPORTER_OTLP_ENDPOINT         export OpenTelemetry traces over OTLP/HTTP to this collector
                                      (e.g. http://otel-collector:4318); unset, nothing is traced.
                                      OTEL_SERVICE_NAME, OTEL_TRACES_SAMPLER and the other OTEL_*
                                      variables of src/tracing.ts are read too
`;

const BOOLEAN_FLAGS = new Set(['leader-elect', 'metrics-secure', 'enable-http2', 'zap-devel']);

/** Accepts Go-style `--flag=true|false` for boolean flags, as Kubebuilder's manager does. */
function normaliseArgs(args: string[]): string[] {
  return args.map((arg) => {
    const m = /^--([a-z0-9-]+)=(true|false)$/.exec(arg);
    if (!m || !BOOLEAN_FLAGS.has(m[1])) return arg;
    return m[2] === 'true' ? `--${m[1]}` : `--no-${m[1]}`;
  });
}

function parseFlags(argv: string[]) {
  const { values } = parseArgs({
    args: normaliseArgs(argv),
    allowNegative: true,
    strict: true,
    options: {
      'metrics-bind-address': { type: 'string', default: '0' },
      'health-probe-bind-address': { type: 'string', default: ':8081' },
      'leader-elect': { type: 'boolean', default: false },
      'shard-ring': { type: 'string' },
      'shard-field': { type: 'string' },
      'shard-namespace': { type: 'string' },
      'metrics-secure': { type: 'boolean', default: true },
      'webhook-cert-path': { type: 'string', default: '' },
      'webhook-cert-name': { type: 'string', default: 'tls.crt' },
      'webhook-cert-key': { type: 'string', default: 'tls.key' },
      'webhook-port': { type: 'string', default: '9443' },
      'metrics-cert-path': { type: 'string', default: '' },
      'metrics-cert-name': { type: 'string', default: 'tls.crt' },
      'metrics-cert-key': { type: 'string', default: 'tls.key' },
      'enable-http2': { type: 'boolean', default: false },
      kubeconfig: { type: 'string' },
      'zap-log-level': { type: 'string' },
      'zap-devel': { type: 'boolean', default: false },
      'zap-encoder': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  return values;
}

/**
 * `--shard-ring`, `--shard-field` and `--shard-namespace` as the manager's `sharding` option
 * (docs/scaling.md in kubeforge), undefined without them, or the usage error to print.
 */
function shardingOf(flags: ReturnType<typeof parseFlags>): { ring: string; field: 'uid' | 'namespace'; namespace?: string } | undefined | string {
  const ring = flags['shard-ring'];
  const field = flags['shard-field'];
  const namespace = flags['shard-namespace'];
  if (field !== undefined && field !== 'uid' && field !== 'namespace') {
    return `invalid --shard-field "${field}": expected uid or namespace`;
  }
  if (ring === undefined) {
    if (field !== undefined) return '--shard-field needs --shard-ring <name>: it says how the ring splits the objects';
    if (namespace !== undefined) return '--shard-namespace needs --shard-ring <name>: it says where the ring keeps its Leases';
    return undefined;
  }
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(ring) || ring.length > 63) {
    return `invalid --shard-ring "${ring}": expected a DNS-1123 label (lower-case letters, digits and '-', at most 63), e.g. --shard-ring=project-v4`;
  }
  if (flags['leader-elect']) {
    return '--shard-ring and --leader-elect are alternatives: a sharded manager runs on every replica, each on its share of the objects; drop --leader-elect';
  }
  return { ring, field: field ?? 'uid', ...(namespace ? { namespace } : {}) };
}

async function main(): Promise<void> {
  let flags: ReturnType<typeof parseFlags>;
  try {
    flags = parseFlags(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${usage}`);
    process.exitCode = 2;
    return;
  }
  if (flags.help) {
    process.stdout.write(usage);
    return;
  }
  const webhookPort = Number(flags['webhook-port']);
  if (!/^\d+$/.test(flags['webhook-port']) || webhookPort < 1 || webhookPort > 65535) {
    process.stderr.write(`invalid --webhook-port "${flags['webhook-port']}": expected a port number (1-65535)\n\n${usage}`);
    process.exitCode = 2;
    return;
  }
  const sharding = shardingOf(flags);
  if (typeof sharding === 'string') {
    process.stderr.write(`${sharding}\n\n${usage}`);
    process.exitCode = 2;
    return;
  }
  let logger: Logger;
  try {
    // As controller-runtime's zap.Options bound to the flags: JSON at info by default.
    logger = newLogger({
      development: flags['zap-devel'],
      level: flags['zap-log-level'],
      encoder: flags['zap-encoder'] as 'json' | 'console' | undefined,
    });
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n\n${usage}`);
    process.exitCode = 2;
    return;
  }
  const tracingError = tracingConfigError();
  if (tracingError) {
    process.stderr.write(`${tracingError}\n`);
    process.exitCode = 2;
    return;
  }
  // OpenTelemetry traces when OTEL_EXPORTER_OTLP_ENDPOINT is set (src/tracing.ts); else no SDK is loaded.
  const stopTracing = await startTracing();
  const mgr = newManager(getConfigOrDie({ kubeconfig: flags.kubeconfig }), {
    logger,
    metrics: {
      bindAddress: flags['metrics-bind-address'],
      secureServing: flags['metrics-secure'],
      certDir: flags['metrics-cert-path'],
      certName: flags['metrics-cert-name'],
      keyName: flags['metrics-cert-key'],
      enableHttp2: flags['enable-http2'],
    },
    healthProbeBindAddress: flags['health-probe-bind-address'],
    leaderElection: flags['leader-elect'],
    leaderElectionID: 'e0854730.testproject.org',
    // --shard-ring: every replica reconciles its share of the objects, instead of one elected
    // replica all of them; the replicas find each other through Leases in their namespace.
    sharding,
    // Serves the webhooks `kubeforge create webhook` registers below (it only starts when some
    // are), with the certificate config/default mounts (--webhook-cert-path); without that flag
    // it looks in $TMPDIR/k8s-webhook-server/serving-certs.
    webhookServer: newWebhookServer({
      port: webhookPort,
      certDir: flags['webhook-cert-path'] || undefined,
      certName: flags['webhook-cert-name'],
      keyName: flags['webhook-cert-key'],
      enableHttp2: flags['enable-http2'],
    }),
  });
  const setupLog = mgr.getLogger().child({ logger: 'setup' });

  if (process.env.ENABLE_WEBHOOKS !== 'false') setupIssuerWebhookWithManager(mgr);
  if (process.env.ENABLE_WEBHOOKS !== 'false') setupCertificateWebhookWithManager(mgr);
  // +kubebuilder:scaffold:builder

  mgr.addHealthzCheck('healthz', healthz.ping);
  mgr.addReadyzCheck('readyz', healthz.ping);
  // Ready once the webhook server serves (at once when there are no webhooks).
  mgr.addReadyzCheck('webhook', mgr.getWebhookServer().startedChecker());

  setupLog.info('starting manager');
  // Resolves once SIGTERM or SIGINT has stopped every controller and server.
  await mgr.start(setupSignalHandler());
  setupLog.info('manager stopped');
  // Exports the spans still queued.
  await stopTracing?.();
}

main().catch((err: unknown) => {
  console.error('setup: problem running manager:', err instanceof Error ? err.message : err);
  process.exit(1); // at once, as Kubebuilder's os.Exit(1): no reconcile goes on after a lost lease
});
