/**
 * Tests without an API server: an in-memory Kubernetes API served over HTTP on 127.0.0.1 by this
 * process, that keeps resourceVersion, generation, finalizers and the status subresource as the
 * API server does and runs the project's CRDs (pruning, defaults, value validations, CEL rules).
 * Everything of kubeforge/runtime runs over it unchanged: the client, informers, a whole manager.
 *
 * ```ts
 * const fake = await newFakeClient({ crdDirectoryPaths: ['config/crd/bases'], objects: [memcached] });
 * try { await reconciler.reconcile(...); } finally { await fake.close(); }
 * ```
 *
 * It honours the Mutating- and ValidatingWebhookConfigurations stored in it, calling each matching
 * webhook over HTTPS at its clientConfig.url as kube-apiserver does (./admission.ts, ./webhooks.ts),
 * and serves a CustomResourceDefinition written through its API at once, established, until it is
 * deleted (./crdapi.ts): `kubeforge dev --fake` applies a project's CRDs and webhook configurations
 * to `FakeAPIServer.start()` and points the manager at `fake.config` / `fake.url`.
 *
 * What it does not do (docs/testing.md, "Testing without an API server"): conversion webhooks,
 * webhooks reached through a Service (only clientConfig.url),
 * garbage collection, built-in Kinds' validation beyond metadata and field types (their defaults it
 * applies: ./builtin.ts), RBAC.
 */
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import { localKubeConfig } from '../../runtime/client/kubeconfig.js';
import { newClient, type ClientOptions } from '../../runtime/client/client.js';
import { RestClient } from '../../runtime/client/rest.js';
import { statusErrorFrom, type StatusError } from '../../runtime/client/errors.js';
import type { Client } from '../../runtime/contracts.js';
import { checkOptions, type OptionNames } from '../../runtime/options.js';
import { readCRDFiles, type CRDObject } from '../crds.js';
import { FakeServer, type TracedRequest } from './server.js';
export type { TracedRequest } from './server.js';
import { ApiStatus } from './status.js';
import type { Obj } from '../../apiserver/json.js';

export interface FakeAPIServerOptions {
  /** CRD objects to serve. */
  crds?: CRDObject[];
  /** Files or folders of CRD YAML (as TestEnvironment's crdDirectoryPaths). */
  crdDirectoryPaths?: string[];
  /** Fail when a crdDirectoryPaths entry does not exist (default false: skip it, as TestEnvironment). */
  errorIfCRDPathMissing?: boolean;
  /** Objects present from the start (created in order; a status given is kept). Namespaces they name are created. */
  objects?: KubernetesObject[];
}

const FAKE_API_SERVER_OPTION_NAMES: OptionNames<FakeAPIServerOptions> = {
  crds: true,
  crdDirectoryPaths: true,
  errorIfCRDPathMissing: true,
  objects: true,
};

/** A running fake API server. `stop()` ends it (and every watch). */
export class FakeAPIServer {
  private constructor(
    private readonly server: FakeServer,
    readonly url: string,
    readonly config: KubeConfig,
  ) {}

  static async start(options: FakeAPIServerOptions = {}): Promise<FakeAPIServer> {
    checkOptions('FakeAPIServer.start', options, FAKE_API_SERVER_OPTION_NAMES, { initObjects: 'objects' });
    const crds = [
      ...(options.crds ?? []),
      ...readCRDFiles(options.crdDirectoryPaths ?? [], options.errorIfCRDPathMissing ?? false),
    ];
    // The CEL engine is loaded only for CRDs with rules, never when kubeforge/testing is imported
    // (TestEnvironment users never pay for it).
    const server = new FakeServer(crds as unknown as Obj[], async () => (await import('#cel')).validateObject);
    await server.ready();
    for (const o of options.objects ?? []) seed(server, o as unknown as Obj);
    const url = await server.listen();
    // A KubeConfig that loads no client-node unless the test uses more of it than the REST client does.
    const config = localKubeConfig({
      clusters: [{ name: 'fake', server: url, skipTLSVerify: true }],
      users: [{ name: 'fake' }],
      contexts: [{ name: 'fake', cluster: 'fake', user: 'fake', namespace: 'default' }],
      currentContext: 'fake',
    });
    return new FakeAPIServer(server, url, config);
  }

  /** A client of this server (live reads, as `TestEnvironment.getClient`). */
  client(options: Omit<ClientOptions, 'cache' | 'rest'> = {}): Client {
    return newClient(this.config, options);
  }

  /**
   * What the API server would say to creating `obj` (a dry run): undefined when it would be
   * accepted, else the StatusError (422 Invalid with the field causes, 404 for a missing namespace...).
   */
  validate(obj: KubernetesObject): StatusError | undefined {
    return this.check(() => {
      const r = this.resource(obj);
      this.server.store.create(r, (obj.metadata?.namespace ?? undefined) as string | undefined, obj, {
        dryRun: true,
        warnings: [],
      });
    });
  }

  /** What the API server would say to updating `oldObj` (which must exist here) to `obj`: as {@link validate}. */
  validateUpdate(oldObj: KubernetesObject, obj: KubernetesObject): StatusError | undefined {
    return this.check(() => {
      const r = this.resource(obj);
      const ns = (obj.metadata?.namespace ?? undefined) as string | undefined;
      const name = String(obj.metadata?.name ?? '');
      const current = this.server.store.find(r, ns, name);
      if (!current)
        throw new ApiStatus(
          404,
          'NotFound',
          `the old object ${name} is not stored in the fake API server: create it first`,
        );
      void oldObj;
      const body = {
        ...obj,
        metadata: { ...(obj.metadata ?? {}), resourceVersion: (current.metadata as Obj).resourceVersion },
      };
      this.server.store.update(r, ns, name, body, undefined, { dryRun: true, warnings: [] });
    });
  }

  private resource(obj: KubernetesObject) {
    const r = this.server.resourceFor(String(obj.apiVersion ?? ''), String(obj.kind ?? ''));
    if (!r) throw new ApiStatus(404, 'NotFound', `no matches for kind "${obj.kind}" in version "${obj.apiVersion}"`);
    return r;
  }

  private check(f: () => void): StatusError | undefined {
    try {
      f();
      return undefined;
    } catch (e) {
      if (e instanceof ApiStatus) return statusErrorFrom(e.code, e.body());
      throw e;
    }
  }

  /**
   * The requests that carried a W3C `traceparent` (the runtime's client sends one under an active
   * span, see docs/observability.md), in arrival order. The fake has no spans of its own: it passes
   * the header on unchanged to the admission webhooks a write calls.
   */
  tracedRequests(): readonly TracedRequest[] {
    return this.server.traced;
  }

  async stop(): Promise<void> {
    await this.server.close();
  }
}

/** A client of a fresh fake API server, with the server at hand; `close()` stops both. */
export interface FakeClient extends Client {
  readonly server: FakeAPIServer;
  close(): Promise<void>;
}

/**
 * Starts a fake API server with `options` and returns a client of it (controller-runtime's
 * `fake.NewClientBuilder().WithObjects(...).Build()`, answering as the API server does where
 * test/fake/differential.test.ts and test/fake/fuzz.test.ts compare them; see their known differences).
 */
export async function newFakeClient(options: FakeAPIServerOptions & { fieldOwner?: string } = {}): Promise<FakeClient> {
  checkOptions(
    'newFakeClient',
    options,
    { ...FAKE_API_SERVER_OPTION_NAMES, fieldOwner: true },
    { initObjects: 'objects' },
  );
  const { fieldOwner, ...serverOptions } = options;
  const server = await FakeAPIServer.start(serverOptions);
  const rest = new RestClient(server.config);
  const client = newClient(server.config, { rest, fieldOwner }) as FakeClient;
  Object.defineProperty(client, 'server', { value: server });
  Object.defineProperty(client, 'close', {
    value: async () => {
      rest.close();
      await server.stop();
    },
  });
  return client;
}

function seed(server: FakeServer, o: Obj): void {
  const r = server.resourceFor(String(o.apiVersion ?? ''), String(o.kind ?? ''));
  if (!r)
    throw new Error(
      `newFakeClient: ${String(o.apiVersion)} ${String(o.kind)} is not served (give its CRD in crds or crdDirectoryPaths)`,
    );
  const m = (o.metadata ?? {}) as Obj;
  const ns = r.namespaced ? String(m.namespace ?? 'default') : undefined;
  const nsRes = server.requireResource('v1', 'Namespace');
  if (ns && !server.store.find(nsRes, undefined, ns))
    server.store.create(
      nsRes,
      undefined,
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
      { dryRun: false, warnings: [] },
    );
  const ctx = { dryRun: false, warnings: [] };
  try {
    const created = server.store.create(r, ns, o, ctx);
    if (o.status !== undefined && r.status) {
      server.store.update(
        r,
        ns,
        String((created.metadata as Obj).name),
        { ...created, status: o.status },
        'status',
        ctx,
      );
    }
  } catch (e) {
    if (e instanceof ApiStatus)
      throw new Error(
        `newFakeClient: object ${String(o.kind)} ${String(m.name ?? m.generateName ?? '')}: ${e.message}`,
      );
    throw e;
  }
}
