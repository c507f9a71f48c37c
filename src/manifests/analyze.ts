/**
 * Project analysis: the one pass `kubeforge manifests` makes over a project's TypeScript. Finds
 * every groupversion.ts and @Root() Kind, builds each Kind's schema (TS types -> IR -> OpenAPI,
 * markers applied), generates the CRDs, and collects @Rbac / @Webhook / @WebhookConfiguration
 * uses for the RBAC and webhook generators. All problems are collected; nothing is written.
 */
import { basename, dirname, join, relative } from 'node:path';
import { existsSync } from 'node:fs';
import { ts } from 'ts-morph';
import { error, sortDiagnostics, type Diagnostic } from '../diagnostics/index.js';
import { loadProgram, locationOf, MarkerCollector, programInputFiles, type Location, type MarkerValue } from '../markers/collector.js';
import { getMarkerDefinition, type MarkerTarget } from '../markers/definitions.js';
import { SchemaFormatter } from '../schema/format.js';
import { k8sModelSchema } from '../schema/k8s/index.js';
import { TypeParser } from '../schema/parse.js';
import { packageVersion } from '../util/package-root.js';
import { generateCRDs, type KindVersion } from './crd.js';

export interface MarkerUse {
  /** Decorator name, e.g. 'Rbac'. */
  marker: string;
  /** The literal value(s) as evaluated (the options object for Rbac / Webhook / WebhookConfiguration). */
  args: unknown;
  /** Class (or Class.field) the marker is on. */
  target: string;
  file: string;
  line: number;
  column: number;
}

export interface ProjectAnalysis {
  /** apiextensions.k8s.io/v1 CustomResourceDefinition objects, sorted by metadata.name, keys in controller-gen's order. */
  crds: Record<string, unknown>[];
  /** Every @Rbac, in file/line order. */
  rbac: MarkerUse[];
  /** Every @Webhook. */
  webhooks: MarkerUse[];
  /** Every @WebhookConfiguration. */
  webhookConfigurations: MarkerUse[];
  /** All problems found (analysis never stops at the first). */
  diagnostics: Diagnostic[];
  /** Absolute paths of every project source file the analysis read (sorted). */
  inputFiles: string[];
}

export interface AnalyzeOptions {
  projectDir: string;
  tsconfigPath?: string;
  /** Limit to these dirs/files. */
  paths?: string[];
  /** Value of the `kubeforge.io/version` annotation (default `v<package version>`). */
  generatorVersion?: string;
}

interface GroupVersionInfo {
  group: string;
  version: string;
  fieldsOptionalByDefault: boolean;
  skip: boolean;
  file: string;
}

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

export async function analyzeProject(options: AnalyzeOptions): Promise<ProjectAnalysis> {
  return analyzeProjectSync(options);
}

export function analyzeProjectSync(options: AnalyzeOptions): ProjectAnalysis {
  const loaded = loadProgram(options);
  const { checker } = loaded;
  const collector = new MarkerCollector(checker);
  const diagnostics = collector.diagnostics;
  diagnostics.push(...loaded.diagnostics);
  const extraInputs = new Set<string>();
  const rel = (p: string) => relative(loaded.projectDir, p) || '.';

  // group-versions, by folder
  const gvCache = new Map<string, GroupVersionInfo | null>();
  const gvDef = getMarkerDefinition('defineGroupVersion')!;
  const groupVersionOf = (dir: string): GroupVersionInfo | null => {
    const hit = gvCache.get(dir);
    if (hit !== undefined) return hit;
    const file = join(dir, 'groupversion.ts');
    let info: GroupVersionInfo | null = null;
    if (existsSync(file)) {
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
      diagnostics.push(
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
    const a = r.value as { group: string; version: string; fieldsOptionalByDefault?: boolean; skip?: boolean };
    let ok = true;
    if (!DNS_SUBDOMAIN.test(a.group) || a.group.length > 253) {
      diagnostics.push(error('KF4002', `group '${a.group}' in defineGroupVersion is not a valid DNS subdomain`, { ...locationOf(call.arguments[0] ?? call), hint: "use lower-case letters, digits, '-' and '.', e.g. 'batch.example.com'" }));
      ok = false;
    }
    if (!DNS_LABEL.test(a.version) || a.version.length > 63) {
      diagnostics.push(error('KF4002', `version '${a.version}' in defineGroupVersion is not a valid version name`, { ...locationOf(call.arguments[0] ?? call), hint: "use a DNS label starting with a letter, e.g. 'v1', 'v1beta1'" }));
      ok = false;
    }
    if (!ok) return null;
    return { group: a.group, version: a.version, fieldsOptionalByDefault: a.fieldsOptionalByDefault ?? false, skip: a.skip ?? false, file: sf.fileName };
  };

  const parser = new TypeParser({
    collector,
    checker,
    isLibFile: loaded.isLibFile,
    optionalByDefault: (file) => groupVersionOf(dirname(file))?.fieldsOptionalByDefault ?? false,
  });
  const formatter = new SchemaFormatter({
    diagnostics,
    k8sSchema: (name) => k8sModelSchema(name),
    k8sHint: 'it is not a model class of @kubernetes/client-node (V1PodTemplateSpec, V1Condition, ...): check the name, or declare the type yourself',
  });

  const rbac: MarkerUse[] = [];
  const webhooks: MarkerUse[] = [];
  const webhookConfigurations: MarkerUse[] = [];
  const kinds: KindVersion[] = [];

  const use = (m: MarkerValue, target: string): MarkerUse => ({ marker: m.name, args: m.args, target, file: m.file, line: m.line, column: m.column });

  for (const file of loaded.rootFiles) {
    const sf = loaded.program.getSourceFile(file);
    if (!sf) continue;
    // Syntax errors make everything after them unreliable: report them (parsing already found them).
    for (const d of loaded.program.getSyntacticDiagnostics(sf)) {
      const lc = d.start !== undefined ? sf.getLineAndCharacterOfPosition(d.start) : { line: 0, character: 0 };
      diagnostics.push(
        error('KF4012', `syntax error: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`, { file, line: lc.line + 1, column: lc.character + 1, hint: 'fix the TypeScript syntax (tsc reports the same)' }),
      );
    }
    for (const st of sf.statements) {
      if (!ts.isClassDeclaration(st)) {
        continue;
      }
      const className = st.name?.text ?? '(anonymous class)';
      const decorated = (ts.getDecorators(st) ?? []).map((d) => collector.markerNameOf(ts.isCallExpression(d.expression) ? d.expression.expression : d.expression));
      const isRoot = decorated.includes('Root');
      const isKind = isRoot && looksLikeKind(st);
      const allowed: MarkerTarget[] = isKind ? ['kind', 'type', 'class'] : ['type', 'class'];
      const place = isKind ? `Kind ${className}` : `class ${className}`;
      const classMarkers = collector.decoratorMarkers(st, allowed, place);
      for (const m of classMarkers) {
        if (m.name === 'Rbac') rbac.push(use(m, className));
        else if (m.name === 'Webhook') webhooks.push(use(m, className));
        else if (m.name === 'WebhookConfiguration') webhookConfigurations.push(use(m, className));
      }
      // Validate the decorators of every member, even of classes no Kind uses.
      for (const member of st.members) {
        const label = member.name ? `${className}.${member.name.getText()}` : className;
        if (ts.isPropertyDeclaration(member) && !(ts.getCombinedModifierFlags(member) & ts.ModifierFlags.Static)) {
          const name = member.name.getText();
          collector.decoratorMarkers(member, ['field'], `field "${name}" of ${className}`);
        } else {
          const kind = ts.isMethodDeclaration(member) ? 'method' : ts.isConstructorDeclaration(member) ? 'constructor' : ts.isPropertyDeclaration(member) ? 'static field' : 'accessor';
          collector.decoratorMarkers(member, [], `${kind} ${label}`);
        }
        if (ts.isConstructorDeclaration(member) || ts.isMethodDeclaration(member)) {
          for (const p of member.parameters) collector.decoratorMarkers(p, [], `parameter ${p.name.getText()} of ${label}`);
        }
      }
      if (!isRoot) continue;
      if (!isKind) {
        // A root list type (ListMeta) gets no CRD. A root without any metadata is most likely a
        // Kind missing its metadata field: say so rather than generate nothing silently.
        if (!st.members.some((m) => m.name?.getText() === 'metadata') && !st.heritageClauses?.length) {
          diagnostics.push({
            code: 'KF4009',
            severity: 'warning',
            message: `@Root() class ${className} has no metadata field, so it is not a Kind and gets no CRD`,
            hint: "add `metadata?: V1ObjectMeta;` (import type { V1ObjectMeta } from '@kubernetes/client-node') to make it a Kind",
            ...locationOf(st.name ?? st),
          });
        }
        continue;
      }
      const gv = groupVersionOf(dirname(file));
      const nameNode = st.name ?? st;
      if (!gv) {
        if (!gvCache.has(dirname(file)) || !existsSync(join(dirname(file), 'groupversion.ts'))) {
          diagnostics.push(
            error('KF4001', `Kind ${className} is in ${rel(dirname(file))}, which has no groupversion.ts`, {
              ...locationOf(nameNode),
              hint: `create ${rel(join(dirname(file), 'groupversion.ts'))}: import { defineGroupVersion } from 'kubeforge/markers'; export const groupVersion = defineGroupVersion({ group: 'example.com', version: '${/^v\d/.test(basename(dirname(file))) ? basename(dirname(file)) : 'v1'}' });`,
            }),
          );
        }
        continue;
      }
      if (gv.skip) continue;
      try {
        const ir = parser.parseDeclaration(st, [], nameNode, new Map(), `Kind ${className}`);
        const schema = formatter.formatKind(ir);
        kinds.push({ group: gv.group, version: gv.version, kind: className, schema, markers: classMarkers, at: locationOf(nameNode) as Location });
      } catch (e) {
        diagnostics.push(
          error('KF9001', `internal error while analysing Kind ${className}: ${(e as Error).message}`, {
            ...locationOf(nameNode),
            hint: 'this is a kubeforge bug: please report it with this type; meanwhile simplify the type to work around it',
          }),
        );
      }
    }
  }

  const generatorVersion = options.generatorVersion ?? `v${packageVersion()}`;
  const crds = generateCRDs(kinds, generatorVersion, diagnostics, rel);
  const byPos = (a: MarkerUse, b: MarkerUse) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || a.column - b.column);
  const inputFiles = [...new Set([...programInputFiles(loaded), ...extraInputs])].sort();
  return {
    crds,
    rbac: rbac.sort(byPos),
    webhooks: webhooks.sort(byPos),
    webhookConfigurations: webhookConfigurations.sort(byPos),
    diagnostics: dedupe(sortDiagnostics(diagnostics)),
    inputFiles,
  };
}

/** A @Root() class is a Kind when it has a `metadata` field that is not a ListMeta (list types are roots too). */
function looksLikeKind(decl: ts.ClassDeclaration): boolean {
  for (const m of decl.members) {
    if (ts.isPropertyDeclaration(m) && m.name.getText() === 'metadata') {
      return !(m.type && /ListMeta\b/.test(m.type.getText()));
    }
  }
  // metadata may come from a base class
  return !!decl.heritageClauses?.some((h) => h.token === ts.SyntaxKind.ExtendsKeyword) && !/List$/.test(decl.name?.text ?? '');
}

function dedupe(list: Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  return list.filter((d) => {
    const k = `${d.file}:${d.line}:${d.column}:${d.code}:${d.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
