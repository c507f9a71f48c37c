/**
 * Marker uses as the RBAC and webhook generators receive them (typed by the marker table: the
 * analysis validated every argument), and small helpers shared by those generators.
 */
import { error, type Reporter } from '../diagnostics/index.js';
import type { MarkerUse } from '../analysis/analyze.js';

export type { MarkerUse };

/** Reports a located problem with a marker use (its own code). */
export function failAt(reporter: Reporter, code: string, use: MarkerUse, message: string, hint?: string): void {
  reporter.report(error(code, message, { file: use.file, line: use.line, column: use.column, hint }));
}

/** Stable order for marker uses: file, line, column. */
export function bySource(a: MarkerUse, b: MarkerUse): number {
  return (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) || a.line - b.line || a.column - b.column;
}
