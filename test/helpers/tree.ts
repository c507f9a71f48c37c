/**
 * Test helpers for whole folders.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Every file and folder below dir with its bytes, to prove nothing changed. */
export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const rel = relative(dir, p);
      if (statSync(p).isDirectory()) {
        out[`${rel}/`] = '';
        walk(p);
      } else out[rel] = readFileSync(p, 'latin1');
    }
  };
  walk(dir);
  return out;
}
