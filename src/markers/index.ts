// kubeforge/markers: the decorators users put on their API types, reconcilers and webhooks.
//
// Every decorator here is a TypeScript 5 standard decorator that does nothing at run time:
// `kubeforge manifests` reads them statically (see src/markers/definitions.ts for the table
// they mirror, and docs/MARKERS.md for the contract). This module imports nothing, so an
// operator that loads it pulls in no dependency.

/** A decorator usable on a class field. */
export type FieldDecorator = (value: undefined, context: ClassFieldDecoratorContext) => void;
/** A decorator usable on a class. */
export type ClassMarker = (value: abstract new (...args: never[]) => unknown, context: ClassDecoratorContext) => void;
/** A decorator usable on a class field or on a class (a type-level marker). */
export type FieldOrClassDecorator = (value: unknown, context: ClassFieldDecoratorContext | ClassDecoratorContext) => void;

const noop = (): void => undefined;

// ---------------------------------------------------------------------------------------
// Type aliases with a schema of their own

/** A 32-bit integer: `type: integer`, `format: int32`. */
export type int32 = number;
/** A 64-bit integer: `type: integer`, `format: int64`. */
export type int64 = number;
/** A Kubernetes resource quantity (`500m`, `1Gi`, `2`): controller-gen's Quantity schema. */
export type Quantity = string | number;
/** An integer or a string (`x-kubernetes-int-or-string`). Also a decorator, `@IntOrString()`. */
export type IntOrString = number | string;
/** A Go duration string (`1h30m`): `type: string`. */
export type Duration = string;
/** An RFC 3339 timestamp: `type: string`, `format: date-time`. */
export type Time = string;
/** An RFC 3339 timestamp with microseconds: `type: string`, `format: date-time`. */
export type MicroTime = string;

// ---------------------------------------------------------------------------------------
// Group and version (groupversion.ts)

export interface GroupVersionOptions {
  /** API group (`+groupName`), e.g. `batch.tutorial.kubebuilder.io`. */
  group: string;
  /** API version (`+versionName`), e.g. `v1`. */
  version: string;
  /** Fields without `?` are optional too (package-level `+kubebuilder:validation:Optional`). */
  fieldsOptionalByDefault?: boolean;
  /** Generate nothing for this group-version (`+kubebuilder:skip`). */
  skip?: boolean;
}

/** Declares the group-version of the API types in this directory. Returns its options, frozen. */
export function defineGroupVersion<const T extends GroupVersionOptions>(options: T): Readonly<T> {
  return Object.freeze({ ...options });
}

// ---------------------------------------------------------------------------------------
// Kind-level markers

/** `+kubebuilder:object:root=true`: a root type; with a `metadata` field it is a Kind. */
export function Root(): ClassMarker {
  return noop;
}
export interface ResourceOptions {
  path?: string;
  shortName?: string[];
  categories?: string[];
  singular?: string;
  scope?: 'Namespaced' | 'Cluster';
}
/** `+kubebuilder:resource`: resource names and scope. */
export function Resource(_options: ResourceOptions): ClassMarker {
  return noop;
}
/** `+kubebuilder:subresource:status`. */
export function SubresourceStatus(): ClassMarker {
  return noop;
}
/** `+kubebuilder:subresource:scale`. */
export function SubresourceScale(_options: { specpath: string; statuspath: string; selectorpath?: string }): ClassMarker {
  return noop;
}
export interface PrintColumnOptions {
  name: string;
  type: 'integer' | 'number' | 'string' | 'boolean' | 'date';
  jsonPath: string;
  description?: string;
  format?: string;
  priority?: number;
}
/** `+kubebuilder:printcolumn` (repeatable). */
export function PrintColumn(_options: PrintColumnOptions): ClassMarker {
  return noop;
}
/** `+kubebuilder:storageversion`. */
export function StorageVersion(): ClassMarker {
  return noop;
}
/** `+kubebuilder:unservedversion`. */
export function UnservedVersion(): ClassMarker {
  return noop;
}
/** `+kubebuilder:deprecatedversion`. */
export function DeprecatedVersion(_options?: { warning?: string }): ClassMarker {
  return noop;
}
/** `+kubebuilder:skipversion`. */
export function SkipVersion(): ClassMarker {
  return noop;
}
/** `+kubebuilder:metadata`: annotations and labels of the generated CRD. */
export function Metadata(_options: { annotations?: Record<string, string>; labels?: Record<string, string> }): ClassMarker {
  return noop;
}
/** `+kubebuilder:selectablefield` (repeatable). */
export function SelectableField(_options: { jsonPath: string }): ClassMarker {
  return noop;
}
/** `+kubebuilder:externalDocs` (on Kinds, types and fields). */
export function ExternalDocs(_options: { url: string; description?: string }): FieldOrClassDecorator {
  return noop;
}
export interface ConversionWebhookOptions {
  serviceName?: string;
  serviceNamespace?: string;
  path?: string;
  servicePort?: number;
  conversionReviewVersions?: string[];
}
/** The Kind converts between versions through a webhook (`spec.conversion.strategy: Webhook`). */
export function ConversionWebhook(_options?: ConversionWebhookOptions): ClassMarker {
  return noop;
}

// ---------------------------------------------------------------------------------------
// Validation markers (fields and types)

export function Maximum(_n: number): FieldOrClassDecorator {
  return noop;
}
export function Minimum(_n: number): FieldOrClassDecorator {
  return noop;
}
export function ExclusiveMaximum(): FieldOrClassDecorator {
  return noop;
}
export function ExclusiveMinimum(): FieldOrClassDecorator {
  return noop;
}
export function MultipleOf(_n: number): FieldOrClassDecorator {
  return noop;
}
export function MinLength(_n: number): FieldOrClassDecorator {
  return noop;
}
export function MaxLength(_n: number): FieldOrClassDecorator {
  return noop;
}
export function Pattern(_re: string | RegExp): FieldOrClassDecorator {
  return noop;
}
export function MinItems(_n: number): FieldOrClassDecorator {
  return noop;
}
export function MaxItems(_n: number): FieldOrClassDecorator {
  return noop;
}
export function UniqueItems(): FieldOrClassDecorator {
  return noop;
}
export function MinProperties(_n: number): FieldOrClassDecorator {
  return noop;
}
export function MaxProperties(_n: number): FieldOrClassDecorator {
  return noop;
}
export function Enum(..._values: unknown[]): FieldOrClassDecorator {
  return noop;
}
export function Format(_format: string): FieldOrClassDecorator {
  return noop;
}
export function Type(_type: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean'): FieldOrClassDecorator {
  return noop;
}
export interface XValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate';
  fieldPath?: string;
  optionalOldSelf?: boolean;
}
export function XValidation(_rule: XValidationRule): FieldOrClassDecorator {
  return noop;
}
export function PreserveUnknownFields(): FieldOrClassDecorator {
  return noop;
}
export function EmbeddedResource(): FieldOrClassDecorator {
  return noop;
}
export function IntOrString(): FieldOrClassDecorator {
  return noop;
}
export function Schemaless(): FieldDecorator {
  return noop;
}
export function Title(_title: string): FieldOrClassDecorator {
  return noop;
}

/** `+kubebuilder:validation:items:<X>`: validations of an array's items. */
export const Items = {
  Maximum,
  Minimum,
  ExclusiveMaximum,
  ExclusiveMinimum,
  MultipleOf,
  MinLength,
  MaxLength,
  Pattern,
  MinItems,
  MaxItems,
  UniqueItems,
  MinProperties,
  MaxProperties,
  Enum,
  Format,
  Type,
  XValidation,
  PreserveUnknownFields,
  EmbeddedResource,
  IntOrString,
} as const;

// ---------------------------------------------------------------------------------------
// Field markers

export function Default(_value: unknown): FieldDecorator {
  return noop;
}
export function Example(_value: unknown): FieldDecorator {
  return noop;
}
export function Nullable(): FieldDecorator {
  return noop;
}
export function Optional(): FieldDecorator {
  return noop;
}
export function Required(): FieldDecorator {
  return noop;
}
export function ListType(_type: 'atomic' | 'set' | 'map'): FieldOrClassDecorator {
  return noop;
}
export function ListMapKey(..._keys: string[]): FieldOrClassDecorator {
  return noop;
}
export function MapType(_type: 'atomic' | 'granular'): FieldOrClassDecorator {
  return noop;
}
export function StructType(_type: 'atomic' | 'granular'): FieldOrClassDecorator {
  return noop;
}
export function Immutable(): FieldDecorator {
  return noop;
}

// ---------------------------------------------------------------------------------------
// Class-only markers

export function AtMostOneOf(..._fields: string[]): ClassMarker {
  return noop;
}
export function ExactlyOneOf(..._fields: string[]): ClassMarker {
  return noop;
}
export function AtLeastOneOf(..._fields: string[]): ClassMarker {
  return noop;
}

// ---------------------------------------------------------------------------------------
// RBAC and webhooks

export interface RbacRule {
  groups?: string[];
  resources?: string[];
  resourceNames?: string[];
  verbs: string[];
  urls?: string[];
  namespace?: string;
  roleName?: string;
}
/** `+kubebuilder:rbac` (repeatable): a permission the manager needs. */
export function Rbac(_rule: RbacRule): ClassMarker {
  return noop;
}

export interface WebhookOptions {
  path?: string;
  url?: string;
  mutating: boolean;
  failurePolicy: 'Fail' | 'Ignore';
  sideEffects?: 'None' | 'NoneOnDryRun' | 'Some' | 'Unknown';
  groups: string[];
  resources: string[];
  verbs: string[];
  versions: string[];
  name: string;
  admissionReviewVersions: string[];
  matchPolicy?: 'Exact' | 'Equivalent';
  reinvocationPolicy?: 'Never' | 'IfNeeded';
  timeoutSeconds?: number;
  serviceName?: string;
  serviceNamespace?: string;
  servicePort?: number;
}
/** `+kubebuilder:webhook` (repeatable). */
export function Webhook(_options: WebhookOptions): ClassMarker {
  return noop;
}
/** `+kubebuilder:webhookconfiguration`: names the generated configuration objects. */
export function WebhookConfiguration(_options: { mutating: boolean; name: string }): ClassMarker {
  return noop;
}
