/**
 * Edits of TypeScript files a user owns (API types, webhook files), made with ts-morph on the
 * text (never with regular expressions): add class decorators and named imports, find the
 * decorators a class carries. ts-morph is imported lazily (it costs a few hundred ms), only by
 * the commands that need it. Every function takes and returns text: the scaffold's virtual tree
 * stays the one place that holds changes.
 */
import type { ClassDeclaration, Project, SourceFile } from 'ts-morph';

type TsMorph = typeof import('ts-morph');
let tsMorph: Promise<TsMorph> | undefined;

async function load(): Promise<TsMorph> {
  tsMorph ??= import('ts-morph');
  return tsMorph;
}

/** One in-memory ts-morph project per edit session (no type checking, no lib files loaded). */
export class TsEditor {
  private constructor(
    private readonly morph: TsMorph,
    private readonly project: Project,
  ) {}

  static async create(): Promise<TsEditor> {
    const morph = await load();
    const project = new morph.Project({
      useInMemoryFileSystem: true,
      skipAddingFilesFromTsConfig: true,
      skipFileDependencyResolution: true,
      manipulationSettings: { quoteKind: morph.QuoteKind.Single, indentationText: morph.IndentationText.TwoSpaces },
    });
    return new TsEditor(morph, project);
  }

  /** Parses `text` as the file `path` (replacing an earlier parse of the same path). */
  parse(path: string, text: string): SourceFile {
    return this.project.createSourceFile(`/${path}`, text, { overwrite: true });
  }

  /** The top-level class `name` of a file, or undefined. */
  getClass(file: SourceFile, name: string): ClassDeclaration | undefined {
    return file.getClass(name);
  }

  /** 1-based line of a class's decorator named `decorator`, or undefined when it has none. */
  decoratorLine(file: SourceFile, className: string, decorator: string): number | undefined {
    const d = file.getClass(className)?.getDecorator(decorator);
    return d ? d.getStartLineNumber() : undefined;
  }

  /**
   * Adds `@Name()` decorators (no arguments) to a class, after the ones it has, for each name it
   * does not carry yet; returns the names added.
   */
  addDecorators(file: SourceFile, className: string, names: readonly string[]): string[] {
    const cls = file.getClassOrThrow(className);
    const added: string[] = [];
    for (const name of names) {
      if (cls.getDecorator(name)) continue;
      cls.addDecorator({ name, arguments: [] });
      added.push(name);
    }
    return added;
  }

  /**
   * Makes `names` importable from `module`: each name missing is added to the file's (first)
   * value import of that module, in case-insensitive order among the names there, or a new import
   * declaration is added (a package's after the other package imports, a relative module's last). `alias` imports `name as alias`; `typeOnly` marks
   * the specifier `type`. A name already imported (under the same local name) is left alone.
   */
  ensureNamedImports(
    file: SourceFile,
    module: string,
    names: readonly { name: string; alias?: string; typeOnly?: boolean }[],
  ): void {
    const local = (n: { name: string; alias?: string }) => n.alias ?? n.name;
    const imported = new Set(
      file
        .getImportDeclarations()
        .filter((d) => d.getModuleSpecifierValue() === module)
        .flatMap((d) => d.getNamedImports().map((s) => s.getAliasNode()?.getText() ?? s.getName())),
    );
    // Each local name once, even when `names` repeats one.
    const missing = names.filter(
      (n, i) => !imported.has(local(n)) && names.findIndex((m) => local(m) === local(n)) === i,
    );
    if (missing.length === 0) return;
    const decl = file
      .getImportDeclarations()
      .find(
        (d) =>
          d.getModuleSpecifierValue() === module && !d.isTypeOnly() && !d.getNamespaceImport() && !d.getDefaultImport(),
      );
    if (!decl) {
      // Packages go after the other package imports, relative modules after every import.
      const imports = file.getImportDeclarations();
      const before = module.startsWith('.')
        ? imports
        : imports.filter((d) => !d.getModuleSpecifierValue().startsWith('.'));
      const index = before.length
        ? before[before.length - 1].getChildIndex() + 1
        : imports.length
          ? imports[0].getChildIndex()
          : 0;
      file.insertImportDeclaration(index, {
        moduleSpecifier: module,
        namedImports: [...missing]
          .sort((a, b) => compare(local(a), local(b)))
          .map((n) => ({ name: n.name, alias: n.alias, isTypeOnly: n.typeOnly })),
      });
      return;
    }
    for (const n of missing) {
      const existing = decl.getNamedImports();
      let at = existing.findIndex((s) => compare(s.getAliasNode()?.getText() ?? s.getName(), local(n)) > 0);
      if (at < 0) at = existing.length;
      decl.insertNamedImport(at, { name: n.name, alias: n.alias, isTypeOnly: n.typeOnly });
    }
  }

  /**
   * The names a piece of TypeScript binds or refers to: imports, declarations, parameters, and
   * the globals it uses; not property names (`obj.spec`, `{ spec: 1 }`, class members). Text that
   * does not parse still yields its identifiers.
   */
  scopeNames(text: string): Set<string> {
    const ts = this.morph.ts;
    const sf = ts.createSourceFile('/names.ts', text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
    const names = new Set<string>();
    const isPropertyName = (id: import('ts-morph').ts.Identifier): boolean => {
      const p = id.parent;
      if (ts.isPropertyAccessExpression(p)) return p.name === id;
      if (ts.isQualifiedName(p)) return p.right === id;
      if (
        ts.isPropertyAssignment(p) ||
        ts.isPropertyDeclaration(p) ||
        ts.isPropertySignature(p) ||
        ts.isMethodDeclaration(p) ||
        ts.isMethodSignature(p)
      )
        return p.name === id;
      if (ts.isGetAccessorDeclaration(p) || ts.isSetAccessorDeclaration(p) || ts.isEnumMember(p)) return p.name === id;
      // `import { a as b }` binds b; `{ a: b }` destructuring binds b
      if (ts.isImportSpecifier(p) || ts.isExportSpecifier(p)) return p.propertyName === id;
      if (ts.isBindingElement(p)) return p.propertyName === id;
      return false;
    };
    const visit = (node: import('ts-morph').ts.Node): void => {
      if (ts.isIdentifier(node) && !isPropertyName(node)) names.add(node.text);
      node.forEachChild(visit);
    };
    visit(sf);
    return names;
  }

  /** The local name of `name` imported from `module` in `file`, or undefined when not imported. */
  importedAs(file: SourceFile, module: string, name: string): string | undefined {
    for (const d of file.getImportDeclarations()) {
      if (d.getModuleSpecifierValue() !== module) continue;
      const s = d.getNamedImports().find((n) => n.getName() === name);
      if (s) return s.getAliasNode()?.getText() ?? name;
    }
    return undefined;
  }

  /**
   * The local name under which `name` from `module` can be used in `file`, adding the import when
   * missing: `name` itself, or `name as <name>Marker` (numbered if need be) when the file already
   * declares or imports something else called `name` (a Kind named StorageVersion, say).
   */
  importName(file: SourceFile, module: string, name: string): string {
    const imported = this.importedAs(file, module, name);
    if (imported) return imported;
    const used = new Set<string>([...this.scopeNames(file.getFullText())]);
    let local = name;
    for (let i = 1; used.has(local); i++) local = `${name}Marker${i === 1 ? '' : i}`;
    this.ensureNamedImports(file, module, [{ name, alias: local === name ? undefined : local }]);
    return local;
  }

  /** Whether the file declares a top-level class or variable named `name`. */
  declares(file: SourceFile, name: string): boolean {
    return (
      file.getClass(name) !== undefined ||
      file.getVariableDeclaration(name) !== undefined ||
      file.getFunction(name) !== undefined
    );
  }

  /** Syntax errors of a file as `line: message` texts (empty when it parses). */
  syntaxErrors(file: SourceFile): string[] {
    const diagnostics =
      (file.compilerNode as unknown as { parseDiagnostics?: { start?: number; messageText: unknown }[] })
        .parseDiagnostics ?? [];
    return diagnostics.map((d) => {
      const line = d.start === undefined ? 0 : file.getLineAndColumnAtPos(d.start).line;
      return `${line}: ${this.morph.ts.flattenDiagnosticMessageText(d.messageText as string, '\n')}`;
    });
  }
}

function compare(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  return x < y ? -1 : x > y ? 1 : 0;
}
