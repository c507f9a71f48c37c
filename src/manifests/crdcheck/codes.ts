/**
 * The codes of the CRD check (KF46xx). Each generated CRD is checked against the API server's
 * own rules before anything is written; every violation is an error located at the marker or
 * field that caused it. docs/manifests.md ("What manifests checks before it writes") lists them.
 */
import { DIAGNOSTIC_CODES } from '../../diagnostics/codes.js';

export const CODES = {
  /** Resource names: plural, singular, short names, categories, Kind and list Kind. */
  names: 'KF4601',
  /** The API group: a DNS subdomain with at least one dot, not a protected Kubernetes group. */
  group: 'KF4602',
  /** Structural schema rules: types everywhere, no empty schemas, metadata, x-kubernetes-* combinations, uniqueItems. */
  structural: 'KF4603',
  /** List and map types: set items, map keys (required or defaulted scalars), map-type targets. */
  listType: 'KF4604',
  /** A pattern that is not RE2 (the API server compiles patterns with Go's regexp). */
  pattern: 'KF4605',
  /** A default that does not validate against its schema or would be pruned. */
  default: 'KF4606',
  /** Contradictory or impossible bounds: minimum above maximum, negative lengths, multipleOf <= 0. */
  bounds: 'KF4607',
  /** Subresources: scale paths, and what the root schema may hold with the status subresource. */
  status: 'KF4608',
  /** Printer columns and selectable fields. */
  columns: 'KF4609',
  /** The CRD's own metadata (@Metadata labels and annotations), version deprecation warnings, conversion webhooks. */
  metadata: 'KF4610',
  /** x-kubernetes-validations that the server refuses without evaluating them (empty rule, bad reason, fieldPath). */
  cel: 'KF4611',
  /** A CEL rule that does not compile against its schema (./cel.ts). */
  celRule: 'KF4612',
  /** A messageExpression that does not compile or is not a string (./cel.ts). */
  celMessage: 'KF4613',
  /** An error: a rule's estimated cost exceeds the API server's budget, which refuses the CRD (./cel.ts). */
  celCost: 'KF4614',
  /** A warning: a format the API server does not recognise for the node's type (it warns `unrecognized format`). */
  format: 'KF4615',
} as const;

/** One line of help per code, from the catalogue of every code (src/diagnostics/codes.ts). */
export const CODE_HELP: Record<string, string> = Object.fromEntries(
  DIAGNOSTIC_CODES.filter((d) => /^KF46\d\d$/.test(d.code)).map((d) => [
    d.code,
    d.summary.replace(/^The CRD check: /, ''),
  ]),
);
