import { cpSync } from 'node:fs';
import { join } from 'node:path';

/**
 * What a kubeforge needs to run from a folder of its own (an "old kubeforge" a test edits): the
 * manifest, the CLI, the built libraries, its CEL (package.json "imports" maps `#cel` into
 * packages/cel/dist) and the templates. node_modules is the caller's to link.
 */
export const KUBEFORGE_RUN_FILES = [
  'package.json',
  'bin',
  'dist',
  'packages/cel/package.json',
  'packages/cel/dist',
  'templates',
  'README.md',
  'LICENSE',
];

/** Copies {@link KUBEFORGE_RUN_FILES} of the kubeforge at `repo` into `to`. */
export function copyKubeforge(repo: string, to: string): void {
  for (const f of KUBEFORGE_RUN_FILES) cpSync(join(repo, f), join(to, f), { recursive: true });
}
