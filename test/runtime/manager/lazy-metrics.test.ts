/**
 * A manager whose metrics nobody reads or serves never loads prom-client's index or its default
 * process metrics (60-200 ms per process, see src/runtime/client/prom.ts); the first reader gets
 * the same metrics, in the same order, as when they were registered at newManager.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { must } from '../../helpers/must.js';

const runtimeURL = new URL('../../../src/runtime/index.js', import.meta.url).href;
const testingURL = new URL('../../../src/testing/index.js', import.meta.url).href;

/**
 * Runs in a new process: a manager with a controller on the fake API server reconciles a
 * ConfigMap, then prints which prom-client files were loaded, reads the registry, and prints
 * the metric names in exposition order next to those of a registry built the eager way.
 */
const script = `
import { createRequire } from 'node:module';
const { controllerManagedBy, newManager, newLogger } = await import(${JSON.stringify(runtimeURL)});
const { FakeAPIServer, eventually } = await import(${JSON.stringify(testingURL)});
const require = createRequire(${JSON.stringify(runtimeURL)});
const loaded = () => Object.keys(require.cache).filter((f) => f.includes('/prom-client/')).map((f) => f.slice(f.indexOf('/prom-client/') + 13)).sort();
const fake = await FakeAPIServer.start();
const mgr = newManager(fake.config, { logger: newLogger({ level: 'silent' }) });
const seen = [];
controllerManagedBy(mgr).named('lazy').for({ apiVersion: 'v1', kind: 'ConfigMap' }).complete({ reconcile: async (req) => { seen.push(req.name); return {}; } });
const ac = new AbortController();
const done = mgr.start(ac.signal);
await fake.client().create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1', namespace: 'default' } });
await eventually(() => seen.includes('c1'), { timeout: 10_000, interval: 10 });
const before = loaded();
const registry = mgr.getMetricsRegistry();
const names = registry.getMetricsAsArray().map((m) => m.name);
const text = await registry.metrics();
ac.abort();
await done;
await fake.stop();
const prom = require('prom-client');
const eager = new prom.Registry();
prom.collectDefaultMetrics({ register: eager });
console.log(JSON.stringify({ before, names, defaults: eager.getMetricsAsArray().map((m) => m.name), text, same: registry instanceof prom.Registry }));
`;

describe('Manager metrics, loaded on first read', () => {
  it('a manager running a controller, its metrics unread, loads no default metrics; reading them registers the defaults first', () => {
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(must(r.stdout.trim().split('\n').pop(), "r.stdout.trim().split('\\n').pop()")) as {
      before: string[];
      names: string[];
      defaults: string[];
      text: string;
      same: boolean;
    };
    assert.ok(out.before.length > 0, 'the controller metrics loaded prom-client classes');
    assert.ok(!out.before.includes('index.js'), `prom-client's index was loaded: ${out.before.join(', ')}`);
    assert.ok(
      !out.before.includes('lib/defaultMetrics.js'),
      `the default metrics were loaded: ${out.before.join(', ')}`,
    );
    // The manager's registry is prom-client's own Registry class.
    assert.ok(out.same);
    // As when collectDefaultMetrics ran in newManager: the defaults first, in prom-client's order...
    assert.ok(out.defaults.length > 10);
    assert.deepEqual(out.names.slice(0, out.defaults.length), out.defaults);
    // ...then what the manager and the controller registered, in their order.
    const rest = out.names.slice(out.defaults.length);
    assert.equal(rest[0], 'rest_client_requests_total');
    assert.ok(rest.includes('controller_runtime_reconcile_total'));
    assert.match(out.text, /^process_cpu_user_seconds_total /m);
    assert.match(out.text, /^controller_runtime_reconcile_total\{controller="lazy",result="success"\} [1-9]/m);
    assert.match(out.text, /^rest_client_requests_total\{code="200",method="GET",host="127\.0\.0\.1:\d+"\} [1-9]/m);
  });
});
