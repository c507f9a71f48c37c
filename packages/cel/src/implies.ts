/**
 * Whether a CEL rule can only be looser than the rules it replaces: every value that satisfies
 * all of `before` (the rules of the same schema node in a released CRD) satisfies `after`. Used by
 * `manifests --check-compat`, where a loosened rule (`self.size() <= 5` become `<= 10`, a conjunct
 * dropped, an alternative added) is no new constraint on stored objects.
 *
 * A sound, partial proof on the syntax: `after` is split into its top-level `&&` conjuncts, and
 * each must follow from one conjunct of a `before` rule: the same expression (ids and
 * parentheses aside), a bound of the same expression relaxed (`e <= 5` gives `e <= 10`, `e < 5`,
 * `e <= 5`), or a disjunction one of whose alternatives follows. Anything it cannot prove is not
 * implied (the caller reports the rule as new): it never calls a tighter rule looser.
 */
import { parse } from '@bufbuild/cel';
import { type Expr, scanSource } from './syntax.js';

/** The parsed expression of `rule`, or undefined when it does not parse. */
function parsed(rule: string): Expr | undefined {
  const scanned = scanSource(rule);
  // Optional syntax and backquoted names are blanked or renamed by the scan: not compared.
  const plain =
    scanned.selects.size +
      scanned.indexes.size +
      scanned.elements.size +
      scanned.entries.size +
      scanned.escaped.size ===
    0;
  if (scanned.error || !plain) return undefined;
  try {
    return parse(scanned.text).expr as unknown as Expr;
  } catch {
    return undefined;
  }
}

/** A canonical text of an expression: its structure without ids. */
function key(e: Expr | undefined): string {
  if (!e) return '';
  const k = e.exprKind;
  switch (k.case) {
    case 'constExpr':
      return `c(${k.value.constantKind.case}:${String(k.value.constantKind.value)})`;
    case 'identExpr':
      return `i(${k.value.name})`;
    case 'selectExpr':
      return `s(${key(k.value.operand)}.${k.value.field}${k.value.testOnly ? '?' : ''})`;
    case 'callExpr':
      return `f(${key(k.value.target)}:${k.value.function}(${k.value.args.map(key).join(',')}))`;
    case 'listExpr':
      return `l(${k.value.elements.map(key).join(',')};${(k.value.optionalIndices ?? []).join(',')})`;
    default:
      // Structs, maps and comprehensions: compared by their JSON (ids left out).
      return `x(${JSON.stringify(k, (name, v) => (name === 'id' ? undefined : typeof v === 'bigint' ? String(v) : v))})`;
  }
}

/** The operands of a call of `fn` (`_&&_`, `_||_`), flattened. */
function operands(e: Expr, fn: string): Expr[] {
  const k = e.exprKind;
  if (k.case === 'callExpr' && k.value.function === fn && !k.value.target)
    return k.value.args.flatMap((a) => operands(a, fn));
  return [e];
}

/** A numeric constant's value. */
function numberOf(e: Expr): number | undefined {
  const k = e.exprKind;
  if (k.case !== 'constExpr') return undefined;
  const { case: c, value } = k.value.constantKind;
  if (c === 'int64Value' || c === 'uint64Value' || c === 'doubleValue') return Number(value);
  return undefined;
}

interface Bound {
  /** The bounded expression's key. */
  of: string;
  /** `upper`: of <= / < value; `lower`: of >= / > value. */
  side: 'upper' | 'lower';
  value: number;
  strict: boolean;
}

const FLIP: Record<string, string> = { '_<_': '_>_', '_<=_': '_>=_', '_>_': '_<_', '_>=_': '_<=_' };

/** `e <= 5` (or `5 >= e`, `<`, `>`, `>=`) as a bound. */
function boundOf(e: Expr): Bound | undefined {
  const k = e.exprKind;
  if (k.case !== 'callExpr' || k.value.target || k.value.args.length !== 2 || !FLIP[k.value.function]) return undefined;
  const [a, b] = k.value.args;
  let fn = k.value.function;
  let of = a;
  let value = numberOf(b);
  if (value === undefined) {
    value = numberOf(a);
    of = b;
    fn = FLIP[fn];
  }
  if (value === undefined || Number.isNaN(value)) return undefined;
  return {
    of: key(of),
    side: fn === '_<_' || fn === '_<=_' ? 'upper' : 'lower',
    value,
    strict: fn === '_<_' || fn === '_>_',
  };
}

/** Whether the bound `was` implies `now` (the same expression, bounded no tighter). */
function relaxes(was: Bound, now: Bound): boolean {
  if (was.of !== now.of || was.side !== now.side) return false;
  const looser = was.side === 'upper' ? now.value > was.value : now.value < was.value;
  if (looser) return true;
  return now.value === was.value && (was.strict || !now.strict);
}

/** Whether the conjunct `c` follows from one of the facts `known`. */
function follows(c: Expr, known: readonly Expr[]): boolean {
  const k = key(c);
  if (known.some((f) => key(f) === k)) return true;
  const b = boundOf(c);
  if (b && known.some((f) => ((fb) => fb !== undefined && relaxes(fb, b))(boundOf(f)))) return true;
  const alternatives = operands(c, '_||_');
  return alternatives.length > 1 && alternatives.some((a) => follows(a, known));
}

/**
 * Whether every value that satisfies all of `before` satisfies `after` (see the module comment):
 * false when that cannot be shown, or when a rule does not parse.
 */
export function ruleImpliedBy(after: string, before: readonly string[]): boolean {
  const known: Expr[] = [];
  for (const rule of before) {
    const e = parsed(rule);
    if (e) known.push(...operands(e, '_&&_'));
  }
  const e = parsed(after);
  if (!e || known.length === 0) return false;
  return operands(e, '_&&_').every((c) => follows(c, known));
}
