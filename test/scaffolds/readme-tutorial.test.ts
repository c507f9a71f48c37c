// The Memcached tutorial in docs/memcached.md and in the generated project's README shows code that
// compiles and runs: every line of its TypeScript blocks is a line of test/fixtures/memcached,
// which test/e2e/memcached.test.ts builds and tests in a generated project.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { packageRoot } from '../../src/util/package-root.js';
import { must } from '../helpers/must.js';

const root = packageRoot();
const fixtureLines = new Set(
  readdirSync(join(root, 'test/fixtures/memcached'))
    .flatMap((f) => readFileSync(join(root, 'test/fixtures/memcached', f), 'utf8').split('\n'))
    .map((l) => l.trim())
    .filter(Boolean),
);

/** The ```ts blocks of the text between `from` and the next heading of the same level. */
function tsBlocks(text: string, from: string): string[][] {
  const start = text.indexOf(from);
  assert.ok(start >= 0, `${from} is in the file`);
  const level = must(/^#+/.exec(from), `the heading level of ${from}`)[0];
  const rest = text.slice(start + from.length);
  const end = rest.search(new RegExp(`^${level} `, 'm'));
  const section = end < 0 ? rest : rest.slice(0, end);
  return [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) =>
    m[1]
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean),
  );
}

describe('the Memcached tutorial shows code that runs', () => {
  for (const [file, heading] of [
    ['docs/memcached.md', "# For Go users: the first week (operator-sdk's Memcached tutorial)"],
    ['templates/init/README.md.hbs', '## Your first week: the Memcached tutorial'],
  ] as const) {
    it(`${file}: every line of its TypeScript blocks is in test/fixtures/memcached`, () => {
      const blocks = tsBlocks(readFileSync(join(root, file), 'utf8'), heading);
      assert.ok(blocks.length >= 3, `${file} shows the tutorial's code (${blocks.length} blocks)`);
      for (const line of blocks.flat())
        assert.ok(fixtureLines.has(line), `${file}: "${line}" is not a line of test/fixtures/memcached`);
    });
  }
});
