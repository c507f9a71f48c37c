/**
 * The fake API server's JSON on the wire, as the API server's decoder (sigs.k8s.io/json, Go's
 * encoding/json scanner) reads it: integers beyond 2^53 kept exactly (as BigInt, the wire format
 * is int64), nesting refused past the scanner's depth of 10,000 (iteratively: no deep recursion),
 * duplicate keys noted (the last one wins, as in Go), and syntax errors in the scanner's words.
 */
import type { Obj } from '../../apiserver/json.js';

/** Go's encoding/json maxNestingDepth. */
export const MAX_DEPTH = 10_000;

/** A body the scanner refused: `message` in encoding/json's words. */
export class WireSyntaxError extends Error {}

export interface Parsed {
  value: unknown;
  /** The JSON paths (`.data.a`, as sigs.k8s.io/json strict errors spell them) of keys given twice. */
  duplicates: string[];
}

const MIN_INT64 = -(2n ** 63n);
const MAX_INT64 = 2n ** 63n - 1n;

/**
 * A number token: an integer beyond 2^53 as a BigInt (the literal exactly, as Go's decoder quotes
 * it in an error); see {@link asUnstructured} for what a custom resource keeps.
 */
function numberOf(tok: string): number | bigint {
  const n = Number(tok);
  if (!/^-?\d+$/.test(tok) || Number.isSafeInteger(n)) return n;
  return BigInt(tok);
}

/** As unstructured decoding keeps numbers (a custom resource): int64 exactly, a larger integer as float64. */
export function asUnstructured(v: unknown): unknown {
  if (typeof v === 'bigint') return v >= MIN_INT64 && v <= MAX_INT64 ? v : Number(v);
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) v[i] = asUnstructured(v[i]);
    return v;
  }
  if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) (v as Obj)[k] = asUnstructured(x);
  return v;
}

/** strconv.Quote of one character, as the scanner's quoteChar prints it. */
function quoteChar(c: string): string {
  if (c === "'") return "'\\''";
  if (c === '"') return `'"'`;
  const q = JSON.stringify(c).slice(1, -1);
  const code = c.codePointAt(0) ?? 0;
  if (code < 0x20 && !q.startsWith('\\u')) return `'${q}'`;
  if (code < 0x20 || code === 0x7f) return `'\\x${code.toString(16).padStart(2, '0')}'`;
  return `'${q}'`;
}

interface Frame {
  kind: 'object' | 'array';
  value: Obj | unknown[];
  key?: string;
  path: string;
  seen?: Set<string>;
  started?: boolean;
}

/** Parses a request body; throws WireSyntaxError with encoding/json's message. */
/**
 * `typed`: decode as into a Go struct, where an object given twice under one key is decoded into
 * the same struct or map (the fields of both are kept, the later ones winning); else the last
 * value replaces the first, as in a map[string]interface{}.
 */
export function parseWire(text: string, typed = false): Parsed {
  return new WireParser(text, typed).parse();
}

/** encoding/json's scanner over one text: a stack of open containers, values emitted into the top one. */
class WireParser {
  private i = 0;
  private readonly n: number;
  private readonly duplicates: string[] = [];
  private readonly stack: Frame[] = [];
  private result: unknown;
  private done = false;

  constructor(
    private readonly text: string,
    private readonly typed: boolean,
  ) {
    this.n = text.length;
  }

  parse(): Parsed {
    this.value();
    while (!this.done) this.step();
    this.ws();
    if (this.i < this.n) this.fail('after top-level value');
    return { value: this.result, duplicates: this.duplicates };
  }

  /** One step inside the container on top: its end, or its next element (a key first in an object). */
  private step(): void {
    const { text } = this;
    const top = this.stack[this.stack.length - 1];
    this.ws();
    const close = top.kind === 'object' ? '}' : ']';
    if (text[this.i] === close) {
      this.i++;
      this.stack.pop();
      this.emit(top.value);
      return;
    }
    if (top.started) {
      if (text[this.i] !== ',')
        this.fail(top.kind === 'object' ? 'after object key:value pair' : 'after array element');
      this.i++;
      this.ws();
    }
    top.started = true;
    if (top.kind === 'object') {
      if (text[this.i] !== '"') this.fail('looking for beginning of object key string');
      top.key = this.readString();
      this.ws();
      if (text[this.i] !== ':') this.fail('after object key');
      this.i++;
    }
    this.value();
  }

  private ws(): void {
    const { text, n } = this;
    while (
      this.i < n &&
      (text[this.i] === ' ' || text[this.i] === '\t' || text[this.i] === '\n' || text[this.i] === '\r')
    )
      this.i++;
  }

  private fail(context: string): never {
    if (this.i >= this.n) throw new WireSyntaxError('unexpected end of JSON input');
    throw new WireSyntaxError(
      `invalid character ${quoteChar(String.fromCodePoint(this.text.codePointAt(this.i) ?? 0))} ${context}`,
    );
  }

  private readString(): string {
    const { text, n } = this;
    const start = this.i;
    this.i++;
    while (this.i < n) {
      const c = text.charCodeAt(this.i);
      if (c === 0x22) break;
      if (c === 0x5c) {
        if (!this.readEscape()) break;
        continue;
      }
      if (c < 0x20) this.fail('in string literal');
      this.i++;
    }
    if (this.i >= n) throw new WireSyntaxError('unexpected end of JSON input');
    this.i++;
    return JSON.parse(text.slice(start, this.i)) as string;
  }

  /** An escape in a string (at its backslash); false when the text ends after the backslash. */
  private readEscape(): boolean {
    const { text, n } = this;
    const i = this.i;
    const e = text[i + 1];
    if (e === undefined) return false;
    if (e === 'u') {
      if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
        let j = i + 2;
        while (j < i + 6 && j < n && /[0-9a-fA-F]/.test(text[j])) j++;
        this.i = j;
        this.fail('in \\u hexadecimal character escape');
      }
      this.i += 6;
      return true;
    }
    if (!'"\\/bfnrt'.includes(e)) {
      this.i++;
      this.fail('in string escape code');
    }
    this.i += 2;
    return true;
  }

  private digits(): void {
    while (this.text[this.i] >= '0' && this.text[this.i] <= '9') this.i++;
  }

  private readNumber(): number | bigint {
    const { text } = this;
    const start = this.i;
    if (text[this.i] === '-') this.i++;
    if (text[this.i] === '0') this.i++;
    else if (text[this.i] >= '1' && text[this.i] <= '9') this.digits();
    else this.fail('in numeric literal');
    if (text[this.i] === '.') {
      this.i++;
      if (!(text[this.i] >= '0' && text[this.i] <= '9')) this.fail('after decimal point in numeric literal');
      this.digits();
    }
    if (text[this.i] === 'e' || text[this.i] === 'E') {
      this.i++;
      if (text[this.i] === '+' || text[this.i] === '-') this.i++;
      if (!(text[this.i] >= '0' && text[this.i] <= '9')) this.fail('in exponent of numeric literal');
      this.digits();
    }
    return numberOf(text.slice(start, this.i));
  }

  private readLiteral(word: string, v: unknown): unknown {
    for (let k = 0; k < word.length; k++, this.i++) {
      if (this.text[this.i] !== word[k]) {
        if (k === 0) this.fail('looking for beginning of value');
        this.fail(`in literal ${word} (expecting ${quoteChar(word[k])})`);
      }
    }
    return v;
  }

  /** Stores a finished value into the frame on top (or as the result). */
  private emit(v: unknown): void {
    const top = this.stack[this.stack.length - 1];
    if (!top) {
      this.result = v;
      this.done = true;
      return;
    }
    if (top.kind === 'array') (top.value as unknown[]).push(v);
    else {
      const { key, seen } = top;
      if (key === undefined || !seen) throw new Error('wire: an object member without its key');
      if (seen.has(key)) {
        this.duplicates.push(`${top.path}.${key}`);
        const prev = (top.value as Obj)[key];
        if (this.typed && isPlain(prev) && isPlain(v)) v = mergeInto(prev, v);
      }
      seen.add(key);
      if (key === '__proto__')
        Object.defineProperty(top.value, key, { value: v, enumerable: true, writable: true, configurable: true });
      else (top.value as Obj)[key] = v;
    }
  }

  /** Reads a value at i: scalars are emitted; containers are pushed. */
  private value(): void {
    this.ws();
    const c = this.text[this.i];
    if (c === '{' || c === '[') {
      if (this.stack.length >= MAX_DEPTH) throw new WireSyntaxError(`invalid character '${c}' exceeded max depth`);
      const path = childPath(this.stack[this.stack.length - 1]);
      this.i++;
      this.stack.push(
        c === '{' ? { kind: 'object', value: {}, path, seen: new Set() } : { kind: 'array', value: [], path },
      );
      return;
    }
    if (c === '"') {
      this.emit(this.readString());
      return;
    }
    if (c === '-' || (c >= '0' && c <= '9')) {
      this.emit(this.readNumber());
      return;
    }
    if (c === 't') {
      this.emit(this.readLiteral('true', true));
      return;
    }
    if (c === 'f') {
      this.emit(this.readLiteral('false', false));
      return;
    }
    if (c === 'n') {
      this.emit(this.readLiteral('null', null));
      return;
    }
    this.fail('looking for beginning of value');
  }
}

function childPath(top: Frame | undefined): string {
  if (!top) return '';
  if (top.kind === 'array') return `${top.path}[${(top.value as unknown[]).length}]`;
  return `${top.path}.${top.key}`;
}

const isPlain = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `b` decoded into `a` as Go decodes into an existing struct or map: objects merge, the rest is replaced. */
function mergeInto(a: Obj, b: Obj): Obj {
  for (const [k, v] of Object.entries(b)) a[k] = isPlain(a[k]) && isPlain(v) ? mergeInto(a[k] as Obj, v) : v;
  return a;
}

const BIG = /"\\u0000big(-?\d+)\\u0000"/g;

/** JSON text of a value that may hold BigInts (written as the integers they are). */
export function stringifyWire(v: unknown, space?: number): string {
  let big = false;
  const text = JSON.stringify(
    v,
    (_k, x) => {
      if (typeof x !== 'bigint') return x;
      big = true;
      return `\u0000big${x}`.concat('\u0000');
    },
    space,
  );
  return big ? text.replace(BIG, '$1') : text;
}
