// kubeforge/markers: the decorators users put on their API types, reconcilers and webhooks.
//
// Every decorator here is a TypeScript 5 standard decorator that does nothing at run time:
// `kubeforge manifests` reads them statically. Their parameter types come from the marker table
// (src/markers/definitions.ts) through a type-only import, so the table is the one argument
// contract and this module still loads nothing at run time.

import type { DecoratorArg, MarkerOptions } from './definitions.js';

/** A decorator usable on a class field. */
export type FieldDecorator = (value: undefined, context: ClassFieldDecoratorContext) => void;
/** A decorator usable on a class. */
export type ClassMarker = (value: abstract new (...args: never[]) => unknown, context: ClassDecoratorContext) => void;
/** A decorator usable on a class field or on a class (a type-level marker). */
export type FieldOrClassDecorator = (
  value: unknown,
  context: ClassFieldDecoratorContext | ClassDecoratorContext,
) => void;

const noop = (): void => undefined;

// ---------------------------------------------------------------------------------------
// Type aliases with a schema of their own

/** Go's `int`: `type: integer`, without a format (as controller-gen writes an `int` field). */
export type int = number;
/** A 32-bit integer: `type: integer`, `format: int32`. */
export type int32 = number;
/** A 64-bit integer: `type: integer`, `format: int64`. */
export type int64 = number;
/** A number that may have a fraction, on purpose: `type: number` (a plain `number` field warns, KF3012). */
export type float64 = number;
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

/** `group` (`+groupName`), `version` (`+versionName`), `fieldsOptionalByDefault`, `skip`. */
export type GroupVersionOptions = MarkerOptions<'defineGroupVersion'>;

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
export type ResourceOptions = MarkerOptions<'Resource'>;
/** `+kubebuilder:resource`: resource names and scope. */
export function Resource(_options: ResourceOptions): ClassMarker {
  return noop;
}
/** `+kubebuilder:subresource:status`. */
export function SubresourceStatus(): ClassMarker {
  return noop;
}
/** `+kubebuilder:subresource:scale`. */
export function SubresourceScale(_options: MarkerOptions<'SubresourceScale'>): ClassMarker {
  return noop;
}
export type PrintColumnOptions = MarkerOptions<'PrintColumn'>;
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
export function DeprecatedVersion(_options?: MarkerOptions<'DeprecatedVersion'>): ClassMarker {
  return noop;
}
/** `+kubebuilder:skipversion`. */
export function SkipVersion(): ClassMarker {
  return noop;
}
/** `+kubebuilder:metadata`: annotations and labels of the generated CRD. */
export function Metadata(_options: MarkerOptions<'Metadata'>): ClassMarker {
  return noop;
}
/** `+kubebuilder:selectablefield` (repeatable). */
export function SelectableField(_options: MarkerOptions<'SelectableField'>): ClassMarker {
  return noop;
}
/** `+kubebuilder:externalDocs` (on Kinds, types and fields). */
export function ExternalDocs(_options: MarkerOptions<'ExternalDocs'>): FieldOrClassDecorator {
  return noop;
}
export type ConversionWebhookOptions = MarkerOptions<'ConversionWebhook'>;
/** The Kind converts between versions through a webhook (`spec.conversion.strategy: Webhook`). */
export function ConversionWebhook(_options?: ConversionWebhookOptions): ClassMarker {
  return noop;
}

// ---------------------------------------------------------------------------------------
// Validation markers (fields and types)

export function Maximum(_n: DecoratorArg<'Maximum'>): FieldOrClassDecorator {
  return noop;
}
export function Minimum(_n: DecoratorArg<'Minimum'>): FieldOrClassDecorator {
  return noop;
}
export function ExclusiveMaximum(): FieldOrClassDecorator {
  return noop;
}
export function ExclusiveMinimum(): FieldOrClassDecorator {
  return noop;
}
export function MultipleOf(_n: DecoratorArg<'MultipleOf'>): FieldOrClassDecorator {
  return noop;
}
export function MinLength(_n: DecoratorArg<'MinLength'>): FieldOrClassDecorator {
  return noop;
}
export function MaxLength(_n: DecoratorArg<'MaxLength'>): FieldOrClassDecorator {
  return noop;
}
export function Pattern(_re: DecoratorArg<'Pattern'>): FieldOrClassDecorator {
  return noop;
}
export function MinItems(_n: DecoratorArg<'MinItems'>): FieldOrClassDecorator {
  return noop;
}
export function MaxItems(_n: DecoratorArg<'MaxItems'>): FieldOrClassDecorator {
  return noop;
}
export function UniqueItems(): FieldOrClassDecorator {
  return noop;
}
export function MinProperties(_n: DecoratorArg<'MinProperties'>): FieldOrClassDecorator {
  return noop;
}
export function MaxProperties(_n: DecoratorArg<'MaxProperties'>): FieldOrClassDecorator {
  return noop;
}
export function Enum(..._values: DecoratorArg<'Enum'>[]): FieldOrClassDecorator {
  return noop;
}
export function Format(_format: DecoratorArg<'Format'>): FieldOrClassDecorator {
  return noop;
}
export function Type(_type: DecoratorArg<'Type'>): FieldOrClassDecorator {
  return noop;
}
export type XValidationRule = MarkerOptions<'XValidation'>;
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
export function Title(_title: DecoratorArg<'Title'>): FieldOrClassDecorator {
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

export function Default(_value: DecoratorArg<'Default'>): FieldDecorator {
  return noop;
}
export function Example(_value: DecoratorArg<'Example'>): FieldDecorator {
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
export function ListType(_type: DecoratorArg<'ListType'>): FieldOrClassDecorator {
  return noop;
}
export function ListMapKey(..._keys: DecoratorArg<'ListMapKey'>[]): FieldOrClassDecorator {
  return noop;
}
export function MapType(_type: DecoratorArg<'MapType'>): FieldOrClassDecorator {
  return noop;
}
export function StructType(_type: DecoratorArg<'StructType'>): FieldOrClassDecorator {
  return noop;
}
export function Immutable(): FieldDecorator {
  return noop;
}

// ---------------------------------------------------------------------------------------
// Class-only markers

export function AtMostOneOf(..._fields: DecoratorArg<'AtMostOneOf'>[]): ClassMarker {
  return noop;
}
export function ExactlyOneOf(..._fields: DecoratorArg<'ExactlyOneOf'>[]): ClassMarker {
  return noop;
}
export function AtLeastOneOf(..._fields: DecoratorArg<'AtLeastOneOf'>[]): ClassMarker {
  return noop;
}

// ---------------------------------------------------------------------------------------
// RBAC and webhooks

export type RbacRule = MarkerOptions<'Rbac'>;
/** `+kubebuilder:rbac` (repeatable): a permission the manager needs. */
export function Rbac(_rule: RbacRule): ClassMarker {
  return noop;
}

export type WebhookOptions = MarkerOptions<'Webhook'>;
/** `+kubebuilder:webhook` (repeatable). */
export function Webhook(_options: WebhookOptions): ClassMarker {
  return noop;
}
/** `+kubebuilder:webhookconfiguration`: names the generated configuration objects. */
export function WebhookConfiguration(_options: MarkerOptions<'WebhookConfiguration'>): ClassMarker {
  return noop;
}
