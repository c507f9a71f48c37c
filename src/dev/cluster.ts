/**
 * What `kubeforge dev` puts on the cluster: the project's CRDs (conversion webhooks pointed at the
 * local webhook server), its ClusterRole and its webhook configurations (every clientConfig a URL
 * to the local server with the dev CA as caBundle), all by server-side apply under the field
 * manager `kubeforge-dev` (so a large CRD needs no last-applied annotation). It records which
 * objects did not exist before the session, so that on exit it removes exactly those.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { RestClient } from '../runtime/client/rest.js';
import { isNotFound } from '../runtime/client/errors.js';
import {
  rewriteWebhookClientConfig,
  withConversionWebhook,
  type WebhookConfigurationObject,
} from '../testing/webhooks.js';
import type { CRDObject } from '../testing/crds.js';
import { CRD_DIR } from '../manifests/managed-files.js';
import { readYamlObjects } from '../manifests/yaml-documents.js';

export const FIELD_MANAGER = 'kubeforge-dev';

/** One object dev applied: its API path (no query) and a name for the log. */
export interface AppliedObject {
  path: string;
  kind: string;
  name: string;
}

export interface WebhookTarget {
  host: string;
  port: number;
  /** PEM of the CA that signed the serving certificate. */
  caPem: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A document of a project's manifests as dev reads it: config/ is written by kubeforge (each
 * object has a kind and a metadata.name); the rest of it is passed on as it is.
 */
export interface ManifestObject {
  kind: string;
  apiVersion?: string;
  metadata: { name: string; namespace?: string; [field: string]: unknown };
  [field: string]: unknown;
}

/** What applySamples reads of a CRD. */
interface CRDSpec {
  group: string;
  scope: string;
  names: { kind: string; plural: string };
}

/** The documents of a YAML file with a `kind` (comments-only documents dropped). */
export function readObjects(file: string): ManifestObject[] {
  const text = readFileSync(file, 'utf8');
  return readYamlObjects(text) as ManifestObject[];
}

/** config/crd/bases/*.yaml of the project, sorted (relative paths). */
export function crdFiles(projectDir: string): string[] {
  const dir = join(projectDir, CRD_DIR);
  try {
    return readdirSync(dir)
      .filter((f) => /\.ya?ml$/.test(f))
      .sort()
      .map((f) => `${CRD_DIR}/${f}`);
  } catch {
    return [];
  }
}

function pathOf(o: ManifestObject): string {
  const name = encodeURIComponent(o.metadata.name);
  switch (o.kind) {
    case 'CustomResourceDefinition':
      return `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`;
    case 'ClusterRole':
      return `/apis/rbac.authorization.k8s.io/v1/clusterroles/${name}`;
    case 'MutatingWebhookConfiguration':
      return `/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/${name}`;
    case 'ValidatingWebhookConfiguration':
      return `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${name}`;
    default:
      throw new Error(`kubeforge dev does not apply ${o.kind} objects`);
  }
}

/** Applies and remembers; see the module comment. */
export class DevInstaller {
  private readonly rest: RestClient;
  /** Objects dev created (absent before the session), by path. */
  private readonly created = new Map<string, AppliedObject>();
  /** Objects that existed before the session (never removed). */
  private readonly preexisting = new Set<string>();
  /** Webhook configurations applied by the last `applyWebhooks`, by path. */
  private webhooks = new Set<string>();
  /** CRDs seen Established by this session. */
  private readonly established = new Set<string>();

  constructor(
    readonly config: KubeConfig,
    readonly target: WebhookTarget,
  ) {
    this.rest = new RestClient(config);
  }

  /** Server-side applies one object (force: dev owns these fields while it runs). */
  async apply(o: ManifestObject, at?: string): Promise<AppliedObject> {
    const path = at ?? pathOf(o);
    const ref: AppliedObject = { path, kind: o.kind, name: o.metadata.name };
    if (!this.created.has(path) && !this.preexisting.has(path)) {
      try {
        await this.rest.get(path);
        this.preexisting.add(path);
      } catch (e) {
        if (!isNotFound(e)) throw e;
        this.created.set(path, ref);
      }
    }
    const body = JSON.parse(JSON.stringify(o));
    delete body.status;
    if (body.metadata) delete body.metadata.creationTimestamp;
    await this.rest.request('PATCH', path, {
      query: { fieldManager: FIELD_MANAGER, force: true },
      contentType: 'application/apply-patch+yaml',
      body,
      what: `apply ${o.kind} ${o.metadata.name}`,
    });
    return ref;
  }

  /** Applies the CRDs of these files (conversion webhooks pointed here) and waits until they are Established. */
  async applyCRDs(projectDir: string, files: string[], timeoutMs = 30_000): Promise<string[]> {
    const { host, port, caPem } = this.target;
    const caBundle = Buffer.from(caPem).toString('base64');
    const names: string[] = [];
    const fresh: string[] = [];
    for (const f of files) {
      for (const o of readObjects(join(projectDir, f))) {
        if (o.kind !== 'CustomResourceDefinition') continue;
        const before = this.established.has(o.metadata.name);
        await this.apply(withConversionWebhook(o as CRDObject, host, port, caBundle));
        names.push(o.metadata.name);
        if (!before) fresh.push(o.metadata.name);
      }
    }
    // A CRD seen Established stays so across updates (the new schema is served as soon as it is
    // stored): only the ones not seen yet are waited for.
    await this.waitEstablished(fresh, timeoutMs);
    for (const n of fresh) this.established.add(n);
    return names;
  }

  private async waitEstablished(names: string[], timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (const name of names) {
      for (;;) {
        const live = await this.rest.get(
          `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${encodeURIComponent(name)}`,
        );
        const conds: Array<{ type: string; status: string; message?: string }> = live.status?.conditions ?? [];
        if (conds.some((c) => c.type === 'Established' && c.status === 'True')) break;
        if (Date.now() > deadline)
          throw new Error(`CustomResourceDefinition ${name} not Established within ${timeoutMs} ms`);
        await sleep(25);
      }
    }
  }

  /** Applies the ClusterRoles of config/rbac/role.yaml (when there is one). */
  async applyRBAC(projectDir: string): Promise<string[]> {
    let objects: ManifestObject[];
    try {
      objects = readObjects(join(projectDir, 'config/rbac/role.yaml'));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw e;
    }
    const names: string[] = [];
    for (const o of objects) {
      if (o.kind !== 'ClusterRole') continue;
      await this.apply(o);
      names.push(o.metadata.name);
    }
    return names;
  }

  /**
   * Applies config/webhook/manifests.yaml's configurations pointed at the local server; one this
   * session applied before and the file no longer holds is deleted.
   */
  async applyWebhooks(projectDir: string): Promise<string[]> {
    let objects: ManifestObject[] = [];
    try {
      objects = readObjects(join(projectDir, 'config/webhook/manifests.yaml'));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    const { host, port, caPem } = this.target;
    const caBundle = Buffer.from(caPem).toString('base64');
    const now = new Set<string>();
    const names: string[] = [];
    for (const o of objects) {
      if (o.kind !== 'MutatingWebhookConfiguration' && o.kind !== 'ValidatingWebhookConfiguration') continue;
      const ref = await this.apply(rewriteWebhookClientConfig(o as WebhookConfigurationObject, host, port, caBundle));
      now.add(ref.path);
      names.push(`${o.kind} ${o.metadata.name}`);
    }
    for (const path of this.webhooks) {
      if (!now.has(path) && this.created.has(path)) await this.remove(path);
    }
    this.webhooks = now;
    return names;
  }

  /**
   * Applies the objects of config/samples/*.yaml (kustomization.yaml aside) whose Kind is one of
   * the project's CRDs (config/crd/bases), in `default` when namespaced and no namespace is given.
   * Returns what was applied and what was skipped (a built-in Kind, a Kind without CRD), by name.
   */
  async applySamples(projectDir: string): Promise<{ applied: string[]; skipped: string[] }> {
    const crds = new Map<string, { plural: string; namespaced: boolean }>();
    for (const f of crdFiles(projectDir)) {
      for (const c of readObjects(join(projectDir, f))) {
        if (c.kind === 'CustomResourceDefinition') {
          const spec = c.spec as CRDSpec;
          crds.set(`${spec.group}/${spec.names.kind}`, {
            plural: spec.names.plural,
            namespaced: spec.scope === 'Namespaced',
          });
        }
      }
    }
    const dir = join(projectDir, 'config/samples');
    let files: string[] = [];
    try {
      files = readdirSync(dir)
        .filter((f) => /\.ya?ml$/.test(f) && !/^kustomization\.ya?ml$/.test(f))
        .sort();
    } catch {
      return { applied: [], skipped: [] };
    }
    const applied: string[] = [];
    const skipped: string[] = [];
    for (const f of files) {
      for (const o of readObjects(join(dir, f))) {
        const [group, version] = String(o.apiVersion ?? '').includes('/')
          ? String(o.apiVersion).split('/')
          : ['', String(o.apiVersion ?? '')];
        const crd = crds.get(`${group}/${o.kind}`);
        const name = o.metadata?.name;
        if (!crd || !name) {
          skipped.push(`${o.kind} ${name ?? '(no name)'} (${f})`);
          continue;
        }
        const ns = crd.namespaced ? (o.metadata.namespace ?? 'default') : undefined;
        const path = `/apis/${group}/${version}/${ns ? `namespaces/${encodeURIComponent(ns)}/` : ''}${crd.plural}/${encodeURIComponent(name)}`;
        await this.apply(o, path);
        applied.push(`${o.kind} ${ns ? `${ns}/` : ''}${name}`);
      }
    }
    return { applied, skipped };
  }

  private async remove(path: string): Promise<void> {
    try {
      await this.rest.request('DELETE', path);
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
    this.created.delete(path);
  }

  /** What this session created, webhook configurations first (so no call goes to a server that is gone). */
  get createdObjects(): AppliedObject[] {
    const order = (o: AppliedObject) =>
      o.kind.endsWith('WebhookConfiguration')
        ? 0
        : o.kind === 'ClusterRole'
          ? 2
          : o.kind === 'CustomResourceDefinition'
            ? 3
            : 1;
    return [...this.created.values()].sort((a, b) => order(a) - order(b) || a.path.localeCompare(b.path));
  }

  /** Deletes every object this session created (objects that existed before are left); returns them. */
  async removeCreated(): Promise<AppliedObject[]> {
    const gone = this.createdObjects;
    for (const o of gone) await this.remove(o.path);
    return gone;
  }

  close(): void {
    this.rest.close();
  }
}
