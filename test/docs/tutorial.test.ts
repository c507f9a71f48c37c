/**
 * docs/tutorial.md cannot go stale: every code block in it is marked with the file of
 * testdata/project it comes from (`<!-- snippet: src/... -->`) and must be in that file word for
 * word, and every `kubeforge` command it shows is one that scripts/generate-testdata.mjs runs to
 * make that project.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { packageRoot } from '../../src/util/package-root.js';

const root = packageRoot();
const tutorial = readFileSync(join(root, 'docs/tutorial.md'), 'utf8');
const project = join(root, 'testdata/project');

interface Block {
  /** The file named by the snippet marker right above the block, if any. */
  source?: string;
  lang: string;
  body: string;
  line: number;
}

/** The fenced code blocks of a Markdown text, with the snippet marker above each. */
function blocks(text: string): Block[] {
  const found: Block[] = [];
  const fence = /(?:<!-- snippet: (\S+) -->\n)?```(\w*)\n([\s\S]*?)\n```/g;
  for (let m = fence.exec(text); m; m = fence.exec(text)) {
    found.push({ source: m[1], lang: m[2], body: m[3], line: text.slice(0, m.index).split('\n').length });
  }
  return found;
}

/** Splits a shell command line into words, honouring double quotes. */
function words(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]);
}

describe('docs/tutorial.md', () => {
  const all = blocks(tutorial);

  it('has code blocks, each marked with its source or a shell block', () => {
    assert.ok(all.length > 10, `found ${all.length} code blocks`);
    const unmarked = all
      .filter((b) => !b.source && b.lang !== 'sh')
      .map((b) => `line ${b.line} (${b.lang || 'no language'})`);
    assert.deepEqual(
      unmarked,
      [],
      'code blocks other than shell commands need a <!-- snippet: <file of testdata/project> --> line above them',
    );
  });

  it('every snippet is, word for word, in the file of testdata/project it names', () => {
    const stale: string[] = [];
    for (const b of all) {
      if (!b.source) continue;
      const file = join(project, b.source);
      if (!existsSync(file)) stale.push(`line ${b.line}: ${b.source} does not exist`);
      else if (!readFileSync(file, 'utf8').includes(b.body))
        stale.push(`line ${b.line}: not in ${b.source}:\n${b.body.split('\n').slice(0, 3).join('\n')}\n...`);
    }
    assert.deepEqual(stale, [], 'update docs/tutorial.md from testdata/project');
  });

  it('every kubeforge command is one that generate-testdata runs to make the sample', () => {
    // Array literals as written on one line, however the formatter broke them.
    const script = readFileSync(join(root, 'scripts/generate-testdata.mjs'), 'utf8')
      .replace(/\[\s+/g, '[')
      .replace(/,\s+/g, ', ');
    const commands = all
      .filter((b) => b.lang === 'sh')
      .flatMap((b) => b.body.split('\n'))
      .filter((l) => l.startsWith('kubeforge '))
      .map((l) => words(l).slice(1));
    assert.ok(commands.length >= 5, `found ${commands.length} kubeforge commands`);
    for (const args of commands) {
      // The script writes each command as an array of quoted words; the tutorial may leave out
      // trailing flags of the script's (init's --kubeforge-source registry --skip-install).
      const literal = `[${args.map((a) => `'${a}'`).join(', ')}`;
      assert.ok(
        script.includes(literal),
        `kubeforge ${args.join(' ')}: not a command of scripts/generate-testdata.mjs`,
      );
    }
  });
});
