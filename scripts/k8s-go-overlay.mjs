// Rebuilds the models gen-k8s-schemas.mjs made from @kubernetes/client-node from Kubernetes' Go API
// types, the way controller-gen reads them: for every client-node model that is a Go struct of the
// sources (one Kubernetes minor's k8s.io/api and k8s.io/apimachinery), the struct's JSON fields and
// their shapes, descriptions (the Go doc comments, line breaks kept), required fields (controller-gen's
// rule), `+listType` / `+listMapKey` / `+mapType` / `+structType` (x-kubernetes-* extensions),
// `+default` / `+kubebuilder:default` values and `+kubebuilder:validation` markers. Go structs no
// client-node model stands for (newer than client-node) become models of their own. What differs from
// client-node (fields added or left out, shapes, required fields) is listed in the report; models
// without a Go struct keep client-node's data.
// @ts-check
import { docText, markersOf } from './k8s-go-types.mjs';

/** @typedef {import('./k8s-go-types.mjs').GoType} GoType */
/** @typedef {import('./k8s-go-types.mjs').GoField} GoField */
/** @typedef {import('./k8s-go-types.mjs').GoMarker} GoMarker */
/** @typedef {Extract<GoType, { kind: 'struct' }>} GoStruct */
/**
 * A schema node of the generated data: JSONSchemaProps keywords, or `$model` (another model, by
 * name) / `$special` (a type with a fixed schema, such as Quantity).
 * @typedef {{ [keyword: string]: unknown; type?: string; format?: string; description?: string; default?: unknown;
 *   items?: SchemaNode; additionalProperties?: SchemaNode; $model?: string; $special?: string;
 *   'x-kubernetes-list-type'?: string; 'x-kubernetes-list-map-keys'?: string[] }} SchemaNode
 */
/**
 * @typedef {{ description?: string; properties: Record<string, SchemaNode>; required?: string[]; 'x-kubernetes-map-type'?: string;
 *   'x-kubernetes-validations'?: { message: string; rule: string }[] }} Model
 */
/**
 * A Go type expression resolved: `named` is the declaration of a named non-struct type met on the way.
 * @typedef {({ kind: 'basic'; go: string } | { kind: 'bytes' } | { kind: 'array'; of: GoTypeRef } | { kind: 'map'; of: GoTypeRef }
 *   | { kind: 'known'; known: string; full: string } | { kind: 'struct'; decl: GoStruct; full: string } | { kind: 'unknown'; expr: string })
 *   & { named?: GoType }} GoTypeRef
 */
/**
 * A JSON field of a flattened struct.
 * @typedef {{ field: Extract<GoField, { type: string }>; decl: GoStruct; required: boolean; by: 'kubebuilder' | 'k8s' | 'tag' | undefined; markers: GoMarker[] }} FlatField
 */
/** @typedef {{ fields: Map<string, FlatField>; mapType: string | undefined; unreadable: string[] }} FlatStruct */
/**
 * What the overlay did, and every place the two sources disagree.
 * @typedef {{ matched: number; unmatched: string[]; fieldsBoth: number; droppedFields: string[]; goOnlyFields: string[]; goOnlyModels: string[];
 *   shapeMismatches: string[]; requiredChanged: string[]; notApplicable: string[]; applied: Map<string, number>;
 *   ignoredDefaults: string[]; unknownMarkers: Map<string, string[]>; droppedListMaps: string[] }} OverlayReport
 */

const META = 'k8s.io/apimachinery/pkg/apis/meta/v1';
const BASIC = new Set([
  'string',
  'bool',
  'byte',
  'int',
  'int8',
  'int16',
  'int32',
  'int64',
  'uint',
  'uint8',
  'uint16',
  'uint32',
  'uint64',
  'float32',
  'float64',
]);

/** @type {Map<string, string>} apimachinery types controller-gen writes in fixed forms (its known types). */
const KNOWN = new Map([
  ['k8s.io/apimachinery/pkg/api/resource.Quantity', 'Quantity'],
  ['k8s.io/apimachinery/pkg/util/intstr.IntOrString', 'IntOrString'],
  ['k8s.io/apimachinery/pkg/runtime.RawExtension', 'RawExtension'],
  [`${META}.Time`, 'Time'],
  [`${META}.MicroTime`, 'Time'],
  [`${META}.Duration`, 'Duration'],
  [`${META}.ObjectMeta`, 'ObjectMeta'],
  [`${META}.FieldsV1`, 'FieldsV1'],
]);

/** @type {Record<string, [keyword: string, kind: 'int' | 'number' | 'bool' | 'string' | 'list']>} `+kubebuilder:validation:<X>` markers and the schema keyword each sets. */
const VALIDATION = {
  MaxLength: ['maxLength', 'int'],
  MinLength: ['minLength', 'int'],
  MaxItems: ['maxItems', 'int'],
  MinItems: ['minItems', 'int'],
  MaxProperties: ['maxProperties', 'int'],
  MinProperties: ['minProperties', 'int'],
  Maximum: ['maximum', 'number'],
  Minimum: ['minimum', 'number'],
  ExclusiveMaximum: ['exclusiveMaximum', 'bool'],
  ExclusiveMinimum: ['exclusiveMinimum', 'bool'],
  MultipleOf: ['multipleOf', 'number'],
  Pattern: ['pattern', 'string'],
  Format: ['format', 'string'],
  Type: ['type', 'string'],
  Enum: ['enum', 'list'],
  UniqueItems: ['uniqueItems', 'bool'],
};

/**
 * Kubernetes' declarative validation markers controller-gen (v0.23 and later) reads as the
 * `+kubebuilder:validation:` one of the same name; their value may end in a `# comment` (the gengo
 * codetags form validation-gen reads), which is dropped.
 * @type {Record<string, string>}
 */
const DECLARATIVE = { 'k8s:maxItems': 'MaxItems', 'k8s:minimum': 'Minimum', 'k8s:maximum': 'Maximum' };

/** Marker names that change nothing in a schema (code generators', documentation, lifecycle). */
const IGNORED =
  /^(optional|required|k8s:|genclient|patchStrategy|patchMergeKey|enum$|featureGate|union|unionDiscriminator|oneOf|protobuf|deprecated|kubebuilder:validation:(Optional|Required)$|groupName|listType$|listMapKey$|mapType$|structType$|default$|kubebuilder:default$|-+|build|k8s\.io|unionMember)/;

/**
 * A Go string literal or bare word as controller-gen's marker parser reads it.
 * @param {string} raw
 * @param {string} what
 * @returns {unknown}
 */
function goValue(raw, what) {
  const v = raw.trim();
  if (v.startsWith('`') && v.endsWith('`')) return v.slice(1, -1);
  if (v.startsWith('"')) return JSON.parse(v);
  if (v === 'true' || v === 'false') return v === 'true';
  if (/^-?\d+(\.\d+)?$/.test(v)) return Number(v);
  if (/^[{[]/.test(v)) return JSON.parse(v);
  if (/^[\w.-]+$/.test(v)) return v;
  throw new Error(`k8s-go-overlay: ${what}: cannot read marker value ${raw}`);
}

/**
 * @param {string} kind
 * @param {string | undefined} raw
 * @param {string} what
 * @returns {unknown}
 */
function markerValue(kind, raw, what) {
  if (kind === 'bool' && raw === undefined) return true;
  if (raw === undefined) throw new Error(`k8s-go-overlay: ${what}: the marker needs a value`);
  if (kind === 'list') return raw.split(';').map((item) => goValue(item, what));
  const v = goValue(raw, what);
  switch (kind) {
    case 'int':
    case 'number':
      if (typeof v !== 'number') throw new Error(`k8s-go-overlay: ${what}: ${raw} is not a number`);
      return v;
    case 'bool':
      return v === true;
    case 'string':
      return String(v);
  }
  return v;
}

/**
 * Splits `map[K]V` into K and V (K may itself hold brackets).
 * @param {string} expr
 */
function splitMap(expr) {
  let depth = 0;
  for (let i = 3; i < expr.length; i++) {
    if (expr[i] === '[') depth++;
    else if (expr[i] === ']' && --depth === 0) return [expr.slice(4, i), expr.slice(i + 1)];
  }
  throw new Error(`k8s-go-overlay: cannot read map type ${expr}`);
}

/**
 * Resolves Go type expressions of the read packages into descriptors:
 * { kind: 'basic', go } | { kind: 'bytes' } | { kind: 'array', of } | { kind: 'map', of } |
 * { kind: 'known', known } | { kind: 'struct', decl } | { kind: 'unknown', expr }, with `named` set to
 * the declaration of a named non-struct type on the way (its doc and markers apply to the field).
 * @param {Map<string, Map<string, GoType>>} goPkgs
 */
export function makeResolver(goPkgs) {
  /** @type {(pkg: string, name: string) => GoType | undefined} */
  const decl = (pkg, name) => goPkgs.get(pkg)?.get(name);
  /**
   * @param {string} expr
   * @param {{ pkg?: string; imports: Map<string, string> }} from
   * @returns {GoTypeRef}
   */
  function resolve(expr, from) {
    expr = expr.replace(/^\*+/, '');
    if (expr === '[]byte') return { kind: 'bytes' };
    if (expr.startsWith('[]')) return { kind: 'array', of: resolve(expr.slice(2), from) };
    if (expr.startsWith('map[')) return { kind: 'map', of: resolve(splitMap(expr)[1], from) };
    if (BASIC.has(expr)) return { kind: 'basic', go: expr };
    let pkg = from.pkg;
    let name = expr;
    const dot = expr.indexOf('.');
    if (dot >= 0) {
      pkg = from.imports.get(expr.slice(0, dot));
      name = expr.slice(dot + 1);
      if (!pkg) return { kind: 'unknown', expr };
    }
    const full = `${pkg}.${name}`;
    const known = KNOWN.get(full);
    if (known !== undefined) return { kind: 'known', known, full };
    const d = decl(/** @type {string} */ (pkg), name);
    if (!d) return { kind: 'unknown', expr: full };
    if (d.kind === 'struct') return { kind: 'struct', decl: d, full };
    const inner = resolve(d.underlying, d);
    return { ...inner, named: inner.named ?? d };
  }
  return resolve;
}

/**
 * The JSON fields of a struct as controller-gen flattens it: inline-embedded structs' fields merged
 * in; with each field's required-ness (controller-gen's rule) and the map-type an embedded struct
 * passes up. Map of JSON name -> { field, decl (declaring struct), required }.
 * @param {GoStruct} decl
 * @param {ReturnType<typeof makeResolver>} resolve
 * @param {FlatStruct} [out]
 * @returns {FlatStruct}
 */
export function flattenStruct(decl, resolve, out = { fields: new Map(), mapType: undefined, unreadable: [] }) {
  for (const f of decl.fields) {
    if (f.unreadable !== undefined) {
      out.unreadable.push(`${decl.pkg}.${decl.name}: ${f.unreadable}`);
      continue;
    }
    const json = f.tags.json;
    if (json === undefined || json === '-') continue;
    const [jsonName, ...opts] = json.split(',');
    const inline = opts.includes('inline') || jsonName === '';
    const omitEmpty = opts.includes('omitempty') || opts.includes('omitzero');
    const markers = markersOf(f.doc);
    /** @type {(n: string) => boolean} */
    const has = (n) => markers.some((m) => m.name === n);
    // controller-gen's precedence; `by` says which rule decided a required field.
    /** @type {boolean} */
    let required;
    /** @type {FlatField['by']} */
    let by;
    if (has('kubebuilder:validation:Optional')) required = false;
    else if (has('kubebuilder:validation:Required')) [required, by] = [true, 'kubebuilder'];
    else if (has('optional') || has('k8s:optional')) required = false;
    else if (has('required') || has('k8s:required')) [required, by] = [true, 'k8s'];
    else [required, by] = [!inline && !omitEmpty, 'tag'];
    if (inline) {
      const t = resolve(f.type, decl);
      if (t.kind !== 'struct') continue; // TypeMeta-like known types have no fields to merge here
      const typeMarkers = markersOf(t.decl.doc);
      const mapType = typeMarkers.find((m) => m.name === 'structType' || m.name === 'mapType');
      if (mapType && out.mapType === undefined) out.mapType = mapType.value;
      flattenStruct(t.decl, resolve, out);
      continue;
    }
    out.fields.set(jsonName, { field: f, decl, required, by, markers });
  }
  return out;
}

/**
 * The Go package path's group and version: k8s.io/api/apps/v1 -> apps, v1; meta/v1 -> meta, v1.
 * @param {string} pkg
 */
function groupVersionOf(pkg) {
  if (pkg === META) return { group: 'meta', version: 'v1' };
  const m = /^k8s\.io\/api\/([^/]+)\/(v[^/]+)$/.exec(pkg);
  return m ? { group: m[1], version: m[2] } : undefined;
}

/**
 * A client-node model name split into the Kubernetes type it stands for: `CoreV1EndpointPort` ->
 * { group: 'core', version: 'v1', kind: 'EndpointPort' }; `V1Pod` has no group. `undefined` for a
 * name that is not of that form.
 * @param {string} name
 * @returns {{ group: string | undefined; version: string; kind: string } | undefined}
 */
export function splitModelName(name) {
  const m = /^([A-Z][a-z]+)?(V\d+(?:alpha\d+|beta\d+)?)([A-Z]\w*)$/.exec(name);
  return m ? { group: m[1]?.toLowerCase(), version: m[2].toLowerCase(), kind: m[3] } : undefined;
}

/** @type {(split: { group?: string }, group: string) => boolean} Whether an API group (a Go package's group folder, `networking`) fits a model name's group word. */
export const groupFits = (split, group) => !split.group || group.startsWith(split.group);

/**
 * How well a candidate type's field names fit a model's: the fields shared, and the score by which
 * candidates are ranked (shared fields minus the candidate's fields the model lacks).
 * @param {Set<string>} want
 * @param {string[]} have
 */
export function overlap(want, have) {
  const shared = have.filter((h) => want.has(h)).length;
  return { shared, score: shared - (have.length - shared) };
}

/**
 * Finds the Go struct that is the same Kubernetes type as a client-node model: same version and
 * kind, same API group when the model name carries one (`CoreV1EndpointPort`), and among several
 * groups the one sharing the most fields.
 * @param {string} name
 * @param {string[]} fieldNames
 * @param {Map<string, Candidate[]>} byVersionKind
 * @returns {{ why: string; decl?: undefined } | (Candidate & { shared: number; score: number; have: number })}
 */
function matchGo(name, fieldNames, byVersionKind) {
  const split = splitModelName(name);
  if (!split) return { why: 'not a versioned model name' };
  const candidates = (byVersionKind.get(`${split.version}/${split.kind}`) ?? []).filter((c) =>
    groupFits(split, c.group),
  );
  if (!candidates.length) return { why: 'no Go type of that group/version/kind' };
  const want = new Set(fieldNames);
  const scored = candidates.map((c) => {
    const have = [...c.flat.fields.keys()];
    return { ...c, ...overlap(want, have), have: have.length };
  });
  scored.sort((a, b) => b.score - a.score);
  if (scored.length > 1 && scored[0].score === scored[1].score)
    return { why: `ambiguous: ${scored.map((c) => c.full).join(', ')}` };
  const best = scored[0];
  if (best.have > 0 && best.shared * 2 < best.have)
    return { why: `only ${best.shared} of ${best.have} fields shared with ${best.full}` };
  return best;
}

/** @typedef {{ full: string; group: string; decl: GoStruct; flat: FlatStruct }} Candidate */

/**
 * The schema node of a Go basic type, as controller-gen writes it (int32/uint32 and int64/uint64
 * carry their format; other integers none; floats are `number`).
 * @param {string} go
 * @returns {SchemaNode}
 */
function basicNode(go) {
  if (go === 'string') return { type: 'string' };
  if (go === 'bool') return { type: 'boolean' };
  if (go === 'float32' || go === 'float64') return { type: 'number' };
  if (go === 'int32' || go === 'uint32') return { format: 'int32', type: 'integer' };
  if (go === 'int64' || go === 'uint64') return { format: 'int64', type: 'integer' };
  return { type: 'integer' };
}

/**
 * The schema node of an apimachinery type controller-gen writes in a fixed form (`$special` for
 * those index.ts expands).
 * @param {string} known
 * @returns {SchemaNode}
 */
function knownNode(known) {
  switch (known) {
    case 'Quantity':
    case 'IntOrString':
    case 'RawExtension':
    case 'ObjectMeta':
      return { $special: known };
    case 'Time':
      return { format: 'date-time', type: 'string' };
    case 'Duration':
      return { type: 'string' };
    case 'FieldsV1':
      return { type: 'object' };
  }
  throw new Error(`k8s-go-overlay: no schema for the known type ${known}`);
}

/**
 * The coarse shape of a node (for comparing the Go types with client-node's models).
 * @param {SchemaNode} node
 * @returns {string}
 */
function shapeOf(node) {
  if (node.$model) return 'struct';
  if (node.type === 'array') return `array of ${node.items ? shapeOf(node.items) : '?'}`;
  if (node.additionalProperties) return `map of ${shapeOf(node.additionalProperties)}`;
  if (node.$special) return node.$special;
  if (node.type === 'object') return 'object';
  return node.format ? `${node.type}/${node.format}` : String(node.type);
}

/**
 * Lays the Go types over the models in place and returns a report. A client-node model that is a Go
 * struct of these sources (same group, version, kind; most fields shared) is rebuilt from the Go
 * struct, as controller-gen reads it: every JSON field of the flattened struct (also those
 * client-node does not have), its shape from the Go type, description (the field's doc comment, else
 * its named type's), required-ness by controller-gen's rule, and the markers of the field and of its
 * named type; the struct's doc comment and `+structType` / `+mapType`. A field client-node has and
 * the Go struct does not is left out (controller-gen would not write it). A Go struct a field refers
 * to that no client-node model stands for becomes a model of its own, named by its Go package path
 * and name (`k8s.io/api/core/v1.EvictionResponder`). Client-node models without a Go struct keep
 * client-node's data.
 * @param {Record<string, Model>} models
 * @param {readonly string[]} names
 * @param {Map<string, Map<string, GoType>>} goPkgs
 * @returns {OverlayReport}
 */
export function overlayGo(models, names, goPkgs) {
  const resolve = makeResolver(goPkgs);
  /** @type {Map<string, Candidate[]>} */
  const byVersionKind = new Map();
  for (const [pkg, types] of goPkgs) {
    const gv = groupVersionOf(pkg);
    if (!gv) continue;
    for (const [name, decl] of types) {
      if (decl.kind !== 'struct') continue;
      const key = `${gv.version}/${name}`;
      const list = byVersionKind.get(key) ?? [];
      byVersionKind.set(key, list);
      list.push({ full: `${pkg}.${name}`, group: gv.group, decl, flat: flattenStruct(decl, resolve) });
    }
  }
  /** @type {OverlayReport} */
  const report = {
    matched: 0,
    unmatched: [],
    fieldsBoth: 0,
    droppedFields: [],
    goOnlyFields: [],
    goOnlyModels: [],
    shapeMismatches: [],
    requiredChanged: [],
    notApplicable: [],
    applied: new Map(),
    ignoredDefaults: [],
    unknownMarkers: new Map(),
    droppedListMaps: [],
  };
  /** @type {(key: string) => void} */
  const count = (key) => report.applied.set(key, (report.applied.get(key) ?? 0) + 1);

  // Which model stands for which Go struct (the first name, sorted, when several match one struct).
  /** @type {Map<string, { name: string; match: Candidate }>} */
  const matches = new Map();
  /** @type {Map<string, string>} Go struct (package path.Name) -> model name */
  const modelOfStruct = new Map();
  for (const name of [...names].sort()) {
    const match = matchGo(name, Object.keys(models[name].properties), byVersionKind);
    if (!match.decl) {
      report.unmatched.push(`${name} (${match.why})`);
      continue;
    }
    report.matched++;
    matches.set(name, { name, match });
    if (!modelOfStruct.has(match.full)) modelOfStruct.set(match.full, name);
  }
  report.unmatched.sort();

  /** Go structs referred to that no client-node model stands for, still to be built. */
  /** @type {{ full: string; decl: GoStruct }[]} */
  const pending = [];
  /** @type {(decl: GoStruct, full: string) => string} */
  const modelName = (decl, full) => {
    let name = modelOfStruct.get(full);
    if (name === undefined) {
      name = full;
      modelOfStruct.set(full, name);
      pending.push({ full, decl });
    }
    return name;
  };

  /**
   * The node of a resolved Go type; a named type's doc and markers apply at its own level (the
   * items of a `[]Capability` carry Capability's description, as controller-gen writes them).
   * @param {GoTypeRef} type
   * @param {string} at
   * @returns {SchemaNode}
   */
  const goNode = (type, at) => {
    /** @type {SchemaNode} */
    let node;
    switch (type.kind) {
      case 'basic':
        node = basicNode(type.go);
        break;
      case 'bytes':
        node = { format: 'byte', type: 'string' };
        break;
      case 'array':
        node = { type: 'array', items: goNode(type.of, `${at}[]`) };
        break;
      case 'map':
        node = { type: 'object', additionalProperties: goNode(type.of, `${at}{}`) };
        break;
      case 'known':
        node = knownNode(type.known);
        break;
      case 'struct':
        node = { $model: modelName(type.decl, type.full) };
        break;
      default:
        throw new Error(`k8s-go-overlay: ${at}: cannot resolve the Go type ${type.expr}`);
    }
    if (type.named) {
      const description = docText(type.named.doc);
      if (description) node.description = description;
      applyMarkers(node, markersOf(type.named.doc), at, report, count, type.named);
    }
    return node;
  };

  /**
   * A model built from a Go struct, as controller-gen writes it.
   * @param {GoStruct} decl
   * @param {FlatStruct} flat
   * @param {string} where
   * @returns {Model}
   */
  const goModel = (decl, flat, where) => {
    if (flat.unreadable.length)
      throw new Error(
        `k8s-go-overlay: ${where} (${decl.pkg}.${decl.name}): fields not understood: ${flat.unreadable.join('; ')}`,
      );
    /** @type {Model} */
    const model = { properties: {} };
    const description = docText(decl.doc);
    if (description) model.description = description;
    const mapType =
      markersOf(decl.doc).find((m) => m.name === 'structType' || m.name === 'mapType')?.value ?? flat.mapType;
    if (mapType) {
      model['x-kubernetes-map-type'] = mapType;
      count('x-kubernetes-map-type');
    }
    /** @type {string[]} */
    const required = [];
    for (const [field, go] of flat.fields) {
      const at = `${where}.${field}`;
      const node = goNode(resolve(go.field.type, go.decl), at);
      const fieldDoc = docText(go.field.doc);
      if (fieldDoc) node.description = fieldDoc;
      applyMarkers(
        node,
        go.markers,
        at,
        report,
        count,
        undefined,
        requiredBoundOf(resolve(go.field.type, go.decl), go.decl.pkg),
      );
      model.properties[field] = node;
      if (go.required) required.push(field);
    }
    if (required.length) model.required = required.sort();
    // An optional immutable field may not be removed once set either: controller-gen puts that
    // rule on the struct, one per such field, in field order.
    /** @type {{ message: string; rule: string }[]} */
    const rules = [];
    for (const [field, go] of flat.fields) {
      if (go.markers.some((m) => m.name === 'k8s:immutable') && !go.required)
        rules.push({
          message: `field ${field} is immutable once set`,
          rule: `!has(oldSelf.${field}) || has(self.${field})`,
        });
    }
    if (rules.length) {
      model['x-kubernetes-validations'] = rules;
      count('x-kubernetes-validations');
    }
    return model;
  };

  for (const name of names) {
    const m = matches.get(name);
    if (!m) continue;
    const { match } = m;
    const cn = models[name];
    const model = goModel(match.decl, match.flat, name);
    for (const [field, node] of Object.entries(cn.properties)) {
      const go = model.properties[field];
      if (!go) {
        report.droppedFields.push(`${name}.${field}`);
        continue;
      }
      report.fieldsBoth++;
      if (shapeOf(go) !== shapeOf(node))
        report.shapeMismatches.push(`${name}.${field}: Go ${shapeOf(go)}, client-node ${shapeOf(node)}`);
    }
    for (const field of Object.keys(model.properties))
      if (!(field in cn.properties)) report.goOnlyFields.push(`${name}.${field}`);
    const before = [...(cn.required ?? [])].sort().join(',');
    const after = (model.required ?? []).join(',');
    if (before !== after) report.requiredChanged.push(`${name}: client-node [${before}], Go [${after}]`);
    models[name] = model;
  }
  for (let next = pending.shift(); next; next = pending.shift()) {
    report.goOnlyModels.push(next.full);
    models[next.full] = goModel(next.decl, flattenStruct(next.decl, resolve), next.full);
  }
  report.goOnlyModels.sort();

  // A list-map whose keys the API server would not accept makes every CRD embedding it invalid.
  for (const name of Object.keys(models).sort()) {
    for (const [field, node] of Object.entries(models[name].properties)) {
      if (node['x-kubernetes-list-type'] !== 'map') continue;
      const problem = listMapProblem(models, node);
      if (problem) {
        report.droppedListMaps.push(
          `${name}.${field}: x-kubernetes-list-map-keys ${JSON.stringify(node['x-kubernetes-list-map-keys'])}: ${problem}`,
        );
        delete node['x-kubernetes-list-type'];
        delete node['x-kubernetes-list-map-keys'];
      }
    }
  }
  return report;
}

/**
 * Applies the schema-changing markers of a field, or of a named type (`type`: its declaration), to
 * its node, as controller-gen does. `+k8s:listType` / `+k8s:listMapKey` are `+listType` /
 * `+listMapKey` by another name (a key given by both counts once); `+k8s:immutable` (fields only)
 * adds controller-gen's `self == oldSelf` rule; `+k8s:enum` (types only) makes a string type the
 * enum of the package's constants of that type, sorted.
 * @param {SchemaNode} node
 * @param {GoMarker[]} markers
 * @param {string} at
 * @param {OverlayReport} report
 * @param {(key: string) => void} count
 * @param {GoType} [type]
 * @param {string} [requiredKey] the bound +k8s:required sets on this field ({@link requiredBoundOf})
 */
function applyMarkers(node, markers, at, report, count, type, requiredKey) {
  /** @type {string[]} */
  const listMapKeys = [];
  let requiredBound = false;
  for (const marker of markers) {
    const value = marker.value;
    const name =
      marker.name === 'k8s:listType' || marker.name === 'k8s:listMapKey' ? marker.name.slice(4) : marker.name;
    /** @type {(key: string, v: unknown) => void} */
    const set = (key, v) => {
      if (JSON.stringify(node[key]) !== JSON.stringify(v)) count(key);
      node[key] = v;
    };
    const isList = node.type === 'array';
    const isObject = !!node.$model || node.type === 'object';
    if (name === 'listType' || name === 'listMapKey' || name === 'mapType' || name === 'structType') {
      // controller-gen refuses these on a node of another shape ("must apply listType to an
      // array"); the API server too. Kubernetes has a few (a []byte with +listType=atomic).
      const fits = name.startsWith('list') ? isList : isObject;
      if (!fits) {
        report.notApplicable.push(
          `${at}: +${marker.name}=${value} (the field is ${node.format ? `${node.type}/${node.format}` : (node.type ?? node.$special ?? 'not a list')})`,
        );
        continue;
      }
    }
    if (name === 'listType') set('x-kubernetes-list-type', value);
    else if (name === 'listMapKey') {
      if (!listMapKeys.includes(/** @type {string} */ (value))) listMapKeys.push(/** @type {string} */ (value));
    } else if (name === 'mapType' || name === 'structType') set('x-kubernetes-map-type', value);
    else if (name === 'k8s:immutable' && !type) {
      node['x-kubernetes-validations'] = [
        .../** @type {unknown[]} */ (node['x-kubernetes-validations'] ?? []),
        { message: 'field is immutable', rule: 'self == oldSelf' },
      ];
      count('x-kubernetes-validations');
    } else if (name === 'k8s:enum') {
      const values = type?.kind === 'named' ? (type.constants ?? []) : [];
      if (!type || node.type !== 'string' || !values.length) {
        // controller-gen refuses it on a field, on a type that is not a string, and without constants.
        report.notApplicable.push(
          `${at}: +k8s:enum (${!type ? 'on a field' : node.type !== 'string' ? `the type is ${node.type}` : 'no constants of the type'})`,
        );
        continue;
      }
      set(
        'enum',
        [...values].sort((a, b) =>
          JSON.stringify(a) < JSON.stringify(b) ? -1 : JSON.stringify(a) > JSON.stringify(b) ? 1 : 0,
        ),
      );
    } else if (name === 'default' || name === 'kubebuilder:default') {
      if (/^ref\(/.test(/** @type {string} */ (value))) {
        // controller-gen writes no default for a reference to a Go constant.
        report.ignoredDefaults.push(`${at}: +${name}=${value}`);
        continue;
      }
      set('default', goValue(/** @type {string} */ (value), at));
    } else if (name === 'k8s:required') {
      // controller-gen v0.23: a required field also gets a lower bound (below, after the other markers).
      requiredBound = true;
    } else if (
      (name.startsWith('kubebuilder:validation:') && VALIDATION[name.slice(23)]) ||
      DECLARATIVE[name] !== undefined
    ) {
      const [key, kind] = VALIDATION[DECLARATIVE[name] ?? name.slice(23)];
      let v = markerValue(
        kind,
        DECLARATIVE[name] !== undefined && value !== undefined ? value.replace(/#.*$/, '').trim() : value,
        at,
      );
      if (key === 'enum') v = /** @type {unknown[]} */ (v).map((e) => (node.type === 'string' ? String(e) : e));
      set(key, v);
    } else if (!IGNORED.test(name)) {
      report.unknownMarkers.set(name, [...(report.unknownMarkers.get(name) ?? []), at]);
    }
  }
  if (requiredBound && !type) {
    // controller-gen v0.23's +k8s:required (a field marker): minLength 1, minItems 1 or
    // minProperties 1 by the schema it sees (requiredKey), unless the field sets it explicitly.
    const key = requiredKey;
    if (key && node[key] === undefined) {
      node[key] = 1;
      count(key);
    }
  }
  if (listMapKeys.length && node['x-kubernetes-list-type'] !== 'map') {
    // controller-gen refuses list-map keys on a list that is not a map ("must apply listMapKey to an
    // associative-list"), and the API server too: 1.35's DRA lists pair +listType=atomic with
    // +k8s:listMapKey (which Kubernetes' own declarative validation reads).
    report.notApplicable.push(
      `${at}: +listMapKey=${listMapKeys.join(',')} (the list is ${node['x-kubernetes-list-type'] ?? 'not a list-map'})`,
    );
  } else if (listMapKeys.length) {
    node['x-kubernetes-list-map-keys'] = listMapKeys;
    count('x-kubernetes-list-map-keys');
  }
}

/**
 * The bound controller-gen v0.23's +k8s:required gives a field of this Go type: it looks at the
 * schema before references are resolved, where a struct (or Quantity, Time, IntOrString) is a bare
 * reference (minProperties), a named list or map type has its type (minItems, minProperties), and a
 * named basic type has its type only in the field's own package (another package's is a bare
 * reference too). Unnamed: a list, []byte (a string), a map, a string; nothing on numbers and booleans.
 * @param {GoTypeRef} t
 * @param {string | undefined} fromPkg
 * @returns {string | undefined}
 */
function requiredBoundOf(t, fromPkg) {
  if (t.kind === 'struct' || t.kind === 'known') return 'minProperties';
  if (t.kind === 'array' || (t.kind === 'bytes' && t.named)) return 'minItems';
  if (t.kind === 'map') return 'minProperties';
  if (t.kind === 'bytes') return 'minLength';
  if (t.kind === 'basic') {
    if (t.named && t.named.pkg !== fromPkg) return 'minProperties';
    return t.go === 'string' ? 'minLength' : undefined;
  }
  return undefined;
}

/**
 * Why the API server would reject a list-map (keys missing, not scalar item properties, or neither
 * required nor defaulted), or undefined.
 * @param {Record<string, Model>} models
 * @param {SchemaNode} node
 */
export function listMapProblem(models, node) {
  const keys = node['x-kubernetes-list-map-keys'];
  if (!Array.isArray(keys) || !keys.length) return 'no keys';
  const item = node.items?.$model;
  if (!item) return 'the items are not objects';
  const model = models[item];
  for (const key of keys) {
    const prop = model.properties[key];
    if (!prop) return `${item} has no property ${key}`;
    if (prop.$model || prop.type === 'array' || prop.type === 'object' || !prop.type)
      return `${item}.${key} is not a scalar`;
    if (!model.required?.includes(key) && prop.default === undefined)
      return `${item}.${key} is neither required nor defaulted`;
  }
  return undefined;
}
