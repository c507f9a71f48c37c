/** The printed plan of a command: one sorted line per change. */
import { isUtf8 } from 'node:buffer';
import { countChanges } from './diff.js';
import { type Change, contentOf, previousOf } from './tree.js';

const ansi = (on: boolean, code: string) => (s: string) => (on ? `\u001b[${code}m${s}\u001b[0m` : s);

/** Binary when it holds a NUL byte or is not valid UTF-8. */
export function isBinary(data: Buffer): boolean {
  return data.includes(0) || !isUtf8(data);
}

/**
 * Lines of a text file's bytes, as `splitLines` (diff.ts) counts them (a final newline makes no
 * extra line), without decoding it: a LF byte never occurs inside a multi-byte UTF-8 character.
 */
export function countLines(data: Buffer): number {
  let n = 0;
  for (let i = data.indexOf(10); i >= 0; i = data.indexOf(10, i + 1)) n++;
  return data.length > 0 && data[data.length - 1] !== 10 ? n + 1 : n;
}

function size(data: Buffer): string {
  return data.length >= 1024 ? `${(data.length / 1024).toFixed(1)} KiB` : `${data.length} bytes`;
}

/** `CREATE path (+N lines)`, `UPDATE path (+a -b lines)`, `DELETE path (-N lines)`. */
export function describeChange(c: Change): string {
  const plural = (n: number) => (n === 1 ? 'line' : 'lines');
  switch (c.kind) {
    case 'create': {
      const content = contentOf(c);
      if (isBinary(content)) return `CREATE ${c.path} (binary, ${size(content)})`;
      const n = countLines(content);
      return `CREATE ${c.path} (+${n} ${plural(n)})`;
    }
    case 'update': {
      const content = contentOf(c);
      const previous = previousOf(c);
      if (isBinary(content) || isBinary(previous)) return `UPDATE ${c.path} (binary, ${size(content)})`;
      const { added, removed } = countChanges(previous.toString('utf8'), content.toString('utf8'));
      return `UPDATE ${c.path} (+${added} -${removed} ${plural(Math.max(added, removed))})`;
    }
    case 'delete': {
      const previous = previousOf(c);
      if (isBinary(previous)) return `DELETE ${c.path} (binary, ${size(previous)})`;
      const n = countLines(previous);
      return `DELETE ${c.path} (-${n} ${plural(n)})`;
    }
  }
}

/** The whole plan, one line per change (already sorted by path), or a note that nothing changes. */
export function formatPlan(changes: readonly Change[], options: { color?: boolean } = {}): string {
  if (changes.length === 0) return 'Nothing to change.\n';
  const color = options.color ?? false;
  const paint = { create: ansi(color, '32'), update: ansi(color, '33'), delete: ansi(color, '31') };
  return `${changes
    .map((c) => {
      const line = describeChange(c);
      const word = line.slice(0, 6);
      return paint[c.kind](word) + line.slice(6);
    })
    .join('\n')}\n`;
}
