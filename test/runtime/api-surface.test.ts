// The exported surface of the entry points users import (kubeforge/runtime, kubeforge/testing,
// kubeforge/markers), read from the declaration files in dist/ (what `npm pack` ships, @internal
// members stripped) and compared with golden files, so the public API changes only on purpose:
//   api-surface/<entry>.txt      every export name with its kind;
//   api-report/<entry>.api.txt   every export's declaration (its signature, members and all), and
//                                the "forgotten exports": kubeforge types that a public signature
//                                names but no entry point exports (a user can meet them and cannot
//                                name them; API Extractor's ae-forgotten-export).
// UPDATE_GOLDEN=1 rewrites the golden files.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ts } from 'ts-morph';
import { packageRoot } from '../../src/util/package-root.js';
import { assertGoldenFile } from '../helpers/golden.js';

const ENTRIES: Record<string, string> = {
  runtime: 'dist/runtime/index.d.ts',
  testing: 'dist/testing/index.d.ts',
  markers: 'dist/markers/index.d.ts',
};

function kindOf(symbol: ts.Symbol, typeOnly: boolean): string {
  const f = symbol.flags;
  let kind: string;
  if (f & ts.SymbolFlags.Class) kind = 'class';
  else if (f & ts.SymbolFlags.Function) kind = 'function';
  else if (f & ts.SymbolFlags.Enum) kind = 'enum';
  else if (f & ts.SymbolFlags.Variable) kind = 'const';
  else if (f & ts.SymbolFlags.Interface) kind = 'interface';
  else if (f & ts.SymbolFlags.TypeAlias) kind = 'type';
  else if (f & ts.SymbolFlags.Module) kind = 'namespace';
  else kind = `flags:${f}`;
  // A class exported with `export type` can be named in types but not constructed or tested with instanceof.
  return typeOnly && (kind === 'class' || kind === 'function' || kind === 'const') ? `${kind} (type only)` : kind;
}

const COMPILER_OPTIONS: ts.CompilerOptions = { noEmit: true, skipLibCheck: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022 };

/** The symbol an export stands for, past re-export aliases. */
function resolveAlias(checker: ts.TypeChecker, symbol: ts.Symbol): ts.Symbol {
  let target = symbol;
  while (target.flags & ts.SymbolFlags.Alias) {
    const next = checker.getImmediateAliasedSymbol(target) ?? checker.getAliasedSymbol(target);
    if (next === target) break;
    target = next;
  }
  return target;
}

/**
 * The API report of one entry point: each export's declarations as the shipped .d.ts spells
 * them (comments left out), then the kubeforge types those declarations name that no entry
 * point in `exported` exports.
 */
function report(program: ts.Program, file: string, exported: Set<ts.Symbol>): string {
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file)!;
  const moduleSymbol = checker.getSymbolAtLocation(source);
  if (!moduleSymbol) return '';
  const dist = join(packageRoot(), 'dist');
  // Comments are documentation, not API: a reworded doc comment changes no signature.
  const printer = ts.createPrinter({ removeComments: true, newLine: ts.NewLineKind.LineFeed });
  const blocks: string[] = [];
  const forgotten = new Map<string, Set<string>>();
  for (const exp of [...checker.getExportsOfModule(moduleSymbol)].sort((a, b) => a.getName().localeCompare(b.getName()))) {
    const target = resolveAlias(checker, exp);
    const decls = (target.declarations ?? []).filter((d) => !ts.isSourceFile(d));
    const text = decls.map((d) => printer.printNode(ts.EmitHint.Unspecified, d, d.getSourceFile()).replace(/^export (declare )?/, '')).join('\n');
    blocks.push(`// ${exp.getName()}${target.getName() !== exp.getName() ? ` (declared as ${target.getName()})` : ''}\n${text}\n`);
    const visit = (node: ts.Node) => {
      const name = ts.isTypeReferenceNode(node) ? node.typeName : ts.isExpressionWithTypeArguments(node) ? node.expression : ts.isTypeQueryNode(node) ? node.exprName : undefined;
      // `import('./x.js').T` in a declaration names T too.
      const imported = ts.isImportTypeNode(node) ? (checker.getTypeFromTypeNode(node).aliasSymbol ?? checker.getTypeFromTypeNode(node).getSymbol()) : undefined;
      if (name || imported) {
        const symbol = imported ?? checker.getSymbolAtLocation(name!);
        if (symbol && !(symbol.flags & ts.SymbolFlags.TypeParameter)) {
          const used = resolveAlias(checker, symbol);
          const home = used.declarations?.[0]?.getSourceFile().fileName;
          if (home && home.startsWith(dist) && !exported.has(used)) {
            const key = `${used.getName()} (${home.slice(dist.length + 1)})`;
            if (!forgotten.has(key)) forgotten.set(key, new Set());
            forgotten.get(key)!.add(exp.getName());
          }
        }
      }
      ts.forEachChild(node, visit);
    };
    decls.forEach(visit);
  }
  const lines = [...forgotten].sort(([a], [b]) => a.localeCompare(b)).map(([k, users]) => `//   ${k}: named by ${[...users].sort().join(', ')}`);
  return `${blocks.join('\n')}\n// Forgotten exports (${lines.length}): kubeforge types a public declaration names that no entry point exports.\n${lines.join('\n')}\n`;
}

/** Every symbol the public entry points export (past aliases). */
function exportedSymbols(program: ts.Program, files: string[]): Set<ts.Symbol> {
  const checker = program.getTypeChecker();
  const out = new Set<ts.Symbol>();
  for (const f of files) {
    const m = checker.getSymbolAtLocation(program.getSourceFile(f)!);
    for (const exp of m ? checker.getExportsOfModule(m) : []) out.add(resolveAlias(checker, exp));
  }
  return out;
}

/** A sorted `name kind` line per export of a declaration file. */
function surface(file: string): string {
  const program = ts.createProgram([file], COMPILER_OPTIONS);
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  if (!source) throw new Error(`cannot read ${file} (build dist/ first: npm run build)`);
  const moduleSymbol = checker.getSymbolAtLocation(source);
  if (!moduleSymbol) return '';
  const lines: string[] = [];
  for (const exp of checker.getExportsOfModule(moduleSymbol)) {
    let typeOnly = false;
    let target = exp;
    // Follow re-export chains; any `export type` on the way makes the export type-only.
    while (target.flags & ts.SymbolFlags.Alias) {
      for (const d of target.declarations ?? []) {
        if (ts.isExportSpecifier(d) && (d.isTypeOnly || d.parent.parent.isTypeOnly)) typeOnly = true;
        if (ts.isImportSpecifier(d) && (d.isTypeOnly || d.parent.parent.isTypeOnly)) typeOnly = true;
      }
      target = checker.getImmediateAliasedSymbol(target) ?? checker.getAliasedSymbol(target);
      if (target === exp) break;
    }
    lines.push(`${exp.getName()} ${kindOf(target, typeOnly)}`);
  }
  return lines.sort().join('\n') + '\n';
}

describe('public API surface', () => {
  for (const [name, file] of Object.entries(ENTRIES)) {
    it(`kubeforge/${name} exports what test/golden/api-surface/${name}.txt lists`, () => {
      assertGoldenFile(surface(join(packageRoot(), file)), `api-surface/${name}.txt`);
    });
  }

  describe('API report: signatures and forgotten exports', () => {
    const files = [...Object.values(ENTRIES), 'dist/index.d.ts'].map((f) => join(packageRoot(), f));
    const program = ts.createProgram(files, COMPILER_OPTIONS);
    const exported = exportedSymbols(program, files);
    for (const [name, file] of Object.entries(ENTRIES)) {
      it(`kubeforge/${name}'s declarations are what test/golden/api-report/${name}.api.txt records`, () => {
        assertGoldenFile(report(program, join(packageRoot(), file), exported), `api-report/${name}.api.txt`);
      });
    }

    it('a type a public signature names without exporting it is reported', () => {
      const probe = join(packageRoot(), 'dist/runtime/index.d.ts');
      const text = report(program, probe, new Set());
      // With nothing counted as exported, every kubeforge type a runtime signature names is forgotten.
      assert.match(text, /^\/\/ {3}Client \(runtime\/contracts\.d\.ts\): named by /m);
    });
  });
});
