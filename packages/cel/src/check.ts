/**
 * The CEL type checker for validation rules. @bufbuild/cel parses (and expands macros:
 * `has`, `all`, `exists`, `exists_one`, `map`, `filter`) and evaluates, but its checker only types
 * constants and identifiers, so this module checks the parsed tree itself against the variables
 * the API server declares (`self`, `oldSelf`, typed from the schema by ./types.ts) and the
 * overloads of ./library.ts. Messages follow cel-go's wording (`undefined field 'x'`,
 * `found no matching overload for '_+_' applied to '(int, string)'`), located `<input>:line:col`.
 */
import { parse } from '@bufbuild/cel';
import { CEL_VERSIONS, NEWEST_CEL_TARGET, OVERLOADS, TYPE_IDENTS, type Overload } from './library.js';
import { literalIssues, planError } from './plan.js';
import { type CelIssue, type Expr, markOptionals, positionsOf, scanSource } from './syntax.js';
import { RESERVED, T, typeName, type CelT } from './types.js';

/** The value of an expression of one kind (`listExpr`, `structExpr`...). */
type ExprCase<C extends Expr['exprKind']['case']> = Extract<Expr['exprKind'], { case: C }>['value'];

export type { CelIssue, Expr } from './syntax.js';

export interface Checked {
  ast?: Expr;
  /** The output type, when the expression checked. */
  type?: CelT;
  /** Type of each node (by id), for the cost estimator. */
  types: Map<bigint, CelT>;
  /** Overload chosen at each call node (by id): the first that matched. */
  calls: Map<bigint, Overload>;
  /** Every overload that matched at each call node (several when an argument is dyn), as cel-go's checker keeps them for the cost estimator. */
  overloads?: Map<bigint, Overload[]>;
  issues: CelIssue[];
  usesOldSelf: boolean;
  source: string;
  positions: Map<bigint, number>;
  /**
   * What cel-go's program planning refuses in the parsed expression (./plan.ts: a constant
   * conversion that fails, a constant index of no qualifier type, a constant pattern RE2
   * refuses). The API server reports it when the expression also checks: `program
   * instantiation failed: <this>`.
   */
  programError?: string;
}

/** Line and column (1-based, columns in code points) of an offset in `src`. */
export function lineCol(src: string, offset: number): { line: number; column: number } {
  const cps = [...src];
  let line = 1;
  let column = 1;
  for (let i = 0; i < offset && i < cps.length; i++) {
    if (cps[i] === '\n') {
      line++;
      column = 1;
    } else column++;
  }
  return { line, column };
}

/** Parses and checks `source` with the given variables. Never throws: problems are issues. */
export function checkExpression(
  source: string,
  variables: Record<string, CelT>,
  options: { k8sMinor?: number } = {},
): Checked {
  const target = options.k8sMinor ?? NEWEST_CEL_TARGET;
  const out: Checked = {
    types: new Map(),
    calls: new Map(),
    overloads: new Map(),
    issues: [],
    usesOldSelf: false,
    source,
    positions: new Map(),
  };
  // cel-go refuses nesting past 250 levels (parentheses, brackets, braces) before it parses:
  // refuse the same, before a recursive parser or checker can overflow the stack.
  if (bracketDepth(source) >= MAX_RECURSION) {
    out.issues.push({ message: `<input>:-1:0: expression recursion limit exceeded: ${MAX_RECURSION}`, offset: 0 });
    return out;
  }
  const scanned = scanSource(source);
  if (scanned.error) {
    const { line, column } = lineCol(source, scanned.error.offset);
    out.issues.push({ message: `<input>:${line}:${column}: ${scanned.error.message}`, offset: scanned.error.offset });
    return out;
  }
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(scanned.text);
  } catch (e) {
    if (e instanceof RangeError) {
      out.issues.push({ message: '<input>:-1:0: max recursion depth exceeded', offset: 0 });
      return out;
    }
    const err = e as { message?: string; location?: { start?: { offset?: number } } };
    const offset = err.location?.start?.offset ?? 0;
    const raw = String(err.message ?? e).replace(/^<input>:\d+:\d+: /, '');
    const { line, column } = lineCol(source, offset);
    out.issues.push({ message: `<input>:${line}:${column}: Syntax error: ${raw}`, offset });
    return out;
  }
  out.positions = positionsOf(parsed.sourceInfo as never);
  // has(x.f) is reported where x.f is written (cel-go), not at `has`
  for (const [k, call] of Object.entries(parsed.sourceInfo?.macroCalls ?? {})) {
    const c = call as unknown as Expr;
    if (c.exprKind.case === 'callExpr' && c.exprKind.value.function === 'has' && c.exprKind.value.args[0]) {
      const at = out.positions.get(c.exprKind.value.args[0].id);
      if (at !== undefined) out.positions.set(BigInt(k), at);
    }
  }
  const ast = parsed.expr as unknown as Expr;
  callsAtParen(ast, scanned.text, out.positions);
  // ... and an expression nested 250 calls deep (a chain of 250 `+`): cel-go's limit.
  if (callDepth(ast) >= MAX_RECURSION) {
    out.issues.push({ message: '<input>:-1:0: max recursion depth exceeded', offset: 0 });
    return out;
  }
  markOptionals(ast, scanned, out.positions);
  if (scanned.firstEscaped !== undefined && target < BACKQUOTES_SINCE) {
    const { line, column } = lineCol(source, scanned.firstEscaped);
    out.issues.push({
      message: `<input>:${line}:${column}: Syntax error: backquoted field names are parsed by API servers from Kubernetes 1.${BACKQUOTES_SINCE} (cel-go 0.29); the project targets 1.${target}`,
      offset: scanned.firstEscaped,
    });
    return out;
  }
  const firstOptional = Math.min(
    ...scanned.selects,
    ...scanned.indexes,
    ...scanned.elements.keys(),
    ...scanned.entries.keys(),
  );
  if (Number.isFinite(firstOptional) && target < 29) {
    const { line, column } = lineCol(source, firstOptional);
    out.issues.push({
      message: `<input>:${line}:${column}: Syntax error: ${tooNew('optional syntax', 29, target)}`,
      offset: firstOptional,
    });
    return out;
  }
  out.ast = ast;
  const checker = new Checker(out, variables, target);
  const t = checker.check(ast, new Map());
  // cel-go's AST validators run on an expression that checked
  if (!out.issues.length) {
    for (const f of checker.formatCalls) {
      const bad = formatProblem(f.text, f.args, out.types);
      if (!bad) continue;
      const offset = out.positions.get(bad.at?.id ?? f.call.id) ?? 0;
      const { line, column } = lineCol(source, offset);
      out.issues.push({ message: `<input>:${line}:${column}: ${bad.message}`, offset });
    }
    out.issues.push(
      ...literalIssues(ast, (e) => {
        const offset = out.positions.get(e.id) ?? 0;
        const { line, column } = lineCol(source, offset);
        return { prefix: `<input>:${line}:${column}: `, offset };
      }),
    );
  }
  out.issues.sort((a, b) => a.offset - b.offset);
  if (!out.issues.length) out.type = t;
  out.programError = planError(ast);
  return out;
}

/**
 * cel-go places a function call (`f(x)`, `x.f(y)`) at its opening parenthesis; @bufbuild/cel at
 * the name (or the dot). Moves each named call's position to its `(`, so that errors reported
 * at a call are where cel-go reports them.
 */
function callsAtParen(root: Expr, text: string, positions: Map<bigint, number>): void {
  const stack = [root];
  for (let e = stack.pop(); e; e = stack.pop()) {
    const k = e.exprKind;
    if (k.case === 'callExpr') {
      stack.push(...(k.value.target ? [k.value.target] : []), ...k.value.args);
      const fn = k.value.function;
      const start = positions.get(e.id);
      if (start === undefined || !/^[A-Za-z_][\w]*$/.test(fn)) continue;
      const skipSpace = (from: number) => {
        let to = from;
        while (to < text.length && /\s/.test(text[to])) to++;
        return to;
      };
      let at = start;
      if (text[at] === '.') at = skipSpace(at + 1);
      if (!text.startsWith(fn, at)) continue;
      at = skipSpace(at + fn.length);
      if (text[at] === '(') positions.set(e.id, at);
    } else if (k.case === 'selectExpr' && k.value.operand) stack.push(k.value.operand);
    else if (k.case === 'listExpr') stack.push(...k.value.elements);
    else if (k.case === 'structExpr')
      for (const x of k.value.entries)
        stack.push(...(x.keyKind.case === 'mapKey' ? [x.keyKind.value as Expr] : []), ...(x.value ? [x.value] : []));
    else if (k.case === 'comprehensionExpr')
      stack.push(
        ...[k.value.iterRange, k.value.accuInit, k.value.loopCondition, k.value.loopStep, k.value.result].filter(
          (x): x is Expr => !!x,
        ),
      );
  }
}

/** Why a function is refused at an older target: the version that has it (library.ts CEL_VERSIONS). */
function tooNew(what: string, since: number, target: number): string {
  const lib = CEL_VERSIONS.find((v) => v.since === since)?.what;
  return `${what} is in new CRD rules from Kubernetes 1.${since}${lib ? ` (${lib})` : ''}; the project targets 1.${target}`;
}

/**
 * The first minor whose API server parses backquoted field names: its cel-go (0.29) enables
 * them by default; 1.36's (0.26) refuses the backquote. A parser feature: every rule, new or stored.
 */
const BACKQUOTES_SINCE = 37;

/** cel-go's parser recursion limit, as the API server configures it. */
const MAX_RECURSION = 250;

/** The deepest nesting of ( [ { outside string literals (a linear scan). */
function bracketDepth(source: string): number {
  let depth = 0;
  let max = 0;
  let quote = '';
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '(' || c === '[' || c === '{') max = Math.max(max, ++depth);
    else if (c === ')' || c === ']' || c === '}') depth--;
  }
  return max;
}

/** The deepest chain of calls (operators included) in a parsed expression, walked without recursion. */
function callDepth(root: Expr): number {
  let max = 0;
  const stack: [Expr, number][] = [[root, 0]];
  for (let top = stack.pop(); top; top = stack.pop()) {
    const [e, d] = top;
    const k = e.exprKind;
    const children: (Expr | undefined)[] =
      k.case === 'callExpr'
        ? [k.value.target, ...k.value.args]
        : k.case === 'selectExpr'
          ? [k.value.operand]
          : k.case === 'listExpr'
            ? k.value.elements
            : k.case === 'structExpr'
              ? k.value.entries.flatMap((x) => [
                  x.keyKind.case === 'mapKey' ? (x.keyKind.value as Expr) : undefined,
                  x.value,
                ])
              : k.case === 'comprehensionExpr'
                ? [k.value.iterRange, k.value.accuInit, k.value.loopCondition, k.value.loopStep, k.value.result]
                : [];
    const depth = k.case === 'callExpr' ? d + 1 : d;
    max = Math.max(max, depth);
    for (const c of children) if (c) stack.push([c, depth]);
  }
  return max;
}

const isDyn = (t: CelT) => t.kind === 'dyn';
/** cel-go's two-variable comprehension macros (ext.TwoVarComprehensions, enabled by current API servers). */
const TWO_VAR_MACROS = new Set(['all', 'exists', 'existsOne', 'transformList', 'transformMap', 'transformMapEntry']);
const ERR: CelT = { kind: 'dyn' };
/**
 * The element type of an empty list or map literal: cel-go types it with a type variable that
 * takes the type its neighbours give it (`[[], [1]]` is a list(list(int))); a dyn everywhere
 * else, one that fits any type in a literal.
 */
const FREE: CelT = { kind: 'dyn' };

class Checker {
  /**
   * How many calls named `format` enclose the node being checked: cel-go's homogeneous-literal
   * validator exempts every list and map literal under one (ext strings' exemption).
   */
  private underFormat = 0;
  /** `'...'.format([...])` calls with a literal format and a list literal, for cel-go's format validator. */
  readonly formatCalls: { call: Expr; text: string; args: Expr[] }[] = [];

  constructor(
    private readonly out: Checked,
    private readonly variables: Record<string, CelT>,
    private readonly target: number,
  ) {}

  private issue(e: Expr, message: string): CelT {
    const offset = this.out.positions.get(e.id) ?? 0;
    const { line, column } = lineCol(this.out.source, offset);
    // one report per node
    const text = `<input>:${line}:${column}: ${message}`;
    if (!this.out.issues.some((i) => i.message === text)) this.out.issues.push({ message: text, offset });
    return ERR;
  }

  check(e: Expr, scope: Map<string, CelT>): CelT {
    const t = this.checkNode(e, scope);
    this.out.types.set(e.id, t);
    return t;
  }

  private checkNode(e: Expr, scope: Map<string, CelT>): CelT {
    const k = e.exprKind;
    switch (k.case) {
      case 'constExpr':
        switch (k.value.constantKind.case) {
          case 'boolValue':
            return T.bool;
          case 'int64Value': {
            const v = BigInt(k.value.constantKind.value as bigint | number);
            if (v > 9223372036854775807n || v < -9223372036854775808n) return this.issue(e, 'invalid int literal');
            return T.int;
          }
          case 'uint64Value':
            return T.uint;
          case 'doubleValue':
            return T.double;
          case 'stringValue':
            return { kind: 'string', max: [...String(k.value.constantKind.value)].length };
          case 'bytesValue':
            return { kind: 'bytes', max: (k.value.constantKind.value as Uint8Array).length };
          case 'nullValue':
            return T.null;
          default:
            return T.dyn;
        }
      case 'identExpr': {
        const name = k.value.name;
        const local = scope.get(name);
        if (local) return local;
        if (name === 'oldSelf') this.out.usesOldSelf = true;
        const v = this.variables[name];
        if (v) return v;
        if (TYPE_IDENTS.has(name)) return T.type;
        return this.issue(e, `undeclared reference to '${name}' (in container '')`);
      }
      case 'selectExpr': {
        const { operand, field, testOnly } = k.value;
        // A qualified function name such as `format.dns1123Label` is not a selection.
        if (!operand) return T.dyn;
        // A qualified type name (`google.protobuf.Timestamp`, `net.IP`) is a type value.
        const qualified = this.qualifiedName(e, scope);
        if (qualified && TYPE_IDENTS.has(qualified)) return T.type;
        // a declared dotted variable (`a.b.c`) is one identifier; the longest declared prefix wins
        if (qualified && this.variables[qualified]) return this.variables[qualified];
        const ft = this.selectField(e, this.check(operand, scope), field);
        return testOnly ? T.bool : ft;
      }
      case 'callExpr':
        return this.checkCall(e, k.value, scope);
      case 'listExpr':
        return this.checkList(k.value, scope);
      case 'structExpr':
        return this.checkStruct(e, k.value, scope);
      case 'comprehensionExpr':
        return this.checkComprehension(k.value, scope);
      default:
        return T.dyn;
    }
  }

  /** A list literal (cel-go's checkCreateList). */
  private checkList(l: ExprCase<'listExpr'>, scope: Map<string, CelT>): CelT {
    let elem: CelT | undefined;
    let first: CelT | undefined;
    let mixed = false;
    let max = 0;
    const optional = new Set(l.optionalIndices ?? []);
    for (const [i, el] of l.elements.entries()) {
      let t = this.check(el, scope);
      if (optional.has(i)) t = this.unwrapOptional(el, t);
      // The API server's CEL takes only homogeneous aggregate literals (cel-go's validator:
      // each element against the first, the first mismatch reported), but under a call of
      // `format`, which it exempts: such a list of mixed types is a list(dyn).
      if (first && !mixed && !sameKind(first, t)) {
        mixed = true;
        if (!this.underFormat) this.issue(el, mismatch(first, t));
      }
      // an empty literal's element type takes its neighbour's (cel-go's type variable)
      first = first && !mixed ? join(first, t) : (first ?? t);
      elem = mixed ? T.dyn : elem ? join(elem, t) : t;
      max++;
    }
    return T.list(elem ?? FREE, max);
  }

  /** A map literal or a message (cel-go's checkCreateMap and checkCreateStruct). */
  private checkStruct(e: Expr, m: ExprCase<'structExpr'>, scope: Map<string, CelT>): CelT {
    // The protobuf well-known types are the only messages a rule can build.
    if (m.messageName === 'google.protobuf.Timestamp' || m.messageName === 'google.protobuf.Duration') {
      for (const entry of m.entries) if (entry.value) this.check(entry.value, scope);
      return m.messageName.endsWith('Timestamp') ? T.timestamp : T.duration;
    }
    if (m.messageName) return this.issue(e, `undeclared reference to '${m.messageName}' (in container '')`);
    // cel-go's homogeneous-literal validator: every key and value against the first entry's
    // (each mismatch reported), but under a call of `format`, where the map is of dyn
    let key: CelT | undefined;
    let value: CelT | undefined;
    let firstKey: CelT | undefined;
    let firstValue: CelT | undefined;
    for (const entry of m.entries) {
      if (entry.keyKind.case === 'mapKey') {
        const kt = this.check(entry.keyKind.value as Expr, scope);
        if (firstKey && !sameKind(firstKey, kt)) {
          if (!this.underFormat) this.issue(entry.keyKind.value as Expr, mismatch(firstKey, kt));
          key = T.dyn;
        } else key = key ? join(key, kt) : kt;
        firstKey ??= kt;
      }
      if (entry.value) {
        let vt = this.check(entry.value, scope);
        if (entry.optionalEntry) vt = this.unwrapOptional(entry.value, vt);
        if (firstValue && !sameKind(firstValue, vt)) {
          if (!this.underFormat) this.issue(entry.value, mismatch(firstValue, vt));
          value = T.dyn;
        } else value = value ? join(value, vt) : vt;
        firstValue ??= vt;
      }
    }
    return T.map(key ?? FREE, value ?? FREE, m.entries.length);
  }

  /** A comprehension: the macros' expansion (cel-go's checkComprehension). */
  private checkComprehension(c: ExprCase<'comprehensionExpr'>, scope: Map<string, CelT>): CelT {
    const range = c.iterRange;
    const rt = range ? this.check(range, scope) : T.dyn;
    let iter: CelT;
    if (rt.kind === 'list') iter = rt.elem;
    else if (rt.kind === 'map') iter = rt.key;
    // without a range rt is dyn: range is set here
    else if (rt.kind === 'dyn' || !range) iter = T.dyn;
    else
      iter = this.issue(
        range,
        `expression of type '${typeName(rt)}' cannot be range of a comprehension (must be list, map, or dynamic)`,
      );
    let accu = c.accuInit ? this.check(c.accuInit, scope) : T.dyn;
    const inner = new Map(scope);
    inner.set(c.iterVar, iter);
    inner.set(c.accuVar, accu);
    if (c.loopCondition) this.check(c.loopCondition, inner);
    if (c.loopStep) {
      const st = this.check(c.loopStep, inner);
      // `map` and `filter` start from an empty list: the step gives the element type.
      accu = join(accu, st);
      inner.set(c.accuVar, accu);
    }
    const result = c.result ? this.check(c.result, inner) : accu;
    return result.kind === 'list' && rt.kind === 'list' ? { ...result, max: rt.max } : result;
  }

  /**
   * The type of field `field` of a value of type `ot` (cel-go's checkSelectField): an object's
   * field, a map's value. Selecting on an optional, or with `.?`, gives an optional.
   */
  private selectField(e: Expr, ot: CelT, field: string, optional = false): CelT {
    const inner = optionalOf(ot);
    const target = inner ?? ot;
    let ft: CelT;
    switch (target.kind) {
      case 'object': {
        // Current API servers also take a reserved word unescaped (self.namespace for __namespace__).
        const f = target.fields.get(field) ?? (RESERVED.has(field) ? target.fields.get(`__${field}__`) : undefined);
        ft = f ?? this.issue(e, `undefined field '${field}'`);
        break;
      }
      case 'map':
        ft = target.value;
        if (!isDyn(target.key) && target.key.kind !== 'string')
          ft = this.issue(e, `type '${typeName(target)}' does not support field selection`);
        break;
      case 'dyn':
        ft = T.dyn;
        break;
      default:
        ft = this.issue(e, `type '${typeName(target)}' does not support field selection`);
    }
    return (inner || optional) && ft !== ERR ? T.optional(ft) : ft;
  }

  /** The value type of an optional list element or map entry (cel-go: must be an optional, or dyn). */
  private unwrapOptional(e: Expr, t: CelT): CelT {
    const inner = optionalOf(t);
    if (inner) return inner;
    if (!isDyn(t) && t !== ERR) this.issue(e, `expected type '${typeName(T.optional(t))}' but found '${typeName(t)}'`);
    return t;
  }

  /** `a.b.c` when `e` is a chain of selections over an identifier that is no variable, else undefined. */
  private qualifiedName(e: Expr, scope: Map<string, CelT>): string | undefined {
    const parts: string[] = [];
    let cur: Expr | undefined = e;
    while (cur && cur.exprKind.case === 'selectExpr' && !cur.exprKind.value.testOnly) {
      parts.unshift(cur.exprKind.value.field);
      cur = cur.exprKind.value.operand;
    }
    if (cur?.exprKind.case !== 'identExpr') return undefined;
    const root = cur.exprKind.value.name;
    if (scope.has(root) || this.variables[root]) return undefined;
    return [root, ...parts].join('.');
  }

  /**
   * The macros cel-go expands and our parser does not: the two-variable comprehensions
   * (`all(k, v, p)`, `exists`, `existsOne`, `transformList`, `transformMap`, `transformMapEntry`)
   * and ext lists' `sortBy(e, key)`. Types them as cel-go does; undefined when `name` is none
   * of them (or not in macro form).
   */
  private checkMacroCall(
    e: Expr,
    name: string,
    target: Expr,
    args: Expr[],
    scope: Map<string, CelT>,
  ): CelT | undefined {
    const two = TWO_VAR_MACROS.has(name) && (args.length === 3 || (args.length === 4 && name.startsWith('transform')));
    const sortBy = name === 'sortBy' && args.length === 2;
    if ((name === 'optMap' || name === 'optFlatMap') && args.length === 2 && args[0].exprKind.case === 'identExpr') {
      // cel-go's optional macros: the body sees the optional's value
      const ot = this.check(target, scope);
      const inner = optionalOf(ot);
      if (!inner && !isDyn(ot))
        return this.issue(target, `found no matching overload for '${name}' applied to '${typeName(ot)}'`);
      const body = this.check(args[1], new Map(scope).set(args[0].exprKind.value.name, inner ?? T.dyn));
      if (name === 'optMap') return T.optional(body);
      if (!optionalOf(body) && !isDyn(body))
        return this.issue(args[1], `expected type '${typeName(T.optional(body))}' but found '${typeName(body)}'`);
      return body;
    }
    if (!two && !sortBy) return undefined;
    const needs = two ? 33 : 35;
    if (this.target < needs)
      return this.issue(
        e,
        `undeclared reference to '${name}' (in container ''): ${tooNew(two ? `the two-variable form of ${name}` : name, needs, this.target)}`,
      );
    const vars = args.slice(0, two ? 2 : 1);
    if (!vars.every((a) => a.exprKind.case === 'identExpr')) return undefined;
    const rt = this.check(target, scope);
    const inner = new Map(scope);
    const names = vars.map((a) => (a.exprKind.value as { name: string }).name);
    if (rt.kind === 'list') {
      if (two) inner.set(names[0], T.int).set(names[1], rt.elem);
      else inner.set(names[0], rt.elem);
    } else if (rt.kind === 'map' && two) inner.set(names[0], rt.key).set(names[1], rt.value);
    else if (rt.kind === 'dyn') for (const n of names) inner.set(n, T.dyn);
    else
      return this.issue(
        target,
        `expression of type '${typeName(rt)}' cannot be range of a comprehension (must be list, map, or dynamic)`,
      );
    const bodies = args.slice(vars.length).map((a) => this.check(a, inner));
    const last = bodies[bodies.length - 1];
    if (sortBy) return rt.kind === 'list' ? rt : T.dyn;
    if (name === 'all' || name === 'exists' || name === 'existsOne') return T.bool;
    if (name === 'transformList') return T.list(last, rt.kind === 'list' || rt.kind === 'map' ? rt.max : undefined);
    if (name === 'transformMap')
      return T.map(
        rt.kind === 'map' ? rt.key : T.int,
        last,
        rt.kind === 'list' || rt.kind === 'map' ? rt.max : undefined,
      );
    return last.kind === 'map' ? last : T.dyn; // transformMapEntry: the entries' map type
  }

  private checkCall(e: Expr, call: { target?: Expr; function: string; args: Expr[] }, scope: Map<string, CelT>): CelT {
    let name = call.function;
    let target = call.target;
    // `format.dns1123Label()`, `ip.isCanonical(x)`, `strings.quote(x)`: qualified global functions.
    if (
      target &&
      target.exprKind.case === 'identExpr' &&
      !scope.has(target.exprKind.value.name) &&
      !this.variables[target.exprKind.value.name] &&
      OVERLOADS.has(`${target.exprKind.value.name}.${name}`)
    ) {
      name = `${target.exprKind.value.name}.${name}`;
      target = undefined;
    }
    const macro = target ? this.checkMacroCall(e, name, target, call.args, scope) : undefined;
    if (macro) return macro;
    // `x.?f`, as the parser gives it: `_?._(x, "f")`
    if (name === '_?._' && !target && call.args.length === 2 && call.args[1].exprKind.case === 'constExpr') {
      const ot = this.check(call.args[0], scope);
      this.check(call.args[1], scope);
      return this.selectField(e, ot, String(call.args[1].exprKind.value.constantKind.value), true);
    }
    if (call.function === 'format') this.underFormat++;
    const tt = target ? this.check(target, scope) : undefined;
    const ats = call.args.map((a) => this.check(a, scope));
    if (call.function === 'format') this.underFormat--;
    const declared = OVERLOADS.get(name);
    if (!declared) return this.issue(e, `undeclared reference to '${name}' (in container '')`);
    const candidates = declared.filter((o) => (o.since ?? 0) <= this.target);
    if (!candidates.length)
      return this.issue(
        e,
        `undeclared reference to '${name}' (in container ''): ${tooNew(name, Math.min(...declared.map((o) => o.since ?? 0)), this.target)}`,
      );
    const matches: { o: Overload; result: CelT }[] = [];
    for (const o of candidates) {
      if (!!o.target !== !!tt || o.args.length !== ats.length) continue;
      const b = new Map<string, CelT>();
      // o.target and tt are both set or both unset (checked above)
      if (o.target && tt && !assign(o.target, tt, b)) continue;
      if (!o.args.every((p, i) => assign(p, ats[i], b))) continue;
      matches.push({ o, result: substitute(o.result, b) });
    }
    if (!matches.length) {
      if (ats.some((t) => t === ERR) || tt === ERR) return ERR;
      const sig = `(${ats.map(typeName).join(', ')})`;
      return this.issue(
        e,
        `found no matching overload for '${name}' applied to '${tt ? `${typeName(tt)}.` : ''}${sig}'`,
      );
    }
    this.out.calls.set(e.id, matches[0].o);
    this.out.overloads?.set(
      e.id,
      matches.map((m) => m.o),
    );
    // cel-go's format validator checks a literal format string against a literal argument list
    if (
      name === 'format' &&
      target?.exprKind.case === 'constExpr' &&
      target.exprKind.value.constantKind.case === 'stringValue' &&
      call.args[0]?.exprKind.case === 'listExpr'
    ) {
      this.formatCalls.push({
        call: e,
        text: String(target.exprKind.value.constantKind.value),
        args: call.args[0].exprKind.value.elements,
      });
    }
    // several overloads matched a dyn argument: the result is dyn unless they agree
    let result = matches[0].result;
    // (cel-go keeps a type variable there: in a literal it takes its neighbours' type)
    for (const m of matches.slice(1)) if (typeName(m.result) !== typeName(result)) result = FREE;
    if (name === '_+_' && result.kind === 'string' && ats.every((a) => a.kind === 'string'))
      return { kind: 'string', max: sum(ats.map((a) => (a.kind === 'string' ? a.max : undefined))) };
    if (name === '_+_' && result.kind === 'list' && ats.every((a) => a.kind === 'list'))
      return { ...result, max: sum(ats.map((a) => (a.kind === 'list' ? a.max : undefined))) };
    if (result.kind === 'string' && tt && tt.kind === 'string' && result.max === undefined)
      return { kind: 'string', max: tt.max };
    if (result.kind === 'list' && result.elem.kind === 'string' && tt && tt.kind === 'string')
      return { ...result, max: tt.max };
    return result;
  }
}

/** A type's name as cel-go's TypeName() gives it (format's errors): `list`, `map`, `null_type`, `google.protobuf.Timestamp`. */
function runtimeTypeName(t: CelT): string {
  if (t.kind === 'list' || t.kind === 'map') return t.kind;
  if (t.kind === 'null') return 'null_type';
  if (t.kind === 'opaque') return t.name;
  return typeName(t);
}

/**
 * cel-go's string format validator (ext strings, formatting.go) on `'<text>'.format([<args>])`:
 * each clause against the type of its argument, the clause syntax, the number of arguments.
 * The problem and the node it is reported at (the argument; else the call).
 */
function formatProblem(
  text: string,
  args: Expr[],
  types: Map<bigint, CelT>,
): { message: string; at?: Expr } | undefined {
  const typeOf = (e: Expr) => types.get(e.id) ?? T.dyn;
  const oneOf = (e: Expr, kinds: string[]) => typeOf(e).kind === 'dyn' || kinds.includes(typeOf(e).kind);
  const STRING_KINDS = [
    'list',
    'map',
    'int',
    'uint',
    'double',
    'bool',
    'string',
    'timestamp',
    'bytes',
    'duration',
    'type',
    'null',
  ];
  /** %s: the argument, and every element of a list or map literal in it, of a kind %s formats. */
  const badForString = (e: Expr): Expr | undefined => {
    if (!oneOf(e, STRING_KINDS)) return e;
    const k = e.exprKind;
    if (k.case === 'listExpr')
      for (const x of k.value.elements) {
        const b = badForString(x);
        if (b) return b;
      }
    if (k.case === 'structExpr' && !k.value.messageName) {
      for (const x of k.value.entries) {
        for (const part of [x.keyKind.case === 'mapKey' ? (x.keyKind.value as Expr) : undefined, x.value]) {
          const b = part && badForString(part);
          if (b) return b;
        }
      }
    }
    return undefined;
  };
  const clauses: Record<string, [string[], string]> = {
    d: [['int', 'uint'], 'decimal clause can only be used on integers'],
    f: [['double', 'string'], 'fixed-point clause can only be used on doubles'],
    e: [['double', 'string'], 'scientific clause can only be used on doubles'],
    b: [['int', 'uint', 'bool'], 'only integers and bools can be formatted as binary'],
    x: [['int', 'uint', 'string', 'bytes'], 'only integers, byte buffers, and strings can be formatted as hex'],
    X: [['int', 'uint', 'string', 'bytes'], 'only integers, byte buffers, and strings can be formatted as hex'],
    o: [['int', 'uint'], 'octal clause can only be used on integers'],
  };
  let requested = 0;
  let argIndex = 0;
  for (let i = 0; i < text.length; ) {
    if (text[i] !== '%') {
      i++;
      continue;
    }
    if (text[i + 1] === '%') {
      i += 2;
      continue;
    }
    requested++;
    if (i + 1 >= text.length) return { message: 'unexpected end of string' };
    if (argIndex >= args.length) return { message: `index ${argIndex} out of range` };
    let j = i + 1;
    if (text[j] === '.') {
      j++;
      const digits = /^\d*/.exec(text.slice(j))?.[0] ?? '';
      j += digits.length;
      if (j >= text.length)
        return {
          message:
            'could not parse formatting clause: error while parsing precision: could not find end of precision specifier',
        };
      if (!digits)
        return {
          message:
            'could not parse formatting clause: error while parsing precision: error while converting precision to integer: strconv.Atoi: parsing "": invalid syntax',
        };
    }
    const verb = text[j];
    const arg = args[argIndex];
    if (verb === 's') {
      const bad = badForString(arg);
      if (bad)
        return {
          message: `error during formatting: string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given ${runtimeTypeName(typeOf(bad))}`,
          at: bad,
        };
    } else if (clauses[verb]) {
      const [kinds, what] = clauses[verb];
      if (!oneOf(arg, kinds))
        return { message: `error during formatting: ${what}, was given ${runtimeTypeName(typeOf(arg))}`, at: arg };
    } else return { message: `could not parse formatting clause: unrecognized formatting clause "${verb}"` };
    i = j + 1;
    argIndex++;
  }
  if (args.length > requested)
    return { message: `too many arguments supplied to string.format (expected ${requested}, got ${args.length})` };
  return undefined;
}

/** The value type of an `optional_type(T)` (dyn for an unparameterised one), else undefined. */
function optionalOf(t: CelT): CelT | undefined {
  return t.kind === 'opaque' && t.name === 'optional_type' ? (t.params?.[0] ?? T.dyn) : undefined;
}

/** cel-go's words for a literal's element of another type; two schema objects are told apart (the server names them by their paths). */
function mismatch(expected: CelT, found: CelT): string {
  const text = `expected type '${typeName(expected)}' but found '${typeName(found)}'`;
  return typeName(expected) === typeName(found) ? `${text} (the objects of two schema nodes are two types)` : text;
}

/**
 * Whether two element types of a literal are of one type, as cel-go's homogeneous-literal
 * validator sees them: dyn and null are types of their own, and two objects are one type only
 * when they are one schema node's (the API server names each node's type by its path).
 */
function sameKind(a: CelT, b: CelT): boolean {
  if (a === ERR || b === ERR) return true; // already reported
  if (a === FREE || b === FREE) return true;
  if (a.kind === 'dyn' || b.kind === 'dyn') return a.kind === b.kind;
  if (a.kind === 'object' && b.kind === 'object') return a === b;
  if (a.kind === 'list' && b.kind === 'list') return sameKind(a.elem, b.elem);
  if (a.kind === 'map' && b.kind === 'map') return sameKind(a.key, b.key) && sameKind(a.value, b.value);
  if (a.kind === 'opaque' && b.kind === 'opaque' && a.name === b.name) {
    const bp = b.params;
    return !a.params || !bp || (a.params.length === bp.length && a.params.every((p, i) => sameKind(p, bp[i])));
  }
  return (
    typeName(a) === typeName(b) ||
    (a.kind === b.kind && a.kind !== 'object' && a.kind !== 'opaque' && a.kind !== 'list' && a.kind !== 'map')
  );
}

function sum(xs: (number | undefined)[]): number | undefined {
  let total = 0;
  for (const x of xs) {
    if (x === undefined) return undefined;
    total += x;
  }
  return total;
}

/** Can a value of type `actual` be passed where `param` is expected (binding type parameters in `b`)? */
function assign(param: CelT, actual: CelT, b: Map<string, CelT>): boolean {
  if (param.kind === 'param') {
    const bound = b.get(param.name);
    if (!bound || bound.kind === 'dyn') {
      b.set(param.name, actual);
      return true;
    }
    if (assign(bound, actual, b)) return true;
    if (assign(actual, bound, new Map())) {
      b.set(param.name, actual);
      return true;
    }
    return false;
  }
  if (param.kind === 'dyn' || actual.kind === 'dyn') return true;
  if (actual.kind === 'null') return param.kind === 'null' || param.kind === 'object' || param.kind === 'opaque';
  if (param.kind !== actual.kind) return false;
  if (param.kind === 'list' && actual.kind === 'list') return assign(param.elem, actual.elem, b);
  if (param.kind === 'map' && actual.kind === 'map')
    return assign(param.key, actual.key, b) && assign(param.value, actual.value, b);
  if (param.kind === 'opaque' && actual.kind === 'opaque') {
    if (param.name !== actual.name) return false;
    const ap = actual.params;
    if (!param.params || !ap) return true;
    return param.params.length === ap.length && param.params.every((p, i) => assign(p, ap[i], b));
  }
  if (param.kind === 'object' && actual.kind === 'object') return sameObject(param, actual);
  return true;
}

function sameObject(a: CelT & { kind: 'object' }, b: CelT & { kind: 'object' }): boolean {
  if (a === b) return true;
  if (a.fields.size !== b.fields.size) return false;
  for (const [k, t] of a.fields) {
    const u = b.fields.get(k);
    if (!u || !assign(t, u, new Map())) return false;
  }
  return true;
}

function substitute(t: CelT, b: Map<string, CelT>): CelT {
  if (t.kind === 'param') return b.get(t.name) ?? FREE; // unbound: a type variable, as cel-go leaves it
  if (t.kind === 'list') return T.list(substitute(t.elem, b));
  if (t.kind === 'map') return T.map(substitute(t.key, b), substitute(t.value, b));
  if (t.kind === 'opaque' && t.params)
    return T.opaque(
      t.name,
      t.params.map((p) => substitute(p, b)),
    );
  return t;
}

/** The common type of two branches or elements; dyn where they differ (an empty list's dyn gives way). */
export function join(a: CelT, b: CelT): CelT {
  if (a.kind === 'dyn') return b;
  if (b.kind === 'dyn') return a;
  if (a.kind === 'null') return b;
  if (b.kind === 'null') return a;
  if (a.kind === 'list' && b.kind === 'list')
    return T.list(
      join(a.elem, b.elem),
      a.max !== undefined && b.max !== undefined ? Math.max(a.max, b.max) : undefined,
    );
  if (a.kind === 'map' && b.kind === 'map') return T.map(join(a.key, b.key), join(a.value, b.value));
  if ((a.kind === 'string' && b.kind === 'string') || (a.kind === 'bytes' && b.kind === 'bytes'))
    return { kind: a.kind, max: a.max !== undefined && b.max !== undefined ? Math.max(a.max, b.max) : undefined };
  if (a.kind === b.kind && a.kind !== 'object' && a.kind !== 'opaque') return a;
  if (a.kind === 'opaque' && b.kind === 'opaque' && a.name === b.name) {
    const bp = b.params;
    if (!a.params || !bp || a.params.length !== bp.length) return a.params ? a : b;
    return T.opaque(
      a.name,
      a.params.map((p, i) => join(p, bp[i])),
    );
  }
  if (a.kind === 'object' && b.kind === 'object' && sameObject(a, b)) return a;
  return T.dyn;
}
