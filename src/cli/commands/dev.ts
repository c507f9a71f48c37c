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
  fake: {
    type: 'switch',
    description:
      "run on kubeforge/testing's fake API server in this process instead of etcd + kube-apiserver (no binaries needed; CRDs served, webhooks called)",
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
local CA as caBundle), builds the project with its own tsc into .kubeforge/dev/build and starts
the manager (node .kubeforge/dev/build/src/main.js) as a child process. On each save under src/
(in place or by rename) it transpiles the saved files, runs the incremental manifests, applies the
CRDs that changed and restarts the manager, while the project's tsc type-checks beside it
(--type-check). A syntax or manifests error keeps the running manager and says which build it runs
and since when. Ctrl-C stops the manager, removes what it created on a remote cluster (unless
--keep) and stops the local plane. One kubeforge dev per project.

Examples:
  $ kubeforge dev                                     # local control plane
  $ kubeforge dev --apply-samples                     # and the samples of config/samples, kept applied
  $ kubeforge dev --type-check strict                 # restart only on builds that type-check
  $ kubeforge dev --fake                              # on the fake API server: no etcd or kube-apiserver
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
      if (opts.fake && (opts.kubeconfig !== undefined || opts.context !== undefined))
        throw new DiagnosticError(
          error('KF1412', '--fake runs its own API server: it does not go with --kubeconfig or --context', {
            hint: 'leave out --fake to use that cluster, or the kubeconfig flags to run on the fake API server',
          }),
        );
      const { TYPE_CHECK_MODES } = await import('../../dev/typecheck.js');
      const typeCheck = TYPE_CHECK_MODES.find((m) => m === opts.typeCheck);
      if (!typeCheck)
        throw new DiagnosticError(
          error('KF1411', `invalid --type-check "${opts.typeCheck}": expected one of ${TYPE_CHECK_MODES.join(', ')}`, {
            hint: 'e.g. --type-check strict to keep the running manager until a save type-checks',
          }),
        );
      const { runDev } = await import('../../dev/run.js');
      await runDev({ ...opts, webhookPort: port, typeCheck }, ctx);
    });
}
