/**
 * The one marker definition table. Everything that knows about markers derives from it:
 * the collector validates decorator arguments against it, the schema and CRD generators look
 * markers up in it, the README reference is rendered from it (see reference.ts), and a test
 * proves `kubeforge/markers` (src/markers/index.ts) exports exactly one decorator per entry.
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
  | { type: 'string'; enum?: readonly string[] }
  | { type: 'number' }
  | { type: 'integer' }
  | { type: 'boolean' }
  /** any JSON value (`@Default`, `@Example`, `@Enum` members) */
  | { type: 'json' }
  /** a string or a RegExp literal (no flags); evaluated to the pattern's source text */
  | { type: 'pattern' }
  | { type: 'string[]'; enum?: readonly string[] }
  | { type: 'record' };

export interface ArgField {
  name: string;
  arg: ArgType;
  required: boolean;
  help: string;
}

/** How the decorator takes its arguments. */
export type ArgShape =
  /** `@UniqueItems()` */
  | { shape: 'none' }
  /** `@Maximum(10)`: one anonymous value */
  | { shape: 'value'; arg: ArgType; label: string }
  /** `@Resource({ path, ... })`; `optional` means the whole object may be omitted */
  | { shape: 'object'; fields: readonly ArgField[]; optional: boolean }
  /** `@Enum('A', 'B')`: one or more values */
  | { shape: 'variadic'; arg: ArgType; label: string };

export interface MarkerDefinition {
  /** Decorator export name (`Maximum`, `Items.MaxLength`, `defineGroupVersion`). */
  name: string;
  /** The controller-gen marker it mirrors (for the reference and error messages). */
  controllerGen: string;
  targets: readonly MarkerTarget[];
  args: ArgShape;
  repeatable: boolean;
  help: string;
  /** Section of the README reference. */
  category: 'package' | 'kind' | 'validation' | 'field' | 'class' | 'rbac' | 'webhook';
}

const str: ArgType = { type: 'string' };
const num: ArgType = { type: 'number' };
const int: ArgType = { type: 'integer' };
const bool: ArgType = { type: 'boolean' };
const strs: ArgType = { type: 'string[]' };
const json: ArgType = { type: 'json' };
const f = (name: string, arg: ArgType, required: boolean, help: string): ArgField => ({ name, arg, required, help });

const FIELD_OR_TYPE: readonly MarkerTarget[] = ['field', 'type'];

/** Validation markers: allowed on fields and types; each also exists as `Items.<Name>`. */
const VALIDATION: MarkerDefinition[] = (
  [
  { name: 'Maximum', controllerGen: 'kubebuilder:validation:Maximum', args: { shape: 'value', arg: num, label: 'n' }, help: 'Largest value allowed (numeric fields).' },
  { name: 'Minimum', controllerGen: 'kubebuilder:validation:Minimum', args: { shape: 'value', arg: num, label: 'n' }, help: 'Smallest value allowed (numeric fields).' },
  { name: 'ExclusiveMaximum', controllerGen: 'kubebuilder:validation:ExclusiveMaximum', args: { shape: 'none' }, help: 'Makes `@Maximum` exclusive.' },
  { name: 'ExclusiveMinimum', controllerGen: 'kubebuilder:validation:ExclusiveMinimum', args: { shape: 'none' }, help: 'Makes `@Minimum` exclusive.' },
  { name: 'MultipleOf', controllerGen: 'kubebuilder:validation:MultipleOf', args: { shape: 'value', arg: num, label: 'n' }, help: 'The value must be a multiple of n (numeric fields).' },
  { name: 'MinLength', controllerGen: 'kubebuilder:validation:MinLength', args: { shape: 'value', arg: int, label: 'n' }, help: 'Shortest string allowed.' },
  { name: 'MaxLength', controllerGen: 'kubebuilder:validation:MaxLength', args: { shape: 'value', arg: int, label: 'n' }, help: 'Longest string allowed.' },
  { name: 'Pattern', controllerGen: 'kubebuilder:validation:Pattern', args: { shape: 'value', arg: { type: 'pattern' }, label: 're' }, help: 'Regular expression the string must match (a string or a RegExp literal without flags).' },
  { name: 'MinItems', controllerGen: 'kubebuilder:validation:MinItems', args: { shape: 'value', arg: int, label: 'n' }, help: 'Fewest items allowed (arrays).' },
  { name: 'MaxItems', controllerGen: 'kubebuilder:validation:MaxItems', args: { shape: 'value', arg: int, label: 'n' }, help: 'Most items allowed (arrays).' },
  { name: 'UniqueItems', controllerGen: 'kubebuilder:validation:UniqueItems', args: { shape: 'none' }, help: 'All items must be distinct (arrays).' },
  { name: 'MinProperties', controllerGen: 'kubebuilder:validation:MinProperties', args: { shape: 'value', arg: int, label: 'n' }, help: 'Fewest properties allowed (objects and maps).' },
  { name: 'MaxProperties', controllerGen: 'kubebuilder:validation:MaxProperties', args: { shape: 'value', arg: int, label: 'n' }, help: 'Most properties allowed (objects and maps).' },
  { name: 'Enum', controllerGen: 'kubebuilder:validation:Enum', args: { shape: 'variadic', arg: json, label: 'values' }, help: 'The value must be one of these.' },
  { name: 'Format', controllerGen: 'kubebuilder:validation:Format', args: { shape: 'value', arg: str, label: 'format' }, help: 'OpenAPI format (`date-time`, `byte`, `int32`, ...).' },
  { name: 'Type', controllerGen: 'kubebuilder:validation:Type', args: { shape: 'value', arg: { type: 'string', enum: ['object', 'array', 'string', 'integer', 'number', 'boolean'] }, label: 't' }, help: 'Overrides the schema type derived from the TypeScript type (applied first).' },
  {
    name: 'XValidation',
    controllerGen: 'kubebuilder:validation:XValidation',
    args: {
      shape: 'object',
      optional: false,
      fields: [
        f('rule', str, true, 'CEL expression'),
        f('message', str, false, 'message shown when the rule fails'),
        f('messageExpression', str, false, 'CEL expression producing the message'),
        f('reason', { type: 'string', enum: ['FieldValueInvalid', 'FieldValueForbidden', 'FieldValueRequired', 'FieldValueDuplicate'] }, false, 'machine-readable reason'),
        f('fieldPath', str, false, 'path of the field the error is reported on'),
        f('optionalOldSelf', bool, false, 'evaluate the rule on create too, with oldSelf unset'),
      ],
    },
    help: 'A CEL validation rule (`x-kubernetes-validations`); repeatable.',
  },
  { name: 'PreserveUnknownFields', controllerGen: 'kubebuilder:pruning:PreserveUnknownFields', args: { shape: 'none' }, help: 'Keeps fields the schema does not describe (`x-kubernetes-preserve-unknown-fields`).' },
  { name: 'EmbeddedResource', controllerGen: 'kubebuilder:validation:EmbeddedResource', args: { shape: 'none' }, help: 'The object is a whole Kubernetes object with apiVersion, kind and metadata (`x-kubernetes-embedded-resource`).' },
  { name: 'IntOrString', controllerGen: 'kubebuilder:validation:XIntOrString', args: { shape: 'none' }, help: 'Accepts an integer or a string (`x-kubernetes-int-or-string`).' },
  { name: 'Schemaless', controllerGen: 'kubebuilder:validation:Schemaless', args: { shape: 'none' }, help: 'Emits an empty schema for the field (combine with `@PreserveUnknownFields()`).' },
  { name: 'Title', controllerGen: 'kubebuilder:title', args: { shape: 'value', arg: str, label: 's' }, help: 'Schema title.' },
  ] as Pick<MarkerDefinition, 'name' | 'controllerGen' | 'args' | 'help'>[]
).map((d) => ({
  ...d,
  targets: d.name === 'Schemaless' ? (['field'] as const) : FIELD_OR_TYPE,
  repeatable: d.name === 'XValidation',
  category: 'validation' as const,
}));

/** `validation:items:<X>`: the same validations applied to an array's items. */
const ITEMS: MarkerDefinition[] = VALIDATION.filter((d) => d.name !== 'Schemaless' && d.name !== 'Title').map((d) => ({
  ...d,
  name: `Items.${d.name}`,
  controllerGen: d.controllerGen.replace(/^kubebuilder:(validation|pruning):/, 'kubebuilder:validation:items:'),
  help: `${d.help} Applies to each item of an array.`,
}));

const KIND: MarkerDefinition[] = [
  { name: 'Root', controllerGen: 'kubebuilder:object:root=true', targets: ['class'], args: { shape: 'none' }, repeatable: false, category: 'kind', help: 'Marks a root type. A `@Root()` class with a `metadata` field is a Kind.' },
  {
    name: 'Resource',
    controllerGen: 'kubebuilder:resource',
    targets: ['kind'],
    args: {
      shape: 'object',
      optional: false,
      fields: [
        f('path', str, false, 'plural resource name (default: the plural of the Kind, lower-cased, by the rules controller-gen uses)'),
        f('shortName', strs, false, 'short names for kubectl'),
        f('categories', strs, false, 'categories (`all`, ...)'),
        f('singular', str, false, 'singular name (default: the lower-cased Kind)'),
        f('scope', { type: 'string', enum: ['Namespaced', 'Cluster'] }, false, 'default `Namespaced`'),
      ],
    },
    repeatable: false,
    category: 'kind',
    help: 'Resource names and scope.',
  },
  { name: 'SubresourceStatus', controllerGen: 'kubebuilder:subresource:status', targets: ['kind'], args: { shape: 'none' }, repeatable: false, category: 'kind', help: 'Enables the status subresource.' },
  {
    name: 'SubresourceScale',
    controllerGen: 'kubebuilder:subresource:scale',
    targets: ['kind'],
    args: {
      shape: 'object',
      optional: false,
      fields: [
        f('specpath', str, true, 'JSONPath of the desired replicas (`.spec.replicas`)'),
        f('statuspath', str, true, 'JSONPath of the observed replicas (`.status.replicas`)'),
        f('selectorpath', str, false, 'JSONPath of the label selector string'),
      ],
    },
    repeatable: false,
    category: 'kind',
    help: 'Enables the scale subresource.',
  },
  {
    name: 'PrintColumn',
    controllerGen: 'kubebuilder:printcolumn',
    targets: ['kind'],
    args: {
      shape: 'object',
      optional: false,
      fields: [
        f('name', str, true, 'column header'),
        f('type', { type: 'string', enum: ['integer', 'number', 'string', 'boolean', 'date'] }, true, 'column type'),
        f('jsonPath', str, true, 'JSONPath of the value'),
        f('description', str, false, 'column description'),
        f('format', str, false, 'format of the value'),
        f('priority', int, false, '0 shows the column by default; higher values only with `-o wide`'),
      ],
    },
    repeatable: true,
    category: 'kind',
    help: 'An additional printer column for `kubectl get`.',
  },
  { name: 'StorageVersion', controllerGen: 'kubebuilder:storageversion', targets: ['kind'], args: { shape: 'none' }, repeatable: false, category: 'kind', help: 'This version is the storage version (needed when a Kind has several versions).' },
  { name: 'UnservedVersion', controllerGen: 'kubebuilder:unservedversion', targets: ['kind'], args: { shape: 'none' }, repeatable: false, category: 'kind', help: 'This version is not served.' },
  {
    name: 'DeprecatedVersion',
    controllerGen: 'kubebuilder:deprecatedversion',
    targets: ['kind'],
    args: { shape: 'object', optional: true, fields: [f('warning', str, false, 'warning returned to clients')] },
    repeatable: false,
    category: 'kind',
    help: 'This version is deprecated.',
  },
  { name: 'SkipVersion', controllerGen: 'kubebuilder:skipversion', targets: ['kind'], args: { shape: 'none' }, repeatable: false, category: 'kind', help: 'Leaves this version out of the CRD.' },
  {
    name: 'Metadata',
    controllerGen: 'kubebuilder:metadata',
    targets: ['kind'],
    args: {
      shape: 'object',
      optional: false,
      fields: [f('annotations', { type: 'record' }, false, 'annotations of the CRD object'), f('labels', { type: 'record' }, false, 'labels of the CRD object')],
    },
    repeatable: false,
    category: 'kind',
    help: 'Annotations and labels on the generated CRD object.',
  },
  {
    name: 'SelectableField',
    controllerGen: 'kubebuilder:selectablefield',
    targets: ['kind'],
    args: { shape: 'object', optional: false, fields: [f('jsonPath', str, true, 'JSONPath of a field usable in field selectors')] },
    repeatable: true,
    category: 'kind',
    help: 'A field usable in field selectors (Kubernetes 1.30+).',
  },
  {
    name: 'ExternalDocs',
    controllerGen: 'kubebuilder:externalDocs',
    targets: ['kind', 'field', 'type'],
    args: { shape: 'object', optional: false, fields: [f('url', str, true, 'documentation URL'), f('description', str, false, 'what the link is')] },
    repeatable: false,
    category: 'kind',
    help: 'External documentation link (`externalDocs`).',
  },
  {
    name: 'ConversionWebhook',
    controllerGen: '(kubebuilder: config/crd/patches/webhook_in_<plural>.yaml)',
    targets: ['kind'],
    args: {
      shape: 'object',
      optional: true,
      fields: [
        f('serviceName', str, false, "default 'webhook-service'"),
        f('serviceNamespace', str, false, "default 'system'"),
        f('path', str, false, "default '/convert'"),
        f('servicePort', int, false, 'port of the webhook Service (default: unset, 443)'),
        f('conversionReviewVersions', strs, false, "default ['v1']"),
      ],
    },
    repeatable: false,
    category: 'kind',
    help: 'The Kind converts between its versions through a webhook: sets `spec.conversion` (strategy `Webhook`). Put it on the hub (storage) version.',
  },
];

const FIELD: MarkerDefinition[] = [
  { name: 'Default', controllerGen: 'kubebuilder:default', targets: ['field'], args: { shape: 'value', arg: json, label: 'value' }, repeatable: false, category: 'field', help: 'Default value (any JSON value).' },
  { name: 'Example', controllerGen: 'kubebuilder:example', targets: ['field'], args: { shape: 'value', arg: json, label: 'value' }, repeatable: false, category: 'field', help: 'Example value (any JSON value).' },
  { name: 'Nullable', controllerGen: 'nullable', targets: ['field'], args: { shape: 'none' }, repeatable: false, category: 'field', help: 'The field accepts null (`nullable: true`).' },
  { name: 'Optional', controllerGen: 'kubebuilder:validation:Optional', targets: ['field'], args: { shape: 'none' }, repeatable: false, category: 'field', help: 'The field is not required even without `?`.' },
  { name: 'Required', controllerGen: 'kubebuilder:validation:Required', targets: ['field'], args: { shape: 'none' }, repeatable: false, category: 'field', help: 'The field is required even with `?` or `fieldsOptionalByDefault`.' },
  { name: 'ListType', controllerGen: 'listType', targets: FIELD_OR_TYPE, args: { shape: 'value', arg: { type: 'string', enum: ['atomic', 'set', 'map'] }, label: 'type' }, repeatable: false, category: 'field', help: 'List semantics for server-side apply (`x-kubernetes-list-type`).' },
  { name: 'ListMapKey', controllerGen: 'listMapKey', targets: FIELD_OR_TYPE, args: { shape: 'variadic', arg: str, label: 'keys' }, repeatable: true, category: 'field', help: "Key fields of a `@ListType('map')` list (`x-kubernetes-list-map-keys`)." },
  { name: 'MapType', controllerGen: 'mapType', targets: FIELD_OR_TYPE, args: { shape: 'value', arg: { type: 'string', enum: ['atomic', 'granular'] }, label: 'type' }, repeatable: false, category: 'field', help: 'Map semantics for server-side apply (`x-kubernetes-map-type`).' },
  { name: 'StructType', controllerGen: 'structType', targets: FIELD_OR_TYPE, args: { shape: 'value', arg: { type: 'string', enum: ['atomic', 'granular'] }, label: 'type' }, repeatable: false, category: 'field', help: 'Object semantics for server-side apply (`x-kubernetes-map-type`).' },
  { name: 'Immutable', controllerGen: 'k8s:immutable', targets: ['field'], args: { shape: 'none' }, repeatable: false, category: 'field', help: 'The value cannot change once set (a `self == oldSelf` CEL rule).' },
];

const oneOfLike = (name: string, cg: string, help: string): MarkerDefinition => ({
  name,
  controllerGen: cg,
  targets: ['type', 'kind'],
  args: { shape: 'variadic', arg: str, label: 'fields' },
  repeatable: true,
  category: 'class',
  help,
});

const CLASS: MarkerDefinition[] = [
  oneOfLike('AtMostOneOf', 'kubebuilder:validation:AtMostOneOf', 'At most one of these fields may be set (a CEL rule).'),
  oneOfLike('ExactlyOneOf', 'kubebuilder:validation:ExactlyOneOf', 'Exactly one of these fields must be set (a CEL rule).'),
  oneOfLike('AtLeastOneOf', 'kubebuilder:validation:AtLeastOneOf', 'At least one of these fields must be set (a CEL rule).'),
];

const RBAC: MarkerDefinition[] = [
  {
    name: 'Rbac',
    controllerGen: 'kubebuilder:rbac',
    targets: ['class'],
    args: {
      shape: 'object',
      optional: false,
      fields: [
        f('groups', strs, false, "API groups ('' is the core group)"),
        f('resources', strs, false, 'resources (`deployments`, `deployments/status`, ...)'),
        f('resourceNames', strs, false, 'names the rule is limited to'),
        f('verbs', strs, true, 'verbs (`get`, `list`, `watch`, `create`, `update`, `patch`, `delete`, ...)'),
        f('urls', strs, false, 'non-resource URLs'),
        f('namespace', str, false, 'makes a namespaced Role in that namespace'),
        f('roleName', str, false, "name of the Role / ClusterRole (default 'manager-role')"),
      ],
    },
    repeatable: true,
    category: 'rbac',
    help: 'A permission the manager needs; rules are merged into `config/rbac/role.yaml`.',
  },
];

const WEBHOOK: MarkerDefinition[] = [
  {
    name: 'Webhook',
    controllerGen: 'kubebuilder:webhook',
    targets: ['class'],
    args: {
      shape: 'object',
      optional: false,
      fields: [
        f('path', str, false, 'URL path served by the manager'),
        f('url', str, false, 'external URL (instead of a Service)'),
        f('mutating', bool, true, 'mutating (true) or validating (false)'),
        f('failurePolicy', { type: 'string', enum: ['Fail', 'Ignore'] }, true, 'what the API server does when the call fails'),
        f('sideEffects', { type: 'string', enum: ['None', 'NoneOnDryRun', 'Some', 'Unknown'] }, false, 'side effects of the webhook'),
        f('groups', strs, true, 'API groups'),
        f('resources', strs, true, 'resources'),
        f('verbs', strs, true, 'operations (`create`, `update`, `delete`, `connect`)'),
        f('versions', strs, true, 'API versions'),
        f('name', str, true, 'webhook name (a domain name)'),
        f('admissionReviewVersions', strs, true, "AdmissionReview versions (['v1'])"),
        f('matchPolicy', { type: 'string', enum: ['Exact', 'Equivalent'] }, false, 'match policy'),
        f('reinvocationPolicy', { type: 'string', enum: ['Never', 'IfNeeded'] }, false, 'reinvocation policy (mutating only)'),
        f('timeoutSeconds', int, false, 'call timeout'),
        f('serviceName', str, false, "Service name (default 'webhook-service')"),
        f('serviceNamespace', str, false, "Service namespace (default 'system')"),
        f('servicePort', int, false, 'Service port'),
      ],
    },
    repeatable: true,
    category: 'webhook',
    help: 'An admission webhook served by this class; collected into `config/webhook/manifests.yaml`.',
  },
  {
    name: 'WebhookConfiguration',
    controllerGen: 'kubebuilder:webhookconfiguration',
    targets: ['class'],
    args: { shape: 'object', optional: false, fields: [f('mutating', bool, true, 'which configuration is named'), f('name', str, true, 'object name')] },
    repeatable: true,
    category: 'webhook',
    help: 'Names the generated Mutating / Validating webhook configuration.',
  },
];

const PACKAGE: MarkerDefinition[] = [
  {
    name: 'defineGroupVersion',
    controllerGen: 'groupName / versionName / kubebuilder:validation:Optional / kubebuilder:skip',
    targets: ['package'],
    args: {
      shape: 'object',
      optional: false,
      fields: [
        f('group', str, true, 'API group (`+groupName`)'),
        f('version', str, true, 'API version (`+versionName`)'),
        f('fieldsOptionalByDefault', bool, false, 'fields without `?` are optional too (package-level `+kubebuilder:validation:Optional`)'),
        f('skip', bool, false, 'generate nothing for this group-version (`+kubebuilder:skip`)'),
      ],
    },
    repeatable: false,
    category: 'package',
    help: "Declares the group-version of the Kinds in this directory; lives in `groupversion.ts` (`export const groupVersion = defineGroupVersion({...})`).",
  },
];

export const MARKER_DEFINITIONS: readonly MarkerDefinition[] = [...PACKAGE, ...KIND, ...VALIDATION, ...ITEMS, ...FIELD, ...CLASS, ...RBAC, ...WEBHOOK];

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

const BY_TAG = new Map(MARKER_DEFINITIONS.filter((d) => d.targets.includes('field') || d.targets.includes('type')).map((d) => [jsDocTagName(d.name).toLowerCase(), d]));

/** The marker a JSDoc tag names (case-insensitive), if any. */
export function markerForJsDocTag(tag: string): MarkerDefinition | undefined {
  return BY_TAG.get(tag.toLowerCase());
}

/** Type aliases `kubeforge/markers` exports (mapped to schemas by name). */
export const MARKER_TYPE_ALIASES = ['int32', 'int64', 'Quantity', 'IntOrString', 'Duration', 'Time', 'MicroTime'] as const;
