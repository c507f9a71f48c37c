/**
 * One admission webhook as kube-apiserver calls it (k8s.io/apiserver admission/plugin/webhook):
 * whether it applies to a request (rules with operations, groups, versions, resources with
 * `*` and `x/status`, scope; namespaceSelector, objectSelector; matchPolicy Equivalent), the
 * AdmissionReview it is sent over HTTPS (trusting clientConfig.caBundle, within timeoutSeconds),
 * and the server's words for its answer: a refusal (`admission webhook "<name>" denied the
 * request: ...`), a failed call (`Internal error occurred: failed calling webhook "<name>": ...`,
 * ignored under failurePolicy Ignore), a dry run it does not support.
 */
import { randomUUID } from 'node:crypto';
import https from 'node:https';
import type { Operation as JSONPatchOp } from 'fast-json-patch';
import { requireFastJsonPatch } from '../../runtime/client/lazy-require.cjs';
import { matchesLabels, type LabelRequirement } from './selectors.js';
import type { Resource } from './resources.js';
import { ApiStatus, forbidden } from './status.js';
import { type Obj, clone, isObj } from '../../apiserver/json.js';
import { apiVersionOf } from '../../runtime/client/types.js';

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/** One webhook of a configuration, with v1's defaults filled in. */
export interface WebhookSpec {
  name: string;
  /** The configuration's name (webhook names may repeat across configurations). */
  configuration: string;
  /** Mutating webhooks: Never (default) or IfNeeded. */
  reinvocationPolicy?: string;
  mutating: boolean;
  rules: Obj[];
  failurePolicy: 'Fail' | 'Ignore';
  matchPolicy: 'Exact' | 'Equivalent';
  sideEffects?: string;
  timeoutSeconds: number;
  namespaceSelector: LabelRequirement[] | 'nothing';
  objectSelector: LabelRequirement[] | 'nothing';
  admissionReviewVersions: string[];
  clientConfig: Obj;
  /** CEL expressions that must all be true for the webhook to be called. */
  matchConditions: { name: string; expression: string }[];
}

/** A request as a webhook is asked about it. */
export interface AdmissionCall {
  r: Resource;
  sub?: string;
  namespace?: string;
  name: string;
  operation: Operation;
  object: Obj | undefined;
  oldObject: Obj | undefined;
  dryRun: boolean;
  fieldManager?: string;
  deleteOptions?: Obj;
  /** Where the webhooks' warnings go (Warning headers of the answer). */
  warnings: string[];
  /** The write's `traceparent`, sent with every webhook call. */
  traceparent?: string;
  namespaceLabels(): Record<string, string>;
  /** Other served versions of the resource, for matchPolicy Equivalent. */
  equivalents: Resource[];
  /** Evaluates a CEL expression on JSON variables (given when some webhook has matchConditions). */
  cel?: (expression: string, vars: Record<string, unknown>) => { value?: unknown; error?: string };
}

/** The webhooks of a stored configuration, in their order. */
export function webhooksOf(config: Obj, mutating: boolean): WebhookSpec[] {
  const hooks = Array.isArray(config.webhooks) ? (config.webhooks as Obj[]) : [];
  const configuration = String((config.metadata as Obj | undefined)?.name ?? '');
  return hooks.map((h) => ({
    name: String(h.name ?? ''),
    configuration,
    reinvocationPolicy: typeof h.reinvocationPolicy === 'string' ? h.reinvocationPolicy : undefined,
    mutating,
    rules: Array.isArray(h.rules) ? (h.rules as Obj[]) : [],
    failurePolicy: h.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail',
    matchPolicy: h.matchPolicy === 'Exact' ? 'Exact' : 'Equivalent',
    sideEffects: typeof h.sideEffects === 'string' ? h.sideEffects : undefined,
    timeoutSeconds: typeof h.timeoutSeconds === 'number' ? h.timeoutSeconds : 10,
    namespaceSelector: labelSelector(h.namespaceSelector),
    objectSelector: labelSelector(h.objectSelector),
    admissionReviewVersions: Array.isArray(h.admissionReviewVersions) ? (h.admissionReviewVersions as string[]) : [],
    clientConfig: isObj(h.clientConfig) ? h.clientConfig : {},
    matchConditions: (Array.isArray(h.matchConditions) ? (h.matchConditions as Obj[]) : []).map((c) => ({
      name: String(c.name ?? ''),
      expression: String(c.expression ?? ''),
    })),
  }));
}

/** A metav1.LabelSelector as requirements ('nothing' for one that cannot match, such as an unknown operator). */
function labelSelector(v: unknown): LabelRequirement[] | 'nothing' {
  if (!isObj(v)) return [];
  const out: LabelRequirement[] = [];
  for (const [key, value] of Object.entries(isObj(v.matchLabels) ? v.matchLabels : {}))
    out.push({ key, op: '=', values: [String(value)] });
  const ops: Record<string, LabelRequirement['op']> = {
    In: 'in',
    NotIn: 'notin',
    Exists: 'exists',
    DoesNotExist: '!exists',
  };
  for (const e of Array.isArray(v.matchExpressions) ? (v.matchExpressions as Obj[]) : []) {
    const op = ops[String(e.operator)];
    if (!op) return 'nothing';
    out.push({ key: String(e.key), op, values: Array.isArray(e.values) ? (e.values as string[]) : [] });
  }
  return out;
}

function namespaceSelected(sel: LabelRequirement[] | 'nothing', call: AdmissionCall): boolean {
  if (sel === 'nothing') return false;
  return sel.length === 0 || matchesLabels(call.namespaceLabels(), sel);
}

function selects(sel: LabelRequirement[] | 'nothing', labels: Record<string, string>): boolean {
  return sel !== 'nothing' && matchesLabels(labels, sel);
}

const labelsOf = (o: Obj | undefined): Record<string, string> =>
  (o && isObj(o.metadata) && isObj(o.metadata.labels) ? o.metadata.labels : {}) as Record<string, string>;

const anyOf = (items: unknown, want: string): boolean =>
  Array.isArray(items) && items.some((i) => i === '*' || i === want);

/** One rule against a resource (rules.Matcher): scope, operation, group, version, resource/subresource. */
function ruleMatches(rule: Obj, r: Resource, call: AdmissionCall): boolean {
  const isNamespace = r.group === '' && r.plural === 'namespaces';
  const scope = rule.scope ?? '*';
  if (scope === 'Namespaced' && (isNamespace || !call.namespace)) return false;
  if (scope === 'Cluster' && !(isNamespace || !call.namespace)) return false;
  if (scope !== '*' && scope !== 'Namespaced' && scope !== 'Cluster') return false;
  if (!anyOf(rule.operations, call.operation)) return false;
  if (!anyOf(rule.apiGroups, r.group) || !anyOf(rule.apiVersions, r.version)) return false;
  const resources = Array.isArray(rule.resources) ? (rule.resources as string[]) : [];
  return resources.some((x) => {
    const [res, sub = ''] = x.split(/\/(.*)/s);
    return (res === '*' || res === r.plural) && (sub === '*' || sub === (call.sub ?? ''));
  });
}

/** A webhook that applies, and the resource version it is called with. */
export interface Invocation {
  hook: WebhookSpec;
  r: Resource;
}

/** The webhooks that apply to `call`, in order (generic.Webhook.ShouldCallHook). */
export function matchingWebhooks(hooks: WebhookSpec[], call: AdmissionCall): Invocation[] {
  const out: Invocation[] = [];
  const clusterScoped = !call.namespace && !(call.r.group === '' && call.r.plural === 'namespaces');
  for (const hook of hooks) {
    if (
      hook.objectSelector === 'nothing' ||
      (hook.objectSelector.length &&
        !(
          (call.object && selects(hook.objectSelector, labelsOf(call.object))) ||
          (call.oldObject && selects(hook.objectSelector, labelsOf(call.oldObject)))
        ))
    )
      continue;
    let r: Resource | undefined = hook.rules.some((rule) => ruleMatches(rule, call.r, call)) ? call.r : undefined;
    if (!r && hook.matchPolicy === 'Equivalent')
      for (const rule of hook.rules) {
        r = call.equivalents.find((e) => ruleMatches(rule, e, call));
        if (r) break;
      }
    // The namespace is looked up only for a webhook whose rules match (a missing one is then a 404).
    if (r && !clusterScoped && !namespaceSelected(hook.namespaceSelector, call)) continue;
    if (r && conditionsHold(hook, r, call)) out.push({ hook, r });
  }
  return out;
}

/**
 * matchConditions (matchconditions.Matcher): a condition false skips the webhook; an error (with
 * none false) fails the request with 403 under failurePolicy Fail, else skips the webhook.
 */
function conditionsHold(hook: WebhookSpec, r: Resource, call: AdmissionCall): boolean {
  if (!hook.matchConditions.length) return true;
  if (!call.cel) throw new Error('matchConditions need the CEL engine');
  const request = review({ hook, r }, call, '', 'v1').request as Obj;
  const vars = { object: request.object, oldObject: request.oldObject, request };
  const errors: string[] = [];
  for (const c of hook.matchConditions) {
    const res = call.cel(c.expression, vars);
    if (res.error !== undefined) errors.push(`expression '${c.expression}' resulted in error: ${res.error}`);
    else if (res.value === false) return false;
  }
  if (!errors.length) return true;
  if (hook.failurePolicy === 'Ignore') return false;
  const name = call.name || String((call.object?.metadata as Obj | undefined)?.name ?? '');
  throw forbidden(call.r, name, errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`);
}

/** A metav1.Status answer with Go's omitempty: no empty reason, no absent details. */
class WebhookStatus extends ApiStatus {
  constructor(
    code: number,
    reason: string,
    message: string,
    details?: ApiStatus['details'],
    private readonly status = 'Failure',
  ) {
    super(code, reason, message, details);
  }

  override body(): Record<string, unknown> {
    const b: Record<string, unknown> = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: this.status };
    if (this.message) b.message = this.message;
    if (this.reason) b.reason = this.reason;
    if (this.details) b.details = this.details;
    b.code = this.code;
    return b;
  }
}

/** apierrors.NewInternalError. */
function internalError(message: string): ApiStatus {
  return new WebhookStatus(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] });
}

/** A webhook's refusal (webhookerrors.ToStatusErr). */
function denial(hook: string, result: unknown): ApiStatus {
  const s = isObj(result) ? result : {};
  const code = typeof s.code === 'number' && s.code >= 400 ? s.code : 400;
  const deniedBy = `admission webhook ${JSON.stringify(hook)} denied the request`;
  const message = s.message
    ? `${deniedBy}: ${String(s.message)}`
    : s.reason
      ? `${deniedBy}: ${String(s.reason)}`
      : `${deniedBy} without explanation`;
  const status = s.status && s.status !== 'Success' ? String(s.status) : 'Failure';
  return new WebhookStatus(
    code,
    typeof s.reason === 'string' ? s.reason : '',
    message,
    isObj(s.details) ? s.details : undefined,
    status,
  );
}

/** A failure to reach or understand a webhook (webhookutil.ErrCallingWebhook). */
class CallFailure extends Error {}

/**
 * Calls one webhook. Returns the patched object of a mutating webhook that sent a patch (else
 * undefined); throws the ApiStatus the server answers with for a refusal, or for a failed call
 * under failurePolicy Fail.
 */
export async function callWebhook(inv: Invocation, call: AdmissionCall): Promise<Obj | undefined> {
  const { hook } = inv;
  if (call.dryRun) {
    if (hook.sideEffects === undefined) return failed(hook, 'Webhook SideEffects is nil');
    if (hook.sideEffects !== 'None' && hook.sideEffects !== 'NoneOnDryRun')
      throw new ApiStatus(400, 'BadRequest', `admission webhook ${JSON.stringify(hook.name)} does not support dry run`);
  }
  const version = hook.admissionReviewVersions.find((v) => v === 'v1' || v === 'v1beta1');
  if (!version)
    return failed(
      hook,
      'could not create admission objects: webhook does not accept known AdmissionReview versions (v1, v1beta1)',
    );
  const uid = randomUUID();
  let response: Obj;
  try {
    response = verify(await post(hook, review(inv, call, uid, version), call.traceparent), uid, version, hook.mutating);
  } catch (e) {
    if (e instanceof CallFailure) return failed(hook, e.message);
    throw e;
  }
  for (const w of Array.isArray(response.warnings) ? response.warnings : []) call.warnings.push(String(w));
  if (response.allowed !== true) throw denial(hook.name, response.status);
  return patched(inv, call, response);
}

/** A failed call: the request fails with 500 unless the webhook's failurePolicy is Ignore. */
function failed(hook: WebhookSpec, reason: string): undefined {
  if (hook.failurePolicy === 'Ignore') return undefined;
  throw internalError(`failed calling webhook ${JSON.stringify(hook.name)}: ${reason}`);
}

function review(inv: Invocation, call: AdmissionCall, uid: string, version: string): Obj {
  const gvk = (r: Resource) => ({ group: r.group, version: r.version, kind: r.kind });
  const gvr = (r: Resource) => ({ group: r.group, version: r.version, resource: r.plural });
  const inVersion = (o: Obj | undefined) => (o === undefined ? null : { ...o, apiVersion: apiVersionOf(inv.r) });
  const optionsKind =
    call.operation === 'CREATE' ? 'CreateOptions' : call.operation === 'UPDATE' ? 'UpdateOptions' : 'DeleteOptions';
  const options =
    call.operation === 'DELETE'
      ? { ...(call.deleteOptions ?? {}), kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1' }
      : {
          kind: optionsKind,
          apiVersion: 'meta.k8s.io/v1',
          ...(call.fieldManager ? { fieldManager: call.fieldManager } : {}),
          ...(call.dryRun ? { dryRun: ['All'] } : {}),
        };
  const name = call.name || String((call.object?.metadata as Obj | undefined)?.name ?? '');
  return {
    kind: 'AdmissionReview',
    apiVersion: `admission.k8s.io/${version}`,
    request: {
      uid,
      kind: gvk(inv.r),
      resource: gvr(inv.r),
      ...(call.sub ? { subResource: call.sub } : {}),
      requestKind: gvk(call.r),
      requestResource: gvr(call.r),
      ...(call.sub ? { requestSubResource: call.sub } : {}),
      ...(name ? { name } : {}),
      ...(call.namespace ? { namespace: call.namespace } : {}),
      operation: call.operation,
      userInfo: { username: 'kubeforge-fake-admin', groups: ['system:masters', 'system:authenticated'] },
      object: inVersion(call.object),
      oldObject: inVersion(call.oldObject),
      dryRun: call.dryRun,
      options,
    },
  };
}

/** POSTs the review as client-go does (`?timeout=<n>s`), over HTTPS trusting the caBundle. */
async function post(hook: WebhookSpec, body: Obj, traceparent?: string): Promise<unknown> {
  const cc = hook.clientConfig;
  if (isObj(cc.service)) {
    const s = cc.service;
    throw new CallFailure(
      `failed to call webhook: the fake API server does not reach services (service ${String(s.namespace)}/${String(s.name)}): give the webhook a clientConfig.url`,
    );
  }
  if (typeof cc.url !== 'string') throw new CallFailure('could not get REST client: neither url nor service given');
  const url = new URL(cc.url);
  url.searchParams.set('timeout', `${hook.timeoutSeconds}s`);
  const target = `Post ${JSON.stringify(url.toString())}`;
  const ca = typeof cc.caBundle === 'string' && cc.caBundle ? Buffer.from(cc.caBundle, 'base64') : undefined;
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = https.request(
      url,
      {
        method: 'POST',
        ca,
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json',
          'Content-Length': Buffer.byteLength(text),
          ...(traceparent ? { traceparent } : {}),
        },
        timeout: hook.timeoutSeconds * 1000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', (e) => reject(new CallFailure(`failed to call webhook: ${target}: ${e.message}`)));
        res.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          if ((res.statusCode ?? 0) >= 300)
            return reject(new CallFailure(`failed to call webhook: ${responseError(res.statusCode ?? 0, raw)}`));
          try {
            resolve(JSON.parse(raw));
          } catch (e) {
            reject(new CallFailure(`failed to call webhook: ${(e as Error).message}`));
          }
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('context deadline exceeded')));
    req.on('error', (e) => reject(new CallFailure(`failed to call webhook: ${target}: ${goNetError(e, url)}`)));
    req.end(text);
  });
}

/** What client-go makes of a response that is not 2xx: a Status body's message, else apierrors.NewGenericServerResponse's. */
function responseError(code: number, raw: string): string {
  try {
    const st = JSON.parse(raw) as Obj;
    if (isObj(st) && st.kind === 'Status' && typeof st.message === 'string' && st.message) return st.message;
  } catch {
    // not JSON: the generic message for the code
  }
  const text = raw.trim();
  const generic: Record<number, string> = {
    400: 'the server rejected our request for an unknown reason',
    401: 'the server has asked for the client to provide credentials',
    403: text,
    404: 'the server could not find the requested resource',
    405: 'the server does not allow this method on the requested resource',
    406:
      text && text !== 'unknown'
        ? text
        : 'the server was unable to respond with a content type that the client supports',
    409: 'the server reported a conflict',
    415: text,
    422: 'the server rejected our request due to an error in our request',
    429: 'the server has received too many requests and has asked us to try again later',
    503: 'the server is currently unable to handle the request',
    504: 'the server was unable to return a response in the time allotted, but may still be processing the request',
  };
  if (code in generic) return generic[code];
  if (code >= 500) return `an error on the server (${JSON.stringify(text)}) has prevented the request from succeeding`;
  return `the server responded with the status code ${code} but did not return more information`;
}

/** Node's network errors in the words of Go's net/http and crypto/tls, where they have a counterpart. */
function goNetError(e: Error & { code?: string }, url: URL): string {
  const hostPort = `${url.hostname}:${url.port || 443}`;
  if (e.code === 'ECONNREFUSED') return `dial tcp ${hostPort}: connect: connection refused`;
  if (
    e.code === 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' ||
    e.code === 'SELF_SIGNED_CERT_IN_CHAIN' ||
    e.code === 'DEPTH_ZERO_SELF_SIGNED_CERT' ||
    e.code === 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY'
  )
    return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
  return e.message;
}

/** webhookrequest.VerifyAdmissionResponse: the response of the same uid, version and kind of webhook. */
function verify(review: unknown, uid: string, version: string, mutating: boolean): Obj {
  const bad = (why: string) => new CallFailure(`received invalid webhook response: ${why}`);
  const r = isObj(review) ? review : {};
  const res = r.response;
  if (!isObj(res)) throw bad('webhook response was absent');
  if (version === 'v1') {
    if (res.uid !== uid)
      throw bad(`expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(res.uid ?? '')}`);
    if (r.apiVersion !== 'admission.k8s.io/v1' || r.kind !== 'AdmissionReview')
      throw bad(
        `expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${String(r.apiVersion ?? '')}, Kind=${String(r.kind ?? '')}`,
      );
  }
  const hasPatch = typeof res.patch === 'string' && res.patch !== '';
  if (mutating && version === 'v1') {
    if (hasPatch && res.patchType === undefined)
      throw bad('webhook returned response.patch but not response.patchType');
    if (!hasPatch && res.patchType !== undefined)
      throw bad('webhook returned response.patchType but not response.patch');
  }
  if (!mutating) {
    if (hasPatch) throw bad('validating webhook may not return response.patch');
    if (res.patchType !== undefined) throw bad('validating webhook may not return response.patchType');
  }
  return res;
}

/** Applies a mutating webhook's JSON patch; undefined when it sent none. */
function patched(inv: Invocation, call: AdmissionCall, res: Obj): Obj | undefined {
  if (!inv.hook.mutating || typeof res.patch !== 'string' || res.patch === '') return undefined;
  if (res.patchType !== undefined && res.patchType !== 'JSONPatch')
    return failed(inv.hook, `unsupported patch type ${JSON.stringify(res.patchType)}`);
  let ops: JSONPatchOp[];
  try {
    ops = JSON.parse(Buffer.from(res.patch, 'base64').toString('utf8')) as JSONPatchOp[];
    if (!Array.isArray(ops)) throw new Error('not a list of operations');
  } catch (e) {
    return failed(inv.hook, `received undecodable patch in webhook response: ${(e as Error).message}`);
  }
  if (ops.length === 0) return undefined;
  if (call.object === undefined)
    throw internalError(
      `admission webhook ${JSON.stringify(inv.hook.name)} attempted to modify the object, which is not supported for this operation`,
    );
  let out: Obj;
  try {
    out = requireFastJsonPatch().applyPatch(clone(call.object), ops, true, false).newDocument as Obj;
  } catch (e) {
    throw internalError((e as Error).message.split('\n')[0]);
  }
  if (!isObj(out)) throw internalError('the patched object is not an object');
  return { ...out, apiVersion: call.object.apiVersion };
}
