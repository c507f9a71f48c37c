// Registers `kubeforge dev`; the implementation is imported lazily.
import type { Command } from 'commander';
import { DiagnosticError, error } from '../../diagnostics/index.js';
import type { CliContext } from '../context.js';
import { addFlags, type FlagTable, flagValues } from '../flags.js';

/** The flags of `dev`, in the help's order. */
export const DEV_FLAGS = {
  project: { type: 'string', value: '<dir>', default: '.', description: 'project folder' },
  kubeconfig: {
    type: 'string',
    value: '<file>',
    description: 'use the cluster of this kubeconfig instead of starting a local control plane',
  },
  context: {
    type: 'string',
    value: '<name>',
    description: 'the kubeconfig context to use (implies a cluster, not a local control plane)',
  },
  webhookHost: {
    type: 'string',
    value: '<host>',
    default: '127.0.0.1',
    description:
      'host the API server calls the webhooks at; on a remote cluster, an address that reaches this machine (a tunnel or port-forward you run)',
  },
  webhookPort: {
    type: 'string',
    value: '<port>',
    description: 'port of the local webhook server (default: a free port)',
  },
  applySamples: {
    type: 'switch',
    description:
      'apply config/samples (the Kinds of this project) once the manager runs, and again whenever a file there changes',
  },
  typeCheck: {
    type: 'string',
    value: '<mode>',
    default: 'async',
    description:
      "async: restart on each save at once and report type errors when the project's tsc has checked it; strict: restart only on a build that type-checks (a type error keeps the running manager); off: no type-check",
  },
  keep: {
    type: 'switch',
    description:
      'on a remote cluster, leave the CRDs, ClusterRole and webhook configurations dev installed when it stops',
  },
} as const satisfies FlagTable;

export function registerDev(program: Command, ctx: CliContext): void {
  addFlags(
    program
      .command('dev')
      .description(
        'the inner loop: run the manager against a local control plane (or a cluster), webhooks included, and rebuild, re-apply and restart it on every save under src/',
      ),
    DEV_FLAGS,
  )
    .addHelpText(
      'after',
      `
Without --kubeconfig/--context it starts etcd + kube-apiserver (from KUBEBUILDER_ASSETS; see
kubeforge setup-envtest), keeps their data in .kubeforge/dev and writes .kubeforge/dev/kubeconfig
for kubectl. It then runs kubeforge manifests, applies the CRDs, the ClusterRole and the webhook
configurations server-side (webhooks and conversion pointed at https://<webhook-host>:<port>, a
local CA as caBundle), compiles the project with its own tsc into .kubeforge/dev/build and starts
the manager (node .kubeforge/dev/build/src/main.js) as a child process. On each save under src/ it
runs the incremental manifests and tsc, applies the CRDs that changed and restarts the manager; a
manifests or compile error is printed and the previous manager keeps running. Ctrl-C stops the
manager, removes what it created on a remote cluster (unless --keep) and stops the local plane.

Examples:
  $ kubeforge dev                                     # local control plane
  $ kubeforge dev --apply-samples                     # and the samples of config/samples, kept applied
  $ KUBECONFIG=.kubeforge/dev/kubeconfig kubectl get crd   # from another terminal
  $ kubeforge dev --context kind-dev --webhook-host host.docker.internal`,
    )
    .action(async (parsed: Record<string, unknown>) => {
      const opts = flagValues(DEV_FLAGS, parsed);
      let port: number | undefined;
      if (opts.webhookPort !== undefined) {
        port = Number(opts.webhookPort);
        if (!/^\d+$/.test(opts.webhookPort) || port < 1 || port > 65535) {
          throw new DiagnosticError(
            error('KF1407', `invalid --webhook-port "${opts.webhookPort}": expected a port number (1-65535)`, {
              hint: 'e.g. --webhook-port 9443, or leave it out for a free port',
            }),
          );
        }
      }
      const modes = ['async', 'strict', 'off'];
      if (!modes.includes(opts.typeCheck))
        throw new DiagnosticError(
          error('KF1411', `invalid --type-check "${opts.typeCheck}": expected one of ${modes.join(', ')}`, {
            hint: 'e.g. --type-check strict to keep the running manager until a save type-checks',
          }),
        );
      const { runDev } = await import('../../dev/run.js');
      await runDev({ ...opts, webhookPort: port, typeCheck: opts.typeCheck as 'async' | 'strict' | 'off' }, ctx);
    });
}
