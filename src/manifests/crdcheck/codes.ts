/**
 * The codes of the CRD check (KF46xx). Each generated CRD is checked against the API server's
 * own rules before anything is written; every violation is an error located at the marker or
 * field that caused it. README.md ("What manifests checks before it writes") lists them.
 */
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
} as const;

/** One line of help per code (README.md renders the same list). */
export const CODE_HELP: Record<string, string> = {
  KF4601: 'a resource name (plural, singular, short name, category) is not a lower-case DNS-1035 label, or a Kind / list Kind is not one when lower-cased',
  KF4602: 'the group is not a DNS subdomain with at least one dot, or is a protected *.k8s.io / *.kubernetes.io group',
  KF4603: 'the schema is not structural: a node without a type, an empty schema (@Schemaless() alone), uniqueItems, properties beside additionalProperties, metadata restrictions, x-kubernetes-* combinations',
  KF4604: "@ListType / @ListMapKey / @MapType misuse: 'set' on objects, 'map' without keys or on scalars, keys that are optional without a default, nullable, or not scalar",
  KF4605: '@Pattern is not valid RE2: lookarounds, backreferences, possessive or atomic forms, \\u escapes, bad ranges or brackets',
  KF4606: '@Default does not validate against the field (wrong type, enum, bounds, pattern, missing required fields) or has fields the type does not declare',
  KF4607: '@Minimum above @Maximum, @MinLength above @MaxLength, @MinItems above @MaxItems, @MinProperties above @MaxProperties, negative counts, @MultipleOf not positive',
  KF4608: '@SubresourceScale paths not under .spec / .status or not integer fields of the schema; a root schema with more than the status subresource allows',
  KF4609: '@PrintColumn / @SelectableField: JSON paths, formats and selectable field types',
  KF4610: '@Metadata label and annotation keys and values, @DeprecatedVersion warnings, @ConversionWebhook service settings',
  KF4611: '@XValidation / @Immutable rules a current server refuses before compiling them: empty rule or message, multi-line rule without message, unknown reason, bad fieldPath, oldSelf where values do not correlate',
};
