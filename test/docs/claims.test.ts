// The repository's docs name files and functions; those names must exist. A doc that names a file
// which moved, or a function that was renamed, fails here instead of misleading its reader.
// Checked: every backticked repository path (src/..., test/..., scripts/..., bench/...,
// templates/..., docs/..., testdata/...) exists in the repository, or, for the paths of a generated
// project (src/api/..., src/controller/...), in the committed sample project testdata/project or
// under a folder only a generated project has (an example's own file); and
// every backticked call `name()` or `a.b()` names a function defined or called somewhere in the
// sources, tests, scripts or templates.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { packageRoot } from '../../src/util/package-root.js';

const root = packageRoot();
const DOCS = [
  'README.md',
  'ARCHITECTURE.md',
  'bench/README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
].filter((d) => existsSync(join(root, d)));
const PATH = /^(src|test|scripts|bench|templates|docs|testdata|bin)\/[\w./-]+$/;
const CALL = /^(?:[A-Za-z_$][\w$]*\.)*([A-Za-z_$][\w$]*)\(\)$/;

/** Paths a generated project has, which the doc may name as a project's (the sample project is checked). */
const PROJECT = join(root, 'testdata/project');

/**
 * A file of a user's project given as an example (`src/controller/memcached_controller.ts`): its
 * folder is one a generated project has and kubeforge's own repository does not.
 */
function projectExample(path: string): boolean {
  const folder = path.split('/').slice(0, 2).join('/');
  return existsSync(join(PROJECT, folder)) && !existsSync(join(root, folder));
}

function sources(): string {
  const texts: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      if (name === 'node_modules' || name === 'out' || name === 'fixtures' || name === 'golden' || name === 'data') continue;
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.(ts|mjs|js|hbs)$/.test(name)) texts.push(readFileSync(p, 'utf8'));
    }
  };
  for (const d of ['src', 'scripts', 'bin', 'templates', 'test', 'bench', 'testdata']) if (existsSync(join(root, d))) walk(join(root, d));
  return texts.join('\n');
}

/** Backticked spans of a Markdown text, outside fenced code blocks, with their line numbers. */
function spans(text: string): { span: string; line: number }[] {
  const out: { span: string; line: number }[] = [];
  let fenced = false;
  text.split('\n').forEach((line, i) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      return;
    }
    if (fenced) return;
    for (const m of line.matchAll(/`([^`]+)`/g)) out.push({ span: m[1], line: i + 1 });
  });
  return out;
}

describe('the docs name what exists', () => {
  const code = sources();
  for (const doc of DOCS) {
    it(`${doc}: every named file and function exists`, () => {
      const wrong: string[] = [];
      let checked = 0;
      for (const { span, line } of spans(readFileSync(join(root, doc), 'utf8'))) {
        if (PATH.test(span)) {
          checked++;
          const path = span.replace(/[:#].*$/, '');
          if (!existsSync(join(root, path)) && !existsSync(join(PROJECT, path)) && !projectExample(path)) wrong.push(`${doc}:${line}: no file ${path}`);
        } else {
          const call = CALL.exec(span);
          if (!call) continue;
          checked++;
          if (!new RegExp(`\\b${call[1].replace(/\$/g, '\\$')}\\b`).test(code)) wrong.push(`${doc}:${line}: no function ${span}`);
        }
      }
      assert.ok(checked > 0, `${doc} names no file or function: the check would pass on anything`);
      assert.deepEqual(wrong, []);
    });
  }

  it('a named file that does not exist fails the check', () => {
    const [{ span }] = spans('see `src/no/such/file.ts`');
    assert.ok(PATH.test(span) && !existsSync(join(root, span)) && !existsSync(join(PROJECT, span)) && !projectExample(span));
    assert.ok(projectExample('src/controller/memcached_controller.ts') && !projectExample('src/runtime/nothing.ts'));
  });
});
