/**
 * `kubeforge manifests --max-desc-len <n>`: controller-gen's `crd:maxDescLen`, with the semantics
 * of controller-tools' TruncateDescription (pkg/crd/desc_visitor.go), applied to every schema node
 * of each CRD version (properties, items, additionalProperties, allOf / anyOf / oneOf / not, ...):
 *
 * - 0 drops every description;
 * - n keeps a description of at most n bytes (UTF-8, as Go's len) as it is; a longer one is cut to
 *   its first n bytes, then at the last sentence terminal (Unicode STerm: `.`, `!`, `?`, ...) after
 *   the first byte, kept; else at the last white space after the first byte, followed by `...`;
 *   else the n bytes followed by `...`.
 *
 * Go cuts bytes, so a cut inside a multi-byte character leaves invalid UTF-8 that Go's JSON
 * encoder (and so controller-gen's YAML) writes as U+FFFD, one per stray byte: the same is done
 * here, so the bytes match controller-gen's.
 *
 * The schemas of embedded Kubernetes types are deep-frozen trees shared between fields and CRDs
 * (schema/k8s): they are never written to. A changed node is a copy; a subtree without a change is
 * kept as it is (the same object, so the YAML writer still shares its text); a frozen subtree is
 * copied once per run and its copy frozen and reused.
 */
import type { JSONSchemaProps } from '../schema/jsonschema.js';
import { copyOrigins } from '../schema/origin.js';

/**
 * The child schemas of a node, by JSONSchemaProps' keys. controller-tools' schemaWalker also
 * visits patternProperties, definitions, dependencies and additionalItems: a generated schema
 * never has them (structural schemas do not allow them).
 */
const SINGLE = ['items', 'not'] as const;
const LISTS = ['allOf', 'oneOf', 'anyOf'] as const;

const STERM = /\p{Sentence_Terminal}/u;
const WHITE = /\p{White_Space}/u;

/** Go's utf8.DecodeRune over a byte buffer: the runes and where each starts (an invalid byte is U+FFFD, one byte wide). */
function decodeRunes(b: Buffer): { start: number; rune: number; width: number }[] {
  const out: { start: number; rune: number; width: number }[] = [];
  for (let i = 0; i < b.length; ) {
    const c = b[i];
    let width = 1;
    let rune = 0xfffd;
    const cont = (k: number) => i + k < b.length && (b[i + k] & 0xc0) === 0x80;
    if (c < 0x80) rune = c;
    else if (c >= 0xc2 && c <= 0xdf && cont(1)) [rune, width] = [((c & 0x1f) << 6) | (b[i + 1] & 0x3f), 2];
    else if (c >= 0xe0 && c <= 0xef && cont(1) && cont(2)) {
      const r = ((c & 0x0f) << 12) | ((b[i + 1] & 0x3f) << 6) | (b[i + 2] & 0x3f);
      if (r >= 0x800 && (r < 0xd800 || r > 0xdfff)) [rune, width] = [r, 3];
    } else if (c >= 0xf0 && c <= 0xf4 && cont(1) && cont(2) && cont(3)) {
      const r = ((c & 0x07) << 18) | ((b[i + 1] & 0x3f) << 12) | ((b[i + 2] & 0x3f) << 6) | (b[i + 3] & 0x3f);
      if (r >= 0x10000 && r <= 0x10ffff) [rune, width] = [r, 4];
    }
    out.push({ start: i, rune, width });
    i += width;
  }
  return out;
}

/** The bytes as Go's encoding/json writes them: valid UTF-8 kept, each invalid byte U+FFFD. */
function goString(b: Buffer): string {
  return decodeRunes(b)
    .map((r) => String.fromCodePoint(r.rune))
    .join('');
}

/** controller-tools' truncateString: `desc` cut to at most `maxLen` bytes at a sentence or word boundary. */
export function truncateDescription(desc: string, maxLen: number): string {
  const bytes = Buffer.from(desc, 'utf8');
  if (bytes.length <= maxLen) return desc;
  const cut = bytes.subarray(0, maxLen);
  const runes = decodeRunes(cut);
  const last = (test: RegExp) => {
    for (let i = runes.length - 1; i >= 0; i--)
      if (test.test(String.fromCodePoint(runes[i].rune))) return runes[i].start;
    return -1;
  };
  const sentence = last(STERM);
  // Go keeps desc[0:n+1]: the terminal's first byte (all of it for the ASCII ones).
  if (sentence > 0) return goString(cut.subarray(0, sentence + 1));
  const space = last(WHITE);
  if (space > 0) return `${goString(cut.subarray(0, space))}...`;
  return `${goString(cut)}...`;
}

/**
 * The schema with every description truncated to `maxLen` (0: removed). Returns `schema` itself
 * when nothing changes. `memo` carries the copies of frozen subtrees through one run. A copy keeps
 * the origin of the node it copies (the CRD check locates errors by it, schema/origin.ts).
 */
export function truncateSchemaDescriptions(
  schema: JSONSchemaProps,
  maxLen: number,
  memo: WeakMap<JSONSchemaProps, JSONSchemaProps> = new WeakMap(),
): JSONSchemaProps {
  if (maxLen < 0) return schema;
  const known = memo.get(schema);
  if (known) return known;
  let out: JSONSchemaProps | undefined;
  const changed = () => (out ??= copyOrigins(schema, { ...schema }));
  if (typeof schema.description === 'string') {
    const d = maxLen === 0 ? undefined : truncateDescription(schema.description, maxLen);
    if (d !== schema.description) {
      if (d === undefined || d === '') delete changed().description;
      else changed().description = d;
    }
  }
  const walk = (child: JSONSchemaProps) => truncateSchemaDescriptions(child, maxLen, memo);
  for (const key of SINGLE) {
    const child = schema[key];
    if (child === undefined) continue;
    const next = walk(child);
    if (next !== child) changed()[key] = next;
  }
  const additional = schema.additionalProperties;
  if (additional !== undefined && typeof additional !== 'boolean') {
    const next = walk(additional);
    if (next !== additional) changed().additionalProperties = next;
  }
  for (const key of LISTS) {
    const list = schema[key];
    if (list === undefined) continue;
    const next = list.map(walk);
    if (next.some((n, i) => n !== list[i])) changed()[key] = next;
  }
  const properties = schema.properties;
  if (properties !== undefined) {
    let copy: Record<string, JSONSchemaProps> | undefined;
    for (const [name, child] of Object.entries(properties)) {
      const next = walk(child);
      if (next !== child) {
        copy ??= { ...properties };
        copy[name] = next;
      }
    }
    if (copy) changed().properties = copy;
  }
  const result = out ?? schema;
  if (out && Object.isFrozen(schema)) Object.freeze(out);
  memo.set(schema, result);
  return result;
}
