/**
 * Idempotent insertions into files that already exist (main.ts, kustomization.yaml...),
 * anchored on marker comments such as `// +kubebuilder:scaffold:imports`. A fragment goes
 * just above its marker, indented like it; a fragment already present is not inserted again.
 */
import { DiagnosticError, type Diagnostic, error } from '../diagnostics/index.js';
import type { Tree } from './tree.js';

export interface Insertion {
  /** The marker text, e.g. `+kubebuilder:scaffold:imports` (matched anywhere in a line). */
  marker: string;
  /** Lines to insert (without indentation; the marker's is applied). */
  fragment: string;
  /** End the inserted lines with a blank line (to separate blocks such as classes or tests). */
  separate?: boolean;
}

export interface InsertResult {
  text: string;
  changed: boolean;
}

/** Finds the marker line's index, or -1. The marker must end the line's comment text. */
function findMarker(lines: string[], marker: string): number {
  return lines.findIndex((l) => {
    const t = l.trim();
    return t.endsWith(marker) && /^(\/\/|#)\s*\+?/.test(t);
  });
}

/**
 * Applies each insertion in order. A fragment whose lines already appear, in order and
 * contiguous (ignoring indentation), anywhere above its marker is skipped.
 * Throws a KF1201 diagnostic naming `file` when a marker is missing.
 */
export function insertAtMarkers(text: string, insertions: readonly Insertion[], file = '<text>'): InsertResult {
  let lines = text.split('\n');
  let changed = false;
  const missing: string[] = [];
  for (const ins of insertions) {
    const at = findMarker(lines, ins.marker);
    if (at < 0) {
      missing.push(ins.marker);
      continue;
    }
    const fragment = ins.fragment.replace(/\n+$/, '').split('\n');
    if (containsBlock(lines.slice(0, at), fragment)) continue;
    const indent = lines[at].slice(0, lines[at].length - lines[at].trimStart().length);
    const indented = fragment.map((l) => (l.trim() === '' ? '' : indent + l));
    if (ins.separate) indented.push('');
    lines = [...lines.slice(0, at), ...indented, ...lines.slice(at)];
    changed = true;
  }
  if (missing.length) {
    throw new DiagnosticError(
      missing.map((m) =>
        error('KF1201', `insertion marker "${m}" not found in ${file}`, {
          file,
          hint: `kubeforge adds code above the comment "${m}"; put that comment back where new code should go`,
        }),
      ),
    );
  }
  return { text: lines.join('\n'), changed };
}

function containsBlock(lines: string[], block: string[]): boolean {
  const want = block.map((l) => l.trim());
  const have = lines.map((l) => l.trim());
  outer: for (let i = 0; i + want.length <= have.length; i++) {
    for (let j = 0; j < want.length; j++) if (have[i + j] !== want[j]) continue outer;
    return true;
  }
  return false;
}

/**
 * Insertions into one file that must exist (Kubebuilder's machinery.Inserter): its path, what
 * goes above which marker, and the problem said when the file is missing.
 */
export interface FileInserter {
  path: string;
  insertions: readonly Insertion[];
  /** The diagnostic when the file is missing (KF1047 in the scaffolds: the user deleted it). */
  missing: Diagnostic;
}

/**
 * Applies each inserter to its file in the tree; a missing file or marker is a problem pushed to
 * `problems` (all of them collected, so that one run names every file to fix).
 */
export function applyInserters(tree: Tree, inserters: readonly FileInserter[], problems: Diagnostic[]): void {
  for (const ins of inserters) {
    const text = tree.readText(ins.path);
    if (text === undefined) {
      problems.push(ins.missing);
      continue;
    }
    try {
      const result = insertAtMarkers(text, ins.insertions, ins.path);
      if (result.changed) tree.write(ins.path, result.text);
    } catch (e) {
      if (e instanceof DiagnosticError) problems.push(...e.diagnostics);
      else throw e;
    }
  }
}
