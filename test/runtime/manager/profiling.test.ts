// The manager's profiling endpoint (controller-runtime's PprofBindAddress): off by default; when
// bound, a CPU profile and a heap snapshot in the formats Node's tools open. The manager runs on
// kubeforge/testing's fake API server: profiling asks nothing of Kubernetes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newManager, type Manager } from '../../../src/runtime/manager/index.js';
import { FakeAPIServer } from '../../../src/testing/index.js';
import { quiet } from './helpers.js';
import { must } from '../../helpers/must.js';

async function fetchText(url: string): Promise<{ status: number; body: string; type: string | null }> {
  const r = await fetch(url);
  return { status: r.status, body: await r.text(), type: r.headers.get('content-type') };
}

describe('Manager profiling endpoint (pprofBindAddress)', () => {
  let fake: FakeAPIServer;
  let mgr: Manager;
  const ac = new AbortController();
  let done: Promise<void>;
  let base: string;

  before(async () => {
    fake = await FakeAPIServer.start();
    mgr = newManager(fake.config, { pprofBindAddress: '127.0.0.1:0', logger: quiet() });
    done = mgr.start(ac.signal);
    await mgr.started();
    base = `http://127.0.0.1:${must(mgr.getPprofAddress(), 'mgr.getPprofAddress()').port}`;
  });
  after(async () => {
    ac.abort();
    await done;
    await fake.stop();
  });

  it('is off unless asked for', async () => {
    const plain = newManager(fake.config, { logger: quiet() });
    const stop = new AbortController();
    const running = plain.start(stop.signal);
    await plain.started();
    assert.equal(plain.getPprofAddress(), undefined);
    stop.abort();
    await running;
    assert.throws(
      () => newManager(fake.config, { pprofBindAddress: 'localhost', logger: quiet() }),
      /pprofBindAddress "localhost" is not a valid bind address/,
    );
  });

  it('lists what it serves, and answers 404 elsewhere', async () => {
    const index = await fetchText(`${base}/debug/pprof/`);
    assert.equal(index.status, 200);
    assert.match(index.body, /\/debug\/pprof\/profile\?seconds=30/);
    assert.match(index.body, /\/debug\/pprof\/heap/);
    assert.equal((await fetchText(`${base}/debug/pprof/goroutine`)).status, 404);
  });

  it('takes a CPU profile of the asked seconds (a .cpuprofile), one at a time', async () => {
    const started = Date.now();
    const first = fetch(`${base}/debug/pprof/profile?seconds=1`);
    await new Promise((r) => setTimeout(r, 200));
    const second = await fetchText(`${base}/debug/pprof/profile?seconds=1`);
    assert.equal(second.status, 409);
    const r = await first;
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-disposition') ?? '', /cpu\.cpuprofile/);
    const profile = (await r.json()) as { nodes: unknown[]; samples: number[]; startTime: number; endTime: number };
    assert.ok(Date.now() - started >= 1000, 'it sampled for the second asked');
    assert.ok(profile.nodes.length > 0 && Array.isArray(profile.samples));
    assert.ok(
      profile.endTime - profile.startTime >= 900_000,
      `profile spans ${profile.endTime - profile.startTime} µs`,
    );
  });

  it('refuses a duration it cannot honour', async () => {
    for (const s of ['0', '301', 'abc', '1.5']) {
      const r = await fetchText(`${base}/debug/pprof/profile?seconds=${s}`);
      assert.equal(r.status, 400, s);
      assert.match(r.body, /seconds must be a whole number from 1 to 300/);
    }
  });

  it('writes a V8 heap snapshot (a .heapsnapshot)', async () => {
    const r = await fetch(`${base}/debug/pprof/heap`);
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-disposition') ?? '', /heap\.heapsnapshot/);
    const snapshot = (await r.json()) as {
      snapshot: { meta: { node_fields: string[] }; node_count: number };
      nodes: number[];
    };
    assert.ok(snapshot.snapshot.meta.node_fields.includes('name'));
    assert.ok(snapshot.snapshot.node_count > 1000);
    assert.equal(snapshot.nodes.length, snapshot.snapshot.node_count * snapshot.snapshot.meta.node_fields.length);
  });
});
