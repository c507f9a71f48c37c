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
  const duplicates: string[] = [];
  const stack: Frame[] = [];
  let i = 0;
  const n = text.length;
  const ws = () => {
    while (i < n && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  };
  const fail = (context: string): never => {
    if (i >= n) throw new WireSyntaxError('unexpected end of JSON input');
    throw new WireSyntaxError(`invalid character ${quoteChar(String.fromCodePoint(text.codePointAt(i)!))} ${context}`);
  };
  const readString = (): string => {
    const start = i;
    i++;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x22) break;
      if (c === 0x5c) {
        const e = text[i + 1];
        if (e === undefined) break;
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
            let j = i + 2;
            while (j < i + 6 && j < n && /[0-9a-fA-F]/.test(text[j])) j++;
            i = j;
            fail('in \\u hexadecimal character escape');
          }
          i += 6;
          continue;
        }
        if (!'"\\/bfnrt'.includes(e)) {
          i++;
          fail('in string escape code');
        }
        i += 2;
        continue;
      }
      if (c < 0x20) fail('in string literal');
      i++;
    }
    if (i >= n) throw new WireSyntaxError('unexpected end of JSON input');
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const readNumber = (): number | bigint => {
    const start = i;
    if (text[i] === '-') i++;
    if (text[i] === '0') i++;
    else if (text[i] >= '1' && text[i] <= '9') while (text[i] >= '0' && text[i] <= '9') i++;
    else fail('in numeric literal');
    if (text[i] === '.') {
      i++;
      if (!(text[i] >= '0' && text[i] <= '9')) fail('after decimal point in numeric literal');
      while (text[i] >= '0' && text[i] <= '9') i++;
    }
    if (text[i] === 'e' || text[i] === 'E') {
      i++;
      if (text[i] === '+' || text[i] === '-') i++;
      if (!(text[i] >= '0' && text[i] <= '9')) fail('in exponent of numeric literal');
      while (text[i] >= '0' && text[i] <= '9') i++;
    }
    return numberOf(text.slice(start, i));
  };
  const readLiteral = (word: string, v: unknown): unknown => {
    for (let k = 0; k < word.length; k++, i++) {
      if (text[i] !== word[k]) {
        if (k === 0) fail('looking for beginning of value');
        fail(`in literal ${word} (expecting ${quoteChar(word[k])})`);
      }
    }
    return v;
  };
  let result: unknown;
  let done = false;
  /** Stores a finished value into the frame on top (or as the result). */
  const emit = (v: unknown) => {
    const top = stack[stack.length - 1];
    if (!top) {
      result = v;
      done = true;
      return;
    }
    if (top.kind === 'array') (top.value as unknown[]).push(v);
    else {
      const key = top.key!;
      if (top.seen!.has(key)) {
        duplicates.push(`${top.path}.${key}`);
        const prev = (top.value as Obj)[key];
        if (typed && isPlain(prev) && isPlain(v)) v = mergeInto(prev, v);
      }
      top.seen!.add(key);
      if (key === '__proto__')
        Object.defineProperty(top.value, key, { value: v, enumerable: true, writable: true, configurable: true });
      else (top.value as Obj)[key] = v;
    }
  };
  const childPath = (top: Frame | undefined): string => {
    if (!top) return '';
    if (top.kind === 'array') return `${top.path}[${(top.value as unknown[]).length}]`;
    return `${top.path}.${top.key}`;
  };
  /** Reads a value at i: scalars are emitted; containers are pushed. */
  const value = () => {
    ws();
    const c = text[i];
    if (c === '{' || c === '[') {
      if (stack.length >= MAX_DEPTH) throw new WireSyntaxError(`invalid character '${c}' exceeded max depth`);
      const path = childPath(stack[stack.length - 1]);
      i++;
      stack.push(c === '{' ? { kind: 'object', value: {}, path, seen: new Set() } : { kind: 'array', value: [], path });
      return;
    }
    if (c === '"') return emit(readString());
    if (c === '-' || (c >= '0' && c <= '9')) return emit(readNumber());
    if (c === 't') return emit(readLiteral('true', true));
    if (c === 'f') return emit(readLiteral('false', false));
    if (c === 'n') return emit(readLiteral('null', null));
    fail('looking for beginning of value');
  };
  value();
  while (!done) {
    const top = stack[stack.length - 1];
    ws();
    const close = top.kind === 'object' ? '}' : ']';
    if (text[i] === close) {
      i++;
      stack.pop();
      emit(top.value);
      continue;
    }
    if (top.started) {
      if (text[i] !== ',') fail(top.kind === 'object' ? 'after object key:value pair' : 'after array element');
      i++;
      ws();
    }
    top.started = true;
    if (top.kind === 'object') {
      if (text[i] !== '"') fail('looking for beginning of object key string');
      top.key = readString();
      ws();
      if (text[i] !== ':') fail('after object key');
      i++;
    }
    value();
  }
  ws();
  if (i < n) fail('after top-level value');
  return { value: result, duplicates };
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
