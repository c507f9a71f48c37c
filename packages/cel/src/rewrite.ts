/**
 * What cel-go's parser and macros give a rule that @bufbuild/cel's (0.6) do not, turned into
 * expressions its planner runs, before evaluation:
 *
 * - the two-variable comprehensions (`all(i, v, p)`, `exists`, `existsOne`, `transformList`,
 *   `transformMap`, `transformMapEntry`) and the ext lists' `sortBy(e, key)`, as folds written
 *   by hand (the shapes cel-go's macros expand to);
 * - the optional macros `optMap(v, e)` / `optFlatMap(v, e)`;
 * - CEL's optional syntax, once ./syntax.ts has made it parseable: `x.?f` and `m[?k]` become
 *   calls of the evaluator's `@kf.optSelect` / `@kf.optIndex`, a list's optional elements and a
 *   map's optional entries calls of `@kf.optList` / `@kf.optMap`, and a selection or index on a
 *   value that may be an optional (after `.?`, on `oldSelf` of an optionalOldSelf rule, on
 *   `optional.of(...)`) calls of `@kf.select` / `@kf.index`, which look inside optionals.
 *
 * A variable is bound to a value with a fold over an empty list whose accumulator is the
 * variable (cel-go's own binding trick), so each operand is evaluated once.
 */
import type { Expr } from './check.js';
import { RESERVED } from './types.js';

type Kind = Expr['exprKind'];

/** One entry of a map literal (or a message's field). */
type MapEntry = Extract<Kind, { case: 'structExpr' }>['value']['entries'][number];

/** Mutable access to a node's parts (the parsed tree is rewritten in place). */
type Node = { id: bigint; exprKind: Kind };

export interface Rewriter {
  next(): bigint;
}

const ident = (r: Rewriter, name: string): Node => ({ id: r.next(), exprKind: { case: 'identExpr', value: { name } } });
const call = (r: Rewriter, fn: string, args: Node[], target?: Node): Node => ({
  id: r.next(),
  exprKind: { case: 'callExpr', value: { function: fn, args: args as Expr[], target: target as Expr | undefined } },
});
const lit = (r: Rewriter, kind: 'boolValue' | 'int64Value' | 'stringValue', value: unknown): Node => ({
  id: r.next(),
  exprKind: { case: 'constExpr', value: { constantKind: { case: kind, value } } },
});
const list = (r: Rewriter, elements: Node[]): Node => ({
  id: r.next(),
  exprKind: { case: 'listExpr', value: { elements: elements as Expr[], optionalIndices: [] } },
});
const emptyMap = (r: Rewriter): Node => ({
  id: r.next(),
  exprKind: { case: 'structExpr', value: { messageName: '', entries: [] } },
});

function fold(
  r: Rewriter,
  f: { iterVar: string; range: Node; accuVar: string; init: Node; cond: Node; step: Node; result: Node },
): Node {
  return {
    id: r.next(),
    exprKind: {
      case: 'comprehensionExpr',
      value: {
        iterVar: f.iterVar,
        iterRange: f.range as Expr,
        accuVar: f.accuVar,
        accuInit: f.init as Expr,
        loopCondition: f.cond as Expr,
        loopStep: f.step as Expr,
        result: f.result as Expr,
      },
    },
  };
}

/** `body` with `name` bound to `value`. */
const bind = (r: Rewriter, name: string, value: Node, body: Node): Node =>
  fold(r, {
    iterVar: '#unused',
    range: list(r, []),
    accuVar: name,
    init: value,
    cond: lit(r, 'boolValue', false),
    step: ident(r, name),
    result: body,
  });

const TWO_VAR = new Set(['all', 'exists', 'existsOne', 'transformList', 'transformMap', 'transformMapEntry']);
/** Calls whose result may be an optional: selections and indexes on them look inside. */
const OPTIONAL_MAKERS = new Set([
  '@kf.optSelect',
  '@kf.optIndex',
  '@kf.select',
  '@kf.index',
  'optional.of',
  'optional.ofNonZeroValue',
  'optional.none',
  'or',
  'optMap',
  'optFlatMap',
  'first',
  'last',
]);

const identName = (e: Node | undefined): string | undefined =>
  e?.exprKind.case === 'identExpr' ? e.exprKind.value.name : undefined;

/** Rewrites the tree rooted at `root` (see the module comment); `optionalVars` are variables holding optionals (oldSelf). */
export function rewrite(root: Node, r: Rewriter, optionalVars: ReadonlySet<string> = new Set()): Node {
  let temps = 0;
  const temp = () => `@kf.t${temps++}`;
  const mayBeOptional = (e: Node): boolean => {
    const k = e.exprKind;
    if (k.case === 'identExpr') return optionalVars.has(k.value.name);
    if (k.case === 'callExpr') {
      const fn =
        k.value.target && identName(k.value.target as Node) === 'optional'
          ? `optional.${k.value.function}`
          : k.value.function;
      return OPTIONAL_MAKERS.has(fn);
    }
    return false;
  };

  const visit = (e: Node): Node => {
    const k = e.exprKind;
    switch (k.case) {
      case 'selectExpr': {
        const operand = visit(k.value.operand as Node);
        const field = lit(r, 'stringValue', k.value.field);
        // a reserved word selects its escaped property too (`self.namespace` for `__namespace__`)
        if (k.value.testOnly && (RESERVED.has(k.value.field) || mayBeOptional(operand)))
          return call(r, '@kf.has', [operand, field]);
        if (!k.value.testOnly && (mayBeOptional(operand) || RESERVED.has(k.value.field)))
          return call(r, '@kf.select', [operand, field]);
        k.value.operand = operand as Expr;
        return e;
      }
      case 'listExpr': {
        const elements = k.value.elements.map((x) => visit(x as Node));
        const opt = k.value.optionalIndices ?? [];
        if (!opt.length) {
          k.value.elements = elements as Expr[];
          return e;
        }
        return call(r, '@kf.optList', [
          list(r, elements),
          list(
            r,
            elements.map((_, i) => lit(r, 'boolValue', opt.includes(i))),
          ),
        ]);
      }
      case 'structExpr': {
        for (const entry of k.value.entries) {
          if (entry.keyKind.case === 'mapKey') entry.keyKind.value = visit(entry.keyKind.value as Node);
          if (entry.value) entry.value = visit(entry.value as Node) as Expr;
        }
        // cel-go keeps the last value of a repeated key; @bufbuild/cel refuses the literal.
        if (!k.value.messageName) k.value.entries = lastOfRepeatedKeys(k.value.entries);
        if (k.value.messageName || !k.value.entries.some((x) => x.optionalEntry)) return e;
        const keys = k.value.entries.map((x) => x.keyKind.value as Node);
        const values = k.value.entries.map((x) => x.value as Node);
        return call(r, '@kf.optMap', [
          list(r, keys),
          list(r, values),
          list(
            r,
            k.value.entries.map((x) => lit(r, 'boolValue', x.optionalEntry === true)),
          ),
        ]);
      }
      case 'comprehensionExpr': {
        const c = k.value;
        for (const f of ['iterRange', 'accuInit', 'loopCondition', 'loopStep', 'result'] as const)
          if (c[f]) c[f] = visit(c[f] as Node) as Expr;
        return e;
      }
      case 'callExpr': {
        const c = k.value;
        const target = c.target as Node | undefined;
        const args = c.args as Node[];
        const macro = expandMacro(r, c.function, target, args, visit, temp);
        if (macro) return macro;
        const newArgs = args.map(visit);
        const newTarget = target ? visit(target) : undefined;
        if (c.function === '_?._' && !newTarget) return call(r, '@kf.optSelect', newArgs);
        if (c.function === '_[?_]' && !newTarget) return call(r, '@kf.optIndex', newArgs);
        if (c.function === '_[_]' && !newTarget && mayBeOptional(newArgs[0])) return call(r, '@kf.index', newArgs);
        c.args = newArgs as Expr[];
        c.target = newTarget as Expr | undefined;
        return e;
      }
      default:
        return e;
    }
  };
  return visit(root);
}

/**
 * The macros @bufbuild/cel does not expand, as cel-go's expand them: the two-variable
 * comprehensions, `existsOne`, the ext lists' `sortBy` and `optMap` / `optFlatMap`; undefined
 * for any other call. `visit` rewrites the operands; `temp` names a fresh variable.
 */
function expandMacro(
  r: Rewriter,
  fn: string,
  target: Node | undefined,
  args: Node[],
  visit: (e: Node) => Node,
  temp: () => string,
): Node | undefined {
  const arg0 = identName(args[0]);
  const arg1 = identName(args[1]);
  // macros: the loop variables are identifiers, the operand is the target
  if (
    target &&
    TWO_VAR.has(fn) &&
    (args.length === 3 || (args.length === 4 && fn.startsWith('transform'))) &&
    arg0 &&
    arg1
  ) {
    return twoVar(r, fn, visit(target), arg0, arg1, args.slice(2).map(visit), temp());
  }
  if (target && fn === 'existsOne' && args.length === 2 && arg0) {
    const accu = '@kf.accu';
    const one = (n: bigint) => lit(r, 'int64Value', n);
    const step = call(r, '_?_:_', [visit(args[1]), call(r, '_+_', [ident(r, accu), one(1n)]), ident(r, accu)]);
    return fold(r, {
      iterVar: arg0,
      range: visit(target),
      accuVar: accu,
      init: one(0n),
      cond: lit(r, 'boolValue', true),
      step,
      result: call(r, '_==_', [ident(r, accu), one(1n)]),
    });
  }
  if (target && fn === 'sortBy' && args.length === 2 && arg0) {
    const t = temp();
    const keys = fold(r, {
      iterVar: arg0,
      range: ident(r, t),
      accuVar: '@kf.keys',
      init: list(r, []),
      cond: lit(r, 'boolValue', true),
      step: call(r, '_+_', [ident(r, '@kf.keys'), list(r, [visit(args[1])])]),
      result: ident(r, '@kf.keys'),
    });
    return bind(r, t, visit(target), call(r, '@kf.sortByKeys', [ident(r, t), keys]));
  }
  if (target && (fn === 'optMap' || fn === 'optFlatMap') && args.length === 2 && arg0) {
    const t = temp();
    const body = bind(r, arg0, call(r, 'value', [], ident(r, t)), visit(args[1]));
    const some = fn === 'optMap' ? call(r, 'optional.of', [body]) : body;
    return bind(
      r,
      t,
      visit(target),
      call(r, '_?_:_', [call(r, 'hasValue', [], ident(r, t)), some, call(r, 'optional.none', [])]),
    );
  }
  return undefined;
}

/**
 * A map literal's entries without the earlier entries of a repeated constant key whose values are
 * constants (nothing to fail): cel-go keeps the last value of a repeated key, @bufbuild/cel
 * refuses the literal.
 */
function lastOfRepeatedKeys<E extends MapEntry>(entries: E[]): E[] {
  const constKey = (x: E) => {
    const key = x.keyKind.value as Node;
    return x.keyKind.case === 'mapKey' && key.exprKind.case === 'constExpr' && !x.optionalEntry
      ? `${key.exprKind.value.constantKind.case}:${String(key.exprKind.value.constantKind.value)}`
      : undefined;
  };
  const last = new Map<string, number>();
  entries.forEach((x, i) => {
    const key = constKey(x);
    if (key !== undefined) last.set(key, i);
  });
  return entries.filter((x, i) => {
    const key = constKey(x);
    return key === undefined || last.get(key) === i || (x.value as Node | undefined)?.exprKind.case !== 'constExpr';
  });
}

/**
 * A two-variable comprehension over `target` (bound to `t`): over a list the first variable is
 * the index and the second the element, over a map the key and the value.
 */
function twoVar(r: Rewriter, fn: string, target: Node, k: string, v: string, rest: Node[], t: string): Node {
  const accu = '@kf.accu';
  const withValue = (body: Node) => bind(r, v, call(r, '_[_]', [ident(r, t), ident(r, k)]), body);
  const filter = rest.length === 2 ? withValue(rest[0]) : undefined;
  const expr = withValue(rest[rest.length - 1]);
  const a = () => ident(r, accu);
  const guarded = (step: Node) => (filter ? call(r, '_?_:_', [filter, step, a()]) : step);
  let init: Node;
  let cond: Node;
  let step: Node;
  let result: Node = a();
  switch (fn) {
    case 'all':
      init = lit(r, 'boolValue', true);
      cond = call(r, '@not_strictly_false', [a()]);
      step = call(r, '_&&_', [a(), expr]);
      break;
    case 'exists':
      init = lit(r, 'boolValue', false);
      cond = call(r, '@not_strictly_false', [call(r, '!_', [a()])]);
      step = call(r, '_||_', [a(), expr]);
      break;
    case 'existsOne':
      init = lit(r, 'int64Value', 0n);
      cond = lit(r, 'boolValue', true);
      step = call(r, '_?_:_', [expr, call(r, '_+_', [a(), lit(r, 'int64Value', 1n)]), a()]);
      result = call(r, '_==_', [a(), lit(r, 'int64Value', 1n)]);
      break;
    case 'transformList':
      init = list(r, []);
      cond = lit(r, 'boolValue', true);
      step = guarded(call(r, '_+_', [a(), list(r, [expr])]));
      break;
    case 'transformMap':
      init = emptyMap(r);
      cond = lit(r, 'boolValue', true);
      step = guarded(call(r, '@kf.mapInsert', [a(), ident(r, k), expr]));
      break;
    default: // transformMapEntry
      init = emptyMap(r);
      cond = lit(r, 'boolValue', true);
      step = guarded(call(r, '@kf.mapMerge', [a(), expr]));
  }
  return bind(
    r,
    t,
    target,
    fold(r, { iterVar: k, range: call(r, '@kf.keysOf', [ident(r, t)]), accuVar: accu, init, cond, step, result }),
  );
}
