// Registers `kubeforge docs`; the implementation is imported lazily.
import type { Command } from 'commander';
import type { CliContext } from '../context.js';

export function registerDocs(program: Command, ctx: CliContext): void {
  program
    .command('docs')
    .description('write the API reference (Markdown, one page per Kind) from the CRDs that manifests wrote')
    .option('--out <dir>', 'folder of the pages, in the project', 'docs/reference')
    .option('--project <dir>', 'project folder', '.')
    .option('--check', 'write nothing; exit 1 and list the pages that would change (for CI drift checks)')
    .option('--dry-run', 'print the plan and write nothing')
    .addHelpText(
      'after',
      `
Reads config/crd/bases (run kubeforge manifests first) and writes <out>/<group>_<plural>.md per
Kind and <out>/README.md: every field with its type, default, bounds, enum, pattern, description
and CEL rules, one section per object type, one part per version, and the printer columns. Pages
carry a "Code generated" header and are replaced on every run; a file without it is never replaced.

Examples:
  $ kubeforge manifests && kubeforge docs
  $ kubeforge docs --check          # CI: exit 1 when the committed reference is stale
  $ kubeforge docs --out site/api`,
    )
    .action(async (opts: { out?: string; project?: string; check?: boolean; dryRun?: boolean }) => {
      const { docsCommand } = await import('../../manifests/docs.js');
      await docsCommand(opts, ctx);
    });
}
