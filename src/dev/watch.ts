/**
 * What `kubeforge dev` watches: the project's src/ folder, every save seen, however it is made.
 *
 * Each folder is watched on its own (`fs.watch` of the folder, not recursive): Linux reports to a
 * folder's watch every file created, written, renamed or deleted in it, by name, whatever inode the
 * name points at. That is what survives an editor's atomic save (write a temporary file, rename it
 * over the original: vim with backupcopy=no, JetBrains' safe write, `sed -i`, most formatters).
 * Node's recursive `fs.watch` on Linux watches each file's inode: after the first rename save of a
 * file, every later save of it went unseen.
 *
 * Written here rather than taken from a library, measured by test/dev/watch.test.ts: chokidar 5
 * (pure JavaScript) also watches files by inode and missed saves after an atomic save (1 to 10 of
 * 20 alternating saves reported, atomic handling on or off); @parcel/watcher is native, with an
 * install script that would warn in every generated project (kubeforge is its dependency).
 *
 * A folder created later is watched as soon as it appears, and the sources already in it reported
 * (a `git checkout` writes a new folder's files before any watch could see them); a folder removed
 * reports its files deleted. Changes are handed over in batches after `debounceMs` of quiet: one
 * save of an editor (often several events), or a checkout of many files, makes one batch. Editors'
 * own files (swap, backup and temporary files) and anything not TypeScript or JSON are ignored.
 */
import { readdirSync, statSync, watch, type FSWatcher } from 'node:fs';
import { basename, join, relative, sep } from 'node:path';

export type SourceChangeKind = 'changed' | 'deleted';

/** One batch: project-relative paths (with '/') and what happened to each, last event wins. */
export type SourceChanges = Map<string, SourceChangeKind>;

/**
 * Editors' temporary, swap and backup files: vim (`.x.ts.swp`, `x.ts~`, its `4913` probe), emacs
 * (`.#x.ts`, `#x.ts#`), JetBrains (`x.ts___jb_tmp___`), VS Code and formatters (`x.ts.tmp`,
 * `.x.ts.12345.tmp`), and dot-files in general.
 */
export function isEditorTemp(file: string): boolean {
  const name = basename(file);
  return (
    name.startsWith('.') ||
    /^#.*#$/.test(name) ||
    name.endsWith('~') ||
    /\.sw[a-p]x?$/.test(name) ||
    name === '4913' ||
    /___jb_(tmp|old|bak)___$/.test(name) ||
    /\.(tmp|bak|orig|rej)$/i.test(name) ||
    /\.crswap$/.test(name)
  );
}

/** The files whose changes rebuild: TypeScript sources (not declarations) and JSON. */
export function isWatchedSource(file: string): boolean {
  return !isEditorTemp(file) && /\.(ts|mts|cts|json)$/.test(file);
}

export interface SourceWatcherOptions {
  projectDir: string;
  /** Folders (relative to the project) to watch. */
  folders: string[];
  debounceMs: number;
  onBatch: (changes: SourceChanges, firstAt: number) => void;
  onError?: (e: Error) => void;
}

export class SourceWatcher {
  /** Watched folders (absolute) and their watches. */
  private readonly folders = new Map<string, FSWatcher>();
  /** Source files known to exist (absolute), to report the files of a removed folder. */
  private readonly known = new Set<string>();
  private pending: SourceChanges = new Map();
  private firstAt = 0;
  private timer?: NodeJS.Timeout;
  private closed = false;

  constructor(readonly options: SourceWatcherOptions) {}

  /** Starts watching every folder there is now (synchronously, so no save after this call is missed). */
  async start(): Promise<void> {
    for (const f of this.options.folders) this.addFolder(join(this.options.projectDir, f), false);
  }

  /** Watches `dir` and the folders under it; `report` reports the sources found as changed (a folder that appeared). */
  private addFolder(dir: string, report: boolean): void {
    if (this.closed || this.folders.has(dir)) return;
    let entries: import('node:fs').Dirent[];
    let w: FSWatcher;
    try {
      w = watch(dir, { persistent: true }, (_event, name) => this.onEvent(dir, name === null ? null : String(name)));
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return; // gone already, or not a folder
    }
    w.on('error', () => this.removeFolder(dir));
    this.folders.set(dir, w);
    for (const e of entries) {
      const path = join(dir, e.name);
      if (e.isDirectory()) {
        if (!ignoredFolder(e.name)) this.addFolder(path, report);
      } else if (this.isSource(path)) {
        this.known.add(path);
        if (report) this.record(path, 'changed');
      }
    }
  }

  /** Stops watching `dir` and everything under it; its known sources are reported deleted. */
  private removeFolder(dir: string): void {
    for (const [d, w] of this.folders) {
      if (d === dir || d.startsWith(`${dir}${sep}`)) {
        w.close();
        this.folders.delete(d);
      }
    }
    for (const f of this.known) {
      if (f.startsWith(`${dir}${sep}`)) {
        this.known.delete(f);
        this.record(f, 'deleted');
      }
    }
  }

  private onEvent(dir: string, name: string | null): void {
    if (this.closed) return;
    if (name === null) {
      // The event names no file: look at the folder again.
      this.rescan(dir);
      return;
    }
    const path = join(dir, name);
    let st: import('node:fs').Stats | undefined;
    try {
      st = statSync(path);
    } catch {
      st = undefined;
    }
    if (st?.isDirectory()) {
      if (!ignoredFolder(name)) this.addFolder(path, true);
      return;
    }
    if (!st && this.folders.has(path)) {
      this.removeFolder(path);
      return;
    }
    if (!this.isSource(path)) return;
    if (st) {
      this.known.add(path);
      this.record(path, 'changed');
    } else if (this.known.delete(path)) {
      this.record(path, 'deleted');
    }
  }

  private rescan(dir: string): void {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      this.removeFolder(dir);
      return;
    }
    for (const n of names) this.onEvent(dir, n);
    for (const f of [...this.known])
      if (f.startsWith(`${dir}${sep}`) && !f.slice(dir.length + 1).includes(sep) && !names.includes(basename(f)))
        this.onEvent(dir, basename(f));
  }

  private isSource(path: string): boolean {
    return isWatchedSource(relative(this.options.projectDir, path).split(sep).join('/'));
  }

  private record(path: string, kind: SourceChangeKind): void {
    if (this.closed) return;
    const rel = relative(this.options.projectDir, path).split(sep).join('/');
    if (this.pending.size === 0) this.firstAt = Date.now();
    this.pending.set(rel, kind);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), this.options.debounceMs);
  }

  private flush(): void {
    if (this.closed || this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    this.options.onBatch(batch, this.firstAt);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.pending.clear();
    for (const w of this.folders.values()) w.close();
    this.folders.clear();
  }
}

/** Folders never watched: dependencies and dot-folders (.git, editors' own). */
function ignoredFolder(name: string): boolean {
  return name === 'node_modules' || name.startsWith('.');
}
