// The exported surface of the entry points users import (kubeforge/runtime, kubeforge/testing,
// kubeforge/markers): every export name with its kind, read from the declaration files in dist/
// (what `npm pack` ships, @internal members stripped) and compared with a golden file, so the
// public API changes only on purpose. UPDATE_GOLDEN=1 rewrites the golden files.
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

/** A sorted `name kind` line per export of a declaration file. */
function surface(file: string): string {
  const program = ts.createProgram([file], { noEmit: true, skipLibCheck: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022 });
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
});
