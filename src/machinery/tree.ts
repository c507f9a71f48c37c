/**
 * The virtual tree: every change a command wants is recorded here first, on top of a host.
 * Nothing is written until {@link commit}. Writing the bytes a file already has is no change,
 * so running a command twice gives an empty second plan.
 */
import { DiagnosticError, error } from '../diagnostics/index.js';
import { type Host, normalizePath } from './host.js';

export type ChangeKind = 'create' | 'update' | 'delete';

export interface Change {
  kind: ChangeKind;
  path: string;
  /** New bytes (create/update). */
  content?: Buffer;
  /** Bytes on the host before (update/delete). */
  previous?: Buffer;
}

/** The new bytes of a create or update (throws for a change that has none). */
export function contentOf(c: Change): Buffer {
  if (!c.content) throw new Error(`kubeforge: ${c.kind} of ${c.path} without its new content`);
  return c.content;
}

/** The bytes before an update or delete (throws for a change that has none). */
export function previousOf(c: Change): Buffer {
  if (!c.previous) throw new Error(`kubeforge: ${c.kind} of ${c.path} without its previous content`);
  return c.previous;
}

export class Tree {
  /** path -> new bytes, or null for a deletion. */
  private readonly pending = new Map<string, Buffer | null>();
  /** Files the command has a version of but leaves as they are (a `kept` spec whose file exists). */
  private readonly keptPaths = new Set<string>();

  constructor(readonly host: Host) {}

  /** Current bytes: the pending change if any, else the host's. */
  read(path: string): Buffer | undefined {
    const p = normalizePath(path);
    if (this.pending.has(p)) return this.pending.get(p) ?? undefined;
    return this.host.read(p);
  }

  readText(path: string): string | undefined {
    return this.read(path)?.toString('utf8');
  }

  /** The text of a file that must exist; a missing one is a KF1104 diagnostic naming it. */
  readTextOrThrow(path: string, hint?: string): string {
    const text = this.readText(path);
    if (text === undefined) {
      throw new DiagnosticError(
        error('KF1104', `${normalizePath(path)} not found in ${this.host.root}`, { file: normalizePath(path), hint }),
      );
    }
    return text;
  }

  exists(path: string): boolean {
    return this.read(path) !== undefined;
  }

  /** Whether the host (not the pending changes) has this file. */
  existsOnHost(path: string): boolean {
    return this.host.read(normalizePath(path)) !== undefined;
  }

  write(path: string, content: string | Buffer): void {
    const p = normalizePath(path);
    const data = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
    const onHost = this.host.read(p);
    if (onHost?.equals(data)) this.pending.delete(p);
    else this.pending.set(p, data);
  }

  delete(path: string): void {
    const p = normalizePath(path);
    if (this.host.read(p) === undefined) this.pending.delete(p);
    else this.pending.set(p, null);
  }

  /** Notes that the command leaves `path` as it is on the host although it has a version of it. */
  keep(path: string): void {
    this.keptPaths.add(normalizePath(path));
  }

  /** The files noted by {@link keep} that the command does not change after all, sorted. */
  kept(): string[] {
    return [...this.keptPaths].filter((p) => !this.pending.has(p)).sort();
  }

  /**
   * The pending writes and deletions (path -> new bytes, or null for a deletion), as a reader of
   * the tree sees them over the host: what a command has planned and not committed yet.
   */
  planned(): ReadonlyMap<string, Buffer | null> {
    return this.pending;
  }

  /** The changes, sorted by path. */
  changes(): Change[] {
    const out: Change[] = [];
    for (const path of [...this.pending.keys()].sort()) {
      const content = this.pending.get(path);
      const previous = this.host.read(path);
      if (content === null) {
        if (previous) out.push({ kind: 'delete', path, previous });
      } else if (content !== undefined) {
        if (previous === undefined) out.push({ kind: 'create', path, content });
        else if (!previous.equals(content)) out.push({ kind: 'update', path, content, previous });
      }
    }
    return out;
  }
}
