/**
 * A static worst-case cost estimate of a checked rule, after cel-go's checker cost estimator
 * as the API server configures it: sizes come from the schema (maxLength, maxItems,
 * maxProperties; unbounded ones are estimated from the 3 MiB request limit), a comprehension
 * costs its range's size times its body, string functions cost a tenth of a unit per character,
 * `matches` multiplies the string's traversal by a quarter of the pattern's length. It is an
 * approximation (see ARCHITECTURE.md): the per-node constants follow cel-go, the size
 * propagation through functions is coarser.
 */
import type { Checked, Expr } from './check.js';
import { MAX_REQUEST_SIZE_BYTES, type CelT } from './types.js';

/** The API server's limit for one rule (times its cardinality): apiextensions' StaticEstimatedCostLimit. */
export const STATIC_ESTIMATED_COST_LIMIT = 10_000_000;
/** The API server's limit for all rules of one CRD version: StaticEstimatedCRDCostLimit. */
export const STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000;

const STRING_TRAVERSAL = 0.1;
/** Calls that are comprehensions in cel-go (two-variable macros, ext lists' sortBy). */
const MACRO_CALLS = new Set(['all', 'exists', 'existsOne', 'transformList', 'transformMap', 'transformMapEntry', 'sortBy']);
const REGEX_LENGTH = 0.25;

/** The worst-case number of elements (characters, items, entries) of a value of type `t`. */
export function sizeOf(t: CelT | undefined): number {
  if (!t) return MAX_REQUEST_SIZE_BYTES;
  switch (t.kind) {
    case 'string':
    case 'bytes':
    case 'list':
    case 'map':
      return t.max ?? MAX_REQUEST_SIZE_BYTES;
    case 'object':
      return t.fields.size;
    case 'dyn':
      return MAX_REQUEST_SIZE_BYTES;
    default:
      return 1;
  }
}

/** The estimated worst-case cost of a checked expression (0 when it did not check). */
export function estimateCost(c: Checked): number {
  if (!c.ast || c.issues.length) return 0;
  const typeOf = (e: Expr | undefined) => (e ? c.types.get(e.id) : undefined);
  const cost = (e: Expr | undefined): number => {
    if (!e) return 0;
    const k = e.exprKind;
    switch (k.case) {
      case 'constExpr':
        return 0;
      case 'identExpr':
        return 1;
      case 'selectExpr':
        return 1 + cost(k.value.operand);
      case 'listExpr':
        return 10 + k.value.elements.reduce((a, x) => a + cost(x), 0);
      case 'structExpr':
        return 30 + k.value.entries.reduce((a, x) => a + (x.keyKind.case === 'mapKey' ? cost(x.keyKind.value as Expr) : 0) + cost(x.value), 0);
      case 'comprehensionExpr': {
        const v = k.value;
        const n = sizeOf(typeOf(v.iterRange));
        // each iteration costs 1 besides its condition and step (cel-go)
        return cost(v.iterRange) + cost(v.accuInit) + n * (1 + cost(v.loopCondition) + cost(v.loopStep)) + cost(v.result);
      }
      case 'callExpr': {
        const { target, args } = k.value;
        const fn = k.value.function;
        const argCosts = args.map(cost);
        const base = cost(target) + argCosts.reduce((a, b) => a + b, 0);
        if (fn === '_?_:_') return argCosts[0] + Math.max(argCosts[1], argCosts[2]);
        if (fn === '_&&_' || fn === '_||_' || fn === '@not_strictly_false' || fn === '!_') return base;
        const recv = typeOf(target ?? args[0]);
        const overload = c.calls.get(e.id);
        // Two-variable comprehensions and sortBy: the body runs once per element.
        if (target && MACRO_CALLS.has(fn)) return cost(target) + sizeOf(typeOf(target)) * (1 + argCosts.reduce((a, b) => a + b, 0));
        if (fn === 'matches' || fn === 'find' || fn === 'findAll') {
          const str = target ? recv : typeOf(args[0]);
          const pattern = target ? typeOf(args[0]) : typeOf(args[1]);
          return base + Math.ceil((1 + sizeOf(str)) * STRING_TRAVERSAL) * Math.ceil(sizeOf(pattern) * REGEX_LENGTH);
        }
        if (fn === '_==_' || fn === '_!=_') {
          // compared up to the shorter operand; scalars compare for free in the estimator
          const t = typeOf(args[0]);
          if (t?.kind === 'string' || t?.kind === 'bytes') return base + Math.ceil(Math.min(sizeOf(t), sizeOf(typeOf(args[1]))) * STRING_TRAVERSAL);
          if (t?.kind === 'list' || t?.kind === 'map') return base + Math.min(sizeOf(t), sizeOf(typeOf(args[1])));
          return base;
        }
        if (fn === '_<_' || fn === '_<=_' || fn === '_>_' || fn === '_>=_') {
          const t = typeOf(args[0]);
          if (t?.kind === 'string' || t?.kind === 'bytes') return base + Math.ceil(Math.min(sizeOf(t), sizeOf(typeOf(args[1]))) * STRING_TRAVERSAL);
          return base + 1;
        }
        if (fn === '@in') {
          const t = typeOf(args[1]);
          return base + (t?.kind === 'list' ? sizeOf(t) : 1);
        }
        if (fn === '_+_') {
          const t = typeOf(e);
          if (t?.kind === 'string') return base + Math.ceil(sizeOf(t) * STRING_TRAVERSAL);
          if (t?.kind === 'list') return base + sizeOf(t) + 1;
          return base + 1;
        }
        // Kubernetes' list library (apiserver's library.CostEstimator): one unit per element, and for
        // strings or bytes a traversal of each element as the comparison's cost.
        if (target && (fn === 'isSorted' || fn === 'sum' || fn === 'max' || fn === 'min' || fn === 'indexOf' || fn === 'lastIndexOf')) {
          if (recv?.kind === 'list') {
            const elem = recv.elem;
            const per = 1 + (elem.kind === 'string' || elem.kind === 'bytes' ? Math.ceil(sizeOf(elem) * STRING_TRAVERSAL) : 0);
            return base + sizeOf(recv) * per;
          }
          if (recv?.kind === 'string' || recv?.kind === 'bytes') return base + Math.ceil(sizeOf(recv) * STRING_TRAVERSAL);
        }
        // join: the result (every element, and a separator between two) is traversed.
        if (target && fn === 'join' && recv?.kind === 'list') {
          const n = sizeOf(recv);
          const result = n * sizeOf(recv.elem) + (args.length ? Math.max(0, n - 1) * sizeOf(typeOf(args[0])) : 0);
          return base + Math.ceil(result * STRING_TRAVERSAL);
        }
        // split: the traversal plus the construction of the result.
        if (target && fn === 'split' && (recv?.kind === 'string' || recv?.kind === 'bytes')) return base + Math.ceil(sizeOf(recv) * 2 * STRING_TRAVERSAL);
        // a prefix or suffix test reads as much of the string as the argument is long
        if (fn === 'startsWith' || fn === 'endsWith') return base + Math.ceil(sizeOf(typeOf(args[0])) * STRING_TRAVERSAL);
        if (overload?.cost === 'linear') {
          const per = recv?.kind === 'list' ? 1 : STRING_TRAVERSAL;
          return base + Math.ceil(sizeOf(recv) * per);
        }
        if (fn === 'string' || fn === 'bytes' || fn === 'quantity' || fn === 'url' || fn === 'semver' || fn === 'ip' || fn === 'cidr' || fn === 'isQuantity' || fn === 'isURL' || fn === 'isIP' || fn === 'isCIDR' || fn === 'isSemver') {
          return base + 1 + Math.ceil(sizeOf(typeOf(args[0])) * STRING_TRAVERSAL);
        }
        return base + 1;
      }
      default:
        return 0;
    }
  };
  return cost(c.ast);
}

/**
 * How many times a rule on a schema node runs at most for one object: the product of the sizes
 * of the lists and maps above it (apiextensions' MaxCardinality).
 */
export function multiplyCapped(a: number, b: number): number {
  const r = a * b;
  return Number.isFinite(r) ? Math.min(r, Number.MAX_SAFE_INTEGER) : Number.MAX_SAFE_INTEGER;
}
