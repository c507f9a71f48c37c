/**
 * Hosts: where a virtual tree reads the current files from and where a commit writes them.
 * The engine never touches `fs` itself; it is given a host. `DiskHost` is the real file
 * system below one root folder; `MemoryHost` is a map, for unit tests and dry runs.
 * Paths given to a host are POSIX, relative to its root, without `..`.
 */
import {
  accessSync,
  chmodSync,
  closeSync,
  constants,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  realpathSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, posix, resolve } from 'node:path';
import { DiagnosticError, error } from '../diagnostics/index.js';

export type EntryKind = 'file' | 'directory';

export interface Host {
  /** Shown in messages (absolute folder for disk, `memory:` for memory). */
  readonly root: string;
  /** Bytes of a file, or undefined when there is no file at that path. */
  read(path: string): Buffer | undefined;
  /**
   * The first `length` bytes of a file (all of it when shorter), or undefined when there is no
   * file at that path. Cheap for large files: enough to recognise a header.
   */
  readHead(path: string, length: number): Buffer | undefined;
  /** What is at the path, or undefined. */
  kind(path: string): EntryKind | undefined;
  /** Names in a folder, sorted; empty when it is missing. */
  list(dir: string): string[];
  /**
   * Writes a file, creating the folders above it. A reader sees the old bytes or the new ones,
   * never half a file (the disk host writes a temporary sibling and renames it into place).
   */
  write(path: string, data: Buffer): void;
  /** Removes a file (or an empty folder). */
  remove(path: string): void;
  /**
   * Why `path` could not be written, or undefined when it can. Checked for every change
   * before anything is written, so that a doomed commit fails with the disk untouched.
   */
  whyNotWritable(path: string): string | undefined;
}

/** Normalises a host path: POSIX separators, no leading `./`, rejects absolute and `..` paths. */
export function normalizePath(path: string): string {
  const p = posix.normalize(path.replace(/\\/g, '/'));
  if (p.startsWith('/') || p === '..' || p.startsWith('../')) {
    throw new DiagnosticError(
      error('KF1101', `path "${path}" leaves the project folder, so it cannot be written: nothing was written`, {
        hint: 'a command writes only inside the project: pass a path (an output folder) inside it',
      }),
    );
  }
  return p === '.' ? '' : p.replace(/\/$/, '');
}

/** Every ancestor folder of a path, nearest last (`a/b/c` gives `a`, `a/b`). */
export function parentsOf(path: string): string[] {
  const parts = path.split('/');
  const out: string[] = [];
  for (let i = 1; i < parts.length; i++) out.push(parts.slice(0, i).join('/'));
  return out;
}

/**
 * Test only: milliseconds each disk write waits between writing its temporary file and renaming
 * it into place, so that a test can signal a CLI in the middle of a commit. Read once, here only.
 */
const TEST_COMMIT_DELAY_MS = Number(process.env.KUBEFORGE_TEST_COMMIT_DELAY_MS) || 0;

/** The real file system below `root`. */
export class DiskHost implements Host {
  readonly root: string;
  constructor(root: string) {
    this.root = resolve(root);
  }

  private abs(path: string): string {
    return join(this.root, normalizePath(path));
  }

  read(path: string): Buffer | undefined {
    try {
      return readFileSync(this.abs(path));
    } catch {
      return undefined;
    }
  }

  readHead(path: string, length: number): Buffer | undefined {
    let fd: number | undefined;
    try {
      fd = openSync(this.abs(path), 'r');
      const buf = Buffer.alloc(length);
      const n = readSync(fd, buf, 0, length, 0);
      return n === length ? buf : buf.subarray(0, n);
    } catch {
      return undefined;
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }

  kind(path: string): EntryKind | undefined {
    try {
      const st = statSync(this.abs(path));
      return st.isDirectory() ? 'directory' : 'file';
    } catch {
      return undefined;
    }
  }

  list(dir: string): string[] {
    try {
      return readdirSync(this.abs(dir)).sort();
    } catch {
      return [];
    }
  }

  /**
   * Atomic replacement: the bytes go to a temporary sibling that is renamed over the file, so a
   * reader (kubectl, an editor, a second kubeforge) never sees half a file. An existing file
   * keeps its mode, and a symbolic link keeps pointing where it did (its target is replaced).
   */
  write(path: string, data: Buffer): void {
    const abs = this.abs(path);
    mkdirSync(dirname(abs), { recursive: true });
    let target = abs;
    let mode: number | undefined;
    try {
      if (lstatSync(abs).isSymbolicLink()) target = realpathSync(abs);
      mode = statSync(target).mode & 0o7777;
    } catch {
      // No file yet (or a dangling link, which the rename replaces): default mode.
    }
    const tmp = `${target}.kubeforge-${process.pid}.tmp`;
    try {
      writeFileSync(tmp, data);
      if (mode !== undefined) chmodSync(tmp, mode);
      if (TEST_COMMIT_DELAY_MS > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, TEST_COMMIT_DELAY_MS);
      renameSync(tmp, target);
    } catch (e) {
      rmSync(tmp, { force: true });
      throw e;
    }
  }

  remove(path: string): void {
    const abs = this.abs(path);
    if (this.kind(path) === 'directory') rmdirSync(abs);
    else rmSync(abs, { force: true });
  }

  whyNotWritable(path: string): string | undefined {
    const p = normalizePath(path);
    const kind = this.kind(p);
    if (kind === 'directory') return `${this.abs(p)} is a folder, not a file`;
    // Every ancestor that exists must be a folder.
    let nearest = '';
    for (const parent of parentsOf(p)) {
      const k = this.kind(parent);
      if (k === undefined) break;
      if (k === 'file') return `${this.abs(parent)} is a file, so ${p} cannot be created below it`;
      nearest = parent;
    }
    const folder = join(this.root, nearest);
    if (this.kind('') === undefined && nearest === '') return this.probeAbove(this.root);
    try {
      if (kind === 'file') accessSync(this.abs(p), constants.W_OK);
      accessSync(folder, constants.W_OK);
    } catch (e) {
      return `${kind === 'file' ? this.abs(p) : folder} is not writable (${(e as NodeJS.ErrnoException).code ?? e})`;
    }
    return this.probe(folder);
  }

  private readonly probed = new Map<string, string | undefined>();

  /**
   * access(W_OK) says yes to root even on a read-only file system, so the folder is probed
   * by creating and removing an empty temporary folder (once per folder).
   */
  private probe(folder: string): string | undefined {
    if (this.probed.has(folder)) return this.probed.get(folder);
    let why: string | undefined;
    try {
      rmdirSync(mkdtempSync(join(folder, '.kubeforge-probe-')));
    } catch (e) {
      why = `${folder} is not writable (${(e as NodeJS.ErrnoException).code ?? e})`;
    }
    this.probed.set(folder, why);
    return why;
  }

  private probeAbove(root: string): string | undefined {
    let dir = dirname(root);
    for (;;) {
      try {
        const st = statSync(dir);
        if (!st.isDirectory()) return `${dir} is a file, so ${root} cannot be created`;
        return this.probe(dir);
      } catch {
        const up = dirname(dir);
        if (up === dir) return `no existing folder above ${root}`;
        dir = up;
      }
    }
  }
}

/** Files in a map. `readOnly` paths (files or folders) refuse writes, to test failures. */
export class MemoryHost implements Host {
  readonly root = 'memory:';
  readonly files = new Map<string, Buffer>();
  readonly readOnly = new Set<string>();

  constructor(files: Record<string, string | Buffer> = {}) {
    for (const [path, data] of Object.entries(files)) this.files.set(normalizePath(path), Buffer.from(data));
  }

  read(path: string): Buffer | undefined {
    return this.files.get(normalizePath(path));
  }

  readHead(path: string, length: number): Buffer | undefined {
    const data = this.read(path);
    return data === undefined ? undefined : Buffer.from(data.subarray(0, length));
  }

  kind(path: string): EntryKind | undefined {
    const p = normalizePath(path);
    if (p === '') return 'directory';
    if (this.files.has(p)) return 'file';
    const prefix = `${p}/`;
    for (const k of this.files.keys()) if (k.startsWith(prefix)) return 'directory';
    return undefined;
  }

  list(dir: string): string[] {
    const p = normalizePath(dir);
    const prefix = p === '' ? '' : `${p}/`;
    const names = new Set<string>();
    for (const k of this.files.keys()) if (k.startsWith(prefix)) names.add(k.slice(prefix.length).split('/')[0]);
    return [...names].sort();
  }

  write(path: string, data: Buffer): void {
    const why = this.whyNotWritable(path);
    if (why) throw new Error(why);
    this.files.set(normalizePath(path), Buffer.from(data));
  }

  remove(path: string): void {
    this.files.delete(normalizePath(path));
  }

  whyNotWritable(path: string): string | undefined {
    const p = normalizePath(path);
    if (this.kind(p) === 'directory') return `${p} is a folder, not a file`;
    for (const parent of parentsOf(p)) {
      if (this.files.has(parent)) return `${parent} is a file, so ${p} cannot be created below it`;
    }
    for (const ro of this.readOnly) if (p === ro || p.startsWith(`${ro}/`)) return `${p} is read-only`;
    return undefined;
  }

  /** Text of every file, sorted by path (for assertions). */
  snapshot(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [k, v] of [...this.files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) out[k] = v.toString('utf8');
    return out;
  }
}
