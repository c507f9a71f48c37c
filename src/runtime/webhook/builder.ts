/**
 * The webhook builder (controller-runtime's builder.WebhookManagedBy):
 *
 *   webhookManagedBy(mgr).for(CronJob).withDefaulter(d).withValidator(v).complete()
 *
 * registers a mutating webhook on `/mutate-<group>-<version>-<kind>`, a validating one on
 * `/validate-...`, and (with withConversion) the Kind's conversions on `/convert`, all on
 * `mgr.getWebhookServer()`. Mistakes are recorded as the chain is built and reported together by
 * complete(), which throws a BuilderError listing every problem and registers nothing then.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { GroupVersionKind, TypeRef } from '../contracts.js';
import type { Manager } from '../manager/types.js';
import { resolveStatic, splitAPIVersion } from '../client/types.js';
import { BuilderError } from '../controller/builder.js';
import { withCustomDefaulter, withCustomValidator, type CustomDefaulter, type CustomValidator } from './admission.js';
import type { AnyConversion, Conversion } from './conversion.js';

function typeLabel(t: unknown): string {
  if (typeof t === 'function') return t.name || '(anonymous class)';
  if (t && typeof t === 'object' && 'kind' in t) return String((t as { kind: unknown }).kind);
  return String(t);
}

/** `/mutate-<group with . -> ->-<version>-<lowercase kind>` (core group: `/mutate--v1-pod`). */
export function defaultingPath(gvk: GroupVersionKind): string {
  return `/mutate-${gvk.group.replace(/\./g, '-')}-${gvk.version}-${gvk.kind.toLowerCase()}`;
}

/** `/validate-<group with . -> ->-<version>-<lowercase kind>`. */
export function validatingPath(gvk: GroupVersionKind): string {
  return `/validate-${gvk.group.replace(/\./g, '-')}-${gvk.version}-${gvk.kind.toLowerCase()}`;
}

/** The GVK of a class (`static gvk`, or a client-node model) or a `{ apiVersion, kind }` descriptor; throws when unknown. */
function gvkOf(type: TypeRef): GroupVersionKind {
  const r = resolveStatic(type);
  const { group, version } = splitAPIVersion(r.apiVersion);
  return { group, version, kind: r.kind };
}

interface PendingConversion {
  label: string;
  gvk: GroupVersionKind;
  conversion: AnyConversion;
}

/** See the module comment. `T` is the `for()` type. */
export class WebhookBuilder<T = KubernetesObject> {
  private forGVK?: GroupVersionKind;
  private forCalls = 0;
  private defaulter?: CustomDefaulter<T>;
  private validator?: CustomValidator<T>;
  private defaulterPath?: string;
  private validatorPath?: string;
  private readonly conversions: PendingConversion[] = [];
  private readonly problems: string[] = [];
  private done = false;

  constructor(private readonly mgr: Manager) {
    if (!mgr || typeof (mgr as Partial<Manager>).getWebhookServer !== 'function') {
      this.problems.push('webhookManagedBy(mgr) needs a manager with getWebhookServer()');
    }
  }

  private resolve(type: unknown, where: string): GroupVersionKind | undefined {
    try {
      return gvkOf(type as TypeRef);
    } catch (e) {
      this.problems.push(`${where}: ${(e as Error).message.replace(/^kubeforge\/runtime: /, '')}`);
      return undefined;
    }
  }

  /** The type the webhooks are for (and, with conversions, the hub version). Call once. */
  for<U extends KubernetesObject>(type: TypeRef<U>): WebhookBuilder<U> {
    this.forCalls++;
    if (this.forCalls > 1) this.problems.push(`for() may only be called once (called again with ${typeLabel(type)})`);
    else this.forGVK = this.resolve(type, 'for()');
    return this as unknown as WebhookBuilder<U>;
  }

  /** Registers a mutating (defaulting) webhook calling `d.default(obj, ctx)`. */
  withDefaulter(d: CustomDefaulter<T>): this {
    if (this.defaulter) this.problems.push('withDefaulter() may only be called once');
    else if (!d || typeof d.default !== 'function')
      this.problems.push('withDefaulter(): the defaulter has no default(obj, ctx) method');
    else this.defaulter = d;
    return this;
  }

  /** Registers a validating webhook calling validateCreate / validateUpdate / validateDelete. */
  withValidator(v: CustomValidator<T>): this {
    const missing = ['validateCreate', 'validateUpdate', 'validateDelete'].filter(
      (m) => typeof (v as unknown as Record<string, unknown>)?.[m] !== 'function',
    );
    if (this.validator) this.problems.push('withValidator() may only be called once');
    else if (missing.length) this.problems.push(`withValidator(): the validator lacks ${missing.join(', ')}`);
    else this.validator = v;
    return this;
  }

  private checkPath(p: unknown, where: string): string | undefined {
    if (typeof p !== 'string' || !p.startsWith('/')) {
      this.problems.push(`${where}: path ${JSON.stringify(p)} must start with '/'`);
      return undefined;
    }
    if (/[\s?#]/.test(p)) {
      this.problems.push(`${where}: path ${JSON.stringify(p)} may not contain spaces, '?' or '#'`);
      return undefined;
    }
    return p;
  }

  /** Serves the defaulter on this path instead of `/mutate-...` (Kubebuilder's --defaulting-path). */
  withDefaulterCustomPath(path: string): this {
    this.defaulterPath = this.checkPath(path, 'withDefaulterCustomPath()') ?? this.defaulterPath;
    return this;
  }

  /** Serves the validator on this path instead of `/validate-...` (Kubebuilder's --validation-path). */
  withValidatorCustomPath(path: string): this {
    this.validatorPath = this.checkPath(path, 'withValidatorCustomPath()') ?? this.validatorPath;
    return this;
  }

  /**
   * Converts `spoke` objects to and from the `for()` type (the hub) through `conversion`,
   * served on `/convert`. The spoke must be another version of the same group and kind.
   */
  withConversion<S extends KubernetesObject>(spoke: TypeRef<S>, conversion: Conversion<S, T & KubernetesObject>): this {
    const label = `withConversion(${typeLabel(spoke)})`;
    const gvk = this.resolve(spoke, label);
    if (!conversion || typeof conversion.convertTo !== 'function' || typeof conversion.convertFrom !== 'function') {
      this.problems.push(`${label}: the conversion needs convertTo(spoke) and convertFrom(hub)`);
      return this;
    }
    if (gvk) this.conversions.push({ label, gvk, conversion });
    return this;
  }

  /**
   * Registers everything; throws (a BuilderError naming every misuse) on: no for(), nothing to
   * register, duplicate path, a path not starting with '/', a spoke of another group/kind or the
   * hub's own version, a server already started. Nothing is registered when it throws.
   */
  complete(): void {
    const problems = [...this.problems];
    if (this.done) problems.push('complete() was already called on this builder');
    this.done = true;
    const hub = this.forGVK;
    if (this.forCalls === 0) problems.push('must provide a type with for()');
    if (!this.defaulter && !this.validator && this.conversions.length === 0) {
      problems.push('nothing to register: add withDefaulter(), withValidator() or withConversion()');
    }
    if (this.defaulterPath && !this.defaulter) problems.push('withDefaulterCustomPath() without withDefaulter()');
    if (this.validatorPath && !this.validator) problems.push('withValidatorCustomPath() without withValidator()');
    const server = problems.some((p) => p.startsWith('webhookManagedBy(mgr)'))
      ? undefined
      : this.mgr.getWebhookServer();
    const paths: [string, 'defaulter' | 'validator'][] = [];
    if (hub) {
      if (this.defaulter) paths.push([this.defaulterPath ?? defaultingPath(hub), 'defaulter']);
      if (this.validator) paths.push([this.validatorPath ?? validatingPath(hub), 'validator']);
      if (paths.length === 2 && paths[0][0] === paths[1][0])
        problems.push(`the defaulter and the validator have the same path ${paths[0][0]}`);
      if (server) {
        const closed = server.registrationError();
        if (closed && paths.length) problems.push(closed);
        for (const [p, what] of paths)
          if (server.isRegistered(p))
            problems.push(
              `a webhook is already registered for ${p} (the ${what} of ${hub.kind}); give one a custom path`,
            );
      }
      const seen = new Set<string>();
      for (const c of this.conversions) {
        const s = c.gvk;
        if (s.group !== hub.group || s.kind !== hub.kind) {
          problems.push(
            `${c.label}: the spoke ${s.kind}${s.group ? `.${s.group}` : ''} ${s.version} is not a version of the hub ${hub.kind}${hub.group ? `.${hub.group}` : ''}`,
          );
          continue;
        }
        if (seen.has(s.version)) {
          problems.push(`${c.label}: version ${s.version} is given twice`);
          continue;
        }
        seen.add(s.version);
        const p = server?.conversionProblem(hub, s.version);
        if (p) problems.push(`${c.label}: ${p}`);
      }
    }
    const name = hub ? `${hub.kind}${hub.group ? `.${hub.group}` : ''}` : '';
    if (problems.length) throw new BuilderError(name, problems, 'webhook');
    // Both are set when nothing was reported: their absence is a problem above.
    if (!server || !hub) throw new BuilderError(name, ['must provide a type with for()'], 'webhook');

    const { defaulter, validator } = this;
    for (const [p, what] of paths) {
      const handler =
        what === 'defaulter'
          ? defaulter && withCustomDefaulter(defaulter)
          : validator && withCustomValidator(validator);
      if (handler) server.register(p, handler);
    }
    for (const c of this.conversions) server.registerConversion(hub, c.gvk.version, c.conversion);
  }
}

/**
 * Starts a builder for the webhooks of one Kind on `mgr.getWebhookServer()`
 * (controller-runtime's builder.WebhookManagedBy). Errors are reported by complete().
 */
export function webhookManagedBy(mgr: Manager): WebhookBuilder {
  return new WebhookBuilder(mgr);
}
