/**
 * The loader: turns a project folder into a TypeScript program for the analysis, as
 * controller-tools' pkg/loader does for Go packages. Lean on purpose: the roots are the files that
 * can use markers, that is the files importing 'kubeforge/markers' and the files importing a local
 * module that re-exports it (a barrel such as `src/api/v1/markers.ts`, found through the
 * compiler's module resolution, chains and cycles included); the modules 'kubeforge/markers' and
 * '@kubernetes/client-node' are never loaded (their imports are recognised by specifier), the
 * default library is replaced by a few global declarations, and nothing is type-checked: the
 * analysis uses the checker for name resolution and enum constants only.
 */
import { type Dirent, type Stats, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ts } from '../util/typescript.cjs';
import { error, type Reporter } from '../diagnostics/index.js';

/** The module users import markers from (recognised by specifier, never loaded). */
export const MARKERS_MODULE = 'kubeforge/markers';
/** Kubernetes' model types (recognised by specifier, never loaded). */
export const K8S_MODULE = '@kubernetes/client-node';
const LIB_FILE = '/__kubeforge__/lib.kubeforge.d.ts';
/** Cheap pre-filter: only files naming the markers module in quotes can hold markers. */
const IMPORTS_MARKERS = /['"]kubeforge\/markers['"]/;
/** The global declarations the analysis needs in place of TypeScript's default library. */
const LIB_TEXT = `
interface Array<T> { length: number; [n: number]: T; }
interface ReadonlyArray<T> { readonly length: number; readonly [n: number]: T; }
interface Boolean {} interface Function {} interface CallableFunction {} interface NewableFunction {}
interface IArguments {} interface Number {} interface Object {} interface RegExp {} interface String {}
interface Symbol {} interface TemplateStringsArray extends ReadonlyArray<string> {}
interface Date {} interface Uint8Array {} interface Map<K, V> {} interface Set<T> {} interface Promise<T> {}
interface ReadonlyMap<K, V> {} interface ReadonlySet<T> {} interface BigInt {}
type PropertyKey = string | number | symbol;
type Record<K extends keyof any, T> = { [P in K]: T; };
type Partial<T> = { [P in keyof T]?: T[P]; };
type Required<T> = { [P in keyof T]-?: T[P]; };
type Readonly<T> = { readonly [P in keyof T]: T[P]; };
type Pick<T, K extends keyof T> = { [P in K]: T[P]; };
type Exclude<T, U> = T extends U ? never : T;
type Omit<T, K extends keyof any> = Pick<T, Exclude<keyof T, K>>;
type NonNullable<T> = T & {};
`;

export interface ProgramOptions {
  projectDir: string;
  tsconfigPath?: string;
  /** Limit the analysis to these folders / files (relative to projectDir or absolute). */
  paths?: string[];
  /**
   * Chooses which of the files that can use markers the program is made of (an incremental run
   * keeps only the files whose results it cannot reuse). Called with every such file, sorted.
   */
  selectRoots?: (rootFiles: readonly string[], tools: RootTools) => string[];
  /** Texts of project files already read (absolute path -> text), used instead of reading them again. */
  texts?: ReadonlyMap<string, string>;
  /**
   * Files a command has planned but not written (a scaffold's virtual tree): the program reads
   * the project as it will be once the plan is committed. See {@link SourceOverlay}.
   */
  overlay?: SourceOverlay;
}

/**
 * Planned contents laid over the disk: absolute path -> the text planned for it, or null for a
 * planned deletion. Every read of the loader goes through it: the tsconfig and its `include`
 * globs, the source files, module resolution (file and folder existence, package.json).
 */
export interface SourceOverlay {
  readonly files: ReadonlyMap<string, string | null>;
}

/** What {@link ProgramOptions.selectRoots} may ask the loader. */
export interface RootTools {
  /** The file's text as the program would read it (undefined when unreadable). */
  text(file: string): string | undefined;
  /** The files (absolute) its local imports and re-exports resolve to, with the program's module resolution; declaration files and node_modules left out. */
  imports(file: string): string[];
}

/** Where a module specifier leads: a module recognised by name (never loaded), or a file. */
export type ModuleTarget = { kind: 'external'; module: string } | { kind: 'file'; file: string };

/** Whether a specifier names a module the loader recognises by name and never loads. */
export function isExternalModule(specifier: string): boolean {
  return specifier === MARKERS_MODULE || specifier === K8S_MODULE || specifier.startsWith(`${K8S_MODULE}/`);
}

export interface LoadedProgram {
  program: ts.Program;
  checker: ts.TypeChecker;
  projectDir: string;
  /** Files that can use markers (within `paths`), sorted: importing 'kubeforge/markers', or a local module re-exporting it. */
  rootFiles: string[];
  isLibFile(sf: ts.SourceFile): boolean;
  /** Parses a project file that is not part of the program (e.g. a groupversion.ts outside `paths`). */
  parseExtra(file: string): ts.SourceFile | undefined;
  /**
   * Where a module specifier written in `from` leads, with the compiler's module resolution (the
   * program's options and cache): 'kubeforge/markers' and '@kubernetes/client-node' by name,
   * anything else to the file it resolves to; undefined when it resolves to nothing.
   */
  resolveModule(specifier: string, from: ts.SourceFile, usage?: ts.StringLiteralLike): ModuleTarget | undefined;
  /** Files outside the project's sources read to decide which files can use markers (a barrel outside the tsconfig's include). */
  readFiles(): string[];
  /** Whether a file exists, as the program sees the project (overlay included). */
  fileExists(file: string): boolean;
}

function walkTs(dir: string, out: string[]): string[] {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return out;
  }
  for (const name of names) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const p = join(dir, name);
    let st: Stats;
    try {
      st = statSync(p);
    } catch {
      continue;
    }
    if (st.isDirectory()) walkTs(p, out);
    else if (/\.(c|m)?tsx?$/.test(name) && !/\.d\.(c|m)?ts$/.test(name)) out.push(p);
  }
  return out;
}

function within(file: string, scope: string): boolean {
  return file === scope || file.startsWith(scope.endsWith(sep) ? scope : scope + sep);
}

/**
 * A file with an export declaration (`export {`, `export *`, `export type {`), a default export
 * (`export default markers`) or an exported alias (`export const Max = Maximum`,
 * `export const { Maximum: Max } = m`) may re-export markers.
 */
const REEXPORTS = /\bexport\s*(?:(?:type\s*)?[*{]|default\b|const\s+(?:\{|[\w$]+\s*=\s*[\w$.]+\s*[;\n]))/;
/** A specifier that may lead to a project file without path mapping: relative, or a package.json import (`#x`). */
const LOCAL_SPECIFIER = /['"](?:\.{1,2}\/|#)/;

/**
 * Parsed files of the project's dependencies (anything under node_modules: kubeforge's and
 * client-node's declarations), shared by every program this process loads. A long-lived process
 * (`kubeforge dev` runs the incremental manifests on each save) then parses them once instead of
 * on every run, most of an incremental run's time. A file is reused while its size and mtime are
 * unchanged; the SourceFile objects go into each new program as TypeScript's language service
 * shares them (binding happens once per file, each checker keeps its own state).
 */
const dependencyFiles = new Map<string, { stamp: string; sf: ts.SourceFile }>();

/** How many dependency files loadProgram parsed, and how many it reused, in this process (for tests). */
export const dependencyParses = { parsed: 0, reused: 0 };

/**
 * Loads the program; an unreadable or missing tsconfig is reported (KF4010, KF4011) and loading
 * goes on without it. A `paths` entry that does not exist, or holds no source file of the
 * project, is an error (KF4014): a typo must not pass for "nothing to do".
 */
export function loadProgram(options: ProgramOptions, reporter: Reporter): LoadedProgram {
  const projectDir = resolve(options.projectDir);
  const fsys = overlaySystem(options.overlay);
  const tsconfigPath = options.tsconfigPath
    ? resolve(projectDir, options.tsconfigPath)
    : join(projectDir, 'tsconfig.json');
  const project = readProject(options, projectDir, tsconfigPath, fsys, reporter);
  const fileNames = options.paths?.length
    ? withinPaths(options.paths, project.fileNames, projectDir, tsconfigPath, fsys, reporter)
    : project.fileNames;
  const opts = loaderCompilerOptions(project.compilerOptions);
  const target = opts.target ?? ts.ScriptTarget.ES2022;
  const texts = new Map<string, string>();
  const cache = new Map<string, ts.SourceFile>();
  const parse = (file: string, text: string) =>
    ts.createSourceFile(file, text, { languageVersion: target, jsDocParsingMode: ts.JSDocParsingMode.ParseAll }, true);
  const host = ts.createCompilerHost(opts, true);
  const readText = (file: string): string | undefined => {
    if (file === LIB_FILE) return LIB_TEXT;
    // A planned file (the overlay) wins over a text read from the disk before.
    const known = texts.get(file) ?? (options.overlay?.files.has(file) ? undefined : options.texts?.get(file));
    if (known !== undefined) return known;
    const t = fsys.readFile(file);
    if (t !== undefined) texts.set(file, t);
    return t;
  };
  const inNodeModules = `${sep}node_modules${sep}`;
  host.getSourceFile = (file) => {
    const hit = cache.get(file);
    if (hit) return hit;
    const shared =
      file.includes(inNodeModules) && !options.overlay?.files.has(file) && options.texts?.get(file) === undefined
        ? dependencyFile(file, target, () => {
            const text = readText(file);
            return text === undefined ? undefined : parse(file, text);
          })
        : undefined;
    if (shared !== undefined) {
      if (shared) cache.set(file, shared);
      return shared || undefined;
    }
    const text = readText(file);
    if (text === undefined) return undefined;
    const sf = parse(file, text);
    cache.set(file, sf);
    return sf;
  };
  host.fileExists = (f) => f === LIB_FILE || texts.has(f) || fsys.fileExists(f);
  host.readFile = (f) => readText(f);
  if (options.overlay) {
    host.directoryExists = fsys.directoryExists;
    host.getDirectories = fsys.getDirectories;
  }
  host.getDefaultLibFileName = () => LIB_FILE;
  const resolutionCache = ts.createModuleResolutionCache(projectDir, (x) => x, opts);
  const resolveFile = (name: string, containingFile: string, mode: ts.ResolutionMode): string | undefined =>
    ts.resolveModuleName(name, containingFile, opts, host, resolutionCache, undefined, mode).resolvedModule
      ?.resolvedFileName;
  host.resolveModuleNameLiterals = (literals, containingFile, _redirect, options, containingSourceFile) =>
    literals.map((lit) => {
      const name = lit.text;
      if (isExternalModule(name)) return { resolvedModule: undefined };
      const mode = ts.getModeForUsageLocation(containingSourceFile, lit, options);
      return ts.resolveModuleName(name, containingFile, options, host, resolutionCache, undefined, mode);
    });

  // Which files can use markers. Importing 'kubeforge/markers' (a cheap text test) is the common
  // case; otherwise a file qualifies when a module it imports re-exports markers, directly or
  // through other local modules. Only specifiers that can lead to a project file are resolved,
  // with the program's resolution cache, and only for files that import from such specifiers.
  const localTargets = localTargetsOf(
    opts,
    (file) => ts.getImpliedNodeFormatForFile(file, resolutionCache.getPackageJsonInfoCache(), host, opts),
    resolveFile,
  );
  const { rootFiles, outsideReads } = markerRoots(fileNames, readText, localTargets);
  const chosen = options.selectRoots
    ? options.selectRoots(rootFiles, {
        text: readText,
        imports: (file) => {
          const text = readText(file);
          if (text === undefined) return [];
          const local = localTargets(file, text);
          if (!text.includes('/// <reference')) return local;
          const refs = ts
            .preProcessFile(text, true, false)
            .referencedFiles.map((r) => resolve(dirname(file), r.fileName));
          return [...new Set([...local, ...refs])];
        },
      })
    : rootFiles;
  const program = ts.createProgram({ rootNames: [LIB_FILE, ...chosen], options: opts, host });
  const checker = program.getTypeChecker();
  const sourceFile = (file: string): ts.SourceFile | undefined =>
    program.getSourceFile(file) ?? host.getSourceFile(file, target);
  return {
    program,
    checker,
    projectDir,
    rootFiles: chosen,
    isLibFile: (sf) => sf.fileName === LIB_FILE,
    parseExtra: (file) => sourceFile(resolve(file)),
    resolveModule: (specifier, from, usage) => {
      if (isExternalModule(specifier)) return { kind: 'external', module: specifier };
      const mode = usage
        ? ts.getModeForUsageLocation(from, usage, opts)
        : ts.getImpliedNodeFormatForFile(from.fileName, resolutionCache.getPackageJsonInfoCache(), host, opts);
      const file = resolveFile(specifier, from.fileName, mode);
      return file ? { kind: 'file', file: resolve(file) } : undefined;
    },
    readFiles: () => [...outsideReads],
    fileExists: (file) => fsys.fileExists(resolve(file)),
  };
}

/** The compiler options and source files of the project: its tsconfig's, or src/ without one (KF4010, KF4011). */
function readProject(
  options: ProgramOptions,
  projectDir: string,
  tsconfigPath: string,
  fsys: LoaderSystem,
  reporter: Reporter,
): { compilerOptions: ts.CompilerOptions; fileNames: string[] } {
  const defaults: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
  };
  if (fsys.fileExists(tsconfigPath)) {
    const read = ts.readConfigFile(tsconfigPath, fsys.readFile);
    if (read.error) {
      reporter.report(
        error(
          'KF4010',
          `cannot read ${tsconfigPath}: ${ts.flattenDiagnosticMessageText(read.error.messageText, ' ')}`,
          { file: tsconfigPath, hint: 'fix the JSON of tsconfig.json' },
        ),
      );
      return { compilerOptions: defaults, fileNames: fsys.sourcesUnder(join(projectDir, 'src')) };
    }
    const parsed = ts.parseJsonConfigFileContent(read.config, fsys, dirname(tsconfigPath), undefined, tsconfigPath);
    return {
      compilerOptions: parsed.options,
      fileNames: parsed.fileNames.filter((f) => !/\.d\.(c|m)?ts$/.test(f)).map((f) => resolve(f)),
    };
  }
  if (options.tsconfigPath) {
    reporter.report(
      error('KF4011', `tsconfig not found: ${tsconfigPath}`, { hint: 'pass the path of an existing tsconfig.json' }),
    );
    return { compilerOptions: defaults, fileNames: [] };
  }
  return { compilerOptions: defaults, fileNames: fsys.sourcesUnder(join(projectDir, 'src')) };
}

/** The files under `--paths`; a path that does not exist or holds no source of the project is KF4014. */
function withinPaths(
  paths: readonly string[],
  fileNames: string[],
  projectDir: string,
  tsconfigPath: string,
  fsys: LoaderSystem,
  reporter: Reporter,
): string[] {
  const scopes = paths.map((p) => resolve(projectDir, p));
  for (const scope of scopes) {
    const inside = relative(projectDir, scope);
    const shown = inside === '' ? '.' : inside.startsWith('..') || isAbsolute(inside) ? scope : inside;
    if (!fsys.fileExists(scope) && !fsys.directoryExists(scope)) {
      reporter.report(
        error('KF4014', `--paths: ${shown} does not exist`, {
          hint: 'name files or folders of the project (relative to the current folder), e.g. --paths src/api/v1',
        }),
      );
    } else if (!fileNames.some((f) => within(f, scope))) {
      reporter.report(
        error('KF4014', `--paths: ${shown} holds no TypeScript source of the project`, {
          hint: `name a folder or .ts file that ${fsys.fileExists(tsconfigPath) ? `${relative(projectDir, tsconfigPath)} includes` : 'src/ holds'}, e.g. --paths src/api/v1`,
        }),
      );
    }
  }
  return fileNames.filter((f) => scopes.some((s) => within(f, s)));
}

/** The project's compiler options as the loader runs them: no lib but its own, no emit, no JS. */
function loaderCompilerOptions(compilerOptions: ts.CompilerOptions): ts.CompilerOptions {
  return {
    ...compilerOptions,
    noLib: true,
    types: [],
    noEmit: true,
    skipLibCheck: true,
    skipDefaultLibCheck: true,
    declaration: false,
    composite: false,
    incremental: false,
    tsBuildInfoFile: undefined,
    plugins: undefined,
    allowJs: false,
    checkJs: false,
  };
}

/**
 * A dependency's file from the process-wide cache (see dependencyFiles), parsed with `parse` when
 * it is new or changed: the SourceFile, `null` when it cannot be read, `undefined` when it cannot
 * be stamped (then the caller reads it as a project file).
 */
function dependencyFile(
  file: string,
  target: ts.ScriptTarget,
  parse: () => ts.SourceFile | undefined,
): ts.SourceFile | null | undefined {
  let stamp: string;
  try {
    const st = statSync(file);
    stamp = `${st.size}:${st.mtimeMs}:${target}`;
  } catch {
    return undefined;
  }
  const shared = dependencyFiles.get(file);
  if (shared?.stamp === stamp) {
    dependencyParses.reused++;
    return shared.sf;
  }
  const sf = parse();
  if (!sf) return null;
  dependencyParses.parsed++;
  dependencyFiles.set(file, { stamp, sf });
  return sf;
}

/**
 * The project files a file imports (`file`, its `text`): only specifiers that can lead to a
 * project file are resolved (relative, `#imports`, or any with path mapping), declarations and
 * node_modules left out.
 */
function localTargetsOf(
  opts: ts.CompilerOptions,
  modeOf: (file: string) => ts.ResolutionMode,
  resolveFile: (name: string, containingFile: string, mode: ts.ResolutionMode) => string | undefined,
): (file: string, text: string) => string[] {
  const pathMapped = opts.paths !== undefined || opts.baseUrl !== undefined;
  return (file, text) => {
    if (!pathMapped && !LOCAL_SPECIFIER.test(text)) return [];
    const mode = modeOf(file);
    const out: string[] = [];
    for (const ref of ts.preProcessFile(text, true, false).importedFiles) {
      const name = ref.fileName;
      if (isExternalModule(name) || name.startsWith('node:')) continue;
      if (!pathMapped && !name.startsWith('.') && !name.startsWith('#')) continue;
      const resolved = resolveFile(name, file, mode);
      if (resolved && !/\.d\.(c|m)?ts$/.test(resolved) && !resolved.includes(`${sep}node_modules${sep}`))
        out.push(resolve(resolved));
    }
    return out;
  };
}

/**
 * The files that can use markers: those importing 'kubeforge/markers' (a cheap text test), or a
 * local module that re-exports markers, directly or through other local modules; and the files
 * outside `fileNames` read to find out.
 */
function markerRoots(
  fileNames: string[],
  readText: (file: string) => string | undefined,
  localTargets: (file: string, text: string) => string[],
): { rootFiles: string[]; outsideReads: Set<string> } {
  const sources = new Set(fileNames);
  const outsideReads = new Set<string>();
  const reexportsMarkers = new Map<string, boolean>();
  /** Whether a file re-exports markers (directly or through local modules); `cyclic` when a cycle cut the search short. */
  const reexports = (file: string, onPath: Set<string>): { value: boolean; cyclic: boolean } => {
    const known = reexportsMarkers.get(file);
    if (known !== undefined) return { value: known, cyclic: false };
    if (onPath.has(file)) return { value: false, cyclic: true };
    const text = readText(file);
    if (!sources.has(file)) outsideReads.add(file);
    let value = false;
    let cyclic = false;
    if (text !== undefined && REEXPORTS.test(text)) {
      if (IMPORTS_MARKERS.test(text)) value = true;
      else {
        onPath.add(file);
        for (const next of localTargets(file, text)) {
          const r = reexports(next, onPath);
          cyclic ||= r.cyclic;
          if (r.value) {
            value = true;
            break;
          }
        }
        onPath.delete(file);
      }
    }
    if (value || !cyclic) reexportsMarkers.set(file, value);
    return { value, cyclic };
  };
  const rootFiles: string[] = [];
  for (const file of [...new Set(fileNames)].sort()) {
    const text = readText(file);
    if (text === undefined) continue;
    if (
      IMPORTS_MARKERS.test(text) ||
      localTargets(file, text).some((t) => t !== file && reexports(t, new Set([file])).value)
    )
      rootFiles.push(file);
  }
  return { rootFiles, outsideReads };
}

/** What the loader reads the project through: the disk, or the disk under an overlay. */
interface LoaderSystem extends ts.ParseConfigHost {
  readFile(path: string): string | undefined;
  directoryExists(path: string): boolean;
  getDirectories(path: string): string[];
  /** The project's TypeScript sources below a folder (no tsconfig), sorted. */
  sourcesUnder(dir: string): string[];
}

/** TypeScript's glob walker, the one `ts.sys.readDirectory` uses (internal, as ts-morph's in-memory file system uses it). */
type MatchFiles = (
  path: string,
  extensions: readonly string[] | undefined,
  excludes: readonly string[] | undefined,
  includes: readonly string[] | undefined,
  useCaseSensitiveFileNames: boolean,
  currentDirectory: string,
  depth: number | undefined,
  getFileSystemEntries: (path: string) => { files: readonly string[]; directories: readonly string[] },
  realpath: (path: string) => string,
) => string[];

const IS_SOURCE = (name: string) => /\.(c|m)?tsx?$/.test(name) && !/\.d\.(c|m)?ts$/.test(name);

function overlaySystem(overlay: SourceOverlay | undefined): LoaderSystem {
  const readDisk = (path: string): string | undefined => {
    try {
      return readFileSync(path, 'utf8');
    } catch {
      return undefined;
    }
  };
  if (!overlay || overlay.files.size === 0) {
    return {
      useCaseSensitiveFileNames: ts.sys.useCaseSensitiveFileNames,
      readDirectory: (...args) => ts.sys.readDirectory(...args),
      fileExists: (p) => ts.sys.fileExists(p),
      readFile: readDisk,
      directoryExists: (p) => ts.sys.directoryExists(p),
      getDirectories: (p) => ts.sys.getDirectories(p),
      sourcesUnder: (dir) => walkTs(dir, []),
    };
  }
  const planned = new Map([...overlay.files].map(([p, text]) => [resolve(p), text]));
  /** Names directly below `dir` that the overlay adds (files) or implies (folders). */
  const plannedBelow = (dir: string) => {
    const prefix = dir.endsWith(sep) ? dir : dir + sep;
    const files = new Map<string, boolean>();
    const directories = new Set<string>();
    for (const [p, text] of planned) {
      if (!p.startsWith(prefix)) continue;
      const rest = p.slice(prefix.length).split(sep);
      if (rest.length > 1) {
        if (text !== null) directories.add(rest[0]);
      } else files.set(rest[0], text !== null);
    }
    return { files, directories };
  };
  const directoryExists = (p: string): boolean => {
    const dir = resolve(p);
    return (
      ts.sys.directoryExists(dir) ||
      plannedBelow(dir).directories.size > 0 ||
      [...plannedBelow(dir).files.values()].some(Boolean)
    );
  };
  const entries = (p: string) => {
    const dir = resolve(p);
    const files = new Set<string>();
    const directories = new Set<string>();
    let names: Dirent[] = [];
    try {
      names = readdirSync(dir, { withFileTypes: true });
    } catch {
      /* a folder only the overlay has */
    }
    for (const e of names) {
      let isDir = e.isDirectory();
      let isFile = e.isFile();
      if (e.isSymbolicLink()) {
        try {
          const st = statSync(join(dir, e.name));
          isDir = st.isDirectory();
          isFile = st.isFile();
        } catch {
          continue;
        }
      }
      if (isDir) directories.add(e.name);
      else if (isFile) files.add(e.name);
    }
    const below = plannedBelow(dir);
    for (const [name, present] of below.files) {
      if (present) files.add(name);
      else files.delete(name);
    }
    for (const name of below.directories) directories.add(name);
    return { files: [...files].sort(), directories: [...directories].sort() };
  };
  // A test checks that the bundled TypeScript still has it (test/hostile/plan-first.test.ts).
  const matchFiles = (ts as unknown as { matchFiles: MatchFiles }).matchFiles;
  const system: LoaderSystem = {
    useCaseSensitiveFileNames: ts.sys.useCaseSensitiveFileNames,
    readDirectory: (rootDir, extensions, excludes, includes, depth) =>
      matchFiles(
        rootDir,
        extensions,
        excludes,
        includes,
        ts.sys.useCaseSensitiveFileNames,
        process.cwd(),
        depth,
        entries,
        (p) => ts.sys.realpath?.(p) ?? p,
      ),
    fileExists: (p) => {
      const text = planned.get(resolve(p));
      return text === undefined ? ts.sys.fileExists(p) : text !== null;
    },
    readFile: (p) => {
      const text = planned.get(resolve(p));
      return text === undefined ? readDisk(p) : (text ?? undefined);
    },
    directoryExists,
    getDirectories: (p) => entries(p).directories,
    sourcesUnder: (dir) => {
      const out: string[] = [];
      const visit = (d: string) => {
        const { files, directories } = entries(d);
        for (const name of directories) if (name !== 'node_modules' && !name.startsWith('.')) visit(join(d, name));
        for (const name of files) if (IS_SOURCE(name)) out.push(join(d, name));
      };
      if (directoryExists(dir)) visit(resolve(dir));
      return out.sort();
    },
  };
  return system;
}

/**
 * Every file on disk the program read: the project's sources, files it imports from elsewhere
 * (and barrels outside the sources the loader read to choose the roots), and the declaration
 * files of dependencies in node_modules (a new version of a types package changes the analysis,
 * so the no-change cache must see it).
 */
export function programInputFiles(loaded: LoadedProgram): string[] {
  const files = new Set([...loaded.program.getSourceFiles().map((sf) => sf.fileName), ...loaded.readFiles()]);
  return [...files].filter((f) => f !== LIB_FILE && isAbsolute(f)).sort();
}
