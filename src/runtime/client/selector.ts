/**
 * Label and field selectors: parsing Kubernetes' selector syntax and matching objects in memory
 * (the cache evaluates them; live reads pass them to the API server as strings). A label
 * selector may also be a Selector (src/util/apimachinery/labels.ts, apimachinery's labels
 * package): its requirements are used as they are.
 */
import {
  InvalidSelectorError,
  isSelector,
  matchesNothing,
  parseSelector,
  type Selector,
} from '../../util/apimachinery/labels.js';

/** A Selector that selects nothing has no query string: refuse it rather than select everything. */
function refuseNothing(sel: Selector): void {
  if (matchesNothing(sel))
    throw new Error(
      'kubeforge/runtime: the label selector is nothing() (labelSelectorAsSelector of an absent selector): it selects no object, and as a query it would select every object; check matchesNothing(selector) first',
    );
}

/** One requirement of a label selector. */
export interface LabelRequirement {
  key: string;
  op: 'exists' | '!exists' | 'in' | 'notin' | '=' | '!=' | 'gt' | 'lt';
  values: string[];
}

/** A selector that does not parse; `term` is the offending part. */
export class SelectorSyntaxError extends Error {
  constructor(
    message: string,
    readonly term: string,
  ) {
    super(message);
    this.name = 'SelectorSyntaxError';
  }
}

/** One requirement of a field selector (only equality and inequality exist for fields). */
export interface FieldRequirement {
  field: string;
  op: '=' | '!=';
  value: string;
}

function splitTopLevel(s: string): string[] {
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
  return out.map((x) => x.trim()).filter((x) => x.length > 0);
}

const OPS = {
  '=': '=',
  '==': '=',
  '!=': '!=',
  in: 'in',
  notin: 'notin',
  exists: 'exists',
  '!': '!exists',
  gt: 'gt',
  lt: 'lt',
} as const;

/**
 * Parses `app=web,tier!=db,env in (a,b),!legacy` with apimachinery's `labels.Parse` (or takes an
 * equality map, or a Selector's requirements). Throws a SelectorSyntaxError with Go's message
 * (`unable to parse requirement: ...`) for a selector the API server refuses; its `term` is the
 * whole selector.
 */
export function parseLabelSelector(sel: string | Record<string, string> | Selector | undefined): LabelRequirement[] {
  if (!sel) return [];
  if (typeof sel === 'string') {
    const text = sel;
    try {
      sel = parseSelector(text);
    } catch (e) {
      if (e instanceof InvalidSelectorError) throw new SelectorSyntaxError(e.message, text);
      throw e;
    }
  }
  if (isSelector(sel)) {
    refuseNothing(sel);
    return (sel.requirements() ?? []).map((r) => ({ key: r.key, op: OPS[r.operator], values: [...r.values] }));
  }
  const map = sel;
  return Object.keys(map)
    .sort()
    .map((key) => ({ key, op: '=' as const, values: [map[key]] }));
}

/** True when the labels satisfy every requirement (an empty selector matches everything). */
export function matchesLabels(reqs: LabelRequirement[], labels: Record<string, string> | undefined): boolean {
  for (const r of reqs) {
    const has = labels !== undefined && Object.hasOwn(labels, r.key);
    const v = has ? labels[r.key] : undefined;
    switch (r.op) {
      case 'exists':
        if (!has) return false;
        break;
      case '!exists':
        if (has) return false;
        break;
      case '=':
        if (v !== r.values[0]) return false;
        break;
      case '!=':
        if (has && v === r.values[0]) return false;
        break;
      case 'in':
        if (v === undefined || !r.values.includes(v)) return false;
        break;
      case 'notin':
        if (v !== undefined && r.values.includes(v)) return false;
        break;
      // Both sides must be integers (apimachinery: a label that is not one does not match).
      case 'gt':
        if (v === undefined || !/^-?\d+$/.test(v) || !(Number(v) > Number(r.values[0]))) return false;
        break;
      case 'lt':
        if (v === undefined || !/^-?\d+$/.test(v) || !(Number(v) < Number(r.values[0]))) return false;
        break;
    }
  }
  return true;
}

/** Parses `a=b,c!=d` (or an equality map). Throws on malformed terms. */
export function parseFieldSelector(sel: string | Record<string, string> | undefined): FieldRequirement[] {
  if (!sel) return [];
  if (typeof sel !== 'string')
    return Object.keys(sel)
      .sort()
      .map((field) => ({ field, op: '=' as const, value: sel[field] }));
  return splitTopLevel(sel).map((term) => {
    const m = term.match(/^([^\s!=]+)\s*(==|=|!=)\s*(.*)$/);
    if (!m)
      throw new SelectorSyntaxError(
        `kubeforge/runtime: invalid field selector term "${term}" in "${sel}" (expected field=value or field!=value)`,
        term,
      );
    return { field: m[1], op: m[2] === '!=' ? ('!=' as const) : ('=' as const), value: m[3].trim() };
  });
}

/** Serialises a selector for the API server's query string (a Selector as Go's `String()`). */
export function selectorString(sel: string | Record<string, string> | Selector | undefined): string | undefined {
  if (!sel) return undefined;
  if (isSelector(sel)) {
    refuseNothing(sel);
    return sel.toString() || undefined;
  }
  if (typeof sel === 'string') return sel;
  return Object.keys(sel)
    .sort()
    .map((k) => `${k}=${sel[k]}`)
    .join(',');
}
