// The exported surface of the entry points users import (kubeforge/runtime and its subpaths,
// kubeforge/testing, kubeforge/markers: every "exports" entry of package.json), read from the declaration files in dist/ (what `npm pack` ships, @internal
// members stripped) and compared with golden files, so the public API changes only on purpose:
//   api-surface/<entry>.txt      every export name with its kind;
//   api-report/<entry>.api.txt   every export's declaration (its signature, members and all), and
//                                the "forgotten exports": kubeforge types that a public signature
//                                names but no entry point exports (a user can meet them and cannot
//                                name them; API Extractor's ae-forgotten-export): there must be none.
// UPDATE_GOLDEN=1 rewrites the golden files.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { readFileSync } from 'node:fs';
import { ts } from 'ts-morph';
import { packageRoot } from '../../src/util/package-root.js';
import { assertGoldenFile } from '../helpers/golden.js';
import { must } from '../helpers/must.js';

/**
 * The public entry points: package.json's "exports" but the CLI's own (".") and package.json,
 * keyed by subpath with "/" as "-" (`runtime/client` is runtime-client).
 */
const ENTRIES: Record<string, string> = Object.fromEntries(
  Object.entries(
    JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')).exports as Record<
      string,
      string | { types?: string }
    >,
  )
    .filter(([key, target]) => key !== '.' && typeof target === 'object' && target.types)
    .map(([key, target]) => [key.slice(2).replaceAll('/', '-'), (target as { types: string }).types.slice(2)]),
);

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

const COMPILER_OPTIONS: ts.CompilerOptions = {
  noEmit: true,
  skipLibCheck: true,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
};

/**
 * The only forgotten exports allowed, with their reason. kubeforge/markers: DecoratorArg and
 * MarkerOptions are type-level functions over the marker definition table (src/markers/
 * definitions.ts); exporting them would export the table's own types (MarkerName, ArgShapeOf,
 * ArgField...) with them. Users never write them: they pass object literals to the decorators.
 */
const KNOWN_FORGOTTEN: Record<string, string[]> = { markers: ['DecoratorArg', 'MarkerOptions'] };

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
  const source = must(program.getSourceFile(file), 'program.getSourceFile(file)');
  const moduleSymbol = checker.getSymbolAtLocation(source);
  if (!moduleSymbol) return '';
  const dist = join(packageRoot(), 'dist');
  // Comments are documentation, not API: a reworded doc comment changes no signature.
  const printer = ts.createPrinter({ removeComments: true, newLine: ts.NewLineKind.LineFeed });
  const blocks: string[] = [];
  const forgotten = new Map<string, Set<string>>();
  for (const exp of [...checker.getExportsOfModule(moduleSymbol)].sort((a, b) =>
    a.getName().localeCompare(b.getName()),
  )) {
    const target = resolveAlias(checker, exp);
    const decls = (target.declarations ?? []).filter((d) => !ts.isSourceFile(d));
    const text = decls
      .map((d) => printer.printNode(ts.EmitHint.Unspecified, d, d.getSourceFile()).replace(/^export (declare )?/, ''))
      .join('\n');
    blocks.push(
      `// ${exp.getName()}${target.getName() !== exp.getName() ? ` (declared as ${target.getName()})` : ''}\n${text}\n`,
    );
    const visit = (node: ts.Node) => {
      const name = ts.isTypeReferenceNode(node)
        ? node.typeName
        : ts.isExpressionWithTypeArguments(node)
          ? node.expression
          : ts.isTypeQueryNode(node)
            ? node.exprName
            : undefined;
      // `import('./x.js').T` in a declaration names T too.
      const imported = ts.isImportTypeNode(node)
        ? (checker.getTypeFromTypeNode(node).aliasSymbol ?? checker.getTypeFromTypeNode(node).getSymbol())
        : undefined;
      if (name || imported) {
        const symbol = imported ?? checker.getSymbolAtLocation(must(name, 'name'));
        if (symbol && !(symbol.flags & ts.SymbolFlags.TypeParameter)) {
          const used = resolveAlias(checker, symbol);
          const home = used.declarations?.[0]?.getSourceFile().fileName;
          if (home?.startsWith(dist) && !exported.has(used)) {
            const key = `${used.getName()} (${home.slice(dist.length + 1)})`;
            if (!forgotten.has(key)) forgotten.set(key, new Set());
            must(forgotten.get(key), 'forgotten.get(key)').add(exp.getName());
          }
        }
      }
      ts.forEachChild(node, visit);
    };
    decls.forEach(visit);
  }
  const lines = [...forgotten]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, users]) => `//   ${k}: named by ${[...users].sort().join(', ')}`);
  return `${blocks.join('\n')}\n// Forgotten exports (${lines.length}): kubeforge types a public declaration names that no entry point exports.\n${lines.join('\n')}\n`;
}

/** Every symbol the public entry points export (past aliases). */
function exportedSymbols(program: ts.Program, files: string[]): Set<ts.Symbol> {
  const checker = program.getTypeChecker();
  const out = new Set<ts.Symbol>();
  for (const f of files) {
    const m = checker.getSymbolAtLocation(must(program.getSourceFile(f), 'program.getSourceFile(f)'));
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
  return `${lines.sort().join('\n')}\n`;
}

describe('public API surface', () => {
  for (const [name, file] of Object.entries(ENTRIES)) {
    it(`kubeforge/${name} exports what test/golden/api-surface/${name}.txt lists`, () => {
      assertGoldenFile(surface(join(packageRoot(), file)), `api-surface/${name}.txt`);
    });
  }

  it('lists every entry point of kubeforge/runtime, kubeforge/testing and kubeforge/markers', () => {
    assert.deepEqual(Object.keys(ENTRIES).sort(), [
      'markers',
      'runtime',
      'runtime-cache',
      'runtime-client',
      'runtime-controller',
      'runtime-manager',
      'runtime-multicluster',
      'runtime-util',
      'runtime-webhook',
      'testing',
    ]);
  });

  it("each name of kubeforge/runtime's subpaths is exported by exactly one of them; the root's names are among them", () => {
    const names = (entry: string) =>
      surface(join(packageRoot(), ENTRIES[entry]))
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split(' ')[0]);
    const home = new Map<string, string[]>();
    for (const entry of Object.keys(ENTRIES).filter((e) => e.startsWith('runtime-'))) {
      for (const n of names(entry)) home.set(n, [...(home.get(n) ?? []), entry]);
    }
    assert.deepEqual(
      [...home].filter(([, where]) => where.length > 1),
      [],
      'names in two subpaths',
    );
    assert.deepEqual(
      names('runtime').filter((n) => !home.has(n)),
      [],
      'root names in no subpath',
    );
    assert.ok(names('runtime').length <= 40, `the root stays curated (${names('runtime').length} names)`);
  });

  describe('API report: signatures and forgotten exports', () => {
    const files = [...Object.values(ENTRIES), 'dist/index.d.ts'].map((f) => join(packageRoot(), f));
    const program = ts.createProgram(files, COMPILER_OPTIONS);
    const exported = exportedSymbols(program, files);
    for (const [name, file] of Object.entries(ENTRIES)) {
      it(`kubeforge/${name}'s declarations are what test/golden/api-report/${name}.api.txt records, with no forgotten export`, () => {
        const text = report(program, join(packageRoot(), file), exported);
        assertGoldenFile(text, `api-report/${name}.api.txt`);
        const forgotten = [...text.slice(text.indexOf('// Forgotten exports')).matchAll(/^\/\/ {3}(\w+) /gm)].map(
          (m) => m[1],
        );
        assert.deepEqual(forgotten, KNOWN_FORGOTTEN[name] ?? [], text.slice(text.indexOf('// Forgotten exports')));
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
