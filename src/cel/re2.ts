/**
 * A syntax check of RE2 regular expressions as Go's `regexp.Compile` reads them (the API server
 * compiles every `pattern` of a CRD schema with it). JavaScript patterns are not RE2: this
 * catches what RE2 refuses (lookarounds, backreferences, possessive and atomic forms, `\u`
 * escapes, bad ranges, unbalanced brackets, repeat counts over 1000) with a message that says
 * why, without compiling anything. No npm package validates RE2 syntax without shipping RE2
 * itself (a native binding or a WebAssembly build), which users' projects should not carry.
 *
 * Follows golang.org/src/regexp/syntax/parse.go with the Perl flags (`regexp.Compile`).
 */

export interface RE2Problem {
  /** 0-based offset in the pattern. */
  offset: number;
  message: string;
}

const MAX_REPEAT = 1000;
const MAX_DEPTH = 1000;
const PERL_CLASSES = new Set(['d', 'D', 's', 'S', 'w', 'W']);
const POSIX_CLASSES = new Set([
  'alnum',
  'alpha',
  'ascii',
  'blank',
  'cntrl',
  'digit',
  'graph',
  'lower',
  'print',
  'punct',
  'space',
  'upper',
  'word',
  'xdigit',
]);
const SIMPLE_ESCAPES = new Set(['a', 'f', 't', 'n', 'r', 'v']);
/** Unicode general categories and scripts Go knows (the common ones; `\p{...}` names). */
const UNICODE_CATEGORIES = new Set(
  'C Cc Cf Co Cs L Ll Lm Lo Lt Lu M Mc Me Mn N Nd Nl No P Pc Pd Pe Pf Pi Po Ps S Sc Sk Sm So Z Zl Zp Zs Any'.split(' '),
);
const UNICODE_SCRIPTS = new Set(
  (
    'Adlam Ahom Anatolian_Hieroglyphs Arabic Armenian Avestan Balinese Bamum Bassa_Vah Batak Bengali Bhaiksuki Bopomofo Brahmi Braille Buginese Buhid ' +
    'Canadian_Aboriginal Carian Caucasian_Albanian Chakma Cham Cherokee Chorasmian Common Coptic Cuneiform Cypriot Cypro_Minoan Cyrillic Deseret Devanagari ' +
    'Dives_Akuru Dogra Duployan Egyptian_Hieroglyphs Elbasan Elymaic Ethiopic Georgian Glagolitic Gothic Grantha Greek Gujarati Gunjala_Gondi Gurmukhi Han ' +
    'Hangul Hanifi_Rohingya Hanunoo Hatran Hebrew Hiragana Imperial_Aramaic Inherited Inscriptional_Pahlavi Inscriptional_Parthian Javanese Kaithi Kannada ' +
    'Katakana Kawi Kayah_Li Kharoshthi Khitan_Small_Script Khmer Khojki Khudawadi Lao Latin Lepcha Limbu Linear_A Linear_B Lisu Lycian Lydian Mahajani ' +
    'Makasar Malayalam Mandaic Manichaean Marchen Masaram_Gondi Medefaidrin Meetei_Mayek Mende_Kikakui Meroitic_Cursive Meroitic_Hieroglyphs Miao Modi ' +
    'Mongolian Mro Multani Myanmar Nabataean Nag_Mundari Nandinagari New_Tai_Lue Newa Nko Nushu Nyiakeng_Puachue_Hmong Ogham Ol_Chiki Old_Hungarian ' +
    'Old_Italic Old_North_Arabian Old_Permic Old_Persian Old_Sogdian Old_South_Arabian Old_Turkic Old_Uyghur Oriya Osage Osmanya Pahawh_Hmong Palmyrene ' +
    'Pau_Cin_Hau Phags_Pa Phoenician Psalter_Pahlavi Rejang Runic Samaritan Saurashtra Sharada Shavian Siddham SignWriting Sinhala Sogdian Sora_Sompeng ' +
    'Soyombo Sundanese Syloti_Nagri Syriac Tagalog Tagbanwa Tai_Le Tai_Tham Tai_Viet Takri Tamil Tangsa Tangut Telugu Thaana Thai Tibetan Tifinagh ' +
    'Tirhuta Toto Ugaritic Vai Vithkuqi Wancho Warang_Citi Yezidi Yi Zanabazar_Square'
  ).split(' '),
);

class Fail extends Error {
  constructor(
    readonly offset: number,
    message: string,
  ) {
    super(message);
  }
}

/** Returns why RE2 (Go's regexp) refuses `pattern`, or undefined when it compiles. */
export function checkRE2(pattern: string): RE2Problem | undefined {
  try {
    new Parser(pattern).parse();
    return undefined;
  } catch (e) {
    if (e instanceof Fail) return { offset: e.offset, message: e.message };
    throw e;
  }
}

class Parser {
  private i = 0;
  constructor(private readonly s: string) {}

  parse(): void {
    this.alternation(0);
    if (this.i < this.s.length) {
      // only a stray ')' stops an alternation at depth 0
      throw new Fail(this.i, 'unexpected ): the pattern closes a group that was never opened');
    }
  }

  private peek(k = 0): string | undefined {
    return this.s[this.i + k];
  }

  /** alternation := concat ('|' concat)*; stops before ')' or at the end. */
  private alternation(depth: number): void {
    if (depth > MAX_DEPTH) throw new Fail(this.i, 'expression nests too deeply (RE2 allows 1000 levels)');
    for (;;) {
      this.concat(depth);
      if (this.peek() === '|') {
        this.i++;
        continue;
      }
      return;
    }
  }

  private concat(depth: number): void {
    /** Whether the previous item can take a repetition operator. */
    let canRepeat = false;
    /** The previous item was itself a repetition (a second operator is an error). */
    let repeated = false;
    while (this.i < this.s.length) {
      const c = this.s[this.i];
      if (c === '|' || c === ')') return;
      const start = this.i;
      if (c === '*' || c === '+' || c === '?' || (c === '{' && this.repeatCount() !== undefined)) {
        let op = c;
        if (c === '{') {
          const r = this.repeatCount()!;
          op = this.s.slice(this.i, r.end);
          if (r.min > MAX_REPEAT || (r.max !== undefined && r.max > MAX_REPEAT))
            throw new Fail(start, `invalid repeat count ${op}: RE2 allows at most ${MAX_REPEAT}`);
          if (r.max !== undefined && r.max < r.min)
            throw new Fail(start, `invalid repeat count ${op}: the maximum is smaller than the minimum`);
          this.i = r.end;
        } else this.i++;
        if (this.peek() === '?') {
          this.i++;
          op += '?';
        }
        if (!canRepeat) {
          if (repeated) {
            const next = this.s[start] === '+' ? ' (possessive quantifiers are not RE2)' : '';
            throw new Fail(start, `invalid nested repetition operator ${this.s.slice(start - 1, this.i)}${next}`);
          }
          throw new Fail(start, `missing argument to repetition operator ${op}`);
        }
        canRepeat = false;
        repeated = true;
        continue;
      }
      repeated = false;
      canRepeat = true;
      if (c === '(') this.group(depth);
      else if (c === '[') this.charClass();
      else if (c === '\\') {
        const assertion = this.escape(false);
        if (assertion) canRepeat = true; // Go allows \b* (it is pointless, not an error)
      } else if (c === '^' || c === '$') this.i++;
      else this.i++;
    }
  }

  /** `{n}`, `{n,}`, `{n,m}` at this.i; otherwise undefined (then `{` is a literal). */
  private repeatCount(): { min: number; max?: number; end: number } | undefined {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(this.s.slice(this.i));
    if (!m) return undefined;
    const min = Number(m[1]);
    const max = m[2] === undefined ? min : m[3] === '' ? undefined : Number(m[3]);
    return { min, max, end: this.i + m[0].length };
  }

  private group(depth: number): void {
    const start = this.i;
    this.i++; // (
    if (this.peek() === '?') {
      const rest = this.s.slice(this.i + 1);
      if (rest.startsWith('=') || rest.startsWith('!'))
        throw new Fail(start, `lookahead (?${rest[0]} is not supported by RE2`);
      if (rest.startsWith('<=') || rest.startsWith('<!'))
        throw new Fail(start, `lookbehind (?${rest.slice(0, 2)} is not supported by RE2`);
      if (rest.startsWith('>')) throw new Fail(start, 'atomic groups (?> are not supported by RE2');
      const named = /^(P<|<)([^>]*)>/.exec(rest);
      if (named || rest.startsWith('P<') || rest.startsWith('<')) {
        if (!named) throw new Fail(start, 'invalid named capture: missing >');
        const name = named[2];
        // (?<name>...) is (?P<name>...) since Go 1.22, which builds every API server kubeforge targets (1.35+).
        if (!/^\w+$/.test(name))
          throw new Fail(start, `invalid named capture (?P<${name}>: names are letters, digits and _`);
        // Go takes a name used twice ((?P<x>a)(?P<x>b)): SubexpIndex answers the leftmost.
        this.i += 1 + named[0].length;
      } else {
        // flags: (?flags) or (?flags:re), flags from imsU with at most one '-'
        const fm = /^([imsU]*)(-([imsU]*))?([:)])/.exec(rest);
        if (!fm) {
          const bad = rest[0] === undefined ? 'the end of the pattern' : `'${rest[0]}'`;
          throw new Fail(
            start,
            `invalid or unsupported Perl syntax (?${rest.slice(0, 1)}: RE2 groups are (?:...), (?P<name>...) and flags (?i) (found ${bad})`,
          );
        }
        if (fm[2] !== undefined && fm[3] === '')
          throw new Fail(start, 'invalid or unsupported Perl syntax: a flag group with - names no flags after it');
        if (fm[1] === '' && fm[2] === undefined && fm[4] === ')') throw new Fail(start, 'missing flags in (?)');
        this.i += 1 + fm[0].length;
        if (fm[4] === ')') return; // (?i): sets flags, no group
      }
    }
    this.alternation(depth + 1);
    if (this.peek() !== ')') throw new Fail(start, 'missing closing ) for the group opened here');
    this.i++;
  }

  private charClass(): void {
    const start = this.i;
    this.i++; // [
    if (this.peek() === '^') this.i++;
    let first = true;
    while (this.i < this.s.length && (this.peek() !== ']' || first)) {
      // POSIX class [:alpha:]
      if (this.peek() === '[' && this.peek(1) === ':') {
        const m = /^\[:(\^?)([a-z]+):\]/.exec(this.s.slice(this.i));
        if (m) {
          if (!POSIX_CLASSES.has(m[2])) throw new Fail(this.i, `invalid character class range [:${m[2]}:]`);
          this.i += m[0].length;
          first = false;
          continue;
        }
      }
      first = false;
      const lo = this.classChar();
      if (this.peek() === '-' && this.peek(1) !== ']' && this.peek(1) !== undefined) {
        const dash = this.i;
        this.i++;
        const hi = this.classChar();
        if (lo === undefined || hi === undefined)
          throw new Fail(
            dash,
            `invalid character class range ${this.s.slice(dash - 1, this.i)}: a range cannot start or end at a class such as \\d`,
          );
        if (hi < lo)
          throw new Fail(
            dash,
            `invalid character class range ${this.s.slice(dash - 1 - (lo > 0xffff ? 1 : 0), this.i)}: the end comes before the start`,
          );
      }
    }
    if (this.peek() !== ']') throw new Fail(start, 'missing closing ] for the character class opened here');
    this.i++;
  }

  /** One class member; returns its code point, or undefined for \d-like classes. */
  private classChar(): number | undefined {
    if (this.peek() === '\\') return this.escape(true);
    const cp = this.s.codePointAt(this.i)!;
    this.i += cp > 0xffff ? 2 : 1;
    return cp;
  }

  /**
   * An escape at this.i. In a class, returns its code point (undefined for a class escape);
   * outside, returns true for assertions (\b \B \A \z), which cannot be ranges.
   */
  private escape(inClass: true): number | undefined;
  private escape(inClass: false): boolean | number | undefined;
  private escape(inClass: boolean): boolean | number | undefined {
    const start = this.i;
    this.i++; // backslash
    const c = this.peek();
    if (c === undefined) throw new Fail(start, 'trailing backslash at end of expression');
    this.i++;
    if (!inClass && (c === 'b' || c === 'B' || c === 'A' || c === 'z')) return true;
    if (!inClass && c === 'Q') {
      const end = this.s.indexOf('\\E', this.i);
      this.i = end < 0 ? this.s.length : end + 2;
      return undefined;
    }
    if (!inClass && c === 'C') throw new Fail(start, 'invalid escape sequence \\C (RE2 does not match single bytes)');
    if (PERL_CLASSES.has(c)) return undefined;
    if (c === 'p' || c === 'P') {
      let name: string;
      if (this.peek() === '{') {
        const end = this.s.indexOf('}', this.i);
        if (end < 0) throw new Fail(start, `invalid character class range \\${c}{: missing }`);
        name = this.s.slice(this.i + 1, end);
        this.i = end + 1;
      } else {
        if (this.peek() === undefined) throw new Fail(start, `invalid character class range \\${c}`);
        name = this.peek()!;
        this.i++;
      }
      const bare = name.startsWith('^') ? name.slice(1) : name;
      if (!UNICODE_CATEGORIES.has(bare) && !UNICODE_SCRIPTS.has(bare)) {
        const js = /[=]/.test(bare) ? " (JavaScript's \\p{Name=Value} form is not RE2)" : '';
        throw new Fail(start, `invalid character class range \\${c}{${name}}: unknown Unicode class${js}`);
      }
      return undefined;
    }
    if (c >= '1' && c <= '9' && !/[0-7]/.test(this.peek() ?? '')) {
      // Go: a lone \1-\9 is a backreference, which RE2 does not support
      throw new Fail(start, `invalid escape sequence \\${c}: backreferences are not supported by RE2`);
    }
    if (c >= '0' && c <= '7') {
      // octal: \0, \01, \012, \12 (up to 3 digits)
      let v = Number(c);
      for (let k = 0; k < 2 && /[0-7]/.test(this.peek() ?? ''); k++) {
        v = v * 8 + Number(this.peek());
        this.i++;
      }
      return v;
    }
    if (c === '8' || c === '9') throw new Fail(start, `invalid escape sequence \\${c}`);
    if (c === 'x') {
      if (this.peek() === '{') {
        const m = /^\{([0-9A-Fa-f]+)\}/.exec(this.s.slice(this.i));
        if (!m) throw new Fail(start, 'invalid escape sequence \\x{: write \\x{hex digits}');
        const v = parseInt(m[1], 16);
        if (v > 0x10ffff) throw new Fail(start, `invalid escape sequence \\x{${m[1]}}: beyond Unicode`);
        this.i += m[0].length;
        return v;
      }
      const m = /^[0-9A-Fa-f]{2}/.exec(this.s.slice(this.i));
      if (!m) throw new Fail(start, 'invalid escape sequence \\x: write two hex digits (\\x41) or \\x{...}');
      this.i += 2;
      return parseInt(m[0], 16);
    }
    if (SIMPLE_ESCAPES.has(c)) return { a: 7, f: 12, t: 9, n: 10, r: 13, v: 11 }[c as 'a'];
    // Punctuation may always be escaped.
    if (c.charCodeAt(0) < 0x80 && !/[A-Za-z0-9_]/.test(c)) return c.charCodeAt(0);
    const why: Record<string, string> = {
      u: ": write \\x{hhhh} instead of JavaScript's \\uhhhh",
      k: ': named backreferences are not supported by RE2',
      c: ': control escapes (\\cX) are not RE2; write \\x{..}',
      b: ' inside a character class (JavaScript reads it as backspace; write \\x08)',
      B: ' inside a character class',
      e: ': write \\x1b',
      Z: ': write \\z (end of text)',
      G: ': \\G is not supported by RE2',
      h: ': write [\\t ] (horizontal space)',
      R: ': write \\r?\\n',
      X: ': grapheme clusters are not supported by RE2',
    };
    throw new Fail(start, `invalid escape sequence \\${c}${why[c] ?? ''}`);
  }
}
