/**
 * The CRD check: every CustomResourceDefinition `kubeforge manifests` is about to write is
 * checked against the rules the API server applies when it is created (ported from
 * k8s.io/apiextensions-apiserver, the rules of a current Kubernetes). Each violation becomes an
 * error diagnostic located at the marker or field that caused it, found through the origins the
 * schema formatter and the CRD generator attach to what they build (src/schema/origin.ts).
 * Nothing here writes; the manifests pipeline fails, writing nothing, when an error is found.
 */
import {
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
} from '../../util/apimachinery/validation.js';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { error, warning as warningDiagnostic, type Diagnostic } from '../../diagnostics/index.js';
import { missingField, parsePrintColumnPath } from './jsonpath.js';
import { webhookPathProblem } from '../../project/naming.js';
import { isMarkerNamed, type Location, type MarkerValue } from '../../collector/collector.js';
import type { MarkerArgs, MarkerName } from '../../markers/definitions.js';
import type { JSONSchemaProps } from '../../schema/jsonschema.js';
import type { CRDManifest } from '../../schema/crd.js';
import { crdOriginOf, schemaOriginOf, type CRDOrigin, type SchemaOrigin } from '../../schema/origin.js';
import { CODES } from './codes.js';
import type { RuleViolation } from './cel.js';
import { hasRules } from './rules.js';
import { checkSchema, schemaPath, type SchemaViolation } from './schema.js';

export { CODES, CODE_HELP } from './codes.js';
export { checkRE2 } from '#cel/re2';
export { validateValue } from './value.js';

type Obj = Record<string, unknown>;

/** The CEL rule check, once loaded ({@link loadRuleCheck}). */
let ruleCheck: typeof import('./cel.js') | undefined;

/**
 * Loads the CEL rule check when one of `schemas` carries rules (or, without schemas, always). The
 * check is synchronous, CEL is an ES module graph of some 130 files: a caller that may check a CRD
 * with rules awaits this first (the manifests generators do, in their `prepare`).
 */
export async function loadRuleCheck(schemas?: Iterable<JSONSchemaProps>): Promise<void> {
  if (ruleCheck) return;
  if (schemas && ![...schemas].some(hasRules)) return;
  ruleCheck = await import('./cel.js');
}

/** What the CRD check may be told about the project. */
export interface CheckCRDOptions {
  /** The Kubernetes minor the project targets (CEL libraries by version); default the newest. */
  k8sMinor?: number;
}

function checkRules(schema: JSONSchemaProps, options: CheckCRDOptions): RuleViolation[] {
  if (!hasRules(schema)) return [];
  // A programming error, never silence: a CRD with rules is not checked without its rules.
  if (!ruleCheck)
    throw new Error(
      'the CEL rule check is not loaded: await loadRuleCheck() before checking CRDs with x-kubernetes-validations',
    );
  return ruleCheck.checkRules(schema, options);
}
type VersionOrigin = CRDOrigin['versions'][number];

/** The first of apimachinery's messages for a name that is not a DNS-1035 label (a plural, a Service name), or undefined. */
function dns1035(v: string): string | undefined {
  return isDNS1035Label(v)[0];
}

/** etcd's default --max-request-bytes, and the size from which a CRD is said to come close. */
const ETCD_DEFAULT_MAX_BYTES = 1_572_864;
const ETCD_WARN_BYTES = 1_200_000;

const isSubdomain = (v: string): boolean => isDNS1123Subdomain(v).length === 0;

/** apimachinery's messages for a label or annotation key that is not a qualified name, joined, or undefined. */
function qualifiedNameProblem(key: string): string | undefined {
  const errs = isQualifiedName(key);
  return errs.length ? `is not valid: ${errs.join('; ')}` : undefined;
}

/** `.a.b.c` with identifier-ish segments (apiextensions' validateSimpleJSONPath, a little stricter). */
function simplePathProblem(p: string): string | undefined {
  if (!p) return 'must not be empty';
  if (p[0] !== '.') return "must be a simple JSON path starting with '.' (for example .spec.replicas)";
  if (
    p !== '.' &&
    p
      .slice(1)
      .split('.')
      .some((seg) => !/^[A-Za-z0-9_-]+$/.test(seg) && !/^[A-Za-z0-9_-]+\[\d+\]$/.test(seg))
  )
    return 'must be a JSON path in dot notation (.spec.field)';
  return undefined;
}

/** The schema node at a simple path, or 'open' when a node on the way keeps unknown fields. */
function nodeAt(schema: JSONSchemaProps, path: string): JSONSchemaProps | 'open' | undefined {
  let node: JSONSchemaProps | undefined = schema;
  for (const raw of path.slice(1).split('.')) {
    if (!node) return undefined;
    const seg = raw.replace(/\[\d+\]$/, '');
    if (node['x-kubernetes-preserve-unknown-fields'] && !node.properties?.[seg]) return 'open';
    node =
      node.properties?.[seg] ?? (typeof node.additionalProperties === 'object' ? node.additionalProperties : undefined);
    if (node && raw !== seg) node = node.items;
  }
  return node;
}

/** Where the `group:` of a Kind's groupversion.ts is written (that file holds defineGroupVersion). */
function groupLocation(v: VersionOrigin): Location {
  const file = join(dirname(v.at.file), 'groupversion.ts');
  try {
    const text = readFileSync(file, 'utf8');
    for (const q of ["'", '"', '`']) {
      const i = text.indexOf(`${q}${v.group}${q}`);
      if (i >= 0) {
        const before = text.slice(0, i).split('\n');
        return { file, line: before.length, column: before[before.length - 1].length + 1 };
      }
    }
    return { file, line: 1, column: 1 };
  } catch {
    return v.at;
  }
}

const loc = (l: Location): Location => ({ file: l.file, line: l.line, column: l.column });

/** The markers that set a schema keyword (the first found is blamed). */
const KEYWORD_MARKERS: Record<string, string[]> = {
  pattern: ['Pattern'],
  default: ['Default'],
  'x-kubernetes-list-type': ['ListType'],
  'x-kubernetes-list-map-keys': ['ListMapKey', 'ListType'],
  'x-kubernetes-map-type': ['MapType', 'StructType'],
  uniqueItems: ['UniqueItems'],
  maximum: ['Maximum', 'ExclusiveMaximum'],
  minimum: ['Minimum', 'Maximum', 'ExclusiveMinimum'],
  multipleOf: ['MultipleOf'],
  maxLength: ['MaxLength'],
  minLength: ['MinLength', 'MaxLength'],
  maxItems: ['MaxItems'],
  minItems: ['MinItems', 'MaxItems'],
  maxProperties: ['MaxProperties'],
  minProperties: ['MinProperties', 'MaxProperties'],
  type: ['Schemaless', 'Type'],
  'x-kubernetes-embedded-resource': ['EmbeddedResource'],
  'x-kubernetes-int-or-string': ['IntOrString'],
  'x-kubernetes-preserve-unknown-fields': ['PreserveUnknownFields'],
  'x-kubernetes-validations': ['XValidation', 'Immutable', 'AtMostOneOf', 'ExactlyOneOf', 'AtLeastOneOf'],
  nullable: ['Nullable'],
  enum: ['Enum'],
  format: ['Format'],
  title: ['Title'],
  example: ['Example'],
  externalDocs: ['ExternalDocs'],
  maxProperties_root: ['MaxProperties'],
};

function findMarker(origin: SchemaOrigin | undefined, names: readonly string[]): MarkerValue | undefined {
  for (let o = origin; o; o = o.type) {
    for (const n of names) {
      const m = o.markers.find((x) => x.name === n);
      if (m) return m;
    }
  }
  return undefined;
}

interface Located {
  at: Location;
  where: string;
}

/**
 * Locates a schema violation: the nearest node on the chain with an origin (a user's field or
 * type), then the marker there that sets the keyword (`Items.X` when the violation is in the
 * field's items); else the field itself; else the Kind.
 */
function locate(v: SchemaViolation, version: VersionOrigin): Located {
  // A cause inside an installed package is reported at the user's field that uses the type.
  let inDependency: Located | undefined;
  const found = (l: Located): Located | undefined => {
    if (!l.at.file.includes('/node_modules/'))
      return inDependency
        ? {
            at: l.at,
            where: `${l.where}, through ${inDependency.where} (${inDependency.at.file.slice(inDependency.at.file.lastIndexOf('/node_modules/') + 1)}:${inDependency.at.line}:${inDependency.at.column}, a dependency's type)`,
          }
        : l;
    inDependency ??= l;
    return undefined;
  };
  for (let i = v.chain.length - 1; i >= 0; i--) {
    const o = schemaOriginOf(v.chain[i]);
    if (!o) continue;
    const r = locateAt(v, o, i, version);
    if (!r) continue;
    const l = found(r);
    if (l) return l;
  }
  return { at: loc(version.at), where: `Kind ${version.kind}` };
}

function locateAt(v: SchemaViolation, o: SchemaOrigin, i: number, version: VersionOrigin): Located | undefined {
  {
    const rel = v.steps.slice(i).filter((s) => !/^(allOf|anyOf|oneOf)\[|^not$/.test(s));
    const names = KEYWORD_MARKERS[v.keyword] ?? [];
    let marker: MarkerValue | undefined;
    if (rel.length === 0) marker = findMarker(o, names);
    else if (rel.length === 1 && rel[0] === 'items')
      marker = findMarker(
        o,
        names.map((n) => `Items.${n}`),
      );
    // A list-map key without a default is caused by the map list's markers or the key field.
    if (marker) return { at: loc(marker), where: o.where };
    if (o.at) return { at: loc(o.at), where: o.where };
    if (i === 0) return { at: loc(version.at), where: o.where };
  }
  return undefined;
}

/** The `@XValidation` marker that wrote this rule (same rule text) on the nearest origin; else as any schema violation. */
function locateRule(v: RuleViolation, version: VersionOrigin): Located {
  for (let i = v.chain.length - 1; i >= 0; i--) {
    const o = schemaOriginOf(v.chain[i]);
    if (!o) continue;
    for (let x: SchemaOrigin | undefined = o; x; x = x.type) {
      const m = x.markers.find(
        (mk) =>
          (isMarkerNamed(mk, 'XValidation') || isMarkerNamed(mk, 'Items.XValidation')) && mk.args.rule === v.rule.rule,
      );
      if (m && !m.file.includes('/node_modules/')) return { at: loc(m), where: o.where };
    }
  }
  return locate(
    { code: v.code, chain: v.chain, steps: v.steps, keyword: v.keyword, message: v.message, hint: v.hint },
    version,
  );
}

function markerOf<N extends MarkerName>(
  versions: readonly VersionOrigin[],
  name: N,
): Extract<MarkerValue, { name: N }> | undefined {
  for (const v of versions) {
    const m = v.markers.find((x) => isMarkerNamed(x, name));
    if (m) return m;
  }
  return undefined;
}

/** What every rule family of the CRD check reads: the CRD, its origins, and where to report. */
interface CRDCheck {
  readonly crd: object;
  readonly c: Obj;
  readonly spec: Obj;
  readonly names: Obj;
  readonly kind: string;
  readonly group: string;
  /** The origins of the CRD's versions (markers, locations). */
  readonly vo: readonly VersionOrigin[];
  /** The first version's origin: where a problem without a better place is reported. */
  readonly first: VersionOrigin;
  push(code: string, at: Location, message: string, hint: string): void;
  warn(code: string, at: Location, message: string, hint: string): void;
}

export function checkCRD(crd: object, options: CheckCRDOptions = {}): Diagnostic[] {
  const origin = crdOriginOf(crd);
  const c = crd as Obj;
  const spec = (c.spec ?? {}) as Obj;
  const names = (spec.names ?? {}) as Obj;
  const kind = String(names.kind ?? '');
  const group = String(spec.group ?? '');
  const vo = origin?.versions ?? [];
  const first: VersionOrigin = vo[0] ?? { version: '', kind, group, markers: [], at: { file: '', line: 0, column: 0 } };
  const out: Diagnostic[] = [];
  const k: CRDCheck = {
    crd,
    c,
    spec,
    names,
    kind,
    group,
    vo,
    first,
    push: (code, at, message, hint) => out.push(error(code, message, { ...loc(at), hint })),
    warn: (code, at, message, hint) => out.push(warningDiagnostic(code, message, { ...loc(at), hint })),
  };
  checkNames(k);
  checkGroup(k);
  checkMetadata(k);
  checkConversion(k);
  for (const ver of (spec.versions ?? []) as Obj[]) checkVersion(k, ver, out, options);
  return dedupe(out);
}

/** Kind, list Kind, plural, singular, short names, categories and the CRD's own name. */
function checkNames(k: CRDCheck): void {
  const { names, kind, group, first, push } = k;
  const resource = markerOf(k.vo, 'Resource');
  const nameAt = (key: keyof MarkerArgs<'Resource'>) => (resource?.args[key] !== undefined ? loc(resource) : first.at);
  const lowerKind = kind.toLowerCase();
  const kindProblem =
    kind.length > 63
      ? 'is longer than 63 characters'
      : isDNS1035Label(lowerKind).length === 0
        ? undefined
        : "must be letters and digits (a '-' inside is allowed), starting with a letter";
  if (kindProblem)
    push(
      CODES.names,
      first.at,
      `Kind name '${kind}' is not valid for the API server: ${kindProblem}`,
      'rename the class: Kinds are CamelCase ASCII names such as CronJob',
    );
  else {
    const listKind = String(names.listKind ?? '');
    if (dns1035(listKind.toLowerCase()))
      push(
        CODES.names,
        first.at,
        `list Kind '${listKind}' is not valid: ${dns1035(listKind.toLowerCase())}`,
        'shorten the Kind name',
      );
  }
  for (const key of ['plural', 'singular'] as const) {
    const value = String(names[key] ?? '');
    const p = dns1035(value);
    if (p) {
      const from = key === 'plural' ? 'path' : 'singular';
      const set = resource?.args[from] !== undefined;
      if (!set && kindProblem) continue; // derived from the Kind name, reported above
      push(
        CODES.names,
        nameAt(from),
        `resource ${key} name '${value}' of Kind ${kind} ${p}`,
        set
          ? `write @Resource({ ${from}: '${value.toLowerCase().replace(/[^a-z0-9-]/g, '')}' }) (lower case)`
          : 'rename the Kind, or set the name with @Resource({ path, singular })',
      );
    }
  }
  for (const key of ['shortNames', 'categories'] as const) {
    for (const value of (names[key] ?? []) as string[]) {
      const p = dns1035(value);
      if (p)
        push(
          CODES.names,
          nameAt(key === 'shortNames' ? 'shortName' : 'categories'),
          `${key === 'shortNames' ? 'short name' : 'category'} '${value}' of Kind ${kind} ${p}`,
          'use lower-case names such as cj or all',
        );
    }
  }
  const crdName = `${String(names.plural ?? '')}.${group}`;
  if (!dns1035(String(names.plural ?? '')) && !isSubdomain(crdName))
    push(
      CODES.names,
      nameAt('path'),
      `CRD name '${crdName}' is not a DNS subdomain of at most 253 characters`,
      'shorten the plural name or the group',
    );
}

/** The API group: a DNS subdomain with a dot, and not a protected Kubernetes group. */
function checkGroup(k: CRDCheck): void {
  const { group, first, push } = k;
  if (!group || dns1035(k.kind.toLowerCase())) return;
  const at = first.at.file ? groupLocation(first) : first.at;
  if (!isSubdomain(group))
    push(
      CODES.group,
      at,
      `group '${group}' is not a DNS subdomain`,
      "use lower-case letters, digits, '-' and '.', e.g. 'batch.example.com'",
    );
  else if (!group.includes('.'))
    push(
      CODES.group,
      at,
      `group '${group}' has no dot: the API server requires a domain such as '${group}.example.com'`,
      `write group: '${group}.example.com' (or your own domain) in defineGroupVersion`,
    );
  const annotations = ((k.c.metadata as Obj | undefined)?.annotations ?? {}) as Obj;
  if (
    (group === 'k8s.io' ||
      group === 'kubernetes.io' ||
      group.endsWith('.k8s.io') ||
      group.endsWith('.kubernetes.io')) &&
    annotations['api-approved.kubernetes.io'] === undefined
  ) {
    push(
      CODES.group,
      at,
      `group '${group}' is protected: the API server refuses CRDs in *.k8s.io and *.kubernetes.io without the api-approved.kubernetes.io annotation`,
      "use your own domain; a Kubernetes SIG API adds @Metadata({ annotations: { 'api-approved.kubernetes.io': '<PR URL>' } })",
    );
  }
}

/** The CRD's metadata (from @Metadata) and its size as etcd stores it. */
function checkMetadata(k: CRDCheck): void {
  const { kind, first, push } = k;
  const meta = (k.c.metadata ?? {}) as Obj;
  const metaMarker = markerOf(k.vo, 'Metadata');
  const metaAt = metaMarker ? loc(metaMarker) : first.at;
  let annotationBytes = 0;
  for (const [key, v] of Object.entries((meta.annotations ?? {}) as Obj)) {
    const p = qualifiedNameProblem(key);
    if (p) push(CODES.metadata, metaAt, `annotation key '${key}' ${p}`, 'use keys such as example.com/owner');
    annotationBytes += key.length + String(v).length;
  }
  if (annotationBytes > 256 * 1024)
    push(
      CODES.metadata,
      metaAt,
      `the CRD's annotations total ${annotationBytes} bytes; the API server allows 262144`,
      'shorten the annotations',
    );
  // etcd stores an object of at most --max-request-bytes (1.5 MiB by default): a CRD near it
  // installs on no cluster with the default once it grows a little more. A warning, since the
  // limit is the cluster's to raise.
  const crdBytes = Buffer.byteLength(JSON.stringify(k.crd));
  if (crdBytes > ETCD_WARN_BYTES) {
    k.warn(
      CODES.metadata,
      first.at,
      `the CRD of ${kind} is ${(crdBytes / 1024 / 1024).toFixed(2)} MiB as JSON; etcd stores objects of at most ${ETCD_DEFAULT_MAX_BYTES} bytes (1.5 MiB) by default${crdBytes > ETCD_DEFAULT_MAX_BYTES ? ', so a cluster with the default refuses it (etcdserver: request is too large)' : ', and it is close'}`,
      'shorten descriptions (manifests --max-desc-len), or split the Kind; embedded Kubernetes types (a PodTemplateSpec is about 0.5 MiB per version) weigh most',
    );
  }
  for (const [key, v] of Object.entries((meta.labels ?? {}) as Obj)) {
    const p = qualifiedNameProblem(key);
    if (p) push(CODES.metadata, metaAt, `label key '${key}' ${p}`, 'use keys such as app.kubernetes.io/part-of');
    const value = String(v);
    const valueErrors = isValidLabelValue(value);
    if (valueErrors.length)
      push(
        CODES.metadata,
        metaAt,
        `label value '${value}' of '${key}' is not valid: ${valueErrors.join('; ')}`,
        'shorten or simplify the value',
      );
  }
}

/** The conversion webhook's Service, path, port and review versions. */
function checkConversion(k: CRDCheck): void {
  const { push } = k;
  const webhook = (k.spec.conversion as Obj | undefined)?.webhook as Obj | undefined;
  if (!webhook) return;
  const cm = markerOf(k.vo, 'ConversionWebhook');
  const at = cm ? loc(cm) : k.first.at;
  const service = ((webhook.clientConfig as Obj | undefined)?.service ?? {}) as Obj;
  if (dns1035(String(service.name ?? '')))
    push(
      CODES.metadata,
      at,
      `conversion webhook service name '${String(service.name)}' ${dns1035(String(service.name ?? ''))}`,
      'name the Service as Kubernetes names Services',
    );
  if (isDNS1123Label(String(service.namespace ?? '')).length)
    push(
      CODES.metadata,
      at,
      `conversion webhook service namespace '${String(service.namespace)}' is not a DNS label`,
      'use a namespace name such as system',
    );
  const path = service.path as string | undefined;
  const pathProblem = path === undefined ? undefined : webhookPathProblem(path);
  if (pathProblem)
    push(
      CODES.metadata,
      at,
      `conversion webhook path '${path}' is refused by the API server: ${pathProblem}`,
      "write a path such as '/convert'",
    );
  const port = service.port as number | undefined;
  if (port !== undefined && !(Number.isInteger(port) && port >= 1 && port <= 65535))
    push(
      CODES.metadata,
      at,
      `conversion webhook port ${port} is not between 1 and 65535`,
      'use a valid port (443 by default)',
    );
  const reviews = (webhook.conversionReviewVersions ?? []) as string[];
  if (!reviews.some((r) => r === 'v1' || r === 'v1beta1'))
    push(
      CODES.metadata,
      at,
      `conversionReviewVersions ${JSON.stringify(reviews)} must include v1 or v1beta1`,
      "use conversionReviewVersions: ['v1']",
    );
  if (new Set(reviews).size !== reviews.length)
    push(
      CODES.metadata,
      at,
      `conversionReviewVersions ${JSON.stringify(reviews)} has duplicates`,
      'list each version once',
    );
  for (const r of reviews)
    if (dns1035(r)) push(CODES.metadata, at, `conversionReviewVersions entry '${r}' is not a version name`, 'use v1');
}

/** One served version of the CRD, with its schema and where its markers are. */
interface VersionCheck {
  readonly name: string;
  readonly o: VersionOrigin;
  readonly ver: Obj;
  readonly schema: JSONSchemaProps;
}

/** One version: deprecation warning, subresources, columns, selectable fields, schema, CEL rules. */
function checkVersion(k: CRDCheck, ver: Obj, out: Diagnostic[], options: CheckCRDOptions): void {
  const name = String(ver.name ?? '');
  const o = k.vo.find((x) => x.version === name) ?? k.first;
  const dep = o.markers.find((m) => m.name === 'DeprecatedVersion');
  const warning = ver.deprecationWarning as string | undefined;
  if (warning !== undefined && (warning.length > 256 || !/^[\x20-\x7e\u00a0-\uffff]*$/.test(warning))) {
    k.push(
      CODES.metadata,
      dep ? loc(dep) : o.at,
      `deprecation warning of ${k.kind} ${name} must be at most 256 printable characters on one line`,
      'shorten the warning',
    );
  }
  const schema = ((ver.schema as Obj | undefined)?.openAPIV3Schema ?? {}) as JSONSchemaProps;
  const v: VersionCheck = { name, o, ver, schema };
  const subresources = (ver.subresources ?? {}) as Obj;
  checkScale(k, v, subresources.scale as Obj | undefined);
  checkPrinterColumns(k, v);
  checkSelectableFields(k, v);
  const { kind } = k;
  // the schema
  for (const sv of checkSchema(schema, subresources.status !== undefined)) {
    const l = locate(sv, o);
    out.push(
      (sv.warning ? warningDiagnostic : error)(
        sv.code,
        `${l.where} (${kind} ${name} ${schemaPath(sv.steps)}): ${sv.message}`,
        { ...l.at, hint: sv.hint },
      ),
    );
  }
  // CEL rules compiled against their schema, and their estimated cost (./cel.ts)
  for (const rv of checkRules(schema, options)) {
    const l = locateRule(rv, o);
    out.push(
      (rv.severity === 'error' ? error : warningDiagnostic)(
        rv.code,
        `${l.where} (${kind} ${name} ${schemaPath(rv.steps)}): ${rv.message}`,
        { ...l.at, hint: rv.hint },
      ),
    );
  }
}

/** The scale subresource's paths: under .spec/.status, declared, of the right type. */
function checkScale(k: CRDCheck, v: VersionCheck, scale: Obj | undefined): void {
  if (!scale) return;
  const { kind, push } = k;
  const sm = v.o.markers.find((m) => m.name === 'SubresourceScale');
  const at = sm ? loc(sm) : v.o.at;
  const paths: [string, string | undefined, string[]][] = [
    ['specpath', scale.specReplicasPath as string | undefined, ['.spec.']],
    ['statuspath', scale.statusReplicasPath as string | undefined, ['.status.']],
    ['selectorpath', scale.labelSelectorPath as string | undefined, ['.spec.', '.status.']],
  ];
  for (const [arg, path, prefixes] of paths) {
    if (path === undefined) continue;
    const p = simplePathProblem(path);
    const under = prefixes.join(' or ');
    if (p) {
      push(
        CODES.status,
        at,
        `@SubresourceScale ${arg} '${path}' ${p}`,
        `write a path under ${under}, e.g. '${prefixes[0]}${arg === 'selectorpath' ? 'selector' : 'replicas'}'`,
      );
      continue;
    }
    if (!prefixes.some((x) => path.startsWith(x))) {
      push(
        CODES.status,
        at,
        `@SubresourceScale ${arg} '${path}' must be a JSON path under ${under}`,
        `write '${prefixes[0]}${arg === 'selectorpath' ? 'selector' : 'replicas'}'`,
      );
      continue;
    }
    const node = nodeAt(v.schema, path);
    const wanted = arg === 'selectorpath' ? 'string' : 'integer';
    if (node === undefined)
      push(
        CODES.status,
        at,
        `@SubresourceScale ${arg} '${path}' is not a field of ${kind} ${v.name}: the server would prune what the scale subresource writes there`,
        `declare the field (${wanted}) in the Kind's types`,
      );
    else if (node !== 'open' && node.type !== wanted)
      push(
        CODES.status,
        at,
        `@SubresourceScale ${arg} '${path}' must be ${wanted === 'integer' ? 'an integer' : 'a string'} field (found ${node.type ?? 'no type'})`,
        `declare it as ${wanted === 'integer' ? 'int32' : 'string'}`,
      );
  }
}

/** The printer-column types and formats the API server takes (apiextensions validation's printerColumnDatatypes and customResourceColumnDefinitionFormats, in its sorted order). */
const COLUMN_TYPES = ['boolean', 'date', 'integer', 'number', 'string'];
const COLUMN_FORMATS = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];

/** Printer columns: a name, a type and format the server takes, a path kubectl can read, a priority in range. */
function checkPrinterColumns(k: CRDCheck, v: VersionCheck): void {
  const { kind, push } = k;
  const cols = (v.ver.additionalPrinterColumns ?? []) as Obj[];
  const colMarkers = v.o.markers.filter((m) => m.name === 'PrintColumn');
  cols.forEach((col, i) => {
    const at = colMarkers[i] ? loc(colMarkers[i]) : v.o.at;
    if (!String(col.name ?? '').trim())
      push(CODES.columns, at, `@PrintColumn of ${kind} has an empty name`, 'give the column a header');
    const type = String(col.type ?? '');
    if (!COLUMN_TYPES.includes(type))
      push(
        CODES.columns,
        at,
        `@PrintColumn ${JSON.stringify(col.name ?? '')} of ${kind} ${type ? `has type '${type}', which` : 'has no type, which'} the API server refuses (must be one of ${COLUMN_TYPES.join(',')})`,
        "use 'string' for text, 'integer' or 'number' for numbers, 'date' for timestamps, 'boolean'",
      );
    // An empty format is Go's zero value: the server reads it as none.
    const fmt = col.format as string | undefined;
    if (fmt && !COLUMN_FORMATS.includes(fmt))
      push(
        CODES.columns,
        at,
        `@PrintColumn ${JSON.stringify(col.name ?? '')} of ${kind} has format '${fmt}', which the API server refuses (must be one of ${COLUMN_FORMATS.join(',')})`,
        'use one of the listed formats or none',
      );
    // The server takes any path that starts with '.'; what kubectl cannot read, or a field the
    // schema lacks, is worth a warning (the column would show an error or <none>), not a refusal.
    const path = String(col.jsonPath ?? '');
    if (!path.startsWith('.'))
      push(
        CODES.columns,
        at,
        `@PrintColumn jsonPath '${path}' must be a JSON path starting with '.' (for example .status.phase)`,
        "write a path such as '.status.phase'",
      );
    else {
      const parsed = parsePrintColumnPath(path);
      const missing = parsed.ok ? missingField(v.schema, parsed.steps) : undefined;
      if (!parsed.ok)
        k.warn(
          CODES.columns,
          at,
          `@PrintColumn jsonPath '${path}' ${parsed.problem}: the API server takes it but cannot parse it, so kubectl get shows none of ${kind}'s columns from this one on`,
          "write a path such as '.status.phase' or '.status.conditions[?(@.type==\"Ready\")].status'",
        );
      else if (missing)
        k.warn(
          CODES.columns,
          at,
          `@PrintColumn jsonPath '${path}': ${kind} ${v.name} has no field ${missing}, so the column always shows <none>`,
          'name a field of the schema',
        );
    }
    const prio = col.priority as number | undefined;
    if (prio !== undefined && (prio < 0 || prio > 2147483647))
      push(
        CODES.columns,
        at,
        `@PrintColumn priority ${prio} must be between 0 and 2147483647`,
        'use 0 (shown by default) or a small positive number',
      );
  });
}

/** Selectable fields (Kubernetes 1.30+): at most 8, unique, declared scalar fields outside metadata. */
function checkSelectableFields(k: CRDCheck, v: VersionCheck): void {
  const { kind, push } = k;
  const { name, o } = v;
  const sel = (v.ver.selectableFields ?? []) as Obj[];
  const selMarkers = o.markers.filter((m) => m.name === 'SelectableField');
  if (sel.length > 8)
    push(
      CODES.columns,
      selMarkers[8] ? loc(selMarkers[8]) : o.at,
      `${kind} ${name} has ${sel.length} selectable fields; the API server allows 8`,
      'keep at most 8 @SelectableField markers',
    );
  const seenSel = new Set<string>();
  for (const [i, f] of sel.entries()) {
    const at = selMarkers[i] ? loc(selMarkers[i]) : o.at;
    const path = String(f.jsonPath ?? '');
    const p = simplePathProblem(path);
    if (p) {
      push(CODES.columns, at, `@SelectableField jsonPath '${path}' ${p}`, "write a path such as '.spec.color'");
      continue;
    }
    if (seenSel.has(path)) push(CODES.columns, at, `@SelectableField '${path}' is given twice`, 'remove the duplicate');
    seenSel.add(path);
    if (path === '.metadata.name' || path === '.metadata.namespace' || path.startsWith('.metadata.')) {
      push(
        CODES.columns,
        at,
        `@SelectableField '${path}' is under metadata, which the server selects on already`,
        'select on a field of spec or status',
      );
      continue;
    }
    const node = nodeAt(v.schema, path);
    if (node === undefined || node === 'open') {
      push(
        CODES.columns,
        at,
        `@SelectableField '${path}' is not a declared field of ${kind} ${name}`,
        'name a string, integer or boolean field of the schema',
      );
      continue;
    }
    if (!['string', 'integer', 'boolean'].includes(node.type ?? ''))
      push(
        CODES.columns,
        at,
        `@SelectableField '${path}' must be a string, integer or boolean field (found ${node.type ?? 'no type'})`,
        'select on a scalar field',
      );
  }
}

function dedupe(list: Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  return list.filter((d) => {
    const k = `${d.file}:${d.line}:${d.column}:${d.code}:${d.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/**
 * The manifests pipeline's hook: the check's diagnostics for each of `crds` (one list per CRD, in
 * order, so that each CRD's warnings can be kept with it), less those on a line where the
 * analysis already reported an error (a field whose type failed has a broken schema; the
 * analysis said why, once).
 */
export function checkGeneratedCRDs(
  crds: readonly CRDManifest[],
  analysisDiagnostics: readonly Diagnostic[],
  options: CheckCRDOptions = {},
): Diagnostic[][] {
  const errorLines = new Set(
    analysisDiagnostics.filter((d) => d.severity === 'error').map((d) => `${d.file}:${d.line}`),
  );
  return crds.map((crd) => checkCRD(crd, options).filter((d) => !errorLines.has(`${d.file}:${d.line}`)));
}
