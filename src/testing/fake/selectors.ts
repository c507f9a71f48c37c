/**
 * Label and field selectors as the API server parses and applies them (apimachinery's
 * labels.Parse and fields.ParseSelector, for the forms clients send).
 */
import { badRequest } from './status.js';
import type { Resource } from './resources.js';

export interface LabelRequirement {
  key: string;
  op: 'exists' | '!exists' | '=' | '!=' | 'in' | 'notin' | 'gt' | 'lt';
  values: string[];
}

export interface FieldRequirement {
  field: string;
  op: '=' | '!=';
  value: string;
}

/** Splits on commas outside parentheses. */
function split(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out.map((x) => x.trim()).filter((x) => x !== '');
}

export function parseLabelSelector(s: string): LabelRequirement[] {
  const out: LabelRequirement[] = [];
  for (const part of split(s)) {
    let m: RegExpExecArray | null;
    if ((m = /^([^\s!=<>(),]+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(part))) {
      out.push({ key: m[1], op: m[2] as 'in' | 'notin', values: m[3].split(',').map((x) => x.trim()) });
    } else if ((m = /^!\s*([^\s!=<>(),]+)$/.exec(part))) {
      out.push({ key: m[1], op: '!exists', values: [] });
    } else if ((m = /^([^\s!=<>(),]+)\s*(==|=|!=|>|<)\s*([^\s!=<>(),]*)$/.exec(part))) {
      const op = m[2] === '==' || m[2] === '=' ? '=' : m[2] === '!=' ? '!=' : m[2] === '>' ? 'gt' : 'lt';
      out.push({ key: m[1], op, values: [m[3]] });
    } else if ((m = /^([^\s!=<>(),]+)$/.exec(part))) {
      out.push({ key: m[1], op: 'exists', values: [] });
    } else if ((m = /^([^\s!=<>(),]+)\s+(in|notin)\s+([^\s(]+)/.exec(part))) {
      throw badRequest(`unable to parse requirement: found '${m[3]}' expected: '('`);
    } else {
      throw badRequest(`unable to parse requirement: found '${part}', expected: in, notin, =, ==, !=, gt, lt`);
    }
  }
  return out;
}

export function matchesLabels(labels: Record<string, string>, reqs: LabelRequirement[]): boolean {
  for (const r of reqs) {
    const has = Object.prototype.hasOwnProperty.call(labels, r.key);
    const v = has ? String(labels[r.key]) : undefined;
    switch (r.op) {
      case 'exists':
        if (!has) return false;
        break;
      case '!exists':
        if (has) return false;
        break;
      case '=':
      case 'in':
        if (!has || !r.values.includes(v!)) return false;
        break;
      case '!=':
      case 'notin':
        if (has && r.values.includes(v!)) return false;
        break;
      case 'gt':
      case 'lt': {
        if (!has || !/^-?\d+$/.test(v!)) return false;
        const n = Number(v);
        const bound = Number(r.values[0]);
        if (r.op === 'gt' ? !(n > bound) : !(n < bound)) return false;
        break;
      }
    }
  }
  return true;
}

export function parseFieldSelector(s: string): FieldRequirement[] {
  const out: FieldRequirement[] = [];
  for (const part of split(s)) {
    const m = /^([^=!]+?)\s*(==|=|!=)\s*(.*)$/.exec(part);
    if (!m) throw badRequest(`invalid field selector: invalid selector: '${s}'; can't understand '${part}'`);
    out.push({ field: m[1].trim(), op: m[2] === '!=' ? '!=' : '=', value: m[3].trim() });
  }
  return out;
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

export function matchesFields(r: Resource, o: Record<string, unknown>, reqs: FieldRequirement[]): boolean {
  void r;
  for (const f of reqs) {
    const v = fieldValue(o, f.field);
    if (f.op === '=' ? v !== f.value : v === f.value) return false;
  }
  return true;
}
