/**
 * One test body for both tiers of `kubeforge test`: {@link startTestAPI} gives a test the API
 * server of the tier it runs in, the fake one in the unit tier, the real one otherwise.
 *
 * ```ts
 * const api = await startTestAPI({ crdDirectoryPaths: ['config/crd/bases'] });
 * try {
 *   const client = api.client();
 *   ...
 *   if (api.tier === 'full') { ... an assertion only kube-apiserver holds (garbage collection) }
 * } finally { await api.stop(); }
 * ```
 *
 * The runner names the tier in {@link TEST_TIER_ENV}: `unit` for the processes of its unit tier,
 * `full` for those of the control-plane tier (a file named `*.both.test.js` runs in both). A file
 * run alone (`node --test build/test/...`) with the variable unset runs the full tier: a real API
 * server, which TestEnvironment starts itself when no shared one is published.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { ClientOptions } from '../runtime/client/client.js';
import type { Client } from '../runtime/contracts.js';
import { checkOptions, type OptionNames } from '../runtime/options.js';
import type { TestEnvironment } from './environment.js';
import type { FakeAPIServer } from './fake/index.js';

/** The environment variable in which `kubeforge test` tells a test process its tier. */
export const TEST_TIER_ENV = 'KUBEFORGE_TEST_TIER';

/**
 * A tier of `kubeforge test`: `unit`, on kubeforge/testing's FakeAPIServer in the test's own
 * process (no control plane); `full`, on a real etcd + kube-apiserver (TestEnvironment).
 */
export type TestTier = 'unit' | 'full';

/**
 * The tier this process runs in, from {@link TEST_TIER_ENV}: `full` when it is unset or empty.
 * Throws for any other value than `unit` or `full` (a misspelt tier would otherwise run the
 * full tier silently).
 */
export function testTier(): TestTier {
  const value = process.env[TEST_TIER_ENV];
  if (value === undefined || value === '' || value === 'full') return 'full';
  if (value === 'unit') return 'unit';
  throw new Error(`kubeforge/testing: ${TEST_TIER_ENV}=${JSON.stringify(value)} names no tier (unit or full)`);
}

export interface TestAPIOptions {
  /** Files or folders of CRD YAML to serve (as TestEnvironment's and FakeAPIServer's). */
  crdDirectoryPaths?: string[];
  /** Fail when a crdDirectoryPaths entry does not exist (default false: skip it). */
  errorIfCRDPathMissing?: boolean;
  /** The tier to start (default: {@link testTier}, the one the runner names). */
  tier?: TestTier;
}

const TEST_API_OPTION_NAMES: OptionNames<TestAPIOptions> = {
  crdDirectoryPaths: true,
  errorIfCRDPathMissing: true,
  tier: true,
};

/** The API server {@link startTestAPI} started for a test. */
export interface TestAPI {
  /** The tier it serves: choose a tier's own assertion with it (`api.tier === 'full'`). */
  readonly tier: TestTier;
  /** The admin KubeConfig (for newManager, newClient). */
  readonly config: KubeConfig;
  /** The fake API server, in the unit tier. */
  readonly fake?: FakeAPIServer;
  /** The control plane (joined or started), in the full tier. */
  readonly environment?: TestEnvironment;
  /** A client reading live from the server (to arrange and assert). */
  client(options?: Omit<ClientOptions, 'cache' | 'rest'>): Client;
  /** Stops the fake server, or leaves the control plane (stopping it when this test started it); idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts the API server of the tier this test runs in (see the module's comment): in the unit
 * tier a FakeAPIServer of its own, serving the CRDs; in the full tier a TestEnvironment, which
 * joins the control plane `kubeforge test` shares (installing the CRDs, a no-op when unchanged)
 * or starts one when the file runs alone.
 *
 * On error: rejects as FakeAPIServer.start() or TestEnvironment.start() do (CRD files that do not
 * parse, a missing folder with errorIfCRDPathMissing, missing binaries in the full tier), with
 * nothing left running; throws for an unknown option or tier.
 */
export async function startTestAPI(options: TestAPIOptions = {}): Promise<TestAPI> {
  checkOptions('startTestAPI', options, TEST_API_OPTION_NAMES);
  const tier = options.tier ?? testTier();
  if (tier !== 'unit' && tier !== 'full')
    throw new Error(`startTestAPI: tier ${JSON.stringify(tier)} names no tier (unit or full)`);
  const crds = {
    crdDirectoryPaths: options.crdDirectoryPaths ?? [],
    errorIfCRDPathMissing: options.errorIfCRDPathMissing ?? false,
  };
  let stopped: Promise<void> | undefined;
  // Imported here: the test runner reads TEST_TIER_ENV from this module without loading either server.
  if (tier === 'unit') {
    const { FakeAPIServer } = await import('./fake/index.js');
    const fake = await FakeAPIServer.start(crds);
    return {
      tier,
      config: fake.config,
      fake,
      client: (o = {}) => fake.client(o),
      stop: () => (stopped ??= fake.stop()),
    };
  }
  const [{ TestEnvironment }, { newClient }] = await Promise.all([
    import('./environment.js'),
    import('../runtime/client/client.js'),
  ]);
  const environment = new TestEnvironment(crds);
  const config = await environment.start();
  return {
    tier,
    config,
    environment,
    client: (o = {}) => newClient(config, o),
    stop: () => (stopped ??= environment.stop()),
  };
}
