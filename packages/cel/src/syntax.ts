/**
 * What cel-go's lexer and parser accept that @bufbuild/cel's parser (0.6) does not see: CEL's
 * optional syntax, backquoted field names and the escapes of string literals.
 *
 * - Optional syntax (`self.?x`, `m[?k]`, `[?a, b]`, `{?k: v}`), which current API servers enable
 *   (cel.OptionalTypes, Kubernetes 1.28+). The scan finds each optional marker `?` (outside string
 *   literals and comments, and not the `?` of a conditional) and blanks it with a space, which
 *   keeps every offset; the parser then reads a plain selection, index, list or map, and
 *   {@link markOptionals} turns those nodes into the form cel-go's parser gives them: the calls
 *   `_?._(x, "f")` and `_[?_](m, k)`, a list's optionalIndices, a map entry's optionalEntry.
 * - Backquoted field names (`self.\`content-type\``, `has(m.\`foo.txt\`)`), which cel-go 0.29
 *   parses (Kubernetes 1.37): the scan puts an identifier of the same length in place of each
 *   (so every offset stays the user's) and {@link markOptionals} gives the selections their
 *   real names back.
 * - String and bytes escapes: cel-go's lexer takes only `\a \b \f \n \r \t \v \\ \' \" \` \?`,
 *   `\xHH` / `\XHH`, `\uHHHH`, `\UHHHHHHHH` and `\[0-3][0-7][0-7]`; anything else (`"\p"`, `"\d"`)
 *   is a token recognition error, which the scan reports where cel-go does.
 */

/** The parts of cel-spec's Expr this module reads (kept structural: no import of generated protobuf types). */
export interface Expr {
  id: bigint;
  exprKind:
    | { case: 'constExpr'; value: { constantKind: { case: string | undefined; value?: unknown } } }
    | { case: 'identExpr'; value: { name: string } }
    | { case: 'selectExpr'; value: { operand?: Expr; field: string; testOnly: boolean } }
    | { case: 'callExpr'; value: { target?: Expr; function: string; args: Expr[] } }
    | { case: 'listExpr'; value: { elements: Expr[]; optionalIndices?: number[] } }
    | {
        case: 'structExpr';
        value: {
          messageName: string;
          entries: { keyKind: { case: string | undefined; value?: unknown }; value?: Expr; optionalEntry?: boolean }[];
        };
      }
    | {
        case: 'comprehensionExpr';
        value: {
          iterVar: string;
          iterRange?: Expr;
          accuVar: string;
          accuInit?: Expr;
          loopCondition?: Expr;
          loopStep?: Expr;
          result?: Expr;
        };
      }
    | { case: undefined; value?: undefined };
}

/** A problem the checker reports, cel-go style, at an offset of the expression. */
export interface CelIssue {
  /** cel-go style: `<input>:1:6: undefined field 'foo'`. */
  message: string;
  /** 0-based offset in the expression. */
  offset: number;
}

export interface Scanned {
  /** The source with each optional marker `?` replaced by a space (same length). */
  text: string;
  /** Offsets of the `.` of optional selections (`x.?f`). */
  selects: Set<number>;
  /** Offsets of the `[` of optional indexes (`m[?k]`). */
  indexes: Set<number>;
  /** Offset of a list literal's `[` -> the indices of its optional elements. */
  elements: Map<number, Set<number>>;
  /** Offset of a map literal's `{` -> the indices of its optional entries. */
  entries: Map<number, Set<number>>;
  /** A lexical error cel-go reports before parsing, with its offset. */
  error?: { offset: number; message: string };
  /** Each backquoted field name's stand-in identifier in `text` -> the name (`content-type`). */
  escaped: Map<string, string>;
  /** Offset of the first backquoted field name, if any. */
  firstEscaped?: number;
}

const IDENT_START = /[A-Za-z_]/;
const IDENT = /[A-Za-z0-9_]/;
const HEX = /[0-9A-Fa-f]/;
const SIMPLE_ESCAPES = new Set(['a', 'b', 'f', 'n', 'r', 't', 'v', '\\', "'", '"', '`', '?']);
/** String prefixes: raw (r), bytes (b), both. */
const PREFIXES = new Set(['r', 'R', 'b', 'B', 'rb', 'rB', 'Rb', 'RB', 'br', 'bR', 'Br', 'BR']);

/** Length of the valid escape at `s[i]` (a backslash), or 0 when cel-go's lexer refuses it. */
function escapeLength(s: string, i: number): number {
  const c = s[i + 1];
  if (c === undefined) return 0;
  if (SIMPLE_ESCAPES.has(c)) return 2;
  const hex = (n: number) => {
    const digits = s.slice(i + 2, i + 2 + n);
    return digits.length === n && [...digits].every((h) => HEX.test(h));
  };
  if ((c === 'x' || c === 'X') && hex(2)) return 4;
  if (c === 'u' && hex(4)) return 6;
  if (c === 'U' && hex(8)) return 10;
  if (/[0-3]/.test(c) && /[0-7]/.test(s[i + 2] ?? '') && /[0-7]/.test(s[i + 3] ?? '')) return 4;
  return 0;
}

/** Scans `source` as cel-go's lexer does (see the module comment). Never throws. */
export function scanSource(source: string): Scanned {
  const out: Scanned = {
    text: source,
    selects: new Set(),
    indexes: new Set(),
    elements: new Map(),
    entries: new Map(),
    escaped: new Map(),
  };
  const chars = source.split('');
  /** Open brackets: where, which, whether a `[` starts a list literal (not an index), and the current element. */
  const stack: { ch: string; at: number; list: boolean; index: number }[] = [];
  /** Whether the last token ends an operand (so `[` indexes and `?` is a conditional). */
  let operand = false;
  /** Whether the last token is the `?` of an optional selection `.?`. */
  let afterOptionalDot = false;
  /** The last punctuation token and its offset ('' after an operand). */
  let last = '';
  let lastAt = -1;
  const mark = (map: Map<number, Set<number>>, at: number, index: number) => {
    const set = map.get(at) ?? new Set<number>();
    set.add(index);
    map.set(at, set);
  };
  let i = 0;
  while (i < source.length) {
    const c = source[i];
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '/' && source[i + 1] === '/') {
      while (i < source.length && source[i] !== '\n') i++;
      continue;
    }
    // identifiers, keywords, and string prefixes
    if (IDENT_START.test(c)) {
      let j = i + 1;
      while (j < source.length && IDENT.test(source[j])) j++;
      const word = source.slice(i, j);
      if (PREFIXES.has(word) && (source[j] === '"' || source[j] === "'")) {
        const end = scanString(source, i, j, /r/i.test(word), out);
        if (out.error) return out;
        i = end;
        operand = true;
        last = '';
        continue;
      }
      i = j;
      operand = word !== 'in';
      last = operand ? '' : 'in';
      continue;
    }
    if (c === '"' || c === "'") {
      i = scanString(source, i, i, false, out);
      if (out.error) return out;
      operand = true;
      last = '';
      continue;
    }
    if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(source[i + 1] ?? '') && !operand)) {
      const m = /^(?:0[xX][0-9A-Fa-f]+|[0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)[uU]?/.exec(source.slice(i));
      i += m ? m[0].length : 1;
      operand = true;
      last = '';
      continue;
    }
    // a backquoted field name after `.` or `.?` (cel-go's ESC_IDENTIFIER); elsewhere the parser refuses the backquote
    const escaped =
      c === '`' && (last === '.' || afterOptionalDot) ? /^`([A-Za-z0-9_.\-/ ]+)`/.exec(source.slice(i)) : null;
    if (escaped) {
      const standIn = standInFor(escaped[0].length, source, out.escaped);
      if (standIn) {
        out.escaped.set(standIn, escaped[1]);
        out.firstEscaped ??= i;
        for (let j = 0; j < standIn.length; j++) chars[i + j] = standIn[j];
      }
      i += escaped[0].length;
      operand = true;
      last = '';
      afterOptionalDot = false;
      continue;
    }
    afterOptionalDot = false;
    if (c === '?') {
      const top = stack[stack.length - 1];
      let optional = true;
      if (last === '.') out.selects.add(lastAt);
      else if (last === '[' && top?.ch === '[' && !top.list) out.indexes.add(top.at);
      else if ((last === '[' || last === ',') && top?.ch === '[' && top.list) mark(out.elements, top.at, top.index);
      else if ((last === '{' || last === ',') && top?.ch === '{') mark(out.entries, top.at, top.index);
      else optional = false; // the conditional operator
      if (optional) chars[i] = ' ';
      afterOptionalDot = last === '.';
      operand = false;
      last = optional ? '' : '?';
      i++;
      continue;
    }
    if (c === '(' || c === '[' || c === '{') {
      stack.push({ ch: c, at: i, list: c === '[' && !operand, index: 0 });
      operand = false;
    } else if (c === ')' || c === ']' || c === '}') {
      stack.pop();
      operand = true;
    } else {
      if (c === ',' && stack.length) stack[stack.length - 1].index++;
      operand = false;
    }
    last = operand ? '' : c;
    lastAt = i;
    i++;
  }
  out.text = chars.join('');
  return out;
}

/**
 * An identifier of `length` characters that is no word of `source` and no stand-in yet, to
 * stand for a backquoted name of that length (`\`a-b\`` is 5: `_0___`); undefined if none is found.
 */
function standInFor(length: number, source: string, taken: Map<string, string>): string | undefined {
  for (let n = 0; n < 10000; n++) {
    const id = `_${n.toString(36)}`.padEnd(length, '_');
    if (id.length !== length || taken.has(id)) continue;
    if (new RegExp(`(^|[^A-Za-z0-9_])${id}($|[^A-Za-z0-9_])`).test(source)) continue;
    return id;
  }
  return undefined;
}

/**
 * Skips the string literal whose prefix starts at `start` and whose quote is at `quote`;
 * returns the offset after it. A refused escape sets `out.error` (cel-go: a token recognition
 * error showing the literal up to the bad character). An unterminated literal is left to the parser.
 */
function scanString(s: string, start: number, quote: number, raw: boolean, out: Scanned): number {
  const q = s[quote];
  const triple = s[quote + 1] === q && s[quote + 2] === q;
  const close = triple ? q.repeat(3) : q;
  let i = quote + close.length;
  while (i < s.length) {
    if (s.startsWith(close, i)) return i + close.length;
    if (!triple && (s[i] === '\n' || s[i] === '\r')) return i;
    if (s[i] === '\\') {
      if (raw) {
        i += 2;
        continue;
      }
      const n = escapeLength(s, i);
      if (!n) {
        out.error = { offset: start, message: `Syntax error: token recognition error at: '${s.slice(start, i + 2)}'` };
        return s.length;
      }
      i += n;
      continue;
    }
    i++;
  }
  return i;
}

type Mutable<E> = { -readonly [K in keyof E]: E[K] };

/** The parser's offset of each node, by id (`sourceInfo.positions`). */
export function positionsOf(sourceInfo: { positions?: Record<string, number> } | undefined): Map<bigint, number> {
  const out = new Map<bigint, number>();
  for (const [k, v] of Object.entries(sourceInfo?.positions ?? {})) out.set(BigInt(k), v);
  return out;
}

/**
 * Rewrites the parsed tree of a scanned source into cel-go's form of its optional syntax (see
 * the module comment). `positions` are the parser's node offsets (the field-name constants the
 * rewritten selections gain are added to them). Returns the allocator of fresh node ids (after
 * every id of the tree), for further rewriting.
 */
export function markOptionals(root: Expr, scanned: Scanned, positions: Map<bigint, number>): () => bigint {
  let maxId = 0n;
  for (const id of positions.keys()) if (id > maxId) maxId = id;
  const nextId = () => ++maxId;
  if (
    !scanned.selects.size &&
    !scanned.indexes.size &&
    !scanned.elements.size &&
    !scanned.entries.size &&
    !scanned.escaped.size
  )
    return nextId;
  const stack: Expr[] = [root];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const e = next as Mutable<Expr>;
    const at = positions.get(e.id);
    const k = e.exprKind;
    // a backquoted field name's selection gets its name back
    const unescaped = k.case === 'selectExpr' ? scanned.escaped.get(k.value.field) : undefined;
    if (k.case === 'selectExpr' && unescaped !== undefined) (k.value as { field: string }).field = unescaped;
    if (
      k.case === 'selectExpr' &&
      at !== undefined &&
      scanned.selects.has(at) &&
      k.value.operand &&
      !k.value.testOnly
    ) {
      const id = nextId();
      positions.set(id, at);
      const field: Expr = {
        id,
        exprKind: { case: 'constExpr', value: { constantKind: { case: 'stringValue', value: k.value.field } } },
      };
      e.exprKind = { case: 'callExpr', value: { function: '_?._', args: [k.value.operand, field] } };
    } else if (
      k.case === 'callExpr' &&
      k.value.function === '_[_]' &&
      !k.value.target &&
      at !== undefined &&
      scanned.indexes.has(at)
    ) {
      e.exprKind = { case: 'callExpr', value: { function: '_[?_]', args: k.value.args } };
    } else if (k.case === 'listExpr' && at !== undefined && scanned.elements.has(at)) {
      (k.value as { optionalIndices?: number[] }).optionalIndices = [...(scanned.elements.get(at) ?? [])].sort(
        (a, b) => a - b,
      );
    } else if (k.case === 'structExpr' && at !== undefined && scanned.entries.has(at)) {
      for (const i of scanned.entries.get(at) ?? []) {
        const entry = k.value.entries[i] as { optionalEntry?: boolean } | undefined;
        if (entry) entry.optionalEntry = true;
      }
    }
    const kk = e.exprKind;
    if (kk.case === 'callExpr') stack.push(...(kk.value.target ? [kk.value.target] : []), ...kk.value.args);
    else if (kk.case === 'selectExpr' && kk.value.operand) stack.push(kk.value.operand);
    else if (kk.case === 'listExpr') stack.push(...kk.value.elements);
    else if (kk.case === 'structExpr')
      for (const x of kk.value.entries)
        stack.push(...(x.keyKind.case === 'mapKey' ? [x.keyKind.value as Expr] : []), ...(x.value ? [x.value] : []));
    else if (kk.case === 'comprehensionExpr')
      for (const x of [
        kk.value.iterRange,
        kk.value.accuInit,
        kk.value.loopCondition,
        kk.value.loopStep,
        kk.value.result,
      ])
        if (x) stack.push(x);
  }
  return nextId;
}
