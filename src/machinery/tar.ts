/**
 * A deterministic .tgz writer (ustar + gzip), enough for npm package tarballs: regular files
 * only, fixed mtime/owner, sorted entries. Same files in, same bytes out.
 */
import { gzipSync } from 'node:zlib';

export interface TarEntry {
  /** Path inside the archive (POSIX). */
  path: string;
  data: Buffer;
  /** Unix mode; default 0o644. */
  mode?: number;
}

/** npm's own fixed date for reproducible tarballs (1985-10-26T08:15:00Z). */
const MTIME = 499162500;

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

function header(path: string, size: number, mode: number): Buffer {
  const h = Buffer.alloc(512);
  let name = path;
  let prefix = '';
  if (Buffer.byteLength(name) > 100) {
    const cut = path.lastIndexOf('/', path.length - 1);
    // Split at a slash so that name <= 100 and prefix <= 155 bytes.
    let at = -1;
    for (let i = cut; i > 0; i = path.lastIndexOf('/', i - 1)) {
      if (Buffer.byteLength(path.slice(i + 1)) <= 100 && Buffer.byteLength(path.slice(0, i)) <= 155) {
        at = i;
        break;
      }
    }
    if (at < 0) throw new Error(`tar: path too long: ${path}`);
    prefix = path.slice(0, at);
    name = path.slice(at + 1);
  }
  h.write(name, 0, 100, 'utf8');
  h.write(octal(mode, 8), 100, 8, 'ascii');
  h.write(octal(0, 8), 108, 8, 'ascii');
  h.write(octal(0, 8), 116, 8, 'ascii');
  h.write(octal(size, 12), 124, 12, 'ascii');
  h.write(octal(MTIME, 12), 136, 12, 'ascii');
  h.fill(' ', 148, 156);
  h.write('0', 156, 1, 'ascii');
  h.write('ustar\0', 257, 6, 'ascii');
  h.write('00', 263, 2, 'ascii');
  h.write(prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8, 'ascii');
  return h;
}

/**
 * Builds a gzipped tar of the entries, sorted by path. Compression level 1 by default: about
 * 20% bigger than level 9 for npm tarballs, but several times faster (init packs on every run).
 */
export function createTgz(entries: readonly TarEntry[], options: { level?: number } = {}): Buffer {
  const parts: Buffer[] = [];
  for (const e of [...entries].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    parts.push(header(e.path, e.data.length, e.mode ?? 0o644), e.data);
    const pad = (512 - (e.data.length % 512)) % 512;
    if (pad) parts.push(Buffer.alloc(pad));
  }
  parts.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(parts), { level: options.level ?? 1 });
}
