/**
 * The static cost estimate of a checked rule, as the Kubernetes API server computes it when a
 * CRD is created: cel-go's checker estimator (checker/cost.go) with the estimators the server
 * registers (k8s.io/apiserver pkg/cel/library CostEstimator for the Kubernetes libraries and the
 * strings ext it enables; cel-go's own for the ext lists and sets), and the server's size
 * estimator, which reads the maxLength / maxItems / maxProperties of the schema node a value
 * comes from, or estimates them from the request size limit (./types.ts schemaDecl).
 *
 * The estimate is a range of uint64 (BigInt here; sums and products saturate at 2^64-1 as
 * cel-go's do); the server compares its Max with the budgets. The tree the estimator walks is
 * cel-go's: @bufbuild/cel expands the one-variable macros as cel-go does, the others (two-variable
 * comprehensions, ext lists' sortBy, optMap / optFlatMap) are expanded here into cel-go's shape.
 * Field paths are Go slices in cel-go, and a slice shared by two appends can see the other's
 * element: paths are modelled with their capacity so that the estimate follows even that.
 * test/cel/cost-oracle.test.ts compares every number with the server's own code.
 */
import type { Checked, Expr } from './check.js';
import type { Overload } from './library.js';
import { T, typeName, type CelT, type Decl } from './types.js';

/** The API server's limit for one rule (times its cardinality): apiextensions' StaticEstimatedCostLimit. */
export const STATIC_ESTIMATED_COST_LIMIT = 10_000_000;
/** The API server's limit for all rules of one CRD version: StaticEstimatedCRDCostLimit. */
export const STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000;

// ---------------------------------------------------------------------------------------------
// uint64 arithmetic as cel-go does it: saturating sums and products, float cost factors.

export const MAX_UINT64 = (1n << 64n) - 1n;
const TWO_64 = 2 ** 64;

/** A cost or size range (cel-go's CostEstimate / SizeEstimate). */
export interface Range {
  min: bigint;
  max: bigint;
}

const fixed = (n: bigint | number): Range => ({ min: BigInt(n), max: BigInt(n) });
const ZERO: Range = fixed(0);
const ONE: Range = fixed(1);
const UNKNOWN: Range = { min: 0n, max: MAX_UINT64 };

export const addSat = (x: bigint, y: bigint): bigint => (x + y > MAX_UINT64 ? MAX_UINT64 : x + y);
export const mulSat = (x: bigint, y: bigint): bigint => (x * y > MAX_UINT64 ? MAX_UINT64 : x * y);
/** Go's uint64 arithmetic where cel-go does not guard it: the result wraps. */
const wrap = (x: bigint): bigint => BigInt.asUintN(64, x);

/** Go's uint64(f) for a non-negative float64 (what amd64 gives for a value past the range). */
function floatToUint(f: number): bigint {
  if (f >= TWO_64) return 1n << 63n;
  return BigInt(f);
}

/** x times a float factor, rounded up (cel-go's multiplyByCostFactor). */
function mulFactor(x: bigint, factor: number): bigint {
  const xf = Number(x);
  if (xf > 0 && factor > 0 && xf > TWO_64 / factor) return MAX_UINT64;
  const c = Math.ceil(xf * factor);
  if (c >= TWO_64) return MAX_UINT64;
  return BigInt(c);
}

const add = (a: Range, b: Range): Range => ({ min: addSat(a.min, b.min), max: addSat(a.max, b.max) });
const mul = (a: Range, b: Range): Range => ({ min: mulSat(a.min, b.min), max: mulSat(a.max, b.max) });
const byFactor = (a: Range, f: number): Range => ({ min: mulFactor(a.min, f), max: mulFactor(a.max, f) });
// Math.min and Math.max take numbers; ranges are bigints.
const minBig = (a: bigint, b: bigint): bigint => (a < b ? a : b);
const maxBig = (a: bigint, b: bigint): bigint => (a > b ? a : b);
const union = (a: Range, b: Range): Range => ({ min: minBig(a.min, b.min), max: maxBig(a.max, b.max) });
const sum = (rs: readonly Range[]): Range => rs.reduce(add, ZERO);

/** cel-go's per-unit costs (common/cost.go). */
const STRING_TRAVERSAL = 0.1;
const REGEX_LENGTH = 0.25;
const LIST_CREATE = 10;
const MAP_CREATE = 30;
const STRUCT_CREATE = 40;
/** Kubernetes' format library: the longest pattern it assumes a named format to be. */
const MAX_NAME_FORMAT_REGEX = 128;
const MAX_FORMAT_SIZE = 64;
/** The accumulator names of cel-go's macros (a path that starts with one is not a schema path). */
const ACCUMULATORS = new Set(['__result__', '@result']);
const RESULT = '@result';

// ---------------------------------------------------------------------------------------------
// The tree the estimator walks: cel-go's shape, each node with its checked type.

type Lit =
  | { type: 'string' | 'bytes'; size: number }
  | { type: 'int'; value: bigint }
  | { type: 'bool'; value: boolean }
  | { type: 'uint' | 'double' | 'null' };

type Node = { t: CelT } & (
  | { kind: 'lit'; lit: Lit }
  | { kind: 'ident'; name: string }
  | { kind: 'select'; operand: Node; field: string; testOnly: boolean }
  | { kind: 'call'; fn: string; target?: Node; args: Node[]; ids: string[] }
  | { kind: 'list'; elems: Node[] }
  | { kind: 'map'; entries: { key: Node; value: Node }[] }
  | { kind: 'struct'; values: Node[] }
  | {
      kind: 'comp';
      iterVar: string;
      iterVar2?: string;
      accuVar: string;
      range: Node;
      init: Node;
      cond: Node;
      step: Node;
      result: Node;
    }
);

const ident = (name: string, t: CelT): Node => ({ kind: 'ident', name, t });
const call = (fn: string, args: Node[], ids: string[], t: CelT, target?: Node): Node => ({
  kind: 'call',
  fn,
  args,
  ids,
  t,
  target,
});
const boolLit = (value: boolean): Node => ({ kind: 'lit', lit: { type: 'bool', value }, t: T.bool });
const intLit = (value: bigint): Node => ({ kind: 'lit', lit: { type: 'int', value }, t: T.int });

/** The types ext lists' sort and sortBy are declared for (one overload each). */
const COMPARABLE = [
  'int',
  'uint',
  'double',
  'bool',
  'google.protobuf.Duration',
  'google.protobuf.Timestamp',
  'string',
  'bytes',
];

/** cel-go's overload id for the overloads whose cost depends on it; a distinct name for the rest. */
function overloadId(o: Overload): string {
  const a = o.args.map((x) => x.kind);
  switch (o.name) {
    case '_?_:_':
      return 'conditional';
    case '_&&_':
      return 'logical_and';
    case '_||_':
      return 'logical_or';
    case '!_':
      return 'logical_not';
    case '@not_strictly_false':
      return 'not_strictly_false';
    case '_==_':
      return 'equals';
    case '_!=_':
      return 'not_equals';
    case '@in':
      return a[1] === 'list' ? 'in_list' : 'in_map';
    case '_[_]':
      if (a[0] === 'list') return 'index_list';
      if (a[0] === 'map') return 'index_map';
      break;
    case '_+_':
      if (a[0] === 'string' || a[0] === 'bytes' || a[0] === 'list') return `add_${a[0]}`;
      break;
    case '_<_':
    case '_<=_':
    case '_>_':
    case '_>=_':
      if ((a[0] === 'string' || a[0] === 'bytes') && a[1] === a[0])
        return `${{ '_<_': 'less', '_<=_': 'less_equals', '_>_': 'greater', '_>=_': 'greater_equals' }[o.name]}_${a[0]}`;
      break;
    case 'matches':
      return o.target ? 'matches_string' : 'matches';
    case 'contains':
      return 'contains_string';
    case 'startsWith':
      return 'starts_with_string';
    case 'endsWith':
      return 'ends_with_string';
    case 'bytes':
      if (a[0] === 'string') return 'string_to_bytes';
      break;
    case 'string':
      if (a[0] === 'bytes') return 'bytes_to_string';
      break;
    case 'strings.quote':
      return 'strings_quote';
    case 'format':
      if (o.target) return 'string_format';
      break;
    case 'slice':
      return 'list_slice';
    case 'flatten':
      return a.length ? 'list_flatten_int' : 'list_flatten';
    case 'lists.range':
      return 'lists_range';
    case 'reverse':
      if (o.target?.kind === 'list') return 'list_reverse';
      break;
    case 'distinct':
      return 'list_distinct';
    case 'sets.contains':
      return 'list_sets_contains_list';
    case 'sets.intersects':
      return 'list_sets_intersects_list';
    case 'sets.equivalent':
      return 'list_sets_equivalent_list';
    case 'ip':
      return o.target ? 'cidr_ip' : 'string_to_ip';
    case 'containsIP':
      return a[0] === 'string' ? 'cidr_contains_ip_string' : 'cidr_contains_ip_ip';
    case 'containsCIDR':
      return a[0] === 'string' ? 'cidr_contains_cidr_string' : 'cidr_contains_cidr';
    default:
  }
  return `${o.target ? `${typeName(o.target)}.` : ''}${o.name}(${o.args.map(typeName).join(', ')})`;
}

/** The overload ids of ext lists' sort for a list of `elem` (every comparable type for dyn). */
function sortIds(suffix: 'sort' | 'sortByAssociatedKeys', elem: CelT | undefined): string[] {
  const name = elem ? comparableName(elem) : undefined;
  if (!elem || elem.kind === 'dyn') return COMPARABLE.map((t) => `list_${t}_${suffix}`);
  return name ? [`list_${name}_${suffix}`] : [];
}

function comparableName(t: CelT): string | undefined {
  switch (t.kind) {
    case 'int':
    case 'uint':
    case 'double':
    case 'bool':
    case 'string':
    case 'bytes':
      return t.kind;
    case 'duration':
      return 'google.protobuf.Duration';
    case 'timestamp':
      return 'google.protobuf.Timestamp';
    default:
      return undefined;
  }
}

const TWO_VAR = new Set(['all', 'exists', 'existsOne', 'transformList', 'transformMap', 'transformMapEntry']);

/** Builds the estimator's tree from a checked expression (macros in cel-go's expansion). */
function build(c: Checked): Node {
  const typeOf = (e: Expr): CelT => c.types.get(e.id) ?? T.dyn;
  /** A part of a comprehension (the parser and the macros always set all five). */
  const part = (x: Expr | undefined, what: string): Expr => {
    if (!x) throw new Error(`cel cost: a comprehension without its ${what}`);
    return x;
  };
  const conv = (e: Expr): Node => {
    const k = e.exprKind;
    const t = typeOf(e);
    switch (k.case) {
      case 'constExpr': {
        const v = k.value.constantKind;
        switch (v.case) {
          case 'stringValue':
            return { kind: 'lit', lit: { type: 'string', size: [...String(v.value)].length }, t };
          case 'bytesValue':
            return { kind: 'lit', lit: { type: 'bytes', size: (v.value as Uint8Array).length }, t };
          case 'int64Value':
            return { kind: 'lit', lit: { type: 'int', value: BigInt(v.value as bigint) }, t };
          case 'boolValue':
            return { kind: 'lit', lit: { type: 'bool', value: v.value as boolean }, t };
          case 'uint64Value':
            return { kind: 'lit', lit: { type: 'uint' }, t };
          case 'doubleValue':
            return { kind: 'lit', lit: { type: 'double' }, t };
          default:
            return { kind: 'lit', lit: { type: 'null' }, t };
        }
      }
      case 'identExpr':
        return ident(k.value.name, t);
      case 'selectExpr': {
        const operand = k.value.operand;
        // `net.IP`, `google.protobuf.Timestamp`: a qualified name, one identifier for cel-go
        if (operand && !c.types.has(operand.id) && !k.value.testOnly) {
          const parts = [k.value.field];
          let cur: Expr | undefined = operand;
          while (cur?.exprKind.case === 'selectExpr') {
            parts.unshift(cur.exprKind.value.field);
            cur = cur.exprKind.value.operand;
          }
          if (cur?.exprKind.case === 'identExpr') return ident([cur.exprKind.value.name, ...parts].join('.'), t);
        }
        return {
          kind: 'select',
          operand: operand ? conv(operand) : ident('', T.dyn),
          field: k.value.field,
          testOnly: k.value.testOnly,
          t,
        };
      }
      case 'callExpr':
        return convCall(e, k.value, t);
      case 'listExpr':
        return { kind: 'list', elems: k.value.elements.map(conv), t };
      case 'structExpr':
        if (k.value.messageName)
          return { kind: 'struct', values: k.value.entries.flatMap((x) => (x.value ? [conv(x.value)] : [])), t };
        return {
          kind: 'map',
          entries: k.value.entries.map((x) => ({
            key: conv(x.keyKind.value as Expr),
            value: x.value ? conv(x.value) : boolLit(false),
          })),
          t,
        };
      case 'comprehensionExpr': {
        const v = k.value;
        return {
          kind: 'comp',
          iterVar: v.iterVar,
          accuVar: v.accuVar,
          range: conv(part(v.iterRange, 'range')),
          init: conv(part(v.accuInit, 'accumulator init')),
          cond: conv(part(v.loopCondition, 'loop condition')),
          step: conv(part(v.loopStep, 'loop step')),
          result: conv(part(v.result, 'result')),
          t,
        };
      }
      default:
        return { kind: 'lit', lit: { type: 'null' }, t };
    }
  };

  const convCall = (e: Expr, v: { target?: Expr; function: string; args: Expr[] }, t: CelT): Node => {
    const overloads = c.overloads?.get(e.id);
    if (!overloads) {
      const expanded = v.target ? expandMacro(v.function, v.target, v.args, t) : undefined;
      if (expanded) return expanded;
    }
    const first = overloads?.[0];
    // `sets.contains(a, b)`, `format.named(n)`: a qualified global function, written as a member call
    const qualified = first && first.name !== v.function && v.target;
    const fn = qualified ? first.name : v.function;
    const target = qualified ? undefined : v.target ? conv(v.target) : undefined;
    const args = v.args.map(conv);
    let ids = (overloads ?? []).map(overloadId);
    // the checker types `x.?f` itself (no overload recorded): cel-go's select_optional_field
    if (!overloads && fn === '_?._') ids = ['select_optional_field'];
    if (fn === 'sort' && target && overloads?.some((o) => o.target))
      ids = sortIds('sort', target.t.kind === 'list' ? target.t.elem : undefined);
    return call(fn, args, [...new Set(ids)], t, target);
  };

  /** cel-go's expansion of the macros @bufbuild/cel leaves as calls. */
  const expandMacro = (name: string, target: Expr, args: Expr[], t: CelT): Node | undefined => {
    const isIdent = (x: Expr | undefined) => x?.exprKind.case === 'identExpr';
    const nameOf = (x: Expr) => (x.exprKind.value as { name: string }).name;
    if (
      TWO_VAR.has(name) &&
      (args.length === 3 || (args.length === 4 && name.startsWith('transform'))) &&
      isIdent(args[0]) &&
      isIdent(args[1])
    ) {
      const range = conv(target);
      const [k, val] = [nameOf(args[0]), nameOf(args[1])];
      const body = args.slice(2).map(conv);
      const accu = (at: CelT) => ident(RESULT, at);
      const comp = (init: Node, cond: Node, step: Node, result: Node): Node => ({
        kind: 'comp',
        iterVar: k,
        iterVar2: val,
        accuVar: RESULT,
        range,
        init,
        cond,
        step,
        result,
        t,
      });
      switch (name) {
        case 'all':
          return comp(
            boolLit(true),
            call('@not_strictly_false', [accu(T.bool)], ['not_strictly_false'], T.bool),
            call('_&&_', [accu(T.bool), body[0]], ['logical_and'], T.bool),
            accu(T.bool),
          );
        case 'exists':
          return comp(
            boolLit(false),
            call(
              '@not_strictly_false',
              [call('!_', [accu(T.bool)], ['logical_not'], T.bool)],
              ['not_strictly_false'],
              T.bool,
            ),
            call('_||_', [accu(T.bool), body[0]], ['logical_or'], T.bool),
            accu(T.bool),
          );
        case 'existsOne':
          return comp(
            intLit(0n),
            boolLit(true),
            call(
              '_?_:_',
              [body[0], call('_+_', [accu(T.int), intLit(1n)], ['add_int64'], T.int), accu(T.int)],
              ['conditional'],
              T.int,
            ),
            call('_==_', [accu(T.int), intLit(1n)], ['equals'], T.bool),
          );
        default: {
          const [filter, transform] = body.length === 2 ? body : [undefined, body[0]];
          let step: Node;
          let init: Node;
          if (name === 'transformList') {
            init = { kind: 'list', elems: [], t: T.list(T.dyn) };
            step = call(
              '_+_',
              [accu(t), { kind: 'list', elems: [transform], t: T.list(transform.t) }],
              ['add_list'],
              t,
            );
          } else {
            init = { kind: 'map', entries: [], t: T.map(T.dyn, T.dyn) };
            const keyType = range.t.kind === 'map' ? range.t.key : range.t.kind === 'list' ? T.int : T.dyn;
            step =
              name === 'transformMap'
                ? call('cel.@mapInsert', [accu(t), ident(k, keyType), transform], ['@mapInsert_map_key_value'], t)
                : call('cel.@mapInsert', [accu(t), transform], ['@mapInsert_map_map'], t);
          }
          if (filter) step = call('_?_:_', [filter, step, accu(t)], ['conditional'], t);
          return comp(init, boolLit(true), step, accu(t));
        }
      }
    }
    if (name === 'sortBy' && args.length === 2 && isIdent(args[0])) {
      // a bind of the target to a hidden variable, sorted by the list of keys map() gives
      const input = '@__sortBy_input__';
      const listT = typeOf(target);
      const key = conv(args[1]);
      const keys: Node = {
        kind: 'comp',
        iterVar: nameOf(args[0]),
        accuVar: RESULT,
        range: ident(input, listT),
        init: { kind: 'list', elems: [], t: T.list(T.dyn) },
        cond: boolLit(true),
        step: call(
          '_+_',
          [ident(RESULT, T.list(key.t)), { kind: 'list', elems: [key], t: T.list(key.t) }],
          ['add_list'],
          T.list(key.t),
        ),
        result: ident(RESULT, T.list(key.t)),
        t: T.list(key.t),
      };
      const sorted = call(
        '@sortByAssociatedKeys',
        [keys],
        sortIds('sortByAssociatedKeys', key.t),
        listT,
        ident(input, listT),
      );
      return {
        kind: 'comp',
        iterVar: '#unused',
        accuVar: input,
        range: { kind: 'list', elems: [], t: T.list(T.dyn) },
        init: conv(target),
        cond: boolLit(false),
        step: ident(input, listT),
        result: sorted,
        t,
      };
    }
    if ((name === 'optMap' || name === 'optFlatMap') && args.length === 2 && isIdent(args[0])) {
      const ot = typeOf(target);
      const inner = ot.kind === 'opaque' && ot.name === 'optional_type' ? (ot.params?.[0] ?? T.dyn) : T.dyn;
      const v = nameOf(args[0]);
      const body = conv(args[1]);
      // the target is written twice: once tested, once unwrapped
      const bind: Node = {
        kind: 'comp',
        iterVar: '#unused',
        accuVar: v,
        range: { kind: 'list', elems: [], t: T.list(T.dyn) },
        init: call('value', [], ['optional_value'], inner, conv(target)),
        cond: boolLit(false),
        step: ident(v, inner),
        result: body,
        t: body.t,
      };
      const some = name === 'optMap' ? call('optional.of', [bind], ['optional_of'], t) : bind;
      return call(
        '_?_:_',
        [
          call('hasValue', [], ['optional_hasValue'], T.bool, conv(target)),
          some,
          call('optional.none', [], ['optional_none'], t),
        ],
        ['conditional'],
        t,
      );
    }
    return undefined;
  };

  if (!c.ast) throw new Error('cel cost: a checked expression without its syntax tree');
  return conv(c.ast);
}

// ---------------------------------------------------------------------------------------------
// Field paths: Go slices (a shared backing array with a capacity), as cel-go appends to them.

interface Path {
  arr: string[];
  len: number;
}

function append(p: Path | undefined, s: string): Path {
  if (p && p.len < p.arr.length) {
    p.arr[p.len] = s;
    return { arr: p.arr, len: p.len + 1 };
  }
  const len = p?.len ?? 0;
  const cap = p?.arr.length ?? 0;
  const newCap = len + 1 > 2 * cap ? len + 1 : cap < 256 ? 2 * cap : cap + Math.ceil((cap + 768) / 4);
  const arr = new Array<string>(newCap).fill('');
  const prev = p?.arr ?? [];
  for (let i = 0; i < len; i++) arr[i] = prev[i];
  arr[len] = s;
  return { arr, len: len + 1 };
}

const read = (p: Path | undefined): string[] => (p ? p.arr.slice(0, p.len) : []);

// ---------------------------------------------------------------------------------------------
// The estimator.

/** What a function estimator sees of an argument (cel-go's AstNode). */
interface AstNode {
  path?: Path;
  t: CelT;
  expr?: Node;
  computed?: Range;
}

/** The tree node of a call's argument (every argument has one). */
function exprOf(a: AstNode): Node {
  if (!a.expr) throw new Error('cel cost: a call argument without its expression');
  return a.expr;
}

interface CallEstimate {
  cost: Range;
  resultSize?: Range;
}

interface Entry {
  container: 'list' | 'map';
  key: Range;
  val: Range;
}

interface LocalVar {
  path?: Path;
  size?: Range;
  entry?: Entry;
}

/** cel-go's kind of a type, for the estimator's decisions. */
function kindOf(t: CelT): string {
  switch (t.kind) {
    case 'object':
      return 'struct';
    case 'param':
      return 'typeparam';
    case 'opaque':
      // Kubernetes declares these as object types, net.IP and net.CIDR as opaque ones
      return t.name.startsWith('kubernetes.') ? 'struct' : 'opaque';
    default:
      return t.kind;
  }
}

function isScalar(t: CelT): boolean {
  switch (t.kind) {
    case 'bool':
    case 'double':
    case 'duration':
    case 'int':
    case 'timestamp':
    case 'uint':
      return true;
    case 'opaque':
      return t.name === 'optional_type' && isScalar(t.params?.[0] ?? T.dyn);
    default:
      return false;
  }
}

function typeParams(t: CelT): CelT[] {
  if (t.kind === 'list') return [t.elem];
  if (t.kind === 'map') return [t.key, t.value];
  if (t.kind === 'opaque') return t.params ?? [];
  return [];
}

const sameType = (a: CelT, b: CelT) => kindOf(a) === kindOf(b) && typeName(a) === typeName(b);

class Coster {
  private readonly paths = new Map<Node, Path | undefined>();
  private readonly locals = new Map<string, LocalVar[]>();
  private readonly sizes = new Map<Node, Range>();
  private readonly entries = new Map<Node, Entry>();

  constructor(private readonly root: Decl | undefined) {}

  cost(e: Node): Range {
    switch (e.kind) {
      case 'lit':
        return ZERO;
      case 'ident': {
        const v = this.peek(e.name);
        this.paths.set(e, v ? v.path : { arr: [e.name], len: 1 });
        return ONE;
      }
      case 'select':
        return this.costSelect(e);
      case 'call':
        return this.costCall(e);
      case 'list': {
        let total = ZERO;
        let item: Range = { min: e.elems.length ? MAX_UINT64 : 0n, max: 0n };
        for (const el of e.elems) {
          total = add(total, this.cost(el));
          item = union(item, this.computeSize(el) ?? UNKNOWN);
        }
        this.entries.set(e, { container: 'list', key: ONE, val: item });
        return add(total, fixed(LIST_CREATE));
      }
      case 'map': {
        let total = ZERO;
        let key: Range = { min: e.entries.length ? MAX_UINT64 : 0n, max: 0n };
        let val: Range = { ...key };
        for (const x of e.entries) {
          total = add(total, this.cost(x.key));
          total = add(total, this.cost(x.value));
          key = union(key, this.computeSize(x.key) ?? UNKNOWN);
          val = union(val, this.computeSize(x.value) ?? UNKNOWN);
        }
        this.entries.set(e, { container: 'map', key, val });
        return add(total, fixed(MAP_CREATE));
      }
      case 'struct':
        return add(sum(e.values.map((v) => this.cost(v))), fixed(STRUCT_CREATE));
      case 'comp':
        return this.isBind(e) ? this.costBind(e) : this.costComprehension(e);
    }
  }

  private costSelect(e: Node & { kind: 'select' }): Range {
    // a presence test costs nothing on the API server (PresenceTestHasCost(false))
    if (e.testOnly) return this.cost(e.operand);
    let total = this.cost(e.operand);
    const k = kindOf(e.operand.t);
    if (k === 'map' || k === 'struct' || k === 'typeparam') total = add(total, ONE);
    this.paths.set(e, append(this.getPath(e.operand), e.field));
    return total;
  }

  private costCall(e: Node & { kind: 'call' }): Range {
    if (e.fn === 'dyn' && !e.target && e.args.length === 1) {
      const argCost = this.cost(e.args[0]);
      this.copySizes(e, e.args[0]);
      return add(ONE, argCost);
    }
    const argCosts: Range[] = [];
    const argNodes: AstNode[] = [];
    for (const a of e.args) {
      argCosts.push(this.cost(a));
      argNodes.push(this.astNode(a));
    }
    if (!e.ids.length) return ZERO;
    let total = ZERO;
    let target: AstNode | undefined;
    if (e.target) {
      total = add(total, this.cost(e.target));
      target = this.astNode(e.target);
    }
    let fnCost: Range = { min: MAX_UINT64, max: 0n };
    let resultSize: Range | undefined;
    for (const id of e.ids) {
      const est = this.functionCost(e, id, target, argNodes, argCosts);
      fnCost = union(fnCost, est.cost);
      if (est.resultSize) resultSize = resultSize ? union(resultSize, est.resultSize) : est.resultSize;
      if ((id === 'index_list' || id === 'index_map') && e.args.length) {
        resultSize = this.entrySize(e.args[0])?.val;
        this.paths.set(e, append(this.getPath(e.args[0]), id === 'index_list' ? '@items' : '@values'));
      }
      if (!resultSize) resultSize = this.computeSize(e);
    }
    if (resultSize) this.sizes.set(e, resultSize);
    return add(total, fnCost);
  }

  private costComprehension(e: Node & { kind: 'comp' }): Range {
    let total = add(this.cost(e.range), this.cost(e.init));
    this.pushLocal(e.accuVar, e.init);
    if (e.iterVar2 !== undefined) {
      this.pushIter(e.iterVar, e.range, 'key');
      this.pushIter(e.iterVar2, e.range, 'value');
    } else this.pushIter(e.iterVar, e.range, 'single');
    const loopCost = this.cost(e.cond);
    const stepCost = this.cost(e.step);
    this.pop(e.iterVar);
    if (e.iterVar2 !== undefined) this.pop(e.iterVar2);
    total = add(total, this.cost(e.result));
    this.pop(e.accuVar);
    const count = this.computeSize(e.range) ?? UNKNOWN;
    total = add(total, mul(count, add(stepCost, loopCost)));
    if (e.init.kind === 'lit') {
      const s = this.computeSize(e.init);
      if (s) this.sizes.set(e, s);
    } else if (e.init.kind === 'list' || e.init.kind === 'map') {
      this.sizes.set(e, count);
      const stepEntry = this.entrySize(e.step);
      if (stepEntry) this.entries.set(e, stepEntry);
    }
    return total;
  }

  /** cel.bind's shape (and sortBy's, optMap's): an empty range, a false condition, a named accumulator. */
  private isBind(e: Node & { kind: 'comp' }): boolean {
    return (
      e.range.kind === 'list' &&
      e.range.elems.length === 0 &&
      e.cond.kind === 'lit' &&
      e.cond.lit.type === 'bool' &&
      e.cond.lit.value === false &&
      e.accuVar !== '__result__'
    );
  }

  private costBind(e: Node & { kind: 'comp' }): Range {
    let total = add(this.cost(e.range), this.cost(e.init));
    this.pushLocal(e.accuVar, e.init);
    total = add(total, this.cost(e.result));
    this.pop(e.accuVar);
    this.copySizes(e, e.result);
    return total;
  }

  // ---- local variables ----

  private peek(name: string): LocalVar | undefined {
    const s = this.locals.get(name);
    return s?.length ? s[s.length - 1] : undefined;
  }

  private push(name: string, v: LocalVar): void {
    const s = this.locals.get(name) ?? [];
    s.push(v);
    this.locals.set(name, s);
  }

  private pop(name: string): void {
    this.locals.get(name)?.pop();
  }

  private pushLocal(name: string, e: Node): void {
    this.push(name, { path: this.getPath(e), entry: this.entrySize(e), size: this.computeSize(e) });
  }

  private pushIter(name: string, range: Node, which: 'key' | 'value' | 'single'): void {
    const entry = this.entrySize(range);
    const container = entry?.container ?? kindOf(range.t);
    let size: Range | undefined;
    let sub: string;
    if (which === 'key') {
      size = entry?.key;
      sub = container === 'list' ? '@indices' : '@keys';
    } else if (which === 'value') {
      size = entry?.val;
      sub = container === 'list' ? '@items' : '@values';
    } else if (container === 'list') {
      size = entry?.val;
      sub = '@items';
    } else {
      size = entry?.key;
      sub = '@keys';
    }
    this.push(name, { path: append(this.getPath(range), sub), size });
  }

  // ---- paths and sizes ----

  private getPath(e: Node): Path | undefined {
    if (e.kind === 'ident') {
      const v = this.peek(e.name);
      if (v) return v.path;
    }
    return this.paths.get(e);
  }

  private astNode(e: Node): AstNode {
    let path = this.getPath(e);
    if (path && path.len > 0 && ACCUMULATORS.has(path.arr[0])) path = undefined;
    return { path, t: e.t, expr: e, computed: this.computeSize(e) };
  }

  private copySizes(dst: Node, src: Node): void {
    const s = this.computeSize(src);
    if (s) this.sizes.set(dst, s);
    const en = this.entrySize(src);
    if (en) this.entries.set(dst, en);
  }

  private computeSize(e: Node): Range | undefined {
    const known = this.sizes.get(e);
    if (known) return known;
    const literal = exprSize(e);
    if (literal) return literal;
    const est = this.estimateSize({ path: this.getPath(e) });
    if (est) {
      this.sizes.set(e, est);
      return est;
    }
    if (isScalar(e.t)) return ONE;
    if (e.kind === 'ident') return this.peek(e.name)?.size;
    return undefined;
  }

  private entrySize(e: Node): Entry | undefined {
    const known = this.entries.get(e);
    if (known) return known;
    if (e.kind === 'ident') return this.peek(e.name)?.entry;
    return undefined;
  }

  /** The API server's size estimator: the bound of the schema node at the path (its first element is the variable). */
  private estimateSize(n: { path?: Path }): Range | undefined {
    const path = read(n.path);
    if (!path.length || !this.root) return undefined;
    let cur: Decl | undefined = this.root;
    for (const name of path.slice(1)) {
      if (name === '@items' || name === '@values') cur = cur.elem;
      else if (name === '@keys') cur = cur.key;
      else cur = cur.fields?.get(name);
      if (!cur) return undefined;
    }
    return { min: 0n, max: BigInt(cur.maxElements) };
  }

  /** A function estimator's size of an argument: computed, else from the schema, else unknown. */
  private sizeOf(n: AstNode): Range {
    return n.computed ?? this.estimateSize(n) ?? UNKNOWN;
  }

  /** The element of a list argument, with its schema path when the list has one. */
  private elementNode(list: AstNode): AstNode | undefined {
    const params = typeParams(list.t);
    if (!params.length) return undefined;
    if (list.path) {
      const p = read(list.path);
      p.push('@items');
      return { path: { arr: p, len: p.length }, t: params[0] };
    }
    return { t: params[0] };
  }

  // ---- function costs ----

  private functionCost(
    e: Node & { kind: 'call' },
    id: string,
    target: AstNode | undefined,
    args: AstNode[],
    argCosts: Range[],
  ): CallEstimate {
    const argSum = sum(argCosts);
    const ext = this.extEstimate(id, target, args);
    if (ext) return { cost: add(ext.cost, argSum), resultSize: ext.resultSize };
    const k8s = this.k8sEstimate(e.fn, id, target, args);
    if (k8s) return { cost: add(k8s.cost, argSum), resultSize: k8s.resultSize };
    const sizeOf = (n: AstNode) => n.computed ?? UNKNOWN;
    switch (id) {
      case 'string_format':
        if (target) return { cost: add(byFactor(sizeOf(target), STRING_TRAVERSAL), argSum) };
        break;
      case 'string_to_bytes':
        if (args.length === 1) {
          const sz = sizeOf(args[0]);
          return {
            cost: add(byFactor(sz, STRING_TRAVERSAL), argSum),
            resultSize: { min: sz.min, max: wrap(sz.max * 4n) },
          };
        }
        break;
      case 'bytes_to_string':
        if (args.length === 1) {
          const sz = sizeOf(args[0]);
          return { cost: add(byFactor(sz, STRING_TRAVERSAL), argSum), resultSize: { min: sz.min / 4n, max: sz.max } };
        }
        break;
      case 'strings_quote':
        if (args.length === 1) {
          const sz = sizeOf(args[0]);
          return {
            cost: add(byFactor(sz, STRING_TRAVERSAL), argSum),
            resultSize: { min: wrap(sz.min + 2n), max: wrap(sz.max * 2n + 2n) },
          };
        }
        break;
      case 'starts_with_string':
      case 'ends_with_string':
        if (args.length === 1) return { cost: add(byFactor(sizeOf(args[0]), STRING_TRAVERSAL), argSum) };
        break;
      case 'in_list':
        if (args.length === 2) return { cost: add(byFactor(sizeOf(args[1]), 1), argSum) };
        break;
      case 'matches':
      case 'matches_string': {
        const [str, re] =
          id === 'matches_string' && target && args.length === 1
            ? [target, args[0]]
            : id === 'matches' && !target && args.length === 2
              ? [args[0], args[1]]
              : [];
        if (str && re) {
          const strCost = byFactor(add(sizeOf(str), ONE), STRING_TRAVERSAL);
          const reCost = byFactor(sizeOf(re), REGEX_LENGTH);
          return { cost: add(mul(strCost, reCost), argSum) };
        }
        break;
      }
      case 'contains_string':
        if (target && args.length === 1)
          return {
            cost: add(
              mul(byFactor(sizeOf(target), STRING_TRAVERSAL), byFactor(sizeOf(args[0]), STRING_TRAVERSAL)),
              argSum,
            ),
          };
        break;
      case 'logical_or':
      case 'logical_and': {
        const [l, r] = argCosts;
        return { cost: { min: l.min, max: add(l, r).max } };
      }
      case 'conditional': {
        const size = union(sizeOf(args[1]), sizeOf(args[2]));
        const a = this.entrySize(exprOf(args[1]));
        const b = this.entrySize(exprOf(args[2]));
        if (a && b) this.entries.set(e, { container: a.container, key: union(a.key, b.key), val: union(a.val, b.val) });
        return { cost: add(argCosts[0], union(argCosts[1], argCosts[2])), resultSize: size };
      }
      case 'add_string':
      case 'add_bytes':
      case 'add_list':
        if (args.length === 2) {
          const resultSize = add(sizeOf(args[0]), sizeOf(args[1]));
          const a = this.entrySize(exprOf(args[0]));
          const b = this.entrySize(exprOf(args[1]));
          if (a && b)
            this.entries.set(e, { container: a.container, key: union(a.key, b.key), val: union(a.val, b.val) });
          if (id === 'add_list') return { cost: add(ONE, argSum), resultSize };
          return { cost: add(byFactor(resultSize, STRING_TRAVERSAL), argSum), resultSize };
        }
        break;
      case 'less_string':
      case 'greater_string':
      case 'less_equals_string':
      case 'greater_equals_string':
      case 'less_bytes':
      case 'greater_bytes':
      case 'less_equals_bytes':
      case 'greater_equals_bytes':
      case 'equals':
      case 'not_equals': {
        const l = sizeOf(args[0]);
        const r = sizeOf(args[1]);
        const smallest = minBig(l.max, r.max);
        return { cost: add(byFactor({ min: smallest > 0n ? 1n : 0n, max: smallest }, STRING_TRAVERSAL), argSum) };
      }
      default:
    }
    return { cost: add(ONE, argSum) };
  }

  /** cel-go's estimators of the ext lists and sets overloads (registered by overload id). */
  private extEstimate(id: string, target: AstNode | undefined, args: AstNode[]): CallEstimate | undefined {
    const allocating = (factor: number, size: Range): CallEstimate => ({
      cost: add(add(byFactor(size, factor), ONE), fixed(LIST_CREATE)),
      resultSize: size,
    });
    const sortCost = (n: AstNode, elem: string) => {
      const sz = this.sizeOf(n);
      let factor = 2.0;
      if (elem === 'string' || elem === 'bytes') factor += STRING_TRAVERSAL;
      return allocating(factor, mul(sz, sz));
    };
    switch (id) {
      case 'list_slice': {
        if (!target || args.length !== 2) return undefined;
        const sz = this.sizeOf(target);
        const start = asUint(args[0], 0n);
        const end = asUint(args[1], sz.max);
        return allocating(1, fixed(wrap(end - start)));
      }
      case 'lists_range':
        if (target || args.length !== 1) return undefined;
        return allocating(1, fixed(asUint(args[0], MAX_UINT64)));
      case 'list_reverse':
        if (!target || args.length !== 0) return undefined;
        return allocating(1, this.sizeOf(target));
      case 'list_flatten':
      case 'list_flatten_int': {
        if (!target || args.length > 1) return undefined;
        const depth = args.length === 1 ? asUint(args[0], MAX_UINT64) : 1n;
        return allocating(Number(depth), this.sizeOf(target));
      }
      case 'list_distinct': {
        if (!target || args.length !== 0) return undefined;
        const sz = this.sizeOf(target);
        return allocating(2.0, mul(sz, sz));
      }
      case 'list_sets_contains_list':
      case 'list_sets_intersects_list':
      case 'list_sets_equivalent_list': {
        if (args.length !== 2) return undefined;
        const factor = id === 'list_sets_equivalent_list' ? 2 : 1;
        return { cost: add(byFactor(mul(this.sizeOf(args[0]), this.sizeOf(args[1])), factor), ONE) };
      }
      default: {
        const m = /^list_(.+)_(sort|sortByAssociatedKeys)$/.exec(id);
        if (!m || !COMPARABLE.includes(m[1])) return undefined;
        if (m[2] === 'sort') return target && args.length === 0 ? sortCost(target, m[1]) : undefined;
        return target && args.length === 1 ? sortCost(args[0], m[1]) : undefined;
      }
    }
  }

  /** Kubernetes' estimators (apiserver pkg/cel/library CostEstimator), by function name. */
  private k8sEstimate(fn: string, id: string, target: AstNode | undefined, args: AstNode[]): CallEstimate | undefined {
    const scan = (n: AstNode, f = STRING_TRAVERSAL) => byFactor(this.sizeOf(n), f);
    switch (fn) {
      case 'isSorted':
      case 'sum':
      case 'max':
      case 'min':
      case 'indexOf':
      case 'lastIndexOf':
      case 'includes': {
        if (!target) return undefined;
        let elCost = ONE;
        const el = this.elementNode(target);
        if (el) {
          if (el.t.kind === 'string' || el.t.kind === 'bytes')
            elCost = add(elCost, byFactor(this.sizeOf(el), STRING_TRAVERSAL));
          return { cost: mul(this.sizeOf(target), elCost) };
        }
        if (fn === 'includes') return { cost: mul(this.sizeOf(target), elCost) };
        return { cost: scan(target) };
      }
      case 'url':
      case 'jsonpatch.escapeKey':
        if (args.length !== 1) return undefined;
        return { cost: scan(args[0]), resultSize: this.sizeOf(args[0]) };
      case 'lowerAscii':
      case 'upperAscii':
      case 'substring':
      case 'trim':
        if (!target) return undefined;
        return { cost: scan(target), resultSize: this.sizeOf(target) };
      case 'replace': {
        if (!target || args.length < 2) return undefined;
        const sz = this.sizeOf(target);
        const from = this.sizeOf(args[0]);
        const to = this.sizeOf(args[1]);
        const count = { min: 0n, max: 0n };
        const kept = { min: 0n, max: 0n };
        if (from.min === 0n) {
          count.max = sz.max < MAX_UINT64 ? sz.max + 1n : sz.max;
          kept.max = sz.max;
        } else if (to.max <= from.min) kept.max = sz.max;
        else count.max = floatToUint(Math.ceil(Number(sz.max) / Number(from.min)));
        if (from.max === 0n) {
          count.min = sz.min < MAX_UINT64 ? sz.min + 1n : sz.min;
          kept.min = sz.min;
        } else if (from.max <= to.min) kept.min = sz.min;
        else count.min = floatToUint(Math.ceil(Number(sz.min) / Number(from.max)));
        return { cost: byFactor(sz, 2 * STRING_TRAVERSAL), resultSize: add(mul(count, to), kept) };
      }
      case 'split': {
        if (!target) return undefined;
        const sz = this.sizeOf(target);
        let max = sz.max;
        const limit = args[1]?.expr;
        if (limit?.kind === 'lit' && limit.lit.type === 'int') max = wrap(limit.lit.value);
        return { cost: byFactor(sz, 2 * STRING_TRAVERSAL), resultSize: { min: 0n, max } };
      }
      case 'join': {
        if (!target) return undefined;
        let sz = ZERO;
        const n = this.sizeOf(target);
        const el = this.elementNode(target);
        if (el) sz = mul(n, this.sizeOf(el));
        if (args.length) {
          const sep = this.sizeOf(args[0]);
          sz = add(sz, mul(sep, { min: n.min > 0n ? n.min - 1n : 0n, max: n.max > 0n ? n.max - 1n : 0n }));
        }
        return { cost: byFactor(sz, STRING_TRAVERSAL), resultSize: sz };
      }
      case 'find':
      case 'findAll': {
        if (!target || !args.length) return undefined;
        const sz = this.sizeOf(target);
        const strCost = byFactor(add(sz, ONE), STRING_TRAVERSAL);
        const reCost = byFactor(this.sizeOf(args[0]), REGEX_LENGTH);
        return { cost: mul(strCost, reCost), resultSize: { min: 0n, max: sz.max } };
      }
      case 'cidr':
      case 'isIP':
      case 'isCIDR':
        return args.length ? { cost: scan(args[0]) } : undefined;
      case 'ip':
        if (id === 'cidr_ip') return { cost: ONE };
        return args.length ? { cost: scan(args[0]) } : undefined;
      case 'ip.isCanonical':
        return args.length ? { cost: scan(args[0], 2 * STRING_TRAVERSAL) } : undefined;
      case 'masked':
      case 'prefixLength':
      case 'family':
      case 'isUnspecified':
      case 'isLoopback':
      case 'isLinkLocalMulticast':
      case 'isLinkLocalUnicast':
      case 'isGlobalUnicast':
        return { cost: ONE };
      case 'containsIP':
      case 'containsCIDR': {
        if (!args.length) return undefined;
        // two byte lists of an IPv4 or IPv6 address compared
        const bytes: Range = { min: 4n, max: 16n };
        let cost = byFactor(add(bytes, bytes), STRING_TRAVERSAL);
        if (fn === 'containsCIDR') cost = add(add(cost, byFactor(bytes, STRING_TRAVERSAL)), ONE);
        if (id === 'cidr_contains_ip_string' || id === 'cidr_contains_cidr_string') cost = add(cost, scan(args[0]));
        return { cost };
      }
      case 'quantity':
      case 'isQuantity':
      case 'semver':
      case 'isSemver':
        return args.length ? { cost: scan(args[0]) } : undefined;
      case 'validate':
        return args.length ? { cost: byFactor(scan(args[0]), MAX_NAME_FORMAT_REGEX * REGEX_LENGTH) } : undefined;
      case 'format.named':
      case 'sign':
      case 'asInteger':
      case 'isInteger':
      case 'asApproximateFloat':
      case 'isGreaterThan':
      case 'isLessThan':
      case 'compareTo':
      case 'add':
      case 'sub':
      case 'major':
      case 'minor':
      case 'patch':
      case 'getScheme':
      case 'getHostname':
      case 'getHost':
      case 'getPort':
      case 'getEscapedPath':
      case 'getQuery':
        return { cost: ONE };
      case '_==_': {
        if (args.length !== 2) return undefined;
        const [l, r] = args;
        if (!sameType(l.t, r.t) || l.t.kind !== 'opaque') return undefined;
        switch (l.t.name) {
          case 'net.IP':
          case 'net.CIDR':
          case 'kubernetes.Quantity':
          case 'kubernetes.Semver':
            return { cost: ONE };
          case 'kubernetes.NamedFormat':
            return { cost: byFactor({ min: 1n, max: BigInt(MAX_FORMAT_SIZE) }, STRING_TRAVERSAL) };
          case 'kubernetes.URL': {
            // the server reads the right operand's size twice (not the left's)
            const size = r.computed ?? ONE;
            return { cost: byFactor({ min: 1n, max: size.max }, STRING_TRAVERSAL) };
          }
          default:
            return undefined;
        }
      }
      default:
        return undefined;
    }
  }
}

/** The size cel-go knows from the expression itself: a literal's length, a list or map literal's count. */
function exprSize(e: Node): Range | undefined {
  if (e.kind === 'lit') return e.lit.type === 'string' || e.lit.type === 'bytes' ? fixed(e.lit.size) : ONE;
  if (e.kind === 'list') return fixed(e.elems.length);
  if (e.kind === 'map') return fixed(e.entries.length);
  return undefined;
}

/** An int literal argument's value (negative: 0), else `otherwise` (ext lists' nodeAsUintValue). */
function asUint(n: AstNode, otherwise: bigint): bigint {
  const e = n.expr;
  if (e?.kind !== 'lit' || e.lit.type !== 'int') return otherwise;
  return e.lit.value < 0n ? 0n : e.lit.value;
}

/**
 * The estimated cost range of a checked expression on a schema node (`root`: the node's size
 * model, what `self` and `oldSelf` are); zero when it did not check.
 */
export function estimateCostRange(c: Checked, root: Decl | undefined): Range {
  if (!c.ast || c.issues.length) return ZERO;
  return new Coster(root).cost(build(c));
}

/** The estimated worst-case cost (the range's max, as a number: exact up to 2^53). */
export function estimateCost(c: Checked, root?: Decl): number {
  return Number(estimateCostRange(c, root).max);
}

/** a × b, or 2^64-1 when the product does not fit (apiextensions' multiplyWithOverflowGuard). */
export function multiplyCapped(a: bigint, b: bigint): bigint {
  if (a === 0n) return 0n;
  return mulSat(a, b);
}

/**
 * The API server's message for a cost over its budget (apiextensions' getCostErrorMessage):
 * the factor with one decimal, six under 1.5, or "more than 100x".
 */
export function costFactorText(cost: bigint, limit: number): string {
  const factor = Number(cost) / limit;
  if (factor > 100) return 'more than 100x';
  if (factor < 1.5) return `${factor.toFixed(6)}x`;
  return `${factor.toFixed(1)}x`;
}
