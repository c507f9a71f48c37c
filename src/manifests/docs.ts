/**
 * `kubeforge docs`: API reference pages in Markdown, one per Kind, from the CRDs `manifests`
 * writes (config/crd/bases): the same analysis, so the pages say what the API server enforces:
 * every field with its type, whether it is required, its default, its bounds, enum, pattern and
 * format, its description, the CEL rules with their messages, and the printer columns; one section
 * per object type, linked from the fields that hold it; one part per version. Deterministic (the
 * CRDs' own order). Pages carry a DO-NOT-EDIT header, are replaced on every run, and a page that is
 * no longer produced is removed; a file at a page's path without the header is the user's and is
 * never replaced (KF4512).
 */
import { existsSync } from 'node:fs';
import { posix, resolve } from 'node:path';
import { DiagnosticError, error } from '../diagnostics/index.js';
import {
  type Change,
  type CommandIo,
  deleteStaleManaged,
  DiskHost,
  hasManagedHeader,
  managedHeader,
  normalizePath,
  type Host,
  runCommand,
  Tree,
} from '../machinery/index.js';
import type { JSONSchemaProps } from '../schema/jsonschema.js';
import { CRD_DIR, formatPlan } from './managed-files.js';
import { readYamlObjects, type YamlSyntaxError } from './yaml-documents.js';

export const DOCS_TOOL = 'kubeforge docs';
/** Where the pages go by default. */
export const DOCS_DIR = 'docs/reference';

type Obj = Record<string, unknown>;

type Schema = JSONSchemaProps;

interface CRD {
  file: string;
  group: string;
  kind: string;
  plural: string;
  scope: string;
  shortNames: string[];
  categories: string[];
  versions: {
    name: string;
    served: boolean;
    storage: boolean;
    deprecated: boolean;
    deprecationWarning?: string;
    schema?: Schema;
    columns: Obj[];
  }[];
}

/** Reads the CRDs of `dir` (every CustomResourceDefinition of every YAML file), sorted by group and Kind. */
export function readCRDs(host: Host, dir = CRD_DIR): CRD[] {
  const out: CRD[] = [];
  const files = host
    .list(dir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort();
  for (const name of files) {
    const file = posix.join(dir, name);
    const text = host.read(file)?.toString('utf8');
    if (text === undefined) continue;
    const onError = (e: YamlSyntaxError): never => {
      throw new DiagnosticError(
        error('KF4511', `${file}: not valid YAML: ${e.message}`, {
          file,
          line: e.line,
          column: e.column,
          hint: 'run kubeforge manifests to write the CRDs again',
        }),
      );
    };
    for (const c of readYamlObjects(text, { kind: 'CustomResourceDefinition', onError })) {
      const spec = (c.spec ?? {}) as Obj;
      const names = (spec.names ?? {}) as Obj;
      out.push({
        file,
        group: String(spec.group ?? ''),
        kind: String(names.kind ?? ''),
        plural: String(names.plural ?? ''),
        scope: String(spec.scope ?? 'Namespaced'),
        shortNames: (names.shortNames as string[] | undefined) ?? [],
        categories: (names.categories as string[] | undefined) ?? [],
        versions: ((spec.versions ?? []) as Obj[]).map((v) => ({
          name: String(v.name),
          served: v.served === true,
          storage: v.storage === true,
          deprecated: v.deprecated === true,
          deprecationWarning: v.deprecationWarning as string | undefined,
          schema: ((v.schema ?? {}) as Obj).openAPIV3Schema as Schema | undefined,
          columns: (v.additionalPrinterColumns as Obj[] | undefined) ?? [],
        })),
      });
    }
  }
  return out.sort((a, b) =>
    a.group === b.group ? (a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0) : a.group < b.group ? -1 : 1,
  );
}

/** A table cell: pipes escaped, line breaks as <br>. */
function cell(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, '<br>');
}

/**
 * A Markdown code span showing `s` exactly (CommonMark): fenced by one backtick more than the
 * longest run of backticks in it, padded with a space each side when it begins or ends with a
 * backtick or a space (the renderer takes one back). An enum value or a CEL rule with a backtick
 * (CEL quotes field names with them) is shown as it is, not with an apostrophe in its place.
 */
export const code = (s: string): string => {
  const longest = Math.max(0, ...[...s.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = /^[` ]|[` ]$/.test(s) && s.trim() !== '' ? ' ' : '';
  return `${fence}${pad}${s}${pad}${fence}`;
};

/** Anchor of a section: lower-case, dashes. */
function anchor(parts: string[]): string {
  return parts
    .map((p) => (p === '[]' ? 'items' : p === '{}' ? 'values' : p))
    .join('-')
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-');
}

/** The type of a field as a reader says it, with a link to its own section when it has one. */
function typeOf(s: Schema, path: string[]): string {
  if (s['x-kubernetes-int-or-string']) return 'integer or string';
  if (s['x-kubernetes-embedded-resource']) return 'object (a Kubernetes resource)';
  switch (s.type) {
    case 'array':
      return s.items ? `list of ${typeOf(s.items, [...path, '[]'])}` : 'list';
    case 'object': {
      if (s.properties && Object.keys(s.properties).length) {
        const id = anchor(path);
        const named = path.filter((p) => p !== '[]' && p !== '{}');
        return `[${named[named.length - 1]}](#${id})`;
      }
      if (typeof s.additionalProperties === 'object')
        return `map of string to ${typeOf(s.additionalProperties, [...path, '{}'])}`;
      return s['x-kubernetes-preserve-unknown-fields'] ? 'object (any fields)' : 'object';
    }
    default:
      return s.format ? `${s.type ?? 'any'} (${s.format})` : (s.type ?? 'any');
  }
}

/** What the API server checks of a field, as short phrases. */
function constraints(s: Schema): string[] {
  const out: string[] = [];
  if (s.enum) out.push(`one of ${s.enum.map((e) => code(JSON.stringify(e))).join(', ')}`);
  if (s.minimum !== undefined) out.push(`${s.exclusiveMinimum ? '>' : '>='} ${s.minimum}`);
  if (s.maximum !== undefined) out.push(`${s.exclusiveMaximum ? '<' : '<='} ${s.maximum}`);
  if (s.multipleOf !== undefined) out.push(`a multiple of ${s.multipleOf}`);
  if (s.minLength !== undefined) out.push(`at least ${s.minLength} characters`);
  if (s.maxLength !== undefined) out.push(`at most ${s.maxLength} characters`);
  if (s.pattern !== undefined) out.push(`matches ${code(s.pattern)}`);
  if (s.minItems !== undefined) out.push(`at least ${s.minItems} items`);
  if (s.maxItems !== undefined) out.push(`at most ${s.maxItems} items`);
  if (s.minProperties !== undefined) out.push(`at least ${s.minProperties} entries`);
  if (s.maxProperties !== undefined) out.push(`at most ${s.maxProperties} entries`);
  const lt = s['x-kubernetes-list-type'];
  if (lt === 'set') out.push('a set (no duplicates)');
  if (lt === 'map') out.push(`a map keyed by ${(s['x-kubernetes-list-map-keys'] ?? []).map(code).join(', ')}`);
  if (s['x-kubernetes-map-type'] === 'atomic' || lt === 'atomic') out.push('replaced as a whole by server-side apply');
  if (s.nullable) out.push('may be null');
  for (const r of rules(s)) out.push(r);
  return out;
}

function rules(s: Schema): string[] {
  const all = [
    ...(s['x-kubernetes-validations'] ?? []),
    ...(s.allOf ?? []).flatMap((a) => a['x-kubernetes-validations'] ?? []),
  ];
  return all.map(
    (r) =>
      `rule ${code(r.rule ?? '')}${r.message ? `: "${r.message}"` : r.messageExpression ? `: message ${code(r.messageExpression)}` : ''}`,
  );
}

/** Renders the page of one CRD. */
export function renderKindPage(crd: CRD): string {
  const lines: string[] = [];
  const push = (...l: string[]) => lines.push(...l);
  push(`# ${crd.kind}`, '');
  const names = [
    `Group ${code(crd.group)}`,
    crd.scope === 'Cluster' ? 'cluster-scoped' : 'namespaced',
    `resource ${code(crd.plural)}`,
  ];
  if (crd.shortNames.length) names.push(`short names ${crd.shortNames.map(code).join(', ')}`);
  if (crd.categories.length) names.push(`categories ${crd.categories.map(code).join(', ')}`);
  push(`${names.join(', ')}. Generated from ${code(crd.file)}.`, '');
  push('| Version | Served | Storage | Deprecated |', '|---|---|---|---|');
  for (const v of crd.versions)
    push(
      `| [${v.name}](#${anchor([v.name])}) | ${v.served ? 'yes' : 'no'} | ${v.storage ? 'yes' : 'no'} | ${v.deprecated ? cell(v.deprecationWarning ?? 'yes') : 'no'} |`,
    );
  for (const v of crd.versions) {
    push('', `<a id="${anchor([v.name])}"></a>`, '', `## ${crd.group}/${v.name}`, '');
    if (v.columns.length) {
      push('`kubectl get` shows:', '', '| Column | Type | JSONPath | Description |', '|---|---|---|---|');
      for (const c of v.columns)
        push(
          `| ${cell(String(c.name ?? ''))}${Number(c.priority ?? 0) > 0 ? ' (wide)' : ''} | ${cell(String(c.type ?? ''))} | ${code(String(c.jsonPath ?? ''))} | ${cell(String(c.description ?? ''))} |`,
        );
      push('');
    }
    if (!v.schema) {
      push('No schema.');
      continue;
    }
    // sections to render: the Kind itself, then every object type reached, in order of appearance
    const queue: { path: string[]; schema: Schema; title: string }[] = [
      { path: [v.name, crd.kind], schema: v.schema, title: crd.kind },
    ];
    const done = new Set<string>();
    for (let next = queue.shift(); next; next = queue.shift()) {
      const { path, schema, title } = next;
      const id = anchor(path);
      if (done.has(id)) continue;
      done.add(id);
      push(`<a id="${id}"></a>`, '', `### ${title}`, '');
      if (schema.description) push(schema.description, '');
      const root = path.length === 2;
      const found = constraints(schema);
      if (found.length) push(`Checked: ${found.join('; ')}.`, '');
      const props = Object.entries(schema.properties ?? {}).filter(
        ([k]) => !(root && (k === 'apiVersion' || k === 'kind' || k === 'metadata')),
      );
      if (root) push('With the standard `apiVersion`, `kind` and `metadata`.', '');
      if (!props.length) continue;
      push('| Field | Type | Description |', '|---|---|---|');
      for (const [name, p] of props) {
        const childPath = [...path, name];
        const t = typeOf(p, childPath);
        const bits: string[] = [];
        if (p.description) bits.push(p.description);
        if (p.default !== undefined) bits.push(`Default: ${code(JSON.stringify(p.default))}.`);
        const c = constraints(p);
        if (p.type === 'array' && p.items) {
          const inner = constraints(p.items);
          if (inner.length) c.push(`each item: ${inner.join(', ')}`);
        }
        if (c.length) bits.push(`Checked: ${c.join('; ')}.`);
        const required = (schema.required ?? []).includes(name);
        push(`| ${code(name)}${required ? ' (required)' : ''} | ${cell(t)} | ${cell(bits.join('\n\n'))} |`);
        // the object types this field holds get their own sections
        let inner: Schema | undefined = p;
        let innerPath = childPath;
        while (inner && inner.type === 'array' && inner.items) {
          inner = inner.items;
          innerPath = [...innerPath, '[]'];
        }
        if (inner && inner.type === 'object' && typeof inner.additionalProperties === 'object' && !inner.properties) {
          innerPath = [...innerPath, '{}'];
          inner = inner.additionalProperties;
          while (inner && inner.type === 'array' && inner.items) {
            inner = inner.items;
            innerPath = [...innerPath, '[]'];
          }
        }
        if (inner && inner.type === 'object' && inner.properties && Object.keys(inner.properties).length) {
          queue.push({
            path: innerPath,
            schema: inner,
            title: `${crd.kind}.${innerPath
              .slice(2)
              .join('.')
              .replace(/\.\[\]/g, '[]')
              .replace(/\.\{\}/g, '{}')}`,
          });
        }
      }
      push('');
    }
  }
  return `${lines
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trimEnd()}\n`;
}

/** The index page: every Kind, by group. */
export function renderIndex(crds: readonly CRD[]): string {
  const lines = [
    '# API reference',
    '',
    'Generated by `kubeforge docs` from the CRDs in `config/crd/bases`.',
    '',
    '| Group | Kind | Versions | Scope |',
    '|---|---|---|---|',
  ];
  for (const c of crds)
    lines.push(
      `| ${code(c.group)} | [${c.kind}](${pageName(c)}) | ${c.versions.map((v) => v.name).join(', ')} | ${c.scope} |`,
    );
  return `${lines.join('\n')}\n`;
}

function pageName(c: CRD): string {
  return `${c.group}_${c.plural}.md`;
}

/** `<!-- Code generated by kubeforge docs. DO NOT EDIT. -->` then the page. */
function withHeader(path: string, body: string): string {
  return `${managedHeader(path, DOCS_TOOL)}\n\n${body}`;
}

/**
 * Plans the pages of `host`'s project in a tree: every page written or replaced, stale ones
 * deleted. Throws DiagnosticError: no CRDs (KF4510), a user's file in the way (KF4512).
 */
export function planDocs(host: Host, out = DOCS_DIR): Tree {
  const crds = readCRDs(host);
  if (!crds.length)
    throw new DiagnosticError(
      error('KF4510', `no CustomResourceDefinition in ${CRD_DIR}: the reference is written from the CRDs`, {
        hint: 'run kubeforge manifests (npm run manifests) first; it writes the CRDs from your types',
      }),
    );
  const pages = new Map<string, string>();
  for (const c of crds) {
    const path = posix.join(out, pageName(c));
    if (pages.has(path))
      throw new DiagnosticError(
        error('KF4511', `two CRDs of ${c.group} have the resource name ${c.plural}`, {
          file: c.file,
          hint: 'give one of the Kinds another plural',
        }),
      );
    pages.set(path, withHeader(path, renderKindPage(c)));
  }
  const index = posix.join(out, 'README.md');
  pages.set(index, withHeader(index, renderIndex(crds)));
  const foreign = [...pages.keys()]
    .filter((p) => host.kind(p) !== undefined && !hasManagedHeader(host, p, DOCS_TOOL))
    .sort();
  if (foreign.length) {
    throw new DiagnosticError(
      foreign.map((p) =>
        error(
          'KF4512',
          `${p} exists and was not written by kubeforge docs (its first line is not "${managedHeader(p, DOCS_TOOL)}"); it is not replaced`,
          { file: p, hint: 'move your file, or write the reference elsewhere with --out <dir>; nothing was written' },
        ),
      ),
    );
  }
  const tree = new Tree(host);
  for (const [p, text] of pages) tree.write(p, text);
  const existing = host.list(out).map((f) => posix.join(out, f));
  deleteStaleManaged(tree, existing, pages.keys(), DOCS_TOOL);
  return tree;
}

export type { Change };

export interface DocsFlags {
  project?: string;
  out?: string;
  check?: boolean;
  dryRun?: boolean;
}

/**
 * The `kubeforge docs` action through the command runner (the folder's lock, the plan printed,
 * one commit). `--check` writes nothing and fails (KF4513) when a page would change.
 */
export async function docsCommand(flags: DocsFlags, io: CommandIo): Promise<void> {
  const projectDir = resolve(io.cwd, flags.project ?? '.');
  if (!existsSync(projectDir))
    throw new DiagnosticError(
      error('KF4503', `project folder ${projectDir} does not exist`, {
        hint: 'pass --project <dir> of a kubeforge project',
      }),
    );
  const out = normalizePath(flags.out ?? DOCS_DIR);
  const preview = Boolean(flags.check || flags.dryRun);
  await runCommand<{ tree: Tree }, void>(
    {
      name: 'docs',
      lockRoot: projectDir,
      plan: async (ctx) => ({ tree: planDocs(ctx.host, out) }),
      preview: (_p, changes) => {
        if (flags.check)
          io.report?.addFindings(
            changes.map((c) => ({
              check: 'check',
              rule: 'out-of-date',
              severity: 'error',
              message: `${c.path} is out of date: kubeforge docs would ${c.kind} it`,
              file: c.path,
            })),
          );
        // Recorded here too: --check throws below, before the runner records the plan.
        io.report?.recordChanges('plan', projectDir, changes);
        if (!changes.length) {
          io.out('the API reference is up to date\n');
          return;
        }
        io.out(formatPlan(changes, { color: io.color }));
        if (flags.check) {
          throw new DiagnosticError(
            error('KF4513', `${changes.length} page${changes.length === 1 ? ' is' : 's are'} out of date`, {
              hint: 'run `kubeforge docs` and commit the result',
            }),
          );
        }
      },
      interrupted: { revert: 'the pages written so far were removed again' },
      after: async (_p, changes) => {
        io.out(changes.length ? formatPlan(changes, { color: io.color }) : 'the API reference is up to date\n');
      },
    },
    io,
    { host: new DiskHost(projectDir), dryRun: preview },
  );
}
