// The API report machinery of test/runtime/api-surface.test.ts (kubeforge's entry points) and
// packages/cel/test/api-report.test.ts (@kubeforge/cel's), read from a package's shipped
// declaration files: the export names with their kinds, each export's declarations, and the
// "forgotten exports" (types of the package that a public signature names and no entry exports).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ts } from 'ts-morph';
import { must } from './must.js';

/**
 * A package's entry points: its package.json "exports" with declaration files, but `skip`,
 * keyed by subpath with "/" as "-" (`runtime/client` is runtime-client; the root is `root`).
 */
export function packageEntries(dir: string, skip: string[] = []): Record<string, string> {
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    exports: Record<string, string | { types?: string }>;
  };
  return Object.fromEntries(
    Object.entries(manifest.exports)
      .filter(([key, target]) => !skip.includes(key) && typeof target === 'object' && target.types)
      .map(([key, target]) => [
        key === '.' ? 'root' : key.slice(2).replaceAll('/', '-'),
        (target as { types: string }).types.slice(2),
      ]),
  );
}

export function kindOf(symbol: ts.Symbol, typeOnly: boolean): string {
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

export const COMPILER_OPTIONS: ts.CompilerOptions = {
  noEmit: true,
  skipLibCheck: true,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
};

/** The symbol an export stands for, past re-export aliases. */
export function resolveAlias(checker: ts.TypeChecker, symbol: ts.Symbol): ts.Symbol {
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
export function report(
  program: ts.Program,
  file: string,
  exported: Set<ts.Symbol>,
  dist: string,
  owner = 'kubeforge',
): string {
  const checker = program.getTypeChecker();
  const source = must(program.getSourceFile(file), `the source file ${file}`);
  const moduleSymbol = checker.getSymbolAtLocation(source);
  if (!moduleSymbol) return '';
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
        const symbol = imported ?? (name && checker.getSymbolAtLocation(name));
        if (symbol && !(symbol.flags & ts.SymbolFlags.TypeParameter)) {
          const used = resolveAlias(checker, symbol);
          const home = used.declarations?.[0]?.getSourceFile().fileName;
          if (home?.startsWith(dist) && !exported.has(used)) {
            const key = `${used.getName()} (${home.slice(dist.length + 1)})`;
            const names = forgotten.get(key) ?? new Set<string>();
            forgotten.set(key, names);
            names.add(exp.getName());
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
  return `${blocks.join('\n')}\n// Forgotten exports (${lines.length}): ${owner} types a public declaration names that no entry point exports.\n${lines.join('\n')}\n`;
}

/** Every symbol the public entry points export (past aliases). */
export function exportedSymbols(program: ts.Program, files: string[]): Set<ts.Symbol> {
  const checker = program.getTypeChecker();
  const out = new Set<ts.Symbol>();
  for (const f of files) {
    const m = checker.getSymbolAtLocation(must(program.getSourceFile(f), `the source file ${f}`));
    for (const exp of m ? checker.getExportsOfModule(m) : []) out.add(resolveAlias(checker, exp));
  }
  return out;
}

/** A sorted `name kind` line per export of a declaration file. */
export function surface(file: string): string {
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
