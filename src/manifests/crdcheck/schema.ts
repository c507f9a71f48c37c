/**
 * The API server's rules for a CRD version's openAPIV3Schema, ported from
 * k8s.io/apiextensions-apiserver: pkg/apiserver/schema (structural invariants, value validations,
 * completeness), pkg/apis/apiextensions/validation (x-kubernetes-* combinations, list and map
 * types, patterns, uniqueItems, the root with a status subresource) and pkg/apiserver/schema/
 * defaulting (defaults must prune to themselves and validate). Where an older server accepts
 * what a current one refuses (list-map keys that are optional without a default), the current
 * rule applies. A few rules are kubeforge's own and say so: contradictory bounds (the server
 * installs the CRD, but no object could ever be valid).
 */
import type { JSONSchemaProps } from '../../schema/jsonschema.js';
import { CODES } from './codes.js';
import { checkRE2 } from '#cel/re2';
import { validateValue } from './value.js';

export interface SchemaViolation {
  code: string;
  /** Schema nodes from the root to the offending node. */
  chain: JSONSchemaProps[];
  /** The step from chain[i] to chain[i+1]: `properties.x`, `items`, `additionalProperties`, `allOf[0]`. */
  steps: string[];
  /** The keyword at fault (decides which marker is blamed). */
  keyword: string;
  message: string;
  hint: string;
  /** A warning: the server creates the CRD, and says this in a warning. Else an error (the server refuses it). */
  warning?: true;
}

type Level = 'root' | 'field' | 'item';

const VALUE_VALIDATION_FORBIDDEN: [keyof JSONSchemaProps, string][] = [
  ['type', 'type'],
  ['additionalProperties', 'additionalProperties'],
  ['default', 'default'],
  ['title', 'title'],
  ['description', 'description'],
  ['nullable', 'nullable'],
  ['x-kubernetes-preserve-unknown-fields', 'x-kubernetes-preserve-unknown-fields'],
  ['x-kubernetes-embedded-resource', 'x-kubernetes-embedded-resource'],
  ['x-kubernetes-int-or-string', 'x-kubernetes-int-or-string'],
  ['x-kubernetes-list-map-keys', 'x-kubernetes-list-map-keys'],
  ['x-kubernetes-list-type', 'x-kubernetes-list-type'],
  ['x-kubernetes-map-type', 'x-kubernetes-map-type'],
  ['x-kubernetes-validations', 'x-kubernetes-validations'],
];

/** Keys a root schema may carry when the status subresource is on (apiextensions' allowedFieldsAtRootSchema). */
const ALLOWED_AT_STATUS_ROOT = new Set([
  'description',
  'type',
  'format',
  'title',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'multipleOf',
  'required',
  'items',
  'properties',
  'externalDocs',
  'example',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-validations',
]);

const VALIDATION_REASONS = new Set([
  'FieldValueInvalid',
  'FieldValueForbidden',
  'FieldValueRequired',
  'FieldValueDuplicate',
]);

const isScalarType = (s: JSONSchemaProps | undefined) => !!s && s.type !== 'object' && s.type !== 'array';

/** `.spec.ports[*].name` for messages. */
export function schemaPath(steps: readonly string[]): string {
  let out = '';
  for (const st of steps) {
    if (st.startsWith('properties.')) out += `.${st.slice(11)}`;
    else if (st === 'items') out += '[*]';
    else if (st === 'additionalProperties') out += '[*]';
    // allOf / anyOf / not: the same value
  }
  return out || '(the object itself)';
}

/** Frozen (shared) schema subtrees that produced no violation, per walking context. */
const cleanSubtrees = new WeakMap<object, Set<string>>();

type Report = (
  chain: JSONSchemaProps[],
  steps: string[],
  code: string,
  keyword: string,
  message: string,
  hint: string,
  warning?: true,
) => void;
type Reporter = (code: string, keyword: string, message: string, hint: string) => void;

/** One schema node being checked: where it is, what is above it, and where to report. */
interface SchemaNode {
  readonly s: JSONSchemaProps;
  readonly lvl: Level;
  /** Schema nodes from the root to this one (a shared stack while walking). */
  readonly chain: JSONSchemaProps[];
  /** Steps from the root to this node (a shared stack while walking). */
  readonly steps: string[];
  readonly inMetadata: boolean;
  /** Where oldSelf stops being usable (items of a non-map list, fields of an atomic object), if above. */
  readonly uncorrelated: string | undefined;
  /** Reports at any node (copies chain and steps). */
  readonly report: Report;
  /** Reports at this node. */
  readonly r: Reporter;
}

export function checkSchema(root: JSONSchemaProps, statusEnabled: boolean): SchemaViolation[] {
  const out: SchemaViolation[] = [];
  // chain and steps are shared stacks while walking; a violation keeps copies
  const report: Report = (chain, steps, code, keyword, message, hint, warning) =>
    out.push({ code, chain: [...chain], steps: [...steps], keyword, message, hint, ...(warning ? { warning } : {}) });
  if (statusEnabled) {
    const extra = Object.keys(root).filter(
      (k) => !ALLOWED_AT_STATUS_ROOT.has(k) && (root as Record<string, unknown>)[k] !== undefined,
    );
    for (const k of extra.sort()) {
      report(
        [root],
        [],
        CODES.status,
        k,
        `the Kind's root schema has '${k}', which the API server forbids at the root when the status subresource is on (only ${[...ALLOWED_AT_STATUS_ROOT].join(', ')})`,
        'move the validation into spec (or status), or remove @SubresourceStatus()',
      );
    }
  }
  const walk = (
    s: JSONSchemaProps,
    lvl: Level,
    chain: JSONSchemaProps[],
    steps: string[],
    inMetadata: boolean,
    uncorrelated: string | undefined,
  ): void => {
    // A frozen subtree (a Kubernetes type every Kind embeds, shared between CRDs) already found
    // clean in the same context is clean again: what it reports depends on the subtree, the
    // level, metadata and whether oldSelf is usable, not on where it hangs.
    const context = Object.isFrozen(s)
      ? `${lvl}|${inMetadata ? 1 : 0}|${uncorrelated === undefined ? 0 : 1}`
      : undefined;
    if (context !== undefined && cleanSubtrees.get(s)?.has(context)) return;
    const before = out.length;
    const r: Reporter = (code, keyword, message, hint) => report(chain, steps, code, keyword, message, hint);
    const n: SchemaNode = { s, lvl, chain, steps, inMetadata, uncorrelated, report, r };
    checkNode(n);
    walkChildren(n, walk);
    if (context !== undefined && out.length === before) {
      const set = cleanSubtrees.get(s) ?? new Set();
      cleanSubtrees.set(s, set);
      set.add(context);
    }
  };
  walk(root, 'root', [root], [], false, undefined);
  return out;
}

/** Every rule family on one node, in the order their violations are reported. */
function checkNode(n: SchemaNode): void {
  checkStructural(n);
  checkListType(n);
  checkMapType(n);
  checkPatterns(n);
  // bounds and enums (kubeforge's rule: the server installs them, but nothing could ever validate)
  checkBounds(n.s, n.r);
  checkEnum(n);
  checkRuleShapes(n);
  checkDefault(n);
  checkValueValidations(n);
  checkFormats(n);
}

/** The node's properties, items and additionalProperties, each walked with its own context. */
function walkChildren(
  n: SchemaNode,
  walk: (
    s: JSONSchemaProps,
    lvl: Level,
    chain: JSONSchemaProps[],
    steps: string[],
    inMetadata: boolean,
    uncorrelated: string | undefined,
  ) => void,
): void {
  const { s, lvl, chain, steps, inMetadata, uncorrelated } = n;
  const child = (node: JSONSchemaProps, step: string, level: Level, meta: boolean, unc: string | undefined) => {
    chain.push(node);
    steps.push(step);
    walk(node, level, chain, steps, meta, unc);
    chain.pop();
    steps.pop();
  };
  const here = schemaPath(steps);
  const atomicObject = s['x-kubernetes-map-type'] === 'atomic';
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  for (const [k, p] of Object.entries(s.properties ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    child(
      p,
      `properties.${k}`,
      'field',
      inMetadata || (lvl === 'root' && k === 'metadata') || (embedded && k === 'metadata'),
      uncorrelated ?? (atomicObject ? here : undefined),
    );
  }
  if (s.items)
    child(
      s.items,
      'items',
      'item',
      inMetadata,
      uncorrelated ?? (s['x-kubernetes-list-type'] !== 'map' ? here : undefined),
    );
  if (typeof s.additionalProperties === 'object')
    child(s.additionalProperties, 'additionalProperties', 'field', inMetadata, uncorrelated);
}

/** Structural invariants: types, embedded resources, the root and its metadata, uniqueItems, additionalProperties. */
function checkStructural(n: SchemaNode): void {
  const { s, lvl, r } = n;
  const type = s.type;
  const ios = s['x-kubernetes-int-or-string'] === true;
  const preserve = s['x-kubernetes-preserve-unknown-fields'];
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  if (type === 'array' && !s.items)
    r(CODES.structural, 'type', 'is an array without an items schema', 'give the array an item type');
  if (embedded && type !== 'object')
    r(
      CODES.structural,
      'x-kubernetes-embedded-resource',
      `must be of type object when x-kubernetes-embedded-resource is set (found ${type ?? 'no type'})`,
      '@EmbeddedResource() applies to object fields',
    );
  else if (!type && !embedded && !ios && preserve !== true) {
    const where = lvl === 'root' ? 'at the root' : lvl === 'item' ? 'for array items' : 'for object fields';
    r(
      CODES.structural,
      'type',
      `has no type: a structural schema needs one ${where} (an empty schema is refused by the API server)`,
      'give the field a type: @PreserveUnknownFields() keeps any value, @Type(...) sets one; @Schemaless() alone is not enough',
    );
  }
  if (embedded && s.additionalProperties !== undefined)
    r(
      CODES.structural,
      'x-kubernetes-embedded-resource',
      'must not have additionalProperties with x-kubernetes-embedded-resource',
      'an embedded resource is an object with fields, not a map',
    );
  if (embedded && preserve !== true && !Object.keys(s.properties ?? {}).length)
    r(
      CODES.structural,
      'x-kubernetes-embedded-resource',
      'declares no properties: an embedded resource needs properties or x-kubernetes-preserve-unknown-fields',
      'add @PreserveUnknownFields() beside @EmbeddedResource(), or give the type fields',
    );
  if (lvl === 'root' && type && type !== 'object')
    r(CODES.structural, 'type', `must be of type object at the root (found ${type})`, 'a Kind is an object');
  if (lvl === 'root' && s.additionalProperties !== undefined)
    r(
      CODES.structural,
      'additionalProperties',
      'must not have additionalProperties at the root',
      'a Kind is an object with fields, not a map',
    );
  if (ios && preserve)
    r(
      CODES.structural,
      'x-kubernetes-preserve-unknown-fields',
      'must not combine x-kubernetes-int-or-string with x-kubernetes-preserve-unknown-fields',
      'remove @PreserveUnknownFields() from the int-or-string field',
    );
  if (ios && embedded)
    r(
      CODES.structural,
      'x-kubernetes-embedded-resource',
      'must not combine x-kubernetes-int-or-string with x-kubernetes-embedded-resource',
      'remove @EmbeddedResource()',
    );
  if (preserve === false)
    r(
      CODES.structural,
      'x-kubernetes-preserve-unknown-fields',
      'x-kubernetes-preserve-unknown-fields must be true or absent',
      'remove the false value',
    );
  checkObjectMeta(n, lvl === 'root' || embedded);
  if (s.uniqueItems)
    r(
      CODES.structural,
      'uniqueItems',
      'sets uniqueItems, which the API server refuses (its cost is quadratic)',
      "use @ListType('set') for a list of distinct scalars, or @ListType('map') with @ListMapKey for objects",
    );
  if (s.additionalProperties !== undefined && Object.keys(s.properties ?? {}).length)
    r(
      CODES.structural,
      'additionalProperties',
      'has both properties and additionalProperties, which the API server refuses',
      'a field is either an object with declared fields or a Record, not both',
    );
  if (s.additionalProperties === false)
    r(
      CODES.structural,
      'additionalProperties',
      'sets additionalProperties: false, which the API server refuses (unknown fields are pruned anyway)',
      'remove it',
    );
}

/** apiVersion, kind and metadata of the root or an embedded resource; what the root's metadata may restrict. */
function checkObjectMeta(n: SchemaNode, checkMeta: boolean): void {
  const { s, lvl, r } = n;
  if (checkMeta) {
    const p = s.properties ?? {};
    if (p.kind && p.kind.type !== 'string')
      r(
        CODES.structural,
        'type',
        `'kind' of an object with apiVersion, kind and metadata must be a string (found ${p.kind.type ?? 'no type'})`,
        "declare 'kind' as a string",
      );
    if (p.apiVersion && p.apiVersion.type !== 'string')
      r(
        CODES.structural,
        'type',
        `'apiVersion' must be a string (found ${p.apiVersion.type ?? 'no type'})`,
        "declare 'apiVersion' as a string",
      );
    if (p.metadata && p.metadata.type !== 'object')
      r(
        CODES.structural,
        'type',
        `'metadata' must be an object (found ${p.metadata.type ?? 'no type'})`,
        'declare metadata as V1ObjectMeta',
      );
  }
  if (lvl === 'root' && s.properties?.metadata) {
    const m = s.properties.metadata;
    const extra = Object.keys(m).filter((k) => k !== 'type' && k !== 'properties' && k !== 'description');
    const props = Object.keys(m.properties ?? {}).filter((k) => k !== 'name' && k !== 'generateName');
    if (extra.length || props.length)
      r(
        CODES.structural,
        'type',
        `metadata at the root may only restrict name and generateName (found ${[...extra, ...props.map((x) => `properties.${x}`)].join(', ')})`,
        'the API server owns metadata: validate it in a webhook instead',
      );
  }
}

/** x-kubernetes-list-type and list-map keys. */
function checkListType(n: SchemaNode): void {
  const { s, r } = n;
  const type = s.type;
  const lt = s['x-kubernetes-list-type'];
  const keys = s['x-kubernetes-list-map-keys'];
  if (lt !== undefined && !['atomic', 'set', 'map'].includes(lt))
    r(
      CODES.listType,
      'x-kubernetes-list-type',
      `x-kubernetes-list-type '${lt}' is not atomic, set or map`,
      "use @ListType('atomic' | 'set' | 'map')",
    );
  if (lt !== undefined && type !== 'array')
    r(
      CODES.listType,
      'x-kubernetes-list-type',
      `x-kubernetes-list-type is only allowed on arrays (found ${type ?? 'no type'})`,
      '@ListType applies to array fields',
    );
  if (keys?.length && lt !== 'map')
    r(
      CODES.listType,
      'x-kubernetes-list-map-keys',
      'has x-kubernetes-list-map-keys, so x-kubernetes-list-type must be map',
      "add @ListType('map')",
    );
  const items = s.items;
  if (lt === 'map' && type === 'array') {
    if (!keys?.length)
      r(
        CODES.listType,
        'x-kubernetes-list-type',
        'is a map list without keys: x-kubernetes-list-map-keys must not be empty when x-kubernetes-list-type is map',
        "add @ListMapKey('name') naming the field(s) that identify an item",
      );
    if (items && items.type !== 'object')
      r(
        CODES.listType,
        'x-kubernetes-list-type',
        `is a map list whose items are not objects (found ${items.type ?? 'no type'})`,
        "@ListType('map') needs object items; use 'set' for distinct scalars",
      );
    if (items?.type === 'object') checkListMapKeys(items, keys ?? [], r);
  }
  if ((lt === 'set' || lt === 'map') && items?.nullable)
    r(
      CODES.listType,
      'x-kubernetes-list-type',
      `items of a ${lt} list must not be nullable`,
      "remove '| null' from the item type",
    );
  if (lt === 'set' && items) {
    if (
      items.type === 'array' &&
      items['x-kubernetes-list-type'] !== undefined &&
      items['x-kubernetes-list-type'] !== 'atomic'
    ) {
      r(
        CODES.listType,
        'x-kubernetes-list-type',
        'is a set of lists whose item lists are not atomic',
        "mark the inner list @ListType('atomic')",
      );
    }
    if (items.type === 'object' && items['x-kubernetes-map-type'] !== 'atomic') {
      r(
        CODES.listType,
        'x-kubernetes-list-type',
        'is a set of objects, which the API server only accepts for atomic objects',
        "use @ListType('map') with @ListMapKey for objects, or mark the item type @StructType('atomic')",
      );
    }
  }
}

/** A map list's keys: unique, fields of the items, scalar, required or defaulted, not nullable. */
function checkListMapKeys(items: JSONSchemaProps, keys: readonly string[], r: Reporter): void {
  const seen = new Set<string>();
  for (const k of keys) {
    const p = items.properties?.[k];
    if (seen.has(k))
      r(CODES.listType, 'x-kubernetes-list-map-keys', `names the map key '${k}' twice`, 'list each key once');
    seen.add(k);
    if (!p) {
      r(
        CODES.listType,
        'x-kubernetes-list-map-keys',
        `map key '${k}' is not a field of the items (fields: ${
          Object.keys(items.properties ?? {})
            .sort()
            .join(', ') || 'none'
        })`,
        'name fields of the item type in @ListMapKey',
      );
      continue;
    }
    if (!isScalarType(p) || (!p.type && !p['x-kubernetes-int-or-string']))
      r(
        CODES.listType,
        'x-kubernetes-list-map-keys',
        `map key '${k}' must be a scalar field (found ${p.type ?? 'no type'})`,
        'use a string, integer or boolean field as the key',
      );
    if (!(items.required ?? []).includes(k) && p.default === undefined) {
      r(
        CODES.listType,
        'x-kubernetes-list-map-keys',
        `map key '${k}' is optional and has no default: the API server requires list-map keys to be required or defaulted`,
        `make '${k}' required in the item type (no '?'), or give it a @Default(...)`,
      );
    }
    if (p.nullable)
      r(
        CODES.listType,
        'x-kubernetes-list-map-keys',
        `map key '${k}' must not be nullable`,
        `remove @Nullable() (or '| null') from '${k}'`,
      );
  }
}

/** x-kubernetes-map-type: atomic or granular, on objects. */
function checkMapType(n: SchemaNode): void {
  const { s, r } = n;
  const mt = s['x-kubernetes-map-type'];
  if (mt !== undefined && !['atomic', 'granular'].includes(mt))
    r(
      CODES.listType,
      'x-kubernetes-map-type',
      `x-kubernetes-map-type '${mt}' is not atomic or granular`,
      "use 'atomic' or 'granular'",
    );
  if (mt !== undefined && s.type !== 'object')
    r(
      CODES.listType,
      'x-kubernetes-map-type',
      `x-kubernetes-map-type is only allowed on objects (found ${s.type ?? 'no type'})`,
      '@MapType and @StructType apply to objects and records',
    );
}

/** Patterns (the node's and its allOf's) compile as RE2. */
function checkPatterns(n: SchemaNode): void {
  const { s, chain, steps } = n;
  const patterns: [JSONSchemaProps, string[]][] = [
    [s, []],
    ...(s.allOf ?? []).map((a, i) => [a, [`allOf[${i}]`]] as [JSONSchemaProps, string[]]),
  ];
  for (const [node, extra] of patterns) {
    if (node.pattern === undefined) continue;
    const problem = checkRE2(node.pattern);
    if (problem) {
      n.report(
        [...chain, ...(extra.length ? [node] : [])],
        [...steps, ...extra],
        CODES.pattern,
        'pattern',
        `pattern ${JSON.stringify(node.pattern)} is not a valid RE2 expression (the API server compiles it with Go's regexp): ${problem.message} at offset ${problem.offset}`,
        'rewrite it in RE2 syntax: no lookarounds ((?=, (?!, (?<=), backreferences (\\1), possessive or atomic forms; \\uXXXX is \\x{XXXX}',
      );
    }
  }
}

/** Enum values of the field's type (kubeforge's rule). */
function checkEnum(n: SchemaNode): void {
  const { s, r } = n;
  for (const e of s.enum ?? []) {
    const typeOnly: JSONSchemaProps = {
      type: s.type,
      nullable: s.nullable,
      'x-kubernetes-int-or-string': s['x-kubernetes-int-or-string'],
      'x-kubernetes-preserve-unknown-fields': true,
    };
    const p = validateValue(e, typeOnly, 'enum')[0];
    if (p)
      r(
        CODES.bounds,
        'enum',
        `enum value ${JSON.stringify(e)} can never match (${p.message})`,
        "make the enum's values of the field's type",
      );
  }
}

/** CEL rules: what can be checked without compiling CEL. */
function checkRuleShapes(n: SchemaNode): void {
  const { s, r, uncorrelated } = n;
  for (const rule of s['x-kubernetes-validations'] ?? []) {
    const text = rule.rule ?? '';
    if (!text.trim())
      r(
        CODES.cel,
        'x-kubernetes-validations',
        'has a validation rule with an empty expression',
        'write a CEL expression in rule',
      );
    if (rule.message !== undefined && (!rule.message.trim() || /[\r\n]/.test(rule.message.trim())))
      r(
        CODES.cel,
        'x-kubernetes-validations',
        `validation message ${JSON.stringify(rule.message)} must be non-empty and on one line`,
        'write a one-line message',
      );
    else if (/[\r\n]/.test(text.trim()) && !rule.message?.trim())
      r(
        CODES.cel,
        'x-kubernetes-validations',
        'has a rule on several lines without a message',
        'give the rule a message',
      );
    const usesOldSelf = /\boldSelf\b/.test(text);
    if (usesOldSelf && uncorrelated !== undefined) {
      r(
        CODES.cel,
        'x-kubernetes-validations',
        `rule ${JSON.stringify(text)} uses oldSelf where old and new values cannot be matched (inside ${uncorrelated || 'the object itself'}): the API server refuses it`,
        "oldSelf works on fields reached through objects and map lists only: make the list @ListType('map') with @ListMapKey, or move the rule up to the list",
      );
    }
    if (!usesOldSelf && rule.optionalOldSelf !== undefined)
      r(
        CODES.cel,
        'x-kubernetes-validations',
        'sets optionalOldSelf, but its rule does not use oldSelf',
        'remove optionalOldSelf',
      );
    if (rule.messageExpression !== undefined && !rule.messageExpression.trim())
      r(CODES.cel, 'x-kubernetes-validations', 'has an empty messageExpression', 'remove it or write a CEL expression');
    if (rule.reason !== undefined && !VALIDATION_REASONS.has(rule.reason))
      r(
        CODES.cel,
        'x-kubernetes-validations',
        `reason '${rule.reason}' is not one of ${[...VALIDATION_REASONS].join(', ')}`,
        'use one of the listed reasons',
      );
    if (rule.fieldPath !== undefined && (!rule.fieldPath.trim() || /[\r\n]/.test(rule.fieldPath)))
      r(
        CODES.cel,
        'x-kubernetes-validations',
        `fieldPath ${JSON.stringify(rule.fieldPath)} must be non-empty and on one line`,
        "write a path such as '.name'",
      );
    else if (rule.fieldPath !== undefined && !resolveFieldPath(s, rule.fieldPath))
      r(
        CODES.cel,
        'x-kubernetes-validations',
        `fieldPath ${JSON.stringify(rule.fieldPath)} does not name a field under this one`,
        "write a path such as '.name' or \"['name']\" relative to the field the rule is on (list indices are not allowed)",
      );
  }
}

/** A default: not inside metadata, and valid against its own schema. */
function checkDefault(n: SchemaNode): void {
  const { s, r } = n;
  if (s.default === undefined) return;
  if (n.inMetadata) {
    r(
      CODES.default,
      'default',
      'sets a default inside metadata, which the API server refuses',
      'metadata is set by the API server; remove the default',
    );
    return;
  }
  for (const p of validateValue(s.default, s)) {
    r(
      CODES.default,
      'default',
      `default ${JSON.stringify(s.default)} is refused: ${p.message}`,
      p.pruned
        ? 'a default may only set fields the type declares'
        : "the API server refuses a CRD whose default does not validate against the field's schema: fix the value or the field's type and markers",
    );
  }
}

/** Value validations (allOf, anyOf, oneOf, not) must stay value validations. */
function checkValueValidations(n: SchemaNode): void {
  const { s, chain, steps, report } = n;
  const nested = (v: JSONSchemaProps, name: string) => {
    for (const [key, label] of VALUE_VALIDATION_FORBIDDEN) {
      if (v[key] !== undefined && !(key === 'description' && v[key] === ''))
        report(
          [...chain, v],
          [...steps, name],
          CODES.structural,
          String(key),
          `${name} sets ${label}, which must stay outside allOf/anyOf/oneOf/not for the schema to be structural`,
          'set it on the field itself',
        );
    }
    for (const k of Object.keys(v.properties ?? {})) {
      if (k === 'metadata')
        report(
          [...chain, v],
          [...steps, name],
          CODES.structural,
          'properties',
          `${name} mentions metadata, which is not allowed in a nested value validation`,
          'remove it',
        );
      if (!s.properties?.[k])
        report(
          [...chain, v],
          [...steps, name],
          CODES.structural,
          'properties',
          `${name} mentions property '${k}', which the schema itself does not declare`,
          'declare the property on the object',
        );
    }
    if (v.items && !s.items)
      report(
        [...chain, v],
        [...steps, name],
        CODES.structural,
        'items',
        `${name} has items, but the schema itself has none`,
        'declare the items on the array',
      );
  };
  const iosAnyOf = (a: JSONSchemaProps[] | undefined) =>
    a?.length === 2 &&
    a[0].type === 'integer' &&
    a[1].type === 'string' &&
    Object.keys(a[0]).length === 1 &&
    Object.keys(a[1]).length === 1;
  // the two int-or-string exceptions: anyOf [integer, string], or that anyOf as allOf[0]
  if (s.anyOf && !iosAnyOf(s.anyOf)) for (const [i, v] of s.anyOf.entries()) nested(v, `anyOf[${i}]`);
  s.allOf?.forEach((v, i) => {
    if (i === 0 && iosAnyOf(v.anyOf) && Object.keys(v).length === 1) return;
    nested(v, `allOf[${i}]`);
  });
  for (const [i, v] of (s.oneOf ?? []).entries()) nested(v, `oneOf[${i}]`);
  if (s.not) nested(s.not, 'not');
}

/**
 * The formats the API server recognises on a schema without a type or of type string
 * (apiextensions-apiserver pkg/apiserver/validation/formats.go, supportedVersionedFormats, with
 * its normalization: '-' removed). k8s-short-name and k8s-long-name count from compatibility
 * version 1.34, below every Kubernetes minor kubeforge targets.
 */
const STRING_FORMATS = new Set(
  [
    'bsonobjectid',
    'uri',
    'email',
    'hostname',
    'ipv4',
    'ipv6',
    'cidr',
    'mac',
    'uuid',
    'uuid3',
    'uuid4',
    'uuid5',
    'isbn',
    'isbn10',
    'isbn13',
    'creditcard',
    'ssn',
    'hexcolor',
    'rgbcolor',
    'byte',
    'password',
    'date',
    'duration',
    'datetime',
    'k8s-short-name',
    'k8s-long-name',
  ].map((f) => f.replaceAll('-', '')),
);

/** The node's format when the server does not recognise it for the node's type (GetUnrecognizedFormats). */
export function unrecognizedFormat(s: JSONSchemaProps): string | undefined {
  const f = s.format;
  if (typeof f !== 'string' || f === '') return undefined;
  switch (s.type ?? '') {
    case '':
    case 'string':
      return STRING_FORMATS.has(f.replaceAll('-', '')) ? undefined : f;
    case 'integer':
      return f === 'int32' || f === 'int64' ? undefined : f;
    case 'number':
      return f === 'float' || f === 'double' ? undefined : f;
    default:
      return f;
  }
}

/**
 * Formats the server does not recognise: it creates the CRD with the warning `unrecognized format
 * "<format>"` (the CRD registry's WarningsOnCreate, for every schema node SchemaHas reaches) and
 * validates nothing with them. The node itself, and the allOf / anyOf / oneOf / not subtrees
 * below it, which the walk does not visit.
 */
function checkFormats(n: SchemaNode): void {
  const visit = (s: JSONSchemaProps, chain: JSONSchemaProps[], steps: string[], junctor: boolean): void => {
    const f = unrecognizedFormat(s);
    if (f !== undefined)
      n.report(
        chain,
        steps,
        CODES.format,
        'format',
        `unrecognized format ${JSON.stringify(f)}: the API server says so when it creates the CRD, and validates nothing with it${s.type === undefined ? " (a schema without a type reads formats as a string's)" : ''}`,
        formatHint(s),
        true,
      );
    const sub = (x: JSONSchemaProps | undefined, step: string, j: boolean): void => {
      if (x) visit(x, [...chain, x], [...steps, step], j);
    };
    if (junctor) {
      for (const [k, p] of Object.entries(s.properties ?? {})) sub(p, `properties.${k}`, true);
      sub(s.items, 'items', true);
      if (typeof s.additionalProperties === 'object') sub(s.additionalProperties, 'additionalProperties', true);
    }
    for (const [i, x] of (s.allOf ?? []).entries()) sub(x, `allOf[${i}]`, true);
    for (const [i, x] of (s.anyOf ?? []).entries()) sub(x, `anyOf[${i}]`, true);
    for (const [i, x] of (s.oneOf ?? []).entries()) sub(x, `oneOf[${i}]`, true);
    sub(s.not, 'not', true);
  };
  visit(n.s, n.chain, n.steps, false);
}

function formatHint(s: JSONSchemaProps): string {
  switch (s.type ?? '') {
    case '':
    case 'string':
      return 'use a format the server knows (date-time, date, duration, byte, uri, email, hostname, ipv4, ipv6, cidr, mac, uuid, k8s-short-name, ...) or a @Pattern';
    case 'integer':
      return 'integers take int32 or int64';
    case 'number':
      return 'numbers take float or double';
    default:
      return `a ${s.type} takes no format: remove it`;
  }
}

/** Effective bounds over the node and its allOf (a field's own markers and its type's both apply). */
function checkBounds(s: JSONSchemaProps, r: Reporter): void {
  const all = [s, ...(s.allOf ?? [])];
  const pick = <K extends keyof JSONSchemaProps>(k: K) =>
    all.map((x) => x[k]).filter((v): v is NonNullable<JSONSchemaProps[K]> => v !== undefined);
  const nonNegative: [keyof JSONSchemaProps, string][] = [
    ['maxLength', 'MaxLength'],
    ['minLength', 'MinLength'],
    ['maxItems', 'MaxItems'],
    ['minItems', 'MinItems'],
    ['maxProperties', 'MaxProperties'],
    ['minProperties', 'MinProperties'],
  ];
  for (const [k] of nonNegative) {
    for (const v of pick(k) as number[])
      if (v < 0) r(CODES.bounds, k, `${k} ${v} is negative`, `${k} counts, so it must be 0 or more`);
  }
  for (const v of pick('multipleOf') as number[])
    if (!(v > 0)) r(CODES.bounds, 'multipleOf', `multipleOf ${v} must be greater than 0`, 'use a positive number');
  const pairs: [keyof JSONSchemaProps, keyof JSONSchemaProps, string][] = [
    ['minLength', 'maxLength', 'length'],
    ['minItems', 'maxItems', 'number of items'],
    ['minProperties', 'maxProperties', 'number of properties'],
  ];
  for (const [lo, hi, what] of pairs) {
    const los = pick(lo) as number[];
    const his = pick(hi) as number[];
    if (los.length && his.length && Math.max(...los) > Math.min(...his)) {
      r(
        CODES.bounds,
        lo,
        `${lo} ${Math.max(...los)} is greater than ${hi} ${Math.min(...his)}: no ${what} can satisfy both`,
        `lower ${lo} or raise ${hi}`,
      );
    }
  }
  // The tightest minimum and maximum over the node and its allOf (exclusive wins a tie).
  const mins = all.flatMap((x) => (x.minimum === undefined ? [] : [{ at: x.minimum, exclusive: x.exclusiveMinimum }]));
  const maxs = all.flatMap((x) => (x.maximum === undefined ? [] : [{ at: x.maximum, exclusive: x.exclusiveMaximum }]));
  if (mins.length && maxs.length) {
    const lo = mins.reduce((a, b) => (b.at > a.at || (b.at === a.at && b.exclusive) ? b : a));
    const hi = maxs.reduce((a, b) => (b.at < a.at || (b.at === a.at && b.exclusive) ? b : a));
    const exclusive = (lo.exclusive || hi.exclusive) ?? false;
    if (lo.at > hi.at || (exclusive && lo.at === hi.at)) {
      r(
        CODES.bounds,
        'minimum',
        `minimum ${lo.at}${lo.exclusive ? ' (exclusive)' : ''} is greater than maximum ${hi.at}${hi.exclusive ? ' (exclusive)' : ''}: no value can satisfy both`,
        'lower @Minimum or raise @Maximum',
      );
    }
  }
}

/** Resolves a CEL rule's fieldPath (`.a.b`, `['a'].b`; no list indices, as cel.ValidFieldPath) under `s`. */
function resolveFieldPath(s: JSONSchemaProps, path: string): boolean {
  const re = /^(?:\.([A-Za-z_][A-Za-z0-9_]*)|\['((?:[^'\\]|\\.)*)'\])/;
  let rest = path;
  let node: JSONSchemaProps | undefined = s;
  if (!rest) return false;
  while (rest && node) {
    const m = re.exec(rest);
    if (!m) return false;
    rest = rest.slice(m[0].length);
    const key = m[1] ?? m[2];
    node =
      node.properties?.[key] ?? (typeof node.additionalProperties === 'object' ? node.additionalProperties : undefined);
  }
  return !!node && rest === '';
}
