// Options under unknown names are refused, never ignored (DESIGN habit 16): a JavaScript caller, a
// typo or an option renamed since got no type error, and the option kept its default without a
// word (`gracefulShutdownTimeout: 1000` left the manager at 30 s). Every public entry point of
// kubeforge/runtime and kubeforge/testing that takes an options object is tried with an unknown
// key here; none needs an API server (each refuses before it connects).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { newCache } from '../../src/runtime/cache/index.js';
import { mergePatch, newClient } from '../../src/runtime/client/index.js';
import { BuilderError, controllerManagedBy, enqueueRequestForOwner } from '../../src/runtime/controller/index.js';
import { getConfigOrDie, newLogger, newManager } from '../../src/runtime/manager/index.js';
import { LeaderElector } from '../../src/runtime/manager/leaderelection.js';
import { closestName, UnknownOptionError } from '../../src/runtime/options.js';
import { setControllerReference } from '../../src/runtime/util/index.js';
import { newWebhookServer } from '../../src/runtime/webhook/index.js';
import {
  consistently,
  eventually,
  FakeAPIServer,
  installCRDs,
  newFakeClient,
  TestEnvironment,
} from '../../src/testing/index.js';

function offlineConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: 'https://127.0.0.1:1', skipTLSVerify: true }],
    users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kc;
}

const silent = () => newLogger({ level: 'error', destination: { write: () => undefined } });

/** Options a JavaScript caller (or an old release's user) may pass: not of the options type. */
const js = (o: Record<string, unknown>): never => o as never;

/** The UnknownOptionError `fn` throws (or rejects with). */
async function refusal(fn: () => unknown): Promise<UnknownOptionError> {
  try {
    await fn();
  } catch (e) {
    assert.ok(e instanceof UnknownOptionError, `an UnknownOptionError, got ${String(e)}`);
    assert.ok(e instanceof TypeError);
    return e;
  }
  assert.fail('the unknown option was accepted');
}

describe('unknown option names are refused with the valid names', () => {
  it('newManager({ gracefulShutdownTimeout: 1000 }): the old name is refused and the new one named', async () => {
    const e = await refusal(() => newManager(offlineConfig(), js({ gracefulShutdownTimeout: 1000, logger: silent() })));
    assert.match(
      e.message,
      /^newManager: unknown option "gracefulShutdownTimeout" \(renamed: use "gracefulShutdownTimeoutMs"\)/,
    );
    assert.match(e.message, /valid options: cache, client, fieldOwner, fieldValidation, gracefulShutdownTimeoutMs, /);
    assert.deepEqual(e.keys, ['gracefulShutdownTimeout']);
    assert.ok(e.validKeys.includes('leaderElectionID'));
    assert.equal(e.code, 'ERR_KUBEFORGE_UNKNOWN_OPTION');
  });

  it('the durations renamed to ...Ms, and options moved into cache, name where they went', async () => {
    for (const [old, now] of [
      ['leaseDuration', 'leaseDurationMs'],
      ['renewDeadline', 'renewDeadlineMs'],
      ['retryPeriod', 'retryPeriodMs'],
      ['syncPeriod', 'cache.syncPeriodMs'],
      ['namespace', 'cache.defaultNamespaces'],
    ]) {
      const e = await refusal(() => newManager(offlineConfig(), js({ [old]: 1, logger: silent() })));
      assert.match(e.message, new RegExp(`unknown option "${old}" \\(renamed: use "${now.replace('.', '\\.')}"\\)`));
    }
    const nested = await refusal(() => newManager(offlineConfig(), js({ cache: { syncPeriod: 1 }, logger: silent() })));
    assert.match(nested.message, /^newManager: cache: unknown option "syncPeriod" \(renamed: use "syncPeriodMs"\)/);
    const controller = await refusal(() =>
      // The builder reports from complete(); the Controller itself refuses at once.
      newCache(offlineConfig(), js({ syncTimeout: 5 })),
    );
    assert.match(controller.message, /^newCache: unknown option "syncTimeout" \(renamed: use "syncTimeoutMs"\)/);
  });

  it('a misspelt name gets the closest valid one, a far one none; several are all named', async () => {
    const e = await refusal(() => newManager(offlineConfig(), js({ leaderElectonID: 'x', logger: silent() })));
    assert.match(e.message, /unknown option "leaderElectonID" \(did you mean "leaderElectionID"\?\)/);
    const far = await refusal(() => newManager(offlineConfig(), js({ replicas: 3, logger: silent() })));
    assert.match(far.message, /unknown option "replicas"; valid options: /);
    const two = await refusal(() => newManager(offlineConfig(), js({ zz: 1, aa: 2, logger: silent() })));
    assert.deepEqual(two.keys, ['aa', 'zz']);
    assert.equal(two.message.split('\n').length, 2);
    assert.equal(
      closestName('GRACEFULSHUTDOWNTIMEOUTMS', ['gracefulShutdownTimeoutMs', 'fieldOwner']),
      'gracefulShutdownTimeoutMs',
    );
  });

  it('nested manager options are checked: cache, cache.byObject[], client, client.cache, metrics, webhookServer', async () => {
    for (const [options, where] of [
      [{ cache: { defaultNamespace: ['a'] } }, 'newManager: cache'],
      [
        { cache: { byObject: [{ object: { apiVersion: 'v1', kind: 'Pod' }, label: 'x' }] } },
        'newManager: cache.byObject[0]',
      ],
      [{ client: { readYourOwnWrite: true } }, 'newManager: client'],
      [{ client: { cache: { disable: [] } } }, 'newManager: client.cache'],
      [{ metrics: { bindAddr: '0' } }, 'newManager: metrics'],
      [{ webhookServer: { prot: 9443 } }, 'newManager: webhookServer'],
    ] as const) {
      const e = await refusal(() => newManager(offlineConfig(), js({ ...options, logger: silent() })));
      assert.ok(e.message.startsWith(`${where}: unknown option`), e.message);
    }
  });

  it('every valid name is accepted (undefined values too), and a manager gets the value', () => {
    const mgr = newManager(offlineConfig(), {
      gracefulShutdownTimeoutMs: 1000,
      leaseDurationMs: undefined,
      cache: { syncPeriodMs: 1000, byObject: [] },
      client: { cache: { disableFor: [] }, readYourOwnWrites: true },
      metrics: { bindAddress: '0' },
      webhookServer: { port: 0 },
      logger: silent(),
    });
    assert.ok(mgr);
    assert.ok(newManager(offlineConfig(), { webhookServer: newWebhookServer({ port: 0 }), logger: silent() }));
  });

  it('runtime entry points: newClient, newCache, newWebhookServer, Controller options, for/owns/watches, owner helpers, getConfigOrDie, newLogger', async () => {
    const cases: [string, () => unknown][] = [
      [
        'newClient: unknown option "disableFor" (renamed: use "cacheDisableFor")',
        () => newClient(offlineConfig(), js({ disableFor: [] })),
      ],
      [
        'newCache: unknown option "namespace" (renamed: use "namespaces")',
        () => newCache(offlineConfig(), js({ namespace: 'a' })),
      ],
      [
        'newCache: byObject[0]: unknown option "selector"',
        () =>
          newCache(offlineConfig(), js({ byObject: [{ object: { apiVersion: 'v1', kind: 'Pod' }, selector: 'a' }] })),
      ],
      [
        'newWebhookServer: unknown option "requestTimeout" (renamed: use "requestTimeoutMs")',
        () => newWebhookServer(js({ requestTimeout: 1 })),
      ],
      [
        'cache.get: unknown option "signall" (did you mean "signal"?)',
        () =>
          newCache(offlineConfig()).get({ apiVersion: 'v1', kind: 'Pod' }, { name: 'a' }, js({ signall: undefined })),
      ],
      [
        'cache.list: unknown option "labels" (renamed: use "labelSelector")',
        () => newCache(offlineConfig()).list({ apiVersion: 'v1', kind: 'Pod' }, js({ labels: 'a=b' })),
      ],
      [
        'enqueueRequestForOwner: unknown option "isController"',
        () => enqueueRequestForOwner({ apiVersion: 'v1', kind: 'Pod' }, js({ isController: true })),
      ],
      [
        'setControllerReference: unknown option "blockOwnerDeletions"',
        () =>
          setControllerReference(
            { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a', uid: 'u' } },
            { metadata: {} },
            js({ blockOwnerDeletions: true }),
          ),
      ],
      [
        'getConfigOrDie: unknown option "kubeConfig" (did you mean "kubeconfig"?)',
        () => getConfigOrDie(js({ kubeConfig: '/x' })),
      ],
      ['newLogger: unknown option "logLevel" (renamed: use "level")', () => newLogger(js({ logLevel: 'info' }))],
      [
        'LeaderElector: unknown option "leaseDuration" (renamed: use "leaseDurationMs")',
        () => new LeaderElector(js({ rest: {}, namespace: 'a', name: 'b', logger: silent(), leaseDuration: 1 })),
      ],
    ];
    for (const [message, fn] of cases) {
      const e = await refusal(fn);
      assert.ok(e.message.startsWith(message), `${e.message}\nshould start with\n${message}`);
    }
  });

  it('the controller builder defers the refusal to complete(), with its other problems', () => {
    const mgr = newManager(offlineConfig(), { logger: silent() });
    const builder = controllerManagedBy(mgr)
      .for({ apiVersion: 'v1', kind: 'Pod' }, js({ predicate: [] }))
      .owns({ apiVersion: 'v1', kind: 'ConfigMap' }, js({ onlyController: true }))
      .withOptions(js({ cacheSyncTimeout: 1000, maxConcurrentReconciles: 2 }));
    assert.throws(
      () => builder.complete(() => ({})),
      (e: unknown) => {
        assert.ok(e instanceof BuilderError);
        assert.match(
          e.message,
          /withOptions\(\): unknown option "cacheSyncTimeout" \(renamed: use "cacheSyncTimeoutMs"\)/,
        );
        assert.match(e.message, /for\(\): unknown option "predicate" \(did you mean "predicates"\?\)/);
        assert.match(
          e.message,
          /owns\(ConfigMap\): unknown option "onlyController" \(did you mean "onlyControllerOwner"\?\)/,
        );
        return true;
      },
    );
  });

  it("each client call's options: get, list, create, update, patch, apply, delete, deleteAllOf, status() writes (a rejection, nothing sent)", async () => {
    const client = await newFakeClient({
      objects: [
        { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'n' }, data: { v: '1' } } as never,
      ],
    });
    try {
      const type = { apiVersion: 'v1', kind: 'ConfigMap' };
      const key = { namespace: 'n', name: 'a' };
      const cm = await client.get(type, key);
      const cases: [string, () => Promise<unknown>][] = [
        ['get: unknown option "abortSignal"', () => client.get(type, key, js({ abortSignal: undefined }))],
        [
          'list: unknown option "labels" (renamed: use "labelSelector")',
          () => client.list(type, js({ namespace: 'n', labels: 'a=b' })),
        ],
        [
          'create: unknown option "fieldOwner" (renamed: use "fieldManager")',
          () => client.create({ ...cm, metadata: { name: 'b', namespace: 'n' } }, js({ fieldOwner: 'me' })),
        ],
        ['update: unknown option "dryrun" (did you mean "dryRun"?)', () => client.update(cm, js({ dryrun: true }))],
        [
          'patch: unknown option "forced" (did you mean "force"?)',
          () => client.patch(cm, mergePatch({ data: { v: '2' } }), js({ forced: true })),
        ],
        [
          'apply: unknown option "fieldManger" (did you mean "fieldManager"?)',
          () =>
            client.apply(
              { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'n' } },
              js({ fieldManger: 'me' }),
            ),
        ],
        [
          'delete: unknown option "propagation" (renamed: use "propagationPolicy")',
          () => client.delete(cm, js({ propagation: 'Foreground' })),
        ],
        [
          'deleteAllOf: unknown option "gracePeriod" (renamed: use "gracePeriodSeconds")',
          () => client.deleteAllOf(type, js({ namespace: 'n', gracePeriod: 0 })),
        ],
        ['status().update: unknown option "dryrun"', () => client.status().update(cm, js({ dryrun: true }))],
        [
          'status().patch: unknown option "forced"',
          () => client.status().patch(cm, mergePatch({}), js({ forced: true })),
        ],
        ['get: unknown option "cached"', () => client.apiReader().get(type, key, js({ cached: false }))],
      ];
      for (const [message, call] of cases) {
        const e = await refusal(call);
        assert.ok(e.message.startsWith(message), `${e.message}\nshould start with\n${message}`);
      }
      // Nothing was written: the object is as it was, and there is no second one.
      assert.deepEqual((await client.get(type, key)) as unknown as { data: unknown }, { ...cm, data: { v: '1' } });
      assert.equal((await client.list(type, { namespace: 'n' })).items.length, 1);
    } finally {
      await client.close();
    }
  });

  it('testing entry points: TestEnvironment, FakeAPIServer.start, newFakeClient, installCRDs, eventually, consistently', async () => {
    const cases: [string, () => unknown][] = [
      [
        'TestEnvironment: unknown option "crdPaths" (renamed: use "crdDirectoryPaths")',
        () => new TestEnvironment(js({ crdPaths: [] })),
      ],
      [
        'TestEnvironment: webhookInstallOptions: unknown option "path" (renamed: use "paths")',
        () => new TestEnvironment(js({ webhookInstallOptions: { path: ['config/webhook'] } })),
      ],
      [
        'FakeAPIServer.start: unknown option "initObjects" (renamed: use "objects")',
        () => FakeAPIServer.start(js({ initObjects: [] })),
      ],
      [
        'newFakeClient: unknown option "fieldManager" (did you mean "fieldOwner"?)',
        () => newFakeClient(js({ fieldManager: 'me' })),
      ],
      [
        'installCRDs: unknown option "timeout" (renamed: use "timeoutMs")',
        () => installCRDs(offlineConfig(), js({ timeout: 1 })),
      ],
      [
        'eventually: unknown option "timeoutMs" (renamed: use "timeout")',
        () => eventually(() => true, js({ timeoutMs: 1 })),
      ],
      [
        'consistently: unknown option "durationMs" (renamed: use "duration")',
        () => consistently(() => true, js({ durationMs: 1 })),
      ],
    ];
    for (const [message, fn] of cases) {
      const e = await refusal(fn);
      assert.ok(e.message.startsWith(message), `${e.message}\nshould start with\n${message}`);
    }
    // The deprecated names TestEnvironment still takes stay accepted.
    assert.ok(new TestEnvironment({ controlPlaneStartTimeout: 1000, crdInstallTimeout: 1000 }));
    const fake = await newFakeClient({ fieldOwner: 'me', objects: [] });
    await fake.close();
  });
});
