/**
 * The compiler `kubeforge dev` keeps warm: the project's tsconfig compiled by TypeScript's builder
 * program (what `tsc --watch` uses), with every parsed source file kept between builds and read
 * again only when its modification time or size changed. A build type-checks the files a change
 * can affect (the changed files and those whose view of them changed), and emits only those, into
 * `outDir`; with an error nothing is emitted (noEmitOnError) and the errors are returned located
 * as tsc prints them (`src/x.ts(3,5): error TS2322: ...`). An error in a file not touched since stays
 * reported until it is fixed.
 *
 * It runs in a worker thread (compile-worker.ts), next to the manifests analysis of the main thread.
 * The compiler is the TypeScript that kubeforge's analysis bundles (ts-morph's), not the project's
 * own tsc (a native binary without a compiler API); `npm run build` still uses the project's.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ts } from '../util/typescript.cjs';

export interface CompileResult {
  ok: boolean;
  /** tsc-style report of the errors (empty when ok). */
  text: string;
  ms: number;
  /** Files written. */
  emitted: number;
}

type Builder = ts.EmitAndSemanticDiagnosticsBuilderProgram;
type SourceFile = ts.SourceFile;

export class WarmCompiler {
  private builder?: Builder;
  private readonly files = new Map<string, { stamp: string; sf: SourceFile; languageVersion: unknown }>();

  constructor(
    readonly projectDir: string,
    readonly outDir: string,
    readonly tsconfig = join(projectDir, 'tsconfig.json'),
  ) {}

  /**
   * Makes the next build treat one project file as changed. The builder computes the shapes of
   * every file the first time something changes after a cold build (seconds); a build after
   * prime() pays that at start, not on the user's first save.
   */
  prime(): void {
    const src = `${join(this.projectDir, 'src')}/`;
    for (const [key, entry] of this.files) {
      if (key.startsWith(src)) {
        entry.stamp = 'primed';
        return;
      }
    }
  }

  build(): CompileResult {
    const t = Date.now();
    const format = (diags: readonly ts.Diagnostic[]) =>
      ts.formatDiagnostics(diags, {
        getCanonicalFileName: (f: string) => f,
        getCurrentDirectory: () => this.projectDir,
        getNewLine: () => '\n',
      });
    const read = ts.readConfigFile(this.tsconfig, ts.sys.readFile);
    if (read.error) return { ok: false, text: format([read.error]), ms: Date.now() - t, emitted: 0 };
    const parsed = ts.parseJsonConfigFileContent(
      read.config,
      ts.sys,
      dirname(this.tsconfig),
      {
        outDir: this.outDir,
        noEmitOnError: true,
        noEmit: false,
        incremental: false,
        composite: false,
        declaration: false,
        declarationMap: false,
      },
      this.tsconfig,
    );
    const options = parsed.options;
    const host = ts.createCompilerHost(options, true);
    const libDir = libLocation(this.projectDir);
    if (!libDir) {
      return {
        ok: false,
        text: `TypeScript's library declarations (lib.es5.d.ts ...) are not in the project's node_modules (looked in ${libCandidates(this.projectDir).join(', ')}): run npm install\n`,
        ms: Date.now() - t,
        emitted: 0,
      };
    }
    host.getDefaultLibLocation = () => libDir;
    host.getDefaultLibFileName = (o) => join(libDir, ts.getDefaultLibFileName(o));
    const readSource = host.getSourceFile.bind(host);
    host.getSourceFile = (
      fileName: string,
      languageVersion: any,
      onError?: (message: string) => void,
      shouldCreate?: boolean,
    ) => {
      const key = resolve(fileName);
      let stamp: string;
      try {
        const st = statSync(key);
        stamp = `${st.mtimeMs}:${st.size}`;
      } catch {
        this.files.delete(key);
        return undefined;
      }
      const cached = this.files.get(key);
      if (cached && cached.stamp === stamp && cached.languageVersion === JSON.stringify(languageVersion))
        return cached.sf;
      const sf = readSource(fileName, languageVersion, onError, shouldCreate);
      if (!sf) return undefined;
      // The builder compares versions to find what changed.
      (sf as SourceFile & { version?: string }).version = stamp;
      this.files.set(key, { stamp, sf, languageVersion: JSON.stringify(languageVersion) });
      return sf;
    };
    let emitted = 0;
    const write = host.writeFile.bind(host);
    host.writeFile = (...args: Parameters<typeof write>) => {
      emitted++;
      write(...args);
    };
    const builder = ts.createEmitAndSemanticDiagnosticsBuilderProgram(
      parsed.fileNames,
      options,
      host,
      this.builder,
      ts.getConfigFileParsingDiagnostics(parsed),
      parsed.projectReferences,
    );
    this.builder = builder;
    const errors = [
      ...builder.getConfigFileParsingDiagnostics(),
      ...builder.getOptionsDiagnostics(),
      ...builder.getGlobalDiagnostics(),
      ...builder.getSyntacticDiagnostics(),
      ...builder.getSemanticDiagnostics(),
    ].filter((d) => d.category === ts.DiagnosticCategory.Error);
    if (errors.length) return { ok: false, text: format(errors), ms: Date.now() - t, emitted: 0 };
    // Emits what is pending, including what earlier builds with errors left unemitted.
    const result = builder.emit();
    const emitErrors = result.diagnostics.filter((d) => d.category === ts.DiagnosticCategory.Error);
    if (emitErrors.length) return { ok: false, text: format(emitErrors), ms: Date.now() - t, emitted };
    return { ok: true, text: '', ms: Date.now() - t, emitted };
  }
}

/** Where the project's TypeScript keeps lib.*.d.ts: the native package of TypeScript 7, or typescript/lib before it. */
function libCandidates(projectDir: string): string[] {
  const nm = join(projectDir, 'node_modules');
  return [join(nm, `@typescript/typescript-${process.platform}-${process.arch}/lib`), join(nm, 'typescript/lib')];
}

function libLocation(projectDir: string): string | undefined {
  return libCandidates(projectDir).find((d) => existsSync(join(d, 'lib.es5.d.ts')));
}
