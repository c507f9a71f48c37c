/**
 * apimachinery's string validators, byte for byte: DNS-1123 labels and subdomains, DNS-1035
 * labels (`k8s.io/apimachinery/pkg/util/validation`), qualified names (label keys) and label values
 * (`.../api/validate/content`). The Kubernetes CEL library's `format.*` calls them, so they live in
 * this package; kubeforge's util/apimachinery/validation.ts re-exports them (one implementation:
 * its ObjectMeta and label-selector checks, the fake API server and kubeforge/runtime call these).
 * Lengths count UTF-8 bytes, as Go's `len` does. Imports nothing.
 */
/** UTF-8 length of a string (Go's `len`); a lone surrogate counts as U+FFFD (3 bytes). */
export function byteLength(s: string): number {
  let n = 0;
  for (const ch of s) {
    const c = ch.codePointAt(0) ?? 0; // ch is one code point, never empty
    n += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
  }
  return n;
}

/** apimachinery's RegexError: the message, the examples, and the expression. */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (!examples.length) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

/** util/validation's MaxLenError (`characters`); api/validate/content says `bytes`. */
const maxLenError = (n: number, unit: 'characters' | 'bytes' = 'characters') => `must be no more than ${n} ${unit}`;

export const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
export const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
export const DNS1035_LABEL_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
export const LABEL_KEY_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
export const LABEL_VALUE_FMT = `(${LABEL_KEY_FMT})?`;
const full = (fmt: string) => new RegExp(`^${fmt}$`);
const DNS1123_LABEL = full(DNS1123_LABEL_FMT);
const DNS1123_SUBDOMAIN = full(DNS1123_SUBDOMAIN_FMT);
const DNS1035_LABEL = full(DNS1035_LABEL_FMT);
const LABEL_KEY = full(LABEL_KEY_FMT);
const LABEL_VALUE = full(LABEL_VALUE_FMT);

const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1035_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const LABEL_KEY_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/** The longest DNS-1123 label (and DNS-1035 label, label value, label key name part). */
export const DNS1123_LABEL_MAX_LENGTH = 63;
/** The longest DNS-1123 subdomain (an object name). */
export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;

/**
 * `validation.IsDNS1123Label`: a lowercase RFC 1123 label (a Namespace's name). The messages of
 * what is wrong; empty when valid.
 */
export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1123_LABEL_MAX_LENGTH));
  if (!DNS1123_LABEL.test(value))
    errs.push(
      DNS1123_SUBDOMAIN.test(value)
        ? 'must not contain dots'
        : regexError(LABEL_MSG, DNS1123_LABEL_FMT, 'my-name', '123-abc'),
    );
  return errs;
}

/**
 * `validation.IsDNS1123Subdomain` (most objects' names); `unit` `bytes` is the newer
 * api/validate/content's wording (qualified-name prefixes, CEL's `format.dns1123Subdomain`).
 */
export function isDNS1123Subdomain(value: string, unit: 'characters' | 'bytes' = 'characters'): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH, unit));
  if (!DNS1123_SUBDOMAIN.test(value)) errs.push(regexError(SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, 'example.com'));
  return errs;
}

/** `validation.IsDNS1035Label` (a Service's name). */
export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1123_LABEL_MAX_LENGTH));
  if (!DNS1035_LABEL.test(value)) errs.push(regexError(DNS1035_MSG, DNS1035_LABEL_FMT, 'my-name', 'abc-123'));
  return errs;
}

/**
 * `validation.IsQualifiedName` (content.IsLabelKey): a label key, an annotation key (lower-cased
 * first), a finalizer: `name` or `prefix/name`, the prefix a DNS-1123 subdomain.
 */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) name = parts[0];
  else if (parts.length === 2) {
    name = parts[1];
    if (!parts[0].length) errs.push('prefix part must be non-empty');
    else errs.push(...isDNS1123Subdomain(parts[0], 'bytes').map((m) => `prefix part ${m}`));
  } else
    return [
      `a valid label key ${regexError(LABEL_KEY_MSG, LABEL_KEY_FMT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  if (!name.length) errs.push('name part must be non-empty');
  else if (byteLength(name) > DNS1123_LABEL_MAX_LENGTH)
    errs.push(`name part ${maxLenError(DNS1123_LABEL_MAX_LENGTH, 'bytes')}`);
  if (!LABEL_KEY.test(name))
    errs.push(`name part ${regexError(LABEL_KEY_MSG, LABEL_KEY_FMT, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

/** `validation.IsValidLabelValue` (content.IsLabelValue): empty, or at most 63 bytes of `[-A-Za-z0-9_.]`. */
export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1123_LABEL_MAX_LENGTH, 'bytes'));
  if (!LABEL_VALUE.test(value)) errs.push(regexError(LABEL_VALUE_MSG, LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'));
  return errs;
}
