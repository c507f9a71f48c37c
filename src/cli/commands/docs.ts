// Registers `kubeforge docs`; the implementation is imported lazily.
import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { addFlags, type FlagTable, flagValues } from '../flags.js';

export const DOCS_FLAGS = {
  out: {
    type: 'string',
    value: '<dir>',
    default: 'docs/reference',
    description: 'folder of the pages, in the project',
  },
  project: { type: 'string', value: '<dir>', default: '.', description: 'project folder' },
  check: {
    type: 'switch',
    description: 'write nothing; exit 1 and list the pages that would change (for CI drift checks)',
  },
  dryRun: { type: 'switch', description: 'print the plan and write nothing' },
} as const satisfies FlagTable;

export function registerDocs(program: Command, ctx: CliContext): void {
  addFlags(
    program
      .command('docs')
      .description('write the API reference (Markdown, one page per Kind) from the CRDs that manifests wrote'),
    DOCS_FLAGS,
  )
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
    .action(async (opts: Record<string, unknown>) => {
      const { docsCommand } = await import('../../manifests/docs.js');
      await docsCommand(flagValues(DOCS_FLAGS, opts), ctx);
    });
}
