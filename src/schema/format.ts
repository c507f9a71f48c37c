/**
 * Intermediate form -> structural OpenAPI v3 (Kubernetes JSONSchemaProps). No `$ref`, no
 * `definitions`: named types are inlined, their markers applied where they are used.
 */
import { error, type Reporter } from '../diagnostics/index.js';
import type { MarkerValue } from '../collector/collector.js';
import { applyMarkers, type Fold } from './apply.js';
import { flattenEmbedded, flattenSchemaInto } from './flatten.js';
import type { IRProperty, IRType } from './ir.js';
import { irResolve } from './ir.js';
import type { JSONSchemaProps } from './jsonschema.js';
import { embeddedObjectMetaSchema, intOrStringSchema, quantitySchema } from './k8s/index.js';
import { schemaOriginOf, setSchemaOrigin } from './origin.js';

export interface FormatHost {
  reporter: Reporter;
  /** controller-gen's crd:generateEmbeddedObjectMeta: an ObjectMeta below a Kind's top keeps name, namespace, labels, annotations and finalizers. */
  embeddedObjectMeta?: boolean;
  /** Full schema of a @kubernetes/client-node model type, or undefined when unknown. */
  k8sSchema(name: string): JSONSchemaProps | undefined;
  /** Why k8sSchema may not know a name (for the hint). */
  k8sHint?: string;
}

interface Ctx {
  /** The field being formatted, for messages. */
  where: string;
  /** any / unknown are accepted (the field has @PreserveUnknownFields or @Schemaless). */
  allowUnknown: boolean;
}

const API_VERSION_DESCRIPTION =
  'APIVersion defines the versioned schema of this representation of an object.\nServers should convert recognized schemas to the latest internal value, and\nmay reject unrecognized values.\nMore info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources';
const KIND_DESCRIPTION =
  'Kind is a string value representing the REST resource this object represents.\nServers may infer this from the endpoint the client submits requests to.\nCannot be updated.\nIn CamelCase.\nMore info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';

const ROOT_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

export class SchemaFormatter {
  constructor(private readonly host: FormatHost) {}

  /** Reports a marker whose precondition fails (KF2009), at the marker. */
  private report(place: string) {
    return (marker: MarkerValue, message: string, hint?: string) => {
      this.host.reporter.report(
        error('KF2009', `@${marker.name} on ${place}: ${message}`, {
          file: marker.file,
          line: marker.line,
          column: marker.column,
          hint,
        }),
      );
    };
  }

  /** Warns about a marker that applies but will not work as meant (KF2015), at the marker. */
  private warn(place: string) {
    return (marker: MarkerValue, message: string, hint?: string) => {
      this.host.reporter.report({
        code: 'KF2015',
        severity: 'warning',
        message: `@${marker.name} on ${place}: ${message}`,
        hint,
        file: marker.file,
        line: marker.line,
        column: marker.column,
      });
    };
  }

  format(t: IRType, ctx: Ctx): JSONSchemaProps {
    switch (t.kind) {
      case 'primitive':
        return t.format ? { type: t.type, format: t.format } : { type: t.type };
      case 'enum':
        return { type: t.type, enum: [...t.values] };
      case 'array':
        return { type: 'array', items: this.format(t.items, ctx) };
      case 'map':
        return { type: 'object', additionalProperties: this.format(t.values, ctx) };
      case 'object': {
        const schema = this.formatObject(t.properties);
        if (t.embedded?.length)
          flattenEmbedded(
            schema,
            t.embedded.map((p) => this.format(p, ctx)),
          );
        return schema;
      }
      case 'builtin':
        switch (t.name) {
          case 'Quantity':
            return quantitySchema();
          case 'IntOrString':
            return intOrStringSchema();
          case 'DateTime':
            return { type: 'string', format: 'date-time' };
          case 'Duration':
            return { type: 'string' };
          case 'Bytes':
            return { type: 'string', format: 'byte' };
          case 'ObjectMeta':
            return embeddedObjectMetaSchema(this.host.embeddedObjectMeta === true);
        }
        break;
      case 'k8s': {
        const schema = this.host.k8sSchema(t.name);
        if (!schema) {
          this.host.reporter.report(
            error('KF3009', `${ctx.where} has type ${t.name} from @kubernetes/client-node, which has no known schema`, {
              ...t.at,
              hint:
                this.host.k8sHint ??
                'use a @kubernetes/client-node model class (V1PodTemplateSpec, V1Condition, ...) or declare the type yourself',
            }),
          );
          return {};
        }
        return schema; // a new top level, ours to change; its subtrees may be shared (frozen)
      }
      case 'unknown':
        if (!ctx.allowUnknown) {
          this.host.reporter.report(
            error('KF3001', `${ctx.where} has type '${t.what}', which has no schema`, {
              ...t.at,
              hint: 'give it a concrete type, or keep it free-form with @PreserveUnknownFields() (or @Schemaless()) on the field',
            }),
          );
          return {};
        }
        return t.what === 'object'
          ? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }
          : { 'x-kubernetes-preserve-unknown-fields': true };
      case 'named': {
        const allow =
          ctx.allowUnknown ||
          t.markers.some(
            (m) =>
              m.name === 'PreserveUnknownFields' || m.name === 'Items.PreserveUnknownFields' || m.name === 'Schemaless',
          );
        // An object that embeds marked types: its own markers first, then folded with theirs.
        const embedded = t.target.kind === 'object' ? t.target.embedded : undefined;
        const schema = embedded?.length
          ? this.formatObject((t.target as { properties: IRProperty[] }).properties)
          : this.format(t.target, { ...ctx, allowUnknown: allow });
        applyMarkers(schema, t.markers, this.report(`type ${t.name}`), foldOf(t.target), this.warn(`type ${t.name}`));
        if (embedded?.length)
          flattenEmbedded(
            schema,
            embedded.map((p) => this.format(p, { ...ctx, allowUnknown: allow })),
          );
        if (t.description) schema.description = t.description;
        return setSchemaOrigin(schema, { where: `type ${t.name}`, markers: t.markers, type: schemaOriginOf(schema) });
      }
      case 'nullable': {
        const schema = this.format(t.target, ctx);
        schema.nullable = true;
        return schema;
      }
      case 'error':
        return {};
    }
    return {};
  }

  /** Whether a property is in `required`. */
  isRequired(p: IRProperty): boolean {
    const req = p.markers.find((m) => m.name === 'Required');
    const opt = p.markers.find((m) => m.name === 'Optional');
    if (req && opt) {
      this.host.reporter.report(
        error('KF2013', `field "${p.name}" of ${p.owner} has both @Required() and @Optional()`, {
          file: opt.file,
          line: opt.line,
          column: opt.column,
          hint: 'keep one of them',
        }),
      );
    }
    if (req) return true;
    if (opt) return false;
    if (p.optional) return false;
    return !p.optionalByDefault;
  }

  formatProperty(p: IRProperty): JSONSchemaProps {
    if (!p.shadowed?.length) return this.formatField(p);
    // The same field in several intersection members: folded as controller-gen folds the field
    // of embedded structs, first member first (both values of a bound kept, in allOf).
    const [first, ...later] = [...p.shadowed, { ...p, shadowed: undefined }];
    const schema = this.formatField(first);
    const origin = schemaOriginOf(schema);
    const folded: JSONSchemaProps = { ...schema };
    for (const q of later) flattenSchemaInto(folded, this.formatField(q));
    return origin ? setSchemaOrigin(folded, origin) : folded;
  }

  /** The schema of one field's declaration: its type's, with its markers applied. */
  private formatField(p: IRProperty): JSONSchemaProps {
    const where = `field "${p.name}" of ${p.owner}`;
    const schemaless = p.markers.some((m) => m.name === 'Schemaless');
    const allowUnknown =
      schemaless ||
      p.markers.some((m) => m.name === 'PreserveUnknownFields' || m.name === 'Items.PreserveUnknownFields');
    let base: JSONSchemaProps;
    if (schemaless) base = {};
    else {
      const r = irResolve(p.type);
      base =
        allowUnknown && r.kind === 'unknown' && p.type.kind === 'unknown'
          ? r.what === 'object'
            ? { type: 'object' }
            : {}
          : this.format(p.type, { where, allowUnknown });
    }
    // Markers change only the top level and `items` (applyMarkers copies what it changes).
    const schema: JSONSchemaProps = { ...base };
    applyMarkers(schema, p.markers, this.report(where), schemaless ? {} : foldOf(p.type), this.warn(where));
    if (p.description) schema.description = p.description;
    // An empty schema from @Schemaless() alone is refused by the CRD check (src/manifests/crdcheck).
    return setSchemaOrigin(schema, { where, at: p.at, markers: p.markers, type: schemaOriginOf(base) });
  }

  formatObject(props: readonly IRProperty[]): JSONSchemaProps {
    const out: JSONSchemaProps = { type: 'object' };
    const required: string[] = [];
    const properties: Record<string, JSONSchemaProps> = {};
    for (const p of props) {
      properties[p.name] = this.formatProperty(p);
      if ([...(p.shadowed ?? []), p].some((q) => this.isRequired(q))) required.push(p.name);
    }
    if (props.length) out.properties = sortedRecord(properties);
    if (required.length) out.required = required.sort(byBytes);
    keepImmutableSet(out, props, required);
    return out;
  }

  /**
   * KF3014: `apiVersion` and `kind` of a Kind are strings on the wire, whatever the class says; a
   * class declaring another type would hand the operator's code values of a type they never have.
   */
  private checkTypeMetaField(p: IRProperty, kind: string | undefined): void {
    const t = irResolve(p.type);
    if (
      t.kind === 'error' ||
      (t.kind === 'primitive' && t.type === 'string') ||
      (t.kind === 'enum' && t.type === 'string')
    )
      return;
    const found =
      t.kind === 'primitive' || t.kind === 'enum'
        ? `${t.type}${t.kind === 'enum' ? ' literals' : ''}`
        : t.kind === 'named'
          ? t.name
          : t.kind;
    this.host.reporter.report(
      error(
        'KF3014',
        `field ${p.name} of Kind ${kind ?? p.owner} is declared as ${found}, but the API server sends and takes it as a string`,
        {
          ...p.at,
          hint: `declare it ${p.name}?: string (or leave it out: the CRD describes it in any case)`,
        },
      ),
    );
  }

  /**
   * The openAPIV3Schema of a Kind: apiVersion and kind as Kubernetes describes them, metadata as
   * `{type: object}`, the class's other fields, its description and type-level markers.
   */
  formatKind(root: IRType): JSONSchemaProps {
    const named = root.kind === 'named' ? root : undefined;
    const obj = irResolve(root);
    const props = obj.kind === 'object' ? obj.properties : [];
    const properties: Record<string, JSONSchemaProps> = {
      apiVersion: { description: API_VERSION_DESCRIPTION, type: 'string' },
      kind: { description: KIND_DESCRIPTION, type: 'string' },
      metadata: { type: 'object' },
    };
    const required: string[] = [];
    for (const p of props) {
      if (p.name === 'apiVersion' || p.name === 'kind') this.checkTypeMetaField(p, named?.name);
      if (ROOT_FIELDS.has(p.name)) {
        // Their schemas are Kubernetes' own; only an explicit @Required() makes one required, as
        // controller-gen's +kubebuilder:validation:Required does (cert-manager's Challenge and Order).
        if (p.markers.some((m) => m.name === 'Required')) required.push(p.name);
        continue;
      }
      properties[p.name] = this.formatProperty(p);
      if ([...(p.shadowed ?? []), p].some((q) => this.isRequired(q))) required.push(p.name);
    }
    const schema: JSONSchemaProps = { type: 'object', properties: sortedRecord(properties) };
    if (required.length) schema.required = required.sort(byBytes);
    keepImmutableSet(schema, props, required);
    if (named) {
      applyMarkers(
        schema,
        named.markers,
        this.report(`Kind ${named.name}`),
        undefined,
        this.warn(`Kind ${named.name}`),
      );
      if (named.description) schema.description = named.description;
    }
    if (obj.kind === 'object' && obj.embedded?.length)
      flattenEmbedded(
        schema,
        obj.embedded.map((p) => this.format(p, { where: `Kind ${named?.name ?? ''}`, allowUnknown: false })),
        true,
      );
    return setSchemaOrigin(schema, { where: named ? `Kind ${named.name}` : 'the Kind', markers: named?.markers ?? [] });
  }
}

/**
 * An `@Immutable()` field's own rule does not run when the field is removed: for each optional
 * one, a rule on the object keeps it set once it is (controller-gen's, before the object's
 * type-level rules).
 */
function keepImmutableSet(schema: JSONSchemaProps, props: readonly IRProperty[], required: readonly string[]): void {
  const rules = props
    .filter((p) => !required.includes(p.name) && p.markers.some((m) => m.name === 'Immutable'))
    .map((p) => ({
      message: `field ${p.name} is immutable once set`,
      rule: `!has(oldSelf.${p.name}) || has(self.${p.name})`,
    }));
  if (rules.length) schema['x-kubernetes-validations'] = [...(schema['x-kubernetes-validations'] ?? []), ...rules];
}

/**
 * Whether controller-gen would see a type as a reference to a named type (a `$ref`, resolved
 * when it flattens the schema): markers on a field or type that uses it are folded into its
 * schema rather than written over it.
 */
function isReference(t: IRType): boolean {
  if (t.kind === 'nullable') return isReference(t.target);
  return t.kind === 'named' || t.kind === 'k8s' || (t.kind === 'builtin' && t.name !== 'Bytes');
}

/** Where markers on a use of `t` are folded (see {@link Fold}): at the top, and at the items of an array. */
function foldOf(t: IRType): Fold {
  let a = t;
  while (a.kind === 'named' || a.kind === 'nullable') a = a.target;
  return { top: isReference(t), items: a.kind === 'array' && isReference(a.items) };
}

/**
 * Go's string order (byte order of UTF-8, which is code point order): controller-gen sorts each
 * object's `required` so (pkg/crd/schema.go, `slices.Sort(props.Required)`), whatever the order
 * the fields are declared in.
 */
function byBytes(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < x.length && i < y.length; i++) {
    const d = (x[i].codePointAt(0) ?? 0) - (y[i].codePointAt(0) ?? 0);
    if (d) return d;
  }
  return x.length - y.length;
}

function sortedRecord<T>(r: Record<string, T>): Record<string, T> {
  return Object.fromEntries(
    Object.keys(r)
      .sort()
      .map((k) => [k, r[k]]),
  );
}
