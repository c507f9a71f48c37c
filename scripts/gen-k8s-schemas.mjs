#!/usr/bin/env node
// Generates src/schema/k8s/data/{models.json,source.ts}: the schema data of every @kubernetes/client-node
// model, from which src/schema/k8s/index.ts builds the inlined structural schemas that
// `kubeforge manifests` emits for embedded Kubernetes types.
//
// Sources (nothing written by hand):
//  - @kubernetes/client-node (the models users embed): model set, JSON field names, field types
//    and formats, required fields (non-optional properties in its .d.ts), descriptions.
//  - kubernetes-types (devDependency): which string fields are really resource.Quantity, which
//    `any` fields are runtime.RawExtension / apiextensions JSON / FieldsV1, and descriptions with
//    their paragraph breaks kept (used only where its text equals client-node's up to whitespace).
//  - the Go sources of k8s.io/api and k8s.io/apimachinery of Kubernetes 1.32 (Debian trixie's
//    golang-k8s-api-dev and golang-k8s-apimachinery-dev, pinned by sha256, fetched into a cache
//    folder by scripts/k8s-go-source.mjs): what controller-gen itself reads. Read by
//    scripts/k8s-go-types.mjs and laid over the models by scripts/k8s-go-overlay.mjs: descriptions
//    (doc comments, line breaks kept), required fields, +listType / +listMapKey / +mapType /
//    +structType, +default, +kubebuilder:validation markers, and Quantity fields. No npm package
//    ships these markers (Kubernetes' published OpenAPI documents lack the defaults and the
//    kubebuilder markers). Models and fields newer than 1.32 keep the client-node data.
//
// Usage: node scripts/gen-k8s-schemas.mjs [--check] [--out-dir <dir>] [--verbose]
//   --check   regenerate in memory and exit 1 if a committed file differs (CI drift check).
// Writes src/schema/k8s/data/models.json (the data, read lazily at run time),
// src/schema/k8s/data/source.ts (provenance and the model names, cheap to import) and
// src/schema/k8s/data/go-types-report.md (what the Go overlay did and could not do).
// @ts-check
import { readFileSync, writeFileSync, readdirSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import { GO_DEBIAN_RELEASE, GO_KUBERNETES_VERSION, GO_PINS, GO_SOURCE_ERROR, kubernetesGoSourcePath } from './k8s-go-source.mjs';
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
  let m;
  while ((m = re.exec(body))) {
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
  let m;
  while ((m = re.exec(text))) {
    const props = new Map();
    // Properties sit at four spaces of indentation; nested object types are deeper.
    const pre = /(?:(\/\*\*(?:(?!\*\/)[\s\S])*?\*\/)\n)? {4}("?[\w$-]+"?)(\?)?: ([\s\S]*?);\n(?= {4}\S|$)/g;
    const bodyText = m[3].replace(/\s+$/, '') + '\n';
    let p;
    while ((p = pre.exec(bodyText))) {
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
  if (!cn || !cn.trim()) return kt && kt.trim() ? kt.trim() : undefined;
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
      const cnDescription = /\b(V1MicroTime|IntOrString)\b/.test(a.type) && ktProp?.description ? undefined : info?.description;
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

  const goSrc = await kubernetesGoSourcePath();
  const goPkgs = readGoPackages(goSrc, [
    ...apiPackages(goSrc),
    'k8s.io/apimachinery/pkg/apis/meta/v1',
    'k8s.io/apimachinery/pkg/api/resource',
    'k8s.io/apimachinery/pkg/runtime',
    'k8s.io/apimachinery/pkg/types',
    'k8s.io/apimachinery/pkg/util/intstr',
  ]);
  const report = overlayGo(models, names, goPkgs);
  const goTypes = {
    debian: GO_DEBIAN_RELEASE,
    packages: GO_PINS.map((p) => `${p.package} ${p.version}`),
    kubernetesVersion: GO_KUBERNETES_VERSION,
  };

  const data = {
    source: {
      package: '@kubernetes/client-node',
      version: cnPkg.version,
      kubernetesVersion,
      auxiliary: { package: 'kubernetes-types', version: ktPkg.version },
      goTypes,
    },
    models: sortKeys(models),
  };
  const source = [
    '// Generated by scripts/gen-k8s-schemas.mjs. Do not edit.',
    '',
    '/** Where the Kubernetes model schemas in models.json come from. */',
    'export const SOURCE = {',
    `  package: ${JSON.stringify(data.source.package)},`,
    `  version: ${JSON.stringify(data.source.version)},`,
    `  kubernetesVersion: ${JSON.stringify(data.source.kubernetesVersion)},`,
    `  auxiliary: { package: ${JSON.stringify(ktPkg.name)}, version: ${JSON.stringify(ktPkg.version)} },`,
    `  goTypes: { debian: ${JSON.stringify(goTypes.debian)}, packages: ${JSON.stringify(goTypes.packages).replace(/","/g, '", "')}, kubernetesVersion: ${JSON.stringify(goTypes.kubernetesVersion)} },`,
    '} as const;',
    '',
    '/** Every @kubernetes/client-node model class name that models.json describes, sorted. */',
    'export const MODEL_NAMES: readonly string[] = [',
    ...names.map((n) => `  ${JSON.stringify(n)},`),
    '];',
    '',
  ].join('\n');
  const files = {
    'models.json': JSON.stringify(data) + '\n',
    'source.ts': source,
    'go-types-report.md': goTypesReport(report, data.source, names.length),
  };
  return { files, unmatched, anyFields };
}

/**
 * The generated account of the Go overlay: what was laid over, and what could not be.
 * @param {OverlayReport} r
 * @param {{ package: string; version: string; kubernetesVersion: string; goTypes: { debian: string; packages: string[]; kubernetesVersion: string } }} source
 * @param {number} modelCount
 */
function goTypesReport(r, source, modelCount) {
  const g = source.goTypes;
  /** @type {(items: string[]) => string[]} */
  const list = (items) => (items.length ? items.map((i) => `- ${i}`) : ['- (none)']);
  return [
    '<!-- Generated by scripts/gen-k8s-schemas.mjs. Do not edit. -->',
    '# The embedded Kubernetes schemas: client-node models with the Go types laid over',
    '',
    `Models, fields and shapes: ${source.package} ${source.version} (Kubernetes ${source.kubernetesVersion}).`,
    `Descriptions, required fields, markers (\`+listType\`, \`+listMapKey\`, \`+mapType\`, \`+structType\`, \`+default\`,`,
    `\`+kubebuilder:validation:*\`) and resource.Quantity fields: the Go sources of Kubernetes ${g.kubernetesVersion}, from Debian ${g.debian}'s`,
    `${g.packages.join(' and ')} (scripts/k8s-go-source.mjs). Models and fields newer than those sources`,
    'keep what client-node gives: no markers, no defaults, descriptions without line breaks.',
    '',
    '## Counts',
    '',
    `- client-node models: ${modelCount}; matched to a Go type: ${r.matched}; without one: ${r.unmatched.length}`,
    `- fields of matched models: ${r.fieldsBoth + r.newerFields.length}; also in the Go type: ${r.fieldsBoth}; newer than it: ${r.newerFields.length}`,
    ...[...r.applied].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, n]) => `- ${k} laid over: ${n}`),
    `- list-maps not emitted (the API server would reject them): ${r.droppedListMaps.length}`,
    '',
    '## List-maps not emitted',
    '',
    ...list(r.droppedListMaps),
    '',
    '## Defaults controller-gen does not write (a reference to a Go constant)',
    '',
    ...list(r.ignoredDefaults),
    '',
    '## Markers not understood (ignored)',
    '',
    ...list([...r.unknownMarkers].sort(([a], [b]) => (a < b ? -1 : 1)).map(([m, at]) => `+${m}: ${at.join(', ')}`)),
    '',
    '## Markers on a field of another shape (not applied; controller-gen would refuse them)',
    '',
    ...list(r.notApplicable),
    '',
    '## Fields whose shape differs between the Go type and client-node (client-node kept)',
    '',
    ...list(r.shapeMismatches),
    '',
    '## Required in the Go types, optional in client-node\'s newer release (optional kept)',
    '',
    ...list(r.relaxed),
    '',
    '## Required fields that differ from client-node (Go used)',
    '',
    ...list(r.requiredChanged),
    '',
    '## client-node models with no Go type in these sources (client-node data only)',
    '',
    ...list(r.unmatched),
    '',
    '## Fields newer than the Go types (client-node data only)',
    '',
    ...list(r.newerFields),
    '',
    '## Go fields client-node does not have (not emitted)',
    '',
    ...list(r.goOnlyFields),
    '',
  ].join('\n');
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
