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
 * - failurePolicy, sideEffects, matchPolicy, reinvocationPolicy are case-insensitive and written
 *   in their API spelling;
 * - a configuration with no webhooks is not written; no webhooks at all means no file.
 *
 * The checks controller-gen makes (path xor url, sideEffects required and not Some/Unknown,
 * admissionReviewVersions required, timeoutSeconds in 1..30, known matchPolicy, one
 * WebhookConfiguration per kind) are located errors here, all reported in one run, together
 * with the ones the API server would make later (unknown operations or policies,
 * reinvocationPolicy on a validating webhook, duplicate webhook names in one configuration).
 */
import type { Diagnostic } from '../diagnostics/index.js';
import { ArgReader, type MarkerUse, bySource, isMarker } from './markeruse.js';

export const DEFAULT_MUTATING_NAME = 'mutating-webhook-configuration';
export const DEFAULT_VALIDATING_NAME = 'validating-webhook-configuration';

export const WEBHOOK_ARGUMENTS = [
  'path', 'url', 'mutating', 'failurePolicy', 'sideEffects', 'groups', 'resources', 'verbs', 'versions', 'name',
  'admissionReviewVersions', 'matchPolicy', 'reinvocationPolicy', 'timeoutSeconds', 'serviceName', 'serviceNamespace',
  'servicePort', 'webhookVersions',
] as const;
export const WEBHOOK_CONFIGURATION_ARGUMENTS = ['mutating', 'name'] as const;

export interface WebhookObject {
  admissionReviewVersions: string[];
  clientConfig: { service?: { name: string; namespace: string; path: string; port?: number }; url?: string };
  failurePolicy: string;
  matchPolicy?: string;
  name: string;
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

export interface WebhookResult {
  /** Mutating first, then validating; empty when there is no webhook. */
  objects: WebhookConfigurationObject[];
  diagnostics: Diagnostic[];
}

function pick(value: string, allowed: readonly string[]): string | undefined {
  return allowed.find((a) => a.toLowerCase() === value.toLowerCase());
}

const OPERATIONS = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT', '*'];
const FAILURE_POLICIES = ['Fail', 'Ignore'];
const SIDE_EFFECTS = ['None', 'NoneOnDryRun', 'Some', 'Unknown'];
const MATCH_POLICIES = ['Exact', 'Equivalent'];
const REINVOCATION_POLICIES = ['Never', 'IfNeeded'];
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function conventionalPath(mutating: boolean, groups: string[], versions: string[]): string {
  const group = (groups[0] ?? '<group>').replace(/\./g, '-') || 'core';
  return `/${mutating ? 'mutate' : 'validate'}-${group}-${versions[0] ?? '<version>'}-<kind>`;
}

export function generateWebhooks(uses: readonly MarkerUse[]): WebhookResult {
  const diagnostics: Diagnostic[] = [];
  const names: { mutating?: string; validating?: string } = {};
  const seenConfig: { mutating?: MarkerUse; validating?: MarkerUse } = {};

  for (const use of [...uses].filter((u) => isMarker(u, 'WebhookConfiguration')).sort(bySource)) {
    const r = new ArgReader(use, diagnostics, 'KF4202');
    if (!r.checkObject()) continue;
    r.checkKnown(WEBHOOK_CONFIGURATION_ARGUMENTS);
    const mutating = r.boolean('mutating', true);
    const name = r.string('name', true);
    if (mutating === undefined || name === undefined) continue;
    const kind = mutating ? 'mutating' : 'validating';
    if (!DNS1123_SUBDOMAIN.test(name)) {
      r.fail(`@WebhookConfiguration on ${use.target}: name '${name}' is not a valid object name`, 'use lower-case letters, digits, "-" and "." (RFC 1123 subdomain)');
      continue;
    }
    const previous = seenConfig[kind];
    if (previous) {
      r.fail(
        `duplicate ${kind} @WebhookConfiguration with name ${name} (the first is on ${previous.target} at ${previous.file}:${previous.line})`,
        `keep a single @WebhookConfiguration({ mutating: ${mutating}, name }) in the project`,
      );
      continue;
    }
    seenConfig[kind] = use;
    names[kind] = name;
  }

  const mutatingHooks: { use: MarkerUse; hook: WebhookObject }[] = [];
  const validatingHooks: { use: MarkerUse; hook: WebhookObject }[] = [];
  for (const use of [...uses].filter((u) => isMarker(u, 'Webhook')).sort(bySource)) {
    const r = new ArgReader(use, diagnostics, 'KF4201');
    if (!r.checkObject()) continue;
    r.checkKnown(WEBHOOK_ARGUMENTS);
    const before = diagnostics.length;
    const name = r.string('name', true);
    const who = `@Webhook ${name ? `'${name}' ` : ''}on ${use.target}`;
    const mutating = r.boolean('mutating', true);
    const failurePolicyRaw = r.string('failurePolicy', true);
    const sideEffectsRaw = r.string('sideEffects');
    const groups = (r.strings('groups', true) ?? []).map((g) => (g === 'core' ? '' : g));
    const resources = r.strings('resources', true) ?? [];
    const verbs = r.strings('verbs', true) ?? [];
    const versions = r.strings('versions', true) ?? [];
    const admissionReviewVersions = r.args.admissionReviewVersions === undefined ? undefined : r.strings('admissionReviewVersions');
    const path = r.string('path');
    const url = r.string('url');
    const matchPolicyRaw = r.string('matchPolicy');
    const reinvocationRaw = r.string('reinvocationPolicy');
    const timeoutSeconds = r.integer('timeoutSeconds');
    const serviceName = r.string('serviceName');
    const serviceNamespace = r.string('serviceNamespace');
    const servicePort = r.integer('servicePort');
    const webhookVersions = r.strings('webhookVersions');

    if (name !== undefined && (!DNS1123_SUBDOMAIN.test(name) || name.split('.').length < 3)) {
      r.fail(`${who}: name must be a fully qualified domain name with at least three segments`, `e.g. name: 'vcronjob.batch.example.com'`);
    }
    if (webhookVersions) {
      for (const v of webhookVersions) {
        if (v !== 'v1') r.fail(`${who}: unsupported webhook version: ${v}`, "only admissionregistration.k8s.io/v1 is generated: remove webhookVersions or write ['v1']");
      }
    }
    if ((path && url) || (!path && !url)) {
      r.fail(
        `${who}: \`url\` or \`path\` is required and they are mutually exclusive`,
        path && url
          ? 'keep path (served by the in-cluster webhook-service) or url (an external endpoint), not both'
          : `add path: '${conventionalPath(mutating ?? false, groups, versions)}' (or url: 'https://host:port/path')`,
      );
    }
    if (url && (serviceName !== undefined || serviceNamespace !== undefined || servicePort !== undefined)) {
      r.fail(`${who}: serviceName/serviceNamespace/servicePort cannot be used with url`, 'drop the service arguments, or use path instead of url');
    }
    if (url !== undefined && url !== '' && !/^https:\/\//.test(url)) {
      r.fail(`${who}: url '${url}' must begin with https://`, "write url: 'https://host:port/path'");
    }
    if (path !== undefined && path !== '' && !path.startsWith('/')) {
      r.fail(`${who}: path '${path}' must begin with /`, `write path: '/${path}'`);
    }
    if (servicePort !== undefined && (servicePort < 1 || servicePort > 65535)) {
      r.fail(`${who}: servicePort ${servicePort} is not a valid port`, 'use a port between 1 and 65535');
    }
    const failurePolicy = failurePolicyRaw === undefined ? undefined : pick(failurePolicyRaw, FAILURE_POLICIES);
    if (failurePolicyRaw !== undefined && !failurePolicy) {
      r.shape(`${who}: unknown value "${failurePolicyRaw}" for failurePolicy`, "use failurePolicy: 'Fail' or 'Ignore'");
    }
    let sideEffects: string | undefined;
    if (sideEffectsRaw === undefined) {
      r.fail(`${who}: SideEffects is required for creating v1 {Mutating,Validating}WebhookConfiguration`, "add sideEffects: 'None' (or 'NoneOnDryRun')");
    } else {
      sideEffects = pick(sideEffectsRaw, SIDE_EFFECTS);
      if (!sideEffects) r.shape(`${who}: unknown value "${sideEffectsRaw}" for sideEffects`, "use sideEffects: 'None' or 'NoneOnDryRun'");
      else if (sideEffects === 'Some' || sideEffects === 'Unknown') {
        r.fail(`${who}: SideEffects should not be set to \`Some\` or \`Unknown\` for v1 {Mutating,Validating}WebhookConfiguration`, "use sideEffects: 'None' or 'NoneOnDryRun'");
      }
    }
    if (r.args.admissionReviewVersions === undefined) {
      r.shape(`${who}: AdmissionReviewVersions is mandatory for v1 {Mutating,Validating}WebhookConfiguration`, "add admissionReviewVersions: ['v1']");
    } else if (admissionReviewVersions !== undefined && admissionReviewVersions.length === 0) {
      r.fail(`${who}: AdmissionReviewVersions is mandatory for v1 {Mutating,Validating}WebhookConfiguration`, "add admissionReviewVersions: ['v1']");
    }
    if (timeoutSeconds !== undefined && (timeoutSeconds < 1 || timeoutSeconds > 30)) {
      r.fail(`${who}: TimeoutSeconds must be between 1 and 30 seconds (found ${timeoutSeconds})`, 'use timeoutSeconds between 1 and 30, or omit it (default 10)');
    }
    const matchPolicy = matchPolicyRaw ? pick(matchPolicyRaw, MATCH_POLICIES) : undefined;
    if (matchPolicyRaw && !matchPolicy) r.shape(`${who}: unknown value "${matchPolicyRaw}" for matchPolicy`, "use matchPolicy: 'Exact' or 'Equivalent'");
    let reinvocationPolicy: string | undefined;
    if (reinvocationRaw !== undefined) {
      if (mutating === false) {
        r.fail(`${who}: reinvocationPolicy applies to mutating webhooks only`, 'remove reinvocationPolicy, or set mutating: true');
      } else {
        reinvocationPolicy = pick(reinvocationRaw, REINVOCATION_POLICIES);
        if (!reinvocationPolicy) r.shape(`${who}: unknown value "${reinvocationRaw}" for reinvocationPolicy`, "use reinvocationPolicy: 'Never' or 'IfNeeded'");
      }
    }
    const operations: string[] = [];
    for (const v of verbs) {
      const op = pick(v, OPERATIONS);
      if (!op) r.fail(`${who}: unknown verb "${v}"`, "verbs may be 'create', 'update', 'delete', 'connect' or '*'");
      else operations.push(op);
    }
    for (const [field, list] of [['groups', groups], ['resources', resources], ['verbs', verbs], ['versions', versions]] as const) {
      if (r.args[field] !== undefined && Array.isArray(r.args[field]) && list.length === 0) {
        r.fail(`${who}: '${field}' is empty`, `list at least one entry in ${field}`);
      }
    }
    if (diagnostics.length > before || name === undefined || mutating === undefined) continue;

    const rule: WebhookObject['rules'][number] = {};
    if (groups.length) rule.apiGroups = groups;
    if (versions.length) rule.apiVersions = versions;
    if (operations.length) rule.operations = operations;
    if (resources.length) rule.resources = resources;
    const hook: WebhookObject = {
      admissionReviewVersions: admissionReviewVersions!,
      clientConfig: path
        ? {
            service: {
              name: serviceName || 'webhook-service',
              namespace: serviceNamespace || 'system',
              path,
              ...(servicePort !== undefined ? { port: servicePort } : {}),
            },
          }
        : { url: url! },
      failurePolicy: failurePolicy!,
      name,
      rules: [rule],
      sideEffects: sideEffects!,
    };
    if (matchPolicy) hook.matchPolicy = matchPolicy;
    if (timeoutSeconds !== undefined) hook.timeoutSeconds = timeoutSeconds;
    if (reinvocationPolicy) hook.reinvocationPolicy = reinvocationPolicy;
    (mutating ? mutatingHooks : validatingHooks).push({ use, hook });
  }

  const objects: WebhookConfigurationObject[] = [];
  const build = (list: typeof mutatingHooks, kind: WebhookConfigurationObject['kind'], name: string) => {
    if (list.length === 0) return;
    // Stable sort by name (the input is in source order).
    const sorted = [...list].sort((a, b) => (a.hook.name < b.hook.name ? -1 : a.hook.name > b.hook.name ? 1 : 0));
    for (let i = 1; i < sorted.length; i++) {
      if (sorted[i].hook.name === sorted[i - 1].hook.name) {
        const { use } = sorted[i];
        const first = sorted[i - 1].use;
        diagnostics.push({
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
    objects.push({ apiVersion: 'admissionregistration.k8s.io/v1', kind, metadata: { name }, webhooks: sorted.map((s) => s.hook) });
  };
  build(mutatingHooks, 'MutatingWebhookConfiguration', names.mutating ?? DEFAULT_MUTATING_NAME);
  build(validatingHooks, 'ValidatingWebhookConfiguration', names.validating ?? DEFAULT_VALIDATING_NAME);
  return { objects, diagnostics };
}
