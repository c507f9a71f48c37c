/**
 * apimachinery's validation helpers and their messages, byte for byte: DNS-1123 labels and
 * subdomains, DNS-1035 labels (`k8s.io/apimachinery/pkg/util/validation`), qualified names (label
 * keys) and label values (`.../api/validate/content`), and the ObjectMeta and label-selector
 * checks of `.../api/validation` and `.../apis/meta/v1/validation`. The one implementation of
 * these rules in kubeforge: the CEL library's `format.*`, the fake API server's ObjectMeta
 * checks and kubeforge/runtime's webhook helpers all call these. The string validators live in
 * @kubeforge/cel/apimachinery (`#cel/apimachinery`; CEL's format library calls them) and are re-exported here. Lengths
 * count UTF-8 bytes, as Go's `len` does. Imports only its sibling field.ts and that entry.
 */
import { byteLength, isQualifiedName, isValidLabelValue } from '#cel/apimachinery';
import { type ErrorList, type PathLike, field } from './field.js';
export {
  byteLength,
  DNS1035_LABEL_FMT,
  DNS1123_LABEL_FMT,
  DNS1123_LABEL_MAX_LENGTH,
  DNS1123_SUBDOMAIN_FMT,
  DNS1123_SUBDOMAIN_MAX_LENGTH,
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  LABEL_KEY_FMT,
  LABEL_VALUE_FMT,
  regexError,
} from '#cel/apimachinery';

/** The most bytes all annotations of an object may hold together (keys and values). */
export const TOTAL_ANNOTATION_SIZE_LIMIT_B = 256 * 1024;

/** metav1 validation's `ValidateLabelName`: one FieldValueInvalid per message of isQualifiedName. */
export function validateLabelName(labelName: string, fldPath: PathLike): ErrorList {
  return isQualifiedName(labelName).map((msg) => field.invalid(fldPath, labelName, msg));
}

/** Keys of a map in Go's byte order (kubeforge's order; Go's map order is random). */
const sortedKeys = (m: Readonly<Record<string, string>>) => Object.keys(m).sort(compareBytes);

/** Compares two strings in UTF-8 byte order (Go's `<` on strings), which is code point order. */
export function compareBytes(a: string, b: string): number {
  if (a === b) return 0;
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done) return y.done ? 0 : -1;
    if (y.done) return 1;
    const d = (x.value.codePointAt(0) ?? 0) - (y.value.codePointAt(0) ?? 0);
    if (d) return d < 0 ? -1 : 1;
  }
}

/** metav1 validation's `ValidateLabels`: every key a qualified name, every value a label value (keys in byte order). */
export function validateLabels(
  labels: Readonly<Record<string, string>> | undefined | null,
  fldPath: PathLike,
): ErrorList {
  const errs: ErrorList = [];
  if (!labels) return errs;
  for (const k of sortedKeys(labels)) {
    errs.push(...validateLabelName(k, fldPath));
    for (const msg of isValidLabelValue(labels[k])) errs.push(field.invalid(fldPath, labels[k], msg));
  }
  return errs;
}

/**
 * api/validation's `ValidateAnnotations`: each key a qualified name once lower-cased, and all
 * keys and values together at most 256 KiB (FieldValueTooLong).
 */
export function validateAnnotations(
  annotations: Readonly<Record<string, string>> | undefined | null,
  fldPath: PathLike,
): ErrorList {
  const errs: ErrorList = [];
  if (!annotations) return errs;
  let size = 0;
  for (const k of sortedKeys(annotations)) {
    for (const msg of isQualifiedName(k.toLowerCase())) errs.push(field.invalid(fldPath, k, msg));
    size += byteLength(k) + byteLength(String(annotations[k]));
  }
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT_B) errs.push(field.tooLong(fldPath, '', TOTAL_ANNOTATION_SIZE_LIMIT_B));
  return errs;
}

/** A metav1.LabelSelector as JSON has it (client-node's V1LabelSelector fits). */
export interface LabelSelectorLike {
  matchLabels?: Readonly<Record<string, string>> | null;
  matchExpressions?: readonly LabelSelectorRequirementLike[] | null;
}

/** A metav1.LabelSelectorRequirement (`operator`: In, NotIn, Exists, DoesNotExist). */
export interface LabelSelectorRequirementLike {
  key: string;
  operator: string;
  values?: readonly string[] | null;
}

/** metav1 validation's LabelSelectorValidationOptions. */
export interface LabelSelectorValidationOptions {
  /** Accept values that are not valid label values (for data stored before the check). */
  allowInvalidLabelValueInSelector?: boolean;
  /** Accept an operator that is not In, NotIn, Exists or DoesNotExist. */
  allowUnknownOperatorInRequirement?: boolean;
}

/**
 * metav1 validation's `ValidateLabelSelector`: matchLabels as labels, each expression's operator,
 * values and key, under `fldPath` (`spec.selector`). Empty when valid or absent.
 */
export function validateLabelSelector(
  ps: LabelSelectorLike | undefined | null,
  fldPath: PathLike,
  opts: LabelSelectorValidationOptions = {},
): ErrorList {
  const errs: ErrorList = [];
  if (!ps) return errs;
  const path = typeof fldPath === 'string' ? undefined : fldPath;
  const at = (child: string) => (path ? path.child(child) : `${fldPath}.${child}`);
  errs.push(...validateLabels(ps.matchLabels, at('matchLabels')));
  (ps.matchExpressions ?? []).forEach((expr, i) => {
    const exprPath = path ? path.child('matchExpressions').index(i) : `${fldPath}.matchExpressions[${i}]`;
    errs.push(...validateLabelSelectorRequirement(expr, exprPath, opts));
  });
  return errs;
}

/** metav1 validation's `ValidateLabelSelectorRequirement`. */
export function validateLabelSelectorRequirement(
  sr: LabelSelectorRequirementLike,
  fldPath: PathLike,
  opts: LabelSelectorValidationOptions = {},
): ErrorList {
  const errs: ErrorList = [];
  const at = (child: string) => (typeof fldPath === 'string' ? `${fldPath}.${child}` : fldPath.child(child));
  const values = sr.values ?? [];
  switch (sr.operator) {
    case 'In':
    case 'NotIn':
      if (values.length === 0)
        errs.push(field.required(at('values'), "must be specified when `operator` is 'In' or 'NotIn'"));
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length > 0)
        errs.push(field.forbidden(at('values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      break;
    default:
      // The operator is a named string type in Go, so the message prints it as JSON, not %q.
      if (!opts.allowUnknownOperatorInRequirement)
        errs.push(field.invalid(at('operator'), Object(sr.operator), 'not a valid selector operator'));
  }
  errs.push(...validateLabelName(sr.key, at('key')));
  if (!opts.allowInvalidLabelValueInSelector)
    values.forEach((value, i) => {
      const p = typeof fldPath === 'string' ? `${fldPath}.values[${i}]` : fldPath.child('values').index(i);
      for (const msg of isValidLabelValue(value)) errs.push(field.invalid(p, value, msg));
    });
  return errs;
}
