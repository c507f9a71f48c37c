/**
 * Admission webhooks on the fake API server, as kube-apiserver's MutatingAdmissionWebhook and
 * ValidatingAdmissionWebhook plugins run them (k8s.io/apiserver's admission/plugin/webhook): the
 * MutatingWebhookConfigurations and ValidatingWebhookConfigurations stored in the fake are read
 * on every write (so one created through the API applies to the next request), and each webhook
 * whose rules, namespaceSelector and objectSelector match is sent an AdmissionReview over HTTPS,
 * trusting its caBundle. Mutating webhooks run first, one after the other (configurations in name
 * order), their JSON patches applied; validating ones after the object was validated, all at
 * once. Refusals and failures are worded as the server words them (./webhooks.ts).
 *
 * The store is synchronous and a webhook is not, so a write is run in passes, each a dry run up
 * to the point where the server would call admission (./store.ts `AdmissionHooks`): the first
 * finds the object mutating webhooks see, the second (with their patches) the one validating
 * webhooks see, and the last writes with both. When the stored object changed in between, the
 * write starts again, as the server retries an update that met a newer revision.
 */
import { equalJSON } from '../../apiserver/structural.js';
import { normalize } from './pipeline.js';
import type { Resource } from './resources.js';
import type { Store } from './store.js';
import type { WriteContext } from './context.js';
import { type Obj, clone, isObj } from '../../apiserver/json.js';
import {
  callWebhook,
  matchingWebhooks,
  webhooksOf,
  type AdmissionCall,
  type Operation,
  type WebhookSpec,
} from './webhooks.js';

const GROUP = 'admissionregistration.k8s.io';
/** Kinds whose writes no webhook sees (rules.IsExemptAdmissionConfigurationResource). */
const EXEMPT = new Set([
  'ValidatingWebhookConfiguration',
  'MutatingWebhookConfiguration',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
  'MutatingAdmissionPolicy',
  'MutatingAdmissionPolicyBinding',
]);
/** Passes are started again at most this often when the stored object keeps changing under them. */
const MAX_ATTEMPTS = 5;

/** What the request says besides its body: where it goes and its options. */
export interface AdmissionRequestInfo {
  r: Resource;
  sub?: string;
  namespace?: string;
  /** The name on the URL ('' for a create, which takes the body's). */
  name: string;
  /** fieldManager and the like, for the review's options. */
  fieldManager?: string;
  /** The DeleteOptions of a delete. */
  deleteOptions?: Obj;
}

/** The object an admission point saw (o undefined: a delete). */
interface Seen {
  o: Obj | undefined;
  old: Obj | undefined;
}

class Reached extends Error {
  constructor(readonly seen: Seen) {
    super('admission point reached');
  }
}

/** The stored object changed between passes: start again. */
class Moved extends Error {
  constructor() {
    super('the object changed during admission');
  }
}

export class WebhookAdmission {
  constructor(
    private readonly store: Store,
    private readonly resourceFor: (apiVersion: string, kind: string) => Resource | undefined,
    private readonly served: () => Iterable<Resource>,
  ) {}

  private configurations(kind: 'MutatingWebhookConfiguration' | 'ValidatingWebhookConfiguration'): Obj[] {
    const r = this.resourceFor(`${GROUP}/v1`, kind);
    return r ? this.store.all(r) : [];
  }

  /** Whether a write of `r` meets webhooks at all (some configuration is stored, and `r` is not exempt). */
  active(r: Resource): boolean {
    if (r.group === GROUP && EXEMPT.has(r.kind)) return false;
    return (
      this.configurations('MutatingWebhookConfiguration').length > 0 ||
      this.configurations('ValidatingWebhookConfiguration').length > 0
    );
  }

  /** Runs the write `op` through admission; `ctx` is the request's (its warnings get the webhooks'). */
  async run<T>(info: AdmissionRequestInfo, ctx: WriteContext, op: (c: WriteContext) => T): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.attempt(info, ctx, op);
      } catch (e) {
        if (!(e instanceof Moved) || attempt >= MAX_ATTEMPTS) throw e;
      }
    }
  }

  private async attempt<T>(info: AdmissionRequestInfo, ctx: WriteContext, op: (c: WriteContext) => T): Promise<T> {
    const stop = {
      mutate: (o: Obj, old: Obj | undefined): Obj => {
        throw new Reached({ o: clone(o), old });
      },
      validate: (o: Obj | undefined, old: Obj | undefined): void => {
        throw new Reached({ o: clone(o), old });
      },
    };
    const first = reach(() => op({ ...ctx, dryRun: true, warnings: [], admit: stop }));
    if (!first) return op(ctx); // no admission point on the way: nothing to admit
    const operation: Operation = first.o === undefined ? 'DELETE' : first.old ? 'UPDATE' : 'CREATE';
    if (first.o && info.r.namespaced) {
      const m = first.o.metadata as Obj;
      m.namespace ??= info.namespace;
    }
    const warnings: string[] = [];
    const cel = await this.celIfNeeded();
    const call = (o: Obj | undefined, old: Obj | undefined): AdmissionCall => ({
      cel,
      ...info,
      operation,
      object: o,
      oldObject: old,
      dryRun: ctx.dryRun,
      warnings,
      traceparent: ctx.traceparent,
      namespaceLabels: () => this.namespaceLabels(info, operation, o),
      equivalents: this.equivalents(info.r),
    });
    const mutated = await this.mutate(call(first.o, first.old));
    const replay = (o: Obj, old: Obj | undefined): Obj => {
      if (!sameRevision(old, first.old) || !sameJSON(o, first.o, info)) throw new Moved();
      if (!mutated) throw new Moved();
      return clone(mutated);
    };
    const final =
      operation === 'DELETE'
        ? first
        : reach(() => op({ ...ctx, dryRun: true, warnings: [], admit: { mutate: replay, validate: stop.validate } }));
    if (final) await this.validate(call(final.o, final.old));
    const last: WriteContext = {
      ...ctx,
      admit: {
        mutate: replay,
        validate: (o, old) => {
          if (!sameRevision(old, final?.old)) throw new Moved();
          // The object validating webhooks saw is the one stored: same uid and creation time.
          if (o && final?.o) adoptSystemFields(o, final.o);
        },
      },
    };
    const out = op(last);
    // What the write reports back through its context (an update or apply that created: 201).
    if (last.created !== undefined) ctx.created = last.created;
    ctx.warnings.push(...warnings);
    return out;
  }

  /**
   * The mutating webhooks, in order; the object they leave (defaulted and pruned again, as the
   * server does). A webhook with reinvocationPolicy IfNeeded is called once more, in a second
   * round, when a webhook after it changed the object (the mutating dispatcher's reinvocation).
   */
  private async mutate(call: AdmissionCall): Promise<Obj | undefined> {
    const all = this.webhooks('MutatingWebhookConfiguration');
    let object = call.object;
    const invoked = new Set<string>();
    const again = new Set<string>();
    let changed = false;
    for (const second of [false, true]) {
      if (second && !changed) break;
      for (const inv of matchingWebhooks(all, { ...call, object })) {
        const key = `${inv.hook.configuration}/${inv.hook.name}`;
        if (second && !again.has(key)) continue;
        const patched = await callWebhook(inv, { ...call, object });
        if (patched !== undefined && !equalJSON(object, patched)) {
          changed = true;
          for (const k of invoked) again.add(k);
          invoked.clear();
        }
        if (patched !== undefined) object = normalize(call.r, patched); // pruned and defaulted again, as the server decodes it
        if (inv.hook.reinvocationPolicy === 'IfNeeded') invoked.add(key);
      }
    }
    return object;
  }

  /** The validating webhooks, called at once; the first refusal in their order is the answer. */
  private async validate(call: AdmissionCall): Promise<void> {
    const hooks = matchingWebhooks(this.webhooks('ValidatingWebhookConfiguration'), call);
    const results = await Promise.allSettled(hooks.map((h) => callWebhook(h, call)));
    for (const res of results) if (res.status === 'rejected') throw res.reason;
  }

  private webhooks(kind: 'MutatingWebhookConfiguration' | 'ValidatingWebhookConfiguration'): WebhookSpec[] {
    const configs = this.configurations(kind).sort((a, b) => name(a).localeCompare(name(b)));
    return configs.flatMap((c) => webhooksOf(c, kind === 'MutatingWebhookConfiguration'));
  }

  /** The labels a namespaceSelector is matched with: the namespace's (the object's own for a Namespace written). */
  private namespaceLabels(
    info: AdmissionRequestInfo,
    operation: Operation,
    o: Obj | undefined,
  ): Record<string, string> {
    if (info.r.group === '' && info.r.plural === 'namespaces' && !info.sub && operation !== 'DELETE')
      return labelsOf(o);
    const nsRes = this.resourceFor('v1', 'Namespace');
    if (!nsRes) throw new Error('fake API server: no v1 Namespace resource');
    const ns = info.r.group === '' && info.r.plural === 'namespaces' ? info.name : (info.namespace ?? '');
    const found = this.store.find(nsRes, undefined, ns);
    if (!found) this.store.read(nsRes, undefined, ns); // throws the server's 404
    return labelsOf(found);
  }

  /** The CEL evaluator, loaded only when a stored webhook has matchConditions. */
  private async celIfNeeded(): Promise<AdmissionCall['cel']> {
    const any = [
      ...this.webhooks('MutatingWebhookConfiguration'),
      ...this.webhooks('ValidatingWebhookConfiguration'),
    ].some((h) => h.matchConditions.length > 0);
    if (!any) return undefined;
    const { evaluateExpression, toCel } = await import('#cel');
    return (expression, vars) =>
      evaluateExpression(
        expression,
        Object.fromEntries(Object.entries(vars).map(([k, v]) => [k, toCel(v, undefined)])),
      );
  }

  /** The other served versions of `r`'s resource (matchPolicy Equivalent). */
  private equivalents(r: Resource): Resource[] {
    return [...this.served()].filter((x) => x.storageKey === r.storageKey && x !== r);
  }
}

function reach(f: () => unknown): Seen | undefined {
  try {
    f();
    return undefined;
  } catch (e) {
    if (e instanceof Reached) return e.seen;
    throw e;
  }
}

function name(o: Obj): string {
  return String((o.metadata as Obj | undefined)?.name ?? '');
}

function labelsOf(o: Obj | undefined): Record<string, string> {
  const m = o && isObj(o.metadata) ? o.metadata : {};
  return (isObj(m.labels) ? m.labels : {}) as Record<string, string>;
}

function sameRevision(a: Obj | undefined, b: Obj | undefined): boolean {
  const rv = (o: Obj | undefined) => (o && isObj(o.metadata) ? o.metadata.resourceVersion : undefined);
  return rv(a) === rv(b);
}

/**
 * The object the mutating point sees again, as it saw it the first time (namespace filled in
 * alike). managedFields are left out: server-side apply stamps them with the time of the pass.
 */
function sameJSON(o: Obj, seen: Obj | undefined, info: AdmissionRequestInfo): boolean {
  const strip = (x: Obj | undefined) => {
    if (!x) return x;
    const c = clone(x);
    const m = c.metadata as Obj;
    if (info.r.namespaced) m.namespace ??= info.namespace;
    delete m.managedFields;
    return c;
  };
  return JSON.stringify(strip(o)) === JSON.stringify(strip(seen));
}

function adoptSystemFields(o: Obj, seen: Obj): void {
  const m = o.metadata as Obj;
  const s = seen.metadata as Obj;
  for (const k of ['uid', 'creationTimestamp', 'name']) if (s[k] !== undefined) m[k] = s[k];
}
