/**
 * apimachinery's label selectors (`k8s.io/apimachinery/pkg/labels`): `parseSelector` is
 * `labels.Parse`, `labelSelectorAsSelector` is `metav1.LabelSelectorAsSelector`; a Selector
 * matches label sets, says whether it is empty and prints itself exactly as Go's `String()`
 * does (requirements sorted by key, values sorted). Invalid selectors throw an
 * {@link InvalidSelectorError} whose message is Go's error text. One difference: Go sorts
 * requirements with an unstable sort, so two requirements on one key in a selector of more than
 * twelve may print in another order. Imports only its siblings.
 */
import { type ErrorList, type FieldError, Path, aggregateString, field, goQuote } from './field.js';
import { type LabelSelectorLike, compareBytes, isQualifiedName, isValidLabelValue } from './validation.js';

/** The operators of a requirement (`selection.Operator`). `!` is DoesNotExist, `gt` / `lt` print as `>` / `<`. */
export type SelectorOperator = '=' | '==' | '!=' | 'in' | 'notin' | 'exists' | '!' | 'gt' | 'lt';

/** Labels to match: an object's `metadata.labels` (absent: no labels). */
export type Labels = Readonly<Record<string, string>> | undefined | null;

/** A selector refused as apimachinery refuses it; `message` is Go's `err.Error()`. */
export class InvalidSelectorError extends Error {
  /** The field errors behind the message, when it came from a requirement's validation. */
  readonly errors: ErrorList;
  constructor(message: string, errors: ErrorList = []) {
    super(message);
    this.name = 'InvalidSelectorError';
    this.errors = errors;
  }
}

const has = (labels: Labels, key: string): labels is NonNullable<Labels> => !!labels && Object.hasOwn(labels, key);

/** Go's strconv.ParseInt(s, 10, 64). */
function parseInt64(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const n = BigInt(s);
  return n >= -(2n ** 63n) && n < 2n ** 63n ? n : undefined;
}

/** One requirement (`labels.Requirement`): a key, an operator, values. Made by newRequirement (validated) or a parse. */
export class Requirement {
  /** @internal use newRequirement */
  constructor(
    readonly key: string,
    readonly operator: SelectorOperator,
    readonly values: readonly string[],
  ) {}

  /** True when the labels satisfy this requirement (Go's `Requirement.Matches`). */
  matches(labels: Labels): boolean {
    const v = has(labels, this.key) ? labels[this.key] : undefined;
    switch (this.operator) {
      case 'in':
      case '=':
      case '==':
        return v !== undefined && this.values.includes(v);
      case 'notin':
      case '!=':
        return v === undefined || !this.values.includes(v);
      case 'exists':
        return v !== undefined;
      case '!':
        return v === undefined;
      case 'gt':
      case 'lt': {
        if (v === undefined || this.values.length !== 1) return false;
        const l = parseInt64(v);
        const r = parseInt64(this.values[0]);
        if (l === undefined || r === undefined) return false;
        return this.operator === 'gt' ? l > r : l < r;
      }
    }
    return false;
  }

  /** `key in (a,b)`, `!key`, `key>3`, as Go prints it. */
  toString(): string {
    let s = this.operator === '!' ? `!${this.key}` : this.key;
    const op = { '=': '=', '==': '==', '!=': '!=', in: ' in ', notin: ' notin ', gt: '>', lt: '<' } as const;
    if (this.operator === 'exists' || this.operator === '!') return s;
    s += op[this.operator];
    const paren = this.operator === 'in' || this.operator === 'notin';
    const vals = this.values.length === 1 ? this.values[0] : [...this.values].sort(compareBytes).join(',');
    return paren ? `${s}(${vals})` : s + vals;
  }
}

const BINARY = ['in', 'notin', '=', '==', '!=', 'gt', 'lt'];
const ALL_OPERATORS = [...BINARY, 'exists', '!'];

/** labels.validateLabelKey: one Invalid error whose detail joins isQualifiedName's messages. */
function labelKeyError(key: string, path: Path | undefined, sub?: string): FieldError | undefined {
  const errs = isQualifiedName(key);
  if (!errs.length) return undefined;
  return field.invalid(pathOf(path, sub), key, errs.join('; '));
}

/** Go's nil path prints `<nil>`; its Child is a new root. */
function pathOf(path: Path | undefined, sub?: string): Path | string {
  if (sub === undefined) return path ?? '<nil>';
  return path ? path.child(sub) : Path.of(sub);
}

/**
 * `labels.NewRequirement`: checks the key, the operator's number of values, the values (label
 * values; integers for gt / lt). Throws an {@link InvalidSelectorError} with Go's aggregate
 * message; `path` prefixes the fields (Go's `field.WithPath`).
 */
export function newRequirement(
  key: string,
  op: SelectorOperator,
  values: readonly string[] | null | undefined,
  path?: Path,
): Requirement {
  const errs: ErrorList = [];
  const keyErr = labelKeyError(key, path, 'key');
  if (keyErr) errs.push(keyErr);
  const valuePath = pathOf(path, 'values') as Path;
  // Go prints a nil slice as null and an empty one as [].
  const shown = values ?? null;
  const vals = values ?? [];
  switch (op) {
    case 'in':
    case 'notin':
      if (vals.length === 0)
        errs.push(field.invalid(valuePath, shown, "for 'in', 'notin' operators, values set can't be empty"));
      break;
    case '=':
    case '==':
    case '!=':
      if (vals.length !== 1)
        errs.push(field.invalid(valuePath, shown, 'exact-match compatibility requires one single value'));
      break;
    case 'exists':
    case '!':
      if (vals.length !== 0)
        errs.push(field.invalid(valuePath, shown, 'values set must be empty for exists and does not exist'));
      break;
    case 'gt':
    case 'lt':
      if (vals.length !== 1)
        errs.push(field.invalid(valuePath, shown, "for 'Gt', 'Lt' operators, exactly one value is required"));
      vals.forEach((v, i) => {
        if (parseInt64(v) === undefined)
          errs.push(field.invalid(valuePath.index(i), v, "for 'Gt', 'Lt' operators, the value must be an integer"));
      });
      break;
    default:
      errs.push(field.notSupported(pathOf(path, 'operator'), Object(op), ALL_OPERATORS));
  }
  vals.forEach((v, i) => {
    const msgs = isValidLabelValue(v);
    if (msgs.length) errs.push(field.invalid(valuePath.index(i).key(key), v, msgs.join('; ')));
  });
  if (errs.length) throw new InvalidSelectorError(aggregateString(errs) ?? '', errs);
  return new Requirement(key, op, [...vals]);
}

/**
 * A label selector (apimachinery's `labels.Selector`). Build one with {@link parseSelector},
 * {@link labelSelectorAsSelector}, {@link selectorFromSet}, {@link everything} or {@link nothing}.
 */
export interface Selector {
  /** True when the labels satisfy every requirement (`everything()` matches all, `nothing()` none). */
  matches(labels: Labels): boolean;
  /** True for a selector with no requirements (it matches everything); false for `nothing()`. */
  empty(): boolean;
  /** Go's `String()`: `app=web,tier in (a,b),!legacy`; `""` for everything and for nothing. */
  toString(): string;
  /** A new selector with these requirements added (sorted by key); `nothing()` stays nothing. */
  add(...requirements: Requirement[]): Selector;
  /** The requirements, sorted by key; undefined for `nothing()` (Go's `selectable` false). */
  requirements(): readonly Requirement[] | undefined;
  /** The value a requirement on `label` demands exactly (`=`, `==`, `in` with one value), if any. */
  requiresExactMatch(label: string): string | undefined;
}

const byKey = (a: Requirement, b: Requirement) => compareBytes(a.key, b.key);

class InternalSelector implements Selector {
  constructor(private readonly reqs: readonly Requirement[]) {}
  matches(labels: Labels): boolean {
    return this.reqs.every((r) => r.matches(labels));
  }
  empty(): boolean {
    return this.reqs.length === 0;
  }
  toString(): string {
    return this.reqs.map((r) => r.toString()).join(',');
  }
  add(...requirements: Requirement[]): Selector {
    return new InternalSelector([...this.reqs, ...requirements].sort(byKey));
  }
  requirements(): readonly Requirement[] {
    return this.reqs;
  }
  requiresExactMatch(label: string): string | undefined {
    const r = this.reqs.find((x) => x.key === label);
    if (r && (r.operator === '=' || r.operator === '==' || r.operator === 'in') && r.values.length === 1)
      return r.values[0];
    return undefined;
  }
  /** Node's util.inspect and template literals. */
  [Symbol.toPrimitive](): string {
    return this.toString();
  }
}

const NOTHING: Selector = Object.freeze({
  matches: () => false,
  empty: () => false,
  toString: () => '',
  add(): Selector {
    return NOTHING;
  },
  requirements: () => undefined,
  requiresExactMatch: () => undefined,
});
const EVERYTHING: Selector = new InternalSelector([]);

/** `labels.Everything()`: matches every label set; prints `""`. */
export function everything(): Selector {
  return EVERYTHING;
}

/** `labels.Nothing()`: matches no label set (what an absent `spec.selector` means); prints `""`. */
export function nothing(): Selector {
  return NOTHING;
}

/** True for {@link nothing} (`labels.MatchesNothing`). */
export function matchesNothing(s: Selector): boolean {
  return s === NOTHING;
}

/** True for a value made by this module (a Selector, not a string or a label map). */
export function isSelector(v: unknown): v is Selector {
  return v === NOTHING || v instanceof InternalSelector;
}

/** `labels.SelectorFromValidatedSet`: `key=value` for each entry; not validated (use parseSelector or labelSelectorAsSelector for that). */
export function selectorFromSet(set: Readonly<Record<string, string>> | undefined | null): Selector {
  if (!set) return EVERYTHING;
  return new InternalSelector(
    Object.keys(set)
      .map((k) => new Requirement(k, '=', [set[k]]))
      .sort(byKey),
  );
}

/** metav1.LabelSelectorOperator -> selection.Operator. */
const OPERATORS: Record<string, SelectorOperator> = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' };

/**
 * `metav1.LabelSelectorAsSelector`: absent (undefined, null) selects nothing, an empty selector
 * everything; matchLabels become `=` requirements, matchExpressions In / NotIn / Exists /
 * DoesNotExist. Throws an {@link InvalidSelectorError} with Go's message for an unknown operator
 * or an invalid key or value (the first invalid matchLabels entry in key order; Go's map order
 * is random).
 */
export function labelSelectorAsSelector(ps: LabelSelectorLike | undefined | null): Selector {
  if (!ps) return NOTHING;
  const matchLabels = ps.matchLabels ?? {};
  const exprs = ps.matchExpressions ?? [];
  const keys = Object.keys(matchLabels).sort(compareBytes);
  if (keys.length + exprs.length === 0) return EVERYTHING;
  const reqs: Requirement[] = keys.map((k) => newRequirement(k, '=', [matchLabels[k]]));
  for (const expr of exprs) {
    const op = Object.hasOwn(OPERATORS, expr.operator) ? OPERATORS[expr.operator] : undefined;
    if (!op) throw new InvalidSelectorError(`${goQuote(expr.operator)} is not a valid label selector operator`);
    reqs.push(newRequirement(expr.key, op, expr.values?.length ? [...expr.values] : null));
  }
  return new InternalSelector(reqs.sort(byKey));
}

// ---- labels.Parse: Go's lexer and parser, token for token ----

/** Go's Token values. */
const Tok = {
  Error: 0,
  EndOfString: 1,
  ClosedPar: 2,
  Comma: 3,
  DoesNotExist: 4,
  DoubleEquals: 5,
  Equals: 6,
  GreaterThan: 7,
  Identifier: 8,
  In: 9,
  LessThan: 10,
  NotEquals: 11,
  NotIn: 12,
  OpenPar: 13,
} as const;
type Tok = (typeof Tok)[keyof typeof Tok];

const STRING_TO_TOKEN: Record<string, Tok> = {
  ')': Tok.ClosedPar,
  ',': Tok.Comma,
  '!': Tok.DoesNotExist,
  '==': Tok.DoubleEquals,
  '=': Tok.Equals,
  '>': Tok.GreaterThan,
  in: Tok.In,
  '<': Tok.LessThan,
  '!=': Tok.NotEquals,
  notin: Tok.NotIn,
  '(': Tok.OpenPar,
};
const tokenOf = (s: string): Tok | undefined => (Object.hasOwn(STRING_TO_TOKEN, s) ? STRING_TO_TOKEN[s] : undefined);

const isWhitespace = (ch: string) => ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
const isSpecial = (ch: string) => '=!(),><'.includes(ch) && ch !== '';
// Go reads bytes and treats a NUL byte as the end of input; ASCII never occurs inside a
// multi-byte character, so reading UTF-16 code units finds the same tokens.
const NUL = '\0';

class Lexer {
  private pos = 0;
  constructor(private readonly s: string) {}
  private read(): string {
    if (this.pos < this.s.length) return this.s[this.pos++];
    return NUL;
  }
  private unread(): void {
    this.pos--;
  }
  private scanIdOrKeyword(): [Tok, string] {
    let buf = '';
    for (;;) {
      const ch = this.read();
      if (ch === NUL) break;
      if (isSpecial(ch) || isWhitespace(ch)) {
        this.unread();
        break;
      }
      buf += ch;
    }
    return [tokenOf(buf) ?? Tok.Identifier, buf];
  }
  private scanSpecialSymbol(): [Tok, string] {
    let last: [Tok, string] | undefined;
    let buf = '';
    for (;;) {
      const ch = this.read();
      if (ch === NUL) break;
      if (isSpecial(ch)) {
        buf += ch;
        const t = tokenOf(buf);
        if (t !== undefined) last = [t, buf];
        else if (last) {
          this.unread();
          break;
        }
      } else {
        this.unread();
        break;
      }
    }
    if (!last) return [Tok.Error, `error expected: keyword found '${buf}'`];
    return last;
  }
  lex(): [Tok, string] {
    let ch = this.read();
    while (isWhitespace(ch)) ch = this.read();
    if (ch === NUL) return [Tok.EndOfString, ''];
    this.unread();
    return isSpecial(ch) ? this.scanSpecialSymbol() : this.scanIdOrKeyword();
  }
}

/** Go's ParserContext: in Values, `in` and `notin` are identifiers. */
const Ctx = { KeyAndOperator: 0, Values: 1 } as const;
type Ctx = (typeof Ctx)[keyof typeof Ctx];

class Parser {
  private items: [Tok, string][] = [];
  private position = 0;
  constructor(
    private readonly lexer: Lexer,
    private readonly path: Path | undefined,
  ) {}

  private lookahead(ctx: Ctx): [Tok, string] {
    let [tok, lit] = this.items[this.position];
    if (ctx === Ctx.Values && (tok === Tok.In || tok === Tok.NotIn)) tok = Tok.Identifier;
    return [tok, lit];
  }
  private consume(ctx: Ctx): [Tok, string] {
    this.position++;
    let [tok, lit] = this.items[this.position - 1];
    if (ctx === Ctx.Values && (tok === Tok.In || tok === Tok.NotIn)) tok = Tok.Identifier;
    return [tok, lit];
  }
  private scan(): void {
    for (;;) {
      const item = this.lexer.lex();
      this.items.push(item);
      if (item[0] === Tok.EndOfString) break;
    }
  }

  parse(): Requirement[] {
    this.scan();
    const reqs: Requirement[] = [];
    for (;;) {
      const [tok, lit] = this.lookahead(Ctx.Values);
      switch (tok) {
        case Tok.Identifier:
        case Tok.DoesNotExist: {
          let r: Requirement;
          try {
            r = this.parseRequirement();
          } catch (e) {
            if (!(e instanceof InvalidSelectorError)) throw e;
            throw new InvalidSelectorError(`unable to parse requirement: ${e.message}`, e.errors);
          }
          reqs.push(r);
          const [t, l] = this.consume(Ctx.Values);
          if (t === Tok.EndOfString) return reqs;
          if (t === Tok.Comma) {
            const [t2, l2] = this.lookahead(Ctx.Values);
            if (t2 !== Tok.Identifier && t2 !== Tok.DoesNotExist)
              throw new InvalidSelectorError(`found '${l2}', expected: identifier after ','`);
            break;
          }
          throw new InvalidSelectorError(`found '${l}', expected: ',' or 'end of string'`);
        }
        case Tok.EndOfString:
          return reqs;
        default:
          throw new InvalidSelectorError(`found '${lit}', expected: !, identifier, or 'end of string'`);
      }
    }
  }

  private parseRequirement(): Requirement {
    const [key, inferred] = this.parseKeyAndInferOperator();
    if (inferred === 'exists' || inferred === '!') return newRequirement(key, inferred, [], this.path);
    const op = this.parseOperator();
    const values = op === 'in' || op === 'notin' ? this.parseValues() : this.parseExactValue();
    return newRequirement(key, op, [...values].sort(compareBytes), this.path);
  }

  private parseKeyAndInferOperator(): [string, SelectorOperator | ''] {
    let op: SelectorOperator | '' = '';
    let [tok, lit] = this.consume(Ctx.Values);
    if (tok === Tok.DoesNotExist) {
      op = '!';
      [tok, lit] = this.consume(Ctx.Values);
    }
    if (tok !== Tok.Identifier) throw new InvalidSelectorError(`found '${lit}', expected: identifier`);
    const keyErr = labelKeyError(lit, this.path);
    if (keyErr) throw new InvalidSelectorError(aggregateString([keyErr]) ?? '', [keyErr]);
    const [t] = this.lookahead(Ctx.Values);
    if ((t === Tok.EndOfString || t === Tok.Comma) && op !== '!') op = 'exists';
    return [lit, op];
  }

  private parseOperator(): SelectorOperator {
    const [tok, lit] = this.consume(Ctx.KeyAndOperator);
    switch (tok) {
      case Tok.In:
        return 'in';
      case Tok.Equals:
        return '=';
      case Tok.DoubleEquals:
        return '==';
      case Tok.GreaterThan:
        return 'gt';
      case Tok.LessThan:
        return 'lt';
      case Tok.NotIn:
        return 'notin';
      case Tok.NotEquals:
        return '!=';
    }
    throw new InvalidSelectorError(`found '${lit}', expected: ${BINARY.join(', ')}`);
  }

  private parseValues(): Set<string> {
    let [tok, lit] = this.consume(Ctx.Values);
    if (tok !== Tok.OpenPar) throw new InvalidSelectorError(`found '${lit}' expected: '('`);
    [tok, lit] = this.lookahead(Ctx.Values);
    switch (tok) {
      case Tok.Identifier:
      case Tok.Comma: {
        const s = this.parseIdentifiersList();
        if (this.consume(Ctx.Values)[0] !== Tok.ClosedPar)
          throw new InvalidSelectorError(`found '${lit}', expected: ')'`);
        return s;
      }
      case Tok.ClosedPar:
        this.consume(Ctx.Values);
        return new Set(['']);
      default:
        throw new InvalidSelectorError(`found '${lit}', expected: ',', ')' or identifier`);
    }
  }

  private parseIdentifiersList(): Set<string> {
    const s = new Set<string>();
    for (;;) {
      const [tok, lit] = this.consume(Ctx.Values);
      if (tok === Tok.Identifier) {
        s.add(lit);
        const [tok2, lit2] = this.lookahead(Ctx.Values);
        if (tok2 === Tok.Comma) continue;
        if (tok2 === Tok.ClosedPar) return s;
        throw new InvalidSelectorError(`found '${lit2}', expected: ',' or ')'`);
      }
      if (tok === Tok.Comma) {
        if (s.size === 0) s.add('');
        const [tok2] = this.lookahead(Ctx.Values);
        if (tok2 === Tok.ClosedPar) {
          s.add('');
          return s;
        }
        if (tok2 === Tok.Comma) s.add('');
        continue;
      }
      throw new InvalidSelectorError(`found '${lit}', expected: ',', or identifier`);
    }
  }

  private parseExactValue(): Set<string> {
    const [t] = this.lookahead(Ctx.Values);
    if (t === Tok.EndOfString || t === Tok.Comma) return new Set(['']);
    const [tok, lit] = this.consume(Ctx.Values);
    if (tok === Tok.Identifier) return new Set([lit]);
    throw new InvalidSelectorError(`found '${lit}', expected: identifier`);
  }
}

/**
 * `labels.Parse`: `app=web,tier!=db,env in (a,b),!legacy,replicas>2`. Throws an
 * {@link InvalidSelectorError} with Go's message (`unable to parse requirement: ...`,
 * `found ',', expected: ...`). `path` prefixes field errors as Go's `field.WithPath` does.
 */
export function parseSelector(selector: string, path?: Path): Selector {
  const reqs = new Parser(new Lexer(selector), path).parse();
  return new InternalSelector(reqs.sort(byKey));
}
