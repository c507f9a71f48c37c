import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { packageVersion } from '../../util/package-root.js';

export function registerVersion(program: Command, ctx: CliContext): void {
  program.version(packageVersion(), '-v, --version', 'print the kubeforge version');
  program
    .command('version')
    .description('print the kubeforge version, and the Node.js it runs on')
    .action(() => {
      if (ctx.report) ctx.report.details.version = { kubeforge: packageVersion(), node: process.version };
      else ctx.out(`kubeforge ${packageVersion()} (node ${process.version})\n`);
    });
}
