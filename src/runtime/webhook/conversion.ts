/**
 * The CRD conversion webhook (controller-runtime's pkg/webhook/conversion): answers
 * `apiextensions.k8s.io/v1` (and `v1beta1`) ConversionReviews on `/convert`, in the version asked,
 * for every Kind registered with the
 * server, converting each object through its Kind's hub (storage) version, the hub-and-spoke
 * model of Kubebuilder.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { GroupVersionKind } from '../contracts.js';
import {
  describeThrown,
  isCrash,
  WebhookHttpError,
  type WebhookHandler,
  type WebhookHandlerContext,
} from './handler.js';
import { isJSONObject as isObject } from '../client/types.js';

/** How one spoke version converts to and from the hub (storage) version. */
export interface Conversion<Spoke extends KubernetesObject, Hub extends KubernetesObject> {
  /**
   * Spoke -> hub. Gets a copy of the object (plain JSON, metadata included); returns the hub
   * object. apiVersion and kind of the result are set by the webhook. Its metadata is kept as
   * returned (labels and annotations are how a field the other version lacks survives a round
   * trip, e.g. `metadata.annotations['example.com/conversion-data']`); a result without metadata
   * gets the source's. Name, namespace and uid must not change (the API server refuses that):
   * a change fails the review. A throw fails the whole ConversionReview.
   */
  convertTo(spoke: Spoke): Hub | Promise<Hub>;
  /** Hub -> spoke; same rules as convertTo. */
  convertFrom(hub: Hub): Spoke | Promise<Spoke>;
}

/** A conversion of any spoke/hub pair, as the registry stores them. */
// biome-ignore lint/suspicious/noExplicitAny: public API (api-report): a registry holds conversions of any Spoke and Hub pair
export type AnyConversion = Conversion<any, any>;

interface KindEntry {
  hubVersion: string;
  spokes: Map<string, AnyConversion>;
}

const keyOf = (group: string, kind: string) => `${kind}.${group}`;

/**
 * Hubs and spokes by group + kind. Owned by a WebhookServer (one per server, no process-wide
 * table). `add` throws on the mistakes {@link ConversionRegistry.problem} names.
 */
export class ConversionRegistry {
  private readonly kinds = new Map<string, KindEntry>();

  /** Why adding this spoke would be wrong, or undefined. */
  problem(hub: GroupVersionKind, spokeVersion: string): string | undefined {
    if (!hub || typeof hub.kind !== 'string' || !hub.kind || typeof hub.version !== 'string' || !hub.version)
      return 'the hub needs a group, version and kind';
    if (typeof spokeVersion !== 'string' || !spokeVersion)
      return `a spoke of ${keyOf(hub.group, hub.kind)} needs a version`;
    if (spokeVersion === hub.version)
      return `${spokeVersion} is the hub version of ${keyOf(hub.group, hub.kind)}; a spoke must be another version`;
    const e = this.kinds.get(keyOf(hub.group, hub.kind));
    if (e && e.hubVersion !== hub.version)
      return `${keyOf(hub.group, hub.kind)} already has hub version ${e.hubVersion}; it cannot also have hub ${hub.version}`;
    if (e?.spokes.has(spokeVersion))
      return `the conversion of ${keyOf(hub.group, hub.kind)} ${spokeVersion} is already registered`;
    return undefined;
  }

  /** Registers a spoke; throws when {@link problem} names one. */
  add(hub: GroupVersionKind, spokeVersion: string, conversion: AnyConversion): void {
    const p = this.problem(hub, spokeVersion);
    if (p) throw new Error(p);
    if (!conversion || typeof conversion.convertTo !== 'function' || typeof conversion.convertFrom !== 'function') {
      throw new Error(
        `the conversion of ${keyOf(hub.group, hub.kind)} ${spokeVersion} needs convertTo() and convertFrom()`,
      );
    }
    const k = keyOf(hub.group, hub.kind);
    let e = this.kinds.get(k);
    if (!e) {
      e = { hubVersion: hub.version, spokes: new Map() };
      this.kinds.set(k, e);
    }
    e.spokes.set(spokeVersion, conversion);
  }

  /** The hub version and spokes of a group/kind, or undefined. */
  get(group: string, kind: string): { hubVersion: string; spokes: ReadonlyMap<string, AnyConversion> } | undefined {
    return this.kinds.get(keyOf(group, kind));
  }
}

function splitAPIVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.indexOf('/');
  return i < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

/** A failure of one object: fails the whole review with a message naming it. */
class ObjectConversionError extends Error {}

/** The ConversionReview versions served; both have the same fields. */
export const CONVERSION_REVIEW_VERSIONS: ReadonlySet<string> = new Set([
  'apiextensions.k8s.io/v1',
  'apiextensions.k8s.io/v1beta1',
]);

/** The metadata fields the API server requires a conversion to keep (its validateConvertedObject). */
const FIXED_METADATA = ['name', 'namespace', 'uid'] as const;

/**
 * Handles `/convert`. Every object goes spoke -> hub -> spoke (hub and same-version objects skip
 * the steps they do not need); apiVersion is set to the desired one and kind kept from the
 * source; metadata is what the conversions returned (see {@link Conversion}), as
 * controller-runtime returns what ConvertTo/ConvertFrom produced. On any failure (unknown kind or
 * version, another group, a throw in a conversion, a result that is not an object, a changed
 * name, namespace or uid, a label or annotation that is not a string) the review answers
 * `result: { status: 'Failure', message }` naming the object, and no object is converted. Throws
 * in user code that are not Errors (or are engine errors such as TypeError) are also counted as
 * panics. A body that is not an `apiextensions.k8s.io/v1` or `v1beta1` ConversionReview with a
 * request answers HTTP 400; the answer is a ConversionReview of the version asked.
 */
export class ConversionWebhook implements WebhookHandler {
  constructor(private readonly registry: ConversionRegistry) {}

  async handle(body: unknown, ctx: WebhookHandlerContext): Promise<unknown> {
    if (
      !isObject(body) ||
      !CONVERSION_REVIEW_VERSIONS.has(body.apiVersion as string) ||
      body.kind !== 'ConversionReview'
    ) {
      const got = isObject(body)
        ? `${String(body.apiVersion ?? '<no apiVersion>')} ${String(body.kind ?? '<no kind>')}`
        : typeof body;
      throw new WebhookHttpError(400, `expected an apiextensions.k8s.io/v1 or v1beta1 ConversionReview, got ${got}`);
    }
    const apiVersion = body.apiVersion as string;
    const req = body.request;
    if (!isObject(req)) throw new WebhookHttpError(400, 'the ConversionReview has no request');
    if (typeof req.uid !== 'string' || !req.uid)
      throw new WebhookHttpError(400, 'the ConversionReview request has no uid');
    if (typeof req.desiredAPIVersion !== 'string' || !req.desiredAPIVersion)
      throw new WebhookHttpError(400, 'the ConversionReview request has no desiredAPIVersion');
    if (!Array.isArray(req.objects))
      throw new WebhookHttpError(400, 'the ConversionReview request has no objects list');
    const uid = req.uid;
    const desired = req.desiredAPIVersion;
    const review = (response: Record<string, unknown>) => ({
      apiVersion,
      kind: 'ConversionReview',
      response: { uid, ...response },
    });
    try {
      const converted: unknown[] = [];
      for (let i = 0; i < req.objects.length; i++)
        converted.push(await this.convertOne(req.objects[i], i, desired, ctx));
      return review({ convertedObjects: converted, result: { status: 'Success' } });
    } catch (e) {
      const message = e instanceof ObjectConversionError ? e.message : `conversion failed: ${describeThrown(e)}`;
      ctx.logger.error({ uid, err: message }, 'conversion failed');
      return review({ convertedObjects: [], result: { status: 'Failure', message } });
    }
  }

  private async convertOne(raw: unknown, index: number, desired: string, ctx: WebhookHandlerContext): Promise<unknown> {
    if (!isObject(raw)) throw new ObjectConversionError(`object #${index} is not a JSON object`);
    const apiVersion = typeof raw.apiVersion === 'string' ? raw.apiVersion : '';
    const kind = typeof raw.kind === 'string' ? raw.kind : '';
    const meta = isObject(raw.metadata) ? raw.metadata : {};
    const ns = typeof meta.namespace === 'string' && meta.namespace ? `${meta.namespace}/` : '';
    const name = `${kind || 'object'} "${ns}${typeof meta.name === 'string' ? meta.name : `#${index}`}"`;
    const fail = (why: string): never => {
      throw new ObjectConversionError(
        `cannot convert ${name} from ${apiVersion || '<no apiVersion>'} to ${desired}: ${why}`,
      );
    };
    if (!apiVersion || !kind) fail('the object has no apiVersion or kind');
    const src = splitAPIVersion(apiVersion);
    const dst = splitAPIVersion(desired);
    if (src.group !== dst.group) fail(`${apiVersion} and ${desired} are not the same API group`);
    if (src.version === dst.version) return raw;
    const entry = this.registry.get(src.group, kind);
    if (!entry) return fail(`no conversion is registered for ${kind}${src.group ? `.${src.group}` : ''}`);
    const { hubVersion, spokes } = entry;
    for (const v of [src.version, dst.version]) {
      if (v !== hubVersion && !spokes.has(v))
        fail(
          `version ${v} is neither the hub (${hubVersion}) nor a registered spoke (${[...spokes.keys()].sort().join(', ')})`,
        );
    }
    const withMeta = (o: unknown, av: string, step: string, from: Record<string, unknown>): Record<string, unknown> => {
      if (!isObject(o)) fail(`${step} returned ${o === null ? 'null' : typeof o}, not an object`);
      const out = o as Record<string, unknown>;
      const metadata = out.metadata === undefined ? structuredCopy(from.metadata ?? {}) : out.metadata;
      if (!isObject(metadata)) fail(`${step} returned metadata that is not an object`);
      const m = metadata as Record<string, unknown>;
      for (const f of FIXED_METADATA) {
        if ((m[f] ?? '') !== (meta[f] ?? ''))
          fail(
            `${step} changed metadata.${f} from ${JSON.stringify(meta[f] ?? '')} to ${JSON.stringify(m[f] ?? '')}; the API server refuses a conversion that changes the name, namespace or uid`,
          );
      }
      for (const f of ['labels', 'annotations'] as const) {
        const map = m[f];
        if (map === undefined || map === null) continue;
        if (!isObject(map)) fail(`${step} returned metadata.${f} that is not a map of strings`);
        for (const [k, v] of Object.entries(map as Record<string, unknown>)) {
          if (typeof v !== 'string')
            fail(
              `${step} returned metadata.${f}[${JSON.stringify(k)}] = ${JSON.stringify(v) ?? typeof v}, not a string`,
            );
        }
      }
      return { ...out, apiVersion: av, kind, metadata: m };
    };
    const call = async (step: string, fn: () => unknown): Promise<unknown> => {
      try {
        return await fn();
      } catch (e) {
        if (isCrash(e)) ctx.recordPanic?.(e);
        return fail(`${step} failed: ${describeThrown(e)}`);
      }
    };
    const hubAPIVersion = src.group ? `${src.group}/${hubVersion}` : hubVersion;
    let hub: Record<string, unknown>;
    if (src.version === hubVersion) hub = raw;
    else {
      const conv = spokes.get(src.version) ?? fail(`no conversion is registered for ${src.version}`);
      hub = withMeta(
        await call(`convertTo (${src.version} -> ${hubVersion})`, () => conv.convertTo(structuredCopy(raw))),
        hubAPIVersion,
        `convertTo (${src.version} -> ${hubVersion})`,
        raw,
      );
    }
    if (dst.version === hubVersion) return { ...hub, apiVersion: desired, kind };
    const conv = spokes.get(dst.version) ?? fail(`no conversion is registered for ${dst.version}`);
    return withMeta(
      await call(`convertFrom (${hubVersion} -> ${dst.version})`, () => conv.convertFrom(structuredCopy(hub))),
      desired,
      `convertFrom (${hubVersion} -> ${dst.version})`,
      hub,
    );
  }
}

/** A deep copy of plain JSON. */
function structuredCopy<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}
