// A manager whose controller watches many types prints no MaxListenersExceededWarning: every watch
// listens on the controller's signal while the caches sync, by design (a Go port with a for()
// and ten owns() saw the warning on every start).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  type KubeConfig,
  V1ConfigMap,
  V1DaemonSet,
  V1Deployment,
  V1Job,
  V1CronJob,
  V1Pod,
  V1Secret,
  V1Service,
  V1ServiceAccount,
  V1StatefulSet,
  V1ReplicaSet,
} from '@kubernetes/client-node';
import type { TestEnvironment } from '../../../src/testing/index.js';
import { controllerManagedBy } from '../../../src/runtime/controller/index.js';
import { newManager } from '../../../src/runtime/manager/index.js';
import { startEnv, testLogger, waitFor, Widget } from './harness.js';

describe('listeners', () => {
  let env: TestEnvironment;
  let config: KubeConfig;
  before(async () => {
    ({ env, config } = await startEnv());
  });
  after(async () => {
    await env?.stop();
  });

  it('a controller with for() and eleven owns() starts without a warning', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    const mgr = newManager(config, { logger: testLogger() });
    const owned = [
      V1ConfigMap,
      V1Secret,
      V1Service,
      V1ServiceAccount,
      V1Pod,
      V1Deployment,
      V1StatefulSet,
      V1DaemonSet,
      V1ReplicaSet,
      V1Job,
      V1CronJob,
    ];
    let b = controllerManagedBy(mgr).for(Widget);
    for (const t of owned) b = b.owns(t);
    let reconciled = false;
    b.complete(async () => {
      reconciled = true;
      return {};
    });
    const stop = new AbortController();
    const running = mgr.start(stop.signal);
    try {
      await Promise.race([mgr.elected(), running]);
      await waitFor('the caches to sync', () => mgr.getCache().waitForCacheSync(AbortSignal.timeout(30_000)), 30_000);
      // Let the event loop emit any pending process warnings.
      await new Promise((r) => setTimeout(r, 200));
    } finally {
      stop.abort();
      await running;
      process.off('warning', onWarning);
    }
    assert.equal(reconciled, false, 'no Widget exists: nothing to reconcile');
    assert.deepEqual(warnings, []);
  });
});
