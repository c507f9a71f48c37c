/**
 * A three-way merge of one YAML document by its structure, for `edit` when a line merge cannot
 * be trusted: the user's file (`mine`) gets the scaffold's change from `base` to `next`, map key
 * by map key, and lists of named items (containers, env, ports, volumes: Kubernetes' merge key
 * `name`) item by item. A user's own `env:` list and the `env:` the namespace-scoped manager adds
 * become one list, where a line merge wrote a second `env:` key.
 *
 * The result keeps the user's comments and order (new keys and items are appended), and is
 * written with the sequence style of Kubebuilder's files. Undefined when both sides changed one
 * value differently, or the text is not one YAML document: the caller reports the conflict.
 */
import {
  isMap,
  isScalar,
  isSeq,
  type Node,
  parseAllDocuments,
  type parseDocument,
  type YAMLMap,
  type YAMLSeq,
  YAMLSeq as YAMLSeqClass,
} from 'yaml';

const CONFLICT = Symbol('conflict');
type Result = Node | undefined | typeof CONFLICT;

const json = (n: Node | undefined): string => JSON.stringify(n === undefined ? null : (n.toJSON() as unknown));
const same = (a: Node | undefined, b: Node | undefined) => json(a) === json(b);

function keyOf(pair: { key: unknown }): string {
  return isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
}

/** The `name` of a list item that is a map with one, else undefined. */
function nameOf(n: unknown): string | undefined {
  if (!isMap(n)) return undefined;
  const v = n.get('name');
  return typeof v === 'string' ? v : undefined;
}

function mergeNode(base: Node | undefined, mine: Node | undefined, next: Node | undefined): Result {
  if (same(base, next)) return mine;
  if (same(base, mine) || same(mine, next)) return next;
  if (isMap(mine) && isMap(next) && (base === undefined || isMap(base)))
    return mergeMap(base as YAMLMap | undefined, mine, next);
  if (isSeq(mine) && isSeq(next) && (base === undefined || isSeq(base)))
    return mergeNamedSeq(base as YAMLSeq | undefined, mine, next);
  // The scaffold dropped a list the user added to (`env:` when switching back to cluster scope):
  // its items go, the user's stay, and the key goes with the last item.
  if (isSeq(mine) && isSeq(base) && next === undefined) {
    const r = mergeNamedSeq(base, mine, new YAMLSeqClass());
    return r === CONFLICT || (r as YAMLSeq).items.length > 0 ? r : undefined;
  }
  return CONFLICT;
}

function mergeMap(base: YAMLMap | undefined, mine: YAMLMap, next: YAMLMap): Result {
  const keys: string[] = [];
  for (const m of [mine, base, next]) for (const p of m?.items ?? []) if (!keys.includes(keyOf(p))) keys.push(keyOf(p));
  for (const k of keys) {
    const r = mergeNode(
      base?.get(k, true) as Node | undefined,
      mine.get(k, true) as Node | undefined,
      next.get(k, true) as Node | undefined,
    );
    if (r === CONFLICT) return CONFLICT;
    if (r === undefined) mine.delete(k);
    else if (r !== mine.get(k, true)) mine.set(k, r);
  }
  return mine;
}

/** Lists whose items all have a `name`: merged item by item; any other list changed on both sides is a conflict. */
function mergeNamedSeq(base: YAMLSeq | undefined, mine: YAMLSeq, next: YAMLSeq): Result {
  const all = [...(base?.items ?? []), ...mine.items, ...next.items];
  if (!all.every((i) => nameOf(i) !== undefined)) return CONFLICT;
  const find = (s: YAMLSeq | undefined, name: string) => s?.items.find((i) => nameOf(i) === name) as Node | undefined;
  const names: string[] = [];
  for (const i of [...mine.items, ...next.items]) {
    const name = nameOf(i);
    if (name !== undefined && !names.includes(name)) names.push(name);
  }
  for (const name of names) {
    const m = find(mine, name);
    const b = find(base, name);
    const n = find(next, name);
    // Both sides added an item of one name, differently (the user's own WATCH_NAMESPACE): a conflict.
    if (b === undefined && m !== undefined && n !== undefined && !same(m, n)) return CONFLICT;
    const r = mergeNode(b, m, n);
    if (r === CONFLICT) return CONFLICT;
    if (r === undefined) mine.items.splice(mine.items.indexOf(m as never), 1);
    else if (m === undefined) mine.items.push(r as never);
    else if (r !== m) mine.items[mine.items.indexOf(m as never)] = r as never;
  }
  return mine;
}

/**
 * `mine` with the change from `base` to `next`, merged by structure (see the module comment);
 * a file of several documents (`---`) document by document, when all three have as many.
 */
export function mergeYamlDocument(base: string, mine: string, next: string): string | undefined {
  const [b, m, n] = [base, mine, next].map((t) => parseAllDocuments(t));
  if ([b, m, n].some((docs) => !Array.isArray(docs) || docs.some((d) => d.errors.length > 0))) return undefined;
  const [bd, md, nd] = [b, m, n] as ReturnType<typeof parseDocument>[][];
  if (bd.length !== md.length || nd.length !== md.length) return undefined;
  const out: string[] = [];
  for (let i = 0; i < md.length; i++) {
    const r = mergeNode(
      bd[i].contents as Node | undefined,
      md[i].contents as Node | undefined,
      nd[i].contents as Node | undefined,
    );
    if (r === CONFLICT) return undefined;
    md[i].contents = r as never;
    out.push(md[i].toString({ indentSeq: false, lineWidth: 0 }));
  }
  return out.join('');
}

/** Whether a text is valid YAML (every document parses, no duplicate keys). */
export function isValidYaml(text: string): boolean {
  return parseAllDocuments(text).every((d) => !('errors' in d) || d.errors.length === 0);
}
