/**
 * The fast half of `kubeforge dev`'s build: each saved file transpiled on its own, with the
 * project's compiler options, into the dev build folder, as `tsc` would write it there (same output
 * path, same JavaScript for code that compiles file by file, a source map pointing at the source).
 * No type information is used, so it takes milliseconds a file; the type-check runs beside it
 * (typecheck.ts) and never holds the restart up unless the user asks for `--type-check strict`.
 *
 * The compiler is the TypeScript that kubeforge's analysis already holds in memory (ts-morph's),
 * not esbuild: `transpileModule` writes what `tsc` writes (decorators, module format, `import type`
 * elision), so code that runs after `npm run build` runs the same here. What a file-by-file
 * compile cannot know (a type re-exported without `export type`) fails when the manager loads it;
 * the session then falls back to a whole build by the project's own tsc.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { ts } from '../util/typescript.cjs';

export interface TranspileResult {
  /** Output files written (project-relative). */
  written: string[];
  /** Output files removed for deleted sources. */
  removed: string[];
  /** Output files whose bytes were already the same (not written again). */
  unchanged: number;
  /** tsc-style report of syntax errors; empty when none (nothing is written then). */
  errors: string;
  ms: number;
}

export class Transpiler {
  constructor(
    readonly projectDir: string,
    readonly outDir: string,
    readonly tsconfig = join(projectDir, 'tsconfig.json'),
  ) {}

  /** The project's compiler options with the dev build folder as outDir; read anew per build (a saved tsconfig counts). */
  private config(): ts.ParsedCommandLine {
    const read = ts.readConfigFile(this.tsconfig, ts.sys.readFile);
    if (read.error) throw new Error(this.format([read.error]));
    return ts.parseJsonConfigFileContent(
      read.config,
      ts.sys,
      dirname(this.tsconfig),
      { outDir: this.outDir, noEmit: false, declaration: false, declarationMap: false, composite: false },
      this.tsconfig,
    );
  }

  private format(diags: readonly ts.Diagnostic[]): string {
    return ts.formatDiagnostics(diags, {
      getCanonicalFileName: (f: string) => f,
      getCurrentDirectory: () => this.projectDir,
      getNewLine: () => '\n',
    });
  }

  /** Where tsc writes `file` (absolute) under this config: [javascript, source map?]; [] for a declaration or a file outside. */
  private outputs(parsed: ts.ParsedCommandLine, file: string): string[] {
    if (/\.d\.[mc]?ts$/.test(file)) return [];
    try {
      // A deleted file is no longer among the config's files: tsc answers for the files it knows.
      const known = parsed.fileNames.includes(file) ? parsed : { ...parsed, fileNames: [...parsed.fileNames, file] };
      return ts.getOutputFileNames(known, file, false).filter((f) => !/\.d\.[mc]?ts(\.map)?$/.test(f));
    } catch {
      return [];
    }
  }

  /**
   * Transpiles the changed files and removes the outputs of the deleted ones. Files are
   * project-relative; a syntax error in any file writes nothing at all.
   */
  build(changed: readonly string[], deleted: readonly string[]): TranspileResult {
    const t = Date.now();
    const parsed = this.config();
    const options = parsed.options;
    const inProgram = new Set(parsed.fileNames.map((f) => resolve(f)));
    const writes: ({ path: string; text: string } | { path: string; copyFrom: string })[] = [];
    const diags: ts.Diagnostic[] = [];
    for (const rel of changed) {
      const file = resolve(this.projectDir, rel);
      if (!existsSync(file)) continue;
      if (rel.endsWith('.json')) {
        // tsc copies a JSON module next to the code that imports it (resolveJsonModule).
        const out = join(this.outDir, relative(options.rootDir ?? this.projectDir, file));
        if (existsSync(out)) writes.push({ path: out, copyFrom: file });
        continue;
      }
      if (!inProgram.has(file)) continue;
      const [js, map] = this.outputs(parsed, file);
      if (!js) continue;
      const source = ts.sys.readFile(file) ?? '';
      const out = ts.transpileModule(source, {
        compilerOptions: {
          ...this.moduleFormat(options, file),
          noEmit: false,
          sourceMap: options.sourceMap && map !== undefined,
        },
        fileName: file,
        reportDiagnostics: true,
      });
      const errors = (out.diagnostics ?? []).filter((d) => d.category === ts.DiagnosticCategory.Error);
      if (errors.length) {
        diags.push(...errors);
        continue;
      }
      writes.push({ path: js, text: out.outputText });
      if (map && out.sourceMapText) writes.push({ path: map, text: this.fixMap(out.sourceMapText, js, file) });
    }
    if (diags.length) return { written: [], removed: [], unchanged: 0, errors: this.format(diags), ms: Date.now() - t };
    const written: string[] = [];
    let unchanged = 0;
    for (const w of writes) {
      const text = 'text' in w ? w.text : readFileSync(w.copyFrom, 'utf8');
      if (existsSync(w.path) && readFileSync(w.path, 'utf8') === text) {
        unchanged++;
        continue;
      }
      mkdirSync(dirname(w.path), { recursive: true });
      writeFileSync(w.path, text);
      written.push(relative(this.projectDir, w.path));
    }
    const removed: string[] = [];
    for (const rel of deleted) {
      for (const out of this.outputs(parsed, resolve(this.projectDir, rel))) {
        if (!existsSync(out)) continue;
        rmSync(out, { force: true });
        removed.push(relative(this.projectDir, out));
      }
    }
    return { written, removed, unchanged, errors: '', ms: Date.now() - t };
  }

  /**
   * Under `module: NodeNext` (Node16...) a file is an ES module or CommonJS by its extension and the
   * nearest package.json's `type`, which tsc reads and transpileModule does not: the format is
   * resolved here and passed as a plain module kind, which emits the same code.
   */
  private moduleFormat(options: ts.CompilerOptions, file: string): ts.CompilerOptions {
    const m = options.module;
    if (m === undefined || m < ts.ModuleKind.Node16 || m > ts.ModuleKind.NodeNext) return options;
    const format = ts.getImpliedNodeFormatForFile(file as ts.Path, undefined, ts.sys, options);
    return format === ts.ModuleKind.ESNext
      ? { ...options, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler }
      : { ...options, module: ts.ModuleKind.CommonJS, moduleResolution: ts.ModuleResolutionKind.Node10 };
  }

  /** transpileModule names the source by its base name; tsc names it relative to the map, as stack traces need. */
  private fixMap(text: string, js: string, source: string): string {
    const map = JSON.parse(text) as { sources?: string[]; file?: string };
    map.sources = [relative(dirname(js), source).split('\\').join('/')];
    return JSON.stringify(map);
  }
}
