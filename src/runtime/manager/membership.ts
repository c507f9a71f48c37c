/**
 * Membership of a sharding ring, on coordination.k8s.io/v1 Leases (issue #39): each replica holds
 * one Lease of its own, labelled with the ring's name, renewed as a leader-election Lease is; the
 * live members are those whose Lease was seen to change within its duration; and each member
 * computes the ranges it should own from the live members alone (`assignRanges`, consistent
 * hashing), so no coordinator is needed.
 *
 * Hand-over without overlap. Each member's Lease also says which ranges the member *holds*
 * (annotation `sharding.kubeforge.io/held`): the ranges it may be reconciling. The rules:
 * - A member gives a range up in this order: it stops handing out work in it (the gate closes at
 *   once), waits for the reconciles of objects in it to end, and only then writes its Lease
 *   without it.
 * - A member takes a range it should own in this order: it writes its Lease claiming it, then
 *   reads the ring again (a consistent read, from etcd's order) and opens the range only if no
 *   other live member holds any of it; a part someone else holds is withdrawn and tried again on
 *   the next round. Of two members that claim the same range, at least one sees the other's claim
 *   (each writes before it reads), so at most one opens it.
 * - A member whose Lease has not changed for its duration (by the observer's own clock, as
 *   client-go judges a leader's Lease) is dead: its claims are ignored. A member's own gate closes
 *   when its last successful renewal was sent more than the renew deadline ago by its monotonic
 *   clock (see LeaderElector.isLeading): before anyone may judge it dead, even if it was frozen
 *   (SIGSTOP, a long pause) and has not run a timer since. Its writes are then fenced too (the
 *   Manager's client asks {@link ShardMember.isAlive} before every write), and it stops.
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { RestClient } from '../client/rest.js';
import { StatusError, isNotFound } from '../client/errors.js';
import { microTime } from '../client/dates.js';
import { Counter, Gauge, Histogram, type Registry } from '../client/prom.js';
import {
  HASH_SPACE_END,
  type HashRange,
  coverage,
  intersectRanges,
  parseRangesText,
  rangesContain,
  rangesText,
  sameRanges,
  subtractRanges,
  unionRanges,
} from '../sharding/ranges.js';
import { DEFAULT_VIRTUAL_NODES, MAX_VIRTUAL_NODES, assignRanges, checkVirtualNodes } from '../sharding/ring.js';
import { defaultIdentity } from './leaderelection.js';
import { isDNS1123Label, isDNS1123Subdomain } from '../../util/apimachinery/validation.js';
import type { ShardGate } from '../contracts.js';
import { activeTracer, recordMoment, safely } from '../tracing.js';

/** The label that puts a Lease in a ring (its value: the ring's name). */
export const RING_LABEL = 'sharding.kubeforge.io/ring';
/** The annotation of a member's Lease that lists the ranges it holds (see `rangesText`). */
export const HELD_ANNOTATION = 'sharding.kubeforge.io/held';
/** The annotation of a member's Lease that says how many tokens it places on the ring. */
export const VIRTUAL_NODES_ANNOTATION = 'sharding.kubeforge.io/virtual-nodes';
/** The annotation of a member's Lease that says what it hashes objects by. */
export const FIELD_ANNOTATION = 'sharding.kubeforge.io/field';

/** A monotonic millisecond clock (performance.now by default). */
export interface MonotonicClock {
  now(): number;
}

/** Options of {@link ShardMember}. Durations are milliseconds. */
export interface ShardMemberOptions {
  rest: RestClient;
  /** Namespace of the ring's Leases. */
  namespace: string;
  /** The ring's name: a DNS-1123 label (the value of the ring label). */
  ring: string;
  /** This member's identity (default `<hostname>_<uuid>`): its Lease's holderIdentity. */
  identity?: string;
  /** How long a member's Lease is valid without renewal (default 15 000). */
  leaseDurationMs?: number;
  /** How long a member keeps working without a successful renewal (default 10 000). */
  renewDeadlineMs?: number;
  /** Wait between renewals and between looks at the ring (default 2 000). */
  retryPeriodMs?: number;
  /** Tokens per member on the ring (default 128, at most 1,024); advertised in its Lease. */
  virtualNodes?: number;
  /**
   * What this replica hashes objects by (advertised in its Lease): members of one ring must
   * agree, and a member that sees a live member hashing by another field takes no range.
   */
  field?: string;
  /**
   * How long a range given up waits for its reconciles to end before their signals are aborted
   * (default 5 000). The range is written away only once they have ended, however long that takes.
   */
  drainTimeoutMs?: number;
  logger: Logger;
  /** Where the shard metrics are registered (none: not registered). */
  registry?: Registry;
  /** Test seam: the monotonic clock of the renew deadline and of others' expiry. */
  clock?: MonotonicClock;
}

interface LeaseObject {
  metadata?: {
    name?: string;
    resourceVersion?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  spec?: { holderIdentity?: string; leaseDurationSeconds?: number };
}

interface Observed {
  resourceVersion: string;
  /** Local monotonic time the Lease was first seen with this resourceVersion. */
  at: number;
}

/** A live member as read from its Lease. */
interface Peer {
  held: HashRange[];
  virtualNodes: number;
  field?: string;
}

/** One replica's membership of a ring (see the file comment). */
export class ShardMember implements ShardGate {
  readonly identity: string;
  /** This member's Lease name: `<ring>-<first 10 hex digits of SHA-256(identity)>`. */
  readonly leaseName: string;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly drainTimeoutMs: number;
  private readonly clock: MonotonicClock;
  private readonly log: Logger;
  private readonly path: string;
  /** Ranges whose work this member hands out now. Always inside `held`. */
  private open: HashRange[] = [];
  /** Ranges written (or to be written) in this member's Lease: those it may be reconciling. */
  private held: HashRange[] = [];
  /** Ranges closed and waiting for their running reconciles before they are written away. Inside `held`, outside `open`. */
  private releasing: HashRange[] = [];
  private readonly virtualNodes: number;
  /** Set when shutdown begins: no new range is taken (those held are kept until leave()). */
  private noClaims = false;
  /** Set once the renewals stopped on purpose (the manager is stopping): not a loss. */
  private renewalsStopped = false;
  /** A POST found this member's Lease already there: since when (monotonic), at which resourceVersion. */
  private existing?: { resourceVersion: string; at: number };
  private readonly openedListeners: ((ranges: readonly HashRange[]) => void)[] = [];
  private readonly warned = new Set<string>();
  private joinLogged = false;
  /** What the live members say this member should own, as of the last look. */
  private desired: HashRange[] = [];
  private members: string[] = [];
  private resourceVersion?: string;
  /** Monotonic time the last successful write of the Lease was sent (-Infinity: never). */
  private renewedAt = Number.NEGATIVE_INFINITY;
  private readonly observed = new Map<string, Observed>();
  private readonly inflight = new Map<number, { point: bigint; abort?: () => void; done: () => void }>();
  private nextId = 0;
  /** Waiters of drain(), woken when a tracked reconcile ends. */
  private readonly drainWaiters = new Set<() => void>();
  private writes: Promise<unknown> = Promise.resolve();
  private lostReason?: string;
  private readonly lostListeners: ((reason: string) => void)[] = [];
  private readonly changeListeners: ((ranges: readonly HashRange[]) => void)[] = [];
  private readonly metrics?: {
    rangesOwned: Gauge<string>;
    coverage: Gauge<string>;
    members: Gauge<string>;
    handovers: Counter<string>;
    handoverSeconds: Histogram<string>;
  };

  constructor(private readonly o: ShardMemberOptions) {
    const ringErrors = isDNS1123Label(o.ring);
    if (ringErrors.length)
      throw new Error(
        `kubeforge/runtime: sharding ring ${JSON.stringify(o.ring)} must be a DNS-1123 label (it is a label value and a Lease name prefix): ${ringErrors.join('; ')}`,
      );
    const nsErrors = isDNS1123Label(o.namespace);
    if (nsErrors.length)
      throw new Error(`kubeforge/runtime: sharding namespace ${JSON.stringify(o.namespace)}: ${nsErrors.join('; ')}`);
    this.identity = o.identity ?? defaultIdentity();
    this.leaseName = `${o.ring}-${createHash('sha256').update(this.identity).digest('hex').slice(0, 10)}`;
    if (isDNS1123Subdomain(this.leaseName).length)
      throw new Error(`kubeforge/runtime: sharding Lease name ${this.leaseName} is not a DNS-1123 subdomain`);
    this.leaseDurationMs = o.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = o.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = o.retryPeriodMs ?? 2_000;
    this.drainTimeoutMs = o.drainTimeoutMs ?? 5_000;
    if (
      !(
        this.leaseDurationMs > this.renewDeadlineMs &&
        this.renewDeadlineMs > this.retryPeriodMs &&
        this.retryPeriodMs > 0
      )
    )
      throw new Error(
        `kubeforge/runtime: sharding needs leaseDurationMs > renewDeadlineMs > retryPeriodMs > 0 (got ${this.leaseDurationMs}, ${this.renewDeadlineMs}, ${this.retryPeriodMs})`,
      );
    this.virtualNodes = o.virtualNodes ?? DEFAULT_VIRTUAL_NODES;
    checkVirtualNodes(this.virtualNodes);
    this.clock = o.clock ?? { now: () => performance.now() };
    this.log = o.logger.child({ ring: o.ring, member: this.leaseName });
    this.path = `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(o.namespace)}/leases`;
    if (o.registry) {
      const registers = [o.registry];
      const labelNames = ['ring'];
      this.metrics = {
        rangesOwned: new Gauge({
          name: 'kubeforge_shard_ranges_owned',
          help: 'Hash ranges this replica reconciles now (after merging adjacent ones).',
          labelNames,
          registers,
        }),
        coverage: new Gauge({
          name: 'kubeforge_shard_coverage_ratio',
          help: "Fraction of the 64-bit hash space this replica reconciles now (1/N of a settled ring's N members).",
          labelNames,
          registers,
        }),
        members: new Gauge({
          name: 'kubeforge_shard_members',
          help: 'Live members of the ring, this replica included, as it last saw them.',
          labelNames,
          registers,
        }),
        handovers: new Counter({
          name: 'kubeforge_shard_handovers_total',
          help: 'Hash ranges taken (direction="acquired") or given up (direction="released") by this replica.',
          labelNames: ['ring', 'direction'],
          registers,
        }),
        handoverSeconds: new Histogram({
          name: 'kubeforge_shard_handover_duration_seconds',
          help: 'Time from closing a range to writing it away: the wait for its running reconciles.',
          labelNames,
          buckets: [0.001, 0.01, 0.05, 0.1, 0.5, 1, 5, 30],
          registers,
        }),
      };
    }
  }

  /**
   * True while this member renews its Lease in time (synchronous; see the file comment). Past the
   * renew deadline the membership is lost, unless the renewals were stopped on purpose (the
   * manager is stopping, its controllers already stopped).
   */
  isAlive(): boolean {
    if (this.lostReason !== undefined || !this.hasJoined()) return false;
    if (this.clock.now() - this.renewedAt < this.renewDeadlineMs) return true;
    if (!this.renewalsStopped)
      this.lose(
        `no successful renewal of Lease ${this.o.namespace}/${this.leaseName} within ${this.renewDeadlineMs} ms`,
      );
    return false;
  }

  /** True when writes must be refused: joined, not stopping on purpose, and no longer alive. */
  fenced(): boolean {
    return this.hasJoined() && !this.renewalsStopped && !this.isAlive();
  }

  allows(point: bigint): boolean {
    return this.isAlive() && rangesContain(this.open, point);
  }

  track(point: bigint, abort?: () => void): () => void {
    const id = this.nextId++;
    let ended = false;
    const done = () => {
      if (ended) return;
      ended = true;
      this.inflight.delete(id);
      for (const w of [...this.drainWaiters]) w();
    };
    this.inflight.set(id, { point, abort, done });
    return done;
  }

  /** The ranges this member hands out work of now. */
  ownedRanges(): readonly HashRange[] {
    return this.open;
  }

  /** The live members as last seen (this one included), sorted. */
  liveMembers(): readonly string[] {
    return this.members;
  }

  /** True once this member owns exactly what the live members say it should (the ring is settled for it). */
  settled(): boolean {
    return this.isAlive() && this.members.length > 0 && sameRanges(this.open, this.desired);
  }

  /** Why this member lost its membership (undefined while it has not). */
  lostBecause(): string | undefined {
    return this.lostReason;
  }

  /** Called once, synchronously, when this member loses its membership (its gate is closed by then). */
  onLost(listener: (reason: string) => void): void {
    this.lostListeners.push(listener);
  }

  /**
   * Called with the ranges whose objects this replica needs cached whenever they change: those it
   * reconciles and those it is giving up (until their reconciles have ended).
   */
  onChange(listener: (ranges: readonly HashRange[]) => void): void {
    this.changeListeners.push(listener);
  }

  /** Called with the ranges just opened (taken), after the gate allows them. */
  onOpened(listener: (ranges: readonly HashRange[]) => void): void {
    this.openedListeners.push(listener);
  }

  /** Shutdown began: take no new range (what is held stays until {@link leave}). */
  stopClaiming(): void {
    this.noClaims = true;
  }

  private lose(reason: string): void {
    if (this.lostReason !== undefined) return;
    this.lostReason = reason;
    const closed = this.open;
    this.open = [];
    this.updateGauges();
    this.log.error({ reason }, 'sharding: membership lost; this replica stops reconciling');
    this.moment('lost', closed, { 'kubeforge.reason': reason });
    for (const l of this.lostListeners) l(reason);
  }

  private emitChange(): void {
    this.updateGauges();
    const cached = unionRanges(this.open, this.releasing);
    for (const l of this.changeListeners) l(cached);
  }

  private updateGauges(): void {
    if (!this.metrics) return;
    const ring = { ring: this.o.ring };
    this.metrics.rangesOwned.set(ring, this.open.length);
    this.metrics.coverage.set(ring, coverage(this.open));
    this.metrics.members.set(ring, this.members.length);
  }

  /** True once this member's Lease was written (it may have lost it since). */
  hasJoined(): boolean {
    return this.renewedAt !== Number.NEGATIVE_INFINITY;
  }

  /**
   * Writes this member's Lease (holding nothing yet), retrying every retry period until it is
   * written or `signal` aborts; rejects on answers that will not change (RBAC, a missing
   * namespace).
   */
  async join(signal: AbortSignal): Promise<void> {
    while (!this.hasJoined() && !signal.aborted) {
      await this.write(signal);
      if (this.lostReason !== undefined) throw new Error(`kubeforge/runtime: sharding: ${this.lostReason}`);
      if (!this.hasJoined()) await sleep(this.retryPeriodMs, signal);
    }
    if (this.hasJoined() && !this.joinLogged) {
      this.joinLogged = true;
      this.log.info({ identity: this.identity, namespace: this.o.namespace }, 'sharding: joined the ring');
    }
  }

  /**
   * Keeps the membership (joining first if needed) until `signal` aborts (then resolves: the
   * renewals stop, call {@link leave} next) or it is lost (then rejects).
   */
  async run(signal: AbortSignal): Promise<void> {
    await this.join(signal);
    if (signal.aborted) {
      this.renewalsStopped = true;
      return;
    }
    let rejectLost!: (e: Error) => void;
    const lost = new Promise<never>((_, reject) => (rejectLost = reject));
    lost.catch(() => undefined);
    this.onLost((reason) => rejectLost(new Error(`kubeforge/runtime: sharding membership lost: ${reason}`)));
    const renewing = (async () => {
      while (!signal.aborted && this.lostReason === undefined) {
        await sleep(this.retryPeriodMs, signal);
        if (signal.aborted) break;
        await this.write(signal);
        this.isAlive();
      }
    })();
    const balancing = (async () => {
      await this.settle(signal);
      while (!signal.aborted && this.lostReason === undefined) {
        try {
          await this.rebalance(signal);
        } catch (err) {
          if (!signal.aborted)
            this.log.warn({ err: (err as Error).message }, 'sharding: could not read the ring; retrying');
        }
        await sleep(this.retryPeriodMs, signal);
      }
    })();
    try {
      await Promise.race([Promise.all([renewing, balancing]), lost]);
    } finally {
      if (signal.aborted) this.renewalsStopped = true;
    }
  }

  /**
   * Before its first claim, a member that just joined waits until the ring's live members stay the
   * same over one retry period (at most a lease duration): replicas started together (a
   * Deployment's first rollout) see each other first, so each claims, lists and caches only its
   * share, instead of the first one up taking the whole space for a moment (its memory peak the
   * whole cache, which sharding was to avoid) and every later join closing ranges on it. Costs a
   * lone member one retry period at start. A look that fails ends the wait (the rounds retry).
   */
  private async settle(signal: AbortSignal): Promise<void> {
    const end = this.clock.now() + this.leaseDurationMs;
    let seen: string | undefined;
    while (!signal.aborted && this.clock.now() < end) {
      let members: string;
      try {
        members = [...(await this.readRing(signal)).keys()].sort().join('\n');
      } catch {
        return;
      }
      if (members === seen) return;
      seen = members;
      await sleep(this.retryPeriodMs, signal);
    }
  }

  /**
   * Leaves the ring after the controllers stopped: gives every range up (waiting for running
   * reconciles) and deletes this member's Lease, so the others take its ranges on their next look
   * instead of after the Lease's duration.
   */
  async leave(): Promise<void> {
    this.noClaims = true;
    this.renewalsStopped = true;
    if (this.lostReason !== undefined || this.resourceVersion === undefined) return;
    const all = this.held;
    const began = performance.now();
    this.open = [];
    this.releasing = all;
    const span = all.length ? this.handOverSpan('shard leave', all) : undefined;
    await this.drain(all, undefined, span);
    try {
      await this.deleteOwnLease();
      this.held = [];
      this.releasing = [];
      if (all.length) {
        this.metrics?.handovers.inc({ ring: this.o.ring, direction: 'released' }, all.length);
        this.metrics?.handoverSeconds.observe({ ring: this.o.ring }, (performance.now() - began) / 1000);
      }
      this.updateGauges();
      this.log.info('sharding: left the ring (Lease deleted)');
      safely(() => span?.addEvent('released', this.rangeAttributes(all)));
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'sharding: could not delete the member Lease; it expires');
      safely(() => span?.addEvent('lease not deleted', { 'kubeforge.reason': (err as Error).message }));
    } finally {
      safely(() => span?.end());
    }
  }

  /**
   * Deletes this member's Lease, on the condition that it is the version this member wrote last.
   * A renewal aborted by the stop may still have landed (its answer lost), so a 409 is not yet a
   * refusal: when the Lease still names this member, the delete is sent again on its current
   * version (a few times at most); a Lease that names another holder is not ours to delete.
   */
  private async deleteOwnLease(): Promise<void> {
    const path = `${this.path}/${encodeURIComponent(this.leaseName)}`;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.o.rest.request('DELETE', path, {
          body: { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { resourceVersion: this.resourceVersion } },
          timeoutMs: this.renewDeadlineMs,
        });
        return;
      } catch (err) {
        if (!(err instanceof StatusError && err.code === 409) || attempt >= 3) throw err;
        const current = await this.o.rest.request<LeaseObject>('GET', path, { timeoutMs: this.renewDeadlineMs });
        if (current.spec?.holderIdentity !== this.identity || !current.metadata?.resourceVersion) throw err;
        this.resourceVersion = current.metadata.resourceVersion;
      }
    }
  }

  /** The attributes of ranges on a hand-over span or event: the ring, this member, the ranges, how many, their share. */
  private rangeAttributes(ranges: readonly HashRange[]): Record<string, string | number> {
    return {
      'kubeforge.ring': this.o.ring,
      'kubeforge.identity': this.identity,
      'kubeforge.lease': `${this.o.namespace}/${this.leaseName}`,
      'kubeforge.shard.ranges': rangesText(ranges),
      'kubeforge.shard.range_count': ranges.length,
      'kubeforge.shard.share': round(coverage(ranges)),
    };
  }

  /** A moment of the hand-over (ranges opened, closed, a claim withdrawn) as a span ended at once; nothing without a provider. */
  private moment(event: string, ranges: readonly HashRange[], extra: Record<string, string | number>): void {
    if (!activeTracer()) return;
    recordMoment(`shard ${event}`, event, { ...this.rangeAttributes(ranges), ...extra });
  }

  /**
   * A span over giving ranges up (closed, drained, written away): a root span, like leader
   * election's, with the events `drained`, `drain timed out` and `released`; undefined without a provider.
   */
  private handOverSpan(name: string, ranges: readonly HashRange[]) {
    const tracer = activeTracer();
    if (!tracer) return undefined;
    return safely(() => tracer.startSpan(name, { root: true, attributes: this.rangeAttributes(ranges) }));
  }

  /**
   * Writes this member's Lease (creating it the first time) with the ranges it holds now; writes
   * are serialized. Resolves true only when that very content reached the server. A write that
   * finds the Lease changed or gone by someone else ends the membership; other failures are
   * logged and retried by the next renewal.
   */
  private write(signal?: AbortSignal): Promise<boolean> {
    const next = this.writes.then(() => this.writeNow(signal));
    this.writes = next.catch(() => undefined);
    return next;
  }

  private leaseBody(): unknown {
    return {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: {
        name: this.leaseName,
        namespace: this.o.namespace,
        labels: { [RING_LABEL]: this.o.ring },
        annotations: {
          [HELD_ANNOTATION]: rangesText(this.held),
          [VIRTUAL_NODES_ANNOTATION]: String(this.virtualNodes),
          ...(this.o.field ? { [FIELD_ANNOTATION]: this.o.field } : {}),
        },
        ...(this.resourceVersion ? { resourceVersion: this.resourceVersion } : {}),
      },
      spec: {
        holderIdentity: this.identity,
        leaseDurationSeconds: Math.ceil(this.leaseDurationMs / 1000),
        renewTime: microTime(),
      },
    };
  }

  private async writeNow(signal?: AbortSignal, retried = false): Promise<boolean> {
    if (this.lostReason !== undefined || this.renewalsStopped) return false;
    // Never renew past the deadline: a member resumed after a stall may have been counted dead
    // and its ranges taken; renewing now would make it live again with ranges it no longer holds.
    if (this.hasJoined() && !this.isAlive()) return false;
    const sentAt = this.clock.now();
    const creating = this.resourceVersion === undefined;
    try {
      const res = await this.o.rest.request<LeaseObject>(
        creating ? 'POST' : 'PUT',
        creating ? this.path : `${this.path}/${encodeURIComponent(this.leaseName)}`,
        { body: this.leaseBody(), timeoutMs: Math.max(1, this.renewDeadlineMs - (this.clock.now() - sentAt)), signal },
      );
      this.resourceVersion = res.metadata?.resourceVersion;
      this.existing = undefined;
      if (this.clock.now() - sentAt < this.renewDeadlineMs || this.renewedAt === Number.NEGATIVE_INFINITY)
        this.renewedAt = Math.max(this.renewedAt, sentAt);
      return true;
    } catch (err) {
      if (signal?.aborted) return false;
      if (err instanceof StatusError && err.code === 409) {
        const current = await this.o.rest
          .request<LeaseObject>('GET', `${this.path}/${encodeURIComponent(this.leaseName)}`, { signal })
          .catch(() => undefined);
        const ours = current?.spec?.holderIdentity === this.identity;
        if (creating && ours && current?.metadata?.resourceVersion) {
          // Our Lease exists already: a create whose answer was lost, or an earlier run of this
          // identity. Take it over once it has not changed for a lease duration (an earlier run
          // that still lives would have renewed it).
          const rv = current.metadata.resourceVersion;
          if (this.existing?.resourceVersion !== rv) this.existing = { resourceVersion: rv, at: this.clock.now() };
          if (this.clock.now() - this.existing.at >= this.leaseDurationMs) {
            this.log.info(
              "sharding: taking over this identity's existing member Lease (unchanged for a lease duration)",
            );
            this.resourceVersion = rv;
            return retried ? false : this.writeNow(signal, true);
          }
          this.log.info(
            "sharding: this identity's member Lease exists already (a create whose answer was lost, or an earlier run); taking it over once it has not changed for a lease duration",
          );
          return false;
        }
        if (!creating && ours && current?.metadata?.resourceVersion) {
          // Our own earlier write landed after its answer was lost: write again on top of it.
          this.resourceVersion = current.metadata.resourceVersion;
          return retried ? false : this.writeNow(signal, true);
        }
        if (!creating) {
          this.lose(
            `the member Lease ${this.o.namespace}/${this.leaseName} was changed by someone else (409 Conflict)`,
          );
          return false;
        }
      }
      if (err instanceof StatusError && isNotFound(err) && !creating) {
        this.lose(`the member Lease ${this.o.namespace}/${this.leaseName} was deleted by someone else`);
        return false;
      }
      if (err instanceof StatusError && [400, 403, 404, 422].includes(err.code)) {
        const hint =
          err.code === 403
            ? ': the manager needs get, list, create, update and delete on leases in coordination.k8s.io'
            : err.code === 404
              ? `: does namespace ${this.o.namespace} exist?`
              : '';
        this.log.error({ err: err.message }, `sharding: cannot write the member Lease${hint}`);
        if (!this.hasJoined()) this.lose(`cannot create the member Lease: ${err.message}${hint}`);
        return false;
      }
      this.log.warn(
        { err: (err as Error).message },
        creating
          ? 'sharding: creating the member Lease failed; retrying'
          : 'sharding: writing the member Lease failed; retrying',
      );
      return false;
    }
  }

  /** The live members other than this one, as their Leases say, from a consistent read of the ring. */
  private async readRing(signal: AbortSignal): Promise<Map<string, Peer>> {
    const list = await this.o.rest.request<{ items?: LeaseObject[] }>('GET', this.path, {
      query: { labelSelector: `${RING_LABEL}=${this.o.ring}` },
      signal,
      timeoutMs: this.renewDeadlineMs,
    });
    const now = this.clock.now();
    const live = new Map<string, Peer>();
    const seen = new Set<string>();
    for (const lease of list.items ?? []) {
      const name = lease.metadata?.name ?? '';
      if (!name || name === this.leaseName) continue;
      seen.add(name);
      const rv = lease.metadata?.resourceVersion ?? '';
      let obs = this.observed.get(name);
      if (!obs || obs.resourceVersion !== rv) {
        obs = { resourceVersion: rv, at: now };
        this.observed.set(name, obs);
      }
      if (!lease.spec?.holderIdentity) continue;
      const durationMs = Math.max(1, lease.spec.leaseDurationSeconds ?? 15) * 1000;
      const age = now - obs.at;
      const annotations = lease.metadata?.annotations ?? {};
      if (age < durationMs) {
        let held: HashRange[];
        try {
          held = parseRangesText(annotations[HELD_ANNOTATION] ?? '');
        } catch (err) {
          // Unreadable: count the whole space as held, so nothing it might reconcile is taken.
          this.warnOnce(
            `held:${name}`,
            { lease: name, err: (err as Error).message },
            'sharding: unreadable held ranges; treated as all',
          );
          held = [{ start: 0n, end: HASH_SPACE_END }];
        }
        const vn = Number(annotations[VIRTUAL_NODES_ANNOTATION] ?? DEFAULT_VIRTUAL_NODES);
        live.set(name, {
          held,
          virtualNodes: Number.isInteger(vn) && vn >= 1 && vn <= MAX_VIRTUAL_NODES ? vn : DEFAULT_VIRTUAL_NODES,
          field: annotations[FIELD_ANNOTATION],
        });
      } else if (age > 3 * durationMs) {
        // Long dead (a replica killed, its pod gone): clean its Lease up, only if unchanged since.
        await this.o.rest
          .request('DELETE', `${this.path}/${encodeURIComponent(name)}`, {
            body: { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { resourceVersion: rv } },
            signal,
          })
          .then(() => this.log.info({ lease: name }, 'sharding: deleted the Lease of a member long dead'))
          .catch(() => undefined);
      }
    }
    for (const name of [...this.observed.keys()]) if (!seen.has(name)) this.observed.delete(name);
    return live;
  }

  private warnOnce(key: string, fields: Record<string, unknown>, msg: string): void {
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.log.warn(fields, msg);
  }

  /**
   * One look at the ring: close what is no longer ours (written away in the background once its
   * reconciles end), then claim what is ours and no one else holds, and open what the claim won.
   */
  private async rebalance(signal: AbortSignal): Promise<void> {
    if (!this.isAlive() || this.renewalsStopped) return;
    const live = await this.readRing(signal);
    const members = [this.leaseName, ...live.keys()].sort();
    if (members.join('\n') !== this.members.join('\n'))
      this.log.info({ members: members.length }, 'sharding: ring members changed');
    this.members = members;
    const tokens = new Map<string, number>([[this.leaseName, this.virtualNodes]]);
    for (const [name, peer] of live) tokens.set(name, peer.virtualNodes);
    this.desired = assignRanges(members, tokens).get(this.leaseName) ?? [];
    this.updateGauges();

    const lose = subtractRanges(subtractRanges(this.held, this.desired), this.releasing);
    if (lose.length > 0) {
      this.open = subtractRanges(this.open, lose);
      this.releasing = unionRanges(this.releasing, lose);
      this.emitChange();
      this.moment('closed', lose, { 'kubeforge.shard.owned_share': round(coverage(this.open)) });
      void this.release(lose, signal);
    }

    if (this.noClaims) return;
    const mismatched = [...live.entries()].filter(([, p]) => this.o.field && p.field && p.field !== this.o.field);
    if (mismatched.length > 0) {
      this.warnOnce(
        `field:${mismatched.map(([n]) => n).join(',')}`,
        { ours: this.o.field, theirs: mismatched.map(([n, p]) => `${n}: ${p.field}`) },
        'sharding: live members of this ring hash objects by another field; taking no range until they are gone (run one field per ring)',
      );
      return;
    }
    const othersHeld = unionRanges(
      [],
      [...live.values()].flatMap((p) => p.held),
    );
    // What is ours and not open: never claimed, or claimed and not opened (a failed look after the claim).
    const want = subtractRanges(subtractRanges(subtractRanges(this.desired, this.open), this.releasing), othersHeld);
    if (want.length === 0 || !this.isAlive()) return;
    // Claim, then look again: open only what no other live member holds after our claim was written.
    this.held = unionRanges(this.held, want);
    if (!(await this.write(signal)) || !this.isAlive()) return;
    const again = await this.readRing(signal);
    const conflict = intersectRanges(
      want,
      [...again.values()].flatMap((p) => p.held),
    );
    if (conflict.length > 0) {
      this.held = subtractRanges(this.held, conflict);
      await this.write(signal);
      this.moment('withdrawn', conflict, {});
      this.log.info(
        { ranges: conflict.length },
        'sharding: another member holds part of what we claimed; retrying later',
      );
    }
    const granted = subtractRanges(want, conflict);
    if (granted.length > 0 && this.isAlive() && !this.noClaims) {
      this.open = unionRanges(this.open, granted);
      this.emitChange();
      for (const l of this.openedListeners) l(granted);
      this.metrics?.handovers.inc({ ring: this.o.ring, direction: 'acquired' }, granted.length);
      this.moment('opened', granted, { 'kubeforge.shard.owned_share': round(coverage(this.open)) });
      this.log.info(
        { ranges: granted.length, share: coverage(granted), owned: coverage(this.open) },
        'sharding: took ranges',
      );
    }
  }

  /** Writes ranges away once their reconciles ended (they were closed already). */
  private async release(ranges: HashRange[], signal: AbortSignal): Promise<void> {
    const began = performance.now();
    const span = this.handOverSpan('shard release', ranges);
    const drained = await this.drain(ranges, signal, span);
    if (!drained || this.lostReason !== undefined) {
      // Stopping (leave() gives them up) or the membership was lost: the ranges were not written away.
      safely(() => span?.end());
      return;
    }
    this.releasing = subtractRanges(this.releasing, ranges);
    this.held = subtractRanges(this.held, ranges);
    this.emitChange(); // the cache lets their objects go now
    const written = await this.write(signal); // if it fails, the next renewal writes the same
    safely(() => {
      span?.addEvent('released', { ...this.rangeAttributes(ranges), 'kubeforge.shard.written': written });
      span?.end();
    });
    this.metrics?.handovers.inc({ ring: this.o.ring, direction: 'released' }, ranges.length);
    this.metrics?.handoverSeconds.observe({ ring: this.o.ring }, (performance.now() - began) / 1000);
    this.log.info({ ranges: ranges.length, share: coverage(ranges) }, 'sharding: gave ranges up');
  }

  /**
   * Waits until no reconcile of a point in `ranges` runs; past the drain timeout, aborts them.
   * Resolves false when `signal` aborts first (the ranges stay held).
   */
  private async drain(
    ranges: readonly HashRange[],
    signal?: AbortSignal,
    span?: { addEvent(name: string, attributes: Record<string, number>): unknown },
  ): Promise<boolean> {
    const running = () => [...this.inflight.values()].filter((r) => rangesContain(ranges, r.point));
    const began = performance.now();
    let aborted = false;
    while (running().length > 0) {
      if (signal?.aborted) return false;
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(t);
          this.drainWaiters.delete(wake);
          resolve();
        };
        const t = setTimeout(wake, 100);
        this.drainWaiters.add(wake);
      });
      if (!aborted && performance.now() - began > this.drainTimeoutMs) {
        aborted = true;
        const left = running();
        this.log.warn(
          { running: left.length, waitedMs: Math.round(performance.now() - began) },
          'sharding: reconciles of ranges being given up outlived the drain timeout; aborting their signals',
        );
        safely(() =>
          span?.addEvent('drain timed out', {
            'kubeforge.shard.running': left.length,
            'kubeforge.shard.waited_ms': Math.round(performance.now() - began),
          }),
        );
        for (const r of left) r.abort?.();
      }
    }
    safely(() => span?.addEvent('drained', { 'kubeforge.shard.waited_ms': Math.round(performance.now() - began) }));
    return true;
  }
}

/** A share of the hash space, to 6 digits. */
function round(share: number): number {
  return Math.round(share * 1e6) / 1e6;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const onAbort = () => {
      clearTimeout(t);
      resolve();
    };
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
