// Sharded managers in separate processes (replica-child.ts) on kube-apiserver 1.37.2: every object
// reconciled by exactly one replica, and a join, a graceful stop, a SIGKILL and a SIGSTOP past the
// lease lose nothing and overlap nothing. Judged from outside the replicas:
// - the member Leases, polled every 100 ms: no two live members ever hold a common range;
// - the Secrets the replicas write (`data.by`): each object ends up owned by the replica the ring
//   of live members gives it;
// - the replicas' audit lines: for each object, no two replicas' reconciles overlap in time (a
//   reconcile that was frozen by SIGSTOP is judged by its write, which the fence must refuse).
// With the ShardedListAndWatch gate on (uid sharding, the server filters) and off (uid and
// namespace sharding, the informers filter).
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { KubeConfig } from '@kubernetes/client-node';
import { TestEnvironment } from '../../../src/testing/index.js';
import { RestClient } from '../../../src/runtime/client/rest.js';
import {
  type HashRange,
  assignRanges,
  coverage,
  fnv1a64,
  intersectRanges,
  ownerOf,
  subtractRanges,
  unionRanges,
} from '../../../src/runtime/sharding/index.js';
import { type AuditLine, type RingLease, readAudit, ringLeases, spawnReplica } from './harness.js';
import { eventually, sleep } from '../manager/helpers.js';
import { must } from '../../helpers/must.js';

const LEASE_MS = 3000;
const TIMINGS = `${LEASE_MS},2000,300`;
const RING = 'test-ring';
// Names whose FNV-1a hashes spread over the space (team-a..team-f would all land on one member:
// see docs/scaling.md), so that namespace sharding gives every replica some.
const NAMESPACES = ['payments', 'search', 'ledger', 'auth', 'billing', 'mail', 'inventory', 'shipping'];

interface Replica {
  id: string;
  lease: string;
  child: ChildProcess;
  lines: string[];
  exited: Promise<number | null>;
  audit: string;
}

type Lease = RingLease;

class Cluster {
  readonly replicas = new Map<string, Replica>();
  readonly dir = mkdtempSync(join(tmpdir(), 'kf-shard-'));
  readonly overlaps: string[] = [];
  private polling = true;
  private poller?: Promise<void>;
  /** Object name -> uid, namespace. */
  readonly objects = new Map<string, { uid: string; namespace: string }>();

  constructor(
    readonly env: TestEnvironment,
    readonly rest: RestClient,
    readonly field: 'uid' | 'namespace',
  ) {}

  start(id: string): Replica {
    const audit = join(this.dir, `${id}.audit`);
    const { child, lines, exited } = spawnReplica({
      KF_KUBECONFIG: this.env.kubeconfigPath,
      KF_ID: id,
      KF_RING: RING,
      KF_FIELD: this.field,
      KF_AUDIT: audit,
      KF_TIMINGS: TIMINGS,
    });
    const r: Replica = { id, lease: '', child, lines, exited, audit };
    this.replicas.set(id, r);
    return r;
  }

  leases(): Promise<Lease[]> {
    return ringLeases(this.rest, RING);
  }

  /** Leases renewed within their duration (a frozen or killed member's expires). */
  async liveLeases(): Promise<Lease[]> {
    const now = Date.now();
    return (await this.leases()).filter((l) => now - l.renewMs < LEASE_MS);
  }

  /** Polls the Leases: no two live members may hold a common range, ever. */
  watchLeases(): void {
    this.poller = (async () => {
      while (this.polling) {
        const live = await this.liveLeases().catch(() => []);
        for (let i = 0; i < live.length; i++)
          for (let j = i + 1; j < live.length; j++) {
            const common = intersectRanges(live[i].held, live[j].held);
            if (common.length)
              this.overlaps.push(`${live[i].holder} and ${live[j].holder} both hold ${coverage(common)} of the space`);
          }
        await sleep(100);
      }
    })();
  }

  /** Waits until exactly `ids` are live and each holds exactly its consistent-hashing share; returns the assignment. */
  async settled(ids: string[], what: string): Promise<Map<string, HashRange[]>> {
    return eventually(
      async () => {
        const live = await this.liveLeases();
        const holders = live.map((l) => l.holder).sort();
        if (holders.join() !== [...ids].sort().join()) return undefined;
        const want = assignRanges(live.map((l) => l.name));
        for (const l of live) {
          const w = must(want.get(l.name), 'want.get(l.name)');
          if (subtractRanges(w, l.held).length || subtractRanges(l.held, w).length) return undefined;
        }
        return new Map(live.map((l) => [l.holder, l.held]));
      },
      what,
      60_000,
    ) as Promise<Map<string, HashRange[]>>;
  }

  pointOf(name: string): bigint {
    const o = must(this.objects.get(name), 'this.objects.get(name)');
    return fnv1a64(this.field === 'uid' ? o.uid : o.namespace);
  }

  async create(prefix: string, count: number): Promise<string[]> {
    const names: string[] = [];
    for (let i = 0; i < count; i += 10)
      await Promise.all(
        Array.from({ length: Math.min(10, count - i) }, async (_, k) => {
          const name = `${prefix}-${i + k}`;
          const namespace = NAMESPACES[(i + k) % NAMESPACES.length];
          const cm = await this.rest.request<{ metadata: { uid: string } }>(
            'POST',
            `/api/v1/namespaces/${namespace}/configmaps`,
            {
              body: {
                apiVersion: 'v1',
                kind: 'ConfigMap',
                metadata: { name, namespace, labels: { 'kubeforge.test/sharded': 'yes' } },
              },
            },
          );
          this.objects.set(name, { uid: cm.metadata.uid, namespace });
          names.push(name);
        }),
      );
    return names;
  }

  /** The id whose Secret says it reconciled `name` last (undefined: no Secret yet). */
  async writer(name: string): Promise<string | undefined> {
    const { namespace } = must(this.objects.get(name), 'this.objects.get(name)');
    const s = await this.rest
      .request<{ data?: { by?: string } }>('GET', `/api/v1/namespaces/${namespace}/secrets/${name}-owned`)
      .catch(() => undefined);
    return s?.data?.by ? Buffer.from(s.data.by, 'base64').toString() : undefined;
  }

  /** Waits until every object's Secret was written by the replica that owns it under `assignment`. */
  async reconciledByOwners(names: string[], assignment: Map<string, HashRange[]>, what: string): Promise<void> {
    await eventually(
      async () => {
        for (const n of names) {
          const owner = ownerOf(assignment, this.pointOf(n));
          if ((await this.writer(n)) !== owner) return false;
        }
        return true;
      },
      what,
      60_000,
    );
  }

  audit(): AuditLine[] {
    return readAudit([...this.replicas.values()].map((r) => r.audit));
  }

  /**
   * Pairs of reconciles of one object by two replicas that overlap in time. A reconcile of a
   * replica that was frozen (`frozen`: id -> [stop, cont] wall-clock ms) across the freeze is left
   * out when its write was refused or it wrote nothing: its effect is nil, which is what the
   * fence promises. Everything else counts.
   */
  overlapping(frozen: Map<string, [number, number]>): string[] {
    const byKey = new Map<string, AuditLine[]>();
    for (const a of this.audit()) {
      const f = frozen.get(a.id);
      if (f && a.start < f[1] && a.end > f[0] && a.wrote !== 'ok') continue;
      let l = byKey.get(a.key);
      if (!l) {
        l = [];
        byKey.set(a.key, l);
      }
      l.push(a);
    }
    const out: string[] = [];
    for (const [key, l] of byKey) {
      l.sort((x, y) => x.start - y.start);
      for (let i = 0; i < l.length; i++)
        for (let j = i + 1; j < l.length && l[j].start < l[i].end; j++)
          if (l[j].id !== l[i].id)
            out.push(`${key}: ${l[i].id} [${l[i].start}, ${l[i].end}) and ${l[j].id} [${l[j].start}, ${l[j].end})`);
    }
    return out;
  }

  async stop(): Promise<void> {
    this.polling = false;
    await this.poller;
    for (const r of this.replicas.values()) {
      if (r.child.exitCode === null && r.child.signalCode === null) {
        r.child.kill('SIGCONT');
        r.child.kill('SIGKILL');
      }
      await r.exited;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

async function startCluster(gate: boolean, field: 'uid' | 'namespace'): Promise<Cluster> {
  const env = new TestEnvironment(gate ? { featureGates: { ShardedListAndWatch: true } } : {});
  const config: KubeConfig = await env.start();
  const rest = new RestClient(config);
  for (const ns of NAMESPACES)
    await rest.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
    });
  const c = new Cluster(env, rest, field);
  c.watchLeases();
  return c;
}

async function stopCluster(c: Cluster | undefined): Promise<void> {
  if (!c) return;
  await c.stop();
  c.rest.close();
  await c.env.stop();
}

/**
 * The whole scenario, on one cluster: three replicas split the ring; owned objects follow their
 * owner; a fourth joins; one stops gracefully; one is SIGKILLed; one is SIGSTOPped past its lease
 * and resumed. Nothing lost, nothing reconciled twice at once, no two live members holding a
 * common range.
 */
async function scenario(c: Cluster, t: { diagnostic(s: string): void }): Promise<void> {
  for (const id of ['r1', 'r2', 'r3']) c.start(id);
  let assignment = await c.settled(['r1', 'r2', 'r3'], 'three replicas share the ring');
  assert.equal(coverage(unionRanges([], [...assignment.values()].flat())), 1, 'the ring covers the space');
  const first = await c.create('cm', 30);
  await c.reconciledByOwners(first, assignment, 'every object reconciled by its owner');
  // Nobody reconciled an object outside its own ranges.
  for (const a of c.audit()) {
    const owner = ownerOf(assignment, c.pointOf(a.key.split('/')[1]));
    assert.equal(a.id, owner, `${a.key} reconciled by ${a.id}, owner ${owner}`);
  }

  // Owned objects follow their owner: a deleted Secret brings its owner's reconcile, on the owner's replica.
  const deletedAt = Date.now();
  for (const n of first.slice(0, 6))
    await c.rest.request(
      'DELETE',
      `/api/v1/namespaces/${must(c.objects.get(n), 'c.objects.get(n)').namespace}/secrets/${n}-owned`,
    );
  await c.reconciledByOwners(first.slice(0, 6), assignment, 'deleted Secrets written again by their owners');
  const after = c.audit().filter((a) => a.start >= deletedAt);
  assert.ok(after.length >= 6, 'the deletions were reconciled');
  for (const a of after)
    assert.equal(a.id, ownerOf(assignment, c.pointOf(a.key.split('/')[1])), `${a.key} handled by its owner's replica`);

  // A join moves about 1/N of the space.
  const before3 = assignment;
  c.start('r4');
  assignment = await c.settled(['r1', 'r2', 'r3', 'r4'], 'r4 joined');
  let moved = 0;
  for (const [id, ranges] of before3) moved += coverage(subtractRanges(ranges, assignment.get(id) ?? []));
  t.diagnostic(`join: ${(moved * 100).toFixed(1)} % of the space moved (ideal 25 %)`);
  assert.ok(moved <= 1.5 / 4, `a join moved ${moved} of the space`);
  const joined = await c.create('after-join', 12);
  await c.reconciledByOwners([...first, ...joined], assignment, 'all objects owned under four replicas');

  // Graceful stop: r1 leaves the ring at once.
  const r1 = must(c.replicas.get('r1'), "c.replicas.get('r1')");
  r1.child.kill('SIGTERM');
  assert.equal(await r1.exited, 0, `r1 stopped cleanly: ${r1.lines.join(' | ')}`);
  assignment = await c.settled(['r2', 'r3', 'r4'], 'r1 left');
  const afterStop = await c.create('after-stop', 12);
  await c.reconciledByOwners([...first, ...joined, ...afterStop], assignment, 'objects of r1 taken over');

  // SIGKILL: r2's ranges are taken after its Lease expires.
  const r2 = must(c.replicas.get('r2'), "c.replicas.get('r2')");
  const killedAt = Date.now();
  r2.child.kill('SIGKILL');
  const afterKill = await c.create('after-kill', 12);
  assignment = await c.settled(['r3', 'r4'], 'r2 expired');
  await c.reconciledByOwners(afterKill, assignment, 'objects created after the kill reconciled');
  t.diagnostic(`SIGKILL: reconciled again after ${Date.now() - killedAt} ms (lease ${LEASE_MS} ms)`);
  await c.reconciledByOwners([...first, ...joined, ...afterStop], assignment, 'r2 objects taken over');

  // SIGSTOP past the lease: r4 takes everything; r3, resumed, writes nothing and exits.
  const r3 = must(c.replicas.get('r3'), "c.replicas.get('r3')");
  const stoppedAt = Date.now();
  r3.child.kill('SIGSTOP');
  await sleep(LEASE_MS + 1000);
  const afterFreeze = await c.create('after-freeze', 12);
  assignment = await c.settled(['r4'], 'r3 expired while frozen');
  await c.reconciledByOwners([...first, ...afterFreeze], assignment, 'r4 reconciles everything');
  const contAt = Date.now();
  r3.child.kill('SIGCONT');
  assert.equal(await r3.exited, 1, 'the resumed replica exits');
  assert.match(
    must(
      r3.lines.find((l) => l.startsWith('exit ')),
      "r3.lines.find((l) => l.startsWith('exit '))",
    ),
    /sharding membership lost|sharding ring/,
  );
  const r3After = c.audit().filter((a) => a.id === 'r3' && a.end > contAt);
  assert.ok(
    r3After.every((a) => a.wrote !== 'ok'),
    `no write of r3 after its resume succeeded: ${JSON.stringify(r3After)}`,
  );

  const overlaps = c.overlapping(new Map([['r3', [stoppedAt, contAt]]]));
  assert.deepEqual(overlaps, [], 'no object reconciled by two replicas at once');
  assert.deepEqual(c.overlaps, [], 'no two live members ever held a common range');
  const all = [...c.objects.keys()];
  await c.reconciledByOwners(all, assignment, 'no object lost');
}

// Gate on: the informers list and watch with the server's shardSelector. Gate off: they receive
// everything and filter themselves (uid), and namespace sharding places whole namespaces.
for (const [gate, field] of [
  [true, 'uid'],
  [false, 'uid'],
  [false, 'namespace'],
] as const) {
  describe(`sharded replicas, ShardedListAndWatch ${gate ? 'on' : 'off'}, ${field} sharding`, () => {
    let c: Cluster;
    before(async () => {
      c = await startCluster(gate, field);
    });
    after(() => stopCluster(c));

    it('split, owned objects, join, graceful stop, SIGKILL and SIGSTOP: nothing lost, nothing reconciled twice at once', (t) =>
      scenario(c, t));
  });
}
