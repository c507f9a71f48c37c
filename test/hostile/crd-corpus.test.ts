// Hostile input, family 2: every CRD `kubeforge manifests` would write must install.
//
// A corpus of Kinds is generated from combinations of field types and markers (plus the hostile
// cases the issue names). All of them go through the real analysis and the manifests pipeline's
// generators (the CRD check, RBAC, webhooks) in one project. For each Kind either
//   - the pipeline reports errors, and every one of them is located (file:line:col in the Kind's
//     file or its groupversion.ts, a code, a hint); named cases also say which code and line; or
//   - the CRD is installed into ONE real API server, which must accept it, and a sample object
//     built for the Kind must be accepted too (server-side dry run).
// Our refusals for rules the server enforces (CEL from 1.25, selectable fields from 1.30) are
// installed too: the server must refuse them as well.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Diagnostic, Reporter } from '../../src/diagnostics/index.js';
import { runGenerators } from '../../src/manifests/generators.js';
import { analyzeProject } from '../manifests/analyze-helper.js';
import { RestClient } from '../../src/runtime/client/rest.js';
import { StatusError } from '../../src/runtime/client/errors.js';
import { installCRDs, TestEnvironment, type CRDObject } from '../../src/testing/index.js';
import { apiServerMinor } from '../../src/testing/environment.js';
import { must } from '../helpers/must.js';

const MARKERS = [
  'Root',
  'Resource',
  'SelectableField',
  'SubresourceStatus',
  'SubresourceScale',
  'PrintColumn',
  'Rbac',
  'Metadata',
  'ConversionWebhook',
  'DeprecatedVersion',
  'Maximum',
  'Minimum',
  'MaxProperties',
  'MinProperties',
  'ExclusiveMaximum',
  'ExclusiveMinimum',
  'MultipleOf',
  'MinLength',
  'MaxLength',
  'Pattern',
  'MinItems',
  'MaxItems',
  'UniqueItems',
  'Enum',
  'Format',
  'Type',
  'XValidation',
  'PreserveUnknownFields',
  'EmbeddedResource',
  'IntOrString',
  'Schemaless',
  'Title',
  'Items',
  'Default',
  'Example',
  'Nullable',
  'Optional',
  'Required',
  'ListType',
  'ListMapKey',
  'MapType',
  'StructType',
  'Immutable',
];

interface Expect {
  /** Codes any of which is acceptable for the located error. */
  codes: string[];
  /** A fragment of the source line the error must point at. */
  line: string;
  /** The error is in groupversion.ts of the case's folder rather than the Kind's file. */
  inGroupVersion?: boolean;
}

interface Case {
  name: string;
  /** Members of the spec class. */
  members: string;
  /** Extra declarations (item types); `%K` is replaced by the Kind name. */
  decls?: string;
  /** Kind-level markers, one per line. */
  kindMarkers?: string;
  /** The spec of a sample object (accepted cases). */
  sample?: Record<string, unknown>;
  expect?: Expect;
  /** Kind name override (invalid names). */
  kind?: string;
  /** A separate group (own folder). */
  group?: string;
}

// ---------------------------------------------------------------------------------------------
// The combinations

interface FieldType {
  id: string;
  ts: string;
  decls?: string;
  value: unknown;
  kind: 'string' | 'int' | 'number' | 'boolean' | 'array' | 'objarray' | 'map' | 'object' | 'ios' | 'quantity';
}

const TYPES: FieldType[] = [
  { id: 'string', ts: 'string', value: 'ab', kind: 'string' },
  { id: 'int32', ts: 'int32', value: 2, kind: 'int' },
  { id: 'number', ts: 'number', value: 2, kind: 'number' },
  { id: 'boolean', ts: 'boolean', value: true, kind: 'boolean' },
  { id: 'strings', ts: 'string[]', value: ['ab'], kind: 'array' },
  { id: 'ints', ts: 'int32[]', value: [2], kind: 'array' },
  {
    id: 'items',
    ts: '%KItem[]',
    decls: 'export class %KItem { name!: string; port?: int32; }',
    value: [{ name: 'ab', port: 2 }],
    kind: 'objarray',
  },
  { id: 'record', ts: 'Record<string, string>', value: { ab: 'ab' }, kind: 'map' },
  {
    id: 'nested',
    ts: '%KNested',
    decls: 'export class %KNested { name?: string; count?: int32; }',
    value: { name: 'ab' },
    kind: 'object',
  },
  { id: 'intorstring', ts: 'IntOrString', value: 2, kind: 'ios' },
  { id: 'quantity', ts: 'Quantity', value: '2', kind: 'quantity' },
];

interface MarkerCombo {
  id: string;
  /** Decorators on the field. */
  text: (t: FieldType) => string;
  /** A value for the sample that satisfies the marker, when the type's value does not. */
  value?: (t: FieldType) => unknown;
}

const enumValue = (t: FieldType) =>
  t.kind === 'int' || t.kind === 'number' || t.kind === 'ios'
    ? 2
    : t.kind === 'boolean'
      ? true
      : t.kind === 'quantity'
        ? '2'
        : 'ab';

const COMBOS: MarkerCombo[] = [
  { id: 'none', text: () => '' },
  { id: 'minimum', text: () => '@Minimum(1)' },
  { id: 'maximum', text: () => '@Maximum(10)' },
  { id: 'min-max', text: () => '@Minimum(1) @Maximum(10)' },
  { id: 'min-over-max', text: () => '@Minimum(10) @Maximum(1)' },
  { id: 'exclusive', text: () => '@Minimum(1) @ExclusiveMinimum() @Maximum(1)' },
  { id: 'multipleof', text: () => '@MultipleOf(2)' },
  { id: 'multipleof-zero', text: () => '@MultipleOf(0)' },
  { id: 'minlength', text: () => '@MinLength(1)' },
  { id: 'length-pair-bad', text: () => '@MinLength(5) @MaxLength(2)' },
  { id: 'pattern-ok', text: () => "@Pattern('^[a-z0-9]+$')" },
  { id: 'pattern-lookahead', text: () => "@Pattern('^(?=a)[a-z]+$')" },
  { id: 'pattern-open-class', text: () => "@Pattern('[a-')" },
  { id: 'pattern-regexp-literal', text: () => '@Pattern(/^\\w+$/)' },
  { id: 'items-pair-bad', text: () => '@MinItems(3) @MaxItems(1)' },
  { id: 'maxitems', text: () => '@MaxItems(3)' },
  { id: 'properties-pair-bad', text: () => '@MinProperties(3) @MaxProperties(1)' },
  { id: 'enum', text: (t) => `@Enum(${JSON.stringify(enumValue(t))})`, value: (t) => enumValue(t) },
  { id: 'default-ok', text: (t) => `@Default(${JSON.stringify(t.value)})` },
  { id: 'default-wrong-type', text: (t) => `@Default(${t.kind === 'string' ? '5' : "'x'"})` },
  { id: 'default-unknown-field', text: () => '@Default({ unknownField: 1 })' },
  { id: 'nullable', text: () => '@Nullable()' },
  { id: 'listtype-set', text: () => "@ListType('set')" },
  { id: 'listtype-map-nokeys', text: () => "@ListType('map')" },
  { id: 'listtype-map-name', text: () => "@ListType('map') @ListMapKey('name')" },
  { id: 'uniqueitems', text: () => '@UniqueItems()' },
  { id: 'items-pattern', text: () => "@Items.Pattern('(?<!x)y')" },
  { id: 'items-maxlength', text: () => '@Items.MaxLength(5)' },
  { id: 'maptype', text: () => "@MapType('atomic')" },
  { id: 'schemaless', text: () => '@Schemaless()' },
  { id: 'schemaless-preserve', text: () => '@Schemaless() @PreserveUnknownFields()' },
  { id: 'preserve', text: () => '@PreserveUnknownFields()' },
  { id: 'xvalidation', text: () => "@XValidation({ rule: 'true', message: 'ok' })" },
  { id: 'xvalidation-multiline', text: () => "@XValidation({ rule: 'true', message: 'a\\nb' })" },
];

function combos(): Case[] {
  const out: Case[] = [];
  for (const t of TYPES) {
    for (const m of COMBOS) {
      const field = `${m.text(t)} f?: ${t.ts};`.trim();
      const value = m.value ? m.value(t) : t.value;
      out.push({ name: `${t.id} + ${m.id}`, members: field, decls: t.decls, sample: { f: value } });
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The hostile cases the issue names, with the code and line expected

const NAMED: Case[] = [
  {
    name: 'list-map key optional without a default',
    decls: 'export class %KPort { name?: string; port!: int32; }',
    members: "@ListType('map') @ListMapKey('name') ports?: %KPort[];",
    expect: { codes: ['KF4604'], line: "@ListMapKey('name')" },
  },
  {
    name: 'list-map key required',
    decls: 'export class %KPort { name!: string; port?: int32; }',
    members: "@ListType('map') @ListMapKey('name') ports?: %KPort[];",
    sample: { ports: [{ name: 'a', port: 1 }, { name: 'b' }] },
  },
  {
    name: 'list-map key optional with a default',
    decls: "export class %KPort { @Default('x') name?: string; port!: int32; }",
    members: "@ListType('map') @ListMapKey('name') ports?: %KPort[];",
    sample: { ports: [{ name: 'a', port: 1 }] },
  },
  {
    name: 'list-map key that is not a scalar',
    decls: 'export class %KPort { name!: string[]; }',
    members: "@ListType('map') @ListMapKey('name') ports?: %KPort[];",
    expect: { codes: ['KF4604'], line: "@ListMapKey('name')" },
  },
  { name: 'pattern [a-', members: "@Pattern('[a-') s?: string;", expect: { codes: ['KF4605'], line: '@Pattern' } },
  {
    name: 'pattern lookahead',
    members: "@Pattern('^(?!x)') s?: string;",
    expect: { codes: ['KF4605'], line: '@Pattern' },
  },
  {
    name: 'pattern lookbehind',
    members: "@Pattern('(?<=a)b') s?: string;",
    expect: { codes: ['KF4605'], line: '@Pattern' },
  },
  {
    name: 'pattern backreference',
    members: "@Pattern('(a)\\\\1') s?: string;",
    expect: { codes: ['KF4605'], line: '@Pattern' },
  },
  {
    name: 'pattern possessive',
    members: "@Pattern('a*+') s?: string;",
    expect: { codes: ['KF4605'], line: '@Pattern' },
  },
  {
    name: 'pattern atomic group',
    members: "@Pattern('(?>a)') s?: string;",
    expect: { codes: ['KF4605'], line: '@Pattern' },
  },
  {
    name: 'pattern \\u escape',
    members: "@Pattern('^\\\\u0041$') s?: string;",
    expect: { codes: ['KF4605'], line: '@Pattern' },
  },
  {
    name: 'pattern reversed range',
    members: "@Pattern('[z-a]') s?: string;",
    expect: { codes: ['KF4605'], line: '@Pattern' },
  },
  { name: 'pattern RE2 named group', members: "@Pattern('^(?P<x>[a-z]+)$') s?: string;", sample: { s: 'ab' } },
  {
    name: 'pattern on a type alias',
    decls: '/** @pattern (?=x) */\nexport type %KWord = string;',
    members: 'w?: %KWord;',
    expect: { codes: ['KF4605'], line: '@pattern (?=x)' },
  },
  {
    name: 'default object with an unknown field',
    decls: 'export class %KCfg { a?: string; }',
    members: "@Default({ a: 'x', b: 1 }) cfg?: %KCfg;",
    expect: { codes: ['KF4606'], line: '@Default' },
  },
  {
    name: 'default object missing a required field',
    decls: 'export class %KCfg { a!: string; b?: string; }',
    members: "@Default({ b: 'x' }) cfg?: %KCfg;",
    expect: { codes: ['KF4606'], line: '@Default' },
  },
  {
    name: 'default of the wrong type',
    members: "@Default('three') n?: int32;",
    expect: { codes: ['KF4606', 'KF2009'], line: '@Default' },
  },
  {
    name: 'default outside the enum',
    members: "@Enum('a', 'b') @Default('c') s?: string;",
    expect: { codes: ['KF4606', 'KF2009'], line: '@Default' },
  },
  {
    name: 'default above the maximum',
    members: '@Maximum(3) @Default(5) n?: int32;',
    expect: { codes: ['KF4606'], line: '@Default' },
  },
  {
    name: 'default not matching the pattern',
    members: "@Pattern('^[a-z]+$') @Default('ABC') s?: string;",
    expect: { codes: ['KF4606'], line: '@Default' },
  },
  {
    name: 'default too long',
    members: "@MaxLength(2) @Default('abc') s?: string;",
    expect: { codes: ['KF4606'], line: '@Default' },
  },
  {
    name: 'default list with duplicates in a set',
    members: "@ListType('set') @Default(['a', 'a']) s?: string[];",
    expect: { codes: ['KF4606'], line: '@Default' },
  },
  {
    name: 'default date-time that is not one',
    members: "@Format('date-time') @Default('yesterday') s?: string;",
    expect: { codes: ['KF4606'], line: '@Default' },
  },
  {
    name: 'default null on a non-nullable field',
    members: '@Default(null) s?: string;',
    expect: { codes: ['KF4606', 'KF2009'], line: '@Default' },
  },
  {
    name: 'good default object',
    decls: 'export class %KCfg { a!: string; b?: int32; }',
    members: "@Default({ a: 'x', b: 2 }) cfg?: %KCfg;",
    sample: {},
  },
  {
    name: 'set of objects',
    decls: 'export class %KIt { a?: string; }',
    members: "@ListType('set') xs?: %KIt[];",
    expect: { codes: ['KF4604'], line: "@ListType('set')" },
  },
  {
    name: 'set of atomic objects',
    decls: "@StructType('atomic')\nexport class %KIt { a?: string; }",
    members: "@ListType('set') xs?: %KIt[];",
    sample: { xs: [{ a: 'x' }, { a: 'y' }] },
  },
  {
    name: 'map list without keys',
    decls: 'export class %KIt { a?: string; }',
    members: "@ListType('map') xs?: %KIt[];",
    expect: { codes: ['KF4604'], line: "@ListType('map')" },
  },
  {
    name: 'map list of scalars',
    members: "@ListType('map') xs?: string[];",
    expect: { codes: ['KF4604'], line: "@ListType('map')" },
  },
  {
    name: 'set of nullable items',
    members: "@ListType('set') xs?: (string | null)[];",
    expect: { codes: ['KF4604'], line: "@ListType('set')" },
  },
  {
    name: 'schemaless alone',
    members: '@Schemaless() free?: unknown;',
    expect: { codes: ['KF4603'], line: '@Schemaless()' },
  },
  {
    name: 'uniqueItems',
    members: '@UniqueItems() xs?: string[];',
    expect: { codes: ['KF4603'], line: '@UniqueItems()' },
  },
  {
    name: 'embedded resource without fields',
    members: '@EmbeddedResource() obj?: Record<string, string>;',
    expect: { codes: ['KF4603', 'KF2009'], line: '@EmbeddedResource()' },
  },
  {
    name: 'minimum above maximum',
    members: '@Minimum(10) @Maximum(1) n?: int32;',
    expect: { codes: ['KF4607'], line: '@Minimum(10)' },
  },
  {
    name: 'minLength above maxLength',
    members: '@MinLength(5) @MaxLength(2) s?: string;',
    expect: { codes: ['KF4607'], line: '@MinLength(5)' },
  },
  {
    name: 'minItems above maxItems',
    members: '@MinItems(3) @MaxItems(1) xs?: string[];',
    expect: { codes: ['KF4607'], line: '@MinItems(3)' },
  },
  {
    name: 'minProperties above maxProperties',
    members: '@MinProperties(3) @MaxProperties(1) m?: Record<string, string>;',
    expect: { codes: ['KF4607'], line: '@MinProperties(3)' },
  },
  {
    name: 'field minimum above type maximum',
    decls: '/** @maximum 3 */\nexport type %KSmall = int32;',
    members: '@Minimum(5) n?: %KSmall;',
    expect: { codes: ['KF4607'], line: '@Minimum(5)' },
  },
  {
    name: 'negative maxLength',
    members: '@MaxLength(-1) s?: string;',
    expect: { codes: ['KF4607'], line: '@MaxLength(-1)' },
  },
  {
    name: 'resource path in capitals',
    kindMarkers: "@Resource({ path: 'Things' })",
    members: 's?: string;',
    expect: { codes: ['KF4601'], line: '@Resource' },
  },
  {
    name: 'short name with a dot',
    kindMarkers: "@Resource({ shortName: ['a.b'] })",
    members: 's?: string;',
    expect: { codes: ['KF4601'], line: '@Resource' },
  },
  {
    name: 'category in capitals',
    kindMarkers: "@Resource({ categories: ['All'] })",
    members: 's?: string;',
    expect: { codes: ['KF4601'], line: '@Resource' },
  },
  {
    name: 'good resource names',
    kindMarkers: "@Resource({ path: 'goodthings', singular: 'goodthing', shortName: ['gt'], categories: ['all'] })",
    members: 's?: string;',
    sample: { s: 'x' },
  },
  {
    name: 'scale paths without the leading dot',
    kindMarkers: "@SubresourceScale({ specpath: 'spec.replicas', statuspath: '.status.replicas' })",
    members: 'replicas?: int32;',
    decls: 'export class %KStatus { replicas?: int32; }',
    expect: { codes: ['KF4608'], line: '@SubresourceScale' },
  },
  {
    name: 'scale path to a field that does not exist',
    kindMarkers: "@SubresourceScale({ specpath: '.spec.size', statuspath: '.status.replicas' })",
    members: 'replicas?: int32;',
    expect: { codes: ['KF4608'], line: '@SubresourceScale' },
  },
  {
    name: 'scale on integer fields',
    kindMarkers:
      "@SubresourceStatus()\n@SubresourceScale({ specpath: '.spec.replicas', statuspath: '.status.replicas' })",
    members: 'replicas?: int32;',
    sample: { replicas: 2 },
  },
  {
    name: 'print column path without the dot',
    kindMarkers: "@PrintColumn({ name: 'S', type: 'string', jsonPath: 'spec.s' })",
    members: 's?: string;',
    expect: { codes: ['KF4609'], line: '@PrintColumn' },
  },
  {
    name: 'print column with a filter (the Ready idiom)',
    kindMarkers:
      "@SubresourceStatus()\n@PrintColumn({ name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type==\"Ready\")].status' })",
    members: 's?: string;',
  },
  {
    name: 'print column with a wildcard',
    kindMarkers: "@PrintColumn({ name: 'Ports', type: 'string', jsonPath: '.spec.ports[*].name' })",
    decls: 'export class %KP { name?: string; }',
    members: 'ports?: %KP[];',
  },
  {
    name: 'print column with an unknown format',
    kindMarkers: "@PrintColumn({ name: 'S', type: 'string', jsonPath: '.spec.s', format: 'uuid' })",
    members: 's?: string;',
    expect: { codes: ['KF4609'], line: '@PrintColumn' },
  },
  {
    name: 'status root with maxProperties',
    kindMarkers: '@SubresourceStatus()\n@MaxProperties(5)',
    members: 's?: string;',
    expect: { codes: ['KF4608'], line: '@MaxProperties(5)' },
  },
  {
    name: 'metadata label with a space',
    kindMarkers: "@Metadata({ labels: { 'a b': 'x' } })",
    members: 's?: string;',
    expect: { codes: ['KF4610'], line: '@Metadata' },
  },
  {
    name: 'conversion review version unknown',
    kindMarkers: "@ConversionWebhook({ conversionReviewVersions: ['v2'] })",
    members: 's?: string;',
    expect: { codes: ['KF4610'], line: '@ConversionWebhook' },
  },
  {
    name: 'deprecation warning on two lines',
    kindMarkers: "@DeprecatedVersion({ warning: 'a\\nb' })",
    members: 's?: string;',
    expect: { codes: ['KF4610'], line: '@DeprecatedVersion' },
  },
  {
    name: 'rbac verb that is not a verb',
    kindMarkers: "@Rbac({ groups: [''], resources: ['pods'], verbs: ['get', 'fetch'] })",
    members: 's?: string;',
    expect: { codes: ['KF4101'], line: '@Rbac' },
  },
  {
    name: 'rbac verb with capitals',
    kindMarkers: "@Rbac({ groups: ['apps'], resources: ['deployments'], verbs: ['Get'] })",
    members: 's?: string;',
    expect: { codes: ['KF4101'], line: '@Rbac' },
  },
  {
    name: 'rbac wildcard verb',
    kindMarkers: "@Rbac({ groups: [''], resources: ['configmaps'], verbs: ['*'] })",
    members: 's?: string;',
    sample: {},
  },
  {
    name: 'Buffer from a dependency',
    members: 'data?: Buffer;',
    expect: { codes: ['KF3010', 'KF3011', 'KF3001', 'KF3007'], line: 'data?: Buffer;' },
  },
  {
    name: '@Type(array) on a string: an array without items',
    members: "@Type('array') s?: string;",
    expect: { codes: ['KF4603'], line: "@Type('array')" },
  },
  {
    name: 'embedded resource with fields',
    decls: 'export class %KObj { apiVersion?: string; kind?: string; name?: string; }',
    members: '@EmbeddedResource() obj?: %KObj;',
    sample: { obj: { apiVersion: 'v1', kind: 'X', name: 'n' } },
  },
  {
    name: 'singular name in capitals',
    kindMarkers: "@Resource({ singular: 'Thing' })",
    members: 's?: string;',
    expect: { codes: ['KF4601'], line: '@Resource' },
  },
  {
    name: 'selectable field on an object',
    kindMarkers: "@SelectableField({ jsonPath: '.spec.o' })",
    decls: 'export class %KO { a?: string; }',
    members: 'o?: %KO;',
    expect: { codes: ['KF4609'], line: '@SelectableField' },
  },
  {
    name: 'selectable field on a string',
    kindMarkers: "@SelectableField({ jsonPath: '.spec.s' })",
    members: 's?: string;',
    sample: { s: 'x' },
  },
  {
    name: 'conversion webhook path with ..',
    kindMarkers: "@ConversionWebhook({ path: '/a/../b' })",
    members: 's?: string;',
    expect: { codes: ['KF4610'], line: '@ConversionWebhook' },
  },
  {
    name: 'annotation key with two slashes',
    kindMarkers: "@Metadata({ annotations: { 'a/b/c': 'x' } })",
    members: 's?: string;',
    expect: { codes: ['KF4610'], line: '@Metadata' },
  },
  {
    name: '@Immutable inside the items of an atomic list',
    decls: 'export class %KIt { @Immutable() a?: string; }',
    members: 'xs?: %KIt[];',
    expect: { codes: ['KF4611'], line: '@Immutable()' },
  },
  // an unbounded list of objects: the transition rule runs for as many items as fit in a request, over the per-rule cost budget
  {
    name: '@Immutable inside the items of a map list',
    decls: 'export class %KIt { k!: string; @Immutable() a?: string; }',
    members: "@ListType('map') @ListMapKey('k') xs?: %KIt[];",
    expect: { codes: ['KF4614'], line: '@Immutable()' },
  },
  {
    name: '@Immutable inside the items of a bounded map list',
    decls: 'export class %KIt { k!: string; @Immutable() a?: string; }',
    members: "@ListType('map') @ListMapKey('k') @MaxItems(10) xs?: %KIt[];",
    sample: { xs: [{ k: 'x', a: 'y' }] },
  },
  {
    name: 'function member in a dependency type',
    members: 'd?: DepFn;',
    expect: { codes: ['KF3004'], line: 'd?: DepFn;' },
  },
  {
    name: 'lookahead pattern in a dependency type',
    members: 'd?: DepPat;',
    expect: { codes: ['KF4605'], line: 'd?: DepPat;' },
  },
  { name: 'a fine dependency type', members: 'd?: DepOk;', sample: { d: { n: 1 } } },
  {
    name: 'Map from the standard library',
    members: 'm?: Map<string, string>;',
    expect: { codes: ['KF3007'], line: 'm?: Map' },
  },
  {
    name: 'xvalidation reason unknown',
    members: "@XValidation({ rule: 'true', fieldPath: '.nope' }) s?: string;",
    expect: { codes: ['KF4611'], line: '@XValidation' },
  },
  {
    name: 'kind name with an underscore',
    kind: 'Bad_Kind',
    members: 's?: string;',
    expect: { codes: ['KF4601'], line: 'export class Bad_Kind ' },
  },
  {
    name: 'kind name with a dollar',
    kind: 'Bad$Kind',
    members: 's?: string;',
    expect: { codes: ['KF4601'], line: 'export class Bad$Kind ' },
  },
  {
    name: 'group without a dot',
    group: 'nodot',
    members: 's?: string;',
    expect: { codes: ['KF4602'], line: "group: 'nodot'", inGroupVersion: true },
  },
  {
    name: 'protected group',
    group: 'things.k8s.io',
    members: 's?: string;',
    expect: { codes: ['KF4602'], line: "group: 'things.k8s.io'", inGroupVersion: true },
  },
  { name: 'group with a dot', group: 'fine.example.org', members: 's?: string;', sample: { s: 'x' } },
];

// ---------------------------------------------------------------------------------------------
// Project generation

interface Placed {
  c: Case;
  kind: string;
  file: string;
  gvFile: string;
  group: string;
  source: string;
}

function kindSource(c: Case, kind: string): string {
  const sub = (s: string) => s.replaceAll('%K', kind);
  return [
    `import { ${MARKERS.join(', ')}, type int32, type Quantity } from 'kubeforge/markers';`,
    "import type { V1ObjectMeta } from '@kubernetes/client-node';",
    "import type { DepFn, DepPat, DepOk } from 'dep';",
    c.decls ? sub(c.decls) : '',
    `export class ${kind}Spec {`,
    `  ${sub(c.members)}`,
    '}',
    `export class ${kind}Status { replicas?: int32; }`,
    c.kindMarkers ?? '',
    '@Root()',
    `export class ${kind} {`,
    '  metadata?: V1ObjectMeta;',
    `  spec?: ${kind}Spec;`,
    `  status?: ${kind}Status;`,
    '}',
    '',
  ].join('\n');
}

function writeProject(dir: string, cases: Case[]): Placed[] {
  const placed: Placed[] = [];
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { target: 'es2022', module: 'nodenext', strict: true }, include: ['src'] }),
  );
  // An installed package whose types the cases use (problems there belong to the user's field).
  mkdirSync(join(dir, 'node_modules/dep'), { recursive: true });
  writeFileSync(
    join(dir, 'node_modules/dep/package.json'),
    JSON.stringify({ name: 'dep', version: '1.0.0', types: 'index.d.ts' }),
  );
  writeFileSync(
    join(dir, 'node_modules/dep/index.d.ts'),
    'export interface DepFn {\n  n?: number;\n  run: () => void;\n}\nexport interface DepPat {\n  /** @pattern (?=x) */\n  s?: string;\n}\nexport interface DepOk {\n  n?: number;\n}\n',
  );
  const groups = new Map<string, string>();
  cases.forEach((c, i) => {
    const group = c.group ?? 'corpus.example.com';
    let folder = groups.get(group);
    if (!folder) {
      folder = join(dir, 'src/api', `g${groups.size}`, 'v1');
      groups.set(group, folder);
      mkdirSync(folder, { recursive: true });
      writeFileSync(
        join(folder, 'groupversion.ts'),
        `import { defineGroupVersion } from 'kubeforge/markers';\nexport const groupVersion = defineGroupVersion({ group: '${group}', version: 'v1' });\n`,
      );
    }
    const kind = c.kind ?? `Case${i}`;
    const file = join(folder, `case${i}_types.ts`);
    const source = kindSource(c, kind);
    writeFileSync(file, source);
    placed.push({ c, kind, file, gvFile: join(folder, 'groupversion.ts'), group, source });
  });
  return placed;
}

const lineOf = (text: string, fragment: string) => text.split('\n').findIndex((l) => l.includes(fragment)) + 1;

/** The minor of the API server the tests run on (20 for the legacy Debian build). */
const SERVER_MINOR = apiServerMinor(join(process.env.KUBEBUILDER_ASSETS ?? '', 'kube-apiserver')) ?? 0;

/**
 * Whether an error is for a rule the test's kube-apiserver enforces too (so the server must
 * refuse the CRD as well). Not: impossible bounds and enums (KF4607, kubeforge's own), scale
 * paths to undeclared fields and duplicate set items in a default (kubeforge's own), errors of
 * the analysis or RBAC (no CRD rule); CEL rules (KF4611) before 1.25 and selectable fields before
 * 1.30, which those servers do not know.
 */
function serverRule(d: Diagnostic): boolean {
  if (!/^KF46/.test(d.code) || d.code === 'KF4607') return false;
  if (d.code === 'KF4611' && SERVER_MINOR < 25) return false;
  if (/@SelectableField/.test(d.message) && SERVER_MINOR < 30) return false;
  // A set's duplicate in a default: the server's own words for it (`Duplicate value`), a rule it applies to objects only.
  return !/is not a field of|Duplicate value/.test(d.message);
}

function describeDiag(d: Diagnostic): string {
  return `${d.file}:${d.line}:${d.column} ${d.code} ${d.message}`;
}

/** The spec of a sample object: the case's own, or none. */
function sampleObject(p: Placed): Record<string, unknown> {
  return {
    apiVersion: `${p.group}/v1`,
    kind: p.kind,
    metadata: { name: 'sample', namespace: 'default' },
    spec: p.c.sample ?? {},
  };
}

// ---------------------------------------------------------------------------------------------

describe('hostile input: every CRD written with exit 0 installs', () => {
  const cases = [...NAMED, ...combos()];
  let dir: string;
  let env: TestEnvironment;
  let placed: Placed[];
  const errorsOf = new Map<Placed, Diagnostic[]>();
  const crdOf = new Map<Placed, CRDObject>();
  const refused = new Map<string, string>();
  const sampleErrors = new Map<Placed, string>();
  /** Kinds we refuse for a rule the server enforces: what the server said ('' when it accepted). */
  const alsoRefused = new Map<Placed, string>();

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kf-corpus-'));
    placed = writeProject(dir, cases);
    const analysis = await analyzeProject({ projectDir: dir, generatorVersion: 'v0' });
    // The generators as manifests runs them (the CRD check among them); one reporter drops repeats.
    const reporter = new Reporter();
    for (const d of analysis.diagnostics) reporter.report(d);
    await runGenerators(analysis, reporter);
    const all = reporter.diagnostics().filter((d) => d.severity === 'error');
    const byFile = new Map(placed.map((p) => [p.file, p]));
    const byGroup = new Map(placed.map((p) => [p.gvFile, placed.filter((q) => q.gvFile === p.gvFile)]));
    for (const d of all) {
      const owners = byFile.has(d.file ?? '')
        ? [must(byFile.get(must(d.file, 'd.file')), 'byFile.get(d.file!)')]
        : (byGroup.get(d.file ?? '') ?? []);
      assert.ok(owners.length, `an error outside every case's files: ${describeDiag(d)}`);
      for (const p of owners) errorsOf.set(p, [...(errorsOf.get(p) ?? []), d]);
    }
    for (const crd of analysis.crds as unknown as CRDObject[]) {
      const spec = crd.spec as { group: string; names: { kind: string } };
      const p = placed.find((q) => q.kind === spec.names.kind && q.group === spec.group);
      if (p) crdOf.set(p, crd);
    }

    const accepted = placed.filter((p) => !errorsOf.has(p));
    env = new TestEnvironment({ useExistingCluster: false });
    await env.start();
    // One install for all accepted CRDs; on a refusal, note it and go on with the rest.
    let rest = accepted.map((p) => crdOf.get(p)).filter((c): c is CRDObject => !!c);
    while (rest.length) {
      try {
        await installCRDs(env.config, { crds: rest, timeoutMs: 60_000 });
        rest = [];
      } catch (e) {
        const m = /CustomResourceDefinition (\S+) failed: ([\s\S]*)/.exec((e as Error).message);
        if (!m) throw e;
        refused.set(m[1], m[2]);
        rest = rest.slice(rest.findIndex((c) => c.metadata.name === m[1]) + 1);
      }
    }
    // Our refusals, asked of the server too where it enforces the rule: it must refuse them.
    for (const p of placed) {
      const errs = errorsOf.get(p) ?? [];
      const crd = crdOf.get(p);
      if (!crd || !errs.length || !errs.every(serverRule)) continue;
      try {
        await installCRDs(env.config, { crds: [crd], timeoutMs: 20_000 });
        alsoRefused.set(p, '');
      } catch (e) {
        alsoRefused.set(p, (e as Error).message);
      }
    }
    // A server-side dry run of every sample object (REST, not kubectl: kubectl would re-read
    // discovery for each of the new resources, throttled).
    const client = new RestClient(env.config);
    try {
      for (const p of accepted) {
        const crd = crdOf.get(p);
        if (!crd || refused.has(crd.metadata.name)) continue;
        const plural = (crd.spec as { names: { plural: string } }).names.plural;
        try {
          await client.request('POST', `/apis/${p.group}/v1/namespaces/default/${plural}`, {
            body: sampleObject(p),
            query: { dryRun: 'All' },
          });
        } catch (e) {
          sampleErrors.set(p, e instanceof StatusError ? `${e.code} ${e.message}` : String(e));
        }
      }
    } finally {
      client.close();
    }
  });
  after(async () => {
    await env?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it(`has at least 150 Kinds (${NAMED.length} named, ${cases.length - NAMED.length} combinations)`, () => {
    assert.ok(cases.length >= 150, `${cases.length} cases`);
  });

  it('each Kind either fails with located errors or installs, and its sample object is accepted', () => {
    const problems: string[] = [];
    let installedCount = 0;
    let failedCount = 0;
    for (const p of placed) {
      const errs = errorsOf.get(p);
      if (errs) {
        failedCount++;
        for (const d of errs) {
          if (!d.file || !d.line || !d.column) problems.push(`${p.c.name}: unlocated error ${describeDiag(d)}`);
          if (!d.hint || d.hint.length < 10)
            problems.push(`${p.c.name}: error without a useful hint ${describeDiag(d)}`);
        }
        continue;
      }
      const crd = crdOf.get(p);
      if (!crd) {
        problems.push(`${p.c.name}: no error and no CRD`);
        continue;
      }
      const why = refused.get(crd.metadata.name);
      if (why) problems.push(`${p.c.name}: written without error but refused by the API server: ${why.slice(0, 400)}`);
      else installedCount++;
      const objectError = sampleErrors.get(p);
      if (objectError) problems.push(`${p.c.name}: sample object refused: ${objectError.slice(0, 400)}`);
    }
    assert.deepEqual(problems, []);
    assert.ok(installedCount >= 40, `only ${installedCount} Kinds installed`);
    assert.ok(failedCount >= 60, `only ${failedCount} Kinds refused`);
  });

  it('the API server refuses what we refuse for its own rules', () => {
    const accepted = [...alsoRefused]
      .filter(([, why]) => why === '')
      .map(([p]) => `${p.c.name}: ${must(errorsOf.get(p), 'errorsOf.get(p)').map(describeDiag).join('; ')}`);
    assert.deepEqual(accepted, []);
    assert.ok(alsoRefused.size >= 40, `only ${alsoRefused.size} refusals cross-checked`);
  });

  for (const c of NAMED) {
    it(`${c.expect ? 'refuses' : 'accepts'}: ${c.name}`, () => {
      const p = must(
        placed.find((q) => q.c === c),
        'placed.find((q) => q.c === c)',
      );
      const errs = errorsOf.get(p) ?? [];
      if (!c.expect) {
        assert.deepEqual(errs.map(describeDiag), []);
        assert.ok(crdOf.has(p) && !refused.has(must(crdOf.get(p), 'crdOf.get(p)').metadata.name), 'installed');
        return;
      }
      const file = c.expect.inGroupVersion ? p.gvFile : p.file;
      const text = c.expect.inGroupVersion
        ? `import { defineGroupVersion } from 'kubeforge/markers';\nexport const groupVersion = defineGroupVersion({ group: '${p.group}', version: 'v1' });\n`
        : p.source;
      const line = lineOf(text, c.expect.line);
      assert.ok(line > 0, `fragment ${c.expect.line} not in the source`);
      const hit = errs.find(
        (d) => d.file === file && d.line === line && must(c.expect, 'c.expect').codes.includes(d.code),
      );
      assert.ok(
        hit,
        `expected ${c.expect.codes.join('|')} at line ${line} (${c.expect.line}); got:\n${errs.map(describeDiag).join('\n')}`,
      );
    });
  }
});
