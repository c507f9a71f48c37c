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
  try {
    return runtimeParseLabelSelector(s);
  } catch (e) {
    if (!(e instanceof SelectorSyntaxError)) throw e;
    const m = /^([^\s!=<>(),]+)\s+(in|notin)\s+([^\s(]+)/.exec(e.term);
    if (m) throw badRequest(`unable to parse requirement: found '${m[3]}' expected: '('`);
    throw badRequest(`unable to parse requirement: found '${e.term}', expected: in, notin, =, ==, !=, gt, lt`);
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
