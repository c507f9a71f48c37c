/**
 * The analysis: the one pass `kubeforge manifests` makes over a loaded program. It only collects:
 * the group-versions (groupversion.ts), the classes and their markers, and the Kinds with their
 * schemas (TS types -> IR -> OpenAPI, markers applied). Generators (src/manifests) turn that into
 * files. Classes are classified first (which are Kinds, which markers each may carry), then the
 * Kinds' types are parsed, so nothing depends on the order in which files are read. Problems go
 * to the reporter passed in; nothing is written.
 */
import { basename, dirname, join, relative } from 'node:path';
import { ts } from '../util/typescript.cjs';
import { type Diagnostic, error, type Reporter, TeeReporter } from '../diagnostics/index.js';
import { loadProgram, type ProgramOptions, programInputFiles, type SourceOverlay } from '../loader/program.js';
import { getMarkerDefinition, type MarkerArgs, type MarkerName } from '../markers/definitions.js';
import { isDns1123Subdomain } from '../project/naming.js';
import { isDNS1035Label } from '../util/apimachinery/validation.js';
import { SchemaFormatter } from '../schema/format.js';
import type { JSONSchemaProps } from '../schema/jsonschema.js';
import { type K8sVersion, k8sModelSchemaShared } from '../schema/k8s/index.js';
import { TypeParser } from '../schema/parse.js';
import { packageVersion } from '../util/package-root.js';
import { locationOf, MarkerCollector, type Location, type MarkerValue } from '../collector/collector.js';
import { NameResolver } from '../collector/resolve.js';
import { checkKindStatics } from './statics.js';

/** One marker use handed to a generator: its validated, typed arguments and where it is written. */
export type MarkerUse<N extends MarkerName = MarkerName> = {
  [K in N]: {
    /** Marker name, e.g. 'Rbac'. */
    marker: K;
    /** The arguments, of the type the marker table declares. */
    args: MarkerArgs<K>;
    /** What the marker is on: the class's name. */
    target: string;
    file: string;
    line: number;
    column: number;
  };
}[N];

/** One version of a Kind: what the CRD generator needs. */
export interface KindVersion {
  group: string;
  version: string;
  kind: string;
  schema: JSONSchemaProps;
  /** Kind-level markers of the root class. */
  markers: readonly MarkerValue[];
  /** Where the root class is declared (its name). */
  at: Location;
}

export interface GroupVersionInfo {
  group: string;
  version: string;
  fieldsOptionalByDefault: boolean;
  skip: boolean;
  file: string;
}

/** A class of the analysed files, as classified: whether it is a root type or a Kind, and its markers. */
export interface ClassInfo {
  name: string;
  file: string;
  isRoot: boolean;
  isKind: boolean;
  markers: MarkerValue[];
  at: Location;
}

/** What the analysis collects. */
export interface Analysis {
  /** Every group-version found, by file. */
  groupVersions: GroupVersionInfo[];
  /** Every top-level class of the analysed files, in file order. */
  classes: ClassInfo[];
  /** Every Kind version of a group-version that is not skipped, in file order. */
  kinds: KindVersion[];
  /** The marker uses generators read (the analysis does not know which generator reads which). */
  markers: MarkerIndex;
  /** Absolute paths of every file the analysis read (sorted). */
  inputFiles: string[];
  /** Value of the `kubeforge.io/version` annotation of the CRDs. */
  generatorVersion: string;
  /** Shows a path relative to the project (for messages). */
  rel(path: string): string;
  /**
   * What each analysed file that can use markers contributed (with `selectRoots`, only the
   * selected ones): what an incremental run keeps per file and reuses while the file and what it
   * imports are unchanged.
   */
  byRoot?: Map<string, RootResult>;
}

/**
 * The marker index: every marker use of the analysed files that a generator may read, by what it
 * is on, in file/line/column order (controller-tools' markers collected once, each generator
 * reading those it registered). Kind-level markers reach the CRD generator with their Kind
 * ({@link KindVersion}); field and type markers are the schemas'.
 */
export interface MarkerIndex {
  /** Markers on top-level classes (`@Rbac`, `@Webhook`, ...), of the names indexed (see AnalyzeOptions.indexMarkers). */
  class: MarkerUse[];
}

/** The uses of the markers named, typed by the marker table, in file/line/column order. */
export function markerUses<N extends MarkerName>(index: MarkerIndex, ...names: N[]): MarkerUse<N>[] {
  const wanted = new Set<MarkerName>(names);
  return index.class.filter((u) => wanted.has(u.marker)) as MarkerUse<N>[];
}

/** One root file's share of an analysis: plain data (kept in the no-change cache as JSON). */
export interface RootResult {
  /** The Kinds it declares (`group/version/Kind`, not skipped). */
  kinds: { group: string; version: string; kind: string }[];
  /** Its class-level marker uses in the index. */
  markers: MarkerUse[];
  /** Warnings the analysis reported while reading the file and parsing its Kinds. */
  warnings: Diagnostic[];
}

function rootResult(byRoot: Map<string, RootResult>, file: string): RootResult {
  let r = byRoot.get(file);
  if (!r) {
    r = { kinds: [], markers: [], warnings: [] };
    byRoot.set(file, r);
  }
  return r;
}

export interface AnalyzeOptions {
  projectDir: string;
  tsconfigPath?: string;
  /** Limit to these dirs/files. */
  paths?: string[];
  /** Value of the `kubeforge.io/version` annotation (default `v<package version>`). */
  generatorVersion?: string;
  /** Planned files laid over the disk (a scaffold not written yet); see the loader. */
  overlay?: SourceOverlay;
  /** Which files that can use markers to analyse (see ProgramOptions.selectRoots); all by default. */
  selectRoots?: ProgramOptions['selectRoots'];
  /** Texts of project files already read (see ProgramOptions.texts). */
  texts?: ProgramOptions['texts'];
  /** controller-gen's crd:generateEmbeddedObjectMeta (`manifests --generate-embedded-object-meta`). */
  embeddedObjectMeta?: boolean;
  /** The Kubernetes minor whose types embedded Kubernetes types follow (`manifests --k8s-version`); default the newest supported. */
  k8sVersion?: K8sVersion;
  /**
   * The class-level markers to put in the index (those the generators that will run read:
   * generators.ts' `markers`); default every class-level marker that is not a Kind's or a schema's.
   */
  indexMarkers?: ReadonlySet<MarkerName>;
}

/** Whether a class-level marker goes to the index by default: not a Kind's (the CRD's), not a schema's. */
function indexedByDefault(m: MarkerValue): boolean {
  return (
    m.def.category !== 'kind' &&
    m.def.category !== 'validation' &&
    m.def.schema === undefined &&
    m.def.targets.includes('class')
  );
}

export async function analyzeProject(options: AnalyzeOptions, reporter: Reporter): Promise<Analysis> {
  return analyzeProjectSync(options, reporter);
}

/** A marker value as the index keeps it: its typed arguments, where it is, and the class it is on. */
function use(m: MarkerValue, target: string): MarkerUse {
  return { marker: m.name, args: m.args, target, file: m.file, line: m.line, column: m.column } as MarkerUse;
}

/** KF4012: a TypeScript syntax error, where it is. */
function syntaxError(d: ts.DiagnosticWithLocation, sf: ts.SourceFile, file: string): Diagnostic {
  const lc = d.start !== undefined ? sf.getLineAndCharacterOfPosition(d.start) : { line: 0, character: 0 };
  return error('KF4012', `syntax error: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`, {
    file,
    line: lc.line + 1,
    column: lc.character + 1,
    hint: 'fix the TypeScript syntax (tsc reports the same)',
  });
}

/** A Kind's version with its schema (types -> IR -> OpenAPI); KF9001 (undefined) when the parser fails on it. */
function parseKind(
  decl: ts.ClassDeclaration,
  gv: GroupVersionInfo,
  markers: MarkerValue[],
  parser: TypeParser,
  formatter: SchemaFormatter,
  reporter: Reporter,
): KindVersion | undefined {
  const className = decl.name?.text ?? '(anonymous class)';
  const nameNode = decl.name ?? decl;
  try {
    const ir = parser.parseDeclaration(decl, [], nameNode, new Map(), `Kind ${className}`);
    return {
      group: gv.group,
      version: gv.version,
      kind: className,
      schema: formatter.formatKind(ir),
      markers,
      at: locationOf(nameNode),
    };
  } catch (e) {
    reporter.report(
      error('KF9001', `internal error while analysing Kind ${className}: ${(e as Error).message}`, {
        ...locationOf(nameNode),
        hint: 'this is a kubeforge bug: please report it with this type; meanwhile simplify the type to work around it',
      }),
    );
    return undefined;
  }
}

/** Validates the decorators of every member of a class (fields take field markers; nothing else takes any). */
function validateMembers(st: ts.ClassDeclaration, className: string, collector: MarkerCollector): void {
  for (const member of st.members) {
    const label = member.name ? `${className}.${member.name.getText()}` : className;
    if (ts.isPropertyDeclaration(member) && !(ts.getCombinedModifierFlags(member) & ts.ModifierFlags.Static)) {
      const name = member.name.getText();
      collector.decoratorMarkers(member, ['field'], `field "${name}" of ${className}`);
    } else {
      const kind = ts.isMethodDeclaration(member)
        ? 'method'
        : ts.isConstructorDeclaration(member)
          ? 'constructor'
          : ts.isPropertyDeclaration(member)
            ? 'static field'
            : 'accessor';
      collector.decoratorMarkers(member, [], `${kind} ${label}`);
    }
    if (ts.isConstructorDeclaration(member) || ts.isMethodDeclaration(member)) {
      for (const p of member.parameters) collector.decoratorMarkers(p, [], `parameter ${p.name.getText()} of ${label}`);
    }
  }
}

/**
 * KF4009 for a `@Root()` class that is not a Kind and has no metadata at all: a root list type
 * (ListMeta) gets no CRD, but a root without any metadata is most likely a Kind missing its
 * metadata field; said rather than generating nothing silently.
 */
function reportRootWithoutMetadata(st: ts.ClassDeclaration, className: string, reporter: Reporter): void {
  if (st.members.some((m) => m.name?.getText() === 'metadata') || st.heritageClauses?.length) return;
  reporter.report({
    code: 'KF4009',
    severity: 'warning',
    message: `@Root() class ${className} has no metadata field, so it is not a Kind and gets no CRD`,
    hint: "add `metadata?: V1ObjectMeta;` (import type { V1ObjectMeta } from '@kubernetes/client-node') to make it a Kind",
    ...locationOf(st.name ?? st),
  });
}

/** KF4001: a Kind in a folder without groupversion.ts, with the file to create. */
function noGroupVersion(className: string, file: string, nameNode: ts.Node, rel: (p: string) => string): Diagnostic {
  return error('KF4001', `Kind ${className} is in ${rel(dirname(file))}, which has no groupversion.ts`, {
    ...locationOf(nameNode),
    hint: `create ${rel(join(dirname(file), 'groupversion.ts'))}: import { defineGroupVersion } from 'kubeforge/markers'; export const groupVersion = defineGroupVersion({ group: 'example.com', version: '${/^v\d/.test(basename(dirname(file))) ? basename(dirname(file)) : 'v1'}' });`,
  });
}

/** The group-versions of the project, by folder (each folder's groupversion.ts, read once); KF4002 for a bad one. */
function groupVersionReader(
  loaded: ReturnType<typeof loadProgram>,
  collector: MarkerCollector,
  reporter: Reporter,
  rel: (p: string) => string,
  extraInputs: Set<string>,
) {
  const gvCache = new Map<string, GroupVersionInfo | null>();
  const gvDef = getMarkerDefinition('defineGroupVersion');
  if (!gvDef) throw new Error('kubeforge: the marker table has no defineGroupVersion');
  const groupVersionOf = (dir: string): GroupVersionInfo | null => {
    const hit = gvCache.get(dir);
    if (hit !== undefined) return hit;
    const file = join(dir, 'groupversion.ts');
    let info: GroupVersionInfo | null = null;
    if (loaded.fileExists(file)) {
      const sf = loaded.parseExtra(file);
      if (sf) {
        extraInputs.add(file);
        info = readGroupVersion(sf);
      }
    }
    gvCache.set(dir, info);
    return info;
  };
  const readGroupVersion = (sf: ts.SourceFile): GroupVersionInfo | null => {
    let call: ts.CallExpression | undefined;
    const visit = (n: ts.Node): void => {
      if (call) return;
      if (ts.isCallExpression(n) && collector.markerNameOf(n.expression) === 'defineGroupVersion') call = n;
      else ts.forEachChild(n, visit);
    };
    visit(sf);
    if (!call) {
      reporter.report(
        error('KF4002', `${rel(sf.fileName)} does not call defineGroupVersion from 'kubeforge/markers'`, {
          file: sf.fileName,
          line: 1,
          column: 1,
          hint: "write: import { defineGroupVersion } from 'kubeforge/markers'; export const groupVersion = defineGroupVersion({ group: 'example.com', version: 'v1' });",
        }),
      );
      return null;
    }
    const r = collector.validateCall(gvDef, call.arguments, call, 'groupversion.ts');
    if (!r.ok) return null;
    const a = r.value as MarkerArgs<'defineGroupVersion'>;
    let ok = true;
    if (!isDns1123Subdomain(a.group)) {
      reporter.report(
        error('KF4002', `group '${a.group}' in defineGroupVersion is not a valid DNS subdomain`, {
          ...locationOf(call.arguments[0] ?? call),
          hint: "use lower-case letters, digits, '-' and '.', e.g. 'batch.example.com'",
        }),
      );
      ok = false;
    }
    // A version name is a DNS-1035 label (`v1`, `v1beta1`), as the API server checks a CRD's versions.
    if (isDNS1035Label(a.version).length) {
      reporter.report(
        error('KF4002', `version '${a.version}' in defineGroupVersion is not a valid version name`, {
          ...locationOf(call.arguments[0] ?? call),
          hint: "use a DNS label starting with a letter, e.g. 'v1', 'v1beta1'",
        }),
      );
      ok = false;
    }
    if (!ok) return null;
    return {
      group: a.group,
      version: a.version,
      fieldsOptionalByDefault: a.fieldsOptionalByDefault ?? false,
      skip: a.skip ?? false,
      file: sf.fileName,
    };
  };

  return { of: groupVersionOf, cache: gvCache };
}

/** The formatter of the analysis' schemas: Kubernetes' model types from the client-node version the options name. */
function schemaFormatter(options: AnalyzeOptions, reporter: Reporter): SchemaFormatter {
  return new SchemaFormatter({
    reporter,
    k8sSchema: (name) =>
      k8sModelSchemaShared(name, {
        embeddedObjectMeta: options.embeddedObjectMeta,
        kubernetesVersion: options.k8sVersion,
      }),
    embeddedObjectMeta: options.embeddedObjectMeta,
    k8sHint:
      'it is not a model class of @kubernetes/client-node (V1PodTemplateSpec, V1Condition, ...): check the name, or declare the type yourself',
  });
}

function analyzeProjectSync(options: AnalyzeOptions, outer: Reporter): Analysis {
  const byRoot = new Map<string, RootResult>();
  // Every diagnostic is also filed under the root file being analysed (`routing.current`).
  const routing: { current: string | undefined } = { current: undefined };
  const reporter = new TeeReporter(outer, (d) => {
    if (routing.current !== undefined) rootResult(byRoot, routing.current).warnings.push(d);
  });
  const loaded = loadProgram(options, reporter);
  const { checker } = loaded;
  const names = new NameResolver({
    resolveModule: loaded.resolveModule,
    sourceFile: (file) => loaded.parseExtra(file),
  });
  const collector = new MarkerCollector(checker, reporter, names);
  const extraInputs = new Set<string>();
  const rel = (p: string) => relative(loaded.projectDir, p) || '.';

  const gvReader = groupVersionReader(loaded, collector, reporter, rel, extraInputs);
  const groupVersionOf = gvReader.of;
  const gvCache = gvReader.cache;

  const parser = new TypeParser({
    collector,
    reporter,
    checker,
    isLibFile: loaded.isLibFile,
    optionalByDefault: (file) => groupVersionOf(dirname(file))?.fieldsOptionalByDefault ?? false,
  });
  const formatter = schemaFormatter(options, reporter);

  const indexMarkers = options.indexMarkers;
  const indexed = indexMarkers ? (m: MarkerValue) => indexMarkers.has(m.name) : indexedByDefault;
  const classMarkerUses: MarkerUse[] = [];
  const kinds: KindVersion[] = [];
  const classes: ClassInfo[] = [];
  const kindDecls: { decl: ts.ClassDeclaration; file: string; gv: GroupVersionInfo; markers: MarkerValue[] }[] = [];

  // 1. Classify and collect: every class of every file, its markers and its members' markers.
  for (const file of loaded.rootFiles) {
    const sf = loaded.program.getSourceFile(file);
    if (!sf) continue;
    routing.current = file;
    const mine = rootResult(byRoot, file);
    // Syntax errors make everything after them unreliable: report them (parsing already found them).
    for (const d of loaded.program.getSyntacticDiagnostics(sf)) reporter.report(syntaxError(d, sf, file));
    reportUnreadClasses(sf, collector, reporter);
    for (const st of sf.statements) {
      if (!ts.isClassDeclaration(st)) continue;
      const className = st.name?.text ?? '(anonymous class)';
      const { isRoot, isKind } = collector.classify(st);
      if (isRoot && !st.name) {
        reporter.report(
          error('KF4013', '@Root() class has no name, so the analysis cannot name its Kind', {
            ...locationOf(st),
            hint: "give the class the Kind's name: `export class Guestbook { ... }` (a default export may keep `export default`)",
          }),
        );
        continue;
      }
      const classMarkers = collector.classMarkers(st);
      classes.push({ name: className, file, isRoot, isKind, markers: classMarkers, at: locationOf(st.name ?? st) });
      for (const m of classMarkers) if (indexed(m)) mine.markers.push(use(m, className));
      // Validate the decorators of every member, even of classes no Kind uses.
      validateMembers(st, className, collector);
      if (!isRoot) continue;
      if (!isKind) {
        reportRootWithoutMetadata(st, className, reporter);
        continue;
      }
      const gv = groupVersionOf(dirname(file));
      const nameNode = st.name ?? st;
      if (!gv) {
        if (!gvCache.has(dirname(file)) || !loaded.fileExists(join(dirname(file), 'groupversion.ts')))
          reporter.report(noGroupVersion(className, file, nameNode, rel));
        continue;
      }
      if (gv.skip) continue;
      kindDecls.push({ decl: st, file, gv, markers: classMarkers });
    }
  }

  routing.current = undefined;
  for (const r of byRoot.values()) classMarkerUses.push(...r.markers);

  // 2. Parse each Kind's types into its schema.
  for (const { decl, gv, markers, file } of kindDecls) {
    routing.current = file;
    const k = parseKind(decl, gv, markers, parser, formatter, reporter);
    if (!k) continue;
    kinds.push(k);
    rootResult(byRoot, file).kinds.push({ group: k.group, version: k.version, kind: k.kind });
  }

  // 3. Each Kind class's static gvk / plural / namespaced against what its markers generate
  // (reported per file, so an incremental run replays them with the file's other results).
  for (const { decl, gv, markers, file } of kindDecls) {
    routing.current = file;
    checkKindStatics([{ decl, group: gv.group, version: gv.version, kind: decl.name?.text ?? '', markers }], reporter);
  }
  routing.current = undefined;
  const byPos = (a: MarkerUse, b: MarkerUse) =>
    a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || a.column - b.column;
  const groupVersions = [...gvCache.values()]
    .filter((g): g is GroupVersionInfo => g !== null)
    .sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  return {
    groupVersions,
    classes,
    kinds,
    markers: { class: classMarkerUses.sort(byPos) },
    inputFiles: [...new Set([...programInputFiles(loaded), ...extraInputs])].sort(),
    generatorVersion: options.generatorVersion ?? `v${packageVersion()}`,
    rel,
    byRoot,
  };
}

// ---------------------------------------------------------------------------------------------
// Classes the analysis cannot read

/**
 * Where a class that is not declared at the top level of its file stands: `namespace` when only
 * namespaces enclose it (the parser reads it when a field's type names it, but the analysis never
 * collects it as a Kind or reads its class-level markers), `hidden` when nothing can name it as a
 * type (a class expression, a class inside a function or block).
 */
function placeOf(node: ts.ClassLikeDeclaration): { reach: 'namespace' | 'hidden'; where: string; name: string } {
  let name = node.name?.text;
  if (ts.isClassExpression(node)) {
    const p = node.parent;
    if (
      !name &&
      (ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p)) &&
      ts.isIdentifier(p.name)
    )
      name = p.name.text;
    return {
      reach: 'hidden',
      where: `is a class expression${name ? ` (${name})` : ''}`,
      name: name ?? '(anonymous class)',
    };
  }
  const namespaces: string[] = [];
  const hidden = (where: string) => ({ reach: 'hidden' as const, where, name: name ?? '(anonymous class)' });
  let inBlock = false;
  for (let p: ts.Node = node.parent; !ts.isSourceFile(p); p = p.parent) {
    if (ts.isModuleDeclaration(p)) namespaces.unshift(p.name.getText());
    else if (ts.isModuleBlock(p)) continue;
    else if (ts.isFunctionLike(p)) {
      const fn =
        'name' in p && p.name && (ts.isIdentifier(p.name) || ts.isPrivateIdentifier(p.name)) ? p.name.text : undefined;
      return hidden(`is declared inside ${fn ? `function ${fn}` : 'a function'}`);
    } else inBlock = true;
  }
  if (inBlock) return hidden('is declared inside a block');
  return {
    reach: 'namespace',
    where: `is declared inside namespace ${namespaces.join('.')}`,
    name: name ?? '(anonymous class)',
  };
}

/**
 * Reports markers the analysis would otherwise drop without a word: a `@Root()` class that is
 * not declared at the top level of its file (KF4013: it would get no CRD, and `manifests` would
 * delete the one it had), and kubeforge markers on classes nothing can read (KF2016): any marker
 * of a class expression or a class inside a function, and the class-level markers (`@Rbac`,
 * `@Webhook`, ...) of a class inside a namespace. Field and type markers of a namespaced class
 * are read where a field's type names the class, so they are left alone. Decorators that are
 * not kubeforge markers are not looked at.
 */
function reportUnreadClasses(sf: ts.SourceFile, collector: MarkerCollector, reporter: Reporter): void {
  if (!sf.text.includes('@')) return;
  const markerOf = (d: ts.Decorator) =>
    collector.markerNameOf(ts.isCallExpression(d.expression) ? d.expression.expression : d.expression);
  const hint = (name: string) =>
    `declare it at the top level of the file, \`export class ${/^[A-Za-z_$][\w$]*$/.test(name) ? name : 'Name'} { ... }\`: the analysis reads classes declared there, statically`;
  const check = (node: ts.ClassLikeDeclaration) => {
    const place = placeOf(node);
    const rootDecorator = (ts.getDecorators(node) ?? []).find((d) => markerOf(d) === 'Root');
    if (rootDecorator) {
      reporter.report(
        error(
          'KF4013',
          `@Root() class ${place.name} ${place.where}, where the analysis cannot read it: it would get no CRD`,
          {
            ...locationOf(node.name ?? rootDecorator),
            hint: hint(place.name),
          },
        ),
      );
      return;
    }
    const unread = (d: ts.Decorator, what: string, classLevel: boolean) => {
      const marker = markerOf(d);
      if (!marker) return;
      if (place.reach === 'namespace' && !(classLevel && !getMarkerDefinition(marker)?.targets.includes('type')))
        return;
      reporter.report(
        error('KF2016', `@${marker} on ${what} is never read: class ${place.name} ${place.where}`, {
          ...locationOf(d),
          hint: hint(place.name),
        }),
      );
    };
    for (const d of ts.getDecorators(node) ?? []) unread(d, `class ${place.name}`, true);
    if (place.reach === 'namespace') return;
    for (const m of node.members) {
      const label = m.name ? `${place.name}.${m.name.getText()}` : place.name;
      if (ts.canHaveDecorators(m)) for (const d of ts.getDecorators(m) ?? []) unread(d, label, false);
      if (ts.isConstructorDeclaration(m) || ts.isMethodDeclaration(m)) {
        for (const p of m.parameters)
          for (const d of ts.getDecorators(p) ?? []) unread(d, `parameter ${p.name.getText()} of ${label}`, false);
      }
    }
  };
  const visit = (node: ts.Node): void => {
    if (ts.isClassLike(node) && !(ts.isClassDeclaration(node) && node.parent === sf)) check(node);
    ts.forEachChild(node, visit);
  };
  ts.forEachChild(sf, visit);
}
