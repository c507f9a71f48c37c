// `kubeforge setup-envtest`: provisions etcd + kube-apiserver for kubeforge/testing and prints
// their folder (KUBEBUILDER_ASSETS), as controller-runtime's `setup-envtest use -p path`.
import type { Command } from 'commander';
import { DEFAULT_K8S_MINOR } from '../../envtest/version.js';
import { type CliContext, UsageError } from '../context.js';
import { addFlags, type FlagTable, flagValues } from '../flags.js';

/** The flags of `setup-envtest`, in the help's order. */
export const SETUP_ENVTEST_FLAGS = {
  binDir: {
    type: 'string',
    value: '<dir>',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell syntax shown to the user, not a template
    description: 'cache folder (default: ${XDG_CACHE_HOME:-~/.cache}/kubeforge/envtest)',
  },
  index: {
    type: 'string',
    value: '<url>',
    description: "release index (default: env KUBEFORGE_ENVTEST_INDEX, else controller-tools' envtest-releases.yaml)",
  },
  source: {
    type: 'string',
    value: '<source>',
    choices: ['auto', 'download', 'go', 'debian'],
    default: 'auto',
    description:
      'auto: KUBEBUILDER_ASSETS, else download, else build from Go modules (go on PATH), else the legacy v1.20 Debian build',
  },
  os: { type: 'string', value: '<os>', description: 'GOOS of the binaries (default: this machine)' },
  arch: { type: 'string', value: '<arch>', description: 'GOARCH of the binaries (default: this machine)' },
} as const satisfies FlagTable;

export function registerSetupEnvtest(program: Command, ctx: CliContext): void {
  addFlags(
    program
      .command('setup-envtest')
      .description('download (or build) the etcd and kube-apiserver the tests run against, and print their folder')
      .argument(
        '[version]',
        `Kubernetes version: 1.37.2, 1.37 or 1.37.x (default: env ENVTEST_K8S_VERSION, else the newest ${DEFAULT_K8S_MINOR}.x)`,
      ),
    SETUP_ENVTEST_FLAGS,
  )
    .addHelpText(
      'after',
      `
The last line printed is the folder: use it as KUBEBUILDER_ASSETS. Progress goes to stderr.
Downloads are checked against the sha512 the index lists and cached per version; a version
named exactly and already cached needs no network. Where nothing can be downloaded and Go 1.21+
is on PATH, kube-apiserver and etcd are built from Go modules (about 10 minutes the first time on
2 cores, cached per version). KUBEBUILDER_ASSETS, when it holds both binaries (of the requested
minor, if one is named), is used as it is.

Examples:
  $ export KUBEBUILDER_ASSETS="$(kubeforge setup-envtest | tail -n 1)"
  $ kubeforge setup-envtest 1.35            # the newest 1.35.x
  $ kubeforge setup-envtest --source go     # build from Go modules (no download)
  $ kubeforge setup-envtest --source debian # the legacy v1.20 build from Debian's sources (root)`,
    )
    .action(async (version: string | undefined, parsed: Record<string, unknown>) => {
      const opts = flagValues(SETUP_ENVTEST_FLAGS, parsed);
      const { setupEnvtest, SetupEnvtestError } = await import('../../envtest/setup.js');
      const goos: Record<string, NodeJS.Platform> = {
        linux: 'linux',
        darwin: 'darwin',
        windows: 'win32',
        freebsd: 'freebsd',
      };
      const goarch: Record<string, string> = {
        amd64: 'x64',
        arm64: 'arm64',
        '386': 'ia32',
        ppc64le: 'ppc64',
        s390x: 's390x',
      };
      if (opts.os !== undefined && !goos[opts.os])
        throw new UsageError(`unknown --os ${opts.os}`, `one of ${Object.keys(goos).join(', ')}`);
      if (opts.arch !== undefined && !goarch[opts.arch])
        throw new UsageError(`unknown --arch ${opts.arch}`, `one of ${Object.keys(goarch).join(', ')}`);
      try {
        const result = await setupEnvtest({
          version,
          dir: opts.binDir,
          indexUrl: opts.index,
          source: opts.source,
          assets: process.env.KUBEBUILDER_ASSETS || undefined,
          platform: opts.os ? goos[opts.os] : undefined,
          arch: opts.arch ? goarch[opts.arch] : undefined,
          log: (line) => ctx.err(`setup-envtest: ${line}\n`),
        });
        if (ctx.report) ctx.report.details.assets = result.dir;
        else ctx.out(`${result.dir}\n`);
      } catch (e) {
        if (e instanceof SetupEnvtestError) throw new UsageError(e.message, e.hint);
        throw e;
      }
    });
}
