// `kubeforge setup-envtest`: provisions etcd + kube-apiserver for kubeforge/testing and prints
// their folder (KUBEBUILDER_ASSETS), as controller-runtime's `setup-envtest use -p path`.
import { type Command, Option } from 'commander';
import { type CliContext, UsageError } from '../context.js';

export function registerSetupEnvtest(program: Command, ctx: CliContext): void {
  program
    .command('setup-envtest')
    .description('download (or build) the etcd and kube-apiserver the tests run against, and print their folder')
    .argument('[version]', 'Kubernetes version: 1.34.1, 1.34 or 1.34.x (default: env ENVTEST_K8S_VERSION, else the newest release of the Kubernetes minor @kubernetes/client-node is generated from)')
    .option('--bin-dir <dir>', 'cache folder (default: ${XDG_CACHE_HOME:-~/.cache}/kubeforge/envtest)')
    .option('--index <url>', "release index (default: env KUBEFORGE_ENVTEST_INDEX, else controller-tools' envtest-releases.yaml)")
    .addOption(new Option('--source <source>', 'auto: download, or build from Debian sources on Linux when nothing can be downloaded').choices(['auto', 'download', 'debian']).default('auto'))
    .option('--os <os>', 'GOOS of the binaries (default: this machine)')
    .option('--arch <arch>', 'GOARCH of the binaries (default: this machine)')
    .addHelpText(
      'after',
      `
The last line printed is the folder: use it as KUBEBUILDER_ASSETS. Progress goes to stderr.
Downloads are checked against the sha512 the index lists and cached per version; a version
named exactly and already cached needs no network.

Examples:
  $ export KUBEBUILDER_ASSETS="$(kubeforge setup-envtest | tail -n 1)"
  $ kubeforge setup-envtest 1.33            # the newest 1.33.x
  $ kubeforge setup-envtest --source debian # build from Debian's sources (root; no download)`,
    )
    .action(async (version: string | undefined, opts: { binDir?: string; index?: string; source: 'auto' | 'download' | 'debian'; os?: string; arch?: string }) => {
      const { setupEnvtest, SetupEnvtestError } = await import('../../envtest/setup.js');
      const goos: Record<string, NodeJS.Platform> = { linux: 'linux', darwin: 'darwin', windows: 'win32', freebsd: 'freebsd' };
      const goarch: Record<string, string> = { amd64: 'x64', arm64: 'arm64', '386': 'ia32', ppc64le: 'ppc64', s390x: 's390x' };
      if (opts.os !== undefined && !goos[opts.os]) throw new UsageError(`unknown --os ${opts.os}`, `one of ${Object.keys(goos).join(', ')}`);
      if (opts.arch !== undefined && !goarch[opts.arch]) throw new UsageError(`unknown --arch ${opts.arch}`, `one of ${Object.keys(goarch).join(', ')}`);
      try {
        const result = await setupEnvtest({
          version,
          dir: opts.binDir,
          indexUrl: opts.index,
          source: opts.source,
          platform: opts.os ? goos[opts.os] : undefined,
          arch: opts.arch ? goarch[opts.arch] : undefined,
          log: (line) => ctx.err(`setup-envtest: ${line}\n`),
        });
        ctx.out(`${result.dir}\n`);
      } catch (e) {
        if (e instanceof SetupEnvtestError) throw new UsageError(e.message, e.hint);
        throw e;
      }
    });
}
