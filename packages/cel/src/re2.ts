/**
 * RE2, the regular expressions of Go's `regexp` package, which the API server compiles every CRD
 * `pattern` and every CEL `matches()` / `find()` / `findAll()` argument with. JavaScript's RegExp is
 * another language (lookarounds and backreferences it takes, `(?i)`, `\pL`, `[[:alpha:]]`, `\z`,
 * `\Q..\E` it refuses or reads otherwise), so kubeforge's checks, its fake API server and its CEL
 * evaluator all go through this one engine: re2js, a pure-JavaScript port of Go's regexp (no native
 * code in users' projects). Errors are Go's text (`error parsing regexp: <code>: `<arg>``).
 */
import { RE2JS } from 're2js';

/** The Go-ported RE2 object re2js keeps behind RE2JS (its Go-named methods; re2js types it `any`). */
interface GoRE2 {
  find(s: string): string;
  findIndex(s: string): number[] | null;
  findAll(s: string, n: number): string[] | null;
}

export interface RE2Problem {
  /** 0-based offset in the pattern of the part Go names (0 when it names none). */
  offset: number;
  /** Go's error without its `error parsing regexp: ` prefix, and what to write instead when that helps. */
  message: string;
}

const compiled = new Map<string, RE2JS | string>();
const MAX_CACHED = 1000;

/** The compiled pattern, or Go's error text. */
function compile(pattern: string): RE2JS | string {
  let r = compiled.get(pattern);
  if (r !== undefined) return r;
  try {
    r = RE2JS.compile(pattern);
  } catch (e) {
    if (!(e instanceof Error)) throw e;
    // Go takes a capture name used twice ((?P<n>a)(?P<n>b); SubexpIndex answers the leftmost),
    // re2js refuses it: the names play no part in matching, so compile it without them.
    if (e.message.includes('duplicate capture group name')) r = compileUnnamed(pattern);
    else r = goError(e);
  }
  if (compiled.size >= MAX_CACHED) compiled.clear();
  compiled.set(pattern, r);
  return r;
}

/** `pattern` with its named groups made plain groups: `(?P<n>` and `(?<n>` outside escapes become `(`. */
function compileUnnamed(pattern: string): RE2JS | string {
  const plain = pattern.replace(/\\[\s\S]|\(\?P?<\w+>/g, (m) => (m.startsWith('\\') ? m : '('));
  try {
    return RE2JS.compile(plain);
  } catch (e) {
    if (e instanceof Error) return goError(e);
    throw e;
  }
}

/** re2js's syntax error as Go's `*syntax.Error` prints it: always `: `<expr>`` after the code, if empty. */
function goError(e: Error): string {
  if (!e.message.startsWith('error parsing regexp: ')) throw e;
  return /: `[\s\S]*`$/.test(e.message) ? e.message : `${e.message}: \`\``;
}

/** Go's `regexp.Compile` error for `pattern` (`error parsing regexp: unexpected ): `)``), or undefined when it compiles. */
export function goRegexpError(pattern: string): string | undefined {
  const r = compile(pattern);
  return typeof r === 'string' ? r : undefined;
}

/** Why RE2 refuses `pattern` (Go's words, with a hint for the JavaScript habits it refuses), or undefined. */
export function checkRE2(pattern: string): RE2Problem | undefined {
  const err = goRegexpError(pattern);
  if (err === undefined) return undefined;
  const text = err.replace(/^error parsing regexp: /, '');
  const m = /^(.*?): `([\s\S]*)`$/.exec(text);
  const code = m?.[1] ?? text;
  const arg = m?.[2] ?? '';
  const at = arg ? pattern.indexOf(arg) : -1;
  const hint = hintFor(code, arg);
  return { offset: Math.max(at, 0), message: hint ? `${text} (${hint})` : text };
}

/** What a pattern written for JavaScript (or PCRE) means by what Go refuses, and the RE2 way when there is one. */
function hintFor(code: string, arg: string): string | undefined {
  if (/^\(\?[=!]/.test(arg)) return 'lookahead is not supported by RE2';
  if (/^\(\?<[=!]/.test(arg)) return 'lookbehind is not supported by RE2';
  if (arg.startsWith('(?>')) return 'atomic groups are not supported by RE2';
  if (code === 'invalid nested repetition operator' && /\+$/.test(arg))
    return 'possessive quantifiers are not supported by RE2';
  if (code === 'invalid repeat count') {
    const r = /^\{(\d+)(?:,(\d*))?\}$/.exec(arg);
    if (r?.[2] && Number(r[2]) < Number(r[1])) return 'the maximum is smaller than the minimum';
    return 'RE2 allows counts of at most 1000';
  }
  if (code === 'invalid character class range') {
    if (/^\\[pP]/.test(arg))
      return 'unknown Unicode class; RE2 knows general categories and scripts such as \\pL, \\p{Greek}';
    if (/^.-.$/u.test(arg)) return 'the end comes before the start';
  }
  if (code === 'invalid escape sequence') {
    const why: Record<string, string> = {
      '\\u': "write \\x{hhhh} instead of JavaScript's \\uhhhh",
      '\\k': 'named backreferences are not supported by RE2',
      '\\c': 'control escapes are not RE2; write \\x{..}',
      '\\b': 'inside a character class JavaScript reads \\b as backspace; write \\x08',
      '\\Z': 'write \\z (end of text)',
      '\\C': 'RE2 does not match single bytes',
    };
    if (/^\\[1-9]$/.test(arg)) return 'backreferences are not supported by RE2';
    return why[arg.slice(0, 2)];
  }
  return undefined;
}

function compiledOrThrow(pattern: string): RE2JS {
  const r = compile(pattern);
  if (typeof r === 'string') throw new Error(r);
  return r;
}

const goRE2 = (r: RE2JS): GoRE2 => r.re2();

/** Go's `MatchString`: whether `pattern` matches anywhere in `s`. Throws Go's compile error. */
export function re2Matches(pattern: string, s: string): boolean {
  return goRE2(compiledOrThrow(pattern)).findIndex(s) !== null;
}

/** Go's `FindString`: the leftmost match, or '' (as CEL's `find` returns). Throws Go's compile error. */
export function re2Find(pattern: string, s: string): string {
  return goRE2(compiledOrThrow(pattern)).find(s);
}

/** Go's `FindAllString(s, n)` (n < 0: all), empty matches next to a match skipped as Go does. Throws Go's compile error. */
export function re2FindAll(pattern: string, s: string, n = -1): string[] {
  return goRE2(compiledOrThrow(pattern)).findAll(s, n) ?? [];
}
