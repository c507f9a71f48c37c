/**
 * Label and field selectors on the fake API server: the runtime's parser and label matcher (the
 * cache's), with the API server's words for a selector that does not parse, and field values
 * read from the object as the server's field label conversion does.
 */
import {
  matchesLabels as runtimeMatchesLabels,
  parseFieldSelector as runtimeParseFieldSelector,
  parseLabelSelector as runtimeParseLabelSelector,
  SelectorSyntaxError,
  type FieldRequirement,
  type LabelRequirement,
} from '../../runtime/client/selector.js';
import { badRequest } from './status.js';

export type { FieldRequirement, LabelRequirement };

export function parseLabelSelector(s: string): LabelRequirement[] {
  const syntax = labelSelectorSyntaxError(s);
  if (syntax) throw badRequest(syntax);
  try {
    return runtimeParseLabelSelector(s);
  } catch (e) {
    if (!(e instanceof SelectorSyntaxError)) throw e;
    // The runtime's parser is apimachinery's labels.Parse: its message is the API server's.
    throw badRequest(e.message);
  }
}

export function matchesLabels(labels: Record<string, string>, reqs: LabelRequirement[]): boolean {
  return runtimeMatchesLabels(reqs, labels);
}

export function parseFieldSelector(s: string): FieldRequirement[] {
  try {
    return runtimeParseFieldSelector(s);
  } catch (e) {
    if (!(e instanceof SelectorSyntaxError)) throw e;
    throw badRequest(`invalid selector: '${s}'; can't understand '${e.term}'`);
  }
}

function fieldValue(o: Record<string, unknown>, path: string): string {
  let cur: unknown = o;
  for (const k of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return '';
    cur = (cur as Record<string, unknown>)[k];
  }
  if (cur === undefined || cur === null) return '';
  return typeof cur === 'object' ? JSON.stringify(cur) : String(cur);
}

export function matchesFields(o: Record<string, unknown>, reqs: FieldRequirement[]): boolean {
  for (const f of reqs) {
    const v = fieldValue(o, f.field);
    if (f.op === '=' ? v !== f.value : v === f.value) return false;
  }
  return true;
}

/** apimachinery's label selector lexer: its tokens, in its `string2token` table. */
const SYMBOLS = new Set(['!=', '==', '=', '!', '(', ')', ',', '>', '<']);
const SPECIAL = '=!(),><';
type Tok = { t: 'id' | 'in' | 'notin' | 'sym' | 'end' | 'error'; lit: string };

function lex(s: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (true) {
    while (i < s.length && ' \t\r\n'.includes(s[i])) i++;
    if (i >= s.length) {
      out.push({ t: 'end', lit: '' });
      return out;
    }
    if (SPECIAL.includes(s[i])) {
      let buf = '';
      let last = '';
      while (i < s.length && SPECIAL.includes(s[i])) {
        buf += s[i];
        if (SYMBOLS.has(buf)) last = buf;
        else if (last) break;
        i++;
      }
      if (!last) out.push({ t: 'error', lit: `error expected: keyword found '${buf}'` });
      else out.push({ t: 'sym', lit: last });
      if (!last) i++;
      continue;
    }
    let id = '';
    while (i < s.length && !' \t\r\n'.includes(s[i]) && !SPECIAL.includes(s[i])) id += s[i++];
    out.push({ t: id === 'in' ? 'in' : id === 'notin' ? 'notin' : 'id', lit: id });
  }
}

/**
 * The syntax errors of apimachinery's label selector parser, in its words (its lexer and
 * recursive descent: `found 'Z', expected: ',' or 'end of string'`); undefined when it parses.
 */
export function labelSelectorSyntaxError(s: string): string | undefined {
  const toks = lex(s);
  let p = 0;
  // In a value position the keywords are identifiers.
  const look = () => toks[Math.min(p, toks.length - 1)];
  const isId = (t: Tok) => t.t === 'id' || t.t === 'in' || t.t === 'notin';
  const next = () => toks[Math.min(p++, toks.length - 1)];
  const requirement = (): string | undefined => {
    let t = next();
    let notExists = false;
    if (t.t === 'sym' && t.lit === '!') {
      notExists = true;
      t = next();
    }
    if (!isId(t)) return `found '${t.lit}', expected: identifier`;
    const after = look();
    if (after.t === 'end' || (after.t === 'sym' && after.lit === ',')) return undefined;
    // `!key` takes no operator: what follows is the separator's business.
    if (notExists) return undefined;
    const op = next();
    if (op.t === 'in' || op.t === 'notin') return values();
    if (!(op.t === 'sym' && ['=', '==', '!=', '>', '<'].includes(op.lit)))
      return `found '${op.lit}', expected: in, notin, =, ==, !=, gt, lt`;
    const v = look();
    if (v.t === 'end' || (v.t === 'sym' && v.lit === ',')) return undefined;
    const val = next();
    return isId(val) ? undefined : `found '${val.lit}', expected: identifier`;
  };
  const values = (): string | undefined => {
    const open = next();
    if (!(open.t === 'sym' && open.lit === '(')) return `found '${open.lit}' expected: '('`;
    const first = look();
    if (first.t === 'sym' && first.lit === ')') {
      p++;
      return undefined;
    }
    if (!isId(first) && !(first.t === 'sym' && first.lit === ','))
      return `found '${first.lit}', expected: ',', ')' or identifier`;
    while (true) {
      const t = next();
      if (isId(t)) {
        const after = look();
        if (after.t === 'sym' && after.lit === ',') continue;
        if (after.t === 'sym' && after.lit === ')') break;
        return `found '${after.lit}', expected: ',' or ')'`;
      }
      if (t.t === 'sym' && t.lit === ',') {
        const after = look();
        if (after.t === 'sym' && after.lit === ')') break;
        if (after.t === 'sym' && after.lit === ',') p++;
        continue;
      }
      return `found '${t.lit}', expected: ',', or identifier`;
    }
    const close = next();
    return close.t === 'sym' && close.lit === ')' ? undefined : `found '${first.lit}', expected: ')'`;
  };
  while (true) {
    const t = look();
    if (t.t === 'end') return undefined;
    if (!(isId(t) || (t.t === 'sym' && t.lit === '!')))
      return `found '${t.lit}', expected: !, identifier, or 'end of string'`;
    const err = requirement();
    if (err) return `unable to parse requirement: ${err}`;
    const sep = next();
    if (sep.t === 'end') return undefined;
    if (sep.t === 'sym' && sep.lit === ',') {
      const n = look();
      if (!(isId(n) || (n.t === 'sym' && n.lit === '!'))) return `found '${n.lit}', expected: identifier after ','`;
      continue;
    }
    return `found '${sep.lit}', expected: ',' or 'end of string'`;
  }
}
