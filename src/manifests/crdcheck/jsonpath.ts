/**
 * Printer-column JSON paths as the API server renders them for `kubectl get` (client-go's
 * util/jsonpath, the path put inside `{...}`): `.status.phase`,
 * `.status.conditions[?(@.type=="Ready")].status`, `.status.addresses[*].value`,
 * `.metadata.labels.app\.kubernetes\.io/name`, `..name`.
 *
 * The API server accepts any path that starts with '.' (apiextensions' validateSimpleJSONPath),
 * so nothing here refuses a CRD: a path the renderer cannot parse, or a field step the schema
 * does not have, is a warning (the columns would be missing, or show `<none>`). The grammar
 * followed is client-go's for what printer columns use: a field runs to the next unescaped
 * `.`, `[`, `]`, `,`, `$`, `@`, `{`, `}` or space (`\x` escapes x); `[` runs to the first `]`
 * and holds `*`, an index or slice, a union (`a,b`), a single-quoted key (read again as `.key`,
 * so its unescaped dots split it) or, as `[?(...)]`, a filter. Anything else inside the path
 * (spaces, `@`, literals) is left to the renderer: the walk stops there without a verdict.
 */

/** One step of a path, as far as the schema walk needs it. */
export type PathStep =
  | { kind: 'field'; name: string }
  /** `[0]`, `[*]`, `[1:3]`, `[?(...)]`, `[0,1]`, `.*`: some element(s) of a list, or every property. */
  | { kind: 'elements' }
  /** `..`, or what the walk does not follow: any depth below; the walk stops checking there. */
  | { kind: 'recursive' };

export type ParsedPath = { ok: true; steps: PathStep[] } | { ok: false; problem: string };

const TERMINATORS = new Set(['.', ',', '[', ']', '$', '@', '{', '}', ' ', '\t', '\n', '\r']);
const SLICE = /^(-?\d*)(:-?\d*)?(:-?\d*)?$/;

/** A field name from `i` to the next unescaped terminator, backslashes dropped. */
function fieldAt(s: string, i: number): { name: string; end: number } {
  let name = '';
  while (i < s.length && !TERMINATORS.has(s[i])) {
    if (s[i] === '\\' && i + 1 < s.length) i++;
    name += s[i++];
  }
  return { name, end: i };
}

/** What is inside `[...]` (not a filter), as client-go's parseArray reads it. */
function bracketSteps(inner: string): PathStep[] | string {
  const text = inner === '*' ? ':' : inner;
  if (text.includes(',')) {
    for (const part of text.split(',')) {
      const r = bracketSteps(part.trim());
      if (typeof r === 'string') return r;
    }
    return [{ kind: 'elements' }];
  }
  const key = /^'([^']*)'$/.exec(text);
  if (key) {
    const r = parsePrintColumnPath(`.${key[1]}`);
    return r.ok ? r.steps : `has a key [${inner}] that cannot be read: ${r.problem}`;
  }
  if (!SLICE.test(text))
    return `has an invalid array index [${inner}] (an index, slice, '*', a single-quoted key or a filter [?(...)])`;
  return [{ kind: 'elements' }];
}

/** The index just past the `)]` that ends a filter starting at `i` (after `[?(`), as client-go scans it. */
function filterEnd(s: string, i: number): number {
  let begin = false;
  let end = false;
  let pair = '';
  for (; i < s.length; i++) {
    const c = s[i];
    if (c === '\n') return -1;
    if (c === '"' || c === "'") {
      if (!begin) {
        begin = true;
        pair = c;
      } else if (s[i - 1] !== '\\' && c === pair) end = true;
    } else if (c === ')' && begin === end) {
      return s[i + 1] === ']' ? i + 2 : -1;
    }
  }
  return -1;
}

/** Parses a printer column's path as the API server's renderer does; a path the API server takes always starts with '.'. */
export function parsePrintColumnPath(path: string): ParsedPath {
  const steps: PathStep[] = [];
  const s = path;
  let i = 0;
  while (i < s.length) {
    if (s.startsWith('..', i)) {
      steps.push({ kind: 'recursive' });
      i += 2;
      if (i < s.length && s[i] !== '[') i = fieldAt(s, i).end;
      continue;
    }
    if (s.startsWith('[?(', i)) {
      const end = filterEnd(s, i + 3);
      if (end < 0) return { ok: false, problem: `has a filter at character ${i + 1} that is not closed with ')]'` };
      steps.push({ kind: 'elements' });
      i = end;
      continue;
    }
    const c = s[i];
    if (c === '.') {
      const f = fieldAt(s, i + 1);
      steps.push(f.name === '*' ? { kind: 'elements' } : { kind: 'field', name: f.name });
      i = f.end;
    } else if (c === '[') {
      const close = s.indexOf(']', i);
      const nl = s.indexOf('\n', i);
      if (close < 0 || (nl >= 0 && nl < close))
        return { ok: false, problem: `has an unterminated '[' at character ${i + 1}` };
      const r = bracketSteps(s.slice(i + 1, close));
      if (typeof r === 'string') return { ok: false, problem: r };
      steps.push(...r);
      i = close + 1;
    } else {
      // Spaces, '@', '$', literals...: the renderer's business; the walk stops here.
      steps.push({ kind: 'recursive' });
      break;
    }
  }
  return { ok: true, steps };
}

/** The subset of a schema node the walk reads. */
interface SchemaNode {
  type?: string;
  properties?: Record<string, SchemaNode>;
  additionalProperties?: SchemaNode | boolean;
  items?: SchemaNode | SchemaNode[];
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
}

/**
 * The first field step of a parsed path that the schema does not have, as `.a.b`, or undefined
 * when every step it can follow exists. It stops (finding nothing) at `metadata` (ObjectMeta is
 * the server's), at `..`, and below a node that keeps unknown fields or has no declared fields.
 */
export function missingField(schema: SchemaNode, steps: readonly PathStep[]): string | undefined {
  let node: SchemaNode | undefined = schema;
  let at = '';
  for (const [i, step] of steps.entries()) {
    if (!node || step.kind === 'recursive' || (step.kind === 'field' && !step.name)) return undefined;
    if (i === 0 && step.kind === 'field' && step.name === 'metadata') return undefined;
    if (node.type === 'array') {
      const items: SchemaNode | SchemaNode[] | undefined = node.items;
      node = Array.isArray(items) ? undefined : items;
      if (step.kind === 'elements' || !node) continue;
    }
    if (step.kind === 'elements') {
      node = typeof node.additionalProperties === 'object' ? node.additionalProperties : undefined;
      continue;
    }
    at += `.${step.name}`;
    if (node['x-kubernetes-preserve-unknown-fields'] && !node.properties?.[step.name]) return undefined;
    const next: SchemaNode | undefined =
      node.properties?.[step.name] ??
      (typeof node.additionalProperties === 'object' ? node.additionalProperties : undefined);
    if (!next) return node.properties && Object.keys(node.properties).length ? at : undefined;
    node = next;
  }
  return undefined;
}
