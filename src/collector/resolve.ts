/**
 * Names to what they are: follows a local name (a decorator, a type, a namespace) through imports
 * and re-exports to the module that declares it, so that a marker is recognised by what it is, not
 * by how its import is spelled. Handles `import { Maximum as Max }`, `import * as m`, barrels
 * (`export * from 'kubeforge/markers'`, `export { Maximum } from ...`, `export { X as Y }`,
 * `export * as m from ...`, a local `import` then `export { }`), chains of barrels through several
 * files, and cycles (a name that only leads back to itself resolves to nothing).
 *
 * Purely syntactic over the files of the program plus module resolution: 'kubeforge/markers' and
 * '@kubernetes/client-node' are recognised by specifier and never loaded, nothing is type-checked,
 * and a local name shadowing an import in an inner scope is not considered (as the rest of the
 * analysis, which reads top-level declarations).
 */
import { ts } from '../util/typescript.cjs';
import { MARKERS_MODULE, type ModuleTarget } from '../loader/program.js';
import { getMarkerDefinition } from '../markers/definitions.js';

/** What a name refers to. */
export type NameTarget =
  /** An export of a module recognised by name; `name` is `*` for the module's namespace itself. */
  | { kind: 'external'; module: string; name: string }
  /** The namespace of a project module (`import * as m from './markers'`). */
  | { kind: 'module'; file: string }
  /** A declaration in a project file. */
  | { kind: 'local'; file: string; name: string };

/**
 * The type aliases and namespace objects kubeforge/markers exports besides its decorators (whose
 * names are the marker table's). An `export *` from 'kubeforge/markers' provides these names
 * even when another `export *` of the same barrel could too (a test compares the list with
 * src/markers/index.ts).
 */
export const MARKERS_MODULE_EXTRA_EXPORTS: readonly string[] = [
  'int',
  'int32',
  'int64',
  'float64',
  'Quantity',
  'IntOrString',
  'Duration',
  'Time',
  'MicroTime',
  'Items',
  'FieldDecorator',
  'ClassMarker',
  'FieldOrClassDecorator',
  'GroupVersionOptions',
  'ResourceOptions',
  'PrintColumnOptions',
  'ConversionWebhookOptions',
  'XValidationRule',
  'RbacRule',
  'WebhookOptions',
];
const EXTRA = new Set(MARKERS_MODULE_EXTRA_EXPORTS);

/** Whether kubeforge/markers exports this name. */
export function markersModuleExports(name: string): boolean {
  return EXTRA.has(name) || (!name.includes('.') && getMarkerDefinition(name) !== undefined);
}

type Binding =
  | { kind: 'import'; spec: ts.StringLiteral; name: string }
  | { kind: 'namespaceImport'; spec: ts.StringLiteral }
  /** `const Max = Maximum`, `const m = markers`, `const { Maximum: Max } = markers`: the name is `expr` then `path`. */
  | { kind: 'alias'; expr: ts.Expression; path: string[] }
  | { kind: 'declared' };

export interface ResolverHost {
  resolveModule(specifier: string, from: ts.SourceFile, usage?: ts.StringLiteralLike): ModuleTarget | undefined;
  /** The parsed file (of the program, or parsed on demand). */
  sourceFile(file: string): ts.SourceFile | undefined;
}

/** Resolves local names through imports and re-exports (see the module comment). Caches per file. */
export class NameResolver {
  private readonly bindings = new WeakMap<ts.SourceFile, Map<string, Binding>>();
  private readonly exportCache = new Map<string, NameTarget | null>();

  constructor(private readonly host: ResolverHost) {}

  /** What an identifier, read as a top-level name of its file, refers to. */
  resolveIdentifier(id: ts.Identifier): NameTarget | undefined {
    return this.resolveLocal(id.getSourceFile(), id.text, new Set());
  }

  /**
   * What an expression or entity name (`Maximum`, `m.Maximum`, `m.Items.MaxLength`, `k8s.V1Pod`)
   * refers to: the longest prefix that resolves, and the property names after it.
   */
  resolveAccess(expr: ts.Expression | ts.EntityName): { target: NameTarget; rest: string[] } | undefined {
    const parts: string[] = [];
    let e: ts.Node = expr;
    for (;;) {
      if (ts.isPropertyAccessExpression(e)) {
        if (!ts.isIdentifier(e.name)) return undefined;
        parts.unshift(e.name.text);
        e = e.expression;
      } else if (ts.isQualifiedName(e)) {
        parts.unshift(e.right.text);
        e = e.left;
      } else if (ts.isParenthesizedExpression(e)) e = e.expression;
      else break;
    }
    if (!ts.isIdentifier(e)) return undefined;
    return this.follow(this.resolveIdentifier(e), parts, new Set());
  }

  /** `target` then the property names `parts`: through module namespaces, into kubeforge/markers' exports. */
  private follow(
    target: NameTarget | undefined,
    parts: string[],
    seen: Set<string>,
  ): { target: NameTarget; rest: string[] } | undefined {
    parts = [...parts];
    while (target?.kind === 'module') {
      const part = parts.shift();
      if (part === undefined) break;
      target = this.resolveExport(target.file, part, seen);
    }
    if (!target) return undefined;
    if (target.kind === 'external' && target.name === '*' && parts.length > 0)
      return { target: { kind: 'external', module: target.module, name: parts[0] }, rest: parts.slice(1) };
    return { target, rest: parts };
  }

  /**
   * What an alias' right-hand side names, as a single target: `Maximum`, `m.Maximum`,
   * `m.Items.MaxLength` (an export of kubeforge/markers is named with its dots).
   */
  private resolveAliasExpr(
    sf: ts.SourceFile,
    expr: ts.Expression,
    path: readonly string[],
    seen: Set<string>,
  ): NameTarget | undefined {
    const parts: string[] = [];
    let e: ts.Expression = expr;
    for (;;) {
      e = unwrapExpression(e);
      if (ts.isPropertyAccessExpression(e) && ts.isIdentifier(e.name)) {
        parts.unshift(e.name.text);
        e = e.expression;
      } else break;
    }
    if (!ts.isIdentifier(e)) return undefined;
    const r = this.follow(this.resolveLocal(sf, e.text, seen), [...parts, ...path], seen);
    if (!r) return undefined;
    if (r.rest.length === 0) return r.target;
    // A marker's namespace member (`Items.MaxLength`) stays an export of kubeforge/markers.
    return r.target.kind === 'external' && r.target.name !== '*'
      ? { kind: 'external', module: r.target.module, name: [r.target.name, ...r.rest].join('.') }
      : undefined;
  }

  /** The marker name an expression refers to (`Maximum`, `Items.MaxLength`) when it leads to kubeforge/markers. */
  markerName(expr: ts.Expression): string | undefined {
    const r = this.resolveAccess(expr);
    if (r?.target.kind !== 'external' || r.target.module !== MARKERS_MODULE || r.target.name === '*') return undefined;
    return [r.target.name, ...r.rest].join('.');
  }

  /**
   * Where an alias declaration (an import or export specifier, a namespace import or export, an
   * import clause) leads.
   */
  resolveAliasDeclaration(decl: ts.Declaration): NameTarget | undefined {
    const seen = new Set<string>();
    if (ts.isImportSpecifier(decl)) {
      const spec = decl.parent.parent.parent.moduleSpecifier;
      return ts.isStringLiteral(spec) ? this.resolveFrom(spec, (decl.propertyName ?? decl.name).text, seen) : undefined;
    }
    if (ts.isNamespaceImport(decl)) {
      const spec = decl.parent.parent.moduleSpecifier;
      return ts.isStringLiteral(spec) ? this.resolveFrom(spec, '*', seen) : undefined;
    }
    if (ts.isExportSpecifier(decl)) {
      const exportDecl = decl.parent.parent;
      const local = (decl.propertyName ?? decl.name).text;
      if (exportDecl.moduleSpecifier && ts.isStringLiteral(exportDecl.moduleSpecifier))
        return this.resolveFrom(exportDecl.moduleSpecifier, local, seen);
      return this.resolveLocal(decl.getSourceFile(), local, seen);
    }
    if (ts.isNamespaceExport(decl)) {
      const spec = decl.parent.moduleSpecifier;
      return spec && ts.isStringLiteral(spec) ? this.resolveFrom(spec, '*', seen) : undefined;
    }
    return undefined;
  }

  /** What `name` exported by a project file is (`*`: the file's namespace). */
  resolveExport(file: string, name: string, seen: Set<string> = new Set()): NameTarget | undefined {
    const key = `${file}\0${name}`;
    const top = seen.size === 0;
    if (top) {
      const hit = this.exportCache.get(key);
      if (hit !== undefined) return hit ?? undefined;
    }
    const r = this.exportOf(file, name, seen);
    if (top) this.exportCache.set(key, r ?? null);
    return r;
  }

  private exportOf(file: string, name: string, seen: Set<string>): NameTarget | undefined {
    if (name === '*') return { kind: 'module', file };
    const key = `${file}\0${name}`;
    if (seen.has(key)) return undefined;
    seen.add(key);
    try {
      const sf = this.host.sourceFile(file);
      if (!sf) return undefined;
      const stars: ts.StringLiteral[] = [];
      for (const st of sf.statements) {
        if (ts.isExportDeclaration(st)) {
          const spec = st.moduleSpecifier && ts.isStringLiteral(st.moduleSpecifier) ? st.moduleSpecifier : undefined;
          const clause = st.exportClause;
          if (!clause) {
            if (spec) stars.push(spec);
          } else if (ts.isNamespaceExport(clause)) {
            if (clause.name.text === name && spec) return this.resolveFrom(spec, '*', seen);
          } else {
            for (const el of clause.elements) {
              if (el.name.text !== name) continue;
              const local = (el.propertyName ?? el.name).text;
              return spec ? this.resolveFrom(spec, local, seen) : this.resolveLocal(sf, local, seen);
            }
          }
        } else if (ts.isExportAssignment(st) && !st.isExportEquals && name === 'default') {
          // `export default markers` / `export default Maximum`: an alias of what it names.
          return this.resolveAliasExpr(sf, st.expression, [], seen) ?? { kind: 'local', file, name };
        } else if (isExported(st) && declaredNames(st).includes(name))
          return this.resolveLocal(sf, name, seen) ?? { kind: 'local', file, name };
      }
      if (stars.length === 0) return undefined;
      // `export *`: a name found in exactly one local module is that one; a module recognised by
      // name cannot be listed, so it provides the names it is known to export, and any other name
      // only when it is the one place left that could.
      const found: NameTarget[] = [];
      const externals: string[] = [];
      for (const spec of stars) {
        const target = this.host.resolveModule(spec.text, sf, spec);
        if (!target) continue;
        if (target.kind === 'external') {
          if (target.module === MARKERS_MODULE && markersModuleExports(name))
            return { kind: 'external', module: MARKERS_MODULE, name };
          externals.push(target.module);
          continue;
        }
        const r = this.exportOf(target.file, name, seen);
        if (r) found.push(r);
      }
      if (found.length === 1) return found[0];
      if (found.length === 0 && externals.length === 1) return { kind: 'external', module: externals[0], name };
      return undefined;
    } finally {
      seen.delete(key);
    }
  }

  private resolveFrom(spec: ts.StringLiteral, name: string, seen: Set<string>): NameTarget | undefined {
    const target = this.host.resolveModule(spec.text, spec.getSourceFile(), spec);
    if (!target) return undefined;
    if (target.kind === 'external') return { kind: 'external', module: target.module, name };
    return this.resolveExport(target.file, name, seen);
  }

  private resolveLocal(sf: ts.SourceFile, name: string, seen: Set<string>): NameTarget | undefined {
    const b = this.bindingsOf(sf).get(name);
    if (!b) return undefined;
    if (b.kind === 'declared') return { kind: 'local', file: sf.fileName, name };
    if (b.kind === 'namespaceImport') return this.resolveFrom(b.spec, '*', seen);
    if (b.kind === 'alias') {
      const key = `${sf.fileName}\0=${name}`;
      if (seen.has(key)) return undefined;
      seen.add(key);
      try {
        // An alias of something that is not a marker is a local value like any other.
        return this.resolveAliasExpr(sf, b.expr, b.path, seen) ?? { kind: 'local', file: sf.fileName, name };
      } finally {
        seen.delete(key);
      }
    }
    return this.resolveFrom(b.spec, b.name, seen);
  }

  private bindingsOf(sf: ts.SourceFile): Map<string, Binding> {
    let map = this.bindings.get(sf);
    if (map) return map;
    map = new Map();
    for (const st of sf.statements) {
      if (ts.isImportDeclaration(st)) {
        const clause = st.importClause;
        if (!clause || !ts.isStringLiteral(st.moduleSpecifier)) continue;
        const spec = st.moduleSpecifier;
        if (clause.name) map.set(clause.name.text, { kind: 'import', spec, name: 'default' });
        const nb = clause.namedBindings;
        if (!nb) continue;
        if (ts.isNamespaceImport(nb)) map.set(nb.name.text, { kind: 'namespaceImport', spec });
        else
          for (const el of nb.elements)
            map.set(el.name.text, { kind: 'import', spec, name: (el.propertyName ?? el.name).text });
      } else {
        if (ts.isVariableStatement(st) && st.declarationList.flags & ts.NodeFlags.Const) {
          for (const d of st.declarationList.declarations)
            if (d.initializer)
              for (const [n, path] of aliasNames(d.name))
                if (!map.has(n)) map.set(n, { kind: 'alias', expr: d.initializer, path });
        }
        for (const n of declaredNames(st)) if (!map.has(n)) map.set(n, { kind: 'declared' });
      }
    }
    this.bindings.set(sf, map);
    return map;
  }
}

function isExported(st: ts.Statement): boolean {
  return ts.canHaveModifiers(st) && !!ts.getModifiers(st)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
}

function unwrapExpression(e: ts.Expression): ts.Expression {
  while (
    ts.isParenthesizedExpression(e) ||
    ts.isAsExpression(e) ||
    ts.isSatisfiesExpression(e) ||
    ts.isNonNullExpression(e) ||
    ts.isTypeAssertionExpression(e)
  )
    e = e.expression;
  return e;
}

/** The names a `const` binding declares, each with the property path it takes from the initializer. */
function aliasNames(name: ts.BindingName, path: string[] = []): [string, string[]][] {
  if (ts.isIdentifier(name)) return [[name.text, path]];
  if (!ts.isObjectBindingPattern(name)) return [];
  const out: [string, string[]][] = [];
  for (const el of name.elements) {
    if (el.dotDotDotToken) continue;
    const key = el.propertyName
      ? ts.isIdentifier(el.propertyName) || ts.isStringLiteral(el.propertyName)
        ? el.propertyName.text
        : undefined
      : ts.isIdentifier(el.name)
        ? el.name.text
        : undefined;
    if (key !== undefined) out.push(...aliasNames(el.name, [...path, key]));
  }
  return out;
}

/** The names a top-level statement declares. */
function declaredNames(st: ts.Statement): string[] {
  if (ts.isVariableStatement(st))
    return st.declarationList.declarations.flatMap((d) => aliasNames(d.name).map(([n]) => n));
  if (
    ts.isClassDeclaration(st) ||
    ts.isFunctionDeclaration(st) ||
    ts.isInterfaceDeclaration(st) ||
    ts.isTypeAliasDeclaration(st) ||
    ts.isEnumDeclaration(st) ||
    ts.isModuleDeclaration(st) ||
    ts.isImportEqualsDeclaration(st)
  ) {
    return st.name && ts.isIdentifier(st.name) ? [st.name.text] : [];
  }
  return [];
}
