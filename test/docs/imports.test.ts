// Every import of kubeforge a page shows must compile against the package as it is: a name moved
// out of the runtime root, renamed or removed fails here, with the page and line, instead of in a
// reader's editor. The imports of each TypeScript block (```ts) of README.md, ARCHITECTURE.md and
// docs/*.md that name `kubeforge` or a `kubeforge/...` subpath are type-checked with TypeScript
// against the sources behind the package's `exports` (the same entry points the published
// declarations are built from).
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { packageRoot } from '../../src/util/package-root.js';
import { ts } from '../../src/util/typescript.cjs';
import { must } from '../helpers/must.js';

const root = packageRoot();
const DOCS = [
  'README.md',
  'ARCHITECTURE.md',
  // ARCHITECTURE.md's design notes, beside the code they describe.
  'src/scaffolds/README.md',
  'src/manifests/README.md',
  'src/runtime/README.md',
  'test/README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
].filter((d) => existsSync(join(root, d)));

interface Found {
  doc: string;
  line: number;
  text: string;
}

/** The kubeforge imports of a page's TypeScript blocks, each with the line it starts on. */
function importsOf(doc: string): Found[] {
  const lines = readFileSync(join(root, doc), 'utf8').split('\n');
  const out: Found[] = [];
  let inTs = false;
  let fence = '';
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    const open = /^(\s*)(```+)\s*(ts|typescript|tsx)\b/.exec(l);
    if (!inTs && open) {
      inTs = true;
      fence = open[2];
      continue;
    }
    if (inTs && l.trim().startsWith(fence)) {
      inTs = false;
      continue;
    }
    if (!inTs) {
      if (!/^\s*```/.test(l)) out.push(...proseImports(doc, i + 1, l));
      continue;
    }
    if (!/^\s*import\b/.test(l)) continue;
    // An import may span lines: take lines until its `from '...'`.
    let text = l;
    let j = i;
    while (!/from\s+['"][^'"]+['"]/.test(text) && j + 1 < lines.length && j - i < 30) text += `\n${lines[++j]}`;
    const m = /from\s+['"]([^'"]+)['"]/.exec(text);
    if (m && (m[1] === 'kubeforge' || m[1].startsWith('kubeforge/'))) out.push({ doc, line: i + 1, text: text.trim() });
    i = j;
  }
  return out;
}

/**
 * Names a page's prose attributes to a module, as `` `name(...)`, `Other` (`kubeforge/sub`) ``:
 * the backticked identifiers and calls (`name(...)`, `new Name(...)`) before the parenthesised
 * module, back to the previous one or the table cell's start. Expressions on a variable
 * (`sel.matches(...)`) and statements (`const c = ...`) are not names of the module.
 */
function proseImports(doc: string, line: number, text: string): Found[] {
  const out: Found[] = [];
  for (const cell of text.split(/(?<!\\)\|/)) {
    for (const m of cell.matchAll(/`[^`]+` \(`(kubeforge(?:\/[a-z/]+)?)`/g)) {
      // Walk back over a list of backticked names: `a`, `b()` / `c` and `d` (`kubeforge/x`).
      const names: string[] = [];
      let rest = cell.slice(0, m.index + m[0].indexOf(' (`'));
      for (;;) {
        const last = /`([^`]+)`$/.exec(rest);
        if (!last) break;
        const name = /^(?:new\s+)?([A-Za-z_$][\w$]*)(?:<[^>]*>)?(?:\(.*\))?$/.exec(last[1])?.[1];
        if (!name || KEYWORDS.has(name)) break;
        names.unshift(name);
        rest = rest.slice(0, last.index);
        const sep = /(\s*(?:,|\/|\band\b|\bor\b)\s*)$/.exec(rest);
        if (!sep) break;
        rest = rest.slice(0, rest.length - sep[1].length);
      }
      if (names.length) out.push({ doc, line, text: `import { ${[...new Set(names)].join(', ')} } from '${m[1]}';` });
    }
  }
  return out;
}

const KEYWORDS = new Set([
  'const',
  'let',
  'await',
  'return',
  'true',
  'false',
  'null',
  'undefined',
  'new',
  'void',
  'this',
]);

/** The source file behind each `exports` subpath of package.json (`./runtime/cache` -> src/runtime/cache/index.ts). */
function entryPoints(): Record<string, string> {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    exports: Record<string, string | { types?: string }>;
  };
  const out: Record<string, string> = {};
  for (const [sub, target] of Object.entries(pkg.exports)) {
    const types = typeof target === 'string' ? target : target.types;
    if (!types?.endsWith('.d.ts')) continue;
    out[sub === '.' ? 'kubeforge' : `kubeforge/${sub.slice(2)}`] = join(
      root,
      types.replace(/^\.\/dist\//, 'src/').replace(/\.d\.ts$/, '.ts'),
    );
  }
  return out;
}

describe('the imports the docs show', () => {
  const found = DOCS.flatMap(importsOf);

  it('the pages show imports of kubeforge (the check has something to check)', () => {
    assert.ok(found.length >= 9, `only ${found.length} imports found: ${JSON.stringify(found)}`);
  });

  it('every one compiles against the package', () => {
    const entries = entryPoints();
    const files = new Map<string, string>();
    // One file per import, so that one bad name does not hide another and each maps to its line.
    for (const [i, f] of found.entries()) files.set(join(root, `__doc_import_${i}.ts`), `${f.text}\nexport {};\n`);
    const options = {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      strict: true,
      skipLibCheck: true,
      noEmit: true,
      types: ['node'],
      esModuleInterop: true,
      resolveJsonModule: true,
      experimentalDecorators: false,
    };
    const host = ts.createCompilerHost(options);
    const read = host.readFile.bind(host);
    const exists = host.fileExists.bind(host);
    host.readFile = (f) => files.get(f) ?? read(f);
    host.fileExists = (f) => files.has(f) || exists(f);
    host.resolveModuleNameLiterals = (literals, containing, _ref, opts) =>
      literals.map((lit) => {
        const target = entries[lit.text];
        if (target) return { resolvedModule: { resolvedFileName: target, extension: ts.Extension.Ts } };
        return ts.resolveModuleName(lit.text, containing, opts, host);
      });
    const program = ts.createProgram([...files.keys()], options, host);
    const problems: string[] = [];
    for (const [i, f] of found.entries()) {
      const sf = must(program.getSourceFile(join(root, `__doc_import_${i}.ts`)), `__doc_import_${i}.ts in the program`);
      for (const d of [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)]) {
        const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
        problems.push(`${f.doc}:${f.line}: ${message}\n    ${f.text.replace(/\n/g, '\n    ')}`);
      }
    }
    assert.deepEqual(problems, [], `imports in the docs that do not compile:\n${problems.join('\n')}`);
  });
});
