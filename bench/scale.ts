/**
 * Scaling out (issue #39): what N sharded replicas of one operator buy, measured in one run on one
 * kube-apiserver 1.37.2 with the ShardedListAndWatch gate on (so each replica lists, watches and
 * caches only its share).
 *
 * The operator is test/runtime/sharding/replica-child.ts, one process per replica: for()
 * ConfigMaps, each reconcile waiting 5 ms on a simulated external call (KF_WORK_MS) and writing
 * nothing, 4 reconciles at once per replica. KUBEFORGE_SCALE_OBJECTS ConfigMaps (default 20,000;
 * 1 KiB of data each) in 20 namespaces. Each run uses a fresh ring, so every object is reconciled
 * again.
 *
 * - throughput: for 1, 2 and 4 replicas started together, reconciles per second once the ring
 *   has settled (every replica owns its share), as ratios to one replica's, goal >= 0.85 x N; and
 *   `cold`: objects / (first reconcile .. every object reconciled once), joining the ring included.
 * - memory: per replica, the heap after a full GC less the same before start (the cache's objects
 *   above all), once every object was reconciled; the mean per replica as a ratio to one
 *   replica's, goal <= 1.2 / N.
 * - a run with faults: 3 replicas start; at 20 % of the objects a 4th joins (moved = the share of
 *   the space whose owner changed, goal <= 1.5 / 4); at 50 % one is SIGKILLed (takeover_ms = from
 *   the kill to the first reconcile by a survivor of an object in the killed replica's ranges,
 *   goal <= lease duration + 2 s); overlap = objects reconciled by two replicas at once (from the
 *   replicas' audit of start and end times; goal 0); missed = objects never reconciled (goal 0).
 *   Lease duration 3 s, renew deadline 2 s, retry period 300 ms.
 *
 * Last line: `bench:scale throughput=<2>x,<4>x cold=<2>x,<4>x memory=<2>x,<4>x takeover_ms=<n> overlap=<n>
 * missed=<n> moved=<fraction> objects=<n> load=<1-min load average>`.
 *
 * KUBEFORGE_SCALE_REPLICAS=1,2 runs only those counts (then ratios it cannot compute print as -),
 * KUBEFORGE_SCALE_FAULTS=0 skips the run with faults, KUBEFORGE_SCALE_PROFILE=<dir> makes each
 * replica write a V8 CPU profile into <dir>.
 */
import { type ChildProcess, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RestClient } from '../src/runtime/client/rest.js';
import { TestEnvironment } from '../src/testing/index.js';
import { assignRanges, coverage, fnv1a64, rangesContain, subtractRanges } from '../src/runtime/sharding/index.js';
import { AuditReader, type AuditLine, ringLeases, spawnReplica } from '../test/runtime/sharding/harness.js';
import { sleep } from './stats.js';

const OBJECTS = Number(process.env.KUBEFORGE_SCALE_OBJECTS ?? 20_000);
const NAMESPACES = Array.from({ length: 20 }, (_, i) => `scale-${i}`);
const LEASE_MS = 3000;
const progress = (s: string) => process.stderr.write(`bench:scale: ${s}\n`);

type Audit = AuditLine;

interface Replica {
  id: string;
  child: ChildProcess;
  lines: string[];
  audit: string;
  exited: Promise<unknown>;
}

const leaseName = (ring: string, id: string) => `${ring}-${createHash('sha256').update(id).digest('hex').slice(0, 10)}`;

class Run {
  readonly dir = mkdtempSync(join(tmpdir(), 'kf-scale-'));
  readonly replicas: Replica[] = [];
  constructor(
    readonly env: TestEnvironment,
    readonly ring: string,
  ) {}

  start(id: string): Replica {
    const audit = join(this.dir, `${id}.audit`);
    // KUBEFORGE_SCALE_PROFILE=<dir>: each replica writes a V8 CPU profile there (open it in Chrome DevTools).
    const profile = process.env.KUBEFORGE_SCALE_PROFILE;
    const { child, lines, exited } = spawnReplica(
      {
        KF_KUBECONFIG: this.env.kubeconfigPath,
        KF_ID: id,
        KF_RING: this.ring,
        KF_FIELD: 'uid',
        KF_AUDIT: audit,
        KF_TIMINGS: `${LEASE_MS},2000,300`,
        KF_WRITE: '0',
        KF_WORK_MS: '5',
        KF_CONCURRENCY: '4',
      },
      ['--expose-gc', ...(profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [])],
    );
    const r = { id, child, lines, audit, exited };
    this.replicas.push(r);
    return r;
  }

  private readonly reader = new AuditReader();
  /** Replicas the bench killed on purpose. */
  readonly killed = new Set<string>();

  audit(): Audit[] {
    return this.reader.read(this.replicas.map((r) => r.audit));
  }

  /** Distinct objects reconciled so far (read from the audit files). */
  reconciled(): ReadonlySet<string> {
    return this.reader.reconciled(this.replicas.map((r) => r.audit));
  }

  async waitReconciled(fraction: number, timeoutMs = 600_000): Promise<void> {
    const want = Math.ceil(OBJECTS * fraction);
    const end = Date.now() + timeoutMs;
    let last = 0;
    for (;;) {
      const n = this.reconciled().size;
      if (n >= want) return;
      // A replica that stopped on its own (its membership lost on an overloaded machine, a crash)
      // ends the run now, with what it said, instead of after the timeout.
      const dead = this.replicas.find((r) => r.child.exitCode !== null && !this.killed.has(r.id));
      if (dead)
        throw new Error(
          `bench:scale: replica ${dead.id} exited (code ${dead.child.exitCode}) with ${n} of ${want} objects reconciled; it said: ${dead.lines.slice(-3).join(' | ') || 'nothing'}`,
        );
      if (Date.now() > end) throw new Error(`bench:scale: ${n} of ${want} objects reconciled after ${timeoutMs} ms`);
      if (Date.now() - last > 5000) {
        progress(`${this.ring}: ${n} of ${OBJECTS} reconciled`);
        last = Date.now();
      }
      await sleep(200);
    }
  }

  async memory(): Promise<number[]> {
    const out: number[] = [];
    for (const r of this.replicas) {
      if (r.child.exitCode !== null || r.child.signalCode !== null) continue;
      const before = r.lines.length;
      r.child.kill('SIGUSR2');
      const end = Date.now() + 30_000;
      while (!r.lines.slice(before).some((l) => l.startsWith('mem ')) && Date.now() < end) await sleep(50);
      const line = r.lines.slice(before).find((l) => l.startsWith('mem '));
      if (line) out.push(Number(line.slice(4)));
    }
    return out;
  }

  async stop(): Promise<void> {
    for (const r of this.replicas)
      if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGTERM');
    await Promise.all(this.replicas.map((r) => r.exited));
    rmSync(this.dir, { recursive: true, force: true });
  }
}

async function settled(rest: RestClient, ring: string, ids: string[]): Promise<void> {
  const want = assignRanges(ids.map((id) => leaseName(ring, id)));
  const end = Date.now() + 60_000;
  for (;;) {
    const live = (await ringLeases(rest, ring)).filter((l) => Date.now() - l.renewMs < LEASE_MS);
    if (
      live.length === ids.length &&
      live.every((l) => {
        const w = want.get(l.name);
        return w && subtractRanges(w, l.held).length === 0 && subtractRanges(l.held, w).length === 0;
      })
    )
      return;
    if (Date.now() > end) throw new Error(`bench:scale: ring ${ring} did not settle on ${ids.join(', ')}`);
    await sleep(100);
  }
}

/** As `npm test` does: the control plane `kubeforge setup-envtest` provides (cached; built once). */
function provisionControlPlane(): void {
  if (process.env.KUBEBUILDER_ASSETS) return;
  const cli = fileURLToPath(new URL('../../bin/kubeforge.js', import.meta.url));
  const r = spawnSync(process.execPath, [cli, 'setup-envtest'], {
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error('bench:scale: setup-envtest failed (see above); set KUBEBUILDER_ASSETS');
  process.env.KUBEBUILDER_ASSETS = r.stdout.trim().split('\n').at(-1);
}

async function main(): Promise<void> {
  provisionControlPlane();
  const env = new TestEnvironment({ featureGates: { ShardedListAndWatch: true } });
  progress('starting kube-apiserver 1.37 with ShardedListAndWatch');
  const config = await env.start();
  const rest = new RestClient(config);
  const uids = new Map<string, string>();
  try {
    for (const ns of NAMESPACES)
      await rest.request('POST', '/api/v1/namespaces', {
        body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
      });
    progress(`creating ${OBJECTS} ConfigMaps`);
    const payload = 'x'.repeat(1024);
    for (let i = 0; i < OBJECTS; i += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, OBJECTS - i) }, async (_, j) => {
          const ns = NAMESPACES[(i + j) % NAMESPACES.length];
          const cm = await rest.request<{ metadata: { uid: string } }>('POST', `/api/v1/namespaces/${ns}/configmaps`, {
            body: {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              metadata: { name: `cm-${i + j}`, labels: { 'kubeforge.test/sharded': 'yes' } },
              data: { payload },
            },
          });
          uids.set(`${ns}/cm-${i + j}`, cm.metadata.uid);
        }),
      );
      if (i % 5000 === 0 && i > 0) progress(`${i} created`);
    }

    const throughput = new Map<number, number>();
    const cold = new Map<number, number>();
    const memory = new Map<number, number>();
    // KUBEFORGE_SCALE_REPLICAS=1,2 measures those counts only (the ratios need 1).
    const counts = (process.env.KUBEFORGE_SCALE_REPLICAS ?? '1,2,4').split(',').map(Number);
    for (const n of counts) {
      const run = new Run(env, `scale-${n}`);
      progress(`${n} replica(s): reconciling ${OBJECTS} objects`);
      for (let i = 0; i < n; i++) run.start(`s${n}-${i}`);
      // When the ring settles (every replica owns its share), watched beside the work.
      const settledAt = settled(
        rest,
        run.ring,
        run.replicas.map((r) => r.id),
      ).then(() => performance.timeOrigin + performance.now());
      await run.waitReconciled(1);
      const ts = await settledAt;
      const audit = run.audit();
      const first = Math.min(...audit.map((a) => a.start));
      const firstEnd = new Map<string, number>();
      for (const a of audit) firstEnd.set(a.key, Math.min(firstEnd.get(a.key) ?? Number.POSITIVE_INFINITY, a.end));
      const last = Math.max(...firstEnd.values());
      // Cold: every object once, from the first reconcile (joining the ring included).
      const coldRate = OBJECTS / ((last - first) / 1000);
      cold.set(n, coldRate);
      // Steady: reconciles per second once the ring settled (the work the replicas do together;
      // objects of ranges handed over while joining are reconciled again by their new owner).
      const after = audit.filter((a) => a.start >= ts);
      const end = Math.max(...after.map((a) => a.end));
      const steady = after.length > 0 && end > ts ? after.length / ((end - ts) / 1000) : coldRate;
      throughput.set(n, steady);
      const mem = await run.memory();
      const perReplica = mem.reduce((x, y) => x + y, 0) / Math.max(1, mem.length);
      memory.set(n, perReplica);
      progress(
        `${n} replica(s): ${steady.toFixed(0)} reconciles/s once settled (cold: ${coldRate.toFixed(0)} objects/s from the first reconcile), ${(perReplica / 2 ** 20).toFixed(1)} MiB of cache per replica`,
      );
      await run.stop();
    }

    const ratio = (n: number, m: Map<number, number>) => {
      const at = m.get(n);
      const one = m.get(1);
      return at !== undefined && one !== undefined ? (at / one).toFixed(2) : '-';
    };
    if (process.env.KUBEFORGE_SCALE_FAULTS === '0') {
      process.stdout.write(
        `bench:scale throughput=${ratio(2, throughput)}x,${ratio(4, throughput)}x cold=${ratio(2, cold)}x,${ratio(4, cold)}x memory=${ratio(2, memory)}x,${ratio(4, memory)}x objects=${OBJECTS} load=${loadavg()[0].toFixed(1)}\n`,
      );
      return;
    }
    // Faults: join at 20 %, SIGKILL at 50 %.
    const run = new Run(env, 'scale-faults');
    progress('faults: 3 replicas, a 4th joins at 20 %, one is killed at 50 %');
    for (const id of ['f0', 'f1', 'f2']) run.start(id);
    await settled(rest, run.ring, ['f0', 'f1', 'f2']);
    const before = assignRanges(['f0', 'f1', 'f2'].map((id) => leaseName(run.ring, id)));
    await run.waitReconciled(0.2);
    run.start('f3');
    await settled(rest, run.ring, ['f0', 'f1', 'f2', 'f3']);
    const after = assignRanges(['f0', 'f1', 'f2', 'f3'].map((id) => leaseName(run.ring, id)));
    let moved = 0;
    for (const [name, ranges] of before) moved += coverage(subtractRanges(ranges, after.get(name) ?? []));
    await run.waitReconciled(0.5);
    const victim = run.replicas.find((r) => r.id === 'f1');
    const victimRanges = after.get(leaseName(run.ring, 'f1'));
    if (!victim || !victimRanges) throw new Error('bench scale: replica f1 or its ranges are missing');
    const killedAt = performance.timeOrigin + performance.now();
    run.killed.add(victim.id);
    victim.child.kill('SIGKILL');
    const inVictim = (a: Audit) =>
      a.id !== 'f1' && a.start > killedAt && rangesContain(victimRanges, fnv1a64(uids.get(a.key) ?? ''));
    // The survivors take the victim's ranges once its Lease expired, and list their objects again.
    const deadline = Date.now() + 60_000;
    while (!run.audit().some(inVictim)) {
      if (Date.now() > deadline)
        throw new Error("bench:scale: nobody reconciled the killed replica's objects within 60 s");
      await sleep(50);
    }
    await run.waitReconciled(1);
    const audit = run.audit();
    const takeover = Math.min(...audit.filter(inVictim).map((a) => a.start - killedAt));
    // Objects reconciled by two replicas at once.
    const byKey = new Map<string, Audit[]>();
    for (const a of audit) {
      let l = byKey.get(a.key);
      if (!l) {
        l = [];
        byKey.set(a.key, l);
      }
      l.push(a);
    }
    let overlap = 0;
    for (const l of byKey.values()) {
      l.sort((x, y) => x.start - y.start);
      if (l.some((a, i) => i > 0 && l.slice(0, i).some((b) => b.id !== a.id && b.end > a.start))) overlap++;
    }
    const missed = [...uids.keys()].filter((k) => !byKey.has(k)).length;
    await run.stop();

    process.stdout.write(
      `bench:scale throughput=${ratio(2, throughput)}x,${ratio(4, throughput)}x cold=${ratio(2, cold)}x,${ratio(4, cold)}x memory=${ratio(2, memory)}x,${ratio(4, memory)}x takeover_ms=${Math.round(takeover)} overlap=${overlap} missed=${missed} moved=${moved.toFixed(3)} objects=${OBJECTS} load=${loadavg()[0].toFixed(1)}\n`,
    );
  } finally {
    rest.close();
    await env.stop();
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`bench:scale: ${(e as Error).stack ?? e}\n`);
  process.exit(1);
});
