// No function of the scaffolds, the manifests pipeline or the scaffold engine is longer than 120
// lines (as formatted): a longer one is a procedure that wants its named steps (issue #24).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { ts } from '../../src/util/typescript.cjs';

const root = process.env.KUBEFORGE_REPO_ROOT ?? process.cwd();
const FOLDERS = ['src/scaffolds', 'src/manifests', 'src/machinery'];
const LIMIT = 120;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? sourceFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** Every function, method, constructor, accessor and arrow function longer than `limit` lines. */
export function longFunctions(file: string, text: string, limit: number): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const end = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
      const name = node.name && ts.isIdentifier(node.name) ? node.name.text : '<anonymous>';
      if (end - start + 1 > limit) out.push(`${file}:${start + 1} ${name}: ${end - start + 1} lines`);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

describe('function length', () => {
  it('the check sees a long function (so it can fail)', () => {
    const body = Array.from({ length: 130 }, (_, i) => `  const v${i} = ${i};`).join('\n');
    assert.equal(longFunctions('x.ts', `function long() {\n${body}\n}\n`, LIMIT).length, 1);
    assert.equal(longFunctions('x.ts', `const short = () => {\n  return 1;\n};\n`, LIMIT).length, 0);
  });

  it(`no function in ${FOLDERS.join(', ')} is over ${LIMIT} lines`, () => {
    const long = FOLDERS.flatMap((f) => sourceFiles(join(root, f))).flatMap((file) =>
      longFunctions(relative(root, file), readFileSync(file, 'utf8'), LIMIT),
    );
    assert.deepEqual(long, [], 'split these by meaning: one function per step, rule family or output');
  });
});
