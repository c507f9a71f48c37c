/**
 * Webhook generator: `@Webhook({...})` and `@WebhookConfiguration({...})` marker uses ->
 * one MutatingWebhookConfiguration and one ValidatingWebhookConfiguration for
 * `config/webhook/manifests.yaml` (admissionregistration.k8s.io/v1), as controller-gen's webhook
 * generator builds them:
 *
 * - webhooks sorted by name (stable: source order breaks ties);
 * - `clientConfig.service` is `webhook-service` in namespace `system` with the marker's path
 *   (`serviceName` / `serviceNamespace` / `servicePort` override it), or `clientConfig.url`;
 * - verbs map to operations (`create` -> `CREATE`, `*` stays), the group `core` means `""`;
 * - failurePolicy, sideEffects, matchPolicy and reinvocationPolicy are checked by the analysis
 *   against the marker table (their API spelling);
 * - a configuration with no webhooks is not written; no webhooks at all means no file.
 *
 * The checks controller-gen makes (path xor url, sideEffects required and not Some/Unknown,
 * admissionReviewVersions required, timeoutSeconds in 1..30, known matchPolicy, one
 * WebhookConfiguration per kind) are located errors here, all reported in one run, together
 * with the ones the API server would make later (unknown operations or policies,
 * reinvocationPolicy on a validating webhook, duplicate webhook names in one configuration,
 * admissionReviewVersions without v1 or v1beta1, or with a duplicate or a malformed entry).
 */
import type { Reporter } from '../diagnostics/index.js';
import { isDns1123Subdomain, webhookPathProblem } from '../project/naming.js';
import { isDNS1035Label } from '../util/apimachinery/validation.js';
import { bySource, failAt, type MarkerUse } from './markeruse.js';
import { applyWebhookPatch, labelSelectorProblems, matchConditionProblems, sortKeysDeep } from './webhook-patch.js';

const DEFAULT_MUTATING_NAME = 'mutating-webhook-configuration';
const DEFAULT_VALIDATING_NAME = 'validating-webhook-configuration';

export interface WebhookObject {
  admissionReviewVersions: string[];
  clientConfig: { service?: { name: string; namespace: string; path: string; port?: number }; url?: string };
  failurePolicy: string;
  matchConditions?: { name: string; expression: string }[];
  matchPolicy?: string;
  name: string;
  namespaceSelector?: Record<string, unknown>;
  objectSelector?: Record<string, unknown>;
  reinvocationPolicy?: string;
  rules: { apiGroups?: string[]; apiVersions?: string[]; operations?: string[]; resources?: string[] }[];
  sideEffects: string;
  timeoutSeconds?: number;
}

export interface WebhookConfigurationObject {
  apiVersion: 'admissionregistration.k8s.io/v1';
  kind: 'MutatingWebhookConfiguration' | 'ValidatingWebhookConfiguration';
  metadata: { name: string };
  webhooks: WebhookObject[];
}

/** Operations a webhook rule may name (verbs are written in lower case: `create` -> `CREATE`). */
const OPERATIONS = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT', '*'];

/** The AdmissionReview versions the API server sends (and kubeforge/runtime answers). */
const ADMISSION_REVIEW_VERSIONS = ['v1', 'v1beta1'];

/**
 * What the API server refuses in a non-empty admissionReviewVersions when it creates the
 * configuration (k8s.io/kubernetes validateAdmissionReviewVersions): a duplicate, an entry that
 * is not a DNS-1035 label, none of the versions it sends. Each problem with its fix.
 */
function admissionReviewVersionsProblems(versions: readonly string[]): { problem: string; hint: string }[] {
  const problems: { problem: string; hint: string }[] = [];
  for (const [i, v] of versions.entries()) {
    if (versions.indexOf(v) !== i)
      problems.push({
        problem: `lists '${v}' twice: the API server refuses a duplicate version`,
        hint: 'list each version once',
      });
    else if (isDNS1035Label(v).length) {
      problems.push({
        problem: `has '${v}', which is not a version name (lower-case letters, digits and '-', starting with a letter)`,
        hint: "write versions as the API names them: admissionReviewVersions: ['v1']",
      });
    }
  }
  if (!versions.some((v) => ADMISSION_REVIEW_VERSIONS.includes(v))) {
    problems.push({
      problem:
        'must include at least one of v1, v1beta1: the API server refuses the webhook configuration, as it sends AdmissionReviews in those versions only',
      hint: "use admissionReviewVersions: ['v1'] (kubeforge/runtime answers v1 and v1beta1 reviews)",
    });
  }
  return problems;
}

function conventionalPath(mutating: boolean, groups: string[], versions: string[]): string {
  const group = (groups[0] ?? '<group>').replace(/\./g, '-') || 'core';
  return `/${mutating ? 'mutate' : 'validate'}-${group}-${versions[0] ?? '<version>'}-<kind>`;
}

/**
 * Builds the Mutating and Validating configurations (mutating first; none when there is no
 * webhook) from every `@Webhook` and `@WebhookConfiguration`; problems go to the reporter
 * (KF4201 webhooks, KF4202 configurations, KF4203 duplicate names, KF4204 admissionReviewVersions
 * the API server refuses).
 */
export function generateWebhooks(
  hooks: readonly MarkerUse<'Webhook'>[],
  configurations: readonly MarkerUse<'WebhookConfiguration'>[],
  reporter: Reporter,
  k8sMinor?: number,
): WebhookConfigurationObject[] {
  const names = configurationNames(configurations, reporter);
  const mutatingHooks: PlacedHook[] = [];
  const validatingHooks: PlacedHook[] = [];
  for (const use of [...hooks].sort(bySource)) {
    const before = reporter.count;
    const operations = checkWebhook(use, reporter);
    if (reporter.count > before) continue;
    const hook = selectWebhook(use, webhookObject(use, operations), reporter, k8sMinor);
    if (hook) (use.args.mutating ? mutatingHooks : validatingHooks).push({ use, hook });
  }
  const objects: WebhookConfigurationObject[] = [];
  const mutating = configurationObject(
    mutatingHooks,
    'MutatingWebhookConfiguration',
    names.mutating ?? DEFAULT_MUTATING_NAME,
    reporter,
  );
  if (mutating) objects.push(mutating);
  const validating = configurationObject(
    validatingHooks,
    'ValidatingWebhookConfiguration',
    names.validating ?? DEFAULT_VALIDATING_NAME,
    reporter,
  );
  if (validating) objects.push(validating);
  return objects;
}

/** A webhook and the marker that declared it. */
interface PlacedHook {
  use: MarkerUse<'Webhook'>;
  hook: WebhookObject;
}

/** The configurations' names from `@WebhookConfiguration` (at most one per kind, valid names). */
function configurationNames(
  configurations: readonly MarkerUse<'WebhookConfiguration'>[],
  reporter: Reporter,
): { mutating?: string; validating?: string } {
  const names: { mutating?: string; validating?: string } = {};
  const seenConfig: { mutating?: MarkerUse; validating?: MarkerUse } = {};
  for (const use of [...configurations].sort(bySource)) {
    const { mutating, name } = use.args;
    const kind = mutating ? 'mutating' : 'validating';
    if (!isDns1123Subdomain(name)) {
      failAt(
        reporter,
        'KF4202',
        use,
        `@WebhookConfiguration on ${use.target}: name '${name}' is not a valid object name`,
        'use lower-case letters, digits, "-" and "." (RFC 1123 subdomain)',
      );
      continue;
    }
    const previous = seenConfig[kind];
    if (previous) {
      failAt(
        reporter,
        'KF4202',
        use,
        `duplicate ${kind} @WebhookConfiguration with name ${name} (the first is on ${previous.target} at ${previous.file}:${previous.line})`,
        `keep a single @WebhookConfiguration({ mutating: ${mutating}, name }) in the project`,
      );
      continue;
    }
    seenConfig[kind] = use;
    names[kind] = name;
  }
  return names;
}

/** What the API server would refuse in one `@Webhook` (reported); its operations, as the API spells them. */
function checkWebhook(use: MarkerUse<'Webhook'>, reporter: Reporter): string[] {
  const a = use.args;
  const fail = (message: string, hint?: string) => failAt(reporter, 'KF4201', use, message, hint);
  const { name, mutating, sideEffects, resources, verbs, versions, admissionReviewVersions, timeoutSeconds } = a;
  const groups = a.groups.map((g) => (g === 'core' ? '' : g));
  const who = `@Webhook ${name ? `'${name}' ` : ''}on ${use.target}`;
  if (!isDns1123Subdomain(name) || name.split('.').length < 3) {
    fail(
      `${who}: name must be a fully qualified domain name with at least three segments`,
      `e.g. name: 'vcronjob.batch.example.com'`,
    );
  }
  checkEndpoint(use, groups, fail);
  if (sideEffects === undefined) {
    fail(
      `${who}: SideEffects is required for creating v1 {Mutating,Validating}WebhookConfiguration`,
      "add sideEffects: 'None' (or 'NoneOnDryRun')",
    );
  } else if (sideEffects === 'Some' || sideEffects === 'Unknown') {
    fail(
      `${who}: SideEffects should not be set to \`Some\` or \`Unknown\` for v1 {Mutating,Validating}WebhookConfiguration`,
      "use sideEffects: 'None' or 'NoneOnDryRun'",
    );
  }
  if (admissionReviewVersions.length === 0) {
    fail(
      `${who}: AdmissionReviewVersions is mandatory for v1 {Mutating,Validating}WebhookConfiguration`,
      "add admissionReviewVersions: ['v1']",
    );
  } else {
    for (const { problem, hint } of admissionReviewVersionsProblems(admissionReviewVersions)) {
      failAt(
        reporter,
        'KF4204',
        use,
        `${who}: admissionReviewVersions ${JSON.stringify(admissionReviewVersions)} ${problem}`,
        hint,
      );
    }
  }
  if (timeoutSeconds !== undefined && (timeoutSeconds < 1 || timeoutSeconds > 30)) {
    fail(
      `${who}: TimeoutSeconds must be between 1 and 30 seconds (found ${timeoutSeconds})`,
      'use timeoutSeconds between 1 and 30, or omit it (default 10)',
    );
  }
  if (a.reinvocationPolicy !== undefined && !mutating)
    fail(
      `${who}: reinvocationPolicy applies to mutating webhooks only`,
      'remove reinvocationPolicy, or set mutating: true',
    );
  const operations: string[] = [];
  for (const v of verbs) {
    const op = OPERATIONS.find((o) => o.toLowerCase() === v.toLowerCase());
    if (!op) fail(`${who}: unknown verb "${v}"`, "verbs may be 'create', 'update', 'delete', 'connect' or '*'");
    else operations.push(op);
  }
  for (const [field, list] of [
    ['groups', groups],
    ['resources', resources],
    ['verbs', verbs],
    ['versions', versions],
  ] as const) {
    if (list.length === 0) {
      fail(`${who}: '${field}' is empty`, `list at least one entry in ${field}`);
    }
  }
  return operations;
}

/** Where the API server calls the webhook: a path on the in-cluster Service, or an https url. */
function checkEndpoint(
  use: MarkerUse<'Webhook'>,
  groups: string[],
  fail: (message: string, hint?: string) => void,
): void {
  const { name, mutating, versions, path, url, serviceName, serviceNamespace, servicePort } = use.args;
  const who = `@Webhook ${name ? `'${name}' ` : ''}on ${use.target}`;
  if ((path && url) || (!path && !url)) {
    fail(
      `${who}: \`url\` or \`path\` is required and they are mutually exclusive`,
      path && url
        ? 'keep path (served by the in-cluster webhook-service) or url (an external endpoint), not both'
        : `add path: '${conventionalPath(mutating, groups, versions)}' (or url: 'https://host:port/path')`,
    );
  }
  if (url && (serviceName !== undefined || serviceNamespace !== undefined || servicePort !== undefined)) {
    fail(
      `${who}: serviceName/serviceNamespace/servicePort cannot be used with url`,
      'drop the service arguments, or use path instead of url',
    );
  }
  if (url !== undefined && url !== '' && !/^https:\/\//.test(url)) {
    fail(`${who}: url '${url}' must begin with https://`, "write url: 'https://host:port/path'");
  }
  const pathProblem = path === undefined ? undefined : webhookPathProblem(path);
  if (path !== undefined && path !== '' && !path.startsWith('/')) {
    fail(`${who}: path '${path}' must begin with /`, `write path: '/${path}'`);
  } else if (pathProblem) {
    fail(
      `${who}: path '${path}' is refused by the API server: ${pathProblem}`,
      `write a path such as '${conventionalPath(mutating, groups, versions)}'`,
    );
  }
  if (servicePort !== undefined && (servicePort < 1 || servicePort > 65535)) {
    fail(`${who}: servicePort ${servicePort} is not a valid port`, 'use a port between 1 and 65535');
  }
}

/** The webhook entry of a checked `@Webhook`. */
function webhookObject(use: MarkerUse<'Webhook'>, operations: string[]): WebhookObject {
  const a = use.args;
  const {
    name,
    mutating,
    failurePolicy,
    sideEffects,
    resources,
    versions,
    admissionReviewVersions,
    path,
    url,
    matchPolicy,
    timeoutSeconds,
    serviceName,
    serviceNamespace,
    servicePort,
  } = a;
  // checkWebhook, which ran first without a problem, requires sideEffects.
  if (sideEffects === undefined) throw new Error(`@Webhook on ${use.target}: sideEffects unset after checkWebhook`);
  const groups = a.groups.map((g) => (g === 'core' ? '' : g));
  const rule: WebhookObject['rules'][number] = {};
  if (groups.length) rule.apiGroups = groups;
  if (versions.length) rule.apiVersions = versions;
  if (operations.length) rule.operations = operations;
  if (resources.length) rule.resources = resources;
  const hook: WebhookObject = {
    admissionReviewVersions,
    clientConfig: path
      ? {
          service: {
            name: serviceName || 'webhook-service',
            namespace: serviceNamespace || 'system',
            path,
            ...(servicePort !== undefined ? { port: servicePort } : {}),
          },
        }
      : { url },
    failurePolicy,
    name,
    rules: [rule],
    sideEffects,
  };
  if (matchPolicy) hook.matchPolicy = matchPolicy;
  if (timeoutSeconds !== undefined) hook.timeoutSeconds = timeoutSeconds;
  if (mutating && a.reinvocationPolicy) hook.reinvocationPolicy = a.reinvocationPolicy;
  return hook;
}

/**
 * The webhook with its selectors and match conditions, then `patch` applied (controller-tools
 * v0.22's order: the marker's own fields, then the patch over them); KF4205 for a selector, a
 * match condition or a patch the API server or controller-gen would refuse. Undefined when any.
 */
function selectWebhook(
  use: MarkerUse<'Webhook'>,
  hook: WebhookObject,
  reporter: Reporter,
  k8sMinor: number | undefined,
): WebhookObject | undefined {
  const a = use.args as typeof use.args & {
    namespaceSelector?: unknown;
    objectSelector?: unknown;
    matchConditions?: unknown;
    patch?: string;
  };
  const who = `@Webhook '${a.name}' on ${use.target}`;
  const problems: [string, string][] = [];
  for (const key of ['namespaceSelector', 'objectSelector'] as const) {
    const v = a[key];
    if (v === undefined) continue;
    for (const p of labelSelectorProblems(v, key))
      problems.push([
        p,
        `write ${key} as a LabelSelector: { matchLabels: { key: 'value' } } or { matchExpressions: [{ key, operator: 'In', values: [...] }] }`,
      ]);
    if (!problems.length) hook[key] = v as Record<string, unknown>;
  }
  if (a.matchConditions !== undefined) {
    const found = matchConditionProblems(a.matchConditions, k8sMinor);
    for (const p of found)
      problems.push([
        p,
        "write matchConditions: [{ name: 'not-kube-system', expression: \"request.namespace != 'kube-system'\" }]",
      ]);
    if (!found.length && Array.isArray(a.matchConditions) && a.matchConditions.length)
      hook.matchConditions = a.matchConditions as WebhookObject['matchConditions'];
  }
  let out: WebhookObject = hook;
  if (!problems.length && a.patch !== undefined && a.patch !== '') {
    const patched = applyWebhookPatch(hook as unknown as Record<string, unknown>, a.patch, a.mutating);
    for (const p of patched.problems)
      problems.push([
        `patch: ${p}`,
        'write patch as a JSON object of webhook fields, e.g. patch: \'{"timeoutSeconds": 25}\' (null removes a field)',
      ]);
    if (patched.hook) {
      out = patched.hook as unknown as WebhookObject;
      // What the patch wrote is judged as the fields themselves are.
      for (const key of ['namespaceSelector', 'objectSelector'] as const)
        if (out[key] !== undefined)
          for (const p of labelSelectorProblems(out[key], key))
            problems.push([`patch: ${p}`, `fix ${key} in the patch`]);
      if (patched.hook.matchConditions !== undefined)
        for (const p of matchConditionProblems(patched.hook.matchConditions, k8sMinor))
          problems.push([`patch: ${p}`, 'fix matchConditions in the patch']);
    }
  }
  for (const [message, hint] of problems) failAt(reporter, 'KF4205', use, `${who}: ${message}`, hint);
  return problems.length ? undefined : sortKeysDeep(out);
}

/** One configuration of `list` (none when empty), its webhooks sorted by name; duplicate names reported. */
function configurationObject(
  list: readonly PlacedHook[],
  kind: WebhookConfigurationObject['kind'],
  name: string,
  reporter: Reporter,
): WebhookConfigurationObject | undefined {
  if (list.length === 0) return undefined;
  // Stable sort by name (the input is in source order).
  const sorted = [...list].sort((a, b) => (a.hook.name < b.hook.name ? -1 : a.hook.name > b.hook.name ? 1 : 0));
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i].hook.name === sorted[i - 1].hook.name) {
      const { use } = sorted[i];
      const first = sorted[i - 1].use;
      reporter.report({
        code: 'KF4203',
        severity: 'error',
        message: `two webhooks in ${kind} ${name} are named '${sorted[i].hook.name}' (on ${first.target} at ${first.file}:${first.line} and on ${use.target})`,
        hint: 'give each @Webhook a unique name',
        file: use.file,
        line: use.line,
        column: use.column,
      });
    }
  }
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind,
    metadata: { name },
    webhooks: sorted.map((s) => s.hook),
  };
}
