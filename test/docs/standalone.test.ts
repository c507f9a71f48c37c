// The repository stands alone: no file of it names a file outside it. A design guide, a marker
// contract or reference outputs kept beside the checkout (the development machines' workspace)
// are not there for a contributor who clones it; what they held belongs in the repository's own
// docs/ and test/fixtures/. Checked: every text file of the working tree (outside node_modules and
// build outputs) names neither the workspace folder nor those documents.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { packageRoot } from '../../src/util/package-root.js';

const root = packageRoot();
const SKIPPED = new Set(['node_modules', 'build', 'dist', '.git', 'coverage', 'out']);

/** What no file may name (spelt in pieces, so that this file does not name them). */
const OUTSIDE: { what: string; pattern: RegExp }[] = [
  { what: 'the workspace folder', pattern: new RegExp(`(?<![\\w.-])/${'work'}/`) },
  { what: "the design guide's file", pattern: new RegExp(`\\b${'DESIGN'}\\.md\\b`) },
  { what: "the marker contract's file", pattern: new RegExp(`\\b${'MARKERS'}\\.md\\b`) },
  { what: 'the shared folder', pattern: new RegExp(`\\.\\./${'shared'}/(?:conformance|envtest|hooks)\\b`) },
];

/** Text files of the working tree, relative to the root. */
function textFiles(): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const name of readdirSync(join(root, rel))) {
      if (SKIPPED.has(name)) continue;
      const p = rel ? `${rel}/${name}` : name;
      const st = statSync(join(root, p));
      if (st.isDirectory()) walk(p);
      else if (st.size < 4_000_000) out.push(p);
    }
  };
  walk('');
  return out;
}

/** The lines of `text` that name something outside the repository, as `file:line: what`. */
export function outsideReferences(file: string, text: string): string[] {
  if (text.includes('\0')) return [];
  const found: string[] = [];
  text.split('\n').forEach((line, i) => {
    for (const { what, pattern } of OUTSIDE)
      if (pattern.test(line)) found.push(`${file}:${i + 1}: names ${what}: ${line.trim().slice(0, 120)}`);
  });
  return found;
}

describe('the repository stands alone', () => {
  it('no file names a file outside the repository', () => {
    const files = textFiles();
    assert.ok(files.length > 1000, `${files.length} files read`);
    assert.deepEqual(
      files.flatMap((f) => outsideReferences(f, readFileSync(join(root, f), 'utf8'))),
      [],
    );
  });

  it('the check finds each kind of reference, and not lookalikes', () => {
    const text = [
      `const dir = '/${'work'}/shared/x';`,
      `see ${'DESIGN'}.md`,
      `${'MARKERS'}.md lists`,
      `'../../${'shared'}/conformance/a'`,
      'WORKDIR /workspace',
      'https://k8s.io/docs/working-with-objects/',
      "import '../../../shared/types.js'",
    ].join('\n');
    assert.deepEqual(
      outsideReferences('x.ts', text).map((l) => l.split(': ')[0]),
      ['x.ts:1', 'x.ts:2', 'x.ts:3', 'x.ts:4'],
    );
  });
});
