#!/usr/bin/env node
// Generates src/schema/k8s/data: the schema data of every @kubernetes/client-node model at each
// supported Kubernetes minor, from which src/schema/k8s/index.ts builds the inlined structural schemas
// that `kubeforge manifests` emits for embedded Kubernetes types (`--k8s-version` picks the minor).
//
// Sources (nothing written by hand):
//  - the Go modules k8s.io/api and k8s.io/apimachinery at the newest patch release of each supported
//    minor, read from the Go module cache (scripts/k8s-go-source.mjs pins the versions and go.sum
//    hashes, and downloads them there with `go mod download`): what controller-gen itself reads for a
//    project whose go.mod requires that k8s.io/api. Read by scripts/k8s-go-types.mjs; every
//    client-node model that is one of these Go structs is rebuilt from it by
//    scripts/k8s-go-overlay.mjs (fields, shapes, descriptions with their line breaks, required
//    fields, +listType / +listMapKey / +mapType / +structType, +default, +kubebuilder:validation
//    markers), and Go structs newer than client-node become models of their own.
//  - @kubernetes/client-node (the models users embed): the model names, and which Go struct each
//    stands for; for models no Go struct of these modules stands for (apiextensions and
//    apiregistration types, alpha APIs since removed), everything: JSON field names, field types and
//    formats, required fields (non-optional properties in its .d.ts), descriptions.
//  - kubernetes-types (devDependency), for those models only: which string fields are really
//    resource.Quantity, which `any` fields are runtime.RawExtension / apiextensions JSON / FieldsV1,
//    and descriptions with their paragraph breaks kept (used only where its text equals
//    client-node's up to whitespace).
//
// Usage: node scripts/gen-k8s-schemas.mjs [--check] [--out-dir <dir>] [--verbose]
//   --check   regenerate in memory and exit 1 if a committed file differs (CI drift check).
// Writes, in src/schema/k8s/data:
//  - models.json: the data of the newest minor (read lazily at run time);
//  - models.shape.json: the newest minor's models without their descriptions, a sixth of the size:
//    what kubeforge/testing's fake API server decodes built-in Kinds with (every unit-test process
//    that writes one, an Event for instance, reads it; parsing models.json took ~25 ms of such a
//    process);
//  - models.<minor>.patch.json for each older minor: a JSON merge patch (RFC 7396) that turns the
//    newest minor's models into that minor's (only what differs: descriptions, fields, markers);
//  - source.ts: provenance, the supported minors and the model names (cheap to import);
//  - go-types-report.md: what the Go types changed, per minor, and what they could not give.
// @ts-check
import { readFileSync, writeFileSync, readdirSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import { GO_MINORS, GO_SOURCE_ERROR, kubernetesGoModules } from './k8s-go-source.mjs';
import { apiPackages, readGoPackages } from './k8s-go-types.mjs';
import { groupFits, overlap, overlayGo, splitModelName } from './k8s-go-overlay.mjs';

/** @typedef {import('./k8s-go-overlay.mjs').Model} Model */
/** @typedef {import('./k8s-go-overlay.mjs').SchemaNode} SchemaNode */
/** @typedef {import('./k8s-go-overlay.mjs').OverlayReport} OverlayReport */
/** @typedef {{ description: string | undefined; props: Map<string, { description: string | undefined; type: string }> }} KtInterface */
/** @typedef {{ kind: 'array'; of: CnType } | { kind: 'map'; of: CnType } | { kind: 'name'; name: string }} CnType */
/** A client-node model class: its `attributeTypeMap` lists the fields. */
/** @typedef {{ attributeTypeMap: { name: string; baseName: string; type: string; format: string }[] }} CnModel */

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));

export function clientNodeDir() {
  // The package's exports map hides package.json; find it from the resolved entry point.
  let dir = dirname(require.resolve('@kubernetes/client-node'));
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  return dir;
}

function kubernetesTypesDir() {
  return dirname(require.resolve('kubernetes-types/package.json'));
}

// ---------------------------------------------------------------------------------------------
// .d.ts reading

/**
 * Turns the text inside a JSDoc block into its description (lines joined with \n, trimmed).
 * @param {string} block
 */
function jsdocText(block) {
  const lines = block
    .replace(/^\/\*\*/, '')
    .replace(/\*\/$/, '')
    .split('\n')
    .map((l) => l.replace(/^\s*\* ?/, '').replace(/\s+$/, ''));
  while (lines.length && lines[0].trim() === '') lines.shift();
  while (lines.length && lines[lines.length - 1].trim() === '') lines.pop();
  return lines.join('\n');
}

/**
 * Undoes the escaping openapi-generator applies inside client-node's JSDoc.
 * @param {string} s
 */
function unescapeClientNode(s) {
  return s.replace(/\\(['"\\])/g, '$1').replace(/\*\\\//g, '*/');
}

/**
 * Reads one client-node model .d.ts: class description, and for each property its description
 * and whether it is optional.
 * @param {string} text
 */
function readClientNodeDts(text) {
  /** @type {{ description: string | undefined; props: Map<string, { description: string | undefined; optional: boolean }> }} */
  const out = { description: undefined, props: new Map() };
  const classMatch = /(\/\*\*(?:(?!\*\/)[\s\S])*\*\/)\s*export declare class \w+/.exec(text);
  if (classMatch) out.description = unescapeClientNode(jsdocText(classMatch[1]));
  const body = text.slice(text.indexOf('export declare class'));
  const re = /(?:(\/\*\*(?:(?!\*\/)[\s\S])*\*\/)\s*)?'([^']+)'(\?)?:/g;
  for (const m of body.matchAll(re)) {
    out.props.set(m[2], {
      description: m[1] ? unescapeClientNode(jsdocText(m[1])) : undefined,
      optional: m[3] === '?',
    });
  }
  return out;
}

/**
 * Reads a kubernetes-types .d.ts: interfaces with their description and their properties
 * (description and the raw type text).
 * @param {string} text
 */
function readKubernetesTypesDts(text) {
  /** @type {Map<string, KtInterface>} */
  const interfaces = new Map();
  const re = /(?:(\/\*\*(?:(?!\*\/)[\s\S])*\*\/)\s*)?export interface (\w+) \{\n?([\s\S]*?)^\}/gm;
  for (const m of text.matchAll(re)) {
    const props = new Map();
    // Properties sit at four spaces of indentation; nested object types are deeper.
    const pre = /(?:(\/\*\*(?:(?!\*\/)[\s\S])*?\*\/)\n)? {4}("?[\w$-]+"?)(\?)?: ([\s\S]*?);\n(?= {4}\S|$)/g;
    const bodyText = `${m[3].replace(/\s+$/, '')}\n`;
    for (const p of bodyText.matchAll(pre)) {
      props.set(p[2].replace(/"/g, ''), { description: p[1] ? jsdocText(p[1].trim()) : undefined, type: p[4] });
    }
    interfaces.set(m[2], { description: m[1] ? jsdocText(m[1]) : undefined, props });
  }
  return interfaces;
}

/**
 * Every .d.ts file under dir: its path relative to dir without `.d.ts`, and its full path.
 * @param {string} dir
 * @returns {{ rel: string; full: string }[]}
 */
function walkDts(dir, base = '') {
  /** @type {{ rel: string; full: string }[]} */
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (name.endsWith('.d.ts')) out.push({ rel: join(base, name.slice(0, -5)), full });
    else if (!name.includes('.') && name !== 'node_modules') out.push(...walkDts(full, join(base, name)));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// conversion

/** @type {(s: string | undefined) => string} */
const ws = (s) => (s ?? '').replace(/\s+/g, ' ').trim();

/**
 * Picks the description: kubernetes-types' (paragraphs kept) when it says the same thing as
 * client-node's; kubernetes-types' alone where client-node has none (openapi-generator drops the
 * description of every field whose type is another model).
 * @param {string | undefined} cn
 * @param {string | undefined} kt
 */
function pickDescription(cn, kt) {
  if (!cn?.trim()) return kt?.trim() ? kt.trim() : undefined;
  if (kt && ws(kt) === ws(cn)) return kt.trim();
  return cn.trim();
}

/**
 * Splits a client-node type string at the top level: Array<...>, { [key: string]: ...; }, name.
 * @param {string} t
 * @returns {CnType}
 */
function parseCnType(t) {
  t = t.trim();
  if (t.startsWith('Array<') && t.endsWith('>')) return { kind: 'array', of: parseCnType(t.slice(6, -1)) };
  const map = /^\{ \[key: string\]: (.*); \}$/.exec(t);
  if (map) return { kind: 'map', of: parseCnType(map[1]) };
  return { kind: 'name', name: t };
}

/**
 * The special apimachinery type kubernetes-types names in a field's type text, if any.
 * @param {string | undefined} ktType
 */
function ktSpecial(ktType) {
  if (!ktType) return undefined;
  for (const s of ['Quantity', 'RawExtension', 'JSON', 'FieldsV1', 'IntOrString', 'MicroTime', 'Time']) {
    if (new RegExp(`\\b${s}\\b`).test(ktType)) return s;
  }
  return undefined;
}

export async function generate() {
  const cnDir = clientNodeDir();
  const cnPkg = JSON.parse(readFileSync(join(cnDir, 'package.json'), 'utf8'));
  const modelsDir = join(cnDir, 'dist', 'gen', 'models');
  const all = await import(pathToFileURL(join(modelsDir, 'all.js')).href);
  const header = readFileSync(join(modelsDir, 'V1Pod.d.ts'), 'utf8');
  const kubernetesVersion = /OpenAPI spec version: (v[\d.]+)/.exec(header)?.[1];
  if (!kubernetesVersion) throw new Error('gen-k8s-schemas: cannot read the OpenAPI spec version from client-node');

  const ktDir = kubernetesTypesDir();
  const ktPkg = JSON.parse(readFileSync(join(ktDir, 'package.json'), 'utf8'));
  /** group/version path ('core/v1', 'meta/v1', 'apps/v1') -> interfaces */
  /** @type {Map<string, Map<string, KtInterface>>} */
  const kt = new Map();
  for (const f of walkDts(ktDir)) kt.set(f.rel, readKubernetesTypesDts(readFileSync(f.full, 'utf8')));

  const names = Object.keys(all)
    .filter((k) => typeof all[k] === 'function' && Array.isArray(all[k].attributeTypeMap))
    .sort();
  const modelSet = new Set(names);

  /**
   * Finds the kubernetes-types interface that is the same Kubernetes type as a client-node model.
   * @param {string} name
   * @param {CnModel['attributeTypeMap']} attrs
   */
  function matchKt(name, attrs) {
    const split = splitModelName(name);
    if (!split) return undefined;
    const want = new Set(attrs.map((a) => a.baseName));
    /** @type {{ score: number; iface: KtInterface; path: string } | undefined} */
    let best;
    for (const [path, ifaces] of kt) {
      const [group, ver] = path.split('/');
      if (ver !== split.version || !groupFits(split, group)) continue;
      const iface = ifaces.get(split.kind);
      if (!iface) continue;
      const { score } = overlap(want, [...iface.props.keys()]);
      if (!best || score > best.score) best = { score, iface, path };
    }
    return best;
  }

  /** @type {Record<string, Model>} */
  const models = {};
  /** @type {string[]} */
  const unmatched = [];
  /** @type {string[]} */
  const anyFields = [];
  for (const name of names) {
    /** @type {CnModel} */
    const cls = all[name];
    const dts = readClientNodeDts(readFileSync(join(modelsDir, `${name}.d.ts`), 'utf8'));
    const match = matchKt(name, cls.attributeTypeMap);
    if (!match) unmatched.push(name);
    const ktIface = match?.iface;

    /** @type {(t: CnType, format: string, special: string | undefined, where: string) => SchemaNode} */
    const convert = (t, format, special, where) => {
      if (t.kind === 'array') return { type: 'array', items: convert(t.of, format, special, where) };
      if (t.kind === 'map') return { type: 'object', additionalProperties: convert(t.of, format, special, where) };
      const n = t.name;
      if (n === 'string') {
        if (special === 'Quantity') return { $special: 'Quantity' };
        if (format === 'byte') return { format: 'byte', type: 'string' };
        if (format === 'date-time') return { format: 'date-time', type: 'string' };
        return { type: 'string' };
      }
      if (n === 'number') {
        if (format === 'int32' || format === 'int64') return { format, type: 'integer' };
        // Go float64 fields: controller-gen emits `type: number` with no format.
        if (format === 'double' || format === 'float') return { type: 'number' };
        return { type: 'integer' };
      }
      if (n === 'boolean') return { type: 'boolean' };
      if (n === 'Date' || n === 'V1MicroTime') return { format: 'date-time', type: 'string' };
      if (n === 'IntOrString') return { $special: 'IntOrString' };
      if (n === 'any') {
        anyFields.push(`${where}: ${special ?? '?'}`);
        if (special === 'RawExtension') return { $special: 'RawExtension' };
        if (special === 'FieldsV1') return { type: 'object' };
        if (special === 'JSON') return { $special: 'JSON' };
        // Not typed by kubernetes-types (newer than it): in k8s.io/api such fields are
        // runtime.RawExtension or empty structs; both are objects.
        return { $special: 'RawExtension' };
      }
      if (n === 'V1ObjectMeta') return { $special: 'ObjectMeta' };
      if (modelSet.has(n)) return { $model: n };
      throw new Error(`gen-k8s-schemas: ${where}: unknown client-node type '${n}'`);
    };

    /** @type {Record<string, SchemaNode>} */
    const properties = {};
    /** @type {string[]} */
    const required = [];
    for (const a of cls.attributeTypeMap) {
      const info = dts.props.get(a.name) ?? dts.props.get(a.baseName);
      const ktProp = ktIface?.props.get(a.baseName);
      const node = convert(parseCnType(a.type), a.format, ktSpecial(ktProp?.type), `${name}.${a.baseName}`);
      // client-node gives MicroTime and IntOrString fields the description of the type, not the field's.
      const cnDescription =
        /\b(V1MicroTime|IntOrString)\b/.test(a.type) && ktProp?.description ? undefined : info?.description;
      const description = pickDescription(cnDescription, ktProp?.description);
      if (description) node.description = description;
      properties[a.baseName] = node;
      if (info && !info.optional) required.push(a.baseName);
    }
    const model = /** @type {Model} */ ({});
    const description = pickDescription(dts.description, ktIface?.description);
    if (description) model.description = description;
    model.properties = properties;
    if (required.length) model.required = required.sort();
    models[name] = model;
  }

  const minors = GO_MINORS.map((m) => m.kubernetes);
  const newest = minors[minors.length - 1];
  /** @type {Map<string, { models: Record<string, Model>; report: OverlayReport }>} */
  const perMinor = new Map();
  for (const pin of GO_MINORS) {
    const modules = kubernetesGoModules(pin.kubernetes);
    const goPkgs = readGoPackages(modules, [
      ...apiPackages(modules),
      'k8s.io/apimachinery/pkg/apis/meta/v1',
      'k8s.io/apimachinery/pkg/api/resource',
      'k8s.io/apimachinery/pkg/runtime',
      'k8s.io/apimachinery/pkg/types',
      'k8s.io/apimachinery/pkg/util/intstr',
    ]);
    const minorModels = structuredClone(models);
    const report = overlayGo(minorModels, names, goPkgs);
    perMinor.set(pin.kubernetes, { models: /** @type {Record<string, Model>} */ (sortKeys(minorModels)), report });
  }
  /** @type {Record<string, string[]>} */
  const goTypes = {};
  for (const pin of GO_MINORS) goTypes[pin.kubernetes] = pin.modules.map((m) => `${m.path} ${m.version}`);

  const newestModels = /** @type {{ models: Record<string, Model> }} */ (perMinor.get(newest)).models;
  const data = {
    source: {
      package: '@kubernetes/client-node',
      version: cnPkg.version,
      kubernetesVersion,
      auxiliary: { package: 'kubernetes-types', version: ktPkg.version },
      goTypes: { kubernetesVersion: newest, modules: goTypes[newest] },
    },
    models: newestModels,
  };
  const source = [
    '// Generated by scripts/gen-k8s-schemas.mjs. Do not edit.',
    '',
    '/** Where the Kubernetes model schemas in models.json (and the per-minor patches) come from. */',
    'export const SOURCE = {',
    `  package: ${JSON.stringify(data.source.package)},`,
    `  version: ${JSON.stringify(data.source.version)},`,
    `  kubernetesVersion: ${JSON.stringify(data.source.kubernetesVersion)},`,
    `  auxiliary: { package: ${JSON.stringify(ktPkg.name)}, version: ${JSON.stringify(ktPkg.version)} },`,
    '  goTypes: {',
    ...minors.map((m) => `    ${JSON.stringify(m)}: ${JSON.stringify(goTypes[m]).replace(/","/g, '", "')},`),
    '  },',
    '} as const;',
    '',
    '/** The Kubernetes minors whose schema data is shipped, oldest first (`manifests --k8s-version`). */',
    `export const K8S_VERSIONS = ${JSON.stringify(minors).replace(/","/g, '", "')} as const;`,
    '',
    '/** The newest supported minor: the data of models.json, and the default. */',
    `export const K8S_NEWEST_VERSION = ${JSON.stringify(newest)};`,
    '',
    '/** Every @kubernetes/client-node model class name that models.json describes, sorted. */',
    'export const MODEL_NAMES: readonly string[] = [',
    ...names.map((n) => `  ${JSON.stringify(n)},`),
    '];',
    '',
  ].join('\n');
  /** @type {Record<string, string>} */
  const files = {
    'models.json': `${JSON.stringify(data)}\n`,
    'models.shape.json': `${JSON.stringify({ models: Object.fromEntries(Object.entries(newestModels).map(([n, m]) => [n, withoutDescriptions(m)])) })}\n`,
  };
  for (const minor of minors) {
    if (minor === newest) continue;
    const patch = mergePatch(
      newestModels,
      /** @type {{ models: Record<string, Model> }} */ (perMinor.get(minor)).models,
      'models',
    );
    files[`models.${minor}.patch.json`] = `${JSON.stringify(patch ?? {})}\n`;
  }
  files['source.ts'] = source;
  files['go-types-report.md'] = goTypesReport(perMinor, data.source, names.length);
  return { files, unmatched, anyFields };
}

/**
 * A model node without its descriptions, at any depth of the schema (property names, defaults and
 * rules are data and stay as they are).
 * @template {Record<string, any>} T
 * @param {T} node
 * @returns {T}
 */
export function withoutDescriptions(node) {
  /** @type {Record<string, any>} */
  const out = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'description') continue;
    if (k === 'properties')
      out[k] = Object.fromEntries(Object.entries(v).map(([name, p]) => [name, withoutDescriptions(p)]));
    else if ((k === 'items' || k === 'additionalProperties') && v !== null && typeof v === 'object')
      out[k] = withoutDescriptions(v);
    else out[k] = v;
  }
  return /** @type {T} */ (out);
}

/**
 * The JSON merge patch (RFC 7396) that turns `from` into `to`; undefined when they are equal. A
 * null in `to` cannot be said in a merge patch (it means "remove"), so it is refused.
 * @param {unknown} from
 * @param {unknown} to
 * @param {string} at
 * @returns {unknown}
 */
export function mergePatch(from, to, at) {
  if (to === null) throw new Error(`gen-k8s-schemas: ${at} is null, which a merge patch cannot hold`);
  const isObject = (/** @type {unknown} */ v) => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (isObject(from) && isObject(to)) {
    const f = /** @type {Record<string, unknown>} */ (from);
    const t = /** @type {Record<string, unknown>} */ (to);
    /** @type {Record<string, unknown>} */
    const out = {};
    for (const k of Object.keys(f)) if (!Object.hasOwn(t, k)) out[k] = null;
    for (const k of Object.keys(t)) {
      const d = Object.hasOwn(f, k) ? mergePatch(f[k], t[k], `${at}.${k}`) : mergePatch(undefined, t[k], `${at}.${k}`);
      if (d !== undefined) out[k] = d;
    }
    return Object.keys(out).length ? sortKeys(out) : undefined;
  }
  if (isObject(to)) {
    // A new object: the patch holds it whole (checked for nulls on the way).
    mergePatch({}, to, at);
    return to;
  }
  if (JSON.stringify(from) === JSON.stringify(to)) return undefined;
  if (Array.isArray(to))
    JSON.stringify(to, (k, v) => {
      if (v === null) throw new Error(`gen-k8s-schemas: ${at}[${k}] is null`);
      return v;
    });
  return to;
}

/**
 * The generated account of the Go types, per minor: what they changed, and what they could not give.
 * @param {Map<string, { report: OverlayReport }>} perMinor
 * @param {{ package: string; version: string; kubernetesVersion: string }} source
 * @param {number} modelCount
 */
function goTypesReport(perMinor, source, modelCount) {
  /** @type {(items: string[]) => string[]} */
  const list = (items) => (items.length ? items.map((i) => `- ${i}`) : ['- (none)']);
  const out = [
    '<!-- Generated by scripts/gen-k8s-schemas.mjs. Do not edit. -->',
    '# The embedded Kubernetes schemas: the Go types of each supported minor',
    '',
    `Model names: ${source.package} ${source.version} (Kubernetes ${source.kubernetesVersion}), ${modelCount} models.`,
    'Every model that is a Go struct of k8s.io/api or k8s.io/apimachinery at the minor is rebuilt from',
    'it as controller-gen reads it (fields, shapes, descriptions, required fields, `+listType`,',
    '`+listMapKey`, `+mapType`, `+structType`, `+default`, `+kubebuilder:validation:*`); Go structs',
    'no client-node model stands for become models named by their Go package and name. Models without',
    'a Go struct keep what client-node gives (with kubernetes-types for Quantity and RawExtension fields).',
    '',
  ];
  for (const [minor, { report: r }] of perMinor) {
    const pin = GO_MINORS.find((m) => m.kubernetes === minor);
    out.push(
      `## Kubernetes ${minor}: ${pin?.modules.map((m) => `${m.path} ${m.version}`).join(', ')}`,
      '',
      '### Counts',
      '',
      `- client-node models: ${modelCount}; rebuilt from a Go struct: ${r.matched}; without one: ${r.unmatched.length}`,
      `- models of Go structs client-node does not have: ${r.goOnlyModels.length}`,
      `- fields of rebuilt models also in client-node: ${r.fieldsBoth}; only in Go (added): ${r.goOnlyFields.length}; only in client-node (left out): ${r.droppedFields.length}`,
      ...[...r.applied].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, n]) => `- ${k} from a marker: ${n}`),
      `- list-maps not emitted (the API server would reject them): ${r.droppedListMaps.length}`,
      '',
      '### List-maps not emitted',
      '',
      ...list(r.droppedListMaps),
      '',
      '### Defaults controller-gen does not write (a reference to a Go constant)',
      '',
      ...list(r.ignoredDefaults),
      '',
      '### Markers not understood (ignored)',
      '',
      ...list([...r.unknownMarkers].sort(([a], [b]) => (a < b ? -1 : 1)).map(([m, at]) => `+${m}: ${at.join(', ')}`)),
      '',
      '### Markers not applied (controller-gen refuses them: a field or list of another shape, an enum without constants)',
      '',
      ...list(r.notApplicable),
      '',
      '### Fields whose shape differs between the Go type and client-node (Go used)',
      '',
      ...list(r.shapeMismatches),
      '',
      '### Required fields that differ from client-node (Go used)',
      '',
      ...list(r.requiredChanged),
      '',
      '### client-node models with no Go struct in these sources (client-node data only)',
      '',
      ...list(r.unmatched),
      '',
      '### Fields client-node has and the Go struct does not (left out)',
      '',
      ...list(r.droppedFields),
      '',
      '### Fields of the Go structs client-node does not have (added)',
      '',
      ...list(r.goOnlyFields),
      '',
      '### Go structs no client-node model stands for (models of their own)',
      '',
      ...list(r.goOnlyModels),
      '',
    );
  }
  return out.join('\n');
}

/**
 * A deep copy with every object's keys sorted (deterministic JSON).
 * @param {unknown} v
 * @returns {unknown}
 */
function sortKeys(v) {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') {
    /** @type {Record<string, unknown>} */
    const o = {};
    for (const k of Object.keys(v).sort()) o[k] = sortKeys(/** @type {Record<string, unknown>} */ (v)[k]);
    return o;
  }
  return v;
}

export const defaultOutDir = join(root, 'src', 'schema', 'k8s', 'data');

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const check = args.includes('--check');
  const outIdx = args.indexOf('--out-dir');
  const outDir = outIdx >= 0 ? resolve(args[outIdx + 1]) : defaultOutDir;
  const { files, unmatched, anyFields } = await generate().catch((e) => {
    if (e?.code !== GO_SOURCE_ERROR) throw e;
    console.error(e.message);
    process.exit(1);
  });
  if (args.includes('--verbose')) {
    console.error(`not in kubernetes-types (${unmatched.length}): ${unmatched.join(' ')}`);
    console.error(`untyped fields:\n  ${anyFields.join('\n  ')}`);
  }
  let stale = 0;
  for (const [name, text] of Object.entries(files)) {
    const out = join(outDir, name);
    if (check) {
      const current = existsSync(out) ? readFileSync(out, 'utf8') : '';
      if (current !== text) {
        console.error(`gen-k8s-schemas: ${out} is out of date; run: node scripts/gen-k8s-schemas.mjs`);
        stale++;
      }
    } else {
      mkdirSync(outDir, { recursive: true });
      writeFileSync(out, text);
      console.error(`gen-k8s-schemas: wrote ${out} (${text.length} bytes)`);
    }
  }
  if (check && stale) process.exit(1);
  if (check) console.error('gen-k8s-schemas: generated files are up to date');
}
