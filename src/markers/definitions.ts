/**
 * The one marker definition table, and the argument contract every other part reads from it.
 *
 * Each marker is defined once, with typed arguments (as controller-tools registers each marker as
 * a typed struct). From that one entry come:
 * - the decorator's parameter types in `kubeforge/markers` (src/markers/index.ts imports these
 *   types with `import type`, so it still loads nothing at run time): {@link DecoratorArg},
 *   {@link MarkerOptions};
 * - the validation the analysis makes of every use (src/collector/collector.ts walks `args`);
 * - the typed value generators and schema appliers read: {@link MarkerArgs};
 * - whether and when the marker applies to a schema (`schema.priority`, controller-tools'
 *   `ApplyPriority`; the appliers themselves are in src/schema/apply.ts);
 * - the markers reference in docs/markers.md (src/markers/reference.ts).
 *
 * Imports nothing at run time: a plain data module.
 */

/**
 * Where a marker may be written.
 * - `field`: a class property (decorator) or an interface / type-literal member (JSDoc tag)
 * - `type`:  a non-root class (decorator), a type alias, interface or enum (JSDoc tag)
 * - `kind`:  a `@Root()` class that is a Kind
 * - `class`: any class (RBAC, webhooks, `@Root`)
 * - `package`: `defineGroupVersion(...)` in `groupversion.ts`
 */
export type MarkerTarget = 'field' | 'type' | 'kind' | 'class' | 'package';

/** The type of one argument value. */
export type ArgType =
  | { readonly type: 'string'; readonly enum?: readonly string[] }
  | { readonly type: 'number' }
  | { readonly type: 'integer' }
  | { readonly type: 'boolean' }
  /** any JSON value (`@Default`, `@Example`, `@Enum` members) */
  | { readonly type: 'json' }
  /** a string or a RegExp literal (no flags); evaluated to the pattern's source text */
  | { readonly type: 'pattern' }
  | { readonly type: 'string[]'; readonly enum?: readonly string[] }
  | { readonly type: 'record' };

export interface ArgField {
  readonly name: string;
  readonly arg: ArgType;
  readonly required: boolean;
  readonly help: string;
}

/** How the decorator takes its arguments. */
export type ArgShape =
  /** `@UniqueItems()` */
  | { readonly shape: 'none' }
  /** `@Maximum(10)`: one anonymous value */
  | { readonly shape: 'value'; readonly arg: ArgType; readonly label: string }
  /** `@Resource({ path, ... })`; `optional` means the whole object may be omitted */
  | { readonly shape: 'object'; readonly fields: readonly ArgField[]; readonly optional: boolean }
  /** `@Enum('A', 'B')`: one or more values */
  | { readonly shape: 'variadic'; readonly arg: ArgType; readonly label: string };

export type MarkerCategory = 'package' | 'kind' | 'validation' | 'field' | 'class' | 'rbac' | 'webhook';

export interface MarkerDefinition {
  /** Decorator export name (`Maximum`, `Items.MaxLength`, `defineGroupVersion`). */
  readonly name: string;
  /** The controller-gen marker it mirrors (for the reference and error messages). */
  readonly controllerGen: string;
  readonly targets: readonly MarkerTarget[];
  readonly args: ArgShape;
  readonly repeatable: boolean;
  readonly help: string;
  /** Section of the markers reference (docs/markers.md). */
  readonly category: MarkerCategory;
  /**
   * Set on markers that change the schema of what they are on. Lower priorities apply first
   * (controller-gen's ApplyPriority: `Type`, `IntOrString` and `ListType` set the type the others
   * check; the one-of rules come after `XValidation`); within a priority, in the order written.
   */
  readonly schema?: { readonly priority: 0 | 1 | 2 };
}

// ---------------------------------------------------------------------------------------------
// Builders that keep the literal types of each entry (the decorator and value types derive from them)

const str = { type: 'string' } as const;
const num = { type: 'number' } as const;
const int = { type: 'integer' } as const;
const bool = { type: 'boolean' } as const;
const strs = { type: 'string[]' } as const;
const json = { type: 'json' } as const;
const oneOf = <const E extends readonly string[]>(...values: E) => ({ type: 'string', enum: values }) as const;

const f = <const N extends string, const A extends ArgType, const R extends boolean>(
  name: N,
  arg: A,
  required: R,
  help: string,
) => ({ name, arg, required, help }) as const;
const none = { shape: 'none' } as const;
const value = <const A extends ArgType, const L extends string>(arg: A, label: L) =>
  ({ shape: 'value', arg, label }) as const;
const variadic = <const A extends ArgType, const L extends string>(arg: A, label: L) =>
  ({ shape: 'variadic', arg, label }) as const;
const object = <const F extends readonly ArgField[]>(...fields: F) =>
  ({ shape: 'object', fields, optional: false }) as const;
const optionalObject = <const F extends readonly ArgField[]>(...fields: F) =>
  ({ shape: 'object', fields, optional: true }) as const;

interface Entry {
  readonly controllerGen: string;
  readonly args: ArgShape;
  readonly help: string;
  readonly targets?: readonly MarkerTarget[];
  readonly repeatable?: boolean;
  readonly schema?: { readonly priority: 0 | 1 | 2 };
}

const FIRST = { priority: 0 } as const;
const NORMAL = { priority: 1 } as const;
const LAST = { priority: 2 } as const;

/** Validation markers: allowed on fields and types; each also exists as `Items.<Name>`. */
const VALIDATION = {
  Maximum: {
    controllerGen: 'kubebuilder:validation:Maximum',
    args: value(num, 'n'),
    help: 'Largest value allowed (numeric fields).',
  },
  Minimum: {
    controllerGen: 'kubebuilder:validation:Minimum',
    args: value(num, 'n'),
    help: 'Smallest value allowed (numeric fields).',
  },
  ExclusiveMaximum: {
    controllerGen: 'kubebuilder:validation:ExclusiveMaximum',
    args: none,
    help: 'Makes `@Maximum` exclusive.',
  },
  ExclusiveMinimum: {
    controllerGen: 'kubebuilder:validation:ExclusiveMinimum',
    args: none,
    help: 'Makes `@Minimum` exclusive.',
  },
  MultipleOf: {
    controllerGen: 'kubebuilder:validation:MultipleOf',
    args: value(num, 'n'),
    help: 'The value must be a multiple of n (numeric fields).',
  },
  MinLength: {
    controllerGen: 'kubebuilder:validation:MinLength',
    args: value(int, 'n'),
    help: 'Shortest string allowed.',
  },
  MaxLength: {
    controllerGen: 'kubebuilder:validation:MaxLength',
    args: value(int, 'n'),
    help: 'Longest string allowed.',
  },
  Pattern: {
    controllerGen: 'kubebuilder:validation:Pattern',
    args: value({ type: 'pattern' }, 're'),
    help: 'Regular expression the string must match (a string or a RegExp literal without flags).',
  },
  MinItems: {
    controllerGen: 'kubebuilder:validation:MinItems',
    args: value(int, 'n'),
    help: 'Fewest items allowed (arrays).',
  },
  MaxItems: {
    controllerGen: 'kubebuilder:validation:MaxItems',
    args: value(int, 'n'),
    help: 'Most items allowed (arrays).',
  },
  UniqueItems: {
    controllerGen: 'kubebuilder:validation:UniqueItems',
    args: none,
    help: 'All items must be distinct (arrays).',
  },
  MinProperties: {
    controllerGen: 'kubebuilder:validation:MinProperties',
    args: value(int, 'n'),
    help: 'Fewest properties allowed (objects and maps).',
  },
  MaxProperties: {
    controllerGen: 'kubebuilder:validation:MaxProperties',
    args: value(int, 'n'),
    help: 'Most properties allowed (objects and maps).',
  },
  Enum: {
    controllerGen: 'kubebuilder:validation:Enum',
    args: variadic(json, 'values'),
    help: 'The value must be one of these.',
  },
  Format: {
    controllerGen: 'kubebuilder:validation:Format',
    args: value(str, 'format'),
    help: 'OpenAPI format (`date-time`, `byte`, `int32`, ...).',
  },
  Type: {
    controllerGen: 'kubebuilder:validation:Type',
    args: value(oneOf('object', 'array', 'string', 'integer', 'number', 'boolean'), 't'),
    help: 'Overrides the schema type derived from the TypeScript type (applied first).',
    schema: FIRST,
  },
  XValidation: {
    controllerGen: 'kubebuilder:validation:XValidation',
    args: object(
      f('rule', str, true, 'CEL expression'),
      f('message', str, false, 'message shown when the rule fails'),
      f('messageExpression', str, false, 'CEL expression producing the message'),
      f(
        'reason',
        oneOf('FieldValueInvalid', 'FieldValueForbidden', 'FieldValueRequired', 'FieldValueDuplicate'),
        false,
        'machine-readable reason',
      ),
      f('fieldPath', str, false, 'path of the field the error is reported on'),
      f('optionalOldSelf', bool, false, 'evaluate the rule on create too, with oldSelf unset'),
    ),
    help: 'A CEL validation rule (`x-kubernetes-validations`); repeatable.',
    repeatable: true,
  },
  PreserveUnknownFields: {
    controllerGen: 'kubebuilder:pruning:PreserveUnknownFields',
    args: none,
    help: 'Keeps fields the schema does not describe (`x-kubernetes-preserve-unknown-fields`).',
  },
  // `kubebuilder:validation:EmbeddedResource` is controller-gen's field-only spelling; the X form works on types too.
  EmbeddedResource: {
    controllerGen: 'kubebuilder:validation:XEmbeddedResource',
    args: none,
    help: 'The object is a whole Kubernetes object with apiVersion, kind and metadata (`x-kubernetes-embedded-resource`).',
  },
  IntOrString: {
    controllerGen: 'kubebuilder:validation:XIntOrString',
    args: none,
    help: 'Accepts an integer or a string (`x-kubernetes-int-or-string`).',
    schema: FIRST,
  },
  Schemaless: {
    controllerGen: 'kubebuilder:validation:Schemaless',
    args: none,
    help: 'Emits an empty schema for the field (combine with `@PreserveUnknownFields()`).',
    targets: ['field'],
  },
  Title: { controllerGen: 'kubebuilder:title', args: value(str, 's'), help: 'Schema title.' },
} as const satisfies Record<string, Entry>;

/** The validation markers that also exist for an array's items (`Items.<Name>`). */
type ItemName = Exclude<keyof typeof VALIDATION, 'Schemaless' | 'Title'>;

const KIND = {
  Root: {
    controllerGen: 'kubebuilder:object:root=true',
    targets: ['class'],
    args: none,
    help: 'Marks a root type. A `@Root()` class with a `metadata` field is a Kind.',
  },
  Resource: {
    controllerGen: 'kubebuilder:resource',
    args: object(
      f(
        'path',
        str,
        false,
        'plural resource name (default: the plural of the Kind, lower-cased, by the rules controller-gen uses)',
      ),
      f('shortName', strs, false, 'short names for kubectl'),
      f('categories', strs, false, 'categories (`all`, ...)'),
      f('singular', str, false, 'singular name (default: the lower-cased Kind)'),
      f('scope', oneOf('Namespaced', 'Cluster'), false, 'default `Namespaced`'),
    ),
    help: 'Resource names and scope.',
  },
  SubresourceStatus: {
    controllerGen: 'kubebuilder:subresource:status',
    args: none,
    help: 'Enables the status subresource.',
  },
  SubresourceScale: {
    controllerGen: 'kubebuilder:subresource:scale',
    args: object(
      f('specpath', str, true, 'JSONPath of the desired replicas (`.spec.replicas`)'),
      f('statuspath', str, true, 'JSONPath of the observed replicas (`.status.replicas`)'),
      f('selectorpath', str, false, 'JSONPath of the label selector string'),
    ),
    help: 'Enables the scale subresource.',
  },
  PrintColumn: {
    controllerGen: 'kubebuilder:printcolumn',
    args: object(
      f('name', str, true, 'column header'),
      f('type', oneOf('integer', 'number', 'string', 'boolean', 'date'), true, 'column type'),
      f('jsonPath', str, true, 'JSONPath of the value'),
      f('description', str, false, 'column description'),
      f('format', str, false, 'format of the value'),
      f('priority', int, false, '0 shows the column by default; higher values only with `-o wide`'),
    ),
    repeatable: true,
    help: 'An additional printer column for `kubectl get`.',
  },
  StorageVersion: {
    controllerGen: 'kubebuilder:storageversion',
    args: none,
    help: 'This version is the storage version (needed when a Kind has several versions).',
  },
  UnservedVersion: { controllerGen: 'kubebuilder:unservedversion', args: none, help: 'This version is not served.' },
  DeprecatedVersion: {
    controllerGen: 'kubebuilder:deprecatedversion',
    args: optionalObject(f('warning', str, false, 'warning returned to clients')),
    help: 'This version is deprecated.',
  },
  SkipVersion: { controllerGen: 'kubebuilder:skipversion', args: none, help: 'Leaves this version out of the CRD.' },
  Metadata: {
    controllerGen: 'kubebuilder:metadata',
    args: object(
      f('annotations', { type: 'record' }, false, 'annotations of the CRD object'),
      f('labels', { type: 'record' }, false, 'labels of the CRD object'),
    ),
    help: 'Annotations and labels on the generated CRD object.',
  },
  SelectableField: {
    controllerGen: 'kubebuilder:selectablefield',
    args: object(f('jsonPath', str, true, 'JSONPath of a field usable in field selectors')),
    repeatable: true,
    help: 'A field usable in field selectors (Kubernetes 1.30+).',
  },
  ExternalDocs: {
    controllerGen: 'kubebuilder:externalDocs',
    targets: ['kind', 'field', 'type'],
    args: object(f('url', str, true, 'documentation URL'), f('description', str, false, 'what the link is')),
    help: 'External documentation link (`externalDocs`).',
    schema: NORMAL,
  },
  ConversionWebhook: {
    controllerGen: '(kubebuilder: config/crd/patches/webhook_in_<plural>.yaml)',
    args: optionalObject(
      f('serviceName', str, false, "default 'webhook-service'"),
      f('serviceNamespace', str, false, "default 'system'"),
      f('path', str, false, "default '/convert'"),
      f('servicePort', int, false, 'port of the webhook Service (default: unset, 443)'),
      f('conversionReviewVersions', strs, false, "default ['v1']"),
    ),
    help: 'The Kind converts between its versions through a webhook: sets `spec.conversion` (strategy `Webhook`). Put it on the hub (storage) version.',
  },
} as const satisfies Record<string, Entry>;

const FIELD_OR_TYPE = ['field', 'type'] as const;

const FIELD = {
  Default: {
    controllerGen: 'kubebuilder:default',
    targets: ['field'],
    args: value(json, 'value'),
    help: 'Default value (any JSON value).',
    schema: NORMAL,
  },
  Example: {
    controllerGen: 'kubebuilder:example',
    targets: ['field'],
    args: value(json, 'value'),
    help: 'Example value (any JSON value).',
    schema: NORMAL,
  },
  Nullable: {
    controllerGen: 'nullable',
    targets: ['field'],
    args: none,
    help: 'The field accepts null (`nullable: true`).',
    schema: NORMAL,
  },
  Optional: {
    controllerGen: 'kubebuilder:validation:Optional',
    targets: ['field'],
    args: none,
    help: 'The field is not required even without `?`.',
  },
  Required: {
    controllerGen: 'kubebuilder:validation:Required',
    targets: ['field'],
    args: none,
    help: 'The field is required even with `?` or `fieldsOptionalByDefault`.',
  },
  ListType: {
    controllerGen: 'listType',
    targets: FIELD_OR_TYPE,
    args: value(oneOf('atomic', 'set', 'map'), 'type'),
    help: 'List semantics for server-side apply (`x-kubernetes-list-type`).',
    schema: FIRST,
  },
  ListMapKey: {
    controllerGen: 'listMapKey',
    targets: FIELD_OR_TYPE,
    args: variadic(str, 'keys'),
    repeatable: true,
    help: "Key fields of a `@ListType('map')` list (`x-kubernetes-list-map-keys`).",
    schema: NORMAL,
  },
  MapType: {
    controllerGen: 'mapType',
    targets: FIELD_OR_TYPE,
    args: value(oneOf('atomic', 'granular'), 'type'),
    help: 'Map semantics for server-side apply (`x-kubernetes-map-type`).',
    schema: NORMAL,
  },
  StructType: {
    controllerGen: 'structType',
    targets: FIELD_OR_TYPE,
    args: value(oneOf('atomic', 'granular'), 'type'),
    help: 'Object semantics for server-side apply (`x-kubernetes-map-type`).',
    schema: NORMAL,
  },
  Immutable: {
    controllerGen: 'k8s:immutable',
    targets: ['field'],
    args: none,
    help: 'The value cannot change once set (a `self == oldSelf` CEL rule; on an optional field, also a rule on its object that keeps it set).',
    schema: NORMAL,
  },
} as const satisfies Record<string, Entry>;

const oneOfLike = <const C extends string>(controllerGen: C, help: string) =>
  ({
    controllerGen,
    targets: ['type', 'kind'],
    args: variadic(str, 'fields'),
    repeatable: true,
    help,
    schema: LAST,
  }) as const;

const CLASS = {
  AtMostOneOf: oneOfLike('kubebuilder:validation:AtMostOneOf', 'At most one of these fields may be set (a CEL rule).'),
  ExactlyOneOf: oneOfLike(
    'kubebuilder:validation:ExactlyOneOf',
    'Exactly one of these fields must be set (a CEL rule).',
  ),
  AtLeastOneOf: oneOfLike(
    'kubebuilder:validation:AtLeastOneOf',
    'At least one of these fields must be set (a CEL rule).',
  ),
} as const satisfies Record<string, Entry>;

const RBAC = {
  Rbac: {
    controllerGen: 'kubebuilder:rbac',
    targets: ['class'],
    args: object(
      f('groups', strs, false, "API groups ('' is the core group)"),
      f('resources', strs, false, 'resources (`deployments`, `deployments/status`, ...)'),
      f('resourceNames', strs, false, 'names the rule is limited to'),
      f('verbs', strs, true, 'verbs (`get`, `list`, `watch`, `create`, `update`, `patch`, `delete`, ...)'),
      f('urls', strs, false, 'non-resource URLs'),
      f('namespace', str, false, 'makes a namespaced Role in that namespace'),
      f('roleName', str, false, "name of the Role / ClusterRole (default 'manager-role')"),
    ),
    repeatable: true,
    help: 'A permission the manager needs; rules are merged into `config/rbac/role.yaml`.',
  },
} as const satisfies Record<string, Entry>;

const WEBHOOK = {
  Webhook: {
    controllerGen: 'kubebuilder:webhook',
    targets: ['class'],
    args: object(
      f('path', str, false, 'URL path served by the manager'),
      f('url', str, false, 'external URL (instead of a Service)'),
      f('mutating', bool, true, 'mutating (true) or validating (false)'),
      f('failurePolicy', oneOf('Fail', 'Ignore'), true, 'what the API server does when the call fails'),
      f('sideEffects', oneOf('None', 'NoneOnDryRun', 'Some', 'Unknown'), false, 'side effects of the webhook'),
      f('groups', strs, true, 'API groups'),
      f('resources', strs, true, 'resources'),
      f('verbs', strs, true, 'operations (`create`, `update`, `delete`, `connect`)'),
      f('versions', strs, true, 'API versions'),
      f('name', str, true, 'webhook name (a domain name)'),
      f('admissionReviewVersions', strs, true, "AdmissionReview versions (['v1'])"),
      f('matchPolicy', oneOf('Exact', 'Equivalent'), false, 'match policy'),
      f('reinvocationPolicy', oneOf('Never', 'IfNeeded'), false, 'reinvocation policy (mutating only)'),
      f('timeoutSeconds', int, false, 'call timeout'),
      f('serviceName', str, false, "Service name (default 'webhook-service')"),
      f('serviceNamespace', str, false, "Service namespace (default 'system')"),
      f('servicePort', int, false, 'Service port'),
      f(
        'namespaceSelector',
        json,
        false,
        'call the webhook only for objects in namespaces whose labels match (a LabelSelector: `{ matchLabels, matchExpressions }`)',
      ),
      f('objectSelector', json, false, 'call the webhook only for objects whose labels match (a LabelSelector)'),
      f(
        'matchConditions',
        json,
        false,
        'CEL conditions (`[{ name, expression }]`) the request must meet for the webhook to be called; checked as the API server checks them',
      ),
      f(
        'patch',
        str,
        false,
        "a strategic merge patch (JSON) applied to the generated webhook last, as controller-gen's `patch=`: any webhook field (`null` removes one)",
      ),
    ),
    repeatable: true,
    help: 'An admission webhook served by this class; collected into `config/webhook/manifests.yaml`.',
  },
  WebhookConfiguration: {
    controllerGen: 'kubebuilder:webhookconfiguration',
    targets: ['class'],
    args: object(f('mutating', bool, true, 'which configuration is named'), f('name', str, true, 'object name')),
    repeatable: true,
    help: 'Names the generated Mutating / Validating webhook configuration.',
  },
} as const satisfies Record<string, Entry>;

const PACKAGE = {
  defineGroupVersion: {
    controllerGen: 'groupName / versionName / kubebuilder:validation:Optional / kubebuilder:skip',
    targets: ['package'],
    args: object(
      f('group', str, true, 'API group (`+groupName`)'),
      f('version', str, true, 'API version (`+versionName`)'),
      f(
        'fieldsOptionalByDefault',
        bool,
        false,
        'fields without `?` are optional too (package-level `+kubebuilder:validation:Optional`)',
      ),
      f('skip', bool, false, 'generate nothing for this group-version (`+kubebuilder:skip`)'),
    ),
    help: 'Declares the group-version of the Kinds in this directory; lives in `groupversion.ts` (`export const groupVersion = defineGroupVersion({...})`).',
  },
} as const satisfies Record<string, Entry>;

// ---------------------------------------------------------------------------------------------
// Types derived from the table

type Table = typeof PACKAGE &
  typeof KIND &
  typeof VALIDATION &
  typeof FIELD &
  typeof CLASS &
  typeof RBAC &
  typeof WEBHOOK;

/** Every marker's name: `Maximum`, `Items.MaxLength`, `Rbac`, `defineGroupVersion`. */
export type MarkerName = keyof Table | `Items.${ItemName}`;

/** The argument shape a marker's definition declares. */
export type ArgShapeOf<N extends MarkerName> = N extends `Items.${infer B extends ItemName}`
  ? (typeof VALIDATION)[B]['args']
  : N extends keyof Table
    ? Table[N]['args']
    : never;

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** The value of one argument as the analysis hands it on (patterns become their source text). */
type ValueOf<A extends ArgType> = A extends { type: 'string'; enum: readonly (infer E)[] }
  ? E
  : A extends { type: 'string' | 'pattern' }
    ? string
    : A extends { type: 'number' | 'integer' }
      ? number
      : A extends { type: 'boolean' }
        ? boolean
        : A extends { type: 'string[]'; enum: readonly (infer E)[] }
          ? E[]
          : A extends { type: 'string[]' }
            ? string[]
            : A extends { type: 'record' }
              ? Record<string, string>
              : unknown;

/** The value of one argument as a decorator takes it (a pattern may be a RegExp literal). */
type InputOf<A extends ArgType> = A extends { type: 'pattern' } ? string | RegExp : ValueOf<A>;

type ObjectOf<F extends readonly ArgField[], Input extends boolean> = Simplify<
  {
    -readonly [X in F[number] as X['required'] extends true ? X['name'] : never]: Input extends true
      ? InputOf<X['arg']>
      : ValueOf<X['arg']>;
  } & {
    -readonly [X in F[number] as X['required'] extends true ? never : X['name']]?: Input extends true
      ? InputOf<X['arg']>
      : ValueOf<X['arg']>;
  }
>;

/** The options object of a marker that takes one (`MarkerOptions<'Resource'>`). */
export type MarkerOptions<N extends MarkerName> =
  ArgShapeOf<N> extends { shape: 'object'; fields: infer F extends readonly ArgField[] } ? ObjectOf<F, true> : never;

/** The one value (shape `value`) or each value (shape `variadic`) a decorator takes. */
export type DecoratorArg<N extends MarkerName> =
  ArgShapeOf<N> extends { shape: 'value' | 'variadic'; arg: infer A extends ArgType } ? InputOf<A> : never;

/** The parameter list of a marker's decorator, as its definition declares it. */
export type DecoratorParams<N extends MarkerName> =
  ArgShapeOf<N> extends { shape: 'none' }
    ? []
    : ArgShapeOf<N> extends { shape: 'value'; arg: infer A extends ArgType }
      ? [InputOf<A>]
      : ArgShapeOf<N> extends { shape: 'variadic'; arg: infer A extends ArgType }
        ? InputOf<A>[]
        : ArgShapeOf<N> extends { shape: 'object'; optional: true; fields: infer F extends readonly ArgField[] }
          ? [options?: ObjectOf<F, true>]
          : ArgShapeOf<N> extends { shape: 'object'; fields: infer F extends readonly ArgField[] }
            ? [options: ObjectOf<F, true>]
            : never;

/**
 * The validated value of a marker use, as generators and schema appliers read it: nothing for
 * shape `none`, the value, the list of values, or the options object (`{}` when omitted).
 */
export type MarkerArgs<N extends MarkerName> =
  ArgShapeOf<N> extends { shape: 'none' }
    ? undefined
    : ArgShapeOf<N> extends { shape: 'value'; arg: infer A extends ArgType }
      ? ValueOf<A>
      : ArgShapeOf<N> extends { shape: 'variadic'; arg: infer A extends ArgType }
        ? ValueOf<A>[]
        : ArgShapeOf<N> extends { shape: 'object'; fields: infer F extends readonly ArgField[] }
          ? ObjectOf<F, false>
          : never;

/** Markers that change a schema: every validation marker but `Schemaless`, and those whose definition has `schema`. */
/** The markers of a Kind's root class (the `kind` category): what the CRD generator applies to the CRD. */
export type KindMarkerName = keyof typeof KIND;

export type SchemaMarkerName =
  | Exclude<keyof typeof VALIDATION, 'Schemaless'>
  | { [N in keyof Table]: Table[N] extends { schema: { priority: number } } ? N : never }[keyof Table];

// ---------------------------------------------------------------------------------------------
// The runtime table

const entries = (
  category: MarkerCategory,
  table: Record<string, Entry>,
  defaults: { targets: readonly MarkerTarget[] },
): MarkerDefinition[] =>
  Object.entries(table).map(([name, e]) => ({
    name,
    controllerGen: e.controllerGen,
    targets: e.targets ?? defaults.targets,
    args: e.args,
    repeatable: e.repeatable ?? false,
    help: e.help,
    category,
    ...(e.schema ? { schema: e.schema } : {}),
  }));

const VALIDATION_DEFS = entries('validation', VALIDATION, { targets: FIELD_OR_TYPE }).map((d) =>
  d.name === 'Schemaless' || d.schema ? d : { ...d, schema: NORMAL },
);

/** `validation:items:<X>`: the same validations applied to an array's items. */
const ITEMS_DEFS: MarkerDefinition[] = VALIDATION_DEFS.filter((d) => d.name !== 'Schemaless' && d.name !== 'Title').map(
  (d) => ({
    ...d,
    name: `Items.${d.name}`,
    // controller-gen names the items markers after its types: items:XPreserveUnknownFields, items:XEmbeddedResource.
    controllerGen:
      d.name === 'PreserveUnknownFields'
        ? 'kubebuilder:validation:items:XPreserveUnknownFields'
        : d.controllerGen.replace(/^kubebuilder:validation:/, 'kubebuilder:validation:items:'),
    help: `${d.help} Applies to each item of an array.`,
  }),
);

export const MARKER_DEFINITIONS: readonly MarkerDefinition[] = [
  ...entries('package', PACKAGE, { targets: ['package'] }),
  ...entries('kind', KIND, { targets: ['kind'] }),
  ...VALIDATION_DEFS,
  ...ITEMS_DEFS,
  ...entries('field', FIELD, { targets: ['field'] }),
  ...entries('class', CLASS, { targets: ['type', 'kind'] }),
  ...entries('rbac', RBAC, { targets: ['class'] }),
  ...entries('webhook', WEBHOOK, { targets: ['class'] }),
];

const BY_NAME = new Map(MARKER_DEFINITIONS.map((d) => [d.name, d]));

export function getMarkerDefinition(name: string): MarkerDefinition | undefined {
  return BY_NAME.get(name);
}

/** JSDoc tag name of a marker: lowerCamelCase (`Items.MinLength` -> `items.minLength`). */
export function jsDocTagName(name: string): string {
  return name
    .split('.')
    .map((s) => s.charAt(0).toLowerCase() + s.slice(1))
    .join('.');
}

const BY_TAG = new Map(
  MARKER_DEFINITIONS.filter((d) => d.targets.includes('field') || d.targets.includes('type')).map((d) => [
    jsDocTagName(d.name).toLowerCase(),
    d,
  ]),
);

/** The marker a JSDoc tag names (case-insensitive), if any. */
export function markerForJsDocTag(tag: string): MarkerDefinition | undefined {
  return BY_TAG.get(tag.toLowerCase());
}

/** Type aliases `kubeforge/markers` exports (mapped to schemas by name). */
export const MARKER_TYPE_ALIASES = [
  'int',
  'int32',
  'int64',
  'Quantity',
  'IntOrString',
  'Duration',
  'Time',
  'MicroTime',
] as const;
