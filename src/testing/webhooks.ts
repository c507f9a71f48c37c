/**
 * Webhook installation for TestEnvironment (envtest's WebhookInstallOptions): reading
 * Mutating/ValidatingWebhookConfigurations from files, pointing every webhook (and every CRD's
 * conversion webhook) at a local HTTPS server, and installing or removing the configurations.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import net from 'node:net';
import type { KubeConfig } from '@kubernetes/client-node';
import { RestClient } from '../runtime/client/rest.js';
import { StatusError, isNotFound } from '../runtime/client/errors.js';
import { isMapping, manifestFiles, parseManifestObjects, type CRDObject } from './crds.js';

/**
 * Options of TestEnvironment's webhook installation (`TestEnvironmentOptions.webhookInstallOptions`).
 * The names are envtest's.
 */
export interface WebhookInstallOptions {
  /**
   * Files or folders (not recursive; *.yaml, *.yml, *.json, multi-document YAML) holding
   * MutatingWebhookConfigurations and ValidatingWebhookConfigurations, e.g. a project's
   * `config/webhook`. Documents of other kinds (the Service, a kustomization) are ignored.
   */
  paths?: string[];
  /** MutatingWebhookConfiguration objects to install besides those of `paths`. */
  mutatingWebhooks?: object[];
  /** ValidatingWebhookConfiguration objects to install besides those of `paths`. */
  validatingWebhooks?: object[];
  /** Host the API server calls and the serving certificate is issued for (default '127.0.0.1'). */
  localServingHost?: string;
  /** Port the API server calls (default: a free port chosen by start()). */
  localServingPort?: number;
  /**
   * Fail start() when a `paths` entry does not exist (default false: skip it, as
   * `errorIfCRDPathMissing` does for CRDs).
   */
  errorIfPathMissing?: boolean;
}

/** Where the webhook server of a test must listen, known once TestEnvironment.start() has run. */
export interface WebhookServingInfo {
  /** Host in every webhook URL (the serving certificate is valid for it). */
  localServingHost: string;
  /** Port in every webhook URL. */
  localServingPort: number;
  /** Private folder with `tls.crt` and `tls.key`, the serving certificate and its key (removed by stop()). */
  localServingCertDir: string;
  /** The PEM certificate of the CA that signed the serving certificate (the API server trusts it). */
  localServingCAData: string;
}

/** Options for a webhook server matching the installed configurations: `{ host, port, certDir }` of `newWebhookServer`. */
export interface WebhookServingOptions {
  host: string;
  port: number;
  certDir: string;
}

/** A failure while reading or installing webhook configurations; `file`/`line` locate bad input when known. */
export class WebhookInstallError extends Error {
  readonly file?: string;
  readonly line?: number;
  /** `cause`: the API error behind it (a StatusError: `isInvalid(err.cause)`...), when there was one. */
  constructor(message: string, loc: { file?: string; line?: number; cause?: unknown } = {}) {
    super(
      loc.file ? `${loc.file}${loc.line ? `:${loc.line}` : ''}: ${message}` : message,
      loc.cause === undefined ? undefined : { cause: loc.cause },
    );
    this.name = 'WebhookInstallError';
    this.file = loc.file;
    this.line = loc.line;
  }
}

/** One webhook of a configuration, as plain JSON. */
export interface WebhookObject {
  name: string;
  clientConfig?: {
    url?: string;
    service?: { name?: string; namespace?: string; path?: string; port?: number };
    caBundle?: string;
  };
  [k: string]: unknown;
}

/** A Mutating- or ValidatingWebhookConfiguration as plain JSON (admissionregistration.k8s.io/v1 or v1beta1). */
export interface WebhookConfigurationObject {
  apiVersion: string;
  kind: 'MutatingWebhookConfiguration' | 'ValidatingWebhookConfiguration';
  metadata: { name: string; [k: string]: unknown };
  webhooks?: WebhookObject[];
  [k: string]: unknown;
}

const KINDS = new Set(['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration']);
const webhookError = (message: string, loc: { file?: string; line?: number }) => new WebhookInstallError(message, loc);

function checkConfiguration(
  o: Record<string, unknown>,
  where: { file?: string; line?: number },
  kind?: WebhookConfigurationObject['kind'],
): WebhookConfigurationObject {
  const c = JSON.parse(JSON.stringify(o)) as Record<string, unknown>;
  if (kind) {
    c.kind ??= kind;
    c.apiVersion ??= 'admissionregistration.k8s.io/v1';
    if (c.kind !== kind) throw new WebhookInstallError(`expected a ${kind}, got kind ${JSON.stringify(c.kind)}`, where);
  }
  const name = isMapping(c.metadata) ? c.metadata.name : undefined;
  const what = `${c.kind}${name ? ` ${name}` : ''}`;
  if (typeof c.apiVersion !== 'string' || !c.apiVersion.startsWith('admissionregistration.k8s.io/')) {
    throw new WebhookInstallError(
      `${what} has apiVersion ${JSON.stringify(c.apiVersion)}; expected admissionregistration.k8s.io/v1`,
      where,
    );
  }
  if (typeof name !== 'string' || !name) throw new WebhookInstallError(`${c.kind} without metadata.name`, where);
  if (c.webhooks !== undefined && c.webhooks !== null && !Array.isArray(c.webhooks))
    throw new WebhookInstallError(`${what}: webhooks must be a list`, where);
  for (const [i, w] of (Array.isArray(c.webhooks) ? (c.webhooks as unknown[]) : []).entries()) {
    if (!isMapping(w) || typeof w.name !== 'string' || !w.name)
      throw new WebhookInstallError(`${what}: webhooks[${i}] has no name`, where);
    const cc = w.clientConfig;
    if (cc !== undefined && !isMapping(cc))
      throw new WebhookInstallError(`${what}: webhook ${w.name}: clientConfig must be a mapping`, where);
    if (cc?.url !== undefined) {
      try {
        new URL(String(cc.url));
      } catch {
        throw new WebhookInstallError(
          `${what}: webhook ${w.name}: clientConfig.url ${JSON.stringify(cc.url)} is not a URL`,
          where,
        );
      }
    }
  }
  return c as unknown as WebhookConfigurationObject;
}

/**
 * Parses one (multi-document) YAML or JSON text and returns its webhook configurations; other
 * kinds are skipped. Throws WebhookInstallError with file:line on a YAML syntax error, a document
 * that is not a mapping, or a configuration without metadata.name, with a webhook without name or
 * with a malformed clientConfig.
 */
export function parseWebhookFile(file: string, text: string): WebhookConfigurationObject[] {
  return parseManifestObjects(file, text, webhookError)
    .filter(({ object }) => KINDS.has(String(object.kind)))
    .map(({ object, line }) => checkConfiguration(object, { file, line }));
}

/**
 * Reads the webhook configurations of the given files and folders (sorted file order). A missing
 * path is skipped, or with `errorIfPathMissing` a WebhookInstallError naming it; bad files throw
 * like {@link parseWebhookFile}.
 */
export function readWebhookFiles(paths: string[], errorIfPathMissing = false): WebhookConfigurationObject[] {
  const missing =
    'webhook path does not exist (fix the path, or leave webhookInstallOptions.errorIfPathMissing unset to skip it)';
  return manifestFiles(paths, errorIfPathMissing, missing, webhookError).flatMap((file) =>
    parseWebhookFile(file, readFileSync(file, 'utf8')),
  );
}

/**
 * All configurations of `options` (files first, then mutatingWebhooks, then validatingWebhooks),
 * checked and deep-copied. Throws WebhookInstallError like {@link readWebhookFiles}; a given object
 * without kind/apiVersion gets the kind of its list and admissionregistration.k8s.io/v1.
 */
export function collectWebhookConfigurations(options: WebhookInstallOptions): WebhookConfigurationObject[] {
  const out = readWebhookFiles(options.paths ?? [], options.errorIfPathMissing);
  for (const [key, kind] of [
    ['mutatingWebhooks', 'MutatingWebhookConfiguration'],
    ['validatingWebhooks', 'ValidatingWebhookConfiguration'],
  ] as const) {
    for (const [i, o] of (options[key] ?? []).entries()) {
      if (!isMapping(o)) throw new WebhookInstallError(`webhookInstallOptions.${key}[${i}] is not an object`);
      out.push(checkConfiguration(o, { file: `webhookInstallOptions.${key}[${i}]` }, kind));
    }
  }
  return out;
}

/** `https://<host>:<port><path>`, with brackets around an IPv6 host. */
export function webhookURL(host: string, port: number, path = ''): string {
  const h = net.isIPv6(host) ? `[${host}]` : host;
  const p = path && !path.startsWith('/') ? `/${path}` : path;
  return `https://${h}:${port}${p}`;
}

/**
 * A copy of `config` whose every webhook calls `https://<host>:<port><path>` with `caBundle`:
 * the path is the service's (`clientConfig.service.path`), or the existing url's path when the
 * webhook uses `url` (the API server permits no query). The service is dropped.
 */
export function rewriteWebhookClientConfig(
  config: WebhookConfigurationObject,
  host: string,
  port: number,
  caBundle: string,
): WebhookConfigurationObject {
  const c = JSON.parse(JSON.stringify(config)) as WebhookConfigurationObject;
  for (const w of c.webhooks ?? []) {
    const cc = w.clientConfig ?? {};
    let path = cc.service?.path ?? '';
    if (!cc.service && cc.url) {
      path = new URL(cc.url).pathname;
    }
    w.clientConfig = { url: webhookURL(host, port, path), caBundle };
  }
  return c;
}

/**
 * A copy of `crd` whose conversion webhook (when `spec.conversion.strategy` is `Webhook`) calls
 * `https://<host>:<port>/convert` with `caBundle`; conversionReviewVersions are kept (default
 * ['v1']). A v1beta1 CRD gets `spec.conversion.webhookClientConfig`. Other CRDs are returned as is.
 */
export function withConversionWebhook(crd: CRDObject, host: string, port: number, caBundle: string): CRDObject {
  const conversion = crd.spec.conversion;
  if (!isMapping(conversion) || conversion.strategy !== 'Webhook') return crd;
  const c = JSON.parse(JSON.stringify(crd)) as CRDObject;
  const conv = c.spec.conversion as Record<string, unknown>;
  const clientConfig = { url: webhookURL(host, port, '/convert'), caBundle };
  if (c.apiVersion === 'apiextensions.k8s.io/v1beta1') {
    conv.webhookClientConfig = clientConfig;
    conv.conversionReviewVersions ??= ['v1beta1'];
  } else {
    const webhook = isMapping(conv.webhook) ? conv.webhook : {};
    conv.webhook = { ...webhook, clientConfig, conversionReviewVersions: webhook.conversionReviewVersions ?? ['v1'] };
  }
  return c;
}

function resourcePath(c: WebhookConfigurationObject, name?: string): string {
  const plural =
    c.kind === 'MutatingWebhookConfiguration' ? 'mutatingwebhookconfigurations' : 'validatingwebhookconfigurations';
  return `/apis/${c.apiVersion}/${plural}${name ? `/${encodeURIComponent(name)}` : ''}`;
}

function wrap(c: WebhookConfigurationObject, verb: string, e: unknown): WebhookInstallError {
  return new WebhookInstallError(
    `${verb} ${c.kind} ${c.metadata.name} failed: ${e instanceof Error ? e.message : String(e)}`,
    { cause: e },
  );
}

/**
 * Creates every configuration (replacing one of the same name that exists). Resolves with what the
 * API server stored; rejects with WebhookInstallError carrying the server's message.
 */
export async function installWebhookConfigurations(
  config: KubeConfig,
  configs: WebhookConfigurationObject[],
): Promise<WebhookConfigurationObject[]> {
  const rest = new RestClient(config);
  const out: WebhookConfigurationObject[] = [];
  try {
    for (const c of configs) {
      const body = JSON.parse(JSON.stringify(c));
      delete body.metadata.resourceVersion;
      try {
        out.push(await rest.request('POST', resourcePath(c), { body }));
        continue;
      } catch (e) {
        if (!(e instanceof StatusError && e.code === 409)) throw wrap(c, 'installing', e);
      }
      // Already there (an earlier run or a shared cluster): replace it with this definition.
      for (let attempt = 0; ; attempt++) {
        try {
          const existing = await rest.get(resourcePath(c, c.metadata.name));
          body.metadata = { ...body.metadata, resourceVersion: existing.metadata.resourceVersion };
          out.push(await rest.request('PUT', resourcePath(c, c.metadata.name), { body }));
          break;
        } catch (e) {
          if (e instanceof StatusError && e.code === 409 && attempt < 5) continue;
          throw wrap(c, 'installing', e);
        }
      }
    }
    return out;
  } finally {
    rest.close();
  }
}

/**
 * Deletes the given configurations; one already gone is not an error. Tries every one and then
 * rejects with a WebhookInstallError naming the first failure, if any.
 */
export async function uninstallWebhookConfigurations(
  config: KubeConfig,
  configs: WebhookConfigurationObject[],
): Promise<void> {
  const rest = new RestClient(config);
  let first: Error | undefined;
  try {
    for (const c of configs) {
      try {
        await rest.request('DELETE', resourcePath(c, c.metadata.name));
      } catch (e) {
        if (!isNotFound(e)) first ??= wrap(c, 'deleting', e);
      }
    }
  } finally {
    rest.close();
  }
  if (first) throw first;
}

/**
 * Waits until the API server calls the webhook configurations installed so far. It learns of new
 * configurations through an informer, so for a moment after they are created requests pass
 * unchecked; a test that creates an object right after start() would then prove nothing.
 *
 * How: a sentinel Mutating- and ValidatingWebhookConfiguration, created after the real ones and
 * matching only ConfigMaps that carry a random label, point at a probe HTTPS server briefly
 * listening on the serving address (the test's own webhook server starts later). Dry-run creates
 * of such a ConfigMap are repeated until the probe has answered both: the API server rebuilds its
 * webhook list of each kind from one informer, in order, so the real configurations are in use
 * too. The sentinels are deleted and the probe closed before this resolves. Rejects with a
 * WebhookInstallError after `timeoutMs` (default 30 s); cleans up either way.
 */
export async function waitForWebhooksActive(
  config: KubeConfig,
  serving: { host: string; port: number; cert: string; key: string; caBundle: string },
  timeoutMs = 30_000,
): Promise<void> {
  const id = randomBytes(6).toString('hex');
  const name = `kubeforge-envtest-sentinel-${id}`;
  const seen = new Set<string>();
  const probe = createServer({ cert: serving.cert, key: serving.key }, (req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      let uid = '';
      try {
        uid = (JSON.parse(body) as { request?: { uid?: string } }).request?.uid ?? '';
      } catch {
        // answered below without a uid: the API server then refuses it, and we retry
      }
      seen.add(new URL(req.url ?? '/', 'https://probe').pathname); // the API server adds ?timeout=5s
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          apiVersion: 'admission.k8s.io/v1',
          kind: 'AdmissionReview',
          response: { uid, allowed: true },
        }),
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(serving.port, serving.host, () => resolve());
  });
  const webhook = (kind: 'mutate' | 'validate') => ({
    name: `${kind}.${name}.kubeforge.io`,
    admissionReviewVersions: ['v1'],
    sideEffects: 'None',
    failurePolicy: 'Fail',
    timeoutSeconds: 5,
    clientConfig: { url: webhookURL(serving.host, serving.port, `/${name}/${kind}`), caBundle: serving.caBundle },
    objectSelector: { matchLabels: { 'kubeforge.io/envtest-sentinel': id } },
    rules: [
      { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'], scope: 'Namespaced' },
    ],
  });
  const sentinels: WebhookConfigurationObject[] = [
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name },
      webhooks: [webhook('mutate')],
    } as WebhookConfigurationObject,
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name },
      webhooks: [webhook('validate')],
    } as WebhookConfigurationObject,
  ];
  const rest = new RestClient(config);
  try {
    await installWebhookConfigurations(config, sentinels);
    const deadline = Date.now() + timeoutMs;
    const cm = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { generateName: 'sentinel-', namespace: 'default', labels: { 'kubeforge.io/envtest-sentinel': id } },
    };
    for (;;) {
      try {
        await rest.request('POST', '/api/v1/namespaces/default/configmaps', { body: cm, query: { dryRun: 'All' } });
      } catch {
        // The probe is called before it is trusted, or not at all yet: try again.
      }
      if (seen.has(`/${name}/mutate`) && seen.has(`/${name}/validate`)) return;
      if (Date.now() > deadline) {
        throw new WebhookInstallError(
          `the API server did not start calling the installed webhooks within ${timeoutMs} ms`,
        );
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    rest.close();
    await uninstallWebhookConfigurations(config, sentinels).catch(() => {});
    await new Promise<void>((r) => {
      probe.close(() => r());
      probe.closeAllConnections();
    });
  }
}
