/**
 * Commit: checks that every change can be written, then writes them all. When a write still
 * fails halfway (disk full, a race), what was already written is put back, so a failed
 * command leaves the folder as it found it.
 */
import { DiagnosticError, error } from '../diagnostics/index.js';
import { type Host, parentsOf } from './host.js';
import { type Change, contentOf, previousOf } from './tree.js';

/** Problems that would stop the commit, as KF1101 diagnostics (empty when it can go ahead). */
export function validateChanges(host: Host, changes: readonly Change[]) {
  const problems = [];
  for (const c of changes) {
    const why = host.whyNotWritable(c.path);
    if (why) {
      problems.push(
        error('KF1101', `cannot ${c.kind} ${c.path}: ${why}`, {
          hint: 'nothing was written; fix the permissions or the conflicting path and run the command again',
        }),
      );
    }
  }
  return problems;
}

/** What a commit did, so that {@link revert} can undo it. */
export interface Committed {
  changes: readonly Change[];
  /** Folders the commit created (they did not exist before), deepest last. */
  createdDirs: string[];
}

/**
 * Puts back what `done` changed (newest first): created files removed, updated ones rewritten
 * with their previous bytes, deleted ones restored; then the folders the commit created are
 * removed when empty. Returns the paths it could not restore.
 */
export function revert(host: Host, done: Committed): string[] {
  const failures: string[] = [];
  for (const c of [...done.changes].reverse()) {
    try {
      if (c.kind === 'create') host.remove(c.path);
      else host.write(c.path, previousOf(c));
    } catch {
      failures.push(c.path);
    }
  }
  for (const d of [...done.createdDirs].sort().reverse()) {
    try {
      if (host.list(d).length === 0) host.remove(d);
    } catch {
      /* leave it */
    }
  }
  return failures;
}

export interface CommitOptions {
  /**
   * Paths written after every other change (and so restored first by {@link revert}): a file
   * that names others, such as a project's index, so that a process killed part way (SIGKILL,
   * power loss) never leaves it naming files that are not there yet.
   */
  last?: readonly string[];
}

/** The folders a commit of `changes` creates (parents first), for a rollback to remove. */
export function foldersToCreate(host: Host, changes: readonly { kind: string; path: string }[]): string[] {
  const created: string[] = [];
  const seen = new Set<string>();
  for (const c of changes) {
    if (c.kind === 'delete') continue;
    for (const d of parentsOf(c.path)) {
      if (seen.has(d)) continue;
      seen.add(d);
      if (host.kind(d) === undefined) created.push(d);
    }
  }
  return created;
}

/**
 * Validates every change, then applies them; throws DiagnosticError with the disk unchanged.
 * Returns what it did, for {@link revert} (a later step of the command failed).
 */
export function commit(host: Host, changes: readonly Change[], options: CommitOptions = {}): Committed {
  if (options.last?.length) {
    const last = new Set(options.last);
    changes = [...changes.filter((c) => !last.has(c.path)), ...changes.filter((c) => last.has(c.path))];
  }
  const problems = validateChanges(host, changes);
  if (problems.length) throw new DiagnosticError(problems);

  const createdDirs = foldersToCreate(host, changes);
  const done: Change[] = [];
  try {
    for (const c of changes) {
      if (c.kind === 'delete') host.remove(c.path);
      else host.write(c.path, contentOf(c));
      done.push(c);
    }
  } catch (e) {
    const rollbackFailures = revert(host, { changes: done, createdDirs });
    throw new DiagnosticError(
      error('KF1102', `writing failed: ${(e as Error).message}`, {
        hint: rollbackFailures.length
          ? `could not restore: ${rollbackFailures.join(', ')}`
          : 'the files already written were restored; nothing changed',
      }),
    );
  }
  return { changes, createdDirs };
}
