/**
 * Deterministic YAML writer that lays out plain JSON-like data exactly as controller-gen does.
 *
 * controller-gen marshals a Go object to JSON, reads the JSON back as a YAML 1.1 map
 * (sigs.k8s.io/yaml) and emits it with go-yaml v2. The visible consequences, which this module
 * reproduces so our files are byte-identical to controller-gen's for the same object:
 *
 * - every mapping's keys are sorted with go-yaml's "natural" order (letters before other
 *   characters, digit runs compared as numbers);
 * - block style, two-space indentation, sequences inside mappings are not indented
 *   (`versions:\n- name: v1`), empty collections are written `{}` / `[]`;
 * - multi-line strings are literal blocks (`|-`, `|`, `|+`); long plain strings are folded at
 *   the first space after column 80 (go-yaml breaks *after* crossing the width, not before);
 * - strings that would read back as another YAML 1.1 type (`""`, `true`, `yes`, `1.0`, `0x1F`,
 *   `2006-01-02`...) are double-quoted; strings that cannot be plain (`*`, `: x`...) are
 *   single-quoted;
 * - integers print as integers, other numbers in Go's shortest `%g` form.
 *
 * The npm `yaml` package is used to read YAML (tests, conformance); it cannot write this layout
 * (it folds before the width and chooses different quoting), so the emitter is our own.
 */

const BEST_WIDTH = 80;
const INDENT = 2;

/** Serialises one document: `---\n` then the value, LF line ends, trailing newline. */
export function toYamlDocument(value: unknown): string {
  const w = new YamlWriter();
  w.add(value);
  return w.document(value);
}

/** Serialises several documents one after the other, each starting with `---`. */
export function toYamlDocuments(values: readonly unknown[]): string {
  const w = new YamlWriter();
  for (const v of values) w.add(v);
  return values.map((v) => w.document(v)).join('');
}

/** A serialised subtree and the emitter state after it. */
interface Fragment {
  text: string;
  column: number;
  whitespace: boolean;
  indention: boolean;
}

/** Scalar ids have no keys or children: `a` undefined never matches. */
function sameIds(a: readonly number[] | undefined, b: readonly number[]): boolean {
  if (a === undefined || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Subtrees smaller than this (in nodes) are cheaper to write than to look up. */
const MIN_SHARED_SIZE = 24;

/**
 * Serialises several values that may share large identical subtrees (every CRD embedding
 * V1PodTemplateSpec carries the same few thousand lines). `add` every value first: it interns
 * each subtree by content (hash-consing: an object's signature is its keys and its children's
 * ids), then `document` writes each value, reusing the text of a repeated subtree written at
 * the same indentation and emitter state. The output is byte-identical to writing every node;
 * the values must not change between `add` and `document`.
 */
export class YamlWriter {
  private readonly stringIds = new Map<string, number>();
  private readonly otherIds = new Map<string, number>();
  private readonly keyIds = new Map<string, number>();
  private readonly idOf = new WeakMap<object, number>();
  /** Per id: how many times the subtree occurs, and its size in nodes. */
  private readonly occurrences: number[] = [];
  private readonly sizes: number[] = [];
  /** Per object id: array or mapping, its key ids and child ids (to confirm a hash match). */
  private readonly isArray: boolean[] = [];
  private readonly keysOf: (number[] | undefined)[] = [];
  private readonly childrenOf: (number[] | undefined)[] = [];
  private readonly buckets = new Map<number, number[]>();
  private readonly fragments = new Map<string, Fragment>();

  add(value: unknown): void {
    this.intern(value);
  }

  document(value: unknown): string {
    const e = new Emitter(this);
    e.raw('---');
    e.node(value, -1, 'root');
    e.finish();
    return e.text;
  }

  private newId(size: number, isArray = false, keys?: number[], children?: number[]): number {
    this.occurrences.push(0);
    this.sizes.push(size);
    this.isArray.push(isArray);
    this.keysOf.push(keys);
    this.childrenOf.push(children);
    return this.occurrences.length - 1;
  }

  private scalarId(value: unknown): number {
    const map = typeof value === 'string' ? this.stringIds : this.otherIds;
    const key =
      typeof value === 'string'
        ? value
        : value instanceof RegExp
          ? `r/${value.source}`
          : `${typeof value}:${String(value)}`;
    let id = map.get(key);
    if (id === undefined) {
      id = this.newId(1);
      map.set(key, id);
    }
    return id;
  }

  private keyId(key: string): number {
    let id = this.keyIds.get(key);
    if (id === undefined) {
      id = this.keyIds.size;
      this.keyIds.set(key, id);
    }
    return id;
  }

  /** Hash-consing without building strings: hash the key and child ids, confirm on a match. */
  private intern(value: unknown): number {
    if (value === null || typeof value !== 'object' || value instanceof RegExp) {
      const id = this.scalarId(value);
      this.occurrences[id]++;
      return id;
    }
    const cached = this.idOf.get(value);
    if (cached !== undefined) {
      this.occurrences[cached]++;
      return cached;
    }
    const array = Array.isArray(value);
    const keys: number[] = [];
    const children: number[] = [];
    let size = 1;
    let h = array ? 0x2545f491 : 0x6c8e9cf5;
    if (array) {
      for (const item of value as unknown[]) {
        const id = this.intern(item === undefined ? null : item);
        children.push(id);
        size += this.sizes[id];
        h = Math.imul(h ^ id, 0x01000193);
      }
    } else {
      const obj = (value instanceof Map ? Object.fromEntries(value) : value) as Record<string, unknown>;
      for (const k of Object.keys(obj)) {
        const v = obj[k];
        if (v === undefined) continue;
        const kid = this.keyId(k);
        const id = this.intern(v);
        keys.push(kid);
        children.push(id);
        size += this.sizes[id];
        h = Math.imul(Math.imul(h ^ kid, 0x01000193) ^ id, 0x01000193);
      }
    }
    let id: number | undefined;
    const bucket = this.buckets.get(h);
    if (bucket) {
      for (const candidate of bucket) {
        if (
          this.isArray[candidate] === array &&
          sameIds(this.keysOf[candidate], keys) &&
          sameIds(this.childrenOf[candidate], children)
        ) {
          id = candidate;
          break;
        }
      }
    }
    if (id === undefined) {
      id = this.newId(size, array, keys, children);
      if (bucket) bucket.push(id);
      else this.buckets.set(h, [id]);
    }
    this.occurrences[id]++;
    this.idOf.set(value, id);
    return id;
  }

  /** The id of a repeated, large enough subtree, or undefined. */
  sharedId(value: object): number | undefined {
    const id = this.idOf.get(value);
    return id !== undefined && this.occurrences[id] >= 2 && this.sizes[id] >= MIN_SHARED_SIZE ? id : undefined;
  }

  fragment(key: string): Fragment | undefined {
    return this.fragments.get(key);
  }

  remember(key: string, f: Fragment): void {
    // Flatten the fragment's rope once (V8 flattens a cons string in place on indexed access),
    // so documents that reuse it copy one flat block instead of walking thousands of pieces.
    f.text.charCodeAt(0);
    this.fragments.set(key, f);
  }
}

// ---------------------------------------------------------------------------------------------
// Key order

function isLetter(ch: string): boolean {
  const c = ch.charCodeAt(0);
  if (c < 0x80) return (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
  return /\p{L}/u.test(ch);
}
function isDigit(ch: string): boolean {
  const c = ch.charCodeAt(0);
  if (c < 0x80) return c >= 48 && c <= 57;
  return /\p{Nd}/u.test(ch);
}

const ASCII = /^[^\u0080-\uffff]*$/; // every UTF-16 unit below 0x80

/**
 * go-yaml v2's map key order for string keys (sorter.go keyList.Less), three-way: the decision is taken at the first differing rune,
 * so one pass answers both Less(a, b) and Less(b, a).
 */
export function goYamlKeyCompare(a: string, b: string): number {
  if (a === b) return 0;
  const ar = ASCII.test(a) ? a : Array.from(a);
  const br = ASCII.test(b) ? b : Array.from(b);
  for (let i = 0; i < ar.length && i < br.length; i++) {
    if (ar[i] === br[i]) continue;
    const al = isLetter(ar[i]);
    const bl = isLetter(br[i]);
    // Runes compare as code points (a string's `<` compares UTF-16 units, which puts U+10000 and
    // above before U+E000-U+FFFF).
    if (al && bl) return runeLess(ar[i], br[i]);
    if (al || bl) return bl ? -1 : 1;
    let an = 0;
    let bn = 0;
    if (ar[i] === '0' || br[i] === '0') {
      for (let j = i - 1; j >= 0 && isDigit(ar[j]); j--) {
        if (ar[j] !== '0') {
          an = 1;
          bn = 1;
          break;
        }
      }
    }
    let ai = i;
    for (; ai < ar.length && isDigit(ar[ai]); ai++) an = an * 10 + ((ar[ai].codePointAt(0) ?? 0) - 48);
    let bi = i;
    for (; bi < br.length && isDigit(br[bi]); bi++) bn = bn * 10 + ((br[bi].codePointAt(0) ?? 0) - 48);
    if (an !== bn) return an < bn ? -1 : 1;
    if (ai !== bi) return ai < bi ? -1 : 1;
    return runeLess(ar[i], br[i]);
  }
  return ar.length < br.length ? -1 : ar.length > br.length ? 1 : 0;
}

/** Go's `a < b` on two different runes (one code point each). */
function runeLess(a: string, b: string): number {
  // a and b are one code point each, never empty
  return (a.codePointAt(0) ?? 0) < (b.codePointAt(0) ?? 0) ? -1 : 1;
}

// ---------------------------------------------------------------------------------------------
// How go-yaml v2 resolves a plain scalar (resolve.go): a string that would read back as another
// type must be quoted.

const RESOLVE_MAP = new Set([
  '',
  '~',
  'null',
  'Null',
  'NULL',
  'y',
  'Y',
  'yes',
  'Yes',
  'YES',
  'true',
  'True',
  'TRUE',
  'on',
  'On',
  'ON',
  'n',
  'N',
  'no',
  'No',
  'NO',
  'false',
  'False',
  'FALSE',
  'off',
  'Off',
  'OFF',
  '.nan',
  '.NaN',
  '.NAN',
  '.inf',
  '.Inf',
  '.INF',
  '+.inf',
  '+.Inf',
  '+.INF',
  '-.inf',
  '-.Inf',
  '-.INF',
  '<<',
]);
const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const BASE60_FLOAT = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;
const TIMESTAMP =
  /^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::?[0-9]{2})?))?)?$/;
const GO_INT = /^[-+]?(?:0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/;

/** True when go-yaml would read the unquoted string back as something other than a string. */
function resolvesToNonString(s: string): boolean {
  if (RESOLVE_MAP.has(s)) return true;
  const c = s[0];
  if (c === '.') return YAML_STYLE_FLOAT.test(s) || (/^\.[0-9]/.test(s) && !Number.isNaN(Number(s)));
  const isD = c >= '0' && c <= '9';
  const isS = c === '+' || c === '-';
  if (!isD && !isS) return false;
  if (TIMESTAMP.test(s)) return true;
  const plain = s.replace(/_/g, '');
  if (GO_INT.test(plain)) return true;
  if (YAML_STYLE_FLOAT.test(plain)) return true;
  if (/^-?0b[01]+$/.test(plain)) return true;
  return false;
}

// ---------------------------------------------------------------------------------------------
// Scalar analysis (emitterc.go yaml_emitter_analyze_scalar)

interface Analysis {
  multiline: boolean;
  blockPlainAllowed: boolean;
  singleQuotedAllowed: boolean;
  blockAllowed: boolean;
}

function isBreakCh(ch: string): boolean {
  return ch === '\n' || ch === '\r' || ch === '\u0085' || ch === '\u2028' || ch === '\u2029';
}
function isBlankCh(ch: string | undefined): boolean {
  return ch === ' ' || ch === '\t';
}
/**
 * go-yaml v2's is_printable (yamlprivateh.go), which tests UTF-8 lead bytes: nothing above U+FFFF
 * (a 4-byte sequence) is printable, so such a character is written as `\UXXXXXXXX` in a
 * double-quoted scalar, as controller-gen writes it.
 */
function isPrintable(ch: string): boolean {
  const c = ch.codePointAt(0) ?? 0; // ch is one code point, never empty
  return (
    c === 0x0a ||
    (c >= 0x20 && c <= 0x7e) ||
    c === 0x85 ||
    (c >= 0xa0 && c <= 0xd7ff) ||
    (c >= 0xe000 && c <= 0xfffd && c !== 0xfeff)
  );
}

const analysisCache = new Map<string, Analysis>();

function analyzeCached(s: string, chars: () => string[]): Analysis {
  let a = analysisCache.get(s);
  if (a === undefined) {
    a = analyze(chars());
    if (analysisCache.size > 50_000) analysisCache.clear();
    analysisCache.set(s, a);
  }
  return a;
}

function analyze(chars: string[]): Analysis {
  if (chars.length === 0) {
    return { multiline: false, blockPlainAllowed: true, singleQuotedAllowed: true, blockAllowed: false };
  }
  let blockIndicators = false;
  let lineBreaks = false;
  let special = false;
  let tabs = false;
  let leadingSpace = false;
  let leadingBreak = false;
  let trailingSpace = false;
  let trailingBreak = false;
  let breakSpace = false;
  let spaceBreak = false;
  let prevSpace = false;
  let prevBreak = false;
  const head = chars.slice(0, 3).join('');
  if (head === '---' || head === '...') blockIndicators = true;
  let precededByWhitespace = true;
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i];
    const next = chars[i + 1];
    const followedByWhitespace = next === undefined || isBlankCh(next) || isBreakCh(next);
    if (i === 0) {
      if ('#,[]{}&*!|>\'"%@`'.includes(ch)) blockIndicators = true;
      else if ((ch === '?' || ch === ':') && followedByWhitespace) blockIndicators = true;
      else if (ch === '-' && followedByWhitespace) blockIndicators = true;
    } else {
      if (ch === ':' && followedByWhitespace) blockIndicators = true;
      else if (ch === '#' && precededByWhitespace) blockIndicators = true;
    }
    if (ch === '\t') tabs = true;
    if (!isPrintable(ch)) special = true;
    if (ch === ' ') {
      if (i === 0) leadingSpace = true;
      if (i === chars.length - 1) trailingSpace = true;
      if (prevBreak) breakSpace = true;
      prevSpace = true;
      prevBreak = false;
    } else if (isBreakCh(ch)) {
      lineBreaks = true;
      if (i === 0) leadingBreak = true;
      if (i === chars.length - 1) trailingBreak = true;
      if (prevSpace) spaceBreak = true;
      prevSpace = false;
      prevBreak = true;
    } else {
      prevSpace = false;
      prevBreak = false;
    }
    precededByWhitespace = isBlankCh(ch) || isBreakCh(ch);
  }
  let blockPlainAllowed = true;
  let singleQuotedAllowed = true;
  let blockAllowed = true;
  if (leadingSpace || leadingBreak || trailingSpace || trailingBreak) blockPlainAllowed = false;
  if (trailingSpace) blockAllowed = false;
  if (breakSpace) {
    blockPlainAllowed = false;
    singleQuotedAllowed = false;
  }
  if (spaceBreak || tabs || special) {
    blockPlainAllowed = false;
    singleQuotedAllowed = false;
  }
  if (spaceBreak || special) blockAllowed = false;
  if (lineBreaks) blockPlainAllowed = false;
  if (blockIndicators) blockPlainAllowed = false;
  return { multiline: lineBreaks, blockPlainAllowed, singleQuotedAllowed, blockAllowed };
}

// ---------------------------------------------------------------------------------------------
// Numbers

function formatNumber(n: number): string {
  if (Number.isNaN(n)) return '.nan';
  if (n === Infinity) return '.inf';
  if (n === -Infinity) return '-.inf';
  // Integral values travel through JSON as integers and come back as int64/uint64.
  if (Number.isInteger(n)) {
    if (Math.abs(n) < 2 ** 63) return Math.abs(n) < 1e21 ? String(n) : BigInt(n).toString();
    if (n > 0 && n < 2 ** 64) return BigInt(n).toString();
  }
  // Everything else is a float64 printed with strconv.FormatFloat(f, 'g', -1, 64): the shortest
  // digits, in exponent form when the exponent is below -4 or at least 6.
  const [mant, expStr] = n.toExponential().split('e');
  const exp = Number(expStr);
  if (exp < -4 || exp >= 6) return goExp(mant, exp);
  return String(n);
}

function goExp(mant: string, exp: number): string {
  const sign = exp < 0 ? '-' : '+';
  const abs = Math.abs(exp);
  return `${mant}e${sign}${abs < 10 ? `0${abs}` : abs}`;
}

// ---------------------------------------------------------------------------------------------
// Emitter

type Context = 'root' | 'mappingValue' | 'sequenceItem' | 'key';

class Emitter {
  constructor(private readonly writer?: YamlWriter) {}

  /** The document so far (string concatenation: V8 ropes beat joining millions of pieces). */
  text = '';
  private readonly out = {
    push: (t: string) => {
      this.text += t;
    },
  };
  /** Characters written on the current line (go-yaml counts runes). */
  private column = 0;
  /** The previous character written was whitespace (or nothing on the line yet). */
  private whitespace = true;
  /** Only indentation has been written on the current line so far. */
  private indention = true;

  raw(s: string): void {
    this.out.push(s);
    this.column += Array.from(s).length;
    this.whitespace = false;
    this.indention = false;
  }

  /** Document end: go-yaml's write_indent at indent 0 (no blank line after a block scalar). */
  finish(): void {
    if (!this.indention || this.column > 0 || !this.whitespace) this.newline();
  }

  newline(): void {
    this.out.push('\n');
    this.column = 0;
    this.whitespace = true;
    this.indention = true;
  }

  private put(ch: string): void {
    this.out.push(ch);
    this.column += 1;
  }

  /** yaml_emitter_write_indent */
  private writeIndent(indent: number): void {
    const ind = Math.max(indent, 0);
    if (!this.indention || this.column > ind || (this.column === ind && !this.whitespace)) {
      this.out.push('\n');
      this.column = 0;
      this.indention = true;
    }
    if (this.column < ind) this.putChunk(' '.repeat(ind - this.column), ind - this.column);
    this.whitespace = true;
  }

  private indicator(s: string, needWhitespace: boolean, isWhitespace: boolean, isIndention: boolean): void {
    if (needWhitespace && !this.whitespace) this.put(' ');
    for (const ch of s) this.put(ch);
    this.whitespace = isWhitespace;
    this.indention = this.indention && isIndention;
  }

  /**
   * Emits a node. `indent` is the indentation of the enclosing collection (go-yaml's
   * emitter.indent), -1 at the document root.
   */
  node(value: unknown, indent: number, ctx: Context): void {
    if (this.writer && value !== null && typeof value === 'object') {
      const id = this.writer.sharedId(value);
      if (id !== undefined) {
        const key = `${id}|${indent}|${ctx}|${this.column}|${this.whitespace ? 1 : 0}|${this.indention ? 1 : 0}`;
        let f = this.writer.fragment(key);
        if (!f) {
          const child = new Emitter(this.writer);
          child.column = this.column;
          child.whitespace = this.whitespace;
          child.indention = this.indention;
          child.write(value, indent, ctx);
          f = { text: child.text, column: child.column, whitespace: child.whitespace, indention: child.indention };
          this.writer.remember(key, f);
        }
        this.text += f.text;
        this.column = f.column;
        this.whitespace = f.whitespace;
        this.indention = f.indention;
        return;
      }
    }
    this.write(value, indent, ctx);
  }

  private write(value: unknown, indent: number, ctx: Context): void {
    if (value === null || value === undefined) {
      this.scalar('null', indent, ctx, 'plain');
      return;
    }
    if (typeof value === 'boolean') {
      this.scalar(value ? 'true' : 'false', indent, ctx, 'plain');
      return;
    }
    if (typeof value === 'number') {
      this.scalar(formatNumber(value), indent, ctx, 'plain');
      return;
    }
    if (typeof value === 'bigint') {
      this.scalar(value.toString(), indent, ctx, 'plain');
      return;
    }
    if (typeof value === 'string') {
      this.stringScalar(value, indent, ctx);
      return;
    }
    if (value instanceof RegExp) {
      this.stringScalar(value.source, indent, ctx);
      return;
    }
    if (Array.isArray(value)) {
      this.sequence(value, indent, ctx);
      return;
    }
    if (value instanceof Map) {
      this.mapping(Object.fromEntries(value), indent, ctx);
      return;
    }
    if (typeof value === 'object') {
      const toJSON = (value as { toJSON?: () => unknown }).toJSON;
      if (typeof toJSON === 'function') {
        this.node(toJSON.call(value), indent, ctx);
        return;
      }
      this.mapping(value as Record<string, unknown>, indent, ctx);
      return;
    }
    throw new TypeError(`cannot serialise a ${typeof value} as YAML`);
  }

  private sequence(items: unknown[], indent: number, ctx: Context): void {
    const list = items.map((v) => (v === undefined ? null : v));
    if (list.length === 0) {
      this.indicator('[', true, true, false);
      this.indicator(']', false, false, false);
      return;
    }
    // A block sequence that is a mapping value is "indentless".
    const seqIndent = indent < 0 ? 0 : ctx === 'mappingValue' && !this.indention ? indent : indent + INDENT;
    for (const item of list) {
      this.writeIndent(seqIndent);
      this.indicator('-', true, false, true);
      this.node(item, seqIndent, 'sequenceItem');
    }
  }

  private mapping(obj: Record<string, unknown>, indent: number, ctx: Context): void {
    const keys = Object.keys(obj)
      .filter((k) => obj[k] !== undefined)
      .sort(goYamlKeyCompare);
    if (keys.length === 0) {
      this.indicator('{', true, true, false);
      this.indicator('}', false, false, false);
      return;
    }
    void ctx;
    const mapIndent = indent < 0 ? 0 : indent + INDENT;
    for (const key of keys) {
      this.writeIndent(mapIndent);
      this.stringScalar(key, mapIndent, 'key');
      this.indicator(':', false, false, false);
      this.node(obj[key], mapIndent, 'mappingValue');
    }
  }

  private stringScalar(s: string, indent: number, ctx: Context): void {
    let style: 'plain' | 'double' | 'literal';
    if (s.includes('\n')) style = 'literal';
    else if (!resolvesToNonString(s) && !BASE60_FLOAT.test(s)) style = 'plain';
    else style = 'double';
    this.scalar(s, indent, ctx, style);
  }

  private scalar(s: string, indent: number, ctx: Context, requested: 'plain' | 'double' | 'literal'): void {
    const ascii = ASCII.test(s);
    let chars: string[] | undefined;
    const getChars = () => {
      chars ??= Array.from(s);
      return chars;
    };
    const a = analyzeCached(s, getChars);
    const simpleKey = ctx === 'key';
    let style: 'plain' | 'single' | 'double' | 'literal' = requested;
    if (simpleKey && a.multiline) style = 'double';
    if (style === 'plain') {
      if (!a.blockPlainAllowed) style = 'single';
      if (s.length === 0 && simpleKey) style = 'single';
    }
    if (style === 'single' && !a.singleQuotedAllowed) style = 'double';
    if (style === 'literal' && (!a.blockAllowed || simpleKey)) style = 'double';
    // yaml_emitter_emit_scalar increases the indent (flow) before writing the scalar.
    const scalarIndent = indent < 0 ? INDENT : indent + INDENT;
    const allowBreaks = !simpleKey;
    switch (style) {
      case 'plain': {
        // Fast path: no space at which go-yaml could fold (it folds at a space once past column 80).
        const lead = s.length > 0 && !this.whitespace ? 1 : 0;
        const lastSpace = s.lastIndexOf(' ');
        if (ascii && (!allowBreaks || lastSpace < 0 || this.column + lead + lastSpace <= BEST_WIDTH)) {
          if (lead) this.put(' ');
          this.putChunk(s, s.length);
          if (s.length > 0) this.whitespace = false;
          this.indention = false;
          return;
        }
        this.writePlain(getChars(), scalarIndent, allowBreaks);
        return;
      }
      case 'single':
        this.writeSingle(getChars(), scalarIndent, allowBreaks);
        return;
      case 'double':
        this.writeDouble(getChars(), scalarIndent, allowBreaks);
        return;
      case 'literal':
        if (ascii && !/[\r]/.test(s)) this.writeLiteralFast(s, scalarIndent);
        else this.writeLiteral(getChars(), scalarIndent);
        return;
    }
  }

  /** Literal block for text whose only line breaks are LF: one chunk per line. */
  private writeLiteralFast(s: string, indent: number): void {
    this.indicator('|', true, false, false);
    if (s[0] === ' ' || s[0] === '\n') this.indicator(String(INDENT), false, false, false);
    let chomp = '';
    const n = s.length;
    if (n === 0 || s[n - 1] !== '\n') chomp = '-';
    else if (n === 1 || s[n - 2] === '\n') chomp = '+';
    if (chomp) this.indicator(chomp, false, false, false);
    this.out.push('\n');
    this.column = 0;
    this.indention = true;
    this.whitespace = true;
    const lines = s.split('\n');
    for (let i = 0; i < lines.length; i++) {
      if (i > 0) {
        this.out.push('\n');
        this.column = 0;
        this.indention = true;
      }
      const line = lines[i];
      if (line.length > 0) {
        this.writeIndent(indent);
        this.putChunk(line, line.length);
        this.indention = false;
      }
    }
  }

  /** Appends text without line breaks occupying `width` columns. */
  private putChunk(text: string, width: number): void {
    this.out.push(text);
    this.column += width;
  }

  private writePlain(chars: string[], indent: number, allowBreaks: boolean): void {
    if (chars.length > 0 && !this.whitespace) this.put(' ');
    // Word by word: go-yaml folds at a single space (not the first of several, not before
    // another space) once the column is past the width. Plain scalars never hold line breaks.
    let i = 0;
    const n = chars.length;
    while (i < n) {
      if (chars[i] === ' ') {
        let j = i;
        while (j < n && chars[j] === ' ') j++;
        if (j - i === 1 && allowBreaks && this.column > BEST_WIDTH) {
          this.writeIndent(indent);
        } else {
          this.putChunk(' '.repeat(j - i), j - i);
        }
        i = j;
      } else {
        let j = i;
        while (j < n && chars[j] !== ' ') j++;
        this.putChunk(chars.slice(i, j).join(''), j - i);
        this.indention = false;
        i = j;
      }
    }
    if (n > 0) this.whitespace = false;
    this.indention = false;
  }

  private writeSingle(chars: string[], indent: number, allowBreaks: boolean): void {
    this.indicator("'", true, false, false);
    let spaces = false;
    let breaks = false;
    for (let i = 0; i < chars.length; i++) {
      const ch = chars[i];
      if (ch === ' ') {
        if (
          allowBreaks &&
          !spaces &&
          this.column > BEST_WIDTH &&
          i > 0 &&
          i < chars.length - 1 &&
          chars[i + 1] !== ' '
        ) {
          this.writeIndent(indent);
        } else {
          this.put(ch);
        }
        spaces = true;
      } else if (isBreakCh(ch)) {
        if (!breaks && ch === '\n') this.out.push('\n');
        this.out.push('\n');
        this.column = 0;
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent(indent);
        if (ch === "'") this.put("'");
        this.put(ch);
        this.indention = false;
        spaces = false;
        breaks = false;
      }
    }
    this.indicator("'", false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  private writeDouble(chars: string[], indent: number, allowBreaks: boolean): void {
    this.indicator('"', true, false, false);
    let spaces = false;
    for (let i = 0; i < chars.length; i++) {
      const ch = chars[i];
      const cp = ch.codePointAt(0) ?? 0; // ch is one code point, never empty
      if (!isPrintable(ch) || cp === 0xfeff || isBreakCh(ch) || ch === '"' || ch === '\\') {
        this.put('\\');
        const named: Record<number, string> = {
          0: '0',
          7: 'a',
          8: 'b',
          9: 't',
          10: 'n',
          11: 'v',
          12: 'f',
          13: 'r',
          27: 'e',
          34: '"',
          92: '\\',
          133: 'N',
          160: '_',
          8232: 'L',
          8233: 'P',
        };
        if (named[cp] !== undefined) this.put(named[cp]);
        else {
          const [letter, width] = cp <= 0xff ? ['x', 2] : cp <= 0xffff ? ['u', 4] : ['U', 8];
          this.put(letter as string);
          for (const d of cp
            .toString(16)
            .toUpperCase()
            .padStart(width as number, '0'))
            this.put(d);
        }
        spaces = false;
      } else if (ch === ' ') {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && i > 0 && i < chars.length - 1) {
          this.writeIndent(indent);
          if (chars[i + 1] === ' ') this.put('\\');
        } else {
          this.put(ch);
        }
        spaces = true;
      } else {
        this.put(ch);
        spaces = false;
      }
    }
    this.indicator('"', false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  private writeLiteral(chars: string[], indent: number): void {
    this.indicator('|', true, false, false);
    if (chars[0] === ' ' || isBreakCh(chars[0] ?? '')) this.indicator(String(INDENT), false, false, false);
    let chomp = '';
    const n = chars.length;
    if (n === 0 || !isBreakCh(chars[n - 1])) chomp = '-';
    else if (n === 1 || isBreakCh(chars[n - 2])) chomp = '+';
    if (chomp) this.indicator(chomp, false, false, false);
    this.out.push('\n');
    this.column = 0;
    this.indention = true;
    this.whitespace = true;
    let breaks = true;
    for (const ch of chars) {
      if (isBreakCh(ch)) {
        this.out.push('\n');
        this.column = 0;
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent(indent);
        this.put(ch);
        this.indention = false;
        breaks = false;
      }
    }
  }
}
