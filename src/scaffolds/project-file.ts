/** PROJECT as the scaffolds read it: its typed configuration and where each entry is in its text. */
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { DiagnosticError, error } from '../diagnostics/index.js';
import { parseProject, PROJECT_FILE, type ProjectConfig } from '../project/index.js';
import type { Host } from '../scaffold/index.js';

/** Reads PROJECT, or fails with "run kubeforge init first". */
export function readProject(host: Host, cwd: string): ProjectConfig {
  const text = host.read(PROJECT_FILE)?.toString('utf8');
  if (text === undefined) {
    throw new DiagnosticError(
      error('KF1040', `no ${PROJECT_FILE} file in ${cwd}: this folder is not a kubeforge project`, {
        hint: 'run kubeforge init first (e.g. kubeforge init --domain example.com), or run create api from the project root',
      }),
    );
  }
  return parseProject(text, join(cwd, PROJECT_FILE));
}

/** Where each resource entry starts in the PROJECT text (1-based lines), for located messages. */
export function resourceLines(text: string | undefined): number[] {
  if (text === undefined) return [];
  const doc = parseDocument(text);
  const items = (doc.get('resources', true) as { items?: { range?: [number, number, number] }[] } | undefined)?.items ?? [];
  return items.map((item) => (item.range ? text.slice(0, item.range[0]).split('\n').length : 0));
}
